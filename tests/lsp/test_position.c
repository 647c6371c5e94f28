/*
 * test_position.c: line index, position encodings, incremental updates.
 */
#include "test.h"

#include "base/base.h"
#include "lsp/position.h"

/* A built index over a NUL-terminated test string. */
typedef struct {
	const char *text;
	size_t len;
	LineIndex li;
} Doc;

static Doc doc(const char *text)
{
	Doc d = {text, strlen(text), {0}};

	line_index_build(&d.li, text, d.len);
	return d;
}

static uint32_t to_byte(const Doc *d, PosEncoding enc, uint32_t line,
			uint32_t character)
{
	return position_to_byte(&d->li, d->text, d->len, enc, line, character);
}

/* Position of byte as "line:character", in a static buffer. */
static const char *from_byte(const Doc *d, PosEncoding enc, uint32_t byte)
{
	static char out[32];
	uint32_t line, character;

	position_from_byte(&d->li, d->text, d->len, enc, byte, &line,
			   &character);
	snprintf(out, sizeof(out), "%u:%u", line, character);
	return out;
}

/* ---------------------------------------------------------------------- *
 * Line index
 * ---------------------------------------------------------------------- */

TEST(line_starts_for_every_line_break)
{
	/* Lines: "a", "b", "c", "", "d", "" */
	Doc d = doc("a\r\nb\rc\n\rd\n");
	static const uint32_t want[] = {0, 3, 5, 7, 8, 10};
	uint32_t i;

	ASSERT_INT_EQ(d.li.n, 6);
	for (i = 0; i < d.li.n; i++)
		EXPECT_INT_EQ(d.li.starts[i], want[i]);
	EXPECT_INT_EQ(d.li.len, 10);
	line_index_free(&d.li);

	d = doc("");
	EXPECT_INT_EQ(d.li.n, 1);
	EXPECT_INT_EQ(d.li.starts[0], 0);
	line_index_free(&d.li);

	d = doc("\r");
	EXPECT_INT_EQ(d.li.n, 2);
	EXPECT_INT_EQ(d.li.starts[1], 1);
	/* Rebuilding reuses the memory. */
	EXPECT_INT_EQ(line_index_build(&d.li, "x\r\n\r\n", 5), 0);
	EXPECT_INT_EQ(d.li.n, 3);
	EXPECT_INT_EQ(d.li.starts[2], 5);
	line_index_free(&d.li);
	line_index_free(&d.li); /* a zeroed index is fine */
}

/* ---------------------------------------------------------------------- *
 * Conversions
 * ---------------------------------------------------------------------- */

TEST(ascii)
{
	Doc d = doc("hello\nworld");
	PosEncoding e;

	for (e = POS_UTF8; e <= POS_UTF32; e++) {
		EXPECT_INT_EQ(to_byte(&d, e, 0, 0), 0);
		EXPECT_INT_EQ(to_byte(&d, e, 0, 5), 5);
		EXPECT_INT_EQ(to_byte(&d, e, 1, 3), 9);
		EXPECT_INT_EQ(to_byte(&d, e, 1, 5), 11);
		EXPECT_STR_EQ(from_byte(&d, e, 9), "1:3");
		EXPECT_STR_EQ(from_byte(&d, e, 5), "0:5");
		EXPECT_STR_EQ(from_byte(&d, e, 6), "1:0");
		EXPECT_STR_EQ(from_byte(&d, e, 11), "1:5");
	}
	line_index_free(&d.li);
}

TEST(multibyte_utf8)
{
	/* a=0, é=1..3, 中=3..6, b=6 */
	Doc d = doc("a\xc3\xa9\xe4\xb8\xad" "b");

	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 2), 3);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 3), 6);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF32, 0, 3), 6);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 3), 3);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 2), 1); /* inside é */
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 4), 3); /* inside 中 */
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 5), 3);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 6), 6);
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 6), "0:3");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF8, 6), "0:6");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF32, 7), "0:4");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 2), "0:1"); /* inside é */
	EXPECT_STR_EQ(from_byte(&d, POS_UTF8, 5), "0:3");  /* inside 中 */
	line_index_free(&d.li);
}

