/*
 * ixtest.h: helpers shared by the index tests (test_store.c, test_scan.c):
 * temporary directories, files on disk, a second SQLite connection to
 * read what the index wrote, and running the real castls binary.
 *
 * Everything here is static inline so that a file using only part of it
 * builds without unused-function warnings. Helpers abort the test binary
 * on a setup failure (a full disk, a missing binary): those are not the
 * behaviour under test, and going on would only report noise.
 */
#ifndef CASTLS_TESTS_IXTEST_H
#define CASTLS_TESTS_IXTEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <signal.h>
#include <spawn.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/base.h"
#include "chunker/chunker.h"
#include "index/index.h"
#include "index/tokenize.h"

extern char **environ;

static inline void ixt_die(const char *what, const char *path)
{
	fprintf(stderr, "test setup: %s %s: %s\n", what, path ? path : "",
		strerror(errno));
	exit(2);
}

/* A fresh, empty directory under $TMPDIR (or /tmp); caller xfrees the
 * path after ixt_rmtree. */
static inline char *ixt_tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	Buf b = {0};

	buf_printf(&b, "%s/castls-ixtest-XXXXXX", t && *t ? t : "/tmp");
	if (!mkdtemp(b.data))
		ixt_die("mkdtemp", b.data);
	return buf_take(&b);
}

/* rm -rf path, never following symlinks. */
static inline void ixt_rmtree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;

	if (lstat(path, &st) < 0)
		return;
	if (S_ISDIR(st.st_mode) && (d = opendir(path))) {
		Buf sub = {0};

		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
				continue;
			sub.len = 0;
			buf_printf(&sub, "%s/%s", path, e->d_name);
			ixt_rmtree(sub.data);
		}
		closedir(d);
		buf_free(&sub);
		rmdir(path);
		return;
	}
	unlink(path);
}

/* mkdir -p for dir itself. */
static inline void ixt_mkdirs(const char *dir)
{
	char *p = xstrdup(dir);

	for (char *s = strchr(p + 1, '/');; s = strchr(s + 1, '/')) {
		if (s)
			*s = '\0';
		if (mkdir(p, 0755) < 0 && errno != EEXIST)
			ixt_die("mkdir", p);
		if (!s)
			break;
		*s = '/';
	}
	xfree(p);
}

/* Writes n bytes to root/rel, making its directories. */
static inline void ixt_write_n(const char *root, const char *rel,
			       const char *text, size_t n)
{
	Buf path = {0};
	char *slash;
	FILE *f;

	buf_printf(&path, "%s/%s", root, rel);
	slash = strrchr(path.data, '/');
	*slash = '\0';
	ixt_mkdirs(path.data);
	*slash = '/';
	if (!(f = fopen(path.data, "wb")) || fwrite(text, 1, n, f) != n ||
	    fclose(f) != 0)
		ixt_die("write", path.data);
	buf_free(&path);
}

static inline void ixt_write(const char *root, const char *rel,
			     const char *text)
{
	ixt_write_n(root, rel, text, strlen(text));
}

/* root/rel as a heap string the caller xfrees. */
static inline char *ixt_path(const char *root, const char *rel)
{
	Buf b = {0};

	buf_printf(&b, "%s/%s", root, rel);
	return buf_take(&b);
}

/* Calls fn with the name and text of each module of the Python standard
 * library's email package (real code for search and symbol tests, on
 * every Debian machine); returns how many it read. */
static inline int ixt_each_email_module(void (*fn)(void *ctx, const char *rel,
						   const char *text),
					void *ctx)
{
	glob_t g;
	int n = 0;

	if (glob("/usr/lib/python3*/email/*.py", 0, NULL, &g) != 0)
		return 0;
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char *text;
		size_t len;

		if (castls_read_file(g.gl_pathv[i], 1 << 20, &text, &len))
			continue;
		fn(ctx, strrchr(g.gl_pathv[i], '/') + 1, text);
		xfree(text);
		n++;
	}
	globfree(&g);
	return n;
}

/* A second, independent connection to the database at path, with the
 * castls tokenizer registered so chunks_fts can be queried. */
static inline sqlite3 *ixt_db_open(const char *path)
{
	sqlite3 *db = NULL;

	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) !=
		    SQLITE_OK ||
	    code_tokenizer_register(db) != 0) {
		fprintf(stderr, "test setup: open %s: %s\n", path,
			db ? sqlite3_errmsg(db) : "?");
		exit(2);
	}
	sqlite3_busy_timeout(db, 5000);
	return db;
}

