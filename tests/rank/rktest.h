/*
 * rktest.h: the harness of the rank tests (test_rank.c,
 * test_rank_langs.c): a small workspace written to disk and indexed into
 * a real SQLite file, and the context at a cursor marked "<|>" in a
 * buffer's text. Static inline, as ixtest.h is.
 */
#ifndef CASTLS_TESTS_RKTEST_H
#define CASTLS_TESTS_RKTEST_H

#include "index/ixtest.h"
#include "rank/rank.h"

#define CURSOR "<|>"

typedef struct {
	const char *rel, *text;
} File;

typedef struct {
	char *tmp, *root, *db;
	Index *ix;
	Chunker *ch;
	RankRoot rr;
} Ws;

/* A workspace of the given files (ended by a {NULL}), indexed. */
static inline void ws_open(Ws *w, const File *files)
{
	IndexOptions o = {0};
	ScanStats st;

	memset(w, 0, sizeof(*w));
	w->tmp = ixt_tmpdir();
	w->root = ixt_path(w->tmp, "ws");
	w->db = ixt_path(w->tmp, "index.db");
	ixt_mkdirs(w->root);
	for (const File *f = files; f->rel; f++)
		ixt_write(w->root, f->rel, f->text);
	o.root = w->root;
	o.db_path = w->db;
	o.quiet = true;
	if (index_open(&o, &w->ix) ||
	    index_scan(w->ix, 1, NULL, NULL, NULL, &st))
		ixt_die("index", w->root);
	w->ch = chunker_new(0);
	w->rr = (RankRoot){w->ix, w->root};
}

/* ws_open of files and n more, dir/<k><ext> for k from 0 (two digits),
 * each holding text: a name defined in many places. */
static inline void ws_open_many(Ws *w, const File *files, int n,
				const char *dir, const char *ext,
				const char *text)
{
	int nf = 0;
	File *all;
	char **rels = xmalloc((size_t)n * sizeof(*rels));

	while (files[nf].rel)
		nf++;
	all = xmalloc((size_t)(n + nf + 1) * sizeof(*all));
	for (int k = 0; k < n; k++) {
		Buf b = {0};

		buf_printf(&b, "%s/%02d%s", dir, k, ext);
		rels[k] = buf_take(&b);
		all[k] = (File){rels[k], text};
	}
	memcpy(all + n, files, (size_t)(nf + 1) * sizeof(*all));
	ws_open(w, all);
	for (int k = 0; k < n; k++)
		xfree(rels[k]);
	xfree(rels);
	xfree(all);
}

static inline void ws_close(Ws *w)
{
	index_close(w->ix);
	chunker_delete(w->ch);
	ixt_rmtree(w->tmp);
	xfree(w->tmp);
	xfree(w->root);
	xfree(w->db);
}

/* The context at the CURSOR mark of text, the unsaved buffer of rel. */
static inline void rank_at(Ws *w, const char *rel, const char *marked,
			   uint32_t budget, RankResult *out)
{
	const char *at = strstr(marked, CURSOR);
	Buf text = {0};
	RankCursor q = {0};

	if (!at)
		ixt_die("no cursor mark in", rel);
	buf_append(&text, marked, (size_t)(at - marked));
	buf_puts(&text, at + strlen(CURSOR));
	q.roots = &w->rr;
	q.nroots = 1;
	q.chunker = w->ch;
	q.root = 0;
	q.rel = rel;
	q.lang = lang_detect(rel, text.data, text.len);
	q.text = text.data;
	q.len = (uint32_t)text.len;
	q.cursor = (uint32_t)(at - marked);
	q.budget = budget;
	q.limit = 20;
	if (rank_context(&q, out) != 0)
		ixt_die("rank_context", rel);
	buf_free(&text);
}

/* The ranked list on stderr, to explain a failure. */
static inline void explain(const RankResult *r)
{
	fprintf(stderr, "  ranked (%u items, %u/%u tokens%s):\n", r->nitems,
		r->used, r->budget, r->no_context ? ", noContext" : "");
	for (uint32_t i = 0; i < r->nitems; i++) {
		Buf why = {0};

		rank_why(&r->items[i], &why);
		fprintf(stderr, "  %u. %s:%u %s %.3f (%s)\n", i,
			r->items[i].in_buffer ? "(buffer)" : r->items[i].path,
			r->items[i].lines.start + 1, r->items[i].symbol,
			r->items[i].score, why.data);
		buf_free(&why);
	}
}

/* The rank of the first item of path (and symbol, when given), or -1. */
static inline int find(const RankResult *r, const char *path,
		       const char *symbol)
{
	for (uint32_t i = 0; i < r->nitems; i++)
		if (!r->items[i].in_buffer &&
		    strcmp(r->items[i].path, path) == 0 &&
		    (!symbol || strcmp(r->items[i].symbol, symbol) == 0))
			return (int)i;
	if (getenv("RANK_EXPLAIN"))
		explain(r);
	return -1;
}

/* The item of symbol from the buffer itself, or NULL. */
static inline const RankItem *buffer_item(const RankResult *r,
					  const char *symbol)
{
	for (uint32_t i = 0; i < r->nitems; i++)
		if (r->items[i].in_buffer &&
		    strcmp(r->items[i].symbol, symbol) == 0)
			return &r->items[i];
	return NULL;
}

/* Item's why, in rank_why's words (the caller's to xfree). */
static inline char *why_of(const RankItem *item)
{
	Buf b = {0};

	rank_why(item, &b);
	return buf_take(&b);
}

/* Whether item's why holds words. */
static inline bool why_says(const RankItem *item, const char *words)
{
	char *why = why_of(item);
	bool found = why && strstr(why, words) != NULL;

	xfree(why);
	return found;
}

#endif
