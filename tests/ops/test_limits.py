"""Limits: request size, concurrent calls per worker, Replay length and deadlines."""

from __future__ import annotations

import io
import json
import threading
import time
from collections.abc import Iterator
from types import SimpleNamespace
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.server import MIN_MESSAGE_BYTES, ServerSettings
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from ..status_details import error_info
from .helpers import (
    TIMEOUT,
    HeldCalls,
    InProcess,
    captured_logs,
    gallery_replay,
    gallery_state,
    log_lines,
    long_replay,
    wait_until,
)


def stub(channel: grpc.Channel) -> referee_pb2_grpc.RefereeServiceStub:
    return referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]


def test_oversize_request_is_refused() -> None:
    settings = ServerSettings(host="127.0.0.1", port=0, max_message_bytes=MIN_MESSAGE_BYTES)
    big = long_replay(70_000)  # about 1.1 MiB
    assert big.ByteSize() > MIN_MESSAGE_BYTES
    with InProcess(settings) as server, grpc.insecure_channel(server.address) as ch:
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).Replay(big, timeout=10)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert stub(ch).Replay(long_replay(100), timeout=10).steps  # still serving


def test_a_replay_answer_over_the_size_limit_is_refused_with_its_reason() -> None:
    """Only a Replay's answer can outgrow the message limit: refused with
    RESOURCE_EXHAUSTED, reason RESPONSE_TOO_LARGE (not gRPC's bare failure to send)."""
    from google.rpc import error_details_pb2
    from grpc_status import rpc_status

    settings = ServerSettings(host="127.0.0.1", port=0, max_message_bytes=MIN_MESSAGE_BYTES)
    request = long_replay(8_000)  # answered in about 0.8 MiB, 1.3 MiB with the log
    assert request.ByteSize() < MIN_MESSAGE_BYTES
    with InProcess(settings) as server, grpc.insecure_channel(server.address) as ch:
        assert len(stub(ch).Replay(request, timeout=30).steps) == 8_000
        request.include_log = True
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).Replay(request, timeout=30)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        status = rpc_status.from_call(e.value)
        assert status is not None
        info = error_details_pb2.ErrorInfo()
        assert status.details[0].Unpack(info) and info.reason == "RESPONSE_TOO_LARGE"
        assert int(info.metadata["limit_bytes"]) == MIN_MESSAGE_BYTES


def test_an_embedded_server_refuses_a_message_limit_under_1_mib() -> None:
    """As the command line does: under 1 MiB an answer other than a Replay's could
    outgrow the limit after its call was logged as answered."""
    with pytest.raises(ValueError, match="at least 1048576"):
        ServerSettings(max_message_bytes=MIN_MESSAGE_BYTES - 1)
    assert ServerSettings(max_message_bytes=MIN_MESSAGE_BYTES).max_message_bytes


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("max_request_bytes_in_flight", (1 << 20) - 1, "at least 1048576"),
        ("max_request_bytes_in_flight", -1, "at least 1048576"),
        ("max_concurrent_rpcs", -1, "0 \\(no limit\\) or more"),
        ("max_concurrent_replays", -1, "0 \\(no limit\\) or more"),
    ],
)
def test_an_embedded_server_refuses_the_limits_the_command_line_refuses(
    field: str, value: int, message: str
) -> None:
    """ServerSettings checks the limits as the command line does (an embedded server's
    settings do not go through its flags)."""
    with pytest.raises(ValueError, match=message):
        ServerSettings(**{field: value})
    assert getattr(ServerSettings(**{field: 0}), field) == 0
    assert ServerSettings(max_request_bytes_in_flight=1 << 20).max_request_bytes_in_flight


def test_replay_length_cap() -> None:
    settings = ServerSettings(host="127.0.0.1", port=0, max_replay_actions=50)
    with InProcess(settings) as server, grpc.insecure_channel(server.address) as ch:
        assert len(stub(ch).Replay(long_replay(50), timeout=10).steps) == 50
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).Replay(long_replay(51), timeout=10)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert "at most 50 actions" in (e.value.details() or "")


