/*
 * framing.c: an incremental parser for LSP base-protocol messages.
 *
 * The framer is a byte-driven state machine. Every decision depends only
 * on the bytes seen so far, never on how they were split into feeds, so
 * the same stream gives the same events however it arrives (the tests and
 * the fuzzer check exactly that).
 */
#include "framing.h"

#include <stdio.h>
#include <string.h>

#include "base/base.h"

/* A body buffer bigger than this is freed after its message rather than
 * kept for the next one, so one large didOpen does not pin its memory. */
#define FRAMER_KEEP_BUFFER ((size_t)1 << 20)

#define STR_(x) #x
#define STR(x) STR_(x)

static const char CONTENT_LENGTH[] = "content-length";
#define CONTENT_LENGTH_LEN (sizeof(CONTENT_LENGTH) - 1)

typedef enum {
	ST_HEADER, /* reading header lines */
	ST_BODY,   /* copying a body of `length` bytes */
	ST_SKIP,   /* counting down an over-limit body */
	ST_RESYNC  /* after an error: looking for a Content-Length line */
} FramerState;

struct Framer {
	FrameFn fn;
	void *ctx; /* borrowed */
	size_t max_body;
	FramerState state;

	/* ST_HEADER */
	char line[LSP_MAX_HEADER]; /* the current line, without its '\n' */
	size_t line_len;
	size_t header_bytes; /* of this block so far, line ends included */
	bool seen_field;     /* a header line was read in this block */
	bool have_length;
	unsigned long long length; /* Content-Length, <= LSP_MAX_SKIP */

	/* ST_BODY */
	char *body; /* NUL-terminated once complete */
	size_t body_len, body_cap;

	/* ST_SKIP */
	unsigned long long skip_left;

	/* ST_RESYNC: how many bytes of "content-length" the current line has
	 * matched so far, or -1 when the line cannot match any more. */
	int match;
};

/* ---------------------------------------------------------------------- *
 * Lifecycle
 * ---------------------------------------------------------------------- */

Framer *framer_new(size_t max_body, FrameFn fn, void *ctx)
{
	Framer *f = xcalloc(1, sizeof(*f));

	f->fn = fn;
	f->ctx = ctx;
	f->max_body = max_body ? max_body : LSP_MAX_MESSAGE;
	f->state = ST_HEADER;
	return f;
}

void framer_delete(Framer *f)
{
	if (!f)
		return;
	xfree(f->body);
	xfree(f);
}

bool framer_idle(const Framer *f)
{
	return f->state == ST_HEADER && f->header_bytes == 0 &&
	       f->line_len == 0;
}

size_t framer_header(char *buf, size_t cap, size_t len)
{
	char tmp[LSP_HEADER_CAP];
	int n = snprintf(tmp, sizeof(tmp), "Content-Length: %zu\r\n\r\n", len);

	if (n < 0 || (size_t)n >= cap)
		return 0;
	memcpy(buf, tmp, (size_t)n + 1);
	return (size_t)n;
}

/* ---------------------------------------------------------------------- *
 * State changes
 * ---------------------------------------------------------------------- */

static void header_reset(Framer *f)
{
	f->state = ST_HEADER;
	f->line_len = 0;
	f->header_bytes = 0;
	f->seen_field = false;
	f->have_length = false;
	f->length = 0;
}

/* Reports msg and starts looking for the next header. at_line_start says
 * whether the next byte begins a line (true when the error was found at a
 * line end, false when it was found in the middle of one). */
static void fail(Framer *f, const char *msg, bool at_line_start)
{
	header_reset(f);
	f->state = ST_RESYNC;
	f->match = at_line_start ? 0 : -1;
	f->fn(f->ctx, FRAME_ERROR, NULL, 0, msg);
}

