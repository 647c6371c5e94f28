#!/usr/bin/env python3
"""tests/bench/bench_index.py BUILD_DIR CORPUS_DIR: the index benchmark.

BUILD_DIR is a Release build (BUILD_DIR/castls; BUILD_DIR/bench_chunk and
BUILD_DIR/bench_search when built). CORPUS_DIR is laid out by
tests/corpus/fetch (python/, ts/, bash/, go/, rust/, java/, c/, cpp/);
when it has no python/, the machine's stdlib is used directly
(site-packages left out).

The corpora are symlinks to directories outside CORPUS_DIR, which a scan
never follows, and the bash completions have neither extension nor
shebang, so each corpus is first staged into a scratch directory: every
file of a supported language is copied, bash files get a ".sh" suffix.
The copies are fresh, so they are in the page cache: "cold" below means
an empty database, not a cold disk.

Reported, per corpus: the cold index (median of BENCH_RUNS runs, default
3) in files/s and MB/s, its peak RSS, the database size over the source
size, and bench_chunk's single-thread raw parse MB/s for comparison
(one pass after each cold run; the share printed is the median of the
runs' ratios, as the machine's speed drifts between runs);
then the same for the whole Linux kernel tree (its C files, extracted
once from linux-source-6.1's tarball into CORPUS_DIR/linux and staged as
hard links; BENCH_KERNEL_RUNS runs, default 1, as one takes about two
minutes and its parse five; BENCH_KERNEL=0 leaves it out); then, on the
python corpus, the warm re-scan of unchanged files (median
of 5) and the latency of BENCH_QUERIES (default 1000) searches built from
real lines of its code, through the CLI (process start-up included) and
in-process (bench_search). BENCH_JOBS (default 2) sets --jobs.

The goals, printed beside the figures as ok or MISSED: a cold index at
least 60% as fast as bare parsing on two cores (twice bench_chunk's
single-thread parse MB/s), peak RSS under 300 MB on every corpus, a
re-scan of the unchanged python corpus under 1 s, and search p99 under
20 ms (in-process when bench_search is built, else through the CLI).
"""
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time

EXTS = {
    "python": (".py", ".pyi"),
    "ts": (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx"),
    "bash": None,  # every regular file, as bash
    "go": (".go",),
    "rust": (".rs",),
    "java": (".java",),
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".cxx", ".c++", ".hpp", ".hh", ".hxx", ".h++",
            ".ipp"),
    "kernel": (".c", ".h"),
}
KERNEL_TAR = "/usr/src/linux-source-6.1.tar.xz"
KERNEL_RUNS = int(os.environ.get("BENCH_KERNEL_RUNS", "1"))
GOAL_COLD_SHARE = 0.60   # of two-core raw parse throughput
GOAL_RESCAN_S = 1.0
GOAL_P99_MS = 20.0
GOAL_RSS_MB = 300.0
# Files larger are left out of both the index and the parse it is set
# against (castls index's default --max-file-size).
MAX_FILE = 1 << 20


def die(msg):
    print("bench_index: " + msg, file=sys.stderr)
    sys.exit(1)


def walk_files(top):
    """Regular files under top, following symlinks, each directory once."""
    seen = set()
    for d, dirs, files in os.walk(top, followlinks=True):
        real = os.path.realpath(d)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        dirs[:] = sorted(x for x in dirs
                         if x not in ("site-packages", "__pycache__"))
        for f in sorted(files):
            p = os.path.join(d, f)
            if os.path.isfile(p):
                yield p, os.path.relpath(p, top)


def kernel_tree(corpus):
    """The whole kernel tree, extracted once into corpus/linux; None when
    its tarball is not installed."""
    top = os.path.join(corpus, "linux")
    stamp = os.path.join(top, ".castls-extracted")
    if os.path.exists(stamp):
        return top
    if not os.path.exists(KERNEL_TAR):
        return None
    print("bench_index: extracting %s into %s" % (KERNEL_TAR, top))
    shutil.rmtree(top, ignore_errors=True)
    os.makedirs(top)
    subprocess.run(["tar", "-xJf", KERNEL_TAR, "-C", top,
                    "--strip-components=1"], check=True)
    open(stamp, "w").close()
    return top


def link_or_copy(src, dst):
    try:
        os.link(src, dst)
    except OSError:  # another file system
        shutil.copyfile(src, dst)


