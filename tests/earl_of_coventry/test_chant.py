"""Couplets: C-CHANT-1 .. C-CHANT-4.

Every case goes through ``RULES.apply``: a call either lets the card count
(accepted) or is botched (penalized, C-CHANT-3).
"""

from __future__ import annotations

import pytest

from referee.cards import RANK_LABELS
from referee.games.base import Verdict
from referee.games.earl_of_coventry.calls import normalise
from referee.games.earl_of_coventry.state import (
    CardPlayed,
    CoupletBotched,
    EarlConfig,
    EarlState,
    LeadPassed,
    PassedOver,
    PenaltyCharged,
)
from tests.earl_of_coventry.helpers import (
    COUPLETS,
    RANK_WORDS,
    CallStyle,
    Scoring,
    accepted,
    apply_checked,
    card,
    codes,
    couplet,
    events_of,
    make_state,
    penalized,
    play,
    rank,
    rejected,
)

LEADER_HAND = "AC 2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC"


def lead_state(config: EarlConfig | None = None) -> EarlState:
    """Seat 0 leads, holding one card of every rank; the others hold more of a few ranks."""
    return make_state(
        [LEADER_HAND, "AD 5D QD JD 10D", "AH 5H QH JH", "AS 5S QS JS"], config=config, turn=0
    )


def fourth_state(config: EarlConfig | None = None) -> EarlState:
    """Seat 3 is on turn to play the fourth Queen."""
    return make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"],
        config=config,
        run="QC QD QH",
        last_player=2,
        turn=3,
    )


def said_ok(state: EarlState, seat: int, card_text: str, said: str) -> bool:
    out = apply_checked(state, play(seat, card_text, said))
    assert out.verdict in (Verdict.ACCEPTED, Verdict.PENALIZED), out.violations
    if out.verdict is Verdict.PENALIZED:
        assert codes(out) == {"COUPLET_BOTCHED"}
    return out.verdict is Verdict.ACCEPTED


# ---------------------------------------------------------------- C-CHANT-1


@pytest.mark.parametrize("r", range(13))
def test_C_CHANT_1_english_rank_names(r: int) -> None:
    """C-CHANT-1: ``{rank}`` is the English rank name."""
    state = lead_state()
    label = RANK_LABELS[r]
    assert said_ok(state, 0, label + "C", f"There's as good as {RANK_WORDS[r]} can be.")
    # Another rank's name is wrong.
    other = RANK_WORDS[(r + 1) % 13]
    assert not said_ok(state, 0, label + "C", f"There's as good as {other} can be.")


@pytest.mark.parametrize("r", range(1, 10))
def test_C_CHANT_1_numerals_two_to_ten(r: int) -> None:
    """C-CHANT-1: the numerals 2 .. 10 are accepted in place of the name."""
    state = lead_state()
    assert said_ok(state, 0, RANK_LABELS[r] + "C", f"There's as good as {r + 1} can be.")
    assert not said_ok(state, 0, RANK_LABELS[r] + "C", f"There's as good as {r + 2} can be.")


@pytest.mark.parametrize(
    ("card_text", "word"),
    [("AC", "1"), ("JC", "11"), ("QC", "12"), ("KC", "13"), ("AC", "One"), ("JC", "Eleven")],
)
def test_C_CHANT_1_no_numerals_for_ace_and_court_cards(card_text: str, word: str) -> None:
    """C-CHANT-1: only 2 .. 10 have numerals."""
    assert not said_ok(lead_state(), 0, card_text, f"There's as good as {word} can be.")


def test_C_CHANT_1_knave_for_jack() -> None:
    """C-CHANT-1: Knave for Jack, at the lead and when matching."""
    state = lead_state()
    assert said_ok(state, 0, "JC", "There's as good as Knave can be.")
    state = accepted(state, play(0, "JC", "There's as good as Jack can be.")).state
    assert state.turn == 1
    assert said_ok(state, 1, "JD", "There's a Knave as good as he.")
    assert not said_ok(state, 1, "JD", "There's a Knight as good as he.")


