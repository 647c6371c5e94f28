/*
 * test_scan.c: the workspace scan. Which files a scan picks (ignore
 * files, .git, binaries, sizes, shebangs, symlinks), what a rescan does
 * with unchanged, touched, edited and deleted files, and how it survives
 * a locked database, a missing root, files vanishing under it and a
 * SIGKILL of the real binary halfway through a cold index.
 */
#include "test.h"

#include <pthread.h>
#include <time.h>

#include "index/index.h"
#include "index/index_int.h"
#include "fts_segments.h"
#include "ixtest.h"

typedef struct {
	char *tmp, *root, *db_path;
	Index *ix;
	sqlite3 *db; /* second connection, opened on first use */
} Fixture;

static void fixture_init(Fixture *f)
{
	memset(f, 0, sizeof(*f));
	f->tmp = ixt_tmpdir();
	f->root = ixt_path(f->tmp, "root");
	f->db_path = ixt_path(f->tmp, "db/index.db");
	ixt_mkdirs(f->root);
}

static int fixture_open_with(Fixture *f, uint32_t max_chunk,
			     uint64_t max_file)
{
	IndexOptions o = {0};

	o.root = f->root;
	o.db_path = f->db_path;
	o.max_chunk_size = max_chunk;
	o.max_file_size = max_file;
	o.busy_timeout_ms = 200;
	o.quiet = true;
	return index_open(&o, &f->ix);
}

/* Opens f's index as castls index does, alone with its database (a
 * first scan loads it), or as the server does. */
static int fixture_open_alone(Fixture *f, bool alone)
{
	IndexOptions o = {0};

	o.root = f->root;
	o.db_path = f->db_path;
	o.quiet = true;
	o.alone = alone;
	return index_open(&o, &f->ix);
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

static sqlite3 *fdb(Fixture *f)
{
	if (!f->db)
		f->db = ixt_db_open(f->db_path);
	return f->db;
}

static long long q_int(Fixture *f, const char *sql)
{
	return ixt_int(fdb(f), sql);
}

/* Expects the rows of sql to be want; frees the rows. */
#define EXPECT_ROWS(f, sql, want)                   \
	do {                                        \
		char *rows_ = ixt_rows(fdb(f), sql); \
		EXPECT_STR_EQ(rows_, want);         \
		xfree(rows_);                       \
	} while (0)

static long long fts_count(Fixture *f, const char *term)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM chunks_fts WHERE chunks_fts MATCH '%s'",
		 term);
	return q_int(f, sql);
}

static int fts_integrity(Fixture *f)
{
	return ixt_exec(fdb(f), "INSERT INTO chunks_fts(chunks_fts)"
				" VALUES('integrity-check')");
}

/* Rows left behind by a file that is gone. */
static long long orphans(Fixture *f)
{
	return q_int(f, "SELECT (SELECT count(*) FROM spans WHERE file_id"
			" NOT IN (SELECT id FROM files)) + (SELECT count(*)"
			" FROM chunks WHERE file_id NOT IN (SELECT id FROM"
			" files))");
}

static void do_symlink(const char *target, const char *root,
		       const char *rel)
{
	char *p = ixt_path(root, rel);

	if (symlink(target, p) < 0)
		ixt_die("symlink", p);
	xfree(p);
}

/* ---------------------------------------------------------------------- *
 * What a scan picks
 * ---------------------------------------------------------------------- */

#define SCAN_MAX_FILE 4096

static void make_workspace(const char *tmp, const char *root)
{
	static const struct {
		const char *rel, *text;
	} files[] = {
		{".gitignore", "# output and logs\n"
			       "build/\n"
			       "*.log\n"
			       "/top.py\n"
			       "**/gen/*.py\n"
			       "ignored_*.py\n"
			       "!ignored_keep.py\n"},
		{".castlsignore", "castls_only.py\nvendor/\n"},
		{".git/info/exclude", "excluded_by_info.py\n"},
		{".git/hooks/hook.py", "def hook():\n    pass\n"},
		{".git/objects/ab/cd.py", "x = 1\n"},
		{".git/HEAD", "ref: refs/heads/main\n"},
		{"a.py", "def alpha():\n    return 1\n"},
		{"b.ts", "export function beta(): number { return 2; }\n"},
		{"c.sh", "gamma() { echo 3; }\n"},
		{"readme.md", "# Title\n\nSome words.\n"},
		{"notes.txt", "def not_code():\n    pass\n"},
		{"data.log", "def logged():\n    pass\n"},
		{"top.py", "anchored = 1\n"},
		{"sub/top.py", "not_anchored = 1\n"},
		{"ignored_x.py", "x = 1\n"},
		{"ignored_keep.py", "kept = 1\n"},
		{"excluded_by_info.py", "x = 1\n"},
		{"castls_only.py", "x = 1\n"},
		{"vendor/v.py", "x = 1\n"},
		{"build/out.py", "x = 1\n"},
		{"sub/build/deep.py", "x = 1\n"},
		{"src/build", "#!/bin/sh\necho built\n"},
		{"gen/g.py", "x = 1\n"},
		{"src/gen/x.py", "x = 1\n"},
		{"src/gen/x.ts", "export const x = 1;\n"},
		{"src/gen/sub/y.py", "y = 1\n"},
		{"src/.gitignore", "local.py\n!ignored_src.py\n"},
		{"src/local.py", "x = 1\n"},
		{"local.py", "root_local = 1\n"},
		{"src/ignored_src.py", "reincluded = 1\n"},
		{"src/ignored_other.py", "x = 1\n"},
		{"src/main.py", "def main():\n    pass\n"},
		{"script", "#!/bin/sh\necho hi\n"},
		{"plain", "just some words, no shebang\n"},
		{"loop/l.py", "in_loop = 1\n"},
	};
	char big[SCAN_MAX_FILE + 1000];
	static const char binary[] = "x = 1\n\0\0\0\x01\x02\xff\xfe\0\0def f():\n";

	for (size_t i = 0; i < sizeof(files) / sizeof(*files); i++)
		ixt_write(root, files[i].rel, files[i].text);
	ixt_write_n(root, "bin.py", binary, sizeof(binary) - 1);
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = i % 40 == 39 ? '\n' : i % 40 == 0 ? '#' : 'b';
	ixt_write_n(root, "big.py", big, sizeof(big));
	/* Minified: one 3000-byte line of code. */
	for (size_t i = 0; i < 3000; i++)
		big[i] = "var a=1;"[i % 8];
	ixt_write_n(root, "lib.min.js", big, 3000);
	ixt_write(tmp, "outside/o.py", "outside_marker = 1\n");
	do_symlink("a.py", root, "link_file.py");
	do_symlink("../outside/o.py", root, "link_out.py");
	do_symlink("../outside", root, "ext_dir");
	do_symlink("..", root, "loop/up");
	do_symlink(".", root, "loop/self");
}

static const char workspace_files[] = "a.py|python\n"
				      "b.ts|typescript\n"
				      "c.sh|bash\n"
				      "ignored_keep.py|python\n"
				      "link_file.py|python\n"
				      "local.py|python\n"
				      "loop/l.py|python\n"
				      "readme.md|markdown\n"
				      "script|bash\n"
				      "src/build|bash\n"
				      "src/gen/sub/y.py|python\n"
				      "src/gen/x.ts|typescript\n"
				      "src/ignored_src.py|python\n"
				      "src/main.py|python\n"
				      "sub/top.py|python\n";

