#!/usr/bin/env python3
"""A stand-in language server for test_harness.py: just enough castls
behaviour (progress, context, method-not-found, shutdown) to exercise the
client's framing and control flow without the real binary. Its framing is
its own on purpose: a test server that shared the client's code could not
catch the client's mistakes.

    fake_server.py             behave
    fake_server.py --die       exit at initialize without a reply
    fake_server.py --no-length answer initialize without Content-Length

Extra arguments (castls' own, "serve --db PATH", as run.py starts it) are
ignored. A context request answers one item in /tmp/y.py, unless the open
document holds a line

    #fake-context {"items": [[path, first, last, language, text], ...],
                   "noContext": false}

whose items it returns instead: path relative to the workspace root, lines
0-based and inclusive (the range ends at the start of the next line).
"""

import json
import sys


PENDING = []
MARK = "#fake-context "


def read():
    """The next message: one set aside by main() first, else stdin's."""
    if PENDING:
        return PENDING.pop(0)
    return read_stdin()


def read_stdin():
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length))


def send(msg):
    body = json.dumps(msg).encode()
    sys.stdout.buffer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    sys.stdout.buffer.flush()


def canned(text, root):
    """The reply a #fake-context line asks for, or None."""
    for line in (text or "").split("\n"):
        if line.startswith(MARK):
            want = json.loads(line[len(MARK):])
            items = [{"uri": "file://" + root.rstrip("/") + "/" + path,
                      "range": {"start": {"line": first, "character": 0},
                                "end": {"line": last + 1, "character": 0}},
                      "language": language, "text": body,
                      "signals": {}, "why": "canned"}
                     for path, first, last, language, body in want["items"]]
            return {"items": items, "noContext": want.get("noContext",
                                                          False),
                    "elapsedMs": 2.0}
    return None


def main():
    mode = sys.argv[1] if len(sys.argv) > 1 else ""
    opened = {}
    root = "/"
    while True:
        m = read()
        if m is None:
            return 1
        method = m.get("method")
        if method == "initialize" and mode == "--die":
            return 4
        if method == "initialize" and mode == "--no-length":
            sys.stdout.buffer.write(b"Content-Type: x\r\n\r\n{}")
            sys.stdout.buffer.flush()
        elif method == "initialize":
            root = m["params"].get("rootPath") or root
            send({"jsonrpc": "2.0", "id": m["id"],
                  "result": {"capabilities": {}}})
        elif method == "initialized":
            send({"jsonrpc": "2.0", "method": "window/logMessage",
                  "params": {"type": 3, "message": "hello"}})
            send({"jsonrpc": "2.0", "id": "p1",
                  "method": "window/workDoneProgress/create",
                  "params": {"token": "idx"}})
            while True:  # the client must answer before we go on
                reply = read_stdin()
                if reply is None:
                    return 3
                if reply.get("id") == "p1" and "method" not in reply:
                    break
                PENDING.append(reply)
            for kind in ("begin", "end"):
                v = {"kind": kind}
                if kind == "begin":
                    v["title"] = "Indexing"
                send({"jsonrpc": "2.0", "method": "$/progress",
                      "params": {"token": "idx", "value": v}})
        elif method == "textDocument/didOpen":
            d = m["params"]["textDocument"]
            opened[d["uri"]] = d["text"]
        elif method == "castls/context":
            uri = m["params"]["textDocument"]["uri"]
            reply = canned(opened.get(uri), root)
            if reply is not None:
                send({"jsonrpc": "2.0", "id": m["id"], "result": reply})
                continue
            send({"jsonrpc": "2.0", "id": m["id"], "result": {
                "items": [{"uri": "file:///tmp/y.py", "range": {
                    "start": {"line": 0, "character": 0},
                    "end": {"line": 2, "character": 0}}}],
                "noContext": False, "elapsedMs": 1.5,
                "echo": opened.get(uri)}})
        elif method == "shutdown":
            send({"jsonrpc": "2.0", "id": m["id"], "result": None})
        elif method == "exit":
            return 0
        elif "id" in m:
            send({"jsonrpc": "2.0", "id": m["id"], "error": {
                "code": -32601, "message": "method not found"}})


if __name__ == "__main__":
    sys.exit(main())
