#!/bin/sh
# The command-line tools against real files: castls chunk (JSON tiles the
# file byte for byte), castls spans (the definition tree), castls context
# (a definition from another file ranks for a call site) and exit codes.
set -eu
bin=${CASTLS_BIN:?}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }

# chunk: concatenated texts equal the file, for every fixture.
for f in "$src"/tests/fixtures/*/*.py "$src"/tests/fixtures/*/*.ts \
	"$src"/tests/fixtures/*/*.tsx "$src"/tests/fixtures/*/*.js \
	"$src"/tests/fixtures/*/*.sh "$src"/tests/fixtures/*/*.md; do
	"$bin" chunk --max-size 120 "$f" >"$tmp/chunks.json"
	python3 - "$f" "$tmp/chunks.json" <<'PY' || fail "chunk $f"
import json, sys
src = open(sys.argv[1], "rb").read().decode("utf-8", "surrogateescape")
rows = [json.loads(l) for l in open(sys.argv[2])]
assert "".join(r["text"] for r in rows) == src, "not byte for byte"
assert all(r["size"] <= 120 for r in rows), "over the size"
assert rows[0]["start_byte"] == 0 and rows[-1]["end_byte"] == len(src.encode("utf-8", "surrogateescape"))
PY
done

# spans: the method is under its class, with its decorators' lines.
"$bin" spans --format text "$src/tests/fixtures/python/class_split.py" \
	>"$tmp/spans.txt"
grep -q "^class Ledger  6-38$" "$tmp/spans.txt" || fail "spans: class"
grep -q "^  method rounding  27-30$" "$tmp/spans.txt" || fail "spans: method"
grep -q "^    function line  33-34$" "$tmp/spans.txt" || fail "spans: nested"

# context: the call site in app.py gets the definition in shapes.py.
mkdir -p "$tmp/ws/pkg"
cat >"$tmp/ws/pkg/shapes.py" <<'PY'
import math


def circle_area(radius):
    """Area of a circle."""
    return math.pi * radius * radius


class Square:
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side
PY
cat >"$tmp/ws/pkg/app.py" <<'PY'
from pkg.shapes import circle_area, Square


def total(radii, sides):
    total = sum(circle_area(r) for r in radii)
    total += sum(Square(s).area() for s in sides)
    return total
PY
XDG_CACHE_HOME="$tmp/cache" "$bin" context --root "$tmp/ws" \
	"$tmp/ws/pkg/app.py:6:5" --format json >"$tmp/ctx.json"
python3 - "$tmp/ctx.json" <<'PY' || fail "context"
import json, sys
r = json.load(open(sys.argv[1]))
uris = [i["uri"] for i in r["items"]]
assert not r["noContext"], r
assert uris and uris[0].endswith("/pkg/shapes.py"), uris
assert "circle_area" in r["items"][0]["signals"].get("defines", ""), r
assert r["budget"]["used"] <= r["budget"]["limit"]
PY

# context without --root, run from a folder holding several projects:
# the file's git repository is the root, not the working directory, and a
# file in no project is served alone, with nothing indexed.
mkdir -p "$tmp/scratch/proj/pkg" "$tmp/scratch/other/deep" "$tmp/scratch/loose"
mkdir "$tmp/scratch/proj/.git"
cp "$tmp/ws/pkg/shapes.py" "$tmp/ws/pkg/app.py" "$tmp/scratch/proj/pkg/"
printf 'x = 1\n' >"$tmp/scratch/other/deep/noise.py"
printf 'def lone():\n    return 1\n' >"$tmp/scratch/loose/lone.py"
(cd "$tmp/scratch" && XDG_CACHE_HOME="$tmp/cache2" "$bin" context \
	proj/pkg/app.py:6:5 --format json >"$tmp/ctx2.json") ||
	fail "context from a scratch folder"
grep -q '/proj/pkg/shapes.py' "$tmp/ctx2.json" || fail "no shapes.py item"
dbs=$(find "$tmp/cache2" -name index.db | wc -l)
[ "$dbs" -eq 1 ] || fail "expected one index, found $dbs"
python3 - "$(find "$tmp/cache2" -name index.db)" <<'PY' || fail "index holds more than the project"
import sqlite3, sys
paths = [r[0] for r in sqlite3.connect(sys.argv[1]).execute("SELECT path FROM files")]
assert sorted(paths) == ["pkg/app.py", "pkg/shapes.py"], paths
PY
(cd "$tmp/scratch" && XDG_CACHE_HOME="$tmp/cache3" "$bin" context \
	loose/lone.py:2 2>"$tmp/lone.err" >/dev/null) || fail "a loose file"
grep -q "in no project" "$tmp/lone.err" || fail "no word on a loose file"
[ ! -d "$tmp/cache3/castls" ] || fail "a loose file's folder was indexed"
# Without git, the nearest directory with a project file is the root.
# A home directory that is a git repository (dotfiles) is never a root,
# but a project below it is; a file under it in no project is alone.
db_paths() {
	python3 - "$(find "$1" -name index.db)" <<'PY'
import sqlite3, sys
print(" ".join(sorted(r[0] for r in
      sqlite3.connect(sys.argv[1]).execute("SELECT path FROM files"))))
PY
}
mkdir -p "$tmp/scratch/marked/src" "$tmp/home/.git" "$tmp/home/work/lib" \
	"$tmp/home/notes"
printf '[project]\nname = "marked"\n' >"$tmp/scratch/marked/pyproject.toml"
cp "$tmp/ws/pkg/shapes.py" "$tmp/ws/pkg/app.py" "$tmp/scratch/marked/src/"
(cd "$tmp/scratch" && XDG_CACHE_HOME="$tmp/cache4" "$bin" context \
	marked/src/app.py:6:5 >/dev/null) || fail "context in a marked project"
[ "$(db_paths "$tmp/cache4")" = "src/app.py src/shapes.py" ] ||
	fail "marked project: indexed $(db_paths "$tmp/cache4")"
printf 'module work\n' >"$tmp/home/work/go.mod"
cp "$tmp/ws/pkg/shapes.py" "$tmp/home/work/lib/"
cp "$tmp/ws/pkg/shapes.py" "$tmp/home/notes/"
(cd "$tmp" && HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache5" "$bin" context \
	home/work/lib/shapes.py:5 >/dev/null) || fail "a project under home"
[ "$(db_paths "$tmp/cache5")" = "lib/shapes.py" ] ||
	fail "project under a git home: indexed $(db_paths "$tmp/cache5")"
(cd "$tmp" && HOME="$tmp/home" XDG_CACHE_HOME="$tmp/cache6" "$bin" context \
	home/notes/shapes.py:5 2>"$tmp/home.err" >/dev/null) ||
	fail "a file in home"
grep -q "in no project" "$tmp/home.err" || fail "home indexed as a project"
[ ! -d "$tmp/cache6/castls" ] || fail "the home directory was indexed"
# With --root, a relative FILE is under the root, wherever castls runs.
(cd / && XDG_CACHE_HOME="$tmp/cache2" "$bin" context \
	--root "$tmp/scratch/proj" pkg/app.py:6:5 >/dev/null) ||
	fail "FILE relative to --root"

# errors: a missing file and a bad position exit non-zero with a message.
if "$bin" chunk "$tmp/missing.py" 2>"$tmp/err"; then fail "missing file"; fi
grep -q "missing.py" "$tmp/err" || fail "missing file message"
if "$bin" context --root "$tmp/ws" "$tmp/ws/pkg/app.py:x" 2>/dev/null; then
	fail "bad position accepted"
fi
echo "cli: all checks passed"
