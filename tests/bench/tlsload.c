/* SPDX-License-Identifier: ISC */
/*
 * tlsload: a TLS load generator on BearSSL, used to reproduce throughput
 * and tail-latency reports against tlsgate and the servers it is compared
 * with.  One process, one thread, one poll() loop, non-blocking sockets.
 *
 * Owns: the connection table (one calloc at start-up, never resized), the
 * latency histograms (fixed arrays), the report.  Never allocates per
 * connection or per sample, never verifies certificates (benchmarks run
 * against self-signed keys; see nv_x509 below), never sends traffic to a
 * non-loopback address unless --allow-remote is given, never resolves names.
 *
 * Latency of a connection is measured from its *scheduled* start: in
 * --rate mode the schedule is a fixed timeline, so a server that stalls
 * makes every connection due during the stall late, even when the
 * connection table is full and the connection could not yet be opened
 * (no coordinated omission).
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <bearssl.h>

#ifndef TL_MAX_CONNS
#define TL_MAX_CONNS	4096
#endif
#define TL_RA_SIZE	4096		/* socket read-ahead per connection */
#define TL_WB_SIZE	1024		/* write gathering per connection */
#define TL_LINE_MAX	256		/* longest HTTP line we keep */
#define TL_HEAD_MAX	65536		/* longest response head we accept */
#define TL_MAX_DURATION	3600.0		/* bounds the per-second arrays */
#define TL_REQ_MAX	1024

/* Log-linear histogram: 64 sub-buckets per power of two, 1 us .. 60 s. */
#define H_SUB		64
#define H_SHIFT_MAX	19
#define H_BUCKETS	(H_SUB * (H_SHIFT_MAX + 2))
#define H_MAX_US	60000000ULL

#define NS		1000000000LL

struct hist {
	uint64_t	n;
	uint64_t	max;
	uint32_t	b[H_BUCKETS];
};

enum err_kind { E_CONNECT, E_TLS, E_TIMEOUT, E_HTTP, E_EOF, E_NKINDS };
static const char *err_name[E_NKINDS] = {
	"connect", "tls", "timeout", "http", "eof"
};

enum conn_state { C_FREE, C_CONNECTING, C_TLS, C_CLOSING };

enum http_state {
	H_IDLE, H_STATUS, H_HEADER, H_BODY_LEN, H_BODY_CLOSE,
	H_CHUNK_SIZE, H_CHUNK_DATA, H_CHUNK_CRLF, H_TRAILER, H_DONE
};

/*
 * "No verification" X.509 engine: decodes the end-entity certificate only
 * to learn the server key (BearSSL needs it for the ECDHE signature) and
 * accepts any chain.  Fine for a load tool that talks to self-signed test
 * keys on loopback; it would be a hole anywhere else.
 */
struct nv_x509 {
	const br_x509_class	*vtable;
	br_x509_decoder_context	 dc;
	unsigned int		 ncert;
};

struct conn {
	br_ssl_client_context	cc;
	struct nv_x509		xc;
	int			fd;
	enum conn_state		st;
	int			want_out;	/* last write hit EAGAIN */
	int			rd_hint;	/* poll said readable */
	int			hs_done;
	int			resume_try;
	int			srv_close;	/* "Connection: close" seen */
	unsigned char		sid[32];
	size_t			sid_len;
	int64_t			t_sched;
	int64_t			t_req;
	int64_t			deadline;
	uint64_t		reqs_done;
	size_t			req_off;	/* request bytes handed over */
	enum http_state		hst;
	int			status;
	int			has_len;
	int			chunked;
	uint64_t		left;
	uint64_t		body_got;
	size_t			head_bytes;
	size_t			line_len;
	char			line[TL_LINE_MAX];
	size_t			wb_len;
	unsigned char		wb[TL_WB_SIZE];
	size_t			ra_off;
	size_t			ra_len;
	unsigned char		ra[TL_RA_SIZE];
	unsigned char		iobuf[BR_SSL_BUFSIZE_BIDI];
};

struct sec_stat {
	uint32_t	conns;
	uint32_t	errors;
	uint32_t	resumed;
	uint32_t	reqs;
};

static struct {
	/* options */
	double		rate;
	unsigned	conns;
	double		duration;
	uint64_t	reqs_per_conn;
	unsigned	reuse_pct;
	uint16_t	suite_list[8];
	size_t		suite_num;	/* 0: BearSSL's full list */
	int		modern;		/* default list: TLS 1.2, SHA-2 */
	const char	*sni;
	int64_t		timeout_ns;
	const char	*csv_path;
	const char	*svg_path;
	const char	*minutes_path;
	const char	*hist_path;
	unsigned	 minute_s;	/* seconds a --minutes row covers */
	long long	body_bytes;
	int		allow_remote;
	int		real_crypto;
	uint32_t	curves;		/* mask of offered ECDHE curves */
	/* target */
	struct sockaddr_storage	addr;
	socklen_t	addrlen;
	char		req[TL_REQ_MAX];
	size_t		req_len;
} opt;

static struct conn	*table;
static int		 free_stack[TL_MAX_CONNS];
static unsigned		 nfree;
static unsigned		 nactive;
static struct pollfd	 pfd[TL_MAX_CONNS];
static unsigned		 pidx[TL_MAX_CONNS];
static br_x509_minimal_context scratch_xc;
static const char	*alpn[] = { "http/1.1" };
static br_ec_impl	 ec_offer;

static br_ssl_session_parameters saved_sess;
static int		 have_saved;
static unsigned		 reuse_acc;

static int64_t		 t0;
static int		 stopping;
static volatile sig_atomic_t got_signal;

static struct {
	uint64_t	started;
	uint64_t	hs_ok;
	uint64_t	resumed;
	uint64_t	resume_try;
	uint64_t	reqs_ok;
	uint64_t	early_close;
	uint64_t	body_bytes;
	uint64_t	err[E_NKINDS];
	int		last_tls_err;
	unsigned	version;
	unsigned	cipher;
	int64_t		t_last;
} st;

static struct hist	 h_conn, h_req, h_lag;
static struct hist	*hs_conn, *hs_req;	/* per second */
/* Per second: scheduled start to the last response byte of a connection. */
static struct hist	*hs_done;
static struct sec_stat	*sec;
static size_t		 nsec;

/* ---------------------------------------------------------------- time */

static int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static size_t
sec_index(int64_t t)
{
	int64_t s;

	s = (t - t0) / NS;
	if (s < 0)
		s = 0;
	if ((size_t)s >= nsec)
		s = (int64_t)nsec - 1;
	return (size_t)s;
}

/* ----------------------------------------------------------- histogram */

static unsigned
hist_index(uint64_t v)
{
	unsigned shift;

	if (v > H_MAX_US)
		v = H_MAX_US;
	if (v < 2 * H_SUB)
		return (unsigned)v;
	shift = 1;
	while ((v >> shift) >= 2 * H_SUB)
		shift++;
	return H_SUB * shift + (unsigned)(v >> shift);
}

/* Highest value that lands in bucket i: percentiles never flatter. */
static uint64_t
hist_upper(unsigned i)
{
	unsigned shift;

	if (i < 2 * H_SUB)
		return i;
	shift = i / H_SUB - 1;
	return (((uint64_t)(i - H_SUB * shift) + 1) << shift) - 1;
}

static void
hist_add(struct hist *h, uint64_t us)
{
	h->b[hist_index(us)]++;
	h->n++;
	if (us > h->max)
		h->max = us;
}

