"""A request leaves no reference cycles behind: everything the referee makes for a call
is freed by reference counting when the call ends, so a loaded worker's cyclic garbage
collector has only gRPC's own to find (docs/benchmarks.md). Compiled with mypyc, a
nested function and its environment form such a cycle: this test runs against the
compiled build too (scripts/test-compiled.sh)."""

from __future__ import annotations

import collections
import contextlib
import gc
import random
from collections.abc import Callable, Iterator

import pytest

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

SEED = bytes(range(32))
CONFIGS = {
    "earl_of_coventry": pb.GameConfig(earl_of_coventry={"seats": 4}),
    "ecarte": pb.GameConfig(ecarte={"seats": 3, "stake": 2, "gallery": True}),
}
REFEREE = Referee(all_codecs())


def calls(game: str) -> Iterator[Callable[[], object]]:
    """Every short RPC on the states of a random game, and some refused requests."""
    rng = random.Random(3)
    state = REFEREE.new_game(pb.NewGameRequest(config=CONFIGS[game], seed=SEED)).state
    yield lambda: REFEREE.new_game(pb.NewGameRequest(config=CONFIGS[game], seed=SEED))
    for _ in range(40):
        actions = REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions
        if not actions:
            break
        action = rng.choice(actions)
        seat = action.actor.seat
        request = pb.ApplyActionRequest(
            state=state, action=action, views=[common_pb2.Viewer(seat=seat)]
        )
        yield lambda r=request: REFEREE.apply_action(r)  # type: ignore[misc]
        yield lambda s=state: REFEREE.legal_actions(pb.LegalActionsRequest(state=s))  # type: ignore[misc]
        yield lambda s=state, v=seat: REFEREE.view_state(  # type: ignore[misc]
            pb.ViewStateRequest(state=s, viewer=common_pb2.Viewer(seat=v))
        )
        broken = pb.GameState()
        broken.CopyFrom(state)
        broken.version += 1
        broken.seed = bytes(32)  # the hands are no longer the seed's deal: refused
        yield lambda b=broken, a=action: REFEREE.apply_action(  # type: ignore[misc]
            pb.ApplyActionRequest(state=b, action=a)
        )
        state = REFEREE.apply_action(pb.ApplyActionRequest(state=state, action=action)).state


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_calls_leave_no_reference_cycles(game: str) -> None:
    work = list(calls(game))
    for call in work:  # warm every cache first: cached entries are not garbage
        with contextlib.suppress(RequestError):
            call()
    gc.collect()
    gc.disable()
    gc.set_debug(gc.DEBUG_SAVEALL)
    try:
        refused = 0
        for call in work:
            try:
                call()
            except RequestError:
                refused += 1
        gc.collect()
        garbage = collections.Counter(type(o).__name__ for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert refused >= 1 and len(work) > 100
    assert not garbage, f"reference cycles left by {len(work)} calls: {garbage.most_common(8)}"
