/*
 * pack.c: from ranked candidates to items. An item shows a definition
 * from its first line, at most RANK_ITEM_LINES lines (signature,
 * docstring, start of the body), and a chunk the RANK_ITEM_LINES lines
 * densest in the cursor's identifiers; either way whole lines, flagged
 * `clipped`. Items are packed greedily into the token budget in rank
 * order; at most PER_FILE come from one other file, and nothing overlaps
 * an item already taken. Texts and enclosing definitions are read for a
 * window of candidates at a time, one statement per root for each.
 */
#include "rank_int.h"

#include <string.h>

/* Candidates whose rows are read at once. */
#define FETCH_WINDOW 48
/* Bytes before a definition searched for the start of its line. */
#define LINE_BACK 256

/* The spans read so far for the enclosing definitions, per root. */
typedef struct {
	IndexSpan *sp;
	uint32_t n;
} Pool;

typedef struct {
	Where *w;
	Pool *pools;	       /* one per root: enclosing spans */
	Pool *kids;	       /* one per root: members of the classes read */
	const RankResult *out; /* the items taken so far */
	IdentIndex ids;	       /* the names near the cursor, for clip */
} Packer;

static bool turned_away(const Packer *pk, const Cand *c);

/* ---------------------------------------------------------------------- *
 * Reading rows for a window of candidates
 * ---------------------------------------------------------------------- */

/* The bytes read for a definition: from LINE_BACK before it (to find the
 * start of its line) to its end, at most ITEM_BYTES of it. */
static IndexTextRange raw_range(const Cand *c)
{
	uint32_t a = c->bytes.start, z = c->bytes.end;
	uint32_t back = a < LINE_BACK ? a : LINE_BACK;

	if (z - a > ITEM_BYTES)
		z = a + ITEM_BYTES;
	return (IndexTextRange){c->file_id, a - back, z};
}

static void pool_add(Pool *p, IndexSpan *sp, uint32_t n)
{
	if (!n)
		return;
	p->sp = xrealloc(p->sp, (p->n + n) * sizeof(*p->sp));
	memcpy(p->sp + p->n, sp, n * sizeof(*sp));
	p->n += n;
	xfree(sp);
}

/* Reads the texts and enclosing spans of the candidates of root r from
 * i on (a window of them) that have not been read, but for those take()
 * turns away unread. At 5 M lines most of a window's rows are pages the
 * cache does not hold, and a request whose items come from a few files
 * turned away most of the four windows it read. */
static void fetch_root(Packer *pk, uint32_t i, int r)
{
	Where *w = pk->w;
	Index *ix = w->q->roots[r].ix;
	IndexTextRange ranges[FETCH_WINDOW];
	int64_t parents[FETCH_WINDOW], classes[FETCH_WINDOW];
	Cand *which[FETCH_WINDOW];
	char *texts[FETCH_WINDOW];
	uint32_t nr = 0, np = 0, nc = 0, seen = 0, n;
	uint64_t before = index_statements(ix);
	IndexSpan *sp;

	for (uint32_t k = i; k < w->cs.n && seen < FETCH_WINDOW; k++) {
		Cand *c = &w->cs.c[k];

		if (c->score < rank__weights.score_min)
			break;
		if (c->from == FROM_LIVE || c->root != r || c->fetched ||
		    turned_away(pk, c))
			continue;
		seen++;
		c->fetched = true;
		if (c->parent)
			parents[np++] = c->parent;
		if (c->from == FROM_SPAN) {
			which[nr] = c;
			ranges[nr++] = raw_range(c);
			if (c->is_class)
				classes[nc++] = c->row;
		}
	}
	if (index_file_texts(ix, ranges, nr, texts) == 0)
		for (uint32_t k = 0; k < nr; k++)
			which[k]->raw = texts[k];
	if (index_span_chains(ix, parents, np, &sp, &n) == 0)
		pool_add(&pk->pools[r], sp, n);
	if (index_span_children_many(ix, classes, nc, RANK_ITEM_LINES, &sp,
				     &n) == 0)
		pool_add(&pk->kids[r], sp, n);
	w->statements += index_statements(ix) - before;
}

/* Reads a definition's text from the start of its first line: whole
 * lines, about RANK_ITEM_LINES of them at most. */
