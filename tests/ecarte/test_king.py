"""E-KING: the king of trumps."""

from __future__ import annotations

from referee.games.ecarte import RULES
from referee.games.ecarte import violations as V
from referee.games.ecarte.state import (
    ActionKind,
    EcarteConfig,
    EcarteState,
    GameWon,
    KingAnnounced,
    Phase,
    PointsScored,
    ScoreReason,
)
from tests.ecarte.helpers import (
    accept,
    announce,
    build,
    discard,
    key,
    ok,
    play,
    propose,
    refuse,
    rejected,
    rule_ids,
    seat,
)

ELDER, DEALER = 1, 0
# Trumps are clubs (7C turned up); the dealer holds the king of trumps.
E_HAND = "7D 8D 9D 7H 9S"
D_HAND = "KC QC JC 10H KS"


def fresh(phase: Phase = Phase.PROPOSAL, **kw: object) -> EcarteState:
    return build(E_HAND, D_HAND, "7C", phase=phase, **kw)  # type: ignore[arg-type]


def test_E_KING_1_announce_out_of_turn_scores_at_once() -> None:
    """E-KING-1: the holder announces while the other player is on turn and scores 1
    point at once; the turn does not change."""
    s = fresh()
    assert s.turn == ELDER
    assert key(announce(DEALER)) in {key(a) for a in RULES.legal_actions(s, None)}
    assert RULES.legal_actions(s, seat(DEALER)) == [announce(DEALER)]
    out = ok(s, announce(DEALER))
    assert out.state.points == (1, 0) and out.state.turn == ELDER
    assert out.state.king_announced == DEALER
    assert [type(e) for e in out.events] == [KingAnnounced, PointsScored]
    scored = out.events[1]
    assert isinstance(scored, PointsScored) and scored.reason is ScoreReason.ANNOUNCED_KING


def test_E_KING_1_announce_in_every_phase_before_the_first_lead() -> None:
    """E-KING-1: any moment before the first card is led: proposal, answer, both
    discards, and after a refusal before the lead."""
    states = [fresh(p) for p in (Phase.PROPOSAL, Phase.ANSWER, Phase.ELDER_DISCARD)]
    states.append(ok(fresh(Phase.ELDER_DISCARD), discard(ELDER, "7D")).state)
    states.append(ok(ok(fresh(), propose(ELDER)).state, refuse(DEALER)).state)
    assert states[-2].phase is Phase.RESPONDER_DISCARD
    assert states[-1].phase is Phase.TRICKS and not states[-1].tricks
    for s in states:
        assert ok(s, announce(DEALER)).state.points[DEALER] == 1


def test_E_KING_1_too_late_after_the_first_lead() -> None:
    """E-KING-1: after the first lead the right is lost."""
    s = ok(fresh(), play(ELDER, "7D")).state
    assert rejected(s, announce(DEALER)) == [V.KING_TOO_LATE]
    assert rule_ids(s, announce(DEALER)) == ["E-KING-1"]
    assert ActionKind.ANNOUNCE_KING not in {a.kind for a in RULES.legal_actions(s, None)}
    (v,) = RULES.apply(s, announce(DEALER)).violations
    assert v.message == (
        "the king must be announced before the first lead; 1 card(s) of this deal have been played"
    )


def test_E_KING_2_announcing_without_the_king_is_rejected() -> None:
    """E-KING-2: only the holder of the king of trumps may announce."""
    s = fresh()
    assert rejected(s, announce(ELDER)) == [V.KING_NOT_HELD]
    assert rule_ids(s, announce(ELDER)) == ["E-KING-2"]
    (v,) = RULES.apply(s, announce(ELDER)).violations
    assert v.message == "seat 1 does not hold KC"
    # A turned-up king is held by nobody (D-7), and the message says why.
    t = build("7D 8D 9D 7H 9S", "QC JC 10H KS QS", "KC", points=(1, 0))
    assert rejected(t, announce(DEALER)) == [V.KING_NOT_HELD]
    assert rejected(t, announce(ELDER)) == [V.KING_NOT_HELD]
    for who in (DEALER, ELDER):
        (v,) = RULES.apply(t, announce(who)).violations
        assert v.message == "KC is the turn-up, which nobody holds (D-7)"


def test_E_KING_3_announced_king_may_not_be_discarded() -> None:
    """E-KING-3: once announced the king stays in hand through the exchange."""
    s = ok(fresh(), announce(DEALER)).state
    s = ok(ok(s, propose(ELDER)).state, accept(DEALER)).state
    s = ok(s, discard(ELDER, "7D")).state
    assert rejected(s, discard(DEALER, "KC QC")) == [V.ANNOUNCED_KING_DISCARDED]
    assert rule_ids(s, discard(DEALER, "KC")) == ["E-KING-3"]
    listed = [a for a in RULES.legal_actions(s, None) if a.kind is ActionKind.DISCARD]
    assert listed and all(play(0, "KC").card not in a.cards for a in listed)
    assert len(listed) == 15  # every non-empty subset of the four other cards
    ok(s, discard(DEALER, "QC JC"))


