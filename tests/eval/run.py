#!/usr/bin/env python3
"""Retrieval-quality harness for castls (`make eval`).

Runs the RepoEval function-level development split (see
shared/bench/README.md) with three retrievers side by side:

  windows  RepoCoder-style 20-line windows, stride 10, ranked by BM25;
  cast     castls' cAST chunks (`castls chunk --format json`) by BM25;
  castls   the language server itself, via castls/context over stdio.

Every retriever sees the target file with the ground-truth lines blanked;
the query of the two BM25 baselines is the 20 lines before the cursor.
Scores follow the README; tasks with no gold are left out of the means.
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bm25  # noqa: E402
import lex  # noqa: E402
import score  # noqa: E402
from lsp_client import (LspClient, LspError, ServerGone,  # noqa: E402
                        METHOD_NOT_FOUND, path_to_uri, range_to_lines,
                        uri_to_path)

WINDOW = 20
STRIDE = 10
QUERY_LINES = 20
LIMIT = 20  # items per ranked list; castls/context is asked for as many
CHUNK_BATCH = 200  # files per `castls chunk` call
LANGUAGE_IDS = {".py": "python", ".ts": "typescript", ".tsx":
                "typescriptreact", ".js": "javascript", ".go": "go",
                ".rs": "rust", ".java": "java", ".c": "c", ".h": "c",
                ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hpp": "cpp",
                ".hh": "cpp", ".hxx": "cpp", ".ipp": "cpp"}
# The files the baselines index for a task whose "language" is one of
# these (the sets of issue 18): C and C++ headers with their sources.
# Other tasks keep the rule of their sets: the tasks' own extensions.
LANG_EXTS = {"go": (".go",), "rust": (".rs",), "java": (".java",),
             "c": (".c", ".h"),
             "cpp": (".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx",
                     ".ipp")}
METHODS = ("windows", "cast", "castls")
TITLES = {"windows": "windows+BM25", "cast": "cAST+BM25",
          "castls": "castls", "python": "Python", "typescript": "TypeScript",
          "go": "Go", "rust": "Rust", "java": "Java", "c": "C",
          "cpp": "C++"}


# ---- data ------------------------------------------------------------------

def unpack(tgz, work):
    """Unpacks tgz into work once (a stamp records which archive) and
    returns the directory holding tasks.jsonl."""
    os.makedirs(work, exist_ok=True)
    st = os.stat(tgz)
    stamp = "%s %d %d\n" % (os.path.basename(tgz), st.st_size,
                            int(st.st_mtime))
    stamp_path = os.path.join(work, ".unpacked")
    data = os.path.join(work, "data")
    old = None
    if os.path.exists(stamp_path):
        with open(stamp_path) as f:
            old = f.read()
    if old != stamp:
        shutil.rmtree(data, ignore_errors=True)
        with tarfile.open(tgz) as tf:
            if hasattr(tarfile, "data_filter"):
                tf.extractall(data, filter="data")
            else:
                tf.extractall(data)
        with open(stamp_path, "w") as f:
            f.write(stamp)
    for dirpath, _, files in os.walk(data):
        if "tasks.jsonl" in files:
            return dirpath
    raise SystemExit("eval: no tasks.jsonl in %s" % tgz)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def load_tasks(root):
    tasks = read_jsonl(os.path.join(root, "tasks.jsonl"))
    gold = {g["id"]: g for g in read_jsonl(os.path.join(root, "gold.jsonl"))}
    for t in tasks:
        g = gold[t["id"]]
        t["gt_span"] = g["gt_span"]
        t["gold"] = g["gold"]
    return tasks


def read_text(path):
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return f.read()


def blank_lines(text, first, last):
    """Returns text with lines first..last (0-based, inclusive) emptied;
    line terminators stay, so every line keeps its number."""
    lines = text.splitlines(keepends=True)
    for i in range(first, min(last, len(lines) - 1) + 1):
        body = lines[i].rstrip("\r\n")
        lines[i] = lines[i][len(body):]
    return "".join(lines)


def py_files(repo_dir):
    out = []
    for dirpath, dirs, files in os.walk(repo_dir):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".py"):
                full = os.path.join(dirpath, name)
                out.append(os.path.relpath(full, repo_dir))
    return out


def query_text(text, cursor):
    lines = text.splitlines()
    return "\n".join(lines[max(0, cursor - QUERY_LINES):cursor])


EXCLUDES = ("span", "query+span", "after-context", "same-file")


def excluded_region(t, mode):
    """Returns the (first, last) lines of the target file whose documents
    the BM25 baselines must not return (last None = to the end).
    "query+span" (default): the query lines and the blanked ground truth,
    i.e. the cursor region; a window holding the query would otherwise
    match itself and rank first. It is the reading of the README's rule
    that reproduces its reference numbers. "span": the blanked lines
    only; "after-context": RepoCoder's own rule, everything from the start
    of the prompt on; "same-file": the whole target file."""
    lo, hi = t["gt_span"]
    if mode == "span":
        return (lo, hi)
    if mode == "query+span":
        return (max(0, t["cursor_line"] - QUERY_LINES), hi)
    if mode == "after-context":
        return (t.get("context_start_lineno", 0), None)
    return (0, None)


# ---- documents ---------------------------------------------------------------

def windows_of(text, mode):
    """Returns [(first, last, text)] windows of a file. "aligned": windows
    start at 0, 10, 20, ...; the tail window that another already covers
    is dropped. "repocoder": RepoCoder's make_window, a window around every
    10th line n spanning [n - 10, n + 10) clipped to the file."""
    lines = text.splitlines()
    n = len(lines)
    out = []
    if mode == "repocoder":
        for c in range(0, n, STRIDE):
            lo, hi = max(0, c - WINDOW // 2), min(n, c + WINDOW - WINDOW // 2)
            out.append((lo, hi - 1, "\n".join(lines[lo:hi])))
        return out
    for lo in range(0, max(n, 1), STRIDE):
        hi = min(n, lo + WINDOW)
        if out and hi - 1 <= out[-1][1]:
            break
        out.append((lo, hi - 1, "\n".join(lines[lo:hi])))
    return out


def run_chunker(castls, cwd, rel_paths, max_size=0):
    """Chunks files with `castls chunk --format json`; returns
    {relative path: [(first, last, text)]}. Files the chunker skips are
    absent."""
    out = {}
    for i in range(0, len(rel_paths), CHUNK_BATCH):
        argv = [castls, "chunk"] + rel_paths[i:i + CHUNK_BATCH] + \
            ["--format", "json"]
        if max_size:
            argv += ["--max-size", str(max_size)]
        p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, check=False)
        if p.returncode not in (0, 1):
            raise SystemExit("eval: %s failed (%d): %s" % (
                " ".join(argv[:3]), p.returncode, p.stderr.decode()[:500]))
        for line in p.stdout.decode("utf-8", "replace").splitlines():
            if not line.strip():
                continue
            c = json.loads(line)
            out.setdefault(os.path.normpath(c["path"]), []).append(
                (c["start_line"], c["end_line"], c["text"]))
    return out


class RepoIndex:
    """BM25 over one repository's documents (windows or chunks), with the
    target file swapped for its blanked version per task."""

    def __init__(self, docs_by_file, tokenizer):
        self.tok = tokenizer
        self.docs = {}  # file -> [(first, last, tokens)]
        self.bm = bm25.BM25()
        for f, docs in docs_by_file.items():
            self.docs[f] = [(a, b, bm25.tokenize(t, tokenizer))
                            for a, b, t in docs]
            for i, d in enumerate(self.docs[f]):
                self.bm.add((f, i), d[2])

    def rank(self, target, blanked_docs, query, span, limit):
        """Ranks with target's documents replaced by blanked_docs; those of
        the target file intersecting span (first, last; last may be None
        for "to the end") are left out of the result."""
        orig = self.docs.get(target, [])
        for i, d in enumerate(orig):
            self.bm.remove((target, i), d[2])
        mine = [(a, b, bm25.tokenize(t, self.tok)) for a, b, t in blanked_docs]
        for i, d in enumerate(mine):
            self.bm.add((target, "blank", i), d[2])
        try:
            sc = self.bm.scores(bm25.tokenize(query, self.tok))
        finally:
            for i, d in enumerate(mine):
                self.bm.remove((target, "blank", i), d[2])
            for i, d in enumerate(orig):
                self.bm.add((target, i), d[2])
        ranked = []
        for doc_id, s in sc.items():
            if s <= 0:
                continue
            f = doc_id[0]
            a, b, _ = mine[doc_id[2]] if len(doc_id) == 3 else \
                self.docs[f][doc_id[1]]
            if f == target and a <= (b if span[1] is None else span[1]) \
                    and span[0] <= b:
                continue
            ranked.append((-s, f, a, b))
        ranked.sort()
        return [(f, a, b) for _, f, a, b in ranked[:limit]]


# ---- castls over LSP -----------------------------------------------------------

class CastlsUnavailable(Exception):
    pass


def castls_repo(args, repo_dir, tasks, texts, log_dir):
    """Runs every task of one repository through one server. Returns
    {task id: {"items": [...], "no_context": bool, "elapsed": ms}}."""
    log = os.path.join(log_dir, "castls-%s.log" %
                       os.path.basename(repo_dir))
    # A database of this run's own: the TypeScript package lives outside
    # --work, and an index left in the user's cache by an older castls
    # would be reused.
    db = os.path.join(log_dir, "castls-%s.db" % os.path.basename(repo_dir))
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    cl = LspClient([args.castls, "serve", "--db", db], cwd=repo_dir,
                   stderr_path=log)
    out = {}
    try:
        cl.initialize(repo_dir, json.loads(args.init_options)
                      if args.init_options else None)
        if not cl.wait_indexed(timeout=args.index_timeout):
            print("eval: %s: indexing did not finish in %ds; going on" %
                  (os.path.basename(repo_dir), args.index_timeout),
                  file=sys.stderr)
        for t in tasks:
            path = os.path.join(repo_dir, t["file"])
            uri = path_to_uri(path)
            cl.did_open(uri, texts[t["id"]], LANGUAGE_IDS.get(
                os.path.splitext(path)[1], "plaintext"))
            t0 = time.monotonic()
            res = cl.request("castls/context", {
                "textDocument": {"uri": uri},
                "position": {"line": t["cursor_line"], "character": 0},
                "limit": LIMIT}, timeout=args.request_timeout)
            wall = (time.monotonic() - t0) * 1000.0
            cl.did_close(uri)
            res = res or {}
            items, meta = [], []
            for it in res.get("items") or []:
                first, last = range_to_lines(it["range"])
                f = os.path.relpath(uri_to_path(it["uri"]), repo_dir)
                items.append((os.path.normpath(f), first, last))
                # For the precision figures (score.precision_counts);
                # kept in memory only, not written to the JSON.
                meta.append((it.get("language"), it.get("text")))
            out[t["id"]] = {
                "items": items, "meta": meta,
                "no_context": bool(res.get("noContext")),
                "elapsed": res.get("elapsedMs", wall), "wall": wall}
    except LspError as e:
        if e.code == METHOD_NOT_FOUND:
            raise CastlsUnavailable("castls/context not supported")
        raise CastlsUnavailable("server error: %s" % e)
    except ServerGone as e:
        raise CastlsUnavailable("server exited: %s; log %s: %s" % (
            e, log, _first_line(log)))
    except (TimeoutError, OSError) as e:
        raise CastlsUnavailable(str(e))
    finally:
        cl.close()
    return out


def _first_line(path):
    try:
        with open(path, errors="replace") as f:
            return f.readline().strip() or "(empty)"
    except OSError:
        return "(no log)"


# ---- the development set (issue 15) ----------------------------------------

# Each language's projects are split into two fixed halves. Tune on the
# tuning half; keep a change only if the check half improves too. The
# split is by project (about half of each language's tasks on each side)
# and must not move: every figure of both halves would change with it.
HALVES = ("tuning", "check")

# Python projects: name, directories under --py-root (Debian's
# dist-packages, filled by `.ci/deps --eval`), half. Each is copied into
# WORK/py/NAME and indexed alone; tasks by py_tasks.py. Each half holds one
# very large project (sympy, twisted).
PY_PROJECTS = (
    ("sympy", ("sympy",), "tuning"),
    ("jinja2", ("jinja2",), "tuning"),
    ("click", ("click",), "tuning"),
    ("attrs", ("attr", "attrs"), "tuning"),
    ("twisted", ("twisted",), "check"),
    ("networkx", ("networkx",), "check"),
    ("werkzeug", ("werkzeug",), "check"),
    ("requests", ("requests",), "check"),
)

# npm packages pinned in tests/corpus/package.json: name, half, and the
# ts_tasks.build_tasks arguments that define the package's task set (its
# id: the set is a function of the package version and these alone).
# rxjs keeps the rule and ids of the TypeScript set before issue 15; it
# was tuned on, so it is on the tuning side.
TS_PACKAGES = (
    ("rxjs", "tuning", {"max_tasks": 200, "max_per_file": 4,
                        "pick": "first"}),
    ("zod", "tuning", {"max_tasks": 200, "max_per_file": 16,
                       "pick": "spread"}),
    ("effect", "check", {"max_tasks": 200, "max_per_file": 4,
                         "pick": "spread"}),
)
# What of an npm package is copied into WORK/ts/NAME to be indexed: the
# sources and the files that say how they resolve, not the compiled dist/.
TS_COPY = ("src", "package.json", "tsconfig.json", "README.md")


def copy_sources(entries, dest, keep=None):
    """Lays out dest as a copy of entries, [(source path, name in dest)]:
    regular files only (symlinks, __pycache__ and .pyc left out; and those
    for which keep(name in dest, source path) is false, when given), so
    that castls indexes that project alone. Copies again only when the
    sources changed: a stamp beside dest lists their paths, sizes and
    times."""
    files = []
    for src, name in entries:
        if os.path.isfile(src) and not os.path.islink(src):
            files.append((src, name))
            continue
        for dirpath, dirs, names in os.walk(src):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and
                             not os.path.islink(os.path.join(dirpath, d)))
            for n in sorted(names):
                full = os.path.join(dirpath, n)
                if n.endswith(".pyc") or os.path.islink(full) or \
                        not os.path.isfile(full):
                    continue
                rel = os.path.join(name, os.path.relpath(full, src))
                if keep is None or keep(rel, full):
                    files.append((full, rel))
    sig = []
    for full, rel in files:
        st = os.stat(full)
        sig.append("%s %s %d %d" % (full, rel, st.st_size, st.st_mtime_ns))
    sig = "\n".join(sig) + "\n"
    stamp = dest.rstrip(os.sep) + ".copied"
    if os.path.isdir(dest) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read() == sig:
                return
    shutil.rmtree(dest, ignore_errors=True)
    for full, rel in files:
        out = os.path.join(dest, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        shutil.copyfile(full, out)
    with open(stamp, "w") as f:
        f.write(sig)


def selected(args, name):
    return not args.repo or name in args.repo


def python_set(args):
    """Returns (tasks, {project: directory}, {project: half}, notes)."""
    import py_tasks
    tasks, dirs, halves, notes = [], {}, {}, []
    for name, subdirs, half in PY_PROJECTS:
        if not selected(args, name):
            continue
        srcs = [os.path.join(args.py_root, d) for d in subdirs]
        missing = [p for p in srcs if not os.path.isdir(p)]
        if missing:
            notes.append("python: %s left out: %s is missing (run "
                         ".ci/deps --eval as root)" % (name, missing[0]))
            continue
        dest = os.path.join(args.work, "py", name)
        copy_sources([(p, os.path.basename(p)) for p in srcs], dest)
        ts, d = py_tasks.build_tasks(dest, name, cap=args.py_cap or
                                     py_tasks.MAX_PER_PROJECT)
        tasks += ts
        dirs.update(d)
        halves[name] = half
    return tasks, dirs, halves, notes


def typescript_set(args):
    """Returns (tasks, {package: directory}, {package: half}, notes)."""
    import ts_tasks
    tasks, dirs, halves, notes = [], {}, {}, []
    for name, half, params in TS_PACKAGES:
        if not selected(args, name):
            continue
        pkg = os.path.join(args.ts_root, name)
        if not os.path.isdir(os.path.join(pkg, "src")):
            notes.append("typescript: %s left out: no %s/src (run "
                         "tests/corpus/fetch)" % (name, pkg))
            continue
        dest = os.path.join(args.work, "ts", name)
        copy_sources([(os.path.join(pkg, e), e) for e in TS_COPY
                      if os.path.exists(os.path.join(pkg, e))], dest)
        ts, d = ts_tasks.build_tasks(dest, name, **params)
        tasks += ts
        dirs.update(d)
        halves[name] = half
    return tasks, dirs, halves, notes



# ---- the sets of issue 18: Go, Rust, Java, C and C++ ----------------------

# Per language, projects from the Debian packages `.ci/deps --corpora`
# installs: name, half, and what is copied into WORK/LANG/NAME to be
# indexed alone, [(path under the language's root, name in the copy)].
# Each project's task set is a function of its sources, its name and
# LANG_CAPS (see lex.select); the split is fixed as for Python.
GO_PROJECTS = (
    ("goldmark", "tuning", [("github.com/yuin/goldmark", "")]),
    ("x-mod", "tuning", [("golang.org/x/mod", "")]),
    ("x-net", "tuning", [("golang.org/x/net", "")]),
    ("go-cmp", "check", [("github.com/google/go-cmp", "")]),
    ("yaml", "check", [("gopkg.in/yaml.v3", "")]),
    ("x-tools", "check", [("golang.org/x/tools", "")]),
)
# Crates by name; the version is whichever Debian ships (the highest
# when there are several).
RUST_CRATES = (
    ("regex-syntax", "tuning", [("regex-syntax", "")]),
    ("chrono", "tuning", [("chrono", "")]),
    ("proc-macro2", "tuning", [("proc-macro2", "")]),
    ("syn", "check", [("syn", "")]),
    ("nom", "check", [("nom", "")]),
    ("regex", "check", [("regex", "")]),
)
# Paths in openjdk-17-source's src.zip (module/package directories), laid
# out as source roots: a package's directory is its name.
JAVA_PACKAGES = (
    ("time", "tuning", [("java.base/java/time", "java/time")]),
    ("stream", "tuning", [("java.base/java/util/stream",
                           "java/util/stream")]),
    ("text", "tuning", [("java.base/java/text", "java/text")]),
    ("concurrent", "check", [("java.base/java/util/concurrent",
                              "java/util/concurrent")]),
    ("http", "check", [("java.net.http", "")]),
    ("jshell", "check", [("jdk.jshell/jdk/jshell", "jdk/jshell")]),
)
# Subsystems of linux-source-6.1's tarball (paths under its top
# directory), each a project of its own: a directory and its local
# headers (<linux/...> is outside the project).
C_PROJECTS = (
    ("ext4", "tuning", [("fs/ext4", "")]),
    ("mac80211", "tuning", [("net/mac80211", "")]),
    ("sound", "tuning", [("sound/core", "")]),
    ("btrfs", "check", [("fs/btrfs", "")]),
    ("f2fs", "check", [("fs/f2fs", "")]),
    ("nfs", "check", [("fs/nfs", "")]),
)
# Under /usr: Boost libraries (header only, laid out as include/boost/LIB
# so that <boost/LIB/...> resolves) and googletest with googlemock (its
# sources under src/, the headers of both under include/).
CPP_PROJECTS = (
    ("asio", "tuning", [("include/boost/asio", "include/boost/asio"),
                        ("include/boost/asio.hpp",
                         "include/boost/asio.hpp")]),
    ("container", "tuning", [("include/boost/container",
                              "include/boost/container")]),
    ("googletest", "tuning", [
        ("src/googletest/googletest/include", "include"),
        ("src/googletest/googlemock/include", "include"),
        ("src/googletest/googletest/src", "src"),
        ("src/googletest/googlemock/src", "src")]),
    ("graph", "check", [("include/boost/graph", "include/boost/graph")]),
    ("interprocess", "check", [("include/boost/interprocess",
                                "include/boost/interprocess")]),
    ("beast", "check", [("include/boost/beast", "include/boost/beast"),
                        ("include/boost/beast.hpp",
                         "include/boost/beast.hpp")]),
)
LANG_PROJECTS = {"go": GO_PROJECTS, "rust": RUST_CRATES,
                 "java": JAVA_PACKAGES, "c": C_PROJECTS,
                 "cpp": CPP_PROJECTS}
LANG_CAPS = {"go": 100, "rust": 100, "java": 100, "c": 100, "cpp": 100}
# The generator of each language, and its arguments beyond the cap.
LANG_MODULES = {"go": ("go_tasks", {}), "rust": ("rust_tasks", {}),
                "java": ("java_tasks", {}), "c": ("c_tasks", {"lang": "c"}),
                "cpp": ("c_tasks", {"lang": "cpp"})}


def _keep(lang):
    """The filter copy_sources applies for a language: its sources and the
    files that say how they resolve; never generated files, nor Go's
    testdata and vendor trees."""
    exts = LANG_EXTS[lang]
    names = {"go": ("go.mod",), "rust": ("Cargo.toml",)}.get(lang, ())

    def keep(rel, full):
        parts = rel.replace(os.sep, "/").split("/")
        if lang == "go" and ("testdata" in parts or "vendor" in parts):
            return False
        if parts[-1] in names:
            return True
        if not parts[-1].endswith(exts):
            return False
        return not lex.is_generated(rel, read_text(full))
    return keep


def lang_root(args, lang):
    """Where a language's project sources are read from: an installed tree
    (Go, Rust, C++), or a cache under WORK that the archive is unpacked
    into once (Java's src.zip, the kernel's tarball)."""
    if lang == "go":
        return args.go_root
    if lang == "rust":
        return args.cargo_root
    if lang == "java":
        prefixes = sorted({src for _, _, entries in JAVA_PACKAGES
                           for src, _ in entries})
        return unpack_zip(args.jdk_src, prefixes,
                          os.path.join(args.work, "src", "jdk"))
    if lang == "c":
        prefixes = sorted({src for _, _, entries in C_PROJECTS
                           for src, _ in entries})
        return unpack_tar(args.linux_src, prefixes,
                          os.path.join(args.work, "src", "linux"))
    return args.cpp_root


def unpack_tar(path, prefixes, dest):
    """The directories prefixes of a source tarball (one top directory,
    left out), unpacked into dest once with tar(1): the kernel's is 1.3
    GB unpacked, these few directories some 15 MB."""
    sig = _archive_sig(path, prefixes)
    if sig is None:
        return dest
    top = re.sub(r"\.tar(\.\w+)?$", "", os.path.basename(path))

    def fill():
        subprocess.run(["tar", "-xf", path, "-C", dest,
                        "--strip-components=1", "--wildcards"] +
                       ["%s/%s/*" % (top, p) for p in prefixes], check=True)
    return _stamped(dest, sig, fill)


def _stamped(dest, sig, fill):
    """Runs fill() to lay out dest unless a stamp beside it says it was
    laid out from sig already."""
    stamp = dest.rstrip(os.sep) + ".unpacked"
    if os.path.isdir(dest) and os.path.exists(stamp):
        with open(stamp) as f:
            if f.read() == sig:
                return dest
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(dest)
    fill()
    with open(stamp, "w") as f:
        f.write(sig)
    return dest


def _archive_sig(path, prefixes):
    if not os.path.exists(path):
        return None
    st = os.stat(path)
    return "%s %d %d\n%s\n" % (path, st.st_size, int(st.st_mtime),
                               "\n".join(prefixes))


def unpack_zip(path, prefixes, dest):
    """The members of a zip under the directories prefixes, unpacked into
    dest once (dest itself when the zip is missing, so that the projects
    are reported missing)."""
    import zipfile
    sig = _archive_sig(path, prefixes)
    if sig is None:
        return dest

    def fill():
        with zipfile.ZipFile(path) as z:
            names = [n for n in z.namelist() if not n.endswith("/") and
                     any(n.startswith(p + "/") for p in prefixes)]
            for n in names:
                out = os.path.join(dest, *n.split("/"))
                os.makedirs(os.path.dirname(out), exist_ok=True)
                with open(out, "wb") as f:
                    f.write(z.read(n))
    return _stamped(dest, sig, fill)


def _crate_dir(root, crate):
    """The directory of crate's highest version under a registry."""
    pat = re.compile(re.escape(crate) + r"-(\d+)\.(\d+)\.(\d+)")
    found = []
    for d in os.listdir(root) if os.path.isdir(root) else ():
        m = pat.fullmatch(d)
        if m:
            found.append((tuple(int(x) for x in m.groups()), d))
    return max(found)[1] if found else crate


