/*
 * test_tokenize.c: the code-aware tokenizer, called directly and through
 * a real in-memory FTS5 table.
 */
#include "test.h"

#include <sqlite3.h>
#include <stdlib.h>

#include "base/base.h"
#include "index/index_int.h"
#include "index/tokenize.h"

/* ---------------------------------------------------------------------- *
 * Helpers
 * ---------------------------------------------------------------------- */

/* Writes each token as text, space-separated, prefixed by its flags:
 * '#' number, '.' part. */
static int collect(void *ctx, int flags, const char *tok, int len,
		   int start, int end)
{
	Buf *b = ctx;

	(void)start;
	(void)end;
	if (b->len)
		buf_puts(b, " ");
	if (flags & TOKEN_NUMBER)
		buf_puts(b, "#");
	if (flags & TOKEN_PART)
		buf_puts(b, ".");
	buf_append(b, tok, (size_t)len);
	return 0;
}

/* Tokenizes an exact-size heap copy of text (no NUL after it, so ASan
 * catches any read past the end). Caller xfrees the result. */
static char *toks_n(const char *text, size_t len)
{
	char *copy = xmalloc(len ? len : 1);
	Buf b = {0};

	memcpy(copy, text, len);
	EXPECT_INT_EQ(code_tokenize(copy, len, collect, &b), 0);
	xfree(copy);
	return buf_take(&b);
}

static char *toks(const char *text) { return toks_n(text, strlen(text)); }

/* ---------------------------------------------------------------------- *
 * Direct tokenization
 * ---------------------------------------------------------------------- */

static const struct {
	const char *in, *out;
} cases[] = {
	/* camelCase, acronyms, digits */
	{"getHTTPResponse2xx",
	 "gethttpresponse2xx .get .http .response .2 .xx"},
	{"XMLParser", "xmlparser .xml .parser"},
	{"HTTPServer", "httpserver .http .server"},
	{"IOError", "ioerror .io .error"},
	{"fooBAR", "foobar .foo .bar"},
	{"getUserName", "getusername .get .user .name"},
	{"utf8", "utf8 .utf .8"},
	{"ABC", "abc"},
	{"x", "x"},
	/* snake_case: the whole without its '_' and '$' */
	{"MAX_SIZE", "maxsize .max .size"},
	{"get_user_name", "getusername .get .user .name"},
	{"int32_t", "int32t .int .32 .t"},
	{"x86_64", "x8664 .x .86 .64"},
	{"get_get", "getget .get"},
	{"a$b", "ab .a .b"},
	{"a__b", "ab .a .b"},
	/* trimming */
	{"__init__", "init"},
	{"_private_name", "privatename .private .name"},
	{"$HOME", "home"},
	{"$", ""},
	{"___ _", ""},
	/* numbers: whole only, never split; too long is dropped */
	{"0x1F", "#0x1f"},
	{"1_000", "#1000"},
	{"3.14", "#3 #14"},
	{"12345678901234567890", "#12345678901234567890"},
	{"123456789012345678901", ""},
	{"a123456789012345678901", "a123456789012345678901 .a"},
	{"v2", "v2 .v .2"},
	/* punctuation and whitespace */
	{"a.b(c, d);", "a b c d"},
	{"obj->field[i] = x+1;", "obj field i x #1"},
	{"  \t\r\n", ""},
	{"", ""},
	{"if (!ok) { return -1; }", "if ok return #1"},
	/* non-ASCII: letters are caseless, some blocks are punctuation */
	{"na\xc3\xafveCount", "na\xc3\xafvecount .na\xc3\xafve .count"},
	{"\xc3\xa9" "Foo", "\xc3\xa9" "foo .\xc3\xa9 .foo"},
	{"AB\xc3\xa9", "ab\xc3\xa9"},
	{"\xc3\x9c" "ber", "\xc3\x9c" "ber"},
	{"\xef\xbb\xbfimport os", "import os"},
	{"\xe2\x80\x9cquoted\xe2\x80\x9d \xe2\x80\x94 text",
	 "quoted text"},
	{"fooBar\xe2\x86\x92" "baz", "foobar .foo .bar baz"},
	{"a\xc2\xa0" "b", "a b"},
	{"\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
	 "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e"},
	{"ok\xf0\x9f\x98\x80" "done", "ok done"},
	/* invalid UTF-8 separates; the valid parts still come out */
	{"a\xff" "b", "a b"},
	{"foo\xfe\xff" "bar", "foo bar"},
	{"\xc3", ""},
	{"ok\xe2\x82", "ok"},
	{"\xed\xa0\x80x", "x"},
	{"\xc0\xafy", "y"},
	{"\xf4\x90\x80\x80z", "z"},
	{"\x80\x80" "caf\xc3\xa9\xc3", "caf\xc3\xa9"},
};

