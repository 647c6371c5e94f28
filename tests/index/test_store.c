/*
 * test_store.c: the SQLite store of the index: stable row ids across
 * index_file_put, search over text, names and identifier parts, and
 * opening damaged, foreign, locked or unreachable databases. Every test
 * works on real files in a fresh temporary directory and reads what the
 * index wrote through a second, independent SQLite connection.
 */
#include <math.h>

#include "test.h"

#include "index/index.h"
#include "index/index_int.h"
#include "fts_segments.h"
#include "ixtest.h"

/* Small enough that every method below is its own chunk. */
#define SMALL_CHUNK 80

/* ---------------------------------------------------------------------- *
 * Fixture
 * ---------------------------------------------------------------------- */

/* The deposit method's chunk does not contain the word "Ledger": only its
 * names (Ledger.deposit) do. */
static const char ledger_v1[] =
	"import os\n"
	"\n"
	"\n"
	"class Ledger:\n"
	"    \"\"\"Keeps balances.\"\"\"\n"
	"\n"
	"    def deposit(self, amount):\n"
	"        self.total = self.total + amount\n"
	"        return self.total\n"
	"\n"
	"    def withdraw(self, amount):\n"
	"        self.total = self.total - amount\n"
	"        return self.total\n"
	"\n"
	"\n"
	"def helper(value):\n"
	"    zebra = 7\n"
	"    return value * 2 + zebra\n"
	"\n"
	"\n"
	"def getUserName(user):\n"
	"    return user.first_name + user.last_name\n"
	"\n"
	"\n"
	"def other(x):\n"
	"    return x - 42\n";

/* One line of helper replaced by two: zebra gone, giraffe new, and every
 * row after helper one line further down. */
static const char ledger_v2[] =
	"import os\n"
	"\n"
	"\n"
	"class Ledger:\n"
	"    \"\"\"Keeps balances.\"\"\"\n"
	"\n"
	"    def deposit(self, amount):\n"
	"        self.total = self.total + amount\n"
	"        return self.total\n"
	"\n"
	"    def withdraw(self, amount):\n"
	"        self.total = self.total - amount\n"
	"        return self.total\n"
	"\n"
	"\n"
	"def helper(value):\n"
	"    giraffe = 7\n"
	"    print(giraffe)\n"
	"    return value * 2 + giraffe\n"
	"\n"
	"\n"
	"def getUserName(user):\n"
	"    return user.first_name + user.last_name\n"
	"\n"
	"\n"
	"def other(x):\n"
	"    return x - 42\n";

typedef struct {
	char *tmp, *root, *db_path;
	Index *ix;
	sqlite3 *db; /* the second connection, once opened */
} Fixture;

/* Opens a connection to the fixture's database, as fixture_open does. */
static int fixture_connect(const Fixture *f, Index **out)
{
	IndexOptions o = {0};

	o.root = f->root;
	o.db_path = f->db_path;
	o.max_chunk_size = SMALL_CHUNK;
	o.quiet = true;
	o.busy_timeout_ms = 200;
	return index_open(&o, out);
}

static int fixture_open(Fixture *f) { return fixture_connect(f, &f->ix); }

static void fixture_init(Fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->tmp = ixt_tmpdir();
	f->root = ixt_path(f->tmp, "root");
	f->db_path = ixt_path(f->tmp, "db/index.db");
	ixt_mkdirs(f->root);
}

static void fixture_close(Fixture *f)
{
	index_close(f->ix);
	if (f->db)
		sqlite3_close(f->db);
	ixt_rmtree(f->tmp);
	xfree(f->tmp);
	xfree(f->root);
	xfree(f->db_path);
}

/* Chunks text as Python at SMALL_CHUNK and puts it at relpath. */
static int put(Index *ix, const char *relpath, const char *text,
	       IndexDelta *d)
{
	Chunker *ch = chunker_new(SMALL_CHUNK);
	Chunking c;
	uint32_t len = (uint32_t)strlen(text);
	int err = chunker_run(ch, LANG_PYTHON, text, len, NULL, &c);

	if (err == 0) {
		err = index_file_put(ix, relpath, text, len, &c, d);
		chunking_close(&c);
	}
	chunker_delete(ch);
	return err;
}

static long long q_int(Fixture *f, const char *sql)
{
	if (!f->db)
		f->db = ixt_db_open(f->db_path);
	return ixt_int(f->db, sql);
}

/* Raw FTS matches, which still count index entries whose chunk row is
 * gone (a stale full-text entry is invisible to index_search's join). */
static long long fts_count(Fixture *f, const char *term)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '%s'",
		 term);
	return q_int(f, sql);
}

/* The full-text index agrees with the chunks it was built from. */
static int fts_integrity(Fixture *f)
{
	if (!f->db)
		f->db = ixt_db_open(f->db_path);
	return ixt_exec(f->db, "INSERT INTO chunks_fts(chunks_fts)"
			       " VALUES('integrity-check')");
}

static uint32_t search_n(Index *ix, const char *q, uint32_t limit)
{
	IndexHit *h;
	uint32_t n = UINT32_MAX;

	if (index_search(ix, q, strlen(q), limit, &h, &n) == 0)
		index_hits_free(h, n);
	return n;
}

/* ---------------------------------------------------------------------- *
 * index_file_put: stable ids
 * ---------------------------------------------------------------------- */

TEST(store_put_keeps_unchanged_rows)
{
	Fixture f;
	IndexDelta d;
	long long helper_span, withdraw_span, other_span, deposit_chunk,
		tail_chunk, helper_chunk;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v1, &d), 0);
	/* 6 chunks (imports, class head, deposit, withdraw, helper, the
	 * two last functions) and 6 spans, all new. */
	EXPECT_INT_EQ(d.inserted, 12);
	EXPECT_INT_EQ(d.updated + d.deleted + d.kept, 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks"), 6);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM spans"), 6);

	helper_span = q_int(&f, "SELECT id FROM spans WHERE qualname='helper'");
	withdraw_span = q_int(&f, "SELECT id FROM spans"
				  " WHERE qualname='Ledger.withdraw'");
	other_span = q_int(&f, "SELECT id FROM spans WHERE qualname='other'");
	deposit_chunk = q_int(&f, "SELECT id FROM chunks"
				  " WHERE text LIKE '%def deposit%'");
	helper_chunk = q_int(&f, "SELECT id FROM chunks"
				 " WHERE text LIKE '%def helper%'");
	tail_chunk = q_int(&f, "SELECT id FROM chunks"
			       " WHERE text LIKE '%def other%'");
	ASSERT_TRUE(helper_span > 0 && withdraw_span > 0 && other_span > 0);
	ASSERT_TRUE(deposit_chunk > 0 && helper_chunk > 0 && tail_chunk > 0);
	EXPECT_INT_EQ(fts_count(&f, "zebra"), 1);

	/* Same text again: nothing to do. */
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v1, &d), 0);
	EXPECT_INT_EQ(d.kept, 12);
	EXPECT_INT_EQ(d.inserted + d.updated + d.deleted, 0);

	/* A one-line edit in helper: its span and chunk are replaced, the
	 * two spans and one chunk after it move, the rest stay put. */
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v2, &d), 0);
	EXPECT_INT_EQ(d.inserted, 2);
	EXPECT_INT_EQ(d.deleted, 2);
	EXPECT_INT_EQ(d.updated, 3);
	EXPECT_INT_EQ(d.kept, 7);

	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM spans"
				" WHERE qualname='Ledger.withdraw'"),
		      withdraw_span);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM spans WHERE qualname='other'"),
		      other_span);
	EXPECT_INT_EQ(q_int(&f, "SELECT start_line FROM spans"
				" WHERE qualname='other'"),
		      25); /* 0-based, one further down */
	EXPECT_TRUE(q_int(&f, "SELECT id FROM spans WHERE qualname='helper'") !=
		    helper_span);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM chunks"
				" WHERE text LIKE '%def deposit%'"),
		      deposit_chunk);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM chunks"
				" WHERE text LIKE '%def other%'"),
		      tail_chunk);
	EXPECT_INT_EQ(q_int(&f, "SELECT start_line FROM chunks"
				" WHERE text LIKE '%def other%'"),
		      19);
	EXPECT_TRUE(q_int(&f, "SELECT id FROM chunks"
			      " WHERE text LIKE '%def helper%'") !=
		    helper_chunk);
	/* A chunk's span reference follows the span's new row. */
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks c LEFT JOIN"
				" spans s ON s.id=c.span_id WHERE"
				" c.span_id IS NOT NULL AND s.id IS NULL"),
		      0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks"), 6);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM spans"), 6);

	/* The text index follows: new words found, removed ones gone. */
	EXPECT_INT_EQ(search_n(f.ix, "giraffe", 10), 1);
	EXPECT_INT_EQ(search_n(f.ix, "zebra", 10), 0);
	EXPECT_INT_EQ(fts_count(&f, "giraffe"), 1);
	EXPECT_INT_EQ(fts_count(&f, "zebra"), 0);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);

	/* Removing the file takes every row and index entry with it. */
	ASSERT_INT_EQ(index_file_remove(f.ix, "pkg/led.py"), 0);
	EXPECT_INT_EQ(index_file_remove(f.ix, "pkg/led.py"), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks"), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM spans"), 0);
	EXPECT_INT_EQ(fts_count(&f, "giraffe"), 0);
	EXPECT_INT_EQ(fts_count(&f, "deposit"), 0);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	fixture_close(&f);
}

