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

/* A batch (2025-03-26): the replies of its requests, sent as one array
 * once the last of them is known. */
struct Batch {
	cJSON *replies;
	int pending; /* requests unanswered, plus one while dispatching */
};

/* A work request for the thread pool: a tool call or a scan. */
typedef struct Work Work;
struct Work {
	uv_work_t req;
	McpServer *s;
	void (*run)(Work *w);		       /* on a worker thread */
	void (*done)(Work *w, bool cancelled); /* on the loop; frees w */
};

struct Call {
	Work work;
	Call *next;	 /* in McpServer.running or McpServer.waiting */
	cJSON *id;	 /* owned */
	cJSON *token;	 /* progressToken (owned), or NULL */
	double progress; /* the last progress sent, -1 none */
	const Tool *tool;
	cJSON *args;	   /* owned */
	uint64_t deadline; /* uv_now when a waiting call runs anyway */
	bool cancelled;
	Batch *batch; /* NULL: not in one */
	ToolCall tc;
};

typedef struct {
	Work work;
	McpRoot *root;
	int jobs;
	int err;
	ScanStats stats;
} Scan;

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
static int64_t request(McpServer *s, const char *method, cJSON *params)
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
 * Roots, their connections, and the chunkers
 * ---------------------------------------------------------------------- */

/* Safe on any thread. */
static Index *root_acquire(McpServer *s, McpRoot *r, int *err)
{
	IndexOptions io = {0};
	Index *ix = NULL;

	pthread_mutex_lock(&r->mu);
	if (r->nidle)
		ix = r->idle[--r->nidle];
	io.verify = !r->verified;
	r->verified = true;
	pthread_mutex_unlock(&r->mu);
	if (ix)
		return ix;
	io.root = r->path;
	/* --db names the database of the first root given, as for serve;
	 * other roots keep their own default files. */
	io.db_path = s->ninitial && strcmp(r->path, s->initial[0]) == 0
			 ? s->opt.db_path
			 : NULL;
	io.max_chunk_size = s->opt.max_chunk_size;
	io.max_file_size = s->opt.max_file_size;
	io.exclude = s->opt.exclude;
	/* A database that cannot be written is still read. */
	io.reader = true;
	pthread_mutex_lock(&r->open_mu);
	*err = index_open(&io, &ix);
	pthread_mutex_unlock(&r->open_mu);
	return *err ? NULL : ix;
}

static void root_release(McpRoot *r, Index *ix)
{
	pthread_mutex_lock(&r->mu);
	if (r->nidle < (int)(sizeof(r->idle) / sizeof(*r->idle))) {
		r->idle[r->nidle++] = ix;
		ix = NULL;
	}
	pthread_mutex_unlock(&r->mu);
	index_close(ix);
}

static void root_free(McpRoot *r)
{
	for (int i = 0; i < r->nidle; i++)
		index_close(r->idle[i]);
	pthread_mutex_destroy(&r->mu);
	pthread_mutex_destroy(&r->open_mu);
	xfree(r->path);
	xfree(r);
}

void mcp__workspace_borrow(McpServer *s, Workspace *w)
{
	int n = atomic_load(&s->nroots);

	memset(w, 0, sizeof(*w));
	for (int i = 0; i < n; i++) {
		McpRoot *r = s->roots[i];
		int err = 0;

		if (atomic_load(&r->removed))
			continue;
		w->from[w->n] = r;
		w->rank[w->n].path = r->path;
		w->rank[w->n].ix = root_acquire(s, r, &err);
		if (!w->rank[w->n].ix)
			mcp__log(s, 0, "index of %s: %s", r->path,
				 castls_strerror(err));
		w->n++;
	}
	for (uint32_t i = 0; i < w->n; i++) {
		Buf b = {0};

		if (w->n > 1)
			buf_printf(&b, "%s/",
				   strcmp(w->rank[i].path, "/") == 0
				       ? ""
				       : w->rank[i].path);
		w->prefix[i] = buf_take(&b);
	}
}

void mcp__workspace_return(McpServer *s, Workspace *w)
{
	(void)s;
	for (uint32_t i = 0; i < w->n; i++) {
		if (w->rank[i].ix)
			root_release(w->from[i], w->rank[i].ix);
		xfree(w->prefix[i]);
	}
	memset(w, 0, sizeof(*w));
}

Chunker *mcp__server_chunker_acquire(McpServer *s)
{
	Chunker *ch = NULL;

	pthread_mutex_lock(&s->pool_mu);
	if (s->nchunkers)
		ch = s->chunkers[--s->nchunkers];
	pthread_mutex_unlock(&s->pool_mu);
	return ch ? ch : chunker_new(s->opt.max_chunk_size);
}

