"""The Écarté codec: protobuf <-> rules objects, and field-level validation."""

from __future__ import annotations

import random

import pytest

from referee.codec.ecarte import CODEC
from referee.games.base import PUBLIC_VIEWER, Actor, InvalidInput, Viewer
from referee.games.ecarte import RULES
from referee.games.ecarte.state import ActionKind, EcarteConfig, EcarteState, Packets
from referee.v1 import cards_pb2, common_pb2, referee_pb2
from referee.v1 import ecarte_pb2 as epb
from tests.ecarte.test_properties import playout

CONFIGS = [
    EcarteConfig(),
    EcarteConfig(seats=3, stake=3, gallery=True, jeux_de_regle=True, target_points=3),
    EcarteConfig(
        first_dealer=1,
        packets=Packets.TWO_THREE,
        games_to_win=2,
        stake=1,
        vole_multiplier=5,
        king_multiplier=7,
        gallery=True,
        wager_limit=9,
        target_points=4,
    ),
]


def encoded(state: EcarteState) -> referee_pb2.GameState:
    msg = referee_pb2.GameState(rules_version="ecarte/1", seed=state.seed)
    CODEC.encode_state(state, msg)
    return msg


def decode(msg: referee_pb2.GameState, seed: bytes) -> EcarteState:
    return CODEC.decode_state(msg, seed, "state")


def fields_of(call: object) -> list[str]:
    with pytest.raises(InvalidInput) as e:
        call()  # type: ignore[operator]
    return [v.field for v in e.value.violations]


@pytest.mark.parametrize("config", CONFIGS)
def test_states_actions_events_views_round_trip(config: EcarteConfig) -> None:
    """Every state of random matches survives encode/decode unchanged (and re-encodes to
    the same bytes); every legal action too; every event and view encodes."""
    rng = random.Random(11)
    states, actions, events = playout(config, bytes(range(32)), rng)
    kinds: set[str] = set()
    for state in states:
        msg = encoded(state)
        back = decode(msg, state.seed)
        assert back == state
        assert encoded(back).SerializeToString(deterministic=True) == msg.SerializeToString(
            deterministic=True
        )
        successor = referee_pb2.GameState()
        successor.CopyFrom(msg)
        CODEC.encode_successor(states[0], state, successor)
        assert successor == msg
        for viewer in (Viewer.of_seat(0), PUBLIC_VIEWER):
            view = referee_pb2.GameView()
            CODEC.encode_view(RULES.view(state, viewer), view)
            assert view.ecarte.phase == int(state.phase)
    for state, action in zip(states, actions, strict=False):
        out = referee_pb2.Action()
        CODEC.encode_action(action, out)
        back_action = CODEC.decode_action(out, state, "action")
        assert back_action == action._replace(amount_max=0)
    for step in events:
        box = referee_pb2.GameView()
        CODEC.encode_events(step, box.events)
        kinds |= {e.ecarte.WhichOneof("kind") for e in box.events}
    assert {"dealt", "card_played", "trick_won", "deal_scored", "points_scored"} <= kinds


def test_every_event_kind_encodes() -> None:
    """Across the configurations every event type is produced and encoded."""
    kinds: set[str] = set()
    for config in CONFIGS:
        for r in range(6):
            _, _, events = playout(config, bytes([r]) * 32, random.Random(r))
            for step in events:
                box = referee_pb2.GameView()
                CODEC.encode_events(step, box.events)
                kinds |= {e.ecarte.WhichOneof("kind") for e in box.events}
    assert kinds == {f.name for f in epb.EcarteEvent.DESCRIPTOR.oneofs_by_name["kind"].fields}


def test_config_zero_values_are_the_defaults() -> None:
    config = CODEC.decode_config(referee_pb2.GameConfig(ecarte=epb.EcarteConfig()), "config")
    assert config == EcarteConfig()
    unknown = epb.EcarteConfig(target_points=100, packets=7)  # type: ignore[arg-type]
    bad = referee_pb2.GameConfig(ecarte=unknown)
    assert fields_of(lambda: CODEC.decode_config(bad, "config")) == ["config.ecarte.packets"]
    bad = referee_pb2.GameConfig(ecarte=epb.EcarteConfig(target_points=100))
    assert fields_of(lambda: CODEC.decode_config(bad, "config")) == ["config.ecarte.target_points"]


