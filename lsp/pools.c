/*
 * pools.c: what worker threads borrow. Each root keeps idle database
 * connections for the next job; chunkers are pooled across roots. Both
 * are safe from any thread; the settings new ones are made with are a
 * copy the loop updates under the pools' lock.
 */
#include "lsp_int.h"

#include <string.h>

#define CHUNKERS_MAX (int)(sizeof(((Pools *)0)->chunkers) / sizeof(Chunker *))

void lsp__pools_init(Pools *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->mu, NULL);
}

void lsp__pools_close(Pools *p)
{
	for (int i = 0; i < p->nchunkers; i++)
		chunker_delete(p->chunkers[i]);
	xfree(p->db_path);
	xfree(p->exclude);
	pthread_mutex_destroy(&p->mu);
}

void lsp__pools_configure(Pools *p, const Settings *st, const char *cli_db)
{
	const char *db = cli_db ? cli_db : st->db_path;

	pthread_mutex_lock(&p->mu);
	xfree(p->db_path);
	xfree(p->exclude);
	p->db_path = db ? xstrdup(db) : NULL;
	p->exclude = st->exclude ? xstrdup(st->exclude) : NULL;
	p->max_chunk_size = st->max_chunk_size;
	p->max_file_size = st->max_file_size;
	pthread_mutex_unlock(&p->mu);
}

void lsp__pools_flush(Pools *p)
{
	for (int i = 0; i < p->nroots; i++) {
		Root *r = p->roots[i];

		pthread_mutex_lock(&r->mu);
		while (r->nidle)
			index_close(r->idle[--r->nidle]);
		pthread_mutex_unlock(&r->mu);
	}
}

/* ---------------------------------------------------------------------- *
 * Connections
 * ---------------------------------------------------------------------- */

Index *lsp__pools_index(Pools *p, Root *r, int *err)
{
	IndexOptions io = {0};
	Index *ix = NULL;
	char *db = NULL, *exclude;

	pthread_mutex_lock(&r->mu);
	if (r->nidle)
		ix = r->idle[--r->nidle];
	r->busy++;
	pthread_mutex_unlock(&r->mu);
	if (ix)
		return ix;
	/* Copy the settings, then open (which may take a while:
	 * quick_check) without the lock. An explicit database belongs to
	 * the first root only; the others keep their own default files, or
	 * two roots would share rows (and one's scan delete the other's). */
	pthread_mutex_lock(&p->mu);
	io.root = r->path;
	if (r == p->roots[0] && p->db_path)
		io.db_path = db = xstrdup(p->db_path);
	io.max_chunk_size = p->max_chunk_size;
	io.max_file_size = p->max_file_size;
	io.lock_wait = &r->lock_wait;
	io.exclude = exclude = p->exclude ? xstrdup(p->exclude) : NULL;
	/* The first connection to a root checks the file once; later ones
	 * trust it (quick_check reads the whole database). */
	io.verify = !r->verified;
	r->verified = true;
	/* A database that cannot be written still answers requests; the
	 * scans and buffer writes fail and say so. */
	io.reader = true;
	pthread_mutex_unlock(&p->mu);
	pthread_mutex_lock(&r->open_mu);
	*err = index_open(&io, &ix);
	pthread_mutex_unlock(&r->open_mu);
	xfree(db);
	xfree(exclude);
	if (*err) {
		pthread_mutex_lock(&r->mu);
		r->busy--;
		pthread_mutex_unlock(&r->mu);
		return NULL;
	}
	return ix;
}

void lsp__pools_index_return(Root *r, Index *ix)
{
	pthread_mutex_lock(&r->mu);
	r->busy--;
	if (r->nidle < (int)(sizeof(r->idle) / sizeof(*r->idle))) {
		r->idle[r->nidle++] = ix;
		ix = NULL;
	}
	pthread_mutex_unlock(&r->mu);
	index_close(ix);
}

/* ---------------------------------------------------------------------- *
 * Chunkers
 * ---------------------------------------------------------------------- */

Chunker *lsp__pools_chunker(Pools *p)
{
	Chunker *ch = NULL;
	uint32_t size;

	pthread_mutex_lock(&p->mu);
	if (p->nchunkers)
		ch = p->chunkers[--p->nchunkers];
	size = p->max_chunk_size;
	pthread_mutex_unlock(&p->mu);
	return ch ? ch : chunker_new(size);
}

void lsp__pools_chunker_return(Pools *p, Chunker *ch)
{
	chunker_trim(ch); /* pooled chunkers keep no scratch heap */
	pthread_mutex_lock(&p->mu);
	if (chunker_max_size(ch) == (p->max_chunk_size
					 ? p->max_chunk_size
					 : CHUNKER_DEFAULT_MAX_SIZE) &&
	    p->nchunkers < CHUNKERS_MAX) {
		p->chunkers[p->nchunkers++] = ch;
		ch = NULL;
	}
	pthread_mutex_unlock(&p->mu);
	chunker_delete(ch);
}
