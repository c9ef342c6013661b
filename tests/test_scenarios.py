"""Every scenario file under tests/scenarios/ (format: docs/scenarios.md)."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest

from referee import scenarios

SCENARIOS = sorted((Path(__file__).parent / "scenarios").rglob("*.json"))
BACKEND = scenarios.InProcess()


def test_there_are_scenarios_for_every_game() -> None:
    games = {p.parent.name for p in SCENARIOS}
    assert "earl_of_coventry" in games


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario(path: Path) -> None:
    data = scenarios.load(path)
    assert data.get("rules"), "a scenario names the rule ids it exercises"
    result = scenarios.run(data, BACKEND, str(path))
    assert result.ok, "\n".join(result.failures)
    assert result.steps == len(data["steps"])


def test_the_runner_reports_wrong_expectations() -> None:
    path = next(p for p in SCENARIOS if p.parent.name == "earl_of_coventry")
    data = scenarios.load(path)
    wrong_verdict = copy.deepcopy(data)
    wrong_verdict["steps"][0]["verdict"] = "VERDICT_REJECTED"
    wrong_events = copy.deepcopy(data)
    wrong_events["steps"][0]["events"] = wrong_events["steps"][0]["events"][:1]
    wrong_final = copy.deepcopy(data)
    wrong_final["final"]["stateHash"] = "00" * 32
    for bad in (wrong_verdict, wrong_events, wrong_final):
        result = scenarios.run(bad, BACKEND)
        assert not result.ok
