"""E-SCORE and E-END: scoring a deal, the end of a game and of the match.

Three deals are used, trumps clubs (7C turned up), dealer seat 0, elder seat 1,
each played out with the first legal card:
- VOLE_D: the dealer takes all five tricks;
- POINT_D: the dealer takes four, the elder one;
- POINT_E: the elder takes three, the dealer two.
"""

from __future__ import annotations

from referee.games.base import PUBLIC_VIEWER, Actor
from referee.games.ecarte import RULES
from referee.games.ecarte import violations as V
from referee.games.ecarte.state import (
    DealScored,
    EcarteConfig,
    EcarteState,
    GameWon,
    MatchWon,
    Phase,
    PointsScored,
    ScoreReason,
)
from tests.ecarte.helpers import (
    accept,
    announce,
    build,
    discard,
    ok,
    play,
    play_out,
    propose,
    refuse,
    rejected,
    wager,
)

ELDER, DEALER = 1, 0
VOLE_D = ("7D 8D 9D 7H 8H", "KC QC JC AC 10C")
POINT_D = ("KC 8D 9D 7H 8H", "QC JC KS QS JS")
POINT_E = ("KC QC JC 7S 8H", "AC 10C KS QH JD")
EXCHANGED = {ELDER: "9S", DEALER: "10S"}  # discards: an exchange happened


def deal(
    hands: tuple[str, str],
    *,
    exchanged: bool = False,
    config: EcarteConfig | None = None,
    points: tuple[int, int] = (0, 0),
    games_won: tuple[int, int] = (0, 0),
    number: int = 0,
) -> EcarteState:
    return build(
        hands[0],
        hands[1],
        "7C",
        phase=Phase.TRICKS,
        discards=EXCHANGED if exchanged else None,
        config=config or EcarteConfig(target_points=9),
        points=points,
        games_won=games_won,
        deal=number,
    )


def scored(state: EcarteState) -> tuple[DealScored, list[PointsScored], EcarteState]:
    after, events = play_out(state)
    (ds,) = [e for e in events if isinstance(e, DealScored)]
    return ds, [e for e in events if isinstance(e, PointsScored)], after


def test_E_SCORE_1_three_or_four_tricks_score_one_point() -> None:
    """E-SCORE-1: the point: 1 point for 3 or 4 tricks."""
    ds, pts, after = scored(deal(POINT_E))
    assert ds.seat == ELDER and ds.tricks == (2, 3) and not ds.vole
    assert [(p.seat, p.points, p.reason) for p in pts] == [(ELDER, 1, ScoreReason.POINT)]
    assert after.points == (0, 1)
    ds, pts, _ = scored(deal(POINT_D, exchanged=True))
    assert ds.seat == DEALER and ds.tricks == (4, 1)
    assert [(p.seat, p.points) for p in pts] == [(DEALER, 1)]


def test_E_SCORE_2_the_vole_scores_two_points() -> None:
    """E-SCORE-2: all five tricks: the vole, 2 points."""
    ds, pts, _ = scored(deal(VOLE_D, exchanged=True))
    assert ds.vole and ds.tricks == (5, 0) and not ds.raised
    assert [(p.seat, p.points, p.reason) for p in pts] == [(DEALER, 2, ScoreReason.VOLE)]
    # The elder's vole is not raised either.
    ds, pts, _ = scored(deal((VOLE_D[1], VOLE_D[0])))
    assert ds.seat == ELDER and ds.vole and not ds.raised
    assert [(p.seat, p.points) for p in pts] == [(ELDER, 2)]


def test_E_SCORE_3_original_hands_raise_the_dealers_point_to_two() -> None:
    """E-SCORE-3: on original hands, the elder short of 3 tricks: the dealer's point
    is 2 points."""
    ds, pts, _ = scored(deal(POINT_D))
    assert ds.original_hands and ds.raised
    assert [(p.seat, p.points) for p in pts] == [(DEALER, 2)]


def test_E_SCORE_3_vole_with_bonus_is_three_points() -> None:
    """E-SCORE-3: a dealer's vole on original hands is 3 points."""
    ds, pts, _ = scored(deal(VOLE_D))
    assert ds.raised and ds.vole
    assert [(p.seat, p.points, p.reason) for p in pts] == [(DEALER, 3, ScoreReason.VOLE)]


def test_E_SCORE_3_no_bonus_for_the_elder() -> None:
    """E-SCORE-3 raises the dealer only: the elder's point stays 1."""
    ds, pts, _ = scored(deal(POINT_E))
    assert ds.original_hands and not ds.raised
    assert [(p.seat, p.points) for p in pts] == [(ELDER, 1)]


