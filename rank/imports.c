/*
 * imports.c: what the buffer imports (read off its tree by the language
 * table's rules), which files those modules are, and how often the file
 * uses each imported name.
 */
#include "rank_int.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* ---------------------------------------------------------------------- *
 * Module paths
 * ---------------------------------------------------------------------- */

void rank__stem_push(char *stem, size_t cap, const char *s, size_t n)
{
	size_t len = strlen(stem);

	if (n == 0 || (n == 1 && s[0] == '.'))
		return;
	if (n == 2 && s[0] == '.' && s[1] == '.') {
		char *slash = strrchr(stem, '/');

		if (slash)
			*slash = '\0';
		else
			stem[0] = '\0';
		return;
	}
	if (len + n + 2 > cap)
		return;
	if (len)
		stem[len++] = '/';
	memcpy(stem + len, s, n);
	stem[len + n] = '\0';
}

bool rank__stem_below(const char *dir, const char *p, size_t n, char *out,
		      size_t cap)
{
	size_t dl = strlen(dir);

	if (dl >= cap)
		return false;
	memcpy(out, dir, dl + 1);
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && p[j] != '/')
			j++;
		if (j - i == 2 && p[i] == '.' && p[i + 1] == '.' && !out[0])
			return false;
		rank__stem_push(out, cap, p + i, j - i);
		i = j + 1;
	}
	return true;
}

/* Appends the components of path p[0, n), separated by sep, to stem. */
static void stem_push_all(char *stem, size_t cap, const char *p, size_t n,
			  char sep)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && p[j] != sep)
			j++;
		rank__stem_push(stem, cap, p + i, j - i);
		i = j + 1;
	}
}

/* The directory of the current file, relative to its root. */
static void stem_dir(const Where *w, char *stem, size_t cap)
{
	const char *rel = w->q->rel ? w->q->rel : "";
	const char *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;

	if (n >= cap)
		n = 0;
	memcpy(stem, rel, n);
	stem[n] = '\0';
}

void rank__strip_ext(char *stem, const char *exts)
{
	size_t sl = strlen(stem);

	for (const char *e = exts; *e; e += *e == ' ') {
		size_t el = strcspn(e, " ");

		if (sl > el && memcmp(stem + sl - el, e, el) == 0 &&
		    stem[sl - el - 1] != '/') {
			stem[sl - el] = '\0';
			return;
		}
		e += el;
	}
}

/* ---------------------------------------------------------------------- *
 * Module trees: the nearest directory above the file holding the
 * language's manifest (go.mod, Cargo.toml), read once a request
 * ---------------------------------------------------------------------- */

/* The module path a manifest names: the rest of its first line that
 * starts with key, without quotes. */
static void manifest_path(const char *text, const char *key, char *out,
			  size_t cap)
{
	size_t kl = strlen(key);

	out[0] = '\0';
	for (const char *l = text; kl && *l; l += strcspn(l, "\n"), l += !!*l) {
		size_t n;

		l += strspn(l, " \t");
		if (strncmp(l, key, kl) != 0 ||
		    (key[kl - 1] != ' ' && !strchr(" \t=", l[kl])) || !l[kl])
			continue;
		l += kl;
		l += strspn(l, " \t=\"");
		n = strcspn(l, " \t\r\n\"/");
		while (l[n] == '/' && l[n + 1] &&
		       !strchr(" \t\r\n\"", l[n + 1]))
			n += 1 + strcspn(l + n + 1, " \t\r\n\"/");
		if (n < cap) {
			memcpy(out, l, n);
			out[n] = '\0';
		}
		return;
	}
}

/* Whether s[0, n) is a path relative to the manifest's directory:
 * "./x", "../x", "." or "..". */
static bool local_path(const char *s, size_t n)
{
	return (n >= 1 && s[0] == '.' && (n == 1 || s[1] == '/')) ||
	       (n >= 2 && s[0] == '.' && s[1] == '.' &&
		(n == 2 || s[2] == '/'));
}

/* Adds the redirect of one entry, t[0, n): `from [version] arrow to
 * [version]`, when to is a local directory inside the root. */
static void add_redirect(Where *w, const char *t, size_t n)
{
	const char *arrow = w->mr.redirect_arrow, *word[5];
	size_t al = strlen(arrow), len[5], nw = 0, i = 0, k;
	Redirect *r;

	while (i < n && nw < 5) {
		i += strspn(t + i, " \t\r");
		if (i >= n || (i + 1 < n && t[i] == '/' && t[i + 1] == '/'))
			break;
		word[nw] = t + i;
		len[nw] = strcspn(t + i, " \t\r\n");
		if (i + len[nw] > n)
			len[nw] = n - i;
		i += len[nw++];
	}
	for (k = 1;
	     k < nw && !(len[k] == al && memcmp(word[k], arrow, al) == 0); k++)
		;
	if (k + 1 >= nw || !local_path(word[k + 1], len[k + 1]) ||
	    len[0] >= sizeof(r->from) || w->nredir == REDIRECTS_MAX)
		return;
	if (!w->redir)
		w->redir = xcalloc(REDIRECTS_MAX, sizeof(*w->redir));
	r = &w->redir[w->nredir];
	memcpy(r->dir, w->mdir, sizeof(r->dir));
	for (const char *p = word[k + 1], *end = p + len[k + 1]; p < end;) {
		size_t c = strcspn(p, "/");

		if (p + c > end)
			c = (size_t)(end - p);
		if (c == 2 && p[0] == '.' && p[1] == '.' && !r->dir[0])
			return; /* outside the root */
		rank__stem_push(r->dir, sizeof(r->dir), p, c);
		p += c + 1;
	}
	memcpy(r->from, word[0], len[0]);
	r->from[len[0]] = '\0';
	w->nredir++;
}

