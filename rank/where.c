/*
 * where.c: where the cursor is. The query (the lines before the cursor,
 * with the header of the function being written), the region of the
 * buffer left out (the editor shows it), the buffer's own definitions,
 * and the class being written with its bases.
 */
#include "rank_int.h"

#include <ctype.h>
#include <math.h>
#include <string.h>

uint32_t rank__line_start(const char *text, uint32_t off)
{
	while (off && text[off - 1] != '\n')
		off--;
	return off;
}

uint32_t rank__lines_between(uint32_t a, uint32_t b)
{
	return a > b ? a - b : b - a;
}

bool rank__is_base(const Where *w, const char *name)
{
	for (int i = 0; i < w->nbases; i++)
		if (strcmp(w->bases[i], name) == 0)
			return true;
	return false;
}

bool rank__in_class(const Where *w, const char *name, size_t len)
{
	for (uint32_t i = 0; w->cls >= 0 && i < w->live.nspans; i++) {
		const Span *sp = &w->live.spans[i];

		if (sp->parent == w->cls && strncmp(sp->name, name, len) == 0 &&
		    !sp->name[len])
			return true;
	}
	return false;
}

/* The base classes named in a class header: identifiers between the
 * parentheses of `class X(A, m.B):` or after extends/implements. Keyword
 * arguments (metaclass=M) and the language's stopwords are skipped. */
static int header_bases(Lang lang, const Span *sp, char (*out)[IDENT_MAX],
			int cap)
{
	const char *h = sp->header, *p = strstr(h, sp->name);
	int n = 0;

	if (!p)
		return 0;
	p += strlen(sp->name);
	while (*p && *p != ':' && *p != '{' && n < cap) {
		const char *w = p;
		size_t len;

		if (!rank__ident_start((unsigned char)*p)) {
			p++;
			continue;
		}
		while (rank__ident_char((unsigned char)*p))
			p++;
		len = (size_t)(p - w);
		while (*p == ' ')
			p++;
		if (*p == '=' || len >= IDENT_MAX ||
		    lang_is_stopword(lang, w, len))
			continue;
		memcpy(out[n], w, len);
		out[n++][len] = '\0';
	}
	return n;
}

/* The class of method sp when the buffer does not hold its body: C++'s
 * `void A::B::f()` (B), Go's `func (s *Store) Put()` (Store), a method of
 * a Rust impl block (its type). That class is being written, but its
 * members are declared elsewhere: they are looked up as a base's are. */
static void owner_class(Where *w, const Span *sp)
{
	const Span *up = sp->parent >= 0 ? &w->live.spans[sp->parent] : NULL;
	const char *q = sp->qualname;
	size_t end = strlen(q), start;
	char *owner;

	if (end < strlen(sp->name) || sp->kind != SPAN_METHOD ||
	    w->nbases == MAX_BASES ||
	    (up && span_kind_is_class(up->kind) && up->kind != SPAN_IMPL))
		return;
	end -= strlen(sp->name);
	if (up && up->kind == SPAN_IMPL) {
		q = up->name;
		end = strlen(q);
	}
	while (end > 0 && !rank__ident_char((unsigned char)q[end - 1]))
		end--;
	start = end;
	while (start > 0 && rank__ident_char((unsigned char)q[start - 1]))
		start--;
	if (end == start || end - start >= IDENT_MAX)
		return;
	/* Written in the next free slot, kept only if new. */
	owner = w->bases[w->nbases];
	memcpy(owner, q + start, end - start);
	owner[end - start] = '\0';
	if ((up && up->kind != SPAN_IMPL && strcmp(up->name, owner) == 0) ||
	    rank__is_base(w, owner))
		return; /* a namespace's, or a base already */
	w->owner = w->nbases++;
}

/* Whether the body of live span sp holds no code: whitespace, comments
 * and strings only (Python's docstring). */
static bool no_code(const Where *w, const Span *sp)
{
	const char *t = w->q->text;
	ByteRange *nc = NULL;
	uint32_t n, k = 0, i = sp->body_start;
	bool none = true;

	if (!w->tree)
		return false;
	n = chunker_noncode(w->q->lang, w->tree, sp->body_start, sp->bytes.end,
			    NONCODE_COMMENTS | NONCODE_STRINGS, &nc);
	for (; none && i < sp->bytes.end; i++) {
		while (k < n && nc[k].end <= i)
			k++;
		if (k < n && nc[k].start <= i)
			i = nc[k].end - 1;
		else
			none = isspace((unsigned char)t[i]);
	}
	xfree(nc);
	return none;
}

