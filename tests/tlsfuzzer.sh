#!/bin/sh
# SPDX-License-Identifier: ISC
# Run tlsfuzzer's scripts against a tlsgate build, by hand.
#
#   sh tests/tlsfuzzer.sh TLSFUZZER_DIR TLSLITE_DIR [BIN [ec|rsa [SCRIPT...]]]
#
# tlsfuzzer and tlslite-ng are not Debian packages: bring your own
# checkouts; nothing in `make check` depends on this.  Runs Debian's
# python3 (with python3-ecdsa).  tlsgate runs in http mode in front of
# tests/backend.py on loopback; TLSMIN=1.3 sets tls_min (scripts that
# offer only CBC suites do not apply), MODE=tcp uses an echo backend
# (test-lengths wants one), TLSMAX=1.3 runs the
# TLS 1.3 scripts by default, CLIENT=ec or CLIENT=rsa gives the service a
# client_ca and the scripts a client certificate (-k, -c) of that type and
# runs the client-certificate scripts by default.  Prints one line per
# script: passed/total and the failed probes; the full outputs stay in the
# printed directory.
set -u
[ $# -ge 2 ] || { sed -n '2,15p' "$0"; exit 100; }
tf=$1 tl=$2 bin=${3:-build/tlsgate} cert=${4:-ec}
shift $(($# < 4 ? $# : 4))
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d "${TMPDIR:-/tmp}/tlsgate-tlsfuzzer-XXXXXX")
py=/usr/bin/python3
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

if [ "$cert" = ec ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$out/key.pem" -out "$out/cert.pem" -subj /CN=localhost \
	    -days 2 2>/dev/null
	suite=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
else
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$out/key.pem" \
	    -out "$out/cert.pem" -subj /CN=localhost -days 2 2>/dev/null
	suite=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256
fi
ckey=
if [ -n "${CLIENT:-}" ]; then
	[ "$CLIENT" = ec ] && ck="-newkey ec -pkeyopt ec_paramgen_curve:P-256" ||
	    ck="-newkey rsa:2048"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$out/ca.key" -out "$out/ca.pem" -subj /CN=ca -days 2 \
	    2>/dev/null
	# shellcheck disable=SC2086
	openssl req $ck -nodes -keyout "$out/ckey.pem" -out "$out/c.csr" \
	    -subj /CN=client 2>/dev/null
	openssl x509 -req -in "$out/c.csr" -CA "$out/ca.pem" -CAkey \
	    "$out/ca.key" -set_serial 2 -days 2 -out "$out/ccert.pem" 2>/dev/null
	ckey="-k $out/ckey.pem -c $out/ccert.pem"
fi
mode=${MODE:-http}
bmode=http
[ "$mode" = tcp ] && bmode=echo
bp=$(port) gp=$(port)
python3 "$root/tests/backend.py" --port "$bp" --mode "$bmode" >/dev/null 2>&1 &
bpid=$!
{
	echo "listen = 127.0.0.1:$gp"
	echo "backend = 127.0.0.1:$bp"
	echo "mode = $mode"
	echo "cert = $out/cert.pem"
	echo "key = $out/key.pem"
	echo "slots = 16"
	echo "log_rate = 0"
	[ -n "${TLSMIN:-}" ] && echo "tls_min = $TLSMIN"
	[ -n "${TLSMAX:-}" ] && echo "tls_max = $TLSMAX"
	[ -n "$ckey" ] && echo "client_ca = $out/ca.pem"
} >"$out/gate.conf"
"$bin" -c "$out/gate.conf" 2>"$out/gate.log" &
gpid=$!
trap 'kill $gpid $bpid 2>/dev/null' EXIT
sleep 1

[ $# -gt 0 ] || [ -z "$ckey" ] || set -- tls13-certificate-verify \
    tls13-certificate-request tls13-ecdsa-in-certificate-verify \
    certificate-verify certificate-request certificate-verify-malformed \
    certificate-malformed rsa-sigs-on-certificate-verify
# The TLS 1.3 scripts that apply (no PSK, 0-RTT, client certificates,
# FFDHE, brainpool, EdDSA, ML-DSA, ML-KEM or certificate compression).
[ $# -gt 0 ] || [ "${TLSMAX:-}" != 1.3 ] || set -- tls13-conversation \
    tls13-version-negotiation tls13-legacy-version tls13-serverhello-random \
    tls13-hrr tls13-keyshare-omitted tls13-crfg-curves tls13-ecdhe-curves \
    tls13-unrecognised-groups tls13-no-unknown-groups tls13-symetric-ciphers \
    tls13-invalid-ciphers tls13-nociphers tls13-signature-algorithms \
    tls13-rsapss-signatures tls13-rsa-signatures tls13-pkcs-signature \
    tls13-ecdsa-support tls13-finished tls13-finished-plaintext tls13-ccs \
    tls13-multiple-ccs-messages tls13-record-padding tls13-zero-content-type \
    tls13-zero-length-data tls13-record-layer-limits tls13-lengths \
    tls13-keyupdate tls13-keyupdate-from-server tls13-0rtt-garbage \
    tls13-unencrypted-alert tls13-empty-alert tls13-connection-abort \
    tls13-large-number-of-extensions tls13-shuffled-extentions \
    tls13-dhe-shared-secret-padding tls13-obsolete-curves \
    downgrade-protection fallback-scsv
# The TLS 1.2 ECDHE/AEAD scripts, and those that probe hello parsing.
[ $# -gt 0 ] || set -- conversation aes-gcm-nonces chacha20 \
    fuzzed-ciphertext invalid-content-type record-layer-fragmentation \
    large-hello extensions empty-extensions ecdhe-rsa-key-exchange \
    ecdhe-padded-shared-secret ecdhe-rsa-key-exchange-with-bad-messages \
    ecdsa-sig-flexibility alpn-negotiation serverhello-random \
    invalid-version invalid-client-hello \
    invalid-client-hello-w-record-overflow message-skipping ccs \
    early-application-data openssl-3712 client-hello-max-size \
    renegotiation-disabled sig-algs signature-algorithms \
    downgrade-protection fallback-scsv heartbeat no-heartbeat \
    hello-request-by-client zero-length-data sessionID-resumption \
    resumption-with-wrong-ciphers truncating-of-finished \
    truncating-of-client-hello unsupported-curve-fallback x25519 \
    invalid-session-id invalid-compression-methods invalid-cipher-suites \
    version-numbers lengths large-number-of-extensions connection-abort \
    ssl-death-alert message-duplication interleaved-CKE-with-CCS \
    invalid-server-name-extension point-extension \
    extended-master-secret-extension encrypt-then-mac sslv2hello-protocol \
    client-compatibility atypical-padding
crsigs="ecdsa_secp256r1_sha256 ecdsa_secp384r1_sha384 ecdsa_secp521r1_sha512"
crsigs="$crsigs rsa_pss_rsae_sha256 rsa_pss_rsae_sha384 rsa_pss_rsae_sha512"
# One run of script $s with options $1; true if it got to its summary.
try() {
	args=$1
	# eval: args may quote a list.
	eval "PYTHONPATH=\"\$tf:\$tl\" timeout 600 \$py \"\$tf/scripts/test-\$s.py\" \
	    -h 127.0.0.1 -p \"\$gp\" $args \$ckey" >"$f" 2>&1
	grep -q '^TOTAL:' "$f"
}
for s in "$@"; do
	f="$out/$s.out"
	# The widest options a script takes: ECDHE and our suite, else less;
	# a TLS 1.3 script gets none (its -C would name a 1.2 suite).
	case $s in
	tls13-version-negotiation) try "-d -C $suite" ;;
	# A server that has TLS 1.3 and nothing below 1.2.
	fallback-scsv) try "-d --tls-1.3 --min-support TLSv1.2" ;;
	# Our order, not the client's, picks the suite.
	resumption-with-wrong-ciphers) try "-d --swap-ciphers" ;;
	# What a CertificateRequest of ours lists.
	tls13-certificate-*|tls13-ecdsa-in-certificate-verify) try "-s '$crsigs'" ;;
	# Our 1.2 suite for its 1.2 probes; PSK with (EC)DHE is all we take.
	tls13-session-resumption) try "-d --tls1.2-cipher $suite \
	    --server-preferred-pke psk_dhe_ke" ;;
	# One NewSessionTicket after each handshake.
	tls13-count-tickets) try "-t 1" ;;
	tls13-*) try "" ;;
	*) try "-d -C $suite" || try "-C $suite" || try "-d" || try "" ;;
	esac
	printf '%-45s %-4s %9s  [%s] %s\n' "$s" "$cert" \
	    "$(awk '/^PASS:/ {p=$2} /^TOTAL:/ {t=$2} END {print p "/" t}' "$f")" \
	    "$args" "$(sed -n '/^FAILED:/,$p' "$f" | sed 1d | tr -d '\t' |
	    tr '\n' ';' | cut -c1-200)"
done
kill -0 $gpid 2>/dev/null || echo "tlsgate DIED: see $out/gate.log"
echo "outputs: $out"
