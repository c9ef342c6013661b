"""Variants: C-VAR-0 .. C-VAR-7, and combinations of them."""

from __future__ import annotations

import pytest

from referee.cards import card_list
from referee.games.base import PUBLIC_VIEWER, InvalidInput, Penalty, Viewer
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.state import (
    ActionKind,
    CardPlayed,
    CoupletBotched,
    EarlAction,
    EarlConfig,
    EarlState,
    Passed,
    PassedOver,
    PenaltyCharged,
    Phase,
    RoundDealt,
    RoundWon,
    SeatEliminated,
)
from tests.earl_of_coventry.helpers import (
    CUSTOM_TEMPLATES,
    END_SESSION,
    NEXT_ROUND,
    SEED,
    CallStyle,
    Scoring,
    accepted,
    card,
    codes,
    couplet,
    events_of,
    make_state,
    pass_,
    penalized,
    play,
    rejected,
    seat,
)

SNIP = CallStyle.SNIP_SNAP_SNORUM
QUEENS = ("QC", "QD", "QH", "QS")


def queens(config: EarlConfig, run: str = "", turn: int = 0, last: int | None = None) -> EarlState:
    """Four seats, one Queen each (the Queens of ``run`` already played)."""
    hands = ["QC AC 2C", "QD AD 2D", "QH AH 2H", "QS AS 2S"]
    for c in run.split():
        hands = [" ".join(t for t in h.split() if t != c) for h in hands]
    return make_state(
        hands,
        config=config,
        run=run,
        turn=turn,
        last_player=last,
    )


def ok(state: EarlState, s: int, card_text: str, said: str) -> bool:
    out = RULES.apply(state, play(s, card_text, said))
    assert out.verdict.name in ("ACCEPTED", "PENALIZED"), out.violations
    return out.verdict.name == "ACCEPTED"


# ---------------------------------------------------------------- C-VAR-0


def test_C_VAR_0_call_styles() -> None:
    """C-VAR-0: earl (default), snip snap snorum, silent, custom."""
    assert EarlConfig().call_style is CallStyle.EARL
    assert {c.name for c in CallStyle} == {"EARL", "SNIP_SNAP_SNORUM", "SILENT", "CUSTOM"}
    for style in (CallStyle.EARL, SNIP, CallStyle.SILENT):
        RULES.new_game(EarlConfig(call_style=style), SEED)
    RULES.new_game(
        EarlConfig(call_style=CallStyle.CUSTOM, couplet_templates=CUSTOM_TEMPLATES), SEED
    )


@pytest.mark.parametrize(
    ("style", "templates", "field"),
    [
        (CallStyle.CUSTOM, (), "couplet_templates"),
        (CallStyle.CUSTOM, CUSTOM_TEMPLATES[:3], "couplet_templates"),
        (CallStyle.CUSTOM, (*CUSTOM_TEMPLATES, "five"), "couplet_templates"),
        (CallStyle.CUSTOM, ("a", "b", "   ", "d"), "couplet_templates[2]"),
        (CallStyle.CUSTOM, ("a", "b", "", "d"), "couplet_templates[2]"),
        # Punctuation only: empty after C-CHANT-2, so any punctuation would match it.
        (CallStyle.CUSTOM, ("!!!", "...", "---", "???"), "couplet_templates[0]"),
        (CallStyle.CUSTOM, ("a", "b", "c", "\u00a0\u2014\u00a0"), "couplet_templates[3]"),
        (CallStyle.CUSTOM, ("a", "x" * 201, "c", "d"), "couplet_templates[1]"),
        (CallStyle.CUSTOM, ("{suit}", "b", "c", "d"), "couplet_templates[0]"),
        (CallStyle.CUSTOM, ("a", "{rank} {", "c", "d"), "couplet_templates[1]"),
        (CallStyle.CUSTOM, ("a", "b", "c", "} {rank}"), "couplet_templates[3]"),
        (CallStyle.EARL, CUSTOM_TEMPLATES, "couplet_templates"),
        (SNIP, CUSTOM_TEMPLATES, "couplet_templates"),
    ],
)
def test_C_VAR_0_custom_needs_exactly_four_templates(
    style: CallStyle, templates: tuple[str, ...], field: str
) -> None:
    with pytest.raises(InvalidInput) as e:
        RULES.new_game(EarlConfig(call_style=style, couplet_templates=templates), SEED)
    assert field in [v.field for v in e.value.violations]


