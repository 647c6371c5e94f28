/*
 * words.c: identifiers in the code near the cursor, and how often the
 * buffer uses each word.
 */
#include "rank_int.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool rank__ident_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c == '$' || c >= 0x80;
}

bool rank__ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

bool rank__next_word(const char *text, uint32_t lo, uint32_t hi, uint32_t *i,
		     uint32_t *a)
{
	while (*i < hi &&
	       (!rank__ident_start((unsigned char)text[*i]) ||
		(*i > lo && rank__ident_char((unsigned char)text[*i - 1]))))
		(*i)++;
	if (*i >= hi)
		return false;
	*a = *i;
	while (*i < hi && rank__ident_char((unsigned char)text[*i]))
		(*i)++;
	return true;
}

bool rank__called_at(const char *text, uint32_t hi, uint32_t z)
{
	while (z < hi && (text[z] == ' ' || text[z] == '\t'))
		z++;
	return z < hi && text[z] == '(';
}

bool rank__member_at(const char *t, uint32_t lo, uint32_t hi, uint32_t i,
		     const char *prefix, size_t plen, const char *sep,
		     uint32_t *a, uint32_t *z)
{
	size_t sl = strlen(sep);

	if (sl == 0 || i + plen + sl >= hi ||
	    memcmp(t + i, prefix, plen) != 0 ||
	    memcmp(t + i + plen, sep, sl) != 0 ||
	    (i > lo && (rank__ident_char((unsigned char)t[i - 1]) ||
			t[i - 1] == '.' || t[i - 1] == sep[sl - 1])))
		return false;
	*a = *z = i + (uint32_t)(plen + sl);
	while (*z < hi && rank__ident_char((unsigned char)t[*z]))
		(*z)++;
	return *z > *a && *z - *a < IDENT_MAX &&
	       rank__ident_start((unsigned char)t[*a]);
}

/* ---------------------------------------------------------------------- *
 * Identifiers near the cursor
 * ---------------------------------------------------------------------- */

static int cmp_ident(const void *a, const void *b)
{
	double x = ((const Ident *)a)->weight, y = ((const Ident *)b)->weight;

	return x < y ? 1 : x > y ? -1 : 0;
}

void rank__add_use(double *acc, uint32_t line_gap)
{
	double w = 1.0 / (1.0 + (double)line_gap / 8.0);

	*acc = *acc ? fmax(*acc, w) + 0.1 * w : w;
}

void rank__idents_sort(Ident *ids, int n)
{
	qsort(ids, (size_t)n, sizeof(*ids), cmp_ident);
}

int rank__idents(Lang lang, const char *text, uint32_t lo, uint32_t hi,
		 uint32_t cursor_line, uint32_t first_line,
		 const ByteRange *skip, uint32_t nskip, Ident *out, int cap)
{
	int n = 0;
	uint32_t line = first_line, seen = lo, s = 0;

	for (uint32_t i = lo, a; rank__next_word(text, lo, hi, &i, &a);) {
		uint32_t len = i - a;
		int k;

		for (; seen < a; seen++)
			line += text[seen] == '\n';
		while (s < nskip && skip[s].end <= a)
			s++;
		if (len < 2 || len >= IDENT_MAX ||
		    (s < nskip && skip[s].start <= a) ||
		    lang_is_stopword(lang, text + a, len))
			continue;
		if ((k = rank__ident_find(out, n, text + a, len)) < 0) {
			k = n;
			if (n == cap)
				continue;
			memcpy(out[n].name, text + a, len);
			out[n].name[len] = '\0';
			out[n++].weight = 0;
		}
		rank__add_use(&out[k].weight, cursor_line - line);
	}
	rank__idents_sort(out, n);
	return n;
}

/* The slot of a small table of names where name[0, len) is in out, or
 * the empty one (-1) where it goes. */
static uint32_t ident_slot(const int16_t *slot, uint32_t mask, const Ident *out,
			   const char *name, uint32_t len)
{
	uint32_t h = 2166136261u;

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 16777619u;
	for (uint32_t i = h & mask;; i = (i + 1) & mask)
		if (slot[i] < 0 ||
		    (strncmp(out[slot[i]].name, name, len) == 0 &&
		     !out[slot[i]].name[len]))
			return i;
}

int rank__file_idents(Lang lang, const char *text, uint32_t lo, uint32_t hi,
		      ByteRange hole, uint32_t cursor_line, uint32_t first_line,
		      const ByteRange *skip, uint32_t nskip, Ident *out,
		      int cap)
{
	int16_t slot[4 * FILE_IDENTS_CAP];
	uint32_t mask = sizeof(slot) / sizeof(*slot) - 1;
	uint32_t line = first_line, seen = lo, s = 0;
	int n = 0;

	if (cap > FILE_IDENTS_CAP)
		cap = FILE_IDENTS_CAP;
	memset(slot, 0xff, sizeof(slot));
	for (uint32_t i = lo, a; rank__next_word(text, lo, hi, &i, &a);) {
		uint32_t len = i - a, d;
		int16_t *k;

		for (; seen < a; seen++)
			line += text[seen] == '\n';
		while (s < nskip && skip[s].end <= a)
			s++;
		if ((a >= hole.start && a < hole.end) || len < 2 ||
		    len >= IDENT_MAX || (s < nskip && skip[s].start <= a))
			continue;
		k = &slot[ident_slot(slot, mask, out, text + a, len)];
		if (*k < 0) {
			if (n == cap)
				continue;
			memcpy(out[n].name, text + a, len);
			out[n].name[len] = '\0';
			/* A stopword stays, marked, so that it is looked for
			 * in the language's list once. */
			out[n].weight =
			    lang_is_stopword(lang, text + a, len) ? -1 : 0;
			*k = (int16_t)n++;
		}
		if (out[*k].weight < 0)
			continue;
		d = line > cursor_line ? line - cursor_line
				       : cursor_line - line;
		out[*k].weight += 1.0 / (1.0 + (double)d / FILE_NEAR_LINES);
	}
	rank__idents_sort(out, n);
	while (n && out[n - 1].weight < 0)
		n--;
	return n;
}

