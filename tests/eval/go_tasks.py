"""Builds a Go task set from a module (a directory holding go.mod).

A task is a function or method body of a non-test file that uses
definitions from other files of the module; the body is blanked (line
count kept) and the gold is the module's definitions the body uses, in the
RepoEval format ({name, file, start, end, cross_file, via}), found
lexically (lex.py), never by castls:

  package    a name of the package's scope: every file of a directory
             shares one (a function, type, var or const, or one spec of a
             var/const/type group);
  import     `pkg.Name` where pkg is an import of the file whose path is
             the module path (go.mod's `module`) plus a directory, or a
             name of a dot-imported such package;
  receiver   `x.Method` where x is the receiver, a parameter typed `T`,
             `*T` or `pkg.T`, or a local assigned `T{...}`, `&T{...}`,
             `new(T)`, `NewT(...)` (a function whose first result is T or
             *T) or declared `var x T`: the method T.Method, in whatever
             file of T's package it is declared.

A name defined twice in one package (files for different build tags) is
ambiguous and never gold. Test files (`_test.go`), testdata, vendor and
generated files (`// Code generated ... DO NOT EDIT.`) give no task and no
gold; run.py does not copy them into the indexed workspace either.
"""

import os
import re

import lex

MAX_PER_PROJECT = 100
SKIP_DIRS = ("testdata", "vendor", "internal_test")
KEYWORDS = set("""break case chan const continue default defer else
fallthrough for func go goto if import interface map package range return
select struct switch type var""".split())
PREDECLARED = set("""any bool byte comparable complex64 complex128 error
float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16
uint32 uint64 uintptr true false iota nil append cap clear close complex
copy delete imag len make max min new panic print println real recover
""".split())
_TOP = ("func", "type", "var", "const", "import", "package")


def keep_file(rel, text):
    """A file that belongs to the indexed workspace and to the gold."""
    return rel.endswith(".go") and not lex.is_generated(rel, text)


