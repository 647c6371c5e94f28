/*
 * test_documents.c: bursts of keystrokes against the index rows.
 *
 * The server does not parse on the loop while a document is edited: the
 * worker that writes the index replays the recorded edits on its copy of
 * the tree, and the loop adopts that tree later. These tests send bursts
 * of single-character didChange notifications without waiting for
 * anything, so writes coalesce and trees change hands at arbitrary
 * generations, and then require what a user of the index sees:
 *
 * - the rows of the edited file (spans and chunks, every column but the
 *   row ids) end up equal to those of a fresh `castls index` of the final
 *   text, written to a second workspace;
 * - a request after the burst sees the final text: castls/chunks of the
 *   edited document equals castls/chunks of the same text opened fresh.
 *
 * The bursts mix typing that breaks the syntax (quotes, brackets, colons,
 * typed and taken back with backspace) with permanent, valid edits
 * (comment lines), so the final text parses without errors and differs from both
 * the file on disk and the text first opened.
 */
#include "test.h"

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "chunker/chunker.h"
#include "lsp_client.h"

#define MAX_CHUNK 150	 /* small, so the fixtures give many chunks */
#define ROWS_WAIT_MS 20000
#define POLL_MS 20

static uint64_t rng_state;

static uint32_t rnd(uint32_t n) /* xorshift64*, uniform-ish in [0, n) */
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return n ? (uint32_t)((rng_state * 0x2545F4914F6CDD1DULL) >> 33) % n
		 : 0;
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static char *join(const char *dir, const char *rel)
{
	Buf b = {0};

	buf_printf(&b, "%s/%s", dir, rel);
	return buf_take(&b);
}

/* ---------------------------------------------------------------------- *
 * The model text (ASCII only, so LSP columns are bytes)
 * ---------------------------------------------------------------------- */

static void line_col(const Buf *t, uint32_t off, int *line, int *col)
{
	uint32_t start = 0;

	*line = 0;
	for (uint32_t i = 0; i < off; i++)
		if (t->data[i] == '\n')
			(*line)++, start = i + 1;
	*col = (int)(off - start);
}

static cJSON *position(const Buf *t, uint32_t off)
{
	cJSON *p = cJSON_CreateObject();
	int line, col;

	line_col(t, off, &line, &col);
	cJSON_AddNumberToObject(p, "line", line);
	cJSON_AddNumberToObject(p, "character", col);
	return p;
}

/* Replaces [a, b) of the model by s and sends it as one didChange. */
static void edit(LspClient *c, const char *uri, int *version, Buf *t,
		 uint32_t a, uint32_t b, const char *s)
{
	cJSON *p = cJSON_CreateObject(), *td, *ch, *range;
	Buf next = {0};

	td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddNumberToObject(td, "version", ++*version);
	ch = cJSON_CreateObject();
	range = cJSON_AddObjectToObject(ch, "range");
	cJSON_AddItemToObject(range, "start", position(t, a));
	cJSON_AddItemToObject(range, "end", position(t, b));
	cJSON_AddStringToObject(ch, "text", s);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(p, "contentChanges"), ch);
	lsp_client_notify(c, "textDocument/didChange", p);
	buf_append(&next, t->data, a);
	buf_puts(&next, s);
	buf_append(&next, t->data + b, t->len - b);
	buf_free(t);
	*t = next;
}

/* A byte offset at the start of a line, where a comment line is valid
 * Python whatever follows (the fixtures have no line continuations). */
static uint32_t line_start(const Buf *t)
{
	uint32_t off = rnd((uint32_t)t->len);

	while (off > 0 && t->data[off - 1] != '\n')
		off--;
	return off;
}

/* n bursts of typing: a few characters typed at a random offset, one
 * keystroke each, then taken back with backspace; every fourth burst also
 * adds a comment line for good. */
static void burst(LspClient *c, const char *uri, int *version, Buf *t,
		  int n)
{
	static const char keys[] = "\"'([{:,.x_ 1";

	for (int i = 0; i < n; i++) {
		uint32_t at = rnd((uint32_t)t->len + 1), k = 1 + rnd(4);

		for (uint32_t j = 0; j < k; j++) {
			char key[2] = {keys[rnd(sizeof(keys) - 1)], '\0'};

			edit(c, uri, version, t, at + j, at + j, key);
		}
		for (uint32_t j = k; j-- > 0;)
			edit(c, uri, version, t, at + j, at + j + 1, "");
		if (i % 4 == 3) {
			char line[32];

			snprintf(line, sizeof(line), "# edit %d\n", i);
			at = line_start(t);
			edit(c, uri, version, t, at, at, line);
		}
	}
}

