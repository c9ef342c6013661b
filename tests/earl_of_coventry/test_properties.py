"""Property tests: random variant combinations, 2 .. 13 seats, random (il)legal actions.

Sessions are driven by a seeded ``random.Random`` drawn by hypothesis, so every
run is reproducible (derandomized profile in ``tests/conftest.py``).
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import FULL_MASK, RANK_MASKS, card_list
from referee.games.base import PUBLIC_VIEWER, Actor, ActorKind, Outcome, Verdict, Viewer
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.state import (
    NO_RANK,
    ActionKind,
    CutShortReason,
    EarlAction,
    EarlConfig,
    EarlEvent,
    EarlState,
    PassedOver,
    Phase,
    RoundDealt,
    RoundWon,
    RunCutShort,
    TiebreakStarted,
)
from tests.earl_of_coventry.helpers import (
    CUSTOM_TEMPLATES,
    TABLE,
    CallStyle,
    Scoring,
    apply_checked,
    call_for,
    seat,
)

# ---------------------------------------------------------------- strategies


@st.composite
def configs(draw: st.DrawFn, min_seats: int = 2, scoring: Scoring | None = None) -> EarlConfig:
    n = draw(st.integers(min_seats, 13))
    style = draw(st.sampled_from(list(CallStyle)))
    return EarlConfig(
        seats=n,
        first_dealer=draw(st.none() | st.integers(0, n - 1)),
        call_style=style,
        couplet_templates=CUSTOM_TEMPLATES if style is CallStyle.CUSTOM else (),
        scoring=scoring if scoring is not None else draw(st.sampled_from(list(Scoring))),
        starting_counters=draw(st.integers(1, 25)),
        penalty_earl=draw(st.booleans()),
        open_hands=draw(st.booleans()),
        holding_allowed=draw(st.booleans()),
    )


seeds = st.binary(min_size=32, max_size=32)
rngs = st.integers(0, 2**32 - 1).map(random.Random)

WRONG_CALLS = ("", "blah", "Snip!", "Snap!", "There's as good as Nothing can be.")


def same_action(a: EarlAction, b: EarlAction) -> bool:
    """The same move, the call text aside."""
    return (a.actor, a.kind, a.card) == (b.actor, b.kind, b.card)


def is_listed(state: EarlState, action: EarlAction) -> bool:
    return any(same_action(a, action) for a in RULES.legal_actions(state, action.actor))


def right_call(state: EarlState, card: int) -> str:
    return call_for(state.config, card % 13, state.run_length + 1)


def random_action(state: EarlState, rng: random.Random, noise: float) -> EarlAction:
    """A legal action most of the time; otherwise a botched call or a random action."""
    legal = RULES.legal_actions(state, None)
    r = rng.random()
    if state.phase is Phase.BETWEEN_ROUNDS and r >= noise:
        # The table mostly deals on, so that sessions see many rounds.
        return legal[-1] if rng.random() < 0.15 else legal[0]
    if legal and r >= noise:
        plays = [a for a in legal if a.kind is not ActionKind.PASS]
        if plays and rng.random() < 0.75:
            return rng.choice(plays)
        return rng.choice(legal)
    if legal and r < noise / 3:
        a = rng.choice(legal)
        if a.kind is ActionKind.PLAY:
            return EarlAction(a.actor, a.kind, a.card, rng.choice(WRONG_CALLS))
    n = state.config.seats
    actor = TABLE if rng.random() < 0.15 else seat(rng.randrange(n))
    kind = rng.choice(
        [ActionKind.PLAY] * 3 + [ActionKind.PASS, ActionKind.NEXT_ROUND, ActionKind.END_SESSION]
    )
    if kind is ActionKind.PLAY:
        c = rng.randrange(52)
        return EarlAction(actor, kind, c, rng.choice((right_call(state, c), *WRONG_CALLS)))
    return EarlAction(actor, kind)


def cards_conserved(state: EarlState) -> None:
    union = 0
    total = 0
    for h in state.hands:
        union |= h
        total += h.bit_count()
    for c in state.played:
        union |= 1 << c
    assert total + len(state.played) == 52
    assert union == FULL_MASK


def counters_conserved(state: EarlState) -> None:
    cfg = state.config
    if cfg.uses_counters:
        assert sum(state.counters) + state.pool == cfg.starting_counters * cfg.seats
        assert min(state.counters) >= 0 and state.pool >= 0
    else:
        assert not any(state.counters) and state.pool == 0


Turn = tuple[int, int, int, int, list[int], CutShortReason | None]


def reference_turn(state: EarlState, action: EarlAction, declined: bool) -> Turn:
    """C-PLAY-3, C-PLAY-5, C-PLAY-7, C-CHANT-3 read from the text, for a play that counted
    (``declined`` false) or a pass / botched couplet (``declined`` true).

    Returns ``(turn, last_player, run_length, current_rank, passed_over, cut_short)``.
    """
    n = state.config.seats
    me = action.actor.seat
    hands = list(state.hands)

    def search(
        after: int, until: int, last: int, length: int, rank: int, why: CutShortReason
    ) -> Turn:
        skipped: list[int] = []
        s = after
        while s != until:
            s = (s + 1) % n
            if not state.dealt_in >> s & 1:
                continue
            if hands[s] & RANK_MASKS[rank]:
                return (s, last, length, rank, skipped, None)
            skipped.append(s)
        return (last, last, 0, NO_RANK, [], why)  # C-PLAY-7: no pass-over events

    if not declined:
        hands[me] &= ~(1 << action.card)
        position = state.run_length + 1
        if position == 4:  # C-PLAY-5: the Earl leads
            return (me, me, 0, NO_RANK, [], None)
        # C-PLAY-3: from the player's left all the way round to the player, who plays
        # again when no one else holds the rank.
        skipped: list[int] = []
        for i in range(1, n + 1):
            s = (me + i) % n
            if not state.dealt_in >> s & 1:
                continue
            if hands[s] & RANK_MASKS[action.card % 13]:
                return (s, me, position, action.card % 13, skipped, None)
            skipped.append(s)
        return (me, me, 0, NO_RANK, [], CutShortReason.NO_HOLDER)
    if state.run_length == 0:  # C-CHANT-3: a botched lead passes to the left
        left = next((me + i) % n for i in range(1, n + 1) if state.dealt_in >> ((me + i) % n) & 1)
        return (left, left, 0, NO_RANK, [], None)
    last = state.last_player
    if me == last:
        # The turn came back to the last player: every other holder has declined since
        # the most recent card; nobody is asked again (C-PLAY-7 b).
        return (last, last, 0, NO_RANK, [], CutShortReason.ALL_DECLINED)
    return search(me, last, last, state.run_length, state.current_rank, CutShortReason.ALL_DECLINED)


def check_turn(state: EarlState, action: EarlAction, out: Outcome[EarlState, EarlEvent]) -> None:
    """Compare the engine's next turn with :func:`reference_turn`."""
    if action.kind not in (ActionKind.PLAY, ActionKind.PASS):
        return
    if out.verdict is Verdict.REJECTED or out.state.phase is not Phase.PLAYING:
        return
    if out.verdict is Verdict.ACCEPTED:
        declined = action.kind is ActionKind.PASS
    elif {v.code for v in out.violations} == {"COUPLET_BOTCHED"}:
        declined = True
    else:
        return  # Penalty Earl charge for an illegal action: checked in checked_outcome
    turn, last, length, rank, skipped, cut = reference_turn(state, action, declined)
    new = out.state
    assert (new.turn, new.last_player, new.run_length, new.current_rank) == (
        turn,
        last,
        length,
        rank,
    ), (action, state)
    assert [e.seat for e in out.events if isinstance(e, PassedOver)] == skipped
    cuts = [e for e in out.events if isinstance(e, RunCutShort)]
    assert [e.reason for e in cuts] == ([cut] if cut else [])


