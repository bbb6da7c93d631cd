#!/bin/sh
# SPDX-License-Identifier: ISC
# ctcheck.sh - make ctcheck's runs (docs/assurance.md, "Constant time").
#
#   tests/ct/ctcheck.sh DIR
#
# Runs DIR's test_eng12, test_eng13 and ctdrive, built with ct.h's marks
# on, under valgrind's memcheck, two at a time: any report (a branch or
# an address that depends on a secret) fails.  Then the self-test: DIR's
# ctleak, the same driver with one deliberate branch on a secret, must
# be reported at that branch, or the check is shown unable to fail.
# CTCHECK_VG adds valgrind options (--track-origins=yes says where an
# undefined value was marked).
set -eu
cd "$(dirname "$0")/../.."
dir=$1
command -v valgrind >/dev/null || {
	echo "ctcheck: valgrind is not installed" >&2
	exit 111
}
VG="valgrind -q --error-exitcode=99 --suppressions=tests/ct/bearssl.supp"
VG="$VG --num-callers=30 ${CTCHECK_VG:-}"
export VG

# $0: a binary of DIR, and its argument; its log beside it.
one='b=$0; a=${1:-}; log=$b${a:+-$a}.log;
	$VG $b $a >$log 2>&1; echo $? >$log.rc'
printf '%s\n' "$dir/test_eng12" "$dir/test_eng13" "$dir/ctdrive" \
	"$dir/ctleak leak" | xargs -P 2 -L 1 sh -c "$one"

fail=0
for t in test_eng12 test_eng13 ctdrive; do
	rc=$(cat "$dir/$t.log.rc")
	echo "ctcheck: $t: exit $rc, $(grep -c 'depends on uninit\|Use of uninit' \
	    "$dir/$t.log" || true) reports, $(grep -c '^ok' "$dir/$t.log" ||
	    true) tests passed"
	if [ "$rc" != 0 ]; then
		grep -v '^ok' "$dir/$t.log" | head -60
		fail=1
	fi
done
rc=$(cat "$dir/ctleak-leak.log.rc")
if [ "$rc" = 99 ] && grep -q 'deliberate_leak (ctdrive.c:' \
    "$dir/ctleak-leak.log"; then
	echo "ctcheck: self-test: the deliberate branch on a secret is" \
	    "reported: $(grep -m1 -o 'deliberate_leak (ctdrive.c:[0-9]*)' \
	    "$dir/ctleak-leak.log")"
else
	echo "ctcheck: self-test FAILED: the deliberate branch on a secret" \
	    "was not reported (exit $rc)"
	cat "$dir/ctleak-leak.log"
	fail=1
fi
exit $fail
