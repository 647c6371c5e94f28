/*
 * rank_int.h: shared between the files of rank/ only.
 *
 * A context request goes through these steps, one file each:
 *   where.c   where the cursor is: the query text, the region left out,
 *             the buffer's own definitions, the class being written
 *   words.c   the identifiers near the cursor and how often the buffer
 *             uses each word
 *   imports.c what the buffer imports, and which files those modules are
 *   pathmap.c the files of package specifiers: tsconfig.json's paths and
 *             the workspace's packages
 *   gather.c  candidates: the buffer's definitions (bindings too), index
 *             definitions of the names in use, imported and inherited,
 *             and lexical chunk hits
 *   score.c   the weights (one table) and the ranking
 *   pack.c    texts, enclosing headers, clipping and the token budget
 *   rank.c    the entry points and the multi-root search
 */
#ifndef CASTLS_RANK_INT_H
#define CASTLS_RANK_INT_H

#include "rank.h"

#define QUERY_LINES 30 /* lines before the cursor in the query */
#define QUERY_MAX 8192 /* bytes of query text */
#define AFTER_LINES 3  /* lines after the cursor also left out */
#define BEFORE_LINES 5 /* and before it, outside its definition */
#define IDENTS_CAP 256 /* identifiers collected near the cursor */
#define IDENT_MAX 64   /* bytes of one identifier, NUL included */
#define MAX_IDENTS 40  /* of those, looked up in the index */
#define DEFS_PER_IDENT 4
#define NAMED_SCAN 32 /* and further, for those in imported files */
/* A prototype whose body is offered keeps this share of its name's
 * weight: the body comes first, the prototype after it (make eval's C
 * set scored the same as with the prototype left out, 0.345 to 0.346). */
#define DECL_SHARE 0.25
#define MAX_BASES 4    /* base classes of the class being written */
#define MEMBERS_MAX 64 /* members read from each base */
#define CONTEXT_PARSE_MAX (4u << 20) /* largest buffer parsed here */
#define IMPORTS_MAX 48		     /* imported names looked up */
#define IMPORT_DEFS 16	    /* definitions of each, to find its module's */
#define IMPORT_SCAN 256	    /* further ones, when those are all elsewhere */
#define FRAGS_MAX 128	    /* imported modules, as path fragments */
#define INCLUDE_DEPTH 2	    /* C: the includes of includes, so deep */
#define INCLUDE_FILES 48    /* ... at most so many headers in all */
#define INCLUDE_LOOKUPS 256 /* ... and so many includes looked for */
#define INCLUDE_READ (512u << 10) /* the largest header read */
#define REDIRECTS_MAX 32	  /* go.mod's replaces read */
#define INCLUDE_DIRS_MAX 32	  /* from a compilation database */
#define TREES_MAX 64		  /* module trees of a workspace read by name */
#define BM25_HITS 40
/* Chunks the lexical search of a context request scores at most: its
 * query is thirty lines of code and words are one signal of several,
 * so it keeps its rarest terms only (a search keeps more). On a large
 * workspace the search's cost is this budget. */
#define BM25_POSTINGS 5000
#define PER_FILE 3	 /* items from one other file */
#define PER_SAME_FILE 5	 /* and from the current file */
#define TOP_ITEMS 5	 /* the first items ... */
#define TOP_SAME_FILE 4	 /* ... hold at most this many of the current file */
#define TOP_UNNAMED 2	 /* ... and this many not named near the cursor */
#define JOIN_LINES 6	 /* longest definition joined to a neighbour */
#define DATA_GAP_LINES 5 /* lines apart data siblings may be, joined */
#define ITEM_BYTES (RANK_ITEM_LINES * 160)
#define CLIP_SCAN_LINES 400 /* a chunk's lines searched for the best window */
#define CHAIN_MAX 16	    /* enclosing definitions shown */
#define RECEIVERS_MAX 32    /* methods called on typed receivers */
#define OUTLINE_LEAD                                                     \
	12		/* lines of a class shown whole, at most, before \
			 * its outline lists its other members */
