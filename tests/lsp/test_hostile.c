/*
 * test_hostile.c: the server against a client and a workspace that try
 * to lead it out of its roots, block it or make it send what a strict
 * client rejects, over pipes to the real binary.
 *
 * - Paths: a document named through "..", "%2e%2e" or a symlink out of
 *   the root is served from its buffer only; its file outside is never
 *   read, indexed or returned. "./", "//" and "x/../" name one file,
 *   which the index holds once. A root of "/" gives "file:///" URIs.
 *   With no root at all, every buffer is served alone.
 * - Pipes: a FIFO opened and closed as a document blocks nothing.
 *
 * Writes to the index happen on workers, one after another; a test that
 * must know the earlier ones are done opens and closes a file with a
 * marker word and waits until castls/search finds it (settle()).
 */
#include "test.h"

#include <limits.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/base.h"
#include "lsp_client.h"

#define SETTLE_MS 20000

typedef struct {
	char *scratch; /* its real path: the server's paths are real */
	char *root, *db;
	LspClient *c;
} Srv;

static char *join(const char *dir, const char *rel)
{
	Buf b = {0};

	buf_printf(&b, "%s/%s", dir, rel);
	return buf_take(&b);
}

static long long now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Writes text to root/rel, making its directory. */
static void put(const char *root, const char *rel, const char *text)
{
	char *p = join(root, rel), *slash = strrchr(p, '/');

	*slash = '\0';
	mkdir(p, 0755);
	*slash = '/';
	if (lsp_write_file(p, text, strlen(text)) != 0)
		test_fail(__FILE__, __LINE__, "cannot write %s", p);
	xfree(p);
}

static bool wait_indexed(Srv *s) { return lsp_client_wait_indexed(s->c); }

/* A scratch directory with an empty root in it, for the files the test
 * puts there before the server starts. */
static bool srv_make(Srv *s, const char *tag)
{
	char real[PATH_MAX], *made = lsp_scratch_new(tag);

	memset(s, 0, sizeof(*s));
	if (!made || !realpath(made, real)) {
		xfree(made);
		return false;
	}
	xfree(made);
	s->scratch = xstrdup(real);
	s->root = join(s->scratch, "root");
	s->db = join(s->scratch, "index.db");
	return mkdir(s->root, 0755) == 0;
}

/* Starts a server with its database in the scratch directory, on root
 * (a URI; NULL: s->root), with init_options (taken; may be NULL), and
 * waits for its first scan. */
static bool srv_start_at(Srv *s, const char *root_uri, cJSON *init_options)
{
	const char *args[] = {"serve", "--db", NULL, NULL};
	cJSON *p, *r;
	bool ok;

	args[2] = s->db;
	if (!(s->c = lsp_client_start(s->scratch, args))) {
		cJSON_Delete(init_options);
		return false;
	}
	p = cJSON_CreateObject();
	if (root_uri) {
		cJSON_AddStringToObject(p, "rootUri", root_uri);
	} else {
		char *u = lsp_path_uri(s->root);

		cJSON_AddStringToObject(p, "rootUri", u);
		xfree(u);
	}
	cJSON_AddObjectToObject(p, "capabilities");
	if (init_options)
		cJSON_AddItemToObject(p, "initializationOptions", init_options);
	r = lsp_client_call(s->c, "initialize", p, LSP_TIMEOUT_MS);
	ok = r && cJSON_HasObjectItem(r, "result");
	cJSON_Delete(r);
	return ok &&
	       lsp_client_notify(s->c, "initialized", cJSON_CreateObject()) ==
		   0 &&
	       wait_indexed(s);
}

/* Ends the session as a client should; the server must exit 0 within
 * the timeout, with clean output and no sanitizer report. */
static void srv_stop(Srv *s)
{
	if (s->c) {
		int code;
		const char *oe;

		lsp_client_request(s->c, "shutdown", NULL);
		lsp_client_notify(s->c, "exit", NULL);
		code = lsp_client_wait_exit(s->c, LSP_TIMEOUT_MS);
		CHECK_(code == 0, (void)0,
		       "the server did not exit after shutdown/exit (%d)",
		       code);
		oe = lsp_client_output_error(s->c);
		CHECK_(!oe, (void)0, "malformed server output: %s", oe);
		CHECK_(!lsp_client_sanitizer_report(s->c), (void)0,
		       "sanitizer report:\n%s", lsp_client_stderr(s->c));
		lsp_client_delete(s->c);
	}
	xfree(s->root);
	xfree(s->db);
	lsp_scratch_remove(s->scratch);
	memset(s, 0, sizeof(*s));
}

static void open_lang(Srv *s, const char *uri, const char *lang,
		      const char *text)
{
	cJSON *p = cJSON_CreateObject(), *td;

	td = cJSON_AddObjectToObject(p, "textDocument");
	cJSON_AddStringToObject(td, "uri", uri);
	cJSON_AddStringToObject(td, "languageId", lang);
	cJSON_AddNumberToObject(td, "version", 1);
	cJSON_AddStringToObject(td, "text", text);
	lsp_client_notify(s->c, "textDocument/didOpen", p);
}

