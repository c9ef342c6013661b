"""Every serve setting by flag and by environment variable; invalid settings stop
start-up with a message and exit code 2."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import grpc
import pytest

from referee import cli
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from referee.workers import _cgroup_cpu_quota, available_cpus, reserve_port

from .helpers import TIMEOUT, Certs, InProcess

TOKEN = "settings-test-token-0123456789"


def settings_of(argv: list[str]) -> object:
    parser = cli._parser()
    args = parser.parse_args(argv)
    return cli._settings(args.serve_parser, args)


def test_help_documents_every_setting_and_its_variable(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        cli.main(["serve", "--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    serve = cli._parser().parse_args(["serve"]).serve_parser
    # Every setting; not the modes of the command (--check-config serves nothing).
    modes = {"help", "check_config"}
    flags = [a for a in serve._actions if a.option_strings and a.dest not in modes]
    assert len(flags) >= 25
    assert "--check-config" in text
    for action in flags:
        flag = action.option_strings[0]
        assert flag in text
        env = "REFEREE_" + flag[2:].upper().replace("-", "_")
        assert f"env {env}" in text, f"{flag} has no environment variable in --help"


def test_environment_sets_what_flags_set(monkeypatch: pytest.MonkeyPatch, certs: Certs) -> None:
    monkeypatch.setenv("REFEREE_WORKERS", "3")
    monkeypatch.setenv("REFEREE_MAX_CONCURRENT_RPCS", "64")
    monkeypatch.setenv("REFEREE_MAX_CONNECTION_AGE_SECONDS", "120")
    monkeypatch.setenv("REFEREE_KEEPALIVE_TIME_SECONDS", "30")
    monkeypatch.setenv("REFEREE_HEALTH_PORT", "8081")
    monkeypatch.setenv("REFEREE_METRICS_PORT", "9090")
    monkeypatch.setenv("REFEREE_TLS_CERT", str(certs.server_cert))
    monkeypatch.setenv("REFEREE_TLS_KEY", str(certs.server_key))
    monkeypatch.setenv("REFEREE_TLS_CLIENT_CA", str(certs.ca))
    monkeypatch.setenv("REFEREE_AUTH_TOKENS", f"ci={TOKEN}")
    monkeypatch.setenv("REFEREE_AUTH_EXEMPT", "grpc.health.v1.Health")
    monkeypatch.setenv("REFEREE_NEW_GAME_RULES", " ecarte/1 ,earl_of_coventry/1")
    monkeypatch.setenv("REFEREE_COMPRESSED_REQUESTS", "Refuse")
    monkeypatch.setenv("REFEREE_HANDSHAKE_TIMEOUT_SECONDS", "4")
    monkeypatch.setenv("REFEREE_MAX_REPLAY_CPU_SECONDS", "2.5")
    monkeypatch.setenv("REFEREE_MAX_REQUEST_BYTES_IN_FLIGHT", "8388608")
    s = settings_of(["serve"])
    assert s.max_request_bytes_in_flight == 8 << 20  # type: ignore[attr-defined]
    assert s.max_replay_cpu_seconds == 2.5  # type: ignore[attr-defined]
    assert s.compressed_requests == "refuse"  # type: ignore[attr-defined]
    assert s.handshake_timeout_seconds == 4  # type: ignore[attr-defined]
    assert s.new_game_rules == ("ecarte/1", "earl_of_coventry/1")  # type: ignore[attr-defined]
    assert s.workers == 3 and s.max_concurrent_rpcs == 64  # type: ignore[attr-defined]
    assert s.health_port == 8081 and s.metrics_port == 9090  # type: ignore[attr-defined]
    assert s.tls.client_ca == certs.ca  # type: ignore[attr-defined]
    assert s.auth.exempt == ("grpc.health.v1.Health",)  # type: ignore[attr-defined]
    options = dict(s.grpc_options())  # type: ignore[attr-defined]
    assert options["grpc.max_connection_age_ms"] == 120_000
    assert options["grpc.keepalive_time_ms"] == 30_000
    assert options["grpc.so_reuseport"] == 1
    # Flags win over the environment.
    s = settings_of(["serve", "--workers", "1", "--max-connection-age-seconds", "0"])
    assert s.workers == 1  # type: ignore[attr-defined]
    options = dict(s.grpc_options())  # type: ignore[attr-defined]
    assert "grpc.max_connection_age_ms" not in options and options["grpc.so_reuseport"] == 0


def test_workers_default_to_the_cpus_available() -> None:
    s = settings_of(["serve"])
    assert s.workers == available_cpus() >= 1  # type: ignore[attr-defined]


def test_cgroup_cpu_quota(tmp_path: Path) -> None:
    (tmp_path / "cpu.max").write_text("150000 100000\n")
    assert _cgroup_cpu_quota(str(tmp_path)) == 1.5
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert _cgroup_cpu_quota(str(tmp_path)) is None
    (tmp_path / "cpu.max").unlink()
    (tmp_path / "cpu").mkdir()
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("200000\n")
    (tmp_path / "cpu" / "cpu.cfs_period_us").write_text("100000\n")
    assert _cgroup_cpu_quota(str(tmp_path)) == 2.0
    (tmp_path / "cpu" / "cpu.cfs_quota_us").write_text("-1\n")  # v1's "no limit"
    assert _cgroup_cpu_quota(str(tmp_path)) is None
    assert _cgroup_cpu_quota(str(tmp_path / "none")) is None


def bad_cases(certs: Certs, tmp: Path) -> list[tuple[list[str], dict[str, str], str]]:
    missing = str(tmp / "missing.pem")
    return [
        (["--tls-cert", str(certs.server_cert)], {}, "go together"),
        (["--tls-client-ca", str(certs.ca)], {}, "needs --tls-cert"),
        (["--tls-cert", missing, "--tls-key", str(certs.server_key)], {}, "No such file"),
        (["--tls-cert", str(certs.server_cert), "--tls-key", str(certs.client_key)], {}, "key"),
        ([], {"REFEREE_AUTH_TOKENS": "short"}, "16 to 4096 characters"),
        (["--auth-tokens-file", missing], {}, "cannot read"),
        (["--auth-exempt", "not a service!"], {}, "not a service"),
        (["--port", "6000", "--health-port", "6000"], {}, "different ports"),
        (["--metrics-port", "7000"], {"REFEREE_HEALTH_PORT": "7000"}, "different ports"),
        (["--workers", "0"], {}, "out of range"),
        ([], {"REFEREE_WORKERS": "lots"}, "REFEREE_WORKERS"),
        (["--max-concurrent-rpcs", "-1"], {}, "out of range"),
        ([], {"REFEREE_METRICS_PORT": "99999"}, "REFEREE_METRICS_PORT"),
        (["--keepalive-time-seconds", "0"], {}, "at least 1"),
        (["--drain-delay-seconds", "-1"], {}, "at least 0"),
        (["--max-replay-cpu-seconds", "-0.5"], {}, "at least 0"),
        (["--max-request-bytes-in-flight", "65536"], {}, "0 (no limit) or at least 1048576"),
        ([], {"REFEREE_MAX_REPLAY_CPU_SECONDS": "inf"}, "not a finite number"),
        (["--worker-hang-seconds", "inf"], {}, "not a finite number"),
        ([], {"REFEREE_DRAIN_DELAY_SECONDS": "nan"}, "not a finite number"),
        ([], {"REFEREE_MAX_CONNECTION_AGE_SECONDS": "soon"}, "not a number"),
        (["--compressed-requests", "gzip"], {}, "'gzip' is not one of accept, refuse"),
        (["--new-game-rules", "ecarte/9"], {}, "'ecarte/9' is not a rules version served here"),
        ([], {"REFEREE_NEW_GAME_RULES": "ecarte/1, ecarte/1"}, "more than one version of ecarte"),
    ]


def test_invalid_settings_exit_2_with_a_message(
    certs: Certs,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    for argv, env, message in bad_cases(certs, tmp_path):
        with monkeypatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            with pytest.raises(SystemExit) as e:
                cli.main(["serve", *argv])
        err = capsys.readouterr().err
        assert e.value.code == 2, (argv, env)
        assert "error" in err and message in err, (argv, env, err)
        assert TOKEN not in err


# A port in use, by each way of setting it: (flags, variables, the setting the message names).
BUSY_PORT_CASES = [
    (["--port", "{port}", "--engine", "threads"], {}, "--port"),
    (["--port", "{port}", "--engine", "asyncio"], {}, "--port"),
    (["--port", "{port}", "--workers", "2"], {}, "--port"),
    (["--engine", "threads"], {"REFEREE_PORT": "{port}"}, "REFEREE_PORT"),
    (["--port", "0", "--metrics-port", "{port}"], {}, "--metrics-port"),
    (["--port", "0", "--metrics-port", "{port}", "--workers", "2"], {}, "--metrics-port"),
    (["--port", "0"], {"REFEREE_METRICS_PORT": "{port}"}, "REFEREE_METRICS_PORT"),
    (["--port", "0", "--health-port", "{port}", "--engine", "threads"], {}, "--health-port"),
    (["--port", "0", "--health-port", "{port}", "--engine", "asyncio"], {}, "--health-port"),
    (["--port", "0", "--workers", "2"], {"REFEREE_HEALTH_PORT": "{port}"}, "REFEREE_HEALTH_PORT"),
]


@pytest.mark.parametrize(
    ("argv", "env", "setting"),
    BUSY_PORT_CASES,
    ids=[f"{setting}-{'-'.join(argv[-2:])}" for argv, _, setting in BUSY_PORT_CASES],
)
def test_a_port_in_use_stops_start_up_with_one_line_naming_its_setting(
    argv: list[str], env: dict[str, str], setting: str
) -> None:
    """Exit 2 and Referee's one line, naming the port as it was given (flag or
    variable), on both engines and with a supervisor: checked before gRPC binds, so no
    line of gRPC's own (C-core's ``Failed to add port``) comes first."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        with pytest.raises(OSError, match="cannot bind"):
            reserve_port("127.0.0.1", int(port))
        clean = {k: v for k, v in os.environ.items() if not k.startswith(("REFEREE_", "GRPC_"))}
        hosts = ["--host", "127.0.0.1", "--health-host", "127.0.0.1", "--metrics-host", "127.0.0.1"]
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "referee.cli",
                "serve",
                *hosts,
                "--workers",
                "1",
                "--log-format",
                "json",
                *[a.format(port=port) for a in argv],
            ],
            capture_output=True,
            text=True,
            timeout=60,
            env={**clean, **{k: v.format(port=port) for k, v in env.items()}},
        )
    assert result.returncode == 2, result.stderr
    assert result.stderr == (
        f"referee serve: error: {setting} {port}: cannot bind 127.0.0.1:{port}: "
        "Address already in use\n"
    )
    assert result.stdout == ""


