/*
 * tokenize.c: the code-aware tokenizer. The rules (what an identifier is,
 * how it splits, the limits, FTS5 positions) are stated in tokenize.h;
 * this file implements them in three layers: characters, identifiers,
 * then the two consumers (FTS5 and the MATCH expression builder).
 */
#include "tokenize.h"

#include "index_int.h"

#include <limits.h>
#include <string.h>

/* ---------------------------------------------------------------------- *
 * Characters
 * ---------------------------------------------------------------------- */

typedef enum {
	CH_SEP,	  /* ends an identifier; also any invalid UTF-8 byte */
	CH_LOWER, /* a-z */
	CH_UPPER, /* A-Z */
	CH_DIGIT, /* 0-9 */
	CH_JOIN,  /* '_' and '$': inside identifiers, between parts */
	CH_OTHER, /* a valid non-ASCII character taken as a caseless letter */
} CharClass;

/* Non-ASCII code points that separate identifiers as punctuation does.
 * The rest of Unicode counts as letters; these blocks are the ones that
 * show up in code and comments glued to names (a BOM before the first
 * word, curly quotes, arrows and box drawing in diagrams, emoji). */
static const struct {
	uint32_t lo, hi; /* inclusive */
} separators[] = {
    {0x0080, 0x00BF},	/* C1 controls, NBSP, Latin-1 signs and marks */
    {0x00D7, 0x00D7},	/* multiplication sign */
    {0x00F7, 0x00F7},	/* division sign */
    {0x2000, 0x206F},	/* General Punctuation: spaces, dashes, quotes */
    {0x2190, 0x23FF},	/* arrows, mathematical operators, technical */
    {0x2500, 0x27BF},	/* box drawing, blocks, shapes, dingbats */
    {0x3000, 0x303F},	/* CJK symbols and punctuation */
    {0xFEFF, 0xFEFF},	/* byte order mark */
    {0xFFFD, 0xFFFD},	/* replacement character */
    {0x1F000, 0x1FAFF}, /* emoji and pictographs */
};

/*
 * Decodes one well-formed UTF-8 sequence (RFC 3629: no overlong forms,
 * no surrogates, nothing above U+10FFFF) from the n > 0 bytes at p.
 * Returns its length, or 0 when p does not start one.
 */
static size_t utf8_decode(const unsigned char *p, size_t n, uint32_t *cp)
{
	unsigned char b = p[0], lo = 0x80, hi = 0xBF;
	size_t len, i;
	uint32_t c;

	if (b >= 0xC2 && b <= 0xDF) {
		len = 2;
		c = b & 0x1F;
	} else if (b >= 0xE0 && b <= 0xEF) {
		len = 3;
		c = b & 0x0F;
		lo = b == 0xE0 ? 0xA0 : 0x80; /* overlong */
		hi = b == 0xED ? 0x9F : 0xBF; /* surrogates */
	} else if (b >= 0xF0 && b <= 0xF4) {
		len = 4;
		c = b & 0x07;
		lo = b == 0xF0 ? 0x90 : 0x80; /* overlong */
		hi = b == 0xF4 ? 0x8F : 0xBF; /* above U+10FFFF */
	} else {
		return 0;
	}
	if (len > n || p[1] < lo || p[1] > hi)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3F);
	}
	*cp = c;
	return len;
}

/* The class of each ASCII byte. */
#define S CH_SEP
#define L CH_LOWER
#define U CH_UPPER
#define D CH_DIGIT
#define J CH_JOIN
static const uint8_t ascii_class[128] = {
    S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S, S,
    S, S, S, S, S, S, S, S, S, S, S, J, S, S, S, S, S, S, S, S, S, S, S, /* $ */
    D, D, D, D, D, D, D, D, D, D, S, S, S, S, S, S, S, U, U, U, U, U, U, U, U,
    U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, U, S, S, S, S, J, /* _ */
    S, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L, L,
    L, L, S, S, S, S, S,
};
#undef S
#undef L
#undef U
#undef D
#undef J

/* The class of byte b when it is ASCII, else CH_OTHER (decode it). */
static inline CharClass byte_class(unsigned char b)
{
	return b < 0x80 ? (CharClass)ascii_class[b] : CH_OTHER;
}

