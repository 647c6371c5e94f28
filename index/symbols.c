/*
 * symbols.c: span lookups, by id, by exact name and by symbol query.
 */
#include "index_int.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ASCII lower case, the same in every locale: identifiers match byte
 * for byte otherwise. Inline, as the name scan runs it for every byte of
 * every name (tolower() was a third of a workspace/symbol query). */
static inline char lower(char c)
{
	return (unsigned char)(c - 'A') < 26 ? (char)(c | 0x20) : c;
}

static SpanKind span_kind_of(const char *name)
{
	for (int k = 0; k < SPAN_KIND_COUNT; k++)
		if (name && strcmp(name, span_kind_name((SpanKind)k)) == 0)
			return (SpanKind)k;
	return SPAN_FUNCTION;
}

static void read_span(sqlite3_stmt *s, IndexSpan *o)
{
	o->id = sqlite3_column_int64(s, 0);
	o->parent_id = sqlite3_column_int64(s, 1);
	o->file_id = sqlite3_column_int64(s, 2);
	o->path = index__column_dup(s, 3);
	o->lang = lang_from_name((const char *)sqlite3_column_text(s, 4));
	o->kind = span_kind_of((const char *)sqlite3_column_text(s, 5));
	o->name = index__column_dup(s, 6);
	o->qualname = index__column_dup(s, 7);
	o->header = index__column_dup(s, 8);
	o->bytes.start = (uint32_t)sqlite3_column_int64(s, 9);
	o->bytes.end = (uint32_t)sqlite3_column_int64(s, 10);
	o->lines.start = (uint32_t)sqlite3_column_int64(s, 11);
	o->lines.end = (uint32_t)sqlite3_column_int64(s, 12);
	o->hash = (uint64_t)sqlite3_column_int64(s, 13);
	o->top = sqlite3_column_int(s, 14) != 0;
	o->score = 0;
}

void index_span_clear(IndexSpan *s)
{
	xfree(s->path);
	xfree(s->name);
	xfree(s->qualname);
	xfree(s->header);
	memset(s, 0, sizeof(*s));
}

void index_spans_free(IndexSpan *spans, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		index_span_clear(&spans[i]);
	xfree(spans);
}

