/* SPDX-License-Identifier: ISC */
/*
 * engtest.h - what test_eng12.c and test_eng13.c share: the connection
 * under test (S, the engine's side; C, the scripted client), how a test
 * starts one, and the behaviours both versions have, each a function of
 * the version (v13) that each file's table runs for its own.  Header
 * only, as unit.h: each test binary includes it once.
 */
#ifndef TLSGATE_ENGTEST_H
#define TLSGATE_ENGTEST_H

#include <stdio.h>
#include <string.h>

#include "engclient.h"
#include "tlswire.h"
#include "unit.h"

/*
 * A small output buffer: records of 512 bytes of content (512 + 85),
 * smaller than any flight here, so every one of them streams.
 */
#define SMALL_OBUF	597

static struct srv S;
static struct cli C;
/* The version the binary tests, for the behaviours both have: 1 is 1.3. */
static int v13;

/* eng_last_error() after the engine sent the fatal alert. */
#define FATAL(alert)	(BR_ERR_SEND_FATAL_ALERT + (alert))

/* A new connection to a server allowing up to vmax; sessions kept. */
static void
again(unsigned vmax, int as13)
{
	srv_init(&S, TLS12, vmax, sizeof(S.obuf));
	cli_init(&C, &S, as13);
}

/* The first connection of a test: no session from another test. */
static void
start(unsigned vmax, int as13)
{
	store_clear();
	again(vmax, as13);
}

/* The client offers this one suite. */
static void
offer(unsigned suite)
{
	C.suites[0] = suite;
	C.nsuites = 1;
}

/* The engine is closed, having sent all it had, for the reason why. */
static int
closed_with(int why)
{
	srv_drain(&S, NULL, 0);
	return eng_state(&S.e) == BR_SSL_CLOSED && eng_last_error(&S.e) == why;
}

/* Closure and a corrupted record. */

static int
close_notify_half_closes_then_ours_after_eng_close(void)
{
	static const unsigned char cn[2] = { ALERT_WARNING,
	    BR_ALERT_CLOSE_NOTIFY };
	static const char last[] = "the server's last words";

	start(TLS13, v13);
	CHECK_OK(cli_connect(&C));
	CHECK(!eng_peer_closed(&S.e));
	CHECK_OK(cli_send(&C, CT_ALERT, cn, sizeof(cn)));
	CHECK(eng_peer_closed(&S.e));
	CHECK(eng_state(&S.e) & BR_SSL_SENDAPP);
	CHECK(srv_write(&S, last, sizeof(last)) == 0);
	CHECK(cli_expect_app(&C, last, sizeof(last)));
	eng_close(&S.e);
	CHECK(cli_expect_alert(&C, ALERT_WARNING, BR_ALERT_CLOSE_NOTIFY));
	CHECK(closed_with(0));
	return 1;
}

static int
our_close_notify_first_then_theirs_closes(void)
{
	static const unsigned char cn[2] = { ALERT_WARNING,
	    BR_ALERT_CLOSE_NOTIFY };

	start(TLS13, v13);
	CHECK_OK(cli_connect(&C));
	eng_close(&S.e);
	CHECK(cli_expect_alert(&C, ALERT_WARNING, BR_ALERT_CLOSE_NOTIFY));
	CHECK(!(eng_state(&S.e) & BR_SSL_SENDAPP));
	/* What the client still sends is read and dropped. */
	CHECK_OK(cli_send(&C, CT_APPLICATION_DATA, "late", 4));
	CHECK(!(eng_state(&S.e) & BR_SSL_RECVAPP));
	CHECK_OK(cli_send(&C, CT_ALERT, cn, sizeof(cn)));
	CHECK(closed_with(0));
	return 1;
}

static int
flipped_bit_is_bad_record_mac_and_closed(void)
{
	static const char msg[] = "sixteen bytes...";
	unsigned char r[64];
	size_t n;

	start(TLS13, v13);
	CHECK_OK(cli_connect(&C));
	n = cli_seal(&C, CT_APPLICATION_DATA, msg, sizeof(msg), r, sizeof(r));
	CHECK(n > 5 + sizeof(msg));
	r[n - RP_TAG_LEN - 3] ^= 0x08;
	CHECK(cli_feed(&C, r, n) == n);
	CHECK(cli_expect_alert(&C, ALERT_FATAL, BR_ALERT_BAD_RECORD_MAC));
	/* Encrypted: not a 2-byte plaintext alert record. */
	CHECK(C.rlen > 5 + 2);
	CHECK(C.rtype == (v13 ? CT_APPLICATION_DATA : CT_ALERT));
	CHECK(closed_with(FATAL(BR_ALERT_BAD_RECORD_MAC)));
	return 1;
}

static int
their_fatal_alert_closes_without_ours(void)
{
	static const unsigned char a[2] = { ALERT_FATAL,
	    BR_ALERT_INTERNAL_ERROR };

	start(TLS13, v13);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_send(&C, CT_ALERT, a, sizeof(a)));
	CHECK(srv_drain(&S, NULL, 0) == 0);
	CHECK(closed_with(BR_ERR_RECV_FATAL_ALERT + BR_ALERT_INTERNAL_ERROR));
	CHECK(eng_alert(&S.e) == 0);
	return 1;
}

