"""E-TURN, E-PHASE, E-CARD, E-CONF and malformed requests."""

from __future__ import annotations

import pytest

from referee.games.base import TABLE_ACTOR, Actor, ActorKind, InvalidInput, Verdict
from referee.games.ecarte import RULES
from referee.games.ecarte import rules as rules_module
from referee.games.ecarte import violations as V
from referee.games.ecarte.state import (
    ActionKind,
    EcarteAction,
    EcarteConfig,
    Phase,
)
from tests.ecarte.helpers import (
    accept,
    build,
    c,
    discard,
    ok,
    play,
    propose,
    rejected,
    rule_ids,
    seat,
)

ELDER, DEALER = 1, 0
E_HAND, D_HAND = "7D 8D 9D 7H 9S", "QC JC AC 10H KS"


def test_E_TURN_action_by_a_seat_not_on_turn() -> None:
    """E-TURN: only the seat on turn acts (announcing excepted, see E-KING-1)."""
    s = build(E_HAND, D_HAND, "7C")
    assert rejected(s, play(DEALER, "KS")) == [V.NOT_YOUR_TURN]
    assert rule_ids(s, play(DEALER, "KS")) == ["E-TURN"]
    s = ok(s, propose(ELDER)).state
    assert rejected(s, accept(ELDER)) == [V.NOT_YOUR_TURN]
    s = ok(s, accept(DEALER)).state
    assert rejected(s, discard(DEALER, "KS")) == [V.NOT_YOUR_TURN]


def test_E_PHASE_actions_the_phase_does_not_allow() -> None:
    """E-PHASE: a discard outside the exchange, a lead while a proposal awaits its
    answer, a proposal during the tricks, an answer without a proposal."""
    s = build(E_HAND, D_HAND, "7C")
    assert rejected(s, discard(ELDER, "7D")) == [V.WRONG_PHASE]
    assert rule_ids(s, discard(ELDER, "7D")) == ["E-PHASE"]
    assert V.WRONG_PHASE in rejected(s, accept(DEALER))
    waiting = ok(s, propose(ELDER)).state
    assert V.WRONG_PHASE in rejected(waiting, play(ELDER, "7D"))
    tricks = ok(s, play(ELDER, "7D")).state
    assert V.WRONG_PHASE in rejected(tricks, propose(ELDER))
    discarding = build(E_HAND, D_HAND, "7C", phase=Phase.ELDER_DISCARD)
    assert rejected(discarding, play(ELDER, "7D")) == [V.WRONG_PHASE]


def test_E_CARD_playing_or_discarding_a_card_not_held() -> None:
    """E-CARD: a card the actor does not hold cannot be played or discarded."""
    s = build(E_HAND, D_HAND, "7C")
    assert rejected(s, play(ELDER, "KS")) == [V.CARD_NOT_IN_HAND]
    assert rule_ids(s, play(ELDER, "KS")) == ["E-CARD"]
    assert rejected(s, play(ELDER, "7C")) == [V.CARD_NOT_IN_HAND]  # the turn-up
    d = build(E_HAND, D_HAND, "7C", phase=Phase.ELDER_DISCARD)
    assert rejected(d, discard(ELDER, "7D KS")) == [V.CARD_NOT_IN_HAND]
    # The message names the cards not held, and only those.
    (v,) = RULES.apply(d, discard(ELDER, "KS 7D QS")).violations
    assert v.message.endswith("does not hold KS QS"), v.message


def test_E_CARD_together_with_the_turn() -> None:
    """Every broken rule is named: a card not held, played out of turn."""
    s = build(E_HAND, D_HAND, "7C")
    assert sorted(rejected(s, play(DEALER, "7D"))) == [V.CARD_NOT_IN_HAND, V.NOT_YOUR_TURN]


