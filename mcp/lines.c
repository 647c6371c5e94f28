/*
 * lines.c: the stdio transport's framing. MCP over stdio sends one
 * JSON-RPC message per line, with no line breaks inside a message, so the
 * reader only splits at '\n' (dropping a '\r' before it) and bounds each
 * line. No I/O here: the transport feeds bytes in, the fuzzer too.
 */
#include "mcp_int.h"

#include <string.h>

void mcp__line_reader_init(LineReader *r, size_t max, LineFn fn, void *ctx)
{
	memset(r, 0, sizeof(*r));
	r->max = max;
	r->fn = fn;
	r->ctx = ctx;
}

void mcp__line_reader_close(LineReader *r) { buf_free(&r->buf); }

static bool blank(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!is_space_byte((unsigned char)p[i]))
			return false;
	return true;
}

/* Hands a whole line (without its '\n') to the callback; blank lines are
 * no messages and are skipped. */
static void deliver(LineReader *r, const char *p, size_t n)
{
	if (n && p[n - 1] == '\r')
		n--;
	if (!blank(p, n))
		r->fn(r->ctx, p, n, false);
}

/* The buffer after a line: emptied, and given back when a large message
 * made it grow, so one big line does not pin its memory. */
static void reset(LineReader *r)
{
	if (r->buf.cap > ((size_t)1 << 20))
		buf_free(&r->buf);
	r->buf.len = 0;
}

void mcp__line_reader_feed(LineReader *r, const char *p, size_t n)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t take = nl ? (size_t)(nl - p) : n;

		if (r->skipping) {
			/* The rest of a line over the limit. */
			r->skipping = !nl;
		} else if (r->buf.len + take > r->max) {
			reset(r);
			r->skipping = !nl;
			r->fn(r->ctx, NULL, 0, true);
		} else if (nl && r->buf.len == 0) {
			deliver(r, p, take); /* a whole line: no copy */
		} else {
			buf_append(&r->buf, p, take);
			if (nl) {
				deliver(r, r->buf.data, r->buf.len);
				reset(r);
			}
		}
		take += nl != NULL;
		p += take;
		n -= take;
	}
}

void mcp__line_reader_end(LineReader *r)
{
	/* A last message without its line break still counts. */
	if (!r->skipping && r->buf.len)
		deliver(r, r->buf.data, r->buf.len);
	reset(r);
	r->skipping = false;
}

bool mcp__json_depth_ok(const char *s, size_t n, int max_depth)
{
	bool in_string = false;
	int depth = 0;

	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (in_string) {
			if (c == '\\')
				i++; /* an escaped byte cannot end it */
			else if (c == '"')
				in_string = false;
		} else if (c == '"') {
			in_string = true;
		} else if (c == '[' || c == '{') {
			if (++depth > max_depth)
				return false;
		} else if ((c == ']' || c == '}') && depth > 0) {
			depth--;
		}
	}
	return true;
}
