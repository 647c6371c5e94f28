"""Builds a Rust task set from a crate (a directory holding Cargo.toml).

A task is a function or method body of a module of the crate (the tree
`mod x;` declarations grow from src/lib.rs or src/main.rs, test modules
left out) that uses definitions from other files of the crate; the body is
blanked (line count kept) and the gold is the crate's definitions the body
uses, in the RepoEval format, found lexically (lex.py), never by castls:

  use       a name bound by `use` (`crate::`, `self::`, `super::`, a child
            module, grouped `use a::{b, c as d}`, globs `a::*`), followed
            through `pub use` re-exports to the definition;
  module    an item of the body's own module, or a path through modules
            (`ast::parse::Parser`);
  impl      `Type::f` or `Self::f`: the function of an `impl Type` or
            `impl Trait for Type` block, in whatever file it is (an enum's
            variant, `Enum::V`, gives the enum); a trait's own functions;
  receiver  `self.f(...)` in an impl, `x.f(...)` where x is a parameter
            typed `Type`, `&Type`, `&mut Type` or a local bound to
            `Type { ... }`, `Type::g(...)` (g returning Self or Type) or
            declared `let x: Type`: Type's function f;
  macro     `name!(...)` of a `macro_rules! name` of the crate.

`mod x;` is x.rs or x/mod.rs beside the parent (or under the parent's
directory when the parent is not a mod.rs, lib.rs or main.rs), or the file
a `#[path = "..."]` attribute names. Items are read inside item-level
macro invocations too (syn declares its AST in `ast_struct! { ... }`). Of
two items of one name in a module (cfg twins) the first is the definition.
"""

import os
import re

import lex

MAX_PER_PROJECT = 100
KEYWORDS = set("""as async await break const continue crate dyn else enum
extern false fn for if impl in let loop match mod move mut pub ref return
self Self static struct super trait true type union unsafe use where while
macro_rules""".split())
_TYPE_KINDS = ("struct", "enum", "union", "trait", "type")
_TEST_MODS = ("test", "tests", "bench", "benches")


class Def(dict):
    """A definition: file, start, end (0-based lines), kind, name, mod
    (module path), and for functions ret (the token range after ->)."""

    def __hash__(self):
        return id(self)

    def __eq__(self, other):
        return self is other


class ModInfo:
    def __init__(self, path, file):
        self.path = path
        self.file = file
        self.items = {}
        self.uses = {}  # local name -> path segments
        self.globs = []
        self.children = {}  # name -> module path


class File:
    def __init__(self, rel, text):
        self.rel = rel
        self.text = text
        self.toks = lex.Tokens(lex.mask(text, "rust"))