/* ---------------------------------------------------------------------- *
 * Rows
 * ---------------------------------------------------------------------- */

/* The span and chunk rows of path in db, every column but ids, as text;
 * NULL when the file has no rows (yet) or the database is busy. */
static char *rows_of(const char *db, const char *path)
{
	static const char *const sql[] = {
		"SELECT s.kind, s.name, s.qualname, s.start_byte, s.end_byte,"
		" s.start_line, s.end_line, s.header, s.hash,"
		" coalesce(p.qualname, '') FROM spans s JOIN files f ON"
		" f.id = s.file_id LEFT JOIN spans p ON p.id = s.parent_id"
		" WHERE f.path = ?1 ORDER BY s.start_byte, s.end_byte DESC,"
		" s.qualname",
		"SELECT c.kind, c.start_byte, c.end_byte, c.start_line,"
		" c.end_line, c.size, c.hash, c.names, c.text,"
		" coalesce(s.qualname, '') FROM chunks c JOIN files f ON"
		" f.id = c.file_id LEFT JOIN spans s ON s.id = c.span_id"
		" WHERE f.path = ?1 ORDER BY c.start_byte",
	};
	sqlite3 *h;
	Buf out = {0};
	bool ok = true;
	int nchunks = 0;

	if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		sqlite3_close(h);
		return NULL;
	}
	sqlite3_busy_timeout(h, 1000);
	ok = sqlite3_exec(h, "BEGIN", NULL, NULL, NULL) == SQLITE_OK;
	for (size_t q = 0; ok && q < sizeof(sql) / sizeof(*sql); q++) {
		sqlite3_stmt *st;
		int rc;

		if (sqlite3_prepare_v2(h, sql[q], -1, &st, NULL) != SQLITE_OK) {
			ok = false;
			break;
		}
		sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
		buf_puts(&out, q ? "chunks:\n" : "spans:\n");
		while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
			for (int i = 0; i < sqlite3_column_count(st); i++) {
				const char *v = (const char *)
					sqlite3_column_text(st, i);

				buf_printf(&out, "%s%s", i ? " | " : "",
					   v ? v : "NULL");
			}
			buf_puts(&out, "\n");
			nchunks += q == 1;
		}
		ok = rc == SQLITE_DONE;
		sqlite3_finalize(st);
	}
	sqlite3_exec(h, "COMMIT", NULL, NULL, NULL);
	sqlite3_close(h);
	if (!ok || nchunks == 0) {
		buf_free(&out);
		return NULL;
	}
	return buf_take(&out);
}

