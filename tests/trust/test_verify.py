"""`referee verify`: an honest log passes; a tampered seed, deal or action is pinpointed;
a log missing what binds it to its game, or stopping before the end, is not OK; the
commitment and final hash seen during the game bind it from outside the file."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from google.protobuf import json_format

from referee import verify
from referee.codec import all_codecs
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

from ..run_cli import referee

SEED = bytes(range(100, 132))
OTHER_SEED = bytes(range(200, 232))
ENTROPY = [b"alice", b"", b"carol"]
CONFIG = pb.GameConfig(
    earl_of_coventry=eoc.EarlOfCoventryConfig(
        seats=4, scoring=eoc.EARL_OF_COVENTRY_SCORING_COUNTERS, first_dealer=1
    )
)
REFEREE = Referee(all_codecs())
VECTORS = Path(__file__).resolve().parents[1] / "vectors"


def honest_log(rounds: int = 2, seed: bytes = SEED, entropy: list[bytes] = ENTROPY) -> pb.GameLog:
    """A session of `rounds` rounds (first legal action each time), recorded by Replay."""
    state = REFEREE.new_game(
        pb.NewGameRequest(config=CONFIG, seed=seed, seat_entropy=entropy)
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
            config=CONFIG, seed=seed, seat_entropy=entropy, actions=actions, include_log=True
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


def test_a_log_keeps_no_credential_the_actions_carried() -> None:
    # Actions as a platform records them on a sealing server: each with its seat's (or
    # the table's) credential. The log leaves the credentials out, and nothing else.
    sent = [entry.action for entry in honest_log().entries]
    for i, action in enumerate(sent):
        action.actor.credential = b"credential-%d" % i
    reply = REFEREE.replay(
        pb.ReplayRequest(
            config=CONFIG, seed=SEED, seat_entropy=ENTROPY, actions=sent, include_log=True
        )
    )
    logged = [entry.action for entry in reply.log.entries]
    assert len(logged) == len(sent)
    assert not any(action.actor.credential for action in logged)
    for action in sent:
        action.actor.ClearField("credential")
    assert logged == sent
    assert verify.verify(reply.log).ok


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


# ------------------------------------------------- what binds a log to its game (strict)


def replayed(
    config: pb.GameConfig, seed: bytes, entropy: list[bytes], actions: list[pb.Action]
) -> pb.GameLog:
    """The whole, self-consistent GameLog of ``actions`` from ``seed`` (Replay's own)."""
    return REFEREE.replay(
        pb.ReplayRequest(
            config=config, seed=seed, seat_entropy=entropy, actions=actions, include_log=True
        )
    ).log


def strip(log: pb.GameLog) -> pb.GameLog:
    """``log`` without what binds it to a game: commitment, every hash."""
    stripped = pb.GameLog()
    stripped.CopyFrom(log)
    for name in ("seed_commitment", "initial_hash", "final_hash"):
        stripped.ClearField(name)
    for entry in stripped.entries:
        entry.ClearField("state_hash")
    return stripped


def other_game() -> pb.GameLog:
    """A whole, finished log of another game: another seed, played as honest_log plays."""
    return honest_log(seed=OTHER_SEED)


def drop_rules_version(log: pb.GameLog) -> None:
    log.ClearField("rules_version")


def drop_commitment(log: pb.GameLog) -> None:
    log.ClearField("seed_commitment")


def drop_initial_hash(log: pb.GameLog) -> None:
    log.ClearField("initial_hash")


def drop_a_state_hash(log: pb.GameLog) -> None:
    log.entries[5].ClearField("state_hash")


def drop_the_last_state_hash(log: pb.GameLog) -> None:
    log.entries[-1].ClearField("state_hash")


def drop_final_hash(log: pb.GameLog) -> None:
    log.ClearField("final_hash")


def drop_a_verdict(log: pb.GameLog) -> None:
    log.entries[4].verdict = common_pb2.VERDICT_UNSPECIFIED


MISSING = [
    (drop_rules_version, "the log has no rulesVersion"),
    (drop_commitment, "the log has no seedCommitment (nor did you give --commitment): "),
    (drop_initial_hash, "the log has no initialHash"),
    (drop_a_state_hash, "action 5 of the log has no stateHash: nothing ties the state after it "),
    (drop_the_last_state_hash, "of the log has no stateHash"),
    (drop_final_hash, "the log has no finalHash (nor did you give --final-hash)"),
    (drop_a_verdict, "action 4 of the log has no verdict: nothing ties it to"),
]


@pytest.mark.parametrize(("drop", "named"), MISSING, ids=[d.__name__ for d, _ in MISSING])
def test_a_log_missing_a_field_is_not_verifiable(
    drop: Callable[[pb.GameLog], None], named: str
) -> None:
    """The audit's finding: each check ran only when its field was there, so a log
    without the field printed OK."""
    log = honest_log()
    drop(log)
    report = verify.verify(log)
    assert not report.ok
    assert report.lines == [report.lines[0]] and report.lines[0].startswith("NOT VERIFIABLE: ")
    assert named in report.lines[0]
    # --partial checks the rest and says what it left out, never a bare OK.
    partial = verify.verify(log, partial=True)
    assert partial.ok and partial.lines[0].startswith("PARTIAL: earl_of_coventry/1")
    assert partial.lines[1:] == ["NOT CHECKED: " + report.lines[0].removeprefix("NOT VERIFIABLE: ")]


def test_a_log_without_configuration_seed_or_commitment() -> None:
    report = verify.verify(pb.GameLog())  # nothing at all
    assert report.lines == [
        "NOT VERIFIABLE: the log has no configuration: nothing says which game to replay"
    ]
    log = honest_log()
    drop_commitment(log)
    assert verify.verify(log).lines == [
        "NOT VERIFIABLE: the log has no seedCommitment (nor did you give --commitment): "
        "nothing ties it to a game"
    ]
    log.seed = b""
    assert "no 32-byte seed" in verify.verify(log, partial=True).lines[-1]
    assert not verify.verify(log, partial=True).ok


def test_the_audits_doctored_vector_is_not_verifiable() -> None:
    """As the audit built it: a golden vector's actions replayed from another seed
    (self-consistent), then stripped of its commitment and hashes."""
    vector = verify.load((VECTORS / "ecarte-default.json").read_text(encoding="utf-8"))
    doctored = strip(
        replayed(
            vector.config, OTHER_SEED, list(vector.seat_entropy), [e.action for e in vector.entries]
        )
    )
    report = verify.verify(doctored)
    assert not report.ok
    assert [line.split(":")[0] for line in report.lines] == ["NOT VERIFIABLE"] * 4 + ["INCOMPLETE"]
    assert "no seedCommitment" in report.lines[0] and "no initialHash" in report.lines[1]
    assert f"actions 0-{len(vector.entries) - 1} of the log have no stateHash" in report.lines[2]
    assert "no finalHash" in report.lines[3]
    assert "the game is not over" in report.lines[4]
    # What the seats saw during the game names it for what it is.
    given = verify.verify(doctored, commitment=vector.seed_commitment, partial=True)
    assert not given.ok and given.lines[-1].startswith(
        "DIVERGENCE: the log is not of the game you saw"
    )


def test_a_stripped_log_of_another_finished_game_is_not_verifiable() -> None:
    doctored = strip(other_game())
    report = verify.verify(doctored)
    assert not report.ok
    assert len(report.lines) == 4
    assert all(line.startswith("NOT VERIFIABLE: ") for line in report.lines)
    assert not any(line.startswith("OK") for line in verify.verify(doctored, partial=True).lines)


def test_a_whole_log_of_another_game_needs_what_you_saw_to_be_caught() -> None:
    """A log of another game with every field is self-consistent: only the commitment
    or final hash seen during the game tells it apart, and the OK line says so."""
    real = honest_log()
    other = other_game()
    report = verify.verify(other)
    assert report.ok and report.lines[0].startswith("OK: ")
    assert report.lines[1].startswith(
        "note: the commitment and the final hash above are the log's own"
    )
    assert report.lines[1].endswith("or give --commitment and --final-hash")
    by_commitment = verify.verify(other, commitment=real.seed_commitment)
    assert not by_commitment.ok
    assert by_commitment.lines == [
        "DIVERGENCE: the log is not of the game you saw: its seed's commitment is "
        f"{other.seed_commitment.hex()}, you gave --commitment {real.seed_commitment.hex()}"
    ]
    by_final_hash = verify.verify(other, final_hash=real.final_hash)
    assert not by_final_hash.ok
    assert by_final_hash.lines == [
        "DIVERGENCE: the log does not end where the game you saw did: its final state "
        f"hashes to {other.final_hash.hex()}, you gave --final-hash {real.final_hash.hex()}"
    ]


def test_the_ok_line_says_what_was_checked_against_what() -> None:
    log = honest_log()
    c, f = log.seed_commitment.hex(), log.final_hash.hex()
    both = verify.verify(log, commitment=log.seed_commitment, final_hash=log.final_hash)
    assert both.ok
    assert both.lines == [
        f"OK: earl_of_coventry/1, {len(log.entries)} actions replayed, the game is over; "
        f"every deal re-derived from the seed, which matches commitment {c} (the log's and "
        f"yours); every verdict and state hash matches; final hash {f} (the log's and yours)"
    ]
    one = verify.verify(log, final_hash=log.final_hash)
    assert one.ok and f"commitment {c} (the log's);" in one.lines[0]
    assert one.lines[1].startswith("note: the commitment above is the log's own")
    assert one.lines[1].endswith("or give --commitment")
    # What the user gave stands in for what the log lacks.
    drop_commitment(log)
    drop_final_hash(log)
    stood_in = verify.verify(log, commitment=bytes.fromhex(c), final_hash=bytes.fromhex(f))
    assert stood_in.ok and len(stood_in.lines) == 1
    assert (
        f"commitment {c} (yours)" in stood_in.lines[0]
        and f"final hash {f} (yours)" in stood_in.lines[0]
    )


def test_other_seat_entropy_passes_the_commitment_not_the_final_hash() -> None:
    """The commitment is to the referee's seed alone: a whole log of a game from the same
    seed with other seat entropy (other deals) matches it. The final hash, which chains
    every state, does not."""
    real = honest_log()
    other = honest_log(entropy=[b"mallory", b"", b"carol"])
    assert other.seed_commitment == real.seed_commitment
    assert other.initial_hash != real.initial_hash
    report = verify.verify(other, commitment=real.seed_commitment)
    assert report.ok and report.lines[0].startswith("OK: "), report.lines
    caught = verify.verify(other, commitment=real.seed_commitment, final_hash=real.final_hash)
    assert not caught.ok and "does not end where the game you saw did" in caught.lines[-1]


def test_partial_says_where_the_commitment_and_final_hash_came_from() -> None:
    log = honest_log()
    c, f = log.seed_commitment.hex(), log.final_hash.hex()
    drop_commitment(log)
    drop_final_hash(log)
    drop_a_state_hash(log)
    alone = verify.verify(log, partial=True)
    assert alone.ok
    assert f"every deal re-derived from the seed, whose commitment is {c};" in alone.lines[0]
    assert alone.lines[0].endswith(f"; final hash {f}")
    assert len(alone.lines) == 4  # the commitment, a state hash, the final hash
    given = verify.verify(
        log, partial=True, commitment=bytes.fromhex(c), final_hash=bytes.fromhex(f)
    )
    assert given.ok
    assert f"which matches commitment {c} (yours);" in given.lines[0]
    assert given.lines[0].endswith(f"; final hash {f} (yours)")
    assert given.lines[1:] == [
        "NOT CHECKED: action 5 of the log has no stateHash: nothing ties the state after "
        "it to the record"
    ]


def test_a_log_commitment_that_differs_from_yours() -> None:
    """The log's commitment matches its seed, but not the one you gave."""
    log = honest_log()
    report = verify.verify(log, commitment=bytes(32))
    assert not report.ok and "the log is not of the game you saw" in report.lines[-1]


def test_a_truncated_log_is_incomplete() -> None:
    """A valid start of the game: every field there and matching, but the game is not
    over. Not OK by default (a log that stops early hides the rest); --partial says so."""
    log = honest_log()
    actions = [e.action for e in log.entries[:20]]
    prefix = replayed(CONFIG, SEED, ENTROPY, actions)  # self-consistent, final hash and all
    assert prefix.seed_commitment == log.seed_commitment
    report = verify.verify(prefix)
    assert not report.ok
    assert report.lines == [
        "INCOMPLETE: the game is not over after the log's 20 actions: they replay as "
        "logged (the log may be the start of a game), but the rest of the game is not in it"
    ]
    partial = verify.verify(prefix, partial=True, commitment=log.seed_commitment)
    assert partial.ok
    assert partial.lines[0].startswith(
        "PARTIAL: earl_of_coventry/1, 20 actions replayed, the game is not over;"
    )
    assert (
        f"which matches commitment {log.seed_commitment.hex()} (the log's and yours)"
        in partial.lines[0]
    )
    assert partial.lines[1:] == ["NOT CHECKED: " + report.lines[0].removeprefix("INCOMPLETE: ")]
    # The final hash seen during the game catches it even with --partial.
    caught = verify.verify(prefix, partial=True, final_hash=log.final_hash)
    assert not caught.ok and "does not end where the game you saw did" in caught.lines[-1]
    # Cut short, keeping the whole game's final hash: a divergence.
    cut = pb.GameLog()
    cut.CopyFrom(log)
    del cut.entries[20:]
    assert verify.verify(cut).lines[-1].startswith("DIVERGENCE: the final state hashes to")


def test_an_empty_log_is_incomplete() -> None:
    """No actions: the first deal alone, which is no game (none is over at state 0)."""
    empty = replayed(CONFIG, SEED, ENTROPY, [])
    assert empty.final_hash == empty.initial_hash  # Replay's own, with every field
    report = verify.verify(empty)
    assert not report.ok
    assert report.lines == [
        "INCOMPLETE: the log has no actions: it holds the first deal only, not a game"
    ]
    partial = verify.verify(empty, partial=True)
    assert partial.ok and partial.lines[0].startswith("PARTIAL: earl_of_coventry/1, 0 actions")
    assert partial.lines[1:] == [
        "NOT CHECKED: the log has no actions: it holds the first deal only, not a game"
    ]


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.json")), ids=lambda p: p.stem)
def test_every_golden_vector_is_whole(path: Path) -> None:
    log = verify.load(path.read_text(encoding="utf-8"))
    report = verify.verify(log, commitment=log.seed_commitment, final_hash=log.final_hash)
    assert report.ok and report.lines[0].startswith("OK: "), report.lines
    assert len(report.lines) == 1


def test_action_spans() -> None:
    assert verify._actions([4]) == "action 4"
    assert verify._actions([0, 1, 2, 3]) == "actions 0-3"
    assert verify._actions([1, 4, 5, 6, 9]) == "actions 1, 4-6, 9"
    assert verify._actions(list(range(0, 16, 2))) == "actions 0, 2, 4, 6, 8, 10, 12, 14"
    many = verify._actions(list(range(0, 40, 2)))
    assert many == "actions 0, 2, 4, 6, 8, 10, 12, 14, ... (20 actions in all)"


# --------------------------------------------------------------------- the command line


def write(path: Path, log: pb.GameLog) -> str:
    path.write_text(json_format.MessageToJson(log))
    return str(path)


def test_cli_binds_the_log_to_what_you_saw(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    log = honest_log()
    good = write(tmp_path / "good.json", log)
    c, f = log.seed_commitment.hex(), log.final_hash.hex()
    code, out, _ = referee(capsys, "verify", good, "--commitment", c.upper(), "--final-hash", f)
    assert code == 0 and out.startswith("OK: ") and out.count("\n") == 1, out
    assert "(the log's and yours)" in out
    code, out, _ = referee(capsys, "verify", good, "--commitment", "ab" * 32)
    assert code == 1 and out.startswith("DIVERGENCE: the log is not of the game you saw"), out
    code, out, _ = referee(capsys, "verify", good, "--final-hash", "AB" * 32)
    assert code == 1 and out.startswith("DIVERGENCE: the log does not end where"), out


def test_cli_exit_codes_of_logs_that_are_not_whole(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stripped = write(tmp_path / "stripped.json", strip(other_game()))
    code, out, _ = referee(capsys, "verify", stripped)
    assert code == 1 and out.startswith("NOT VERIFIABLE: ") and "OK" not in out, out
    code, out, _ = referee(capsys, "verify", stripped, "--partial")
    assert code == 0 and out.startswith("PARTIAL: ") and "\nNOT CHECKED: " in out, out
    assert not any(line.startswith("OK") for line in out.splitlines())
    truncated = write(
        tmp_path / "truncated.json",
        replayed(CONFIG, SEED, ENTROPY, [e.action for e in honest_log().entries[:9]]),
    )
    code, out, _ = referee(capsys, "verify", truncated)
    assert code == 1 and out.startswith("INCOMPLETE: "), out
    empty = write(tmp_path / "empty.json", replayed(CONFIG, SEED, ENTROPY, []))
    code, out, _ = referee(capsys, "verify", empty)
    assert code == 1 and out.startswith("INCOMPLETE: the log has no actions"), out


@pytest.mark.parametrize(
    "value",
    ["ab" * 31, "ab" * 33, "ab" * 31 + "a", "zz" * 32, "0x" + "ab" * 31, ""],
    ids=["31 bytes", "33 bytes", "odd", "not hex", "0x", "empty"],
)
@pytest.mark.parametrize("flag", ["--commitment", "--final-hash"])
def test_cli_refuses_a_hash_that_is_not_64_hex_digits(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, flag: str, value: str
) -> None:
    good = write(tmp_path / "good.json", honest_log())
    code, out, err = referee(capsys, "verify", good, flag, value)
    assert code == 2 and out == "", out
    assert f"argument {flag}:" in err, err


def test_cli_an_unreadable_file_exits_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    binary = tmp_path / "binary.json"
    binary.write_bytes(b"\xff\xfe{}")
    for path in (binary, tmp_path / "missing.json", tmp_path):
        code, out, err = referee(capsys, "verify", str(path))
        assert code == 2 and out == "" and err.startswith("referee verify: "), (path, err)


def test_a_seat_checks_that_the_deals_used_its_entropy() -> None:
    """A seat that sent entropy gives it: the log's entry for that seat must be it (the
    replay then re-derives every deal with it). A seat that sent none checks its entry
    is empty."""
    log = honest_log()  # entropy: alice, (none), carol
    c = log.seed_commitment.hex()
    mine = {0: b"alice", 2: b"carol"}
    report = verify.verify(log, commitment=log.seed_commitment, seat_entropy=mine)
    assert report.ok, report.lines
    assert (
        f"which matches commitment {c} (the log's and yours); the seat entropy of seats 0 "
        "and 2 is yours; every verdict" in report.lines[0]
    )
    assert verify.verify(log, seat_entropy={1: b""}).ok
    assert verify.verify(log, seat_entropy={3: b""}).ok  # no entry: none sent
    for seat, given, logged in [
        (0, b"alicf", b"alice".hex()),
        (1, b"bob", "empty (no entropy)"),
        (2, b"", b"carol".hex()),
        (3, b"dave", "empty (no entropy)"),
    ]:
        caught = verify.verify(log, seat_entropy={0: b"alice", seat: given})
        assert not caught.ok
        assert caught.lines == [
            "DIVERGENCE: the log's game was not dealt with the entropy you gave: seat "
            f"{seat}'s entry in the log is {logged}, you gave --seat-entropy "
            f"{seat}:{given.hex()}"
        ]
    # A whole log of the same seed with another seat's entropy swapped in matches the
    # commitment (above); the seat whose entropy was replaced catches it.
    swapped = honest_log(entropy=[b"mallory", b"", b"carol"])
    assert verify.verify(swapped, commitment=log.seed_commitment).ok
    assert not verify.verify(swapped, commitment=log.seed_commitment, seat_entropy=mine).ok
    # A seat the game does not have (a log of a 4-seat session).
    caught = verify.verify(log, seat_entropy={4: b""})
    assert caught.lines == [
        "DIVERGENCE: the log's game has 4 seats: there is no seat 4 (--seat-entropy 4:)"
    ]
    # A trailing empty entry, which no game of this referee has (NewGame refuses it):
    # the log does not replay, whatever entropy a seat gives.
    trailing = pb.GameLog()
    trailing.CopyFrom(log)
    trailing.seat_entropy.extend([b""])
    for given in ({}, {2: b"carol", 3: b""}):
        refused = verify.verify(trailing, seat_entropy=given)
        assert not refused.ok and "cannot be replayed" in refused.lines[-1]
        assert "trailing entry is empty" in refused.lines[-1]
    # --partial says it too.
    drop_final_hash(log)
    partial = verify.verify(log, seat_entropy={2: b"carol"}, partial=True)
    assert partial.ok and "; the seat entropy of seat 2 is yours;" in partial.lines[0]


def test_cli_seat_entropy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    good = write(tmp_path / "good.json", honest_log())
    code, out, _ = referee(
        capsys, "verify", good, "--seat-entropy", f"0:{b'alice'.hex().upper()}",
        "--seat-entropy", "1:", "--seat-entropy", f"2:{b'carol'.hex()}",
    )  # fmt: skip
    assert code == 0 and "the seat entropy of seats 0, 1 and 2 is yours" in out, out
    code, out, _ = referee(capsys, "verify", good, "--seat-entropy", "0:" + b"eve".hex())
    assert code == 1 and out.startswith("DIVERGENCE: the log's game was not dealt"), out
    code, out, err = referee(
        capsys, "verify", good, "--seat-entropy", "0:00", "--seat-entropy", "0:01"
    )
    assert code == 2 and out == "" and "seat 0 given twice" in err, err
    for bad in ["alice", "x:00", "13:00", "-1:00", "0:abc", "0:zz", "0:" + "00" * 65, "٣:00"]:
        code, out, err = referee(capsys, "verify", good, "--seat-entropy", bad)
        assert code == 2 and out == "" and "argument --seat-entropy:" in err, (bad, err)
