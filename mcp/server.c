/*
 * server.c: the MCP session. JSON-RPC dispatch and the lifecycle
 * (initialize with version negotiation, ping, the end of input), the
 * workspace roots (the command line's, or the client's roots/list) and
 * their scans, and tool calls, which run on worker threads while the
 * loop only reads, parses and writes.
 *
 * A call may wait before it runs: for the client's roots, for a first
 * scan (when it carries a progress token, with progress notifications;
 * without one it answers at once and says the index is incomplete), or
 * briefly (definition, search) for a rescan that brings the index up to
 * date with files the agent may have just edited.
 */
#include "mcp_int.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The protocol revisions spoken, newest first: the first is offered to
 * a client asking for one not listed. */
static const struct {
	const char *name;
	bool batches;	 /* JSON-RPC batches must be accepted */
	bool structured; /* titles, outputSchema, structuredContent */
	bool annotated;	 /* tool annotations, progress messages */
} versions[] = {
    {"2025-11-25", false, true, true},
    {"2025-06-18", false, true, true},
    {"2025-03-26", true, false, true},
    {"2024-11-05", false, false, false},
};

#define NVERSIONS (sizeof(versions) / sizeof(*versions))

static const char instructions[] =
    "castls indexes this workspace's Python, TypeScript, JavaScript, "
    "shell and Markdown files. Before changing code at a known place, "
    "call context with the file and line (or the code you are about to "
    "write) to get the definitions it depends on, ranked and within a "
    "token budget. Use definition for a name, search for words, outline "
    "for a file's structure. Paths are relative to the workspace root.";

/* ---------------------------------------------------------------------- *
 * Logging and sending
 * ---------------------------------------------------------------------- */

void mcp__log(McpServer *s, int level, const char *fmt, ...)
{
	char text[1024];
	va_list ap;

	if (level > 0 && s->opt.quiet)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "castls: mcp: %s\n", text);
}

/* Sends msg (taken) as one line; into batch's array when given. */
static void send_msg(McpServer *s, Batch *batch, cJSON *msg)
{
	char *text;

	if (batch) {
		cJSON_AddItemToArray(batch->replies, msg);
		return;
	}
	text = cJSON_PrintUnformatted(msg);
	cJSON_Delete(msg);
	if (text)
		mcp__transport_send(s, text, strlen(text));
	cJSON_free(text);
}

static cJSON *message(void)
{
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(m, "jsonrpc", "2.0");
	return m;
}

static void reply(McpServer *s, Batch *b, const cJSON *id, cJSON *result)
{
	cJSON *m = message();

	cJSON_AddItemToObject(m, "id", cJSON_Duplicate(id, 1));
	cJSON_AddItemToObject(m, "result", result);
	send_msg(s, b, m);
}

