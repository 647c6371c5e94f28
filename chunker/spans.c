/*
 * spans.c: definition spans. Walks a syntax tree once, depth first with an
 * explicit stack (deeply nested input cannot overflow the C stack), and
 * records every node the language table calls a definition.
 */
#include "chunker_int.h"
#include "lang_int.h"
#include "spans_int.h"

#include <ctype.h>
#include <string.h>

/* Headers of definitions without a body (type aliases, signatures) stop
 * after this many bytes, at a line end. */
#define HEADER_MAX 400
/* Binding spans of one file: a generated table of thousands of
 * assignments keeps its first ones only. */
#define BINDINGS_MAX 256
/* Bindings one statement holds (`const a = 1, b = 2`), and holders gone
 * through to reach them. */
#define BINDINGS_HELD_MAX 16
#define HOLDERS_DEPTH_MAX 3

static const char *const span_kinds[SPAN_KIND_COUNT] = {
    "class", "function",  "method",  "interface", "enum",
    "type",  "namespace", "section", "variable",  "constant",
    "field", "macro",	  "impl",
};

static const char *const chunk_kinds[CHUNK_KIND_COUNT] = {
    "definition", "definitions", "function_part", "class_part",
    "statements", "imports",	 "section",
};

const char *span_kind_name(SpanKind k)
{
	return (unsigned)k < SPAN_KIND_COUNT ? span_kinds[k] : "?";
}

const char *chunk_kind_name(ChunkKind k)
{
	return (unsigned)k < CHUNK_KIND_COUNT ? chunk_kinds[k] : "?";
}

/* ---------------------------------------------------------------------- *
 * Shared helpers
 * ---------------------------------------------------------------------- */

uint32_t line_of(const uint32_t *starts, uint32_t n, uint32_t off)
{
	uint32_t lo = 0, hi = n;

	/* The last line whose start is <= off. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (starts[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

int32_t syntree_add(SynTree *t, uint32_t start, uint32_t end)
{
	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->nodes = xrealloc(t->nodes, t->cap * sizeof(*t->nodes));
	}
	t->nodes[t->n] = (SynNode){{start, end}, -1, -1};
	return (int32_t)t->n++;
}

void syntree_free(SynTree *t)
{
	xfree(t->nodes);
	memset(t, 0, sizeof(*t));
}

static char *rtrim_dup(const char *p, size_t n)
{
	while (n && is_space_byte((unsigned char)p[n - 1]))
		n--;
	return xstrndup(p, n);
}

char *spans_header(const char *text, ByteRange bytes, uint32_t body_start)
{
	uint32_t hend = body_start;

	/* Without a body, the header is the definition itself; any header
	 * (a setext paragraph, a wall of decorators) is cut short at a line
	 * end when long. */
	if (hend - bytes.start > HEADER_MAX) {
		hend = bytes.start + HEADER_MAX;
		while (hend > bytes.start && text[hend - 1] != '\n')
			hend--;
		if (hend == bytes.start)
			hend = bytes.start + HEADER_MAX;
	}
	return rtrim_dup(text + bytes.start, hend - bytes.start);
}

int32_t spans_add(Chunking *c, uint32_t *cap, SpanKind kind, int32_t parent,
		  ByteRange bytes, uint32_t body_start, const char *text,
		  const char *name, size_t name_len, const char *qsep,
		  const char *doc, size_t doc_len)
{
	Span *s;
	Buf q = {0};

	if (c->nspans == *cap) {
		*cap = *cap ? *cap * 2 : 32;
		c->spans = xrealloc(c->spans, *cap * sizeof(*c->spans));
	}
	s = &c->spans[c->nspans];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->parent = parent;
	s->bytes = bytes;
	s->body_start = body_start;
	s->name = xstrndup(name, name_len);
	if (parent >= 0) {
		buf_puts(&q, c->spans[parent].qualname);
		buf_puts(&q, qsep);
	}
	buf_append(&q, name, name_len);
	s->qualname = buf_take(&q);
	s->header = spans_header(text, bytes, body_start);
	s->doc = xstrndup(doc ? doc : "", doc ? doc_len : 0);
	return (int32_t)c->nspans++;
}