bool rank__around(const Where *w, const Span *sp)
{
	const char *text = w->q->text;
	uint32_t ls, indent = 0, col, cursor = w->q->cursor;

	if (sp->bytes.start > cursor)
		return false;
	if (sp->bytes.end >= cursor)
		return true;
	for (uint32_t i = sp->bytes.end; i < cursor; i++)
		if (!isspace((unsigned char)text[i]))
			return false;
	/* A function with no body yet (Python's `def f():` just typed), or
	 * with no code in it yet (its docstring, a comment), is continued on
	 * the blank lines after it, at any column: its body is what comes
	 * next. One that ends in `;` is a declaration. Editors leave a blank
	 * line's indent out of the text, so the column says little there:
	 * read at column 0, the methods whose docstrings the Python set
	 * keeps were taken for closed, and the class's for none (Recall@5
	 * 0.499 -> 0.510 / 0.475 -> 0.492, tuning / check half). */
	if ((sp->kind == SPAN_FUNCTION || sp->kind == SPAN_METHOD) &&
	    sp->bytes.end > sp->bytes.start && text[sp->bytes.end - 1] != ';' &&
	    (sp->body_start >= sp->bytes.end || no_code(w, sp)))
		return true;
	ls = rank__line_start(text, sp->bytes.start);
	while (text[ls + indent] == ' ' || text[ls + indent] == '\t')
		indent++;
	col = cursor - rank__line_start(text, cursor);
	return col > indent;
}

/* The buffer's tree, or a parse of our own; and its spans. */
static void live_spans(Where *w)
{
	const RankCursor *q = w->q;

	w->tree = q->tree;
	if (!w->tree && q->len <= CONTEXT_PARSE_MAX)
		w->tree = w->own_tree =
		    chunker_parse(q->chunker, q->lang, q->text, q->len, NULL);
	if (chunker_spans(q->chunker, q->lang, q->text, q->len, w->tree,
			  &w->live) != 0)
		memset(&w->live, 0, sizeof(w->live));
}

/* Into out, lc's functions and methods that no other function holds,
 * by start; returns how many. */
static uint32_t outer_functions(const Chunking *lc, FnRange *out)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < lc->nspans; i++) {
		const Span *sp = &lc->spans[i];

		if ((sp->kind != SPAN_FUNCTION && sp->kind != SPAN_METHOD) ||
		    (n && sp->bytes.start < out[n - 1].bytes.end))
			continue;
		out[n++] = (FnRange){sp->bytes, sp->name};
	}
	return n;
}

/* The text before the cursor that names nothing the code uses: the
 * module paths of its imports (`django` and `test` of `from django.test
 * import TestCase`), unless the cursor is in one, and the receivers of
 * methods (Go's `func (e *encoder)`: in every method of a type, it named
 * the type as if each one used it). Comments and strings are kept:
 * docstrings and doc comments name what the code uses (on the
 * development sets, dropping them costs 0.02 of Recall@5). */
static uint32_t noncode(const Where *w, uint32_t lo, ByteRange **skip)
{
	const RankCursor *q = w->q;
	uint32_t n = chunker_noncode(q->lang, w->tree, lo, q->cursor,
				     NONCODE_MODULES, skip),
		 m = n;

	if (w->nmethods_of)
		*skip = xrealloc(*skip, (n + w->nmethods_of) * sizeof(**skip));
	for (uint32_t i = 0; i < w->nmethods_of; i++) {
		ByteRange r = w->methods_of[i];

		if (r.end > lo && r.start < q->cursor)
			(*skip)[m++] = r;
	}
	if (m > n) {
		n = m;
		qsort(*skip, n, sizeof(**skip), rank__cmp_range);
	}
	while (n && (*skip)[n - 1].end >= q->cursor &&
	       (*skip)[n - 1].start < q->cursor)
		n--;
	return n;
}

