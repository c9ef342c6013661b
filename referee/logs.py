"""Logging with structlog: JSON lines in production, readable in a terminal.

Never log hands, seeds, keys, sealed tokens or bearer tokens: log lines carry
only the method, game, verdict, violation codes, status, latency, request id
and the name (never the value) of the client's token.

Every line carries the process id, and the worker id in a worker process
(``referee serve --workers N``).

One line per RPC is on the hot path, so in production (JSON to a file descriptor)
a call only records its line's fields and the time (``rpc_line``); the lines are
rendered (the same structlog processors: process fields, level, timestamp, JSON) and
written out in batches at least every 50 ms (sooner when many are waiting, and at
exit). Rendered one at a time between gRPC's own work a line costs several times
what it costs in a batch (docs/benchmarks.md). Every other line (start-up,
shutdown, warnings, errors) is rendered and written at once, after what is waiting,
so the order of lines is kept. Each
``write`` holds whole lines and at most ``PIPE_BUF`` bytes, so that the lines of
several worker processes sharing stderr never mix. A terminal (console format)
and streams without a file descriptor are written line by line.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import select
import sys
import threading
import time
from collections.abc import Callable
from typing import Any, TextIO

import orjson
import structlog

LEVELS = ("debug", "info", "warning", "error")
FORMATS = ("auto", "json", "console")

FLUSH_SECONDS = 0.05
CHUNK_BYTES = getattr(select, "PIPE_BUF", 4096)

_PROCESS: dict[str, Any] = {}
"""Fields of every line of this process (pid; worker or role)."""


def _add_process(_: Any, __: str, event: dict[str, Any]) -> dict[str, Any]:
    event.update(_PROCESS)
    return event


class _Clock:
    """ISO 8601 UTC timestamps with microseconds, the date part formatted once a second."""

    __slots__ = ("prefix", "second")

    def __init__(self) -> None:
        self.second = -1
        self.prefix = ""

    def __call__(self, _: Any, __: str, event: dict[str, Any]) -> dict[str, Any]:
        # A recorded line's own time, else now.
        event["timestamp"] = self.stamp(event.pop(RECORDED_AT, None) or time.time())
        return event

    def stamp(self, now: float) -> str:
        second = int(now)
        if second != self.second:
            self.second = second
            self.prefix = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
        micro = int((now - second) * 1_000_000)  # 1e6 when a product rounds up: 6 digits
        # Six digits, zero-padded, as str(1e6 + micro)[1:]: a format spec ("06d") is
        # parsed at every use and costs more than the rest of the line's timestamp.
        digits = str(1_000_000 + (micro if micro < 1_000_000 else 999_999))
        return self.prefix + "." + digits[1:] + "Z"


def _dumps(event: dict[str, Any], **_: Any) -> str:
    """A line's JSON: orjson (about a tenth of the standard library's time for a line),
    anything it does not know as its ``repr``; the standard library for what orjson
    refuses (an integer beyond 64 bits, a key that is not a string)."""
    try:
        return orjson.dumps(event, default=repr).decode()
    except TypeError:
        return json.dumps(event, default=repr)


RECORDED_AT = "_recorded_at"
"""The key of a recorded line's time (``time.time()``), read by the timestamp."""

MAX_WAITING = 256
"""Recorded lines waiting beyond which the caller renders and writes them itself (as
it does when the last write is FLUSH_SECONDS old, should the flusher thread lag)."""


