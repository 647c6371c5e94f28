#!/usr/bin/env python3
"""tests/bench/bench_lsp.py: the language server benchmark.

    python3 tests/bench/bench_lsp.py --castls BUILD/castls --stdlib DIR

drives the real binary over stdio (LSP framing, one process per phase,
never in-process) and prints figures beside its goals: a keystroke's
rows committed within 5 ms at p99 (5,000-line file), castls/context
answered within 30 ms at p99 (indexed stdlib, 20 files open), and no
cheap request waiting over 50 ms while the stdlib is cold-indexing. It
is not a test: nothing fails when a goal is missed, the table says so.

Phases, in the order they run:

1. cold index: a fresh database for the Python standard library (DIR as
   the only workspace root, site-packages excluded). While `$/progress`
   reports indexing, a cheap request goes out every --probe-ms, rotating
   through an unknown method (answered -32601 on the loop: loop latency
   alone), castls/status (a worker thread and the database) and
   textDocument/documentSymbol of a small open file (a worker thread,
   no database). Each probe waits for its reply before the next is due,
   so a stall shows up as one long wait, not as a pile-up. The same
   probes on the idle server afterwards are the baseline.
2. context: a second server on the now indexed database (start-up is an
   incremental scan; we wait for it to end) opens 20 real stdlib files
   and asks castls/context at --contexts positions (the first non-blank
   character of lines inside function bodies, found with the ast
   module). Round trip and the server's own elapsedMs, --runs passes.
3. memory: that server's VmRSS and VmHWM with the 20 files open (and
   VmRSS before they were opened), plus the cold-index server's figures.
4. keystrokes: a 5,000-line file made of real top-level stdlib functions
   is the only file of a scratch workspace root. Single-character edits
   at random positions inside function bodies (an insertion, then its
   deletion, so the file never drifts) are timed three ways:
   - commit: from writing didChange to the moment a second SQLite
     connection (the database is passed with --db) sees the edited line
     in the chunk row that covers it. This is the keystroke goal's
     "didChange -> rows updated": the loop's reparse, the worker's
     chunking, the row diff, the FTS update and the commit, plus our
     pipe write. The poller reads PRAGMA data_version every --poll-us
     and only looks at rows when it changes; its granularity is
     printed.
   - loop: didChange and an unknown-method request written together;
     the reply shows how long the loop was busy with the edit (minus the
     same request's time without an edit, the baseline).
   - chunks: didChange then castls/chunks, which chunks the live buffer
     on a worker (parse + chunk, no database), beside its no-edit
     baseline.
   Each kind waits for the previous edit's commit before the next edit,
   so writes never coalesce and every sample is one keystroke.

Percentiles are nearest-rank; with several runs, each figure is the
median over runs of that run's percentile. The machine is shared, so
compare ratios against the baselines of the same run.
"""
import argparse
import ast
import json
import os
import random
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "eval"))

# The shared client: one thread, each reply stamped when its bytes are
# read while we wait in select(), so our own work is not in the times;
# its now() is the clock every time below is taken with.
from lsp_client import (LspClient, LspError, ServerGone,  # noqa: E402
                        now, path_to_uri)

GOAL_KEYSTROKE_P99_MS = 5.0
GOAL_CONTEXT_P99_MS = 30.0
GOAL_INDEXING_WAIT_MS = 50.0
OPEN_FILES = 20
UNKNOWN_METHOD = "castls/benchProbe"  # must stay unknown to the server
EDIT_CHARS = "abcdefghijklmnopqrstuvwxyz_ .,0123456789"


