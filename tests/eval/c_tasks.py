"""Builds a C or C++ task set from a project directory.

A task is a function body (in a .c file for C; in any source or header
for C++, whose libraries are often headers only) that uses definitions
from other files of the project; the body is blanked (line count kept)
and the gold is the project's definitions the body uses, in the RepoEval
format, found lexically (lex.py), never by castls.

What a file sees is itself and the closure of the project headers it
includes: `#include "x.h"` relative to the file, then to the include
directories (include/, the project root, src/), `#include <x.h>` to those
directories only. Preprocessor conditionals keep their first branch (the
`#else` branch of `#if 0`): the stubs of `#else` branches, like code the
configuration leaves out, are neither read nor gold. A name the body uses
resolves to:

  same-file   a definition in the file itself;
  definition  a function the file or its headers declare and a source
              file of the project defines (not static): that definition,
              the body the writer needs;
  include     else its definition in the headers: a macro, a struct,
              union, enum or class (an enumerator gives its enum), a
              typedef or alias, an inline function, a variable, or the
              declaration itself when no source defines it;
  member      (C++) a member of the class being written (for `A::f`
              defined out of class, A's), or `A::name`: the member
              defined in the class or out of it.

C's tags (`struct foo`) are looked up apart from its ordinary names.
Members reached through `.` and `->` are not resolved. Of several
definitions of one name the first in include order wins.
"""

import os
import re

import lex

MAX_PER_PROJECT = 100
SOURCE_EXTS = (".c", ".cc", ".cpp", ".cxx", ".c++")
HEADER_EXTS = (".h", ".hh", ".hpp", ".hxx", ".h++", ".ipp", ".inl", ".tcc")
INCLUDE_DIRS = ("include", "", "src")
C_KEYWORDS = set("""auto break case char const continue default do double
else enum extern float for goto if inline int long register restrict
return short signed sizeof static struct switch typedef union unsigned
void volatile while _Bool _Complex _Atomic _Static_assert _Alignof
_Alignas _Generic _Noreturn _Thread_local typeof __typeof__ asm __asm__
__attribute__ __attribute __inline __inline__ __restrict __volatile__
bool true false NULL""".split())
CPP_KEYWORDS = C_KEYWORDS | set("""alignas alignof and and_eq bitand bitor
catch char8_t char16_t char32_t class compl concept consteval constexpr
constinit const_cast co_await co_return co_yield decltype delete
dynamic_cast explicit export final friend mutable namespace new noexcept
not not_eq nullptr operator or or_eq override private protected public
reinterpret_cast requires static_assert static_cast template this
thread_local throw try typeid typename using virtual wchar_t xor xor_eq
std""".split())
_TAGS = ("struct", "union", "enum", "class")
_AFTER_PARAMS = ("const", "noexcept", "override", "final", "volatile",
                 "throw", "mutable", "&", "&&", "__attribute__", "requires",
                 "try", "__acquires", "__releases", "__must_hold")


class Def(dict):
    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


def _directives(text, masked):
    """[(first line, last line, text)] of preprocessor directives: lines
    whose first character (after blanks) is "#", with their "\\"
    continuations."""
    lines = masked.split("\n")
    raw = text.split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].lstrip().startswith("#"):
            j = i
            while j + 1 < len(raw) and raw[j].rstrip("\r").endswith("\\"):
                j += 1
            out.append((i, j, " ".join(lines[k].rstrip("\\\r")
                                       for k in range(i, j + 1))))
            i = j + 1
        else:
            i += 1
    return out