TEST(astral_characters)
{
	/* x=0, 😀=1..5 (2 UTF-16 units), y=5 */
	Doc d = doc("x\xf0\x9f\x98\x80y");

	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 1), 1);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 2), 1); /* mid pair */
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 3), 5);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 4), 6);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF32, 0, 2), 5);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF32, 0, 3), 6);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 4), 1);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF8, 0, 5), 5);
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 5), "0:3");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF32, 5), "0:2");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF8, 5), "0:5");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 3), "0:1");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 6), "0:4");
	line_index_free(&d.li);
}

TEST(crlf_and_lone_cr)
{
	/* Lines: "a" at 0, "b" at 3, "c" at 5, "" at 7, "d" at 8 */
	Doc d = doc("a\r\nb\rc\n\rd");

	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 1), 1);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 9), 1); /* before \r\n */
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 1, 0), 3);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 1, 9), 4); /* before \r */
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 2, 9), 6); /* before \n */
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 3, 0), 7);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 3, 1), 7);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 4, 1), 9);
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 1), "0:1");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 2), "0:1"); /* inside \r\n */
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 3), "1:0");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 4), "1:1");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 5), "2:0");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 7), "3:0");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 8), "4:0");
	line_index_free(&d.li);
}

TEST(clamping)
{
	Doc d = doc("ab\ncd\n");
	PosEncoding e;

	for (e = POS_UTF8; e <= POS_UTF32; e++) {
		EXPECT_INT_EQ(to_byte(&d, e, 0, 100), 2);
		EXPECT_INT_EQ(to_byte(&d, e, 1, UINT32_MAX), 5);
		EXPECT_INT_EQ(to_byte(&d, e, 2, 0), 6); /* empty last line */
		EXPECT_INT_EQ(to_byte(&d, e, 2, 7), 6);
		EXPECT_INT_EQ(to_byte(&d, e, 3, 0), 6); /* past the last line */
		EXPECT_INT_EQ(to_byte(&d, e, UINT32_MAX, UINT32_MAX), 6);
		EXPECT_STR_EQ(from_byte(&d, e, 6), "2:0");
		EXPECT_STR_EQ(from_byte(&d, e, 1000), "2:0");
	}
	line_index_free(&d.li);

	d = doc("");
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 5), 0);
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 9, 5), 0);
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 0), "0:0");
	line_index_free(&d.li);
}

TEST(invalid_utf8_counts_one_unit_per_byte)
{
	/* \xff: invalid; \xe4\xb8: truncated 3-byte sequence; \xed\xa0\x80:
	 * an encoded surrogate; \xc0\x80: overlong. Each byte is one
	 * character, so "z" is at unit 8 in every encoding. */
	Doc d = doc("\xff\xe4\xb8\xed\xa0\x80\xc0\x80z");
	PosEncoding e;

	for (e = POS_UTF8; e <= POS_UTF32; e++) {
		EXPECT_INT_EQ(to_byte(&d, e, 0, 8), 8);
		EXPECT_INT_EQ(to_byte(&d, e, 0, 3), 3);
		EXPECT_STR_EQ(from_byte(&d, e, 9), "0:9");
		EXPECT_STR_EQ(from_byte(&d, e, 2), "0:2");
	}
	line_index_free(&d.li);

	/* A sequence cut short by the end of the text. */
	d = doc("a\xf0\x9f\x98");
	EXPECT_STR_EQ(from_byte(&d, POS_UTF16, 4), "0:4");
	EXPECT_INT_EQ(to_byte(&d, POS_UTF16, 0, 2), 2);
	line_index_free(&d.li);
}

/* ---------------------------------------------------------------------- *
 * Round trips against a model built from known pieces
 * ---------------------------------------------------------------------- */

