"""The codecs read a state's fields from its canonical bytes (codec.common's wire
readers): the readers against protobuf's own encoding, and bytes that are not a
well-formed state refused as a request error, never a crash. The scoreboard is written
in the wire format: the same message as protobuf's setters make."""

from __future__ import annotations

import contextlib
import random
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from referee.codec import all_codecs
from referee.codec.common import (
    CARD_MESSAGES,
    CardField,
    WireError,
    encode_scoreboard,
    field_span,
    read_length,
    read_packed,
    read_scalars,
    read_varint,
    repeated_entries,
    scoreboard_bytes,
    signed,
    skip_field,
    zigzag,
)
from referee.games.base import InvalidInput, Scoreboard, SeatScore, SpectatorScore
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import ecarte_pb2 as epb
from referee.v1 import referee_pb2 as pb

SEED = bytes(range(32))
REFEREE = Referee(all_codecs())
CONFIGS = {
    "earl_of_coventry": pb.GameConfig(earl_of_coventry={"seats": 4}),
    "ecarte": pb.GameConfig(ecarte={"seats": 3, "stake": 2, "gallery": True}),
}


def first_state(game: str) -> pb.GameState:
    return REFEREE.new_game(pb.NewGameRequest(config=CONFIGS[game], seed=SEED)).state


def decode(msg: pb.GameState, data: bytes | None = None) -> object:
    """The checked state, read from ``data`` (else ``msg``'s canonical bytes): the path
    the compiled build takes (the interpreted one reads the message's attributes)."""
    game = msg.WhichOneof("game") or "earl_of_coventry"
    if data is None:
        data = msg.SerializeToString(deterministic=True)
    return REFEREE.codecs[game].decode_state_bytes(data, SEED, "state")


def read_both(msg: pb.GameState) -> tuple[object, object]:
    """What each way of reading makes of a state, unchecked: a state or the error."""
    game = msg.WhichOneof("game") or "earl_of_coventry"
    codec: Any = REFEREE.codecs[game]
    path = f"state.{game}"
    out: list[object] = []
    for read in (
        lambda: codec._read_state(msg.SerializeToString(deterministic=True), SEED, path),
        lambda: codec._read_message(getattr(msg, game), SEED, path),
    ):
        try:
            out.append(read())
        except InvalidInput as e:
            out.append([(v.field, v.description) for v in e.violations])
    return out[0], out[1]


def playout_states(game: str, steps: int) -> list[pb.GameState]:
    rng = random.Random(5)
    state = first_state(game)
    states = [state]
    for _ in range(steps):
        actions = REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions
        if not actions:
            break
        state = REFEREE.apply_action(
            pb.ApplyActionRequest(state=state, action=rng.choice(actions))
        ).state
        states.append(state)
    return states


STATES = {game: playout_states(game, 150) for game in CONFIGS}


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_both_ways_of_reading_agree_along_games(game: str) -> None:
    for msg in STATES[game]:
        from_bytes, from_message = read_both(msg)
        assert from_bytes == from_message
        assert decode(msg) == from_bytes  # and it is a valid state


def _value(field: Any, draw: Any) -> object:
    """A value for a scalar field: often near the bounds the codecs check (card codes,
    seats, enum values, spectator ids' lengths), else anything of the field's type."""
    f = field
    small = st.integers(-2, 64)
    if f.type == f.TYPE_BYTES:
        return draw(st.binary(max_size=12))
    if f.type == f.TYPE_STRING:
        return draw(st.text(max_size=3) | st.text(min_size=127, max_size=129))
    if f.type == f.TYPE_BOOL:
        return draw(st.booleans())
    if f.type in (f.TYPE_SINT64, f.TYPE_INT64):
        return draw(small | st.integers(-(2**63), 2**63 - 1))
    if f.type in (f.TYPE_ENUM, f.TYPE_INT32, f.TYPE_SINT32):
        return draw(small | st.integers(-(2**31), 2**31 - 1))
    if f.type == f.TYPE_UINT64:
        return draw(st.integers(0, 64) | st.integers(0, 2**64 - 1))
    return draw(st.integers(0, 64) | st.integers(0, 2**32 - 1))