class File:
    def __init__(self, rel, text, lang):
        self.rel = rel
        self.text = text
        self.lang = lang
        self.kw = CPP_KEYWORDS if lang == "cpp" else C_KEYWORDS
        masked = lex.mask(text, lang)
        self.includes = []  # (quoted, path)
        self.defs = []
        self.funcs = []  # (Def, body index, class qualified name or None)
        lines = masked.split("\n")
        # (first line after a directive, whether code is live from there)
        changes = []
        stack = []  # per group: [taking now, some branch taken]
        for a, b, d in _directives(text, masked):
            m = re.match(r"\s*#\s*(\w+)\s*(.*)", d)
            word, rest = (m.group(1), m.group(2).strip()) if m else ("", "")
            live = all(s[0] for s in stack)
            if word in ("if", "ifdef", "ifndef"):
                take = not (word == "if" and re.fullmatch(r"0+", rest))
                stack.append([take, take])
            elif word == "elif" and stack:
                take = not stack[-1][1] and not re.fullmatch(r"0+", rest)
                stack[-1] = [take, stack[-1][1] or take]
            elif word == "else" and stack:
                stack[-1] = [not stack[-1][1], True]
            elif word == "endif" and stack:
                stack.pop()
            elif live and word == "include":
                im = re.search(r'#\s*include\s*(?:"([^"]+)"|<([^>]+)>)',
                               text.split("\n")[a])
                if im:
                    self.includes.append((im.group(1) is not None,
                                          im.group(1) or im.group(2)))
            elif live and word == "define":
                dm = re.match(r"([A-Za-z_]\w*)", rest)
                if dm:
                    self.defs.append(Def(
                        file=rel, start=a, end=b, kind="macro",
                        name=dm.group(1), qual=dm.group(1), scope="ns",
                        tag=False))
            for k in range(a, b + 1):
                lines[k] = " " * len(lines[k])
            changes.append((b + 1, all(s[0] for s in stack)))
        live, c = True, 0
        for k in range(len(lines)):
            while c < len(changes) and changes[c][0] <= k:
                live = changes[c][1]
                c += 1
            if not live:
                lines[k] = " " * len(lines[k])
        self.toks = lex.Tokens("\n".join(lines))
        self._own = None
        self._scope(0, self.toks.n, (), None)

    # ---- declarations ------------------------------------------------

    def _add(self, name, qual, kind, start, end, scope, **kw):
        t = self.toks
        d = Def(file=self.rel, start=t.line[start],
                end=t.line[min(end, t.n - 1)], kind=kind, name=name,
                qual="::".join(qual), scope=scope, tag=False)
        d.update(kw)
        self.defs.append(d)
        return d

    def _scope(self, a, b, ns, cls):
        """Reads the declarations of tokens a..b (exclusive): a file or
        namespace (ns, a tuple of names) or a class body (cls, its
        qualified name as a tuple)."""
        t = self.toks
        cpp = self.lang == "cpp"
        i = a
        while i < b:
            s = t.text[i]
            if s in (";", "}", ")", "]"):
                i += 1
                continue
            if cpp and s == "namespace":
                j = i + 1
                names = []
                while t.is_id(j) or t.at(j) == "::":
                    if t.is_id(j) and t.text[j] != "inline":
                        names.append(t.text[j])
                    j += 1
                if t.at(j) == "{":
                    self._scope(j + 1, t.close(j), ns + tuple(names), None)
                    i = t.close(j) + 1
                else:
                    i = self._to_semi(j, b) + 1
                continue
            if s == "extern" and t.at(i + 1).startswith('"') and \
                    t.at(i + 2) == "{":
                self._scope(i + 3, t.close(i + 2), ns, cls)
                i = t.close(i + 2) + 1
                continue
            if cpp and s in ("public", "private", "protected") and \
                    t.at(i + 1) == ":":
                i += 2
                continue
            i = self._declaration(i, b, ns, cls)

    def _to_semi(self, j, b):
        t = self.toks
        while j < b and t.text[j] != ";":
            if t.text[j] in lex.OPEN:
                j = t.close(j)
            j += 1
        return j

    def _declaration(self, start, b, ns, cls):
        """One declaration or definition from start; returns the index
        past it."""
        t = self.toks
        cpp = self.lang == "cpp"
        scope = "member" if cls else "ns"
        owner = cls or ns
        i = start
        while cpp and t.at(i) == "template":
            i += 1
            if t.at(i) == "<":
                i = t.skip_angle(i)
        if t.at(i) in ("static_assert", "_Static_assert"):
            return self._to_semi(i, b) + 1
        if cpp and t.at(i) == "using":
            if t.is_id(i + 1) and t.at(i + 2) == "=":
                end = self._to_semi(i, b)
                self._add(t.text[i + 1], owner + (t.text[i + 1],), "type",
                          start, end, scope)
                return end + 1
            return self._to_semi(i, b) + 1
        if cpp and t.at(i) == "friend":
            i += 1
        typedef = t.at(i) == "typedef"
        if typedef:
            i += 1
        while t.at(i) in ("static", "extern", "inline", "const", "volatile",
                          "constexpr", "virtual", "explicit", "__inline",
                          "__inline__", "register", "_Noreturn", "mutable",
                          "__always_inline", "noinline"):
            i += 1
        static = "static" in t.text[start:i]
        if t.at(i) in _TAGS:
            j = self._tag(start, i, b, owner, scope, typedef)
            if j is not None:
                return j
        # Up to the first ";" or "{" at depth 0; note the first "(" that
        # follows a name (the parameters) and any "=".
        j = i
        paren = None
        eq = None
        while j < b and t.text[j] not in (";", "{"):
            s = t.text[j]
            if s == "(":
                if paren is None and eq is None and j > i and (
                        t.is_id(j - 1) or t.at(j - 2) == "operator" or
                        t.at(j - 1) == ">") and \
                        t.at(j - 1) not in ("__attribute__", "alignas",
                                            "__declspec", "decltype",
                                            "__typeof__", "typeof"):
                    paren = j
                j = t.close(j) + 1
                continue
            if s == "[":
                j = t.close(j) + 1
                continue
            if s == "=" and eq is None:
                eq = j
            if s == ":" and cls and eq is None and paren is None:
                eq = j  # a bit-field
            j += 1
        if j >= b:
            return b
        if t.text[j] == "{" and paren is not None and eq is None:
            return self._function(start, i, paren, b, owner, cls, static,
                                  typedef)
        if t.text[j] == "{":  # an initializer: int a[] = {...};
            end = self._to_semi(j, b)
            self._variable(start, i, eq if eq is not None else j, end,
                           owner, scope, typedef)
            return end + 1
        # j is ";": a prototype, a variable or a typedef.
        if typedef:
            name = self._typedef_name(i, j)
            if name:
                self._add(name, owner + (name,), "type", start, j, scope)
        elif paren is not None and (eq is None or eq > paren):
            name, qual = self._name_before(paren, i)
            if name and t.at(paren + 1) != "*" and \
                    not (t.at(paren + 1) == "^"):
                self._add(name, owner + qual, "proto", start, j, scope,
                          static=static)
        else:
            self._variable(start, i, eq if eq is not None else j, j, owner,
                           scope, False)
        return j + 1

    def _tag(self, start, i, b, owner, scope, typedef):
        """struct/union/enum/class at i. Returns the index past the
        declaration when it was a definition or forward declaration, or
        None when the tag only names a type of what follows."""
        t = self.toks
        cpp = self.lang == "cpp"
        kind = t.text[i]
        j = i + 1
        if kind == "enum" and t.at(j) in ("class", "struct"):
            j += 1
        while t.at(j) in ("__attribute__", "alignas", "__aligned",
                          "__packed", "__randomize_layout") or \
                t.at(j) == "[":
            j += 1
            if t.at(j) == "(" or t.at(j) == "[":
                j = t.close(j) + 1
        name = None
        if t.is_id(j) and t.text[j] not in ("final",):
            name = t.text[j]
            j += 1
            while t.at(j) == "::" and t.is_id(j + 1):
                name = t.text[j + 1]
                j += 2
            if t.at(j) == "<":
                j = t.skip_angle(j)
        if t.at(j) == "final":
            j += 1
        if t.at(j) == ":":  # bases, or an enum's underlying type
            while j < b and t.text[j] not in ("{", ";"):
                if t.text[j] == "<":
                    j = t.skip_angle(j)
                    continue
                if t.text[j] in ("(", "["):
                    j = t.close(j)
                j += 1
        if t.at(j) == ";" and name:
            return j + 1  # a forward declaration
        if t.at(j) != "{":
            return None
        close = t.close(j)
        end = self._to_semi(close + 1, b)
        last = close if not typedef else end
        if name:
            d = self._add(name, owner + (name,), "type", start, last,
                          "ns" if scope == "ns" else "member")
            d["tag"] = not cpp
            d["kind2"] = kind
        if kind == "enum":
            self._enumerators(j, close, start, last, owner, scope)
        elif cpp and kind != "enum" and name:
            self._scope(j + 1, close, (), owner + (name,))
        if typedef:
            tn = self._typedef_name(close + 1, end)
            if tn:
                self._add(tn, owner + (tn,), "type", start, end, scope)
        elif t.is_id(close + 1) or t.at(close + 1) == "*":
            self._variable(start, close + 1, end, end, owner, scope, False)
        return end + 1

    def _enumerators(self, a, b, start, last, owner, scope):
        t = self.toks
        i = a + 1
        while i < b:
            if t.is_id(i) and t.at(i - 1) in ("{", ","):
                self._add(t.text[i], owner + (t.text[i],), "enumerator",
                          start, last, scope)
            if t.text[i] in lex.OPEN:
                i = t.close(i)
            i += 1

    def _typedef_name(self, a, b):
        """The name a typedef from token a to b (exclusive) declares:
        `(*name)(...)`, else the last name before arrays and parameters."""
        t = self.toks
        for j in range(a, b):
            if t.text[j] == "(" and t.at(j + 1) in ("*", "^", "&") and \
                    t.is_id(j + 2):
                return t.text[j + 2]
        j = b - 1
        while j >= a and t.text[j] in ("]", ")"):
            o = t.match.get(j)
            if o is None or o >= j:
                break
            j = o - 1
        return t.text[j] if j >= a and t.is_id(j) else None

    def own(self):
        """{(name, tag): [Def]} of the file's namespace-scope names."""
        if self._own is None:
            self._own = {}
            for x in self.defs:
                if x["scope"] == "ns" or x["kind"] == "macro":
                    self._own.setdefault((x["name"], x["tag"]),
                                         []).append(x)
        return self._own

    def _variable(self, start, i, stop, end, owner, scope, typedef):
        """The (first) name declared before token stop."""
        t = self.toks
        j = stop - 1
        while j > i and t.text[j] == "]":
            o = t.match.get(j)
            j = o - 1 if o is not None and o < j else j - 1
        if j >= i and t.is_id(j) and t.text[j] not in self.kw and \
                j > i:
            name = t.text[j]
            self._add(name, owner + (name,), "type" if typedef else "var",
                      start, end, scope)

    def _name_before(self, paren, i):
        """(name, qualifier tuple) of the function whose parameters open at
        paren: `A::B::f`, `~A`, `operator==`, templates' `<...>` too."""
        t = self.toks
        j = paren - 1
        if t.at(j - 1) == "operator" or (t.at(j) == ")" and
                                         t.at(j - 2) == "operator"):
            return None, ()
        if t.at(j) == ">":
            depth = 0
            while j > i:
                depth += {">": 1, ">>": 2, "<": -1}.get(t.text[j], 0)
                if depth <= 0:
                    break
                j -= 1
            j -= 1
        if not t.is_id(j) or t.text[j] in self.kw:
            return None, ()
        name = t.text[j]
        if t.at(j - 1) == "~":
            name = "~" + name
            j -= 1
        quals = [name]
        while t.at(j - 1) == "::":
            k = j - 2
            if t.at(k) == ">":
                depth = 0
                while k > i:
                    depth += {">": 1, ">>": 2, "<": -1}.get(t.text[k], 0)
                    if depth <= 0:
                        break
                    k -= 1
                k -= 1
            if not t.is_id(k):
                break
            quals.insert(0, t.text[k])
            j = k
        if j == i and len(quals) == 1 and not name.startswith("~"):
            # No type before the name: a macro call (EXPORT_SYMBOL(x);)
            # or a constructor; only C++ has the latter.
            if self.lang != "cpp":
                return None, ()
        return name, tuple(quals)

    def _function(self, start, i, paren, b, owner, cls, static, typedef):
        t = self.toks
        name, qual = self._name_before(paren, i)
        k = t.close(paren) + 1
        while k < b and t.text[k] != "{":
            s = t.text[k]
            if s in ("(", "["):
                k = t.close(k) + 1
                continue
            if s == ":":  # a constructor's initializers
                k += 1
                while k < b:
                    while k < b and t.text[k] not in ("(", "{"):
                        k += 1
                    k = t.close(k) + 1
                    if t.at(k) == ",":
                        k += 1
                        continue
                    if t.at(k) == "...":
                        k += 1
                    break
                continue
            if s == "=" or s == ";":
                return self._to_semi(k, b) + 1
            k += 1
        if t.at(k) != "{":
            return k + 1
        body = k
        end = t.close(body)
        if name is None or typedef:
            return end + 1
        full = (cls or owner) + qual
        d = self._add(name, full, "func", start, end,
                      "member" if cls or len(qual) > 1 else "ns",
                      static=static)
        klass = cls if cls else (owner + qual[:-1] if len(qual) > 1
                                 else None)
        self.funcs.append((d, body, klass, paren))
        return end + 1


