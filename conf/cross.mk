# SPDX-License-Identifier: ISC
# cross.mk: builds for the appliance targets, the memory they need, and the
# tests on each under qemu-user (docs/cross.md).
#
#   make cross-arm64 cross-armhf  build/arm64/tlsgate, build/armhf/tlsgate
#   make static                   build/static/tlsgate, linked -static-pie
#   make small                    build/small/tlsgate on conf/small
#   make size                     every target in both profiles, and a table
#                                 of their stripped size, bss and worst case
#                                 (build/size/table.md)
#   make size-docs                puts that table in README.md, docs/cross.md
#   make check-size               fails when their tables, or docs/cross.md's
#                                 sentence on -t's maximum and the bss, drift
#   make cross-mips cross-mipsel  32-bit MIPS, big- and little-endian
#   make musl                     build/musl/tlsgate, static on musl
#   make unit-ARCH, unit-musl     the unit tests on a target (under qemu)
#   make check-target-ARCH        one target's build, unit tests and share of
#                                 the integration suite; check-target-musl
#   make check-matrix             all of them, each timed (make check)
#   make check-cross              the integration tests on build/arm64/tlsgate
#                                 (CROSS_ARCH=mips: on build/mips/tlsgate)
#   make check-cross-smoke        the same, test_clients only
#   make check-profiles           conf/small defines what conf/defaults.h does
#
# Included by the top Makefile after B, CONF, CC, PY and BEARSSL are set.
# Each build is a sub-make of the top Makefile with its own B, so objects of
# one target or profile never mix with another's.  Writes only under build/.

CROSS_GOAL	:= $(.DEFAULT_GOAL)

# Most routers and access points are 32-bit MIPS, big-endian (ath79) or
# little-endian (ramips); arm64 and armhf the rest.
CROSS_ARCHES	= arm64 armhf mips mipsel
CROSS_arm64	= aarch64-linux-gnu
CROSS_armhf	= arm-linux-gnueabihf
CROSS_mips	= mips-linux-gnu
CROSS_mipsel	= mipsel-linux-gnu
QEMU_arm64	= qemu-aarch64-static
QEMU_armhf	= qemu-arm-static
QEMU_mips	= qemu-mips-static
QEMU_mipsel	= qemu-mipsel-static
# Without binfmt_misc, qemu is told where the target's loader and libc are:
# Debian's libc6-<arch>-cross installs them under /usr/<triplet>.
CROSS_RUN	= $(QEMU_$(1)) -L /usr/$(CROSS_$(1))
# A profile other than conf gets its own build directory suffix.
CROSS_PROFILE	= $(if $(filter conf,$(CONF:/=)),,-$(notdir $(CONF:/=)))

$(CROSS_ARCHES:%=cross-%): cross-%:
	$(MAKE) B=build/$*$(CROSS_PROFILE) CC=$(CROSS_$*)-gcc \
	    AR=$(CROSS_$*)-ar BEARSSL_TOP=build/$*/bearssl \
	    build/$*$(CROSS_PROFILE)/tlsgate build/$*$(CROSS_PROFILE)/slowturn.so

# PIE even when static, so the text stays randomised.  glibc's getpwnam and
# getgrnam may still dlopen NSS modules: a user or group missing from
# /etc/passwd or /etc/group crashes a static build (docs/cross.md).
static:
	$(MAKE) B=build/static$(CROSS_PROFILE) LDFLAGS=-static-pie \
	    build/static$(CROSS_PROFILE)/tlsgate

small:
	$(MAKE) B=build/small CONF=conf/small BEARSSL_TOP=$(B)/bearssl \
	    build/small/tlsgate

# Static on musl, as OpenWrt and Alpine link (Debian's musl-tools): no NSS,
# so a static getpwnam reads /etc/passwd itself.  Debian's musl-gcc sees
# no kernel headers (a firmware's musl toolchain has them): the seccomp
# filter's come from the host's, as Alpine's linux-headers would.
MUSL_CC		?= musl-gcc
MUSL_KINC	= build/musl-kernel-headers
MUSL_FLAGS	= CC=$(MUSL_CC) LDFLAGS=-static CPPFLAGS='-isystem $(MUSL_KINC)'
$(MUSL_KINC):
	mkdir -p $@
	ln -sfn /usr/include/linux $@/linux
	ln -sfn /usr/include/asm-generic $@/asm-generic
	ln -sfn /usr/include/$$(gcc -print-multiarch)/asm $@/asm

musl: $(MUSL_KINC)
	$(MAKE) $(MUSL_FLAGS) B=build/musl$(CROSS_PROFILE) \
	    BEARSSL_TOP=build/musl/bearssl build/musl$(CROSS_PROFILE)/tlsgate

# The unit tests built for a target and run under its qemu (musl: natively,
# static); the engine's handshakes and the ECDSA signatures byte for byte
# included, and OpenSSL checks the signatures the target made.
# qemu-user has no robust futex list (set_robust_list), so test_workers'
# killed lock holder would wedge its waiter for ever: it runs natively and
# on musl only.
CROSS_UNITS	= $(filter-out test_workers,$(UNIT_PLAIN))
$(CROSS_ARCHES:%=unit-%): unit-%:
	$(MAKE) B=build/$* CC=$(CROSS_$*)-gcc AR=$(CROSS_$*)-ar \
	    $(CROSS_UNITS:%=build/$*/unit/%)
	$(call unit_run,$(call CROSS_RUN,$*),$(CROSS_UNITS:%=build/$*/unit/%))

