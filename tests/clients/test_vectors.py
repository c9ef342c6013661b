"""The golden replay vectors (tests/vectors/*.json, GameLog JSON) through the Python client.

The TypeScript, Go and Java clients replay the same files in their own test suites
(npm test, go test, clients/java's ClientTests), which tests/clients runs against the
same server.
"""

from __future__ import annotations

import base64
import hashlib
import json
import warnings
from pathlib import Path

from google.protobuf import json_format

from referee.client import Client, config
from referee.v1 import common_pb2, referee_pb2

from ..server_thread import ServerThread
from . import test_go, test_java, test_typescript
from .conftest import ROOT, run

VECTORS = ROOT / "tests" / "vectors"
FILES = sorted(VECTORS.glob("*.json")) if VECTORS.is_dir() else []


def load(path: Path) -> referee_pb2.GameLog:
    return json_format.Parse(path.read_text(encoding="utf-8"), referee_pb2.GameLog())


def check_vector(client: Client, path: Path) -> list[str]:
    """Every difference between what the log records and what the server answers."""
    log = load(path)
    failures = []
    if log.seed_commitment and hashlib.sha256(log.seed).digest() != log.seed_commitment:
        failures.append("the seed does not match the seed commitment")
    reply = client.replay(
        log.config, log.seed, [e.action for e in log.entries], seat_entropy=log.seat_entropy
    )
    if reply.initial_hash != log.initial_hash:
        failures.append(
            f"initial hash {reply.initial_hash.hex()}, expected {log.initial_hash.hex()}"
        )
    if len(reply.steps) != len(log.entries):
        failures.append(f"{len(reply.steps)} steps for {len(log.entries)} actions")
    for i, (step, entry) in enumerate(zip(reply.steps, log.entries, strict=False)):
        if step.verdict != entry.verdict:
            got, want = (common_pb2.Verdict.Name(v) for v in (step.verdict, entry.verdict))
            failures.append(f"action {i}: verdict {got}, expected {want}")
        if [v.code for v in step.violations] != list(entry.violations):
            failures.append(f"action {i}: violations differ")
        if step.state_hash != entry.state_hash:
            failures.append(f"action {i}: state hash {step.state_hash.hex()}")
    if reply.final_hash != log.final_hash:
        failures.append(f"final hash {reply.final_hash.hex()}, expected {log.final_hash.hex()}")
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
    """A GameLog of a game played here (one rejected action among accepted ones), from Replay."""
    game_config = config("earl_of_coventry", seats=3)
    seed = bytes(range(32))
    game = client.new_game(game_config, seed).game
    actions = []
    for i in range(12):
        action = client.legal_actions(game)[0]
        if i == 4:
            bad = referee_pb2.Action()
            bad.CopyFrom(action)
            bad.actor.seat = (bad.actor.seat + 1) % 3
            actions.append(bad)
        actions.append(action)
        game = client.apply(game, action).game
    reply = client.stub.Replay(
        referee_pb2.ReplayRequest(config=game_config, seed=seed, actions=actions, include_log=True)
    )
    assert reply.log.final_hash == game.state_hash
    path = directory / "earl-made-here.json"
    path.write_text(json_format.MessageToJson(reply.log), encoding="utf-8")
    return path


def tamper(path: Path) -> None:
    vector = json.loads(path.read_text(encoding="utf-8"))
    vector["finalHash"] = base64.b64encode(bytes(32)).decode()
    vector["entries"][4]["verdict"] = "VERDICT_ACCEPTED"
    path.write_text(json.dumps(vector), encoding="utf-8")


def test_every_runner_checks_a_vector(client: Client, server: ServerThread, tmp_path: Path) -> None:
    """The four runners accept a true vector and report a tampered one."""
    path = make_vector(client, tmp_path)
    assert "VERDICT_REJECTED" in path.read_text(encoding="utf-8")
    env = {"REFEREE_ADDRESS": server.address, "REFEREE_VECTORS": str(tmp_path)}
    test_typescript._ready()
    test_go._vendor()
    test_java._build()
    ts = ["node", "--test", "dist/test/vectors.test.js"]
    go = ["go", "test", "-count=1", "-v", "-run", "TestGoldenVectors", "./referee"]
    java = ["./run.sh", "referee.client.ClientTests", "goldenVectors"]
    assert run(["npm", "run", "build"], cwd=test_typescript.TS).returncode == 0

    assert check_vector(client, path) == []
    result = run(ts, cwd=test_typescript.TS, env=env)
    assert result.returncode == 0 and "vector ok:" in result.stdout, result.stdout
    result = run(go, cwd=test_go.GO, env={**test_go.ENV, **env})
    assert result.returncode == 0 and "vector earl-made-here.json: 13 actions" in result.stdout
    result = run(java, cwd=test_java.JAVA, env=env)
    assert result.returncode == 0, result.stdout
    assert "vector ok: earl-made-here.json (13 actions)" in result.stdout

    tamper(path)
    failures = check_vector(client, path)
    assert len(failures) == 2 and "final hash" in failures[1], failures
    assert failures[0] == "action 4: verdict VERDICT_REJECTED, expected VERDICT_ACCEPTED"
    result = run(ts, cwd=test_typescript.TS, env=env)
    assert result.returncode != 0 and "final hash" in result.stdout + result.stderr
    assert "action 4: verdict REJECTED, expected ACCEPTED" in result.stdout + result.stderr
    result = run(go, cwd=test_go.GO, env={**test_go.ENV, **env})
    assert result.returncode != 0 and "final hash" in result.stdout
    assert "action 4: verdict REJECTED, expected ACCEPTED" in result.stdout
    result = run(java, cwd=test_java.JAVA, env=env)
    assert result.returncode != 0 and "vector earl-made-here.json: final hash" in result.stdout
    assert "action 4: verdict REJECTED, expected ACCEPTED" in result.stdout
