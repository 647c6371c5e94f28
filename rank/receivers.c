/*
 * receivers.c: the types of the names the code near the cursor calls
 * methods on. After `collector = Collector(using=db)`, `collector.delete()`
 * means Collector.delete, not the delete of every other class; after
 * `def f(self, q: Query)`, `q.filter` means Query.filter; `self.x` and
 * `this.x` take the type of the class's own x.
 */
#include "rank_int.h"

#include <string.h>

static bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
static bool is_lower(char c) { return c >= 'a' && c <= 'z'; }

/* The length of the constructor prefix of the word w[0, n) among the
 * space-separated prefixes: one followed by a capital (`NewFoo`,
 * `newFoo`), else 0. */
static size_t ctor_prefix(const char *prefixes, const char *w, size_t n)
{
	for (const char *p = prefixes; *p; p += *p == ' ') {
		size_t pl = strcspn(p, " ");

		if (n > pl + 1 && memcmp(w, p, pl) == 0 && is_upper(w[pl]))
			return pl;
		p += pl;
	}
	return 0;
}

/* The class a type names: its last identifier that reads as a class
 * name (a capital, then more, or any case where the language allows;
 * no stopword, no one-letter type parameter): Foo of `Optional[Foo]`,
 * `pkg.Foo`, `Foo | None`, `Foo<T>`. For a callee (call), a
 * constructor function's name less the language's prefix: Foo of Go's
 * `pkg.NewFoo`, foo of `newFoo` (a small prefix makes a small name).
 * lower: where the language allows, a name may start small. */
static bool type_name(Lang lang, const char *text, ByteRange r, bool call,
		      bool lower, char *out)
{
	const char *pre = call ? lang_ctor_prefix(lang) : "";
	bool found = false;

	for (uint32_t i = r.start, a;
	     rank__next_word(text, r.start, r.end, &i, &a);) {
		size_t pl = ctor_prefix(pre, text + a, i - a);
		bool small = pl && is_lower(text[a]);

		a += (uint32_t)pl;
		if (i - a >= 2 && i - a < IDENT_MAX &&
		    (is_upper(text[a]) || (lower && is_lower(text[a]))) &&
		    !lang_is_stopword(lang, text + a, i - a)) {
			memcpy(out, text + a, i - a);
			out[i - a] = '\0';
			if (small)
				out[0] = (char)(out[0] - 'A' + 'a');
			found = true;
		}
	}
	return found;
}

/* Whether type r names a member of a package outside the workspace
 * (Go's `bufio.NewScanner`): no type of the workspace is its. */
static bool outside_type(const Where *w, ByteRange r)
{
	for (uint32_t i = 0; i < w->noutside; i++)
		if (w->outside[i].start >= r.start &&
		    w->outside[i].end <= r.end)
			return true;
	return false;
}

/* The receiver text of t: its name, or self.name for a class member. */
static bool receiver_of(const Where *w, const TypedName *t, char *out,
			size_t cap)
{
	const char *text = w->q->text, *self = lang_self_word(w->q->lang);
	size_t n = t->name.end - t->name.start,
	       s = t->member ? strlen(self) : 0;

	if (n == 0 || s + 1 + n >= cap || (t->member && !s))
		return false;
	if (t->member) {
		memcpy(out, self, s);
		out[s++] = '.';
	}
	memcpy(out + s, text + t->name.start, n);
	out[s + n] = '\0';
	for (size_t i = 0; out[i]; i++)
		if (!rank__ident_char((unsigned char)out[i]) && out[i] != '.')
			return false; /* a pattern, not a name */
	return true;
}

/* The text a scan for calls reads: the code before the cursor, or the
 * body of a similar definition, whose calls weigh its share. */
typedef struct {
	uint32_t lo, hi;
	double share; /* 0: near the cursor, weighed by proximity */
	uint32_t id;  /* of a similar definition's scan, from 1 */
} Scan;

