"""TLS, mutual TLS, the plaintext health port, and bearer-token authentication."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from referee.auth import DEFAULT_EXEMPT, TokenError, TokenSet, parse_tokens
from referee.server import ServerSettings
from referee.tls import TlsError, TlsFiles
from referee.v1 import common_pb2, referee_pb2_grpc
from referee.v1 import referee_pb2 as pb

from ..status_details import error_info
from .helpers import (
    CONFIG,
    SEED,
    Certs,
    InProcess,
    Served,
    captured_logs,
    log_lines,
    long_replay,
    wait_until,
)

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
    assert parse_tokens(f"# comment\n\n{TOKEN}\nci {OTHER}\n", "f") == [
        ("", TOKEN, None, 0),
        ("ci", OTHER, None, 0),
    ]
    assert parse_tokens(f"a={TOKEN}, {OTHER}", "v", separator=",") == [
        ("a", TOKEN, None, 0),
        ("", OTHER, None, 0),
    ]
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
        assert parse_tokens("t" * length, "f") == [("", "t" * length, None, 0)]
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
    served = Served("--workers", "1", env={"REFEREE_AUTH_TOKENS": f"ci={TOKEN}"})
    try:
        assert served.wait_for("referee_serving")["auth"] == "1 token"
        (warning,) = served.events("auth_without_tls")
        assert warning["level"] == "warning" and "plaintext" in warning["note"]
        assert served.terminate() == 0
    finally:
        served.close()
    assert all(TOKEN not in line for line in served.raw)


# ------------------------------------------------------------------ tokens limited to methods

THIRD = "third-token-0123456789abcdef"
FOURTH = "fourth-token-0123456789abcdef"
SERVICE = "/referee.v1.RefereeService/"
READ = frozenset(SERVICE + m for m in ("ListGames", "ViewState", "LegalActions"))
EVERY = frozenset(
    SERVICE + m
    for m in ("ListGames", "NewGame", "ApplyAction", "LegalActions", "ViewState", "Replay")
)
HEALTH = frozenset("/grpc.health.v1.Health/" + m for m in ("Check", "List", "Watch"))


def bearer(token: str) -> tuple[tuple[str, str], ...]:
    return (("authorization", f"Bearer {token}"),)


def test_a_token_may_be_limited_to_some_methods_in_the_file() -> None:
    """``NAME TOKEN METHODS`` a line: the methods separated by commas, ``+`` or spaces;
    short names, full names (with or without the first ``/``), services, ``@read``.
    Today's lines keep meaning every method."""
    text = (
        f"platform {TOKEN}\n"
        f"players {OTHER} @read\n"
        f"bot {THIRD} ViewState,LegalActions\n"
        f"audit {FOURTH} /referee.v1.RefereeService/Replay, referee.v1.RefereeService/ListGames"
        " + ViewState\n"
        "ops ops-token-0123456789abcdef referee.v1.RefereeService grpc.health.v1.Health\n"
        "0123456789abcdef0123\n"
    )
    assert parse_tokens(text, "f") == [
        ("platform", TOKEN, None, 0),
        ("players", OTHER, READ, 0),
        ("bot", THIRD, READ - {SERVICE + "ListGames"}, 0),
        (
            "audit",
            FOURTH,
            frozenset({SERVICE + "Replay", SERVICE + "ListGames", SERVICE + "ViewState"}),
            0,
        ),
        ("ops", "ops-token-0123456789abcdef", EVERY | HEALTH, 0),
        ("", "0123456789abcdef0123", None, 0),
    ]


def test_a_token_may_be_limited_to_some_methods_in_the_variable() -> None:
    """Commas separate the variable's entries: ``NAME=TOKEN METHOD+METHOD`` (or
    ``NAME TOKEN METHODS``, methods separated by ``+`` or spaces); ``TOKEN`` and
    ``NAME=TOKEN`` keep meaning every method."""
    variable = (
        f"platform={TOKEN}, players={OTHER} @read+NewGame,bot {THIRD} ViewState LegalActions,"
        f" {FOURTH}"
    )
    assert parse_tokens(variable, "REFEREE_AUTH_TOKENS", separator=",") == [
        ("platform", TOKEN, None, 0),
        ("players", OTHER, READ | {SERVICE + "NewGame"}, 0),
        ("bot", THIRD, READ - {SERVICE + "ListGames"}, 0),
        ("", FOURTH, None, 0),
    ]
    tokens = TokenSet.load(None, variable)
    assert tokens is not None and tokens.limited == 2
    assert tokens.describe() == "4 tokens, 2 limited"
    assert TOKEN not in repr(tokens) and OTHER not in repr(tokens)
    players = tokens.grant(bearer(OTHER))
    assert players is not None and players.name == "players"
    assert players.methods == READ | {SERVICE + "NewGame"}
    assert OTHER not in repr(players)
    platform = tokens.grant(bearer(TOKEN))
    assert platform is not None and platform.methods is None  # every method
    from referee.auth import resolve_methods

    assert resolve_methods(["@read"], "x") == READ


