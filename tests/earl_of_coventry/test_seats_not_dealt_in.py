"""The rules an action of a seat not dealt in breaks (docs/rules/earl-of-coventry.md,
"A seat not dealt in is told every rule its action breaks"; found by an independent
audit of the variants, 2026-12-06).

Rulebook (shared/rules/earl-of-coventry.md):

- C-SEAT-3: seats "not dealt in (eliminated, C-SCORE-5, or sitting out a tie-break
  round, C-SCORE-4)".
- C-SCORE-5: an eliminated seat is "not dealt in again".
- C-ILL-1: "Playing ... a card not in hand, acting when not on turn ... is illegal."
- docs/api.md, Verdicts: a rejection's ``violations`` name every rule broken (Écarté's
  seat sitting out is told E-TURN and E-CARD besides SEAT_SITS_OUT, D-16).
"""

from __future__ import annotations

from referee.games.earl_of_coventry.state import EarlConfig
from tests.earl_of_coventry.helpers import (
    Scoring,
    couplet,
    make_state,
    pass_,
    play,
    rejected,
    rule_ids,
)


def _elimination_tiebreak() -> object:
    """Four seats, elimination, 20 counters each: seat 0 was eliminated; seats 1 and 3
    shared the most counters (30 each) and play the tie-break; seat 2 sits it out."""
    config = EarlConfig(seats=4, scoring=Scoring.ELIMINATION, starting_counters=20)
    return make_state(
        ["", "2D 3D", "", "5C 6C"],
        config=config,
        turn=3,
        dealer=1,
        eliminated=[0],
        dealt_in=[1, 3],
        tiebreak=True,
        round=3,
        rounds_won=[0, 2, 0, 1],
        counters=[0, 30, 20, 30],
    )


def test_C_SCORE_5_an_eliminated_seat_acting_in_a_tie_break_breaks_C_SCORE_5() -> None:
    """C-SCORE-5: an eliminated seat is not dealt in again, tie-break round or not
    (C-SEAT-3 names C-SCORE-5 for eliminated seats, C-SCORE-4 for seats sitting out a
    tie-break). The referee cites C-SCORE-4 alone because the round is a tie-break."""
    state = _elimination_tiebreak()
    out = rejected(state, play(0, "AC", couplet("A", 1)))
    assert "C-SCORE-5" in rule_ids(out)
    out = rejected(state, pass_(0))
    assert "C-SCORE-5" in rule_ids(out)


def test_C_ILL_1_a_seat_not_dealt_in_also_acts_out_of_turn_with_a_card_not_held() -> None:
    """C-ILL-1: a seat not dealt in (eliminated, or sitting out a tie-break) is never on
    turn and holds no card: its play breaks C-ILL-1 (acting when not on turn, a card not
    in hand) besides C-SCORE-5 / C-SCORE-4, and a rejection names every rule broken."""
    state = _elimination_tiebreak()
    for s in (0, 2):  # eliminated; sitting out the tie-break
        out = rejected(state, play(s, "AC", couplet("A", 1)))
        assert {v.code for v in out.violations} >= {
            "SEAT_NOT_DEALT_IN",
            "NOT_YOUR_TURN",
            "CARD_NOT_IN_HAND",
        }
        assert "C-ILL-1" in rule_ids(out)
        out = rejected(state, pass_(s))
        assert "NOT_YOUR_TURN" in {v.code for v in out.violations}
