"""Builds Python task sets from installed projects with the ast module.

A task is a function or method body in file A of a project; the body (its
statements after the docstring) is blanked, line count kept, and the gold is
the project's definitions that body uses, in the format of the RepoEval
gold.jsonl (see shared/bench/README.md): {name, file, start, end (0-based,
inclusive, decorators included), cross_file, via}.

Uses are resolved exactly from the syntax tree, never by name alone:

  import     a name bound by `from x import y` (also relative, and
             through the package __init__ re-exports and `import *` that
             lead to the definition), or `mod.f` after `import a.b as mod`,
             `import a.b` (then `a.b.f`) or `from pkg import mod`, also
             when the import statement is inside the function;
  same-file  a module-level function, class or assignment of file A;
  self       `self.m` / `cls.m` found in the enclosing class;
  base-class `self.m` or `super().m` found in a base class of the project;
  type-hint  `x.m` where x is a parameter annotated `Foo`, or assigned
             `x = Foo(...)` / annotated `x: Foo` in the function, Foo a
             project class: the method of Foo (or of its bases).

`Foo.m` gives the member only, not the class Foo as well. A definition that
contains the task's own function (the function itself when recursive, its
enclosing class) is not gold: it is the code being written.

Tasks come from the project's files outside test directories. Empty-gold
tasks are kept only when no identifier of the body could name a project
definition (no attribute or free name equal to a name the project defines),
so they are cursors that really use nothing of the workspace. Selection is
deterministic (see build_tasks): files and candidates shuffled with a seed
made of SEED and the project name, quotas per kind (cross-file, same-file
only, empty), a cap per file and per project.
"""

import ast
import builtins
import os
import random
import re

SEED = 15
MAX_PER_FILE = 3
MAX_PER_PROJECT = 150
MIN_BODY_LINES = 2
MAX_BODY_LINES = 60
# Shares of a project's cap reserved for each class of task, in the order
# they are filled; what one class leaves unused goes to the next rounds.
QUOTA = (("cross", 0.6), ("same", 0.3), ("empty", 0.1))
MAX_DEPTH = 12  # import chains and base classes followed at most this deep
MAX_FILE_BYTES = 200000  # larger files are generated tables, not tasks
TEST_DIRS = {"test", "tests", "testing", "__tests__"}
_BUILTINS = set(dir(builtins))
_DEF_NAME = re.compile(r"^[ \t]*(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)|"
                       r"^(?:    )?(\w+)[ \t]*(?::[^=\n]*)?=(?!=)", re.M)


def is_test_path(rel):
    parts = rel.replace(os.sep, "/").split("/")
    name = parts[-1]
    return any(p in TEST_DIRS for p in parts[:-1]) or \
        name.startswith("test_") or name.endswith("_test.py") or \
        name == "conftest.py"


def split_lines(text):
    """Lines as ast and LSP count them here: split at "\\n" only (a "\\r"
    before it stays on its line); form feeds and other separators that
    str.splitlines would also split at do not end a line."""
    return text.split("\n")


def blank(text, first, last):
    """text with lines first..last (0-based, inclusive) emptied; every line
    keeps its terminator, so the line count and numbers hold."""
    lines = split_lines(text)
    for i in range(first, min(last, len(lines) - 1) + 1):
        lines[i] = "\r" if lines[i].endswith("\r") else ""
    return "\n".join(lines)


def _span(node):
    """0-based (first, last) of a definition, decorators included."""
    first = node.lineno
    for d in getattr(node, "decorator_list", ()):
        first = min(first, d.lineno)
    return first - 1, node.end_lineno - 1


def _assigned_names(stmt):
    """Names a module- or class-level assignment binds (plain names
    only)."""
    if isinstance(stmt, ast.Assign):
        out = []
        for t in stmt.targets:
            if isinstance(t, ast.Name):
                out.append(t.id)
            elif isinstance(t, (ast.Tuple, ast.List)):
                out.extend(e.id for e in t.elts if isinstance(e, ast.Name))
        return out
    if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
        return [stmt.target.id]
    return []


def _flat(body):
    """Statements of a module or class body, with those under if/try/with
    at that level (conditional definitions, guarded imports) in order."""
    for s in body:
        yield s
        if isinstance(s, ast.If):
            yield from _flat(s.body)
            yield from _flat(s.orelse)
        elif isinstance(s, ast.Try) or (hasattr(ast, "TryStar") and
                                        isinstance(s, ast.TryStar)):
            yield from _flat(s.body)
            for h in s.handlers:
                yield from _flat(h.body)
            yield from _flat(s.orelse)
            yield from _flat(s.finalbody)
        elif isinstance(s, ast.With):
            yield from _flat(s.body)


