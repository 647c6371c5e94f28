/*
 * root.c: which workspace a file given on the command line belongs to.
 * The git repository around it, else the nearest directory holding a
 * project file; never the file system's root or the home directory as a
 * whole, which only an explicit --root indexes.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_int.h"

/* Files that make their directory a project's root; the editor clients
 * (editors/) have the same list. */
static const char *const markers[] = {
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    "package.json",
    "tsconfig.json",
    "deno.json",
    "go.mod",
    "Cargo.toml",
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "CMakeLists.txt",
    "compile_commands.json",
    "meson.build",
    "Gemfile",
    "composer.json",
    "Makefile",
};

static bool has(const char *dir, const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	return snprintf(path, sizeof(path), "%s/%s", dir, name) <
		   (int)sizeof(path) &&
	       stat(path, &st) == 0;
}

static bool has_marker(const char *dir)
{
	for (size_t i = 0; i < sizeof(markers) / sizeof(*markers); i++)
		if (has(dir, markers[i]))
			return true;
	return false;
}

/* The nearest directory above file (an absolute, real path) for which
 * found() holds, into out; false when none below / does. */
static bool nearest(const char *file, bool (*found)(const char *dir), char *out)
{
	char dir[PATH_MAX];
	char *slash;

	if (strlen(file) >= sizeof(dir))
		return false;
	strcpy(dir, file);
	while ((slash = strrchr(dir, '/')) && slash != dir) {
		*slash = '\0';
		if (found(dir)) {
			strcpy(out, dir);
			return true;
		}
	}
	return false;
}

static bool is_git(const char *dir) { return has(dir, ".git"); }

bool cli_too_wide(const char *dir)
{
	const char *home = getenv("HOME");
	char real[PATH_MAX];

	if (strcmp(dir, "/") == 0)
		return true;
	return home && *home && realpath(home, real) && strcmp(real, dir) == 0;
}

/* A git repository that is the home directory (dotfiles) is no root, but
 * a project file below it still makes one. */
int cli_project_root(const char *file, char *out)
{
	if (nearest(file, is_git, out) && !cli_too_wide(out))
		return 0;
	if (nearest(file, has_marker, out) && !cli_too_wide(out))
		return 0;
	return -1;
}