static uint64_t
hist_pct(const struct hist *h, double p)
{
	uint64_t want, cum, v;
	unsigned i;

	if (h->n == 0)
		return 0;
	want = (uint64_t)ceil(p * (double)h->n);
	if (want < 1)
		want = 1;
	cum = 0;
	for (i = 0; i < H_BUCKETS; i++) {
		cum += h->b[i];
		if (cum >= want) {
			v = hist_upper(i);
			return v > h->max ? h->max : v;
		}
	}
	return h->max;
}

static void
record_err(enum err_kind k, int64_t now)
{
	st.err[k]++;
	sec[sec_index(now)].errors++;
}

/* ------------------------------------------------- X.509, no checking */

static void
nv_start_chain(const br_x509_class **ctx, const char *server_name)
{
	struct nv_x509 *xc = (struct nv_x509 *)(void *)ctx;

	(void)server_name;
	xc->ncert = 0;
}

static void
nv_start_cert(const br_x509_class **ctx, uint32_t length)
{
	struct nv_x509 *xc = (struct nv_x509 *)(void *)ctx;

	(void)length;
	if (xc->ncert == 0)
		br_x509_decoder_init(&xc->dc, NULL, NULL);
}

static void
nv_append(const br_x509_class **ctx, const unsigned char *buf, size_t len)
{
	struct nv_x509 *xc = (struct nv_x509 *)(void *)ctx;

	if (xc->ncert == 0)
		br_x509_decoder_push(&xc->dc, buf, len);
}

static void
nv_end_cert(const br_x509_class **ctx)
{
	struct nv_x509 *xc = (struct nv_x509 *)(void *)ctx;

	xc->ncert++;
}

static unsigned
nv_end_chain(const br_x509_class **ctx)
{
	struct nv_x509 *xc = (struct nv_x509 *)(void *)ctx;
	int err;

	if (xc->ncert == 0)
		return BR_ERR_X509_EMPTY_CHAIN;
	err = br_x509_decoder_last_error(&xc->dc);
	if (err != 0)
		return (unsigned)err;
	return 0;
}

static const br_x509_pkey *
nv_get_pkey(const br_x509_class *const *ctx, unsigned *usages)
{
	struct nv_x509 *xc = (struct nv_x509 *)(void *)ctx;

	if (usages != NULL)
		*usages = BR_KEYTYPE_KEYX | BR_KEYTYPE_SIGN;
	return br_x509_decoder_get_pkey(&xc->dc);
}

static const br_x509_class nv_x509_vtable = {
	sizeof(struct nv_x509),
	nv_start_chain, nv_start_cert, nv_append, nv_end_cert, nv_end_chain,
	nv_get_pkey
};

/*
 * With the certificate unchecked, checking the ServerKeyExchange signature
 * proves nothing (anyone can sign with the key they sent), yet an ECDSA
 * P-256 verify is the largest client cost in BearSSL 0.6 (about twice the
 * server's signing cost): accepting it unchecked keeps the tool cheaper
 * than the server it loads.  --real-crypto restores the real check.
 */
static uint32_t
nv_ecdsa_vrfy(const br_ec_impl *impl, const void *hash, size_t hash_len,
    const br_ec_public_key *pk, const void *sig, size_t sig_len)
{
	(void)impl;
	(void)hash;
	(void)hash_len;
	(void)pk;
	(void)sig;
	return sig_len > 0;
}

/*
 * Client ECDHE key, fixed per curve: the first private scalar the engine
 * draws is kept and used for every later connection, so the public point
 * is computed once.  The server's work is unchanged (it still makes its
 * own ephemeral key and multiplies our point); the client saves one point
 * multiplication per handshake.  No forward secrecy, which a benchmark
 * against unauthenticated test keys does not need.  Off with --real-crypto.
 */
#define EK_CURVES	32
#define EK_XMAX		72
#define EK_PMAX		136

static const br_ec_impl	*ek_base;
static unsigned char	 ek_x[EK_CURVES][EK_XMAX];
static size_t		 ek_xlen[EK_CURVES];
static unsigned char	 ek_pub[EK_CURVES][EK_PMAX];
static size_t		 ek_publen[EK_CURVES];

/* Returns the fixed scalar for curve, adopting x if there is none yet. */
static const unsigned char *
ek_scalar(const unsigned char *x, size_t xlen, int curve)
{
	if (curve < 0 || curve >= EK_CURVES || xlen > EK_XMAX)
		return x;
	if (ek_xlen[curve] == 0) {
		memcpy(ek_x[curve], x, xlen);
		ek_xlen[curve] = xlen;
	}
	return ek_xlen[curve] == xlen ? ek_x[curve] : x;
}

static const unsigned char *
ek_generator(int curve, size_t *len)
{
	return ek_base->generator(curve, len);
}

static const unsigned char *
ek_order(int curve, size_t *len)
{
	return ek_base->order(curve, len);
}

static size_t
ek_xoff(int curve, size_t *len)
{
	return ek_base->xoff(curve, len);
}

static size_t
ek_mulgen(unsigned char *R, const unsigned char *x, size_t xlen, int curve)
{
	size_t n;

	x = ek_scalar(x, xlen, curve);
	if (x != ek_x[curve])
		return ek_base->mulgen(R, x, xlen, curve);
	if (ek_publen[curve] == 0) {
		n = ek_base->mulgen(ek_pub[curve], x, xlen, curve);
		if (n == 0 || n > EK_PMAX)
			return ek_base->mulgen(R, x, xlen, curve);
		ek_publen[curve] = n;
	}
	memcpy(R, ek_pub[curve], ek_publen[curve]);
	return ek_publen[curve];
}

static uint32_t
ek_mul(unsigned char *G, size_t Glen, const unsigned char *x, size_t xlen,
    int curve)
{
	const unsigned char *g;
	size_t glen;

	g = ek_base->generator(curve, &glen);
	if (g != NULL && glen == Glen && memcmp(G, g, glen) == 0)
		return ek_mulgen(G, x, xlen, curve) == Glen;
	return ek_base->mul(G, Glen, ek_scalar(x, xlen, curve), xlen, curve);
}

static uint32_t
ek_muladd(unsigned char *A, const unsigned char *B, size_t len,
    const unsigned char *x, size_t xlen, const unsigned char *y, size_t ylen,
    int curve)
{
	return ek_base->muladd(A, B, len, x, xlen, y, ylen, curve);
}

/* ------------------------------------------------------- HTTP response */

static void
http_reset(struct conn *c)
{
	c->hst = H_STATUS;
	c->status = 0;
	c->has_len = 0;
	c->chunked = 0;
	c->left = 0;
	c->body_got = 0;
	c->head_bytes = 0;
	c->line_len = 0;
}

static int
parse_u64(const char *s, int base, uint64_t *out)
{
	uint64_t v;
	int d, n;

	v = 0;
	for (n = 0; ; n++, s++) {
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			break;
		if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
			return -1;
		v = v * (uint64_t)base + (uint64_t)d;
	}
	if (n == 0)
		return -1;
	*out = v;
	return (int)n;
}

static int
header_is(const char *line, size_t len, const char *name, const char **val)
{
	size_t n;

	n = strlen(name);
	if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
		return 0;
	line += n + 1;
	while (*line == ' ' || *line == '\t')
		line++;
	*val = line;
	return 1;
}