def test_C_CHANT_1_numeral_when_matching() -> None:
    state = accepted(lead_state(), play(0, "10C", couplet("10", 1))).state
    assert state.turn == 1
    assert said_ok(state, 1, "10D", "There's a 10 as good as he.")
    assert said_ok(state, 1, "10D", "There's a Ten as good as he.")
    assert not said_ok(state, 1, "10D", "There's a X as good as he.")


def test_C_CHANT_1_aliases_in_custom_templates() -> None:
    """C-CHANT-1 also applies to custom templates (C-VAR-5)."""
    config = EarlConfig(
        seats=4,
        call_style=CallStyle.CUSTOM,
        couplet_templates=("Up goes {rank}!", "{rank} again", "third", "Earl's Court!"),
    )
    state = lead_state(config)
    assert said_ok(state, 0, "JC", "Up goes Knave!")
    assert said_ok(state, 0, "JC", "up goes jack")
    assert said_ok(state, 0, "7C", "Up goes 7!")
    assert not said_ok(state, 0, "AC", "Up goes 1!")


# ---------------------------------------------------------------- C-CHANT-2

LEAD_QUEEN = [
    # (said, matches)
    ("There's as good as Queen can be.", True),
    ("There\u2019s as good as Queen can be.", True),
    ("There\u2018s as good as Queen can be.", True),
    ("There\u02bcs as good as Queen can be.", True),
    ("There\u201bs as good as Queen can be.", True),
    ("There\uff07s as good as Queen can be.", True),
    ("THERE'S AS GOOD AS QUEEN CAN BE", True),
    ("  there's   as\tgood\nas queen\r\ncan be!!!  ", True),
    ("There's\u00a0as\u2003good\u3000as\u2028Queen can be.", True),
    ("There's, as good as \u2014 Queen can be\u2026", True),
    ("\u00abThere's as good as Queen can be.\u00bb \U0001f451", True),
    ("There is as good as Queen can be.", True),
    ("There   is as good as Queen can be.", True),
    ("THERE IS as good as Queen can be.", True),
    ("Theres as good as Queen can be.", False),
    ("There s as good as Queen can be.", False),
    ("There isas good as Queen can be.", False),
    ("Thereis as good as Queen can be.", False),
    ("There's as good as Queen canbe.", False),
    ("There's as\u200bgood as Queen can be.", False),  # zero width space: not white space
    ("There's as good as Queens can be.", False),
    ("There's as good as Queen can be. Hooray", False),
    ("There's as good as Qu\u00e9en can be.", False),
    ("", False),
    ("There's a Queen as good as he.", False),
]


@pytest.mark.parametrize(("said", "ok"), LEAD_QUEEN)
def test_C_CHANT_2_lead_couplet_normalisation(said: str, ok: bool) -> None:
    """C-CHANT-2: case, apostrophes, white space, punctuation, ``there is``."""
    assert said_ok(lead_state(), 0, "QC", said) is ok


FOURTH = [
    ("And there's the Earl of Coventry.", True),
    ("And there's the Earl of Coventry", True),
    ("and THERE\u2019S the earl of coventry!", True),
    ("And there is the Earl of Coventry.", True),
    ("And, there's the Earl of Coventry!", True),
    ("And there's the Earl-of-Coventry.", False),
    ("And theres the Earl of Coventry.", False),
    ("There's the Earl of Coventry.", False),
    ("And there's the Earl of Coventry, Queen.", False),
    ("And there's the Earl o' Coventry.", False),
]


@pytest.mark.parametrize(("said", "ok"), FOURTH)
def test_C_CHANT_2_fourth_couplet_normalisation(said: str, ok: bool) -> None:
    """C-CHANT-2: ``Earl-of-Coventry`` does not match ``Earl of Coventry``."""
    assert said_ok(fourth_state(), 3, "QS", said) is ok


