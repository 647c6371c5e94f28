#!/bin/sh
# faults_test.sh CASE: the index under faults the file system makes, with
# the real castls binary.
#
#   readonly    the cache directory and database become read-only: castls
#               index fails naming the database; search and status still
#               read the index that is there
#   full        the cache file system fills up during a scan: castls index
#               fails naming the database; the index of before stays
#               readable and whole
#   full_server the same under the language server: castls/status and a
#               window/showMessage say so
#   unreadable  files the scan may not read are skipped; the rest is
#               indexed
#
# Permissions do not bind root, so as root the castls commands run as
# nobody (setpriv); the full disk is a small tmpfs in a mount namespace of
# our own (unshare). Exit 77 (CTest's skip) when a fault cannot be made
# on this machine.
set -eu
bin=${CASTLS_BIN:?}
src=$(cd "$(dirname "$0")/../.." && pwd)
case_=${1:?usage: faults_test.sh readonly|full|full_server|unreadable}
tmp=$(mktemp -d)
trap 'umount "$tmp/mnt" 2>/dev/null || true; rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL ($case_): $*" >&2; exit 1; }
skip() { echo "SKIP ($case_): $*" >&2; exit 77; }

# Runs castls as an unprivileged user.
as_user() {
	if [ "$(id -u)" = 0 ]; then
		setpriv --reuid=65534 --regid=65534 --clear-groups -- "$@"
	else
		"$@"
	fi
}

# Skips when running as nobody cannot be arranged.
need_user() {
	if [ "$(id -u)" = 0 ] && ! setpriv --reuid=65534 true 2>/dev/null; then
		skip "setpriv cannot drop to nobody"
	fi
}

# make_ws DIR N [DEFS]: one definition to find (first.py, unless N
# modules only are asked for with DEFS), and N modules of DEFS
# definitions (120 by default).
make_ws() {
	mkdir -p "$1"
	[ $# -gt 2 ] ||
		printf 'def alpha_beta(x):\n    return x + 1\n' >"$1/first.py"
	i=0
	while [ "$i" -lt "$2" ]; do
		python3 - "$1/mod_$i.py" "$i" "${3:-120}" <<'PY'
import sys
n, defs = int(sys.argv[2]), int(sys.argv[3])
with open(sys.argv[1], "w") as f:
    for k in range(defs):
        f.write("def gamma_%d_%d(value):\n    return [value * %d for _ in range(%d)]\n\n" % (n, k, k, n))
PY
		i=$((i + 1))
	done
}

# search and status read the index that is there: first.py is found.
expect_readable() {
	as_user "$bin" search "$tmp/ws" "alpha beta" --db "$1" --format text \
		>"$tmp/search.out" 2>"$tmp/search.err" ||
		fail "search: $(cat "$tmp/search.err")"
	grep -q "first.py" "$tmp/search.out" || fail "search found nothing"
	as_user "$bin" status "$tmp/ws" --db "$1" --format json \
		>"$tmp/status.json" 2>"$tmp/status.err" ||
		fail "status: $(cat "$tmp/status.err")"
	python3 - "$tmp/status.json" "$2" <<'PY' || fail "status: wrong files"
import json, sys
st = json.load(open(sys.argv[1]))
assert st["files"] == int(sys.argv[2]), st
PY
}

case $case_ in
readonly)
	need_user
	make_ws "$tmp/ws" 3
	mkdir "$tmp/cache"
	chmod 755 "$tmp"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$tmp/ws" "$tmp/cache"
	db=$tmp/cache/index.db
	as_user "$bin" index "$tmp/ws" --db "$db" --quiet ||
		fail "the first index"
	chmod 555 "$tmp/cache"
	chmod 444 "$db"
	printf 'def delta():\n    return 2\n' >"$tmp/ws/late.py"
	if as_user "$bin" index "$tmp/ws" --db "$db" --quiet \
		2>"$tmp/index.err"; then
		fail "castls index wrote into a read-only directory"
	fi
	grep -q "$db" "$tmp/index.err" || fail "no path: $(cat "$tmp/index.err")"
	grep -q "read-only" "$tmp/index.err" ||
		fail "no cause: $(cat "$tmp/index.err")"
	expect_readable "$db" 4
	# castls context answers from the index that is there, as search
	# does, and says it could not bring it up to date.
	printf 'from first import alpha_beta\n\n\ndef use(v):\n    return alpha_beta(v)\n' \
		>"$tmp/ws/use.py"
	as_user "$bin" context --root "$tmp/ws" --db "$db" --format json \
		"$tmp/ws/use.py:5:22" >"$tmp/ctx.json" 2>"$tmp/ctx.err" ||
		fail "context on a read-only index: $(cat "$tmp/ctx.err")"
	python3 - "$tmp/ctx.json" <<'PY' || fail "context: $(cat "$tmp/ctx.json")"
