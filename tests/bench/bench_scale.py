#!/usr/bin/env python3
"""tests/bench/bench_scale.py: castls on a multi-million-line tree.

    python3 tests/bench/bench_scale.py [--castls build/release/castls]
        [--work build/scale] [--size small|full|both] [--only PHASES]
        [--repeat N] [--soak] [--json FILE]

The benchmark of issue 16 (`make bench-scale`). It assembles, at run
time and never in git, a corpus of distinct real code under WORK/corpus:

- full/python/PKG: Debian's python3-* packages (PY_PACKAGES, from
  /usr/lib/python3/dist-packages; `.ci/deps --scale` installs them),
- full/stdlib: the standard library of the system's python3
  (/usr/lib/python3.11 on Debian 12; site-packages left out),
- full/npm/PKG: the TypeScript and JavaScript of the npm packages pinned
  in tests/bench/scale/package-lock.json and their dependencies
  (installed with `npm ci --ignore-scripts` into WORK/npm): a package's
  src/ when it ships one (its dist/ and lib/ are builds of it), else the
  whole package,
- small: a 10% slice of full, by whole units (a directory or module one
  level below a package, or an entry of the stdlib), picked in the
  order of a hash of their names: the same choice on every machine with
  the same packages.

Only what castls indexes by default is copied (files are copies, not
links: a scan never follows a link out of the root): code files
(.py .pyi .ts .mts .cts .tsx .js .mjs .cjs .jsx) up to maxFileSize
(1 MiB), outside the directories castls skips in a tree that is not a
git repository (node_modules, dist, build, vendor, ...). The line and
file counts below are of that copy; castls may still skip a minified or
generated file (its own count is printed too). A manifest (WORK/corpus/
manifest.json) records the inputs; a later run reuses the copy when the
inputs and the files on disk still match it.

Phases, per size (--only takes a comma-separated subset):

  index      cold index with the CLI (`castls index --jobs 2` into an
             empty database; the files are in the page cache): wall,
             MB/s, peak RSS, database size over source size, and its
             share of twice bench_chunk's single-thread parse MB/s on
             the same tree (two-core raw parse, as bench_index.py),
             that parse timed after each run: the median of the runs'
             ratios.
  rescan     `castls index` again on the unchanged tree (median of
             max(3, --repeat) runs).
  context    castls/context at --contexts cursors (first non-blank
             character of lines inside function bodies) in files of at
             least 5 packages of the slice, so both sizes answer the
             same cursors; those files are open as in an editor. The
             server's elapsedMs and the round trip. With --size both,
             a server on each size answers each cursor in turn (the
             first alternating), so that load on the machine weighs
             on both sizes alike.
  typing     castls/context at the same cursors as a user types: a
             space typed at the end of the cursor's line and its rows
             committed, then the request (the space deleted after). A
             commit empties the read caches of the server's database
             connections, so this is the request after a write.
  search     castls/search on --queries queries drawn from the slice:
             half real lines of code, half names of definitions.
  symbol     workspace/symbol on --queries names of definitions, each
             cut to a random prefix of 4 characters or more (as typed).
  keystroke  single-character edits (insert, then delete) in a real
             Python file of the slice: didChange until a second SQLite
             connection sees the edited line in the chunk row that
             covers it (bench_lsp.py's "rows committed"; the server
             says nothing when it commits, and reading the database
             needs no hook in it).
  branch     a branch switch: --switch-files files (fewer at the small
             size: a quarter of its files at most) rewritten on disk
             while the server runs, as git checkout does (70% changed,
             15% deleted, 15% added; open files left alone), then
             switched back. With workspace/didChangeWatchedFiles events
             as an editor sends them (a notification per 200 files, as
             they are written): the time until the index matches the
             disk (every changed path has the size and mtime of its
             file, every deleted one is gone), the longest wait of a
             request meanwhile (castls/search for names in the deleted
             and changed files, and castls/context, one every
             --probe-ms), and answers naming a file that no longer
             exists or an item whose first line is not in its file
             (stale). Beside the waits, the same context requests
             at rest (each cursor's median of 3, before the switch),
             what the waits compare with. Then once without events,
             for --idle-wait seconds (castls has no periodic re-scan:
             the disk is only looked at on events, on rows a request
             finds older than their file, or castls.reindex), then
             with the castls.reindex command.
  soak       (only with --soak or --only soak; full size, or the one
             --size names) 10,000 edits (--soak-edits) in the open files,
             each waiting for its rows, a castls/context every 25th, and
             5 branch switches with events (--soak-switches) among them,
             the server's VmRSS sampled every 100 edits.

--repeat N runs the cheap parts N times and reports medians: the passes
of context, search and symbol (each figure the median over passes of
that pass's percentile). The cold index, the re-scan and the keystroke
passes, whose goals a busy neighbour on a shared machine moves most,
run at least 3 times whatever N. Percentiles are nearest-rank. The
table shows the goals of issue 16 beside the figures (ok / MISSED);
nothing fails.
"""
import argparse
import ast
import hashlib
import json
import os
import random
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import sysconfig
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "eval"))
sys.path.insert(0, HERE)

from lsp_client import (LspClient, LspError, ServerGone,  # noqa: E402
                        now, path_to_uri, uri_to_path)
from bench_lsp import (RowWatch, body_lines, change_params,  # noqa: E402
                       make_edits, pct)

# Bump when the corpus rules change, so an old copy is rebuilt.
CORPUS_VERSION = 2
PY_PACKAGES = ("sympy", "pandas", "scipy", "matplotlib", "sklearn",
               "twisted", "astropy", "networkx", "nltk", "numpy", "django")
DIST_PACKAGES = "/usr/lib/python3/dist-packages"
# npm packages whose source is more than their src/: directories to take
# instead (three's examples are distinct code, its build/ is not).
NPM_TAKE = {"three": ("src", "examples/jsm")}
CODE_EXTS = (".py", ".pyi", ".ts", ".mts", ".cts", ".tsx", ".js", ".mjs",
             ".cjs", ".jsx")
# What a scan skips by default in a tree without .git (index/scan.c),
# and what is not source.
SKIP_DIRS = {"node_modules", "__pycache__", ".tox", ".mypy_cache", "dist",
             "build", "target", "vendor", "site-packages", "dist-packages",
             ".git"}
MAX_FILE = 1 << 20  # castls' default maxFileSize
SLICE = 0.10
OPEN_FILES = 32  # cursor files, open in the editor
EDIT_CHARS = "abcdefghijklmnopqrstuvwxyz_ .,0123456789"
PHASES = ("index", "rescan", "context", "typing", "search", "symbol",
          "keystroke", "branch")

GOALS = {  # issue 16, full size
    "context_p99": 30.0, "search_p99": 20.0, "symbol_p99": 20.0,
    "keystroke_p99": 5.0, "cold_share": 0.60, "rescan_s": 2.0,
    "db_ratio": 2.0, "rss_mb": 300.0, "switch_s": 10.0,
    "switch_wait_ms": 50.0, "context_ratio": 1.5,
}


def log(msg):
    print("[%s] %s" % (time.strftime("%H:%M:%S"), msg), file=sys.stderr,
          flush=True)


def die(msg):
    sys.exit("bench_scale: " + msg)


class BenchError(Exception):
    pass


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def over_passes(passes, p):
    """Median over passes of each pass's p-th percentile."""
    return med([pct(s, p) for s in passes if s])


# ---------------------------------------------------------------------- #
# The corpus
# ---------------------------------------------------------------------- #

def code_files(top):
    """(path relative to top, absolute path) of the code files under top
    that castls would index, in a stable order."""
    for d, dirs, files in os.walk(top):
        dirs[:] = sorted(x for x in dirs if x not in SKIP_DIRS)
        for f in sorted(files):
            if not f.endswith(CODE_EXTS):
                continue
            p = os.path.join(d, f)
            try:
                if not os.path.isfile(p) or os.path.islink(p) or \
                        os.path.getsize(p) > MAX_FILE:
                    continue
            except OSError:
                continue
            yield os.path.relpath(p, top), p


def npm_packages(nm):
    """(name, directory) of every package under node_modules nm. A
    nested copy (a second version of a dependency, its own code) is
    named "outer+inner"."""
    out = []

    def add(name, d):
        out.append((name, d))
        inner = os.path.join(d, "node_modules")
        if os.path.isdir(inner):
            scan(inner, name + "+")

    def scan(nmdir, prefix):
        for name in sorted(os.listdir(nmdir)):
            d = os.path.join(nmdir, name)
            if name.startswith(".") or os.path.islink(d) or \
                    not os.path.isdir(d):
                continue
            if name.startswith("@"):
                for sub in sorted(os.listdir(d)):
                    if os.path.isdir(os.path.join(d, sub)):
                        add(prefix + name + "/" + sub, os.path.join(d, sub))
            else:
                add(prefix + name, d)

    scan(nm, "")
    return out


