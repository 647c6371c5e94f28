"""A minimal LSP client over a child process's stdio, for the eval harness.

It speaks just enough of the protocol to drive castls through one
repository: Content-Length framing, initialize/initialized, waiting for the
workspace index, didOpen/didClose of unsaved buffers, the castls/context
request and shutdown/exit. The client announces no positionEncodings, so
the server must use UTF-16 (the LSP default).

A reader thread parses frames into a queue; requests from the server
(window/workDoneProgress/create, workspace/configuration, ...) get a
neutral answer so the server never waits on us.
"""

import json
import os
import queue
import subprocess
import threading
import time
from urllib.parse import quote, unquote, urlparse

METHOD_NOT_FOUND = -32601
MAX_HEADER_BYTES = 8192


class LspError(Exception):
    """An error response from the server."""

    def __init__(self, code, message):
        super().__init__("%s (%s)" % (message, code))
        self.code = code


class ServerGone(Exception):
    """The server exited, closed its output or sent garbage."""


def path_to_uri(path):
    return "file://" + quote(os.path.abspath(path))


def uri_to_path(uri):
    u = urlparse(uri)
    if u.scheme != "file":
        return uri
    return unquote(u.path)


def range_to_lines(rng):
    """Returns (first, last) inclusive lines of an LSP range. The end
    position is exclusive, so a range ending at character 0 of line L
    (L > start line) ends on line L - 1."""
    first = rng["start"]["line"]
    end = rng["end"]
    last = end["line"]
    if end.get("character", 0) == 0 and last > first:
        last -= 1
    return first, last


