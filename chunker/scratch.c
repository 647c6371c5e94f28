/*
 * scratch.c: a scratch heap for tree-sitter's throwaway trees.
 *
 * Most trees the chunker parses are walked once and dropped: every file
 * of a scan, every file the CLI chunks. For those, tree-sitter's small
 * allocations through malloc and ts_tree_delete, which visits every node
 * to free it, cost about a tenth of the scan's time. Between
 * scratch_enter and scratch_leave, tree-sitter's allocations on the
 * calling thread come from the blocks of a Scratch instead, one after
 * the other; frees there give nothing back; leaving drops everything at
 * once, the tree included, without visiting it.
 *
 * Frees and reallocations of memory from the ordinary heap still go to
 * the heap, whatever the mode, so an object made before entering may be
 * used inside. The reverse does not hold: nothing tree-sitter makes
 * inside (a parser, a tree, a cursor) may be used or freed after leaving.
 * Our own allocations (xmalloc) never come from here.
 */
#include "chunker_int.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <tree_sitter/api.h>

#if defined(__SANITIZE_ADDRESS__)
#define SCRATCH_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SCRATCH_ASAN 1
#endif
#endif

#ifdef SCRATCH_ASAN
/* AddressSanitizer sees a block as one allocation; these tell it which
 * bytes are handed out, so a use after scratch_leave still reports. */
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ALIGN 16		    /* malloc's alignment on 64-bit */
#define HEAD ALIGN		    /* the size, before each allocation */
#define HUGE_PAGE ((size_t)2 << 20) /* bytes; blocks are made of these */
#define BLOCK_MIN HUGE_PAGE
#define KEEP_MAX ((size_t)16 << 20) /* bytes kept between uses, at most */

typedef struct Block {
	struct Block *next;
	size_t size, used; /* bytes of data */
	_Alignas(ALIGN) unsigned char data[];
} Block;

struct Scratch {
	Block *first, *cur; /* cur is the last block */
	size_t peak;	    /* most bytes used between enter and leave */
};

static _Thread_local Scratch *active;
static bool installed;

/* A block of at least size bytes. It is whole huge pages, aligned to
 * them, and asks the kernel for them: a parse touches its block densely,
 * and 2 MiB pages spare it most page faults and TLB misses (2% of a
 * TypeScript scan). */