def sources(npm_nm):
    """(destination prefix, source directory) pairs of the full corpus."""
    out = []
    for pkg in PY_PACKAGES:
        d = os.path.join(DIST_PACKAGES, pkg)
        if not os.path.isdir(d):
            die("%s is missing: run .ci/deps --scale (python3-%s)" %
                (d, pkg))
        out.append(("python/" + pkg, d))
    out.append(("stdlib", system_stdlib()[0]))
    for name, d in npm_packages(npm_nm):
        base = name.split("+")[-1]
        take = NPM_TAKE.get(base)
        if take is None:
            take = ("src",) if os.path.isdir(os.path.join(d, "src")) \
                else ("",)
        for sub in take:
            src = os.path.join(d, sub) if sub else d
            if os.path.isdir(src):
                out.append(("npm/%s%s" % (name, "/" + sub if sub else ""),
                            src))
    return out


def system_stdlib():
    """The standard library of the system's python3 (the one Debian's
    python3-* packages are for), and its version; this python's when
    there is none."""
    try:
        out = subprocess.run(
            ["/usr/bin/python3", "-c", "import sys, sysconfig; print("
             "sysconfig.get_paths()['stdlib']); print('%d.%d' % "
             "sys.version_info[:2])"], capture_output=True, text=True,
            check=True).stdout.split()
        return out[0], out[1]
    except (OSError, subprocess.CalledProcessError, IndexError):
        return (sysconfig.get_paths()["stdlib"],
                "%d.%d" % sys.version_info[:2])


# Directories that only hold the rest of a package: a unit of the slice
# is one level below them.
WRAPPERS = ("src", "lib", "examples", "jsm", "internal")


def unit_of(rel):
    """The slice unit of a corpus path: one level below a package."""
    parts = rel.split("/")
    if parts[0] == "stdlib":
        n = 2
    elif parts[0] == "npm" and parts[1].startswith("@"):
        n = 4
    else:
        n = 3
    while n < len(parts) and parts[n - 1] in WRAPPERS:
        n += 1
    return "/".join(parts[:n])


def package_of(rel):
    parts = rel.split("/")
    if parts[0] == "stdlib":
        return "stdlib"
    if parts[0] == "npm" and parts[1].startswith("@"):
        return "/".join(parts[:3])
    return "/".join(parts[:2])


def corpus_inputs(npm_dir):
    h = hashlib.sha256()
    for f in ("package.json", "package-lock.json"):
        with open(os.path.join(HERE, "scale", f), "rb") as fh:
            h.update(fh.read())
    debs = subprocess.run(
        ["dpkg-query", "-W", "-f=${Package} ${Version}\\n"] +
        ["python3-" + p for p in PY_PACKAGES] +
        ["libpython%s-stdlib" % system_stdlib()[1]],
        capture_output=True, text=True).stdout
    return {"version": CORPUS_VERSION, "npm": h.hexdigest(),
            "debs": debs, "stdlib": system_stdlib()[0]}


def npm_install(work):
    """npm ci of the pinned packages into WORK/npm (once per lock)."""
    npm_dir = os.path.join(work, "npm")
    os.makedirs(npm_dir, exist_ok=True)
    lock = os.path.join(HERE, "scale", "package-lock.json")
    stamp = os.path.join(npm_dir, "node_modules", ".castls-lock")
    with open(lock, "rb") as f:
        want = f.read()
    try:
        with open(stamp, "rb") as f:
            if f.read() == want:
                return os.path.join(npm_dir, "node_modules")
    except OSError:
        pass
    for f in ("package.json", "package-lock.json", ".npmrc"):
        shutil.copyfile(os.path.join(HERE, "scale", f),
                        os.path.join(npm_dir, f))
    log("npm ci of tests/bench/scale/package-lock.json into %s" % npm_dir)
    r = subprocess.run(["npm", "ci", "--ignore-scripts", "--no-audit",
                        "--no-fund", "--loglevel=error"], cwd=npm_dir,
                       capture_output=True, text=True)
    if r.returncode:
        die("npm ci failed: %s" % r.stderr[-2000:])
    with open(stamp, "wb") as f:
        f.write(want)
    return os.path.join(npm_dir, "node_modules")


def tree_sizes(top):
    """{relative path: size} of the regular files under top."""
    out = {}
    for d, _, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            out[os.path.relpath(p, top)] = os.path.getsize(p)
    return out


