"""Unit tests of the harness's other pieces: BM25, the blanking, the
windows and the LSP range conversion and framing."""

import io
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import bm25  # noqa: E402
import lsp_client  # noqa: E402
import run  # noqa: E402


class Bm25Test(unittest.TestCase):
    def test_tokenizers(self):
        text = "self.max_len = getValue(x2)"
        self.assertEqual(bm25.tokenize(text, "alnum"),
                         ["self", "max", "len", "getValue", "x2"])
        self.assertEqual(bm25.tokenize(text, "word"),
                         ["self", "max_len", "getValue", "x2"])
        self.assertEqual(bm25.tokenize(text, "subword"),
                         ["self", "max", "len", "get", "value", "x", "2"])

    def test_rare_term_wins_and_shared_term_ties(self):
        ix = bm25.BM25()
        ix.add("a", ["x", "common"])
        ix.add("b", ["y", "common"])
        ix.add("c", ["z", "common"])
        s = ix.scores(["y", "common"])
        self.assertGreater(s["b"], s["a"])
        self.assertAlmostEqual(s["a"], s["c"])
        self.assertGreater(s["a"], 0.0)

    def test_known_value(self):
        ix = bm25.BM25(k1=1.2, b=0.75)
        ix.add(1, ["a", "a", "b"])
        ix.add(2, ["b"])
        # N=2, df(a)=1: idf = ln(1 + 1.5/1.5) = ln 2; avgdl = 2.
        norm = 1.2 * (1 - 0.75 + 0.75 * 3 / 2)
        want = 0.6931471805599453 * 2 * 2.2 / (2 + norm)
        self.assertAlmostEqual(ix.scores(["a"])[1], want)
        self.assertNotIn(2, ix.scores(["a"]))

    def test_remove_restores_statistics(self):
        ix = bm25.BM25()
        ix.add("a", ["x", "y"])
        ix.add("b", ["y"])
        before = ix.scores(["x", "y"])
        ix.add("t", ["x", "x", "q"])
        ix.remove("t", ["x", "x", "q"])
        self.assertEqual(ix.scores(["x", "y"]), before)
        self.assertNotIn("q", ix.postings)
        self.assertEqual(len(ix), 2)


class BlankTest(unittest.TestCase):
    def test_blank_keeps_line_count_and_endings(self):
        text = "a\r\nbb\nccc\nd"
        out = run.blank_lines(text, 1, 2)
        self.assertEqual(out, "a\r\n\n\nd")
        self.assertEqual(len(out.splitlines()), len(text.splitlines()))
        self.assertEqual(run.blank_lines("x\ny", 1, 5), "x\n")

    def test_query_is_lines_before_cursor(self):
        text = "\n".join(str(i) for i in range(30))
        q = run.query_text(text, 25)
        self.assertEqual(q.splitlines(), [str(i) for i in range(5, 25)])
        self.assertEqual(run.query_text(text, 3), "0\n1\n2")


class WindowTest(unittest.TestCase):
    def test_aligned_windows(self):
        text = "\n".join("l%d" % i for i in range(35))
        w = [(a, b) for a, b, _ in run.windows_of(text, "aligned")]
        self.assertEqual(w, [(0, 19), (10, 29), (20, 34)])
        w = [(a, b) for a, b, _ in run.windows_of("x\ny", "aligned")]
        self.assertEqual(w, [(0, 1)])

    def test_repocoder_windows(self):
        text = "\n".join("l%d" % i for i in range(25))
        w = [(a, b) for a, b, _ in run.windows_of(text, "repocoder")]
        self.assertEqual(w, [(0, 9), (0, 19), (10, 24)])

    def test_rank_excludes_region_and_uses_blanked_text(self):
        docs = {"t.py": [(0, 9, "alpha beta"), (10, 19, "alpha"),
                         (20, 29, "gamma")],
                "o.py": [(0, 9, "beta beta")]}
        ix = run.RepoIndex(docs, "alnum")
        blanked = [(0, 9, "alpha beta"), (10, 19, ""), (20, 29, "gamma")]
        got = ix.rank("t.py", blanked, "beta gamma", (10, 15), 10)
        self.assertNotIn(("t.py", 10, 19), got)
        self.assertEqual(set(got), {("o.py", 0, 9), ("t.py", 0, 9),
                                    ("t.py", 20, 29)})
        # The original documents are back in place after the task.
        self.assertEqual(ix.rank("t.py", docs["t.py"], "alpha", (0, 0), 10),
                         [("t.py", 10, 19)])
        self.assertEqual(ix.rank("t.py", docs["t.py"], "x", (0, None), 10),
                         [])


class LspTest(unittest.TestCase):
    def test_range_end_is_exclusive(self):
        r = {"start": {"line": 3, "character": 0},
             "end": {"line": 8, "character": 0}}
        self.assertEqual(lsp_client.range_to_lines(r), (3, 7))
        r["end"]["character"] = 4
        self.assertEqual(lsp_client.range_to_lines(r), (3, 8))
        r = {"start": {"line": 3, "character": 0},
             "end": {"line": 3, "character": 0}}
        self.assertEqual(lsp_client.range_to_lines(r), (3, 3))

    def test_uri_round_trip(self):
        p = "/tmp/a dir/é.py"
        uri = lsp_client.path_to_uri(p)
        self.assertTrue(uri.startswith("file:///tmp/a%20dir/"))
        self.assertEqual(lsp_client.uri_to_path(uri), p)

    def test_against_a_fake_server(self):
        """A Python stand-in speaks the protocol: it proves framing, the
        indexing wait via $/progress and the context request."""
        fake = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "fake_server.py")
        cl = lsp_client.LspClient([sys.executable, fake])
        try:
            cl.initialize("/tmp")
            self.assertTrue(cl.wait_indexed(timeout=10))
            cl.did_open("file:///tmp/x.py", "a\n\n\n")
            res = cl.request("castls/context", {
                "textDocument": {"uri": "file:///tmp/x.py"},
                "position": {"line": 1, "character": 0}, "limit": 20})
            self.assertEqual(res["items"][0]["uri"], "file:///tmp/y.py")
            self.assertEqual(res["echo"], "a\n\n\n")
            with self.assertRaises(lsp_client.LspError) as e:
                cl.request("castls/nothing", {})
            self.assertEqual(e.exception.code, lsp_client.METHOD_NOT_FOUND)
        finally:
            self.assertEqual(cl.close(), 0)


if __name__ == "__main__":
    unittest.main()