void chunking_close(Chunking *c)
{
	uint32_t i;

	if (!c)
		return;
	for (i = 0; i < c->nspans; i++) {
		xfree(c->spans[i].name);
		xfree(c->spans[i].qualname);
		xfree(c->spans[i].header);
		xfree(c->spans[i].doc);
	}
	xfree(c->spans);
	xfree(c->chunks);
	memset(c, 0, sizeof(*c));
}

void chunking_span_path(const Chunking *c, int32_t span, const char *sep,
			Buf *b)
{
	int32_t path[64];
	int n = 0;

	while (span >= 0 && n < 64) {
		path[n++] = span;
		span = c->spans[span].parent;
	}
	while (n-- > 0) {
		buf_puts(b, c->spans[path[n]].name);
		if (n)
			buf_puts(b, sep);
	}
}

/* ---------------------------------------------------------------------- *
 * Tree-sitter spans
 * ---------------------------------------------------------------------- */

static bool node_is(TSNode n, const char *list)
{
	return word_in_list(list, ts_node_type(n));
}

/* node_is for the lists SpanRules has as roles, without the strings. */
static bool has_role(const SpanRules *r, TSNode n, uint8_t role)
{
	TSSymbol sym = ts_node_symbol(n);

	return sym < r->nsymbols && (r->role[sym] & role);
}

/* Where a definition's parts are, found by its rule. */
#define SCOPES_MAX 8	  /* qualifiers kept: `a::b::c::f` has three */
#define NAME_DEPTH_MAX 16 /* nodes gone down from a field to a name */

typedef struct {
	TSNode name;  /* null: none */
	TSNode body;  /* null: none */
	TSNode owner; /* the name of the type it belongs to; null: none */
	TSNode scopes[SCOPES_MAX]; /* qualifiers, outermost first */
	uint32_t nscopes;
} Found;

static TSNode field_id(TSNode n, TSFieldId id)
{
	return id ? ts_node_child_by_field_id(n, id) : (TSNode){0};
}

/* Whether the parser inserted one of n's tokens to recover. */
static bool made_up_child(TSNode n)
{
	uint32_t k = ts_node_child_count(n);

	for (uint32_t i = 0; i < k; i++)
		if (ts_node_is_missing(ts_node_child(n, i)))
			return true;
	return false;
}

/* Goes down from n by the row's name path to a node of its name types;
 * null when there is none. With scopes, the qualifiers passed on the way
 * are collected. *above is set to the node above the name. */
static TSNode descend(const DefRule *d, const struct RowIds *ids, TSNode n,
		      Found *scopes, TSNode *above)
{
	TSNode up = {0};

	for (int depth = 0; !ts_node_is_null(n); depth++) {
		TSNode next = {0}, q;

		if (!d->name_types || node_is(n, d->name_types)) {
			if (above)
				*above = up;
			return n;
		}
		if (depth == NAME_DEPTH_MAX)
			break;
		if (scopes && !ts_node_is_null(q = field_id(n, ids->scope))) {
			/* A qualifier the parser joined to the name by a
			 * separator it made up is none, nor is any before
			 * it: they are the end of a return type a macro
			 * pushed out of its place (`INLINE typename
			 * a<T>::type f()`). */
			if (made_up_child(n))
				scopes->nscopes = 0;
			else if (scopes->nscopes < SCOPES_MAX)
				scopes->scopes[scopes->nscopes++] = q;
		}
		for (int i = 0;
		     i < NAME_PATH_MAX && ids->path[i] && ts_node_is_null(next);
		     i++)
			next = ts_node_child_by_field_id(n, ids->path[i]);
		if (ts_node_is_null(next) && ts_node_named_child_count(n))
			next = ts_node_named_child(n, 0);
		up = n;
		n = next;
	}
	return (TSNode){0};
}

/* The first child of n of one of the types. */
static TSNode child_of_type(TSNode n, const char *types)
{
	uint32_t i, k = ts_node_child_count(n);

	for (i = 0; i < k; i++) {
		TSNode c = ts_node_child(n, i);

		if (node_is(c, types))
			return c;
	}
	return (TSNode){0};
}

