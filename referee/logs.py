"""Logging with structlog: JSON lines in production, readable in a terminal.

Never log hands, seeds, keys, sealed tokens or bearer tokens: log lines carry
only the method, game, verdict, violation codes, status, latency, request id
and the name (never the value) of the client's token.

Every line carries the process id, and the worker id in a worker process
(``referee serve --workers N``). JSON lines are written with one ``write``
each, so that the lines of several worker processes sharing stderr never mix.
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
        logger_factory=structlog.WriteLoggerFactory(out),
        cache_logger_on_first_use=True,
    )
    structlog.contextvars.bind_contextvars(pid=os.getpid())


def bind_process(**fields: Any) -> None:
    """Bind this process's id (and e.g. ``worker=N``) to every later log line.

    Called again in a forked worker: the bindings are context variables, and a
    child inherits its parent's, and loses them here."""
    structlog.contextvars.clear_contextvars()
    structlog.contextvars.bind_contextvars(pid=os.getpid(), **fields)


def get_logger(name: str = "referee") -> Any:
    return structlog.get_logger(name)
