"""Builds a Java task set from a source root (directories are packages).

A task is a method or constructor body that uses definitions from other
files of the project; the body is blanked (line count kept) and the gold
is the project's definitions the body uses, in the RepoEval format, found
lexically (lex.py), never by castls. A type name resolves, as javac does,
to a nested type of the class or its outer classes, then a single-type
import (`import a.b.C;`, also of a nested type), a type of the same
package (any file of its directory), then an on-demand import
(`import a.b.*;`). Then:

  import    a type the body names (a declaration, a cast, `C.class`):
            the type's declaration;
  new       `new C(...)`: C's constructor with as many parameters as the
            call has arguments (else its first; the class when it
            declares none);
  static    `C.m(...)`, `C.F`: the member of C (methods matched by
            argument count the same way), or of its project supertypes;
            also names brought by `import static`;
  receiver  `x.m(...)` where x is a parameter, a local or a field of the
            class declared with a project type: that type's member (or
            its supertypes');
  class     `m(...)`, `this.m(...)`, a bare field: the member of the
            class, its supertypes (`super.m(...)` too) or outer classes.

`C.m` gives the member only, not C as well. The class being written (and
its outer classes) is never gold. Nested types are read; anonymous and
local classes inside bodies are not.
"""

import os
import re

import lex

MAX_PER_PROJECT = 100
MODIFIERS = set("""public private protected static final abstract native
synchronized transient volatile strictfp default sealed non""".split())
KEYWORDS = set("""abstract assert boolean break byte case catch char class
const continue default do double else enum extends final finally float for
goto if implements import instanceof int interface long native new package
private protected public return short static strictfp super switch
synchronized this throw throws transient try void volatile while var yield
record true false null""".split())
PRIMITIVES = set("boolean byte char short int long float double void var"
                 .split())
_TYPE_KW = ("class", "interface", "enum", "record")


class TypeDecl:
    def __init__(self, name, qual, f, start, kind, outer):
        self.name = name
        self.qual = qual
        self.file = f
        self.start = start
        self.end = start
        self.kind = kind
        self.outer = outer
        self.members = {}  # name -> [Def]
        self.ctors = []
        self.nested = {}
        self.supers = []  # type names as written (dotted)

    def as_def(self):
        return {"file": self.file.rel, "start": self.start, "end": self.end,
                "kind": "type", "name": self.name}