def check_step(state: EarlState, action: EarlAction) -> EarlState:
    return checked_outcome(state, action).state


def checked_outcome(state: EarlState, action: EarlAction) -> Outcome[EarlState, EarlEvent]:
    """Apply one action and check the verdict against ``legal_actions`` and the rulebook."""
    out = apply_checked(state, action)
    new = out.state
    check_turn(state, action, out)
    cards_conserved(new)
    counters_conserved(new)
    cfg = state.config
    if is_listed(state, action):
        if action.kind is ActionKind.PLAY and action.call != right_call(state, action.card):
            # A listed card with another text: accepted or botched (C-CHANT-3), never rejected.
            assert out.verdict in (Verdict.ACCEPTED, Verdict.PENALIZED)
            if out.verdict is Verdict.PENALIZED:
                assert {v.code for v in out.violations} == {"COUPLET_BOTCHED"}
                # C-VAR-4: every botched couplet (a lead too, a tie-break too) is charged.
                s = action.actor.seat
                if cfg.penalty_earl:
                    amount = 1 if state.counters[s] else 0
                    assert [(p.seat, p.amount, p.code) for p in out.penalties] == [
                        (s, amount, "COUPLET_BOTCHED")
                    ]
                    assert new.pool == state.pool + amount
                else:
                    assert out.penalties == ()
        else:
            assert out.verdict is Verdict.ACCEPTED, out.violations
        return out
    charged = (
        cfg.penalty_earl
        and state.phase is Phase.PLAYING
        and action.actor.kind is ActorKind.SEAT
        and state.dealt_in >> action.actor.seat & 1
        and action.kind in (ActionKind.PLAY, ActionKind.PASS)
    )
    if not charged:
        assert out.verdict is Verdict.REJECTED, (action, out.verdict)
        return out
    # C-VAR-4: penalized; only the offender's counters and the pool move.
    assert out.verdict is Verdict.PENALIZED
    (penalty,) = out.penalties
    s = action.actor.seat
    assert penalty.seat == s and penalty.rule_id == "C-VAR-4"
    assert penalty.amount == (1 if state.counters[s] else 0)
    assert new.pool == state.pool + penalty.amount
    expected = list(state.counters)
    expected[s] -= penalty.amount
    assert new.counters == tuple(expected)
    for field in ("hands", "played", "turn", "last_player", "run_length", "current_rank"):
        assert getattr(new, field) == getattr(state, field), field
    return out


