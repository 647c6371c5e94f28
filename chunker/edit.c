/*
 * edit.c: a chunking carried across text edits without a parse. Bytes
 * after an edit shift by its length difference, the chunk and the spans
 * that hold it grow or shrink, and lines and sizes are recomputed from the
 * new text. The result tiles the new text and says what each chunk holds,
 * but its boundaries are the old ones: a stand-in until the next parse.
 */
#include "spans_int.h"

#include <string.h>

/* ---------------------------------------------------------------------- *
 * Copies and comparison
 * ---------------------------------------------------------------------- */

/* The spans of from into to, with their strings when strings. */
static void copy_spans(const Chunking *from, Chunking *to, bool strings)
{
	to->spans = NULL;
	to->nspans = from->nspans;
	if (!from->nspans)
		return;
	to->spans = xmalloc(from->nspans * sizeof(*to->spans));
	memcpy(to->spans, from->spans, from->nspans * sizeof(*to->spans));
	for (uint32_t i = 0; i < from->nspans; i++) {
		Span *s = &to->spans[i];
		const Span *f = &from->spans[i];

		s->name = strings ? xstrdup(f->name) : NULL;
		s->qualname = strings ? xstrdup(f->qualname) : NULL;
		s->header = strings ? xstrdup(f->header) : NULL;
		s->doc = strings ? xstrdup(f->doc) : NULL;
	}
}

/* from into to, the spans' strings when strings. */
static void copy(const Chunking *from, Chunking *to, bool strings)
{
	*to = *from;
	to->chunks = NULL;
	if (from->nchunks) {
		to->chunks = xmalloc(from->nchunks * sizeof(*to->chunks));
		memcpy(to->chunks, from->chunks,
		       from->nchunks * sizeof(*to->chunks));
	}
	copy_spans(from, to, strings);
}

void chunking_copy_places(const Chunking *from, Chunking *to)
{
	copy(from, to, false);
}

void chunking_copy(const Chunking *from, Chunking *to) { copy(from, to, true); }

void spans_copy(const Chunking *from, Chunking *to)
{
	copy_spans(from, to, true);
}

static bool span_equal(const Span *a, const Span *b)
{
	return a->kind == b->kind && a->parent == b->parent &&
	       a->bytes.start == b->bytes.start &&
	       a->bytes.end == b->bytes.end &&
	       a->lines.start == b->lines.start &&
	       a->lines.end == b->lines.end && a->body_start == b->body_start &&
	       strcmp(a->name, b->name) == 0 &&
	       strcmp(a->qualname, b->qualname) == 0 &&
	       strcmp(a->header, b->header) == 0;
}

static bool chunk_equal(const Chunk *a, const Chunk *b)
{
	return a->kind == b->kind && a->span == b->span &&
	       a->bytes.start == b->bytes.start &&
	       a->bytes.end == b->bytes.end &&
	       a->lines.start == b->lines.start &&
	       a->lines.end == b->lines.end && a->size == b->size;
}

bool chunking_equal(const Chunking *a, const Chunking *b)
{
	if (a->lang != b->lang || a->nchunks != b->nchunks ||
	    a->nspans != b->nspans)
		return false;
	for (uint32_t i = 0; i < a->nchunks; i++)
		if (!chunk_equal(&a->chunks[i], &b->chunks[i]))
			return false;
	for (uint32_t i = 0; i < a->nspans; i++)
		if (!span_equal(&a->spans[i], &b->spans[i]))
			return false;
	return true;
}

/* ---------------------------------------------------------------------- *
 * Edits
 * ---------------------------------------------------------------------- */

/* A position at or after the edit [a, b) moves by delta; one inside the
 * removed bytes has no place left (the caller refuses those). */
static uint32_t moved(uint32_t pos, uint32_t b, int64_t delta)
{
	return pos >= b ? (uint32_t)((int64_t)pos + delta) : pos;
}

/* Applies one edit to c's bytes; false when it does not fall inside one
 * chunk, or cuts across a span's edge or where its body starts. *touched
 * receives the chunk. */
