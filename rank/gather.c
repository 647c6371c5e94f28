/*
 * gather.c: the candidates for a cursor.
 *
 * - Definitions of the buffer itself, from its live spans (the index may
 *   lag the last keystrokes).
 * - Definitions in the index named by identifiers near the cursor (a name
 *   the buffer defines at top level shadows them), by the names the
 *   buffer imports, and the members of the bases of the class around the
 *   cursor. Each kind is one batched lookup per root.
 * - Chunks by BM25 over the code before the cursor (the index's FTS5);
 *   a definition also inherits the score of the chunk it starts in.
 */
#include "rank_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The slot of (from, root, row) in cs's index: the one holding it, or
 * the empty one where it goes. */
static uint32_t *cand_slot(const Cands *cs, Origin from, int root, int64_t row)
{
	uint64_t h = ((uint64_t)row * 0x9E3779B97F4A7C15u) ^
		     ((uint64_t)from << 32) ^ (uint64_t)(uint32_t)root;
	uint32_t mask = cs->nslots - 1, i = (uint32_t)(h ^ h >> 29) & mask;

	for (;; i = (i + 1) & mask) {
		const Cand *c;

		if (!cs->slots[i])
			return &cs->slots[i];
		c = &cs->c[cs->slots[i] - 1];
		if (c->from == from && c->root == root && c->row == row)
			return &cs->slots[i];
	}
}

/* Makes the index hold every candidate, with room for one more at
 * most half full. */
static void cands_index(Cands *cs)
{
	uint32_t want = 128;

	if (cs->nslots && 2 * (cs->n + 1) <= cs->nslots)
		return;
	while (want < 4 * (cs->n + 1))
		want *= 2;
	xfree(cs->slots);
	cs->nslots = want;
	cs->slots = xcalloc(want, sizeof(*cs->slots));
	for (uint32_t i = 0; i < cs->n; i++)
		*cand_slot(cs, cs->c[i].from, cs->c[i].root, cs->c[i].row) =
		    i + 1;
}

void rank__cands_unindex(Cands *cs)
{
	xfree(cs->slots);
	cs->slots = NULL;
	cs->nslots = 0;
}

Cand *rank__cand_new(Cands *cs, Origin from, int root, int64_t row)
{
	uint32_t *slot;

	cands_index(cs);
	slot = cand_slot(cs, from, root, row);
	if (*slot)
		return NULL;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 64;
		cs->c = xrealloc(cs->c, cs->cap * sizeof(*cs->c));
	}
	memset(&cs->c[cs->n], 0, sizeof(cs->c[0]));
	cs->c[cs->n].from = from;
	cs->c[cs->n].root = root;
	cs->c[cs->n].row = row;
	*slot = ++cs->n;
	return &cs->c[cs->n - 1];
}

void rank__cands_free(Cands *cs)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		xfree(cs->c[i].path);
		xfree(cs->c[i].symbol);
		xfree(cs->c[i].text);
		xfree(cs->c[i].raw);
	}
	xfree(cs->c);
	xfree(cs->slots);
	memset(cs, 0, sizeof(*cs));
}

/* A span that holds data (a variable, constant or field), not code. */
static bool is_data(SpanKind k)
{
	return k == SPAN_VARIABLE || k == SPAN_CONSTANT || k == SPAN_FIELD;
}

/* Whether live span up is a base of the class being written (not the
 * class of a method written outside it). */
static bool overridden(const Where *w, const Span *up)
{
	return up && span_kind_is_class(up->kind) &&
	       rank__is_base(w, up->name) &&
	       (w->owner < 0 || strcmp(w->bases[w->owner], up->name) != 0);
}

static void set_mention(Cand *c, const char *name, double m)
{
	c->mention = m;
	if (m > 0 && strlen(name) < sizeof(c->defined))
		memcpy(c->defined, name, strlen(name) + 1);
}

/* Whether a span of kind and header declares a function it does not
 * define (C's prototype): its header is all of it. */
static bool declares_only(SpanKind kind, const char *header)
{
	size_t n = strlen(header);

	return kind == SPAN_FUNCTION && n && header[n - 1] == ';';
}

/* Whether live span sp is the prototype of a function the buffer
 * defines (C's forward declaration of a static function): the body is
 * the candidate, and it stands for its prototype. A name the buffer
 * holds once has no body there: a header of a thousand prototypes is not
 * searched a thousand times. */
static bool defined_below(const Where *w, const Span *sp)
{
	const Chunking *lc = &w->live;

	if (!declares_only(sp->kind, sp->header) ||
	    rank__words_get(&w->words, sp->name, strlen(sp->name)) < 2)
		return false;
	for (uint32_t i = 0; i < lc->nspans; i++)
		if (lc->spans[i].kind == SPAN_FUNCTION &&
		    !declares_only(lc->spans[i].kind, lc->spans[i].header) &&
		    strcmp(lc->spans[i].name, sp->name) == 0)
			return true;
	return false;
}

/* Uses of a definition's name besides the definition itself. */
static uint32_t uses_besides_one(const Where *w, const char *s)
{
	uint32_t n = rank__words_get(&w->words, s, strlen(s));

	return n ? n - 1 : 0;
}

/* Whether s is an identifier, nothing more. */
static bool plain_name(const char *s)
{
	if (!rank__ident_start((unsigned char)*s))
		return false;
	while (*++s)
		if (!rank__ident_char((unsigned char)*s))
			return false;
	return true;
}

