/*
 * roots.c: the MCP server's roots (from the command line or the
 * client's roots/list), their database connections and the chunkers the
 * worker threads borrow, the work queued on the thread pool, and the
 * scans that keep each index fresh.
 */
#include "mcp_int.h"

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void mcp__root_free(McpRoot *r)
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

void mcp__work_queue(McpServer *s, Work *w)
{
	w->s = s;
	uv_queue_work(s->loop, &w->req, work_run, work_after);
}

/* ---------------------------------------------------------------------- *
 * Scans
 * ---------------------------------------------------------------------- */

static void scan_next(McpServer *s);

/* Whether a root has no scan done yet and one running: its index may be
 * far from whole. */
bool mcp__first_scan_running(McpServer *s)
{
	for (int i = 0; i < s->nroots; i++)
		if (!atomic_load(&s->roots[i]->removed) &&
		    s->roots[i]->indexing && !s->roots[i]->scanned)
			return true;
	return false;
}

bool mcp__any_indexing(McpServer *s)
{
	for (int i = 0; i < s->nroots; i++)
		if (!atomic_load(&s->roots[i]->removed) &&
		    s->roots[i]->indexing)
			return true;
	return false;
}

/* Files done and seen by the scans running, all roots. */
void mcp__scan_totals(McpServer *s, uint32_t *done, uint32_t *seen)
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
	mcp__check_waiting(s);
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
	mcp__work_queue(s, &sc->work);
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
bool mcp__refresh(McpServer *s, uint64_t after)
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
void mcp__roots_set(McpServer *s, char **paths, uint32_t n)
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
	mcp__check_waiting(s);
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
void mcp__on_roots(McpServer *s, const cJSON *msg)
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
			mcp__roots_set(s, NULL, 0);
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
	mcp__roots_set(s, paths, n);
	for (uint32_t i = 0; i < n; i++)
		xfree(paths[i]);
}

void mcp__ask_roots(McpServer *s)
{
	s->roots_request = mcp__request(s, "roots/list", NULL);
}

void mcp__on_roots_timeout(uv_timer_t *t)
{
	McpServer *s = t->data;

	mcp__log(s, 0, "no answer to roots/list in %d ms; serving %s",
		 MCP_ROOTS_WAIT_MS, s->ninitial ? s->initial[0] : "nothing");
	s->roots_request = 0; /* a later list_changed asks again */
	mcp__roots_set(s, NULL, 0);
}
