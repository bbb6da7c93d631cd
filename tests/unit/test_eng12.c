/* SPDX-License-Identifier: ISC */
/*
 * test_eng12.c - the TLS 1.2 engine (hs12.c, rec.c) through eng.h's
 * calls, by engtest.h's scripted client: full handshakes with each suite
 * and credential, the downgrade sentinel, the extended master secret,
 * resumption by session ID, client certificates, renegotiation refused,
 * and the alert each refusal earns.  A test is one behaviour, named
 * after it.
 */
#include "engtest.h"
#include "ticket.h"

/* TLS 1.2: full handshakes. */

static int
handshake12(int cred, unsigned suite)
{
	start(TLS13, 0);
	S.cred = cred;
	offer(suite);
	CHECK_OK(cli_connect(&C));
	CHECK(C.version == TLS12 && C.suite == suite);
	CHECK(C.scheme == (cred == CRED_EC ? ECDSA_SHA256 : RSA_PSS_SHA256));
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_ecdsa_aes128gcm_handshake_then_app_data(void)
{
	return handshake12(CRED_EC, ECDSA_AES128);
}

static int
t12_ecdsa_aes256gcm_with_the_sha384_prf(void)
{
	if (!handshake12(CRED_EC, ECDSA_AES256))
		return 0;
	CHECK(C.dig == &br_sha384_vtable);
	return 1;
}

static int
t12_ecdsa_chacha20_poly1305(void)
{
	return handshake12(CRED_EC, ECDSA_CHACHA);
}

static int
t12_rsa_aes128gcm_signs_with_pss(void)
{
	return handshake12(CRED_RSA, RSA_AES128);
}

static int
t12_rsa_aes256gcm_with_the_sha384_prf(void)
{
	if (!handshake12(CRED_RSA, RSA_AES256))
		return 0;
	CHECK(C.dig == &br_sha384_vtable);
	return 1;
}

static int
t12_rsa_chacha20_poly1305(void)
{
	return handshake12(CRED_RSA, RSA_CHACHA);
}

static int
t12_rsa_signs_pkcs1_for_a_client_without_pss(void)
{
	start(TLS13, 0);
	S.cred = CRED_RSA;
	C.sigalgs[0] = RSA_PKCS1_SHA256;
	C.nsigalgs = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.scheme == RSA_PKCS1_SHA256);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_ems_is_answered_when_offered(void)
{
	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK(C.ems_echo);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_without_ems_the_master_secret_is_the_classic_one(void)
{
	start(TLS13, 0);
	C.ems = 0;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.ems_echo);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_p256_key_exchange(void)
{
	start(TLS13, 0);
	C.groups[0] = GROUP_SECP256R1;
	C.ngroups = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.group == GROUP_SECP256R1);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_p384_key_exchange(void)
{
	static const unsigned short p384[] = { GROUP_SECP384R1 };

	start(TLS13, 0);
	S.groups = p384;
	S.ngroups = 1;
	C.groups[0] = GROUP_SECP384R1;
	C.ngroups = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(C.group == GROUP_SECP384R1);
	CHECK(app_both_ways(&C));
	return 1;
}

/* RFC 8422 4: without supported_groups, a NIST curve, never X25519. */
static int
t12_client_without_supported_groups_gets_p256(void)
{
	start(TLS13, 0);
	C.ngroups = 0;
	CHECK_OK(cli_connect(&C));
	CHECK(C.group == GROUP_SECP256R1);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_random_ends_with_downgrd_when_vmax_is_13(void)
{
	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK(memcmp(C.sr + 24, "DOWNGRD\1", 8) == 0);
	return 1;
}

static int
t12_random_has_no_downgrd_when_vmax_is_12(void)
{
	start(TLS12, 0);
	CHECK_OK(cli_connect(&C));
	CHECK(memcmp(C.sr + 24, "DOWNGRD", 7) != 0);
	return 1;
}

static int
t12_13_client_at_a_12_server_gets_12_without_downgrd(void)
{
	start(TLS12, 1);
	CHECK_OK(cli_connect(&C));
	CHECK(C.version == TLS12);
	CHECK(memcmp(C.sr + 24, "DOWNGRD", 7) != 0);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_ems_required_refuses_a_client_without_ems(void)
{
	start(TLS13, 0);
	S.ems_required = 1;
	C.ems = 0;
	CHECK(cli_hello(&C) == BR_ALERT_HANDSHAKE_FAILURE);
	CHECK(cli_handshake(&C) < 0);
	CHECK(C.alert_level == ALERT_FATAL &&
	    C.alert == BR_ALERT_HANDSHAKE_FAILURE);
	CHECK(closed_with(FATAL(BR_ALERT_HANDSHAKE_FAILURE)));
	return 1;
}

/* TLS 1.2: resumption by session ID. */

static int
t12_session_id_resumes_abbreviated_server_finished_first(void)
{
	struct cli_session s;

	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.on);
	s = C.got;
	again(TLS13, 0);
	C.resume = s;
	/* The client reads CCS and Finished right after ServerHello. */
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	CHECK(memcmp(C.sid, s.id, 32) == 0);
	CHECK(app_both_ways(&C));
	return 1;
}

/* RFC 5246 7.4.1.2: a hello resuming a session offers its suite. */
static int
t12_session_whose_suite_is_not_offered_gets_illegal_parameter(void)
{
	struct cli_session s;

	start(TLS13, 0);
	offer(ECDSA_AES128);
	CHECK_OK(cli_connect(&C));
	s = C.got;
	again(TLS13, 0);
	offer(ECDSA_AES256);
	C.resume = s;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert == BR_ALERT_ILLEGAL_PARAMETER && !C.resumed);
	CHECK(closed_with(FATAL(BR_ALERT_ILLEGAL_PARAMETER)));
	return 1;
}

static int
t12_ems_session_offered_without_ems_is_refused(void)
{
	struct cli_session s;

	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.on && C.ems_echo);
	s = C.got;
	again(TLS13, 0);
	C.resume = s;
	C.ems = 0;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert == BR_ALERT_HANDSHAKE_FAILURE && !C.resumed);
	CHECK(closed_with(FATAL(BR_ALERT_HANDSHAKE_FAILURE)));
	return 1;
}