TEST(scan_workspace_picks_exact_files)
{
	Fixture f;
	ScanStats st;
	IndexStatus s;

	fixture_init(&f);
	make_workspace(f.tmp, f.root);
	ASSERT_INT_EQ(fixture_open_with(&f, 0, SCAN_MAX_FILE), 0);
	ASSERT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, &st), 0);
	EXPECT_ROWS(&f, "SELECT path, lang FROM files ORDER BY path",
		    workspace_files);
	EXPECT_INT_EQ(st.indexed, 15);
	EXPECT_INT_EQ(st.unchanged + st.removed, 0);
	/* bin.py, big.py, lib.min.js and plain at least; ignore files may
	 * count too. */
	EXPECT_TRUE(st.skipped >= 4);
	EXPECT_TRUE(st.seen >= 18 && st.done == st.seen);
	EXPECT_TRUE(!st.walking);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks WHERE text LIKE"
				"'%outside_marker%'"),
		      0);
	EXPECT_INT_EQ(index_status(f.ix, &s), 0);
	EXPECT_INT_EQ(s.files, 15);
	EXPECT_INT_EQ(s.files_by_lang[LANG_PYTHON], 9);
	EXPECT_INT_EQ(s.files_by_lang[LANG_BASH], 3);
	EXPECT_INT_EQ(s.files_by_lang[LANG_TYPESCRIPT], 2);
	EXPECT_INT_EQ(s.files_by_lang[LANG_MARKDOWN], 1);
	EXPECT_TRUE(s.last_indexed > 0 && s.db_bytes > 0);

	/* Again: the same set, nothing read. */
	ASSERT_INT_EQ(index_scan(f.ix, 1, NULL, NULL, NULL, &st), 0);
	EXPECT_INT_EQ(st.indexed, 0);
	EXPECT_INT_EQ(st.unchanged, 15);
	EXPECT_ROWS(&f, "SELECT path, lang FROM files ORDER BY path",
		    workspace_files);
	EXPECT_INT_EQ(orphans(&f), 0);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	fixture_close(&f);
}

/* Patterns passed in IndexOptions.exclude count like a root ignore
 * file; a file that becomes ignored loses its rows on the next scan. */
TEST(scan_exclude_option_and_newly_ignored)
{
	Fixture f;
	IndexOptions o = {0};
	ScanStats st;

	fixture_init(&f);
	ixt_write(f.root, "keep.py", "keep = 1\n");
	ixt_write(f.root, "drop/me.py", "dropped_word = 1\n");
	ixt_write(f.root, "later.py", "later_word = 1\n");
	o.root = f.root;
	o.db_path = f.db_path;
	o.exclude = "drop/\n";
	o.quiet = true;
	ASSERT_INT_EQ(index_open(&o, &f.ix), 0);
	ASSERT_INT_EQ(index_scan(f.ix, 1, NULL, NULL, NULL, &st), 0);
	EXPECT_ROWS(&f, "SELECT path FROM files ORDER BY path",
		    "keep.py\nlater.py\n");
	ixt_write(f.root, ".castlsignore", "later.py\n");
	ASSERT_INT_EQ(index_scan(f.ix, 1, NULL, NULL, NULL, &st), 0);
	EXPECT_INT_EQ(st.removed, 1);
	EXPECT_ROWS(&f, "SELECT path FROM files ORDER BY path", "keep.py\n");
	EXPECT_INT_EQ(fts_count(&f, "later_word"), 0);
	EXPECT_INT_EQ(orphans(&f), 0);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * Incremental rescans
 * ---------------------------------------------------------------------- */

static const char led_v1[] = "class Ledger:\n"
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
			     "def other(x):\n"
			     "    return x - 42 + value_of_other\n";

static const char led_v2[] = "class Ledger:\n"
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
			     "def other(x):\n"
			     "    return x - 42 + value_of_other\n";

static int64_t file_mtime_ns(const char *root, const char *rel)
{
	char *p = ixt_path(root, rel);
	struct stat st;
	int64_t ns = -1;

	if (stat(p, &st) == 0)
		ns = (int64_t)st.st_mtim.tv_sec * 1000000000 +
		     st.st_mtim.tv_nsec;
	xfree(p);
	return ns;
}

/* Sets the modification time of root/rel to that of a struct stat, or
 * shifts it by delta seconds when st is NULL. */
static void set_mtime(const char *root, const char *rel,
		      const struct stat *st, int delta)
{
	char *p = ixt_path(root, rel);
	struct stat now;
	struct timespec ts[2];

	if (stat(p, &now) < 0)
		ixt_die("stat", p);
	ts[0] = now.st_atim;
	ts[1] = st ? st->st_mtim : now.st_mtim;
	ts[1].tv_sec += delta;
	if (utimensat(AT_FDCWD, p, ts, 0) < 0)
		ixt_die("utimensat", p);
	xfree(p);
}

static ScanStats rescan(Fixture *f)
{
	ScanStats st;

	memset(&st, 0xff, sizeof(st));
	EXPECT_INT_EQ(index_scan(f->ix, 2, NULL, NULL, NULL, &st), 0);
	return st;
}

TEST(scan_incremental)
{
	Fixture f;
	ScanStats st;
	struct stat other_st;
	long long deposit_chunk, helper_chunk, other_chunk, withdraw_span,
		helper_span, led_file, sh_file;
	char sql[256];

	fixture_init(&f);
	ixt_write(f.root, "led.py", led_v1);
	ixt_write(f.root, "other.py", "oldword = 1\n");
	ixt_write(f.root, "tools/c.sh", "shellonly() { echo zz; }\n");
	ASSERT_INT_EQ(fixture_open_with(&f, 70, 0), 0); /* one def a chunk */
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 3);
	EXPECT_INT_EQ(st.seen, 3);
	deposit_chunk = q_int(&f, "SELECT id FROM chunks"
				  " WHERE text LIKE '%def deposit%'");
	helper_chunk = q_int(&f, "SELECT id FROM chunks"
				 " WHERE text LIKE '%def helper%'");
	other_chunk = q_int(&f, "SELECT id FROM chunks"
				" WHERE text LIKE '%def other%'");
	withdraw_span = q_int(&f, "SELECT id FROM spans"
				  " WHERE qualname='Ledger.withdraw'");
	helper_span = q_int(&f, "SELECT id FROM spans WHERE qualname='helper'");
	led_file = q_int(&f, "SELECT id FROM files WHERE path='led.py'");
	sh_file = q_int(&f, "SELECT id FROM files WHERE path='tools/c.sh'");
	ASSERT_TRUE(deposit_chunk > 0 && helper_chunk > 0 && other_chunk > 0);
	ASSERT_TRUE(deposit_chunk != helper_chunk &&
		    helper_chunk != other_chunk);
	ASSERT_TRUE(withdraw_span > 0 && helper_span > 0 && sh_file > 0);

	/* Nothing changed. */
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 0);
	EXPECT_INT_EQ(st.unchanged, 3);
	EXPECT_INT_EQ(st.removed + st.skipped, 0);

	/* A newer mtime, the same content: unchanged by hash, and the new
	 * stamp is stored so the next scan does not read it again. */
	set_mtime(f.root, "led.py", NULL, 10);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 0);
	EXPECT_INT_EQ(st.unchanged, 3);
	snprintf(sql, sizeof(sql), "SELECT mtime = %lld FROM files"
		 " WHERE path='led.py'",
		 (long long)file_mtime_ns(f.root, "led.py"));
	EXPECT_INT_EQ(q_int(&f, sql), 1);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM chunks"
				" WHERE text LIKE '%def deposit%'"),
		      deposit_chunk);

	/* Same size and mtime, other content: a scan must not read the
	 * file (that is the point of the stamp), so the old text stays. */
	{
		char *p = ixt_path(f.root, "other.py");

		ASSERT_INT_EQ(stat(p, &other_st), 0);
		xfree(p);
	}
	ixt_write(f.root, "other.py", "newword = 1\n");
	set_mtime(f.root, "other.py", &other_st, 0);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 0);
	EXPECT_INT_EQ(st.unchanged, 3);
	EXPECT_INT_EQ(fts_count(&f, "oldword"), 1);
	EXPECT_INT_EQ(fts_count(&f, "newword"), 0);
	set_mtime(f.root, "other.py", NULL, 5);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 1);
	EXPECT_INT_EQ(st.unchanged, 2);
	EXPECT_INT_EQ(fts_count(&f, "oldword"), 0);
	EXPECT_INT_EQ(fts_count(&f, "newword"), 1);

	/* One function edited: one file indexed; rows of the parts that
	 * did not change keep their ids, the edited ones are replaced. */
	ixt_write(f.root, "led.py", led_v2);
	set_mtime(f.root, "led.py", NULL, 20);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 1);
	EXPECT_INT_EQ(st.unchanged, 2);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM files WHERE path='led.py'"),
		      led_file);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM chunks"
				" WHERE text LIKE '%def deposit%'"),
		      deposit_chunk);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM chunks"
				" WHERE text LIKE '%def other%'"),
		      other_chunk);
	EXPECT_INT_EQ(q_int(&f, "SELECT id FROM spans"
				" WHERE qualname='Ledger.withdraw'"),
		      withdraw_span);
	EXPECT_TRUE(q_int(&f, "SELECT id FROM chunks"
			      " WHERE text LIKE '%def helper%'") !=
		    helper_chunk);
	EXPECT_TRUE(q_int(&f, "SELECT id FROM spans"
			      " WHERE qualname='helper'") != helper_span);
	EXPECT_INT_EQ(fts_count(&f, "zebra"), 0);
	EXPECT_INT_EQ(fts_count(&f, "giraffe"), 1);

	/* A deleted file: its rows and index entries go. */
	{
		char *p = ixt_path(f.root, "tools/c.sh");

		ASSERT_INT_EQ(unlink(p), 0);
		xfree(p);
	}
	st = rescan(&f);
	EXPECT_INT_EQ(st.removed, 1);
	EXPECT_INT_EQ(st.indexed, 0);
	EXPECT_INT_EQ(st.unchanged, 2);
	snprintf(sql, sizeof(sql),
		 "SELECT (SELECT count(*) FROM files WHERE id=%lld) +"
		 " (SELECT count(*) FROM spans WHERE file_id=%lld) +"
		 " (SELECT count(*) FROM chunks WHERE file_id=%lld)",
		 sh_file, sh_file, sh_file);
	EXPECT_INT_EQ(q_int(&f, sql), 0);
	EXPECT_INT_EQ(fts_count(&f, "shellonly"), 0);
	EXPECT_INT_EQ(orphans(&f), 0);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	EXPECT_ROWS(&f, "SELECT path FROM files ORDER BY path",
		    "led.py\nother.py\n");
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * Faults
 * ---------------------------------------------------------------------- */