static void reply_error(McpServer *s, Batch *b, const cJSON *id, int code,
			const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void reply_error(McpServer *s, Batch *b, const cJSON *id, int code,
			const char *fmt, ...)
{
	cJSON *m = message(), *e = cJSON_CreateObject();
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	cJSON_AddNumberToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", text);
	cJSON_AddItemToObject(m, "id",
			      id ? cJSON_Duplicate(id, 1) : cJSON_CreateNull());
	cJSON_AddItemToObject(m, "error", e);
	send_msg(s, b, m);
}

static void notify(McpServer *s, const char *method, cJSON *params)
{
	cJSON *m = message();

	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	send_msg(s, NULL, m);
}

/* Sends a request to the client; returns its id. */
int64_t mcp__request(McpServer *s, const char *method, cJSON *params)
{
	cJSON *m = message();
	int64_t id = ++s->next_id;

	cJSON_AddNumberToObject(m, "id", (double)id);
	cJSON_AddStringToObject(m, "method", method);
	if (params)
		cJSON_AddItemToObject(m, "params", params);
	send_msg(s, NULL, m);
	return id;
}

static void batch_done(McpServer *s, Batch *b)
{
	if (--b->pending > 0)
		return;
	/* A batch of notifications only gets no reply at all. */
	if (cJSON_GetArraySize(b->replies) > 0) {
		char *text = cJSON_PrintUnformatted(b->replies);

		if (text)
			mcp__transport_send(s, text, strlen(text));
		cJSON_free(text);
	}
	cJSON_Delete(b->replies);
	xfree(b);
}

/* ---------------------------------------------------------------------- *
 * Tool calls
 * ---------------------------------------------------------------------- */

static void call_free(Call *c)
{
	cJSON_Delete(c->id);
	cJSON_Delete(c->token);
	cJSON_Delete(c->args);
	cJSON_Delete(c->tc.out);
	buf_free(&c->tc.text);
	xfree(c);
}

static void unlink_call(Call **list, Call *c)
{
	for (Call **p = list; *p; p = &(*p)->next)
		if (*p == c) {
			*p = c->next;
			return;
		}
}

/* The reply to a finished call, unless it was cancelled; frees it. */
static void call_finish(McpServer *s, Call *c)
{
	Batch *b = c->batch;

	if (!c->cancelled) {
		cJSON *res = cJSON_CreateObject();
		cJSON *content = cJSON_AddArrayToObject(res, "content");
		cJSON *t = cJSON_CreateObject();

		cJSON_AddStringToObject(t, "type", "text");
		cJSON_AddStringToObject(t, "text",
					c->tc.text.data ? c->tc.text.data : "");
		cJSON_AddItemToArray(content, t);
		if (c->tc.out && versions[s->version].structured) {
			cJSON_AddItemToObject(res, "structuredContent",
					      c->tc.out);
			c->tc.out = NULL;
		}
		if (c->tc.is_error)
			cJSON_AddBoolToObject(res, "isError", true);
		reply(s, b, c->id, res);
	}
	call_free(c);
	if (b)
		batch_done(s, b);
}

static void call_run(Work *w)
{
	Call *c = (Call *)w;

	if (!c->cancelled)
		c->tool->run(&c->tc);
}

static void call_done(Work *w, bool cancelled)
{
	Call *c = (Call *)w;
	McpServer *s = w->s;

	unlink_call(&s->running, c);
	c->cancelled |= cancelled;
	call_finish(s, c);
}

/* Queues c on the thread pool, with what it should say of indexing. */
static void call_start(McpServer *s, Call *c)
{
	c->tc.indexing = mcp__first_scan_running(s);
	mcp__scan_totals(s, &c->tc.files_done, &c->tc.files_seen);
	c->next = s->running;
	s->running = c;
	c->work.run = call_run;
	c->work.done = call_done;
	mcp__work_queue(s, &c->work);
}

static void park(McpServer *s, Call *c, uint64_t deadline)
{
	c->deadline = deadline;
	c->next = s->waiting;
	s->waiting = c;
	if (!uv_is_active((uv_handle_t *)&s->wait_timer))
		uv_timer_again(&s->wait_timer);
}

static int active_roots(McpServer *s)
{
	int n = 0;

	for (int i = 0; i < s->nroots; i++)
		n += !atomic_load(&s->roots[i]->removed);
	return n;
}

/* Runs c now, or parks it until what it needs is there. */
static void call_admit(McpServer *s, Call *c)
{
	uint64_t now = uv_now(s->loop);

	if (s->roots_pending) {
		park(s, c, UINT64_MAX); /* roots_timer bounds the wait */
		return;
	}
	if (!active_roots(s)) {
		mcp__tool_error(&c->tc,
				"castls has no workspace root: start "
				"castls mcp with ROOT arguments or inside "
				"a git repository, or list roots in the "
				"client");
		call_finish(s, c);
		return;
	}
	if (!c->tool->uses_index) {
		call_start(s, c);
		return;
	}
	if (mcp__first_scan_running(s)) {
		if (c->token)
			park(s, c, now + MCP_INDEX_WAIT_MS);
		else
			call_start(s, c);
		return;
	}
	/* Files may have changed since the last scan (an agent edits
	 * them): a rescan reads only what did. A call that answers from
	 * the index alone waits briefly for it. Context reads its own file
	 * from disk: it rescans less often, and does not wait (a walk of
	 * a large tree would cost it more than the ranking). */
	if (mcp__refresh(s, c->tool->fresh ? MCP_RESCAN_MS
					   : MCP_CONTEXT_RESCAN_MS) &&
	    c->tool->fresh)
		park(s, c, now + MCP_REFRESH_WAIT_MS);
	else
		call_start(s, c);
}

/* Progress for the waiting calls that carry a token: files done out of
 * files seen by the running scans. It only ever goes up. */
static void send_progress(McpServer *s)
{
	uint32_t done, seen;

	if (!mcp__any_indexing(s))
		return; /* waiting for roots: nothing to count yet */
	mcp__scan_totals(s, &done, &seen);
	for (Call *c = s->waiting; c; c = c->next) {
		cJSON *p;
		char msg[96];

		if (!c->token || (double)done <= c->progress)
			continue;
		c->progress = done;
		p = cJSON_CreateObject();
		cJSON_AddItemToObject(p, "progressToken",
				      cJSON_Duplicate(c->token, 1));
		cJSON_AddNumberToObject(p, "progress", done);
		if (seen >= done && seen)
			cJSON_AddNumberToObject(p, "total", seen);
		if (versions[s->version].annotated) {
			snprintf(msg, sizeof(msg), "indexing: %u of %u files",
				 done, seen);
			cJSON_AddStringToObject(p, "message", msg);
		}
		notify(s, "notifications/progress", p);
	}
}

/* Starts the waiting calls whose wait is over. */
void mcp__check_waiting(McpServer *s)
{
	uint64_t now = uv_now(s->loop);
	Call *list = s->waiting, *next;

	if (s->roots_pending)
		return;
	s->waiting = NULL;
	for (Call *c = list; c; c = next) {
		next = c->next;
		if (c->deadline == UINT64_MAX)
			call_admit(s, c); /* it waited for the roots */
		else if (now >= c->deadline || !mcp__any_indexing(s))
			call_start(s, c);
		else
			park(s, c, c->deadline);
	}
	if (!s->waiting)
		uv_timer_stop(&s->wait_timer);
}

static void on_wait_tick(uv_timer_t *t)
{
	McpServer *s = t->data;

	send_progress(s);
	mcp__check_waiting(s);
}

static void on_progress(uv_async_t *a) { send_progress(a->data); }

/* Drops call id, waiting or running; its reply is never sent. */
static void cancel_call(McpServer *s, const cJSON *id)
{
	for (Call *c = s->waiting; c && id; c = c->next)
		if (cJSON_Compare(c->id, id, 1)) {
			Batch *b = c->batch;

			unlink_call(&s->waiting, c);
			call_free(c);
			if (b)
				batch_done(s, b);
			if (!s->waiting)
				uv_timer_stop(&s->wait_timer);
			return;
		}
	for (Call *c = s->running; c && id; c = c->next)
		if (cJSON_Compare(c->id, id, 1)) {
			c->cancelled = true;
			uv_cancel((uv_req_t *)&c->work.req);
			return;
		}
}

/* ---------------------------------------------------------------------- *
 * Methods
 * ---------------------------------------------------------------------- */

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static void on_initialize(McpServer *s, Batch *b, const cJSON *id,
			  const cJSON *p)
{
	const cJSON *v = get(p, "protocolVersion");
	const cJSON *caps = get(p, "capabilities");
	cJSON *res, *o;

	if (b) {
		reply_error(s, b, id, JSONRPC_INVALID_REQUEST,
			    "initialize must not be part of a batch");
		return;
	}
	if (s->initialized) {
		reply_error(s, b, id, JSONRPC_INVALID_REQUEST,
			    "initialize was already sent");
		return;
	}
	if (!cJSON_IsString(v)) {
		reply_error(s, b, id, JSONRPC_INVALID_PARAMS,
			    "params.protocolVersion must be a string");
		return;
	}
	/* The version asked for if spoken, else the newest. */
	s->version = 0;
	for (size_t i = 0; i < NVERSIONS; i++)
		if (strcmp(versions[i].name, v->valuestring) == 0)
			s->version = (int)i;
	s->client_roots = cJSON_IsObject(get(caps, "roots"));
	res = cJSON_CreateObject();
	cJSON_AddStringToObject(res, "protocolVersion",
				versions[s->version].name);
	o = cJSON_AddObjectToObject(res, "capabilities");
	o = cJSON_AddObjectToObject(o, "tools");
	cJSON_AddBoolToObject(o, "listChanged", false);
	o = cJSON_AddObjectToObject(res, "serverInfo");
	cJSON_AddStringToObject(o, "name", "castls");
	if (versions[s->version].structured)
		cJSON_AddStringToObject(o, "title", "castls code context");
	cJSON_AddStringToObject(o, "version", CASTLS_VERSION);
	cJSON_AddStringToObject(res, "instructions", instructions);
	s->initialized = true;
	reply(s, b, id, res);
	/* With roots from the client, the scans start once it lists them
	 * (after initialized); tool calls wait for that. */
	if (s->client_roots) {
		s->roots_pending = true;
		uv_timer_start(&s->roots_timer, mcp__on_roots_timeout,
			       MCP_ROOTS_WAIT_MS, 0);
	} else {
		mcp__roots_set(s, NULL, 0);
	}
}

static void on_initialized(McpServer *s, Batch *b, const cJSON *id,
			   const cJSON *p)
{
	(void)b, (void)id, (void)p;
	if (s->client_roots && s->roots_pending && !s->roots_request)
		mcp__ask_roots(s);
}

static void on_roots_changed(McpServer *s, Batch *b, const cJSON *id,
			     const cJSON *p)
{
	(void)b, (void)id, (void)p;
	if (s->client_roots && !s->roots_request)
		mcp__ask_roots(s);
}

static void on_ping(McpServer *s, Batch *b, const cJSON *id, const cJSON *p)
{
	(void)p;
	reply(s, b, id, cJSON_CreateObject());
}

static void on_tools_list(McpServer *s, Batch *b, const cJSON *id,
			  const cJSON *p)
{
	cJSON *res = cJSON_CreateObject();

	(void)p;
	cJSON_AddItemToObject(
	    res, "tools",
	    mcp__tools_list_json(versions[s->version].structured,
				 versions[s->version].annotated));
	reply(s, b, id, res);
}

static void on_tools_call(McpServer *s, Batch *b, const cJSON *id,
			  const cJSON *p)
{
	const cJSON *name = get(p, "name"), *args = get(p, "arguments");
	const cJSON *token = get(get(p, "_meta"), "progressToken");
	const Tool *tool = mcp__tools_find(cJSON_GetStringValue(name));
	char why[512];
	Call *c;

	if (!cJSON_IsString(name)) {
		reply_error(s, b, id, JSONRPC_INVALID_PARAMS,
			    "params.name must be a string");
		return;
	}
	if (!tool) {
		reply_error(s, b, id, JSONRPC_INVALID_PARAMS,
			    "unknown tool: %.100s (castls has context, search, "
			    "definition, outline)",
			    name->valuestring);
		return;
	}
	if (args && !cJSON_IsObject(args) && !cJSON_IsNull(args)) {
		reply_error(s, b, id, JSONRPC_INVALID_PARAMS,
			    "params.arguments must be an object");
		return;
	}
	c = xcalloc(1, sizeof(*c));
	c->id = cJSON_Duplicate(id, 1);
	c->tool = tool;
	c->args = cJSON_IsObject(args) ? cJSON_Duplicate(args, 1)
				       : cJSON_CreateObject();
	c->token = cJSON_IsString(token) || cJSON_IsNumber(token)
		       ? cJSON_Duplicate(token, 1)
		       : NULL;
	c->progress = -1;
	c->tc.s = s;
	c->tc.args = c->args;
	c->tc.budget = s->opt.budget ? s->opt.budget : MCP_DEFAULT_BUDGET;
	c->tc.max_file_size = s->opt.max_file_size ? s->opt.max_file_size
						   : INDEX_DEFAULT_MAX_FILE;
	c->batch = b;
	if (b)
		b->pending++;
	/* Arguments that do not fit the schema: a tool error, so the model
	 * sees what to change. */
	if (!mcp__tools_check_args(tool, c->args, why, sizeof(why))) {
		mcp__tool_error(&c->tc, "%s", why);
		call_finish(s, c);
		return;
	}
	call_admit(s, c);
}

static void on_cancelled(McpServer *s, Batch *b, const cJSON *id,
			 const cJSON *p)
{
	(void)b, (void)id;
	cancel_call(s, get(p, "requestId"));
}

typedef void (*Method)(McpServer *s, Batch *b, const cJSON *id,
		       const cJSON *params);

static const struct {
	const char *name;
	bool request;
	bool before_init; /* allowed before initialize */
	Method fn;
} methods[] = {
    {"initialize", true, true, on_initialize},
    {"ping", true, true, on_ping},
    {"notifications/initialized", false, false, on_initialized},
    {"tools/list", true, false, on_tools_list},
    {"tools/call", true, false, on_tools_call},
    {"notifications/cancelled", false, false, on_cancelled},
    {"notifications/roots/list_changed", false, false, on_roots_changed},
};

/* ---------------------------------------------------------------------- *
 * Dispatch
 * ---------------------------------------------------------------------- */

/* A string, or a number that is a whole one a double holds exactly. */
static bool valid_id(const cJSON *id)
{
	double v = cJSON_IsNumber(id) ? id->valuedouble : 0.5;

	return cJSON_IsString(id) ||
	       (v > -9007199254740992.0 && v < 9007199254740992.0 &&
		v == (double)(int64_t)v);
}

/* A reply from the client to one of our requests. */
static void on_response(McpServer *s, const cJSON *msg)
{
	const cJSON *id = get(msg, "id");

	if (s->roots_request && cJSON_IsNumber(id) &&
	    id->valuedouble == (double)s->roots_request)
		mcp__on_roots(s, msg);
}

static void dispatch(McpServer *s, Batch *b, const cJSON *msg)
{
	const cJSON *id = get(msg, "id"), *method = get(msg, "method");
	const cJSON *params = get(msg, "params");
	const cJSON *good_id = valid_id(id) ? id : NULL;
	bool req = id != NULL;
	size_t i;

	if (!cJSON_IsObject(msg)) {
		reply_error(s, b, NULL, JSONRPC_INVALID_REQUEST,
			    "a message is a JSON-RPC object");
		return;
	}
	if (!cJSON_IsString(get(msg, "jsonrpc")) ||
	    strcmp(get(msg, "jsonrpc")->valuestring, "2.0") != 0) {
		reply_error(s, b, good_id, JSONRPC_INVALID_REQUEST,
			    "jsonrpc must be \"2.0\"");
		return;
	}
	if (!method && id && (get(msg, "result") || get(msg, "error"))) {
		on_response(s, msg);
		return;
	}
	if (!cJSON_IsString(method) || (req && !good_id)) {
		reply_error(s, b, good_id, JSONRPC_INVALID_REQUEST, "%s",
			    !cJSON_IsString(method)
				? "method must be a string"
				: "id must be a string or an integer");
		return;
	}
	if (params && !cJSON_IsObject(params)) {
		if (req)
			reply_error(s, b, id, JSONRPC_INVALID_PARAMS,
				    "params must be an object");
		return;
	}
	for (i = 0; i < sizeof(methods) / sizeof(*methods); i++)
		if (strcmp(methods[i].name, method->valuestring) == 0)
			break;
	if (i == sizeof(methods) / sizeof(*methods)) {
		/* Unknown notifications are ignored, as the spec asks. */
		if (req)
			reply_error(s, b, id, JSONRPC_METHOD_NOT_FOUND,
				    "unknown method: %.100s",
				    method->valuestring);
		return;
	}
	if (!s->initialized && !methods[i].before_init) {
		if (req)
			reply_error(s, b, id, JSONRPC_INVALID_REQUEST,
				    "%s before initialize: send initialize "
				    "first",
				    methods[i].name);
		return;
	}
	if (methods[i].request != req) {
		if (req)
			reply_error(s, b, id, JSONRPC_INVALID_REQUEST,
				    "%s is a notification", methods[i].name);
		return;
	}
	methods[i].fn(s, b, req ? id : NULL, params);
}

/* A batch: accepted where the negotiated revision has them (2025-03-26),
 * answered with one array of the replies of its requests. */
static void dispatch_batch(McpServer *s, const cJSON *arr)
{
	int n = cJSON_GetArraySize(arr);
	const cJSON *e;
	Batch *b;

	if (!s->initialized || !versions[s->version].batches) {
		reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST,
			    "JSON-RPC batches are not part of MCP %s",
			    s->initialized ? versions[s->version].name
					   : "before initialize");
		return;
	}
	if (n == 0 || n > MCP_MAX_BATCH) {
		reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST,
			    "a batch holds 1 to %d messages", MCP_MAX_BATCH);
		return;
	}
	b = xcalloc(1, sizeof(*b));
	b->replies = cJSON_CreateArray();
	b->pending = 1;
	cJSON_ArrayForEach(e, arr) dispatch(s, b, e);
	batch_done(s, b);
}