class LineWriter:
    """A structlog logger writing rendered lines to a file descriptor, buffered, and
    the sink of recorded lines, rendered when written (see the module docstring).
    Thread-safe."""

    def __init__(
        self,
        stream: TextIO,
        render: Callable[[str, dict[str, Any]], bytes] | None = None,
        flusher: bool = True,  # the thread writing out what waits every FLUSH_SECONDS
    ) -> None:
        self._stream = stream
        self._fd = stream.fileno()
        self._render = render  # (method name, event dict) -> the line, "\n" included
        self._lock = threading.Lock()
        self._lines: list[bytes | tuple[str, dict[str, Any]]] = []
        self._size = 0
        self._last = time.monotonic()
        self._flusher = flusher
        self._start_flusher()
        atexit.register(self.flush)
        # Workers are forked from the supervisor: nothing buffered crosses a fork, the
        # lock is not held across it, and the child gets its own flusher thread. The
        # parent releases the lock it took, whichever that is: a forked child has a lock
        # of its own, and a hook bound to the first (``self._lock.release``, until
        # 2026-12-07) released that one instead when the child forked in turn, leaving
        # its own held: the child's next fork, or flush, waited for it forever.
        os.register_at_fork(
            before=self._before_fork,
            after_in_parent=self._after_fork_in_parent,
            after_in_child=self._after_fork_in_child,
        )

    def _start_flusher(self) -> None:
        if self._flusher:
            threading.Thread(target=self._tick, name="log-flush", daemon=True).start()

    def _before_fork(self) -> None:
        self.flush()
        self._lock.acquire()

    def _after_fork_in_parent(self) -> None:
        self._lock.release()

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()
        self._lines, self._size = [], 0
        self._start_flusher()

    def msg(self, message: str) -> None:
        line = (message + "\n").encode()
        with self._lock:
            self._lines.append(line)
            self._size += len(line)
            if self._size < 16384 and time.monotonic() - self._last < FLUSH_SECONDS:
                return
        self.flush()

    def record(self, method: str, event: dict[str, Any]) -> None:
        """A line to render later: its fields (with ``RECORDED_AT``) and level name."""
        with self._lock:
            self._lines.append((method, event))
            if len(self._lines) < MAX_WAITING and time.monotonic() - self._last < FLUSH_SECONDS:
                return
        self.flush()

    def urgent(self, message: str) -> None:
        self.msg(message)
        self.flush()

    def flush(self) -> None:
        with self._lock:
            lines, self._lines, self._size = self._lines, [], 0
            self._last = time.monotonic()
            if not lines:
                return
            # Anything written to the stream directly comes first (a closed stream: the
            # lines still go to the descriptor).
            with contextlib.suppress(OSError, ValueError):
                self._stream.flush()
            chunk: list[bytes] = []
            size = 0
            for item in lines:
                line = item if isinstance(item, bytes) else self._rendered(*item)
                if size and size + len(line) > CHUNK_BYTES:
                    self._write(b"".join(chunk))
                    chunk, size = [], 0
                chunk.append(line)
                size += len(line)
            self._write(b"".join(chunk))

    def _rendered(self, method: str, event: dict[str, Any]) -> bytes:
        try:
            assert self._render is not None, "a writer without a renderer records nothing"
            return self._render(method, event)
        except Exception as e:  # a line that cannot be rendered must not stop the log
            line = json.dumps({"event": "log_line_unrenderable", "error": repr(e)})
            return (line + "\n").encode()

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            try:
                written = os.write(self._fd, view)
            except InterruptedError:
                continue
            except OSError:
                return  # the log's reader is gone: never fail a call for it
            view = view[written:]

    def _tick(self) -> None:
        while True:
            time.sleep(FLUSH_SECONDS)
            if self._lines:
                self.flush()


RPC_LOGGER = "referee.rpc"
"""The logger of the one line per RPC: the only one buffered."""


class _Buffered:
    """The structlog logger of ``referee.rpc``: info and debug lines are buffered."""

    def __init__(self, writer: LineWriter) -> None:
        self.debug = self.info = self.msg = writer.msg
        self.warning = self.error = self.critical = self.exception = writer.urgent


class _Immediate:
    """The structlog logger of every other name: every line is written at once."""

    def __init__(self, writer: LineWriter) -> None:
        self.debug = self.info = self.msg = self.warning = writer.urgent
        self.error = self.critical = self.exception = writer.urgent


_WRITERS: list[LineWriter] = []


def flush() -> None:
    """Write out buffered lines now (before ``os._exit``, which skips ``atexit``)."""
    for writer in _WRITERS:
        writer.flush()


_RPC: dict[str, Any] = {"level": logging.INFO, "writer": None}
"""How ``rpc_line`` logs: the least level written; the writer recording lines (JSON
to a file descriptor) or None (every line rendered at once, through structlog)."""


def rpc_level() -> int:
    """The least level of the RPC lines written (``configure``'s level)."""
    return int(_RPC["level"])


