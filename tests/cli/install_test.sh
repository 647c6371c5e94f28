#!/bin/sh
# tests/cli/install_test.sh BUILD_DIR: what `make install` puts where
# (cmake --install of the build, staged with DESTDIR), and that the
# installed binary says its version and each command's usage.
set -eu
build=${1:?usage: install_test.sh BUILD_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

DESTDIR="$tmp/stage" cmake --install "$build" --prefix /usr/local \
	>"$tmp/install.log" 2>&1 || fail "cmake --install: $(cat "$tmp/install.log")"
root="$tmp/stage/usr/local"
for f in bin/castls share/man/man1/castls.1 \
	share/nvim/site/pack/castls/start/castls/lua/castls/init.lua \
	share/nvim/site/pack/castls/start/castls/doc/castls.txt \
	share/emacs/site-lisp/castls.el; do
	[ -f "$root/$f" ] || fail "not installed: $f"
done
[ -x "$root/bin/castls" ] || fail "bin/castls is not executable"

bin="$root/bin/castls"
"$bin" --version >"$tmp/v" || fail "--version exits $?"
grep -Eq '^castls [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/v" || fail "--version: $(cat "$tmp/v")"
for cmd in serve context index search status chunk spans; do
	"$bin" "$cmd" --help >"$tmp/h" || fail "$cmd --help exits $?"
	grep -q "^usage: castls .*$cmd\|^usage: castls \[serve\]" "$tmp/h" ||
		fail "$cmd --help: $(cat "$tmp/h")"
done
"$bin" --help | grep -q "COMMAND --help" || fail "--help"
# A wrong command is a usage error, exit 2, with the usage on stderr.
if "$bin" frobnicate 2>"$tmp/e"; then fail "an unknown command ran"; fi
grep -q "unknown command" "$tmp/e" || fail "unknown command: $(cat "$tmp/e")"
# The man page is well-formed roff, if man can render it here.
if command -v man >/dev/null 2>&1; then
	MANWIDTH=80 man -l "$root/share/man/man1/castls.1" 2>/dev/null |
		grep -q "castls - ranked code context" || fail "man page"
fi
echo "install: all checks passed"
