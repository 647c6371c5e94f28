/*
 * server.c: JSON-RPC dispatch, the LSP lifecycle, workspace roots and
 * background indexing.
 */
#include "server_int.h"

#include <limits.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- *
 * Roots and their connections
 * ---------------------------------------------------------------------- */

static int add_root(Server *s, const char *path)
{
	char real[PATH_MAX];
	Root *r;

	if (s->pools.nroots == MAX_ROOTS || !realpath(path, real))
		return -1;
	for (int i = 0; i < s->pools.nroots; i++)
		if (strcmp(s->pools.roots[i]->path, real) == 0 &&
		    !s->pools.roots[i]->removed)
			return i;
	r = xcalloc(1, sizeof(*r));
	r->path = xstrdup(real);
	r->uri = lsp__path_to_uri(real);
	pthread_mutex_init(&r->mu, NULL);
	pthread_mutex_init(&r->open_mu, NULL);
	atomic_init(&r->stale, false);
	s->pools.roots[s->pools.nroots] = r;
	return s->pools.nroots++;
}

static void root_free(Root *r)
{
	for (int i = 0; i < r->nidle; i++)
		index_close(r->idle[i]);
	pthread_mutex_destroy(&r->mu);
	pthread_mutex_destroy(&r->open_mu);
	xfree(r->path);
	xfree(r->uri);
	xfree(r);
}

int lsp__root_of_path(Server *s, const char *path, const char **rel)
{
	int best = -1;
	size_t best_len = 0;

	for (int i = 0; i < s->pools.nroots; i++) {
		const char *rp = s->pools.roots[i]->path;
		size_t n = strlen(rp);

		/* Whole components, and below the root, not the root. */
		if (s->pools.roots[i]->removed ||
		    !castls_path_within(rp, path) || strcmp(rp, path) == 0 ||
		    n < best_len)
			continue;
		best = i;
		best_len = n;
	}
	if (best >= 0 && rel)
		*rel = path + best_len + (best_len > 1);
	return best;
}

/* ---------------------------------------------------------------------- *
 * Jobs
 * ---------------------------------------------------------------------- */

static void job_work(uv_work_t *req)
{
	Job *j = (Job *)req;

	if (!j->cancelled)
		j->run(j);
}

static void job_after(uv_work_t *req, int status)
{
	Job *j = (Job *)req, **p;
	Server *s = j->s;

	for (p = &s->requests; *p; p = &(*p)->next)
		if (*p == j) {
			*p = j->next;
			break;
		}
	s->jobs_in_flight--;
	lsp__server_stale(s); /* before the reply, which may report them */
	if (status == UV_ECANCELED)
		j->cancelled = true;
	if (j->id && !s->exiting) {
		if (j->cancelled)
			lsp__error(s, j->id, RPC_REQUEST_CANCELLED,
				   "request cancelled");
		else if (j->err)
			lsp__error(s, j->id, j->err, "%s", j->msg);
		else
			lsp__reply(s, j->id, j->result), j->result = NULL;
	}
	if (j->done && status != UV_ECANCELED)
		j->done(j);
	cJSON_Delete(j->id);
	cJSON_Delete(j->result);
	j->release(j);
}

void lsp__server_queue(Server *s, Job *j)
{
	j->s = s;
	j->pools = &s->pools;
	if (j->id) {
		j->next = s->requests;
		s->requests = j;
	}
	s->jobs_in_flight++;
	uv_queue_work(s->loop, &j->req, job_work, job_after);
}

static void unpark(Server *s)
{
	Job *j = s->parked, *next;

	s->parked = NULL;
	s->parked_tail = &s->parked;
	uv_timer_stop(&s->park_timer);
	for (; j; j = next) {
		next = j->next;
		lsp__server_queue(s, j);
	}
}

static void on_park_timeout(uv_timer_t *t) { unpark(t->data); }

void lsp__server_queue_fresh(Server *s, Job *j)
{
	if (s->new_writes == 0 || s->exiting) {
		lsp__server_queue(s, j);
		return;
	}
	j->s = s;
	j->next = NULL;
	if (!s->parked)
		uv_timer_start(&s->park_timer, on_park_timeout, PARK_MS, 0);
	*s->parked_tail = j;
	s->parked_tail = &j->next;
}

