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


def _checkout(tmp: Path, test_body: str, track_test: bool = True) -> Path:
    """A git checkout holding scripts/mutate.py, a one-rule module and its test."""
    import shutil
    import subprocess

    root = tmp / "checkout"
    (root / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "mutate.py", root / "scripts" / "mutate.py")
    (root / "rule.py").write_text("def legal(card):\n    return 0 <= card < 52\n")
    (root / "test_rule.py").write_text("from rule import legal\n\n\n" + test_body)
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    tracked = ["scripts/mutate.py", "rule.py"] + (["test_rule.py"] if track_test else [])
    subprocess.run(["git", "add", *tracked], cwd=root, check=True)
    return root


def _run(root: Path) -> tuple[int, list[dict[str, object]]]:
    import json
    import subprocess

    result = subprocess.run(
        [sys.executable, "scripts/mutate.py", "--jobs", "1", "rule.py", "test_rule.py"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.startswith("{")]
    return result.returncode, lines


def test_survivors_are_the_mutants_the_tests_let_pass(tmp_path: Path) -> None:
    """A test of the lower bound only: the mutants of the upper bound survive, those of
    the lower bound are killed."""
    root = _checkout(tmp_path, "def test_lower():\n    assert legal(0) and not legal(-1)\n")
    code, survivors = _run(root)
    assert code == 0
    assert sorted((s["kind"], s["col"]) for s in survivors) == [("cmp", 11), ("int", 23)]
    assert {s["line"] for s in survivors} == {2}


def test_tests_that_fail_unmutated_stop_the_run(tmp_path: Path) -> None:
    """An untracked test file (absent from the copies) would kill every mutant: refused."""
    root = _checkout(tmp_path, "def test_any():\n    assert legal(0)\n", track_test=False)
    code, survivors = _run(root)
    assert code == 2 and survivors == []