/* Where the qualifier before the name at text[a] starts, from lo: the
 * `A::B<T>::` of C++'s `A::B<T>::f`, written with sep between; a when
 * there is none. */
static uint32_t qualifier_start(const char *t, uint32_t lo, uint32_t a,
				const char *sep)
{
	size_t sl = strlen(sep);

	while (sl && a >= lo + sl + 1 && memcmp(t + a - sl, sep, sl) == 0) {
		uint32_t e = a - (uint32_t)sl, b;
		int depth = 0;

		if (t[e - 1] == '>') { /* template arguments */
			do {
				e--;
				depth += t[e] == '>';
				depth -= t[e] == '<';
			} while (e > lo && depth > 0);
			if (depth)
				break;
		}
		for (b = e;
		     b > lo && rank__ident_char((unsigned char)t[b - 1]);)
			b--;
		if (b == e)
			break;
		a = b;
	}
	return a;
}

/* Adds to the sorted ranges skip[0, n) the name of each method written
 * apart from its type that starts in [lo, cursor), where its header
 * names it (Go's `func (p *Reply) Len()`, C++'s `Reply::len()`), and
 * returns the new count. That name is the method's definition, not a
 * use; and as a member's name, shared by the same method of every
 * other type, it made each of them rank "used near the cursor" (a
 * method inside its class's body, Python's or Java's, is left as it
 * was: its name there did not mislead). On the Go set Recall@5 rose
 * 0.309 -> 0.322 / 0.329 -> 0.330 (tuning / check half), C++ 0.276 ->
 * 0.279 / 0.281 -> 0.283; Java lost one task, no other set moved.
 * The class that qualifies the name (`Reactor::` of C++'s
 * `Reactor::stop()`) is the method's too, no use: it had made the
 * class's constructor rank first for the code below (C++ 0.279 ->
 * 0.283 / 0.283 -> 0.287, 9 tasks won, 4 lost). */
static uint32_t apart_names(const Where *w, uint32_t lo, ByteRange **skip,
			    uint32_t n)
{
	const Chunking *lc = &w->live;
	const char *t = w->q->text;
	uint32_t m = n, cap = n;

	for (uint32_t i = 0; i < lc->nspans; i++) {
		const Span *sp = &lc->spans[i];
		const Span *up =
		    sp->parent >= 0 ? &lc->spans[sp->parent] : NULL;
		size_t len = strlen(sp->name);
		uint32_t hi = sp->body_start < sp->bytes.end ? sp->body_start
							     : sp->bytes.end;

		if (sp->kind != SPAN_METHOD ||
		    (up && span_kind_is_class(up->kind)) ||
		    sp->bytes.start < lo || sp->bytes.start >= w->q->cursor ||
		    len == 0)
			continue;
		if (hi > w->q->cursor)
			hi = w->q->cursor;
		for (uint32_t k = sp->bytes.start, a;
		     rank__next_word(t, sp->bytes.start, hi, &k, &a);) {
			if (k - a != len || memcmp(t + a, sp->name, len) != 0)
				continue;
			if (m == cap) {
				cap = cap ? 2 * cap : 16;
				*skip = xrealloc(*skip, cap * sizeof(**skip));
			}
			(*skip)[m++] = (ByteRange){
			    qualifier_start(t, sp->bytes.start, a, w->mr.sep),
			    k};
			break;
		}
	}
	if (m > n)
		qsort(*skip, m, sizeof(**skip), rank__cmp_range);
	return m;
}

/* Appends text[lo, hi) to b with the ranges skip[0, n) blanked. */
static void append_code(Buf *b, const char *text, uint32_t lo, uint32_t hi,
			const ByteRange *skip, uint32_t n)
{
	size_t at = b->len;

	buf_append(b, text + lo, hi - lo);
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = skip[i].start; k < skip[i].end && k < hi; k++)
			if (k >= lo && !is_space_byte((unsigned char)text[k]))
				b->data[at + k - lo] = ' ';
}

