/*
 * bench_search.c: in-process query latency of the index, without the
 * process start-up that a `castls search` measurement includes.
 *
 *	bench_search ROOT DB QUERIES [--limit N] [--rounds N] [--postings N]
 *
 * Opens the existing index DB of ROOT, reads QUERIES (one query a line),
 * runs every query `rounds` times (default 1) through index_search (or
 * index_search_within with a posting budget of N, as a context request's
 * search does), and prints one line: the number of queries, the mean hits
 * per query, the p50 / p90 / p99 / max wall-clock latency and the mean
 * CPU time a query, in milliseconds. The first
 * query of the first round pays for opening the database's pages; that is
 * part of what a user sees, so it is counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "index/index.h"

#define MAX_QUERIES 100000
#define MAX_QUERY_LEN 4096

static double clock_ms(clockid_t which)
{
	struct timespec ts;

	clock_gettime(which, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static double now_ms(void) { return clock_ms(CLOCK_MONOTONIC); }

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The q-quantile of n sorted values (nearest rank). */
static double quantile(const double *v, size_t n, double q)
{
	size_t i = (size_t)(q * (double)n + 0.999999);

	return v[i == 0 ? 0 : i > n ? n - 1 : i - 1];
}

/* Reads the non-empty lines of path; caller frees each and the array. */
static char **read_lines(const char *path, size_t *n)
{
	char *text, *line, *save = NULL;
	size_t len;
	char **out;
	int err = castls_read_file(path, 0, &text, &len);

	*n = 0;
	if (err) {
		fprintf(stderr, "bench_search: %s: %s\n", path,
			castls_strerror(err));
		exit(1);
	}
	out = xcalloc(MAX_QUERIES, sizeof(*out));
	for (line = strtok_r(text, "\n", &save); line && *n < MAX_QUERIES;
	     line = strtok_r(NULL, "\n", &save))
		if (*line && strlen(line) < MAX_QUERY_LEN)
			out[(*n)++] = xstrdup(line);
	xfree(text);
	return out;
}

int main(int argc, char **argv)
{
	IndexOptions o = {0};
	Index *ix;
	char **queries;
	size_t nq, total = 0, k = 0;
	double *ms;
	uint64_t hits = 0;
	long limit = 10, rounds = 1, postings = 0;
	double cpu_start, cpu_ms;
	int err;

	castls_init_allocators();
	if (argc < 4) {
		fprintf(stderr, "usage: bench_search ROOT DB QUERIES"
				" [--limit N] [--rounds N] [--postings N]\n");
		return 2;
	}
	for (int i = 4; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--limit") == 0)
			limit = strtol(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--rounds") == 0)
			rounds = strtol(argv[i + 1], NULL, 10);
		else if (strcmp(argv[i], "--postings") == 0)
			postings = strtol(argv[i + 1], NULL, 10);
	}
	if (limit < 1 || rounds < 1 || rounds > 100 || postings < 0 ||
	    postings > INDEX_POSTINGS_MAX) {
		fprintf(stderr, "bench_search: bad --limit, --rounds or"
				" --postings\n");
		return 2;
	}
	o.root = argv[1];
	o.db_path = argv[2];
	o.quiet = true;
	if ((err = index_open(&o, &ix))) {
		fprintf(stderr, "bench_search: %s: %s\n", argv[2],
			castls_strerror(err));
		return 1;
	}
	queries = read_lines(argv[3], &nq);
	total = nq * (size_t)rounds;
	ms = xcalloc(total ? total : 1, sizeof(*ms));
	cpu_start = clock_ms(CLOCK_PROCESS_CPUTIME_ID);
	for (long r = 0; r < rounds; r++) {
		for (size_t i = 0; i < nq; i++) {
			IndexHit *h;
			uint32_t n;
			double t0 = now_ms();

			err = index_search_within(
			    ix, queries[i], strlen(queries[i]),
			    (uint32_t)limit, (uint32_t)postings, &h, &n);
			ms[k++] = now_ms() - t0;
			if (err) {
				fprintf(stderr, "bench_search: %s: %s\n",
					queries[i], index_errmsg(ix));
				return 1;
			}
			hits += n;
			index_hits_free(h, n);
		}
	}
	cpu_ms = clock_ms(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
	qsort(ms, total, sizeof(*ms), cmp_double);
	if (total)
		printf("queries %zu  hits/query %.1f  p50 %.3f ms  p90 %.3f ms"
		       "  p99 %.3f ms  max %.3f ms  cpu %.3f ms\n",
		       total, (double)hits / (double)total,
		       quantile(ms, total, 0.50), quantile(ms, total, 0.90),
		       quantile(ms, total, 0.99), ms[total - 1],
		       cpu_ms / (double)total);
	for (size_t i = 0; i < nq; i++)
		xfree(queries[i]);
	xfree(queries);
	xfree(ms);
	index_close(ix);
	return 0;
}
