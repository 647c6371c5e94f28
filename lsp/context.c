/*
 * context.c: castls/context, the code most useful for writing the next
 * lines at the cursor, tuned against the RepoEval harness (tests/eval,
 * make eval). Candidates:
 *
 * - Definitions of the buffer itself, from its live spans and its module-
 *   and class-level assignments (the index may lag the last keystrokes).
 * - Definitions in the index named by identifiers near the cursor (a name
 *   the buffer defines at top level shadows them), by the names the
 *   buffer imports, and the members of the bases of the class around the
 *   cursor.
 * - Chunks by BM25 over the code before the cursor (the index's FTS5);
 *   a definition also inherits the score of the chunk it starts in.
 *
 * A definition scores for its name being used near the cursor (weighted
 * by proximity), for being a member of the class being written, for being
 * imported (more when the file does not use it yet), and, in the current
 * file, for being close and for how often the file uses it; a member of
 * some other class scores less. The region around the cursor is left out (the
 * editor shows it), at most PER_FILE items come from one other file, and
 * nothing overlaps an item already taken. An item shows a definition from
 * its first line, at most ITEM_LINES lines (signature, docstring, start of
 * the body), and a chunk the ITEM_LINES lines densest in the cursor's
 * identifiers; either way whole lines, flagged `clipped`. Items are packed
 * greedily into the token budget in rank order. noContext: no definition
 * is named near the cursor, no import waits to be used, and the best
 * lexical match is weak.
 */
#include "lsp_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define QUERY_LINES 30      /* lines before the cursor in the query */
#define QUERY_MAX 8192      /* bytes of query text */
#define AFTER_LINES 3       /* lines after the cursor also excluded */
#define BEFORE_LINES 5      /* and before it, outside its definition */
#define IDENTS_CAP 256      /* identifiers collected near the cursor */
#define MAX_IDENTS 24       /* of those, looked up in the index */
#define DEFS_PER_IDENT 4
#define MAX_BASES 4         /* base classes of the class being written */
#define MEMBERS_MAX 64      /* members read from each base */
#define CONTEXT_PARSE_MAX (4u << 20) /* largest buffer parsed here */
#define ASSIGN_SCAN_MAX 4096 /* statements of one block looked at */
#define IMPORTS_MAX 48      /* imported names looked up */
#define IMPORT_DEFS 16      /* definitions of each, to find its module's */
#define BM25_HITS 40
#define PER_FILE 3          /* items from one other file */
#define PER_SAME_FILE 5     /* and from the current file */
#define ITEM_LINES 20       /* longest item; a longer one is clipped */
#define JOIN_LINES 6        /* longest definition joined to a neighbour */
#define ITEM_BYTES (ITEM_LINES * 160)
#define CLIP_SCAN_LINES 400 /* a chunk's lines searched for the best window */
/* Weights, tuned on the RepoEval development split (make eval): */
#define W_MENTION 2.0       /* a definition of a name used near the cursor,
			     * by proximity */
#define W_MEMBER 0.3        /* a member of the class being written or of
			     * its bases (self.x, this.x) */
#define W_OTHER_CLASS 1.0   /* (minus) a member of another class */
#define W_NEAR 1.0          /* the current file's definitions, by distance */
#define NEAR_LINES 30.0     /* distance at which that prior halves */
#define W_IMPORTED 0.3      /* a definition in a file the current imports */
#define W_IMPORT_NAME 0.2   /* a definition of a name the file imports */
#define W_IMPORT_UNUSED 0.8 /* and does not use yet */
#define W_USES 0.4          /* the current file's definitions, by how
			     * often the file uses them */
#define USES_FULL 64.0      /* uses that earn all of it */
#define W_BM25 0.6          /* lexical, relative to the best hit */
#define W_SAME_FILE 0.3     /* a lexical hit of the current file */
#define BM25_MIN 12.0       /* raw score below which lexical is noise */
#define SCORE_MIN 0.12

/* Words that are never definitions worth looking up. */
static const char *const stopwords[] = {
	"and", "as", "assert", "async", "await", "break", "case", "catch",
	"class", "const", "continue", "def", "default", "del", "do", "elif",
	"else", "enum", "esac", "except", "export", "extends", "false",
	"False", "fi", "finally", "for", "from", "function", "global", "if",
	"implements", "import", "in", "instanceof", "interface", "is", "lambda",
	"let", "new", "None", "nonlocal", "not", "null", "or", "pass", "raise",
	"return", "self", "static", "super", "switch", "then", "this", "throw",
	"true", "True", "try", "type", "typeof", "undefined", "var", "void",
	"while", "with", "yield", "cls", "str", "int", "float", "bool", "list",
	"dict", "set", "tuple", "len", "range", "print", "string", "number",
	"any", "echo", "local", "done",
};

static bool is_stopword(const char *w, size_t n)
{
	for (size_t i = 0; i < sizeof(stopwords) / sizeof(*stopwords); i++)
		if (strlen(stopwords[i]) == n && memcmp(stopwords[i], w, n) == 0)
			return true;
	return false;
}

static bool ident_start(unsigned char c)
{
	return isalpha(c) || c == '_' || c == '$' || c >= 0x80;
}

static bool ident_char(unsigned char c)
{
	return isalnum(c) || c == '_' || c == '$' || c >= 0x80;
}

/* ---------------------------------------------------------------------- *
 * Identifiers near the cursor
 * ---------------------------------------------------------------------- */

typedef struct {
	char name[64];
	double weight;
} Ident;