TEST(tokenize_table)
{
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = toks(cases[i].in);

		if (strcmp(got, cases[i].out) != 0)
			test_fail(__FILE__, __LINE__,
				  "case %zu \"%s\":\n  got:      \"%s\"\n"
				  "  expected: \"%s\"",
				  i, cases[i].in, got, cases[i].out);
		xfree(got);
	}
}

typedef struct {
	int flags[16], start[16], end[16];
	char tok[16][CODE_TOKEN_MAX + 1];
	int n, stop_at, stop_value;
} Record;

static int record(void *ctx, int flags, const char *tok, int len, int start,
		  int end)
{
	Record *r = ctx;

	if (r->n < 16) {
		r->flags[r->n] = flags;
		r->start[r->n] = start;
		r->end[r->n] = end;
		memcpy(r->tok[r->n], tok, (size_t)len);
		r->tok[r->n][len] = '\0';
	}
	r->n++;
	return r->n == r->stop_at ? r->stop_value : 0;
}

TEST(tokenize_offsets_and_flags)
{
	static const char text[] = "  fooBar(__x__)";
	Record r = {0};

	ASSERT_INT_EQ(code_tokenize(text, strlen(text), record, &r), 0);
	ASSERT_INT_EQ(r.n, 4);
	EXPECT_STR_EQ(r.tok[0], "foobar");
	EXPECT_INT_EQ(r.flags[0], TOKEN_WHOLE);
	EXPECT_INT_EQ(r.start[0], 2);
	EXPECT_INT_EQ(r.end[0], 8);
	EXPECT_STR_EQ(r.tok[1], "foo");
	EXPECT_INT_EQ(r.flags[1], TOKEN_PART);
	EXPECT_INT_EQ(r.start[1], 2);
	EXPECT_INT_EQ(r.end[1], 5);
	EXPECT_STR_EQ(r.tok[2], "bar");
	EXPECT_INT_EQ(r.start[2], 5);
	EXPECT_INT_EQ(r.end[2], 8);
	/* The whole of a trimmed identifier covers only what is left. */
	EXPECT_STR_EQ(r.tok[3], "x");
	EXPECT_INT_EQ(r.flags[3], TOKEN_WHOLE);
	EXPECT_INT_EQ(r.start[3], 11);
	EXPECT_INT_EQ(r.end[3], 12);
}

TEST(tokenize_stops_on_callback_value)
{
	static const char text[] = "alpha betaGamma delta";
	Record r = {0};

	r.stop_at = 2;
	r.stop_value = 7;
	EXPECT_INT_EQ(code_tokenize(text, strlen(text), record, &r), 7);
	EXPECT_INT_EQ(r.n, 2);
	EXPECT_STR_EQ(r.tok[1], "betagamma");
}

