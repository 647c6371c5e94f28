/*
 * chunker.c: cAST, split-then-merge chunking over a syntax tree.
 *
 * 1. Atomize. Walk the tree from the root. A node whose size fits in
 *    max_size is an atom; a larger node is replaced by its children; a
 *    larger node without children (a giant string or comment) is cut at
 *    line ends, and a line still too large at UTF-8 character boundaries.
 *    Nothing is ever dropped.
 * 2. Choose cut candidates between neighbouring atoms. The text between
 *    two atoms (whitespace) is split after its first line break: the rest
 *    of the previous atom's line stays with it, blank lines go with the
 *    next atom. With no line break in between, the cut is at the start of
 *    the next atom. So chunks start at line starts wherever syntax allows.
 * 3. Pack greedily: atoms join the current chunk while it stays within
 *    max_size. Two rules refine the greedy cut. A chunk always starts at an
 *    oversized definition that had to be split (its header begins its
 *    first part, as in the cAST paper; other oversized nodes such as a
 *    class body do not force a cut, or a header would be cut off its
 *    body); the pieces after it merge with whatever follows, at every
 *    level. And comments stick to their code: a comment
 *    alone on the lines right above an atom, or trailing on the line of
 *    the atom before it, is not separated from it unless that atom and its
 *    comments cannot share a chunk.
 *
 * Sizes are non-whitespace characters, read in O(1) from a prefix table.
 */
#include "chunker_int.h"
#include "spans_int.h"

#include <string.h>

#define CHECKPOINT 64 /* bytes between prefix-count checkpoints */

enum {
	ATOM_COMMENT = ROLE_COMMENT,
	ATOM_IMPORT = ROLE_IMPORT,
	ATOM_DEF = ROLE_DEF, /* only while walking: never stored on atoms */
	ATOM_BREAK = 8,	     /* a chunk must start here */
};

typedef struct {
	uint32_t start, end;
	uint8_t flags;
} Atom;

struct Chunker {
	uint32_t max_size;
	TSParser *parsers[LANG_COUNT];
	SpanRules rules[LANG_COUNT];
	bool rules_ready[LANG_COUNT];
	Scratch *scratch; /* the heap of trees parsed to walk once */
	TSParser *once;	  /* the parser of the tree in scratch, if any */
};

/* Per-run state. */
typedef struct {
	const Chunker *ch;
	const char *text;
	uint32_t len;
	uint32_t *prefix;      /* non-space count before each checkpoint */
	uint32_t *line_starts; /* byte offset of each line */
	uint32_t nlines;
	Atom *atoms;
	uint32_t natoms, acap;
	uint32_t *cuts;	  /* cuts[k]: where atom k's chunk may start */
	uint8_t pending;  /* flags for the next atom */
	uint32_t covered; /* end of the last atom */
} Run;

/* ---------------------------------------------------------------------- *
 * Sizes and lines
 * ---------------------------------------------------------------------- */

static void build_tables(Run *r)
{
	uint32_t i, nck = r->len / CHECKPOINT + 1, count = 0, lcap = 64;
	const char *t = r->text, *end = r->text + r->len, *nl;

	/* prefix[i]: the count before byte i * CHECKPOINT, the last one
	 * (at or past the end) included. */
	r->prefix = xmalloc(nck * sizeof(*r->prefix));
	for (i = 0; i < nck; i++) {
		uint32_t at = i * CHECKPOINT;

		r->prefix[i] = count;
		count += (uint32_t)castls_count_nonspace(
		    t + at,
		    r->len - at < CHECKPOINT ? r->len - at : CHECKPOINT);
	}
	/* A line starts after each '\n' but a final one. */
	r->line_starts = xmalloc(lcap * sizeof(*r->line_starts));
	r->line_starts[0] = 0;
	r->nlines = 1;
	for (; (nl = memchr(t, '\n', (size_t)(end - t))) && nl + 1 < end;
	     t = nl + 1) {
		if (r->nlines == lcap) {
			lcap *= 2;
			r->line_starts = xrealloc(
			    r->line_starts, lcap * sizeof(*r->line_starts));
		}
		r->line_starts[r->nlines++] = (uint32_t)(nl + 1 - r->text);
	}
}

