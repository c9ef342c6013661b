"""Coalescing (referee/coalesce.py): calls batched under load answer exactly as they
would alone, each in its own context; and over a real server, concurrent calls all get
their own, right answer. No test here depends on timing: calls started in one turn of
the event loop are queued before the coalescer first looks at its queue."""

from __future__ import annotations

import asyncio
import contextvars
import random
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import grpc
import pytest

from referee.coalesce import MAX_BATCH, MAX_WAIT_GAPS, PROBE_EVERY, Coalescer
from referee.codec import all_codecs
from referee.errors import RequestError
from referee.server import ServerSettings
from referee.service import Referee
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from tests.server_thread import ServerThread

WHO: contextvars.ContextVar[str] = contextvars.ContextVar("who", default="nobody")
GAP = 0.0002


def coalescer(**kwargs: Any) -> Coalescer:
    return Coalescer(GAP, **kwargs)


async def call(c: Coalescer, fn: Any, request: Any, who: str = "") -> Any:
    """A handler: sets its own context, then runs ``fn`` through the coalescer."""
    if who:
        WHO.set(who)
    result = c.run(fn, request)
    if isinstance(result, asyncio.Future):
        return await result
    return result


def test_calls_started_together_run_in_one_batch_each_in_its_own_context() -> None:
    c = coalescer()
    ran: list[tuple[int, str]] = []

    def fn(n: int) -> tuple[int, str]:
        ran.append((n, WHO.get()))
        return n * n, WHO.get()

    async def main() -> list[Any]:
        return await asyncio.gather(*(call(c, fn, n, who=f"call-{n}") for n in range(10)))

    results = asyncio.run(main())
    assert results == [(n * n, f"call-{n}") for n in range(10)]
    assert c.batches == 1 and c.calls == 10
    assert sorted(ran) == [(n, f"call-{n}") for n in range(10)]


def test_a_full_batch_runs_at_once_and_the_rest_in_the_next() -> None:
    c = coalescer()
    total = MAX_BATCH + 8

    async def main() -> list[Any]:
        return await asyncio.gather(*(call(c, lambda n: n + 1, n) for n in range(total)))

    assert asyncio.run(main()) == [n + 1 for n in range(total)]
    assert (c.batches, c.calls) == (2, total)


def test_a_failing_call_fails_alone() -> None:
    c = coalescer()

    def fn(n: int) -> int:
        if n == 3:
            raise RequestError(grpc.StatusCode.INVALID_ARGUMENT, "three", reason="THREE")
        if n == 5:
            raise ZeroDivisionError("a bug in one call")
        return n

    async def main() -> list[Any]:
        return await asyncio.gather(*(call(c, fn, n) for n in range(8)), return_exceptions=True)

    results = asyncio.run(main())
    assert [r for i, r in enumerate(results) if i not in (3, 5)] == [0, 1, 2, 4, 6, 7]
    assert isinstance(results[3], RequestError) and results[3].reason == "THREE"
    assert isinstance(results[5], ZeroDivisionError)
    assert c.batches == 1


def test_a_call_cancelled_while_it_waits_is_never_run() -> None:
    c = coalescer()
    ran: list[int] = []

    def fn(n: int) -> int:
        ran.append(n)
        return n

    async def main() -> list[Any]:
        tasks = [asyncio.create_task(call(c, fn, n)) for n in range(4)]
        await asyncio.sleep(0)  # every task is queued, none is run yet
        tasks[2].cancel()  # its deadline passed, its client left
        return await asyncio.gather(*tasks, return_exceptions=True)

    results = asyncio.run(main())
    assert ran == [0, 1, 3]
    assert results[:2] == [0, 1] and results[3] == 3
    assert isinstance(results[2], asyncio.CancelledError)