static int cmp_ident(const void *a, const void *b)
{
	double x = ((const Ident *)a)->weight, y = ((const Ident *)b)->weight;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* Collects identifiers of text[lo, hi) with weights that fall with their
 * distance in lines from the cursor line; returns how many (<= cap). */
static int collect_idents(const char *text, uint32_t lo, uint32_t hi,
			  uint32_t cursor_line, uint32_t first_line,
			  Ident *out, int cap)
{
	int n = 0;
	uint32_t line = first_line;

	for (uint32_t i = lo; i < hi;) {
		unsigned char c = (unsigned char)text[i];
		uint32_t start = i, len;
		double w;
		int k;

		if (c == '\n')
			line++;
		/* Skip the rest of a number, and string/comment contents are
		 * kept on purpose: names in them still hint. */
		if (!ident_start(c) || (i > lo && ident_char((unsigned char)text[i - 1]))) {
			i++;
			continue;
		}
		while (i < hi && ident_char((unsigned char)text[i]))
			i++;
		len = i - start;
		if (len < 2 || len >= sizeof(out[0].name) ||
		    is_stopword(text + start, len))
			continue;
		w = 1.0 / (1.0 + (double)(cursor_line - line) / 8.0);
		for (k = 0; k < n; k++)
			if (strlen(out[k].name) == len &&
			    memcmp(out[k].name, text + start, len) == 0)
				break;
		if (k == n) {
			if (n == cap)
				continue;
			memcpy(out[n].name, text + start, len);
			out[n].name[len] = '\0';
			out[n++].weight = 0;
		}
		/* Repeated use adds a little, proximity dominates. */
		out[k].weight = out[k].weight ? fmax(out[k].weight, w) + 0.1 * w
					      : w;
	}
	return n;
}

/* ---------------------------------------------------------------------- *
 * Imports of the current file, as path fragments ("pkg/mod", "./util")
 * ---------------------------------------------------------------------- */

typedef struct {
	char frag[128][96];
	int n;
} Imports;

static void add_import(Imports *im, const char *p, size_t n)
{
	char *f;

	if (im->n == 128 || n == 0 || n >= sizeof(im->frag[0]))
		return;
	f = im->frag[im->n++];
	/* Python dots become slashes; leading dots (relative) dropped. */
	while (n && *p == '.' && (n < 2 || p[1] != '/'))
		p++, n--;
	for (size_t i = 0; i < n; i++)
		f[i] = p[i] == '.' && !(i + 1 < n && p[i + 1] == '/') &&
				       !(i > 0 && p[i - 1] == '.')
			       ? '/'
			       : p[i];
	f[n] = '\0';
	/* "./util" and "../lib/x" keep only the meaningful tail. */
	while (strncmp(f, "./", 2) == 0 || strncmp(f, "../", 3) == 0)
		memmove(f, f + (f[1] == '/' ? 2 : 3), strlen(f) + 1);
}

static void find_imports(const char *text, uint32_t len, Imports *im)
{
	uint32_t i = 0;

	im->n = 0;
	while (i < len) {
		const char *line = text + i, *nl = memchr(line, '\n', len - i);
		size_t n = nl ? (size_t)(nl - line) : len - i, k;

		i += (uint32_t)n + 1;
		if (n > 6 && (strncmp(line, "from ", 5) == 0 ||
			      strncmp(line, "import ", 7) == 0)) {
			const char *p = line + (line[0] == 'f' ? 5 : 7);

			for (k = 0; p + k < line + n && (ident_char((unsigned char)p[k]) ||
							 p[k] == '.');
			     k++)
				;
			add_import(im, p, k);
		}
		/* TypeScript/JavaScript: from "x" / require("x") */
		for (k = 0; k + 1 < n; k++) {
			char q = line[k];
			const char *end;

			if ((q != '"' && q != '\'') ||
			    !(k >= 5 && (memcmp(line + k - 5, "from ", 5) == 0 ||
					 memcmp(line + k - 5, "uire(", 5) == 0)))
				continue;
			end = memchr(line + k + 1, q, n - k - 1);
			if (end)
				add_import(im, line + k + 1,
					   (size_t)(end - line - k - 1));
			break;
		}
	}
}

static bool path_imported(const Imports *im, const char *path)
{
	for (int i = 0; i < im->n; i++)
		if (strstr(path, im->frag[i]))
			return true;
	return false;
}

/* ---------------------------------------------------------------------- *
 * Candidates: definitions (of the live buffer or from the index) and
 * lexical chunk hits
 * ---------------------------------------------------------------------- */

typedef enum {
	FROM_LIVE,  /* a span of the current buffer */
	FROM_SPAN,  /* a span row of the index */
	FROM_CHUNK, /* a chunk row of the index (BM25) */
} Origin;

typedef struct {
	Origin from;
	int root;
	char *path;        /* relative to its root */
	Lang lang;
	ChunkKind kind;
	int64_t file_id;   /* index rows; 0 for FROM_LIVE */
	int64_t row;       /* span or chunk id; live span index for FROM_LIVE */
	int64_t parent;    /* span id of the innermost enclosing span */
	int32_t live_parent; /* FROM_LIVE: that span in Where.live, or -1 */
	ByteRange bytes;   /* of the whole definition or chunk */
	LineRange lines;   /* what the item shows, once clipped */
	char *symbol;      /* qualified name, or "" */
	char *text;        /* chunk text; definitions' is read when packed */
	double mention;    /* its name is used near the cursor */
	uint32_t uses;     /* same file: uses of its name besides its own */
	double bm25, score;
	uint32_t near;     /* lines from the cursor, same file only */
	bool member;       /* of the class being written or its bases */
	bool other_class;  /* a member of some other class */
	bool imported, same_file, taken, clipped;
	bool import_name;  /* a name the current file imports */
	bool import_unused; /* and does not use yet */
	char defined[160]; /* the names the cursor uses, comma-separated */
	char joined[160];  /* the siblings joined to it, comma-separated */
} Cand;

typedef struct {
	Cand *c;
	uint32_t n, cap;
} Cands;

static Cand *cand_new(Cands *cs, Origin from, int root, int64_t row)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->c[i].from == from && cs->c[i].root == root &&
		    cs->c[i].row == row)
			return NULL;
	if (cs->n == cs->cap) {
		cs->cap = cs->cap ? cs->cap * 2 : 64;
		cs->c = xrealloc(cs->c, cs->cap * sizeof(*cs->c));
	}
	memset(&cs->c[cs->n], 0, sizeof(cs->c[0]));
	cs->c[cs->n].from = from;
	cs->c[cs->n].root = root;
	cs->c[cs->n].row = row;
	return &cs->c[cs->n++];
}

static void cands_free(Cands *cs)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		xfree(cs->c[i].path);
		xfree(cs->c[i].symbol);
		xfree(cs->c[i].text);
	}
	xfree(cs->c);
}

