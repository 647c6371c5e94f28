"""The one LSP client of castls' Python tooling: the eval harness
(tests/eval/run.py), the language server benchmark
(tests/bench/bench_lsp.py) and the read-only fault test
(tests/cli/faults_test.sh, which copies this file alone, so it stays one
self-contained module, standard library only).

It runs a server as a child process and speaks JSON-RPC over its stdio
with Content-Length framing. The client announces no positionEncodings,
so the server must use UTF-16 (the LSP default).

One thread, no reader thread: input is read only while the caller waits
(pump, wait, request, ...), and each message carries the time.perf_counter
at which its bytes were read, so a benchmark can time a reply without our
own work in between. A write never blocks on a full pipe: while it waits,
what the server sends is read and handled, so neither side can stall the
other however large the messages.

Requests from the server (window/workDoneProgress/create,
workspace/configuration, ...) get a neutral answer so the server never
waits on us; $/progress is tracked per token; other notifications are
kept in .notifications.

    cl = LspClient([castls, "serve"], cwd=root, stderr_path=log)
    cl.initialize(root, options)           # then `initialized`
    cl.wait_indexed()
    cl.did_open(path_to_uri(path), text)
    result = cl.request("castls/context", params)  # LspError on an error
    msg, seconds = cl.timed("castls/context", params)  # the raw reply
    cl.close()
"""

import json
import os
import select
import subprocess
import time
from urllib.parse import quote, unquote, urlparse

METHOD_NOT_FOUND = -32601
MAX_HEADER_BYTES = 8192
READ_BYTES = 1 << 20

now = time.perf_counter


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


