/*
 * includes.c: the include directories of a C or C++ project, read from
 * its compilation database (compile_commands.json, where the language
 * table says it may be), once for each version of it: the directories each
 * entry's command names with -I, -isystem or -iquote, relative to the entry's
 * directory, those inside the root only.
 *
 * The database is JSON, read here by a small scanner rather than cJSON,
 * which only the front doors include: an array of objects whose
 * "directory" and "command" are strings and whose "arguments" is an
 * array of strings; any other value is skipped whole. Anything else is
 * no database, and a malformed one gives the directories read so far.
 */
#include "rank_int.h"

#include <pthread.h>
#include <string.h>
#include <sys/stat.h>

/* The largest database read: some 20 000 entries, scanned in about
 * 20 ms (release build, a busy 2-core machine), once for each of its
 * versions (include_cache). A larger one (the whole Linux
 * kernel's is some 50 MB) is left unread, and includes are then matched
 * by path alone. */
#define INCLUDE_DB_MAX (4u << 20)

typedef struct {
	const char *p, *end;
} Scan;

/* The directories read from the last few databases, by path and stamp,
 * shared by every request (and thread): a database changes rarely, and
 * reading it again costs a request in a C file up to 57 ms at 5 MB.
 * Replaced in turn when full. */
#define INCLUDE_CACHE 4

typedef struct {
	char path[1024]; /* "" when the slot is empty */
	int64_t size, mtime;
	int n;
	char dirs[INCLUDE_DIRS_MAX][192];
} CachedDirs;

static CachedDirs include_cache[INCLUDE_CACHE];
static unsigned include_next; /* the slot to replace next */
static pthread_mutex_t include_mu = PTHREAD_MUTEX_INITIALIZER;

static void skip_ws(Scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\n' ||
				 *s->p == '\t' || *s->p == '\r'))
		s->p++;
}

static bool at(Scan *s, char c)
{
	skip_ws(s);
	return s->p < s->end && *s->p == c;
}

static int hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string at s->p, decoded into out (when given, NUL-terminated; a
 * \u escape beyond ASCII becomes '?', never part of a path worth
 * following). False when there is none or it is cut short. */
static bool string(Scan *s, Buf *out)
{
	if (!at(s, '"'))
		return false;
	for (s->p++; s->p < s->end; s->p++) {
		const char *run = s->p;
		char c;

		/* A run of plain characters at once. */
		while (s->p < s->end && *s->p != '"' && *s->p != '\\')
			s->p++;
		if (out && s->p > run)
			buf_append(out, run, (size_t)(s->p - run));
		if (s->p >= s->end)
			return false;
		if (*s->p == '"') {
			s->p++;
			if (out)
				buf_append(out, "", 0);
			return true;
		}
		if (++s->p >= s->end)
			return false;
		c = *s->p;
		if (c == 'u') {
			int v = 0;

			for (int i = 1; i <= 4; i++) {
				int h = s->p + i < s->end ? hex(s->p[i]) : -1;

				if (h < 0)
					return false;
				v = v * 16 + h;
			}
			s->p += 4;
			c = v > 0 && v < 0x80 ? (char)v : '?';
		} else {
			const char *from = "bfnrt", *to = "\b\f\n\r\t",
				   *k = strchr(from, c);

			if (k && c)
				c = to[k - from];
		}
		if (out)
			buf_append(out, &c, 1);
	}
	return false;
}

/* Skips the value at s->p, of any nesting: strings are read whole, and
 * brackets counted. */
static bool skip_value(Scan *s)
{
	uint32_t depth = 0;

	skip_ws(s);
	do {
		if (s->p >= s->end)
			return false;
		if (*s->p == '"') {
			if (!string(s, NULL))
				return false;
		} else if (*s->p == '{' || *s->p == '[') {
			depth++;
			s->p++;
		} else if (*s->p == '}' || *s->p == ']') {
			if (depth == 0)
				return true; /* the end of the enclosing one */
			depth--;
			s->p++;
		} else if (*s->p == ',' && depth == 0) {
			return true;
		} else {
			s->p++;
		}
		skip_ws(s);
	} while (depth > 0 || (s->p < s->end && !strchr(",}]", *s->p)));
	return true;
}