/* The pages an index reads sit in the process's page-cache pool, and go
 * back to it, not to malloc, when a commit of another connection empties
 * the reader's cache. (This test's process starts SQLite with its first
 * index_open, as castls does.) */
/* A span keeps whether it is at its file's top (or in namespaces only),
 * also when its parent's row is replaced and its own row stays. */
TEST(store_spans_keep_whether_they_are_top_level)
{
	static const char *const heads[] = {"class Ledger:\n",
					    "class Ledger(object):\n"};
	Fixture f;
	IndexDelta d;
	long long deposit = 0;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	for (int v = 0; v < 2; v++) {
		char *text = xstrdup(ledger_v1);
		char *at = strstr(text, heads[0]);
		Buf b = {0};

		buf_append(&b, text, (size_t)(at - text));
		buf_puts(&b, heads[v]);
		buf_puts(&b, at + strlen(heads[0]));
		ASSERT_INT_EQ(put(f.ix, "pkg/led.py", b.data, &d), 0);
		buf_free(&b);
		xfree(text);
		if (f.db) { /* see the new rows */
			sqlite3_close(f.db);
			f.db = NULL;
		}
		EXPECT_INT_EQ(q_int(&f, "SELECT group_concat(qualname || '='"
					" || top, ' ') = 'Ledger=1"
					" Ledger.deposit=0 Ledger.withdraw=0"
					" helper=1' FROM (SELECT * FROM spans"
					" WHERE qualname IN ('Ledger', 'helper',"
					" 'Ledger.deposit', 'Ledger.withdraw')"
					" ORDER BY start_byte)"),
			      1);
		if (v == 0)
			deposit = q_int(&f, "SELECT id FROM spans WHERE"
					    " qualname='Ledger.deposit'");
	}
	/* The method's row stayed, under the class's new one. */
	EXPECT_INT_EQ(d.updated > 0, 1);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM spans"
				" WHERE qualname='Ledger.deposit'"),
		      deposit);
	fixture_close(&f);
}

/* The kinds a name means last are the same in SQL as in C, and a lookup
 * in a name's order reads the spans_name index in that order: an index
 * expression that differs from the query's by a token leaves the index
 * to the name alone and sorts every definition of it. */
TEST(store_name_order_reads_the_name_index)
{
	Fixture f;
	IndexDelta d;
	char *plan;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v1, &d), 0);
	for (int k = 0; k < SPAN_KIND_COUNT; k++) {
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "SELECT %s FROM (SELECT '%s' AS kind)", LATE_KIND(""),
			 span_kind_name((SpanKind)k));
		EXPECT_INT_EQ(q_int(&f, sql), span_is_late((SpanKind)k));
	}
	plan = ixt_rows(f.db, "EXPLAIN QUERY PLAN SELECT s.id FROM spans s"
			      " WHERE s.name = 'deposit' ORDER BY " NAME_ORDER(
				  s) " LIMIT 4");
	EXPECT_TRUE(strstr(plan, "spans_name") != NULL);
	EXPECT_TRUE(strstr(plan, "TEMP B-TREE") == NULL);
	xfree(plan);
	fixture_close(&f);
}

/* index_file_texts reads a range's chunks alone: one at the end of a
 * file of a hundred chunks and more costs what one at its top does. */
TEST(store_file_texts_read_only_the_range)
{
	enum { FUNCS = 300, RANGES = 6 };
	Fixture f;
	IndexDelta d;
	IndexTextRange r[RANGES];
	char *texts[RANGES];
	Buf text = {0};
	sqlite3_stmt *s;
	uint32_t len, boundary;
	int64_t steps[RANGES], file_id;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	for (int i = 0; i < FUNCS; i++)
		buf_printf(&text, "def f%03d(x):\n    return x + %d\n\n\n", i,
			   i);
	len = (uint32_t)text.len;
	ASSERT_INT_EQ(put(f.ix, "pkg/many.py", text.data, &d), 0);
	ASSERT_TRUE(q_int(&f, "SELECT count(*) FROM chunk_rows") >= 100);
	file_id = q_int(&f, "SELECT id FROM files");
	boundary =
	    (uint32_t)q_int(&f, "SELECT start_byte FROM chunk_rows"
				" ORDER BY start_byte LIMIT 1 OFFSET 50");
	{
		const uint32_t at[RANGES][2] = {
		    {0, 10},			  /* the top */
		    {len - 30, len},		  /* the end */
		    {len / 2 - 5, len / 2 + 300}, /* chunks across */
		    {boundary, boundary + 3},	  /* at a chunk's start */
		    {boundary - 1, boundary},	  /* just before it */
		    {0, len},			  /* all of it */
		};

		for (int i = 0; i < RANGES; i++) {
			r[i].file_id = file_id;
			r[i].start = at[i][0];
			r[i].end = at[i][1];
		}
	}
	s = index__stmt(f.ix, ST_FILE_TEXTS);
	for (int i = 0; i < RANGES; i++) {
		sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
		ASSERT_INT_EQ(index_file_texts(f.ix, &r[i], 1, &texts[i]), 0);
		steps[i] = sqlite3_stmt_status(s, SQLITE_STMTSTATUS_VM_STEP, 1);
		ASSERT_TRUE(texts[i] != NULL);
		EXPECT_INT_EQ(strlen(texts[i]), r[i].end - r[i].start);
		EXPECT_TRUE(memcmp(texts[i], text.data + r[i].start,
				   r[i].end - r[i].start) == 0);
		xfree(texts[i]);
	}
	/* All at once, in one statement, come out the same. */
	ASSERT_INT_EQ(index_file_texts(f.ix, r, RANGES, texts), 0);
	for (int i = 0; i < RANGES; i++) {
		ASSERT_TRUE(texts[i] != NULL);
		EXPECT_INT_EQ(strlen(texts[i]), r[i].end - r[i].start);
		EXPECT_TRUE(memcmp(texts[i], text.data + r[i].start,
				   r[i].end - r[i].start) == 0);
		xfree(texts[i]);
	}
	EXPECT_TRUE(steps[1] <= 2 * steps[0]);
	EXPECT_TRUE(steps[3] <= 2 * steps[0]);
	EXPECT_TRUE(steps[5] > 10 * steps[0]); /* the count counts rows */
	buf_free(&text);
	fixture_close(&f);
}

TEST(store_page_caches_use_the_pool)
{
	Fixture f;
	IndexDelta d;
	sqlite3_int64 used = 0, high = 0, after = 0;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v1, &d), 0);
	EXPECT_INT_EQ(search_n(f.ix, "deposit", 10), 1);
	ASSERT_INT_EQ(sqlite3_status64(SQLITE_STATUS_PAGECACHE_USED, &used,
				       &high, 0),
		      SQLITE_OK);
	EXPECT_TRUE(used > 0);
	/* Another connection commits; the next read empties the cache,
	 * reads its pages again, and the pool's count stays bounded. */
	ASSERT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), 1);
	ASSERT_INT_EQ(ixt_exec(f.db, "UPDATE files SET mtime=7"), SQLITE_OK);
	EXPECT_INT_EQ(search_n(f.ix, "deposit", 10), 1);
	ASSERT_INT_EQ(sqlite3_status64(SQLITE_STATUS_PAGECACHE_USED, &after,
				       &high, 0),
		      SQLITE_OK);
	EXPECT_TRUE(after > 0 && after <= high);
	fixture_close(&f);
}

