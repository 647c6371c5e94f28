/*
 * base.c: errors, allocation, buffers, hashing and text helpers.
 */
#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif
#include <time.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- *
 * Errors
 * ---------------------------------------------------------------------- */

static const char *const error_text[] = {"success",
#define X(name, text) text,
					 CASTLS_ERRORS(X)
#undef X
};

const char *castls_strerror(int code)
{
	size_t i = code <= 0 ? (size_t) - (long)code : 0;

	if (code > 0 || i >= sizeof(error_text) / sizeof(error_text[0]))
		return "unknown error";
	return error_text[i];
}

int castls_from_errno(int errnum)
{
	switch (errnum) {
	case ENOENT:
	case ENOTDIR:
		return CASTLS_ENOENT;
	case EACCES:
	case EPERM:
		return CASTLS_EACCES;
	case ENOSPC:
	case EDQUOT:
		return CASTLS_ENOSPC;
	case EFBIG:
		return CASTLS_ETOOBIG;
	case EROFS:
		return CASTLS_EREADONLY;
	default:
		return CASTLS_EIO;
	}
}

/* ---------------------------------------------------------------------- *
 * Memory
 * ---------------------------------------------------------------------- */

static void out_of_memory(size_t n)
{
	fprintf(stderr, "castls: out of memory (%zu bytes)\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		out_of_memory(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);

	if (!p)
		out_of_memory(count * size);
	return p;
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (!q)
		out_of_memory(n);
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *d = xmalloc(n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

void xfree(void *p) { free(p); }

void *xmalloc_aligned(size_t align, size_t n)
{
	void *p = NULL;

	if (posix_memalign(&p, align, n ? n : 1) != 0)
		out_of_memory(n);
	return p;
}

/* ---------------------------------------------------------------------- *
 * Buffers
 * ---------------------------------------------------------------------- */

static void buf_reserve(Buf *b, size_t extra)
{
	size_t need = b->len + extra + 1;

	if (need <= b->cap)
		return;
	b->cap = b->cap ? b->cap : 64;
	while (b->cap < need)
		b->cap *= 2;
	b->data = xrealloc(b->data, b->cap);
}

void buf_append(Buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_splice(Buf *b, size_t at, size_t del, const void *p, size_t n)
{
	size_t tail = b->len - at - del;

	if (n > del)
		buf_reserve(b, n - del);
	if (!b->data)
		return;
	memmove(b->data + at + n, b->data + at + del, tail);
	if (n)
		memcpy(b->data + at, p, n);
	b->len = at + n + tail;
	b->data[b->len] = '\0';
}

void buf_puts(Buf *b, const char *s) { buf_append(b, s, strlen(s)); }

void buf_printf(Buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	buf_reserve(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_valid_len(const unsigned char *p, size_t n)
{
	size_t len, i;
	uint32_t c;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xC2 && p[0] <= 0xDF)
		len = 2, c = p[0] & 0x1F;
	else if (p[0] >= 0xE0 && p[0] <= 0xEF)
		len = 3, c = p[0] & 0x0F;
	else if (p[0] >= 0xF0 && p[0] <= 0xF4)
		len = 4, c = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (p[i] & 0x3F);
	}
	if ((len == 3 && (c < 0x800 || (c >= 0xD800 && c <= 0xDFFF))) ||
	    (len == 4 && (c < 0x10000 || c > 0x10FFFF)))
		return 0;
	return len;
}

void buf_json_string(Buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, run = 0;

	buf_reserve(b, n + 2);
	buf_append(b, "\"", 1);
	while (i < n) {
		unsigned char c = p[i];
		size_t len = c < 0x80 ? 1 : utf8_valid_len(p + i, n - i);

		if (c >= 0x20 && c != '"' && c != '\\' && len) {
			i += len;
			run += len;
			continue;
		}
		buf_append(b, p + i - run, run);
		run = 0;
		if (!len) {
			buf_append(b, "\xEF\xBF\xBD", 3);
		} else if (c == '"' || c == '\\') {
			char esc[2] = {'\\', (char)c};
			buf_append(b, esc, 2);
		} else if (c == '\n') {
			buf_append(b, "\\n", 2);
		} else if (c == '\t') {
			buf_append(b, "\\t", 2);
		} else if (c == '\r') {
			buf_append(b, "\\r", 2);
		} else {
			buf_printf(b, "\\u%04x", c);
		}
		i++;
	}
	buf_append(b, p + i - run, run);
	buf_append(b, "\"", 1);
}

size_t utf8_valid_prefix(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, len;

	while (i < n) {
		if (p[i] < 0x80) {
			i++;
			continue;
		}
		if (!(len = utf8_valid_len(p + i, n - i)))
			break;
		i += len;
	}
	return i;
}

void buf_append_utf8(Buf *b, const char *s, size_t n)
{
	size_t ok;

	while (n) {
		ok = utf8_valid_prefix(s, n);
		buf_append(b, s, ok);
		if (ok == n)
			break;
		buf_append(b, "\xEF\xBF\xBD", 3);
		s += ok + 1;
		n -= ok + 1;
	}
}

char *buf_take(Buf *b)
{
	char *p = b->data ? b->data : xstrdup("");

	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void buf_free(Buf *b)
{
	xfree(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

/* ---------------------------------------------------------------------- *
 * Hashing: 8 bytes at a time, multiply-xorshift mixing (our own; the
 * constants are odd 64-bit numbers with well-spread bits).
 * ---------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t h)
{
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	h *= 0xd6e8feb86659fd93ULL;
	h ^= h >> 32;
	return h;
}

uint64_t castls_hash(const void *data, size_t n, uint64_t seed)
{
	const unsigned char *p = data;
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);
	uint64_t w;

	while (n >= 8) {
		memcpy(&w, p, 8);
		h = mix64(h ^ w) + 0x632be59bd9b4e019ULL;
		p += 8;
		n -= 8;
	}
	w = 0;
	memcpy(&w, p, n);
	return mix64(h ^ w ^ 0xff51afd7ed558ccdULL);
}

/* ---------------------------------------------------------------------- *
 * Text
 * ---------------------------------------------------------------------- */

/* Both scans below are written without branches on the bytes (`&`, not
 * `&&`; no early exit), so the compiler can vectorize them: the indexer
 * runs them over every file, some of them twice. */

bool castls_is_binary(const char *text, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t i, ctrl = 0, nul = 0, probe = n < 8192 ? n : 8192;

	for (i = 0; i < probe; i++) {
		unsigned char c = p[i];

		nul += c == 0;
		/* Below 0x20: neither whitespace (0x09 to 0x0D) nor ESC. */
		ctrl += (c < 0x20) & ((unsigned char)(c - 0x09) > 0x04) &
			(c != 0x1B);
	}
	/* Text with a stray control byte is still text; one in ten is not. */
	return nul || (probe && ctrl * 10 > probe);
}

bool castls_is_minified(const char *text, uint32_t n)
{
	return n >= MINIFIED_MIN_BYTES &&
	       n / (castls_count_newlines(text, n) + 1) >= MINIFIED_LINE_BYTES;
}

size_t castls_count_nonspace(const char *text, size_t n)
{
	const unsigned char *p = (const unsigned char *)text;
	size_t count = 0;

	/* A byte-wide count per block of at most 240 bytes lets compilers
	 * vectorize the loop on byte lanes: twice as fast as on size_t. */
	while (n) {
		size_t m = n < 240 ? n : 240, i;
		uint8_t block = 0;

		/* is_space_byte(): ' ', or 0x09 to 0x0D. */
		for (i = 0; i < m; i++)
			block += ((p[i] & 0xC0) != 0x80) & (p[i] != ' ') &
				 ((unsigned char)(p[i] - 0x09) > 0x04);
		count += block;
		p += m;
		n -= m;
	}
	return count;
}

uint32_t castls_count_newlines(const char *text, uint32_t off)
{
	const char *p = text, *end = text + off, *nl;
	uint32_t n = 0;

	while ((nl = memchr(p, '\n', (size_t)(end - p))))
		n++, p = nl + 1;
	return n;
}

/* ---------------------------------------------------------------------- *
 * Files
 * ---------------------------------------------------------------------- */

/* Tries at reading a file that changes under the read, and the pause
 * before each retry (1, 4, 16 ms): a writer that truncates and rewrites
 * is done within that, unless it rewrites without pause. */
#define READ_TRIES 4

bool castls_path_within(const char *dir, const char *path)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return n > 0 && strncmp(path, dir, n) == 0 &&
	       (path[n] == '\0' || path[n] == '/');
}

static int64_t stat_mtime_ns(const struct stat *st)
{
	return (int64_t)st->st_mtim.tv_sec * 1000000000 + st->st_mtim.tv_nsec;
}

/* The real path of the file open as fd (opened by the name path) in
 * real, PATH_MAX bytes; false when it cannot be told. Linux names it in
 * /proc, other systems with F_GETPATH; both describe the file itself, so
 * a rename or a link swapped in after the open cannot fool them. The
 * last resort, realpath of the name, could be raced. */
static bool fd_real_path(int fd, const char *path, char *real)
{
#if defined(__linux__)
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, real, PATH_MAX - 1);
	if (n > 0 && real[0] == '/') {
		real[n] = '\0';
		return true;
	}
#elif defined(F_GETPATH)
	if (fcntl(fd, F_GETPATH, real) != -1)
		return true;
#endif
	return realpath(path, real) != NULL;
}

/* Reads the n bytes at the start of fd into data; returns how many it
 * got (fewer at an early end of file) or a negative castls code. */
static int64_t read_all(int fd, char *data, size_t n)
{
	size_t got = 0;

	while (got < n) {
		ssize_t r = pread(fd, data + got, n - got, (off_t)got);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return castls_from_errno(errno);
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (int64_t)got;
}

/* Reads regular file fd whole, as one snapshot (see base.h). */
static int read_snapshot(int fd, size_t limit, char **out, size_t *len,
			 DiskStamp *stamp)
{
	for (int try = 0;; try++) {
		struct stat a, b;
		char *data;
		int64_t got;

		if (fstat(fd, &a) < 0)
			return castls_from_errno(errno);
		if (limit && (uint64_t)a.st_size > limit)
			return CASTLS_ETOOBIG;
		data = xmalloc((size_t)a.st_size + 1);
		got = read_all(fd, data, (size_t)a.st_size);
		if (got < 0) {
			xfree(data);
			return (int)got;
		}
		if (fstat(fd, &b) < 0) {
			xfree(data);
			return castls_from_errno(errno);
		}
		if (got == a.st_size && b.st_size == a.st_size &&
		    stat_mtime_ns(&b) == stat_mtime_ns(&a)) {
			data[got] = '\0';
			*out = data;
			*len = (size_t)got;
			if (stamp)
				*stamp =
				    (DiskStamp){a.st_size, stat_mtime_ns(&a)};
			return 0;
		}
		xfree(data);
		if (try + 1 == READ_TRIES)
			return CASTLS_ECHANGING;
		nanosleep(&(struct timespec){0, 1000000L << (2 * try)}, NULL);
	}
}

int castls_read_file_in(const char *root, const char *path, size_t limit,
			char **out, size_t *len, DiskStamp *stamp)
{
	struct stat st;
	char real[PATH_MAX];
	int fd, err;

	*out = NULL;
	*len = 0;
	/* Only a regular file is opened at all: opening a FIFO waits for a
	 * writer, and opening a device can do anything. */
	if (stat(path, &st) < 0)
		return castls_from_errno(errno);
	if (!S_ISREG(st.st_mode))
		return CASTLS_ENOTREG;
	if (limit && (uint64_t)st.st_size > limit)
		return CASTLS_ETOOBIG;
	/* Non-blocking, in case a FIFO took the file's place since. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return castls_from_errno(errno);
	if (fstat(fd, &st) < 0)
		err = castls_from_errno(errno);
	else if (!S_ISREG(st.st_mode))
		err = CASTLS_ENOTREG;
	else if (root && (!fd_real_path(fd, path, real) ||
			  !castls_path_within(root, real)))
		err = CASTLS_EOUTSIDE;
	else
		err = read_snapshot(fd, limit, out, len, stamp);
	close(fd);
	return err;
}

int castls_read_file(const char *path, size_t limit, char **out, size_t *len)
{
	return castls_read_file_in(NULL, path, limit, out, len, NULL);
}

bool word_in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *p = list;

	if (!n)
		return false;
	while ((p = strstr(p, word))) {
		bool starts = p == list || p[-1] == ' ';
		bool ends = p[n] == '\0' || p[n] == ' ';

		if (starts && ends)
			return true;
		p += n;
	}
	return false;
}

bool word_in_list_n(const char *list, const char *word, size_t n)
{
	if (!n)
		return false;
	for (const char *p = list; *p;) {
		size_t k = strcspn(p, " ");

		if (k == n && memcmp(p, word, n) == 0)
			return true;
		p += k;
		p += *p == ' ';
	}
	return false;
}

/* ---------------------------------------------------------------------- *
 * Background threads
 * ---------------------------------------------------------------------- */

typedef struct {
	void (*fn)(void *);
	void *arg;
} Background;

void castls_malloc_init(void)
{
#ifdef __GLIBC__
	/* An arena per thread kept what a scan's threads freed for threads
	 * that were gone, and a request's freed page buffers for the thread
	 * that had read them; one arena lets any thread reuse them. Setting
	 * the thresholds also ends glibc's own moving of them. */
	(void)mallopt(M_ARENA_MAX, 1);
	(void)mallopt(M_TRIM_THRESHOLD, (int)CASTLS_MALLOC_KEEP);
	(void)mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

static void *background_main(void *p)
{
	Background *b = p;

#ifdef __linux__
	/* who 0 would name the whole process elsewhere: the thread's id. */
	(void)setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid),
			  CASTLS_BACKGROUND_NICE);
#endif
	b->fn(b->arg);
	return NULL;
}

void castls_run_in_background(void (*fn)(void *), void *arg)
{
	Background b = {fn, arg};
	pthread_t t;

	if (pthread_create(&t, NULL, background_main, &b) != 0) {
		fn(arg);
		return;
	}
	pthread_join(t, NULL);
}
