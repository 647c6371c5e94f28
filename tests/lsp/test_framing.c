/*
 * test_framing.c: the LSP message framer and the JSON depth check.
 *
 * Every framer event is written to a log ("M<len>:<body>|" for a message,
 * "E:<error>|" for an error) so a test compares one string against the
 * expected sequence, whatever way the input was split.
 */
#include "test.h"

#include <stdlib.h>

#include "base/base.h"
#include "lsp/framing.h"

typedef struct {
	Buf log;
	int messages, errors;
	bool bad_terminator; /* a body arrived without body[len] == '\0' */
} Log;

static void on_frame(void *ctx, FrameKind kind, const char *body, size_t len,
		     const char *error)
{
	Log *l = ctx;

	if (kind == FRAME_MESSAGE) {
		l->messages++;
		if (body[len] != '\0')
			l->bad_terminator = true;
		buf_printf(&l->log, "M%zu:", len);
		buf_append(&l->log, body, len);
		buf_puts(&l->log, "|");
	} else {
		l->errors++;
		buf_printf(&l->log, "E:%s|", error);
	}
}

/* Feeds s split at the given cut points (ascending, may be empty) to a
 * fresh framer and returns the log, which the caller frees. */
static char *frame_cuts(const char *s, size_t n, size_t max_body,
			const size_t *cuts, int ncuts)
{
	Log l = {0};
	Framer *f = framer_new(max_body, on_frame, &l);
	size_t at = 0;
	int i;

	for (i = 0; i <= ncuts; i++) {
		size_t end = i < ncuts ? cuts[i] : n;

		framer_feed(f, s + at, end - at);
		at = end;
	}
	framer_delete(f);
	if (l.bad_terminator)
		buf_puts(&l.log, "<body not NUL-terminated>");
	return buf_take(&l.log);
}

static char *frame_all(const char *s, size_t max_body)
{
	return frame_cuts(s, strlen(s), max_body, NULL, 0);
}

#define EXPECT_FRAMES(input, max_body, expected)                        \
	do {                                                            \
		char *got_ = frame_all((input), (max_body));            \
		EXPECT_STR_EQ(got_, (expected));                        \
		xfree(got_);                                            \
	} while (0)

#define GOOD "Content-Length: 2\r\n\r\n{}"

/* ---------------------------------------------------------------------- *
 * Splitting
 * ---------------------------------------------------------------------- */

static const char STREAM3[] =
	"Content-Length: 17\r\n\r\n{\"jsonrpc\":\"2.0\"}"
	"content-length: 5\r\n"
	"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n"
	"[1,2]"
	"CONTENT-LENGTH:3\n\nabc";
static const char STREAM3_LOG[] =
	"M17:{\"jsonrpc\":\"2.0\"}|M5:[1,2]|M3:abc|";

TEST(split_at_every_byte_pair)
{
	size_t n = strlen(STREAM3), i, j, cuts[2];
	int bad = 0;

	for (i = 0; i <= n; i++) {
		for (j = i; j <= n; j++) {
			char *got;

			cuts[0] = i;
			cuts[1] = j;
			got = frame_cuts(STREAM3, n, 0, cuts, 2);
			if (strcmp(got, STREAM3_LOG) != 0 && bad++ < 3)
				EXPECT_STR_EQ(got, STREAM3_LOG);
			xfree(got);
		}
	}
	EXPECT_INT_EQ(bad, 0);
}

TEST(byte_by_byte)
{
	size_t n = strlen(STREAM3), i, cuts[sizeof(STREAM3)];
	char *got;

	for (i = 0; i < n; i++)
		cuts[i] = i + 1;
	got = frame_cuts(STREAM3, n, 0, cuts, (int)n);
	EXPECT_STR_EQ(got, STREAM3_LOG);
	xfree(got);
}

TEST(several_messages_in_one_chunk)
{
	EXPECT_FRAMES(GOOD GOOD GOOD, 0, "M2:{}|M2:{}|M2:{}|");
}

/* ---------------------------------------------------------------------- *
 * Headers
 * ---------------------------------------------------------------------- */

TEST(header_names_any_case)
{
	EXPECT_FRAMES("content-length: 1\r\n\r\nx", 0, "M1:x|");
	EXPECT_FRAMES("CONTENT-LENGTH: 1\r\n\r\nx", 0, "M1:x|");
	EXPECT_FRAMES("CoNtEnT-lEnGtH: 1\r\n\r\nx", 0, "M1:x|");
}