/* char_classify() for a byte >= 0x80. */
static CharClass classify_multibyte(const char *p, size_t n, size_t *width)
{
	uint32_t cp;
	size_t i;

	*width = utf8_decode((const unsigned char *)p, n, &cp);
	if (*width == 0) {
		*width = 1;
		return CH_SEP;
	}
	for (i = 0; i < sizeof(separators) / sizeof(separators[0]); i++)
		if (cp >= separators[i].lo && cp <= separators[i].hi)
			return CH_SEP;
	return CH_OTHER;
}

/* Classifies the character at p (n > 0 bytes left); *width gets its
 * length in bytes (1 for an invalid byte). */
static inline CharClass char_classify(const char *p, size_t n, size_t *width)
{
	unsigned char b = (unsigned char)*p;

	if (b < 0x80) {
		*width = 1;
		return (CharClass)ascii_class[b];
	}
	return classify_multibyte(p, n, width);
}

/*
 * The length of tok cut to CODE_TOKEN_MAX bytes at a character boundary,
 * so that the cut token reads back as itself (code_query_build() relies
 * on that). tok is valid UTF-8 without '_' and '$' and starts with a
 * letter or digit, so the cut never empties it.
 */
static int token_cut(const char *tok, size_t len)
{
	if (len <= CODE_TOKEN_MAX)
		return (int)len;
	len = CODE_TOKEN_MAX;
	while (len > 1 && !utf8_is_lead((unsigned char)tok[len]))
		len--;
	return (int)len;
}

/* ---------------------------------------------------------------------- *
 * Identifiers
 * ---------------------------------------------------------------------- */

typedef struct {
	uint16_t at; /* bytes from the identifier's start */
	uint8_t len; /* bytes */
	uint8_t cls; /* CharClass */
} IdChar;

typedef struct {
	const char *tok;
	int len;
} Seen;

/* Scratch for one identifier at a time; everything is bounded by
 * CODE_IDENT_MAX because longer identifiers are never recorded. */
typedef struct {
	TokenFn fn;
	void *ctx;
	size_t start; /* the identifier's offset in text */
	int nchars;
	IdChar chars[CODE_IDENT_MAX];
	char lower[CODE_IDENT_MAX];  /* the identifier, ASCII lower-cased */
	char joined[CODE_IDENT_MAX]; /* lower without '_' and '$' */
	int nseen;
	Seen seen[CODE_IDENT_MAX + 1]; /* tokens emitted for the identifier */
} Scan;

/* True when tok was already emitted for this identifier; else records
 * it (tok must stay valid until the next identifier). */
static bool seen_check(Scan *s, const char *tok, int len)
{
	int i;

	for (i = 0; i < s->nseen; i++)
		if (s->seen[i].len == len &&
		    memcmp(s->seen[i].tok, tok, (size_t)len) == 0)
			return true;
	s->seen[s->nseen].tok = tok;
	s->seen[s->nseen].len = len;
	s->nseen++;
	return false;
}

/* Emits tok (cut to CODE_TOKEN_MAX) unless it is a repeat. [from, to)
 * are offsets from the identifier's start. */
static int emit(Scan *s, int flags, const char *tok, size_t len, size_t from,
		size_t to)
{
	int n = token_cut(tok, len);

	if (seen_check(s, tok, n))
		return 0;
	return s->fn(s->ctx, flags, tok, n, (int)(s->start + from),
		     (int)(s->start + to));
}

/* True when chars[i] starts a new part of the run that ends at end. */
static bool part_starts(const IdChar *c, int i, int end)
{
	int prev = c[i - 1].cls, cur = c[i].cls;

	if ((prev == CH_DIGIT) != (cur == CH_DIGIT))
		return true;
	if (cur != CH_UPPER)
		return false;
	if (prev == CH_LOWER || prev == CH_OTHER)
		return true;
	/* The last capital of a run starts the word it is followed by:
	 * HTTPResponse -> HTTP, Response. */
	return prev == CH_UPPER && i + 1 < end && c[i + 1].cls == CH_LOWER;
}

/* Emits the parts of chars [a, b): runs between '_' and '$', cut at case
 * and digit boundaries. */
