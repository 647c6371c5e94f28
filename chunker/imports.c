/*
 * imports.c: what a file imports, what it binds by plain assignment, and
 * which of its text is no code, read off its syntax tree by the rules of
 * its language table row.
 */
#include "lang_int.h"

#include <string.h>

/* Top-level statements looked at; a generated file may have more. */
#define STATEMENTS_MAX 4096

static bool is_type(TSNode n, const char *list)
{
	return !ts_node_is_null(n) && list && *list &&
	       word_in_list(list, ts_node_type(n));
}

static ByteRange range_of(TSNode n)
{
	ByteRange r = {0, 0};

	if (!ts_node_is_null(n)) {
		r.start = ts_node_start_byte(n);
		r.end = ts_node_end_byte(n);
	}
	return r;
}

/* ---------------------------------------------------------------------- *
 * Imports
 * ---------------------------------------------------------------------- */

typedef struct {
	const ImportRule *rule;
	const char *text;
	uint32_t len;
	TSNode stmt;
	ByteRange prefix, module;
	ImportRef *out;
	uint32_t n, cap;
} ImportWalk;

/* The last named leaf of n: "C" of the dotted name a.b.C. */
static TSNode last_component(TSNode n)
{
	uint32_t k;

	while ((k = ts_node_named_child_count(n)) > 0)
		n = ts_node_named_child(n, k - 1);
	return n;
}

static void import_push(ImportWalk *w, ImportKind kind, ByteRange name,
			ByteRange local)
{
	ImportRef *r;

	if (name.end > w->len || local.end > w->len)
		return;
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 16;
		w->out = xrealloc(w->out, w->cap * sizeof(*w->out));
	}
	r = &w->out[w->n++];
	r->kind = kind;
	r->reexport = w->rule->reexport;
	r->stmt = range_of(w->stmt);
	r->prefix = w->prefix;
	r->module = w->module;
	r->relative = w->rule->relative;
	r->name = name;
	r->local = local;
}

static void import_add(ImportWalk *w, ImportKind kind, TSNode name,
		       TSNode local)
{
	if (!ts_node_is_null(local))
		import_push(w, kind, range_of(name), range_of(local));
}

/* The module of w->rule: its field's text without quotes. */
static void import_module(ImportWalk *w)
{
	TSNode m = ts_node_child_by_field_name(
	    w->stmt, w->rule->module_field,
	    (uint32_t)strlen(w->rule->module_field));
	ByteRange r = range_of(m);

	if (r.end > w->len)
		r.end = r.start;
	if (r.end - r.start >= 2 &&
	    (((w->text[r.start] == '"' || w->text[r.start] == '\'' ||
	       w->text[r.start] == '`') &&
	      w->text[r.end - 1] == w->text[r.start]) ||
	     (w->text[r.start] == '<' && w->text[r.end - 1] == '>'))) {
		r.start++;
		r.end--;
	}
	w->module = r;
}

static void import_visit(ImportWalk *w, TSNode parent, TSNode skip)
{
	const ImportRule *ru = w->rule;
	uint32_t n = ts_node_named_child_count(parent);

	for (uint32_t i = 0; i < n; i++) {
		TSNode x = ts_node_named_child(parent, i);
		/* Python's `import a.b` binds a module per name. */
		ImportKind named =
		    ru->module_field ? IMPORT_NAME : IMPORT_MODULE;

		if (ts_node_eq(x, skip))
			continue;
		if (!ru->module_field)
			w->module = range_of(
			    is_type(x, ru->aliased)
				? ts_node_child_by_field_name(x, "name", 4)
				: x);
		if (is_type(x, ru->aliased)) {
			TSNode name = ts_node_child_by_field_name(x, "name", 4);
			TSNode alias =
			    ts_node_child_by_field_name(x, "alias", 5);

			if (ts_node_is_null(name))
				continue;
			if (named == IMPORT_MODULE)
				import_add(w, named, (TSNode){0},
					   ts_node_is_null(alias)
					       ? ts_node_named_child(name, 0)
					       : alias);
			else
				import_add(w, named, last_component(name),
					   ts_node_is_null(alias)
					       ? last_component(name)
					       : last_component(alias));
		} else if (is_type(x, ru->names)) {
			if (named == IMPORT_MODULE)
				import_add(w, named, (TSNode){0},
					   ts_node_named_child(x, 0));
			else
				import_add(w, named, last_component(x),
					   last_component(x));
		} else if (is_type(x, ru->defaults)) {
			import_add(w, IMPORT_DEFAULT, x, x);
		} else if (is_type(x, ru->namespaces)) {
			import_add(w, IMPORT_NAMESPACE, (TSNode){0},
				   last_component(x));
		} else if (is_type(x, ru->enter)) {
			import_visit(w, x, skip);
		}
	}
}