/* The node of definition n the walk to its name starts from: its name
 * field's, nf, or the one of row d's recovered type the parser left in
 * an ERROR just before it (`void f() NOEXCEPT {`: the name field then
 * holds the macro; `class EXPORT A : public B {`: it holds B). */
static TSNode name_start(const DefRule *d, TSNode nf)
{
	TSNode e, c;

	if (!d->recovered || ts_node_is_null(nf))
		return nf;
	e = ts_node_prev_sibling(nf);
	if (ts_node_is_null(e) || !ts_node_is_error(e))
		return nf;
	c = child_of_type(e, d->recovered);
	return ts_node_is_null(c) ? nf : c;
}

/* Whether definition node n of row i, named name, is an include guard:
 * it has no value, and up, the node right above it (the walk's, not
 * ts_node_parent's search from the root), of one of the row's guard
 * types, names it too. */
static bool is_guard(const SpanRules *r, uint32_t i, TSNode n, TSNode up,
		     TSNode name, const char *text)
{
	const char *types = r->spec->defs[i].guard_types;
	TSNode tested;
	uint32_t a, len;

	if (!types || ts_node_is_null(name) ||
	    !ts_node_is_null(ts_node_child_by_field_id(n, r->value_field)) ||
	    ts_node_is_null(up) || !node_is(up, types))
		return false;
	tested = ts_node_child_by_field_id(up, r->name_field[i]);
	a = ts_node_start_byte(name);
	len = ts_node_end_byte(name) - a;
	return !ts_node_is_null(tested) &&
	       ts_node_end_byte(tested) - ts_node_start_byte(tested) == len &&
	       memcmp(text + ts_node_start_byte(tested), text + a, len) == 0;
}

/* Whether the name node of definition n is followed right away, within
 * n, by the language's qualified-name separator: it is then a
 * qualifier, and the parser has misread the definition (C++'s
 * `DECL_MACRO ns::T f();` read as a field `ns` with a bit width). */
static bool qualifies_next(const SpanRules *r, TSNode n, TSNode name,
			   const char *text)
{
	const char *sep = r->spec->qsep;
	size_t len = sep ? strlen(sep) : 0;
	uint32_t i = ts_node_end_byte(name), end = ts_node_end_byte(n);

	return len && i <= end && end - i >= len &&
	       memcmp(text + i, sep, len) == 0;
}

/* Whether row i holds for definition node n, whose parent is up; fills
 * f if so. */
static bool rule_holds(const SpanRules *r, uint32_t i, TSNode n, TSNode up,
		       const char *text, Found *f)
{
	const DefRule *d = &r->spec->defs[i];
	const struct RowIds *ids = &r->ids[i];
	TSNode holder = n, above = {0};

	memset(f, 0, sizeof(*f));
	if (d->value_types) {
		holder = ts_node_child_by_field_id(
		    n, d->value_field ? ids->value : r->value_field);
		if (ts_node_is_null(holder) || !node_is(holder, d->value_types))
			return false;
		/* own_body: the value names a type without defining it
		 * (`class EXPORT`); the body is the definition's. */
		if (d->own_body) {
			if (!ts_node_is_null(ts_node_child_by_field_id(
				holder, r->body_field[i])))
				return false;
			holder = n;
		}
	}
	if (r->name_field[i])
		f->name = descend(d, ids,
				  name_start(d, ts_node_child_by_field_id(
						    n, r->name_field[i])),
				  f, &above);
	if (ts_node_is_null(f->name) ? d->named
				     : qualifies_next(r, n, f->name, text))
		return false;
	if (!ts_node_is_null(f->name) && ts_node_is_null(above))
		above = n; /* the field holds the name itself */
	if (d->name_in &&
	    (ts_node_is_null(above) || !node_is(above, d->name_in)))
		return false;
	if (is_guard(r, i, n, up, f->name, text))
		return false;
	if (r->body_field[i])
		f->body = ts_node_child_by_field_id(holder, r->body_field[i]);
	else if (d->body_types)
		f->body = child_of_type(holder, d->body_types);
	if (ts_node_is_null(f->body) && d->needs_body)
		return false;
	if (ids->owner)
		f->owner =
		    descend(d, ids, ts_node_child_by_field_id(n, ids->owner),
			    NULL, NULL);
	return true;
}

