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
    server: ServerThread,
    sealing_server: ServerThread,
    strict_server: ServerThread,
    grpc_web_urls: dict[str, str],
) -> None:
    _ready()
    env = {**addresses(server, sealing_server, strict_server), **grpc_web_urls}
    result = run(["npm", "test"], cwd=TS, env=env)
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert re.search(r"ℹ fail 0\b", out) and re.search(r"ℹ pass [1-9]", out), out
    assert re.search(r"ℹ skipped 0\b", out), out
    assert_vectors_ran(out)
    assert re.search(r"✔ gRPC-Web: a player's page on a strict server", out), out


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


TOKEN = "typescript-client-token-0123456789"
_TOKEN_SCRIPT = """
import { RefereeClient, RefereeError } from "./dist/src/index.js";
const [address, token] = process.argv.slice(1);
try {
  await new RefereeClient(address, { maxAttempts: 1 }).listGames();
  console.log("without the token: served");
} catch (err) {
  console.log(`without the token: ${err instanceof RefereeError ? err.code : err}`);
}
const games = await new RefereeClient(address, {
  maxAttempts: 1,
  headers: { authorization: `Bearer ${token}` },
}).listGames();
console.log(`with the token: ${games.length} games`);
"""


def test_typescript_client_sends_a_bearer_token(served_games: list[str]) -> None:
    # docs/operations.md: a server with --auth-tokens-file wants 'authorization: Bearer'
    # on every call; the client's `headers` option sends it.
    from referee.auth import TokenSet
    from referee.server import ServerSettings

    _ready()
    assert run(["npm", "run", "build", "--silent"], cwd=TS).returncode == 0
    settings = ServerSettings(
        host="127.0.0.1", port=0, grace_seconds=1, auth=TokenSet([("ts", TOKEN)])
    )
    server = ServerThread(settings).start()
    try:
        result = run(
            ["node", "--input-type=module", "-e", _TOKEN_SCRIPT, server.address, TOKEN], cwd=TS
        )
    finally:
        server.stop()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "without the token: 16" in result.stdout  # Code.Unauthenticated
    assert f"with the token: {len(served_games)} games" in result.stdout
