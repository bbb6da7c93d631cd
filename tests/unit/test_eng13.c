/* SPDX-License-Identifier: ISC */
/*
 * test_eng13.c - the TLS 1.3 engine (hs13.c, rec.c) through eng.h's
 * calls, by engtest.h's scripted client: full handshakes with each suite
 * and credential, tickets, HelloRetryRequest, client certificates,
 * KeyUpdate, and the alert each refusal earns.  A test is one behaviour,
 * named after it.
 */
#include "engtest.h"
#include "ticket.h"

/* TLS 1.3: full handshakes. */

static int
handshake13(int cred, unsigned suite)
{
	start(TLS13, 1);
	S.cred = cred;
	offer(suite);
	CHECK_OK(cli_connect(&C));
	CHECK(C.version == TLS13 && C.suite == suite && !C.hrr);
	CHECK(C.group == GROUP_X25519);
	CHECK(C.scheme == (cred == CRED_EC ? SIG_ECDSA_SECP256R1_SHA256 :
	    SIG_RSA_PSS_RSAE_SHA256));
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t13_ecdsa_aes128gcm_handshake_then_app_data(void)
{
	return handshake13(CRED_EC, SUITE_AES_128_GCM_SHA256);
}

static int
t13_aes256gcm_sha384(void)
{
	return handshake13(CRED_EC, SUITE_AES_256_GCM_SHA384);
}

static int
t13_chacha20_poly1305(void)
{
	return handshake13(CRED_EC, SUITE_CHACHA20_POLY1305_SHA256);
}

static int
t13_rsa_credential_signs_with_pss(void)
{
	return handshake13(CRED_RSA, SUITE_AES_128_GCM_SHA256);
}

static int
t13_middlebox_ccs_follows_the_server_hello(void)
{
	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK(C.ccs_seen == 1);
	return 1;
}

/*
 * The extensions TLS 1.2 alone uses are skipped at 1.3 whatever they
 * hold (tlsfuzzer's test-tls13-large-number-of-extensions sends random
 * bytes in them); chosen 1.2 refuses the same hello.
 */
static int
t13_skips_malformed_tls12_only_extensions(void)
{
	start(TLS13, 1);
	C.odd12 = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.version == TLS13 && app_both_ways(&C));
	start(TLS12, 1);
	C.odd12 = 1;
	CHECK(cli_hello(&C) == BR_ALERT_DECODE_ERROR);
	CHECK(closed_with(FATAL(BR_ALERT_DECODE_ERROR)));
	return 1;
}

/* TLS 1.3: tickets. */

static int
t13_ticket_resumes_twice(void)
{
	struct cli_session t;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.on);
	t = C.got;
	for (int i = 0; i < 2; i++) {
		again(TLS13, 1);
		C.resume = t;
		CHECK_OK(cli_connect(&C));
		CHECK(C.resumed);
		CHECK(app_both_ways(&C));
	}
	return 1;
}

static int
t13_ticket_announces_the_lifetime_of_eng_ops(void)
{
	start(TLS13, 1);
	S.ops.lifetime = 0x12345;
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.on && C.ticket_lifetime == 0x12345);
	return 1;
}

static int
t13_ticket_with_a_bad_binder_is_decrypt_error(void)
{
	struct cli_session t;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	t = C.got;
	again(TLS13, 1);
	C.resume = t;
	C.fault = FAULT_BINDER;
	CHECK(cli_hello(&C) == BR_ALERT_DECRYPT_ERROR);
	CHECK(cli_expect_alert(&C, ALERT_FATAL, BR_ALERT_DECRYPT_ERROR));
	CHECK(closed_with(FATAL(BR_ALERT_DECRYPT_ERROR)));
	return 1;
}

static int
t13_ticket_of_another_hash_gets_a_full_handshake(void)
{
	struct cli_session t;

	start(TLS13, 1);
	offer(SUITE_AES_256_GCM_SHA384);
	CHECK_OK(cli_connect(&C));
	t = C.got;
	again(TLS13, 1);
	offer(SUITE_AES_128_GCM_SHA256);
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && C.suite == SUITE_AES_128_GCM_SHA256);
	CHECK(app_both_ways(&C));
	return 1;
}

