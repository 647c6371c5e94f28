/*
 * context.c: castls/context and castls/search on a worker thread. Borrows
 * a connection per root and a chunker, hands them to rank/ with the
 * snapshot, and renders what comes back.
 */
#include "lsp_int.h"

#include <string.h>

/* The roots as rank/ takes them, each with a connection; roots[i].ix is
 * NULL where none could be had. Release with roots_give_back. */
static uint32_t roots_borrow(Pools *p, RankRoot *roots, const char **paths)
{
	uint32_t n = (uint32_t)p->nroots;

	for (uint32_t r = 0; r < n; r++) {
		Root *root = p->roots[r];
		int err;

		paths[r] = root->path;
		roots[r].path = root->path;
		roots[r].ix =
		    root->removed ? NULL : lsp__pools_index(p, root, &err);
	}
	return n;
}

/* Gives the connections back, and marks the roots whose rows were found
 * older than their files, for the loop to re-scan (lsp__server_stale). */
static void roots_give_back(Pools *p, RankRoot *roots, uint32_t n,
			    const RankResult *res)
{
	for (uint32_t r = 0; r < n; r++) {
		if (roots[r].ix)
			lsp__pools_index_return(p->roots[r], roots[r].ix);
		if (r < 64 && (res->stale_roots >> r & 1))
			atomic_store(&p->roots[r]->stale, true);
	}
}

cJSON *lsp__context_run(Pools *p, const Snapshot *sn, const ContextArgs *a)
{
	RankRoot roots[MAX_ROOTS] = {{0}};
	const char *paths[MAX_ROOTS];
	RankCursor q = {0};
	RankResult res;
	cJSON *out;

	q.nroots = roots_borrow(p, roots, paths);
	q.roots = roots;
	q.chunker = lsp__pools_chunker(p);
	q.root = sn->root;
	q.rel = sn->rel;
	q.lang = sn->lang;
	q.text = sn->text;
	q.len = sn->len;
	q.tree = sn->tree;
	q.cursor = a->cursor;
	q.budget = a->budget;
	q.limit = a->limit;
	rank_context(&q, &res);
	lsp__pools_chunker_return(p, q.chunker);
	roots_give_back(p, roots, q.nroots, &res);
	out = lsp__render_result(&res, paths, sn->uri);
	rank_result_free(&res);
	return out;
}

cJSON *lsp__search_run(Pools *p, const char *query, uint32_t budget,
		       uint32_t limit)
{
	RankRoot roots[MAX_ROOTS] = {{0}};
	const char *paths[MAX_ROOTS];
	uint32_t n = roots_borrow(p, roots, paths);
	RankResult res;
	cJSON *out;

	rank_search(roots, n, query, strlen(query), budget, limit, &res);
	roots_give_back(p, roots, n, &res);
	out = lsp__render_result(&res, paths, NULL);
	rank_result_free(&res);
	return out;
}