import json, sys
r = json.load(open(sys.argv[1]))
assert any(i["uri"].endswith("/first.py") for i in r["items"]), r
PY
	grep -q "read-only" "$tmp/ctx.err" ||
		fail "context did not say the index is read-only: $(cat "$tmp/ctx.err")"
	# The language server on the same index: its scan cannot write,
	# its requests still read. nobody must reach the client code.
	mkdir "$tmp/out"
	cp "$src/tests/eval/lsp_client.py" "$tmp/out/"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$tmp/out"
	py=/usr/bin/python3 # the system's: a user's own may be out of reach
	[ -x "$py" ] || py=python3
	as_user "$py" - "$bin" "$tmp" "$db" <<'PY' || fail "castls serve"
import sys
sys.path.insert(0, sys.argv[2] + "/out")
from lsp_client import LspClient
castls, tmp, db = sys.argv[1:4]
cl = LspClient([castls, "serve", "--db", db], cwd=tmp + "/ws",
               stderr_path=tmp + "/out/serve.err")
try:
    cl.initialize(tmp + "/ws")
    cl.wait_indexed(timeout=60)
    res = cl.request("castls/search", {"query": "alpha beta"}, timeout=30)
    names = [i["uri"] for i in res["items"]]
    assert any(n.endswith("/first.py") for n in names), res
    st = cl.request("castls/status", {}, timeout=30)
    assert st["files"] == 4, st
    # Said where the user looks: the database, the cause, the setting.
    cl.pump(0.5)
    shown = [p["message"] for m, p in cl.notifications
             if m == "window/showMessage"]
    assert any(db in m and "read-only" in m and "dbPath" in m
               for m in shown), shown
finally:
    cl.close()
PY
	grep -q "read-only" "$tmp/out/serve.err" ||
		fail "the server's log does not say the scan failed"
	;;
