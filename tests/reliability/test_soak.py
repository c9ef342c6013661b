"""Soak: at least 100,000 calls from concurrent clients (mostly realistic playouts of
both games, every RPC) against `referee serve --workers 2` in a subprocess. Every
answer is checked (hashes, versions, parents; Replay reproduces the chain of each
game); zero errors are expected; resident memory of each worker grows less than 10%
after a warm-up."""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import grpc
import pytest

from referee.v1 import common_pb2, referee_pb2_grpc
from referee.v1 import referee_pb2 as pb

from .conftest import scaled
from .playouts import CONFIGS, REJECTED, Game, bend, pick, seats_of, state_hash, verify_apply
from .support import CLIENT_OPTIONS, RefereeProcess, rss_kib

CALLS = scaled(100_000)
WARM_UP = CALLS // 5  # RSS is taken as the base once this many calls are answered
CHANNELS_PER_WORKER = 2  # connections (the kernel spreads them over the workers by hash)
CHANNELS = 2 * CHANNELS_PER_WORKER
PLAYERS_PER_CHANNEL = 6
MAX_SECONDS = 280.0  # a bound, not a target: the run ends on its count long before
MAX_GROWTH = 0.10
REPEAT = scaled(30_000)
MAX_REPEAT_GROWTH = 0.02
# Deals come from a pool of seeds: the rules keep bounded caches keyed by seed (deals,
# cuts: ~17 MB in all once full, docs/reliability.md) that fresh seeds would still be
# filling long after any warm-up; with a pool they are full after it, and what grows
# then is what a call leaves behind.
SEEDS = tuple(random.Random(0).randbytes(32) for _ in range(64))


@dataclass
class Soak:
    calls: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    methods: Counter[str] = field(default_factory=Counter)
    games: int = 0
    replays_checked: int = 0
    rss: list[tuple[int, dict[int, int]]] = field(default_factory=list)  # calls, pid->KiB
    stop: bool = False


@pytest.fixture(scope="module")
def soak_server() -> Iterator[RefereeProcess]:
    server = RefereeProcess("--workers", "2", keep_ids=True)
    yield server
    server.close()


async def _player(stub: referee_pb2_grpc.RefereeServiceStub, soak: Soak, seed: int) -> None:
    rng = random.Random(seed)

    async def call(method: str, request: object) -> object:
        soak.methods[method] += 1
        soak.calls += 1
        try:
            reply = await getattr(stub, method)(request, timeout=30)
        except grpc.aio.AioRpcError as err:
            soak.statuses[err.code().name] += 1
            raise AssertionError(f"{method}: {err.code().name} {err.details()}") from err
        soak.statuses["OK"] += 1
        return reply

    while not soak.stop:
        config = rng.choice(CONFIGS)
        seats = seats_of(config)
        request = pb.NewGameRequest(config=config, seed=rng.choice(SEEDS))
        if rng.random() < 0.3:
            request.views.add(seat=rng.randrange(seats))
        first = await call("NewGame", request)
        assert isinstance(first, pb.NewGameResponse)
        assert first.state_hash == state_hash(first.state)
        soak.games += 1
        state, actions = first.state, []
        for _ in range(rng.randrange(20, 160)):
            if soak.stop:
                return
            legal = await call("LegalActions", pb.LegalActionsRequest(state=state))
            assert isinstance(legal, pb.LegalActionsResponse)
            if not legal.actions:
                break
            action = pick(list(legal.actions), rng)
            if rng.random() < 0.1:
                action = bend(action, state, rng)
            apply = pb.ApplyActionRequest(state=state, action=action)
            if rng.random() < 0.2:
                apply.views.add(seat=rng.randrange(seats))
            reply = await call("ApplyAction", apply)
            assert isinstance(reply, pb.ApplyActionResponse)
            verify_apply(apply, reply)
            actions.append(action)
            if reply.verdict != REJECTED:
                state = reply.state
            if rng.random() < 0.05:
                viewer = common_pb2.Viewer(seat=rng.randrange(seats))
                view = await call("ViewState", pb.ViewStateRequest(state=state, viewer=viewer))
                assert isinstance(view, pb.ViewStateResponse)
                assert view.state_hash == state_hash(state)
        if rng.random() < 0.3:  # the audit: a Replay gives the same chain, the same end
            replay = pb.ReplayRequest(config=config, seed=first.state.seed, actions=actions)
            result = await call("Replay", replay)
            assert isinstance(result, pb.ReplayResponse)
            assert result.initial_hash == first.state_hash
            assert result.final_hash == state_hash(state) == state_hash(result.final_state)
            soak.replays_checked += 1
        if rng.random() < 0.02:
            await call("ListGames", pb.ListGamesRequest())


