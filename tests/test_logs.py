"""The log pipeline (referee/logs.py): the one line per RPC is recorded on the call's
path and rendered later, in order with every other line, at the time it was recorded."""

from __future__ import annotations

import calendar
import contextlib
import io
import json
import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import logs


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "log.jsonl"
    with open(path, "w") as stream:
        logs.configure("info", "json", stream)
        yield path
        logs.flush()
    logs.configure("warning", "json")  # as the other tests' processes configure it


def _json_line(method: str, event: dict[str, Any]) -> bytes:
    return f"{json.dumps(event)}\n".encode()


def lines(path: Path) -> list[dict[str, Any]]:
    logs.flush()
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_an_rpc_line_keeps_the_time_it_was_recorded_at(
    log_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs.time, "time", lambda: 1_700_000_000.25)
    logs.rpc_line({"method": "ApplyAction", "status": "OK", "request_id": "r1"})
    monkeypatch.setattr(logs.time, "time", lambda: 1_700_000_099.5)
    (line,) = lines(log_file)
    assert line["timestamp"] == "2023-11-14T22:13:20.250000Z"
    assert line["event"] == "rpc" and line["level"] == "info" and line["pid"]
    assert "_recorded_at" not in line


def test_rpc_lines_and_other_lines_keep_their_order(log_file: Path) -> None:
    logs.rpc_line({"method": "A", "status": "OK"})
    logs.get_logger("referee.server").warning("something_urgent")
    logs.rpc_line({"method": "B", "status": "OK"})
    logs.get_logger(logs.RPC_LOGGER).info("rpc_other", method="C")
    logs.rpc_line({"method": "D", "status": "OK"})
    events = [(e["event"], e.get("method")) for e in lines(log_file)]
    assert events == [
        ("rpc", "A"),
        ("something_urgent", None),
        ("rpc", "B"),
        ("rpc_other", "C"),
        ("rpc", "D"),
    ]


def test_rpc_lines_below_the_level_are_not_written(log_file: Path) -> None:
    logs.rpc_line({"method": "Check"}, logging.DEBUG)  # health and reflection: debug
    logs.rpc_line({"method": "ListGames"}, logging.INFO)
    logs.rpc_line({"method": "NewGame", "status": "INTERNAL"}, logging.WARNING)
    written = lines(log_file)
    assert [e["method"] for e in written] == ["ListGames", "NewGame"]
    assert [e["level"] for e in written] == ["info", "warning"]


def test_at_level_warning_only_the_warning_rpc_lines_are_written(tmp_path: Path) -> None:
    """--log-level warning: the per-RPC lines of calls refused or failed for the
    server's reasons (referee.calls.WARNING_CODES), not those of every call."""
    path = tmp_path / "log.jsonl"
    with open(path, "w") as stream:
        logs.configure("warning", "json", stream)
        logs.rpc_line({"method": "ApplyAction", "status": "OK"}, logging.INFO)
        logs.rpc_line({"method": "Replay", "status": "RESOURCE_EXHAUSTED"}, logging.WARNING)
        logs.flush()
    logs.configure("warning", "json")
    written = [json.loads(line) for line in path.read_text().splitlines()]
    assert [(e["method"], e["level"]) for e in written] == [("Replay", "warning")]


def test_many_waiting_lines_are_written_without_a_flush(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs.time, "monotonic", lambda: 100.0)  # the last write stays new
    path = tmp_path / "log.jsonl"
    with open(path, "w") as stream:
        writer = logs.LineWriter(stream, _json_line, False)
        for i in range(logs.MAX_WAITING - 1):
            writer.record("info", {"request_id": i})
        assert path.read_text() == ""  # waiting
        writer.record("info", {"request_id": logs.MAX_WAITING - 1})
        written = path.read_text().splitlines()  # the last record wrote them all
    assert [json.loads(line)["request_id"] for line in written] == list(range(logs.MAX_WAITING))


def test_a_line_that_cannot_be_rendered_does_not_stop_the_log(log_file: Path) -> None:
    class Unprintable:
        def __repr__(self) -> str:
            raise RuntimeError("no repr")

    logs.rpc_line({"method": "A", "odd": Unprintable()})
    logs.rpc_line({"method": "B"})
    events = lines(log_file)
    assert events[0]["event"] == "log_line_unrenderable" and "no repr" in events[0]["error"]
    assert events[1]["method"] == "B"