#define OUTLINE_SPAN 40 /* lines an outline's range stands for, at most */
#define RECEIVER_DEFS 4 /* definitions of each looked up */

/* The names the rest of the buffer uses: read within FILE_LINES of the
 * query, a use counting half at FILE_NEAR_LINES from the cursor. */
#define FILE_LINES 500
#define FILE_NEAR_LINES 50.0
#define FILE_IDENTS_CAP 256 /* names collected there */
/* Of those, looked up in the index: 48 rather than 32 raised every
 * language's check half or held it (C 0.323 -> 0.326, Python 0.440 ->
 * 0.443), for about 1 ms more at the median on 5 million lines; 64 added
 * nothing more. */
#define FILE_LOOKUPS 48
/* The buffer's other definitions of the name being written read for the
 * names they use, and how many of those names are looked up. */
#define SIBLINGS_MAX 8
#define SIBLING_LOOKUPS 32
/* The buffer's definitions whose headers are like that of the one being
 * written (sharing at least SIMILAR_MIN of its words, weighed by how
 * rare they are among the buffer's headers), at most SIMILAR_MAX of
 * them, the likest, are read for the names their bodies use; those
 * names share the namesakes' lookups. HEADER_WORDS: a header's words
 * compared, at most. */
#define SIMILAR_MAX 8
#define SIMILAR_MIN 0.4
#define HEADER_WORDS 24
/* Other files' definitions of the name being written read (the first
 * NAMESAKES_READ in the index's order, NAMESAKE_BYTES of each), and the
 * names that at least NAMESAKE_SHARE of them use looked up (at most
 * NAMESAKE_LOOKUPS). On the tuning halves, share 0.2 won C++ two tasks
 * over 0.3 (0.1 the same as 0.2; 0.5 lost five tasks over C++, Java
 * and Python); 24 read moved one Go and one Java task apart. */
#define NAMESAKES_READ 12
#define NAMESAKE_BYTES 4096
#define NAMESAKE_SHARE 0.2
#define NAMESAKE_LOOKUPS 24

/* ---------------------------------------------------------------------- *
 * words.c
 * ---------------------------------------------------------------------- */

bool rank__ident_start(unsigned char c);
bool rank__ident_char(unsigned char c);

/* The next identifier of text[lo, hi) at or after *i (not the tail of a
 * number or of a longer word): its start in *a, *i past its end. False
 * when there is none. */
bool rank__next_word(const char *text, uint32_t lo, uint32_t hi, uint32_t *i,
		     uint32_t *a);

/* Whether the word of text that ends at z is called: `(` follows it,
 * blanks between (`f(`, `f (`), before hi. */
bool rank__called_at(const char *text, uint32_t hi, uint32_t z);

/* Whether t[i] starts `prefix.name` (or prefix, sep, name: `m::f`;
 * prefix not the tail of a longer name or path) within [lo, hi), with
 * name an identifier: its bytes in [*a, *z). */
bool rank__member_at(const char *t, uint32_t lo, uint32_t hi, uint32_t i,
		     const char *prefix, size_t plen, const char *sep,
		     uint32_t *a, uint32_t *z);

typedef struct {
	char name[IDENT_MAX];
	double weight; /* falls with the distance from the cursor */
} Ident;

/* The identifiers of text[lo, hi) that are not stopwords of lang nor in
 * the sorted ranges skip[0, nskip) (comments, strings, imports), weighted
 * by their distance in lines from the cursor line (first_line is the line
 * of lo), heaviest first, into out; returns how many. */
int rank__idents(Lang lang, const char *text, uint32_t lo, uint32_t hi,
		 uint32_t cursor_line, uint32_t first_line,
		 const ByteRange *skip, uint32_t nskip, Ident *out, int cap);
/* The identifiers of text[lo, hi) outside hole (the query, whose names
 * rank__idents has), as rank__idents skips them, each weighted by the sum
 * over its uses of a weight that halves FILE_NEAR_LINES from the cursor
 * line: what the rest of the buffer uses, and the code being written is
 * likely to use too. Heaviest first into out; returns how many. */