class Module:
    """One file: its definitions and its module-level bindings."""

    def __init__(self, rel, name, is_pkg, text):
        self.rel = rel
        self.name = name
        self.is_pkg = is_pkg
        self.text = text
        self.tree = ast.parse(text, filename=rel)
        # qualified name -> (first, last, node); node is a ClassDef,
        # FunctionDef or an assignment.
        self.defs = {}
        # name -> ("def", qual) | ("from", module, name) | ("module", name)
        self.bindings = {}
        self.stars = []  # modules whose names `from m import *` brings in
        self._collect()

    def package(self):
        return self.name if self.is_pkg else self.name.rpartition(".")[0]

    def absolute(self, module, level):
        """The absolute name of an ImportFrom's module."""
        if not level:
            return module
        base = self.package().split(".") if self.package() else []
        if level > 1:
            base = base[:len(base) - (level - 1)]
        parts = base + ([module] if module else [])
        return ".".join(p for p in parts if p)

    def _collect(self):
        rank = {}  # name -> priority of its binding: def 0, assign 1, import 2

        def bind(name, value, prio):
            if name not in rank or prio < rank[name]:
                rank[name] = prio
                self.bindings[name] = value

        for s in _flat(self.tree.body):
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                              ast.ClassDef)):
                self._add_def(s.name, s)
                bind(s.name, ("def", s.name), 0)
            elif isinstance(s, (ast.Assign, ast.AnnAssign)):
                for n in _assigned_names(s):
                    if n not in self.defs:
                        self.defs[n] = _span(s) + (s,)
                    bind(n, ("def", n), 1)
            elif isinstance(s, ast.Import):
                for a in s.names:
                    if a.asname:
                        bind(a.asname, ("module", a.name), 2)
                    else:
                        top = a.name.split(".")[0]
                        bind(top, ("module", top), 2)
            elif isinstance(s, ast.ImportFrom):
                mod = self.absolute(s.module, s.level)
                for a in s.names:
                    if a.name == "*":
                        if mod not in self.stars:
                            self.stars.append(mod)
                    else:
                        bind(a.asname or a.name, ("from", mod, a.name), 2)

    def _add_def(self, qual, node):
        old = self.defs.get(qual)
        if old and not isinstance(old[2], (ast.Assign, ast.AnnAssign)):
            return  # the first of redefinitions (property setters, ...)
        self.defs[qual] = _span(node) + (node,)
        if isinstance(node, ast.ClassDef):
            for s in _flat(node.body):
                if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef,
                                  ast.ClassDef)):
                    self._add_def(qual + "." + s.name, s)
                else:
                    for n in _assigned_names(s):
                        if qual + "." + n not in self.defs:
                            self.defs[qual + "." + n] = _span(s) + (s,)