TEST(tokenize_length_limits)
{
	char text[CODE_IDENT_MAX + 8];
	char *got;
	Record r = {0};
	size_t i;

	/* Exactly CODE_IDENT_MAX bytes: kept, whole cut to CODE_TOKEN_MAX. */
	memset(text, 'a', CODE_IDENT_MAX);
	got = toks_n(text, CODE_IDENT_MAX);
	EXPECT_INT_EQ(strlen(got), CODE_TOKEN_MAX);
	xfree(got);
	/* One byte more: skipped, but the next identifier still counts. */
	memset(text, 'a', CODE_IDENT_MAX + 1);
	memcpy(text + CODE_IDENT_MAX + 1, " next", 5);
	got = toks_n(text, CODE_IDENT_MAX + 6);
	EXPECT_STR_EQ(got, "next");
	xfree(got);
	/* The cut lands on a character boundary: 'a' then 2-byte chars. */
	text[0] = 'a';
	for (i = 0; i < 40; i++)
		memcpy(text + 1 + 2 * i, "\xc3\xa9", 2);
	ASSERT_INT_EQ(code_tokenize(text, 81, record, &r), 0);
	ASSERT_INT_EQ(r.n, 1);
	EXPECT_INT_EQ(strlen(r.tok[0]), CODE_TOKEN_MAX - 1);
	EXPECT_INT_EQ(r.end[0], 81);
	/* The whole loses its '_' before the cut: CODE_TOKEN_MAX letters,
	 * which read back as themselves. */
	memset(text, 'b', 100);
	text[CODE_TOKEN_MAX - 1] = '_';
	memset(&r, 0, sizeof(r));
	ASSERT_INT_EQ(code_tokenize(text, 100, record, &r), 0);
	EXPECT_INT_EQ(strlen(r.tok[0]), CODE_TOKEN_MAX);
	EXPECT_TRUE(strspn(r.tok[0], "b") == CODE_TOKEN_MAX);
}

/* ---------------------------------------------------------------------- *
 * Random input: invariants, and every whole or part token reads back as
 * itself (what code_query_build() depends on).
 * ---------------------------------------------------------------------- */

typedef struct {
	size_t len;
	int n, bad;
} Check;

static int reread(void *ctx, int flags, const char *tok, int len, int start,
		  int end)
{
	Record *r = ctx;

	(void)start;
	(void)end;
	if (r->n == 0) {
		r->flags[0] = flags;
		r->end[0] = len;
		memcpy(r->tok[0], tok, (size_t)len);
	}
	r->n += (flags & TOKEN_PART) ? 0 : 1;
	return 0;
}

static int check(void *ctx, int flags, const char *tok, int len, int start,
		 int end)
{
	Check *c = ctx;
	Record r = {0};

	if (len <= 0 || len > CODE_TOKEN_MAX || start < 0 || end <= start ||
	    (size_t)end > c->len)
		c->bad++;
	if (c->n++ == 0 && (flags & TOKEN_PART))
		c->bad++;
	if (memchr(tok, '_', (size_t)len) || memchr(tok, '$', (size_t)len))
		c->bad++;
	/* One identifier whose first token is tok itself. The re-read is
	 * recorded through reread() so only its first token is kept. */
	if (code_tokenize(tok, (size_t)len, reread, &r) != 0 || r.n != 1 ||
	    r.end[0] != len || memcmp(r.tok[0], tok, (size_t)len) != 0 ||
	    (r.flags[0] & TOKEN_PART)) {
		test_fail(__FILE__, __LINE__, "\"%.*s\" does not read back",
			  len, tok);
		c->bad++;
	}
	return 0;
}

TEST(tokenize_random_bytes)
{
	static const char alphabet[] = "aZ_$9 .(\xc3\xa9\xe2\x80\x9c\xff\x80";
	uint64_t x = 0x9E3779B97F4A7C15u;
	char buf[600];
	Check c;
	int round, i;

	for (round = 0; round < 300; round++) {
		for (i = 0; i < (int)sizeof(buf); i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			/* Mostly alphabet bytes, some raw ones. */
			buf[i] = (x >> 8) % 4
				? alphabet[(x >> 16) % (sizeof(alphabet) - 1)]
				: (char)(x >> 24);
		}
		memset(&c, 0, sizeof(c));
		c.len = sizeof(buf);
		EXPECT_INT_EQ(code_tokenize(buf, sizeof(buf), check, &c), 0);
		if (c.bad) {
			test_fail(__FILE__, __LINE__, "round %d: %d bad",
				  round, c.bad);
			return;
		}
	}
}

/* Every token with its flags and offsets, one per line. */
static int trace(void *ctx, int flags, const char *tok, int len, int start,
		 int end)
{
	buf_printf(ctx, "%d %d %d ", flags, start, end);
	buf_append(ctx, tok, (size_t)len);
	buf_puts(ctx, "\n");
	return 0;
}

/* The fast paths for plain words and words joined by '_' give exactly
 * what the general path gives, on text built from words, code
 * punctuation, case changes, joins, digits, non-ASCII letters and
 * separators, and words around the CODE_TOKEN_MAX cut. */
