/*
 * scan.c: bringing the index up to date with the files under its root.
 *
 * 1. Walk the root (one thread): honour ignore files, never leave the root
 *    through a symlink, never enter a directory twice (symlink loops).
 * 2. Merge the sorted candidate list with the stored stamps: same size and
 *    mtime means unchanged; stored paths not found have vanished.
 * 3. Worker threads read, hash and chunk the rest; the calling thread
 *    writes their results in batched transactions (one writer, so SQLite
 *    never sees two writes at once from us), and chunks files itself
 *    whenever no result waits.
 */
#include "index_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ignore.h"

#define WALK_MAX_DEPTH 128 /* directories deeper than this are skipped */
/* A write transaction ends after this many files, source bytes or
 * milliseconds, whichever comes first. Every commit leaves the full-text
 * index one more segment, and merging segments costs about as much as
 * writing them, so the batches are large: a first scan of a large tree
 * commits every second or so. */
#define BATCH_FILES 2048
#define BATCH_BYTES (16u << 20)
#define BATCH_MS 1000
/* Results waiting for the writer, at most: enough that the workers go on
 * parsing through a commit (the full-text index writing its segment),
 * bounded in bytes so that memory stays small. */
#define QUEUE_MAX 4096
#define QUEUE_BYTES (16u << 20)
/* A load (index__load) builds its secondary indexes and merges its
 * full-text segments into one after its rows, and with every file
 * parsed by then, one core works while the other waits: 20 s of a
 * 140 s cold index of the Linux kernel. So a load of index__finish_min
 * bytes and more finishes early instead, once all but the last
 * FINISH_PART of its bytes are written, and the rest is written as any
 * later scan writes, into the indexes. The finish takes turns with the
 * writes (Finish): the workers parse on into a queue allowed
 * FINISH_QUEUE_MAX files and FINISH_QUEUE_BYTES, and the writer writes
 * what they parse between its steps. (Taken in one go, the kernel's
 * finish lasted 12-17 s, the queue was full after 5, and the worker
 * waited out the rest. Allowed 64 MiB, the load's peak RSS reached
 * 327 MB, and 254 MB at 32 MiB.) */
#define FINISH_PART 8
#define FINISH_QUEUE_MAX 16384
#define FINISH_QUEUE_BYTES (32u << 20)
uint64_t index__finish_min = 64u << 20;
#define PROGRESS_MS 100

/* ---------------------------------------------------------------------- *
 * Candidates
 * ---------------------------------------------------------------------- */

typedef struct {
	char *rel;
	int64_t size, mtime;
	FileStamp stored;
	bool known; /* the index has this path */
} Candidate;

typedef struct {
	dev_t dev;
	ino_t ino;
} DirId;

typedef struct {
	Index *ix;
	Ignore *ig;
	Candidate *c;
	uint32_t n, cap;
	DirId *dirs;
	uint32_t ndirs, dcap;
	size_t root_len;
	ScanStats *stats;
	const volatile int *cancel;
	bool rechunk;	 /* stored rows were cut at another chunk size */
	bool bulk;	 /* a first scan into an empty index */
	bool load;	 /* bulk, its secondary indexes dropped (index__load) */
	bool finished;	 /* the load finished before its last rows */
	uint32_t stored; /* files the index had */
} Walk;

int64_t index__stat_mtime(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* Records a directory; false when it was entered before (a loop). */
static bool enter_once(Walk *w, const struct stat *st)
{
	for (uint32_t i = 0; i < w->ndirs; i++)
		if (w->dirs[i].dev == st->st_dev &&
		    w->dirs[i].ino == st->st_ino)
			return false;
	if (w->ndirs == w->dcap) {
		w->dcap = w->dcap ? w->dcap * 2 : 64;
		w->dirs = xrealloc(w->dirs, w->dcap * sizeof(*w->dirs));
	}
	w->dirs[w->ndirs++] = (DirId){st->st_dev, st->st_ino};
	return true;
}

/* Adds the patterns of file abs (if it exists) for directory rel. Only a
 * regular file inside the root counts: a FIFO would block the walk, and
 * a link out of the root is not the workspace's. */
static void add_ignore_file(Walk *w, const char *abs, const char *rel)
{
	char *text;
	size_t len;

	if (castls_read_file_in(w->ix->root, abs, 1u << 20, &text, &len,
				NULL) == 0) {
		ignore_add(w->ig, rel, text, len);
		xfree(text);
	}
}

static void add_candidate(Walk *w, const char *rel, const struct stat *st)
{
	Candidate *c;

	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->c = xrealloc(w->c, w->cap * sizeof(*w->c));
	}
	c = &w->c[w->n++];
	memset(c, 0, sizeof(*c));
	c->rel = xstrdup(rel);
	c->size = st->st_size;
	c->mtime = index__stat_mtime(st);
	w->stats->seen++;
}

/* Follows a symlink only when it resolves inside the root; fills *st
 * with the target's status. */
static bool link_target_ok(Walk *w, const char *abs, struct stat *st)
{
	char real[PATH_MAX];

	if (!realpath(abs, real) || !castls_path_within(w->ix->root, real))
		return false;
	return stat(real, st) == 0;
}