/* A record of 0-RTT data the engine cannot open, n bytes of it. */
static size_t
early_record(unsigned char *r, size_t n)
{
	r[0] = CT_APPLICATION_DATA;
	r[1] = 3;
	r[2] = 3;
	r[3] = (unsigned char)(n >> 8);
	r[4] = (unsigned char)n;
	memset(r + 5, 0xa5, n);
	return 5 + n;
}

/* RFC 8446 4.2.10: early data refused is skipped, not an error. */
static int
t13_early_data_is_skipped_and_the_ticket_resumes(void)
{
	static unsigned char r[5 + 100];
	struct cli_session t;
	size_t n;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	t = C.got;
	again(TLS13, 1);
	C.resume = t;
	C.early_data = 1;
	CHECK(cli_hello(&C) == 0);
	n = early_record(r, 100);
	CHECK(cli_feed(&C, r, n) == n && cli_feed(&C, r, n) == n);
	CHECK_OK(cli_handshake(&C));
	CHECK(C.resumed);
	CHECK(app_both_ways(&C));
	return 1;
}

/* The bound on what is skipped: four records of the largest size. */
static int
t13_early_data_beyond_its_budget_is_bad_record_mac(void)
{
	static unsigned char r[5 + RP_CIPHER_MAX];
	struct cli_session t;
	size_t n = early_record(r, RP_CIPHER_MAX);

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	t = C.got;
	again(TLS13, 1);
	C.resume = t;
	C.early_data = 1;
	CHECK(cli_hello(&C) == 0);
	for (int i = 0; i < 3; i++) {
		CHECK(cli_feed(&C, r, n) == n);
		CHECK(eng_last_error(&S.e) == 0);
	}
	CHECK(cli_feed(&C, r, n) == n);
	CHECK(closed_with(FATAL(BR_ALERT_BAD_RECORD_MAC)));
	return 1;
}

static int
t13_unknown_ticket_gets_a_full_handshake(void)
{
	start(TLS13, 1);
	C.resume.on = 1;
	C.resume.suite = SUITE_AES_128_GCM_SHA256;
	memset(C.resume.id, 0x5a, sizeof(C.resume.id));
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed);
	CHECK(app_both_ways(&C));
	return 1;
}

/* A 1.3 ticket, made by a first connection. */
static int
ticket13(struct cli_session *t)
{
	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.on && C.got.ticket_len == TICKET_LEN);
	*t = C.got;
	return 1;
}

/* The ticket is the session: no store is needed to resume it. */
static int
t13_sealed_ticket_resumes_without_a_store(void)
{
	struct cli_session t;

	CHECK(ticket13(&t));
	again(TLS13, 1);
	S.ops.load = NULL;
	S.ops.save = NULL;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	CHECK(C.got.on && memcmp(C.got.ticket, t.ticket, TICKET_LEN) != 0);
	CHECK(app_both_ways(&C));
	return 1;
}

/* Tickets off: 32-byte identities of the session store, as before. */
static int
t13_without_seal_the_store_keeps_tickets(void)
{
	struct cli_session t;

	start(TLS13, 1);
	S.ops.seal = NULL;
	S.ops.open = NULL;
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.on && C.got.ticket_len == 32);
	t = C.got;
	again(TLS13, 1);
	S.ops.seal = NULL;
	S.ops.open = NULL;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	return 1;
}

/* A ticket that does not open: a full handshake, never an alert. */
static int
full_with(const struct cli_session *t)
{
	again(TLS13, 1);
	C.resume = *t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed);
	CHECK(eng_alert(&S.e) == 0);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t13_tampered_or_truncated_ticket_gets_a_full_handshake(void)
{
	static const size_t at[] = { 0, 15, 16, 27, 28, 60, TICKET_LEN - 16,
	    TICKET_LEN - 1 };
	struct cli_session t, bad;

	CHECK(ticket13(&t));
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		bad = t;
		bad.ticket[at[i]] ^= 0x40;
		CHECK(full_with(&bad));
	}
	bad = t;
	bad.ticket_len--;
	CHECK(full_with(&bad));
	bad = t;
	bad.ticket[bad.ticket_len++] = 0;
	CHECK(full_with(&bad));
	/* The untouched ticket still resumes. */
	again(TLS13, 1);
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	return 1;
}

