/*
 * imports.c: what the buffer imports (read off its tree by the language
 * table's rules), which files those modules are, and how often the file
 * uses each imported name.
 */
#include "rank_int.h"

#include <string.h>

/* ---------------------------------------------------------------------- *
 * Module paths
 * ---------------------------------------------------------------------- */

/* Appends path component s[0, n) to stem, resolving "." and "..". */
static void stem_push(char *stem, size_t cap, const char *s, size_t n)
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

/* Appends the components of path p[0, n), separated by sep, to stem. */
static void stem_push_all(char *stem, size_t cap, const char *p, size_t n,
			  char sep)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && p[j] != sep)
			j++;
		stem_push(stem, cap, p + i, j - i);
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

/* Drops from stem an extension of the list exts (space-separated). */
static void strip_ext(char *stem, const char *exts)
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

/* Resolves the module text m[0, n) of an import into im. */
static void resolve_module(const Where *w, const char *m, size_t n, Import *im)
{
	size_t i = 0;

	im->stem[0] = '\0';
	im->suffix = false;
	switch (lang_module_style(w->q->lang)) {
	case MODULES_DOTTED:
		if (n && m[0] == '.') { /* relative: a dot per level up */
			stem_dir(w, im->stem, sizeof(im->stem));
			for (i = 1; i < n && m[i] == '.'; i++)
				stem_push(im->stem, sizeof(im->stem), "..", 2);
		} else {
			im->suffix = true;
		}
		stem_push_all(im->stem, sizeof(im->stem), m + i, n - i, '.');
		break;
	case MODULES_PATHS:
		if (n == 0 || m[0] != '.') /* a package: not resolved here */
			break;
		stem_dir(w, im->stem, sizeof(im->stem));
		stem_push_all(im->stem, sizeof(im->stem), m, n, '/');
		strip_ext(im->stem, lang_module_exts(w->q->lang));
		break;
	case MODULES_NONE:
		break;
	}
}

bool rank__import_resolves_to(const Where *w, const Import *im,
			      const char *path)
{
	const char *tails = lang_module_files(w->q->lang);
	size_t sl = strlen(im->stem), pl = strlen(path);

	if (sl == 0)
		return false;
	for (const char *t = tails; *t; t += *t == ' ') {
		size_t tl = strcspn(t, " ");
		const char *at;

		if (pl < sl + tl || memcmp(path + pl - tl, t, tl) != 0) {
			t += tl;
			continue;
		}
		at = path + pl - tl - sl;
		if (memcmp(at, im->stem, sl) == 0 &&
		    (at == path || (im->suffix && at[-1] == '/')))
			return true;
		t += tl;
	}
	return false;
}

/* ---------------------------------------------------------------------- *
 * Modules as path fragments ("pkg/mod", "util"): a file whose path holds
 * one is in a module the buffer imports
 * ---------------------------------------------------------------------- */

static void add_frag(Where *w, const char *p, size_t n)
{
	char *f;

	if (w->nfrags == FRAGS_MAX || n == 0 || n >= sizeof(w->frags[0]))
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
}

bool rank__path_imported(const Where *w, const char *path)
{
	for (int i = 0; i < w->nfrags; i++)
		if (strstr(path, w->frags[i]))
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
		uint32_t a = i + (uint32_t)plen + 1, z = a;
		Import *im;
		int k;

		if (memcmp(t + i, prefix, plen) != 0 || t[i + plen] != '.' ||
		    (i > w->q_lo &&
		     (rank__ident_char((unsigned char)t[i - 1]) ||
		      t[i - 1] == '.')))
			continue;
		while (z < hi && rank__ident_char((unsigned char)t[z]))
			z++;
		if (z == a || z - a >= IDENT_MAX ||
		    !rank__ident_start((unsigned char)t[a]))
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
		resolve_module(w, t + r->module.start,
			       r->module.end - r->module.start, &from);
		if (r->kind == IMPORT_NAME) /* a module of a package? */
			stem_push(from.stem, sizeof(from.stem),
				  t + r->name.start,
				  r->name.end - r->name.start);
		else if (r->kind == IMPORT_MODULE &&
			 r->local.end <= r->module.end)
			pre = r->module; /* `import a.b`: used as a.b.name */
		else if (r->kind == IMPORT_DEFAULT)
			continue;
		if (from.stem[0])
			add_members(w, t + pre.start, pre.end - pre.start,
				    &from);
	}
}

void rank__imports(Where *w)
{
	const RankCursor *q = w->q;
	ImportRef *refs;
	uint32_t n = chunker_imports(q->lang, w->tree, q->text, q->len, &refs);
	uint32_t last_stmt = UINT32_MAX;

	w->imp = xcalloc(IMPORTS_MAX, sizeof(*w->imp));
	for (uint32_t i = 0; i < n; i++) {
		const ImportRef *r = &refs[i];
		Import *im = &w->imp[w->nimp];

		if (r->stmt.start != last_stmt || r->kind == IMPORT_MODULE)
			add_frag(w, q->text + r->module.start,
				 r->module.end - r->module.start);
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
		resolve_module(w, q->text + r->module.start,
			       r->module.end - r->module.start, im);
		im->stmt_start = r->stmt.start;
		im->stmt_end = r->stmt.end;
		w->nimp++;
	}
	count_uses(w);
	module_members(w, refs, n);
	xfree(refs);
}