static void walk_dir(Walk *w, Buf *abs, Buf *rel, int depth);

/* One directory entry; abs and rel already name it. */
/* Skipped unless an exclude pattern brings them back (gitignore's
 * `!node_modules/`): dependencies and caches fill a workspace with code
 * that is not the project's. So do virtual environments, whatever their
 * name (is_venv). */
#define DEFAULT_EXCLUDES "node_modules/\n__pycache__/\n.tox/\n.mypy_cache/\n"
/* Build outputs and vendored copies, where no git repository's ignore
 * files say what is the project's (in one, a tracked vendor/ is). */
#define DEFAULT_EXCLUDES_NO_GIT "dist/\nbuild/\ntarget/\nvendor/\n"

/* Whether directory abs is a Python virtual environment (it holds the
 * pyvenv.cfg every venv has), whatever its name. */
static bool is_venv(Buf *abs)
{
	size_t n = abs->len;
	struct stat st;
	bool yes;

	buf_puts(abs, "/pyvenv.cfg");
	yes = stat(abs->data, &st) == 0 && S_ISREG(st.st_mode);
	abs->len = n;
	abs->data[n] = '\0';
	return yes;
}

static void walk_entry(Walk *w, Buf *abs, Buf *rel, int depth)
{
	struct stat st;
	const char *base = strrchr(rel->data, '/');
	uint64_t max = w->ix->opt.max_file_size ? w->ix->opt.max_file_size
						: INDEX_DEFAULT_MAX_FILE;

	base = base ? base + 1 : rel->data;
	if (lstat(abs->data, &st) < 0)
		return; /* vanished since readdir */
	/* A link to a file is followed when it stays inside the root. A link
	 * to a directory is not: inside the root its files are found under
	 * their real paths (a link sorting first would otherwise take them
	 * over), outside it they are not ours; git does not follow either. */
	if (S_ISLNK(st.st_mode) &&
	    (!link_target_ok(w, abs->data, &st) || S_ISDIR(st.st_mode)))
		return;
	if (S_ISDIR(st.st_mode)) {
		if (strcmp(base, ".git") == 0 ||
		    ignore_match(w->ig, rel->data, true) || is_venv(abs))
			return;
		if (depth < WALK_MAX_DEPTH && enter_once(w, &st))
			walk_dir(w, abs, rel, depth + 1);
		return;
	}
	if (!S_ISREG(st.st_mode) || ignore_match(w->ig, rel->data, false))
		return;
	/* Known language by name, or no extension at all (a shebang may
	 * tell); everything else is not ours. */
	if (lang_detect(rel->data, NULL, 0) == LANG_NONE &&
	    (strchr(base, '.') && base[0] != '.'))
		return;
	if ((uint64_t)st.st_size > max) {
		w->stats->skipped++;
		return;
	}
	add_candidate(w, rel->data, &st);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void walk_dir(Walk *w, Buf *abs, Buf *rel, int depth)
{
	size_t mark = ignore_mark(w->ig), alen = abs->len, rlen = rel->len;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;

	if (w->cancel && *w->cancel)
		return;
	buf_puts(abs, "/.gitignore");
	add_ignore_file(w, abs->data, rel->data);
	abs->len = alen;
	buf_puts(abs, "/.castlsignore");
	add_ignore_file(w, abs->data, rel->data);
	abs->len = alen;
	abs->data[alen] = '\0';
	if (!(d = opendir(abs->data)))
		goto out;
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	/* Sorted, so scans are deterministic and the list comes out in
	 * path order for most trees. */
	if (n)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n; i++) {
		buf_printf(abs, "/%s", names[i]);
		if (rlen)
			buf_puts(rel, "/");
		buf_puts(rel, names[i]);
		walk_entry(w, abs, rel, depth);
		abs->len = alen;
		abs->data[alen] = '\0';
		rel->len = rlen;
		if (rel->data)
			rel->data[rlen] = '\0';
		xfree(names[i]);
	}
	xfree(names);
out:
	ignore_reset(w->ig, mark);
}

static int cmp_candidates(const void *a, const void *b)
{
	return strcmp(((const Candidate *)a)->rel, ((const Candidate *)b)->rel);
}