static bool load_text(Packer *pk, uint32_t i, Cand *c)
{
	const Where *w = pk->w;
	uint32_t a = c->bytes.start, z = c->bytes.end, back;
	char *t;

	if (c->from == FROM_CHUNK)
		return c->text != NULL;
	if (z - a > ITEM_BYTES) {
		z = a + ITEM_BYTES;
		c->clipped = true;
	}
	if (c->from == FROM_LIVE) {
		a = rank__line_start(w->q->text, a);
		t = xstrndup(w->q->text + a, z - a);
	} else {
		/* An indented method starts mid-line: back up to the start
		 * of its line. */
		if (!c->fetched)
			fetch_root(pk, i, c->root);
		if (!(t = c->raw))
			return false;
		c->raw = NULL;
		back = a < LINE_BACK ? a : LINE_BACK;
		a = back;
		while (a > 0 && t[a - 1] != '\n')
			a--;
		if (a == 0 && back == LINE_BACK) {
			xfree(t);
			return false;
		}
		memmove(t, t + a, strlen(t + a) + 1);
	}
	if (c->clipped) { /* cut at the last whole line */
		char *nl = strrchr(t, '\n');

		if (nl)
			nl[1] = '\0';
	}
	c->text = t;
	return true;
}

/* ---------------------------------------------------------------------- *
 * Clipping
 * ---------------------------------------------------------------------- */

/* Lines in t: its newlines, plus one for a last line without one. */
static uint32_t lines_in(const char *t, size_t n)
{
	uint32_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += t[i] == '\n';
	return k + (n && t[n - 1] != '\n');
}

/* The first of the RANK_ITEM_LINES lines of a chunk (line starts in
 * starts[0, nl], nl > RANK_ITEM_LINES) with the most identifiers the
 * cursor uses (ids). */
static uint32_t best_window(const char *t, const uint32_t *starts, uint32_t nl,
			    const IdentIndex *ids)
{
	double sc[CLIP_SCAN_LINES], win = 0, top = -1;
	uint32_t first = 0;

	for (uint32_t l = 0; l < nl; l++) {
		sc[l] = rank__line_value(t, starts[l], starts[l + 1], ids);
		win += sc[l];
		if (l >= RANK_ITEM_LINES)
			win -= sc[l - RANK_ITEM_LINES];
		if (l + 1 >= RANK_ITEM_LINES && win > top) {
			top = win;
			first = l + 1 - RANK_ITEM_LINES;
		}
	}
	return first;
}

/* Keeps at most RANK_ITEM_LINES whole lines of c->text: a definition's
 * first, or the best window of a chunk. Trailing blank lines go too;
 * c->lines follows the text. */
static void clip(Cand *c, const IdentIndex *ids)
{
	char *t = c->text;
	uint32_t len = (uint32_t)strlen(t), nl = 0, first = 0, last, a, z;
	uint32_t starts[CLIP_SCAN_LINES + 1];

	for (uint32_t i = 0; i < len && nl <= CLIP_SCAN_LINES; i++)
		if (i == 0 || t[i - 1] == '\n')
			starts[nl++] = i;
	if (nl > CLIP_SCAN_LINES)
		nl = CLIP_SCAN_LINES; /* starts[nl] is where the next begins */
	else
		starts[nl] = len;
	if (nl > RANK_ITEM_LINES && !rank__is_def(c))
		first = best_window(t, starts, nl, ids);
	c->last_line = c->lines.start + nl - 1;
	if (c->from == FROM_SPAN || c->from == FROM_LIVE)
		c->last_line = c->lines.end; /* the text read may be cut */
	last = first + RANK_ITEM_LINES < nl ? first + RANK_ITEM_LINES : nl;
	a = nl ? starts[first] : 0;
	z = nl ? starts[last] : 0;
	/* No trailing blank lines, but never nothing. */
	while (last > first + 1 && strspn(t + starts[last - 1], " \t\r\n") >=
				       starts[last] - starts[last - 1])
		z = starts[--last];
	if (a > 0 || z < len)
		c->clipped = true;
	memmove(t, t + a, z - a);
	t[z - a] = '\0';
	c->lines.start += first;
	c->lines.end = c->lines.start + lines_in(t, z - a) - (z - a ? 1 : 0);
	/* Whole lines: a definition's text stops at its last token. */
	if (z > a && t[z - a - 1] != '\n') {
		c->text = xrealloc(t, z - a + 2);
		memcpy(c->text + (z - a), "\n", 2);
	}
}

/* ---------------------------------------------------------------------- *
 * Outlines of classes
 * ---------------------------------------------------------------------- */

/* A member of the class an outline shows: where it starts and its
 * header (its signature, decorators included). */