/* A buffer whose text the index holds already (opened unmodified, or put
 * back after a scan found its file unchanged) commits nothing: another
 * connection sees no change, and the stamp a scan gave the rows stays. */
TEST(store_put_same_text_commits_nothing)
{
	Fixture f;
	IndexDelta d;
	long long version;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v1, &d), 0);
	/* As a scan leaves it: the disk's mtime. */
	ASSERT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), 1);
	ASSERT_INT_EQ(ixt_exec(f.db, "UPDATE files SET mtime=1234"), SQLITE_OK);
	version = q_int(&f, "PRAGMA data_version");

	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v1, &d), 0);
	EXPECT_INT_EQ(d.kept, 12);
	EXPECT_INT_EQ(d.inserted + d.updated + d.deleted, 0);
	EXPECT_INT_EQ(q_int(&f, "PRAGMA data_version"), version);
	EXPECT_INT_EQ(q_int(&f, "SELECT mtime FROM files"), 1234);

	/* Another text is written, as a live buffer's (no disk stamp). */
	ASSERT_INT_EQ(put(f.ix, "pkg/led.py", ledger_v2, &d), 0);
	EXPECT_TRUE(q_int(&f, "PRAGMA data_version") != version);
	EXPECT_INT_EQ(q_int(&f, "SELECT mtime FROM files"), 0);
	EXPECT_INT_EQ(search_n(f.ix, "giraffe", 10), 1);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * index_file_edit: the rows of one edit, written in place
 * ---------------------------------------------------------------------- */

/* The rows of relpath without their ids, for comparing two files. */
static char *file_dump(Fixture *f, const char *relpath)
{
	static const char *const sql[] = {
		"SELECT size, mtime, hash, lang FROM files WHERE path='%s'",
		"SELECT s.kind, s.name, s.qualname, s.start_byte, s.end_byte,"
		" s.start_line, s.end_line, s.header, s.doc, s.hash, p.qualname"
		" FROM spans s JOIN files f ON f.id=s.file_id LEFT JOIN spans p"
		" ON p.id=s.parent_id WHERE f.path='%s'"
		" ORDER BY s.start_byte, s.end_byte",
		"SELECT c.kind, c.start_byte, c.end_byte, c.start_line,"
		" c.end_line, c.size, c.hash, c.names, c.text, s.qualname"
		" FROM chunks c JOIN files f ON f.id=c.file_id LEFT JOIN spans s"
		" ON s.id=c.span_id WHERE f.path='%s' ORDER BY c.start_byte",
	};
	Buf b = {0};

	if (!f->db)
		f->db = ixt_db_open(f->db_path);
	for (size_t i = 0; i < sizeof(sql) / sizeof(*sql); i++) {
		char q[512], *rows;

		snprintf(q, sizeof(q), sql[i], relpath);
		rows = ixt_rows(f->db, q);
		buf_puts(&b, rows);
		buf_puts(&b, "--\n");
		xfree(rows);
	}
	return buf_take(&b);
}

/* The ids of relpath's rows in file order. */
static char *file_ids(Fixture *f, const char *relpath)
{
	char q[256];

	snprintf(q, sizeof(q),
		 "SELECT group_concat(id) FROM (SELECT s.id FROM spans s JOIN"
		 " files f ON f.id=s.file_id WHERE f.path='%s' UNION ALL"
		 " SELECT c.id FROM chunks c JOIN files f ON f.id=c.file_id"
		 " WHERE f.path='%s')",
		 relpath, relpath);
	if (!f->db)
		f->db = ixt_db_open(f->db_path);
	return ixt_rows(f->db, q);
}

/* One edit of ledger_v1: e.py written by index_file_edit, p.py by
 * index_file_put of the same carried chunking; both rows must agree and
 * e.py's rows keep their ids. Returns 1 when compared, 0 when
 * chunking_edit refuses the edit. */
static int edit_once(Fixture *f, Chunker *ch, uint32_t a, uint32_t b,
		     const char *ins)
{
	uint32_t len0 = (uint32_t)strlen(ledger_v1), n = (uint32_t)strlen(ins);
	Chunking c0, c1;
	TSInputEdit e = {0};
	Buf t = {0};
	char *ids0, *ids1, *de, *dp;
	int ok = 0;

	if (chunker_run(ch, LANG_PYTHON, ledger_v1, len0, NULL, &c0) ||
	    index_file_put(f->ix, "e.py", ledger_v1, len0, &c0, NULL) ||
	    index_file_put(f->ix, "p.py", ledger_v1, len0, &c0, NULL))
		return -1;
	buf_append(&t, ledger_v1, a);
	buf_append(&t, ins, n);
	buf_puts(&t, ledger_v1 + b);
	e.start_byte = a;
	e.old_end_byte = b;
	e.new_end_byte = a + n;
	chunking_copy(&c0, &c1);
	if (chunking_edit(&c1, &e, 1, t.data, (uint32_t)t.len) == 0) {
		Chunking places;

		chunking_copy_places(&c0, &places);
		chunking_close(&c0);
		c0 = places;
		ids0 = file_ids(f, "e.py");
		ok = index_file_edit(f->ix, "e.py", t.data, (uint32_t)t.len,
				     castls_hash(t.data, t.len, 0), &e, &c0,
				     castls_hash(ledger_v1, len0, 0), &c1);
		ok = ok == 0 && index_file_put(f->ix, "p.py", t.data,
					       (uint32_t)t.len, &c1, NULL) == 0;
		ids1 = file_ids(f, "e.py");
		de = file_dump(f, "e.py");
		dp = file_dump(f, "p.py");
		EXPECT_TRUE(ok);
		EXPECT_STR_EQ(de, dp);
		EXPECT_STR_EQ(ids0, ids1);
		ok = ok && strcmp(de, dp) == 0 && strcmp(ids0, ids1) == 0 ? 1
									  : -1;
		xfree(ids0);
		xfree(ids1);
		xfree(de);
		xfree(dp);
	}
	chunking_close(&c0);
	chunking_close(&c1);
	buf_free(&t);
	return ok;
}

TEST(store_edit_matches_put)
{
	static const char *const ins[] = {"x", "\n", "", "yz\n"};
	Chunker *ch = chunker_new(SMALL_CHUNK);
	uint32_t len = (uint32_t)strlen(ledger_v1), done = 0;
	Fixture f;
	int r = 0;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	/* Insertions, deletions and replacements at every few bytes, the
	 * ends included. */
	for (uint32_t a = 0; a <= len && r >= 0; a += a < len && a % 5 ? 1 : 3)
		for (size_t i = 0; i < 4 && r >= 0; i++) {
			uint32_t b = i >= 2 && a < len ? a + 1 : a;

			if (b == a && !*ins[i])
				continue;
			if ((r = edit_once(&f, ch, a, b, ins[i])) > 0)
				done++;
		}
	EXPECT_TRUE(r >= 0);
	EXPECT_TRUE(done > 100);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	chunker_delete(ch);
	fixture_close(&f);
}