static int
has_token(const char *v, const char *tok)
{
	size_t n;

	n = strlen(tok);
	for (; *v != '\0'; v++)
		if (strncasecmp(v, tok, n) == 0)
			return 1;
	return 0;
}

/* One complete line (CR stripped, NUL-terminated) in c->line; -1 is bad. */
static int
http_line(struct conn *c)
{
	const char *v;
	uint64_t n;
	size_t len = c->line_len;

	switch (c->hst) {
	case H_STATUS:
		if (len < 12 || strncmp(c->line, "HTTP/1.", 7) != 0 ||
		    c->line[8] != ' ' || parse_u64(c->line + 9, 10, &n) != 3)
			return -1;
		c->status = (int)n;
		c->hst = H_HEADER;
		return 0;
	case H_HEADER:
		if (len > 0) {
			if (header_is(c->line, len, "content-length", &v)) {
				if (parse_u64(v, 10, &n) < 0 ||
				    (c->has_len && n != c->left))
					return -1;
				c->has_len = 1;
				c->left = n;
			} else if (header_is(c->line, len,
			    "transfer-encoding", &v)) {
				c->chunked = has_token(v, "chunked");
			} else if (header_is(c->line, len, "connection", &v)) {
				if (strncasecmp(v, "close", 5) == 0)
					c->srv_close = 1;
			}
			return 0;
		}
		if (c->status >= 100 && c->status < 200) {
			http_reset(c);		/* interim response */
			return 0;
		}
		if (c->status == 204 || c->status == 304)
			c->hst = H_DONE;
		else if (c->chunked)
			c->hst = H_CHUNK_SIZE;
		else if (c->has_len)
			c->hst = c->left == 0 ? H_DONE : H_BODY_LEN;
		else
			c->hst = H_BODY_CLOSE;
		return 0;
	case H_CHUNK_SIZE:
		if (parse_u64(c->line, 16, &n) < 0 || n > (UINT64_C(1) << 40))
			return -1;
		c->left = n;
		c->hst = n == 0 ? H_TRAILER : H_CHUNK_DATA;
		c->head_bytes = 0;	/* the bound is per run of lines */
		return 0;
	case H_CHUNK_CRLF:
		if (len != 0)
			return -1;
		c->hst = H_CHUNK_SIZE;
		return 0;
	case H_TRAILER:
		if (len == 0)
			c->hst = H_DONE;
		return 0;
	default:
		return -1;
	}
}

/*
 * Feeds decrypted bytes to the response parser; returns how many were
 * used, stops at the end of one response (H_DONE), -1 on a bad response.
 */
static long
http_feed(struct conn *c, const unsigned char *buf, size_t len)
{
	size_t i, n;

	i = 0;
	while (i < len && c->hst != H_DONE) {
		switch (c->hst) {
		case H_IDLE:
			return -1;		/* bytes nobody asked for */
		case H_BODY_LEN:
		case H_CHUNK_DATA:
			n = len - i;
			if (n > c->left)
				n = (size_t)c->left;
			c->left -= n;
			c->body_got += n;
			i += n;
			if (c->left == 0)
				c->hst = c->hst == H_BODY_LEN ?
				    H_DONE : H_CHUNK_CRLF;
			break;
		case H_BODY_CLOSE:
			c->body_got += len - i;
			i = len;
			break;
		default:
			if (++c->head_bytes > TL_HEAD_MAX)
				return -1;
			if (buf[i] != '\n') {
				if (c->line_len < TL_LINE_MAX - 1)
					c->line[c->line_len++] = (char)buf[i];
				i++;
				break;
			}
			i++;
			if (c->line_len > 0 && c->line[c->line_len - 1] == '\r')
				c->line_len--;
			c->line[c->line_len] = '\0';
			if (http_line(c) < 0)
				return -1;
			c->line_len = 0;
			break;
		}
	}
	return (long)i;
}

/* --------------------------------------------------------- connections */

static void
conn_release(struct conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	c->st = C_FREE;
	free_stack[nfree++] = (int)(c - table);
	nactive--;
}

static void
conn_fail(struct conn *c, enum err_kind k)
{
	int e;

	if (k == E_TLS) {
		e = br_ssl_engine_last_error(&c->cc.eng);
		if (e != 0)
			st.last_tls_err = e;
	}
	record_err(k, mono_ns());
	conn_release(c);
}

static void
request_start(struct conn *c, int64_t now)
{
	c->t_req = now;
	c->deadline = now + opt.timeout_ns;
	c->req_off = 0;
	http_reset(c);
}

static void
conn_begin_close(struct conn *c, int64_t now)
{
	c->hst = H_IDLE;
	c->req_off = opt.req_len;
	c->st = C_CLOSING;
	c->deadline = now + opt.timeout_ns;
	br_ssl_engine_close(&c->cc.eng);
}

static void
handshake_done(struct conn *c)
{
	br_ssl_session_parameters p;
	int64_t now;
	size_t s;
	int resumed;

	now = mono_ns();
	c->hs_done = 1;
	br_ssl_engine_get_session_parameters(&c->cc.eng, &p);
	resumed = c->resume_try && c->sid_len > 0 &&
	    p.session_id_len == c->sid_len &&
	    memcmp(p.session_id, c->sid, c->sid_len) == 0;
	if (!resumed && p.session_id_len > 0) {
		saved_sess = p;
		have_saved = 1;
	}
	st.hs_ok++;
	st.version = p.version;
	st.cipher = p.cipher_suite;
	s = sec_index(now);
	sec[s].conns++;
	if (resumed) {
		st.resumed++;
		sec[s].resumed++;
	}
	hist_add(&h_conn, (uint64_t)(now - c->t_sched) / 1000);
	hist_add(&hs_conn[s], (uint64_t)(now - c->t_sched) / 1000);
	if (opt.reqs_per_conn == 0 || stopping)
		conn_begin_close(c, now);
	else
		request_start(c, now);
}

/* One response is complete: next request, or close. */
static void
response_done(struct conn *c, int at_eof)
{
	int64_t now;
	size_t s;
	int bad;

	now = mono_ns();
	c->reqs_done++;
	bad = c->status < 200 || c->status >= 400 ||
	    (opt.body_bytes >= 0 && c->body_got != (uint64_t)opt.body_bytes);
	if (bad) {
		record_err(E_HTTP, now);
	} else {
		st.reqs_ok++;
		st.body_bytes += c->body_got;
		s = sec_index(now);
		sec[s].reqs++;
		hist_add(&h_req, (uint64_t)(now - c->t_req) / 1000);
		hist_add(&hs_req[s], (uint64_t)(now - c->t_req) / 1000);
		if (c->reqs_done == opt.reqs_per_conn)
			hist_add(&hs_done[s], (uint64_t)(now - c->t_sched) /
			    1000);
	}
	if (at_eof || c->srv_close) {
		if (c->reqs_done < opt.reqs_per_conn && !stopping)
			st.early_close++;
		if (at_eof) {
			conn_release(c);
			return;
		}
		conn_begin_close(c, now);
		return;
	}
	if (c->reqs_done < opt.reqs_per_conn && !stopping)
		request_start(c, now);
	else
		conn_begin_close(c, now);
}

/* The peer ended the stream (TCP EOF, reset, or close_notify). */
static void
conn_peer_closed(struct conn *c)
{
	if (c->st == C_CLOSING)
		conn_release(c);
	else if (c->hst == H_BODY_CLOSE)
		response_done(c, 1);
	else
		conn_fail(c, E_EOF);
}