def lang_set(args, lang):
    """Returns (tasks, {project: directory}, {project: half}, notes)."""
    import importlib
    modname, extra = LANG_MODULES[lang]
    module = importlib.import_module(modname)
    tasks, dirs, halves, notes = [], {}, {}, []
    root = lang_root(args, lang)
    for name, half, entries in LANG_PROJECTS[lang]:
        if not selected(args, name):
            continue
        if lang == "rust":
            entries = [(_crate_dir(root, src), dst) for src, dst in entries]
        srcs = [(os.path.join(root, src) if src else root, dst)
                for src, dst in entries]
        missing = [p for p, _ in srcs if not os.path.exists(p)]
        if missing:
            notes.append("%s: %s left out: %s is missing (run .ci/deps "
                         "--corpora as root)" % (lang, name, missing[0]))
            continue
        dest = os.path.join(args.work, lang, name)
        copy_sources(srcs, dest, _keep(lang))
        ts, d = module.build_tasks(dest, name, cap=LANG_CAPS[lang],
                                   **extra)
        for t in ts:
            t["language"] = lang
        tasks += ts
        dirs.update(d)
        halves[name] = half
    return tasks, dirs, halves, notes

# ---- reporting -------------------------------------------------------------

def summarize(per_task_scores, cross_scores):
    m, n, skipped = score.mean_scores(per_task_scores)
    xm, xn, _ = score.mean_scores(cross_scores)
    return {"all": m, "n": n, "empty": skipped, "cross_file": xm,
            "n_cross_file": xn}


