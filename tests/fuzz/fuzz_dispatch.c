/*
 * fuzz_dispatch.c: libFuzzer entry point for the whole input path of the
 * language server: framing, the JSON depth check and parse, JSON-RPC
 * dispatch, and the request and notification handlers behind it.
 *
 * Each input becomes the server's standard input (a regular file, so the
 * server reads it to the end and stops there) and server_run() serves it
 * with output to /dev/null. It must return, without a crash, a leak or a
 * sanitizer report, and with exit code 0 or 1.
 *
 * Workspace roots are kept out: a root makes the server scan a directory
 * tree, and an input naming "/" would scan the machine. Inputs that could
 * name one (a "file:" URI, "rootPath", or a \u escape that could spell
 * either) are skipped, which leaves documents on other URI schemes,
 * every request, and the lifecycle to the fuzzer.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chunker/chunker.h"
#include "lsp/server.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_fd = -1, out_fd = -1;
static char scratch[64], db_path[256];

static void die(const char *what)
{
	perror(what);
	abort();
}

/* The scratch directory stays empty (no roots, no database, the input
 * file unlinked), so rmdir is enough. */
static void remove_scratch(void) { rmdir(scratch); }

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char *dir = scratch;
	char path[sizeof(scratch) + 16];

	(void)argc;
	(void)argv;
	castls_init_allocators();
	snprintf(scratch, sizeof(scratch), "/tmp/castls-fuzz-dispatch-XXXXXX");
	if (!mkdtemp(dir))
		die("mkdtemp");
	atexit(remove_scratch);
	/* Nothing the server might write goes to the user's cache. */
	setenv("XDG_CACHE_HOME", dir, 1);
	snprintf(db_path, sizeof(db_path), "%s/index.db", dir);
	snprintf(path, sizeof(path), "%s/input", dir);
	in_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	/* The file only needs its descriptor from now on. */
	unlink(path);
	out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (in_fd < 0 || out_fd < 0)
		die("open");
	return 0;
}

static bool contains(const uint8_t *d, size_t n, const char *s)
{
	size_t k = strlen(s);

	for (size_t i = 0; i + k <= n; i++)
		if (memcmp(d + i, s, k) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	ServerOptions opt = {0};
	size_t done = 0;
	int code;

	if (contains(data, size, "file:") || contains(data, size, "rootPath") ||
	    contains(data, size, "\\u"))
		return -1; /* not added to the corpus */
	if (ftruncate(in_fd, 0) != 0 || lseek(in_fd, 0, SEEK_SET) != 0)
		die("reset input");
	while (done < size) {
		ssize_t w = write(in_fd, data + done, size - done);

		if (w <= 0)
			die("write input");
		done += (size_t)w;
	}
	if (lseek(in_fd, 0, SEEK_SET) != 0)
		die("rewind input");
	opt.in_fd = in_fd;
	opt.out_fd = out_fd;
	opt.db_path = db_path;
	code = server_run(&opt);
	if (code != 0 && code != 1) {
		fprintf(stderr, "fuzz_dispatch: exit code %d\n", code);
		abort();
	}
	return 0;
}