int index_span_get(Index *ix, int64_t id, IndexSpan *out)
{
	sqlite3_stmt *s = index__stmt(ix, ST_SPAN_GET);
	int rc;

	sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		read_span(s, out);
	sqlite3_reset(s);
	if (rc == SQLITE_ROW)
		return 1;
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

/* ---------------------------------------------------------------------- *
 * Symbol matching
 * ---------------------------------------------------------------------- */

/* ASCII classes, as <ctype.h> has them in the C locale, inline: the
 * part matcher asks them for every cell of its table. */
static inline bool is_upper(unsigned char c) { return c >= 'A' && c <= 'Z'; }
static inline bool is_lower(unsigned char c) { return c >= 'a' && c <= 'z'; }
static inline bool is_digit(unsigned char c) { return c >= '0' && c <= '9'; }

/* Where the parts of an identifier start: after '_', at a capital after a
 * lower-case letter or digit, at a capital followed by lower case after a
 * capital run, and at a digit after a letter. */
static bool part_start(const char *s, size_t i)
{
	unsigned char c = (unsigned char)s[i], p;

	if (i == 0)
		return true;
	p = (unsigned char)s[i - 1];
	if (p == '_' || p == '$' || p == '.' || p == '-')
		return c != '_';
	if (is_upper(c) && (is_lower(p) || is_digit(p)))
		return true;
	if (is_upper(c) && is_upper(p) && is_lower((unsigned char)s[i + 1]))
		return true;
	return is_digit(c) && (is_upper(p) || is_lower(p));
}

#define SYMBOL_NAME_MAX 256 /* longer names match by prefix only */
#define SYMBOL_QUERY_MAX 64 /* bytes of query that take part */

/*
 * Matches query q against name: each query character matches the next
 * name character, or the first character of a later part (camelCase
 * humps, snake_case words). Case-insensitive. Dynamic programming over
 * (name position, query position), so the cost is O(|name| x |q|):
 * C[i][j]: q[j..] matches name[i..] right after a matched character;
 * J[i][j]: q[j..] matches from some part start at or after i.
 */
static bool parts_match(const char *name, const char *q)
{
	static _Thread_local bool C[SYMBOL_NAME_MAX + 2][SYMBOL_QUERY_MAX + 1];
	static _Thread_local bool J[SYMBOL_NAME_MAX + 2][SYMBOL_QUERY_MAX + 1];
	size_t n = strlen(name), m = strlen(q), i, j;

	if (n > SYMBOL_NAME_MAX || m > SYMBOL_QUERY_MAX)
		return false;
	for (j = 0; j <= m; j++)
		C[n][j] = J[n][j] = C[n + 1][j] = J[n + 1][j] = j == m;
	for (i = n; i-- > 0;) {
		C[i][m] = J[i][m] = true;
		for (j = m; j-- > 0;) {
			bool eq = lower(name[i]) == lower(q[j]);

			J[i][j] =
			    (part_start(name, i) && eq && C[i + 1][j + 1]) ||
			    J[i + 1][j];
			C[i][j] = (eq && C[i + 1][j + 1]) || J[i][j];
		}
	}
	return m == 0 || J[0][0];
}

/* 3: exact, 2: prefix, 0: neither (case-insensitive). */
static int prefix_rank(const char *name, const char *q)
{
	if (strcasecmp(name, q) == 0)
		return 3;
	return strncasecmp(name, q, strlen(q)) == 0 ? 2 : 0;
}

/* 3: exact, 2: prefix, 1: parts, 0: no match (all case-insensitive). */
static int symbol_rank(const char *name, const char *q)
{
	int rank = prefix_rank(name, q);

	return rank ? rank : parts_match(name, q) ? 1 : 0;
}

/* Reads every row of s as a span; leaves s stepped to its end (or its
 * error) for the caller to reset or finalize. */
static int step_spans(Index *ix, sqlite3_stmt *s, IndexSpan **out, uint32_t *n)
{
	uint32_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 32;
			*out = xrealloc(*out, cap * sizeof(**out));
		}
		read_span(s, &(*out)[(*n)++]);
	}
	if (rc != SQLITE_DONE) {
		index_spans_free(*out, *n);
		*out = NULL;
		*n = 0;
		return index__db_error(ix, rc);
	}
	return 0;
}

static int collect_spans(Index *ix, sqlite3_stmt *s, IndexSpan **out,
			 uint32_t *n)
{
	int err = step_spans(ix, s, out, n);

	sqlite3_finalize(s);
	return err;
}

/* The distinct span names and how many spans bear each, held in memory
 * for symbol queries: matching a query is a pass over every name, which
 * through SQL read each span row and called a function for it (100 ms
 * at 300,000 spans), and reading them all again takes about as long.
 * So once loaded, the cache follows the database by the files written
 * since (files.indexed_at), when it has changed through this connection
 * (its total changes) or another (data_version): a keystroke adds the
 * names of one file. A name whose spans have all gone stays until the
 * next full load, which comes when the names added since the last one
 * pass a quarter of it: it matches, and its lookup finds nothing. */
struct NameCache {
	Buf text;		 /* the names, each NUL-terminated */
	uint32_t *at;		 /* where each name starts in text */
	uint32_t *count;	 /* its spans when it was read */
	uint64_t *chars;	 /* its char_set */
	uint32_t n, cap, loaded; /* names; of them, read by the full load */
	uint32_t *slot;		 /* open addressing: a name's index + 1 */
	uint32_t nslots;	 /* a power of two, over twice n */
	IndexMark mark; /* data_version -1: never read, or a read failed */
	int64_t since;	/* files indexed from this second on are read again */
};

void index__name_cache_delete(struct NameCache *c)
{
	if (!c)
		return;
	buf_free(&c->text);
	xfree(c->at);
	xfree(c->count);
	xfree(c->chars);
	xfree(c->slot);
	xfree(c);
}

/* The bytes of s, case folded, as a set of 64 (byte & 63): a name can
 * match a query only when it holds every byte of the query, so only a
 * name whose set holds the query's is read (a few in a hundred). */
static uint64_t char_set(const char *s, size_t n)
{
	uint64_t set = 0;

	for (size_t i = 0; i < n; i++)
		set |= 1ull << (lower(s[i]) & 63);
	return set;
}

