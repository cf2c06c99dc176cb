"""A prefix-stripping reverse proxy for the sub-path browser test, and the app behind it.

``StrippingProxy(prefix, upstream)`` answers ``http://127.0.0.1:<port><prefix>/…`` by
asking ``upstream`` for ``/…`` (what nginx's ``location /attention/ { proxy_pass
http://app/; }`` does): the ``Host`` header is passed on, as ``proxy_set_header Host
$host`` would, and nothing in the answer is rewritten (no ``proxy_redirect``), so every
URL the browser sees is the app's own. A request outside the prefix gets the proxy's 404
and is recorded in ``outside``. Answers are read whole, then sent (a buffering proxy).
Threads, not asyncio: Playwright's sync API owns the main thread's event loop.

``app_with_root_path(root)`` runs ``attention-lab --root-path <root>`` (the CLI flag,
passed through to uvicorn) on a free port until the block ends.
"""

from __future__ import annotations

import http.client
import http.server
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from server_support import free_port, serving

# Headers of one connection, never forwarded (RFC 9110 §7.6.1), and those the proxy sets.
HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "te", "trailer",
              "transfer-encoding", "upgrade", "content-length"}  # fmt: skip
OWN = {"server", "date"}  # the proxy's send_response writes its own


@contextmanager
def app_with_root_path(root: str) -> Iterator[str]:
    """``attention-lab --root-path root`` on a free port: yields its own address."""
    port = free_port()
    command = [sys.executable, "-m", "app", "--port", str(port), "--root-path", root]
    with serving("attention-lab", command, port, stdout=subprocess.DEVNULL) as url:
        yield url


class StrippingProxy(http.server.ThreadingHTTPServer):
    """The proxy server; ``url`` is its address with the prefix (``…/attention``)."""

    daemon_threads = True

    def __init__(self, prefix: str, upstream: str) -> None:
        super().__init__(("127.0.0.1", 0), _Forward)
        self.prefix = prefix
        self.upstream = upstream.removeprefix("http://")
        self.outside: list[str] = []
        self.url = f"http://127.0.0.1:{self.server_address[1]}{prefix}"
        self._thread = threading.Thread(target=self.serve_forever, daemon=True)

    def __enter__(self) -> StrippingProxy:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.shutdown()
        self.server_close()


class _Forward(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: StrippingProxy

    def do_GET(self) -> None:
        self._forward()

    def do_HEAD(self) -> None:
        self._forward()

    def do_POST(self) -> None:
        self._forward()

    def _forward(self) -> None:
        prefix = self.server.prefix
        if not self.path.startswith(prefix + "/"):
            self.server.outside.append(self.path)
            self._answer(404, [("Content-Type", "text/plain")], b"outside the proxied prefix")
            return
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in HOP_BY_HOP}
        headers["X-Forwarded-Prefix"] = prefix
        upstream = http.client.HTTPConnection(self.server.upstream, timeout=60)
        try:
            upstream.request(self.command, self.path[len(prefix) :], body, headers)
            answer = upstream.getresponse()
            data = answer.read()
            kept = [(k, v) for k, v in answer.getheaders()
                    if k.lower() not in HOP_BY_HOP | OWN]  # fmt: skip
            self._answer(answer.status, kept, data)
        finally:
            upstream.close()

    def _answer(self, status: int, headers: list[tuple[str, str]], data: bytes) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def log_message(self, format: str, *args: object) -> None:
        pass