def test_E_SCORE_3_bonus_after_a_first_proposal_refused() -> None:
    """E-SCORE-3 / E-EXCH-9: proposal refused: the bonus applies."""
    s = build(*VOLE_D, "7C", config=EcarteConfig(target_points=9))
    s = ok(ok(s, propose(ELDER)).state, refuse(DEALER)).state
    _, pts, _ = scored(s)
    assert [(p.seat, p.points) for p in pts] == [(DEALER, 3)]


def test_E_SCORE_3_no_bonus_after_an_exchange() -> None:
    """E-SCORE-3 / E-EXCH-9: after an exchange, even a later refusal gives no bonus."""
    s = build(
        "7D 8D 9D 7H 9S",
        "KC QC JC AC 10C",
        "7C",
        stock="8H 10S 9H 10H JH QH KH AH 7S 8S JS QS KS AS 10D JD QD KD AD 8C 9C",
        config=EcarteConfig(target_points=9),
    )
    s = ok(ok(s, propose(ELDER)).state, accept(DEALER)).state
    s = ok(s, discard(ELDER, "9S")).state  # draws 8H
    s = ok(s, discard(DEALER, "10C")).state  # draws 10S
    s = ok(ok(s, propose(ELDER)).state, refuse(DEALER)).state
    ds, pts, _ = scored(s)
    assert ds.vole and not ds.original_hands and not ds.raised
    assert [(p.seat, p.points) for p in pts] == [(DEALER, 2)]


def test_E_END_1_game_ends_at_the_target_points_past_it_count() -> None:
    """E-END-1: the game ends when a score reaches the target; points scored past the
    target stay in the record."""
    s = deal(VOLE_D, config=EcarteConfig(target_points=5), points=(4, 3))
    _, pts, after = scored(s)
    assert pts[0].total == 7
    assert after.phase is Phase.MATCH_OVER and after.points == (7, 3)
    assert RULES.scoreboard(after).winners == (DEALER,)


def test_E_END_1_game_does_not_end_below_the_target() -> None:
    """E-END-1: 4 of 5 points is not the end; the next deal follows."""
    s = deal(POINT_E, config=EcarteConfig(target_points=5), points=(0, 3))
    _, _, after = scored(s)
    assert after.phase is not Phase.MATCH_OVER and after.points[ELDER] == 4


def test_E_END_2_match_of_several_games_scores_restart() -> None:
    """E-END-2: a game that does not end the match: scores restart at 0, the next
    deal begins with the next dealer; the first to win the games wins the match."""
    cfg = EcarteConfig(target_points=5, games_to_win=2)
    s = deal(VOLE_D, config=cfg, points=(4, 3))
    after, events = play_out(s)
    assert after.games_won == (1, 0) and after.deal == 1 and after.dealer == 1
    assert after.points in ((0, 0), (0, 1))  # (0, 1) if the new deal turns a king
    assert any(isinstance(e, GameWon) and e.points == (7, 3) for e in events)
    assert not any(isinstance(e, MatchWon) for e in events)
    # Games are numbered from 0: the first was game 0, the deal after it is game 1's.
    assert next(e for e in events if isinstance(e, GameWon)).game == 0 and after.game == 1
    s = deal(VOLE_D, config=cfg, points=(4, 3), games_won=(1, 1), number=4)
    after, events = play_out(s)
    assert after.phase is Phase.MATCH_OVER and after.games_won == (2, 1)
    # Once the match is over, the game is the last one played (the third: 2).
    assert next(e for e in events if isinstance(e, GameWon)).game == 2
    assert after.game == 2 and RULES.view(after, PUBLIC_VIEWER).game == 2
    assert next(e for e in events if isinstance(e, MatchWon)).seat == DEALER


def test_E_END_3_nothing_is_legal_after_the_match() -> None:
    """E-END-3: once the match ends every action is rejected (E-END-3)."""
    cfg = EcarteConfig(target_points=5, gallery=True)
    s = deal(VOLE_D, config=cfg, points=(4, 3))
    after, _ = play_out(s)
    assert after.phase is Phase.MATCH_OVER
    for actor in (None, Actor.of_seat(0), Actor.of_seat(1), Actor.of_spectator("g")):
        assert RULES.legal_actions(after, actor) == []
    for action in (
        play(ELDER, "7D"),
        propose(ELDER),
        announce(DEALER),
        discard(DEALER, "KC"),
        wager("g", 0, 5),
    ):
        assert rejected(after, action) == [V.MATCH_OVER]
        assert RULES.apply(after, action).violations[0].rule_id == "E-END-3"
