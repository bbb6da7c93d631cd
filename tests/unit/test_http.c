/* SPDX-License-Identifier: ISC */
/*
 * test_http.c - the behaviours of src/http.c, one test per behaviour.
 *
 * Inputs are copied into heap buffers of exactly their length, so that a
 * read past `len` is caught when built with -fsanitize=address.
 * Prints one line per test and "N passed, N failed" last; exits non-zero
 * if anything failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http.h"
#include "unit.h"


/* A rejection test: parse must fail with exactly this reason. */
#define REJECT(head, rc) CHECK(parse_str(head, &req) == (rc))

static uint8_t *
heap_copy(const char *s, size_t len)
{
	uint8_t *p;

	if ((p = malloc(len ? len : 1)) == NULL) {
		perror("malloc");
		exit(2);
	}
	memcpy(p, s, len);
	return p;
}

static int
parse_len(const char *s, size_t len, struct http_req *req)
{
	uint8_t *p;
	int rc;

	p = heap_copy(s, len);
	rc = http_parse_head(p, len, req);
	free(p);
	return rc;
}

static int
parse_str(const char *s, struct http_req *req)
{
	return parse_len(s, strlen(s), req);
}

static int
head_end_str(const char *s, size_t *end)
{
	uint8_t *p;
	int rc;

	p = heap_copy(s, strlen(s));
	*end = 0;
	rc = http_head_end(p, strlen(s), end);
	free(p);
	return rc;
}

/* Feed a chunked body in pieces of at most step bytes. */
static int
chunk_str(const char *s, size_t len, size_t step, size_t *total)
{
	struct http_chunk ch;
	uint8_t *p;
	size_t off, n, used;
	int rc;

	http_chunk_init(&ch);
	p = heap_copy(s, len);
	rc = HTTP_MORE;
	for (off = 0, *total = 0; off < len && rc == HTTP_MORE; off += n) {
		n = len - off < step ? len - off : step;
		rc = http_chunk_feed(&ch, p + off, n, &used);
		*total += used;
	}
	free(p);
	return rc;
}

/* ---- finding the end of the head ---- */

static int
head_end_finds_crlfcrlf(void)
{
	size_t end;

	CHECK(head_end_str("GET / HTTP/1.1\r\nHost: a\r\n\r\n", &end) ==
	    HTTP_OK);
	CHECK(end == 27);
	return 1;
}

static int
head_end_stops_at_first_of_pipelined_heads(void)
{
	const char *two = "GET /a HTTP/1.1\r\nHost: a\r\n\r\n"
	    "GET /b HTTP/1.1\r\nHost: a\r\n\r\n";
	size_t end;

	CHECK(head_end_str(two, &end) == HTTP_OK);
	CHECK(end == strlen(two) / 2);
	return 1;
}

static int
head_end_needs_more_for_partial_head(void)
{
	size_t end;

	CHECK(head_end_str("GET / HTTP/1.1\r\nHost: a\r\n", &end) == HTTP_MORE);
	CHECK(head_end_str("GET / HTTP/1.1\r\nHost: a\r\n\r", &end) ==
	    HTTP_MORE);
	CHECK(head_end_str("", &end) == HTTP_MORE);
	return 1;
}

static int
head_end_resumes_byte_by_byte(void)
{
	const char *s = "POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n"
	    "\r\nabc";
	uint8_t *p;
	size_t len, i, end, once;
	int rc;

	len = strlen(s);
	CHECK(head_end_str(s, &once) == HTTP_OK);
	p = heap_copy(s, len);
	for (i = 1, end = 0, rc = HTTP_MORE; i <= len && rc == HTTP_MORE; i++)
		rc = http_head_end(p, i, &end);
	free(p);
	CHECK(rc == HTTP_OK);
	CHECK(end == once);
	CHECK(i - 1 == once);
	return 1;
}

static int
head_end_rejects_bare_lf(void)
{
	size_t end;

	CHECK(head_end_str("GET / HTTP/1.1\nHost: a\n\n", &end) ==
	    HTTP_E_BARE_LF);
	CHECK(head_end_str("GET / HTTP/1.1\r\nHost: a\r\n\n", &end) ==
	    HTTP_E_BARE_LF);
	CHECK(head_end_str("\n", &end) == HTTP_E_BARE_LF);
	return 1;
}

static int
head_end_rejects_bare_cr(void)
{
	size_t end;

	CHECK(head_end_str("GET / HTTP/1.1\rHost: a\r\n\r\n", &end) ==
	    HTTP_E_BARE_CR);
	CHECK(head_end_str("GET / HTTP/1.1\r\n\r\r\n", &end) == HTTP_E_BARE_CR);
	return 1;
}

static int
head_end_ends_at_empty_first_line(void)
{
	size_t end;

	CHECK(head_end_str("\r\nGET / HTTP/1.1\r\n\r\n", &end) == HTTP_OK);
	CHECK(end == 2);
	return 1;
}

/* ---- accepted forms ---- */

static int
accepts_simple_get_http11(void)
{
	const char *s = "GET /index.html?q=1 HTTP/1.1\r\nHost: example\r\n"
	    "User-Agent: t\r\n\r\n";
	struct http_req req;

	CHECK(parse_str(s, &req) == HTTP_OK);
	CHECK(req.minor == 1);
	CHECK(req.body == HTTP_BODY_NONE);
	CHECK(req.nfields == 2);
	CHECK(req.head_len == strlen(s));
	return 1;
}

static int
accepts_http10_without_host(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.0\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.minor == 0);
	CHECK(req.nfields == 0);
	CHECK(req.host_len == 0);
	return 1;
}

static int
reports_offsets_of_method_target_host(void)
{
	const char *s = "PATCH /a/b HTTP/1.1\r\nX: y\r\nHost:  h.example \r\n\r\n";
	struct http_req req;

	CHECK(parse_str(s, &req) == HTTP_OK);
	CHECK(req.method_len == 5);
	CHECK(req.target_len == 4 && memcmp(s + req.target_off, "/a/b", 4) == 0);
	CHECK(req.host_len == 9 &&
	    memcmp(s + req.host_off, "h.example", 9) == 0);
	return 1;
}

static int
accepts_content_length(void)
{
	struct http_req req;

	CHECK(parse_str("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1234"
	    "\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.body == HTTP_BODY_LENGTH);
	CHECK(req.body_len == 1234);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: a\r\ncontent-length:0\r\n"
	    "\r\n", &req) == HTTP_OK);
	CHECK(req.body == HTTP_BODY_LENGTH && req.body_len == 0);
	return 1;
}

