/*
 * search.c: full-text queries and status counts.
 */
#include "index_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tokenize.h"

/* Column weights for bm25(): a hit in a chunk's names (its definitions)
 * counts more than one in its text, and a path hit a little. */
#define W_TEXT 1.0
#define W_NAMES 4.0
#define W_PATH 2.0

/* Query terms kept, rarest first. A term in more than COMMON_SHARE of all
 * chunks (and in more than COMMON_MIN_DF of them) is dropped, unless every
 * term is that common: its idf is low, so it barely moves the ranking,
 * while scoring every chunk it matches is what makes a query of thirty
 * lines of code slow on a large workspace. */
#define QUERY_TERMS_MAX 16
#define QUERY_CANDIDATES_MAX 64
#define COMMON_SHARE 0.1
#define COMMON_MIN_DF 200 /* a small workspace keeps all its terms */
/* And the terms kept match at most this many chunks in all (unless the
 * caller asks for fewer): FTS5 scores every chunk a term matches before
 * it sorts, so the cost of a query is its posting lists' length, which
 * grows with the workspace while the best hits come from its rarest
 * terms. The rarest term is always kept. */
#define POSTING_BUDGET INDEX_POSTINGS_MAX
/* Chunks scored when the rarest term alone is past the budget. */
#define OVER_BUDGET_SCORED 5000

typedef struct {
	char term[CODE_TOKEN_MAX + 1];
	int64_t df;
} Term;

typedef struct {
	Term t[QUERY_CANDIDATES_MAX];
	int n;
} Terms;

static int collect_term(void *ctx, int flags, const char *tok, int len,
			int start, int end)
{
	Terms *ts = ctx;

	(void)flags;
	(void)start;
	(void)end;
	for (int i = 0; i < ts->n; i++)
		if ((int)strlen(ts->t[i].term) == len &&
		    memcmp(ts->t[i].term, tok, (size_t)len) == 0)
			return 0;
	if (ts->n == QUERY_CANDIDATES_MAX)
		return 1;
	memcpy(ts->t[ts->n].term, tok, (size_t)len);
	ts->t[ts->n].term[len] = '\0';
	ts->t[ts->n++].df = 0;
	return 0;
}

static int cmp_df(const void *a, const void *b)
{
	const Term *x = a, *y = b;

	return x->df < y->df ? -1 : x->df > y->df;
}

/* Document frequencies of the query terms, kept across the queries of a
 * connection. Counting a term's chunks reads its posting list (up to the
 * budget), so a common term costs milliseconds in every query that holds
 * it, and the common terms are the ones every query repeats. The rare
 * ones cost little each but are most of a query's terms: at 5 M lines,
 * counting them again was about a tenth of a context request's search.
 *
 * A count of at least DF_CACHE_MIN is kept until the table moves (below):
 * a stale one moves a weight a little. A smaller one is exact: it holds
 * only while nothing has been written since it was counted (by this
 * connection or another), as a stale 0 would drop a term that now
 * matches and a stale 1 weighs a term far too much. So a keystroke's
 * rows have the next query count its rare terms again, and a request
 * with nothing written in between counts none. A 0 is not kept. When
 * the cache is full it keeps its common counts alone, or empties when
 * those fill half of it.
 *
 * When the chunk table's last row id has moved by a sixteenth (a branch
 * switch, a new tree), whichever connection wrote it, the common counts
 * held become stale: a query still uses them, and counts again the first
 * DF_REFRESH_MAX stale ones of its terms. Emptying the cache instead had
 * each query just after a 2,000-file switch count all its common terms
 * again, 100 ms and more, while the switch's scan was running. */
#define DF_CACHE_MIN 128
#define DF_CACHE_SLOTS 8192 /* a power of two */
#define DF_CACHE_FILL (DF_CACHE_SLOTS * 3 / 4)
#define DF_REFRESH_MAX 4 /* stale counts a query counts again */

typedef struct {
	char term[CODE_TOKEN_MAX + 1];
	int64_t df;	/* 0: the slot is empty */
	uint32_t epoch; /* the cache's epoch when it was counted */
	uint32_t gen;	/* and its write generation */
	bool at_least;	/* counted up to df only: there are more */
} DfSlot;

struct DfCache {
	DfSlot slot[DF_CACHE_SLOTS];
	int used;
	uint32_t epoch; /* common counts of earlier epochs are stale */
	int64_t rows;	/* the last chunk row id when the epoch began */
	uint32_t gen;	/* small counts of earlier generations are stale */
	IndexMark mark; /* the database when gen began */
};

