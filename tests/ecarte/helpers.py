"""Helpers for the Écarté tests: hand-built states, actions, seeds and playouts."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable

from referee.cards import ECARTE_DECK, card_list, parse
from referee.games.base import Actor, Outcome, Verdict
from referee.games.ecarte import RULES
from referee.games.ecarte.state import (
    NO_SEAT,
    ROLES,
    ActionKind,
    EcarteAction,
    EcarteConfig,
    EcarteEvent,
    EcarteState,
    Phase,
    SpectatorNet,
    Wager,
)
from referee.games.ecarte.validation import validate
from referee.games.ecarte.views import tricks_of
from referee.shuffle import shuffle

SEED = bytes(32)


def c(text: str) -> int:
    """One card in rulebook notation: ``c("KS")``."""
    return parse(text)


def cards(text: str) -> list[int]:
    """Cards in rulebook notation separated by spaces: ``cards("KS QS 7H")``."""
    return [parse(t) for t in text.split()]


def mask(text: str) -> int:
    m = 0
    for x in cards(text):
        m |= 1 << x
    return m


def names(ms: int | Iterable[int]) -> str:
    from referee.cards import name

    it = card_list(ms) if isinstance(ms, int) else list(ms)
    return " ".join(name(x) for x in it)


def build(
    elder: str,
    responder: str,
    turn_up: str,
    *,
    config: EcarteConfig | None = None,
    dealer: int = 0,
    phase: Phase = Phase.PROPOSAL,
    turn: int | None = None,
    stock: str | None = None,
    discards: dict[int, str] | None = None,
    tricks: str = "",
    points: tuple[int, ...] | None = None,
    games_won: tuple[int, ...] | None = None,
    chips: tuple[int, ...] | None = None,
    king_announced: int = NO_SEAT,
    deal: int = 0,
    wagers: tuple[Wager, ...] = (),
    ledger: tuple[SpectatorNet, ...] = (),
    check: bool = True,
) -> EcarteState:
    """A hand-built state. ``elder`` and ``responder`` are the current hands; the
    stock defaults to every card not placed elsewhere, in canonical order; the
    tricks won and (unless given) the seat on turn follow from the tricks.
    With ``check`` the state must pass ``validate`` (the seed's deal aside)."""
    cfg = config or EcarteConfig()
    n = cfg.seats
    e, r = ROLES[n][dealer]
    hands = [0] * n
    hands[e] = mask(elder)
    hands[r] = mask(responder)
    disc = [0] * n
    for s, text in (discards or {}).items():
        disc[s] = mask(text)
    played = bytes(cards(tricks))
    up = c(turn_up)
    used = sum(hands) | sum(disc) | (1 << up)
    for x in played:
        used |= 1 << x
    if stock is None:
        stock_bytes = bytes(x for x in ECARTE_DECK if not used >> x & 1)
    else:
        stock_bytes = bytes(cards(stock))
    zeros = (0,) * n
    state = EcarteState(
        config=cfg,
        seed=SEED,
        phase=phase,
        deal=deal,
        dealer=dealer,
        turn=0,
        hands=tuple(hands),
        discards=tuple(disc),
        tricks_won=zeros,
        points=points or zeros,
        games_won=games_won or zeros,
        chips=chips or zeros,
        turn_up=up,
        trump=up // 13,
        stock=stock_bytes,
        tricks=played,
        king_announced=king_announced,
        wagers=wagers,
        ledger=ledger,
    )
    won = [0] * n
    tv = tricks_of(state)
    for t in tv:
        if t.winner >= 0:
            won[t.winner] += 1
    state.tricks_won = tuple(won)
    if turn is None:
        if phase in (Phase.PROPOSAL, Phase.ELDER_DISCARD):
            turn = e
        elif phase in (Phase.ANSWER, Phase.RESPONDER_DISCARD):
            turn = r
        elif not tv:
            turn = e
        elif tv[-1].winner < 0:
            turn = r if tv[-1].leader == e else e
        else:
            turn = tv[-1].winner
    state.turn = turn
    if check:
        validate(state, check_deal=False)
    return state


def seat(s: int) -> Actor:
    return Actor.of_seat(s)


def propose(s: int) -> EcarteAction:
    return EcarteAction(seat(s), ActionKind.PROPOSE)


def accept(s: int) -> EcarteAction:
    return EcarteAction(seat(s), ActionKind.ACCEPT)


def refuse(s: int) -> EcarteAction:
    return EcarteAction(seat(s), ActionKind.REFUSE)


def announce(s: int) -> EcarteAction:
    return EcarteAction(seat(s), ActionKind.ANNOUNCE_KING)


def play(s: int, card: str) -> EcarteAction:
    return EcarteAction(seat(s), ActionKind.PLAY, c(card))


def discard(s: int, text: str) -> EcarteAction:
    return EcarteAction(seat(s), ActionKind.DISCARD, cards=tuple(cards(text)))


def wager(spectator: str, on: int, amount: int) -> EcarteAction:
    return EcarteAction(Actor.of_spectator(spectator), ActionKind.WAGER, seat=on, amount=amount)


def ok(state: EcarteState, action: EcarteAction) -> Outcome[EcarteState, EcarteEvent]:
    """Apply an action that must be accepted, and listed by ``legal_actions``."""
    assert listed(state, action), action
    out = RULES.apply(state, action)
    assert out.verdict is Verdict.ACCEPTED, out.violations
    return out


def rejected(state: EcarteState, action: EcarteAction) -> list[str]:
    """Apply an action that must be rejected; returns its violation codes. Checks that
    the state is returned unchanged and that ``legal_actions`` does not list it."""
    assert not listed(state, action), action
    out = RULES.apply(state, action)
    assert out.verdict is Verdict.REJECTED
    assert out.state is state and not out.events
    assert out.violations
    return [v.code for v in out.violations]


def rule_ids(state: EcarteState, action: EcarteAction) -> list[str]:
    return [v.rule_id for v in RULES.apply(state, action).violations]


def listed(state: EcarteState, action: EcarteAction) -> bool:
    """Does ``legal_actions`` list ``action`` (a discard in any order, a wager by its
    amount range)?"""
    for a in RULES.legal_actions(state, action.actor):
        if a.kind is ActionKind.WAGER and action.kind is ActionKind.WAGER:
            same = a.actor == action.actor and a.seat == action.seat
            if same and a.amount <= action.amount <= a.amount_max:
                return True
        elif key(a) == key(action):
            return True
    return False


def key(a: EcarteAction) -> tuple[object, ...]:
    """An action up to the order of discarded cards and the listed wager range."""
    return (a.actor, a.kind, a.card, frozenset(a.cards), a.seat, a.amount)


def pack(seed: bytes, deal: int) -> list[int]:
    """The pack of deal ``deal`` by the reference shuffle (SHUF, E-DEAL-1)."""
    return shuffle(seed, deal, ECARTE_DECK)


def seed_where(pred: Callable[[bytes], bool], start: int = 0, limit: int = 5000) -> bytes:
    """The first seed ``i.to_bytes(32, "big")`` (``i >= start``) satisfying ``pred``."""
    for i in range(start, start + limit):
        seed = i.to_bytes(32, "big")
        if pred(seed):
            return seed
    raise AssertionError("no seed found")


def is_king(card: int) -> bool:
    return card % 13 == 12


def random_playout(
    config: EcarteConfig, seed: bytes, rng: random.Random, max_steps: int = 100_000
) -> tuple[list[EcarteState], list[EcarteAction], list[list[EcarteEvent]]]:
    """A whole match of random legal actions (seats only). Returns every state, action
    and the events of each step (the first list: the events of new_game)."""
    state, events = RULES.new_game(config, seed)
    states = [state]
    actions: list[EcarteAction] = []
    all_events = [events]
    for _ in range(max_steps):
        legal = RULES.legal_actions(state, None)
        if not legal:
            break
        a = rng.choice(legal)
        out = RULES.apply(state, a)
        assert out.verdict is Verdict.ACCEPTED
        state = out.state
        states.append(state)
        actions.append(a)
        all_events.append(out.events)
    return states, actions, all_events


ORDER_TEXT = "7 8 9 10 A J Q K"
"""E-DECK-2 written out independently of the implementation, lowest first."""


def order_index(card: int) -> int:
    from referee.cards import RANK_LABELS

    return ORDER_TEXT.split().index(RANK_LABELS[card % 13])


def play_out(state: EcarteState) -> tuple[EcarteState, list[EcarteEvent]]:
    """Play the first legal card (canonical order) until the deal ends; returns the state
    after the deal and the events of the last play."""
    deal = state.deal
    events: list[EcarteEvent] = []
    while state.deal == deal and state.phase is not Phase.MATCH_OVER:
        plays = [a for a in RULES.legal_actions(state, None) if a.kind is ActionKind.PLAY]
        out = RULES.apply(state, plays[0])
        assert out.verdict is Verdict.ACCEPTED
        state, events = out.state, out.events
    return state, events