class File:
    def __init__(self, rel, text):
        self.rel = rel
        self.text = text
        self.toks = lex.Tokens(lex.mask(text, "java"))
        self.package = ""
        self.imports = {}  # simple name -> dotted name
        self.demand = []  # dotted packages or types of `import x.*`
        self.static = {}  # member name -> dotted type
        self.static_demand = []
        self.types = []
        self.methods = []  # (TypeDecl, Def, body index)
        self._scan()

    def _dotted(self, i):
        """Reads a.b.c from token i; returns (text, index past it)."""
        t = self.toks
        parts = []
        while t.is_id(i) or t.at(i) == "*":
            parts.append(t.text[i])
            if t.at(i + 1) != ".":
                return ".".join(parts), i + 1
            i += 2
        return ".".join(parts), i

    def _scan(self):
        t = self.toks
        i = 0
        while i < t.n:
            s = t.text[i]
            if s == "package":
                self.package, i = self._dotted(i + 1)
            elif s == "import":
                static = t.at(i + 1) == "static"
                name, i = self._dotted(i + 2 if static else i + 1)
                head, _, last = name.rpartition(".")
                if static:
                    if last == "*":
                        self.static_demand.append(head)
                    else:
                        self.static[last] = head
                elif last == "*":
                    self.demand.append(head)
                else:
                    self.imports[last] = name
            elif s in _TYPE_KW or (s == "@" and t.at(i + 1) == "interface"):
                i = self._type(self._decl_start(i), i, t.n, None)
                continue
            i += 1

    def _decl_start(self, i):
        """The first token of the declaration whose keyword is at i: back
        over modifiers and annotations."""
        t = self.toks
        j = i
        while j > 0:
            p = t.text[j - 1]
            if p in MODIFIERS or p == "-":
                j -= 1
            elif p == ")" and t.match.get(j - 1, t.n) < j - 1 and \
                    t.is_id(t.match[j - 1] - 1):
                k = t.match[j - 1] - 1
                while t.at(k - 1) == "." and t.is_id(k - 2):
                    k -= 2
                if t.at(k - 1) != "@":
                    break
                j = k - 1
            elif t.is_id(j - 1) and p not in KEYWORDS:
                k = j - 1
                while t.at(k - 1) == "." and t.is_id(k - 2):
                    k -= 2
                if t.at(k - 1) != "@":
                    break
                j = k - 1
            else:
                break
        return j

    def _type(self, start, i, b, outer):
        """A type declaration with keyword at i; returns the index past
        it."""
        t = self.toks
        kind = t.text[i]
        if kind == "@":
            i += 1
            kind = "annotation"
        if not t.is_id(i + 1):
            return i + 1
        name = t.text[i + 1]
        qual = (outer.qual if outer else self.package) + "." + name \
            if (outer or self.package) else name
        td = TypeDecl(name, qual, self, t.line[start], kind, outer)
        j = i + 2
        if t.at(j) == "<":
            j = t.skip_angle(j)
        header = j
        if t.at(j) == "(":  # a record's components
            close = t.close(j)
            for n, ty in _params(t, j, close):
                d = {"file": self.rel, "start": t.line[j],
                     "end": t.line[close], "kind": "field", "name": n,
                     "type": ty}
                td.members.setdefault(n, []).append(d)
            j = close + 1
        while j < b and t.text[j] != "{":
            if t.text[j] in ("extends", "implements"):
                j += 1
                while j < b and t.text[j] not in ("{", "implements",
                                                  "permits"):
                    if t.is_id(j) and t.text[j] not in KEYWORDS:
                        dotted, j = self._dotted(j)
                        td.supers.append(dotted)
                        if t.at(j) == "<":
                            j = t.skip_angle(j)
                        continue
                    j += 1
                continue
            j += 1
        del header
        if t.at(j) != "{":
            return j
        close = t.close(j)
        td.end = t.line[min(close, t.n - 1)]
        if outer is None:
            self.types.append(td)
        else:
            outer.nested.setdefault(name, td)
        self._members(td, j + 1, close)
        return close + 1

    def _members(self, td, a, b):
        t = self.toks
        i = a
        if td.kind == "enum":
            i = self._enum_constants(td, a, b)
        while i < b:
            start = i
            while True:
                if t.at(i) == "@" and t.at(i + 1) != "interface":
                    _, i = self._dotted(i + 1)
                    if t.at(i) == "(":
                        i = t.close(i) + 1
                elif t.at(i) in MODIFIERS or (t.at(i) == "-" and
                                              t.at(i - 1) == "non"):
                    i += 1
                else:
                    break
            s = t.at(i)
            if i >= b:
                break
            if s in _TYPE_KW or (s == "@" and t.at(i + 1) == "interface"):
                if not (s == "record" and t.at(i + 2) != "("
                        and t.at(i + 2) != "<"):
                    i = self._type(start, i, b, td)
                    continue
            if s == ";":
                i += 1
                continue
            if s == "{":
                i = t.close(i) + 1
                continue
            if s == "<":
                i = t.skip_angle(i)
            i = self._member(td, start, i, b)

    def _enum_constants(self, td, a, b):
        t = self.toks
        i = a
        while i < b and t.text[i] != ";":
            s = t.text[i]
            if s == "@":
                _, i = self._dotted(i + 1)
                if t.at(i) == "(":
                    i = t.close(i) + 1
                continue
            if t.is_id(i):
                first = i
                i += 1
                if t.at(i) == "(":
                    i = t.close(i) + 1
                if t.at(i) == "{":
                    i = t.close(i) + 1
                d = {"file": self.rel, "start": t.line[first],
                     "end": t.line[i - 1], "kind": "field",
                     "name": t.text[first], "type": td.name}
                td.members.setdefault(t.text[first], []).append(d)
                continue
            if s in lex.OPEN:
                i = t.close(i)
            i += 1
        return i + 1

    def _member(self, td, start, i, b):
        """A field, method or constructor from i (after its modifiers);
        returns the index past it."""
        t = self.toks
        j = i
        while j < b and t.text[j] not in ("(", "=", ";", "{", ","):
            if t.text[j] == "<":
                j = t.skip_angle(j)
                continue
            if t.text[j] == "[":
                j = t.close(j)
            j += 1
        if j >= b:
            return b
        s = t.text[j]
        if s == "{" and t.at(j - 1) == td.name and j - 1 == i:
            return self._method(td, start, i, j - 1, None, j)  # compact
        if s == "(" and t.is_id(j - 1):
            close = t.close(j)
            k = close + 1
            while k < b and t.text[k] not in ("{", ";"):
                if t.text[k] in ("(", "["):
                    k = t.close(k)
                k += 1
            return self._method(td, start, i, j - 1, (j, close),
                                k if t.at(k) == "{" else None, k)
        if s in ("=", ";", ","):
            ty = _type_name(t, i, j - 1)
            while j < b:
                name = t.text[j - 1]
                end = j
                if t.text[j] == "=":
                    end = j + 1
                    while end < b and t.text[end] not in (",", ";"):
                        if t.text[end] in lex.OPEN:
                            end = t.close(end)
                        end += 1
                d = {"file": self.rel, "start": t.line[start],
                     "end": t.line[min(end, t.n - 1)], "kind": "field",
                     "name": name, "type": ty}
                if t.is_id(j - 1):
                    td.members.setdefault(name, []).append(d)
                if t.at(end) != "," or not t.is_id(end + 1):
                    return end + 1
                j = end + 2
                while j < b and t.text[j] not in ("=", ";", ","):
                    j += 1
            return b
        if s == "{":
            return t.close(j) + 1
        return j + 1

    def _method(self, td, start, i, name_i, params, body, semi=None):
        t = self.toks
        name = t.text[name_i]
        last = t.close(body) if body is not None else (semi or name_i)
        ctor = name == td.name and name_i == i
        d = {"file": self.rel, "start": t.line[start],
             "end": t.line[min(last, t.n - 1)],
             "kind": "ctor" if ctor else "method", "name": name,
             "nparams": _count_args(t, params[0]) if params else 0,
             "params": _params(t, *params) if params else []}
        if ctor:
            td.ctors.append(d)
        else:
            td.members.setdefault(name, []).append(d)
        if body is not None:
            self.methods.append((td, d, body))
            return last + 1
        return (semi or name_i) + 1


