"""``RULES.validate``: impossible states are errors of the request, with field paths.

Field paths follow the protobuf contract relative to the game's state message
(``seats[2].hand``, ``config.seats``, ``turn``), see ``referee/games/base.py``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from referee.games.base import InvalidInput
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.state import (
    MAX_COUNTERS,
    MAX_ROUND,
    NO_RANK,
    NO_SEAT,
    EarlConfig,
    EarlState,
    Phase,
)
from tests.earl_of_coventry.helpers import (
    END_SESSION,
    SEED,
    Scoring,
    accepted,
    card,
    invalid_fields,
    make_state,
)


def mid_run(**config: object) -> EarlState:
    """Four seats; seat 2 led 5H, seat 3 is on turn with 5S."""
    cfg = EarlConfig(seats=4, **config)  # type: ignore[arg-type]
    return make_state(
        ["5C 7C 9C", "KD 8D", "QH 3H", "5S 2S"], config=cfg, run="5H", last_player=2, turn=3
    )


def between(**config: object) -> EarlState:
    cfg = EarlConfig(seats=4, **config)  # type: ignore[arg-type]
    return make_state(
        ["5C 7C 9C", "", "QH 3H", "5S 2S"],
        config=cfg,
        phase=Phase.BETWEEN_ROUNDS,
        round=2,
        round_winner=1,
    )


def fresh(n: int = 4) -> EarlState:
    state, _ = RULES.new_game(EarlConfig(seats=n, first_dealer=n - 1), SEED)
    return state


def changed(state: EarlState, edit: Callable[[EarlState], None]) -> EarlState:
    new = state.clone()
    edit(new)
    return new


def move_card(state: EarlState, c: int, src: int, dst: int) -> None:
    hands = list(state.hands)
    hands[src] &= ~(1 << c)
    hands[dst] |= 1 << c
    state.hands = tuple(hands)


def test_valid_positions_pass() -> None:
    for state in (mid_run(), between(), fresh(), fresh(13), mid_run(penalty_earl=True)):
        RULES.validate(state, check_deal=False)


def test_duplicate_card_in_two_hands() -> None:
    def edit(s: EarlState) -> None:
        s.hands = (s.hands[0], s.hands[1] | 1 << card("5C"), *s.hands[2:])

    assert "seats[1].hand" in invalid_fields(changed(mid_run(), edit))


def test_card_both_in_hand_and_played() -> None:
    def edit(s: EarlState) -> None:
        s.hands = (s.hands[0] | 1 << card("5H"), *s.hands[1:])

    assert "played" in invalid_fields(changed(mid_run(), edit))
    with pytest.raises(InvalidInput, match="played: 5H also in a hand"):
        RULES.validate(changed(mid_run(), edit), check_deal=False)


def test_card_played_twice() -> None:
    def edit(s: EarlState) -> None:
        s.played = s.played[:-1] + bytes([s.played[0]]) + s.played[-1:]

    fields = invalid_fields(changed(mid_run(), edit))
    assert "played" in fields


def test_missing_card() -> None:
    def edit(s: EarlState) -> None:
        s.hands = (s.hands[0] & ~(1 << card("9C")), *s.hands[1:])

    assert invalid_fields(changed(mid_run(), edit)) == {"seats"}
    with pytest.raises(InvalidInput, match=r"seats: cards are missing: 9C$"):
        RULES.validate(changed(mid_run(), edit), check_deal=False)


def test_unknown_card_codes() -> None:
    def in_hand(s: EarlState) -> None:
        s.hands = (s.hands[0] | 1 << 55, *s.hands[1:])

    def in_pile(s: EarlState) -> None:
        s.played = bytes([60]) + s.played

    assert "seats[0].hand" in invalid_fields(changed(mid_run(), in_hand))
    assert "played[0]" in invalid_fields(changed(mid_run(), in_pile))
    # The first codes past the pack: 52 (bit 52 of a hand, byte 52 of the pile).
    for code in (52, 53):
        hand = changed(
            mid_run(), lambda s, c=code: setattr(s, "hands", (s.hands[0] | 1 << c, *s.hands[1:]))
        )
        assert "seats[0].hand" in invalid_fields(hand)
        pile = changed(mid_run(), lambda s, c=code: setattr(s, "played", bytes([c]) + s.played))
        assert "played[0]" in invalid_fields(pile)


@pytest.mark.parametrize(("n", "src", "dst"), [(4, 1, 0), (3, 0, 2), (5, 0, 4)])
def test_hand_larger_than_dealt(n: int, src: int, dst: int) -> None:
    """C-DEAL-2: no seat holds more cards than it was dealt (the eldest gets the extras)."""
    state = fresh(n)
    c = next(x for x in range(52) if state.hands[src] >> x & 1)
    assert f"seats[{dst}].hand" in invalid_fields(
        changed(state, lambda s: move_card(s, c, src, dst))
    )


def test_turn_to_a_seat_without_the_rank() -> None:
    """C-PLAY-3: the turn is always on a holder of the current rank."""
    assert invalid_fields(changed(mid_run(), lambda s: setattr(s, "turn", 1))) == {"turn"}


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("turn", 4),
        ("turn", -1),
        ("dealer", -1),
        ("dealer", 4),
        ("dealer", 13),
        ("last_player", 4),
        ("last_player", -1),
        ("last_player", 7),
    ],
)
def test_seat_out_of_range(field: str, value: int) -> None:
    assert invalid_fields(changed(mid_run(), lambda s: setattr(s, field, value))) == {field}


def test_seat_zero_is_a_seat() -> None:
    """Seat 0 may lead, be on turn and deal."""
    cfg = EarlConfig(seats=4)
    state = make_state(
        ["5C 7C 9C", "KD 8D", "QH 3H", "5S 2S"], config=cfg, run="5H", last_player=0, turn=3
    )
    RULES.validate(state, check_deal=False)
    state = make_state(["5C 7C 9C", "KD 8D", "QH 3H", "5S 2S"], config=cfg, turn=0, dealer=0)
    RULES.validate(state, check_deal=False)


def test_turn_and_last_player_are_seats_dealt_in() -> None:
    """C-SCORE-4, C-SCORE-5: the play goes round the seats dealt in only."""
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "2D 3D", "", "5C 6C"], config=cfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True
    )
    RULES.validate(tiebreak, check_deal=False)
    assert invalid_fields(changed(tiebreak, lambda s: setattr(s, "turn", 0))) >= {"turn"}
    for seat in (0, 2):
        moved = changed(tiebreak, lambda s, seat=seat: setattr(s, "last_player", seat))
        assert "last_player" in invalid_fields(moved)


def test_wrong_number_of_seats() -> None:
    def edit(s: EarlState) -> None:
        s.hands = s.hands[:3]

    assert invalid_fields(changed(mid_run(), edit)) == {"seats"}


def test_seed_size() -> None:
    assert invalid_fields(changed(mid_run(), lambda s: setattr(s, "seed", b"x" * 31))) == {"seed"}


def test_config_violations_are_prefixed() -> None:
    """Field paths are relative to the state message: its configuration is ``config``."""
    bad_cfg = EarlConfig(seats=1)
    fields = invalid_fields(changed(mid_run(), lambda s: setattr(s, "config", bad_cfg)))
    assert fields == {"config.seats"}
    bad_cfg = EarlConfig(seats=4, starting_counters=0)
    fields = invalid_fields(changed(mid_run(), lambda s: setattr(s, "config", bad_cfg)))
    assert fields == {"config.starting_counters"}


def test_a_configuration_is_checked_until_it_passes() -> None:
    """Validation checks a state's configuration once it passed (check_once): a bad
    configuration fails every validation, a good one is marked and not checked again."""
    bad_cfg = EarlConfig(seats=1)
    for _ in range(2):
        fields = invalid_fields(changed(mid_run(), lambda s: setattr(s, "config", bad_cfg)))
        assert fields == {"config.seats"} and not bad_cfg.checked
    state = mid_run()
    good = dataclasses.replace(state.config)  # a new configuration of the same value
    assert not good.checked
    RULES.validate(changed(state, lambda s: setattr(s, "config", good)), check_deal=False)
    assert good.checked and good == state.config  # the mark is not part of its value


def test_counters_not_conserved() -> None:
    """C-SCORE-2 / C-VAR-4: stacks plus pool always add up to the starting total."""
    state = mid_run(penalty_earl=True)
    edit = changed(state, lambda s: setattr(s, "counters", (20, 20, 20, 21)))
    assert invalid_fields(edit) == {"seats"}
    edit = changed(state, lambda s: setattr(s, "pool", 1))
    assert invalid_fields(edit) == {"seats"}


def test_negative_pool_or_counters() -> None:
    state = mid_run(penalty_earl=True)

    def negative_pool(s: EarlState) -> None:
        s.pool = -1
        s.counters = (21, 20, 20, 20)

    def negative_stack(s: EarlState) -> None:
        s.counters = (41, -1, 20, 20)

    assert "pool" in invalid_fields(changed(state, negative_pool))
    assert "seats[1].counters" in invalid_fields(changed(state, negative_stack))


def test_counters_at_their_bounds() -> None:
    """C-SCORE-2, C-SCORE-3: a stack is 0 .. every counter of the largest table (one seat
    may hold them all); beyond, or below 0, it is out of range."""
    most = EarlConfig(seats=13, scoring=Scoring.COUNTERS, starting_counters=MAX_COUNTERS)
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    total = MAX_COUNTERS * 13
    state = make_state([f"{r}C" for r in ranks], config=most, counters=[total] + [0] * 12, turn=0)
    RULES.validate(state, check_deal=False)

    def over(s: EarlState) -> None:
        s.counters = (total + 1, *s.counters[1:])
        s.pool = 0

    assert "seats[0].counters" in invalid_fields(changed(state, over))


def test_counters_without_counters_scoring() -> None:
    assert "seats" in invalid_fields(
        changed(mid_run(), lambda s: setattr(s, "counters", (1, 0, 0, 0)))
    )


def test_pool_only_under_penalty_earl() -> None:
    state = mid_run(scoring=Scoring.COUNTERS)

    def edit(s: EarlState) -> None:
        s.pool = 2
        s.counters = (18, 20, 20, 20)

    assert invalid_fields(changed(state, edit)) == {"pool"}


def test_pool_is_collected_at_the_end_of_a_round() -> None:
    """C-VAR-4: the round winner collects the pool: none is left between rounds."""
    state = between(penalty_earl=True)

    def edit(s: EarlState) -> None:
        s.pool = 2
        s.counters = (18, 20, 20, 20)

    assert invalid_fields(changed(state, edit)) == {"pool"}


def test_rounds_won_must_match_rounds_played() -> None:
    edit = changed(mid_run(), lambda s: setattr(s, "rounds_won", (1, 0, 0, 0)))
    assert invalid_fields(edit) == {"seats"}
    edit = changed(mid_run(), lambda s: setattr(s, "rounds_won", (0, -1, 0, 1)))
    assert "seats[1].rounds_won" in invalid_fields(edit)


@pytest.mark.parametrize("value", [-1, MAX_ROUND, 1 << 40])
def test_round_out_of_range(value: int) -> None:
    def edit(s: EarlState) -> None:
        s.round = value
        s.rounds_won = (max(value, 0), 0, 0, 0)

    assert "round" in invalid_fields(changed(mid_run(), edit))


def test_lead_due_fields() -> None:
    lead = make_state(["5C 7C 9C", "KD 8D", "QH 3H 5H", "5S 2S"], turn=2)
    assert invalid_fields(changed(lead, lambda s: setattr(s, "current_rank", 4))) == {
        "current_rank"
    }
    # Within a round, last_player (the player of the finished run's last card) says
    # who leads and turn must follow it: the two differing are reported on turn.
    assert invalid_fields(changed(lead, lambda s: setattr(s, "last_player", 1))) == {"turn"}


def violations_of(state: EarlState) -> list[tuple[str, str]]:
    with pytest.raises(InvalidInput) as e:
        RULES.validate(state, check_deal=False)
    return [(v.field, v.description) for v in e.value.violations]


def test_turn_moved_at_a_lead_is_reported_on_turn_with_the_leader() -> None:
    """C-PLAY-1, C-PLAY-5, C-PLAY-7: at a lead, turn is the leader, whom last_player
    names. A state whose turn was moved to another seat is refused on ``turn`` (not on
    ``last_player``, which the client did not touch), saying which seat leads."""
    first = fresh()  # the round's first lead: the eldest, seat 0, leads (C-PLAY-1)
    assert (first.turn, first.last_player, first.played) == (0, 0, b"")
    assert violations_of(changed(first, lambda s: setattr(s, "turn", 2))) == [
        (
            "turn",
            "must be 0, the leader (last_player), when a lead is due (C-PLAY-1, C-PLAY-5, "
            "C-PLAY-7)",
        )
    ]
    # Within a round: seat 2 played the Earl (C-PLAY-5) or the last card of a run cut
    # short (C-PLAY-7) and leads.
    lead = make_state(["5C 7C 9C", "KD 8D", "QH 3H 5H", "5S 2S"], turn=2)
    assert lead.played and lead.run_length == 0
    for seat in (0, 1, 3):
        assert violations_of(changed(lead, lambda s, seat=seat: setattr(s, "turn", seat))) == [
            (
                "turn",
                "must be 2, the leader (last_player), when a lead is due (C-PLAY-1, "
                "C-PLAY-5, C-PLAY-7)",
            )
        ]
    # At the round's first lead with the eldest on turn, it is last_player that moved.
    assert violations_of(changed(first, lambda s: setattr(s, "last_player", 3))) == [
        (
            "last_player",
            "must be 0, the eldest on turn, when the round's first lead is due (C-PLAY-1)",
        )
    ]
    # A seat not dealt in is reported as such, once.
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "2D 3D", "", "5C 6C"], config=cfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True
    )
    assert violations_of(changed(tiebreak, lambda s: setattr(s, "turn", 0))) == [
        ("turn", "points to a seat not dealt in")
    ]


def test_run_fields() -> None:
    state = mid_run()
    assert "run_length" in invalid_fields(changed(state, lambda s: setattr(s, "run_length", 4)))
    assert "current_rank" in invalid_fields(
        changed(state, lambda s: setattr(s, "current_rank", NO_RANK))
    )
    # The last card played is not of the current rank.
    assert "played" in invalid_fields(changed(state, lambda s: setattr(s, "current_rank", 1)))
    assert "current_rank" in invalid_fields(
        changed(state, lambda s: setattr(s, "current_rank", 13))
    )
    # Runs of aces (rank 0) and of kings (rank 12), three cards long.
    cfg = EarlConfig(seats=4)
    for run, holder in (("AH AD AC", "AS 2S"), ("KH KD KC", "KS 2S")):
        ranks = make_state(
            ["5C 7C 9C", "JD 8D", "QH 3H", holder], config=cfg, run=run, last_player=2, turn=3
        )
        RULES.validate(ranks, check_deal=False)
        assert ranks.run_length == 3


def test_empty_hand_while_playing() -> None:
    """C-PLAY-8: an empty hand ends the round at once."""

    def edit(s: EarlState) -> None:
        move_card(s, card("KD"), 1, 0)
        move_card(s, card("8D"), 1, 0)

    assert "seats[1].hand" in invalid_fields(changed(mid_run(), edit))


def test_round_winner_and_winners_while_playing() -> None:
    assert invalid_fields(changed(mid_run(), lambda s: setattr(s, "round_winner", 1))) == {
        "round_winner"
    }
    assert invalid_fields(changed(mid_run(), lambda s: setattr(s, "winners", (1,)))) == {"winners"}


def test_between_rounds_fields() -> None:
    state = between()
    assert "round_winner" in invalid_fields(changed(state, lambda s: setattr(s, "round_winner", 0)))
    assert "round_winner" in invalid_fields(
        changed(state, lambda s: setattr(s, "round_winner", NO_SEAT))
    )
    assert "tiebreak" in invalid_fields(changed(state, lambda s: setattr(s, "tiebreak", True)))
    assert "winners" in invalid_fields(changed(state, lambda s: setattr(s, "winners", (1,))))
    for w in (4, 13):
        assert "round_winner" in invalid_fields(
            changed(state, lambda s, w=w: setattr(s, "round_winner", w))
        )
    # Seat 0 may win a round; a seat not dealt in may not.
    cfg = EarlConfig(seats=4)
    first = make_state(
        ["", "KD 8D", "QH 3H", "5S 2S"], config=cfg, phase=Phase.BETWEEN_ROUNDS, round_winner=0
    )
    RULES.validate(first, check_deal=False)
    counters = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "", "", "5C 6C"],
        config=counters,
        phase=Phase.BETWEEN_ROUNDS,
        dealer=1,
        dealt_in=[1, 3],
        tiebreak=True,
        round_winner=1,
        check=False,
    )
    assert "round_winner" not in invalid_fields(tiebreak)
    assert "round_winner" in invalid_fields(
        changed(tiebreak, lambda s: setattr(s, "round_winner", 0))
    )


def test_between_rounds_only_the_winner_has_an_empty_hand() -> None:
    """C-PLAY-8: play stops when the first hand empties; every other seat dealt in still
    holds cards."""

    def edit(s: EarlState) -> None:
        move_card(s, card("5S"), 3, 0)
        move_card(s, card("2S"), 3, 0)

    assert "seats[3].hand" in invalid_fields(changed(between(), edit))


def test_session_over_fields() -> None:
    over = accepted(between(), END_SESSION).state
    RULES.validate(over, check_deal=False)
    assert "winners" in invalid_fields(changed(over, lambda s: setattr(s, "winners", ())))
    assert "winners" in invalid_fields(changed(over, lambda s: setattr(s, "winners", (1, 1))))
    assert "winners" in invalid_fields(changed(over, lambda s: setattr(s, "winners", (9,))))
    assert "winners" in invalid_fields(changed(over, lambda s: setattr(s, "winners", (4,))))
    assert "winners" in invalid_fields(changed(over, lambda s: setattr(s, "winners", (-1,))))
    assert over.winners != (0,)
    RULES.validate(changed(over, lambda s: setattr(s, "winners", (0,))), check_deal=False)
    assert "round_winner" in invalid_fields(changed(over, lambda s: setattr(s, "round_winner", 9)))
    assert "round_winner" in invalid_fields(changed(over, lambda s: setattr(s, "round_winner", 0)))


def test_dealer_must_be_dealt_in() -> None:
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "2D 3D", "", "5C 6C"], config=cfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True
    )
    assert "dealer" in invalid_fields(changed(tiebreak, lambda s: setattr(s, "dealer", 2)))


def test_seat_flags() -> None:
    state = mid_run()
    assert "seats" in invalid_fields(
        changed(state, lambda s: setattr(s, "dealt_in", 0b110000 | 15))
    )
    # A seat not dealt in outside a tie-break, while not eliminated.
    assert "seats" in invalid_fields(changed(state, lambda s: setattr(s, "dealt_in", 0b1011)))
    # Elimination under counters scoring.
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    counters = make_state(["5C 7C 9C", "KD 8D", "QH 3H", "5S 2S"], config=cfg, turn=0)
    assert "seats" in invalid_fields(changed(counters, lambda s: setattr(s, "eliminated", 2)))


def test_eliminated_seats() -> None:
    """C-SCORE-5: an eliminated seat has no counters and is not dealt into a new round."""
    cfg = EarlConfig(seats=4, scoring=Scoring.ELIMINATION, starting_counters=10)
    state = make_state(
        ["5C 7C 9C", "", "QH 3H", "5S 2S"],
        config=cfg,
        turn=0,
        eliminated=[1],
        counters=[10, 0, 10, 20],
    )

    def dealt(s: EarlState) -> None:
        s.dealt_in = 0b1111

    def stack(s: EarlState) -> None:
        s.counters = (10, 1, 10, 19)

    assert "seats" in invalid_fields(changed(state, dealt))
    assert "seats[1].counters" in invalid_fields(changed(state, stack))


def test_eliminated_at_the_end_of_the_last_round_is_valid() -> None:
    """C-SCORE-5: between rounds, a seat eliminated by the last round's payments was
    dealt into that round and still shows its cards."""
    cfg = EarlConfig(seats=3, scoring=Scoring.ELIMINATION, starting_counters=4)
    state = make_state(
        ["", "2D 3D 4D", "2H"],
        config=cfg,
        phase=Phase.BETWEEN_ROUNDS,
        round_winner=0,
        eliminated=[1],
        dealt_in=[0, 1, 2],
        counters=[10, 0, 2],
    )
    RULES.validate(state, check_deal=False)
    # But a seat eliminated earlier, holding no cards, was not dealt in.
    earlier = changed(state, lambda s: move_card(s, card("2D"), 1, 2))
    earlier = changed(earlier, lambda s: move_card(s, card("3D"), 1, 2))
    earlier = changed(earlier, lambda s: move_card(s, card("4D"), 1, 2))
    assert "seats[1].hand" in invalid_fields(earlier)


def test_survivor_without_counters_between_rounds() -> None:
    """C-SCORE-5: after a round's payments a seat with no counters is eliminated."""
    cfg = EarlConfig(seats=3, scoring=Scoring.ELIMINATION, starting_counters=4)
    state = make_state(
        ["", "2D 3D 4D", "2H"],
        config=cfg,
        phase=Phase.BETWEEN_ROUNDS,
        round_winner=0,
        counters=[10, 0, 2],
        check=False,
    )
    assert invalid_fields(state) == {"seats[1].counters"}