/* The rule matching node n (whose parent is up), or NULL: the first of
 * the rows for its type that holds. */
static const DefRule *match_rule(const SpanRules *r, TSNode n, TSNode up,
				 const char *text, Found *f)
{
	TSSymbol sym = ts_node_symbol(n);
	const DefRule *defs = r->spec->defs;
	int16_t i;

	if (sym >= r->nsymbols || (i = r->rule_of[sym]) < 0)
		return NULL;
	for (uint32_t k = (uint32_t)i; defs[k].type; k++) {
		if (k > (uint32_t)i && strcmp(defs[k].type, defs[i].type) != 0)
			break;
		if (rule_holds(r, k, n, up, text, f))
			return &defs[k];
	}
	return NULL;
}

static TSFieldId field_named(const TSLanguage *tl, const char *name, size_t n)
{
	return name && n ? ts_language_field_id_for_name(tl, name, (uint32_t)n)
			 : 0;
}

/* The ids of row d's fields beyond its name and body. */
static void row_ids(const TSLanguage *tl, const DefRule *d, struct RowIds *ids)
{
	const char *p = d->name_path;
	int k = 0;

	ids->value = field_named(tl, d->value_field,
				 d->value_field ? strlen(d->value_field) : 0);
	ids->scope = field_named(tl, d->scope_field,
				 d->scope_field ? strlen(d->scope_field) : 0);
	ids->owner = field_named(tl, d->owner_field,
				 d->owner_field ? strlen(d->owner_field) : 0);
	while (p && *p && k < NAME_PATH_MAX) {
		size_t n = strcspn(p, " ");

		ids->path[k] = field_named(tl, p, n);
		k += ids->path[k] != 0;
		p += n;
		while (*p == ' ')
			p++;
	}
}

void span_rules_init(SpanRules *r, Lang lang)
{
	const TSLanguage *tl = chunker_language(lang);
	const BindingRule *b = &lang_spec(lang)->bindings;
	uint32_t s, i;

	r->spec = lang_spec(lang);
	r->nsymbols = tl ? ts_language_symbol_count(tl) : 0;
	for (i = 0; r->spec->defs[i].type; i++)
		;
	r->name_field = xcalloc(i + 1, sizeof(*r->name_field));
	r->body_field = xcalloc(i + 1, sizeof(*r->body_field));
	r->ids = xcalloc(i + 1, sizeof(*r->ids));
	r->reads_names = false;
	for (i = 0; tl && r->spec->defs[i].type; i++) {
		const DefRule *d = &r->spec->defs[i];

		row_ids(tl, d, &r->ids[i]);
		r->reads_names = r->reads_names || d->guard_types;

		r->name_field[i] = ts_language_field_id_for_name(
		    tl, d->name_field, (uint32_t)strlen(d->name_field));
		if (d->body_field)
			r->body_field[i] = ts_language_field_id_for_name(
			    tl, d->body_field, (uint32_t)strlen(d->body_field));
	}
	r->value_field = tl ? ts_language_field_id_for_name(tl, "value", 5) : 0;
	r->bind_name = tl && b->types ? field_named(tl, b->name_field,
						    strlen(b->name_field))
				      : 0;
	r->bind_value = tl && b->types ? field_named(tl, b->value_field,
						     strlen(b->value_field))
				       : 0;
	r->rule_of = xmalloc((r->nsymbols + 1) * sizeof(*r->rule_of));
	r->role = xcalloc(r->nsymbols + 1, 1);
	for (s = 0; s < r->nsymbols; s++) {
		const char *name = ts_language_symbol_name(tl, (TSSymbol)s);

		r->rule_of[s] = -1;
		if (name && word_in_list(r->spec->comments, name))
			r->role[s] |= ROLE_COMMENT;
		if (name && word_in_list(r->spec->imports, name))
			r->role[s] |= ROLE_IMPORT;
		if (name && word_in_list(r->spec->wrappers, name))
			r->role[s] |= ROLE_DEF;
		if (name && word_in_list(r->spec->opaque, name))
			r->role[s] |= ROLE_OPAQUE;
		if (name && r->spec->attributes &&
		    word_in_list(r->spec->attributes, name))
			r->role[s] |= ROLE_ATTR;
		if (name && b->types && word_in_list(b->types, name))
			r->role[s] |= ROLE_BIND;
		if (name && b->holders && word_in_list(b->holders, name))
			r->role[s] |= ROLE_BIND_HOLDER;
		if (!name || ts_language_symbol_type(tl, (TSSymbol)s) !=
				 TSSymbolTypeRegular)
			continue;
		/* The first of the rows for this type. */
		for (i = 0; r->spec->defs[i].type; i++)
			if (strcmp(r->spec->defs[i].type, name) == 0) {
				if (r->rule_of[s] < 0)
					r->rule_of[s] = (int16_t)i;
				r->role[s] |= ROLE_DEF;
			}
	}
}

