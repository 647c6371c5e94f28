/*
 * ignore.c: gitignore patterns compiled to a small NFA and matched by
 * simulating the whole set of states at once.
 *
 * A pattern becomes an array of tokens. State k means "tokens [0, k) have
 * matched"; state ntok accepts. Every epsilon move goes forward (k to k+1
 * or to a later jump target), so one ascending pass computes a closure.
 * The state set is a bitset of at most IGNORE_PATTERN_MAX + 1 bits, so a
 * match costs O(text x pattern) time and no heap at all.
 */
#include "ignore.h"

#include <ctype.h>
#include <stdint.h>
#include <string.h>

#include "base/base.h"

/* ---------------------------------------------------------------------- *
 * Compiled patterns
 * ---------------------------------------------------------------------- */

typedef enum {
	TOK_LIT,      /* the byte ch */
	TOK_ANY,      /* `?`: one byte other than '/' */
	TOK_CLASS,    /* `[...]`: one byte other than '/' in classes[arg] */
	TOK_STAR,     /* `*`: a run of bytes other than '/'; epsilon */
	TOK_STARSTAR, /* `**` component: any run of bytes; epsilon */
	TOK_SKIP,     /* epsilon to k + 1, or to arg past a `**` and '/' */
} TokKind;

typedef struct {
	uint8_t kind; /* TokKind */
	uint8_t ch;   /* TOK_LIT */
	uint16_t arg; /* TOK_CLASS: class index; TOK_SKIP: jump target */
} Tok;

/* One set of bytes, a bit per byte value. */
typedef struct {
	uint8_t bits[32];
} ByteSet;

enum {
	RULE_NEGATE = 1 << 0,	/* `!pattern`: re-includes */
	RULE_DIRONLY = 1 << 1,	/* `pattern/`: directories only */
	RULE_ANCHORED = 1 << 2, /* has a '/': matched against the path */
	RULE_LITERAL = 1 << 3,	/* only TOK_LIT: compared with memcmp */
	RULE_ENDSWITH = 1 << 4, /* `*` then only TOK_LIT, like `*.o` */
};

typedef struct {
	char *dir;	  /* owned, NUL-terminated; "" for the root */
	size_t dirlen;	  /* bytes */
	Tok *toks;	  /* owned, ntok entries */
	size_t ntok;	  /* <= IGNORE_PATTERN_MAX */
	ByteSet *classes; /* owned, NULL when there are none */
	char *lit;	  /* owned when RULE_LITERAL: the ntok bytes */
	unsigned flags;	  /* RULE_* */
	/* A prefilter: every match is at least minlen bytes, starts with
	 * the npre literal tokens, ends with the nsuf literal tokens and
	 * contains need (owned, nneed bytes, NULL when not useful). */
	size_t minlen, npre, nsuf;
	char *need;
	size_t nneed;
	ByteSet bytes; /* bytes every match holds (its fixed literals) */
} Rule;

struct Ignore {
	Rule *rules; /* in the order added; later ones take precedence */
	size_t n, cap;
	size_t partial; /* paths matched against part of the rules */
};

#define SET_WORDS ((IGNORE_PATTERN_MAX + 1 + 63) / 64)

static void byteset_add(ByteSet *s, unsigned char c)
{
	s->bits[c >> 3] |= (uint8_t)(1u << (c & 7));
}

static bool byteset_has(const ByteSet *s, unsigned char c)
{
	return (s->bits[c >> 3] >> (c & 7)) & 1;
}

static void rule_free(Rule *r)
{
	xfree(r->dir);
	xfree(r->toks);
	xfree(r->classes);
	xfree(r->lit);
	xfree(r->need);
}

/* ---------------------------------------------------------------------- *
 * Parsing one pattern
 * ---------------------------------------------------------------------- */

/* The POSIX classes allowed inside brackets, as `[:name:]`. */
static const struct {
	const char *name;
	int (*test)(int c);
} posix_classes[] = {
    {"alnum", isalnum}, {"alpha", isalpha}, {"blank", isblank},
    {"cntrl", iscntrl}, {"digit", isdigit}, {"graph", isgraph},
    {"lower", islower}, {"print", isprint}, {"punct", ispunct},
    {"space", isspace}, {"upper", isupper}, {"xdigit", isxdigit},
};

