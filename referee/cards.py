"""Cards as small integers (rules/README.md, "Cards").

A card is the int ``code = 13 * suit_index + rank_index`` where ``suit_index``
is 0..3 for clubs, diamonds, hearts, spades and ``rank_index`` is 0..12 for
ace, 2, ..., 10, jack, queen, king. Codes therefore follow the canonical
order of the rulebook (AC=0, 2C=1, ..., KC=12, AD=13, ..., KS=51), and a set
of cards is a 52-bit mask (bit ``code`` set when the card is present).

The numeric values of :class:`Suit` and :class:`Rank` equal the values of the
protobuf enums ``referee.v1.Suit`` and ``referee.v1.Rank`` (0 is unspecified),
so the codec converts with ``suit - 1`` / ``rank - 1`` and nothing else.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from enum import IntEnum
from typing import Final


class Suit(IntEnum):
    CLUBS = 1
    DIAMONDS = 2
    HEARTS = 3
    SPADES = 4


class Rank(IntEnum):
    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13


SUIT_LETTERS: Final = "CDHS"
RANK_LABELS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES: Final = (
    "Ace",
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
)
SUIT_NAMES: Final = ("clubs", "diamonds", "hearts", "spades")

FULL_DECK: Final[tuple[int, ...]] = tuple(range(52))
"""The 52-card pack in canonical order (C-DECK-1)."""

FULL_MASK: Final = (1 << 52) - 1

ECARTE_RANK_INDEXES: Final = (0, 6, 7, 8, 9, 10, 11, 12)  # A, 7, 8, 9, 10, J, Q, K
ECARTE_DECK: Final[tuple[int, ...]] = tuple(
    13 * s + r for s in range(4) for r in ECARTE_RANK_INDEXES
)
"""The 32-card Écarté pack in canonical order (E-DECK-1)."""

ECARTE_MASK: Final = sum(1 << c for c in ECARTE_DECK)

RANK_MASKS: Final[tuple[int, ...]] = tuple(
    (1 << r) | (1 << (r + 13)) | (1 << (r + 26)) | (1 << (r + 39)) for r in range(13)
)
"""``RANK_MASKS[rank_index]``: the four cards of one rank."""

SUIT_MASKS: Final[tuple[int, ...]] = tuple(((1 << 13) - 1) << (13 * s) for s in range(4))
"""``SUIT_MASKS[suit_index]``: the thirteen cards of one suit."""


def make(suit: Suit | int, rank: Rank | int) -> int:
    """The code of the card of ``suit`` and ``rank`` (enum values, 1-based)."""
    return 13 * (int(suit) - 1) + int(rank) - 1


def suit_of(card: int) -> int:
    """Suit index 0..3 of a card code."""
    return card // 13


def rank_of(card: int) -> int:
    """Rank index 0..12 of a card code (0 = ace, 12 = king)."""
    return card % 13


def name(card: int) -> str:
    """Rulebook notation: rank then suit letter (``KS``, ``10H``, ``AC``)."""
    return RANK_LABELS[card % 13] + SUIT_LETTERS[card // 13]


_BY_NAME: Final = {name(c): c for c in FULL_DECK}


def parse(text: str) -> int:
    """Parse rulebook notation (``"10H"``, ``"as"``, ``"kc"``); raises ValueError."""
    key = text.strip().upper()
    if key.startswith("T") and len(key) == 2:
        key = "10" + key[1]
    try:
        return _BY_NAME[key]
    except KeyError:
        raise ValueError(f"not a card: {text!r}") from None


def mask_of(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def cards_of(mask: int) -> Iterator[int]:
    """The card codes of a mask, in canonical order."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


_SUIT_TABLES: tuple[tuple[tuple[int, ...], ...], ...] = ()


def _suit_tables() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For each suit, the card codes of every 13-bit pattern of that suit (built once)."""
    global _SUIT_TABLES
    if not _SUIT_TABLES:
        _SUIT_TABLES = tuple(
            tuple(tuple(13 * s + r for r in range(13) if bits >> r & 1) for bits in range(8192))
            for s in range(4)
        )
    return _SUIT_TABLES


def card_list(mask: int) -> list[int]:
    """The card codes of a 52-bit mask, in canonical order (table lookups per suit)."""
    t = _SUIT_TABLES or _suit_tables()
    return [
        *t[0][mask & 0x1FFF],
        *t[1][mask >> 13 & 0x1FFF],
        *t[2][mask >> 26 & 0x1FFF],
        *t[3][mask >> 39 & 0x1FFF],
    ]