def session(
    config: EarlConfig, seed: bytes, rng: random.Random, noise: float, limit: int
) -> Iterator[EarlState]:
    """The states of a random session (at most ``limit`` actions after the deal)."""
    state, _ = RULES.new_game(config, seed)
    RULES.validate(state)
    yield state
    for _ in range(limit):
        if state.phase is Phase.SESSION_OVER:
            return
        state = check_step(state, random_action(state, rng, noise))
        yield state


# ---------------------------------------------------------------- properties


@settings(max_examples=60)
@given(configs(), seeds, rngs)
def test_random_sessions_keep_every_invariant(
    config: EarlConfig, seed: bytes, rng: random.Random
) -> None:
    """Cards and counters are conserved, ``validate`` accepts every state, legal actions
    are accepted, other actions are rejected (state unchanged) or penalized under
    Penalty Earl (C-ILL-1, C-VAR-4)."""
    for _ in session(config, seed, rng, noise=0.3, limit=400):
        pass


@settings(max_examples=25)
@given(configs(scoring=Scoring.ELIMINATION), seeds, rngs)
def test_elimination_sessions_terminate(
    config: EarlConfig, seed: bytes, rng: random.Random
) -> None:
    """C-SCORE-5 / C-SCORE-6: with legal play and random table actions every session ends;
    every round ends within 52 leads plus the passes between them."""
    state, _ = RULES.new_game(config, seed)
    n = config.seats
    rounds = 0
    steps = 0
    while state.phase is not Phase.SESSION_OVER:
        if state.phase is Phase.BETWEEN_ROUNDS:
            rounds += 1
            assert rounds <= 100
            kind = ActionKind.END_SESSION if rng.random() < 0.1 else ActionKind.NEXT_ROUND
            state = check_step(state, EarlAction(TABLE, kind))
            steps = 0
            continue
        state = check_step(state, rng.choice(RULES.legal_actions(state, None)))
        steps += 1
        assert steps <= 52 * (n + 1)
    assert len(state.winners) == 1
    alive = [s for s in range(n) if not state.eliminated >> s & 1]
    if len(alive) == 1:
        assert state.winners == (alive[0],)