def test_too_many_concurrent_calls_are_refused() -> None:
    """Two calls held in flight (their request not sent yet: a slow client), then a
    third is refused with RESOURCE_EXHAUSTED; health stays reachable; once the two
    finish, calls are accepted again."""
    settings = ServerSettings(host="127.0.0.1", port=0, max_concurrent_rpcs=2)
    with (
        captured_logs() as out,
        InProcess(settings) as server,
        grpc.insecure_channel(server.address) as ch,
        HeldCalls(ch) as held,
    ):
        assert server.server is not None
        interceptor = server.server.interceptor
        futures = [held.start() for _ in range(2)]
        wait_until(lambda: interceptor.in_flight == 2, "two calls in flight")
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).ListGames(pb.ListGamesRequest(), timeout=10)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        health = health_pb2_grpc.HealthStub(ch)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=10).status == 1
        held.release()
        assert all(f.result(TIMEOUT).games for f in futures)
        wait_until(lambda: interceptor.in_flight == 0, "the calls to end")
        assert stub(ch).ListGames(pb.ListGamesRequest(), timeout=10).games
    statuses = [e["status"] for e in log_lines(out) if e.get("method") == "ListGames"]
    assert sorted(statuses) == ["OK", "OK", "OK", "RESOURCE_EXHAUSTED"]