static int cmp_cand(const void *a, const void *b)
{
	const Cand *x = a, *y = b;

	if (x->score != y->score)
		return x->score < y->score ? 1 : -1;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static bool is_def(const Cand *c)
{
	return c->from != FROM_CHUNK;
}

/* ---------------------------------------------------------------------- *
 * How often the buffer uses each word
 * ---------------------------------------------------------------------- */

/* The next identifier of text[lo, hi) at or after *i (not the tail of a
 * number or of a longer word): its start in *a, *i past its end. False
 * when there is none. */
static bool next_word(const char *text, uint32_t lo, uint32_t hi,
		      uint32_t *i, uint32_t *a)
{
	while (*i < hi && (!ident_start((unsigned char)text[*i]) ||
			   (*i > lo && ident_char((unsigned char)text[*i - 1]))))
		(*i)++;
	if (*i >= hi)
		return false;
	*a = *i;
	while (*i < hi && ident_char((unsigned char)text[*i]))
		(*i)++;
	return true;
}

typedef struct {
	uint32_t at, len;  /* a use of the word in the text; len 0: empty */
	uint32_t count;
} Word;

typedef struct {
	const char *text;
	Word *slot;
	uint32_t mask, n;
} Words;

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

/* Counts every identifier of text[0, len); the table stays at most half
 * full. */
static void words_count(Words *ws, const char *text, uint32_t len)
{
	ws->text = text;
	ws->mask = 1023;
	ws->n = 0;
	ws->slot = xcalloc(ws->mask + 1, sizeof(*ws->slot));
	for (uint32_t i = 0, a; next_word(text, 0, len, &i, &a);) {
		Word *w = word_slot(ws, text + a, i - a);

		if (w->len) {
			w->count++;
			continue;
		}
		*w = (Word){a, i - a, 1};
		if (++ws->n * 2 > ws->mask) { /* grow */
			Word *old = ws->slot;
			uint32_t cap = ws->mask + 1;

			ws->mask = cap * 2 - 1;
			ws->slot = xcalloc(cap * 2, sizeof(*ws->slot));
			for (uint32_t k = 0; k < cap; k++)
				if (old[k].len)
					*word_slot(ws, text + old[k].at,
						   old[k].len) = old[k];
			xfree(old);
		}
	}
}

static uint32_t words_get(const Words *ws, const char *s)
{
	return ws->slot ? word_slot(ws, s, strlen(s))->count : 0;
}

/* Uses of a definition's name besides the definition itself. */
static uint32_t words_besides_one(const Words *ws, const char *s)
{
	uint32_t n = words_get(ws, s);

	return n ? n - 1 : 0;
}

/* ---------------------------------------------------------------------- *
 * Where the cursor is
 * ---------------------------------------------------------------------- */

typedef struct {
	const Snapshot *sn;
	uint32_t cursor, cursor_line;
	uint32_t q_lo;               /* query starts here */
	uint32_t ex_first, ex_last;  /* excluded lines of the current file */
	const TSTree *tree;          /* of the buffer; NULL if too big */
	TSTree *own_tree;            /* parsed here, to free */
	Chunking live;               /* every span of the buffer */
	int32_t cls;                 /* innermost class around the cursor */
	char bases[MAX_BASES][64];   /* names of that class's bases */
	int nbases;
	Buf query;
	Words words;                 /* of the whole buffer */
} Where;

static uint32_t line_start_of(const char *text, uint32_t off)
{
	while (off && text[off - 1] != '\n')
		off--;
	return off;
}

/* The base classes named in a class header: identifiers between the
 * parentheses of `class X(A, m.B):` or after extends/implements. Keyword
 * arguments (metaclass=M) and stop words are skipped. */
static int header_bases(const Span *sp, char (*out)[64], int cap)
{
	const char *h = sp->header, *p = strstr(h, sp->name);
	int n = 0;

	if (!p)
		return 0;
	p += strlen(sp->name);
	while (*p && *p != ':' && *p != '{' && n < cap) {
		const char *w = p;
		size_t len;

		if (!ident_start((unsigned char)*p)) {
			p++;
			continue;
		}
		while (ident_char((unsigned char)*p))
			p++;
		len = (size_t)(p - w);
		while (*p == ' ')
			p++;
		if (*p == '=' || len >= 64 || is_stopword(w, len) ||
		    (len == 7 && memcmp(w, "extends", 7) == 0) ||
		    (len == 10 && memcmp(w, "implements", 10) == 0) ||
		    (len == 6 && memcmp(w, "object", 6) == 0))
			continue;
		memcpy(out[n], w, len);
		out[n++][len] = '\0';
	}
	return n;
}

/* Whether span sp holds the cursor. A syntax node ends at its last token,
 * so a cursor on the blank lines after a body is in it when it is
 * indented deeper than the span's first line. */
static bool around(const Snapshot *sn, const Span *sp, uint32_t cursor)
{
	uint32_t ls, indent = 0, col;

	if (sp->bytes.start > cursor)
		return false;
	if (sp->bytes.end >= cursor)
		return true;
	for (uint32_t i = sp->bytes.end; i < cursor; i++)
		if (!isspace((unsigned char)sn->text[i]))
			return false;
	ls = line_start_of(sn->text, sp->bytes.start);
	while (sn->text[ls + indent] == ' ' || sn->text[ls + indent] == '\t')
		indent++;
	col = cursor - line_start_of(sn->text, cursor);
	return col > indent;
}

/* Finds the query text, the excluded region around the cursor, and the
 * live spans. */
static void locate(Where *w, Server *s, const Snapshot *sn, uint32_t cursor)
{
	Chunker *ch;
	uint32_t lo = line_start_of(sn->text, cursor), back = 0, ex_end;
	int32_t fn = -1;

	memset(w, 0, sizeof(*w));
	w->sn = sn;
	w->cls = -1;
	w->cursor = cursor;
	w->cursor_line = castls_count_newlines(sn->text, cursor);
	while (lo > 0 && back < QUERY_LINES) {
		lo = line_start_of(sn->text, lo - 1);
		back++;
	}
	w->q_lo = lo;
	ex_end = w->cursor_line + AFTER_LINES;
	w->ex_first = w->cursor_line > BEFORE_LINES
			      ? w->cursor_line - BEFORE_LINES
			      : 0;
	ch = chunker_acquire(s);
	/* The buffer's tree, or a parse of our own when its first parse has
	 * not landed yet. */
	w->tree = sn->tree;
	if (!w->tree && sn->len <= CONTEXT_PARSE_MAX)
		w->tree = w->own_tree = chunker_parse(ch, sn->lang, sn->text,
						      sn->len, NULL);
	if (chunker_spans(ch, sn->lang, sn->text, sn->len, w->tree,
			  &w->live) != 0)
		memset(&w->live, 0, sizeof(w->live));
	chunker_release(s, ch);
	/* The innermost function and class around the cursor. */
	for (uint32_t i = 0; i < w->live.nspans; i++) {
		const Span *sp = &w->live.spans[i];

		if (sp->kind == SPAN_SECTION || !around(sn, sp, cursor))
			continue;
		if (sp->kind == SPAN_CLASS || sp->kind == SPAN_INTERFACE)
			w->cls = (int32_t)i;
		else
			fn = (int32_t)i;
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
		w->nbases = header_bases(&w->live.spans[w->cls], w->bases,
					 MAX_BASES);
	buf_append(&w->query, sn->text + lo, cursor - lo);
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
}

static bool excluded(const Where *w, const Cand *c)
{
	return c->same_file && c->lines.end >= w->ex_first &&
	       c->lines.start <= w->ex_last;
}

static double mention_of(const Ident *ids, int nids, const char *name)
{
	for (int k = 0; k < nids; k++)
		if (strcmp(ids[k].name, name) == 0)
			return ids[k].weight;
	return 0;
}

static bool is_base(const Where *w, const char *name)
{
	for (int i = 0; i < w->nbases; i++)
		if (strcmp(w->bases[i], name) == 0)
			return true;
	return false;
}

static void set_mention(Cand *c, const char *name, double m)
{
	c->mention = m;
	if (m > 0 && strlen(name) < sizeof(c->defined))
		memcpy(c->defined, name, strlen(name) + 1);
}

/* The definitions of the buffer itself, from its live spans: the index
 * may not have caught up with the last keystrokes. */
static void gather_live(const Where *w, const Ident *ids, int nids,
			Cands *cs)
{
	const Chunking *lc = &w->live;

	for (uint32_t i = 0; i < lc->nspans; i++) {
		const Span *sp = &lc->spans[i];
		const Span *up = sp->parent >= 0 ? &lc->spans[sp->parent] : NULL;
		Cand *c;

		if (sp->kind == SPAN_SECTION ||
		    around(w->sn, sp, w->cursor))
			continue;
		c = cand_new(cs, FROM_LIVE, w->sn->root, (int64_t)i);
		c->path = xstrdup(w->sn->rel ? w->sn->rel : "");
		c->lang = w->sn->lang;
		c->kind = CHUNK_DEFINITION;
		c->bytes = sp->bytes;
		c->lines = sp->lines;
		c->symbol = xstrdup(sp->qualname);
		c->live_parent = sp->parent;
		c->same_file = true;
		c->near = sp->lines.start > w->cursor_line
				  ? sp->lines.start - w->cursor_line
				  : w->cursor_line - sp->lines.start;
		set_mention(c, sp->name, mention_of(ids, nids, sp->name));
		c->uses = words_besides_one(&w->words, sp->name);
		if (up && (up->kind == SPAN_CLASS || up->kind == SPAN_INTERFACE)) {
			c->member = sp->parent == w->cls || is_base(w, up->name);
			c->other_class = !c->member;
		}
	}
}

/* The innermost live span holding byte at, or -1. */
static int32_t live_span_at(const Where *w, uint32_t at)
{
	int32_t in = -1;

	for (uint32_t i = 0; i < w->live.nspans; i++)
		if (w->live.spans[i].bytes.start <= at &&
		    w->live.spans[i].bytes.end > at)
			in = (int32_t)i;
	return in;
}

static bool node_is(TSNode n, const char *type)
{
	return !ts_node_is_null(n) && strcmp(ts_node_type(n), type) == 0;
}

/* An assignment to a plain name, as a definition candidate. */
static void add_assignment(const Where *w, const Ident *ids, int nids,
			   Cands *cs, TSNode stmt, TSNode name)
{
	const Snapshot *sn = w->sn;
	uint32_t a = ts_node_start_byte(name), z = ts_node_end_byte(name);
	int32_t up = live_span_at(w, ts_node_start_byte(stmt));
	char id[64];
	Cand *c;

	if (z - a >= sizeof(id) || (ts_node_start_byte(stmt) <= w->cursor &&
				    ts_node_end_byte(stmt) >= w->cursor))
		return;
	memcpy(id, sn->text + a, z - a);
	id[z - a] = '\0';
	c = cand_new(cs, FROM_LIVE, sn->root,
		     (int64_t)w->live.nspans + ts_node_start_byte(stmt));
	if (!c)
		return;
	c->path = xstrdup(sn->rel ? sn->rel : "");
	c->lang = sn->lang;
	c->kind = CHUNK_STATEMENTS;
	c->bytes.start = ts_node_start_byte(stmt);
	c->bytes.end = ts_node_end_byte(stmt);
	c->lines.start = ts_node_start_point(stmt).row;
	c->lines.end = ts_node_end_point(stmt).row;
	c->live_parent = up;
	c->same_file = true;
	c->near = c->lines.start > w->cursor_line
			  ? c->lines.start - w->cursor_line
			  : w->cursor_line - c->lines.start;
	if (up >= 0) {
		const Span *sp = &w->live.spans[up];

		c->member = up == w->cls || is_base(w, sp->name);
		c->other_class = !c->member;
		c->symbol = xmalloc(strlen(sp->qualname) + strlen(id) + 2);
		sprintf(c->symbol, "%s.%s", sp->qualname, id);
	} else {
		c->symbol = xstrdup(id);
	}
	set_mention(c, id, mention_of(ids, nids, id));
	c->uses = words_besides_one(&w->words, id);
}

/* The assignments among the statements under block: `NAME = ...` and
 * `NAME: T = ...` in Python, `const NAME = ...` (not a function, which is
 * a span already) in TypeScript and JavaScript. */
static void gather_assignments_in(const Where *w, const Ident *ids,
				  int nids, Cands *cs, TSNode block,
				  int depth)
{
	uint32_t n = ts_node_named_child_count(block);

	for (uint32_t i = 0; i < n && i < ASSIGN_SCAN_MAX; i++) {
		TSNode st = ts_node_named_child(block, i), x;

		if (node_is(st, "export_statement") || node_is(st, "decorated_definition"))
			st = ts_node_named_child(st, ts_node_named_child_count(st) - 1);
		if (node_is(st, "expression_statement") &&
		    node_is(x = ts_node_named_child(st, 0), "assignment") &&
		    node_is(x = ts_node_child_by_field_name(x, "left", 4),
			    "identifier")) {
			add_assignment(w, ids, nids, cs, st, x);
		} else if (node_is(st, "lexical_declaration") ||
			   node_is(st, "variable_declaration")) {
			for (uint32_t k = 0; k < ts_node_named_child_count(st); k++) {
				TSNode d = ts_node_named_child(st, k);
				TSNode v = ts_node_child_by_field_name(d, "value", 5);
				const char *vt = ts_node_is_null(v) ? "" : ts_node_type(v);

				x = ts_node_child_by_field_name(d, "name", 4);
				if (node_is(x, "identifier") && !strstr(vt, "function"))
					add_assignment(w, ids, nids, cs, d, x);
			}
		} else if (depth == 0 && node_is(st, "class_definition")) {
			/* Class attributes, one level down. */
			gather_assignments_in(w, ids, nids, cs,
					      ts_node_child_by_field_name(st, "body", 4),
					      depth + 1);
		}
	}
}

static void gather_assignments(const Where *w, const Ident *ids, int nids,
			       Cands *cs)
{
	if (w->tree)
		gather_assignments_in(w, ids, nids, cs,
				      ts_tree_root_node(w->tree), 0);
}

/* Adds index span sp (taken) as a definition candidate, unless it is in
 * the current buffer (gather_live has those) or already there. */
static Cand *add_span(const Where *w, Cands *cs, int root, IndexSpan *sp)
{
	Cand *c;

	if (root == w->sn->root && w->sn->rel && strcmp(sp->path, w->sn->rel) == 0)
		return NULL;
	c = cand_new(cs, FROM_SPAN, root, sp->id);
	if (!c)
		return NULL;
	c->path = sp->path;
	sp->path = NULL;
	c->symbol = sp->qualname;
	sp->qualname = NULL;
	c->lang = sp->lang;
	c->kind = CHUNK_DEFINITION;
	c->file_id = sp->file_id;
	c->parent = sp->parent_id;
	c->bytes = sp->bytes;
	c->lines = sp->lines;
	return c;
}

/* The members of the bases of the class being written, when the index
 * knows them: `self.x` may be defined there. */
static void gather_bases(const Where *w, Index *ix, int root,
			 const Ident *ids, int nids, Cands *cs)
{
	for (int b = 0; b < w->nbases; b++) {
		IndexSpan *cls, *kids;
		uint32_t n, k;

		if (index_spans_named(ix, w->bases[b], 2, &cls, &n) != 0)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			if (cls[i].kind != SPAN_CLASS &&
			    cls[i].kind != SPAN_INTERFACE)
				continue;
			if (index_span_children(ix, cls[i].id, MEMBERS_MAX, &kids,
						&k) != 0)
				continue;
			for (uint32_t j = 0; j < k; j++) {
				Cand *c = add_span(w, cs, root, &kids[j]);

				if (!c)
					continue;
				c->member = true;
				set_mention(c, kids[j].name,
					    mention_of(ids, nids, kids[j].name));
			}
			index_spans_free(kids, k);
		}
		index_spans_free(cls, n);
	}
}

/* Finds where the text of an index hit of the current file is in the
 * buffer: the rows may be older than the last keystrokes, so the text
 * can have moved, or be gone (then false). Moves h to the buffer's
 * coordinates. */
static bool relocate(const Where *w, IndexHit *h)
{
	const char *t = w->sn->text, *p = NULL;
	size_t n = strlen(h->text);
	uint32_t len = w->sn->len;

	if (n == 0 || n > len)
		return false;
	if (h->bytes.start + n <= len &&
	    memcmp(t + h->bytes.start, h->text, n) == 0)
		return true;
	for (const char *q = t; (q = memchr(q, h->text[0], len - n + 1 -
							      (size_t)(q - t)));
	     q++)
		if (memcmp(q, h->text, n) == 0) {
			p = q;
			break;
		}
	if (!p)
		return false;
	h->bytes.start = (uint32_t)(p - t);
	h->bytes.end = h->bytes.start + (uint32_t)n;
	h->lines.start = castls_count_newlines(t, h->bytes.start);
	h->lines.end = h->lines.start + castls_count_newlines(h->text, (uint32_t)n - 1);
	return true;
}

/* The last identifier of a dotted name node ("a.b.C" gives C). */
static void last_ident(const Where *w, TSNode n, char *out, size_t cap)
{
	uint32_t a, z;

	if (node_is(n, "dotted_name") && ts_node_named_child_count(n))
		n = ts_node_named_child(n, ts_node_named_child_count(n) - 1);
	a = ts_node_start_byte(n);
	z = ts_node_end_byte(n);
	out[0] = '\0';
	if (z > a && z - a < cap && ident_start((unsigned char)w->sn->text[a])) {
		memcpy(out, w->sn->text + a, z - a);
		out[z - a] = '\0';
	}
}

/* A name the file imports, and where from: the module as a path stem
 * relative to the root ("src/util/x" for './x' in src/util/a.ts,
 * "pkg/mod" for `from .mod import` in pkg/a.py), or, for an absolute
 * Python module, a stem the path must end with ("a/b" for `from a.b`). */
typedef struct {
	char name[64];
	char local[64]; /* the name in this file: an alias, or name */
	char stem[192];
	bool suffix;   /* stem matches at the end of a path */
	uint32_t stmt_start, stmt_end; /* the import statement's bytes */
	uint32_t uses; /* of local, outside import statements */
} Import;

/* Appends path component s[0, n) to stem, resolving "." and "..". */
static void stem_push(char *stem, size_t cap, const char *s, size_t n)
{
	size_t len = strlen(stem);

	if (n == 0 || (n == 1 && s[0] == '.'))
		return;
	if (n == 2 && s[0] == '.' && s[1] == '.') {
		char *slash = strrchr(stem, '/');

		if (slash)
			*slash = '\0';
		else
			stem[0] = '\0';
		return;
	}
	if (len + n + 2 > cap)
		return;
	if (len)
		stem[len++] = '/';
	memcpy(stem + len, s, n);
	stem[len + n] = '\0';
}

/* The directory of the current file, relative to its root. */
static void stem_dir(const Where *w, char *stem, size_t cap)
{
	const char *rel = w->sn->rel ? w->sn->rel : "", *slash = strrchr(rel, '/');
	size_t n = slash ? (size_t)(slash - rel) : 0;

	if (n >= cap)
		n = 0;
	memcpy(stem, rel, n);
	stem[n] = '\0';
}

/* Appends the components of path p[0, n), separated by sep, to stem. */
static void stem_push_all(char *stem, size_t cap, const char *p, size_t n,
			  char sep)
{
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && p[j] != sep)
			j++;
		stem_push(stem, cap, p + i, j - i);
		i = j + 1;
	}
}