def fmt(v, metric):
    if v is None:
        return "-"
    if metric == "lines@5":
        return "%.1f" % v
    return "%.3f" % v


def print_table(title, block, methods, extra_rows, out):
    col = 14
    print("", file=out)
    print(title, file=out)
    head = "  %-16s" % "metric" + "".join(
        "%*s" % (col, TITLES[m]) for m in methods)
    print(head, file=out)
    print("  " + "-" * (len(head) - 2), file=out)
    for part, label in (("all", ""), ("cross_file", "xf ")):
        for metric in score.METRICS:
            if part == "cross_file" and metric == "lines@5":
                continue
            row = "  %-16s" % (label + metric)
            for m in methods:
                s = block.get(m)
                if isinstance(s, str):
                    row += "%*s" % (col, s if part == "all" and
                                    metric == "recall@5" else "")
                else:
                    row += "%*s" % (col, fmt(s[part][metric], metric))
            print(row, file=out)
    for label, values in extra_rows:
        print("  %-16s" % label + "".join("%*s" % (col, v) for v in values),
              file=out)


def castls_extras(results, tasks):
    """castls only: the precision of its top 5 (items from the current
    file, from another language, duplicates), noContext on tasks without
    gold (the stop signal) and with gold (a stop that loses recall), and
    latency percentiles."""
    empty = [t for t in tasks if not t["gold"]]
    stops = sum(1 for t in empty if results[t["id"]]["no_context"] or
                not results[t["id"]]["items"])
    gold = [t for t in tasks if t["gold"]]
    false_stops = sum(1 for t in gold if results[t["id"]]["no_context"])
    lat = [results[t["id"]]["elapsed"] for t in tasks]
    top5 = score.precision_shares([score.precision_counts(
        results[t["id"]]["items"], results[t["id"]].get("meta", []),
        t["file"]) for t in tasks])
    return {"stop_share": stops / len(empty) if empty else None,
            "n_empty": len(empty),
            "no_context_gold": false_stops / len(gold) if gold else None,
            "top5_same_file": top5["same_file"],
            "top5_other_language": top5["other_language"],
            "top5_duplicate": top5["duplicate"],
            "top5_items": top5["items"],
            "latency_p50_ms": score.percentile(lat, 50),
            "latency_p99_ms": score.percentile(lat, 99)}


