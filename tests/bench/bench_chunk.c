/*
 * bench_chunk.c: chunker throughput against raw tree-sitter parsing.
 *
 *	bench_chunk --header
 *	bench_chunk [--runs N] [--max-size N] [--max-file-size BYTES]
 *		    [--lang NAME | --only NAME] DIR
 *
 * Loads every file of a supported language under DIR (or every regular
 * file as NAME with --lang, or only the files detected as NAME with
 * --only: the Markdown beside a crate's sources is not Rust) into
 * memory, then times, in each of N runs, one pass that only parses
 * each file and one pass that parses, chunks and collects
 * spans (chunker_parse, then chunker_run on that tree). Prints one table
 * row: the corpus size, the median MB/s of each pass, the chunk+spans
 * overhead as a share of parse time, measured two ways, and the peak
 * resident set size (the loaded corpus included; its size is the MB
 * column). chunk% is chunker_run's time over the parse time within the
 * full pass, file by file, the steadier figure; pass% compares the two
 * passes' totals, so it also catches what chunking costs the parses
 * after it (a colder cache, a fragmented heap), but carries their noise.
 * once is a third pass that chunks each file the way a scan does, with
 * no tree given: chunker_run parses into its scratch heap and drops the
 * tree whole rather than freeing it node by node.
 * Times are CPU time, so other load on the machine skews them less.
 * Markdown has no grammar, so its parse columns are empty.
 * --max-file-size leaves out larger files, as `castls index` does with
 * the same option: a parse figure set beside an index's must time the
 * files that index holds (the kernel's largest headers, which it skips
 * at its default 1 MiB, parse four times faster than its code).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "chunker/chunker.h"

#define MAX_RUNS 99
#define MAX_DEPTH 32 /* directory levels followed (symlink loops) */

typedef struct {
	char *text;
	uint32_t len;
	Lang lang;
} Source;

typedef struct {
	Source *files;
	size_t n, cap;
	uint64_t bytes;
	bool grammar;	 /* some file has a tree-sitter grammar */
	Lang force;	 /* LANG_NONE: detect per file */
	Lang only;	 /* LANG_NONE: any detected language */
	size_t max_file; /* bytes a file may have to be loaded */
} Corpus;

/* ---------------------------------------------------------------------- *
 * Loading
 * ---------------------------------------------------------------------- */

static void load_file(Corpus *co, const char *path)
{
	char *text;
	size_t len;
	Lang lang = co->force;

	if (castls_read_file(path, co->max_file, &text, &len))
		return;
	if (!lang)
		lang = lang_detect(path, text, len);
	if (!lang || (co->only && lang != co->only) ||
	    castls_is_binary(text, len)) {
		xfree(text);
		return;
	}
	if (co->n == co->cap) {
		co->cap = co->cap ? co->cap * 2 : 256;
		co->files = xrealloc(co->files, co->cap * sizeof(*co->files));
	}
	co->files[co->n++] = (Source){text, (uint32_t)len, lang};
	co->bytes += len;
	co->grammar |= chunker_language(lang) != NULL;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, so every run sees the files in the same order. */
static void load_dir(Corpus *co, const char *dir, int depth)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	Buf path = {0};

	if (!d)
		return;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 32;
			names = xrealloc(names, cap * sizeof(*names));
		}
		names[n++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), by_name);
	for (i = 0; i < n; i++) {
		struct stat sb;
		bool ok;

		path.len = 0;
		buf_printf(&path, "%s/%s", dir, names[i]);
		ok = stat(path.data, &sb) == 0; /* not a dangling link */
		if (ok && S_ISDIR(sb.st_mode) && depth < MAX_DEPTH)
			load_dir(co, path.data, depth + 1);
		else if (ok && S_ISREG(sb.st_mode))
			load_file(co, path.data);
		xfree(names[i]);
	}
	xfree(names);
	buf_free(&path);
}

/* ---------------------------------------------------------------------- *
 * Timing
 * ---------------------------------------------------------------------- */

/* CPU seconds of this process: on a shared machine, other processes
 * taking the cores would distort wall time far more than the passes
 * differ. The benchmark is single-threaded, so this is its run time. */
static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Seconds to parse every file; 0 when nothing has a grammar. */
static double pass_parse(Chunker *ch, const Corpus *co)
{
	double t0 = now();
	size_t i;

	for (i = 0; i < co->n; i++) {
		const Source *s = &co->files[i];
		TSTree *t = chunker_parse(ch, s->lang, s->text, s->len, NULL);

		if (t)
			ts_tree_delete(t);
	}
	return now() - t0;
}

/* Seconds to parse, chunk and collect spans, and in *chunking the part
 * of that spent in chunker_run alone (timed file by file, so that share
 * is measured under the same conditions as the parses around it). */