void mcp__server_line(void *ctx, const char *line, size_t len, bool oversized)
{
	McpServer *s = ctx;
	const char *end = NULL;
	cJSON *msg;

	if (s->exiting)
		return;
	if (oversized) {
		reply_error(s, NULL, NULL, JSONRPC_INVALID_REQUEST,
			    "a message is at most %zu bytes", MCP_MAX_LINE);
		return;
	}
	if (!mcp__json_depth_ok(line, len, MCP_MAX_JSON_DEPTH)) {
		reply_error(s, NULL, NULL, JSONRPC_PARSE_ERROR,
			    "JSON nested deeper than %d levels",
			    MCP_MAX_JSON_DEPTH);
		return;
	}
	msg = cJSON_ParseWithLengthOpts(line, len, &end, false);
	/* One message per line: anything after the value but blanks is
	 * not JSON-RPC either. */
	while (msg && end && end < line + len &&
	       is_space_byte((unsigned char)*end))
		end++;
	if (!msg || (end && end < line + len)) {
		reply_error(s, NULL, NULL, JSONRPC_PARSE_ERROR,
			    "not a JSON message: %.40s%s", line,
			    len > 40 ? "..." : "");
		cJSON_Delete(msg);
		return;
	}
	if (cJSON_IsArray(msg))
		dispatch_batch(s, msg);
	else
		dispatch(s, NULL, msg);
	cJSON_Delete(msg);
}

