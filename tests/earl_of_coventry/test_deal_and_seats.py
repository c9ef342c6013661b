"""Deck, seats and the deal: C-DECK-1, C-SEAT-1 .. C-SEAT-3, C-DEAL-1, C-DEAL-2."""

from __future__ import annotations

import hashlib

import pytest

from referee.cards import FULL_DECK, FULL_MASK, RANK_LABELS, card_list, name
from referee.games.base import InvalidInput
from referee.games.earl_of_coventry import RULES
from referee.games.earl_of_coventry.state import (
    NO_RANK,
    DealerCut,
    EarlConfig,
    EarlState,
    Phase,
    RoundDealt,
    hand_size_dealt,
)
from referee.shuffle import shuffle
from tests.earl_of_coventry.helpers import (
    NEXT_ROUND,
    SEED,
    Scoring,
    accepted,
    couplet,
    deal_reference,
    events_of,
    first_legal_playout,
    lead_and_play,
    make_state,
    play,
)


def seeds(count: int, tag: bytes = b"deal") -> list[bytes]:
    return [hashlib.sha256(tag + b"-%d" % i).digest() for i in range(count)]


# ---------------------------------------------------------------- C-DECK-1


@pytest.mark.parametrize("n", range(2, 14))
def test_C_DECK_1_the_full_pack_is_dealt_once(n: int) -> None:
    """C-DECK-1: all 52 cards, each exactly once, no jokers."""
    state, _ = RULES.new_game(EarlConfig(seats=n, first_dealer=0), SEED)
    union = 0
    for h in state.hands:
        assert union & h == 0
        union |= h
    assert union == FULL_MASK
    assert state.played == b""


def test_C_DECK_1_only_ranks_matter_never_suits() -> None:
    """C-DECK-1: a card of any suit matches the current rank."""
    state = make_state(["5C 9C", "5D KD", "5H QH", "5S 2S"], turn=0)
    state = lead_and_play(state, (0, "5C"), (1, "5D"), (2, "5H"), (3, "5S"))
    assert state.run_length == 0
    assert state.turn == 3


def test_C_DECK_1_ranks_have_no_order() -> None:
    """C-DECK-1: any rank may be led after any other; a lower card never beats a higher one."""
    state = make_state(["KC AC 2C 9H", "KD 3D", "KH 4H", "KS 6S AS"], turn=0)
    state = lead_and_play(state, (0, "KC"), (1, "KD"), (2, "KH"), (3, "KS"))
    legal = {a.card for a in RULES.legal_actions(state, None)}
    assert legal == set(card_list(state.hands[3]))
    # After the Kings, the Earl may lead an Ace (low) as well as anything else.
    state = lead_and_play(state, (3, "AS"))
    assert state.current_rank == 0
    assert state.turn == 0  # the holder of the other Ace


# ---------------------------------------------------------------- C-SEAT-1


@pytest.mark.parametrize("n", [2, 3, 4, 8, 13])
def test_C_SEAT_1_two_to_thirteen_seats(n: int) -> None:
    """C-SEAT-1: from 2 to 13 seats; every seat gets a hand and plays alone."""
    state, _ = RULES.new_game(EarlConfig(seats=n), SEED)
    RULES.validate(state)
    assert len(state.hands) == n
    assert all(h for h in state.hands)


def test_C_SEAT_1_default_is_four_seats() -> None:
    assert EarlConfig().seats == 4


@pytest.mark.parametrize("n", [0, 1, 14, 52])
def test_C_SEAT_1_seat_count_out_of_range(n: int) -> None:
    with pytest.raises(InvalidInput) as e:
        RULES.new_game(EarlConfig(seats=n), SEED)
    assert [v.field for v in e.value.violations] == ["seats"]


# ---------------------------------------------------------------- C-SEAT-2


@pytest.mark.parametrize("dealer", [0, 2, 4])
def test_C_SEAT_2_fixed_first_dealer(dealer: int) -> None:
    """C-SEAT-2: the configuration fixes the first dealer; no cut takes place."""
    state, events = RULES.new_game(EarlConfig(seats=5, first_dealer=dealer), SEED)
    assert state.dealer == dealer
    assert events_of(events, DealerCut) == []


