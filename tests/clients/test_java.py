"""The Java client (clients/java) against a real server: build.sh, its tests and the example bot."""

from __future__ import annotations

import re

from ..server_thread import ServerThread
from .conftest import CLIENTS, addresses, assert_vectors_ran, require_tool, run

JAVA = CLIENTS / "java"
# Offline: javac against Debian's jars (clients/java/build.sh names each jar and its package).
INSTALL = (
    "apt-get install default-jdk-headless libgrpc-java libprotobuf-java libnetty-java "
    "libnetty-tcnative-java libnetty-tcnative-jni libperfmark-java libguava-java "
    "libgoogle-common-protos-java libgoogle-gson-java libgeronimo-annotation-1.3-spec-java"
)
# Tests that must have run and passed, whatever else the suite holds.
REQUIRED = [
    "everyGamePlaysToItsEnd",
    "sealingServerTokensAreCarriedBack",
    "strictServerEveryGamePerActor",
    "strictServerCredentialsPerSeat",
    "credentialsGoOnActorsAndSeatViewers",
    "onlyActorRequiredTurnsPerActor",
    "illegalActionIsAVerdict",
    "brokenStateHasFieldViolations",
    "unsupportedRulesVersionHasAReason",
    "serverDownIsUnavailable",
    "retriesUnavailableOnly",
    "deadlineOnEveryCall",
    "tlsWithACaFileAndABearerToken",
    "tlsWithoutOpenSslIsAClearError",
    "interceptorsRunOnEveryCall",
    "answersOver4MiBAreReceived",
    "configFromJson",
    "exampleBotArguments",
    "goldenVectors",
]


def _build() -> None:
    require_tool("javac", INSTALL)
    require_tool("java", INSTALL)
    result = run(["./build.sh"], cwd=JAVA)
    assert result.returncode == 0, f"{result.stderr}\n{INSTALL}"


def test_java_tests_pass_against_the_server(
    server: ServerThread, sealing_server: ServerThread, strict_server: ServerThread
) -> None:
    _build()
    result = run(
        ["./run.sh", "referee.client.ClientTests"],
        cwd=JAVA,
        env=addresses(server, sealing_server, strict_server),
    )
    out = result.stdout + result.stderr
    assert result.returncode == 0, out
    assert re.search(r"^java tests: [1-9]\d* passed, 0 failed$", out, re.M), out
    assert "--- FAIL" not in out, out
    for name in REQUIRED:
        assert re.search(rf"^--- PASS {name} ", out, re.M), f"{name} did not pass"
    assert_vectors_ran(out)


def test_java_example_bot_plays_every_game(server: ServerThread, served_games: list[str]) -> None:
    _build()
    result = run(["./run.sh", "referee.client.examples.Bot", "--address", server.address], cwd=JAVA)
    assert result.returncode == 0, result.stdout + result.stderr
    for game in served_games:
        assert re.search(rf"^{game}: finished after \d+ actions; winner \[", result.stdout, re.M)
