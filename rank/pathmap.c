/*
 * pathmap.c: module specifiers that are not paths from the file, mapped
 * to paths of the workspace the way the language's tools do: the
 * `compilerOptions.paths` and `baseUrl` of the nearest tsconfig.json (the
 * table's path_maps), and the packages of the workspace by the `name`
 * in their package.json (the table's packages), through its `exports`,
 * `types` or `main`. Each file is read once a request, and bounded.
 */
#include "rank_int.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define CONFIG_MAX (1 << 16) /* bytes of a tsconfig.json or package.json */
#define JSON_DEPTH_MAX 32    /* nesting a value skipped may have */
#define PACKAGES_MAX 64	     /* workspace packages read */
#define CONDITIONS_DEPTH 4   /* nested `exports` conditions followed */

/* ---------------------------------------------------------------------- *
 * JSON with comments and trailing commas (tsconfig.json's dialect): just
 * enough to find a member and read a string. Commas count as blanks.
 * ---------------------------------------------------------------------- */

static const char *js_blank(const char *p, const char *e)
{
	for (;;) {
		while (p < e && strchr(" \t\r\n,", *p) && *p)
			p++;
		if (e - p >= 2 && p[0] == '/' && p[1] == '/') {
			p = memchr(p, '\n', (size_t)(e - p));
			if (!p)
				return e;
		} else if (e - p >= 2 && p[0] == '/' && p[1] == '*') {
			const char *z = p + 2;

			while (z + 1 < e && !(z[0] == '*' && z[1] == '/'))
				z++;
			p = z + 1 < e ? z + 2 : e;
		} else {
			return p;
		}
	}
}

/* Past the value at p (a string, object, array or literal). */
static const char *js_skip(const char *p, const char *e, int depth)
{
	char close;

	p = js_blank(p, e);
	if (p >= e)
		return e;
	if (*p == '"') {
		for (p++; p < e && *p != '"'; p++)
			p += *p == '\\';
		return p < e ? p + 1 : e;
	}
	if (*p != '{' && *p != '[') {
		do
			p++;
		while (p < e && *p && !strchr(" \t\r\n,:{}[]\"", *p));
		return p;
	}
	if (depth == JSON_DEPTH_MAX)
		return e;
	close = *p == '{' ? '}' : ']';
	for (p++;;) {
		p = js_blank(p, e);
		if (p >= e)
			return e;
		if (*p == close)
			return p + 1;
		p = *p == ':' ? p + 1 : js_skip(p, e, depth + 1);
	}
}

/* The next member of the object being read at *p (past its `{`): its
 * key, unescaped only as far as the quotes, in [*k, *k + *kl), its value
 * at *v. False at the object's end or at anything malformed. */
static bool js_next(const char **p, const char *e, const char **k, size_t *kl,
		    const char **v)
{
	const char *q = js_blank(*p, e);

	if (q >= e || *q != '"')
		return false;
	*k = q + 1;
	q = js_skip(q, e, 0);
	*kl = q > *k ? (size_t)(q - 1 - *k) : 0;
	q = js_blank(q, e);
	if (q >= e || *q != ':')
		return false;
	*v = js_blank(q + 1, e);
	*p = js_skip(*v, e, 0);
	return *v < e;
}

/* The value of member key of the object at p, or NULL. */
static const char *js_member(const char *p, const char *e, const char *key)
{
	const char *k, *v;
	size_t kl, n = strlen(key);

	p = js_blank(p, e);
	if (p >= e || *p != '{')
		return NULL;
	for (p++; js_next(&p, e, &k, &kl, &v);)
		if (kl == n && memcmp(k, key, n) == 0)
			return v;
	return NULL;
}

/* The string at p into out; false when p holds none or it is too long. */
static bool js_string(const char *p, const char *e, char *out, size_t cap)
{
	size_t n = 0;

	if (!p || p >= e || *p != '"')
		return false;
	for (p++; p < e && *p != '"'; p++) {
		if (*p == '\\' && p + 1 < e)
			p++;
		if (n + 1 >= cap)
			return false;
		out[n++] = *p;
	}
	out[n] = '\0';
	return p < e;
}