class File:
    def __init__(self, rel, text):
        self.rel = rel
        self.text = text
        self.toks = lex.Tokens(lex.mask(text, "go"))
        self.package = None
        self.imports = {}  # alias -> import path ("." for dot imports)
        self.dots = []
        self.defs = []  # (key, def): key ("name",) or ("method", T, name)
        self.funcs = []  # (name, receiver, sig) for bodies
        self._scan()

    def _str(self, i):
        t = self.toks
        return self.text[t.pos[i] + 1:t.pos[i] + len(t.text[i]) - 1]

    def _scan(self):
        t = self.toks
        self._depth = lex.depths(t)
        tops = [i for i in range(t.n) if t.text[i] in _TOP and
                (i == 0 or t.line[i - 1] < t.line[i]) and
                self._depth[i] == 0]
        for k, i in enumerate(tops):
            end = (tops[k + 1] if k + 1 < len(tops) else t.n) - 1
            kw = t.text[i]
            if kw == "package" and t.is_id(i + 1):
                self.package = t.text[i + 1]
            elif kw == "import":
                self._imports(i + 1, end)
            elif kw == "func":
                self._func(i, end)
            else:
                self._specs(kw, i + 1, end)

    def _imports(self, i, end):
        t = self.toks
        specs = []
        if t.at(i) == "(":
            j, stop = i + 1, min(t.close(i), end + 1)
            while j < stop:
                if t.text[j].startswith('"'):
                    alias = t.text[j - 1] if t.line[j - 1] == t.line[j] \
                        and j - 1 > i else None
                    specs.append((alias, self._str(j)))
                j += 1
        else:
            j = i + 1 if not t.text[i].startswith('"') else i
            alias = t.text[i] if j == i + 1 else None
            if t.at(j).startswith('"'):
                specs.append((alias, self._str(j)))
        for alias, path in specs:
            if alias == "_":
                continue
            if alias == ".":
                self.dots.append(path)
            else:
                self.imports[alias or ""] = self.imports.get(alias or "",
                                                             [])
                self.imports[alias or ""].append(path)

    def _span(self, i, end):
        return {"file": self.rel, "start": self.toks.line[i],
                "end": self.toks.line[end]}

    def _func(self, i, end):
        t = self.toks
        j = i + 1
        recv = None
        if t.at(j) == "(":
            close = t.close(j)
            recv = parse_params(t, j + 1, close)
            j = close + 1
        if not t.is_id(j):
            return
        name = t.text[j]
        j += 1
        tparams = []
        if t.at(j) == "[":
            tparams = [p[0] for p in parse_params(t, j + 1, t.close(j))
                       if p[0]]
            j = t.close(j) + 1
        if t.at(j) != "(":
            return
        pclose = t.close(j)
        params = parse_params(t, j + 1, pclose)
        k = pclose + 1
        results = []
        body = None
        if t.at(k) == "(":
            results = parse_params(t, k + 1, t.close(k))
            k = t.close(k) + 1
        else:
            rs = k
            while k <= end and t.text[k] != "{":
                if t.text[k] in ("struct", "interface") and \
                        t.at(k + 1) == "{":
                    k = t.close(k + 1) + 1
                    continue
                if t.text[k] in lex.OPEN:
                    k = t.close(k) + 1
                    continue
                k += 1
            if k > rs:
                results = [(None, type_of(t, rs, k))]
        if t.at(k) == "{" and k <= end:
            body = k
        last = t.close(body) if body is not None else pclose
        d = self._span(i, min(last, end))
        d["kind"] = "func"
        d["result"] = results[0][1] if results else None
        rtype = None
        if recv:
            rtype = recv[0][1]
            rtype = rtype[1] if rtype and rtype[0] is None else None
        if recv and rtype:
            self.defs.append((("method", rtype, name), d))
        elif not recv:
            self.defs.append(((name,), d))
        if body is not None:
            self.funcs.append({
                "name": (rtype + "." if rtype else "") + name,
                "own": (d["start"], d["end"]), "body": body,
                "recv": recv[0] if recv else None, "params":
                params + results, "tparams": tparams})

    def _specs(self, kw, i, end):
        """type / var / const: one spec, or a group of them."""
        t = self.toks
        if t.at(i) == "(":
            close = t.close(i)
            starts = [j for j in range(i + 1, min(close, end + 1))
                      if t.line[j] > t.line[j - 1] and t.is_id(j) and
                      self._depth[j] == self._depth[i] + 1]
            for k, j in enumerate(starts):
                last = (starts[k + 1] if k + 1 < len(starts) else close) - 1
                self._spec(kw, j, last)
        else:
            self._spec(kw, i, end)

    def _spec(self, kw, j, last):
        t = self.toks
        names = [t.text[j]]
        k = j + 1
        while kw != "type" and t.at(k) == "," and t.is_id(k + 1):
            names.append(t.text[k + 1])
            k += 2
        d = self._span(j, max(j, last))
        d["kind"] = kw
        d["vtype"] = None
        if kw == "var" and t.is_id(k) and t.at(k) != "=":
            e = k
            while e <= last and t.text[e] != "=":
                e += 1
            d["vtype"] = type_of(t, k, e)
        for n in names:
            if n != "_":
                self.defs.append(((n,), d))


def parse_params(t, a, b):
    """[(name or None, type)] of a parameter list between token a and b
    (exclusive): Go's `a, b int` gives both names the type; a type is
    (package alias or None, type name) or None when it is not a plain
    (pointer to a) named type."""
    parts, cur = [], []
    j = a
    while j < b:
        if t.text[j] == ",":
            parts.append(cur)
            cur = []
            j += 1
            continue
        if t.text[j] in lex.OPEN:
            cur.append(j)
            j = t.close(j) + 1
            continue
        cur.append(j)
        j += 1
    if cur:
        parts.append(cur)
    named = any(len(p) > 1 and t.is_id(p[0]) and t.at(p[0] + 1) != "."
                for p in parts)
    out = []
    pending = []
    for p in parts:
        if not p:
            continue
        if named:
            if len(p) == 1:
                pending.append(t.text[p[0]])
                continue
            ty = type_of(t, p[1], p[-1] + 1)
            for n in pending + [t.text[p[0]]]:
                out.append((n, ty))
            pending = []
        else:
            out.append((None, type_of(t, p[0], p[-1] + 1)))
    for n in pending:
        out.append((n, None))
    return out


def type_of(t, a, b):
    """(alias or None, name) of a type written from token a to b, when it
    is T, *T, pkg.T or one of them with type arguments; else None."""
    while a < b and t.text[a] in ("*", "&", "..."):
        a += 1
    if a < b and t.is_id(a) and t.text[a] not in KEYWORDS:
        if a + 2 < b + 1 and t.at(a + 1) == "." and t.is_id(a + 2):
            rest = a + 3
            alias, name = t.text[a], t.text[a + 2]
        else:
            rest = a + 1
            alias, name = None, t.text[a]
        if rest < b and t.text[rest] == "[":
            rest = t.close(rest) + 1
        if rest >= b:
            return (alias, name)
    return None