static void open_doc(Srv *s, const char *uri, const char *text)
{
	open_lang(s, uri, "python", text);
}

static void close_doc(Srv *s, const char *uri)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"),
				"uri", uri);
	lsp_client_notify(s->c, "textDocument/didClose", p);
}

/* The result of castls/search for query (the caller deletes it). */
static cJSON *search(Srv *s, const char *query)
{
	cJSON *p = cJSON_CreateObject(), *r, *res;

	cJSON_AddStringToObject(p, "query", query);
	cJSON_AddNumberToObject(p, "limit", 50);
	r = lsp_client_call(s->c, "castls/search", p, LSP_TIMEOUT_MS);
	res = cJSON_DetachItemFromObjectCaseSensitive(r, "result");
	cJSON_Delete(r);
	return res;
}

static cJSON *items_of(const cJSON *res)
{
	return cJSON_GetObjectItemCaseSensitive(res, "items");
}

/* Items of res whose text contains word. */
static int items_with(const cJSON *res, const char *word)
{
	const cJSON *it;
	int n = 0;

	cJSON_ArrayForEach(it, items_of(res)) {
		const char *t = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(it, "text"));

		n += t && strstr(t, word) != NULL;
	}
	return n;
}

/* Waits until every index write the server was given so far is done:
 * the writes run in order, so once a file opened and closed after them
 * can be found, they are. word must be new to the index. */
static bool settle(Srv *s, const char *word)
{
	Buf text = {0};
	char *uri, *path = join(s->root, "settle.py");
	bool found = false;

	buf_printf(&text, "def %s():\n    return 1\n", word);
	put(s->root, "settle.py", text.data);
	uri = lsp_path_uri(path);
	open_doc(s, uri, text.data);
	close_doc(s, uri);
	for (long long end = now_ms() + SETTLE_MS; !found && now_ms() < end;) {
		cJSON *res = search(s, word);

		found = items_with(res, word) > 0;
		cJSON_Delete(res);
		if (!found)
			usleep(50 * 1000);
	}
	buf_free(&text);
	xfree(uri);
	xfree(path);
	if (!found)
		test_fail(__FILE__, __LINE__,
			  "index writes did not finish: %s never found", word);
	return found;
}