/* ---------------------------------------------------------------------- *
 * The maps
 * ---------------------------------------------------------------------- */

/* A stem from the root: dir joined with path p (which may climb). False
 * when it leaves the root. */
static bool join_stem(char *out, size_t cap, const char *dir, const char *p)
{
	size_t dl = strlen(dir);

	if (dl >= cap)
		return false;
	memcpy(out, dir, dl + 1);
	for (size_t i = 0, n = strlen(p); i < n;) {
		size_t j = i + strcspn(p + i, "/");

		if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
			char *slash = strrchr(out, '/');

			if (!*out)
				return false;
			if (slash)
				*slash = '\0';
			else
				out[0] = '\0';
		} else if (j > i && !(j - i == 1 && p[i] == '.')) {
			size_t ol = strlen(out);

			if (ol + (j - i) + 2 > cap)
				return false;
			if (ol)
				out[ol++] = '/';
			memcpy(out + ol, p + i, j - i);
			out[ol + j - i] = '\0';
		}
		i = j + (j < n);
	}
	return true;
}

static void map_add(PathMaps *pm, const char *from, const char *dir,
		    const char *to)
{
	PathMap *m;

	if (pm->n == PATH_MAPS_MAX || strlen(from) >= sizeof(m->from))
		return;
	m = &pm->map[pm->n];
	if (!join_stem(m->to, sizeof(m->to), dir, to))
		return;
	memcpy(m->from, from, strlen(from) + 1);
	pm->n++;
}

/* Reads root/rel (bounded) into *text, *end; false when unreadable. */
static bool read_config(const Where *w, const char *rel, char **text,
			const char **end)
{
	const char *root = rank__root_path(w);
	Buf path = {0};
	size_t len;
	int rc;

	buf_printf(&path, "%s/%s", root, rel);
	rc = castls_read_file_in(root, path.data, CONFIG_MAX, text, &len, NULL);
	buf_free(&path);
	if (rc != 0)
		return false;
	*end = *text + len;
	return true;
}

/* The nearest of the table's path-map files above the buffer's file:
 * its `paths` as maps, its `baseUrl` as the base. */
static void read_path_maps(Where *w, PathMaps *pm)
{
	char dir[sizeof(pm->base)];
	const char *rel = w->q->rel ? w->q->rel : "";
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;

	if (n >= sizeof(dir))
		return;
	memcpy(dir, rel, n);
	dir[n] = '\0';
	for (;;) {
		for (const char *f = w->mr.path_maps; *f;) {
			size_t fl = strcspn(f, " ");
			char name[64], base[sizeof(pm->base)], *text, *s;
			const char *e, *opts, *paths, *k, *v;
			size_t kl;
			Buf cfg = {0};

			if (fl >= sizeof(name))
				return;
			memcpy(name, f, fl);
			name[fl] = '\0';
			f += fl + (f[fl] == ' ');
			buf_printf(&cfg, "%s%s%s", dir, *dir ? "/" : "", name);
			if (!read_config(w, cfg.data, &text, &e)) {
				buf_free(&cfg);
				continue;
			}
			buf_free(&cfg);
			opts = js_member(text, e, "compilerOptions");
			if (opts && js_string(js_member(opts, e, "baseUrl"), e,
					      base, sizeof(base)))
				pm->has_base = join_stem(
				    pm->base, sizeof(pm->base), dir, base);
			paths = opts ? js_member(opts, e, "paths") : NULL;
			s = pm->has_base ? pm->base : dir;
			for (paths = paths && *paths == '{' ? paths + 1 : NULL;
			     paths && js_next(&paths, e, &k, &kl, &v);) {
				char from[sizeof(pm->map[0].from)];
				char to[sizeof(pm->map[0].to)];
				const char *first = js_blank(v + 1, e);

				if (kl >= sizeof(from) || *v != '[' ||
				    !js_string(first, e, to, sizeof(to)))
					continue;
				memcpy(from, k, kl);
				from[kl] = '\0';
				map_add(pm, from, s, to);
			}
			xfree(text);
			return;
		}
		if (!*dir)
			return;
		n = (size_t)(strrchr(dir, '/') ? strrchr(dir, '/') - dir : 0);
		dir[n] = '\0';
	}
}