TEST(scan_locked_database_is_busy)
{
	Fixture f;
	ScanStats st;
	sqlite3 *w;
	char *out, *err;
	int status;

	fixture_init(&f);
	for (int i = 0; i < 300; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "d%d/f%03d.py", i % 7, i);
		ixt_write(f.root, rel, "def f():\n    return 1\n");
	}
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	/* Another writer holds the database. */
	w = fdb(&f);
	ASSERT_INT_EQ(ixt_exec(w, "BEGIN IMMEDIATE"), SQLITE_OK);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, &st),
		      CASTLS_EBUSY);
	EXPECT_TRUE(strlen(index_errmsg(f.ix)) > 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM meta"
				" WHERE key='last_scan'"),
		      0);

	/* The CLI waits for its (default, longer) timeout, then says what
	 * is locked and fails. */
	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", f.root,
				"--db", f.db_path, "--quiet", NULL};

		status = ixt_run(f.tmp, argv, &out, &err);
	}
	EXPECT_INT_EQ(status, 1);
	EXPECT_TRUE(strstr(err, "locked") != NULL);
	if (!strstr(err, f.db_path))
		test_fail(__FILE__, __LINE__,
			  "the message does not name the database %s:\n  %s",
			  f.db_path, err);
	xfree(out);
	xfree(err);

	/* Released: the same handle scans everything. */
	ASSERT_INT_EQ(ixt_exec(w, "COMMIT"), SQLITE_OK);
	EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, &st), 0);
	EXPECT_INT_EQ(st.indexed, 300);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), 300);
	fixture_close(&f);
}

TEST(scan_missing_root)
{
	Fixture f;
	IndexOptions o = {0};
	Index *ix = (Index *)1;
	char *nope, *afile, *out, *err, *dbdir;
	struct stat st;
	int status;

	fixture_init(&f);
	nope = ixt_path(f.tmp, "no/such/root");
	afile = ixt_path(f.tmp, "afile");
	dbdir = ixt_path(f.tmp, "db");
	ixt_write(f.tmp, "afile", "x\n");
	o.root = nope;
	o.db_path = f.db_path;
	o.quiet = true;
	EXPECT_INT_EQ(index_open(&o, &ix), CASTLS_ENOENT);
	EXPECT_TRUE(ix == NULL);
	o.root = afile; /* not a directory */
	ix = (Index *)1;
	EXPECT_INT_EQ(index_open(&o, &ix), CASTLS_ENOENT);
	EXPECT_TRUE(ix == NULL);
	/* Nothing was created for a root that is not there. */
	EXPECT_TRUE(stat(dbdir, &st) < 0);

	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", nope,
				"--db", f.db_path, "--quiet", NULL};

		status = ixt_run(f.tmp, argv, &out, &err);
	}
	EXPECT_INT_EQ(status, 1);
	EXPECT_TRUE(strstr(err, nope) != NULL);
	EXPECT_TRUE(strstr(err, "no such") != NULL);
	xfree(out);
	xfree(err);
	{
		char *argv[] = {(char *)ixt_castls_bin(), "search", nope,
				"anything", "--db", f.db_path, NULL};

		status = ixt_run(f.tmp, argv, &out, &err);
	}
	EXPECT_INT_EQ(status, 1);
	EXPECT_TRUE(strstr(err, nope) != NULL);
	EXPECT_STR_EQ(out, "");
	xfree(out);
	xfree(err);
	xfree(nope);
	xfree(afile);
	xfree(dbdir);
	fixture_close(&f);
}

/* Files deleted while the scan runs: from the progress callback, which
 * runs on the scanning thread, once, at its first call. */
typedef struct {
	const char *root;
	int from, to; /* delete f<from>.py .. f<to - 1>.py */
	int calls;
} Vanish;

static void vanish_progress(void *ctx, const ScanStats *s)
{
	Vanish *v = ctx;

	(void)s;
	if (v->calls++)
		return;
	for (int i = v->from; i < v->to; i++) {
		char rel[32], *p;

		snprintf(rel, sizeof(rel), "f%03d.py", i);
		p = ixt_path(v->root, rel);
		unlink(p);
		xfree(p);
	}
}

static void expect_files_upto(Fixture *f, int n)
{
	char sql[128];

	EXPECT_INT_EQ(q_int(f, "SELECT count(*) FROM files"), n);
	snprintf(sql, sizeof(sql),
		 "SELECT count(*) FROM files WHERE path < 'f%03d.py'", n);
	if (q_int(f, sql) != n) {
		char *rows = ixt_rows(fdb(f), "SELECT group_concat(substr(path,"
					      " 2, 3), ' ') FROM files");

		test_fail(__FILE__, __LINE__,
			  "want f000 .. f%03d, have:\n%s", n - 1, rows);
		xfree(rows);
	}
	EXPECT_INT_EQ(orphans(f), 0);
	EXPECT_INT_EQ(fts_integrity(f), SQLITE_OK);
}

TEST(scan_files_vanish_during_scan)
{
	Fixture f;
	ScanStats st;
	Vanish v = {0};

	fixture_init(&f);
	for (int i = 0; i < 400; i++) {
		char rel[32], text[128];

		snprintf(rel, sizeof(rel), "f%03d.py", i);
		snprintf(text, sizeof(text),
			 "def func_%d(a, b):\n    return a * %d + b\n", i, i);
		ixt_write(f.root, rel, text);
	}
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);

	/* Cold: 300 new files vanish before they are read. */
	v.root = f.root;
	v.from = 100;
	v.to = 400;
	EXPECT_INT_EQ(index_scan(f.ix, 1, vanish_progress, &v, NULL, &st), 0);
	EXPECT_TRUE(v.calls >= 2);
	EXPECT_INT_EQ(st.seen, 400);
	EXPECT_INT_EQ(st.done, 400);
	EXPECT_TRUE(st.indexed >= 1 && st.indexed < 400);
	EXPECT_INT_EQ(st.indexed + st.skipped, 400);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed + st.unchanged, 100);
	expect_files_upto(&f, 100);

	/* Warm: known files change, then half of them vanish mid-scan;
	 * their stored rows must go rather than linger. */
	for (int i = 0; i < 100; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "f%03d.py", i);
		ixt_write(f.root, rel, "def changed():\n    return 0\n");
		set_mtime(f.root, rel, NULL, 30);
	}
	v.calls = 0;
	v.from = 50;
	v.to = 100;
	EXPECT_INT_EQ(index_scan(f.ix, 1, vanish_progress, &v, NULL, &st), 0);
	EXPECT_INT_EQ(st.seen, 100);
	EXPECT_TRUE(st.removed >= 1);
	/* Each of f050..f099 was either read before it vanished (and
	 * written) or found gone (and dropped); which, depends on how the
	 * deleting thread and the worker interleave. */
	EXPECT_INT_EQ(st.indexed + st.removed, 100);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"),
		      100 - (long long)st.removed);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"
				" WHERE path < 'f050.py'"),
		      50);
	EXPECT_INT_EQ(orphans(&f), 0);
	st = rescan(&f);
	expect_files_upto(&f, 50);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * A file rewritten between the walk and the read
 * ---------------------------------------------------------------------- */

