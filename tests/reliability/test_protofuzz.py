"""The request mutator's own bounds: what it makes must fit in the test client's memory."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import strategies as st

from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

from . import protofuzz

MIB = 1024 * 1024


def test_copies_stop_at_200000_entries_and_16_mib() -> None:
    assert protofuzz.most_copies([b"x" * 32] * 10) == 2000
    assert protofuzz.most_copies([b"x"] * 1000) == 200
    assert protofuzz.most_copies([b"x" * 2 * MIB]) == 8
    assert protofuzz.most_copies([common_pb2.Viewer(spectator="x" * MIB)]) == 15
    # A field at the bound (or past it) may still be doubled, not multiplied again.
    assert protofuzz.most_copies([b"x" * 16] * 200_000) == 2
    assert protofuzz.most_copies([b"x" * 20 * MIB]) == 2


def _largest_copies(strategy: st.SearchStrategy[Any]) -> Any:
    """A draw that always picks "many copies" (op 4) and then the most it may."""
    found = re.fullmatch(r"integers\(min_value=(-?\d+), max_value=(-?\d+)\)", repr(strategy))
    assert found, repr(strategy)
    low, high = int(found[1]), int(found[2])
    return 4 if (low, high) == (0, 7) else high


def test_a_huge_entry_copied_three_times_stays_bounded() -> None:
    # Before the bound: a 2 MiB entry copied 2,000 times (4 GB), then again (24 GB of
    # the test client's memory before the kernel killed it).
    request = pb.NewGameRequest(seat_entropy=[b"x" * 2 * MIB, b"y"])
    field = request.DESCRIPTOR.fields_by_name["seat_entropy"]
    site = protofuzz.Site(request, field, None, "seat_entropy")
    sizes = []
    for _ in range(3):
        protofuzz.mutate_site(site, _largest_copies)
        sizes.append(request.ByteSize())
    assert sizes[0] <= 16 * MIB + 100 and sizes == [sizes[0], 2 * sizes[0], 4 * sizes[0]]
