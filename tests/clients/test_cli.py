"""``referee play`` (a person at the terminal, driven through stdin) and ``referee demo``."""

from __future__ import annotations

import re
import sys

from ..server_thread import ServerThread
from .conftest import ROOT, SEED_HEX, run

REFEREE = [sys.executable, "-m", "referee.cli"]


def play(server: ServerThread, stdin: str, *extra: str) -> tuple[int, str, str]:
    import subprocess

    result = subprocess.run(
        [
            *REFEREE,
            "play",
            "earl_of_coventry",
            "--address",
            server.address,
            "--seats",
            "3",
            "--seed",
            SEED_HEX,
            "--bot-seed",
            "1",
            *extra,
        ],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return result.returncode, result.stdout, result.stderr


def test_play_a_whole_session_from_stdin(server: ServerThread) -> None:
    code, out, err = play(server, "1\n" * 400, "--seat", "1")
    assert code == 0, out + err
    assert "Earl of Coventry · round 1" in out
    assert "seat 1 (you)" in out
    assert "Your move:" in out and "   1. play " in out
    assert "the session is over" in out
    assert "matches the commitment" in out and "== earl_of_coventry over: winner seat" in out
    # The other hands are never shown: only counts (as #), never cards.
    for line in out.splitlines():
        m = re.match(r"  seat (\d) +\d+ cards  (.*)", line)
        if m and m.group(1) != "1":
            assert set(m.group(2).split("  ")[0]) <= {"#"}, line


def test_play_reprompts_on_a_bad_choice_and_quits(server: ServerThread) -> None:
    code, out, _ = play(server, "x\n99\nq\n")
    assert code == 0
    assert "'x' is not a choice" in out and "'99' is not a choice" in out
    assert "stopped (quit)" in out


def test_play_fails_when_input_ends(server: ServerThread) -> None:
    code, out, _ = play(server, "")
    assert code == 1 and "input ended" in out


def test_play_an_unknown_game_is_a_usage_error(server: ServerThread) -> None:
    result = run([*REFEREE, "play", "chess", "--address", server.address], cwd=ROOT)
    assert result.returncode == 2 and "unknown game" in result.stderr


def test_demo_plays_every_game_and_prints_a_transcript(
    server: ServerThread, served_games: list[str]
) -> None:
    result = run(
        [*REFEREE, "demo", "--address", server.address, "--seed", SEED_HEX, "--bot-seed", "3"],
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    for game in served_games:
        assert f"== {game} over: winner seat" in result.stdout
    assert "replay of" in result.stdout and "matches" in result.stdout


def test_demo_of_a_session_with_rounds_is_deterministic(server: ServerThread) -> None:
    args = [
        *REFEREE,
        "demo",
        "--game",
        "earl_of_coventry",
        "--address",
        server.address,
        "--seats",
        "4",
        "--rounds",
        "2",
        "--seed",
        SEED_HEX,
        "--bot-seed",
        "5",
    ]
    first, second = run(args, cwd=ROOT), run(args, cwd=ROOT)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "options: seats 4\n" in first.stdout  # --seats is the game's option
    assert "(seat 0: 13, seat 1: 13, seat 2: 13, seat 3: 13 cards)" in first.stdout
    assert "the table: next round" in first.stdout
    assert "round 2 dealt by" in first.stdout


def test_demo_without_a_server_fails_clearly() -> None:
    result = run([*REFEREE, "demo", "--address", "127.0.0.1:1"], cwd=ROOT)
    assert result.returncode == 1 and "UNAVAILABLE" in result.stderr


def test_play_and_demo_through_a_server_that_requires_sealed_states(
    strict_server: ServerThread,
) -> None:
    """Tokens only, no client seed, a credential for every seat (docs/trust.md)."""
    import subprocess

    base = ["--address", strict_server.address, "--seats", "3", "--bot-seed", "2"]
    played = subprocess.run(
        [*REFEREE, "play", "earl_of_coventry", *base],
        cwd=ROOT,
        input="1\n" * 400,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert played.returncode == 0, played.stdout + played.stderr
    assert "seat 0 (you)" in played.stdout and "matches the commitment" in played.stdout
    demo = run([*REFEREE, "demo", "--game", "earl_of_coventry", *base], cwd=ROOT)
    assert demo.returncode == 0, demo.stderr
    assert "== earl_of_coventry over: winner seat" in demo.stdout


def test_play_an_ecarte_match_from_stdin(server: ServerThread) -> None:
    import subprocess

    result = subprocess.run(
        [
            *REFEREE,
            "play",
            "ecarte",
            "--address",
            server.address,
            "--seed",
            SEED_HEX,
            "--bot-seed",
            "1",
            "--seat",
            "1",
            "--config",
            '{"gamesToWin": 2}',
        ],
        cwd=ROOT,
        input="1\n" * 600,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    out = result.stdout
    assert "Écarté · game 1 · deal 1" in out and "seat 1 (you)" in out and "Your move:" in out
    assert "match won" in out and "== ecarte over: winner seat" in out
    # The opponent's hand is never shown: its seat line has a count as #, no card.
    opponent = [line for line in out.splitlines() if line.startswith("  seat 0 ")]
    assert opponent
    for line in opponent:
        assert re.search(r" \d cards  #*  ", line) and not re.search("[♠♥♦♣]", line), line
