"""Prometheus metrics scraped over HTTP after known calls (one process; the
several-worker sum is checked in test_workers), and the same series in both modes."""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee import metrics as m
from referee.auth import TokenSet
from referee.sealing import SEAL_REASONS
from referee.server import ServerSettings
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from .helpers import (
    CONFIG,
    SEED,
    InProcess,
    Served,
    closed_by_server,
    exposition,
    families,
    long_replay,
    sample,
    samples_of,
    scrape,
    wait_until,
)

TOKEN = "metrics-test-token-0123456789"


def test_metrics_after_known_calls() -> None:
    metrics = m.Metrics()
    sock = m.bind_socket("127.0.0.1", 0)
    http = m.serve_in_thread(sock, metrics.exposition_registry())
    m.install(metrics)
    settings = ServerSettings(host="127.0.0.1", port=0, auth=TokenSet([("ci", TOKEN)]))
    try:
        with InProcess(settings, metrics) as server, grpc.insecure_channel(server.address) as ch:
            stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
            bearer = (("authorization", f"Bearer {TOKEN}"),)
            for _ in range(3):
                stub.ListGames(pb.ListGamesRequest(), metadata=bearer, timeout=10)
            game = stub.NewGame(pb.NewGameRequest(config=CONFIG, seed=SEED), metadata=bearer)
            legal = stub.LegalActions(pb.LegalActionsRequest(state=game.state), metadata=bearer)
            good = legal.actions[0]
            assert (
                stub.ApplyAction(
                    pb.ApplyActionRequest(state=game.state, action=good), metadata=bearer
                ).verdict
                == 1
            )
            bad = long_replay(1).actions[0]  # a seat not on turn: rejected
            assert (
                stub.ApplyAction(
                    pb.ApplyActionRequest(state=game.state, action=bad), metadata=bearer
                ).verdict
                == 2
            )
            assert len(stub.Replay(long_replay(7), metadata=bearer).steps) == 7
            with pytest.raises(grpc.RpcError):  # no game: INVALID_ARGUMENT
                stub.NewGame(pb.NewGameRequest(), metadata=bearer)
            with pytest.raises(grpc.RpcError):  # no token
                stub.ListGames(pb.ListGamesRequest())
            m.sealed_refusal("TAMPERED")
            # A call is counted when its handler ends, which may be just after its client
            # has the answer: wait until all ten are.
            port = sock.getsockname()[1]

            def counted() -> dict[str, float] | None:
                now = scrape(port)
                return now if sample(now, "referee_rpcs_total") >= 10 else None

            samples = wait_until(counted, "every call counted")
    finally:
        m.install(None)
        http.shutdown()
        http.server_close()

    def rpcs(**labels: str) -> float:
        return sample(samples, "referee_rpcs_total", **labels)

    eoc = "earl_of_coventry"
    assert rpcs(method="ListGames", code="OK") == 3
    assert rpcs(method="ListGames", code="UNAUTHENTICATED") == 1
    assert rpcs(method="NewGame", game=eoc, code="OK") == 1
    assert rpcs(method="NewGame", code="INVALID_ARGUMENT") == 1
    assert rpcs(method="LegalActions", game=eoc, code="OK") == 1
    assert rpcs(method="ApplyAction", game=eoc, verdict="accepted", code="OK") == 1
    assert rpcs(method="ApplyAction", game=eoc, verdict="rejected", code="OK") == 1
    assert rpcs(method="Replay", game=eoc, code="OK") == 1
    actions = "referee_actions_total"
    # The rules version that judged them: what tells when a version is no longer in use.
    assert sample(samples, actions, game=eoc, rules_version=f"{eoc}/1", verdict="accepted") == 1
    assert sample(samples, actions, game=eoc, verdict="rejected") == 1 + 7
    latency = "referee_rpc_duration_seconds_count"
    assert sample(samples, latency, method="ListGames") == 4
    assert sample(samples, "referee_rpc_duration_seconds_bucket", method="Replay", le="+Inf") == 1
    assert sample(samples, "referee_in_flight_rpcs") == 0
    assert sample(samples, "referee_sealed_token_refusals_total", reason="TAMPERED") == 1
    assert sample(samples, "referee_build_info") == 1
    # Coalescing (grpc.aio's, on by default): every short call that reached its handler
    # ran in a batch, one run at once counting as a batch of one; Replay is never
    # coalesced. The threads engine does not coalesce.
    if server.engine == "asyncio":
        assert sample(samples, "referee_coalesced_batch_calls_sum") == 3 + 2 + 1 + 2
        assert 1 <= sample(samples, "referee_coalesced_batch_calls_count") <= 8
    else:
        assert sample(samples, "referee_coalesced_batch_calls_count") == 0
    # Standard process and Python metrics.
    assert sample(samples, "process_cpu_seconds_total") > 0
    assert sample(samples, "process_resident_memory_bytes") > 0
    assert "python_info" in {k.partition("{")[0] for k in samples}
    # Health checks are not counted as game traffic labels; nothing leaks a token.
    assert not any(TOKEN in k for k in samples)