class Project:
    """The modules of a project rooted at root (the directory that holds
    the top-level package, so that absolute imports resolve). A module is
    parsed when first asked for: sympy's 1,400 files take a minute."""

    def __init__(self, root):
        self.root = root
        self.files = {}  # dotted name -> relative path
        self.names = {}  # relative path -> dotted name
        self._parsed = {}  # dotted name -> Module or None
        for dirpath, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__" and
                             not d.startswith("."))
            for fname in sorted(files):
                full = os.path.join(dirpath, fname)
                if not fname.endswith(".py") or os.path.islink(full):
                    continue
                rel = os.path.relpath(full, root).replace(os.sep, "/")
                parts = rel[:-3].split("/")
                if parts[-1] == "__init__":
                    parts = parts[:-1]
                name = ".".join(parts)
                if name not in self.files or rel.endswith("/__init__.py"):
                    self.files[name] = rel
                self.names[rel] = name
        # Every module and every package above one (a namespace package
        # without __init__.py is still importable).
        self.packages = set()
        for name in self.files:
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                self.packages.add(".".join(parts[:i]))
        self._def_names = None
        self._lookups = {}
        self._resolved = {}

    def text(self, rel):
        with open(os.path.join(self.root, rel), encoding="utf-8",
                  errors="replace", newline="") as f:
            return f.read()

    def module(self, name):
        """The parsed module of a dotted name, or None (not in the project,
        or not parseable)."""
        if name not in self._parsed:
            rel = self.files.get(name)
            m = None
            if rel is not None:
                try:
                    m = Module(rel, name, rel.endswith("__init__.py"),
                               self.text(rel))
                except (SyntaxError, ValueError):
                    m = None
            self._parsed[name] = m
        return self._parsed[name]

    def module_at(self, rel):
        return self.module(self.names[rel])

    def def_names(self):
        """Names the project may define, read lexically from every file
        (defs and classes at any depth, assignments at the first two
        indentation levels): a superset, used only to keep out of the
        empty-gold tasks any body that might use the project."""
        if self._def_names is None:
            out = set()
            for rel in self.names:
                out.update(m.group(1) or m.group(2)
                           for m in _DEF_NAME.finditer(self.text(rel)))
            self._def_names = out
        return self._def_names

    # ---- resolution --------------------------------------------------
    # A target is None (outside the project or unknown), ("module", name),
    # ("def", module name, qualified name) or ("inst", module name, class
    # qualified name): an instance of a project class.

    def resolve(self, modname, name, depth=0, seen=None):
        """What name means at module level of modname. Answers are kept:
        those of a whole search, and every hit (a miss inside a search
        may only mean that a cycle was cut)."""
        key = (modname, name)
        if key in self._resolved:
            return self._resolved[key]
        if depth > MAX_DEPTH:
            return None
        top = seen is None
        seen = set() if seen is None else seen
        if key in seen:
            return None
        seen.add(key)
        t = self._resolve(modname, name, depth, seen)
        if top or t is not None:
            self._resolved[key] = t
        return t

    def _resolve(self, modname, name, depth, seen):
        m = self.module(modname)
        if m is None:
            return None
        b = m.bindings.get(name)
        if b is not None:
            return self._binding(modname, b, depth, seen)
        for star in m.stars:
            t = self.resolve(star, name, depth + 1, seen)
            if t is not None:
                return t
        sub = modname + "." + name
        if sub in self.files:
            return ("module", sub)
        return None

    def _binding(self, modname, b, depth, seen):
        if b[0] == "def":
            return ("def", modname, b[1])
        if b[0] == "module":
            return ("module", b[1]) if self._is_module(b[1]) else None
        _, mod, attr = b
        t = self.resolve(mod, attr, depth + 1, seen)
        if t is not None:
            return t
        if mod + "." + attr in self.files:
            return ("module", mod + "." + attr)
        return None

    def _is_module(self, name):
        return name in self.packages

    def lookup(self, modname, qual, name):
        """Finds member name in class qual of modname or its project bases
        (depth first, in the order written). Returns (module name,
        qualified name, found in a base) or None."""
        key = (modname, qual, name)
        if key not in self._lookups:
            self._lookups[key] = self._lookup(modname, qual, name, 0, set())
        return self._lookups[key]

    def _lookup(self, modname, qual, name, depth, seen):
        if depth > MAX_DEPTH or (modname, qual) in seen:
            return None
        seen.add((modname, qual))
        m = self.module(modname)
        if qual + "." + name in m.defs:
            return modname, qual + "." + name, depth > 0
        node = m.defs[qual][2]
        for base in getattr(node, "bases", ()):
            t = self.expr_at_module(m, base)
            if t and t[0] == "def" and self.is_class(t):
                hit = self._lookup(t[1], t[2], name, depth + 1, seen)
                if hit:
                    return hit[0], hit[1], True
        return None

    def expr_at_module(self, m, expr):
        """Resolves a dotted name written at module level of m."""
        if isinstance(expr, ast.Name):
            return self.resolve(m.name, expr.id)
        if isinstance(expr, ast.Attribute):
            return self.member(self.expr_at_module(m, expr.value), expr.attr)
        return None

    def member(self, t, attr):
        if t is None:
            return None
        if t[0] == "module":
            r = self.resolve(t[1], attr)
            if r is None and t[1] + "." + attr in self.files:
                return ("module", t[1] + "." + attr)
            return r
        if t[0] in ("def", "inst") and self.is_class(t):
            hit = self.lookup(t[1], t[2], attr)
            if hit:
                return ("def", hit[0], hit[1])
        return None

    def is_class(self, t):
        node = self.module(t[1]).defs[t[2]][2]
        return isinstance(node, ast.ClassDef)

    def span(self, t):
        m = self.module(t[1])
        first, last, _ = m.defs[t[2]]
        return m.rel, first, last