/* Whether the buffer is a module, as its language tells one from a
 * script (lang_module_words). */
static bool is_module(const Where *w)
{
	const char *p = lang_module_words(w->q->lang);

	if (!*p)
		return true;
	while (*p) {
		const char *e = strchr(p, ' ');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		if (rank__words_get(&w->words, p, n) > 0)
			return true;
		p += n + (e != NULL);
	}
	return false;
}

/* Whether live span sp is kept to the buffer's file (see
 * lang_is_private). */
static bool private_def(const Where *w, const Span *sp)
{
	const Chunking *lc = &w->live;
	uint32_t lo = rank__line_start(w->q->text, sp->bytes.start);
	bool namespaced = sp->parent >= 0;

	/* A module or namespace is no name code calls: `mod tests` is
	 * used by no code; nor is `~T` or `operator=`. */
	if (sp->kind == SPAN_NAMESPACE || sp->kind == SPAN_IMPL ||
	    !plain_name(sp->name))
		return false;
	for (int32_t p = sp->parent; p >= 0; p = lc->spans[p].parent)
		namespaced &= lc->spans[p].kind == SPAN_NAMESPACE;
	return lang_is_private(w->q->lang, sp->name, w->q->text + lo,
			       sp->bytes.start - lo, sp->header, sp->parent < 0,
			       namespaced);
}

/* A candidate of the buffer itself. */
static Cand *live_cand(Where *w, int64_t row, ChunkKind kind, ByteRange bytes,
		       LineRange lines)
{
	const RankCursor *q = w->q;
	Cand *c = rank__cand_new(&w->cs, FROM_LIVE, q->root, row);

	if (!c)
		return NULL;
	c->path = xstrdup(q->rel ? q->rel : "");
	c->lang = q->lang;
	c->kind = kind;
	c->bytes = bytes;
	c->lines = lines;
	c->same_file = true;
	c->near = rank__lines_between(lines.start, w->cursor_line);
	return c;
}

/* Whether name is called near the cursor: `name(`, `new name (`. */
static bool called_near(const Where *w, const char *name)
{
	const char *t = w->q->text;
	uint32_t lo = w->q_lo, hi = w->q->cursor;
	size_t n = strlen(name);

	for (uint32_t i = lo, a; rank__next_word(t, lo, hi, &i, &a);)
		if (i - a == n && memcmp(t + a, name, n) == 0 &&
		    rank__called_at(t, hi, i))
			return true;
	return false;
}

/* Whether sp (under up) is a constructor of the class being written,
 * named as the class, not called near the cursor: there the class's
 * name is a type (a parameter's, the result's). Such a constructor
 * took 124 of the Java set's top-five places and was gold in 7. */
static bool ctor_of_own(const Where *w, const Span *sp, const Span *up)
{
	return up && sp->parent == w->cls && strcmp(sp->name, up->name) == 0 &&
	       !called_near(w, sp->name);
}

/* The definitions of the buffer, from its live spans. */
static void gather_live(Where *w)
{
	const Chunking *lc = &w->live;
	/* Whether a definition may be private and unused: uses are not
	 * counted in a buffer too big to, and a script keeps nothing. */
	bool keeps = w->words.n > 0 && is_module(w);

	for (uint32_t i = 0; i < lc->nspans; i++) {
		const Span *sp = &lc->spans[i];
		const Span *up =
		    sp->parent >= 0 ? &lc->spans[sp->parent] : NULL;
		Cand *c;

		if (sp->kind == SPAN_SECTION || rank__around(w, sp) ||
		    defined_below(w, sp))
			continue;
		c = live_cand(w, (int64_t)i, CHUNK_DEFINITION, sp->bytes,
			      sp->lines);
		c->symbol = xstrdup(sp->qualname);
		c->live_parent = sp->parent;
		c->is_class = span_kind_is_class(sp->kind);
		c->data = is_data(sp->kind);
		c->adds_to = sp->kind == SPAN_IMPL;
		/* The name of the definition being written, in its header,
		 * is no use of the buffer's namesakes: other classes'
		 * versions of the same method filled the top. A base's
		 * version is the one it overrides (`super().__init__`); the
		 * owner's is its own declaration. */
		if (!c->adds_to && !ctor_of_own(w, sp, up) &&
		    (!w->own || strcmp(sp->name, w->own) != 0 ||
		     overridden(w, up)))
			set_mention(c, sp->name,
				    rank__mention(w->ids, w->nids, sp->name));
		c->uses = uses_besides_one(w, sp->name);
		if (sp->parent < 0 &&
		    (sp->kind == SPAN_FUNCTION || c->is_class))
			c->callers = rank__words_callers(&w->words, sp->name,
							 strlen(sp->name));
		c->unused_private = c->uses == 0 && keeps && private_def(w, sp);
		c->sibling = rank__mention(w->sids, w->nsids, sp->name);
		c->similar = rank__mention(w->simids, w->nsimids, sp->name);
		if (up && span_kind_is_class(up->kind)) {
			c->member =
			    sp->parent == w->cls || rank__is_base(w, up->name);
			c->other_class = !c->member;
			c->overrides = w->own && overridden(w, up) &&
				       strcmp(sp->name, w->own) == 0;
		}
	}
}