/* Resolves the module text m[0, n) of an import into im. */
static void resolve_module(const Where *w, const char *m, size_t n,
			   bool python, Import *im)
{
	size_t i = 0;

	im->stem[0] = '\0';
	im->suffix = false;
	if (python) {
		if (n && m[0] == '.') { /* relative: a dot per level up */
			stem_dir(w, im->stem, sizeof(im->stem));
			for (i = 1; i < n && m[i] == '.'; i++)
				stem_push(im->stem, sizeof(im->stem), "..", 2);
		} else {
			im->suffix = true;
		}
		stem_push_all(im->stem, sizeof(im->stem), m + i, n - i, '.');
		return;
	}
	if (n == 0 || m[0] != '.') /* a package: not resolved here */
		return;
	stem_dir(w, im->stem, sizeof(im->stem));
	stem_push_all(im->stem, sizeof(im->stem), m, n, '/');
}

/* Whether path is what im's module names: stem.py, stem/__init__.py,
 * stem.ts, stem/index.ts and the like. */
static bool import_resolves_to(const Import *im, const char *path)
{
	static const char *const tails[] = {
		".py", "/__init__.py", ".pyi", ".ts", ".tsx", ".d.ts", ".js",
		".jsx", ".mjs", ".cjs", "/index.ts", "/index.tsx",
		"/index.js",
	};
	size_t sl = strlen(im->stem), pl = strlen(path);

	if (sl == 0)
		return false;
	for (size_t t = 0; t < sizeof(tails) / sizeof(*tails); t++) {
		size_t tl = strlen(tails[t]);
		const char *at;

		if (pl < sl + tl || strcmp(path + pl - tl, tails[t]) != 0)
			continue;
		at = path + pl - tl - sl;
		if (memcmp(at, im->stem, sl) != 0)
			continue;
		if (at == path || (im->suffix && at[-1] == '/'))
			return true;
	}
	return false;
}