/* The files table of the server's database, one path a line. */
static char *indexed_paths(Srv *s)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	Buf b = {0};

	if (sqlite3_open_v2(s->db, &db, SQLITE_OPEN_READONLY, NULL) ==
		SQLITE_OK &&
	    sqlite3_prepare_v2(db, "SELECT path FROM files ORDER BY path", -1,
			       &st, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, 2000);
		while (sqlite3_step(st) == SQLITE_ROW)
			buf_printf(&b, "%s\n", sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	if (!b.data)
		buf_puts(&b, "");
	return buf_take(&b);
}

/* ---------------------------------------------------------------------- *
 * Paths
 * ---------------------------------------------------------------------- */

/* didOpen then didClose of a file outside the root, named through "..",
 * "%2e%2e" or an in-root symlink: on close the server read the real file
 * and indexed it under that name, and search returned its secret. The
 * last link dangles at the open; its target appears before the close. */
TEST(hostile_outside_root_is_never_read_or_served)
{
	Srv s;
	char *outside, *secret, *link, *later, *dangling, *uris[4], *rows;
	Buf b = {0};
	cJSON *res;

	ASSERT_TRUE(srv_make(&s, "outside"));
	outside = join(s.scratch, "outside");
	put(s.scratch, "outside/secret.py", "API_KEY = \"sekrit123\"\n");
	put(s.root, "pkg/app.py", "def app():\n    return API_KEY\n");
	secret = join(outside, "secret.py");
	link = join(s.root, "link.py");
	later = join(outside, "later.py");
	dangling = join(s.root, "dangling.py");
	CHECK_(symlink(secret, link) == 0, (void)0, "symlink");
	CHECK_(symlink(later, dangling) == 0, (void)0, "symlink");
	CHECK_(srv_start_at(&s, NULL, NULL), goto out, "no server");
	buf_printf(&b, "file://%s/../outside/secret.py", s.root);
	uris[0] = buf_take(&b);
	buf_printf(&b, "file://%s/%%2e%%2e/outside/secret.py", s.root);
	uris[1] = buf_take(&b);
	uris[2] = lsp_path_uri(link);
	uris[3] = lsp_path_uri(dangling);
	for (int i = 0; i < 4; i++) {
		cJSON *p = cJSON_CreateObject(), *r;

		open_doc(&s, uris[i], "x = 1\n");
		/* Served from the buffer while open. */
		cJSON_AddStringToObject(
		    cJSON_AddObjectToObject(p, "textDocument"), "uri", uris[i]);
		r = lsp_client_call(s.c, "castls/chunks", p, LSP_TIMEOUT_MS);
		CHECK_(r && cJSON_HasObjectItem(r, "result"), (void)0,
		       "castls/chunks of %s failed", uris[i]);
		cJSON_Delete(r);
		if (i == 3)
			put(outside, "later.py", "LATER = \"sekrit123\"\n");
		close_doc(&s, uris[i]);
	}
	settle(&s, "settle_outside_marker");
	res = search(&s, "API_KEY sekrit123");
	EXPECT_INT_EQ(items_with(res, "sekrit123"), 0);
	cJSON_Delete(res);
	rows = indexed_paths(&s);
	EXPECT_STR_EQ(rows, "pkg/app.py\nsettle.py\n");
	xfree(rows);
	for (int i = 0; i < 4; i++)
		xfree(uris[i]);
out:
	xfree(dangling);
	xfree(later);
	xfree(link);
	xfree(secret);
	xfree(outside);
	srv_stop(&s);
}

/* "./", "//" and "x/../" are one file: each opening added its rows
 * again, and search returned the file four times. */
TEST(hostile_noncanonical_uris_make_one_row)
{
	static const char *const forms[] = {
	    "%s/./pkg/report.py",
	    "%s//pkg//report.py",
	    "%s/pkg/../pkg/report.py",
	    "%s/pkg/./../pkg/report.py",
	};
	Srv s;
	char *rows, *canon, *path;
	cJSON *res;
	const cJSON *it;

	ASSERT_TRUE(srv_make(&s, "canonical"));
	put(s.root, "pkg/report.py",
	    "def report_totals():\n    return 'quarterly'\n");
	path = join(s.root, "pkg/report.py");
	canon = lsp_path_uri(path);
	CHECK_(srv_start_at(&s, NULL, NULL), goto out, "no server");
	for (size_t i = 0; i < sizeof(forms) / sizeof(*forms); i++) {
		Buf path_form = {0}, uri = {0};

		buf_printf(&path_form, forms[i], s.root);
		buf_printf(&uri, "file://%s", path_form.data);
		open_doc(&s, uri.data,
			 "def report_totals():\n    return 'live'\n");
		close_doc(&s, uri.data);
		buf_free(&uri);
		buf_free(&path_form);
	}
	settle(&s, "settle_canonical_marker");
	res = search(&s, "report_totals quarterly");
	EXPECT_INT_EQ(cJSON_GetArraySize(items_of(res)), 1);
	cJSON_ArrayForEach(it, items_of(res))
		EXPECT_STR_EQ(cJSON_GetStringValue(
				  cJSON_GetObjectItemCaseSensitive(it, "uri")),
			      canon);
	cJSON_Delete(res);
	rows = indexed_paths(&s);
	EXPECT_STR_EQ(rows, "pkg/report.py\nsettle.py\n");
	xfree(rows);
out:
	xfree(canon);
	xfree(path);
	srv_stop(&s);
}

/* A root of "/" (its scan kept to nothing by an exclude): the URIs of
 * results came back as "file:////tmp/...". */
TEST(hostile_root_slash_gives_plain_uris)
{
	Srv s;
	cJSON *opts = cJSON_CreateObject(), *res, *p, *r;
	char *path, *uri;
	const cJSON *it;
	int n = 0;

	cJSON_AddItemToArray(cJSON_AddArrayToObject(opts, "exclude"),
			     cJSON_CreateString("/*"));
	ASSERT_TRUE(srv_make(&s, "rootslash"));
	CHECK_(srv_start_at(&s, "file:///", opts), goto out, "no server");
	path = join(s.root, "slash.py");
	uri = lsp_path_uri(path);
	put(s.root, "slash.py", "def slash_rooted_function():\n    pass\n");
	open_doc(&s, uri, "def slash_rooted_function():\n    pass\n");
	close_doc(&s, uri);
	settle(&s, "settle_slash_marker");
	res = search(&s, "slash_rooted_function");
	cJSON_ArrayForEach(it, items_of(res)) {
		const char *t = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(it, "text"));

		if (!t || !strstr(t, "slash_rooted_function"))
			continue;
		EXPECT_STR_EQ(cJSON_GetStringValue(
				  cJSON_GetObjectItemCaseSensitive(it, "uri")),
			      uri);
		n++;
	}
	EXPECT_INT_EQ(n, 1);
	cJSON_Delete(res);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "query", "slash_rooted_function");
	r = lsp_client_call(s.c, "workspace/symbol", p, LSP_TIMEOUT_MS);
	n = 0;
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(r, "result")) {
		EXPECT_STR_EQ(cJSON_GetStringValue(
				  cJSON_GetObjectItemCaseSensitive(
				      cJSON_GetObjectItemCaseSensitive(
					  it, "location"),
				      "uri")),
			      uri);
		n++;
	}
	EXPECT_INT_EQ(n, 1);
	cJSON_Delete(r);
	xfree(uri);
	xfree(path);
out:
	srv_stop(&s);
}