class _FunctionUses:
    """Resolves what one function's body uses. Builds the gold list."""

    def __init__(self, project, module, func, cls_qual):
        self.p = project
        self.m = module
        self.func = func
        self.cls = cls_qual  # qualified name of the enclosing class or None
        self.locals = set()
        self.types = {}  # local name -> ("inst", module, class) or None
        self.imports = {}  # names bound by import statements in the body
        self.gold = []
        self.free = set()  # identifiers that did not resolve
        self.self_kind = None  # "inst" or "cls" for the first parameter
        self.self_name = None
        self._scan_signature()

    # ---- the function's own names ------------------------------------

    def _scan_signature(self):
        a = self.func.args
        params = a.posonlyargs + a.args
        decos = {d.id for d in self.func.decorator_list
                 if isinstance(d, ast.Name)}
        if self.cls and params and "staticmethod" not in decos:
            self.self_name = params[0].arg
            self.self_kind = "cls" if "classmethod" in decos or \
                self.func.name == "__new__" else "inst"
        for arg in params + a.kwonlyargs + [a.vararg, a.kwarg]:
            if arg is None:
                continue
            self.locals.add(arg.arg)
            if arg.annotation is not None and arg.arg != self.self_name:
                t = self._annotation(arg.annotation)
                if t:
                    self.types[arg.arg] = t

    def _annotation(self, node):
        """The project class an annotation names, as an instance type."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                node = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                return None
        if isinstance(node, ast.Subscript) and \
                isinstance(node.value, (ast.Name, ast.Attribute)) and \
                (getattr(node.value, "id", None) or
                 getattr(node.value, "attr", None)) == "Optional":
            return self._annotation(node.slice)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            ts = [t for t in (self._annotation(node.left),
                              self._annotation(node.right)) if t]
            return ts[0] if len(ts) == 1 else None
        if not isinstance(node, (ast.Name, ast.Attribute)):
            return None
        t = self.module_level(node)
        if t and t[0] == "def" and self.p.is_class(t):
            return ("inst", t[1], t[2])
        return None

    def module_level(self, node):
        """A dotted name as the module (plus the body's imports) sees it."""
        if isinstance(node, ast.Name):
            if node.id in self.imports:
                return self.imports[node.id]
            return self.p.resolve(self.m.name, node.id)
        if isinstance(node, ast.Attribute):
            return self.p.member(self.module_level(node.value), node.attr)
        return None

    def scan_body(self, stmts):
        """Collects the body's local names, its import statements and the
        local types of `x = Foo(...)` and `x: Foo`."""
        assigned = {}
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.Name) and \
                        isinstance(n.ctx, (ast.Store, ast.Del)):
                    self.locals.add(n.id)
                elif isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                    ast.ClassDef)):
                    self.locals.add(n.name)
                elif isinstance(n, ast.arg):
                    self.locals.add(n.arg)
                elif isinstance(n, ast.ExceptHandler) and n.name:
                    self.locals.add(n.name)
                elif isinstance(n, (ast.Import, ast.ImportFrom)):
                    self._local_import(n)
        for s in stmts:
            for n in ast.walk(s):
                if isinstance(n, ast.Assign) and len(n.targets) == 1 and \
                        isinstance(n.targets[0], ast.Name):
                    assigned.setdefault(n.targets[0].id, []).append(
                        self._constructed(n.value))
                elif isinstance(n, ast.AnnAssign) and \
                        isinstance(n.target, ast.Name):
                    assigned.setdefault(n.target.id, []).append(
                        self._annotation(n.annotation))
                elif isinstance(n, (ast.AugAssign, ast.For, ast.With,
                                    ast.NamedExpr)):
                    for t in ast.walk(getattr(n, "target", n)):
                        if isinstance(t, ast.Name) and \
                                isinstance(t.ctx, ast.Store):
                            assigned.setdefault(t.id, []).append(None)
        for name, ts in assigned.items():
            if name in self.imports:
                continue
            known = self.types.get(name)
            ts = set(ts) | ({known} if name in self.types else set())
            # One type for every assignment, or the name is not typed.
            self.types[name] = ts.pop() if len(ts) == 1 else None

    def _constructed(self, value):
        if isinstance(value, ast.Call) and \
                isinstance(value.func, (ast.Name, ast.Attribute)):
            t = self.module_level(value.func)
            if t and t[0] == "def" and self.p.is_class(t):
                return ("inst", t[1], t[2])
        return None

    def _local_import(self, n):
        if isinstance(n, ast.Import):
            for a in n.names:
                name = a.asname or a.name.split(".")[0]
                target = a.name if a.asname else name
                self.imports[name] = ("module", target) \
                    if self.p._is_module(target) else None
        else:
            mod = self.m.absolute(n.module, n.level)
            for a in n.names:
                if a.name == "*":
                    continue
                self.imports[a.asname or a.name] = self.p._binding(
                    self.m.name, ("from", mod, a.name), 0, set())

    # ---- uses ------------------------------------------------------------

    def target(self, node):
        """(target, via) of an expression, without recording gold."""
        if isinstance(node, ast.Name):
            n = node.id
            if n == self.self_name:
                kind = "inst" if self.self_kind == "inst" else "def"
                return (kind, self.m.name, self.cls), "self"
            if n in self.imports:
                return self.imports[n], "import"
            if n in self.types:
                return self.types[n], "type-hint"
            if n in self.locals:
                return None, None
            b = self.m.bindings.get(n)
            via = "same-file" if b and b[0] == "def" else "import"
            return self.p.resolve(self.m.name, n), via
        if isinstance(node, ast.Attribute):
            base, via = self.target(node.value)
            if base is None:
                return None, None
            if base[0] == "module":
                return self.p.member(base, node.attr), "import"
            if base[0] == "super":
                return self._super_member(node.attr), "base-class"
            if self.p.is_class(base):
                hit = self.p.lookup(base[1], base[2], node.attr)
                if hit:
                    if hit[2] and via == "self":
                        via = "base-class"
                    return ("def", hit[0], hit[1]), via
            return None, None
        if isinstance(node, ast.Call) and self.cls and \
                isinstance(node.func, ast.Name) and \
                node.func.id == "super" and "super" not in self.locals:
            return ("super", self.m.name, self.cls), "base-class"
        return None, None

    def _super_member(self, name):
        """super().name: the member of the first project base (in the
        order written, each with its own bases) that has it."""
        cls = self.m.defs[self.cls][2]
        for base in cls.bases:
            t = self.p.expr_at_module(self.m, base)
            if t and t[0] == "def" and self.p.is_class(t):
                hit = self.p.lookup(t[1], t[2], name)
                if hit:
                    return ("def", hit[0], hit[1])
        return None

    def visit(self, stmts):
        """Records the gold: every name or attribute of the body that
        resolves to a project definition, except the receiver of an
        attribute that resolved itself (`Foo.m` gives Foo.m, not Foo) and
        the function's own first parameter (self, cls)."""
        seen = []  # (node, target, via) in walk order
        suppressed = set()
        for s in stmts:
            for n in ast.walk(s):
                if not isinstance(n, (ast.Name, ast.Attribute)) or \
                        not isinstance(n.ctx, ast.Load):
                    continue
                t, via = self.target(n)
                seen.append((n, t, via))
                if isinstance(n, ast.Attribute):
                    if t is not None:
                        suppressed.add(id(n.value))
                    else:
                        base, _ = self.target(n.value)
                        if base is None or base[0] == "module":
                            self.free.add(n.attr)
                elif t is None and n.id not in self.locals and \
                        n.id not in self.imports and \
                        n.id not in _BUILTINS:
                    self.free.add(n.id)
        for n, t, via in seen:
            if id(n) in suppressed or t is None or t[0] != "def":
                continue
            if isinstance(n, ast.Name) and n.id == self.self_name:
                continue
            self._add(t, via)

    def _add(self, t, via):
        rel, first, last = self.p.span(t)
        own_first, own_last = _span(self.func)
        if rel == self.m.rel and first <= own_last and own_first <= last:
            return  # the function itself or a class around it
        for g in self.gold:
            if g["file"] == rel and g["start"] == first:
                return
        self.gold.append({"name": t[2], "file": rel, "start": first,
                          "end": last, "cross_file": rel != self.m.rel,
                          "via": via})


