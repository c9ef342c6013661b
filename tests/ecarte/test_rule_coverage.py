"""Every rule id of the rulebook is tested, and every violation code is documented."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

from referee.games.ecarte import violations as V
from tests.conftest import shared_dir

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules" / "ecarte.md"
RULE = re.compile(r"\bE-(?:[A-Z]+-\d+|TURN|PHASE|CARD|CONF)\b")


def rule_ids(text: str) -> set[str]:
    return set(RULE.findall(text))


def defined_ids(text: str) -> set[str]:
    """Ids that start a rule line (``- E-PLAY-4 ...``) or head a rule section."""
    return set(re.findall(r"^(?:- |#+ )?\**(E-(?:[A-Z]+-\d+|TURN|PHASE|CARD|CONF))\b", text, re.M))


def cited_ids() -> dict[str, list[str]]:
    """Rule id -> test functions that cite it in their name or docstring."""
    out: dict[str, list[str]] = {}
    for path in Path(__file__).parent.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                text = node.name.replace("_", "-") + " " + (ast.get_docstring(node) or "")
                for rid in rule_ids(text):
                    out.setdefault(rid, []).append(node.name)
    return out


def test_every_rule_id_has_a_test() -> None:
    ids = defined_ids(DOC.read_text())
    assert len(ids) >= 49  # 45 numbered rules and E-TURN, E-PHASE, E-CARD, E-CONF
    missing = sorted(ids - set(cited_ids()))
    assert not missing, f"rule ids without a test: {missing}"


def test_the_project_rulebook_covers_the_shared_rulebook() -> None:
    shared = defined_ids((shared_dir() / "rules" / "ecarte.md").read_text(encoding="utf-8"))
    assert shared and shared <= defined_ids(DOC.read_text())


def test_every_violation_code_is_documented_with_its_rules() -> None:
    text = DOC.read_text()
    for code, rules in V.CODES.items():
        line = next((x for x in text.splitlines() if x.startswith(f"| `{code}`")), "")
        assert line, f"{code} is not documented"
        for rid in rules:
            assert rid in line, f"{code}: {rid} missing from its table row"


def test_scenarios_exist_and_cite_real_rule_ids() -> None:
    """The hand-written Écarté scenarios (tests/scenarios/ecarte) cite rule ids of the
    rulebook only; together they cover every rule family."""
    ids = defined_ids(DOC.read_text())
    paths = sorted((ROOT / "tests" / "scenarios" / "ecarte").glob("*.json"))
    assert len(paths) >= 4
    cited: set[str] = set()
    for path in paths:
        rules = set(json.loads(path.read_text(encoding="utf-8"))["rules"])
        assert rules and rules <= ids, (path.name, sorted(rules - ids))
        cited |= rules
    families = {r.rsplit("-", 1)[0] if r[-1].isdigit() else r for r in ids}
    assert families <= {r.rsplit("-", 1)[0] if r[-1].isdigit() else r for r in cited} | {
        "E-DECK",
        "E-SEAT",
        "E-CARD",
        "E-CONF",
    }