/* Adds the ASCII members of the class named by the n bytes at name.
 * False for an unknown name. Only ASCII is tested so the result does not
 * depend on the locale. */
static bool byteset_add_posix(ByteSet *s, const char *name, size_t n)
{
	size_t i;
	int c;

	for (i = 0; i < sizeof(posix_classes) / sizeof(posix_classes[0]); i++) {
		if (strlen(posix_classes[i].name) != n ||
		    memcmp(posix_classes[i].name, name, n) != 0)
			continue;
		for (c = 0; c < 128; c++)
			if (posix_classes[i].test(c))
				byteset_add(s, (unsigned char)c);
		return true;
	}
	return false;
}

/*
 * Parses the bracket expression that starts at p[*i] == '[' into s and
 * moves *i past its closing ']'. As in git, a ']' right after the opening
 * (or after `!`/`^`) is a member, a '-' first or last is a member, and a
 * backslash makes the next byte a member. False when the bracket is not
 * closed or names an unknown class: git then matches nothing, so the
 * caller drops the pattern.
 */
static bool parse_class(const char *p, size_t n, size_t *i, ByteSet *s)
{
	size_t k = *i + 1, start;
	bool negate = false;
	unsigned lo, hi, c;

	memset(s, 0, sizeof(*s));
	if (k < n && (p[k] == '!' || p[k] == '^')) {
		negate = true;
		k++;
	}
	for (start = k;;) {
		if (k >= n)
			return false;
		if (p[k] == ']' && k > start)
			break;
		if (p[k] == '[' && k + 1 < n && p[k + 1] == ':') {
			const char *name = p + k + 2;
			const char *end = memchr(name, ':', n - k - 2);

			if (end && end + 1 < p + n && end[1] == ']') {
				if (!byteset_add_posix(s, name,
						       (size_t)(end - name)))
					return false;
				k = (size_t)(end - p) + 2;
				continue;
			}
		}
		if (p[k] == '\\' && ++k >= n)
			return false;
		lo = (unsigned char)p[k++];
		if (k + 1 < n && p[k] == '-' && p[k + 1] != ']') {
			k++;
			if (p[k] == '\\' && ++k >= n)
				return false;
			hi = (unsigned char)p[k++];
			for (c = lo; c <= hi; c++)
				byteset_add(s, (unsigned char)c);
		} else {
			byteset_add(s, (unsigned char)lo);
		}
	}
	if (negate)
		for (c = 0; c < 32; c++)
			s->bits[c] = (uint8_t)~s->bits[c];
	*i = k + 1;
	return true;
}

/* Appends a token; r->toks has room for IGNORE_PATTERN_MAX of them. */
static void emit(Rule *r, TokKind kind, unsigned char ch, size_t arg)
{
	Tok *t = &r->toks[r->ntok++];

	t->kind = (uint8_t)kind;
	t->ch = ch;
	t->arg = (uint16_t)arg;
}

/* True when the last tokens are a `**` + '/' group (the only place a
 * TOK_SKIP jumps to the end, followed by TOK_STARSTAR). */
static bool after_starstar_slash(const Rule *r)
{
	const Tok *t;

	if (r->ntok < 3)
		return false;
	t = r->toks + r->ntok - 3;
	return t[0].kind == TOK_SKIP && t[0].arg == r->ntok &&
	       t[1].kind == TOK_STARSTAR && t[2].kind == TOK_LIT &&
	       t[2].ch == '/';
}

/* Compiles a run of stars at p[*i]. A run of two or more that fills a
 * whole path component is `**`; anything else is one `*`. */