void lsp__server_doc_written(Server *s)
{
	if (s->new_writes == 0 && s->parked)
		unpark(s);
}

static void cancel_request(Server *s, const cJSON *params)
{
	const cJSON *id = cJSON_GetObjectItemCaseSensitive(params, "id");

	for (Job *j = s->requests; j && id; j = j->next)
		if (cJSON_Compare(j->id, id, 1)) {
			j->cancelled = true;
			uv_cancel((uv_req_t *)&j->req);
			return;
		}
}

/* ---------------------------------------------------------------------- *
 * Indexing
 * ---------------------------------------------------------------------- */

/* A scan of one root on a worker: it reports into progress and stops
 * when *cancel is set, both the loop's, lent to it. */
typedef struct {
	Job job;
	int root;
	int err;
	ScanStats stats;
	Progress *progress;
	const volatile int *cancel;
	Index *ix; /* while it runs */
} ScanJob;

static void scan_progress(void *ctx, const ScanStats *st)
{
	ScanJob *sj = ctx;
	Progress *p = sj->progress;

	pthread_mutex_lock(&p->mu);
	p->stats = *st;
	p->root = sj->root;
	p->dirty = true;
	pthread_mutex_unlock(&p->mu);
	uv_async_send(&p->async);
}

static void scan_with(void *arg)
{
	ScanJob *sj = arg;

	sj->err =
	    index_scan(sj->ix, 0, scan_progress, sj, sj->cancel, &sj->stats);
}

static void scan_run(Job *j)
{
	ScanJob *sj = (ScanJob *)j;
	Root *r = j->pools->roots[sj->root];

	if (!(sj->ix = lsp__pools_index(j->pools, r, &sj->err)))
		return;
	/* A scan of an index that already serves requests (a branch
	 * switch, files changed on disk) runs a parser on every core for
	 * thousands of files; a request, or a keystroke's write, waiting
	 * behind it for a core is what a user feels, so it yields. A first
	 * scan is what the requests are waiting for. */
	if (index_scanned(sj->ix))
		castls_run_in_background(scan_with, sj);
	else
		scan_with(sj);
	lsp__pools_index_return(r, sj->ix);
	sj->ix = NULL;
}

bool lsp__server_indexing(Server *s)
{
	for (int i = 0; i < s->pools.nroots; i++)
		if (s->pools.roots[i]->indexing)
			return true;
	return false;
}

static void progress_send(Server *s, const char *kind, const char *message,
			  int percent)
{
	cJSON *p, *v;

	if (!s->cap_work_progress || s->exiting)
		return;
	p = cJSON_CreateObject();
	v = cJSON_CreateObject();
	cJSON_AddStringToObject(p, "token", s->progress_token);
	cJSON_AddStringToObject(v, "kind", kind);
	if (strcmp(kind, "begin") == 0) {
		cJSON_AddStringToObject(v, "title", "castls: indexing");
		cJSON_AddBoolToObject(v, "cancellable", false);
	}
	if (message)
		cJSON_AddStringToObject(v, "message", message);
	if (percent >= 0 && strcmp(kind, "end") != 0)
		cJSON_AddNumberToObject(v, "percentage", percent);
	cJSON_AddItemToObject(p, "value", v);
	lsp__notify(s, "$/progress", p);
}

static void on_progress(uv_async_t *a)
{
	Server *s = a->data;
	ScanStats st;
	char msg[128];
	bool dirty;

	pthread_mutex_lock(&s->progress.mu);
	st = s->progress.stats;
	dirty = s->progress.dirty;
	s->progress.dirty = false;
	pthread_mutex_unlock(&s->progress.mu);
	if (!dirty || !s->progress_begun)
		return;
	snprintf(msg, sizeof(msg), "%u/%u files", st.done, st.seen);
	progress_send(s, "report", msg,
		      st.seen ? (int)(100.0 * st.done / st.seen) : 0);
}