def rpc_line(fields: dict[str, Any], level: int = logging.INFO) -> None:
    """The one line per RPC (event ``rpc``, logger ``referee.rpc``) at ``level``: in
    production recorded now and rendered with the next batch, else logged at once."""
    if level < _RPC["level"]:
        return
    writer = _RPC["writer"]
    method = "debug" if level < logging.INFO else "info" if level < logging.WARNING else "warning"
    if writer is None:
        getattr(get_logger(RPC_LOGGER), method)("rpc", **fields)
        return
    fields["event"] = "rpc"
    fields[RECORDED_AT] = time.time()
    writer.record(method, fields)


def chain_renderer(processors: list[Any]) -> Callable[[str, dict[str, Any]], bytes]:
    """A recorded line rendered by the processors of ``configure`` (a JSON line)."""

    def render(method: str, event: dict[str, Any]) -> bytes:
        line: Any = event  # a dict through the processors; the last one renders a str
        for processor in processors:
            line = processor(None, method, line)
        if not isinstance(line, str):  # _rendered writes log_line_unrenderable instead
            raise TypeError(f"the processors rendered a {type(line).__name__}, not a str")
        return (line + "\n").encode()

    return render


def rpc_renderer(processors: list[Any]) -> Callable[[str, dict[str, Any]], bytes]:
    """What the JSON processors of ``configure`` make of a recorded line (``_add_process``,
    ``add_log_level``, the timestamp, ``format_exc_info``, the JSON), written out: the
    same bytes (tested against the processors in tests/test_logs.py) in one call
    instead of six; with it a line costs about a third fewer instructions
    (``bench/instructions.py --stack``). A line with ``exc_info`` goes through them."""
    chain = chain_renderer(processors)
    stamp = next(p for p in processors if isinstance(p, _Clock)).stamp
    dumps, option, process, now = orjson.dumps, orjson.OPT_APPEND_NEWLINE, _PROCESS, time.time

    def render(method: str, event: dict[str, Any]) -> bytes:
        if "exc_info" in event:
            return chain(method, event)
        event.update(process)
        event["level"] = method  # "debug", "info" or "warning": add_log_level's names
        event["timestamp"] = stamp(event.pop(RECORDED_AT, None) or now())
        try:
            return dumps(event, default=repr, option=option)
        except TypeError:  # what orjson refuses: _dumps's fallback
            return (json.dumps(event, default=repr) + "\n").encode()

    return render


def _writer_factory(stream: TextIO, buffered: bool, processors: list[Any]) -> Any:
    if not buffered:
        _RPC["writer"] = None
        return structlog.WriteLoggerFactory(stream)
    writer = LineWriter(stream, rpc_renderer(processors))
    _WRITERS[:] = [writer]
    _RPC["writer"] = writer
    rpc, other = _Buffered(writer), _Immediate(writer)
    return lambda name=None, *_: rpc if name == RPC_LOGGER else other


def json_processors() -> list[Any]:
    """The structlog processors of a JSON line."""
    return [
        _add_process,
        structlog.processors.add_log_level,
        _Clock(),
        structlog.processors.format_exc_info,
        structlog.processors.JSONRenderer(serializer=_dumps),
    ]


def configure(level: str = "info", fmt: str = "auto", stream: TextIO | None = None) -> None:
    """Configure structlog once per process (``fmt=auto``: console on a TTY, else JSON)."""
    out = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if out.isatty() else "json"
    try:
        out.fileno()
        has_fd = True
    except (AttributeError, OSError, ValueError):
        has_fd = False
    if fmt == "json":
        processors = json_processors()
    else:
        processors = [
            _add_process,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            structlog.dev.ConsoleRenderer(colors=out.isatty()),
        ]
    least = getattr(logging, level.upper(), logging.INFO)
    _RPC["level"] = least
    structlog.configure(
        processors=processors,
        wrapper_class=structlog.make_filtering_bound_logger(least),
        logger_factory=_writer_factory(out, fmt == "json" and has_fd, processors),
        cache_logger_on_first_use=True,
    )
    bind_process()


def bind_process(**fields: Any) -> None:
    """Bind this process's id (and e.g. ``worker=N``) to every later log line.

    Called again in a forked worker, which must not keep its parent's fields."""
    _PROCESS.clear()
    _PROCESS["pid"] = os.getpid()
    _PROCESS.update(fields)


def get_logger(name: str = "referee") -> Any:
    return structlog.get_logger(name)
