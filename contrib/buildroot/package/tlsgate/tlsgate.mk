################################################################################
#
# tlsgate
#
################################################################################

# SPDX-License-Identifier: ISC

# The tlsgate tree this external tree lives in; a release would set
# TLSGATE_SITE to its tarball instead.
TLSGATE_VERSION = local
TLSGATE_SITE = $(BR2_EXTERNAL_TLSGATE_PATH)/../..
TLSGATE_SITE_METHOD = local
TLSGATE_LICENSE = ISC
TLSGATE_LICENSE_FILES = LICENSE
TLSGATE_DEPENDENCIES = bearssl
# The local method rsyncs the tree: a build/ of the developer's (host
# objects, its toolchain record) must not come along.
TLSGATE_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = --exclude=/build --exclude=/.git

# Buildroot's bearssl package put 0.6's headers and library in staging:
# BEARSSL=system finds them through the toolchain's sysroot and checks
# them with a compile-and-link probe.  It is linked in statically
# (-l:libbearssl.a), as the README promises.  With BR2_SHARED_LIBS,
# Buildroot's default, that package builds libbearssl.so alone and the
# link fails: ask it for the archive too (its build recipe expands
# BEARSSL_TARGETS when it runs, after this file is read; target-finalize
# drops the .a from the target).  TARGET_CONFIGURE_OPTS passes CC,
# AR, STRIP, CFLAGS, CPPFLAGS and LDFLAGS on the command line, on install
# too, so that nothing is rebuilt with other flags.
ifeq ($(BR2_PACKAGE_TLSGATE)$(filter lib,$(BEARSSL_TARGETS)),y)
BEARSSL_TARGETS += lib
endif

TLSGATE_MAKE_OPTS = \
	$(TARGET_CONFIGURE_OPTS) \
	BEARSSL=system \
	BEARSSL_LIBS=-l:libbearssl.a \
	PREFIX=/usr \
	INIT=none \
	SYSTEMDUNITDIR=

define TLSGATE_BUILD_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(TLSGATE_MAKE_OPTS) all
endef

# It starts as root to bind and read its key, then runs as tlsgate.
define TLSGATE_INSTALL_TARGET_CMDS
	$(TARGET_MAKE_ENV) $(MAKE) -C $(@D) $(TLSGATE_MAKE_OPTS) \
		DESTDIR=$(TARGET_DIR) install
	$(SED) 's/^#user = nobody$$/user = tlsgate/' \
		-e 's/^#group = nogroup$$/group = tlsgate/' \
		-e 's/^cert_generate = off$$/cert_generate = on/' \
		$(TARGET_DIR)/etc/tlsgate/tlsgate.conf
endef

define TLSGATE_USERS
	tlsgate -1 tlsgate -1 * - - - tlsgate TLS terminator
endef

define TLSGATE_INSTALL_INIT_SYSV
	$(INSTALL) -D -m 0755 $(TLSGATE_PKGDIR)/S50tlsgate \
		$(TARGET_DIR)/etc/init.d/S50tlsgate
endef

define TLSGATE_INSTALL_INIT_SYSTEMD
	$(INSTALL) -D -m 0644 $(@D)/conf/tlsgate.service \
		$(TARGET_DIR)/usr/lib/systemd/system/tlsgate.service
endef

$(eval $(generic-package))
