"""The golden replay vectors (tests/vectors/*.json) through the Python client.

The TypeScript and Go clients replay the same files in their own test suites
(npm test, go test), which tests/clients runs against the same server.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from referee.client import Client, config
from referee.v1 import common_pb2, referee_pb2

from ..server_thread import ServerThread
from . import test_go, test_typescript
from .conftest import ROOT, run

VECTORS = ROOT / "tests" / "vectors"
FILES = sorted(VECTORS.glob("*.json")) if VECTORS.is_dir() else []


def _verdict(name: Any) -> str:
    return str(name).removeprefix("VERDICT_")


def check_vector(client: Client, path: Path) -> list[str]:
    """Every difference between what the file expects and what the server answers."""
    vector = json.loads(path.read_text(encoding="utf-8"))
    steps = vector.get("steps") or []
    raw_actions = vector.get("actions") or [s["action"] for s in steps]
    actions = [json_format.ParseDict(a, referee_pb2.Action()) for a in raw_actions]
    verdicts = list(vector.get("verdicts") or vector.get("expectedVerdicts") or [])
    verdicts += [None] * (len(actions) - len(verdicts))
    hashes: list[str | None] = [None] * len(actions)
    for i, step in enumerate(steps[: len(actions)]):
        if "verdict" in step:
            verdicts[i] = step["verdict"]
        hashes[i] = step.get("stateHash")
    reply = client.replay(
        json_format.ParseDict(vector["config"], referee_pb2.GameConfig()),
        bytes.fromhex(vector["seed"]),
        actions,
        seat_entropy=[bytes.fromhex(e) for e in vector.get("seatEntropy", [])],
        timeout=120,
    )
    failures = []
    if len(reply.steps) != len(actions):
        failures.append(f"{len(reply.steps)} steps for {len(actions)} actions")
    for i, step in enumerate(reply.steps[: len(actions)]):
        got = _verdict(common_pb2.Verdict.Name(step.verdict))
        if verdicts[i] is not None and got != _verdict(verdicts[i]):
            failures.append(f"action {i}: verdict {got}, expected {_verdict(verdicts[i])}")
        if hashes[i] and step.state_hash.hex() != str(hashes[i]).lower():
            failures.append(f"action {i}: state hash {step.state_hash.hex()}, expected {hashes[i]}")
    if "initialHash" in vector and reply.initial_hash.hex() != vector["initialHash"].lower():
        failures.append(
            f"initial hash {reply.initial_hash.hex()}, expected {vector['initialHash']}"
        )
    if not vector.get("finalHash"):
        failures.append("the vector has no finalHash")
    elif reply.final_hash.hex() != vector["finalHash"].lower():
        failures.append(f"final hash {reply.final_hash.hex()}, expected {vector['finalHash']}")
    return failures


def test_golden_vectors_replay(client: Client) -> None:
    if not VECTORS.is_dir():
        # Said in the output (warnings summary), never skipped silently.
        warnings.warn(
            f"golden vectors: {VECTORS} does not exist; no vector was replayed", stacklevel=1
        )
        return
    assert FILES, f"{VECTORS} holds no .json vector"
    failures = {p.name: f for p in FILES if (f := check_vector(client, p))}
    assert not failures


def make_vector(client: Client, directory: Path) -> Path:
    """A vector written from a game played here: one rejected action among accepted ones."""
    game_config = config("earl_of_coventry", seats=3)
    seed = bytes(range(32))
    game = client.new_game(game_config, seed).game
    actions, verdicts = [], []
    for i in range(12):
        action = client.legal_actions(game)[0]
        if i == 4:
            bad = referee_pb2.Action()
            bad.CopyFrom(action)
            bad.actor.seat = (bad.actor.seat + 1) % 3
            actions.append(bad)
            verdicts.append(common_pb2.Verdict.Name(client.apply(game, bad).verdict))
        applied = client.apply(game, action)
        actions.append(action)
        verdicts.append(common_pb2.Verdict.Name(applied.verdict))
        game = applied.game
    path = directory / "earl-made-here.json"
    vector = {
        "name": "made by tests/clients",
        "config": json_format.MessageToDict(game_config),
        "seed": seed.hex(),
        "actions": [json_format.MessageToDict(a) for a in actions],
        "verdicts": verdicts,
        "finalHash": game.state_hash.hex(),
    }
    path.write_text(json.dumps(vector, indent=1), encoding="utf-8")
    return path


def tamper(path: Path) -> None:
    vector = json.loads(path.read_text(encoding="utf-8"))
    vector["finalHash"] = "00" * 32
    vector["verdicts"][4] = "VERDICT_ACCEPTED"
    path.write_text(json.dumps(vector), encoding="utf-8")


def test_every_runner_checks_a_vector(client: Client, server: ServerThread, tmp_path: Path) -> None:
    """The three runners accept a true vector and report a tampered one."""
    path = make_vector(client, tmp_path)
    assert "VERDICT_REJECTED" in path.read_text(encoding="utf-8")
    env = {"REFEREE_ADDRESS": server.address, "REFEREE_VECTORS": str(tmp_path)}
    test_typescript._ready()
    test_go._vendor()
    ts = ["node", "--test", "dist/test/vectors.test.js"]
    go = ["go", "test", "-count=1", "-v", "-run", "TestGoldenVectors", "./referee"]
    assert run(["npm", "run", "build"], cwd=test_typescript.TS).returncode == 0

    assert check_vector(client, path) == []
    result = run(ts, cwd=test_typescript.TS, env=env)
    assert result.returncode == 0 and "vector ok:" in result.stdout, result.stdout
    result = run(go, cwd=test_go.GO, env={**test_go.ENV, **env})
    assert result.returncode == 0 and "vector earl-made-here.json: 13 actions" in result.stdout

    tamper(path)
    failures = check_vector(client, path)
    assert len(failures) == 2 and "final hash" in failures[1], failures
    result = run(ts, cwd=test_typescript.TS, env=env)
    assert result.returncode != 0 and "final hash" in result.stdout + result.stderr
    assert "action 4: verdict REJECTED, expected ACCEPTED" in result.stdout + result.stderr
    result = run(go, cwd=test_go.GO, env={**test_go.ENV, **env})
    assert result.returncode != 0 and "final hash" in result.stdout
    assert "action 4: verdict REJECTED, expected ACCEPTED" in result.stdout