void lsp__root_failed(Server *s, int root, int err)
{
	Root *r = s->pools.roots[root];
	cJSON *p;
	char msg[1024];
	Buf db = {0};

	if (r->error == err || s->exiting)
		return;
	r->error = err;
	/* A log line scrolls away; a full disk or a read-only cache
	 * leaves the index stale until the user acts, so say it where
	 * they look. */
	if (root == 0 && s->pools.db_path)
		buf_puts(&db, s->pools.db_path);
	else
		index_default_db_path(r->path, &db);
	snprintf(msg, sizeof(msg),
		 "castls: cannot write the index of %s (%s): %s; context "
		 "comes from what it holds. The dbPath setting (or castls "
		 "serve --db) names another file",
		 r->path, db.data, castls_strerror(err));
	buf_free(&db);
	p = cJSON_CreateObject();
	cJSON_AddNumberToObject(p, "type", 1); /* Error */
	cJSON_AddStringToObject(p, "message", msg);
	lsp__notify(s, "window/showMessage", p);
}

static void scan_done(Job *j)
{
	ScanJob *sj = (ScanJob *)j;
	Server *s = j->s;
	Root *r = s->pools.roots[sj->root];

	r->indexing = false;
	if (sj->err && sj->err != CASTLS_ECANCELED) {
		lsp__log(s, 0, "indexing %s: %s", r->path,
			 castls_strerror(sj->err));
		lsp__root_failed(s, sj->root, sj->err);
	} else if (!sj->err) {
		r->error = 0;
	}
	if (!sj->err)
		lsp__log(s, 2, "indexed %s: %u files, %u changed, %u removed",
			 r->path, sj->stats.seen, sj->stats.indexed,
			 sj->stats.removed);
	if (sj->stats.ignore_partial)
		lsp__log(s, 1,
			 "indexing %s: ignore patterns too costly to match: %u "
			 "paths were matched against only part of them, and "
			 "may be indexed though ignored",
			 r->path, sj->stats.ignore_partial);
	/* The scan wrote disk contents; open buffers are the truth. */
	for (Document *d = s->docs; d; d = d->next)
		if (d->root == sj->root)
			lsp__doc_refresh(s, d);
	if (r->rescan && !s->exiting && !s->shutdown) {
		r->rescan = false;
		lsp__server_reindex(s, sj->root);
		return;
	}
	if (!lsp__server_indexing(s) && s->progress_begun) {
		progress_send(s, "end", "done", -1);
		s->progress_begun = false;
	}
}

static void scan_release(Job *j) { xfree(j); }

void lsp__server_reindex(Server *s, int root)
{
	ScanJob *sj;
	Root *r = s->pools.roots[root];

	if (r->removed || s->shutdown || s->exiting)
		return;
	if (r->indexing) {
		r->rescan = true;
		return;
	}
	r->indexing = true;
	if (!s->progress_begun && s->cap_work_progress) {
		cJSON *p = cJSON_CreateObject();

		snprintf(s->progress_token, sizeof(s->progress_token),
			 "castls-index-%lld", (long long)++s->next_request_id);
		cJSON_AddStringToObject(p, "token", s->progress_token);
		lsp__request(s, "window/workDoneProgress/create", p);
		progress_send(s, "begin", "scanning", 0);
		s->progress_begun = true;
	}
	sj = xcalloc(1, sizeof(*sj));
	sj->root = root;
	sj->progress = &s->progress;
	sj->cancel = &s->cancel_scans;
	sj->job.run = scan_run;
	sj->job.done = scan_done;
	sj->job.release = scan_release;
	lsp__server_queue(s, &sj->job);
}

/* A root whose rows a request found older than their files (changed on
 * disk with no watched-file event: an editor that sends none, a tool
 * run outside it) is scanned again, at most every STALE_RESCAN_MS: a
 * file rewritten without pause (a log) must not keep a scan running. */
#define STALE_RESCAN_MS 10000

void lsp__server_stale(Server *s)
{
	uint64_t now = uv_now(s->loop);

	for (int i = 0; i < s->pools.nroots; i++) {
		Root *r = s->pools.roots[i];

		if (!atomic_load(&r->stale) ||
		    (r->stale_scan_at &&
		     now - r->stale_scan_at < STALE_RESCAN_MS))
			continue;
		atomic_store(&r->stale, false);
		r->stale_scan_at = now;
		lsp__log(s, 2, "%s: rows older than their files; rescanning",
			 r->path);
		lsp__server_reindex(s, i);
	}
}

static void reindex_all(Server *s)
{
	for (int i = 0; i < s->pools.nroots; i++)
		lsp__server_reindex(s, i);
}