def castls_rows(ex, methods):
    """The castls-only rows under a table, in its column."""
    pad = [""] * (len(methods) - 1)

    def ms(v):
        return "-" if v is None else "%.1f" % v
    return [
        ("top5 same file", pad + [fmt(ex["top5_same_file"], "")]),
        ("top5 other lang", pad + [fmt(ex["top5_other_language"], "")]),
        ("top5 duplicate", pad + [fmt(ex["top5_duplicate"], "")]),
        ("stop-signal", pad + [fmt(ex["stop_share"], "")]),
        ("noContext w/gold", pad + [fmt(ex["no_context_gold"], "")]),
        ("latency p50 ms", pad + [ms(ex["latency_p50_ms"])]),
        ("latency p99 ms", pad + [ms(ex["latency_p99_ms"])])]


# ---- main ------------------------------------------------------------------

SETS = ("repoeval", "python", "typescript", "go", "rust", "java", "c",
        "cpp")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--castls", default="build/release/castls")
    ap.add_argument("--data",
                    default="../shared/bench/repoeval-function-dev.tgz")
    ap.add_argument("--work", default="build/eval")
    ap.add_argument("--json", metavar="OUT")
    ap.add_argument("--init-options", metavar="JSON",
                    help="initializationOptions for castls, e.g. "
                    "'{\"maxChunkSize\": 800}'")
    ap.add_argument("--methods", default=",".join(METHODS),
                    help="comma-separated subset of %s" % ",".join(METHODS))
    ap.add_argument("--sets", default=",".join(SETS),
                    help="comma-separated subset of %s (default: all)" %
                    ",".join(SETS))
    ap.add_argument("--repo", action="append",
                    help="only this repository or project (repeatable)")
    ap.add_argument("--py-root", default="/usr/lib/python3/dist-packages",
                    help="where the Python projects of PY_PROJECTS are "
                         "installed")
    ap.add_argument("--py-cap", type=int, default=None,
                    help="tasks per Python project at most (default: "
                         "py_tasks.MAX_PER_PROJECT)")
    ap.add_argument("--ts-root", default="build/corpus/npm/node_modules",
                    help="node_modules holding the packages of "
                         "TS_PACKAGES (laid out by tests/corpus/fetch)")
    ap.add_argument("--go-root", default="/usr/share/gocode/src",
                    help="where the Go modules of GO_PROJECTS are")
    ap.add_argument("--cargo-root", default="/usr/share/cargo/registry",
                    help="where the crates of RUST_CRATES are")
    ap.add_argument("--jdk-src",
                    default="/usr/lib/jvm/openjdk-17/lib/src.zip",
                    help="the JDK's src.zip (JAVA_PACKAGES)")
    ap.add_argument("--linux-src",
                    default="/usr/src/linux-source-6.1.tar.xz",
                    help="the kernel's source tarball (C_PROJECTS)")
    ap.add_argument("--cpp-root", default="/usr",
                    help="where the paths of CPP_PROJECTS start")
    ap.add_argument("--tokenizer", default="alnum", choices=bm25.TOKENIZERS)
    ap.add_argument("--windows", default="aligned",
                    choices=("aligned", "repocoder"))
    ap.add_argument("--exclude", default="query+span", choices=EXCLUDES,
                    help="what the BM25 baselines may not return from the "
                         "target file (default: the query lines and the "
                         "blanked lines)")
    ap.add_argument("--max-size", type=int, default=0,
                    help="chunk size limit passed to `castls chunk` for "
                         "the cAST baseline (0: the chunker's default)")
    ap.add_argument("--index-timeout", type=int, default=300)
    ap.add_argument("--request-timeout", type=int, default=60)
    ap.add_argument("--ts-package", metavar="DIR",
                    help="also build and run a TypeScript task set from an "
                         "installed npm package in place (see ts_tasks.py)")
    return ap.parse_args(argv)