void rank__locate(Where *w, const RankCursor *q)
{
	uint32_t cursor = q->cursor, back = 0, ex_end;
	uint32_t lo = rank__line_start(q->text, cursor), nskip;
	int32_t fn = -1;
	ByteRange *skip;

	memset(w, 0, sizeof(*w));
	w->q = q;
	w->cls = -1;
	w->owner = -1;
	w->own_span = -1;
	w->cursor_line = castls_count_newlines(q->text, cursor);
	while (lo > 0 && back < QUERY_LINES) {
		lo = rank__line_start(q->text, lo - 1);
		back++;
	}
	w->q_lo = lo;
	ex_end = w->cursor_line + AFTER_LINES;
	w->ex_first =
	    w->cursor_line > BEFORE_LINES ? w->cursor_line - BEFORE_LINES : 0;
	lang_modules(q->lang, &w->mr);
	live_spans(w);
	w->nmethods_of = chunker_receivers(q->lang, w->tree, 0,
					   (uint32_t)q->len, &w->methods_of);
	/* The innermost function and class around the cursor. A namespace
	 * is no definition being written but a scope, as a file is: taken
	 * for one, where the code at the cursor is in no span (a C++
	 * `static_assert`; `operator T()` before it had a span), it left
	 * out the namespace's every definition above the cursor (C++ Recall@5
	 * 0.286 -> 0.287 / 0.287 -> 0.288, tuning / check half, 2 tasks won,
	 * none lost). */
	for (uint32_t i = 0; i < w->live.nspans; i++) {
		const Span *sp = &w->live.spans[i];

		if (sp->kind == SPAN_SECTION || sp->kind == SPAN_NAMESPACE ||
		    !rank__around(w, sp))
			continue;
		if (span_kind_is_class(sp->kind))
			w->cls = (int32_t)i;
		else
			fn = (int32_t)i;
	}
	/* The class of that function holds the cursor too, wherever the
	 * class's last line is: a method continued at column 0 below it
	 * (rank__around) is still the class's (Python Recall@5 0.510 ->
	 * 0.516 / 0.492 -> 0.509, tuning / check half). Spans come by
	 * start, so a class inside the one found has the greater index. */
	for (int32_t p = fn >= 0 ? w->live.spans[fn].parent : -1; p >= 0;
	     p = w->live.spans[p].parent)
		if (span_kind_is_class(w->live.spans[p].kind)) {
			if (p > w->cls)
				w->cls = p;
			break;
		}
	if (fn >= 0) {
		const Span *sp = &w->live.spans[fn];

		if (sp->bytes.start < lo)
			buf_printf(&w->query, "%s\n", sp->header);
		if (sp->lines.end > ex_end)
			ex_end = sp->lines.end;
		if (sp->lines.start < w->ex_first)
			w->ex_first = sp->lines.start;
	}
	if (w->cls >= 0)
		w->nbases = header_bases(q->lang, &w->live.spans[w->cls],
					 w->bases, MAX_BASES);
	if (fn >= 0)
		owner_class(w, &w->live.spans[fn]);
	nskip = noncode(w, lo, &skip);
	append_code(&w->query, q->text, lo, cursor, skip, nskip);
	if (w->query.len > QUERY_MAX) { /* keep the part nearest the cursor */
		memmove(w->query.data, w->query.data + w->query.len - QUERY_MAX,
			QUERY_MAX);
		w->query.len = QUERY_MAX;
		w->query.data[QUERY_MAX] = '\0';
	}
	/* Left out: the definition being written (from its first line) and
	 * the few lines around the cursor; the rest of the query's lines may
	 * still hold definitions worth showing whole. */
	w->ex_last = ex_end;
	if (q->len <= CONTEXT_PARSE_MAX) {
		FnRange *fns = xmalloc((w->live.nspans + 1) * sizeof(*fns));

		rank__words_count(&w->words, q->text, q->len, fns,
				  outer_functions(&w->live, fns));
		xfree(fns);
	}
	w->nskip = apart_names(w, lo, &skip, nskip);
	w->skip = skip;
	w->own_start = cursor;
	w->own_span = fn;
	if (fn >= 0) {
		w->own = w->live.spans[fn].name;
		w->own_start = w->live.spans[fn].bytes.start;
	}
}

/* Whether the word t[a, z) of a comment that starts at lo (in a text of
 * len bytes) reads as code rather than prose: a name with an underscore,
 * an inner capital or a digit, one quoted (`name`), called or reached
 * through (`f(`, `a.b`), or a capitalized word that starts no sentence. */
