/*
 * framing.h: the LSP base protocol, split into messages.
 *
 * A message is a block of header lines "Name: value", each ended by "\r\n"
 * (a bare "\n" is tolerated), an empty line, then exactly Content-Length
 * bytes of body. Header names match in any case; Content-Length is the
 * only one we need, Content-Type and any other header are ignored.
 *
 * The framer does no I/O: the server feeds it whatever bytes stdin gave,
 * split anywhere, and it calls back once per complete message or per
 * framing error. After an error it resynchronises on the next
 * "Content-Length" that starts a line or directly follows a '}' or ']'
 * (the end of the JSON body before it), so one bad message never ends the
 * session.
 * No libuv here, so the framer can be fuzzed on its own.
 */
#ifndef CASTLS_LSP_FRAMING_H
#define CASTLS_LSP_FRAMING_H

#include <stdbool.h>
#include <stddef.h>

/* Largest body we read: bigger ones are skipped byte by byte (counted,
 * never buffered) and reported as an error. */
#define LSP_MAX_MESSAGE ((size_t)64 << 20)
/* Largest header block, all lines and line ends counted. Real clients
 * send one or two short lines. */
#define LSP_MAX_HEADER 8192 /* a plain number: error text quotes it */
/* A Content-Length above this is not a message we could skip in any
 * reasonable time: it is treated as malformed and we resynchronise on the
 * next header instead of counting down 2^60 bytes. */
#define LSP_MAX_SKIP ((unsigned long long)1 << 32)
/* Deepest JSON nesting (arrays and objects) we hand to cJSON. LSP
 * messages nest a handful of levels; cJSON's own limit is 1000 levels of
 * recursion, which is more stack than we want to offer a peer. */
#define LSP_MAX_JSON_DEPTH 64
/* Bytes framer_header needs, NUL included, for any size_t length. */
#define LSP_HEADER_CAP 48

typedef struct Framer Framer;

typedef enum { FRAME_MESSAGE, FRAME_ERROR } FrameKind;

/*
 * Called once per complete message (kind FRAME_MESSAGE: body and len set,
 * error NULL) or per framing error (kind FRAME_ERROR: body NULL, len 0,
 * error a static, human-readable string).
 *
 * The body is borrowed: it stays valid only during the call, and
 * body[len] is always '\0' so it can go straight to cJSON_Parse. The
 * callback must not feed or delete the framer it was called from.
 */
typedef void (*FrameFn)(void *ctx, FrameKind kind, const char *body, size_t len,
			const char *error);

/* A framer that delivers bodies of up to max_body bytes (0 means
 * LSP_MAX_MESSAGE) to fn. ctx is borrowed and passed to every call. */
Framer *framer_new(size_t max_body, FrameFn fn, void *ctx);
/* Frees f and any partial message it holds; NULL does nothing. */
void framer_delete(Framer *f);

/* Consumes len bytes of the stream (borrowed; nothing is kept pointing
 * into data). Calls fn for every message or error completed by them, in
 * stream order. */
void framer_feed(Framer *f, const char *data, size_t len);

/* True while the framer is between messages: no partial header, body or
 * skipped body pending. Lets the server tell a clean end of input from a
 * truncated message. */
bool framer_idle(const Framer *f);

/* Writes the header for a body of len bytes ("Content-Length: N\r\n\r\n")
 * into buf and NUL-terminates it. Returns the header length without the
 * NUL, or 0 (buf untouched) when cap is too small; LSP_HEADER_CAP is
 * always enough. */
size_t framer_header(char *buf, size_t cap, size_t len);

/* True when the JSON text s[0..n) nests arrays and objects no deeper than
 * max_depth. A byte scan that skips string contents (escapes included);
 * it does not validate the JSON, cJSON does that afterwards. */
bool json_depth_ok(const char *s, size_t n, int max_depth);

#endif
