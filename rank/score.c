/*
 * score.c: the weights and the ranking.
 *
 * A definition scores for its name being used near the cursor (weighted
 * by proximity), for being a member of the class being written, for being
 * imported (more when the file does not use it yet), for being used by
 * the file's other definitions of the name being written (the same
 * method of another class) or by the bodies of its definitions with like
 * headers (less in the file itself) or by other files' definitions of
 * the name being written, and, in the current file, for being
 * close, for how often the file uses it, for the share of the file's
 * functions that call it and for being kept to the file yet unused; a
 * member of some other class scores less. Every candidate scores for its
 * lexical match with the code before the cursor. The region around the
 * cursor is left out.
 * Runs of small sibling definitions become one item.
 */
#include "rank_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Tuned on the RepoEval development split and the TypeScript set (make
 * eval); see Weights for what each one weighs. */
const Weights rank__weights = {
    .mention = 2.0,
    .mention_apart = 0.6,
    .mention_outside = 0.2,
    .member = 0.3,
    .other_class = 1.0,
    .near = 1.0,
    .near_lines = 30.0,
    .receiver = 0.2,
    .imported = 0.3,
    .import_name = 0.2,
    .import_unused = 2.0,
    .import_member = 0.8,
    .file_use = 0.5,
    .file_namesake = 0.2,
    .sibling = 1.0,
    .similar = 1.0,
    .similar_here = 0.5,
    .namesakes = 0.5,
    .kept_unused = 1.5,
    .uses = 0.4,
    .uses_full = 64.0,
    .callers = 0.5,
    .callers_full = 0.2,
    .bm25 = 0.6,
    .same_file = 0.3,
    .bm25_min = 12.0,
    .score_min = 0.12,
    .stop_score = 1.0,
};

/* Best first; ties by origin, then by place, so that the order does not
 * depend on row ids (which a parallel scan hands out in no fixed
 * order). */