static TSNode field_of(TSNode n, const char *name)
{
	return ts_node_child_by_field_name(n, name, (uint32_t)strlen(name));
}

/* Imports written as paths: x is a path (`a::b::C`: C from a::b), an
 * aliased one, a group of them under a common prefix, or a module
 * imported whole. */
static void path_visit(ImportWalk *w, TSNode x, bool whole)
{
	const ImportRule *ru = w->rule;
	TSNode path = x, local = {0};

	if (is_type(x, ru->groups)) {
		TSNode list = field_of(x, "list");
		uint32_t n =
		    ts_node_is_null(list) ? 0 : ts_node_named_child_count(list);

		w->prefix = range_of(field_of(x, ru->path_field));
		for (uint32_t i = 0; i < n; i++)
			path_visit(w, ts_node_named_child(list, i), false);
		w->prefix = (ByteRange){0, 0};
		return;
	}
	if (is_type(x, ru->wholes)) {
		w->module = range_of(ts_node_named_child(x, 0));
		import_push(w, IMPORT_MODULE, (ByteRange){0, 0},
			    (ByteRange){0, 0});
		return;
	}
	if (is_type(x, ru->aliased)) {
		path = field_of(x, ru->alias_of ? ru->alias_of : "name");
		local = field_of(x, "alias");
	} else if (!is_type(x, ru->paths) && !is_type(x, ru->names)) {
		return;
	}
	if (ts_node_is_null(path))
		return;
	w->module = range_of(field_of(path, ru->path_field));
	if (whole) {
		w->module = range_of(path);
		import_push(w, IMPORT_MODULE, (ByteRange){0, 0},
			    (ByteRange){0, 0});
		return;
	}
	import_add(w, IMPORT_NAME, last_component(path),
		   ts_node_is_null(local) ? last_component(path) : local);
}

/* The imports of statement st, which matches w->rule. */
static void import_statement(ImportWalk *w, TSNode st)
{
	const ImportRule *ru = w->rule;
	TSNode skip = {0};
	uint32_t before = w->n;

	w->stmt = st;
	w->prefix = w->module = (ByteRange){0, 0};
	if (ru->unless_field &&
	    !ts_node_is_null(field_of(st, ru->unless_field)))
		return;
	if (ru->paths) {
		uint32_t n = ts_node_named_child_count(st);
		bool whole = false;

		for (uint32_t i = 0; i < n; i++)
			whole |=
			    is_type(ts_node_named_child(st, i), ru->wildcard);
		for (uint32_t i = 0; i < n; i++)
			path_visit(w, ts_node_named_child(st, i), whole);
		return;
	}
	if (ru->module_field) {
		import_module(w);
		if (w->module.end == w->module.start)
			return; /* `export const x`: no module */
		skip = field_of(st, ru->module_field);
	}
	import_visit(w, st, skip);
	if (w->n > before || !ru->module_field)
		return;
	/* `import "./polyfill"`, `export * from "./x"`: the module still
	 * counts as imported, under no name; Go's `import "a/b"` binds b. */
	if (ru->binds_tail) {
		ByteRange t = w->module, prev = t;
		uint32_t digits = 0;

		for (uint32_t i = t.start; i < t.end; i++)
			if (w->text[i] == '/') {
				prev = (ByteRange){t.start, i};
				t.start = i + 1;
			}
		while (t.start + 1 + digits < t.end &&
		       w->text[t.start + 1 + digits] >= '0' &&
		       w->text[t.start + 1 + digits] <= '9')
			digits++;
		/* A major version is no name ("a/b/v2" binds b), nor is a
		 * version suffix ("gopkg.in/yaml.v3" binds yaml). */
		if (digits && w->text[t.start] == 'v' &&
		    t.start + 1 + digits == t.end && prev.start < t.start)
			t = prev;
		for (uint32_t i = t.start; i < t.end; i++)
			if (w->text[i] == '.' && i > t.start) {
				t.end = i;
				break;
			}
		import_push(w, IMPORT_NAMESPACE, (ByteRange){0, 0}, t);
	} else {
		import_push(w, IMPORT_MODULE, (ByteRange){0, 0},
			    (ByteRange){0, 0});
	}
}

