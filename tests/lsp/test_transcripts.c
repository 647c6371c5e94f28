/*
 * test_transcripts.c: replays tests/lsp/transcripts/NAME.txt against the
 * real castls binary, one server per transcript, one TEST per file.
 *
 * A transcript is a list of lines:
 *
 *	# a comment (blank lines are ignored too)
 *	>>> {"id":1,"method":"initialize","params":{...}}
 *	<<< {"id":1,"result":{"capabilities":{"positionEncoding":"utf-16"}}}
 *	>>>raw {this body is sent as it is, not as JSON
 *	::: wait-indexed
 *
 * ">>> JSON" sends one message ("jsonrpc":"2.0" is added to an object that
 * lacks it). ">>>raw TEXT" frames TEXT as the body, byte for byte.
 * "<<< PATTERN" expects a message from the server: with an "id" and no
 * "method" it is the reply to that id (ids compare exactly: 1 is not
 * "1"), else the first message the pattern matches (a notification or a
 * request from the server). Patterns match as subsets, with placeholders
 * ("$any", "$number", "$re:...", ["$contains", ...]): see lsp_json_match
 * in lsp_client.h. A JSON value may continue on the following lines up
 * to the next line starting with ">>>", "<<<", ":::" or "#".
 *
 * In both directions these strings are replaced first: "$rootUri" and
 * "$root" (the workspace copy), "$uri:REL" (the URI of a file in it),
 * "$text:REL" (the text of tests/lsp/workspace/REL).
 *
 * Directives:
 *	::: args ARG...      argv for the server (before the first message;
 *	                     "$db" is the scratch database). Default:
 *	                     serve --db $db
 *	::: wait-indexed     polls castls/status until nothing is indexing
 *	::: sleep MS
 *	::: exit CODE        the server exits by itself, with CODE
 *	::: eof CODE         close its stdin; it exits with CODE
 *
 * At the end every reply the server sent must have been expected (a reply
 * to a notification is a bug), its output must be well framed, and its
 * stderr must hold no sanitizer report.
 */
#include "test.h"

#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "base/base.h"
#include "lsp_client.h"

#define TRANSCRIPT_DIR CASTLS_SOURCE_DIR "/tests/lsp/transcripts"
#define WORKSPACE_DIR CASTLS_SOURCE_DIR "/tests/lsp/workspace"
#define MAX_ARGS 16
#define WAIT_POLL_MS 100

typedef struct {
	const char *file; /* transcript path, for messages */
	int line;	  /* of the current step */
	char *scratch;	  /* owned */
	char *root;	  /* the workspace copy; owned */
	char *db;	  /* owned */
	char *args[MAX_ARGS + 1];
	LspClient *c;
	bool failed;
	bool ended; /* the server has exited */
	int serial; /* ids of our own status polls */
} Run;

