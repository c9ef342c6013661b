"""Property tests on random states: whole random matches of random variant
combinations, ``legal_actions`` as the single source of truth, illegal actions
leave the state alone, and views hide exactly what they should."""

from __future__ import annotations

import random
from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import ECARTE_DECK, card_list
from referee.codec.ecarte import CODEC
from referee.games.base import PUBLIC_VIEWER, Actor, Verdict, Viewer
from referee.games.ecarte import RULES
from referee.games.ecarte.state import (
    ROLES,
    ActionKind,
    EcarteAction,
    EcarteConfig,
    EcarteEvent,
    EcarteState,
    Packets,
    Phase,
    TrickWon,
)
from referee.games.ecarte.validation import validate
from referee.v1 import referee_pb2
from tests.ecarte.helpers import key, listed

PROPERTY = settings(max_examples=40)  # derandomized by the project profile (tests/conftest.py)
SPECTATORS = ("ann", "bob")

configs = st.builds(
    EcarteConfig,
    seats=st.sampled_from([2, 3]),
    first_dealer=st.one_of(st.none(), st.integers(0, 1)),
    packets=st.sampled_from(list(Packets)),
    target_points=st.integers(1, 7),
    games_to_win=st.integers(1, 3),
    stake=st.sampled_from([0, 1, 7]),
    vole_multiplier=st.integers(1, 4),
    king_multiplier=st.integers(1, 4),
    gallery=st.booleans(),
    wager_limit=st.integers(1, 100),
    jeux_de_regle=st.booleans(),
)
seeds = st.binary(min_size=32, max_size=32)


def next_action(state: EcarteState, rng: random.Random) -> EcarteAction | None:
    """A random legal action: mostly a seat's, sometimes a spectator's wager."""
    if state.config.gallery and rng.random() < 0.1:
        spectator = Actor.of_spectator(rng.choice(SPECTATORS))
        wagers = RULES.legal_actions(state, spectator)
        if wagers:
            w = rng.choice(wagers)
            return w._replace(amount=rng.randint(w.amount, w.amount_max), amount_max=0)
    legal = RULES.legal_actions(state, None)
    return rng.choice(legal) if legal else None


def playout(
    config: EcarteConfig, seed: bytes, rng: random.Random, limit: int = 20_000
) -> tuple[list[EcarteState], list[EcarteAction], list[list[EcarteEvent]]]:
    state, events = RULES.new_game(config, seed)
    states, actions, all_events = [state], [], [events]
    for _ in range(limit):
        action = next_action(state, rng)
        if action is None:
            break
        out = RULES.apply(state, action)
        assert out.verdict is Verdict.ACCEPTED, (action, out.violations)
        state = out.state
        states.append(state)
        actions.append(action)
        all_events.append(out.events)
    return states, actions, all_events


@PROPERTY
@given(configs, seeds, st.integers(0, 2**32))
def test_random_matches_keep_every_card_once_terminate_and_are_deterministic(
    config: EcarteConfig, seed: bytes, rng_seed: int
) -> None:
    """E-DECK-1, E-END-2, E-END-3: a random match keeps all 32 cards exactly once in
    every state (full validation, the seed's deal included), ends, and is a pure
    function of its seed and actions."""
    states, actions, events = playout(config, seed, random.Random(rng_seed))
    final = states[-1]
    assert final.phase is Phase.MATCH_OVER, "the match must end"
    assert max(final.games_won) == config.games_to_win
    assert RULES.legal_actions(final, None) == []
    for s in states:
        validate(s)
    assert sum(final.chips) == 0
    # Determinism: replaying the actions on a fresh game gives the same states/events.
    state, first = RULES.new_game(config, seed)
    assert first == events[0]
    for action, expected_state, expected_events in zip(
        actions, states[1:], events[1:], strict=True
    ):
        out = RULES.apply(state, action)
        assert out.events == expected_events
        state = out.state
        assert state == expected_state


# E-DECK-2, written out here rather than taken from the rules: K Q J A 10 9 8 7.
ORDER = ["7", "8", "9", "10", "A", "J", "Q", "K"]


