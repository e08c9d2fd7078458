# SPDX-License-Identifier: GPL-2.0
#
# How ib_async_fuzz is built; ../Makefile lists it in TEST_GEN_PROGS (so
# it is built and installed with the other selftests) and includes this
# after lib.mk. Its quick form (no arguments) is a kselftest program of
# run_guest.sh; the top-level `make fuzz` runs the long form through
# fuzz/fuzz.sh.
#
# The kernel-log patterns are scripts/guest/check-log.sh's, turned into a
# C string at build time so that the fuzzer and vm.sh judge a log alike.

FUZZ_DIR := $(IB_ASYNC_TOP)/selftests/ib_async/fuzz
FUZZ_SRCS := $(addprefix $(FUZZ_DIR)/,ib_async_fuzz.c spec.c gen.c worker.c \
	recipes.c cq_ring.c)
FUZZ_CHECK_LOG := $(IB_ASYNC_TOP)/scripts/guest/check-log.sh

EXTRA_CLEAN += $(OUTPUT)/fuzz_log_pattern.h

$(OUTPUT)/fuzz_log_pattern.h: $(FUZZ_CHECK_LOG) $(FUZZ_DIR)/fuzz.mk
	sed -n "s/^PATTERN='\(.*\)'$$/\1/p" $< | \
		sed 's/\\/\\\\/g; s/"/\\"/g; s/.*/#define FZ_LOG_PATTERN "&"/' >$@.tmp
	grep -q '^#define FZ_LOG_PATTERN ".\{20,\}"$$' $@.tmp || \
		{ echo "no PATTERN='...' line in $<" >&2; rm -f $@.tmp; exit 1; }
	mv $@.tmp $@

$(OUTPUT)/ib_async_fuzz: $(FUZZ_SRCS) $(FUZZ_DIR)/fuzz.h \
		$(OUTPUT)/fuzz_log_pattern.h $(IBA_LIB) \
		$(IB_ASYNC_TOP)/include/uapi/rdma/ib_async.h \
		$(IB_ASYNC_TOP)/selftests/ib_async/lib/iba_send_rules.h \
		$(IB_ASYNC_TOP)/selftests/ib_async/lib/iba_ring_map.h \
		$(IB_ASYNC_TOP)/include/ib_async_send_rules.h \
		$(IB_ASYNC_TOP)/include/ib_async_send_rules_table.h
	$(CC) $(CFLAGS) -std=c11 -I$(FUZZ_DIR) -I$(OUTPUT) $(LDFLAGS) -o $@ \
		$(FUZZ_SRCS) $(IBA_LIB) $(LDLIBS)
