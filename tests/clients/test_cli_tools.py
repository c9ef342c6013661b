"""The command line's tools for operators and scenario writers (``referee seal-key``,
``referee deal``, ``referee scenario``), and every ``referee`` command the docs show:
each must parse as written, since readers paste them."""

from __future__ import annotations

import base64
import io
import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest

from referee import cli
from referee.sealing import Keyring, parse_keys

from ..run_cli import referee
from ..server_thread import ServerThread
from .conftest import ROOT

ZERO_SEED = "00" * 32
EARL_3 = '{"earlOfCoventry": {"seats": 3, "firstDealer": 0}}'


# ------------------------------------------------------------------ referee seal-key


def test_seal_key_prints_a_fresh_key_line_a_server_can_load(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, first, _ = referee(capsys, "seal-key", "--id", "k2026a")
    assert code == 0
    key_id, _, encoded = first.strip().partition(":")
    assert key_id == "k2026a" and len(base64.b64decode(encoded, validate=True)) == 32
    assert referee(capsys, "seal-key", "--id", "k2026a")[1] != first  # random each time
    assert referee(capsys, "seal-key")[1].startswith("k1:")  # the default id
    longest = "A-z_.9" + "x" * 26  # 32 characters of A-Z a-z 0-9 . _ -
    assert referee(capsys, "seal-key", "--id", longest)[1].startswith(longest + ":")
    # Two lines in a keys file, as docs/trust.md says: the first seals, both open.
    second = referee(capsys, "seal-key", "--id", "k2025b")[1]
    keys = parse_keys(first + second)
    assert [k for k, _ in keys] == ["k2026a", "k2025b"]
    Keyring(keys)
    path = tmp_path / "keys.txt"
    path.write_text(first + second)
    args = cli._parser().parse_args(["serve", "--seal-keys-file", str(path), "--require-sealed"])
    settings = cli._settings(args.serve_parser, args)
    assert settings.require_sealed and [k for k, _ in settings.seal_keys] == ["k2026a", "k2025b"]


@pytest.mark.parametrize("key_id", ["", "has space", "x" * 33, "ünïcode", "k/1"])
def test_seal_key_refuses_an_unusable_id(capsys: pytest.CaptureFixture[str], key_id: str) -> None:
    code, out, err = referee(capsys, "seal-key", "--id", key_id)
    assert code == 2 and out == ""
    assert err.startswith("referee seal-key: key id:")


# ------------------------------------------------------------------ referee deal


def test_deal_shows_the_public_events_and_every_seats_view(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = referee(capsys, "deal", EARL_3, "--seed", ZERO_SEED)
    assert code == 0, err
    shown = json.loads(out)
    assert set(shown) == {"events", "views"} and shown["events"]
    views = shown["views"]
    assert len(views) == 4  # seats 0, 1, 2, then the public view
    hands = [v["earlOfCoventry"]["seats"] for v in views]
    # Each seat sees its own hand and no other; the public view sees none.
    for seat, seats in enumerate(hands[:3]):
        assert [("hand" in s) for s in seats] == [i == seat for i in range(3)], seats
    assert not any("hand" in s for s in hands[3])
    # The deal is the seed's: the same again, another with another seed.
    assert referee(capsys, "deal", EARL_3, "--seed", ZERO_SEED)[1] == out
    other = referee(capsys, "deal", EARL_3, "--seed", "00" * 31 + "01")[1]
    assert json.loads(other)["views"] != views


@pytest.mark.parametrize(
    ("config", "seed", "message"),
    [
        (EARL_3, "00" * 31, "seed"),  # 31 bytes
        (EARL_3, "zz" * 32, "--seed: 'zzzz"),
        (EARL_3, "abc", "--seed: 3 hex digits, not the 64"),
        ("{not json", ZERO_SEED, "Expecting property name"),
        ('{"noSuchGame": {}}', ZERO_SEED, "noSuchGame"),
        ('{"earlOfCoventry": {"seats": 99}}', ZERO_SEED, "seats"),
    ],
)
def test_deal_refuses_a_bad_configuration_or_seed_with_exit_2(
    capsys: pytest.CaptureFixture[str], config: str, seed: str, message: str
) -> None:
    code, out, err = referee(capsys, "deal", config, "--seed", seed)
    assert code == 2 and out == ""
    assert err.startswith("referee deal: ") and message in err, err


def test_deal_needs_a_seed_and_prints_indented_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = referee(capsys, "deal", EARL_3)
    assert code == 2 and "--seed" in err  # a deal is the seed's: never a random one
    out = referee(capsys, "deal", EARL_3, "--seed", ZERO_SEED)[1]
    assert out.startswith('{\n "events": [\n  {')  # one space a level: diffable


def test_deal_takes_a_game_id_with_config_and_seats_as_play_and_demo_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``referee deal GAME --seats N --config JSON`` is the same deal as the whole
    GameConfig in JSON (which it still takes)."""
    whole = referee(capsys, "deal", EARL_3, "--seed", ZERO_SEED)
    assert whole[0] == 0, whole[2]
    by_id = referee(
        capsys,
        "deal",
        "earl_of_coventry",
        "--seats",
        "3",
        "--config",
        '{"firstDealer": 0}',
        "--seed",
        ZERO_SEED,
    )
    assert by_id == whole
    code, out, err = referee(capsys, "deal", "earl_of_coventry", "--seed", ZERO_SEED)
    assert code == 0, err
    default = referee(capsys, "deal", '{"earlOfCoventry": {}}', "--seed", ZERO_SEED)[1]
    assert out == default
    code, out, err = referee(capsys, "deal", "ecarte", "--seed", ZERO_SEED)
    assert code == 0 and len(json.loads(out)["views"]) == 3, err  # two seats, then public


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["chess"], "unknown game 'chess'"),
        (["earl of coventry"], "neither a game id"),
        (["[1, 2]"], "neither a game id"),
        (["earl_of_coventry", "--config", "[1]"], "--config must be a JSON object"),
        (["earl_of_coventry", "--config", "{nope"], "--config"),
        (["earl_of_coventry", "--config", '{"noSuchOption": 1}'], "noSuchOption"),
        (["earl_of_coventry", "--seats", "20"], "seats"),  # above the game's most
        ([EARL_3, "--seats", "4"], "--seats and --config go with a game id"),
        ([EARL_3, "--config", "{}"], "--seats and --config go with a game id"),
    ],
)
def test_deal_refuses_an_argument_that_is_neither_a_game_nor_a_config(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    code, out, err = referee(capsys, "deal", *argv, "--seed", ZERO_SEED)
    assert code == 2 and out == "", err
    assert err.startswith("referee deal: ") and message in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


# ------------------------------------------------------------------ referee games


def test_games_lists_each_games_options_with_default_range_and_rule(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = referee(capsys, "games")
    assert code == 0
    lines = [" ".join(line.split()) for line in out.splitlines()]
    assert "ecarte Écarté rules ecarte/1 seats 2-3" in lines
    assert "docs/rules/ecarte.md" in lines
    # A whole number: its range; none by default: "(none)"; an enum: no range.
    assert any(line.startswith("seats default 2 [2..3] E-VAR-5 ") for line in lines)
    assert any(line.startswith("first_dealer default (none) [0..2] E-SEAT-2 ") for line in lines)
    assert any(
        line.startswith("packets default ECARTE_PACKETS_THREE_TWO E-DEAL-2 ") for line in lines
    )
    assert any(line.startswith("gallery default false E-VAR-4 ") for line in lines)
    assert any(line.startswith("variants: ") and "(E-VAR-" in line for line in lines)
    assert any(line.startswith("earl_of_coventry ") for line in lines)


# ------------------------------------------------------------------ the parser


def test_no_command_prints_the_help_and_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = referee(capsys)
    assert code == 2 and "usage: referee" in out and "serve" in out


def test_health_checks_the_health_port_when_there_is_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``referee health`` (a probe in the container) asks the health port when one is
    set, else the service port, each from its variable."""
    for name in ("REFEREE_HEALTH_PORT", "REFEREE_PORT"):
        monkeypatch.delenv(name, raising=False)

    def address() -> str:
        return str(cli._parser().parse_args(["health"]).address)

    assert address() == "localhost:50051"
    monkeypatch.setenv("REFEREE_PORT", "6000")
    assert address() == "localhost:6000"
    for off in ("", "off", "none"):
        monkeypatch.setenv("REFEREE_HEALTH_PORT", off)
        assert address() == "localhost:6000"
    monkeypatch.setenv("REFEREE_HEALTH_PORT", "8081")
    assert address() == "localhost:8081"
    assert cli._parser().parse_args(["health", "--address", "h:1"]).address == "h:1"
    # A variable that is not a port: health runs regardless, on the default port.
    monkeypatch.setenv("REFEREE_HEALTH_PORT", "off")
    for not_a_port in ("abc", "", " ", "-1", "٣"):
        monkeypatch.setenv("REFEREE_PORT", not_a_port)
        assert address() == "localhost:50051", not_a_port
    monkeypatch.setenv("REFEREE_PORT", " 6000 ")
    assert address() == "localhost:6000"


@pytest.mark.parametrize(
    ("argv", "lowest", "highest"),
    [
        (["demo", "--seats"], 1, 64),
        (["play", "earl_of_coventry", "--seats"], 1, 64),
        (["demo", "--rounds"], 1, 1000),
        (["play", "earl_of_coventry", "--seat"], 0, 63),
    ],
)
def test_play_and_demo_bounds(
    argv: list[str], lowest: int, highest: int, capsys: pytest.CaptureFixture[str]
) -> None:
    dest = argv[-1][2:]
    for value in (lowest, highest):
        assert getattr(cli._parser().parse_args([*argv, str(value)]), dest) == value
    for value in (lowest - 1, highest + 1):
        with pytest.raises(SystemExit) as e:
            cli._parser().parse_args([*argv, str(value)])
        assert e.value.code == 2
        assert f"out of range {lowest} .. {highest}" in capsys.readouterr().err
    defaults = cli._parser().parse_args(argv[:-1])
    assert (defaults.rounds, defaults.seats, getattr(defaults, "seat", 0)) == (1, None, 0)


@pytest.mark.parametrize("command", [["demo"], ["play", "earl_of_coventry"]])
@pytest.mark.parametrize(
    ("seed", "message"),
    [
        ("zz", "--seed: 'zz' is not hexadecimal"),
        ("abc", "--seed: 3 hex digits, not the 64 of a 32-byte seed"),
        ("abcd", "--seed: 4 hex digits, not the 64 of a 32-byte seed"),
        ("00" * 33, "--seed: 66 hex digits, not the 64 of a 32-byte seed"),
    ],
)
def test_play_and_demo_refuse_a_seed_that_is_not_64_hex_digits_before_connecting(
    command: list[str], seed: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """As ``referee deal`` and ``referee verify``: a usage error (exit 2), one line, and
    no server is asked (there is none at that address)."""
    code, _, err = referee(capsys, *command, "--address", "127.0.0.1:1", "--seed", seed)
    assert code == 2 and err == f"referee: {message}\n", err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seats", "3", "--seat", "5"], "--seat 5: earl_of_coventry has 3 seats, 0 .. 2"),
        (["--seat", "4"], "--seat 4: earl_of_coventry has 4 seats, 0 .. 3"),  # the default
        (["--config", '{"seats": 2}', "--seat", "2"], "--seat 2: earl_of_coventry has 2 seats"),
    ],
)
def test_play_refuses_a_seat_the_game_does_not_have_before_connecting(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = referee(capsys, "play", "earl_of_coventry", "--address", "127.0.0.1:1", *argv)
    assert code == 2 and out == "", (out, err)
    assert err.startswith(f"referee: {message}") and err.count("\n") == 1, err


def test_play_and_demo_name_an_unknown_option_of_config_in_one_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    for command in (["demo", "--game", "ecarte"], ["play", "earl_of_coventry"]):
        code, _, err = referee(
            capsys, *command, "--address", "127.0.0.1:1", "--config", '{"bogus": 1}'
        )
        assert code == 2 and err.count("\n") == 1, err
        assert "--config: " in err and "has no option 'bogus' (its options: seats, " in err


def test_a_servers_refusal_is_not_repeated(
    capsys: pytest.CaptureFixture[str], server: ServerThread
) -> None:
    """The message names the field at fault; its BadRequest violation, the same words,
    is not printed again."""
    code, _, err = referee(
        capsys, "demo", "--game", "ecarte", "--seats", "1", "--address", server.address
    )
    assert code == 1, err
    assert err == (
        f"referee: {server.address}: INVALID_ARGUMENT: invalid config.ecarte.seats: "
        "must be 2 .. 3 (E-SEAT-1, E-VAR-5)\n"
    )


class OutOfTurnBot:
    """Answers with a legal action given to the next seat: one the referee rejects."""

    def __init__(self, seats: int) -> None:
        self.seats = seats

    def choose(self, actions: list[Any], view: Any) -> Any:
        action = type(actions[0])()
        action.CopyFrom(actions[0])
        action.actor.seat = (action.actor.seat + 1) % self.seats
        return action


@pytest.mark.parametrize("command", [["demo", "--game", "earl_of_coventry"], ["play", "ecarte"]])
def test_play_and_demo_stop_with_exit_1_when_the_referee_refuses_a_players_action(
    command: list[str],
    capsys: pytest.CaptureFixture[str],
    server: ServerThread,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A player (here a broken bot) whose action is refused ends the game: the CLI says
    which action and why on stderr, with no traceback, and exits 1."""
    seats = 2 if "ecarte" in command else 3
    monkeypatch.setattr(cli, "_bots", lambda bot_seed, game: lambda seat: OutOfTurnBot(seats))
    if command[0] == "play":  # the human (seat 1) answers "1" to every question
        command = [*command, "--seat", "1"]
        monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 20))
    code, out, err = referee(
        capsys, *command, "--address", server.address, "--seed", ZERO_SEED, "--bot-seed", "1"
    )
    assert code == 1, (out, err)
    assert err.startswith("referee: seat 0 ") and "VERDICT_" in err, err
    assert "Traceback" not in err and "over: winner" not in out


# ------------------------------------------------------------------ referee scenario

SCENARIOS = ROOT / "tests" / "scenarios"
SCENARIO = SCENARIOS / "earl_of_coventry" / "counters-13-seats-complete-round.json"


def broken_copy(tmp_path: Path) -> Path:
    """The scenario with its first step (an accepted play) expected to be rejected."""
    data = json.loads(SCENARIO.read_text())
    step = data["steps"][0]
    assert step.get("verdict", "VERDICT_ACCEPTED") == "VERDICT_ACCEPTED"
    step["verdict"] = "VERDICT_REJECTED"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data))
    return path


def test_scenario_checks_files_in_process_and_exits_1_when_one_fails(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = referee(capsys, "scenario", str(SCENARIO))
    assert code == 0
    assert re.fullmatch(rf"ok    {re.escape(str(SCENARIO))}  \(\d+ steps\)\n", out), out
    broken = broken_copy(tmp_path)
    code, out, _ = referee(capsys, "scenario", str(SCENARIO), str(broken))
    assert code == 1
    lines = out.splitlines()
    assert lines[0].startswith("ok    ") and lines[1] == f"FAIL  {broken}"
    assert len(lines) > 2 and all(line.startswith("      ") for line in lines[2:])
    assert "verdict" in out


def test_scenario_checks_files_against_a_running_server(
    capsys: pytest.CaptureFixture[str], server: ServerThread, tmp_path: Path
) -> None:
    code, out, _ = referee(capsys, "scenario", str(SCENARIO), "--address", server.address)
    assert code == 0 and out.startswith("ok    "), out
    code, out, _ = referee(
        capsys, "scenario", str(broken_copy(tmp_path)), "--address", server.address
    )
    assert code == 1 and out.startswith("FAIL  "), out


def test_scenario_reports_a_file_it_cannot_use_and_goes_on(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A file that is not a scenario (unreadable, not JSON, a field missing, a request
    the referee refuses) is a FAIL of that file, with the reason, not a traceback."""
    not_json = tmp_path / "not-json.json"
    not_json.write_text("{oops")
    no_seed = tmp_path / "no-seed.json"
    data = json.loads(SCENARIO.read_text())
    del data["seed"]
    no_seed.write_text(json.dumps(data))
    refused = tmp_path / "refused.json"
    data = json.loads(SCENARIO.read_text())
    data["config"] = {"earlOfCoventry": {"seats": 99}}
    refused.write_text(json.dumps(data))
    missing = tmp_path / "missing.json"
    files = [not_json, no_seed, refused, missing, SCENARIO]
    code, out, err = referee(capsys, "scenario", *map(str, files))
    assert code == 1 and err == "", err
    lines = out.splitlines()
    assert lines[0] == f"FAIL  {not_json}" and lines[1].startswith("      not a scenario: ")
    assert lines[2] == f"FAIL  {no_seed}" and lines[3] == "      not a scenario: no 'seed'"
    assert lines[4] == f"FAIL  {refused}" and lines[5].startswith(
        "      INVALID_ARGUMENT: invalid config"
    )
    assert lines[6] == f"FAIL  {missing}" and "No such file" in lines[7]
    assert lines[8].startswith(f"ok    {SCENARIO}") and len(lines) == 9


def test_health_errors_are_one_line_like_the_other_commands(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = referee(capsys, "health", "--address", "127.0.0.1:1", "--timeout", "1")
    assert code == 1 and out == ""
    assert err.startswith("referee: 127.0.0.1:1: ") and err.count("\n") == 1, err


# ------------------------------------------------------------------ the docs' commands

DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL_FENCE = re.compile(r"```(?:sh|bash|shell|console)$")


def documented_commands() -> list[tuple[str, str]]:
    """Every ``referee ...`` line of the docs' shell blocks: (file:line, the line). In a
    block that shows a session (``$ `` before its commands), only those lines are
    commands; the others are what they print."""
    found = []
    for doc in DOCS:
        in_shell = prompted = False
        for number, text in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            text = text.strip()
            if text.startswith("```"):
                in_shell = not in_shell and bool(SHELL_FENCE.fullmatch(text))
                prompted = False
            elif in_shell and (text.startswith("$ ") or not prompted):
                prompted = prompted or text.startswith("$ ")
                if text.removeprefix("$ ").startswith("referee "):
                    found.append((f"{doc.relative_to(ROOT)}:{number}", text.removeprefix("$ ")))
    return found


def argv_of(line: str) -> list[str]:
    """The arguments a shell would pass: comments, redirections and ``&`` dropped,
    placeholders (``<64 hex>``) replaced by a value of their kind."""
    line = re.sub(r"<64 hex>", ZERO_SEED, line)
    line = re.sub(r"<[^>]*>", "x", line)
    words = shlex.split(line, comments=True)
    argv: list[str] = []
    skip = False
    for word in words[1:]:
        if skip:
            skip = False
        elif word in (">", "2>", ">>", "<", "|"):
            skip = True
        elif word == "&":
            continue
        else:
            argv.append(word)
    return argv


COMMANDS = documented_commands()


def test_the_docs_show_commands_of_every_kind() -> None:
    kinds = {argv_of(line)[0] for _, line in COMMANDS}
    assert {"serve", "seal-key", "scenario", "deal", "verify", "play", "demo"} <= kinds, kinds


@pytest.mark.parametrize("line", [line for _, line in COMMANDS], ids=[w for w, _ in COMMANDS])
def test_every_documented_command_parses(line: str) -> None:
    """Parsed by the command line's own parser, as a reader would paste it (nothing
    runs): a flag renamed, a value now required or a subcommand gone fails here."""
    argv = argv_of(line)
    try:
        cli._parser().parse_args(argv)
    except SystemExit as e:
        assert e.code == 0, f"`{line}` does not parse"  # --help exits 0


def test_a_reader_that_leaves_early_gets_no_traceback() -> None:
    """``referee games | head -1``: the pipe closes before the command has written all;
    it stops quietly (exit 1), with no traceback on stderr."""
    import subprocess
    import sys

    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "games"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # before the command (still importing) writes anything
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 1, err
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