typedef struct {
	const char *root;
	int calls;
} Truncate;

/* On the first report, before the smaller file is read (one job reads
 * big.py first, in path order): victim.py is truncated, as an editor
 * saving it does just before it writes. */
static void truncate_progress(void *ctx, const ScanStats *s)
{
	Truncate *t = ctx;
	char *p = ixt_path(t->root, "victim.py");

	(void)s;
	if (t->calls++ == 0 && truncate(p, 0) < 0)
		ixt_die("truncate", p);
	xfree(p);
}

/* The read that saw the file empty stored its text with the walk's
 * stamp, of the whole file; once the writer was done, within the same
 * mtime tick (a coarse clock), the stamps agreed and the empty rows
 * stayed for good. The stored stamp must be that of the bytes read. */
TEST(scan_stores_the_stamp_of_what_it_read)
{
	Fixture f;
	ScanStats st;
	Truncate t = {0};
	Buf big = {0};
	char *victim;
	struct stat walked;
	static const char text[] = "def victim_function(a):\n"
				   "    return a + 1\n";

	fixture_init(&f);
	for (int i = 0; i < 200; i++)
		buf_printf(&big, "def big_%d(x):\n    return x * %d\n", i, i);
	ixt_write(f.root, "big.py", big.data);
	ixt_write(f.root, "victim.py", text);
	victim = ixt_path(f.root, "victim.py");
	ASSERT_INT_EQ(stat(victim, &walked), 0);
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	t.root = f.root;
	EXPECT_INT_EQ(index_scan(f.ix, 1, truncate_progress, &t, NULL, &st),
		      0);
	EXPECT_TRUE(t.calls >= 1);
	/* The writer finishes: the same text, the mtime the walk saw. */
	ixt_write(f.root, "victim.py", text);
	set_mtime(f.root, "victim.py", &walked, 0);
	st = rescan(&f);
	EXPECT_INT_EQ(q_int(&f, "SELECT size FROM files"
				" WHERE path='victim.py'"),
		      (long long)strlen(text));
	EXPECT_INT_EQ(fts_count(&f, "victim_function"), 1);
	xfree(victim);
	buf_free(&big);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * Hostile entries: FIFOs where ignore files belong
 * ---------------------------------------------------------------------- */

/* Waits up to ms for pid to end; its status, or -1 (killed) on timeout. */
static int wait_or_kill(pid_t pid, int ms)
{
	int status;

	for (int waited = 0; waited < ms; waited += 20) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return WIFEXITED(status) ? WEXITSTATUS(status)
						 : 128 + WTERMSIG(status);
		usleep(20 * 1000);
	}
	kill(pid, SIGKILL);
	ixt_wait(pid);
	return -1;
}

static void do_mkfifo(const char *root, const char *rel)
{
	char *p = ixt_path(root, rel);

	if (mkfifo(p, 0600) < 0)
		ixt_die("mkfifo", p);
	xfree(p);
}

/* A FIFO opened for reading waits for a writer: one named .gitignore,
 * .castlsignore or .git/info/exclude, anywhere, stopped castls index
 * for good. Each must read as no ignore file at all, and a FIFO named
 * like a source file must be skipped. */
TEST(scan_fifo_ignore_files_do_not_hang)
{
	Fixture f;
	char *err, *info;
	int status;

	fixture_init(&f);
	ixt_write(f.root, "a.py", "def alpha():\n    return 1\n");
	ixt_write(f.root, "sub/b.py", "def beta():\n    return 2\n");
	info = ixt_path(f.root, ".git/info");
	ixt_mkdirs(info);
	xfree(info);
	do_mkfifo(f.root, ".gitignore");
	do_mkfifo(f.root, ".git/info/exclude");
	do_mkfifo(f.root, "sub/.castlsignore");
	do_mkfifo(f.root, "sub/.gitignore");
	do_mkfifo(f.root, "pipe.py");
	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", f.root,
				"--db", f.db_path, "--quiet", NULL};
		char *o = ixt_path(f.tmp, "fifo.out"),
		     *e = ixt_path(f.tmp, "fifo.err");

		status = wait_or_kill(ixt_spawn(argv, o, e), 20000);
		if (castls_read_file(e, 0, &err, &(size_t){0}) == 0) {
			if (status != 0)
				fprintf(stderr, "castls index: %s\n", err);
			xfree(err);
		}
		xfree(o);
		xfree(e);
	}
	CHECK_(status != -1, (void)0,
	       "castls index still ran after 20 s: blocked on a FIFO");
	EXPECT_INT_EQ(status, 0);
	EXPECT_ROWS(&f, "SELECT path FROM files ORDER BY path",
		    "a.py\nsub/b.py\n");
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * SIGKILL during a cold index
 * ---------------------------------------------------------------------- */

/* More files than one write batch of a scan holds (BATCH_FILES, 2048,
 * in index/scan.c), so that a fast build commits before it ends. */
#define KILL_FILES 2600
#define KILL_POLL_MS 5

static const char *const words[] = {
	"account", "balance", "parse", "token", "stream", "buffer", "render",
	"widget", "socket", "packet", "schema", "record", "ledger", "cursor",
	"window", "thread", "signal", "vector", "matrix", "config", "loader",
};
#define NWORDS (sizeof(words) / sizeof(*words))

static uint32_t lcg(uint32_t *s)
{
	*s = *s * 1664525u + 1013904223u;
	return *s >> 8;
}

/* A deterministic Python module of about 7 KB: classes with docstrings
 * and methods, and a few top-level functions. */
static void gen_module(Buf *b, uint32_t seed)
{
	for (int c = 0; c < 4; c++) {
		const char *w = words[lcg(&seed) % NWORDS];

		buf_printf(b, "class %c%s%u:\n    \"\"\"Handles %s %s.\"\"\"\n\n",
			   'A' + c, w, seed % 1000, w,
			   words[lcg(&seed) % NWORDS]);
		for (int m = 0; m < 5; m++) {
			const char *x = words[lcg(&seed) % NWORDS];
			const char *y = words[lcg(&seed) % NWORDS];

			buf_printf(b, "    def %s_%s_%d(self, %s):\n"
				      "        \"\"\"Return the %s of %s.\"\"\"\n"
				      "        total = 0\n"
				      "        for item in %s:\n"
				      "            total += item.%s * %u\n"
				      "        return total\n\n",
				   x, y, m, x, y, x, x, y, lcg(&seed) % 97);
		}
	}
	for (int k = 0; k < 3; k++) {
		const char *x = words[lcg(&seed) % NWORDS];

		buf_printf(b, "\ndef top_%s_%d(value):\n"
			      "    return [%s * %u for %s in value]\n",
			   x, k, x, lcg(&seed) % 31, x);
	}
}

static void make_big_workspace(const char *root)
{
	Buf b = {0};

	for (uint32_t i = 0; i < KILL_FILES; i++) {
		char rel[64];

		b.len = 0;
		gen_module(&b, i * 2654435761u + 1);
		snprintf(rel, sizeof(rel), "pkg%u/sub%u/mod_%u.py", i % 13,
			 i % 5, i);
		ixt_write_n(root, rel, b.data, b.len);
	}
	buf_free(&b);
}

/* Compares two long texts line by line and reports the first difference
 * only (the whole text would be megabytes). */