static bool step_fail(Run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool step_fail(Run *r, const char *fmt, ...)
{
	char text[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	test_fail(r->file, r->line, "%s", text);
	r->failed = true;
	return false;
}

/* ---------------------------------------------------------------------- *
 * Substitutions
 * ---------------------------------------------------------------------- */

static char *join(const char *dir, const char *rel)
{
	Buf b = {0};

	buf_printf(&b, "%s/%s", dir, rel);
	return buf_take(&b);
}

/* Replaces the special strings in v, recursively. False (with the step
 * failed) when a $text: file is missing. */
static bool substitute(Run *r, cJSON *v)
{
	cJSON *e;

	if (cJSON_IsArray(v) || cJSON_IsObject(v)) {
		cJSON_ArrayForEach(e, v) if (!substitute(r, e)) return false;
		return true;
	}
	if (!cJSON_IsString(v) || v->valuestring[0] != '$')
		return true;
	if (strcmp(v->valuestring, "$rootUri") == 0) {
		char *u = lsp_path_uri(r->root);

		cJSON_SetValuestring(v, u);
		xfree(u);
	} else if (strcmp(v->valuestring, "$root") == 0) {
		cJSON_SetValuestring(v, r->root);
	} else if (strncmp(v->valuestring, "$uri:", 5) == 0) {
		char *p = join(r->root, v->valuestring + 5);
		char *u = lsp_path_uri(p);

		cJSON_SetValuestring(v, u);
		xfree(u);
		xfree(p);
	} else if (strncmp(v->valuestring, "$text:", 6) == 0) {
		Buf path = {0};
		char *text;
		size_t n;
		int err;

		buf_printf(&path, "%s/%s", WORKSPACE_DIR, v->valuestring + 6);
		err = castls_read_file(path.data, 0, &text, &n);
		buf_free(&path);
		if (err)
			return step_fail(r, "no workspace file for %s",
					 v->valuestring);
		cJSON_SetValuestring(v, text);
		xfree(text);
	}
	return true;
}

/* ---------------------------------------------------------------------- *
 * Steps
 * ---------------------------------------------------------------------- */

static bool ensure_started(Run *r)
{
	const char *argv[MAX_ARGS + 1];
	int n = 0;

	if (r->c)
		return true;
	if (r->ended)
		return step_fail(r, "the server has already exited");
	if (!r->args[0]) {
		r->args[0] = xstrdup("serve");
		r->args[1] = xstrdup("--db");
		r->args[2] = xstrdup("$db");
	}
	for (; r->args[n]; n++)
		argv[n] = strcmp(r->args[n], "$db") == 0 ? r->db : r->args[n];
	argv[n] = NULL;
	r->c = lsp_client_start(r->scratch, argv);
	return r->c ? true : step_fail(r, "cannot start the server");
}

static bool step_send(Run *r, const char *json)
{
	cJSON *m = cJSON_Parse(json);
	bool ok;

	if (!m)
		return step_fail(r, "the transcript's JSON does not parse: %s",
				 json);
	if (cJSON_IsObject(m) && !cJSON_HasObjectItem(m, "jsonrpc"))
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	ok = substitute(r, m) && ensure_started(r);
	if (ok && lsp_client_send(r->c, m) != 0)
		ok = step_fail(r, "the server stopped reading its input");
	cJSON_Delete(m);
	return ok;
}

static bool step_send_raw(Run *r, const char *body)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "Content-Length: %zu\r\n\r\n",
			 strlen(body));

	if (!ensure_started(r))
		return false;
	if (lsp_client_send_raw(r->c, head, (size_t)n) ||
	    lsp_client_send_raw(r->c, body, strlen(body)))
		return step_fail(r, "the server stopped reading its input");
	return true;
}

static bool pattern_pred(const cJSON *msg, void *ctx)
{
	return lsp_json_match(ctx, msg, NULL, 0);
}

/* Failure text for a pattern nothing matched: the pattern, and why each
 * queued message (drained first) did not match. */
static bool no_match(Run *r, const cJSON *pattern)
{
	Buf b = {0};
	char why[2048];
	cJSON *m, *kept = cJSON_CreateArray();
	int shown = 0;

	lsp_client_drain(r->c, 50);
	while ((m = lsp_client_pop(r->c))) {
		if (shown++ < 8) {
			lsp_json_match(pattern, m, why, sizeof(why));
			buf_printf(&b, "\n  not it: %s", why);
		}
		cJSON_AddItemToArray(kept, m);
	}
	cJSON_Delete(kept);
	step_fail(r, "no message within %d ms matches the expected one%s",
		  LSP_TIMEOUT_MS, b.data ? b.data : " (nothing arrived)");
	buf_free(&b);
	return false;
}

static bool step_expect(Run *r, const char *json)
{
	cJSON *p = cJSON_Parse(json), *got = NULL;
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(p, "id");
	char why[4096];
	bool ok = true;

	if (!p)
		return step_fail(r, "the transcript's JSON does not parse: %s",
				 json);
	if (!substitute(r, p) || !ensure_started(r)) {
		cJSON_Delete(p);
		return false;
	}
	if (id && !cJSON_HasObjectItem(p, "method")) {
		got = lsp_client_wait_reply(r->c, id, LSP_TIMEOUT_MS);
		if (!got)
			ok = step_fail(r, "no reply within %d ms for %s",
				       LSP_TIMEOUT_MS, json);
		else if (!lsp_json_match(p, got, why, sizeof(why)))
			ok = step_fail(r, "the reply differs %s", why);
	} else {
		got = lsp_client_wait(r->c, pattern_pred, p, LSP_TIMEOUT_MS);
		if (!got)
			ok = no_match(r, p);
	}
	cJSON_Delete(got);
	cJSON_Delete(p);
	return ok;
}

static bool is_poll_reply(const cJSON *msg, void *ctx)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(msg, "id");

	return cJSON_IsString(id) && strcmp(id->valuestring, ctx) == 0 &&
	       !cJSON_HasObjectItem(msg, "method");
}