/* A command line split into words at blanks, with '...' and "..."
 * quoting and backslash escapes, into out as NUL-separated words. */
static void split_command(const char *cmd, Buf *out)
{
	for (const char *p = cmd; *p;) {
		char quote = 0;
		size_t before = out->len;

		p += strspn(p, " \t\r\n");
		while (*p && (quote || !strchr(" \t\r\n", *p))) {
			/* A run of plain characters at once. */
			size_t n = quote
				       ? strcspn(p, quote == '"' ? "\"\\" : "'")
				       : strcspn(p, " \t\r\n\"'\\");

			buf_append(out, p, n);
			p += n;
			if (!*p || (!quote && strchr(" \t\r\n", *p)))
				break;
			if (quote && *p == quote)
				quote = 0;
			else if (!quote && (*p == '"' || *p == '\''))
				quote = *p;
			else if (*p == '\\' && p[1])
				buf_append(out, ++p, 1);
			p++;
		}
		if (out->len > before)
			buf_append(out, "", 1);
	}
}

/* Adds the directory d, as written in an entry whose directory is edir
 * (relative to the root, or NULL when outside it), when it is inside the
 * root. */
static void add_dir(Where *w, const char *root, const char *edir, const char *d)
{
	size_t rl = strlen(root);
	char rel[sizeof(w->incdirs[0])];

	if (d[0] == '/') {
		if (strncmp(d, root, rl) != 0 || (d[rl] && d[rl] != '/'))
			return;
		d += rl + !!d[rl];
		edir = "";
	}
	if (!edir || !rank__stem_below(edir, d, strlen(d), rel, sizeof(rel)))
		return;
	for (int i = 0; i < w->nincdirs; i++)
		if (strcmp(w->incdirs[i], rel) == 0)
			return;
	if (w->nincdirs == INCLUDE_DIRS_MAX)
		return;
	if (!w->incdirs)
		w->incdirs = xcalloc(INCLUDE_DIRS_MAX, sizeof(*w->incdirs));
	memcpy(w->incdirs[w->nincdirs++], rel, strlen(rel) + 1);
}

/* The include directories of one entry: its words (NUL-separated in
 * args) after a flag of the table's, or joined to one. */
static void entry_dirs(Where *w, const char *root, const char *dbdir,
		       const char *dir, const Buf *args)
{
	char edir_buf[sizeof(w->incdirs[0])];
	const char *edir = edir_buf;
	bool next = false;

	/* The entry's directory, relative to the root; a relative one is
	 * taken from the database's own directory. */
	if (dir[0] == '/') {
		size_t rl = strlen(root);

		if (strncmp(dir, root, rl) != 0 ||
		    (dir[rl] && dir[rl] != '/') ||
		    !rank__stem_below("", dir + rl, strlen(dir + rl), edir_buf,
				      sizeof(edir_buf)))
			edir = NULL;
	} else if (!rank__stem_below(dbdir, dir, strlen(dir), edir_buf,
				     sizeof(edir_buf))) {
		edir = NULL;
	}
	for (size_t i = 0; i < args->len; i += strlen(args->data + i) + 1) {
		const char *a = args->data + i;

		if (next) {
			add_dir(w, root, edir, a);
			next = false;
			continue;
		}
		for (const char *f = w->mr.include_flags; *f; f += *f == ' ') {
			size_t fl = strcspn(f, " ");

			if (strncmp(a, f, fl) == 0) {
				if (a[fl])
					add_dir(w, root, edir, a + fl);
				else
					next = true;
				break;
			}
			f += fl;
		}
	}
}

/* What an entry is read into; reused from one entry to the next. */
typedef struct {
	Buf key, dir, args, cmd;
} Entry;

static void reset(Buf *b)
{
	b->len = 0;
	buf_append(b, "", 0);
}

/* One entry of the database: its directory and its words, then their
 * include directories. */