/* Returns bytes sent, 0 if the socket is full, -1 if c was released. */
static ssize_t
conn_send(struct conn *c, const unsigned char *buf, size_t len)
{
	ssize_t n;

	n = send(c->fd, buf, len, MSG_NOSIGNAL);
	if (n >= 0) {
		c->want_out = (size_t)n < len;
		if (c->st == C_CONNECTING)
			c->st = C_TLS;
		return n;
	}
	if (errno == EAGAIN || errno == EWOULDBLOCK) {
		c->want_out = 1;
		return 0;
	}
	if (errno == EINTR)
		return 0;
	if (c->st == C_CLOSING)
		conn_release(c);
	else
		conn_fail(c, c->st == C_CONNECTING ? E_CONNECT : E_EOF);
	return -1;
}

/* Moves bytes between socket, engine and parser until nothing moves. */
static void
conn_pump(struct conn *c)
{
	br_ssl_engine_context *eng = &c->cc.eng;
	unsigned char *buf;
	unsigned state;
	size_t len;
	ssize_t n;
	long used;
	int progress;

	for (;;) {
		state = br_ssl_engine_current_state(eng);
		if (state & BR_SSL_CLOSED) {
			if (br_ssl_engine_last_error(eng) != BR_ERR_OK &&
			    c->st != C_CLOSING)
				conn_fail(c, E_TLS);
			else
				conn_peer_closed(c);
			return;
		}
		if (!c->hs_done &&
		    (state & (BR_SSL_SENDAPP | BR_SSL_RECVAPP))) {
			handshake_done(c);
			continue;
		}
		progress = 0;
		if (state & BR_SSL_SENDREC) {
			buf = br_ssl_engine_sendrec_buf(eng, &len);
			/*
			 * The engine hands out one record at a time: gather a
			 * flight (CKE, CCS, Finished) so it leaves in one send.
			 */
			if (c->wb_len + len <= TL_WB_SIZE) {
				memcpy(c->wb + c->wb_len, buf, len);
				c->wb_len += len;
				br_ssl_engine_sendrec_ack(eng, len);
				continue;
			}
			if (c->wb_len == 0) {
				n = conn_send(c, buf, len);
				if (n < 0)
					return;
				if (n > 0) {
					br_ssl_engine_sendrec_ack(eng,
					    (size_t)n);
					progress = 1;
				}
			}
		}
		if (c->wb_len > 0) {
			n = conn_send(c, c->wb, c->wb_len);
			if (n < 0)
				return;
			if (n > 0) {
				c->wb_len -= (size_t)n;
				memmove(c->wb, c->wb + n, c->wb_len);
				progress = 1;
			}
		}
		if (c->st == C_CLOSING && c->wb_len == 0 &&
		    !(state & BR_SSL_SENDREC)) {
			/* close_notify is out; the peer's is not awaited */
			conn_release(c);
			return;
		}
		if (state & BR_SSL_RECVAPP) {
			buf = br_ssl_engine_recvapp_buf(eng, &len);
			used = c->st == C_CLOSING ? (long)len :
			    http_feed(c, buf, len);
			if (used < 0) {
				conn_fail(c, E_HTTP);
				return;
			}
			br_ssl_engine_recvapp_ack(eng, (size_t)used);
			if (c->hst == H_DONE)
				response_done(c, 0);
			if (c->st == C_FREE)
				return;
			continue;
		}
		if ((state & BR_SSL_SENDAPP) && c->req_off < opt.req_len) {
			buf = br_ssl_engine_sendapp_buf(eng, &len);
			if (len > opt.req_len - c->req_off)
				len = opt.req_len - c->req_off;
			memcpy(buf, opt.req + c->req_off, len);
			br_ssl_engine_sendapp_ack(eng, len);
			c->req_off += len;
			if (c->req_off == opt.req_len)
				br_ssl_engine_flush(eng, 0);
			continue;
		}
		if (state & BR_SSL_RECVREC) {
			buf = br_ssl_engine_recvrec_buf(eng, &len);
			if (c->ra_off < c->ra_len) {
				if (len > c->ra_len - c->ra_off)
					len = c->ra_len - c->ra_off;
				memcpy(buf, c->ra + c->ra_off, len);
				c->ra_off += len;
				br_ssl_engine_recvrec_ack(eng, len);
				continue;
			}
			if (!c->rd_hint)
				goto idle;
			/*
			 * The engine asks for one record header, then one body:
			 * small asks go through the read-ahead so one read()
			 * serves several records.
			 */
			if (len >= TL_RA_SIZE) {
				n = read(c->fd, buf, len);
				if (n > 0)
					br_ssl_engine_recvrec_ack(eng,
					    (size_t)n);
			} else {
				n = read(c->fd, c->ra, TL_RA_SIZE);
				len = TL_RA_SIZE;
				c->ra_off = 0;
				c->ra_len = n > 0 ? (size_t)n : 0;
			}
			if (n == 0 || (n < 0 && errno == ECONNRESET)) {
				conn_peer_closed(c);
				return;
			}
			if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR) {
				conn_fail(c, E_EOF);
				return;
			}
			if (n < 0 || (size_t)n < len)
				c->rd_hint = 0;
			if (n > 0)
				progress = 1;
		}
idle:
		if (!progress)
			return;
	}
}

static void
conn_start(int64_t t_sched, int64_t now)
{
	struct conn *c;
	int fd, one, r;

	st.started++;
	hist_add(&h_lag, (uint64_t)(now - t_sched) / 1000);
#ifdef SOCK_NONBLOCK
	fd = socket(opt.addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK, 0);
#else
	fd = socket(opt.addr.ss_family, SOCK_STREAM, 0);
	if (fd >= 0 && fcntl(fd, F_SETFL, O_NONBLOCK) == -1) {
		close(fd);
		fd = -1;
	}
#endif
	if (fd < 0) {
		record_err(E_CONNECT, now);
		return;
	}
	one = 1;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c = &table[free_stack[--nfree]];
	nactive++;
	c->fd = fd;
	c->t_sched = t_sched;
	c->deadline = t_sched + opt.timeout_ns;
	c->hs_done = 0;
	c->srv_close = 0;
	c->reqs_done = 0;
	c->req_off = opt.req_len;
	c->hst = H_IDLE;
	c->ra_off = c->ra_len = 0;
	c->wb_len = 0;
	c->want_out = 0;
	c->rd_hint = 0;
	c->resume_try = 0;
	c->sid_len = 0;
	reuse_acc += opt.reuse_pct;
	if (reuse_acc >= 100) {
		reuse_acc -= 100;
		if (have_saved) {
			c->resume_try = 1;
			st.resume_try++;
			memcpy(c->sid, saved_sess.session_id,
			    saved_sess.session_id_len);
			c->sid_len = saved_sess.session_id_len;
			br_ssl_engine_set_session_parameters(&c->cc.eng,
			    &saved_sess);
		}
	}
	if (!br_ssl_client_reset(&c->cc, opt.sni, c->resume_try)) {
		conn_fail(c, E_TLS);
		return;
	}
	/*
	 * The ClientHello is tried at once: on loopback the connection is
	 * usually up before connect() returns EINPROGRESS, and a socket still
	 * connecting just says EAGAIN.  The first byte out makes it C_TLS.
	 */
	r = connect(fd, (struct sockaddr *)&opt.addr, opt.addrlen);
	c->st = C_CONNECTING;
	if (r == 0 || errno == EINPROGRESS || errno == EINTR)
		conn_pump(c);
	else
		conn_fail(c, E_CONNECT);
}