/* Adds (cls, name) for each `recv.name` in the text sc reads. */
static void calls_on(Where *w, const Scan *sc, const char *recv,
		     const char *cls, const char *sep)
{
	const char *t = w->q->text;
	size_t rl = strlen(recv);
	uint32_t lo = sc->lo, hi = sc->hi, gap = 0;
	bool similar = sc->share > 0;

	for (uint32_t i = lo; i < hi; i++)
		gap += t[i] == '\n';
	for (uint32_t i = lo; i + rl + 1 < hi; i++) {
		uint32_t a, z;
		Receiver *r;
		int k;

		gap -= i > lo && t[i - 1] == '\n';
		if (!rank__member_at(t, lo, hi, i, recv, rl, sep, &a, &z))
			continue;
		for (k = 0; k < w->nrecv; k++)
			if (w->recv[k].similar == similar &&
			    strcmp(w->recv[k].cls, cls) == 0 &&
			    strlen(w->recv[k].name) == z - a &&
			    memcmp(w->recv[k].name, t + a, z - a) == 0)
				break;
		if (k == w->nrecv) {
			if (w->nrecv == RECEIVERS_MAX)
				continue;
			r = &w->recv[w->nrecv++];
			memcpy(r->cls, cls, strlen(cls) + 1);
			memcpy(r->name, t + a, z - a);
			r->name[z - a] = '\0';
			r->weight = 0;
			r->similar = similar;
			r->scan = 0;
		}
		if (!similar) {
			rank__add_use(&w->recv[k].weight, gap);
		} else if (w->recv[k].scan != sc->id) {
			/* A definition's share counts once. */
			w->recv[k].weight += sc->share;
			w->recv[k].scan = sc->id;
		}
	}
}

/* calls_on through each of the language's member operators: `x.m`,
 * and `x->m` where a name may hold a pointer. */
static void calls_through(Where *w, const Scan *sc, const char *recv,
			  const char *cls)
{
	for (const char *op = lang_member_ops(w->q->lang); *op;
	     op += *op == ' ') {
		char sep[4];
		size_t n = strcspn(op, " ");

		if (n < sizeof(sep)) {
			memcpy(sep, op, n);
			sep[n] = '\0';
			calls_on(w, sc, recv, cls, sep);
		}
		op += n;
	}
}

/* `Foo.bar` and `Foo::bar` in the text sc reads, Foo read as a
 * class name (type_name's rule): a static member, a nested type, an
 * enum's constant, a constructor of Foo's own. */
static void static_members(Where *w, const Scan *sc)
{
	const char *t = w->q->text, *qsep = w->mr.sep;
	uint32_t lo = sc->lo, hi = sc->hi;
	char seen[RECEIVERS_MAX][IDENT_MAX];
	int nseen = 0;

	for (uint32_t i = lo, a;
	     nseen < RECEIVERS_MAX && rank__next_word(t, lo, hi, &i, &a);) {
		char *cls = seen[nseen];
		bool dot = i < hi && t[i] == '.',
		     sep = *qsep && strncmp(t + i, qsep, strlen(qsep)) == 0;
		int k;

		if ((!dot && !sep) ||
		    !type_name(w->q->lang, t, (ByteRange){a, i}, false, false,
			       cls) ||
		    strlen(cls) != i - a ||
		    (a > lo && (t[a - 1] == '.' || t[a - 1] == ':')))
			continue;
		for (k = 0; k < nseen && strcmp(seen[k], cls) != 0; k++)
			;
		if (k < nseen)
			continue;
		nseen++;
		calls_on(w, sc, cls, cls, ".");
		if (*qsep && strcmp(qsep, ".") != 0)
			calls_on(w, sc, cls, cls, qsep);
	}
}

/* Takes name[0, len) out of ids[0, *n), if there. */
static void drop_ident(Ident *ids, int *n, const char *name, size_t len)
{
	int k = rank__ident_find(ids, *n, name, len);

	if (k >= 0) {
		memmove(&ids[k], &ids[k + 1],
			(size_t)(*n - k - 1) * sizeof(ids[0]));
		(*n)--;
	}
}