/* Whether name qualifies a name near the cursor (`Other::size_type`,
 * `Other.x`). */
static bool qualifies_near(const Where *w, const char *name)
{
	const char *t = w->q->text, *sep = w->mr.sep;
	uint32_t lo = w->q_lo, hi = w->q->cursor;
	size_t n = strlen(name), sl = strlen(sep);

	for (uint32_t i = lo, a; sl && rank__next_word(t, lo, hi, &i, &a);)
		if (i - a == n && memcmp(t + a, name, n) == 0 && hi - i >= sl &&
		    memcmp(t + i, sep, sl) == 0)
			return true;
	return false;
}

/* A member of another class of the buffer named as one of the class
 * being written (or its bases) is not what that name near the cursor
 * means, unless that class qualifies a name there: inside a class, a
 * name is its own member first. */
static void shadow_other_members(Where *w)
{
	const Chunking *lc = &w->live;
	Cands *cs = &w->cs;

	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];
		const char *name;

		if (c->from != FROM_LIVE || !c->other_class ||
		    c->mention <= 0 || c->live_parent < 0 ||
		    qualifies_near(w, lc->spans[c->live_parent].name))
			continue;
		name = lc->spans[c->row].name;
		for (uint32_t k = 0; k < cs->n; k++) {
			const Cand *d = &cs->c[k];

			if (d->from == FROM_LIVE && d->member &&
			    strcmp(lc->spans[d->row].name, name) == 0) {
				c->mention = 0;
				c->defined[0] = '\0';
				break;
			}
		}
	}
}

/* What a language keeps to a directory (Go's unexported names, kept to
 * the package) may be used by the directory's other files: a definition
 * the buffer does not use stays unused only if none of them does either,
 * which the index answers. Past DIR_PRIVATE_LOOKUPS of them, or without
 * the buffer's root, the rest are taken for used. */
#define DIR_PRIVATE_LOOKUPS 16

static void unused_in_dir(Where *w)
{
	const RankCursor *q = w->q;
	Index *ix = rank__root_path(w) ? q->roots[q->root].ix : NULL;
	uint32_t looked = 0;

	if (!lang_private_dir(q->lang))
		return;
	for (uint32_t i = 0; i < w->cs.n; i++) {
		Cand *c = &w->cs.c[i];
		const char *name;
		bool found = true;

		if (c->from != FROM_LIVE || !c->unused_private)
			continue;
		name = w->live.spans[c->row].name;
		if (ix && q->rel && looked++ < DIR_PRIVATE_LOOKUPS &&
		    index_word_beside(ix, name, q->rel, &found) != 0)
			found = true;
		c->unused_private = !found;
	}
}

/* Whether path of root r is the buffer's own file. */
static bool in_buffer(const Where *w, int r, const char *path)
{
	return r == w->q->root && w->q->rel && strcmp(path, w->q->rel) == 0;
}

/* Adds index span sp as a definition candidate, unless it is in the
 * current buffer (gather_live has those) or already there. */
static Cand *add_span(Where *w, int root, const IndexSpan *sp)
{
	const RankCursor *q = w->q;
	Cand *c;

	if (in_buffer(w, root, sp->path) || !lang_can_use(q->lang, sp->lang))
		return NULL;
	c = rank__cand_new(&w->cs, FROM_SPAN, root, sp->id);
	if (!c)
		return NULL;
	c->path = xstrdup(sp->path);
	c->symbol = xstrdup(sp->qualname);
	c->lang = sp->lang;
	c->kind = CHUNK_DEFINITION;
	c->is_class = span_kind_is_class(sp->kind);
	c->data = is_data(sp->kind);
	c->method = sp->kind == SPAN_METHOD;
	c->file_id = sp->file_id;
	c->parent = sp->parent_id;
	c->bytes = sp->bytes;
	c->lines = sp->lines;
	return c;
}

static Cand *find_span(Cands *cs, int root, int64_t id)
{
	uint32_t k;

	cands_index(cs);
	k = *cand_slot(cs, FROM_SPAN, root, id);
	return k ? &cs->c[k - 1] : NULL;
}

/* A name the current file defines at its top level: it shadows the
 * definitions of other files. */
static bool defined_here(const Cands *cs, const char *name)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->c[i].from == FROM_LIVE && cs->c[i].live_parent < 0 &&
		    !cs->c[i].adds_to && strcmp(cs->c[i].symbol, name) == 0)
			return true;
	return false;
}

/* The run of spans named name in sp[0, n) (sorted by name): its first
 * index in *at; returns its length. */
static uint32_t named(const IndexSpan *sp, uint32_t n, const char *name,
		      uint32_t *at)
{
	uint32_t i = 0, k = 0;

	while (i < n && strcmp(sp[i].name, name) != 0)
		i++;
	while (i + k < n && strcmp(sp[i + k].name, name) == 0)
		k++;
	*at = i;
	return k;
}

/* Whether sp[j] is a constructor of a class of the run sp[at, j) that
 * passes ok: the class stands for it (its outline shows it), and the
 * name's weight is not split between them. */
static bool in_named_class(const Where *w, const IndexSpan *sp, uint32_t at,
			   uint32_t j,
			   bool (*ok)(const Where *, const IndexSpan *))
{
	for (uint32_t i = at; i < j; i++)
		if (sp[i].id == sp[j].parent_id && ok(w, &sp[i]))
			return true;
	return false;
}