@settings(max_examples=20)
@given(configs(), seeds, st.integers(0, 2**32 - 1))
def test_sessions_are_deterministic(config: EarlConfig, seed: bytes, r: int) -> None:
    """SHUF / C-DEAL-1: the same seed and the same actions give the same states."""
    a = list(session(config, seed, random.Random(r), noise=0.2, limit=150))
    b = list(session(config, seed, random.Random(r), noise=0.2, limit=150))
    assert a == b
    first, events = RULES.new_game(config, seed)
    again, events_again = RULES.new_game(config, seed)
    assert first == again and events == events_again


def tie_counters(total: int, tied: list[int], others: list[int], lo: int) -> dict[int, int] | None:
    """Stacks summing to ``total`` where the ``tied`` seats share the most counters and
    every other seat holds ``lo`` .. top - 1 (``None`` when impossible)."""
    k, m = len(tied), len(others)
    for top in range(total // k, 0, -1):
        rest = total - top * k
        if m * lo <= rest <= m * (top - 1) and (m or not rest):
            stacks = dict.fromkeys(tied, top)
            for i, s in enumerate(others):
                share = rest // m + (1 if i < rest % m else 0)
                stacks[s] = share
            return stacks
    return None


@settings(max_examples=30)
@given(
    configs(scoring=Scoring.COUNTERS),
    seeds,
    rngs,
    st.sets(st.integers(0, 12), min_size=2),
)
def test_tie_break_rounds(
    config: EarlConfig, seed: bytes, rng: random.Random, wanted: set[int]
) -> None:
    """C-SCORE-4 for random tied groups: the tied seats alone are dealt the next shuffle,
    the dealer is the next tied seat after the last dealer, no payments are made and the
    winner of the round wins the session (random play, with Penalty Earl or not)."""
    n = config.seats
    tied = sorted(s for s in wanted if s < n)
    if len(tied) < 2:
        tied = [0, n - 1]
    state, _ = RULES.new_game(config, seed)
    while state.phase is Phase.PLAYING:
        state = check_step(state, random_action(state, rng, noise=0.1))
    assert state.phase is Phase.BETWEEN_ROUNDS
    others = [s for s in range(n) if s not in tied]
    stacks = tie_counters(config.starting_counters * n, tied, others, 0)
    if stacks is None:  # not enough counters to go round: tie everybody instead
        tied, others = list(range(n)), []
        stacks = dict.fromkeys(tied, config.starting_counters)
    state = state.clone()
    state.counters = tuple(stacks[s] for s in range(n))
    RULES.validate(state)
    out = checked_outcome(state, EarlAction(TABLE, ActionKind.END_SESSION))
    assert [e for e in out.events if isinstance(e, TiebreakStarted)] == [
        TiebreakStarted(tuple(tied))
    ]
    tie = out.state
    dealer = next(s for s in ((state.dealer + i) % n for i in range(1, n + 1)) if s in tied)
    assert (tie.round, tie.dealer, tie.tiebreak) == (state.round + 1, dealer, True)
    (dealt,) = [e for e in out.events if isinstance(e, RoundDealt)]
    assert sorted(dealt.seats) == tied and sum(dealt.hand_sizes) == 52
    assert all(tie.hands[s] == 0 for s in others)
    while tie.phase is Phase.PLAYING:
        out = checked_outcome(tie, random_action(tie, rng, noise=0.2))
        tie = out.state
    assert tie.phase is Phase.SESSION_OVER
    (won,) = [e for e in out.events if isinstance(e, RoundWon)]
    assert won.payments == ()
    assert tie.winners == (won.seat,) and won.seat in tied
    for s in others:
        assert tie.counters[s] == stacks[s]
    if not config.penalty_earl:
        assert tie.counters == state.counters


def all_candidate_actions(state: EarlState) -> Iterator[EarlAction]:
    """Every seat with every card (with the rulebook call) and a pass; the table's actions."""
    for s in range(state.config.seats):
        for c in range(52):
            yield EarlAction(seat(s), ActionKind.PLAY, c, right_call(state, c))
        yield EarlAction(seat(s), ActionKind.PASS)
        yield EarlAction(seat(s), ActionKind.NEXT_ROUND)
    yield EarlAction(TABLE, ActionKind.NEXT_ROUND)
    yield EarlAction(TABLE, ActionKind.END_SESSION)
    yield EarlAction(TABLE, ActionKind.PASS)


@settings(max_examples=30)
@given(configs(), seeds, rngs, st.lists(st.integers(0, 120), min_size=1, max_size=3))
def test_legal_actions_is_the_single_source_of_truth(
    config: EarlConfig, seed: bytes, rng: random.Random, stops: list[int]
) -> None:
    """For reachable states: ``apply`` with the canonical call ACCEPTS exactly the actions
    ``legal_actions`` lists; the listed calls are the rulebook's."""
    wanted = set(stops)
    for i, state in enumerate(session(config, seed, rng, noise=0.15, limit=max(wanted) + 1)):
        if i not in wanted:
            continue
        listed = RULES.legal_actions(state, None)
        per_actor = [a for s in range(config.seats) for a in RULES.legal_actions(state, seat(s))]
        per_actor += RULES.legal_actions(state, TABLE)
        assert sorted(map(_key, listed)) == sorted(map(_key, per_actor))
        for a in listed:
            if a.kind is ActionKind.PLAY:
                assert a.call == right_call(state, a.card)
        for action in all_candidate_actions(state):
            out = RULES.apply(state, action)
            assert (out.verdict is Verdict.ACCEPTED) == is_listed(state, action), action
            if out.verdict is Verdict.REJECTED:
                assert out.state is state


def _key(a: EarlAction) -> tuple[int, int, int, int]:
    return (a.actor.kind, a.actor.seat, a.kind, a.card)


@settings(max_examples=30)
@given(configs(min_seats=3), seeds, rngs, st.integers(0, 150))
def test_views_hide_other_hands(
    config: EarlConfig, seed: bytes, rng: random.Random, stop: int
) -> None:
    """Without open hands, swapping hidden cards between two other seats changes nothing
    in a seat's view (nor in a spectator's or the public view). With open hands
    (C-VAR-6) every view shows every hand."""
    states = list(session(config, seed, rng, noise=0.1, limit=stop))
    state = states[-1]
    n = config.seats
    viewers = [Viewer.of_seat(s) for s in range(n)] + [PUBLIC_VIEWER, Viewer.of_spectator("x")]
    if config.open_hands:
        for viewer in viewers:
            view = RULES.view(state, viewer)
            assert [sv.hand for sv in view.seats] == [tuple(card_list(h)) for h in state.hands]
        return
    holders = [s for s in range(n) if state.hands[s]]
    for viewer in viewers:
        others = [s for s in holders if viewer.seat != s]
        if len(others) < 2:
            continue
        a, b = rng.sample(others, 2)
        x = rng.choice(card_list(state.hands[a]))
        y = rng.choice(card_list(state.hands[b]))
        swapped = state.clone()
        hands = list(state.hands)
        hands[a] = hands[a] & ~(1 << x) | 1 << y
        hands[b] = hands[b] & ~(1 << y) | 1 << x
        swapped.hands = tuple(hands)
        assert RULES.view(swapped, viewer) == RULES.view(state, viewer)
        view = RULES.view(state, viewer)
        for sv in view.seats:
            mine = viewer.seat == sv.seat and viewer.kind.name == "SEAT"
            assert (sv.hand is not None) == mine
            assert sv.card_count == state.hands[sv.seat].bit_count()


def test_actor_kinds_cover_table_and_seats() -> None:
    """Sanity of the helpers used above: the table and seats are distinct actors."""
    assert TABLE.kind is ActorKind.TABLE
    assert seat(2) == Actor.of_seat(2)
