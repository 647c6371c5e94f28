/*
 * rank.c: the entry points. rank_context runs the steps of rank_int.h for
 * a cursor; rank_search merges the lexical hits of every root by score
 * before packing them.
 */
#include "rank_int.h"

#include <stdlib.h>
#include <string.h>

/* Each root's reads of one request see one state of its index. */
static void read_roots(const RankRoot *roots, uint32_t n, bool begin)
{
	for (uint32_t r = 0; r < n; r++) {
		if (!roots[r].ix)
			continue;
		if (begin)
			(void)index_read_begin(roots[r].ix);
		else
			index_read_end(roots[r].ix);
	}
}

int rank_context(const RankCursor *q, RankResult *out)
{
	Where w;

	memset(out, 0, sizeof(*out));
	out->budget = q->budget;
	if (q->cursor > q->len)
		return CASTLS_EINVAL;
	read_roots(q->roots, q->nroots, true);
	rank__locate(&w, q);
	rank__gather(&w);
	rank__score(&w);
	if (rank__worth_it(&w))
		rank__pack(&w, out);
	read_roots(q->roots, q->nroots, false);
	out->no_context = out->nitems == 0;
	out->statements = w.statements;
	rank__where_free(&w);
	return 0;
}

void rank_result_free(RankResult *r)
{
	if (!r)
		return;
	for (uint32_t i = 0; i < r->nitems; i++)
		rank__item_clear(&r->items[i]);
	xfree(r->items);
	memset(r, 0, sizeof(*r));
}

/* ---------------------------------------------------------------------- *
 * Free-text search
 * ---------------------------------------------------------------------- */

typedef struct {
	int root;
	IndexHit *hit;
	uint32_t order; /* in the order found: root, then rank */
} Found;

static int cmp_found(const void *a, const void *b)
{
	const Found *x = a, *y = b;

	if (x->hit->score != y->hit->score)
		return x->hit->score < y->hit->score ? 1 : -1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The item for hit h of root r; chain holds its enclosing spans. */
static void hit_item(const Found *f, const IndexSpan *chain, uint32_t n,
		     RankItem *it)
{
	const IndexHit *h = f->hit;
	const char *inner = "";
	size_t cost = strlen(h->text);

	memset(it, 0, sizeof(*it));
	rank__parents_from(chain, n, h->span_id, h->bytes.start, it, &inner);
	for (uint32_t i = 0; i < it->nparents; i++)
		cost += strlen(it->parents[i].header) + 1;
	it->root = f->root;
	it->path = xstrdup(h->path);
	it->lang = h->lang;
	it->kind = h->kind;
	it->lines = h->lines;
	it->symbol = xstrdup(inner);
	it->score = h->score;
	it->signals.bm25 = h->score;
	it->signals.defines = xstrdup("");
	it->signals.joined = xstrdup("");
	it->text = xstrdup(h->text);
	it->tokens = rank_tokens(cost);
}

int rank_search(const RankRoot *roots, uint32_t nroots, const char *query,
		size_t len, uint32_t budget, uint32_t limit, RankResult *out)
{
	IndexHit **hits = xcalloc(nroots + 1, sizeof(*hits));
	uint32_t *nhits = xcalloc(nroots + 1, sizeof(*nhits));
	IndexSpan **chains = xcalloc(nroots + 1, sizeof(*chains));
	uint32_t *nchains = xcalloc(nroots + 1, sizeof(*nchains));
	Found *found = NULL;
	uint32_t nfound = 0;

	memset(out, 0, sizeof(*out));
	out->budget = budget;
	limit = limit ? limit : RANK_DEFAULT_LIMIT;
	read_roots(roots, nroots, true);
	for (uint32_t r = 0; r < nroots; r++) {
		Index *ix = roots[r].ix;
		uint64_t before;
		int64_t *ids;

		if (!ix)
			continue;
		before = index_statements(ix);
		if (index_search(ix, query, len, limit, &hits[r], &nhits[r]))
			continue;
		found = xrealloc(found, (nfound + nhits[r]) * sizeof(*found));
		ids = xmalloc((nhits[r] + 1) * sizeof(*ids));
		for (uint32_t i = 0; i < nhits[r]; i++) {
			found[nfound] = (Found){(int)r, &hits[r][i], nfound};
			nfound++;
			ids[i] = hits[r][i].span_id;
		}
		index_span_chains(ix, ids, nhits[r], &chains[r], &nchains[r]);
		xfree(ids);
		out->statements += index_statements(ix) - before;
	}
	/* All roots' hits by score, then packed: one root cannot crowd out
	 * a better hit of another. */
	if (nfound)
		qsort(found, nfound, sizeof(*found), cmp_found);
	out->items = xcalloc(limit, sizeof(*out->items));
	for (uint32_t i = 0; i < nfound && out->nitems < limit; i++) {
		RankItem *it = &out->items[out->nitems];
		int r = found[i].root;

		if (!index_file_current(roots[r].ix, found[i].hit->file_id)) {
			out->stale++;
			if (r >= 0 && r < 64)
				out->stale_roots |= (uint64_t)1 << r;
			continue;
		}
		hit_item(&found[i], chains[r], nchains[r], it);
		if (it->tokens > budget - out->used) {
			rank__item_clear(it);
			continue;
		}
		out->used += it->tokens;
		out->nitems++;
	}
	read_roots(roots, nroots, false);
	out->no_context = out->nitems == 0;
	for (uint32_t r = 0; r < nroots; r++) {
		index_hits_free(hits[r], nhits[r]);
		index_spans_free(chains[r], nchains[r]);
	}
	xfree(found);
	xfree(hits);
	xfree(nhits);
	xfree(chains);
	xfree(nchains);
	return 0;
}
