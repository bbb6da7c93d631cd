/*
 * tlswire.c - see tlswire.h.
 */
#include <string.h>

#include "tlswire.h"

size_t
tw_get16(const unsigned char *p)
{
	return (size_t)p[0] << 8 | p[1];
}

size_t
tw_get24(const unsigned char *p)
{
	return (size_t)p[0] << 16 | tw_get16(p + 1);
}

void
tw_init(struct tw *w, unsigned char *b, size_t cap)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	w->cap = cap;
}

/* The low width bytes of v, big-endian. */
static void
be(struct tw *w, size_t v, int width)
{
	if (w->err || w->cap - w->n < (size_t)width) {
		w->err = 1;
		return;
	}
	for (int i = width - 1; i >= 0; i--)
		w->b[w->n++] = (unsigned char)(v >> (8 * i));
}

void
tw_u8(struct tw *w, unsigned v)
{
	be(w, v, 1);
}

void
tw_u16(struct tw *w, unsigned v)
{
	be(w, v, 2);
}

void
tw_u24(struct tw *w, size_t v)
{
	be(w, v, 3);
}

void
tw_put(struct tw *w, const void *p, size_t n)
{
	if (w->err || w->cap - w->n < n) {
		w->err = 1;
		return;
	}
	memmove(w->b + w->n, p, n);
	w->n += n;
}

void
tw_open(struct tw *w, int width)
{
	if (w->depth == (int)(sizeof(w->open) / sizeof(w->open[0])))
		w->err = 1;
	if (w->err)
		return;
	w->open[w->depth] = w->n;
	w->width[w->depth++] = width;
	be(w, 0, width);
}

void
tw_close(struct tw *w)
{
	size_t at, len, n;
	int width;

	if (w->depth == 0)
		w->err = 1;
	if (w->err)
		return;
	at = w->open[--w->depth];
	width = w->width[w->depth];
	len = w->n - at - (size_t)width;
	if (width < 3 && len >> (8 * width) != 0) {
		w->err = 1;
		return;
	}
	n = w->n;
	w->n = at;
	be(w, len, width);
	w->n = n;
}

void
tw_msg(struct tw *w, unsigned type)
{
	tw_u8(w, type);
	tw_open(w, 3);
}

size_t
tw_len(const struct tw *w)
{
	return w->err || w->depth != 0 ? 0 : w->n;
}