def test_an_unknown_method_is_an_error_naming_its_line_or_entry_never_a_token() -> None:
    for text, source, separator, message in (
        (
            f"# tokens\nplayers {OTHER} ViewStat\n",
            "tokens.txt",
            "\n",
            "line 2: unknown method 'ViewStat'",
        ),
        (
            f"players={OTHER} @read+Apply",
            "REFEREE_AUTH_TOKENS",
            ",",
            "entry 1: unknown method 'Apply'",
        ),
        (
            f"p {OTHER} /referee.v1.RefereeService/ViewStat",
            "f",
            "\n",
            "'/referee.v1.RefereeService/ViewStat'",
        ),
        (f"p {OTHER} @Read", "f", "\n", "'@Read'"),
        (f"p {OTHER} Check", "f", "\n", "'Check'"),  # health's, by its full name only
        (f"p {OTHER} referee.v1.Referee", "f", "\n", "'referee.v1.Referee'"),
        # A token where a method should be (two tokens on a line): not shown.
        (
            f"p {OTHER} {TOKEN}",
            "f",
            "\n",
            "line 1: unknown method a name of 33 characters (not shown",
        ),
        (f"p {OTHER} , +", "f", "\n", "line 1: no method named after the token"),
        (f"p={OTHER} +", "V", ",", "V entry 1: no method named after the token"),
    ):
        with pytest.raises(TokenError) as e:
            parse_tokens(text, source, separator=separator)
        assert message in str(e.value), (text, str(e.value))
        assert str(e.value).startswith(source)
        assert OTHER not in str(e.value) and TOKEN not in str(e.value)
    # The error says what a method may be.
    with pytest.raises(TokenError, match=r"ListGames, NewGame, ApplyAction.*@read.*grpc\.health"):
        parse_tokens(f"p {OTHER} Apply", "f")
    # A limited token needs a name: a scope after a bare token reads as NAME TOKEN.
    with pytest.raises(TokenError, match="16 to 4096 characters"):
        parse_tokens(f"{OTHER} @read", "f")


def test_the_same_token_twice_needs_the_same_methods() -> None:
    """Listed twice alike, a token is kept once (under its first name); with other
    methods it is an error naming both names (which one would hold is unclear)."""
    same = TokenSet.load(None, f"a={TOKEN} @read,b={TOKEN} ListGames+ViewState+LegalActions")
    assert same is not None and len(same) == 1 and same.check(bearer(TOKEN)) == "a"
    with pytest.raises(TokenError) as e:
        TokenSet.load(None, f"a={TOKEN},b={TOKEN} @read")
    assert str(e.value) == "token b: the same token as a, with other methods (list a token once)"
    with pytest.raises(TokenError, match="token c: unknown method 'Nope'"):
        TokenSet([("c", TOKEN, ["Nope"])])