/* Non-space characters in [0, off). */
static uint32_t upto(const Run *r, uint32_t off)
{
	uint32_t ck = off / CHECKPOINT, base = ck * CHECKPOINT;

	return r->prefix[ck] +
	       (uint32_t)castls_count_nonspace(r->text + base, off - base);
}

static uint32_t size_of(const Run *r, uint32_t a, uint32_t b)
{
	return upto(r, b) - upto(r, a);
}

/* ---------------------------------------------------------------------- *
 * Atoms
 * ---------------------------------------------------------------------- */

static void push_atom(Run *r, uint32_t start, uint32_t end, uint8_t flags)
{
	if (start >= end)
		return; /* missing nodes inserted by error recovery */
	if (r->natoms == r->acap) {
		r->acap = r->acap ? r->acap * 2 : 256;
		r->atoms = xrealloc(r->atoms, r->acap * sizeof(*r->atoms));
	}
	flags &= (uint8_t)~ATOM_DEF;
	r->atoms[r->natoms++] = (Atom){start, end, flags | r->pending};
	r->pending = 0;
	r->covered = end;
}

/* One atom per line of [start, end), and lines over the limit in pieces of
 * max_size characters, each cut before a UTF-8 lead byte. */
static void push_lines(Run *r, uint32_t start, uint32_t end, uint8_t flags)
{
	const char *t = r->text;
	uint32_t max = r->ch->max_size;

	while (start < end) {
		const char *nl = memchr(t + start, '\n', end - start);
		uint32_t eol = nl ? (uint32_t)(nl - t) + 1 : end;

		while (size_of(r, start, eol) > max) {
			uint32_t p = start, n = 0;

			while (p < eol && (n < max || !utf8_is_lead(t[p]))) {
				n += utf8_is_lead(t[p]) &&
				     !is_space_byte((unsigned char)t[p]);
				p++;
			}
			push_atom(r, start, p, flags);
			start = p;
		}
		push_atom(r, start, eol, flags);
		start = eol;
	}
}

/* Text that no child node covers (a string's content between its escape
 * sequences, say) still needs atoms, or chunks would grow past the limit
 * with it: non-whitespace before `upto` becomes line atoms. */
static void fill_to(Run *r, uint32_t upto)
{
	if (upto > r->covered && size_of(r, r->covered, upto) > 0)
		push_lines(r, r->covered, upto, 0);
}

static void add_atom(Run *r, uint32_t start, uint32_t end, uint8_t flags)
{
	fill_to(r, start);
	push_atom(r, start, end, flags);
}

/* An indivisible range over the limit is cut at line ends. */
static void split_leaf(Run *r, uint32_t start, uint32_t end, uint8_t flags)
{
	fill_to(r, start);
	push_lines(r, start, end, flags);
}

/*
 * A cursor over either a tree-sitter tree or a SynTree, so one atomizer
 * serves both. Only the few moves the atomizer needs.
 */
typedef struct {
	TSTreeCursor ts;
	const SpanRules *rules;
	const SynTree *syn;
	int32_t *path; /* SynTree: node indices from the root */
	uint32_t depth, cap;
} Walk;

static int32_t syn_at(const Walk *w) { return w->path[w->depth]; }

static bool walk_down(Walk *w)
{
	int32_t c;

	if (!w->syn)
		return ts_tree_cursor_goto_first_child(&w->ts);
	if ((c = w->syn->nodes[syn_at(w)].first_child) < 0)
		return false;
	if (++w->depth == w->cap) {
		w->cap *= 2;
		w->path = xrealloc(w->path, w->cap * sizeof(*w->path));
	}
	w->path[w->depth] = c;
	return true;
}

static bool walk_next(Walk *w)
{
	int32_t s;

	if (!w->syn)
		return ts_tree_cursor_goto_next_sibling(&w->ts);
	if ((s = w->syn->nodes[syn_at(w)].next_sibling) < 0)
		return false;
	w->path[w->depth] = s;
	return true;
}

static void walk_up(Walk *w)
{
	if (!w->syn)
		ts_tree_cursor_goto_parent(&w->ts);
	else
		w->depth--;
}

