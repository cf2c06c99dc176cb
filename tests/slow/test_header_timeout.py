"""Without a buffering proxy, slow-header clients cannot crowd out /healthz: real uvicorn
on loopback, in a thread of this process (so coverage sees ``app.server``), serving the
app with ``app.server.HeadTimeoutH11`` as ``attention-lab`` does (``tests/unit/test_cli.py``
checks that it passes it), closes a connection whose request head is not complete after
``ATTENTION_LAB_HEADER_TIMEOUT`` seconds, keeps honest keep-alive and slow-body requests,
and answers /healthz while 120 slow-header connections are open (issue 25: every probe was
a 503 for 40 s)."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
import uvicorn
from live_server import free_port, in_thread

from app.server import HeadTimeoutH11
from app.settings import Settings, get_settings

pytestmark = pytest.mark.slow

HEADER_TIMEOUT = 1.0
HEALTHZ = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"


@pytest.fixture(scope="module")
def port() -> Iterator[int]:
    from app.main import create_app

    env = pytest.MonkeyPatch()
    env.setenv("ATTENTION_LAB_HEADER_TIMEOUT", str(HEADER_TIMEOUT))  # read per connection
    get_settings.cache_clear()
    port, settings = free_port(), Settings()
    config = uvicorn.Config(
        create_app(settings), host="127.0.0.1", port=port, http=HeadTimeoutH11,
        limit_concurrency=settings.limit_concurrency, log_level="warning", access_log=False,
    )  # fmt: skip
    try:
        with in_thread(config):
            yield port
    finally:
        env.undo()
        get_settings.cache_clear()


def closed_after(sock: socket.socket, limit: float) -> float:
    """Seconds until the server closed ``sock`` (reading what it sent), at most ``limit``."""
    start = time.monotonic()
    sock.settimeout(limit)
    try:
        while sock.recv(4096):
            pass
    except TimeoutError:
        return limit
    return time.monotonic() - start


def read_answer(sock: socket.socket) -> bytes:
    """One whole answer (head and Content-Length body) from ``sock``."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(4096) or pytest.fail(f"closed after {data!r}")
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                  if line.startswith(b"content-length:"))  # fmt: skip
    while len(body) < length:
        body += sock.recv(4096) or pytest.fail("closed in the body")
    return head


def test_a_partial_request_head_is_closed_after_the_timeout(port: int) -> None:
    with (
        socket.create_connection(("127.0.0.1", port)) as silent,
        socket.create_connection(("127.0.0.1", port)) as partial,
    ):
        partial.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")  # no blank line: not done
        took = closed_after(partial, 10)
        assert HEADER_TIMEOUT * 0.8 <= took < HEADER_TIMEOUT + 3
        assert closed_after(silent, 10) < HEADER_TIMEOUT + 3  # a silent one too


def test_keep_alive_and_slow_bodies_are_not_cut(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port)) as sock:
        sock.settimeout(10)
        for _ in range(3):  # each answer restarts the clock; each head comes in time
            sock.sendall(HEALTHZ)
            assert read_answer(sock).startswith(b"HTTP/1.1 200")
            time.sleep(HEADER_TIMEOUT * 0.6)
        # A head in time, then a body slower than the header timeout: the clock stopped.
        body = b'{"scores": [1, 2, 3]}'
        sock.sendall(b"POST /api/v1/softmax HTTP/1.1\r\nHost: x\r\nContent-Type: "
                     b"application/json\r\nContent-Length: %d\r\n\r\n" % len(body))  # fmt: skip
        for i in range(0, len(body), 8):
            time.sleep(HEADER_TIMEOUT * 0.5)
            sock.sendall(body[i : i + 8])
        answer = read_answer(sock)
        assert answer.startswith(b"HTTP/1.1 200"), answer


async def _slow_header_client(port: int, until: float) -> bool:
    """One header line every 0.3 s; True when the server closed the connection."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n")
        while time.monotonic() < until:
            await asyncio.sleep(0.3)
            if reader.at_eof():
                return True
            try:
                writer.write(b"X-Slow: 1\r\n")
                await writer.drain()
                await asyncio.wait_for(reader.read(1), 0.01)
            except TimeoutError:
                continue
            except OSError:
                return True
            return True  # the read returned: EOF (b"") or an answer
        return False
    finally:
        writer.close()


async def _probe(port: int, until: float) -> list[tuple[bytes, float]]:
    results = []
    while time.monotonic() < until:
        start = time.perf_counter()
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(HEALTHZ.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        status = (await asyncio.wait_for(reader.readline(), 10)).strip()
        writer.close()
        results.append((status, time.perf_counter() - start))
        await asyncio.sleep(0.05)
    return results


async def _crowd(
    port: int, clients: int, seconds: float
) -> tuple[list[bool], list[tuple[bytes, float]]]:
    until = time.monotonic() + seconds
    slow = [asyncio.create_task(_slow_header_client(port, until)) for _ in range(clients)]
    await asyncio.sleep(0.2)  # they are connected before the probe starts
    probes = await _probe(port, until)
    return list(await asyncio.gather(*slow)), probes


def test_healthz_answers_while_120_slow_header_connections_are_open(
    port: int, run_async: Callable[..., Any]
) -> None:
    # run_async, not asyncio.run: after a browser test in the same worker, Playwright's
    # loop is running on this thread and asyncio.run would refuse to start.
    closed, probes = run_async(_crowd, port, 120, HEADER_TIMEOUT + 3)
    statuses = {status for status, _ in probes}
    assert statuses == {b"HTTP/1.1 200 OK"}, statuses
    times = sorted(t for _, t in probes)
    assert times[int(len(times) * 0.99)] < 0.5, times[-5:]
    assert all(closed), f"{closed.count(False)} slow connections were never closed"
