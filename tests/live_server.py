"""The app served by a real uvicorn in a thread of the test process, for tests that need
real HTTP on a socket (a third-party client, a slow-header connection): ``in_thread``
starts it on a free loopback port, waits until it listens and stops it at the block's end.
(The browser tests run the server as a process instead: tests/browser/server_support.py.)"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def in_thread(config: uvicorn.Config, timeout: float = 60) -> Iterator[uvicorn.Server]:
    """Serve ``config`` (its app, host and port) in a daemon thread; yield the server once
    it has started; ask it to exit and join the thread afterwards."""
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        assert thread.is_alive(), "uvicorn stopped"
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield server
    finally:
        server.should_exit = True
        thread.join(timeout=30)
