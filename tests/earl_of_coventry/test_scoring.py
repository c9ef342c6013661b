"""Scoring and the session: C-SCORE-0 .. C-SCORE-6."""

from __future__ import annotations

import pytest

from referee.games.base import PUBLIC_VIEWER, InvalidInput
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.state import (
    MAX_ROUND,
    ActionKind,
    EarlAction,
    EarlConfig,
    EarlState,
    LeadPassed,
    Payment,
    Phase,
    RoundDealt,
    RoundWon,
    SeatEliminated,
    SessionEnded,
    TiebreakStarted,
)
from tests.earl_of_coventry.helpers import (
    END_SESSION,
    NEXT_ROUND,
    SEED,
    TABLE,
    Scoring,
    accepted,
    apply_checked,
    codes,
    couplet,
    deal_reference,
    events_of,
    first_legal_playout,
    make_state,
    pass_,
    play,
    rejected,
    rule_ids,
    seat,
)

# ---------------------------------------------------------------- C-SCORE-0


def test_C_SCORE_0_scoring_modes() -> None:
    """C-SCORE-0: simple (default), counters, elimination (which plays with counters)."""
    assert EarlConfig().scoring is Scoring.SIMPLE
    assert {s.name for s in Scoring} == {"SIMPLE", "COUNTERS", "ELIMINATION"}
    expected = {Scoring.SIMPLE: 0, Scoring.COUNTERS: 7, Scoring.ELIMINATION: 7}
    for scoring, start in expected.items():
        state, _ = RULES.new_game(EarlConfig(seats=3, scoring=scoring, starting_counters=7), SEED)
        assert state.counters == (start,) * 3


# ---------------------------------------------------------------- C-SCORE-1


def test_C_SCORE_1_simple_records_rounds_won_only() -> None:
    """C-SCORE-1: the round winner is recorded; nothing else is counted."""
    state = make_state(["5C", "2D 3D 4D", "2H 3H", "2S"], turn=0, round=2, rounds_won=[1, 0, 1, 0])
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    new = out.state
    assert new.rounds_won == (2, 0, 1, 0)
    assert new.counters == (0, 0, 0, 0)
    (won,) = events_of(out.events, RoundWon)
    assert won == RoundWon(0, 2, (), 0)
    board = RULES.scoreboard(new)
    assert [s.rounds_won for s in board.seats] == [2, 0, 1, 0]
    assert [s.counters for s in board.seats] == [0, 0, 0, 0]
    assert not board.finished
    # Points, games and chips are Écarté's: always 0 here.
    assert {(s.points, s.games_won, s.chips) for s in board.seats} == {(0, 0, 0)}
    assert [s.seat for s in board.seats] == [0, 1, 2, 3]


# ---------------------------------------------------------------- C-SCORE-2


def counters_position(scoring: Scoring = Scoring.COUNTERS) -> EarlState:
    config = EarlConfig(seats=3, scoring=scoring, starting_counters=5)
    return make_state(["5C", "2D 3D 4D 6D 7D 8D 9D", "2H 3H"], config=config, turn=0)


def test_C_SCORE_2_each_opponent_pays_per_card_capped() -> None:
    """C-SCORE-2: one counter per card left, never more than the payer has."""
    out = accepted(counters_position(), play(0, "5C", couplet("5", 1)))
    (won,) = events_of(out.events, RoundWon)
    assert won.payments == (Payment(1, 7, 5), Payment(2, 2, 2))
    assert out.state.counters == (12, 0, 3)
    assert sum(out.state.counters) == 15


def test_C_SCORE_2_starting_counters_configurable() -> None:
    """C-SCORE-2: the same number for every seat, 1 .. 1,000,000, default 20."""
    assert EarlConfig().starting_counters == 20
    for start in (1, 20, 1_000_000):
        config = EarlConfig(seats=5, scoring=Scoring.COUNTERS, starting_counters=start)
        state, _ = RULES.new_game(config, SEED)
        assert state.counters == (start,) * 5
    for start in (0, -3, 1_000_001):
        with pytest.raises(InvalidInput) as e:
            RULES.new_game(
                EarlConfig(seats=5, scoring=Scoring.COUNTERS, starting_counters=start), SEED
            )
        assert [v.field for v in e.value.violations] == ["starting_counters"]