typedef struct {
	LineRange lines;
	const char *header;
} Member;

/* The members of class c, in order, into m (at most cap). */
static uint32_t members_of(const Packer *pk, const Cand *c, Member *m,
			   uint32_t cap)
{
	uint32_t n = 0;

	if (c->from == FROM_LIVE) {
		const Chunking *lc = &pk->w->live;

		for (uint32_t i = 0; i < lc->nspans && n < cap; i++)
			if (lc->spans[i].parent == (int32_t)c->row)
				m[n++] = (Member){lc->spans[i].lines,
						  lc->spans[i].header};
		return n;
	}
	for (uint32_t i = 0; i < pk->kids[c->root].n && n < cap; i++) {
		const IndexSpan *k = &pk->kids[c->root].sp[i];

		if (k->parent_id == c->row)
			m[n++] = (Member){k->lines, k->header};
	}
	return n;
}

/* The indentation of the first line of t after its first that holds
 * more than white space: how the class's body is indented. */
static size_t body_indent(const char *t, const char **at)
{
	const char *p = strchr(t, '\n');

	while (p && *++p) {
		size_t n = strspn(p, " \t");

		if (p[n] != '\n' && p[n] != '\r' && p[n]) {
			*at = p;
			return n;
		}
		p = strchr(p, '\n');
	}
	*at = "";
	return 0;
}

/* Replaces a class's clipped text by its outline: its first lines up to
 * its first member (OUTLINE_LEAD at most), then each member's header, as
 * many as RANK_ITEM_LINES allow. Its range runs from the class's first
 * line to the last header shown that starts within OUTLINE_SPAN lines of
 * it: a short class's outline stands for the class, signatures and all
 * (`new E(...)` needs the constructor's), while the range of a long
 * one's stops there, though its text lists more. */
static void outline(const Packer *pk, Cand *c)
{
	Member m[RANK_ITEM_LINES];
	uint32_t n = members_of(pk, c, m, RANK_ITEM_LINES), lead, shown = 0;
	uint32_t first = 0, last = 0;
	const char *t = c->text, *ind;
	size_t indent = body_indent(t, &ind);
	Buf b = {0};

	if (n == 0)
		return;
	/* The lead: the class's first lines, through whole members while
	 * they fit (a constructor says what the object holds). */
	lead = m[0].lines.start > c->lines.start
		   ? m[0].lines.start - c->lines.start
		   : 1;
	while (first < n &&
	       m[first].lines.end + 1 - c->lines.start <= OUTLINE_LEAD)
		lead = m[first++].lines.end + 1 - c->lines.start;
	if (lead > OUTLINE_LEAD)
		lead = OUTLINE_LEAD;
	for (const char *p = t; *p && shown < lead; shown++) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) + 1 : strlen(p);

		buf_append(&b, p, len);
		p += len;
	}
	for (uint32_t i = first; i < n && shown < RANK_ITEM_LINES; i++) {
		const char *h = m[i].header;
		size_t len = strlen(h);

		if (m[i].lines.start < c->lines.start + OUTLINE_SPAN)
			last = m[i].lines.start;

		while (len && is_space_byte((unsigned char)h[len - 1]))
			len--;
		buf_append(&b, ind, indent);
		buf_append(&b, h, len);
		buf_puts(&b, "\n");
		for (size_t k = 0; k < len; k++)
			shown += h[k] == '\n';
		shown++;
	}
	xfree(c->text);
	c->text = buf_take(&b);
	c->clipped = c->outlined = true;
	c->lines.end = c->whole_end = c->lines.start + lead - 1;
	if (last > c->lines.end)
		c->lines.end = last;
}

/* ---------------------------------------------------------------------- *
 * Items
 * ---------------------------------------------------------------------- */

static void parent_add(RankItem *it, SpanKind kind, const char *name,
		       LineRange lines, const char *header)
{
	RankParent *p;

	it->parents =
	    xrealloc(it->parents, (it->nparents + 1) * sizeof(*it->parents));
	p = &it->parents[it->nparents++];
	p->kind = kind;
	p->name = xstrdup(name);
	p->lines = lines;
	p->header = xstrdup(header);
}

static const IndexSpan *pool_find(const IndexSpan *sp, uint32_t n, int64_t id)
{
	for (uint32_t i = 0; i < n; i++)
		if (sp[i].id == id)
			return &sp[i];
	return NULL;
}

