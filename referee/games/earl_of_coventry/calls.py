"""Couplets and calls of Earl of Coventry (C-CHANT, C-VAR-0 .. C-VAR-5).

A call table is built once per configuration (and cached): for each rank and
run position it holds the canonical text that ``legal_actions`` puts in a
play, and the set of normalised texts ``apply`` accepts (``None`` when any
text is accepted: a Snip Snap Snorum lead, Silent Earl).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from enum import IntEnum
from functools import lru_cache
from typing import Final

from referee.cards import RANK_NAMES


class CallStyle(IntEnum):
    """C-VAR-0. Values equal ``referee.v1.EarlOfCoventryCallStyle``."""

    EARL = 1
    SNIP_SNAP_SNORUM = 2
    SILENT = 3
    CUSTOM = 4


EARL_COUPLETS: Final[tuple[str, str, str, str]] = (
    "There's as good as {rank} can be.",
    "There's a {rank} as good as he.",
    "There's the best of all the three.",
    "And there's the Earl of Coventry.",
)
"""C-CHANT: lead, second, third, fourth."""

SNIP_SNAP_SNORUM_CALLS: Final[tuple[str, str, str, str]] = ("", "Snip!", "Snap!", "Snorum!")
"""C-VAR-2: canonical calls (the lead needs none; ``Snorem!`` is accepted for the fourth)."""

RANK_PLACEHOLDER: Final = "{rank}"

# C-CHANT-1: the numerals 2 .. 10 may replace the English name, Knave may replace Jack.
_RANK_ALIASES: Final[tuple[tuple[str, ...], ...]] = tuple(
    (name,) + ((str(i + 1),) if 1 <= i <= 9 else ()) + (("Knave",) if name == "Jack" else ())
    for i, name in enumerate(RANK_NAMES)
)

_APOSTROPHES: Final = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201b": "'", "\uff07": "'"}
)
# Python's str.isspace() also counts the information separators U+001C .. U+001F,
# which are not White_Space in Unicode: C-CHANT-2 removes them like any other
# character that is not a letter, a digit, an apostrophe or white space.
_NOT_WHITE_SPACE: Final = frozenset("\x1c\x1d\x1e\x1f")
# Python's str.lower(), called through this object. Compiled, ``text.lower()`` is mypyc's
# own version (mypy 2.4, Python 3.11), which lower-cases each character alone: a capital
# sigma ending a word becomes σ where Python's gives ς (Unicode's Final_Sigma), and
# "ΣΑΣ" would not match "σας" in the shipped build alone (found by the differential test
# on the compiled build, tests/differential).
_LOWER: Callable[[str], str] = str.lower
_THERE_IS: Final = re.compile(r"(?:(?<= )|^)there is(?= |$)")
_SPACES: Final = re.compile(" +")


def normalise(text: str) -> str:
    """C-CHANT-2: the normal form two calls are compared in."""
    text = _LOWER(text).translate(_APOSTROPHES)
    kept: list[str] = []
    for ch in text:
        if ch.isspace() and ch not in _NOT_WHITE_SPACE:
            kept.append(" ")
        elif ch == "'":
            kept.append(ch)
        else:
            cat = unicodedata.category(ch)
            if cat[0] == "L" or cat == "Nd":
                kept.append(ch)
    collapsed = _SPACES.sub(" ", "".join(kept)).strip()
    # Whole words "there is" read as "there's" (the rewrite creates no new pair).
    return _THERE_IS.sub("there's", collapsed)


@dataclass(frozen=True, slots=True)
class CallTable:
    """For ``[rank_index][position - 1]``: the canonical call and the accepted normal forms."""

    canonical: tuple[tuple[str, str, str, str], ...]
    accepted: tuple[tuple[frozenset[str] | None, ...], ...]

    def matches(self, rank_index: int, position: int, said: str) -> bool:
        """Whether ``said`` is the right call for the card at ``position`` (1..4)."""
        accepted = self.accepted[rank_index][position - 1]
        if accepted is None:
            return True
        if said == self.canonical[rank_index][position - 1]:
            return True
        return normalise(said) in accepted


def _expand(template: str, rank_index: int) -> tuple[str, frozenset[str]]:
    canonical = template.replace(RANK_PLACEHOLDER, RANK_NAMES[rank_index])
    forms = frozenset(
        normalise(template.replace(RANK_PLACEHOLDER, alias)) for alias in _RANK_ALIASES[rank_index]
    )
    return canonical, forms


@lru_cache(maxsize=16)  # kept by the action tables (rules._tables) as long as they are
def call_table(style: CallStyle, templates: tuple[str, ...]) -> CallTable:
    """The call table of a call style (``templates``: the four custom templates)."""
    canonical: list[tuple[str, str, str, str]] = []
    accepted: list[tuple[frozenset[str] | None, ...]] = []
    for r in range(13):
        if style is CallStyle.SILENT:
            canonical.append(("", "", "", ""))
            accepted.append((None, None, None, None))
        elif style is CallStyle.SNIP_SNAP_SNORUM:
            canonical.append(SNIP_SNAP_SNORUM_CALLS)
            accepted.append(
                (
                    None,
                    frozenset({"snip"}),
                    frozenset({"snap"}),
                    frozenset({"snorem", "snorum"}),
                )
            )
        else:
            source = EARL_COUPLETS if style is CallStyle.EARL else templates
            expanded = [_expand(t, r) for t in source]
            canonical.append((expanded[0][0], expanded[1][0], expanded[2][0], expanded[3][0]))
            accepted.append(tuple(forms for _, forms in expanded))
    return CallTable(tuple(canonical), tuple(accepted))