void mcp__server_chunker_release(McpServer *s, Chunker *ch)
{
	chunker_trim(ch); /* pooled chunkers keep no scratch heap */
	pthread_mutex_lock(&s->pool_mu);
	if (s->nchunkers < (int)(sizeof(s->chunkers) / sizeof(*s->chunkers))) {
		s->chunkers[s->nchunkers++] = ch;
		ch = NULL;
	}
	pthread_mutex_unlock(&s->pool_mu);
	chunker_delete(ch);
}

TSTree *mcp__server_tree(McpServer *s, Chunker *ch, const char *path, Lang lang,
			 const char *text, uint32_t len)
{
	uint64_t hash;
	TSTree *tree = NULL, *old = NULL;
	int slot = 0;

	if (len > MCP_PARSE_MAX || !chunker_language(lang))
		return NULL;
	hash = castls_hash(text, len, 0);
	pthread_mutex_lock(&s->pool_mu);
	for (int i = 0; i < MCP_TREES && !tree; i++)
		if (s->trees[i].path && s->trees[i].hash == hash &&
		    s->trees[i].len == len && s->trees[i].lang == lang &&
		    strcmp(s->trees[i].path, path) == 0) {
			s->trees[i].used = ++s->tree_clock;
			tree = ts_tree_copy(s->trees[i].tree);
		}
	pthread_mutex_unlock(&s->pool_mu);
	if (tree || !(tree = chunker_parse(ch, lang, text, len, NULL)))
		return tree;
	pthread_mutex_lock(&s->pool_mu);
	for (int i = 1; i < MCP_TREES; i++)
		if (s->trees[i].used < s->trees[slot].used)
			slot = i;
	old = s->trees[slot].tree;
	xfree(s->trees[slot].path);
	s->trees[slot].path = xstrdup(path);
	s->trees[slot].hash = hash;
	s->trees[slot].len = len;
	s->trees[slot].lang = lang;
	s->trees[slot].tree = ts_tree_copy(tree);
	s->trees[slot].used = ++s->tree_clock;
	pthread_mutex_unlock(&s->pool_mu);
	if (old)
		ts_tree_delete(old);
	return tree;
}

/* ---------------------------------------------------------------------- *
 * Work on the thread pool
 * ---------------------------------------------------------------------- */

static void work_run(uv_work_t *req)
{
	Work *w = (Work *)req;

	w->run(w);
}

static void work_after(uv_work_t *req, int status)
{
	Work *w = (Work *)req;

	w->done(w, status == UV_ECANCELED);
}

static void work_queue(McpServer *s, Work *w)
{
	w->s = s;
	uv_queue_work(s->loop, &w->req, work_run, work_after);
}

/* ---------------------------------------------------------------------- *
 * Scans
 * ---------------------------------------------------------------------- */

static void check_waiting(McpServer *s);
static void scan_next(McpServer *s);

/* Whether a root has no scan done yet and one running: its index may be
 * far from whole. */
static bool first_scan_running(McpServer *s)
{
	for (int i = 0; i < s->nroots; i++)
		if (!atomic_load(&s->roots[i]->removed) &&
		    s->roots[i]->indexing && !s->roots[i]->scanned)
			return true;
	return false;
}

static bool any_indexing(McpServer *s)
{
	for (int i = 0; i < s->nroots; i++)
		if (!atomic_load(&s->roots[i]->removed) &&
		    s->roots[i]->indexing)
			return true;
	return false;
}

/* Files done and seen by the scans running, all roots. */
static void scan_totals(McpServer *s, uint32_t *done, uint32_t *seen)
{
	*done = *seen = 0;
	pthread_mutex_lock(&s->progress_mu);
	for (int i = 0; i < s->nroots; i++) {
		McpRoot *r = s->roots[i];

		if (r->indexing && !atomic_load(&r->removed)) {
			*done += r->progress.done;
			*seen += r->progress.seen;
		}
	}
	pthread_mutex_unlock(&s->progress_mu);
}

static void scan_progress(void *ctx, const ScanStats *st)
{
	Scan *sc = ctx;
	McpServer *s = sc->work.s;

	pthread_mutex_lock(&s->progress_mu);
	sc->root->progress = *st;
	pthread_mutex_unlock(&s->progress_mu);
	uv_async_send(&s->progress_async);
}

static void scan_run(Work *w)
{
	Scan *sc = (Scan *)w;
	Index *ix = root_acquire(w->s, sc->root, &sc->err);

	if (!ix)
		return;
	sc->err = index_scan(ix, sc->jobs, scan_progress, sc, &sc->root->cancel,
			     &sc->stats);
	root_release(sc->root, ix);
}

