"""Unit tests of lex.py, what the Go, Rust, Java, C and C++ task
generators share: the masking of literals and comments, and the seeded
choice of tasks."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import lex  # noqa: E402


class MaskTest(unittest.TestCase):
    def test_literals_and_comments_are_masked(self):
        cases = [
            ("go", 'a := `x}` + "{" // }', ["a", ":=", '"', "+", '"']),
            ("rust", "let c = '}'; fn f<'a>() {}",
             ["let", "c", "=", '"', ";", "fn", "f", "<", "'", "a", ">",
              "(", ")", "{", "}"]),
            ("rust", 'r#"{"# /* /* } */ */ x', ['"', "x"]),
            ("java", 's = """{""";', ["s", "=", '"', ";"]),
            ("cpp", 'R"d({)d" 1\'000', ['"', "1'000"]),
            ("c", "/* { */ x = '{';", ["x", "=", '"', ";"]),
        ]
        for lang, text, want in cases:
            got = lex.mask(text, lang)
            self.assertEqual(len(got), len(text))
            toks = ['"' if t.startswith('"') else t
                    for t in lex.Tokens(got).text]
            self.assertEqual(toks, want, lang)

    def test_lines_are_kept(self):
        text = 'a := `x\n}\n` /* {\n */ "\\"\n'
        got = lex.mask(text, "go")
        self.assertEqual([i for i, c in enumerate(got) if c == "\n"],
                         [i for i, c in enumerate(text) if c == "\n"])
        self.assertNotIn("}", got)


class SelectTest(unittest.TestCase):
    def cands(self):
        out = []
        for f in ("a.go", "b.go", "c.go"):
            for i in range(4):
                out.append({"file": f, "function_name": "f%d" % i,
                            "gt_span": [3 * i + 1, 3 * i + 2],
                            "gold": [{"cross_file": i != 3}]})
        return out

    def test_cross_file_only_caps_and_seed(self):
        texts = {f: "\n" * 14 for f in ("a.go", "b.go", "c.go")}
        tasks, _ = lex.select(self.cands(), "p", "/tmp", texts, cap=5,
                              per_file=2)
        self.assertEqual(len(tasks), 5)
        self.assertTrue(all(t["function_name"] != "f3" for t in tasks))
        per = {}
        for t in tasks:
            per[t["file"]] = per.get(t["file"], 0) + 1
        self.assertLessEqual(max(per.values()), 2)
        self.assertEqual([t["id"] for t in tasks],
                         ["p/%d" % i for i in range(5)])
        self.assertEqual(tasks, sorted(tasks, key=lambda t: (
            t["file"], t["cursor_line"])))
        again, _ = lex.select(self.cands(), "p", "/tmp", texts, cap=5,
                              per_file=2)
        self.assertEqual(again, tasks)
        # Another project name, another draw (with these many choices).
        other, _ = lex.select(self.cands(), "q", "/tmp", texts, cap=5,
                              per_file=2)
        self.assertNotEqual([(t["file"], t["function_name"]) for t in other],
                            [(t["file"], t["function_name"]) for t in tasks])


if __name__ == "__main__":
    unittest.main()
