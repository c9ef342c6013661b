"""Realistic requests for the benchmarks: mid-game states of each game, played by the
in-process referee from a fixed seed (so every run measures the same bytes)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from typing import Any

from referee.codec import all_codecs
from referee.service import Referee
from referee.v1 import common_pb2, ecarte_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

REFEREE = Referee(all_codecs())
SEED = bytes(range(32))

CONFIGS = {
    "earl_of_coventry": pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=4)),
    "ecarte": pb.GameConfig(ecarte=ecarte_pb2.EcarteConfig()),
}


def mid_game(game: str, steps: int = 12) -> tuple[pb.GameState, pb.Action]:
    """A state some way into a game and a legal action in it (the first one listed)."""
    rng = random.Random(7)
    state = REFEREE.new_game(pb.NewGameRequest(config=CONFIGS[game], seed=SEED)).state
    for _ in range(steps):
        actions = REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions
        state = REFEREE.apply_action(
            pb.ApplyActionRequest(state=state, action=rng.choice(actions))
        ).state
    action = REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions[0]
    return state, action


def apply_request(game: str) -> pb.ApplyActionRequest:
    """ApplyAction on a mid-game state, with the acting seat's view (what a bot asks for)."""
    state, action = mid_game(game)
    return pb.ApplyActionRequest(
        state=state, action=action, views=[common_pb2.Viewer(seat=action.actor.seat)]
    )


def rpc_requests(game: str) -> list[tuple[str, Callable[[Any], Any], Any]]:
    """(name, the Referee's method, request) of each RPC the in-process benchmarks
    measure on ``game`` (``bench/inprocess.py``, ``bench/instructions.py``)."""
    state, action = mid_game(game)
    viewer = common_pb2.Viewer(seat=action.actor.seat)
    return [
        ("ApplyAction", REFEREE.apply_action, pb.ApplyActionRequest(state=state, action=action)),
        (
            "ApplyAction + actor's view",
            REFEREE.apply_action,
            pb.ApplyActionRequest(state=state, action=action, views=[viewer]),
        ),
        ("LegalActions (seat on turn)", REFEREE.legal_actions, pb.LegalActionsRequest(state=state)),
        (
            "ViewState (a seat)",
            REFEREE.view_state,
            pb.ViewStateRequest(state=state, viewer=viewer),
        ),
        ("NewGame", REFEREE.new_game, pb.NewGameRequest(config=CONFIGS[game], seed=SEED)),
    ]


def long_log(
    game: str, actions: int, seed: int = 3, config: pb.GameConfig | None = None
) -> pb.ReplayRequest:
    """A Replay of up to ``actions`` actions played by random bots (the table starts new
    rounds, so an Earl of Coventry session goes on as long as asked; an Écarté match
    ends when it ends: configure a long one)."""
    rng = random.Random(seed)
    config = config or CONFIGS[game]
    state = REFEREE.new_game(pb.NewGameRequest(config=config, seed=SEED)).state
    played: list[pb.Action] = []
    while len(played) < actions:
        legal = REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions
        if not legal:  # a finished match: start another game and keep its actions
            break
        action = rng.choice(legal)
        if action.actor.HasField("table"):
            action = next(a for a in legal if a.earl_of_coventry.HasField("next_round"))
        played.append(action)
        state = REFEREE.apply_action(pb.ApplyActionRequest(state=state, action=action)).state
    return pb.ReplayRequest(config=config, seed=SEED, actions=played)


def build() -> str:
    """Which build of the rules core runs: the compiled one (mypyc, as the container
    ships; ``PYTHONPATH=DIR`` after ``scripts/compile-tree.sh DIR``) or the source."""
    import referee.games.ecarte.rules as rules

    path = rules.__file__ or ""
    if path.endswith(".py"):
        return "interpreted (the source; scripts/compile-tree.sh makes the compiled build)"
    return f"compiled (mypyc): {path.rsplit('/referee/', 1)[0]}"


WORKS = ("nothing", "apply_action", "open_state", "integer loop")


def do_work(work: str, request: pb.ApplyActionRequest) -> None:
    """One of the pieces of work ``bench/inserver.py`` times, on an ApplyAction request."""
    if work == "apply_action":
        REFEREE.apply_action(request)
    elif work == "open_state":
        REFEREE.open_state(request.state, request.sealed_state)
    elif work == "integer loop":
        x = 0
        for i in range(500):
            x += i


SERVICE = "referee.v1.RefereeService"


def _apply_action_only(server: Any, handler: Any, port: int) -> None:
    """``handler`` as ApplyAction, alone, on ``server`` (either gRPC server), bound to
    127.0.0.1:``port``."""
    import grpc

    method = grpc.unary_unary_rpc_method_handler(
        handler,
        request_deserializer=pb.ApplyActionRequest.FromString,
        response_serializer=pb.ApplyActionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(SERVICE, {"ApplyAction": method}),)
    )
    server.add_insecure_port(f"127.0.0.1:{port}")


async def serve_apply_action(port: int, handler: Any) -> None:
    """A bare grpc.aio server (no interceptor, no logs, default options) answering
    ApplyAction with ``handler``, until killed: the floor's server and bench/inserver.py's."""
    import grpc

    server = grpc.aio.server()
    _apply_action_only(server, handler, port)
    await server.start()
    await server.wait_for_termination()


def serve_apply_action_threads(port: int, handler: Any, threads: int = 8) -> None:
    """A bare threaded gRPC server (grpc.server with a pool of ``threads``, no
    interceptor, no logs, default options) answering ApplyAction with ``handler``, until
    killed: the floor of ``--engine threads``."""
    from concurrent import futures

    import grpc

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=threads))
    _apply_action_only(server, handler, port)
    server.start()
    server.wait_for_termination()


def serve_command(port: int, *options: str, workers: int = 1) -> list[str]:
    """``referee serve`` on 127.0.0.1:``port`` as the benchmarks start it."""
    return [
        sys.executable, "-P", "-m", "referee.cli", "serve", "--workers", str(workers),
        "--host", "127.0.0.1", "--port", str(port), *options,
    ]  # fmt: skip
