"""Fixtures of the reliability tests: a `referee serve` subprocess (plain states) and
a pool of real games (played in-process) to mutate."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import pytest

from .playouts import Game, games
from .support import RefereeProcess

# Scale every example count (hypothesis) and call count (soak) for a longer run:
# REFEREE_FUZZ_SCALE=20 ./dev test tests/reliability  (docs/reliability.md).
SCALE = float(os.environ.get("REFEREE_FUZZ_SCALE", "1"))


def scaled(n: int) -> int:
    return max(1, round(n * SCALE))


@pytest.fixture(scope="session")
def pool() -> list[Game]:
    """22 real games (two per configuration), about 1,800 states and actions."""
    return games(22, seed=8)


@pytest.fixture(scope="module")
def plain_server() -> Iterator[RefereeProcess]:
    server = RefereeProcess(keep_ids=True)
    yield server
    try:
        server.assert_healthy()
        assert server.terminate() == 0
    finally:
        server.close()


@pytest.fixture(scope="module")
def tally() -> Iterator[Counter[str]]:
    """Outcomes seen by a module's tests (printed with -s, for docs/reliability.md)."""
    seen: Counter[str] = Counter()
    yield seen
    by_code: Counter[str] = Counter()
    details: dict[str, set[str]] = {}
    for key, n in seen.items():
        head, _, detail = key.partition(":")
        by_code[head] += n
        if detail:
            details.setdefault(head, set()).add(detail)
    for head, n in sorted(by_code.items()):
        kinds = f" ({len(details[head])} distinct fields/reasons)" if head in details else ""
        print(f"\n  {head}: {n}{kinds}", end="")
    print()