static void scan_done(Work *w, bool cancelled)
{
	Scan *sc = (Scan *)w;
	McpServer *s = w->s;
	McpRoot *r = sc->root;

	s->scanning = false;
	r->indexing = false;
	r->scan_ended = uv_now(s->loop);
	if (cancelled || sc->err == CASTLS_ECANCELED) {
		/* Left for the next call to finish, or the session ended. */
	} else if (sc->err) {
		if (!r->failed)
			mcp__log(s, 0,
				 "indexing %s: %s; answering from the "
				 "index as it is",
				 r->path, castls_strerror(sc->err));
		r->failed = true;
		r->scanned = true;
	} else {
		if (!r->scanned)
			mcp__log(s, 1, "indexed %s: %u files, %u changed",
				 r->path, sc->stats.seen, sc->stats.indexed);
		r->failed = false;
		r->scanned = true;
	}
	xfree(sc);
	scan_next(s);
	check_waiting(s);
}

static void scan_launch(McpServer *s, McpRoot *r)
{
	Scan *sc = xcalloc(1, sizeof(*sc));

	s->scanning = true;
	r->queued = false;
	sc->root = r;
	sc->jobs = r->scanned ? 1 : 0;
	sc->work.run = scan_run;
	sc->work.done = scan_done;
	work_queue(s, &sc->work);
}

/* Starts a scan of r unless one runs or waits: now, or after the scan of
 * another root (scans go one at a time). A first one uses every core, a
 * rescan (stamps, and only files that changed) one thread. */
static void scan_start(McpServer *s, McpRoot *r)
{
	if (r->indexing || s->exiting || atomic_load(&r->removed))
		return;
	r->indexing = true;
	r->cancel = 0;
	pthread_mutex_lock(&s->progress_mu);
	memset(&r->progress, 0, sizeof(r->progress));
	pthread_mutex_unlock(&s->progress_mu);
	if (s->scanning)
		r->queued = true;
	else
		scan_launch(s, r);
}

/* The next root waiting for its scan, if any. */
static void scan_next(McpServer *s)
{
	for (int i = 0; i < s->nroots; i++) {
		McpRoot *r = s->roots[i];

		if (!r->queued)
			continue;
		if (atomic_load(&r->removed) || s->exiting) {
			r->queued = r->indexing = false;
			continue;
		}
		if (!s->scanning)
			scan_launch(s, r);
	}
}

/* Rescans the roots whose last scan ended `after` ms ago or more; true
 * when a scan runs on some root now. */
static bool refresh(McpServer *s, uint64_t after)
{
	uint64_t now = uv_now(s->loop);
	bool busy = false;

	for (int i = 0; i < s->nroots; i++) {
		McpRoot *r = s->roots[i];

		if (atomic_load(&r->removed))
			continue;
		if (!r->indexing && now - r->scan_ended >= after)
			scan_start(s, r);
		busy |= r->indexing;
	}
	return busy;
}

/* ---------------------------------------------------------------------- *
 * The roots of the session
 * ---------------------------------------------------------------------- */

/* Adds (or takes back) the root at canonical path and scans it. */
static void root_use(McpServer *s, const char *path)
{
	McpRoot *r;

	for (int i = 0; i < s->nroots; i++) {
		r = s->roots[i];
		if (strcmp(r->path, path) != 0)
			continue;
		if (atomic_load(&r->removed)) {
			atomic_store(&r->removed, false);
			r->scan_ended = 0;
		}
		scan_start(s, r);
		return;
	}
	if (s->nroots == MCP_MAX_ROOTS) {
		mcp__log(s, 0, "more than %d roots: %s left out", MCP_MAX_ROOTS,
			 path);
		return;
	}
	r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(path);
	pthread_mutex_init(&r->mu, NULL);
	pthread_mutex_init(&r->open_mu, NULL);
	atomic_init(&r->removed, false);
	s->roots[s->nroots] = r;
	atomic_fetch_add(&s->nroots, 1);
	scan_start(s, r);
}

/* Makes paths[0, n) (canonical) the roots: the others are dropped and
 * their scans stopped. None: the command line's roots. */
static void roots_set(McpServer *s, char **paths, uint32_t n)
{
	const char *const *use = (const char *const *)paths;

	if (!n) {
		use = (const char *const *)s->initial;
		n = s->ninitial;
	}
	for (int i = 0; i < s->nroots; i++) {
		McpRoot *r = s->roots[i];
		bool keep = false;

		for (uint32_t k = 0; k < n && !keep; k++)
			keep = strcmp(use[k], r->path) == 0;
		if (!keep) {
			atomic_store(&r->removed, true);
			r->cancel = 1;
		}
	}
	for (uint32_t k = 0; k < n; k++)
		root_use(s, use[k]);
	if (s->roots_pending) {
		s->roots_pending = false;
		uv_timer_stop(&s->roots_timer);
	}
	check_waiting(s);
}