def _alter(msg: Any, draw: Any) -> None:
    """One scalar field of ``msg`` set to a drawn value (a repeated one: one more value)."""
    fields = [f for f in msg.DESCRIPTOR.fields if f.type != f.TYPE_MESSAGE]
    field = draw(st.sampled_from(fields))
    value = _value(field, draw)
    if field.is_repeated:
        getattr(msg, field.name).append(value)
    else:
        setattr(msg, field.name, value)


def _mutate(msg: pb.GameState, game: str, draw: Any) -> None:
    """One scalar field of the state changed; then perhaps one entry of a repeated
    message field (seats, wagers, spectators' nets) changed or added, and perhaps that
    field's last entry dropped."""
    s = getattr(msg, game)
    _alter(s, draw)
    nested = [f.name for f in s.DESCRIPTOR.fields if f.type == f.TYPE_MESSAGE and f.is_repeated]
    entries = getattr(s, draw(st.sampled_from(nested)))
    if draw(st.booleans()):
        if len(entries) and draw(st.booleans()):
            entry = entries[draw(st.integers(0, len(entries) - 1))]
        else:  # a new entry: a copy of one there, else plausible values
            entry = entries.add()
            if len(entries) > 1:
                entry.CopyFrom(entries[0])
            else:
                for f in entry.DESCRIPTOR.fields:
                    setattr(entry, f.name, "s" if f.type == f.TYPE_STRING else 1)
        _alter(entry, draw)
    if len(entries) and draw(st.booleans()):
        del entries[-1]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(sorted(CONFIGS)), st.integers(0, 10_000), st.data())
def test_both_ways_of_reading_agree_on_altered_states(game: str, pick: int, data: Any) -> None:
    """Any state a client may send, read from its bytes or through its attributes: the
    same state or the same refusal."""
    msg = pb.GameState()
    msg.CopyFrom(STATES[game][pick % len(STATES[game])])
    _mutate(msg, game, data.draw)
    from_bytes, from_message = read_both(msg)
    assert from_bytes == from_message


@given(st.integers(0, 2**64 - 1))
def test_varints_read_as_protobuf_writes_them(value: int) -> None:
    data = eoc.EarlOfCoventrySeat(hand=value).SerializeToString()
    if value:
        assert read_varint(data, 1) == (value, len(data))
    else:
        assert data == b""


@given(st.integers(-(2**63), 2**63 - 1))
def test_sint64_and_int64_read_back(value: int) -> None:
    chips = epb.EcarteSeat(chips=value).SerializeToString()  # sint64: ZigZag
    if value:
        raw, end = read_varint(chips, 1)
        assert zigzag(raw) == value and end == len(chips)
    negative = eoc.EarlOfCoventryState()
    negative.phase = -(value % 2**31) - 1  # type: ignore[assignment]  # an int32 enum
    data = negative.SerializeToString()
    assert signed(read_varint(data, 1)[0]) == negative.phase


def test_negative_and_unknown_enum_values_are_refused_as_before() -> None:
    for game, field in (("earl_of_coventry", "phase"), ("ecarte", "phase"), ("ecarte", "trump")):
        msg = first_state(game)
        setattr(getattr(msg, game), field, -3)
        with pytest.raises(InvalidInput) as e:
            decode(msg)
        assert [(v.field, v.description) for v in e.value.violations] == [
            (f"state.{game}.{field}", f"unknown {'suit' if field == 'trump' else 'phase'} value -3")
        ]