void rank__parents_from(const IndexSpan *pool, uint32_t n, int64_t parent,
			uint32_t before, RankItem *it, const char **inner)
{
	const IndexSpan *chain[CHAIN_MAX];
	int depth = 0;

	for (int64_t sid = parent; sid && depth < CHAIN_MAX;) {
		const IndexSpan *s = pool_find(pool, n, sid);

		if (!s)
			break;
		chain[depth++] = s;
		sid = s->parent_id;
	}
	if (depth)
		*inner = chain[0]->qualname;
	/* A span the item starts with is its own definition, not an
	 * enclosing one: its header is already in the text. */
	while (depth--)
		if (chain[depth]->bytes.start < before)
			parent_add(it, chain[depth]->kind,
				   chain[depth]->qualname, chain[depth]->lines,
				   chain[depth]->header);
}

/* The headers of the spans around c, outermost first. */
static void parents_of(Packer *pk, Cand *c, RankItem *it)
{
	const Where *w = pk->w;
	const char *inner = NULL;

	if (c->from == FROM_LIVE) {
		int32_t chain[CHAIN_MAX];
		int n = 0;

		for (int32_t p = c->live_parent; p >= 0 && n < CHAIN_MAX;
		     p = w->live.spans[p].parent)
			chain[n++] = p;
		while (n--) {
			const Span *sp = &w->live.spans[chain[n]];

			parent_add(it, sp->kind, sp->qualname, sp->lines,
				   sp->header);
		}
		return;
	}
	rank__parents_from(pk->pools[c->root].sp, pk->pools[c->root].n,
			   c->parent, c->bytes.start, it, &inner);
	if (c->from == FROM_CHUNK && inner && !c->symbol[0]) {
		xfree(c->symbol);
		c->symbol = xstrdup(inner);
	}
}

/* Ends a clipped text with a line that says it continues, in a comment
 * of its language, indented as its last line. */
static void mark_clipped(Cand *c)
{
	const char *com = lang_line_comment(c->lang), *t = c->text;
	const char *last = t + strlen(t);
	uint32_t more =
	    c->last_line > c->lines.end ? c->last_line - c->lines.end : 0;
	Buf b = {0};

	while (last > t && last[-1] == '\n')
		last--;
	while (last > t && last[-1] != '\n')
		last--;
	buf_puts(&b, t);
	buf_append(&b, last, strspn(last, " \t"));
	buf_printf(&b, "%s%s... ", com, *com ? " " : "");
	if (c->outlined)
		buf_puts(&b, "an outline: the bodies are left out\n");
	else if (more)
		buf_printf(&b, "%u more line%s\n", more, more == 1 ? "" : "s");
	else
		buf_puts(&b, "clipped\n");
	xfree(c->text);
	c->text = buf_take(&b);
}

/* Moves what candidate c knows into item it. */
static void item_of(Packer *pk, Cand *c, RankItem *it)
{
	RankSignals *g = &it->signals;
	size_t cost = strlen(c->text);

	memset(it, 0, sizeof(*it));
	if (c->clipped)
		mark_clipped(c);
	parents_of(pk, c, it);
	for (uint32_t i = 0; i < it->nparents; i++)
		cost += strlen(it->parents[i].header) + 1;
	it->root = c->root;
	it->in_buffer = c->from == FROM_LIVE;
	it->path = xstrdup(c->path);
	it->lang = c->lang;
	it->kind = c->kind;
	it->lines = c->lines;
	it->symbol = xstrdup(c->symbol);
	it->score = c->score;
	it->clipped = c->clipped;
	it->text = xstrdup(c->text);
	it->tokens = rank_tokens(cost);
	g->bm25 = c->bm25;
	g->definition = c->mention;
	g->defines = xstrdup(c->defined);
	g->file_use = c->file_use;
	g->sibling = c->sibling;
	g->similar = c->similar;
	g->namesakes = c->namesakes;
	g->import = c->imported;
	g->declared = c->declared && !c->imported;
	g->imported_name = c->import_name;
	g->unused_import = c->import_unused;
	g->member = c->member;
	g->receiver = c->receiver;
	g->same_file = c->same_file;
	g->definition_item = rank__is_def(c);
	g->lines_away = c->near;
	g->uses_in_file = c->uses;
	g->callers = c->callers;
	g->functions = pk->w->words.nfns;
	g->unused_private = c->unused_private;
	g->joined = xstrdup(c->joined);
}