class Module:
    def __init__(self, root):
        self.root = root
        self.path = ""
        gomod = os.path.join(root, "go.mod")
        if os.path.exists(gomod):
            m = re.search(r"^module\s+(\S+)", lex.read(gomod), re.M)
            self.path = m.group(1).strip('"') if m else ""
        self.files = {}
        for rel in lex.walk(root, (".go",), SKIP_DIRS):
            if rel.endswith("_test.go"):
                continue
            text = lex.read(os.path.join(root, rel))
            if keep_file(rel, text):
                self.files[rel] = File(rel, text)
        self.scope = {}  # dir -> {key: def or None when ambiguous}
        self.pkgname = {}
        for rel, f in self.files.items():
            d = os.path.dirname(rel)
            self.pkgname.setdefault(d, f.package)
            sc = self.scope.setdefault(d, {})
            for key, df in f.defs:
                if key in sc and sc[key] is not None and \
                        sc[key]["start"] != df["start"]:
                    sc[key] = None
                elif key not in sc:
                    sc[key] = df

    def texts(self):
        return {rel: f.text for rel, f in self.files.items()}

    def package_dir(self, path):
        """The directory of an import path inside the module, or None."""
        if not self.path:
            return None
        if path == self.path:
            d = ""
        elif path.startswith(self.path + "/"):
            d = path[len(self.path) + 1:]
        else:
            return None
        return d if d in self.scope else None

    def aliases(self, f):
        """{alias: package directory} of the module's packages f imports,
        and the dot-imported directories."""
        out = {}
        for alias, paths in f.imports.items():
            for p in paths:
                d = self.package_dir(p)
                if d is None:
                    continue
                out[alias or self.pkgname.get(d) or p.rsplit("/", 1)[-1]] \
                    = d
        dots = [d for d in (self.package_dir(p) for p in f.dots)
                if d is not None]
        return out, dots

    def lookup(self, d, key):
        return self.scope.get(d, {}).get(key)