def test_spans_packed_fields_and_skipped_fields() -> None:
    # field 1 varint 150; field 2 fixed64; field 3 bytes "ab"; field 4 fixed32; field 3 "c"
    data = b"\x08\x96\x01" + b"\x11" + bytes(8) + b"\x1a\x02ab" + b"\x25" + bytes(4) + b"\x1a\x01c"
    assert field_span(data, 3) == (len(data) - 1, len(data))  # the last occurrence
    assert field_span(data, 9) == (0, 0)
    pos = skip_field(data, 1, 0)
    assert pos == 3 and skip_field(data, pos + 1, 1) == 12
    assert read_length(data, 13) == (14, 16)
    out: list[int] = []
    read_packed(b"\x01\x96\x01\x05", 0, 4, out)
    assert out == [1, 150, 5]
    # Scalars by field number: field 9 (beyond count) and a bytes field are skipped.
    seat = b"\x08\x05" + b"\x48\x07" + b"\x12\x01x" + b"\x18\x96\x01"
    assert read_scalars(seat, 0, len(seat), 3) == [5, 0, 150]
    with pytest.raises(WireError):
        read_scalars(seat, 0, len(seat) - 1, 3)


@pytest.mark.parametrize(
    "data",
    [b"\x80", b"\xff" * 11, b"\x0a\x05ab", b"\x0b", b"\x09\x00", b"\x0d\x00\x00"],
)
def test_malformed_wire_is_a_wire_error(data: bytes) -> None:
    with pytest.raises(WireError):
        field_span(data, 1)


@pytest.mark.parametrize("game", ["earl_of_coventry", "ecarte"])
def test_unknown_fields_in_the_bytes_are_skipped(game: str) -> None:
    """The bytes come from protobuf after DiscardUnknownFields; a reader given more
    (a newer producer) skips what it does not know, of every wire type."""
    msg = first_state(game)
    inner = getattr(msg, game).SerializeToString(deterministic=True)
    extra = b"\xb8\x06\x07" + b"\xc1\x06" + bytes(8) + b"\xca\x06\x01z" + b"\xd5\x06" + bytes(4)
    number = pb.GameState.DESCRIPTOR.fields_by_name[game].number
    body = inner + extra
    envelope = pb.GameState()
    envelope.CopyFrom(msg)
    envelope.ClearField(game)
    data = envelope.SerializeToString(deterministic=True)
    data += bytes([number << 3 | 2]) + _varint(len(body)) + body
    assert decode(msg, data) == decode(msg)


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from(["earl_of_coventry", "ecarte"]),
    st.integers(0, 10_000),
    st.binary(min_size=1, max_size=4),
    st.booleans(),
)
def test_damaged_bytes_are_refused_or_read_never_a_crash(
    game: str, where: int, junk: bytes, cut: bool
) -> None:
    """Whatever bytes reach a reader (they cannot come from a client: the service
    serializes the parsed message itself), the answer is a state or InvalidInput."""
    msg = first_state(game)
    data = msg.SerializeToString(deterministic=True)
    where %= len(data)
    damaged = data[:where] if cut else data[:where] + junk + data[where + len(junk) :]
    with contextlib.suppress(InvalidInput):
        decode(msg, damaged)


# ---------------------------------------------------------------- the scoreboard, written

U32 = st.integers(0, 2**32 - 1)
I64 = st.integers(-(2**63), 2**63 - 1)
SEAT_SCORES = st.builds(
    SeatScore,
    seat=st.integers(0, 12),
    points=I64,
    games_won=U32,
    rounds_won=U32,
    counters=I64,
    chips=I64,
    eliminated=st.booleans(),
    cards_in_hand=U32,
)
BOARDS = st.builds(
    Scoreboard,
    seats=st.lists(SEAT_SCORES, max_size=13).map(tuple),
    finished=st.booleans(),
    winners=st.lists(U32, max_size=13).map(tuple),
    pool=st.integers(0, 2**64 - 1),
    spectators=st.lists(
        st.builds(SpectatorScore, st.text(max_size=20), I64, st.integers(0, 2**64 - 1)),
        max_size=4,
    ).map(tuple),
    standings=st.lists(st.lists(U32, max_size=13).map(tuple), max_size=13).map(tuple),
)