/* The manifest's redirects: lines `key entry`, and blocks `key (`
 * of entries a line up to `)`. */
static void read_redirects(Where *w, const char *text)
{
	const char *key = w->mr.redirect;
	size_t kl = strlen(key);
	bool block = false;

	if (!kl || !*w->mr.redirect_arrow)
		return;
	for (const char *l = text; *l; l += strcspn(l, "\n"), l += !!*l) {
		const char *p = l + strspn(l, " \t");
		size_t n;

		if (block && *p == ')') {
			block = false;
			continue;
		}
		if (!block) {
			if (strncmp(p, key, kl) != 0 ||
			    !strchr(" \t(", p[kl]) || !p[kl])
				continue;
			p += kl;
			p += strspn(p, " \t");
			if (*p == '(') {
				block = true;
				continue;
			}
		}
		n = strcspn(p, "\n");
		add_redirect(w, p, n);
	}
}

/* Reads the language's manifest in dir (relative to root, "" for the
 * root itself), up to 64 KiB; 0, or an error when there is none. */
static int read_manifest(const Where *w, const char *root, const char *dir,
			 char **text, size_t *len)
{
	Buf path = {0};
	int rc;

	buf_printf(&path, "%s/%s%s%s", root, dir, *dir ? "/" : "",
		   w->mr.manifest);
	rc = castls_read_file_in(root, path.data, 1 << 16, text, len, NULL);
	buf_free(&path);
	return rc;
}

/* What each_manifest does with a manifest found in dir: true to stop. */
typedef bool (*ManifestFn)(Where *w, const char *root, const char *dir,
			   const char *text, void *ctx);

/* Calls fn with each manifest from the file's directory up to the root,
 * the nearest first, until fn returns true; returns whether one did. */
static bool each_manifest(Where *w, const char *root, ManifestFn fn, void *ctx)
{
	char dir[sizeof(w->mdir)];

	stem_dir(w, dir, sizeof(dir));
	for (;;) {
		char *text;
		size_t len;

		if (read_manifest(w, root, dir, &text, &len) == 0) {
			bool stop = fn(w, root, dir, text, ctx);

			xfree(text);
			if (stop)
				return true;
		}
		if (!*dir)
			return false;
		rank__stem_push(dir, sizeof(dir), "..", 2);
	}
}

/* The nearest manifest is the file's: its directory, module path and
 * redirects. */
static bool take_manifest(Where *w, const char *root, const char *dir,
			  const char *text, void *ctx)
{
	(void)root;
	(void)ctx;
	memcpy(w->mdir, dir, strlen(dir) + 1); /* each_manifest: as long */
	manifest_path(text, w->mr.manifest_key, w->mpath, sizeof(w->mpath));
	read_redirects(w, text);
	return true;
}

static bool find_manifest(Where *w)
{
	const char *root = rank__root_path(w);

	if (w->manifest)
		return w->manifest > 0;
	w->manifest = -1;
	if (!*w->mr.manifest || !root)
		return false;
	if (each_manifest(w, root, take_manifest, NULL))
		w->manifest = 1;
	return w->manifest > 0;
}

/* Whether s[0, n) is the word k. */
static bool is_word(const char *s, size_t n, const char *k)
{
	return strlen(k) == n && memcmp(s, k, n) == 0;
}

/* ---------------------------------------------------------------------- *
 * Module trees by name: the crates of a Rust workspace, each named in its
 * own manifest, read when an import names one
 * ---------------------------------------------------------------------- */

/* Adds the tree whose manifest is in dir (relative to the root), by the
 * name its manifest gives, as code writes it. */
static void add_tree(Where *w, const char *root, const char *dir)
{
	const char *map = w->mr.name_map;
	Buf path = {0};
	char *text, name[IDENT_MAX];
	size_t len;
	Tree *t;

	if (w->ntrees == TREES_MAX || strlen(dir) >= sizeof(t->dir))
		return;
	buf_printf(&path, "%s/%s%s%s", root, dir, *dir ? "/" : "",
		   w->mr.manifest);
	if (castls_read_file_in(root, path.data, 1 << 16, &text, &len, NULL)) {
		buf_free(&path);
		return;
	}
	buf_free(&path);
	manifest_path(text, w->mr.manifest_key, name, sizeof(name));
	xfree(text);
	for (char *c = name; *c; c++)
		for (const char *m = map; m[0] && m[1]; m += 2)
			if (*c == m[0])
				*c = m[1];
	for (int i = 0; i < w->ntrees; i++)
		if (strcmp(w->trees[i].name, name) == 0)
			return; /* the first (nearest) wins */
	if (!*name)
		return;
	if (!w->trees)
		w->trees = xcalloc(TREES_MAX, sizeof(*w->trees));
	t = &w->trees[w->ntrees++];
	memcpy(t->name, name, sizeof(name));
	memcpy(t->dir, dir, strlen(dir) + 1);
}

/* Adds the tree of each member directory s[0, n) of the workspace in
 * dir: a path below it, whose last component may be `*` (every
 * subdirectory). A member outside the workspace's directory is left
 * out. */
static void add_member(Where *w, const char *root, const char *dir,
		       const char *s, size_t n)
{
	char m[192];
	bool glob = n >= 2 && s[n - 1] == '*' && s[n - 2] == '/';
	DIR *d;
	struct dirent *e;
	Buf abs = {0};

	memcpy(m, dir, strlen(dir) + 1);
	for (size_t i = 0; i < n; i++)
		if (s[i] == '.' && i + 1 < n && s[i + 1] == '.')
			return;
	stem_push_all(m, sizeof(m), s, glob ? n - 2 : n, '/');
	if (!glob) {
		add_tree(w, root, m);
		return;
	}
	buf_printf(&abs, "%s/%s", root, m);
	d = opendir(abs.data);
	buf_free(&abs);
	for (int seen = 0; d && (e = readdir(d)) && seen < 4 * TREES_MAX;
	     seen++) {
		char sub[192];

		if (e->d_name[0] == '.')
			continue;
		memcpy(sub, m, sizeof(m));
		rank__stem_push(sub, sizeof(sub), e->d_name, strlen(e->d_name));
		add_tree(w, root, sub);
	}
	if (d)
		closedir(d);
}