/* Lifetime from the creation time sealed in it (ops->lifetime: 7200). */
static int
t13_expired_ticket_gets_a_full_handshake(void)
{
	struct cli_session t;

	CHECK(ticket13(&t));
	again(TLS13, 1);
	S.now += 7199;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	again(TLS13, 1);
	S.now += 7200;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && eng_alert(&S.e) == 0);
	return 1;
}

/* Another service or server name: the context it was sealed for. */
static int
t13_ticket_of_another_service_gets_a_full_handshake(void)
{
	struct cli_session t;

	CHECK(ticket13(&t));
	again(TLS13, 1);
	S.svc = "other";
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && eng_alert(&S.e) == 0);
	return 1;
}

/* A TLS 1.2 ticket offered as a 1.3 PSK: not opened, so no binder fails. */
static int
t13_ticket_of_tls12_gets_a_full_handshake(void)
{
	struct cli_session t;

	start(TLS12, 0);
	C.tickets = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.nst12 && C.got.ticket_len == TICKET_LEN);
	t = C.got;
	t.suite = SUITE_AES_128_GCM_SHA256;
	CHECK(full_with(&t));
	return 1;
}

/* Keys rotate each hour here (ticket.c): the previous key still opens. */
static int
t13_ticket_of_the_previous_key_resumes(void)
{
	struct cli_session t;

	CHECK(ticket13(&t));
	again(TLS13, 1);
	S.now += 3600;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	/* Its new ticket is under the new key. */
	CHECK(memcmp(C.got.ticket, t.ticket, TICKET_NAME_LEN) != 0);
	/* Another store's keys (a restart): a full handshake. */
	store_clear();
	CHECK(full_with(&t));
	return 1;
}

/* TLS 1.3: HelloRetryRequest. */

static int
t13_hrr_when_the_only_share_is_for_a_group_not_taken(void)
{
	static const unsigned short x25519[] = { GROUP_X25519 };

	start(TLS13, 1);
	S.groups = x25519;
	S.ngroups = 1;
	C.shares[0] = GROUP_SECP256R1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.hrr && C.hrr_group == GROUP_X25519);
	CHECK(C.group == GROUP_X25519);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t13_hrr_for_a_p384_share(void)
{
	start(TLS13, 1);
	C.groups[0] = GROUP_SECP384R1;
	C.groups[1] = GROUP_X25519;
	C.shares[0] = GROUP_SECP384R1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.hrr && C.group == GROUP_X25519);
	CHECK(app_both_ways(&C));
	return 1;
}

#ifndef TLSGATE_NO_MLKEM
/*
 * The hybrids, with a client that decapsulates (mlkem_ref.c): each
 * completes when the client sent its share; a hybrid listed without a
 * share gets no HelloRetryRequest unless the service asks for one.
 */
static const unsigned short hybrids[] = { GROUP_X25519MLKEM768,
    GROUP_SECP256R1MLKEM768, GROUP_SECP384R1MLKEM1024 };

static int
t13_each_hybrid_with_its_share_completes(void)
{
	for (size_t i = 0; i < sizeof(hybrids) / sizeof(hybrids[0]); i++) {
		const unsigned short ours[] = { hybrids[i], GROUP_X25519 };

		start(TLS13, 1);
		S.groups = ours;
		S.ngroups = 2;
		C.groups[0] = hybrids[i];
		C.groups[1] = GROUP_X25519;
		C.shares[0] = hybrids[i];
		CHECK_OK(cli_connect(&C));
		CHECK(!C.hrr && C.group == hybrids[i]);
		CHECK(app_both_ways(&C));
	}
	return 1;
}

static int
t13_hybrid_without_its_share_is_asked_for_only_with_hybrid_retry(void)
{
	for (size_t i = 0; i < 2 * sizeof(hybrids) / sizeof(hybrids[0]);
	    i++) {
		const unsigned short ours[] = { hybrids[i / 2], GROUP_X25519 };

		start(TLS13, 1);
		S.groups = ours;
		S.ngroups = 2;
		S.hybrid_retry = (int)(i % 2);
		C.groups[0] = hybrids[i / 2];
		C.groups[1] = GROUP_X25519;
		C.shares[0] = GROUP_X25519;
		CHECK_OK(cli_connect(&C));
		if (i % 2 == 0)
			CHECK(!C.hrr && C.group == GROUP_X25519);
		else
			CHECK(C.hrr && C.hrr_group == hybrids[i / 2] &&
			    C.group == hybrids[i / 2]);
		CHECK(app_both_ways(&C));
	}
	return 1;
}
#endif