int rank__file_idents(Lang lang, const char *text, uint32_t lo, uint32_t hi,
		      ByteRange hole, uint32_t cursor_line, uint32_t first_line,
		      const ByteRange *skip, uint32_t nskip, Ident *out,
		      int cap);
/* Adds to *acc the weight of a use line_gap lines before the cursor, as
 * rank__idents weighs the uses of a name: proximity dominates, repeated
 * use adds a little. */
void rank__add_use(double *acc, uint32_t line_gap);
/* Sorts ids heaviest first. */
void rank__idents_sort(Ident *ids, int n);
/* The index of name[0, len) among ids, -1 when absent. */
int rank__ident_find(const Ident *ids, int nids, const char *name, size_t len);
/* The weight of name among ids, 0 when absent. */
double rank__mention(const Ident *ids, int nids, const char *name);
/* Identifiers (at most IDENTS_CAP) found by hash rather than one by one:
 * a chunk's best window weighs every word of up to CLIP_SCAN_LINES lines
 * against them. Built once for a request's packing. */
typedef struct {
	const Ident *ids;
	int16_t slot[4 * IDENTS_CAP]; /* -1: empty */
} IdentIndex;
void rank__ident_index(IdentIndex *x, const Ident *ids, int nids);
/* The weight of the identifiers x holds in t[a, z). */
double rank__line_value(const char *t, uint32_t a, uint32_t z,
			const IdentIndex *x);

/* How often each word occurs in a text. */
typedef struct {
	uint32_t at, len; /* a use of the word in the text; len 0: empty */
	uint32_t count;
	uint32_t callers; /* functions that call it by its bare name */
	int32_t last;	  /* the last of them, or -1 */
} Word;

typedef struct {
	const char *text;
	Word *slot;
	uint32_t mask, n;
	uint32_t nfns; /* the functions counted as callers */
} Words;

/* A function of a text: where it is, and its name. */
typedef struct {
	ByteRange bytes;
	const char *name;
} FnRange;

/* Counts every identifier of text[0, len), and for each, the functions
 * of fns[0, nfns) (by start, none inside another) that call it. */
void rank__words_count(Words *ws, const char *text, uint32_t len,
		       const FnRange *fns, uint32_t nfns);
/* How many of the text's functions call s. */
uint32_t rank__words_callers(const Words *ws, const char *s, size_t n);
uint32_t rank__words_get(const Words *ws, const char *s, size_t n);
void rank__words_free(Words *ws);

/* ---------------------------------------------------------------------- *
 * where.c
 * ---------------------------------------------------------------------- */

/* A name the file imports and where from: the module as a path stem
 * relative to the root ("src/util/x" for './x' in src/util/a.ts,
 * "pkg/mod" for `from .mod import` in pkg/a.py), or, for an absolute
 * module, a stem the path must end with ("a/b" for `from a.b`). */
typedef struct {
	char name[IDENT_MAX];
	char local[IDENT_MAX]; /* the name in this file: an alias, or name */
	char stem[192];
	bool suffix;		       /* stem matches at the end of a path */
	bool top;		       /* stem "" is the root directory */
	uint32_t stmt_start, stmt_end; /* the import statement's bytes */
	uint32_t uses;		       /* of local, outside import statements */
	bool member;		       /* used as a member of an imported module
					* (`M.name`): only the module's own counts */
	bool pair;    /* a header found exactly, whose source file may be
		       * anywhere */
	bool sources; /* only source files match (not headers) */
	bool mapped;  /* a package specifier a path map resolved */
	bool outside; /* a package of a module other than the file's, which
		       * no redirect or vendor directory brings into the
		       * workspace */
} Import;

/* A module path the manifest maps to a directory of the root (Go's
 * `replace a/b => ../b`). */
typedef struct {
	char from[128];
	char dir[192]; /* relative to the root; "" the root itself */
} Redirect;

/* A module tree of the workspace by its name (a Rust crate). */
typedef struct {
	char name[IDENT_MAX]; /* as code writes it */
	char dir[192];	      /* of its manifest, relative to the root */
} Tree;