/* The members of the workspace whose manifest text is in dir: the
 * quoted strings of the list `members_key = [...]`. */
static void workspace_members(Where *w, const char *root, const char *dir,
			      const char *text)
{
	const char *key = w->mr.members_key, *p = text;
	size_t kl = strlen(key);

	for (; *p; p += strcspn(p, "\n"), p += !!*p) {
		p += strspn(p, " \t");
		if (kl && strncmp(p, key, kl) == 0 &&
		    p[kl + strspn(p + kl, " \t")] == '=')
			break;
	}
	if (!*p || !(p = strchr(p, '[')))
		return;
	for (p++; *p && *p != ']';) {
		size_t n;

		if (*p != '"') {
			if (*p == '#') /* a comment to the line's end */
				p += strcspn(p, "\n");
			else
				p++;
			continue;
		}
		n = strcspn(p + 1, "\"\n");
		if (p[1 + n] != '"')
			return;
		add_member(w, root, dir, p + 1, n);
		p += n + 2;
	}
}

/* The nearest manifest's tree (*nearest is set until it is taken), and
 * that of the first manifest holding the workspace line, with its
 * members, where the walk stops. */
static bool take_trees(Where *w, const char *root, const char *dir,
		       const char *text, void *nearest)
{
	bool ws = *w->mr.workspace && strstr(text, w->mr.workspace) != NULL;

	if (*(bool *)nearest || ws)
		add_tree(w, root, dir);
	*(bool *)nearest = false;
	if (ws)
		workspace_members(w, root, dir, text);
	return ws;
}

/* The trees of the workspace around the file: the nearest manifest's
 * own, then, from the first manifest above that holds the workspace
 * line, its members and its own. */
static void find_trees(Where *w)
{
	const char *root = rank__root_path(w);
	bool nearest = true;

	if (w->trees_read)
		return;
	w->trees_read = true;
	if (!*w->mr.manifest || !*w->mr.manifest_key || !root)
		return;
	each_manifest(w, root, take_trees, &nearest);
}

/* The workspace tree that code names m[0, n), or NULL. */
static const Tree *tree_named(Where *w, const char *m, size_t n)
{
	find_trees(w);
	for (int i = 0; i < w->ntrees; i++)
		if (is_word(m, n, w->trees[i].name))
			return &w->trees[i];
	return NULL;
}

/* The directory of the file's own module: its directory when its name
 * is its directory's module (mod.rs), else that and its stem (a/b.rs
 * holds module a::b, whose children are in a/b/). */
static void own_module_dir(const Where *w, char *stem, size_t cap)
{
	const char *rel = w->q->rel ? w->q->rel : "";
	const char *base = strrchr(rel, '/');

	base = base ? base + 1 : rel;
	stem_dir(w, stem, cap);
	if (!word_in_list(w->mr.dir_modules, base)) {
		size_t n = strcspn(base, ".");

		rank__stem_push(stem, cap, base, n);
	}
}

/* Rust: `crate::a::b` from the crate's source directory, `self::`
 * from the file's module, `super::` from its parent, a workspace
 * crate's `c::a::b` from its source directory, and another crate's as
 * a/b under some source directory. */
static void resolve_crate(Where *w, const char *m, size_t n, bool relative,
			  Import *im)
{
	const char *sep = w->mr.sep;
	const Tree *tree;
	size_t sl = strlen(sep), k = 0, i;

	while (k < n && strncmp(m + k, sep, sl) != 0)
		k++;
	i = k + (k < n ? sl : 0); /* past the first component */
	if (relative || is_word(m, k, "self") || is_word(m, k, "super")) {
		own_module_dir(w, im->stem, sizeof(im->stem));
		i = 0;
	} else if (is_word(m, k, "crate")) {
		if (find_manifest(w))
			memcpy(im->stem, w->mdir, sizeof(w->mdir));
		rank__stem_push(im->stem, sizeof(im->stem), w->mr.source_dir,
				strlen(w->mr.source_dir));
	} else if ((tree = tree_named(w, m, k))) { /* the workspace's */
		memcpy(im->stem, tree->dir, sizeof(tree->dir));
		rank__stem_push(im->stem, sizeof(im->stem), w->mr.source_dir,
				strlen(w->mr.source_dir));
	} else { /* another crate: its path under any crate */
		rank__stem_push(im->stem, sizeof(im->stem), w->mr.source_dir,
				strlen(w->mr.source_dir));
		im->suffix = true;
	}
	/* The rest, component by component: `self` stays, `super` climbs
	 * (both are keywords, never a module's name). */
	while (i < n) {
		size_t j = i;

		while (j < n && strncmp(m + j, sep, sl) != 0)
			j++;
		if (is_word(m + i, j - i, "super"))
			rank__stem_push(im->stem, sizeof(im->stem), "..", 2);
		else if (!is_word(m + i, j - i, "self"))
			rank__stem_push(im->stem, sizeof(im->stem), m + i,
					j - i);
		i = j + (j < n ? sl : 0);
	}
	im->top = !im->stem[0] && !im->suffix;
}

/* A module path under one the manifest redirects to a local directory
 * (the longest such), resolved into im. */
