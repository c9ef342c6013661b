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


RANKS = (
    "RANK_ACE", "RANK_TWO", "RANK_THREE", "RANK_FOUR", "RANK_FIVE", "RANK_SIX", "RANK_SEVEN",
    "RANK_EIGHT", "RANK_NINE", "RANK_TEN", "RANK_JACK", "RANK_QUEEN", "RANK_KING",
)  # fmt: skip


@given(
    seed=st.binary(min_size=32, max_size=32),
    seats=st.integers(2, 13),
    scoring=st.sampled_from(list(Scoring)),
    choices=st.integers(0, 2**32),
)
def test_the_view_message_says_what_the_view_says(
    seed: bytes, seats: int, scoring: Scoring, choices: int
) -> None:
    """Every field of an encoded view, read back by hand, against the rules' view, for
    a seat, the public and a spectator along a random game; the rank by its protobuf
    name."""
    from referee.codec.common import card_code
    from referee.games.base import PUBLIC_VIEWER, Viewer
    from referee.v1 import cards_pb2

    config = EarlConfig(seats=seats, scoring=scoring, starting_counters=2)
    rng = random.Random(choices)
    state, _ = RULES.new_game(config, seed)
    viewers = [Viewer.of_seat(rng.randrange(seats)), PUBLIC_VIEWER, Viewer.of_spectator("ann")]
    for step in range(400):
        if step % 7 == 0:
            for viewer in viewers:
                view = RULES.view(state, viewer)
                out = pb.GameView()
                CODEC.encode_view(view, out)
                v = out.earl_of_coventry
                assert (v.phase, v.round, v.dealer, v.turn) == (
                    view.phase, view.round, view.dealer, view.turn,
                )  # fmt: skip
                rank = RANKS[view.current_rank] if view.current_rank >= 0 else "RANK_UNSPECIFIED"
                assert cards_pb2.Rank.Name(v.current_rank) == rank
                assert (v.run_length, v.last_player) == (view.run_length, view.last_player)
                assert len(v.seats) == len(view.seats)
                for sv, seat in zip(v.seats, view.seats, strict=True):
                    assert (sv.seat, sv.card_count, sv.rounds_won, sv.counters) == (
                        seat.seat, seat.card_count, seat.rounds_won, seat.counters,
                    )  # fmt: skip
                    assert (sv.eliminated, sv.dealt_in) == (seat.eliminated, seat.dealt_in)
                    assert sv.hand_visible == (seat.hand is not None)
                    assert tuple(card_code(c, "c") for c in sv.hand) == (seat.hand or ())
                assert bytes(card_code(c, "c") for c in v.played) == view.played
                assert (v.pool, v.tiebreak) == (view.pool, view.tiebreak)
                assert v.next_call == view.next_call
                winner = v.round_winner if v.HasField("round_winner") else -1
                assert winner == view.round_winner
                assert tuple(v.winners) == view.winners
        legal = RULES.legal_actions(state, None)
        if not legal:
            break
        outcome = RULES.apply(state, rng.choice(legal))
        state = outcome.state


def _fields_of(call: object) -> list[str]:
    import pytest

    from referee.games.base import InvalidInput

    with pytest.raises(InvalidInput) as caught:
        call()  # type: ignore[operator]
    return [v.field for v in caught.value.violations]


def _state_msg(seats: int = 3) -> tuple[pb.GameState, bytes]:
    seed = bytes(range(32))
    state, _ = RULES.new_game(EarlConfig(seats=seats), seed)
    return encoded(state), seed


def _readings(msg: pb.GameState, seed: bytes) -> list[object]:
    """Each way of reading a state, unchecked: from its bytes (compiled), through the
    message's attributes (interpreted)."""
    data = msg.SerializeToString(deterministic=True)
    path = "state.earl_of_coventry"
    return [
        lambda: CODEC._read_state(data, seed, path),
        lambda: CODEC._read_message(msg.earl_of_coventry, seed, path),
    ]