IndexMark index__mark(Index *ix)
{
	sqlite3_stmt *s = index__stmt(ix, ST_DATA_VERSION);
	IndexMark m;

	m.data_version =
	    sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_reset(s);
	m.changes = sqlite3_total_changes64(ix->db);
	return m;
}

/* The slot of name: its own, or the empty one where it would go. */
static uint32_t *name_slot(struct NameCache *c, const char *name, size_t len)
{
	uint64_t i = castls_hash(name, len, 0);

	for (;; i++) {
		uint32_t *sl = &c->slot[i & (c->nslots - 1)];

		if (!*sl ||
		    (strlen(c->text.data + c->at[*sl - 1]) == len &&
		     memcmp(c->text.data + c->at[*sl - 1], name, len) == 0))
			return sl;
	}
}

static void name_rehash(struct NameCache *c)
{
	c->nslots = c->nslots ? c->nslots * 2 : 8192;
	xfree(c->slot);
	c->slot = xcalloc(c->nslots, sizeof(*c->slot));
	for (uint32_t k = 0; k < c->n; k++) {
		const char *name = c->text.data + c->at[k];

		*name_slot(c, name, strlen(name)) = k + 1;
	}
}

/* Adds a name not yet held. */
static void name_add(struct NameCache *c, const char *name, size_t len,
		     uint32_t count)
{
	uint32_t *sl;

	if (c->text.len + len + 1 > UINT32_MAX)
		return;
	if (2 * (c->n + 1) > c->nslots)
		name_rehash(c);
	if (*(sl = name_slot(c, name, len)))
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 4096;
		c->at = xrealloc(c->at, c->cap * sizeof(*c->at));
		c->count = xrealloc(c->count, c->cap * sizeof(*c->count));
		c->chars = xrealloc(c->chars, c->cap * sizeof(*c->chars));
	}
	c->chars[c->n] = char_set(name, len);
	c->at[c->n] = (uint32_t)c->text.len;
	c->count[c->n++] = count;
	*sl = c->n;
	buf_append(&c->text, name, len);
	buf_append(&c->text, "", 1);
}

/* Reads names from s (name, count rows) into c. */
static int names_read(Index *ix, struct NameCache *c, sqlite3_stmt *s)
{
	int rc;

	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (name)
			name_add(c, name, (size_t)sqlite3_column_bytes(s, 0),
				 (uint32_t)sqlite3_column_int64(s, 1));
	}
	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

static int name_cache(Index *ix, struct NameCache **out)
{
	struct NameCache *c = ix->names;
	/* Taken before the read: what commits during it is read again
	 * next time, never missed. */
	IndexMark mark = index__mark(ix);
	int64_t now = index__now();
	sqlite3_stmt *s;
	bool full;
	int err;

	if (!c) {
		c = ix->names = xcalloc(1, sizeof(*c));
		c->mark.data_version = -1;
	}
	*out = c;
	if (c->mark.data_version != -1 && index__mark_same(c->mark, mark))
		return 0;
	full = c->mark.data_version == -1 || c->n - c->loaded > c->loaded / 4;
	if (full) {
		c->n = 0;
		c->text.len = 0;
		if (c->nslots)
			memset(c->slot, 0, c->nslots * sizeof(*c->slot));
		s = index__stmt(ix, ST_NAME_COUNTS);
	} else {
		s = index__stmt(ix, ST_NAME_COUNTS_SINCE);
		sqlite3_bind_int64(s, 1, c->since);
	}
	c->since = now;
	if ((err = names_read(ix, c, s))) {
		c->mark.data_version = -1; /* a full load next time */
		return err;
	}
	c->mark = mark;
	if (full)
		c->loaded = c->n;
	return 0;
}

/* A name that matched, as the order of index_symbols ranks it. */
typedef struct {
	const char *name; /* in the cache's text */
	uint32_t k;	  /* its index in the cache */
	uint32_t len;
	int rank; /* symbol_rank */
} Match;

/* True when a ranks before b: better rank, shorter name, then bytewise. */
static bool match_before(const Match *a, const Match *b)
{
	if (a->rank != b->rank)
		return a->rank > b->rank;
	if (a->len != b->len)
		return a->len < b->len;
	return strcmp(a->name, b->name) < 0;
}