@pytest.mark.parametrize("dealer", [-1, 5, 13])
def test_C_SEAT_2_fixed_first_dealer_must_be_a_seat(dealer: int) -> None:
    with pytest.raises(InvalidInput) as e:
        RULES.new_game(EarlConfig(seats=5, first_dealer=dealer), SEED)
    assert [v.field for v in e.value.violations] == ["first_dealer"]


# C-SEAT-2: aces low, A < 2 < ... < K; the card code's rank index is 0 for the ace.
CUT_ORDER = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def cut_value(c: int) -> int:
    return CUT_ORDER.index(name(c)[:-1])


def cut_reference(seed: bytes, n: int) -> tuple[int, list[list[int]]]:
    """CUT-1/CUT-2 with C-SEAT-2's order: lowest card deals, aces low, suits ignored."""
    pack = shuffle(seed, 0xFFFFFFFF, FULL_DECK)
    draws = [[pack[i]] for i in range(n)]
    pos, tied = n, list(range(n))
    while True:
        low = min(cut_value(draws[s][-1]) for s in tied)
        tied = [s for s in tied if cut_value(draws[s][-1]) == low]
        if len(tied) == 1:
            return tied[0], draws
        for s in tied:
            draws[s].append(pack[pos])
            pos += 1


@pytest.mark.parametrize("n", [2, 3, 4, 6, 13])
def test_C_SEAT_2_cut_lowest_card_deals(n: int) -> None:
    """C-SEAT-2 with CUT: the lowest cut card deals; ties recut from the same pack."""
    ties = 0
    for seed in seeds(60, b"cut"):
        state, events = RULES.new_game(EarlConfig(seats=n), seed)
        dealer, draws = cut_reference(seed, n)
        (cut,) = events_of(events, DealerCut)
        assert cut.dealer == dealer == state.dealer
        assert [list(d) for d in cut.draws] == draws
        ties += any(len(d) > 1 for d in draws)
    assert ties, "no tie among 60 seeds: the recut was not exercised"


def test_C_SEAT_2_aces_are_low() -> None:
    """C-SEAT-2: an ace beats a two in the cut (aces low)."""
    checked = 0
    for seed in seeds(400, b"ace"):
        pack = shuffle(seed, 0xFFFFFFFF, FULL_DECK)[:4]
        ranks = [c % 13 for c in pack]
        if ranks.count(0) == 1 and 1 in ranks:
            state, _ = RULES.new_game(EarlConfig(seats=4), seed)
            assert state.dealer == ranks.index(0)
            checked += 1
    assert checked >= 3


def test_C_SEAT_2_tie_is_recut() -> None:
    """C-SEAT-2: seats tied for the lowest card cut again; the others keep their one card."""
    for seed in seeds(400, b"tie"):
        pack = shuffle(seed, 0xFFFFFFFF, FULL_DECK)
        low = min(c % 13 for c in pack[:4])
        tied = [s for s in range(4) if pack[s] % 13 == low]
        if len(tied) == 2 and pack[4] % 13 != pack[5] % 13:
            break
    else:
        pytest.fail("no seed with a two-way tie")
    state, events = RULES.new_game(EarlConfig(seats=4), seed)
    (cut,) = events_of(events, DealerCut)
    a, b = tied
    assert cut.draws[a] == (pack[a], pack[4])
    assert cut.draws[b] == (pack[b], pack[5])
    assert state.dealer == (a if pack[4] % 13 < pack[5] % 13 else b)


# ---------------------------------------------------------------- C-SEAT-3


def test_C_SEAT_3_dealer_passes_clockwise_each_round() -> None:
    """C-SEAT-3: the dealer's role passes one seat clockwise after every round."""
    state, _ = RULES.new_game(EarlConfig(seats=3, first_dealer=1), SEED)
    dealers = [state.dealer]
    for _ in range(5):
        state = first_legal_playout(state)
        state = accepted(state, NEXT_ROUND).state
        dealers.append(state.dealer)
    assert dealers == [1, 2, 0, 1, 2, 0]


def _between_rounds_with_seat_2_out(dealer: int) -> EarlState:
    """Four seats under elimination; seat 2 went out in an earlier round; seat 0 just won."""
    config = EarlConfig(seats=4, scoring=Scoring.ELIMINATION, starting_counters=10)
    return make_state(
        ["", "4C 5C", "", "7C"],
        config=config,
        phase=Phase.BETWEEN_ROUNDS,
        round=3,
        round_winner=0,
        dealer=dealer,
        counters=[20, 10, 0, 10],
        eliminated=[2],
    )