/* TLS 1.2: tickets (RFC 5077). */

/* A 1.2 ticket, made by a first connection offering the extension. */
static int
ticket12(struct cli_session *t)
{
	start(TLS13, 0);
	C.tickets = 1;
	CHECK_OK(cli_connect(&C));
	/* 3.2: an empty extension, then NewSessionTicket before the CCS. */
	CHECK(C.sh_ticket == 1 && C.nst12);
	CHECK(C.got.on && C.got.ticket_len == TICKET_LEN);
	CHECK(C.ticket_lifetime == 7200);
	/* No session ID: the ticket carries the session (as OpenSSL). */
	CHECK(C.sid_len == 0);
	*t = C.got;
	return 1;
}

static int
t12_ticket_resumes_with_the_clients_session_id_echoed(void)
{
	struct cli_session t;

	CHECK(ticket12(&t));
	again(TLS13, 0);
	S.ops.load = NULL;
	S.ops.save = NULL;
	C.tickets = 1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	/* 3.4: the session ID the client sent, echoed, says it resumed. */
	CHECK(C.resumed && C.sid_len == 32 && memcmp(C.sid, C.cr, 32) == 0);
	/* The session keeps its one ticket and its first lifetime. */
	CHECK(!C.sh_ticket && !C.nst12);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_ticket_resumes_with_no_session_id(void)
{
	struct cli_session t;

	CHECK(ticket12(&t));
	again(TLS13, 0);
	C.tickets = 1;
	C.no_sid = 1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed && C.sid_len == 0);
	CHECK(app_both_ways(&C));
	return 1;
}

/* A ticket that does not open: a full handshake and a new ticket. */
static int
full12_with(const struct cli_session *t)
{
	again(TLS13, 0);
	C.tickets = 1;
	C.resume = *t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && C.nst12 && eng_alert(&S.e) == 0);
	/* Not the client's session ID: that would say it resumed. */
	CHECK(C.sid_len == 0);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_bad_tickets_get_a_full_handshake(void)
{
	static const size_t at[] = { 0, 16, 40, TICKET_LEN - 1 };
	struct cli_session t, bad;

	CHECK(ticket12(&t));
	for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
		bad = t;
		bad.ticket[at[i]] ^= 1;
		CHECK(full12_with(&bad));
	}
	bad = t;
	bad.ticket_len = 5;
	CHECK(full12_with(&bad));
	/* Expired, by the time sealed in it. */
	again(TLS13, 0);
	S.now += 7200;
	C.tickets = 1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && C.nst12);
	/* For another service. */
	again(TLS13, 0);
	S.svc = "other";
	C.tickets = 1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && C.nst12);
	/* After all that, the ticket itself still resumes. */
	again(TLS13, 0);
	C.tickets = 1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(C.resumed);
	return 1;
}