static ByteRange walk_range(const Walk *w, uint8_t *flags)
{
	TSNode n;
	TSSymbol sym;

	if (w->syn) {
		const SynNode *sn = &w->syn->nodes[syn_at(w)];

		/* Markdown: a node with children is a section. */
		*flags = sn->first_child >= 0 ? ATOM_DEF : 0;
		return sn->bytes;
	}
	n = ts_tree_cursor_current_node(&w->ts);
	sym = ts_node_symbol(n); /* ERROR nodes are 65535, past the table */
	*flags =
	    sym < w->rules->nsymbols
		? w->rules->role[sym] & (ROLE_COMMENT | ROLE_IMPORT | ROLE_DEF)
		: 0;
	/* An attribute sticks to the definition below it as a comment
	 * does. */
	if (sym < w->rules->nsymbols && (w->rules->role[sym] & ROLE_ATTR))
		*flags |= ATOM_COMMENT;
	return (ByteRange){ts_node_start_byte(n), ts_node_end_byte(n)};
}

/* A file that fits is one chunk all the same: the packer never cuts below
 * the limit and no node is oversized, so no chunk break is forced. The
 * walk still runs so the chunk's atoms carry their roles and it can be
 * classified (a file that is one definition is a definition chunk). */
static void atomize(Run *r, Walk *w)
{
	uint32_t depth = 0;
	/* Depth of the last split definition that forced a chunk start: a
	 * definition split right inside it (a class under its decorators)
	 * does not start another, or the decorators would stand alone. */
	int64_t broke_at = -1;

	if (!walk_down(w)) {
		split_leaf(r, 0, r->len, 0);
		return;
	}
	depth = 1;
	for (;;) {
		uint8_t flags;
		ByteRange b = walk_range(w, &flags);

		if (b.end > r->len)
			b.end = r->len;
		if (b.start >= b.end) {
			/* zero width: nothing to place */
		} else if (size_of(r, b.start, b.end) <= r->ch->max_size) {
			add_atom(r, b.start, b.end, flags);
		} else if (walk_down(w)) {
			if (flags & ATOM_DEF) {
				if (broke_at != (int64_t)depth - 1)
					r->pending |= ATOM_BREAK;
				broke_at = depth;
			}
			depth++;
			continue;
		} else {
			split_leaf(r, b.start, b.end, flags);
		}
		while (!walk_next(w)) {
			if (--depth == 0) {
				fill_to(r, r->len);
				return;
			}
			walk_up(w);
		}
	}
}

/* ---------------------------------------------------------------------- *
 * Cuts and packing
 * ---------------------------------------------------------------------- */

static bool has_newline(const char *p, uint32_t a, uint32_t b)
{
	return a < b && memchr(p + a, '\n', b - a) != NULL;
}

/* Fills cuts[0..natoms]; returns a bitmap-free answer through glued[]:
 * glued[k] is true when a cut before atom k would separate a comment from
 * the code it belongs to. */
static void place_cuts(Run *r, bool *glued)
{
	const char *t = r->text;
	uint32_t k;

	r->cuts = xmalloc((r->natoms + 1) * sizeof(*r->cuts));
	r->cuts[0] = 0;
	r->cuts[r->natoms] = r->len;
	glued[0] = false;
	for (k = 1; k < r->natoms; k++) {
		const Atom *a = &r->atoms[k - 1], *b = &r->atoms[k];
		const char *nl = memchr(t + a->end, '\n', b->start - a->end);
		bool alone, blank;

		r->cuts[k] = nl ? (uint32_t)(nl - t) + 1 : b->start;
		/* A trailing comment on the previous atom's line. */
		glued[k] = (b->flags & ATOM_COMMENT) && !nl;
		/* A comment alone on its line(s), right above atom b. */
		alone = k < 2 || has_newline(t, r->atoms[k - 2].end, a->start);
		blank = nl && memchr(nl + 1, '\n', b->start - r->cuts[k]);
		if ((a->flags & ATOM_COMMENT) && !(b->flags & ATOM_COMMENT) &&
		    alone && nl && !blank)
			glued[k] = true;
		if ((a->flags & ATOM_COMMENT) && (b->flags & ATOM_COMMENT) &&
		    nl && !blank)
			glued[k] = true; /* one comment block */
	}
}