def test_C_SCORE_2_seat_without_counters_pays_nothing() -> None:
    config = EarlConfig(seats=3, scoring=Scoring.COUNTERS, starting_counters=5)
    state = make_state(
        ["5C", "2D 3D 4D", "2H 3H"], config=config, turn=0, counters=[10, 0, 5], round=1
    )
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    assert events_of(out.events, RoundWon)[0].payments == (Payment(1, 3, 0), Payment(2, 2, 2))
    assert out.state.counters == (12, 0, 3)
    assert out.state.phase is Phase.BETWEEN_ROUNDS  # counters scoring never eliminates


# ---------------------------------------------------------------- C-SCORE-3


def test_C_SCORE_3_only_the_round_winner_collects() -> None:
    """C-SCORE-3: no partial credit; a seat with one card left still pays."""
    config = EarlConfig(seats=4, scoring=Scoring.COUNTERS, starting_counters=10)
    state = make_state(["5C", "2D", "2H 3H 4H", "2S 3S 4S 6S 7S"], config=config, turn=0)
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    assert out.state.counters == (10 + 1 + 3 + 5, 9, 7, 5)
    for s in (1, 2, 3):
        assert out.state.counters[s] < state.counters[s]


# ---------------------------------------------------------------- C-SCORE-4


def between_rounds(
    counters: list[int],
    dealer: int,
    scoring: Scoring = Scoring.COUNTERS,
    penalty: bool = False,
    round: int = 3,
) -> EarlState:
    """Four seats with 20 counters each at the start; the last round (3) was won by the
    seat with no cards."""
    config = EarlConfig(seats=4, scoring=scoring, starting_counters=20, penalty_earl=penalty)
    winner = next(s for s in range(4) if s != dealer)
    hands = ["4C 9D", "5C", "6C 7C", "8C"]
    hands[winner] = ""
    return make_state(
        hands,
        config=config,
        phase=Phase.BETWEEN_ROUNDS,
        round=round,
        round_winner=winner,
        dealer=dealer,
        counters=counters,
    )


def test_C_SCORE_4_most_counters_wins() -> None:
    """C-SCORE-4: the table ends the session; the seat with the most counters wins."""
    state = between_rounds([10, 30, 20, 20], dealer=0)
    out = accepted(state, END_SESSION)
    assert out.state.phase is Phase.SESSION_OVER
    assert out.state.winners == (1,)
    assert events_of(out.events, SessionEnded) == [SessionEnded((1,))]
    assert events_of(out.events, RoundDealt) == []
    board = RULES.scoreboard(out.state)
    assert board.finished and board.winners == (1,)
    assert board.standings[0] == (1,)


@pytest.mark.parametrize(
    ("counters", "dealer", "tied", "tie_dealer"),
    [
        ([10, 25, 20, 25], 2, (1, 3), 3),
        ([25, 25, 10, 20], 0, (0, 1), 1),
        ([25, 25, 10, 20], 1, (0, 1), 0),
        ([25, 10, 25, 20], 3, (0, 2), 0),
        ([25, 10, 25, 20], 0, (0, 2), 2),
        ([20, 20, 20, 20], 1, (0, 1, 2, 3), 2),
    ],
)
def test_C_SCORE_4_tie_break_round_among_tied_seats(
    counters: list[int], dealer: int, tied: tuple[int, ...], tie_dealer: int
) -> None:
    """C-SCORE-4: tied seats alone play one more round, dealt at once with the next
    shuffle, the dealer being the next tied seat clockwise after the last dealer."""
    state = between_rounds(counters, dealer)
    out = accepted(state, END_SESSION)
    new = out.state
    assert events_of(out.events, TiebreakStarted) == [TiebreakStarted(tied)]
    assert new.phase is Phase.PLAYING and new.tiebreak
    assert new.round == 4
    assert new.dealer == tie_dealer
    hands, order = deal_reference(SEED, 4, tie_dealer, tied, 4)
    assert list(new.hands) == hands
    assert new.dealt_in == sum(1 << s for s in tied)
    assert new.turn == order[0]
    (dealt,) = events_of(out.events, RoundDealt)
    assert dealt.tiebreak and dealt.seats == tuple(order) and dealt.dealer == tie_dealer
    assert new.counters == state.counters
    assert new.winners == ()


