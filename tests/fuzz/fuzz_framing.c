/*
 * fuzz_framing.c: libFuzzer entry point for the LSP framer.
 *
 * Each input is framed twice, once in a single feed and once in slices
 * of pseudo-random size derived from the input, with a small body limit
 * so the skip path is reached. Both runs must report the same events
 * (the framer's decisions may not depend on how reads split the stream),
 * every body must respect the limit and be NUL-terminated, and the JSON
 * depth check runs on each body.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "lsp/framing.h"

/* Small enough that short inputs can exceed it. */
#define FUZZ_MAX_BODY 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct {
	uint64_t hash; /* of the event sequence */
	size_t events, body_bytes;
} Trace;

static void die(const char *what)
{
	fprintf(stderr, "fuzz_framing: %s\n", what);
	abort();
}

static void on_frame(void *ctx, FrameKind kind, const char *body, size_t len,
		     const char *error)
{
	Trace *t = ctx;
	int d;

	t->events++;
	if (kind == FRAME_ERROR) {
		if (!error || body || len)
			die("malformed error event");
		t->hash = castls_hash(error, strlen(error), t->hash ^ 1);
		return;
	}
	if (!body || error || len > FUZZ_MAX_BODY || body[len] != '\0')
		die("malformed message event");
	t->body_bytes += len;
	t->hash = castls_hash(body, len, t->hash ^ 2);
	t->hash = castls_hash(&len, sizeof(len), t->hash);
	/* The depth check is monotonic in its limit. */
	for (d = 0; d < 4; d++)
		if (json_depth_ok(body, len, d) &&
		    !json_depth_ok(body, len, d + 1))
			die("json_depth_ok not monotonic");
	(void)json_depth_ok(body, len, LSP_MAX_JSON_DEPTH);
}

static Trace run(const uint8_t *data, size_t size, bool sliced)
{
	Trace t = {0, 0, 0};
	Framer *f = framer_new(FUZZ_MAX_BODY, on_frame, &t);
	uint64_t rng = castls_hash(data, size, 42);
	size_t at = 0;

	while (at < size) {
		size_t n = size - at;

		if (sliced) {
			rng = rng * 6364136223846793005ull +
			      1442695040888963407ull;
			/* Mostly tiny slices, sometimes larger ones. */
			n = (rng >> 60) < 12 ? (size_t)(rng >> 33) % 8 + 1
					    : (size_t)(rng >> 33) % 512 + 1;
			if (n > size - at)
				n = size - at;
		}
		framer_feed(f, (const char *)data + at, n);
		at += n;
	}
	framer_delete(f);
	return t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Trace whole = run(data, size, false);
	Trace sliced = run(data, size, true);

	if (whole.hash != sliced.hash || whole.events != sliced.events)
		die("events depend on how the input was sliced");
	if (whole.body_bytes > size)
		die("delivered more body bytes than were fed");
	return 0;
}
