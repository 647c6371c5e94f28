/*
 * test_main.c: runs the tests registered in one test binary.
 *
 *	test_chunker            run all, print a summary
 *	test_chunker NAME...    run the named tests
 *	test_chunker --list     print the names
 */
#include "test.h"

#include <stdarg.h>
#include <stdlib.h>

#include "chunker/chunker.h"

#define MAX_TESTS 1024

static struct {
	const char *name;
	TestFn fn;
} tests[MAX_TESTS];
static int ntests;
static int failures_in_current;

void test_register(const char *name, TestFn fn)
{
	if (ntests == MAX_TESTS) {
		fprintf(stderr, "too many tests\n");
		exit(2);
	}
	tests[ntests].name = name;
	tests[ntests].fn = fn;
	ntests++;
}

bool test_fail(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failures_in_current++;
	return false;
}

const char *test_fixture_dir(void) { return CASTLS_SOURCE_DIR "/tests/fixtures"; }
const char *test_build_dir(void) { return CASTLS_BUILD_DIR; }

char *test_read_fixture(const char *name, size_t *len)
{
	char path[4096];
	char *data;
	size_t n;
	int err;

	snprintf(path, sizeof(path), "%s/%s", test_fixture_dir(), name);
	err = castls_read_file(path, 0, &data, &n);
	if (err) {
		fprintf(stderr, "fixture %s: %s\n", path, castls_strerror(err));
		exit(2);
	}
	if (len)
		*len = n;
	return data;
}

static int run(int i)
{
	failures_in_current = 0;
	tests[i].fn();
	fprintf(stderr, "%s %s\n", failures_in_current ? "FAIL" : "ok  ",
		tests[i].name);
	return failures_in_current != 0;
}

int main(int argc, char **argv)
{
	int i, j, failed = 0, ran = 0;

	castls_init_allocators();
	if (argc > 1 && strcmp(argv[1], "--list") == 0) {
		for (i = 0; i < ntests; i++)
			printf("%s\n", tests[i].name);
		return 0;
	}
	for (i = 0; i < ntests; i++) {
		bool wanted = argc == 1;

		for (j = 1; j < argc && !wanted; j++)
			wanted = strcmp(argv[j], tests[i].name) == 0;
		if (!wanted)
			continue;
		failed += run(i);
		ran++;
	}
	if (argc > 1 && ran != argc - 1) {
		fprintf(stderr, "unknown test name among the arguments\n");
		return 2;
	}
	printf("%d passed, %d failed\n", ran - failed, failed);
	return failed ? 1 : 0;
}