void index__df_cache_delete(struct DfCache *c) { xfree(c); }

/* The slot for term: its own, or the empty one where it would go. */
static DfSlot *df_slot(struct DfCache *c, const char *term)
{
	size_t n = strlen(term);
	uint64_t i = castls_hash(term, n, 0);

	for (;; i++) {
		DfSlot *d = &c->slot[i & (DF_CACHE_SLOTS - 1)];

		if (!d->df || strcmp(d->term, term) == 0)
			return d;
	}
}

/* Makes room in a full cache: its common counts stay, the rest go. */
static void df_make_room(struct DfCache *c)
{
	DfSlot *keep = xmalloc(DF_CACHE_FILL * sizeof(*keep));
	int n = 0;

	for (int i = 0; i < DF_CACHE_SLOTS; i++)
		if (c->slot[i].df >= DF_CACHE_MIN)
			keep[n++] = c->slot[i];
	memset(c->slot, 0, sizeof(c->slot));
	c->used = 0;
	if (n <= DF_CACHE_FILL / 2)
		for (int i = 0; i < n; i++) {
			*df_slot(c, keep[i].term) = keep[i];
			c->used++;
		}
	xfree(keep);
}

static void df_remember(struct DfCache *c, const char *term, int64_t df,
			bool at_least)
{
	DfSlot *d;

	/* A 0 is kept only in place of an earlier count. */
	if (df == 0 && !df_slot(c, term)->df)
		return;
	if (c->used == DF_CACHE_FILL)
		df_make_room(c);
	d = df_slot(c, term);
	if (!d->df) {
		strcpy(d->term, term);
		c->used++;
	}
	d->df = df > 0 ? df : 1; /* 0 is an empty slot; 1 matches as little */
	d->epoch = c->epoch;
	d->gen = c->gen;
	d->at_least = at_least;
}

/* The cache for a table whose last chunk row id is rows, in a new epoch
 * when the table has moved too far from the last. */
static struct DfCache *df_cache(Index *ix, int64_t rows)
{
	struct DfCache *c = ix->df;
	int64_t moved;
	IndexMark mark = index__mark(ix);

	if (!c)
		c = ix->df = xcalloc(1, sizeof(*c));
	moved = rows > c->rows ? rows - c->rows : c->rows - rows;
	if (moved > c->rows / 16) {
		c->epoch++;
		c->rows = rows;
	}
	/* Anything written since the small counts were taken, through this
	 * connection or another, may have moved them. */
	if (!index__mark_same(mark, c->mark)) {
		c->gen++;
		c->mark = mark;
	}
	return c;
}

/* The number of chunks that hold each term of ts listed in want, counted
 * up to cap, in one statement: a term past the posting budget is not
 * searched for, whatever its count. (The full count, from fts5vocab,
 * reads the whole posting list, 100,000 rows and more for a common
 * word.) */
static int df_count(Index *ix, Terms *ts, const int *want, int n, int64_t cap)
{
	sqlite3_stmt *s = index__stmt(ix, ST_TERM_DF);
	Buf phrases = {0};
	int rc;

	buf_puts(&phrases, "[");
	for (int i = 0; i < n; i++) {
		Buf p = {0};

		buf_printf(&p, "\"%s\"", ts->t[want[i]].term);
		buf_puts(&phrases, i ? "," : "");
		buf_json_string(&phrases, p.data, p.len);
		buf_free(&p);
	}
	buf_puts(&phrases, "]");
	sqlite3_bind_text(s, 1, phrases.data, (int)phrases.len, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, cap);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t k = sqlite3_column_int64(s, 0);

		if (k >= 0 && k < n)
			ts->t[want[k]].df = sqlite3_column_int64(s, 1);
	}
	sqlite3_reset(s);
	buf_free(&phrases);
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

/* Document frequencies of the terms, from the cache or the vocabulary,
 * counted up to cap (a count of cap says "cap or more"), and the number
 * of chunks (the last row id: near enough, and found without counting).
 * A query with a small posting budget needs to know no more than that a
 * common term is past it: counting its chunks to the end is what a
 * query's first search on a large workspace spends most on. */