def beats(card: int, led: int, trump: int) -> bool:
    """E-PLAY-7: the second card wins with a higher card of the suit led, or a trump."""
    suit, led_suit = card // 13, led // 13
    if suit == led_suit:
        return ORDER.index(_rank(card)) > ORDER.index(_rank(led))
    return suit == trump


def _rank(card: int) -> str:
    return ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"][card % 13]


@PROPERTY
@given(configs, seeds, st.integers(0, 2**32))
def test_every_trick_won_event_tells_its_trick(
    config: EcarteConfig, seed: bytes, rng_seed: int
) -> None:
    """E-PLAY-1, E-PLAY-7: each TrickWon event names the trick's number, its two cards,
    its leader and its winner (checked against the order of E-DECK-2 written out here),
    and the winner leads next."""
    states, actions, events = playout(config, seed, random.Random(rng_seed))
    seen = 0
    for before, action, after, step in zip(states, actions, states[1:], events[1:], strict=False):
        won = [e for e in step if isinstance(e, TrickWon)]
        if action.kind is not ActionKind.PLAY or not len(before.tricks) & 1:
            assert not won
            continue
        (e,) = won
        led = before.tricks[-1]
        leader = next(x for x in ROLES[config.seats][before.dealer] if x != action.actor.seat)
        assert e.trick == len(before.tricks) // 2
        assert e.cards == (led, action.card)
        assert e.leader == leader
        trump = before.trump
        assert e.seat == (action.actor.seat if beats(action.card, led, trump) else leader)
        if after.deal == before.deal and after.phase is Phase.TRICKS:
            assert after.turn == e.seat  # E-PLAY-1
        seen += 1
    if config.target_points >= 3:  # kings alone (E-DEAL-4, E-KING-1) score 2 at most
        assert seen >= 5  # so at least one deal's tricks were played


def candidates(state: EcarteState, rng: random.Random) -> list[EcarteAction]:
    """Many actions, legal and illegal, of every kind and every actor."""
    n = state.config.seats
    out: list[EcarteAction] = []
    for s in range(n):
        a = Actor.of_seat(s)
        for kind in (
            ActionKind.PROPOSE,
            ActionKind.ACCEPT,
            ActionKind.REFUSE,
            ActionKind.ANNOUNCE_KING,
        ):
            out.append(EcarteAction(a, kind))
        out += [EcarteAction(a, ActionKind.PLAY, c) for c in ECARTE_DECK]
        hand = card_list(state.hands[s])
        out += [
            EcarteAction(a, ActionKind.DISCARD, cards=combo)
            for k in range(0, len(hand) + 1)
            for combo in combinations(hand, k)
        ]
        for _ in range(5):
            out.append(
                EcarteAction(
                    a, ActionKind.DISCARD, cards=tuple(rng.sample(ECARTE_DECK, rng.randint(1, 6)))
                )
            )
        out.append(EcarteAction(a, ActionKind.WAGER, seat=0, amount=1))
    for name in SPECTATORS:
        a = Actor.of_spectator(name)
        limit = state.config.wager_limit
        for s in range(n):
            for amount in (0, 1, limit, limit + 1, rng.randint(1, limit)):
                out.append(EcarteAction(a, ActionKind.WAGER, seat=s, amount=amount))
        out.append(EcarteAction(a, ActionKind.PLAY, ECARTE_DECK[0]))
    return out


@PROPERTY
@given(configs, seeds, st.integers(0, 2**32))
def test_legal_actions_is_the_single_source_of_truth(
    config: EcarteConfig, seed: bytes, rng_seed: int
) -> None:
    """apply accepts exactly what legal_actions lists (wagers by their amount range);
    a rejected action returns the input state untouched; no action mutates its input;
    legal_actions(None) lists every seat's actions."""
    rng = random.Random(rng_seed)
    states, _, _ = playout(config, seed, rng)
    for state in rng.sample(states, min(8, len(states))):
        every = {
            key(a)
            for s in range(config.seats)
            for a in RULES.legal_actions(state, Actor.of_seat(s))
        }
        assert {key(a) for a in RULES.legal_actions(state, None)} == every
        snapshot = repr(state)  # every field, nested values included
        for action in candidates(state, rng):
            out = RULES.apply(state, action)
            assert (out.verdict is Verdict.ACCEPTED) == listed(state, action), action
            if out.verdict is Verdict.REJECTED:
                assert out.state is state and out.events == [] and out.violations
            else:
                assert not out.violations and out.events
            assert repr(state) == snapshot, "apply mutated its input"