static int
accepts_largest_content_length(void)
{
	struct http_req req;

	CHECK(parse_str("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: "
	    "18446744073709551615\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.body_len == UINT64_MAX);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: "
	    "0000000000000000000000042\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.body_len == 42);
	return 1;
}

static int
accepts_chunked_any_case_with_ows(void)
{
	struct http_req req;

	CHECK(parse_str("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: "
	    "chunked\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.body == HTTP_BODY_CHUNKED);
	CHECK(parse_str("POST / HTTP/1.1\r\nHost: a\r\ntransfer-encoding:\t"
	    "ChUnKeD \t\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.body == HTTP_BODY_CHUNKED);
	return 1;
}

static int
accepts_htab_and_obs_text_in_values(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.1\r\nHost: a\r\nX-T: a\tb\r\n"
	    "X-U: caf\xc3\xa9\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.nfields == 3);
	return 1;
}

static int
accepts_empty_field_value(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.1\r\nHost:\r\nX-E: \r\n\r\n", &req) ==
	    HTTP_OK);
	CHECK(req.host_len == 0);
	return 1;
}

static int
accepts_asterisk_and_absolute_targets(void)
{
	struct http_req req;

	CHECK(parse_str("OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", &req) ==
	    HTTP_OK);
	CHECK(req.target_len == 1);
	CHECK(parse_str("GET http://a/x HTTP/1.1\r\nHost: a\r\n\r\n", &req) ==
	    HTTP_OK);
	return 1;
}

/* Builds a head with n "X-N: v" fields besides Host. */
static int
parse_with_fields(unsigned n, struct http_req *req)
{
	char buf[4096];
	size_t len;
	unsigned i;

	len = (size_t)snprintf(buf, sizeof(buf), "GET / HTTP/1.1\r\nHost: a\r\n");
	for (i = 0; i < n; i++)
		len += (size_t)snprintf(buf + len, sizeof(buf) - len,
		    "X-%u: v\r\n", i);
	len += (size_t)snprintf(buf + len, sizeof(buf) - len, "\r\n");
	return parse_len(buf, len, req);
}

static int
accepts_max_fields(void)
{
	struct http_req req;

	CHECK(parse_with_fields(HTTP_MAX_FIELDS - 1, &req) == HTTP_OK);
	CHECK(req.nfields == HTTP_MAX_FIELDS);
	return 1;
}

static int
rejects_too_many_fields_with_431(void)
{
	struct http_req req;

	CHECK(parse_with_fields(HTTP_MAX_FIELDS, &req) ==
	    HTTP_E_TOO_MANY_FIELDS);
	CHECK(http_err_status(HTTP_E_TOO_MANY_FIELDS) == 431);
	return 1;
}

/* ---- framing rejections ---- */

static int
rejects_content_length_with_transfer_encoding(void)
{
	struct http_req req;

	REJECT("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", HTTP_E_CL_TE);
	REJECT("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
	    "Content-Length: 5\r\n\r\n", HTTP_E_CL_TE);
	CHECK(http_err_status(HTTP_E_CL_TE) == 400);
	return 1;
}

static int
rejects_duplicate_content_length_differing(void)
{
	struct http_req req;

	REJECT("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
	    "Content-Length: 6\r\n\r\n", HTTP_E_CL_DUP);
	return 1;
}

static int
rejects_duplicate_content_length_identical(void)
{
	struct http_req req;

	REJECT("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n"
	    "content-length: 5\r\n\r\n", HTTP_E_CL_DUP);
	REJECT("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5, 5\r\n\r\n",
	    HTTP_E_CL_BAD);
	return 1;
}

static int
rejects_content_length_not_digits(void)
{
	static const char *const bad[] = {
		"+5", "-1", "5a", "0x10", "", "5 5", "1.0", "\xd9\xa5"
	};
	char head[128];
	struct http_req req;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "POST / HTTP/1.1\r\nHost: a\r\n"
		    "Content-Length: %s\r\n\r\n", bad[i]);
		REJECT(head, HTTP_E_CL_BAD);
	}
	return 1;
}

static int
rejects_content_length_overflow(void)
{
	struct http_req req;

	REJECT("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: "
	    "18446744073709551616\r\n\r\n", HTTP_E_CL_BAD);
	REJECT("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: "
	    "99999999999999999999999999\r\n\r\n", HTTP_E_CL_BAD);
	return 1;
}

static int
rejects_transfer_encoding_other_than_chunked(void)
{
	static const char *const bad[] = {
		"gzip, chunked", "chunked, gzip", "identity", "chunked, chunked",
		"chunked;q=1", "", "chunke", "\"chunked\"", "gzip"
	};
	char head[128];
	struct http_req req;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "POST / HTTP/1.1\r\nHost: a\r\n"
		    "Transfer-Encoding: %s\r\n\r\n", bad[i]);
		REJECT(head, HTTP_E_TE_BAD);
	}
	return 1;
}

static int
rejects_duplicate_transfer_encoding_headers(void)
{
	struct http_req req;

	REJECT("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", HTTP_E_TE_DUP);
	REJECT("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", HTTP_E_TE_BAD);
	return 1;
}

static int
rejects_transfer_encoding_in_http10(void)
{
	struct http_req req;

	REJECT("POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
	    HTTP_E_TE_HTTP10);
	return 1;
}

/* ---- syntax rejections ---- */

static int
rejects_obs_fold(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n",
	    HTTP_E_OBS_FOLD);
	REJECT("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n\tb\r\n\r\n",
	    HTTP_E_OBS_FOLD);
	REJECT("GET / HTTP/1.1\r\n Host: a\r\n\r\n", HTTP_E_OBS_FOLD);
	return 1;
}

static int
rejects_nul_and_controls_anywhere(void)
{
	static const char *const bad[] = {
		"GET / HTTP/1.1\r\nHost: a\r\nX: a%cb\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX%c: ab\r\n\r\n",
		"GET /%c HTTP/1.1\r\nHost: a\r\n\r\n",
		"G%cET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET / HTTP/1.1%c\r\nHost: a\r\n\r\n",
	};
	static const char ctl[] = { 0x00, 0x01, 0x0b, 0x0c, 0x1b, 0x1f, 0x7f };
	char head[128];
	struct http_req req;
	size_t i, j, len;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		for (j = 0; j < sizeof(ctl); j++) {
			/* %c with NUL: the length comes from snprintf. */
			len = (size_t)snprintf(head, sizeof(head), bad[i], ctl[j]);
			CHECK(parse_len(head, len, &req) == HTTP_E_CTL);
		}
	}
	return 1;
}

static int
rejects_bare_cr_in_head(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nHost: a\rX: b\r\n\r\n", HTTP_E_BARE_CR);
	REJECT("GET / HTTP/1.1\r\nHost: a\r\n\r", HTTP_E_BARE_CR);
	return 1;
}

static int
rejects_bare_lf_line_terminator(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\nHost: a\r\n\r\n", HTTP_E_BARE_LF);
	REJECT("GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", HTTP_E_BARE_LF);
	REJECT("GET / HTTP/1.1\r\nHost: a\r\n\n", HTTP_E_BARE_LF);
	return 1;
}

static int
rejects_whitespace_before_colon(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nHost: a\r\nContent-Length : 5\r\n\r\n",
	    HTTP_E_FIELD_WS);
	REJECT("GET / HTTP/1.1\r\nHost\t: a\r\n\r\n", HTTP_E_FIELD_WS);
	return 1;
}

static int
rejects_empty_field_name(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", HTTP_E_FIELD_NAME);
	return 1;
}

static int
rejects_field_line_without_colon(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n",
	    HTTP_E_FIELD_NAME);
	return 1;
}

static int
rejects_non_token_field_name(void)
{
	static const char *const bad[] = {
		"X\"Y", "X(Y)", "X/Y", "X[Y]", "X@Y", "X=Y", "X,Y", "\xc3\xa9"
	};
	char head[128];
	struct http_req req;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: a\r\n"
		    "%s: v\r\n\r\n", bad[i]);
		REJECT(head, HTTP_E_FIELD_NAME);
	}
	return 1;
}

