"""Lexical helpers shared by the Go, Rust, Java, C and C++ task generators.

None of them parses its language: each masks comments and literals, splits
what is left into tokens, matches brackets and reads declarations off the
token stream. That is exact for the formatted sources of the projects the
sets are made from (gofmt, rustfmt, the JDK's and the kernel's own style)
and close enough elsewhere; what it cannot see (macros that expand into
definitions, build-tag twins) is left out of the gold rather than guessed.

Also here: the task selection every one of these sets shares (select) and
the blanking of a body (blank).
"""

import bisect
import os
import random
import re

SEED = 18  # issue 18; with the project's name, the seed of its selection
MIN_BODY_LINES = 2
MAX_BODY_LINES = 60
MAX_PER_FILE = 3
MAX_FILE_BYTES = 300000  # larger files are tables, not code to complete

# Where a literal or comment may start, per language. Every pattern is
# tried at each position the combined regex stops at; see mask().
_STARTS = {
    "go": r"//|/\*|\"|'|`",
    "rust": r"//|/\*|\"|'|\bb?r#*\"|\bb'|\bb\"",
    "java": r"//|/\*|\"\"\"|\"|'",
    "c": r"//|/\*|\"|'|\b(?:u8|u|U|L)?\"|\b(?:u8|u|U|L)'",
    "cpp": r"//|/\*|\"|'|\b(?:u8|u|U|L)?R\"|\b(?:u8|u|U|L)?\"|"
           r"\b(?:u8|u|U|L)'|\b\d[\w.']*",
}
_START_RE = {k: re.compile(v) for k, v in _STARTS.items()}


def _blank(text, a, b, quote):
    """text[a:b] as blanks (newlines kept), quoted when quote is set so
    that the tokenizer sees one string token."""
    inner = re.sub(r"[^\n]", " ", text[a:b])
    if quote and b - a >= 2 and "\n" not in text[a] + text[b - 1]:
        inner = '"' + inner[1:-1] + '"'
    return inner


def _string_end(text, i, quote, multiline=False):
    """text[i] is just past an opening quote; returns the index past the
    closing one (backslash escapes honoured)."""
    n = len(text)
    while i < n:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == quote:
            return i + 1
        if c == "\n" and not multiline:
            return i
        i += 1
    return n


def mask(text, lang):
    """Returns text with comments blanked and every string or character
    literal turned into '"' blanks '"', the same length and with every
    newline where it was, so offsets and line numbers still hold. Rust's
    block comments nest; its lifetimes ('a) are left alone."""
    rx = _START_RE[lang]
    out = []
    i = 0
    n = len(text)
    while True:
        m = rx.search(text, i)
        if not m:
            out.append(text[i:])
            break
        s = m.start()
        tok = m.group(0)
        out.append(text[i:s])
        if tok == "//":
            e = text.find("\n", s)
            e = n if e < 0 else e
            out.append(_blank(text, s, e, False))
        elif tok == "/*":
            e = _block_comment_end(text, s, lang == "rust")
            out.append(_blank(text, s, e, False))
        elif tok[0].isdigit():  # C++ digit separators: 1'000
            e = m.end()
            out.append(text[s:e])
        elif tok == '"""':
            e = text.find('"""', s + 3)
            e = n if e < 0 else e + 3
            out.append(_blank(text, s, e, True))
        elif tok == "`":
            e = text.find("`", s + 1)
            e = n if e < 0 else e + 1
            out.append(_blank(text, s, e, True))
        elif lang == "rust" and re.match(r"b?r#*\"", tok):
            hashes = tok.count("#")
            e = text.find('"' + "#" * hashes, m.end())
            e = n if e < 0 else e + 1 + hashes
            out.append(_blank(text, s, e, True))
        elif lang == "cpp" and tok.endswith('R"'):
            d = re.match(r'[^()\\\s]{0,16}\(', text[m.end():])
            if not d:
                e = m.end()
            else:
                delim = ")" + d.group(0)[:-1] + '"'
                e = text.find(delim, m.end())
                e = n if e < 0 else e + len(delim)
            out.append(_blank(text, s, e, True))
        elif tok.endswith("'"):
            if lang == "rust" and _is_lifetime(text, m.end()):
                out.append(tok)
                e = m.end()
            else:
                e = _string_end(text, m.end(), "'")
                out.append(_blank(text, s, e, True))
        else:  # a string, maybe with a prefix
            e = _string_end(text, m.end(), '"', multiline=lang == "rust")
            out.append(_blank(text, s, e, True))
        i = e
    return "".join(out)