/* The imports among the named children of node, and in the holders
 * among them (to depth levels down). */
static void imports_under(ImportWalk *w, const LangSpec *spec, TSNode node,
			  int depth)
{
	uint32_t n = ts_node_named_child_count(node);

	for (uint32_t i = 0; i < n && i < STATEMENTS_MAX; i++) {
		TSNode st = ts_node_named_child(node, i);

		for (w->rule = spec->import_rules; w->rule->type; w->rule++)
			if (strcmp(ts_node_type(st), w->rule->type) == 0)
				break;
		if (w->rule->type)
			import_statement(w, st);
		else if (depth > 0 && is_type(st, spec->import_holders))
			imports_under(w, spec, st, depth - 1);
	}
}

uint32_t chunker_imports(Lang lang, const TSTree *tree, const char *text,
			 uint32_t len, ImportRef **out)
{
	ImportWalk w = {0};

	*out = NULL;
	if (!tree)
		return 0;
	w.text = text;
	w.len = len;
	imports_under(&w, lang_spec(lang), ts_tree_root_node(tree), 4);
	*out = w.out;
	return w.n;
}

/* Whether n is a class with a body, by its type (a row that tests a
 * field first, C++'s class a macro hid, is none: its body holds
 * statements); *rule is its row. */
static bool is_class(const LangSpec *spec, TSNode n, const DefRule **rule)
{
	for (const DefRule *d = spec->defs; d->type; d++)
		if (span_kind_is_class(d->kind) && d->body_field &&
		    !d->value_types && strcmp(ts_node_type(n), d->type) == 0) {
			*rule = d;
			return true;
		}
	return false;
}

/* ---------------------------------------------------------------------- *
 * A walk over the nodes of a range
 * ---------------------------------------------------------------------- */

/* Calls visit(x, ctx) on every node of tree that overlaps [lo, hi), in
 * preorder; it enters x's children only when visit returns true. */
static void walk_range(const TSTree *tree, uint32_t lo, uint32_t hi,
		       bool (*visit)(TSNode x, void *ctx), void *ctx)
{
	TSTreeCursor cur = ts_tree_cursor_new(ts_tree_root_node(tree));
	bool down = true;

	for (;;) {
		TSNode x = ts_tree_cursor_current_node(&cur);
		bool inside =
		    ts_node_end_byte(x) > lo && ts_node_start_byte(x) < hi;

		if (down && inside && visit(x, ctx) &&
		    ts_tree_cursor_goto_first_child(&cur))
			continue;
		down = true;
		if (ts_tree_cursor_goto_next_sibling(&cur))
			continue;
		if (!ts_tree_cursor_goto_parent(&cur))
			break;
		down = false;
	}
	ts_tree_cursor_delete(&cur);
}

/* ---------------------------------------------------------------------- *
 * Text that is no code
 * ---------------------------------------------------------------------- */

/* The module an import statement names, or the whole statement when its
 * names are modules themselves. */