static int
rejects_non_token_method(void)
{
	struct http_req req;

	REJECT("G(T / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_METHOD);
	REJECT("GET\t/ HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_METHOD);
	REJECT(" GET / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_METHOD);
	return 1;
}

static int
rejects_connect_method(void)
{
	struct http_req req;

	REJECT("CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n",
	    HTTP_E_CONNECT);
	REJECT("connect a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n",
	    HTTP_E_CONNECT);
	return 1;
}

static int
rejects_request_line_spacing(void)
{
	struct http_req req;

	REJECT("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_REQLINE);
	REJECT("GET / HTTP/1.1 \r\nHost: a\r\n\r\n", HTTP_E_VERSION);
	REJECT("GET /  HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_VERSION);
	REJECT("GET /\tHTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_TARGET);
	REJECT("GET\r\nHost: a\r\n\r\n", HTTP_E_REQLINE);
	REJECT("GET /\r\nHost: a\r\n\r\n", HTTP_E_REQLINE);
	REJECT("GET \r\nHost: a\r\n\r\n", HTTP_E_REQLINE);
	return 1;
}

static int
rejects_target_outside_visible_ascii(void)
{
	struct http_req req;

	REJECT("GET /caf\xc3\xa9 HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_TARGET);
	REJECT("GET \xff HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_TARGET);
	return 1;
}

static int
rejects_versions_other_than_10_11(void)
{
	static const char *const bad[] = {
		"HTTP/1.2", "HTTP/2.0", "http/1.1", "HTTP/1.10", "HTTP/1",
		"HTTP/0.9", "HTTP/1.1x", "HTTP/1.01", "HTTP/1,1"
	};
	char head[128];
	struct http_req req;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "GET / %s\r\nHost: a\r\n\r\n",
		    bad[i]);
		REJECT(head, HTTP_E_VERSION);
	}
	return 1;
}

static int
rejects_http11_without_exactly_one_host(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nX: a\r\n\r\n", HTTP_E_HOST);
	REJECT("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", HTTP_E_HOST);
	REJECT("GET / HTTP/1.1\r\nHost: a\r\nhost: a\r\n\r\n", HTTP_E_HOST);
	REJECT("GET / HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", HTTP_E_HOST);
	return 1;
}

static int
rejects_connection_naming_framing_or_forwarding(void)
{
	static const char *const bad[] = {
		"close, Content-Length", "Transfer-Encoding", "host",
		"X-Forwarded-For", "keep-alive, x-real-ip", "Forwarded",
		"close;x", "a b", "\"close\""
	};
	char head[128];
	struct http_req req;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: a\r\n"
		    "Connection: %s\r\n\r\n", bad[i]);
		REJECT(head, HTTP_E_CONNECTION);
	}
	return 1;
}

static int
rejects_empty_line_before_request_line(void)
{
	struct http_req req;

	REJECT("\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", HTTP_E_REQLINE);
	REJECT("\r\n", HTTP_E_REQLINE);
	return 1;
}

static int
rejects_bytes_after_head_or_missing_end(void)
{
	struct http_req req;

	REJECT("GET / HTTP/1.1\r\nHost: a\r\n\r\nGET", HTTP_E_INCOMPLETE);
	REJECT("GET / HTTP/1.1\r\nHost: a\r\n", HTTP_E_INCOMPLETE);
	REJECT("GET / HTTP/1.1", HTTP_E_INCOMPLETE);
	REJECT("", HTTP_E_INCOMPLETE);
	return 1;
}

/* ---- connection decisions ---- */

static int
keep_alive_http11_by_default(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.1\r\nHost: a\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.keep_alive == 1);
	return 1;
}

static int
closes_http11_on_connection_close(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n"
	    "\r\n", &req) == HTTP_OK);
	CHECK(req.keep_alive == 0);
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive\r\n"
	    "Connection: ,, te ,close\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.keep_alive == 0);
	return 1;
}

static int
closes_http10_by_default(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.0\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.keep_alive == 0);
	return 1;
}

static int
keep_alive_http10_on_request(void)
{
	struct http_req req;

	CHECK(parse_str("GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n",
	    &req) == HTTP_OK);
	CHECK(req.keep_alive == 1);
	CHECK(parse_str("GET / HTTP/1.0\r\nConnection: keep-alive, close\r\n"
	    "\r\n", &req) == HTTP_OK);
	CHECK(req.keep_alive == 0);
	return 1;
}

static int
flags_upgrade_only_with_connection_and_upgrade(void)
{
	struct http_req req;

	CHECK(parse_str("GET /ws HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\n"
	    "Upgrade: websocket\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.upgrade == 1);
	CHECK(parse_str("GET /ws HTTP/1.1\r\nHost: a\r\n"
	    "Upgrade: websocket\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.upgrade == 0);
	CHECK(parse_str("GET /ws HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\n"
	    "\r\n", &req) == HTTP_OK);
	CHECK(req.upgrade == 0);
	CHECK(parse_str("GET /ws HTTP/1.0\r\nConnection: upgrade\r\n"
	    "Upgrade: websocket\r\n\r\n", &req) == HTTP_OK);
	CHECK(req.upgrade == 0);
	return 1;
}

/* ---- rewriting ---- */

static const struct http_fwd fwd_all = {
	HTTP_FWD_FOR | HTTP_FWD_PROTO | HTTP_FWD_PORT, "192.0.2.7", 9, 8443,
	NULL, 0, NULL, 0, NULL, NULL, 0
};

/* Parse then rewrite s (followed by tail) in a buffer of cap bytes. */
static size_t
rewrite(const char *s, const char *tail, size_t cap,
    const struct http_fwd *fwd, uint8_t **out)
{
	struct http_req req;
	uint8_t *buf;
	size_t hl, tl;

	hl = strlen(s);
	tl = strlen(tail);
	if (hl + tl > cap || (buf = calloc(1, cap)) == NULL)
		return 0;
	memcpy(buf, s, hl);
	memcpy(buf + hl, tail, tl);
	*out = buf;
	if (http_parse_head(buf, hl, &req) != HTTP_OK)
		return 0;
	return http_rewrite_head(buf, hl + tl, cap, &req, fwd);
}

static int
rewrite_drops_spoofed_headers_any_case(void)
{
	const char *in = "GET / HTTP/1.1\r\nX-Forwarded-For: 6.6.6.6\r\n"
	    "Host: a\r\nx-forwarded-proto: http\r\nX-FORWARDED-PORT: 1\r\n"
	    "X-Real-IP: 6.6.6.6\r\nForwarded: for=6.6.6.6\r\n"
	    "X-Client-Cert-Subject: CN=root\r\nX-Forwarded-Forx: keep\r\n\r\n";
	const char *want = "GET / HTTP/1.1\r\nHost: a\r\n"
	    "X-Forwarded-Forx: keep\r\n\r\n";
	struct http_fwd none = { 0, NULL, 0, 0, NULL, 0, NULL, 0, NULL, NULL, 0 };
	uint8_t *out = NULL;
	size_t n;

	n = rewrite(in, "", 1024, &none, &out);
	CHECK(n == strlen(want));
	CHECK(memcmp(out, want, n) == 0);
	free(out);
	return 1;
}

static int
rewrite_sends_client_cert_and_drops_the_clients(void)
{
	/* RFC 9440: the DER as a byte sequence; any the client sent, of
	 * either field and in any case, never reaches the backend. */
	static const uint8_t der[] = { 0x30, 0x03, 0x02, 0x01, 0x05, 0xff };
	const char *in = "GET / HTTP/1.1\r\nClient-Cert: :AAAA:\r\n"
	    "Host: a\r\nCLIENT-CERT-CHAIN: :AAAA:, :BBBB:\r\n"
	    "Client-Certx: keep\r\n\r\n";
	const char *want = "GET / HTTP/1.1\r\nHost: a\r\n"
	    "Client-Certx: keep\r\nClient-Cert: :MAMCAQX/:\r\n\r\n";
	struct http_fwd f = { 0, NULL, 0, 0, NULL, 0, der, 6,
	    NULL, NULL, 0 };
	uint8_t *out = NULL;
	size_t n;

	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(want));
	CHECK(memcmp(out, want, n) == 0);
	free(out);
	/* Padding: one and two bytes short of a group. */
	f.cert_len = 5;
	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(want) && memcmp(out + n - 9, "AQU=:\r\n\r\n",
	    9) == 0);
	free(out);
	f.cert_len = 4;
	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(want) && memcmp(out + n - 9, "AQ==:\r\n\r\n",
	    9) == 0);
	free(out);
	/* Too long to hand on: refused, not cut. */
	f.cert_len = HTTP_CERT_MAX + 1;
	n = rewrite(in, "", 1 << 16, &f, &out);
	CHECK(n == 0);
	free(out);
	return 1;
}

static int
rewrite_sends_client_cert_chain_in_order(void)
{
	/* RFC 9440 2.3: a list of byte sequences, in the order sent, after
	 * Client-Cert; the client's own copy goes. */
	static const uint8_t leaf[] = { 0x30, 0x03, 0x02, 0x01, 0x05, 0xff };
	static const uint8_t chain[] = { 0x30, 0x01, 0x00, 0xff, 0xfe };
	static uint8_t big[HTTP_CHAIN_MAX], bigleaf[HTTP_CERT_MAX];
	size_t lens[HTTP_CHAIN_CERTS + 1] = { 3, 2 };
	const char *in = "GET / HTTP/1.1\r\nHost: a\r\n"
	    "Client-Cert-Chain: :AAAA:\r\n\r\n";
	const char *want = "GET / HTTP/1.1\r\nHost: a\r\n"
	    "Client-Cert: :MAMCAQX/:\r\n"
	    "Client-Cert-Chain: :MAEA:, ://4=:\r\n\r\n";
	const char *one = "GET / HTTP/1.1\r\nHost: a\r\n"
	    "Client-Cert: :MAMCAQX/:\r\nClient-Cert-Chain: :MAEA:\r\n\r\n";
	struct http_fwd f = { 0, NULL, 0, 0,
	    NULL, 0, leaf, 6, chain, lens, 2 };
	uint8_t *out = NULL;
	size_t n, room;

	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(want) && memcmp(out, want, n) == 0);
	free(out);
	/* One intermediate: a list of one. */
	f.nchain = 1;
	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(one) && memcmp(out, one, n) == 0);
	free(out);
	/* Not handed on cut or empty: refused. */
	f.nchain = 0;
	CHECK(rewrite(in, "", 1024, &f, &out) == 0);
	free(out);
	f.nchain = 2;
	lens[1] = 0;
	CHECK(rewrite(in, "", 1024, &f, &out) == 0);
	free(out);
	lens[0] = HTTP_CHAIN_MAX;
	lens[1] = 1;
	f.chain = big;
	CHECK(rewrite(in, "", 1 << 16, &f, &out) == 0);
	free(out);
	f.nchain = HTTP_CHAIN_CERTS + 1;
	for (unsigned i = 0; i <= HTTP_CHAIN_CERTS; i++)
		lens[i] = 1;
	CHECK(rewrite(in, "", 1 << 16, &f, &out) == 0);
	free(out);
	/* The longest of each, rounded up at every certificate, fits the
	 * slack the head buffer has for them. */
	f.cert = bigleaf;
	f.cert_len = HTTP_CERT_MAX;
	f.nchain = HTTP_CHAIN_CERTS;
	lens[0] = HTTP_CHAIN_MAX - (HTTP_CHAIN_CERTS - 1);
	room = strlen(in) + HTTP_FWD_SLACK + HTTP_CERT_SLACK +
	    HTTP_CHAIN_SLACK;
	n = rewrite(in, "", room, &f, &out);
	CHECK(n > 0 && n <= room);
	free(out);
	return 1;
}