/* The first path the conditions at v lead to (`{"types": ..., "import":
 * {...}}`, or a string), into out. */
static bool export_target(const char *v, const char *e, char *out, size_t cap,
			  int depth)
{
	static const char *const prefer[] = {"types", "import", "default",
					     "require", "node"};
	const char *k, *p;
	size_t kl;

	if (js_string(v, e, out, cap))
		return true;
	if (!v || v >= e || *v != '{' || depth == CONDITIONS_DEPTH)
		return false;
	for (size_t i = 0; i < sizeof(prefer) / sizeof(prefer[0]); i++)
		if (export_target(js_member(v, e, prefer[i]), e, out, cap,
				  depth + 1))
			return true;
	for (p = v + 1; js_next(&p, e, &k, &kl, &v);)
		if (export_target(v, e, out, cap, depth + 1))
			return true;
	return false;
}

/* Package dir's package.json: its name, mapped to its entry; each
 * `exports` subpath; and any other path under the name, to the same
 * path under dir. */
static void read_package(Where *w, PathMaps *pm, const char *dir)
{
	char pkg[96], to[192], *text;
	const char *e, *ex, *k, *v;
	size_t kl;
	Buf rel = {0}, from = {0};

	buf_printf(&rel, "%s/%s", dir, w->mr.packages);
	if (!read_config(w, rel.data, &text, &e)) {
		buf_free(&rel);
		return;
	}
	buf_free(&rel);
	if (!js_string(js_member(text, e, "name"), e, pkg, sizeof(pkg))) {
		xfree(text);
		return;
	}
	ex = js_member(text, e, "exports");
	/* Subpaths ("./x": ...) or one entry (a string, or conditions). */
	if (ex && *ex == '{' && (ex = js_blank(ex + 1, e)) + 1 < e &&
	    *ex == '"' && ex[1] == '.') {
		for (const char *p = ex; js_next(&p, e, &k, &kl, &v);) {
			if (kl == 0 || *k != '.' ||
			    !export_target(v, e, to, sizeof(to), 0))
				continue;
			buf_free(&from);
			buf_puts(&from, pkg);
			buf_append(&from, k + 1, kl - 1);
			map_add(pm, from.data, dir, to);
		}
	} else if (export_target(js_member(text, e, "exports"), e, to,
				 sizeof(to), 0) ||
		   js_string(js_member(text, e, "types"), e, to, sizeof(to)) ||
		   js_string(js_member(text, e, "typings"), e, to,
			     sizeof(to)) ||
		   js_string(js_member(text, e, "main"), e, to, sizeof(to))) {
		map_add(pm, pkg, dir, to);
	} else {
		map_add(pm, pkg, dir, "index");
	}
	buf_free(&from);
	buf_printf(&from, "%s/*", pkg);
	map_add(pm, from.data, dir, "*");
	buf_free(&from);
	xfree(text);
}

/* The packages the workspace root's package.json names in `workspaces`:
 * a list of directories, where a last component `*` stands for each
 * directory there; or an object with that list as `packages`. */