/* A "file://" URI as a canonical directory path, or NULL. */
static char *root_path(const char *uri)
{
	char real[PATH_MAX];
	Buf b = {0};

	if (!uri || strncmp(uri, "file://", 7) != 0)
		return NULL;
	uri += 7;
	if (strncmp(uri, "localhost/", 10) == 0)
		uri += 9;
	for (; *uri; uri++) {
		unsigned hi, lo;

		if (*uri == '%' && sscanf(uri + 1, "%1x%1x", &hi, &lo) == 2) {
			char c = (char)(hi * 16 + lo);

			buf_append(&b, &c, 1);
			uri += 2;
		} else {
			buf_append(&b, uri, 1);
		}
	}
	if (!b.data || b.data[0] != '/' || strlen(b.data) != b.len ||
	    !realpath(b.data, real)) {
		buf_free(&b);
		return NULL;
	}
	buf_free(&b);
	return xstrdup(real);
}

/* The client's answer to roots/list. */
static void on_roots(McpServer *s, const cJSON *msg)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(msg, "result"), "roots");
	const cJSON *e;
	char *paths[MCP_MAX_ROOTS];
	uint32_t n = 0;

	s->roots_request = 0;
	if (!cJSON_IsArray(list)) {
		/* The first time, the command line's roots; later, the
		 * roots as they are. */
		mcp__log(s, 0, "roots/list failed; serving %s",
			 s->roots_pending ? "the command line's roots"
					  : "the roots as they were");
		if (s->roots_pending)
			roots_set(s, NULL, 0);
		return;
	}
	cJSON_ArrayForEach(e, list)
	{
		const char *uri = cJSON_GetStringValue(
		    cJSON_GetObjectItemCaseSensitive(e, "uri"));
		char *p = root_path(uri);

		if (!p) {
			mcp__log(s, 0,
				 "root %s: not a local directory; left out",
				 uri ? uri : "(no uri)");
			continue;
		}
		if (n < MCP_MAX_ROOTS)
			paths[n++] = p;
		else
			xfree(p);
	}
	roots_set(s, paths, n);
	for (uint32_t i = 0; i < n; i++)
		xfree(paths[i]);
}

static void ask_roots(McpServer *s)
{
	s->roots_request = request(s, "roots/list", NULL);
}

static void on_roots_timeout(uv_timer_t *t)
{
	McpServer *s = t->data;

	mcp__log(s, 0, "no answer to roots/list in %d ms; serving %s",
		 MCP_ROOTS_WAIT_MS, s->ninitial ? s->initial[0] : "nothing");
	s->roots_request = 0; /* a later list_changed asks again */
	roots_set(s, NULL, 0);
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
	c->tc.indexing = first_scan_running(s);
	scan_totals(s, &c->tc.files_done, &c->tc.files_seen);
	c->next = s->running;
	s->running = c;
	c->work.run = call_run;
	c->work.done = call_done;
	work_queue(s, &c->work);
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
	if (first_scan_running(s)) {
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
	if (refresh(s,
		    c->tool->fresh ? MCP_RESCAN_MS : MCP_CONTEXT_RESCAN_MS) &&
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

	if (!any_indexing(s))
		return; /* waiting for roots: nothing to count yet */
	scan_totals(s, &done, &seen);
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
static void check_waiting(McpServer *s)
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
		else if (now >= c->deadline || !any_indexing(s))
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
	check_waiting(s);
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
		uv_timer_start(&s->roots_timer, on_roots_timeout,
			       MCP_ROOTS_WAIT_MS, 0);
	} else {
		roots_set(s, NULL, 0);
	}
}

static void on_initialized(McpServer *s, Batch *b, const cJSON *id,
			   const cJSON *p)
{
	(void)b, (void)id, (void)p;
	if (s->client_roots && s->roots_pending && !s->roots_request)
		ask_roots(s);
}

static void on_roots_changed(McpServer *s, Batch *b, const cJSON *id,
			     const cJSON *p)
{
	(void)b, (void)id, (void)p;
	if (s->client_roots && !s->roots_request)
		ask_roots(s);
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
		on_roots(s, msg);
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
		roots_set(s, NULL, 0); /* no scans start now */
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
		root_free(s->roots[i]);
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