/* Line 27 (0-based 26): "    total = sum(celsius_to_kelvin(v) ...". */
#define ROOTLESS_APP                                                   \
	"\"\"\"Loose helpers, in no project.\"\"\"\n\n\n"              \
	"def celsius_to_kelvin(celsius):\n"                            \
	"    return celsius + 273.15\n\n\n"                            \
	"def describe(reading):\n"                                     \
	"    place, value = reading\n"                                 \
	"    text = place.strip().title()\n"                           \
	"    text = text + ': '\n"                                     \
	"    text = text + str(round(value, 1))\n"                     \
	"    rate = exchange_rate('EUR')\n"                            \
	"    return text\n\n\n"                                        \
	"def report(readings):\n"                                      \
	"    lines = [describe(r) for r in readings]\n"                \
	"    warmest = max(readings, key=lambda r: r[1])\n"            \
	"    coldest = min(readings, key=lambda r: r[1])\n"            \
	"    lines.append('warmest: ' + describe(warmest))\n"          \
	"    lines.append('coldest: ' + describe(coldest))\n"          \
	"    lines.append('rate: ' + str(exchange_rate('EUR')))\n"     \
	"    lines.append('count: ' + str(len(readings)))\n"           \
	"    lines.sort()\n"                                           \
	"    lines.reverse()\n"                                        \
	"    total = sum(celsius_to_kelvin(v) for _, v in readings)\n" \
	"    return lines, total\n"

/* No workspace at all (rootUri and workspaceFolders null: Neovim and
 * Emacs for a file in no project, VS Code with no folder): each buffer is
 * served alone. Its own definitions rank; nothing is read from disk (the
 * file beside it is not found), no index is made, and closing the
 * buffer writes nothing. */
TEST(hostile_no_root_serves_buffers_alone)
{
	const char *args[] = {"serve", "--db", NULL, NULL};
	const char *item_uri;
	Srv s;
	cJSON *p, *r, *res, *ctx;
	char *app = NULL, *uri = NULL, *cache = NULL;
	const cJSON *it, *st;
	struct stat sb;
	bool own = false, neighbour = false;

	ASSERT_TRUE(srv_make(&s, "rootless"));
	put(s.root, "rates.py",
	    "def exchange_rate(currency):\n"
	    "    return NEIGHBOUR_RATE\n");
	put(s.root, "app.py", ROOTLESS_APP);
	app = join(s.root, "app.py");
	uri = lsp_path_uri(app);
	cache = join(s.scratch, "cache/castls");
	args[2] = s.db;
	CHECK_((s.c = lsp_client_start(s.scratch, args)) != NULL, goto out,
	       "no server");
	p = cJSON_Parse("{\"processId\":null,\"rootUri\":null,"
			"\"rootPath\":null,\"workspaceFolders\":null,"
			"\"capabilities\":{}}");
	r = lsp_client_call(s.c, "initialize", p, LSP_TIMEOUT_MS);
	CHECK_(r && cJSON_HasObjectItem(r, "result"), goto out,
	       "initialize failed");
	cJSON_Delete(r);
	lsp_client_notify(s.c, "initialized", cJSON_CreateObject());
	open_doc(&s, uri, ROOTLESS_APP);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"),
				"uri", uri);
	cJSON_AddItemToObject(p, "position",
			      cJSON_Parse("{\"line\":26,\"character\":30}"));
	r = lsp_client_call(s.c, "castls/context", p, LSP_TIMEOUT_MS);
	ctx = cJSON_GetObjectItemCaseSensitive(r, "result");
	CHECK_(ctx != NULL, goto out, "castls/context failed");
	EXPECT_TRUE(
	    cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(ctx, "indexing")));
	cJSON_ArrayForEach(it, items_of(ctx))
	{
		item_uri = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(it, "uri"));
		own |=
		    item_uri && strcmp(item_uri, uri) == 0 &&
		    strcmp(cJSON_GetStringValue(
			       cJSON_GetObjectItemCaseSensitive(it, "symbol")),
			   "celsius_to_kelvin") == 0;
		neighbour |= item_uri && strcmp(item_uri, uri) != 0;
	}
	if (!own) {
		char *got = cJSON_PrintUnformatted(ctx);

		test_fail(__FILE__, __LINE__,
			  "the buffer's own definition is not in: %s", got);
		cJSON_free(got);
	}
	EXPECT_TRUE(!neighbour);
	cJSON_Delete(r);
	res = search(&s, "exchange_rate NEIGHBOUR_RATE");
	EXPECT_INT_EQ(cJSON_GetArraySize(items_of(res)), 0);
	cJSON_Delete(res);
	close_doc(&s, uri);
	r = lsp_client_call(s.c, "castls/status", NULL, LSP_TIMEOUT_MS);
	st = cJSON_GetObjectItemCaseSensitive(r, "result");
	EXPECT_INT_EQ(
	    cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(st, "roots")),
	    0);
	EXPECT_INT_EQ(
	    cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(st, "files")),
	    0);
	cJSON_Delete(r);
	CHECK_(stat(s.db, &sb) != 0, (void)0, "a database was made: %s", s.db);
	CHECK_(stat(cache, &sb) != 0, (void)0, "a cache was made: %s", cache);
out:
	xfree(cache);
	xfree(uri);
	xfree(app);
	srv_stop(&s);
}

/* ---------------------------------------------------------------------- *
 * Pipes
 * ---------------------------------------------------------------------- */

/* A FIFO named like a source file, opened and closed: the close read it
 * from disk and blocked a worker in open() for good, so no later buffer
 * of the root was indexed and the server never exited. */