void span_rules_free(SpanRules *r)
{
	xfree(r->rule_of);
	xfree(r->role);
	xfree(r->name_field);
	xfree(r->body_field);
	xfree(r->ids);
	memset(r, 0, sizeof(*r));
}

/* Python docstring: the first statement of the body is a lone string. */
static void body_docstring(TSNode body, const char *text, const char **doc,
			   size_t *len)
{
	TSNode first, str;
	uint32_t a, b;

	if (ts_node_is_null(body) || ts_node_named_child_count(body) == 0)
		return;
	first = ts_node_named_child(body, 0);
	if (strcmp(ts_node_type(first), "expression_statement") != 0 ||
	    ts_node_named_child_count(first) != 1)
		return;
	str = ts_node_named_child(first, 0);
	if (strcmp(ts_node_type(str), "string") != 0)
		return;
	a = ts_node_start_byte(str);
	b = ts_node_end_byte(str);
	/* Strip the prefix letters and the quotes, whichever kind. */
	while (a < b && strchr("rRbBuUfF", text[a]))
		a++;
	while (a < b && (text[a] == '"' || text[a] == '\''))
		a++;
	while (b > a && (text[b - 1] == '"' || text[b - 1] == '\''))
		b--;
	*doc = text + a;
	*len = b - a;
}

/* Comments on the lines right above node n (no blank line between);
 * prev is n's previous sibling, which the walk knows (asking tree-sitter
 * costs a search among the parent's children). */
static void leading_comment(TSNode n, TSNode prev, const SpanRules *r,
			    const char *text, const char **doc, size_t *len)
{
	TSNode first = n, last = prev;
	uint32_t row = ts_node_start_point(n).row;

	while (!ts_node_is_null(prev) && has_role(r, prev, ROLE_COMMENT) &&
	       ts_node_end_point(prev).row + 1 >= row) {
		first = prev;
		row = ts_node_start_point(prev).row;
		prev = ts_node_prev_sibling(prev);
	}
	if (ts_node_eq(first, n))
		return;
	*doc = text + ts_node_start_byte(first);
	*len = ts_node_end_byte(last) - ts_node_start_byte(first);
}

/* True when wrapper w holds one thing besides decorators and comments,
 * so its extent is that one definition's. */
static bool wraps_one(TSNode w, const SpanRules *r)
{
	TSTreeCursor cur = ts_tree_cursor_new(w);
	uint32_t held = 0;
	bool more = ts_tree_cursor_goto_first_child(&cur);

	/* By cursor, and done at the second: a wrapper may hold thousands
	 * (Go's `const (...)`), and this runs for each of them. */
	for (; more && held < 2;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode c = ts_tree_cursor_current_node(&cur);

		held += ts_node_is_named(c) && !node_is(c, r->spec->comments) &&
			strcmp(ts_node_type(c), "decorator") != 0 &&
			!(r->spec->wrapper_parts &&
			  node_is(c, r->spec->wrapper_parts));
	}
	ts_tree_cursor_delete(&cur);
	return held == 1;
}

/* One entry of the explicit DFS stack. */
typedef struct {
	TSNode node;
	TSNode prev;  /* node's previous sibling; null for a first child */
	int32_t span; /* span opened at this node, or -1 */
	TSNode body;  /* that span's body; null: none */
	bool flat;    /* that span does not name what it holds */
	bool binds;   /* a holder of bindings that are definitions */
} Frame;

/* Appends the text of n to b, or, when n has a name of its own to go
 * down to (`A<T>` in `A<T>::f`), that name's. */