/* In the run sp[at, at + k) of one name, the function that a
 * declaration in a file the buffer imports is defined by, in another
 * file (a header's prototype and its source's body), when it is the
 * run's only function with a body; else -1. The body is what the writer
 * reads, and the prototype shows little more than its header: the name's
 * weight goes to the body, and the prototype keeps a share of it
 * (share_of). */
static int64_t declared_def(const Where *w, const IndexSpan *sp, uint32_t at,
			    uint32_t k)
{
	int64_t def = -1;
	bool declared = false;

	for (uint32_t j = at; j < at + k; j++)
		if (declares_only(sp[j].kind, sp[j].header))
			declared |= rank__path_imported(w, sp[j].path);
		else if (sp[j].kind == SPAN_FUNCTION) {
			if (def >= 0)
				return -1;
			def = j;
		}
	if (!declared || def < 0)
		return -1;
	for (uint32_t j = at; j < at + k; j++)
		if (declares_only(sp[j].kind, sp[j].header) &&
		    strcmp(sp[j].path, sp[def].path) == 0)
			return -1;
	return def;
}

/* named, and in *kept how many of the run pass ok, constructors of a
 * class of the run aside, and declarations aside when the run's
 * declared_def (in *def) defines them. */
static uint32_t named_ok(const Where *w, const IndexSpan *sp, uint32_t n,
			 const char *name,
			 bool (*ok)(const Where *, const IndexSpan *),
			 uint32_t *at, uint32_t *kept, int64_t *def)
{
	uint32_t k = named(sp, n, name, at);

	*def = declared_def(w, sp, *at, k);
	if (*def >= 0 && !ok(w, &sp[*def]))
		*def = -1;
	*kept = 0;
	for (uint32_t j = *at; j < *at + k; j++)
		*kept +=
		    ok(w, &sp[j]) && !in_named_class(w, sp, *at, j, ok) &&
		    !(*def >= 0 && declares_only(sp[j].kind, sp[j].header));
	return k;
}

/* The share of its name's weight that sp[j] of a run in root r takes,
 * def being the run's declared_def: none for the prototype of a function
 * the buffer defines (most often the one being written, whose header is
 * at the cursor). */
static double share_of(const Where *w, int r, const IndexSpan *sp, uint32_t j,
		       int64_t def)
{
	if (def < 0 || !declares_only(sp[j].kind, sp[j].header))
		return 1.0;
	return in_buffer(w, r, sp[def].path) ? 0 : DECL_SHARE;
}

/* ---------------------------------------------------------------------- *
 * From the index of one root
 * ---------------------------------------------------------------------- */

/* Finds where the text of an index hit of the current file is in the
 * buffer: the rows may be older than the last keystrokes, so the text
 * can have moved, or be gone (then false). Moves h to the buffer's
 * coordinates. */
static bool relocate(const Where *w, IndexHit *h)
{
	const char *t = w->q->text, *p = NULL;
	size_t n = strlen(h->text);
	uint32_t len = w->q->len;

	if (n == 0 || n > len)
		return false;
	if (h->bytes.start + n <= len &&
	    memcmp(t + h->bytes.start, h->text, n) == 0)
		return true;
	for (const char *c = t;
	     (c = memchr(c, h->text[0], len - n + 1 - (size_t)(c - t))); c++)
		if (memcmp(c, h->text, n) == 0) {
			p = c;
			break;
		}
	if (!p)
		return false;
	h->bytes.start = (uint32_t)(p - t);
	h->bytes.end = h->bytes.start + (uint32_t)n;
	h->lines.start = castls_count_newlines(t, h->bytes.start);
	h->lines.end =
	    h->lines.start + castls_count_newlines(h->text, (uint32_t)n - 1);
	return true;
}

static void gather_lexical(Where *w, int r, Index *ix)
{
	const RankCursor *q = w->q;
	IndexHit *h;
	uint32_t n;

	if (index_search_within(ix, w->query.data ? w->query.data : "",
				w->query.len, BM25_HITS, BM25_POSTINGS, &h,
				&n) != 0)
		return;
	for (uint32_t i = 0; i < n; i++) {
		bool same = in_buffer(w, r, h[i].path);
		Cand *c;

		/* The rows of the buffer's own file may be older than its
		 * text: find where the chunk is now, if anywhere. */
		if ((same && !relocate(w, &h[i])) ||
		    !lang_can_use(q->lang, h[i].lang))
			continue;
		if (!(c = rank__cand_new(&w->cs, FROM_CHUNK, r, h[i].id)))
			continue;
		c->path = h[i].path;
		c->text = h[i].text;
		h[i].path = h[i].text = NULL;
		c->lang = h[i].lang;
		c->kind = h[i].kind;
		c->file_id = h[i].file_id;
		c->parent = h[i].span_id;
		c->bytes = h[i].bytes;
		c->lines = h[i].lines;
		c->bm25 = h[i].score;
		c->same_file = same;
		c->symbol = xstrdup("");
	}
	index_hits_free(h, n);
}

/* Whether index span sp is what a bare name near the cursor may mean.
 * An impl block is named by its type but does not define it. Data needs
 * more than its name: code names its own locals `model` and `config` as
 * scripts name their globals, and a class's fields are reached through
 * an object (receivers, bases, `Cls.x`). A variable or constant counts
 * in a file this one imports (at its top level or in a namespace), a
 * field never. */