/* A module specifier pattern (at most one `*`) and the stem from the
 * root it stands for (where the `*` goes, if any): a tsconfig.json
 * `paths` entry (`@app/` and a star for `src/` and a star), a workspace
 * package's name and its entry. */
#define PATH_MAPS_MAX 128
typedef struct {
	char from[96];
	char to[192];
} PathMap;

typedef struct {
	PathMap map[PATH_MAPS_MAX];
	uint32_t n;
	char base[192]; /* tsconfig.json's baseUrl, from the root */
	bool has_base;
} PathMaps;

/* A method called on a receiver of a known type: `x.name` for x a
 * `cls`. */
typedef struct {
	char cls[IDENT_MAX];
	char name[IDENT_MAX];
	double weight; /* its calls' weight as uses (rank__add_use), or
			* the likeness share of the similar definitions
			* that call it */
	bool similar;  /* called in a similar definition's body, not near
			* the cursor */
	uint32_t scan; /* the last similar definition's scan that counted
			* it (receivers.c) */
} Receiver;

typedef enum {
	FROM_LIVE,  /* a span or binding of the current buffer */
	FROM_SPAN,  /* a span row of the index */
	FROM_CHUNK, /* a chunk row of the index (BM25) */
} Origin;

typedef struct {
	Origin from;
	int root;
	char *path; /* relative to its root */
	Lang lang;
	ChunkKind kind;
	int64_t file_id; /* index rows; 0 for FROM_LIVE */
	int64_t row;	 /* span or chunk id; live span index for FROM_LIVE */
	int64_t parent;	 /* span id of the innermost enclosing span */
	int32_t live_parent; /* FROM_LIVE: that span in Where.live, or -1 */
	ByteRange bytes;     /* of the whole definition or chunk */
	LineRange lines;     /* what the item shows, once clipped */
	uint32_t last_line;  /* the definition's or chunk's own last line */
	char *symbol;	     /* qualified name, or "" */
	char *text;	     /* chunk text; definitions' is read when packed */
	char *raw;	     /* FROM_SPAN: the text read for it, from the
			      * start of its first line's 256 bytes before */
	bool fetched;	     /* raw was asked for */
	double mention;	     /* its name is used near the cursor */
	double file_use;     /* ... elsewhere in the buffer (index rows) */
	double sibling;	     /* ... by the buffer's other definitions of
			      * the name being written */
	double similar;	     /* ... by the buffer's definitions with
			      * headers like its */
	double namesakes;    /* ... by other files' definitions of the
			      * name being written */
	uint32_t uses;	     /* same file: uses of its name besides its own */
	uint32_t callers;    /* same file: its functions that call it */
	bool unused_private; /* same file: kept to it, and used nowhere in
			      * it yet */
	double bm25, score;
	uint32_t near;	  /* lines from the cursor, same file only */
	bool member;	  /* of the class being written or its bases */
	bool overrides;	  /* a base's method the one being written
			   * overrides */
	bool other_class; /* a member of some other class */
	bool receiver;	  /* a method of the type of a receiver it is
			   * called on near the cursor */
	bool is_class;	  /* a class-like definition: shown as an outline
			   * when its body does not fit */
	bool outlined;	  /* it is */
	bool data;	  /* a constant, variable or field */
	bool method;	  /* a method (index rows; the buffer's own are
			   * members or other_class) */
	bool adds_to;	  /* named by a type it adds members to (Rust's
			   * impl): no definition of the name */
	bool imported, same_file, taken, clipped;
	bool declared;	    /* a function whose declaration is in a file
			     * the current imports (a C header) */
	bool import_name;   /* a name the current file imports */
	bool import_unused; /* by name, and does not use yet */
	bool import_member; /* a member of a module the file imports, named
			     * through it near the cursor (`M.name`) */
	char defined[160];  /* the names the cursor uses, comma-separated */
	char joined[160];   /* the siblings joined to it, comma-separated */
	uint32_t whole_end; /* outlined: the last line of its lead */
	uint32_t item;	    /* taken: its index among the items */
} Cand;