def _type_name(t, a, b):
    """The simple (or dotted) name of the type written from token a to
    b (exclusive), generics dropped; None for arrays and primitives."""
    parts = []
    i = a
    while i < b:
        s = t.text[i]
        if s == "@":
            i += 2
            if t.at(i) == "(":
                i = t.close(i) + 1
            continue
        if s in MODIFIERS:
            i += 1
            continue
        if t.is_id(i):
            parts.append(s)
            i += 1
            if t.at(i) == "<":
                i = t.skip_angle(i)
            if t.at(i) == ".":
                i += 1
                continue
            break
        i += 1
    if i < b and t.at(i) in ("[", "..."):
        return None
    if not parts or parts[-1] in PRIMITIVES:
        return None
    return ".".join(parts)


def _params(t, open_i, close):
    """[(name, type name or None)] of a parameter list."""
    out = []
    j = open_i + 1
    while j < close:
        k = j
        while k < close and t.text[k] != ",":
            if t.text[k] == "<":
                k = t.skip_angle(k)
                continue
            if t.text[k] in lex.OPEN:
                k = t.close(k)
            k += 1
        if k - 1 >= j and t.is_id(k - 1):
            out.append((t.text[k - 1], _type_name(t, j, k - 1)))
        j = k + 1
    return out


def _count_args(t, open_i):
    close = t.close(open_i)
    if close == open_i + 1:
        return 0
    n = 1
    j = open_i + 1
    while j < close:
        if t.text[j] in lex.OPEN:
            j = t.close(j)
        elif t.text[j] == ",":
            n += 1
        j += 1
    return n