static void text_of_node(const Where *w, TSNode n, char *out, size_t cap)
{
	uint32_t a, z;

	out[0] = '\0';
	if (ts_node_is_null(n))
		return;
	a = ts_node_start_byte(n);
	z = ts_node_end_byte(n);
	if (z > a && z - a < cap) {
		memcpy(out, w->sn->text + a, z - a);
		out[z - a] = '\0';
	}
}

/* Adds the name imported by node x (an aliased_import, an import
 * specifier, or the name itself) of import statement st. */
static void add_imported(const Where *w, Import *out, int *k, TSNode st,
			 TSNode x, const char *module)
{
	Import *im = &out[*k];
	TSNode name = x, alias = {0};

	if (node_is(x, "aliased_import") || node_is(x, "import_specifier")) {
		name = ts_node_child_by_field_name(x, "name", 4);
		alias = ts_node_child_by_field_name(x, "alias", 5);
	}
	if (ts_node_is_null(name))
		return;
	last_ident(w, name, im->name, sizeof(im->name));
	if (!im->name[0])
		return;
	if (!ts_node_is_null(alias))
		last_ident(w, alias, im->local, sizeof(im->local));
	else
		memcpy(im->local, im->name, sizeof(im->local));
	resolve_module(w, module, strlen(module), w->sn->lang == LANG_PYTHON,
		       im);
	im->stmt_start = ts_node_start_byte(st);
	im->stmt_end = ts_node_end_byte(st);
	(*k)++;
}

/* Counts, for each import, the uses of its local name in the buffer
 * outside import statements: all uses (w->words) less those inside the
 * statements. A name imported but not used yet is one the code being
 * written is likely to use. */
static void count_import_uses(const Where *w, Import *imp, int nimp)
{
	const char *t = w->sn->text;

	for (int k = 0; k < nimp; k++)
		imp[k].uses = words_get(&w->words, imp[k].local);
	for (int j = 0; j < nimp; j++) {
		uint32_t lo = imp[j].stmt_start, hi = imp[j].stmt_end;

		if (j && lo == imp[j - 1].stmt_start)
			continue; /* a statement once */
		for (uint32_t i = lo, a; next_word(t, lo, hi, &i, &a);)
			for (int k = 0; k < nimp; k++)
				if (imp[k].uses && strlen(imp[k].local) == i - a &&
				    memcmp(imp[k].local, t + a, i - a) == 0)
					imp[k].uses--;
	}
}

/* The names the file imports from elsewhere, as their definitions name
 * them: `from m import a, b as c` gives a and b; `import {x, y as z}
 * from './m'` and `import D from './m'` give x, y and D. */
static int imported_names(const Where *w, Import *out, int cap)
{
	TSNode root;
	uint32_t n;
	int k = 0;
	char mod[192];

	if (!w->tree)
		return 0;
	root = ts_tree_root_node(w->tree);
	n = ts_node_named_child_count(root);
	for (uint32_t i = 0; i < n && i < ASSIGN_SCAN_MAX && k < cap; i++) {
		TSNode st = ts_node_named_child(root, i);
		uint32_t m = ts_node_named_child_count(st);

		if (node_is(st, "import_from_statement")) {
			/* Child 0 is the module. */
			text_of_node(w, ts_node_child_by_field_name(
						st, "module_name", 11),
				     mod, sizeof(mod));
			for (uint32_t j = 1; j < m && k < cap; j++) {
				TSNode x = ts_node_named_child(st, j);

				if (node_is(x, "aliased_import") ||
				    node_is(x, "dotted_name"))
					add_imported(w, out, &k, st, x, mod);
			}
		} else if (node_is(st, "import_statement")) {
			text_of_node(w, ts_node_child_by_field_name(st, "source", 6),
				     mod, sizeof(mod));
			/* Without its quotes. */
			if (strlen(mod) >= 2) {
				memmove(mod, mod + 1, strlen(mod));
				mod[strlen(mod) - 1] = '\0';
			}
			for (uint32_t j = 0; j < m && k < cap; j++) {
				TSNode cl = ts_node_named_child(st, j);

				if (!node_is(cl, "import_clause"))
					continue;
				for (uint32_t c = 0; c < ts_node_named_child_count(cl) &&
						     k < cap;
				     c++) {
					TSNode x = ts_node_named_child(cl, c);

					if (node_is(x, "identifier"))
						add_imported(w, out, &k, st, x, mod);
					else if (node_is(x, "named_imports"))
						for (uint32_t e = 0;
						     e < ts_node_named_child_count(x) &&
						     k < cap;
						     e++)
							add_imported(w, out, &k, st,
								     ts_node_named_child(x, e),
								     mod);
				}
			}
		}
	}
	return k;
}