/* Every character of q (lower case) in name in order: what any match
 * needs, at a few instructions a name. */
static bool subsequence(const char *name, const char *q)
{
	for (; *name && *q; name++)
		if (lower(*name) == *q)
			q++;
	return *q == '\0';
}

/* Keeps the best k matches in heap, a binary heap with the worst on top. */
static void heap_offer(Match *heap, uint32_t *n, uint32_t k, Match m)
{
	uint32_t i;

	if (*n == k) {
		if (!match_before(&m, &heap[0]))
			return;
		i = 0; /* replace the worst, then sift it down */
		for (;;) {
			uint32_t l = 2 * i + 1, r = l + 1, w = i;
			const Match *wm = &m;

			if (l < k && match_before(wm, &heap[l]))
				w = l, wm = &heap[l];
			if (r < k && match_before(wm, &heap[r]))
				w = r;
			if (w == i)
				break;
			heap[i] = heap[w];
			i = w;
		}
		heap[i] = m;
		return;
	}
	for (i = (*n)++; i > 0 && match_before(&heap[(i - 1) / 2], &m);
	     i = (i - 1) / 2)
		heap[i] = heap[(i - 1) / 2];
	heap[i] = m;
}

static int cmp_match(const void *a, const void *b)
{
	return match_before(a, b) ? -1 : match_before(b, a) ? 1 : 0;
}

static int cmp_symbol(const void *a, const void *b)
{
	const IndexSpan *x = a, *y = b;
	int c;

	if (x->score != y->score)
		return x->score > y->score ? -1 : 1;
	if (strlen(x->name) != strlen(y->name))
		return strlen(x->name) < strlen(y->name) ? -1 : 1;
	if ((c = strcmp(x->path, y->path)))
		return c;
	return x->bytes.start < y->bytes.start	 ? -1
	       : x->bytes.start > y->bytes.start ? 1
						 : 0;
}

/* The best matches of q, best first, enough of them to hold limit spans
 * and every name tied with the last one needed (at most limit names). */
static uint32_t best_names(const struct NameCache *c, const char *q,
			   uint32_t limit, Match *best)
{
	char lq[SYMBOL_QUERY_MAX + 1];
	uint32_t n = 0, need = 0, spans = 0;
	uint64_t set;
	size_t i;

	for (i = 0; q[i] && i < SYMBOL_QUERY_MAX; i++)
		lq[i] = lower(q[i]);
	lq[i] = '\0';
	set = char_set(lq, i);
	for (uint32_t k = 0; k < c->n; k++) {
		const char *name = c->text.data + c->at[k];
		Match m;

		if ((c->chars[k] & set) != set || !subsequence(name, lq))
			continue;
		m.len = (uint32_t)strlen(name);
		if (!(m.rank = prefix_rank(name, q))) {
			/* A match by parts ranks 1: its table is worth
			 * filling only when the match would be kept. */
			if ((n == limit &&
			     (best[0].rank > 1 || m.len > best[0].len)) ||
			    !parts_match(name, q))
				continue;
			m.rank = 1;
		}
		m.name = name;
		m.k = k;
		heap_offer(best, &n, limit, m);
	}
	if (n > 1)
		qsort(best, n, sizeof(*best), cmp_match);
	while (need < n &&
	       (spans < limit || (best[need].rank == best[need - 1].rank &&
				  best[need].len == best[need - 1].len)))
		spans += c->count[best[need++].k];
	return need;
}

int index_symbols(Index *ix, const char *query, uint32_t limit, IndexSpan **out,
		  uint32_t *n)
{
	struct NameCache *c;
	const char **names;
	char q[SYMBOL_QUERY_MAX + 1];
	Match *best;
	uint32_t k;
	int err;

	*out = NULL;
	*n = 0;
	snprintf(q, sizeof(q), "%s", query ? query : "");
	if (limit > INDEX_SEARCH_MAX)
		limit = INDEX_SEARCH_MAX;
	if (limit == 0 || (err = name_cache(ix, &c)))
		return limit ? err : 0;
	best = xmalloc(limit * sizeof(*best));
	k = best_names(c, q, limit, best);
	names = xmalloc((k ? k : 1) * sizeof(*names));
	for (uint32_t i = 0; i < k; i++)
		names[i] = best[i].name;
	err = index_spans_named_many(ix, names, k, limit, out, n);
	for (uint32_t i = 0; !err && i < *n; i++)
		(*out)[i].score = symbol_rank((*out)[i].name, q);
	if (!err) {
		if (*n > 1)
			qsort(*out, *n, sizeof(**out), cmp_symbol);
		while (*n > limit)
			index_span_clear(&(*out)[--*n]);
	}
	xfree(names);
	xfree(best);
	return err;
}