static void put_name(Buf *b, const DefRule *d, const struct RowIds *ids,
		     TSNode n, const char *text)
{
	TSNode name = descend(d, ids, n, NULL, NULL);

	if (ts_node_is_null(name))
		name = n;
	buf_append(b, text + ts_node_start_byte(name),
		   ts_node_end_byte(name) - ts_node_start_byte(name));
}

/* Qualifies span s by its scopes and owner, after the name of the span
 * that names it (parent, or -1): "ns::A::B::f" for `A::B::f` in `ns`. */
static void qualify(Chunking *out, int32_t s, int32_t namer, const SpanRules *r,
		    const DefRule *rule, const Found *f, const char *text)
{
	const struct RowIds *ids = &r->ids[rule - r->spec->defs];
	const char *sep = r->spec->qsep;
	Buf q = {0};

	if (namer >= 0) {
		buf_puts(&q, out->spans[namer].qualname);
		buf_puts(&q, sep);
	}
	for (uint32_t i = 0; i < f->nscopes; i++) {
		put_name(&q, rule, ids, f->scopes[i], text);
		buf_puts(&q, sep);
	}
	if (!ts_node_is_null(f->owner)) {
		put_name(&q, rule, ids, f->owner, text);
		buf_puts(&q, sep);
	}
	buf_puts(&q, out->spans[s].name);
	xfree(out->spans[s].qualname);
	out->spans[s].qualname = buf_take(&q);
}

/* Where name node n of a definition of row d ends: before a node it
 * holds on the row's name path (C++'s `operator T()`, named by its type,
 * holds its parameters as a declarator), blanks before that left out. */
static uint32_t name_end(const SpanRules *r, const DefRule *d, TSNode n,
			 const char *text)
{
	const struct RowIds *ids = &r->ids[d - r->spec->defs];
	uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);

	for (int i = 0; i < NAME_PATH_MAX && ids->path[i]; i++) {
		TSNode c = ts_node_child_by_field_id(n, ids->path[i]);

		if (!ts_node_is_null(c)) {
			b = ts_node_start_byte(c);
			break;
		}
	}
	while (b > a && isspace((unsigned char)text[b - 1]))
		b--;
	return b;
}

/* Records the span for definition node n at stack depth d. */
static void add_def(Chunking *out, uint32_t *cap, const SpanRules *r,
		    const DefRule *rule, const Found *f, Frame *stack, int d,
		    const char *text)
{
	TSNode n = stack[d].node, outer = n, prev;
	int32_t parent = -1, namer = -1;
	int i, o = d;
	SpanKind kind = rule->kind;
	const char *doc = NULL;
	size_t doc_len = 0;
	uint32_t body_start, start, a, b;
	bool owned = f->nscopes || !ts_node_is_null(f->owner);

	for (i = d - 1; i >= 0 && parent < 0; i--)
		parent = stack[i].span;
	/* The span that names it: past those that name nothing. */
	for (i = d - 1; i >= 0; i--)
		if (stack[i].span >= 0 && !stack[i].flat) {
			namer = stack[i].span;
			break;
		}
	/* Grow over wrappers that hold only this definition. */
	for (i = d - 1; i > 0 && node_is(stack[i].node, r->spec->wrappers);
	     i--) {
		if (!wraps_one(stack[i].node, r))
			break;
		outer = stack[i].node;
		o = i;
	}
	if (kind == SPAN_FUNCTION &&
	    (owned ||
	     (parent >= 0 && span_kind_is_class(out->spans[parent].kind))))
		kind = SPAN_METHOD;
	/* And over the attributes right before it. */
	start = ts_node_start_byte(outer);
	prev = stack[o].prev;
	while (!ts_node_is_null(prev) && has_role(r, prev, ROLE_ATTR)) {
		start = ts_node_start_byte(prev);
		outer = prev;
		prev = ts_node_prev_sibling(prev);
	}
	body_start = ts_node_is_null(f->body) ? ts_node_end_byte(stack[o].node)
					      : ts_node_start_byte(f->body);
	/* A brace that opens the body belongs in the header. Only a body
	 * with bytes can start with one: an empty body (a missing one, at
	 * the end of the input) starts where the text may already end. */
	if (!ts_node_is_null(f->body) &&
	    ts_node_end_byte(f->body) > body_start && text[body_start] == '{')
		body_start++;
	a = ts_node_is_null(f->name) ? 0 : ts_node_start_byte(f->name);
	b = ts_node_is_null(f->name) ? 0 : name_end(r, rule, f->name, text);
	if (r->spec->doc == DOC_BODY_STRING)
		body_docstring(f->body, text, &doc, &doc_len);
	if (!doc)
		leading_comment(outer, prev, r, text, &doc, &doc_len);
	stack[d].span =
	    spans_add(out, cap, kind, parent,
		      (ByteRange){start, ts_node_end_byte(stack[o].node)},
		      body_start, text, b > a ? text + a : "<anonymous>",
		      b > a ? b - a : 11, r->spec->qsep, doc, doc_len);
	stack[d].flat = rule->flat;
	stack[d].body = f->body;
	if (owned || namer != parent)
		qualify(out, stack[d].span, namer, r, rule, f, text);
}