/* ---------------------------------------------------------------------- *
 * Lifecycle
 * ---------------------------------------------------------------------- */

static const cJSON *get(const cJSON *o, const char *path)
{
	char key[64];

	while (o && *path) {
		const char *dot = strchr(path, '.');
		size_t n = dot ? (size_t)(dot - path) : strlen(path);

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = cJSON_GetObjectItemCaseSensitive(o, key);
		path += n + (dot != NULL);
	}
	return o;
}

static void add_folder_uri(Server *s, const char *uri)
{
	char *path = uri ? lsp__uri_to_path(uri) : NULL;

	if (path && add_root(s, path) < 0)
		lsp__log(s, 1, "workspace folder %s: not a directory", path);
	xfree(path);
}

static PosEncoding pick_encoding(const cJSON *caps)
{
	const cJSON *e, *list = get(caps, "general.positionEncodings");

	cJSON_ArrayForEach(e, list) if (cJSON_IsString(e) &&
					strcmp(e->valuestring, "utf-8") ==
					    0) return POS_UTF8;
	return POS_UTF16;
}

static cJSON *capabilities(Server *s)
{
	static const char *const encodings[] = {"utf-8", "utf-16", "utf-32"};
	cJSON *c = cJSON_CreateObject(), *sync = cJSON_CreateObject(), *o;
	const char *commands[] = {"castls.reindex", "castls.status"};

	cJSON_AddStringToObject(c, "positionEncoding", encodings[s->encoding]);
	cJSON_AddBoolToObject(sync, "openClose", true);
	cJSON_AddNumberToObject(sync, "change", 2); /* incremental */
	o = cJSON_AddObjectToObject(sync, "save");
	cJSON_AddBoolToObject(o, "includeText", false);
	cJSON_AddItemToObject(c, "textDocumentSync", sync);
	cJSON_AddBoolToObject(c, "documentSymbolProvider", true);
	cJSON_AddBoolToObject(c, "workspaceSymbolProvider", true);
	o = cJSON_AddObjectToObject(c, "executeCommandProvider");
	cJSON_AddItemToObject(o, "commands",
			      cJSON_CreateStringArray(commands, 2));
	o = cJSON_AddObjectToObject(c, "workspace");
	o = cJSON_AddObjectToObject(o, "workspaceFolders");
	cJSON_AddBoolToObject(o, "supported", true);
	cJSON_AddBoolToObject(o, "changeNotifications", true);
	o = cJSON_AddObjectToObject(c, "experimental");
	o = cJSON_AddObjectToObject(o, "castls");
	cJSON_AddBoolToObject(o, "context", true);
	cJSON_AddBoolToObject(o, "search", true);
	cJSON_AddBoolToObject(o, "chunks", true);
	cJSON_AddBoolToObject(o, "status", true);
	return c;
}

static void on_initialize(Server *s, const cJSON *id, const cJSON *params)
{
	const cJSON *caps = get(params, "capabilities"), *folders, *f;
	cJSON *result, *info;

	if (s->initialized) {
		lsp__error(s, id, RPC_INVALID_REQUEST, "initialize sent twice");
		return;
	}
	s->encoding = pick_encoding(caps);
	s->cap_work_progress =
	    cJSON_IsTrue(get(caps, "window.workDoneProgress"));
	s->cap_configuration =
	    cJSON_IsTrue(get(caps, "workspace.configuration"));
	s->cap_watch_dynamic = cJSON_IsTrue(
	    get(caps, "workspace.didChangeWatchedFiles.dynamicRegistration"));
	lsp__settings_apply(s, get(params, "initializationOptions"));
	lsp__pools_configure(&s->pools, &s->settings, s->opt.db_path);
	folders = get(params, "workspaceFolders");
	cJSON_ArrayForEach(f, folders)
	    add_folder_uri(s, cJSON_GetStringValue(get(f, "uri")));
	if (!s->pools.nroots && cJSON_IsString(get(params, "rootUri")))
		add_folder_uri(s, get(params, "rootUri")->valuestring);
	if (!s->pools.nroots && cJSON_IsString(get(params, "rootPath")) &&
	    add_root(s, get(params, "rootPath")->valuestring) < 0)
		lsp__log(s, 1, "rootPath is not a directory");
	s->initialized = true;
	result = cJSON_CreateObject();
	cJSON_AddItemToObject(result, "capabilities", capabilities(s));
	info = cJSON_AddObjectToObject(result, "serverInfo");
	cJSON_AddStringToObject(info, "name", "castls");
	cJSON_AddStringToObject(info, "version", CASTLS_VERSION);
	lsp__reply(s, id, result);
}

