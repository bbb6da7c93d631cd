# cross.mk: builds for the appliance targets, the memory they need, and the
# integration tests on an arm64 build under qemu-user (docs/cross.md).
#
#   make cross-arm64 cross-armhf  build/arm64/tlsgate, build/armhf/tlsgate
#   make static                   build/static/tlsgate, linked -static-pie
#   make small                    build/small/tlsgate on conf/small
#   make size                     text/data/bss of each binary built so far,
#                                 and the worst case of each one's profile
#   make check-cross              the integration tests on build/arm64/tlsgate
#                                 (CROSS_ARCH=armhf: on build/armhf/tlsgate)
#   make check-cross-smoke        the same, test_clients only
#   make check-profiles           conf/small defines what conf/defaults.h does
#
# Included by the top Makefile after B, CONF, CC, PY and BEARSSL are set.
# Each build is a sub-make of the top Makefile with its own B, so objects of
# one target or profile never mix with another's.  Writes only under build/.

CROSS_GOAL	:= $(.DEFAULT_GOAL)

CROSS_ARCHES	= arm64 armhf
CROSS_arm64	= aarch64-linux-gnu
CROSS_armhf	= arm-linux-gnueabihf
QEMU_arm64	= qemu-aarch64-static
QEMU_armhf	= qemu-arm-static
# Without binfmt_misc, qemu is told where the target's loader and libc are:
# Debian's libc6-<arch>-cross installs them under /usr/<triplet>.
CROSS_RUN	= $(QEMU_$(1)) -L /usr/$(CROSS_$(1))
# A profile other than conf gets its own build directory suffix.
CROSS_PROFILE	= $(if $(filter conf,$(CONF:/=)),,-$(notdir $(CONF:/=)))
SIZE		?= size

$(CROSS_ARCHES:%=cross-%): cross-%:
	$(MAKE) B=build/$*$(CROSS_PROFILE) CC=$(CROSS_$*)-gcc \
	    AR=$(CROSS_$*)-ar build/$*$(CROSS_PROFILE)/tlsgate \
	    build/$*$(CROSS_PROFILE)/tlsgate-hooks

# PIE even when static, so the text stays randomised.  glibc's getpwnam and
# getgrnam may still dlopen NSS modules: a user or group missing from
# /etc/passwd or /etc/group crashes a static build (docs/cross.md).
static:
	$(MAKE) B=build/static$(CROSS_PROFILE) LDFLAGS=-static-pie \
	    build/static$(CROSS_PROFILE)/tlsgate

small:
	$(MAKE) B=build/small CONF=conf/small build/small/tlsgate

# Under qemu, deadlines stretch (harness.py: SLOW) because TLSGATE_WRAP is
# set; only tlsgate is emulated, the clients and the backend run natively.
# qemu-user refuses seccomp filters, so seccomp = on cannot be tested here.
CROSS_ARCH	?= arm64
CROSS_CHECK	= TLSGATE_WRAP='$(call CROSS_RUN,$(CROSS_ARCH))' $(PY) \
	    tests/run.py --bin build/$(CROSS_ARCH)$(CROSS_PROFILE)/tlsgate

check-cross: cross-$(CROSS_ARCH)
	$(CROSS_CHECK)

check-cross-smoke: cross-$(CROSS_ARCH)
	$(CROSS_CHECK) -k test_clients

# A profile missing a macro fails to compile only where the macro is used,
# and one with an extra macro hides a rename: both are caught here.
check-profiles:
	@mkdir -p build; for p in conf/*/defaults.h; do \
		grep -o '^#define TLSGATE_[A-Z0-9_]*' conf/defaults.h | sort \
		    >build/.profile-want; \
		grep -o '^#define TLSGATE_[A-Z0-9_]*' $$p | sort \
		    >build/.profile-have; \
		if ! cmp -s build/.profile-want build/.profile-have; then \
			echo "$$p: differs from conf/defaults.h" \
			    "(< missing, > extra):"; \
			diff build/.profile-want build/.profile-have | \
			    grep '^[<>]'; exit 1; \
		fi; echo "$$p: same macros as conf/defaults.h"; \
	done

# A throw-away key and certificate: -t loads them before printing.
build/size/probe.conf:
	@mkdir -p $(@D)
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
	    -nodes -keyout $(@D)/key.pem -out $(@D)/cert.pem -days 30 \
	    -subj /CN=localhost 2>/dev/null
	printf 'cert = %s\nkey = %s\n' $(@D)/cert.pem $(@D)/key.pem >$@

# $(1) binary, $(2) command prefix to run it.  -t on the probe config
# prints the compile-time maximum; -t again with the slots and sessions it
# names must print that total, or the two sums in main.c disagree.  bss
# beyond the worst case is static storage -t does not count (libc's too).
define size_one
	@if [ -x $(1) ]; then \
	set -e; $(SIZE) $(1) | sed 1d; \
	m=$$($(2) $(1) -t -c build/size/probe.conf | \
	    sed -n 's/^compile-time maximum = \([0-9]*\) (\([0-9]*\) slots, \([0-9]*\) redirect slots, \([0-9]*\) pending, \([0-9]*\) sessions)$$/\1 \2 \3 \4 \5/p'); \
	set -- $$m; [ $$# = 5 ] || { echo "$(1): no maximum in -t"; exit 1; }; \
	cat build/size/probe.conf >build/size/max.conf; \
	printf 'slots = %s\nredirect_slots = %s\npending = %s\nsession_cache = %s\nredirect = 127.0.0.1:8080\n' \
	    $$2 $$3 $$4 $$5 >>build/size/max.conf; \
	t=$$($(2) $(1) -t -c build/size/max.conf | \
	    sed -n 's/^total = \([0-9]*\) .*/\1/p'); \
	[ "$$t" = "$$1" ] || { echo "$(1): total $$t != maximum $$1"; exit 1; }; \
	b=$$($(SIZE) $(1) | awk 'NR == 2 { print $$3 }'); \
	echo "    worst case $$t bytes ($$2 slots, $$3 redirect slots, $$4 pending, $$5 sessions);" \
	    "bss - worst case = $$((b - t))"; \
	fi
endef

size: build/size/probe.conf
	@printf '   text\t   data\t    bss\t    dec\t    hex\tfilename\n'
	$(call size_one,$(B)/tlsgate,)
	$(call size_one,build/small/tlsgate,)
	$(call size_one,build/static/tlsgate,)
	$(call size_one,build/arm64/tlsgate,$(call CROSS_RUN,arm64))
	$(call size_one,build/armhf/tlsgate,$(call CROSS_RUN,armhf))
	$(call size_one,build/arm64-small/tlsgate,$(call CROSS_RUN,arm64))
	$(call size_one,build/armhf-small/tlsgate,$(call CROSS_RUN,armhf))

.PHONY: $(CROSS_ARCHES:%=cross-%) static small check-cross check-cross-smoke \
	check-profiles size

# Including this file must not change what a bare `make` builds.
.DEFAULT_GOAL := $(CROSS_GOAL)