def test_reserved_port_is_shared_by_reuseport_sockets_only() -> None:
    hold = reserve_port("127.0.0.1", 0)
    try:
        port = hold.getsockname()[1]
        with socket.socket() as worker:  # what each worker's gRPC server does
            worker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            worker.bind(("127.0.0.1", port))
            worker.listen()
        with socket.socket() as other, pytest.raises(OSError):
            other.bind(("127.0.0.1", port))
    finally:
        hold.close()


def test_on_the_ipv6_wildcard_an_ipv4_server_on_the_port_is_noticed() -> None:
    """``--host ::`` serves both families (dual stack): a port another server holds in
    IPv4 only is in use for it too, and the reservation says so."""
    with socket.socket() as taken:
        taken.bind(("0.0.0.0", 0))
        taken.listen()
        with pytest.raises(OSError, match="cannot bind"):
            reserve_port("::", taken.getsockname()[1])
    hold = reserve_port("::", 0)
    try:
        assert hold.getsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY) == 0
    finally:
        hold.close()


def test_an_embedded_server_has_the_defaults_of_referee_serve(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``ServerSettings()`` (a server embedded in a program) serves like ``referee serve``
    with no flag, but for what docs/operations.md says differs: one worker, and no
    connection age limit (``referee serve`` sets 300 s, for load balancing)."""
    from dataclasses import fields

    from referee.server import ServerSettings

    for name in list(os.environ):
        if name.startswith("REFEREE_"):
            monkeypatch.delenv(name)
    served, embedded = settings_of(["serve"]), ServerSettings()
    differ = {
        f.name: (getattr(embedded, f.name), getattr(served, f.name))
        for f in fields(ServerSettings)
        if getattr(embedded, f.name) != getattr(served, f.name)
    }
    assert differ.pop("workers", (1, 1)) == (1, available_cpus())
    assert differ.pop("max_connection_age_seconds") == (0.0, 300.0)
    assert differ.pop("auth", (None, None))[0] is None  # no tokens: none asked for
    assert differ == {}
    assert embedded.max_concurrent_rpcs == 0  # no limit


def test_seal_keys_are_never_in_a_repr_and_short_ages_are_kept() -> None:
    from referee.server import ServerSettings

    key = bytes(range(32))
    shown = repr(ServerSettings(seal_keys=(("k1", key),)))
    assert "seal_keys" not in shown and repr(key) not in shown and "k1" not in shown
    options = dict(
        ServerSettings(
            max_connection_age_seconds=0.5, max_connection_idle_seconds=0.25
        ).grpc_options()
    )
    assert options["grpc.max_connection_age_ms"] == 500
    assert options["grpc.max_connection_idle_ms"] == 250


def test_the_handshake_timeout_is_set_on_the_service_and_health_ports() -> None:
    """--handshake-timeout-seconds (10 s unless set; gRPC's own is 120 s) reaches gRPC's
    server_handshake_timeout_ms, on the service port and on --health-port."""
    from referee.server import ServerBase, ServerSettings

    assert dict(ServerSettings().grpc_options())["grpc.server_handshake_timeout_ms"] == 10_000
    settings = ServerSettings(handshake_timeout_seconds=2.5)
    assert dict(settings.grpc_options())["grpc.server_handshake_timeout_ms"] == 2_500
    health = dict(ServerBase._health_options(cast(Any, SimpleNamespace(settings=settings))))
    assert health["grpc.server_handshake_timeout_ms"] == 2_500
    with pytest.raises(ValueError, match="handshake_timeout_seconds"):
        ServerSettings(handshake_timeout_seconds=0)


def test_compressed_requests_are_refused_by_gzip_and_deflate_being_disabled() -> None:
    """--compressed-requests refuse enables only identity in gRPC (bit 0 of the bitset);
    accept leaves gRPC's default (every algorithm) alone."""
    from referee.server import ServerSettings

    accept = dict(ServerSettings().grpc_options())
    assert "grpc.compression_enabled_algorithms_bitset" not in accept
    refuse = dict(ServerSettings(compressed_requests="refuse").grpc_options())
    assert refuse["grpc.compression_enabled_algorithms_bitset"] == 1
    with pytest.raises(ValueError, match="compressed_requests"):
        ServerSettings(compressed_requests="gzip")


@pytest.mark.parametrize(
    ("affinity", "quota", "cpus"),
    [
        ({0, 1, 2, 3}, None, 4),
        ({0, 1, 2, 3}, 1.5, 2),  # a quota rounds up to whole CPUs
        ({0, 1, 2, 3}, 0.2, 1),  # never fewer than one
        ({5}, None, 1),
        ({5}, 8.0, 1),  # the affinity caps a wider quota
    ],
)
def test_the_cpus_available_are_the_affinity_capped_by_the_quota(
    monkeypatch: pytest.MonkeyPatch, affinity: set[int], quota: float | None, cpus: int
) -> None:
    from referee import workers

    monkeypatch.setattr(workers.os, "sched_getaffinity", lambda pid: affinity)
    monkeypatch.setattr(workers, "_cgroup_cpu_quota", lambda: quota)
    assert available_cpus() == cpus


# Every bounded whole-number setting: (flag, variable, lowest, highest accepted).
RANGES = [
    ("--port", "PORT", 0, 65535),
    ("--health-port", "HEALTH_PORT", 0, 65535),
    ("--metrics-port", "METRICS_PORT", 0, 65535),
    ("--workers", "WORKERS", 1, 1024),
    ("--threads", "THREADS", 1, 256),
    ("--max-concurrent-rpcs", "MAX_CONCURRENT_RPCS", 0, 1_000_000),
    ("--max-concurrent-replays", "MAX_CONCURRENT_REPLAYS", 0, 1_000_000),
    ("--max-request-bytes-in-flight", "MAX_REQUEST_BYTES_IN_FLIGHT", 0, 1 << 34),
    ("--coalesce-us", "COALESCE_US", 0, 10_000),
    ("--max-message-bytes", "MAX_MESSAGE_BYTES", 1024 * 1024, 256 * 1024 * 1024),
    ("--max-replay-actions", "MAX_REPLAY_ACTIONS", 1, 10_000_000),
    ("--seal-format", "SEAL_FORMAT", 2, 3),
]


def parses(argv: list[str]) -> bool:
    try:
        cli._parser().parse_args(argv)
    except SystemExit as e:
        assert e.code == 2
        return False
    return True


@pytest.mark.parametrize(("flag", "variable", "lowest", "highest"), RANGES)
def test_a_whole_number_setting_takes_its_range_and_nothing_beyond(
    flag: str,
    variable: str,
    lowest: int,
    highest: int,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Both ends of the range are accepted, one beyond either end refused with the
    range in the message; the same through the environment variable."""
    for value in (lowest, highest):
        assert parses(["serve", flag, str(value)]), (flag, value)
        args = cli._parser().parse_args(["serve", flag, str(value)])
        assert getattr(args, flag[2:].replace("-", "_")) == value
    for value in (lowest - 1, highest + 1):
        assert not parses(["serve", flag, str(value)]), (flag, value)
        assert f"out of range {lowest} .. {highest}" in capsys.readouterr().err
    monkeypatch.setenv("REFEREE_" + variable, str(highest))
    assert getattr(cli._parser().parse_args(["serve"]), flag[2:].replace("-", "_")) == highest
    monkeypatch.setenv("REFEREE_" + variable, str(highest + 1))
    args = cli._parser().parse_args(["serve"])
    with pytest.raises(SystemExit) as e:
        cli._settings(args.serve_parser, args)
    assert e.value.code == 2
    assert f"environment REFEREE_{variable}" in capsys.readouterr().err
    # The flag wins over a variable that does not parse.
    args = cli._parser().parse_args(["serve", flag, str(highest)])
    assert getattr(cli._settings(args.serve_parser, args), flag[2:].replace("-", "_")) == highest


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("true", True), ("TRUE", True), ("yes", True), ("on", True), ("1", True), (" On ", True),
        ("false", False), ("no", False), ("off", False), ("0", False), ("", False),
        ("maybe", None), ("2", None),
    ],
)  # fmt: skip
def test_a_true_or_false_setting(
    text: str, value: bool | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--require-sealed`` takes true/yes/on/1 or false/no/off/0 (any case), alone
    means true; the variable takes the same words (empty: false)."""
    argv = ["serve", "--require-sealed", text]
    if value is None:
        assert not parses(argv)
        return
    assert cli._parser().parse_args(argv).require_sealed is value
    monkeypatch.setenv("REFEREE_REQUIRE_SEALED", text)
    assert cli._parser().parse_args(["serve"]).require_sealed is value
    assert cli._parser().parse_args(["serve", "--require-sealed"]).require_sealed is True


def test_keepalive_times_of_one_second_are_the_least(
    capsys: pytest.CaptureFixture[str],
) -> None:
    one = ["serve", "--keepalive-time-seconds", "1", "--keepalive-timeout-seconds", "1"]
    s = settings_of([*one, "--handshake-timeout-seconds", "1"])
    assert (s.keepalive_time_seconds, s.keepalive_timeout_seconds) == (1, 1)  # type: ignore[attr-defined]
    assert s.handshake_timeout_seconds == 1  # type: ignore[attr-defined]
    for flag in (
        "--keepalive-time-seconds",
        "--keepalive-timeout-seconds",
        "--handshake-timeout-seconds",
    ):
        with pytest.raises(SystemExit) as e:
            settings_of(["serve", flag, "0.999"])
        assert e.value.code == 2 and "at least 1" in capsys.readouterr().err


def test_worker_hang_seconds_are_0_or_at_least_3(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Heartbeats come every second: a hang time under 3 s would take a busy worker for
    a stuck one. 0 turns the watch off; the default is 30 s."""
    assert settings_of(["serve"]).worker_hang_seconds == 30  # type: ignore[attr-defined]
    for value in (0, 3, 3600):
        s = settings_of(["serve", "--worker-hang-seconds", str(value)])
        assert s.worker_hang_seconds == value  # type: ignore[attr-defined]
    monkeypatch.setenv("REFEREE_WORKER_HANG_SECONDS", "0")
    assert settings_of(["serve"]).worker_hang_seconds == 0  # type: ignore[attr-defined]
    for value in ("0.5", "2.999"):
        with pytest.raises(SystemExit) as e:
            settings_of(["serve", "--worker-hang-seconds", value])
        assert e.value.code == 2 and "0 (never) or at least 3" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        settings_of(["serve", "--worker-hang-seconds", "-1"])
    assert e.value.code == 2 and "at least 0" in capsys.readouterr().err


def test_several_workers_need_so_reuseport(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where the system has no SO_REUSEPORT (not Linux), one worker serves and more are
    refused at start-up, not at the first bind."""
    monkeypatch.delattr(socket, "SO_REUSEPORT")
    assert settings_of(["serve", "--workers", "1"]).workers == 1  # type: ignore[attr-defined]
    with pytest.raises(SystemExit) as e:
        settings_of(["serve", "--workers", "2"])
    assert e.value.code == 2 and "needs SO_REUSEPORT" in capsys.readouterr().err


def test_seal_keys_from_the_environment_and_their_errors(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import base64

    line = "k2026a:" + base64.b64encode(bytes(range(32))).decode()
    monkeypatch.setenv("REFEREE_SEAL_KEYS", f"{line},k2025b:{base64.b64encode(bytes(32)).decode()}")
    keys = settings_of(["serve"]).seal_keys  # type: ignore[attr-defined]
    assert keys == (("k2026a", bytes(range(32))), ("k2025b", bytes(32)))
    # A keys file and the variable both set: an error, not one of them silently (the
    # order of the keys decides which seals, so they are not merged).
    (tmp_path / "keys.txt").write_text(line.replace("k2026a", "file") + "\n")
    with pytest.raises(SystemExit) as e:
        settings_of(["serve", "--seal-keys-file", str(tmp_path / "keys.txt")])
    err = capsys.readouterr().err
    assert e.value.code == 2
    assert "sealing keys come from --seal-keys-file or REFEREE_SEAL_KEYS, not both" in err
    monkeypatch.delenv("REFEREE_SEAL_KEYS")
    s = settings_of(["serve", "--seal-keys-file", str(tmp_path / "keys.txt")])
    assert [k for k, _ in s.seal_keys] == ["file"]  # type: ignore[attr-defined]
    for argv, env, message in [
        (["--seal-keys-file", str(tmp_path / "none.txt")], "", "No such file or directory"),
        ([], "k1:short", "environment REFEREE_SEAL_KEYS: "),
        (["--require-sealed"], "", "--require-sealed needs sealing keys"),
    ]:
        monkeypatch.setenv("REFEREE_SEAL_KEYS", env)
        with pytest.raises(SystemExit) as e:
            settings_of(["serve", *argv])
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.startswith("referee serve: error: ") and message in err
        assert "AAECAwQF" not in err  # no key material in a message


def test_help_says_which_settings_have_no_default(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "(env REFEREE_HEALTH_PORT; default none)" in text
    assert "(env REFEREE_PORT; default 50051)" in text


def test_an_error_names_the_flag_or_the_variable_it_came_from(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A setting given by its flag is named by its flag, one given by its variable by
    the variable (flags win, so a flag given names the flag even with the variable set)."""

    def error(argv: list[str], env: dict[str, str]) -> str:
        with monkeypatch.context() as mp:
            for name in ("REFEREE_AUTH_TOKENS", "REFEREE_HEALTH_PORT", "REFEREE_METRICS_PORT"):
                mp.delenv(name, raising=False)
            for k, v in env.items():
                mp.setenv(k, v)
            with pytest.raises(SystemExit) as e:
                settings_of(["serve", *argv])
        assert e.value.code == 2
        return capsys.readouterr().err

    by_flag = error(["--auth-tokens", "short"], {})
    assert "--auth-tokens entry 1: a token must be 16" in by_flag, by_flag
    assert "REFEREE_AUTH_TOKENS" not in by_flag
    by_variable = error([], {"REFEREE_AUTH_TOKENS": "short"})
    assert "REFEREE_AUTH_TOKENS entry 1: a token must be 16" in by_variable, by_variable
    both = error(["--auth-tokens", f"{TOKEN},short"], {"REFEREE_AUTH_TOKENS": TOKEN})
    assert "--auth-tokens entry 2" in both and "REFEREE_AUTH_TOKENS" not in both, both
    assert TOKEN not in by_flag + by_variable + both

    ports = error(["--health-port", "7000"], {"REFEREE_METRICS_PORT": "7000"})
    assert "REFEREE_METRICS_PORT and --health-port are both 7000" in ports, ports
    ports = error(["--port", "7001", "--metrics-port", "7001"], {})
    assert "--metrics-port and --port are both 7001" in ports, ports
    hang = error([], {"REFEREE_WORKER_HANG_SECONDS": "2"})
    assert "REFEREE_WORKER_HANG_SECONDS must be 0 (never) or at least 3" in hang, hang
    keepalive = error([], {"REFEREE_KEEPALIVE_TIMEOUT_SECONDS": "0.5"})
    assert "REFEREE_KEEPALIVE_TIMEOUT_SECONDS must be at least 1" in keepalive, keepalive
    keepalive = error(["--keepalive-time-seconds", "0.5"], {})
    assert "--keepalive-time-seconds must be at least 1" in keepalive, keepalive
    sealed = error([], {"REFEREE_REQUIRE_SEALED": "true", "REFEREE_SEAL_KEYS": ""})
    assert "REFEREE_REQUIRE_SEALED needs sealing keys" in sealed, sealed
    missing = tmp_path / "none.txt"
    keys = error([], {"REFEREE_SEAL_KEYS_FILE": str(missing)})
    assert f"REFEREE_SEAL_KEYS_FILE {missing}: No such file" in keys, keys
    keys = error(["--seal-keys-file", str(missing)], {})
    assert f"--seal-keys-file {missing}: No such file" in keys, keys
    tokens = error([], {"REFEREE_AUTH_TOKENS_FILE": str(missing)})
    assert f"REFEREE_AUTH_TOKENS_FILE: cannot read {missing}: No such" in tokens, tokens
    tokens = error(["--auth-tokens-file", str(missing)], {})
    assert f"--auth-tokens-file: cannot read {missing}: No such" in tokens, tokens


def test_a_variable_that_does_not_parse_stops_only_serve(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bad ``REFEREE_*`` setting stops ``referee serve`` (exit 2, naming it) unless its
    flag is given, and no other command: ``referee health`` is a container's health
    check, ``--version`` an operator's first question."""
    monkeypatch.setenv("REFEREE_MAX_CONCURRENT_RPCS", "many")
    monkeypatch.setenv("REFEREE_AUTH_EXEMPT", "x y")
    with pytest.raises(SystemExit) as version:
        cli.main(["--version"])
    assert version.value.code == 0
    assert cli.main(["games"]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        cli.main(["serve", "--port", "0"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "environment REFEREE_MAX_CONCURRENT_RPCS: " in err and "many" in err
    args = cli._parser().parse_args(
        ["serve", "--max-concurrent-rpcs", "5", "--auth-exempt", "grpc.health.v1.Health"]
    )
    settings = cli._settings(args.serve_parser, args)
    assert settings.max_concurrent_rpcs == 5


def test_check_config_says_what_it_would_serve_with_and_serves_nothing(
    certs: Certs,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``serve --check-config``: good settings print a summary (no key, no token) and
    exit 0 without binding a port, even one in use; bad ones exit 2 with the message
    serve gives."""
    from referee.sealing import new_key_line

    keys = tmp_path / "keys.txt"
    keys.write_text(new_key_line("k2") + "\n" + new_key_line("k1") + "\n")
    tokens = tmp_path / "tokens.txt"
    tokens.write_text(f"bots {TOKEN} @read\n")
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        code = cli.main(
            [
                "serve",
                "--check-config",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--seal-keys-file",
                str(keys),
                "--require-sealed",
                "--auth-tokens-file",
                str(tokens),
                "--tls-cert",
                str(certs.server_cert),
                "--tls-key",
                str(certs.server_key),
                "--tls-client-ca",
                str(certs.ca),
                "--workers",
                "2",
                "--metrics-port",
                "9090",
                "--drain-delay-seconds",
                "15",
            ]
        )
    out = capsys.readouterr().out
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "referee serve: the settings are good"
    summary = "\n".join(lines)
    assert f"service   127.0.0.1:{port}, TLS on: certificate {certs.server_cert}" in summary
    assert f"client certificates from {certs.ca} (mutual TLS)" in summary
    assert "metrics   0.0.0.0:9090" in summary and "health    on the service port" in summary
    assert "workers   2, a hung worker replaced after 30 s; engine auto" in summary
    assert "drain delay 15 s, then grace 10 s" in summary and "messages 16 MiB" in summary
    assert "100000 actions a Replay (at most 10 s of CPU)" in summary
    assert "Replays unlimited, request bytes unlimited; compressed" in summary
    assert (
        "connect   handshake within 10 s; a ping after 60 s quiet (20 s to answer); "
        "age 300 s (+60 s grace); idle unlimited\n"
    ) in summary + "\n"
    assert (
        "sealing   on: sealed states only; sealing with key 'k2' (token format 3), "
        "opening with ['k2', 'k1']"
    ) in summary
    assert "auth      1 token, 1 limited; no token needed for grpc.health.v1.Health" in summary
    assert "rules     new games ecarte/1, earl_of_coventry/1\n" in summary
    assert "warning" not in summary  # TLS is on
    assert TOKEN not in summary and keys.read_text().split(":")[1][:20] not in summary
    # Tokens without TLS: said, as serve logs it. Workers left to auto: said so.
    monkeypatch.delenv("REFEREE_WORKERS", raising=False)
    argv = ["serve", "--check-config", "--auth-tokens-file", str(tokens), "--auth-exempt", ""]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "warning   bearer tokens travel in plaintext" in out
    assert "auth      1 token, 1 limited; every method needs a token" in out
    assert f"workers   auto ({available_cpus()} on this machine)" in out
    # One worker: no supervisor, no hung worker to replace.
    assert cli.main(["serve", "--check-config", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "workers   1; engine auto" in out and "; compressed requests accepted\n" in out
    argv = ["serve", "--check-config", "--compressed-requests", "refuse"]
    argv += ["--handshake-timeout-seconds", "2.5", "--max-connection-age-seconds", "0"]
    argv += ["--max-connection-idle-seconds", "30", "--keepalive-time-seconds", "5"]
    argv += ["--max-replay-cpu-seconds", "0"]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "100000 actions a Replay (CPU unlimited)" in out
    assert "Replays unlimited, request bytes unlimited; compressed requests refused\n" in out
    assert (
        "connect   handshake within 2.5 s; a ping after 5 s quiet (20 s to answer); "
        "age unlimited; idle 30 s\n"
    ) in out
    for argv, env, message in bad_cases(certs, tmp_path):
        with monkeypatch.context() as mp:
            for k, v in env.items():
                mp.setenv(k, v)
            with pytest.raises(SystemExit) as e:
                cli.main(["serve", "--check-config", *argv])
        captured = capsys.readouterr()
        assert e.value.code == 2 and message in captured.err, (argv, env, captured.err)
        assert "settings are good" not in captured.out


def test_seal_format_reaches_the_tokens_a_server_writes(monkeypatch: pytest.MonkeyPatch) -> None:
    """--seal-format (REFEREE_SEAL_FORMAT) from the command line to the tokens: 3 by
    default; 2 for the first step of a rolling upgrade. Either server opens both."""
    import base64

    from referee.v1 import earl_of_coventry_pb2 as eoc

    monkeypatch.setenv("REFEREE_SEAL_KEYS", "k1:" + base64.b64encode(bytes(32)).decode())
    request = pb.NewGameRequest(
        config=pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3))
    )
    tokens = {}
    for argv, written in (([], 3), (["--seal-format", "2"], 2)):
        settings = settings_of(["serve", "--host", "127.0.0.1", "--port", "0", *argv])
        assert settings.seal_format == written  # type: ignore[attr-defined]
        with InProcess(settings) as server, grpc.insecure_channel(server.address) as ch:
            stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
            tokens[written] = stub.NewGame(request, timeout=TIMEOUT).sealed_state
            assert tokens[written][2] == written
            for token in tokens.values():  # each opens the tokens made so far
                view = pb.ViewStateRequest(sealed_state=token, viewer={"public": {}})
                assert stub.ViewState(view, timeout=TIMEOUT).view.HasField("earl_of_coventry")