static void walk_root(Walk *w)
{
	Buf abs = {0}, rel = {0};
	struct stat st;

	buf_puts(&abs, w->ix->root);
	buf_puts(&rel, "");
	/* Lowest precedence first: the defaults, which the user's exclude
	 * patterns and every ignore file may override. */
	ignore_add(w->ig, "", DEFAULT_EXCLUDES, strlen(DEFAULT_EXCLUDES));
	buf_puts(&abs, "/.git");
	if (stat(abs.data, &st) != 0)
		ignore_add(w->ig, "", DEFAULT_EXCLUDES_NO_GIT,
			   strlen(DEFAULT_EXCLUDES_NO_GIT));
	abs.len = w->root_len;
	abs.data[abs.len] = '\0';
	if (w->ix->opt.exclude)
		ignore_add(w->ig, "", w->ix->opt.exclude,
			   strlen(w->ix->opt.exclude));
	buf_puts(&abs, "/.git/info/exclude");
	add_ignore_file(w, abs.data, "");
	abs.len = w->root_len;
	abs.data[abs.len] = '\0';
	if (stat(abs.data, &st) == 0)
		enter_once(w, &st);
	walk_dir(w, &abs, &rel, 0);
	w->stats->ignore_partial = (uint32_t)ignore_partial(w->ig);
	if (w->stats->ignore_partial && !w->ix->opt.quiet)
		fprintf(stderr,
			"castls: %s: ignore patterns too costly to match: %u "
			"paths were matched against only part of them, and "
			"may be indexed though ignored\n",
			w->ix->root, w->stats->ignore_partial);
	buf_free(&abs);
	buf_free(&rel);
	if (w->n)
		qsort(w->c, w->n, sizeof(*w->c), cmp_candidates);
}

/* ---------------------------------------------------------------------- *
 * Merging with what is stored
 * ---------------------------------------------------------------------- */

typedef struct {
	int64_t *ids; /* stored files no longer found */
	uint32_t n, cap;
} Vanished;

static int merge_stored(Walk *w, Vanished *gone)
{
	sqlite3_stmt *s;
	uint32_t i = 0;
	int rc = sqlite3_prepare_v2(w->ix->db,
				    "SELECT id, path, size, mtime, hash FROM"
				    " files ORDER BY path",
				    -1, &s, NULL);

	if (rc != SQLITE_OK)
		return index__db_error(w->ix, rc);
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(s, 1);
		int cmp = -1;

		w->stored++;
		while (i < w->n && (cmp = strcmp(w->c[i].rel, path)) < 0)
			i++;
		if (i < w->n && cmp == 0) {
			Candidate *c = &w->c[i];

			c->known = true;
			c->stored.id = sqlite3_column_int64(s, 0);
			c->stored.size = sqlite3_column_int64(s, 2);
			c->stored.mtime = sqlite3_column_int64(s, 3);
			c->stored.hash = (uint64_t)sqlite3_column_int64(s, 4);
			/* Another chunk size: read and re-chunk everything. */
			if (w->rechunk)
				c->stored.size = c->stored.mtime = -1,
				c->stored.hash = 0;
			continue;
		}
		if (gone->n == gone->cap) {
			gone->cap = gone->cap ? gone->cap * 2 : 64;
			gone->ids =
			    xrealloc(gone->ids, gone->cap * sizeof(*gone->ids));
		}
		gone->ids[gone->n++] = sqlite3_column_int64(s, 0);
	}
	sqlite3_finalize(s);
	return rc == SQLITE_DONE ? 0 : index__db_error(w->ix, rc);
}

/* ---------------------------------------------------------------------- *
 * Workers
 * ---------------------------------------------------------------------- */

typedef enum {
	RES_WRITE, /* new rows */
	RES_TOUCH, /* same content, new stamp */
	RES_DROP,  /* no longer indexable or gone: delete stored rows */
	RES_NOTHING,
} ResultKind;

typedef struct Result {
	ResultKind kind;
	Candidate *cand;
	Lang lang;
	FileStamp stamp;
	char *text;
	uint32_t len;
	Chunking chunks;
	bool skipped;
	bool generated;	     /* skipped as minified or written by a tool */
	uint32_t worker;     /* the worker that made it, and frees it */
	struct Result *next; /* in a worker's spent list */
} Result;

/* The files of todo are parsed in any order, by whichever thread is
 * free, and written in theirs: ready[i] holds todo[i]'s result until
 * every file before it is written. Files written in the same order get
 * the same row ids, whatever the threads' timing, and a name's
 * identical definitions in several files (a platform's variants) are
 * ranked by id: the same tree gives the same answers. */
typedef struct {
	Walk *w;
	Candidate **todo;
	uint32_t ntodo, next; /* next: the first file no thread has taken */
	uint32_t written;     /* the first file not handed to the writer */
	uint64_t todo_bytes;  /* their sizes at the walk */
	pthread_mutex_t mu;
	pthread_cond_t not_empty, not_full;
	Result **ready;
	uint32_t queued;
	uint64_t queued_bytes; /* source bytes of the queued results */
	int stop;
	bool finishing; /* the writer finishes a load: the queue may grow */
	/* Results written, handed back to the worker that made them: its
	 * allocator arena gets its memory back without the writer taking
	 * that arena's lock on every free while the worker allocates. */
	Result *spent[INDEX_MAX_JOBS];
	Chunker *own; /* the writer's, for the files it chunks itself */
} Pool;

/* The writer's worker id, for the results it makes itself. */
#define WRITER_ID (INDEX_MAX_JOBS - 1)

typedef struct {
	Pool *p;
	uint32_t id;
} Worker;