def test_C_VAR_5_template_errors_say_what_is_wrong() -> None:
    """A blank or punctuation-only template is refused for that, not for its length;
    a long one for its length."""

    def described(templates: tuple[str, ...]) -> list[str]:
        config = EarlConfig(call_style=CallStyle.CUSTOM, couplet_templates=templates)
        with pytest.raises(InvalidInput) as e:
            RULES.new_game(config, SEED)
        return [v.description for v in e.value.violations]

    blank = "needs a letter or a digit: nothing is left of it after C-CHANT-2's normalisation"
    assert described(("a", "b", "   ", "d")) == [f"{blank} (C-VAR-5)"]
    assert described(("a", "b", "c", "!?")) == [f"{blank} (C-VAR-5)"]
    assert described(("a", "x" * 201, "c", "d")) == ["must be at most 200 characters (C-VAR-5)"]


def test_C_VAR_0_custom_templates_at_their_bounds() -> None:
    """A template of 1 and of 200 characters is accepted; {rank} may appear anywhere,
    alone too; one letter or digit among punctuation is enough."""
    for templates in (
        ("a", "x" * 200, "{rank}", "{rank} and {rank}"),
        ("!a!", "7", ".{rank}.", "b"),
    ):
        RULES.new_game(EarlConfig(call_style=CallStyle.CUSTOM, couplet_templates=templates), SEED)


# ---------------------------------------------------------------- C-VAR-1


def test_C_VAR_1_earl_uses_the_couplets() -> None:
    """C-VAR-1: the default call style needs the couplets, not the short calls."""
    state = queens(EarlConfig(seats=4), run="QC", turn=1, last=0)
    assert ok(state, 1, "QD", couplet("Q", 2))
    assert not ok(state, 1, "QD", "Snip!")
    assert not ok(queens(EarlConfig(seats=4)), 0, "QC", "")


# ---------------------------------------------------------------- C-VAR-2


@pytest.mark.parametrize("said", ["", "anything at all", couplet("Q", 1), "Snip!", "Snorum!"])
def test_C_VAR_2_snip_snap_snorum_lead_needs_no_call(said: str) -> None:
    """C-VAR-2: any text, or none, leads; a lead cannot be botched."""
    state = queens(EarlConfig(seats=4, call_style=SNIP, penalty_earl=True))
    out = accepted(state, play(0, "QC", said))
    assert out.state.pool == 0
    assert [a.call for a in RULES.legal_actions(state, None)] == ["", "", ""]


@pytest.mark.parametrize(
    ("run", "good", "bad"),
    [
        ("QC", ["Snip!", "snip", " SNIP ", "Snip"], ["Snap!", "", couplet("Q", 2), "Snip Snip"]),
        ("QC QD", ["Snap!", "snap."], ["Snip!", "Snorum!", couplet("Q", 3)]),
        ("QC QD QH", ["Snorem!", "Snorum!", "snorum"], ["Snap!", "Snorim!", couplet("Q", 4)]),
    ],
)
def test_C_VAR_2_snip_snap_snorum_calls(run: str, good: list[str], bad: list[str]) -> None:
    """C-VAR-2: second card Snip!, third Snap!, fourth Snorem! or Snorum! (after C-CHANT-2)."""
    n = len(run.split())
    state = queens(EarlConfig(seats=4, call_style=SNIP), run=run, turn=n, last=n - 1)
    for said in good:
        assert ok(state, n, QUEENS[n], said), said
    for said in bad:
        out = penalized(state, play(n, QUEENS[n], said))
        assert codes(out) == {"COUPLET_BOTCHED"}
    (action,) = RULES.legal_actions(state, None)
    assert action.call == ("Snip!", "Snap!", "Snorum!")[n - 1]


# ---------------------------------------------------------------- C-VAR-3


@pytest.mark.parametrize("said", ["", "whatever", "Snip!", couplet("K", 2)])
def test_C_VAR_3_silent_earl_ignores_any_text(said: str) -> None:
    """C-VAR-3: no couplets; whatever text comes with a card is ignored; C-CHANT-3 never
    applies."""
    config = EarlConfig(seats=4, call_style=CallStyle.SILENT, penalty_earl=True)
    state = queens(config)
    for s, c in enumerate(("QC", "QD", "QH", "QS")):
        out = accepted(state, play(s, c, said))
        assert events_of(out.events, CoupletBotched) == []
        assert events_of(out.events, CardPlayed)[0].position == s + 1
        state = out.state
    assert state.pool == 0 and state.turn == 3 and state.run_length == 0
    assert all(a.call == "" for a in RULES.legal_actions(state, None))