/* ---------------------------------------------------------------------- *
 * Running
 * ---------------------------------------------------------------------- */

void mcp__server_end(McpServer *s)
{
	Call *c;

	if (s->exiting)
		return;
	s->exiting = true;
	mcp__transport_stop_input(s);
	uv_timer_stop(&s->wait_timer);
	if (s->roots_pending)
		mcp__roots_set(s, NULL, 0); /* no scans start now */
	for (int i = 0; i < s->nroots; i++)
		s->roots[i]->cancel = 1;
	/* What waits runs now, with the index as it is. */
	while ((c = s->waiting)) {
		s->waiting = c->next;
		call_start(s, c);
	}
	uv_timer_stop(&s->wait_timer);
}

static void on_signal(uv_signal_t *h, int signum)
{
	McpServer *s = h->data;

	mcp__log(s, 1, "signal %d: stopping", signum);
	mcp__server_end(s);
}

static void *cjson_malloc(size_t n) { return xmalloc(n); }

static void walk_close(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* The command line's roots, canonical; 2 (with a message) for one that
 * is not a directory. */
static int initial_roots(McpServer *s)
{
	char real[PATH_MAX];

	for (uint32_t i = 0; i < s->opt.nroots && i < MCP_MAX_ROOTS; i++) {
		if (!realpath(s->opt.roots[i], real)) {
			fprintf(stderr, "castls: mcp: %s: no such directory\n",
				s->opt.roots[i]);
			return 2;
		}
		s->initial[s->ninitial++] = xstrdup(real);
	}
	if (!s->ninitial) {
		char *git = mcp__path_git_root(".");
		const char *home = getenv("HOME");
		char real_home[PATH_MAX];

		if (!git) {
			fprintf(stderr, "castls: mcp: the working directory "
					"does not resolve\n");
			return 2;
		}
		/* Outside a repository, the working directory, unless it is
		 * / or the home directory (where some clients start their
		 * servers): indexing those would read the whole disk. */
		if (strcmp(git, "/") == 0 ||
		    (home && realpath(home, real_home) &&
		     strcmp(git, real_home) == 0)) {
			mcp__log(s, 1,
				 "no root: %s is no workspace; waiting "
				 "for the client's roots",
				 git);
			xfree(git);
			return 0;
		}
		s->initial[s->ninitial++] = git;
	}
	return 0;
}

static void server_free(McpServer *s)
{
	for (int i = 0; i < s->nroots; i++)
		mcp__root_free(s->roots[i]);
	for (uint32_t i = 0; i < s->ninitial; i++)
		xfree(s->initial[i]);
	while (s->nchunkers)
		chunker_delete(s->chunkers[--s->nchunkers]);
	for (int i = 0; i < MCP_TREES; i++) {
		xfree(s->trees[i].path);
		if (s->trees[i].tree)
			ts_tree_delete(s->trees[i].tree);
	}
	mcp__line_reader_close(&s->lines);
	pthread_mutex_destroy(&s->progress_mu);
	pthread_mutex_destroy(&s->pool_mu);
	xfree(s);
}

static void handles_init(McpServer *s, uv_loop_t *loop)
{
	uv_async_init(loop, &s->progress_async, on_progress);
	s->progress_async.data = s;
	uv_unref((uv_handle_t *)&s->progress_async);
	uv_timer_init(loop, &s->roots_timer);
	s->roots_timer.data = s;
	uv_timer_init(loop, &s->wait_timer);
	s->wait_timer.data = s;
	uv_timer_set_repeat(&s->wait_timer, MCP_TICK_MS);
	uv_timer_start(&s->wait_timer, on_wait_tick, MCP_TICK_MS, MCP_TICK_MS);
	uv_timer_stop(&s->wait_timer);
	uv_signal_init(loop, &s->sigterm);
	uv_signal_init(loop, &s->sigint);
	s->sigterm.data = s->sigint.data = s;
	uv_signal_start(&s->sigterm, on_signal, SIGTERM);
	uv_signal_start(&s->sigint, on_signal, SIGINT);
	uv_unref((uv_handle_t *)&s->sigterm);
	uv_unref((uv_handle_t *)&s->sigint);
}

int mcp_run(const McpOptions *opt)
{
	static const cJSON_Hooks hooks = {cjson_malloc, xfree};
	uv_loop_t loop;
	McpServer *s = xcalloc(1, sizeof(*s));
	int code = 0;

	cJSON_InitHooks((cJSON_Hooks *)&hooks);
	s->opt = *opt;
	pthread_mutex_init(&s->progress_mu, NULL);
	pthread_mutex_init(&s->pool_mu, NULL);
	atomic_init(&s->nroots, 0);
	if ((code = initial_roots(s)) || mcp__tools_init()) {
		mcp__tools_free();
		server_free(s);
		return code ? code : 1;
	}
	signal(SIGPIPE, SIG_IGN);
	uv_loop_init(&loop);
	s->loop = &loop;
	handles_init(s, &loop);
	if (mcp__transport_start(s) != 0) {
		fprintf(stderr, "castls: mcp: cannot read standard input\n");
		mcp__server_end(s);
		code = 1;
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	/* Input ended, the work in flight finished and its replies are out
	 * (uv_run returns only when nothing is pending). */
	mcp__transport_close(s);
	uv_walk(&loop, walk_close, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	mcp__tools_free();
	server_free(s);
	return code;
}