static void process(Chunker *ch, Index *ix, Candidate *c, Result *r)
{
	Buf abs = {0};
	size_t len;
	uint64_t max = ix->opt.max_file_size ? ix->opt.max_file_size
					     : INDEX_DEFAULT_MAX_FILE;
	DiskStamp ds;
	int err;

	r->cand = c;
	buf_printf(&abs, "%s/%s", ix->root, c->rel);
	err = castls_read_file_in(ix->root, abs.data, max, &r->text, &len, &ds);
	/* A file rewritten while it was read keeps its rows: its stamp on
	 * disk differs from the stored one, so the next scan reads it. */
	r->kind = c->known && err != CASTLS_ECHANGING ? RES_DROP : RES_NOTHING;
	r->skipped = true;
	if (err) { /* vanished, unreadable, not ours or past the limit */
		buf_free(&abs);
		return;
	}
	/* The stamp of the bytes read, not the walk's: the file may have
	 * changed in between, and a stamp newer than its text would pass
	 * that text for the file's truth until the next change. */
	r->stamp.size = ds.size;
	r->stamp.mtime = ds.mtime;
	r->len = (uint32_t)len;
	/* The absolute path: a `.h` looks for its sibling `.cpp`. */
	r->lang = lang_detect(abs.data, r->text, len);
	buf_free(&abs);
	if (r->lang == LANG_NONE || castls_is_binary(r->text, len))
		return;
	/* Nobody reads what a tool wrote, and it repeats its sources. */
	r->generated = castls_is_minified(r->text, r->len) ||
		       lang_generated(r->lang, c->rel, r->text, len);
	if (r->generated)
		return;
	r->stamp.hash = castls_hash(r->text, len, 0);
	r->skipped = false;
	if (c->known && c->stored.hash == r->stamp.hash) {
		r->kind = RES_TOUCH;
		return;
	}
	if (chunker_run(ch, r->lang, r->text, r->len, NULL, &r->chunks) == 0)
		r->kind = RES_WRITE;
	else
		r->skipped = true;
}

static void result_free(Result *r);

static void results_free(Result *r)
{
	while (r) {
		Result *next = r->next;

		result_free(r);
		r = next;
	}
}

static bool queue_full(const Pool *p)
{
	if (p->finishing)
		return p->queued >= FINISH_QUEUE_MAX ||
		       p->queued_bytes >= FINISH_QUEUE_BYTES;
	return p->queued >= QUEUE_MAX || p->queued_bytes >= QUEUE_BYTES;
}

/* Whether a thread may take the next file (p->mu held). */
static bool can_take(const Pool *p)
{
	return p->next < p->ntodo && !p->stop &&
	       !(p->w->cancel && *p->w->cancel);
}

/* Whether the writer's next file is parsed and waits (p->mu held). */
static bool next_parsed(const Pool *p)
{
	return p->written < p->next && p->ready[p->written];
}

/* Holds todo[i]'s result r until the writer comes to it (p->mu held). */
static void park(Pool *p, uint32_t i, Result *r)
{
	p->ready[i] = r;
	p->queued++;
	p->queued_bytes += r->len;
	if (i == p->written)
		pthread_cond_signal(&p->not_empty);
}

static void *worker_main(void *arg)
{
	Worker *me = arg;
	Pool *p = me->p;
	Chunker *ch = chunker_new(p->w->ix->opt.max_chunk_size);

	for (;;) {
		Result *r, *spent;
		uint32_t i;

		pthread_mutex_lock(&p->mu);
		while (queue_full(p) && !p->stop)
			pthread_cond_wait(&p->not_full, &p->mu);
		/* A file taken is always parsed: the writer waits for it. */
		i = can_take(p) ? p->next++ : UINT32_MAX;
		spent = p->spent[me->id];
		p->spent[me->id] = NULL;
		pthread_mutex_unlock(&p->mu);
		results_free(spent);
		if (i == UINT32_MAX)
			break;
		r = xcalloc(1, sizeof(*r));
		r->worker = me->id;
		process(ch, p->w->ix, p->todo[i], r);
		pthread_mutex_lock(&p->mu);
		park(p, i, r);
		pthread_mutex_unlock(&p->mu);
	}
	chunker_delete(ch);
	return NULL;
}

/* What pool_pop returns, rather than wait for the workers, when another
 * connection waits for the write lock the writer holds. */
static Result give_way;

/* Waits up to LOCK_POLL_MS for a result when another connection could
 * come to want the lock (p->mu held). */
#define LOCK_POLL_MS 2
static void wait_result(Pool *p)
{
	struct timespec ts;

	if (!p->w->ix->opt.lock_wait) {
		pthread_cond_wait(&p->not_empty, &p->mu);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += LOCK_POLL_MS * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&p->not_empty, &p->mu, &ts);
}

/* Hands back done (may be NULL), the result last written, to its
 * worker; returns the next result in the files' order, or NULL when
 * every file taken is written and no more will be. While the next is
 * not parsed yet, the writer chunks a later file itself: it is one of
 * the scan's threads, so the cores never have more threads to run than
 * they have room for, nor one idle while files remain. &give_way when a
 * connection waits for the lock the writer holds. */
