"""The golden replay vectors (tests/vectors/*.json, GameLog JSON; docs/trust.md).

They pin the referee's behaviour byte for byte; the TypeScript and Go clients
replay the same files."""

from __future__ import annotations

from pathlib import Path

import pytest
from google.protobuf import json_format

from referee import verify
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

VECTORS = sorted((Path(__file__).resolve().parents[1] / "vectors").glob("*.json"))


def load(path: Path) -> pb.GameLog:
    return json_format.Parse(path.read_text(encoding="utf-8"), pb.GameLog())


def test_vectors_cover_games_and_variants() -> None:
    logs = [load(p) for p in VECTORS]
    games = {log.config.WhichOneof("game") for log in logs}
    assert games == {"earl_of_coventry", "ecarte"}
    assert len(logs) >= 7
    verdicts = {e.verdict for log in logs for e in log.entries}
    assert verdicts == {1, 2, 3}, "accepted, rejected and penalized actions are all covered"
    assert any(log.seat_entropy for log in logs)
    assert any(e.action.actor.HasField("spectator") for log in logs for e in log.entries)


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_replays_over_the_wire(
    path: Path, stub: referee_pb2_grpc.RefereeServiceStub
) -> None:
    log = load(path)
    reply = stub.Replay(
        pb.ReplayRequest(
            config=log.config,
            seed=log.seed,
            seat_entropy=log.seat_entropy,
            actions=[e.action for e in log.entries],
            rules_version=log.rules_version,
        )
    )
    assert reply.initial_hash == log.initial_hash
    assert [s.verdict for s in reply.steps] == [e.verdict for e in log.entries]
    assert [[v.code for v in s.violations] for s in reply.steps] == [
        list(e.violations) for e in log.entries
    ]
    assert [s.state_hash for s in reply.steps] == [e.state_hash for e in log.entries]
    assert reply.final_hash == log.final_hash
    assert reply.final_state.rules_version == log.rules_version
    assert reply.scoreboard.finished


@pytest.mark.parametrize("path", VECTORS, ids=lambda p: p.stem)
def test_vector_verifies(path: Path) -> None:
    report = verify.verify(load(path))
    assert report.ok, report.lines
