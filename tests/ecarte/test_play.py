"""E-PLAY: the play of the tricks. Trumps are clubs (7C turned up) throughout."""

from __future__ import annotations

from referee.games.ecarte import RULES
from referee.games.ecarte import violations as V
from referee.games.ecarte.state import ActionKind, EcarteConfig, EcarteState, Phase, TrickWon
from tests.ecarte.helpers import build, c, cards, ok, play, rejected, rule_ids

ELDER, DEALER = 1, 0


def answering(responder: str, led: str, elder: str = "JD QD KD AD") -> EcarteState:
    """The elder (seat 1) has led ``led``; the dealer (seat 0) holds ``responder``."""
    return build(elder, responder, "7C", phase=Phase.TRICKS, tricks=led)


def legal_cards(state: EcarteState) -> set[int]:
    return {a.card for a in RULES.legal_actions(state, None) if a.kind is ActionKind.PLAY}


def test_E_PLAY_1_elder_leads_first_then_the_winner_leads() -> None:
    """E-PLAY-1: the elder leads the first trick; each trick's winner leads the next."""
    s = build("7D 8D 9D 7H 9S", "QC JC AC 10H KS", "7C", phase=Phase.TRICKS)
    assert s.turn == ELDER
    assert V.NOT_YOUR_TURN in rejected(s, play(DEALER, "KS"))
    s = ok(s, play(ELDER, "9S")).state
    out = ok(s, play(DEALER, "KS"))
    assert any(isinstance(e, TrickWon) and e.seat == DEALER for e in out.events)
    s = out.state
    assert s.turn == DEALER
    assert rejected(s, play(ELDER, "7D")) == [V.NOT_YOUR_TURN]
    assert rule_ids(s, play(ELDER, "7D")) == ["E-TURN"]


def test_E_PLAY_2_the_leader_may_lead_any_card() -> None:
    """E-PLAY-2: every card of the leader's hand is legal, trumps included."""
    s = build("7D 8C 9D 7H 9S", "QC JC AC 10H KS", "7C", phase=Phase.TRICKS)
    assert legal_cards(s) == set(cards("7D 8C 9D 7H 9S"))


def test_E_PLAY_3_must_follow_suit() -> None:
    """E-PLAY-3: the second player must follow suit if able."""
    s = answering("10H QS KC 8D 7S", "7H")
    assert legal_cards(s) == {c("10H")}
    assert rejected(s, play(DEALER, "QS")) == [V.MUST_FOLLOW_SUIT]
    assert rejected(s, play(DEALER, "KC")) == [V.MUST_FOLLOW_SUIT]  # trumping is no excuse
    assert rule_ids(s, play(DEALER, "QS")) == ["E-PLAY-3"]


def test_E_PLAY_4_must_beat_when_following() -> None:
    """E-PLAY-4: following suit, the second player must beat the card led if able."""
    s = answering("8H JH QS KC 7S", "9H")
    assert legal_cards(s) == {c("JH")}
    assert rejected(s, play(DEALER, "8H")) == [V.MUST_BEAT]
    assert rule_ids(s, play(DEALER, "8H")) == ["E-PLAY-4"]


def test_E_PLAY_4_follow_but_cannot_beat() -> None:
    """E-PLAY-4: with no higher card of the suit, any card of the suit will do."""
    s = answering("8H 9H QS KC 7S", "KH")
    assert legal_cards(s) == set(cards("8H 9H"))
    ok(s, play(DEALER, "8H"))
    assert rejected(s, play(DEALER, "KC")) == [V.MUST_FOLLOW_SUIT]


def test_E_PLAY_4_beat_in_ecarte_order_ace_over_ten() -> None:
    """E-PLAY-4 with E-DECK-2: an ace beats a ten; a jack beats an ace."""
    s = answering("AH 9H QS KC 7S", "10H")
    assert legal_cards(s) == {c("AH")}
    s = answering("10H JH QS KC 7S", "AH")
    assert legal_cards(s) == {c("JH")}
    assert rejected(s, play(DEALER, "10H")) == [V.MUST_BEAT]  # the ten is below the ace


def test_E_PLAY_4_trumps_led_must_beat_in_trumps() -> None:
    """E-PLAY-4: when trumps are led the follower must follow and beat in trumps."""
    s = answering("8C JC KS QS 7S", "9C")
    assert legal_cards(s) == {c("JC")}
    assert rejected(s, play(DEALER, "8C")) == [V.MUST_BEAT]
    assert rejected(s, play(DEALER, "KS")) == [V.MUST_FOLLOW_SUIT]