static void
conn_event(struct conn *c, short rev)
{
	if (c->st == C_CONNECTING) {
		if (rev & (POLLERR | POLLHUP)) {
			conn_fail(c, E_CONNECT);
			return;
		}
		if (!(rev & POLLOUT))
			return;
	}
	if (rev & (POLLIN | POLLHUP | POLLERR))
		c->rd_hint = 1;
	if (rev & (POLLOUT | POLLERR))
		c->want_out = 0;
	conn_pump(c);
}

/* ---------------------------------------------------------------- loop */

static void
on_signal(int sig)
{
	(void)sig;
	got_signal = 1;
}

static void
run(void)
{
	int64_t now, t_end, wake, ti, step;
	uint64_t sched_total, sched_next, due;
	unsigned i, n;
	struct conn *c;
	short ev;
	int r, timeout_ms, expired;

	t0 = mono_ns();
	t_end = t0 + (int64_t)(opt.duration * (double)NS);
	sched_total = opt.rate > 0 ? (uint64_t)(opt.duration * opt.rate) : 0;
	sched_next = 0;
	for (;;) {
		now = mono_ns();
		if (!stopping && (now >= t_end || got_signal)) {
			stopping = 1;
			if (got_signal)
				sched_total = sched_next;
		}
		wake = stopping ? INT64_MAX : t_end;
		if (opt.rate > 0) {
			due = (uint64_t)((double)(now - t0) * opt.rate / NS) +
			    1;
			if (due > sched_total)
				due = sched_total;
			while (sched_next < due) {
				ti = t0 + (int64_t)((double)sched_next * NS /
				    opt.rate);
				if (now - ti > opt.timeout_ns) {
					/* never got a slot in time */
					record_err(E_TIMEOUT, now);
					sched_next++;
					continue;
				}
				if (nfree == 0) {
					if (ti + opt.timeout_ns < wake)
						wake = ti + opt.timeout_ns;
					break;
				}
				conn_start(ti, now);
				sched_next++;
			}
			if (sched_next == due && sched_next < sched_total) {
				ti = t0 + (int64_t)((double)sched_next * NS /
				    opt.rate);
				if (ti < wake)
					wake = ti;
			}
			if (sched_next >= sched_total && nactive == 0)
				break;
		} else {
			/* bounded: a failing socket() must not spin here */
			for (i = nfree; i > 0 && !stopping; i--)
				conn_start(now, now);
			if (stopping && nactive == 0)
				break;
		}

		n = 0;
		expired = 0;
		for (i = 0; i < opt.conns; i++) {
			c = &table[i];
			if (c->st == C_FREE)
				continue;
			if (now >= c->deadline) {
				if (c->st == C_CLOSING)
					conn_release(c);
				else
					conn_fail(c, E_TIMEOUT);
				expired = 1;
				continue;
			}
			if (c->deadline < wake)
				wake = c->deadline;
			ev = 0;
			if (c->st == C_CONNECTING || c->want_out)
				ev |= POLLOUT;
			if (c->st != C_CONNECTING && !c->rd_hint)
				ev |= POLLIN;
			pfd[n].fd = c->fd;
			pfd[n].events = ev;
			pfd[n].revents = 0;
			pidx[n] = i;
			n++;
		}
		if (n == 0 && wake == INT64_MAX)
			continue;
		/* floor: waking early costs a spin, late skews latency */
		step = wake == INT64_MAX ? NS : wake - mono_ns();
		if (step < 0)
			step = 0;
		if (step > NS)
			step = NS;
		timeout_ms = (int)(step / 1000000);
		/* a slot freed since the top is refilled before sleeping */
		if (expired || (opt.rate <= 0 && !stopping && nfree > 0))
			timeout_ms = 0;
		r = poll(pfd, n, timeout_ms);
		if (r < 0 && errno != EINTR) {
			perror("tlsload: poll");
			exit(1);
		}
		for (i = 0; r > 0 && i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			c = &table[pidx[i]];
			if (c->st != C_FREE && c->fd == pfd[i].fd)
				conn_event(c, pfd[i].revents);
		}
	}
	st.t_last = mono_ns();
}

/* ------------------------------------------------------------ options */

static const struct {
	const char	*name;
	uint16_t	 id;
} suites[] = {
	{ "ECDHE-ECDSA-AES128-GCM-SHA256",
	    BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256 },
	{ "ECDHE-ECDSA-AES256-GCM-SHA384",
	    BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384 },
	{ "ECDHE-ECDSA-CHACHA20-POLY1305",
	    BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256 },
	{ "ECDHE-RSA-AES128-GCM-SHA256",
	    BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 },
	{ "ECDHE-RSA-AES256-GCM-SHA384",
	    BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384 },
	{ "ECDHE-RSA-CHACHA20-POLY1305",
	    BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256 },
	{ "ECDHE-ECDSA-AES128-SHA256",
	    BR_TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256 },
	{ "ECDHE-RSA-AES128-SHA256",
	    BR_TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256 },
	{ "AES128-GCM-SHA256",
	    BR_TLS_RSA_WITH_AES_128_GCM_SHA256 },
};

/*
 * What current clients offer in TLS 1.2, in their order: ECDHE with AEAD.
 * BearSSL's full list (--suite all) costs the client ~0.1 ms more per
 * handshake on the development machine, all of it spent on the list.
 */
static const uint16_t default_suites[] = {
	BR_TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
	BR_TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,
	BR_TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384,
	BR_TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384,
	BR_TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256,
	BR_TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256,
};

static const struct {
	const char	*name;
	uint32_t	 mask;
} curves[] = {
	{ "x25519", (uint32_t)1 << BR_EC_curve25519 },
	{ "p256", (uint32_t)1 << BR_EC_secp256r1 },
	{ "p384", (uint32_t)1 << BR_EC_secp384r1 },
	{ "p521", (uint32_t)1 << BR_EC_secp521r1 },
	{ "all", 0 },
};

static void
usage(void)
{
	fprintf(stderr,
	    "usage: tlsload --url https://HOST:PORT/path [--rate N]\n"
	    "       [--conns C] [--duration S] [--requests-per-conn K]\n"
	    "       [--tls-reuse P] [--suite NAME|0xHHHH|all]\n"
	    "       [--curve x25519|p256|p384|p521|all] [--sni NAME]\n"
	    "       [--timeout S] [--body-bytes N] [--csv FILE] [--svg FILE]\n"
	    "       [--minutes FILE] [--minute S] [--hist FILE]\n"
	    "       [--real-crypto] [--allow-remote]\n"
	    "HOST is an IPv4 literal or [IPv6]; loopback only unless"
	    " --allow-remote.\n");
	exit(2);
}

static void
bad(const char *what, const char *val)
{
	fprintf(stderr, "tlsload: bad %s: '%s'\n", what, val);
	exit(2);
}

static double
num(const char *what, const char *s, double lo, double hi)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno != 0 || end == s || *end != '\0' || !(v >= lo && v <= hi))
		bad(what, s);
	return v;
}

static int
is_loopback(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *s4;
	const struct sockaddr_in6 *s6;

	if (ss->ss_family == AF_INET) {
		s4 = (const struct sockaddr_in *)(const void *)ss;
		return (ntohl(s4->sin_addr.s_addr) >> 24) == 127;
	}
	s6 = (const struct sockaddr_in6 *)(const void *)ss;
	return memcmp(&s6->sin6_addr, &in6addr_loopback,
	    sizeof(in6addr_loopback)) == 0;
}

