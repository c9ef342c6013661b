"""Faults: deadlines of 1 ms on every RPC, clients that leave mid-call (cancelled
futures, closed channels, a client process killed while sending, broken TCP
connections), and a worker killed then SIGTERM under a mixed load of real games.
No result is lost or half-applied: a call either answers fully (and its answer checks
out: hash, version, parent) or fails with a status; the server keeps serving, and
what it counts in flight returns to zero.

Covered elsewhere, not repeated here: tests/ops/test_workers.py (a killed worker comes
back under NewGame load with metrics summed; SIGTERM under load with health-checking
clients), tests/service/test_server.py (a long Replay in flight on SIGTERM finishes),
tests/ops/test_limits.py (concurrency limit, a Replay stopped at its deadline)."""

from __future__ import annotations

import itertools
import os
import random
import signal
import socket
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message

from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

from ..ops.helpers import long_replay, sample, scrape, wait_until
from .conftest import scaled
from .playouts import (
    CONFIGS,
    REJECTED,
    Game,
    bend,
    pick,
    replay_request,
    seats_of,
    state_hash,
    verify,
)
from .support import TIMEOUT, RefereeProcess, caller, die_with_parent

MAX_CONCURRENT = 64


@pytest.fixture(scope="module")
def fault_server() -> Iterator[RefereeProcess]:
    server = RefereeProcess(
        "--max-concurrent-rpcs",
        str(MAX_CONCURRENT),
        "--metrics-port",
        "0",
        "--metrics-host",
        "127.0.0.1",
        keep_ids=True,
    )
    yield server
    try:
        server.assert_healthy()
        assert server.terminate() == 0
    finally:
        server.close()


def in_flight(server: RefereeProcess) -> float:
    port = server.wait_for("metrics_serving")["port"]
    return sample(scrape(port), "referee_in_flight_rpcs")


def settle(server: RefereeProcess) -> None:
    """Nothing in flight any more (calls whose client left end too), and a burst of as
    many concurrent calls as the limit allows is served: no slot was lost."""
    wait_until(lambda: in_flight(server) == 0, "no call in flight")
    with server.channel() as ch:
        call = caller(ch, "ListGames")
        futures = [call.future(pb.ListGamesRequest(), timeout=TIMEOUT) for _ in range(48)]
        assert all(f.result().games for f in futures)
    server.assert_healthy()


