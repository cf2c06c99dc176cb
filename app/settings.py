"""Every setting of the app: one class, read from ``ATTENTION_LAB_*`` environment variables.

The README's configuration table lists each field here (a test checks it). Use
``get_settings()`` in the app; tests build their own ``Settings(...)`` and pass it to
``create_app``.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

# /segment/segment of unreserved URL characters: nothing to escape in a link, an HTML
# attribute or a JS string, and no "//", ".", "..", "?", "#" or space to change its meaning.
_ROOT_PATH = re.compile(r"(/(?!\.\.?(?:/|$))[A-Za-z0-9._~-]+)+")
# What may not stand unescaped in a URL (RFC 3986): whitespace, controls, and these.
_UNSAFE_IN_URL = re.compile(r'[\s\x00-\x1f\x7f-\x9f"<>\\^`{|}]')


class Settings(BaseSettings):
    """Limits, embedding policy and logging. Defaults suit a laptop and a classroom server."""

    model_config = SettingsConfigDict(env_prefix="ATTENTION_LAB_", extra="ignore")

    max_tokens: int = Field(
        512, ge=1, le=4096, description="Most rows (tokens) a sequence may have: L_Q and L_K."
    )
    max_width: int = Field(
        512, ge=1, le=4096, description="Most columns a matrix may have: d_model, d_k, d_v."
    )
    max_figure_tokens: int = Field(
        128,
        ge=1,
        le=4096,
        description="Most tokens (L_Q, L_K) for which figures are drawn (page, embeds, "
        "exports). Figures print and explain every cell, so they cost far more than the "
        "numbers alone: 128 tokens take about a second and 15 MB.",
    )
    max_figure_width: int = Field(
        # 385: a real model's head opened in the figures (MiniLM's X: 384 columns and the
        # column of ones that folds the biases in, app/web/model_link.py).
        400,
        ge=1,
        le=4096,
        description="Most columns (d_model, d_k, d_v) for which figures are drawn.",
    )
    max_body_bytes: int = Field(
        # The largest valid request: six 512 × 512 matrices (x, source.x, w_q, w_k, w_v,
        # w_o) of 24-character numbers plus a 512 × 512 boolean `allowed` is about 39 MB.
        40_000_000,
        ge=1024,
        description="Largest request body in bytes; larger bodies get 413 before parsing.",
    )
    frame_ancestors: str = Field(
        "*",
        description="Origins allowed to frame /embed pages (CSP frame-ancestors), "
        "space-separated, e.g. 'https://moodle.example.edu'. '*' allows any.",
    )
    log_level: Literal["debug", "info", "warning", "error"] = Field(
        "info", description="Log level of the app and of its one-line-per-request access log."
    )
    log_format: Literal["text", "json"] = Field(
        "text",
        description="Log lines as text, or as one JSON object per line (for log collectors).",
    )
    metrics: bool = Field(
        True,
        description="Serve Prometheus metrics at /metrics (false: none anywhere, 404 there).",
    )
    metrics_port: int | None = Field(
        None,
        ge=1,
        le=65535,
        description="A port of their own for the metrics: `attention-lab` answers scrapes "
        "of /metrics there (on the same --host) and the app's port answers 404 at "
        "/metrics, so a proxy or Ingress of the app's port cannot expose them. Unset: "
        "/metrics on the app's port.",
    )
    workers: int = Field(
        1, ge=1, le=64, description="Worker processes when served by `attention-lab` (Docker)."
    )
    max_cells: int = Field(
        # The largest request the numeric limits accept (512 query and 512 source tokens,
        # d_model = d_k = d_v = 512, one head, W^O) holds 4.2 million numbers.
        4_500_000,
        ge=1000,
        description="Most float64 numbers one request may make the server hold (inputs, "
        "every head's L_Q × L_K grids, Q, K, V, outputs); estimated from the shapes before "
        "any work, larger requests get 413/422 naming what to reduce.",
    )
    max_response_bytes: int = Field(
        100_000_000,
        ge=100_000,
        description="Largest response one request may produce in bytes, estimated before any work.",
    )
    max_heavy: int = Field(
        # 1: heavy work is mostly Python holding the GIL, so a second thread adds memory
        # and latency for everyone else but no throughput on a one-core worker (measured:
        # same heavy throughput; /healthz p99 113 ms instead of 349 ms; benchmarks/load.py).
        1,
        ge=1,
        le=64,
        description="Heavy computations (above the cost model's inline threshold) one "
        "worker runs at once, in threads; past it requests get 503 with Retry-After.",
    )
    queue_seconds: float = Field(
        # A few seconds: long enough for a class opening the same page to be served one
        # after another (identical work is computed once), short enough that a refused
        # client hears why quickly. 0 refuses at once, as before.
        5.0,
        ge=0,
        le=120,
        description="Seconds a heavy request waits in the worker's queue for a slot "
        "before it is refused with 503 and a Retry-After estimated from the queue.",
    )
    max_queue: int = Field(
        32,
        ge=0,
        le=4096,
        description="Heavy requests one worker lets wait for a slot at once; past it a "
        "request is refused at once (503, Retry-After estimated from the queue).",
    )
    send_seconds: float = Field(
        30.0,
        ge=1,
        le=3600,
        description="Seconds a computed answer (JSON, page or file) may take to reach its "
        "client; past it the connection is closed and counted, so a slow reader cannot "
        "hold a heavy slot (or the answer's memory) for ever.",
    )
    answer_cache_bytes: int = Field(
        64 * 1024 * 1024,
        ge=0,
        description="Bytes of computed answers one worker keeps, keyed by what was "
        "asked (a lesson's answers, a model's heads for a sentence, a figure set), so "
        "identical requests are computed once; 0 turns the cache off.",
    )
    limit_concurrency: int = Field(
        # A browser opens up to six connections, so a class of 30 holds 180; each idle
        # connection costs a few kB, and heavy work has its own bound (max_heavy).
        1000,
        ge=1,
        description="Connections plus running requests one worker accepts (uvicorn's "
        "--limit-concurrency); past it uvicorn answers 503.",
    )
    header_timeout: float = Field(
        # Kubernetes' readiness probe gives up after 2 s; a browser sends its whole
        # request head in one packet, so a honest client never comes near 10 s.
        10,
        gt=0,
        le=600,
        description="Seconds a connection may take to send a complete request head (from "
        "its opening, or from the end of the previous answer); then it is closed, so "
        "slow-header clients cannot hold connections without a buffering proxy.",
    )
    keep_alive: int = Field(
        5, ge=1, le=600, description="Seconds an idle keep-alive connection stays open."
    )
    shutdown_timeout: int = Field(
        # Below Kubernetes' default grace period (30 s, terminationGracePeriodSeconds in
        # deploy/kubernetes.yaml) so the worker ends its own requests before the SIGKILL.
        20,
        ge=1,
        le=3600,
        description="Seconds a worker lets running requests finish after SIGTERM "
        "(uvicorn's --timeout-graceful-shutdown); then it closes them, slow streams too.",
    )
    public_url: str | None = Field(
        None,
        description="The site's public address, e.g. https://lab.example.edu; when set, "
        "oEmbed and discovery links use it instead of the request's Host header. Under a "
        "sub-path it includes the path: https://uni.example.edu/attention.",
    )
    root_path: str | None = Field(
        None,
        description="The path a reverse proxy serves the app under, e.g. /attention for "
        "https://uni.example.edu/attention/ (the proxy strips it before passing requests "
        "on); every asset, link, fetch and redirect then starts with it. Unset or empty: "
        "the root of the host. `attention-lab --root-path` (uvicorn's) overrides it.",
    )

    data_dir: Path | None = Field(
        None,
        description="Folder of the app's own files: the SQLite database of short links "
        "(attention-lab.sqlite3), made on first use. Unset: $XDG_DATA_HOME/attention-lab, "
        "else ~/.local/share/attention-lab (default_data_dir). Unused when database_url "
        "is set.",
    )
    database_url: str | None = Field(
        None,
        description="The database, as a SQLAlchemy URL, e.g. "
        "postgresql://user:password@db.example.edu/attention (driven by psycopg 3). "
        "Unset: SQLite in data_dir, with no setup. Migrated on first use.",
    )
    short_link_max_bytes: int = Field(
        # A decoder head's state (s=) is some 111 kB of base64; a lesson at most 200 kB.
        262_144,
        ge=1024,
        le=1_000_000,
        description="Largest content (a page state's query or a lesson's JSON, in bytes) "
        "POST /api/v1/short-links stores; larger gets 413 naming it.",
    )
    short_link_rate: int = Field(
        30,
        ge=1,
        le=100_000,
        description="Short links one client (IP address) may create per minute, per "
        "worker; past it 429 with Retry-After.",
    )

    @field_validator("public_url")
    @classmethod
    def _public_url(cls, value: str | None) -> str | None:
        return check_public_url(value or "") or None

    @field_validator("root_path")
    @classmethod
    def _root_path(cls, value: str | None) -> str | None:
        return check_root_path(value or "") or None


def check_public_url(value: str) -> str:
    """A public URL is empty or ``http(s)://host[:port][/path]`` with nothing that could
    change what a link means where it is written: no user name or password, no spaces or
    control characters, no query or fragment (ValueError saying which). Trailing "/" dropped."""
    if value == "":
        return value
    if _UNSAFE_IN_URL.search(value):
        raise ValueError(
            'must not contain spaces, control characters or any of " < > \\ ^ ` { | }: '
            "write them percent-encoded"
        )
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError("must be an http(s) address such as https://lab.example.edu")
    if "@" in parts.netloc:
        raise ValueError(
            "must not contain a user name or password (user:password@): every link the "
            "app writes would carry it"
        )
    if parts.query or parts.fragment or value.endswith(("?", "#")):
        raise ValueError("must not have a query (?) or fragment (#)")
    try:
        parts.port  # noqa: B018 - urlsplit checks the port only when asked
    except ValueError:
        raise ValueError("must have a port number 0-65535 after the host, if any") from None
    return value.rstrip("/")


def check_root_path(value: str) -> str:
    """A root path is empty or ``/segment[/segment…]``: it starts with "/", has no
    trailing "/", and its segments are unreserved URL characters (ValueError saying which)."""
    if value == "":
        return value
    if not value.startswith("/"):
        raise ValueError(f"must start with '/', e.g. /attention (got {value!r})")
    if value.endswith("/"):
        shorter = value.rstrip("/")
        if not shorter:
            raise ValueError("must be empty, not '/', to serve at the root of the host")
        raise ValueError(f"must not end with '/': write {shorter!r}")
    if not _ROOT_PATH.fullmatch(value):
        raise ValueError(
            "must be a path of segments of letters, digits, '-', '.', '_' or '~' such as "
            f"/attention or /courses/attention (got {value!r})"
        )
    return value


def default_data_dir() -> Path:
    """The data dir when ``data_dir`` is unset: the XDG data home's ``attention-lab``."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "attention-lab"


@cache
def get_settings() -> Settings:
    """The process's settings, read once from the environment."""
    return Settings()