class Crate:
    def __init__(self, root):
        self.root = root
        self.edition = "2015"
        toml = os.path.join(root, "Cargo.toml")
        if os.path.exists(toml):
            m = re.search(r'^edition\s*=\s*"(\d+)"', lex.read(toml), re.M)
            if m:
                self.edition = m.group(1)
        self.files = {}
        self.mods = {}
        self.impls = []  # (module path, self path segments, {name: Def})
        self.traits = {}  # trait Def -> {name: Def}
        self.macros = {}
        self.funcs = []  # (File, Def, body index, module path, owner)
        self._members = None
        self._cache = {}
        for lib in ("src/lib.rs", "src/main.rs"):
            if os.path.exists(os.path.join(root, lib)):
                self._load((), lib)
                break

    def texts(self):
        return {rel: f.text for rel, f in self.files.items()}

    # ---- the module tree ------------------------------------------------

    def _load(self, path, rel):
        if rel in self.files or not os.path.isfile(
                os.path.join(self.root, rel)):
            return
        text = lex.read(os.path.join(self.root, rel))
        if lex.is_generated(rel, text):
            return
        f = self.files[rel] = File(rel, text)
        mod = self.mods[path] = ModInfo(path, rel)
        self._items(f, mod, 0, f.toks.n, None)

    def _child_file(self, parent_rel, name, attr_path):
        d = os.path.dirname(parent_rel)
        if attr_path:
            return os.path.normpath(os.path.join(d, attr_path))
        base = os.path.basename(parent_rel)
        if base not in ("mod.rs", "lib.rs", "main.rs"):
            d = os.path.join(d, base[:-3])
        for cand in (os.path.join(d, name + ".rs"),
                     os.path.join(d, name, "mod.rs")):
            if os.path.isfile(os.path.join(self.root, cand)):
                return cand.replace(os.sep, "/")
        return None

    def _items(self, f, mod, a, b, owner):
        """Reads the items of tokens a..b (exclusive) of f into mod; owner
        is ("impl", index) or ("trait", Def) inside those blocks."""
        t = f.toks
        i = a
        while i < b:
            start = i
            attrs = []
            while t.at(i) == "#" and (t.at(i + 1) == "[" or (
                    t.at(i + 1) == "!" and t.at(i + 2) == "[")):
                o = i + 1 if t.at(i + 1) == "[" else i + 2
                attrs.append(f.text[t.pos[o]:t.pos[min(t.close(o),
                                                       t.n - 1)]])
                i = t.close(o) + 1
            if t.at(start + 1) == "!" and i > start and \
                    t.at(start) == "#":
                continue  # inner attributes (#![...]) of the module
            if t.at(i) == "pub":
                i += 1
                if t.at(i) == "(":
                    i = t.close(i) + 1
            while t.at(i) in ("default", "async", "unsafe", "auto") or \
                    (t.at(i) == "const" and t.at(i + 1) in (
                        "fn", "unsafe", "async", "extern")) or \
                    (t.at(i) == "extern" and t.at(i + 1) != "crate" and
                     (t.at(i + 1) == "fn" or
                      t.at(i + 1).startswith('"') and
                      t.at(i + 2) in ("fn", "unsafe"))):
                i += 2 if t.at(i) == "extern" and \
                    t.at(i + 1).startswith('"') else 1
            if i >= b:
                break
            i = self._item(f, mod, start, i, b, owner, attrs)

    def _item(self, f, mod, start, i, b, owner, attrs):
        """One item whose keyword is at i (attributes from start); returns
        the index past it."""
        t = f.toks
        kw = t.text[i]
        cfg_test = any(re.match(r"\[\s*cfg\s*\(\s*test\b", a) for a in attrs)
        if kw == "fn" and t.is_id(i + 1):
            return self._fn(f, mod, start, i, b, owner)
        if kw in ("struct", "enum", "union", "trait", "type", "const",
                  "static") and t.is_id(i + 1):
            j = i + 1
            if kw == "static" and t.at(j) == "mut":
                j += 1
            name = t.text[j]
            end, body = self._extent(t, j + 1, b, kw)
            d = self._def(f, mod, name, kw, start, end, owner)
            if kw == "trait" and body is not None and d is not None:
                self.traits[d] = {}
                self._items(f, mod, body + 1, t.close(body), ("trait", d))
            return end + 1
        if kw == "mod" and t.is_id(i + 1):
            name = t.text[i + 1]
            path = mod.path + (name,)
            if t.at(i + 2) == ";":
                if not cfg_test and name not in _TEST_MODS:
                    ap = None
                    for a in attrs:
                        m = re.match(r'\[\s*path\s*=\s*"([^"]*)"',
                                     f.text[t.pos[start]:t.pos[i]])
                        ap = m.group(1) if m else ap
                    rel = self._child_file(f.rel, name, ap)
                    if rel:
                        mod.children[name] = path
                        self._load(path, rel)
                return i + 3
            if t.at(i + 2) == "{":
                close = t.close(i + 2)
                if not cfg_test and name not in _TEST_MODS:
                    mod.children[name] = path
                    sub = self.mods[path] = ModInfo(path, f.rel)
                    self._items(f, sub, i + 3, close, None)
                return close + 1
            return i + 2
        if kw == "impl":
            return self._impl(f, mod, i, b)
        if kw == "macro_rules" and t.at(i + 1) == "!" and t.is_id(i + 2):
            end, _ = self._extent(t, i + 3, b, kw)
            d = self._def(f, mod, t.text[i + 2], "macro", start, end)
            name = t.text[i + 2]
            if name not in self.macros:
                self.macros[name] = d
            return end + 1
        if kw == "use":
            end = self._to_semi(t, i + 1, b)
            self._use(t, i + 1, end, (), mod)
            return end + 1
        if kw == "extern" and t.at(i + 1) == "crate":
            return self._to_semi(t, i, b) + 1
        if t.is_id(i) and t.at(i + 1) == "!":
            # An item-level macro call: read the items it is given.
            j = i + 2
            if t.is_id(j):
                j += 1
            if t.at(j) == "{":
                self._items(f, mod, j + 1, t.close(j), owner)
                return t.close(j) + 1
            if t.at(j) in ("(", "["):
                k = t.close(j) + 1
                return k + 1 if t.at(k) == ";" else k
            return j
        end, _ = self._extent(t, i, b, None)
        return max(end + 1, i + 1)

    def _extent(self, t, j, b, kw):
        """The last token of an item whose header continues at j: its
        block's "}", or its ";". Returns (last, index of "{" or None)."""
        while j < b:
            s = t.text[j]
            if s == ";":
                return j, None
            if s == "{":
                close = t.close(j)
                if kw in (None, "const", "static", "type") and \
                        t.at(close + 1) == ";":
                    return close + 1, j
                return close, j
            if s in ("(", "["):
                j = t.close(j) + 1
                if kw == "macro_rules" and t.at(j) == ";":
                    return j, None
                continue
            if s == "=" and kw in ("const", "static", "type"):
                return self._to_semi(t, j, b), None
            j += 1
        return b - 1, None

    def _to_semi(self, t, j, b):
        while j < b and t.text[j] != ";":
            if t.text[j] in lex.OPEN:
                j = t.close(j)
            j += 1
        return min(j, b - 1)

    def _def(self, f, mod, name, kind, start, end, owner=None):
        """Records an item of mod, or of the impl or trait owner."""
        t = f.toks
        d = Def(file=f.rel, start=t.line[start],
                end=t.line[min(end, t.n - 1)], kind=kind, name=name,
                mod=mod.path)
        if owner is None:
            mod.items.setdefault(name, d)
        elif owner[0] == "impl":
            self.impls[owner[1]][2].setdefault(name, d)
        else:
            self.traits[owner[1]].setdefault(name, d)
        return d

    def _fn(self, f, mod, start, i, b, owner):
        t = f.toks
        name = t.text[i + 1]
        j = i + 2
        if t.at(j) == "<":
            j = t.skip_angle(j)
        if t.at(j) != "(":
            return j
        params = j
        j = t.close(j) + 1
        ret = None
        if t.at(j) == "->":
            ret = j + 1
        while j < b and t.text[j] not in ("{", ";"):
            if t.text[j] in ("(", "["):
                j = t.close(j)
            j += 1
        body = j if t.at(j) == "{" else None
        end = t.close(j) if body is not None else j
        d = self._def(f, mod, name, "fn", start, end, owner)
        d["ret"] = (ret, j) if ret else None
        d["params"] = params
        if body is not None:
            self.funcs.append((f, d, body, mod.path, owner))
        return end + 1

    def _impl(self, f, mod, i, b):
        t = f.toks
        j = i + 1
        if t.at(j) == "<":
            j = t.skip_angle(j)
        k = j
        while k < b and t.text[k] not in ("{", ";", "for", "where"):
            if t.text[k] == "<":
                k = t.skip_angle(k)
                continue
            if t.text[k] in ("(", "["):
                k = t.close(k)
            k += 1
        if t.at(k) == "for":
            j = k + 1
        segs = _path_at(t, j)
        while k < b and t.text[k] != "{":
            if t.text[k] == "<":
                k = t.skip_angle(k)
                continue
            if t.text[k] in ("(", "["):
                k = t.close(k)
            k += 1
        if t.at(k) != "{":
            return k + 1
        self.impls.append((mod.path, segs, {}))
        self._items(f, mod, k + 1, t.close(k),
                    ("impl", len(self.impls) - 1))
        return t.close(k) + 1

    def _use(self, t, i, b, prefix, mod):
        """Reads one use tree from token i (before b) under prefix."""
        segs = list(prefix)
        if t.at(i) == "::":
            i += 1
        while i < b:
            s = t.text[i]
            if s == "{":
                close = t.close(i)
                j = i + 1
                while j < close:
                    k = j
                    while k < close and t.text[k] != ",":
                        if t.text[k] == "{":
                            k = t.close(k)
                        k += 1
                    self._use(t, j, k, tuple(segs), mod)
                    j = k + 1
                return
            if s == "*":
                mod.globs.append(tuple(segs))
                return
            if t.is_id(i):
                segs.append(s)
                i += 1
                if t.at(i) == "::":
                    i += 1
                    continue
            break
        if not segs:
            return
        name = segs[-1]
        if name == "self" and len(segs) > 1:
            segs = segs[:-1]
            name = segs[-1]
        if t.at(i) == "as" and t.is_id(i + 1):
            name = t.text[i + 1]
        if name != "_":
            mod.uses.setdefault(name, tuple(segs))

    # ---- resolution -------------------------------------------------------
    # A target is ("mod", path) or ("def", Def).

    def lookup(self, path, name, depth=0):
        key = (path, name)
        if key in self._cache:
            return self._cache[key]
        if depth > 12:
            return None
        self._cache[key] = None  # a cycle resolves to nothing
        m = self.mods.get(path)
        r = None
        if m is not None:
            if name in m.items:
                r = ("def", m.items[name])
            elif name in m.children:
                r = ("mod", m.children[name])
            elif name in m.uses:
                r = self.resolve(path, m.uses[name], True, depth + 1)
            else:
                for g in m.globs:
                    base = self.resolve(path, g, True, depth + 1)
                    if base and base[0] == "mod":
                        r = self.lookup(base[1], name, depth + 1)
                    elif base and base[1]["kind"] == "enum":
                        r = base  # a variant: the enum
                    if r:
                        break
        self._cache[key] = r
        return r

    def resolve(self, path, segs, in_use=False, depth=0):
        """What the path segs means in module path: a module, a
        definition, or (for Type::f) the function of Type's impls."""
        if not segs:
            return None
        first, rest = segs[0], list(segs[1:])
        if first == "crate":
            cur = ("mod", ())
        elif first == "self":
            cur = ("mod", path)
        elif first == "super":
            cur = ("mod", path[:-1])
            while rest and rest[0] == "super":
                cur = ("mod", cur[1][:-1])
                rest.pop(0)
        else:
            cur = self.lookup(path, first, depth)
            if cur is None and in_use and self.edition == "2015":
                cur = self.lookup((), first, depth)
        for s in rest:
            if cur is None:
                return None
            if cur[0] == "mod":
                cur = self.lookup(cur[1], s, depth + 1)
            else:
                return self.member(cur[1], s)
        return cur

    def members(self):
        """{type Def: {name: Def}} over every impl block whose self type
        resolves in its module."""
        if self._members is None:
            self._members = {}
            for path, segs, fns in self.impls:
                t = self.resolve(path, segs) if segs else None
                if t and t[0] == "def":
                    own = self._members.setdefault(t[1], {})
                    for n, d in fns.items():
                        own.setdefault(n, d)
            for d, fns in self.traits.items():
                own = self._members.setdefault(d, {})
                for n, fd in fns.items():
                    own.setdefault(n, fd)
        return self._members

    def member(self, d, name):
        """Type::name: a function of d's impls (or of the trait d); an
        enum's variant gives the enum."""
        fn = self.members().get(d, {}).get(name)
        if fn is not None:
            return ("def", fn)
        if d["kind"] == "enum":
            return ("def", d)
        return None