/* ---------------------------------------------------------------------- *
 * Chunks by definition name or by file
 * ---------------------------------------------------------------------- */

/* Reads hit rows from s; finalizes s when owned, else resets it. */
static int collect_hits(Index *ix, sqlite3_stmt *s, IndexHit **hits,
			uint32_t *n, bool owned)
{
	uint32_t cap = 0;
	int rc;

	*hits = NULL;
	*n = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		IndexHit *h;

		if (*n == cap) {
			cap = cap ? cap * 2 : 16;
			*hits = xrealloc(*hits, cap * sizeof(**hits));
		}
		h = &(*hits)[(*n)++];
		index__hit_read(s, h);
		h->names = index__column_dup(s, 10);
		h->text = index__column_dup(s, 11);
	}
	if (owned)
		sqlite3_finalize(s);
	else
		sqlite3_reset(s);
	if (rc != SQLITE_DONE) {
		index_hits_free(*hits, *n);
		*hits = NULL;
		*n = 0;
		return index__db_error(ix, rc);
	}
	return 0;
}

int index_definitions(Index *ix, const char *name, uint32_t limit,
		      IndexHit **hits, uint32_t *n)
{
	sqlite3_stmt *s = index__stmt(ix, ST_DEFINITIONS);

	sqlite3_bind_text(s, 1, name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(
	    s, 2, (int)(limit > INDEX_SEARCH_MAX ? INDEX_SEARCH_MAX : limit));
	return collect_hits(ix, s, hits, n, false);
}

int index_file_chunks(Index *ix, const char *relpath, IndexHit **hits,
		      uint32_t *n)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(ix->db,
				    "SELECT " HIT_COLUMNS ", c.names, c.text"
				    " FROM chunks c JOIN files f ON"
				    " f.id = c.file_id WHERE f.path = ?1"
				    " ORDER BY c.start_byte",
				    -1, &s, NULL);

	*hits = NULL;
	*n = 0;
	if (rc != SQLITE_OK)
		return index__db_error(ix, rc);
	sqlite3_bind_text(s, 1, relpath, -1, SQLITE_TRANSIENT);
	return collect_hits(ix, s, hits, n, true);
}

/* ---------------------------------------------------------------------- *
 * Spans by name or parent, and the text they cover
 * ---------------------------------------------------------------------- */

/* Prepares sql and binds ?1 (text, or int64 when text is NULL) and the
 * limit ?2; NULL with the error in *err. */
static sqlite3_stmt *prepare_spans(Index *ix, const char *sql, const char *text,
				   int64_t id, uint32_t limit, int *err)
{
	sqlite3_stmt *s;
	int rc = sqlite3_prepare_v2(ix->db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK) {
		*err = index__db_error(ix, rc);
		return NULL;
	}
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_int64(s, 1, id);
	sqlite3_bind_int(
	    s, 2, (int)(limit > INDEX_SEARCH_MAX ? INDEX_SEARCH_MAX : limit));
	return s;
}

int index_spans_named(Index *ix, const char *name, uint32_t limit,
		      IndexSpan **out, uint32_t *n)
{
	int err = 0;
	sqlite3_stmt *s =
	    prepare_spans(ix,
			  "SELECT " SPAN_COLUMNS " FROM spans s JOIN files f"
			  " ON f.id = s.file_id WHERE s.name = ?1"
			  " ORDER BY " NAME_ORDER(s) " LIMIT ?2",
			  name, 0, limit, &err);

	*out = NULL;
	*n = 0;
	return s ? collect_spans(ix, s, out, n) : err;
}