# ---------------------------------------------------------------- C-VAR-4


def penalty_state(
    counters: list[int] | None = None, scoring: Scoring = Scoring.SIMPLE
) -> EarlState:
    config = EarlConfig(seats=4, penalty_earl=True, scoring=scoring, starting_counters=3)
    return make_state(
        ["5C 7C 9C", "5D KD", "QH 3H", "5S 2S"],
        config=config,
        run="5H",
        last_player=2,
        turn=3,
        counters=counters or [3, 3, 3, 3],
        pool=12 - sum(counters or [3, 3, 3, 3]),
    )


def test_C_VAR_4_botched_couplet_costs_a_counter() -> None:
    """C-VAR-4: a botched couplet costs the offender one counter into the pool; the turn
    moves on as C-CHANT-3 says."""
    state = penalty_state()
    out = penalized(state, play(3, "5S", "Snip!"))
    assert out.penalties == (Penalty(3, 1, "COUPLET_BOTCHED", "C-VAR-4"),)
    assert events_of(out.events, PenaltyCharged) == [PenaltyCharged(3, 1, 1, "COUPLET_BOTCHED")]
    assert out.state.counters == (3, 3, 3, 2) and out.state.pool == 1
    assert out.state.turn == 0  # next holder after seat 3
    assert out.state.hands == state.hands


def test_C_VAR_4_botched_lead_costs_a_counter() -> None:
    """C-VAR-4 with C-CHANT-3: a botched *lead* is a botched couplet too: it costs the
    leader one counter into the pool, and the lead passes to the player on the left."""
    config = EarlConfig(seats=4, penalty_earl=True, starting_counters=3)
    state = make_state(
        ["5C 7C 9C", "5D KD", "QH 3H", "5S 2S"], config=config, turn=0, counters=[3, 3, 3, 3]
    )
    out = penalized(state, play(0, "7C", "There's as good as Nine can be."))
    assert codes(out) == {"COUPLET_BOTCHED"}
    assert out.penalties == (Penalty(0, 1, "COUPLET_BOTCHED", "C-VAR-4"),)
    assert events_of(out.events, PenaltyCharged) == [PenaltyCharged(0, 1, 1, "COUPLET_BOTCHED")]
    assert out.state.counters == (2, 3, 3, 3) and out.state.pool == 1
    assert out.state.hands == state.hands
    assert (out.state.turn, out.state.last_player, out.state.run_length) == (1, 1, 0)
    # A leader with no counters left is still penalized; nothing moves.
    broke = make_state(
        ["5C 7C 9C", "5D KD", "QH 3H", "5S 2S"],
        config=config,
        turn=0,
        counters=[0, 3, 3, 3],
        pool=3,
    )
    out = penalized(broke, play(0, "7C", ""))
    assert out.penalties == (Penalty(0, 0, "COUPLET_BOTCHED", "C-VAR-4"),)
    assert out.state.counters == broke.counters and out.state.pool == 3
    assert out.state.turn == 1


def test_C_VAR_4_pool_and_per_card_payments_together() -> None:
    """C-VAR-4 with C-SCORE-2: under counters scoring the round winner is paid per card
    left by each opponent and also collects the whole pool."""
    config = EarlConfig(seats=3, scoring=Scoring.COUNTERS, penalty_earl=True, starting_counters=5)
    state = make_state(
        ["5C", "2D 3D", "2H 3H 4H"], config=config, turn=0, counters=[4, 5, 3], pool=3
    )
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    (won,) = events_of(out.events, RoundWon)
    assert won.pool_collected == 3
    assert [(p.from_seat, p.amount) for p in won.payments] == [(1, 2), (2, 3)]
    assert out.state.counters == (4 + 2 + 3 + 3, 3, 0) and out.state.pool == 0


def test_C_VAR_4_botch_without_counters_left_moves_nothing() -> None:
    """C-VAR-4: a seat with no counters left is still penalized (nothing moves)."""
    state = penalty_state([3, 3, 3, 0])
    out = penalized(state, play(3, "5S", ""))
    assert out.penalties == (Penalty(3, 0, "COUPLET_BOTCHED", "C-VAR-4"),)
    assert events_of(out.events, PenaltyCharged) == [PenaltyCharged(3, 0, 3, "COUPLET_BOTCHED")]
    assert out.state.counters == state.counters and out.state.pool == 3
    assert out.state.turn == 0