TEST(tokenize_fast_path_matches_reference)
{
	static const char *const pieces[] = {
		"self", "Path", "return", "x", "getUser", "HTTP", "max_size",
		"_", "$", "9", "utf8", " ", "  ", "\n\t", "(", ").", "->",
		"\xc3\xa9", "\xe2\x80\x9c", "\xff", "Ab", "aB", "Z",
		"GFP_KERNEL", "Foo_Bar", "__", "spin_lock_", "ABc",
		/* 64 bytes, the most a token may have, and 65 */
		"abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
		"abcdefghijkl",
		"Abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz"
		"abcdefghijklm",
	};
	uint64_t x = 0x2545F4914F6CDD1Du;
	Buf text = {0}, fast = {0}, ref = {0};
	int round, i;

	for (round = 0; round < 500; round++) {
		text.len = fast.len = ref.len = 0;
		for (i = 0; i < 40; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			buf_puts(&text, pieces[(x >> 11) % (sizeof(pieces) /
							    sizeof(*pieces))]);
		}
		EXPECT_INT_EQ(code_tokenize(text.data, text.len, trace, &fast),
			      0);
		EXPECT_INT_EQ(code__tokenize_reference(text.data, text.len,
						       trace, &ref),
			      0);
		if (fast.len != ref.len ||
		    memcmp(fast.data, ref.data, fast.len) != 0) {
			test_fail(__FILE__, __LINE__,
				  "round %d \"%s\":\n  fast:\n%s"
				  "  reference:\n%s",
				  round, text.data, fast.data ? fast.data : "",
				  ref.data ? ref.data : "");
			break;
		}
	}
	buf_free(&text);
	buf_free(&fast);
	buf_free(&ref);
}

/* ---------------------------------------------------------------------- *
 * code_query_build
 * ---------------------------------------------------------------------- */

TEST(query_build_terms)
{
	Buf b = {0};

	EXPECT_INT_EQ(code_query_build("getUserName", 11, &b), 4);
	EXPECT_STR_EQ(b.data, "\"getusername\" OR \"get\" OR \"user\" OR "
			      "\"name\"");
	buf_free(&b);
	/* Wholes without their '_'; repeats are dropped. */
	EXPECT_INT_EQ(code_query_build("MAX_SIZE max Max", 16, &b), 3);
	EXPECT_STR_EQ(b.data, "\"maxsize\" OR \"max\" OR \"size\"");
	buf_free(&b);
	/* Appends. */
	buf_puts(&b, "body : (");
	EXPECT_INT_EQ(code_query_build("x", 1, &b), 1);
	EXPECT_STR_EQ(b.data, "body : (\"x\"");
	buf_free(&b);
	/* Nothing to search: nothing appended. */
	EXPECT_INT_EQ(code_query_build("(\"*\")", 5, &b), 0);
	EXPECT_INT_EQ(b.len, 0);
	buf_free(&b);
}

TEST(query_build_cap)
{
	Buf text = {0}, b = {0};
	size_t i, ors = 0;
	const char *p;

	for (i = 0; i < 3 * CODE_QUERY_TERMS_MAX; i++)
		buf_printf(&text, "word%zu ", i);
	EXPECT_INT_EQ(code_query_build(text.data, text.len, &b),
		      CODE_QUERY_TERMS_MAX);
	for (p = b.data; (p = strstr(p, " OR ")) != NULL; p++)
		ors++;
	EXPECT_INT_EQ(ors, CODE_QUERY_TERMS_MAX - 1);
	/* Text order: the first word is in, the last is not. */
	EXPECT_TRUE(strstr(b.data, "\"word0\"") != NULL);
	EXPECT_TRUE(strstr(b.data, "\"word95\"") == NULL);
	buf_free(&text);
	buf_free(&b);
}

/* ---------------------------------------------------------------------- *
 * FTS5
 * ---------------------------------------------------------------------- */

static const char *const docs[] = {
	"function getUserName(user) { return user.name; }", /* 1 */
	"def get_user_name(self): return self._name",       /* 2 */
	"http_server = make_server(port)",                  /* 3 */
	"const userName = 'bob';",                          /* 4 */
	"let total = count + 1;",                           /* 5 */
	"XMLParser parser = new XMLParser();",              /* 6 */
	"bad\xff\xfeword caf\xc3\xa9 \xe2\x82",             /* 7 */
};

