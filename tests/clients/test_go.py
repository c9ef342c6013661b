"""The Go client (clients/go) against a real server: go vet, go test and the example bot."""

from __future__ import annotations

import re

from ..server_thread import ServerThread
from .conftest import CLIENTS, addresses, assert_vectors_ran, require_tool, run

GO = CLIENTS / "go"
INSTALL = (
    "apt-get install golang-go golang-google-grpc-dev golang-google-protobuf-dev "
    "golang-github-golang-protobuf-1-5-dev"
)
# Offline: the module's dependencies come from Debian's packages (vendor-debian.sh).
ENV = {"GOFLAGS": "-mod=vendor", "GOPROXY": "off", "GONOSUMDB": "*", "GO111MODULE": "on"}


def _vendor() -> None:
    require_tool("go", INSTALL)
    result = run(["./vendor-debian.sh"], cwd=GO)
    assert result.returncode == 0, f"{result.stderr}\n{INSTALL}"


def test_go_vet_and_gofmt() -> None:
    _vendor()
    vet = run(["go", "vet", "./..."], cwd=GO, env=ENV)
    assert vet.returncode == 0, vet.stderr
    fmt = run(["gofmt", "-l", "referee", "cmd", "gen"], cwd=GO)
    assert fmt.returncode == 0 and not fmt.stdout.strip(), f"not gofmt'd: {fmt.stdout}"


def test_go_tests_pass_against_the_server(
    server: ServerThread, sealing_server: ServerThread, strict_server: ServerThread
) -> None:
    _vendor()
    result = run(
        ["go", "test", "-count=1", "-v", "./..."],
        cwd=GO,
        env={**ENV, **addresses(server, sealing_server, strict_server)},
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert re.search(r"^ok\s+referee/clients/go/referee", out, re.M), out
    assert "--- FAIL" not in out and "--- SKIP" not in out, out
    assert_vectors_ran(out)


def test_go_example_bot_plays_every_game(server: ServerThread, served_games: list[str]) -> None:
    _vendor()
    result = run(["go", "run", "./cmd/referee-bot", "-address", server.address], cwd=GO, env=ENV)
    assert result.returncode == 0, result.stdout + result.stderr
    for game in served_games:
        assert re.search(rf"^{game}: finished after \d+ actions; winner \[", result.stdout, re.M)
