"""Unit tests of the precision figures of make eval: the share of castls'
top 5 from the current file, from another language, duplicated, and
noContext with and without gold; through fake_server.py as the server."""

import argparse
import io
import json
import os
import shutil
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import run  # noqa: E402
import score  # noqa: E402

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "fake_server.py")


class FamilyTest(unittest.TestCase):
    def test_families(self):
        f = score.language_family
        self.assertEqual(f("a/b.py"), f("a/b.pyi"))
        self.assertEqual(f("x.ts"), f("x.tsx"))
        self.assertEqual(f("x.ts"), f("x.js"))
        self.assertEqual(f("x.d.ts"), f("x.mjs"))
        self.assertNotEqual(f("x.py"), f("x.ts"))
        self.assertNotEqual(f("x.py"), f("README.md"))
        self.assertNotEqual(f("x.ts"), f("x.sh"))
        # Without a known extension the item's language id decides.
        self.assertEqual(f("completions/git", "bash"), f("x.sh"))
        self.assertEqual(f("notes.txt"), ".txt")
        self.assertNotEqual(f("x.rst"), f("x.py"))


class CountsTest(unittest.TestCase):
    def test_counts_over_the_top_five(self):
        items = [("a.py", 10, 20),   # current file
                 ("b.py", 0, 5),
                 ("b.py", 5, 9),     # overlaps the one above: duplicate
                 ("README.md", 0, 3),  # another language
                 ("c.py", 0, 5),     # same text as b.py 0-5: duplicate
                 ("z.ts", 0, 1)]     # rank 6: not counted
        meta = [("python", "x"), ("python", "def f():\n  pass\n"),
                ("python", "y"), ("markdown", "# b"),
                ("python", "def f():\n  pass"), ("typescript", "q")]
        c = score.precision_counts(items, meta, "a.py")
        self.assertEqual(c, {"n": 5, "same_file": 1, "other_language": 1,
                             "duplicate": 2})
        # Blank texts are no duplicates; missing meta is allowed.
        c = score.precision_counts([("b.py", 0, 0), ("c.py", 0, 0)],
                                   [(None, " "), (None, " ")], "a.py")
        self.assertEqual(c["duplicate"], 0)
        c = score.precision_counts([("b.ts", 0, 0)], [], "a.py")
        self.assertEqual(c["other_language"], 1)

    def test_pooled_shares(self):
        s = score.precision_shares([
            {"n": 5, "same_file": 5, "other_language": 0, "duplicate": 1},
            {"n": 3, "same_file": 1, "other_language": 3, "duplicate": 0},
            {"n": 0, "same_file": 0, "other_language": 0, "duplicate": 0}])
        self.assertEqual(s, {"same_file": 6 / 8, "other_language": 3 / 8,
                             "duplicate": 1 / 8, "items": 8 / 3})
        self.assertEqual(score.precision_shares([])["same_file"], None)


def fake_line(items, no_context=False):
    return "#fake-context " + json.dumps({"items": items,
                                          "noContext": no_context})