static int emit_parts(Scan *s, int a, int b)
{
	const IdChar *c = s->chars;
	int i = a, j, end, rc;
	size_t from, to;

	while (i < b) {
		if (c[i].cls == CH_JOIN) {
			i++;
			continue;
		}
		for (end = i; end < b && c[end].cls != CH_JOIN; end++)
			;
		for (j = i + 1; j <= end; j++) {
			if (j < end && !part_starts(c, j, end))
				continue;
			from = c[i].at;
			to = c[j - 1].at + c[j - 1].len;
			rc = 0;
			if (c[i].cls != CH_DIGIT ||
			    to - from <= CODE_NUMBER_MAX)
				rc = emit(s, TOKEN_PART, s->lower + from,
					  to - from, from, to);
			if (rc)
				return rc;
			i = j;
		}
	}
	return 0;
}

/* Emits the tokens of the identifier recorded in s (tokenize.h says which
 * and in what order). */
static int emit_identifier(Scan *s)
{
	const IdChar *c = s->chars;
	int a = 0, b = s->nchars, i, flags, rc;
	const char *whole;
	size_t from, to, n;

	while (a < b && c[a].cls == CH_JOIN)
		a++;
	while (b > a && c[b - 1].cls == CH_JOIN)
		b--;
	if (a == b)
		return 0;
	from = c[a].at;
	to = c[b - 1].at + c[b - 1].len;
	flags = c[a].cls == CH_DIGIT ? TOKEN_NUMBER : 0;
	if (flags && to - from > CODE_NUMBER_MAX)
		return 0;
	for (i = a; i < b && c[i].cls != CH_JOIN; i++)
		;
	whole = s->lower + from;
	n = to - from;
	if (i < b) { /* inner '_' or '$': the whole goes without them */
		for (n = 0, i = a; i < b; i++) {
			if (c[i].cls == CH_JOIN)
				continue;
			memcpy(s->joined + n, s->lower + c[i].at, c[i].len);
			n += c[i].len;
		}
		whole = s->joined;
	}
	s->nseen = 0;
	if ((rc = emit(s, TOKEN_WHOLE | flags, whole, n, from, to)))
		return rc;
	return flags ? 0 : emit_parts(s, a, b);
}

/*
 * The fast path for the commonest identifier, a plain word: one ASCII
 * letter, then lower-case ASCII letters only ("self", "return", "Path"),
 * at most CODE_TOKEN_MAX bytes and followed by an ASCII separator or the
 * end. Its only token is its whole, lower-cased: it has no '_' or '$'
 * to trim or join, and its one part equals the whole. Returns the length
 * of the word at text[i] when it is one and its token was emitted (*rc
 * the callback's answer), else 0 and the general path reads it.
 */
static size_t plain_word(const char *text, size_t len, size_t i, TokenFn fn,
			 void *ctx, int *rc)
{
	unsigned char b = (unsigned char)text[i];
	CharClass first = byte_class(b);
	char low[CODE_TOKEN_MAX];
	size_t j = i + 1, n;

	if (first != CH_LOWER && first != CH_UPPER)
		return 0;
	while (j < len && byte_class((unsigned char)text[j]) == CH_LOWER)
		j++;
	n = j - i;
	if (n > CODE_TOKEN_MAX ||
	    (j < len && byte_class((unsigned char)text[j]) != CH_SEP))
		return 0;
	if (first == CH_UPPER) {
		memcpy(low, text + i, n);
		low[0] = (char)(b - 'A' + 'a');
		*rc = fn(ctx, TOKEN_WHOLE, low, (int)n, (int)i, (int)j);
	} else {
		*rc = fn(ctx, TOKEN_WHOLE, text + i, (int)n, (int)i, (int)j);
	}
	return n;
}

static inline bool is_join(char c) { return c == '_' || c == '$'; }

/*
 * The fast path for the next commonest: ASCII letters, '_' and '$' only,
 * each run between '_' and '$' one word, in lower case ("spin_lock"),
 * capitals ("GFP_KERNEL") or a capital then lower case ("Foo_bar"), and
 * followed by an ASCII separator or the end. No case change splits such
 * a run, so its parts are the runs. Returns the identifier's length when
 * it is one and its tokens were emitted (*rc the callback's answer, and
 * none for only '_' and '$'), else 0 and the general path reads it.
 */