TEST(hostile_fifo_document_blocks_nothing)
{
	Srv s;
	char *fifo, *uri;

	ASSERT_TRUE(srv_make(&s, "fifo"));
	CHECK_(srv_start_at(&s, NULL, NULL), goto out, "no server");
	fifo = join(s.root, "pipe.py");
	ASSERT_INT_EQ(mkfifo(fifo, 0600), 0);
	uri = lsp_path_uri(fifo);
	open_doc(&s, uri, "y = 2\n");
	close_doc(&s, uri);
	EXPECT_TRUE(settle(&s, "settle_after_fifo_marker"));
	xfree(uri);
	xfree(fifo);
out:
	srv_stop(&s);
}

/* ---------------------------------------------------------------------- *
 * Bytes
 * ---------------------------------------------------------------------- */

/* True when every string (and key) in j is well-formed UTF-8; names the
 * first that is not. */
static bool all_utf8(const cJSON *j, const char *what)
{
	const cJSON *c;

	if (j->string && utf8_valid_prefix(j->string, strlen(j->string)) !=
			     strlen(j->string))
		return test_fail(__FILE__, __LINE__, "%s: key %s not UTF-8",
				 what, j->string);
	if (cJSON_IsString(j) &&
	    utf8_valid_prefix(j->valuestring, strlen(j->valuestring)) !=
		strlen(j->valuestring))
		return test_fail(__FILE__, __LINE__, "%s: \"%s\" not UTF-8",
				 what, j->valuestring);
	cJSON_ArrayForEach(c, j) if (!all_utf8(c, what)) return false;
	return true;
}

/* Opens uri with text as raw bytes, as a sloppy client might send them
 * (JSON allows no invalid UTF-8, but a parser may take it). text must
 * need no escaping but for its line breaks. */
static void open_raw(Srv *s, const char *uri, const char *text)
{
	Buf body = {0}, msg = {0};

	buf_printf(&body, "{\"jsonrpc\":\"2.0\",\"method\":"
			  "\"textDocument/didOpen\",\"params\":{"
			  "\"textDocument\":{\"uri\":\"%s\",\"languageId\":"
			  "\"python\",\"version\":1,\"text\":\"",
		   uri);
	for (const char *p = text; *p; p++)
		buf_puts(&body, *p == '\n' ? "\\n" : (char[]){*p, '\0'});
	buf_puts(&body, "\"}}}");
	buf_printf(&msg, "Content-Length: %zu\r\n\r\n", body.len);
	buf_append(&msg, body.data, body.len);
	lsp_client_send_raw(s->c, msg.data, msg.len);
	buf_free(&body);
	buf_free(&msg);
}

/* A request whose reply must be valid UTF-8 throughout; returns its
 * result (the caller deletes it). Takes params. */
static cJSON *call_utf8(Srv *s, const char *method, cJSON *params)
{
	cJSON *r = lsp_client_call(s->c, method, params, LSP_TIMEOUT_MS);
	cJSON *res = cJSON_DetachItemFromObjectCaseSensitive(r, "result");

	CHECK_(res != NULL, (void)0, "%s: no result", method);
	if (r)
		all_utf8(r, method);
	if (res)
		all_utf8(res, method);
	cJSON_Delete(r);
	return res;
}

static cJSON *doc_params(const char *uri)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(cJSON_AddObjectToObject(p, "textDocument"),
				"uri", uri);
	return p;
}

/* Files with invalid UTF-8 and with a NUL past the binary check: the
 * replies copied the raw bytes into JSON strings ("def caf\xe9():") and
 * cut text at the NUL. Every string must be valid UTF-8, each invalid
 * byte and each NUL one U+FFFD, and positions counted as before. */