def test_E_KING_3_the_announced_king_is_named_also_out_of_turn() -> None:
    """E-KING-3 with "every rejection names the rules broken": the announcer naming the
    king in a discard while the other seat is to discard is told both rules (D-6);
    the other seat naming that king does not hold it (E-CARD alone)."""
    s = fresh(Phase.ELDER_DISCARD, king_announced=DEALER, points=(1, 0))
    assert s.turn == ELDER
    assert rejected(s, discard(DEALER, "KC")) == [V.NOT_YOUR_TURN, V.ANNOUNCED_KING_DISCARDED]
    assert rejected(s, discard(DEALER, "QC")) == [V.NOT_YOUR_TURN]
    assert rejected(s, discard(ELDER, "KC")) == [V.CARD_NOT_IN_HAND]
    t = fresh(Phase.TRICKS, king_announced=DEALER, points=(1, 0))
    assert rejected(t, discard(DEALER, "KC")) == [
        V.NOT_YOUR_TURN,
        V.WRONG_PHASE,
        V.ANNOUNCED_KING_DISCARDED,
    ]


def test_E_KING_3_binds_the_announcer_only() -> None:
    """E-KING-3 / D-6: the elder naming the king the dealer announced does not hold it:
    that is E-CARD alone, not a discard of the announced king (found by the differential
    test, tests/differential)."""
    s = ok(fresh(), announce(DEALER)).state
    s = ok(ok(s, propose(ELDER)).state, accept(DEALER)).state
    assert rejected(s, discard(ELDER, "KC")) == [V.CARD_NOT_IN_HAND]
    assert rule_ids(s, discard(ELDER, "KC 7D")) == ["E-CARD"]


def test_E_KING_3_an_unannounced_king_may_be_discarded() -> None:
    """E-KING-3 applies to an announced king only; discarding loses the right."""
    s = ok(fresh(Phase.ELDER_DISCARD), discard(ELDER, "7D")).state
    s = ok(s, discard(DEALER, "KC")).state
    assert rejected(s, announce(DEALER)) == [V.KING_NOT_HELD]


def test_E_KING_4_announcement_reaching_the_target_ends_the_game() -> None:
    """E-KING-4 / E-END-1: the announced king's point reaching the target ends the game
    at once; the deal is not played out; a match of one game is over."""
    s = fresh(config=EcarteConfig(target_points=5), points=(4, 2))
    out = ok(s, announce(DEALER))
    assert out.state.phase is Phase.MATCH_OVER
    assert out.state.points == (5, 2) and out.state.games_won == (1, 0)
    assert any(isinstance(e, GameWon) and e.seat == DEALER for e in out.events)
    assert RULES.legal_actions(out.state, None) == []


def test_E_KING_4_announcement_ending_a_game_deals_the_next_at_once() -> None:
    """E-KING-4 / E-DEAL-5: with more games to play the next deal follows at once."""
    cfg = EcarteConfig(target_points=5, games_to_win=2)
    s = fresh(config=cfg, points=(4, 2))
    out = ok(s, announce(DEALER))
    assert out.state.phase is Phase.PROPOSAL
    assert out.state.deal == 1 and out.state.dealer == 1
    assert out.state.games_won == (1, 0)
    assert out.state.points in ((0, 0), (0, 1))  # (0, 1): the new deal turned a king


def test_E_KING_5_only_once_per_deal() -> None:
    """E-KING-5: the king is announced once per deal."""
    s = ok(fresh(), announce(DEALER)).state
    assert rejected(s, announce(DEALER)) == [V.KING_ALREADY_ANNOUNCED]
    assert rule_ids(s, announce(DEALER)) == ["E-KING-5"]
    assert RULES.legal_actions(s, seat(DEALER)) == []


def test_E_SCORE_4_king_points_come_before_the_tricks() -> None:
    """E-SCORE-4: the announced king scores when announced; the deal's points add
    after the tricks."""
    from tests.ecarte.helpers import play_out

    s = ok(fresh(config=EcarteConfig(target_points=9)), announce(DEALER)).state
    assert s.points == (1, 0)
    s = ok(s, play(ELDER, "7D")).state
    after, events = play_out(s)
    (deal_points,) = [e for e in events if isinstance(e, PointsScored)]
    # The dealer's five trumps-and-kings take every trick: a raised vole (E-SCORE-3).
    assert (deal_points.seat, deal_points.points, deal_points.total) == (DEALER, 3, 4)
    assert after.points == (4, 0) and after.deal == 1
