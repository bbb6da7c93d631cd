# SPDX-License-Identifier: ISC
# install.mk: make install / uninstall, as firmware build systems call them
# (Buildroot, OpenWrt, Yocto: DESTDIR=<staging> install).
#
#   make install        the binary, the manuals, tlsgate.conf (only where
#                       none exists), the init script INIT names, the
#                       systemd unit, and the licenses: tlsgate's (ISC) and,
#                       when BearSSL is compiled in from a source tree,
#                       BearSSL's (MIT); a system libbearssl's package
#                       ships its own
#   make install-strip  the same, the binary stripped by $(STRIP)
#   make uninstall      removes what install put there; tlsgate.conf only
#                       while it is still the installed example
#   make check-install  the three firmware build systems' invocations
#   make dist           $(B)/tlsgate-$(VERSION).tar.gz, the release tarball
#                       the recipes fetch, its sha256, and in $(B)/dist/
#                       the OpenWrt and Yocto recipes that name it
#
# INIT selects what becomes $(INITDIR)/tlsgate: sysv (BusyBox or
# sysvinit, conf/tlsgate.init), procd (OpenWrt, conf/tlsgate.procd), or
# none.  An empty SYSTEMDUNITDIR leaves the unit out.  The scripts and the
# example config name the installed paths of the binary and the config.
#
# Included by the top Makefile after B is set.

INSTALL_GOAL	:= $(.DEFAULT_GOAL)

PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
# /usr installs configure the system's /etc, as distributions do.
SYSCONFDIR	?= $(if $(filter /usr,$(PREFIX:/=)),/etc,$(PREFIX)/etc)
DATADIR		?= $(PREFIX)/share
MANDIR		?= $(DATADIR)/man
INITDIR		?= $(SYSCONFDIR)/init.d
SYSTEMDUNITDIR	?= $(if $(filter /usr,$(PREFIX:/=)),/usr/lib,$(PREFIX)/lib)/systemd/system
CONFDIR		= $(SYSCONFDIR)/tlsgate
LICENSEDIR	?= $(DATADIR)/licenses/tlsgate
BEARSSL_LICENSE	= $(if $(filter-out system,$(BEARSSL)),$(BEARSSL_SRC)/LICENSE.txt)
INIT		?= sysv
INSTALL		?= install
STRIP		?= strip

INIT_SRC_sysv	= conf/tlsgate.init
INIT_SRC_procd	= conf/tlsgate.procd
INIT_SRC	= $(INIT_SRC_$(INIT))
ifeq ($(INIT_SRC)$(filter none,$(INIT)),)
$(error install.mk: INIT=$(INIT): choose sysv, procd or none)
endif

# The paths the files name, rewritten to the installed ones.
INSTALL_SED	= -e 's|/usr/sbin/tlsgate|$(SBINDIR)/tlsgate|g' \
	-e 's|/etc/tlsgate|$(CONFDIR)|g' \
	-e 's|^cert = tlsgate.crt$$|cert = $(CONFDIR)/tlsgate.crt|' \
	-e 's|^key = tlsgate.key$$|key = $(CONFDIR)/tlsgate.key|'

$(B)/install/tlsgate.conf $(B)/install/init $(B)/install/tlsgate.service: \
    install-force
	@mkdir -p $(@D)
	@sed $(INSTALL_SED) $(INSTALL_FROM_$(@F)) >$@.tmp
	@mv $@.tmp $@
INSTALL_FROM_tlsgate.conf	= conf/tlsgate.conf
INSTALL_FROM_init		= $(INIT_SRC)
INSTALL_FROM_tlsgate.service	= conf/tlsgate.service

INSTALL_GEN = $(B)/install/tlsgate.conf $(if $(INIT_SRC),$(B)/install/init) \
	$(if $(SYSTEMDUNITDIR),$(B)/install/tlsgate.service)

install: all $(INSTALL_GEN)
	$(INSTALL) -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(CONFDIR) \
	    $(DESTDIR)$(MANDIR)/man5 $(DESTDIR)$(MANDIR)/man8 \
	    $(DESTDIR)$(LICENSEDIR)
	$(INSTALL) -m 0644 LICENSE $(DESTDIR)$(LICENSEDIR)/LICENSE
	$(if $(BEARSSL_LICENSE),$(INSTALL) -m 0644 $(BEARSSL_LICENSE) \
	    $(DESTDIR)$(LICENSEDIR)/LICENSE.bearssl)
	$(INSTALL) -m 0755 $(B)/tlsgate $(DESTDIR)$(SBINDIR)/tlsgate
	$(if $(INSTALL_STRIP),$(STRIP) $(DESTDIR)$(SBINDIR)/tlsgate)
	$(INSTALL) -m 0644 man/tlsgate.8 $(DESTDIR)$(MANDIR)/man8/tlsgate.8
	$(INSTALL) -m 0644 man/tlsgate.conf.5 \
	    $(DESTDIR)$(MANDIR)/man5/tlsgate.conf.5
	@if [ -e $(DESTDIR)$(CONFDIR)/tlsgate.conf ]; then \
	    echo "install: keeping $(DESTDIR)$(CONFDIR)/tlsgate.conf"; else \
	    echo "$(INSTALL) -m 0644 $(B)/install/tlsgate.conf" \
	        "$(DESTDIR)$(CONFDIR)/tlsgate.conf"; \
	    $(INSTALL) -m 0644 $(B)/install/tlsgate.conf \
	        $(DESTDIR)$(CONFDIR)/tlsgate.conf; fi