static void emit_chunk(Run *r, Chunking *out, uint32_t *cap, uint32_t first,
		       uint32_t last)
{
	Chunk *c;
	uint32_t a = r->cuts[first], b = r->cuts[last + 1];

	if (out->nchunks == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		out->chunks =
		    xrealloc(out->chunks, *cap * sizeof(*out->chunks));
	}
	c = &out->chunks[out->nchunks++];
	memset(c, 0, sizeof(*c));
	c->bytes = (ByteRange){a, b};
	c->size = size_of(r, a, b);
	c->lines.start = line_of(r->line_starts, r->nlines, a);
	c->lines.end = line_of(r->line_starts, r->nlines, b > a ? b - 1 : a);
	if (c->size > r->ch->max_size)
		out->oversized++;
	/* Stash the atom range for classify(); overwritten there. */
	c->span = (int32_t)first;
	c->kind = (ChunkKind)last;
}

static void pack(Run *r, Chunking *out)
{
	uint32_t k, start = 0, cap = 0, max = r->ch->max_size;
	bool *glued = xmalloc(r->natoms + 1);

	place_cuts(r, glued);
	for (k = 1; k < r->natoms; k++) {
		uint32_t j = k;

		if (!(r->atoms[k].flags & ATOM_BREAK) &&
		    size_of(r, r->cuts[start], r->cuts[k + 1]) <= max)
			continue;
		/* Step back over glued cuts while what moves still fits. */
		while (j > start + 1 && glued[j] &&
		       size_of(r, r->cuts[j - 1], r->cuts[k + 1]) <= max)
			j--;
		if (glued[j])
			j = k;
		emit_chunk(r, out, &cap, start, j - 1);
		start = j;
	}
	if (r->natoms)
		emit_chunk(r, out, &cap, start, r->natoms - 1);
	xfree(glued);
}

/* ---------------------------------------------------------------------- *
 * Classifying chunks against the spans
 * ---------------------------------------------------------------------- */

