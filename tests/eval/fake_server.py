#!/usr/bin/env python3
"""A stand-in language server for test_harness.py: just enough castls
behaviour (progress, context, method-not-found, shutdown) to exercise the
client's framing and control flow without the real binary."""

import json
import sys


PENDING = []


def read():
    if PENDING:
        return PENDING.pop(0)
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


def main():
    opened = {}
    while True:
        m = read()
        if m is None:
            return 1
        method = m.get("method")
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": m["id"],
                  "result": {"capabilities": {}}})
        elif method == "initialized":
            send({"jsonrpc": "2.0", "id": "p1",
                  "method": "window/workDoneProgress/create",
                  "params": {"token": "idx"}})
            while True:  # the client must answer before we go on
                reply = read()
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
