/*
 * uri.c: URIs and paths. A document's URI becomes one canonical path
 * (lsp__path_real), so that every spelling of a file names one row and no
 * path leads out of the roots; result URIs are made by one function.
 */
#include "lsp_int.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int hexval(int c)
{
	return isdigit(c)    ? c - '0'
	       : isxdigit(c) ? (tolower(c) - 'a' + 10)
			     : -1;
}

char *lsp__uri_to_path(const char *uri)
{
	const char *p;
	Buf b = {0};

	if (strncmp(uri, "file://", 7) != 0)
		return NULL;
	p = uri + 7;
	if (strncmp(p, "localhost/", 10) == 0)
		p += 9;
	if (*p != '/')
		return NULL;
	for (; *p && *p != '?' && *p != '#'; p++) {
		int hi, lo;

		if (*p == '%' && (hi = hexval((unsigned char)p[1])) >= 0 &&
		    (lo = hexval((unsigned char)p[2])) >= 0) {
			char c = (char)(hi * 16 + lo);

			if (c == '\0') { /* no path holds one */
				buf_free(&b);
				return NULL;
			}
			buf_append(&b, &c, 1);
			p += 2;
		} else {
			buf_append(&b, p, 1);
		}
	}
	return buf_take(&b);
}

char *lsp__path_to_uri(const char *path)
{
	static const char keep[] = "/-._~!$&'()*+,;=:@";
	Buf b = {0};

	buf_puts(&b, "file://");
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if (isalnum(*p) || strchr(keep, *p))
			buf_append(&b, p, 1);
		else
			buf_printf(&b, "%%%02X", *p);
	}
	return buf_take(&b);
}

char *lsp__uri_in_root(const char *root, const char *rel)
{
	Buf b = {0};
	char *uri;

	/* A root of "/" ends in the slash that joins. */
	buf_printf(&b, "%s%s%s", root, strcmp(root, "/") ? "/" : "", rel);
	uri = lsp__path_to_uri(b.data);
	buf_free(&b);
	return uri;
}

char *lsp__path_real(const char *path)
{
	char real[PATH_MAX], *cut;
	const char *p;
	size_t n;
	struct stat st;
	Buf b = {0};

	if (path[0] != '/')
		return NULL;
	/* The longest prefix (at a slash) that resolves. Only a missing
	 * entry (ENOENT) lets the search go on: a loop, a denied directory
	 * or a file used as one ends it. */
	cut = xstrdup(path);
	while (!realpath(cut[0] ? cut : "/", real)) {
		char *slash = strrchr(cut, '/');

		if (errno != ENOENT || !slash) {
			xfree(cut);
			return NULL;
		}
		*slash = '\0';
	}
	p = path + strlen(cut);
	xfree(cut);
	buf_puts(&b, real);
	/* The rest does not exist, unless its first entry is a symlink
	 * whose target does not (realpath said ENOENT for it too): that
	 * one must not pass for a new file inside the root. */
	for (; *p; p += n) {
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.'))
			continue;
		if (n == 2 && p[0] == '.' && p[1] == '.')
			goto refuse;
		if (b.len > 1)
			buf_puts(&b, "/");
		buf_append(&b, p, n);
		if (lstat(b.data, &st) == 0 || errno != ENOENT)
			goto refuse;
	}
	if (b.len < PATH_MAX)
		return buf_take(&b);
refuse:
	buf_free(&b);
	return NULL;
}

char *lsp__uri_path_real(const char *uri)
{
	char *named = uri ? lsp__uri_to_path(uri) : NULL;
	char *real = named ? lsp__path_real(named) : NULL;

	xfree(named);
	return real;
}