static Block *block_new(size_t size)
{
	size_t total =
	    (sizeof(Block) + size + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
	Block *b = xmalloc_aligned(HUGE_PAGE, total);

#ifdef MADV_HUGEPAGE
	madvise(b, total, MADV_HUGEPAGE);
#endif
	b->next = NULL;
	b->size = total - sizeof(Block);
	b->used = 0;
	POISON(b->data, size);
	return b;
}

static void blocks_free(Block *b)
{
	while (b) {
		Block *next = b->next;

		UNPOISON(b->data, b->size);
		xfree(b);
		b = next;
	}
}

Scratch *scratch_new(void) { return xcalloc(1, sizeof(Scratch)); }

void scratch_delete(Scratch *s)
{
	if (!s)
		return;
	blocks_free(s->first);
	xfree(s);
}

size_t scratch_peak(const Scratch *s) { return s->peak; }

void scratch_trim(Scratch *s)
{
	if (s) {
		blocks_free(s->first);
		s->first = s->cur = NULL;
	}
}

void scratch_enter(Scratch *s)
{
	if (!s->first)
		s->first = block_new(BLOCK_MIN);
	s->cur = s->first;
	active = s;
}

/* Keeps one block for the next use: the first, or, when one was not
 * enough, a new one as large as all of them together (up to KEEP_MAX), so
 * that a run of similar files settles on a single block. */
void scratch_leave(Scratch *s)
{
	size_t total = 0;
	Block *b;

	active = NULL;
	for (b = s->first; b; b = b->next)
		total += b->used;
	if (total > s->peak)
		s->peak = total;
	if (s->first->next) {
		blocks_free(s->first);
		total = total > KEEP_MAX ? KEEP_MAX : total;
		s->first = block_new(total > BLOCK_MIN ? total : BLOCK_MIN);
	} else {
		POISON(s->first->data, s->first->used);
		s->first->used = 0;
	}
	s->cur = NULL;
}

static Block *owner(const Scratch *s, const void *p)
{
	const unsigned char *q = p;
	Block *b;

	for (b = s->first; b; b = b->next)
		if (q >= b->data && q < b->data + b->size)
			return b;
	return NULL;
}

static size_t size_of(const void *p)
{
	size_t n;

	memcpy(&n, (const unsigned char *)p - HEAD, sizeof(n));
	return n;
}

/* True when p is the last allocation of block b. */
static bool is_last(const Block *b, const void *p)
{
	size_t n = size_of(p);

	return (const unsigned char *)p +
		   ((n + ALIGN - 1) & ~(size_t)(ALIGN - 1)) ==
	       b->data + b->used;
}

/* Beyond any heap, and where the rounding below would wrap. */
#define TOO_BIG(n) ((n) > SIZE_MAX / 4)

static void *take(Scratch *s, size_t n)
{
	size_t need = HEAD + ((n + ALIGN - 1) & ~(size_t)(ALIGN - 1));
	Block *b = s->cur;
	unsigned char *p;

	if (TOO_BIG(n))
		return NULL;
	if (b->size - b->used < need) {
		b->next = block_new(b->size * 2 > need ? b->size * 2 : need);
		s->cur = b = b->next;
	}
	p = b->data + b->used;
	b->used += need;
	UNPOISON(p, HEAD + n);
	memcpy(p, &n, sizeof(n));
	return p + HEAD;
}

/* ---------------------------------------------------------------------- *
 * tree-sitter's allocator: the heap outside a scope, the scratch inside
 * ---------------------------------------------------------------------- */

void *scratch__malloc(size_t n)
{
	void *p;

	if (!active)
		return xmalloc(n);
	if (!(p = take(active, n)))
		return xmalloc(n); /* aborts: n is beyond any heap */
	return p;
}

void *scratch__calloc(size_t count, size_t size)
{
	void *p;

	if (!active)
		return xcalloc(count, size);
	if (size && count > SIZE_MAX / size)
		return xcalloc(count, size); /* aborts */
	p = scratch__malloc(count * size);
	memset(p, 0, count * size);
	return p;
}

void *scratch__realloc(void *p, size_t n)
{
	Block *b;
	size_t old;
	void *q;

	if (!p)
		return scratch__malloc(n);
	if (!active || !(b = owner(active, p)))
		return xrealloc(p, n);
	old = size_of(p);
	if (n <= old)
		return p;
	/* Grown in place when it is the last allocation and n fits. */
	if (b == active->cur && is_last(b, p) && !TOO_BIG(n)) {
		size_t more = ((n + ALIGN - 1) & ~(size_t)(ALIGN - 1)) -
			      ((old + ALIGN - 1) & ~(size_t)(ALIGN - 1));

		if (b->size - b->used >= more) {
			b->used += more;
			UNPOISON(p, n);
			memcpy((unsigned char *)p - HEAD, &n, sizeof(n));
			return p;
		}
	}
	q = scratch__malloc(n);
	memcpy(q, p, old);
	return q;
}

void scratch__free(void *p)
{
	Block *b;

	if (!p)
		return;
	if (!active || !(b = owner(active, p))) {
		xfree(p);
		return;
	}
	/* The last allocation is given back: arrays that grow by
	 * reallocation often are. */
	if (b == active->cur && is_last(b, p)) {
		size_t n = size_of(p);

		b->used = (size_t)((unsigned char *)p - HEAD - b->data);
		POISON((unsigned char *)p - HEAD, HEAD + n);
	}
}

void castls_init_allocators(void)
{
	ts_set_allocator(scratch__malloc, scratch__calloc, scratch__realloc,
			 scratch__free);
	installed = true;
}

bool scratch_ready(void) { return installed; }