TEST(content_type_and_other_headers_tolerated)
{
	EXPECT_FRAMES("Content-Type: application/vscode-jsonrpc; "
		      "charset=utf-8\r\nContent-Length: 2\r\n\r\n{}",
		      0, "M2:{}|");
	EXPECT_FRAMES("Content-Length: 2\r\nX-Extra:\r\n\r\n{}", 0,
		      "M2:{}|");
}

TEST(bare_lf_and_blanks_around_value)
{
	EXPECT_FRAMES("Content-Length: 2\n\n{}", 0, "M2:{}|");
	EXPECT_FRAMES("Content-Length:\t 2 \t\r\n\r\n{}", 0, "M2:{}|");
	EXPECT_FRAMES("Content-Length: 2\r\n\n{}", 0, "M2:{}|");
}

TEST(stray_blank_lines_between_messages)
{
	EXPECT_FRAMES("\r\n" GOOD "\r\n\n" GOOD, 0, "M2:{}|M2:{}|");
}

TEST(empty_body)
{
	EXPECT_FRAMES("Content-Length: 0\r\n\r\n" GOOD, 0, "M0:|M2:{}|");
}

TEST(repeated_equal_length_accepted)
{
	EXPECT_FRAMES("Content-Length: 2\r\nContent-Length: 2\r\n\r\n{}", 0,
		      "M2:{}|");
}

/* ---------------------------------------------------------------------- *
 * Errors and resynchronisation
 * ---------------------------------------------------------------------- */

TEST(missing_content_length)
{
	EXPECT_FRAMES("Content-Type: text/plain\r\n\r\n{\"a\":1}\r\n" GOOD, 0,
		      "E:header block has no Content-Length|M2:{}|");
}

TEST(bad_length_values)
{
	EXPECT_FRAMES("Content-Length: -5\r\n\r\n{\"a\":[1]}" GOOD, 0,
		      "E:Content-Length is negative|M2:{}|");
	EXPECT_FRAMES("Content-Length: abc\r\n\r\n" GOOD, 0,
		      "E:Content-Length is not a decimal number|M2:{}|");
	EXPECT_FRAMES("Content-Length: 12a\r\n\r\n" GOOD, 0,
		      "E:Content-Length is not a decimal number|M2:{}|");
	EXPECT_FRAMES("Content-Length: +2\r\n\r\n" GOOD, 0,
		      "E:Content-Length is not a decimal number|M2:{}|");
	EXPECT_FRAMES("Content-Length: \r\n\r\n" GOOD, 0,
		      "E:Content-Length is empty|M2:{}|");
	EXPECT_FRAMES("Content-Length: 99999999999999999999999999\r\n\r\n"
		      "junk\r\n" GOOD,
		      0, "E:Content-Length is implausibly large|M2:{}|");
	EXPECT_FRAMES("Content-Length: 18446744073709551617\r\n\r\n" GOOD,
		      0, "E:Content-Length is implausibly large|M2:{}|");
	EXPECT_FRAMES("Content-Length: 1\r\nContent-Length: 2\r\n\r\n{}"
		      "\r\n" GOOD,
		      0, "E:conflicting Content-Length headers|M2:{}|");
}

/* After an error the next header is found right behind a JSON body's
 * closing bracket, without a line break between them. */
TEST(resync_after_closing_bracket)
{
	EXPECT_FRAMES("oops\r\n\r\n{\"id\":1}" GOOD "oops\n[1,2]" GOOD, 0,
		      "E:header line is not 'Name: value'|M2:{}|"
		      "E:header line is not 'Name: value'|M2:{}|");
	/* Other bytes are no boundary: this message is lost too. */
	EXPECT_FRAMES("oops\r\n\r\n123" GOOD GOOD, 0,
		      "E:header line is not 'Name: value'|M2:{}|");
}

TEST(garbage_header_lines)
{
	EXPECT_FRAMES("hello world\r\n" GOOD, 0,
		      "E:header line is not 'Name: value'|M2:{}|");
	EXPECT_FRAMES(": no name\r\n" GOOD, 0,
		      "E:header line is not 'Name: value'|M2:{}|");
	EXPECT_FRAMES(" Content-Length: 2\r\n" GOOD, 0,
		      "E:header line is not 'Name: value'|M2:{}|");
	/* The name in the middle of a line is not a resync point. */
	EXPECT_FRAMES("{\"x\": 1}\r\nxContent-Length: 1\r\n\r\nz\r\n" GOOD,
		      0, "E:header line is not 'Name: value'|M2:{}|");
}