class _Body:
    """Resolves what one function's body uses."""

    def __init__(self, mod, f, fn):
        self.mod = mod
        self.f = f
        self.t = f.toks
        self.dir = os.path.dirname(f.rel)
        self.aliases, self.dots = mod.aliases(f)
        self.fn = fn
        self.locals = set(fn["tparams"])
        self.types = {}
        for n, ty in ([fn["recv"]] if fn["recv"] else []) + fn["params"]:
            if n:
                self.locals.add(n)
                self.types[n] = self.resolve_type(ty)
        self.gold = lex.Gold(f.rel, fn["own"])

    def resolve_type(self, ty):
        """(directory, type name) of a type (alias, name) in this file."""
        if not ty:
            return None
        alias, name = ty
        d = self.dir if alias is None else self.aliases.get(alias)
        if d is None or alias in self.locals:
            return None
        df = self.mod.lookup(d, (name,))
        return (d, name) if df and df.get("kind") == "type" else None

    def scope_def(self, name):
        df = self.mod.lookup(self.dir, (name,))
        if df:
            return df, "same-file" if df["file"] == self.f.rel \
                else "package"
        for d in self.dots:
            df = self.mod.lookup(d, (name,))
            if df:
                return df, "import"
        return None, None

    def scan_locals(self, a, b):
        """Names the body declares (:=, var, closure parameters) and the
        types of those whose type is evident."""
        t = self.t
        assigned = {}
        for i in range(a, b):
            s = t.text[i]
            if s == ":=":
                names, j = [], i - 1
                while t.is_id(j):
                    names.insert(0, t.text[j])
                    if t.at(j - 1) != ",":
                        break
                    j -= 2
                for k, n in enumerate(names):
                    assigned.setdefault(n, []).append(
                        self.rhs_type(i + 1, b) if k == 0 else None)
            elif s == "var" and t.is_id(i + 1):
                names, j = [t.text[i + 1]], i + 2
                while t.at(j) == "," and t.is_id(j + 1):
                    names.append(t.text[j + 1])
                    j += 2
                e = j
                while e < b and t.text[e] not in ("=", ";") and \
                        t.line[e] == t.line[i]:
                    e += 1
                ty = self.resolve_type(type_of(t, j, e)) if e > j else \
                    self.rhs_type(e + 1, b)
                for n in names:
                    assigned.setdefault(n, []).append(ty)
            elif s == "func" and t.at(i + 1) == "(":
                for n, ty in parse_params(t, i + 2, t.close(i + 1)):
                    if n:
                        assigned.setdefault(n, []).append(
                            self.resolve_type(ty))
            elif s in ("goto", "break", "continue") and t.is_id(i + 1) \
                    and t.line[i + 1] == t.line[i]:
                self.locals.add(t.text[i + 1])
        for n, tys in assigned.items():
            self.locals.add(n)
            tys = set(tys) | ({self.types[n]} if n in self.types else set())
            self.types[n] = tys.pop() if len(tys) == 1 else None

    def rhs_type(self, i, b):
        """The type of the expression starting at token i, when it is
        T{...}, &T{...}, new(T) or a call of a function whose first
        result is a (pointer to a) named type."""
        t = self.t
        if t.at(i) == "&":
            i += 1
        if t.at(i) == "new" and t.at(i + 1) == "(":
            return self.resolve_type(type_of(t, i + 2, t.close(i + 1)))
        alias = None
        if t.is_id(i) and t.at(i + 1) == "." and t.is_id(i + 2):
            alias, name, nxt = t.text[i], t.text[i + 2], i + 3
        elif t.is_id(i):
            name, nxt = t.text[i], i + 1
        else:
            return None
        if alias is not None and alias not in self.aliases:
            return None
        if t.at(nxt) == "[":
            nxt = t.close(nxt) + 1
        if t.at(nxt) == "{":
            return self.resolve_type((alias, name))
        if t.at(nxt) == "(":
            d = self.dir if alias is None else self.aliases.get(alias)
            df = self.mod.lookup(d, (name,))
            if df and df.get("kind") == "func" and df.get("result"):
                res = df["result"]
                if res[0] is None:  # named in the callee's package
                    return (d, res[1]) if (self.mod.lookup(d, (res[1],))
                                           or {}).get("kind") == "type" \
                        else None
                f2 = self.mod.files.get(df["file"])
                d2 = self.mod.aliases(f2)[0].get(res[0])
                return (d2, res[1]) if d2 is not None and \
                    (self.mod.lookup(d2, (res[1],)) or {}).get(
                        "kind") == "type" else None
        return None

    def method(self, ty, name):
        if not ty:
            return None
        return self.mod.lookup(ty[0], ("method", ty[1], name))

    def visit(self, a, b):
        t = self.t
        stack = []
        for i in range(a, b):
            s = t.text[i]
            if s in lex.OPEN:
                stack.append(s)
            elif s in lex.CLOSE and stack:
                stack.pop()
            if not t.is_id(i) or s in KEYWORDS or t.at(i - 1) == ".":
                continue
            if t.at(i + 1) == "." and t.is_id(i + 2):
                sel = t.text[i + 2]
                if s in self.locals:
                    self.gold.add(s + "." + sel, self.method(
                        self.types.get(s), sel), "receiver")
                    continue
                if s in self.aliases:
                    self.gold.add(s + "." + sel, self.mod.lookup(
                        self.aliases[s], (sel,)), "import")
                    continue
                df, via = self.scope_def(s)
                if df and df.get("kind") == "type":
                    m = self.mod.lookup(self.dir, ("method", s, sel))
                    if m:
                        self.gold.add(s + "." + sel, m, "package")
                        continue
                if df:
                    self.gold.add(s, df, via)
                continue
            if s in self.locals or s in PREDECLARED:
                continue
            if t.at(i + 1) == ":" and stack and stack[-1] == "{":
                continue  # a composite literal's key
            df, via = self.scope_def(s)
            if df:
                self.gold.add(s, df, via)


def candidates(mod):
    out = []
    for rel in sorted(mod.files):
        f = mod.files[rel]
        for fn in f.funcs:
            span = lex.body_lines(f.toks, fn["body"])
            if not span or not lex.MIN_BODY_LINES <= span[1] - span[0] + 1 \
                    <= lex.MAX_BODY_LINES:
                continue
            u = _Body(mod, f, fn)
            a, b = fn["body"] + 1, f.toks.close(fn["body"])
            u.scan_locals(a, b)
            u.visit(a, b)
            out.append({"file": rel, "function_name": fn["name"],
                        "gt_span": list(span), "gold": u.gold.items})
    return out


def build_tasks(root, name, cap=MAX_PER_PROJECT, per_file=None):
    """Returns (tasks, {name: root}) for the module in root (see
    lex.select for the choice)."""
    mod = Module(root)
    return lex.select(candidates(mod), name, root, mod.texts(), cap,
                      per_file)
