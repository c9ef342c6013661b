"""Helpers for the Earl of Coventry tests: readable positions, calls from the rulebook text.

The couplets and rank names here are copied from the rulebook
(``shared/rules/earl-of-coventry.md``, C-CHANT, C-CHANT-1, C-VAR-2), not taken
from the engine, so that a wrong call table in the engine is caught.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from referee.cards import FULL_MASK, card_list, mask_of, parse
from referee.games.base import TABLE_ACTOR, Actor, InvalidInput, Outcome, Verdict
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.calls import CallStyle
from referee.games.earl_of_coventry.state import (
    NO_RANK,
    NO_SEAT,
    ActionKind,
    EarlAction,
    EarlConfig,
    EarlEvent,
    EarlState,
    Phase,
    Scoring,
)

SEED = bytes(range(32))

# C-CHANT (rulebook text): lead, second, third, fourth.
COUPLETS = (
    "There's as good as {rank} can be.",
    "There's a {rank} as good as he.",
    "There's the best of all the three.",
    "And there's the Earl of Coventry.",
)
# C-CHANT-1: the English rank names, ace first.
RANK_WORDS = (
    "Ace",
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
)
# C-VAR-2: the short calls of Snip Snap Snorum for positions 2, 3, 4.
SNIP_CALLS = ("", "Snip!", "Snap!", "Snorum!")

CUSTOM_TEMPLATES = (
    "Hic! a {rank} for me.",
    "Hic! a {rank} for thee.",
    "Hic hic hic, that makes three.",
    "Hiccup, the Earl of Coventry!",
)

T = TypeVar("T")


def rank(label: str) -> int:
    """Rank index of a rank label (``"A"``, ``"10"``, ``"K"``)."""
    return parse(label + "C") % 13


def card(text: str) -> int:
    return parse(text)


def mask(text: str) -> int:
    """A hand mask from readable cards: ``"AC 2C 10H"``."""
    return mask_of(parse(t) for t in text.split())


def seat(s: int) -> Actor:
    return Actor.of_seat(s)


TABLE = TABLE_ACTOR


def call_for(config: EarlConfig, rank_index: int, position: int) -> str:
    """The call the rulebook asks for, in this configuration (independent of the engine)."""
    if config.call_style is CallStyle.SILENT:
        return ""
    if config.call_style is CallStyle.SNIP_SNAP_SNORUM:
        return SNIP_CALLS[position - 1]
    templates = COUPLETS if config.call_style is CallStyle.EARL else config.couplet_templates
    return templates[position - 1].replace("{rank}", RANK_WORDS[rank_index])


def couplet(rank_label: str, position: int) -> str:
    """The default couplet (C-CHANT) for a rank label and a run position."""
    return COUPLETS[position - 1].replace("{rank}", RANK_WORDS[rank(rank_label)])


def play(s: int, card_text: str, call: str) -> EarlAction:
    return EarlAction(seat(s), ActionKind.PLAY, parse(card_text), call)


def pass_(s: int) -> EarlAction:
    return EarlAction(seat(s), ActionKind.PASS)


NEXT_ROUND = EarlAction(TABLE, ActionKind.NEXT_ROUND)
END_SESSION = EarlAction(TABLE, ActionKind.END_SESSION)


def make_state(
    hands: Sequence[str],
    *,
    config: EarlConfig | None = None,
    run: str = "",
    turn: int | None = None,
    last_player: int | None = None,
    dealer: int | None = None,
    counters: Sequence[int] | None = None,
    pool: int = 0,
    round: int | None = None,
    rounds_won: Sequence[int] | None = None,
    eliminated: Iterable[int] = (),
    dealt_in: Iterable[int] | None = None,
    tiebreak: bool = False,
    phase: Phase = Phase.PLAYING,
    round_winner: int = NO_SEAT,
    winners: tuple[int, ...] = (),
    seed: bytes = SEED,
    check: bool = True,
) -> EarlState:
    """A state from readable hands, checked with ``RULES.validate``.

    ``hands[s]`` lists seat ``s``'s cards. ``run`` lists the cards of the run under
    way, oldest first; every other card not in a hand is in the played pile,
    before the run. ``turn`` defaults to ``last_player`` and vice versa (a lead).
    The dealer defaults to the last seat, so that seat 0 is the eldest. A tie-break
    round (C-SCORE-4) defaults to round 1, its seats sharing the most counters.
    """
    n = len(hands)
    cfg = config if config is not None else EarlConfig(seats=n)
    assert cfg.seats == n, "config.seats must match the hands"
    hand_masks = tuple(mask(h) for h in hands)
    run_cards = [parse(t) for t in run.split()]
    held = 0
    for h in hand_masks:
        held |= h
    rest = FULL_MASK & ~held & ~mask_of(run_cards)
    played = bytes(card_list(rest) + run_cards)
    eliminated_mask = mask_of(eliminated)
    all_seats = (1 << n) - 1
    dealt_mask = all_seats & ~eliminated_mask if dealt_in is None else mask_of(dealt_in)
    if turn is None:
        turn = last_player if last_player is not None else 0
    if last_player is None:
        last_player = turn
    if round is None:
        round = 1 if tiebreak else 0
    if counters is None:
        start = cfg.starting_counters if cfg.uses_counters else 0
        counters = [start] * n
        assert pool == 0, "give counters explicitly with a pool"
        if tiebreak:  # the seats dealt in had the most: each other seat paid them
            tied = [s for s in range(n) if dealt_mask >> s & 1]
            others = [s for s in range(n) if not dealt_mask >> s & 1]
            for s in tied:
                counters[s] += len(others)
            for s in others:
                counters[s] -= len(tied)
    if rounds_won is None:
        finished = round + (0 if phase is Phase.PLAYING else 1)
        won = [0] * n
        won[round_winner if round_winner != NO_SEAT else 0] += finished
        rounds_won = won
    state = EarlState(
        config=cfg,
        seed=seed,
        phase=phase,
        round=round,
        dealer=n - 1 if dealer is None else dealer,
        hands=hand_masks,
        rounds_won=tuple(rounds_won),
        counters=tuple(counters),
        eliminated=eliminated_mask,
        dealt_in=dealt_mask,
        played=played,
        current_rank=run_cards[0] % 13 if run_cards else NO_RANK,
        run_length=len(run_cards),
        turn=turn,
        last_player=last_player,
        pool=pool,
        tiebreak=tiebreak,
        round_winner=round_winner,
        winners=winners,
    )
    if check:
        RULES.validate(state, check_deal=False)
    return state


def apply_checked(state: EarlState, action: EarlAction) -> Outcome[EarlState, EarlEvent]:
    """``RULES.apply`` plus the invariants every answer keeps.

    The input is never mutated; a rejected action returns the very same state and
    no events; any other answer returns a state that passes ``validate``.
    """
    before = state.clone()
    out = RULES.apply(state, action)
    assert state == before, "apply mutated its input"
    if out.verdict is Verdict.REJECTED:
        assert out.state == before
        assert out.events == []
        assert out.violations, "a rejection names the violated rules"
        assert out.penalties == ()
    else:
        RULES.validate(out.state, check_deal=False)
    return out


def accepted(state: EarlState, action: EarlAction) -> Outcome[EarlState, EarlEvent]:
    out = apply_checked(state, action)
    assert out.verdict is Verdict.ACCEPTED, (out.verdict, out.violations)
    return out


def rejected(state: EarlState, action: EarlAction) -> Outcome[EarlState, EarlEvent]:
    out = apply_checked(state, action)
    assert out.verdict is Verdict.REJECTED, (out.verdict, out.events)
    return out


def penalized(state: EarlState, action: EarlAction) -> Outcome[EarlState, EarlEvent]:
    out = apply_checked(state, action)
    assert out.verdict is Verdict.PENALIZED, (out.verdict, out.violations)
    return out


def lead_and_play(state: EarlState, *plays: tuple[int, str]) -> EarlState:
    """Play ``(seat, card)`` one after another with the right calls; each must be accepted."""
    for s, text in plays:
        position = state.run_length + 1
        call = call_for(state.config, parse(text) % 13, position)
        state = accepted(state, play(s, text, call)).state
    return state


def events_of(events: Iterable[object], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def codes(out: Outcome[EarlState, EarlEvent]) -> set[str]:
    return {v.code for v in out.violations}


def rule_ids(out: Outcome[EarlState, EarlEvent]) -> set[str]:
    return {v.rule_id for v in out.violations}


def invalid_fields(state: EarlState) -> set[str]:
    """The field paths ``validate`` reports (fails when the state is accepted)."""
    try:
        RULES.validate(state, check_deal=False)
    except InvalidInput as e:
        return {v.field for v in e.violations}
    raise AssertionError("validate accepted an impossible state")


def cfg(**kwargs: object) -> EarlConfig:
    return EarlConfig(**kwargs)  # type: ignore[arg-type]


__all__ = [
    "COUPLETS",
    "CUSTOM_TEMPLATES",
    "END_SESSION",
    "NEXT_ROUND",
    "RANK_WORDS",
    "SEED",
    "SNIP_CALLS",
    "TABLE",
    "CallStyle",
    "Scoring",
    "accepted",
    "apply_checked",
    "call_for",
    "card",
    "cfg",
    "codes",
    "couplet",
    "events_of",
    "invalid_fields",
    "lead_and_play",
    "make_state",
    "mask",
    "pass_",
    "penalized",
    "play",
    "rank",
    "rejected",
    "rule_ids",
    "seat",
]


def deal_reference(
    seed: bytes, shuffle_number: int, dealer: int, seats_in: Iterable[int], n: int
) -> tuple[list[int], list[int]]:
    """C-DEAL-1/C-DEAL-2 read from the text: ``(hands, order)``.

    Shuffle ``shuffle_number`` is dealt one card at a time, clockwise, from the
    seat after the dealer, to the seats in ``seats_in`` only.
    """
    from referee.cards import FULL_DECK
    from referee.shuffle import shuffle

    members = set(seats_in)
    order = [(dealer + i) % n for i in range(1, n + 1) if (dealer + i) % n in members]
    hands = [0] * n
    for i, c in enumerate(shuffle(seed, shuffle_number, FULL_DECK)):
        hands[order[i % len(order)]] |= 1 << c
    return hands, order


def first_legal_playout(state: EarlState, limit: int = 10_000) -> EarlState:
    """Play the first legal action until the round is over (deterministic)."""
    for _ in range(limit):
        if state.phase is not Phase.PLAYING:
            return state
        state = accepted(state, RULES.legal_actions(state, None)[0]).state
    raise AssertionError("round did not end")