static bool entry(Where *w, Scan *s, const char *root, const char *dbdir,
		  Entry *e)
{
	bool dir = false;

	if (!at(s, '{'))
		return false;
	reset(&e->args);
	for (s->p++; !at(s, '}');) {
		reset(&e->key);
		if (!string(s, &e->key) || !at(s, ':'))
			return false;
		s->p++;
		if (strcmp(e->key.data, "directory") == 0 && at(s, '"')) {
			reset(&e->dir);
			if (!string(s, &e->dir))
				return false;
			dir = true;
		} else if (strcmp(e->key.data, "command") == 0 && at(s, '"')) {
			reset(&e->cmd);
			if (!string(s, &e->cmd))
				return false;
			split_command(e->cmd.data, &e->args);
		} else if (strcmp(e->key.data, "arguments") == 0 &&
			   at(s, '[')) {
			for (s->p++; !at(s, ']');) {
				if (!string(s, &e->args))
					return false;
				buf_append(&e->args, "", 1); /* ends the word */
				if (at(s, ','))
					s->p++;
			}
			s->p++;
		} else if (!skip_value(s)) {
			return false;
		}
		if (at(s, ','))
			s->p++;
	}
	s->p++;
	if (e->args.len)
		entry_dirs(w, root, dbdir, dir ? e->dir.data : ".", &e->args);
	return true;
}

void rank__include_scan(Where *w, const char *root, const char *dbdir,
			const char *text, size_t len)
{
	Scan s = {text, text + len};
	Entry e = {0};

	if (at(&s, '['))
		for (s.p++; w->nincdirs < INCLUDE_DIRS_MAX && !at(&s, ']') &&
			    entry(w, &s, root, dbdir, &e);)
			if (at(&s, ','))
				s.p++;
	buf_free(&e.key);
	buf_free(&e.dir);
	buf_free(&e.args);
	buf_free(&e.cmd);
}

/* The stamp of the file at path, false when there is none. */
static bool stamp_of(const char *path, int64_t *size, int64_t *mtime)
{
	struct stat st;

	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return false;
	*size = (int64_t)st.st_size;
	*mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	return true;
}

/* Copies the cached directories of path at this stamp into w; false when
 * they are not held. */
static bool cache_get(Where *w, const char *path, int64_t size, int64_t mtime)
{
	bool hit = false;

	pthread_mutex_lock(&include_mu);
	for (int i = 0; i < INCLUDE_CACHE && !hit; i++) {
		const CachedDirs *c = &include_cache[i];

		if (strcmp(c->path, path) != 0 || c->size != size ||
		    c->mtime != mtime)
			continue;
		hit = true;
		if (c->n && !w->incdirs)
			w->incdirs =
			    xcalloc(INCLUDE_DIRS_MAX, sizeof(*w->incdirs));
		memcpy(w->incdirs, c->dirs, (size_t)c->n * sizeof(c->dirs[0]));
		w->nincdirs = c->n;
	}
	pthread_mutex_unlock(&include_mu);
	return hit;
}

static void cache_put(const Where *w, const char *path, int64_t size,
		      int64_t mtime)
{
	CachedDirs *c;

	if (strlen(path) >= sizeof(c->path))
		return;
	pthread_mutex_lock(&include_mu);
	c = &include_cache[include_next++ % INCLUDE_CACHE];
	for (int i = 0; i < INCLUDE_CACHE; i++) /* its own slot, if held */
		if (strcmp(include_cache[i].path, path) == 0)
			c = &include_cache[i];
	strcpy(c->path, path);
	c->size = size;
	c->mtime = mtime;
	c->n = w->nincdirs;
	if (c->n)
		memcpy(c->dirs, w->incdirs, (size_t)c->n * sizeof(c->dirs[0]));
	pthread_mutex_unlock(&include_mu);
}