static size_t word_runs(Scan *s, const char *text, size_t len, size_t i,
			int *rc)
{
	enum { START, LOWER, CAPITAL, CAPITALS } run = START;
	size_t j, a, b, n = 0, p;

	for (j = i; j < len; j++) {
		unsigned char ch = (unsigned char)text[j];
		CharClass cls = byte_class(ch);

		if (cls == CH_LOWER) {
			if (run == CAPITALS)
				return 0; /* "HTTPResponse" splits */
			run = LOWER;
		} else if (cls == CH_UPPER) {
			if (run == LOWER)
				return 0; /* camelCase */
			run = run == START ? CAPITAL : CAPITALS;
			ch = (unsigned char)(ch - 'A' + 'a');
		} else if (cls == CH_JOIN) {
			run = START;
		} else {
			break;
		}
		if (j - i == CODE_IDENT_MAX)
			return 0; /* too long: the general path skips it */
		s->lower[j - i] = (char)ch;
	}
	if (j < len && byte_class((unsigned char)text[j]) != CH_SEP)
		return 0; /* a digit or a character that may be a letter */
	for (a = 0; a < j - i && is_join(s->lower[a]); a++)
		;
	for (b = j - i; b > a && is_join(s->lower[b - 1]); b--)
		;
	if (a == b)
		return j - i;
	for (p = a; p < b; p++)
		if (!is_join(s->lower[p]))
			s->joined[n++] = s->lower[p];
	s->start = i;
	s->nseen = 0;
	if ((*rc = emit(s, TOKEN_WHOLE, s->joined, n, a, b)) || n == b - a)
		return j - i; /* one run: its part is the whole */
	for (p = a; p < b && !*rc;) {
		size_t q = p;

		while (q < b && !is_join(s->lower[q]))
			q++;
		if (q > p)
			*rc = emit(s, TOKEN_PART, s->lower + p, q - p, p, q);
		p = q + 1;
	}
	return j - i;
}

static int tokenize(const char *text, size_t len, TokenFn fn, void *ctx,
		    bool fast)
{
	Scan s;
	size_t i = 0, w = 0, n;
	CharClass cls;
	bool too_long;
	int rc = 0;

	if (len > INT_MAX)
		return CASTLS_ELIMIT;
	s.fn = fn;
	s.ctx = ctx;
	while (i < len) {
		/* Runs of ASCII separators (indentation) are most of the
		 * bytes between identifiers. */
		while (byte_class((unsigned char)text[i]) == CH_SEP)
			if (++i == len)
				return 0;
		if (fast && (n = plain_word(text, len, i, fn, ctx, &rc))) {
			if (rc)
				return rc;
			i += n + (i + n < len); /* and the separator */
			continue;
		}
		if (fast && (n = word_runs(&s, text, len, i, &rc))) {
			if (rc)
				return rc;
			i += n + (i + n < len);
			continue;
		}
		cls = char_classify(text + i, len - i, &w);
		if (cls == CH_SEP) {
			i += w;
			continue;
		}
		/* Record the run, or only find its end once it is too long. */
		s.start = i;
		s.nchars = 0;
		too_long = false;
		while (cls != CH_SEP) {
			if (i + w - s.start > CODE_IDENT_MAX) {
				too_long = true;
			} else {
				IdChar *c = &s.chars[s.nchars++];
				size_t k;

				c->at = (uint16_t)(i - s.start);
				c->len = (uint8_t)w;
				c->cls = (uint8_t)cls;
				for (k = 0; k < w; k++) {
					char ch = text[i + k];

					s.lower[c->at + k] =
					    cls == CH_UPPER
						? (char)(ch - 'A' + 'a')
						: ch;
				}
			}
			i += w;
			if (i == len)
				break;
			cls = char_classify(text + i, len - i, &w);
		}
		if (!too_long && (rc = emit_identifier(&s)) != 0)
			return rc;
		if (cls == CH_SEP)
			i += w;
	}
	return 0;
}

int code_tokenize(const char *text, size_t len, TokenFn fn, void *ctx)
{
	return tokenize(text, len, fn, ctx, true);
}

int code__tokenize_reference(const char *text, size_t len, TokenFn fn,
			     void *ctx)
{
	return tokenize(text, len, fn, ctx, false);
}

/* ---------------------------------------------------------------------- *
 * FTS5
 * ---------------------------------------------------------------------- */

