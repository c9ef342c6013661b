"""TLS certificates and tokens follow their files, without a restart; files that cannot
be used are refused (logged once) and the last good ones keep serving.

Deterministic: gRPC asks for the certificates before each new connection's handshake, so
each handshake below sees the files as they are then; the tokens file is looked at on
every call here (``reload_seconds=0``), every few seconds in a server."""

from __future__ import annotations

import io
import os
import socket
import ssl
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from referee.auth import TokenSet, _last_good
from referee.server import ServerSettings
from referee.tls import TlsFiles
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from .helpers import Certs, InProcess, captured_logs, log_lines, make_certs


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    """Certificates of a second CA (a renewal from another issuer)."""
    return make_certs(Path(tmp_path_factory.mktemp("other-certs")))


def install(source: Path, target: Path) -> None:
    """Replace ``target`` with ``source``'s contents atomically (as a Kubernetes Secret
    volume or cert-manager does: a new file renamed over the old)."""
    staged = target.with_name(target.name + ".new")
    staged.write_bytes(source.read_bytes())
    os.replace(staged, target)


def presented(port: int) -> bytes:
    """The DER certificate the server presents to a new connection."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(["h2"])
    with (
        socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
        context.wrap_socket(raw) as tls,
    ):
        der = tls.getpeercert(binary_form=True)
    assert der is not None
    return der


def der(pem_file: Path) -> bytes:
    cert = x509.load_pem_x509_certificate(pem_file.read_bytes())
    return cert.public_bytes(serialization.Encoding.DER)


def list_games(channel: grpc.Channel, token: str | None = None) -> pb.ListGamesResponse:
    stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    metadata = (("authorization", f"Bearer {token}"),) if token else None
    return stub.ListGames(pb.ListGamesRequest(), timeout=10, metadata=metadata)


def trusting(certs: Certs, client: Certs | None = None) -> grpc.ChannelCredentials:
    """Credentials trusting ``certs``' CA, with ``client``'s client certificate if given."""
    if client is None:
        return grpc.ssl_channel_credentials(root_certificates=certs.ca.read_bytes())
    return grpc.ssl_channel_credentials(
        root_certificates=certs.ca.read_bytes(),
        private_key=client.client_key.read_bytes(),
        certificate_chain=client.client_cert.read_bytes(),
    )


def renewable(certs: Certs, tmp_path: Path) -> tuple[Path, Path, ServerSettings]:
    """A server's certificate and key files (``certs``' to begin with) and its settings."""
    cert, key = tmp_path / "tls.crt", tmp_path / "tls.key"
    install(certs.server_cert, cert)
    install(certs.server_key, key)
    return cert, key, ServerSettings(host="127.0.0.1", port=0, tls=TlsFiles(cert, key))


def events(out: object) -> list[tuple[str, str]]:
    return [
        (line["event"], line["level"])
        for line in log_lines(out)  # type: ignore[arg-type]
        if line["event"].startswith(("tls_", "auth_tokens_"))
    ]


def test_a_renewed_certificate_serves_new_connections_without_a_restart(
    certs: Certs, other: Certs, tmp_path: Path
) -> None:
    cert, key, settings = renewable(certs, tmp_path)
    with captured_logs() as out, InProcess(settings) as server:
        assert presented(server.port) == der(certs.server_cert)
        old = grpc.secure_channel(server.address, trusting(certs))
        assert list_games(old).games
        # Renewed, by another issuer: new connections get the new certificate ...
        install(other.server_cert, cert)
        install(other.server_key, key)
        assert presented(server.port) == der(other.server_cert)
        with grpc.secure_channel(server.address, trusting(other)) as ch:
            assert list_games(ch).games
        # ... while a connection made before keeps working.
        assert list_games(old).games
        old.close()
        assert events(out) == [("tls_reloaded", "info")]
        line = next(x for x in log_lines(out) if x["event"] == "tls_reloaded")
        assert line["cert"] == str(cert) and line["not_after"]
        assert "BEGIN" not in out.getvalue()  # no certificate or key in the logs


def test_files_that_cannot_be_used_are_refused_and_the_last_good_ones_serve(
    certs: Certs, other: Certs, tmp_path: Path
) -> None:
    cert, key, settings = renewable(certs, tmp_path)
    with captured_logs() as out, InProcess(settings) as server:
        # Half-way through a renewal: the new certificate, the old key.
        install(other.server_cert, cert)
        for _ in range(3):  # refused once, logged once
            assert presented(server.port) == der(certs.server_cert)
        with grpc.secure_channel(server.address, trusting(certs)) as ch:
            assert list_games(ch).games
        assert events(out) == [("tls_reload_refused", "warning")]
        refusal = next(x for x in log_lines(out) if x["event"] == "tls_reload_refused")
        assert "private key" in refusal["error"] and str(key) in refusal["error"]
        # The key file gone, then garbage in the certificate file: still refused.
        key.unlink()
        assert presented(server.port) == der(certs.server_cert)
        (tmp_path / "junk").write_bytes(b"not a certificate")
        install(tmp_path / "junk", cert)
        install(other.server_key, key)
        assert presented(server.port) == der(certs.server_cert)
        assert events(out)[1:] == [("tls_reload_refused", "warning")] * 2
        # The renewal completed: served from the next connection.
        install(other.server_cert, cert)
        assert presented(server.port) == der(other.server_cert)
        with grpc.secure_channel(server.address, trusting(other)) as ch:
            assert list_games(ch).games
        assert events(out)[-1] == ("tls_reloaded", "info")
        assert "BEGIN" not in out.getvalue()


def test_a_renewed_client_ca_decides_new_connections(
    certs: Certs, other: Certs, tmp_path: Path
) -> None:
    ca = tmp_path / "clients-ca.pem"
    install(certs.ca, ca)
    tls = TlsFiles(certs.server_cert, certs.server_key, ca)
    with InProcess(ServerSettings(host="127.0.0.1", port=0, tls=tls)) as server:
        with grpc.secure_channel(server.address, trusting(certs, client=certs)) as ch:
            assert list_games(ch).games
        # The clients move to certificates of the other CA.
        install(other.ca, ca)
        with grpc.secure_channel(server.address, trusting(certs, client=other)) as ch:
            assert list_games(ch).games
        with (
            grpc.secure_channel(server.address, trusting(certs, client=certs)) as ch,
            pytest.raises(grpc.RpcError) as e,
        ):
            list_games(ch)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE


# ------------------------------------------------------------------ tokens

OLD = "old-token-0123456789abcdef"
NEW = "new-token-0123456789abcdef"
FIXED = "fixed-token-from-the-variable"


def accepted(channel: grpc.Channel, token: str) -> bool:
    try:
        list_games(channel, token)
    except grpc.RpcError as e:
        assert e.code() == grpc.StatusCode.UNAUTHENTICATED
        return False
    return True


@contextmanager
def tokens_served(
    tmp_path: Path, first: str, variable: str
) -> Iterator[tuple[Path, io.StringIO, grpc.Channel]]:
    """A server whose tokens come from a file (``first``, also kept as ``v1``; looked at
    on every call) and from the variable's ``variable``: the file, the server's log and
    a channel to it."""
    file = tmp_path / "tokens"
    (tmp_path / "v1").write_text(first)
    install(tmp_path / "v1", file)
    auth = TokenSet.load(file, variable, reload_seconds=0)
    with (
        captured_logs() as out,
        InProcess(ServerSettings(host="127.0.0.1", port=0, auth=auth)) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        yield file, out, ch


def test_tokens_rotate_with_their_file(tmp_path: Path) -> None:
    with tokens_served(tmp_path, f"frontend {OLD}\n", f"ci={FIXED}") as (file, out, ch):
        assert accepted(ch, OLD) and not accepted(ch, NEW) and accepted(ch, FIXED)
        # Rotation: both for a while, then the new one only; the variable's token stays.
        (tmp_path / "v2").write_text(f"frontend {OLD}\nfrontend-next {NEW}\n")
        install(tmp_path / "v2", file)
        assert accepted(ch, OLD) and accepted(ch, NEW) and accepted(ch, FIXED)
        (tmp_path / "v3").write_text(f"frontend-next {NEW}\n")
        install(tmp_path / "v3", file)
        assert not accepted(ch, OLD) and accepted(ch, NEW) and accepted(ch, FIXED)
        # A file that cannot be used: refused once, the last good tokens stay.
        (tmp_path / "bad").write_text("# nothing yet\n")
        install(tmp_path / "bad", file)
        assert accepted(ch, NEW) and accepted(ch, NEW) and not accepted(ch, OLD)
        file.unlink()
        assert accepted(ch, NEW) and accepted(ch, FIXED)
        install(tmp_path / "v1", file)
        assert accepted(ch, OLD) and not accepted(ch, NEW)
    assert events(out) == [
        ("auth_tokens_reloaded", "info"),
        ("auth_tokens_reloaded", "info"),
        ("auth_tokens_reload_refused", "warning"),
        ("auth_tokens_reload_refused", "warning"),
        ("auth_tokens_reloaded", "info"),
    ]
    refusals = [x for x in log_lines(out) if x["event"] == "auth_tokens_reload_refused"]
    assert "holds no token" in refusals[0]["error"]
    assert "No such file" in refusals[1]["error"]
    assert refusals[0]["serving"] == "the last good 2 tokens"
    text = out.getvalue()
    assert OLD[:10] not in text and NEW[:10] not in text and FIXED[:10] not in text


def test_the_tokens_file_is_looked_at_every_few_seconds_at_most(tmp_path: Path) -> None:
    file = tmp_path / "tokens"
    file.write_text(f"{OLD}\n")
    hourly = TokenSet.load(file, reload_seconds=3600)
    never = TokenSet.load(file, reload_seconds=None)
    every = TokenSet.load(file, reload_seconds=0)
    assert hourly is not None and never is not None and every is not None
    (tmp_path / "next").write_text(f"{NEW}\n")
    install(tmp_path / "next", file)
    bearer = (("authorization", f"Bearer {NEW}"),)
    assert hourly.check(bearer) is None and never.check(bearer) is None
    assert every.check(bearer) == "token-1"


def test_after_a_look_the_next_is_a_whole_interval_later(tmp_path: Path) -> None:
    """Once the interval has passed, a call looks at the file; the next look is a whole
    interval after that one, not at every call."""
    import time

    file = tmp_path / "tokens"
    file.write_text(f"{OLD}\n")
    hourly = TokenSet.load(file, reload_seconds=3600)
    assert hourly is not None and hourly._reload is not None
    hourly._reload.due = 0.0  # the hour has passed
    (tmp_path / "next").write_text(f"{NEW}\n")
    install(tmp_path / "next", file)
    assert hourly.check((("authorization", f"Bearer {NEW}"),)) == "token-1"
    assert hourly._reload.due >= time.monotonic() + 3500
    (tmp_path / "next").write_text(f"{OLD}\n")
    install(tmp_path / "next", file)
    assert hourly.check((("authorization", f"Bearer {OLD}"),)) is None  # not looked at yet


def apply_allowed(channel: grpc.Channel, token: str) -> bool:
    """Whether ``token`` may call NewGame (its scope; it must be a valid token)."""
    stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    metadata = (("authorization", f"Bearer {token}"),)
    try:
        stub.NewGame(pb.NewGameRequest(), metadata=metadata, timeout=10)
    except grpc.RpcError as e:
        if e.code() == grpc.StatusCode.INVALID_ARGUMENT:  # no config: admitted, then refused
            return True
        assert e.code() == grpc.StatusCode.PERMISSION_DENIED, e
        return False
    raise AssertionError("a NewGame without a configuration was answered")


def test_a_tokens_methods_follow_its_file(tmp_path: Path) -> None:
    """A changed file changes its tokens' scopes from the next look; a file naming an
    unknown method is refused (logged once, naming its line) and the last good scopes
    stay."""
    first = f"platform {OLD}\nplayers {NEW} @read\n"
    with tokens_served(tmp_path, first, f"ci={FIXED} ListGames") as (file, out, ch):
        assert apply_allowed(ch, OLD) and not apply_allowed(ch, NEW)
        assert accepted(ch, NEW) and not apply_allowed(ch, FIXED)
        # The players' token widened, the platform's narrowed.
        (tmp_path / "v2").write_text(f"platform {OLD} ListGames\nplayers {NEW} @read NewGame\n")
        install(tmp_path / "v2", file)
        assert not apply_allowed(ch, OLD) and apply_allowed(ch, NEW)
        assert accepted(ch, OLD) and not apply_allowed(ch, FIXED)  # the variable's stay
        # A method misspelt: refused, the last good scopes serve.
        (tmp_path / "bad").write_text(f"platform {OLD}\nplayers {NEW} @read NewGam\n")
        install(tmp_path / "bad", file)
        assert not apply_allowed(ch, OLD) and apply_allowed(ch, NEW)
        # Every method again: a line without methods.
        (tmp_path / "v3").write_text(f"platform {OLD}\nplayers {NEW} @read\n")
        install(tmp_path / "v3", file)
        assert apply_allowed(ch, OLD) and not apply_allowed(ch, NEW)
    assert events(out) == [
        ("auth_tokens_reloaded", "info"),
        ("auth_tokens_reload_refused", "warning"),
        ("auth_tokens_reloaded", "info"),
    ]
    reloads = [x for x in log_lines(out) if x["event"].startswith("auth_tokens_")]
    assert [(x.get("tokens"), x.get("limited")) for x in reloads] == [(3, 3), (None, None), (3, 2)]
    assert reloads[1]["error"].startswith(f"{file} line 2: unknown method 'NewGam'")
    refused = [
        x for x in log_lines(out) if x["event"] == "rpc" and x["status"] == "PERMISSION_DENIED"
    ]
    assert [(x["method"], x["client"]) for x in refused] == [
        ("NewGame", "players"),
        ("NewGame", "ci"),
        ("NewGame", "platform"),
        ("NewGame", "ci"),
        ("NewGame", "platform"),
        ("NewGame", "players"),
    ]
    text = out.getvalue()
    assert OLD[:10] not in text and NEW[:10] not in text and FIXED[:10] not in text


def test_a_refused_reload_names_what_keeps_serving_in_good_english() -> None:
    assert _last_good(1) == "the last good token"
    assert _last_good(2) == "the last good 2 tokens"