int index_span_children(Index *ix, int64_t id, uint32_t limit, IndexSpan **out,
			uint32_t *n)
{
	int err = 0;
	sqlite3_stmt *s =
	    prepare_spans(ix,
			  "SELECT " SPAN_COLUMNS " FROM spans s JOIN files f"
			  " ON f.id = s.file_id WHERE s.parent_id = ?1"
			  " ORDER BY s.start_byte LIMIT ?2",
			  NULL, id, limit, &err);

	*out = NULL;
	*n = 0;
	return s ? collect_spans(ix, s, out, n) : err;
}

int index_file_text(Index *ix, int64_t file_id, uint32_t start, uint32_t end,
		    char **out)
{
	IndexTextRange r = {file_id, start, end};
	int err = index_file_texts(ix, &r, 1, out);

	return err ? err : *out != NULL;
}

/* ---------------------------------------------------------------------- *
 * Batched lookups
 * ---------------------------------------------------------------------- */

/* Binds the JSON array in b as ?1 of a cached statement (and limit as ?2
 * when given), runs it and reads its spans. */
static int spans_from_json(Index *ix, int which, const Buf *b, uint32_t limit,
			   IndexSpan **out, uint32_t *nout)
{
	sqlite3_stmt *s = index__stmt(ix, which);
	int err;

	sqlite3_bind_text(s, 1, b->data, (int)b->len, SQLITE_STATIC);
	if (limit)
		sqlite3_bind_int64(s, 2, limit);
	err = step_spans(ix, s, out, nout);
	sqlite3_reset(s);
	return err;
}

static void json_ids(Buf *b, const int64_t *ids, uint32_t n)
{
	buf_puts(b, "[");
	for (uint32_t i = 0; i < n; i++)
		buf_printf(b, "%s%lld", i ? "," : "", (long long)ids[i]);
	buf_puts(b, "]");
}

/* SQLite's length() of text s: its bytes, less those that continue a
 * character after a lead byte. */
static size_t sql_length(const char *s)
{
	const unsigned char *z = (const unsigned char *)s;
	size_t n = 0;

	while (*z) {
		if (*z++ >= 0xC0)
			while ((*z & 0xC0) == 0x80)
				z++;
		n++;
	}
	return n;
}

/* By name, then NAME_ORDER, as the spans_name index orders them: the
 * order index_spans_named_many returns. */
static int cmp_named(const void *a, const void *b)
{
	const IndexSpan *x = a, *y = b;
	size_t lx = sql_length(x->qualname), ly = sql_length(y->qualname);
	int c;

	if ((c = strcmp(x->name, y->name)))
		return c;
	if (span_is_late(x->kind) != span_is_late(y->kind))
		return span_is_late(x->kind) ? 1 : -1;
	if (lx != ly)
		return lx < ly ? -1 : 1;
	/* SQLite compares the hash as the signed integer it stores. */
	if ((int64_t)x->hash != (int64_t)y->hash)
		return (int64_t)x->hash < (int64_t)y->hash ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Appends the spans of a name that JSON cannot carry: a name is stored
 * as its file spells it, invalid UTF-8 included. */
static int spans_named_alone(Index *ix, const char *name, uint32_t per_name,
			     IndexSpan **out, uint32_t *nout)
{
	IndexSpan *one;
	uint32_t n1;
	int err = index_spans_named(ix, name, per_name, &one, &n1);

	if (err || !n1) {
		xfree(one);
		return err;
	}
	*out = xrealloc(*out, (*nout + n1) * sizeof(**out));
	memcpy(*out + *nout, one, n1 * sizeof(*one));
	*nout += n1;
	xfree(one);
	return 0;
}

int index_spans_named_many(Index *ix, const char *const *names, uint32_t n,
			   uint32_t per_name, IndexSpan **out, uint32_t *nout)
{
	Buf b = {0};
	bool alone = false;
	int err;

	*out = NULL;
	*nout = 0;
	if (n == 0 || per_name == 0)
		return 0;
	if (n > INDEX_SEARCH_MAX)
		return CASTLS_ELIMIT;
	if (per_name > INDEX_SEARCH_MAX)
		per_name = INDEX_SEARCH_MAX;
	buf_puts(&b, "[");
	for (uint32_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);

		if (utf8_valid_prefix(names[i], len) < len) {
			alone = true;
			continue;
		}
		buf_puts(&b, b.len > 1 ? "," : "");
		buf_json_string(&b, names[i], len);
	}
	buf_puts(&b, "]");
	err = spans_from_json(ix, ST_SPANS_NAMED_MANY, &b, per_name, out, nout);
	for (uint32_t i = 0; alone && !err && i < n; i++) {
		size_t len = strlen(names[i]);

		if (utf8_valid_prefix(names[i], len) < len)
			err = spans_named_alone(ix, names[i], per_name, out,
						nout);
	}
	if (err) {
		index_spans_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	} else if (*nout > 1) {
		qsort(*out, *nout, sizeof(**out), cmp_named);
	}
	buf_free(&b);
	return err;
}