class Project:
    def __init__(self, root):
        self.root = root
        self.files = {}
        self.by_qual = {}
        self.by_package = {}
        for rel in lex.walk(root, (".java",)):
            base = os.path.basename(rel)
            if base in ("module-info.java", "package-info.java"):
                continue
            text = lex.read(os.path.join(root, rel))
            if lex.is_generated(rel, text):
                continue
            f = self.files[rel] = File(rel, text)
            for td in f.types:
                self._index(td)
                self.by_package.setdefault(f.package, {}).setdefault(
                    td.name, td)

    def _index(self, td):
        self.by_qual.setdefault(td.qual, td)
        for n in td.nested.values():
            self._index(n)

    def texts(self):
        return {rel: f.text for rel, f in self.files.items()}

    def type_in(self, f, name, ctx=None):
        """The TypeDecl a (dotted) type name means in file f, seen from
        inside ctx (a TypeDecl) when given."""
        first, _, rest = name.partition(".")
        td = self._simple(f, first, ctx)
        if td is None and rest:
            td = self.by_qual.get(name)
            return td
        while td is not None and rest:
            part, _, rest = rest.partition(".")
            td = td.nested.get(part)
        return td

    def _simple(self, f, name, ctx):
        c = ctx
        while c is not None:
            if c.name == name:
                return c
            if name in c.nested:
                return c.nested[name]
            for s in c.supers:
                sup = self.type_in(c.file, s) if s != name else None
                if sup is not None and name in sup.nested:
                    return sup.nested[name]
            c = c.outer
        if name in f.imports:
            return self.by_qual.get(f.imports[name])
        td = self.by_package.get(f.package, {}).get(name)
        if td is not None:
            return td
        for p in f.demand:
            td = self.by_package.get(p, {}).get(name)
            if td is None and p in self.by_qual:
                td = self.by_qual[p].nested.get(name)
            if td is not None:
                return td
        return None

    def member(self, td, name, nargs=None, depth=0, seen=None):
        """A member of td or of its project supertypes: a method chosen
        by argument count (the first of that name otherwise), or a
        field."""
        seen = set() if seen is None else seen
        if td is None or depth > 8 or id(td) in seen:
            return None
        seen.add(id(td))
        ds = td.members.get(name)
        if ds:
            if nargs is None:
                fields = [d for d in ds if d["kind"] == "field"]
                return (fields or ds)[0]
            fits = [d for d in ds if d["kind"] == "method" and
                    d["nparams"] == nargs]
            methods = [d for d in ds if d["kind"] == "method"]
            return (fits or methods or ds)[0]
        for s in td.supers:
            d = self.member(self.type_in(td.file, s, td.outer), name, nargs,
                            depth + 1, seen)
            if d is not None:
                return d
        return None

    def ctor(self, td, nargs):
        fits = [d for d in td.ctors if d["nparams"] == nargs]
        if fits or td.ctors:
            return (fits or td.ctors)[0]
        return td.as_def()