def test_one_process_counts_itself_as_the_one_worker() -> None:
    """``--workers 1`` serves in the one process, without a supervisor: once it serves,
    ``referee_workers`` (worker processes serving) is 1 there too, not 0."""
    server = Served("--workers", "1", "--metrics-port", "0", "--metrics-host", "127.0.0.1")
    try:
        port = server.wait_for("metrics_serving")["port"]
        server.wait_for("referee_serving")
        # Counted once it is ready (after referee_serving, its heap frozen, as a
        # supervisor's worker): wait for the count rather than read it once.
        wait_until(
            lambda: sample(scrape(port), "referee_workers") == 1, "referee_workers counting 1"
        )
        assert server.terminate() == 0
    finally:
        server.close()


def _serving(port: int, workers: int) -> None:
    """Wait until the server counts its ``workers`` as serving (each ready)."""
    wait_until(
        lambda: sample(scrape(port), "referee_workers") == workers,
        f"referee_workers counting {workers}",
    )


def _counted(port: int, calls: int) -> None:
    """Wait until ``calls`` calls are counted (each once its handler has ended)."""
    wait_until(lambda: sample(scrape(port), "referee_rpcs_total") == calls, "the calls counted")


def _series(text: str) -> set[str]:
    """The ``referee_*`` series of an exposition: names and labels, not values."""
    return {line.rpartition(" ")[0] for line in text.splitlines() if line.startswith("referee_")}


def test_one_worker_and_two_workers_show_the_same_series() -> None:
    """A dashboard or alert written against a one-worker server finds the same families
    (names and types) and series on a several-worker one (prometheus-client's
    multiprocess mode), from the start: each refusal reason of a sealed token and the
    actions of each game by verdict at 0, the families with no series yet (calls by
    method, latency) described; no ``*_created`` series and no ``python_gc_*`` in
    either. After the same call, the same series again, each family named once."""
    metrics_args = ("--metrics-port", "0", "--metrics-host", "127.0.0.1")
    one = Served("--workers", "1", *metrics_args)
    two = Served("--workers", "2", *metrics_args)
    try:
        ports = {
            1: one.wait_for("metrics_serving")["port"],
            2: two.wait_for("supervisor_started")["metrics_port"],
        }
        addresses = {
            1: f"127.0.0.1:{one.wait_for('referee_serving')['port']}",
            2: f"127.0.0.1:{two.wait_for('supervisor_started')['port']}",
        }
        _serving(ports[1], 1)
        _serving(ports[2], 2)
        fresh = {n: exposition(port) for n, port in ports.items()}
        for n, address in addresses.items():
            with grpc.insecure_channel(address) as ch:
                stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
                assert stub.ListGames(pb.ListGamesRequest(), timeout=10).games
            _counted(ports[n], 1)
        called = {n: exposition(port) for n, port in ports.items()}
        assert one.terminate() == 0 and two.terminate() == 0
    finally:
        one.close()
        two.close()
    for texts in (fresh, called):
        named = {n: families(text) for n, text in texts.items()}
        for n in (1, 2):
            assert len(named[n]) == len(set(named[n])), named[n]  # each family once
        assert sorted(named[1]) == sorted(named[2])
        assert _series(texts[1]) == _series(texts[2])
    kinds = dict(families(fresh[1]))
    assert kinds["referee_rpcs_total"] == "counter"
    assert kinds["referee_rpc_duration_seconds"] == "histogram"
    assert not [name for name in kinds if name.endswith("_created") or "_gc_" in name]
    for text in fresh.values():
        zero = samples_of(text)
        for reason in SEAL_REASONS:
            assert zero[f'referee_sealed_token_refusals_total{{reason="{reason}"}}'] == 0
        for game in ("ecarte", "earl_of_coventry"):
            for verdict in ("accepted", "rejected", "penalized"):
                key = (
                    f'referee_actions_total{{game="{game}",rules_version="{game}/1",'
                    f'verdict="{verdict}"}}'
                )
                assert zero[key] == 0
        assert not [k for k in zero if k.startswith(("referee_rpcs", "referee_rpc_"))]
    for text in called.values():
        done = samples_of(text)
        labels = {"method": "ListGames", "game": "", "verdict": "", "code": "OK"}
        assert sample(done, "referee_rpcs_total", **labels) == 1
        assert sample(done, "referee_rpc_duration_seconds_count", method="ListGames") == 1