def frame(msg):
    """One message as the bytes on the wire."""
    body = json.dumps(msg, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def _is_indexing_title(title):
    return not title or "index" in title.lower()


class LspClient:
    """One server process. argv is the command line (e.g. [castls,
    "serve"]); env replaces the environment when given; the server's
    stderr is appended to stderr_path (or discarded). timeout is the
    default wait for a reply, in seconds."""

    def __init__(self, argv, cwd=None, env=None, stderr_path=None,
                 timeout=60.0):
        self._err = open(stderr_path, "ab") if stderr_path else None
        self.proc = subprocess.Popen(
            argv, cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, bufsize=0,
            stderr=self._err if self._err else subprocess.DEVNULL)
        self._rfd = self.proc.stdout.fileno()
        self._wfd = self.proc.stdin.fileno()
        os.set_blocking(self._wfd, False)
        self.timeout = timeout
        self._next_id = 1
        self._methods = {}  # id of a request awaiting its reply -> method
        self._replies = {}  # id -> (message, time read)
        self._in = bytearray()
        self._out = bytearray()
        self._gone = None  # why the server can no longer be heard
        self.progress = {}  # token (as JSON) -> last kind: begin/report/end
        self.progress_titles = {}  # token -> title of its begin
        self.indexing_began_at = None  # time read of the last indexing begin
        self.indexing_ended_at = None  # and of the last indexing end
        self.notifications = []  # (method, params) not otherwise handled

    # ---- writing -------------------------------------------------------

    def send(self, *msgs, timeout=None):
        """Writes msgs together, with one write() when the pipe has room
        (a didChange and the request behind it reach the server at
        once). Raises TimeoutError when the server reads none of it for
        timeout seconds."""
        for m in msgs:
            self._out += frame(m)
        self._flush(timeout)

    def _flush(self, timeout=None):
        timeout = self.timeout if timeout is None else timeout
        deadline = now() + timeout
        while self._out:
            try:
                n = os.write(self._wfd, self._out)
                del self._out[:n]
                deadline = now() + timeout
                continue
            except BlockingIOError:
                pass
            except OSError as e:
                self._out.clear()
                raise ServerGone("write failed: %s" % e)
            # The pipe is full: read while it drains. Answers to the
            # server's requests join the end of _out.
            left = deadline - now()
            if left <= 0:
                raise TimeoutError("the server reads nothing for %.0fs"
                                   % timeout)
            rd = [self._rfd] if self._gone is None else []
            r, _, _ = select.select(rd, [self._wfd], [], left)
            if r:
                self._read()

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request_message(self, method, params):
        """A request with a fresh id, not yet sent: returns (id, message),
        for send() beside other messages and wait(id)."""
        rid = self._next_id
        self._next_id += 1
        self._methods[rid] = method
        return rid, {"jsonrpc": "2.0", "id": rid, "method": method,
                     "params": params}

    # ---- reading -------------------------------------------------------

    def _fail(self, why):
        self._gone = why
        raise ServerGone(why)

    def _read(self):
        """One read of the server's output; handles every whole message."""
        try:
            chunk = os.read(self._rfd, READ_BYTES)
        except OSError as e:
            self._fail("read failed: %s" % e)
        t = now()
        if not chunk:
            self._fail("server closed its output (exit code %s)" %
                       self.proc.poll())
        self._in += chunk
        while True:
            head_end = self._in.find(b"\r\n\r\n", 0, MAX_HEADER_BYTES + 4)
            if head_end < 0:
                if len(self._in) > MAX_HEADER_BYTES + 4:
                    self._fail("header too long")
                return
            length = None
            for line in bytes(self._in[:head_end]).split(b"\r\n"):
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    try:
                        length = int(value)
                    except ValueError:
                        self._fail("bad Content-Length %r" % value)
            if length is None:
                self._fail("frame without Content-Length")
            end = head_end + 4 + length
            if len(self._in) < end:
                return
            body = self._in[head_end + 4:end]
            del self._in[:end]
            try:
                msg = json.loads(body)
            except ValueError as e:
                self._fail("a message is not JSON: %s" % e)
            self._handle(msg, t)

    def _handle(self, msg, t):
        if "id" in msg and "method" in msg:
            self._answer_server_request(msg)
        elif "id" in msg:
            self._methods.pop(msg["id"], None)
            self._replies[msg["id"]] = (msg, t)
        elif msg.get("method") == "$/progress":
            p = msg.get("params") or {}
            v = p.get("value") or {}
            tok = json.dumps(p.get("token"))
            kind = v.get("kind")
            self.progress[tok] = kind
            if kind == "begin":
                self.progress_titles[tok] = v.get("title") or ""
            if _is_indexing_title(self.progress_titles.get(tok, "")):
                if kind == "begin":
                    self.indexing_began_at = t
                elif kind == "end":
                    self.indexing_ended_at = t
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
        # Queued, not written here: we may be inside _flush.
        self._out += frame({"jsonrpc": "2.0", "id": msg["id"],
                            "result": result})

    def pump(self, timeout):
        """Waits up to timeout seconds for input and handles what one
        read brings. Returns whether anything was read."""
        if self._gone is not None:
            raise ServerGone(self._gone)
        r, _, _ = select.select([self._rfd], [], [], max(0.0, timeout))
        if not r:
            return False
        self._read()
        self._flush()
        return True

    def pump_for(self, seconds, until=None):
        """Handles input for seconds, or until until() is true; returns
        whether it was."""
        deadline = now() + seconds
        while True:
            if until is not None and until():
                return True
            left = deadline - now()
            if left <= 0:
                return False
            self.pump(left)

    def drain(self, quiet):
        """Handles input until none has arrived for quiet seconds."""
        while self.pump(quiet):
            pass

    # ---- requests ------------------------------------------------------

    def wait(self, rid, timeout=None):
        """Reads until the reply to request rid; returns (message, time
        its bytes were read). Raises TimeoutError or ServerGone."""
        timeout = self.timeout if timeout is None else timeout
        deadline = now() + timeout
        while rid not in self._replies:
            left = deadline - now()
            if left <= 0:
                raise TimeoutError("%s: no reply in %.0fs" % (
                    self._methods.get(rid, "request %s" % rid), timeout))
            self.pump(left)
        return self._replies.pop(rid)

    def call(self, method, params, timeout=None):
        """Sends a request; returns (reply message, time read)."""
        rid, msg = self.request_message(method, params)
        self.send(msg, timeout=timeout)
        return self.wait(rid, timeout)

    def timed(self, method, params, timeout=None):
        """Sends a request; returns (reply message, round trip in
        seconds from just before the write to the reply's read)."""
        t0 = now()
        msg, t1 = self.call(method, params, timeout)
        return msg, t1 - t0

    def request(self, method, params, timeout=None):
        """Sends a request and returns its result; raises LspError on an
        error response, ServerGone if the server dies, TimeoutError."""
        msg, _ = self.call(method, params, timeout)
        if "error" in msg:
            e = msg["error"] or {}
            raise LspError(e.get("code"), e.get("message", ""))
        return msg.get("result")

    # ---- the session ---------------------------------------------------

    def initialize(self, roots, options=None, initialized=True,
                   client_name="castls-eval"):
        """initialize with roots (a directory or a list of them) as the
        workspace folders, the first also as rootUri; then the
        initialized notification unless initialized is false (to send it
        yourself, e.g. after opening files). Returns the result."""
        if isinstance(roots, str):
            roots = [roots]
        result = self.request("initialize", {
            "initializationOptions": options or {},
            "processId": os.getpid(),
            "rootUri": path_to_uri(roots[0]),
            "rootPath": os.path.abspath(roots[0]),
            "workspaceFolders": [{"uri": path_to_uri(r),
                                  "name": os.path.basename(r)}
                                 for r in roots],
            "capabilities": {"window": {"workDoneProgress": True}},
            "clientInfo": {"name": client_name},
        })
        if initialized:
            self.notify("initialized", {})
        return result

    def _indexing_tokens(self):
        return [kind for tok, kind in self.progress.items()
                if _is_indexing_title(self.progress_titles.get(tok, ""))]

    def indexing(self):
        """Whether an indexing progress has begun and not ended."""
        return any(k in ("begin", "report") for k in self._indexing_tokens())

    def indexing_over(self):
        """Whether an indexing progress has ended and none is running."""
        kinds = self._indexing_tokens()
        return "end" in kinds and not self.indexing()

    def wait_indexed(self, timeout=300.0, poll=0.5, grace=10.0,
                     ask_status=True):
        """Waits until the server says the workspace is indexed: an
        indexing $/progress ends, or (with ask_status) castls/status
        answers indexing: false. When the server supports neither and has
        begun no progress within grace seconds, indexing is assumed
        synchronous. Without ask_status only $/progress counts. Returns
        True when indexing was seen to finish, False on timeout."""
        start = now()
        status_ok = ask_status
        while now() - start < timeout:
            if self.pump_for(0.05, self.indexing_over):
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
            if (ask_status and not status_ok and not self.progress and
                    now() - start > grace):
                return True
            if self.pump_for(poll, self.indexing_over):
                return True
        return False

    def did_open(self, uri, text, language_id="python", version=1):
        self.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language_id, "version": version,
            "text": text}})

    def did_close(self, uri):
        self.notify("textDocument/didClose", {"textDocument": {"uri": uri}})

    def memory(self):
        """The server's VmRSS and VmHWM in MiB (Linux /proc)."""
        out = {}
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "VmHWM"):
                    out[k] = int(v.split()[0]) / 1024.0
        return out

    def close(self, timeout=10.0):
        """shutdown + exit; kills the process if it does not leave.
        Returns its exit code."""
        try:
            if self.proc.poll() is None and self._gone is None:
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
        self.proc.stdout.close()
        if self._err:
            self._err.close()
        return self.proc.returncode