full)
	command -v unshare >/dev/null || skip "no unshare"
	make_ws "$tmp/ws" 0
	make_ws "$tmp/big" 40 700
	mkdir "$tmp/mnt"
	# The namespace's tmpfs holds 1 MiB: the first index fits, the
	# second (the 40 modules of big/ added) does not.
	unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs "$1"' sh \
		"$tmp/mnt" 2>/dev/null || skip "cannot mount a tmpfs"
	export CASTLS_BIN tmp
	unshare -m sh -eu -c '
		mount -t tmpfs -o size=1m tmpfs "$tmp/mnt"
		db=$tmp/mnt/index.db
		"$CASTLS_BIN" index "$tmp/ws" --db "$db" --quiet
		cp "$tmp"/big/*.py "$tmp/ws/"
		if "$CASTLS_BIN" index "$tmp/ws" --db "$db" --quiet \
			2>"$tmp/index.err"; then
			echo "FAIL (full): the index fit in 1 MiB" >&2
			exit 1
		fi
		# The index of before: one file, whole.
		"$CASTLS_BIN" search "$tmp/ws" "alpha beta" --db "$db" \
			--format text >"$tmp/search.out"
		"$CASTLS_BIN" status "$tmp/ws" --db "$db" --format json \
			>"$tmp/status.json"
		python3 -c "
import sqlite3, sys
db = sqlite3.connect(\"file:\" + sys.argv[1] + \"?mode=ro\", uri=True)
print(db.execute(\"PRAGMA quick_check\").fetchone()[0])
" "$db" >"$tmp/check.out"
	' || fail "$(cat "$tmp/index.err" 2>/dev/null)"
	grep -q "$tmp/mnt/index.db" "$tmp/index.err" ||
		fail "no path: $(cat "$tmp/index.err")"
	grep -q "no space left" "$tmp/index.err" ||
		fail "no cause: $(cat "$tmp/index.err")"
	grep -q "first.py" "$tmp/search.out" || fail "search found nothing"
	# The index of before is all there. A batch of the second scan may
	# have gone in before the disk filled (a batch ends after a second,
	# which a loaded machine reaches early): whole files, never part of
	# one, and quick_check says so.
	python3 -c "
import json, sys
assert 1 <= json.load(open(sys.argv[1]))['files'] <= 41
" "$tmp/status.json" || fail "status: not the index of before"
	[ "$(cat "$tmp/check.out")" = ok ] || fail "quick_check: $(cat "$tmp/check.out")"
	;;
full_server)
	# The same full disk under the language server: the failed scan
	# shows in castls/status and in a window/showMessage, not only in
	# the log.
	command -v unshare >/dev/null || skip "no unshare"
	make_ws "$tmp/ws" 40 700
	mkdir "$tmp/mnt"
	unshare -m sh -c 'mount -t tmpfs -o size=1m tmpfs "$1"' sh \
		"$tmp/mnt" 2>/dev/null || skip "cannot mount a tmpfs"
	export CASTLS_BIN tmp src
	unshare -m sh -eu -c '
		mount -t tmpfs -o size=1m tmpfs "$tmp/mnt"
		python3 - "$CASTLS_BIN" "$tmp" "$src" <<"PY"
import json, sys
sys.path.insert(0, sys.argv[3] + "/tests/eval")
from lsp_client import LspClient
bin, tmp = sys.argv[1], sys.argv[2]
c = LspClient([bin, "serve", "--db", tmp + "/mnt/index.db"],
              stderr_path=tmp + "/server.err")
c.initialize(tmp + "/ws")
assert c.wait_indexed(timeout=120), "indexing never ended"
st = c.request("castls/status", {})
c.pump(1.0)
shown = [p for m, p in c.notifications if m == "window/showMessage"]
c.close()
root = st["roots"][0]
assert "no space left" in root.get("indexError", ""), st
assert any(p["type"] == 1 and "no space left" in p["message"] and
           tmp + "/ws" in p["message"] for p in shown), shown
assert len(shown) == 1, shown
PY
	' || fail "server: see above; $(tail -3 "$tmp/server.err" 2>/dev/null)"
	;;
unreadable)
	need_user
	make_ws "$tmp/ws" 2
	mkdir -p "$tmp/ws/locked" "$tmp/cache"
	printf 'def hidden_one():\n    return 3\n' >"$tmp/ws/secret.py"
	printf 'def hidden_two():\n    return 4\n' >"$tmp/ws/locked/inner.py"
	chmod 755 "$tmp"
	[ "$(id -u)" = 0 ] && chown -R 65534:65534 "$tmp/ws" "$tmp/cache"
	chmod 000 "$tmp/ws/secret.py" "$tmp/ws/locked"
	db=$tmp/cache/index.db
	as_user "$bin" index "$tmp/ws" --db "$db" 2>"$tmp/index.err" ||
		fail "castls index: $(cat "$tmp/index.err")"
	grep -q "3 indexed" "$tmp/index.err" ||
		fail "not the readable files: $(cat "$tmp/index.err")"
	grep -q "1 skipped" "$tmp/index.err" ||
		fail "the unreadable file: $(cat "$tmp/index.err")"
	expect_readable "$db" 3
	chmod 755 "$tmp/ws/locked"
	;;
*)
	fail "unknown case"
	;;
esac
echo "ok ($case_)"