/* Frames in the write-ahead log (a passive checkpoint's count). */
static int wal_frames(Fixture *f)
{
	sqlite3_stmt *st;
	int n = -1;

	if (!f->db)
		f->db = ixt_db_open(f->db_path);
	if (sqlite3_prepare_v2(f->db, "PRAGMA wal_checkpoint(PASSIVE)", -1,
			       &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 1);
	sqlite3_finalize(st);
	return n;
}

/* A keystroke near the top of a long file moves every row after it, and
 * writes their places, not their text: fewer pages than the text fills
 * (the one chunk it changes and its full-text rows, the rows that move,
 * their indexes). Rewriting moved chunks whole took more. */
TEST(store_edit_moves_rows_without_their_text)
{
	Chunker *ch = chunker_new(600);
	Chunking c0, c1, places;
	TSInputEdit e = {0};
	Buf t = {0}, u = {0};
	Fixture f;
	long long frames, page;
	char *text;

	for (int i = 0; i < 800; i++) {
		buf_printf(&t,
			   "def step_%d(a, b):\n"
			   "    \"\"\"Step %d of the ledger's replay.\"\"\"\n"
			   "    total = a + b * %d\n",
			   i, i, i);
		for (int k = 0; k < 16; k++)
			buf_printf(&t, "    total += a * %d - b // %d\n", k,
				   k + 1);
		buf_puts(&t, "    return total\n\n\n");
	}
	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(chunker_run(ch, LANG_PYTHON, t.data, (uint32_t)t.len,
				  NULL, &c0),
		      0);
	ASSERT_TRUE(c0.nchunks > 100);
	ASSERT_INT_EQ(index_file_put(f.ix, "long.py", t.data, (uint32_t)t.len,
				     &c0, NULL),
		      0);
	/* An empty log: the edit's frames are all it holds after. */
	page = q_int(&f, "PRAGMA page_size");
	ASSERT_INT_EQ(ixt_exec(f.db, "PRAGMA wal_checkpoint(TRUNCATE)"),
		      SQLITE_OK);
	ASSERT_INT_EQ(wal_frames(&f), 0);
	e.start_byte = e.old_end_byte = 25; /* in step_0's docstring */
	e.new_end_byte = 31;
	buf_append(&u, t.data, 25);
	buf_puts(&u, "zebra ");
	buf_puts(&u, t.data + 25);
	chunking_copy(&c0, &c1);
	ASSERT_INT_EQ(chunking_edit(&c1, &e, 1, u.data, (uint32_t)u.len), 0);
	chunking_copy_places(&c0, &places);
	ASSERT_INT_EQ(index_file_edit(f.ix, "long.py", u.data, (uint32_t)u.len,
				      castls_hash(u.data, u.len, 0), &e,
				      &places, castls_hash(t.data, t.len, 0),
				      &c1),
		      0);
	frames = wal_frames(&f);
	EXPECT_TRUE(frames > 0);
	EXPECT_TRUE(frames * page < (long long)t.len);
	/* And the rows are the edited text's, in their new places. */
	EXPECT_INT_EQ(search_n(f.ix, "zebra", 10), 1);
	text = ixt_rows(f.db, "SELECT group_concat(text, '') FROM"
			      " (SELECT text FROM chunks ORDER BY start_byte)");
	EXPECT_TRUE(strlen(text) == u.len + 1 && /* and ixt_rows's newline */
		    memcmp(text, u.data, u.len) == 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT max(end_byte) FROM chunks"),
		      (long long)u.len);
	xfree(text);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	chunking_close(&places);
	chunking_close(&c0);
	chunking_close(&c1);
	chunker_delete(ch);
	buf_free(&t);
	buf_free(&u);
	fixture_close(&f);
}

/* The index holds rows of another text: nothing is written. */
TEST(store_edit_refuses_other_rows)
{
	uint32_t len = (uint32_t)strlen(ledger_v1);
	Chunker *ch = chunker_new(SMALL_CHUNK);
	TSInputEdit e = {0};
	Chunking c0, c1;
	Fixture f;
	char *before, *after;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(chunker_run(ch, LANG_PYTHON, ledger_v1, len, NULL, &c0),
		      0);
	ASSERT_INT_EQ(index_file_put(f.ix, "e.py", ledger_v1, len, &c0, NULL),
		      0);
	/* An edit of nothing keeps the text, so c1 fits ledger_v1 too. */
	e.start_byte = e.old_end_byte = e.new_end_byte = 10;
	chunking_copy(&c0, &c1);
	ASSERT_INT_EQ(chunking_edit(&c1, &e, 1, ledger_v1, len), 0);
	before = file_dump(&f, "e.py");
	EXPECT_INT_EQ(index_file_edit(f.ix, "e.py", ledger_v1, len, 1, &e,
				      &c0, 2, &c1),
		      CASTLS_EINVAL);
	EXPECT_INT_EQ(index_file_edit(f.ix, "none.py", ledger_v1, len, 1, &e,
				      &c0, castls_hash(ledger_v1, len, 0),
				      &c1),
		      CASTLS_EINVAL);
	after = file_dump(&f, "e.py");
	EXPECT_STR_EQ(before, after);
	xfree(before);
	xfree(after);
	chunking_close(&c0);
	chunking_close(&c1);
	chunker_delete(ch);
	fixture_close(&f);
}

/* A comment written above a definition changes no span's bytes, but the
 * file's chunks must follow it: the comment is what a reader of the
 * definition's item sees above it. */
TEST(store_put_follows_a_new_leading_comment)
{
	static const char v1[] = "def helper(x):\n    return x\n";
	static const char v2[] = "# Doubles nothing.\n"
				 "def helper(x):\n    return x\n";
	static const char v3[] = "# Returns x unchanged.\n"
				 "def helper(x):\n    return x\n";
	Fixture f;
	IndexDelta d;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put(f.ix, "h.py", v1, &d), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks"
				" WHERE text LIKE '%#%'"),
		      0);
	ASSERT_INT_EQ(put(f.ix, "h.py", v2, &d), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks"
				" WHERE text LIKE '%Doubles nothing%'"),
		      1);
	ASSERT_INT_EQ(put(f.ix, "h.py", v3, &d), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks WHERE text"
				" LIKE '%Doubles%' OR text NOT LIKE '%unchanged%'"),
		      0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM spans"), 1);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * Search
 * ---------------------------------------------------------------------- */

static void put_search_corpus(Fixture *f)
{
	char rel[64], text[256];
	IndexDelta d;

	EXPECT_INT_EQ(put(f->ix, "led.py", ledger_v1, &d), 0);
	/* Five more chunks that all say "total", in different amounts. */
	for (int i = 0; i < 5; i++) {
		Buf b = {0};

		for (int k = 0; k <= i; k++)
			buf_puts(&b, " total");
		snprintf(rel, sizeof(rel), "more/t%d.py", i);
		snprintf(text, sizeof(text), "def f%d():\n    \"\"\"%s\"\"\"\n",
			 i, b.data);
		buf_free(&b);
		EXPECT_INT_EQ(put(f->ix, rel, text, &d), 0);
	}
}

TEST(store_search_names_and_identifier_parts)
{
	Fixture f;
	IndexHit *h;
	uint32_t n;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	put_search_corpus(&f);

	/* Class and method name: the method's chunk, found through its
	 * names although its text never says "Ledger". */
	ASSERT_INT_EQ(index_search(f.ix, "Ledger deposit", 14, 5, &h, &n), 0);
	ASSERT_TRUE(n >= 1);
	EXPECT_STR_EQ(h[0].names, "Ledger.deposit");
	EXPECT_STR_EQ(h[0].path, "led.py");
	EXPECT_TRUE(strstr(h[0].text, "def deposit") != NULL);
	EXPECT_TRUE(strstr(h[0].text, "Ledger") == NULL);
	EXPECT_INT_EQ(h[0].lang, LANG_PYTHON);
	EXPECT_INT_EQ(h[0].kind, CHUNK_DEFINITION);
	EXPECT_INT_EQ(h[0].lines.start, 5);
	EXPECT_INT_EQ(h[0].lines.end, 8);
	EXPECT_TRUE(h[0].span_id > 0 && h[0].file_id > 0 && h[0].id > 0);
	EXPECT_INT_EQ(memcmp(h[0].text, ledger_v1 + h[0].bytes.start,
			     h[0].bytes.end - h[0].bytes.start),
		      0);
	index_hits_free(h, n);

	/* Identifier parts: "user name" meets getUserName. */
	ASSERT_INT_EQ(index_search(f.ix, "user name", 9, 5, &h, &n), 0);
	ASSERT_TRUE(n >= 1);
	EXPECT_TRUE(strstr(h[0].text, "def getUserName") != NULL);
	index_hits_free(h, n);
	ASSERT_INT_EQ(index_search(f.ix, "get_user_name", 13, 5, &h, &n), 0);
	ASSERT_TRUE(n >= 1);
	EXPECT_TRUE(strstr(h[0].text, "def getUserName") != NULL);
	index_hits_free(h, n);

	/* Nothing to search for: no hits and no error. */
	EXPECT_INT_EQ(search_n(f.ix, "(){}[]<>;:.,!?*&^%-+=\"'", 10), 0);
	EXPECT_INT_EQ(search_n(f.ix, "", 10), 0);
	EXPECT_INT_EQ(search_n(f.ix, "deposit", 0), 0);
	EXPECT_INT_EQ(search_n(f.ix, "nosuchwordanywhere", 10), 0);
	fixture_close(&f);
}