def _state_msg() -> tuple[referee_pb2.GameState, bytes]:
    state, _ = RULES.new_game(EcarteConfig(first_dealer=0), bytes(range(32)))
    return encoded(state), state.seed


@pytest.mark.parametrize(
    ("change", "field"),
    [
        # 2C (code 1) is no card of the Écarté pack; bit 60 is no card at all.
        (lambda s: s.seats[0].__setattr__("hand", s.seats[0].hand | 1 << 1), "seats[0].hand"),
        (lambda s: s.seats[1].__setattr__("hand", s.seats[1].hand | 1 << 60), "seats[1].hand"),
        (lambda s: s.seats[1].__setattr__("discards", 1 << 1), "seats[1].discards"),
        (lambda s: s.__setattr__("turn_up", 1), "turn_up"),
        (lambda s: s.__setattr__("turn_up", 99), "turn_up"),
        (lambda s: s.__setattr__("phase", 0), "phase"),
        (lambda s: s.__setattr__("trump", 0), "trump"),
        (lambda s: s.__setattr__("stock", s.stock[:1] + s.stock[:1] + s.stock[2:]), "stock"),
        (lambda s: s.seats.pop(), "seats"),
        (lambda s: s.__setattr__("turn", 5), "turn"),
        (lambda s: s.__setattr__("king_announced", 0), "king_announced"),
        (lambda s: s.config.__setattr__("wager_limit", 2_000_000), "config.wager_limit"),
        (lambda s: s.wagers.add(spectator="", seat=0, amount=1), "wagers[0].spectator"),
        (lambda s: s.seats[0].__setattr__("points", 9), "seats[0].points"),
    ],
)
def test_impossible_states_name_the_proto_field(change: object, field: str) -> None:
    """Field-level checks of the codec and the rules' validation both report paths
    relative to the request: ``state.ecarte.<field>``."""
    msg, seed = _state_msg()
    change(msg.ecarte)  # type: ignore[operator]
    got = fields_of(lambda: decode(msg, seed))
    assert f"state.ecarte.{field}" in got, got


ACE_OF_CLUBS = cards_pb2.Card(suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_ACE)
TWO_OF_CLUBS = cards_pb2.Card(suit=cards_pb2.SUIT_CLUBS, rank=cards_pb2.RANK_TWO)


def _action(**kw: object) -> referee_pb2.Action:
    return referee_pb2.Action(**kw)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("action", "field"),
    [
        (_action(ecarte=epb.EcarteAction(propose=epb.EcartePropose())), "action.actor"),
        (
            _action(
                actor=common_pb2.Actor(table=common_pb2.TableActor()),
                ecarte=epb.EcarteAction(propose=epb.EcartePropose()),
            ),
            "action.actor",
        ),
        (
            _action(
                actor=common_pb2.Actor(seat=2), ecarte=epb.EcarteAction(propose=epb.EcartePropose())
            ),
            "action.actor.seat",
        ),
        (_action(actor=common_pb2.Actor(seat=1), ecarte=epb.EcarteAction()), "action.ecarte"),
        (
            _action(actor=common_pb2.Actor(seat=1), ecarte=epb.EcarteAction(play=epb.EcartePlay())),
            "action.ecarte.play.card",
        ),
        (
            _action(
                actor=common_pb2.Actor(seat=1),
                ecarte=epb.EcarteAction(play=epb.EcartePlay(card=TWO_OF_CLUBS)),
            ),
            "action.ecarte.play.card",
        ),
        (
            _action(
                actor=common_pb2.Actor(seat=1),
                ecarte=epb.EcarteAction(
                    discard=epb.EcarteDiscard(cards=[ACE_OF_CLUBS, ACE_OF_CLUBS])
                ),
            ),
            "action.ecarte.discard.cards[1]",
        ),
        (
            _action(
                actor=common_pb2.Actor(spectator="ann"),
                ecarte=epb.EcarteAction(wager=epb.EcartePlaceWager(seat=3, amount=1)),
            ),
            "action.ecarte.wager.seat",
        ),
        (
            _action(
                actor=common_pb2.Actor(spectator=""),
                ecarte=epb.EcarteAction(wager=epb.EcartePlaceWager(seat=0, amount=1)),
            ),
            "action.actor",
        ),
    ],
)
def test_malformed_actions_name_the_proto_field(action: referee_pb2.Action, field: str) -> None:
    msg, seed = _state_msg()
    state = decode(msg, seed)
    got = fields_of(lambda: CODEC.decode_action(action, state, "action"))
    assert any(f.startswith(field) for f in got), got


