# SPDX-License-Identifier: ISC
SUMMARY = "Small TLS 1.2/1.3 terminator for an appliance's web UI or API"
DESCRIPTION = "tlsgate accepts TLS 1.2 and 1.3 and forwards plaintext to a \
local service, in a fixed amount of memory, on BearSSL 0.6."
SECTION = "net"
# tlsgate is ISC; BearSSL, compiled into it, MIT.
LICENSE = "ISC & MIT"
LIC_FILES_CHKSUM = "file://LICENSE;md5=387fb2ff968913b628fe4bc5aabbd8de \
    file://../bearssl-0.6/LICENSE.txt;md5=1fc37e1037ae673975fbcb96a98f7191"

# The release tarball of `make dist`; the copy of this recipe make dist
# writes beside it (build/dist/yocto/) has its sha256.  Set
# TLSGATE_RELEASES to where it is published, or put it in DL_DIR.
TLSGATE_RELEASES ??= "file://${TOPDIR}/downloads"
SRC_URI = "${TLSGATE_RELEASES}/tlsgate-${PV}.tar.gz;name=tlsgate \
    https://bearssl.org/bearssl-0.6.tar.gz;name=bearssl"
SRC_URI[tlsgate.sha256sum] = ""
SRC_URI[bearssl.sha256sum] = "6705bba1714961b41a728dfc5debbe348d2966c117649392f8c8139efc83ff14"

S = "${WORKDIR}/tlsgate-${PV}"
B = "${WORKDIR}/build"

inherit useradd systemd update-rc.d

# Out of the tree: make -C S B=B writes nothing in S.  BearSSL's tarball
# is compiled into tlsgate (static, at -O3, with the recipe's CC and
# flags, which the environment passes).
EXTRA_OEMAKE = "-C ${S} B=${B} BEARSSL=${WORKDIR}/bearssl-0.6 \
    PREFIX=${prefix} SYSCONFDIR=${sysconfdir} INIT=sysv \
    SYSTEMDUNITDIR=${systemd_system_unitdir}"

do_compile() {
	oe_runmake
}

# A key and certificate made on the device at first start; it runs as
# the recipe's user after binding.
do_install() {
	oe_runmake install DESTDIR=${D}
	sed -i -e 's/^cert_generate = off$/cert_generate = on/' \
		-e 's/^#user = nobody$/user = tlsgate/' \
		-e 's/^#group = nogroup$/group = tlsgate/' \
		${D}${sysconfdir}/tlsgate/tlsgate.conf
}

USERADD_PACKAGES = "${PN}"
USERADD_PARAM:${PN} = "--system --no-create-home --home-dir /nonexistent \
    --shell /bin/false --user-group tlsgate"

SYSTEMD_SERVICE:${PN} = "tlsgate.service"
INITSCRIPT_NAME = "tlsgate"
INITSCRIPT_PARAMS = "defaults 50"

CONFFILES:${PN} = "${sysconfdir}/tlsgate/tlsgate.conf"
FILES:${PN} += "${datadir}/licenses/tlsgate"