static int cmp_cand(const void *a, const void *b)
{
	const Cand *x = a, *y = b;
	int c;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	if (x->root != y->root)
		return x->root < y->root ? -1 : 1;
	if ((c = strcmp(x->path, y->path)) != 0)
		return c;
	if (x->bytes.start != y->bytes.start)
		return x->bytes.start < y->bytes.start ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

/* Whether c is in a file the buffer imports, or is the body of a
 * function declared in one (a C header's prototype): what the buffer
 * imports, either way. */
static bool imported(const Cand *c) { return c->imported || c->declared; }

/* What a name the file imports earns: most when it is imported by name
 * and not used yet. Code seldom imports a name it does not use, so the
 * code being written is the likeliest to (on the Python development set
 * such names are what the blanked body calls; the tuning half's
 * cross-file Recall@5 rose from 0.34 to 0.40 when they outranked the
 * current file's neighbours). A member named through its module near the
 * cursor (`M.name`) is in use already and keeps a smaller prior: raised as
 * high, such names crowded out what the file imports by name. So does a
 * definition in no file the buffer imports: a namesake, taken for want of
 * the module's own (a module imported by name has none). */
static double imported_name(const Cand *c)
{
	const Weights *W = &rank__weights;
	double s = c->import_name ? W->import_name : 0;

	if (c->import_member)
		s = fmax(s, W->import_member);
	if (c->import_unused)
		s = fmax(s, imported(c) ? W->import_unused : W->import_member);
	return s;
}

/* What a definition of a name used elsewhere in the buffer earns: the
 * weight of those uses, capped at 1, by how likely the definition is
 * the one meant (in a file the buffer imports, or a namesake). Applied
 * as strongly as a use near the cursor, names used all over a file
 * crowded out what the cursor names (Rust, Java and Python lost
 * Recall@5 on both halves); at these weights no half of any language
 * lost. */
static double file_prior(const Cand *c)
{
	const Weights *W = &rank__weights;

	return (imported(c) ? W->file_use : W->file_namesake) *
	       fmin(c->file_use, 1.0);
}

/* A definition its file keeps to itself (a C `static` function, a Java
 * `private` method, a Python `_helper`) that the file does not use yet:
 * nothing else can, so the code being written is the likeliest to, as
 * with an import not used yet. On the Python development set such a
 * definition was what the blanked body used 10 times as often as any
 * other of its file (0.41 and 0.32 of them, tuning and check half,
 * against 0.03). W->kept_unused = 1.5 was best on the tuning halves
 * (1.0 and 2.0 tried, 2.0 again once Java's entries were left out); the
 * check halves rose with it: C 0.332 -> 0.357, Java 0.303 -> 0.312,
 * Python 0.451 -> 0.473, Go (unexported, used by no other file of the
 * package) 0.274 -> 0.293, no language lower. */
static double kept_here(const Cand *c)
{
	return c->unused_private ? rank__weights.kept_unused : 0;
}

/* What a function or class at the top of the buffer earns for the share
 * of the buffer's functions that call it: what most of a file's
 * functions call (`exists(x)`, `default(v, d)`, a module's own `fail()`),
 * the next one is likely to, however far above it is. Only a call by the
 * bare name counts: the same word as a local, a member (`x.span`) or
 * another scope's (`T::new`) tells nothing of the function, and counted,
 * Rust's tuning half lost 0.006 to 0.012; so do members and nested
 * definitions, whose names the file's locals share. A fifth of the
 * functions earns all of it (0.15, 0.25 and 0.3 tried). At W->callers =
 * 0.5 (0.35 and 0.7 tried), Python rose 0.516 -> 0.522 / 0.509 -> 0.521
 * (tuning / check half), RepoEval 0.609 -> 0.646, Rust 0.374 -> 0.373 /
 * 0.283 -> 0.285, C 0.420 -> 0.417 / 0.356 -> 0.359, Go 0.330 -> 0.329 /
 * 0.335 -> 0.334; TypeScript's check half lost 2 tasks (0.304 -> 0.294)
 * to effect's own `isLeft` and `isSome`, called all over their files,
 * which its gold (no definition of the file itself) cannot count. */
static double callers_prior(const Where *w, const Cand *c)
{
	const Weights *W = &rank__weights;
	double share = w->words.nfns ? (double)c->callers / w->words.nfns : 0;

	return W->callers * fmin(share / W->callers_full, 1.0);
}

/* What a definition the bodies of the buffer's definitions with headers
 * like the one being written use earns: what they call, it is likely to.
 * In the buffer itself at half weight (its uses and nearness count
 * already, and the editor's prompt may hold it): a private constructor
 * every `with...` method calls, a helper each `visit_...` passes its node
 * to. At half weight every set's tuning half but TypeScript's rose
 * (RepoEval 0.590 -> 0.594, Go 0.292 -> 0.297, Rust 0.366 -> 0.374, C
 * 0.414 -> 0.420), and the check halves of C++ (0.276 -> 0.282), Go
 * (0.293 -> 0.296) and Java (0.316 -> 0.323) with them; at full weight
 * Java's tuning half lost 0.011. The TypeScript set's gold counts no
 * definition of the file itself, so any such item costs it a place. */
static double similar_prior(const Cand *c)
{
	const Weights *W = &rank__weights;

	return (c->same_file ? W->similar_here : W->similar) *
	       fmin(c->similar, 1.0);
}

/* The share of the mention weight that c earns. A name near the cursor
 * is most often what the buffer imports, defines, or reaches through a
 * receiver or its class; a namesake in a file nothing ties to the buffer
 * (`parse`, `table`, `Name` in another package) is a guess. At full
 * weight such guesses took the top places from imported definitions. At
 * 0.6 every language's check half rose or held (Go 0.261 -> 0.275,
 * TypeScript 0.306 -> 0.314); at 0.3 RepoEval lost 0.010. A language
 * without imports (shell) ties no file to another, so there it is no
 * guess. So is another file's method whose name is used near the cursor
 * but on no receiver of its type, nor is of the class being written: a
 * call `x.close()` names every type's close, wherever the file
 * imports from (on the Go set, 0 of 19 such items in the top five were
 * gold). At the same 0.6 Java rose 0.323 -> 0.328 / 0.323 -> 0.335
 * (tuning / check), Go 0.297 -> 0.302 / held, Python 0.494 -> 0.497 /
 * 0.473 -> 0.475, RepoEval 0.594 -> 0.596; C++ lost a task each half. At
 * 0.3 or 0.45 RepoEval lost 0.008 and its lines@5 passed 60.
 *
 * Where a file's names reach only its own package and the packages it
 * imports (Go: a name from any other package is written `pkg.Name`, and
 * `pkg` must be imported), a definition in neither is no namesake but
 * beyond reach, but for a method of a type the code gets from an import
 * without naming it. On the Go set, none of the 58 such items named near
 * the cursor in the top five of 360 tasks was gold; at mention_outside =
 * 0.2 (0 and 0.4 scored the same on the tuning half) Go rose 0.302 ->
 * 0.303 / 0.296 -> 0.301, 6 tasks won and none lost. */
static double mention_share(const Where *w, const Cand *c)
{
	bool tied =
	    c->member || c->receiver || c->import_name || c->import_member;

	if (w->mr.style == MODULES_PACKAGES && !tied && !imported(c) &&
	    !c->same_file)
		return rank__weights.mention_outside;
	if (c->method && !tied)
		return rank__weights.mention_apart;
	return tied || w->mr.style == MODULES_NONE || imported(c) ||
		       c->same_file
		   ? 1.0
		   : rank__weights.mention_apart;
}

static double score_of(const Where *w, const Cand *c)
{
	const Weights *W = &rank__weights;
	double lex = w->best_bm25 > 0 ? fmin(c->bm25 / w->best_bm25, 1.0) : 0;
	double s = W->bm25 * lex;

	if (rank__excluded(w, c))
		return -1;
	if (!rank__is_def(c))
		return s + (c->same_file ? W->same_file : 0);
	s += W->mention * fmin(c->mention, 1.5) * mention_share(w, c) +
	     (c->member ? W->member : 0) + (c->receiver ? W->receiver : 0) -
	     (c->other_class ? W->other_class : 0) + file_prior(c) +
	     (imported(c) ? W->imported : 0) + imported_name(c) +
	     W->sibling * fmin(c->sibling, 1.0) + similar_prior(c) +
	     W->namesakes * fmin(c->namesakes, 1.0);
	if (c->same_file)
		s += W->near / (1.0 + c->near / W->near_lines) +
		     W->uses * fmin(log1p(c->uses) / log1p(W->uses_full), 1.0) +
		     callers_prior(w, c) + kept_here(c);
	return s;
}

/* Whether definitions c and d are siblings close enough to show as one
 * item: same file and parent, at most one line apart, d small,
 * RANK_ITEM_LINES in all. */
static bool joinable(const Cand *c, const Cand *d)
{
	uint32_t a =
	    c->lines.start < d->lines.start ? c->lines.start : d->lines.start;
	uint32_t z = c->lines.end > d->lines.end ? c->lines.end : d->lines.end;
	/* A type's data (an enum's constants, a class's fields) may be a
	 * doc comment apart. */
	bool member = c->from == FROM_LIVE ? c->live_parent >= 0 : c->parent;
	uint32_t gap = c->data && d->data && member ? DATA_GAP_LINES : 2;

	if (c->from != d->from || c->root != d->root ||
	    d->score < rank__weights.score_min ||
	    (c->from == FROM_LIVE
		 ? c->live_parent != d->live_parent
		 : c->parent != d->parent || c->file_id != d->file_id))
		return false;
	if (c->lines.end + gap < d->lines.start ||
	    d->lines.end + gap < c->lines.start ||
	    d->lines.end - d->lines.start + 1 > JOIN_LINES)
		return false;
	/* d may lie between two siblings c has already joined. */
	return z - a + 1 <= RANK_ITEM_LINES &&
	       (c->lines.end < d->lines.start ||
		d->lines.end < c->lines.start ||
		(c->lines.start <= d->lines.start &&
		 d->lines.end <= c->lines.end));
}

/* Appends item to the comma-separated list (when it fits). */
static void list_append(char *list, size_t cap, const char *item)
{
	size_t n = strlen(list);

	if (n + strlen(item) + 3 < cap)
		snprintf(list + n, cap - n, "%s%s", n ? ", " : "", item);
}

/* Joins d into c. */
static void join(Cand *c, Cand *d)
{
	if (d->bytes.start < c->bytes.start) {
		c->bytes.start = d->bytes.start;
		c->lines.start = d->lines.start;
	}
	if (d->bytes.end > c->bytes.end) {
		c->bytes.end = d->bytes.end;
		c->lines.end = d->lines.end;
	}
	if (d->defined[0])
		list_append(c->defined, sizeof(c->defined), d->defined);
	list_append(c->joined, sizeof(c->joined), d->symbol);
	c->mention = fmax(c->mention, d->mention);
	d->score = -1;
}

/* Runs of small sibling definitions (a class's fields, a module's
 * constants, one-line helpers) become one item, ranked as its best: one
 * field per item would spend the top ranks on a single place. */
static void join_siblings(Cands *cs)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];
		bool grew =
		    rank__is_def(c) && c->score >= rank__weights.score_min;

		while (grew) {
			grew = false;
			for (uint32_t k = i + 1; k < cs->n; k++)
				if (joinable(c, &cs->c[k])) {
					join(c, &cs->c[k]);
					grew = true;
				}
		}
	}
}

