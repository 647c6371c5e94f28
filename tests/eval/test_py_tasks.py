"""Unit tests of the Python task generator (py_tasks.py) on a small
project written to a temporary directory."""

import os
import shutil
import sys
import tempfile
import textwrap
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import py_tasks  # noqa: E402

FILES = {
    "pkg/__init__.py": """\
        from .util import helper
        from . import shapes
        """,
    "pkg/util.py": """\
        def helper(x):
            return x + 1


        CONSTANT = 3
        """,
    "pkg/shapes.py": """\
        class Base:
            def area(self):
                return 0

            def describe(self):
                return "shape"


        class Square(Base):
            side = 1

            @property
            def size(self):
                s = self.side
                return s * s
        """,
    "pkg/sub/__init__.py": "",
    "pkg/sub/deep.py": """\
        def deep_fn():
            return 1
        """,
    "pkg/app.py": """\
        import pkg.sub.deep as deepmod
        import pkg.sub.deep
        from pkg import shapes
        from pkg import helper
        from .util import CONSTANT
        from . import util

        LOCAL = 5


        def local_helper():
            return LOCAL


        def use_imports(n):
            \"\"\"A docstring stays in the prompt.\"\"\"
            a = helper(n)
            b = deepmod.deep_fn() + pkg.sub.deep.deep_fn()
            c = util.helper(a) + CONSTANT
            return a + b + c


        def use_types(sq: shapes.Square):
            s = shapes.Square()
            t = s.area()
            return sq.describe(), t


        class App(shapes.Base):
            def run(self):
                x = self.area()
                y = self.start()
                return x, y

            def start(self):
                v = super().describe()
                return local_helper(), v

            def later(self):
                from pkg.sub import deep
                return deep.deep_fn(
                )


        def no_project(x):
            y = x * 2
            return sorted([y, x])


        def shadowed(helper):
            r = helper(1)
            return r


        def recursive(n):
            if n:
                return recursive(n - 1)
            return 0
        """,
    "pkg/tests/test_app.py": """\
        from pkg.util import helper


        def test_helper():
            assert helper(1) == 2
            assert helper(2) == 3
        """,
}


def write_project(root, files=FILES):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", newline="") as f:
            f.write(textwrap.dedent(text))


def line_of(root, rel, needle):
    with open(os.path.join(root, rel)) as f:
        for i, line in enumerate(f):
            if needle in line:
                return i
    raise AssertionError("%s not in %s" % (needle, rel))


class PyTasksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.root = tempfile.mkdtemp(prefix="py-tasks-")
        write_project(cls.root)
        tasks, dirs = py_tasks.build_tasks(cls.root, "demo", cap=100,
                                           per_file=100)
        cls.tasks = tasks
        cls.dirs = dirs
        cls.by_name = {t["function_name"]: t for t in tasks}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.root)

    def gold(self, func):
        return {(g["name"], g["file"], g["start"], g["end"],
                 g["cross_file"], g["via"])
                for g in self.by_name[func]["gold"]}

    def span(self, rel, first_needle, last_needle):
        return (line_of(self.root, rel, first_needle),
                line_of(self.root, rel, last_needle))

    def test_import_forms(self):
        helper = self.span("pkg/util.py", "def helper", "return x + 1")
        const = line_of(self.root, "pkg/util.py", "CONSTANT")
        deep = self.span("pkg/sub/deep.py", "def deep_fn", "return 1")
        self.assertEqual(self.gold("use_imports"), {
            # via the package __init__ re-export; util.helper is the same
            # definition and counts once.
            ("helper", "pkg/util.py") + helper + (True, "import"),
            # import a.b as m then m.f, and import a.b then a.b.f
            ("deep_fn", "pkg/sub/deep.py") + deep + (True, "import"),
            ("CONSTANT", "pkg/util.py", const, const, True, "import")})
        # from pkg.sub import mod inside the function, then mod.f
        self.assertEqual(self.gold("App.later"), {
            ("deep_fn", "pkg/sub/deep.py") + deep + (True, "import")})

    def test_types_self_and_bases(self):
        square = self.span("pkg/shapes.py", "class Square", "return s * s")
        area = self.span("pkg/shapes.py", "def area", "return 0")
        describe = self.span("pkg/shapes.py", "def describe",
                             'return "shape"')
        # `shapes.Square()` gives the class; s = Square() and the
        # parameter annotation give the methods, found in the base.
        self.assertEqual(self.gold("use_types"), {
            ("Square", "pkg/shapes.py") + square + (True, "import"),
            ("Base.area", "pkg/shapes.py") + area + (True, "type-hint"),
            ("Base.describe", "pkg/shapes.py") + describe +
            (True, "type-hint")})
        start = self.span("pkg/app.py", "def start", "return local_helper")
        self.assertEqual(self.gold("App.run"), {
            ("Base.area", "pkg/shapes.py") + area + (True, "base-class"),
            ("App.start", "pkg/app.py") + start + (False, "self")})
        local = self.span("pkg/app.py", "def local_helper", "return LOCAL")
        self.assertEqual(self.gold("App.start"), {
            ("Base.describe", "pkg/shapes.py") + describe +
            (True, "base-class"),
            ("local_helper", "pkg/app.py") + local + (False, "same-file")})
        side = line_of(self.root, "pkg/shapes.py", "side = 1")
        self.assertEqual(self.gold("Square.size"), {
            ("Square.side", "pkg/shapes.py", side, side, False, "self")})

    def test_what_is_not_gold(self):
        # A parameter shadows the import; a recursive call is the code
        # being written; neither is gold, and neither body can use
        # another definition of the project, so both are empty-gold tasks.
        self.assertEqual(self.gold("shadowed"), set())
        self.assertEqual(self.gold("recursive"), set())
        self.assertEqual(self.gold("no_project"), set())
        # One-line bodies are too short; test files give no task.
        self.assertNotIn("local_helper", self.by_name)
        self.assertFalse([t for t in self.tasks if "tests/" in t["file"]])
        self.assertEqual(self.dirs, {"demo": os.path.realpath(self.root)})

    def test_blanking_keeps_line_count(self):
        for t in self.tasks:
            with open(os.path.join(self.root, t["file"]), newline="") as f:
                orig = f.read()
            a, b = t["gt_span"]
            old, new = orig.split("\n"), t["text"].split("\n")
            self.assertEqual(len(old), len(new))
            self.assertEqual(t["cursor_line"], a)
            for i, (x, y) in enumerate(zip(old, new)):
                self.assertEqual(y, "" if a <= i <= b else x, (t["id"], i))
        t = self.by_name["use_imports"]
        a, b = t["gt_span"]
        self.assertEqual((a, b), self.span("pkg/app.py", "a = helper(n)",
                                           "return a + b + c"))
        self.assertEqual(py_tasks.blank("a\r\nb\r\nc\fd\r\ne", 1, 2),
                         "a\r\n\r\n\r\ne")

    def test_deterministic_and_capped(self):
        again, _ = py_tasks.build_tasks(self.root, "demo", cap=100,
                                        per_file=100)
        self.assertEqual(again, self.tasks)
        self.assertEqual([t["id"] for t in self.tasks],
                         ["demo/%d" % i for i in range(len(self.tasks))])
        self.assertEqual(self.tasks, sorted(
            self.tasks, key=lambda t: (t["file"], t["cursor_line"])))
        small, _ = py_tasks.build_tasks(self.root, "demo", cap=4,
                                        per_file=3)
        self.assertEqual(len(small), 4)
        per = {}
        for t in small:
            per[t["file"]] = per.get(t["file"], 0) + 1
        self.assertEqual(max(per.values()), 3)
        # Cross-file tasks come first (quota 60% of 4 = 2, then the rest).
        cross = [t for t in small if any(g["cross_file"] for g in t["gold"])]
        self.assertGreaterEqual(len(cross), 2)
        self.assertEqual(small, py_tasks.build_tasks(
            self.root, "demo", cap=4, per_file=3)[0])

    def test_test_paths(self):
        self.assertTrue(py_tasks.is_test_path("a/tests/b.py"))
        self.assertTrue(py_tasks.is_test_path("a/test/b.py"))
        self.assertTrue(py_tasks.is_test_path("a/test_b.py"))
        self.assertFalse(py_tasks.is_test_path("a/testing.py"))
        self.assertFalse(py_tasks.is_test_path("a/contest.py"))


if __name__ == "__main__":
    unittest.main()