class Project:
    def __init__(self, root, lang):
        self.root = root
        self.lang = lang
        self.files = {}
        exts = (".c", ".h") if lang == "c" else SOURCE_EXTS + HEADER_EXTS
        for rel in lex.walk(root, exts):
            text = lex.read(os.path.join(root, rel))
            if lex.is_generated(rel, text):
                continue
            self.files[rel] = File(rel, text, lang)
        self.dirs = [d for d in INCLUDE_DIRS
                     if os.path.isdir(os.path.join(root, d))]
        # Definitions by name over the sources (a function a header
        # declares is looked for there) and over everything by qualified
        # name (C++: A::f defined out of class).
        self.source_funcs = {}
        self.by_qual = {}
        self.by_name = {}
        for rel, f in self.files.items():
            source = rel.endswith(SOURCE_EXTS)
            for d in f.defs:
                if d["kind"] == "func" and source and not d.get("static"):
                    self.source_funcs.setdefault(d["name"], []).append(d)
                if d["kind"] in ("func", "type", "proto", "var",
                                 "enumerator"):
                    self.by_qual.setdefault(d["qual"], []).append(d)
                    self.by_name.setdefault(d["name"], []).append(d)
        self._closure = {}
        self._names = {}

    def texts(self):
        return {rel: f.text for rel, f in self.files.items()}

    def resolve_include(self, rel, quoted, path):
        cands = []
        if quoted:
            cands.append(os.path.join(os.path.dirname(rel), path))
        cands += [os.path.join(d, path) for d in self.dirs]
        for c in cands:
            c = os.path.normpath(c).replace(os.sep, "/")
            if c in self.files:
                return c
        return None

    def closure(self, rel):
        """The project headers rel includes, directly or not, in the
        order a preprocessor first reads them."""
        if rel not in self._closure:
            seen, order = {rel}, []

            def visit(r, depth):
                if depth > 40:
                    return
                for quoted, path in self.files[r].includes:
                    h = self.resolve_include(r, quoted, path)
                    if h and h not in seen:
                        seen.add(h)
                        order.append(h)
                        visit(h, depth + 1)
            visit(rel, 0)
            self._closure[rel] = order
        return self._closure[rel]

    def names(self, rel):
        """{(name, tag): [Def]} visible at namespace scope of rel's
        headers, in include order (rel's own definitions apart)."""
        if rel not in self._names:
            out = {}
            for h in self.closure(rel):
                for d in self.files[h].defs:
                    if d["scope"] == "ns" or d["kind"] == "macro":
                        out.setdefault((d["name"], d["tag"]), []).append(d)
            self._names[rel] = out
        return self._names[rel]

    def definition(self, d):
        """The body of a declared function: a non-static definition of the
        name in a source file (C++: the same qualified name), if there is
        exactly one."""
        if d["kind"] != "proto":
            return None
        found = [x for x in self.source_funcs.get(d["name"], ())
                 if self.lang == "c" or x["qual"] == d["qual"]]
        return found[0] if len(found) == 1 else None


