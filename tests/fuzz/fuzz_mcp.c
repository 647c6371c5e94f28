/*
 * fuzz_mcp.c: libFuzzer entry point for the MCP server's whole input
 * path: the line framing, the JSON depth check and parse, JSON-RPC
 * dispatch (batches included), the lifecycle, argument checking against
 * the tools' schemas and the tools themselves.
 *
 * Each input becomes the server's standard input (a regular file, read
 * to its end) and mcp_run() serves it with output to /dev/null, on one
 * empty root in a scratch directory. It must return, without a crash, a
 * leak or a sanitizer report, and with exit code 0.
 *
 * Inputs that could name a directory as a client root (a "file:" URI, or
 * a \u escape that could spell one) are skipped: a root is scanned, and
 * "file:///" would scan the machine. Tool paths are safe as they are:
 * everything outside the empty root is refused.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunker/chunker.h"
#include "mcp/mcp.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_fd = -1, out_fd = -1;
static char scratch[64], root[96], db_path[96];

static void die(const char *what)
{
	perror(what);
	abort();
}

static void remove_scratch(void)
{
	char path[sizeof(db_path) + 8];

	/* The database, its write-ahead log and shared memory. */
	unlink(db_path);
	snprintf(path, sizeof(path), "%s-wal", db_path);
	unlink(path);
	snprintf(path, sizeof(path), "%s-shm", db_path);
	unlink(path);
	rmdir(root);
	rmdir(scratch);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char path[sizeof(scratch) + 16];

	(void)argc;
	(void)argv;
	castls_init_allocators();
	snprintf(scratch, sizeof(scratch), "/tmp/castls-fuzz-mcp-XXXXXX");
	if (!mkdtemp(scratch))
		die("mkdtemp");
	atexit(remove_scratch);
	/* Nothing the server might write goes to the user's cache. */
	setenv("XDG_CACHE_HOME", scratch, 1);
	snprintf(root, sizeof(root), "%s/root", scratch);
	snprintf(db_path, sizeof(db_path), "%s/index.db", scratch);
	if (mkdir(root, 0700) != 0)
		die("mkdir");
	snprintf(path, sizeof(path), "%s/input", scratch);
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
	const char *roots[1] = {root};
	McpOptions opt = {0};
	size_t done = 0;
	int code;

	if (contains(data, size, "file:") || contains(data, size, "\\u"))
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
	opt.roots = roots;
	opt.nroots = 1;
	opt.db_path = db_path;
	opt.quiet = true;
	code = mcp_run(&opt);
	if (code != 0) {
		fprintf(stderr, "fuzz_mcp: exit code %d\n", code);
		abort();
	}
	return 0;
}