static int
rewrite_drops_connection_close_alone(void)
{
	/* The backend connection may outlive the client's: a lone "close"
	 * is not passed on; any other token keeps the line. */
	const char *in = "GET / HTTP/1.1\r\nHost: a\r\nConnection: Close\r\n"
	    "Connection: close, TE\r\nTE: trailers\r\n\r\n";
	const char *want = "GET / HTTP/1.1\r\nHost: a\r\n"
	    "Connection: close, TE\r\nTE: trailers\r\n\r\n";
	struct http_fwd none = { 0, NULL, 0, 0, NULL, 0, NULL, 0, NULL, NULL, 0 };
	struct http_req req;
	uint8_t *out = NULL;
	size_t n;

	CHECK(http_parse_head((const uint8_t *)in, strlen(in), &req) ==
	    HTTP_OK && !req.keep_alive && !req.fwd_keep_alive);
	CHECK(parse_str("GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n"
	    "\r\n", &req) == HTTP_OK && !req.keep_alive && req.fwd_keep_alive);
	CHECK(parse_str("GET / HTTP/1.0\r\nConnection: close\r\n\r\n", &req) ==
	    HTTP_OK && !req.fwd_keep_alive);
	n = rewrite(in, "", 1024, &none, &out);
	CHECK(n == strlen(want));
	CHECK(memcmp(out, want, n) == 0);
	free(out);
	return 1;
}

static int
rewrite_appends_true_headers_before_final_crlf(void)
{
	const char *in = "GET / HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 1.1.1.1"
	    "\r\nAccept: */*\r\n\r\n";
	const char *want = "GET / HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n"
	    "X-Forwarded-For: 192.0.2.7\r\nX-Forwarded-Proto: https\r\n"
	    "X-Forwarded-Port: 8443\r\n\r\n";
	uint8_t *out = NULL;
	size_t n;

	n = rewrite(in, "", 1024, &fwd_all, &out);
	CHECK(n == strlen(want));
	CHECK(memcmp(out, want, n) == 0);
	free(out);
	return 1;
}

static int
rewrite_keeps_header_order(void)
{
	const char *in = "POST /p HTTP/1.1\r\nZ: 1\r\nForwarded: x\r\nA: 2\r\n"
	    "Host: h\r\nX-Real-IP: y\r\nM: 3\r\nContent-Length: 0\r\n\r\n";
	const char *want = "POST /p HTTP/1.1\r\nZ: 1\r\nA: 2\r\nHost: h\r\n"
	    "M: 3\r\nContent-Length: 0\r\nX-Forwarded-Proto: https\r\n\r\n";
	struct http_fwd proto = { HTTP_FWD_PROTO, NULL, 0, 0, NULL, 0, NULL, 0, NULL, NULL, 0 };
	uint8_t *out = NULL;
	size_t n;

	n = rewrite(in, "", 1024, &proto, &out);
	CHECK(n == strlen(want));
	CHECK(memcmp(out, want, n) == 0);
	free(out);
	return 1;
}

static int
rewrite_flags_select_added_headers(void)
{
	const char *in = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	struct http_fwd f = { HTTP_FWD_FOR, "2001:db8::1", 11, 0, NULL, 0, NULL, 0, NULL, NULL, 0 };
	uint8_t *out = NULL;
	size_t n;

	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(in) + strlen("X-Forwarded-For: 2001:db8::1\r\n"));
	CHECK(memcmp(out + strlen(in) - 2,
	    "X-Forwarded-For: 2001:db8::1\r\n\r\n", n - strlen(in) + 2) == 0);
	free(out);
	f.flags = HTTP_FWD_PORT;
	f.port = 1;
	n = rewrite(in, "", 1024, &f, &out);
	CHECK(n == strlen(in) + strlen("X-Forwarded-Port: 1\r\n"));
	CHECK(memcmp(out + strlen(in) - 2, "X-Forwarded-Port: 1\r\n\r\n",
	    n - strlen(in) + 2) == 0);
	free(out);
	f.port = 65535;
	n = rewrite(in, "", 1024, &f, &out);
	CHECK(memcmp(out + strlen(in) - 2, "X-Forwarded-Port: 65535\r\n\r\n",
	    n - strlen(in) + 2) == 0);
	free(out);
	f.port = 65536;
	CHECK(rewrite(in, "", 1024, &f, &out) == 0);
	free(out);
	return 1;
}