static int
app_data_before_the_client_finished_is_unexpected(void)
{
	start(TLS13, v13);
	C.fault = FAULT_APP_EARLY;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert_level == ALERT_FATAL &&
	    C.alert == BR_ALERT_UNEXPECTED_MESSAGE);
	CHECK(closed_with(FATAL(BR_ALERT_UNEXPECTED_MESSAGE)));
	return 1;
}

/* How the client's bytes come. */

static int
client_chain_of_two_passes(void)
{
	start(TLS13, v13);
	S.client_auth = 1;
	C.cert = 1;
	C.chain2 = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(app_both_ways(&C));
	return 1;
}

/* A record of 2^14 bytes, the most, read by the server in pieces. */
static int
largest_record_read_in_pieces(void)
{
	static unsigned char big[RP_PLAIN_MAX];
	unsigned char b[1000];
	size_t n, got = 0;

	start(TLS13, v13);
	CHECK_OK(cli_connect(&C));
	memset(big, 'b', sizeof(big));
	CHECK_OK(cli_send(&C, CT_APPLICATION_DATA, big, sizeof(big)));
	while ((n = srv_read(&S, b, sizeof(b))) > 0) {
		CHECK(memcmp(b, big, n) == 0);
		got += n;
	}
	CHECK(got == sizeof(big));
	CHECK(app_both_ways(&C));
	return 1;
}

static int
client_flight_in_one_byte_records(void)
{
	start(TLS13, v13);
	S.client_auth = 1;
	C.cert = 1;
	C.frag = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.cr_seen);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
records_fed_a_byte_at_a_time(void)
{
	start(TLS13, v13);
	S.client_auth = 1;
	C.cert = 1;
	C.dribble = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(app_both_ways(&C));
	return 1;
}

/* A small output buffer, max_fragment_length. */

/* RFC 6066 4: code 1 is 2^9 bytes; the RSA certificate is 785. */
static int
max_fragment_length_bounds_our_records(void)
{
	unsigned char big[512];
	size_t len;

	start(TLS13, v13);
	S.cred = CRED_RSA;
	C.mfl = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.mfl_echo == 1);
	CHECK(eng_sendapp_buf(&S.e, &len) != NULL && len == sizeof(big));
	memset(big, 'x', sizeof(big));
	CHECK(srv_write(&S, big, sizeof(big)) == 0);
	CHECK(cli_expect_app(&C, big, sizeof(big)));
	CHECK(C.rmax == sizeof(big));
	return 1;
}

static int
small_obuf_streams_the_flight(void)
{
	start(TLS13, v13);
	srv_init(&S, TLS12, TLS13, SMALL_OBUF);
	S.cred = CRED_RSA;
	S.client_auth = 1;
	C.cert = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.version == (v13 ? TLS13 : TLS12));
	CHECK(app_both_ways(&C));
	return 1;
}

/* Client certificates and Finished. */

static int
client_certificate_and_verify_pass(void)
{
	start(TLS13, v13);
	S.client_auth = 1;
	C.cert = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.cr_seen && C.cr_ca);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
bad_client_certificate_verify_is_decrypt_error(void)
{
	start(TLS13, v13);
	S.client_auth = 1;
	C.cert = 1;
	C.fault = FAULT_CV;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert == BR_ALERT_DECRYPT_ERROR);
	CHECK(closed_with(BR_ERR_BAD_SIGNATURE));
	return 1;
}

static int
wrong_client_finished_is_decrypt_error(void)
{
	start(TLS13, v13);
	C.fault = FAULT_FINISHED;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert == BR_ALERT_DECRYPT_ERROR);
	CHECK(closed_with(FATAL(BR_ALERT_DECRYPT_ERROR)));
	return 1;
}

/* The behaviours above: each file's main runs them for its version. */
static const struct unit_test eng_both[] = {
	T(close_notify_half_closes_then_ours_after_eng_close),
	T(our_close_notify_first_then_theirs_closes),
	T(flipped_bit_is_bad_record_mac_and_closed),
	T(their_fatal_alert_closes_without_ours),
	T(app_data_before_the_client_finished_is_unexpected),
	T(client_certificate_and_verify_pass),
	T(bad_client_certificate_verify_is_decrypt_error),
	T(wrong_client_finished_is_decrypt_error),
	T(client_chain_of_two_passes),
	T(largest_record_read_in_pieces),
	T(client_flight_in_one_byte_records),
	T(records_fed_a_byte_at_a_time),
	T(max_fragment_length_bounds_our_records),
	T(small_obuf_streams_the_flight),
};

/* A file's own tests, then eng_both, at version as13 (1: TLS 1.3). */
static int
eng_main(const struct unit_test *own, size_t n, int as13)
{
	v13 = as13;
	unit_tests(own, n);
	unit_tests(eng_both, sizeof(eng_both) / sizeof(eng_both[0]));
	return unit_end();
}

#endif
