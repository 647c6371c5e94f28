/*
 * paths.c: the paths a client names, checked against the roots. A path
 * is canonicalised (realpath: symlinks followed, "." and ".." gone) and
 * must then lie inside a root by whole components: /work/app is not
 * inside /work/ap, and a symlink in a root that points out of it leads
 * out. A file that does not exist yet is judged by its nearest existing
 * directory, so the answer never tells what exists outside the roots.
 */
#include "mcp_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool mcp__path_within(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strncmp(path, dir, n) != 0)
		return false;
	/* The root "/" holds everything absolute. */
	return path[n] == '\0' || path[n] == '/' || (n == 1 && dir[0] == '/');
}

static void say(char *why, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void say(char *why, size_t cap, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
}

static int hex(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c |= 0x20;
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A "file://" URI as a path (percent-decoded), else path as it is; the
 * caller's to xfree. NULL for a URI of another scheme or host. */
static char *uri_or_path(const char *path)
{
	Buf b = {0};
	const char *p;

	if (strncmp(path, "file://", 7) != 0)
		return strstr(path, "://") ? NULL : xstrdup(path);
	p = path + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL;
	for (; *p; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hex(p[1])) >= 0 &&
		    (lo = hex(p[2])) >= 0) {
			char c = (char)(hi * 16 + lo);

			if (c == '\0')
				break;
			buf_append(&b, &c, 1);
			p += 2;
		} else {
			buf_append(&b, p, 1);
		}
	}
	return buf_take(&b);
}

/* The canonical form of path, whose last components may not exist:
 * realpath of the nearest existing ancestor, then the missing rest with
 * "." and ".." applied to the text. *exists tells whether the whole path
 * resolved. NULL when no ancestor resolves. The caller's to xfree. */
static char *canonical(const char *path, bool *exists)
{
	char real[PATH_MAX], *dir = xstrdup(path), *cut;
	Buf b = {0};
	const char *rest;

	*exists = false;
	if (realpath(path, real)) {
		xfree(dir);
		*exists = true;
		return xstrdup(real);
	}
	/* Climb until a directory resolves. */
	while ((cut = strrchr(dir, '/'))) {
		*cut = '\0';
		if (realpath(*dir ? dir : "/", real))
			break;
	}
	if (!cut) {
		xfree(dir);
		return NULL;
	}
	rest = path + (cut - dir) + 1;
	buf_puts(&b, strcmp(real, "/") == 0 ? "" : real);
	while (*rest) {
		size_t n = strcspn(rest, "/");

		if (n == 2 && strncmp(rest, "..", 2) == 0) {
			char *slash = b.len ? strrchr(b.data, '/') : NULL;

			b.len = slash ? (size_t)(slash - b.data) : 0;
			if (b.data)
				b.data[b.len] = '\0';
		} else if (n && !(n == 1 && rest[0] == '.')) {
			buf_puts(&b, "/");
			buf_append(&b, rest, n);
		}
		rest += n + (rest[n] == '/');
	}
	if (!b.len)
		buf_puts(&b, "/");
	xfree(dir);
	return buf_take(&b);
}

/* The innermost root of w holding real, or -1. */
static int root_holding(const Workspace *w, const char *real)
{
	int best = -1;
	size_t best_len = 0;

	for (uint32_t i = 0; i < w->n; i++) {
		const char *rp = w->rank[i].path;
		size_t n = strlen(rp);

		if (mcp__path_within(real, rp) && (best < 0 || n > best_len)) {
			best = (int)i;
			best_len = n;
		}
	}
	return best;
}

static int resolve_one(const Workspace *w, const char *path, ResolvedPath *out,
		       char *why, size_t cap)
{
	struct stat st;
	size_t n;
	int r;

	out->real = canonical(path, &out->exists);
	if (!out->real || (r = root_holding(w, out->real)) < 0) {
		say(why, cap, "%s is outside the workspace root%s (%s%s)", path,
		    w->n > 1 ? "s" : "", w->n ? w->rank[0].path : "none",
		    w->n > 1 ? ", ..." : "");
		return CASTLS_EACCES;
	}
	out->root = r;
	n = strlen(w->rank[r].path);
	out->rel = out->real + n + (out->real[n] == '/');
	if (n == 1)
		out->rel = out->real + 1;
	if (out->exists && stat(out->real, &st) == 0 && !S_ISREG(st.st_mode)) {
		say(why, cap, "%s is %s, not a file", path,
		    S_ISDIR(st.st_mode) ? "a directory" : "special");
		return CASTLS_EINVAL;
	}
	return 0;
}

int mcp__path_resolve(const Workspace *w, const char *path, ResolvedPath *out,
		      char *why, size_t cap)
{
	char *p = uri_or_path(path);
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->root = -1;
	if (!p || !*p || strlen(p) >= PATH_MAX) {
		say(why, cap,
		    "path must be a file path (or a file:// URI), "
		    "got \"%.200s\"",
		    path);
		xfree(p);
		return CASTLS_EINVAL;
	}
	if (p[0] == '/') {
		err = resolve_one(w, p, out, why, cap);
	} else {
		/* Relative: the first root that has it, else the first. */
		uint32_t pick = 0;
		Buf j = {0};
		struct stat st;

		for (uint32_t i = 0; i < w->n; i++) {
			j.len = 0;
			buf_printf(&j, "%s/%s", w->rank[i].path, p);
			if (lstat(j.data, &st) == 0) {
				pick = i;
				break;
			}
		}
		if (w->n) {
			j.len = 0;
			buf_printf(&j, "%s/%s", w->rank[pick].path, p);
			err = resolve_one(w, j.data, out, why, cap);
		}
		buf_free(&j);
		if (!w->n) {
			say(why, cap, "no workspace root to resolve %s in", p);
			err = CASTLS_EACCES;
		} else if (err == CASTLS_EACCES) {
			say(why, cap, "%s is outside the workspace root%s", p,
			    w->n > 1 ? "s" : "");
		}
	}
	if (err) {
		xfree(out->real);
		out->real = NULL;
	}
	xfree(p);
	return err;
}

char *mcp__path_git_root(const char *dir)
{
	char real[PATH_MAX];
	Buf b = {0};

	if (!realpath(dir, real))
		return NULL;
	buf_puts(&b, real);
	for (;;) {
		struct stat st;
		size_t n = b.len;
		char *slash;

		buf_puts(&b, n == 1 ? ".git" : "/.git");
		if (lstat(b.data, &st) == 0) {
			b.len = n;
			b.data[n] = '\0';
			return buf_take(&b);
		}
		b.len = n;
		b.data[n] = '\0';
		slash = strrchr(b.data, '/');
		if (!slash || n == 1)
			break;
		b.len = slash == b.data ? 1 : (size_t)(slash - b.data);
		b.data[b.len] = '\0';
	}
	buf_free(&b);
	return xstrdup(real);
}