static double pass_chunk(Chunker *ch, const Corpus *co, double *chunking,
			 uint64_t *chunks, uint64_t *spans)
{
	double t0 = now();
	size_t i;

	*chunking = 0;
	*chunks = *spans = 0;
	for (i = 0; i < co->n; i++) {
		const Source *s = &co->files[i];
		TSTree *t = chunker_parse(ch, s->lang, s->text, s->len, NULL);
		double t1 = now();
		Chunking c;

		if (chunker_run(ch, s->lang, s->text, s->len, t, &c) == 0) {
			*chunks += c.nchunks;
			*spans += c.nspans;
			chunking_close(&c);
		}
		*chunking += now() - t1;
		if (t)
			ts_tree_delete(t);
	}
	return now() - t0;
}

/* Seconds to chunk every file as a scan does: chunker_run parses it
 * itself, into its scratch heap. */
static double pass_once(Chunker *ch, const Corpus *co)
{
	double t0 = now();
	size_t i;

	for (i = 0; i < co->n; i++) {
		const Source *s = &co->files[i];
		Chunking c;

		if (chunker_run(ch, s->lang, s->text, s->len, NULL, &c) == 0)
			chunking_close(&c);
	}
	return now() - t0;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---------------------------------------------------------------------- *
 * Main
 * ---------------------------------------------------------------------- */

static void print_header(void)
{
	printf("%-9s %5s %6s %6s %6s %7s %7s %7s %7s %7s %6s\n", "corpus",
	       "files", "MB", "chunks", "spans", "parse", "all", "once",
	       "chunk%", "pass%", "RSS");
	printf("%-9s %5s %6s %6s %6s %7s %7s %7s %7s %7s %6s\n", "", "", "", "",
	       "", "MB/s", "MB/s", "MB/s", "", "", "MB");
}

static void bench(Chunker *ch, const Corpus *co, const char *label, int runs)
{
	double tp[MAX_RUNS], tc[MAX_RUNS], to[MAX_RUNS], share[MAX_RUNS];
	double p, c, own;
	double mb = (double)co->bytes / 1e6;
	uint64_t chunks = 0, spans = 0;
	struct rusage ru;
	char pcol[32] = "-", scol[32] = "-", ocol[32] = "-";
	int r;

	/* Alternate the passes so drift (caches, frequency) hits both. */
	for (r = 0; r < runs; r++) {
		tp[r] = pass_parse(ch, co);
		tc[r] = pass_chunk(ch, co, &own, &chunks, &spans);
		to[r] = pass_once(ch, co);
		share[r] = own / (tc[r] - own);
	}
	p = median(tp, runs);
	c = median(tc, runs);
	getrusage(RUSAGE_SELF, &ru);
	if (co->grammar) { /* Markdown has none: no parse time */
		snprintf(pcol, sizeof(pcol), "%.1f", mb / p);
		snprintf(scol, sizeof(scol), "%+.1f",
			 100 * median(share, runs));
		snprintf(ocol, sizeof(ocol), "%+.1f", 100 * (c - p) / p);
	}
	printf("%-9s %5zu %6.2f %6llu %6llu %7s %7.1f %7.1f %7s %7s %6ld\n",
	       label, co->n, mb, (unsigned long long)chunks,
	       (unsigned long long)spans, pcol, mb / c, mb / median(to, runs),
	       scol, ocol, ru.ru_maxrss / 1024);
}

static int usage(void)
{
	fprintf(stderr, "usage: bench_chunk --header | bench_chunk "
			"[--runs N] [--max-size N] [--max-file-size BYTES] "
			"[--lang NAME | --only NAME] DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	Corpus co = {0};
	Chunker *ch;
	long runs = 5, max_size = 0, max_file = CHUNKER_MAX_INPUT;
	const char *label;
	int i;
	size_t k;

	if (argc == 2 && !strcmp(argv[1], "--header")) {
		print_header();
		return 0;
	}
	for (i = 1; i + 2 < argc && !strncmp(argv[i], "--", 2); i += 2) {
		if (!strcmp(argv[i], "--runs"))
			runs = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--max-size"))
			max_size = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--max-file-size"))
			max_file = strtol(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--lang") &&
			 (co.force = lang_from_name(argv[i + 1])))
			continue;
		else if (!strcmp(argv[i], "--only") &&
			 (co.only = lang_from_name(argv[i + 1])))
			continue;
		else
			return usage();
	}
	if (i != argc - 1 || runs < 1 || runs > MAX_RUNS || max_size < 0 ||
	    max_size > (long)UINT32_MAX || max_file < 1 ||
	    max_file > (long)CHUNKER_MAX_INPUT)
		return usage();
	co.max_file = (size_t)max_file;
	castls_init_allocators();
	load_dir(&co, argv[i], 0);
	if (co.n == 0) {
		fprintf(stderr, "bench_chunk: %s: no supported files\n",
			argv[i]);
		return 1;
	}
	label = strrchr(argv[i], '/') ? strrchr(argv[i], '/') + 1 : argv[i];
	ch = chunker_new((uint32_t)max_size);
	bench(ch, &co, label, (int)runs);
	chunker_delete(ch);
	for (k = 0; k < co.n; k++)
		xfree(co.files[k].text);
	xfree(co.files);
	return 0;
}
