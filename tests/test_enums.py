"""The rules' enums whose docstrings say "Values equal referee.v1.X" do: every member has
the value of the protobuf enum value of the same name, and every value of the protobuf
enum but the unspecified one has a member. The codecs convert by value."""

from __future__ import annotations

import re
from enum import IntEnum

import pytest
from google.protobuf import descriptor_pool

import referee.v1.common_pb2
import referee.v1.earl_of_coventry_pb2
import referee.v1.ecarte_pb2
import referee.v1.referee_pb2  # noqa: F401 (the descriptors of the enums below)
from referee.cards import Rank, Suit
from referee.games import base
from referee.games.earl_of_coventry import calls as earl_calls
from referee.games.earl_of_coventry import state as earl
from referee.games.ecarte import state as ecarte

PAIRS: list[tuple[type[IntEnum], str]] = [
    (base.Verdict, "Verdict"),
    (base.OptionType, "OptionType"),
    (Suit, "Suit"),
    (Rank, "Rank"),
    (earl.Scoring, "EarlOfCoventryScoring"),
    (earl.Phase, "EarlOfCoventryPhase"),
    (earl.CutShortReason, "EarlOfCoventryCutShortReason"),
    (earl_calls.CallStyle, "EarlOfCoventryCallStyle"),
    (ecarte.Packets, "EcartePackets"),
    (ecarte.Phase, "EcartePhase"),
    (ecarte.ScoreReason, "EcarteScoreReason"),
]


def test_every_enum_that_says_so_is_listed() -> None:
    import inspect

    modules = (base, earl, earl_calls, ecarte)
    claimed = {
        cls
        for m in modules
        for _, cls in inspect.getmembers(m, inspect.isclass)
        if issubclass(cls, IntEnum) and "Values equal" in (cls.__doc__ or "")
    }
    assert claimed <= {cls for cls, _ in PAIRS}


@pytest.mark.parametrize(("enum", "proto"), PAIRS, ids=[p for _, p in PAIRS])
def test_values_equal_the_protobuf_enum(enum: type[IntEnum], proto: str) -> None:
    assert f"referee.v1.{proto}" in (enum.__doc__ or "") or enum in (Suit, Rank)
    descriptor = descriptor_pool.Default().FindEnumTypeByName(f"referee.v1.{proto}")
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", proto).upper() + "_"
    values = {v.name.removeprefix(prefix): v.number for v in descriptor.values if v.number}
    assert values == {m.name: m.value for m in enum}