@pytest.mark.parametrize(
    ("config", "field"),
    [
        (EcarteConfig(stake=-1), "stake"),
        (EcarteConfig(stake=1_000_001), "stake"),
        (EcarteConfig(vole_multiplier=0), "vole_multiplier"),
        (EcarteConfig(king_multiplier=0), "king_multiplier"),
        (EcarteConfig(king_multiplier=101), "king_multiplier"),
        (EcarteConfig(wager_limit=0), "wager_limit"),
        (EcarteConfig(wager_limit=1_000_001), "wager_limit"),
        (EcarteConfig(target_points=100), "target_points"),
        (EcarteConfig(games_to_win=0), "games_to_win"),
        (EcarteConfig(seats=4), "seats"),
        (EcarteConfig(first_dealer=-1), "first_dealer"),
    ],
)
def test_E_CONF_configuration_out_of_range_is_an_error(config: EcarteConfig, field: str) -> None:
    """E-CONF: stake >= 0, multipliers >= 1, wager limit 1 .. 1,000,000 (and the ranges
    of E-VAR): out of range is an error of the request, not a verdict."""
    with pytest.raises(InvalidInput) as e:
        RULES.new_game(config, bytes(32))
    assert [v.field for v in e.value.violations] == [field]
    # The upper bounds of stakes and multipliers are the project's decision D-9 (E-CONF
    # gives lower bounds only); the message cites both.
    upper = field in ("stake", "vole_multiplier", "king_multiplier")
    assert ("D-9" in e.value.violations[0].description) is upper


def test_E_CONF_limits_are_inclusive() -> None:
    """E-CONF: the bounds themselves are accepted."""
    RULES.new_game(
        EcarteConfig(stake=0, vole_multiplier=1, king_multiplier=1, wager_limit=1), bytes(32)
    )
    RULES.new_game(EcarteConfig(stake=1_000_000, wager_limit=1_000_000), bytes(32))


def test_malformed_actions_are_request_errors() -> None:
    """A malformed action (no kind, a card twice, a code out of range, an unknown
    actor) is an error of the request, never a verdict."""
    s = build(E_HAND, D_HAND, "7C", phase=Phase.ELDER_DISCARD)
    cases = [
        (
            EcarteAction(seat(ELDER), ActionKind.DISCARD, cards=(c("7D"), c("7D"))),
            "discard.cards[1]",
        ),
        (EcarteAction(seat(ELDER), ActionKind.DISCARD, cards=(52,)), "discard.cards[0]"),
        (EcarteAction(seat(ELDER), ActionKind.PLAY, -1), "play.card"),
        (EcarteAction(seat(ELDER), ActionKind.PLAY, 60), "play.card"),
        (EcarteAction(seat(ELDER), ActionKind.PLAY, 52), "play.card"),
        (EcarteAction(seat(5), ActionKind.PROPOSE), "actor.seat"),
        (EcarteAction(seat(-1), ActionKind.PROPOSE), "actor.seat"),
        (EcarteAction(TABLE_ACTOR, ActionKind.PROPOSE), "actor"),
        (
            EcarteAction(Actor(ActorKind.SPECTATOR, -1, ""), ActionKind.WAGER, seat=0, amount=1),
            "actor.spectator",
        ),
        (
            EcarteAction(Actor.of_spectator("x" * 129), ActionKind.WAGER, seat=0, amount=1),
            "actor.spectator",
        ),
        (EcarteAction(Actor.of_spectator("ann"), ActionKind.WAGER, seat=2, amount=1), "wager.seat"),
    ]
    no_kind = EcarteAction(seat(ELDER), None)  # type: ignore[arg-type]
    if rules_module.__file__ and rules_module.__file__.endswith(".py"):
        cases.append((no_kind, "kind"))
    else:  # compiled (mypyc): the typed attribute refuses None before any rule runs
        with pytest.raises(TypeError):
            RULES.apply(s, no_kind)
    for action, field in cases:
        with pytest.raises(InvalidInput) as e:
            RULES.apply(s, action)
        assert e.value.violations[0].field == field, action
    with pytest.raises(InvalidInput):
        RULES.legal_actions(s, seat(2))


def test_D_15_the_table_has_no_action_and_may_ask() -> None:
    """D-15: an action by the table is malformed (``INVALID_ARGUMENT``), but asked what
    it may do, the table is answered: nothing. A client that asks the
    table and every seat (as the clients do of a server requiring sealed states) works
    for Écarté as for Earl of Coventry."""
    s = build(E_HAND, D_HAND, "7C")
    with pytest.raises(InvalidInput) as e:
        RULES.apply(s, EcarteAction(TABLE_ACTOR, ActionKind.PROPOSE))
    assert e.value.violations[0].field == "actor"
    assert RULES.legal_actions(s, TABLE_ACTOR) == []
    assert RULES.legal_actions(s, seat(s.turn)) != []


def test_rejection_returns_the_very_input_state() -> None:
    """A rejected action returns the input state itself and no events."""
    s = build(E_HAND, D_HAND, "7C")
    out = RULES.apply(s, play(DEALER, "KS"))
    assert out.verdict is Verdict.REJECTED and out.state is s and out.events == []
