"""Cards helpers, the SHUF shuffle and the CUT procedure (rules/README.md).

The golden vectors of ``shared/vectors/shuffle.json`` are checked byte for byte;
the stream and the rejection sampling of SHUF-1/SHUF-2 are also checked against
a direct reading of the rule text (``hashlib`` only).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee import cards
from referee.cards import (
    ECARTE_DECK,
    ECARTE_MASK,
    FULL_DECK,
    FULL_MASK,
    RANK_MASKS,
    SUIT_MASKS,
    Rank,
    Suit,
)
from referee.shuffle import CUT_SHUFFLE, PREFIX, Stream, cut_for_dealer, shuffle
from referee.v1 import cards_pb2
from tests.conftest import shared_dir

# ---------------------------------------------------------------- vectors


@cache
def vectors() -> dict[str, Any]:
    path = shared_dir() / "vectors" / "shuffle.json"
    if not path.is_file():
        pytest.fail(f"golden vectors not found: {path}", pytrace=False)
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def shuffle_cases() -> list[tuple[bytes, dict[str, Any]]]:
    return [(bytes.fromhex(v["seed"]), s) for v in vectors()["vectors"] for s in v["shuffles"]]


def case_id(case: tuple[bytes, dict[str, Any]]) -> str:
    seed, s = case
    return f"{seed[:4].hex()}-k{s['k_hex']}"


CASES = shuffle_cases()


def test_vectors_cover_every_required_shuffle() -> None:
    """Every vector lists k = 0, 1, 7 and the cut pack k = 0xFFFFFFFF (SHUF-4)."""
    assert vectors()["prefix"].encode() == PREFIX
    assert len(vectors()["vectors"]) >= 4
    for v in vectors()["vectors"]:
        assert len(bytes.fromhex(v["seed"])) == 32
        ks = {s["k"] for s in v["shuffles"]}
        assert CUT_SHUFFLE in ks
        assert {0, 1} <= ks
        for s in v["shuffles"]:
            assert int(s["k_hex"], 16) == s["k"]


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_SHUF_1_stream_block0_matches_vector(case: tuple[bytes, dict[str, Any]]) -> None:
    """SHUF-1: block 0 of the stream, byte for byte."""
    seed, s = case
    assert Stream(seed, s["k"]).block(0).hex() == s["stream_block0"]
    # The same block straight from the rule text.
    direct = hashlib.sha256(
        b"referee-shuffle-v1" + seed + s["k"].to_bytes(4, "big") + (0).to_bytes(4, "big")
    ).hexdigest()
    assert direct == s["stream_block0"]


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_SHUF_3_full52_matches_vector(case: tuple[bytes, dict[str, Any]]) -> None:
    """SHUF-3: the 52-card shuffle, card for card, top of the pack first."""
    seed, s = case
    assert [cards.name(c) for c in shuffle(seed, s["k"], FULL_DECK)] == s["full52"]


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_SHUF_3_ecarte32_matches_vector(case: tuple[bytes, dict[str, Any]]) -> None:
    """SHUF-3 over the 32-card Écarté pack in its canonical order."""
    seed, s = case
    assert [cards.name(c) for c in shuffle(seed, s["k"], ECARTE_DECK)] == s["ecarte32"]


def test_canonical_decks_match_vectors() -> None:
    """The canonical orders of rules/README.md "Cards"."""
    assert [cards.name(c) for c in FULL_DECK] == vectors()["canonical_full52"]
    assert [cards.name(c) for c in ECARTE_DECK] == vectors()["canonical_ecarte32"]


def _words(seed: bytes, k: int) -> Callable[[], int]:
    """The 4-byte words of the SHUF-1 stream, read straight from the rule text."""
    state = {"c": 0, "buf": b""}

    def nxt() -> int:
        if not state["buf"]:
            c = state["c"]
            assert isinstance(c, int)
            state["buf"] = hashlib.sha256(
                PREFIX + seed + k.to_bytes(4, "big") + c.to_bytes(4, "big")
            ).digest()
            state["c"] = c + 1
        buf = state["buf"]
        assert isinstance(buf, bytes)
        state["buf"] = buf[4:]
        return int.from_bytes(buf[:4], "big")

    return nxt


def test_SHUF_1_stream_runs_over_consecutive_blocks() -> None:
    """SHUF-1: after the 8 words of block 0 come those of block 1, 2, ..."""
    seed = bytes(range(32))
    stream = Stream(seed, 7)
    ref = _words(seed, 7)
    assert [stream.next4() for _ in range(30)] == [ref() for _ in range(30)]


def test_SHUF_1_shuffle_number_range() -> None:
    """k is a 32-bit unsigned integer."""
    Stream(bytes(32), 0)
    Stream(bytes(32), 0xFFFFFFFF)
    with pytest.raises(ValueError):
        Stream(bytes(32), -1)
    with pytest.raises(ValueError):
        Stream(bytes(32), 1 << 32)


def _uniform_ref(nxt: Callable[[], int], m: int) -> int:
    while True:
        x = nxt()
        if x < (1 << 32) - ((1 << 32) % m):
            return x % m


@pytest.mark.parametrize("m", [1, 2, 3, 52, 1000, (1 << 31) + 1, (1 << 32) - 1, 1 << 32])
def test_SHUF_2_uniform_rejection_sampling(m: int) -> None:
    """SHUF-2: 4 bytes big-endian, rejected while x >= 2^32 - (2^32 mod m), else x mod m.

    With m = 2^31 + 1 about half of the words are rejected, so the stream
    positions of the two readings only stay aligned if rejection is exact.
    """
    seed = hashlib.sha256(b"uniform").digest()
    stream = Stream(seed, 3)
    ref = _words(seed, 3)
    got = [stream.uniform(m) for _ in range(200)]
    assert got == [_uniform_ref(ref, m) for _ in range(200)]
    assert all(0 <= x < m for x in got)


def test_SHUF_2_rejection_actually_happens() -> None:
    """A draw that hits a rejected word skips it (checked on a word known to be rejected)."""
    m = (1 << 31) + 1
    limit = (1 << 32) - ((1 << 32) % m)
    seed = hashlib.sha256(b"uniform").digest()
    words = _words(seed, 3)
    first = [words() for _ in range(16)]
    assert any(w >= limit for w in first), "vector choice no longer exercises rejection"
    stream = Stream(seed, 3)
    expected = [w % m for w in first if w < limit]
    assert [stream.uniform(m) for _ in range(len(expected))] == expected


def test_SHUF_2_modulus_range() -> None:
    with pytest.raises(ValueError):
        Stream(bytes(32), 0).uniform(0)
    with pytest.raises(ValueError):
        Stream(bytes(32), 0).uniform((1 << 32) + 1)


@given(st.binary(min_size=32, max_size=32), st.integers(0, 0xFFFFFFFF))
def test_SHUF_3_fisher_yates_from_the_top_index(seed: bytes, k: int) -> None:
    """SHUF-3 restated: i = len-1 .. 1, j = uniform(i+1), swap i and j; a permutation."""
    ref = _words(seed, k)
    pack = list(FULL_DECK)
    for i in range(len(pack) - 1, 0, -1):
        j = _uniform_ref(ref, i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    got = shuffle(seed, k, FULL_DECK)
    assert got == pack
    assert sorted(got) == list(FULL_DECK)


def test_SHUF_4_shuffle_numbers_differ_and_cut_pack_is_last() -> None:
    """SHUF-4: shuffle k = d for deal d; the cut pack is k = 0xFFFFFFFF."""
    seed = bytes(32)
    assert CUT_SHUFFLE == 0xFFFFFFFF
    packs = {tuple(shuffle(seed, k, FULL_DECK)) for k in (0, 1, 2, CUT_SHUFFLE)}
    assert len(packs) == 4
    assert shuffle(seed, 5, FULL_DECK) == shuffle(seed, 5, FULL_DECK)


# ---------------------------------------------------------------- CUT


def lowest_rank(card: int) -> int:
    return card % 13


def cut_reference(seed: bytes, seats: int) -> tuple[int, list[list[int]]]:
    """CUT-1/CUT-2 read from the text: seat i takes card i; ties redraw in seat order."""
    pack = shuffle(seed, 0xFFFFFFFF, FULL_DECK)
    draws: list[list[int]] = [[pack[i]] for i in range(seats)]
    pos = seats
    tied = list(range(seats))
    while True:
        best = min(draws[s][-1] % 13 for s in tied)
        tied = [s for s in tied if draws[s][-1] % 13 == best]
        if len(tied) == 1:
            return tied[0], draws
        for s in tied:
            draws[s].append(pack[pos])
            pos += 1


def test_CUT_1_each_seat_takes_its_card_of_the_cut_pack() -> None:
    """CUT-1 on the vector seeds: seat i receives card i of the k = 0xFFFFFFFF pack."""
    for v in vectors()["vectors"]:
        seed = bytes.fromhex(v["seed"])
        cut_pack = next(s["full52"] for s in v["shuffles"] if s["k"] == CUT_SHUFFLE)
        for seats in (2, 4, 13):
            _, draws = cut_for_dealer(seed, FULL_DECK, seats, lowest_rank)
            assert [cards.name(d[0]) for d in draws] == cut_pack[:seats]


@pytest.mark.parametrize("seats", [2, 3, 4, 7, 13])
def test_CUT_2_matches_reference_on_many_seeds(seats: int) -> None:
    for i in range(150):
        seed = hashlib.sha256(b"cut-%d" % i).digest()
        assert cut_for_dealer(seed, FULL_DECK, seats, lowest_rank) == cut_reference(seed, seats)


def _find_seed(seats: int, predicate: Callable[[list[list[int]]], bool]) -> bytes:
    for i in range(3000):
        seed = hashlib.sha256(b"cut-search-%d" % i).digest()
        _, draws = cut_reference(seed, seats)
        if predicate(draws):
            return seed
    pytest.fail("no seed found")


@pytest.mark.parametrize("seats", [2, 4, 13])
def test_CUT_2_tie_on_the_lowest_rank_redraws(seats: int) -> None:
    """CUT-2: two seats tie on the lowest rank; they alone draw the next cards, in seat order."""
    seed = _find_seed(seats, lambda d: sum(len(x) > 1 for x in d) == 2)
    pack = shuffle(seed, CUT_SHUFFLE, FULL_DECK)
    dealer, draws = cut_for_dealer(seed, FULL_DECK, seats, lowest_rank)
    first = pack[:seats]
    low = min(c % 13 for c in first)
    tied = [s for s in range(seats) if first[s] % 13 == low]
    assert len(tied) == 2
    for s in range(seats):
        assert draws[s][0] == first[s]
        if s not in tied:
            assert len(draws[s]) == 1
    a, b = tied
    # The redraw uses the next cards of the same pack, in seat order.
    assert draws[a][1] == pack[seats]
    assert draws[b][1] == pack[seats + 1]
    if pack[seats] % 13 != pack[seats + 1] % 13:
        assert dealer == (a if pack[seats] % 13 < pack[seats + 1] % 13 else b)
        assert len(draws[a]) == len(draws[b]) == 2


def test_CUT_2_repeated_tie_keeps_drawing() -> None:
    """CUT-2: a tie in the redraw is broken by drawing again, still from the same pack."""
    seed = _find_seed(4, lambda d: max(len(x) for x in d) >= 3)
    pack = shuffle(seed, CUT_SHUFFLE, FULL_DECK)
    dealer, draws = cut_for_dealer(seed, FULL_DECK, 4, lowest_rank)
    used = sorted(pos for pos, c in enumerate(pack) if any(c in d for d in draws))
    assert used == list(range(len(used)))  # consecutive cards from the top
    assert max(len(d) for d in draws) >= 3
    assert len(draws[dealer]) == max(len(d) for d in draws)
    last = [draws[s][-1] % 13 for s in range(4) if len(draws[s]) == len(draws[dealer])]
    assert draws[dealer][-1] % 13 == min(last)
    assert last.count(min(last)) == 1


# ---------------------------------------------------------------- cards


def test_card_codes_follow_canonical_order() -> None:
    """rules/README.md "Cards": code = 13 * suit + rank, AC = 0 .. KS = 51."""
    assert cards.parse("AC") == 0
    assert cards.parse("KC") == 12
    assert cards.parse("AD") == 13
    assert cards.parse("KS") == 51
    for code in FULL_DECK:
        assert cards.make(cards.suit_of(code) + 1, cards.rank_of(code) + 1) == code
        assert cards.parse(cards.name(code)) == code
    assert cards.make(Suit.HEARTS, Rank.TEN) == cards.parse("10H")
    assert cards.name(cards.make(Suit.SPADES, Rank.JACK)) == "JS"


def test_enum_values_equal_protobuf() -> None:
    for s in Suit:
        assert cards_pb2.Suit.Value(f"SUIT_{s.name}") == s.value
    for r in Rank:
        assert cards_pb2.Rank.Value(f"RANK_{r.name}") == r.value


@pytest.mark.parametrize(
    ("text", "expected"),
    [("10H", "10H"), ("th", "10H"), (" as ", "AS"), ("kc", "KC"), ("2d", "2D"), ("Qs", "QS")],
)
def test_parse_accepts_notations(text: str, expected: str) -> None:
    assert cards.name(cards.parse(text)) == expected


@pytest.mark.parametrize("text", ["", "1C", "11H", "ZZ", "AX", "10", "T", "A C", "KSS"])
def test_parse_rejects_non_cards(text: str) -> None:
    with pytest.raises(ValueError):
        cards.parse(text)


@given(st.sets(st.integers(0, 51)))
def test_masks_round_trip(codes: set[int]) -> None:
    mask = cards.mask_of(codes)
    assert cards.card_list(mask) == sorted(codes)
    assert list(cards.cards_of(mask)) == sorted(codes)
    assert mask & ~FULL_MASK == 0


def test_rank_and_suit_masks() -> None:
    for r in range(13):
        assert cards.card_list(RANK_MASKS[r]) == [r, r + 13, r + 26, r + 39]
    for s in range(4):
        assert cards.card_list(SUIT_MASKS[s]) == list(range(13 * s, 13 * s + 13))
    assert sum(RANK_MASKS) == FULL_MASK
    assert sum(SUIT_MASKS) == FULL_MASK
    assert cards.card_list(ECARTE_MASK) == list(ECARTE_DECK)
    assert len(ECARTE_DECK) == 32
    assert {cards.RANK_LABELS[c % 13] for c in ECARTE_DECK} == {
        "A",
        "7",
        "8",
        "9",
        "10",
        "J",
        "Q",
        "K",
    }


def test_block_shuffle_equals_the_draw_by_draw_shuffle() -> None:
    """SHUF-3: the block-reading fast path gives the rulebook's draw-by-draw pack, and
    falls back to it when a word could be rejected (SHUF-2)."""
    import random as _random

    from referee import shuffle as shuf
    from referee.cards import ECARTE_DECK, FULL_DECK

    rng = _random.Random(11)
    for _ in range(300):
        seed = rng.randbytes(32)
        k = rng.randrange(1 << 32)
        for deck in (FULL_DECK, ECARTE_DECK, tuple(range(5))):
            assert shuf.shuffle(seed, k, deck) == shuf.shuffle_exact(seed, k, deck)
    # Force the fallback: a plan under which every word "could be rejected".
    plan = shuf._plan(52)
    saved = plan.no_rejection
    plan.no_rejection = 0
    try:
        seed = rng.randbytes(32)
        assert shuf.shuffle(seed, 3, FULL_DECK) == shuf.shuffle_exact(seed, 3, FULL_DECK)
    finally:
        plan.no_rejection = saved


def test_the_block_shuffle_of_the_smallest_decks() -> None:
    """Decks of 0 to 4 cards: the block path (or its short cut for fewer than two cards)
    gives the draw-by-draw pack; a two-card deck is swapped for some seeds, not others."""
    from referee.shuffle import shuffle_exact

    swapped = set()
    for i in range(64):
        seed = hashlib.sha256(b"small-%d" % i).digest()
        for n in range(5):
            deck = list(range(n))
            assert shuffle(seed, 1, deck) == shuffle_exact(seed, 1, deck)
        swapped.add(tuple(shuffle(seed, 1, [0, 1])))
    assert swapped == {(0, 1), (1, 0)}


def test_SHUF_2_the_first_rejected_word_is_rejected() -> None:
    """SHUF-2 at its boundary: x = 2^32 - (2^32 mod m) is rejected, one less is kept.
    (SHA-256 cannot be made to give these words: a stream of chosen words stands in.)"""
    import referee.shuffle

    if not (referee.shuffle.__file__ or "").endswith(".py"):
        pytest.skip("the compiled Stream cannot be subclassed; the interpreted run checks this")

    class Words(Stream):
        def __init__(self, words: list[int]) -> None:
            super().__init__(bytes(32), 0)
            self.words = words

        def next4(self) -> int:
            return self.words.pop(0)

    for m in (3, 52, (1 << 31) + 1):
        limit = (1 << 32) - ((1 << 32) % m)
        assert Words([limit, 7]).uniform(m) == 7 % m
        assert Words([limit - 1, 7]).uniform(m) == (limit - 1) % m


def test_CUT_2_the_cut_pack_is_used_to_its_last_card() -> None:
    """Seats tied until the last cards draw them; a tie that outlasts the pack is an
    error, never a draw from beyond it."""
    deck = list(range(4))
    for i in range(200):
        seed = hashlib.sha256(b"last-%d" % i).digest()
        pack = shuffle(seed, CUT_SHUFFLE, deck)
        if pack.index(3) >= 2:  # the one card that is not a tie comes in the second round
            break
    else:
        pytest.fail("no seed found")
    dealer, draws = cut_for_dealer(seed, deck, 2, lambda c: -1 if c == 3 else 0)
    assert draws == [[pack[0], pack[2]], [pack[1], pack[3]]] and 3 in draws[dealer]
    with pytest.raises(ValueError, match="exhausted"):
        cut_for_dealer(seed, deck, 2, lambda c: 0)


def test_the_block_path_only_skips_words_no_modulus_rejects() -> None:
    """The block path may take a word without SHUF-2's check only below every limit of
    its moduli 2 .. n; and it must check from the smallest of them."""
    from referee.shuffle import _plan

    for n in range(2, 53):
        limits = [(1 << 32) - ((1 << 32) % m) for m in range(2, n + 1)]
        assert _plan(n).no_rejection == min(limits)
        assert len(_plan(n).moduli) == n - 1
        assert 8 * _plan(n).blocks >= n - 1  # words enough for every draw