typedef struct {
	const char *s;
	uint32_t u16, u32;
	bool line_break;
} Piece;

static const Piece PIECES[] = {
	{"a", 1, 1, false},	     {" ", 1, 1, false},
	{"\xc3\xa9", 1, 1, false},   {"\xe4\xb8\xad", 1, 1, false},
	{"\xf0\x9f\x98\x80", 2, 1, false},
	{"\n", 0, 0, true},	     {"\r\n", 0, 0, true},
	{"\r", 0, 0, true},	     {"\xff", 1, 1, false},
};
#define NPIECES (sizeof(PIECES) / sizeof(*PIECES))

static unsigned rng_state = 1;

static unsigned rnd(unsigned n)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return (rng_state >> 16) % n;
}

/*
 * Random texts from pieces. A lone "\r" is never followed by "\n" here
 * (that would make one "\r\n"), so every piece boundary is a character
 * boundary outside any line break, where byte -> position -> byte must
 * return the same byte and the position must match the model.
 */
TEST(round_trips)
{
	int round, bad = 0;

	for (round = 0; round < 200; round++) {
		Buf b = {0};
		uint32_t line = 0, c[3] = {0, 0, 0};
		uint32_t at[64], pl[64], pc[3][64], npos = 0, i, k;
		bool last_cr = false;
		Doc d;

		for (i = 0; i < 40; i++) {
			const Piece *p = &PIECES[rnd(NPIECES)];

			if (last_cr && p->s[0] == '\n')
				continue;
			at[npos] = (uint32_t)b.len;
			pl[npos] = line;
			for (k = 0; k < 3; k++)
				pc[k][npos] = c[k];
			npos++;
			buf_puts(&b, p->s);
			last_cr = strcmp(p->s, "\r") == 0;
			if (p->line_break) {
				line++;
				c[0] = c[1] = c[2] = 0;
			} else {
				c[POS_UTF8] += (uint32_t)strlen(p->s);
				c[POS_UTF16] += p->u16;
				c[POS_UTF32] += p->u32;
			}
		}
		at[npos] = (uint32_t)b.len;
		pl[npos] = line;
		for (k = 0; k < 3; k++)
			pc[k][npos] = c[k];
		npos++;
		d = doc(b.data ? b.data : "");
		for (i = 0; i < npos; i++) {
			for (k = 0; k < 3; k++) {
				uint32_t l, ch, back;

				position_from_byte(&d.li, d.text, d.len, k,
						   at[i], &l, &ch);
				back = to_byte(&d, k, l, ch);
				if ((l != pl[i] || ch != pc[k][i] ||
				     back != at[i]) &&
				    bad++ < 5)
					test_fail(__FILE__, __LINE__,
						  "enc %u byte %u: got %u:%u "
						  "back %u, want %u:%u",
						  k, at[i], l, ch, back, pl[i],
						  pc[k][i]);
			}
		}
		/* Bytes inside characters or line breaks round down. */
		for (i = 0; i <= d.len; i++) {
			uint32_t l, ch, back;

			position_from_byte(&d.li, d.text, d.len, POS_UTF16, i,
					   &l, &ch);
			back = to_byte(&d, POS_UTF16, l, ch);
			if (back > i && bad++ < 5)
				test_fail(__FILE__, __LINE__,
					  "byte %u came back as %u", i, back);
		}
		line_index_free(&d.li);
		buf_free(&b);
	}
	EXPECT_INT_EQ(bad, 0);
}

/* ---------------------------------------------------------------------- *
 * Incremental update
 * ---------------------------------------------------------------------- */

static bool same_index(const LineIndex *a, const LineIndex *b)
{
	return a->n == b->n && a->len == b->len &&
	       memcmp(a->starts, b->starts, a->n * sizeof(uint32_t)) == 0;
}

/* Random splices over text rich in "\r", "\n" and multibyte characters,
 * so edits join and split "\r\n" pairs and land at both ends; after each
 * one the updated index must equal a fresh build. */