/* ---------------------------------------------------------------------- *
 * Bindings: names given a value at the top level or in a class body
 * ---------------------------------------------------------------------- */

/* Whether the node at depth d of the stack sits where an assignment
 * defines a name: at the top level, or right in a class's body. */
static bool binding_scope(const Chunking *out, const Frame *stack, int d)
{
	const Frame *cls = d >= 2 ? &stack[d - 2] : NULL;

	if (d == 1)
		return true;
	if (!cls || cls->span < 0 || !ts_node_eq(stack[d - 1].node, cls->body))
		return false;
	return span_kind_is_class(out->spans[cls->span].kind);
}

/* Collects into found the binding nodes at or under n, going down
 * through the rule's holders only; returns the new count. */
static uint32_t find_bindings(const SpanRules *r, TSNode n, TSNode *found,
			      uint32_t k, int depth)
{
	uint32_t i, m;

	if (has_role(r, n, ROLE_BIND)) {
		if (k < BINDINGS_HELD_MAX)
			found[k++] = n;
		return k;
	}
	if (!has_role(r, n, ROLE_BIND_HOLDER) || depth == HOLDERS_DEPTH_MAX)
		return k;
	m = ts_node_named_child_count(n);
	for (i = 0; i < m && k < BINDINGS_HELD_MAX; i++)
		k = find_bindings(r, ts_node_named_child(n, i), found, k,
				  depth + 1);
	return k;
}

/* The name binding node x gives, or null: a plain name of the rule's
 * types, with a value that no definition rule has taken already. */
static TSNode binding_name(const SpanRules *r, TSNode x)
{
	const BindingRule *b = &r->spec->bindings;
	TSNode name = field_id(x, r->bind_name);
	TSNode value = field_id(x, r->bind_value);

	if (ts_node_is_null(name) || !node_is(name, b->name_types) ||
	    (!ts_node_is_null(value) && b->skip_values &&
	     node_is(value, b->skip_values)))
		return (TSNode){0};
	return name;
}

/* The span holding binding x (a whole statement, or x alone), its name
 * in name, as a member of the span around the stack at depth d. */
static int32_t add_binding(Chunking *out, uint32_t *cap, const SpanRules *r,
			   const Frame *stack, int d, TSNode x, TSNode name,
			   const char *text, bool with_doc)
{
	int32_t parent = -1;
	SpanKind kind = SPAN_VARIABLE, up;
	const char *doc = NULL;
	size_t doc_len = 0;

	for (int i = d - 1; i >= 0 && parent < 0; i--)
		parent = stack[i].span;
	up = parent >= 0 ? out->spans[parent].kind : SPAN_VARIABLE;
	if (span_kind_is_class(up))
		kind = SPAN_FIELD;
	if (with_doc)
		leading_comment(x, stack[d].prev, r, text, &doc, &doc_len);
	return spans_add(
	    out, cap, kind, parent,
	    (ByteRange){ts_node_start_byte(x), ts_node_end_byte(x)},
	    ts_node_end_byte(x), text, text + ts_node_start_byte(name),
	    ts_node_end_byte(name) - ts_node_start_byte(name), r->spec->qsep,
	    doc, doc_len);
}