def field_by_field(board: Scoreboard) -> common_pb2.Scoreboard:
    """The scoreboard message as protobuf's own setters make it (the reference)."""
    out = common_pb2.Scoreboard()
    for s in board.seats:
        out.seats.add(
            seat=s.seat,
            points=s.points,
            games_won=s.games_won,
            rounds_won=s.rounds_won,
            counters=s.counters,
            chips=s.chips,
            eliminated=s.eliminated,
            cards_in_hand=s.cards_in_hand,
        )
    if board.finished:
        out.finished = True
        out.winners.extend(board.winners)
    out.pool = board.pool
    for sp in board.spectators:
        out.spectators.add(spectator=sp.spectator, net=sp.net, open_wagers=sp.open_wagers)
    for group in board.standings:
        out.standings.add().seats.extend(group)
    return out


@settings(max_examples=300, deadline=None)
@given(BOARDS)
def test_the_scoreboard_written_in_wire_format_is_the_message(board: Scoreboard) -> None:
    written = common_pb2.Scoreboard()
    encode_scoreboard(board, written)
    assert written == field_by_field(board)
    assert common_pb2.Scoreboard.FromString(scoreboard_bytes(board)) == written
    # Byte for byte, not only equal once parsed: a bool written as 2 parses as True.
    assert scoreboard_bytes(board) == field_by_field(board).SerializeToString()


# Every repeated Card field the codecs write from card codes (CardField).
def _card_fields() -> list[CardField]:
    from referee.codec import earl_of_coventry as earl_codec
    from referee.codec import ecarte as ecarte_codec

    return [
        v for m in (earl_codec, ecarte_codec) for v in vars(m).values() if isinstance(v, CardField)
    ]


CARD_FIELDS = _card_fields()


def test_every_card_field_of_the_codecs_is_tested() -> None:
    assert len({(f.message, f.name) for f in CARD_FIELDS}) == len(CARD_FIELDS) == 12


@pytest.mark.parametrize(
    "card_field", CARD_FIELDS, ids=[f"{f.message.__name__}.{f.name}" for f in CARD_FIELDS]
)
@settings(max_examples=30)
@given(
    before=st.lists(st.integers(0, 51), max_size=3),
    codes=st.lists(st.integers(0, 51), max_size=13),
)
def test_card_fields_write_what_protobuf_writes(
    card_field: CardField, before: list[int], codes: list[int]
) -> None:
    """A CardField appends the Card messages of the codes (repeats and all) after what
    the field already holds: the message protobuf's own extend makes, byte for byte."""
    ours, theirs = card_field.message(), card_field.message()
    for m in (ours, theirs):
        getattr(m, card_field.name).extend([CARD_MESSAGES[c] for c in before])
    card_field.add(ours, codes)
    getattr(theirs, card_field.name).extend([CARD_MESSAGES[c] for c in codes])
    assert ours == theirs
    deterministic = {"deterministic": True}
    assert ours.SerializeToString(**deterministic) == theirs.SerializeToString(**deterministic)


def test_a_card_field_must_be_a_repeated_card_field() -> None:
    with pytest.raises(TypeError, match="not a repeated Card field"):
        CardField(epb.EcarteSeatView, "card_count")
    with pytest.raises(TypeError, match="not a repeated Card field"):
        CardField(epb.EcarteKingTurned, "card")  # a single card


@settings(max_examples=50)
@given(calls=st.lists(st.text(max_size=300), max_size=6))
@example(calls=["x" * 200, "", "y" * 1000])  # 2-byte length prefixes, an empty call
def test_repeated_entries_are_what_protobuf_writes(calls: list[str]) -> None:
    """repeated_entries: serialized messages appended to a repeated field, as protobuf's
    extend appends them (entries of any length: 1- and 2-byte length prefixes)."""
    actions = [pb.Action(earl_of_coventry={"play": {"call": c}}) for c in calls]
    number = pb.LegalActionsResponse.DESCRIPTOR.fields_by_name["actions"].number
    ours = pb.LegalActionsResponse(actions=[pb.Action()])  # after what the field holds
    ours.MergeFromString(repeated_entries(number, [a.SerializeToString() for a in actions]))
    assert ours == pb.LegalActionsResponse(actions=[pb.Action(), *actions])