static sqlite3 *db_open(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t i;

	if (sqlite3_open(":memory:", &db) != SQLITE_OK) {
		test_fail(__FILE__, __LINE__, "sqlite3_open failed");
		sqlite3_close(db);
		return NULL;
	}
	if (code_tokenizer_register(db) != 0 ||
	    sqlite3_exec(db,
			 "CREATE VIRTUAL TABLE t USING fts5(body, "
			 "tokenize='castls')",
			 NULL, NULL, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "INSERT INTO t(rowid, body) VALUES(?, ?)",
			       -1, &st, NULL) != SQLITE_OK) {
		test_fail(__FILE__, __LINE__, "setup: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		return NULL;
	}
	for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
		sqlite3_bind_int64(st, 1, (sqlite3_int64)i + 1);
		sqlite3_bind_text(st, 2, docs[i], -1, SQLITE_STATIC);
		if (sqlite3_step(st) != SQLITE_DONE)
			test_fail(__FILE__, __LINE__, "insert %zu: %s", i,
				  sqlite3_errmsg(db));
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return db;
}

/* The rowids matching expr, best bm25() first, space-separated; with
 * sorted set, in rowid order instead. NULL (and a failure) on an FTS5
 * error. Caller xfrees. */
static char *db_match(sqlite3 *db, const char *expr, bool sorted)
{
	sqlite3_stmt *st = NULL;
	Buf b = {0};
	int rc;

	rc = sqlite3_prepare_v2(db,
				sorted ? "SELECT rowid FROM t WHERE t MATCH ?"
					 " ORDER BY rowid"
				       : "SELECT rowid FROM t WHERE t MATCH ?"
					 " ORDER BY bm25(t), rowid",
				-1, &st, NULL);
	if (rc == SQLITE_OK)
		sqlite3_bind_text(st, 1, expr, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		buf_printf(&b, "%s%lld", b.len ? " " : "",
			   (long long)sqlite3_column_int64(st, 0));
		rc = SQLITE_OK;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		test_fail(__FILE__, __LINE__, "MATCH '%s': %s", expr,
			  sqlite3_errmsg(db));
		buf_free(&b);
		return NULL;
	}
	return buf_take(&b);
}

/* The rows code_query_build(text) finds, best first or sorted. */
static char *db_search(sqlite3 *db, const char *text, bool sorted)
{
	Buf q = {0};
	char *ids;

	if (code_query_build(text, strlen(text), &q) == 0)
		return xstrdup("");
	ids = db_match(db, q.data, sorted);
	buf_free(&q);
	return ids;
}

#define EXPECT_ROWS(got_, want)                 \
	do {                                    \
		char *got = (got_);             \
		if (got)                        \
			EXPECT_STR_EQ(got, want); \
		xfree(got);                     \
	} while (0)

TEST(fts5_raw_match)
{
	sqlite3 *db = db_open();

	ASSERT_TRUE(db != NULL);
	/* Parts are indexed: two words find camel and snake case. */
	EXPECT_ROWS(db_match(db, "user name", true), "1 2 4");
	/* An identifier finds its other spellings through the joined form,
	 * and only those: not userName, which lacks "get". */
	EXPECT_ROWS(db_match(db, "getUserName", true), "1 2");
	EXPECT_ROWS(db_match(db, "get_user_name", true), "1 2");
	EXPECT_ROWS(db_match(db, "GET_USER_NAME", true), "1 2");
	EXPECT_ROWS(db_match(db, "HTTPServer", true), "3");
	EXPECT_ROWS(db_match(db, "server", true), "3");
	EXPECT_ROWS(db_match(db, "xml", true), "6");
	/* Prefixes, on the whole and on the joined form. */
	EXPECT_ROWS(db_match(db, "getUser*", true), "1 2");
	EXPECT_ROWS(db_match(db, "get_us*", true), "1 2");
	EXPECT_ROWS(db_match(db, "http_s*", true), "3");
	/* One position per identifier: phrases line up. */
	EXPECT_ROWS(db_match(db, "\"getUserName user\"", true), "1");
	EXPECT_ROWS(db_match(db, "\"return user name\"", true), "1");
	EXPECT_ROWS(db_match(db, "NEAR(make_server port, 0)", true), "3");
	/* Invalid UTF-8 in a document: the valid words are indexed. */
	EXPECT_ROWS(db_match(db, "bad", true), "7");
	EXPECT_ROWS(db_match(db, "word", true), "7");
	EXPECT_ROWS(db_match(db, "caf\xc3\xa9", true), "7");
	sqlite3_close(db);
}

TEST(fts5_query_build_match)
{
	sqlite3 *db = db_open();

	ASSERT_TRUE(db != NULL);
	EXPECT_ROWS(db_search(db, "get_user_name", true), "1 2 4");
	EXPECT_ROWS(db_search(db, "user name", true), "1 2 4");
	EXPECT_ROWS(db_search(db, "HTTPServer", true), "3");
	EXPECT_ROWS(db_search(db, "new XmlParser", true), "6");
	sqlite3_close(db);
}

TEST(fts5_query_build_never_errors)
{
	static const char *const hostile[] = {
		"\"",
		"\"\"\"",
		"((((",
		")(",
		"foo(bar",
		"NEAR(",
		"AND OR NOT",
		"a AND",
		"*",
		"^foo",
		"foo\"bar",
		"body:foo",
		"{body}",
		"- + : ,",
		"'\\'",
		"\x01\x02",
		"\xff\xfe\xc3",
		"x = \"a\\\"b\" ; /* */ // \n",
		"NOT",
	};
	sqlite3 *db = db_open();
	size_t i;
	Buf q = {0};

	ASSERT_TRUE(db != NULL);
	for (i = 0; i < sizeof(hostile) / sizeof(hostile[0]); i++) {
		if (code_query_build(hostile[i], strlen(hostile[i]), &q)) {
			/* db_match fails the test on an FTS5 error. */
			xfree(db_match(db, q.data, false));
		}
		buf_free(&q);
	}
	/* The same text straight into MATCH is a syntax error; the point
	 * of code_query_build. */
	{
		sqlite3_stmt *st = NULL;
		int rc = sqlite3_prepare_v2(
			db, "SELECT rowid FROM t WHERE t MATCH 'foo(bar'", -1,
			&st, NULL);

		if (rc == SQLITE_OK)
			rc = sqlite3_step(st);
		sqlite3_finalize(st);
		EXPECT_TRUE(rc == SQLITE_ERROR);
	}
	sqlite3_close(db);
}

TEST(fts5_bm25_prefers_exact_identifier)
{
	static const char *const rows[] = {
		"the user name helper",
		"getUser only helper",
		"the getUserName helper",
		"name the user",
	};
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	size_t i;

	ASSERT_INT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
	ASSERT_INT_EQ(code_tokenizer_register(db), 0);
	ASSERT_INT_EQ(sqlite3_exec(db,
				   "CREATE VIRTUAL TABLE t USING fts5(body, "
				   "tokenize='castls')",
				   NULL, NULL, NULL),
		      SQLITE_OK);
	ASSERT_INT_EQ(sqlite3_prepare_v2(db, "INSERT INTO t(body) VALUES(?)",
					 -1, &st, NULL),
		      SQLITE_OK);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		sqlite3_bind_text(st, 1, rows[i], -1, SQLITE_STATIC);
		EXPECT_INT_EQ(sqlite3_step(st), SQLITE_DONE);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	/* Row 3 holds the identifier itself and comes first; the others
	 * match only some of its parts. */
	{
		char *ids = db_search(db, "getUserName", false);

		if (ids)
			EXPECT_TRUE(strncmp(ids, "3 ", 2) == 0);
		if (ids && strncmp(ids, "3 ", 2) != 0)
			test_fail(__FILE__, __LINE__, "order: %s", ids);
		xfree(ids);
	}
	sqlite3_close(db);
}

TEST(fts5_tokenizer_rejects_arguments)
{
	sqlite3 *db = NULL;
	int rc;

	ASSERT_INT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
	ASSERT_INT_EQ(code_tokenizer_register(db), 0);
	rc = sqlite3_exec(db,
			  "CREATE VIRTUAL TABLE t USING fts5(body, "
			  "tokenize='castls porter')",
			  NULL, NULL, NULL);
	EXPECT_TRUE(rc != SQLITE_OK);
	sqlite3_close(db);
}
