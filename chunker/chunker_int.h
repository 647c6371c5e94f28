/*
 * chunker_int.h: shared between the files of chunker/ only.
 */
#ifndef CASTLS_CHUNKER_INT_H
#define CASTLS_CHUNKER_INT_H

#include "chunker.h"

/*
 * A syntax node for text without a grammar (Markdown). Node 0 is the root
 * and covers the whole text; children are in order, do not overlap and lie
 * inside their parent. Text between children belongs to no child.
 */
typedef struct {
	ByteRange bytes;
	int32_t first_child;  /* -1: a leaf */
	int32_t next_sibling; /* -1: the last child */
} SynNode;

typedef struct {
	SynNode *nodes;
	uint32_t n, cap;
} SynTree;

/* Appends a node (no links yet) and returns its index. */
int32_t syntree_add(SynTree *t, uint32_t start, uint32_t end);
void syntree_free(SynTree *t);

/*
 * Span list under construction. Strings are copied. Returns the index of
 * the new span. parent is -1 or an earlier index.
 */
int32_t spans_add(Chunking *c, uint32_t *cap, SpanKind kind, int32_t parent,
		  ByteRange bytes, uint32_t body_start, const char *text,
		  const char *name, size_t name_len, const char *qsep,
		  const char *doc, size_t doc_len);

/* The header of a span of text whose body starts at body_start, as
 * spans_add makes it; the caller xfrees it. */
char *spans_header(const char *text, ByteRange bytes, uint32_t body_start);

/*
 * Markdown: builds the section tree of text. Each heading starts a section
 * node that runs to the next heading of the same or a higher level; inside
 * it, the heading line, then blocks (paragraphs, lists, fenced code, tables)
 * as children, then subsections. A fenced block or a table is one leaf
 * node, so no cut falls inside it. Adds one SPAN_SECTION per heading.
 */
void markdown_build(const char *text, uint32_t len, SynTree *tree,
		    Chunking *out, uint32_t *span_cap);

/*
 * The scratch heap (scratch.c). Between scratch_enter and scratch_leave,
 * tree-sitter allocates on this thread from s, and leaving drops all of
 * it: the parser, tree and cursors made inside must not outlive the
 * scope, and are not deleted (ts_tree_delete) but dropped with it. One
 * scope at a time per thread; s is used by one thread at a time.
 */
typedef struct Scratch Scratch;

Scratch *scratch_new(void);
void scratch_delete(Scratch *s);
void scratch_enter(Scratch *s);
void scratch_leave(Scratch *s);
/* The most bytes one scope used. */
size_t scratch_peak(const Scratch *s);
/* Frees the memory s keeps for its next scope (none may be open). */
void scratch_trim(Scratch *s);
/* True once castls_init_allocators has given tree-sitter the allocator
 * that honours scopes; until then a scope would leak every tree. */
bool scratch_ready(void);

/* The allocator castls_init_allocators gives tree-sitter: the heap
 * (xmalloc and friends) outside a scope, the scratch inside one, where
 * a free gives back only the last allocation. Heap memory is freed and
 * reallocated on the heap, in a scope or not. */
void *scratch__malloc(size_t n);
void *scratch__calloc(size_t count, size_t size);
void *scratch__realloc(void *p, size_t n);
void scratch__free(void *p);

/* Line of byte offset off, given a sorted array of line-start offsets. */
uint32_t line_of(const uint32_t *line_starts, uint32_t nlines, uint32_t off);

#endif