ifneq ($(INIT_SRC),)
	$(INSTALL) -d $(DESTDIR)$(INITDIR)
	$(INSTALL) -m 0755 $(B)/install/init $(DESTDIR)$(INITDIR)/tlsgate
endif
ifneq ($(SYSTEMDUNITDIR),)
	$(INSTALL) -d $(DESTDIR)$(SYSTEMDUNITDIR)
	$(INSTALL) -m 0644 $(B)/install/tlsgate.service \
	    $(DESTDIR)$(SYSTEMDUNITDIR)/tlsgate.service
endif

install-strip:
	$(MAKE) INSTALL_STRIP=1 install

# Directories go only when empty: they may hold the admin's keys.
uninstall: $(B)/install/tlsgate.conf
	rm -f $(DESTDIR)$(SBINDIR)/tlsgate \
	    $(DESTDIR)$(MANDIR)/man8/tlsgate.8 \
	    $(DESTDIR)$(MANDIR)/man5/tlsgate.conf.5 \
	    $(DESTDIR)$(LICENSEDIR)/LICENSE \
	    $(DESTDIR)$(LICENSEDIR)/LICENSE.bearssl
	rmdir $(DESTDIR)$(LICENSEDIR) 2>/dev/null || true
	$(if $(INIT_SRC),rm -f $(DESTDIR)$(INITDIR)/tlsgate)
	$(if $(SYSTEMDUNITDIR),rm -f $(DESTDIR)$(SYSTEMDUNITDIR)/tlsgate.service)
	@if cmp -s $(B)/install/tlsgate.conf \
	    $(DESTDIR)$(CONFDIR)/tlsgate.conf; then \
	    echo "rm -f $(DESTDIR)$(CONFDIR)/tlsgate.conf"; \
	    rm -f $(DESTDIR)$(CONFDIR)/tlsgate.conf; \
	elif [ -e $(DESTDIR)$(CONFDIR)/tlsgate.conf ]; then \
	    echo "uninstall: keeping the edited" \
	        "$(DESTDIR)$(CONFDIR)/tlsgate.conf"; fi
	rmdir $(DESTDIR)$(CONFDIR) 2>/dev/null || true

install-force:

# Reproducible: the files git tracks, sorted, owned by root, all stamped
# with SOURCE_DATE_EPOCH or else the last commit's time, gzip without a
# name or a date.  The same commit gives the same bytes, hence one hash
# for the recipes' PKG_HASH.
VERSION		= 0.1
DIST		= tlsgate-$(VERSION)
DIST_EPOCH	= $(or $(SOURCE_DATE_EPOCH),$(shell git log -1 --format=%ct))
dist:
	@git ls-files >/dev/null || { echo "make dist: not a git checkout" >&2; \
	    exit 1; }
	@mkdir -p $(B)
	git ls-files -z | LC_ALL=C tar --null -T - --sort=name \
	    --transform 's,^,$(DIST)/,' --mtime=@$(DIST_EPOCH) \
	    --owner=0 --group=0 --numeric-owner --mode=go-w,a+rX \
	    --format=gnu -cf - | gzip -9n >$(B)/$(DIST).tar.gz
	@cd $(B) && sha256sum $(DIST).tar.gz
	@rm -rf $(B)/dist && mkdir -p $(B)/dist && \
	cp -R contrib/openwrt contrib/yocto $(B)/dist/ && \
	h=$$(sha256sum <$(B)/$(DIST).tar.gz | cut -d' ' -f1) && \
	sed -i "s/^PKG_HASH:=.*/PKG_HASH:=$$h/" \
	    $(B)/dist/openwrt/tlsgate/Makefile && \
	sed -i "s/^SRC_URI\[tlsgate.sha256sum\] = .*/SRC_URI[tlsgate.sha256sum] = \"$$h\"/" \
	    $(B)/dist/yocto/recipes-connectivity/tlsgate/tlsgate_$(VERSION).bb
	@echo "$(B)/dist/: the OpenWrt and Yocto recipes with that sha256"

# make and make install as Buildroot, OpenWrt and Yocto call them (the
# recipes' own variables and commands), with MIPS cross compilers, from a
# tree that holds a native build/; each installed tree served under qemu,
# and started, reloaded and stopped by its init script (tests/install.py).
# It copies BearSSL's source from the default build's tree.
check-install: all
	$(PY) tests/install.py

.PHONY: install install-strip uninstall install-force check-install dist

# Including this file must not change what a bare `make` builds.
.DEFAULT_GOAL := $(INSTALL_GOAL)