/* A query of words so common that even the rarest is in more chunks
 * than the posting budget (20,000): only the newest chunks are scored,
 * so the rows of the file written last (the one being edited) come
 * first, and the cost stays bounded however large the workspace. */
TEST(store_search_past_the_posting_budget)
{
	enum { DEFS = 10100 };
	Fixture f;
	IndexHit *h;
	uint32_t n;
	Buf text = {0};

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	/* One chunk a definition, each holding both words. */
	for (int i = 0; i < DEFS; i++)
		buf_printf(&text,
			   "def f%d(value):\n"
			   "    return common_word + value * %d\n",
			   i, 10000 + i);
	ASSERT_INT_EQ(put(f.ix, "older.py", text.data, NULL), 0);
	ASSERT_INT_EQ(put(f.ix, "newer.py", text.data, NULL), 0);
	buf_free(&text);
	ASSERT_TRUE(q_int(&f, "SELECT count(*) FROM chunks") > 20000);
	ASSERT_INT_EQ(index_search(f.ix, "common_word value", 17, 10, &h, &n),
		      0);
	EXPECT_INT_EQ(n, 10);
	for (uint32_t i = 0; i < n; i++)
		EXPECT_STR_EQ(h[i].path, "newer.py");
	index_hits_free(h, n);
	fixture_close(&f);
}

/* Puts m.py: n definitions that use shared_word, and one that uses
 * rare_word as well. */
static int put_shared(Index *ix, int n)
{
	Buf text = {0};
	int err;

	for (int i = 0; i < n; i++)
		buf_printf(&text, "def f%d(x):\n    return shared_word + %d\n",
			   i, i);
	buf_puts(&text, "def g(x):\n    return shared_word + rare_word\n");
	err = put(ix, "m.py", text.data, NULL);
	buf_free(&text);
	return err;
}

/* A caller's own posting budget keeps the rarest terms while their
 * chunks fit it, and the rarest whatever its count: the common word is
 * dropped, and with it every chunk only it matches. */
TEST(store_search_within_a_posting_budget)
{
	Fixture f;
	IndexHit *h;
	uint32_t n;
	const char *q = "rare_word shared_word";

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put_shared(f.ix, 30), 0);
	ASSERT_INT_EQ(index_search_within(f.ix, q, strlen(q), 10, 10, &h, &n),
		      0);
	ASSERT_INT_EQ(n, 1);
	EXPECT_TRUE(strstr(h[0].text, "rare_word") != NULL);
	index_hits_free(h, n);
	ASSERT_INT_EQ(index_search_within(f.ix, q, strlen(q), 10, 0, &h, &n),
		      0);
	EXPECT_INT_EQ(n, 10);
	EXPECT_TRUE(strstr(h[0].text, "rare_word") != NULL);
	index_hits_free(h, n);
	fixture_close(&f);
}

/* Whether ix finds the one definition named here, by search and by
 * name, and nothing of gone. */
static bool sees_only(Index *ix, const char *here, const char *gone)
{
	IndexSpan *sp;
	uint32_t n, m;

	if (index_spans_named(ix, here, 5, &sp, &n))
		return false;
	index_spans_free(sp, n);
	if (index_spans_named(ix, gone, 5, &sp, &m))
		return false;
	index_spans_free(sp, m);
	return n == 1 && m == 0 && search_n(ix, here, 5) == 1 &&
	       search_n(ix, gone, 5) == 0;
}

/* The VM steps of ST_TERM_DF on ix since the last call. */
static int64_t df_steps(Index *ix)
{
	return sqlite3_stmt_status(index__stmt(ix, ST_TERM_DF),
				   SQLITE_STMTSTATUS_VM_STEP, 1);
}

/* A search counts its rare terms' chunks once: again only after a write,
 * through this connection or another, and a term in no chunk each time.
 * The counts are the new ones: the search finds what was written. */
TEST(store_rare_term_counts_last_until_a_write)
{
	Fixture f;
	Index *other;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put(f.ix, "a.py", "def quokka():\n    pass\n", NULL), 0);
	ASSERT_INT_EQ(put(f.ix, "b.py", "quokka = 1\n", NULL), 0);
	(void)df_steps(f.ix);
	EXPECT_INT_EQ(search_n(f.ix, "quokka", 5), 2);
	EXPECT_TRUE(df_steps(f.ix) > 0);
	EXPECT_INT_EQ(search_n(f.ix, "quokka", 5), 2);
	EXPECT_INT_EQ(df_steps(f.ix), 0);
	/* Its own write. */
	ASSERT_INT_EQ(put(f.ix, "c.py", "quokka()\n", NULL), 0);
	EXPECT_INT_EQ(search_n(f.ix, "quokka", 5), 3);
	EXPECT_TRUE(df_steps(f.ix) > 0);
	EXPECT_INT_EQ(search_n(f.ix, "quokka", 5), 3);
	EXPECT_INT_EQ(df_steps(f.ix), 0);
	/* Another connection's. */
	ASSERT_INT_EQ(fixture_connect(&f, &other), 0);
	ASSERT_INT_EQ(put(other, "d.py", "print(quokka)\n", NULL), 0);
	EXPECT_INT_EQ(search_n(f.ix, "quokka", 5), 4);
	EXPECT_TRUE(df_steps(f.ix) > 0);
	/* A term in no chunk is counted each time: the next write may
	 * bring it. */
	EXPECT_INT_EQ(search_n(f.ix, "numbat", 5), 0);
	EXPECT_TRUE(df_steps(f.ix) > 0);
	EXPECT_INT_EQ(search_n(f.ix, "numbat", 5), 0);
	EXPECT_TRUE(df_steps(f.ix) > 0);
	index_close(other);
	fixture_close(&f);
}

/* Between index_read_begin and index_read_end a connection reads one
 * state of the database: another connection's rewrite of a file shows
 * neither in a search nor in the file's spans until the reader ends,
 * and then both show it. */
TEST(store_reads_see_one_state_until_they_end)
{
	Fixture f;
	Index *reader;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(fixture_connect(&f, &reader), 0);
	ASSERT_INT_EQ(put(f.ix, "m.py", "def quokka():\n    pass\n", NULL),
		      0);
	ASSERT_INT_EQ(index_read_begin(reader), 0);
	EXPECT_INT_EQ(search_n(reader, "quokka", 5), 1);
	ASSERT_INT_EQ(put(f.ix, "m.py", "def wombat():\n    pass\n", NULL),
		      0);
	EXPECT_TRUE(sees_only(reader, "quokka", "wombat"));
	index_read_end(reader);
	EXPECT_TRUE(sees_only(reader, "wombat", "quokka"));
	index_close(reader);
	fixture_close(&f);
}

/* castls_bm25 against FTS5's own bm25(), on real code: the Python
 * standard library's email package. Each query ORs terms from the
 * rarest to the commonest, so most rows match only common terms and
 * are the ones castls_bm25 skips; the k best must still be bm25()'s,
 * in its order and with its scores, whether the document frequencies
 * are given or counted, and every row's score when k is 0. */