void rank__item_clear(RankItem *it)
{
	for (uint32_t i = 0; i < it->nparents; i++) {
		xfree(it->parents[i].name);
		xfree(it->parents[i].header);
	}
	xfree(it->parents);
	xfree(it->path);
	xfree(it->symbol);
	xfree(it->text);
	xfree(it->signals.defines);
	xfree(it->signals.joined);
	memset(it, 0, sizeof(*it));
}

/* The last line c shows whole: of an outline, the end of its lead. */
static uint32_t whole_end(const Cand *c)
{
	return c->outlined ? c->whole_end : c->lines.end;
}

/* Whether both are items of one file's lines. */
static bool same_file(const Cand *c, const Cand *d)
{
	return c->root == d->root && strcmp(c->path, d->path) == 0;
}

/* Whether an item taken holds a line c shows whole. An outline holds
 * the lines of the member headers it lists: an item among them, ranked
 * below it, would add a body to a signature already shown, unless it is
 * the method the one being written overrides. Those of c do not count:
 * it yields them (outline_yield). */
static bool overlaps_taken(const Cands *cs, uint32_t upto, const Cand *c)
{
	for (uint32_t k = 0; k < upto; k++) {
		const Cand *d = &cs->c[k];
		uint32_t end = c->overrides ? whole_end(d) : d->lines.end;

		if (d->taken && d->lines.start <= whole_end(c) &&
		    c->lines.start <= end && same_file(c, d))
			return true;
	}
	return false;
}

/* Outline o's range ends before item in, which starts among the lines
 * o's member headers stand for. */
static void outline_yield(Cand *o, const Cand *in, RankResult *out)
{
	if (!o->outlined || in->lines.start <= o->whole_end ||
	    in->lines.start > o->lines.end)
		return;
	o->lines.end = in->lines.start - 1;
	out->items[o->item].lines.end = o->lines.end;
}

/* No line is in two items: an outline ends before an item of its member
 * headers' lines ranked above it, or before the overridden method shown
 * below it. c is taken now. */
static void outlines_yield(Cands *cs, Cand *c, RankResult *out)
{
	for (uint32_t k = 0; k < cs->n; k++) {
		Cand *d = &cs->c[k];

		if (d == c || !d->taken || !same_file(c, d))
			continue;
		if (c->overrides)
			outline_yield(d, c, out);
		outline_yield(c, d, out);
	}
}

/* The length of path without its extension: a module's source, its
 * declarations and its compiled form (x.ts, x.d.ts, x.js) share it. */
static size_t module_len(const char *path)
{
	const char *slash = strrchr(path, '/'),
		   *base = slash ? slash + 1 : path;
	const char *dot = strchr(base, '.');

	return dot && dot != base ? (size_t)(dot - path) : strlen(path);
}

/* Whether an item already taken shows what c would: the same definition
 * of the same module in another form, or the same text (a vendored
 * copy). */
static bool shown_already(const Cands *cs, uint32_t upto, const Cand *c)
{
	size_t ml = module_len(c->path);

	for (uint32_t k = 0; k < upto; k++) {
		const Cand *d = &cs->c[k];

		if (!d->taken)
			continue;
		if (c->symbol[0] && strcmp(d->symbol, c->symbol) == 0 &&
		    module_len(d->path) == ml &&
		    memcmp(d->path, c->path, ml) == 0)
			return true;
		if (c->text && d->text && strcmp(c->text, d->text) == 0)
			return true;
	}
	return false;
}

static uint32_t taken_from(const Cands *cs, uint32_t upto, const Cand *c)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < upto; k++)
		n += cs->c[k].taken && same_file(&cs->c[k], c);
	return n;
}

/* No more tokens than definition c's item will cost, known before its
 * text is read: one of at most RANK_ITEM_LINES lines and ITEM_BYTES is
 * shown whole; a longer one by its first lines, at least a byte each,
 * unless it is a class, whose outline may be a line. Once the budget is
 * nearly spent, this turns away most of what is left without reading
 * it; on a large workspace that is hundreds of candidates above
 * score_min, and reading their texts cost more than the rest of the
 * packing. Other candidates' texts are at hand: 1. */
static uint32_t tokens_at_least(const Cand *c)
{
	uint32_t lines = c->lines.end - c->lines.start + 1,
		 bytes = c->bytes.end - c->bytes.start;

	if (c->from != FROM_SPAN)
		return 1;
	if (lines > RANK_ITEM_LINES || bytes > ITEM_BYTES)
		return c->is_class ? 1 : rank_tokens(RANK_ITEM_LINES);
	return rank_tokens(bytes);
}