def run_methods(args, tasks, repo_dirs):
    """Runs every method on tasks (each with repo, file, cursor_line,
    gt_span, gold and "text", the blanked buffer); repo_dirs maps a repo
    name to its directory. Returns ({method: {task id: items}}, castls'
    raw replies by task id, why castls is unavailable or None)."""
    methods = [m for m in args.methods.split(",") if m]
    castls_abs = os.path.abspath(args.castls)
    args.castls = castls_abs
    items = {m: {} for m in methods}
    castls_raw = {}
    castls_reason = None
    tmp = tempfile.mkdtemp(prefix="blank-", dir=args.work)
    repos = sorted({t["repo"] for t in tasks})
    try:
        for repo in repos:
            rdir = repo_dirs[repo]
            rtasks = [t for t in tasks if t["repo"] == repo]
            exts = tuple(sorted({e for t in rtasks for e in LANG_EXTS.get(
                t.get("language"), (os.path.splitext(t["file"])[1],))}))
            files = [f for f in source_files(rdir, exts)]
            texts = {t["id"]: t["text"] for t in rtasks}
            if "windows" in methods:
                idx = RepoIndex({f: windows_of(read_text(os.path.join(
                    rdir, f)), args.windows) for f in files}, args.tokenizer)
                for t in rtasks:
                    items["windows"][t["id"]] = idx.rank(
                        t["file"], windows_of(t["text"], args.windows),
                        query_text(t["text"], t["cursor_line"]),
                        excluded_region(t, args.exclude), LIMIT)
            if "cast" in methods:
                idx = RepoIndex(run_chunker(castls_abs, rdir, files,
                                            args.max_size), args.tokenizer)
                for t in rtasks:
                    blank_dir = os.path.join(tmp, t["id"].replace("/", "_"))
                    bpath = os.path.join(blank_dir, t["file"])
                    os.makedirs(os.path.dirname(bpath), exist_ok=True)
                    with open(bpath, "w", encoding="utf-8",
                              newline="") as f:
                        f.write(t["text"])
                    bdocs = run_chunker(castls_abs, blank_dir, [t["file"]],
                                        args.max_size).get(
                        os.path.normpath(t["file"]), [])
                    items["cast"][t["id"]] = idx.rank(
                        t["file"], bdocs,
                        query_text(t["text"], t["cursor_line"]),
                        excluded_region(t, args.exclude), LIMIT)
                    shutil.rmtree(blank_dir, ignore_errors=True)
            if "castls" in methods and castls_reason is None:
                try:
                    castls_raw.update(castls_repo(args, rdir, rtasks, texts,
                                                  args.work))
                except CastlsUnavailable as e:
                    castls_reason = str(e)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if "castls" in methods:
        if castls_reason is None:
            items["castls"] = {k: v["items"] for k, v in castls_raw.items()}
        else:
            items.pop("castls")
    return items, castls_raw, castls_reason


