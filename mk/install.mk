# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# make install [DESTDIR=...] [PREFIX=/usr/local]: what a host needs to run
# ib_async, without the Debian packages:
#   $(PREFIX)/src/ib_async-VERSION/  the module's source with its dkms.conf
#                                    (DKMS builds it: see README.md)
#   user/Makefile's install          libibasync.so.1 and its link,
#                                    libibasync.pc, the uAPI and shim headers,
#                                    ib_async_watch, the man pages
#   $(UDEVRULESDIR)/60-ib-async.rules the nodes' owner and mode
#   $(DOCDIR)/examples/modules-load.d/ib_async.conf  an example, not active
# make uninstall [DESTDIR=...] [PREFIX=...]: removes exactly those files,
# and the directories only they were in. scripts/install-test.sh tests both.
#
# VERSION is debian/changelog's upstream one (mk/version.mk); the module's
# files are those debian/ib-async-dkms.install lists, its dkms.conf is
# debian/ib-async-dkms.dkms with that version: one list, one dkms.conf,
# for the package and for make install.

include $(CURDIR)/mk/version.mk

PREFIX ?= /usr/local
DKMS_SRCDIR ?= $(PREFIX)/src/ib_async-$(IB_ASYNC_VERSION)
# udev reads /usr/lib/udev/rules.d and /usr/local/lib/udev/rules.d (and
# /lib/udev/rules.d where /usr is not merged)
UDEVRULESDIR ?= $(PREFIX)/lib/udev/rules.d
DOCDIR ?= $(PREFIX)/share/doc/ib-async

# A relative DESTDIR is relative to where make was invoked, as in user/.
ifneq ($(DESTDIR),)
ifeq ($(filter /%,$(DESTDIR)),)
override DESTDIR := $(CURDIR)/$(DESTDIR)
endif
endif

# "SOURCE-GLOB DEST-DIR" lines of debian/ib-async-dkms.install, DEST-DIR
# relative to the module's source directory
dkms_list = sed -e '/^\#/d' -e '/^[[:space:]]*$$/d' \
	-e 's|$${env:IB_ASYNC_DKMS_SRC}/*||' debian/ib-async-dkms.install

INSTALL_MODULES_LOAD := $(DOCDIR)/examples/modules-load.d/ib_async.conf
USER_INSTALL_VARS = PREFIX=$(PREFIX) $(if $(DESTDIR),DESTDIR=$(DESTDIR))

.PHONY: install uninstall install-dkms-src uninstall-dkms-src

install: install-dkms-src
	$(MAKE) -C user install $(USER_INSTALL_VARS)
	install -D -m 0644 dist/60-ib-async.rules \
		$(DESTDIR)$(UDEVRULESDIR)/60-ib-async.rules
	install -D -m 0644 dist/modules-load.d/ib_async.conf \
		$(DESTDIR)$(INSTALL_MODULES_LOAD)

# Each file of the list where it says, executable ones (conftest.sh, which
# Kbuild runs) executable; a glob that matches nothing fails.
install-dkms-src:
	$(dkms_list) | while read -r src dst; do \
		for f in $$src; do \
			m=0644; [ ! -x "$$f" ] || m=0755; \
			install -D -m $$m "$$f" \
				"$(DESTDIR)$(DKMS_SRCDIR)/$$dst$${f##*/}" || exit 1; \
		done; \
	done
	sed 's/#MODULE_VERSION#/$(IB_ASYNC_VERSION)/' debian/ib-async-dkms.dkms \
		>$(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	chmod 0644 $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf

uninstall: uninstall-dkms-src
	$(MAKE) -C user uninstall $(USER_INSTALL_VARS)
	rm -f $(DESTDIR)$(UDEVRULESDIR)/60-ib-async.rules \
		$(DESTDIR)$(INSTALL_MODULES_LOAD)
	# DOCDIR is ours; what holds it (share/doc) is not
	for d in $(DOCDIR)/examples/modules-load.d $(DOCDIR)/examples $(DOCDIR); do \
		[ ! -d $(DESTDIR)$$d ] || rmdir --ignore-fail-on-non-empty $(DESTDIR)$$d; \
	done

# The source directory is ours alone: its files, then its directories
# once empty (a file someone added keeps it).
uninstall-dkms-src:
	$(dkms_list) | while read -r src dst; do \
		for f in $$src; do \
			rm -f "$(DESTDIR)$(DKMS_SRCDIR)/$$dst$${f##*/}"; \
		done; \
	done
	rm -f $(DESTDIR)$(DKMS_SRCDIR)/dkms.conf
	[ ! -d $(DESTDIR)$(DKMS_SRCDIR) ] || \
		find $(DESTDIR)$(DKMS_SRCDIR) -depth -type d -empty -delete