static void register_watchers(Server *s)
{
	cJSON *p = cJSON_CreateObject(),
	      *regs = cJSON_AddArrayToObject(p, "registrations");
	cJSON *reg = cJSON_CreateObject(), *opts, *watchers, *w;
	Buf glob = {0};

	/* Every extension of the language table, in one glob. */
	buf_puts(&glob, "**/*.{");
	for (int l = LANG_NONE + 1; l < LANG_COUNT; l++)
		for (const char *e = lang_extensions((Lang)l); *e;) {
			size_t n = strcspn(e, " ");

			if (glob.data[glob.len - 1] != '{')
				buf_puts(&glob, ",");
			buf_append(&glob, e + 1, n - 1);
			e += n + (e[n] == ' ');
		}
	buf_puts(&glob, "}");

	cJSON_AddStringToObject(reg, "id", "castls-watch");
	cJSON_AddStringToObject(reg, "method",
				"workspace/didChangeWatchedFiles");
	opts = cJSON_AddObjectToObject(reg, "registerOptions");
	watchers = cJSON_AddArrayToObject(opts, "watchers");
	w = cJSON_CreateObject();
	cJSON_AddStringToObject(w, "globPattern", glob.data);
	cJSON_AddItemToArray(watchers, w);
	w = cJSON_CreateObject();
	cJSON_AddStringToObject(w, "globPattern",
				"**/{.gitignore,.castlsignore}");
	cJSON_AddItemToArray(watchers, w);
	cJSON_AddItemToArray(regs, reg);
	lsp__request(s, "client/registerCapability", p);
	buf_free(&glob);
}

static void pull_configuration(Server *s)
{
	cJSON *p = cJSON_CreateObject(),
	      *items = cJSON_AddArrayToObject(p, "items");
	cJSON *it = cJSON_CreateObject();
	cJSON *m = cJSON_CreateObject();

	cJSON_AddStringToObject(it, "section", "castls");
	cJSON_AddItemToArray(items, it);
	cJSON_AddStringToObject(m, "id", "castls-configuration");
	cJSON_AddStringToObject(m, "method", "workspace/configuration");
	cJSON_AddItemToObject(m, "params", p);
	lsp__send(s, m);
}

static void on_initialized(Server *s, const cJSON *params)
{
	(void)params;
	if (s->cap_watch_dynamic)
		register_watchers(s);
	if (s->cap_configuration)
		pull_configuration(s);
	reindex_all(s);
}

static void apply_settings_change(Server *s, const cJSON *settings)
{
	bool changed;

	changed = lsp__settings_apply(s, settings);
	lsp__pools_configure(&s->pools, &s->settings, s->opt.db_path);
	if (!changed)
		return;
	lsp__pools_flush(&s->pools);
	reindex_all(s);
}

static void on_configuration_reply(Server *s, const cJSON *result)
{
	if (cJSON_IsArray(result) && cJSON_GetArraySize(result) > 0)
		apply_settings_change(s, cJSON_GetArrayItem(result, 0));
}

static void on_did_change_configuration(Server *s, const cJSON *params)
{
	apply_settings_change(s, get(params, "settings"));
	if (s->cap_configuration)
		pull_configuration(s);
}

static void on_workspace_folders(Server *s, const cJSON *params)
{
	const cJSON *f;

	cJSON_ArrayForEach(f, get(params, "event.removed"))
	{
		char *path =
		    lsp__uri_path_real(cJSON_GetStringValue(get(f, "uri")));

		for (int i = 0; path && i < s->pools.nroots; i++)
			if (strcmp(s->pools.roots[i]->path, path) == 0)
				s->pools.roots[i]->removed = true;
		xfree(path);
	}
	cJSON_ArrayForEach(f, get(params, "event.added"))
	{
		int before = s->pools.nroots;

		add_folder_uri(s, cJSON_GetStringValue(get(f, "uri")));
		if (s->pools.nroots > before)
			lsp__server_reindex(s, s->pools.nroots - 1);
	}
}