def _functions(tree):
    """Yields (function node, qualified name of its class or None) for
    module-level functions and methods of (nested) classes; functions
    nested in functions are left to their outer function's task."""
    def walk(body, cls):
        for s in _flat(body):
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield s, cls
            elif isinstance(s, ast.ClassDef):
                yield from walk(s.body, (cls + "." if cls else "") + s.name)
    yield from walk(tree.body, None)


def _body_span(func, lines):
    """0-based (first, last) lines of the statements after the docstring,
    or None when there are none or the first does not begin its own line
    (`def f(): return x`)."""
    body = func.body
    if body and isinstance(body[0], ast.Expr) and \
            isinstance(body[0].value, ast.Constant) and \
            isinstance(body[0].value.value, str):
        body = body[1:]
    if not body:
        return None
    first = body[0]
    for d in getattr(first, "decorator_list", ()):
        if d.lineno < first.lineno:
            first = d
    if lines[first.lineno - 1][:first.col_offset].strip() not in ("", "@"):
        return None
    return first.lineno - 1, body[-1].end_lineno - 1


def candidates(project, rel):
    """Every task candidate of one file: (kind, task) with kind "cross",
    "same" or "empty"."""
    m = project.module_at(rel)
    if m is None:
        return []
    lines = split_lines(m.text)
    if any("\r" in line[:-1] for line in lines):
        return []  # a lone carriage return: ast and the blanking disagree
    out = []
    for func, cls in _functions(m.tree):
        span = _body_span(func, lines)
        if span is None:
            continue
        a, b = span
        if not MIN_BODY_LINES <= b - a + 1 <= MAX_BODY_LINES:
            continue
        stmts = [s for s in func.body if s.lineno - 1 >= a]
        u = _FunctionUses(project, m, func, cls)
        u.scan_body(stmts)
        u.visit(stmts)
        gold = sorted(u.gold, key=lambda g: (g["file"], g["start"]))
        if any(g["cross_file"] for g in gold):
            kind = "cross"
        elif gold:
            kind = "same"
        elif u.free & project.def_names():
            continue  # may use the project through names we cannot follow
        else:
            kind = "empty"
        out.append((kind, {
            "repo": None, "file": rel,
            "function_name": (cls + "." if cls else "") + func.name,
            "cursor_line": a, "gt_span": [a, b], "gold": gold}))
    return out