def test_sealed_refusal_is_a_no_op_without_metrics() -> None:
    m.install(None)
    m.sealed_refusal("UNKNOWN_KEY")  # the sealing code may call it unconditionally


def test_process_tree_collector_sums_the_supervisor_and_children() -> None:
    """The collector of the several-worker metrics process, on this process tree."""
    import os
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=-1)
    try:
        collector = m.ProcessTreeCollector(os.getpid())
        families = {f.name: f.samples[0].value for f in collector.collect()}
        own = m.ProcessTreeCollector(child.pid)  # a tree of one process
        alone = {f.name: f.samples[0].value for f in own.collect()}
    finally:
        assert child.stdin is not None
        child.stdin.close()
        child.wait(30)
    assert families["process_resident_memory_bytes"] > alone["process_resident_memory_bytes"]
    assert families["process_open_fds"] >= 3
    assert families["process_cpu_seconds"] > 0  # a counter: samples add _total
    assert families["process_start_time_seconds"] > 1e9


def _fake_proc(
    root: Path, pid: int, ppid: int, times: tuple[int, int, int, int], **kw: int
) -> None:
    """A /proc/PID of ``pid``: its stat (utime, stime, cutime, cstime; starttime, vsize,
    rss in pages), ``fds`` open descriptors, and ``limits`` when given."""
    utime, stime, cutime, cstime = times
    fields = ["S", ppid, 1, 1, 0, -1, 4194304, 0, 0, 0, 0, utime, stime, cutime, cstime]
    fields += [20, 0, 1, 0, kw.get("start", 0), kw.get("vsize", 0), kw.get("rss", 0)]
    directory = root / str(pid)
    (directory / "fd").mkdir(parents=True)
    # A command name with a space and a parenthesis: fields are read after the last ")".
    (directory / "stat").write_text(f"{pid} (a (b) c) " + " ".join(map(str, fields)) + "\n")
    for fd in range(kw.get("fds", 0)):
        (directory / "fd" / str(fd)).write_text("")
    if "limits" in kw:
        (directory / "limits").write_text(
            "Limit                     Soft Limit           Hard Limit           Units\n"
            f"Max open files            {kw['limits']}                 4096                 files\n"
        )


def test_process_tree_collector_adds_exactly_the_supervisor_and_its_children(
    tmp_path: Path,
) -> None:
    """Each figure of the collector on a made-up /proc: the supervisor's own and reaped
    children's CPU, its live children's own (not theirs reaped, already in theirs), their
    memory and descriptors; not a grandchild nor another process; unreadable entries
    skipped."""
    (tmp_path / "stat").write_text("cpu  1 2 3\nbtime 1700000000\nprocesses 9\n")
    _fake_proc(
        tmp_path, 100, 1, (100, 50, 30, 25), start=500, vsize=1000, rss=10, fds=3, limits=1024
    )
    _fake_proc(tmp_path, 101, 100, (7, 3, 99, 99), vsize=200, rss=5, fds=2)
    _fake_proc(tmp_path, 102, 100, (1, 1, 0, 0), vsize=30, rss=1, fds=0)
    (tmp_path / "102" / "fd").rmdir()  # not ours to list: counted as none
    _fake_proc(tmp_path, 103, 101, (1000, 1000, 0, 0), vsize=9999, rss=999, fds=9)  # grandchild
    _fake_proc(tmp_path, 104, 1, (1000, 1000, 0, 0), vsize=9999, rss=999, fds=9)  # another
    (tmp_path / "105").mkdir()
    (tmp_path / "105" / "stat").write_text("garbage")  # no ")": skipped
    (tmp_path / "106").mkdir()  # gone: no stat
    (tmp_path / "self").mkdir()
    collector = m.ProcessTreeCollector(100, proc=str(tmp_path))
    ticks, page = collector.ticks, collector.pagesize
    got = {f.name: f.samples[0].value for f in collector.collect()}
    assert got == {
        "process_cpu_seconds": pytest.approx(
            (100 + 50 + 30 + 25) / ticks + (7 + 3 + 1 + 1) / ticks
        ),
        "process_virtual_memory_bytes": 1000 + 200 + 30,
        "process_resident_memory_bytes": (10 + 5 + 1) * page,
        "process_start_time_seconds": pytest.approx(1_700_000_000 + 500 / ticks),
        "process_open_fds": 3 + 2,
        "process_max_fds": 1024,
    }
    # The supervisor gone: nothing. No limits file, no /proc/stat: what is known.
    assert list(m.ProcessTreeCollector(999, proc=str(tmp_path)).collect()) == []
    (tmp_path / "100" / "limits").unlink()
    (tmp_path / "stat").unlink()
    bare = m.ProcessTreeCollector(100, proc=str(tmp_path))
    assert bare.btime == 0.0
    names = {f.name: f.samples[0].value for f in bare.collect()}
    assert "process_max_fds" not in names
    assert names["process_start_time_seconds"] == pytest.approx(500 / ticks)


