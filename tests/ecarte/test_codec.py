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
