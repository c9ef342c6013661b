"""The server process: health, reflection, graceful shutdown, the CLI."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from ..ops.helpers import Served, rejected_replay
from ..server_thread import ServerThread
from .slow_http2 import SlowCall


def test_health_serving(channel: grpc.Channel) -> None:
    health = health_pb2_grpc.HealthStub(channel)
    for service in ("", "referee.v1.RefereeService"):
        reply = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5)
        assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_reflection_lists_and_describes_the_service(channel: grpc.Channel) -> None:
    db = ProtoReflectionDescriptorDatabase(channel)
    services = set(db.get_services())
    assert {"referee.v1.RefereeService", "grpc.health.v1.Health"} <= services
    file = db.FindFileContainingSymbol("referee.v1.RefereeService")
    assert file.name == "referee/v1/referee.proto"


@pytest.mark.parametrize("version", ["v1alpha", "v1"])
def test_reflection_is_served_as_v1_and_v1alpha(channel: grpc.Channel, version: str) -> None:
    """Newer tools ask ``grpc.reflection.v1`` first, older ones only know v1alpha
    (grpcio-reflection's): the same messages under two names, both answered."""
    from google.protobuf import descriptor_pb2
    from grpc_reflection.v1alpha import reflection_pb2 as r

    info = channel.stream_stream(
        f"/grpc.reflection.{version}.ServerReflection/ServerReflectionInfo",
        request_serializer=r.ServerReflectionRequest.SerializeToString,
        response_deserializer=r.ServerReflectionResponse.FromString,
    )
    asked = [
        r.ServerReflectionRequest(list_services=""),
        r.ServerReflectionRequest(file_containing_symbol="referee.v1.RefereeService"),
        r.ServerReflectionRequest(file_containing_symbol="no.such.Service"),
    ]
    listed, described, unknown = list(info(iter(asked), timeout=10))
    services = {s.name for s in listed.list_services_response.service}
    assert {"referee.v1.RefereeService", "grpc.health.v1.Health"} <= services
    files = described.file_descriptor_response.file_descriptor_proto
    names = {descriptor_pb2.FileDescriptorProto.FromString(f).name for f in files}
    assert "referee/v1/referee.proto" in names
    assert unknown.error_response.error_code == grpc.StatusCode.NOT_FOUND.value[0]


def test_health_goes_not_serving_on_stop(capsys: pytest.CaptureFixture[str]) -> None:
    """Seen by a health client and by ``referee health``, which exits 1 on NOT_SERVING
    (a probe's failure) as when the server cannot be reached."""
    from referee import cli
    from referee.server import ServerSettings

    thread = ServerThread(ServerSettings(host="127.0.0.1", port=0, grace_seconds=1)).start()
    with grpc.insecure_channel(thread.address) as ch:
        health = health_pb2_grpc.HealthStub(ch)
        assert health.Check(health_pb2.HealthCheckRequest(), timeout=5).status == 1
        assert cli.main(["health", "--address", thread.address]) == 0
        assert capsys.readouterr().out == f"{thread.address}: SERVING\n"
        thread.enter_graceful_shutdown()
        status = health.Check(health_pb2.HealthCheckRequest(), timeout=5).status
        assert status == health_pb2.HealthCheckResponse.NOT_SERVING
        assert cli.main(["health", "--address", thread.address]) == 1
        assert capsys.readouterr().out == f"{thread.address}: NOT_SERVING\n"
    thread.stop()


@pytest.fixture
def server_process() -> Iterator[Served]:
    """`referee serve --port 0` (one process, debug log) with its JSON log lines."""
    served = Served("--workers", "1", "--log-level", "debug")
    served.wait_for("referee_serving")
    yield served
    served.close()


def port_of(served: Served) -> int:
    return int(served.wait_for("referee_serving")["port"])


def test_sigterm_lets_the_call_in_flight_finish_and_exits_0(server_process: Served) -> None:
    with grpc.insecure_channel(f"127.0.0.1:{port_of(server_process)}") as ch:
        stub = referee_pb2_grpc.RefereeServiceStub(ch)
        first, request = rejected_replay(stub, 20_000)  # a long Replay
        future = stub.Replay.future(request)
        server_process.wait_for("rpc_start", method="Replay")
        server_process.proc.send_signal(signal.SIGTERM)
        reply = future.result(timeout=60)
        assert len(reply.steps) == 20_000
        assert reply.final_hash == first.state_hash
    assert server_process.proc.wait(timeout=60) == 0
    server_process.wait_for("referee_stopped")


def test_sigterm_delivers_a_large_answer_whole_to_a_slow_client(server_process: Served) -> None:
    """A call in flight at SIGTERM whose client reads its answer slowly (a small receive
    buffer, a flow-control update as it reads) still gets all of it. gRPC closes a
    connection once its last call has written its answer; the client's next update then
    made the server's kernel reset the connection, and the tail of the answer, still in
    the server's send buffer, was lost (``UNAVAILABLE``, "connection reset by peer").
    A stop now serves on until no call is in flight, then sends GOAWAY."""
    port = port_of(server_process)
    with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
        # 3,000 actions: a request within the first window, an answer of 300 KB.
        first, request = rejected_replay(referee_pb2_grpc.RefereeServiceStub(ch), 3_000)
    call = SlowCall(port, "/referee.v1.RefereeService/Replay", request.SerializeToString())
    server_process.wait_for("rpc_start", method="Replay")
    server_process.proc.send_signal(signal.SIGTERM)
    answer = call.read_slowly()
    assert answer.error is None and answer.ended and answer.message is not None
    reply = pb.ReplayResponse.FromString(answer.message)
    assert len(reply.steps) == 3_000 and reply.final_hash == first.state_hash
    assert len(answer.message) > 200_000
    assert server_process.proc.wait(timeout=60) == 0
    closing = server_process.wait_for("referee_closing_connections")
    assert closing["calls_in_flight"] == 0


def test_cli_version_games_and_health(server_process: Served) -> None:
    from referee import __version__, build

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "referee.cli", *args], capture_output=True, text=True, timeout=60
        )

    version = run("--version")
    assert version.returncode == 0 and __version__ in version.stdout
    assert f"({build()} build)" in version.stdout  # compiled under scripts/test-compiled.sh
    serving = server_process.wait_for("referee_serving")
    assert serving["build"] == build()
    # One process serves as worker 0 (its log lines and metrics say so), and no
    # warning about tokens without TLS when there are no tokens.
    assert serving["worker"] == 0 and serving["pid"] == server_process.proc.pid
    # The rules versions it serves, and those new games start under (docs/deploy.md).
    assert serving["games"] == ["ecarte", "earl_of_coventry"]
    assert serving["rules"] == serving["new_game_rules"] == ["ecarte/1", "earl_of_coventry/1"]
    assert server_process.events("auth_without_tls") == []
    games = run("games")
    assert (
        games.returncode == 0 and "earl_of_coventry" in games.stdout and "C-VAR-7" in games.stdout
    )
    assert "ecarte  Écarté  rules ecarte/1  seats 2-3\n" in games.stdout
    ok = run("health", "--address", f"127.0.0.1:{port_of(server_process)}")
    assert ok.returncode == 0 and "SERVING" in ok.stdout
    server_process.proc.send_signal(signal.SIGTERM)
    assert server_process.proc.wait(timeout=60) == 0
    down = run("health", "--address", f"127.0.0.1:{port_of(server_process)}", "--timeout", "1")
    assert down.returncode == 1


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["serve", "--port", "70000"], {}),
        (["serve", "--log-level", "loud"], {}),
        (["serve"], {"REFEREE_PORT": "not-a-port"}),
        (["serve"], {"REFEREE_GRACE_SECONDS": "-1"}),
    ],
)
def test_invalid_settings_stop_startup_with_exit_2(args: list[str], env: dict[str, str]) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "referee.cli", *args],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, **env},
    )
    assert result.returncode == 2
    assert "error" in result.stderr


@pytest.mark.parametrize("host", ["::1", "[::1]"])
def test_an_ipv6_host_is_served_written_either_way(host: str) -> None:
    """``--host ::1`` and ``--host [::1]`` both bind the IPv6 loopback."""
    from referee.server import ServerSettings

    with (
        ServerThread(ServerSettings(host=host, port=0)) as server,
        grpc.insecure_channel(f"[::1]:{server.port}") as channel,
    ):
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        games = stub.ListGames(pb.ListGamesRequest(), timeout=30).games
    assert {g.id for g in games} == {"ecarte", "earl_of_coventry"}