static void deliver(Framer *f)
{
	const char *body = f->body_len ? f->body : "";
	size_t len = f->body_len;

	if (f->body)
		f->body[len] = '\0';
	header_reset(f);
	f->body_len = 0;
	f->fn(f->ctx, FRAME_MESSAGE, body, len, NULL);
	if (f->body_cap > FRAMER_KEEP_BUFFER) {
		xfree(f->body);
		f->body = NULL;
		f->body_cap = 0;
	}
}

/* The empty line after the header fields: decide what the body is. */
static void header_end(Framer *f)
{
	if (!f->have_length) {
		fail(f, "header block has no Content-Length", true);
		return;
	}
	if (f->length > f->max_body) {
		unsigned long long n = f->length;

		fail(f, "message body exceeds the size limit; skipped", true);
		f->state = ST_SKIP;
		f->skip_left = n;
		return;
	}
	f->state = ST_BODY;
	f->body_len = 0;
	if (f->length == 0)
		deliver(f);
}

/* ---------------------------------------------------------------------- *
 * Header lines
 * ---------------------------------------------------------------------- */

/* RFC 7230 token characters, the only ones allowed in a header name. */
static bool is_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9'))
		return true;
	return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static unsigned char lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 'a' - 'A') : c;
}

static bool name_is(const char *name, size_t n, const char *want)
{
	size_t i;

	if (n != strlen(want))
		return false;
	for (i = 0; i < n; i++)
		if (lower((unsigned char)name[i]) != (unsigned char)want[i])
			return false;
	return true;
}

/* Parses a Content-Length value (surrounding blanks already trimmed).
 * Returns NULL and sets *out, or a static error message. */
static const char *parse_length(const char *v, size_t n,
				unsigned long long *out)
{
	unsigned long long x = 0;
	size_t i;

	if (n == 0)
		return "Content-Length is empty";
	if (v[0] == '-')
		return "Content-Length is negative";
	for (i = 0; i < n; i++) {
		if (v[i] < '0' || v[i] > '9')
			return "Content-Length is not a decimal number";
		x = x * 10 + (unsigned)(v[i] - '0');
		if (x > LSP_MAX_SKIP)
			return "Content-Length is implausibly large";
	}
	*out = x;
	return NULL;
}

/* One complete header line, its '\n' and any '\r' before it removed. */
static void header_line(Framer *f)
{
	const char *s = f->line, *err;
	size_t n = f->line_len, name_len = 0, vb, ve;
	unsigned long long len;

	if (n == 0) {
		if (f->seen_field)
			header_end(f);
		else
			header_reset(f); /* stray blank line between messages */
		return;
	}
	while (name_len < n && is_tchar((unsigned char)s[name_len]))
		name_len++;
	if (name_len == 0 || name_len == n || s[name_len] != ':') {
		fail(f, "header line is not 'Name: value'", true);
		return;
	}
	f->seen_field = true;
	f->line_len = 0;
	if (!name_is(s, name_len, CONTENT_LENGTH))
		return; /* Content-Type and anything else: ignored */
	vb = name_len + 1;
	ve = n;
	while (vb < ve && (s[vb] == ' ' || s[vb] == '\t'))
		vb++;
	while (ve > vb && (s[ve - 1] == ' ' || s[ve - 1] == '\t'))
		ve--;
	err = parse_length(s + vb, ve - vb, &len);
	if (!err && f->have_length && len != f->length)
		err = "conflicting Content-Length headers";
	if (err) {
		fail(f, err, true);
		return;
	}
	f->have_length = true;
	f->length = len;
}

/* Consumes header bytes up to and including one '\n' (or all of data).
 * Returns the number of bytes consumed. */