static bool named_here(const Where *w, const IndexSpan *sp)
{
	if (sp->kind == SPAN_IMPL)
		return false;
	if (!is_data(sp->kind))
		return true;
	return sp->kind != SPAN_FIELD && rank__path_imported(w, sp->path);
}

/* Whether a definition in path is in a file the buffer imports (an
 * IndexKeepFn): of a name near the cursor defined in many places (C++'s
 * `get`, `vertices`), the overloads in the headers the file includes
 * come after the first DEFS_PER_IDENT of all. Only where an import
 * brings in every name of a file (MODULES_INCLUDES): elsewhere a name
 * comes in by itself, and gather_imported looks for it, or through its
 * module (`m.name`), and the scan cost a fifth of a Python request. */
static bool imported_keeps(void *ctx, const char *name, const char *path)
{
	(void)name;
	return rank__path_imported(ctx, path);
}

/* Definitions of the identifiers near the cursor. */
static void gather_named(Where *w, int r, Index *ix)
{
	const char *names[MAX_IDENTS];
	uint32_t nn = 0, n, at, k;
	IndexSpan *sp;

	for (int i = 0; i < w->nids && i < MAX_IDENTS; i++)
		if (!defined_here(&w->cs, w->ids[i].name))
			names[nn++] = w->ids[i].name;
	if (index_spans_named_where(ix, names, nn, DEFS_PER_IDENT, NAMED_SCAN,
				    w->mr.style == MODULES_INCLUDES && w->nmods
					? imported_keeps
					: NULL,
				    w, &sp, &n))
		return;
	for (int i = 0; i < w->nids && i < MAX_IDENTS; i++) {
		uint32_t kept;
		int64_t def;

		k = named_ok(w, sp, n, w->ids[i].name, named_here, &at, &kept,
			     &def);
		for (uint32_t j = at; j < at + k; j++) {
			double share = share_of(w, r, sp, j, def);
			Cand *c;

			if (!named_here(w, &sp[j]) || share <= 0 ||
			    in_named_class(w, sp, at, j, named_here))
				continue;
			c = add_span(w, r, &sp[j]);
			/* A name defined in several places says less about
			 * each. */
			if (c) {
				set_mention(c, w->ids[i].name,
					    w->ids[i].weight / kept * share);
				c->declared |= j == def;
			}
		}
	}
	index_spans_free(sp, n);
}

/* Whether path is beyond the reach of the buffer's names: where they
 * reach only the file's package and the packages it imports (Go), once
 * the module's manifest says where those are (without one, a GOPATH
 * tree's imports may not resolve), a file of neither. The names used
 * near the cursor keep a small share there (score.c's mention_share:
 * a method of a type the code gets without naming it); the rest of the
 * file's names, and those of its like definitions, none (on the Go
 * set's check half x-tools/16 rose, no task fell). */
static bool beyond_reach(const Where *w, const char *path)
{
	return w->mr.style == MODULES_PACKAGES && w->manifest > 0 &&
	       !rank__path_imported(w, path);
}

/* Whether index span sp is what a name the buffer uses may mean: a
 * definition at the top level of its file or of its namespaces (nearly
 * all of a C++ library is in one; at the top level only, C++ Recall@5
 * was 0.287 / 0.288 against 0.304 / 0.333, tuning / check half), and no
 * method (Go's are). A member is reached through an object, and its name
 * is shared by the overrides of every class (receivers and bases find
 * the right one). */
static bool file_named(const Where *w, const IndexSpan *sp)
{
	return sp->top && sp->kind != SPAN_METHOD && named_here(w, sp);
}

/* What a name looked up by take_file_named weighs for. */
typedef enum {
	FOR_FILE_USE, /* the rest of the buffer uses it */
	FOR_SIBLING,  /* the namesakes of the definition being written do */
	FOR_SIMILAR,  /* the definitions like it do */
	FOR_NAMESAKE, /* other files' definitions of its name do */
} LookedFor;

/* Takes the definitions in sp[0, n) of names[0, nn) that file_named
 * takes, each with its name's weight shared among the name's meanings,
 * as the signal of its candidate that as[i] names (added, or found
 * already: the greater weight stays). */
static void take_file_named(Where *w, int r, const IndexSpan *sp, uint32_t n,
			    const char *const *names, const double *weight,
			    const LookedFor *as, uint32_t nn)
{
	for (uint32_t i = 0; i < nn; i++) {
		uint32_t at, kept;
		int64_t def;
		uint32_t k =
		    named_ok(w, sp, n, names[i], file_named, &at, &kept, &def);

		for (uint32_t j = at; j < at + k; j++) {
			double share = share_of(w, r, sp, j, def), *to;
			Cand *c;

			if (!file_named(w, &sp[j]) || share <= 0 ||
			    beyond_reach(w, sp[j].path))
				continue;
			if (!(c = add_span(w, r, &sp[j])) &&
			    !(c = find_span(&w->cs, r, sp[j].id)))
				continue;
			c->declared |= j == def;
			to = as[i] == FOR_SIBLING    ? &c->sibling
			     : as[i] == FOR_SIMILAR  ? &c->similar
			     : as[i] == FOR_NAMESAKE ? &c->namesakes
						     : &c->file_use;
			*to = fmax(*to, weight[i] / kept * share);
		}
	}
}