/* A name the current file defines at its top level: it shadows the
 * definitions of other files. */
static bool defined_here(const Cands *cs, const char *name)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->c[i].from == FROM_LIVE && cs->c[i].live_parent < 0 &&
		    strcmp(cs->c[i].symbol, name) == 0)
			return true;
	return false;
}

static Cand *find_span(Cands *cs, int root, int64_t id)
{
	for (uint32_t i = 0; i < cs->n; i++)
		if (cs->c[i].from == FROM_SPAN && cs->c[i].root == root &&
		    cs->c[i].row == id)
			return &cs->c[i];
	return NULL;
}

static void gather(Server *s, const Where *w, const Ident *ids, int nids,
		   const Imports *im, Cands *cs, double *best_bm25)
{
	Import *imp = xmalloc(IMPORTS_MAX * sizeof(*imp));
	int nimp = imported_names(w, imp, IMPORTS_MAX);

	count_import_uses(w, imp, nimp);

	gather_live(w, ids, nids, cs);
	gather_assignments(w, ids, nids, cs);
	for (int r = 0; r < s->nroots; r++) {
		Root *root = s->roots[r];
		IndexHit *h;
		IndexSpan *sp;
		uint32_t n;
		int err;
		Index *ix = root->removed ? NULL : root_acquire(s, root, &err);

		if (!ix)
			continue;
		if (index_search(ix, w->query.data ? w->query.data : "",
				 w->query.len, BM25_HITS, &h, &n) == 0) {
			for (uint32_t i = 0; i < n; i++) {
				bool same = r == w->sn->root && w->sn->rel &&
					    strcmp(h[i].path, w->sn->rel) == 0;
				Cand *c = same && !relocate(w, &h[i])
						  ? NULL
						  : cand_new(cs, FROM_CHUNK, r,
							     h[i].id);

				if (c) {
					c->path = h[i].path;
					c->text = h[i].text;
					h[i].path = h[i].text = NULL;
					c->lang = h[i].lang;
					c->kind = h[i].kind;
					c->file_id = h[i].file_id;
					c->parent = h[i].span_id;
					c->bytes = h[i].bytes;
					c->lines = h[i].lines;
					c->bm25 = h[i].score;
					c->same_file = same;
					c->symbol = xstrdup("");
				}
			}
			index_hits_free(h, n);
		}
		for (int k = 0; k < nids && k < MAX_IDENTS; k++) {
			if (defined_here(cs, ids[k].name) ||
			    index_spans_named(ix, ids[k].name, DEFS_PER_IDENT,
					      &sp, &n) != 0)
				continue;
			for (uint32_t i = 0; i < n; i++) {
				Cand *c = add_span(w, cs, r, &sp[i]);

				/* A name defined in several places says less
				 * about each. */
				if (c)
					set_mention(c, ids[k].name,
						    ids[k].weight / n);
			}
			index_spans_free(sp, n);
		}
		for (int k = 0; k < nimp; k++) {
			uint32_t resolved = 0;

			if (defined_here(cs, imp[k].name) ||
			    index_spans_named(ix, imp[k].name, IMPORT_DEFS, &sp,
					      &n) != 0)
				continue;
			/* The module's own definition when the import resolves
			 * to one; any of the same name when it does not (a
			 * package, a re-export). */
			for (uint32_t i = 0; i < n; i++)
				resolved += import_resolves_to(&imp[k], sp[i].path);
			for (uint32_t i = 0; i < n; i++) {
				Cand *c;

				if (resolved ? !import_resolves_to(&imp[k], sp[i].path)
					     : i >= DEFS_PER_IDENT)
					continue;
				if ((c = add_span(w, cs, r, &sp[i])))
					set_mention(c, imp[k].name,
						    mention_of(ids, nids, imp[k].name) /
							    (resolved ? resolved
								      : n < DEFS_PER_IDENT ? n : DEFS_PER_IDENT));
				else
					c = find_span(cs, r, sp[i].id);
				if (c) {
					c->import_name = true;
					c->import_unused |= imp[k].uses == 0;
					c->imported |= resolved > 0;
				}
			}
			index_spans_free(sp, n);
		}
		gather_bases(w, ix, r, ids, nids, cs);
		root_release(root, ix);
	}
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];

		c->imported = !c->same_file &&
			      (c->imported || path_imported(im, c->path));
		if (c->from == FROM_CHUNK && !excluded(w, c))
			*best_bm25 = fmax(*best_bm25, c->bm25);
	}
	/* A definition inherits the lexical score of the chunk it starts in. */
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];

		if (c->from != FROM_CHUNK)
			continue;
		for (uint32_t k = 0; k < cs->n; k++) {
			Cand *d = &cs->c[k];

			if (is_def(d) && d->root == c->root &&
			    d->bytes.start >= c->bytes.start &&
			    d->bytes.start < c->bytes.end &&
			    strcmp(d->path, c->path) == 0)
				d->bm25 = fmax(d->bm25, c->bm25);
		}
	}
	xfree(imp);
}

static void score_all(const Where *w, Cands *cs, double best_bm25)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];
		double lex = best_bm25 > 0 ? fmin(c->bm25 / best_bm25, 1.0) : 0;

		c->score = W_BM25 * lex;
		if (is_def(c)) {
			c->score += W_MENTION * fmin(c->mention, 1.5) +
				    (c->member ? W_MEMBER : 0) -
				    (c->other_class ? W_OTHER_CLASS : 0) +
				    (c->imported ? W_IMPORTED : 0) +
				    (c->import_unused ? W_IMPORT_UNUSED
				     : c->import_name ? W_IMPORT_NAME : 0);
			if (c->same_file)
				c->score += W_NEAR / (1.0 + c->near / NEAR_LINES) +
					    W_USES * fmin(log1p(c->uses) /
								  log1p(USES_FULL),
							  1.0);
		} else if (c->same_file) {
			c->score += W_SAME_FILE;
		}
		if (excluded(w, c))
			c->score = -1;
	}
	if (cs->n)
		qsort(cs->c, cs->n, sizeof(*cs->c), cmp_cand);
}

/* Whether definitions c and d are siblings close enough to show as one
 * item: same file and parent, at most one line apart, d small, ITEM_LINES
 * in all. */
static bool joinable(const Cand *c, const Cand *d)
{
	uint32_t a = c->lines.start < d->lines.start ? c->lines.start
						     : d->lines.start;
	uint32_t z = c->lines.end > d->lines.end ? c->lines.end : d->lines.end;

	if (c->from != d->from || c->root != d->root || d->score < SCORE_MIN ||
	    (c->from == FROM_LIVE ? c->live_parent != d->live_parent
				  : c->parent != d->parent ||
					    c->file_id != d->file_id))
		return false;
	if (c->lines.end + 2 < d->lines.start ||
	    d->lines.end + 2 < c->lines.start ||
	    d->lines.end - d->lines.start + 1 > JOIN_LINES)
		return false;
	/* d may lie between two siblings c has already joined. */
	return z - a + 1 <= ITEM_LINES &&
	       (c->lines.end < d->lines.start || d->lines.end < c->lines.start ||
		(c->lines.start <= d->lines.start && d->lines.end <= c->lines.end));
}