def block_for(sel, methods, items, castls_raw, castls_reason):
    b = {}
    for m in methods:
        if m == "castls" and castls_reason is not None:
            b[m] = "not available"
            continue
        b[m] = summarize(
            [score.score_task(items[m][t["id"]], t["gold"]) for t in sel],
            [score.score_task(items[m][t["id"]],
                              score.cross_file_gold(t["gold"]))
             for t in sel])
    if "castls" in methods and castls_reason is None:
        b["castls_extra"] = castls_extras(castls_raw, sel)
    return b


def counts(sel):
    """(tasks, with gold, with cross-file gold)."""
    return (len(sel), sum(1 for t in sel if t["gold"]),
            sum(1 for t in sel if score.cross_file_gold(t["gold"])))


def print_full(title, sel, block, methods, out):
    n, ngold, nx = counts(sel)
    head = "== %s: %d tasks with gold, %d without, %d with cross-file " \
        "gold ==" % (title, ngold, n - ngold, nx)
    extra = castls_rows(block["castls_extra"], methods) \
        if "castls_extra" in block else []
    print_table(head, block, methods, extra, out)


def print_projects(name, rows, methods, out):
    """One line per project (and per half, and all): task counts, then
    Recall@5 and cross-file Recall@5 of every method."""
    col = 16
    print("", file=out)
    print("== %s per project: recall@5 | xf recall@5 ==" % name, file=out)
    head = "  %-12s %-7s %6s %6s %6s" % ("project", "half", "tasks",
                                        "gold", "xf") + \
        "".join("%*s" % (col, TITLES[m]) for m in methods)
    print(head, file=out)
    print("  " + "-" * (len(head) - 2), file=out)
    for label, half, sel, block in rows:
        n, ngold, nx = counts(sel)
        line = "  %-12s %-7s %6d %6d %6d" % (label, half, n, ngold, nx)
        for m in methods:
            s = block.get(m)
            if isinstance(s, str):
                line += "%*s" % (col, "-")
            else:
                line += "%*s" % (col, "%s | %s" % (
                    fmt(s["all"]["recall@5"], ""),
                    fmt(s["cross_file"]["recall@5"], "")))
        print(line, file=out)