def test_C_VAR_4_illegal_play_out_of_turn_is_penalized() -> None:
    """C-VAR-4: an illegal play is penalized: pool grows, turn and hands unchanged."""
    state = penalty_state()
    out = penalized(state, play(0, "5C", couplet("5", 2)))
    assert codes(out) == {"NOT_YOUR_TURN"}
    assert out.penalties == (Penalty(0, 1, "NOT_YOUR_TURN", "C-VAR-4"),)
    new = out.state
    assert new.counters == (2, 3, 3, 3) and new.pool == 1
    assert new.turn == 3 and new.hands == state.hands and new.played == state.played
    assert new.run_length == state.run_length and new.last_player == state.last_player
    # Again: the pool keeps growing.
    again = penalized(new, play(1, "KD", couplet("K", 2)))
    assert again.state.pool == 2 and again.state.counters == (2, 2, 3, 3)
    accepted(again.state, play(3, "5S", couplet("5", 2)))


@pytest.mark.parametrize(
    ("action", "code"),
    [
        (play(3, "2S", couplet("2", 2)), "WRONG_RANK"),
        (play(3, "5C", couplet("5", 2)), "CARD_NOT_IN_HAND"),
        (pass_(3), "MUST_PLAY_RANK"),
    ],
)
def test_C_VAR_4_every_illegal_play_is_charged(action: EarlAction, code: str) -> None:
    out = penalized(penalty_state(), action)
    assert code in codes(out)
    assert out.state.pool == 1 and out.state.counters[3] == 2
    assert out.state.turn == 3


def test_C_VAR_4_leader_pass_is_charged() -> None:
    state = make_state(
        ["5C 7C 9C", "5D KD", "QH 3H 5H", "5S 2S"],
        config=EarlConfig(seats=4, penalty_earl=True),
        turn=1,
    )
    out = penalized(state, pass_(1))
    assert codes(out) == {"LEADER_CANNOT_PASS"}
    assert out.state.counters == (20, 19, 20, 20) and out.state.pool == 1


def test_C_VAR_4_round_winner_collects_the_pool() -> None:
    """C-VAR-4: the round winner collects the whole pool."""
    config = EarlConfig(seats=4, penalty_earl=True, starting_counters=3)
    state = make_state(
        ["5C 7C", "KD", "5H", "5S 2S"], config=config, turn=0, counters=[1, 3, 2, 2], pool=4
    )
    state = accepted(state, play(0, "5C", couplet("5", 1))).state
    out = accepted(state, play(2, "5H", couplet("5", 2)))
    (won,) = events_of(out.events, RoundWon)
    assert won.pool_collected == 4 and won.payments == ()  # simple scoring: no payments
    assert out.state.counters == (1, 3, 6, 2) and out.state.pool == 0


def test_C_VAR_4_simple_scoring_no_payments_no_elimination() -> None:
    """C-VAR-4: under simple scoring counters serve the pool only; a seat at zero stays
    in; the session ranks by rounds won."""
    config = EarlConfig(seats=3, penalty_earl=True, starting_counters=2)
    state = make_state(["5C", "2D 3D", "2H"], config=config, turn=0, counters=[2, 0, 3], pool=1)
    out = accepted(state, play(0, "5C", couplet("5", 1)))
    assert out.state.counters == (3, 0, 3)
    assert out.state.eliminated == 0
    nxt = accepted(out.state, NEXT_ROUND).state
    assert nxt.dealt_in == 0b111
    state = make_state(
        ["", "2D 3D", "2H"],
        config=config,
        phase=Phase.BETWEEN_ROUNDS,
        round=2,
        round_winner=0,
        rounds_won=[1, 2, 0],
        counters=[6, 0, 0],
    )
    assert RULES.scoreboard(state).standings == ((1,), (0,), (2,))
    assert accepted(state, END_SESSION).state.winners == (1,)


def test_C_VAR_4_starting_stacks_even_under_simple_scoring() -> None:
    state, _ = RULES.new_game(EarlConfig(seats=5, penalty_earl=True, starting_counters=9), SEED)
    assert state.counters == (9,) * 5 and state.pool == 0