static void expect_same_rows(const char *what, const char *a, const char *b)
{
	size_t line = 1, i = 0;

	if (strcmp(a, b) == 0)
		return;
	for (; a[i] && a[i] == b[i]; i++)
		line += a[i] == '\n';
	while (i > 0 && a[i - 1] != '\n')
		i--;
	test_fail(__FILE__, __LINE__,
		  "%s differ at line %zu:\n  first:  %.200s\n  second: %.200s",
		  what, line, a + i, b + i);
}

static const char *const compare_sql[][2] = {
	{"files", "SELECT path, lang, size, hash FROM files ORDER BY 1"},
	{"spans", "SELECT f.path, s.kind, s.name, s.qualname, s.start_byte,"
		  " s.end_byte, s.start_line, s.end_line, s.header,"
		  " s.hash, p.qualname FROM spans s JOIN files f ON"
		  " f.id=s.file_id LEFT JOIN spans p ON p.id=s.parent_id"
		  " ORDER BY 1, 5, 6, 4"},
	{"chunks", "SELECT f.path, c.kind, c.start_byte, c.end_byte,"
		   " c.start_line, c.end_line, c.size, c.hash, c.names,"
		   " c.text, s.qualname FROM chunks c JOIN files f ON"
		   " f.id=c.file_id LEFT JOIN spans s ON s.id=c.span_id"
		   " ORDER BY 1, 3"},
	{"fts ledger", "SELECT f.path, c.start_byte FROM chunks_fts JOIN"
		       " chunks c ON c.id=chunks_fts.rowid JOIN files f ON"
		       " f.id=c.file_id WHERE chunks_fts MATCH 'ledger'"
		       " ORDER BY 1, 2"},
	{"fts parts", "SELECT f.path, c.start_byte FROM chunks_fts JOIN"
		      " chunks c ON c.id=chunks_fts.rowid JOIN files f ON"
		      " f.id=c.file_id WHERE chunks_fts MATCH"
		      " 'names:widget AND matrix' ORDER BY 1, 2"},
	{"fts paths", "SELECT count(*) FROM chunks_fts WHERE chunks_fts"
		      " MATCH 'path:pkg7 AND socket'"},
};

/* Runs each of n queries (a name, its SQL) on databases x and y and
 * expects the same rows of both. */
static void expect_same_tables(sqlite3 *x, sqlite3 *y,
			       const char *const (*sql)[2], size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *a = ixt_rows(x, sql[i][1]);
		char *b = ixt_rows(y, sql[i][1]);

		EXPECT_TRUE(strlen(b) > 2 && strncmp(b, "ERROR", 5) != 0);
		expect_same_rows(sql[i][0], a, b);
		xfree(a);
		xfree(b);
	}
}

/* The files committed to the database at path so far; 0 while it is
 * not there yet or has no schema. */
static long long committed_files(const char *path)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *s;
	long long n = 0;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) ==
		    SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT count(*) FROM files", -1, &s,
			       NULL) == SQLITE_OK) {
		if (sqlite3_step(s) == SQLITE_ROW)
			n = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
	}
	sqlite3_close(db);
	return n;
}

/* Waits until pid has committed some files to the database at path and
 * is still running; false when it ended first. */
static bool wait_for_commit(const char *path, pid_t pid)
{
	struct timespec pause = {0, KILL_POLL_MS * 1000000L};
	siginfo_t info;

	for (;;) {
		if (committed_files(path) > 0)
			return true;
		memset(&info, 0, sizeof(info));
		if (waitid(P_PID, (id_t)pid, &info,
			   WEXITED | WNOHANG | WNOWAIT) == 0 &&
		    info.si_pid == pid)
			return false;
		nanosleep(&pause, NULL);
	}
}

/* Kills a cold index once its first batch is committed, while the next
 * one is being written; the resumed index equals a clean one. */
TEST(scan_sigkill_then_resume_equals_clean)
{
	Fixture f;
	char *clean_db, *out, *err;
	int status;
	pid_t pid;
	sqlite3 *clean;
	bool running;

	fixture_init(&f);
	make_big_workspace(f.root);
	clean_db = ixt_path(f.tmp, "clean/index.db");
	ixt_mkdirs(f.tmp); /* the CLI makes db/ itself */
	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", f.root,
				"--db", f.db_path, "--jobs", "2", "--quiet",
				NULL};
		char *o = ixt_path(f.tmp, "kill.out"),
		     *e = ixt_path(f.tmp, "kill.err");

		pid = ixt_spawn(argv, o, e);
		running = wait_for_commit(f.db_path, pid);
		kill(pid, SIGKILL);
		status = ixt_wait(pid);
		xfree(o);
		xfree(e);
	}
	if (!running || status != 128 + SIGKILL)
		test_fail(__FILE__, __LINE__,
			  "castls index ended (status %d) before a first"
			  " commit could be seen: make the workspace bigger",
			  status);
	EXPECT_TRUE(committed_files(f.db_path) < KILL_FILES);
	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", f.root,
				"--db", f.db_path, "--quiet", NULL};

		EXPECT_INT_EQ(ixt_run(f.tmp, argv, &out, &err), 0);
		xfree(out);
		xfree(err);
	}
	{
		char *argv[] = {(char *)ixt_castls_bin(), "index", f.root,
				"--db", clean_db, "--quiet", NULL};

		EXPECT_INT_EQ(ixt_run(f.tmp, argv, &out, &err), 0);
		xfree(out);
		xfree(err);
	}
	EXPECT_ROWS(&f, "PRAGMA quick_check", "ok\n");
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	EXPECT_INT_EQ(orphans(&f), 0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), KILL_FILES);
	clean = ixt_db_open(clean_db);
	expect_same_tables(fdb(&f), clean, compare_sql,
			   sizeof(compare_sql) / sizeof(*compare_sql));
	sqlite3_close(clean);
	xfree(clean_db);
	fixture_close(&f);
}

/* Row ids, which rank a name's identical definitions in several files:
 * a scan writes files in the walk's order, whatever order its threads
 * parse them in. */
static const char *const id_sql[][2] = {
    {"file ids", "SELECT id, path FROM files ORDER BY 1"},
    {"span ids", "SELECT s.id, f.path, s.start_byte, s.qualname FROM"
		 " spans s JOIN files f ON f.id=s.file_id ORDER BY 1"},
    {"chunk ids", "SELECT c.id, f.path, c.start_byte FROM chunk_rows c"
		  " JOIN files f ON f.id=c.file_id ORDER BY 1"},
};

/* The writer chunks files itself while no result waits: with one job it
 * does all the work, with four it shares it; the rows are the same. */
TEST(scan_jobs_one_and_four_write_the_same_rows)
{
	Fixture f;
	ScanStats st;
	sqlite3 *db[2];
	const int jobs[2] = {1, 4};

	fixture_init(&f);
	make_big_workspace(f.root);
	for (int k = 0; k < 2; k++) {
		IndexOptions o = {0};
		char name[32];
		char *path;

		snprintf(name, sizeof(name), "jobs%d/index.db", jobs[k]);
		path = ixt_path(f.tmp, name);
		o.root = f.root;
		o.db_path = path;
		o.quiet = true;
		ASSERT_INT_EQ(index_open(&o, &f.ix), 0);
		EXPECT_INT_EQ(index_scan(f.ix, jobs[k], NULL, NULL, NULL, &st),
			      0);
		EXPECT_INT_EQ(st.indexed, KILL_FILES);
		index_close(f.ix);
		f.ix = NULL;
		db[k] = ixt_db_open(path);
		xfree(path);
	}
	expect_same_tables(db[0], db[1], compare_sql,
			   sizeof(compare_sql) / sizeof(*compare_sql));
	/* And the same ids, whichever thread parsed which file first. */
	expect_same_tables(db[0], db[1], id_sql,
			   sizeof(id_sql) / sizeof(*id_sql));
	sqlite3_close(db[0]);
	sqlite3_close(db[1]);
	fixture_close(&f);
}

/* A first scan into an empty database runs without fsyncs and leaves the
 * connection syncing again; a new database has 16 KiB pages. */