def test_values_orjson_refuses_are_written_by_the_standard_library(log_file: Path) -> None:
    """Lines are serialized with orjson; what it refuses (an integer beyond 64 bits, a
    key that is not a string) still gives the line, not an unrenderable one; an object
    JSON does not know is written as its repr."""

    class Opaque:
        def __repr__(self) -> str:
            return "<opaque>"

    logs.rpc_line({"method": "A", "huge": 2**70})
    logs.rpc_line({"method": "B", "keys": {1: "one"}})
    logs.rpc_line({"method": "C", "odd": Opaque(), "text": "écarté"})
    events = lines(log_file)
    assert [e["method"] for e in events] == ["A", "B", "C"]
    assert events[0]["huge"] == 2**70
    assert events[1]["keys"] == {"1": "one"}
    assert events[2]["odd"] == "<opaque>" and events[2]["text"] == "écarté"


def test_without_a_file_descriptor_rpc_lines_are_written_at_once() -> None:
    stream = io.StringIO()
    logs.configure("info", "json", stream)
    try:
        logs.rpc_line({"method": "ListGames", "status": "OK"})
        (line,) = stream.getvalue().splitlines()  # no flush needed
        assert json.loads(line)["method"] == "ListGames"
    finally:
        logs.configure("warning", "json")


