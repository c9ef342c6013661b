"""Play: C-PLAY-1 .. C-PLAY-8 and illegal plays, C-ILL-1.

Positions are built from readable hands (four seats, dealer 3, so seat 0 is the
eldest); every card not in a hand is in the played pile.
"""

from __future__ import annotations

import pytest

from referee.cards import RANK_LABELS, RANK_MASKS, card_list, name
from referee.games.base import PUBLIC_VIEWER, Actor, Viewer
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.state import (
    NO_RANK,
    ActionKind,
    CardPlayed,
    CoupletBotched,
    CutShortReason,
    EarlConfig,
    EarlState,
    Passed,
    PassedOver,
    Phase,
    RankCompleted,
    RoundWon,
    RunCutShort,
)
from tests.earl_of_coventry.helpers import (
    NEXT_ROUND,
    SEED,
    Scoring,
    accepted,
    card,
    codes,
    couplet,
    events_of,
    first_legal_playout,
    lead_and_play,
    make_state,
    pass_,
    penalized,
    play,
    rank,
    rejected,
    rule_ids,
)

FIVE = rank("5")


def p1() -> EarlState:
    return make_state(["5C 5D 7C 9C", "KD 8D", "QH 5H 3H", "5S 2S"], turn=0)


# ---------------------------------------------------------------- C-PLAY-1


@pytest.mark.parametrize(("n", "dealer"), [(2, 1), (4, 0), (4, 3), (7, 6), (13, 12), (13, 5)])
def test_C_PLAY_1_eldest_leads_first(n: int, dealer: int) -> None:
    """C-PLAY-1: the player to the dealer's left leads the first rank."""
    state, _ = RULES.new_game(EarlConfig(seats=n, first_dealer=dealer), SEED)
    eldest = (dealer + 1) % n
    assert state.turn == eldest
    assert state.run_length == 0 and state.current_rank == NO_RANK
    assert {a.actor.seat for a in RULES.legal_actions(state, None)} == {eldest}
    for s in range(n):
        assert bool(RULES.legal_actions(state, _seat(s))) == (s == eldest)


def test_C_PLAY_1_eldest_leads_every_round() -> None:
    state, _ = RULES.new_game(EarlConfig(seats=3, first_dealer=0), SEED)
    for _ in range(3):
        state = accepted(first_legal_playout(state), NEXT_ROUND).state
        assert state.turn == (state.dealer + 1) % 3
        assert state.run_length == 0


def _seat(s: int) -> Actor:
    return Actor.of_seat(s)


# ---------------------------------------------------------------- C-PLAY-2


def test_C_PLAY_2_leader_may_lead_any_card() -> None:
    """C-PLAY-2: every card in the leader's hand may be led, with the lead couplet;
    its rank becomes the current rank."""
    state, _ = RULES.new_game(EarlConfig(seats=4, first_dealer=3), SEED)
    hand = card_list(state.hands[0])
    legal = RULES.legal_actions(state, _seat(0))
    assert sorted(a.card for a in legal) == hand
    assert all(a.kind is ActionKind.PLAY for a in legal)
    for c in hand:
        out = accepted(state, play(0, name(c), couplet(RANK_LABELS[c % 13], 1)))
        others = sum((h & RANK_MASKS[c % 13]).bit_count() for h in state.hands) - 1
        if others:
            assert (out.state.current_rank, out.state.run_length) == (c % 13, 1)
        else:
            assert events_of(out.events, RunCutShort)[0].reason is CutShortReason.NO_HOLDER
        (played,) = events_of(out.events, CardPlayed)
        assert (played.seat, played.card, played.position) == (0, c, 1)
        assert out.state.played == bytes([c])


# ---------------------------------------------------------------- C-PLAY-3