TEST(hostile_invalid_utf8_and_nul_in_replies)
{
	Srv s;
	Buf nul = {0};
	char *live_path, *live, *use_path, *use;
	cJSON *res, *p;
	const cJSON *it;
	int n = 0;

	ASSERT_TRUE(srv_make(&s, "utf8"));
	put(s.root, "latin1.py",
	    "def caf\xe9():\n    return 'na\xefve'\n\n"
	    "class B\xe4r:\n    \"\"\"Ein B\xe4r.\"\"\"\n    pass\n");
	put(s.root, "notes.md", "# Caf\xe9 menu\n\nCoffee.\n");
	/* Past the first 8 KiB, which the binary check looks at. */
	for (int i = 0; i < 300; i++)
		buf_printf(&nul, "# padding line %03d of the nul fixture\n", i);
	buf_puts(&nul, "def after_nul_marker():\n    return '");
	buf_append(&nul, "\0", 1);
	buf_puts(&nul, "' + 'tail_after_nul'\n");
	{
		char *path = join(s.root, "nul.py");

		lsp_write_file(path, nul.data, nul.len);
		xfree(path);
	}
	CHECK_(srv_start_at(&s, NULL, NULL), goto out, "no server");
	live_path = join(s.root, "live.py");
	live = lsp_path_uri(live_path);
	use_path = join(s.root, "use.py");
	use = lsp_path_uri(use_path);

	/* documentSymbol of a buffer holding an invalid byte. */
	open_raw(&s, live, "def caf\xe9(): return 1\n");
	res = call_utf8(&s, "textDocument/documentSymbol", doc_params(live));
	it = cJSON_GetArrayItem(res, 0);
	EXPECT_STR_EQ(cJSON_GetStringValue(
			  cJSON_GetObjectItemCaseSensitive(it, "detail")),
		      "def caf\xEF\xBF\xBD():");
	/* The body starts at "return": UTF-16 unit 12, the invalid byte
	 * one unit, as its U+FFFD is. */
	EXPECT_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
			  cJSON_GetObjectItemCaseSensitive(
			      cJSON_GetObjectItemCaseSensitive(
				  it, "selectionRange"),
			      "end"),
			  "character")),
		      12);
	cJSON_Delete(res);

	/* workspace/symbol and castls/search over the indexed files. */
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "query", "caf");
	res = call_utf8(&s, "workspace/symbol", p);
	cJSON_ArrayForEach(it, res) n += strcmp(cJSON_GetStringValue(
		cJSON_GetObjectItemCaseSensitive(it, "name")),
		"Caf\xEF\xBF\xBD menu") == 0;
	EXPECT_INT_EQ(n, 1);
	cJSON_Delete(res);
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "query", "caf naive return");
	cJSON_Delete(call_utf8(&s, "castls/search", p));
	p = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "query", "after_nul_marker tail_after_nul");
	res = call_utf8(&s, "castls/search", p);
	n = 0;
	cJSON_ArrayForEach(it, items_of(res)) {
		const char *t = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(it, "text"));

		n += t && strstr(t, "return '\xEF\xBF\xBD' + 'tail_after_nul'");
	}
	EXPECT_INT_EQ(n, 1);
	cJSON_Delete(res);

	/* castls/context at a call of the function in latin1.py. */
	open_doc(&s, use, "from latin1 import caf\n\n"
			  "def use():\n    return caf()\n");
	p = doc_params(use);
	{
		cJSON *pos = cJSON_AddObjectToObject(p, "position");

		cJSON_AddNumberToObject(pos, "line", 3);
		cJSON_AddNumberToObject(pos, "character", 14);
	}
	res = call_utf8(&s, "castls/context", p);
	EXPECT_TRUE(cJSON_GetArraySize(items_of(res)) > 0);
	cJSON_Delete(res);

	xfree(use);
	xfree(use_path);
	xfree(live);
	xfree(live_path);
out:
	buf_free(&nul);
	srv_stop(&s);
}

/* ---------------------------------------------------------------------- *
 * Size
 * ---------------------------------------------------------------------- */

#define LONG_LINE_BYTES (2u << 20)
#define LONG_LINE_LIMIT_MS 45000

/* A text of one line of n bytes, "var a=1;" over and over. */
static char *one_line(size_t n)
{
	char *t = xmalloc(n + 1);

	for (size_t i = 0; i < n; i++)
		t[i] = "var a=1;"[i % 8];
	t[n] = '\0';
	return t;
}

static cJSON *call_doc(Srv *s, const char *method, const char *uri,
		       int timeout_ms)
{
	return lsp_client_call(s->c, method, doc_params(uri), timeout_ms);
}

/* castls/chunks of a file of one long line converted each chunk's
 * bounds by walking from the line's start: a 16 MB line kept a worker
 * busy for over a minute. With 50-character chunks a 2 MB line has
 * some 36,000 of them; the reply must come in linear time. A buffer
 * over maxFileSize is refused at once, with the reason. */
TEST(hostile_long_line_chunks_in_linear_time)
{
	Srv s;
	cJSON *opts = cJSON_CreateObject(), *r;
	const cJSON *chunks, *last, *err;
	char *text = one_line(LONG_LINE_BYTES), *big;
	long long t0;
	const char *msg;

	cJSON_AddNumberToObject(opts, "maxChunkSize", 50);
	cJSON_AddNumberToObject(opts, "maxFileSize", LONG_LINE_BYTES + 1000);
	ASSERT_TRUE(srv_make(&s, "longline"));
	CHECK_(srv_start_at(&s, NULL, opts), goto out, "no server");
	open_lang(&s, "untitled:long.js", "javascript", text);
	t0 = now_ms();
	r = call_doc(&s, "castls/chunks", "untitled:long.js",
		     LONG_LINE_LIMIT_MS);
	CHECK_(r != NULL, goto out,
	       "castls/chunks of a %u-byte line took over %d ms",
	       LONG_LINE_BYTES, LONG_LINE_LIMIT_MS);
	fprintf(stderr, "castls/chunks of a %u-byte line: %lld ms\n",
		LONG_LINE_BYTES, now_ms() - t0);
	chunks = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(r, "result"), "chunks");
	EXPECT_TRUE(cJSON_GetArraySize(chunks) > 30000);
	last = cJSON_GetArrayItem(chunks, cJSON_GetArraySize(chunks) - 1);
	EXPECT_INT_EQ(cJSON_GetNumberValue(cJSON_GetObjectItemCaseSensitive(
			  cJSON_GetObjectItemCaseSensitive(
			      cJSON_GetObjectItemCaseSensitive(last, "range"),
			      "end"),
			  "character")),
		      LONG_LINE_BYTES);
	cJSON_Delete(r);

	/* Over the limit: refused, saying why, for both requests. */
	big = one_line(LONG_LINE_BYTES + 2000);
	open_lang(&s, "untitled:big.js", "javascript", big);
	xfree(big);
	for (int i = 0; i < 2; i++) {
		r = call_doc(&s, i ? "textDocument/documentSymbol"
				   : "castls/chunks",
			     "untitled:big.js", 2000);
		err = cJSON_GetObjectItemCaseSensitive(r, "error");
		msg = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(err, "message"));
		CHECK_(msg && strstr(msg, "maxFileSize"), (void)0,
		       "a buffer over maxFileSize was not refused with a "
		       "reason (%s)", msg ? msg : "no error");
		cJSON_Delete(r);
	}
