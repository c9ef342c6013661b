"""Verify a game log: re-derive every deal from the revealed seed and replay every
action, checking the seed commitment, each verdict and each state hash
(`referee verify GAME_LOG.json`; docs/trust.md).

A log is verified only when it is whole: it carries its rules version, the seed
commitment, the hash of the first state, every action's verdict and state hash and the
final hash, and the game is over at its end. A check skipped because a field is absent
would let a log of another game through (strip the hashes and nothing ties it to the
game that was played), so a missing field is NOT VERIFIABLE and a game that is not over
INCOMPLETE, never OK. ``partial=True`` checks what the log has and lists, line by line,
what it could not check (``PARTIAL``). The commitment and the final hash the user saw
during the game bind the log to that game from outside the file (``commitment``,
``final_hash``); each also stands in for the log's own when the log has none. A seat
that sent entropy checks that the log's game was dealt with it (``seat_entropy``)."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from dataclasses import dataclass, field

from google.protobuf import json_format

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.seeds import commitment as commitment_of
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


_MAX_SPANS = 8


def _actions(indices: list[int]) -> str:
    """The actions of ``indices`` (ascending, not empty), runs as spans: ``action 4``,
    ``actions 0-63``, ``actions 1, 4-6``; past a few spans, how many in all."""
    spans: list[str] = []
    start = previous = indices[0]
    for i in [*indices[1:], -1]:
        if i == previous + 1:
            previous = i
            continue
        spans.append(str(start) if start == previous else f"{start}-{previous}")
        start = previous = i
    if len(spans) > _MAX_SPANS:
        spans = [*spans[:_MAX_SPANS], f"... ({len(indices)} actions in all)"]
    return f"{'action' if len(indices) == 1 else 'actions'} {', '.join(spans)}"


def _entropy(entry: bytes) -> str:
    return entry.hex() if entry else "empty (no entropy)"


def _seats(seats: list[int]) -> str:
    if len(seats) == 1:
        return f"seat {seats[0]}"
    return "seats " + ", ".join(str(s) for s in seats[:-1]) + f" and {seats[-1]}"


def _source(logged: bool, given: bool) -> str:
    """Where a commitment or final hash that was compared came from."""
    return "the log's and yours" if logged and given else "the log's" if logged else "yours"


def verify(
    log: referee_pb2.GameLog,
    *,
    commitment: bytes | None = None,
    final_hash: bytes | None = None,
    seat_entropy: Mapping[int, bytes] | None = None,
    partial: bool = False,
) -> Report:
    """Check ``log``; ``commitment`` and ``final_hash`` are what the user saw during the
    game (the seed commitment at the start, the last state hash accepted),
    ``seat_entropy`` the entropy seats sent to ``NewGame`` (by seat; empty: none sent),
    ``partial`` accepts a log that lacks fields or stops before the end and says what it
    left out."""
    lines: list[str] = []

    def diverged(message: str) -> Report:
        lines.append(f"DIVERGENCE: {message}")
        return Report(False, lines)

    def unverifiable(message: str) -> Report:
        lines.append(f"NOT VERIFIABLE: {message}")
        return Report(False, lines)

    if not log.HasField("config") or log.config.WhichOneof("game") is None:
        return unverifiable("the log has no configuration: nothing says which game to replay")
    if len(log.seed) != 32:
        return unverifiable(
            "the log has no 32-byte seed (the seed is revealed once the game is over)"
        )
    seed_commitment = commitment_of(log.seed)
    if log.seed_commitment and not hmac.compare_digest(seed_commitment, log.seed_commitment):
        return diverged(
            "the seed does not match the commitment shown during the game "
            f"(SHA-256(seed) = {seed_commitment.hex()}, "
            f"commitment = {log.seed_commitment.hex()})"
        )
    if commitment is not None and not hmac.compare_digest(seed_commitment, commitment):
        return diverged(
            "the log is not of the game you saw: its seed's commitment is "
            f"{seed_commitment.hex()}, you gave --commitment {commitment.hex()}"
        )
    referee = Referee(all_codecs(), Limits(max_replay_actions=max(1, len(log.entries))))
    rules_version = log.rules_version
    unnamed = "" if rules_version else " (this referee's rules)"
    if not rules_version:
        # Without its version a log is replayed under the one NewGame starts: where the
        # game has several, that one only if the log's first state says so, else a log
        # of an older version would read as a DIVERGENCE of its first deal.
        game = log.config.WhichOneof("game")
        versions = [v for v, c in referee.by_version.items() if c.game_id == game]
        if len(versions) > 1:
            for version in versions:  # its first state's hash names one, if any
                try:
                    first = referee.replay(
                        referee_pb2.ReplayRequest(
                            config=log.config,
                            seed=log.seed,
                            seat_entropy=log.seat_entropy,
                            rules_version=version,
                        )
                    )
                except RequestError:
                    continue
                if log.initial_hash and first.initial_hash == log.initial_hash:
                    rules_version = version
                    unnamed = " (the version whose first state the log's initialHash is)"
                    break
            else:
                return unverifiable(
                    f"the log has no rulesVersion, and this referee plays {game} under "
                    f"{', '.join(sorted(versions))}: nothing says which one refereed it"
                )
    request = referee_pb2.ReplayRequest(
        config=log.config,
        seed=log.seed,
        seat_entropy=log.seat_entropy,
        actions=[e.action for e in log.entries],
        include_events=True,
        # Under the log's rules, or not at all: judged by another version, every
        # difference would read as the log's fault.
        rules_version=rules_version,
    )
    try:
        replay = referee.replay(request)
    except RequestError as e:
        if e.reason == "RULES_VERSION_UNSUPPORTED":
            return unverifiable(
                f"the log is of rules {log.rules_version}, which this referee does not "
                f"play (it plays {', '.join(sorted(referee.by_version))}): verify it with "
                "a release that does"
            )
        return diverged(f"the log cannot be replayed: {e.message}")
    seats = len(replay.scoreboard.seats)
    for seat, given in sorted((seat_entropy or {}).items()):
        if seat >= seats:
            return diverged(
                f"the log's game has {seats} seats: there is no seat {seat} "
                f"(--seat-entropy {seat}:{given.hex()})"
            )
        logged = log.seat_entropy[seat] if seat < len(log.seat_entropy) else b""
        if not hmac.compare_digest(logged, given):
            return diverged(
                "the log's game was not dealt with the entropy you gave: seat "
                f"{seat}'s entry in the log is {_entropy(logged)}, you gave --seat-entropy "
                f"{seat}:{given.hex()}"
            )
    entropy_checked = (
        "" if not seat_entropy else f"; the seat entropy of {_seats(sorted(seat_entropy))} is yours"
    )
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
    no_verdict: list[int] = []
    no_hash: list[int] = []
    for i, (entry, step) in enumerate(zip(log.entries, replay.steps, strict=True)):
        codes = [v.code for v in step.violations]
        if entry.verdict == common_pb2.VERDICT_UNSPECIFIED:
            no_verdict.append(i)
        elif step.verdict != entry.verdict or codes != list(entry.violations):
            return diverged(
                f"action {i} ({_describe(entry.action)}): the log says "
                f"{common_pb2.Verdict.Name(entry.verdict)} {list(entry.violations)}, "
                f"the rules give {common_pb2.Verdict.Name(step.verdict)} {codes}"
            )
        if not entry.state_hash:
            no_hash.append(i)
        elif step.state_hash != entry.state_hash:
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
    if final_hash is not None and replay.final_hash != final_hash:
        return diverged(
            f"the log does not end where the game you saw did: its final state hashes to "
            f"{replay.final_hash.hex()}, you gave --final-hash {final_hash.hex()}"
        )

    # Every field the log has matches; now what it lacks.
    n = len(log.entries)
    finished = replay.scoreboard.finished
    gaps: list[str] = []
    if not log.rules_version:
        gaps.append("the log has no rulesVersion: nothing says which rules refereed it")
    if not log.seed_commitment and commitment is None:
        gaps.append(
            "the log has no seedCommitment (nor did you give --commitment): "
            "nothing ties it to a game"
        )
    if not log.initial_hash:
        gaps.append("the log has no initialHash: nothing ties the first deal to the record")
    if no_verdict:
        one = len(no_verdict) == 1
        gaps.append(
            f"{_actions(no_verdict)} of the log {'has' if one else 'have'} no verdict: "
            f"nothing ties {'it' if one else 'them'} to the referee's answers"
        )
    if no_hash:
        one = len(no_hash) == 1
        gaps.append(
            f"{_actions(no_hash)} of the log {'has' if one else 'have'} no stateHash: "
            f"nothing ties the {'state after it' if one else 'states after them'} to the record"
        )
    if not log.final_hash and final_hash is None:
        gaps.append(
            "the log has no finalHash (nor did you give --final-hash): "
            "nothing ties its end to the record"
        )
    incomplete: str | None = None
    if not finished:
        incomplete = (
            "the log has no actions: it holds the first deal only, not a game"
            if n == 0
            else f"the game is not over after the log's {n} actions: they replay as logged "
            "(the log may be the start of a game), but the rest of the game is not in it"
        )

    logged_commitment = bool(log.seed_commitment)
    logged_final = bool(log.final_hash)
    commitment_from = _source(logged_commitment, commitment is not None)
    final_from = _source(logged_final, final_hash is not None)
    if not gaps and incomplete is None:
        lines.append(
            f"OK: {rules_version}, {n} actions replayed, the game is over; every deal "
            f"re-derived from the seed, which matches commitment {seed_commitment.hex()} "
            f"({commitment_from}){entropy_checked}; every verdict and state hash matches; "
            f"final hash {replay.final_hash.hex()} ({final_from})"
        )
        unbound = [
            (flag, what)
            for flag, what, given in (
                ("--commitment", "the commitment", commitment),
                ("--final-hash", "the final hash", final_hash),
            )
            if given is None
        ]
        if unbound:
            lines.append(
                f"note: {' and '.join(what for _, what in unbound)} above "
                f"{'are' if len(unbound) > 1 else 'is'} the log's own, and a whole log of "
                "another game passes too: compare with what you saw during the game, "
                f"or give {' and '.join(flag for flag, _ in unbound)}"
            )
        return Report(True, lines)
    if not partial:
        lines.extend(f"NOT VERIFIABLE: {gap}" for gap in gaps)
        if incomplete is not None:
            lines.append(f"INCOMPLETE: {incomplete}")
        return Report(False, lines)
    lines.append(
        f"PARTIAL: {rules_version}"
        + unnamed
        + f", {n} actions replayed, the game is {'over' if finished else 'not over'}; "
        "every deal re-derived from the seed, "
        + (
            f"which matches commitment {seed_commitment.hex()} ({commitment_from})"
            if logged_commitment or commitment is not None
            else f"whose commitment is {seed_commitment.hex()}"
        )
        + entropy_checked
        + "; the verdicts and state hashes the log has match; final hash "
        + replay.final_hash.hex()
        + (f" ({final_from})" if logged_final or final_hash is not None else "")
    )
    lines.extend(f"NOT CHECKED: {gap}" for gap in gaps)
    if incomplete is not None:
        lines.append(f"NOT CHECKED: {incomplete}")
    return Report(True, lines)