static void bm25_compare(Fixture *f, const char *expr, int k, const char *dfs)
{
	char sql[2048];
	sqlite3_stmt *a, *b;
	int rows = 0, ra, rb;

	snprintf(sql, sizeof(sql),
		 "SELECT rowid, castls_bm25(chunks_fts, 1, 4, 2, %d%s) AS r"
		 " FROM chunks_fts WHERE chunks_fts MATCH ?1"
		 " ORDER BY r, rowid%s",
		 k, dfs, k ? " LIMIT ?2" : "");
	ASSERT_INT_EQ(sqlite3_prepare_v2(f->db, sql, -1, &a, NULL), SQLITE_OK);
	ASSERT_INT_EQ(sqlite3_prepare_v2(f->db,
					 "SELECT rowid, bm25(chunks_fts, 1, 4,"
					 " 2) AS r FROM chunks_fts WHERE"
					 " chunks_fts MATCH ?1 ORDER BY r,"
					 " rowid LIMIT ?2",
					 -1, &b, NULL),
		      SQLITE_OK);
	sqlite3_bind_text(a, 1, expr, -1, SQLITE_STATIC);
	sqlite3_bind_text(b, 1, expr, -1, SQLITE_STATIC);
	sqlite3_bind_int(a, 2, k);
	sqlite3_bind_int(b, 2, k ? k : -1);
	while ((ra = sqlite3_step(a)) == SQLITE_ROW) {
		ASSERT_INT_EQ(sqlite3_step(b), SQLITE_ROW);
		EXPECT_INT_EQ(sqlite3_column_int64(a, 0),
			      sqlite3_column_int64(b, 0));
		EXPECT_TRUE(fabs(sqlite3_column_double(a, 1) -
				 sqlite3_column_double(b, 1)) < 1e-9);
		rows++;
	}
	EXPECT_INT_EQ(ra, SQLITE_DONE);
	rb = sqlite3_step(b);
	EXPECT_INT_EQ(rb, SQLITE_DONE);
	EXPECT_TRUE(rows > 0);
	sqlite3_finalize(a);
	sqlite3_finalize(b);
}

static void put_email(void *ix, const char *rel, const char *text)
{
	EXPECT_INT_EQ(put(ix, rel, text, NULL), 0);
}

TEST(store_castls_bm25_keeps_the_top_of_bm25)
{
	static const int ks[] = {0, 1, 7, 50};
	Fixture f;
	sqlite3_stmt *s;
	char *terms[12];
	long long df[12];
	int nterms = 0, queries = 0;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_TRUE(ixt_each_email_module(put_email, f.ix) > 10);
	ASSERT_TRUE(q_int(&f, "SELECT count(*) FROM chunks") > 500);
	ASSERT_INT_EQ(index__bm25_register(f.db), 0);
	ASSERT_INT_EQ(ixt_exec(f.db, "CREATE VIRTUAL TABLE temp.v USING"
				     " fts5vocab(main, chunks_fts, row)"),
		      0);
	/* Terms at every frequency: the 12 at evenly spaced ranks, rarest
	 * first, of words in at least two chunks. */
	ASSERT_INT_EQ(sqlite3_prepare_v2(
			  f.db,
			  "SELECT term FROM (SELECT term, doc, row_number()"
			  " OVER (ORDER BY doc, term) AS i, count(*) OVER () AS"
			  " n FROM temp.v WHERE doc >= 2 AND term GLOB"
			  " '[a-z]*') WHERE i % (n / 12) = 0 LIMIT 12",
			  -1, &s, NULL),
		      SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW && nterms < 12)
		terms[nterms++] =
		    xstrdup((const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	ASSERT_INT_EQ(nterms, 12);
	/* What a phrase matches, as search.c counts it: a quoted query term
	 * also matches its joined form (obs_route, obsroute). */
	for (int i = 0; i < nterms; i++) {
		char sql[256];

		snprintf(sql, sizeof(sql),
			 "SELECT count(*) FROM chunks_fts WHERE chunks_fts"
			 " MATCH '\"%s\"'",
			 terms[i]);
		df[i] = q_int(&f, sql);
	}
	ASSERT_TRUE(df[11] > 50 * df[0]);
	/* Every run of 1 to 4 consecutive terms, and the rarest with each
	 * of the others. */
	for (int first = 0; first < nterms; first++)
		for (int len = 1; len <= 5; len++) {
			Buf expr = {0}, dfs = {0};
			int i, n = len == 5 ? 2 : len;

			if (len < 5 && first + len > nterms)
				continue;
			for (int j = 0; j < n; j++) {
				i = len == 5 ? (j ? first : 0) : first + j;
				buf_printf(&expr, "%s\"%s\"", j ? " OR " : "",
					   terms[i]);
				buf_printf(&dfs, ", %lld", df[i]);
			}
			for (size_t j = 0; j < sizeof(ks) / sizeof(*ks); j++) {
				bm25_compare(&f, expr.data, ks[j], dfs.data);
				bm25_compare(&f, expr.data, ks[j], "");
			}
			queries++;
			buf_free(&expr);
			buf_free(&dfs);
		}
	EXPECT_TRUE(queries > 40);
	for (int i = 0; i < nterms; i++)
		xfree(terms[i]);
	fixture_close(&f);
}

/* The best score of q through ix. */
static double top_score(Index *ix, const char *q)
{
	IndexHit *h;
	uint32_t n;
	double score = 0;

	if (index_search(ix, q, strlen(q), 5, &h, &n) == 0 && n)
		score = h[0].score;
	index_hits_free(h, n);
	return score;
}

/* Document frequencies are kept per connection; when the chunk table
 * grows by far (here another connection doubles it), the counts held go
 * stale, and each query counts again at most four of its terms: a query
 * of six common words scores with two stale counts the first time, and
 * as a fresh connection does the second. */
TEST(store_search_counts_stale_frequencies_again)
{
	static const char q[] = "alpha beta gamma delta epsilon zeta";
	Fixture f;
	Index *other, *fresh;
	Buf text = {0};

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	/* 150 chunks with the words among 1,000. */
	for (int i = 0; i < 1000; i++)
		buf_printf(&text,
			   i % 20 < 3 ? "def f%d(x):\n"
					"    return alpha + beta + gamma +"
					" delta + epsilon + zeta * %d\n"
				      : "def g%d(y):\n    return y * %d\n",
			   i, i);
	ASSERT_INT_EQ(put(f.ix, "a.py", text.data, NULL), 0);
	ASSERT_TRUE(top_score(f.ix, q) > 0);

	ASSERT_INT_EQ(fixture_connect(&f, &other), 0);
	ASSERT_INT_EQ(put(other, "b.py", text.data, NULL), 0);
	buf_free(&text);
	ASSERT_INT_EQ(fixture_connect(&f, &fresh), 0);
	{
		double want = top_score(fresh, q), first = top_score(f.ix, q);
		double second = top_score(f.ix, q);

		EXPECT_TRUE(want > 0);
		EXPECT_TRUE(fabs(first - want) > 1e-6);
		EXPECT_TRUE(fabs(second - want) < 1e-9);
	}
	index_close(fresh);
	index_close(other);
	fixture_close(&f);
}

/* A search within a small posting budget counts a common term's chunks
 * only to past that budget; a search with a larger one counts it again
 * rather than take the partial count for the whole: its scores are a
 * fresh connection's. */
TEST(store_search_counts_past_a_smaller_budget_again)
{
	static const char q[] = "rare_word shared_word";
	Fixture f;
	Index *fresh;
	IndexHit *h;
	uint32_t n;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ASSERT_INT_EQ(put_shared(f.ix, 3000), 0);
	/* More chunks hold the common word than the small budget. */
	ASSERT_TRUE(q_int(&f, "SELECT count(*) FROM chunks") > 300);
	ASSERT_INT_EQ(
	    index_search_within(f.ix, q, strlen(q), 5, 150, &h, &n), 0);
	EXPECT_INT_EQ(n, 1);
	index_hits_free(h, n);
	ASSERT_INT_EQ(fixture_connect(&f, &fresh), 0);
	EXPECT_TRUE(fabs(top_score(f.ix, q) - top_score(fresh, q)) < 1e-9);
	index_close(fresh);
	fixture_close(&f);
}

TEST(store_search_limit_and_order)
{
	Fixture f;
	IndexHit *h;
	uint32_t n;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	put_search_corpus(&f);

	/* deposit, withdraw and the five docstrings. */
	EXPECT_INT_EQ(search_n(f.ix, "total", 100), 7);
	EXPECT_INT_EQ(search_n(f.ix, "total", 3), 3);
	EXPECT_INT_EQ(search_n(f.ix, "total", INDEX_SEARCH_MAX + 5), 7);

	ASSERT_INT_EQ(index_search(f.ix, "total", 5, 100, &h, &n), 0);
	ASSERT_INT_EQ(n, 7);
	for (uint32_t i = 1; i < n; i++)
		EXPECT_TRUE(h[i - 1].score >= h[i].score);
	/* Higher is better: the docstring that says it five times beats
	 * the one that says it once. */
	{
		double once = 0, five = 0;

		for (uint32_t i = 0; i < n; i++) {
			if (strcmp(h[i].path, "more/t0.py") == 0)
				once = h[i].score;
			if (strcmp(h[i].path, "more/t4.py") == 0)
				five = h[i].score;
		}
		EXPECT_TRUE(once != 0 && five != 0);
		EXPECT_TRUE(five > once);
	}
	index_hits_free(h, n);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * Damaged and foreign databases
 * ---------------------------------------------------------------------- */

/* The cheap counts are the full status's, and the tables by kind and
 * language add up to its totals. */
static void expect_counts_agree(Index *ix, const IndexStatus *full)
{
	IndexStatus c;
	uint32_t by_kind = 0, by_lang = 0, spans = 0;

	EXPECT_INT_EQ(index_counts(ix, &c), 0);
	EXPECT_INT_EQ(c.files, full->files);
	EXPECT_INT_EQ(c.chunks, full->chunks);
	EXPECT_INT_EQ(c.spans, full->spans);
	EXPECT_TRUE(c.source_bytes == full->source_bytes);
	EXPECT_TRUE(memcmp(c.files_by_lang, full->files_by_lang,
			   sizeof(c.files_by_lang)) == 0);
	for (int i = 0; i < CHUNK_KIND_COUNT; i++)
		by_kind += full->chunks_by_kind[i];
	for (int i = 0; i < LANG_COUNT; i++)
		by_lang += full->chunks_by_lang[i];
	for (int i = 0; i < SPAN_KIND_COUNT; i++)
		spans += full->spans_by_kind[i];
	EXPECT_INT_EQ(by_kind, full->chunks);
	EXPECT_INT_EQ(by_lang, full->chunks);
	EXPECT_INT_EQ(spans, full->spans);
}

/* Writes two small Python files into the fixture's root and scans. */
static void fill_and_scan(Fixture *f, uint32_t want_files)
{
	ScanStats st;
	IndexStatus s;

	ixt_write(f->root, "led.py", ledger_v1);
	ixt_write(f->root, "sub/v2.py", ledger_v2);
	EXPECT_INT_EQ(index_scan(f->ix, 1, NULL, NULL, NULL, &st), 0);
	EXPECT_INT_EQ(st.indexed, want_files);
	EXPECT_INT_EQ(index_status(f->ix, &s), 0);
	EXPECT_INT_EQ(s.files, 2);
	EXPECT_TRUE(s.chunks >= 12 && s.spans == 12);
	EXPECT_INT_EQ(search_n(f->ix, "giraffe", 10), 1);
	expect_counts_agree(f->ix, &s);
}

/* Writes n files gen/m<i>.py, the two ledgers in turn. */
static void write_ledgers(Fixture *f, int n)
{
	char rel[32];

	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "gen/m%03d.py", i);
		ixt_write(f->root, rel, i % 2 ? ledger_v1 : ledger_v2);
	}
}

static uint32_t status_files(Index *ix)
{
	IndexStatus s;

	return index_status(ix, &s) == 0 ? s.files : UINT32_MAX;
}

TEST(store_open_rebuilds_garbage_file)
{
	Fixture f;
	char junk[16384];

	fixture_init(&f);
	for (size_t i = 0; i < sizeof(junk); i++)
		junk[i] = (char)(i * 131 + 7);
	ixt_write_n(f.tmp, "db/index.db", junk, sizeof(junk));
	ASSERT_INT_EQ(fixture_open(&f), 0);
	EXPECT_INT_EQ(status_files(f.ix), 0);
	fill_and_scan(&f, 2);
	fixture_close(&f);
}

TEST(store_open_rebuilds_truncated_index)
{
	Fixture f;
	struct stat st;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	/* Enough rows that half the file holds live b-tree pages. */
	write_ledgers(&f, 40);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, NULL), 0);
	EXPECT_INT_EQ(status_files(f.ix), 40);
	index_close(f.ix);
	f.ix = NULL;
	ASSERT_INT_EQ(stat(f.db_path, &st), 0);
	ASSERT_TRUE(st.st_size >= 8 * 4096);
	ASSERT_INT_EQ(truncate(f.db_path, st.st_size / 2), 0);

	ASSERT_INT_EQ(fixture_open(&f), 0);
	EXPECT_INT_EQ(status_files(f.ix), 0);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, NULL), 0);
	EXPECT_INT_EQ(status_files(f.ix), 40);
	{
		char *ok;

		q_int(&f, "SELECT 1"); /* opens the second connection */
		ok = ixt_rows(f.db, "PRAGMA quick_check");

		EXPECT_STR_EQ(ok, "ok\n");
		xfree(ok);
	}
	fixture_close(&f);
}

