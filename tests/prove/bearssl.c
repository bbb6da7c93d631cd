/* SPDX-License-Identifier: ISC */
/*
 * make prove: the BearSSL calls the analysed parsers make, as contracts.
 * BearSSL's code is not analysed; what is assumed of it is what the
 * ACSL below states (Eva checks each requires at every call, and the
 * body gives the outputs fully unknown contents).  Its correctness as a
 * cipher or a KDF is BearSSL's own, and not in question here.
 */
#include "__fc_builtin.h"
#include <bearssl.h>

#include "prim.h"

const br_hash_class br_sha256_vtable;

/*@ requires \valid(hc);
    requires salt_len == 0 ||
	\valid_read((const char *)salt + (0 .. salt_len - 1));
    assigns *hc; */
void
br_hkdf_init(br_hkdf_context *hc, const br_hash_class *digest_vtable,
    const void *salt, size_t salt_len)
{
	(void)digest_vtable;
	Frama_C_make_unknown((char *)hc, sizeof(*hc));
}

/*@ requires \valid(hc) && \initialized(hc);
    requires ikm_len == 0 ||
	\valid_read((const char *)ikm + (0 .. ikm_len - 1));
    assigns *hc; */
void
br_hkdf_inject(br_hkdf_context *hc, const void *ikm, size_t ikm_len)
{
	Frama_C_make_unknown((char *)hc, sizeof(*hc));
}

/*@ requires \valid(hc) && \initialized(hc);
    assigns *hc; */
void
br_hkdf_flip(br_hkdf_context *hc)
{
	Frama_C_make_unknown((char *)hc, sizeof(*hc));
}

/*@ requires \valid(hc) && \initialized(hc);
    requires \valid_read((const char *)info + (0 .. info_len - 1));
    requires \valid((char *)out + (0 .. out_len - 1));
    assigns *hc, ((char *)out)[0 .. out_len - 1]; */
size_t
br_hkdf_produce(br_hkdf_context *hc, const void *info, size_t info_len,
    void *out, size_t out_len)
{
	Frama_C_make_unknown((char *)hc, sizeof(*hc));
	Frama_C_make_unknown((char *)out, out_len);
	return out_len;
}


/*@ requires \valid_read((const char *)key + (0 .. 31));
    requires \valid_read((const char *)iv + (0 .. 11));
    requires len == 0 || \valid((char *)data + (0 .. len - 1));
    assigns ((char *)data)[0 .. len - 1]; */
uint32_t
br_chacha20_ct_run(const void *key, const void *iv, uint32_t cc,
    void *data, size_t len)
{
	Frama_C_make_unknown((char *)data, len);
	return cc + (uint32_t)(len / 64);
}

/*@ requires \valid_read((const char *)key + (0 .. 31));
    requires \valid_read((const char *)iv + (0 .. 11));
    requires len == 0 || \valid((char *)data + (0 .. len - 1));
    requires len == 0 || \initialized((char *)data + (0 .. len - 1));
    requires aad_len == 0 ||
	\valid_read((const char *)aad + (0 .. aad_len - 1));
    requires aad_len == 0 ||
	\initialized((const char *)aad + (0 .. aad_len - 1));
    requires \valid((char *)tag + (0 .. 15));
    assigns ((char *)data)[0 .. len - 1], ((char *)tag)[0 .. 15]; */
void
br_poly1305_ctmul_run(const void *key, const void *iv, void *data,
    size_t len, const void *aad, size_t aad_len, void *tag,
    br_chacha20_run ichacha, int encrypt)
{
	(void)ichacha;
	(void)encrypt;
	Frama_C_make_unknown((char *)data, len);
	Frama_C_make_unknown((char *)tag, 16);
}

/*
 * prim.c's choice, as on a CPU without SSE2 or a 64-bit multiply: the
 * portable ChaCha20 and Poly1305 above (prim.c's timing is not analysed).
 */
const struct prim *
prim_get(void)
{
	static struct prim p;

	p.chacha = br_chacha20_ct_run;
	p.poly = br_poly1305_ctmul_run;
	return &p;
}