/* Appends item to the comma-separated list (when it fits). */
static void list_append(char *list, size_t cap, const char *item)
{
	size_t n = strlen(list);

	if (n + strlen(item) + 3 < cap)
		snprintf(list + n, cap - n, "%s%s", n ? ", " : "", item);
}

/* Runs of small sibling definitions (a class's fields, a module's
 * constants, one-line helpers) become one item, ranked as its best: one
 * field per item would spend the top ranks on a single place. */
static void join_siblings(Cands *cs)
{
	for (uint32_t i = 0; i < cs->n; i++) {
		Cand *c = &cs->c[i];
		bool grew = is_def(c) && c->score >= SCORE_MIN;

		while (grew) {
			grew = false;
			for (uint32_t k = i + 1; k < cs->n; k++) {
				Cand *d = &cs->c[k];

				if (!joinable(c, d))
					continue;
				if (d->bytes.start < c->bytes.start) {
					c->bytes.start = d->bytes.start;
					c->lines.start = d->lines.start;
				}
				if (d->bytes.end > c->bytes.end) {
					c->bytes.end = d->bytes.end;
					c->lines.end = d->lines.end;
				}
				if (d->defined[0])
					list_append(c->defined, sizeof(c->defined),
						    d->defined);
				list_append(c->joined, sizeof(c->joined), d->symbol);
				c->mention = fmax(c->mention, d->mention);
				d->score = -1;
				grew = true;
			}
		}
	}
	if (cs->n)
		qsort(cs->c, cs->n, sizeof(*cs->c), cmp_cand);
}

/* ---------------------------------------------------------------------- *
 * Items
 * ---------------------------------------------------------------------- */

/* Lines in t: its newlines, plus one for a last line without one. */
static uint32_t lines_in(const char *t, size_t n)
{
	uint32_t k = 0;

	for (size_t i = 0; i < n; i++)
		k += t[i] == '\n';
	return k + (n && t[n - 1] != '\n');
}

/* Weight of the identifiers the cursor uses in t[a, z). */
static double line_value(const char *t, uint32_t a, uint32_t z,
			 const Ident *ids, int nids)
{
	char word[64];
	double v = 0;

	for (uint32_t i = a; i < z;) {
		uint32_t w = i;

		if (!ident_start((unsigned char)t[i])) {
			i++;
			continue;
		}
		while (i < z && ident_char((unsigned char)t[i]))
			i++;
		if (i - w < sizeof(word)) {
			memcpy(word, t + w, i - w);
			word[i - w] = '\0';
			v += mention_of(ids, nids, word);
		}
	}
	return v;
}

/* Keeps at most ITEM_LINES whole lines of c->text: a definition's first
 * (signature, docstring, start of the body), or the window of a chunk with
 * the most identifiers the cursor uses. Trailing blank lines go too;
 * c->lines follows the text. */
static void clip(Cand *c, const Ident *ids, int nids)
{
	char *t = c->text;
	uint32_t len = (uint32_t)strlen(t), nl = 0, first = 0, last, a, z;
	uint32_t starts[CLIP_SCAN_LINES + 1];
	double sc[CLIP_SCAN_LINES], win = 0, top = -1;

	for (uint32_t i = 0; i < len && nl <= CLIP_SCAN_LINES; i++)
		if (i == 0 || t[i - 1] == '\n')
			starts[nl++] = i;
	if (nl > CLIP_SCAN_LINES)
		nl = CLIP_SCAN_LINES; /* starts[nl] is where the next begins */
	else
		starts[nl] = len;
	if (nl > ITEM_LINES && !is_def(c)) {
		for (uint32_t l = 0; l < nl; l++) {
			sc[l] = line_value(t, starts[l], starts[l + 1], ids, nids);
			win += sc[l];
			if (l >= ITEM_LINES)
				win -= sc[l - ITEM_LINES];
			if (l + 1 >= ITEM_LINES && win > top) {
				top = win;
				first = l + 1 - ITEM_LINES;
			}
		}
	}
	last = first + ITEM_LINES < nl ? first + ITEM_LINES : nl;
	a = nl ? starts[first] : 0;
	z = nl ? starts[last] : 0;
	/* No trailing blank lines, but never nothing. */
	while (last > first + 1 &&
	       strspn(t + starts[last - 1], " \t\r\n") >=
		       starts[last] - starts[last - 1])
		z = starts[--last];
	if (a > 0 || z < len)
		c->clipped = true;
	memmove(t, t + a, z - a);
	t[z - a] = '\0';
	c->lines.start += first;
	c->lines.end = c->lines.start + lines_in(t, z - a) -
		       (z - a ? 1 : 0);
	/* Whole lines: a definition's text stops at its last token. */
	if (z > a && t[z - a - 1] != '\n') {
		c->text = xrealloc(t, z - a + 2);
		memcpy(c->text + (z - a), "\n", 2);
	}
}

/* Reads a definition's text from the start of its first line: whole
 * lines, about ITEM_LINES of them at most. */