static void
parse_url(const char *url)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)(void *)&opt.addr;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)(void *)&opt.addr;
	char host[64];
	const char *p, *hend, *path, *authority;
	size_t hlen, alen;
	unsigned long port;
	char *end;
	int r;

	if (strncmp(url, "https://", 8) != 0)
		bad("url (want https://)", url);
	authority = p = url + 8;
	if (*p == '[') {
		hend = strchr(p, ']');
		if (hend == NULL)
			bad("url", url);
		p++;
		hlen = (size_t)(hend - p);
		hend++;
	} else {
		hend = p + strcspn(p, ":/");
		hlen = (size_t)(hend - p);
	}
	if (hlen == 0 || hlen >= sizeof(host))
		bad("url host", url);
	memcpy(host, p, hlen);
	host[hlen] = '\0';
	port = 443;
	path = hend;
	if (*hend == ':') {
		errno = 0;
		port = strtoul(hend + 1, &end, 10);
		if (errno != 0 || end == hend + 1 || port == 0 || port > 65535)
			bad("url port", url);
		path = end;
	}
	if (*path != '\0' && *path != '/')
		bad("url", url);
	alen = (size_t)(path - authority);
	if (*path == '\0')
		path = "/";
	memset(&opt.addr, 0, sizeof(opt.addr));
	if (inet_pton(AF_INET, host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		opt.addrlen = sizeof(*s4);
	} else if (inet_pton(AF_INET6, host, &s6->sin6_addr) == 1 &&
	    authority[0] == '[') {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		opt.addrlen = sizeof(*s6);
	} else {
		bad("url host (IPv4 literal or [IPv6] only)", url);
	}
	if (!opt.allow_remote && !is_loopback(&opt.addr))
		bad("url host (not loopback; see --allow-remote)", url);
	r = snprintf(opt.req, sizeof(opt.req),
	    "GET %s HTTP/1.1\r\nHost: %.*s\r\nUser-Agent: tlsload\r\n\r\n",
	    path, (int)alen, authority);
	if (r < 0 || (size_t)r >= sizeof(opt.req))
		bad("url (too long)", url);
	opt.req_len = (size_t)r;
}

static void
parse_suite(const char *s)
{
	size_t i;

	opt.suite_num = 1;
	opt.modern = 0;
	if (strcasecmp(s, "all") == 0) {
		opt.suite_num = 0;
		return;
	}
	for (i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
		if (strcasecmp(s, suites[i].name) == 0) {
			opt.suite_list[0] = suites[i].id;
			return;
		}
	}
	if (strncmp(s, "0x", 2) == 0 || strncmp(s, "0X", 2) == 0)
		opt.suite_list[0] = (uint16_t)num("suite", s, 1, 0xffff);
	else
		bad("suite", s);
}

static void
parse_curve(const char *s)
{
	size_t i;

	for (i = 0; i < sizeof(curves) / sizeof(curves[0]); i++) {
		if (strcasecmp(s, curves[i].name) == 0) {
			opt.curves = curves[i].mask;
			return;
		}
	}
	bad("curve", s);
}

static void
parse_args(int argc, char **argv)
{
	const char *url = NULL, *name, *val;
	int i, have_conns = 0;

	opt.duration = 10;
	opt.reqs_per_conn = 1;
	opt.timeout_ns = 10 * NS;
	opt.minute_s = 60;
	opt.body_bytes = -1;
	opt.conns = 10;
	memcpy(opt.suite_list, default_suites, sizeof(default_suites));
	opt.suite_num = sizeof(default_suites) / sizeof(default_suites[0]);
	opt.modern = 1;
	for (i = 1; i < argc; i++) {
		name = argv[i];
		if (strcmp(name, "--allow-remote") == 0) {
			opt.allow_remote = 1;
			continue;
		}
		if (strcmp(name, "--real-crypto") == 0) {
			opt.real_crypto = 1;
			continue;
		}
		if (strcmp(name, "--help") == 0 || i + 1 >= argc)
			usage();
		val = argv[++i];
		if (strcmp(name, "--url") == 0)
			url = val;
		else if (strcmp(name, "--rate") == 0)
			opt.rate = num(name, val, 0.001, 1e6);
		else if (strcmp(name, "--conns") == 0) {
			opt.conns = (unsigned)num(name, val, 1, TL_MAX_CONNS);
			have_conns = 1;
		} else if (strcmp(name, "--duration") == 0)
			opt.duration = num(name, val, 0.001, TL_MAX_DURATION);
		else if (strcmp(name, "--requests-per-conn") == 0)
			opt.reqs_per_conn = (uint64_t)num(name, val, 0, 1e12);
		else if (strcmp(name, "--tls-reuse") == 0)
			opt.reuse_pct = (unsigned)num(name, val, 0, 100);
		else if (strcmp(name, "--suite") == 0)
			parse_suite(val);
		else if (strcmp(name, "--curve") == 0)
			parse_curve(val);
		else if (strcmp(name, "--sni") == 0)
			opt.sni = val;
		else if (strcmp(name, "--timeout") == 0)
			opt.timeout_ns = (int64_t)(num(name, val, 0.001, 600) *
			    (double)NS);
		else if (strcmp(name, "--body-bytes") == 0)
			opt.body_bytes = (long long)num(name, val, 0, 1e15);
		else if (strcmp(name, "--csv") == 0)
			opt.csv_path = val;
		else if (strcmp(name, "--svg") == 0)
			opt.svg_path = val;
		else if (strcmp(name, "--minutes") == 0)
			opt.minutes_path = val;
		else if (strcmp(name, "--hist") == 0)
			opt.hist_path = val;
		else if (strcmp(name, "--minute") == 0)
			opt.minute_s = (unsigned)num(name, val, 1, 3600);
		else
			usage();
	}
	if (url == NULL)
		usage();
	parse_url(url);
	/* with --rate, --conns only bounds concurrency: make room for stalls */
	if (opt.rate > 0 && !have_conns)
		opt.conns = TL_MAX_CONNS < 1024 ? TL_MAX_CONNS : 1024;
}

/* ------------------------------------------------------------- report */

static const double pcts[] = { 0.50, 0.75, 0.95, 0.99, 0.999 };
static const char *pct_name[] = { "p50", "p75", "p95", "p99", "p999" };

static void
print_hist(const char *prefix, const struct hist *h)
{
	size_t i;

	for (i = 0; i < 5; i++)
		printf("%s_%s_ms=%.3f\n", prefix, pct_name[i],
		    (double)hist_pct(h, pcts[i]) / 1000.0);
	printf("%s_max_ms=%.3f\n", prefix, (double)h->max / 1000.0);
}

static size_t
used_seconds(void)
{
	size_t n;

	n = sec_index(st.t_last) + 1;
	return n < nsec ? n : nsec;
}

