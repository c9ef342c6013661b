"""The benchmark scripts run and print their figures (docs/benchmarks.md): a check that
they keep working, never a timing. Short runs; the numbers are not compared to anything."""

from __future__ import annotations

import atexit
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"


def _decoy() -> Path:
    """A directory whose ``referee`` package fails on import: the scripts run from there,
    so a child process (a server, a callgrind run) that would import the package from
    its working directory instead of the build the script measures fails the test."""
    path = Path(tempfile.mkdtemp(prefix="bench-cwd-"))
    atexit.register(shutil.rmtree, path, True)
    (path / "referee").mkdir()
    (path / "referee" / "__init__.py").write_text(
        "raise ImportError('referee imported from the working directory')\n"
    )
    return path


DECOY = _decoy()


def run(*args: str) -> str:
    result = subprocess.run(
        [sys.executable, str(BENCH / args[0]), *args[1:]],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=DECOY,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("command: python bench/"), result.stdout
    return result.stdout


def test_engine_bench_runs() -> None:
    out = run("engine.py", "--seconds", "0.2", "--no-peer")
    for game in ("ecarte", "earl_of_coventry"):
        assert re.search(rf"^{game}\s+[\d,]+ ", out, re.MULTILINE), out


def test_inprocess_bench_runs() -> None:
    out = run("inprocess.py", "--calls", "20")
    assert out.count("ApplyAction + actor's view") == 2, out


def test_instructions_bench_runs() -> None:
    if shutil.which("valgrind") is None:
        pytest.fail("valgrind is missing: apt-get install valgrind (CI installs it)")
    out = run(
        *("instructions.py", "--games", "ecarte", "--rpcs", "ApplyAction", "--calls", "10"),
        *("--stack", "--cold"),
    )
    row = re.search(r"^ecarte\s+ApplyAction\s+([\d,]+)\s+([\d,]+)\s+([\d,]+)$", out, re.MULTILINE)
    assert row, out
    instructions, code, data = (int(x.replace(",", "")) for x in row.groups())
    assert instructions > 1000, out
    # A call runs code from several libraries and reads the state, the rules' tables and
    # protobuf's: hundreds of lines of each at the least (about 3,000 and 2,000 measured).
    assert code > 300 and data > 300, out
    counts = [
        int(m.group(1).replace(",", ""))
        for m in re.finditer(r"^serving stack\s+.+?\s+(-?[\d,]+)$", out, re.MULTILINE)
    ]
    # 10 calls (the simulated caches' copying, 4 MiB before each call, is most of --cold's
    # run): the servicer alone (about 2,600 a call) is within the noise; the log line
    # (about 20,000 a call) is not.
    assert len(counts) == 3 and counts[1] < counts[2], out


def test_replay_bench_runs_and_agrees_over_the_wire() -> None:
    # The script asserts that in-process and over-the-wire replays end on the same hash.
    out = run(
        "replay.py", "--actions", "300", "--rounds", "1",
        "--memory-actions", "1000", "--memory-calls", "2",
    )  # fmt: skip
    assert re.search(r"^earl_of_coventry\s+300\s", out, re.MULTILINE), out
    assert len(re.findall(r"--engine \w+ +(legal|refused) plays .* MiB a Replay", out)) == 4, out


def test_service_bench_runs() -> None:
    if shutil.which("h2load") is None:
        pytest.fail("h2load is missing: apt-get install nghttp2-client (CI installs it)")
    servers = (
        "no-op",
        "no-op threads",
        "no-op coalesced",
        "stack",
        "stack threads",
        "referee",
        "referee uncoalesced",
        "referee threads",
    )
    out = run(
        "service.py",
        # One round, no warm-up: 16 servers' runs, about a minute (the figures are not
        # compared to anything here; docs/benchmarks.md has the real runs).
        *("--seconds", "1", "--warm-up", "0", "--rounds", "1", "--games", "ecarte"),
        *("--servers", *servers),
    )
    for ratio in (
        "referee / no-op",
        "referee threads / no-op threads",
        "referee threads / no-op",
        "no-op threads / no-op",
        "stack / no-op",
        "stack threads / no-op threads",
        "referee uncoalesced / no-op",
        "referee / no-op coalesced",
    ):
        assert out.count(f"ratio {ratio} at saturation:") == 2, (ratio, out)
    rows = re.findall(
        r"^(?:no-op|stack|referee)[a-z ]+\s([\d,]+)\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+(\d+)"
        r"(?:\s+\d+\s+([\d.]+))?$",
        out,
        re.MULTILINE,
    )
    assert len(rows) == 2 * 8 * 3, out  # 2 workloads x 8 servers x (saturated, half, one)
    assert all(errors == "0" for _, errors, _ in rows), out
    # Saturated rows carry the server's CPU time and context switches per call: gRPC
    # hands every call between its threads, so there is at least one switch per call.
    switches = [float(s) for _, _, s in rows if s]
    assert len(switches) == 2 * 8 and all(s >= 1 for s in switches), out


def test_scale_bench_runs() -> None:
    if shutil.which("h2load") is None:
        pytest.fail("h2load is missing: apt-get install nghttp2-client (CI installs it)")
    out = run("scale.py", "--calls", "2000", "--seconds", "1")
    for engine in ("auto", "asyncio", "threads"):
        for workers in (1, 2):
            assert f"--engine {engine}, workers {workers}: " in out, out
        assert f"--engine {engine}, worker RSS: idle " in out, out
    # An engine named is the engine that serves (auto: whichever the machine gives).
    assert re.search(r"--engine asyncio, workers 2: [\d,]+ .*asyncio.*asyncio", out), out
    assert re.search(r"--engine threads, workers 2: [\d,]+ .*threads.*threads", out), out


def test_inserver_bench_runs() -> None:
    if shutil.which("h2load") is None:
        pytest.fail("h2load is missing: apt-get install nghttp2-client (CI installs it)")
    for engine in ("asyncio", "threads"):
        out = run(
            "inserver.py", "--seconds", "1", "--warm-up", "0", "--engine", engine, "--calls", "200"
        )  # fmt: skip
        assert f"--engine {engine}" in out, out
        rows = re.findall(
            r"^(nothing|apply_action|open_state|integer loop)\s+[\d.]+\s+[\d.]+\s+[\d,]+\s+[\d.]+$",
            out,
            re.MULTILINE,
        )
        assert rows == ["nothing", "apply_action", "open_state", "integer loop"], out
        # In-process, each disturbance between two calls has its figure.
        disturbed = re.findall(r"^  (\S.*?)\s+[\d.]+ us$", out, re.MULTILINE)
        assert disturbed == [
            "nothing", "a thread hop", "256 KiB", "1 MiB", "4 MiB", "4,096 pages", "other code",
            "200 us asleep",
        ], out  # fmt: skip


def test_overhead_bench_runs() -> None:
    out = run("overhead.py", "--calls", "300", "--rounds", "1")
    rows = re.findall(r"^(\S+)\s+[\d.]+\s+-?[\d.]+$", out, re.MULTILINE)
    assert rows == [
        "baseline", "interceptor", "+log", "+metrics", "+multiproc", "+auth+limit", "+tracing"
    ], out  # fmt: skip


def test_grpcweb_memory_bench_runs() -> None:
    out = run(
        "grpcweb_memory.py", "--clients", "3", "--max-message-bytes", str(1 << 20),
        "--max-buffered-bytes", "auto", "1400000",
    )  # fmt: skip
    rows = re.findall(r"^(auto|1400000)\s+(\d+)\s+(\d+)\s+(-?\d+)\s+(.*)$", out, re.M)
    assert [r[0] for r in rows] == ["auto", "1400000"], out
    for _, before, peak, _, answers in rows:
        assert 0 < int(before) <= int(peak), out
        counts = dict((code, int(n)) for n, code in re.findall(r"(\d+) ([A-Z_]+)", answers))
        assert sum(counts.values()) == 3 and counts.get("INVALID_ARGUMENT", 0) >= 1, out
        assert set(counts) <= {"INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"}, out


def test_grpcweb_bench_runs() -> None:
    if shutil.which("h2load") is None:
        pytest.fail("h2load is missing: apt-get install nghttp2-client (CI installs it)")
    out = run(
        "grpcweb.py", "--seconds", "1", "--connections", "2", "--games", "ecarte",
        "--gateway-metrics",
    )  # fmt: skip
    assert "gateway metrics: on" in out
    rows = re.findall(
        r"^ecarte, ApplyAction\s+(direct|gateway)\s+([\d,]+)\s.*\s(\d+)\s+\d+\s+\d+$", out, re.M
    )
    assert [path for path, _, _ in rows] == ["direct", "gateway"], out
    assert all(failed == "0" for _, _, failed in rows), out
    assert "ratio gateway / direct for ecarte:" in out