def test_a_lone_client_stops_waiting_and_is_probed_now_and_then() -> None:
    c = coalescer()
    waited: list[bool] = []

    async def main() -> None:
        for n in range(100):  # one call at a time: a batch never holds two
            result = c.run(lambda x: x, n)
            waited.append(isinstance(result, asyncio.Future))
            assert (await result if isinstance(result, asyncio.Future) else result) == n

    asyncio.run(main())
    first_solo = waited.index(False)
    assert all(waited[:first_solo]) and 1 <= first_solo <= 20
    later = waited[first_solo:]
    # From then on only the probes wait: one call in PROBE_EVERY.
    assert sum(later) == len(later) // PROBE_EVERY
    assert c.batches == first_solo + sum(later) and c.calls == c.batches


class Clock:
    """``time`` for referee.coalesce: ``monotonic()`` is what the test sets, plus a
    fiftieth of a gap per reading (so that a waiting call's gap passes)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def monotonic(self) -> float:
        self.now += GAP / 50
        return self.now


@pytest.mark.parametrize("spacing", [GAP * 0.5, GAP * 1.0, GAP * 3])
def test_a_call_more_than_a_gap_after_the_one_before_never_probes(
    monkeypatch: pytest.MonkeyPatch, spacing: float
) -> None:
    """Once waiting stops paying, only calls arriving within a gap of the call before
    probe (one in PROBE_EVERY): a call farther apart could wait only for company that is
    not in sight (a lone client a round trip apart; calls farther apart than the gap
    even under load, where gRPC's own work per call is dear)."""
    import referee.coalesce

    clock = Clock()
    monkeypatch.setattr(referee.coalesce, "time", clock)
    c = coalescer()
    waited: list[bool] = []

    async def main() -> None:
        for n in range(200):
            clock.now += spacing
            result = c.run(lambda x: x, n)
            waited.append(isinstance(result, asyncio.Future))
            assert (await result if isinstance(result, asyncio.Future) else result) == n

    asyncio.run(main())
    first_solo = waited.index(False)
    later = waited[first_solo + 1 :]
    if spacing < GAP:
        assert sum(later) == len(later) // PROBE_EVERY > 0
    else:
        assert not any(later), "a call a gap or more after the one before waited"


def test_calls_that_keep_coming_wait_at_most_max_wait(monkeypatch: pytest.MonkeyPatch) -> None:
    """Calls arriving every half gap never leave a gap of quiet: the batch waits until
    its first call has waited MAX_WAIT_GAPS gaps, then runs, and the next one starts."""
    import referee.coalesce

    clock = Clock()
    monkeypatch.setattr(referee.coalesce, "time", clock)
    sizes: list[int] = []
    c = coalescer(on_batch=sizes.append, max_batch=1000)
    step = GAP / 2
    results: list[Any] = []

    async def main() -> None:
        for n in range(100):
            clock.now += step
            results.append(c.run(lambda x: x, n))
            await asyncio.sleep(0)  # the coalescer looks at its queue once in between
        assert [await r for r in results] == list(range(100))

    asyncio.run(main())
    # Each arrival moves the clock by half a gap and two readings (GAP / 50 each).
    per_call = step + 2 * GAP / 50
    expected = int(MAX_WAIT_GAPS * GAP / per_call) + 1
    assert expected - 1 <= sizes[0] <= expected + 1, sizes
    assert all(expected - 1 <= n <= expected + 1 for n in sizes[1:-1]), sizes
    assert sum(sizes) == 100


def test_waiting_starts_again_when_load_comes_back() -> None:
    c = coalescer()

    async def main() -> None:
        for n in range(60):
            result = c.run(lambda x: x, n)
            if isinstance(result, asyncio.Future):
                await result
        batches = c.batches
        # Load comes back: a probe finds company, and calls wait again.
        for _ in range(PROBE_EVERY + 2):
            await asyncio.gather(*(call(c, lambda x: x, n) for n in range(8)))
        assert c.batches > batches
        result = c.run(lambda x: x, 0)
        assert isinstance(result, asyncio.Future), "waiting pays again"
        await result

    asyncio.run(main())


def test_batches_of_two_are_company_enough_to_keep_waiting() -> None:
    """Waiting pays while batches hold more than one call: pairs of calls keep it on."""
    c = coalescer()

    async def main() -> None:
        for n in range(60):
            assert await asyncio.gather(call(c, lambda x: x, n), call(c, lambda x: -x, n)) == [
                n,
                -n,
            ]
        result = c.run(lambda x: x, 0)
        assert isinstance(result, asyncio.Future), "a lone call after pairs still waits"
        await result

    asyncio.run(main())
    assert c.batches == 61 and c.calls == 121


def test_each_batch_is_reported_a_call_run_at_once_as_one() -> None:
    """``on_batch`` (the referee_coalesced_batch_calls metric) sees every call once."""
    sizes: list[int] = []
    c = coalescer(on_batch=sizes.append)

    async def main() -> None:
        await asyncio.gather(*(call(c, lambda x: x, n) for n in range(MAX_BATCH + 3)))
        for n in range(40):  # one at a time: waiting stops paying, calls run at once
            result = c.run(lambda x: x, n)
            if isinstance(result, asyncio.Future):
                await result

    asyncio.run(main())
    assert sizes[:2] == [MAX_BATCH, 3]
    assert set(sizes[2:]) == {1} and len(sizes) == 2 + 40
    assert sum(sizes) == c.calls + (40 - (c.batches - 2))  # solo calls are not batches


def test_gap_must_be_positive() -> None:
    with pytest.raises(ValueError):
        Coalescer(0)


# --- over a real server -------------------------------------------------------------


@pytest.fixture(scope="module")
def coalescing_server() -> Iterator[ServerThread]:
    settings = ServerSettings(host="127.0.0.1", port=0, coalesce_us=2000)
    server = ServerThread(settings, engine="asyncio").start()  # coalescing is grpc.aio's
    assert server.server is not None and server.server.coalescer is not None
    yield server
    server.stop()


def game_steps(count: int) -> list[pb.ApplyActionRequest]:
    """ApplyAction requests from random games of both games, each a legal action."""
    referee = Referee(all_codecs())
    rng = random.Random(7)
    out: list[pb.ApplyActionRequest] = []
    for game, config in (
        ("earl_of_coventry", pb.GameConfig(earl_of_coventry={"seats": 4})),
        ("ecarte", pb.GameConfig(ecarte={})),
    ):
        state = referee.new_game(pb.NewGameRequest(config=config, seed=bytes(32))).state
        while len(out) < count * (1 if game == "earl_of_coventry" else 2):
            legal = referee.legal_actions(pb.LegalActionsRequest(state=state)).actions
            action = rng.choice(list(legal))
            out.append(pb.ApplyActionRequest(state=state, action=action))
            state = referee.apply_action(out[-1]).state
    return out


def test_concurrent_calls_through_a_coalescing_server_get_their_own_answers(
    coalescing_server: ServerThread,
) -> None:
    referee = Referee(all_codecs())
    requests = game_steps(40)
    bad = pb.ApplyActionRequest(state=requests[0].state, action=requests[-1].action)
    requests.insert(17, bad)  # an Écarté action on an Earl of Coventry state
    expected = [referee.apply_action(r).SerializeToString() for r in requests if r is not bad]
    with grpc.insecure_channel(coalescing_server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)

        def one(request: pb.ApplyActionRequest) -> Any:
            try:
                response, call_ = stub.ApplyAction.with_call(request, timeout=30)
            except grpc.RpcError as e:
                return e
            return response.SerializeToString(), dict(call_.trailing_metadata())

        with ThreadPoolExecutor(16) as pool:
            answers = list(pool.map(one, requests))
    error = answers.pop(17)
    assert isinstance(error, grpc.RpcError)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert [a[0] for a in answers] == expected
    request_ids = {a[1]["x-request-id"] for a in answers}
    assert len(request_ids) == len(answers), "every call has its own request id"
    assert coalescing_server.server is not None
    coalescer_ = coalescing_server.server.coalescer
    assert coalescer_ is not None and coalescer_.batches >= 1