static void on_watched_files(Server *s, const cJSON *params)
{
	const cJSON *c;
	bool hit[MAX_ROOTS] = {false};
	int left = 0; /* roots no change has hit yet */

	for (int i = 0; i < s->pools.nroots; i++)
		left += !s->pools.roots[i]->removed;
	/* Resolving a path takes a system call per component, on the loop:
	 * a branch switch sends hundreds a notification. One change is
	 * all a root needs. */
	cJSON_ArrayForEach(c, get(params, "changes"))
	{
		char *path;
		int r;

		if (left == 0)
			break;
		path = lsp__uri_path_real(cJSON_GetStringValue(get(c, "uri")));
		r = path ? lsp__root_of_path(s, path, NULL) : -1;
		if (r >= 0 && !hit[r]) {
			hit[r] = true;
			left--;
		}
		xfree(path);
	}
	/* An incremental scan reads only what changed (stamps), and it
	 * applies ignore rules and deletions the same way a full one does. */
	for (int i = 0; i < s->pools.nroots; i++)
		if (hit[i])
			lsp__server_reindex(s, i);
}

static void on_execute_command(Server *s, const cJSON *id, const cJSON *p)
{
	const char *cmd = cJSON_GetStringValue(get(p, "command"));

	if (cmd && strcmp(cmd, "castls.reindex") == 0) {
		reindex_all(s);
		lsp__reply(s, id, NULL);
	} else if (cmd && strcmp(cmd, "castls.status") == 0) {
		lsp__req_status(s, id, p);
	} else {
		lsp__error(s, id, RPC_INVALID_PARAMS, "unknown command: %s",
			   cmd ? cmd : "(none)");
	}
}

static void on_shutdown(Server *s, const cJSON *id)
{
	s->shutdown = true;
	s->cancel_scans = 1;
	lsp__reply(s, id, NULL);
}

static void on_exit_notification(Server *s)
{
	s->exiting = true;
	s->exit_code = s->shutdown ? 0 : 1;
	s->cancel_scans = 1;
	lsp__transport_stop(s);
}

/* ---------------------------------------------------------------------- *
 * Dispatch
 * ---------------------------------------------------------------------- */

typedef enum {
	M_REQUEST = 1,
	M_NOTIFY = 2,
} MethodKind;

/* Handlers take (server, id or NULL, params or NULL). */
typedef void (*Handler)(Server *s, const cJSON *id, const cJSON *params);

static void h_initialize(Server *s, const cJSON *id, const cJSON *p)
{
	on_initialize(s, id, p);
}
static void h_initialized(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	on_initialized(s, p);
}
static void h_shutdown(Server *s, const cJSON *id, const cJSON *p)
{
	(void)p;
	on_shutdown(s, id);
}
static void h_exit(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	(void)p;
	on_exit_notification(s);
}
static void h_open(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	lsp__doc_open(s, p);
}
static void h_change(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	lsp__doc_change(s, p);
}
static void h_close(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	lsp__doc_close(s, p);
}
static void h_save(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	lsp__doc_save(s, p);
}
static void h_config(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	on_did_change_configuration(s, p);
}
static void h_folders(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	on_workspace_folders(s, p);
}
static void h_watched(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	on_watched_files(s, p);
}
static void h_cancel(Server *s, const cJSON *id, const cJSON *p)
{
	(void)id;
	cancel_request(s, p);
}

