"""The Écarté pack: card order, suit masks and the deal's shuffle (E-DECK, E-DEAL-1).

Cards are the codes of ``referee.cards`` (``13 * suit + rank``); sets of cards
are masks. Everything here is a precomputed table so that the hot path of the
rules does no arithmetic beyond indexing and bit operations.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Final

from referee.cards import ECARTE_DECK, ECARTE_MASK, SUIT_MASKS
from referee.games.ecarte.state import Packets
from referee.shuffle import cut_for_dealer, shuffle

# E-DECK-2: rank indexes from lowest to highest: 7, 8, 9, 10, A, J, Q, K.
ORDER_LOW_TO_HIGH: Final = (6, 7, 8, 9, 0, 10, 11, 12)
KING_RANK: Final = 12
QUEEN_RANK: Final = 11

STRENGTH: Final[tuple[int, ...]] = tuple(
    ORDER_LOW_TO_HIGH.index(c % 13) if c % 13 in ORDER_LOW_TO_HIGH else -1 for c in range(52)
)
"""``STRENGTH[card]``: 0 (a seven) .. 7 (a king); -1 for a card not in the pack."""

SUIT: Final[tuple[int, ...]] = tuple(c // 13 for c in range(52))
"""``SUIT[card]``: suit index 0..3 (clubs, diamonds, hearts, spades)."""

ECARTE_SUIT_MASKS: Final[tuple[int, ...]] = tuple(m & ECARTE_MASK for m in SUIT_MASKS)
"""The eight cards of each suit."""

SUIT_MASK_OF: Final[tuple[int, ...]] = tuple(ECARTE_SUIT_MASKS[c // 13] for c in range(52))
"""``SUIT_MASK_OF[card]``: the eight cards of the card's suit."""

BEATS: Final[tuple[int, ...]] = tuple(
    sum(1 << d for d in ECARTE_DECK if d // 13 == c // 13 and STRENGTH[d] > STRENGTH[c])
    if STRENGTH[c] >= 0
    else 0
    for c in range(52)
)
"""``BEATS[card]``: the cards of the same suit that beat it (E-PLAY-4)."""

KINGS: Final[tuple[int, ...]] = tuple(13 * s + KING_RANK for s in range(4))
"""``KINGS[suit]``: the code of the king of that suit."""

QUEENS: Final[tuple[int, ...]] = tuple(13 * s + QUEEN_RANK for s in range(4))

IS_ECARTE_CARD: Final[tuple[bool, ...]] = tuple(STRENGTH[c] >= 0 for c in range(52))

CARD_BIT: Final[tuple[int, ...]] = tuple(1 << c for c in range(52))


def beats(a: int, b: int, trump: int) -> bool:
    """E-PLAY-7: does ``b``, played second to the lead ``a``, win the trick?"""
    sb = SUIT[b]
    if sb == SUIT[a]:
        return STRENGTH[b] > STRENGTH[a]
    return sb == trump


@lru_cache(maxsize=4096)
def ecarte_pack(seed: bytes, k: int) -> tuple[int, ...]:
    """Shuffle number ``k`` of the 32-card pack (SHUF-1 .. SHUF-3, E-DEAL-1); index 0 is
    the top of the pack. Remembered: validation compares every state with its deal."""
    return tuple(shuffle(seed, k, ECARTE_DECK))


# E-DEAL-2: pack positions of the elder's and the responder's cards.
PACKET_POSITIONS: Final[dict[Packets, tuple[tuple[int, ...], tuple[int, ...]]]] = {
    Packets.THREE_TWO: ((0, 1, 2, 6, 7), (3, 4, 5, 8, 9)),
    Packets.TWO_THREE: ((0, 1, 4, 5, 6), (2, 3, 7, 8, 9)),
}
TURN_UP_POSITION: Final = 10  # E-DEAL-3


@lru_cache(maxsize=4096)
def cut_dealer(seed: bytes, seats: int) -> tuple[int, tuple[tuple[int, ...], ...]]:
    """E-SEAT-2 / CUT: the lowest card in Écarté order deals; suits do not matter.

    Cached: ``validate`` re-derives the first dealer of every state it checks (D-14)."""
    dealer, draws = cut_for_dealer(seed, ECARTE_DECK, seats, key=lambda c: STRENGTH[c])
    return dealer, tuple(tuple(d) for d in draws)
