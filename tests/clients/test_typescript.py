"""The TypeScript client (clients/typescript) against a real server: tests and example bot."""

from __future__ import annotations

import re

from ..server_thread import ServerThread
from .conftest import CLIENTS, addresses, assert_vectors_ran, require_tool, run

TS = CLIENTS / "typescript"
INSTALL = (
    "install Node >= 20 and npm (apt-get install nodejs npm), then npm ci in clients/typescript"
)


def _ready() -> None:
    require_tool("node", INSTALL)
    require_tool("npm", INSTALL)
    if not (TS / "node_modules" / ".bin" / "tsc").exists():
        import pytest

        pytest.fail(f"clients/typescript/node_modules is missing: {INSTALL}", pytrace=False)


def test_typescript_typechecks_strict() -> None:
    _ready()
    result = run(["npx", "--no-install", "tsc", "-p", ".", "--noEmit"], cwd=TS)
    assert result.returncode == 0, result.stdout + result.stderr


def test_typescript_tests_pass_against_the_server(
    server: ServerThread, sealing_server: ServerThread, strict_server: ServerThread
) -> None:
    _ready()
    result = run(["npm", "test"], cwd=TS, env=addresses(server, sealing_server, strict_server))
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert re.search(r"ℹ fail 0\b", out) and re.search(r"ℹ pass [1-9]", out), out
    assert re.search(r"ℹ skipped 0\b", out), out
    assert_vectors_ran(out)


def test_typescript_example_bot_plays_every_game(
    server: ServerThread, served_games: list[str]
) -> None:
    _ready()
    result = run(
        ["node", "dist/src/examples/bot.js"], cwd=TS, env={"REFEREE_ADDRESS": server.address}
    )
    assert result.returncode == 0, result.stdout + result.stderr
    for game in served_games:
        assert re.search(rf"^{game}: finished after \d+ actions; winner seat", result.stdout, re.M)