def test_wager_ranges_are_listed_with_their_maximum() -> None:
    config = EcarteConfig(gallery=True, wager_limit=40)
    state, _ = RULES.new_game(config, bytes(32))
    (first, *_) = RULES.legal_actions(state, Actor.of_spectator("ann"))
    out = referee_pb2.Action()
    CODEC.encode_action(first, out)
    assert out.actor.spectator == "ann"
    assert (out.ecarte.wager.amount, out.ecarte.wager.amount_max) == (1, 40)
    assert CODEC.decode_action(out, state, "action").kind is ActionKind.WAGER


SUITS = ("SUIT_CLUBS", "SUIT_DIAMONDS", "SUIT_HEARTS", "SUIT_SPADES")


def _codes(cards: object) -> tuple[int, ...]:
    from referee.codec.common import card_code

    return tuple(card_code(c, "card") for c in cards)  # type: ignore[attr-defined]


@pytest.mark.parametrize("config", CONFIGS)
def test_the_view_message_says_what_the_view_says(config: EcarteConfig) -> None:
    """Every field of an encoded view, read back by hand, against the rules' view: for
    each seat, the public and a spectator, along random matches. The trump is the
    turned-up card's suit (E-DEAL-3), by its protobuf name."""
    rng = random.Random(3)
    states, _, _ = playout(config, bytes(range(32)), rng)
    viewers = [*(Viewer.of_seat(s) for s in range(config.seats)), PUBLIC_VIEWER]
    viewers.append(Viewer.of_spectator("ann"))
    for state in states[:: max(1, len(states) // 40)]:
        for viewer in viewers:
            view = RULES.view(state, viewer)
            out = referee_pb2.GameView()
            CODEC.encode_view(view, out)
            v = out.ecarte
            assert (v.phase, v.deal, v.game, v.dealer) == (
                view.phase,
                view.deal,
                view.game,
                view.dealer,
            )
            assert (v.elder, v.responder, v.turn) == (view.elder, view.responder, view.turn)
            assert _codes([v.turn_up]) == (view.turn_up,)
            assert cards_pb2.Suit.Name(v.trump) == SUITS[view.trump]
            assert v.trump == v.turn_up.suit
            assert v.stock_count == view.stock_count
            assert len(v.seats) == len(view.seats)
            for sv, seat in zip(v.seats, view.seats, strict=True):
                assert (sv.seat, sv.card_count, sv.discard_count, sv.sits_out) == (
                    seat.seat,
                    seat.card_count,
                    seat.discard_count,
                    seat.sits_out,
                )
                assert (sv.tricks_won, sv.points, sv.games_won, sv.chips) == (
                    seat.tricks_won,
                    seat.points,
                    seat.games_won,
                    seat.chips,
                )
                assert sv.hand_visible == (seat.hand is not None)
                assert _codes(sv.hand) == (seat.hand or ())
                assert _codes(sv.discards) == (seat.discards or ())
            assert [(t.leader, _codes(t.cards)) for t in v.tricks] == [
                (t.leader, t.cards) for t in view.tricks
            ]
            assert [t.winner if t.HasField("winner") else -1 for t in v.tricks] == [
                t.winner for t in view.tricks
            ]
            announced = v.king_announced if v.HasField("king_announced") else -1
            assert announced == view.king_announced
            assert v.original_hands == view.original_hands
            assert [(w.spectator, w.seat, w.amount) for w in v.wagers] == [
                (w.spectator, w.seat, w.amount) for w in view.wagers
            ]
            assert [(x.spectator, x.net) for x in v.spectators] == [
                (x.spectator, x.net) for x in view.spectators
            ]
            assert (v.winner if v.HasField("winner") else -1) == view.winner


def _both_readings(msg: referee_pb2.GameState, seed: bytes) -> list[list[str]]:
    """The fields each way of reading a state refuses (from its bytes, as compiled; from
    the message's attributes, as interpreted)."""
    data = msg.SerializeToString(deterministic=True)
    return [
        fields_of(lambda: CODEC._read_state(data, seed, "state.ecarte")),
        fields_of(lambda: CODEC._read_message(msg.ecarte, seed, "state.ecarte")),
    ]


@pytest.mark.parametrize(
    ("field", "value"),
    [("phase", 0), ("phase", 7), ("trump", 0), ("trump", 5), ("phase", -1), ("trump", -1)],
)
def test_enum_values_past_either_end_are_refused(field: str, value: int) -> None:
    msg, seed = _state_msg()
    setattr(msg.ecarte, field, value)
    assert _both_readings(msg, seed) == [[f"state.ecarte.{field}"]] * 2


def test_the_last_phase_and_suit_are_read() -> None:
    msg, seed = _state_msg()
    msg.ecarte.phase = max(epb.EcartePhase.values())  # type: ignore[assignment]
    msg.ecarte.trump = cards_pb2.SUIT_SPADES
    data = msg.SerializeToString(deterministic=True)
    for read in (
        lambda: CODEC._read_state(data, seed, "state.ecarte"),
        lambda: CODEC._read_message(msg.ecarte, seed, "state.ecarte"),
    ):
        state = read()
        assert state.phase == 6 and state.trump == 3


def test_packets_past_the_last_choice_are_refused() -> None:
    last = max(epb.EcartePackets.values())
    config = referee_pb2.GameConfig(ecarte=epb.EcarteConfig(packets=last))  # type: ignore[arg-type]
    assert CODEC.decode_config(config, "config").packets == last
    past = referee_pb2.GameConfig(ecarte=epb.EcarteConfig(packets=last + 1))  # type: ignore[arg-type]
    assert fields_of(lambda: CODEC.decode_config(past, "config")) == ["config.ecarte.packets"]


@pytest.mark.parametrize("remembered", [False, True])
def test_the_seat_just_past_the_table_is_refused(remembered: bool) -> None:
    """Seat n of an n-seat table, as the actor or a wager's seat; decoded afresh, and
    remembered from a 3-seat table (where it is a seat)."""
    from referee.codec.ecarte import EcarteCodec

    codec = EcarteCodec()
    two, _ = RULES.new_game(EcarteConfig(gallery=True), bytes(32))
    three, _ = RULES.new_game(EcarteConfig(seats=3, gallery=True), bytes(32))
    actor = _action(
        actor=common_pb2.Actor(seat=2), ecarte=epb.EcarteAction(propose=epb.EcartePropose())
    )
    wager = _action(
        actor=common_pb2.Actor(spectator="ann"),
        ecarte=epb.EcarteAction(wager=epb.EcartePlaceWager(seat=2, amount=1)),
    )
    for action, field in ((actor, "action.actor.seat"), (wager, "action.ecarte.wager.seat")):
        if remembered:
            codec.decode_action(action, three, "action")
        assert fields_of(lambda a=action: codec.decode_action(a, two, "action")) == [field]
    ok = _action(
        actor=common_pb2.Actor(spectator="ann"),
        ecarte=epb.EcarteAction(wager=epb.EcartePlaceWager(seat=1, amount=1)),
    )
    assert codec.decode_action(ok, two, "action").seat == 1


def _read_both(msg: referee_pb2.GameState, seed: bytes, data: bytes | None = None) -> list[object]:
    """The unchecked state each way of reading makes of ``msg`` (the bytes: ``data`` if
    given, else ``msg``'s own)."""
    if data is None:
        data = msg.SerializeToString(deterministic=True)
    return [
        CODEC._read_state(data, seed, "state.ecarte"),
        CODEC._read_message(msg.ecarte, seed, "state.ecarte"),
    ]


def _gallery_msg() -> tuple[referee_pb2.GameState, bytes]:
    state, _ = RULES.new_game(EcarteConfig(gallery=True), bytes(range(32)))
    return encoded(state), state.seed


def test_wagers_and_nets_of_zero_are_read_both_ways() -> None:
    """Zero is not on the wire (proto3): a wager on seat 0 or of 0, a net of 0."""
    msg, seed = _gallery_msg()
    msg.ecarte.wagers.add(spectator="ann", seat=0, amount=1)
    msg.ecarte.wagers.add(spectator="bob", seat=1, amount=4)
    msg.ecarte.wagers.add(spectator="cy", seat=1, amount=0)
    msg.ecarte.spectators.add(spectator="ann", net=0)
    msg.ecarte.spectators.add(spectator="bob", net=-3)
    from_bytes, from_message = _read_both(msg, seed)
    assert from_bytes == from_message
    assert [(w.spectator, w.seat, w.amount) for w in from_bytes.wagers] == [  # type: ignore[attr-defined]
        ("ann", 0, 1),
        ("bob", 1, 4),
        ("cy", 1, 0),
    ]
    assert [(x.spectator, x.net) for x in from_bytes.ledger] == [("ann", 0), ("bob", -3)]  # type: ignore[attr-defined]


def test_unknown_fields_inside_wagers_and_nets_are_skipped() -> None:
    """Entries from a newer producer: an unknown field of each wire type is skipped."""
    msg, seed = _gallery_msg()
    extra = b"\xb8\x06\x07" + b"\xc1\x06" + bytes(8) + b"\xca\x06\x01z" + b"\xd5\x06" + bytes(4)
    wager = epb.EcarteWager(spectator="ann", seat=1, amount=2)
    net = epb.EcarteSpectatorNet(spectator="ann", net=5)
    inner = msg.ecarte.SerializeToString(deterministic=True)
    for number, entry in ((12, wager), (13, net)):
        body = extra + entry.SerializeToString() + extra
        inner += bytes([number << 3 | 2, len(body)]) + body
    envelope = referee_pb2.GameState()
    envelope.CopyFrom(msg)
    envelope.ClearField("ecarte")
    data = envelope.SerializeToString(deterministic=True)
    data += bytes([referee_pb2.GameState.DESCRIPTOR.fields_by_name["ecarte"].number << 3 | 2])
    data += bytes([len(inner) & 0x7F | 0x80, len(inner) >> 7]) + inner
    msg.ecarte.wagers.append(wager)
    msg.ecarte.spectators.append(net)
    from_bytes, from_message = _read_both(msg, seed, data)
    assert from_bytes == from_message
    assert len(from_bytes.wagers) == 1 and from_bytes.ledger[0].net == 5  # type: ignore[attr-defined]


@pytest.mark.parametrize("field", ["stock", "tricks"])
@pytest.mark.parametrize(
    ("cards", "says"),
    [
        (bytes([0, 1]), "byte 1: card code 1 is not a card of the pack"),  # the two of clubs
        (bytes([0, 60]), "byte 1: card code 60 is not a card of the pack"),
        (bytes([6, 0, 6]), "appears twice"),
    ],
)
def test_card_lists_hold_each_card_of_the_pack_once(field: str, cards: bytes, says: str) -> None:
    """Checked as the codec reads them, both ways, before the rules' validation."""
    msg, seed = _state_msg()
    setattr(msg.ecarte, field, cards)
    data = msg.SerializeToString(deterministic=True)
    for read in (
        lambda: CODEC._read_state(data, seed, "state.ecarte"),
        lambda: CODEC._read_message(msg.ecarte, seed, "state.ecarte"),
    ):
        with pytest.raises(InvalidInput) as caught:
            read()
        ((where, description),) = [(v.field, v.description) for v in caught.value.violations]
        assert where == f"state.ecarte.{field}" and says in description
