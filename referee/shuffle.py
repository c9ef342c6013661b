"""The SHUF shuffle and the CUT procedure of rules/README.md.

SHUF-1  stream for shuffle ``k``: blocks SHA-256(prefix || seed || k:u32be || c:u32be)
SHUF-2  uniform below m: 4 bytes big-endian, rejection sampling
SHUF-3  Fisher-Yates from the top index down over the canonical deck
SHUF-4  shuffle k = d for deal d; k = 0xFFFFFFFF is the cut pack
"""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final

PREFIX: Final = b"referee-shuffle-v1"
CUT_SHUFFLE: Final = 0xFFFFFFFF
SEED_BYTES: Final = 32


class Stream:
    """The byte stream of SHUF-1 for one seed and shuffle number."""

    __slots__ = ("_base", "_block", "_buf", "_pos")

    def __init__(self, seed: bytes, k: int) -> None:
        if not 0 <= k <= 0xFFFFFFFF:
            raise ValueError("shuffle number out of range")
        self._base = PREFIX + seed + k.to_bytes(4, "big")
        self._block = 0
        self._buf = b""
        self._pos = 0

    def block(self, c: int) -> bytes:
        return hashlib.sha256(self._base + c.to_bytes(4, "big")).digest()

    def next4(self) -> int:
        if self._pos + 4 > len(self._buf):
            # Blocks are 32 bytes, a multiple of 4: a read never straddles two.
            self._buf = self.block(self._block)
            self._block += 1
            self._pos = 0
        x = int.from_bytes(self._buf[self._pos : self._pos + 4], "big")
        self._pos += 4
        return x

    def uniform(self, m: int) -> int:
        """SHUF-2: a uniform integer in ``[0, m)``."""
        if not 1 <= m <= 1 << 32:
            raise ValueError("modulus out of range")
        limit = (1 << 32) - ((1 << 32) % m)
        while True:
            x = self.next4()
            if x < limit:
                return x % m


def shuffle(seed: bytes, k: int, deck: Sequence[int]) -> list[int]:
    """SHUF-3: shuffle number ``k`` of ``deck`` (canonical order); index 0 is the top.

    Reads the stream in whole blocks: the ``len(deck) - 1`` draws of a Fisher-Yates need
    that many words unless a word is rejected (SHUF-2), which only words at or above
    ``2^32 - (2^32 mod m)`` can be; then the draw-by-draw loop of :func:`shuffle_exact`
    runs instead. Both give the same pack (tested against each other and the golden
    vectors); a deal is the most expensive step of a random playout.
    """
    n = len(deck)
    if n < 2:
        return list(deck)
    plan = _plan(n)
    base = PREFIX + seed + k.to_bytes(4, "big")
    sha = hashlib.sha256
    words = plan.words.unpack(
        b"".join(sha(base + c.to_bytes(4, "big")).digest() for c in range(plan.blocks))
    )
    if max(words[: n - 1]) >= plan.no_rejection:
        return shuffle_exact(seed, k, deck)
    pack = list(deck)
    for m, x in zip(plan.moduli, words, strict=False):
        j = x % m
        i = m - 1
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def shuffle_exact(seed: bytes, k: int, deck: Sequence[int]) -> list[int]:
    """SHUF-1 .. SHUF-3 draw by draw, exactly as the rulebook words them."""
    stream = Stream(seed, k)
    pack = list(deck)
    for i in range(len(pack) - 1, 0, -1):
        j = stream.uniform(i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


class _Plan:
    """What a Fisher-Yates of ``n`` cards needs from the stream."""

    __slots__ = ("blocks", "moduli", "no_rejection", "words")

    def __init__(self, n: int) -> None:
        self.moduli = tuple(range(n, 1, -1))  # i + 1 for i = n-1 .. 1
        self.blocks = (n - 1 + 7) // 8  # eight 4-byte words per SHA-256 block
        self.words = struct.Struct(f">{8 * self.blocks}I")
        self.no_rejection = min((1 << 32) - ((1 << 32) % m) for m in self.moduli)


_plan = lru_cache(maxsize=16)(_Plan)


def cut_for_dealer(
    seed: bytes, deck: Sequence[int], seats: int, key: Callable[[int], int]
) -> tuple[int, list[list[int]]]:
    """CUT-1/CUT-2: the first dealer and the cards each seat drew.

    ``key(card)`` orders cut cards: the seat with the smallest key wins (pass a
    key that makes the game's best card smallest). Seat ``i`` draws card ``i``
    of the cut pack; tied seats draw again, in seat order, the next cards of the
    same pack until one seat is best. Returns ``(dealer, draws)`` where
    ``draws[s]`` lists every card seat ``s`` drew (one per round it took part in).
    """
    pack = shuffle(seed, CUT_SHUFFLE, deck)
    draws: list[list[int]] = [[] for _ in range(seats)]
    pos = 0
    contenders = list(range(seats))
    while True:
        if pos + len(contenders) > len(pack):
            # Cannot happen with the rulebooks' decks and seat counts (13 seats
            # drawing from 52 cards leave at most 4 tied on the first draw).
            raise ValueError("cut pack exhausted")
        for s in contenders:
            draws[s].append(pack[pos])
            pos += 1
        best = min(key(draws[s][-1]) for s in contenders)
        contenders = [s for s in contenders if key(draws[s][-1]) == best]
        if len(contenders) == 1:
            return contenders[0], draws
