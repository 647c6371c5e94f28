#!/bin/sh
# run.sh KIND: one editor-client test against the real castls
# ($CASTLS_BIN), in a scratch directory with a fresh test repository and
# cache. KIND: vscode_compile, vscode_package, vscode_protocol,
# vscode_activation, vscode_mcp, nvim, emacs. Every client runs under
# `timeout`; after it, the server's stderr must hold no sanitizer report
# and every server started must have exited with status 0.
set -eu
kind=$1
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
ext=$src/editors/vscode
limit=${CASTLS_EDITOR_TIMEOUT:-120}
: "${CASTLS_BIN:?CASTLS_BIN must name the castls binary}"

# A client that is not installed is a skip (CTest: SKIP_RETURN_CODE 77);
# .ci/deps --editors installs them all.
need() {
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 || {
			echo "skipped: $t is not installed" >&2
			exit 77
		}
	done
}
case $kind in
vscode_package) need node npm script ;;
vscode_*) need node npm ;;
nvim) need nvim ;;
emacs) need emacs pylsp ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$here/make-repo.sh" "$tmp/repo"
export CASTLS_TEST_REPO="$tmp/repo"
export CASTLS_SERVER="$here/castls-server.sh"
export CASTLS_STDERR="$tmp/server.stderr"
export XDG_CACHE_HOME="$tmp/cache" XDG_STATE_HOME="$tmp/state"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
: >"$CASTLS_STDERR.runs"
: >"$CASTLS_STDERR.exit"

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The servers the client started: all gone, status 0, no sanitizer report.
check_servers() {
	runs=$(wc -l <"$CASTLS_STDERR.runs")
	[ "$runs" -gt 0 ] || fail "the client never started castls"
	i=0
	while [ "$(wc -l <"$CASTLS_STDERR.exit")" -lt "$runs" ]; do
		i=$((i + 1))
		[ $i -le 300 ] || fail "castls still running 30 s after the client"
		sleep 0.1
	done
	if grep -qE 'Sanitizer|runtime error' "$CASTLS_STDERR"; then
		cat "$CASTLS_STDERR" >&2
		fail "sanitizer report in castls' stderr"
	fi
	if grep -qv '^0$' "$CASTLS_STDERR.exit"; then
		cat "$CASTLS_STDERR" >&2
		fail "castls exit status: $(tr '\n' ' ' <"$CASTLS_STDERR.exit")"
	fi
	echo "castls: $runs server run(s), exit 0, no sanitizer report"
}

# npm packages from the lockfile, then tsc (always for vscode_compile,
# else only when a source is newer than the output).
vscode_build() {
	"$ext/scripts/ensure-deps.sh"
	if [ "$kind" = vscode_compile ] || [ ! -s "$ext/out/extension.js" ] ||
		[ -n "$(find "$ext/src" -newer "$ext/out/extension.js")" ]; then
		(cd "$ext" && timeout "$limit" node_modules/.bin/tsc -p .)
	fi
}

case $kind in
vscode_compile)
	vscode_build
	for f in extension contextView format; do
		[ -s "$ext/out/$f.js" ] || fail "tsc did not write out/$f.js"
	done
	# The engine the types were checked against is the one declared.
	node -e '
		const p = require(process.argv[1] + "/package.json");
		const t = require(process.argv[1] +
			"/node_modules/@types/vscode/package.json");
		const want = p.engines.vscode.replace(/^\^/, "");
		if (t.version !== want) {
			console.error(`@types/vscode ${t.version} != engines ${want}`);
			process.exit(1);
		}' "$ext"
	;;
vscode_package)
	vscode_build
	# As a user packages it, on a terminal (script(1) gives it one): the
	# README's `npx vsce package` and the package script. A y/N prompt
	# of vsce would wait there until the timeout.
	for cmd in "npx vsce package -o '$tmp/npx.vsix'" \
		"npm run package -- -o '$tmp/castls.vsix'"; do
		(cd "$ext" && npm_config_offline=true script -qec \
			"timeout $limit $cmd" /dev/null </dev/null \
			>"$tmp/package.log" 2>&1) || {
			cat "$tmp/package.log" >&2
			grep -q 'y/N' "$tmp/package.log" && fail "$cmd asks y/N"
			fail "$cmd"
		}
	done
	python3 - "$tmp/castls.vsix" <<'PY' || fail "the .vsix lacks files"
import json, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = set(z.namelist())
need = ["extension.vsixmanifest", "extension/package.json",
        "extension/out/extension.js", "extension/out/format.js",
        "extension/node_modules/vscode-languageclient/package.json"]
missing = [n for n in need if n not in names]
leaked = [n for n in names if n.startswith(("extension/src/",
          "extension/test/", "extension/node_modules/typescript/"))]
pkg = json.loads(z.read("extension/package.json"))
cmds = {c["command"] for c in pkg["contributes"]["commands"]}
print(f"castls.vsix: {len(names)} files, commands {sorted(cmds)}")
sys.exit(1 if missing or leaked or len(cmds) != 6 else 0)
PY
	;;
vscode_protocol | vscode_activation | vscode_mcp)
	vscode_build
	test=${kind#vscode_}
	(cd "$ext" && timeout "$limit" node --test "test/$test.test.js") ||
		fail "node --test test/$test.test.js"
	check_servers
	;;
nvim)
	(cd "$tmp/repo" && CASTLS_NVIM_PLUGIN="$src/editors/nvim" \
		timeout "$limit" nvim --headless --clean \
		-c "luafile $here/nvim_test.lua") || fail "nvim"
	check_servers
	;;
emacs)
	# No Eglot internals (eglot--*): they change between releases.
	if grep -n "eglot--" "$src/editors/emacs/castls.el" >&2; then
		fail "castls.el uses Eglot's internals"
	fi
	# Byte-compiles cleanly (warnings are errors), from a copy.
	mkdir "$tmp/el" && cp "$src/editors/emacs/castls.el" "$tmp/el/"
	HOME="$tmp" timeout "$limit" emacs --batch \
		--eval '(setq byte-compile-error-on-warn t)' \
		-f batch-byte-compile "$tmp/el/castls.el" || fail "byte-compile"
	(cd "$tmp/repo" && HOME="$tmp" timeout "$limit" emacs --batch \
		-l "$src/editors/emacs/castls.el" -l "$here/emacs_test.el") ||
		fail "emacs"
	check_servers
	;;
*)
	fail "unknown test kind: $kind"
	;;
esac
