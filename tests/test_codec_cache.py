"""The codec caches are bounded: inputs are the clients', so none grows past CACHE_LIMIT."""

from __future__ import annotations

from referee.codec import all_codecs
from referee.codec.common import CACHE_LIMIT, remember
from referee.v1 import earl_of_coventry_pb2 as eoc


def test_remember_stores_and_empties_a_full_cache_first() -> None:
    cache: dict[int, str] = {}
    for i in range(CACHE_LIMIT):
        assert remember(cache, i, str(i)) == str(i)
    assert len(cache) == CACHE_LIMIT and cache[7] == "7"
    assert remember(cache, -1, "new") == "new"
    assert cache == {-1: "new"}


def test_many_distinct_configurations_keep_the_config_cache_bounded() -> None:
    codec = next(c for c in all_codecs() if c.game_id == "earl_of_coventry")
    decoder = codec._configs  # type: ignore[attr-defined]
    for counters in range(1, CACHE_LIMIT + 10):
        decoder.config(eoc.EarlOfCoventryConfig(seats=4, starting_counters=counters), "config")
    assert 1 <= len(decoder._configs) <= CACHE_LIMIT
