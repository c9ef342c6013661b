"""Prometheus metrics scraped over HTTP after known calls (one process; the
several-worker sum is checked in test_workers)."""

from __future__ import annotations

import grpc
import pytest

from referee import metrics as m
from referee.auth import TokenSet
from referee.server import ServerSettings
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from .helpers import CONFIG, SEED, InProcess, long_replay, sample, scrape, wait_until

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
    assert sample(samples, actions, game=eoc, verdict="accepted") == 1
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