def test_C_CHANT_2_there_is_only_as_whole_words() -> None:
    """C-CHANT-2: ``there is`` is read as ``there's`` only as two whole words."""
    templates = ("Where is {rank}?", "there island", "is there is", "there iss")
    config = EarlConfig(seats=4, call_style=CallStyle.CUSTOM, couplet_templates=templates)
    state = lead_state(config)
    assert said_ok(state, 0, "QC", "Where is Queen?")
    assert not said_ok(state, 0, "QC", "Where's Queen?")
    state = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"],
        config=config,
        run="QC",
        last_player=2,
        turn=3,
    )
    assert said_ok(state, 3, "QS", "There island")
    assert not said_ok(state, 3, "QS", "There's land")
    state = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"], config=config, run="QC QD", last_player=2, turn=3
    )
    assert said_ok(state, 3, "QS", "Is there's")
    assert said_ok(state, 3, "QS", "is there is")
    state = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"],
        config=config,
        run="QC QD QH",
        last_player=2,
        turn=3,
    )
    assert said_ok(state, 3, "QS", "There iss")
    assert not said_ok(state, 3, "QS", "There'ss")


def test_C_CHANT_2_the_article_as_written_a_ace() -> None:
    """C-CHANT-2 compares whole normalised texts: the second couplet is "There's a
    {rank} as good as he." with its article as written, so "an Ace" is botched
    (docs/rules/earl-of-coventry.md, decisions)."""
    second = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"], run="AS", last_player=3, turn=0
    )  # seat 3 led the Ace of spades; seat 0 answers with the Ace of clubs
    assert said_ok(second, 0, "AC", "There's a Ace as good as he.")
    assert not said_ok(second, 0, "AC", "There's an Ace as good as he.")


def test_C_CHANT_1_one_form_of_the_rank_per_couplet() -> None:
    """C-CHANT-1 with C-VAR-5: a template with {rank} twice takes one form of the rank
    in both places (docs/rules/earl-of-coventry.md, decisions)."""
    templates = ("{rank}! {rank}!", "b", "c", "d")
    config = EarlConfig(seats=4, call_style=CallStyle.CUSTOM, couplet_templates=templates)
    assert said_ok(lead_state(config), 0, "10C", "Ten! Ten!")
    assert said_ok(lead_state(config), 0, "10C", "10! 10!")
    assert not said_ok(lead_state(config), 0, "10C", "Ten! 10!")
    assert said_ok(lead_state(config), 0, "JC", "Knave! Knave!")
    assert not said_ok(lead_state(config), 0, "JC", "Jack! Knave!")


def test_C_CHANT_2_unicode_letters_and_digits_are_kept() -> None:
    """C-CHANT-2: letters and digits in the Unicode sense stay (lower-cased); other
    characters go."""
    templates = (
        "Gr\u00f6\u00dfe {rank} \u0663 \u03a9",
        "\u2605 {rank} \u2605",
        "\u00c9T\u00c9",
        "x\u00b2",
    )
    config = EarlConfig(seats=4, call_style=CallStyle.CUSTOM, couplet_templates=templates)
    state = lead_state(config)
    assert said_ok(state, 0, "QC", "GR\u00d6\u00dfE queen \u0663 \u03c9")
    assert not said_ok(state, 0, "QC", "gr\u00f6\u00dfe queen 3 \u03c9")  # the digit is kept as is
    assert not said_ok(state, 0, "QC", "gr\u00f6\u00dfe queen \u03c9")
    assert not said_ok(state, 0, "QC", "grosse queen \u0663 \u03c9")
    state = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"], config=config, run="QC", last_player=2, turn=3
    )
    assert said_ok(state, 3, "QS", "Queen")  # the stars are removed
    assert said_ok(state, 3, "QS", "*** queen ***")
    state = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"], config=config, run="QC QD", last_player=2, turn=3
    )
    assert said_ok(state, 3, "QS", "\u00e9t\u00e9")
    assert not said_ok(state, 3, "QS", "ete")
    state = make_state(
        ["AC 2C", "AD 5D", "AH 5H", "QS 5S"],
        config=config,
        run="QC QD QH",
        last_player=2,
        turn=3,
    )
    assert said_ok(state, 3, "QS", "x")  # superscript two is not a decimal digit
    assert not said_ok(state, 3, "QS", "x2")