typedef struct {
	Cand *c;
	uint32_t n, cap;
	/* Where each (from, root, row) is in c while candidates are
	 * gathered, so that adding one is not a scan of all (a buffer of
	 * thousands of definitions made that quadratic): open addressing,
	 * a slot is 0 or an index into c plus one; nslots is a power of two
	 * or 0 (none built, or dropped when c is sorted). */
	uint32_t *slots, nslots;
} Cands;

/* Everything one context request knows. */
typedef struct {
	const RankCursor *q;
	uint32_t cursor_line;
	uint32_t q_lo;		    /* the query starts here */
	uint32_t ex_first, ex_last; /* lines of the buffer left out */
	const TSTree *tree;	    /* of the buffer; NULL if too big */
	TSTree *own_tree;	    /* parsed here, to free */
	Chunking live;		    /* every span of the buffer */
	int32_t cls;		    /* innermost class around the cursor */
	const char *own;    /* the name of the definition being written, or
			     * NULL (borrowed from live) */
	uint32_t own_start; /* where it starts (the cursor without one) */
	int32_t own_span;   /* its live span, or -1 */
	char bases[MAX_BASES][IDENT_MAX]; /* that class's bases */
	int nbases;
	int owner; /* the base that is the class of a method written outside
		    * it (where.c's owner_class), or -1 */
	Buf query;
	Words words;	       /* of the whole buffer */
	Ident ids[IDENTS_CAP]; /* near the cursor, heaviest first */
	int nids;
	ByteRange *skip; /* what the query holds that names nothing the code
			  * uses (where.c's noncode and apart_names), in
			  * order */
	uint32_t nskip;
	Ident fids[FILE_IDENTS_CAP]; /* elsewhere in the buffer */
	int nfids;
	Ident sids[FILE_IDENTS_CAP]; /* in the buffer's namesakes of the
				      * definition being written, weighed by
				      * the share of them that use each */
	int nsids;
	const Span *like[SIMILAR_MAX];	/* its similar definitions */
	double like_share[SIMILAR_MAX]; /* each one's share of likeness */
	uint32_t nlike;
	Ident simids[FILE_IDENTS_CAP]; /* in the bodies of its similar
					* definitions, weighed by their
					* likeness */
	int nsimids;
	Import *imp; /* names imported */
	int nimp;
	ByteRange *methods_of; /* the receivers of its methods, naming the
				* type each is of (chunker_receivers), in
				* order */
	uint32_t nmethods_of;
	ByteRange *paths; /* what names nothing the code uses, in order: the
			   * module paths of its imports, methods_of, and
			   * outside */
	uint32_t npaths;
	ByteRange *outside; /* members of packages outside the workspace
			     * (imports.c's outside_members), in order */
	uint32_t noutside;
	char (*frags)[96]; /* modules imported, as path fragments */
	int nfrags;
	Import *mods; /* modules imported, resolved (languages whose
		       * modules are directories or headers) */
	int nmods;
	ModuleRules mr;	 /* of the buffer's language */
	int manifest;	 /* 0: not looked for; 1: found; -1: none */
	char mdir[192];	 /* the directory holding it, from the root */
	char mpath[192]; /* the module path it names */
	Redirect *redir; /* its redirects to local directories */
	int nredir;
	char (*incdirs)[192]; /* include directories, from the root */
	int nincdirs;
	bool incdirs_read;
	Tree *trees; /* the workspace's module trees, by name */
	int ntrees;
	bool trees_read;
	PathMaps *maps;		      /* read at the first package specifier */
	Receiver recv[RECEIVERS_MAX]; /* methods called on typed names */
	int nrecv;
	Cands cs;
	double best_bm25;
	uint64_t statements;
} Where;

/* Finds the query text, the region left out, the live spans and the
 * class being written. */
void rank__locate(Where *w, const RankCursor *q);
void rank__where_free(Where *w);
/* The path of the root the buffer's file is under (borrowed), or NULL
 * when it is under none: nothing is read from disk for it then. */
const char *rank__root_path(const Where *w);
/* The names the query uses, into w->ids (after rank__imports): not the
 * parts rank__locate found to name nothing, nor those rank__imports put
 * in w->paths. */
