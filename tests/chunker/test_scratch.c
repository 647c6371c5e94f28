/*
 * test_scratch.c: the scratch heap for throwaway trees (chunker/scratch.c).
 *
 * The allocator's own contract first, then the one that matters: a tree
 * parsed in the scratch heap chunks exactly like a tree on the heap, over
 * every fixture and over an input large enough to need several blocks.
 * The binary runs under AddressSanitizer, which also sees the scratch
 * heap's poisoning: a tree used after its scope would be reported.
 */
#include <stdlib.h>

#include "chunker/chunker_int.h"
#include "test.h"

/* Fills n bytes at p with a pattern that depends on seed. */
static void fill(unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)(i * 31 + seed);
}

static bool filled(const unsigned char *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != (unsigned char)(i * 31 + seed))
			return false;
	return true;
}

TEST(scratch_allocator_contract)
{
	Scratch *s = scratch_new();
	unsigned char *heap = scratch__malloc(64), *a, *b, *c, *d, *e;
	unsigned char *big[64];
	size_t i;

	ASSERT_TRUE(scratch_ready());
	fill(heap, 64, 7);
	scratch_enter(s);

	/* The last allocation grows in place and is given back by a free. */
	a = scratch__malloc(100);
	fill(a, 100, 1);
	b = scratch__realloc(a, 200);
	EXPECT_TRUE(b == a);
	EXPECT_TRUE(filled(b, 100, 1));
	fill(b, 200, 2);
	c = scratch__malloc(10);
	d = scratch__realloc(b, 5000); /* not the last: moved */
	EXPECT_TRUE(d != b);
	EXPECT_TRUE(filled(d, 200, 2));
	scratch__free(d);
	e = scratch__malloc(5000);
	EXPECT_TRUE(e == d);
	scratch__free(c); /* not the last: nothing happens */
	EXPECT_TRUE(scratch__malloc(16) == e + 5008 + 16);

	/* calloc zeroes memory a free just gave back. */
	fill(e, 5000, 3);
	scratch__free(scratch__malloc(1)); /* the last again: e is not */
	d = scratch__malloc(4000);
	fill(d, 4000, 9);
	scratch__free(d);
	d = scratch__calloc(1000, 4);
	for (i = 0; i < 4000 && !d[i]; i++)
		;
	EXPECT_INT_EQ(i, 4000);

	/* Heap memory stays the heap's inside a scope. */
	heap = scratch__realloc(heap, 100000);
	EXPECT_TRUE(filled(heap, 64, 7));

	/* More than a block: every allocation keeps its bytes. */
	for (i = 0; i < 64; i++) {
		big[i] = scratch__malloc(64 * 1024);
		fill(big[i], 64 * 1024, (unsigned)i);
	}
	for (i = 0; i < 64; i++)
		CHECK_(filled(big[i], 64 * 1024, (unsigned)i), (void)0,
		       "allocation %zu was overwritten", i);
	scratch_leave(s);
	EXPECT_TRUE(scratch_peak(s) >= 64 * 64 * 1024);

	/* Outside a scope: the heap. */
	a = scratch__malloc(32);
	scratch__free(a);
	scratch__free(heap);

	/* The scope after a large one starts over in one block. */
	scratch_enter(s);
	a = scratch__malloc(3u << 20);
	b = scratch__malloc(16);
	EXPECT_TRUE(b == a + (3u << 20) + 16);
	scratch_leave(s);

	/* Trimmed, it starts again from nothing. */
	scratch_trim(s);
	scratch_enter(s);
	a = scratch__malloc(100);
	fill(a, 100, 5);
	EXPECT_TRUE(filled(a, 100, 5));
	scratch_leave(s);
	scratch_delete(s);
}

