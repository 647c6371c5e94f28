"""Builds a TypeScript task set from an installed npm package's .ts sources.

A task is a function or method body in file A that uses a name A imports
(relatively) from file B; the body is blanked and the gold is B's
definition of that name, as in the RepoEval set. The scan is lexical, not a
TypeScript parser: a brace matcher that skips strings, template literals
and comments finds the extents, which is exact for the formatted sources
published in packages such as rxjs and zod. Re-exports (`export { x } from`,
`export * from`) are followed a few levels so that imports through an
index.ts still reach the definition. ESM specifiers ("./x.js") resolve to
their TypeScript source (./x.ts), and a namespace import
(`import * as M from "./M.js"`, then `M.name`) gives M's file's `name`.
"""

import os
import re

MAX_TASKS = 200
MAX_PER_FILE = 4
MIN_BODY_LINES = 2
MAX_BODY_LINES = 60
MAX_REEXPORT_DEPTH = 4
SKIP_DIRS = ("node_modules", "__tests__", "test", "tests", "spec", "dist")

_DEF = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?"
    r"(?:async\s+)?(?:function\s*\*?\s*|class\s+|interface\s+|type\s+|"
    r"enum\s+|namespace\s+|(?:const|let|var)\s+)([A-Za-z_$][\w$]*)")
_FUNC = re.compile(
    r"^(?:export\s+)?(?:default\s+)?(?:async\s+)?function\s*\*?\s*"
    r"([A-Za-z_$][\w$]*)\s*[<(]")
_METHOD = re.compile(
    r"^(\s+)(?:(?:public|private|protected|static|async|override|readonly)"
    r"\s+)*([A-Za-z_$][\w$]*)\s*(?:<[^>]*>)?\s*\(")
_IMPORT = re.compile(
    r"^import\s+(?:type\s+)?(?:([A-Za-z_$][\w$]*)\s*,?\s*)?"
    r"(?:\{([^}]*)\}|\*\s+as\s+([A-Za-z_$][\w$]*))?\s*from\s*"
    r"['\"](\.[^'\"]*)['\"]", re.M | re.S)
_REEXPORT = re.compile(
    r"^export\s+(?:type\s+)?(?:\{([^}]*)\}|\*)\s*from\s*['\"](\.[^'\"]*)"
    r"['\"]", re.M | re.S)
_KEYWORDS = {"if", "for", "while", "switch", "catch", "function", "return",
             "constructor", "super", "new", "typeof"}


def _skip_literal(text, i):
    """text[i] opens a string, template or comment; returns the index just
    past it (template substitutions are matched recursively)."""
    c = text[i]
    n = len(text)
    if text.startswith("//", i):
        j = text.find("\n", i)
        return n if j < 0 else j
    if text.startswith("/*", i):
        j = text.find("*/", i + 2)
        return n if j < 0 else j + 2
    i += 1
    while i < n:
        if text[i] == "\\":
            i += 2
            continue
        if text[i] == c:
            return i + 1
        if c == "`" and text.startswith("${", i):
            i = match_brace(text, i + 1) + 1
            continue
        if c != "`" and text[i] == "\n":
            return i
        i += 1
    return n


def match_brace(text, i):
    """text[i] is an opening bracket; returns the index of its match (or
    len(text) when unbalanced)."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack = [pairs[text[i]]]
    i += 1
    n = len(text)
    while i < n:
        c = text[i]
        if c in "'\"`" or text.startswith("//", i) or \
                text.startswith("/*", i):
            i = _skip_literal(text, i)
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return i
        i += 1
    return n


def _line_of(starts, pos):
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= pos:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _line_starts(text):
    out = [0]
    for m in re.finditer("\n", text):
        out.append(m.end())
    return out


def _body_open(text, pos):
    """From pos (start of a function/method header) returns the index of
    the body's "{", or None: past the parameter list, the first "{" at
    depth 0 before any ";"."""
    p = text.find("(", pos)
    if p < 0:
        return None
    i = match_brace(text, p) + 1
    n = len(text)
    while i < n:
        c = text[i]
        if c == "{":
            return i
        if c in ";=" and not text.startswith("=>", i):
            return None
        if c in "([":
            i = match_brace(text, i) + 1
            continue
        if c == "<":
            depth = 1
            i += 1
            while i < n and depth:
                depth += {"<": 1, ">": -1}.get(text[i], 0)
                i += 1
            continue
        i += 1
    return None


def definitions(text):
    """Returns {name: (first line, last line)} for top-level declarations
    (column 0), decorators and the declaration's full extent included."""
    starts = _line_starts(text)
    lines = text.split("\n")
    out = {}
    for ln, line in enumerate(lines):
        m = _DEF.match(line)
        if not m:
            continue
        pos = starts[ln] + m.end()
        end = _decl_end(text, pos)
        first = ln
        while first > 0 and lines[first - 1].startswith("@"):
            first -= 1
        last = _line_of(starts, max(pos, end - 1))
        if m.group(1) in out:  # overloads, then the implementation
            first = out[m.group(1)][0]
        out[m.group(1)] = (first, last)
    return out