static bool step_wait_indexed(Run *r)
{
	int tries = LSP_TIMEOUT_MS / WAIT_POLL_MS;

	if (!ensure_started(r))
		return false;
	while (tries-- > 0) {
		char id[32];
		cJSON *m = cJSON_CreateObject(), *got;
		bool busy;

		snprintf(id, sizeof(id), "wait-%d", ++r->serial);
		cJSON_AddStringToObject(m, "jsonrpc", "2.0");
		cJSON_AddStringToObject(m, "id", id);
		cJSON_AddStringToObject(m, "method", "castls/status");
		lsp_client_send(r->c, m);
		cJSON_Delete(m);
		got = lsp_client_wait(r->c, is_poll_reply, id, LSP_TIMEOUT_MS);
		if (!got)
			return step_fail(r, "castls/status got no reply");
		busy = !cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(got, "result"),
		    "indexing"));
		cJSON_Delete(got);
		if (!busy)
			return true;
		usleep(WAIT_POLL_MS * 1000);
	}
	return step_fail(r, "still indexing after %d ms", LSP_TIMEOUT_MS);
}

static bool step_exit(Run *r, const char *arg, bool close_input)
{
	int want = atoi(arg), code;

	if (!ensure_started(r))
		return false;
	if (close_input)
		lsp_client_close_input(r->c);
	code = lsp_client_wait_exit(r->c, LSP_TIMEOUT_MS);
	r->ended = true;
	if (code < 0)
		return step_fail(r, "the server did not exit within %d ms",
				 LSP_TIMEOUT_MS);
	if (code != want)
		return step_fail(r, "exit code %d, expected %d", code, want);
	return true;
}

static bool step_args(Run *r, char *rest)
{
	int n = 0;

	if (r->c)
		return step_fail(r, "::: args after the server started");
	for (char *t = strtok(rest, " \t"); t; t = strtok(NULL, " \t")) {
		if (n == MAX_ARGS)
			return step_fail(r, "too many arguments");
		r->args[n++] = xstrdup(t);
	}
	return true;
}

static bool step_directive(Run *r, char *d)
{
	char *arg = d + strcspn(d, " \t");

	if (*arg)
		*arg++ = '\0';
	while (*arg == ' ' || *arg == '\t')
		arg++;
	if (strcmp(d, "wait-indexed") == 0)
		return step_wait_indexed(r);
	if (strcmp(d, "sleep") == 0) {
		usleep((useconds_t)atoi(arg) * 1000);
		return true;
	}
	if (strcmp(d, "exit") == 0)
		return step_exit(r, arg, false);
	if (strcmp(d, "eof") == 0)
		return step_exit(r, arg, true);
	if (strcmp(d, "args") == 0)
		return step_args(r, arg);
	return step_fail(r, "unknown directive '%s'", d);
}

/* ---------------------------------------------------------------------- *
 * The file
 * ---------------------------------------------------------------------- */

static bool is_step_start(const char *line)
{
	return strncmp(line, ">>>", 3) == 0 || strncmp(line, "<<<", 3) == 0 ||
	       strncmp(line, ":::", 3) == 0 || line[0] == '#';
}

static bool is_blank(const char *s) { return s[strspn(s, " \t\r")] == '\0'; }

/* Runs one step: text (writable) is the whole step, continuation lines
 * included. */
static bool run_step(Run *r, char *text)
{
	char *arg = text + 3;

	if (strncmp(text, ">>>raw ", 7) == 0)
		return step_send_raw(r, text + 7);
	while (*arg == ' ')
		arg++;
	if (strncmp(text, ">>>", 3) == 0)
		return step_send(r, arg);
	if (strncmp(text, "<<<", 3) == 0)
		return step_expect(r, arg);
	if (strncmp(text, ":::", 3) == 0)
		return step_directive(r, arg);
	return step_fail(r, "cannot read this line: %.80s", text);
}

/* What the server sent that nobody expected: replies are errors. */
static void check_leftovers(Run *r)
{
	cJSON *m;

	lsp_client_drain(r->c, 50);
	while ((m = lsp_client_pop(r->c))) {
		if (!cJSON_HasObjectItem(m, "method") &&
		    (cJSON_HasObjectItem(m, "result") ||
		     cJSON_HasObjectItem(m, "error"))) {
			char *t = cJSON_PrintUnformatted(m);

			step_fail(r, "an unexpected reply: %.2000s", t);
			cJSON_free(t);
		}
		cJSON_Delete(m);
	}
}

static void finish(Run *r)
{
	int code;

	if (!r->c)
		return;
	if (!r->ended) {
		code = lsp_client_finish(r->c, LSP_TIMEOUT_MS);
		if (code < 0)
			step_fail(r, "the server did not exit at end of input");
	}
	check_leftovers(r);
	if (lsp_client_output_error(r->c))
		step_fail(r, "malformed server output: %s",
			  lsp_client_output_error(r->c));
	if (lsp_client_sanitizer_report(r->c))
		step_fail(r, "sanitizer report from the server:\n%s",
			  lsp_client_stderr(r->c));
}