TEST(update_equals_fresh_build)
{
	static const char *const bits[] = {"a", "\r", "\n", "\r\n", "\xc3\xa9",
					   "bc"};
	Buf text = {0};
	LineIndex li = {0}, fresh = {0};
	int edit, bad = 0;

	rng_state = 7;
	buf_append(&text, "", 0); /* data is never NULL from here on */
	ASSERT_INT_EQ(line_index_build(&li, "", 0), 0);
	for (edit = 0; edit < 3000; edit++) {
		Buf next = {0}, ins = {0};
		uint32_t len = (uint32_t)text.len, start, old_end;
		unsigned i, nins = rnd(6);

		start = rnd(len + 1);
		old_end = start + rnd(len - start + 1);
		if (rnd(4) == 0)
			old_end = start; /* pure insertion */
		if (len > 400 && old_end - start < 40) /* keep it short */
			old_end = len - start < 40 ? len : start + 40;
		for (i = 0; i < nins; i++)
			buf_puts(&ins, bits[rnd(sizeof(bits) / sizeof(*bits))]);
		buf_append(&next, text.data, start);
		buf_append(&next, ins.data, ins.len);
		buf_append(&next, text.data + old_end, len - old_end);
		EXPECT_INT_EQ(line_index_update(&li, next.data ? next.data : "",
						next.len, start, old_end,
						start + (uint32_t)ins.len),
			      0);
		line_index_build(&fresh, next.data ? next.data : "", next.len);
		if (!same_index(&li, &fresh) && bad++ < 3)
			test_fail(__FILE__, __LINE__,
				  "edit %d [%u,%u)+%zu: %u lines, fresh %u",
				  edit, start, old_end, ins.len, li.n,
				  fresh.n);
		buf_free(&text);
		text = next;
		buf_free(&ins);
	}
	EXPECT_INT_EQ(bad, 0);
	line_index_free(&li);
	line_index_free(&fresh);
	buf_free(&text);
}

TEST(update_edge_cases)
{
	LineIndex li = {0}, fresh = {0};

	/* Appending "\n" to a trailing "\r" joins them into one break. */
	line_index_build(&li, "a\r", 2);
	ASSERT_INT_EQ(line_index_update(&li, "a\r\n", 3, 2, 2, 3), 0);
	line_index_build(&fresh, "a\r\n", 3);
	EXPECT_TRUE(same_index(&li, &fresh));
	/* Inserting between "\r" and "\n" splits them into two. */
	ASSERT_INT_EQ(line_index_update(&li, "a\rx\n", 4, 2, 2, 3), 0);
	line_index_build(&fresh, "a\rx\n", 4);
	EXPECT_TRUE(same_index(&li, &fresh));
	EXPECT_INT_EQ(li.n, 3);
	/* Deleting everything. */
	ASSERT_INT_EQ(line_index_update(&li, "", 0, 0, 4, 0), 0);
	EXPECT_INT_EQ(li.n, 1);
	EXPECT_INT_EQ(li.len, 0);
	/* Inserting at the very start. */
	ASSERT_INT_EQ(line_index_update(&li, "\n\n", 2, 0, 0, 2), 0);
	line_index_build(&fresh, "\n\n", 2);
	EXPECT_TRUE(same_index(&li, &fresh));
	line_index_free(&li);
	line_index_free(&fresh);
}