@pytest.mark.parametrize(("dealer", "next_dealer"), [(0, 1), (1, 3), (3, 0)])
def test_C_SEAT_3_dealer_skips_seats_not_dealt_in(dealer: int, next_dealer: int) -> None:
    """C-SEAT-3: an eliminated seat is passed over as dealer (also C-SCORE-5)."""
    state = _between_rounds_with_seat_2_out(dealer)
    new = accepted(state, NEXT_ROUND).state
    assert new.dealer == next_dealer
    assert new.hands[2] == 0


# ---------------------------------------------------------------- C-DEAL-1


def test_C_DEAL_1_round_r_uses_shuffle_r() -> None:
    """C-DEAL-1: round r of the session is dealt from shuffle number r (SHUF-4)."""
    seed = hashlib.sha256(b"C-DEAL-1").digest()
    state, _ = RULES.new_game(EarlConfig(seats=4, first_dealer=2), seed)
    for r in range(4):
        assert state.round == r
        hands, _ = deal_reference(seed, r, state.dealer, range(4), 4)
        assert list(state.hands) == hands
        state = accepted(first_legal_playout(state), NEXT_ROUND).state


# ---------------------------------------------------------------- C-DEAL-2


@pytest.mark.parametrize(("n", "dealer"), [(2, 0), (3, 1), (4, 3), (5, 2), (6, 5), (13, 7)])
def test_C_DEAL_2_one_card_at_a_time_from_the_eldest(n: int, dealer: int) -> None:
    """C-DEAL-2: dealt one at a time clockwise from the dealer's left; sizes differ by one."""
    state, events = RULES.new_game(EarlConfig(seats=n, first_dealer=dealer), SEED)
    pack = shuffle(SEED, 0, FULL_DECK)
    eldest = (dealer + 1) % n
    for i, c in enumerate(pack):
        assert state.hands[(eldest + i) % n] >> c & 1, f"card {i} went to the wrong seat"
    sizes = [h.bit_count() for h in state.hands]
    assert max(sizes) - min(sizes) <= 1
    # The extra cards go to the first seats served.
    for k in range(n):
        s = (eldest + k) % n
        assert sizes[s] == 52 // n + (1 if k < 52 % n else 0)
        assert hand_size_dealt(n, k) == sizes[s]  # what validation expects a hand to be
    (dealt,) = events_of(events, RoundDealt)
    assert dealt.seats == tuple((eldest + k) % n for k in range(n))
    assert dealt.hand_sizes == tuple(sizes[s] for s in dealt.seats)
    assert dealt.round == 0 and dealt.dealer == dealer and not dealt.tiebreak


def test_C_DEAL_2_only_seats_still_in_are_dealt() -> None:
    """C-DEAL-2: an eliminated seat gets no cards; the pack goes round the others."""
    state = _between_rounds_with_seat_2_out(3)
    out = accepted(state, NEXT_ROUND)
    new = out.state
    assert new.dealer == 0
    hands, order = deal_reference(SEED, 4, 0, [0, 1, 3], 4)
    assert order == [1, 3, 0]
    assert list(new.hands) == hands
    assert [h.bit_count() for h in new.hands] == [17, 18, 0, 17]
    assert new.dealt_in == 0b1011
    assert new.turn == 1  # C-PLAY-1: the eldest leads
    (dealt,) = events_of(out.events, RoundDealt)
    assert dealt.seats == (1, 3, 0)
    assert dealt.hand_sizes == (18, 17, 17)
    assert dealt.round == 4


def test_C_DEAL_2_new_round_clears_the_table() -> None:
    state, _ = RULES.new_game(EarlConfig(seats=4, first_dealer=0), SEED)
    state = first_legal_playout(state)
    assert state.played
    new = accepted(state, NEXT_ROUND).state
    assert new.played == b""
    assert new.run_length == 0 and new.current_rank == NO_RANK
    assert new.phase is Phase.PLAYING
    # and the first lead of the new round is free
    leader = new.turn
    some = card_list(new.hands[leader])[0]
    accepted(new, play(leader, name(some), couplet(RANK_LABELS[some % 13], 1)))
