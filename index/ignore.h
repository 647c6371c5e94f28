/*
 * ignore.h: gitignore-compatible path matching for the workspace scan.
 * Internal to index/ (not part of index.h).
 *
 * An Ignore is a stack of patterns. The scanner walks the workspace root
 * depth-first on one thread; entering directory `dir` it takes a mark,
 * adds the text of `dir/.gitignore` (and `dir/.castlsignore`), asks
 * ignore_match() about every entry, and resets to the mark on leaving.
 *
 * Semantics follow git's gitignore(5):
 *   - blank lines and lines starting with `#` are skipped; `\#` is a
 *     literal `#`; trailing spaces are dropped unless escaped (`\ `);
 *     a trailing CR (CRLF files) is dropped;
 *   - a leading `!` negates (re-includes); `\!` is a literal `!`;
 *   - a trailing `/` makes the pattern match directories only;
 *   - a pattern with a `/` at its start or middle is anchored to the
 *     directory of its ignore file and matched against the path below
 *     that directory; otherwise it is matched against the basename of
 *     any entry at any depth below that directory;
 *   - `*` matches any run of bytes except `/`, `?` one byte except `/`,
 *     `[...]` one byte (never `/`) from a set with ranges, `!` or `^`
 *     negation, backslash escapes and POSIX `[:name:]` classes;
 *     a backslash makes the next byte literal;
 *   - `**` as a whole path component: at the start ("**" then "/") or
 *     between slashes it matches zero or more directories; at the end
 *     (after a "/") it matches everything inside; any other run of stars
 *     is a single `*`;
 *   - the last matching pattern decides, and patterns added later take
 *     precedence over earlier ones. Deeper ignore files are added later
 *     by the walk, so they override shallower ones. Within one directory
 *     add the lowest-precedence source first: at the root, user
 *     excludes and `.git/info/exclude`, then `.gitignore`, then
 *     `.castlsignore`.
 *
 * Matching is case-sensitive and byte-wise (`?` matches one byte, not
 * one UTF-8 character). It runs as a set-of-states simulation, so it
 * costs O(path length x pattern length) for any pattern: no exponential
 * backtracking on patterns like `a*a*a*a*b`.
 *
 * Only the entry itself is matched, never its parents. git's rule that
 * "it is not possible to re-include a file if a parent directory of that
 * file is excluded" is therefore the walker's job: it must not descend
 * into a directory that ignore_match() reports ignored. A query for a
 * path inside an ignored directory can report it not ignored (for
 * example under `build/` plus `!build/keep.txt`).
 */
#ifndef CASTLS_INDEX_IGNORE_H
#define CASTLS_INDEX_IGNORE_H

#include <stdbool.h>
#include <stddef.h>

/* Pattern lines longer than this many bytes (after dropping a trailing CR)
 * are skipped, as are malformed ones. It also bounds the matcher's state
 * set, which lives on the stack. */
#define IGNORE_PATTERN_MAX 1024
/* Steps of the set-of-states simulation (bytes x pattern tokens) one
 * path may take, over all the patterns it is matched against; about a
 * millisecond. Patterns the cheap tests settle (literals, `*.ext`, and
 * any whose fixed bytes the path lacks) cost nothing. Past it, the
 * patterns left are taken as not matching and the path is counted (see
 * ignore_partial): matching costs that much at most, whatever the
 * ignore files hold. Real ones never come near it. */
#define IGNORE_PATH_BUDGET ((size_t)1 << 18)

typedef struct Ignore Ignore;

/* An empty pattern stack; never NULL (allocation failure aborts). Free
 * with ignore_delete(). */
Ignore *ignore_new(void);

/* Frees ig and every pattern in it. NULL does nothing. */
void ignore_delete(Ignore *ig);

/*
 * Adds the patterns in the len bytes of text, the contents of an ignore
 * file in directory dir. dir is relative to the workspace root,
 * '/'-separated, without leading or trailing slash; "" or NULL is the
 * root. Both are borrowed and copied; text need not be NUL-terminated.
 *
 * A line repeated later in the same text is kept once, as its last
 * copy: it decides exactly as all of them would.
 *
 * Returns the number of pattern lines skipped because they were longer
 * than IGNORE_PATTERN_MAX or malformed (an unterminated `[`, an unknown
 * `[:name:]` class, a lone trailing backslash), so the caller can log
 * it. Skipped lines are not an error: git also ignores such patterns.
 */
size_t ignore_add(Ignore *ig, const char *dir, const char *text, size_t len);

/* The current height of the pattern stack, for ignore_reset(). */
size_t ignore_mark(const Ignore *ig);

/* Drops every pattern added since mark was taken. A mark above the
 * current height does nothing. */
void ignore_reset(Ignore *ig, size_t mark);

/*
 * True when the entry at relpath (relative to the root, '/'-separated,
 * no leading or trailing slash, NUL-terminated; borrowed) is ignored by
 * the patterns on the stack; is_dir says whether it is a directory. A
 * pattern applies only to paths strictly below its ignore file's
 * directory. The root itself ("") is never ignored. A path whose
 * matching ran out of IGNORE_PATH_BUDGET is counted in ig.
 */
bool ignore_match(Ignore *ig, const char *relpath, bool is_dir);

/* Paths so far whose matching stopped at IGNORE_PATH_BUDGET, so that
 * some patterns were not tried on them: the caller should say so. */
size_t ignore_partial(const Ignore *ig);

#endif
