/* SPDX-License-Identifier: ISC */
/*
 * make prove: the record header's check on any five bytes at any base
 * in ibuf, for any version and protection; and the handshake
 * framing into msg from any record payload up to RP_CIPHER_MAX, at any
 * fill of msg, for any mlen a head() may pass (up to any want bound of
 * at most sizeof(msg) - 4).
 */
#include "__fc_builtin.h"
#include "engint.h"
#include "tlscrypto.h"

static unsigned char ibuf[ENG_IBUF_SIZE];
static unsigned char msg[ENG_MSG_MAX];
static unsigned char rec[RP_CIPHER_MAX];

int
main(void)
{
	size_t base = Frama_C_size_t_interval(0, ENG_IBUF_SIZE - 5);
	size_t n, fill, mlen, want, k;
	unsigned version = Frama_C_unsigned_int_interval(0, TLS13);
	int rd_on = Frama_C_int_interval(0, 1);

	Frama_C_make_unknown((char *)ibuf, sizeof(ibuf));
	(void)rec_header(ibuf + base, version, rd_on, base);

	Frama_C_make_unknown((char *)rec, sizeof(rec));
	n = Frama_C_size_t_interval(0, sizeof(rec));
	/*
	 * One state per fill; then any mlen it leaves unfinished (a whole
	 * message goes to end() and fill back to 0), up to any want.
	 */
	fill = Frama_C_size_t_interval(0, sizeof(msg) - 1);
	//@ split fill;
	want = Frama_C_size_t_interval(fill < 4 ? 0 : fill - 3,
	    sizeof(msg) - 4);
	mlen = Frama_C_size_t_interval(fill < 4 ? 0 : fill - 3, want);
	k = hs_frame(msg, &fill, mlen, rec, n);
	return (int)k;
}
