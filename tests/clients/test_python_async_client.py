"""referee.client.AsyncClient (grpc.aio) against a real server: every RPC, whole games
on plain, sealing and strict servers, errors and retries, many games at once."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import grpc
import pytest

from referee import verify
from referee.client import (
    PUBLIC,
    TABLE,
    AsyncClient,
    GameHandle,
    RefereeError,
    config,
    seat,
    seat_actor,
)
from referee.v1 import common_pb2, referee_pb2

from ..server_thread import ServerThread

SEED = bytes(range(32))
T = TypeVar("T")


def run(body: Callable[[], Awaitable[T]]) -> T:
    """``body`` in an event loop of its own (the client is made, used and closed there)."""
    return asyncio.run(body())  # type: ignore[arg-type]


async def play(
    client: AsyncClient, game: GameHandle, steps: int = 10_000
) -> tuple[GameHandle, list[referee_pb2.Action]]:
    """The first legal action each time, to the end of the match or session."""
    played: list[referee_pb2.Action] = []
    for _ in range(steps):
        if game.finished:
            return game, played
        actions = await client.legal_actions(game)
        # The table ends an Earl of Coventry session at once; everyone else plays.
        action = actions[-1] if actions[0].actor.HasField("table") else actions[0]
        applied = await client.apply(game, action)
        assert applied.accepted, applied.violations
        played.append(action)
        game = applied.game
    raise AssertionError(f"not over after {steps} actions")


def test_every_rpc(server: ServerThread) -> None:
    async def body() -> None:
        async with AsyncClient(server.address) as c:
            games = await c.list_games()
            assert {g.id for g in games} >= {"ecarte", "earl_of_coventry"}
            cfg = config("earl_of_coventry", seats=3)
            started = await c.new_game(cfg, SEED, views=[seat(0)])
            assert started.views[0].earl_of_coventry.seats[0].hand_visible
            game = started.game
            assert not game.sealed and game.state is not None
            actions = await c.legal_actions(game)
            assert actions and all(a.actor.seat == actions[0].actor.seat for a in actions)
            assert await c.legal_actions(game, TABLE) == []
            applied = await c.apply(game, actions[0], views=[PUBLIC])
            assert applied.accepted and applied.events and applied.views
            assert applied.game.state_hash != game.state_hash
            # An illegal action is an answer, not an error: rejected, the game unchanged.
            other = (actions[0].actor.seat + 1) % 3
            wrong = referee_pb2.Action()
            wrong.CopyFrom(actions[0])
            wrong.actor.CopyFrom(seat_actor(other))
            rejected = await c.apply(game, wrong)
            assert rejected.verdict == common_pb2.VERDICT_REJECTED and rejected.violations
            assert rejected.game.state_hash == game.state_hash
            view = await c.view(applied.game, seat(1))
            assert view.view.earl_of_coventry.seats[1].hand_visible
            assert not view.view.earl_of_coventry.seats[0].hand
            end, played = await play(c, applied.game)
            replay = await c.replay(cfg, SEED, [actions[0], *played], include_log=True)
            assert replay.final_hash == end.state_hash
            report = verify.verify(replay.log, final_hash=end.state_hash)
            assert report.ok, report.lines
            assert not any(step.events for step in replay.steps)
            plain = await c.replay(cfg, SEED, [actions[0], *played])
            assert not plain.HasField("log") and not any(step.events for step in plain.steps)
            events = await c.replay(cfg, SEED, [actions[0], *played], include_events=True)
            assert any(step.events for step in events.steps)

    run(body)


def test_sealed_and_strict_servers(
    sealing_server: ServerThread, strict_server: ServerThread
) -> None:
    """Tokens travel back as the server sent them; with --require-sealed, LegalActions
    without an actor is asked per actor with the handle's credentials."""

    async def body() -> None:
        for server in (sealing_server, strict_server):
            async with AsyncClient(server.address) as c:
                for cfg in (config("earl_of_coventry", seats=3), config("ecarte")):
                    game = (await c.new_game(cfg)).game
                    assert game.sealed and game.state is None and game.credentials
                    end, _ = await play(c, game)
                    assert end.sealed and end.finished
                assert c._per_actor == (server is strict_server)

    run(body)


def test_errors_are_decoded_and_unavailable_is_retried(server: ServerThread) -> None:
    async def body() -> None:
        async with AsyncClient(server.address) as c:
            game = (await c.new_game(config("earl_of_coventry", seats=3), SEED)).game
            assert game.state is not None
            old = referee_pb2.GameState()
            old.CopyFrom(game.state)
            old.rules_version = "earl_of_coventry/0"
            with pytest.raises(RefereeError) as info:
                await c.legal_actions(GameHandle(old, b"", b"", common_pb2.Scoreboard()))
            assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
            assert info.value.reason == "RULES_VERSION_UNSUPPORTED"
            broken = referee_pb2.GameState()
            broken.CopyFrom(game.state)
            broken.earl_of_coventry.turn = 99
            with pytest.raises(RefereeError) as info:
                await c.legal_actions(GameHandle(broken, b"", b"", common_pb2.Scoreboard()))
            assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
            assert info.value.field_violations
        # Nothing listens there: every attempt fails UNAVAILABLE, then the error.
        async with AsyncClient("127.0.0.1:1", max_attempts=2, timeout=5) as gone:
            with pytest.raises(RefereeError) as info:
                await gone.list_games()
            assert info.value.code == grpc.StatusCode.UNAVAILABLE

    run(body)


def test_many_games_at_once(server: ServerThread) -> None:
    """One client, one channel, 16 games played by 16 tasks together."""

    async def body() -> list[Any]:
        async with AsyncClient(server.address) as c:

            async def one(n: int) -> GameHandle:
                cfg = config("ecarte") if n % 2 else config("earl_of_coventry", seats=4)
                game = (await c.new_game(cfg, bytes([n]) * 32)).game
                end, _ = await play(c, game)
                return end

            return await asyncio.gather(*(one(n) for n in range(16)))

    ends = run(body)
    assert len(ends) == 16 and all(e.finished for e in ends)
    assert len({e.state_hash for e in ends}) == 16


def test_the_docs_asyncio_example_runs(server: ServerThread) -> None:
    text = (Path(__file__).resolve().parents[2] / "docs" / "clients.md").read_text()
    (snippet,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "AsyncClient(" in b]
    snippet = snippet.replace('"localhost:50051"', repr(server.address))
    exec(compile(snippet, "docs/clients.md", "exec"), {"__name__": "docs"})


def test_made_outside_an_event_loop_it_says_where_to_make_it() -> None:
    with pytest.raises(RuntimeError, match="inside the event loop that uses it"):
        AsyncClient("127.0.0.1:1")


def test_a_channel_given_to_the_client_stays_open_after_it(server: ServerThread) -> None:
    async def body() -> None:
        async with grpc.aio.insecure_channel(server.address) as channel:
            async with AsyncClient(channel=channel) as c:
                assert await c.list_games()
            async with AsyncClient(channel=channel) as c:
                assert await c.list_games(), "closing the first client closed the caller's channel"

    run(body)
