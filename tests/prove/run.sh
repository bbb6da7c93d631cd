#!/bin/sh
# SPDX-License-Identifier: ISC
# make prove: each harness of tests/prove/ through Frama-C's Eva, which
# must report no alarm and leave no property unproven.  Prints
# "harness: N alarms, M unproven properties (T s)" and exits 1 if a
# harness has either.
#
#	sh tests/prove/run.sh [harness...]	(default: all, two at a time)
#	sh tests/prove/run.sh --selftest	a broken bound must be caught
#
# PROVE_CPPFLAGS: where bearssl.h is (make prove passes it).
# Each harness is one line below: its name (tests/prove/<name>.c), the
# sources it analyses (- for none: the harness includes its source), and
# Eva's precision options for it.
set -u
cd "$(dirname "$0")/../.." || exit 2
OUT=${PROVE_OUT:-build/prove}
mkdir -p "$OUT"

harnesses() {
	cat <<'LIST'
proxyin	src/proxyin.c	-eva-precision 3 -eva-domains octagon
httpchunk	src/httpchunk.c	-eva-precision 3
der	src/der.c	-eva-precision 3 -eva-split-return full
ticket	src/ticket.c tests/prove/bearssl.c	-eva-precision 3 -eva-domains octagon
config	src/confkeys.c src/tlswire.c src/log.c	-eva-precision 3 -eva-split-return full
http	src/http.c src/httpchunk.c	-eva-precision 3
certname	src/certname.c src/der.c	-eva-precision 3 -eva-split-return full
hello	src/hello.c src/tlswire.c	-eva-precision 3
frame	src/rec.c src/hs.c src/tlswire.c	-c11 -eva-precision 3 -eva-split-limit 2000
LIST
}

# $1 name, $2 sources (space separated), $3 options, $4 the log.
# Passes with no alarm, every property reached proven, and no warning
# of Eva's own (an imprecise call, a degenerated analysis).
prove() {
	start=$(date +%s)
	# shellcheck disable=SC2086
	frama-c -machdep gcc_x86_64 \
	    -cpp-extra-args="-Isrc -Iport -Iconf -D_POSIX_C_SOURCE=200809L \
	    -include tests/prove/fc.h ${PROVE_CPPFLAGS:-}" \
	    "tests/prove/$1.c" ${2#-} -eva -eva-no-show-progress \
	    -eva-msg-key=-final-states,-initial-state $3 >"$4" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	sed -n '/ANALYSIS SUMMARY/,$p' "$4" >"$4.sum"
	alarms=$(sed -n 's/^ *\([0-9][0-9]*\) alarms\{0,1\} generated.*/\1/p' \
	    "$4.sum")
	unproven=$(awk '/Assertions|Preconditions|Postconditions/ \
	    { n += $4 + $6 } END { print n + 0 }' "$4.sum")
	echo "$1: ${alarms:-?} alarms, $unproven unproven properties" \
	    "($secs s)"
	[ $rc = 0 ] && [ "${alarms:-?}" = 0 ] && [ "$unproven" = 0 ] &&
	    grep -q 'No errors or warnings raised' "$4.sum"
}

# The self-test: proxyin.c with room for a ninth IPv6 group in an
# eight-group array must be caught.
selftest() {
	mkdir -p "$OUT/selftest/src"
	sed 's/j - i > 4 || nw == 8)/j - i > 4 || nw == 9)/' \
	    src/proxyin.c >"$OUT/selftest/src/proxyin.c"
	if cmp -s src/proxyin.c "$OUT/selftest/src/proxyin.c"; then
		echo "selftest: the bound to break is gone from proxyin.c"
		return 1
	fi
	if prove proxyin "$OUT/selftest/src/proxyin.c" \
	    "$(harnesses | awk -F'\t' '$1 == "proxyin" { print $3 }')" \
	    "$OUT/selftest.log"; then
		echo "selftest: FAILED, a broken bound went unnoticed"
		return 1
	fi
	echo "selftest: ok, the broken bound was caught"
}

if [ "${1:-}" = --selftest ]; then
	selftest
	exit
fi
# All of them: PROVE_JOBS (2) at a time, each its own run of this script.
if [ $# = 0 ]; then
	harnesses | cut -f1 | xargs -P "${PROVE_JOBS:-2}" -n 1 sh "$0" ||
	    exit 1
	exit 0
fi
fail=0
harnesses | while IFS='	' read -r name srcs opts; do
	if [ $# -gt 0 ]; then
		case " $* " in *" $name "*) ;; *) continue ;; esac
	fi
	prove "$name" "$srcs" "$opts" "$OUT/$name.log" || {
		echo "$name: see $OUT/$name.log"
		exit 1
	}
done || fail=1
exit $fail