def test_C_PLAY_3_turn_goes_to_next_holder() -> None:
    """C-PLAY-3: after each card the next holder clockwise plays; seats without the
    rank are passed over, one public event each."""
    state = p1()
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    assert out.state.turn == 2
    assert out.state.current_rank == FIVE and out.state.run_length == 1
    assert out.state.last_player == 0
    assert events_of(out.events, PassedOver) == [PassedOver(1, FIVE)]

    out = accepted(out.state, play(2, "5H", couplet("5", 2)))
    assert out.state.turn == 3
    assert events_of(out.events, PassedOver) == []

    out = accepted(out.state, play(3, "5S", couplet("5", 3)))
    assert out.state.turn == 0
    assert events_of(out.events, PassedOver) == []

    out = accepted(out.state, play(0, "5D", couplet("5", 4)))
    assert events_of(out.events, RankCompleted) == [RankCompleted(FIVE, 0)]


def test_C_PLAY_3_search_wraps_and_passes_over_in_order() -> None:
    """C-PLAY-3: the search goes clockwise and wraps past the last seat."""
    state = make_state(["5C 9C", "5D KD", "QH 3H", "2S 4S"], turn=1)
    out = accepted(state, play(1, "5D", couplet("5", 1)))
    assert out.state.turn == 0
    assert events_of(out.events, PassedOver) == [PassedOver(2, FIVE), PassedOver(3, FIVE)]


def test_C_PLAY_3_player_plays_again_when_no_one_else_holds() -> None:
    """C-PLAY-3: the search runs all the way round to the player, who plays again."""
    state = make_state(["5C 5D 9C", "KD 8D", "QH 3H", "2S 4S"], turn=0)
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    assert out.state.turn == 0
    assert events_of(out.events, PassedOver) == [PassedOver(s, FIVE) for s in (1, 2, 3)]
    out = accepted(out.state, play(0, "5D", couplet("5", 2)))
    assert [e.position for e in events_of(out.events, CardPlayed)] == [2]