static bool resolve_redirect(Where *w, const char *m, size_t n, Import *im)
{
	const Redirect *best = NULL;
	size_t bl = 0;

	if (!find_manifest(w))
		return false;
	for (int i = 0; i < w->nredir; i++) {
		const Redirect *r = &w->redir[i];
		size_t fl = strlen(r->from);

		if (fl > bl && n >= fl && memcmp(m, r->from, fl) == 0 &&
		    (n == fl || m[fl] == '/'))
			best = r, bl = fl;
	}
	if (!best)
		return false;
	memcpy(im->stem, best->dir, sizeof(best->dir));
	stem_push_all(im->stem, sizeof(im->stem), m + bl, n - bl, '/');
	im->top = !im->stem[0];
	return true;
}

/* Whether rel, from the root of the buffer's file, is a directory (dir)
 * or a regular file. */
static bool path_is(const Where *w, const char *rel, bool dir)
{
	struct stat st;
	Buf path = {0};
	bool ok;

	buf_printf(&path, "%s/%s", rank__root_path(w), rel);
	ok = stat(path.data, &st) == 0 &&
	     (dir ? S_ISDIR(st.st_mode) : S_ISREG(st.st_mode));
	buf_free(&path);
	return ok;
}

static bool file_exists(const Where *w, const char *rel)
{
	return path_is(w, rel, false);
}

/* A module path the manifest's module holds a copy of in its vendor
 * directory (Go's `vendor/golang.org/x/text/width`). */
static bool resolve_vendored(Where *w, const char *m, size_t n, Import *im)
{
	char stem[sizeof(im->stem)];

	if (!*w->mr.vendor || !rank__root_path(w))
		return false;
	memcpy(stem, w->mdir, sizeof(w->mdir));
	rank__stem_push(stem, sizeof(stem), w->mr.vendor, strlen(w->mr.vendor));
	stem_push_all(stem, sizeof(stem), m, n, '/');
	if (!path_is(w, stem, true))
		return false;
	memcpy(im->stem, stem, sizeof(stem));
	return true;
}

/* C: an include that is a file relative to the including one, else in
 * an include directory of the compilation database (then its source
 * file may be anywhere: im->pair), resolved into im. False when
 * neither has it. */
static bool resolve_include(Where *w, const char *m, size_t n, Import *im)
{
	char path[sizeof(im->stem)];

	if (!rank__root_path(w) || !w->q->rel)
		return false;
	stem_dir(w, path, sizeof(path));
	if (rank__stem_below(path, m, n, im->stem, sizeof(im->stem)) &&
	    file_exists(w, im->stem)) {
		rank__strip_ext(im->stem, w->mr.exts);
		return true;
	}
	rank__include_dirs(w);
	for (int i = 0; i < w->nincdirs; i++)
		if (rank__stem_below(w->incdirs[i], m, n, im->stem,
				     sizeof(im->stem)) &&
		    file_exists(w, im->stem)) {
			rank__strip_ext(im->stem, w->mr.exts);
			im->pair = true;
			return true;
		}
	im->stem[0] = '\0';
	return false;
}

/* Resolves module text m[0, n) of an import into im. */
static void resolve_module(Where *w, const char *m, size_t n, bool relative,
			   Import *im)
{
	size_t i = 0, ml;

	im->stem[0] = '\0';
	im->suffix = im->top = im->pair = im->sources = im->mapped = false;
	im->outside = false;
	switch (w->mr.style) {
	case MODULES_DOTTED:
		if (n && m[0] == '.') { /* relative: a dot per level up */
			stem_dir(w, im->stem, sizeof(im->stem));
			for (i = 1; i < n && m[i] == '.'; i++)
				rank__stem_push(im->stem, sizeof(im->stem),
						"..", 2);
		} else {
			im->suffix = true;
		}
		stem_push_all(im->stem, sizeof(im->stem), m + i, n - i, '.');
		break;
	case MODULES_PATHS:
		if (n == 0 || m[0] != '.') { /* a package, or a mapped path */
			im->mapped = rank__map_module(w, m, n, im);
			break;
		}
		stem_dir(w, im->stem, sizeof(im->stem));
		stem_push_all(im->stem, sizeof(im->stem), m, n, '/');
		rank__strip_ext(im->stem, w->mr.exts);
		break;
	case MODULES_PACKAGES:
		if (resolve_redirect(w, m, n, im))
			break;
		ml = find_manifest(w) ? strlen(w->mpath) : 0;
		if (ml && n >= ml && memcmp(m, w->mpath, ml) == 0 &&
		    (n == ml || m[ml] == '/')) {
			memcpy(im->stem, w->mdir, sizeof(w->mdir));
			stem_push_all(im->stem, sizeof(im->stem), m + ml,
				      n - ml, '/');
			im->top = !im->stem[0];
		} else if (!ml || !resolve_vendored(w, m, n, im)) {
			/* a tree laid out by import path (GOPATH); past the
			 * file's module, none the workspace holds */
			stem_push_all(im->stem, sizeof(im->stem), m, n, '/');
			im->suffix = true;
			im->outside = ml > 0;
		}
		break;
	case MODULES_CRATES:
		resolve_crate(w, m, n, relative, im);
		break;
	case MODULES_INCLUDES:
		if (resolve_include(w, m, n, im))
			break;
		if (n && m[0] == '.')
			stem_dir(w, im->stem, sizeof(im->stem));
		else
			im->suffix = true;
		stem_push_all(im->stem, sizeof(im->stem), m, n, '/');
		rank__strip_ext(im->stem, w->mr.exts);
		break;
	case MODULES_NONE:
		break;
	}
}

/* Resolves the module of import r into im: its group's prefix, if
 * any, then its own path. */
