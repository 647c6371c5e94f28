/*
 * base.h: what every castls module shares: the one error space, the one
 * allocation policy, a content hash and UTF-8 helpers. The lowest module
 * we own: it includes nothing of castls and knows no other module.
 */
#ifndef CASTLS_BASE_H
#define CASTLS_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---------------------------------------------------------------------- *
 * Errors: fallible functions return 0 or one of these negative codes.
 * ---------------------------------------------------------------------- */

#define CASTLS_ERRORS(X)                                 \
	X(INVAL, "invalid argument")                     \
	X(IO, "input/output error")                      \
	X(NOENT, "no such file or directory")            \
	X(ACCES, "permission denied")                    \
	X(NOSPC, "no space left on device")              \
	X(TOOBIG, "file exceeds the size limit")         \
	X(BINARY, "binary file")                         \
	X(NOLANG, "no supported language for this file") \
	X(PARSE, "parser gave up")                       \
	X(LIMIT, "input exceeds a limit")                \
	X(DB, "database error")                          \
	X(CORRUPT, "database is corrupt")                \
	X(BUSY, "database is locked by another process") \
	X(READONLY, "database is read-only")             \
	X(CANCELED, "operation canceled")                \
	X(NOTREG, "not a regular file")                  \
	X(OUTSIDE, "outside the workspace root")         \
	X(CHANGING, "file kept changing while it was read")

/* Positions in the table; the codes themselves are their negatives. */
enum {
	CASTLS_ERRIDX_OK_ = 0,
#define X(name, text) CASTLS_ERRIDX_##name,
	CASTLS_ERRORS(X)
#undef X
};

enum {
	CASTLS_OK = 0,
#define X(name, text) CASTLS_E##name = -CASTLS_ERRIDX_##name,
	CASTLS_ERRORS(X)
#undef X
};

/* A static description of code (0 or negative); never NULL. */
const char *castls_strerror(int code);

/* Maps an errno value to the nearest castls code. */
int castls_from_errno(int errnum);

/* ---------------------------------------------------------------------- *
 * Memory: allocation never fails. Out of memory prints a message and
 * aborts rather than limping on with half-built state.
 * ---------------------------------------------------------------------- */

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
void xfree(void *p);
/* n bytes at a multiple of align (a power of two, at least a pointer's
 * size); freed with xfree. */
void *xmalloc_aligned(size_t align, size_t n);

/* A growable byte buffer. Zero-initialise, then append; `data` is always
 * NUL-terminated when len > 0. */
typedef struct {
	char *data;
	size_t len, cap;
} Buf;

void buf_append(Buf *b, const void *p, size_t n);
/* Replaces b's bytes [at, at + del) by p[0, n) in place (at + del <=
 * b->len): an edit of a long text moves its tail, it is not copied. */