def _earl_action_by_setters(action: Any) -> pb.Action:
    """Earl of Coventry's Action message, written field by field (the reference)."""
    from referee.codec.common import encode_actor
    from referee.games.earl_of_coventry.state import ActionKind

    out = pb.Action()
    encode_actor(action.actor, out.actor)
    a = out.earl_of_coventry
    if action.kind is ActionKind.PLAY:
        a.play.card.CopyFrom(CARD_MESSAGES[action.card])
        a.play.call = action.call
    elif action.kind is ActionKind.PASS:
        getattr(a, "pass").SetInParent()
    elif action.kind is ActionKind.NEXT_ROUND:
        a.next_round.SetInParent()
    else:
        a.end_session.SetInParent()
    return out


@pytest.mark.parametrize("game", ["earl_of_coventry", "ecarte"])
def test_legal_actions_are_the_messages_written_field_by_field(game: str) -> None:
    """LegalActions merges each action's remembered bytes (codec.action_bytes) into the
    response: the same actions, in the same order, as protobuf's setters write them."""
    codec = REFEREE.codecs[game]
    offered = 0
    for msg in playout_states(game, 60):
        state = decode(msg)
        expected = pb.LegalActionsResponse()
        for action in codec.rules.legal_actions(state, None):
            if game == "earl_of_coventry":
                expected.actions.append(_earl_action_by_setters(action))
            else:
                codec.encode_action(action, expected.actions.add())  # setters (Écarté)
        got = REFEREE.legal_actions(pb.LegalActionsRequest(state=msg))
        assert got == expected
        offered += len(got.actions)
    assert offered > 60


def _variants(name: str, value: object) -> list[object]:
    """Other values of one state field (not checked: encoding does not validate)."""
    from enum import IntEnum

    from referee.games.ecarte.state import SpectatorNet, Wager

    if isinstance(value, bool):
        return [not value]
    if isinstance(value, IntEnum):
        return [m for m in type(value) if m != value]
    if isinstance(value, int):
        return [value + 1, 0, -1]  # -1: NO_SEAT / NO_RANK, where a field may be unset
    if isinstance(value, bytes):
        return [value + bytes([5]), value[:-1], b""]
    assert isinstance(value, tuple)
    if name == "wagers":
        return [(*value, Wager("ann", 1, 3)), value[:-1]]
    if name == "ledger":
        return [(*value, SpectatorNet("ann", -4)), value[:-1]]
    if name == "winners":
        return [(*value, 2), value[:-1]]
    # One entry per seat: every seat's, or the first seat's alone.
    return [tuple(v + 1 for v in value), (value[0] + 1, *value[1:])]


@pytest.mark.parametrize("game", sorted(CONFIGS))
def test_the_successor_written_field_by_field_is_the_state_written_whole(game: str) -> None:
    """encode_successor writes only what changed: for every field of a state, changed
    alone in each way, the result is encode_state's, byte for byte."""
    import dataclasses

    codec: Any = REFEREE.codecs[game]
    checked = 0
    for msg in STATES[game][:: len(STATES[game]) // 6]:
        previous = decode(msg)
        for field in dataclasses.fields(previous):  # type: ignore[arg-type]
            if field.name in ("config", "seed"):
                continue
            for value in _variants(field.name, getattr(previous, field.name)):
                state = dataclasses.replace(previous, **{field.name: value})  # type: ignore[type-var]
                whole = pb.GameState()
                try:
                    codec.encode_state(state, whole)
                except (ValueError, TypeError):  # a value its protobuf field cannot hold
                    continue
                written = pb.GameState()
                codec.encode_state(previous, written)
                codec.encode_successor(previous, state, written)
                assert written.SerializeToString(deterministic=True) == whole.SerializeToString(
                    deterministic=True
                ), field.name
                checked += 1
    assert checked > 100