static int look_up_df(Index *ix, Terms *ts, int64_t cap, int64_t *total)
{
	sqlite3_stmt *s = index__stmt(ix, ST_CHUNK_COUNT);
	struct DfCache *c;
	int want[QUERY_CANDIDATES_MAX], n = 0, err;

	*total = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
	sqlite3_reset(s);
	c = df_cache(ix, *total);
	for (int i = 0, stale = 0; i < ts->n; i++) {
		DfSlot *d = df_slot(c, ts->t[i].term);

		ts->t[i].df = d->df;
		if (!d->df || (d->at_least && d->df < cap) ||
		    (d->df < DF_CACHE_MIN && d->gen != c->gen) ||
		    (d->epoch != c->epoch && stale++ < DF_REFRESH_MAX))
			want[n++] = i;
	}
	if (n && (err = df_count(ix, ts, want, n, cap)))
		return err;
	for (int i = 0; i < n; i++)
		df_remember(c, ts->t[want[i]].term, ts->t[want[i]].df,
			    ts->t[want[i]].df >= cap);
	return 0;
}

/* Builds the MATCH expression from the rarest terms of the query, and in
 * dfs the ", df" of each (castls_bm25's arguments); returns the number of
 * terms (0: nothing to search for). *over is set when even the rarest is
 * past the posting budget. */
static int rare_terms_query(Index *ix, const char *q, size_t len, Buf *out,
			    Buf *dfs, int64_t budget, bool *over)
{
	Terms ts;
	int64_t total = 0, postings = 0;
	int i, kept = 0, err;

	ts.n = 0;
	code_tokenize(q, len, collect_term, &ts);
	if (ts.n == 0)
		return 0;
	if ((err = look_up_df(ix, &ts, budget + 1, &total)))
		return err;
	qsort(ts.t, (size_t)ts.n, sizeof(ts.t[0]), cmp_df);
	for (i = 0; i < ts.n && kept < QUERY_TERMS_MAX; i++) {
		if (ts.t[i].df == 0)
			continue; /* in no chunk: cannot match */
		if (kept >= 2 && ts.t[i].df > COMMON_MIN_DF &&
		    (double)ts.t[i].df > COMMON_SHARE * (double)total)
			break;
		if (kept >= 1 && postings + ts.t[i].df > budget)
			break;
		postings += ts.t[i].df;
		buf_printf(out, "%s\"%s\"", kept ? " OR " : "", ts.t[i].term);
		buf_printf(dfs, ", %lld", (long long)ts.t[i].df);
		kept++;
	}
	*over = postings > budget;
	return kept;
}

static ChunkKind chunk_kind_of(const char *name)
{
	for (int k = 0; k < CHUNK_KIND_COUNT; k++)
		if (name && strcmp(name, chunk_kind_name((ChunkKind)k)) == 0)
			return (ChunkKind)k;
	return CHUNK_STATEMENTS;
}

char *index__column_dup(sqlite3_stmt *s, int i)
{
	const char *p = (const char *)sqlite3_column_text(s, i), *nul;
	size_t n = p ? (size_t)sqlite3_column_bytes(s, i) : 0;
	Buf b = {0};

	if (!p || !(nul = memchr(p, '\0', n)))
		return xstrndup(p ? p : "", n);
	/* File text past the binary check's probe may hold a NUL, which a C
	 * string (and so every caller) would take for its end: each
	 * becomes U+FFFD, one character for one, as lsp/ does for invalid
	 * UTF-8. */
	do {
		buf_append(&b, p, (size_t)(nul - p));
		buf_append(&b, "\xEF\xBF\xBD", 3);
		n -= (size_t)(nul - p) + 1;
		p = nul + 1;
	} while ((nul = memchr(p, '\0', n)));
	buf_append(&b, p, n);
	return buf_take(&b);
}

void index__hit_read(sqlite3_stmt *s, IndexHit *h)
{
	memset(h, 0, sizeof(*h));
	h->id = sqlite3_column_int64(s, 0);
	h->span_id = sqlite3_column_int64(s, 1);
	h->file_id = sqlite3_column_int64(s, 2);
	h->path = index__column_dup(s, 3);
	h->lang = lang_from_name((const char *)sqlite3_column_text(s, 4));
	h->kind = chunk_kind_of((const char *)sqlite3_column_text(s, 5));
	h->bytes.start = (uint32_t)sqlite3_column_int64(s, 6);
	h->bytes.end = (uint32_t)sqlite3_column_int64(s, 7);
	h->lines.start = (uint32_t)sqlite3_column_int64(s, 8);
	h->lines.end = (uint32_t)sqlite3_column_int64(s, 9);
}