class _Body:
    def __init__(self, p, f, td, m):
        self.p = p
        self.f = f
        self.t = f.toks
        self.td = td
        self.m = m
        self.locals = {}  # name -> TypeDecl or None
        for n, ty in m["params"]:
            self.locals[n] = self.type(ty)
        self.gold = lex.Gold(f.rel, (m["start"], m["end"]))

    def type(self, name):
        return self.p.type_in(self.f, name, self.td) if name else None

    def scan_locals(self, a, b):
        """Declared locals (`T x =`, `T<U> x;`, `T[] x`, `for (T x :`,
        `instanceof T x)`, lambda parameters) and their project types."""
        t = self.t
        for i in range(a, b - 2):
            if not t.is_id(i + 1) or t.text[i + 1] in KEYWORDS or \
                    t.at(i + 2) not in ("=", ";", ",", ":", ")"):
                continue
            s = t.text[i]
            ty = None
            if s in (">", ">>"):
                j, depth = i, 0
                while j > max(a, i - 40):
                    depth += {">": 1, ">>": 2, "<": -1, "<<": -2}.get(
                        t.text[j], 0)
                    if depth <= 0:
                        break
                    j -= 1
                if depth > 0 or not t.is_id(j - 1) or \
                        not t.text[j - 1][0].isupper():
                    continue
                ty = t.text[j - 1]
            elif t.is_id(i) and (s not in KEYWORDS or s in PRIMITIVES):
                ty = None if s in PRIMITIVES else s
            elif s != "]":
                continue
            self.locals.setdefault(t.text[i + 1], self.type(ty))
        for i in range(a, b):  # lambda parameters
            if t.text[i] == "->":
                if t.is_id(i - 1):
                    self.locals.setdefault(t.text[i - 1], None)
                elif t.at(i - 1) == ")":
                    o = t.match.get(i - 1, i)
                    for k in range(o + 1, i - 1):
                        if t.is_id(k) and t.at(k + 1) in (",", ")"):
                            self.locals.setdefault(t.text[k], None)

    def _chain(self, name):
        """Member name of the class, its supertypes, or outer classes."""
        c = self.td
        while c is not None:
            d = self.p.member(c, name[0], name[1])
            if d is not None:
                return d
            c = c.outer
        return None

    def visit(self, a, b):
        t = self.t
        i = a
        while i < b:
            s = t.text[i]
            if not t.is_id(i) or t.at(i - 1) == "." or \
                    (s in KEYWORDS and s not in ("this", "super", "new")):
                i += 1
                continue
            if s == "new":
                i = self._new(i + 1)
                continue
            call = t.at(i + 1) == "("
            nargs = _count_args(t, i + 1) if call else None
            if t.at(i + 1) in (".", "::") and t.is_id(i + 2):
                sel = t.text[i + 2]
                scall = t.at(i + 3) == "(" or t.at(i + 1) == "::"
                sargs = _count_args(t, i + 3) if t.at(i + 3) == "(" else \
                    -1 if scall else None
                d, via = None, None
                if s == "this":
                    d, via = self._chain((sel, sargs)), "class"
                elif s == "super":
                    for sup in self.td.supers:
                        d = self.p.member(self.type(sup), sel, sargs)
                        if d:
                            break
                    via = "class"
                elif s in self.locals:
                    d = self.p.member(self.locals[s], sel, sargs)
                    via = "receiver"
                else:
                    field = self._chain((s, None))
                    if field is not None and field["kind"] == "field":
                        self._add(s, field, "class")
                        d = self.p.member(self.type(field.get("type")),
                                          sel, sargs)
                        via = "receiver"
                    else:
                        td = self.type(s) if s[0].isupper() else None
                        if td is not None:
                            d = self.p.member(td, sel, sargs)
                            if d is None and sel in td.nested:
                                d = td.nested[sel].as_def()
                            if d is None and not scall:
                                d = td.as_def()
                            via = "static"
                self._add(s + "." + sel, d, via)
                i += 3
                continue
            if s in ("this", "super"):
                i += 1
                continue
            if s in self.locals and not call:
                i += 1
                continue
            if call:
                d = self._chain((s, nargs))
                if d is None and s in self.f.static:
                    d = self.p.member(self.p.by_qual.get(
                        self.f.static[s]), s, nargs)
                self.gold.add(s, d, "class")
                i += 1
                continue
            d = self._chain((s, None))
            if d is not None and d["kind"] == "field":
                self._add(s, d, "class")
            elif s in self.f.static:
                self.gold.add(s, self.p.member(self.p.by_qual.get(
                    self.f.static[s]), s), "static")
            elif s[0].isupper():
                td = self.type(s)
                if td is not None:
                    self.gold.add(s, td.as_def(), "import")
            i += 1

    def _add(self, name, d, via):
        """Records d, but not a field of the class being written (or of an
        outer class) read in its own file: the class itself is not gold,
        and its state is part of the code at hand."""
        if d is None or (via == "class" and d["kind"] == "field" and
                         d["file"] == self.f.rel):
            return
        self.gold.add(name, d, via)

    def _new(self, i):
        t = self.t
        if t.at(i) == "<":
            i = t.skip_angle(i)
        name, j = self.f._dotted(i)
        if not name:
            return i
        td = self.type(name)
        if t.at(j) == "<":
            j = t.skip_angle(j)
        if td is not None:
            if t.at(j) == "(":
                self.gold.add(name, self.p.ctor(td, _count_args(t, j)),
                              "new")
            else:
                self.gold.add(name, td.as_def(), "import")
        return j


def candidates(p):
    out = []
    for rel in sorted(p.files):
        f = p.files[rel]
        for td, m, body in f.methods:
            span = lex.body_lines(f.toks, body)
            if not span or not lex.MIN_BODY_LINES <= span[1] - span[0] + 1 \
                    <= lex.MAX_BODY_LINES:
                continue
            u = _Body(p, f, td, m)
            a, b = body + 1, f.toks.close(body)
            u.scan_locals(a, b)
            u.visit(a, b)
            out.append({"file": rel, "function_name": td.name + "." +
                        m["name"], "gt_span": list(span),
                        "gold": u.gold.items})
    return out


def build_tasks(root, name, cap=MAX_PER_PROJECT, per_file=None):
    """Returns (tasks, {name: root}) for the source root (see lex.select
    for the choice)."""
    p = Project(root)
    return lex.select(candidates(p), name, root, p.texts(), cap, per_file)