static int
rewrite_moves_following_bytes(void)
{
	const char *in = "POST / HTTP/1.1\r\nHost: a\r\nForwarded: for=x\r\n"
	    "Content-Length: 4\r\n\r\n";
	const char *tail = "bodyGET /next HTTP/1.1\r\n";
	uint8_t *out = NULL;
	size_t n;
	struct http_req req;

	n = rewrite(in, tail, 1024, &fwd_all, &out);
	CHECK(n > 0);
	CHECK(memcmp(out + n, tail, strlen(tail)) == 0);
	CHECK(http_parse_head(out, n, &req) == HTTP_OK);
	free(out);
	/* Dropping more than is added moves the tail down. */
	n = rewrite("GET / HTTP/1.1\r\nHost: a\r\nX-Real-IP: 1234567890\r\n"
	    "\r\n", tail, 1024, &(struct http_fwd){ 0, NULL, 0, 0, NULL, 0, NULL, 0, NULL, NULL, 0 }, &out);
	CHECK(n == 27);
	CHECK(memcmp(out + n, tail, strlen(tail)) == 0);
	free(out);
	return 1;
}

static int
rewrite_output_reparses_with_same_framing(void)
{
	const char *in = "POST /u HTTP/1.1\r\nHost: a\r\nX-Forwarded-For: 9.9.9.9"
	    "\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n";
	struct http_req a, b;
	uint8_t *out = NULL;
	size_t n;

	CHECK(parse_str(in, &a) == HTTP_OK);
	n = rewrite(in, "", 1024, &fwd_all, &out);
	CHECK(n > 0);
	CHECK(http_parse_head(out, n, &b) == HTTP_OK);
	/* The close is tlsgate's to act on: it does not reach the backend. */
	CHECK(a.body == b.body && !a.keep_alive && b.keep_alive);
	CHECK(b.nfields == a.nfields - 2 + 3);
	CHECK(b.drop[0] != 0);	/* our own X-Forwarded-* are spoofable too */
	free(out);
	return 1;
}

static int
rewrite_fails_untouched_when_too_small(void)
{
	const char *in = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	struct http_req req;
	uint8_t buf[64], copy[64];
	size_t len;

	len = strlen(in);
	memset(buf, 'z', sizeof(buf));
	memcpy(buf, in, len);
	memcpy(copy, buf, sizeof(buf));
	CHECK(http_parse_head(buf, len, &req) == HTTP_OK);
	CHECK(http_rewrite_head(buf, len, sizeof(buf), &req, &fwd_all) == 0);
	CHECK(memcmp(buf, copy, sizeof(buf)) == 0);
	/* len > cap, head_len > len: preconditions, not crashes. */
	CHECK(http_rewrite_head(buf, 65, 64, &req, &fwd_all) == 0);
	CHECK(http_rewrite_head(buf, len - 1, 64, &req, &fwd_all) == 0);
	return 1;
}

static int
rewrite_always_fits_head_max_plus_slack(void)
{
	static uint8_t buf[8192 + HTTP_FWD_SLACK];
	char peer[HTTP_PEER_MAX + 1];
	struct http_fwd f;
	struct http_req req;
	size_t len, n;

	memset(peer, 'f', HTTP_PEER_MAX);
	memset(&f, 0, sizeof(f));
	f.flags = HTTP_FWD_FOR | HTTP_FWD_PROTO | HTTP_FWD_PORT;
	f.peer = peer;
	f.peer_len = HTTP_PEER_MAX;
	f.port = 65535;
	/* A full head: one long field padded to exactly 8192 bytes. */
	len = (size_t)snprintf((char *)buf, sizeof(buf),
	    "GET / HTTP/1.1\r\nHost: a\r\nX: ");
	memset(buf + len, 'v', 8192 - 4 - len);
	memcpy(buf + 8192 - 4, "\r\n\r\n", 4);
	CHECK(http_parse_head(buf, 8192, &req) == HTTP_OK);
	n = http_rewrite_head(buf, 8192, sizeof(buf), &req, &f);
	CHECK(n > 8192);
	CHECK(n <= sizeof(buf));
	CHECK(http_parse_head(buf, n, &req) == HTTP_OK);
	f.peer_len = HTTP_PEER_MAX + 1;
	CHECK(http_rewrite_head(buf, n, sizeof(buf), &req, &f) == 0);
	return 1;
}

static int
rewrite_rejects_implausible_peer(void)
{
	const char *in = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
	struct http_fwd f = { HTTP_FWD_FOR, "1.2.3.4\r\nX: y", 14, 0, NULL, 0, NULL, 0, NULL, NULL, 0 };
	uint8_t *out = NULL;

	CHECK(rewrite(in, "", 1024, &f, &out) == 0);
	free(out);
	f.peer_len = 0;
	CHECK(rewrite(in, "", 1024, &f, &out) == 0);
	free(out);
	return 1;
}

/* ---- chunked bodies ---- */

static const char chunked_body[] = "5\r\nhello\r\n"
    "1A;name=value;q=\"x y\"\r\nabcdefghijklmnopqrstuvwxyz\r\n"
    "0\r\nTrailer-A: 1\r\nB: two\r\n\r\n";

static int
chunk_walks_body_with_extensions_and_trailers(void)
{
	size_t used;

	CHECK(chunk_str(chunked_body, sizeof(chunked_body) - 1, 4096, &used) ==
	    HTTP_OK);
	CHECK(used == sizeof(chunked_body) - 1);
	CHECK(chunk_str("0\r\n\r\n", 5, 4096, &used) == HTTP_OK);
	CHECK(used == 5);
	CHECK(chunk_str("000A \t;x\r\n0123456789\r\n0\r\n\r\n", 27, 4096,
	    &used) == HTTP_OK);
	return 1;
}

static int
chunk_stops_at_body_end_before_next_request(void)
{
	char buf[256];
	size_t blen, used;

	blen = sizeof(chunked_body) - 1;
	memcpy(buf, chunked_body, blen);
	memcpy(buf + blen, "GET / HTTP/1.1\r\n", 16);
	CHECK(chunk_str(buf, blen + 16, 4096, &used) == HTTP_OK);
	CHECK(used == blen);
	return 1;
}

static int
chunk_split_at_every_byte_boundary(void)
{
	struct http_chunk ch;
	char buf[256];
	uint8_t *p;
	size_t blen, len, cut, a, b, step, used;
	int rc;

	blen = sizeof(chunked_body) - 1;
	memcpy(buf, chunked_body, blen);
	memcpy(buf + blen, "NEXT", 4);
	len = blen + 4;
	p = heap_copy(buf, len);
	for (cut = 0; cut <= len; cut++) {
		http_chunk_init(&ch);
		rc = http_chunk_feed(&ch, p, cut, &a);
		CHECK(rc == (cut < blen ? HTTP_MORE : HTTP_OK));
		b = 0;
		if (rc == HTTP_MORE)
			rc = http_chunk_feed(&ch, p + cut, len - cut, &b);
		CHECK(rc == HTTP_OK);
		CHECK(a + b == blen);
	}
	free(p);
	for (step = 1; step < 8; step++) {
		CHECK(chunk_str(buf, len, step, &used) == HTTP_OK);
		CHECK(used == blen);
	}
	return 1;
}