out:
	xfree(text);
	srv_stop(&s);
}

#define BIG_MAX_FILE (64u * 1024u)
#define BIG_FUNCS 2500

/* A Python file of BIG_FUNCS functions (about 150 KB), whose last line
 * calls the first: "    return first_function(3)", with no newline. */
static char *big_python(void)
{
	Buf b = {0};

	buf_puts(&b, "def first_function(n):\n    return n * 2\n\n\n");
	for (int i = 0; i < BIG_FUNCS; i++)
		buf_printf(&b,
			   "def filler_%d(a, b):\n    c = a + b + %d\n"
			   "    return c * c\n\n\n",
			   i, i);
	buf_puts(&b, "def main():\n    return first_function(3)");
	return buf_take(&b);
}

/* A buffer over maxFileSize, open in the editor: it was indexed (spans
 * 10,253 -> 50,254 in the issue), stayed in the index after it was
 * closed, and each context on it took seconds. It is served from memory
 * only: the context on it answers, with its own definitions, while the
 * index never holds it, through edits and after it is closed. */
TEST(hostile_buffer_over_max_file_size_stays_out_of_the_index)
{
	Srv s;
	cJSON *opts, *p, *r, *ch, *range;
	const cJSON *res, *it;
	char *big = big_python(), *path = NULL, *uri = NULL, *rows;
	int lines = (int)castls_count_newlines(big, (uint32_t)strlen(big));
	bool own;

	ASSERT_TRUE(srv_make(&s, "overmax"));
	CHECK_(strlen(big) > 2 * BIG_MAX_FILE, goto out, "too small");
	opts = cJSON_CreateObject();
	cJSON_AddNumberToObject(opts, "maxFileSize", BIG_MAX_FILE);
	put(s.root, "small.py", "def small():\n    return 1\n");
	put(s.root, "big.py", big);
	CHECK_(srv_start_at(&s, NULL, opts), goto out, "no server");
	path = join(s.root, "big.py");
	uri = lsp_path_uri(path);
	open_doc(&s, uri, big);
	/* A keystroke, and the request after it. */
	p = cJSON_Parse("{\"textDocument\":{\"version\":2},"
			"\"contentChanges\":[{\"range\":{"
			"\"start\":{\"line\":0,\"character\":0},"
			"\"end\":{\"line\":0,\"character\":0}},"
			"\"text\":\"#\\n\"}]}");
	cJSON_AddStringToObject(
	    cJSON_GetObjectItemCaseSensitive(p, "textDocument"), "uri", uri);
	lsp_client_notify(s.c, "textDocument/didChange", p);
	for (int i = 0; i < 2; i++) {
		p = doc_params(uri);
		cJSON_AddItemToObject(p, "position", cJSON_CreateObject());
		range = cJSON_GetObjectItemCaseSensitive(p, "position");
		cJSON_AddNumberToObject(range, "line", lines + 1); /* "#" */
		cJSON_AddNumberToObject(range, "character", 28);   /* end */
		r = lsp_client_call(s.c, "castls/context", p, LSP_TIMEOUT_MS);
		res = cJSON_GetObjectItemCaseSensitive(r, "result");
		own = false;
		cJSON_ArrayForEach(it, items_of(res))
		{
			ch = cJSON_GetObjectItemCaseSensitive(it, "symbol");
			own |= cJSON_IsString(ch) &&
			       strcmp(ch->valuestring, "first_function") == 0;
		}
		CHECK_(own, (void)0,
		       "context %d on a buffer over maxFileSize: no "
		       "first_function (%s)",
		       i, res ? "a result" : "no result");
		cJSON_Delete(r);
	}
	settle(&s, "settle_overmax_open");
	rows = indexed_paths(&s);
	EXPECT_STR_EQ(rows, "settle.py\nsmall.py\n");
	xfree(rows);
	close_doc(&s, uri);
	settle(&s, "settle_overmax_closed");
	rows = indexed_paths(&s);
	EXPECT_STR_EQ(rows, "settle.py\nsmall.py\n");
	xfree(rows);
out:
	xfree(uri);
	xfree(path);
	xfree(big);
	srv_stop(&s);
}