static Result *pool_pop(Pool *p, Result *done)
{
	Result *r;
	uint32_t i;

	if (done && done->worker == WRITER_ID) {
		result_free(done);
		done = NULL;
	}
	pthread_mutex_lock(&p->mu);
	if (done) {
		done->next = p->spent[done->worker];
		p->spent[done->worker] = done;
	}
	while (!next_parsed(p)) {
		/* The next file, when no thread has taken it; a later one
		 * while the queue has room. */
		if (can_take(p) && (p->written == p->next || !queue_full(p))) {
			i = p->next++;
			pthread_mutex_unlock(&p->mu);
			r = xcalloc(1, sizeof(*r));
			r->worker = WRITER_ID;
			process(p->own, p->w->ix, p->todo[i], r);
			pthread_mutex_lock(&p->mu);
			park(p, i, r);
			continue;
		}
		if (p->written == p->next) { /* all taken are written */
			pthread_mutex_unlock(&p->mu);
			return NULL;
		}
		if (p->w->ix->in_txn && index__lock_wanted(p->w->ix)) {
			pthread_mutex_unlock(&p->mu);
			return &give_way;
		}
		wait_result(p);
	}
	r = p->ready[p->written];
	p->ready[p->written++] = NULL;
	p->queued--;
	p->queued_bytes -= r->len;
	pthread_cond_signal(&p->not_full);
	pthread_mutex_unlock(&p->mu);
	return r;
}

static void result_free(Result *r)
{
	if (r->kind == RES_WRITE)
		chunking_close(&r->chunks);
	xfree(r->text);
	xfree(r);
}

/* ---------------------------------------------------------------------- *
 * The writer
 * ---------------------------------------------------------------------- */

static int apply(Index *ix, Result *r, ScanStats *st)
{
	int err = 0;

	switch (r->kind) {
	case RES_WRITE:
		err = index__file_write(ix, r->cand->rel, r->lang, &r->stamp,
					r->text, r->len, &r->chunks, NULL);
		st->indexed++;
		st->bytes += r->len;
		break;
	case RES_TOUCH:
		err = index__file_touch(ix, r->cand->stored.id, &r->stamp);
		st->unchanged++;
		break;
	case RES_DROP:
		err = index__file_delete(ix, r->cand->stored.id);
		st->removed++;
		break;
	case RES_NOTHING:
		break;
	}
	st->skipped += r->skipped;
	st->generated += r->generated;
	st->done++;
	return err;
}

/* Commits the write transaction; in bulk mode, also copies what it
 * wrote into the database file now, while workers still parse, rather
 * than all at once when the index is closed, and starts writing it to
 * disk for the sync at the end. A checkpoint that fails (a reader holds
 * the pages) only leaves that work to the close. */
static int batch_commit(Walk *w)
{
	int err = index__commit(w->ix);

	if (!err && w->bulk) {
		sqlite3_wal_checkpoint_v2(
		    w->ix->db, NULL, SQLITE_CHECKPOINT_PASSIVE, NULL, NULL);
		index__writeback(w->ix);
	}
	return err;
}

/* The last commit runs after the last parse, with every worker idle,
 * and its cost (the full-text index's pending terms go out as a
 * segment) grows with its batch. So in bulk mode batches also end early
 * near the end: once three quarters of the bytes are written, then once
 * three quarters of the rest are, until the rest is a sixteenth or less.
 * Returns where the next early end falls, or 0 for none. */
static uint64_t next_early(uint64_t todo, uint64_t written)
{
	uint64_t left = todo > written ? todo - written : 0;

	return left > todo / 16 ? written + left / 4 * 3 : 0;
}

/* After a commit for a connection that waits for the write lock: until
 * it has taken it (it stops stamping), or LET_THROUGH_MS. */
#define LET_THROUGH_MS 200
static void let_through(Index *ix)
{
	for (int i = 0; i < LET_THROUGH_MS && index__lock_wanted(ix); i++)
		sqlite3_sleep(1);
}

static void set_finishing(Pool *p, bool on)
{
	pthread_mutex_lock(&p->mu);
	p->finishing = on;
	pthread_cond_broadcast(&p->not_full);
	pthread_mutex_unlock(&p->mu);
}

static int drop_vanished(Index *ix, const Vanished *gone, ScanStats *st)
{
	int err;

	if (!gone->n)
		return 0;
	if ((err = index__begin(ix)))
		return err;
	for (uint32_t i = 0; i < gone->n && !err; i++) {
		err = index__file_delete(ix, gone->ids[i]);
		st->removed++;
	}
	return index__end(ix, err);
}

static int meta_put(Index *ix, const char *key, long long value)
{
	sqlite3_stmt *s = index__stmt(ix, ST_META_PUT);
	char text[32];
	int rc;

	snprintf(text, sizeof(text), "%lld", value);
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, text, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(s);
	return rc == SQLITE_DONE ? 0 : index__db_error(ix, rc);
}

/* The number stored under key in meta; otherwise when there is none. */
static long long meta_get(Index *ix, const char *key, long long otherwise)
{
	sqlite3_stmt *s;
	long long v = otherwise;

	if (sqlite3_prepare_v2(ix->db,
			       "SELECT CAST(value AS INTEGER) FROM meta"
			       " WHERE key=?1",
			       -1, &s, NULL) != SQLITE_OK)
		return otherwise;
	sqlite3_bind_text(s, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(s) == SQLITE_ROW)
		v = sqlite3_column_int64(s, 0);
	sqlite3_finalize(s);
	return v;
}