def test_C_VAR_4_seats_not_dealt_in_and_between_rounds_plainly_rejected() -> None:
    """C-VAR-4: only seats dealt into the current round are charged, and only during a
    round; malformed actions are errors, not penalties."""
    config = EarlConfig(seats=4, penalty_earl=True, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "2D 3D", "", "5C 6C"],
        config=config,
        turn=3,
        dealer=1,
        dealt_in=[1, 3],
        tiebreak=True,
        round=3,
    )
    for s in (0, 2):
        out = rejected(tiebreak, play(s, "5C", couplet("5", 1)))  # rejected, not penalized
        assert out.violations[0].code == "SEAT_NOT_DEALT_IN"
        assert codes(out) == {"SEAT_NOT_DEALT_IN", "NOT_YOUR_TURN", "CARD_NOT_IN_HAND"}
    between = make_state(
        ["", "2D 3D", "4H", "5C 6C"], config=config, phase=Phase.BETWEEN_ROUNDS, round_winner=0
    )
    for s in range(4):
        assert codes(rejected(between, play(s, "2D", couplet("2", 1)))) == {"ROUND_OVER"}
        assert codes(rejected(between, pass_(s))) == {"ROUND_OVER"}
    with pytest.raises(InvalidInput):
        RULES.apply(tiebreak, EarlAction(seat(3), ActionKind.PLAY, 52, ""))
    with pytest.raises(InvalidInput):
        RULES.apply(tiebreak, EarlAction(seat(4), ActionKind.PLAY, 0, ""))
    # The table is never charged.
    assert codes(rejected(tiebreak, NEXT_ROUND)) == {"ROUND_IN_PROGRESS"}


# ---------------------------------------------------------------- C-VAR-5


def test_C_VAR_5_custom_templates_replace_the_couplets() -> None:
    """C-VAR-5: four templates with an optional {rank}; the default couplets are refused."""
    config = EarlConfig(seats=4, call_style=CallStyle.CUSTOM, couplet_templates=CUSTOM_TEMPLATES)
    state = queens(config)
    calls = {a.card: a.call for a in RULES.legal_actions(state, None)}
    assert calls == {
        card("QC"): "Hic! a Queen for me.",
        card("AC"): "Hic! a Ace for me.",
        card("2C"): "Hic! a Two for me.",
    }
    assert not ok(state, 0, "QC", couplet("Q", 1))
    assert ok(state, 0, "QC", "hic a queen for me")
    assert ok(state, 0, "2C", "Hic! a 2 for me.")  # C-CHANT-1 numerals in templates
    state = accepted(state, play(0, "QC", "Hic! a Queen for me.")).state
    assert not ok(state, 1, "QD", couplet("Q", 2))
    assert not ok(state, 1, "QD", "Hic! a Queen for me.")
    state = accepted(state, play(1, "QD", "Hic! a Queen for thee.")).state
    assert ok(state, 2, "QH", "HIC HIC HIC that makes three")  # no {rank}: same for every rank
    state = accepted(state, play(2, "QH", "Hic hic hic, that makes three.")).state
    assert not ok(state, 3, "QS", couplet("Q", 4))
    out = accepted(state, play(3, "QS", "Hiccup, the Earl of Coventry!"))
    assert events_of(out.events, CardPlayed)[0].call == "Hiccup, the Earl of Coventry!"


# ---------------------------------------------------------------- C-VAR-6


def all_viewers(n: int) -> list[Viewer]:
    return [Viewer.of_seat(s) for s in range(n)] + [PUBLIC_VIEWER, Viewer.of_spectator("x")]


@pytest.mark.parametrize("open_hands", [False, True])
def test_C_VAR_6_open_hands_views(open_hands: bool) -> None:
    """C-VAR-6: with open hands every hand is visible in every view; otherwise a seat
    sees its own hand only and nobody else sees any hand."""
    state, _ = RULES.new_game(EarlConfig(seats=4, open_hands=open_hands), SEED)
    for viewer in all_viewers(4):
        view = RULES.view(state, viewer)
        for sv in view.seats:
            assert sv.card_count == state.hands[sv.seat].bit_count()
            own = viewer.kind.name == "SEAT" and viewer.seat == sv.seat
            if open_hands or own:
                assert sv.hand == tuple(card_list(state.hands[sv.seat]))
            else:
                assert sv.hand is None