def run_suite(args, name, tasks, repo_dirs, out, halves=None):
    """Runs a task set and prints its tables: per repository and overall
    (RepoEval, --ts-package), or, given halves ({repo: half}), one line
    per project and a table per half. Returns the JSON-able results."""
    methods = [m for m in args.methods.split(",") if m]
    t0 = time.monotonic()
    items, castls_raw, castls_reason = run_methods(args, tasks, repo_dirs)
    repos = sorted({t["repo"] for t in tasks})

    def block(sel):
        return block_for(sel, methods, items, castls_raw, castls_reason)

    result = {"suite": name, "per_repo": {}, "overall": None,
              "castls_available": castls_reason is None,
              "castls_reason": castls_reason, "per_task": []}
    if halves is None:
        for scope in repos + [None]:
            sel = [t for t in tasks if scope is None or t["repo"] == scope]
            b = block(sel)
            print_full("%s %s" % (name, scope or "overall"), sel, b,
                       methods, out)
            if scope is None:
                result["overall"] = b
            else:
                result["per_repo"][scope] = b
    else:
        order = [h for h in HALVES if h in halves.values()]
        repos = sorted(repos, key=lambda r: (order.index(halves[r]), r))
        rows = []
        for r in repos:
            sel = [t for t in tasks if t["repo"] == r]
            result["per_repo"][r] = block(sel)
            rows.append((r, halves[r], sel, result["per_repo"][r]))
        result["halves"] = {}
        for h in order:
            sel = [t for t in tasks if halves[t["repo"]] == h]
            result["halves"][h] = block(sel)
            rows.append((h, "", sel, result["halves"][h]))
        result["overall"] = block(tasks)
        rows.append(("all", "", tasks, result["overall"]))
        result["projects"] = {r: {"half": halves[r], "tasks": counts(
            [t for t in tasks if t["repo"] == r])} for r in repos}
        print_projects(name, rows, methods, out)
        for h in order:
            sel = [t for t in tasks if halves[t["repo"]] == h]
            print_full("%s %s half (%s)" % (name, h, ", ".join(
                r for r in repos if halves[r] == h)), sel,
                result["halves"][h], methods, out)
    if castls_reason is not None:
        print("\ncastls: not available (%s)" % castls_reason, file=out)
    for t in tasks:
        row = {"id": t["id"], "gold": t["gold"], "gt_span": t["gt_span"]}
        if halves is not None:
            row["half"] = halves[t["repo"]]
        for m in methods:
            if m in items and t["id"] in items[m]:
                row[m] = {"items": items[m][t["id"]][:10],
                          "scores": score.score_task(items[m][t["id"]],
                                                     t["gold"])}
        if "castls" in row:  # where the latency tail comes from
            raw = castls_raw[t["id"]]
            row["castls"]["elapsed_ms"] = raw["elapsed"]
            row["castls"]["wall_ms"] = raw["wall"]
            row["castls"]["no_context"] = raw["no_context"]
            row["castls"]["top5"] = score.precision_counts(
                raw["items"], raw.get("meta", []), t["file"])
        result["per_task"].append(row)
    result["seconds"] = round(time.monotonic() - t0, 1)
    return result


