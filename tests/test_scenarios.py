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


def test_a_misspelt_field_is_not_a_scenario() -> None:
    """A key the format does not have ("ruleIDs", "Final", "scoreBoard") would be an
    expectation silently left unchecked: the file is refused, naming the key."""
    path = next(p for p in SCENARIOS if p.parent.name == "earl_of_coventry")
    data = scenarios.load(path)
    for where, key in (
        ((), "Final"),
        (("start",), "scoreBoard"),
        (("steps", 0), "ruleIDs"),
        (("final",), "statehash"),
    ):
        bad = copy.deepcopy(data)
        target = bad
        for k in where:
            target = target[k]
        target[key] = "anything"
        with pytest.raises(ValueError, match=key):
            scenarios.run(bad, BACKEND)
    bad = copy.deepcopy(data)
    bad["steps"][0]["view"] = {"viewer": {"seat": 0}, "expect": {}, "expected": {}}
    with pytest.raises(ValueError, match="expected"):
        scenarios.run(bad, BACKEND)


def test_partial_expectations_in_proto_field_names_are_compared() -> None:
    """protobuf JSON parsing takes a field's proto name as well as its camelCase name:
    an expectation written so is checked, not skipped."""
    path = next(p for p in SCENARIOS if p.parent.name == "earl_of_coventry")
    data = scenarios.load(path)
    seats = data["config"]["earlOfCoventry"]["seats"]
    wrong_start = copy.deepcopy(data)
    wrong_start["start"] = {"scoreboard": {"seats": [{"cards_in_hand": 99}] + [{}] * (seats - 1)}}
    wrong_view = copy.deepcopy(data)
    wrong_view["steps"][0]["view"] = {
        "viewer": {"seat": 0},
        "expect": {"earl_of_coventry": {"last_player": 99}},
    }
    for bad in (wrong_start, wrong_view):
        result = scenarios.run(bad, BACKEND)
        assert not result.ok
        assert any("99" in f for f in result.failures), result.failures


def test_the_state_hash_may_be_written_in_either_case() -> None:
    path = next(p for p in SCENARIOS if p.parent.name == "earl_of_coventry")
    data = scenarios.load(path)
    from referee.v1 import referee_pb2

    replay = BACKEND.Replay(
        referee_pb2.ReplayRequest(
            config=scenarios._parse(referee_pb2.GameConfig(), data["config"]),
            seed=bytes.fromhex(data["seed"]),
            actions=[scenarios._parse(referee_pb2.Action(), s["action"]) for s in data["steps"]],
        )
    )
    upper = copy.deepcopy(data)
    upper["final"]["stateHash"] = replay.final_hash.hex().upper()
    result = scenarios.run(upper, BACKEND)
    assert result.ok, result.failures


def test_a_scenario_says_first_when_the_game_started_under_another_rules_version() -> None:
    """`rulesVersion` names the version a scenario was written for: once a release
    starts the game under another (`ecarte/2`), the first failure says so."""
    path = next(p for p in SCENARIOS if p.parent.name == "ecarte")
    data = scenarios.load(path)
    same = {**copy.deepcopy(data), "rulesVersion": "ecarte/1"}
    assert scenarios.run(same, BACKEND).ok
    other = {**copy.deepcopy(data), "rulesVersion": "ecarte/2"}
    result = scenarios.run(other, BACKEND)
    assert result.failures == [
        "start: the game started under rules ecarte/1, the scenario is written for ecarte/2"
    ]