def test_C_CHANT_2_lower_cases_as_python_does_in_every_build() -> None:
    """C-CHANT-2: "letters lower-cased" is Python's str.lower(), with Unicode's
    Final_Sigma: a capital sigma ending a word reads as the final sigma. The compiled
    build's own lower() (mypyc) gave a plain sigma there, so "ΣΑΣ" in a template did
    not match "σας" said (found by the differential test run on the compiled build)."""
    assert normalise("\u03a3\u0391\u03a3") == "\u03c3\u03b1\u03c2"  # ΣΑΣ: σας
    assert (
        normalise("Stra\u00dfe \u039f\u03a3\u039f\u03a3 x")
        == "stra\u00dfe \u03bf\u03c3\u03bf\u03c2 x"
    )
    templates = ("{rank} \u03a3\u0391\u03a3", "{rank}", "{rank}", "{rank}")
    config = EarlConfig(seats=4, call_style=CallStyle.CUSTOM, couplet_templates=templates)
    state = lead_state(config)
    assert said_ok(state, 0, "QC", "queen \u03c3\u03b1\u03c2")
    assert said_ok(state, 0, "QC", "QUEEN \u03a3\u0391\u03a3")
    assert not said_ok(state, 0, "QC", "queen \u03c3\u03b1\u03c3")  # not a final sigma


def test_C_CHANT_2_control_separators_are_not_white_space() -> None:
    """C-CHANT-2 (decision): "white space" is the Unicode White_Space property, so the
    information separators U+001C .. U+001F are removed, not turned into spaces."""
    state = lead_state()
    assert said_ok(state, 0, "QC", "There's as good as Queen can\u0085be.")  # NEL is white space
    assert not said_ok(state, 0, "QC", "There's as good as Queen can\u001fbe.")
    assert said_ok(state, 0, "QC", "There's as good as Quee\u001fn can be.")


# ---------------------------------------------------------------- C-CHANT-3


@pytest.mark.parametrize("said", ["", "There's as good as King can be.", "Queen!"])
def test_C_CHANT_3_botched_lead_passes_the_lead_left(said: str) -> None:
    """C-CHANT-3: a leader with a missing or wrong couplet takes the card back; the lead
    passes to the player on the left (verdict penalized, no penalty outside Penalty Earl)."""
    state = lead_state()
    out = penalized(state, play(0, "QC", said))
    assert out.penalties == ()
    assert [v.rule_id for v in out.violations] == ["C-CHANT-3"]
    assert events_of(out.events, CoupletBotched) == [
        CoupletBotched(0, card("QC"), 1, couplet("Q", 1), said)
    ]
    assert events_of(out.events, LeadPassed) == [LeadPassed(0, 1)]
    new = out.state
    assert new.hands == state.hands and new.played == state.played
    assert (new.turn, new.last_player, new.run_length) == (1, 1, 0)
    # Seat 1 now leads anything.
    accepted(new, play(1, "AD", couplet("A", 1)))
    assert codes(rejected(new, play(0, "QC", couplet("Q", 1)))) == {"NOT_YOUR_TURN"}


def test_C_CHANT_3_botched_lead_from_last_seat_wraps() -> None:
    state = make_state(["AC 2C", "AD 5D", "AH 5H", "QS 5S"], turn=3)
    out = penalized(state, play(3, "QS", "no"))
    assert events_of(out.events, LeadPassed) == [LeadPassed(3, 0)]
    assert out.state.turn == 0