def _decl_end(text, pos):
    """End offset (exclusive) of a declaration whose name ends at pos: the
    first ";" or newline at depth 0 after its last balanced block, or the
    close of its first brace block for function/class/interface/enum."""
    n = len(text)
    i = pos
    while i < n:
        c = text[i]
        if c in "'\"`" or text.startswith("//", i) or \
                text.startswith("/*", i):
            i = _skip_literal(text, i)
            continue
        if c in "([{":
            j = match_brace(text, i)
            if c == "{" and _block_ends_decl(text, pos, i):
                return j + 1
            i = j + 1
            continue
        if c == ";":
            return i + 1
        if c == "\n" and i + 1 < n and not text[i + 1].isspace() and \
                text[i + 1] not in ".|&?:)]}>" and \
                not text[i - 1] in "=,(|&:?<>{[":
            return i
        i += 1
    return n


def _block_ends_decl(text, pos, brace):
    head = text[text.rfind("\n", 0, pos) + 1:brace]
    return bool(re.match(r"(?:export\s+)?(?:default\s+)?(?:declare\s+)?"
                         r"(?:abstract\s+)?(?:async\s+)?"
                         r"(?:function|class|interface|enum)\b", head))


# ESM specifiers name the emitted JavaScript; the source beside it has the
# TypeScript extension: "./x.js" is ./x.ts (or .tsx), "./x.mjs" ./x.mts.
_ESM_SOURCES = {".js": (".ts", ".tsx"), ".jsx": (".tsx",), ".mjs": (".mts",),
                ".cjs": (".cts",)}
SOURCE_EXTS = (".ts", ".tsx", ".mts", ".cts")


def _resolve(base_dir, spec, files):
    """The file a relative specifier names: as written plus a TypeScript
    extension, its directory's index, or the source of an ESM specifier."""
    path = os.path.normpath(os.path.join(base_dir, spec))
    stem, ext = os.path.splitext(path)
    cands = [path + ".ts", path + ".tsx", os.path.join(path, "index.ts"),
             os.path.join(path, "index.tsx")]
    cands += [stem + e for e in _ESM_SOURCES.get(ext, ())]
    if ext in SOURCE_EXTS:
        cands.append(path)
    for cand in cands:
        if cand in files:
            return cand
    return None


def _names(clause):
    """Parses "a, b as c, type d" into [(exported, local)]."""
    out = []
    for part in clause.split(","):
        part = re.sub(r"^\s*type\s+", "", part.strip())
        if not part:
            continue
        bits = re.split(r"\s+as\s+", part)
        out.append((bits[0].strip(), bits[-1].strip()))
    return out


class Package:
    def __init__(self, root):
        self.root = root
        self.files = {}
        for dirpath, dirs, names in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
            for name in sorted(names):
                if name.endswith(SOURCE_EXTS) and \
                        not name.endswith((".d.ts", ".d.mts", ".d.cts")) and \
                        ".spec." not in name and ".test." not in name:
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    with open(os.path.join(dirpath, name), encoding="utf-8",
                              errors="replace", newline="") as f:
                        self.files[rel] = f.read()
        self._defs = {}

    def defs(self, rel):
        if rel not in self._defs:
            self._defs[rel] = definitions(self.files[rel])
        return self._defs[rel]

    def find(self, rel, name, depth=0):
        """Follows name exported from rel to its definition: (file, first,
        last) or None."""
        if depth > MAX_REEXPORT_DEPTH:
            return None
        d = self.defs(rel).get(name)
        if d:
            return (rel, d[0], d[1])
        base = os.path.dirname(rel)
        for m in _REEXPORT.finditer(self.files[rel]):
            target = _resolve(base, m.group(2), self.files)
            if not target:
                continue
            if m.group(1) is None:
                hit = self.find(target, name, depth + 1)
            else:
                hit = None
                for exported, local in _names(m.group(1)):
                    if local == name:
                        hit = self.find(target, exported, depth + 1)
            if hit:
                return hit
        return None

    def imports(self, rel):
        """Returns ({local name: (file, first, last)} for relative imports
        of rel that resolve to a definition, {namespace alias: file})."""
        out, spaces = {}, {}
        base = os.path.dirname(rel)
        for m in _IMPORT.finditer(self.files[rel]):
            target = _resolve(base, m.group(4), self.files)
            if not target:
                continue
            if m.group(3):
                spaces[m.group(3)] = target
            pairs = _names(m.group(2) or "")
            if m.group(1):
                pairs.append(("default", m.group(1)))
            for exported, local in pairs:
                hit = self.find(target, exported)
                if hit and hit[0] != rel:
                    out[local] = hit
        return out, spaces

    def used(self, rel, body, imported, spaces):
        """Returns [(name as written, (file, first, last))] for imported
        names and namespace members (ns.name) the body uses."""
        out = []
        for n in sorted(imported):
            if re.search(r"(?<![\w$.])" + re.escape(n) + r"(?![\w$])", body):
                out.append((n, imported[n]))
        for ns in sorted(spaces):
            pat = r"(?<![\w$.])" + re.escape(ns) + r"\.([A-Za-z_$][\w$]*)"
            for member in sorted(set(re.findall(pat, body))):
                hit = self.find(spaces[ns], member)
                if hit and hit[0] != rel:
                    out.append((ns + "." + member, hit))
        return out