static void resolve_ref(Where *w, const ImportRef *r, Import *im)
{
	const char *t = w->q->text;
	Buf m = {0};

	if (r->prefix.end > r->prefix.start) {
		buf_append(&m, t + r->prefix.start,
			   r->prefix.end - r->prefix.start);
		if (r->module.end > r->module.start)
			buf_puts(&m, w->mr.sep);
	}
	buf_append(&m, t + r->module.start, r->module.end - r->module.start);
	resolve_module(w, m.data ? m.data : "", m.len, r->relative, im);
	buf_free(&m);
}

/* Whether dir[0, dl) is stem, or ends with it when im->suffix. */
static bool stem_is(const Import *im, const char *dir, size_t dl)
{
	size_t sl = strlen(im->stem);

	if (dl == sl)
		return memcmp(dir, im->stem, sl) == 0;
	return im->suffix && sl && dl > sl && dir[dl - sl - 1] == '/' &&
	       memcmp(dir + dl - sl, im->stem, sl) == 0;
}

/* Whether t[0, tl) is a word of the space-separated list. */
static bool tail_in(const char *list, const char *t, size_t tl)
{
	for (const char *e = list; *e; e += *e == ' ') {
		size_t el = strcspn(e, " ");

		if (el == tl && memcmp(e, t, tl) == 0)
			return true;
		e += el;
	}
	return false;
}

bool rank__import_resolves_to(const Where *w, const Import *im,
			      const char *path)
{
	const char *tails = w->mr.files, *slash = strrchr(path, '/');
	size_t sl = strlen(im->stem), pl = strlen(path);

	if (sl == 0 && !im->top)
		return false;
	for (const char *t = tails; *t; t += *t == ' ') {
		size_t tl = strcspn(t, " ");

		if (im->sources && tail_in(w->mr.exts, t, tl)) {
			t += tl;
			continue;
		}
		/* "/": any file directly in the directory. */
		if (tl == 1 && *t == '/') {
			if (stem_is(im, path,
				    slash ? (size_t)(slash - path) : 0))
				return true;
		} else if (pl >= sl + tl && sl &&
			   memcmp(path + pl - tl, t, tl) == 0 &&
			   stem_is(im, path, pl - tl)) {
			return true;
		}
		t += tl;
	}
	return false;
}

/* ---------------------------------------------------------------------- *
 * Modules as path fragments ("pkg/mod", "util"): a file that is one, or
 * its package's own file (`__init__.py`, `index.ts`), is a module the
 * buffer imports
 * ---------------------------------------------------------------------- */

/* Appends p[0, n), then "/" and name when name is given, as a fragment. */
static void add_frag(Where *w, const char *p, size_t n, const char *name)
{
	size_t k = name ? strlen(name) + 1 : 0;
	char *f;

	if (w->nfrags == FRAGS_MAX || n == 0 || n + k >= sizeof(w->frags[0]))
		return;
	if (!w->frags)
		w->frags = xmalloc(FRAGS_MAX * sizeof(*w->frags));
	f = w->frags[w->nfrags++];
	/* Python dots become slashes; leading dots (relative) dropped. */
	while (n && *p == '.' && (n < 2 || p[1] != '/'))
		p++, n--;
	for (size_t i = 0; i < n; i++)
		f[i] = p[i] == '.' && !(i + 1 < n && p[i + 1] == '/') &&
			       !(i > 0 && p[i - 1] == '.')
			   ? '/'
			   : p[i];
	f[n] = '\0';
	/* "./util" and "../lib/x" keep only the meaningful tail. */
	while (strncmp(f, "./", 2) == 0 || strncmp(f, "../", 3) == 0)
		memmove(f, f + (f[1] == '/' ? 2 : 3), strlen(f) + 1);
	if (!*f || strcmp(f, ".") == 0 || strcmp(f, "..") == 0)
		w->nfrags--; /* the buffer's own package: resolved apart */
	else if (name)
		snprintf(f + strlen(f), k + 1, "/%s", name);
}

/* The length of the module path of the file at path: the path less its
 * extension (`pkg/mod.py`, `util.d.ts`), or less its last part when that
 * is its package's own file (`pkg/mod/__init__.py`, `util/index.ts`). */
static size_t module_path_len(const char *path)
{
	const char *base = strrchr(path, '/'), *dot;

	base = base ? base + 1 : path;
	dot = strchr(base, '.');
	if (!dot)
		return strlen(path);
	if ((dot - base == 8 && strncmp(base, "__init__", 8) == 0) ||
	    (dot - base == 5 && strncmp(base, "index", 5) == 0))
		return base > path ? (size_t)(base - path - 1) : 0;
	return (size_t)(dot - path);
}

/* Whether the module path mp[0, n) is fragment f, wherever the workspace
 * holds it: `import django` names `django/__init__.py`, not
 * `django/db/models/query.py`. */
static bool frag_names(const char *mp, size_t n, const char *f)
{
	size_t fl = strlen(f);

	return fl <= n && memcmp(mp + n - fl, f, fl) == 0 &&
	       (fl == n || mp[n - fl - 1] == '/');
}

/* A module the buffer's file uses whole (an include, a Go package, its
 * own package or header), resolved. */
static void add_mod(Where *w, const Import *im)
{
	if (w->nmods == FRAGS_MAX || (!im->stem[0] && !im->top))
		return;
	if (!w->mods)
		w->mods = xmalloc(FRAGS_MAX * sizeof(*w->mods));
	w->mods[w->nmods++] = *im;
}

/* The source files of a header found in an include directory: any
 * whose path ends as the include's does, less its extension. */
static void add_sources(Where *w, const ImportRef *r)
{
	Import im = {0};

	stem_push_all(im.stem, sizeof(im.stem), w->q->text + r->module.start,
		      r->module.end - r->module.start, '/');
	rank__strip_ext(im.stem, w->mr.exts);
	im.suffix = im.sources = true;
	add_mod(w, &im);
}