TEST(header_block_too_large)
{
	Buf in = {0};
	char *got;
	int i;

	buf_puts(&in, "X-Long: ");
	for (i = 0; i < LSP_MAX_HEADER; i++)
		buf_puts(&in, "a");
	buf_puts(&in, "\r\n" GOOD);
	got = frame_all(in.data, 0);
	EXPECT_STR_EQ(got, "E:header block exceeds 8192 bytes|"
			   "M2:{}|");
	xfree(got);

	/* Many short lines exceed it too. */
	buf_free(&in);
	for (i = 0; i < LSP_MAX_HEADER / 8; i++)
		buf_puts(&in, "X-A: b\r\n");
	buf_puts(&in, "\r\n" GOOD);
	got = frame_all(in.data, 0);
	EXPECT_STR_EQ(got, "E:header block exceeds 8192 bytes|"
			   "M2:{}|");
	xfree(got);
	buf_free(&in);
}

TEST(waits_for_the_rest_of_the_body)
{
	Log l = {0};
	Framer *f = framer_new(0, on_frame, &l);

	EXPECT_TRUE(framer_idle(f));
	framer_feed(f, "Content-Length: 10\r\n\r\n01234", 27);
	EXPECT_INT_EQ(l.messages, 0);
	EXPECT_INT_EQ(l.errors, 0);
	EXPECT_TRUE(!framer_idle(f));
	framer_feed(f, "56789Content-Len", 16);
	EXPECT_INT_EQ(l.messages, 1);
	EXPECT_TRUE(!framer_idle(f));
	framer_feed(f, "gth: 1\r\n\r\n!", 11);
	EXPECT_INT_EQ(l.messages, 2);
	EXPECT_TRUE(framer_idle(f));
	EXPECT_STR_EQ(l.log.data, "M10:0123456789|M1:!|");
	framer_delete(f);
	buf_free(&l.log);
}

TEST(over_limit_body_skipped)
{
	/* The skipped body itself contains a header-like line: counting the
	 * bytes down (not resyncing) must not deliver it. */
	EXPECT_FRAMES("Content-Length: 40\r\n\r\n"
		      "0123456789\r\nContent-Length: 3\r\n\r\nabc0123"
		      GOOD,
		      16, "E:message body exceeds the size limit; skipped|"
			  "M2:{}|");
	/* Exactly at the limit is fine. */
	EXPECT_FRAMES("Content-Length: 16\r\n\r\n0123456789abcdef", 16,
		      "M16:0123456789abcdef|");
}

TEST(large_body_skipped_in_pieces)
{
	size_t piece = 65536, total = (size_t)8 << 20, sent = 0;
	char *junk = xmalloc(piece);
	char hdr[LSP_HEADER_CAP];
	Log l = {0};
	Framer *f = framer_new((size_t)1 << 20, on_frame, &l);

	memset(junk, 'x', piece);
	framer_feed(f, hdr, framer_header(hdr, sizeof(hdr), total));
	while (sent < total) {
		framer_feed(f, junk, piece);
		sent += piece;
	}
	framer_feed(f, GOOD, strlen(GOOD));
	EXPECT_STR_EQ(l.log.data,
		      "E:message body exceeds the size limit; skipped|"
		      "M2:{}|");
	EXPECT_TRUE(framer_idle(f));
	framer_delete(f);
	buf_free(&l.log);
	xfree(junk);
}

/* Random streams of good and bad messages: however they are split, the
 * events are the same as for one feed. */
