# SPDX-License-Identifier: ISC
# bearssl.mk: chooses the BearSSL that tlsgate is compiled and linked with.
#
#   BEARSSL=system  Debian's libbearssl-dev (the package builds it -Os)
#   BEARSSL=source  the same Debian source package, fetched by `make
#                   bearssl-fetch` (apt-get source; make check and make
#                   test fetch it too) and compiled here by $(CC)
#                   $(BEARSSL_OPT); a plain make never goes to the network
#   BEARSSL=/path   a BearSSL tree, as a firmware SDK has it: its
#                   build/libbearssl.a if it has one, else its src/
#                   compiled here; nothing is fetched
#
# Exports BEARSSL_CFLAGS, BEARSSL_LIBS and BEARSSL_DEP (a prerequisite of
# whatever links). Writes only under build/ and never patches the source;
# bearssl-apt-src alone touches the system (apt config, needs root).
# Its objects and probe follow the recorded toolchain (toolchain.mk: TC_ID,
# TC_USER).

BEARSSL ?= system
BEARSSL_OPT ?= -O3 -fstack-protector-strong
BEARSSL_VER = 0.6+dfsg.1-3
BEARSSL_MK := $(lastword $(MAKEFILE_LIST))
BEARSSL_GOAL := $(.DEFAULT_GOAL)
BEARSSL_TOP ?= build/bearssl
BEARSSL_SRC = $(BEARSSL_TOP)/bearssl-0.6+dfsg.1
# The caller's own CFLAGS (command line or environment, not the top
# Makefile's default) and CPPFLAGS: a firmware's -march or hardening flag
# reaches BearSSL's objects too, and its -O level comes after ours.
BEARSSL_XFLAGS ?= $(if $(filter CFLAGS,$(TC_USER)),$(CFLAGS)) $(CPPFLAGS)
BEARSSL_CC = $(CC) $(strip $(BEARSSL_OPT) $(BEARSSL_XFLAGS)) -fPIC -W -Wall \
	-ffile-prefix-map=$(CURDIR)=. -I$(BEARSSL_SRC)/inc -I$(BEARSSL_SRC)/src

ifeq ($(BEARSSL),source)
BEARSSL_CFLAGS = -I$(BEARSSL_SRC)/inc
BEARSSL_LIBS = $(BEARSSL_TOP)/libbearssl.a
BEARSSL_DEP = $(BEARSSL_TOP)/checked $(BEARSSL_LIBS)
BEARSSL_UNPACKED = $(BEARSSL_SRC)/.unpacked
else ifneq ($(filter /%,$(BEARSSL)),)
BEARSSL_SRC = $(BEARSSL)
BEARSSL_CFLAGS = -I$(BEARSSL)/inc
ifneq ($(wildcard $(BEARSSL)/build/libbearssl.a),)
BEARSSL_LIBS = $(BEARSSL)/build/libbearssl.a
BEARSSL_DEP = $(BEARSSL_TOP)/checked
else
BEARSSL_LIBS = $(BEARSSL_TOP)/libbearssl.a
BEARSSL_DEP = $(BEARSSL_TOP)/checked $(BEARSSL_LIBS)
endif
else
BEARSSL_CFLAGS =
BEARSSL_LIBS = -lbearssl
BEARSSL_DEP = $(BEARSSL_TOP)/checked
endif

# The object list exists only once the source is unpacked: a sub-make
# computes it then, and compiles in parallel under the caller's -j.
BEARSSL_OBJ = $(patsubst $(BEARSSL_SRC)/%.c,$(BEARSSL_TOP)/obj/%.o, \
	$(wildcard $(BEARSSL_SRC)/src/*.c $(BEARSSL_SRC)/src/*/*.c))

$(BEARSSL_TOP)/libbearssl.a: $(BEARSSL_UNPACKED) $(BEARSSL_TOP)/flags
	@cat $(BEARSSL_TOP)/flags
	@$(MAKE) -s -f $(BEARSSL_MK) CC='$(CC)' TC_ID='$(TC_ID)' \
		BEARSSL_OPT='$(BEARSSL_OPT)' \
		BEARSSL_XFLAGS='$(BEARSSL_XFLAGS)' \
		BEARSSL='$(BEARSSL)' BEARSSL_TOP='$(BEARSSL_TOP)' bearssl-obj
	rm -f $@
	$(AR) rcs $@ $(BEARSSL_TOP)/obj/src/*.o $(BEARSSL_TOP)/obj/src/*/*.o

bearssl-obj: $(BEARSSL_OBJ)

$(BEARSSL_TOP)/obj/%.o: $(BEARSSL_SRC)/%.c $(BEARSSL_TOP)/flags
	@mkdir -p $(@D)
	$(BEARSSL_CC) -c -o $@ $<

# Rewritten only when their content changes: a new compiler (or the same
# name for another one) or BEARSSL_OPT rebuilds the library and probes the
# system's again, a switch between system and source relinks what depends
# on BEARSSL_DEP, and nothing else does.
BEARSSL_FLAGS = $(TC_ID): $(BEARSSL_CC)
$(BEARSSL_TOP)/flags: bearssl-force
	@mkdir -p $(@D)
	@echo '$(BEARSSL_FLAGS)' | cmp -s - $@ || echo '$(BEARSSL_FLAGS)' >$@