def test_fewer_than_two_seats_dealt_in() -> None:
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "2D 3D", "", "5C 6C"], config=cfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True
    )

    def edit(s: EarlState) -> None:
        s.dealt_in = 0b1000
        s.dealer = 3
        s.hands = (0, 0, 0, s.hands[1] | s.hands[3])

    assert invalid_fields(changed(tiebreak, edit)) == {"seats"}


def test_not_dealt_in_holds_no_cards() -> None:
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    tiebreak = make_state(
        ["", "2D 3D", "", "5C 6C"], config=cfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True
    )
    assert "seats[0].hand" in invalid_fields(
        changed(tiebreak, lambda s: move_card(s, card("2D"), 1, 0))
    )


def test_new_game_seed_must_be_32_bytes() -> None:
    """SHUF: a game is created from a seed of 32 bytes."""
    for seed in (b"", b"short", bytes(33)):
        with pytest.raises(InvalidInput) as e:
            RULES.new_game(EarlConfig(), seed)
        assert [v.field for v in e.value.violations] == ["seed"]


def test_C_DEAL_2_hands_hold_only_cards_the_seed_dealt_them() -> None:
    """C-DEAL-1/C-DEAL-2: a state from a request may not move cards between hands, even
    keeping every count: each hand holds only cards the seed dealt to that seat."""
    state, _ = RULES.new_game(EarlConfig(seats=4, first_dealer=0), bytes(range(32)))
    RULES.validate(state)
    a, b = state.hands[1], state.hands[2]
    low_a, low_b = a & -a, b & -b
    swapped = changed(
        state,
        lambda s: setattr(
            s, "hands", (s.hands[0], a ^ low_a | low_b, b ^ low_b | low_a, s.hands[3])
        ),
    )
    with pytest.raises(InvalidInput) as info:
        RULES.validate(swapped)
    fields = {v.field for v in info.value.violations}
    assert fields == {"seats[1].hand", "seats[2].hand"}
    RULES.validate(swapped, check_deal=False)  # what hand-built test positions rely on
    # Two seats too.
    state, _ = RULES.new_game(EarlConfig(seats=2, first_dealer=0), bytes(range(32)))
    RULES.validate(state)
    a, b = state.hands
    low_a, low_b = a & -a, b & -b
    swapped = changed(state, lambda s: setattr(s, "hands", (a ^ low_a | low_b, b ^ low_b | low_a)))
    with pytest.raises(InvalidInput) as info:
        RULES.validate(swapped)
    assert {v.field for v in info.value.violations} == {"seats[0].hand", "seats[1].hand"}