def pct(values, p):
    """Nearest-rank percentile of values (p in 0..100)."""
    if not values:
        return float("nan")
    v = sorted(values)
    k = max(0, min(len(v) - 1, int(-(-p * len(v) // 100)) - 1))
    return v[k]


def ms(x):
    return x * 1e3


class ServerError(Exception):
    pass


def start_server(castls, db, roots, options, log_path, cache):
    """castls serve on db with roots as the workspace folders,
    initialized but not yet sent `initialized` (the server only begins
    its scan and its progress once it is)."""
    cl = LspClient([castls, "serve", "--db", db],
                   env=dict(os.environ, XDG_CACHE_HOME=cache),
                   stderr_path=log_path, timeout=600)
    cl.initialize(roots, options, initialized=False,
                  client_name="castls-bench")
    return cl


def wait_indexed(cl):
    if not cl.wait_indexed(timeout=1800, ask_status=False):
        raise ServerError("indexing did not end")


# ---------------------------------------------------------------------- #
# Inputs from the standard library
# ---------------------------------------------------------------------- #

def stdlib_files(stdlib):
    out = []
    for dirpath, dirs, files in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs
                 if d not in ("site-packages", "__pycache__"))
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.join(dirpath, f))
    return out


def read_source(path):
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return text, ast.parse(text)
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        return None, None


def body_lines(tree, lines):
    """(line, column) of the first non-blank character of lines inside
    function bodies, 0-based."""
    out = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for ln in range(node.body[0].lineno, node.end_lineno + 1):
            s = lines[ln - 1]
            st = s.lstrip(" ")
            if st.strip() and not st.startswith("#") and st.isascii():
                out.add((ln - 1, len(s) - len(st)))
    return sorted(out)


def pick_context_files(stdlib, rng):
    """20 files of 300..3000 lines with function bodies, and positions."""
    cands = []
    for p in stdlib_files(stdlib):
        try:
            size = os.path.getsize(p)
        except OSError:
            continue
        if 8000 <= size <= 120000:
            cands.append(p)
    rng.shuffle(cands)
    picked = []
    for p in cands:
        text, tree = read_source(p)
        if text is None:
            continue
        lines = text.split("\n")
        if not 300 <= len(lines) <= 3000:
            continue
        pos = body_lines(tree, lines)
        if len(pos) >= 40:
            picked.append((p, text, pos))
        if len(picked) == OPEN_FILES:
            break
    return picked


def make_keystroke_file(stdlib, nlines, rng):
    """nlines lines of real top-level stdlib functions (ASCII only),
    padded with blank lines to exactly nlines."""
    files = stdlib_files(stdlib)
    rng.shuffle(files)
    out, used = [], 0
    for p in files:
        text, tree = read_source(p)
        if text is None:
            continue
        lines = text.split("\n")
        for node in tree.body:
            if not isinstance(node, ast.FunctionDef):
                continue
            first = min([node.lineno] +
                    [d.lineno for d in node.decorator_list])
            src = lines[first - 1:node.end_lineno]
            if not all(s.isascii() for s in src) or len(src) > 150:
                continue
            if used + len(src) + 2 > nlines:
                continue
            out.extend(src + ["", ""])
            used += len(src) + 2
        if used >= nlines - 5:
            break
    out.extend([""] * (nlines - used))
    return "\n".join(out[:nlines]) + "\n"


# ---------------------------------------------------------------------- #
# Phase 1: responsiveness while cold-indexing
# ---------------------------------------------------------------------- #

PROBES = ("unknown", "status", "documentSymbol")
# castls/status counts rows of the whole database (~100 ms idle on the
# stdlib), so it is shown beside the others but is not a cheap request.
CHEAP = ("unknown", "documentSymbol")


def probe_once(server, kind, small_uri):
    if kind == "unknown":
        msg, dt = server.timed(UNKNOWN_METHOD, {})
        ok = msg.get("error", {}).get("code") == -32601
    elif kind == "status":
        msg, dt = server.timed("castls/status", {})
        ok = "result" in msg
    else:
        msg, dt = server.timed("textDocument/documentSymbol",
                {"textDocument": {"uri": small_uri}})
        ok = isinstance(msg.get("result"), list)
    if not ok:
        raise ServerError("%s probe failed: %s" % (kind, msg))
    return dt


def phase_cold(args, work, stdlib, small):
    db = os.path.join(work, "stdlib.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    srv = start_server(args.castls, db, [stdlib],
                       {"exclude": ["site-packages/"]},
                       os.path.join(work, "cold.log"),
                       os.path.join(work, "cache"))
    small_uri = path_to_uri(small)
    with open(small, encoding="utf-8") as f:
        srv.did_open(small_uri, f.read())
    t_init = now()
    srv.notify("initialized", {})
    during = {k: [] for k in PROBES}
    period = args.probe_ms / 1e3
    i = 0
    next_at = now()
    while not srv.indexing_over():
        if now() - t_init > 1800:
            raise ServerError("cold index took over 30 minutes")
        # Sleep until the next probe is due, handling progress.
        while now() < next_at:
            srv.pump(next_at - now())
        if srv.indexing_over():
            break
        kind = PROBES[i % len(PROBES)]
        i += 1
        dt = probe_once(srv, kind, small_uri)
        if srv.indexing_began_at is not None:
            during[kind].append(dt)
        next_at = max(next_at + period, now())
    index_s = (srv.indexing_ended_at or now()) - t_init
    mem = srv.memory()
    srv.drain(0.5)
    idle = {k: [] for k in PROBES}
    for j in range(args.baseline_probes * len(PROBES)):
        kind = PROBES[j % len(PROBES)]
        idle[kind].append(probe_once(srv, kind, small_uri))
        srv.pump(period)
    status, _ = srv.call("castls/status", {})
    srv.close(timeout=60)
    return {"index_s": index_s, "during": during, "idle": idle,
        "mem": mem, "status": status.get("result", {}), "db": db}


# ---------------------------------------------------------------------- #
# Phases 2 and 3: context latency and memory on the indexed stdlib
# ---------------------------------------------------------------------- #

def phase_context(args, work, stdlib, db, rng):
    picked = pick_context_files(stdlib, rng)
    if len(picked) < OPEN_FILES:
        raise ServerError("found only %d suitable stdlib files" %
                  len(picked))
    positions = []
    per_file = -(-args.contexts // OPEN_FILES)
    for path, _, pos in picked:
        for ln, col in rng.sample(pos, min(per_file, len(pos))):
            positions.append((path, ln, col))
    rng.shuffle(positions)
    positions = positions[:args.contexts]

    t0 = now()
    srv = start_server(args.castls, db, [stdlib],
                       {"exclude": ["site-packages/"]},
                       os.path.join(work, "context.log"),
                       os.path.join(work, "cache"))
    srv.notify("initialized", {})
    wait_indexed(srv)
    warm_s = now() - t0
    srv.drain(0.5)
    mem_empty = srv.memory()
    for path, text, _ in picked:
        srv.did_open(path_to_uri(path), text)
    srv.drain(1.0)  # the buffers' index writes
    runs = []
    empty = 0
    for _ in range(args.runs):
        rtt, server_ms = [], []
        for path, ln, col in positions:
            msg, dt = srv.timed("castls/context", {
                "textDocument": {"uri": path_to_uri(path)},
                "position": {"line": ln, "character": col}})
            res = msg.get("result")
            if not isinstance(res, dict):
                raise ServerError("castls/context: %s" % msg)
            empty += bool(res.get("noContext"))
            rtt.append(dt)
            server_ms.append(res.get("elapsedMs", float("nan")))
        runs.append((rtt, server_ms))
    mem = srv.memory()
    srv.close(timeout=60)
    return {"runs": runs, "n": len(positions), "warm_s": warm_s,
        "mem_empty": mem_empty, "mem": mem,
        "empty": empty / max(1, args.runs),
        "files": [p for p, _, _ in picked]}


# ---------------------------------------------------------------------- #
# Phase 4: keystrokes in a 5,000-line file
# ---------------------------------------------------------------------- #

class RowWatch:
    """A second connection to the server's database: waits until the
    chunk row covering a line holds the expected text."""

    def __init__(self, db, rel, poll_s):
        self.db = sqlite3.connect("file:%s?mode=ro" % db, uri=True,
                      isolation_level=None,
                      check_same_thread=False)
        self.db.execute("PRAGMA busy_timeout=1000")
        self.rel = rel
        self.poll_s = poll_s
        self.file_id = None
        self.version = self._version()

    def _version(self):
        return self.db.execute("PRAGMA data_version").fetchone()[0]

    def line_is(self, line, expect):
        """Whether a chunk row covering 0-based line holds expect as
        that line."""
        if self.file_id is None:
            row = self.db.execute("SELECT id FROM files WHERE path=?",
                          (self.rel,)).fetchone()
            if not row:
                return False
            self.file_id = row[0]
        rows = self.db.execute(
            "SELECT start_line, start_byte, text FROM chunks"
            " WHERE file_id=? AND start_line<=? AND end_line>=?",
            (self.file_id, line, line)).fetchall()
        for start_line, _, text in rows:
            parts = text.split("\n")
            k = line - start_line
            if 0 <= k < len(parts) and (parts[k] == expect or
                            parts[k].endswith(expect) and
                            k == 0):
                return True
        return False

    def wait(self, line, expect, timeout=10.0):
        """Returns the time the row was seen, or None on timeout."""
        deadline = now() + timeout
        while True:
            v = self._version()
            t = now()
            if v != self.version:
                self.version = v
                if self.line_is(line, expect):
                    return t
            if t > deadline:
                return None
            time.sleep(self.poll_s)

    def granularity(self, n=2000):
        """The mean time one poll step takes (a data_version read and a
        sleep), the resolution of the commit times."""
        t0 = now()
        for _ in range(n):
            self._version()
            time.sleep(self.poll_s)
        return (now() - t0) / n


def still_parses(tree, lines, ln, new_line):
    """Whether the top-level definition holding 0-based line ln is still
    valid Python with new_line in place of it."""
    for node in tree.body:
        first = min([node.lineno] +
                [d.lineno for d in getattr(node, "decorator_list", [])])
        if first - 1 <= ln < node.end_lineno:
            src = lines[first - 1:node.end_lineno]
            src[ln - first + 1] = new_line
            try:
                ast.parse("\n".join(src))
                return True
            except SyntaxError:
                return False
    return True


def make_edits(text, n, rng):
    """n single-character edits, insertion then deletion at the same
    place; each is (line, col, inserted char or None, line after,
    whether the insertion leaves valid Python)."""
    tree = ast.parse(text)
    lines = text.split("\n")
    pos = body_lines(tree, lines)
    edits = []
    for _ in range(n // 2):
        ln, indent = rng.choice(pos)
        s = lines[ln]
        col = rng.randint(indent, len(s))
        ch = rng.choice(EDIT_CHARS)
        after = s[:col] + ch + s[col:]
        valid = still_parses(tree, lines, ln, after)
        edits.append((ln, col, ch, after, valid))
        edits.append((ln, col, None, s, valid))
    return edits


def change_params(uri, version, edit):
    ln, col, ch = edit[:3]
    start = {"line": ln, "character": col}
    end = {"line": ln, "character": col + (0 if ch else 1)}
    return {"textDocument": {"uri": uri, "version": version},
        "contentChanges": [{"range": {"start": start, "end": end},
                    "text": ch or ""}]}


def phase_keystrokes(args, work, stdlib, rng):
    root = os.path.join(work, "keystroke")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    text = make_keystroke_file(stdlib, args.lines, rng)
    rel = "generated.py"
    path = os.path.join(root, rel)
    with open(path, "w") as f:
        f.write(text)
    db = os.path.join(work, "keystroke.db")
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(db + suffix):
            os.unlink(db + suffix)
    srv = start_server(args.castls, db, [root], {},
                       os.path.join(work, "keystroke.log"),
                       os.path.join(work, "cache"))
    srv.notify("initialized", {})
    wait_indexed(srv)
    uri = path_to_uri(path)
    srv.did_open(uri, text)
    srv.drain(0.5)
    watch = RowWatch(db, rel, args.poll_us / 1e6)
    grain = watch.granularity()
    version = 1
    lines = text.split("\n")

    def settle():
        # Both the didOpen write and the one after the initial scan.
        srv.drain(0.3)
        watch.version = watch._version()

    settle()
    for ln in (0, len(lines) // 2):
        if not watch.line_is(ln, lines[ln]):
            raise ServerError("the buffer's rows are not in %s" % db)
    out = {"commit": [], "commit_ok": [], "commit_err": [], "loop": [],
           "loop_ok": [], "loop_err": [], "loop_base": [], "chunks": [],
           "chunks_base": [], "lost": 0}
    for _ in range(args.runs):
        edits = make_edits(text, args.edits, rng)
        run = {k: [] for k in out if k != "lost"}
        for kind in ("commit", "loop", "chunks"):
            for e in edits:
                version += 1
                change = {"jsonrpc": "2.0",
                      "method": "textDocument/didChange",
                      "params": change_params(uri, version, e)}
                if kind == "commit":
                    t0 = now()
                    srv.send(change)
                elif kind == "loop":
                    rid, req = srv.request_message(UNKNOWN_METHOD, {})
                    t0 = now()
                    srv.send(change, req)
                    _, t1 = srv.wait(rid)
                    run["loop"].append(t1 - t0)
                    run["loop_ok" if e[4] else
                        "loop_err"].append(t1 - t0)
                else:
                    rid, req = srv.request_message(
                        "castls/chunks",
                        {"textDocument": {"uri": uri}})
                    t0 = now()
                    srv.send(change, req)
                    _, t1 = srv.wait(rid)
                    run["chunks"].append(t1 - t0)
                t1 = watch.wait(e[0], e[3])
                if t1 is None:
                    out["lost"] += 1
                elif kind == "commit":
                    run["commit"].append(t1 - t0)
                    run["commit_ok" if e[4] else
                        "commit_err"].append(t1 - t0)
                # An idle gap, as between keystrokes.
                srv.pump(args.gap_ms / 1e3)
            if kind == "loop":
                for _ in edits[:len(edits) // 2]:
                    _, dt = srv.timed(UNKNOWN_METHOD, {})
                    run["loop_base"].append(dt)
            elif kind == "chunks":
                for _ in edits[:len(edits) // 4]:
                    _, dt = srv.timed("castls/chunks",
                                      {"textDocument": {"uri": uri}})
                    run["chunks_base"].append(dt)
        for k, v in run.items():
            out[k].append(v)
    nchunks = len(srv.request("castls/chunks", {"textDocument": {
        "uri": uri}})["chunks"])
    srv.close(timeout=60)
    out.update({"grain": grain, "lines": len(lines) - 1,
            "bytes": len(text), "chunks_in_file": nchunks})
    return out


# ---------------------------------------------------------------------- #
# Report
# ---------------------------------------------------------------------- #

def over_runs(runs, p, scale=1e3):
    """Median over runs of each run's p-th percentile."""
    return statistics.median(pct(r, p) * scale for r in runs)


def goal(value, limit):
    return "met" if value < limit else "MISSED"


def report(args, cold, ctx, keys):
    print("castls LSP benchmark: %s; percentiles are nearest-rank, "
          "medians over %d runs where repeated; load average at the "
          "end %.2f on %d CPUs" % (args.castls, args.runs,
                    os.getloadavg()[0], os.cpu_count()))
    if keys:
        k = keys
        n = len(k["commit"][0]) if k["commit"] else 0
        c50, c99 = over_runs(k["commit"], 50), over_runs(k["commit"], 99)
        print("\nkeystrokes: %d-line file (%d bytes, %d chunks), %d "
              "single-character edits per run, %d ms apart"
              % (k["lines"], k["bytes"], k["chunks_in_file"], n,
             args.gap_ms))
        print("  didChange -> rows committed  p50 %6.2f ms  p99 %6.2f ms"
              "  (goal p99 < %g ms: %s; poll step %.3f ms)"
              % (c50, c99, GOAL_KEYSTROKE_P99_MS,
             goal(c99, GOAL_KEYSTROKE_P99_MS), ms(k["grain"])))
        for key, what in (("commit_ok", "still valid Python"),
                  ("commit_err", "a syntax error")):
            print("    pairs leaving %-18s  n %4d  p50 %6.2f ms  "
                  "p99 %6.2f ms" % (what, len(k[key][0]),
                        over_runs(k[key], 50),
                        over_runs(k[key], 99)))
        print("  didChange + unknown method  p50 %6.2f ms  p99 %6.2f ms"
              "  (alone: p50 %.2f, p99 %.2f: loop busy ~%.2f ms)"
              % (over_runs(k["loop"], 50), over_runs(k["loop"], 99),
             over_runs(k["loop_base"], 50),
             over_runs(k["loop_base"], 99),
             over_runs(k["loop"], 50) -
             over_runs(k["loop_base"], 50)))
        for key, what in (("loop_ok", "still valid Python"),
                  ("loop_err", "a syntax error")):
            print("    pairs leaving %-18s  n %4d  p50 %6.2f ms  "
                  "p99 %6.2f ms" % (what, len(k[key][0]),
                        over_runs(k[key], 50),
                        over_runs(k[key], 99)))
        print("  didChange + castls/chunks   p50 %6.2f ms  p99 %6.2f ms"
              "  (alone: p50 %.2f, p99 %.2f)"
              % (over_runs(k["chunks"], 50), over_runs(k["chunks"], 99),
             over_runs(k["chunks_base"], 50),
             over_runs(k["chunks_base"], 99)))
        if k["lost"]:
            print("  %d edits never showed up in the database"
                  % k["lost"])
    if ctx:
        rtt = [r for r, _ in ctx["runs"]]
        srv = [s for _, s in ctx["runs"]]
        r99 = over_runs(rtt, 99)
        print("\ncontext: %d positions in %d open stdlib files, %d runs"
              " (%.1f empty answers per run)"
              % (ctx["n"], len(ctx["files"]), len(rtt), ctx["empty"]))
        print("  round trip   p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms"
              "  (goal p99 < %g ms: %s)"
              % (over_runs(rtt, 50), r99, over_runs(rtt, 100),
             GOAL_CONTEXT_P99_MS, goal(r99, GOAL_CONTEXT_P99_MS)))
        print("  elapsedMs    p50 %6.2f ms  p99 %6.2f ms  max %6.2f ms"
              % (over_runs(srv, 50, 1), over_runs(srv, 99, 1),
             over_runs(srv, 100, 1)))
        print("  per run p99 (round trip): %s"
              % ", ".join("%.2f" % (pct(r, 99) * 1e3) for r in rtt))
    if cold:
        st = cold["status"]
        print("\ncold index of %s: %.1f s, %s files, %s chunks, "
              "database %.1f MiB"
              % (args.stdlib, cold["index_s"], st.get("files"),
             st.get("chunks"),
             (st.get("roots") or [{}])[0].get("databaseBytes", 0) /
             2 ** 20))
        print("  a probe every %d ms while indexing (reply time; idle "
              "baseline after indexing):" % args.probe_ms)
        worst = 0.0
        for kind in PROBES:
            d, i = cold["during"][kind], cold["idle"][kind]
            if kind in CHEAP:
                worst = max(worst, ms(max(d)) if d else 0)
            print("  %-15s n %4d  p50 %6.2f  p99 %7.2f  max %7.2f ms"
                  "   idle p50 %5.2f  p99 %5.2f ms"
                  % (kind, len(d), ms(pct(d, 50)), ms(pct(d, 99)),
                 ms(max(d)) if d else float("nan"),
                 ms(pct(i, 50)), ms(pct(i, 99))))
        print("  longest wait of a cheap request (%s): %.2f ms "
              "(goal < %g ms: %s)"
              % (", ".join(CHEAP), worst, GOAL_INDEXING_WAIT_MS,
             goal(worst, GOAL_INDEXING_WAIT_MS)))
    if ctx or cold:
        print("\nmemory (MiB):")
        if ctx:
            print("  indexed stdlib, %d files open: VmRSS %.1f  VmHWM "
                  "%.1f  (before opening them: VmRSS %.1f)"
                  % (OPEN_FILES, ctx["mem"]["VmRSS"],
                 ctx["mem"]["VmHWM"], ctx["mem_empty"]["VmRSS"]))
        if cold:
            print("  cold-index server at the end of indexing: VmRSS "
                  "%.1f  VmHWM %.1f"
                  % (cold["mem"]["VmRSS"], cold["mem"]["VmHWM"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--castls", required=True, help="a Release castls")
    ap.add_argument("--stdlib", help="the Python standard library "
            "(default: this python3's)")
    ap.add_argument("--work", help="scratch directory (default: a "
            "temporary one, removed afterwards)")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--edits", type=int, default=300,
            help="single-character edits per run and kind")
    ap.add_argument("--lines", type=int, default=5000)
    ap.add_argument("--gap-ms", type=int, default=20,
            help="idle time between two edits")
    ap.add_argument("--contexts", type=int, default=300)
    ap.add_argument("--probe-ms", type=int, default=20)
    ap.add_argument("--baseline-probes", type=int, default=50,
            help="idle probes of each kind after indexing")
    ap.add_argument("--poll-us", type=int, default=50)
    ap.add_argument("--seed", type=int, default=4)
    ap.add_argument("--only", choices=("keystrokes", "context", "cold"),
            action="append", help="run only these phases (context "
            "needs the database cold leaves in --work)")
    ap.add_argument("--json", help="also write the raw samples here")
    args = ap.parse_args()
    # Old escapes in stdlib sources are not our business.
    warnings.simplefilter("ignore", SyntaxWarning)
    if not args.stdlib:
        import sysconfig
        args.stdlib = sysconfig.get_paths()["stdlib"]
    stdlib = os.path.realpath(args.stdlib)
    args.castls = os.path.abspath(args.castls)
    if not os.access(args.castls, os.X_OK):
        sys.exit("bench_lsp: %s is not executable" % args.castls)
    phases = args.only or ["keystrokes", "context", "cold"]
    work = args.work or tempfile.mkdtemp(prefix="castls-bench-lsp-")
    os.makedirs(work, exist_ok=True)
    small = os.path.join(stdlib, "bisect.py")
    cold = ctx = keys = None
    try:
        if "keystrokes" in phases:
            keys = phase_keystrokes(args, work, stdlib,
                        random.Random(args.seed))
        if "cold" in phases:
            cold = phase_cold(args, work, stdlib, small)
        if "context" in phases:
            ctx = phase_context(args, work, stdlib,
                        os.path.join(work, "stdlib.db"),
                        random.Random(args.seed + 1))
        report(args, cold, ctx, keys)
        if args.json:
            with open(args.json, "w") as f:
                json.dump({"cold": cold, "context": ctx,
                       "keystrokes": keys}, f)
    except (ServerError, ServerGone, LspError, TimeoutError) as e:
        sys.exit("bench_lsp: %s (logs in %s)" % (e, work))
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