/* The chunk size the stored rows were cut at; -1 when unknown. */
static long long stored_chunk_size(Index *ix)
{
	return meta_get(ix, "chunk_size", -1);
}

bool index_scanned(Index *ix)
{
	sqlite3_stmt *s;
	bool found;

	if (sqlite3_prepare_v2(ix->db,
			       "SELECT 1 FROM meta WHERE key='last_scan'", -1,
			       &s, NULL) != SQLITE_OK)
		return false;
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

static uint32_t chunk_size_of(const Index *ix)
{
	return ix->opt.max_chunk_size ? ix->opt.max_chunk_size
				      : CHUNKER_DEFAULT_MAX_SIZE;
}

/* Records the scan's time and chunk size, and the files written since
 * the full-text index was last compacted (*written), in one
 * transaction. The files a load writes after its early finish are not
 * counted: new files leave the full-text index segments, which
 * COMPACT_SEGMENTS bounds, and no rows a merge must drop. */
static int mark_scanned(Index *ix, const Walk *w, long long *written)
{
	const ScanStats *st = w->stats;
	int err = index__begin(ix);

	*written = meta_get(ix, "written", 0) +
		   (w->finished ? 0 : st->indexed + st->removed);
	if (!err)
		err = meta_put(ix, "last_scan", (long long)index__now());
	if (!err)
		err = meta_put(ix, "chunk_size", chunk_size_of(ix));
	if (!err)
		err = meta_put(ix, "written", *written);
	return index__end(ix, err);
}

/* FTS5 writes a segment at each commit and merges segments of like size
 * as they pile up; the rows a scan replaces keep their postings in the
 * older segments until a merge reaches them. After a scan that rewrote
 * much (a first index, a branch switch), every term lookup visits a
 * dozen segments and more, half dead: a context request's lookups took
 * 50 ms and more where they take 5. So once the files written since the
 * last compaction pass a sixteenth of the workspace (and COMPACT_MIN), the
 * segments are merged into one, COMPACT_PAGES of work a step. The steps
 * share a transaction for COMPACT_TXN_MS, or until a buffer's write
 * waits for the lock: a buffer's write then waits for one step at most
 * (a few ms), and the readers, whose page caches every commit empties,
 * see a handful of commits rather than one per step (hundreds).
 *
 * A buffer's writes are no files written, but each commits a segment of
 * its own: FTS5's merges keep about three a level, and the index
 * bench-scale's typing, branch switches and soak left had 19, over which
 * a context request at 5 M lines spent a sixth to a quarter more than
 * over one. So a scan also compacts when the index has more than
 * COMPACT_SEGMENTS segments. */
#define COMPACT_MIN 256
#define COMPACT_PAGES 64
#define COMPACT_TXN_MS 250
#define COMPACT_SEGMENTS 16
/* A merge into one segment is a new level of FTS5's structure each time
 * it starts while segments lie on more than one level, as they do after
 * every write, and SQLite 3.40 never takes a level away: past 2,000 the
 * table reads as corrupt. Typing all through a compaction made it start
 * over at each step: 2,001 levels within a minute of bench-scale's soak.
 * So a compaction gives up after COMPACT_YIELDS buffer writes let
 * through (the next scan goes on), and once the structure has
 * COMPACT_LEVELS levels, it merges like FTS5's own automerge does (like
 * segments of one level, no new levels but at the top) for good. */
#define COMPACT_YIELDS 8
#define COMPACT_LEVELS 1024

/* Records that the full-text index holds no files written since its
 * last compaction. */
static int mark_compacted(Index *ix)
{
	int err = index__begin(ix);

	return err ? err : index__end(ix, meta_put(ix, "written", 0));
}

static int compact(Walk *w, long long written)
{
	Index *ix = w->ix;
	int64_t began = 0, levels, segments;
	bool more = true, wanted;
	int err = 0, yields = 0, pages;

	index__fts_structure(ix, &levels, &segments);
	if ((written < COMPACT_MIN || written < (long long)w->n / 16) &&
	    segments <= COMPACT_SEGMENTS)
		return 0;
	pages = levels >= 0 && levels < COMPACT_LEVELS ? -COMPACT_PAGES
						       : COMPACT_PAGES;
	while (!err && more) {
		if (w->cancel && *w->cancel)
			break; /* the next scan finishes it */
		if (!ix->in_txn) {
			err = index__begin(ix);
			began = index__clock_ms();
		}
		if (err)
			break;
		err = index__merge_pages(ix, pages, &more);
		wanted = index__lock_wanted(ix);
		if (!err && (!more || wanted ||
			     index__clock_ms() - began >= COMPACT_TXN_MS)) {
			err = index__commit(ix);
			if (!err && wanted) {
				let_through(ix);
				if (++yields == COMPACT_YIELDS)
					break; /* the next scan goes on */
			}
		}
	}
	if (ix->in_txn)
		err = index__end(ix, err);
	return !err && !more ? mark_compacted(ix) : err;
}

/* A load's early finish, a step at a time: its secondary indexes built
 * one a step, then its full-text segments merged into one (whatever
 * their number: the rest of the load adds a few, which mark_scanned
 * does not count), COMPACT_TXN_MS of the merge a step. */
typedef struct {
	int step;      /* the next step; -1 before the finish and after it */
	bool merging;  /* the indexes are built */
	bool draining; /* the merge waits for the queue to be written */
} Finish;

/* Whether the writer takes the finish's next step now rather than write
 * a result. An index is built when no result is ready: the queue has
 * room for what the workers parse meanwhile. The merge goes on until
 * the queue holds half what it may, then waits until all of it is
 * written: every pause leaves a segment, the rows written in it. */
static bool finish_now(Pool *p, Finish *f)
{
	bool ready;
	uint64_t queued;

	pthread_mutex_lock(&p->mu);
	ready = next_parsed(p);
	queued = p->queued_bytes;
	pthread_mutex_unlock(&p->mu);
	if (!ready)
		f->draining = false;
	else if (f->merging && queued >= FINISH_QUEUE_BYTES / 2)
		f->draining = true;
	return !ready || (f->merging && !f->draining);
}

/* One transaction of the finish's merge. Its first step gathers every
 * segment into one merge (FTS5's negative 'merge'); the later ones only
 * go on with it (positive), leaving alone the segments the rows written
 * between steps add: a gathering merge would start over with them, and
 * write what it had merged again. */
static int finish_merge(Index *ix, bool first, bool *more)
{
	int64_t began = index__clock_ms();
	int err = index__begin(ix);

	*more = true;
	if (err)
		return err;
	for (bool gather = first; !err && *more; gather = false) {
		err = index__merge_pages(
		    ix, gather ? -COMPACT_PAGES : COMPACT_PAGES, more);
		if (index__clock_ms() - began >= COMPACT_TXN_MS)
			break;
	}
	return index__end(ix, err);
}

static int finish_step(Pool *p, Finish *f)
{
	Walk *w = p->w;
	bool more = false;
	int err;

	if (w->cancel && *w->cancel)
		return CASTLS_ECANCELED; /* the next scan merges what is left */
	if (!f->merging) {
		bool built;

		err = index__load_index(w->ix, (unsigned)f->step, &built);
		f->merging = !built;
		f->step = built ? f->step + 1 : 0;
		return err;
	}
	err = finish_merge(w->ix, f->step++ == 0, &more);
	if (err || more)
		return err;
	if (!(err = index__load_end(w->ix)))
		err = mark_compacted(w->ix);
	w->load = false;
	w->finished = true;
	set_finishing(p, false);
	f->step = -1;
	return err;
}

static int write_results(Pool *p, ScanProgressFn fn, void *ctx)
{
	Index *ix = p->w->ix;
	ScanStats *st = p->w->stats;
	int64_t batch_start = index__clock_ms(), last_progress = 0;
	uint32_t in_batch = 0;
	uint64_t batch_bytes = 0, written = 0;
	uint64_t early_at = p->w->bulk ? next_early(p->todo_bytes, 0) : 0;
	uint64_t finish_at = p->w->load && p->todo_bytes >= index__finish_min
				 ? p->todo_bytes - p->todo_bytes / FINISH_PART
				 : 0;
	Result *r = NULL;
	Finish f = {-1, false, false};
	int err = 0;

	while ((r = pool_pop(p, r))) {
		bool wanted = r == &give_way;

		if (wanted) {
			r = NULL;
			if (err || !ix->in_txn)
				continue;
		}
		/* Cancelled: what is queued is dropped, not written (up to
		 * QUEUE_MAX files, seconds of writing for a server whose
		 * client is gone); the next scan reads those files again. */
		if (!err && p->w->cancel && *p->w->cancel)
			err = CASTLS_ECANCELED;
		if (!err && !ix->in_txn && !wanted)
			err = index__begin(ix);
		if (!err && !wanted) {
			err = apply(ix, r, st);
			in_batch++;
			batch_bytes += r->len;
			written += r->len;
			wanted = index__lock_wanted(ix);
		}
		if (!err && (wanted || in_batch >= BATCH_FILES ||
			     batch_bytes >= BATCH_BYTES ||
			     index__clock_ms() - batch_start >= BATCH_MS ||
			     (early_at && written >= early_at))) {
			if (early_at && written >= early_at)
				early_at = next_early(p->todo_bytes, written);
			err = batch_commit(p->w);
			in_batch = 0;
			batch_bytes = 0;
			batch_start = index__clock_ms();
			if (!err && wanted)
				let_through(ix);
		}
		if (!err && finish_at && written >= finish_at) {
			finish_at = 0;
			f.step = 0;
			set_finishing(p, true);
		}
		while (!err && f.step >= 0 && finish_now(p, &f)) {
			if (ix->in_txn)
				err = batch_commit(p->w);
			if (!err)
				err = finish_step(p, &f);
			in_batch = 0;
			batch_bytes = 0;
			batch_start = index__clock_ms();
		}
		if (err) { /* let the workers finish, drop what they send */
			pthread_mutex_lock(&p->mu);
			p->stop = 1;
			pthread_cond_broadcast(&p->not_full);
			pthread_mutex_unlock(&p->mu);
		}
		if (fn && index__clock_ms() - last_progress >= PROGRESS_MS) {
			fn(ctx, st);
			last_progress = index__clock_ms();
		}
	}
	if (ix->in_txn)
		err = index__end(ix, err);
	/* The last file may come before the finish's last step. */
	while (!err && f.step >= 0)
		err = finish_step(p, &f);
	return err;
}

static int run_pool(Walk *w, int jobs, ScanProgressFn fn, void *ctx)
{
	Pool p;
	pthread_t threads[INDEX_MAX_JOBS];
	Worker workers[INDEX_MAX_JOBS];
	int i, started = 0, err;

	memset(&p, 0, sizeof(p));
	p.w = w;
	p.todo = xmalloc((w->n + 1) * sizeof(*p.todo));
	p.ready = xcalloc(w->n + 1, sizeof(*p.ready));
	/* In the walk's path order: a directory's files, which share their
	 * names, meet in the full-text index's pending terms (a first index
	 * of the Linux kernel spent a fifth less in SQLite for it than
	 * largest first), and file rows go in at the end of the path index.
	 * The last file parsed is at most max_file_size. */
	for (uint32_t k = 0; k < w->n; k++) {
		Candidate *c = &w->c[k];

		if (c->known && c->stored.size == c->size &&
		    c->stored.mtime == c->mtime) {
			w->stats->unchanged++;
			w->stats->done++;
		} else {
			p.todo[p.ntodo++] = c;
			p.todo_bytes += (uint64_t)c->size;
		}
	}
	pthread_mutex_init(&p.mu, NULL);
	pthread_cond_init(&p.not_empty, NULL);
	pthread_cond_init(&p.not_full, NULL);
	p.own = chunker_new(w->ix->opt.max_chunk_size);
	/* The writer is the jobs-th thread. */
	jobs--;
	for (i = 0; i < jobs; i++) {
		workers[i].p = &p;
		workers[i].id = (uint32_t)i;
		if (pthread_create(&threads[i], NULL, worker_main,
				   &workers[i]) != 0)
			break;
		started++;
	}
	err = write_results(&p, fn, ctx);
	for (i = 0; i < started; i++)
		pthread_join(threads[i], NULL);
	for (i = 0; i < jobs; i++)
		results_free(p.spent[i]);
	chunker_delete(p.own);
	pthread_cond_destroy(&p.not_full);
	pthread_cond_destroy(&p.not_empty);
	pthread_mutex_destroy(&p.mu);
	xfree(p.ready);
	xfree(p.todo);
	return err;
}

int index_scan(Index *ix, int jobs, ScanProgressFn fn, void *ctx,
	       const volatile int *cancel, ScanStats *out)
{
	ScanStats local;
	Walk w;
	Vanished gone = {0};
	long long written = 0;
	bool bulk;
	int err;

	memset(&local, 0, sizeof(local));
	memset(&w, 0, sizeof(w));
	w.ix = ix;
	w.ig = ignore_new();
	w.root_len = strlen(ix->root);
	w.stats = &local;
	w.cancel = cancel;
	if (jobs <= 0)
		jobs = (int)sysconf(_SC_NPROCESSORS_ONLN);
	jobs = jobs < 1 ? 1 : jobs > INDEX_MAX_JOBS ? INDEX_MAX_JOBS : jobs;
	w.rechunk = stored_chunk_size(ix) != chunk_size_of(ix);
	local.walking = true;
	walk_root(&w);
	local.walking = false;
	err = merge_stored(&w, &gone);
	if (!err)
		err = drop_vanished(ix, &gone, &local);
	bulk = !err && w.stored == 0 && w.n > 0 && index__bulk(ix, true) == 0;
	w.bulk = bulk;
	w.load = bulk && ix->bulk_journal && index__load(ix, true) == 0;
	if (!err)
		err = run_pool(&w, jobs, fn, ctx);
	if (w.load) { /* also after an error: the rows kept want indexes */
		int e = index__load(ix, false);

		err = err ? err : e;
	}
	if (!err && cancel && *cancel)
		err = CASTLS_ECANCELED;
	if (!err)
		err = mark_scanned(ix, &w, &written);
	if (!err)
		err = compact(&w, written);
	/* Last: what leaving bulk mode syncs covers the rows above. */
	if (bulk || ix->bulk_journal) { /* the latter: a new file */
		int e = index__bulk(ix, false);

		err = err ? err : e;
	}
	/* The segments this scan wrote, out of the way of the merges of a
	 * keystroke's (segments.c). */
	if (!err)
		index__fts_relevel(ix);
	if (fn)
		fn(ctx, &local);
	for (uint32_t i = 0; i < w.n; i++)
		xfree(w.c[i].rel);
	xfree(w.c);
	xfree(w.dirs);
	xfree(gone.ids);
	ignore_delete(w.ig);
	if (out)
		*out = local;
	return err;
}