static const struct {
	const char *name;
	MethodKind kind;
	Handler fn;
	const char *needs; /* a params member that must be an object */
} methods[] = {
    {"initialize", M_REQUEST, h_initialize, NULL},
    {"initialized", M_NOTIFY, h_initialized, NULL},
    {"shutdown", M_REQUEST, h_shutdown, NULL},
    {"exit", M_NOTIFY, h_exit, NULL},
    {"textDocument/didOpen", M_NOTIFY, h_open, "textDocument"},
    {"textDocument/didChange", M_NOTIFY, h_change, "textDocument"},
    {"textDocument/didClose", M_NOTIFY, h_close, "textDocument"},
    {"textDocument/didSave", M_NOTIFY, h_save, "textDocument"},
    {"textDocument/documentSymbol", M_REQUEST, lsp__req_document_symbol,
     "textDocument"},
    {"workspace/symbol", M_REQUEST, lsp__req_workspace_symbol, NULL},
    {"workspace/didChangeConfiguration", M_NOTIFY, h_config, NULL},
    {"workspace/didChangeWorkspaceFolders", M_NOTIFY, h_folders, "event"},
    {"workspace/didChangeWatchedFiles", M_NOTIFY, h_watched, NULL},
    {"workspace/executeCommand", M_REQUEST, on_execute_command, NULL},
    {"castls/context", M_REQUEST, lsp__req_context, "textDocument"},
    {"castls/search", M_REQUEST, lsp__req_search, NULL},
    {"castls/chunks", M_REQUEST, lsp__req_chunks, "textDocument"},
    {"castls/status", M_REQUEST, lsp__req_status, NULL},
    {"$/cancelRequest", M_NOTIFY, h_cancel, NULL},
};

static void dispatch_response(Server *s, const cJSON *msg)
{
	const cJSON *id = get(msg, "id");

	/* Replies to our requests: only the configuration pull matters. */
	if (cJSON_IsString(id) &&
	    strcmp(id->valuestring, "castls-configuration") == 0)
		on_configuration_reply(s, get(msg, "result"));
}

static bool valid_id(const cJSON *id)
{
	return cJSON_IsNumber(id) || cJSON_IsString(id);
}

static void dispatch_message(Server *s, const cJSON *msg)
{
	const cJSON *id = get(msg, "id"), *params = get(msg, "params");
	const cJSON *method = get(msg, "method");
	bool request = id != NULL;
	size_t i;

	if (!cJSON_IsObject(msg)) {
		lsp__error(s, NULL, RPC_INVALID_REQUEST,
			   "message is not an object");
		return;
	}
	if (!method && id && (get(msg, "result") || get(msg, "error"))) {
		dispatch_response(s, msg);
		return;
	}
	if (!cJSON_IsString(method) || (request && !valid_id(id))) {
		lsp__error(s, valid_id(id) ? id : NULL, RPC_INVALID_REQUEST,
			   "not a JSON-RPC request: %s",
			   !cJSON_IsString(method) ? "no method" : "bad id");
		return;
	}
	if (params && !cJSON_IsObject(params) && !cJSON_IsArray(params) &&
	    !cJSON_IsNull(params)) {
		if (request)
			lsp__error(s, id, RPC_INVALID_PARAMS,
				   "params must be an object or array");
		return;
	}
	if (cJSON_IsNull(params))
		params = NULL;
	for (i = 0; i < sizeof(methods) / sizeof(*methods); i++)
		if (strcmp(methods[i].name, method->valuestring) == 0)
			break;
	if (strcmp(method->valuestring, "exit") == 0) {
		on_exit_notification(s);
		return;
	}
	if (!s->initialized && strcmp(method->valuestring, "initialize")) {
		if (request)
			lsp__error(s, id, RPC_SERVER_NOT_INITIALIZED,
				   "server not initialized");
		return;
	}
	if (s->shutdown && request) {
		lsp__error(s, id, RPC_INVALID_REQUEST,
			   "server is shutting down");
		return;
	}
	if (i == sizeof(methods) / sizeof(*methods)) {
		/* Unknown notifications ($/setTrace, ...) are ignored. */
		if (request)
			lsp__error(s, id, RPC_METHOD_NOT_FOUND,
				   "unknown method: %s", method->valuestring);
		return;
	}
	if ((methods[i].kind == M_REQUEST) != request) {
		if (request)
			lsp__error(s, id, RPC_INVALID_REQUEST,
				   "%s is a notification", method->valuestring);
		return;
	}
	if (methods[i].needs &&
	    !cJSON_IsObject(
		cJSON_GetObjectItemCaseSensitive(params, methods[i].needs))) {
		if (request)
			lsp__error(s, id, RPC_INVALID_PARAMS,
				   "params.%s must be an object",
				   methods[i].needs);
		else
			lsp__log(s, 1, "%s: params.%s must be an object",
				 method->valuestring, methods[i].needs);
		return;
	}
	methods[i].fn(s, request ? id : NULL, params);
}