static bool edit_one(Chunking *c, const TSInputEdit *e, uint32_t *touched)
{
	uint32_t a = e->start_byte, b = e->old_end_byte, k, width;
	int64_t delta = (int64_t)e->new_end_byte - (int64_t)b;

	if (b < a || c->nchunks == 0)
		return false;
	/* The chunk holding a; an insertion at a boundary goes to the
	 * chunk after it, or to the last chunk at the end of the text. */
	for (k = 0; k < c->nchunks; k++)
		if (a < c->chunks[k].bytes.end)
			break;
	if (k == c->nchunks) {
		k = c->nchunks - 1;
		if (a != c->chunks[k].bytes.end || b != a)
			return false;
	}
	width = c->chunks[k].bytes.end - c->chunks[k].bytes.start;
	if (b > c->chunks[k].bytes.end || (int64_t)width + delta <= 0)
		return false;
	for (uint32_t i = 0; i < c->nspans; i++) {
		Span *s = &c->spans[i];
		bool holds = s->bytes.start <= a && b <= s->bytes.end &&
			     (s->bytes.start < a || b < s->bytes.end || a == b);

		if (holds) {
			/* An edit before the body changes the header (made
			 * again from the new text) and maybe the name (which
			 * stays stale until the parse; so does a doc). */
			if (a < s->body_start && b > s->body_start)
				return false;
			if (a < s->body_start) {
				s->body_start = moved(s->body_start, b, delta);
				s->header[0] = '\0'; /* see chunking_edit */
			}
			s->bytes.end =
			    (uint32_t)((int64_t)s->bytes.end + delta);
			continue;
		}
		if (s->bytes.end <= a)
			continue;
		if (s->bytes.start < b)
			return false;
		s->bytes.start = moved(s->bytes.start, b, delta);
		s->bytes.end = moved(s->bytes.end, b, delta);
		s->body_start = moved(s->body_start, b, delta);
	}
	c->chunks[k].bytes.end =
	    (uint32_t)((int64_t)c->chunks[k].bytes.end + delta);
	for (uint32_t i = k + 1; i < c->nchunks; i++) {
		c->chunks[i].bytes.start =
		    moved(c->chunks[i].bytes.start, b, delta);
		c->chunks[i].bytes.end =
		    moved(c->chunks[i].bytes.end, b, delta);
	}
	*touched = k;
	return true;
}

static LineRange lines_of(const uint32_t *starts, uint32_t n, ByteRange r)
{
	uint32_t last = r.end > r.start ? r.end - 1 : r.start;

	return (LineRange){line_of(starts, n, r.start),
			   line_of(starts, n, last)};
}

int chunking_edit(Chunking *c, const TSInputEdit *edits, uint32_t nedits,
		  const char *text, uint32_t len)
{
	bool *touched = xcalloc(c->nchunks + 1, sizeof(*touched));
	uint32_t *starts, nlines = 1, cap = 64, k;
	int err = 0;

	for (uint32_t i = 0; i < nedits && !err; i++) {
		if (edit_one(c, &edits[i], &k))
			touched[k] = true;
		else
			err = CASTLS_EINVAL;
	}
	if (err || c->nchunks == 0 ||
	    c->chunks[c->nchunks - 1].bytes.end != len) {
		xfree(touched);
		return err ? err : CASTLS_EINVAL;
	}
	starts = xmalloc(cap * sizeof(*starts));
	starts[0] = 0;
	for (const char *p = text, *end = text + len;
	     (p = memchr(p, '\n', (size_t)(end - p))) && ++p < end;) {
		if (nlines == cap)
			starts = xrealloc(starts, (cap *= 2) * sizeof(*starts));
		starts[nlines++] = (uint32_t)(p - text);
	}
	for (uint32_t i = 0; i < c->nchunks; i++) {
		Chunk *ck = &c->chunks[i];

		ck->lines = lines_of(starts, nlines, ck->bytes);
		if (touched[i])
			ck->size = (uint32_t)castls_count_nonspace(
			    text + ck->bytes.start,
			    ck->bytes.end - ck->bytes.start);
	}
	for (uint32_t i = 0; i < c->nspans; i++) {
		Span *s = &c->spans[i];

		s->lines = lines_of(starts, nlines, s->bytes);
		if (s->header[0] == '\0') { /* edited, or empty before */
			xfree(s->header);
			s->header = spans_header(text, s->bytes, s->body_start);
		}
	}
	xfree(starts);
	xfree(touched);
	return 0;
}
