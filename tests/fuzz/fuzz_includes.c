/*
 * fuzz_includes.c: libFuzzer entry point for the compilation-database
 * scanner of rank/includes.c (compile_commands.json is outside input).
 *
 * The input is the database text, handed over without a terminating NUL
 * at the end of its allocation, so a read past it is caught by ASan.
 * Every directory read must be inside the root: relative, with no ".."
 * component; any violation aborts.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rank/rank_int.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const char *dir)
{
	if (dir[0] == '/' || strcmp(dir, "..") == 0 ||
	    strncmp(dir, "../", 3) == 0 || strstr(dir, "/../") ||
	    (strlen(dir) >= 3 && strcmp(dir + strlen(dir) - 3, "/..") == 0)) {
		fprintf(stderr, "fuzz_includes: outside the root: %s\n", dir);
		abort();
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size ? size : 1);
	Where w;

	if (!text)
		abort();
	memcpy(text, data, size);
	memset(&w, 0, sizeof(w));
	w.mr.include_flags = "-I -isystem -iquote";
	rank__include_scan(&w, "/src/proj", "build", text, size);
	if (w.nincdirs > INCLUDE_DIRS_MAX)
		abort();
	for (int i = 0; i < w.nincdirs; i++)
		check(w.incdirs[i]);
	xfree(w.incdirs);
	free(text);
	return 0;
}