def _requests(pool: list[Game]) -> list[tuple[str, Message]]:
    """Real requests of every RPC, both games."""
    out: list[tuple[str, Message]] = [("ListGames", pb.ListGamesRequest())]
    for game in pool[:6]:
        step = game.steps[len(game.steps) // 2]
        out += [
            ("NewGame", pb.NewGameRequest(config=game.config, seed=game.seed)),
            ("ApplyAction", pb.ApplyActionRequest(state=step.state, action=step.action)),
            ("LegalActions", pb.LegalActionsRequest(state=step.state)),
            ("ViewState", pb.ViewStateRequest(state=step.state, viewer=common_pb2.Viewer(seat=0))),
            ("Replay", replay_request(game)),
        ]
    out.append(("Replay", long_replay(20_000)))
    return out


def test_deadlines_of_1ms_on_every_rpc(fault_server: RefereeProcess, pool: list[Game]) -> None:
    """Every RPC with a 1 ms deadline, one call at a time and in bursts of concurrent
    calls (which then expire queued, or in the handler, or on the way back)."""
    requests = _requests(pool)
    results: Counter[tuple[str, str]] = Counter()
    answered: list[str] = []

    def judge(rid: str, method: str, request: Message, get: Callable[[], Any]) -> None:
        try:
            reply = get()
        except grpc.RpcError as err:
            assert err.code() == grpc.StatusCode.DEADLINE_EXCEEDED, err
            results[(method, "DEADLINE_EXCEEDED")] += 1
            return
        verify(method, request, reply)  # an answer in time is a whole answer
        answered.append(rid)
        results[(method, "OK")] += 1

    with fault_server.channel() as ch:
        calls = {m: caller(ch, m) for m, _ in requests}
        for k in range(scaled(40)):
            for j, (method, request) in enumerate(requests):  # one at a time
                rid = f"deadline-{k}-{j}"
                metadata = (("x-request-id", rid),)
                judge(
                    rid,
                    method,
                    request,
                    lambda: calls[method](request, timeout=0.001, metadata=metadata),  # noqa: B023
                )
            burst = [  # all at once
                (f"deadline-burst-{k}-{j}", m, r) for j, (m, r) in enumerate(requests)
            ]
            futures = [
                calls[m].future(r, timeout=0.001, metadata=(("x-request-id", rid),))
                for rid, m, r in burst
            ]
            for (rid, method, request), future in zip(burst, futures, strict=True):
                judge(rid, method, request, future.result)
        # A call with time to spare: the server is fine.
        assert calls["ListGames"](pb.ListGamesRequest(), timeout=10).games
    print(f"\n1 ms deadlines: {dict(results)}")
    assert sum(n for (_, code), n in results.items() if code == "DEADLINE_EXCEEDED")
    # Every answer a client got was logged OK; whatever else the server started ended
    # with a deadline's status.
    wait_until(lambda: all(r in fault_server.by_id for r in answered), "the answers' log lines")
    assert all(fault_server.by_id[r] == "OK" for r in answered)
    logged = Counter(s for r, s in fault_server.by_id.items() if r.startswith("deadline-"))
    print(f"  logged by the server: {dict(logged)}")
    assert set(logged) <= {"OK", "DEADLINE_EXCEEDED", "CANCELLED"}, logged
    settle(fault_server)


def test_clients_that_leave_mid_call(fault_server: RefereeProcess, pool: list[Game]) -> None:
    requests = _requests(pool)
    outcomes: Counter[str] = Counter()

    def finish(future: Any, method: str, request: Message) -> None:
        try:
            reply = future.result(timeout=TIMEOUT)
        except grpc.FutureCancelledError:
            outcomes["cancelled"] += 1
            return
        except grpc.RpcError as err:
            # CANCELLED, or RESOURCE_EXHAUSTED when the burst outran the server's limit
            # on concurrent calls (a slow machine): either way a status, nothing half-done.
            code = err.code()
            assert code in (grpc.StatusCode.CANCELLED, grpc.StatusCode.RESOURCE_EXHAUSTED), err
            outcomes[code.name] += 1
            return
        verify(method, request, reply)
        outcomes["OK"] += 1

    # 1. Futures cancelled at every moment: at once, or after later calls were sent.
    with fault_server.channel() as ch:
        calls = {m: caller(ch, m) for m, _ in requests}
        pending: list[tuple[Any, str, Message]] = []
        for k in range(scaled(400)):
            method, request = requests[k % len(requests)]
            pending.append((calls[method].future(request, timeout=TIMEOUT), method, request))
            if k % 3 == 0:
                pending[-1][0].cancel()
            if k % 7 == 0 and len(pending) > 4:
                pending[-4][0].cancel()
        for future, method, request in pending:
            finish(future, method, request)

    # 2. Channels closed with calls in flight (long Replays among them).
    for _ in range(scaled(10)):
        ch = fault_server.channel()
        calls = {m: caller(ch, m) for m, _ in requests}
        pending = [(calls[m].future(r, timeout=TIMEOUT), m, r) for m, r in requests]
        ch.close()
        for future, method, request in pending:
            finish(future, method, request)

    # 3. Calls held open before their request is sent (the unary method called as
    #    client-streaming), then abandoned: the server saw the headers only.
    release = threading.Event()

    def never() -> Iterator[pb.ListGamesRequest]:
        release.wait(TIMEOUT)
        return
        yield  # a generator that sends nothing

    with fault_server.channel() as ch:
        held = ch.stream_unary(
            "/referee.v1.RefereeService/ListGames",
            request_serializer=pb.ListGamesRequest.SerializeToString,
            response_deserializer=pb.ListGamesResponse.FromString,
        )
        futures = [held.future(never(), timeout=TIMEOUT) for _ in range(16)]
        wait_until(lambda: in_flight(fault_server) >= 16, "16 calls held in flight")
        for f in futures:
            f.cancel()
        release.set()

    # 4. A client process killed while it sends (a 12 MB request) or waits.
    for size in (1_000, 3_000_000, 12_000_000):
        _killed_client(fault_server, size)

    # 5. TCP connections that break at the transport: closed at once, after the HTTP/2
    #    preface, in the middle of a frame, after garbage.
    preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
    for data in (
        b"",
        preface,
        preface + b"\x00\x00\x12\x04\x00",
        os.urandom(64),
        b"GET / HTTP/1.1\r\n",
    ):
        with socket.create_connection(("127.0.0.1", fault_server.port), timeout=10) as s:
            s.sendall(data)
            s.shutdown(socket.SHUT_RDWR)

    print(f"\nclients that left: {dict(outcomes)}")
    assert outcomes["OK"] and (outcomes["cancelled"] + outcomes["CANCELLED"])
    logged = set(fault_server.statuses())
    # RESOURCE_EXHAUSTED as the clients may see it above: a burst that outran the limit
    # on concurrent calls (cancelled calls count until the server has seen them end).
    allowed = {"OK", "CANCELLED", "DEADLINE_EXCEEDED", "INVALID_ARGUMENT", "RESOURCE_EXHAUSTED"}
    assert logged <= allowed, logged
    settle(fault_server)


_CLIENT = r"""
import sys, grpc
from referee.v1 import referee_pb2 as pb
ch = grpc.insecure_channel(sys.argv[1])
call = ch.unary_unary("/referee.v1.RefereeService/NewGame",
                      request_serializer=pb.NewGameRequest.SerializeToString,
                      response_deserializer=pb.NewGameResponse.FromString)
request = pb.NewGameRequest()
request.config.earl_of_coventry.seats = 4
request.views.add().spectator = "x" * int(sys.argv[2])
future = call.future(request, timeout=60)
print("sending", flush=True)
future.result()
"""


def _killed_client(server: RefereeProcess, size: int) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-c", _CLIENT, server.address, str(size)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        preexec_fn=die_with_parent,
    )
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "sending"
        proc.kill()
    finally:
        proc.wait(TIMEOUT)