/* Chunks and spans of a and b are the same, byte for byte. */
static bool same_chunking(const char *what, const Chunking *a,
			  const Chunking *b)
{
	if (a->nchunks != b->nchunks || a->nspans != b->nspans)
		return test_fail(__FILE__, __LINE__,
				 "%s: %u chunks %u spans, want %u and %u", what,
				 a->nchunks, a->nspans, b->nchunks, b->nspans);
	if (a->nchunks &&
	    memcmp(a->chunks, b->chunks, a->nchunks * sizeof(*a->chunks)))
		return test_fail(__FILE__, __LINE__, "%s: chunks differ", what);
	for (uint32_t i = 0; i < a->nspans; i++) {
		const Span *x = &a->spans[i], *y = &b->spans[i];

		if (x->kind != y->kind || x->parent != y->parent ||
		    x->bytes.start != y->bytes.start ||
		    x->bytes.end != y->bytes.end ||
		    x->lines.start != y->lines.start ||
		    x->lines.end != y->lines.end ||
		    strcmp(x->qualname, y->qualname) ||
		    strcmp(x->header, y->header) ||
		    strcmp(x->doc ? x->doc : "", y->doc ? y->doc : ""))
			return test_fail(__FILE__, __LINE__,
					 "%s: span %u (%s) differs", what, i,
					 x->qualname);
	}
	return a->had_errors == b->had_errors ||
	       test_fail(__FILE__, __LINE__, "%s: had_errors differs", what);
}

/* Chunks text with a throwaway tree and with a tree of its own; both
 * ways, spans alone too. */
static void compare(Chunker *ch, const char *what, Lang lang,
		    const char *text, uint32_t len)
{
	TSTree *tree = chunker_parse(ch, lang, text, len, NULL);
	Chunking once, kept;

	ASSERT_TRUE(tree != NULL);
	ASSERT_INT_EQ(chunker_run(ch, lang, text, len, NULL, &once), 0);
	ASSERT_INT_EQ(chunker_run(ch, lang, text, len, tree, &kept), 0);
	EXPECT_TRUE(kept.nchunks > 0);
	same_chunking(what, &once, &kept);
	chunking_close(&once);
	chunking_close(&kept);
	ASSERT_INT_EQ(chunker_spans(ch, lang, text, len, NULL, &once), 0);
	ASSERT_INT_EQ(chunker_spans(ch, lang, text, len, tree, &kept), 0);
	same_chunking(what, &once, &kept);
	chunking_close(&once);
	chunking_close(&kept);
	ts_tree_delete(tree);
}

TEST(throwaway_trees_chunk_like_kept_trees)
{
	static const char *const names[] = {
		"python/class_split.py", "python/big_function.py",
		"python/giant_docstring.py", "typescript/shapes.ts",
		"tsx/component.tsx", "javascript/module.js", "bash/deploy.sh",
	};
	Chunker *ch = chunker_new(0);
	Buf big = {0};
	size_t len;

	/* Several megabytes of scratch heap: more than one block. */
	for (int i = 0; i < 3000; i++)
		buf_printf(&big,
			   "class C%d(Base):\n    \"\"\"Doc %d.\"\"\"\n\n"
			   "    def m%d(self, x, y=[1, 2, {3: 'a'}]):\n"
			   "        return [v * %d for v in (x, y) if v]\n\n",
			   i, i, i, i);
	compare(ch, "big", LANG_PYTHON, big.data, (uint32_t)big.len);
	EXPECT_TRUE(chunker_scratch_peak(ch) > (2u << 20));
	chunker_trim(ch);
	for (size_t f = 0; f < sizeof(names) / sizeof(*names); f++) {
		char *text = test_read_fixture(names[f], &len);

		compare(ch, names[f], lang_detect(names[f], text, len), text,
			(uint32_t)len);
		free(text);
	}
	/* Larger again after small ones, then a parse with errors. */
	buf_puts(&big, "def broken(:\n    return )\n");
	compare(ch, "big, broken", LANG_PYTHON, big.data, (uint32_t)big.len);
	buf_free(&big);
	chunker_delete(ch);
}