TEST(update_rejects_inconsistent_offsets)
{
	LineIndex li = {0};

	line_index_build(&li, "ab\ncd", 5);
	/* start after old end; old end past the text; new end past new_len;
	 * lengths that disagree about the unchanged tail. */
	EXPECT_INT_EQ(line_index_update(&li, "ab\ncd", 5, 3, 2, 3),
		      CASTLS_EINVAL);
	EXPECT_INT_EQ(line_index_update(&li, "ab\ncd", 5, 0, 6, 1),
		      CASTLS_EINVAL);
	EXPECT_INT_EQ(line_index_update(&li, "ab\ncd", 5, 0, 0, 6),
		      CASTLS_EINVAL);
	EXPECT_INT_EQ(line_index_update(&li, "ab\ncdX", 6, 0, 1, 1),
		      CASTLS_EINVAL);
	EXPECT_INT_EQ(li.n, 2);
	EXPECT_INT_EQ(li.len, 5);
	EXPECT_INT_EQ(li.starts[1], 3);
	line_index_free(&li);

	/* An index that was never built. */
	EXPECT_INT_EQ(line_index_update(&li, "", 0, 0, 0, 0), CASTLS_EINVAL);
}

/* Marks change how far a conversion walks, never where it lands: every
 * offset of a text with long lines of mixed characters (two-, three-
 * and four-byte ones, stray bytes, CRLF, short lines between) converts
 * as without them, in all three encodings. */
TEST(marks_give_the_same_positions)
{
	static const char *const pieces[] = {
	    "a", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xff",
	    "\xE2\x82", " ", "\r\n", "\n", "\r",
	};
	Buf t = {0};
	LineIndex li = {0};
	uint64_t rng = 12345;
	uint32_t at = 0;

	for (int line = 0; line < 6; line++) {
		/* Lines of 0 to ~3 strides, mostly multibyte. */
		uint32_t want = (uint32_t)(line * 5000 % 13000);

		while (t.len < at + want) {
			rng = rng * 6364136223846793005ull + 1;
			buf_puts(&t, pieces[(rng >> 33) % 7]);
		}
		buf_puts(&t, pieces[7 + line % 3]);
		at = (uint32_t)t.len;
	}
	line_index_build(&li, t.data, t.len);
	for (int e = POS_UTF8; e <= POS_UTF32; e++) {
		PosMarks m = {0};
		uint32_t bad = 0;

		pos_marks_build(&m, &li, t.data, t.len, (PosEncoding)e);
		EXPECT_TRUE(m.n >= 6);
		for (uint32_t b = 0; b <= t.len + 1; b++) {
			uint32_t l1, c1, l2, c2;

			position_from_byte(&li, t.data, t.len,
					   (PosEncoding)e, b, &l1, &c1);
			position_from_byte_marked(&li, &m, t.data, t.len,
						  (PosEncoding)e, b, &l2, &c2);
			if ((l1 != l2 || c1 != c2) && bad++ < 3)
				test_fail(__FILE__, __LINE__,
					  "enc %d byte %u: %u:%u, marked %u:%u",
					  e, b, l1, c1, l2, c2);
		}
		EXPECT_INT_EQ(bad, 0);
		pos_marks_free(&m);
	}
	line_index_free(&li);
	buf_free(&t);
}

/* tree-sitter's rows count "\n" only, from a mark before or after the
 * byte as from the start: every byte against every few marks. */
TEST(ts_row_from_a_mark)
{
	static const char *const pieces[] = {"ab", "\n", "\r\n", "\r", "é",
					     "x = 1\n", ""};
	Buf t = {0};
	uint64_t rng = 99;
	uint32_t bad = 0;

	while (t.len < 3000) {
		rng = rng * 6364136223846793005ull + 1;
		buf_puts(&t, pieces[(rng >> 33) % 7]);
	}
	for (uint32_t mark = 0; mark <= t.len; mark += 37) {
		uint32_t mark_row = castls_count_newlines(t.data, mark);

		for (uint32_t off = 0; off <= t.len; off++) {
			uint32_t want = castls_count_newlines(t.data, off);
			uint32_t got =
			    position_ts_row(t.data, off, mark, mark_row);

			if (got != want && bad++ < 3)
				test_fail(__FILE__, __LINE__,
					  "byte %u, mark %u: row %u, not %u",
					  off, mark, got, want);
		}
	}
	EXPECT_INT_EQ(bad, 0);
	buf_free(&t);
}