void rank__score(Where *w)
{
	Cands *cs = &w->cs;

	for (uint32_t i = 0; i < cs->n; i++)
		cs->c[i].score = score_of(w, &cs->c[i]);
	if (!cs->n)
		return;
	rank__cands_unindex(cs);
	qsort(cs->c, cs->n, sizeof(*cs->c), cmp_cand);
	join_siblings(cs);
	qsort(cs->c, cs->n, sizeof(*cs->c), cmp_cand);
}

/* Nothing is worth the space when the best candidate scores under
 * stop_score (a name near the cursor has a definition somewhere, but
 * nothing more speaks for it), or when no definition is named near the
 * cursor, no import waits to be used, and the best lexical match is
 * weak. */
bool rank__worth_it(const Where *w)
{
	double best_mention = 0;
	bool unused_import = false;

	if (!w->cs.n || w->cs.c[0].score < rank__weights.stop_score)
		return false;
	for (uint32_t i = 0; i < w->cs.n; i++)
		if (w->cs.c[i].score >= 0) {
			best_mention = fmax(best_mention, w->cs.c[i].mention);
			unused_import |= w->cs.c[i].import_unused ||
					 w->cs.c[i].import_member;
		}
	return best_mention > 0 || unused_import ||
	       w->best_bm25 >= rank__weights.bm25_min;
}