def _path_at(t, j):
    """The path segments of a type written at j: `&'a mut a::B<T>` gives
    (a, B); None when it is not a path."""
    while t.at(j) in ("&", "mut", "dyn", "'") or (
            t.at(j - 1) == "'" and t.is_id(j)):
        j += 1
    segs = []
    while t.is_id(j) and t.text[j] not in ("for", "where"):
        segs.append(t.text[j])
        j += 1
        if t.at(j) == "<":
            j = t.skip_angle(j)
        if t.at(j) != "::":
            break
        j += 1
    return tuple(segs) if segs else None


class _Body:
    def __init__(self, crate, f, fn, path, owner):
        self.c = crate
        self.f = f
        self.t = f.toks
        self.fn = fn
        self.path = path
        self.owner = None  # the Def whose functions self.f() reaches
        if owner and owner[0] == "impl":
            mpath, segs, _ = crate.impls[owner[1]]
            t = crate.resolve(mpath, segs) if segs else None
            self.owner = t[1] if t and t[0] == "def" else None
        elif owner:
            self.owner = owner[1]
        self.locals = set()
        self.types = {}
        self.gold = lex.Gold(f.rel, (fn["start"], fn["end"]))
        self._params()

    def type_def(self, segs):
        if not segs:
            return None
        if segs == ("Self",):
            return self.owner
        r = self.c.resolve(self.path, segs)
        return r[1] if r and r[0] == "def" and \
            r[1]["kind"] in _TYPE_KINDS else None

    def _params(self):
        t = self.t
        p = self.fn["params"]
        close = t.close(p)
        j = p + 1
        while j < close:
            k = j
            while k < close and t.text[k] != ",":
                if t.text[k] in lex.OPEN:
                    k = t.close(k)
                elif t.text[k] == "<":
                    k = t.skip_angle(k) - 1
                k += 1
            colon = next((x for x in range(j, k) if t.text[x] == ":"), None)
            if colon is not None:
                names = [t.text[x] for x in range(j, colon) if t.is_id(x)
                         and t.text[x] not in ("mut", "ref")]
                for n in names:
                    self.locals.add(n)
                if len(names) == 1:
                    self.types[names[0]] = self.type_def(
                        _path_at(t, colon + 1))
            j = k + 1

    def scan_locals(self, a, b):
        t = self.t
        assigned = {}
        for i in range(a, b):
            s = t.text[i]
            if s == "let":
                j = i + 1
                names = []
                while j < b and t.text[j] not in ("=", ";", ":"):
                    if t.text[j] == "else":
                        break
                    if t.is_id(j) and t.text[j][0].islower() and \
                            t.text[j] not in ("mut", "ref") and \
                            t.at(j + 1) not in ("(", "::", "{", "!"):
                        names.append(t.text[j])
                    j += 1
                ty = None
                if t.at(j) == ":" and len(names) == 1:
                    ty = self.type_def(_path_at(t, j + 1))
                elif t.at(j) == "=" and len(names) == 1:
                    ty = self.rhs_type(j + 1)
                for n in names:
                    assigned.setdefault(n, []).append(ty)
            elif s == "for":
                j = i + 1
                while j < b and t.text[j] != "in":
                    if t.is_id(j) and t.text[j][0].islower():
                        assigned.setdefault(t.text[j], []).append(None)
                    j += 1
            elif s == "|" and t.at(i - 1) in ("(", ",", "=", "move", "{",
                                               ";", "=>", "return", "|"):
                j = i + 1
                while j < b and t.text[j] != "|" and j < i + 40:
                    if t.is_id(j) and t.text[j][0].islower() and \
                            t.at(j - 1) != ":":
                        assigned.setdefault(t.text[j], []).append(None)
                    j += 1
            elif s == "=>":
                j = i - 1
                while j > a and t.text[j] not in (",", "{", "}", ";"):
                    if t.text[j] in lex.CLOSE:
                        j = t.close(j)
                    if t.is_id(j) and t.text[j][0].islower() and \
                            t.at(j + 1) not in ("(", "::", "{", "!"):
                        assigned.setdefault(t.text[j], []).append(None)
                    j -= 1
                # Bindings inside the arm's pattern brackets.
                k = j + 1
                while k < i:
                    if t.is_id(k) and t.text[k][0].islower() and \
                            t.at(k + 1) not in ("(", "::", "{", "!") and \
                            t.at(k - 1) != "::":
                        assigned.setdefault(t.text[k], []).append(None)
                    k += 1
        for n, tys in assigned.items():
            if n in ("mut", "ref", "if", "in", "self", "_"):
                continue
            self.locals.add(n)
            tys = set(tys) | ({self.types[n]} if n in self.types else set())
            self.types[n] = tys.pop() if len(tys) == 1 else None

    def rhs_type(self, j):
        """The type of `Type { ... }` or `Type::f(...)` where f returns
        Self or Type."""
        t = self.t
        segs = _path_at(t, j)
        if not segs:
            return None
        k = j
        while t.is_id(k) or t.at(k) == "::":
            k += 1
            if t.at(k) == "<":
                k = t.skip_angle(k)
        if t.at(k) == "{":
            return self.type_def(segs)
        if t.at(k) == "(" and len(segs) >= 2:
            ty = self.type_def(segs[:-1])
            fn = self.c.member(ty, segs[-1]) if ty else None
            if fn and fn[1]["kind"] == "fn" and fn[1].get("ret"):
                ft = self.c.files[fn[1]["file"]].toks
                a, b = fn[1]["ret"]
                words = {ft.text[x] for x in range(a, b)}
                if "Self" in words or ty["name"] in words:
                    return ty
        return None

    def visit(self, a, b):
        t = self.t
        i = a
        while i < b:
            s = t.text[i]
            if not t.is_id(i) or t.at(i - 1) in (".", "::", "'") or \
                    (s in KEYWORDS and s not in ("crate", "self", "super",
                                                 "Self")):
                i += 1
                continue
            if t.at(i + 1) == "!" and t.at(i + 2) in ("(", "[", "{"):
                d = self.c.macros.get(s)
                self.gold.add(s + "!", d, "macro")
                i += 2
                continue
            if t.at(i + 1) == ":":
                i += 1
                continue  # a field of a struct expression
            segs, j = [s], i + 1
            while t.at(j) == "::":
                if t.at(j + 1) == "<":
                    j = t.skip_angle(j + 1)
                    continue
                if not t.is_id(j + 1):
                    break
                segs.append(t.text[j + 1])
                j += 2
            method = t.at(j) == "." and t.is_id(j + 1) and \
                t.at(j + 2) in ("(", "::")
            if len(segs) == 1 and (s in self.locals or s == "self"):
                if method:
                    ty = self.owner if s == "self" else self.types.get(s)
                    r = self.c.member(ty, t.text[j + 1]) if ty else None
                    if r and r[1]["kind"] == "fn":
                        self.gold.add(s + "." + t.text[j + 1], r[1],
                                      "receiver")
                i = j
                continue
            if segs[0] == "Self":
                r = self.c.member(self.owner, segs[1]) \
                    if self.owner and len(segs) > 1 else None
                via = "impl"
            else:
                r = self.c.resolve(self.path, tuple(segs))
                via = self._via(segs, r)
            if r and r[0] == "def":
                self.gold.add("::".join(segs), r[1], via)
            i = j

    def _via(self, segs, r):
        if not r or r[0] != "def":
            return None
        home = self.c.mods.get(r[1]["mod"])
        if len(segs) > 1 and (home is None or
                              home.items.get(r[1]["name"]) is not r[1]):
            return "impl"
        m = self.c.mods.get(self.path)
        if m and segs[0] in m.uses:
            return "use"
        return "module"


def candidates(crate):
    out = []
    for f, fn, body, path, owner in crate.funcs:
        span = lex.body_lines(f.toks, body)
        if not span or not lex.MIN_BODY_LINES <= span[1] - span[0] + 1 \
                <= lex.MAX_BODY_LINES:
            continue
        u = _Body(crate, f, fn, path, owner)
        a, b = body + 1, f.toks.close(body)
        u.scan_locals(a, b)
        u.visit(a, b)
        own = ""
        if owner and owner[0] == "impl":
            segs = crate.impls[owner[1]][1]
            own = (segs[-1] + "::") if segs else ""
        elif owner:
            own = owner[1]["name"] + "::"
        out.append({"file": f.rel, "function_name": own + fn["name"],
                    "gt_span": list(span), "gold": u.gold.items})
    return out


def build_tasks(root, name, cap=MAX_PER_PROJECT, per_file=None):
    """Returns (tasks, {name: root}) for the crate in root (see
    lex.select for the choice)."""
    crate = Crate(root)
    return lex.select(candidates(crate), name, root, crate.texts(), cap,
                      per_file)