static void compile_stars(Rule *r, const char *p, size_t n, size_t *i)
{
	size_t j = *i;

	while (j < n && p[j] == '*')
		j++;
	if (j - *i >= 2 && (*i == 0 || p[*i - 1] == '/') &&
	    (j == n || p[j] == '/')) {
		if (j == n) {
			emit(r, TOK_STARSTAR, 0, 0);
		} else if (after_starstar_slash(r)) {
			/* `**` + '/' twice matches what it does once:
			 * one group costs the matcher less. */
			j++;
		} else {
			/* `**` + '/': nothing, or any text ending in '/'. */
			emit(r, TOK_SKIP, 0, r->ntok + 3);
			emit(r, TOK_STARSTAR, 0, 0);
			emit(r, TOK_LIT, '/', 0);
			j++;
		}
	} else if (r->ntok == 0 || r->toks[r->ntok - 1].kind != TOK_STAR) {
		emit(r, TOK_STAR, 0, 0);
	}
	*i = j;
}

/*
 * Compiles the pattern body p[0, n) (flags, anchor slash and trailing
 * slash already removed) into r->toks. Every token consumes at least one
 * pattern byte, except that `**` + '/' (three bytes) makes three tokens,
 * so ntok <= n. False for a malformed pattern.
 */
static bool compile(Rule *r, const char *p, size_t n)
{
	size_t i = 0, nclass = 0;
	ByteSet set;

	r->toks = xmalloc(n * sizeof(Tok));
	while (i < n) {
		switch (p[i]) {
		case '*':
			compile_stars(r, p, n, &i);
			break;
		case '?':
			emit(r, TOK_ANY, 0, 0);
			i++;
			break;
		case '[':
			if (!parse_class(p, n, &i, &set))
				return false;
			r->classes = xrealloc(r->classes,
					      (nclass + 1) * sizeof(ByteSet));
			r->classes[nclass] = set;
			emit(r, TOK_CLASS, 0, nclass++);
			break;
		case '\\':
			if (i + 1 >= n)
				return false;
			emit(r, TOK_LIT, (unsigned char)p[i + 1], 0);
			i += 2;
			break;
		default:
			emit(r, TOK_LIT, (unsigned char)p[i], 0);
			i++;
		}
	}
	return true;
}

/* Length of line without trailing spaces, keeping a space escaped by a
 * backslash (and the backslash with it). */
static size_t trim_trailing_spaces(const char *line, size_t n)
{
	size_t i = 0, end = 0;

	while (i < n) {
		if (line[i] == '\\' && i + 1 < n) {
			i += 2;
			end = i;
		} else {
			if (line[i] != ' ')
				end = i + 1;
			i++;
		}
	}
	return end;
}

/* Sets r->need to the longest run of literal tokens that every match
 * contains, when it says more than the prefix and suffix do. */
static void find_need(Rule *r)
{
	size_t i, run = 0, best = 0, best_end = 0;

	for (i = 0; i < r->ntok; i++) {
		if (r->toks[i].kind == TOK_SKIP) {
			i = r->toks[i].arg - 1u;
			run = 0;
			continue;
		}
		run = r->toks[i].kind == TOK_LIT ? run + 1 : 0;
		if (run > best) {
			best = run;
			best_end = i + 1;
		}
	}
	if (best < 2 || best <= r->npre || best <= r->nsuf)
		return;
	r->nneed = best;
	r->need = xmalloc(best);
	for (i = 0; i < best; i++)
		r->need[i] = (char)r->toks[best_end - best + i].ch;
}

/* True when the n bytes at hay contain the m >= 1 bytes at needle. */
static bool contains(const char *hay, size_t n, const char *needle, size_t m)
{
	const char *p = hay, *end = hay + n;

	while ((size_t)(end - p) >= m &&
	       (p = memchr(p, needle[0], (size_t)(end - p) - m + 1))) {
		if (memcmp(p, needle, m) == 0)
			return true;
		p++;
	}
	return false;
}

/* Fills in r's prefilter and fast-path flags. Tokens inside a skipped
 * `**` group are optional, so they count neither towards minlen nor as a
 * fixed prefix or suffix. */