_RANK = {"func": 0, "macro": 1, "type": 1, "enumerator": 1, "var": 2,
         "proto": 3}


def _best(defs):
    """The definition to read among several of one name: a body before a
    declaration, the first in include order among equals."""
    return min(defs, key=lambda d: _RANK.get(d["kind"], 4)) if defs \
        else None


class _Body:
    def __init__(self, p, f, d, klass, paren):
        self.p = p
        self.f = f
        self.t = f.toks
        self.d = d
        self.klass = klass
        self.locals = set()
        self.gold = lex.Gold(f.rel, (d["start"], d["end"]))
        t = self.t
        close = t.close(paren)
        for j in range(paren + 1, close):
            if t.is_id(j) and t.at(j + 1) in (",", ")", "[", "=") and \
                    t.text[j] not in f.kw:
                self.locals.add(t.text[j])

    def scan_locals(self, a, b):
        t = self.t
        kw = self.f.kw
        for j in range(a, b):
            if not t.is_id(j) or t.text[j] in kw or \
                    t.at(j + 1) not in ("=", ";", ",", "[", ")", ":", "{"):
                continue
            k = j - 1
            while t.at(k) in ("*", "&", "&&", "const", "volatile",
                              "restrict", "__restrict"):
                k -= 1
            p = t.at(k)
            if p == ">" or (t.is_id(k) and p not in (
                    "return", "case", "goto", "else", "do", "sizeof",
                    "typeof", "throw", "new", "delete", "co_return",
                    "co_yield", "break", "continue")):
                if p in ("struct", "union", "enum", "class"):
                    continue
                if t.at(j + 1) == ":" and t.at(k) == "case":
                    continue
                self.locals.add(t.text[j])

    def lookup(self, name, tag):
        """(Def, via) of a bare name."""
        if self.klass and not tag:
            m = self.member(self.klass, name)
            if m is not None:
                return m, "member"
        own = self.f.own().get((name, tag))
        if own:
            d = _best(own)
            if d["kind"] == "proto":
                df = self.p.definition(d)
                if df is not None:
                    return df, "definition"
            return d, "same-file"
        ds = self.p.names(self.f.rel).get((name, tag))
        d = _best(ds) if ds else None
        if d is not None and d["kind"] == "proto":
            df = self.p.definition(d)
            if df is not None:
                return df, "definition"
        return d, "include"

    def member(self, klass, name):
        qual = "::".join(klass + (name,))
        ds = self.p.by_qual.get(qual)
        if not ds:
            return None
        return _best(ds)

    def visit(self, a, b):
        t = self.t
        cpp = self.f.lang == "cpp"
        kw = self.f.kw
        i = a
        while i < b:
            s = t.text[i]
            if not t.is_id(i) or s in kw or \
                    t.at(i - 1) in (".", "->", "::", "goto") or \
                    s in self.locals:
                i += 1
                continue
            if t.at(i + 1) == ":" and t.at(i - 1) in (";", "{", "}"):
                i += 1
                continue  # a label
            tag = not cpp and t.at(i - 1) in ("struct", "union", "enum")
            segs, j = [s], i + 1
            while cpp and t.at(j) == "::" and t.is_id(j + 1):
                segs.append(t.text[j + 1])
                j += 2
            if len(segs) > 1:
                self._add("::".join(segs), self._qualified(segs), "member")
            else:
                d, via = self.lookup(s, tag)
                self._add(s, d, via)
            i = j

    def _add(self, name, d, via):
        """Records d, but not a data member of the class being written
        read in its own file (its state is part of the code at hand)."""
        if d is not None and via == "member" and d["kind"] == "var" and \
                d["file"] == self.f.rel:
            return
        self.gold.add(name, d, via)

    def _qualified(self, segs):
        """A::B::name: a definition whose qualified name ends so (the
        class A's member, or a name in namespace A)."""
        tail = "::".join(segs)
        ds = self.p.by_qual.get(tail) or [
            d for d in self.p.by_name.get(segs[-1], ())
            if d["qual"].endswith("::" + tail)]
        return _best(ds)


def candidates(p):
    out = []
    for rel in sorted(p.files):
        if p.lang == "c" and not rel.endswith(".c"):
            continue
        f = p.files[rel]
        for d, body, klass, paren in f.funcs:
            span = lex.body_lines(f.toks, body)
            if not span or not lex.MIN_BODY_LINES <= span[1] - span[0] + 1 \
                    <= lex.MAX_BODY_LINES:
                continue
            u = _Body(p, f, d, klass, paren)
            a, b = body + 1, f.toks.close(body)
            u.scan_locals(a, b)
            u.visit(a, b)
            out.append({"file": rel, "function_name": d["qual"],
                        "gt_span": list(span), "gold": u.gold.items})
    return out


def build_tasks(root, name, cap=MAX_PER_PROJECT, per_file=None, lang="c"):
    """Returns (tasks, {name: root}) for the project in root, lang "c" or
    "cpp" (see lex.select for the choice)."""
    p = Project(root, lang)
    return lex.select(candidates(p), name, root, p.texts(), cap, per_file)
