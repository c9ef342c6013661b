"""`referee verify`: an honest log passes; a tampered seed, deal or action is pinpointed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from google.protobuf import json_format

from referee import verify
from referee.codec import all_codecs
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

SEED = bytes(range(100, 132))
ENTROPY = [b"alice", b"", b"carol"]
CONFIG = pb.GameConfig(
    earl_of_coventry=eoc.EarlOfCoventryConfig(
        seats=4, scoring=eoc.EARL_OF_COVENTRY_SCORING_COUNTERS, first_dealer=1
    )
)
REFEREE = Referee(all_codecs())


def honest_log(rounds: int = 2) -> pb.GameLog:
    """A session of `rounds` rounds (first legal action each time), recorded by Replay."""
    state = REFEREE.new_game(
        pb.NewGameRequest(config=CONFIG, seed=SEED, seat_entropy=ENTROPY)
    ).state
    actions = []
    played_rounds = 0
    while True:
        legal = REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions
        if not legal:
            break
        action = legal[0]
        if action.actor.HasField("table"):
            played_rounds += 1
            action = legal[0] if played_rounds < rounds else legal[-1]
        actions.append(action)
        state = REFEREE.apply_action(pb.ApplyActionRequest(state=state, action=action)).state
    reply = REFEREE.replay(
        pb.ReplayRequest(
            config=CONFIG, seed=SEED, seat_entropy=ENTROPY, actions=actions, include_log=True
        )
    )
    assert reply.scoreboard.finished
    return reply.log


def test_an_honest_log_verifies() -> None:
    log = honest_log()
    report = verify.verify(log)
    assert report.ok, report.lines
    assert report.lines[0].startswith("OK: earl_of_coventry/1")
    assert log.seed_commitment and log.initial_hash and log.final_hash


def test_a_seed_that_does_not_match_its_commitment() -> None:
    log = honest_log()
    log.seed = bytes(32)
    report = verify.verify(log)
    assert not report.ok and "commitment" in report.lines[-1]


def test_a_tampered_first_deal_is_pinpointed() -> None:
    """A referee that dealt other cards than the seed gives: state 0 differs."""
    log = honest_log()
    other = REFEREE.new_game(pb.NewGameRequest(config=CONFIG, seed=bytes(32)))
    log.initial_hash = other.state_hash
    report = verify.verify(log)
    assert not report.ok and "first deal" in report.lines[-1]


def test_a_tampered_later_deal_is_pinpointed() -> None:
    log = honest_log()
    index = next(
        i for i, e in enumerate(log.entries) if e.action.earl_of_coventry.HasField("next_round")
    )
    log.entries[index].state_hash = bytes(32)
    report = verify.verify(log)
    assert not report.ok
    assert f"action {index} (table: next_round)" in report.lines[-1]
    assert "dealt new cards" in report.lines[-1]


def test_a_tampered_action_is_pinpointed() -> None:
    log = honest_log()
    play = log.entries[7].action.earl_of_coventry.play
    play.card.rank = play.card.rank % 13 + 1  # another card than the one played
    report = verify.verify(log)
    assert not report.ok
    assert report.lines[-1].startswith("DIVERGENCE: action 7 (seat")


def test_a_tampered_verdict_and_final_hash() -> None:
    log = honest_log()
    log.entries[3].verdict = common_pb2.VERDICT_REJECTED
    assert "action 3" in verify.verify(log).lines[-1]
    log = honest_log()
    log.final_hash = bytes(32)
    assert "final state" in verify.verify(log).lines[-1]


def test_cli_exit_codes(tmp_path: Path) -> None:
    log = honest_log()
    good = tmp_path / "good.json"
    good.write_text(json_format.MessageToJson(log))
    bad_log = pb.GameLog()
    bad_log.CopyFrom(log)
    bad_log.entries[2].state_hash = bytes(32)
    bad = tmp_path / "bad.json"
    bad.write_text(json_format.MessageToJson(bad_log))
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")

    def run(path: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "referee.cli", "verify", str(path)],
            capture_output=True,
            text=True,
            timeout=120,
        )

    ok = run(good)
    assert ok.returncode == 0 and ok.stdout.startswith("OK"), ok.stdout + ok.stderr
    diverged = run(bad)
    assert diverged.returncode == 1 and "DIVERGENCE: action 2" in diverged.stdout
    assert run(garbage).returncode == 2


def test_a_tampered_state_after_a_play_is_not_called_a_deal() -> None:
    """The divergence says what kind of step it was: a play that deals nothing."""
    log = honest_log()
    log.entries[2].state_hash = bytes(32)
    line = verify.verify(log).lines[-1]
    assert "action 2 (seat" in line and "the state after it differs" in line
    assert "dealt" not in line


def test_a_configuration_without_a_game_is_no_configuration() -> None:
    log = honest_log()
    log.ClearField("config")
    log.config.SetInParent()  # present, but naming no game
    assert log.HasField("config")
    report = verify.verify(log)
    assert not report.ok and "no configuration" in report.lines[-1]
