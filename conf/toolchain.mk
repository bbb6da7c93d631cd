# SPDX-License-Identifier: ISC
# toolchain.mk: a build directory keeps the toolchain it was first built
# with, as ./configure does.  `make CC=mips-linux-gnu-gcc` then `make
# install` installs the MIPS build instead of rebuilding it with cc.
#
# $(B)/toolchain.mk records the CC, AR, STRIP, CFLAGS, CPPFLAGS, LDFLAGS
# and BEARSSL given on the command line or in the environment, and the
# compiler's target and version.  Not PQ, which the Makefile exports, so
# every sub-make would take it for the caller's; not CONF, which the
# cross and profile targets pass to a make that builds in another $(B).  A later make in the same $(B) takes the recorded
# value of whatever it is not given.  The file is rewritten only when its
# content changes, and every object and link depends on it: a new value,
# or another compiler behind the same name (a tree copied with its build/),
# rebuilds all of tlsgate; BearSSL's flags file (bearssl.mk) holds the same
# compiler identity.  `make clean` forgets the toolchain.
#
# Included by the top Makefile after B and the defaults of CC and CFLAGS.
# Sets TC_FILE (a prerequisite of every object) and TC_USER (the variables
# the caller chose, whose values BearSSL takes too).

TOOLCHAIN_GOAL	:= $(.DEFAULT_GOAL)

TC_VARS		= CC AR STRIP CFLAGS CPPFLAGS LDFLAGS BEARSSL
TC_FILE		= $(B)/toolchain.mk
-include $(TC_FILE)

tc_given	= $(filter command environment override,$(firstword $(origin $(1))))
tc_saved	= $(filter-out undefined,$(origin TC_SAVED_$(1)))
TC_USER		:= $(foreach v,$(TC_VARS),$(if $(or $(call tc_given,$(v)),\
	$(call tc_saved,$(v))),$(v)))

# What the caller does not give comes from the record.
ifeq ($(call tc_given,CC),)
ifneq ($(call tc_saved,CC),)
CC		:= $(TC_SAVED_CC)
endif
endif
ifeq ($(call tc_given,AR),)
ifneq ($(call tc_saved,AR),)
AR		:= $(TC_SAVED_AR)
endif
endif
ifeq ($(call tc_given,STRIP),)
ifneq ($(call tc_saved,STRIP),)
STRIP		:= $(TC_SAVED_STRIP)
endif
endif
ifeq ($(call tc_given,CFLAGS),)
ifneq ($(call tc_saved,CFLAGS),)
CFLAGS		:= $(TC_SAVED_CFLAGS)
endif
endif
ifeq ($(call tc_given,CPPFLAGS),)
ifneq ($(call tc_saved,CPPFLAGS),)
CPPFLAGS	:= $(TC_SAVED_CPPFLAGS)
endif
endif
ifeq ($(call tc_given,LDFLAGS),)
ifneq ($(call tc_saved,LDFLAGS),)
LDFLAGS		:= $(TC_SAVED_LDFLAGS)
endif
endif
ifeq ($(call tc_given,BEARSSL),)
ifneq ($(call tc_saved,BEARSSL),)
BEARSSL		:= $(TC_SAVED_BEARSSL)
endif
endif

# The compiler's identity: the same name may be another compiler on the
# machine a tree was copied to.
TC_ID		:= $(shell $(CC) -dumpmachine 2>&1; $(CC) --version 2>&1 | sed 1q)

define tc_nl


endef
TC_LINES	= \# The toolchain of $(B) (conf/toolchain.mk); make clean forgets it.$(tc_nl)$(strip \
	)TC_ID = $(subst $$,$$$$,$(TC_ID))$(tc_nl)$(foreach v,$(TC_USER),$(strip \
	)TC_SAVED_$(v) = $(subst $$,$$$$,$($(v)))$(tc_nl))
# foreach joins with a space, which would start every line after the first.
TC_NOW		= $(subst $(tc_nl) ,$(tc_nl),$(TC_LINES))

# Remade (and make restarts) only when the content differs.
$(TC_FILE): tc-force
	@$(shell mkdir -p $(@D))$(file >$@.new,$(TC_NOW))
	@cmp -s $@.new $@ || mv $@.new $@; rm -f $@.new

tc-force:

.PHONY: tc-force

# Including this file must not change what a bare `make` builds.
.DEFAULT_GOAL := $(TOOLCHAIN_GOAL)
