/*
 * tokenize.h: the code-aware tokenizer of the index, internal to index/.
 *
 * One tokenizer serves two readers: SQLite FTS5, through a custom
 * tokenizer registered as "castls", and the ranking code, which calls
 * code_tokenize() on queries directly. Both must see the same tokens or
 * a query would never match what was indexed.
 *
 * What is a token
 *
 *   An identifier is a run of ASCII letters, digits, '_' and '$', plus any
 *   valid UTF-8 multibyte character except a few blocks of non-ASCII
 *   punctuation, spaces and symbols (NBSP and the rest of U+0080..U+00BF,
 *   General Punctuation, arrows and math operators, box drawing and
 *   dingbats, CJK punctuation, the BOM, U+FFFD, emoji). Everything else,
 *   invalid UTF-8 bytes included, separates identifiers, so tokens are
 *   always valid UTF-8. Only ASCII is lower-cased.
 *
 *   For each identifier, in this order and all lower-cased:
 *
 *   TOKEN_WHOLE   the identifier with leading and trailing '_' and '$'
 *                 trimmed and its inner ones removed: "__init__" ->
 *                 "init", "$HOME" -> "home", "MAX_SIZE" -> "maxsize".
 *                 So getUserName and get_user_name meet (both give
 *                 "getusername"). An identifier of only '_' and '$'
 *                 yields nothing. (The spelling with '_' is no token of
 *                 its own: every query for it would ask for the joined
 *                 one at the same position, so it found the same rows
 *                 with the same counts, at a tenth more postings.)
 *   TOKEN_PART    each camelCase, snake_case and letter/digit part:
 *                 "getHTTPResponse2xx" -> get, http, response, 2, xx;
 *                 "XMLParser" -> xml, parser; "utf8" -> utf, 8;
 *                 "int32_t" -> int, 32, t. A run of capitals ends before
 *                 the capital that starts a lower-case word ("HTTPResponse"
 *                 -> http, response). Non-ASCII letters are caseless:
 *                 a capital after one starts a part ("éFoo" -> é, foo),
 *                 but one does not end a capital run ("ABé" stays whole).
 *                 A part equal to the whole or an earlier part is not
 *                 emitted again.
 *
 *   An identifier starting (after trimming) with a digit is a number:
 *   "0x1F" -> "0x1f", "1_000" -> "1000", flagged TOKEN_NUMBER and never
 *   split into parts. Numbers, and digit parts, longer than
 *   CODE_NUMBER_MAX bytes are dropped (hashes, blobs); a number is
 *   measured with its '_'.
 *
 * Limits
 *
 *   No token holds a '_' or '$'. Every emitted token is at most
 *   CODE_TOKEN_MAX bytes: a longer whole or part is truncated at a
 *   character boundary, so the cut token tokenizes back to itself; the
 *   same rule applies on both sides, so a truncated query still meets a
 *   truncated document token. An identifier longer than CODE_IDENT_MAX
 *   bytes is skipped entirely: it is minified code or data, not a name.
 *   Identifiers after it are still read.
 *
 * FTS5 positions
 *
 *   In documents every identifier takes one position: the whole starts
 *   it and the parts are FTS5_TOKEN_COLOCATED, so phrase and NEAR
 *   queries line up on identifiers and the column size that bm25() uses
 *   counts identifiers. In queries (and prefix queries) only the whole
 *   is emitted: "get_user_name" and "getUserName" both match
 *   get_user_name and getUserName, and "user name" (two terms, AND)
 *   matches both through the indexed parts. Emitting parts in queries
 *   would turn getUserName into "get OR user OR name", matching nearly
 *   everything with equal weight; for a forgiving search,
 *   code_query_build() makes each part its own OR-ed phrase instead, so
 *   bm25() rewards rows that match more of them.
 */
#ifndef CASTLS_INDEX_TOKENIZE_H
#define CASTLS_INDEX_TOKENIZE_H

#include <sqlite3.h>

#include "base/base.h"

#define CODE_TOKEN_MAX 64	/* bytes per emitted token */
#define CODE_IDENT_MAX 256	/* bytes; longer identifiers are skipped */
#define CODE_NUMBER_MAX 20	/* bytes; longer numbers are dropped */
#define CODE_QUERY_TERMS_MAX 32 /* distinct terms in code_query_build() */

/* Flags passed to a TokenFn. TOKEN_PART means "same position as the
 * previous token". */
enum {
	TOKEN_WHOLE = 0,
	TOKEN_PART = 1 << 0,
	TOKEN_NUMBER = 1 << 1, /* with TOKEN_WHOLE */
};

/*
 * Receives one token. tok borrows a scratch buffer valid only during the
 * call; it is not NUL-terminated, len > 0, and it is valid UTF-8.
 * [start, end) are the bytes of text it came from (for the whole, the
 * trimmed identifier). Return 0 to go on, anything else to stop.
 */
typedef int (*TokenFn)(void *ctx, int flags, const char *tok, int len,
		       int start, int end);

/*
 * Tokenizes len bytes of text (borrowed; need not be NUL-terminated;
 * may be NULL when len is 0), calling fn for every token in text order.
 * Keeps no state between calls, so any thread may call it; it uses about
 * 7 KiB of stack.
 * Returns 0 when the text is exhausted, the callback's non-zero value
 * unchanged when it stops early, or CASTLS_ELIMIT (before any callback)
 * when len exceeds INT_MAX, as offsets are ints.
 */
int code_tokenize(const char *text, size_t len, TokenFn fn, void *ctx);

/*
 * Registers the tokenizer as "castls" on db (borrowed), for tables made
 * with tokenize='castls'. It takes no arguments. Registration lasts as
 * long as the connection. Returns 0, or CASTLS_EDB when db has no FTS5
 * or refuses the tokenizer.
 */
int code_tokenizer_register(sqlite3 *db);

/* The FTS5 API of db (borrowed, for as long as db is open), or NULL when
 * its SQLite has no FTS5 of version 2 or later. */
fts5_api *code_fts5_api(sqlite3 *db);

/*
 * Appends to out an FTS5 MATCH expression for free text (borrowed; any
 * bytes): the whole and part tokens of text, each double-quoted, without
 * duplicates, joined by " OR ", at most CODE_QUERY_TERMS_MAX of them in
 * text order. Every term is a plain token, so the expression is valid
 * whatever the input. Returns the number of terms; when it is 0 nothing
 * was appended and the caller must not run the MATCH (FTS5 rejects an
 * empty expression).
 */
int code_query_build(const char *text, size_t len, Buf *out);

#endif
