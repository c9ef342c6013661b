"""TLS, mutual TLS, the plaintext health port, and bearer-token authentication."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from referee.auth import DEFAULT_EXEMPT, TokenError, TokenSet, parse_tokens
from referee.server import ServerSettings
from referee.tls import TlsError, TlsFiles
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from .helpers import Certs, InProcess, captured_logs, log_lines

TOKEN = "s3cret-token-for-tests-0123456789"
OTHER = "another-valid-token-abcdefghijk"


def list_games(channel: grpc.Channel, **kwargs: object) -> pb.ListGamesResponse:
    stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    return stub.ListGames(pb.ListGamesRequest(), timeout=10, **kwargs)


def health_status(channel: grpc.Channel, **kwargs: object) -> int:
    stub = health_pb2_grpc.HealthStub(channel)
    return int(stub.Check(health_pb2.HealthCheckRequest(), timeout=10, **kwargs).status)


# ------------------------------------------------------------------ TLS


def test_tls_handshake_and_plaintext_health_port(certs: Certs) -> None:
    tls = TlsFiles(certs.server_cert, certs.server_key)
    settings = ServerSettings(
        host="127.0.0.1", port=0, tls=tls, health_host="127.0.0.1", health_port=0
    )
    with InProcess(settings) as server:
        creds = grpc.ssl_channel_credentials(root_certificates=certs.ca.read_bytes())
        with grpc.secure_channel(server.address, creds) as ch:
            assert list_games(ch).games
        # A plaintext client cannot talk to the TLS port ...
        with grpc.insecure_channel(server.address) as ch, pytest.raises(grpc.RpcError) as e:
            list_games(ch)
        assert e.value.code() == grpc.StatusCode.UNAVAILABLE
        # ... but probes reach the health service on the plaintext health port, which
        # serves nothing else.
        with grpc.insecure_channel(server.health_address) as ch:
            assert health_status(ch) == health_pb2.HealthCheckResponse.SERVING
            with pytest.raises(grpc.RpcError) as e:
                list_games(ch)
            assert e.value.code() == grpc.StatusCode.UNIMPLEMENTED


def test_mutual_tls_accepts_the_trusted_client_only(certs: Certs) -> None:
    tls = TlsFiles(certs.server_cert, certs.server_key, certs.ca)
    with InProcess(ServerSettings(host="127.0.0.1", port=0, tls=tls)) as server:
        ca = certs.ca.read_bytes()
        trusted = grpc.ssl_channel_credentials(
            root_certificates=ca,
            private_key=certs.client_key.read_bytes(),
            certificate_chain=certs.client_cert.read_bytes(),
        )
        with grpc.secure_channel(server.address, trusted) as ch:
            assert list_games(ch).games
        rogue = grpc.ssl_channel_credentials(
            root_certificates=ca,
            private_key=certs.rogue_client_key.read_bytes(),
            certificate_chain=certs.rogue_client_cert.read_bytes(),
        )
        none = grpc.ssl_channel_credentials(root_certificates=ca)
        for creds in (rogue, none):
            with (
                grpc.secure_channel(server.address, creds) as ch,
                pytest.raises(grpc.RpcError) as e,
            ):
                list_games(ch)
            assert e.value.code() == grpc.StatusCode.UNAVAILABLE


def test_tls_files_are_checked(certs: Certs, tmp_path: Path) -> None:
    TlsFiles(certs.server_cert, certs.server_key, certs.ca).check()
    with pytest.raises(TlsError, match="private key"):
        TlsFiles(certs.server_cert, certs.client_key).check()  # a key of another certificate
    missing = certs.server_cert.with_name("missing.pem")
    with pytest.raises(TlsError) as refused:
        TlsFiles(missing, certs.server_key).check()
    assert str(refused.value) == f"TLS certificate {missing}: No such file or directory"
    with pytest.raises(TlsError, match="CA"):
        TlsFiles(certs.server_cert, certs.server_key, certs.server_key).check()
    with pytest.raises(TlsError, match="no PEM certificate"):
        TlsFiles(certs.server_key, certs.server_key).check()
    # A key under a passphrase cannot serve (nothing would type it): refused, not prompted.
    from cryptography.hazmat.primitives import serialization

    key = serialization.load_pem_private_key(certs.server_key.read_bytes(), None)
    locked = tmp_path / "locked.key"
    locked.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(b"passphrase"),
        )
    )
    with pytest.raises(TlsError, match="unencrypted"):
        TlsFiles(certs.server_cert, locked).check()


# ------------------------------------------------------------------ tokens


def test_tokens_missing_wrong_and_right() -> None:
    auth = TokenSet([("frontend", TOKEN), ("", OTHER)])
    with (
        captured_logs() as out,
        InProcess(ServerSettings(host="127.0.0.1", port=0, auth=auth)) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        for metadata in (
            None,
            (("authorization", "Bearer wrong-token-0123456789abcdef"),),
            (("authorization", f"Basic {TOKEN}"),),
            (("authorization", f"Bearer {TOKEN[:-1]}"),),
            (("authorization", f"Bearer {TOKEN}x"),),
        ):
            with pytest.raises(grpc.RpcError) as e:
                list_games(ch, metadata=metadata)
            assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
            assert "bearer token" in (e.value.details() or "")
        assert list_games(ch, metadata=(("authorization", f"Bearer {TOKEN}"),)).games
        assert list_games(ch, metadata=(("authorization", f"bearer {OTHER}"),)).games
        # Health and reflection need no token (probes, grpcurl).
        assert health_status(ch) == health_pb2.HealthCheckResponse.SERVING
        services = ProtoReflectionDescriptorDatabase(ch).get_services()
        assert "referee.v1.RefereeService" in services
    lines = [e for e in log_lines(out) if e.get("event") == "rpc"]
    assert [e["status"] for e in lines if e["method"] == "ListGames"] == ["UNAUTHENTICATED"] * 5 + [
        "OK",
        "OK",
    ]
    assert [e.get("client") for e in lines if e["status"] == "OK"] == ["frontend", "token-2"]
    # A refused call names its peer (to trace repeated attempts); an answered one does not.
    refused = [e for e in lines if e["status"] == "UNAUTHENTICATED"]
    assert all(e["peer"].startswith(("ipv4:127.0.0.1:", "ipv6:")) for e in refused), refused
    assert not [e for e in lines if e["status"] == "OK" and "peer" in e]
    text = out.getvalue()
    assert TOKEN[:12] not in text and OTHER[:12] not in text  # never logged


def test_at_log_level_warning_refused_calls_are_logged_and_answered_ones_not() -> None:
    """--log-level warning: the per-RPC line of a call refused UNAUTHENTICATED is a
    warning and written (with its peer); answered calls write none (docs/operations.md,
    Logs)."""
    auth = TokenSet([("frontend", TOKEN)])
    with (
        captured_logs("warning") as out,
        InProcess(ServerSettings(host="127.0.0.1", port=0, auth=auth)) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        assert list_games(ch, metadata=(("authorization", f"Bearer {TOKEN}"),)).games
        with pytest.raises(grpc.RpcError) as e:
            list_games(ch, metadata=None)
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        assert list_games(ch, metadata=(("authorization", f"Bearer {TOKEN}"),)).games
    lines = [e for e in log_lines(out) if e.get("event") == "rpc"]
    assert [(e["method"], e["status"], e["level"]) for e in lines] == [
        ("ListGames", "UNAUTHENTICATED", "warning")
    ]
    assert lines[0]["peer"]


def test_exemptions_are_configurable() -> None:
    auth = TokenSet([("", TOKEN)], exempt=())
    with (
        InProcess(ServerSettings(host="127.0.0.1", port=0, auth=auth)) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        with pytest.raises(grpc.RpcError) as e:
            health_status(ch)
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        with pytest.raises(grpc.RpcError) as e:
            ProtoReflectionDescriptorDatabase(ch).get_services()
        assert e.value.code() == grpc.StatusCode.UNAUTHENTICATED
        bearer = (("authorization", f"Bearer {TOKEN}"),)
        assert health_status(ch, metadata=bearer) == health_pb2.HealthCheckResponse.SERVING


def test_token_sources_are_validated(tmp_path: Path) -> None:
    assert parse_tokens(f"# comment\n\n{TOKEN}\nci {OTHER}\n", "f") == [("", TOKEN), ("ci", OTHER)]
    assert parse_tokens(f"a={TOKEN}, {OTHER}", "v", separator=",") == [("a", TOKEN), ("", OTHER)]
    for bad in ("short", f"a b {TOKEN}", f"bad name! {TOKEN}", "tök" * 10):
        with pytest.raises(TokenError) as e:
            parse_tokens(bad, "f")
        assert TOKEN not in str(e.value)
    empty = tmp_path / "empty"
    empty.write_text("# nothing\n")
    with pytest.raises(TokenError, match="holds no token"):
        TokenSet.load(empty)
    assert TokenSet.load(None, "") is None
    tokens = TokenSet.load(None, f"{TOKEN},{TOKEN}")
    assert tokens is not None and len(tokens) == 1
    assert TOKEN not in repr(tokens)
    assert tokens.is_exempt("/grpc.health.v1.Health/Check")
    assert not tokens.is_exempt("/referee.v1.RefereeService/ListGames")
    assert set(DEFAULT_EXEMPT) >= {"grpc.health.v1.Health"}


def test_token_lengths_and_where_a_bad_entry_is() -> None:
    """Tokens of 16 to 4096 characters; an error names the file's line or the
    variable's entry, counted from 1 (blank lines and comments count)."""
    for length in (16, 4096):
        assert parse_tokens("t" * length, "f") == [("", "t" * length)]
    for length in (15, 4097):
        with pytest.raises(TokenError, match="16 to 4096 characters"):
            parse_tokens("t" * length, "f")
    with pytest.raises(TokenError, match=r"^tokens\.txt line 3: "):
        parse_tokens(f"# first\n{TOKEN}\nshort\n", "tokens.txt")
    with pytest.raises(TokenError, match=r"^REFEREE_AUTH_TOKENS entry 2: "):
        parse_tokens(f"{TOKEN},short", "REFEREE_AUTH_TOKENS", separator=",")


def test_an_exemption_names_a_service_or_one_method() -> None:
    by_method = TokenSet([("", TOKEN)], exempt=("referee.v1.RefereeService/ListGames",))
    assert by_method.is_exempt("/referee.v1.RefereeService/ListGames")
    assert not by_method.is_exempt("/referee.v1.RefereeService/ApplyAction")
    by_service = TokenSet([("", TOKEN)], exempt=("referee.v1.RefereeService",))
    assert by_service.is_exempt("/referee.v1.RefereeService/ApplyAction")
    assert not by_service.is_exempt("/grpc.health.v1.Health/Check")


def test_tokens_without_tls_are_warned_about_at_start_up() -> None:
    """Bearer tokens over plaintext are allowed (TLS may end in front of the server)
    but said once at start-up; the token itself is never in the log."""
    from .helpers import Served

    served = Served("--workers", "1", env={"REFEREE_AUTH_TOKENS": f"ci={TOKEN}"})
    try:
        assert served.wait_for("referee_serving")["auth"] == "1 tokens"
        (warning,) = served.events("auth_without_tls")
        assert warning["level"] == "warning" and "plaintext" in warning["note"]
        assert served.terminate() == 0
    finally:
        served.close()
    assert all(TOKEN not in line for line in served.raw)
