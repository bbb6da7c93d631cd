/* SPDX-License-Identifier: ISC */
/*
 * make prove: the request head's end and its parse, and a response's
 * status line and head, on every input of every length up to
 * TLSGATE_HEAD_MAX, the head buffer's size.  http_head_end() resumes
 * from any offset a previous call left.
 */
#include "__fc_builtin.h"
#include "defaults.h"
#include "http.h"

static uint8_t buf[TLSGATE_HEAD_MAX];

int
main(void)
{
	struct http_req req;
	struct http_resp resp;
	size_t len = Frama_C_size_t_interval(0, sizeof(buf));
	size_t at = Frama_C_size_t_interval(0, len);
	int status;

	Frama_C_make_unknown((char *)buf, sizeof(buf));
	(void)http_head_end(buf, len, &at);
	(void)http_resp_status(buf, len, &status);
	(void)http_parse_resp(buf, len, &resp);
	return http_parse_head(buf, len, &req);
}