def test_C_VAR_6_events_never_reveal_hidden_hands() -> None:
    """C-VAR-6 / C-PLAY-3: the events are public (cut cards, counts dealt, cards played,
    pass-overs); none of them shows a card still hidden in a hand."""
    state, events = RULES.new_game(EarlConfig(seats=4), SEED)
    for viewer in all_viewers(4):
        assert RULES.redact_events(state, events, viewer) == events
    (dealt,) = events_of(events, RoundDealt)
    assert dealt.hand_sizes == (13, 13, 13, 13)
    assert not hasattr(dealt, "hands")


# ---------------------------------------------------------------- C-VAR-7


def test_C_VAR_7_holding_allowed_lets_a_holder_pass() -> None:
    """C-VAR-7: a player on turn who holds the rank may pass and keep the card."""
    config = EarlConfig(seats=4, holding_allowed=True)
    state = queens(config, run="QC", turn=1, last=0)
    legal = RULES.legal_actions(state, None)
    assert [a.kind for a in legal] == [ActionKind.PLAY, ActionKind.PASS]
    out = accepted(state, pass_(1))
    assert events_of(out.events, Passed) == [Passed(1, 11)]
    assert out.state.hands == state.hands
    assert out.state.turn == 2
    assert out.penalties == ()


def test_C_VAR_7_nobody_completes_the_rank() -> None:
    """C-VAR-7 with C-PLAY-7: when every holder passes, the last player leads."""
    config = EarlConfig(seats=4, holding_allowed=True)
    state = queens(config, run="QC QD", turn=2, last=1)
    state = accepted(state, pass_(2)).state
    out = accepted(state, pass_(3))
    assert out.state.turn == 1 and out.state.run_length == 0
    # The Queens are held still and may be led again.
    out = accepted(out.state, play(1, "AD", couplet("A", 1)))
    assert out.state.turn == 2


# ---------------------------------------------------------------- combinations


def test_C_VAR_combination_snip_penalty_elimination_open_hands() -> None:
    """C-VAR-2 + C-VAR-4 + C-SCORE-5 + C-VAR-6 together, step by step."""
    config = EarlConfig(
        seats=3,
        call_style=SNIP,
        scoring=Scoring.ELIMINATION,
        starting_counters=2,
        penalty_earl=True,
        open_hands=True,
    )
    state = make_state(["5C 7C", "5D 2D 3D 4D", "5H 9H"], config=config, turn=0)
    state = accepted(state, play(0, "5C", "hello")).state  # lead: any text
    assert state.turn == 1
    out = penalized(state, play(1, "5D", "Snap!"))  # wrong call: charged, turn moves on
    assert out.state.counters == (2, 1, 2) and out.state.pool == 1 and out.state.turn == 2
    out = accepted(out.state, play(2, "5H", "Snip!"))
    assert events_of(out.events, PassedOver) == [PassedOver(0, 4)]
    assert out.state.turn == 1
    out = penalized(out.state, play(0, "7C", "Snap!"))  # out of turn
    assert out.state.counters == (1, 1, 2) and out.state.pool == 2 and out.state.turn == 1
    state = accepted(out.state, play(1, "5D", "snap")).state  # third Five; no holder left
    assert state.turn == 1 and state.run_length == 0
    for c in ("2D", "3D"):
        state = accepted(state, play(1, c, "")).state
    for viewer in all_viewers(3):
        view = RULES.view(state, viewer)
        assert [sv.hand for sv in view.seats] == [tuple(card_list(h)) for h in state.hands]
    out = accepted(state, play(1, "4D", ""))
    (won,) = events_of(out.events, RoundWon)
    assert won.seat == 1 and won.pool_collected == 2
    assert out.state.counters == (0, 5, 1)
    assert events_of(out.events, SeatEliminated) == [SeatEliminated(0)]
    nxt = accepted(out.state, NEXT_ROUND).state
    assert nxt.dealer == 1  # the last dealer was seat 2; seat 0 is out
    assert nxt.dealt_in == 0b110 and nxt.hands[0] == 0
    assert [h.bit_count() for h in nxt.hands] == [0, 26, 26]
    assert codes(rejected(nxt, play(0, "AC", ""))) == {
        "SEAT_NOT_DEALT_IN",
        "NOT_YOUR_TURN",
        "CARD_NOT_IN_HAND",
    }