void rank__include_dirs(Where *w)
{
	const char *root = rank__root_path(w), *dbs = w->mr.include_db;

	if (w->incdirs_read)
		return;
	w->incdirs_read = true;
	if (!root)
		return;
	/* The first database of the table's list that there is. */
	for (const char *d = dbs; *d; d += *d == ' ') {
		size_t n = strcspn(d, " ");
		char dbdir[sizeof(w->incdirs[0])], *text;
		Buf path = {0};
		int64_t size, mtime;
		DiskStamp read;
		size_t len;
		int rc = -1;

		buf_printf(&path, "%s/%.*s", root, (int)n, d);
		if (stamp_of(path.data, &size, &mtime)) {
			if (cache_get(w, path.data, size, mtime)) {
				buf_free(&path);
				return;
			}
			rc =
			    castls_read_file_in(root, path.data, INCLUDE_DB_MAX,
						&text, &len, &read);
		}
		/* The database's directory, for relative entries. */
		dbdir[0] = '\0';
		for (size_t i = n; i-- > 0;)
			if (d[i] == '/') {
				rank__stem_push(dbdir, sizeof(dbdir), d, i);
				break;
			}
		d += n;
		if (rc != 0) {
			buf_free(&path);
			continue;
		}
		rank__include_scan(w, root, dbdir, text, len);
		xfree(text);
		/* Under the stamp of the bytes read, which may be newer. */
		cache_put(w, path.data, read.size, read.mtime);
		buf_free(&path);
		return;
	}
}

/* ---------------------------------------------------------------------- *
 * What each header's includes resolve to
 * ---------------------------------------------------------------------- */

/* Kept by path, stamp and include directories, shared by every request
 * (and thread): a header changes seldom, and finding its includes again
 * took a request in a C++ header library about 1 ms (up to 4), mostly
 * looking for system headers that are not in the tree. A header created
 * since is seen once the header that includes it changes. Replaced in
 * turn when full. */
#define HEADER_CACHE 256

typedef struct {
	char path[192]; /* relative; "" when the slot is empty */
	int64_t size, mtime;
	uint64_t dirs; /* dirs_key of the include directories */
	char *found;   /* the files, each NUL-ended */
	size_t len;
} CachedHeader;

static CachedHeader header_cache[HEADER_CACHE];
static unsigned header_next; /* the slot to replace next */
static pthread_mutex_t header_mu = PTHREAD_MUTEX_INITIALIZER;

/* A hash of w's include directories, which the files found depend on. */
static uint64_t dirs_key(const Where *w)
{
	uint64_t h = 0;

	for (int i = 0; i < w->nincdirs; i++)
		h = castls_hash(w->incdirs[i], strlen(w->incdirs[i]) + 1, h);
	return h;
}

bool rank__header_get(const Where *w, const char *rel, const char *path,
		      Buf *found)
{
	uint64_t dirs = dirs_key(w);
	int64_t size, mtime;
	bool hit = false;

	if (!stamp_of(path, &size, &mtime))
		return false;
	pthread_mutex_lock(&header_mu);
	for (int i = 0; i < HEADER_CACHE && !hit; i++) {
		const CachedHeader *c = &header_cache[i];

		if (strcmp(c->path, rel) == 0 && c->size == size &&
		    c->mtime == mtime && c->dirs == dirs) {
			buf_append(found, c->found, c->len);
			hit = true;
		}
	}
	pthread_mutex_unlock(&header_mu);
	return hit;
}

void rank__header_put(const Where *w, const char *rel, const DiskStamp *st,
		      const Buf *found)
{
	uint64_t dirs = dirs_key(w);
	CachedHeader *c;

	if (strlen(rel) >= sizeof(c->path))
		return;
	pthread_mutex_lock(&header_mu);
	c = &header_cache[header_next++ % HEADER_CACHE];
	for (int i = 0; i < HEADER_CACHE; i++) /* its own slot, if held */
		if (strcmp(header_cache[i].path, rel) == 0)
			c = &header_cache[i];
	xfree(c->found);
	strcpy(c->path, rel);
	c->size = st->size;
	c->mtime = st->mtime;
	c->dirs = dirs;
	c->len = found->len;
	c->found = xmalloc(found->len + 1);
	memcpy(c->found, found->data ? found->data : "", found->len);
	pthread_mutex_unlock(&header_mu);
}