/* RFC 8446 5.1: any handshake message may span records, this one too. */
static int
t13_second_hello_over_several_records_is_taken(void)
{
	static const unsigned short x25519[] = { GROUP_X25519 };

	start(TLS13, 1);
	S.groups = x25519;
	S.ngroups = 1;
	C.shares[0] = GROUP_SECP256R1;
	C.frag = 100;
	CHECK_OK(cli_connect(&C));
	CHECK(C.hrr);
	CHECK(app_both_ways(&C));
	return 1;
}

/*
 * A second hello longer than obuf: joined in obuf, then in ibuf before
 * the record being read, in one record or many, and read whole in the
 * scratch buffer; without one, obuf's length is its limit.
 */
/* Room for the ServerHello and the CCS after it, not for the hello. */
#define OBUF2	165

static int
t13_second_hello_longer_than_obuf_is_taken(void)
{
	static const unsigned short x25519[] = { GROUP_X25519 };
	static const size_t frags[] = { 0, 60, 1 };
	unsigned char m[1024];
	size_t i;

	for (i = 0; i < 2 * sizeof(frags) / sizeof(frags[0]); i++) {
		start(TLS13, 1);
		srv_init(&S, TLS12, TLS13, OBUF2);
		S.groups = x25519;
		S.ngroups = 1;
		C.shares[0] = GROUP_SECP256R1;
		C.frag = frags[i / 2];
		/* The second hello, with its X25519 share, is the longer. */
		C.shares[0] = GROUP_X25519;
		CHECK(cli_hello_msg(&C, m, sizeof(m)) > OBUF2);
		C.shares[0] = GROUP_SECP256R1;
		if (i % 2 == 1) {
			S.ops.scratch = NULL;
			CHECK(cli_connect(&C) != 0);
			CHECK(closed_with(FATAL(BR_ALERT_HANDSHAKE_FAILURE)));
			continue;
		}
		CHECK_OK(cli_connect(&C));
		CHECK(C.hrr && C.group == GROUP_X25519);
		CHECK(app_both_ways(&C));
	}
	return 1;
}

/* RFC 8446 4.2.11.2: after HRR the binder covers it and the first hello. */
static int
t13_ticket_resumes_after_hrr(void)
{
	static const unsigned short x25519[] = { GROUP_X25519 };
	struct cli_session t;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	t = C.got;
	again(TLS13, 1);
	S.groups = x25519;
	S.ngroups = 1;
	C.shares[0] = GROUP_SECP256R1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.hrr && C.resumed);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t13_p256_share_is_taken_without_hrr(void)
{
	start(TLS13, 1);
	C.shares[0] = GROUP_SECP256R1;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.hrr && C.group == GROUP_SECP256R1);
	CHECK(app_both_ways(&C));
	return 1;
}

/* TLS 1.3: client certificates. */

static int
t13_empty_client_certificate_is_certificate_required(void)
{
	start(TLS13, 1);
	S.client_auth = 1;
	C.cert = 1;
	C.fault = FAULT_EMPTY_CERT;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert_level == ALERT_FATAL &&
	    C.alert == ALERT_CERTIFICATE_REQUIRED);
	CHECK(closed_with(BR_ERR_NO_CLIENT_AUTH));
	return 1;
}

/* TLS 1.3: KeyUpdate. */

static int
t13_key_update_requested_is_answered_and_both_ways_work(void)
{
	const unsigned char *m;
	size_t n;
	int t;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_key_update(&C, 1));
	CHECK_OK(cli_next(&C, &t, &m, &n));
	CHECK(t == CT_HANDSHAKE && n == 5 && m[0] == HT_KEY_UPDATE &&
	    m[4] == 0);
	cli_next_read_key(&C);
	CHECK(app_both_ways(&C));
	CHECK(app_both_ways(&C));
	return 1;
}

/* RFC 8446 5.1: a KeyUpdate ends its record; keys change after it. */
static int
t13_two_key_updates_in_one_record_is_unexpected(void)
{
	static const unsigned char ku[10] = {
		HT_KEY_UPDATE, 0, 0, 1, 0, HT_KEY_UPDATE, 0, 0, 1, 0,
	};

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_send(&C, CT_HANDSHAKE, ku, sizeof(ku)));
	CHECK(cli_expect_alert(&C, ALERT_FATAL, BR_ALERT_UNEXPECTED_MESSAGE));
	CHECK(closed_with(FATAL(BR_ALERT_UNEXPECTED_MESSAGE)));
	return 1;
}

