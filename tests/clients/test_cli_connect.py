"""The client commands (``referee demo``, ``play``, ``scenario --address``, ``health``)
reach servers that require bearer tokens and TLS, and fail on a server's or the
network's error with one line, never a traceback (docs/clients.md, "The command line
and secured servers")."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee import cli
from referee.auth import TokenSet
from referee.server import ServerSettings
from referee.tls import TlsFiles

from ..ops.helpers import Certs, make_certs
from ..server_thread import ServerThread
from .conftest import ROOT, SEED_HEX
from .test_cli_tools import SCENARIO, referee

TOKEN = "cli-connect-token-0123456789abcdef"
REFEREE = [sys.executable, "-m", "referee.cli"]


def start(**settings: object) -> ServerThread:
    return ServerThread(
        ServerSettings(host="127.0.0.1", port=0, grace_seconds=1, **settings)  # type: ignore[arg-type]
    ).start()


@pytest.fixture(scope="module")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(Path(tmp_path_factory.mktemp("certs")))


@pytest.fixture(scope="module")
def token_server() -> Iterator[ServerThread]:
    """Tokens on every call but health and reflection (the default exemptions)."""
    thread = start(auth=TokenSet([("cli", TOKEN)]))
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def token_everywhere_server() -> Iterator[ServerThread]:
    """Tokens on every call, health included (``--auth-exempt ''``)."""
    thread = start(auth=TokenSet([("cli", TOKEN)], exempt=()))
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def tls_server(certs: Certs) -> Iterator[ServerThread]:
    """TLS (a private CA's certificate for localhost and 127.0.0.1) and tokens."""
    thread = start(tls=TlsFiles(certs.server_cert, certs.server_key), auth=TokenSet([("", TOKEN)]))
    yield thread
    thread.stop()


@pytest.fixture(scope="module")
def mtls_server(certs: Certs) -> Iterator[ServerThread]:
    """Mutual TLS: a client certificate of the CA is required."""
    thread = start(tls=TlsFiles(certs.server_cert, certs.server_key, certs.ca))
    yield thread
    thread.stop()


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    path = tmp_path / "token"
    path.write_text(TOKEN + "\n")  # as `echo` or a Secret volume writes it
    return path


@pytest.fixture(autouse=True)
def no_token_in_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("REFEREE_TOKEN", raising=False)


def demo(capsys: pytest.CaptureFixture[str], address: str, *extra: str) -> tuple[int, str, str]:
    code, out, err = referee(
        capsys,
        "demo",
        "--game",
        "earl_of_coventry",
        "--address",
        address,
        "--seats",
        "3",
        "--seed",
        SEED_HEX,
        "--bot-seed",
        "1",
        *extra,
    )
    assert TOKEN not in out + err
    assert "Traceback" not in err
    return code, out, err


def quit_at_once(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, address: str, *extra: str
) -> tuple[int, str, str]:
    """``referee play`` where the player types ``q`` at the first question."""
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, err = referee(
        capsys, "play", "earl_of_coventry", "--address", address, "--seats", "3", *extra
    )
    assert TOKEN not in out + err
    assert "Traceback" not in err
    return code, out, err


def one_line_error(err: str, address: str, code: str) -> None:
    """The error as every client command writes it: one line, no traceback."""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"referee: {address}: {code}: "), err


# ------------------------------------------------------------------ tokens


def test_demo_sends_the_token_of_a_token_file_or_of_referee_token(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    token_server: ServerThread,
    token_file: Path,
) -> None:
    address = token_server.address
    code, _, err = demo(capsys, address)
    assert code == 1
    one_line_error(err, address, "UNAUTHENTICATED")
    code, out, err = demo(capsys, address, "--token-file", str(token_file))
    assert code == 0, err
    assert "== earl_of_coventry over: winner seat" in out
    monkeypatch.setenv("REFEREE_TOKEN", TOKEN)
    code, out, err = demo(capsys, address)
    assert code == 0, err
    assert "== earl_of_coventry over: winner seat" in out
    # The file wins over the variable, as a flag wins over its variable.
    monkeypatch.setenv("REFEREE_TOKEN", "not-the-token-0123456789")
    assert demo(capsys, address, "--token-file", str(token_file))[0] == 0
    monkeypatch.delenv("REFEREE_TOKEN")
    wrong = token_file.parent / "wrong"
    wrong.write_text("a-wrong-token-0123456789abcdef")
    code, _, err = demo(capsys, address, "--token-file", str(wrong))
    assert code == 1
    one_line_error(err, address, "UNAUTHENTICATED")
    assert "a-wrong-token" not in err