# ------------------------------------------------------------------ a worker killed, then SIGTERM


@dataclass
class PlayLoad:
    """Threads playing real games (every RPC), each call with its own request id and its
    answer checked; a failed call is retried (every RPC is idempotent) until the server
    is told to stop (``terminating``); then the first failure ends a thread."""

    server: RefereeProcess
    clients: int = 4
    terminating: threading.Event = field(default_factory=threading.Event)
    stopped: threading.Event = field(default_factory=threading.Event)
    # request id, method, status, whether the server was terminating when it ended
    results: list[tuple[str, str, str, bool]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> PlayLoad:
        for i in range(self.clients):
            t = threading.Thread(target=self._run, args=(i,), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def ok(self) -> int:
        with self._lock:
            return sum(1 for r in self.results if r[2] == "OK")

    def _call(self, calls: dict[str, Any], client: int, method: str, request: Message) -> Any:
        for attempt in range(20):
            if self.terminating.is_set() and attempt:
                return None
            rid = f"load-{client}-{next(self._ids)}"
            try:
                # A retry waits for the channel to reconnect instead of failing fast
                # while it is in backoff (a restarted worker, a new connection).
                reply = calls[method](
                    request,
                    timeout=10,
                    metadata=(("x-request-id", rid),),
                    wait_for_ready=attempt > 0,
                )
            except grpc.RpcError as err:
                with self._lock:
                    self.results.append((rid, method, err.code().name, self.terminating.is_set()))
                continue
            try:
                verify(method, request, reply)
            except AssertionError as e:
                self.failures.append(f"{rid} {method}: {e}")
            with self._lock:
                self.results.append((rid, method, "OK", self.terminating.is_set()))
            return reply
        return None

    def _run(self, client: int) -> None:
        rng = random.Random(client)
        options = {
            "grpc.use_local_subchannel_pool": 1,
            "grpc.initial_reconnect_backoff_ms": 100,
            "grpc.max_reconnect_backoff_ms": 500,
        }
        with self.server.channel(**options) as ch:
            calls = {m: caller(ch, m) for m in ("NewGame", "LegalActions", "ApplyAction", "Replay")}

            def call(method: str, request: Message) -> Any:
                return self._call(calls, client, method, request)

            while not self.stopped.is_set():
                config = rng.choice(CONFIGS)
                first = call("NewGame", pb.NewGameRequest(config=config, seed=rng.randbytes(32)))
                if first is None:
                    return
                state, actions = first.state, []
                for _ in range(rng.randrange(10, 80)):
                    legal = call("LegalActions", pb.LegalActionsRequest(state=state))
                    if legal is None:
                        return
                    if not legal.actions:
                        break
                    action = pick(list(legal.actions), rng)
                    if rng.random() < 0.1:
                        action = bend(action, state, rng)
                    apply = pb.ApplyActionRequest(state=state, action=action)
                    if rng.random() < 0.2:
                        apply.views.add(seat=rng.randrange(seats_of(config)))
                    reply = call("ApplyAction", apply)
                    if reply is None:
                        return
                    actions.append(action)
                    if reply.verdict != REJECTED:
                        state = reply.state
                audit = pb.ReplayRequest(config=config, seed=first.state.seed, actions=actions)
                replay = call("Replay", audit)
                if replay is None:
                    return
                if replay.final_hash != state_hash(state):
                    self.failures.append("a Replay does not reproduce the game played")

    def finish(self) -> None:
        self.terminating.set()
        self.stopped.set()
        for t in self._threads:
            t.join(TIMEOUT)
            assert not t.is_alive()

    def __post_init__(self) -> None:
        self._ids = itertools.count(1)


def test_a_worker_killed_then_sigterm_under_a_load_of_real_games() -> None:
    server = RefereeProcess(
        "--workers", "2", "--grace-seconds", "10", "--drain-delay-seconds", "1", keep_ids=True
    )
    load = PlayLoad(server)
    try:
        pids = server.worker_pids()
        assert sorted(pids) == [0, 1]
        load.start()
        wait_until(lambda: load.ok() >= 1000, "calls before the kill")
        victim = server.by_worker.most_common(1)[0][0]
        mark = server.mark()
        os.kill(pids[victim], signal.SIGKILL)
        died = server.wait_for("child_died", since=mark, child=f"worker {victim}")
        assert died["signal"] == "SIGKILL"
        server.wait_for("referee_serving", since=mark, worker=victim)
        ok_at_restart = load.ok()
        wait_until(lambda: load.ok() >= ok_at_restart + 1000, "calls after the restart")
        load.terminating.set()
        server.proc.send_signal(signal.SIGTERM)
        assert server.proc.wait(TIMEOUT) == 0
        load.finish()
    finally:
        load.finish()
        server.close()
    running = Counter(code for _, _, code, t in load.results if not t)
    stopping = Counter(code for _, _, code, t in load.results if t)
    print(f"\nworker killed: {dict(running)}; then SIGTERM: {dict(stopping)}")
    assert not load.failures, load.failures[:5]
    # While serving, a call fails only with its worker (UNAVAILABLE, then retried);
    # once stopping, calls not started are refused (UNAVAILABLE, CANCELLED), and a
    # retry waiting for a server that has left runs out of time.
    assert set(running) <= {"OK", "UNAVAILABLE"}, running
    assert set(stopping) <= {"OK", "UNAVAILABLE", "CANCELLED", "DEADLINE_EXCEEDED"}, stopping
    assert stopping["OK"] >= 100, stopping  # served through the drain delay
    # No call the server finished is lost: each answer logged OK reached its client,
    # except on the worker killed (it may have logged answers it then could not send).
    answered = {rid for rid, _, code, _ in load.results if code == "OK"}
    assert all(server.by_id[r] == "OK" for r in answered if r in server.by_id)
    killed = pids[victim]
    finished = {r for r, s in server.by_id.items() if s == "OK" and server.pid_of[r] != killed}
    assert finished <= answered, sorted(finished - answered)[:5]
    assert set(server.statuses()) <= {"OK", "CANCELLED"}, server.statuses()
    assert server.find("supervisor_stopped", exit_code=0) is not None
