"""Unit tests of the harness's other pieces: BM25, the blanking, the
windows and the LSP range conversion and framing."""

import io
import json
import os
import signal
import sys
import time
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


FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "fake_server.py")


class Watchdog:
    """Fails the test instead of hanging when the client deadlocks."""

    def __init__(self, seconds):
        self.seconds = seconds

    def _fire(self, signum, frame):
        raise AssertionError("still blocked after %d s" % self.seconds)

    def __enter__(self):
        self._old = signal.signal(signal.SIGALRM, self._fire)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self._old)


class ClientTest(unittest.TestCase):
    """The uses of the benchmark: progress without status polls, raw
    replies with their read times, messages written together, big
    messages both ways, the server's memory, a server that fails."""

    def setUp(self):
        self.cl = None

    def tearDown(self):
        if self.cl is not None:
            self.cl.close()

    def start(self, *argv):
        self.cl = lsp_client.LspClient([sys.executable, FAKE] + list(argv))
        return self.cl

    def test_progress_and_timed_replies(self):
        cl = self.start()
        with Watchdog(30):
            cl.initialize(["/tmp", "/"], initialized=False)
            self.assertIsNone(cl.indexing_began_at)
            cl.notify("initialized", {})
            self.assertTrue(cl.wait_indexed(timeout=10, ask_status=False))
            self.assertTrue(cl.indexing_over())
            self.assertFalse(cl.indexing())
            self.assertLessEqual(cl.indexing_began_at, cl.indexing_ended_at)
            self.assertIn(("window/logMessage",
                           {"type": 3, "message": "hello"}),
                          cl.notifications)
            t0 = time.perf_counter()
            msg, t = cl.call("castls/nothing", {})
            self.assertEqual(msg["error"]["code"],
                             lsp_client.METHOD_NOT_FOUND)
            self.assertTrue(t0 <= t <= time.perf_counter())
            msg, dt = cl.timed("castls/nothing", {})
            self.assertTrue(0 < dt < 10, dt)
            cl.drain(0.05)
            self.assertFalse(cl.pump(0.01))

    def test_messages_written_together(self):
        cl = self.start()
        with Watchdog(30):
            cl.initialize("/tmp")
            rid, req = cl.request_message("castls/context", {
                "textDocument": {"uri": "file:///tmp/z.py"}})
            cl.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                     "params": {"textDocument": {
                         "uri": "file:///tmp/z.py", "text": "z\n"}}}, req)
            msg, _ = cl.wait(rid, timeout=10)
            self.assertEqual(msg["result"]["echo"], "z\n")

    def test_big_messages_both_ways_do_not_deadlock(self):
        """The fake answers each context request with the whole buffer
        and reads nothing while it writes; we write 4 MiB in one send
        with those answers due in between."""
        cl = self.start()
        big = "x" * (1 << 20) + "\n"
        msgs, ids = [], []
        for i in range(4):
            uri = "file:///tmp/big%d.py" % i
            msgs.append({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                         "params": {"textDocument": {"uri": uri,
                                                     "text": big}}})
            rid, req = cl.request_message("castls/context", {
                "textDocument": {"uri": uri}})
            msgs.append(req)
            ids.append(rid)
        with Watchdog(60):
            cl.initialize("/tmp")
            cl.wait_indexed(timeout=10)  # the fake is in its main loop
            cl.send(*msgs)
            for rid in ids:
                msg, _ = cl.wait(rid, timeout=30)
                self.assertEqual(msg["result"]["echo"], big)

    def test_memory_of_the_server(self):
        cl = self.start()
        with Watchdog(30):
            cl.initialize("/tmp")  # running, not just forked
        mem = cl.memory()
        self.assertGreater(mem["VmRSS"], 1.0)
        self.assertGreaterEqual(mem["VmHWM"], mem["VmRSS"])

    def test_server_that_exits(self):
        cl = self.start("--die")
        with Watchdog(30):
            with self.assertRaises(lsp_client.ServerGone) as e:
                cl.initialize("/tmp")
            self.assertIn("closed its output", str(e.exception))
            with self.assertRaises(lsp_client.ServerGone):
                cl.request("castls/status", {})
            self.assertEqual(cl.close(), 4)
        self.cl = None

    def test_frame_without_length(self):
        cl = self.start("--no-length")
        with Watchdog(30):
            with self.assertRaises(lsp_client.ServerGone) as e:
                cl.initialize("/tmp")
            self.assertIn("without Content-Length", str(e.exception))

    def test_request_timeout(self):
        cl = self.start()
        with Watchdog(30):
            cl.initialize("/tmp")
            cl.wait_indexed(timeout=10)
            rid, _ = cl.request_message("castls/never", {})  # not sent
            with self.assertRaises(TimeoutError) as e:
                cl.wait(rid, timeout=0.2)
            self.assertIn("castls/never", str(e.exception))


if __name__ == "__main__":
    unittest.main()