static int
chunk_accepts_16_hex_digit_size(void)
{
	struct http_chunk ch;
	const char *s = "ffffffffffffffff\r\nabc";
	size_t used;

	http_chunk_init(&ch);
	CHECK(http_chunk_feed(&ch, (const uint8_t *)s, strlen(s), &used) ==
	    HTTP_MORE);
	CHECK(used == strlen(s));
	CHECK(ch.left == UINT64_MAX - 3);
	return 1;
}

/* The reason for feeding s as a whole chunked body. */
static int
chunk_rc(const char *s)
{
	size_t used;

	return chunk_str(s, strlen(s), 4096, &used);
}

static int
chunk_rejects_bad_sizes(void)
{
	CHECK(chunk_rc("\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc("g\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc("-1\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc("0x5\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc("+5\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc(";x\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc(" 5\r\n") == HTTP_E_CHUNK_SIZE);
	return 1;
}

static int
chunk_rejects_more_than_16_hex_digits(void)
{
	CHECK(chunk_rc("10000000000000000\r\n") == HTTP_E_CHUNK_SIZE);
	CHECK(chunk_rc("00000000000000005\r\n") == HTTP_E_CHUNK_SIZE);
	return 1;
}

static int
chunk_rejects_bare_lf(void)
{
	CHECK(chunk_rc("5\nhello\r\n0\r\n\r\n") == HTTP_E_BARE_LF);
	CHECK(chunk_rc("5;a=b\nhello\r\n0\r\n\r\n") == HTTP_E_BARE_LF);
	CHECK(chunk_rc("5\r\nhello\n0\r\n\r\n") == HTTP_E_CHUNK_DATA);
	CHECK(chunk_rc("5\r\nhello\r\n0\r\nA: b\n\r\n") == HTTP_E_BARE_LF);
	CHECK(chunk_rc("0\r\n\n") == HTTP_E_BARE_LF);
	return 1;
}

static int
chunk_rejects_bare_cr(void)
{
	CHECK(chunk_rc("5\rhello\r\n0\r\n\r\n") == HTTP_E_BARE_CR);
	CHECK(chunk_rc("5\r\nhello\rX0\r\n\r\n") == HTTP_E_BARE_CR);
	CHECK(chunk_rc("0\r\n\rX") == HTTP_E_BARE_CR);
	return 1;
}

static int
chunk_rejects_controls_in_extensions(void)
{
	CHECK(chunk_rc("5;a=\x01\r\nhello\r\n0\r\n\r\n") == HTTP_E_CHUNK_EXT);
	CHECK(chunk_rc("5;a=\x7f\r\nhello\r\n0\r\n\r\n") == HTTP_E_CHUNK_EXT);
	CHECK(chunk_rc("5 x\r\nhello\r\n0\r\n\r\n") == HTTP_E_CHUNK_EXT);
	CHECK(chunk_rc("5 \r\nhello\r\n0\r\n\r\n") == HTTP_E_CHUNK_EXT);
	return 1;
}

static int
chunk_rejects_oversize_size_line(void)
{
	char buf[HTTP_CHUNK_LINE_MAX + 16];
	size_t used;

	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "1;", 2);
	CHECK(chunk_str(buf, sizeof(buf), 4096, &used) == HTTP_E_CHUNK_EXT);
	CHECK(used == HTTP_CHUNK_LINE_MAX);
	/* Just below the limit is fine. */
	memcpy(buf + HTTP_CHUNK_LINE_MAX - 2, "\r\nx\r\n0\r\n\r\n", 10);
	CHECK(chunk_str(buf, HTTP_CHUNK_LINE_MAX + 8, 4096, &used) == HTTP_OK);
	return 1;
}

static int
chunk_rejects_data_without_crlf(void)
{
	CHECK(chunk_rc("5\r\nhelloX\r\n0\r\n\r\n") == HTTP_E_CHUNK_DATA);
	CHECK(chunk_rc("5\r\nhello world\r\n") == HTTP_E_CHUNK_DATA);
	return 1;
}

static int
chunk_rejects_bad_trailers(void)
{
	CHECK(chunk_rc("0\r\nA b: c\r\n\r\n") == HTTP_E_TRAILER);
	CHECK(chunk_rc("0\r\n: c\r\n\r\n") == HTTP_E_TRAILER);
	CHECK(chunk_rc("0\r\nA : c\r\n\r\n") == HTTP_E_TRAILER);
	CHECK(chunk_rc("0\r\nA: c\r\n d\r\n\r\n") == HTTP_E_OBS_FOLD);
	CHECK(chunk_rc("0\r\nA: \x01\r\n\r\n") == HTTP_E_CTL);
	CHECK(chunk_str("0\r\nA: \0\r\n\r\n", 11, 4096, &(size_t){ 0 }) ==
	    HTTP_E_CTL);
	return 1;
}

static int
chunk_rejects_oversize_trailer(void)
{
	static char buf[HTTP_TRAILER_MAX + 64];
	size_t used;

	memset(buf, 'a', sizeof(buf));
	memcpy(buf, "0\r\nX: ", 6);
	CHECK(chunk_str(buf, sizeof(buf), 4096, &used) == HTTP_E_TRAILER_BIG);
	CHECK(used == 3 + HTTP_TRAILER_MAX);
	return 1;
}

static int
chunk_error_is_sticky_and_done_is_final(void)
{
	struct http_chunk ch;
	size_t used;

	http_chunk_init(&ch);
	CHECK(http_chunk_feed(&ch, (const uint8_t *)"5x", 2, &used) ==
	    HTTP_E_CHUNK_SIZE);
	CHECK(used == 1);
	CHECK(http_chunk_feed(&ch, (const uint8_t *)"\r\n", 2, &used) ==
	    HTTP_E_CHUNK_SIZE);
	CHECK(used == 0);
	http_chunk_init(&ch);
	CHECK(http_chunk_feed(&ch, (const uint8_t *)"0\r\n\r\n", 5, &used) ==
	    HTTP_OK);
	CHECK(http_chunk_feed(&ch, (const uint8_t *)"0\r\n\r\n", 5, &used) ==
	    HTTP_OK);
	CHECK(used == 0);
	return 1;
}

/* ---- responses ---- */

static int
resp_status_reads_codes(void)
{
	int st;

	CHECK(http_resp_status((const uint8_t *)"HTTP/1.1 101 Switching", 22,
	    &st) == HTTP_OK && st == 101);
	CHECK(http_resp_status((const uint8_t *)"HTTP/1.0 200 OK\r\n", 17,
	    &st) == HTTP_OK && st == 200);
	CHECK(http_resp_status((const uint8_t *)"HTTP/1.1 100 Continue", 21,
	    &st) == HTTP_OK && st == 100);
	CHECK(http_resp_status((const uint8_t *)"HTTP/1.1 204\r\n", 14, &st) ==
	    HTTP_OK && st == 204);
	return 1;
}

static int
resp_status_needs_more_for_prefix(void)
{
	int st;

	CHECK(http_resp_status((const uint8_t *)"HTTP/1.1 10", 11, &st) ==
	    HTTP_MORE);
	CHECK(http_resp_status((const uint8_t *)"", 0, &st) == HTTP_MORE);
	return 1;
}

static int
resp_status_rejects_non_http1(void)
{
	static const char *const bad[] = {
		"HTTP/2 200 OK", "HTTP/1.1 20x OK", "HTTP/1.1 600 X",
		"HTTP/1.1 099 X", "HTTP/1.1 2000 ", "http/1.1 200 OK",
		"HTTP/1.2 200 OK", "HTTP/1.1  200 "
	};
	size_t i;
	int st;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(http_resp_status((const uint8_t *)bad[i], strlen(bad[i]),
		    &st) == HTTP_E_RESP);
	return 1;
}

static int
parse_resp(const char *head, struct http_resp *r)
{
	return http_parse_resp((const uint8_t *)head, strlen(head), r);
}

static int
resp_framing_by_length_chunked_or_close(void)
{
	struct http_resp r;

	CHECK(parse_resp("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n",
	    &r) == HTTP_OK && r.status == 200 && r.body == HTTP_BODY_LENGTH &&
	    r.body_len == 12 && r.keep_alive);
	CHECK(parse_resp("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n"
	    "\r\n", &r) == HTTP_OK && r.body == HTTP_BODY_CHUNKED &&
	    r.keep_alive);
	CHECK(parse_resp("HTTP/1.1 200 OK\r\nServer: x\r\n\r\n", &r) ==
	    HTTP_OK && r.body == HTTP_BODY_CLOSE);
	/* HTTP/1.0 has no chunked coding: the body runs to the close. */
	CHECK(parse_resp("HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n"
	    "\r\n", &r) == HTTP_OK && r.body == HTTP_BODY_CLOSE &&
	    !r.keep_alive);
	return 1;
}

static int
resp_without_body_by_status(void)
{
	static const char *const none[] = {
		"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
		"HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n"
		    "\r\n",
		"HTTP/1.1 100 Continue\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
	};
	struct http_resp r;

	for (size_t i = 0; i < sizeof(none) / sizeof(none[0]); i++)
		CHECK(parse_resp(none[i], &r) == HTTP_OK &&
		    r.body == HTTP_BODY_NONE);
	return 1;
}

static int
resp_keep_alive_only_in_http11_without_close(void)
{
	struct http_resp r;

	CHECK(parse_resp("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
	    "Connection: keep-alive, close\r\n\r\n", &r) == HTTP_OK &&
	    !r.keep_alive);
	CHECK(parse_resp("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n"
	    "Connection: keep-alive\r\n\r\n", &r) == HTTP_OK &&
	    !r.keep_alive);
	CHECK(parse_resp("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n"
	    "Connection: keep-alive\r\n\r\n", &r) == HTTP_OK &&
	    r.keep_alive);
	return 1;
}

static int
resp_rejects_ambiguous_framing(void)
{
	static const char *const bad[] = {
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n"
		    "Transfer-Encoding: chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 1"
		    "\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1x\r\n\r\n",
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n folded\r\n\r\n",
		"HTTP/1.1 200 OK\nContent-Length: 1\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length : 1\r\n\r\n",
		"HTTP/2 200 OK\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nX",
		"HTTP/1.1 200 OK\r\nContent-Length: 1\r\n",
	};
	struct http_resp r;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_resp(bad[i], &r) != HTTP_OK);
	return 1;
}

static int
error_pages_are_well_framed(void)
{
	static const int codes[] = { 400, 408, 431, 502, 503, 504 };
	const char *p, *body, *cl;
	char want[32];
	size_t i, len;
	int st;

	for (i = 0; i < sizeof(codes) / sizeof(codes[0]); i++) {
		p = http_error_page(codes[i], &len);
		CHECK(p != NULL && len == strlen(p));
		CHECK(http_resp_status((const uint8_t *)p, len, &st) ==
		    HTTP_OK && st == codes[i]);
		CHECK((body = strstr(p, "\r\n\r\n")) != NULL);
		body += 4;
		CHECK((cl = strstr(p, "Content-Length: ")) != NULL);
		snprintf(want, sizeof(want), "%zu\r\n", strlen(body));
		CHECK(strncmp(cl + 16, want, strlen(want)) == 0);
		CHECK(strstr(p, "\r\nConnection: close\r\n") != NULL);
		CHECK(body[strlen(body) - 1] == '\n');
	}
	CHECK(http_error_page(200, &len) == NULL);
	return 1;
}

static int
strerror_names_every_code(void)
{
	int i, j;

	for (i = 0; i < HTTP_E_COUNT; i++) {
		CHECK(strcmp(http_strerror(i), "unknown") != 0);
		for (j = 0; j < i; j++)
			CHECK(strcmp(http_strerror(i), http_strerror(j)) != 0);
	}
	CHECK(strcmp(http_strerror(HTTP_E_COUNT), "unknown") == 0);
	CHECK(strcmp(http_strerror(-1), "unknown") == 0);
	return 1;
}

/*
 * The 308 for head, with own and port; NULL when http_redirect() refuses.
 * The buffer is exactly the head plus the room the header promises.
 */
static char redir_out[9000];

static const char *
redirect_str(const char *head, const char *own, unsigned port)
{
	size_t len = strlen(head), cap = len + 360, n;
	struct http_req req;
	uint8_t *p = heap_copy(head, len);

	p = realloc(p, cap);
	if (p == NULL || http_parse_head(p, len, &req) != HTTP_OK) {
		free(p);
		return "unparsed";
	}
	n = http_redirect(p, cap, &req, own, port);
	if (n > 0)
		memcpy(redir_out, p, n);
	redir_out[n] = '\0';
	free(p);
	return n > 0 ? redir_out : NULL;
}

#define LOCATION(head, own, port, want) do {				\
	const char *r_ = redirect_str(head, own, port);			\
	CHECK(r_ != NULL);						\
	CHECK(strncmp(r_, "HTTP/1.1 308 Permanent Redirect\r\n"		\
	    "Location: " want "\r\nContent-Length: 0\r\n"		\
	    "Connection: close\r\n\r\n", sizeof(redir_out)) == 0);	\
} while (0)