/* A 1.3 ticket (another version) in the 1.2 extension: not opened. */
static int
t12_ticket_of_tls13_gets_a_full_handshake(void)
{
	struct cli_session t;

	start(TLS13, 1);
	CHECK_OK(cli_connect(&C));
	CHECK(C.got.ticket_len == TICKET_LEN);
	t = C.got;
	t.suite = ECDSA_AES128;
	CHECK(full12_with(&t));
	return 1;
}

/* Tickets are lenient where session IDs are strict: a full handshake. */
static int
t12_ticket_whose_suite_is_not_offered_gets_a_full_handshake(void)
{
	struct cli_session t;

	start(TLS13, 0);
	C.tickets = 1;
	offer(ECDSA_AES128);
	CHECK_OK(cli_connect(&C));
	t = C.got;
	again(TLS13, 0);
	offer(ECDSA_AES256);
	C.tickets = 1;
	C.resume = t;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.resumed && C.suite == ECDSA_AES256 && C.nst12);
	return 1;
}

/* RFC 7627 5.3, as for session IDs. */
static int
t12_ems_ticket_offered_without_ems_is_refused(void)
{
	struct cli_session t;

	CHECK(ticket12(&t));
	again(TLS13, 0);
	C.tickets = 1;
	C.resume = t;
	C.ems = 0;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert == BR_ALERT_HANDSHAKE_FAILURE && !C.resumed);
	return 1;
}

/* Without the extension, or with tickets off: a session ID, no ticket. */
static int
t12_session_id_without_tickets(void)
{
	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK(!C.sh_ticket && !C.nst12 && C.sid_len == 32);
	start(TLS13, 0);
	S.ops.seal = NULL;
	S.ops.open = NULL;
	C.tickets = 1;
	CHECK_OK(cli_connect(&C));
	CHECK(!C.sh_ticket && !C.nst12 && C.sid_len == 32);
	return 1;
}

/* TLS 1.2: client certificates. */

static int
t12_empty_client_certificate_is_handshake_failure(void)
{
	start(TLS13, 0);
	S.client_auth = 1;
	C.cert = 1;
	C.fault = FAULT_EMPTY_CERT;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert_level == ALERT_FATAL &&
	    C.alert == BR_ALERT_HANDSHAKE_FAILURE);
	CHECK(closed_with(BR_ERR_NO_CLIENT_AUTH));
	return 1;
}

/* TLS 1.2: refusals in the handshake. */

static int
t12_key_exchange_point_off_the_curve_is_illegal_parameter(void)
{
	start(TLS13, 0);
	C.groups[0] = GROUP_SECP256R1;
	C.ngroups = 1;
	C.fault = FAULT_CKE_OFF_CURVE;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.group == GROUP_SECP256R1);
	CHECK(C.alert == BR_ALERT_ILLEGAL_PARAMETER);
	CHECK(closed_with(FATAL(BR_ALERT_ILLEGAL_PARAMETER)));
	return 1;
}

static int
t12_change_cipher_spec_before_the_key_exchange_is_unexpected(void)
{
	start(TLS13, 0);
	C.fault = FAULT_CCS_EARLY;
	CHECK(cli_connect(&C) < 0);
	CHECK(C.alert == BR_ALERT_UNEXPECTED_MESSAGE);
	CHECK(closed_with(FATAL(BR_ALERT_UNEXPECTED_MESSAGE)));
	return 1;
}

/* TLS 1.2: after the handshake. */

