#!/bin/sh
# SPDX-License-Identifier: ISC
# memcheck.sh - the integration suite with every tlsgate launched under
# valgrind memcheck.  An invalid read or write, a use of uninitialised
# memory or a definite leak makes valgrind exit 99, which fails the test
# that started it (the harness's tearDown checks the status after
# SIGTERM; test_faults.MemcheckVerdict proves that it does).
#
#   tests/memcheck.sh [--full | -k SUBSTRING...] [--bin PATH]
#
# --full: every test; -k: those tests only; neither: the subset below
# (TLS end to end, http mode, faults, refusals and start-up errors),
# which is what CI runs.  The binary is --bin, else $TLSGATE_BIN, else
# build/tlsgate (a plain build, not the ASan one).
set -eu
cd "$(dirname "$0")/.."
TLSGATE_WRAP="valgrind -q --error-exitcode=99 --leak-check=full"
TLSGATE_WRAP="$TLSGATE_WRAP --errors-for-leak-kinds=definite"
export TLSGATE_WRAP
command -v valgrind >/dev/null || {
	echo "memcheck.sh: valgrind is not installed" >&2
	exit 111
}
if [ "${1:-}" = "--full" ]; then
	shift
	exec python3 tests/run.py "$@"
fi
for a in "$@"; do
	[ "$a" = "-k" ] && exec python3 tests/run.py "$@"
done
exec python3 tests/run.py \
	-k test_clients. -k test_http_forwarding. -k test_halfclose. \
	-k test_refusals. -k test_config.BadConfig -k test_signals. \
	-k test_faults. -k test_hostile.Residue -k test_hostile.PerSource \
	-k test_proxy_in. \
	"$@"