class FakeServerTest(unittest.TestCase):
    """castls_repo against the stand-in server, whose replies the tasks'
    buffers spell out; then the figures and the rows of the report."""

    def setUp(self):
        self.work = tempfile.mkdtemp(prefix="eval-precision-")
        self.repo = os.path.join(self.work, "repo")
        os.makedirs(os.path.join(self.repo, "pkg"))
        for rel in ("pkg/a.py", "pkg/b.py", "README.md"):
            with open(os.path.join(self.repo, rel), "w") as f:
                f.write("x = 1\n" * 30)
        g = {"name": "f", "file": "pkg/b.py", "start": 0, "end": 4,
             "cross_file": True, "via": "import"}
        self.tasks = [
            # 3 current-file items, 1 Markdown, 1 duplicate of b.py 0-4
            {"id": "r/0", "repo": "r", "file": "pkg/a.py", "cursor_line": 5,
             "gt_span": [5, 6], "gold": [g], "text": "\n".join([
                 fake_line([["pkg/a.py", 0, 2, "python", "a0"],
                            ["pkg/b.py", 0, 4, "python", "def f(): pass"],
                            ["pkg/a.py", 10, 12, "python", "a1"],
                            ["README.md", 0, 1, "markdown", "# f"],
                            ["pkg/a.py", 20, 21, "python",
                             "def f(): pass\n"]])] + [""] * 29)},
            # empty gold, answered noContext
            {"id": "r/1", "repo": "r", "file": "pkg/a.py", "cursor_line": 8,
             "gt_span": [8, 9], "gold": [], "text": fake_line(
                 [], no_context=True) + "\n" * 29},
            # empty gold, answered with an item
            {"id": "r/2", "repo": "r", "file": "pkg/a.py", "cursor_line": 8,
             "gt_span": [8, 9], "gold": [], "text": fake_line(
                 [["pkg/b.py", 0, 4, "python", "b"]]) + "\n" * 29},
            # gold, but noContext: a stop that costs recall
            {"id": "r/3", "repo": "r", "file": "pkg/a.py", "cursor_line": 8,
             "gt_span": [8, 9], "gold": [g], "text": fake_line(
                 [], no_context=True) + "\n" * 29},
        ]
        self.args = argparse.Namespace(
            castls=FAKE, init_options=None, index_timeout=10,
            request_timeout=10, methods="castls", work=self.work)

    def tearDown(self):
        shutil.rmtree(self.work)

    def test_castls_repo_records_what_precision_needs(self):
        raw = run.castls_repo(self.args, self.repo, self.tasks,
                              {t["id"]: t["text"] for t in self.tasks},
                              self.work)
        first = raw["r/0"]
        self.assertEqual(first["items"][1], ("pkg/b.py", 0, 4))
        self.assertEqual(first["meta"][3], ("markdown", "# f"))
        self.assertTrue(raw["r/1"]["no_context"])
        ex = run.castls_extras(raw, self.tasks)
        # Top 5 items over all tasks: 5 + 0 + 1 + 0 = 6.
        self.assertAlmostEqual(ex["top5_same_file"], 3 / 6)
        self.assertAlmostEqual(ex["top5_other_language"], 1 / 6)
        self.assertAlmostEqual(ex["top5_duplicate"], 1 / 6)
        self.assertAlmostEqual(ex["top5_items"], 6 / 4)
        self.assertEqual(ex["stop_share"], 0.5)
        self.assertEqual(ex["no_context_gold"], 0.5)

    def test_report_rows_per_half(self):
        out = io.StringIO()
        res = run.run_suite(self.args, "python", self.tasks,
                            {"r": self.repo}, out, halves={"r": "check"})
        text = out.getvalue()
        self.assertIn("== python per project", text)
        self.assertIn("== python check half (r): 2 tasks with gold, "
                      "2 without, 2 with cross-file gold ==", text)
        rows = {line[2:18].strip(): line[18:].strip()
                for line in text.splitlines() if line.startswith("  ")}
        self.assertEqual(rows["top5 same file"], "0.500")
        self.assertEqual(rows["top5 other lang"], "0.167")
        self.assertEqual(rows["top5 duplicate"], "0.167")
        self.assertEqual(rows["stop-signal"], "0.500")
        self.assertEqual(rows["noContext w/gold"], "0.500")
        self.assertEqual(res["halves"]["check"]["castls_extra"]
                         ["top5_duplicate"], 1 / 6)
        task = res["per_task"][0]
        self.assertEqual(task["half"], "check")
        self.assertEqual(task["castls"]["top5"]["same_file"], 3)
        # The texts stay out of the JSON.
        self.assertNotIn("def f(): pass", json.dumps(res))


if __name__ == "__main__":
    unittest.main()