static int
t12_client_hello_gets_a_no_renegotiation_warning(void)
{
	unsigned char m[1024];
	size_t n;

	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	n = cli_hello_msg(&C, m, sizeof(m));
	CHECK(n > 0);
	CHECK_OK(cli_send(&C, CT_HANDSHAKE, m, n));
	CHECK(cli_expect_alert(&C, ALERT_WARNING, BR_ALERT_NO_RENEGOTIATION));
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_renegotiation_hello_in_small_records_is_answered_once(void)
{
	unsigned char m[1024];
	size_t n;

	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	n = cli_hello_msg(&C, m, sizeof(m));
	CHECK(n > 0);
	C.frag = 7;
	CHECK_OK(cli_send(&C, CT_HANDSHAKE, m, n));
	CHECK(cli_expect_alert(&C, ALERT_WARNING, BR_ALERT_NO_RENEGOTIATION));
	CHECK(app_both_ways(&C));
	return 1;
}

/* RFC 5246 7.2.2: a warning alert says something, and it goes on. */
static int
t12_warning_alert_from_the_client_is_let_pass(void)
{
	static const unsigned char a[2] = { ALERT_WARNING,
	    BR_ALERT_NO_RENEGOTIATION };

	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_send(&C, CT_ALERT, a, sizeof(a)));
	CHECK(eng_last_error(&S.e) == 0);
	CHECK(app_both_ways(&C));
	return 1;
}

static int
t12_hello_request_from_the_client_is_unexpected_message(void)
{
	static const unsigned char hr[4] = { HT_HELLO_REQUEST, 0, 0, 0 };

	start(TLS13, 0);
	CHECK_OK(cli_connect(&C));
	CHECK_OK(cli_send(&C, CT_HANDSHAKE, hr, sizeof(hr)));
	CHECK(cli_expect_alert(&C, ALERT_FATAL, BR_ALERT_UNEXPECTED_MESSAGE));
	CHECK(closed_with(FATAL(BR_ALERT_UNEXPECTED_MESSAGE)));
	return 1;
}

/* What both versions do (engtest.h), in TLS 1.2. */

int
main(void)
{
	static const struct unit_test tests[] = {
		T(t12_ecdsa_aes128gcm_handshake_then_app_data),
		T(t12_ticket_resumes_with_the_clients_session_id_echoed),
		T(t12_ticket_resumes_with_no_session_id),
		T(t12_bad_tickets_get_a_full_handshake),
		T(t12_ticket_of_tls13_gets_a_full_handshake),
		T(t12_ticket_whose_suite_is_not_offered_gets_a_full_handshake),
		T(t12_ems_ticket_offered_without_ems_is_refused),
		T(t12_session_id_without_tickets),
		T(t12_ecdsa_aes256gcm_with_the_sha384_prf),
		T(t12_ecdsa_chacha20_poly1305),
		T(t12_rsa_aes128gcm_signs_with_pss),
		T(t12_rsa_aes256gcm_with_the_sha384_prf),
		T(t12_rsa_chacha20_poly1305),
		T(t12_rsa_signs_pkcs1_for_a_client_without_pss),
		T(t12_ems_is_answered_when_offered),
		T(t12_without_ems_the_master_secret_is_the_classic_one),
		T(t12_p256_key_exchange),
		T(t12_p384_key_exchange),
		T(t12_client_without_supported_groups_gets_p256),
		T(t12_random_ends_with_downgrd_when_vmax_is_13),
		T(t12_random_has_no_downgrd_when_vmax_is_12),
		T(t12_13_client_at_a_12_server_gets_12_without_downgrd),
		T(t12_ems_required_refuses_a_client_without_ems),
		T(t12_session_id_resumes_abbreviated_server_finished_first),
		T(t12_session_whose_suite_is_not_offered_gets_illegal_parameter),
		T(t12_ems_session_offered_without_ems_is_refused),
		T(t12_empty_client_certificate_is_handshake_failure),
		T(t12_key_exchange_point_off_the_curve_is_illegal_parameter),
		T(t12_change_cipher_spec_before_the_key_exchange_is_unexpected),
		T(t12_client_hello_gets_a_no_renegotiation_warning),
		T(t12_renegotiation_hello_in_small_records_is_answered_once),
		T(t12_hello_request_from_the_client_is_unexpected_message),
		T(t12_warning_alert_from_the_client_is_let_pass),
	};

	return eng_main(tests, sizeof(tests) / sizeof(tests[0]), 0);
}
