/*
 * position.c: line index and LSP position encodings.
 */
#include "position.h"

#include <stdbool.h>
#include <string.h>

#include "base/base.h"

/* ---------------------------------------------------------------------- *
 * Characters
 * ---------------------------------------------------------------------- */

static bool is_cont(unsigned char b) { return (b & 0xC0) == 0x80; }

/* Bytes in the character at p (avail > 0 bytes readable): the length of
 * a well-formed UTF-8 sequence (RFC 3629 table: no overlongs, surrogates
 * or code points past U+10FFFF), else 1 for a byte on its own. */
static uint32_t char_len(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0], lo = 0x80, hi = 0xBF;

	if (c < 0xC2 || c > 0xF4)
		return 1; /* ASCII, continuation, overlong lead, too high */
	if (c < 0xE0)
		return avail >= 2 && is_cont(p[1]) ? 2 : 1;
	if (c == 0xE0)
		lo = 0xA0;
	else if (c == 0xED)
		hi = 0x9F;
	else if (c == 0xF0)
		lo = 0x90;
	else if (c == 0xF4)
		hi = 0x8F;
	if (c < 0xF0)
		return avail >= 3 && p[1] >= lo && p[1] <= hi && is_cont(p[2])
			   ? 3
			   : 1;
	return avail >= 4 && p[1] >= lo && p[1] <= hi && is_cont(p[2]) &&
		       is_cont(p[3])
		   ? 4
		   : 1;
}

/* Code units of a character of clen bytes in the given encoding. */
static uint32_t char_units(uint32_t clen, PosEncoding enc)
{
	switch (enc) {
	case POS_UTF8:
		return clen;
	case POS_UTF16:
		return clen == 4 ? 2 : 1; /* only astral chars need a pair */
	default:
		return 1;
	}
}

/* ---------------------------------------------------------------------- *
 * Line index
 * ---------------------------------------------------------------------- */

/* True when offset s (0 < s <= len) starts a line: the byte before it is
 * "\n", or a "\r" that is not the first half of "\r\n". */
static bool starts_line(const char *text, size_t len, size_t s)
{
	char c = text[s - 1];

	return c == '\n' || (c == '\r' && (s == len || text[s] != '\n'));
}

static void reserve(LineIndex *li, uint32_t need)
{
	uint32_t cap = li->cap ? li->cap : 64;

	if (need <= li->cap)
		return;
	while (cap < need)
		cap = cap > UINT32_MAX / 2 ? need : cap * 2;
	li->starts = xrealloc(li->starts, (size_t)cap * sizeof(uint32_t));
	li->cap = cap;
}

int line_index_build(LineIndex *li, const char *text, size_t len)
{
	size_t i;

	if (len > UINT32_MAX)
		return CASTLS_ELIMIT;
	reserve(li, 1);
	li->starts[0] = 0;
	li->n = 1;
	li->len = (uint32_t)len;
	for (i = 1; i <= len; i++) {
		if (!starts_line(text, len, i))
			continue;
		reserve(li, li->n + 1);
		li->starts[li->n++] = (uint32_t)i;
	}
	return 0;
}

void line_index_free(LineIndex *li)
{
	xfree(li->starts);
	memset(li, 0, sizeof(*li));
}