static bool code_word(const char *t, uint32_t len, uint32_t lo, uint32_t a,
		      uint32_t z)
{
	char next = z < len ? t[z] : '\0';
	static const char starts[] = ".!?:*/#\"\n";
	uint32_t k = a;

	for (uint32_t i = a; i < z; i++)
		if (t[i] == '_' || isdigit((unsigned char)t[i]) ||
		    (i > a && isupper((unsigned char)t[i]) &&
		     islower((unsigned char)t[i - 1])))
			return true;
	if ((a > lo && (t[a - 1] == '`' || t[a - 1] == '.')) || next == '`' ||
	    next == '(' ||
	    (next == '.' && z + 1 < len && isalpha((unsigned char)t[z + 1])))
		return true;
	if (!isupper((unsigned char)t[a]))
		return false;
	while (k > lo && (t[k - 1] == ' ' || t[k - 1] == '\t'))
		k--;
	return k > lo && !strchr(starts, t[k - 1]);
}

/* Appends to *skip (n entries, room for *cap) the prose words before the
 * cursor of the comment it is in, with the comments right above that
 * one (Rust's and Go's line comments): in a doc comment's example, the
 * code names what it uses, and the prose around it names nothing
 * (`Output the message.` looked up `Output` and `message`). Words in
 * fenced code (```) count. The comments above the cursor's are left
 * whole: there prose names what the code uses ("an error is returned"
 * above a call of `self.error`), and without their prose words Rust lost
 * 0.004 and Go 0.003 of Recall@5 on a half. Returns the new count. */
static uint32_t prose_words(const Where *w, ByteRange **skip, uint32_t n,
			    uint32_t *cap)
{
	const RankCursor *q = w->q;
	const char *t = q->text;
	ByteRange *cm = NULL;
	uint32_t nc = chunker_noncode(q->lang, w->tree, w->q_lo, q->cursor,
				      NONCODE_COMMENTS, &cm),
		 first;
	bool in_code = false;

	if (!nc || cm[nc - 1].start >= q->cursor ||
	    cm[nc - 1].end < q->cursor) {
		xfree(cm);
		return n; /* the cursor is in no comment */
	}
	for (first = nc - 1; first > 0; first--) {
		uint32_t g = cm[first - 1].end;

		while (g < cm[first].start && isspace((unsigned char)t[g]))
			g++;
		if (g < cm[first].start)
			break;
	}
	for (uint32_t c = first; c < nc; c++) {
		uint32_t lo = cm[c].start, fence = lo,
			 hi = cm[c].end < q->cursor ? cm[c].end : q->cursor;

		for (uint32_t i = lo, a; rank__next_word(t, lo, hi, &i, &a);) {
			for (; fence + 3 <= a; fence++)
				if (memcmp(t + fence, "```", 3) == 0) {
					in_code = !in_code;
					fence += 2;
				}
			if (in_code || code_word(t, q->len, lo, a, i))
				continue;
			if (n == *cap)
				*skip = xrealloc(*skip,
						 (*cap *= 2) * sizeof(**skip));
			(*skip)[n++] = (ByteRange){a, i};
		}
	}
	xfree(cm);
	return n;
}

void rank__near_words(Where *w)
{
	const RankCursor *q = w->q;
	uint32_t n = w->nskip, cap = n + w->npaths + 16;
	ByteRange *skip = xmalloc(cap * sizeof(*skip));

	if (n)
		memcpy(skip, w->skip, n * sizeof(*skip));
	for (uint32_t i = 0; i < w->npaths; i++)
		if (w->paths[i].end > w->q_lo && w->paths[i].end < q->cursor)
			skip[n++] = w->paths[i]; /* none the cursor is in */
	n = prose_words(w, &skip, n, &cap);
	if (n > 1)
		qsort(skip, n, sizeof(*skip), rank__cmp_range);
	w->nids =
	    rank__idents(q->lang, q->text, w->q_lo, q->cursor, w->cursor_line,
			 castls_count_newlines(q->text, w->q_lo), skip, n,
			 w->ids, IDENTS_CAP);
	xfree(skip);
}