/* An index whose full-text structure went past FTS5's 2,000 levels
 * (compactions under typing made one before e08853f) fails every write:
 * opening it again rebuilds it, as SQLite finds it corrupt. */
TEST(store_open_rebuilds_a_full_text_index_past_its_levels)
{
	Fixture f;
	bool broken = false;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	write_ledgers(&f, 300);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, NULL), 0);
	EXPECT_INT_EQ(status_files(f.ix), 300);
	/* A merge step each time a chunk's postings were written again: a
	 * level each, until SQLite calls the table corrupt. */
	q_int(&f, "SELECT 1");
	ASSERT_INT_EQ(ixt_exec(f.db, "INSERT INTO chunks_fts(chunks_fts, rank)"
				     " VALUES('automerge', 4)"),
		      SQLITE_OK); /* as schema 21 had it */
	for (int i = 0; i < 3000 && !broken; i++)
		broken = ixt_fts_add_level(f.db) != 0;
	EXPECT_TRUE(broken);
	index_close(f.ix);
	f.ix = NULL;
	sqlite3_close(f.db);
	f.db = NULL;

	ASSERT_INT_EQ(fixture_open(&f), 0);
	EXPECT_INT_EQ(status_files(f.ix), 0);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, NULL), 0);
	EXPECT_INT_EQ(status_files(f.ix), 300);
	EXPECT_INT_EQ(fts_integrity(&f), 0);
	fixture_close(&f);
}

/* A buffer's write commits its rows and no merge of the full-text
 * segments: each leaves one on level 0. index_merge merges them until no
 * level holds FTS_MERGE_MIN, with every row found as before; while
 * another connection writes it gives up at once, merging nothing. */
TEST(store_writes_leave_their_merges_to_index_merge)
{
	enum { WRITES = 6 };
	atomic_bool stop = false;
	FtsSegments before, after;
	sqlite3 *other;
	char text[128];
	int64_t t0;
	bool more;
	Fixture f;
	int n;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	write_ledgers(&f, 40);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, NULL), 0);
	q_int(&f, "SELECT 1");
	ASSERT_TRUE(fts_segments(f.db, &before));
	for (int i = 0; i < WRITES; i++) {
		snprintf(text, sizeof(text),
			 "def typed(x):\n    return word%d(x)\n", i);
		ASSERT_INT_EQ(put(f.ix, "typed.py", text, NULL), 0);
	}
	/* One or two each (FTS5 writes its pending terms out before a row
	 * id lower than the last), all on level 0: none was merged. */
	ASSERT_TRUE(fts_segments(f.db, &after));
	EXPECT_TRUE(after.n >= before.n + WRITES);
	EXPECT_INT_EQ(fts_fullest_level(&after), after.n);
	n = after.n;

	other = ixt_db_open(f.db_path);
	ASSERT_INT_EQ(ixt_exec(other, "BEGIN IMMEDIATE"), SQLITE_OK);
	t0 = index__clock_ms();
	EXPECT_INT_EQ(index_merge(f.ix, 1000, &stop, &more), CASTLS_EBUSY);
	EXPECT_TRUE(index__clock_ms() - t0 < 1000);
	ASSERT_INT_EQ(ixt_exec(other, "COMMIT"), SQLITE_OK);
	sqlite3_close(other);
	ASSERT_TRUE(fts_segments(f.db, &after));
	EXPECT_INT_EQ(after.n, n);

	do
		ASSERT_INT_EQ(index_merge(f.ix, 1000, &stop, &more), 0);
	while (more);
	ASSERT_TRUE(fts_segments(f.db, &after));
	EXPECT_TRUE(fts_fullest_level(&after) < FTS_MERGE_MIN);
	EXPECT_INT_EQ(after.merging, 0);
	EXPECT_INT_EQ(fts_integrity(&f), 0);
	EXPECT_INT_EQ(fts_count(&f, "word5"), 1);
	EXPECT_INT_EQ(fts_count(&f, "word3"), 0);
	EXPECT_INT_EQ(search_n(f.ix, "word5", 10), 1);
	fixture_close(&f);
}