/* Definitions of the names the rest of the buffer uses most, near the
 * cursor first: the code being written tends to use what its neighbours
 * do. The names near the cursor that gather_named looks up are its. */
static void gather_file_named(Where *w, int r, Index *ix)
{
	const char *names[FILE_LOOKUPS] = {0};
	double weight[FILE_LOOKUPS];
	LookedFor as[FILE_LOOKUPS] = {FOR_FILE_USE};
	int looked_up = w->nids < MAX_IDENTS ? w->nids : MAX_IDENTS;
	uint32_t nn = 0, n;
	IndexSpan *sp;

	for (int i = 0; i < w->nfids && nn < FILE_LOOKUPS; i++)
		if (!rank__mention(w->ids, looked_up, w->fids[i].name) &&
		    !defined_here(&w->cs, w->fids[i].name)) {
			weight[nn] = w->fids[i].weight;
			names[nn++] = w->fids[i].name;
		}
	if (index_spans_named_many(ix, names, nn, DEFS_PER_IDENT, &sp, &n))
		return;
	take_file_named(w, r, sp, n, names, weight, as, nn);
	index_spans_free(sp, n);
}

/* Definitions of the names the buffer's other definitions of the name
 * being written use, and of those the bodies of its definitions like it
 * use, heaviest first, as gather_file_named takes them. Only in other
 * files: the buffer's own are gather_live's, and weigh less (score.c's
 * similar_prior); at full weight they crowded out the names a TypeScript
 * file imports for the code being written. */
static void gather_sibling_named(Where *w, int r, Index *ix)
{
	const char *names[SIBLING_LOOKUPS];
	double weight[SIBLING_LOOKUPS];
	LookedFor as[SIBLING_LOOKUPS];
	uint32_t nn = 0, n;
	int a = 0, b = 0;
	IndexSpan *sp;

	while (nn < SIBLING_LOOKUPS && (a < w->nsids || b < w->nsimids)) {
		bool sib =
		    b == w->nsimids ||
		    (a < w->nsids && w->sids[a].weight >= w->simids[b].weight);
		const Ident *id = sib ? &w->sids[a++] : &w->simids[b++];
		uint32_t k = 0;

		while (k < nn && strcmp(names[k], id->name) != 0)
			k++;
		if (k < nn || defined_here(&w->cs, id->name))
			continue;
		weight[nn] = id->weight;
		as[nn] = sib ? FOR_SIBLING : FOR_SIMILAR;
		names[nn++] = id->name;
	}
	if (!nn ||
	    index_spans_named_many(ix, names, nn, DEFS_PER_IDENT, &sp, &n))
		return;
	take_file_named(w, r, sp, n, names, weight, as, nn);
	index_spans_free(sp, n);
}

/* The texts of other files' definitions of the name being written, the
 * first NAMESAKES_READ of them with a body, into texts (the caller's to
 * free, NULL where unread); returns how many, their language in *lang. */
static uint32_t read_namesakes(Where *w, int r, Index *ix,
			       char *texts[NAMESAKES_READ], Lang *lang)
{
	IndexTextRange ranges[NAMESAKES_READ];
	uint32_t n, nr = 0;
	IndexSpan *sp;

	if (index_spans_named_many(ix, &w->own, 1, NAMESAKES_READ + 4, &sp, &n))
		return 0;
	for (uint32_t j = 0; j < n && nr < NAMESAKES_READ; j++) {
		uint32_t a = sp[j].bytes.start, z = sp[j].bytes.end;

		if ((sp[j].kind != SPAN_FUNCTION &&
		     sp[j].kind != SPAN_METHOD) ||
		    declares_only(sp[j].kind, sp[j].header) ||
		    in_buffer(w, r, sp[j].path) ||
		    !lang_can_use(w->q->lang, sp[j].lang))
			continue;
		*lang = sp[j].lang;
		ranges[nr++] = (IndexTextRange){
		    sp[j].file_id, a,
		    z - a > NAMESAKE_BYTES ? a + NAMESAKE_BYTES : z};
	}
	index_spans_free(sp, n);
	if (nr < 2 || index_file_texts(ix, ranges, nr, texts) != 0)
		return 0;
	return nr;
}

/* Definitions of the names other files' definitions of the name being
 * written use: every operation's `do_complete`, every visitor's
 * `visit_str`, does much what the one being written is about to. A
 * name weighs the share of those read that use it (at least
 * NAMESAKE_SHARE); the heaviest are looked up as gather_file_named
 * looks up its own. */