static void read_workspaces(Where *w, PathMaps *pm)
{
	const char *root = rank__root_path(w), *e, *ws;
	char *text, glob[128];
	int seen = 0;

	if (!read_config(w, w->mr.packages, &text, &e))
		return;
	ws = js_member(text, e, "workspaces");
	if (ws && *ws == '{')
		ws = js_member(ws, e, "packages");
	for (ws = ws && *ws == '[' ? ws + 1 : NULL;
	     ws && (ws = js_blank(ws, e)) < e && *ws == '"' &&
	     seen < PACKAGES_MAX;
	     ws = js_skip(ws, e, 0)) {
		size_t gl;
		Buf abs = {0};
		DIR *d;
		struct dirent *de;

		if (!js_string(ws, e, glob, sizeof(glob)) ||
		    strstr(glob, "..") || glob[0] == '/')
			continue;
		gl = strlen(glob);
		if (gl < 2 || strcmp(glob + gl - 2, "/*") != 0) {
			read_package(w, pm, glob);
			seen++;
			continue;
		}
		glob[gl - 2] = '\0';
		buf_printf(&abs, "%s/%s", root, glob);
		d = opendir(abs.data);
		buf_free(&abs);
		while (d && (de = readdir(d)) && seen < PACKAGES_MAX) {
			Buf dir = {0};

			if (de->d_name[0] == '.')
				continue;
			buf_printf(&dir, "%s/%s", glob, de->d_name);
			read_package(w, pm, dir.data);
			buf_free(&dir);
			seen++;
		}
		if (d)
			closedir(d);
	}
	xfree(text);
}

/* Whether specifier m[0, n) matches pattern p (at most one `*`): the
 * part the star stands for in [*a, *a + *al). */
static bool pattern_match(const char *p, const char *m, size_t n, size_t *a,
			  size_t *al)
{
	const char *star = strchr(p, '*');
	size_t pre = star ? (size_t)(star - p) : strlen(p);
	size_t post = star ? strlen(star + 1) : 0;

	if (!star)
		return n == pre && memcmp(p, m, n) == 0 && (*a = *al = 0, 1);
	if (n < pre + post || memcmp(p, m, pre) != 0 ||
	    memcmp(star + 1, m + n - post, post) != 0)
		return false;
	*a = pre;
	*al = n - pre - post;
	return true;
}

bool rank__map_module(Where *w, const char *m, size_t n, Import *im)
{
	PathMaps *pm = w->maps;
	const PathMap *best = NULL;
	size_t a = 0, al = 0, best_pre = 0;
	char spec[192];

	if (!*w->mr.path_maps && !*w->mr.packages)
		return false;
	if (!rank__root_path(w) || n == 0 || n >= sizeof(spec))
		return false;
	if (!pm) {
		pm = w->maps = xcalloc(1, sizeof(*pm));
		read_path_maps(w, pm);
		if (*w->mr.packages)
			read_workspaces(w, pm);
	}
	/* The pattern with the longest part before its star wins, and one
	 * without a star over all (TypeScript's rule). */
	for (uint32_t i = 0; i < pm->n; i++) {
		size_t x, xl, pre = strcspn(pm->map[i].from, "*");

		if (!pattern_match(pm->map[i].from, m, n, &x, &xl))
			continue;
		if (!pm->map[i].from[pre])
			pre = SIZE_MAX;
		if (!best || pre > best_pre) {
			best = &pm->map[i];
			best_pre = pre;
			a = x;
			al = xl;
		}
	}
	if (best) {
		const char *star = strchr(best->to, '*');
		size_t head = star ? (size_t)(star - best->to) : 0;

		if (!star)
			snprintf(spec, sizeof(spec), "%s", best->to);
		else if (snprintf(spec, sizeof(spec), "%.*s%.*s%s", (int)head,
				  best->to, (int)al, m + a,
				  star + 1) >= (int)sizeof(spec))
			return false;
	} else if (pm->has_base) {
		char sub[sizeof(spec)];

		memcpy(sub, m, n);
		sub[n] = '\0';
		if (!join_stem(spec, sizeof(spec), pm->base, sub))
			return false;
	} else {
		return false;
	}
	if (strlen(spec) >= sizeof(im->stem))
		return false;
	memcpy(im->stem, spec, strlen(spec) + 1);
	/* "./dist/index.d.ts", "./lib/a.js" and "src/a.ts" are modules
	 * dist/index, lib/a and src/a. */
	rank__strip_ext(im->stem, ".d.ts .d.mts .d.cts");
	rank__strip_ext(im->stem, w->mr.exts);
	rank__strip_ext(im->stem, w->mr.files);
	im->top = !im->stem[0];
	return true;
}