void rank__file_words(Where *w)
{
	const RankCursor *q = w->q;
	uint32_t lo = w->q_lo, hi = q->cursor, back = 0;

	while (lo > 0 && back++ < FILE_LINES)
		lo = rank__line_start(q->text, lo - 1);
	for (uint32_t ahead = 0; hi < q->len && ahead < FILE_LINES; hi++)
		ahead += q->text[hi] == '\n';
	w->nfids = rank__file_idents(
	    q->lang, q->text, lo, hi, (ByteRange){w->q_lo, q->cursor},
	    w->cursor_line, castls_count_newlines(q->text, lo), w->paths,
	    w->npaths, w->fids, FILE_IDENTS_CAP);
}

/* Whether live span sp is a namesake of the definition being written,
 * neither it nor a class. */
static bool sibling(const Where *w, const Span *sp)
{
	return sp->bytes.start != w->own_start &&
	       !span_kind_is_class(sp->kind) && sp->kind != SPAN_SECTION &&
	       strcmp(sp->name, w->own) == 0;
}

/* Adds to into[0, *n) the names the code of spans sp[0, ns) uses, from
 * each one's body only if body, each span weighing part[i]. */
static void words_of(Where *w, const Span **sp, const double *part, uint32_t ns,
		     bool body, Ident *into, int *n)
{
	Ident *got = xmalloc(FILE_IDENTS_CAP * sizeof(*got));

	for (uint32_t s = 0; s < ns; s++) {
		uint32_t from = body ? sp[s]->body_start : sp[s]->bytes.start;
		int m = rank__file_idents(w->q->lang, w->q->text, from,
					  sp[s]->bytes.end, (ByteRange){0, 0},
					  0, sp[s]->lines.start, w->paths,
					  w->npaths, got, FILE_IDENTS_CAP);

		for (int i = 0; i < m; i++) {
			int k = rank__ident_find(into, *n, got[i].name,
						 strlen(got[i].name));

			if (strcmp(got[i].name, w->own) == 0)
				continue;
			if (k < 0) {
				if (*n == FILE_IDENTS_CAP)
					continue;
				k = (*n)++;
				into[k] = got[i];
				into[k].weight = 0;
			}
			into[k].weight += part[s];
		}
	}
	rank__idents_sort(into, *n);
	xfree(got);
}

void rank__sibling_words(Where *w)
{
	const Chunking *lc = &w->live;
	const Span *sib[SIBLINGS_MAX];
	double part[SIBLINGS_MAX];
	uint32_t nsib = 0;

	if (!w->own)
		return;
	for (uint32_t i = 0; i < lc->nspans; i++) {
		const Span *sp = &lc->spans[i];
		uint32_t far = 0;

		if (!sibling(w, sp))
			continue;
		if (nsib < SIBLINGS_MAX) {
			sib[nsib++] = sp;
			continue;
		}
		/* Full: the nearest are kept. */
		for (uint32_t m = 1; m < nsib; m++)
			if (rank__lines_between(sib[m]->lines.start,
						w->cursor_line) >
			    rank__lines_between(sib[far]->lines.start,
						w->cursor_line))
				far = m;
		if (rank__lines_between(sp->lines.start, w->cursor_line) <
		    rank__lines_between(sib[far]->lines.start, w->cursor_line))
			sib[far] = sp;
	}
	for (uint32_t s = 0; s < nsib; s++)
		part[s] = 1.0 / nsib;
	words_of(w, sib, part, nsib, false, w->sids, &w->nsids);
}

/* The words of live span sp's header, but its name, into out. */
static int header_words(const Where *w, const Span *sp, Ident *out)
{
	const RankCursor *q = w->q;
	uint32_t end =
	    sp->body_start < sp->bytes.end ? sp->body_start : sp->bytes.end;
	int n;

	if (end > q->len)
		end = (uint32_t)q->len;
	n = rank__idents(q->lang, q->text, sp->bytes.start, end, 0, 0, w->paths,
			 w->npaths, out, HEADER_WORDS);
	for (int i = 0; i < n; i++)
		if (strcmp(out[i].name, sp->name) == 0) {
			out[i] = out[--n];
			break;
		}
	return n;
}

static bool has_word(const Ident *in, int n, const char *s)
{
	return rank__ident_find(in, n, s, strlen(s)) >= 0;
}

