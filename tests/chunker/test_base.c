/*
 * test_base.c: reading files (castls_read_file and its variants) and the
 * path test they share with the server and the scan.
 *
 * A read must never block: a FIFO with no writer, or a device, is refused
 * without being opened. A read bounded by a root must refuse a file that
 * lies outside it, however it was reached. The tests that could hang on
 * a regression run under alarm(), whose default action ends the binary,
 * so a hang fails the test instead of waiting for CTest's timeout.
 */
#include "test.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "chunker/chunker.h"

#define HANG_SECONDS 10

static char *tmpdir(void)
{
	const char *t = getenv("TMPDIR");
	char tmpl[PATH_MAX], real[PATH_MAX];

	snprintf(tmpl, sizeof(tmpl), "%s/castls-base-XXXXXX",
		 t && *t ? t : "/tmp");
	if (!mkdtemp(tmpl) || !realpath(tmpl, real)) {
		perror("test setup: mkdtemp");
		exit(2);
	}
	return xstrdup(real);
}

static char *join(const char *dir, const char *name)
{
	Buf b = {0};

	buf_printf(&b, "%s/%s", dir, name);
	return buf_take(&b);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");

	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		exit(2);
	}
}

TEST(read_file_refuses_fifo_without_blocking)
{
	char *dir = tmpdir(), *fifo = join(dir, "pipe.py"), *text = NULL;
	size_t len = 0;
	int err;

	ASSERT_INT_EQ(mkfifo(fifo, 0600), 0);
	alarm(HANG_SECONDS);
	err = castls_read_file(fifo, 0, &text, &len);
	alarm(0);
	EXPECT_INT_EQ(err, CASTLS_ENOTREG);
	EXPECT_TRUE(text == NULL);
	EXPECT_INT_EQ(len, 0);
	EXPECT_STR_EQ(castls_strerror(err), "not a regular file");
	unlink(fifo);
	rmdir(dir);
	xfree(fifo);
	xfree(dir);
}

TEST(read_file_refuses_devices_and_directories)
{
	char *text = NULL, *dir = tmpdir();
	size_t len;

	alarm(HANG_SECONDS);
	/* /dev/zero would never end; it must not even be opened. */
	EXPECT_INT_EQ(castls_read_file("/dev/zero", 0, &text, &len),
		      CASTLS_ENOTREG);
	EXPECT_INT_EQ(castls_read_file("/dev/null", 0, &text, &len),
		      CASTLS_ENOTREG);
	EXPECT_INT_EQ(castls_read_file(dir, 0, &text, &len), CASTLS_ENOTREG);
	alarm(0);
	EXPECT_TRUE(text == NULL);
	rmdir(dir);
	xfree(dir);
}

TEST(read_file_reads_a_snapshot_with_its_stamp)
{
	char *dir = tmpdir(), *path = join(dir, "a.py"), *text;
	size_t len;
	DiskStamp st = {-1, -1};
	struct stat sb;

	write_text(path, "x = 1\n");
	ASSERT_INT_EQ(castls_read_file_in(NULL, path, 0, &text, &len, &st), 0);
	EXPECT_STR_EQ(text, "x = 1\n");
	EXPECT_INT_EQ(len, 6);
	ASSERT_INT_EQ(stat(path, &sb), 0);
	EXPECT_INT_EQ(st.size, 6);
	EXPECT_INT_EQ(st.mtime, (long long)sb.st_mtim.tv_sec * 1000000000 +
				    sb.st_mtim.tv_nsec);
	xfree(text);
	EXPECT_INT_EQ(castls_read_file(path, 5, &text, &len), CASTLS_ETOOBIG);
	unlink(path);
	rmdir(dir);
	xfree(path);
	xfree(dir);
}

/* Inside a root: the file itself, or a link that stays inside; never a
 * link out of it, nor a path that climbs out with "..". */