/* The statement of index_search for the query's terms (their dfs as
 * rare_terms_query gives them). The top hits are ranked in the
 * full-text index alone (castls_bm25: bm25 that skips rows it can prove
 * are not among them, which is most of a common term's); only they are
 * joined with their rows, so a common term does not read the text of
 * every chunk it appears in.
 *
 * A query of common words alone ("return true;", "x = 1"), whose rarest
 * term is in more chunks than the posting budget (over), would score
 * every chunk it matches, 100 ms at 5 M lines, to tell apart chunks that
 * hardly differ: the newest OVER_BUDGET_SCORED (the last written, the
 * files being edited first) are scored. */
static int search_statement(Index *ix, const Buf *dfs, bool over,
			    sqlite3_stmt **s)
{
	Buf sql = {0};
	int rc;

	buf_puts(&sql, "SELECT " HIT_COLUMNS ", -t.rank, c.names, c.text FROM"
		       " (SELECT * FROM (SELECT rowid AS id,");
	buf_printf(&sql,
		   " castls_bm25(chunks_fts, ?2, ?3, ?4, ?5%s) AS rank"
		   " FROM chunks_fts WHERE chunks_fts MATCH ?1",
		   dfs->data ? dfs->data : "");
	if (over)
		buf_printf(&sql, " ORDER BY rowid DESC LIMIT %d",
			   OVER_BUDGET_SCORED);
	buf_puts(&sql, ") ORDER BY rank LIMIT ?5) t"
		       " JOIN chunks c ON c.id = t.id"
		       " JOIN files f ON f.id = c.file_id ORDER BY t.rank");
	rc = sqlite3_prepare_v2(ix->db, sql.data, (int)sql.len, s, NULL);
	buf_free(&sql);
	return rc == SQLITE_OK ? 0 : index__db_error(ix, rc);
}

int index_search(Index *ix, const char *query, size_t len, uint32_t limit,
		 IndexHit **hits, uint32_t *n)
{
	return index_search_within(ix, query, len, limit, 0, hits, n);
}

int index_search_within(Index *ix, const char *query, size_t len,
			uint32_t limit, uint32_t postings, IndexHit **hits,
			uint32_t *n)
{
	Buf expr = {0}, dfs = {0};
	sqlite3_stmt *s = NULL;
	uint32_t cap = 0;
	bool over = false;
	int rc = 0;

	*hits = NULL;
	*n = 0;
	if (limit > INDEX_SEARCH_MAX)
		limit = INDEX_SEARCH_MAX;
	if (!limit ||
	    (rc = rare_terms_query(ix, query, len, &expr, &dfs,
				   postings && postings < POSTING_BUDGET
				       ? postings
				       : POSTING_BUDGET,
				   &over)) <= 0 ||
	    (rc = search_statement(ix, &dfs, over, &s))) {
		buf_free(&expr);
		buf_free(&dfs);
		return rc < 0 ? rc : 0;
	}
	sqlite3_bind_text(s, 1, expr.data, (int)expr.len, SQLITE_STATIC);
	sqlite3_bind_double(s, 2, W_TEXT);
	sqlite3_bind_double(s, 3, W_NAMES);
	sqlite3_bind_double(s, 4, W_PATH);
	sqlite3_bind_int(s, 5, (int)limit);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		IndexHit *h;

		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*hits = xrealloc(*hits, cap * sizeof(**hits));
		}
		h = &(*hits)[(*n)++];
		index__hit_read(s, h);
		h->score = sqlite3_column_double(s, 10);
		h->names = index__column_dup(s, 11);
		h->text = index__column_dup(s, 12);
	}
	sqlite3_finalize(s);
	buf_free(&expr);
	buf_free(&dfs);
	if (rc != SQLITE_DONE) {
		index_hits_free(*hits, *n);
		*hits = NULL;
		*n = 0;
		return index__db_error(ix, rc);
	}
	return 0;
}

void index_hits_free(IndexHit *hits, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		xfree(hits[i].path);
		xfree(hits[i].names);
		xfree(hits[i].text);
	}
	xfree(hits);
}

/* Runs a two-column (name, count) query and adds counts into table by
 * the name's index, found through namefn. */