/* Whether take() turns c away before reading its text, as it will from
 * now on: its file has its share of the items, or it cannot fit what is
 * left of the budget. */
static bool turned_away(const Packer *pk, const Cand *c)
{
	const Cands *cs = &pk->w->cs;

	return taken_from(cs, cs->n, c) >=
		   (c->same_file ? PER_SAME_FILE : PER_FILE) ||
	       tokens_at_least(c) > pk->w->q->budget - pk->out->used;
}

/* Takes candidate i as the next item if it fits: not too many from its
 * file, not shown already, within the budget. */
static bool take(Packer *pk, uint32_t i, RankResult *out)
{
	const RankCursor *q = pk->w->q;
	Cands *cs = &pk->w->cs;
	Cand *c = &cs->c[i];
	RankItem *it = &out->items[out->nitems];

	if (turned_away(pk, c) ||
	    (c->from != FROM_LIVE && !q->roots[c->root].ix) ||
	    shown_already(cs, cs->n, c))
		return false;
	/* Rows of a file that changed or vanished on disk are not shown:
	 * the buffer's own are checked against its text instead. */
	if (c->from != FROM_LIVE && !c->same_file &&
	    !index_file_current(q->roots[c->root].ix, c->file_id)) {
		out->stale++;
		if (c->root >= 0 && c->root < 64)
			out->stale_roots |= (uint64_t)1 << c->root;
		return false;
	}
	if (!load_text(pk, i, c))
		return false;
	clip(c, &pk->ids);
	if (c->is_class && c->clipped)
		outline(pk, c);
	if (overlaps_taken(cs, cs->n, c) || shown_already(cs, cs->n, c) ||
	    rank_tokens(strlen(c->text)) > q->budget - out->used)
		return false;
	if (c->from != FROM_LIVE && !c->fetched)
		fetch_root(pk, i, c->root);
	item_of(pk, c, it);
	/* A chunk's symbol is known only now. */
	if (it->tokens > q->budget - out->used || shown_already(cs, cs->n, c)) {
		rank__item_clear(it);
		return false;
	}
	out->used += it->tokens;
	c->item = out->nitems++;
	c->taken = true;
	outlines_yield(cs, c, out);
	return true;
}

void rank__pack(Where *w, RankResult *out)
{
	const RankCursor *q = w->q;
	uint32_t limit = q->limit ? q->limit : RANK_DEFAULT_LIMIT;
	uint32_t *later = xmalloc((w->cs.n + 1) * sizeof(*later));
	uint32_t nlater = 0, same_top = 0, unnamed_top = 0;
	Packer pk = {.w = w,
		     .pools = xcalloc(q->nroots + 1, sizeof(Pool)),
		     .kids = xcalloc(q->nroots + 1, sizeof(Pool)),
		     .out = out};
	Cands *cs = &w->cs;

	rank__ident_index(&pk.ids, w->ids, w->nids);
	out->items = xcalloc(limit, sizeof(*out->items));
	for (uint32_t i = 0; i < cs->n && out->nitems < limit; i++) {
		Cand *c = &cs->c[i];

		if (c->score < rank__weights.score_min)
			break;
		/* The first items leave room for other files: the editor's
		 * prompt already holds much of this one, above all what
		 * ranks for being close or for matching words, not for a
		 * name used near the cursor. The rest wait. */
		if (c->same_file && out->nitems < TOP_ITEMS &&
		    (same_top >= TOP_SAME_FILE ||
		     (c->mention <= 0 && unnamed_top >= TOP_UNNAMED))) {
			later[nlater++] = i;
			continue;
		}
		if (take(&pk, i, out) && c->same_file &&
		    out->nitems <= TOP_ITEMS) {
			same_top++;
			unnamed_top += c->mention <= 0;
		}
		if (out->nitems == TOP_ITEMS)
			for (uint32_t k = 0; k < nlater && out->nitems < limit;
			     k++)
				take(&pk, later[k], out);
		if (out->nitems >= TOP_ITEMS)
			nlater = 0;
	}
	for (uint32_t k = 0; k < nlater && out->nitems < limit; k++)
		take(&pk, later[k], out);
	for (uint32_t r = 0; r < q->nroots; r++) {
		index_spans_free(pk.pools[r].sp, pk.pools[r].n);
		index_spans_free(pk.kids[r].sp, pk.kids[r].n);
	}
	xfree(pk.pools);
	xfree(pk.kids);
	xfree(later);
}