void rank__near_words(Where *w);
/* The names the buffer uses within FILE_LINES of the query, outside it
 * and its imports' module paths, into w->fids (after rank__imports):
 * the code after the cursor too, the rest of the definition being
 * written and its neighbours. */
void rank__file_words(Where *w);
/* The names the buffer's other definitions of the name being written use
 * (up to SIBLINGS_MAX of them, the nearest), into w->sids: another
 * class's version of the same method, an overload, does what the code
 * being written is about to. */
void rank__sibling_words(Where *w);
/* The names the bodies of the buffer's definitions with headers like the
 * one being written use (the SIMILAR_MAX likest), into w->simids: a
 * name weighs the likeness of the definitions that use it over that of
 * all those read. Functions that take the same things tend to do the
 * same with them. */
void rank__similar_words(Where *w);
/* Whether candidate c lies in the region of the buffer left out. */
bool rank__excluded(const Where *w, const Cand *c);
uint32_t rank__line_start(const char *text, uint32_t off);
uint32_t rank__lines_between(uint32_t a, uint32_t b);
/* Whether name is one of w->bases. */
bool rank__is_base(const Where *w, const char *name);
/* Whether the class being written defines name[0, len) itself (a base's
 * field of that name is overridden). */
bool rank__in_class(const Where *w, const char *name, size_t len);
/* Whether span sp of the buffer holds the cursor (blank lines after its
 * body, indented deeper than its first line, count as inside; after a
 * function with no body yet, at any column). */
bool rank__around(const Where *w, const Span *sp);

/* ---------------------------------------------------------------------- *
 * imports.c
 * ---------------------------------------------------------------------- */

/* Reads the buffer's imports into w->imp (with their uses) and its
 * modules into w->frags. */
void rank__imports(Where *w);
/* ByteRanges by start, for qsort. */
int rank__cmp_range(const void *a, const void *b);
/* Drops from stem the first extension of the list exts (space-separated)
 * it ends with. */
void rank__strip_ext(char *stem, const char *exts);
/* Resolves package specifier m[0, n) through the workspace's path maps
 * (read into w->maps on the first call) into im->stem; false when no map
 * names it. */
bool rank__map_module(Where *w, const char *m, size_t n, Import *im);
/* Whether path is what im's module names (stem.py, stem/__init__.py,
 * stem.ts, stem/index.ts, ... as the language says). */
bool rank__import_resolves_to(const Where *w, const Import *im,
			      const char *path);
/* Whether path holds one of the modules the buffer imports. */
bool rank__path_imported(const Where *w, const char *path);
/* Appends path component s[0, n) to stem (cap bytes), resolving "." and
 * ".." (which stops at ""). */
void rank__stem_push(char *stem, size_t cap, const char *s, size_t n);
/* Path p[0, n) from directory dir, "." and ".." resolved, into out (cap
 * bytes): false when it climbs above the root. */
bool rank__stem_below(const char *dir, const char *p, size_t n, char *out,
		      size_t cap);

/* ---------------------------------------------------------------------- *
 * includes.c
 * ---------------------------------------------------------------------- */

/* The include directories the compilation database names, inside the
 * root, into w->incdirs; read once for each version of the database. */
void rank__include_dirs(Where *w);
/* The include directories of database text[0, len) (not NUL-terminated),
 * found in directory dbdir of root (relative; for entries whose
 * directory is relative), added to w->incdirs by w->mr's flags. */
void rank__include_scan(Where *w, const char *root, const char *dbdir,
			const char *text, size_t len);
/* What the includes of header rel (at path, absolute) resolve to under
 * w's include directories, appended to found (each file NUL-ended) while
 * its stamp is the one rank__header_put kept; false when not held. */
bool rank__header_get(const Where *w, const char *rel, const char *path,
		      Buf *found);
void rank__header_put(const Where *w, const char *rel, const DiskStamp *st,
		      const Buf *found);

/* ---------------------------------------------------------------------- *
 * receivers.c
 * ---------------------------------------------------------------------- */

/* The methods the code before the cursor calls on names of a known type,
 * into w->recv. */