/* At node n, at depth d, where bindings define names (in scope: the
 * statement right in the file or a class body). A statement holding one
 * binding and nothing else is its span, with its leading comment, and
 * names what is defined inside it (an object literal's methods). Else
 * the walk goes on through the holders, and each binding node it meets,
 * in order among the definitions beside it (`const f = () => 1, X =
 * 2`), spans itself. */
static void add_bindings(Chunking *out, uint32_t *cap, const SpanRules *r,
			 Frame *stack, int d, bool in_scope, const char *text,
			 uint32_t *nbound)
{
	TSNode n = stack[d].node, found[BINDINGS_HELD_MAX], name;

	if (in_scope && find_bindings(r, n, found, 0, 0) == 1 &&
	    !ts_node_is_null(name = binding_name(r, found[0]))) {
		stack[d].span =
		    add_binding(out, cap, r, stack, d, n, name, text, true);
		++*nbound;
		return;
	}
	if (!has_role(r, n, ROLE_BIND)) {
		stack[d].binds = true;
		return;
	}
	if (!ts_node_is_null(name = binding_name(r, n))) {
		add_binding(out, cap, r, stack, d, n, name, text, false);
		++*nbound;
	}
}

void spans_collect(const SpanRules *r, TSNode root, const char *text,
		   uint32_t at, Chunking *out, uint32_t *cap)
{
	TSTreeCursor cur = ts_tree_cursor_new(root);
	TSNode prev = {0}; /* the current node's previous sibling */
	Frame *stack = NULL;
	int depth = 0, scap = 0;
	uint32_t nbound = 0; /* binding spans added */

	for (;;) {
		TSNode n = ts_tree_cursor_current_node(&cur);
		const DefRule *rule;
		Found found;
		bool scope;

		if (depth == scap) {
			scap = scap ? scap * 2 : 64;
			stack = xrealloc(stack, (size_t)scap * sizeof(*stack));
		}
		stack[depth] = (Frame){.node = n, .prev = prev, .span = -1};
		TSSymbol sym = ts_node_symbol(n);
		bool opaque = sym < r->nsymbols && (r->role[sym] & ROLE_OPAQUE);

		/* Looking for what surrounds one byte: skip the rest, but
		 * visit definitions themselves, whose span (grown over its
		 * wrappers) may contain the byte when the node does not; the
		 * caller keeps only the spans that do. */
		if (at != UINT32_MAX &&
		    !(sym < r->nsymbols && (r->role[sym] & ROLE_DEF)) &&
		    (ts_node_start_byte(n) > at || ts_node_end_byte(n) < at)) {
			if (depth == 0)
				break;
			goto next;
		}

		if (ts_node_is_named(n) &&
		    (rule = match_rule(
			 r, n, depth ? stack[depth - 1].node : (TSNode){0},
			 text, &found)))
			add_def(out, cap, r, rule, &found, stack, depth, text);
		else if (has_role(r, n, ROLE_BIND | ROLE_BIND_HOLDER) &&
			 nbound < BINDINGS_MAX &&
			 ((scope = binding_scope(out, stack, depth)) ||
			  (depth > 0 && stack[depth - 1].binds)))
			add_bindings(out, cap, r, stack, depth, scope, text,
				     &nbound);
		if (!opaque && ts_tree_cursor_goto_first_child(&cur)) {
			depth++;
			prev = (TSNode){0};
			continue;
		}
	next:
		while (!ts_tree_cursor_goto_next_sibling(&cur)) {
			if (!ts_tree_cursor_goto_parent(&cur))
				goto done;
			depth--;
		}
		prev = stack[depth].node;
	}
done:
	xfree(stack);
	ts_tree_cursor_delete(&cur);
}

void spans_set_lines(Chunking *c, const uint32_t *starts, uint32_t nlines)
{
	uint32_t i;

	for (i = 0; i < c->nspans; i++) {
		Span *s = &c->spans[i];
		uint32_t last = s->bytes.end > s->bytes.start ? s->bytes.end - 1
							      : s->bytes.start;

		s->lines.start = line_of(starts, nlines, s->bytes.start);
		s->lines.end = line_of(starts, nlines, last);
	}
}
