"""Logging with structlog: JSON lines in production, readable in a terminal.

Never log hands, seeds, keys or sealed tokens: log lines carry only the
method, game, verdict, violation codes, status, latency and request id.
"""

from __future__ import annotations

import logging
import os
import sys
from typing import Any, TextIO

import structlog

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("auto", "json", "console")


def configure(level: str = "info", fmt: str = "auto", stream: TextIO | None = None) -> None:
    """Configure structlog once per process (``fmt=auto``: console on a TTY, else JSON)."""
    out = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if out.isatty() else "json"
    renderer: Any = (
        structlog.processors.JSONRenderer()
        if fmt == "json"
        else structlog.dev.ConsoleRenderer(colors=out.isatty())
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(
            getattr(logging, level.upper(), logging.INFO)
        ),
        logger_factory=structlog.PrintLoggerFactory(out),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(pid=os.getpid())


def get_logger(name: str = "referee") -> Any:
    return structlog.get_logger(name)
