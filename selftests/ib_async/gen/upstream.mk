# SPDX-License-Identifier: GPL-2.0
#
# How ib_async_upstream_async is built; ../Makefile lists it in
# TEST_GEN_PROGS_EXTENDED and gen/ib_async_upstream_async.sh, which runs it
# on both stacks, in TEST_PROGS, and includes this after lib.mk.
#
# Its C is what gen/rdma_fuzzing_async.py (the committed classes for
# liuyi-thu/rdma-fuzzing) generates for each combination of their mutable
# fields, written by gen/test_upstream.py --emit around gen/upstream_rt.h.

UPSTREAM_DIR := $(IB_ASYNC_TOP)/selftests/ib_async/gen

EXTRA_CLEAN += $(OUTPUT)/ib_async_upstream_async.c

$(OUTPUT)/ib_async_upstream_async.c: $(addprefix $(UPSTREAM_DIR)/,\
		rdma_fuzzing_async.py test_upstream.py upstream.py verbs.py)
	python3 $(UPSTREAM_DIR)/test_upstream.py --emit $@.tmp
	mv $@.tmp $@

$(OUTPUT)/ib_async_upstream_async: $(OUTPUT)/ib_async_upstream_async.c \
		$(UPSTREAM_DIR)/upstream_rt.h
	$(CC) $(CFLAGS) -std=c11 -I$(UPSTREAM_DIR) $(LDFLAGS) -o $@ $< \
		$(LDLIBS) -libverbs
