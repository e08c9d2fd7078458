# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# IB_ASYNC_VERSION: the upstream version of the first entry of
# debian/changelog ("ib-async (0.2.0-1) ..." gives 0.2.0), the one place
# the version is written; the Debian packages (dh_dkms -V, the .pc of
# libibasync-dev) and make install (mk/install.mk, user/Makefile) read it
# from there. Included by both Makefiles, from any directory.

IB_ASYNC_TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))..)
# the epoch ("1:") and the Debian revision ("-1") are not upstream's
IB_ASYNC_VERSION := $(shell sed -n -e '1{s/^[^(]*(\([^)]*\)).*/\1/' \
	-e 's/^[0-9]*://' -e 's/-[^-]*$$//' -e p -e '}' \
	$(IB_ASYNC_TOP)/debian/changelog)
ifeq ($(IB_ASYNC_VERSION),)
$(error no version in $(IB_ASYNC_TOP)/debian/changelog)
endif