def bodies(text):
    """Yields (name, first body line, last body line) for functions and
    methods; body lines exclude the braces' lines."""
    starts = _line_starts(text)
    for ln, line in enumerate(text.split("\n")):
        m = _FUNC.match(line)
        name = m.group(1) if m else None
        if not m:
            m = _METHOD.match(line)
            if not m or m.group(2) in _KEYWORDS or len(m.group(1)) > 8:
                continue
            name = m.group(2)
        pos = starts[ln]
        open_ = _body_open(text, pos)
        if open_ is None:
            continue
        close = match_brace(text, open_)
        a = _line_of(starts, open_) + 1
        b = _line_of(starts, close) - 1
        if _line_of(starts, open_) - ln > 6 or close >= len(text):
            continue
        if MIN_BODY_LINES <= b - a + 1 <= MAX_BODY_LINES:
            yield name, a, b


def spread(n, k):
    """k indices of range(n) evenly spaced, first and last included (all
    of them when k >= n)."""
    if k >= n:
        return list(range(n))
    if k == 1:
        return [0]
    return [round(i * (n - 1) / (k - 1)) for i in range(k)]


def build_tasks(pkg_dir, name=None, max_tasks=MAX_TASKS,
                max_per_file=MAX_PER_FILE, pick="first"):
    """Returns (tasks, {repo name: directory}); tasks carry the fields the
    harness reads (id, repo, file, cursor_line, gt_span, gold, text).

    The set is a function of the package's files and of the arguments
    alone (the task ids are name/N, name defaulting to the directory's),
    so a package's set stays the same when other packages are added:
    files in sorted order, in each at most max_per_file of the bodies that
    use an import, the first ones (pick "first", the rule rxjs's set was
    made with) or evenly spaced over the file ("spread", for files of
    many near-identical functions such as zod's)."""
    pkg = Package(pkg_dir)
    repo = name or os.path.basename(os.path.normpath(pkg_dir))
    tasks = []
    for rel in sorted(pkg.files):
        imported, spaces = pkg.imports(rel)
        if not imported and not spaces:
            continue
        text = pkg.files[rel]
        lines = text.split("\n")
        found = []
        for fname, a, b in bodies(text):
            if pick == "first" and len(found) >= max_per_file:
                break
            body = "\n".join(lines[a:b + 1])
            used = pkg.used(rel, body, imported, spaces)
            if used:
                found.append((fname, a, b, used))
        keep = spread(len(found), max_per_file) if pick == "spread" else \
            range(min(len(found), max_per_file))
        for fname, a, b, used in (found[i] for i in keep):
            if len(tasks) >= max_tasks:
                break
            gold = []
            for n, (f, s, e) in used:
                if not any(g["file"] == f and g["start"] == s for g in gold):
                    gold.append({"name": n, "file": f, "start": s, "end": e,
                                 "cross_file": True, "via": "import"})
            blanked = lines[:a] + [""] * (b - a + 1) + lines[b + 1:]
            tasks.append({
                "id": "%s/%d" % (repo, len(tasks)), "repo": repo,
                "file": rel, "function_name": fname, "cursor_line": a,
                "gt_span": [a, b], "gold": gold,
                "text": "\n".join(blanked)})
        if len(tasks) >= max_tasks:
            break
    return tasks, {repo: os.path.realpath(pkg_dir)}