# tlsgate relies on BearSSL 0.6 beyond its API (docs/engine.md, "Audit
# notes"), and BearSSL has no version macro.  The system library (a
# firmware sysroot's too: no dpkg there) must compile and link
# conf/bearssl_probe.c with the compiler and flags tlsgate is built with;
# a source tree must have the LRU entry size tls.h copies.
BEARSSL_PROBE = $(CC) $(CFLAGS) $(CPPFLAGS) $(BEARSSL_CFLAGS) \
	-o $(BEARSSL_TOP)/probe $(dir $(BEARSSL_MK))bearssl_probe.c $(LDFLAGS) \
	$(BEARSSL_LIBS)
$(BEARSSL_TOP)/checked: $(BEARSSL_TOP)/choice $(BEARSSL_TOP)/flags \
    $(BEARSSL_UNPACKED)
	@if [ '$(BEARSSL)' = system ]; then \
	$(BEARSSL_PROBE) >$(BEARSSL_TOP)/probe.log 2>&1 || { \
	    cat $(BEARSSL_TOP)/probe.log >&2; echo "bearssl.mk: no BearSSL" \
	    "0.6 for $(CC) (headers and -lbearssl: $(BEARSSL_PROBE))" >&2; \
	    exit 1; }; \
	elif ! grep -qs '^#define LRU_ENTRY_LEN *100$$' \
	    $(BEARSSL_SRC)/src/ssl/ssl_lru.c; then \
	echo "bearssl.mk: $(BEARSSL_SRC) is not BearSSL 0.6" \
	    "(src/ssl/ssl_lru.c: LRU_ENTRY_LEN is not 100)" >&2; exit 1; fi
	@touch $@

$(BEARSSL_TOP)/choice: bearssl-force
	@mkdir -p $(@D)
	@echo '$(BEARSSL)' | cmp -s - $@ || echo '$(BEARSSL)' >$@

bearssl-force:

# apt verifies the archive's signed hashes; the version is pinned so every
# machine compiles the same code the system library was built from.  Only
# bearssl-fetch (and the test targets, which export BEARSSL_FETCH) go to
# the network: a sandboxed or offline build stops in one line.
BEARSSL_NONE = no BearSSL source in $(BEARSSL_TOP): run 'make \
	bearssl-fetch', or build with BEARSSL=system or BEARSSL=/path/to/bearssl-0.6
# The product's goals stop before any job starts, so that the line is the
# only one; any other goal that needs the source stops when it does.
ifeq ($(BEARSSL)$(BEARSSL_FETCH)$(wildcard $(BEARSSL_UNPACKED)),source)
ifeq ($(filter-out all install install-strip,$(MAKECMDGOALS)),)
$(error $(BEARSSL_NONE))
endif
endif
$(BEARSSL_SRC)/.unpacked:
	$(if $(BEARSSL_FETCH),,$(error $(BEARSSL_NONE)))
	@mkdir -p $(BEARSSL_TOP)
	cd $(BEARSSL_TOP) && apt-get source -qq bearssl=$(BEARSSL_VER) || { \
	if apt-cache showsrc bearssl 2>/dev/null | grep -q '^Package:'; then \
	echo "bearssl.mk: apt-get source bearssl=$(BEARSSL_VER) failed" >&2; \
	else echo "bearssl.mk: no deb-src: run 'make bearssl-apt-src' as" \
	    "root" >&2; fi; exit 1; }
	touch $@

# Idempotent. Debian 12 ships without deb-src entries: copy the entries apt
# already uses for Debian's own archive (same mirror, suites, keys) as
# deb-src, whichever format they are in, so no host is written here.
bearssl-apt-src:
	@set -e; \
	if ! apt-cache showsrc bearssl 2>/dev/null | grep -q '^Package:'; then \
	apt-get update -qq; \
	eval "$$(apt-config shell d Dir::Etc::sourceparts/d)"; \
	o=$${d}tlsgate-src; : >$$o.sources; : >$$o.list; \
	apt-get indextargets --format '$$(SOURCESENTRY)' \
	    'Identifier: Packages' 'Origin: Debian' | sort -u | \
	while IFS=: read -r f n; do \
		case $$f in \
		*.sources) awk -v n="$$n" 'BEGIN { RS = "" } \
		    /(^|\n)[^#]/ && ++i == n { k = split($$0, l, "\n"); \
		    for (j = 1; j <= k; j++) \
		        print (l[j] ~ /^Types:/ ? "Types: deb-src" : l[j]); \
		    print "" }' "$$f" >>$$o.sources ;; \
		*) sed -n "$${n}s/^deb\([[:space:]]\)/deb-src\1/p" "$$f" \
		    >>$$o.list ;; \
		esac; \
	done; \
	for x in $$o.sources $$o.list; do [ -s $$x ] || rm -f $$x; done; \
	apt-get update -qq; \
	fi; \
	apt-cache showsrc bearssl 2>/dev/null | grep -q '^Package:' || \
	{ echo "bearssl.mk: apt still has no source for bearssl" >&2; exit 1; }; \
	command -v dpkg-source >/dev/null || \
	apt-get install -y -qq --no-install-recommends dpkg-dev

bearssl-fetch: BEARSSL_FETCH = 1
bearssl-fetch: $(BEARSSL_UNPACKED)

bearssl-clean:
	rm -rf $(BEARSSL_TOP)

.PHONY: bearssl-obj bearssl-apt-src bearssl-fetch bearssl-clean

# Including this file must not change what a bare `make` builds.
.DEFAULT_GOAL := $(BEARSSL_GOAL)