static void analyse(Rule *r)
{
	size_t i, end = r->ntok;
	bool fixed = true;

	r->minlen = r->npre = r->nsuf = 0;
	memset(&r->bytes, 0, sizeof(r->bytes));
	for (i = 0; i < r->ntok; i++) {
		if (r->toks[i].kind == TOK_SKIP) {
			i = r->toks[i].arg - 1u;
			fixed = false;
			continue;
		}
		if (r->toks[i].kind == TOK_LIT)
			byteset_add(&r->bytes, r->toks[i].ch);
		if (r->toks[i].kind != TOK_STAR &&
		    r->toks[i].kind != TOK_STARSTAR)
			r->minlen++;
		if (r->toks[i].kind != TOK_LIT)
			fixed = false;
		if (fixed)
			r->npre++;
	}
	if (r->npre == r->ntok) {
		r->flags |= RULE_LITERAL;
		r->lit = xmalloc(r->ntok);
		for (i = 0; i < r->ntok; i++)
			r->lit[i] = (char)r->toks[i].ch;
		return;
	}
	/* The '/' closing a `**` group is a TOK_LIT after a TOK_STARSTAR. */
	while (end > 0 && r->toks[end - 1].kind == TOK_LIT &&
	       !(end >= 2 && r->toks[end - 2].kind == TOK_STARSTAR))
		end--;
	r->nsuf = r->ntok - end;
	if (end == 1 && r->toks[0].kind == TOK_STAR)
		r->flags |= RULE_ENDSWITH;
	else
		find_need(r);
}

/* Fills r from one line (no newline, no CR). Returns 1 for a rule, 0 for
 * a blank or comment line, -1 for a malformed pattern; on 0 and -1 r owns
 * nothing. */
static int parse_line(Rule *r, const char *line, size_t n)
{
	memset(r, 0, sizeof(*r));
	n = trim_trailing_spaces(line, n);
	if (n == 0 || line[0] == '#')
		return 0;
	if (line[0] == '!') {
		r->flags |= RULE_NEGATE;
		line++;
		n--;
	}
	if (n > 0 && line[n - 1] == '/') {
		r->flags |= RULE_DIRONLY;
		n--;
	}
	if (memchr(line, '/', n))
		r->flags |= RULE_ANCHORED;
	if (n > 0 && line[0] == '/') {
		line++;
		n--;
	}
	if (n == 0)
		return 0;
	if (!compile(r, line, n)) {
		rule_free(r);
		memset(r, 0, sizeof(*r));
		return -1;
	}
	analyse(r);
	return 1;
}

/* ---------------------------------------------------------------------- *
 * The pattern stack
 * ---------------------------------------------------------------------- */

Ignore *ignore_new(void) { return xcalloc(1, sizeof(Ignore)); }

void ignore_delete(Ignore *ig)
{
	if (!ig)
		return;
	ignore_reset(ig, 0);
	xfree(ig->rules);
	xfree(ig);
}

static void push(Ignore *ig, Rule *r)
{
	if (ig->n == ig->cap) {
		ig->cap = ig->cap ? ig->cap * 2 : 16;
		ig->rules = xrealloc(ig->rules, ig->cap * sizeof(Rule));
	}
	ig->rules[ig->n++] = *r;
}

/* One pattern line of an ignore file: no newline, CR or trailing
 * spaces. */
typedef struct {
	const char *p;
	size_t n;
	bool dup; /* the same line comes again later in the file */
} Line;

/* Marks every line that a later line repeats: the last copy alone can
 * decide (the last matching pattern wins, and an earlier copy matches
 * exactly when the last one does), so the others are dead weight; a
 * file of 5,000 copies of one pattern costs what one does. */
static void mark_duplicates(Line *l, size_t n)
{
	size_t cap = 16, *slot, i, h;

	while (cap < 2 * n)
		cap *= 2;
	slot = xmalloc(cap * sizeof(*slot));
	for (i = 0; i < cap; i++)
		slot[i] = SIZE_MAX;
	for (i = n; i-- > 0;) {
		h = (size_t)castls_hash(l[i].p, l[i].n, 0) & (cap - 1);
		for (; slot[h] != SIZE_MAX; h = (h + 1) & (cap - 1))
			if (l[slot[h]].n == l[i].n &&
			    memcmp(l[slot[h]].p, l[i].p, l[i].n) == 0)
				break;
		if (slot[h] != SIZE_MAX)
			l[i].dup = true;
		else
			slot[h] = i;
	}
	xfree(slot);
}