void rank__receivers(Where *w);

/* ---------------------------------------------------------------------- *
 * gather.c
 * ---------------------------------------------------------------------- */

Cand *rank__cand_new(Cands *cs, Origin from, int root, int64_t row);
void rank__cands_free(Cands *cs);
/* Drops the index of cs->c, before c is reordered. */
void rank__cands_unindex(Cands *cs);
static inline bool rank__is_def(const Cand *c) { return c->from != FROM_CHUNK; }

/* Every candidate for the cursor, into w->cs, and w->best_bm25. */
void rank__gather(Where *w);

/* ---------------------------------------------------------------------- *
 * score.c
 * ---------------------------------------------------------------------- */

/* The weights, tuned on the development sets (make eval). */
typedef struct {
	double mention;		/* a definition of a name used near the cursor,
				 * by proximity */
	double mention_apart;	/* the share of that for a definition that
				 * nothing ties to the buffer (see
				 * mention_share) */
	double mention_outside; /* and where the buffer's names reach only
				 * its package and its imports */
	double member;		/* a member of the class being written or of
				 * its bases (self.x, this.x) */
	double other_class;	/* (minus) a member of another class */
	double near;	      /* the current file's definitions, by distance */
	double near_lines;    /* distance at which that prior halves */
	double imported;      /* a definition in a file the current imports */
	double import_name;   /* a definition of a name the file imports */
	double import_unused; /* by name, and does not use yet */
	double import_member; /* a module's member named through the module
			       * near the cursor (`M.name`), or a name not
			       * used yet defined in no file imported */
	double file_use;      /* a definition of a name the rest of the
			       * buffer uses, by how often and how near,
			       * in a file the buffer imports */
	double file_namesake; /* ... in some other file */
	double sibling;	      /* a definition of a name the buffer's other
			       * definitions of the name being written use
			       * (the same method of another class, an
			       * overload), by the share of them that do */
	double similar;	      /* a definition of a name the bodies of the
			       * buffer's definitions with headers like the
			       * one being written use, in another file */
	double similar_here;  /* ... in the buffer itself */
	double namesakes;     /* a definition of a name other files'
			       * definitions of the name being written
			       * use, by the share of them that do: 0.5
			       * raised the tuning and check halves of
			       * C++, Go and TypeScript; 1.0 raised C++'s
			       * tuning half more, but every check half
			       * but Go's fell */
	double kept_unused;   /* the current file's definitions kept to it
			       * (`static`, `_name`) that it does not use
			       * yet */
	double uses;	      /* the current file's definitions, by how often
			       * the file uses them */
	double uses_full;     /* uses that earn all of it */
	double callers;	      /* the current file's top-level functions and
			       * classes, by the share of its functions that
			       * call them */
	double callers_full;  /* the share that earns all of it */
	double receiver;      /* a method of the type of its receiver */
	double bm25;	      /* lexical, relative to the best hit */
	double same_file;     /* a lexical hit of the current file */
	double bm25_min;      /* raw score below which lexical is noise */
	double score_min;     /* below this, nothing is shown */
	double stop_score;    /* when the best scores below this, nothing is:
			       * the stop signal */
} Weights;

extern const Weights rank__weights;

/* Scores and sorts w->cs, then joins small siblings into one item. */
void rank__score(Where *w);
/* Whether anything is worth showing: the stop signal's test. */
bool rank__worth_it(const Where *w);

/* ---------------------------------------------------------------------- *
 * pack.c
 * ---------------------------------------------------------------------- */

/* Packs the best candidates into the budget, into out's items. */
void rank__pack(Where *w, RankResult *out);

/* Frees one item's memory. */
void rank__item_clear(RankItem *it);
/* The enclosing definitions of an index row: the spans of chain (from
 * index_span_chains) from parent up, outermost first, those starting
 * before byte `before`; sets *inner to the innermost span's qualified
 * name (or leaves it). */
void rank__parents_from(const IndexSpan *chain, uint32_t n, int64_t parent,
			uint32_t before, RankItem *it, const char **inner);

#endif
