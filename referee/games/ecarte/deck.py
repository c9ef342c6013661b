"""The Écarté pack: card order, suit masks, and a fast SHUF deal (E-DECK, E-DEAL-1).

Cards are the codes of ``referee.cards`` (``13 * suit + rank``); sets of cards
are masks. Everything here is a precomputed table so that the hot path of the
rules does no arithmetic beyond indexing and bit operations.
"""

from __future__ import annotations

import hashlib
import struct

from referee.cards import ECARTE_DECK, ECARTE_MASK, SUIT_MASKS
from referee.shuffle import PREFIX

# E-DECK-2: rank indexes from lowest to highest: 7, 8, 9, 10, A, J, Q, K.
ORDER_LOW_TO_HIGH = (6, 7, 8, 9, 0, 10, 11, 12)
KING_RANK = 12
QUEEN_RANK = 11

STRENGTH: tuple[int, ...] = tuple(
    ORDER_LOW_TO_HIGH.index(c % 13) if c % 13 in ORDER_LOW_TO_HIGH else -1 for c in range(52)
)
"""``STRENGTH[card]``: 0 (a seven) .. 7 (a king); -1 for a card not in the pack."""

SUIT: tuple[int, ...] = tuple(c // 13 for c in range(52))
"""``SUIT[card]``: suit index 0..3 (clubs, diamonds, hearts, spades)."""

ECARTE_SUIT_MASKS: tuple[int, ...] = tuple(m & ECARTE_MASK for m in SUIT_MASKS)
"""The eight cards of each suit."""

BEATS: tuple[int, ...] = tuple(
    sum(1 << d for d in ECARTE_DECK if d // 13 == c // 13 and STRENGTH[d] > STRENGTH[c])
    if STRENGTH[c] >= 0
    else 0
    for c in range(52)
)
"""``BEATS[card]``: the cards of the same suit that beat it (E-PLAY-4)."""

KINGS: tuple[int, ...] = tuple(13 * s + KING_RANK for s in range(4))
"""``KINGS[suit]``: the code of the king of that suit."""

KINGS_MASK = sum(1 << k for k in KINGS)
QUEENS: tuple[int, ...] = tuple(13 * s + QUEEN_RANK for s in range(4))

IS_ECARTE_CARD: tuple[bool, ...] = tuple(STRENGTH[c] >= 0 for c in range(52))

CARD_BIT: tuple[int, ...] = tuple(1 << c for c in range(52))

# SHUF-2 rejection limits for every modulus a 32-card Fisher-Yates uses.
_LIMITS: tuple[int, ...] = tuple(
    (1 << 32) - ((1 << 32) % m) if m else 0 for m in range(len(ECARTE_DECK) + 1)
)
_NO_REJECTION = min(_LIMITS[2:])  # no word below it is ever rejected
_MODULI = tuple(range(32, 1, -1))  # i + 1 for i = 31 .. 1
_WORDS_FIRST = struct.Struct(">32I")  # four SHA-256 blocks: 32 words
_WORDS_BLOCK = struct.Struct(">8I")


def beats(a: int, b: int, trump: int) -> bool:
    """E-PLAY-7: does ``b``, played second to the lead ``a``, win the trick?"""
    sb = SUIT[b]
    if sb == SUIT[a]:
        return STRENGTH[b] > STRENGTH[a]
    return sb == trump


def ecarte_pack(seed: bytes, k: int) -> list[int]:
    """Shuffle number ``k`` of the 32-card pack (SHUF-1 .. SHUF-3); index 0 is the top.

    Gives exactly ``referee.shuffle.shuffle(seed, k, ECARTE_DECK)`` (tested against
    it and the golden vectors) but reads the stream in whole blocks: a deal is
    the most expensive step of a random playout. The 31 draws of a 32-card
    Fisher-Yates need 31 words of the first four blocks unless a word is
    rejected (SHUF-2), which only words of ``2^32 - 32`` or more can be: then the
    exact draw-by-draw loop runs.
    """
    base = PREFIX + seed + k.to_bytes(4, "big")
    sha = hashlib.sha256
    words = _WORDS_FIRST.unpack(
        sha(base + b"\0\0\0\0").digest()
        + sha(base + b"\0\0\0\1").digest()
        + sha(base + b"\0\0\0\2").digest()
        + sha(base + b"\0\0\0\3").digest()
    )
    pack = list(ECARTE_DECK)
    if max(words[:31]) < _NO_REJECTION:
        for m, x in zip(_MODULI, words, strict=False):
            j = x % m
            i = m - 1
            pack[i], pack[j] = pack[j], pack[i]
        return pack
    return _pack_exact(base, list(words), pack)


def _pack_exact(base: bytes, words: list[int], pack: list[int]) -> list[int]:
    """SHUF-2/3 draw by draw, with rejections and further blocks (rarely needed)."""
    block = 4
    pos = 0
    for i in range(31, 0, -1):
        m = i + 1
        while True:
            if pos == len(words):
                digest = hashlib.sha256(base + block.to_bytes(4, "big")).digest()
                words.extend(_WORDS_BLOCK.unpack(digest))
                block += 1
            x = words[pos]
            pos += 1
            if x < _LIMITS[m]:
                break
        j = x % m
        pack[i], pack[j] = pack[j], pack[i]
    return pack