def test_enum_values_past_either_end_are_refused() -> None:
    from referee.v1 import cards_pb2
    from referee.v1 import earl_of_coventry_pb2 as eoc

    last_phase = max(eoc.EarlOfCoventryPhase.values())
    for field, value in [
        ("phase", 0),
        ("phase", last_phase + 1),
        ("phase", -1),
        ("current_rank", cards_pb2.RANK_KING + 1),
        ("current_rank", -1),
    ]:
        msg, seed = _state_msg()
        setattr(msg.earl_of_coventry, field, value)
        for read in _readings(msg, seed):
            assert _fields_of(read) == [f"state.earl_of_coventry.{field}"], (field, value)
    msg, seed = _state_msg()
    msg.earl_of_coventry.phase = last_phase  # type: ignore[assignment]
    msg.earl_of_coventry.current_rank = cards_pb2.RANK_KING
    for read in _readings(msg, seed):
        state = read()  # type: ignore[operator]
        assert state.phase == last_phase and state.current_rank == 12


def test_config_choices_past_the_last_are_refused() -> None:
    from referee.v1 import earl_of_coventry_pb2 as eoc

    for field, enum in (
        ("call_style", eoc.EarlOfCoventryCallStyle),
        ("scoring", eoc.EarlOfCoventryScoring),
    ):
        last = max(enum.values())
        # The custom style, the last, needs its four templates; no other option takes them.
        words = ("one", "two", "three", "four")
        templates = [f"{{rank}} {w}" for w in words] if field == "call_style" else []
        ok = pb.GameConfig(
            earl_of_coventry=eoc.EarlOfCoventryConfig(couplet_templates=templates, **{field: last})
        )
        assert int(getattr(CODEC.decode_config(ok, "config"), field)) == last
        past = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(**{field: last + 1}))
        assert _fields_of(lambda c=past: CODEC.decode_config(c, "config")) == [
            f"config.earl_of_coventry.{field}"
        ]


def test_winners_written_unpacked_and_a_first_seat_not_dealt_in_are_read() -> None:
    """A producer may write a repeated field unpacked; seat 0 may sit out a round."""
    msg, seed = _state_msg(4)
    s = msg.earl_of_coventry
    s.seats[0].dealt_in = False
    s.seats[1].dealt_in = True
    s.ClearField("winners")
    inner = s.SerializeToString(deterministic=True) + b"\x70\x02\x70\x00\x70\x03"  # 14: 2, 0, 3
    envelope = pb.GameState()
    envelope.CopyFrom(msg)
    envelope.ClearField("earl_of_coventry")
    number = pb.GameState.DESCRIPTOR.fields_by_name["earl_of_coventry"].number
    data = envelope.SerializeToString(deterministic=True)
    data += bytes([number << 3 | 2, len(inner) & 0x7F | 0x80, len(inner) >> 7]) + inner
    s.winners.extend([2, 0, 3])
    from_bytes = CODEC._read_state(data, seed, "state.earl_of_coventry")
    from_message = CODEC._read_message(s, seed, "state.earl_of_coventry")
    assert from_bytes == from_message
    assert from_bytes.winners == (2, 0, 3) and from_bytes.dealt_in & 0b11 == 0b10


def test_the_seat_just_past_the_table_and_the_longest_call() -> None:
    """Seat n of an n-seat table is refused, n - 1 accepted; a call of MAX_CALL_LENGTH
    characters is accepted, one more refused."""
    from referee.codec.common import MAX_CALL_LENGTH
    from referee.codec.earl_of_coventry import EarlOfCoventryCodec
    from referee.v1 import cards_pb2, common_pb2
    from referee.v1 import earl_of_coventry_pb2 as eoc

    codec = EarlOfCoventryCodec()
    state, _ = RULES.new_game(EarlConfig(seats=3), bytes(32))

    def play(seat: int, call: str) -> pb.Action:
        card = cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=cards_pb2.RANK_FIVE)
        return pb.Action(
            actor=common_pb2.Actor(seat=seat),
            earl_of_coventry=eoc.EarlOfCoventryAction(
                play=eoc.EarlOfCoventryPlay(card=card, call=call)
            ),
        )

    assert codec.decode_action(play(2, "x"), state, "action").actor.seat == 2
    assert _fields_of(lambda: codec.decode_action(play(3, "x"), state, "action")) == [
        "action.actor.seat"
    ]
    longest = "c" * MAX_CALL_LENGTH
    assert codec.decode_action(play(0, longest), state, "action").call == longest
    assert _fields_of(lambda: codec.decode_action(play(0, longest + "c"), state, "action")) == [
        "action.earl_of_coventry.play.call"
    ]
