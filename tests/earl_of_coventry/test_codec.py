"""The Earl of Coventry codec: the incremental encoding is the full encoding."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from referee.codec.earl_of_coventry import CODEC
from referee.games.base import Verdict
from referee.games.earl_of_coventry.calls import CallStyle
from referee.games.earl_of_coventry.rules import RULES
from referee.games.earl_of_coventry.state import EarlAction, EarlConfig, Scoring
from referee.v1 import referee_pb2 as pb


def encoded(state: object) -> pb.GameState:
    msg = pb.GameState()
    CODEC.encode_state(state, msg)
    return msg


@given(
    seed=st.binary(min_size=32, max_size=32),
    seats=st.integers(2, 13),
    scoring=st.sampled_from(list(Scoring)),
    penalty=st.booleans(),
    holding=st.booleans(),
    choices=st.integers(0, 2**32),
)
def test_encode_successor_equals_encode_state(
    seed: bytes, seats: int, scoring: Scoring, penalty: bool, holding: bool, choices: int
) -> None:
    config = EarlConfig(
        seats=seats,
        scoring=scoring,
        penalty_earl=penalty,
        holding_allowed=holding,
        call_style=CallStyle.EARL,
        starting_counters=3,
    )
    rng = random.Random(choices)
    state, _ = RULES.new_game(config, seed)
    msg = encoded(state)
    for _ in range(300):
        legal = RULES.legal_actions(state, None)
        if not legal:
            break
        action = rng.choice(legal)
        if rng.random() < 0.2 and action.card >= 0:  # botched calls and misplays too
            action = EarlAction(action.actor, action.kind, action.card, "wrong")
        outcome = RULES.apply(state, action)
        if outcome.verdict is Verdict.REJECTED:
            continue
        incremental = pb.GameState()
        incremental.CopyFrom(msg)
        CODEC.encode_successor(state, outcome.state, incremental)
        full = encoded(outcome.state)
        assert incremental.SerializeToString(deterministic=True) == full.SerializeToString(
            deterministic=True
        )
        state, msg = outcome.state, full
        # The decoded state round-trips.
        assert CODEC.decode_state(full, seed, "state") == state
