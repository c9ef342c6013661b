"""scripts/mutate.py makes the mutants it says it makes (one change each, annotations
left alone), and reports a survivor when the tests let a broken rule pass."""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
spec = importlib.util.spec_from_file_location("mutate", ROOT / "scripts" / "mutate.py")
assert spec is not None and spec.loader is not None
mutate = importlib.util.module_from_spec(spec)
sys.modules["mutate"] = mutate
spec.loader.exec_module(mutate)

SOURCE = """\
def legal(card: int, held: int) -> bool:
    return 0 <= card < 52 and not held >> card & 1
"""


def test_every_site_is_one_change() -> None:
    found = mutate.sites(ast.parse(SOURCE))
    assert sorted({kind for kind, _, _ in found}) == ["bin", "bool", "cmp", "int", "not"]
    mutants = {mutate.mutant(SOURCE, s)[0] for s in found}
    assert len(mutants) == len(found)  # all different
    original = ast.unparse(ast.parse(SOURCE))
    for code in mutants:
        assert code != original
        assert "card: int" in code and "-> bool" in code  # annotations untouched
    bodies = {code.splitlines()[1].strip() for code in mutants}
    assert "return 0 <= card <= 52 and (not held >> card & 1)" in bodies
    assert "return 0 < card < 52 and (not held >> card & 1)" in bodies
    assert "return 0 <= card < 52 or not held >> card & 1" in bodies
    assert "return 0 <= card < 52 and held >> card & 1" in bodies
    assert "return 0 <= card < 53 and (not held >> card & 1)" in bodies
    assert "return 0 <= card < 52 and (not held >> card | 1)" in bodies