def build_corpus(work, rebuild=False):
    """Stages the corpus (or checks the staged one); returns the
    manifest: {"inputs", "files": {rel: [bytes, lines]}, "slice":
    [units]}."""
    nm = npm_install(work)
    cdir = os.path.join(work, "corpus")
    mpath = os.path.join(cdir, "manifest.json")
    inputs = corpus_inputs(os.path.join(work, "npm"))
    if not rebuild and os.path.exists(mpath):
        with open(mpath) as f:
            man = json.load(f)
        if man.get("inputs") == inputs:
            t0 = now()
            full = tree_sizes(os.path.join(cdir, "full"))
            small = tree_sizes(os.path.join(cdir, "small"))
            want_full = {r: v[0] for r, v in man["files"].items()}
            units = set(man["slice"])
            want_small = {r: b for r, b in want_full.items()
                          if unit_of(r) in units}
            if full == want_full and small == want_small:
                log("corpus: the copy in %s matches its manifest (%.1f s"
                    " to check)" % (cdir, now() - t0))
                return man
            log("corpus: the copy differs from its manifest; rebuilding")
    shutil.rmtree(cdir, ignore_errors=True)
    os.makedirs(cdir)
    t0 = now()
    files = {}
    full = os.path.join(cdir, "full")
    for prefix, src in sources(nm):
        for rel, path in code_files(src):
            dst_rel = prefix + "/" + rel
            dst = os.path.join(full, dst_rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            with open(path, "rb") as f:
                data = f.read()
            with open(dst, "wb") as f:
                f.write(data)
            files[dst_rel] = [len(data), data.count(b"\n")]
    log("corpus: %d files, %.1f M lines copied in %.1f s" % (
        len(files), sum(v[1] for v in files.values()) / 1e6, now() - t0))
    # The slice: whole units in the order of a hash of their names,
    # each taken when it still fits under the target.
    lines = {}
    for rel, (_, n) in files.items():
        u = unit_of(rel)
        lines[u] = lines.get(u, 0) + n
    total = sum(lines.values())
    target = SLICE * total
    picked, got = [], 0
    for u in sorted(lines, key=lambda u: hashlib.sha1(
            u.encode()).hexdigest()):
        if got + lines[u] <= target * 1.02:
            picked.append(u)
            got += lines[u]
        if got >= target * 0.98:
            break
    units = set(picked)
    small = os.path.join(cdir, "small")
    for rel in files:
        if unit_of(rel) in units:
            dst = os.path.join(small, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(os.path.join(full, rel), dst)
    man = {"inputs": inputs, "files": files, "slice": sorted(picked)}
    with open(mpath, "w") as f:
        json.dump(man, f)
    log("corpus: slice of %d units, %.2f M lines (%.1f%%)" % (
        len(picked), got / 1e6, 100.0 * got / total))
    return man


def size_files(man, size):
    if size == "full":
        return dict(man["files"])
    units = set(man["slice"])
    return {r: v for r, v in man["files"].items() if unit_of(r) in units}


# ---------------------------------------------------------------------- #
# Workloads drawn from the slice (the same at both sizes)
# ---------------------------------------------------------------------- #

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
DEF_PY = re.compile(r"^\s*(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)")
DEF_JS = re.compile(r"\b(?:function\*?|class|interface|type|enum)\s+"
                    r"([A-Za-z_$][\w$]*)")
COMMENT = ("#", "//", "/*", "*", '"""', "'''")


def read_text(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


def js_body_lines(lines):
    """(line, column) of indented code lines of a TS/JS file: inside a
    block, mostly function bodies."""
    out = []
    for i, s in enumerate(lines):
        st = s.lstrip(" \t")
        ind = len(s) - len(st)
        if ind >= 2 and st.strip() and st.isascii() and \
                not st.startswith(COMMENT) and len(s) < 200:
            out.append((i, ind))
    return out


# base.h: a file of at least MINIFIED_MIN_BYTES whose lines average
# MINIFIED_LINE_BYTES is minified, and a scan skips it.
MINIFIED_MIN_BYTES = 2048
MINIFIED_LINE_BYTES = 300


def scan_skips(rel, text):
    """Whether a scan would leave the file out as minified or generated
    (castls_is_minified, lang_generated), though a buffer of it is
    indexed: each scan then drops its rows and the buffer writes them
    again under a new file id. Such files are not in the workloads."""
    data = text.encode("utf-8", "replace")
    if len(data) >= MINIFIED_MIN_BYTES and \
            len(data) // (data.count(b"\n") + 1) >= MINIFIED_LINE_BYTES:
        return True
    return "_generated." in os.path.basename(rel) or \
        "DO NOT EDIT" in text[:4096]


def cursor_positions(path, text):
    lines = text.split("\n")
    if path.endswith((".py", ".pyi")):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            return []
        return body_lines(tree, lines)
    return js_body_lines(lines)


def language_id(path):
    if path.endswith((".py", ".pyi")):
        return "python"
    if path.endswith((".ts", ".mts", ".cts")):
        return "typescript"
    if path.endswith(".tsx"):
        return "typescriptreact"
    return "javascript"


def pick_cursors(man, root, n, rng):
    """Files of the slice to open, in at least 5 packages (the biggest
    Python ones, the stdlib and npm's), and n cursors among them:
    [(rel, text, [(line, col)])], [(rel, line, col)]."""
    by_pkg = {}
    for rel, (_, nl) in size_files(man, "small").items():
        if 150 <= nl <= 4000:
            by_pkg.setdefault(package_of(rel), []).append(rel)
    npm = sorted((p for p in by_pkg if p.startswith("npm/")),
                 key=lambda p: -len(by_pkg[p]))[:2]
    py = sorted((p for p in by_pkg if not p.startswith("npm/")),
                key=lambda p: -len(by_pkg[p]))[:6]
    pkgs = py + npm
    if len(pkgs) < 5:
        raise BenchError("the slice has files in only %d packages" %
                         len(pkgs))
    per_pkg = -(-OPEN_FILES // len(pkgs))
    picked = []
    for p in pkgs:
        cands = sorted(by_pkg[p])
        rng.shuffle(cands)
        got = 0
        for rel in cands:
            text = read_text(os.path.join(root, rel))
            if text is None or scan_skips(rel, text):
                continue
            pos = cursor_positions(rel, text)
            if len(pos) >= 30:
                picked.append((rel, text, pos))
                got += 1
            if got == per_pkg:
                break
    per_file = -(-n // len(picked))
    cursors = []
    for rel, _, pos in picked:
        for ln, col in rng.sample(pos, min(per_file, len(pos))):
            cursors.append((rel, ln, col))
    rng.shuffle(cursors)
    return picked, cursors[:n], pkgs


def pick_queries(man, root, n, rng):
    """n search queries (half lines of code, half names of definitions)
    and n workspace/symbol queries (prefixes of names), from the
    slice."""
    code, names = [], []
    for rel in sorted(size_files(man, "small")):
        text = read_text(os.path.join(root, rel))
        if text is None:
            continue
        py = rel.endswith((".py", ".pyi"))
        for line in text.split("\n"):
            s = line.strip()
            if 12 <= len(s) <= 80 and not s.startswith(COMMENT) and \
                    len(IDENT.findall(s)) >= 2 and s.isascii():
                code.append(s)
            m = (DEF_PY if py else DEF_JS).search(line)
            if m and len(m.group(1)) >= 4:
                names.append(m.group(1))
    names = sorted(set(names))
    if len(code) < n or len(names) < n:
        raise BenchError("too few lines or names in the slice")
    search = rng.sample(code, n // 2) + rng.sample(names, n - n // 2)
    rng.shuffle(search)
    symbol = []
    for name in rng.sample(names, n):
        symbol.append(name[:rng.randint(min(4, len(name)), len(name))])
    return search, symbol


def pick_keystroke_file(man, root, rng):
    cands = sorted(r for r, (_, nl) in size_files(man, "small").items()
                   if r.endswith(".py") and 1500 <= nl <= 6000)
    rng.shuffle(cands)
    for rel in cands:
        text = read_text(os.path.join(root, rel))
        if text is None or not text.isascii() or scan_skips(rel, text):
            continue
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        if len(body_lines(tree, text.split("\n"))) >= 200:
            return rel, text
    raise BenchError("no Python file of 1,500 to 6,000 lines in the slice")


# ---------------------------------------------------------------------- #
# Cold index and re-scan, with the CLI
# ---------------------------------------------------------------------- #

def rm_db(db):
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.unlink(db + suffix)
        except FileNotFoundError:
            pass


def run_timed(argv):
    """Runs argv; returns (wall s, peak RSS MB, CPU s)."""
    t0 = now()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    secs = now() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise BenchError("%s failed: %s" % (" ".join(argv), err[-2000:]))
    return secs, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime


def cli_status(castls, root, db):
    out = subprocess.run([castls, "status", root, "--db", db, "--format",
                          "json"], check=True, capture_output=True).stdout
    return json.loads(out)


def cli_index(args, root, db):
    return run_timed([args.castls, "index", root, "--db", db, "--jobs",
                      str(args.jobs), "--quiet"])


def raw_parse(args, root, runs):
    """bench_chunk's single-thread parse MB/s over root (CPU time)."""
    exe = os.path.join(args.build, "bench_chunk")
    if not os.access(exe, os.X_OK):
        return None
    out = subprocess.run([exe, "--runs", str(runs), root],
                         capture_output=True, text=True)
    cols = out.stdout.split()
    try:
        return float(cols[5])
    except (IndexError, ValueError):
        return None


def phase_index(args, size, root, db, res):
    """Each cold index is set against a parse timed right after it: this
    machine's speed drifts by a third within minutes, and a ratio of two
    figures taken minutes apart carried that drift (one binary read 68%
    and then 104%). The share is the median of the runs' ratios."""
    runs, parses, n = [], [], max(3, args.repeat)
    for i in range(n):
        rm_db(db)
        log("%s: cold index %d/%d, then bench_chunk's parse" %
            (size, i + 1, n))
        runs.append(cli_index(args, root, db))
        os.sync()  # the database's writeback is not the parse's
        parses.append(raw_parse(args, root, 1))
    st = cli_status(args.castls, root, db)
    wall = med([r[0] for r in runs])
    mb = st["sourceBytes"] / 1e6
    shares = [(mb / r[0]) / (2 * p) for r, p in zip(runs, parses) if p]
    res["index"] = {
        "runs_s": [r[0] for r in runs], "wall_s": wall,
        "cpus": med([r[2] / r[0] for r in runs]),
        "rss_mb": max(r[1] for r in runs), "files": st["files"],
        "chunks": st.get("chunks"), "source_mb": mb,
        "db_mb": st["databaseBytes"] / 1e6,
        "db_ratio": st["databaseBytes"] / max(1, st["sourceBytes"]),
        "mb_s": mb / wall, "parse1_runs": parses,
        "parse1_mb_s": med(parses), "shares": shares,
        "share": med(shares)}


def phase_rescan(args, size, root, db, res):
    times = []
    for _ in range(max(3, args.repeat)):
        times.append(cli_index(args, root, db)[0])
    res["rescan"] = {"runs_s": times, "median_s": med(times)}


def ensure_db(args, size, root, db, res):
    if os.path.exists(db):
        return
    log("%s: no database yet: indexing (not timed)" % size)
    cli_index(args, root, db)


# ---------------------------------------------------------------------- #
# The server
# ---------------------------------------------------------------------- #

class Server:
    """castls serve on a database, the root its only workspace folder."""

    def __init__(self, args, root, db, logname):
        self.root = root
        t0 = now()
        self.cl = LspClient([args.castls, "serve", "--db", db],
                            env=dict(os.environ, XDG_CACHE_HOME=os.path.join(
                                args.work, "cache")),
                            stderr_path=os.path.join(args.work, logname),
                            timeout=600)
        self.cl.initialize([root], {}, initialized=True,
                           client_name="castls-bench-scale")
        if not self.cl.wait_indexed(timeout=3600, ask_status=False):
            raise BenchError("the start-up scan did not end")
        self.startup_s = now() - t0
        self.open = {}  # rel -> [text, version]

    def uri(self, rel):
        return path_to_uri(os.path.join(self.root, rel))

    def did_open(self, rel, text):
        self.cl.did_open(self.uri(rel), text, language_id(rel))
        self.open[rel] = [text, 1]

    def memory(self):
        return self.cl.memory()

    def cpu_s(self):
        """The server's CPU time so far (user + system), in seconds: a
        cost that waiting for a core does not inflate."""
        with open("/proc/%d/stat" % self.cl.proc.pid) as f:
            fields = f.read().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf(
            "SC_CLK_TCK")

    def context(self, rel, ln, col):
        msg, dt = self.cl.timed("castls/context", {
            "textDocument": {"uri": self.uri(rel)},
            "position": {"line": ln, "character": col}})
        r = msg.get("result")
        if not isinstance(r, dict):
            raise BenchError("castls/context: %s" % msg)
        return r, dt

    def search(self, q):
        msg, dt = self.cl.timed("castls/search", {"query": q})
        r = msg.get("result")
        if not isinstance(r, dict):
            raise BenchError("castls/search: %s" % msg)
        return r, dt

    def close(self):
        self.cl.close(timeout=60)


def phase_context(args, served, cursors):
    """castls/context at every cursor, of each (server, results) of
    served in turn, the first of them alternating cursor by cursor: with
    both sizes served at once, the load the machine is under weighs on
    both alike, and their ratio compares like with like."""
    m = len(served)
    passes_rtt = [[] for _ in served]
    passes_srv = [[] for _ in served]
    empty = [0] * m
    cpu0 = [srv.cpu_s() for srv, _ in served]
    for _ in range(args.repeat):
        rtt = [[] for _ in served]
        sms = [[] for _ in served]
        for k, (rel, ln, col) in enumerate(cursors):
            for j in range(m):
                s = (k + j) % m
                r, dt = served[s][0].context(rel, ln, col)
                rtt[s].append(dt * 1e3)
                sms[s].append(r.get("elapsedMs", float("nan")))
                empty[s] += bool(r.get("noContext"))
        for s in range(m):
            passes_rtt[s].append(rtt[s])
            passes_srv[s].append(sms[s])
    for s, (srv, res) in enumerate(served):
        cpu = srv.cpu_s() - cpu0[s]
        res["context"] = summary(passes_srv[s], passes_rtt[s])
        res["context"]["cpu_ms"] = cpu * 1e3 / (args.repeat * len(cursors))
        res["context"]["empty_per_pass"] = empty[s] / args.repeat
        res["context"]["n"] = len(cursors)


def open_server(args, size, work, res, logname):
    """A server on size's database (indexed first when there is none),
    the cursors' files open in it and its rows settled."""
    root = os.path.join(args.work, "corpus", size)
    db = os.path.join(args.work, "db", size + ".db")
    ensure_db(args, size, root, db, res)
    log("%s: starting the server" % size)
    srv = Server(args, root, db, logname)
    res.setdefault("startup_s", srv.startup_s)
    try:
        res.setdefault("server_mem_empty", srv.memory())
        for rel, text, _ in work["picked"]:
            srv.did_open(rel, text)
        settle(srv, db)
    except BaseException:
        srv.close()
        raise
    return srv, db


def fts_segments(db):
    """The full-text index's segments in db (None when unreadable): a
    request looks a term up in each, so two databases compare like with
    like only with as many. The phases that write leave some behind,
    up to the 16 a scan tolerates, and a database outlives its run."""
    try:
        con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
        try:
            return con.execute("SELECT count(DISTINCT segid)"
                               " FROM chunks_fts_idx").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return None


def run_context_both(args, work, results):
    """The context phase of both sizes, with a server on each at once."""
    served = []
    try:
        for size in ("small", "full"):
            srv, db = open_server(args, size, work, results[size],
                                  "server-%s-context.log" % size)
            served.append((srv, results[size]))
            results[size]["context_segments"] = fts_segments(db)
        seg = [results[s]["context_segments"] for s in ("small", "full")]
        if seg[0] != seg[1]:
            log("warning: the small index has %s full-text segments and"
                " the full one %s: a request looks its terms up in each,"
                " so the ratio compares unlike states" % tuple(seg))
        log("castls/context, %d cursors x %d, small and full in turn" % (
            len(work["cursors"]), args.repeat))
        with Perf(args, served[0][0], "small-context"), \
                Perf(args, served[1][0], "full-context"):
            phase_context(args, served, work["cursors"])
        for srv, res in served:
            res.setdefault("server_mem", srv.memory())
    finally:
        for srv, _ in served:
            srv.close()


def phase_typing(args, srv, db, cursors, res):
    """castls/context as an editor asks while the user types: a space
    typed at the end of the cursor's line, its rows committed (seen by a
    second connection), then the request; the space is deleted and
    committed before the next cursor. Every commit empties the read
    caches of the server's connections, so this is the request after a
    write, where the context phase measures it on a quiet index."""
    watches = {}
    passes_rtt, passes_srv = [], []
    lost = 0
    for _ in range(args.repeat):
        rtt, sms = [], []
        for rel, ln, col in cursors:
            text, version = srv.open[rel]
            line = text.split("\n")[ln]
            w = watches.get(rel)
            if w is None:
                w = watches[rel] = LineWatch(db, rel, args.poll_us / 1e6)
            for typed in (True, False):
                version += 1
                edit = (ln, len(line), " " if typed else None)
                w.version = w._version()
                srv.cl.send({"jsonrpc": "2.0",
                             "method": "textDocument/didChange",
                             "params": change_params(srv.uri(rel), version,
                                                     edit)})
                if w.wait(ln, line + " " if typed else line) is None:
                    lost += 1
                if typed:
                    r, dt = srv.context(rel, ln, col)
                    rtt.append(dt * 1e3)
                    sms.append(r.get("elapsedMs", float("nan")))
            srv.open[rel][1] = version
        passes_rtt.append(rtt)
        passes_srv.append(sms)
    for w in watches.values():
        w.db.close()
    res["typing"] = summary(passes_srv, passes_rtt)
    res["typing"]["lost"] = lost
    res["typing"]["n"] = len(cursors)


def summary(server_passes, rtt_passes):
    out = {"rtt_p50": over_passes(rtt_passes, 50),
           "rtt_p99": over_passes(rtt_passes, 99),
           "rtt_max": over_passes(rtt_passes, 100),
           "rtt": rtt_passes}
    if server_passes:
        out.update({"server_p50": over_passes(server_passes, 50),
                    "server_p99": over_passes(server_passes, 99),
                    "server_max": over_passes(server_passes, 100),
                    "server": server_passes})
    return out


def phase_search(args, srv, queries, res):
    passes_rtt, passes_srv = [], []
    for _ in range(args.repeat):
        rtt, sms = [], []
        for q in queries:
            r, dt = srv.search(q)
            rtt.append(dt * 1e3)
            sms.append(r.get("elapsedMs", float("nan")))
        passes_rtt.append(rtt)
        passes_srv.append(sms)
    res["search"] = summary(passes_srv, passes_rtt)
    res["search"]["n"] = len(queries)


def phase_symbol(args, srv, queries, res):
    passes, hits = [], 0
    for _ in range(args.repeat):
        rtt = []
        for q in queries:
            msg, dt = srv.cl.timed("workspace/symbol", {"query": q})
            if not isinstance(msg.get("result"), list):
                raise BenchError("workspace/symbol: %s" % msg)
            hits += bool(msg["result"])
            rtt.append(dt * 1e3)
        passes.append(rtt)
    res["symbol"] = summary(None, passes)
    res["symbol"]["n"] = len(queries)
    res["symbol"]["answered_share"] = hits / (args.repeat * len(queries))


class LineWatch(RowWatch):
    """bench_lsp's RowWatch, also when a chunk boundary falls inside the
    line (a long list literal is cut between two rows): the pieces of
    the line in the rows that cover it, in byte order, joined."""

    def line_is(self, line, expect):
        if self.file_id is None:
            row = self.db.execute("SELECT id FROM files WHERE path=?",
                                  (self.rel,)).fetchone()
            if not row:
                return False
            self.file_id = row[0]
        rows = self.db.execute(
            "SELECT start_line, text FROM chunks WHERE file_id=? AND"
            " start_line<=? AND end_line>=? ORDER BY start_byte",
            (self.file_id, line, line)).fetchall()
        pieces = []
        for start_line, text in rows:
            parts = text.split("\n")
            k = line - start_line
            if k < len(parts):
                if parts[k] == expect:
                    return True
                pieces.append(parts[k])
        joined = "".join(pieces)
        return bool(joined) and expect.endswith(joined) and \
            not expect[:len(expect) - len(joined)].strip()


def phase_keystroke(args, srv, db, rel, text, rng, res):
    """bench_lsp.py's "commit" keystrokes, in a file of the big tree."""
    uri = srv.uri(rel)
    if rel not in srv.open:
        srv.did_open(rel, text)
    srv.cl.drain(0.5)
    watch = LineWatch(db, rel, args.poll_us / 1e6)
    lines = text.split("\n")
    srv.cl.drain(0.3)
    watch.version = watch._version()
    if not watch.line_is(len(lines) // 2, lines[len(lines) // 2]):
        raise BenchError("the rows of %s are not in %s" % (rel, db))
    passes, lost = [], 0
    version = srv.open[rel][1]
    for _ in range(max(3, args.repeat)):
        samples = []
        for e in make_edits(text, args.edits, rng):
            version += 1
            t0 = now()
            srv.cl.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                         "params": change_params(uri, version, e)})
            t1 = watch.wait(e[0], e[3])
            if t1 is None:
                lost += 1
            else:
                samples.append((t1 - t0) * 1e3)
            srv.cl.pump(args.gap_ms / 1e3)
        passes.append(samples)
    srv.open[rel][1] = version
    watch.db.close()
    res["keystroke"] = {"p50": over_passes(passes, 50),
                        "p99": over_passes(passes, 99),
                        "max": over_passes(passes, 100), "lost": lost,
                        "file": rel, "lines": len(lines) - 1,
                        "samples": passes}


# ---------------------------------------------------------------------- #
# Branch switches
# ---------------------------------------------------------------------- #

BATCH = 200  # files per didChangeWatchedFiles notification
CREATED, CHANGED, DELETED = 1, 2, 3


def marker(rel, tag, i):
    if rel.endswith((".py", ".pyi")):
        return ("\n\ndef castls_branch_%s_%d(value):\n"
                "    return value + %d\n" % (tag, i, i)).encode()
    return ("\n\nfunction castlsBranch_%s_%d(value) {\n"
            "  return value + %d;\n}\n" % (tag, i, i)).encode()


def def_names(text, rel):
    rx = DEF_PY if rel.endswith((".py", ".pyi")) else DEF_JS
    return [m.group(1) for m in (rx.search(ln) for ln in
                                 text.split("\n")) if m]


class Switch:
    """One branch: n files of root changed (70%), deleted (15%) or added
    (15%), planned from rels (sorted, open files left out); apply()
    switches to it, revert() back."""

    def __init__(self, root, rels, n, tag, rng):
        self.root = root
        picked = rng.sample(rels, n)
        n_del = n_add = n * 15 // 100
        n_mod = n - n_del - n_add
        self.modify = picked[:n_mod]
        self.delete = picked[n_mod:n_mod + n_del]
        donors = picked[n_mod + n_del:n_mod + n_del + n_add]
        siblings = rng.sample(self.modify, n_add)
        self.original = {}
        for rel in self.modify + self.delete + donors:
            with open(os.path.join(root, rel), "rb") as f:
                self.original[rel] = f.read()
        self.new = {}  # rel -> content on the branch
        for i, rel in enumerate(self.modify):
            self.new[rel] = self.original[rel] + marker(rel, tag, i)
        self.add = []
        for i, (sib, donor) in enumerate(zip(siblings, donors)):
            ext = os.path.splitext(donor)[1]
            rel = os.path.join(os.path.dirname(sib), "castls_branch_%s_%d%s"
                               % (tag, i, ext))
            self.add.append(rel)
            self.new[rel] = self.original[donor] + marker(rel, tag,
                                                          n_mod + i)
        # What a request for a gone file would find: names defined in
        # the deleted files, and the markers (gone after revert()).
        self.gone_names = []
        for rel in self.delete:
            self.gone_names += def_names(self.original[rel].decode(
                "utf-8", "replace"), rel)[:3]
        self.marker_names = ["castls_branch_%s_%d" % (tag, i)
                             for i in range(0, n, 7)]
        self.gone_names = self.gone_names or self.marker_names
        self.n = n

    def _write(self, rel, data):
        p = os.path.join(self.root, rel)
        tmp = p + ".castls-tmp"
        with open(tmp, "wb") as f:
            f.write(data)
        os.replace(tmp, p)  # as git checkout: a new file in its place

    def steps(self, forward):
        """(rel, content or None to delete, event type), in the order
        git would write them."""
        out = []
        if forward:
            out += [(r, self.new[r], CHANGED) for r in self.modify]
            out += [(r, None, DELETED) for r in self.delete]
            out += [(r, self.new[r], CREATED) for r in self.add]
        else:
            out += [(r, self.original[r], CHANGED) for r in self.modify]
            out += [(r, self.original[r], CREATED) for r in self.delete]
            out += [(r, None, DELETED) for r in self.add]
        out.sort()
        return out

    def do(self, rel, data):
        if data is None:
            os.unlink(os.path.join(self.root, rel))
        else:
            self._write(rel, data)

    def expected(self, steps):
        """{rel: (size, mtime ns)} of the files as they are now, None for
        the deleted ones."""
        out = {}
        for rel, data, _ in steps:
            if data is None:
                out[rel] = None
            else:
                st = os.stat(os.path.join(self.root, rel))
                out[rel] = (st.st_size, st.st_mtime_ns)
        return out


class IndexProbe:
    """A read-only connection that tells how many of the expected file
    rows the index does not hold yet."""

    def __init__(self, db):
        self.db = sqlite3.connect("file:%s?mode=ro" % db, uri=True,
                                  isolation_level=None)
        self.db.execute("PRAGMA busy_timeout=1000")

    def mismatches(self, expect):
        rels = list(expect)
        found = {}
        for i in range(0, len(rels), 500):
            part = rels[i:i + 500]
            q = "SELECT path, size, mtime FROM files WHERE path IN (%s)" % \
                ",".join("?" * len(part))
            for p, size, mtime in self.db.execute(q, part):
                found[p] = (size, mtime)
        bad = 0
        for rel, want in expect.items():
            if want is None:
                bad += rel in found
            else:
                bad += found.get(rel) != want
        return bad

    def close(self):
        self.db.close()


def check_answer(root, result, changed, cache):
    """The items of result in changed files that name a file that does
    not exist ("gone") or whose first line is not in the line of the
    file their range starts on ("stale"; a chunk may begin or end inside
    a long line): [(kind, rel)]."""
    bad = []
    for it in result.get("items") or []:
        path = uri_to_path(it.get("uri", ""))
        rel = os.path.relpath(path, root)
        if rel not in changed:
            continue
        if not os.path.exists(path):
            bad.append(("gone", rel))
            continue
        if rel not in cache:
            with open(path, encoding="utf-8", errors="replace") as f:
                cache[rel] = f.read().split("\n")
        lines = cache[rel]
        first = (it.get("text") or "").split("\n")[0].rstrip()
        ln = it["range"]["start"]["line"]
        if first.strip() and (ln >= len(lines) or
                              first.strip() not in lines[ln]):
            bad.append(("stale", "%s:%d" % (rel, ln + 1)))
    return bad


def run_switch(args, srv, sw, forward, events, probes, db, idle_wait=None):
    """Applies sw (forward, or back) while the server runs; returns its
    figures. probes: cursors (rel, line, col) of open files for
    castls/context between the searches."""
    steps = sw.steps(forward)
    names = sw.gone_names if forward else sw.marker_names
    changed = {r for r, _, _ in steps}
    period = args.probe_ms / 1e3
    ip = IndexProbe(db)
    out = {"files": len(steps), "events": events, "forward": forward,
           "waits_ms": [], "server_ms": [], "kinds": [], "at_s": [], "gone": 0,
           "stale": 0, "answers": 0, "examples": []}
    k = [0]

    def probe():
        i = k[0]
        k[0] += 1
        if i % 2 == 0:
            r, dt = srv.search(names[(i // 2) % len(names)])
        else:
            rel, ln, col = probes[(i // 2) % len(probes)]
            r, dt = srv.context(rel, ln, col)
        out["kinds"].append("search" if i % 2 == 0 else "context")
        out["at_s"].append(now() - t0 - dt)
        out["waits_ms"].append(dt * 1e3)
        out["server_ms"].append(r.get("elapsedMs", float("nan")))
        bad = check_answer(srv.root, r, changed, {})
        out["answers"] += 1
        out["gone"] += sum(k == "gone" for k, _ in bad)
        out["stale"] += sum(k == "stale" for k, _ in bad)
        if bad and len(out["examples"]) < 8:
            out["examples"].append(bad[0])

    t0 = now()
    next_probe = t0
    for b in range(0, len(steps), BATCH):
        batch = steps[b:b + BATCH]
        for rel, data, _ in batch:
            sw.do(rel, data)
        if events:
            srv.cl.notify("workspace/didChangeWatchedFiles", {"changes": [
                {"uri": srv.uri(rel), "type": typ}
                for rel, _, typ in batch]})
        if now() >= next_probe:
            probe()
            next_probe = now() + period
    out["write_s"] = now() - t0
    expect = sw.expected(steps)
    deadline = t0 + args.switch_timeout
    wait_until = t0 + idle_wait if idle_wait is not None else deadline
    next_poll = now()
    t_match = None
    t_cmd = None
    while True:
        t = now()
        if t >= next_poll:
            bad = ip.mismatches(expect)
            next_poll = now() + 0.1
            if bad == 0:
                t_match = t
                break
            out["left"] = bad
        if t >= wait_until and idle_wait is not None and t_cmd is None:
            out["matched_without_events"] = False
            t_cmd = now()
            srv.cl.call("workspace/executeCommand",
                        {"command": "castls.reindex", "arguments": []})
            wait_until = deadline = t_cmd + args.switch_timeout
        if t >= deadline:
            break
        if t >= next_probe:
            probe()
            next_probe = now() + period
        else:
            srv.cl.pump(min(next_probe, next_poll) - now())
    ip.close()
    if t_match is not None:
        out["match_s"] = t_match - t0
        if t_cmd is not None:
            out["reindex_s"] = t_match - t_cmd
        elif idle_wait is not None:
            out["matched_without_events"] = True
    out["max_wait_ms"] = max(out["waits_ms"]) if out["waits_ms"] else None
    if out["waits_ms"]:  # its time in the server (the rest: queued)
        i = out["waits_ms"].index(out["max_wait_ms"])
        out["max_wait_server_ms"] = out["server_ms"][i]
        out["max_wait_kind"] = out["kinds"][i]
    out["p50_wait_ms"] = pct(out["waits_ms"], 50)
    return out


def indexed_paths(db):
    """The paths the index holds: a branch switch changes only files
    castls indexes (one it skips, minified say, would never match)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        return {p for (p,) in con.execute("SELECT path FROM files")}
    finally:
        con.close()


def settle(srv, db, quiet=1.0, timeout=120.0):
    """Waits until the server has written nothing for quiet seconds
    (the rows of the files just opened)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True,
                          isolation_level=None)
    t0 = last = now()
    v = None
    while now() - last < quiet and now() - t0 < timeout:
        nv = con.execute("PRAGMA data_version").fetchone()[0]
        if nv != v:
            v, last = nv, now()
        srv.cl.pump(0.05)
    con.close()


def quiet_probes(srv, probes, passes=3):
    """The probes' contexts with nothing changing, each cursor's median
    over passes: what a switch's waits compare with."""
    times = {}
    for _ in range(passes):
        for rel, ln, col in probes:
            r, dt = srv.context(rel, ln, col)
            times.setdefault((rel, ln, col), []).append(dt * 1e3)
    meds = sorted(statistics.median(v) for v in times.values())
    return {"p50_ms": pct(meds, 50), "max_ms": meds[-1] if meds else None}


def phase_branch(args, size, srv, db, files, probes, rng, res):
    exclude = set(srv.open)
    have = indexed_paths(db)
    quiet = quiet_probes(srv, probes)
    log("%s: the probes at rest: p50 %.1f ms, slowest %.1f ms" % (
        size, quiet["p50_ms"], quiet["max_ms"]))
    rels = sorted(r for r in files if r not in exclude and r in have)
    n = min(args.switch_files, len(rels) // 4)
    runs = []
    for i, events in enumerate((True, False)):
        sw = Switch(srv.root, rels, n, "%s%d" % (size[0], i), rng)
        log("%s: branch switch of %d files, %s events" % (
            size, n, "with" if events else "without"))
        runs.append(run_switch(args, srv, sw, True, events, probes, db,
                               None if events else args.idle_wait))
        log("%s: and back, with events" % size)
        runs.append(run_switch(args, srv, sw, False, True, probes, db))
        log("%s: (index = disk s, longest wait ms, of it in the server,"
            " the request) %s" % (
                size, [(round(r.get("match_s") or -1, 2),
                        round(r["max_wait_ms"] or -1, 1),
                        round(r.get("max_wait_server_ms", -1), 1),
                        r.get("max_wait_kind", "-")) for r in runs[-2:]]))
    ev = [r for r in runs if r["events"]]
    res["branch"] = {
        "files": n, "runs": runs, "quiet": quiet,
        "match_s": max((r.get("match_s") for r in ev),
                       key=lambda x: float("inf") if x is None else x),
        "max_wait_ms": max(max(r["waits_ms"]) for r in ev),
        "gone": sum(r["gone"] for r in ev),
        "stale": sum(r["stale"] for r in ev),
        "answers": sum(r["answers"] for r in ev),
        "no_events": runs[2]}


# ---------------------------------------------------------------------- #
# Soak
# ---------------------------------------------------------------------- #

def phase_soak(args, size, srv, db, files, probes, rng, res):
    """--soak-edits edits in the open Python files, each waiting for its
    rows, castls/context every 25th, and --soak-switches branch switches
    (there and back, with events) spread among them; VmRSS every 100."""
    texts = {}
    for rel, (text, _) in srv.open.items():
        if rel.endswith(".py"):
            try:
                ast.parse(text)
                texts[rel] = text
            except (SyntaxError, ValueError):
                pass
    if not texts:
        raise BenchError("soak: no open Python file")
    per = -(-args.soak_edits // len(texts))
    per += per % 2
    queues = {rel: make_edits(t, per, rng) for rel, t in texts.items()}
    order = []
    rels = sorted(queues)
    while len(order) < args.soak_edits:
        for rel in rels:
            q = queues[rel]
            if len(q) >= 2:
                order += [(rel, q.pop(0)), (rel, q.pop(0))]
    order = order[:args.soak_edits]
    watches = {rel: LineWatch(db, rel, args.poll_us / 1e6)
               for rel in rels}
    srv.cl.drain(0.5)
    for w in watches.values():
        w.version = w._version()
    every = args.soak_edits // (args.soak_switches + 1)
    exclude = set(srv.open)
    have = indexed_paths(db)
    pool = sorted(r for r in files if r not in exclude and r in have)
    n = min(args.switch_files, len(pool) // 4)
    rss, commits, lost, switches = [], [], 0, []
    t_start = now()
    rss.append((0, srv.memory()["VmRSS"], 0.0))
    for i, (rel, e) in enumerate(order, 1):
        v = srv.open[rel][1] = srv.open[rel][1] + 1
        t0 = now()
        srv.cl.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": change_params(srv.uri(rel), v, e)})
        t1 = watches[rel].wait(e[0], e[3])
        if t1 is None:
            lost += 1
            log("soak: edit %d at %s:%d never showed up: %r" % (
                i, rel, e[0] + 1, e[3]))
        else:
            commits.append((t1 - t0) * 1e3)
        if i % 25 == 0:
            srv.context(rel, e[0], e[1])
        if i % every == 0 and len(switches) < args.soak_switches:
            sw = Switch(srv.root, pool, n, "s%d" % len(switches), rng)
            log("soak: edit %d, branch switch %d" % (i, len(switches) + 1))
            a = run_switch(args, srv, sw, True, True, probes, db)
            b = run_switch(args, srv, sw, False, True, probes, db)
            switches.append({"there_s": a.get("match_s"),
                             "back_s": b.get("match_s"),
                             "max_wait_ms": max(a["max_wait_ms"] or 0,
                                                b["max_wait_ms"] or 0),
                             "gone": a["gone"] + b["gone"],
                             "stale": a["stale"] + b["stale"]})
            rss.append((i, srv.memory()["VmRSS"], now() - t_start))
        if i % 100 == 0:
            rss.append((i, srv.memory()["VmRSS"], now() - t_start))
        srv.cl.pump(args.soak_gap_ms / 1e3)
    for w in watches.values():
        w.db.close()
    mem = srv.memory()
    half = [r for r in rss if r[0] >= len(order) // 2]
    slope = None
    if len(half) >= 2:
        xs = [r[0] for r in half]
        ys = [r[1] for r in half]
        mx, my = statistics.mean(xs), statistics.mean(ys)
        den = sum((x - mx) ** 2 for x in xs)
        slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / den \
            * 1000 if den else None
    res["soak"] = {"edits": len(order), "lost": lost,
                   "duration_s": now() - t_start,
                   "commit_p50": pct(commits, 50),
                   "commit_p99": pct(commits, 99),
                   "rss_start": rss[0][1], "rss_max": max(r[1] for r in rss),
                   "rss_end": rss[-1][1], "hwm": mem["VmHWM"],
                   "slope_mb_per_1k": slope, "rss": rss,
                   "switches": switches}


# ---------------------------------------------------------------------- #
# Profiles (--perf)
# ---------------------------------------------------------------------- #

class Perf:
    """perf record of the server while a phase runs (--perf); the report
    of its hottest symbols goes beside the data."""

    def __init__(self, args, srv, name):
        self.p = None
        if not args.perf:
            return
        self.data = os.path.join(args.work, "perf-%s.data" % name)
        self.p = subprocess.Popen(
            # DWARF unwinding: the call chains go through Debian's
            # libsqlite3, built without frame pointers, to our callers.
            ["perf", "record", "-F", "199", "--call-graph", "dwarf,16384",
             "-p",
             str(srv.cl.proc.pid), "-o", self.data],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if not self.p:
            return
        self.p.send_signal(signal.SIGINT)
        self.p.wait()
        txt = self.data[:-5] + ".txt"
        with open(txt, "w") as f:
            subprocess.run(["perf", "report", "-i", self.data, "--stdio",
                            "--children", "--sort", "dso,sym",
                            "--percent-limit", "1", "-g", "none"],
                           stdout=f, stderr=subprocess.DEVNULL)
        log("perf: %s" % txt)


# ---------------------------------------------------------------------- #
# Report
# ---------------------------------------------------------------------- #

def f(x, spec="%.2f"):
    return "-" if x is None else spec % x


def pair(a, b, spec="%.1f"):
    if a is None and b is None:
        return "-"
    return "%s / %s" % (f(a, spec), f(b, spec))


def verdict(x, limit, less=True):
    if x is None:
        return ""
    return "ok" if (x <= limit if less else x >= limit) else "MISSED"


def report(args, sizes, results):
    cols = [s for s in ("small", "full") if s in results]
    rows = []

    def row(label, fn, goal="", judge=None):
        cells = []
        for s in cols:
            try:
                cells.append(fn(results[s]))
            except (KeyError, TypeError, IndexError):
                cells.append("-")
        mark = ""
        if judge and "full" in results:
            try:
                mark = judge(results["full"])
            except (KeyError, TypeError):
                mark = ""
        rows.append((label, cells, ("%s %s" % (goal, mark)).strip()))

    row("corpus files / M lines / MB", lambda r: "%d / %.2f / %.0f" % (
        r["corpus"]["files"], r["corpus"]["lines"] / 1e6,
        r["corpus"]["bytes"] / 1e6))
    row("  files castls indexed", lambda r: "%d" % r["index"]["files"])
    row("cold index s (cpus)", lambda r: "%.1f (%.2f)" % (
        r["index"]["wall_s"], r["index"]["cpus"]))
    row("  MB/s, 1-core parse MB/s", lambda r: "%.2f, %s" % (
        r["index"]["mb_s"], f(r["index"]["parse1_mb_s"])))
    row("  of two-core parse", lambda r: f(
        r["index"]["share"] and 100 * r["index"]["share"], "%.0f%%"),
        ">= 60%", lambda r: verdict(r["index"]["share"], 0.6, False))
    row("  peak RSS MB", lambda r: "%.0f" % r["index"]["rss_mb"], "<= 300",
        lambda r: verdict(r["index"]["rss_mb"], 300))
    row("  database / source", lambda r: "%.2f (%.0f MB)" % (
        r["index"]["db_ratio"], r["index"]["db_mb"]), "<= 2",
        lambda r: verdict(r["index"]["db_ratio"], 2))
    row("re-scan, unchanged (CLI) s", lambda r: "%.2f" % r["rescan"][
        "median_s"], "<= 2", lambda r: verdict(r["rescan"]["median_s"], 2))
    row("server start-up scan s", lambda r: "%.2f" % r["startup_s"])
    row("context server p50 / p99 ms", lambda r: pair(
        r["context"]["server_p50"], r["context"]["server_p99"]),
        "p99 <= 30", lambda r: verdict(r["context"]["server_p99"], 30))
    row("  full p99 / small p99", lambda r: "" if r is not
        results.get("full") else "%.2fx" % (
            r["context"]["server_p99"] /
            results["small"]["context"]["server_p99"]), "<= 1.5x",
        lambda r: verdict(r["context"]["server_p99"] /
                          results["small"]["context"]["server_p99"], 1.5))
    row("  server CPU ms per request", lambda r: "%.1f" % r["context"][
        "cpu_ms"] if "cpu_ms" in r["context"] else "-")
    row("  full-text segments", lambda r: "%d" % r["context_segments"])
    row("context round trip p50 / p99", lambda r: pair(
        r["context"]["rtt_p50"], r["context"]["rtt_p99"]))
    if any("typing" in r for r in results.values()):
        row("  after a keystroke p50 / p99", lambda r: pair(
            r["typing"]["server_p50"], r["typing"]["server_p99"]))
    row("search server p50 / p99 ms", lambda r: pair(
        r["search"]["server_p50"], r["search"]["server_p99"]),
        "p99 <= 20", lambda r: verdict(r["search"]["server_p99"], 20))
    row("search round trip p50 / p99", lambda r: pair(
        r["search"]["rtt_p50"], r["search"]["rtt_p99"]))
    row("workspace/symbol rtt p50 / p99", lambda r: pair(
        r["symbol"]["rtt_p50"], r["symbol"]["rtt_p99"]),
        "p99 <= 20", lambda r: verdict(r["symbol"]["rtt_p99"], 20))
    row("keystroke commit p50 / p99 ms", lambda r: pair(
        r["keystroke"]["p50"], r["keystroke"]["p99"], "%.2f"),
        "p99 <= 5", lambda r: verdict(r["keystroke"]["p99"], 5))
    row("branch switch, files", lambda r: "%d" % r["branch"]["files"])
    row("  events: index = disk after s", lambda r: f(
        r["branch"]["match_s"], "%.1f") if r["branch"]["match_s"] is not
        None else "never", "<= 10",
        lambda r: verdict(r["branch"]["match_s"], 10))
    row("  longest request wait ms", lambda r: "%.0f" % r["branch"][
        "max_wait_ms"], "<= 50",
        lambda r: verdict(r["branch"]["max_wait_ms"], 50))
    row("  the same requests at rest p50 / max", lambda r: pair(
        r["branch"]["quiet"]["p50_ms"], r["branch"]["quiet"]["max_ms"]))
    row("  events: deleted / stale items", lambda r: "%d / %d of %d" % (
        r["branch"]["gone"], r["branch"]["stale"], r["branch"]["answers"]),
        "0", lambda r: verdict(r["branch"]["gone"] + r["branch"]["stale"],
                               0))
    row("  no events: matched in %gs" % args.idle_wait, lambda r: "yes"
        if r["branch"]["no_events"].get("matched_without_events")
        else "no")
    row("  no events: deleted / stale items", lambda r: "%d / %d of %d" % (
        r["branch"]["no_events"]["gone"], r["branch"]["no_events"]["stale"],
        r["branch"]["no_events"]["answers"]))
    row("  then castls.reindex s", lambda r: f(
        r["branch"]["no_events"].get("reindex_s"), "%.1f"))
    row("server VmRSS / VmHWM MB", lambda r: pair(
        r["server_mem"]["VmRSS"], r["server_mem"]["VmHWM"], "%.0f"),
        "<= 300", lambda r: verdict(r["server_mem"]["VmHWM"], 300))
    row("soak: edits, lost, minutes", lambda r: "%d, %d, %.1f" % (
        r["soak"]["edits"], r["soak"]["lost"],
        r["soak"]["duration_s"] / 60))
    row("  VmRSS start / max / end MB", lambda r: "%.0f / %.0f / %.0f" % (
        r["soak"]["rss_start"], r["soak"]["rss_max"], r["soak"]["rss_end"]))
    row("  MB per 1k edits (2nd half)", lambda r: f(
        r["soak"]["slope_mb_per_1k"], "%.2f"))
    row("  commit p99 ms; switch max s", lambda r: "%.2f; %s" % (
        r["soak"]["commit_p99"], f(max((x["there_s"] or 1e9, x["back_s"]
                                        or 1e9) for x in r["soak"][
                                            "switches"])[0]
                                   if r["soak"]["switches"] else None,
                                   "%.1f")))

    rows = [r for r in rows if any(c not in ("-", "") for c in r[1])]
    w0 = max(len(r[0]) for r in rows)
    w = [max([len(c)] + [len(r[1][i]) for r in rows]) for i, c in
         enumerate(cols)]
    print("castls bench-scale: %s, --jobs %d, --repeat %d; load average "
          "%.2f on %d CPUs; nearest-rank percentiles, medians over repeats"
          % (args.castls, args.jobs, args.repeat, os.getloadavg()[0],
             os.cpu_count()))
    print("%-*s  %s  %s" % (w0, "", "  ".join(
        "%*s" % (w[i], c) for i, c in enumerate(cols)), "goal (full)"))
    for label, cells, goal in rows:
        print("%-*s  %s  %s" % (w0, label, "  ".join(
            "%*s" % (w[i], c) for i, c in enumerate(cells)), goal))


# ---------------------------------------------------------------------- #
# Main
# ---------------------------------------------------------------------- #

def run_size(args, man, size, phases, work, res=None):
    """Runs phases on size, into res (a new one when None)."""
    root = os.path.join(args.work, "corpus", size)
    db = os.path.join(args.work, "db", size + ".db")
    os.makedirs(os.path.dirname(db), exist_ok=True)
    files = size_files(man, size)
    if res is None:
        res = {"corpus": {"files": len(files),
                          "lines": sum(v[1] for v in files.values()),
                          "bytes": sum(v[0] for v in files.values())},
               "load_start": os.getloadavg()[0]}
    if "index" in phases:
        phase_index(args, size, root, db, res)
        log("%s: cold index %.1f s" % (size, res["index"]["wall_s"]))
    if "rescan" in phases:
        ensure_db(args, size, root, db, res)
        phase_rescan(args, size, root, db, res)
        log("%s: re-scan %.2f s" % (size, res["rescan"]["median_s"]))
    served = [p for p in ("context", "typing", "search", "symbol",
                          "keystroke",
                          "branch", "soak") if p in phases]
    if not served:
        return res
    srv, db = open_server(args, size, work, res, "server-%s.log" % size)
    try:
        if "context" in served:
            log("%s: castls/context, %d cursors x %d" % (
                size, len(work["cursors"]), args.repeat))
            with Perf(args, srv, size + "-context"):
                phase_context(args, [(srv, res)], work["cursors"])
        if "typing" in served:
            log("%s: castls/context after keystrokes, %d cursors x %d" % (
                size, len(work["cursors"]), args.repeat))
            phase_typing(args, srv, db, work["cursors"], res)
        if "search" in served:
            log("%s: castls/search, %d queries x %d" % (
                size, len(work["search"]), args.repeat))
            with Perf(args, srv, size + "-search"):
                phase_search(args, srv, work["search"], res)
        if "symbol" in served:
            log("%s: workspace/symbol" % size)
            with Perf(args, srv, size + "-symbol"):
                phase_symbol(args, srv, work["symbol"], res)
        if "keystroke" in served:
            log("%s: keystrokes in %s" % (size, work["keystroke"][0]))
            phase_keystroke(args, srv, db, work["keystroke"][0],
                            work["keystroke"][1],
                            random.Random(args.seed + 3), res)
        probes = [c for c in work["cursors"] if c[0] in srv.open][:50]
        if "branch" in served:
            with Perf(args, srv, size + "-branch"):
                phase_branch(args, size, srv, db, files, probes,
                             random.Random(args.seed + 4), res)
        if "soak" in served:
            if work["keystroke"][0] not in srv.open:
                srv.did_open(*work["keystroke"])
            log("%s: soak, %d edits" % (size, args.soak_edits))
            phase_soak(args, size, srv, db, files, probes,
                       random.Random(args.seed + 5), res)
        res["server_mem"] = srv.memory()
    finally:
        srv.close()
    res["load_end"] = os.getloadavg()[0]
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--castls", default=os.path.join(REPO, "build",
                                                     "release", "castls"))
    ap.add_argument("--build", help="where bench_chunk is (default: "
                    "beside --castls)")
    ap.add_argument("--work", default=os.path.join(REPO, "build", "scale"))
    ap.add_argument("--size", choices=("small", "full", "both"),
                    default="both")
    ap.add_argument("--only", help="comma-separated phases: " +
                    ",".join(PHASES) + ",soak")
    ap.add_argument("--soak", action="store_true",
                    help="also the soak (long)")
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--contexts", type=int, default=320)
    ap.add_argument("--queries", type=int, default=1000)
    ap.add_argument("--edits", type=int, default=300)
    ap.add_argument("--gap-ms", type=int, default=20)
    ap.add_argument("--poll-us", type=int, default=50)
    ap.add_argument("--switch-files", type=int, default=2000)
    ap.add_argument("--switch-timeout", type=float, default=120.0)
    ap.add_argument("--idle-wait", type=float, default=10.0,
                    help="seconds a switch without events waits")
    ap.add_argument("--probe-ms", type=int, default=20)
    ap.add_argument("--soak-edits", type=int, default=10000)
    ap.add_argument("--soak-switches", type=int, default=5)
    ap.add_argument("--soak-gap-ms", type=int, default=5)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--perf", action="store_true",
                    help="perf record the server during context, "
                    "search, symbol and branch (WORK/perf-*.txt)")
    ap.add_argument("--rebuild-corpus", action="store_true")
    ap.add_argument("--json", help="write every figure and sample here")
    args = ap.parse_args()
    warnings.simplefilter("ignore", SyntaxWarning)
    args.castls = os.path.abspath(args.castls)
    args.build = os.path.abspath(args.build or
                                 os.path.dirname(args.castls))
    args.work = os.path.abspath(args.work)
    if not os.access(args.castls, os.X_OK):
        die("%s is not executable: make release" % args.castls)
    phases = args.only.split(",") if args.only else list(PHASES)
    if args.soak and "soak" not in phases:
        phases.append("soak")
    bad = [p for p in phases if p not in PHASES + ("soak",)]
    if bad:
        die("unknown phase %s" % ", ".join(bad))
    sizes = ["small", "full"] if args.size == "both" else [args.size]
    os.makedirs(args.work, exist_ok=True)
    t_all = now()
    man = build_corpus(args.work, args.rebuild_corpus)
    small_root = os.path.join(args.work, "corpus", "small")
    work = {}
    rng = random.Random(args.seed)
    work["picked"], work["cursors"], pkgs = pick_cursors(
        man, small_root, args.contexts, rng)
    work["search"], work["symbol"] = pick_queries(
        man, small_root, args.queries, random.Random(args.seed + 1))
    work["keystroke"] = pick_keystroke_file(man, small_root,
                                            random.Random(args.seed + 2))
    log("workload: %d cursors in %d files of %s; keystrokes in %s" % (
        len(work["cursors"]), len(work["picked"]), ", ".join(pkgs),
        work["keystroke"][0]))
    results = {}
    # Both sizes' context requests are made in turn, with a server on
    # each (run_context_both): after the indexing phases, before those
    # that write (keystrokes, branch switches), as the context phase
    # of one size runs.
    both = "context" in phases and len(sizes) == 2
    first = ("index", "rescan")
    try:
        for size in sizes:
            results[size] = run_size(args, man, size,
                                     [p for p in phases if p in first],
                                     work)
        if both:
            run_context_both(args, work, results)
        for size in sizes:
            ph = [p for p in phases if p not in first and (
                p != "soak" or size == (
                    args.size if args.size != "both" else "full")) and
                not (both and p == "context")]
            run_size(args, man, size, ph, work, results[size])
    except (BenchError, ServerGone, LspError, TimeoutError) as e:
        die("%s (server logs in %s)" % (e, args.work))
    finally:
        if args.json and results:
            with open(args.json, "w") as fh:
                json.dump({"castls": args.castls, "repeat": args.repeat,
                           "packages": pkgs, "results": results}, fh)
    report(args, sizes, results)
    print("bench-scale took %.1f min" % ((now() - t_all) / 60))


if __name__ == "__main__":
    main()