static bool load_text(Cand *c, const Where *w, Index *ix)
{
	uint32_t a = c->bytes.start, z = c->bytes.end, back;
	char *t;

	if (c->from == FROM_CHUNK)
		return c->text != NULL;
	if (z - a > ITEM_BYTES) {
		z = a + ITEM_BYTES;
		c->clipped = true;
	}
	if (c->from == FROM_LIVE) {
		a = line_start_of(w->sn->text, a);
		t = xstrndup(w->sn->text + a, z - a);
	} else {
		/* An indented method starts mid-line: back up to the start
		 * of its line. */
		back = a < 256 ? a : 256;
		if (index_file_text(ix, c->file_id, a - back, z, &t) != 1)
			return false;
		a = back;
		while (a > 0 && t[a - 1] != '\n')
			a--;
		if (a == 0 && back == 256) {
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

static cJSON *line_range_json(uint32_t first, uint32_t last)
{
	cJSON *r = cJSON_CreateObject();
	cJSON *a = cJSON_AddObjectToObject(r, "start");
	cJSON *b = cJSON_AddObjectToObject(r, "end");

	cJSON_AddNumberToObject(a, "line", first);
	cJSON_AddNumberToObject(a, "character", 0);
	cJSON_AddNumberToObject(b, "line", last + 1);
	cJSON_AddNumberToObject(b, "character", 0);
	return r;
}

static cJSON *parent_json(SpanKind kind, const char *name, LineRange lines,
			  const char *header, size_t *cost)
{
	cJSON *p = cJSON_CreateObject();

	cJSON_AddStringToObject(p, "kind", span_kind_name(kind));
	cJSON_AddStringToObject(p, "name", name);
	cJSON_AddItemToObject(p, "range", line_range_json(lines.start,
							  lines.end));
	cJSON_AddStringToObject(p, "header", header);
	*cost += strlen(header) + 1;
	return p;
}

/* The headers of the spans around c, outermost first. A span the item
 * starts with is its own definition, not an enclosing one. */
static cJSON *parents_of(Cand *c, const Where *w, Index *ix, size_t *cost)
{
	cJSON *ps = cJSON_CreateArray();

	if (c->from == FROM_LIVE) {
		int32_t chain[16];
		int n = 0;

		for (int32_t p = c->live_parent; p >= 0 && n < 16;
		     p = w->live.spans[p].parent)
			chain[n++] = p;
		while (n--) {
			const Span *sp = &w->live.spans[chain[n]];

			cJSON_AddItemToArray(ps, parent_json(sp->kind, sp->qualname,
							     sp->lines,
							     sp->header, cost));
		}
	} else {
		IndexSpan chain[16];
		int64_t sid = c->parent;
		int n = 0;

		while (sid && n < 16 && index_span_get(ix, sid, &chain[n]) == 1)
			sid = chain[n++].parent_id;
		if (c->from == FROM_CHUNK && n && !c->symbol[0]) {
			xfree(c->symbol);
			c->symbol = xstrdup(chain[0].qualname);
		}
		for (int i = n - 1; i >= 0; i--)
			if (chain[i].bytes.start < c->bytes.start)
				cJSON_AddItemToArray(
					ps, parent_json(chain[i].kind,
							chain[i].qualname,
							chain[i].lines,
							chain[i].header, cost));
		for (int i = 0; i < n; i++)
			index_span_clear(&chain[i]);
	}
	return ps;
}

static cJSON *signals_of(const Cand *c)
{
	cJSON *g = cJSON_CreateObject();

	cJSON_AddNumberToObject(g, "bm25", (double)(int64_t)(c->bm25 * 1e3) / 1e3);
	cJSON_AddNumberToObject(g, "definition",
				(double)(int64_t)(c->mention * 1e3) / 1e3);
	if (c->defined[0])
		cJSON_AddStringToObject(g, "defines", c->defined);
	cJSON_AddBoolToObject(g, "import", c->imported);
	cJSON_AddBoolToObject(g, "sameFile", c->same_file);
	if (c->import_name)
		cJSON_AddBoolToObject(g, "importedName", true);
	if (c->import_unused)
		cJSON_AddBoolToObject(g, "unusedImport", true);
	if (c->joined[0])
		cJSON_AddStringToObject(g, "joined", c->joined);
	if (c->member)
		cJSON_AddBoolToObject(g, "member", true);
	if (c->same_file && is_def(c)) {
		cJSON_AddNumberToObject(g, "linesAway", c->near);
		cJSON_AddNumberToObject(g, "usesInFile", c->uses);
	}
	return g;
}

static char *uri_of(Server *s, const Cand *c, const Where *w)
{
	if (c->from == FROM_LIVE)
		return xstrdup(w->sn->uri);
	return uri_in_root(s->roots[c->root]->path, c->path);
}

static cJSON *item_of(Server *s, const Where *w, Cand *c, Index *ix,
		      uint32_t *tokens)
{
	cJSON *it = cJSON_CreateObject(), *ps;
	char *uri = uri_of(s, c, w), num[32];
	size_t cost = strlen(c->text);

	ps = parents_of(c, w, ix, &cost);
	cJSON_AddStringToObject(it, "uri", uri);
	cJSON_AddItemToObject(it, "range", line_range_json(c->lines.start,
							   c->lines.end));
	cJSON_AddStringToObject(it, "language", lang_name(c->lang));
	cJSON_AddStringToObject(it, "kind", chunk_kind_name(c->kind));
	cJSON_AddStringToObject(it, "symbol", c->symbol);
	cJSON_AddItemToObject(it, "parents", ps);
	snprintf(num, sizeof(num), "%.4g", c->score);
	cJSON_AddNumberToObject(it, "score", strtod(num, NULL));
	cJSON_AddItemToObject(it, "signals", signals_of(c));
	if (c->clipped)
		cJSON_AddBoolToObject(it, "clipped", true);
	cJSON_AddStringToObject(it, "text", c->text);
	xfree(uri);
	*tokens = estimate_tokens(cost);
	return it;
}

static bool overlaps_taken(const Cands *cs, uint32_t upto, const Cand *c)
{
	for (uint32_t k = 0; k < upto; k++) {
		const Cand *d = &cs->c[k];

		if (d->taken && d->root == c->root &&
		    d->lines.start <= c->lines.end &&
		    c->lines.start <= d->lines.end &&
		    strcmp(d->path, c->path) == 0)
			return true;
	}
	return false;
}

static cJSON *pack(Server *s, const Where *w, Cands *cs, const Ident *ids,
		   int nids, const ContextArgs *a, uint32_t *used)
{
	cJSON *items = cJSON_CreateArray();
	uint32_t count = 0;

	*used = 0;
	for (uint32_t i = 0; i < cs->n && count < a->limit; i++) {
		Cand *c = &cs->c[i];
		uint32_t per_file = 0, tokens;
		int err;
		Index *ix = NULL;
		cJSON *it;

		if (c->score < SCORE_MIN)
			break;
		for (uint32_t k = 0; k < i; k++)
			per_file += cs->c[k].taken && cs->c[k].root == c->root &&
				    strcmp(cs->c[k].path, c->path) == 0;
		if (per_file >= (c->same_file ? PER_SAME_FILE : PER_FILE))
			continue;
		if (c->from != FROM_LIVE &&
		    !(ix = root_acquire(s, s->roots[c->root], &err)))
			continue;
		if (!load_text(c, w, ix)) {
			if (ix)
				root_release(s->roots[c->root], ix);
			continue;
		}
		clip(c, ids, nids);
		if (overlaps_taken(cs, i, c) ||
		    estimate_tokens(strlen(c->text)) > a->budget - *used) {
			if (ix)
				root_release(s->roots[c->root], ix);
			continue;
		}
		it = item_of(s, w, c, ix, &tokens);
		if (ix)
			root_release(s->roots[c->root], ix);
		if (tokens > a->budget - *used) {
			cJSON_Delete(it);
			continue;
		}
		*used += tokens;
		count++;
		c->taken = true;
		cJSON_AddItemToArray(items, it);
	}
	return items;
}

cJSON *context_run(Server *s, const Snapshot *sn, const ContextArgs *a,
		   int *err, char *msg, size_t msgcap)
{
	Where w;
	Ident ids[IDENTS_CAP];
	Imports *im = xcalloc(1, sizeof(*im));
	Cands cs = {0};
	double best = 0, best_mention = 0;
	bool unused_import = false;
	uint32_t used;
	int nids;
	cJSON *res, *items, *b;

	(void)err;
	(void)msg;
	(void)msgcap;
	locate(&w, s, sn, a->cursor);
	if (sn->len <= CONTEXT_PARSE_MAX)
		words_count(&w.words, sn->text, (uint32_t)sn->len);
	nids = collect_idents(sn->text, w.q_lo, a->cursor, w.cursor_line,
			      castls_count_newlines(sn->text, w.q_lo), ids,
			      IDENTS_CAP);
	qsort(ids, (size_t)nids, sizeof(*ids), cmp_ident);
	find_imports(sn->text, sn->len, im);
	gather(s, &w, ids, nids, im, &cs, &best);
	score_all(&w, &cs, best);
	join_siblings(&cs);
	for (uint32_t i = 0; i < cs.n; i++)
		if (cs.c[i].score >= 0) {
			best_mention = fmax(best_mention, cs.c[i].mention);
			unused_import |= cs.c[i].import_unused;
		}
	res = cJSON_CreateObject();
	if (best_mention <= 0 && !unused_import && best < BM25_MIN) {
		items = cJSON_CreateArray(); /* the stop signal */
		used = 0;
		cJSON_AddBoolToObject(res, "noContext", true);
	} else {
		items = pack(s, &w, &cs, ids, nids, a, &used);
		cJSON_AddBoolToObject(res, "noContext",
				      cJSON_GetArraySize(items) == 0);
	}
	cJSON_AddItemToObject(res, "items", items);
	b = cJSON_AddObjectToObject(res, "budget");
	cJSON_AddNumberToObject(b, "limit", a->budget);
	cJSON_AddNumberToObject(b, "used", used);
	cJSON_AddStringToObject(b, "unit", "tokens");
	cands_free(&cs);
	chunking_close(&w.live);
	if (w.own_tree)
		ts_tree_delete(w.own_tree);
	xfree(im);
	buf_free(&w.query);
	xfree(w.words.slot);
	return res;
}