size_t ignore_add(Ignore *ig, const char *dir, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;
	size_t n, skipped = 0, nlines = 0, cap = 0, i;
	Line *lines = NULL;
	Rule r;

	if (!dir)
		dir = "";
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			nl = end;
		n = (size_t)(nl - p);
		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > IGNORE_PATTERN_MAX) {
			skipped++;
			continue;
		}
		if (nlines == cap) {
			cap = cap ? cap * 2 : 64;
			lines = xrealloc(lines, cap * sizeof(*lines));
		}
		lines[nlines++] = (Line){p, trim_trailing_spaces(p, n), false};
	}
	mark_duplicates(lines, nlines);
	for (i = 0; i < nlines; i++) {
		if (lines[i].dup)
			continue;
		switch (parse_line(&r, lines[i].p, lines[i].n)) {
		case 1:
			r.dir = xstrdup(dir);
			r.dirlen = strlen(dir);
			push(ig, &r);
			break;
		case -1:
			skipped++;
			break;
		}
	}
	xfree(lines);
	return skipped;
}

size_t ignore_mark(const Ignore *ig) { return ig->n; }

void ignore_reset(Ignore *ig, size_t mark)
{
	while (ig->n > mark)
		rule_free(&ig->rules[--ig->n]);
}

size_t ignore_partial(const Ignore *ig) { return ig->partial; }

/* ---------------------------------------------------------------------- *
 * Matching
 * ---------------------------------------------------------------------- */

static void set_bit(uint64_t *set, size_t k)
{
	set[k / 64] |= (uint64_t)1 << (k % 64);
}

/* Adds the epsilon successors of every state in set, in one ascending
 * pass: successors always lie ahead, in this word or a later one. */
static void closure(const Rule *r, uint64_t *set, size_t nwords)
{
	size_t w, k, to[2], nto, j;
	uint64_t todo;

	for (w = 0; w < nwords; w++) {
		for (todo = set[w]; todo; todo &= todo - 1) {
			k = w * 64 + (size_t)__builtin_ctzll(todo);
			if (k >= r->ntok)
				break;
			nto = 0;
			switch (r->toks[k].kind) {
			case TOK_SKIP:
				to[nto++] = r->toks[k].arg;
				/* fall through */
			case TOK_STAR:
			case TOK_STARSTAR:
				to[nto++] = k + 1;
				break;
			}
			for (j = 0; j < nto; j++) {
				set_bit(set, to[j]);
				if (to[j] / 64 == w)
					todo |= (uint64_t)1 << (to[j] % 64);
			}
		}
	}
}

/* The states reached from cur by consuming byte c, closed, in next.
 * False when there are none. */
static bool step(const Rule *r, const uint64_t *cur, uint64_t *next,
		 size_t nwords, unsigned char c)
{
	size_t w, k;
	uint64_t todo, any = 0;
	const Tok *t;

	memset(next, 0, nwords * sizeof(uint64_t));
	for (w = 0; w < nwords; w++) {
		for (todo = cur[w]; todo; todo &= todo - 1) {
			k = w * 64 + (size_t)__builtin_ctzll(todo);
			if (k >= r->ntok)
				break;
			t = &r->toks[k];
			switch (t->kind) {
			case TOK_LIT:
				if (c == t->ch)
					set_bit(next, k + 1);
				break;
			case TOK_ANY:
				if (c != '/')
					set_bit(next, k + 1);
				break;
			case TOK_CLASS:
				if (c != '/' &&
				    byteset_has(&r->classes[t->arg], c))
					set_bit(next, k + 1);
				break;
			case TOK_STAR:
				if (c != '/')
					set_bit(next, k);
				break;
			case TOK_STARSTAR:
				set_bit(next, k);
				break;
			}
		}
	}
	closure(r, next, nwords);
	for (w = 0; w < nwords; w++)
		any |= next[w];
	return any != 0;
}