static ByteRange module_of(const LangSpec *spec, TSNode st)
{
	for (const ImportRule *ru = spec->import_rules; ru->type; ru++)
		if (strcmp(ts_node_type(st), ru->type) == 0 && ru->module_field)
			return range_of(ts_node_child_by_field_name(
			    st, ru->module_field,
			    (uint32_t)strlen(ru->module_field)));
	return range_of(st);
}

static void range_push(ByteRange **r, uint32_t *n, uint32_t *cap, ByteRange x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		*r = xrealloc(*r, *cap * sizeof(**r));
	}
	(*r)[(*n)++] = x;
}

typedef struct {
	const LangSpec *spec;
	unsigned what;
	ByteRange *r;
	uint32_t n, cap;
} NoncodeWalk;

/* A comment, string or import is recorded and not entered. */
static bool noncode_visit(TSNode x, void *ctx)
{
	NoncodeWalk *w = ctx;
	const LangSpec *spec = w->spec;

	if (((w->what & NONCODE_COMMENTS) && is_type(x, spec->comments)) ||
	    ((w->what & NONCODE_STRINGS) && is_type(x, spec->strings))) {
		range_push(&w->r, &w->n, &w->cap, range_of(x));
		return false;
	}
	if ((w->what & NONCODE_MODULES) && is_type(x, spec->imports)) {
		range_push(&w->r, &w->n, &w->cap, module_of(spec, x));
		return false;
	}
	return true;
}

uint32_t chunker_noncode(Lang lang, const TSTree *tree, uint32_t lo,
			 uint32_t hi, unsigned what, ByteRange **out)
{
	NoncodeWalk w = {lang_spec(lang), what, NULL, 0, 0};

	*out = NULL;
	if (!tree || lo >= hi)
		return 0;
	walk_range(tree, lo, hi, noncode_visit, &w);
	*out = w.r;
	return w.n;
}

uint32_t chunker_receivers(Lang lang, const TSTree *tree, uint32_t lo,
			   uint32_t hi, ByteRange **out)
{
	const char *rule = lang_spec(lang)->receivers;
	size_t tl = rule ? strcspn(rule, " ") : 0;
	const char *f = rule ? rule + tl + (rule[tl] != '\0') : NULL;
	ByteRange *r = NULL;
	uint32_t n = 0, cap = 0;
	TSTreeCursor cur;

	*out = NULL;
	if (!tree || !rule || lo >= hi)
		return 0;
	cur = ts_tree_cursor_new(ts_tree_root_node(tree));
	for (bool more = ts_tree_cursor_goto_first_child(&cur); more;
	     more = ts_tree_cursor_goto_next_sibling(&cur)) {
		TSNode x = ts_tree_cursor_current_node(&cur), v;
		const char *type = ts_node_type(x);

		if (ts_node_start_byte(x) >= hi)
			break;
		if (ts_node_end_byte(x) <= lo || strlen(type) != tl ||
		    memcmp(type, rule, tl) != 0)
			continue;
		v = ts_node_child_by_field_name(x, f, (uint32_t)strlen(f));
		if (!ts_node_is_null(v))
			range_push(&r, &n, &cap, range_of(v));
	}
	ts_tree_cursor_delete(&cur);
	*out = r;
	return n;
}

/* ---------------------------------------------------------------------- *
 * Names with a type
 * ---------------------------------------------------------------------- */

/* The node at field path `name` under n: one field, or several
 * separated by spaces and followed in turn (Java's `declarator name`),
 * `*` the first named child; NULL: the first named child. */
static TSNode field(TSNode n, const char *name)
{
	if (!name)
		return ts_node_named_child(n, 0);
	while (*name && !ts_node_is_null(n)) {
		size_t k = strcspn(name, " ");

		if (k == 1 && *name == '*')
			n = ts_node_named_child(n, 0);
		else
			n = ts_node_child_by_field_name(n, name, (uint32_t)k);
		name += k + (name[k] == ' ');
	}
	return n;
}

/* The callee of v, a call the language table lists, or a null node;
 * a callee that is itself such a call is followed, a few levels deep,
 * and a wrapper (Go's unary `&` of `&T{}`) counts only around a call. */
