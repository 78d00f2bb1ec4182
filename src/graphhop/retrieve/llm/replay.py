"""A replay chat server on 127.0.0.1: answers OpenAI-style chat requests with recorded replies.

For offline tests and pipeline checks only (no model behind it): each ``POST .../chat/completions``
gets the next reply of the list, round-robin. A reply is a string (the message content) or a dict
that scripts a failure: ``{"status": 503}`` (an HTTP error), ``{"raw": "..."}`` (a body that is not a
chat completion), ``{"delay": 2.0, "content": "..."}`` (a slow reply, for timeouts). Requests are
kept in :attr:`ReplayServer.requests` so tests can read the prompts that were sent.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Sequence

from graphhop.core import InputError

__all__ = ["ReplayServer", "load_replies"]


def load_replies(path: str | Path) -> list[Any]:
    """Replies from a JSONL file of objects: ``{"reply": "text", ...}`` (other fields ignored, e.g. the
    expected parse) or a scripted failure (``{"status": 503}``, ``{"raw": ...}``, ``{"delay": ..., "content": ...}``)."""
    from graphhop.kb.loaders import iter_jsonl

    out = [obj["reply"] if "reply" in obj else obj for _, obj in iter_jsonl(path)]
    if not out:
        raise InputError(f"{path}: no replies")
    return out


class ReplayServer:
    """``with ReplayServer(replies) as srv: ... srv.url ...`` (an ephemeral port on 127.0.0.1)."""

    def __init__(self, replies: Sequence[Any], host: str = "127.0.0.1", port: int = 0) -> None:
        if not replies:
            raise InputError("ReplayServer needs at least one reply")
        self.replies = list(replies)
        self.requests: list[dict[str, Any]] = []
        self._next = 0
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # quiet
                return

            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                length = int(self.headers.get("Content-Length") or 0)
                try:
                    body = json.loads(self.rfile.read(length) or b"{}")
                except json.JSONDecodeError:
                    body = {}
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    return self._send(404, {"error": "not found"})
                reply = server._take(body, dict(self.headers))
                if isinstance(reply, dict) and "status" in reply:
                    return self._send(int(reply["status"]), {"error": reply.get("error", "scripted failure")})
                if isinstance(reply, dict) and "raw" in reply:
                    return self._send(200, None, str(reply["raw"]).encode())
                if isinstance(reply, dict) and reply.get("delay"):
                    threading.Event().wait(float(reply["delay"]))
                content = reply.get("content", "") if isinstance(reply, dict) else str(reply)
                self._send(200, {"id": "replay", "object": "chat.completion", "model": body.get("model", ""),
                                 "choices": [{"index": 0, "finish_reason": "stop",
                                              "message": {"role": "assistant", "content": content}}]})

            def _send(self, status: int, obj: Any, raw: bytes | None = None) -> None:
                data = raw if raw is not None else json.dumps(obj).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                    pass

        self._httpd = ThreadingHTTPServer((host, port), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _take(self, body: dict[str, Any], headers: dict[str, str]) -> Any:
        with self._lock:
            self.requests.append({"body": body, "authorization": headers.get("Authorization", "")})
            reply = self.replies[self._next % len(self.replies)]
            self._next += 1
            return reply

    @property
    def url(self) -> str:
        """Base URL to give ``--llm-url`` (``http://127.0.0.1:PORT/v1``)."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "ReplayServer":
        """Serve in a daemon thread."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> "ReplayServer":
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()