static int
write_csv(const char *path)
{
	FILE *f;
	size_t s, i;

	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "second,count,errors,resumed,p50,p75,p95,p99,p999,max");
	if (opt.reqs_per_conn > 0)
		fprintf(f, ",requests,req_p50,req_p99,req_p999,req_max");
	fprintf(f, "\n");
	for (s = 0; s < used_seconds(); s++) {
		fprintf(f, "%zu,%u,%u,%u", s, sec[s].conns, sec[s].errors,
		    sec[s].resumed);
		for (i = 0; i < 5; i++)
			fprintf(f, ",%.3f",
			    (double)hist_pct(&hs_conn[s], pcts[i]) / 1000.0);
		fprintf(f, ",%.3f", (double)hs_conn[s].max / 1000.0);
		if (opt.reqs_per_conn > 0)
			fprintf(f, ",%u,%.3f,%.3f,%.3f,%.3f", sec[s].reqs,
			    (double)hist_pct(&hs_req[s], 0.50) / 1000.0,
			    (double)hist_pct(&hs_req[s], 0.99) / 1000.0,
			    (double)hist_pct(&hs_req[s], 0.999) / 1000.0,
			    (double)hs_req[s].max / 1000.0);
		fprintf(f, "\n");
	}
	return fclose(f) == 0 ? 0 : -1;
}

/*
 * Connections complete from their scheduled start: at the last response
 * byte with requests, else at the end of the handshake.  The seconds
 * [s0, s1) merged into m.
 */
static unsigned
merge_seconds(struct hist *m, size_t s0, size_t s1)
{
	const struct hist *hh = opt.reqs_per_conn > 0 ? hs_done : hs_conn;
	unsigned errs = 0;

	memset(m, 0, sizeof(*m));
	for (size_t t = s0; t < s1; t++) {
		for (size_t i = 0; i < H_BUCKETS; i++)
			m->b[i] += hh[t].b[i];
		m->n += hh[t].n;
		if (hh[t].max > m->max)
			m->max = hh[t].max;
		errs += sec[t].errors;
	}
	return errs;
}

/* One row a minute: the percentiles of the whole minute. */
static int
write_minutes(const char *path)
{
	static struct hist m;
	size_t s, n = used_seconds();
	FILE *f;

	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "minute,count,errors,p50,p99,p999,max\n");
	for (s = 0; s < n; s += opt.minute_s) {
		unsigned errs = merge_seconds(&m, s, s + opt.minute_s < n ?
		    s + opt.minute_s : n);

		fprintf(f, "%zu,%llu,%u,%.3f,%.3f,%.3f,%.3f\n", s / opt.minute_s,
		    (unsigned long long)m.n, errs,
		    (double)hist_pct(&m, 0.50) / 1000.0,
		    (double)hist_pct(&m, 0.99) / 1000.0,
		    (double)hist_pct(&m, 0.999) / 1000.0,
		    (double)m.max / 1000.0);
	}
	return fclose(f) == 0 ? 0 : -1;
}

/*
 * Each second's histogram of the same latency, a row per non-empty
 * bucket (its highest value), so that any set of seconds, of this run or
 * of several, can be merged exactly.
 */
static int
write_hist(const char *path)
{
	static struct hist m;
	size_t n = used_seconds();
	FILE *f;

	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "second,upper_us,count\n");
	for (size_t s = 0; s < n; s++) {
		(void)merge_seconds(&m, s, s + 1);
		for (unsigned i = 0; i < H_BUCKETS; i++)
			if (m.b[i] != 0)
				fprintf(f, "%zu,%llu,%u\n", s,
				    (unsigned long long)(hist_upper(i) > m.max ?
				    m.max : hist_upper(i)), m.b[i]);
	}
	return fclose(f) == 0 ? 0 : -1;
}

static double
nice_step(double range)
{
	double raw, mag, norm;

	raw = range / 5;
	if (raw <= 0)
		return 1;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	if (norm < 1.5)
		return mag;
	if (norm < 3.5)
		return 2 * mag;
	if (norm < 7.5)
		return 5 * mag;
	return 10 * mag;
}

/*
 * Plots p50/p99/p99.9 per second of request latency when requests are
 * made, else of connection latency.
 */
static int
write_svg(const char *path)
{
	static const char *color[] = { "#1f77b4", "#ff7f0e", "#d62728" };
	static const double sp[] = { 0.50, 0.99, 0.999 };
	static const char *label[] = { "p50", "p99", "p99.9" };
	const double W = 800, H = 420, L = 70, R = 120, T = 40, B = 50;
	const struct hist *hh;
	double xmax, ymax, ystep, xstep, v, x, y;
	size_t ns, s, k;
	FILE *f;

	hh = opt.reqs_per_conn > 0 ? hs_req : hs_conn;
	ns = used_seconds();
	ymax = 0;
	for (s = 0; s < ns; s++) {
		v = (double)hist_pct(&hh[s], 0.999) / 1000.0;
		if (v > ymax)
			ymax = v;
	}
	ystep = nice_step(ymax > 0 ? ymax : 1);
	ymax = ceil((ymax > 0 ? ymax : 1) / ystep) * ystep;
	xmax = ns > 1 ? (double)ns : 1;
	xstep = nice_step(xmax);
	f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\""
	    " height=\"%.0f\" font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n", W, H);
	fprintf(f, "<text x=\"%.0f\" y=\"20\" text-anchor=\"middle\""
	    " font-size=\"14\">tlsload: %s latency per second</text>\n",
	    (L + W - R) / 2, opt.reqs_per_conn > 0 ? "request" : "connection");
	for (v = 0; v <= ymax + ystep / 2; v += ystep) {
		y = H - B - v / ymax * (H - T - B);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\""
		    " x2=\"%.1f\" y2=\"%.1f\""
		    " stroke=\"#ddd\"/>\n<text x=\"%.1f\" y=\"%.1f\""
		    " text-anchor=\"end\">%g</text>\n",
		    L, y, W - R, y, L - 6, y + 4, v);
	}
	for (v = 0; v <= xmax + xstep / 2; v += xstep) {
		x = L + v / xmax * (W - L - R);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\""
		    " x2=\"%.1f\" y2=\"%.1f\""
		    " stroke=\"#000\"/>\n<text x=\"%.1f\" y=\"%.1f\""
		    " text-anchor=\"middle\">%g</text>\n",
		    x, H - B, x, H - B + 5, x, H - B + 18, v);
	}
	fprintf(f, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\""
	    " stroke=\"#000\"/>\n<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\""
	    " y2=\"%.0f\" stroke=\"#000\"/>\n",
	    L, H - B, W - R, H - B, L, T, L, H - B);
	fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
	    "time (s)</text>\n", (L + W - R) / 2, H - 12);
	fprintf(f, "<text transform=\"translate(18 %.0f) rotate(-90)\""
	    " text-anchor=\"middle\">latency (ms)</text>\n", (T + H - B) / 2);
	for (k = 0; k < 3; k++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\""
		    " stroke-width=\"1.5\" points=\"", color[k]);
		for (s = 0; s < ns; s++) {
			if (hh[s].n == 0)
				continue;
			x = L + ((double)s + 0.5) / xmax * (W - L - R);
			y = H - B - (double)hist_pct(&hh[s], sp[k]) / 1000.0 /
			    ymax * (H - T - B);
			fprintf(f, "%.1f,%.1f ", x, y);
		}
		fprintf(f, "\"/>\n");
		y = T + 10 + 20 * (double)k;
		fprintf(f, "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.0f\""
		    " y2=\"%.1f\" stroke=\"%s\" stroke-width=\"3\"/>\n"
		    "<text x=\"%.0f\" y=\"%.1f\">%s</text>\n",
		    W - R + 10, y, W - R + 35, y, color[k], W - R + 40, y + 4,
		    label[k]);
	}
	fprintf(f, "</svg>\n");
	return fclose(f) == 0 ? 0 : -1;
}

