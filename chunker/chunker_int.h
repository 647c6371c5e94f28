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

/* Line of byte offset off, given a sorted array of line-start offsets. */
uint32_t line_of(const uint32_t *line_starts, uint32_t nlines, uint32_t off);

#endif