static void run_transcript(const char *name)
{
	Run r = {0};
	Buf path = {0}, step = {0};
	char *text, *line, *next;
	size_t n;
	int lineno = 0, err;

	buf_printf(&path, "%s/%s.txt", TRANSCRIPT_DIR, name);
	r.file = path.data;
	err = castls_read_file(path.data, 0, &text, &n);
	if (err) {
		test_fail(path.data, 0, "cannot read: %s",
			  castls_strerror(err));
		buf_free(&path);
		return;
	}
	r.scratch = lsp_scratch_new(name);
	if (!r.scratch) {
		test_fail(path.data, 0, "no scratch directory");
		goto out;
	}
	r.root = join(r.scratch, "ws");
	r.db = join(r.scratch, "index.db");
	if (lsp_copy_tree(WORKSPACE_DIR, r.root) != 0) {
		test_fail(path.data, 0, "cannot copy %s", WORKSPACE_DIR);
		goto out;
	}
	for (line = text; line && !r.failed; line = next) {
		int start;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		lineno++;
		if (is_blank(line) || line[0] == '#')
			continue;
		start = lineno;
		buf_free(&step);
		buf_puts(&step, line);
		/* Continuation lines of a multi-line JSON value. */
		while (next && !is_blank(next) && !is_step_start(next)) {
			line = next;
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			lineno++;
			buf_printf(&step, "\n%s", line);
		}
		r.line = start;
		run_step(&r, step.data);
	}
	r.line = lineno;
	finish(&r);
out:
	for (int i = 0; r.args[i]; i++)
		xfree(r.args[i]);
	lsp_client_delete(r.c);
	xfree(r.root);
	xfree(r.db);
	lsp_scratch_remove(r.scratch);
	buf_free(&step);
	buf_free(&path);
	xfree(text);
}

/* ---------------------------------------------------------------------- *
 * The transcripts
 * ---------------------------------------------------------------------- */

static const char *const transcripts[] = {
    "lifecycle",
    "encoding_utf8",
    "encoding_utf16",
    "document_symbol",
    "workspace_symbol",
    "chunks_incremental",
    "context",
    "search",
    "status",
    "errors",
    "ids_and_params",
    "multi_root_db",
    "context_structure",
    "context_imports",
    "search_roots",
    "folders_removed",
    "settings_refused",
    "watchers",
};

/* Every file in the directory is in the table, and the other way round,
 * so a new transcript cannot be forgotten. */
TEST(transcripts_all_listed)
{
	DIR *d = opendir(TRANSCRIPT_DIR);
	struct dirent *e;
	size_t count = 0, listed = sizeof(transcripts) / sizeof(*transcripts);

	ASSERT_TRUE(d != NULL);
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		bool found = false;

		if (n < 5 || strcmp(e->d_name + n - 4, ".txt") != 0)
			continue;
		count++;
		for (size_t i = 0; i < listed; i++)
			found |= strlen(transcripts[i]) == n - 4 &&
				 strncmp(transcripts[i], e->d_name, n - 4) == 0;
		CHECK_(found, (void)0, "%s has no TEST in test_transcripts.c",
		       e->d_name);
	}
	closedir(d);
	EXPECT_INT_EQ(count, listed);
}

TEST(transcript_lifecycle) { run_transcript("lifecycle"); }
TEST(transcript_encoding_utf8) { run_transcript("encoding_utf8"); }
TEST(transcript_encoding_utf16) { run_transcript("encoding_utf16"); }
TEST(transcript_document_symbol) { run_transcript("document_symbol"); }
TEST(transcript_workspace_symbol) { run_transcript("workspace_symbol"); }
TEST(transcript_chunks_incremental) { run_transcript("chunks_incremental"); }
TEST(transcript_context) { run_transcript("context"); }
TEST(transcript_context_structure) { run_transcript("context_structure"); }
TEST(transcript_context_imports) { run_transcript("context_imports"); }
TEST(transcript_search) { run_transcript("search"); }
TEST(transcript_status) { run_transcript("status"); }
TEST(transcript_errors) { run_transcript("errors"); }
TEST(transcript_ids_and_params) { run_transcript("ids_and_params"); }
TEST(transcript_multi_root_db) { run_transcript("multi_root_db"); }
TEST(transcript_search_roots) { run_transcript("search_roots"); }
TEST(transcript_folders_removed) { run_transcript("folders_removed"); }
TEST(transcript_settings_refused) { run_transcript("settings_refused"); }
TEST(transcript_watchers) { run_transcript("watchers"); }