def encoded_view(state: EcarteState, viewer: Viewer) -> bytes:
    """The view as the service sends it (the Écarté part of a GameView), serialized."""
    out = referee_pb2.GameView()
    CODEC.encode_view(RULES.view(state, viewer), out)
    return out.SerializeToString(deterministic=True)


def twin(state: EcarteState, viewer_seat: int, rng: random.Random) -> EcarteState:
    """``state`` with every card ``viewer_seat`` cannot see dealt differently (the
    other hands, their discards, the stock), all counts kept."""
    n = state.config.seats
    hidden = [s for s in range(n) if s != viewer_seat]
    pool = [x for s in hidden for x in card_list(state.hands[s] | state.discards[s])]
    pool += list(state.stock)
    rng.shuffle(pool)
    hands, discards = list(state.hands), list(state.discards)
    i = 0
    for s in hidden:
        k = state.hands[s].bit_count()
        hands[s] = sum(1 << x for x in pool[i : i + k])
        i += k
        k = state.discards[s].bit_count()
        discards[s] = sum(1 << x for x in pool[i : i + k])
        i += k
    stock = bytes(pool[i:])
    out = state.clone()
    out.hands, out.discards, out.stock = tuple(hands), tuple(discards), stock
    return out


@PROPERTY
@given(configs, seeds, st.integers(0, 2**32))
def test_views_and_events_hide_what_the_viewer_cannot_see(
    config: EcarteConfig, seed: bytes, rng_seed: int
) -> None:
    """E-EXCH-8, E-VAR-4: two states that differ only in cards a viewer cannot see
    give that viewer identical views, and identical redacted events for an
    opponent's exchange of the same size; spectators and the public see no card a
    seat holds, has discarded or may draw."""
    rng = random.Random(rng_seed)
    states, _, _ = playout(config, seed, rng)
    for state in rng.sample(states, min(10, len(states))):
        for v in range(config.seats):
            other = twin(state, v, rng)
            assert RULES.view(state, Viewer.of_seat(v)) == RULES.view(other, Viewer.of_seat(v))
            assert encoded_view(state, Viewer.of_seat(v)) == encoded_view(other, Viewer.of_seat(v))
        nobody = twin(state, -1, rng)
        for viewer in (PUBLIC_VIEWER, Viewer.of_spectator("ann")):
            assert RULES.view(state, viewer) == RULES.view(nobody, viewer)
            assert encoded_view(state, viewer) == encoded_view(nobody, viewer)
        if state.phase in (Phase.ELDER_DISCARD, Phase.RESPONDER_DISCARD):
            actor = state.turn
            e, r = ROLES[config.seats][state.dealer]
            watcher = r if actor == e else e
            other = twin(state, watcher, rng)
            k = rng.randint(1, max(len(x.cards) for x in RULES.legal_actions(state, None)))
            a = next(x for x in RULES.legal_actions(state, None) if len(x.cards) == k)
            b = next(x for x in RULES.legal_actions(other, None) if len(x.cards) == k)
            out_a, out_b = RULES.apply(state, a), RULES.apply(other, b)
            assert out_a.verdict is out_b.verdict is Verdict.ACCEPTED
            for viewer in (Viewer.of_seat(watcher), PUBLIC_VIEWER):
                ra = RULES.redact_events(out_a.state, out_a.events, viewer)
                rb = RULES.redact_events(out_b.state, out_b.events, viewer)
                assert ra == rb
                box_a, box_b = referee_pb2.GameView(), referee_pb2.GameView()
                CODEC.encode_events(ra, box_a.events)
                CODEC.encode_events(rb, box_b.events)
                assert box_a.SerializeToString(deterministic=True) == box_b.SerializeToString(
                    deterministic=True
                )
                assert RULES.view(out_a.state, viewer) == RULES.view(out_b.state, viewer)