class LspClient:
    """One server process. argv is the command line (e.g. [castls, "serve"]);
    stderr of the server goes to stderr_path (or is discarded)."""

    def __init__(self, argv, cwd=None, stderr_path=None):
        self._err = open(stderr_path, "ab") if stderr_path else None
        self.proc = subprocess.Popen(
            argv, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._err if self._err else subprocess.DEVNULL)
        self._next_id = 1
        self._replies = {}  # id -> message, filled by the pump
        self._inbox = queue.Queue()
        self._lock = threading.Lock()
        self.progress = {}  # token -> last value kind ("begin"/"end"/...)
        self.progress_titles = {}  # token -> title of its begin
        self.notifications = []  # (method, params) not otherwise handled
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()

    # ---- framing -------------------------------------------------------

    def _send(self, msg):
        body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
        head = ("Content-Length: %d\r\n\r\n" % len(body)).encode("ascii")
        try:
            with self._lock:
                self.proc.stdin.write(head + body)
                self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as e:
            raise ServerGone("write failed: %s" % e)

    def _read_frame(self):
        out = self.proc.stdout
        length = None
        seen = 0
        while True:
            line = out.readline(MAX_HEADER_BYTES)
            if not line:
                return None
            seen += len(line)
            if seen > MAX_HEADER_BYTES:
                raise ServerGone("header too long")
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii", "replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            raise ServerGone("frame without Content-Length")
        body = out.read(length)
        if len(body) != length:
            return None
        return json.loads(body.decode("utf-8"))

    def _read_loop(self):
        try:
            while True:
                msg = self._read_frame()
                if msg is None:
                    break
                self._inbox.put(msg)
        except Exception as e:  # noqa: BLE001 - reported to the waiter
            self._inbox.put({"__gone__": str(e)})
            return
        self._inbox.put({"__gone__": "server closed its output"})

    # ---- dispatch ------------------------------------------------------

    def _handle(self, msg):
        if "__gone__" in msg:
            self._inbox.put(msg)  # keep it for every later waiter
            raise ServerGone(msg["__gone__"])
        if "id" in msg and "method" in msg:
            self._answer_server_request(msg)
        elif "id" in msg:
            self._replies[msg["id"]] = msg
        elif msg.get("method") == "$/progress":
            p = msg.get("params") or {}
            v = p.get("value") or {}
            tok = json.dumps(p.get("token"))
            self.progress[tok] = v.get("kind")
            if v.get("kind") == "begin":
                self.progress_titles[tok] = v.get("title") or ""
        else:
            self.notifications.append((msg.get("method"), msg.get("params")))

    def _answer_server_request(self, msg):
        method = msg["method"]
        if method == "workspace/configuration":
            items = (msg.get("params") or {}).get("items") or []
            result = [None] * len(items)
        elif method == "workspace/workspaceFolders":
            result = []
        else:
            result = None
        self._send({"jsonrpc": "2.0", "id": msg["id"], "result": result})

    def pump(self, timeout, until=None):
        """Handles incoming messages for up to timeout seconds (at least
        one message if one is waiting), or until until() is true."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            try:
                msg = self._inbox.get(timeout=max(0.0, left))
            except queue.Empty:
                return
            self._handle(msg)
            if time.monotonic() >= deadline or (until and until()):
                return

    # ---- requests ------------------------------------------------------

    def notify(self, method, params):
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method, params, timeout=60.0):
        """Sends a request and returns its result; raises LspError on an
        error response, ServerGone if the server dies, TimeoutError."""
        rid = self._next_id
        self._next_id += 1
        self._send({"jsonrpc": "2.0", "id": rid, "method": method,
                    "params": params})
        deadline = time.monotonic() + timeout
        while rid not in self._replies:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("%s: no reply in %.0fs" % (method, timeout))
            self.pump(min(left, 0.5), lambda: rid in self._replies)
        msg = self._replies.pop(rid)
        if "error" in msg:
            e = msg["error"] or {}
            raise LspError(e.get("code"), e.get("message", ""))
        return msg.get("result")

    def initialize(self, root, options=None):
        result = self.request("initialize", {
            "initializationOptions": options or {},
            "processId": os.getpid(),
            "rootUri": path_to_uri(root),
            "rootPath": os.path.abspath(root),
            "workspaceFolders": [{"uri": path_to_uri(root),
                                  "name": os.path.basename(root)}],
            "capabilities": {"window": {"workDoneProgress": True}},
            "clientInfo": {"name": "castls-eval"},
        })
        self.notify("initialized", {})
        return result

    def _indexing_over(self):
        for tok, kind in self.progress.items():
            title = self.progress_titles.get(tok, "")
            if kind == "end" and ("index" in title.lower() or not title):
                return True
        return False

    def wait_indexed(self, timeout=300.0, poll=0.5, grace=10.0):
        """Waits until the server says the workspace is indexed: a $/progress
        "end" for an indexing token, or castls/status answering
        indexing: false. When the server supports neither and has not begun
        any progress within grace seconds, indexing is assumed synchronous.
        Returns True when indexing was seen to finish, False on timeout."""
        start = time.monotonic()
        status_ok = True
        while time.monotonic() - start < timeout:
            self.pump(0.05)
            if self._indexing_over():
                return True
            if status_ok:
                try:
                    st = self.request("castls/status", {}, timeout=30.0)
                    if isinstance(st, dict) and st.get("indexing") is False:
                        return True
                except LspError as e:
                    if e.code != METHOD_NOT_FOUND:
                        raise
                    status_ok = False
            if (not status_ok and not self.progress and
                    time.monotonic() - start > grace):
                return True
            self.pump(poll)
        return False

    def did_open(self, uri, text, language_id="python"):
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language_id, "version": 1,
            "text": text}})

    def did_close(self, uri):
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def close(self, timeout=10.0):
        """shutdown + exit; kills the process if it does not leave."""
        try:
            if self.proc.poll() is None:
                self.request("shutdown", None, timeout=timeout)
                self.notify("exit", None)
        except (LspError, ServerGone, TimeoutError):
            pass
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout)
        self.proc.stdout.close()
        if self._err:
            self._err.close()
        return self.proc.returncode