TEST(scan_cold_build_restores_synchronous)
{
	Fixture f;
	ScanStats st;
	sqlite3_stmt *s;

	fixture_init(&f);
	ixt_write(f.root, "led.py", led_v1);
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 1);
	ASSERT_INT_EQ(sqlite3_prepare_v2(f.ix->db, "PRAGMA synchronous", -1,
					 &s, NULL),
		      SQLITE_OK);
	ASSERT_INT_EQ(sqlite3_step(s), SQLITE_ROW);
	EXPECT_INT_EQ(sqlite3_column_int(s, 0), 1); /* NORMAL */
	sqlite3_finalize(s);
	EXPECT_INT_EQ(q_int(&f, "PRAGMA page_size"), 16384);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks_fts WHERE"
				" chunks_fts MATCH 'withdraw'"),
		      1);
	fixture_close(&f);
}

typedef struct {
	Index *ix;
	/* At the first progress report: the journal mode, the secondary
	 * indexes there are, and the full-text index's crisis merge. */
	char mode[16];
	long long indexes, crisis;
} ModeSeen;

/* Secondary indexes (the ones SQLite makes for constraints aside). */
#define SECONDARY_INDEXES                                       \
	"SELECT count(*) FROM sqlite_schema WHERE type='index'" \
	" AND name NOT LIKE 'sqlite_%'"
/* FTS5's setting, its default when never set: a level of this many
 * segments is merged in the commit that fills it. */
#define FTS_CRISIS                                         \
	"SELECT coalesce((SELECT v FROM chunks_fts_config" \
	" WHERE k='crisismerge'), 16)"

static void note_journal_mode(void *ctx, const ScanStats *st)
{
	ModeSeen *m = ctx;
	sqlite3_stmt *s;

	(void)st;
	if (m->mode[0] || sqlite3_prepare_v2(m->ix->db, "PRAGMA journal_mode",
					     -1, &s, NULL) != SQLITE_OK)
		return;
	m->indexes = ixt_int(m->ix->db, SECONDARY_INDEXES);
	m->crisis = ixt_int(m->ix->db, FTS_CRISIS);
	if (sqlite3_step(s) == SQLITE_ROW)
		snprintf(m->mode, sizeof(m->mode), "%s",
			 (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
}

/* A first scan by a connection alone with its database (castls index)
 * writes it with a rollback journal, without its secondary indexes and
 * with no full-text merges along the way, and leaves it in WAL mode,
 * synced, with all rows, indexes and FTS5's merge settings back; one
 * that shares it stays in WAL mode with its indexes throughout. */
TEST(scan_alone_bypasses_the_log_then_returns_to_it)
{
	for (int alone = 0; alone < 2; alone++) {
		Fixture f;
		ScanStats st;
		ModeSeen m = {0};
		char *plan;

		fixture_init(&f);
		for (int i = 0; i < 40; i++) {
			char rel[32];

			snprintf(rel, sizeof(rel), "p%d/m%02d.py", i % 3, i);
			ixt_write(f.root, rel, led_v1);
		}
		ASSERT_INT_EQ(fixture_open_alone(&f, alone), 0);
		m.ix = f.ix;
		EXPECT_INT_EQ(index_scan(f.ix, 2, note_journal_mode, &m, NULL,
					 &st),
			      0);
		EXPECT_STR_EQ(m.mode, alone ? "delete" : "wal");
		EXPECT_INT_EQ(m.indexes, alone ? 0 : 5);
		EXPECT_INT_EQ(m.crisis, alone ? 1024 : 16);
		EXPECT_INT_EQ(q_int(&f, SECONDARY_INDEXES), 5);
		EXPECT_INT_EQ(q_int(&f, FTS_CRISIS), 16);
		plan = ixt_rows(fdb(&f), "EXPLAIN QUERY PLAN SELECT id"
					 " FROM spans WHERE name = 'led'");
		EXPECT_TRUE(strstr(plan, "spans_name") != NULL);
		xfree(plan);
		EXPECT_ROWS(&f, "PRAGMA journal_mode", "wal\n");
		EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM files"), 40);
		EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
		EXPECT_ROWS(&f, "PRAGMA quick_check", "ok\n");
		fixture_close(&f);
	}
}

/* A load of index__finish_min bytes and more builds its indexes and
 * merges its full-text segments before its last rows, which it writes
 * between the finish's steps or after them (as the workers' timing
 * has it): the same rows as a load that finishes at its end, every
 * file found, and nothing counted for the next scan to compact again. */
TEST(load_finishes_before_its_last_rows)
{
	long long chunks = -1, spans = -1;
	uint64_t finish_min = index__finish_min;

	for (int early = 0; early < 2; early++) {
		Fixture f;
		ScanStats st;

		fixture_init(&f);
		for (int i = 0; i < 40; i++) {
			char rel[32];
			Buf text = {0};

			snprintf(rel, sizeof(rel), "p%d/m%02d.py", i / 10, i);
			buf_printf(&text,
				   "%s\n\ndef only_in_m%02d():\n"
				   "    return %d\n",
				   led_v1, i, i);
			ixt_write(f.root, rel, text.data);
			buf_free(&text);
		}
		ASSERT_INT_EQ(fixture_open_alone(&f, true), 0);
		index__finish_min = early ? 0 : finish_min;
		EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL, &st), 0);
		index__finish_min = finish_min;
		EXPECT_INT_EQ(st.indexed, 40);
		EXPECT_INT_EQ(q_int(&f, SECONDARY_INDEXES), 5);
		EXPECT_INT_EQ(q_int(&f, FTS_CRISIS), 16);
		for (int i = 0; i < 40; i++) {
			char sql[128];

			snprintf(sql, sizeof(sql),
				 "SELECT count(*) FROM chunks_fts"
				 " WHERE chunks_fts MATCH 'only_in_m%02d'",
				 i);
			EXPECT_INT_EQ(q_int(&f, sql), 1);
		}
		if (early) {
			EXPECT_INT_EQ(
			    q_int(&f, "SELECT count(*) FROM chunk_rows"),
			    chunks);
			EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM spans"),
				      spans);
		} else {
			chunks = q_int(&f, "SELECT count(*) FROM chunk_rows");
			spans = q_int(&f, "SELECT count(*) FROM spans");
		}
		/* A load that finishes early merges what it holds and counts
		 * none of its files; one under index__finish_min leaves too
		 * few to merge and counts them for a later scan. */
		EXPECT_INT_EQ(q_int(&f, "SELECT value FROM meta"
					" WHERE key = 'written'"),
			      early ? 0 : 40);
		EXPECT_ROWS(&f, "PRAGMA journal_mode", "wal\n");
		EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
		EXPECT_ROWS(&f, "PRAGMA quick_check", "ok\n");
		fixture_close(&f);
	}
}

/* A new file opened alone (castls index) is made without the log, as the
 * first scan wants it; whatever comes next, a scan of an empty root or
 * no scan at all, leaves it in WAL mode. */
TEST(new_file_opened_alone_ends_in_wal_mode)
{
	for (int scan = 0; scan < 2; scan++) {
		Fixture f;
		ScanStats st;
		char *rows;

		fixture_init(&f);
		ASSERT_INT_EQ(fixture_open_alone(&f, true), 0);
		rows = ixt_rows(f.ix->db, "PRAGMA journal_mode");
		EXPECT_STR_EQ(rows, "delete\n");
		xfree(rows);
		if (scan) {
			EXPECT_INT_EQ(index_scan(f.ix, 2, NULL, NULL, NULL,
						 &st),
				      0);
			EXPECT_INT_EQ(st.seen, 0);
		} else {
			index_close(f.ix);
			f.ix = NULL;
		}
		/* A connection of its own: one open before the switch would
		 * still report the mode it started in. */
		EXPECT_ROWS(&f, "PRAGMA journal_mode", "wal\n");
		EXPECT_ROWS(&f, "PRAGMA quick_check", "ok\n");
		fixture_close(&f);
	}
}

/* A load cut short (castls index killed mid-scan) leaves rows without
 * secondary indexes and FTS5 merging nothing: opening the file again
 * puts both back, so the next scan's lookups by file and name stay
 * indexed and its segments merge. */
