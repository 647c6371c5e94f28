"""Scoring of one ranked list against the gold definitions of a task.

Follows /work/shared/bench/README.md ("How it is scored"). An item is a
tuple (file, first line, last line), lines 0-based and inclusive, files as
repository-relative paths. A gold definition is a dict with at least
file, start, end (0-based, inclusive) and cross_file.
"""

import math
import os

BUDGET_LINES = 150

# Metric names in the order reports print them.
METRICS = ("recall@5", "recall@10", "ndcg@5", "hit@5", "mrr",
           "recall@budget", "lines@5")


def item_lines(item):
    return item[2] - item[1] + 1


def hits(item, gold):
    """Returns the indices of the gold definitions the item hits: same file
    and intersecting line ranges."""
    f, lo, hi = item
    return [i for i, g in enumerate(gold)
            if g["file"] == f and lo <= g["end"] and g["start"] <= hi]


def _recall_at(items, gold, k):
    got = set()
    for it in items[:k]:
        got.update(hits(it, gold))
    return len(got) / len(gold)


def _ndcg_at(items, gold, k):
    got = set()
    dcg = 0.0
    for r, it in enumerate(items[:k], start=1):
        new = set(hits(it, gold)) - got
        if new:
            dcg += 1.0 / math.log2(r + 1)
            got |= new
    idcg = sum(1.0 / math.log2(r + 1)
               for r in range(1, min(k, len(gold)) + 1))
    return dcg / idcg


def _mrr(items, gold):
    for r, it in enumerate(items, start=1):
        if hits(it, gold):
            return 1.0 / r
    return 0.0


def within_budget(items, budget=BUDGET_LINES):
    """Returns the leading items whose total line count stays within budget:
    the first item that would overflow it ends the list."""
    out, used = [], 0
    for it in items:
        used += item_lines(it)
        if used > budget:
            break
        out.append(it)
    return out


def score_task(items, gold, budget=BUDGET_LINES):
    """Returns {metric: value} for one task, or None when gold is empty
    (such tasks are left out of the means). items are in rank order."""
    if not gold:
        return None
    fit = within_budget(items, budget)
    return {
        "recall@5": _recall_at(items, gold, 5),
        "recall@10": _recall_at(items, gold, 10),
        "ndcg@5": _ndcg_at(items, gold, 5),
        "hit@5": 1.0 if _recall_at(items, gold, 5) > 0 else 0.0,
        "mrr": _mrr(items, gold),
        "recall@budget": _recall_at(fit, gold, len(fit)),
        "lines@5": float(sum(item_lines(it) for it in items[:5])),
    }


def cross_file_gold(gold):
    return [g for g in gold if g.get("cross_file")]


def mean_scores(per_task):
    """Averages per-task score dicts, skipping None (empty gold). Returns
    ({metric: mean}, number of tasks averaged, number skipped)."""
    scored = [s for s in per_task if s is not None]
    skipped = len(per_task) - len(scored)
    if not scored:
        return {m: None for m in METRICS}, 0, skipped
    means = {m: sum(s[m] for s in scored) / len(scored) for m in METRICS}
    return means, len(scored), skipped


def percentile(values, p):
    """Nearest-rank percentile (p in 0..100) of a non-empty list, or None."""
    if not values:
        return None
    v = sorted(values)
    rank = max(1, math.ceil(p / 100.0 * len(v)))
    return v[rank - 1]


# ---- precision of a ranked list (castls' top 5) ------------------------------

# Languages that can use each other's definitions share a family: Python
# with its stubs; TypeScript, TSX and JavaScript together; shell; Markdown;
# Go; Rust; Java; C and C++ together.
FAMILIES = {".py": "python", ".pyi": "python",
            ".ts": "js", ".tsx": "js", ".mts": "js", ".cts": "js",
            ".js": "js", ".jsx": "js", ".mjs": "js", ".cjs": "js",
            ".sh": "shell", ".bash": "shell",
            ".md": "markdown", ".markdown": "markdown",
            ".go": "go", ".rs": "rust", ".java": "java"}
# C and C++ are one family: a ".h" serves both.
FAMILIES.update((e, "c") for e in (".c", ".h", ".cc", ".cpp", ".cxx",
                                   ".c++", ".hh", ".hpp", ".hxx", ".h++",
                                   ".ipp"))
# The same families by LSP language id, for files without a known
# extension (bash completions have none).
LANGUAGE_FAMILIES = {"python": "python", "typescript": "js",
                     "typescriptreact": "js", "javascript": "js",
                     "javascriptreact": "js", "tsx": "js", "bash": "shell",
                     "shellscript": "shell", "sh": "shell",
                     "markdown": "markdown", "go": "go", "rust": "rust",
                     "java": "java", "c": "c", "cpp": "c"}


def language_family(path, language=None):
    """The family of a file by extension, else by its language id, else
    its extension itself (so unknown kinds differ from every family)."""
    ext = os.path.splitext(path)[1].lower()
    if ext in FAMILIES:
        return FAMILIES[ext]
    if language:
        return LANGUAGE_FAMILIES.get(language.lower(), language.lower())
    return ext or "(none)"


def precision_counts(items, meta, current, k=5):
    """Counts over the top k items of one list: n, same_file (from the
    file being edited), other_language (another family than the current
    file's) and duplicate (same file and intersecting lines as, or the
    same non-blank text as, a higher item). meta: per item (language id,
    text), either may be None."""
    top = items[:k]
    meta = list(meta[:k]) + [(None, None)] * (len(top) - len(meta[:k]))
    mine = language_family(current)
    out = {"n": len(top), "same_file": 0, "other_language": 0,
           "duplicate": 0}
    texts = set()
    for i, (it, (language, text)) in enumerate(zip(top, meta)):
        f, lo, hi = it
        if f == current:
            out["same_file"] += 1
        if language_family(f, language) != mine:
            out["other_language"] += 1
        key = text.strip() if text else ""
        if any(g == f and lo <= b and a <= hi for g, a, b in top[:i]) or \
                (key and key in texts):
            out["duplicate"] += 1
        if key:
            texts.add(key)
    return out


def precision_shares(counts):
    """Pools per-task counts: {same_file, other_language, duplicate} as
    shares of all top-k items (None when there are none) and the mean
    number of items in the top k."""
    n = sum(c["n"] for c in counts)
    out = {key: (sum(c[key] for c in counts) / n if n else None)
           for key in ("same_file", "other_language", "duplicate")}
    out["items"] = n / len(counts) if counts else None
    return out