int rank__ident_find(const Ident *ids, int nids, const char *name, size_t len)
{
	for (int k = 0; k < nids; k++)
		if (strncmp(ids[k].name, name, len) == 0 &&
		    ids[k].name[len] == '\0')
			return k;
	return -1;
}

double rank__mention(const Ident *ids, int nids, const char *name)
{
	int k = rank__ident_find(ids, nids, name, strlen(name));

	return k < 0 ? 0 : ids[k].weight;
}

void rank__ident_index(IdentIndex *x, const Ident *ids, int nids)
{
	uint32_t mask = sizeof(x->slot) / sizeof(*x->slot) - 1;

	x->ids = ids;
	memset(x->slot, 0xff, sizeof(x->slot));
	for (int k = 0; k < nids && k < IDENTS_CAP; k++) {
		int16_t *at =
		    &x->slot[ident_slot(x->slot, mask, ids, ids[k].name,
					(uint32_t)strlen(ids[k].name))];

		if (*at < 0)
			*at = (int16_t)k;
	}
}

double rank__line_value(const char *t, uint32_t a, uint32_t z,
			const IdentIndex *x)
{
	uint32_t mask = sizeof(x->slot) / sizeof(*x->slot) - 1;
	double v = 0;

	/* Unlike rank__next_word, the tail of "3abc" counts as a word. */
	for (uint32_t i = a; i < z;) {
		uint32_t s = i;
		int16_t k;

		if (!rank__ident_start((unsigned char)t[i])) {
			i++;
			continue;
		}
		while (i < z && rank__ident_char((unsigned char)t[i]))
			i++;
		if (i - s < IDENT_MAX &&
		    (k = x->slot[ident_slot(x->slot, mask, x->ids, t + s,
					    i - s)]) >= 0)
			v += x->ids[k].weight;
	}
	return v;
}

/* ---------------------------------------------------------------------- *
 * How often the buffer uses each word
 * ---------------------------------------------------------------------- */

static uint32_t word_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

static Word *word_slot(const Words *ws, const char *s, size_t n)
{
	for (uint32_t i = word_hash(s, n) & ws->mask;; i = (i + 1) & ws->mask) {
		Word *w = &ws->slot[i];

		if (w->len == 0 ||
		    (w->len == n && memcmp(ws->text + w->at, s, n) == 0))
			return w;
	}
}

/* Doubles the table. */
static void words_grow(Words *ws)
{
	Word *old = ws->slot;
	uint32_t cap = ws->mask + 1;

	ws->mask = cap * 2 - 1;
	ws->slot = xcalloc(cap * 2, sizeof(*ws->slot));
	for (uint32_t k = 0; k < cap; k++)
		if (old[k].len)
			*word_slot(ws, ws->text + old[k].at, old[k].len) =
			    old[k];
	xfree(old);
}

/* Whether the word at text[a, z) is a call by its bare name: `f (`, not
 * `x.f(`, `p->f(`, `T::f(` (some other scope's f) nor `f` alone (a
 * local or a parameter of that name, more often than not). */
static bool bare_call(const char *text, uint32_t len, uint32_t a, uint32_t z)
{
	if (a > 0 && (text[a - 1] == '.' ||
		      (a > 1 && ((text[a - 2] == '-' && text[a - 1] == '>') ||
				 (text[a - 2] == ':' && text[a - 1] == ':')))))
		return false;
	return rank__called_at(text, len, z);
}

/* Counts every identifier of text[0, len), and its callers among
 * fns[0, nfns) (a function's own name in its header is no call); the
 * table stays at most half full. */
void rank__words_count(Words *ws, const char *text, uint32_t len,
		       const FnRange *fns, uint32_t nfns)
{
	uint32_t f = 0;

	ws->text = text;
	ws->mask = 1023;
	ws->n = 0;
	ws->nfns = nfns;
	ws->slot = xcalloc(ws->mask + 1, sizeof(*ws->slot));
	for (uint32_t i = 0, a; rank__next_word(text, 0, len, &i, &a);) {
		Word *w = word_slot(ws, text + a, i - a);

		if (!w->len) {
			*w = (Word){a, i - a, 0, 0, -1};
			if (++ws->n * 2 > ws->mask) {
				words_grow(ws);
				w = word_slot(ws, text + a, i - a);
			}
		}
		w->count++;
		while (f < nfns && fns[f].bytes.end <= a)
			f++;
		if (f < nfns && fns[f].bytes.start <= a &&
		    w->last != (int32_t)f && bare_call(text, len, a, i) &&
		    (strlen(fns[f].name) != i - a ||
		     memcmp(fns[f].name, text + a, i - a) != 0)) {
			w->callers++;
			w->last = (int32_t)f;
		}
	}
}

uint32_t rank__words_callers(const Words *ws, const char *s, size_t n)
{
	return ws->slot ? word_slot(ws, s, n)->callers : 0;
}

uint32_t rank__words_get(const Words *ws, const char *s, size_t n)
{
	return ws->slot ? word_slot(ws, s, n)->count : 0;
}

void rank__words_free(Words *ws)
{
	xfree(ws->slot);
	memset(ws, 0, sizeof(*ws));
}