/* The deepest span containing [a, b), or -1. */
static int32_t innermost(const Chunking *c, uint32_t a, uint32_t b)
{
	uint32_t lo = 0, hi = c->nspans;
	int32_t s;

	while (lo < hi) { /* first span starting after a */
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->spans[mid].bytes.start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	s = (int32_t)lo - 1;
	while (s >= 0 &&
	       !(c->spans[s].bytes.start <= a && b <= c->spans[s].bytes.end))
		s = c->spans[s].parent;
	return s;
}

/* The child of span `parent` (or top-level span) that contains atom a
 * and lies inside [lo, hi); -1 if none. */
static int32_t whole_child(const Chunking *c, int32_t parent, const Atom *a,
			   uint32_t lo, uint32_t hi)
{
	int32_t s = innermost(c, a->start, a->end);

	while (s >= 0 && c->spans[s].parent != parent)
		s = c->spans[s].parent;
	if (s < 0 || c->spans[s].bytes.start < lo || c->spans[s].bytes.end > hi)
		return -1;
	return s;
}

/*
 * A chunk that is exactly one definition (with its comments) is a
 * definition chunk and points at that span; whole sibling definitions
 * make a definitions chunk; otherwise it is a part of its innermost span,
 * or, at top level, imports or statements.
 */
static void classify(const Run *r, Chunking *out, Chunk *c)
{
	uint32_t first = (uint32_t)c->span, last = (uint32_t)c->kind, k;
	uint32_t lo = r->atoms[first].start, hi = r->atoms[last].end;
	int32_t s = innermost(out, lo, hi), only = -1;
	bool imports = true, defs = true;
	int ndefs = 0;

	c->span = s;
	if (out->lang == LANG_MARKDOWN) {
		c->kind = CHUNK_SECTION;
		return;
	}
	if (s >= 0 && out->spans[s].bytes.start >= lo &&
	    out->spans[s].bytes.end <= hi) {
		c->kind = CHUNK_DEFINITION;
		return;
	}
	for (k = first; k <= last; k++) {
		const Atom *a = &r->atoms[k];
		int32_t d;

		if (a->flags & ATOM_COMMENT)
			continue;
		imports &= (a->flags & ATOM_IMPORT) != 0;
		d = whole_child(out, s, a, lo, hi);
		defs &= d >= 0;
		if (d >= 0 && d != only)
			ndefs++, only = d;
	}
	if (ndefs == 1 && defs) {
		c->kind = CHUNK_DEFINITION;
		c->span = only;
	} else if (ndefs > 1 && defs) {
		c->kind = CHUNK_DEFINITIONS;
	} else if (s >= 0) {
		SpanKind sk = out->spans[s].kind;

		c->kind = sk == SPAN_FUNCTION || sk == SPAN_METHOD
			      ? CHUNK_FUNCTION_PART
			      : CHUNK_CLASS_PART;
	} else {
		c->kind = imports ? CHUNK_IMPORTS : CHUNK_STATEMENTS;
	}
}

/* ---------------------------------------------------------------------- *
 * The public interface
 * ---------------------------------------------------------------------- */

Chunker *chunker_new(uint32_t max_size)
{
	Chunker *ch = xcalloc(1, sizeof(*ch));

	ch->max_size = max_size ? max_size : CHUNKER_DEFAULT_MAX_SIZE;
	return ch;
}

void chunker_delete(Chunker *ch)
{
	int i;

	if (!ch)
		return;
	for (i = 0; i < LANG_COUNT; i++) {
		if (ch->parsers[i])
			ts_parser_delete(ch->parsers[i]);
		if (ch->rules_ready[i])
			span_rules_free(&ch->rules[i]);
	}
	scratch_delete(ch->scratch);
	xfree(ch);
}

uint32_t chunker_max_size(const Chunker *ch) { return ch->max_size; }

void chunker_set_max_size(Chunker *ch, uint32_t max_size)
{
	ch->max_size = max_size ? max_size : CHUNKER_DEFAULT_MAX_SIZE;
}

size_t chunker_scratch_peak(const Chunker *ch)
{
	return ch->scratch ? scratch_peak(ch->scratch) : 0;
}

void chunker_trim(Chunker *ch) { scratch_trim(ch->scratch); }

TSTree *chunker_parse(Chunker *ch, Lang lang, const char *text, uint32_t len,
		      const TSTree *old)
{
	const TSLanguage *tl = chunker_language(lang);

	if (!tl)
		return NULL;
	if (!ch->parsers[lang]) {
		ch->parsers[lang] = ts_parser_new();
		ts_parser_set_language(ch->parsers[lang], tl);
	}
	return ts_parser_parse_string(ch->parsers[lang], old, text, len);
}

typedef struct {
	const char *text;
	uint32_t len;
	bool (*stop)(void *ctx);
	void *ctx;
} StringInput;

static const char *read_string(void *payload, uint32_t at, TSPoint pt,
			       uint32_t *n)
{
	StringInput *in = payload;

	(void)pt;
	*n = at < in->len ? in->len - at : 0;
	return at < in->len ? in->text + at : "";
}

static bool should_stop(TSParseState *state)
{
	StringInput *in = state->payload;

	return in->stop(in->ctx);
}

TSTree *chunker_parse_unless(Chunker *ch, Lang lang, const char *text,
			     uint32_t len, const TSTree *old,
			     bool (*stop)(void *ctx), void *ctx)
{
	StringInput in = {text, len, stop, ctx};
	TSInput input = {&in, read_string, TSInputEncodingUTF8, NULL};
	TSParseOptions opt = {&in, should_stop};
	TSTree *t;

	if (!chunker_language(lang))
		return NULL;
	if (!ch->parsers[lang]) {
		ch->parsers[lang] = ts_parser_new();
		ts_parser_set_language(ch->parsers[lang],
				       chunker_language(lang));
	}
	t = ts_parser_parse_with_options(ch->parsers[lang], old, input, opt);
	/* A stopped parse would otherwise resume on the next call, whatever
	 * text that one brings. */
	if (!t)
		ts_parser_reset(ch->parsers[lang]);
	return t;
}

/*
 * A tree to walk once, then drop with drop_once: parsed in ch's scratch
 * heap by a parser made there too, as a parser kept across scopes would
 * keep arrays that leaving drops. Before castls_init_allocators there is
 * no scratch heap, and this is an ordinary parse.
 */
static TSTree *parse_once(Chunker *ch, Lang lang, const char *text,
			  uint32_t len)
{
	const TSLanguage *tl = chunker_language(lang);
	TSTree *t;

	if (!tl || !scratch_ready())
		return chunker_parse(ch, lang, text, len, NULL);
	if (!ch->scratch)
		ch->scratch = scratch_new();
	scratch_enter(ch->scratch);
	ch->once = ts_parser_new();
	ts_parser_set_language(ch->once, tl);
	t = ts_parser_parse_string(ch->once, NULL, text, len);
	if (!t) {
		ts_parser_delete(ch->once);
		ch->once = NULL;
		scratch_leave(ch->scratch);
	}
	return t;
}

/* Drops tree t from parse_once, without visiting its nodes when it lies
 * in the scratch heap. */
static void drop_once(Chunker *ch, TSTree *t)
{
	if (!ch->once) {
		ts_tree_delete(t);
		return;
	}
	ts_parser_delete(ch->once); /* its external scanner's heap memory */
	ch->once = NULL;
	scratch_leave(ch->scratch);
}

static const SpanRules *rules_for(Chunker *ch, Lang lang)
{
	if (!ch->rules_ready[lang]) {
		span_rules_init(&ch->rules[lang], lang);
		ch->rules_ready[lang] = true;
	}
	return &ch->rules[lang];
}

/* Spans and atoms from the syntax tree (or the Markdown section tree);
 * the spans are a copy of spans_from's instead when it is given. */
static void collect(Chunker *ch, Run *r, const TSTree *tree,
		    const Chunking *spans_from, Chunking *out)
{
	uint32_t span_cap = 0;
	SynTree syn = {0};
	Walk w = {0};

	if (out->lang == LANG_MARKDOWN) {
		markdown_build(r->text, r->len, &syn, out, &span_cap);
		w.syn = &syn;
		w.cap = 16;
		w.path = xmalloc(w.cap * sizeof(*w.path));
		w.path[0] = 0;
		atomize(r, &w);
		xfree(w.path);
		syntree_free(&syn);
		return;
	}
	w.rules = rules_for(ch, out->lang);
	if (spans_from)
		spans_copy(spans_from, out);
	else
		spans_collect(w.rules, ts_tree_root_node(tree), r->text,
			      UINT32_MAX, out, &span_cap);
	out->had_errors = ts_node_has_error(ts_tree_root_node(tree));
	w.ts = ts_tree_cursor_new(ts_tree_root_node(tree));
	atomize(r, &w);
	ts_tree_cursor_delete(&w.ts);
}

static int run(Chunker *ch, Lang lang, const char *text, uint32_t len,
	       const TSTree *tree, const Chunking *spans_from, Chunking *out)
{
	Run r = {.ch = ch, .text = text, .len = len};
	TSTree *own = NULL;
	uint32_t i;

	memset(out, 0, sizeof(*out));
	out->lang = lang;
	if (lang == LANG_NONE || lang >= LANG_COUNT)
		return CASTLS_ENOLANG;
	if (len > CHUNKER_MAX_INPUT)
		return CASTLS_ELIMIT;
	if (castls_is_binary(text, len))
		return CASTLS_EBINARY;
	if (len == 0)
		return 0;
	if (lang != LANG_MARKDOWN && !tree && len <= CHUNKER_PARSE_MAX) {
		own = parse_once(ch, lang, text, len);
		if (!own)
			return CASTLS_EPARSE;
		tree = own;
	}
	build_tables(&r);
	if (lang == LANG_MARKDOWN || tree)
		collect(ch, &r, tree, spans_from, out);
	else /* too long to parse (CHUNKER_PARSE_MAX): lines */
		push_lines(&r, 0, len, 0);
	spans_set_lines(out, r.line_starts, r.nlines);
	if (r.natoms) {
		r.cuts = NULL;
		pack(&r, out);
		for (i = 0; i < out->nchunks; i++)
			classify(&r, out, &out->chunks[i]);
	}
	xfree(r.cuts);
	xfree(r.atoms);
	xfree(r.prefix);
	xfree(r.line_starts);
	if (own)
		drop_once(ch, own);
	return 0;
}

int chunker_run(Chunker *ch, Lang lang, const char *text, uint32_t len,
		const TSTree *tree, Chunking *out)
{
	return run(ch, lang, text, len, tree, NULL, out);
}

/* Whether edit e (in the new text's bytes) touches the part of a span of
 * c before its body: the name and header, or a whole binding. */
static bool edits_a_header(const Chunking *c, const TSInputEdit *e)
{
	for (uint32_t i = 0; i < c->nspans; i++) {
		const Span *s = &c->spans[i];

		if (e->start_byte <= s->body_start &&
		    e->new_end_byte >= s->bytes.start)
			return true;
	}
	return false;
}

int chunker_rerun(Chunker *ch, Lang lang, const char *text, uint32_t len,
		  const TSTree *tree, const TSTree *old, const TSInputEdit *e,
		  const Chunking *carried, Chunking *out)
{
	TSRange *changed;
	uint32_t n;

	memset(out, 0, sizeof(*out));
	out->lang = lang;
	if (!chunker_language(lang) || rules_for(ch, lang)->reads_names ||
	    !tree || !old || carried->lang != lang || len > CHUNKER_PARSE_MAX ||
	    ts_node_has_error(ts_tree_root_node(old)) ||
	    ts_node_has_error(ts_tree_root_node(tree)) ||
	    edits_a_header(carried, e))
		return CASTLS_EINVAL;
	changed = ts_tree_get_changed_ranges(old, tree, &n);
	scratch__free(changed); /* tree-sitter's allocator */
	if (n > 0)
		return CASTLS_EINVAL;
	return run(ch, lang, text, len, tree, carried, out);
}

/* Drops the spans that do not contain byte at, renumbering parents (a
 * span that contains it has a parent that does). */
static void keep_spans_at(Chunking *c, uint32_t at)
{
	int32_t *map = xmalloc((c->nspans + 1) * sizeof(*map));
	uint32_t i, n = 0;

	for (i = 0; i < c->nspans; i++) {
		Span *sp = &c->spans[i];

		if (sp->bytes.start > at || sp->bytes.end < at) {
			map[i] = -1;
			xfree(sp->name);
			xfree(sp->qualname);
			xfree(sp->header);
			xfree(sp->doc);
			continue;
		}
		map[i] = (int32_t)n;
		c->spans[n] = *sp;
		c->spans[n].parent = sp->parent >= 0 ? map[sp->parent] : -1;
		n++;
	}
	c->nspans = n;
	xfree(map);
}

/* chunker_spans_at and chunker_spans: at is UINT32_MAX for every span. */
static int spans_only(Chunker *ch, Lang lang, const char *text, uint32_t len,
		      const TSTree *tree, uint32_t at, Chunking *out)
{
	TSTree *own = NULL;
	uint32_t cap = 0, i;

	memset(out, 0, sizeof(*out));
	out->lang = lang;
	if (!chunker_language(lang))
		return lang == LANG_MARKDOWN ? 0 : CASTLS_ENOLANG;
	if (len > CHUNKER_MAX_INPUT)
		return CASTLS_ELIMIT;
	if (!tree && len > CHUNKER_PARSE_MAX)
		return 0; /* not parsed, so no spans */
	if (!tree && !(tree = own = parse_once(ch, lang, text, len)))
		return CASTLS_EPARSE;
	spans_collect(rules_for(ch, lang), ts_tree_root_node(tree), text, at,
		      out, &cap);
	if (at != UINT32_MAX) {
		keep_spans_at(out, at);
		/* Line numbers of the few spans found. */
		for (i = 0; i < out->nspans; i++) {
			Span *sp = &out->spans[i];

			sp->lines.start =
			    castls_count_newlines(text, sp->bytes.start);
			sp->lines.end = castls_count_newlines(
			    text, sp->bytes.end > sp->bytes.start
				      ? sp->bytes.end - 1
				      : sp->bytes.start);
		}
	} else if (out->nspans) {
		uint32_t *starts =
		    xmalloc(((size_t)castls_count_newlines(text, len) + 1) *
			    sizeof(*starts));
		uint32_t n = 1;

		starts[0] = 0;
		for (i = 0; i < len; i++)
			if (text[i] == '\n')
				starts[n++] = i + 1;
		spans_set_lines(out, starts, n);
		xfree(starts);
	}
	if (own)
		drop_once(ch, own);
	return 0;
}

int chunker_spans_at(Chunker *ch, Lang lang, const char *text, uint32_t len,
		     const TSTree *tree, uint32_t at, Chunking *out)
{
	return spans_only(ch, lang, text, len, tree, at, out);
}

int chunker_spans(Chunker *ch, Lang lang, const char *text, uint32_t len,
		  const TSTree *tree, Chunking *out)
{
	return spans_only(ch, lang, text, len, tree, UINT32_MAX, out);
}
