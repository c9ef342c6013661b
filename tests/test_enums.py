"""The rules' enums whose docstrings say "Values equal ``referee.v1.X``" do: every member
has the value of the protobuf enum value of the same name, and every value of the
protobuf enum but the unspecified one has a member. The codecs convert by value.

The claims are read from the source (a compiled class has no docstring)."""

from __future__ import annotations

import ast
import importlib
import re
from enum import IntEnum
from pathlib import Path

import pytest
from google.protobuf import descriptor_pool

import referee.v1.referee_pb2  # noqa: F401 (loads every referee.v1 descriptor)
from referee.cards import Rank, Suit

ROOT = Path(__file__).resolve().parent.parent
CLAIM = re.compile(r"Values equal ``referee\.v1\.(\w+)``")


def claimed() -> list[tuple[type[IntEnum], str]]:
    """(enum, protobuf enum name) for every class whose docstring makes the claim."""
    found: list[tuple[type[IntEnum], str]] = []
    for path in sorted((ROOT / "referee" / "games").rglob("*.py")):
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef):
                match = CLAIM.search(ast.get_docstring(node) or "")
                if match:
                    found.append((getattr(importlib.import_module(module), node.name), match[1]))
    # referee/cards.py says it of both in its module docstring.
    return [*found, (Suit, "Suit"), (Rank, "Rank")]


PAIRS = claimed()


def test_the_claims_are_found() -> None:
    assert len(PAIRS) >= 11


@pytest.mark.parametrize(("enum", "proto"), PAIRS, ids=[p for _, p in PAIRS])
def test_values_equal_the_protobuf_enum(enum: type[IntEnum], proto: str) -> None:
    descriptor = descriptor_pool.Default().FindEnumTypeByName(f"referee.v1.{proto}")
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", proto).upper() + "_"
    values = {v.name.removeprefix(prefix): v.number for v in descriptor.values if v.number}
    assert values == {m.name: m.value for m in enum}