/* The modules a file sees without naming them: its directory's files
 * where those share one scope, its source or header where a header is
 * the module. */
static void add_own_mods(Where *w)
{
	Import im = {0};

	if (!w->q->rel)
		return;
	if (w->mr.shared_scope) {
		stem_dir(w, im.stem, sizeof(im.stem));
		im.top = !im.stem[0];
		add_mod(w, &im);
	}
	if (w->mr.style == MODULES_INCLUDES &&
	    strlen(w->q->rel) < sizeof(im.stem)) {
		memcpy(im.stem, w->q->rel, strlen(w->q->rel) + 1);
		rank__strip_ext(im.stem, w->mr.files);
		im.top = false;
		add_mod(w, &im);
	}
}

bool rank__path_imported(const Where *w, const char *path)
{
	size_t n = w->nfrags ? module_path_len(path) : 0;

	for (int i = 0; i < w->nfrags; i++)
		if (frag_names(path, n, w->frags[i]))
			return true;
	for (int i = 0; i < w->nmods; i++)
		if (rank__import_resolves_to(w, &w->mods[i], path))
			return true;
	return false;
}

/* ---------------------------------------------------------------------- *
 * Imported names
 * ---------------------------------------------------------------------- */

static bool copy_range(const char *text, ByteRange r, char *out, size_t cap)
{
	size_t n = r.end - r.start;

	out[0] = '\0';
	if (n == 0 || n >= cap ||
	    !rank__ident_start((unsigned char)text[r.start]))
		return false;
	memcpy(out, text + r.start, n);
	out[n] = '\0';
	return true;
}

/* Counts, for each import, the uses of its local name in the buffer
 * outside import statements: all uses (w->words) less those inside the
 * statements. A name imported but not used yet is one the code being
 * written is likely to use. */
static void count_uses(Where *w)
{
	const char *t = w->q->text;
	Import *imp = w->imp;

	for (int k = 0; k < w->nimp; k++)
		imp[k].uses = rank__words_get(&w->words, imp[k].local,
					      strlen(imp[k].local));
	for (int j = 0; j < w->nimp; j++) {
		uint32_t lo = imp[j].stmt_start, hi = imp[j].stmt_end;

		if (j && lo == imp[j - 1].stmt_start)
			continue; /* a statement once */
		for (uint32_t i = lo, a; rank__next_word(t, lo, hi, &i, &a);)
			for (int k = 0; k < w->nimp; k++)
				if (imp[k].uses &&
				    strlen(imp[k].local) == i - a &&
				    memcmp(imp[k].local, t + a, i - a) == 0)
					imp[k].uses--;
	}
}

/* The members of a module the code before the cursor uses through
 * prefix (`Option.` of `Option.getOrUndefined(x)`), each as a name
 * imported from the module of from. */
static void add_members(Where *w, const char *prefix, size_t plen,
			const Import *from)
{
	const char *t = w->q->text;
	uint32_t hi = w->q->cursor;

	for (uint32_t i = w->q_lo; i + plen + 1 < hi; i++) {
		uint32_t a, z;
		Import *im;
		int k;

		if (!rank__member_at(t, w->q_lo, hi, i, prefix, plen, w->mr.sep,
				     &a, &z))
			continue;
		for (k = 0; k < w->nimp; k++)
			if (w->imp[k].member &&
			    strlen(w->imp[k].name) == z - a &&
			    memcmp(w->imp[k].name, t + a, z - a) == 0 &&
			    strcmp(w->imp[k].stem, from->stem) == 0)
				break;
		if (k < w->nimp || w->nimp == IMPORTS_MAX)
			continue;
		im = &w->imp[w->nimp++];
		*im = *from;
		memcpy(im->name, t + a, z - a);
		im->name[z - a] = '\0';
		memcpy(im->local, im->name, sizeof(im->local));
		im->stmt_start = im->stmt_end = 0;
		im->member = true;
	}
}

/* Modules the buffer names (`import * as M`, `import a.b as m`, and a
 * name that may be a module, `from pkg import mod`): the members it uses
 * through them. */
static void module_members(Where *w, const ImportRef *refs, uint32_t n)
{
	const char *t = w->q->text;

	for (uint32_t i = 0; i < n && w->nimp < IMPORTS_MAX; i++) {
		const ImportRef *r = &refs[i];
		ByteRange pre = r->local;
		Import from = {0};

		if (r->reexport || r->local.end == r->local.start)
			continue;
		resolve_ref(w, r, &from);
		if (r->kind == IMPORT_NAME) /* a module of a package? */
			rank__stem_push(from.stem, sizeof(from.stem),
					t + r->name.start,
					r->name.end - r->name.start);
		else if (r->kind == IMPORT_MODULE &&
			 r->local.end <= r->module.end)
			pre = r->module; /* `import a.b`: used as a.b.name */
		else if (r->kind == IMPORT_DEFAULT)
			continue;
		if (from.stem[0] || from.top)
			add_members(w, t + pre.start, pre.end - pre.start,
				    &from);
	}
}

/* ---------------------------------------------------------------------- *
 * What the headers a C file includes include
 * ---------------------------------------------------------------------- */

/* The file that `#include m` in a file of directory dir names, into out:
 * beside it, then in the include directories, then in the common ones. */
static bool find_include(Where *w, const char *dir, const char *m, size_t n,
			 char *out, size_t cap)
{
	static const char *const common[] = {"include", "", "src"};

	if (rank__stem_below(dir, m, n, out, cap) && file_exists(w, out))
		return true;
	for (int i = 0; i < w->nincdirs; i++)
		if (rank__stem_below(w->incdirs[i], m, n, out, cap) &&
		    file_exists(w, out))
			return true;
	for (size_t i = 0; i < sizeof(common) / sizeof(*common); i++)
		if (rank__stem_below(common[i], m, n, out, cap) &&
		    file_exists(w, out))
			return true;
	return false;
}