def test_a_replay_stops_at_the_client_deadline() -> None:
    """A Replay that cannot finish before the deadline stops there with
    DEADLINE_EXCEEDED (the server checks the time between actions), instead of
    finishing work nobody waits for."""
    request = long_replay(100_000)
    with captured_logs() as out, InProcess(ServerSettings(host="127.0.0.1", port=0)) as server:
        big = [("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        with grpc.insecure_channel(server.address, options=big) as ch:
            start = time.perf_counter()
            full = stub(ch).Replay(request, timeout=TIMEOUT)
            full_seconds = time.perf_counter() - start
            assert len(full.steps) == 100_000
            deadline = min(0.1, full_seconds / 5)
            with pytest.raises(grpc.RpcError) as e:
                stub(ch).Replay(request, timeout=deadline)
            assert e.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            assert stub(ch).ListGames(pb.ListGamesRequest(), timeout=10).games
    replays = [e for e in log_lines(out) if e.get("event") == "rpc" and e["method"] == "Replay"]
    assert [e["status"] for e in replays] == ["OK", "DEADLINE_EXCEEDED"]
    # The server stopped near the deadline, well before the whole Replay.
    assert replays[1]["ms"] < replays[0]["ms"] / 2


def replay_statuses(out: io.StringIO) -> list[str]:
    """The statuses of the Replays' log lines so far (whole lines only: a server's
    thread may be writing one)."""
    text = out.getvalue()
    lines = [json.loads(line) for line in text[: text.rfind("\n") + 1].splitlines() if line]
    return [e["status"] for e in lines if e.get("event") == "rpc" and e["method"] == "Replay"]


def replays_noted(server: InProcess, released: threading.Event | None = None) -> threading.Event:
    """The server's Referee as it is, but for the event returned, set when a Replay's work
    begins (a call cancelled before its handler has begun never runs it), and with
    ``released``, the Replay held until it is set."""
    referee = server.server.servicer.referee
    entered = threading.Event()

    def replay(request: pb.ReplayRequest, should_stop: Any = None) -> Any:
        entered.set()
        if released is not None:
            released.wait(TIMEOUT)
        return referee.replay(request, should_stop)

    server.server.servicer.referee = SimpleNamespace(
        replay=replay, apply_action=referee.apply_action, list_games=referee.list_games
    )
    return entered


@pytest.mark.parametrize("engine", ["asyncio", "threads"])
def test_a_replay_stops_at_the_servers_cpu_limit(engine: str) -> None:
    """``--max-replay-cpu-seconds``: a Replay that has used more of the server's CPU is
    stopped between actions, whatever its client's deadline: RESOURCE_EXHAUSTED with
    reason REPLAY_CPU_LIMIT, on its log line too. The Replay is an Écarté gallery of
    20,000 wagers, each of whose steps serializes and hashes every open wager (n * n:
    tens of seconds on a slow machine, seconds on a fast one); an ordinary Replay is
    served as before."""
    settings = ServerSettings(host="127.0.0.1", port=0, max_replay_cpu_seconds=0.2)
    with (
        captured_logs() as out,
        InProcess(settings, engine=engine) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).Replay(gallery_replay(20_000), timeout=TIMEOUT)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        info = error_info(e.value)
        assert info.reason == "REPLAY_CPU_LIMIT"
        assert (info.metadata["limit_seconds"], info.metadata["actions"]) == ("0.2", "20000")
        assert int(info.metadata["actions_done"]) % 256 == 255  # stopped between actions
        assert len(stub(ch).Replay(long_replay(1_000), timeout=TIMEOUT).steps) == 1_000
    assert replay_statuses(out) == ["RESOURCE_EXHAUSTED", "OK"]
    refused = next(e for e in log_lines(out) if e.get("method") == "Replay")
    assert refused["reason"] == "REPLAY_CPU_LIMIT"  # on the log line as the client got it


@pytest.mark.parametrize("engine", ["asyncio", "threads"])
def test_a_replay_whose_client_has_gone_stops(engine: str) -> None:
    """A Replay without a deadline whose client cancels it stops between actions on
    either engine, logged CANCELLED (grpc's threaded server never interrupts a handler:
    it went on to its end, for nobody). The Replay: a gallery of 100,000 wagers with no
    CPU limit, minutes of work. Its log line is written when its handler ends on the
    threads engine (gRPC counts the call out of flight at once), and on grpc.aio when
    its task is cancelled (its thread then stops: test_replay_off_loop.py)."""
    settings = ServerSettings(
        host="127.0.0.1", port=0, max_replay_cpu_seconds=0, max_concurrent_replays=1
    )
    with (
        captured_logs() as out,
        InProcess(settings, engine=engine) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        interceptor = server.server.interceptor
        entered = replays_noted(server)
        replay = stub(ch).Replay.future(gallery_replay(100_000))
        assert entered.wait(TIMEOUT), "the Replay never began"
        replay.cancel()
        wait_until(lambda: replay_statuses(out), "the cancelled Replay's handler to end")
        assert replay_statuses(out) == ["CANCELLED"]
        wait_until(lambda: interceptor.replays_in_flight == 0, "the Replay to leave")
        assert len(stub(ch).Replay(long_replay(10), timeout=TIMEOUT).steps) == 10
    assert replay_statuses(out) == ["CANCELLED", "OK"]


@pytest.mark.parametrize("engine", ["asyncio", "threads"])
def test_the_bytes_of_large_requests_in_flight_are_bounded(engine: str) -> None:
    """``--max-request-bytes-in-flight`` (1 MiB here): with a 640 KB Replay in flight, a
    630 KB ApplyAction is refused RESOURCE_EXHAUSTED (reason REQUEST_BYTES_IN_FLIGHT: back
    off and retry) while small calls are served; once the Replay has ended it is served;
    a request over the limit alone is refused (a retry gets the same); and every byte is
    released as its call ends. ``referee_request_bytes_in_flight`` follows the count."""
    from referee.metrics import Metrics
    from referee.v1 import common_pb2, ecarte_pb2

    settings = ServerSettings(host="127.0.0.1", port=0, max_request_bytes_in_flight=1 << 20)
    metrics = Metrics()

    def gauge() -> float | None:
        return metrics.registry.get_sample_value("referee_request_bytes_in_flight")

    replay = long_replay(40_000)  # long: off the event loop on grpc.aio
    wager = pb.Action(
        actor=common_pb2.Actor(spectator="t"),
        ecarte=ecarte_pb2.EcarteAction(wager=ecarte_pb2.EcartePlaceWager(seat=1, amount=2)),
    )
    apply = pb.ApplyActionRequest(state=gallery_state(90_000), action=wager)
    alone = pb.ApplyActionRequest(state=gallery_state(160_000), action=wager)
    assert replay.ByteSize() + apply.ByteSize() > 1 << 20 > apply.ByteSize()
    assert alone.ByteSize() > 1 << 20
    with (
        captured_logs() as out,
        InProcess(settings, metrics, engine=engine) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        interceptor = server.server.interceptor
        assert gauge() == 0
        released = threading.Event()
        entered = replays_noted(server, released)
        future = stub(ch).Replay.future(replay, timeout=TIMEOUT)
        try:
            assert entered.wait(TIMEOUT), "the Replay never began"
            assert interceptor.request_bytes_in_flight == replay.ByteSize()
            assert gauge() == replay.ByteSize()
            with pytest.raises(grpc.RpcError) as e:
                stub(ch).ApplyAction(apply, timeout=TIMEOUT)
            assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            info = error_info(e.value)
            assert info.reason == "REQUEST_BYTES_IN_FLIGHT"
            assert dict(info.metadata) == {
                "request_bytes": str(apply.ByteSize()),
                "in_flight_bytes": str(replay.ByteSize()),
                "limit_bytes": str(1 << 20),
            }
            assert "back off and retry" in (e.value.details() or "")
            assert stub(ch).ListGames(pb.ListGamesRequest(), timeout=TIMEOUT).games  # small
        finally:
            released.set()
        assert len(future.result(TIMEOUT).steps) == 40_000
        wait_until(lambda: interceptor.request_bytes_in_flight == 0, "the Replay's bytes back")
        assert stub(ch).ApplyAction(apply, timeout=TIMEOUT).verdict == common_pb2.VERDICT_ACCEPTED
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).ApplyAction(alone, timeout=TIMEOUT)
        assert error_info(e.value).reason == "REQUEST_BYTES_IN_FLIGHT"
        assert "a retry gets the same" in (e.value.details() or "")
        wait_until(lambda: interceptor.request_bytes_in_flight == 0, "every byte back")
        assert gauge() == 0
    lines = [e for e in log_lines(out) if e.get("method") == "ApplyAction"]
    assert [(e["status"], e.get("reason")) for e in lines] == [
        ("RESOURCE_EXHAUSTED", "REQUEST_BYTES_IN_FLIGHT"),
        ("OK", None),
        ("RESOURCE_EXHAUSTED", "REQUEST_BYTES_IN_FLIGHT"),
    ]


def test_large_requests_waiting_for_a_handler_thread_are_counted() -> None:
    """Threads engine, one handler thread, held by a Replay: a 630 KB ApplyAction that
    has come waits for the thread, parsed, and its bytes are counted from its arrival
    (up to 256 such calls may wait, each holding its request); a second one that would
    take the count over 1 MiB is refused at once, without waiting for the thread; once
    the thread is free, the first is served and its bytes released."""
    from referee.v1 import common_pb2, ecarte_pb2

    settings = ServerSettings(
        host="127.0.0.1", port=0, max_request_bytes_in_flight=1 << 20, threads=1
    )
    wager = pb.Action(
        actor=common_pb2.Actor(spectator="t"),
        ecarte=ecarte_pb2.EcarteAction(wager=ecarte_pb2.EcartePlaceWager(seat=1, amount=2)),
    )
    apply = pb.ApplyActionRequest(state=gallery_state(90_000), action=wager)
    assert 2 * apply.ByteSize() > 1 << 20 > apply.ByteSize()
    with (
        captured_logs() as out,
        InProcess(settings, engine="threads") as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        interceptor = server.server.interceptor
        released = threading.Event()
        entered = replays_noted(server, released)
        replay = stub(ch).Replay.future(long_replay(10), timeout=TIMEOUT)  # small
        try:
            assert entered.wait(TIMEOUT), "the Replay never began"
            waiting = stub(ch).ApplyAction.future(apply, timeout=TIMEOUT)
            wait_until(
                lambda: interceptor.request_bytes_in_flight == apply.ByteSize(),
                "the waiting ApplyAction's bytes counted",
                TIMEOUT / 2,  # before the Replay's hold lapses (replays_noted)
            )
            with pytest.raises(grpc.RpcError) as e:
                stub(ch).ApplyAction(apply, timeout=TIMEOUT)  # the thread is still held
            assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            info = error_info(e.value)
            assert info.reason == "REQUEST_BYTES_IN_FLIGHT"
            assert info.metadata["in_flight_bytes"] == str(apply.ByteSize())
            assert not waiting.done()
        finally:
            released.set()
        assert len(replay.result(TIMEOUT).steps) == 10
        assert waiting.result(TIMEOUT).verdict == common_pb2.VERDICT_ACCEPTED
        wait_until(lambda: interceptor.request_bytes_in_flight == 0, "every byte back")
    lines = [e for e in log_lines(out) if e.get("method") == "ApplyAction"]
    assert [(e["status"], e.get("reason")) for e in lines] == [
        ("RESOURCE_EXHAUSTED", "REQUEST_BYTES_IN_FLIGHT"),
        ("OK", None),
    ]


def test_an_answer_over_the_size_limit_is_refused_with_its_reason_before_its_views() -> None:
    """An ApplyAction on a large state (an Écarté gallery of 100,000 wagers, 700 KB) with
    32 views would answer 22 MB (each view holds the wagers again): refused
    RESOURCE_EXHAUSTED with reason RESPONSE_TOO_LARGE once over the limit, before the
    other views are made (on the log line too, not OK then gRPC's bare failure to send);
    with no view it is answered."""
    from referee.v1 import common_pb2, ecarte_pb2

    settings = ServerSettings(host="127.0.0.1", port=0, max_message_bytes=MIN_MESSAGE_BYTES)
    wager = pb.Action(
        actor=common_pb2.Actor(spectator="t"),
        ecarte=ecarte_pb2.EcarteAction(wager=ecarte_pb2.EcartePlaceWager(seat=1, amount=2)),
    )
    views = [common_pb2.Viewer(spectator=f"v{i}") for i in range(32)]
    request = pb.ApplyActionRequest(state=gallery_state(100_000), action=wager, views=views)
    with (
        captured_logs() as out,
        InProcess(settings) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).ApplyAction(request, timeout=TIMEOUT)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        info = error_info(e.value)
        assert info.reason == "RESPONSE_TOO_LARGE"
        assert int(info.metadata["response_bytes"]) < 2 * MIN_MESSAGE_BYTES  # not 22 MB
        del request.views[:]
        assert stub(ch).ApplyAction(request, timeout=TIMEOUT).verdict == common_pb2.VERDICT_ACCEPTED
    lines = [e for e in log_lines(out) if e.get("method") == "ApplyAction"]
    assert [(e["status"], e.get("reason")) for e in lines] == [
        ("RESOURCE_EXHAUSTED", "RESPONSE_TOO_LARGE"),
        ("OK", None),
    ]


@pytest.mark.parametrize("tokens_and_metrics", [True, False])
def test_a_limit_of_one_call(tokens_and_metrics: bool) -> None:
    """The smallest limit holds: one call in flight (counted in the in-flight gauge when
    metrics are on), the next refused; health checks and watches (which need a token
    when tokens are set: nothing is exempt here) are never limited."""
    from referee.auth import TokenSet
    from referee.metrics import Metrics

    token = "limits-test-token-0123456789"
    bearer = (("authorization", f"Bearer {token}"),) if tokens_and_metrics else ()
    auth = TokenSet([("ci", token)], ()) if tokens_and_metrics else None
    settings = ServerSettings(host="127.0.0.1", port=0, max_concurrent_rpcs=1, auth=auth)
    metrics = Metrics() if tokens_and_metrics else None

    def in_flight() -> float | None:
        if metrics is None:
            return None
        return metrics.registry.get_sample_value("referee_in_flight_rpcs")

    with (
        InProcess(settings, metrics) as server,
        grpc.insecure_channel(server.address) as ch,
        HeldCalls(ch) as held,
    ):
        interceptor = server.server.interceptor
        future = held.start(metadata=bearer)
        wait_until(lambda: interceptor.in_flight == 1, "the call in flight")
        assert in_flight() == (1 if tokens_and_metrics else None)
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).ListGames(pb.ListGamesRequest(), metadata=bearer, timeout=10)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        health = health_pb2_grpc.HealthStub(ch)
        request = health_pb2.HealthCheckRequest()
        assert health.Check(request, metadata=bearer, timeout=10).status == 1
        watch = health.Watch(request, metadata=bearer, timeout=10)
        assert next(iter(watch)).status == 1
        watch.cancel()
        if tokens_and_metrics:
            with pytest.raises(grpc.RpcError) as e:
                next(iter(health.Watch(request, timeout=10)))  # no token
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        held.release()
        assert future.result(TIMEOUT).games
        wait_until(lambda: interceptor.in_flight == 0, "the call to end")
        wait_until(lambda: in_flight() == (0 if tokens_and_metrics else None), "the gauge")


def test_calls_in_flight_are_counted_without_a_limit_when_metrics_are_on() -> None:
    from referee.metrics import Metrics

    settings = ServerSettings(host="127.0.0.1", port=0)  # no limit
    metrics = Metrics()

    def in_flight() -> float | None:
        return metrics.registry.get_sample_value("referee_in_flight_rpcs")

    with (
        InProcess(settings, metrics) as server,
        grpc.insecure_channel(server.address) as ch,
        HeldCalls(ch) as held,
    ):
        future = held.start()
        wait_until(lambda: in_flight() == 1, "the held call in the gauge")
        held.release()
        assert future.result(TIMEOUT).games
        wait_until(lambda: in_flight() == 0, "the gauge to follow")


@pytest.mark.parametrize("engine", ["asyncio", "threads"])
def test_a_limit_of_replays_in_flight(engine: str) -> None:
    """``--max-concurrent-replays``: with one Replay in flight (admitted, its request
    still coming), the next Replay is refused with RESOURCE_EXHAUSTED, other calls are
    served; once it has ended the next is served, and Replays that end in any way
    (answered, refused for their length) leave the count."""
    settings = ServerSettings(
        host="127.0.0.1", port=0, max_concurrent_replays=1, max_replay_actions=100
    )
    request = long_replay(50)
    released = threading.Event()

    def held() -> Iterator[pb.ReplayRequest]:
        released.wait(TIMEOUT)
        yield request

    with InProcess(settings, engine=engine) as server, grpc.insecure_channel(server.address) as ch:
        interceptor = server.server.interceptor
        replay = ch.stream_unary(
            "/referee.v1.RefereeService/Replay",
            request_serializer=pb.ReplayRequest.SerializeToString,
            response_deserializer=pb.ReplayResponse.FromString,
        )
        future = replay.future(held(), timeout=TIMEOUT)
        try:
            wait_until(lambda: interceptor.replays_in_flight == 1, "the Replay in flight")
            with pytest.raises(grpc.RpcError) as e:
                stub(ch).Replay(request, timeout=10)
            assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert stub(ch).ListGames(pb.ListGamesRequest(), timeout=10).games
        finally:
            released.set()
        assert len(future.result(TIMEOUT).steps) == 50
        wait_until(lambda: interceptor.replays_in_flight == 0, "the Replay to leave")
        assert len(stub(ch).Replay(request, timeout=10).steps) == 50
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).Replay(long_replay(101), timeout=10)  # over max_replay_actions
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        wait_until(
            lambda: (interceptor.replays_in_flight, interceptor.in_flight) == (0, 0),
            "every call to leave",
        )


def test_every_answer_but_a_replays_fits_well_within_the_smallest_message_limit() -> None:
    """Why the command line takes no --max-message-bytes under MIN_MESSAGE_BYTES: every
    answer but a Replay's is bounded far below it, so only a Replay's can be refused
    for its size, and that one with its reason. The largest answers there are: 13 seats
    with the longest custom couplets and starting counters, and 32 views (13 seats, 18
    spectators with the longest ids in 4-byte characters, the public), over whole
    sessions; Écarté à trois with its gallery."""
    import random

    from referee.server import MIN_MESSAGE_BYTES
    from referee.v1 import common_pb2, ecarte_pb2
    from referee.v1 import earl_of_coventry_pb2 as eoc

    custom = eoc.EarlOfCoventryCallStyle.Value("EARL_OF_COVENTRY_CALL_STYLE_CUSTOM")
    templates = ["{rank}" + "\U0001f0a1" * 194] * 4
    configs = [
        (
            13,
            pb.GameConfig(
                earl_of_coventry=eoc.EarlOfCoventryConfig(
                    seats=13,
                    call_style=custom,
                    couplet_templates=templates,
                    penalty_earl=True,
                    starting_counters=1_000_000,
                    scoring=eoc.EarlOfCoventryScoring.Value("EARL_OF_COVENTRY_SCORING_COUNTERS"),
                )
            ),
        ),
        (3, pb.GameConfig(ecarte=ecarte_pb2.EcarteConfig(seats=3, gallery=True))),
    ]
    largest: dict[str, int] = {}

    def note(name: str, answer: object) -> None:
        largest[name] = max(largest.get(name, 0), answer.ByteSize())  # type: ignore[attr-defined]

    rng = random.Random(7)
    settings = ServerSettings(host="127.0.0.1", port=0)
    with InProcess(settings) as server, grpc.insecure_channel(server.address) as ch:
        s = stub(ch)
        note("ListGames", s.ListGames(pb.ListGamesRequest()))
        for seats, config in configs:
            views = [common_pb2.Viewer(seat=i) for i in range(seats)]
            views += [
                common_pb2.Viewer(spectator=f"{i:02d}" + "\U0001f0b1" * 126)
                for i in range(31 - seats)
            ]
            views.append(common_pb2.Viewer(public=common_pb2.PublicViewer()))
            game = s.NewGame(pb.NewGameRequest(config=config, views=views))
            note("NewGame", game)
            state = game.state
            for _ in range(250):
                legal = s.LegalActions(pb.LegalActionsRequest(state=state))
                note("LegalActions", legal)
                if not legal.actions:
                    break
                action = rng.choice(legal.actions)
                applied = s.ApplyAction(
                    pb.ApplyActionRequest(state=state, action=action, views=views)
                )
                note("ApplyAction", applied)
                viewed = s.ViewState(pb.ViewStateRequest(state=state, viewer=views[-2]))
                note("ViewState", viewed)
                state = applied.state
    assert set(largest) == {"ListGames", "NewGame", "LegalActions", "ApplyAction", "ViewState"}
    assert largest["ApplyAction"] > 50_000, largest  # the sessions did reach large answers
    assert max(largest.values()) < MIN_MESSAGE_BYTES // 4, largest  # measured: 180 KB


@pytest.mark.parametrize("engine", ["asyncio", "threads"])
def test_a_tokens_own_max_in_flight(engine: str) -> None:
    """``max-in-flight=N`` after a token: with N of its calls in flight on the worker
    (held: their requests not sent yet), its next call is refused RESOURCE_EXHAUSTED
    (reason TOKEN_CALLS_IN_FLIGHT, noted on the log line) while another token's calls
    are served; its calls that end in any way (answered, refused later, cancelled by
    their client) leave the count, and then it is served again."""
    from referee.auth import TokenSet, parse_tokens

    platform, players = "platform-token-0123456789abcdef", "players-token-0123456789abcdef"
    text = f"platform {platform}\nplayers {players} @read max-in-flight=2\n"
    auth = TokenSet(parse_tokens(text, "tokens.txt"), ())
    settings = ServerSettings(host="127.0.0.1", port=0, auth=auth)
    as_players = (("authorization", f"Bearer {players}"),)
    as_platform = (("authorization", f"Bearer {platform}"),)
    with (
        captured_logs() as out,
        InProcess(settings, engine=engine) as server,
        grpc.insecure_channel(server.address) as ch,
        HeldCalls(ch) as held,
    ):
        interceptor = server.server.interceptor
        futures = [held.start(metadata=as_players) for _ in range(2)]
        wait_until(lambda: sum(interceptor.token_calls.values()) == 2, "two calls in flight")
        with pytest.raises(grpc.RpcError) as e:
            stub(ch).ListGames(pb.ListGamesRequest(), metadata=as_players, timeout=10)
        assert e.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error_info(e.value).reason == "TOKEN_CALLS_IN_FLIGHT"
        for _ in range(3):  # the platform's calls: no limit of their own
            assert stub(ch).ListGames(pb.ListGamesRequest(), metadata=as_platform, timeout=10)
        futures.append(held.start(metadata=as_platform))  # held, not counted for players
        wait_until(lambda: interceptor.in_flight == 3, "three calls in flight")
        assert sum(interceptor.token_calls.values()) == 2
        futures[0].cancel()  # a client that leaves
        wait_until(lambda: sum(interceptor.token_calls.values()) == 1, "the cancelled call")
        assert stub(ch).ListGames(pb.ListGamesRequest(), metadata=as_players, timeout=10)
        held.release()
        assert futures[1].result(TIMEOUT).games and futures[2].result(TIMEOUT).games
        wait_until(lambda: interceptor.in_flight == 0, "every call to end")
        assert interceptor.token_calls == {}
        with pytest.raises(grpc.RpcError) as e:  # refused by its scope: never counted
            stub(ch).NewGame(pb.NewGameRequest(), metadata=as_players, timeout=10)
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        assert interceptor.token_calls == {}
        assert stub(ch).ListGames(pb.ListGamesRequest(), metadata=as_players, timeout=10)
    refused = [
        line
        for line in log_lines(out)
        if line.get("method") == "ListGames" and line.get("status") == "RESOURCE_EXHAUSTED"
    ]
    assert [(line["client"], line["auth_refusal"]) for line in refused] == [
        ("players", "TOKEN_CALLS_IN_FLIGHT")
    ]


def test_max_in_flight_in_the_tokens_file_and_the_variable() -> None:
    from referee.auth import TokenError, TokenSet, parse_tokens

    token = "players-token-0123456789abcdef"
    (entry,) = parse_tokens(f"players {token} max-in-flight=8", "f")
    assert entry[2:] == (None, 8)  # every method, at most 8 calls in flight
    (entry,) = parse_tokens(f"players={token} @read+max-in-flight=3", "v", separator=",")
    assert entry[3] == 3 and entry[2] is not None
    for bad in ("max-in-flight=0", "max-in-flight=-1", "max-in-flight=x", "max-in-flight="):
        with pytest.raises(TokenError, match="max-in-flight"):
            parse_tokens(f"players {token} @read {bad}", "tokens.txt")
    with pytest.raises(TokenError, match="given twice"):
        parse_tokens(f"players {token} max-in-flight=1 max-in-flight=2", "f")
    with pytest.raises(TokenError, match="other max-in-flight"):
        TokenSet(parse_tokens(f"a {token} max-in-flight=1\nb {token} max-in-flight=2", "f"))
    tokens = TokenSet(parse_tokens(f"players {token} @read max-in-flight=4", "f"))
    assert token not in repr(tokens)
    grant = tokens.grant((("authorization", f"Bearer {token}"),))
    assert grant is not None and grant.max_in_flight == 4
    assert tokens.describe() == "1 token, 1 limited, 1 with max-in-flight"
