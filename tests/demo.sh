#!/bin/sh
# SPDX-License-Identifier: ISC
# make demo: install what is missing (as root) or say what to install,
# build, make a self-signed certificate, start the demo backend, then run
# tlsgate in the foreground on its compiled-in defaults.
set -eu
cd "$(dirname "$0")/.."
need=""
command -v cc >/dev/null 2>&1 || need="$need build-essential"
[ -e /usr/include/bearssl.h ] || need="$need libbearssl-dev"
command -v openssl >/dev/null 2>&1 || need="$need openssl"
command -v python3 >/dev/null 2>&1 || need="$need python3"
command -v curl >/dev/null 2>&1 || need="$need curl"
if [ -n "$need" ]; then
	if [ "$(id -u)" = 0 ]; then
		apt-get update -qq
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $need
	else
		echo "demo: missing packages; run as root:" >&2
		echo "  apt-get install -y$need" >&2
		exit 1
	fi
fi
# The default build compiles Debian's BearSSL source (faster handshakes);
# that needs deb-src entries, which only root can add.
if [ "$(id -u)" = 0 ]; then
	command -v dpkg-source >/dev/null 2>&1 ||
	    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dpkg-dev
	make -s bearssl-apt-src
	make -s bearssl-fetch
	make -s
elif apt-cache showsrc bearssl 2>/dev/null | grep -q '^Package:'; then
	make -s bearssl-fetch
	make -s
else
	echo "demo: no deb-src for bearssl; building against libbearssl-dev" >&2
	make -s BEARSSL=system B=build/system
	ln -sf system/tlsgate build/tlsgate
fi
mkdir -p build/demo
cd build/demo
# The compiled-in defaults name tlsgate.crt and tlsgate.key in the
# working directory, listen on 0.0.0.0:8443 and forward to 127.0.0.1:8080.
if [ ! -e tlsgate.key ]; then
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout tlsgate.key -out tlsgate.crt -days 365 \
	    -subj /CN=localhost -addext subjectAltName=DNS:localhost \
	    2>/dev/null
fi
python3 ../../tests/backend.py --port 8080 &
backend=$!
trap 'kill $backend 2>/dev/null' EXIT INT TERM
sleep 0.3
echo
echo "demo: try   curl -k https://localhost:8443/"
echo "demo: stop with Ctrl-C"
echo
../tlsgate || true
