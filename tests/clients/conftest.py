"""A real Referee server on port 0 for the client tests, and the tools the clients need.

Node, npm, Go and a JDK with the Java jars are installed by .ci/run
(scripts/install-client-deps.sh). When one is missing the tests that need it FAIL
with a message saying how to install it: a client that was not tested must never
look like a pass.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.client import Client
from referee.server import ServerSettings
from tests.server_thread import ServerThread

ROOT = Path(__file__).resolve().parents[2]
CLIENTS = ROOT / "clients"
SEED_HEX = "00" * 31 + "2a"


SEAL_KEY = ("clients-test", bytes(range(32)))


def _start(**settings: object) -> ServerThread:
    return ServerThread(
        ServerSettings(host="127.0.0.1", port=0, grace_seconds=1, **settings)  # type: ignore[arg-type]
    ).start()


@pytest.fixture(scope="session")
def sealing_server() -> Iterator[ServerThread]:
    """A server with a sealing key: states travel as tokens (plain states still accepted)."""
    thread = _start(seal_keys=(SEAL_KEY,))
    yield thread
    thread.stop()


@pytest.fixture(scope="session")
def strict_server() -> Iterator[ServerThread]:
    """A server with --require-sealed: tokens only, no client seeds, seat credentials."""
    thread = _start(seal_keys=(SEAL_KEY,), require_sealed=True)
    yield thread
    thread.stop()


@pytest.fixture(scope="session")
def client(server: ServerThread) -> Iterator[Client]:
    with Client(server.address) as c:
        yield c


@pytest.fixture(scope="session")
def served_games(client: Client) -> list[str]:
    """Every game the server serves, which must be every game this repository implements:
    each client test plays them all (Écarté included as soon as it is registered)."""
    from referee.codec import all_codecs

    games = [g.id for g in client.list_games()]
    assert "earl_of_coventry" in games
    assert set(games) == {c.rules.game_id for c in all_codecs()}
    return games


@pytest.fixture(scope="session")
def grpc_web_urls(server: ServerThread, strict_server: ServerThread) -> Iterator[dict[str, str]]:
    """gRPC-Web gateways (``referee grpc-web``) in front of the plain and the strict
    server: the TypeScript suite calls them as a web page does."""
    from referee.grpcweb import Gateway, GatewaySettings

    gateways = [
        Gateway(GatewaySettings(target=s.address, host="127.0.0.1", port=0, grace_seconds=1))
        for s in (server, strict_server)
    ]
    for g in gateways:
        g.start()
    yield {
        "REFEREE_GRPC_WEB_URL": f"http://127.0.0.1:{gateways[0].port}",
        "REFEREE_STRICT_GRPC_WEB_URL": f"http://127.0.0.1:{gateways[1].port}",
    }
    for g in gateways:
        g.stop()


def addresses(plain: ServerThread, sealing: ServerThread, strict: ServerThread) -> dict[str, str]:
    """The environment the TypeScript, Go and Java test suites read their three servers from."""
    return {
        "REFEREE_ADDRESS": plain.address,
        "REFEREE_SEALED_ADDRESS": sealing.address,
        "REFEREE_STRICT_ADDRESS": strict.address,
    }


def assert_vectors_ran(output: str) -> None:
    """Every golden vector was replayed by a client's suite, or the output says there are none."""
    vectors = ROOT / "tests" / "vectors"
    if not vectors.is_dir():
        assert "golden vectors:" in output and "does not exist" in output
        return
    files = sorted(vectors.glob("*.json"))
    assert files
    for f in files:
        assert re.search(rf"vector (ok: .*)?{re.escape(f.name)}", output), f"{f.name} not replayed"


def require_tool(name: str, install: str) -> str:
    """The path of a tool the clients need; a missing tool fails the test (never a skip)."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(f"{name} is not installed: {install} (.ci/run does this)", pytrace=False)
    return path


def run(
    args: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 900
) -> subprocess.CompletedProcess[str]:
    """Run a client command to its end (bounded); its output is shown when a test fails."""
    full_env = {**os.environ, **(env or {})}
    result = subprocess.run(
        args,
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    print(f"$ {' '.join(args)}  (in {cwd})\n{result.stdout}\n{result.stderr}")
    return result