def source_files(rdir, exts):
    if exts == (".py",):
        return py_files(rdir)
    out = []
    for dirpath, dirs, files in os.walk(rdir):
        dirs[:] = sorted(d for d in dirs if d != "node_modules")
        for name in sorted(files):
            if name.endswith(exts) and not name.endswith(".d.ts"):
                out.append(os.path.relpath(os.path.join(dirpath, name), rdir))
    return out


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    args.work = os.path.abspath(args.work)
    methods = [m for m in args.methods.split(",") if m]
    bad = [m for m in methods if m not in METHODS]
    if bad:
        raise SystemExit("eval: unknown method(s): %s" % ",".join(bad))
    sets = [s for s in args.sets.split(",") if s]
    bad = [s for s in sets if s not in SETS]
    if bad:
        raise SystemExit("eval: unknown set(s): %s" % ",".join(bad))
    if ("cast" in methods or "castls" in methods) and \
            not os.access(args.castls, os.X_OK):
        raise SystemExit("eval: no castls binary at %s" % args.castls)
    started = time.monotonic()
    print("castls eval: BM25 k1=%.2f b=%.2f, tokenizer %s, windows %s, "
          "lists cut at %d" % (bm25.K1, bm25.B, args.tokenizer,
                               args.windows, LIMIT))
    results = {"config": {"tokenizer": args.tokenizer,
                          "windows": args.windows, "k1": bm25.K1,
                          "b": bm25.B, "limit": LIMIT,
                          "budget_lines": score.BUDGET_LINES,
                          "castls": args.castls, "data": args.data,
                          "py_projects": [list(p[:1]) + [p[2]]
                                          for p in PY_PROJECTS],
                          "ts_packages": [list(p) for p in TS_PACKAGES]},
               "suites": []}
    if "repoeval" in sets:
        root = unpack(args.data, args.work)
        tasks = load_tasks(root)
        if args.repo:
            tasks = [t for t in tasks if t["repo"] in args.repo]
        repo_dirs = {}
        for t in tasks:
            rdir = os.path.realpath(os.path.join(root, "repositories",
                                                 t["repo"]))
            repo_dirs[t["repo"]] = rdir
            text = read_text(os.path.join(rdir, t["file"]))
            t["text"] = blank_lines(text, t["gt_span"][0], t["gt_span"][1])
        if tasks:
            print("\nRepoEval function-level dev split: %d tasks" %
                  len(tasks))
            results["suites"].append(run_suite(args, "repoeval", tasks,
                                               repo_dirs, sys.stdout))
    for lang in SETS[1:]:
        if lang not in sets:
            continue
        build = {"python": python_set, "typescript": typescript_set}.get(
            lang, lambda a: lang_set(a, lang))
        tasks, dirs, halves, notes = build(args)
        for n in notes:
            print("eval: %s" % n, file=sys.stderr)
        if not tasks:
            continue
        print("\n%s development set: %d tasks from %d projects%s" % (
            TITLES[lang], len(tasks), len(dirs), "" if not notes else
            " (%d left out: see stderr)" % len(notes)))
        results["suites"].append(run_suite(args, lang, tasks, dirs,
                                           sys.stdout, halves))
    if args.ts_package:
        import ts_tasks
        ts, tdirs = ts_tasks.build_tasks(os.path.abspath(args.ts_package))
        print("\nTypeScript set from %s: %d tasks" % (args.ts_package,
                                                      len(ts)))
        results["suites"].append(run_suite(args, "typescript", ts, tdirs,
                                           sys.stdout))
    results["seconds"] = round(time.monotonic() - started, 1)
    sys.stdout.flush()
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    print("eval: %s in %.0f s" % (", ".join(
        "%s %.0f s" % (s["suite"], s["seconds"]) for s in results["suites"]),
        results["seconds"]), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