TEST(read_file_in_root_refuses_what_lies_outside)
{
	char *dir = tmpdir(), *root = join(dir, "root");
	char *secret = join(dir, "secret.py"), *inside = join(root, "in.py");
	char *link_out = join(root, "link.py"), *link_in = join(root, "ok.py");
	char *climb = join(root, "../secret.py"), *text = NULL;
	size_t len;

	ASSERT_INT_EQ(mkdir(root, 0700), 0);
	write_text(secret, "API_KEY = 'x'\n");
	write_text(inside, "y = 2\n");
	ASSERT_INT_EQ(symlink(secret, link_out), 0);
	ASSERT_INT_EQ(symlink("in.py", link_in), 0);

	EXPECT_INT_EQ(castls_read_file_in(root, inside, 0, &text, &len, NULL),
		      0);
	EXPECT_STR_EQ(text, "y = 2\n");
	xfree(text);
	EXPECT_INT_EQ(castls_read_file_in(root, link_in, 0, &text, &len, NULL),
		      0);
	EXPECT_STR_EQ(text, "y = 2\n");
	xfree(text);
	text = NULL;
	EXPECT_INT_EQ(castls_read_file_in(root, link_out, 0, &text, &len, NULL),
		      CASTLS_EOUTSIDE);
	EXPECT_INT_EQ(castls_read_file_in(root, climb, 0, &text, &len, NULL),
		      CASTLS_EOUTSIDE);
	EXPECT_TRUE(text == NULL);
	/* A root of "/" holds everything. */
	EXPECT_INT_EQ(castls_read_file_in("/", secret, 0, &text, &len, NULL),
		      0);
	xfree(text);

	unlink(link_in);
	unlink(link_out);
	unlink(inside);
	unlink(secret);
	rmdir(root);
	rmdir(dir);
	xfree(climb);
	xfree(link_in);
	xfree(link_out);
	xfree(inside);
	xfree(secret);
	xfree(root);
	xfree(dir);
}

TEST(path_within_matches_whole_components)
{
	EXPECT_TRUE(castls_path_within("/a/b", "/a/b"));
	EXPECT_TRUE(castls_path_within("/a/b", "/a/b/c.py"));
	EXPECT_TRUE(castls_path_within("/a/b/", "/a/b/c.py"));
	EXPECT_TRUE(!castls_path_within("/a/b", "/a/bc/d.py"));
	EXPECT_TRUE(!castls_path_within("/a/b", "/a"));
	EXPECT_TRUE(!castls_path_within("/a/b", "/a/"));
	EXPECT_TRUE(castls_path_within("/", "/etc/passwd"));
	EXPECT_TRUE(castls_path_within("/", "/"));
	EXPECT_TRUE(!castls_path_within("/", "relative"));
	EXPECT_TRUE(!castls_path_within("", "/a"));
}

/* An edit in place: the bytes before and after the replaced range stay,
 * the buffer grows or shrinks, and stays NUL-terminated. */
TEST(buf_splice_replaces_a_range_in_place)
{
	Buf b = {0};

	buf_puts(&b, "def f(x):\n    return x\n");
	buf_splice(&b, 4, 1, "total", 5); /* grows */
	EXPECT_STR_EQ(b.data, "def total(x):\n    return x\n");
	buf_splice(&b, 14, 4, "", 0); /* shrinks */
	EXPECT_STR_EQ(b.data, "def total(x):\nreturn x\n");
	buf_splice(&b, b.len, 0, "# end\n", 6); /* at the end */
	EXPECT_STR_EQ(b.data, "def total(x):\nreturn x\n# end\n");
	buf_splice(&b, 0, b.len, "y", 1); /* everything */
	EXPECT_STR_EQ(b.data, "y");
	EXPECT_INT_EQ(b.len, 1);
	for (int i = 0; i < 1000; i++) /* past a few reallocations */
		buf_splice(&b, 1, 0, "ab", 2);
	EXPECT_INT_EQ(b.len, 2001);
	EXPECT_TRUE(strncmp(b.data, "yabab", 5) == 0 && b.data[2001] == '\0');
	buf_free(&b);
}

/* The size of a chunk: characters (not UTF-8 continuation bytes) that
 * are not ASCII whitespace, at every length around the 240-byte blocks
 * it is counted in, each byte value in every position. */
TEST(count_nonspace_counts_characters_not_blank)
{
	static const char piece[] = "a \t\n\r\v\f\xc3\xa9\xe2\x80\x94x(";
	char text[1000];
	size_t n, i, want;

	for (i = 0; i < sizeof(text); i++)
		text[i] = piece[(i * 7 + i / 13) % (sizeof(piece) - 1)];
	for (n = 0; n <= sizeof(text); n++) {
		for (want = 0, i = 0; i < n; i++) {
			unsigned char b = (unsigned char)text[i];

			want += (b & 0xC0) != 0x80 && b != ' ' &&
				(b < 0x09 || b > 0x0D);
		}
		if (castls_count_nonspace(text, n) != want) {
			test_fail(__FILE__, __LINE__, "%zu bytes: %zu, not %zu",
				  n, castls_count_nonspace(text, n), want);
			break;
		}
	}
	for (i = 0; i < 256; i++) /* each byte alone */
		text[i] = (char)i;
	EXPECT_INT_EQ(castls_count_nonspace(text, 256), 256 - 64 - 6);
}
