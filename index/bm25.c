/*
 * bm25.c: castls_bm25(), FTS5's bm25() that skips the rows it can prove
 * are not among the k best.
 *
 * bm25() reads each matching row's size from the docsize table, one
 * b-tree seek a row: a query whose terms match 20,000 chunks of a large
 * workspace spends most of its time there, to sort all of them and keep
 * the best 50. A row's score without its size is bounded: the size only
 * ever lowers it (length normalization at a size of zero). So this
 * function keeps the k best exact scores seen so far, and a row whose
 * bound does not beat the worst of them is answered with the bound,
 * unread: it sorts below k rows with better exact scores, so the top k
 * of an ORDER BY over the result, and their scores, are bm25()'s.
 *
 * The query's document frequencies may be given (search.c has counted
 * them), which spares bm25()'s pass over every phrase's posting list.
 *
 *   castls_bm25(fts, w_0, ..., w_ncol-1, k [, df_0, ..., df_nphrase-1])
 *
 * w_i: column weights, as bm25()'s. k: the rows the query keeps (its
 * LIMIT); 0 scores every row exactly. df_i: the rows phrase i matches;
 * without them, or with the wrong number, they are counted.
 *
 * The k best must be exactly the rows the ORDER BY ranks: the function
 * is for a query that scores each matching row once, sorts them all and
 * keeps k. (A row asked for again at once gets the same answer, and is
 * not counted twice.)
 */
#include "index_int.h"

#include <math.h>
#include <string.h>

#include "tokenize.h"

/* bm25()'s parameters. */
#define K1 1.2
#define B 0.75
#define COLUMNS_MAX 8
#define K_MAX (1 << 20)

typedef struct {
	int nphrase, ncol;
	double w[COLUMNS_MAX];
	double avgdl; /* mean tokens a row */
	double *idf;  /* per phrase */
	double *freq; /* per phrase, this row's weighted count (scratch) */
	int k;
	double *best; /* min-heap of the k best exact scores */
	int nbest;
	int64_t last; /* the row answered last */
	double score; /* and its answer */
} Query;

static void query_delete(void *p)
{
	Query *q = p;

	if (!q)
		return;
	xfree(q->idf);
	xfree(q->freq);
	xfree(q->best);
	xfree(q);
}

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *n)
{
	(void)api;
	(void)fts;
	(*(int64_t *)n)++;
	return SQLITE_OK;
}

/* The idf of a phrase in df of rows rows, as bm25() takes it: never
 * negative (a phrase in over half the rows still counts a little). */
static double idf_of(int64_t rows, int64_t df)
{
	double idf = log(((double)(rows - df) + 0.5) / ((double)df + 0.5));

	return idf > 0 ? idf : 1e-6;
}

static int query_new(const Fts5ExtensionApi *api, Fts5Context *fts, int nval,
		     sqlite3_value **val, Query **out)
{
	Query *q = xcalloc(1, sizeof(*q));
	sqlite3_int64 rows = 0, tokens = 0;
	int rc, ndf;

	*out = q;
	q->ncol = api->xColumnCount(fts);
	q->nphrase = api->xPhraseCount(fts);
	if (q->ncol > COLUMNS_MAX || nval < q->ncol + 1)
		return SQLITE_ERROR;
	for (int i = 0; i < q->ncol; i++)
		q->w[i] = sqlite3_value_double(val[i]);
	q->k = sqlite3_value_int(val[q->ncol]);
	if (q->k < 0 || q->k > K_MAX)
		return SQLITE_ERROR;
	q->best = xmalloc((size_t)(q->k ? q->k : 1) * sizeof(*q->best));
	q->idf = xcalloc((size_t)q->nphrase + 1, sizeof(*q->idf));
	q->freq = xcalloc((size_t)q->nphrase + 1, sizeof(*q->freq));
	q->last = INT64_MIN;
	if ((rc = api->xRowCount(fts, &rows)) ||
	    (rc = api->xColumnTotalSize(fts, -1, &tokens)))
		return rc;
	q->avgdl = rows ? (double)tokens / (double)rows : 1;
	ndf = nval - q->ncol - 1;
	for (int i = 0; i < q->nphrase; i++) {
		int64_t df = 0;

		if (ndf == q->nphrase)
			df = sqlite3_value_int64(val[q->ncol + 1 + i]);
		else if ((rc = api->xQueryPhrase(fts, i, &df, count_row)))
			return rc;
		q->idf[i] = idf_of(rows, df);
	}
	return SQLITE_OK;
}