def test_E_PLAY_5_void_with_trumps_must_trump() -> None:
    """E-PLAY-5: unable to follow, the second player must trump (any trump)."""
    s = answering("8C KC QS KS 7S", "7H")
    assert legal_cards(s) == set(cards("8C KC"))
    assert rejected(s, play(DEALER, "KS")) == [V.MUST_TRUMP]
    assert rule_ids(s, play(DEALER, "QS")) == ["E-PLAY-5"]
    out = ok(s, play(DEALER, "8C"))  # a low trump is enough, and wins
    assert any(isinstance(e, TrickWon) and e.seat == DEALER for e in out.events)


def test_E_PLAY_5_any_trump_held_counts() -> None:
    """E-PLAY-5 with diamonds trumps: a lone ace of trumps obliges (the king of clubs,
    the card just below it in the pack's order, is refused)."""
    s = build("JS QS 9C 10C", "KC AD 8S 9S 10S", "7D", phase=Phase.TRICKS, tricks="7H")
    assert legal_cards(s) == {c("AD")}
    assert rejected(s, play(DEALER, "KC")) == [V.MUST_TRUMP]
    assert rejected(s, play(DEALER, "8S")) == [V.MUST_TRUMP]


def test_E_PLAY_6_void_without_trumps_plays_anything() -> None:
    """E-PLAY-6: unable to follow and without trumps, any card may be played."""
    s = answering("QS KS 7S 8S 9S", "7H")
    assert legal_cards(s) == set(cards("QS KS 7S 8S 9S"))


def test_E_PLAY_7_trick_winner() -> None:
    """E-PLAY-7: a trump wins; otherwise the higher card of the suit led; a card of
    another suit never wins, however high."""
    cases = [
        ("9H", "JH KS QS 7S AS", "JH", DEALER),  # higher card of the suit led
        ("JH", "8H KS QS 7S AS", "8H", ELDER),  # lower card of the suit led
        ("AH", "8C KS QS 7S AS", "8C", DEALER),  # the smallest trump beats an ace
        ("7H", "KS QS 8S 9S AS", "KS", ELDER),  # a discarded king loses
    ]
    for led, hand, answer, winner in cases:
        s = answering(hand, led)
        out = ok(s, play(DEALER, answer))
        (won,) = [e for e in out.events if isinstance(e, TrickWon)]
        assert won.seat == winner, (led, answer)
        assert out.state.tricks_won[winner] == 1 and out.state.turn == winner


def test_D_25_two_trumps_the_higher_wins() -> None:
    """D-25 (E-PLAY-7 with E-PLAY-4): when trumps are led and answered with a trump, the
    higher trump wins, in Écarté order (the king above the ace); a lower trump answered
    is possible only without a higher one, and loses."""
    cases = [
        ("QC", "KC 8H 9H 10H JH", "KC", DEALER),  # the king of trumps beats the queen
        ("AC", "KC 8H 9H 10H JH", "KC", DEALER),  # the king above the ace
        ("KC", "8C 8H 9H 10H JH", "8C", ELDER),  # no higher trump: the led trump wins
        ("9C", "10C 8H 9H 10H JH", "10C", DEALER),
    ]
    for led, hand, answer, winner in cases:
        s = answering(hand, led, elder="JD QD KD AD")
        out = ok(s, play(DEALER, answer))
        (won,) = [e for e in out.events if isinstance(e, TrickWon)]
        assert won.seat == winner, (led, answer)


def test_E_PLAY_8_all_five_tricks_are_played() -> None:
    """E-PLAY-8: no early stop: after one side has three tricks play goes on."""
    s = build(
        "7H 8H",
        "7S 8S",
        "7C",
        phase=Phase.TRICKS,
        tricks="KC 7D QC 8D JC 9D",
        config=EcarteConfig(target_points=9),
    )
    assert s.tricks_won == (0, 3) and s.turn == ELDER
    assert s.phase is Phase.TRICKS and legal_cards(s) == set(cards("7H 8H"))
    s = ok(s, play(ELDER, "7H")).state
    s = ok(s, play(DEALER, "7S")).state
    assert s.deal == 0 and s.tricks_won == (0, 4)