def test_C_SCORE_4_a_tiebreak_state_must_be_one_the_rules_deal() -> None:
    """C-SCORE-4: a tie-break round is dealt only with counters, after at least one
    round, to exactly the seats sharing the most counters; once over, its winner alone
    wins. A plain state claiming a tie-break otherwise (which would skip C-SCORE-2's
    payments for cards left) is refused on ``tiebreak``."""
    cfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS)
    hands = ["", "2D 3D", "", "5C 6C"]
    ok = make_state(hands, config=cfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True)
    assert (ok.round, ok.counters) == (1, (18, 22, 18, 22))
    # In round 0, with every seat dealt in: the audit's state, which ended the session
    # with no payments.
    everyone = make_state(["2D 3D", "4H", "5C 6C", "7S"], config=cfg, turn=0, dealer=3)
    assert invalid_fields(changed(everyone, lambda s: setattr(s, "tiebreak", True))) == {"tiebreak"}
    # Under simple scoring there is no tie-break (C-SCORE-6: a shared win).
    simple = make_state(["2D 3D", "4H", "5C 6C", "7S"], turn=0, dealer=3, round=2)
    assert invalid_fields(changed(simple, lambda s: setattr(s, "tiebreak", True))) == {"tiebreak"}
    # Dealt to seats that did not share the most counters.
    bad_counters = ((22, 18, 18, 22), (19, 22, 19, 20), (20, 20, 20, 20), (21, 19, 19, 21))
    for counters in bad_counters:
        state = changed(ok, lambda s, c=counters: setattr(s, "counters", c))
        assert invalid_fields(state) == {"tiebreak"}, counters
    for counters in ((16, 24, 16, 24), (19, 21, 19, 21), (0, 40, 0, 40)):
        state = changed(ok, lambda s, c=counters: setattr(s, "counters", c))
        RULES.validate(state, check_deal=False)  # the others had fewer, by any margin
    # Penalty Earl in a tie-break: its seats' counters plus the pool are what they had.
    pcfg = EarlConfig(seats=4, scoring=Scoring.COUNTERS, penalty_earl=True)
    paid = make_state(
        hands, config=pcfg, turn=3, dealer=1, dealt_in=[1, 3], tiebreak=True,
        counters=(18, 21, 18, 22), pool=1,
    )  # fmt: skip
    assert paid.pool == 1
    assert invalid_fields(changed(paid, lambda s: setattr(s, "counters", (19, 20, 18, 22)))) == {
        "tiebreak"
    }
    # Over: the tie-break's winner alone.
    done = make_state(
        ["", "", "", "5C"], config=cfg, dealer=1, dealt_in=[1, 3], tiebreak=True,
        phase=Phase.SESSION_OVER, round_winner=1, winners=(1,),
        counters=(18, 22, 18, 22), rounds_won=(0, 2, 0, 0),
    )  # fmt: skip
    assert invalid_fields(changed(done, lambda s: setattr(s, "winners", (1, 3)))) == {"winners"}
