"""Every rule id of the rulebook has at least one test named after it."""

from __future__ import annotations

import re
from pathlib import Path

from tests.conftest import shared_dir

RULE = re.compile(r"^- (C-[A-Z]+-\d+)\b", re.MULTILINE)
TEST = re.compile(r"^def (test_C_[A-Z]+_\d+)(?:_\w*)?\(", re.MULTILINE)


def rulebook_ids() -> list[str]:
    text = (shared_dir() / "rules" / "earl-of-coventry.md").read_text(encoding="utf-8")
    return RULE.findall(text)


def ids_with_tests() -> set[str]:
    names: set[str] = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        for m in TEST.finditer(path.read_text(encoding="utf-8")):
            names.add(m.group(1).removeprefix("test_").replace("_", "-"))
    return names


def test_rulebook_ids_are_read() -> None:
    ids = rulebook_ids()
    assert len(ids) == len(set(ids))
    # C-DECK-1, C-SEAT-1..3, C-DEAL-1..2, C-PLAY-1..8, C-CHANT-1..4, C-ILL-1,
    # C-SCORE-0..6, C-VAR-0..7
    assert len(ids) == 1 + 3 + 2 + 8 + 4 + 1 + 7 + 8


def test_every_rule_id_has_a_test() -> None:
    missing = sorted(set(rulebook_ids()) - ids_with_tests())
    assert not missing, f"rules without a test named after them: {missing}"