/* First index whose start is >= x (li->n when none is). */
static uint32_t lower_bound(const LineIndex *li, uint32_t x)
{
	uint32_t lo = 0, hi = li->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (li->starts[mid] < x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/*
 * Whether offset s starts a line depends only on the bytes at s-1 and s.
 * So after the splice, starts below start_byte and starts above
 * old_end_byte (which shift) are unchanged, and only those in
 * [start_byte, new_end_byte] of the new text need a look; offset 0 always
 * starts a line.
 */
int line_index_update(LineIndex *li, const char *new_text, size_t new_len,
		      uint32_t start_byte, uint32_t old_end_byte,
		      uint32_t new_end_byte)
{
	uint32_t lo = start_byte > 0 ? start_byte : 1;
	uint32_t i0, i1, m = 0, tail, k;
	uint64_t s;

	if (new_len > UINT32_MAX)
		return CASTLS_ELIMIT;
	if (li->n == 0 || start_byte > old_end_byte || old_end_byte > li->len ||
	    start_byte > new_end_byte || new_end_byte > new_len ||
	    new_len - new_end_byte != li->len - old_end_byte)
		return CASTLS_EINVAL;
	/* lo <= old_end_byte + 1, so i0 <= i1. */
	i0 = lower_bound(li, lo);
	i1 = old_end_byte == UINT32_MAX ? li->n
					: lower_bound(li, old_end_byte + 1);
	for (s = lo; s <= new_end_byte; s++)
		m += starts_line(new_text, new_len, s);
	tail = li->n - i1;
	reserve(li, i0 + m + tail);
	memmove(li->starts + i0 + m, li->starts + i1,
		(size_t)tail * sizeof(uint32_t));
	for (k = i0 + m; k < i0 + m + tail; k++)
		li->starts[k] = li->starts[k] - old_end_byte + new_end_byte;
	k = i0;
	for (s = lo; s <= new_end_byte; s++)
		if (starts_line(new_text, new_len, s))
			li->starts[k++] = (uint32_t)s;
	li->n = i0 + m + tail;
	li->len = (uint32_t)new_len;
	return 0;
}

uint32_t position_ts_row(const char *text, uint32_t off, uint32_t mark,
			 uint32_t mark_row)
{
	if (off >= mark)
		return mark_row +
		       castls_count_newlines(text + mark, off - mark);
	if (off >= mark / 2)
		return mark_row - castls_count_newlines(text + off, mark - off);
	return castls_count_newlines(text, off);
}

/* ---------------------------------------------------------------------- *
 * Conversions
 * ---------------------------------------------------------------------- */

/* End of line's content: before its "\n", "\r\n" or "\r", or len for the
 * last line. line < li->n. */
static uint32_t line_end(const LineIndex *li, const char *text, size_t len,
			 uint32_t line)
{
	uint32_t e;

	if (line + 1 >= li->n)
		return (uint32_t)len;
	e = li->starts[line + 1] - 1;
	if (text[e] == '\n' && e > li->starts[line] && text[e - 1] == '\r')
		e--;
	return e;
}

uint32_t position_to_byte(const LineIndex *li, const char *text, size_t len,
			  PosEncoding enc, uint32_t line, uint32_t character)
{
	const unsigned char *t = (const unsigned char *)text;
	uint32_t p, e, units = 0;

	if (line >= li->n)
		return (uint32_t)len;
	p = li->starts[line];
	e = line_end(li, text, len, line);
	while (p < e) {
		uint32_t clen = char_len(t + p, e - p);
		uint32_t w = char_units(clen, enc);

		if (units + w > character)
			break; /* character is at or inside this one */
		units += w;
		p += clen;
	}
	return p;
}

void position_from_byte(const LineIndex *li, const char *text, size_t len,
			PosEncoding enc, uint32_t byte, uint32_t *line,
			uint32_t *character)
{
	position_from_byte_marked(li, NULL, text, len, enc, byte, line,
				  character);
}

/* The last mark at or before byte and at or after from, or -1. */
static int64_t mark_before(const PosMarks *m, uint32_t from, uint32_t byte)
{
	uint32_t lo = 0, hi = m->n;

	while (lo < hi) { /* first mark past byte */
		uint32_t mid = lo + (hi - lo) / 2;

		if (m->at[mid] <= byte)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && m->at[lo - 1] >= from ? (int64_t)lo - 1 : -1;
}

void position_from_byte_marked(const LineIndex *li, const PosMarks *m,
			       const char *text, size_t len, PosEncoding enc,
			       uint32_t byte, uint32_t *line,
			       uint32_t *character)
{
	const unsigned char *t = (const unsigned char *)text;
	uint32_t k, p, e, units = 0;
	int64_t mk;

	*line = *character = 0;
	if (li->n == 0)
		return;
	if (byte > len)
		byte = (uint32_t)len;
	/* The last line starting at or before byte. */
	k = lower_bound(li, byte);
	if (k == li->n || li->starts[k] > byte)
		k--;
	p = li->starts[k];
	e = line_end(li, text, len, k);
	if (byte < e)
		e = byte;
	if (m && m->enc == enc && (mk = mark_before(m, p, e)) >= 0) {
		p = m->at[mk];
		units = m->units[mk];
	}
	while (p < e) {
		uint32_t clen = char_len(t + p, len - p);

		if (p + clen > e)
			break; /* byte is inside this character */
		units += char_units(clen, enc);
		p += clen;
	}
	*line = k;
	*character = units;
}

void pos_marks_build(PosMarks *m, const LineIndex *li, const char *text,
		     size_t len, PosEncoding enc)
{
	const unsigned char *t = (const unsigned char *)text;

	m->n = 0;
	m->enc = enc;
	for (uint32_t k = 0; k < li->n; k++) {
		uint32_t p = li->starts[k], e = line_end(li, text, len, k);
		uint32_t units = 0, next = p + POS_MARK_STRIDE;

		if (e - p <= POS_MARK_STRIDE)
			continue;
		/* The same walk as a conversion, so the marks fall where
		 * it would pass. */
		while (p < e) {
			uint32_t clen = char_len(t + p, len - p);

			if (p >= next) {
				if (m->n == m->cap) {
					m->cap = m->cap ? m->cap * 2 : 64;
					m->at = xrealloc(
					    m->at, m->cap * sizeof(*m->at));
					m->units = xrealloc(
					    m->units,
					    m->cap * sizeof(*m->units));
				}
				m->at[m->n] = p;
				m->units[m->n++] = units;
				next = p + POS_MARK_STRIDE;
			}
			if (p + clen > e)
				break;
			units += char_units(clen, enc);
			p += clen;
		}
	}
}

void pos_marks_free(PosMarks *m)
{
	xfree(m->at);
	xfree(m->units);
	memset(m, 0, sizeof(*m));
}
