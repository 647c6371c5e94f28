"""Unit tests of the precision figures of make eval: the share of castls'
top 5 from the current file, from another language, duplicated."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import score  # noqa: E402

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


if __name__ == "__main__":
    unittest.main()