static void gather_namesakes(Where *w, int r, Index *ix)
{
	char *texts[NAMESAKES_READ] = {0};
	const char *names[NAMESAKE_LOOKUPS];
	double weight[NAMESAKE_LOOKUPS];
	LookedFor as[NAMESAKE_LOOKUPS];
	Lang lang = w->q->lang;
	uint32_t nt = w->own ? read_namesakes(w, r, ix, texts, &lang) : 0;
	uint32_t nn = 0, nread = 0, n;
	Ident *got, *all;
	Buf b = {0};
	int nall;
	IndexSpan *sp;

	if (!nt)
		return;
	got = xmalloc(2 * FILE_IDENTS_CAP * sizeof(*got));
	all = got + FILE_IDENTS_CAP;
	/* Each text's names once, on one line: counted together, a name
	 * weighs the number of texts that use it. */
	for (uint32_t t = 0; t < nt; t++) {
		int m = texts[t]
			    ? rank__file_idents(lang, texts[t], 0,
						(uint32_t)strlen(texts[t]),
						(ByteRange){0, 0}, 0, 0, NULL,
						0, got, FILE_IDENTS_CAP)
			    : 0;

		for (int i = 0; i < m; i++)
			if (strcmp(got[i].name, w->own) != 0)
				buf_printf(&b, "%s ", got[i].name);
		nread += texts[t] != NULL;
		xfree(texts[t]);
	}
	nall = b.len ? rank__file_idents(lang, b.data, 0, (uint32_t)b.len,
					 (ByteRange){0, 0}, 0, 0, NULL, 0, all,
					 FILE_IDENTS_CAP)
		     : 0;
	for (int i = 0; i < nall && nn < NAMESAKE_LOOKUPS; i++) {
		double share = all[i].weight / nread;

		if (share < NAMESAKE_SHARE)
			break;
		if (defined_here(&w->cs, all[i].name))
			continue;
		weight[nn] = share;
		as[nn] = FOR_NAMESAKE;
		names[nn++] = all[i].name;
	}
	if (nn &&
	    !index_spans_named_many(ix, names, nn, DEFS_PER_IDENT, &sp, &n)) {
		take_file_named(w, r, sp, n, names, weight, as, nn);
		index_spans_free(sp, n);
	}
	buf_free(&b);
	xfree(got);
}

/* Whether a definition of name in path is in the module of an import of
 * that name (an IndexKeepFn). */
static bool import_keeps(void *ctx, const char *name, const char *path)
{
	const Where *w = ctx;

	for (int i = 0; i < w->nimp; i++)
		if (strcmp(w->imp[i].name, name) == 0 &&
		    rank__import_resolves_to(w, &w->imp[i], path))
			return true;
	return false;
}

/* Definitions of the names the buffer imports: the module's own when the
 * import resolves to one, any of the same name when it does not (a
 * package, a re-export). */
static void gather_imported(Where *w, int r, Index *ix)
{
	const char *names[IMPORTS_MAX];
	uint32_t nn = 0, n, at, k;
	IndexSpan *sp;

	for (int i = 0; i < w->nimp; i++)
		if (!defined_here(&w->cs, w->imp[i].name))
			names[nn++] = w->imp[i].name;
	if (index_spans_named_where(ix, names, nn, IMPORT_DEFS, IMPORT_SCAN,
				    import_keeps, w, &sp, &n))
		return;
	for (int i = 0; i < w->nimp; i++) {
		const Import *im = &w->imp[i];
		uint32_t resolved = 0, top = 0, share;

		k = named(sp, n, im->name, &at);
		/* What a module exports is at its top level; a member of
		 * the same name (a class's `toJSON` beside the module's) is
		 * the import's only where nothing at the top level is
		 * (Java's `import static a.C.m`). */
		for (uint32_t j = at; j < at + k; j++)
			if (sp[j].kind != SPAN_IMPL &&
			    rank__import_resolves_to(w, im, sp[j].path))
				resolved++, top += sp[j].parent_id == 0;
		if (im->member && !resolved)
			continue; /* not a module's member after all */
		if (top)
			resolved = top;
		share = resolved	     ? resolved
			: k < DEFS_PER_IDENT ? k
					     : DEFS_PER_IDENT;
		for (uint32_t j = at; j < at + k; j++) {
			bool mine =
			    rank__import_resolves_to(w, im, sp[j].path) &&
			    (!top || sp[j].parent_id == 0);
			double m;
			Cand *c;

			if (sp[j].kind == SPAN_IMPL ||
			    (resolved ? !mine : j - at >= DEFS_PER_IDENT))
				continue;
			m = rank__mention(w->ids, w->nids, im->name) / share;
			/* Found by its name already, it may have had a share
			 * of the name among other files' definitions: the
			 * import says it is the one. */
			if ((c = add_span(w, r, &sp[j])) ||
			    ((c = find_span(&w->cs, r, sp[j].id)) &&
			     m > c->mention))
				set_mention(c, im->name, m);
			if (c) {
				c->import_name = true;
				c->import_unused |= !im->member && !im->uses;
				c->import_member |= im->member;
				c->imported |= resolved > 0;
			}
		}
	}
	index_spans_free(sp, n);
}

/* Whether a language the cursor's code can use writes members outside
 * their types: only then are they looked for by qualified name, which
 * costs hundreds of row reads a receiver in a large index. */
static bool members_apart(Lang user)
{
	for (int l = 0; l < LANG_COUNT; l++)
		if (lang_can_use(user, (Lang)l) && lang_members_apart((Lang)l))
			return true;
	return false;
}

/* The methods called on receivers of a known type: `x.delete()` for x a
 * Collector is Collector.delete, whatever else defines a delete. */