static size_t feed_header(Framer *f, const char *p, size_t n)
{
	const char *nl = memchr(p, '\n', n);
	size_t take = nl ? (size_t)(nl - p) + 1 : n;
	size_t room = LSP_MAX_HEADER - f->header_bytes;

	if (take > room) {
		/* The byte that crosses the limit is the error's position. */
		take = room + 1;
		fail(f, "header block exceeds " STR(LSP_MAX_HEADER) " bytes",
		     p[take - 1] == '\n');
		return take;
	}
	f->header_bytes += take;
	if (!nl) {
		memcpy(f->line + f->line_len, p, take);
		f->line_len += take;
		return take;
	}
	memcpy(f->line + f->line_len, p, take - 1);
	f->line_len += take - 1;
	if (f->line_len > 0 && f->line[f->line_len - 1] == '\r')
		f->line_len--;
	header_line(f);
	return take;
}

/* ---------------------------------------------------------------------- *
 * Bodies and resynchronisation
 * ---------------------------------------------------------------------- */

static size_t feed_body(Framer *f, const char *p, size_t n)
{
	size_t need = (size_t)f->length - f->body_len;
	size_t take = n < need ? n : need;

	/* Grow with the data actually received, never by the peer's word
	 * alone, but never past the announced length (plus the NUL). */
	if (f->body_len + take + 1 > f->body_cap) {
		size_t cap = f->body_cap ? f->body_cap * 2 : 4096;

		if (cap < f->body_len + take + 1)
			cap = f->body_len + take + 1;
		if (cap > (size_t)f->length + 1)
			cap = (size_t)f->length + 1;
		f->body = xrealloc(f->body, cap);
		f->body_cap = cap;
	}
	memcpy(f->body + f->body_len, p, take);
	f->body_len += take;
	if (f->body_len == f->length)
		deliver(f);
	return take;
}

static size_t feed_skip(Framer *f, size_t n)
{
	size_t take = f->skip_left < n ? (size_t)f->skip_left : n;

	f->skip_left -= take;
	if (f->skip_left == 0)
		header_reset(f);
	return take;
}

/*
 * A header can plausibly start after a line end, or right after a byte
 * that ends a JSON-RPC body: bodies are one object (or a batch array) and
 * usually carry no trailing newline, so the header after a body we could
 * not frame follows its closing brace directly. JSON strings cannot hold
 * raw line breaks, and "}Content-Length" inside one is unlikely; a false
 * match costs at most one more error.
 */
static bool plausible_before_header(unsigned char c)
{
	return c == '\n' || c == '}' || c == ']';
}

/* Discards bytes until "Content-Length" (any case) follows a plausible
 * boundary; those 14 bytes then start a new header block. */
static size_t feed_resync(Framer *f, const char *p, size_t n)
{
	size_t i = 0;

	while (i < n) {
		unsigned char c = (unsigned char)p[i];

		if (f->match < 0) {
			i++;
			if (plausible_before_header(c))
				f->match = 0;
			continue;
		}
		i++;
		if (lower(c) != (unsigned char)CONTENT_LENGTH[f->match]) {
			f->match = plausible_before_header(c) ? 0 : -1;
			continue;
		}
		if (++f->match == (int)CONTENT_LENGTH_LEN) {
			header_reset(f);
			memcpy(f->line, "Content-Length", CONTENT_LENGTH_LEN);
			f->line_len = f->header_bytes = CONTENT_LENGTH_LEN;
			return i;
		}
	}
	return n;
}

void framer_feed(Framer *f, const char *data, size_t len)
{
	size_t used;

	while (len > 0) {
		switch (f->state) {
		case ST_HEADER:
			used = feed_header(f, data, len);
			break;
		case ST_BODY:
			used = feed_body(f, data, len);
			break;
		case ST_SKIP:
			used = feed_skip(f, len);
			break;
		default:
			used = feed_resync(f, data, len);
			break;
		}
		data += used;
		len -= used;
	}
}

/* ---------------------------------------------------------------------- *
 * JSON nesting
 * ---------------------------------------------------------------------- */

bool json_depth_ok(const char *s, size_t n, int max_depth)
{
	bool in_string = false;
	int depth = 0;
	size_t i;

	for (i = 0; i < n; i++) {
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