def test_a_read_token_is_refused_every_other_method() -> None:
    """A players' client's token (``@read``) reads states (ListGames, ViewState,
    LegalActions) and nothing else: ApplyAction, NewGame and Replay are refused
    PERMISSION_DENIED (reason METHOD_NOT_ALLOWED), decided before the request is read,
    each logged as a warning with the token's name and the peer. The platform's token
    calls every method; health and reflection need no token."""
    auth = TokenSet([("platform", TOKEN), ("players", OTHER, ["@read"])])
    platform, player = bearer(TOKEN), bearer(OTHER)
    with (
        captured_logs() as out,
        InProcess(ServerSettings(host="127.0.0.1", port=0, auth=auth)) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
        game = stub.NewGame(pb.NewGameRequest(config=CONFIG), metadata=platform, timeout=10)
        state = game.state
        assert stub.ListGames(pb.ListGamesRequest(), metadata=player, timeout=10).games
        seat = state.earl_of_coventry.turn
        view = stub.ViewState(
            pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=seat)),
            metadata=player,
            timeout=10,
        )
        assert view.view.earl_of_coventry.seats[seat].hand
        actions = stub.LegalActions(
            pb.LegalActionsRequest(state=state), metadata=player, timeout=10
        ).actions
        refused = {
            "ApplyAction": lambda: stub.ApplyAction(
                pb.ApplyActionRequest(state=state, action=actions[0]), metadata=player, timeout=10
            ),
            "NewGame": lambda: stub.NewGame(
                pb.NewGameRequest(config=CONFIG, seed=SEED), metadata=player, timeout=10
            ),
            "Replay": lambda: stub.Replay(long_replay(3), metadata=player, timeout=10),
            # Not even read: a body that does not parse is refused alike.
            "ApplyAction (garbage)": lambda: ch.unary_unary(SERVICE + "ApplyAction")(
                b"\xff\xff\xff", metadata=player, timeout=10
            ),
        }
        for name, call in refused.items():
            with pytest.raises(grpc.RpcError) as e:
                call()
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED, name
            method = SERVICE + name.split()[0]
            assert method in (e.value.details() or "")
            info = error_info(e.value)
            assert (info.domain, info.reason, dict(info.metadata)) == (
                "referee.v1",
                "METHOD_NOT_ALLOWED",
                {"method": method},
            )
            assert "x-request-id" in dict(e.value.trailing_metadata() or ())  # type: ignore[attr-defined]
        # The platform's token may call every method.
        reply = stub.ApplyAction(
            pb.ApplyActionRequest(state=state, action=actions[0]), metadata=platform, timeout=10
        )
        assert reply.verdict == common_pb2.VERDICT_ACCEPTED
        # Health and reflection stay exempt.
        assert health_status(ch) == health_pb2.HealthCheckResponse.SERVING
        assert "referee.v1.RefereeService" in ProtoReflectionDescriptorDatabase(ch).get_services()
    lines = [e for e in log_lines(out) if e.get("event") == "rpc" and e["method"] in EVERY_SHORT]
    assert [(e["method"], e["status"], e.get("client")) for e in lines] == [
        ("NewGame", "OK", "platform"),
        ("ListGames", "OK", "players"),
        ("ViewState", "OK", "players"),
        ("LegalActions", "OK", "players"),
        ("ApplyAction", "PERMISSION_DENIED", "players"),
        ("NewGame", "PERMISSION_DENIED", "players"),
        ("Replay", "PERMISSION_DENIED", "players"),
        ("ApplyAction", "PERMISSION_DENIED", "players"),
        ("ApplyAction", "OK", "platform"),
    ]
    for line in lines:
        if line["status"] == "PERMISSION_DENIED":
            assert line["level"] == "warning" and line["auth_refusal"] == "METHOD_NOT_ALLOWED"
            assert line["peer"].startswith(("ipv4:127.0.0.1:", "ipv6:")), line
            assert "verdict" not in line and "game" not in line  # never reached the referee
        else:
            assert line["level"] == "info" and "peer" not in line and "auth_refusal" not in line
    text = out.getvalue()
    assert TOKEN[:12] not in text and OTHER[:12] not in text


EVERY_SHORT = {m.rsplit("/", 1)[1] for m in EVERY}


def reflection_services(ch: grpc.Channel, metadata: tuple[tuple[str, str], ...]) -> list[str]:
    info = ch.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
        request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
        response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
    )
    request = reflection_pb2.ServerReflectionRequest(list_services="")
    replies = info(iter([request]), metadata=metadata, timeout=10)
    return [s.name for reply in replies for s in reply.list_services_response.service]