/* Whether live span sp may be like the definition being written: a
 * function or method other than it, its namesakes (rank__sibling_words
 * reads those) and what encloses the cursor. */
static bool similar_kind(const Where *w, const Span *sp)
{
	return (sp->kind == SPAN_FUNCTION || sp->kind == SPAN_METHOD) &&
	       sp != &w->live.spans[w->own_span] &&
	       strcmp(sp->name, w->own) != 0 && !rank__around(w, sp);
}

/* Into w->like (likest first) the buffer's definitions whose headers
 * share at least SIMILAR_MIN of the words of the one being written, each
 * word weighing the rarer it is among the headers; their likeness into
 * w->like_share. Each header is read once: which of those words it has
 * is kept as a bit mask (HEADER_WORDS of them fit). */
_Static_assert(HEADER_WORDS <= 32, "a header's words are a uint32_t mask");

static void similar_spans(Where *w)
{
	const Chunking *lc = &w->live;
	Ident own[HEADER_WORDS], other[HEADER_WORDS];
	uint32_t df[HEADER_WORDS] = {0}, ndefs = 0, n = 0;
	uint32_t *has = xcalloc(lc->nspans + 1, sizeof(*has));
	double idf[HEADER_WORDS], *sim = w->like_share, total = 0;
	int nown = header_words(w, &lc->spans[w->own_span], own);

	for (uint32_t i = 0; i < lc->nspans && nown; i++) {
		int no;

		if (!similar_kind(w, &lc->spans[i]))
			continue;
		ndefs++;
		no = header_words(w, &lc->spans[i], other);
		for (int k = 0; k < nown; k++)
			if (has_word(other, no, own[k].name)) {
				has[i] |= (uint32_t)1 << k;
				df[k]++;
			}
	}
	for (int k = 0; k < nown; k++)
		total += idf[k] = log((ndefs + 1.0) / (df[k] + 0.5));
	for (uint32_t i = 0; i < lc->nspans && total > 0; i++) {
		double s = 0;
		uint32_t at;

		if (!has[i])
			continue;
		for (int k = 0; k < nown; k++)
			if (has[i] >> k & 1)
				s += idf[k];
		if ((s /= total) < SIMILAR_MIN ||
		    (n == SIMILAR_MAX && s <= sim[n - 1]))
			continue;
		at = n < SIMILAR_MAX ? n++ : n - 1;
		for (; at > 0 && sim[at - 1] < s; at--) {
			w->like[at] = w->like[at - 1];
			sim[at] = sim[at - 1];
		}
		w->like[at] = &lc->spans[i];
		sim[at] = s;
	}
	xfree(has);
	w->nlike = n;
}

void rank__similar_words(Where *w)
{
	double sum = 0;

	if (!w->own || w->own_span < 0)
		return;
	similar_spans(w);
	for (uint32_t i = 0; i < w->nlike; i++)
		sum += w->like_share[i];
	for (uint32_t i = 0; i < w->nlike; i++)
		w->like_share[i] /= sum;
	/* Their headers are what they share with the one being written;
	 * what they do is in their bodies. */
	words_of(w, w->like, w->like_share, w->nlike, true, w->simids,
		 &w->nsimids);
}

bool rank__excluded(const Where *w, const Cand *c)
{
	return c->same_file && c->lines.end >= w->ex_first &&
	       c->lines.start <= w->ex_last;
}

const char *rank__root_path(const Where *w)
{
	const RankCursor *q = w->q;

	if (q->root < 0 || (uint32_t)q->root >= q->nroots)
		return NULL;
	return q->roots[q->root].path;
}

void rank__where_free(Where *w)
{
	rank__cands_free(&w->cs);
	chunking_close(&w->live);
	if (w->own_tree)
		ts_tree_delete(w->own_tree);
	buf_free(&w->query);
	rank__words_free(&w->words);
	xfree(w->skip);
	xfree(w->methods_of);
	xfree(w->outside);
	xfree(w->imp);
	xfree(w->paths);
	xfree(w->frags);
	xfree(w->mods);
	xfree(w->redir);
	xfree(w->trees);
	xfree(w->incdirs);
	xfree(w->maps);
}