static void gather_receivers(Where *w, int r, Index *ix)
{
	const char *cls[RECEIVERS_MAX], *names[RECEIVERS_MAX];
	uint32_t n;
	IndexSpan *sp;

	for (int i = 0; i < w->nrecv; i++) {
		cls[i] = w->recv[i].cls;
		names[i] = w->recv[i].name;
	}
	if (index_members_named_many(ix, cls, names, (uint32_t)w->nrecv,
				     members_apart(w->q->lang), RECEIVER_DEFS,
				     &sp, &n))
		return;
	for (uint32_t j = 0; j < n; j++) {
		double m = rank__mention(w->ids, w->nids, sp[j].name), s = 0;
		bool near = false;
		Cand *c;

		/* A stopword near the cursor has no weight as a bare name
		 * (Rust's `new`), but called on a type it names one method. */
		for (int i = 0; i < w->nrecv; i++) {
			const Receiver *rv = &w->recv[i];

			if (strcmp(rv->name, sp[j].name) != 0)
				continue;
			if (!rv->similar)
				m = fmax(m, rv->weight), near = true;
			else if (strstr(sp[j].qualname, rv->cls))
				s = fmax(s, rv->weight);
		}
		if (!near && m <= 0 && s <= 0)
			continue;
		/* A receiver's type is within the names' reach too. */
		if (beyond_reach(w, sp[j].path))
			continue;
		c = add_span(w, r, &sp[j]);
		if (!c && !(c = find_span(&w->cs, r, sp[j].id)))
			continue;
		if (near || m > 0) {
			if (m > c->mention)
				set_mention(c, sp[j].name, m);
			c->receiver = true;
		}
		c->similar = fmax(c->similar, s);
	}
	index_spans_free(sp, n);
}

/* The members of the bases of the class being written, when the index
 * knows them: `self.x` may be defined there. */
static void gather_bases(Where *w, int r, Index *ix)
{
	const char *names[MAX_BASES];
	int64_t ids[MAX_BASES * 2];
	uint32_t n, nk, nids = 0;
	IndexSpan *cls, *kids;

	for (int b = 0; b < w->nbases; b++)
		names[b] = w->bases[b];
	if (index_spans_named_many(ix, names, (uint32_t)w->nbases, 2, &cls, &n))
		return;
	for (uint32_t i = 0; i < n && nids < MAX_BASES * 2; i++)
		if (span_kind_is_class(cls[i].kind))
			ids[nids++] = cls[i].id;
	if (index_span_children_many(ix, ids, nids, MEMBERS_MAX, &kids, &nk)) {
		index_spans_free(cls, n);
		return;
	}
	/* In the order of the bases, then of their classes. */
	for (int b = 0; b < w->nbases; b++) {
		uint32_t at, k = named(cls, n, w->bases[b], &at);

		for (uint32_t i = at; i < at + k; i++) {
			if (!span_kind_is_class(cls[i].kind))
				continue;
			for (uint32_t j = 0; j < nk; j++) {
				const IndexSpan *kid = &kids[j];
				double m;
				Cand *c;

				/* The owner's methods are declared there
				 * and defined out of it, where the names
				 * near the cursor find them: its data and
				 * types are what it adds. */
				if (kid->parent_id != cls[i].id ||
				    (is_data(kid->kind) &&
				     rank__in_class(w, kid->name,
						    strlen(kid->name))) ||
				    (b == w->owner && !is_data(kid->kind) &&
				     !span_kind_is_class(kid->kind)))
					continue;
				/* Found by its name already, it is no less a
				 * member. */
				m = rank__mention(w->ids, w->nids, kid->name);
				if ((c = add_span(w, r, kid)))
					set_mention(c, kid->name, m);
				else
					c = find_span(&w->cs, r, kid->id);
				if (!c)
					continue;
				c->member = true;
				c->overrides = b != w->owner && w->own &&
					       strcmp(kid->name, w->own) == 0;
			}
		}
	}
	index_spans_free(kids, nk);
	index_spans_free(cls, n);
}

/* A definition inherits the lexical score of the chunk it starts in. */
static void inherit_bm25(Where *w)
{
	Cands *cs = &w->cs;

	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];

		c->imported = !c->same_file &&
			      (c->imported || rank__path_imported(w, c->path));
		if (c->from == FROM_CHUNK && !rank__excluded(w, c))
			w->best_bm25 = fmax(w->best_bm25, c->bm25);
	}
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];

		if (c->from != FROM_CHUNK)
			continue;
		for (uint32_t k = 0; k < cs->n; k++) {
			Cand *d = &cs->c[k];

			if (rank__is_def(d) && d->root == c->root &&
			    d->bytes.start >= c->bytes.start &&
			    d->bytes.start < c->bytes.end &&
			    strcmp(d->path, c->path) == 0)
				d->bm25 = fmax(d->bm25, c->bm25);
		}
	}
}

void rank__gather(Where *w)
{
	const RankCursor *q = w->q;

	rank__imports(w);
	rank__near_words(w);
	rank__file_words(w);
	rank__sibling_words(w);
	rank__similar_words(w);
	rank__receivers(w);
	gather_live(w);
	shadow_other_members(w);
	unused_in_dir(w);
	for (uint32_t r = 0; r < q->nroots; r++) {
		Index *ix = q->roots[r].ix;
		uint64_t before;

		if (!ix)
			continue;
		before = index_statements(ix);
		gather_lexical(w, (int)r, ix);
		gather_named(w, (int)r, ix);
		gather_file_named(w, (int)r, ix);
		gather_sibling_named(w, (int)r, ix);
		gather_namesakes(w, (int)r, ix);
		gather_imported(w, (int)r, ix);
		gather_bases(w, (int)r, ix);
		gather_receivers(w, (int)r, ix);
		w->statements += index_statements(ix) - before;
	}
	inherit_bm25(w);
}