/* A minified file, which the scan skips, stays out of the index when it
 * is open and edited too: were the buffer's rows written, every scan
 * would delete them and the next write put them back. */
TEST(hostile_minified_buffer_stays_out_of_the_index)
{
	Srv s;
	Buf min = {0};
	char *path = NULL, *uri = NULL, *rows;
	cJSON *p;

	ASSERT_TRUE(srv_make(&s, "minified"));
	for (int i = 0; i < 200; i++)
		buf_printf(&min, "var f%d=function(a){return a+%d};", i, i);
	buf_puts(&min, "\n");
	CHECK_(castls_is_minified(min.data, (uint32_t)min.len), goto out,
	       "the text is not minified");
	put(s.root, "small.py", "def small():\n    return 1\n");
	put(s.root, "bundle.js", min.data);
	CHECK_(srv_start_at(&s, NULL, NULL), goto out, "no server");
	path = join(s.root, "bundle.js");
	uri = lsp_path_uri(path);
	open_doc(&s, uri, min.data);
	p = cJSON_Parse("{\"textDocument\":{\"version\":2},"
			"\"contentChanges\":[{\"range\":{"
			"\"start\":{\"line\":0,\"character\":0},"
			"\"end\":{\"line\":0,\"character\":0}},"
			"\"text\":\"var g=1;\"}]}");
	cJSON_AddStringToObject(
	    cJSON_GetObjectItemCaseSensitive(p, "textDocument"), "uri", uri);
	lsp_client_notify(s.c, "textDocument/didChange", p);
	settle(&s, "settle_minified_open");
	rows = indexed_paths(&s);
	EXPECT_STR_EQ(rows, "settle.py\nsmall.py\n");
	xfree(rows);
	close_doc(&s, uri);
	settle(&s, "settle_minified_closed");
	rows = indexed_paths(&s);
	EXPECT_STR_EQ(rows, "settle.py\nsmall.py\n");
	xfree(rows);
out:
	buf_free(&min);
	xfree(uri);
	xfree(path);
	srv_stop(&s);
}

/* ---------------------------------------------------------------------- *
 * Depth
 * ---------------------------------------------------------------------- */

#define NEST_LEVELS 5000

/* Symbols in the tree under arr, and the deepest level among them. */
static int count_symbols(const cJSON *arr, int level, int *deepest)
{
	const cJSON *sym;
	int n = 0;

	cJSON_ArrayForEach(sym, arr) {
		n++;
		if (level > *deepest)
			*deepest = level;
		n += count_symbols(cJSON_GetObjectItemCaseSensitive(sym,
								    "children"),
				   level + 1, deepest);
	}
	return n;
}

/* Nesting of j in brackets, as the server counts its input's. */
static int json_depth(const cJSON *j)
{
	const cJSON *c;
	int deepest = 0;

	if (!cJSON_IsArray(j) && !cJSON_IsObject(j))
		return 0;
	cJSON_ArrayForEach(c, j) {
		int d = json_depth(c);

		if (d > deepest)
			deepest = d;
	}
	return deepest + 1;
}

static bool is_log_about_depth(const cJSON *msg, void *ctx)
{
	const char *m = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "params"), "message"));

	(void)ctx;
	return m && strstr(m, "documentSymbol") && strstr(m, "deeper than");
}

/* 5,000 nested functions: documentSymbol nested its reply 5,000 levels
 * deep, past what the server accepts (64) and what cJSON parses (1000).
 * Past a named depth the symbols are listed flat, all of them, and the
 * server says so in a log message. */
TEST(hostile_deep_nesting_document_symbol_is_bounded)
{
	Srv s;
	Buf text = {0};
	cJSON *r, *log;
	int deepest = 0, n;

	for (int i = 0; i < NEST_LEVELS; i++)
		buf_printf(&text, "function f%d() {\n", i);
	for (int i = 0; i < NEST_LEVELS; i++)
		buf_puts(&text, "}\n");
	ASSERT_TRUE(srv_make(&s, "nesting"));
	CHECK_(srv_start_at(&s, NULL, NULL), goto out, "no server");
	open_lang(&s, "untitled:nest.js", "javascript", text.data);
	r = call_doc(&s, "textDocument/documentSymbol", "untitled:nest.js",
		     LSP_TIMEOUT_MS);
	CHECK_(r != NULL, goto out, "no readable documentSymbol reply (%s)",
	       lsp_client_output_error(s.c) ? lsp_client_output_error(s.c)
					    : "timeout");
	n = count_symbols(cJSON_GetObjectItemCaseSensitive(r, "result"), 1,
			  &deepest);
	EXPECT_INT_EQ(n, NEST_LEVELS);
	EXPECT_TRUE(deepest >= 20 && deepest <= 30);
	EXPECT_TRUE(json_depth(r) <= 64);
	cJSON_Delete(r);
	log = lsp_client_wait(s.c, is_log_about_depth, NULL, LSP_TIMEOUT_MS);
	EXPECT_TRUE(log != NULL);
	cJSON_Delete(log);
out:
	buf_free(&text);
	srv_stop(&s);
}
