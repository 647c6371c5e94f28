/*
 * symbols.c: span lookups, by id, by exact name and by symbol query.
 */
#include "index_int.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

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
	o->doc = index__column_dup(s, 9);
	o->bytes.start = (uint32_t)sqlite3_column_int64(s, 10);
	o->bytes.end = (uint32_t)sqlite3_column_int64(s, 11);
	o->lines.start = (uint32_t)sqlite3_column_int64(s, 12);
	o->lines.end = (uint32_t)sqlite3_column_int64(s, 13);
	o->score = 0;
}

void index_span_clear(IndexSpan *s)
{
	xfree(s->path);
	xfree(s->name);
	xfree(s->qualname);
	xfree(s->header);
	xfree(s->doc);
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
	if (isupper(c) && (islower(p) || isdigit(p)))
		return true;
	if (isupper(c) && isupper(p) && islower((unsigned char)s[i + 1]))
		return true;
	return isdigit(c) && isalpha(p);
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
			bool eq = tolower((unsigned char)name[i]) ==
				  tolower((unsigned char)q[j]);

			J[i][j] =
			    (part_start(name, i) && eq && C[i + 1][j + 1]) ||
			    J[i + 1][j];
			C[i][j] = (eq && C[i + 1][j + 1]) || J[i][j];
		}
	}
	return m == 0 || J[0][0];
}

/* 3: exact, 2: prefix, 1: parts, 0: no match (all case-insensitive). */
static int symbol_rank(const char *name, const char *q)
{
	size_t n = strlen(q);

	if (strcasecmp(name, q) == 0)
		return 3;
	if (strncasecmp(name, q, n) == 0)
		return 2;
	return parts_match(name, q) ? 1 : 0;
}

static void sql_symbol_rank(sqlite3_context *ctx, int argc, sqlite3_value **v)
{
	const char *name = (const char *)sqlite3_value_text(v[0]);
	const char *q = (const char *)sqlite3_value_text(v[1]);

	(void)argc;
	sqlite3_result_int(ctx, name && q ? symbol_rank(name, q) : 0);
}

/* Reads span rows from s (a score in column 14 when there is one), then
 * finalizes s. */
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
		read_span(s, &(*out)[*n]);
		if (sqlite3_column_count(s) > 14)
			(*out)[*n].score = sqlite3_column_int(s, 14);
		(*n)++;
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

int index_symbols(Index *ix, const char *query, uint32_t limit, IndexSpan **out,
		  uint32_t *n)
{
	sqlite3_stmt *s;
	char q[SYMBOL_QUERY_MAX + 1];
	int rc;

	*out = NULL;
	*n = 0;
	snprintf(q, sizeof(q), "%s", query ? query : "");
	if (limit > INDEX_SEARCH_MAX)
		limit = INDEX_SEARCH_MAX;
	rc = sqlite3_create_function(ix->db, "castls_symbol_rank", 2,
				     SQLITE_UTF8 | SQLITE_DETERMINISTIC, NULL,
				     sql_symbol_rank, NULL, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(
		    ix->db,
		    "SELECT " SPAN_COLUMNS ", r FROM (SELECT *,"
		    " castls_symbol_rank(name, ?1) AS r FROM spans) s"
		    " JOIN files f ON f.id = s.file_id WHERE r > 0"
		    " ORDER BY r DESC, length(s.name), f.path, s.start_byte"
		    " LIMIT ?2",
		    -1, &s, NULL);
	if (rc != SQLITE_OK)
		return index__db_error(ix, rc);
	sqlite3_bind_text(s, 1, q, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, (int)limit);
	return collect_spans(ix, s, out, n);
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
	sqlite3_stmt *s = prepare_spans(
	    ix,
	    "SELECT " SPAN_COLUMNS " FROM spans s JOIN files f"
	    " ON f.id = s.file_id WHERE s.name = ?1"
	    " ORDER BY length(s.qualname), f.path, s.start_byte LIMIT ?2",
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

int index_spans_named_many(Index *ix, const char *const *names, uint32_t n,
			   uint32_t per_name, IndexSpan **out, uint32_t *nout)
{
	Buf b = {0};
	int err;

	*out = NULL;
	*nout = 0;
	if (n == 0 || per_name == 0)
		return 0;
	if (n > INDEX_SEARCH_MAX)
		return CASTLS_ELIMIT;
	buf_puts(&b, "[");
	for (uint32_t i = 0; i < n; i++) {
		if (i)
			buf_puts(&b, ",");
		buf_json_string(&b, names[i], strlen(names[i]));
	}
	buf_puts(&b, "]");
	err = spans_from_json(ix, ST_SPANS_NAMED_MANY, &b,
			      per_name > INDEX_SEARCH_MAX ? INDEX_SEARCH_MAX
							  : per_name,
			      out, nout);
	buf_free(&b);
	return err;
}

int index_members_named_many(Index *ix, const char *const *classes,
			     const char *const *names, uint32_t n,
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
	err = spans_from_json(ix, ST_MEMBERS_MANY, &b,
			      per_pair > INDEX_SEARCH_MAX ? INDEX_SEARCH_MAX
							  : per_pair,
			      out, nout);
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