static void
report(void)
{
	struct rusage ru;
	double el, cpu, nerr;
	size_t k;

	getrusage(RUSAGE_SELF, &ru);
	cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	el = (double)(st.t_last - t0) / (double)NS;
	if (el <= 0)
		el = 1e-9;
	nerr = 0;
	for (k = 0; k < E_NKINDS; k++)
		nerr += (double)st.err[k];
	printf("tlsload: %.2f s, %llu conns (%.1f/s, %llu resumed),"
	    " %llu requests (%.1f/s), %.0f errors, conn p50 %.2f ms"
	    " p99 %.2f ms, req p50 %.2f ms p99 %.2f ms, cpu %.1f us/conn\n",
	    el, (unsigned long long)st.hs_ok, (double)st.hs_ok / el,
	    (unsigned long long)st.resumed, (unsigned long long)st.reqs_ok,
	    (double)st.reqs_ok / el, nerr,
	    (double)hist_pct(&h_conn, 0.5) / 1000.0,
	    (double)hist_pct(&h_conn, 0.99) / 1000.0,
	    (double)hist_pct(&h_req, 0.5) / 1000.0,
	    (double)hist_pct(&h_req, 0.99) / 1000.0,
	    st.hs_ok ? cpu * 1e6 / (double)st.hs_ok : 0.0);
	printf("mode=%s\nelapsed_s=%.3f\nstarted=%llu\nconns=%llu\n"
	    "conns_per_s=%.1f\nrequests=%llu\nrequests_per_s=%.1f\n"
	    "resume_tried=%llu\nresumed=%llu\nearly_close=%llu\n"
	    "body_bytes=%llu\n",
	    opt.rate > 0 ? "rate" : "conns", el,
	    (unsigned long long)st.started, (unsigned long long)st.hs_ok,
	    (double)st.hs_ok / el, (unsigned long long)st.reqs_ok,
	    (double)st.reqs_ok / el, (unsigned long long)st.resume_try,
	    (unsigned long long)st.resumed,
	    (unsigned long long)st.early_close,
	    (unsigned long long)st.body_bytes);
	for (k = 0; k < E_NKINDS; k++)
		printf("errors_%s=%llu\n", err_name[k],
		    (unsigned long long)st.err[k]);
	printf("errors=%.0f\ntls_last_error=%d\nversion=0x%04x\nsuite=0x%04x\n"
	    "real_crypto=%d\n", nerr, st.last_tls_err, st.version, st.cipher,
	    opt.real_crypto);
	print_hist("conn", &h_conn);
	print_hist("req", &h_req);
	printf("start_lag_p99_ms=%.3f\nstart_lag_max_ms=%.3f\n",
	    (double)hist_pct(&h_lag, 0.99) / 1000.0,
	    (double)h_lag.max / 1000.0);
	printf("cpu_s=%.3f\ncpu_util=%.3f\ncpu_us_per_conn=%.1f\n"
	    "cpu_us_per_req=%.1f\n", cpu, cpu / el,
	    st.hs_ok ? cpu * 1e6 / (double)st.hs_ok : 0.0,
	    st.reqs_ok ? cpu * 1e6 / (double)st.reqs_ok : 0.0);
}

/* The only allocations: the table and the per-second arrays, once. */
static int
setup(void)
{
	struct conn *c;
	unsigned i;

	nsec = (size_t)ceil(opt.duration + (double)opt.timeout_ns / NS) + 2;
	table = calloc(opt.conns, sizeof(*table));
	hs_conn = calloc(nsec, sizeof(*hs_conn));
	hs_req = calloc(nsec, sizeof(*hs_req));
	hs_done = calloc(nsec, sizeof(*hs_done));
	sec = calloc(nsec, sizeof(*sec));
	if (table == NULL || hs_conn == NULL || hs_req == NULL ||
	    hs_done == NULL || sec == NULL)
		return -1;
	ek_base = br_ec_get_default();
	ec_offer = *ek_base;
	if (!opt.real_crypto) {
		ec_offer.generator = ek_generator;
		ec_offer.order = ek_order;
		ec_offer.xoff = ek_xoff;
		ec_offer.mul = ek_mul;
		ec_offer.mulgen = ek_mulgen;
		ec_offer.muladd = ek_muladd;
	}
	/*
	 * --curve narrows the offered ECDHE curves (BearSSL offers them in id
	 * order, so P-256 comes before X25519).  Only the offer changes: the
	 * implementation still computes on every curve, so signatures verify.
	 * In TLS 1.2 the offer also bounds the server's ECDSA key curve.
	 */
	if (opt.curves != 0)
		ec_offer.supported_curves &= opt.curves;
	for (i = 0; i < opt.conns; i++) {
		c = &table[i];
		br_ssl_client_init_full(&c->cc, &scratch_xc, NULL, 0);
		c->xc.vtable = &nv_x509_vtable;
		br_ssl_engine_set_x509(&c->cc.eng, &c->xc.vtable);
		br_ssl_engine_set_protocol_names(&c->cc.eng, alpn, 1);
		br_ssl_engine_set_ec(&c->cc.eng, &ec_offer);
		if (!opt.real_crypto)
			br_ssl_engine_set_ecdsa(&c->cc.eng, nv_ecdsa_vrfy);
		br_ssl_engine_set_buffer(&c->cc.eng, c->iobuf,
		    sizeof(c->iobuf), 1);
		if (opt.suite_num > 0)
			br_ssl_engine_set_suites(&c->cc.eng, opt.suite_list,
			    opt.suite_num);
		/*
		 * The engine hashes the transcript with every hash it has;
		 * the default suites are TLS 1.2 with SHA-256/384 only.
		 */
		if (opt.modern) {
			br_ssl_engine_set_versions(&c->cc.eng, BR_TLS12,
			    BR_TLS12);
			br_ssl_engine_set_hash(&c->cc.eng, br_md5_ID, NULL);
			br_ssl_engine_set_hash(&c->cc.eng, br_sha1_ID, NULL);
			br_ssl_engine_set_hash(&c->cc.eng, br_sha224_ID, NULL);
			br_ssl_engine_set_hash(&c->cc.eng, br_sha512_ID, NULL);
		}
		c->fd = -1;
		free_stack[nfree++] = (int)(opt.conns - 1 - i);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	struct rlimit rl;
	int rc = 0;

	parse_args(argc, argv);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur < opt.conns + 16) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (setup() < 0) {
		fprintf(stderr, "tlsload: out of memory for %u conns\n",
		    opt.conns);
		return 1;
	}
	run();
	report();
	if (opt.csv_path != NULL && write_csv(opt.csv_path) < 0) {
		fprintf(stderr, "tlsload: cannot write %s\n", opt.csv_path);
		rc = 1;
	}
	if (opt.minutes_path != NULL && write_minutes(opt.minutes_path) < 0) {
		fprintf(stderr, "tlsload: cannot write %s\n", opt.minutes_path);
		rc = 1;
	}
	if (opt.hist_path != NULL && write_hist(opt.hist_path) < 0) {
		fprintf(stderr, "tlsload: cannot write %s\n", opt.hist_path);
		rc = 1;
	}
	if (opt.svg_path != NULL && write_svg(opt.svg_path) < 0) {
		fprintf(stderr, "tlsload: cannot write %s\n", opt.svg_path);
		rc = 1;
	}
	return rc;
}