def test_play_sends_the_token(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    token_server: ServerThread,
    token_file: Path,
) -> None:
    code, _, err = quit_at_once(capsys, monkeypatch, token_server.address)
    assert code == 1
    one_line_error(err, token_server.address, "UNAUTHENTICATED")
    code, out, err = quit_at_once(
        capsys, monkeypatch, token_server.address, "--token-file", str(token_file)
    )
    assert code == 0, err
    assert "Your move:" in out and "stopped (quit)" in out


def test_scenario_sends_the_token(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    token_server: ServerThread,
    token_file: Path,
) -> None:
    address = token_server.address
    code, out, err = referee(capsys, "scenario", str(SCENARIO), "--address", address)
    assert code == 1 and out == ""
    one_line_error(err, address, "UNAUTHENTICATED")
    code, out, err = referee(
        capsys, "scenario", str(SCENARIO), "--address", address, "--token-file", str(token_file)
    )
    assert code == 0 and out.startswith("ok    "), out + err
    monkeypatch.setenv("REFEREE_TOKEN", TOKEN)
    code, out, err = referee(capsys, "scenario", str(SCENARIO), "--address", address)
    assert code == 0 and out.startswith("ok    "), out + err
    assert TOKEN not in out + err


def test_health_needs_no_token_by_default_and_sends_one_when_asked(
    capsys: pytest.CaptureFixture[str],
    token_server: ServerThread,
    token_everywhere_server: ServerThread,
    token_file: Path,
) -> None:
    code, out, _ = referee(capsys, "health", "--address", token_server.address)
    assert code == 0 and out == f"{token_server.address}: SERVING\n"
    address = token_everywhere_server.address
    code, out, err = referee(capsys, "health", "--address", address)
    assert code == 1 and out == ""
    one_line_error(err, address, "UNAUTHENTICATED")
    code, out, err = referee(
        capsys, "health", "--address", address, "--token-file", str(token_file)
    )
    assert code == 0 and out == f"{address}: SERVING\n", err
    assert TOKEN not in out + err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "holds no token"),
        ("\n  \n", "holds no token"),
        (f"{TOKEN} {TOKEN}x\n", "one token"),
        (f"{TOKEN}\n{TOKEN}x\n", "one token"),
        (f"name {TOKEN}\n", "one token"),  # a server's tokens file line: not a client's
        ("tökén-0123456789abcdef", "visible ASCII"),
    ],
)
def test_an_unusable_token_file_is_a_usage_error_that_never_shows_the_token(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "token"
    path.write_text(content, encoding="utf-8")
    for command in (["demo"], ["health"], ["scenario", str(SCENARIO)]):
        code, out, err = referee(
            capsys, *command, "--address", "127.0.0.1:1", "--token-file", str(path)
        )
        assert code == 2 and out == "", (command, err)
        assert err.startswith(f"referee: --token-file {path}: ") and message in err, err
        assert TOKEN not in err and "tökén" not in err


def test_a_token_file_that_cannot_be_read_and_a_bad_referee_token(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    missing = tmp_path / "missing"
    code, _, err = referee(capsys, "demo", "--address", "127.0.0.1:1", "--token-file", str(missing))
    assert code == 2 and err == f"referee: --token-file {missing}: No such file or directory\n"
    monkeypatch.setenv("REFEREE_TOKEN", "two words-0123456789")
    code, _, err = referee(capsys, "health", "--address", "127.0.0.1:1")
    assert code == 2 and err.startswith("referee: environment REFEREE_TOKEN: "), err
    assert "two words" not in err
    monkeypatch.setenv("REFEREE_TOKEN", "")  # empty: no token
    code, _, err = referee(capsys, "health", "--address", "127.0.0.1:1", "--timeout", "0.2")
    assert code == 1 and ("UNAVAILABLE" in err or "DEADLINE_EXCEEDED" in err), err


def test_there_is_no_flag_that_takes_the_token_itself(capsys: pytest.CaptureFixture[str]) -> None:
    """A command line is visible to other processes (``ps``): a token comes from a file
    or from the environment, as the server's own do."""
    for command in (["demo"], ["play", "ecarte"], ["scenario", "x.json"], ["health"]):
        with pytest.raises(SystemExit):
            cli.main([*command, "--help"])
        text = " ".join(capsys.readouterr().out.split())
        assert "--token-file" in text and "REFEREE_TOKEN" in text, command
        assert "--token " not in text and "--token=" not in text


# ------------------------------------------------------------------ TLS


def test_demo_over_tls_with_a_private_ca(
    capsys: pytest.CaptureFixture[str],
    tls_server: ServerThread,
    certs: Certs,
    token_file: Path,
) -> None:
    address = tls_server.address
    code, _, err = demo(capsys, address, "--token-file", str(token_file))
    assert code == 1
    one_line_error(err, address, "UNAVAILABLE")  # plaintext to a TLS port
    code, out, err = demo(
        capsys, address, "--ca-file", str(certs.ca), "--token-file", str(token_file)
    )
    assert code == 0, err
    assert "== earl_of_coventry over: winner seat" in out
    # The name checked is the address's host unless --server-name says another.
    localhost = address.replace("127.0.0.1", "localhost")
    for target, name in ((localhost, None), (address, "localhost")):
        extra = ["--server-name", name] if name else []
        code, _, err = demo(
            capsys, target, "--ca-file", str(certs.ca), "--token-file", str(token_file), *extra
        )
        assert code == 0, (target, name, err)
    code, _, err = demo(
        capsys,
        address,
        "--ca-file",
        str(certs.ca),
        "--server-name",
        "referee.example.com",  # not a name of the certificate
        "--token-file",
        str(token_file),
    )
    assert code == 1
    one_line_error(err, address, "UNAVAILABLE")
    # The system's CAs do not know the private one.
    code, _, err = demo(capsys, address, "--tls", "--token-file", str(token_file))
    assert code == 1
    one_line_error(err, address, "UNAVAILABLE")


def test_play_scenario_and_health_over_tls(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    tls_server: ServerThread,
    certs: Certs,
    token_file: Path,
) -> None:
    address = tls_server.address
    tls = ["--ca-file", str(certs.ca), "--token-file", str(token_file)]
    code, out, err = quit_at_once(capsys, monkeypatch, address, *tls)
    assert code == 0 and "stopped (quit)" in out, err
    code, out, err = referee(capsys, "scenario", str(SCENARIO), "--address", address, *tls)
    assert code == 0 and out.startswith("ok    "), out + err
    code, out, err = referee(capsys, "health", "--address", address, "--ca-file", str(certs.ca))
    assert code == 0 and out == f"{address}: SERVING\n", err
    code, out, err = referee(capsys, "health", "--address", address)
    assert code == 1 and out == ""
    one_line_error(err, address, "UNAVAILABLE")


def test_tls_with_the_system_roots(tls_server: ServerThread, certs: Certs) -> None:
    """``--tls`` checks the server's certificate against the system's CAs: here the
    test CA, made the system's through gRPC's own variable (in a process of its own:
    gRPC reads it once). Where the system's CAs do not know it, the handshake fails
    with the command's one line on stderr, none of gRPC's own."""
    env = {k: v for k, v in os.environ.items() if k not in ("REFEREE_TOKEN", "GRPC_VERBOSITY")}

    def health(roots: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*REFEREE, "health", "--address", tls_server.address, "--tls"],
            cwd=ROOT,
            env={**env, "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": roots},
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    result = health(str(certs.ca))
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{tls_server.address}: SERVING\n"
    result = health(str(certs.rogue_client_cert))  # a certificate of another CA
    assert result.returncode == 1 and result.stdout == ""
    one_line_error(result.stderr, tls_server.address, "UNAVAILABLE")
    assert "CERTIFICATE_VERIFY_FAILED" in result.stderr


def test_mutual_tls_with_a_client_certificate(
    capsys: pytest.CaptureFixture[str], mtls_server: ServerThread, certs: Certs
) -> None:
    address = mtls_server.address
    ca = ["--ca-file", str(certs.ca)]
    client = ["--cert-file", str(certs.client_cert), "--key-file", str(certs.client_key)]
    code, out, err = referee(capsys, "health", "--address", address, *ca, *client)
    assert code == 0 and out == f"{address}: SERVING\n", err
    code, out, err = demo(capsys, address, *ca, *client)
    assert code == 0, err
    code, _, err = referee(capsys, "health", "--address", address, *ca)
    assert code == 1  # no client certificate: the handshake fails
    one_line_error(err, address, "UNAVAILABLE")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--server-name", "localhost"], "--server-name needs --tls or --ca-file"),
        (["--cert-file", "c.pem"], "--cert-file and --key-file go together"),
        (["--tls", "--key-file", "k.pem"], "--cert-file and --key-file go together"),
        (["--ca-file", "missing.pem"], "--ca-file missing.pem: No such file or directory"),
        (["--ca-file", "README.md"], "--ca-file README.md: holds no PEM certificate"),
    ],
)
def test_tls_options_that_do_not_fit_are_usage_errors(
    capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    for command in (["demo"], ["health"], ["play", "ecarte"], ["scenario", str(SCENARIO)]):
        code, out, err = referee(capsys, *command, "--address", "127.0.0.1:1", *extra)
        assert code == 2 and out == "", (command, err)
        assert err == f"referee: {message}\n", (command, err)


def test_scenario_connection_options_need_an_address(
    capsys: pytest.CaptureFixture[str], token_file: Path
) -> None:
    for extra in (["--tls"], ["--token-file", str(token_file)], ["--ca-file", "ca.pem"]):
        code, out, err = referee(capsys, "scenario", str(SCENARIO), *extra)
        assert code == 2 and out == "", err
        assert err == f"referee: {extra[0]} needs --address (a running server)\n", err


# ------------------------------------------------------------------ errors in one line


def test_scenario_against_a_server_that_refuses_client_seeds_fails_in_one_line(
    capsys: pytest.CaptureFixture[str], strict_server: ServerThread
) -> None:
    """A --require-sealed server draws every seed itself: it refuses a scenario's."""
    address = strict_server.address
    code, out, err = referee(capsys, "scenario", str(SCENARIO), "--address", address)
    assert code == 1 and out == ""
    one_line_error(err, address, "FAILED_PRECONDITION")
    assert "seed" in err


def test_scenario_against_a_sealing_server_sends_the_sealed_states_back(
    capsys: pytest.CaptureFixture[str], sealing_server: ServerThread
) -> None:
    code, out, err = referee(capsys, "scenario", str(SCENARIO), "--address", sealing_server.address)
    assert code == 0 and out.startswith("ok    "), out + err


@pytest.mark.parametrize(
    "command",
    [
        ["demo"],
        ["play", "earl_of_coventry"],
        ["scenario", str(SCENARIO)],
        ["health"],
    ],
)
def test_no_server_is_one_line_and_exit_1(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("q\n"))
    code, out, err = referee(capsys, *command, "--address", "127.0.0.1:1")
    assert code == 1, (command, out, err)
    one_line_error(err, "127.0.0.1:1", "UNAVAILABLE")


class CtrlC(io.StringIO):
    """A terminal where the player presses Ctrl-C at the first question."""

    def readline(self, size: int | None = -1) -> str:
        raise KeyboardInterrupt


def test_ctrl_c_stops_a_client_command_without_a_traceback(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, server: ServerThread
) -> None:
    monkeypatch.setattr("sys.stdin", CtrlC())
    code, _, err = referee(capsys, "play", "ecarte", "--address", server.address)
    assert code == 130 and err == "\nreferee: interrupted\n", err