typedef struct {
	char (*path)[192];
	uint8_t *depth;
	int n, looked; /* files found; lookups made */
} Closure;

/* Adds path at depth, unless it is there already or cl is full. */
static void closure_put(Closure *cl, const char *path, uint8_t depth)
{
	size_t n = strlen(path);

	if (cl->n == INCLUDE_FILES || n >= sizeof(cl->path[0]))
		return;
	for (int i = 0; i < cl->n; i++)
		if (strcmp(cl->path[i], path) == 0)
			return;
	memcpy(cl->path[cl->n], path, n + 1);
	cl->depth[cl->n++] = depth;
}

/* Appends to found the file `#include m` in a file of directory dir
 * names, each path NUL-ended; false when the lookups are spent. */
static bool look_up(Where *w, Closure *cl, const char *dir, const char *m,
		    size_t n, Buf *found)
{
	char path[sizeof(cl->path[0])];

	if (cl->looked == INCLUDE_LOOKUPS)
		return false;
	cl->looked++;
	if (find_include(w, dir, m, n, path, sizeof(path)))
		buf_append(found, path, strlen(path) + 1);
	return true;
}

/* The files the includes of text[0, len), a header at path, name, into
 * found; false when the lookups ran out first. A line scan, not a parse:
 * `#  include "a.h"` and `#include <a/b.h>`. */
static bool scan_includes(Where *w, Closure *cl, const char *path,
			  const char *text, size_t len, Buf *found)
{
	char dir[sizeof(cl->path[0])];
	const char *slash = strrchr(path, '/');
	size_t dl = slash ? (size_t)(slash - path) : 0;

	memcpy(dir, path, dl);
	dir[dl] = '\0';
	for (const char *p = text, *end = text + len; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *le = eol ? eol : end, *q = p;

		while (q < le && (*q == ' ' || *q == '\t'))
			q++;
		if (q < le && *q == '#') {
			for (q++; q < le && (*q == ' ' || *q == '\t');)
				q++;
			if (le - q > 8 && memcmp(q, "include", 7) == 0) {
				const char *a, *z = NULL;

				for (q += 7;
				     q < le && (*q == ' ' || *q == '\t');)
					q++;
				a = q + 1;
				if (q < le && (*q == '"' || *q == '<'))
					z = memchr(a, *q == '"' ? '"' : '>',
						   (size_t)(le - a));
				if (z && z > a &&
				    !look_up(w, cl, dir, a, (size_t)(z - a),
					     found))
					return false;
			}
		}
		p = le + 1;
	}
	return true;
}

/* The files the includes of header path name, into found: from the
 * cache while the header's stamp holds, else read from disk. */
static void includes_of(Where *w, Closure *cl, const char *root,
			const char *path, Buf *found)
{
	Buf abs = {0};
	DiskStamp st;
	char *text;
	size_t len;

	buf_printf(&abs, "%s/%s", root, path);
	if (!rank__header_get(w, path, abs.data, found) &&
	    castls_read_file_in(root, abs.data, INCLUDE_READ, &text, &len,
				&st) == 0) {
		/* Only a whole list is kept: one cut short by the lookups
		 * would stand for the header next time. */
		if (scan_includes(w, cl, path, text, len, found))
			rank__header_put(w, path, &st, found);
		xfree(text);
	}
	buf_free(&abs);
}

/* The headers the buffer's includes include, INCLUDE_DEPTH levels in
 * all, as modules the buffer imports: a struct or macro reached through
 * another header is what the compiler sees, and, in a library of headers
 * that include their details, much of what code uses. Bounded by
 * INCLUDE_FILES headers and INCLUDE_LOOKUPS lookups; a third level found
 * no more on make eval's C and C++ sets. */
static void include_closure(Where *w, const ImportRef *refs, uint32_t n)
{
	const char *root = rank__root_path(w);
	Closure cl = {xmalloc(INCLUDE_FILES * sizeof(*cl.path)),
		      xmalloc(INCLUDE_FILES), 0, 0};
	char dir[sizeof(cl.path[0])];
	Buf found = {0};

	if (!root || !w->q->rel)
		goto out;
	rank__include_dirs(w);
	stem_dir(w, dir, sizeof(dir));
	for (uint32_t i = 0; i < n; i++)
		look_up(w, &cl, dir, w->q->text + refs[i].module.start,
			refs[i].module.end - refs[i].module.start, &found);
	for (size_t k = 0; k < found.len; k += strlen(found.data + k) + 1)
		closure_put(&cl, found.data + k, 1);
	for (int i = 0; i < cl.n; i++) {
		if (cl.depth[i] > 1) {
			Import im = {0};

			memcpy(im.stem, cl.path[i], sizeof(im.stem));
			rank__strip_ext(im.stem, w->mr.exts);
			add_mod(w, &im);
		}
		if (cl.depth[i] == INCLUDE_DEPTH)
			continue;
		found.len = 0;
		includes_of(w, &cl, root, cl.path[i], &found);
		for (size_t k = 0; k < found.len;
		     k += strlen(found.data + k) + 1)
			closure_put(&cl, found.data + k,
				    (uint8_t)(cl.depth[i] + 1));
	}
out:
	buf_free(&found);
	xfree(cl.path);
	xfree(cl.depth);
}

int rank__cmp_range(const void *a, const void *b)
{
	uint32_t x = ((const ByteRange *)a)->start,
		 y = ((const ByteRange *)b)->start;

	return x < y ? -1 : x > y;
}