def test_C_PLAY_3_search_after_a_pass_goes_on_from_the_decliner() -> None:
    """C-PLAY-3 with C-VAR-7: after a pass the search goes on from the decliner's left,
    up to the player of the most recent card; a decliner is not asked again until
    another card is played."""
    config = EarlConfig(seats=4, holding_allowed=True)
    state = make_state(["5C 5D 9C", "5H KD", "QH 3H", "5S 2S"], config=config, turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    assert state.turn == 1
    out = accepted(state, pass_(1))
    assert events_of(out.events, Passed) == [Passed(1, FIVE)]
    assert events_of(out.events, PassedOver) == [PassedOver(2, FIVE)]
    assert out.state.turn == 3
    out = accepted(out.state, pass_(3))
    # Seat 0 played the most recent card and holds 5D: it plays again; seat 1 is not asked.
    assert out.state.turn == 0
    assert events_of(out.events, PassedOver) == []
    out = accepted(out.state, play(0, "5D", couplet("5", 2)))
    # A new card was played: seat 1 is asked again.
    assert out.state.turn == 1


def test_C_PLAY_3_no_pass_over_events_when_the_run_ends_early() -> None:
    """C-PLAY-3: a search that finds no one emits no pass-over events (C-PLAY-7)."""
    state = make_state(["5C 9C", "KD 8D", "5H QH 3H", "2S 4S"], turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    out = accepted(state, play(2, "5H", couplet("5", 2)))
    assert events_of(out.events, PassedOver) == []
    assert events_of(out.events, RunCutShort) == [RunCutShort(FIVE, 2, 2, CutShortReason.NO_HOLDER)]


# ---------------------------------------------------------------- C-PLAY-4


def test_C_PLAY_4_must_play_current_rank_with_position_couplet() -> None:
    """C-PLAY-4: the player on turn plays a card of the current rank with the couplet
    of its position in the run (2nd, 3rd, 4th)."""
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    legal = RULES.legal_actions(state, _seat(2))
    assert [(a.kind, a.card) for a in legal] == [(ActionKind.PLAY, card("5H"))]
    assert rejected(state, play(2, "3H", couplet("3", 2))).violations[0].code == "WRONG_RANK"
    for wrong in (1, 3, 4):
        out = penalized(state, play(2, "5H", couplet("5", wrong)))
        assert codes(out) == {"COUPLET_BOTCHED"}
    state = accepted(state, play(2, "5H", couplet("5", 2))).state
    for wrong in (1, 2, 4):
        assert codes(penalized(state, play(3, "5S", couplet("5", wrong)))) == {"COUPLET_BOTCHED"}
    state = accepted(state, play(3, "5S", couplet("5", 3))).state
    for wrong in (1, 2, 3):
        assert codes(penalized(state, play(0, "5D", couplet("5", wrong)))) == {"COUPLET_BOTCHED"}
    assert RULES.view(state, PUBLIC_VIEWER).next_call == "And there's the Earl of Coventry."
    accepted(state, play(0, "5D", "And there's the Earl of Coventry."))


def test_C_PLAY_4_view_shows_the_couplet_due() -> None:
    """C-PLAY-4: the couplet due for the next card of the run, as every view shows it."""
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    for viewer in (PUBLIC_VIEWER, Viewer.of_seat(2), Viewer.of_seat(1)):
        assert RULES.view(state, viewer).next_call == couplet("5", 2)
    assert RULES.view(p1(), PUBLIC_VIEWER).next_call == ""  # a lead: any rank


# ---------------------------------------------------------------- C-PLAY-5


def test_C_PLAY_5_the_earl_leads_next() -> None:
    """C-PLAY-5: the player of the fourth card leads the next rank."""
    state = make_state(["5C 9C", "5D KD", "5H QH", "5S 2S 3S"], turn=0)
    state = lead_and_play(state, (0, "5C"), (1, "5D"), (2, "5H"))
    out = accepted(state, play(3, "5S", couplet("5", 4)))
    assert events_of(out.events, RankCompleted) == [RankCompleted(FIVE, 3)]
    new = out.state
    assert (new.turn, new.last_player, new.run_length, new.current_rank) == (3, 3, 0, NO_RANK)
    legal = RULES.legal_actions(new, None)
    assert {a.actor.seat for a in legal} == {3}
    assert sorted(a.card for a in legal) == [card("2S"), card("3S")]
    assert all(a.call == couplet(("2", "3")[a.card - card("2S")], 1) for a in legal)
    assert rejected(new, play(0, "9C", couplet("9", 1))).violations[0].code == "NOT_YOUR_TURN"


# ---------------------------------------------------------------- C-PLAY-6


def test_C_PLAY_6_holder_may_not_pass_by_default() -> None:
    """C-PLAY-6: by default a player on turn who holds the rank must play it."""
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    out = rejected(state, pass_(2))
    assert codes(out) == {"MUST_PLAY_RANK"}
    assert all(a.kind is not ActionKind.PASS for a in RULES.legal_actions(state, None))


@pytest.mark.parametrize("holding", [False, True])
def test_C_PLAY_6_leader_may_never_pass(holding: bool) -> None:
    """C-PLAY-6: a leader may never pass, even under holding allowed."""
    state = make_state(
        ["5C 5D 7C 9C", "KD 8D", "QH 5H 3H", "5S 2S"],
        config=EarlConfig(seats=4, holding_allowed=holding),
        turn=0,
    )
    out = rejected(state, pass_(0))
    assert codes(out) == {"LEADER_CANNOT_PASS"}
    assert all(a.kind is not ActionKind.PASS for a in RULES.legal_actions(state, None))


def test_C_PLAY_6_only_the_player_on_turn_may_pass() -> None:
    """C-PLAY-6: only the player on turn may pass (also under holding allowed)."""
    config = EarlConfig(seats=4, holding_allowed=True)
    state = make_state(["5C 5D 7C 9C", "KD 8D", "QH 5H 3H", "5S 2S"], config=config, turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    assert state.turn == 2
    for s in (0, 1, 3):
        assert "NOT_YOUR_TURN" in codes(rejected(state, pass_(s)))
    accepted(state, pass_(2))


@pytest.mark.parametrize("holding", [False, True])
def test_C_ILL_1_a_pass_out_of_turn_is_only_out_of_turn(holding: bool) -> None:
    """C-ILL-1 / C-PLAY-6: a seat not on turn that passes is told it is not its turn,
    not that a leader may never pass or that it must play a rank it holds: those are
    duties of the seat on turn (docs/rules/earl-of-coventry.md, violation codes)."""
    config = EarlConfig(seats=4, holding_allowed=holding)
    lead = make_state(["5C 5D 7C 9C", "KD 8D", "QH 5H 3H", "5S 2S"], config=config, turn=0)
    for s in (1, 2, 3):  # seat 0 is to lead
        assert codes(rejected(lead, pass_(s))) == {"NOT_YOUR_TURN"}
    state = accepted(lead, play(0, "5C", couplet("5", 1))).state
    assert state.turn == 2
    assert codes(rejected(state, pass_(3))) == {"NOT_YOUR_TURN"}  # seat 3 holds a 5


def test_C_PLAY_6_passing_over_is_free() -> None:
    """C-PLAY-6: seats passed over pay nothing, even under Penalty Earl with counters."""
    config = EarlConfig(seats=4, penalty_earl=True, scoring=Scoring.COUNTERS)
    state = make_state(["5C 9C", "5D KD", "QH 3H", "2S 4S"], config=config, turn=1)
    out = accepted(state, play(1, "5D", couplet("5", 1)))
    assert len(events_of(out.events, PassedOver)) == 2
    assert out.state.counters == state.counters and out.state.pool == 0
    assert out.penalties == ()
    # Under holding allowed a holder's pass is free too.
    config = EarlConfig(seats=4, penalty_earl=True, scoring=Scoring.COUNTERS, holding_allowed=True)
    state = make_state(
        ["5C 9C", "5D KD", "5H 3H", "2S 4S"], config=config, run="5S", turn=0, last_player=3
    )
    out = accepted(state, pass_(0))
    assert out.state.counters == state.counters and out.state.pool == 0
    assert out.penalties == ()
    assert out.state.turn == 1


# ---------------------------------------------------------------- C-PLAY-7


def test_C_PLAY_7_a_no_holder_left() -> None:
    """C-PLAY-7 (a): nobody holds the rank any more; the player of the most recent
    card leads a new rank."""
    state = make_state(["5C 9C", "KD 8D", "QH 3H", "2S 4S"], turn=0)
    out = accepted(state, play(0, "9C", couplet("9", 1)))
    assert events_of(out.events, RunCutShort) == [
        RunCutShort(rank("9"), 1, 0, CutShortReason.NO_HOLDER)
    ]
    assert events_of(out.events, PassedOver) == []
    new = out.state
    assert (new.turn, new.last_player, new.run_length, new.current_rank) == (0, 0, 0, NO_RANK)
    # The next card is a lead: any rank, position 1.
    accepted(new, play(0, "5C", couplet("5", 1)))


def test_C_PLAY_7_b_sole_holder_botches_gets_no_second_try() -> None:
    """C-PLAY-7 (b) with C-CHANT-3: the only holder botches; the run ends and the
    player of the most recent card leads."""
    state = make_state(["5C 7C 9C", "KD 8D", "5H 3H", "2S 4S"], turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    assert state.turn == 2
    out = penalized(state, play(2, "5H", "There's a Fife as good as he."))
    assert events_of(out.events, CoupletBotched)[0].seat == 2
    assert events_of(out.events, RunCutShort) == [
        RunCutShort(FIVE, 1, 0, CutShortReason.ALL_DECLINED)
    ]
    assert events_of(out.events, PassedOver) == []
    new = out.state
    assert new.hands[2] >> card("5H") & 1, "the botched card goes back to hand"
    assert (new.turn, new.run_length, new.current_rank) == (0, 0, NO_RANK)
    assert codes(rejected(new, play(2, "5H", couplet("5", 2)))) == {"NOT_YOUR_TURN"}


def test_C_PLAY_7_b_all_holders_pass() -> None:
    """C-PLAY-7 (b): every holder was on turn since the last card and none played."""
    config = EarlConfig(seats=4, holding_allowed=True)
    state = make_state(["5C 7C 9C", "KD 8D", "5H 7H 3H", "5S 2S"], config=config, turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    state = accepted(state, pass_(2)).state
    assert state.turn == 3
    out = accepted(state, pass_(3))
    assert events_of(out.events, RunCutShort) == [
        RunCutShort(FIVE, 1, 0, CutShortReason.ALL_DECLINED)
    ]
    assert (out.state.turn, out.state.run_length) == (0, 0)


@pytest.mark.parametrize("decline", ["pass", "botch"])
def test_C_PLAY_7_b_player_of_the_most_recent_card_declines(decline: str) -> None:
    """C-PLAY-7 (b) with C-PLAY-3: the sole holder plays again after its own card; when
    it then passes (C-VAR-7) or botches (C-CHANT-3), the run ends and it leads."""
    config = EarlConfig(seats=4, holding_allowed=decline == "pass")
    state = make_state(["5C 5D 9C", "KD 8D", "QH 3H", "2S 4S"], config=config, turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    assert (state.turn, state.last_player, state.run_length) == (0, 0, 1)
    if decline == "pass":
        out = accepted(state, pass_(0))
    else:
        out = penalized(state, play(0, "5D", "There's a Six as good as he."))
    assert events_of(out.events, RunCutShort) == [
        RunCutShort(FIVE, 1, 0, CutShortReason.ALL_DECLINED)
    ]
    assert events_of(out.events, PassedOver) == []
    new = out.state
    assert (new.turn, new.last_player, new.run_length, new.current_rank) == (0, 0, 0, NO_RANK)
    # A new lead: the Five is led again at position 1.
    out = accepted(new, play(0, "5D", couplet("5", 1)))
    assert [e.position for e in events_of(out.events, CardPlayed)] == [1]


def test_C_PLAY_7_rank_cut_short_led_again_counts_from_one() -> None:
    """C-PLAY-7: a rank cut short may be led again later; positions (and couplets)
    count within the new run, from 1."""
    config = EarlConfig(seats=4, holding_allowed=True)
    state = make_state(["5C 7C 9C", "KD 8D", "5H 7H 3H", "5S 2S"], config=config, turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    state = accepted(state, pass_(2)).state
    state = accepted(state, pass_(3)).state  # the Fives are cut short, seat 0 leads
    state = accepted(state, play(0, "7C", couplet("7", 1))).state
    out = accepted(state, play(2, "7H", couplet("7", 2)))
    assert events_of(out.events, RunCutShort)[0].reason is CutShortReason.NO_HOLDER
    state = out.state
    assert state.turn == 2 and state.run_length == 0
    # Leading the Five again: the second couplet is wrong, the lead couplet is right.
    botched = penalized(state, play(2, "5H", couplet("5", 2)))
    assert codes(botched) == {"COUPLET_BOTCHED"}
    out = accepted(state, play(2, "5H", couplet("5", 1)))
    assert [e.position for e in events_of(out.events, CardPlayed)] == [1]
    assert out.state.run_length == 1 and out.state.turn == 3
    out = accepted(out.state, play(3, "5S", couplet("5", 2)))
    assert [e.position for e in events_of(out.events, CardPlayed)] == [2]


# ---------------------------------------------------------------- C-PLAY-8


def test_C_PLAY_8_round_ends_mid_rank() -> None:
    """C-PLAY-8: the round ends the instant a hand is empty, in the middle of a rank."""
    state = make_state(["5C 7C", "KD", "5H", "5S 2S"], turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    out = accepted(state, play(2, "5H", couplet("5", 2)))
    new = out.state
    assert new.phase is Phase.BETWEEN_ROUNDS
    assert new.round_winner == 2
    assert new.rounds_won == (0, 0, 1, 0)
    assert [type(e).__name__ for e in out.events] == ["CardPlayed", "RoundWon"]
    assert events_of(out.events, RoundWon)[0].seat == 2
    assert new.hands[3] >> card("5S") & 1, "seat 3 never got to play its Five"
    assert RULES.legal_actions(new, _seat(3)) == []
    assert codes(rejected(new, play(3, "5S", couplet("5", 3)))) == {"ROUND_OVER"}


def test_C_PLAY_8_the_earl_as_the_last_card_wins() -> None:
    """C-PLAY-8 before C-PLAY-5: the fourth card of a rank that empties the hand wins the
    round; nobody leads a next rank."""
    state = make_state(["5C 7C", "5D KD", "5H QH", "5S"], turn=0)
    state = lead_and_play(state, (0, "5C"), (1, "5D"), (2, "5H"))
    out = accepted(state, play(3, "5S", couplet("5", 4)))
    assert out.state.phase is Phase.BETWEEN_ROUNDS
    assert out.state.round_winner == 3
    assert [type(e).__name__ for e in out.events] == ["CardPlayed", "RoundWon"]
    assert RULES.legal_actions(out.state, _seat(3)) == []


def test_C_PLAY_8_leading_the_last_card_wins() -> None:
    state = make_state(["5C 7C", "KD", "5H 8H", "5S 2S"], turn=1)
    out = accepted(state, play(1, "KD", couplet("K", 1)))
    assert out.state.phase is Phase.BETWEEN_ROUNDS and out.state.round_winner == 1


def test_C_PLAY_8_botching_the_last_card_does_not_end_the_round() -> None:
    """C-PLAY-8: only a legal play empties a hand; a botched couplet takes the card back."""
    state = make_state(["5C 7C", "KD", "5H", "5S 2S"], turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    out = penalized(state, play(2, "5H", "There's a Five as good as me."))
    assert out.state.phase is Phase.PLAYING
    assert out.state.hands[2] == state.hands[2]
    assert out.state.turn == 3


# ---------------------------------------------------------------- C-ILL-1


def test_C_ILL_1_wrong_rank_rejected() -> None:
    """C-ILL-1: a card of the wrong rank is illegal; the state does not change."""
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    out = rejected(state, play(2, "QH", couplet("Q", 2)))
    assert codes(out) == {"WRONG_RANK"}
    accepted(state, play(2, "5H", couplet("5", 2)))  # the correct player carries on


def test_C_ILL_1_card_not_in_hand_rejected() -> None:
    state = p1()
    out = rejected(state, play(0, "KD", couplet("K", 1)))
    assert codes(out) == {"CARD_NOT_IN_HAND"}
    assert "C-ILL-1" in rule_ids(out)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    out = rejected(state, play(2, "5S", couplet("5", 2)))
    assert codes(out) == {"CARD_NOT_IN_HAND"}


def test_C_ILL_1_acting_out_of_turn_rejected() -> None:
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    assert state.turn == 2
    out = rejected(state, play(3, "5S", couplet("5", 2)))
    assert codes(out) == {"NOT_YOUR_TURN"}
    assert rule_ids(out) == {"C-ILL-1"}
    out = rejected(p1(), play(1, "KD", couplet("K", 1)))
    assert codes(out) == {"NOT_YOUR_TURN"}
    accepted(state, play(2, "5H", couplet("5", 2)))


def test_C_ILL_1_pass_while_holding_rejected() -> None:
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    out = rejected(state, pass_(2))
    assert codes(out) == {"MUST_PLAY_RANK"}
    assert out.state is state


def test_C_ILL_1_several_violations_are_all_named() -> None:
    """C-ILL-1: the answer names each violated rule."""
    state = accepted(p1(), play(0, "5C", couplet("5", 1))).state
    out = rejected(state, play(1, "QH", couplet("Q", 2)))
    assert codes(out) == {"NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "WRONG_RANK"}