def _block_comment_end(text, s, nests):
    if not nests:
        e = text.find("*/", s + 2)
        return len(text) if e < 0 else e + 2
    depth, i = 0, s
    while i < len(text):
        if text.startswith("/*", i):
            depth += 1
            i += 2
        elif text.startswith("*/", i):
            depth -= 1
            i += 2
            if depth == 0:
                return i
        else:
            i += 1
    return len(text)


def _is_lifetime(text, i):
    """text[i - 1] is a quote: a lifetime or label ('a, 'static) rather
    than a character literal ('a', '\\n')."""
    if i >= len(text) or text[i] == "\\":
        return False
    return i + 1 < len(text) and text[i + 1] != "'" and \
        (text[i].isalnum() or text[i] == "_")


# ---- tokens -----------------------------------------------------------

_TOKEN = re.compile(r'"[^"\n]*"|[A-Za-z_$][\w$]*|\d[\w.\']*|::|->|=>|:=|'
                    r'\.\.\.|\.\.|<<=|>>=|<<|<=|>=|==|!=|&&|\|\||\+\+|--|\S')
OPEN = {"(": ")", "[": "]", "{": "}"}
CLOSE = {")": "(", "]": "[", "}": "{"}


class Tokens:
    """The tokens of a masked text: text[i], pos[i] (offset) and line[i]
    (0-based), and match[i] for a bracket, the index of its partner (or
    len when unbalanced). A string literal is one token starting with
    '"'."""

    def __init__(self, masked):
        self.text, self.pos = [], []
        for m in _TOKEN.finditer(masked):
            self.text.append(m.group(0))
            self.pos.append(m.start())
        starts = [0] + [m.end() for m in re.finditer("\n", masked)]
        self.line = [bisect.bisect_right(starts, p) - 1 for p in self.pos]
        self.n = len(self.text)
        self.match = {}
        stack = []
        for i, t in enumerate(self.text):
            if t in OPEN:
                stack.append(i)
            elif t in CLOSE:
                # Unbalanced input (a macro, an #ifdef): close the nearest
                # opener of the same kind, dropping those above it.
                j = len(stack) - 1
                while j >= 0 and self.text[stack[j]] != CLOSE[t]:
                    j -= 1
                if j < 0:
                    continue
                for k in stack[j + 1:]:
                    self.match[k] = self.n
                self.match[stack[j]] = i
                self.match[i] = stack[j]
                del stack[j:]
        for k in stack:
            self.match[k] = self.n

    def close(self, i):
        """The index of the bracket that closes the one at i."""
        return self.match.get(i, self.n)

    def is_id(self, i):
        return 0 <= i < self.n and (self.text[i][0].isalpha() or
                                    self.text[i][0] in "_$")

    def at(self, i):
        return self.text[i] if 0 <= i < self.n else ""

    def skip_angle(self, i):
        """self.text[i] is "<" of a generic argument list; returns the
        index past its ">" (nested lists, ">>" and brackets inside)."""
        depth = 0
        while i < self.n:
            t = self.text[i]
            if t in OPEN:
                i = self.close(i) + 1
                continue
            if t == "<" or t == "<<":
                depth += len(t)
            elif t == ">" or t == ">>":
                depth -= len(t)
                if depth <= 0:
                    return i + 1
            elif t in (";", "{", "}", ")", "]"):
                return i
            i += 1
        return i


def body_lines(toks, open_i):
    """(first, last) 0-based lines strictly inside the braces at open_i,
    or None when the body does not start on a line of its own after "{"
    and end on a line before "}" (then blanking it would cut a line)."""
    close_i = toks.close(open_i)
    if close_i >= toks.n:
        return None
    a, b = toks.line[open_i] + 1, toks.line[close_i] - 1
    if open_i + 1 < close_i and toks.line[open_i + 1] == toks.line[open_i]:
        return None
    if close_i - 1 > open_i and toks.line[close_i - 1] == toks.line[close_i]:
        return None
    if open_i + 1 == close_i:
        return None
    return a, b


# ---- tasks ------------------------------------------------------------

def split_lines(text):
    return text.split("\n")