static int
redirect_keeps_host_path_and_query(void)
{
	LOCATION("GET /a/b?c=d HTTP/1.1\r\nHost: dev.example\r\n\r\n",
	    "192.0.2.1", 8443, "https://dev.example:8443/a/b?c=d");
	LOCATION("HEAD / HTTP/1.1\r\nHost: dev.example\r\n\r\n",
	    "192.0.2.1", 443, "https://dev.example/");
	LOCATION("GET /x HTTP/1.1\r\nHost: dev.example:80\r\n\r\n",
	    "192.0.2.1", 443, "https://dev.example/x");
	LOCATION("GET /x HTTP/1.1\r\nHost: 10.0.0.7:8080\r\n\r\n",
	    "192.0.2.1", 443, "https://10.0.0.7/x");
	LOCATION("GET /x HTTP/1.1\r\nHost: [fe80::1]:80\r\n\r\n",
	    "192.0.2.1", 4443, "https://[fe80::1]:4443/x");
	LOCATION("GET /x HTTP/1.1\r\nHost: [::1]\r\n\r\n",
	    "192.0.2.1", 443, "https://[::1]/x");
	return 1;
}

static int
redirect_takes_absolute_form_authority(void)
{
	LOCATION("GET http://other.example:80/p?q HTTP/1.1\r\n"
	    "Host: dev.example\r\n\r\n", "192.0.2.1", 443,
	    "https://other.example/p?q");
	LOCATION("GET http://other.example HTTP/1.1\r\nHost: x\r\n\r\n",
	    "192.0.2.1", 443, "https://other.example/");
	LOCATION("GET http://other.example?q HTTP/1.1\r\nHost: x\r\n\r\n",
	    "192.0.2.1", 443, "https://other.example/?q");
	return 1;
}

