"""Verify a game log: re-derive every deal from the revealed seed and replay every
action, checking the seed commitment, each verdict and each state hash
(`referee verify GAME_LOG.json`; docs/trust.md)."""

from __future__ import annotations

import hmac
from dataclasses import dataclass, field

from google.protobuf import json_format

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.seeds import commitment
from referee.service import Limits, Referee
from referee.v1 import common_pb2, referee_pb2


@dataclass
class Report:
    ok: bool
    lines: list[str] = field(default_factory=list)


def load(text: str) -> referee_pb2.GameLog:
    """A GameLog from its protobuf JSON form."""
    return json_format.Parse(text, referee_pb2.GameLog())


def _describe(action: referee_pb2.Action) -> str:
    actor = action.actor
    who = actor.WhichOneof("kind") or "nobody"
    if who == "seat":
        who = f"seat {actor.seat}"
    elif who == "spectator":
        who = f"spectator {actor.spectator!r}"
    game = action.WhichOneof("game")
    kind = getattr(action, game).WhichOneof("kind") if game else None
    return f"{who}: {kind or 'no action'}"


def _deals(step: referee_pb2.ReplayStep) -> bool:
    """Whether a step dealt new cards (one of its events is a deal)."""
    for event in step.events:
        game = event.WhichOneof("game")
        if game and (getattr(event, game).WhichOneof("kind") or "").endswith("_dealt"):
            return True
    return False


def verify(log: referee_pb2.GameLog) -> Report:
    lines: list[str] = []

    def diverged(message: str) -> Report:
        lines.append(f"DIVERGENCE: {message}")
        return Report(False, lines)

    if not log.HasField("config") or log.config.WhichOneof("game") is None:
        return diverged("the log has no configuration")
    if len(log.seed) != 32:
        return diverged("the log has no 32-byte seed (the seed is revealed once the game is over)")
    if log.seed_commitment and not hmac.compare_digest(commitment(log.seed), log.seed_commitment):
        return diverged(
            "the seed does not match the commitment shown during the game "
            f"(SHA-256(seed) = {commitment(log.seed).hex()}, "
            f"commitment = {log.seed_commitment.hex()})"
        )
    referee = Referee(all_codecs(), Limits(max_replay_actions=max(1, len(log.entries))))
    request = referee_pb2.ReplayRequest(
        config=log.config,
        seed=log.seed,
        seat_entropy=log.seat_entropy,
        actions=[e.action for e in log.entries],
        include_events=True,
    )
    try:
        replay = referee.replay(request)
    except RequestError as e:
        return diverged(f"the log cannot be replayed: {e.message}")
    rules_version = replay.final_state.rules_version
    if log.rules_version and log.rules_version != rules_version:
        return diverged(
            f"the log is of rules {log.rules_version}, this referee plays {rules_version}"
        )
    if log.initial_hash and replay.initial_hash != log.initial_hash:
        return diverged(
            "the first deal differs from the one the seed gives: state 0 hashes to "
            f"{replay.initial_hash.hex()}, the log says {log.initial_hash.hex()}"
        )
    for i, (entry, step) in enumerate(zip(log.entries, replay.steps, strict=True)):
        codes = [v.code for v in step.violations]
        if step.verdict != entry.verdict or codes != list(entry.violations):
            return diverged(
                f"action {i} ({_describe(entry.action)}): the log says "
                f"{common_pb2.Verdict.Name(entry.verdict)} {list(entry.violations)}, "
                f"the rules give {common_pb2.Verdict.Name(step.verdict)} {codes}"
            )
        if entry.state_hash and step.state_hash != entry.state_hash:
            what = (
                "this action dealt new cards, and the deal differs from the one the seed gives"
                if _deals(step)
                else "the state after it differs"
            )
            return diverged(
                f"action {i} ({_describe(entry.action)}): {what}: hash "
                f"{step.state_hash.hex()}, the log says {entry.state_hash.hex()}"
            )
    if log.final_hash and replay.final_hash != log.final_hash:
        return diverged(
            f"the final state hashes to {replay.final_hash.hex()}, the log says "
            f"{log.final_hash.hex()}"
        )
    finished = replay.scoreboard.finished
    lines.append(
        f"OK: {rules_version}, {len(log.entries)} actions replayed, every deal re-derived from "
        f"the seed{' (matching its commitment)' if log.seed_commitment else ''}, "
        f"final hash {replay.final_hash.hex()}"
        + ("" if finished else " (the game is not finished)")
    )
    return Report(True, lines)