def test_buckets_and_the_verdicts_of_replay_steps() -> None:
    """The histograms' upper bounds (dashboards and alerts are written against them) and
    each verdict of a Replay's steps under its own label."""
    metrics = m.Metrics()
    metrics.batch(3)
    metrics.rpc("ApplyAction", "ecarte", "accepted", "OK", 0.003)
    step = type("Step", (), {})

    def steps(*verdicts: int) -> list[Any]:
        out = []
        for v in verdicts:
            s = step()
            s.verdict = v
            out.append(s)
        return out

    metrics.replay_steps("ecarte", "ecarte/1", steps(1, 1, 2, 3, 3, 3, 0))
    registry = metrics.exposition_registry()
    assert metrics.exposition_registry() is registry  # the standard collectors added once
    got: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in registry.collect():
        for s in family.samples:
            got.setdefault(s.name, []).append((s.labels, s.value))
    bounds = [labels["le"] for labels, _ in got["referee_coalesced_batch_calls_bucket"]]
    assert bounds == ["1.0", "2.0", "4.0", "8.0", "16.0", "32.0", "+Inf"]
    latency = [labels["le"] for labels, _ in got["referee_rpc_duration_seconds_bucket"]]
    assert latency == [str(b) for b in m.LATENCY_BUCKETS] + ["+Inf"]
    assert m.LATENCY_BUCKETS[0] == 0.0005 and m.LATENCY_BUCKETS[-1] == 60.0
    judged = {(labels["game"], labels["verdict"]): v for labels, v in got["referee_actions_total"]}
    assert {verdict: v for (game, verdict), v in judged.items() if game == "ecarte"} == {
        "accepted": 2,
        "rejected": 1,
        "penalized": 3,
        "unspecified": 1,
    }
    # The other game's verdicts are there from the start, at 0.
    assert {verdict: v for (game, verdict), v in judged.items() if game != "ecarte"} == {
        "accepted": 0,
        "rejected": 0,
        "penalized": 0,
    }


def test_the_metrics_port_on_the_ipv6_wildcard_serves_ipv4_too() -> None:
    """``--metrics-host ::`` is one socket for both families (a scraper may use either)."""
    import urllib.request

    metrics = m.Metrics()
    sock = m.bind_socket("::", 0)
    http = m.serve_in_thread(sock, metrics.exposition_registry())
    try:
        port = sock.getsockname()[1]
        for host in ("127.0.0.1", "[::1]"):
            with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=30) as answer:
                assert b"referee_build_info" in answer.read()
    finally:
        http.shutdown()
        http.server_close()


def test_the_metrics_endpoint_bounds_what_slow_clients_hold(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A scrape's request must arrive whole within METRICS_REQUEST_SECONDS, however it
    trickles in, and at most METRICS_CONNECTIONS are served at once: one more is answered
    503 at once. Before, each connection that sent nothing held a thread of the worker (or
    of the metrics process) and a file descriptor for ever."""
    import socket
    import threading
    import urllib.error
    import urllib.request

    monkeypatch.setattr(m, "METRICS_REQUEST_SECONDS", 5.0)
    monkeypatch.setattr(m, "METRICS_CONNECTIONS", 4)
    sock = m.bind_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    http = m.serve_in_thread(sock, m.Metrics().exposition_registry())
    url = f"http://127.0.0.1:{port}/metrics"
    held: list[socket.socket] = []
    try:
        for _ in range(3):  # silent
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        slow = socket.create_connection(("127.0.0.1", port), timeout=10)
        held.append(slow)
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url, timeout=30)
        assert refused.value.code == 503 and refused.value.headers["Retry-After"] == "1"
        stop = threading.Event()

        def trickle() -> None:  # a byte every 0.1 s, never a whole request line
            with contextlib.suppress(OSError):
                while not stop.wait(0.1):
                    slow.sendall(b"G")

        trickler = threading.Thread(target=trickle, daemon=True)
        trickler.start()
        try:
            for i, s in enumerate(held):
                assert closed_by_server(s), f"connection {i} still open after 30 s"
        finally:
            stop.set()
            trickler.join()
        with urllib.request.urlopen(url, timeout=30) as answer:
            assert b"referee_build_info" in answer.read()
    finally:
        for s in held:
            s.close()
        http.shutdown()
        http.server_close()