void buf_splice(Buf *b, size_t at, size_t del, const void *p, size_t n);
void buf_puts(Buf *b, const char *s);
void buf_printf(Buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Appends s as a JSON string literal, quotes included. Invalid UTF-8 is
 * replaced by U+FFFD so the output is always valid JSON. */
void buf_json_string(Buf *b, const char *s, size_t n);
/* Appends the n bytes at s with every byte that does not begin a
 * well-formed UTF-8 sequence replaced by U+FFFD, one for one (the count
 * of characters stays what lsp/position.c takes it to be). */
void buf_append_utf8(Buf *b, const char *s, size_t n);
/* Gives the buffer's memory to the caller (NUL-terminated, possibly an
 * empty string) and resets b. */
char *buf_take(Buf *b);
void buf_free(Buf *b);

/* ---------------------------------------------------------------------- *
 * Hashing and text
 * ---------------------------------------------------------------------- */

/* A 64-bit non-cryptographic hash of n bytes, stable across runs and
 * machines (stored in the index). */
uint64_t castls_hash(const void *p, size_t n, uint64_t seed);

/* True when the n bytes look like a binary file: a NUL byte, or too many
 * control characters, in the first few KiB. */
bool castls_is_binary(const char *text, size_t n);

/* True when the n bytes look like minified or bundled code: over
 * MINIFIED_MIN_BYTES, with lines of MINIFIED_LINE_BYTES on average. Such
 * files are generated, unreadable and duplicate their sources. */
#define MINIFIED_MIN_BYTES 2048
#define MINIFIED_LINE_BYTES 300
bool castls_is_minified(const char *text, uint32_t n);

/* How many of the n bytes at s, from the start, are well-formed UTF-8
 * (RFC 3629: no overlong forms, surrogates or code points past
 * U+10FFFF); n when all are. */
size_t utf8_valid_prefix(const char *s, size_t n);

/* True when byte b starts a UTF-8 character (anything but 10xxxxxx). */
static inline bool utf8_is_lead(unsigned char b) { return (b & 0xC0) != 0x80; }

/* True for the ASCII whitespace that chunk sizes ignore. */
static inline bool is_space_byte(unsigned char b)
{
	return b == ' ' || b == '\t' || b == '\n' || b == '\r' || b == '\v' ||
	       b == '\f';
}

/* Non-whitespace characters in [p, p+n): lead bytes that are not ASCII
 * whitespace. Invalid UTF-8 still gives a definite count. */
size_t castls_count_nonspace(const char *p, size_t n);

/* Line breaks ('\n') in the first off bytes of text: the 0-based line
 * (tree-sitter row) of byte off. */
uint32_t castls_count_newlines(const char *text, uint32_t off);

/* ---------------------------------------------------------------------- *
 * Files
 * ---------------------------------------------------------------------- */

/* True when path lies in directory dir or is dir itself, both absolute
 * and borrowed, compared by whole components ("/a/bc" is not in
 * "/a/b"); "/" holds every absolute path. Neither is resolved: callers
 * pass real paths. */
bool castls_path_within(const char *dir, const char *path);

/* A file's size and modification time as a read saw them. */
typedef struct {
	int64_t size;  /* bytes */
	int64_t mtime; /* nanoseconds since the epoch */
} DiskStamp;

/*
 * Reads a whole regular file into a NUL-terminated heap buffer. Anything
 * else (a FIFO, a device, a directory, a socket) fails with
 * CASTLS_ENOTREG without being opened, so no read can block. Fails with
 * CASTLS_ETOOBIG when the file is larger than limit bytes (0: no limit).
 * On success *out is the caller's to xfree and *len its length.
 *
 * The bytes are a snapshot: the file's size and mtime are taken before
 * and after the read, and a read that saw them change (a file rewritten
 * meanwhile: truncated, or half written) is retried a few times, then
 * fails with CASTLS_ECHANGING.
 */
int castls_read_file(const char *path, size_t limit, char **out, size_t *len);

/* castls_read_file, only when the file opened lies inside the directory
 * root (an absolute real path; borrowed; NULL: anywhere): checked on the
 * open file, after any symlink was followed, so neither a link nor a
 * directory swapped in before the open can lead out of root. A file
 * outside fails with CASTLS_EOUTSIDE. stamp (may be NULL) gets the stamp
 * the bytes belong to. */
int castls_read_file_in(const char *root, const char *path, size_t limit,
			char **out, size_t *len, DiskStamp *stamp);

/* True when word occurs in the space-separated list. */
bool word_in_list(const char *list, const char *word);
/* The same for word[0, n), which need not end in a NUL. */
bool word_in_list_n(const char *list, const char *word, size_t n);

/* Sets how the C library's allocator keeps memory, before any thread
 * starts (castls' main calls it first). With glibc: one arena for every
 * thread, and freed memory kept, up to CASTLS_MALLOC_KEEP at the top of
 * the heap, for the next allocation. A request reads hundreds of index
 * pages into buffers its connection freed when another connection
 * committed; memory given back to the system meanwhile comes back a page
 * fault at a time, thousands for one request while a scan runs, and on
 * a virtual machine those faults were most of its time. Elsewhere it
 * does nothing. */
#define CASTLS_MALLOC_KEEP (64u << 20)
void castls_malloc_init(void);

/* How far background work yields: at nice 10 a thread weighs about a
 * tenth of one at 0. */
#define CASTLS_BACKGROUND_NICE 10

/* Runs fn(arg) in a thread of its own at CASTLS_BACKGROUND_NICE and waits
 * for it to return: for work such as a scan, whose threads (they inherit
 * the value) should leave the cores to the caller's requests. The calling
 * thread keeps its priority, which it could not raise again once lowered.
 * Linux keeps a nice value per thread; elsewhere fn runs at the caller's
 * priority. When no thread can be started, fn runs on the caller. */
void castls_run_in_background(void (*fn)(void *), void *arg);

#endif