/* An index from before writes stopped merging (schema 21 left FTS5's
 * automerge on) has it turned off when opened. */
TEST(store_open_turns_full_text_automerge_off)
{
	const char *automerge =
	    "SELECT v FROM chunks_fts_config WHERE k='automerge'";
	Fixture f;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	fill_and_scan(&f, 2);
	EXPECT_INT_EQ(q_int(&f, automerge), 0);
	ASSERT_INT_EQ(ixt_exec(f.db, "INSERT INTO chunks_fts(chunks_fts, rank)"
				     " VALUES('automerge', 4)"),
		      SQLITE_OK);
	EXPECT_INT_EQ(q_int(&f, automerge), 4);
	index_close(f.ix);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	EXPECT_INT_EQ(q_int(&f, automerge), 0);
	fixture_close(&f);
}

TEST(store_open_rebuilds_other_schema_version)
{
	Fixture f;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	fill_and_scan(&f, 2);
	index_close(f.ix);
	f.ix = NULL;
	f.db = ixt_db_open(f.db_path);
	ASSERT_INT_EQ(ixt_exec(f.db, "PRAGMA user_version=99"), SQLITE_OK);
	sqlite3_close(f.db);
	f.db = NULL;

	ASSERT_INT_EQ(fixture_open(&f), 0);
	EXPECT_INT_EQ(status_files(f.ix), 0);
	EXPECT_INT_EQ(q_int(&f, "PRAGMA user_version"), INDEX_SCHEMA_VERSION);
	fill_and_scan(&f, 2);
	fixture_close(&f);
}

/* A brand-new database whose file another writer holds: the schema
 * cannot be written, and the open says so within the busy timeout. */
TEST(store_open_locked_new_database)
{
	Fixture f;

	fixture_init(&f);
	ixt_write(f.tmp, "db/keep", "");
	{
		sqlite3 *w;

		ASSERT_INT_EQ(sqlite3_open(f.db_path, &w), SQLITE_OK);
		f.db = w;
	}
	ASSERT_INT_EQ(ixt_exec(f.db, "PRAGMA journal_mode=WAL"), SQLITE_OK);
	ASSERT_INT_EQ(ixt_exec(f.db, "BEGIN IMMEDIATE"), SQLITE_OK);
	EXPECT_INT_EQ(fixture_open(&f), CASTLS_EBUSY);
	EXPECT_TRUE(f.ix == NULL);
	ASSERT_INT_EQ(ixt_exec(f.db, "ROLLBACK"), SQLITE_OK);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	fill_and_scan(&f, 2);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * Where the database goes
 * ---------------------------------------------------------------------- */

TEST(store_default_path_under_xdg_cache)
{
	Fixture f;
	IndexOptions o = {0};
	char *old = getenv("XDG_CACHE_HOME") ? xstrdup(getenv("XDG_CACHE_HOME"))
					     : NULL;
	Buf want = {0};
	struct stat st;

	fixture_init(&f);
	setenv("XDG_CACHE_HOME", f.tmp, 1);
	o.root = f.root;
	o.quiet = true;
	ASSERT_INT_EQ(index_open(&o, &f.ix), 0);
	index_default_db_path(index_root(f.ix), &want);
	EXPECT_STR_EQ(index_db_path(f.ix), want.data);
	EXPECT_INT_EQ(strncmp(index_db_path(f.ix), f.tmp, strlen(f.tmp)), 0);
	EXPECT_INT_EQ(stat(want.data, &st), 0);
	/* Another root, another database. */
	{
		Buf other = {0};

		index_default_db_path("/some/other/root", &other);
		EXPECT_TRUE(strcmp(other.data, want.data) != 0);
		buf_free(&other);
	}
	buf_free(&want);
	if (old)
		setenv("XDG_CACHE_HOME", old, 1);
	else
		unsetenv("XDG_CACHE_HOME");
	xfree(old);
	fixture_close(&f);
}

/* The database's directory cannot be made: under a regular file, or in
 * /proc. The root exists, so the error must not say it does not. */
TEST(store_open_db_dir_uncreatable)
{
	Fixture f;
	static const char *const bad[] = {"afile/sub/index.db",
					  "/proc/castls-ixtest/index.db"};

	fixture_init(&f);
	ixt_write(f.tmp, "afile", "not a directory\n");
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char *db = bad[i][0] == '/' ? xstrdup(bad[i])
					    : ixt_path(f.tmp, bad[i]);
		IndexOptions o = {0};
		Index *ix = (Index *)1;
		int err;

		o.root = f.root;
		o.db_path = db;
		o.quiet = true;
		err = index_open(&o, &ix);
		EXPECT_TRUE(err < 0);
		EXPECT_TRUE(ix == NULL);
		if (err == CASTLS_ENOENT)
			test_fail(__FILE__, __LINE__,
				  "%s: CASTLS_ENOENT means 'no root', but the"
				  " root %s exists",
				  db, f.root);
		index_close(ix);
		xfree(db);
	}
	fixture_close(&f);
}

/* The same through the CLI: exit 1, and a message that names the
 * database path rather than blaming the root. */
TEST(store_cli_db_dir_uncreatable)
{
	Fixture f;
	char *db, *out, *err;
	int status;

	fixture_init(&f);
	ixt_write(f.tmp, "afile", "not a directory\n");
	ixt_write(f.root, "a.py", "x = 1\n");
	db = ixt_path(f.tmp, "afile/sub/index.db");
	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", f.root,
				"--db", db, "--quiet", NULL};

		status = ixt_run(f.tmp, argv, &out, &err);
	}
	EXPECT_INT_EQ(status, 1);
	EXPECT_STR_EQ(out, "");
	if (!strstr(err, db))
		test_fail(__FILE__, __LINE__,
			  "stderr does not name the database %s:\n  %s", db,
			  err);
	if (strstr(err, "no such directory"))
		test_fail(__FILE__, __LINE__,
			  "stderr blames the root, which exists:\n  %s", err);
	xfree(out);
	xfree(err);
	xfree(db);
	fixture_close(&f);
}

/* index_word_beside: a word in another file of the directory counts, one
 * in the file itself, a subdirectory or another directory does not; at
 * the root, the root's files are the directory. Case and '_' aside, as
 * the index's tokens are. */
TEST(store_word_beside_in_the_directory)
{
	Fixture f;
	bool found;

	fixture_init(&f);
	ASSERT_INT_EQ(fixture_open(&f), 0);
	ixt_write(f.root, "pkg/a.go", "package pkg\n\nfunc padLeft() {}\n");
	ixt_write(f.root, "pkg/b.go",
		  "package pkg\n\nfunc b() { trimmed(); padLeft() }\n");
	ixt_write(f.root, "pkg/sub/c.go", "package sub\n\nfunc deep() {}\n");
	ixt_write(f.root, "other/d.go", "package other\n\nfunc far() {}\n");
	ixt_write(f.root, "top.go", "package top\n\nfunc atTop() {}\n");
	ASSERT_INT_EQ(index_scan(f.ix, 1, NULL, NULL, NULL, NULL), 0);
	EXPECT_INT_EQ(index_word_beside(f.ix, "padLeft", "pkg/a.go", &found),
		      0);
	EXPECT_TRUE(found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "pad_left", "pkg/a.go", &found),
		      0);
	EXPECT_TRUE(found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "b", "pkg/b.go", &found), 0);
	EXPECT_TRUE(!found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "deep", "pkg/a.go", &found), 0);
	EXPECT_TRUE(!found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "far", "pkg/a.go", &found), 0);
	EXPECT_TRUE(!found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "atTop", "new.go", &found), 0);
	EXPECT_TRUE(found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "far", "new.go", &found), 0);
	EXPECT_TRUE(!found);
	EXPECT_INT_EQ(index_word_beside(f.ix, "a\"b", "new.go", &found),
		      CASTLS_EINVAL);
	EXPECT_TRUE(!found);
	fixture_close(&f);
}