TEST(open_finishes_a_load_cut_short)
{
	Fixture f;
	ScanStats st;

	fixture_init(&f);
	ixt_write(f.root, "led.py", led_v1);
	ASSERT_INT_EQ(fixture_open_alone(&f, true), 0);
	ASSERT_INT_EQ(index__load(f.ix, true), 0);
	EXPECT_INT_EQ(ixt_int(f.ix->db, SECONDARY_INDEXES), 0);
	EXPECT_INT_EQ(ixt_int(f.ix->db, FTS_CRISIS), 1024);
	index_close(f.ix);
	f.ix = NULL;
	EXPECT_INT_EQ(q_int(&f, SECONDARY_INDEXES), 0);
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	EXPECT_INT_EQ(q_int(&f, SECONDARY_INDEXES), 5);
	EXPECT_INT_EQ(q_int(&f, FTS_CRISIS), 16);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 1);
	EXPECT_INT_EQ(fts_integrity(&f), SQLITE_OK);
	EXPECT_ROWS(&f, "PRAGMA quick_check", "ok\n");
	fixture_close(&f);
}

/* Rows cut at one chunk size are re-cut when the size changes, although
 * no file changed; an unchanged size reads nothing. */
TEST(scan_rechunks_when_chunk_size_changes)
{
	Fixture f;
	ScanStats st;
	long long small, large;

	fixture_init(&f);
	ixt_write(f.root, "led.py", led_v1);
	ASSERT_INT_EQ(fixture_open_with(&f, 70, 0), 0);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 1);
	small = q_int(&f, "SELECT count(*) FROM chunks");
	index_close(f.ix);
	f.ix = NULL;
	ASSERT_INT_EQ(fixture_open_with(&f, 70, 0), 0);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 0);
	EXPECT_INT_EQ(st.unchanged, 1);
	index_close(f.ix);
	f.ix = NULL;
	ASSERT_INT_EQ(fixture_open_with(&f, 100000, 0), 0);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 1);
	large = q_int(&f, "SELECT count(*) FROM chunks");
	EXPECT_TRUE(small > 1);
	EXPECT_INT_EQ(large, 1);
	fixture_close(&f);
}

/* Without a word from the user, dependencies, caches and virtual
 * environments are skipped, and build outputs where no git repository
 * says what is the project's; an exclude pattern brings any back. */
TEST(scan_default_excludes)
{
	Fixture f;
	IndexOptions o = {0};
	ScanStats st;

	fixture_init(&f);
	ixt_write(f.root, "app.py", "app = 1\n");
	ixt_write(f.root, "node_modules/pkg/index.js", "exports.x = 1;\n");
	ixt_write(f.root, "pkg/__pycache__/m.py", "m = 1\n");
	ixt_write(f.root, "env/pyvenv.cfg", "home = /usr/bin\n");
	ixt_write(f.root, "env/lib/site.py", "site = 1\n");
	ixt_write(f.root, "build/lib/app.py", "copy = 1\n");
	ixt_write(f.root, "vendor/dep.py", "dep = 1\n");
	o.root = f.root;
	o.db_path = f.db_path;
	o.quiet = true;
	ASSERT_INT_EQ(index_open(&o, &f.ix), 0);
	ASSERT_INT_EQ(index_scan(f.ix, 1, NULL, NULL, NULL, &st), 0);
	EXPECT_ROWS(&f, "SELECT path FROM files ORDER BY path", "app.py\n");
	index_close(f.ix);

	/* In a git repository, its ignore files decide about build/. */
	ixt_write(f.root, ".git/HEAD", "ref: refs/heads/main\n");
	o.exclude = "!node_modules/\n";
	ASSERT_INT_EQ(index_open(&o, &f.ix), 0);
	ASSERT_INT_EQ(index_scan(f.ix, 1, NULL, NULL, NULL, &st), 0);
	EXPECT_ROWS(&f, "SELECT path FROM files ORDER BY path",
		    "app.py\nbuild/lib/app.py\nnode_modules/pkg/index.js\n"
		    "vendor/dep.py\n");
	fixture_close(&f);
}

/* Writes n files m<i>.py whose function says word. */
static void write_modules(Fixture *f, int n, const char *word)
{
	char rel[32], text[96];

	for (int i = 0; i < n; i++) {
		snprintf(rel, sizeof(rel), "m%d.py", i);
		snprintf(text, sizeof(text),
			 "def f%d(x):\n    return %s(x) + %d\n", i, word, i);
		ixt_write(f->root, rel, text);
	}
}

/* A scan that rewrote much leaves the full-text index in one segment,
 * without the postings of the rows it replaced: after the first index,
 * and once the files written since pass a sixteenth of the workspace
 * (and 256); a few files written leave the segments FTS5 made. */
TEST(scan_compacts_the_full_text_index_after_much_writing)
{
	enum { FILES = 300 };
	Fixture f;
	ScanStats st;
	const char *segments =
	    "SELECT count(DISTINCT segid) FROM chunks_fts_idx";

	fixture_init(&f);
	write_modules(&f, FILES, "alpha");
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, FILES);
	EXPECT_INT_EQ(q_int(&f, segments), 1);
	EXPECT_INT_EQ(q_int(&f, "SELECT value FROM meta WHERE key='written'"),
		      0);

	/* 40 files: a new segment, counted toward the next compaction. */
	write_modules(&f, 40, "beta");
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 40);
	EXPECT_TRUE(q_int(&f, segments) > 1);
	EXPECT_INT_EQ(q_int(&f, "SELECT value FROM meta WHERE key='written'"),
		      40);

	/* 40 + 260 files: compacted again. */
	write_modules(&f, 260, "gamma");
	st = rescan(&f);
	EXPECT_INT_EQ(st.indexed, 260);
	EXPECT_INT_EQ(q_int(&f, segments), 1);
	EXPECT_INT_EQ(q_int(&f, "SELECT value FROM meta WHERE key='written'"),
		      0);
	EXPECT_INT_EQ(ixt_exec(fdb(&f), "INSERT INTO chunks_fts(chunks_fts)"
					" VALUES('integrity-check')"),
		      0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks_fts WHERE"
				" chunks_fts MATCH 'gamma'"),
		      260);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks_fts WHERE"
				" chunks_fts MATCH 'beta'"),
		      0);
	EXPECT_INT_EQ(q_int(&f, "SELECT count(*) FROM chunks_fts WHERE"
				" chunks_fts MATCH 'alpha'"),
		      FILES - 260);
	fixture_close(&f);
}

/* A buffer's writes count as no files written, but each leaves a
 * segment (no index_merge here, and FTS5's crisis merge put off, so that
 * they stay): past
 * COMPACT_SEGMENTS (16), a scan merges them into one, however little it
 * wrote itself. */
TEST(scan_compacts_the_segments_that_buffer_writes_leave)
{
	const char *segments =
	    "SELECT count(DISTINCT segid) FROM chunks_fts_idx";
	char rel[32], text[128];
	long long n;
	uint32_t typed = 0;
	Fixture f;

	fixture_init(&f);
	write_modules(&f, 30, "alpha");
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	EXPECT_INT_EQ(rescan(&f).indexed, 30);
	ASSERT_INT_EQ(ixt_exec(fdb(&f), "INSERT INTO chunks_fts(chunks_fts,"
					" rank) VALUES('crisismerge', 64)"),
		      0);
	/* Typing in a few buffers: their segments stay. */
	for (int i = 0; i < 2; i++) {
		snprintf(rel, sizeof(rel), "m%d.py", i);
		snprintf(text, sizeof(text), "def f%d(x):\n    return beta(x)\n",
			 i);
		ixt_put_py(f.ix, rel, text, 80);
	}
	EXPECT_INT_EQ(rescan(&f).indexed, 2); /* the disk's text again */
	n = q_int(&f, segments);
	EXPECT_TRUE(n > 2 && n <= 16);
	/* Typing on: past 16, the scan merges them all. */
	for (int i = 0; i < 30 && q_int(&f, segments) <= 16; i++, typed++) {
		snprintf(rel, sizeof(rel), "m%d.py", i);
		snprintf(text, sizeof(text), "def f%d(x):\n    return gamma(x)\n",
			 i);
		ixt_put_py(f.ix, rel, text, 80);
	}
	EXPECT_TRUE(q_int(&f, segments) > 16);
	EXPECT_INT_EQ(rescan(&f).indexed, typed);
	EXPECT_INT_EQ(q_int(&f, segments), 1);
	EXPECT_INT_EQ(fts_integrity(&f), 0);
	EXPECT_INT_EQ(fts_count(&f, "alpha"), 30);
	EXPECT_INT_EQ(fts_count(&f, "gamma"), 0);
	fixture_close(&f);
}