async def _watch(server: RefereeProcess, soak: Soak, started: float) -> None:
    """Stop the players at CALLS; sample each worker's RSS at the warm-up and after."""
    pids = server.worker_pids()
    marks = [WARM_UP + i * (CALLS - WARM_UP) // 4 for i in range(5)]
    while soak.calls < CALLS:
        if marks and soak.calls >= marks[0]:
            marks.pop(0)
            soak.rss.append((soak.calls, {pid: rss_kib(pid) for pid in pids.values()}))
        assert time.monotonic() - started < MAX_SECONDS, f"only {soak.calls} calls"
        await asyncio.sleep(0.05)  # a sampling period, not a synchronisation
    soak.stop = True
    soak.rss.append((soak.calls, {pid: rss_kib(pid) for pid in pids.values()}))


async def balanced_channels(server: RefereeProcess) -> list[grpc.aio.Channel]:
    """CHANNELS_PER_WORKER connections to each worker. The kernel picks a worker for each
    new connection by a hash (4 connections all land on one worker 1 time in 8): open
    connections, ask the log which worker served each one's first call, keep what is
    needed."""
    options = [*CLIENT_OPTIONS, ("grpc.use_local_subchannel_pool", 1)]
    by_worker: dict[int, list[grpc.aio.Channel]] = {w: [] for w in server.worker_pids()}
    spare: list[grpc.aio.Channel] = []
    pid_to_worker = {pid: w for w, pid in server.worker_pids().items()}
    for i in range(64):
        if all(len(chs) >= CHANNELS_PER_WORKER for chs in by_worker.values()):
            break
        ch = grpc.aio.insecure_channel(server.address, options=options)
        probe = f"probe-{id(ch)}-{i}"
        stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
        await stub.ListGames(pb.ListGamesRequest(), metadata=(("x-request-id", probe),))
        await asyncio.to_thread(server.wait_ids, [probe])
        chs = by_worker[pid_to_worker[server.pid_of[probe]]]
        (chs if len(chs) < CHANNELS_PER_WORKER else spare).append(ch)
    for ch in spare:
        await ch.close()
    assert all(len(chs) == CHANNELS_PER_WORKER for chs in by_worker.values()), by_worker
    return [ch for chs in by_worker.values() for ch in chs]


async def _run(server: RefereeProcess, soak: Soak) -> None:
    channels = await balanced_channels(server)
    started = time.monotonic()
    try:
        stubs = [referee_pb2_grpc.RefereeServiceStub(ch) for ch in channels]  # type: ignore[no-untyped-call]
        players = [
            _player(stubs[i % CHANNELS], soak, seed=i)
            for i in range(CHANNELS * PLAYERS_PER_CHANNEL)
        ]
        await asyncio.gather(_watch(server, soak, started), *players)
    finally:
        soak.stop = True
        for ch in channels:
            await ch.close()


def test_soak_100k_calls_no_errors_no_leak(soak_server: RefereeProcess) -> None:
    soak = Soak()
    started = time.monotonic()
    asyncio.run(_run(soak_server, soak))
    seconds = time.monotonic() - started

    assert soak.calls >= CALLS
    assert set(soak.statuses) == {"OK"}, soak.statuses
    # The server saw what the clients sent, and every call ended OK there too.
    soak_server.wait_rpcs(soak.calls)
    assert set(soak_server.statuses()) == {"OK"}, soak_server.statuses()
    assert sorted(soak_server.by_worker) == [0, 1], soak_server.by_worker  # both served
    soak_server.assert_healthy()

    base_calls, base = soak.rss[0]
    end_calls, end = soak.rss[-1]
    growth = {pid: (end[pid] - base[pid]) / base[pid] for pid in base}
    print(
        f"\nsoak: {soak.calls} calls in {seconds:.1f} s ({soak.calls / seconds:.0f}/s), "
        f"{soak.games} games, {soak.replays_checked} replays checked, "
        f"methods {dict(soak.methods)}, statuses {dict(soak.statuses)}, "
        f"by worker {dict(soak_server.by_worker)}"
    )
    for calls, sample in soak.rss:
        print(f"  rss after {calls} calls: {sample} KiB")
    print(f"  growth after warm-up: { {p: f'{g:+.1%}' for p, g in growth.items()} }")
    assert all(g < MAX_GROWTH for g in growth.values()), (base_calls, base, end_calls, end)


def test_the_same_calls_again_and_again_leave_nothing_behind(
    soak_server: RefereeProcess, pool: list[Game]
) -> None:
    """A sharper leak detector: once the caches hold what a fixed set of requests needs,
    repeating them must not grow the workers at all (anything a call leaves behind, in
    the service, the interceptor, the logs or gRPC, would add up over REPEAT calls)."""
    requests = [
        pb.ApplyActionRequest(state=s.state, action=s.action) for g in pool for s in g.steps[:15]
    ]
    pids = soak_server.worker_pids()

    def burst(n: int) -> None:
        asyncio.run(_repeat(soak_server, requests, n))

    # Warm-up: every request seen by both workers, and the allocators past their slow
    # start (RSS grows by ~800, ~340, ~60 KiB over three 30,000-call bursts, then levels).
    burst(REPEAT)
    before = {pid: rss_kib(pid) for pid in pids.values()}
    burst(REPEAT)
    after = {pid: rss_kib(pid) for pid in pids.values()}
    growth = {pid: (after[pid] - before[pid]) / before[pid] for pid in before}
    print(f"\nrepeat: {REPEAT} calls, rss {before} -> {after} KiB")
    assert all(g < MAX_REPEAT_GROWTH for g in growth.values()), (before, after)
    soak_server.assert_healthy()
    assert soak_server.terminate() == 0


async def _repeat(server: RefereeProcess, requests: list[pb.ApplyActionRequest], n: int) -> None:
    channels = await balanced_channels(server)
    stubs = [referee_pb2_grpc.RefereeServiceStub(ch) for ch in channels]  # type: ignore[no-untyped-call]
    counter = iter(range(n))

    async def worker(stub: referee_pb2_grpc.RefereeServiceStub) -> None:
        for i in counter:
            request = requests[i % len(requests)]
            reply = await stub.ApplyAction(request, timeout=30)
            assert reply.state_hash == state_hash(reply.state)

    try:
        await asyncio.gather(*(worker(stubs[i % CHANNELS]) for i in range(24)))
    finally:
        for ch in channels:
            await ch.close()