/* Runs `castls index root --db db --max-size MAX_CHUNK -q`; its status. */
static int index_fresh(const char *root, const char *db)
{
	const char *bin = getenv("CASTLS_BIN");
	char size[16];
	pid_t pid;
	int st;

	if (!bin)
		return -1;
	snprintf(size, sizeof(size), "%d", MAX_CHUNK);
	if ((pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		execl(bin, bin, "index", root, "--db", db, "--max-size", size,
		      "-q", (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Prints the first line where got and want differ. */
static void print_first_difference(const char *got, const char *want)
{
	int line = 1;
	const char *g = got, *w = want;

	while (*g && *g == *w) {
		if (*g == '\n')
			line++;
		g++, w++;
	}
	while (g > got && g[-1] != '\n')
		g--, w--;
	fprintf(stderr, "rows differ at line %d:\n  got:  %.*s\n  want: %.*s\n",
		line, (int)strcspn(g, "\n"), g, (int)strcspn(w, "\n"), w);
}

/* ---------------------------------------------------------------------- *
 * The test
 * ---------------------------------------------------------------------- */

static cJSON *chunks_of(LspClient *c, const char *uri)
{
	cJSON *p = cJSON_CreateObject(), *r, *res;

	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"),
				"uri", uri);
	r = lsp_client_call(c, "castls/chunks", p, LSP_TIMEOUT_MS);
	res = cJSON_DetachItemFromObjectCaseSensitive(r, "result");
	cJSON_Delete(r);
	r = cJSON_DetachItemFromObjectCaseSensitive(res, "chunks");
	cJSON_Delete(res);
	return r;
}

static void open_text(LspClient *c, const char *uri, const char *text)
{
	cJSON *p = cJSON_CreateObject(), *td;

	td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddStringToObject(td, "languageId", "python");
	cJSON_AddNumberToObject(td, "version", 1);
	cJSON_AddStringToObject(td, "text", text);
	lsp_client_notify(c, "textDocument/didOpen", p);
}

/* Starts a server on root with db; NULL (after a failure) if it cannot
 * be initialized. */
static LspClient *start(const char *scratch, const char *root,
			const char *db)
{
	LspClient *c = lsp_client_ready(scratch, root, db, MAX_CHUNK);

	if (!c)
		test_fail(__FILE__, __LINE__, "the server did not start up");
	return c;
}

/* Polls db until the rows of rel equal want. */
static bool wait_rows(const char *db, const char *rel, const char *want)
{
	long long deadline = now_ms() + ROWS_WAIT_MS;
	char *got = NULL;

	for (;;) {
		xfree(got);
		got = rows_of(db, rel);
		if (got && strcmp(got, want) == 0)
			break;
		if (now_ms() > deadline) {
			if (got)
				print_first_difference(got, want);
			xfree(got);
			return test_fail(__FILE__, __LINE__,
					 "the rows of %s never equalled a "
					 "fresh index of the final text", rel);
		}
		usleep(POLL_MS * 1000);
	}
	xfree(got);
	return true;
}

static void run_bursts(uint64_t seed, int rounds, int keys)
{
	char *scratch = lsp_scratch_new("documents");
	char *ws, *ws2, *db, *db2, *path, *path2, *uri, *want = NULL;
	LspClient *c;
	Buf text = {0}, disk = {0};
	int version = 1;

	ASSERT_TRUE(scratch != NULL);
	rng_state = seed;
	ws = join(scratch, "ws");
	ws2 = join(scratch, "fresh");
	db = join(scratch, "index.db");
	db2 = join(scratch, "fresh.db");
	path = join(ws, "edit.py");
	path2 = join(ws2, "edit.py");
	uri = lsp_path_uri(path);
	mkdir(ws, 0755);
	mkdir(ws2, 0755);
	for (int i = 0; i < 2; i++) {
		size_t n;
		char *t = test_read_fixture(i ? "python/class_split.py"
					      : "python/big_function.py",
					    &n);

		buf_append(&text, t, n);
		if (i == 0)
			buf_append(&disk, t, n);
		free(t);
	}
	/* The disk has less than the buffer: rows of the disk file would
	 * not pass for rows of the buffer. */
	lsp_write_file(path, disk.data, disk.len);
	if (!(c = start(scratch, ws, db)))
		goto out;
	open_text(c, uri, text.data);
	for (int r = 0; r < rounds; r++) {
		cJSON *live, *fresh;

		burst(c, uri, &version, &text, keys);
		/* A request right after the burst sees the final text. */
		live = chunks_of(c, uri);
		open_text(c, "untitled:fresh.py", text.data);
		fresh = chunks_of(c, "untitled:fresh.py");
		CHECK_(live && fresh && cJSON_Compare(live, fresh, true),
		       (void)0,
		       "round %d: castls/chunks of the edited document differ "
		       "from those of its text opened fresh", r);
		cJSON_Delete(live);
		cJSON_Delete(fresh);
		/* And the index rows catch up with a fresh index. */
		lsp_write_file(path2, text.data, text.len);
		unlink(db2);
		CHECK_(index_fresh(ws2, db2) == 0, break,
		       "castls index %s failed", ws2);
		xfree(want);
		want = rows_of(db2, "edit.py");
		CHECK_(want != NULL, break, "no rows in the fresh index");
		if (!wait_rows(db, "edit.py", want))
			break;
	}
	lsp_client_request(c, "shutdown", NULL);
	lsp_client_notify(c, "exit", NULL);
	EXPECT_INT_EQ(lsp_client_wait_exit(c, LSP_TIMEOUT_MS), 0);
	CHECK_(!lsp_client_sanitizer_report(c), (void)0,
	       "sanitizer report:\n%s", lsp_client_stderr(c));
	lsp_client_delete(c);
out:
	xfree(want);
	buf_free(&text);
	buf_free(&disk);
	xfree(uri);
	xfree(path);
	xfree(path2);
	xfree(db);
	xfree(db2);
	xfree(ws);
	xfree(ws2);
	lsp_scratch_remove(scratch);
}

TEST(documents_burst_rows_equal_fresh_index)
{
	const char *env_seed = getenv("CASTLS_EDIT_SEED");

	run_bursts(env_seed ? strtoull(env_seed, NULL, 0) : 20250101, 6, 40);
}

/* One keystroke at a time, each followed at once by a request: the loop
 * reparses for the request while the worker reparses for the index. */
TEST(documents_requests_between_keystrokes)
{
	const char *env_seed = getenv("CASTLS_EDIT_SEED");

	run_bursts(env_seed ? strtoull(env_seed, NULL, 0) : 777, 30, 1);
}