/* A name the definition being written gives a type (a parameter, a
 * local assigned a constructor's result) is a local: its uses near the
 * cursor are no uses of the definitions that share its name. Nor, most
 * likely, are the uses of that name in the rest of the buffer and in
 * the bodies of its namesakes and of the definitions like it, which
 * name their parameters the same way: every function of go-yaml's
 * parserc.go takes `parser *yaml_parser_t`, and the `parser` struct of
 * decode.go took the third place for a name "used elsewhere in this
 * file" (on the Go set's check half, 14 tasks rose and none fell once
 * those uses went too). A member of the class being written keeps them:
 * Java's constructors name their parameters as the fields they set
 * (`this.method = method`), and those fields are what they use. */
static void drop_locals(Where *w, const TypedName *tn, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		const ByteRange *r = &tn[i].name;
		const char *name = w->q->text + r->start;
		size_t len = r->end - r->start;

		if (tn[i].member || r->start < w->own_start)
			continue;
		drop_ident(w->ids, &w->nids, name, len);
		if (rank__in_class(w, name, len))
			continue;
		drop_ident(w->fids, &w->nfids, name, len);
		drop_ident(w->sids, &w->nsids, name, len);
		drop_ident(w->simids, &w->nsimids, name, len);
	}
}

/* The calls on typed names and on classes in the bodies of the buffer's
 * definitions like the one being written (`c.Write(..)` for a `c *Conn`
 * parameter, Rust's `Span::new(..)`), each weighing the likeness share
 * of the definitions that make it: what they call, the code being
 * written is likely to. */
static void similar_calls(Where *w)
{
	const RankCursor *q = w->q;
	char recv[2 * IDENT_MAX], cls[IDENT_MAX];

	for (uint32_t i = 0; i < w->nlike; i++) {
		const Span *sp = w->like[i];
		Scan sc = {sp->body_start, sp->bytes.end, w->like_share[i],
			   i + 1};
		TypedName *tn;
		uint32_t n = chunker_typed_names(
		    q->lang, w->tree, sp->bytes.start, sp->bytes.end, &tn);

		for (uint32_t k = 0; k < n; k++)
			if (!tn[k].member && !outside_type(w, tn[k].type) &&
			    receiver_of(w, &tn[k], recv, sizeof(recv)) &&
			    type_name(q->lang, q->text, tn[k].type, tn[k].call,
				      lang_lower_types(q->lang), cls))
				calls_through(w, &sc, recv, cls);
		xfree(tn);
		static_members(w, &sc);
	}
}

void rank__receivers(Where *w)
{
	const RankCursor *q = w->q;
	uint32_t lo = w->q_lo, n;
	char recv[2 * IDENT_MAX], cls[IDENT_MAX];
	Scan near = {w->q_lo, q->cursor, 0, 0};
	TypedName *tn;

	/* From the outermost definition around the cursor: a class's
	 * __init__ types the self.x its other methods use. */
	for (uint32_t i = 0; i < w->live.nspans; i++)
		if (rank__around(w, &w->live.spans[i])) {
			if (w->live.spans[i].bytes.start < lo)
				lo = w->live.spans[i].bytes.start;
			break;
		}
	n = chunker_typed_names(q->lang, w->tree, lo, q->cursor, &tn);
	drop_locals(w, tn, n);
	/* The last typing of a name wins. */
	for (uint32_t i = n; i-- > 0;) {
		bool seen = false;

		if (!receiver_of(w, &tn[i], recv, sizeof(recv)))
			continue;
		for (uint32_t k = i + 1; k < n && !seen; k++) {
			char later[2 * IDENT_MAX];

			seen = receiver_of(w, &tn[k], later, sizeof(later)) &&
			       strcmp(later, recv) == 0;
		}
		if (seen)
			continue;
		if (!outside_type(w, tn[i].type) &&
		    type_name(q->lang, q->text, tn[i].type, tn[i].call,
			      lang_lower_types(q->lang), cls))
			calls_through(w, &near, recv, cls);
	}
	xfree(tn);
	static_members(w, &near);
	similar_calls(w);
}