/* Keeps score among the k best of q (a min-heap: the worst on top). */
static void best_offer(Query *q, double score)
{
	double *h = q->best;
	int i;

	if (q->nbest == q->k) {
		if (score <= h[0])
			return;
		for (i = 0;;) {
			int l = 2 * i + 1, r = l + 1, m = i;
			double v = score;

			if (l < q->k && h[l] < v)
				m = l, v = h[l];
			if (r < q->k && h[r] < v)
				m = r;
			if (m == i)
				break;
			h[i] = h[m];
			i = m;
		}
		h[i] = score;
		return;
	}
	for (i = q->nbest++; i > 0 && h[(i - 1) / 2] > score; i = (i - 1) / 2)
		h[i] = h[(i - 1) / 2];
	h[i] = score;
}

/* The row's score at document size dl (0: the bound for any size). */
static double score_at(const Query *q, double dl)
{
	double s = 0, norm = K1 * (1 - B + B * dl / q->avgdl);

	for (int i = 0; i < q->nphrase; i++)
		if (q->freq[i] > 0)
			s += q->idf[i] *
			     (q->freq[i] * (K1 + 1) / (q->freq[i] + norm));
	return s;
}

static int row_score(const Fts5ExtensionApi *api, Fts5Context *fts, Query *q,
		     double *out)
{
	int64_t row = api->xRowid(fts);
	int n = 0, rc, dl = 0;
	double bound;

	if (row == q->last) {
		*out = q->score;
		return SQLITE_OK;
	}
	memset(q->freq, 0, (size_t)q->nphrase * sizeof(*q->freq));
	if ((rc = api->xInstCount(fts, &n)))
		return rc;
	for (int i = 0; i < n; i++) {
		int phrase, col, off;

		if ((rc = api->xInst(fts, i, &phrase, &col, &off)))
			return rc;
		if (phrase >= 0 && phrase < q->nphrase && col >= 0 &&
		    col < q->ncol)
			q->freq[phrase] += q->w[col];
	}
	bound = score_at(q, 0);
	if (q->k && q->nbest == q->k && bound <= q->best[0]) {
		*out = bound;
	} else {
		if ((rc = api->xColumnSize(fts, -1, &dl)))
			return rc;
		*out = score_at(q, dl);
		if (q->k)
			best_offer(q, *out);
	}
	q->last = row;
	q->score = *out;
	return SQLITE_OK;
}

static void bm25_function(const Fts5ExtensionApi *api, Fts5Context *fts,
			  sqlite3_context *ctx, int nval, sqlite3_value **val)
{
	Query *q = api->xGetAuxdata(fts, 0);
	double score = 0;
	int rc = SQLITE_OK;

	if (!q) {
		rc = query_new(api, fts, nval, val, &q);
		if (rc != SQLITE_OK)
			query_delete(q);
		else /* which frees q when it fails */
			rc = api->xSetAuxdata(fts, q, query_delete);
	}
	if (rc == SQLITE_OK)
		rc = row_score(api, fts, q, &score);
	/* As bm25(): the lower, the better. */
	if (rc == SQLITE_OK)
		sqlite3_result_double(ctx, -score);
	else
		sqlite3_result_error_code(ctx, rc);
}

int index__bm25_register(sqlite3 *db)
{
	fts5_api *api = code_fts5_api(db);

	if (!api || api->xCreateFunction(api, "castls_bm25", NULL,
					 bm25_function, NULL) != SQLITE_OK)
		return CASTLS_EDB;
	return 0;
}