/* Data written before the request goes out under the old keys, first. */
static int
t13_pending_app_data_goes_before_the_key_update_answer(void)
{
	const unsigned char *m;
	unsigned char *b;
	size_t n;
	int t;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK((b = eng_sendapp_buf(&S.e, &n)) != NULL && n >= 7);
	memcpy(b, "pending", 7);
	eng_sendapp_ack(&S.e, 7);
	CHECK_OK(cli_key_update(&C, 1));
	eng_flush(&S.e);
	CHECK(cli_expect_app(&C, "pending", 7));
	CHECK_OK(cli_next(&C, &t, &m, &n));
	CHECK(t == CT_HANDSHAKE && m[0] == HT_KEY_UPDATE);
	cli_next_read_key(&C);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t13_key_update_not_requested_is_not_answered(void)
{
	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_key_update(&C, 0));
	/* The server's next record is the application data, old keys. */
	CHECK(app_both_ways(&C));
	return 1;
}

/* RFC 8446 6.2: any alert but close_notify, user_canceled ends it. */
static int
t13_warning_alert_from_the_client_ends_the_connection(void)
{
	static const unsigned char a[2] = { ALERT_WARNING,
	    BR_ALERT_NO_RENEGOTIATION };

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_send(&C, CT_ALERT, a, sizeof(a)));
	CHECK(closed_with(BR_ERR_RECV_FATAL_ALERT +
	    BR_ALERT_NO_RENEGOTIATION));
	CHECK(eng_alert(&S.e) == 0);
	return 1;
}

/* What both versions do (engtest.h), in TLS 1.3. */

int
main(void)
{
	static const struct unit_test tests[] = {
		T(t13_ecdsa_aes128gcm_handshake_then_app_data),
		T(t13_aes256gcm_sha384),
		T(t13_chacha20_poly1305),
		T(t13_rsa_credential_signs_with_pss),
		T(t13_middlebox_ccs_follows_the_server_hello),
		T(t13_skips_malformed_tls12_only_extensions),
		T(t13_ticket_resumes_twice),
		T(t13_ticket_announces_the_lifetime_of_eng_ops),
		T(t13_ticket_with_a_bad_binder_is_decrypt_error),
		T(t13_unknown_ticket_gets_a_full_handshake),
		T(t13_sealed_ticket_resumes_without_a_store),
		T(t13_without_seal_the_store_keeps_tickets),
		T(t13_tampered_or_truncated_ticket_gets_a_full_handshake),
		T(t13_expired_ticket_gets_a_full_handshake),
		T(t13_ticket_of_another_service_gets_a_full_handshake),
		T(t13_ticket_of_tls12_gets_a_full_handshake),
		T(t13_ticket_of_the_previous_key_resumes),
		T(t13_ticket_of_another_hash_gets_a_full_handshake),
		T(t13_early_data_is_skipped_and_the_ticket_resumes),
		T(t13_early_data_beyond_its_budget_is_bad_record_mac),
		T(t13_hrr_when_the_only_share_is_for_a_group_not_taken),
		T(t13_hrr_for_a_p384_share),
		T(t13_ticket_resumes_after_hrr),
		T(t13_second_hello_over_several_records_is_taken),
		T(t13_second_hello_longer_than_obuf_is_taken),
		T(t13_p256_share_is_taken_without_hrr),
#ifndef TLSGATE_NO_MLKEM
		T(t13_each_hybrid_with_its_share_completes),
		T(t13_hybrid_without_its_share_is_asked_for_only_with_hybrid_retry),
#endif
		T(t13_empty_client_certificate_is_certificate_required),
		T(t13_key_update_requested_is_answered_and_both_ways_work),
		T(t13_key_update_not_requested_is_not_answered),
		T(t13_two_key_updates_in_one_record_is_unexpected),
		T(t13_pending_app_data_goes_before_the_key_update_answer),
		T(t13_warning_alert_from_the_client_ends_the_connection),
	};

	return eng_main(tests, sizeof(tests) / sizeof(tests[0]), 1);
}