/* The levels of the full-text index's structure record: the varint
 * after its 4-byte cookie. */
static long long fts_levels(Fixture *f)
{
	sqlite3_stmt *s;
	long long v = -1;

	if (sqlite3_prepare_v2(fdb(f),
			       "SELECT block FROM chunks_fts_data WHERE id=10",
			       -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW) {
		const unsigned char *b = sqlite3_column_blob(s, 0);
		int n = sqlite3_column_bytes(s, 0);

		v = 0;
		for (int i = 4; b && i < n && i < 13; i++) {
			v = (v << 7) | (b[i] & 0x7f);
			if (!(b[i] & 0x80))
				break;
		}
	}
	sqlite3_finalize(s);
	return v;
}

/* SQLite 3.40's FTS5 adds a level to its structure each time a merge into
 * one segment starts while segments lie on several levels, and reads a
 * structure of over 2,000 levels as corrupt. Past 1,024 levels a
 * compaction merges without adding levels, and the index stays whole. */
TEST(scan_compaction_adds_no_levels_past_a_thousand)
{
	enum { FILES = 300 };
	Fixture f;
	long long before;

	fixture_init(&f);
	write_modules(&f, FILES, "alpha");
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	EXPECT_INT_EQ(rescan(&f).indexed, FILES);
	/* A chunk's postings written again (segments on level 0), then a
	 * step of a merge into one segment (a new level), until past 1,024
	 * levels. */
	while ((before = fts_levels(&f)) >= 0 && before <= 1100)
		ASSERT_INT_EQ(ixt_fts_add_level(fdb(&f)), 0);
	EXPECT_TRUE(before > 1024 && before < 2000);
	write_modules(&f, FILES, "beta");
	EXPECT_INT_EQ(rescan(&f).indexed, FILES);
	EXPECT_INT_EQ(fts_levels(&f), before);
	EXPECT_INT_EQ(fts_integrity(&f), 0);
	EXPECT_INT_EQ(fts_count(&f, "beta"), FILES);
	EXPECT_INT_EQ(fts_count(&f, "alpha"), 0);
	fixture_close(&f);
}

/* The level merges of one-page segments, FTS_MERGE_MIN at a time, would
 * put a segment of pages on. */
static int earned_level(int pages)
{
	int level = 0;

	for (; pages >= FTS_MERGE_MIN; pages /= FTS_MERGE_MIN)
		level++;
	return level;
}

/* A first index leaves its one full-text segment on the level its size
 * earns, not on level 1 (where FTS5's merge puts it): a keystroke's
 * writes, one-page segments on level 0, and their merges then stay
 * below it. On level 1, the fourth merge of theirs would take it in and
 * write all of it again, and later ones again, each a level up. */
TEST(scan_puts_segments_on_the_level_their_size_earns)
{
	enum { FILES = 300, WRITES = 40 };
	atomic_bool stop = false;
	FtsSegments s;
	char rel[32], text[128];
	int id, pages, level, k;
	bool more;
	Fixture f;

	fixture_init(&f);
	for (int i = 0; i < FILES; i++) { /* terms for a few dozen pages */
		Buf b = {0};

		for (int j = 0; j < 12; j++)
			buf_printf(
			    &b,
			    "def f%d_%d(x):\n    return alpha(x) + g%d_%d\n", i,
			    j, i, j);
		snprintf(rel, sizeof(rel), "w%d.py", i);
		ixt_write(f.root, rel, b.data);
		buf_free(&b);
	}
	ASSERT_INT_EQ(fixture_open_with(&f, 0, 0), 0);
	EXPECT_INT_EQ(rescan(&f).indexed, FILES);
	ASSERT_TRUE(fts_segments(fdb(&f), &s));
	ASSERT_INT_EQ(s.n, 1);
	id = s.id[0];
	pages = s.pages[0];
	level = s.level[0];
	ASSERT_TRUE(earned_level(pages) >= 2);
	EXPECT_INT_EQ(level, earned_level(pages));

	for (int i = 0; i < WRITES; i++) {
		snprintf(text, sizeof(text),
			 "def f%d(x):\n    return beta%d(x)\n", i % 4, i);
		snprintf(rel, sizeof(rel), "m%d.py", i % 4);
		ixt_put_py(f.ix, rel, text, 80);
		do
			ASSERT_INT_EQ(index_merge(f.ix, 1000, &stop, &more), 0);
		while (more);
	}
	ASSERT_TRUE(fts_segments(fdb(&f), &s));
	k = fts_segment_of(&s, id);
	ASSERT_TRUE(k >= 0); /* never merged again */
	EXPECT_INT_EQ(s.pages[k], pages);
	EXPECT_INT_EQ(s.level[k], level);
	EXPECT_TRUE(fts_fullest_level(&s) < FTS_MERGE_MIN);
	EXPECT_INT_EQ(fts_integrity(&f), 0);
	EXPECT_INT_EQ(fts_count(&f, "beta39"), 1);
	EXPECT_INT_EQ(fts_count(&f, "beta35"), 0);
	EXPECT_INT_EQ(fts_count(&f, "alpha"), FILES);
	fixture_close(&f);
}

/* ---------------------------------------------------------------------- *
 * A scan gives way to a waiting writer
 * ---------------------------------------------------------------------- */

typedef struct {
	Index *ix;
	ScanStats st;
	int err;
	atomic_int writing; /* the scan's writer has written a file */
} GiveWay;

static void writing_progress(void *ctx, const ScanStats *s)
{
	(void)s;
	atomic_store(&((GiveWay *)ctx)->writing, 1);
}

static void *scan_thread(void *p)
{
	GiveWay *g = p;

	g->err = index_scan(g->ix, 1, writing_progress, g, NULL, &g->st);
	atomic_store(&g->writing, 1); /* also when it failed early */
	return NULL;
}

/* Connections sharing lock_wait give way to each other: a write (a live
 * buffer's) that comes while a scan writes its batch waits for the file
 * being written, not for the batch of hundreds. Without it, the write
 * gets in only once the scan's transaction ends, and sees all of it. */
TEST(scan_gives_way_to_a_waiting_writer)
{
	enum { FILES = 600 };
	_Atomic int64_t lock_wait = 0;
	IndexOptions o = {0};
	GiveWay g = {0};
	Index *other;
	Fixture f;
	pthread_t t;
	long long seen;

	fixture_init(&f);
	write_modules(&f, FILES, "alpha");
	o.root = f.root;
	o.db_path = f.db_path;
	o.busy_timeout_ms = 60000;
	o.quiet = true;
	o.lock_wait = &lock_wait;
	ASSERT_INT_EQ(index_open(&o, &g.ix), 0);
	ASSERT_INT_EQ(index_open(&o, &other), 0);
	ASSERT_INT_EQ(index_scan(g.ix, 1, NULL, NULL, NULL, &g.st), 0);
	/* A branch switch: every file rewritten, one batch to scan. */
	write_modules(&f, FILES, "beta");
	ASSERT_INT_EQ(pthread_create(&t, NULL, scan_thread, &g), 0);
	while (!atomic_load(&g.writing))
		sqlite3_sleep(1);
	EXPECT_INT_EQ(index_file_remove(other, "no/such/file.py"), 0);
	seen = fts_count(&f, "beta");
	pthread_join(t, NULL);
	EXPECT_INT_EQ(g.err, 0);
	EXPECT_INT_EQ(g.st.indexed, FILES);
	if (seen >= FILES)
		test_fail(__FILE__, __LINE__,
			  "the write waited for the whole scan (%lld files)",
			  seen);
	EXPECT_INT_EQ(fts_count(&f, "beta"), FILES);
	index_close(other);
	index_close(g.ix);
	fixture_close(&f);
}
