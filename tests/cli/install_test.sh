#!/bin/sh
# tests/cli/install_test.sh BUILD_DIR: what `make install` puts where
# (cmake --install of the build, staged with DESTDIR), that the installed
# binary says its version and each command's usage and what it is when
# run bare on a terminal, that `make run` says where the binary is, and
# that the README's Neovim and Emacs snippets work, verbatim, with what
# was installed (each editor when it is installed).
set -eu
build=${1:?usage: install_test.sh BUILD_DIR}
src=$(cd "$(dirname "$0")/../.." && pwd)
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

# Bare on a terminal, the language server says what it waits for; on a
# pipe (an editor) it says nothing.
if command -v script >/dev/null 2>&1; then
	script -qec "timeout 5 '$bin'" /dev/null </dev/null >"$tmp/tty" 2>&1 ||
		true
	grep -q "castls: a language server, waiting for LSP messages" \
		"$tmp/tty" || fail "no hint on a terminal: $(cat "$tmp/tty")"
fi
"$bin" </dev/null 2>"$tmp/pipe" || true
[ ! -s "$tmp/pipe" ] || fail "castls on a pipe wrote: $(cat "$tmp/pipe")"
# make run ends by saying where the binary is and where make install
# puts it.
make -s -n -C "$src" run PREFIX=/opt/x >"$tmp/run" 2>&1 ||
	fail "make -n run: $(cat "$tmp/run")"
grep -q "the binary is build/release/castls" "$tmp/run" &&
	grep -q "puts it in /opt/x/bin" "$tmp/run" ||
	fail "make run does not say where castls is: $(cat "$tmp/run")"

# The README's snippets, verbatim: the first indented block under the
# editor's heading, run against the staged install, found the way a
# real one under /usr/local is (its share/ among the data directories
# or on Emacs's load path, its bin/ on PATH), in a fresh home.
readme_block() {
	python3 - "$src/README.md" "$1" <<'PY'
import sys
lines = open(sys.argv[1]).read().split("\n")
at = next(i for i, l in enumerate(lines) if l.startswith(sys.argv[2]))
block = []
for l in lines[at + 1:]:
    if l.startswith("    "):
        block.append(l[4:])
    elif block and l.strip():
        break
print("\n".join(block).strip())
PY
}
"$src/tests/editors/make-repo.sh" "$tmp/repo"
mkdir "$tmp/home"
editor_env() {
	env HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" \
		XDG_DATA_HOME="$tmp/home/.local/share" \
		XDG_STATE_HOME="$tmp/home/.local/state" \
		XDG_CACHE_HOME="$tmp/home/.cache" \
		XDG_DATA_DIRS="$root/share:/usr/share" PATH="$root/bin:$PATH" \
		REPO="$tmp/repo" "$@"
}
if command -v nvim >/dev/null 2>&1; then
	readme_block "### Neovim" >"$tmp/init.lua"
	grep -q "require('castls').setup" "$tmp/init.lua" ||
		fail "no Neovim snippet in the README: $(cat "$tmp/init.lua")"
	cat >"$tmp/check.lua" <<'LUA'
local ok, err = pcall(function()
  vim.cmd('edit ' .. os.getenv('REPO') .. '/pkg/report.py')
  local b, client = vim.api.nvim_get_current_buf(), nil
  assert(vim.wait(30000, function()
    for _, c in pairs(vim.lsp.buf_get_clients(b)) do
      if c.name == 'castls' and c.initialized then client = c end
    end
    return client ~= nil
  end, 50), 'castls did not start for a Python buffer')
  local done, res
  require('castls').context(b, { 8, 18 }, {}, function(e, r)
    done, res = true, r or e
  end)
  assert(vim.wait(30000, function() return done end, 50), 'no context')
  assert(type(res) == 'table' and res.items, vim.inspect(res))
  vim.cmd('help castls')
  assert(vim.fn.expand('%:t') == 'castls.txt', ':help castls')
  vim.lsp.stop_client(client.id)
  assert(vim.wait(10000, function()
    return vim.lsp.get_client_by_id(client.id) == nil
  end, 50), 'castls did not stop')
end)
io.stdout:write(ok and 'ok\n' or ('FAIL ' .. tostring(err) .. '\n'))
vim.cmd(ok and 'qall!' or 'cquit 1')
LUA
	(cd "$tmp/repo" && editor_env timeout 120 nvim --headless \
		-u "$tmp/init.lua" -c "luafile $tmp/check.lua") >"$tmp/nvim.log" \
		2>&1 || fail "the README's Neovim snippet: $(cat "$tmp/nvim.log")"
fi
if command -v emacs >/dev/null 2>&1; then
	readme_block "### Emacs" >"$tmp/init.el"
	grep -q "(castls-global-mode 1)" "$tmp/init.el" ||
		fail "no Emacs snippet in the README: $(cat "$tmp/init.el")"
	cat >"$tmp/check.el" <<'EL'
(condition-case err
    (progn
      (find-file (expand-file-name "pkg/report.py" (getenv "REPO")))
      (unless castls-mode (error "castls-mode is off in a Python buffer"))
      (unless (plist-get (castls-context-items) :budget)
        (error "no context"))
      (castls-shutdown-all)
      (princ "ok\n")
      (kill-emacs 0))
  (error (princ (format "FAIL %S\n" err))
         (kill-emacs 1)))
EL
	(cd "$tmp/repo" && editor_env \
		EMACSLOADPATH="$root/share/emacs/site-lisp:" timeout 120 \
		emacs --batch -l "$tmp/init.el" -l "$tmp/check.el") \
		>"$tmp/emacs.log" 2>&1 ||
		fail "the README's Emacs snippet: $(cat "$tmp/emacs.log")"
fi
echo "install: all checks passed"