/* Adds to w->paths the names the buffer reads as members of the
 * packages outside the workspace that it names local[0, nl)
 * (`NewScanner` of Go's `bufio.NewScanner`): no definition of the
 * workspace is theirs, and a namesake elsewhere had ranked as if the
 * code used it. */
static void outside_members(Where *w, const char (*local)[IDENT_MAX],
			    uint32_t nl)
{
	const char *t = w->q->text, *sep = w->mr.sep;
	size_t sl = strlen(sep);
	uint32_t cap = w->npaths, m = w->npaths;

	if (nl == 0 || sl == 0)
		return;
	for (uint32_t i = 0, a;
	     rank__next_word(t, 0, (uint32_t)w->q->len, &i, &a);) {
		uint32_t z = i + (uint32_t)sl, b;
		uint32_t k;

		if (z >= w->q->len || memcmp(t + i, sep, sl) != 0 ||
		    (a > 0 && t[a - 1] == '.'))
			continue;
		for (k = 0; k < nl; k++)
			if (strlen(local[k]) == i - a &&
			    memcmp(local[k], t + a, i - a) == 0)
				break;
		b = z;
		if (k == nl ||
		    !rank__next_word(t, z, (uint32_t)w->q->len, &b, &z) ||
		    z != i + sl)
			continue;
		if (m == cap) {
			cap = 2 * cap + 16;
			w->paths = xrealloc(w->paths, cap * sizeof(*w->paths));
		}
		w->paths[m++] = (ByteRange){z, b};
		i = b;
	}
	if (m == w->npaths)
		return;
	w->noutside = m - w->npaths;
	w->outside = xmalloc(w->noutside * sizeof(*w->outside));
	memcpy(w->outside, w->paths + w->npaths,
	       w->noutside * sizeof(*w->outside));
	w->npaths = m;
	qsort(w->paths, m, sizeof(*w->paths), rank__cmp_range);
}

void rank__imports(Where *w)
{
	const RankCursor *q = w->q;
	ImportRef *refs;
	uint32_t n = chunker_imports(q->lang, w->tree, q->text, q->len, &refs);
	uint32_t last_stmt = UINT32_MAX, nout = 0;
	char(*out)[IDENT_MAX] = xmalloc(FRAGS_MAX * sizeof(*out));
	char name[IDENT_MAX];

	if (w->mr.style == MODULES_PACKAGES)
		find_manifest(w); /* whether imports resolve (gather.c) */
	w->imp = xcalloc(IMPORTS_MAX, sizeof(*w->imp));
	/* The module each import names, with a group's prefix, and the
	 * receiver of each method: no names of the code (rank__file_words
	 * skips them). Without receivers, here and before the cursor
	 * (where.c's noncode), Go's Recall@5 rose 0.303 -> 0.309 and
	 * 0.315 -> 0.329 (tuning and check half; 29 tasks won, 8 lost):
	 * the type of the methods around the cursor had ranked first for
	 * its name in their receivers, used near the cursor and all over
	 * the file. */
	w->paths = xmalloc((n + w->nmethods_of + 1) * sizeof(*w->paths));
	for (uint32_t i = 0; i < n; i++) {
		ByteRange m = refs[i].module;

		if (refs[i].prefix.end > refs[i].prefix.start)
			m.start = refs[i].prefix.start;
		if (m.end > m.start)
			w->paths[w->npaths++] = m;
	}
	for (uint32_t i = 0; i < w->nmethods_of; i++)
		w->paths[w->npaths++] = w->methods_of[i];
	qsort(w->paths, w->npaths, sizeof(*w->paths), rank__cmp_range);
	add_own_mods(w);
	for (uint32_t i = 0; i < n; i++) {
		const ImportRef *r = &refs[i];
		Import *im = &w->imp[w->nimp];
		Import mod = {0}; /* a name's module, or the module itself */

		resolve_ref(w, r, &mod);
		if (mod.outside && nout < FRAGS_MAX &&
		    copy_range(q->text, r->local, out[nout], IDENT_MAX))
			nout++;
		if (w->mr.style >= MODULES_PACKAGES || mod.mapped) {
			add_mod(w, &mod);
			if (mod.pair)
				add_sources(w, r);
		} else {
			if (r->stmt.start != last_stmt ||
			    r->kind == IMPORT_MODULE)
				add_frag(w, q->text + r->module.start,
					 r->module.end - r->module.start, NULL);
			/* `from pkg import mod`: mod may be a module. */
			if (r->kind == IMPORT_NAME &&
			    copy_range(q->text, r->name, name, sizeof(name)))
				add_frag(w, q->text + r->module.start,
					 r->module.end - r->module.start, name);
		}
		last_stmt = r->stmt.start;
		/* The names to look up as definitions: those imported from
		 * a module, not modules themselves or re-exports. */
		if (w->nimp == IMPORTS_MAX || r->reexport ||
		    (r->kind != IMPORT_NAME && r->kind != IMPORT_DEFAULT) ||
		    !copy_range(q->text, r->name, im->name, sizeof(im->name)))
			continue;
		if (!copy_range(q->text, r->local, im->local,
				sizeof(im->local)))
			memcpy(im->local, im->name, sizeof(im->local));
		memcpy(im->stem, mod.stem, sizeof(im->stem));
		im->suffix = mod.suffix;
		im->top = mod.top;
		im->stmt_start = r->stmt.start;
		im->stmt_end = r->stmt.end;
		w->nimp++;
	}
	if (w->mr.style == MODULES_INCLUDES)
		include_closure(w, refs, n);
	outside_members(w, (const char(*)[IDENT_MAX])out, nout);
	xfree(out);
	count_uses(w);
	module_members(w, refs, n);
	xfree(refs);
}
