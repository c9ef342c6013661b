"""Memory held by the rules' caches is bounded to a few MB, however many distinct
games a worker sees (the soak cannot reach those bounds in CI time: it measures what
a call leaves behind once they are reached)."""

from __future__ import annotations

import gc
import random
import tracemalloc

from referee.cards import ECARTE_DECK
from referee.games.ecarte import rules as ecarte_rules

MAX_CACHE_BYTES = 8 * 1024 * 1024


def test_ecarte_discard_cache_stays_small_under_fresh_deals() -> None:
    """Regression: the discards of each hand met in an exchange were kept for up to
    65,536 hands, ~5.5 KB each: ~340 MB per worker under real traffic, where every
    deal is new (the soak's RSS grew ~1.5 MB every 20,000 calls)."""
    rng = random.Random(7)
    ecarte_rules._DISCARDS.clear()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(3_000):  # 3,000 distinct five-card hands, as 3,000 deals would
            hand = sum(1 << c for c in rng.sample(ECARTE_DECK, 5))
            ecarte_rules._discard_actions(rng.randrange(2), hand, 5)
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        ecarte_rules._DISCARDS.clear()
    assert held < MAX_CACHE_BYTES, f"{held / 2**20:.1f} MiB held by the discard cache"