def test_waiting_lines_are_written_once_the_last_write_is_old(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Even if the flusher thread lags, no line waits much over FLUSH_SECONDS."""
    clock = [100.0]
    monkeypatch.setattr(logs.time, "monotonic", lambda: clock[0])
    path = tmp_path / "log.jsonl"
    with open(path, "w") as stream:
        writer = logs.LineWriter(stream, _json_line, False)
        writer.record("info", {"n": 1})
        assert path.read_text() == ""
        clock[0] += 2 * logs.FLUSH_SECONDS
        writer.record("info", {"n": 2})
        assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == [1, 2]


class _Opaque:
    """A value JSON does not know: written as its repr."""

    def __repr__(self) -> str:
        return "<opaque>"

    def __str__(self) -> str:
        return "opaque"


_json_values = st.recursive(
    st.none()
    | st.builds(_Opaque)
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)  # beyond 64 bits: the fallback
    | st.floats(allow_nan=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(max_size=5) | st.integers(0, 9), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(
    fields=st.dictionaries(st.text(max_size=10), _json_values, max_size=6),
    method=st.sampled_from(["info", "debug", "warning"]),
    recorded_at=st.floats(min_value=1, max_value=4e9),  # 0: "now", as in _Clock
    process=st.sampled_from([{"pid": 7}, {"pid": 7, "worker": 1}, {"pid": 8, "role": "metrics"}]),
)
def test_an_rpc_line_is_rendered_as_the_json_processors_render_it(
    fields: dict[str, Any], method: str, recorded_at: float, process: dict[str, Any]
) -> None:
    """The dedicated renderer of recorded lines (rpc_renderer) writes the very bytes the
    structlog processors of a JSON line write: fields, their order, process fields,
    level, timestamp, and what orjson refuses."""
    saved = dict(logs._PROCESS)
    logs._PROCESS.clear()
    logs._PROCESS.update(process)
    try:
        event = {**fields, "event": "rpc", logs.RECORDED_AT: recorded_at}
        fast = logs.rpc_renderer(logs.json_processors())(method, dict(event))
        slow = logs.chain_renderer(logs.json_processors())(method, dict(event))
    finally:
        logs._PROCESS.clear()
        logs._PROCESS.update(saved)
    assert fast == slow


def test_an_rpc_line_with_exc_info_goes_through_the_processors() -> None:
    try:
        raise ValueError("boom")
    except ValueError as e:
        error = e
    event = {"event": "rpc", "exc_info": error, logs.RECORDED_AT: 1_700_000_000.0}
    line = json.loads(logs.rpc_renderer(logs.json_processors())("info", event))
    assert "exc_info" not in line and "ValueError: boom" in line["exception"]


@settings(max_examples=500, deadline=None)
@given(now=st.floats(min_value=0, max_value=4e9) | st.integers(0, 4_000_000_000).map(float))
def test_a_timestamp_is_iso_8601_utc_with_six_digits_of_microseconds(now: float) -> None:
    """_Clock.stamp writes what strftime and a zero-padded "06d" write (whole seconds,
    and a fraction that rounds up to a whole second, included)."""
    clock = logs._Clock()
    second = int(now)
    micro = min(int((now - second) * 1_000_000), 999_999)
    expected = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second)) + f".{micro:06d}Z"
    assert clock.stamp(now) == expected
    assert clock.stamp(now) == expected  # the second's prefix, kept from the call before


def _capture_writes(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """Every ``os.write`` of the log pipeline, kept (whole) instead of written."""
    writes: list[bytes] = []

    def write(fd: int, data: Any) -> int:
        writes.append(bytes(data))
        return len(data)

    monkeypatch.setattr(logs.os, "write", write)
    return writes


def test_each_write_holds_whole_lines_and_at_most_pipe_buf_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several workers share stderr: a write of at most PIPE_BUF bytes is atomic, so
    each write holds whole lines, as many as fit in PIPE_BUF (a longer line alone)."""
    monkeypatch.setattr(logs.time, "monotonic", lambda: 100.0)
    writes = _capture_writes(monkeypatch)
    half, whole = logs.CHUNK_BYTES // 2, logs.CHUNK_BYTES

    def line(size: int) -> bytes:
        return b"x" * (size - 1) + b"\n"

    with open(tmp_path / "log", "w") as stream:
        writer = logs.LineWriter(stream, lambda _, event: event["line"], False)
        sizes = [half, half, whole, half, half, 3 * whole, 10, half - 10, half, 1, 2, whole - 3]
        for size in sizes:
            writer.record("info", {"line": line(size)})
        writer.flush()
    assert [len(w) for w in writes] == [whole, whole, whole, 3 * whole, whole, whole]
    assert b"".join(writes) == b"".join(line(size) for size in sizes)


def test_buffered_lines_wait_for_16_kib_or_the_flush_interval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``msg`` (the rendered lines of the RPC logger) writes what waits once 16 KiB wait
    or the last write is FLUSH_SECONDS old, counting from each write (and from a fork:
    a child starts with nothing waiting)."""
    clock = [10.0]
    monkeypatch.setattr(logs.time, "monotonic", lambda: clock[0])
    writes = _capture_writes(monkeypatch)
    with open(tmp_path / "log", "w") as stream:
        writer = logs.LineWriter(stream, None, False)
        clock[0] = 10.01
        writer.msg("a" * 16382)  # 16,383 bytes with its newline: waits
        assert writes == []
        writer.msg("")  # 16,384
        assert [len(w) for w in b"".join(writes).splitlines(keepends=True)] == [16383, 1]
        writes.clear()
        writer.msg("b" * 16382)  # counted from the write: waits again
        assert writes == []
        writer.flush()
        writes.clear()
        writer._after_fork_in_child()  # what a forked worker's writer runs first
        writer.msg("c" * 16382)
        assert writes == []
        clock[0] = 10.01 + logs.FLUSH_SECONDS + 1  # an old last write: written
        writer.msg("d")
        assert len(b"".join(writes)) == 16383 + 2

    clock[0] = 0.0
    with open(tmp_path / "log2", "w") as stream:
        writer = logs.LineWriter(stream, None, False)
        clock[0] = logs.FLUSH_SECONDS  # exactly the interval since the last write
        writer.msg("e")
        assert b"".join(writes).endswith(b"e\n")
        writes.clear()
        writer.record("info", {"n": 1})
        clock[0] = 2 * logs.FLUSH_SECONDS
        writer.record("info", {"n": 2})  # exactly the interval again: both written
        assert len(writes) == 1


def test_rpc_lines_wait_and_other_lines_are_written_at_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(logs, "FLUSH_SECONDS", 3600.0)  # no flush by time in this test
    path = tmp_path / "log.jsonl"
    try:
        with open(path, "w") as stream:
            logs.configure("info", "json", stream)
            logs.rpc_line({"method": "A", "status": "OK"})
            logs.get_logger(logs.RPC_LOGGER).info("rpc_other", method="B")
            assert path.read_text() == ""  # the RPC logger's lines wait for a batch
            logs.get_logger("referee.server").info("started")  # another logger's: at once
            written = [json.loads(x)["event"] for x in path.read_text().splitlines()]
            logs.flush()  # nothing left for the closed file's descriptor
    finally:
        logs.configure("warning", "json")
    assert written == ["rpc", "rpc_other", "started"]


def test_the_flusher_thread_writes_what_waits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the clock stopped no call writes what waits: the writer's own thread does,
    every FLUSH_SECONDS, for as long as the writer lives."""
    monkeypatch.setattr(logs.time, "monotonic", lambda: 100.0)
    path = tmp_path / "log"
    with open(path, "w") as stream:
        writer = logs.LineWriter(stream, _json_line)
        for n in (1, 2):
            writer.record("info", {"n": n})
            deadline = time.time() + 30
            while len(path.read_text().splitlines()) < n and time.time() < deadline:
                time.sleep(logs.FLUSH_SECONDS)
            assert [json.loads(x)["n"] for x in path.read_text().splitlines()] == [1, 2][:n]


def test_the_first_second_of_the_epoch_is_stamped_in_full() -> None:
    assert logs._Clock().stamp(0.25) == "1970-01-01T00:00:00.250000Z"
    assert logs._Clock().stamp(86_400.5) == "1970-01-02T00:00:00.500000Z"


def test_format_auto_is_json_off_a_terminal_and_the_console_stamps_utc(tmp_path: Path) -> None:
    path = tmp_path / "log"
    try:
        with open(path, "w") as stream:
            logs.configure("info", "auto", stream)
            logs.get_logger("referee.server").info("started", port=1)
            logs.flush()
        assert json.loads(path.read_text())["event"] == "started"
        console = io.StringIO()
        logs.configure("info", "console", console)
        logs.get_logger("referee.server").info("started", port=1)
        stamp = console.getvalue().split(" ", 1)[0]
        assert stamp.endswith("Z") and "started" in console.getvalue()
        stamped = calendar.timegm(time.strptime(stamp[:19], "%Y-%m-%dT%H:%M:%S"))
        assert abs(stamped - time.time()) < 60  # UTC, not this machine's local time
    finally:
        logs.configure("warning", "json")


FORK_TWICE = """
import os, sys
from referee import logs

stream = open(sys.argv[1], "w")
writer = logs.LineWriter(stream, None, False)
writer.urgent("supervisor")
worker = os.fork()  # as the supervisor forks a worker
if worker == 0:
    for n in range(2):  # the worker forks in turn (a subprocess), and logs after each
        child = os.fork()
        if child == 0:
            os._exit(0)
        os.waitpid(child, 0)
        writer.urgent(f"worker after fork {n}")
    os._exit(0)
_, status = os.waitpid(worker, 0)
writer.urgent(f"worker exited {os.waitstatus_to_exitcode(status)}")
"""


def test_a_forked_worker_that_forks_again_keeps_logging(tmp_path: Path) -> None:
    """A forked process has a writer lock of its own (``_after_fork_in_child``); when it
    forks in turn, its lock is taken before the fork and released after it. The at-fork
    hook used to release the first process's lock instead, so the worker's own stayed
    held and its next line (or fork) waited for ever: here the script would not end (the
    timeout only bounds that wait)."""
    import os
    import signal
    import subprocess
    import sys

    path = tmp_path / "log"
    script = subprocess.Popen([sys.executable, "-c", FORK_TWICE, str(path)], start_new_session=True)
    try:
        assert script.wait(timeout=60) == 0
    finally:  # a stuck worker is the script's child: its whole session goes
        with contextlib.suppress(ProcessLookupError):
            os.killpg(script.pid, signal.SIGKILL)
        script.wait()
    assert path.read_text().splitlines() == [
        "supervisor",
        "worker after fork 0",
        "worker after fork 1",
        "worker exited 0",
    ]