typedef struct {
	void *ctx; /* FTS5's */
	int (*token)(void *ctx, int tflags, const char *tok, int len, int start,
		     int end);
	bool query;
} Fts5Call;

static int fts5_token(void *ctx, int flags, const char *tok, int len, int start,
		      int end)
{
	Fts5Call *call = ctx;

	/* Queries keep the whole alone; see tokenize.h. */
	if (!(flags & TOKEN_PART))
		return call->token(call->ctx, 0, tok, len, start, end);
	if (call->query)
		return SQLITE_OK;
	return call->token(call->ctx, FTS5_TOKEN_COLOCATED, tok, len, start,
			   end);
}

static int fts5_tokenize(Fts5Tokenizer *self, void *ctx, int flags,
			 const char *text, int len,
			 int (*token)(void *, int, const char *, int, int, int))
{
	Fts5Call call = {ctx, token, (flags & FTS5_TOKENIZE_QUERY) != 0};

	(void)self;
	if (len <= 0)
		return SQLITE_OK;
	/* Only the callback can fail: len fits an int, so no CASTLS_ELIMIT,
	 * and the callback's SQLite code comes back unchanged. */
	return code_tokenize(text, (size_t)len, fts5_token, &call);
}

/* The tokenizer has no state; every table shares one dummy handle. */
static char fts5_instance;

static int fts5_create(void *udata, const char **argv, int argc,
		       Fts5Tokenizer **out)
{
	(void)udata;
	(void)argv;
	if (argc != 0)
		return SQLITE_ERROR; /* a typo in tokenize='castls ...' */
	*out = (Fts5Tokenizer *)&fts5_instance;
	return SQLITE_OK;
}

static void fts5_delete(Fts5Tokenizer *self) { (void)self; }

fts5_api *code_fts5_api(sqlite3 *db)
{
	fts5_api *api = NULL;
	sqlite3_stmt *stmt = NULL;

	if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) !=
	    SQLITE_OK)
		return NULL; /* no FTS5 in this SQLite */
	if (sqlite3_bind_pointer(stmt, 1, &api, "fts5_api_ptr", NULL) ==
	    SQLITE_OK)
		sqlite3_step(stmt);
	sqlite3_finalize(stmt);
	return api && api->iVersion >= 2 ? api : NULL;
}

int code_tokenizer_register(sqlite3 *db)
{
	/* FTS5 copies the methods; the struct is not const only because
	 * xCreateTokenizer's signature says so. */
	static fts5_tokenizer methods = {fts5_create, fts5_delete,
					 fts5_tokenize};
	fts5_api *api = code_fts5_api(db);

	if (!api || api->xCreateTokenizer(api, "castls", NULL, &methods,
					  NULL) != SQLITE_OK)
		return CASTLS_EDB;
	return 0;
}

/* ---------------------------------------------------------------------- *
 * MATCH expressions
 * ---------------------------------------------------------------------- */

typedef struct {
	Buf *out;
	int n;
	int lens[CODE_QUERY_TERMS_MAX];
	char terms[CODE_QUERY_TERMS_MAX][CODE_TOKEN_MAX];
} QueryBuild;

static int query_term(void *ctx, int flags, const char *tok, int len, int start,
		      int end)
{
	QueryBuild *q = ctx;
	int i;

	(void)start;
	(void)end;
	(void)flags;
	for (i = 0; i < q->n; i++)
		if (q->lens[i] == len && memcmp(q->terms[i], tok, len) == 0)
			return 0;
	if (q->n == CODE_QUERY_TERMS_MAX)
		return 1; /* full: stop reading the text */
	memcpy(q->terms[q->n], tok, len);
	q->lens[q->n] = len;
	/* Tokens never hold '"', so quoting needs no escapes. */
	if (q->n++ > 0)
		buf_puts(q->out, " OR ");
	buf_append(q->out, "\"", 1);
	buf_append(q->out, tok, len);
	buf_append(q->out, "\"", 1);
	return 0;
}

int code_query_build(const char *text, size_t len, Buf *out)
{
	QueryBuild q;

	q.out = out;
	q.n = 0;
	/* Past INT_MAX bytes the cap was reached long before; reading less
	 * is harmless, and a character cut in two is only a separator. */
	if (len > INT_MAX)
		len = INT_MAX;
	code_tokenize(text, len, query_term, &q);
	return q.n;
}