void lsp__server_dispatch(Server *s, const char *body, size_t len)
{
	cJSON *msg;

	if (s->exiting)
		return;
	if (!json_depth_ok(body, len, LSP_MAX_JSON_DEPTH)) {
		lsp__error(s, NULL, RPC_PARSE_ERROR,
			   "JSON nested deeper than %d levels",
			   LSP_MAX_JSON_DEPTH);
		return;
	}
	msg = cJSON_ParseWithLength(body, len);
	if (!msg) {
		lsp__error(s, NULL, RPC_PARSE_ERROR, "malformed JSON");
		return;
	}
	dispatch_message(s, msg);
	cJSON_Delete(msg);
}

/* ---------------------------------------------------------------------- *
 * Running
 * ---------------------------------------------------------------------- */

static void *cjson_malloc(size_t n) { return xmalloc(n); }

/* cJSON allocates through the project's allocator. */
static void json_init(void)
{
	static const cJSON_Hooks hooks = {cjson_malloc, xfree};

	cJSON_InitHooks((cJSON_Hooks *)&hooks);
}

static void walk_close(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Everything but the loop and the transport. */
static Server *server_new(const ServerOptions *opt)
{
	Server *s = xcalloc(1, sizeof(*s));

	json_init();
	s->opt = *opt;
	lsp__settings_defaults(&s->settings);
	pthread_mutex_init(&s->progress.mu, NULL);
	lsp__pools_init(&s->pools);
	lsp__pools_configure(&s->pools, &s->settings, s->opt.db_path);
	s->parked_tail = &s->parked;
	s->writes_tail = &s->writes;
	return s;
}

static void server_delete(Server *s)
{
	/* Jobs the loop ended before running. */
	for (Job **l = &s->parked; l; l = l == &s->parked ? &s->writes : NULL)
		while (*l) {
			Job *j = *l;

			*l = j->next;
			cJSON_Delete(j->id);
			j->release(j);
		}
	while (s->docs) {
		Document *d = s->docs;

		s->docs = d->next;
		lsp__doc_free(d);
	}
	lsp__doc_closed_free(s);
	for (int i = 0; i < s->pools.nroots; i++)
		root_free(s->pools.roots[i]);
	lsp__pools_close(&s->pools);
	framer_delete(s->framer);
	lsp__settings_free(&s->settings);
	pthread_mutex_destroy(&s->progress.mu);
	xfree(s);
}

int server_run(const ServerOptions *opt)
{
	uv_loop_t loop;
	Server *s = server_new(opt);
	int code;

	signal(SIGPIPE, SIG_IGN);
	uv_loop_init(&loop);
	s->loop = &loop;
	uv_async_init(&loop, &s->progress.async, on_progress);
	s->progress.async.data = s;
	uv_unref((uv_handle_t *)&s->progress.async);
	/* Unreferenced: parked jobs wait on writes, which keep the loop. */
	uv_timer_init(&loop, &s->park_timer);
	s->park_timer.data = s;
	uv_unref((uv_handle_t *)&s->park_timer);
	if (lsp__transport_start(s) != 0) {
		fprintf(stderr, "castls: cannot read standard input\n");
		s->exiting = true;
		s->exit_code = 1;
	}
	uv_run(&loop, UV_RUN_DEFAULT);
	/* Input ended or exit arrived, and queued work has finished (uv_run
	 * returns only when nothing is pending). */
	uv_walk(&loop, walk_close, NULL);
	uv_run(&loop, UV_RUN_DEFAULT);
	uv_loop_close(&loop);
	code = s->exit_code;
	server_delete(s);
	return code;
}

/* ---------------------------------------------------------------------- *
 * The result JSON for the command line
 * ---------------------------------------------------------------------- */

void server_result_json(const RankResult *r, const char *const *roots,
			const char *buffer_path, Buf *out)
{
	char *uri = lsp__path_to_uri(buffer_path), *text;
	cJSON *res;
	size_t n;

	json_init();
	res = lsp__render_result(r, roots, uri);
	/* Valid UTF-8 whatever the files hold, as the server sends it. */
	text = lsp__json_text_utf8(res, &n);
	buf_puts(out, text ? text : "null");
	xfree(text);
	xfree(uri);
	cJSON_Delete(res);
}