static int
redirect_without_host_uses_our_address(void)
{
	LOCATION("GET /x HTTP/1.0\r\n\r\n", "192.0.2.1", 8443,
	    "https://192.0.2.1:8443/x");
	LOCATION("GET /x HTTP/1.0\r\n\r\n", "[2001:db8::5]", 443,
	    "https://[2001:db8::5]/x");
	LOCATION("OPTIONS * HTTP/1.1\r\nHost: dev.example\r\n\r\n",
	    "192.0.2.1", 443, "https://dev.example/");
	return 1;
}

static int
redirect_refuses_hosts_that_are_not_names(void)
{
	static const char *const bad[] = { "a b", "a@b", "a/b", "a:b:80",
	    ":80", "host:", "[::1", "[]", "[::1]x", "[::g]", "a%2eb",
	    "\"x\"", "a\tb" };
	char head[512];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: %s\r\n"
		    "\r\n", bad[i]);
		CHECK(redirect_str(head, "192.0.2.1", 443) == NULL);
	}
	CHECK(redirect_str("GET http://u@h/ HTTP/1.1\r\nHost: h\r\n\r\n",
	    "192.0.2.1", 443) == NULL);
	/* 255 bytes is the longest name; 256 is refused. */
	snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: %0255d\r\n\r\n",
	    0);
	CHECK(redirect_str(head, "192.0.2.1", 443) != NULL);
	snprintf(head, sizeof(head), "GET / HTTP/1.1\r\nHost: %0256d\r\n\r\n",
	    0);
	CHECK(redirect_str(head, "192.0.2.1", 443) == NULL);
	return 1;
}

static int
redirect_fits_longest_head(void)
{
	static char head[8192];
	size_t n;

	/* A target filling the head: the answer still fits in +360. */
	n = (size_t)snprintf(head, sizeof(head), "GET /");
	memset(head + n, 'a', sizeof(head) - 300);
	n += sizeof(head) - 300;
	snprintf(head + n, sizeof(head) - n, " HTTP/1.1\r\nHost: %0255d\r\n"
	    "\r\n", 0);
	CHECK(redirect_str(head, "192.0.2.1", 65535) != NULL);
	CHECK(strlen(redir_out) == 51 + 255 + 6 + 1 + sizeof(head) - 300 +
	    42);
	return 1;
}

static int
rewrite_close_flag_adds_connection_close(void)
{
	const char *head = "GET / HTTP/1.1\r\nHost: h\r\n"
	    "Connection: keep-alive\r\n\r\n";
	struct http_fwd fwd = { HTTP_FWD_CLOSE, "192.0.2.9", 9, 0, NULL, 0, NULL, 0, NULL, NULL, 0 };
	struct http_req req;
	uint8_t buf[256];
	size_t n;

	memcpy(buf, head, strlen(head));
	CHECK(http_parse_head(buf, strlen(head), &req) == HTTP_OK);
	n = http_rewrite_head(buf, strlen(head), sizeof(buf), &req, &fwd);
	CHECK(n > 0);
	CHECK(http_parse_head(buf, n, &req) == HTTP_OK);
	CHECK(!req.keep_alive);
	CHECK(memcmp(buf + n - 21, "Connection: close\r\n\r\n", 21) == 0);
	return 1;
}

static const struct unit_test tests[] = {
	T(head_end_finds_crlfcrlf),
	T(head_end_stops_at_first_of_pipelined_heads),
	T(head_end_needs_more_for_partial_head),
	T(head_end_resumes_byte_by_byte),
	T(head_end_rejects_bare_lf),
	T(head_end_rejects_bare_cr),
	T(head_end_ends_at_empty_first_line),
	T(accepts_simple_get_http11),
	T(accepts_http10_without_host),
	T(reports_offsets_of_method_target_host),
	T(accepts_content_length),
	T(accepts_largest_content_length),
	T(accepts_chunked_any_case_with_ows),
	T(accepts_htab_and_obs_text_in_values),
	T(accepts_empty_field_value),
	T(accepts_asterisk_and_absolute_targets),
	T(accepts_max_fields),
	T(rejects_too_many_fields_with_431),
	T(rejects_content_length_with_transfer_encoding),
	T(rejects_duplicate_content_length_differing),
	T(rejects_duplicate_content_length_identical),
	T(rejects_content_length_not_digits),
	T(rejects_content_length_overflow),
	T(rejects_transfer_encoding_other_than_chunked),
	T(rejects_duplicate_transfer_encoding_headers),
	T(rejects_transfer_encoding_in_http10),
	T(rejects_obs_fold),
	T(rejects_nul_and_controls_anywhere),
	T(rejects_bare_cr_in_head),
	T(rejects_bare_lf_line_terminator),
	T(rejects_whitespace_before_colon),
	T(rejects_empty_field_name),
	T(rejects_field_line_without_colon),
	T(rejects_non_token_field_name),
	T(rejects_non_token_method),
	T(rejects_connect_method),
	T(rejects_request_line_spacing),
	T(rejects_target_outside_visible_ascii),
	T(rejects_versions_other_than_10_11),
	T(rejects_http11_without_exactly_one_host),
	T(rejects_connection_naming_framing_or_forwarding),
	T(rejects_empty_line_before_request_line),
	T(rejects_bytes_after_head_or_missing_end),
	T(keep_alive_http11_by_default),
	T(closes_http11_on_connection_close),
	T(closes_http10_by_default),
	T(keep_alive_http10_on_request),
	T(flags_upgrade_only_with_connection_and_upgrade),
	T(rewrite_drops_spoofed_headers_any_case),
	T(rewrite_sends_client_cert_and_drops_the_clients),
	T(rewrite_sends_client_cert_chain_in_order),
	T(rewrite_drops_connection_close_alone),
	T(rewrite_appends_true_headers_before_final_crlf),
	T(rewrite_keeps_header_order),
	T(rewrite_flags_select_added_headers),
	T(rewrite_moves_following_bytes),
	T(rewrite_output_reparses_with_same_framing),
	T(rewrite_fails_untouched_when_too_small),
	T(rewrite_always_fits_head_max_plus_slack),
	T(rewrite_rejects_implausible_peer),
	T(chunk_walks_body_with_extensions_and_trailers),
	T(chunk_stops_at_body_end_before_next_request),
	T(chunk_split_at_every_byte_boundary),
	T(chunk_accepts_16_hex_digit_size),
	T(chunk_rejects_bad_sizes),
	T(chunk_rejects_more_than_16_hex_digits),
	T(chunk_rejects_bare_lf),
	T(chunk_rejects_bare_cr),
	T(chunk_rejects_controls_in_extensions),
	T(chunk_rejects_oversize_size_line),
	T(chunk_rejects_data_without_crlf),
	T(chunk_rejects_bad_trailers),
	T(chunk_rejects_oversize_trailer),
	T(chunk_error_is_sticky_and_done_is_final),
	T(resp_status_reads_codes),
	T(resp_status_needs_more_for_prefix),
	T(resp_status_rejects_non_http1),
	T(resp_framing_by_length_chunked_or_close),
	T(resp_without_body_by_status),
	T(resp_keep_alive_only_in_http11_without_close),
	T(resp_rejects_ambiguous_framing),
	T(error_pages_are_well_framed),
	T(strerror_names_every_code),
	T(redirect_keeps_host_path_and_query),
	T(redirect_takes_absolute_form_authority),
	T(redirect_without_host_uses_our_address),
	T(redirect_refuses_hosts_that_are_not_names),
	T(redirect_fits_longest_head),
	T(rewrite_close_flag_adds_connection_close),
};

int
main(void)
{
	return unit_run(tests, sizeof(tests) / sizeof(tests[0]));
}