/* How many spans of sp[0, n) (sorted by name) are named name. */
static uint32_t count_named(const IndexSpan *sp, uint32_t n, const char *name)
{
	uint32_t lo = 0, hi = n, k = 0;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (strcmp(sp[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo + k < n && strcmp(sp[lo + k].name, name) == 0)
		k++;
	return k;
}

/* Appends to *out (of *nout) the spans of name past its first per_name,
 * among the next scan, that keep accepts, at most per_name of them. */
static int namesakes_kept(Index *ix, const char *name, uint32_t per_name,
			  uint32_t scan, IndexKeepFn keep, void *ctx,
			  IndexSpan **out, uint32_t *nout)
{
	sqlite3_stmt *s = index__stmt(ix, ST_NAMESAKES);
	uint32_t kept = 0;
	int rc = SQLITE_DONE;

	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 2, scan);
	sqlite3_bind_int64(s, 3, per_name);
	while (kept < per_name && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		IndexSpan *o;

		if (!keep(ctx, name, (const char *)sqlite3_column_text(s, 3)))
			continue;
		*out = xrealloc(*out, (*nout + 1) * sizeof(**out));
		o = &(*out)[(*nout)++];
		read_span(s, o);
		kept++;
	}
	if (kept < per_name && rc != SQLITE_DONE) {
		sqlite3_reset(s);
		return index__db_error(ix, rc);
	}
	sqlite3_reset(s);
	return 0;
}

int index_spans_named_where(Index *ix, const char *const *names, uint32_t n,
			    uint32_t per_name, uint32_t scan, IndexKeepFn keep,
			    void *ctx, IndexSpan **out, uint32_t *nout)
{
	uint32_t first;
	int err = index_spans_named_many(ix, names, n, per_name, out, nout);

	if (err || !keep || per_name == 0)
		return err;
	first = *nout;
	for (uint32_t i = 0; i < n && !err; i++) {
		bool again = false;

		for (uint32_t j = 0; j < i && !again; j++)
			again = strcmp(names[j], names[i]) == 0;
		if (!again && count_named(*out, first, names[i]) >= per_name)
			err = namesakes_kept(ix, names[i], per_name, scan, keep,
					     ctx, out, nout);
	}
	if (err) {
		index_spans_free(*out, *nout);
		*out = NULL;
		*nout = 0;
	} else if (*nout > first) {
		qsort(*out, *nout, sizeof(**out), cmp_named);
	}
	return err;
}

int index_members_named_many(Index *ix, const char *const *classes,
			     const char *const *names, uint32_t n, bool apart,
			     uint32_t per_pair, IndexSpan **out, uint32_t *nout)
{
	Buf b = {0};
	int err;

	*out = NULL;
	*nout = 0;
	if (n == 0 || per_pair == 0)
		return 0;
	if (n > INDEX_SEARCH_MAX)
		return CASTLS_ELIMIT;
	buf_puts(&b, "[");
	for (uint32_t i = 0; i < n; i++) {
		buf_puts(&b, i ? ",[" : "[");
		buf_json_string(&b, classes[i], strlen(classes[i]));
		buf_puts(&b, ",");
		buf_json_string(&b, names[i], strlen(names[i]));
		buf_puts(&b, "]");
	}
	buf_puts(&b, "]");
	err = spans_from_json(
	    ix, apart ? ST_MEMBERS_MANY : ST_MEMBERS_INSIDE, &b,
	    per_pair > INDEX_SEARCH_MAX ? INDEX_SEARCH_MAX : per_pair, out,
	    nout);
	buf_free(&b);
	return err;
}

int index_span_children_many(Index *ix, const int64_t *ids, uint32_t n,
			     uint32_t per_parent, IndexSpan **out,
			     uint32_t *nout)
{
	Buf b = {0};
	int err;

	*out = NULL;
	*nout = 0;
	if (n == 0 || per_parent == 0)
		return 0;
	if (n > INDEX_SEARCH_MAX)
		return CASTLS_ELIMIT;
	json_ids(&b, ids, n);
	err = spans_from_json(ix, ST_CHILDREN_MANY, &b,
			      per_parent > INDEX_SEARCH_MAX ? INDEX_SEARCH_MAX
							    : per_parent,
			      out, nout);
	buf_free(&b);
	return err;
}

int index_span_chains(Index *ix, const int64_t *ids, uint32_t n,
		      IndexSpan **out, uint32_t *nout)
{
	Buf b = {0};
	int err;

	*out = NULL;
	*nout = 0;
	if (n == 0)
		return 0;
	if (n > INDEX_SEARCH_MAX)
		return CASTLS_ELIMIT;
	json_ids(&b, ids, n);
	err = spans_from_json(ix, ST_SPAN_CHAINS, &b, 0, out, nout);
	buf_free(&b);
	return err;
}

/* Appends chunk text t (of tl bytes, starting at byte cs of the file) to
 * the text of range r built so far up to *from; false at a gap. */
static bool text_append(Buf *b, const IndexTextRange *r, uint32_t *from,
			uint32_t cs, const char *t, uint32_t tl)
{
	uint32_t a, z;

	if (cs > *from || !t)
		return false;
	a = *from - cs;
	z = r->end - cs < tl ? r->end - cs : tl;
	if (a < z)
		buf_append(b, t + a, z - a);
	*from = cs + z;
	return true;
}

int index_file_texts(Index *ix, const IndexTextRange *r, uint32_t n,
		     char **texts)
{
	sqlite3_stmt *s;
	Buf b = {0}, cur = {0};
	uint32_t from = 0;
	int64_t key = -1;
	bool ok = false;
	int rc;

	/* An empty range is covered by any rows, or none. */
	for (uint32_t i = 0; i < n; i++)
		texts[i] = r[i].start >= r[i].end ? xstrdup("") : NULL;
	if (n == 0)
		return 0;
	if (n > INDEX_SEARCH_MAX)
		return CASTLS_ELIMIT;
	buf_puts(&b, "[");
	for (uint32_t i = 0; i < n; i++)
		buf_printf(&b, "%s[%lld,%u,%u]", i ? "," : "",
			   (long long)r[i].file_id, r[i].start, r[i].end);
	buf_puts(&b, "]");
	s = index__stmt(ix, ST_FILE_TEXTS);
	sqlite3_bind_text(s, 1, b.data, (int)b.len, SQLITE_STATIC);
	/* Rows come by range, then in file order; chunks tile the file, so
	 * each continues where the last ended. */
	for (;;) {
		int64_t k = -1;

		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			k = sqlite3_column_int64(s, 0);
		if (k != key) {
			if (key >= 0 && ok && from >= r[key].end && !texts[key])
				texts[key] =
				    cur.data ? buf_take(&cur) : xstrdup("");
			buf_free(&cur);
			key = k;
			if (key >= 0 && key < (int64_t)n) {
				from = r[key].start;
				ok = true;
			} else {
				key = -1;
			}
		}
		if (rc != SQLITE_ROW)
			break;
		if (key >= 0 && ok)
			ok =
			    text_append(&cur, &r[key], &from,
					(uint32_t)sqlite3_column_int64(s, 1),
					(const char *)sqlite3_column_text(s, 2),
					(uint32_t)sqlite3_column_bytes(s, 2));
	}
	sqlite3_reset(s);
	buf_free(&cur);
	buf_free(&b);
	if (rc != SQLITE_DONE) {
		for (uint32_t i = 0; i < n; i++) {
			xfree(texts[i]);
			texts[i] = NULL;
		}
		return index__db_error(ix, rc);
	}
	return 0;
}