/* True when every byte in need is in have. */
static bool byteset_within(const ByteSet *need, const ByteSet *have)
{
	uint64_t a[4], b[4];

	memcpy(a, need->bits, sizeof(a));
	memcpy(b, have->bits, sizeof(b));
	return !((a[0] & ~b[0]) | (a[1] & ~b[1]) | (a[2] & ~b[2]) |
		 (a[3] & ~b[3]));
}

/* True when the n bytes of text match r's tokens as a whole. have holds
 * (at least) the bytes of text. A simulation is charged n x tokens
 * steps to *budget; one that *budget cannot pay for is not run, and
 * *cut is set instead (the rule counts as not matching). */
static bool pattern_match(const Rule *r, const char *text, size_t n,
			  const ByteSet *have, size_t *budget, bool *cut)
{
	uint64_t a[SET_WORDS], b[SET_WORDS], *cur = a, *next = b, *tmp;
	size_t nwords = r->ntok / 64 + 1, i;

	if (r->flags & RULE_LITERAL)
		return n == r->ntok && memcmp(text, r->lit, n) == 0;
	if (n < r->minlen)
		return false;
	for (i = 0; i < r->npre; i++)
		if ((unsigned char)text[i] != r->toks[i].ch)
			return false;
	for (i = 0; i < r->nsuf; i++)
		if ((unsigned char)text[n - 1 - i] !=
		    r->toks[r->ntok - 1 - i].ch)
			return false;
	if (r->flags & RULE_ENDSWITH)
		return memchr(text, '/', n - r->nsuf) == NULL;
	if (!byteset_within(&r->bytes, have) ||
	    (r->need && !contains(text, n, r->need, r->nneed)))
		return false;
	if (n * r->ntok > *budget) {
		*cut = true;
		return false;
	}
	*budget -= n * r->ntok;
	memset(cur, 0, nwords * sizeof(uint64_t));
	set_bit(cur, 0);
	closure(r, cur, nwords);
	for (i = 0; i < n; i++) {
		if (!step(r, cur, next, nwords, (unsigned char)text[i]))
			return false;
		tmp = cur;
		cur = next;
		next = tmp;
	}
	return (cur[r->ntok / 64] >> (r->ntok % 64)) & 1;
}

/* True when r matches the entry at path (n bytes), whose basename starts
 * at base. */
static bool rule_match(const Rule *r, const char *path, size_t n,
		       const char *base, bool is_dir, const ByteSet *have,
		       size_t *budget, bool *cut)
{
	const char *rel = path;

	if ((r->flags & RULE_DIRONLY) && !is_dir)
		return false;
	if (r->dirlen > 0) {
		if (n <= r->dirlen || path[r->dirlen] != '/' ||
		    memcmp(path, r->dir, r->dirlen) != 0)
			return false;
		rel = path + r->dirlen + 1;
		n -= r->dirlen + 1;
	}
	if (r->flags & RULE_ANCHORED)
		return pattern_match(r, rel, n, have, budget, cut);
	return pattern_match(r, base, n - (size_t)(base - rel), have, budget,
			     cut);
}

bool ignore_match(Ignore *ig, const char *relpath, bool is_dir)
{
	size_t n = strlen(relpath), i, budget = IGNORE_PATH_BUDGET;
	const char *base = strrchr(relpath, '/');
	ByteSet have = {{0}};
	bool cut = false, ignored = false;

	if (n == 0)
		return false;
	base = base ? base + 1 : relpath;
	/* Every byte a rule's literals need must be in the path: one test
	 * of 32 bytes turns most rules away before the simulation. */
	for (i = 0; i < n; i++)
		byteset_add(&have, (unsigned char)relpath[i]);
	for (i = ig->n; i-- > 0;)
		if (rule_match(&ig->rules[i], relpath, n, base, is_dir, &have,
			       &budget, &cut)) {
			ignored = !(ig->rules[i].flags & RULE_NEGATE);
			break;
		}
	ig->partial += cut;
	return ignored;
}