static int count_by(Index *ix, const char *sql, uint32_t *table, int n,
		    const char *(*namefn)(int))
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(ix->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		return index__db_error(ix, rc);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		for (int i = 0; i < n && name; i++)
			if (strcmp(namefn(i), name) == 0)
				table[i] +=
				    (uint32_t)sqlite3_column_int64(s, 1);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

static const char *lang_at(int i) { return lang_name((Lang)i); }
static const char *chunk_kind_at(int i)
{
	return chunk_kind_name((ChunkKind)i);
}
static const char *span_kind_at(int i) { return span_kind_name((SpanKind)i); }

static int64_t single(Index *ix, const char *sql)
{
	sqlite3_stmt *s;
	int64_t v = 0;

	if (sqlite3_prepare_v2(ix->db, sql, -1, &s, NULL) != SQLITE_OK)
		return 0;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

int index_counts(Index *ix, IndexStatus *out)
{
	struct stat st;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = count_by(ix, "SELECT lang, count(*) FROM files GROUP BY 1",
			    out->files_by_lang, LANG_COUNT, lang_at)))
		return err;
	out->files = (uint32_t)single(ix, "SELECT count(*) FROM files");
	out->chunks = (uint32_t)single(ix, "SELECT count(*) FROM chunk_rows");
	out->spans = (uint32_t)single(ix, "SELECT count(*) FROM spans");
	out->source_bytes =
	    (uint64_t)single(ix, "SELECT total(size) FROM files");
	out->last_indexed = single(ix, "SELECT CAST(value AS INTEGER) FROM meta"
				       " WHERE key='last_scan'");
	if (stat(ix->db_path, &st) == 0)
		out->db_bytes = (uint64_t)st.st_size;
	out->db_bytes += index__wal_bytes(ix->db_path);
	return 0;
}

int index_status(Index *ix, IndexStatus *out)
{
	int err;

	if ((err = index_counts(ix, out)) ||
	    (err = count_by(ix,
			    "SELECT f.lang, count(*) FROM chunk_rows c"
			    " JOIN files f ON f.id = c.file_id GROUP BY 1",
			    out->chunks_by_lang, LANG_COUNT, lang_at)) ||
	    (err = count_by(ix,
			    "SELECT kind, count(*) FROM chunk_rows"
			    " GROUP BY 1",
			    out->chunks_by_kind, CHUNK_KIND_COUNT,
			    chunk_kind_at)))
		return err;
	return count_by(ix, "SELECT kind, count(*) FROM spans GROUP BY 1",
			out->spans_by_kind, SPAN_KIND_COUNT, span_kind_at);
}

int index_word_beside(Index *ix, const char *word, const char *relpath,
		      bool *found)
{
	sqlite3_stmt *s = index__stmt(ix, ST_WORD_BESIDE);
	const char *slash = strrchr(relpath, '/');
	int dir = slash ? (int)(slash - relpath + 1) : 0;
	Buf match = {0};
	int rc;

	*found = false;
	/* An identifier holds no quote: the phrase is the word. */
	if (!*word || strchr(word, '"'))
		return CASTLS_EINVAL;
	buf_printf(&match, "text : \"%s\"", word);
	sqlite3_bind_text(s, 1, match.data, (int)match.len, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, relpath, dir, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, dir);
	sqlite3_bind_text(s, 4, relpath, -1, SQLITE_STATIC);
	rc = sqlite3_step(s);
	*found = rc == SQLITE_ROW;
	sqlite3_reset(s);
	buf_free(&match);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
						     : index__db_error(ix, rc);
}

bool index_file_current(Index *ix, int64_t file_id)
{
	sqlite3_stmt *s = index__stmt(ix, ST_FILE_STAMP_OF);
	bool current = false;
	struct stat st;

	sqlite3_bind_int64(s, 1, file_id);
	if (sqlite3_step(s) == SQLITE_ROW) {
		const char *rel = (const char *)sqlite3_column_text(s, 0);
		int64_t size = sqlite3_column_int64(s, 1),
			mtime = sqlite3_column_int64(s, 2);
		Buf path = {0};

		buf_printf(&path, "%s/%s", ix->root, rel ? rel : "");
		current = mtime == 0 ||
			  (stat(path.data, &st) == 0 && st.st_size == size &&
			   index__stat_mtime(&st) == mtime);
		buf_free(&path);
	}
	sqlite3_reset(s);
	return current;
}