def test_services_that_need_a_token_are_limited_too() -> None:
    """Without exemptions, health and reflection need a token like the rest, and a
    limited token reaches them only if it names them: a streaming method (reflection)
    is refused with the same reason."""
    auth = TokenSet(
        [
            ("players", OTHER, ["@read"]),
            ("probe", TOKEN, ["grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection"]),
        ],
        exempt=(),
    )
    players, probe = bearer(OTHER), bearer(TOKEN)
    with (
        captured_logs() as out,
        InProcess(ServerSettings(host="127.0.0.1", port=0, auth=auth)) as server,
        grpc.insecure_channel(server.address) as ch,
    ):
        assert health_status(ch, metadata=probe) == health_pb2.HealthCheckResponse.SERVING
        assert "referee.v1.RefereeService" in reflection_services(ch, probe)
        assert list_games(ch, metadata=players).games
        for call, method in (
            (lambda: health_status(ch, metadata=players), "/grpc.health.v1.Health/Check"),
            (
                lambda: reflection_services(ch, players),
                "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            ),
            (lambda: list_games(ch, metadata=probe), SERVICE + "ListGames"),
        ):
            with pytest.raises(grpc.RpcError) as e:
                call()
            assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED, method
            info = error_info(e.value)
            assert (info.reason, info.metadata["method"]) == ("METHOD_NOT_ALLOWED", method)
    lines = [e for e in log_lines(out) if e.get("event") == "rpc"]
    # Health's refused Check has its line (a warning); reflection, streaming, has none.
    assert [(e["method"], e["status"], e["client"]) for e in lines if e["status"] != "OK"] == [
        ("Check", "PERMISSION_DENIED", "players"),
        ("ListGames", "PERMISSION_DENIED", "probe"),
    ]


@pytest.mark.parametrize("engine", ["asyncio", "threads"])
def test_limited_tokens_with_two_workers(engine: str) -> None:
    """``referee serve --workers 2`` on each engine, the tokens from the variable: each
    worker refuses a read-only token what it may not call, and says how many tokens are
    limited at start-up."""
    tokens = f"platform={TOKEN},players={OTHER} @read"
    served = Served("--workers", "2", "--engine", engine, env={"REFEREE_AUTH_TOKENS": tokens})
    try:
        started = [served.wait_for("referee_serving", worker=w) for w in (0, 1)]
        assert [line["auth"] for line in started] == ["2 tokens, 1 limited"] * 2
        assert {line["engine"] for line in started} == {engine}
        address = f"127.0.0.1:{started[0]['port']}"

        def refused_by_both() -> bool:
            # A connection of its own each time, so that the calls spread over the workers.
            options = [("grpc.use_local_subchannel_pool", 1)]
            with grpc.insecure_channel(address, options=options) as ch:
                stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
                assert stub.ListGames(pb.ListGamesRequest(), metadata=bearer(OTHER), timeout=10)
                with pytest.raises(grpc.RpcError) as e:
                    stub.NewGame(
                        pb.NewGameRequest(config=CONFIG), metadata=bearer(OTHER), timeout=10
                    )
                assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
                assert error_info(e.value).reason == "METHOD_NOT_ALLOWED"
                assert stub.NewGame(
                    pb.NewGameRequest(config=CONFIG), metadata=bearer(TOKEN), timeout=10
                )
            workers = {
                e["worker"]
                for e in served.events("rpc")
                if e["status"] == "PERMISSION_DENIED" and e.get("client") == "players"
            }
            return workers == {0, 1}

        wait_until(refused_by_both, "a refusal by each worker")
        assert served.terminate() == 0
    finally:
        served.close()
    assert all(TOKEN not in line and OTHER not in line for line in served.raw)


def test_an_unknown_method_stops_start_up_naming_its_source(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``referee serve`` exits 2 on a tokens file or variable naming an unknown method,
    with the file's line or the variable's entry, never the token; good scopes start."""
    from referee import cli

    def serve(argv: list[str], variable: str = "") -> object:
        monkeypatch.delenv("REFEREE_AUTH_TOKENS_FILE", raising=False)
        monkeypatch.setenv("REFEREE_AUTH_TOKENS", variable)
        args = cli._parser().parse_args(["serve", *argv])
        return cli._settings(args.serve_parser, args)

    file = tmp_path / "tokens.txt"
    file.write_text(f"platform {TOKEN}\nplayers {OTHER} @read Apply\n")
    with pytest.raises(SystemExit) as e:
        serve(["--auth-tokens-file", str(file)])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert f"--auth-tokens-file: {file} line 2: unknown method 'Apply'" in err, err
    with pytest.raises(SystemExit) as e:
        serve([], f"platform={TOKEN},players={OTHER} @read+Apply")
    assert e.value.code == 2
    err += capsys.readouterr().err
    assert "REFEREE_AUTH_TOKENS entry 2: unknown method 'Apply'" in err, err
    with pytest.raises(SystemExit) as e:
        serve([], f"platform={TOKEN},players={TOKEN} @read")
    twice = capsys.readouterr().err
    assert twice.endswith(
        "authentication tokens: token players: the same token as platform, with other "
        "methods (list a token once)\n"
    ), twice
    assert TOKEN not in err + twice and OTHER not in err
    file.write_text(f"platform {TOKEN}\nplayers {OTHER} @read\n")
    settings = serve(["--auth-tokens-file", str(file)], f"bot={THIRD} ViewState+LegalActions")
    auth = getattr(settings, "auth", None)
    assert isinstance(auth, TokenSet) and auth.describe() == "3 tokens, 2 limited"