unit-musl: $(MUSL_KINC)
	$(MAKE) $(MUSL_FLAGS) B=build/musl $(UNIT_PLAIN:%=build/musl/unit/%)
	$(call unit_run,,$(UNIT_PLAIN:%=build/musl/unit/%))

# Under qemu, deadlines stretch (harness.py: SLOW) because TLSGATE_WRAP is
# set; only tlsgate is emulated, the clients and the backend run natively.
# qemu-user refuses seccomp filters, so seccomp = on cannot be tested here.
CROSS_ARCH	?= arm64
CROSS_CHECK	= TLSGATE_WRAP='$(call CROSS_RUN,$(CROSS_ARCH))' $(PY) \
	    tests/run.py --bin build/$(CROSS_ARCH)$(CROSS_PROFILE)/tlsgate

# The whole integration suite on one target (a few minutes under qemu).
check-cross: cross-$(CROSS_ARCH)
	$(CROSS_CHECK)

check-cross-smoke: cross-$(CROSS_ARCH)
	$(CROSS_CHECK) -k test_clients

# make check's CPU matrix: on each target its unit tests (the engine, the
# records, X.509, the DER writer, ECDSA byte for byte) and a share of the
# integration suite with real clients: each runs the core (real clients of
# both versions, resumption, the binary PROXY v2 header it writes), and the
# rest of the suite is spread over the emulated targets, so that they
# together run what byte order and word size can change.  The native runs
# have the whole suite; the musl build takes what a static musl binary
# changes (getpwnam without NSS, the workers' robust lock, -t's sums).
# docs/cross.md has what each costs.
CHECK_TARGETS	= arm64 armhf mips mipsel musl
CHECK_CORE	= test_clients test_resumption test_proxy_protocol
# MIPS has no seccomp filter: SeccompChoice checks -t and start agree.
CHECK_MORE_mips	= test_proxy_in test_tls13 test_certgen test_pq test_manual \
	test_privileges.SeccompChoice
CHECK_MORE_mipsel = test_client_auth test_sni_alpn test_stats_syslog \
	test_tickets test_rsa_sizes
CHECK_MORE_armhf = test_policy test_alerts test_redirect test_refusals \
	test_hostile test_turns
CHECK_MORE_arm64 = test_reload test_signals test_slot_reuse test_slots \
	test_services test_backend test_logging test_halfclose test_balancer
CHECK_MORE_musl	= test_config test_privileges test_workers \
	test_http_framing
CHECK_K		= $(foreach t,$(CHECK_CORE) $(CHECK_MORE_$(1)),-k $(t).)

# One after the other: the build and the unit tests share one BearSSL.
$(CROSS_ARCHES:%=check-target-%): check-target-%:
	$(MAKE) cross-$*
	$(MAKE) unit-$*
	TLSGATE_WRAP='$(call CROSS_RUN,$*)' $(PY) tests/run.py \
	    --bin build/$*/tlsgate $(call CHECK_K,$*)

check-target-musl:
	$(MAKE) musl
	$(MAKE) unit-musl
	$(PY) tests/run.py --bin build/musl/tlsgate $(call CHECK_K,musl)

# Each target in turn, timed.
check-matrix:
	@for t in $(CHECK_TARGETS); do s=$$(date +%s); \
		$(MAKE) check-target-$$t || exit 1; \
		echo "check-target-$$t: $$(($$(date +%s) - s)) s"; done

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

# Every target in both profiles, built one after the other (a profile
# shares its target's BearSSL), then conf/footprint.py's table.
SIZE_ROW	= '$(1):$(2):$(3):$(4):$(5)'
size: build/size/probe.conf
	$(MAKE) all
	$(MAKE) small
	for t in $(CROSS_ARCHES); do $(MAKE) cross-$$t && \
	    $(MAKE) CONF=conf/small cross-$$t || exit 1; done
	$(MAKE) musl
	$(MAKE) CONF=conf/small musl
	@$(PY) conf/footprint.py build/size/probe.conf \
	    $(call SIZE_ROW,x86-64,default,$(B)/tlsgate,strip,) \
	    $(call SIZE_ROW,x86-64,conf/small,build/small/tlsgate,strip,) \
	    $(foreach a,$(CROSS_ARCHES),\
	    $(call SIZE_ROW,$(a),default,build/$(a)/tlsgate,$(CROSS_$(a))-strip,$(call CROSS_RUN,$(a))) \
	    $(call SIZE_ROW,$(a),conf/small,build/$(a)-small/tlsgate,$(CROSS_$(a))-strip,$(call CROSS_RUN,$(a)))) \
	    $(call SIZE_ROW,x86-64 musl static,default,build/musl/tlsgate,strip,) \
	    $(call SIZE_ROW,x86-64 musl static,conf/small,build/musl-small/tlsgate,strip,) \
	    >build/size/table.md.tmp
	@mv build/size/table.md.tmp build/size/table.md
	@cat build/size/table.md

SIZE_DOCS	= README.md docs/cross.md
size-docs: size
	$(PY) conf/footprint.py --write build/size/table.md $(B)/tlsgate \
	    $(SIZE_DOCS)

check-size: size
	$(PY) conf/footprint.py --check build/size/table.md $(B)/tlsgate \
	    $(SIZE_DOCS)

.PHONY: $(CROSS_ARCHES:%=cross-%) $(CROSS_ARCHES:%=unit-%) \
	$(CROSS_ARCHES:%=check-target-%) static small musl unit-musl \
	check-target-musl check-matrix check-cross check-cross-smoke \
	check-profiles size size-docs check-size

# Including this file must not change what a bare `make` builds.
.DEFAULT_GOAL := $(CROSS_GOAL)