/* Runs sql and returns its rows, columns joined by '|', each row ended by
 * '\n' (NULL prints as "NULL"); "" for no rows. On an SQL error returns
 * "ERROR: message". Caller xfrees. */
static inline char *ixt_rows(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	Buf b = {0};
	int rc;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
		buf_printf(&b, "ERROR: %s", sqlite3_errmsg(db));
		return buf_take(&b);
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(s); i++) {
			const char *v = (const char *)sqlite3_column_text(s, i);

			if (i)
				buf_puts(&b, "|");
			buf_puts(&b, v ? v : "NULL");
		}
		buf_puts(&b, "\n");
	}
	if (rc != SQLITE_DONE) {
		b.len = 0;
		buf_printf(&b, "ERROR: %s", sqlite3_errmsg(db));
	}
	sqlite3_finalize(s);
	return buf_take(&b);
}

/* The first column of the first row of sql as an integer; -1 when there
 * is no row or the query fails. */
static inline long long ixt_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s;
	long long v = -1;

	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* sqlite3_exec that reports failure as the SQLite result code. */
static inline int ixt_exec(sqlite3 *db, const char *sql)
{
	return sqlite3_exec(db, sql, NULL, NULL, NULL);
}

/* Writes the full-text postings of the first chunk again (new segments
 * on level 0), then takes one step of a merge into one segment: with
 * SQLite 3.40's FTS5 a new level of its structure each time, until past
 * 2,000 it reads as corrupt. Returns the first SQLite error, or 0. */
static inline int ixt_fts_add_level(sqlite3 *db)
{
	static const char *const again[] = {
	    "INSERT INTO chunks_fts(chunks_fts, rowid, text, names, path)"
	    " SELECT 'delete', id, text, names, path FROM chunks_doc"
	    " WHERE id = (SELECT min(id) FROM chunks)",
	    "INSERT INTO chunks_fts(rowid, text, names, path)"
	    " SELECT id, text, names, path FROM chunks_doc"
	    " WHERE id = (SELECT min(id) FROM chunks)",
	    "INSERT INTO chunks_fts(chunks_fts, rank) VALUES('merge', -1)"};
	int rc = 0;

	for (int k = 0; k < 3 && !rc; k++)
		rc = ixt_exec(db, again[k]);
	return rc;
}

/* Puts Python text at rel, chunked at max_size, as a buffer's write does
 * (index_file_put: a commit of its own); dies when it cannot. */
static inline void ixt_put_py(Index *ix, const char *rel, const char *text,
			      uint32_t max_size)
{
	Chunker *ch = chunker_new(max_size);
	uint32_t len = (uint32_t)strlen(text);
	Chunking c;

	if (chunker_run(ch, LANG_PYTHON, text, len, NULL, &c) ||
	    index_file_put(ix, rel, text, len, &c, NULL))
		ixt_die("put", rel);
	chunking_close(&c);
	chunker_delete(ch);
}

/* The real castls binary, from $CASTLS_BIN (CTest sets it), else the
 * one in the build directory. */
static inline const char *ixt_castls_bin(void)
{
	const char *b = getenv("CASTLS_BIN");

	return b && *b ? b : CASTLS_BUILD_DIR "/castls";
}

/* Starts argv (argv[0] is the program path) with stdin from /dev/null and
 * stdout and stderr into the files out_path and err_path. */
static inline pid_t ixt_spawn(char *const argv[], const char *out_path,
			      const char *err_path)
{
	posix_spawn_file_actions_t fa;
	pid_t pid;

	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, out_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_addopen(&fa, 2, err_path,
					 O_WRONLY | O_CREAT | O_TRUNC, 0644);
	errno = posix_spawn(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (errno)
		ixt_die("spawn", argv[0]);
	return pid;
}

/* Waits for pid: its exit status, or 128 + the signal that ended it. */
static inline int ixt_wait(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			ixt_die("waitpid", NULL);
	return WIFEXITED(status) ? WEXITSTATUS(status)
				 : 128 + WTERMSIG(status);
}

/* Runs argv to completion in dir (a scratch directory for its output);
 * returns the exit status and sets *out and *err (caller xfrees). */
static inline int ixt_run(const char *dir, char *const argv[], char **out,
			  char **err)
{
	char *o = ixt_path(dir, "run.out"), *e = ixt_path(dir, "run.err");
	size_t n;
	int status = ixt_wait(ixt_spawn(argv, o, e));

	if (castls_read_file(o, 0, out, &n) || castls_read_file(e, 0, err, &n))
		ixt_die("read output of", argv[0]);
	unlink(o);
	unlink(e);
	xfree(o);
	xfree(e);
	return status;
}

#endif