def build_tasks(root, name, cap=MAX_PER_PROJECT, per_file=None):
    """Returns (tasks, {name: root}) for the project in root; tasks carry
    the fields the harness reads (id, repo, file, cursor_line, gt_span,
    gold, text with the body blanked, function_name).

    Files outside tests (and not over MAX_FILE_BYTES) are visited in an
    order shuffled with the seed; each file's candidates, shuffled too, are
    taken while their kind's quota (QUOTA) and the file's cap allow. The
    walk stops when every quota is full; if the files run out first, what
    was left is taken to fill the cap, cross-file first, then same-file.
    per_file defaults to MAX_PER_FILE, or more for a project of few files
    (twice its share of the cap), so that small projects still give
    tasks."""
    project = Project(root)
    files = [rel for rel in sorted(project.names) if not is_test_path(rel)
             and os.path.getsize(os.path.join(root, rel)) <= MAX_FILE_BYTES]
    if per_file is None:
        per_file = max(MAX_PER_FILE, -(-2 * cap // max(1, len(files))))
    rng = random.Random("%d:%s" % (SEED, name))
    rng.shuffle(files)
    quota = {kind: int(cap * share) for kind, share in QUOTA}
    count = {kind: 0 for kind in quota}
    taken, spare, per = [], [], {}

    def take(t):
        taken.append(t)
        per[t["file"]] = per.get(t["file"], 0) + 1

    for rel in files:
        cands = candidates(project, rel)
        rng.shuffle(cands)
        for kind, t in cands:
            if count[kind] < quota[kind] and per.get(rel, 0) < per_file:
                count[kind] += 1
                take(t)
            else:
                spare.append((kind, t))
        if all(count[k] >= quota[k] for k in quota):
            break
    for want in ("cross", "same"):
        for kind, t in spare:
            if len(taken) >= cap:
                break
            if kind == want and per.get(t["file"], 0) < per_file:
                take(t)
    tasks = sorted(taken, key=lambda t: (t["file"], t["cursor_line"]))
    for i, t in enumerate(tasks):
        t["id"] = "%s/%d" % (name, i)
        t["repo"] = name
        a, b = t["gt_span"]
        t["text"] = blank(project.text(t["file"]), a, b)
    return tasks, {name: os.path.realpath(root)}