def test_C_CHANT_3_botched_lead_passes_to_the_next_seat_dealt_in() -> None:
    """C-CHANT-3: in a tie-break round (C-SCORE-4) the lead passes to the next *player*
    on the left: seats sitting out are skipped."""
    config = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    for dealt_in, leader, dealer, left in (([1, 3], 3, 1, 1), ([0, 2], 0, 2, 2)):
        hands = ["", "", "", ""]
        hands[dealt_in[0]] = "2D 3D 5H"
        hands[dealt_in[1]] = "5C 6C"
        state = make_state(
            hands,
            config=config,
            turn=leader,
            dealer=dealer,
            dealt_in=dealt_in,
            tiebreak=True,
            round=3,
        )
        out = penalized(state, play(leader, hands[leader].split()[0], "no"))
        assert events_of(out.events, LeadPassed) == [LeadPassed(leader, left)]
        assert (out.state.turn, out.state.last_player, out.state.run_length) == (left, left, 0)


def test_C_CHANT_3_botched_match_moves_on_as_after_a_pass() -> None:
    """C-CHANT-3: a matcher who botches is treated as having passed: the turn goes to
    the next holder after them (C-PLAY-3)."""
    state = accepted(lead_state(), play(0, "QC", couplet("Q", 1))).state
    assert state.turn == 1
    out = penalized(state, play(1, "QD", "There's a Queen as good as me."))
    assert out.state.turn == 2
    assert out.state.hands == state.hands
    assert out.state.run_length == 1 and out.state.last_player == 0
    assert events_of(out.events, CardPlayed) == []
    # Seat 2 plays the second Queen: the run position did not move.
    out = accepted(out.state, play(2, "QH", couplet("Q", 2)))
    assert events_of(out.events, CardPlayed)[0].position == 2
    # Seat 1 (who botched) is asked again after the new card? It holds a Queen still:
    # the search from seat 2 goes to seat 3 first.
    assert out.state.turn == 3


def test_C_CHANT_3_botched_match_passes_over_seats_without_the_rank() -> None:
    state = make_state(["5C 7C", "5D KD", "QH 3H", "5S 2S"], turn=0)
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    assert state.turn == 1
    out = penalized(state, play(1, "5D", ""))
    assert events_of(out.events, PassedOver) == [PassedOver(2, rank("5"))]
    assert out.state.turn == 3


# ---------------------------------------------------------------- C-CHANT-4


def test_C_CHANT_4_wrong_rank_is_illegal_whatever_was_said() -> None:
    """C-CHANT-4: the couplet is checked only once the card is legal."""
    state = accepted(lead_state(), play(0, "QC", couplet("Q", 1))).state
    for said in (couplet("5", 2), couplet("Q", 2), "", "nonsense"):
        out = rejected(state, play(1, "5D", said))
        assert codes(out) == {"WRONG_RANK"}


def test_C_CHANT_4_out_of_turn_with_a_botched_couplet_is_just_illegal() -> None:
    state = accepted(lead_state(), play(0, "QC", couplet("Q", 1))).state
    out = rejected(state, play(2, "QH", "blah"))
    assert codes(out) == {"NOT_YOUR_TURN"}


def test_C_CHANT_4_under_penalty_earl_charged_once_as_illegal() -> None:
    """C-CHANT-4 with C-VAR-4: a wrong card with a wrong couplet is one illegal play."""
    config = EarlConfig(seats=4, penalty_earl=True)
    state = accepted(lead_state(config), play(0, "QC", couplet("Q", 1))).state
    out = penalized(state, play(1, "5D", "blah"))
    assert codes(out) == {"WRONG_RANK"}
    assert events_of(out.events, PenaltyCharged) == [PenaltyCharged(1, 1, 1, "WRONG_RANK")]
    assert events_of(out.events, CoupletBotched) == []
    assert out.state.turn == 1  # the correct player carries on


def test_C_CHANT_default_couplets_are_the_rulebook_text() -> None:
    """C-CHANT: the four couplets, word for word, as ``legal_actions`` proposes them."""
    from referee.games.earl_of_coventry import RULES

    state = lead_state()
    calls = {a.card: a.call for a in RULES.legal_actions(state, None)}
    for r in range(13):
        assert calls[r] == COUPLETS[0].replace("{rank}", RANK_WORDS[r])
    state = fourth_state(EarlConfig(seats=4, scoring=Scoring.SIMPLE))
    (action,) = RULES.legal_actions(state, None)
    assert action.call == "And there's the Earl of Coventry."