TEST(split_does_not_change_events)
{
	static const char *const parts[] = {
		GOOD,
		"Content-Length: 5\r\n\r\nhello",
		"content-length: 0\n\n",
		"Content-Length: -1\r\n\r\n",
		"garbage\r\n",
		"\r\n",
		"Content-Length: 30\r\n\r\n0123456789012345678901234567890",
		"Content-Type: x\r\n\r\n",
		"Content-Len",
		"gth: 1\r\n\r\nQ",
		"\r",
	};
	unsigned seed = 12345;
	int round, bad = 0;

	for (round = 0; round < 300; round++) {
		Buf in = {0};
		size_t cuts[16];
		int i, ncuts;
		char *one, *split;

		for (i = 0; i < 8; i++) {
			seed = seed * 1103515245u + 12345u;
			buf_puts(&in, parts[(seed >> 16) % (sizeof(parts) /
							    sizeof(*parts))]);
		}
		seed = seed * 1103515245u + 12345u;
		ncuts = (int)((seed >> 16) % 16);
		for (i = 0; i < ncuts; i++) {
			seed = seed * 1103515245u + 12345u;
			cuts[i] = (seed >> 8) % (in.len + 1);
		}
		for (i = 1; i < ncuts; i++) { /* insertion sort */
			size_t c = cuts[i];
			int j = i;

			for (; j > 0 && cuts[j - 1] > c; j--)
				cuts[j] = cuts[j - 1];
			cuts[j] = c;
		}
		one = frame_cuts(in.data, in.len, 20, NULL, 0);
		split = frame_cuts(in.data, in.len, 20, cuts, ncuts);
		if (strcmp(one, split) != 0 && bad++ < 3)
			EXPECT_STR_EQ(split, one);
		xfree(one);
		xfree(split);
		buf_free(&in);
	}
	EXPECT_INT_EQ(bad, 0);
}

/* ---------------------------------------------------------------------- *
 * Writing headers
 * ---------------------------------------------------------------------- */

TEST(header_written)
{
	char buf[LSP_HEADER_CAP];
	char small[8] = "unused";

	EXPECT_INT_EQ(framer_header(buf, sizeof(buf), 42), 22);
	EXPECT_STR_EQ(buf, "Content-Length: 42\r\n\r\n");
	EXPECT_INT_EQ(framer_header(buf, sizeof(buf), (size_t)-1),
		      16 + strlen("18446744073709551615") + 4);
	EXPECT_INT_EQ(framer_header(small, sizeof(small), 1), 0);
	EXPECT_STR_EQ(small, "unused");
	/* The exact size, NUL included, fits; one byte less does not. */
	EXPECT_INT_EQ(framer_header(buf, 22, 42), 0);
	EXPECT_INT_EQ(framer_header(buf, 23, 42), 22);
}

/* ---------------------------------------------------------------------- *
 * JSON depth
 * ---------------------------------------------------------------------- */

static bool nested_ok(int depth, int max, char open, char close)
{
	Buf b = {0};
	bool ok;
	int i;

	for (i = 0; i < depth; i++)
		buf_append(&b, &open, 1);
	for (i = 0; i < depth; i++)
		buf_append(&b, &close, 1);
	ok = json_depth_ok(b.data ? b.data : "", b.len, max);
	buf_free(&b);
	return ok;
}

TEST(json_depth_limits)
{
	EXPECT_TRUE(nested_ok(64, 64, '[', ']'));
	EXPECT_TRUE(!nested_ok(65, 64, '[', ']'));
	EXPECT_TRUE(!nested_ok(5000, LSP_MAX_JSON_DEPTH, '[', ']'));
	EXPECT_TRUE(nested_ok(0, 0, '[', ']'));
	EXPECT_TRUE(!nested_ok(1, 0, '{', '}'));
	/* Depth is the maximum at any point, not the number of brackets. */
	EXPECT_TRUE(json_depth_ok("[[1],[2],{\"a\":[3]}]", 19, 3));
	EXPECT_TRUE(!json_depth_ok("[[1],[2],{\"a\":[3]}]", 19, 2));
	EXPECT_TRUE(json_depth_ok("{\"a\":{\"b\":{}}}", 14, 3));
	EXPECT_TRUE(!json_depth_ok("{\"a\":{\"b\":{}}}", 14, 2));
}

TEST(json_depth_ignores_strings)
{
	const char *s1 = "{\"text\":\"[[[[[[{{{{{{\"}";
	const char *s2 = "[\"\\\"[[[[[[\\\\\",\"\\\\\"]";
	const char *s3 = "[\"\\\\\",[[1]]]";

	EXPECT_TRUE(json_depth_ok(s1, strlen(s1), 1));
	/* An escaped quote does not end the string; an escaped backslash
	 * does not escape the closing quote. */
	EXPECT_TRUE(json_depth_ok(s2, strlen(s2), 1));
	EXPECT_TRUE(!json_depth_ok(s3, strlen(s3), 2));
	EXPECT_TRUE(json_depth_ok(s3, strlen(s3), 3));
	/* The length bounds the scan: brackets beyond n do not count. */
	EXPECT_TRUE(json_depth_ok("[[[[", 1, 1));
}
