# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# The conftest step of a Kbuild, shared by ib_async's (kernel/Kbuild) and
# the test modules' (selftests/ib_async/modules/Kbuild). The including
# Kbuild sets
#   IB_ASYNC_CONFTEST        path of kernel/conftest.sh
#   IB_ASYNC_PROBES          the probe files (conftest/*.c...)
#   IB_ASYNC_PROBED_OBJS     the objects that read $(obj)/conftest.h
# and gets $(obj)/conftest.h, made before any of those objects.
quiet_cmd_conftest = CONFTEST $@
      cmd_conftest = $(CONFIG_SHELL) $(IB_ASYNC_CONFTEST) \
		     $(abspath $(objtree)) $@ $(IB_ASYNC_PROBES)

$(obj)/conftest.h: $(IB_ASYNC_CONFTEST) $(IB_ASYNC_PROBES) FORCE
	$(call if_changed,conftest)

$(addprefix $(obj)/,$(IB_ASYNC_PROBED_OBJS)): $(obj)/conftest.h
targets += conftest.h
clean-files += conftest.h