static TSNode callee_of(const LangSpec *spec, TSNode v)
{
	for (int depth = 0; depth < 4 && spec->callees; depth++) {
		bool wrapper = is_type(v, spec->call_wrappers);
		TSNode c = {0};

		if (!wrapper && !is_type(v, spec->calls))
			break;
		for (const char *f = spec->callees; *f; f += *f == ' ') {
			size_t n = strcspn(f, " ");

			c = ts_node_child_by_field_name(v, f, (uint32_t)n);
			if (!ts_node_is_null(c))
				break;
			f += n;
		}
		if (ts_node_is_null(c))
			break;
		if (!wrapper && !is_type(c, spec->calls) &&
		    !is_type(c, spec->call_wrappers))
			return c;
		v = c;
	}
	return (TSNode){0};
}

/* The type a typing rule gives: its annotation (unless the annotation
 * leaves it to the value, C++'s `auto`), else the callee of a call it
 * is assigned from, with *call set; a null node when neither. */
static TSNode type_of(const LangSpec *spec, const TypingRule *ru, TSNode x,
		      bool *call)
{
	TSNode t = ru->type_field ? field(x, ru->type_field) : (TSNode){0};
	TSNode v = ru->value_field ? field(x, ru->value_field) : (TSNode){0};

	*call = false;
	if (!ts_node_is_null(t) && !is_type(t, spec->inferred))
		return t;
	if (ts_node_is_null(v))
		return v;
	t = callee_of(spec, v);
	*call = !ts_node_is_null(t);
	return t;
}

/* Whether x stands directly in the body of a class (through the binding
 * holders: Python's expression_statement). */
static bool in_class_body(const LangSpec *spec, TSNode x)
{
	TSNode p = ts_node_parent(x), owner;
	const DefRule *cls;

	while (!ts_node_is_null(p) && is_type(p, spec->bindings.holders))
		p = ts_node_parent(p);
	owner = ts_node_is_null(p) ? p : ts_node_parent(p);
	return !ts_node_is_null(owner) && is_class(spec, owner, &cls) &&
	       ts_node_eq(field(owner, cls->body_field), p);
}

/* The first row for x's type that finds both a name and a type in it
 * (a C++ declarator is a name, or holds one), setting *name and *type;
 * NULL when none does. */
static const TypingRule *typing_rule(const LangSpec *spec, TSNode x,
				     TSNode *name, TSNode *type, bool *call)
{
	for (const TypingRule *ru = spec->typings; ru && ru->type; ru++)
		if (strcmp(ts_node_type(x), ru->type) == 0 &&
		    !ts_node_is_null(*name = field(x, ru->name_field)) &&
		    !ts_node_is_null(*type = type_of(spec, ru, x, call)))
			return ru;
	return NULL;
}

typedef struct {
	const LangSpec *spec;
	uint32_t hi;
	TypedName *r;
	uint32_t n, cap;
} TypedWalk;

static bool typed_visit(TSNode x, void *ctx)
{
	TypedWalk *w = ctx;
	TSNode name, type;
	bool call;
	const TypingRule *ru = typing_rule(w->spec, x, &name, &type, &call);

	if (ru && ts_node_end_byte(x) <= w->hi) {
		if (w->n == w->cap) {
			w->cap = w->cap ? w->cap * 2 : 16;
			w->r = xrealloc(w->r, w->cap * sizeof(*w->r));
		}
		w->r[w->n].name = range_of(name);
		w->r[w->n].type = range_of(type);
		w->r[w->n].call = call;
		w->r[w->n++].member = in_class_body(w->spec, x);
	}
	return true;
}

uint32_t chunker_typed_names(Lang lang, const TSTree *tree, uint32_t lo,
			     uint32_t hi, TypedName **out)
{
	TypedWalk w = {lang_spec(lang), hi, NULL, 0, 0};

	*out = NULL;
	if (!tree || lo >= hi || !w.spec->typings)
		return 0;
	walk_range(tree, lo, hi, typed_visit, &w);
	*out = w.r;
	return w.n;
}