def test_C_SCORE_4_tie_break_no_payments_winner_takes_session() -> None:
    """C-SCORE-4: no counters are paid in the tie-break; its winner wins the session;
    the seats sitting out may not act."""
    state = accepted(between_rounds([10, 25, 20, 25], dealer=2), END_SESSION).state
    for s in (0, 2):
        assert RULES.legal_actions(state, seat(s)) == []
        out = rejected(state, play(s, "AC", "There's as good as Ace can be."))
        assert codes(out) == {"SEAT_NOT_DEALT_IN", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND"}
        assert rule_ids(out) == {"C-SCORE-4", "C-ILL-1"}
    final = state
    outcome = None
    while final.phase is Phase.PLAYING:
        outcome = accepted(final, RULES.legal_actions(final, None)[0])
        final = outcome.state
    assert outcome is not None
    (won,) = events_of(outcome.events, RoundWon)
    assert won.payments == ()
    assert final.counters == (10, 25, 20, 25)
    assert final.phase is Phase.SESSION_OVER
    assert final.winners == (won.seat,)
    assert won.seat in (1, 3)
    assert events_of(outcome.events, SessionEnded) == [SessionEnded((won.seat,))]
    assert RULES.scoreboard(final).winners == (won.seat,)
    assert RULES.legal_actions(final, None) == []
    assert codes(rejected(final, NEXT_ROUND)) == {"SESSION_OVER"}


def test_C_SCORE_4_standings_put_the_tie_break_winner_first() -> None:
    """C-SCORE-4 (decision): after a tie-break the standings rank its winner first, even
    though no counters moved."""
    state = first_legal_playout(accepted(between_rounds([10, 25, 20, 25], 2), END_SESSION).state)
    (winner,) = state.winners
    loser = 4 - winner  # the other of seats 1 and 3
    board = RULES.scoreboard(state)
    assert board.standings == ((winner,), (loser,), (2,), (0,))


def test_C_SCORE_4_tie_break_under_elimination_eliminates_no_one() -> None:
    """C-SCORE-4: no elimination in the tie-break, even for a seat left without counters
    by Penalty Earl; the tie-break winner collects the pool."""
    config = EarlConfig(
        seats=4, scoring=Scoring.ELIMINATION, starting_counters=20, penalty_earl=True
    )
    # Seats 1 and 3 tied on 30 and play it off; seat 1 botched away all of its counters.
    state = make_state(
        ["", "2D 3D", "", "5C"],
        config=config,
        turn=3,
        dealer=1,
        dealt_in=[1, 3],
        tiebreak=True,
        round=6,
        counters=[5, 0, 15, 30],
        pool=30,
    )
    out = accepted(state, play(3, "5C", couplet("5", 1)))
    new = out.state
    assert events_of(out.events, RoundWon) == [RoundWon(3, 6, (), 30)]
    assert events_of(out.events, SeatEliminated) == []
    assert new.eliminated == 0
    assert new.counters == (5, 0, 15, 60) and new.pool == 0
    assert new.phase is Phase.SESSION_OVER and new.winners == (3,)


def test_C_SCORE_4_penalty_earl_still_applies_in_the_tie_break() -> None:
    """C-SCORE-4 with C-VAR-4 and C-CHANT-3: in a tie-break round a botched couplet (a
    lead or a match) is charged like any other; a botched lead passes to the next seat
    dealt in; the tie-break winner collects the pool and wins the session."""
    config = EarlConfig(seats=4, scoring=Scoring.COUNTERS, starting_counters=20, penalty_earl=True)
    state = make_state(
        ["", "2D 3D 5H", "", "5C 6C"],
        config=config,
        turn=3,
        dealer=1,
        dealt_in=[1, 3],
        tiebreak=True,
        round=3,
        counters=[10, 25, 20, 25],
    )
    # Seat 3 botches the lead: charged; the lead passes to seat 1 (seat 0 sits out).
    out = apply_checked(state, play(3, "5C", "There's as good as Six can be."))
    assert out.verdict.name == "PENALIZED"
    assert [(p.seat, p.amount) for p in out.penalties] == [(3, 1)]
    assert events_of(out.events, LeadPassed) == [LeadPassed(3, 1)]
    state = out.state
    assert state.counters == (10, 25, 20, 24) and state.pool == 1
    assert (state.turn, state.last_player, state.run_length) == (1, 1, 0)
    # Seat 1 leads a Five; seat 3 botches the match: charged, and the run is cut short.
    state = accepted(state, play(1, "5H", couplet("5", 1))).state
    assert state.turn == 3
    out = apply_checked(state, play(3, "5C", "There's a Six as good as he."))
    assert out.verdict.name == "PENALIZED"
    assert [(p.seat, p.amount) for p in out.penalties] == [(3, 1)]
    state = out.state
    assert state.counters == (10, 25, 20, 23) and state.pool == 2
    assert (state.turn, state.run_length) == (1, 0)
    # Seat 1 goes out: no payments for cards left, the pool is collected.
    state = accepted(state, play(1, "2D", couplet("2", 1))).state
    out = accepted(state, play(1, "3D", couplet("3", 1)))
    assert events_of(out.events, RoundWon) == [RoundWon(1, 3, (), 2)]
    assert out.state.counters == (10, 27, 20, 23) and out.state.pool == 0
    assert out.state.phase is Phase.SESSION_OVER and out.state.winners == (1,)


def test_C_SCORE_4_tie_break_can_always_be_dealt() -> None:
    """C-SCORE-4 with C-DEAL-1/SHUF-4: at the last ordinary round the table may still end
    the session; the tie-break uses the last shuffle number before the cut pack, and
    ``legal_actions`` lists exactly what ``apply`` accepts."""
    last = MAX_ROUND - 1
    state = between_rounds([10, 25, 20, 25], dealer=2, round=last)
    assert [a.kind for a in RULES.legal_actions(state, TABLE)] == [ActionKind.END_SESSION]
    assert codes(rejected(state, NEXT_ROUND)) == {"ROUND_LIMIT"}
    tie = accepted(state, END_SESSION).state
    assert tie.tiebreak and tie.round == 0xFFFFFFFE
    hands, _ = deal_reference(SEED, 0xFFFFFFFE, 3, (1, 3), 4)
    assert list(tie.hands) == hands
    over = first_legal_playout(tie)
    assert over.phase is Phase.SESSION_OVER
    # One round earlier both table actions are listed and accepted.
    state = between_rounds([10, 25, 20, 25], dealer=2, round=last - 1)
    assert len(RULES.legal_actions(state, TABLE)) == 2
    assert accepted(state, NEXT_ROUND).state.round == last


# ---------------------------------------------------------------- C-SCORE-5


def test_C_SCORE_5_elimination_and_dealer_skipping() -> None:
    """C-SCORE-5: a seat left without counters after the payments is eliminated: not
    dealt in again and passed over as dealer (here it was the dealer)."""
    config = EarlConfig(seats=4, scoring=Scoring.ELIMINATION, starting_counters=5)
    state = make_state(
        ["5C", "2D 3D 4D 6D", "2H 3H", "2S"],
        config=config,
        turn=0,
        dealer=1,
        counters=[5, 3, 5, 7],
        round=2,
    )
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    new = out.state
    assert events_of(out.events, SeatEliminated) == [SeatEliminated(1)]
    assert new.counters == (11, 0, 3, 6)
    assert new.eliminated == 0b0010
    assert new.phase is Phase.BETWEEN_ROUNDS
    board = RULES.scoreboard(new)
    assert [s.eliminated for s in board.seats] == [False, True, False, False]
    nxt = accepted(new, NEXT_ROUND).state
    assert nxt.dealer == 2
    assert nxt.hands[1] == 0
    assert nxt.dealt_in == 0b1101
    assert nxt.turn == 3
    assert [h.bit_count() for h in nxt.hands] == [17, 0, 17, 18]
    # Everyone sees who is out and who is dealt in.
    seen = RULES.view(nxt, PUBLIC_VIEWER).seats
    assert [(v.eliminated, v.dealt_in) for v in seen] == [
        (False, True),
        (True, False),
        (False, True),
        (False, True),
    ]
    # The eliminated seat may not act; under Penalty Earl it would not be charged either.
    out = rejected(nxt, play(1, "AC", "x"))
    assert codes(out) == {"SEAT_NOT_DEALT_IN", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND"}
    assert out.violations[0].rule_id == "C-SCORE-5"


def test_C_SCORE_5_last_seat_standing_wins() -> None:
    """C-SCORE-5: when a single seat still has counters, it wins and the session ends."""
    config = EarlConfig(seats=3, scoring=Scoring.ELIMINATION, starting_counters=4)
    state = make_state(
        ["5C", "2D 3D 4D", ""],
        config=config,
        turn=0,
        dealer=1,
        counters=[10, 2, 0],
        eliminated=[2],
        round=5,
    )
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    new = out.state
    assert new.phase is Phase.SESSION_OVER
    assert new.winners == (0,)
    assert new.counters == (12, 0, 0)
    assert events_of(out.events, SeatEliminated) == [SeatEliminated(1)]
    assert events_of(out.events, SessionEnded) == [SessionEnded((0,))]
    # Only the seats dealt in pay: the seat eliminated earlier is not listed.
    (won,) = events_of(out.events, RoundWon)
    assert won.payments == (Payment(1, 3, 2),)
    assert RULES.legal_actions(new, None) == []
    assert RULES.legal_actions(new, TABLE) == []


def test_C_SCORE_5_several_eliminated_at_once() -> None:
    config = EarlConfig(seats=4, scoring=Scoring.ELIMINATION, starting_counters=2)
    state = make_state(
        ["5C", "2D 3D", "2H 3H 4H", "2S"], config=config, turn=0, counters=[2, 2, 2, 2]
    )
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    assert events_of(out.events, SeatEliminated) == [SeatEliminated(1), SeatEliminated(2)]
    assert out.state.phase is Phase.BETWEEN_ROUNDS
    assert out.state.counters == (7, 0, 0, 1)


def test_C_SCORE_5_counters_scoring_never_eliminates() -> None:
    out = accepted(counters_position(Scoring.COUNTERS), play(0, "5C", couplet("5", 1)))
    assert out.state.counters[1] == 0 and out.state.eliminated == 0
    out = accepted(counters_position(Scoring.ELIMINATION), play(0, "5C", couplet("5", 1)))
    assert out.state.eliminated == 0b010


def test_C_SCORE_5_table_may_still_end_the_session() -> None:
    """C-SCORE-6 under elimination: the table may end the session between rounds; the
    seat with the most counters among those still in wins."""
    config = EarlConfig(seats=4, scoring=Scoring.ELIMINATION, starting_counters=20)
    state = make_state(
        ["", "", "6C 7C", "8C"],
        config=config,
        phase=Phase.BETWEEN_ROUNDS,
        round=4,
        round_winner=0,
        dealer=3,
        counters=[30, 0, 25, 25],
        eliminated=[1],
    )
    out = accepted(state, END_SESSION)
    assert out.state.winners == (0,)


# ---------------------------------------------------------------- C-SCORE-6


def test_C_SCORE_6_first_round_is_always_played() -> None:
    """C-SCORE-6: the session ends only between rounds; table actions during a round
    are rejected."""
    state, _ = RULES.new_game(EarlConfig(seats=4), SEED)
    assert RULES.legal_actions(state, TABLE) == []
    for action in (END_SESSION, NEXT_ROUND):
        out = rejected(state, action)
        assert codes(out) == {"ROUND_IN_PROGRESS"}
        assert rule_ids(out) == {"C-SCORE-6"}


def test_C_SCORE_6_table_actions_by_a_seat_rejected() -> None:
    state = between_rounds([10, 30, 20, 20], dealer=0)
    for kind in (ActionKind.NEXT_ROUND, ActionKind.END_SESSION):
        for s in range(4):
            out = rejected(state, EarlAction(seat(s), kind))
            assert codes(out) == {"TABLE_ACTION_BY_SEAT"}
            assert rule_ids(out) == {"C-SCORE-6"}
    playing, _ = RULES.new_game(EarlConfig(seats=4), SEED)
    assert codes(rejected(playing, EarlAction(seat(playing.turn), ActionKind.END_SESSION))) == {
        "TABLE_ACTION_BY_SEAT"
    }


def test_C_SCORE_6_seat_actions_between_rounds_rejected() -> None:
    state = between_rounds([10, 30, 20, 20], dealer=0)
    for s in range(4):
        assert RULES.legal_actions(state, seat(s)) == []
        assert codes(rejected(state, play(s, "4C", couplet("4", 1)))) == {"ROUND_OVER"}
        assert codes(rejected(state, pass_(s))) == {"ROUND_OVER"}
    assert [a.kind for a in RULES.legal_actions(state, TABLE)] == [
        ActionKind.NEXT_ROUND,
        ActionKind.END_SESSION,
    ]
    assert RULES.legal_actions(state, None) == RULES.legal_actions(state, TABLE)


def test_C_SCORE_6_seat_actions_by_the_table_rejected() -> None:
    state, _ = RULES.new_game(EarlConfig(seats=4), SEED)
    for kind in (ActionKind.PLAY, ActionKind.PASS):
        out = rejected(state, EarlAction(TABLE, kind, 0 if kind is ActionKind.PLAY else -1))
        assert codes(out) == {"SEAT_ACTION_BY_TABLE"}


def test_C_SCORE_6_simple_standings_by_rounds_won() -> None:
    """C-SCORE-6: under simple scoring the standings group seats by rounds won, best
    first; a shared first place gives several winners (no single winner)."""
    state = make_state(
        ["4C", "", "5C 6C", "7C"],
        phase=Phase.BETWEEN_ROUNDS,
        round=5,
        round_winner=1,
        rounds_won=[2, 2, 0, 2],
    )
    board = RULES.scoreboard(state)
    assert board.standings == ((0, 1, 3), (2,))
    out = accepted(state, END_SESSION)
    assert out.state.winners == (0, 1, 3)
    assert events_of(out.events, TiebreakStarted) == []
    state = make_state(
        ["4C", "", "5C 6C", "7C"],
        phase=Phase.BETWEEN_ROUNDS,
        round=5,
        round_winner=1,
        rounds_won=[1, 3, 0, 2],
    )
    assert RULES.scoreboard(state).standings == ((1,), (3,), (0,), (2,))
    out = accepted(state, END_SESSION)
    assert out.state.winners == (1,)
    assert RULES.scoreboard(out.state).finished


def test_C_SCORE_6_next_round_continues_the_session() -> None:
    state = between_rounds([10, 30, 20, 20], dealer=0)
    out = accepted(state, NEXT_ROUND)
    assert out.state.phase is Phase.PLAYING
    assert out.state.round == 4 and out.state.dealer == 1
    assert out.state.counters == state.counters
    assert out.state.rounds_won == state.rounds_won
