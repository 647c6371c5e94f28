/*
 * fuzz_chunker.c: libFuzzer entry point for the chunker.
 *
 * Input layout: byte 0 picks the language (low 3 bits) and two modes,
 * byte 1 the chunk size, the rest is the text. Mode 0x40 maps NUL and
 * other control bytes to letters first, so mutations that insert them do
 * not all end at the binary-file check; mode 0x80 chunks the text a
 * second time from a tree parsed beforehand, which must give the same
 * chunks. Every result must tile the text exactly, keep chunks within the
 * size (an over-size chunk would have to be a single character), count
 * its oversized chunks right, and nest its spans; any violation aborts.
 * The text is handed over without a terminating NUL, at the end of its
 * allocation, so a read past it is caught by ASan.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chunker/chunker.h"

#define MODE_TEXTUAL 0x40
#define MODE_TREE 0x80

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void die(const char *what, uint32_t byte)
{
	fprintf(stderr, "fuzz_chunker: %s (byte %u)\n", what, byte);
	abort();
}

/* Small sizes split hardest; a few larger ones keep the merge path in
 * play: 1..200, then 200 + 64 * k. */
static uint32_t size_from(uint8_t b)
{
	return b < 200 ? 1u + b : 200u + (b - 200u) * 64u;
}

static uint32_t nonspace(const char *t, uint32_t a, uint32_t b)
{
	uint32_t n = 0;

	for (; a < b; a++)
		n += utf8_is_lead((unsigned char)t[a]) &&
		     !is_space_byte((unsigned char)t[a]);
	return n;
}

static void check_chunks(const Chunking *c, const char *t, uint32_t len,
			 uint32_t max)
{
	uint32_t i, at = 0, over = 0;

	if ((c->nchunks == 0) != (len == 0))
		die("chunk count does not match emptiness", 0);
	for (i = 0; i < c->nchunks; i++) {
		const Chunk *k = &c->chunks[i];
		uint32_t n;

		if (k->bytes.start != at || k->bytes.end <= at ||
		    k->bytes.end > len)
			die("chunks do not tile the text", at);
		n = nonspace(t, k->bytes.start, k->bytes.end);
		if (n != k->size)
			die("chunk size miscounted", at);
		if (k->lines.start > k->lines.end ||
		    (i && k->lines.start < c->chunks[i - 1].lines.end))
			die("chunk lines out of order", at);
		if (k->span >= (int32_t)c->nspans || k->span < -1)
			die("chunk span out of range", at);
		if (n > max) {
			over++;
			if (n > 1) /* anything longer can be cut */
				die("chunk over max_size", at);
		}
		at = k->bytes.end;
	}
	if (at != len)
		die("chunks stop short of the end", at);
	if (over != c->oversized)
		die("oversized miscounted", 0);
}

static void check_spans(const Chunking *c, uint32_t len)
{
	uint32_t i;

	for (i = 0; i < c->nspans; i++) {
		const Span *s = &c->spans[i];
		const Span *p = s->parent >= 0 ? &c->spans[s->parent] : NULL;

		if (s->bytes.start > s->bytes.end || s->bytes.end > len)
			die("span outside the text", s->bytes.start);
		if (s->parent >= (int32_t)i || s->parent < -1)
			die("span parent does not precede it", s->bytes.start);
		if (p && (s->bytes.start < p->bytes.start ||
			  s->bytes.end > p->bytes.end))
			die("span outside its parent", s->bytes.start);
		if (i && s->bytes.start < c->spans[i - 1].bytes.start)
			die("spans out of order", s->bytes.start);
		if (!s->name || !s->qualname || !s->header || !s->doc)
			die("span string missing", s->bytes.start);
	}
}

/* Same chunks, byte for byte and kind for kind. */
static void check_same(const Chunking *a, const Chunking *b)
{
	uint32_t i;

	if (a->nchunks != b->nchunks || a->nspans != b->nspans)
		die("a given tree changed the result", 0);
	for (i = 0; i < a->nchunks; i++)
		if (a->chunks[i].bytes.end != b->chunks[i].bytes.end ||
		    a->chunks[i].kind != b->chunks[i].kind ||
		    a->chunks[i].span != b->chunks[i].span)
			die("a given tree changed the result",
			    a->chunks[i].bytes.start);
}

/* One Chunker for the whole run, its size set for each input: making
 * one per input (its parsers, span tables and scratch heap, first
 * touched page by page) cost about a third of each execution. The scan
 * and the server reuse theirs across files too. */
static Chunker *chunker;

static Chunker *chunker_for(uint8_t size_byte)
{
	if (!chunker)
		chunker = chunker_new(0);
	chunker_set_max_size(chunker, size_from(size_byte));
	return chunker;
}

static void run(Chunker *ch, Lang lang, const char *t, uint32_t len,
		bool with_tree)
{
	Chunking c, again;
	TSTree *tree;
	int err = chunker_run(ch, lang, t, len, NULL, &c);

	if (err == CASTLS_EBINARY)
		return;
	if (err)
		die(castls_strerror(err), 0);
	check_chunks(&c, t, len, chunker_max_size(ch));
	check_spans(&c, len);
	if (with_tree) {
		tree = chunker_parse(ch, lang, t, len, NULL);
		if (chunker_run(ch, lang, t, len, tree, &again))
			die("second run failed", 0);
		check_same(&c, &again);
		chunking_close(&again);
		if (tree)
			ts_tree_delete(tree);
	}
	chunking_close(&c);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	castls_init_allocators();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Lang lang;
	uint32_t len, i;
	char *text;

	if (size < 2 || size - 2 > CHUNKER_MAX_INPUT)
		return 0;
	lang = (Lang)(1 + (data[0] & 7) % (LANG_COUNT - 1));
	len = (uint32_t)(size - 2);
	/* A copy of exactly len bytes: no terminator to lean on. */
	text = xmalloc(len ? len : 1);
	memcpy(text, data + 2, len);
	if (data[0] & MODE_TEXTUAL)
		for (i = 0; i < len; i++)
			if ((unsigned char)text[i] < 0x20 &&
			    !is_space_byte((unsigned char)text[i]))
				text[i] = (char)('a' + text[i] % 26);
	run(chunker_for(data[1]), lang, text, len, data[0] & MODE_TREE);
	xfree(text);
	return 0;
}