def stage(name, src, dst):
    """Copies the files of corpus `name` from src into dst (the kernel's,
    1.1 GB, as hard links where they can be)."""
    exts = EXTS[name]
    place = link_or_copy if name == "kernel" else shutil.copyfile
    n = 0
    for path, rel in walk_files(src):
        if exts is None:
            if not rel.endswith((".sh", ".bash")):
                rel += ".sh"
        elif not rel.endswith(exts):
            continue
        out = os.path.join(dst, rel)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        place(path, out)
        n += 1
    return n


def run_timed(argv):
    """Runs argv; returns (wall seconds, peak RSS in MB, CPU seconds)."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    secs = time.perf_counter() - t0
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        die("%s failed (%d): %s" % (" ".join(argv), p.returncode, err))
    return secs, ru.ru_maxrss / 1024.0, ru.ru_utime + ru.ru_stime


def rm_db(db):
    for suffix in ("", "-wal", "-shm"):
        try:
            os.unlink(db + suffix)
        except FileNotFoundError:
            pass


def status(castls, root, db):
    out = subprocess.run([castls, "status", root, "--db", db, "--format",
                          "json"], check=True, capture_output=True).stdout
    return json.loads(out)


def raw_parse(build, name, root):
    """bench_chunk's single-thread parse MB/s of root (one pass), or
    None."""
    exe = os.path.join(build, "bench_chunk")
    if not os.access(exe, os.X_OK):
        return None
    argv = [exe, "--runs", "1", "--max-file-size", str(MAX_FILE)]
    if name == "bash":
        argv += ["--lang", "bash"]
    out = subprocess.run(argv + [root], capture_output=True, text=True)
    if out.returncode != 0 or not out.stdout.split():
        return None
    # corpus files MB chunks spans parse all chunk% pass% RSS
    cols = out.stdout.split()
    try:
        return float(cols[5])
    except (IndexError, ValueError):
        return None


def make_queries(root, n, seed=42):
    """n queries, each a real line of Python code under root."""
    ident = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
    lines = []
    for path, _ in walk_files(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                s = line.strip()
                if (12 <= len(s) <= 80 and not s.startswith("#")
                        and len(ident.findall(s)) >= 2):
                    lines.append(s)
    rnd = random.Random(seed)
    return rnd.sample(lines, min(n, len(lines)))


def pct(values, q):
    v = sorted(values)
    i = max(0, min(len(v) - 1, int(q * len(v) + 0.999999) - 1))
    return v[i]


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        sys.exit(2)
    build, corpus = sys.argv[1], sys.argv[2]
    castls = os.path.join(build, "castls")
    if not os.access(castls, os.X_OK):
        die(castls + " is missing: build the release first (make release)")
    runs = int(os.environ.get("BENCH_RUNS", "3"))
    jobs = os.environ.get("BENCH_JOBS", "2")
    nq = int(os.environ.get("BENCH_QUERIES", "1000"))

    sources = {}
    if os.path.isdir(os.path.join(corpus, "python")):
        for name in ("python", "ts", "bash", "go", "rust", "java", "c",
                     "cpp"):
            if os.path.isdir(os.path.join(corpus, name)):
                sources[name] = os.path.join(corpus, name)
    else:
        print("bench_index: no %s/python; using the stdlib" % corpus)
        sources["python"] = sysconfig.get_paths()["stdlib"]
    if os.environ.get("BENCH_KERNEL", "1") != "0":
        tree = kernel_tree(corpus)
        if tree:
            sources["kernel"] = tree
        else:
            print("bench_index: no %s; no kernel row" % KERNEL_TAR)

    work = tempfile.mkdtemp(prefix="castls-bench-index-")
    try:
        report(castls, build, sources, work, runs, jobs, nq)
    finally:
        if not os.environ.get("BENCH_KEEP"):
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("kept", work)


def report(castls, build, sources, work, runs, jobs, nq):
    print("index benchmark: %s, --jobs %s, cold = median of %d runs (the"
          " kernel's: %s) into an empty database (files in the page cache)"
          % (castls, jobs, runs, KERNEL_RUNS))
    # cpus: CPU time over wall time of the cold run; below BENCH_JOBS
    # when the pipeline stalls or the machine is shared.
    print("%-7s %6s %7s %8s %5s %7s %6s %7s %7s %7s %8s" % (
        "corpus", "files", "MB", "cold s", "cpus", "files/s", "MB/s",
        "RSS MB", "db/src", "parse1", "of 2xp"))
    dbs = {}
    for name, src in sources.items():
        root = os.path.join(work, name)
        os.makedirs(root)
        stage(name, src, root)
        db = os.path.join(work, name + ".db")
        times, cpus, parses, rss = [], [], [], 0.0
        for _ in range(KERNEL_RUNS if name == "kernel" else runs):
            rm_db(db)
            secs, peak, cpu = run_timed([castls, "index", root, "--db", db,
                                         "--jobs", jobs, "--quiet",
                                         "--max-file-size", str(MAX_FILE)])
            times.append(secs)
            cpus.append(cpu / secs)
            rss = max(rss, peak)
            # The parse this run is set against, timed right after it:
            # the machine's speed drifts by a third within minutes. The
            # database's writeback is not the parse's.
            os.sync()
            parses.append(raw_parse(build, name, root))
        cold = statistics.median(times)
        st = status(castls, root, db)
        mb = st["sourceBytes"] / 1e6
        shares = [(mb / t) / (2 * p) for t, p in zip(times, parses) if p]
        parse = statistics.median([p for p in parses if p]) if shares \
            else None
        share = statistics.median(shares) if shares else None
        print("%-7s %6d %7.2f %8.2f %5.2f %7.0f %6.2f %7.0f %7.2f %7s %8s" % (
            name, st["files"], mb, cold, statistics.median(cpus),
            st["files"] / cold, mb / cold,
            rss, st["databaseBytes"] / max(1, st["sourceBytes"]),
            "%.2f" % parse if parse else "-",
            "%.0f%%" % (100 * share) if share else "-"))
        dbs[name] = (root, db, share, rss)

    root, db, _, _ = dbs["python"]
    warm = []
    for _ in range(5):
        secs, _, _ = run_timed([castls, "index", root, "--db", db,
                                "--jobs", jobs, "--quiet",
                                "--max-file-size", str(MAX_FILE)])
        warm.append(secs)
    rescan = statistics.median(warm)
    print("warm re-scan of unchanged python: median %.3f s of 5"
          " (min %.3f, max %.3f)" % (rescan, min(warm), max(warm)))

    queries = make_queries(root, nq)
    qfile = os.path.join(work, "queries.txt")
    with open(qfile, "w") as f:
        f.write("\n".join(queries) + "\n")
    lat = []
    for q in queries:
        t0 = time.perf_counter()
        subprocess.run([castls, "search", root, q, "--db", db, "--limit",
                        "10", "--format", "json"], check=True,
                       stdout=subprocess.DEVNULL)
        lat.append((time.perf_counter() - t0) * 1000)
    print("search via CLI (%d queries, process start-up included):"
          " p50 %.2f ms  p90 %.2f ms  p99 %.2f ms  max %.2f ms" % (
              len(lat), pct(lat, 0.5), pct(lat, 0.9), pct(lat, 0.99),
              max(lat)))
    p99_inproc = None
    bs = os.path.join(build, "bench_search")
    if not os.access(bs, os.X_OK):
        subprocess.run(["cmake", "--build", build, "--target",
                        "bench_search"], capture_output=True)
    if os.access(bs, os.X_OK):
        out = subprocess.run([bs, root, db, qfile, "--limit", "10"],
                             check=True, capture_output=True,
                             text=True).stdout.strip()
        print("search in-process (bench_search): " + out)
        m = re.search(r"p99 ([0-9.]+) ms", out)
        p99_inproc = float(m.group(1)) if m else None
    else:
        print("search in-process: bench_search not built"
              " (include tests/bench/bench_index.cmake)")

    print("goals:")
    for name, (_, _, share, rss) in dbs.items():
        if share:
            print("  cold %-6s >= %d%% of two-core parse: %.0f%% %s" % (
                name, 100 * GOAL_COLD_SHARE, 100 * share,
                "ok" if share >= GOAL_COLD_SHARE else "MISSED"))
        print("  peak RSS %-6s < %d MB: %.0f MB %s" % (
            name, GOAL_RSS_MB, rss, "ok" if rss < GOAL_RSS_MB else "MISSED"))
    print("  re-scan < %.0f s: %.3f s %s" % (
        GOAL_RESCAN_S, rescan, "ok" if rescan < GOAL_RESCAN_S else "MISSED"))
    p99 = p99_inproc if p99_inproc is not None else pct(lat, 0.99)
    print("  search p99 < %.0f ms (%s): %.2f ms %s" % (
        GOAL_P99_MS, "in-process" if p99_inproc is not None else "CLI",
        p99, "ok" if p99 < GOAL_P99_MS else "MISSED"))


if __name__ == "__main__":
    main()