def blank(text, first, last):
    """text with lines first..last (0-based, inclusive) emptied; a "\\r"
    ending a line stays, so line count and numbers hold."""
    lines = split_lines(text)
    for i in range(first, min(last, len(lines) - 1) + 1):
        lines[i] = "\r" if lines[i].endswith("\r") else ""
    return "\n".join(lines)


def read(path):
    with open(path, encoding="utf-8", errors="replace", newline="") as f:
        return f.read()


def gold_entry(name, d, rel, via):
    """One gold definition in the RepoEval format, d a definition with
    file, start and end."""
    return {"name": name, "file": d["file"], "start": d["start"],
            "end": d["end"], "cross_file": d["file"] != rel, "via": via}


class Gold:
    """The gold list of one body: definitions in first-use order, each
    once, never the function being written (own_file, own span)."""

    def __init__(self, rel, own):
        self.rel = rel
        self.own = own  # (first, last) of the function being written
        self.items = []

    def add(self, name, d, via):
        if d is None:
            return
        if d["file"] == self.rel and d["start"] <= self.own[1] and \
                self.own[0] <= d["end"]:
            return
        for g in self.items:
            if g["file"] == d["file"] and g["start"] == d["start"]:
                return
        self.items.append(gold_entry(name, d, self.rel, via))

    def cross(self):
        return any(g["cross_file"] for g in self.items)


def select(cands, name, root, texts, cap, per_file=None):
    """The task set of one project: cands are candidate tasks (dicts with
    file, function_name, gt_span and gold), only those with cross-file
    gold are kept. Files are visited in an order shuffled with the seed
    (SEED and the project's name), each file's candidates shuffled too,
    at most per_file taken from a file (by default MAX_PER_FILE, or more
    in a project of few files: twice its share of the cap), until cap.
    Returns tasks sorted by file and line, ids NAME/N, text blanked."""
    by_file = {}
    for c in cands:
        if any(g["cross_file"] for g in c["gold"]):
            by_file.setdefault(c["file"], []).append(c)
    files = sorted(by_file)
    if per_file is None:
        per_file = max(MAX_PER_FILE, -(-2 * cap // max(1, len(files))))
    rng = random.Random("%d:%s" % (SEED, name))
    rng.shuffle(files)
    taken = []
    for rel in files:
        cs = sorted(by_file[rel], key=lambda c: c["gt_span"][0])
        rng.shuffle(cs)
        taken += cs[:min(per_file, cap - len(taken))]
        if len(taken) >= cap:
            break
    taken.sort(key=lambda c: (c["file"], c["gt_span"][0]))
    tasks = []
    for i, c in enumerate(taken):
        a, b = c["gt_span"]
        tasks.append({
            "id": "%s/%d" % (name, i), "repo": name, "file": c["file"],
            "function_name": c["function_name"], "cursor_line": a,
            "gt_span": [a, b], "gold": c["gold"],
            "text": blank(texts[c["file"]], a, b)})
    return tasks, {name: os.path.realpath(root)}


def walk(root, exts, skip_dirs=(), skip=None):
    """Relative paths of the files under root ending in exts, sorted,
    directories in skip_dirs (or starting with ".") left out, and files
    for which skip(rel, text) is true."""
    out = []
    for dirpath, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in skip_dirs and
                         not d.startswith("."))
        for n in sorted(names):
            if not n.endswith(exts):
                continue
            full = os.path.join(dirpath, n)
            if os.path.islink(full) or not os.path.isfile(full) or \
                    os.path.getsize(full) > MAX_FILE_BYTES:
                continue
            out.append(os.path.relpath(full, root).replace(os.sep, "/"))
    return out


GENERATED = re.compile(
    r"^// Code generated .*DO NOT EDIT\.\r?$|^// @generated", re.M)


def is_generated(rel, text):
    """Files written by tools, which castls skips too: a *.pb.go or
    *_generated.* name, or a line "// Code generated ... DO NOT EDIT." or
    "// @generated..." in the first 4096 characters."""
    base = os.path.basename(rel)
    if base.endswith(".pb.go") or "_generated." in base:
        return True
    return bool(GENERATED.search(text[:4096]))


def depths(toks):
    """The bracket depth at each token (a closer has its opener's)."""
    out = [0] * toks.n
    d = 0
    for j, s in enumerate(toks.text):
        if s in CLOSE:
            d = max(0, d - 1)
        out[j] = d
        if s in OPEN:
            d += 1
    return out
