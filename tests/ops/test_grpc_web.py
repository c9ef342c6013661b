"""The gRPC-Web gateway (``referee grpc-web``, referee/grpcweb.py) in front of a real
server: calls as a browser's gRPC-Web client sends them (raw HTTP/1.1 here; Connect's
web transport in clients/typescript/test/grpcweb.test.ts), answers framed as the
gRPC-Web protocol says, statuses and details passed through, the gateway's own
refusals, CORS, limits, HTTPS and a graceful stop.
"""

from __future__ import annotations

import base64
import contextlib
import http.client
import os
import re
import socket
import ssl
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2, status_pb2
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.auth import TokenSet
from referee.grpcweb import Gateway, GatewaySettings, decode_text, parse_timeout, unary_methods
from referee.server import ServerSettings
from referee.v1 import common_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb
from referee.v1.referee_pb2_grpc import RefereeServiceStub

from ..server_thread import ServerThread
from .helpers import make_certs, sample, scrape, wait_until

SERVICE = "/referee.v1.RefereeService/"
ORIGIN = "https://play.example.com"
TOKEN = "grpc-web-token-0123456789abcdef"
SEAL_KEY = ("web-k1", bytes(range(32)))
CONFIG = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3))
SEED = bytes(range(32))


def _server(**more: Any) -> ServerThread:
    return ServerThread(ServerSettings(host="127.0.0.1", port=0, grace_seconds=1, **more))


def _gateway(target: ServerThread, **more: Any) -> Gateway:
    options: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "grace_seconds": 2, **more}
    gateway = Gateway(GatewaySettings(target=target.address, **options))
    gateway.start()
    return gateway


@pytest.fixture(scope="module")
def server() -> Iterator[ServerThread]:
    s = _server().start()
    yield s
    s.stop()


@pytest.fixture(scope="module")
def gateway(server: ServerThread) -> Iterator[Gateway]:
    g = _gateway(server, allow_origins=(ORIGIN,))
    yield g
    g.stop()


class Reply:
    """An HTTP answer read as gRPC-Web: the message frames, the trailers (from the
    trailer frame, or from the headers of a trailers-only answer)."""

    def __init__(self, status: int, headers: dict[str, str], body: bytes, text: bool) -> None:
        self.status = status
        self.headers = headers
        self.body = body
        self.messages: list[bytes] = []
        self.trailers: dict[str, str] = {}
        if status != 200:
            return
        data = base64.b64decode(body) if text and body else body
        while data:
            flag, length = data[0], int.from_bytes(data[1:5], "big")
            payload, data = data[5 : 5 + length], data[5 + length :]
            assert len(payload) == length, "a truncated frame"
            if flag & 0x80:
                assert not self.trailers, "two trailer frames"
                for line in payload.decode("latin-1").split("\r\n"):
                    if line:
                        key, _, value = line.partition(":")
                        self.trailers[key.strip()] = value.strip()
            else:
                assert flag == 0 and not self.trailers, "a message after the trailers"
                self.messages.append(payload)
        if not self.trailers:  # trailers-only
            assert not self.messages
            self.trailers = {k: v for k, v in headers.items() if k.startswith("grpc-")}
            if "x-request-id" in headers:
                self.trailers["x-request-id"] = headers["x-request-id"]

    @property
    def code(self) -> int:
        return int(self.trailers["grpc-status"])

    def details(self) -> status_pb2.Status:
        raw = self.trailers["grpc-status-details-bin"]
        return status_pb2.Status.FromString(base64.b64decode(raw + "=" * (-len(raw) % 4)))


def post(
    port: int,
    path: str,
    message: bytes | None,
    *,
    text: bool = False,
    headers: dict[str, str] | None = None,
    body: bytes | None = None,
    content_type: str | None = None,
    context: ssl.SSLContext | None = None,
) -> Reply:
    if body is None:
        assert message is not None
        body = b"\x00" + len(message).to_bytes(4, "big") + message
        if text:
            body = base64.b64encode(body)
    if content_type is None:
        content_type = "application/grpc-web-text" if text else "application/grpc-web+proto"
    if context is None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    else:
        conn = http.client.HTTPSConnection("localhost", port, timeout=30, context=context)
    try:
        conn.request("POST", path, body, {"Content-Type": content_type, **(headers or {})})
        r = conn.getresponse()
        data = r.read()
        return Reply(r.status, {k.lower(): v for k, v in r.getheaders()}, data, text)
    finally:
        conn.close()


def call(port: int, method: str, request: Any, **kw: Any) -> Reply:
    return post(port, SERVICE + method, request.SerializeToString(), **kw)


# ------------------------------------------------------------------ calls


def test_the_gateway_forwards_the_unary_methods_only() -> None:
    referee = {m for m in unary_methods() if m.startswith(SERVICE)}
    assert referee == {
        SERVICE + m
        for m in ("ListGames", "NewGame", "ApplyAction", "LegalActions", "ViewState", "Replay")
    }
    health = unary_methods() - referee
    assert "/grpc.health.v1.Health/Check" in health
    assert "/grpc.health.v1.Health/Watch" not in health  # streaming
    assert all(m.startswith("/grpc.health.v1.Health/") for m in health)


@pytest.mark.parametrize("text", [False, True], ids=["binary", "text"])
def test_a_game_through_the_gateway_gets_the_servers_own_answers(
    server: ServerThread, gateway: Gateway, text: bool
) -> None:
    """Every answer is, byte for byte, what the server answers a gRPC client."""
    with grpc.insecure_channel(server.address) as channel:
        stub = RefereeServiceStub(channel)
        games = call(gateway.port, "ListGames", pb.ListGamesRequest(), text=text)
        assert games.status == 200 and games.code == 0
        assert games.headers["content-type"] == (
            "application/grpc-web-text+proto" if text else "application/grpc-web+proto"
        )
        assert [pb.ListGamesResponse.FromString(m) for m in games.messages] == [
            stub.ListGames(pb.ListGamesRequest())
        ]
        assert games.trailers["x-request-id"]
        new = pb.NewGameRequest(config=CONFIG, seed=SEED, views=[common_pb2.Viewer(seat=0)])
        started = call(gateway.port, "NewGame", new, text=text)
        assert started.messages == [stub.NewGame(new).SerializeToString(deterministic=True)]
        state = pb.NewGameResponse.FromString(started.messages[0]).state
        for _ in range(5):
            legal = call(gateway.port, "LegalActions", pb.LegalActionsRequest(state=state))
            action = pb.LegalActionsResponse.FromString(legal.messages[0]).actions[0]
            request = pb.ApplyActionRequest(state=state, action=action)
            applied = call(gateway.port, "ApplyAction", request, text=text)
            assert applied.code == 0
            direct = stub.ApplyAction(request)
            assert applied.messages == [direct.SerializeToString(deterministic=True)]
            assert direct.verdict == common_pb2.VERDICT_ACCEPTED
            state = direct.state


def test_a_servers_error_keeps_its_status_message_and_details(gateway: Gateway) -> None:
    reply = call(gateway.port, "ApplyAction", pb.ApplyActionRequest())
    assert reply.status == 200 and reply.messages == []  # trailers-only
    assert reply.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "state" in reply.trailers["grpc-message"]
    details = reply.details()
    assert details.code == reply.code
    bad = error_details_pb2.BadRequest()
    assert details.details[0].Unpack(bad)
    assert bad.field_violations[0].field == "state"
    assert reply.trailers["x-request-id"]


def test_rejected_actions_are_verdicts_not_errors(gateway: Gateway) -> None:
    started = call(gateway.port, "NewGame", pb.NewGameRequest(config=CONFIG, seed=SEED))
    state = pb.NewGameResponse.FromString(started.messages[0]).state
    legal = call(gateway.port, "LegalActions", pb.LegalActionsRequest(state=state))
    action = pb.LegalActionsResponse.FromString(legal.messages[0]).actions[0]
    action.actor.seat = (action.actor.seat + 1) % 3
    reply = call(gateway.port, "ApplyAction", pb.ApplyActionRequest(state=state, action=action))
    assert reply.code == 0
    answer = pb.ApplyActionResponse.FromString(reply.messages[0])
    assert answer.verdict == common_pb2.VERDICT_REJECTED and answer.violations


def test_health_check_through_the_gateway(gateway: Gateway) -> None:
    from grpc_health.v1 import health_pb2

    reply = post(
        gateway.port,
        "/grpc.health.v1.Health/Check",
        health_pb2.HealthCheckRequest().SerializeToString(),
    )
    assert reply.code == 0
    status = health_pb2.HealthCheckResponse.FromString(reply.messages[0]).status
    assert status == health_pb2.HealthCheckResponse.SERVING


def test_headers_forwarded_are_the_token_request_id_and_trace() -> None:
    """A server with tokens: the caller's own ``authorization`` is what the server
    checks; ``x-request-id`` is the caller's."""
    with _server(auth=TokenSet([("web", TOKEN)])) as secured:
        gateway = _gateway(secured)
        try:
            without = call(gateway.port, "ListGames", pb.ListGamesRequest())
            assert without.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
            wrong = call(
                gateway.port,
                "ListGames",
                pb.ListGamesRequest(),
                headers={"Authorization": "Bearer not-the-token"},
            )
            assert wrong.code == grpc.StatusCode.UNAUTHENTICATED.value[0]
            ok = call(
                gateway.port,
                "ListGames",
                pb.ListGamesRequest(),
                headers={
                    "Authorization": f"Bearer {TOKEN}",
                    "X-Request-Id": "web-call-42",
                    "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
                },
            )
            assert ok.code == 0 and ok.trailers["x-request-id"] == "web-call-42"
        finally:
            gateway.stop()


def test_sealed_states_and_seat_credentials_through_the_gateway() -> None:
    """What a browser holds on a strict server: the token and its seat's credential."""
    with _server(seal_keys=(SEAL_KEY,), require_sealed=True) as strict:
        gateway = _gateway(strict)
        try:
            new = pb.NewGameRequest(config=CONFIG, seat_entropy=[b"a", b"b", b"c"])
            started = pb.NewGameResponse.FromString(call(gateway.port, "NewGame", new).messages[0])
            assert started.sealed_state and not started.HasField("state")
            mine = common_pb2.Viewer(seat=1, credential=started.seat_credentials[1])
            view = call(
                gateway.port,
                "ViewState",
                pb.ViewStateRequest(sealed_state=started.sealed_state, viewer=mine),
            )
            assert view.code == 0
            seen = pb.ViewStateResponse.FromString(view.messages[0]).view.earl_of_coventry
            assert seen.seats[1].hand and not seen.seats[2].hand
            theirs = common_pb2.Viewer(seat=2, credential=started.seat_credentials[1])
            refused = call(
                gateway.port,
                "ViewState",
                pb.ViewStateRequest(sealed_state=started.sealed_state, viewer=theirs),
            )
            assert refused.code == grpc.StatusCode.PERMISSION_DENIED.value[0]
            info = error_details_pb2.ErrorInfo()
            assert any(d.Unpack(info) for d in refused.details().details)
            assert info.reason == "SEAT_CREDENTIAL_INVALID"
        finally:
            gateway.stop()


# ------------------------------------------------------------------ the gateway's own answers


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"", grpc.StatusCode.INVALID_ARGUMENT),  # no frame
        (b"\x00\x00\x00", grpc.StatusCode.INVALID_ARGUMENT),  # half a header
        (b"\x00\x00\x00\x00\x05ab", grpc.StatusCode.INVALID_ARGUMENT),  # short
        (b"\x00\x00\x00\x00\x00" * 2, grpc.StatusCode.INVALID_ARGUMENT),  # two messages
        (b"\x01\x00\x00\x00\x00", grpc.StatusCode.UNIMPLEMENTED),  # compressed
        (b"\x80\x00\x00\x00\x00", grpc.StatusCode.INVALID_ARGUMENT),  # trailers
        (b"\x02\x00\x00\x00\x00", grpc.StatusCode.INVALID_ARGUMENT),  # unknown flag
    ],
)
def test_bodies_that_are_not_one_message_frame(
    gateway: Gateway, body: bytes, code: grpc.StatusCode
) -> None:
    reply = post(gateway.port, SERVICE + "ListGames", None, body=body)
    assert reply.status == 200 and reply.code == code.value[0], reply.trailers


def test_text_bodies_that_are_not_base64(gateway: Gateway) -> None:
    reply = post(gateway.port, SERVICE + "ListGames", None, body=b"AA!A", text=True)
    assert reply.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]


def test_text_bodies_in_several_base64_pieces() -> None:
    frame = b"\x00\x00\x00\x00\x02\x08\x01"
    pieces = base64.b64encode(frame[:4]) + base64.b64encode(frame[4:])
    assert b"=" in pieces[:-2]
    assert decode_text(pieces) == frame


@pytest.mark.parametrize(
    "path",
    [
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",  # streaming
        "/grpc.health.v1.Health/Watch",  # streaming
        SERVICE + "NoSuchMethod",
        "/",
        "/../etc/passwd",
    ],
)
def test_other_methods_are_unimplemented(gateway: Gateway, path: str) -> None:
    reply = post(gateway.port, path, b"")
    assert reply.code == grpc.StatusCode.UNIMPLEMENTED.value[0]


@pytest.mark.parametrize(
    ("value", "seconds"), [("1S", 1.0), ("250m", 0.25), ("2M", 120.0), ("1H", 3600.0)]
)
def test_grpc_timeout_values(value: str, seconds: float) -> None:
    assert parse_timeout(value) == pytest.approx(seconds)


@pytest.fixture
def silent_target() -> Iterator[str]:
    """A port that takes connections and never answers: a call to it can only end at
    its deadline."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    yield f"127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


def test_grpc_timeout_is_the_calls_deadline(silent_target: str, gateway: Gateway) -> None:
    silent = Gateway(GatewaySettings(target=silent_target, host="127.0.0.1", port=0))
    silent.start()
    try:
        headers = {"grpc-timeout": "200m"}
        expired = call(silent.port, "ListGames", pb.ListGamesRequest(), headers=headers)
        assert expired.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    finally:
        silent.stop()
    for bad in ("10", "1s", "123456789S", "-1S", "S", "1.5S"):
        headers = {"grpc-timeout": bad}
        reply = call(gateway.port, "ListGames", pb.ListGamesRequest(), headers=headers)
        assert reply.code == grpc.StatusCode.INVALID_ARGUMENT.value[0], bad
    ok = call(gateway.port, "ListGames", pb.ListGamesRequest(), headers={"grpc-timeout": "5S"})
    assert ok.code == 0


def test_a_call_without_grpc_timeout_ends_at_the_gateways_own(silent_target: str) -> None:
    silent = Gateway(
        GatewaySettings(target=silent_target, host="127.0.0.1", port=0, call_timeout_seconds=0.2)
    )
    silent.start()
    try:
        expired = call(silent.port, "ListGames", pb.ListGamesRequest())
        assert expired.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
        longer = {"grpc-timeout": "1H"}  # the gateway's own is shorter: it wins
        expired = call(silent.port, "ListGames", pb.ListGamesRequest(), headers=longer)
        assert expired.code == grpc.StatusCode.DEADLINE_EXCEEDED.value[0]
    finally:
        silent.stop()


def test_http_requests_that_are_not_grpc_web_calls(gateway: Gateway) -> None:
    wrong_type = post(gateway.port, SERVICE + "ListGames", b"", content_type="application/grpc")
    assert wrong_type.status == 415
    json = post(gateway.port, SERVICE + "ListGames", b"", content_type="application/json")
    assert json.status == 415
    conn = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        assert (r.status, r.read()) == (200, b"ok\n")
        conn.request("GET", SERVICE + "ListGames")
        r = conn.getresponse()
        r.read()
        assert r.status == 404
        conn.request("PUT", SERVICE + "ListGames", b"")
        r = conn.getresponse()
        r.read()
        assert r.status == 405
        # Chunked: refused, the connection closed.
        conn.putrequest("POST", SERVICE + "ListGames")
        conn.putheader("Content-Type", "application/grpc-web+proto")
        conn.putheader("Transfer-Encoding", "chunked")
        conn.endheaders()
        conn.send(b"5\r\n\x00\x00\x00\x00\x00\r\n0\r\n\r\n")
        r = conn.getresponse()
        r.read()
        assert r.status == 411 and r.getheader("Connection") == "close"
    finally:
        conn.close()


# ------------------------------------------------------------------ hostile clients


def _read_all(sock: socket.socket) -> bytes:
    """Everything the gateway sends until it closes the connection (30 s at most)."""
    sock.settimeout(30)
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def test_a_body_whose_length_is_ambiguous_is_refused_and_the_connection_closed(
    gateway: Gateway,
) -> None:
    """Two Content-Length headers that disagree, or a Transfer-Encoding of any kind
    beside a Content-Length: a proxy in front could read the body otherwise than the
    gateway does (request smuggling). Refused, the connection closed; the rest of what
    was sent is not taken for another request."""
    head = (
        b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/grpc-web+proto\r\n"
    )
    smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    for framing, status in [
        (b"Content-Length: 5\r\nContent-Length: 40\r\n", b"400"),
        (b"Content-Length: 5\r\nTransfer-Encoding: gzip\r\n", b"411"),
        (b"Content-Length: 5\r\nTransfer-Encoding: identity\r\n", b"411"),
    ]:
        with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
            conn.sendall(head + framing + b"\r\n" + b"\x00" * 5 + smuggled)
            answer = _read_all(conn)
        assert answer.startswith(b"HTTP/1.1 " + status), (framing, answer)
        assert answer.count(b"HTTP/1.1") == 1 and b"Connection: close" in answer, answer


@pytest.mark.parametrize("method", ["GET", "OPTIONS", "DELETE"])
def test_a_body_on_a_request_that_is_not_a_call_is_not_taken_for_the_next_one(
    gateway: Gateway, method: str
) -> None:
    """http.server reads no body but a POST's: a GET or OPTIONS with a body is answered,
    then its connection closed, or the body would be served as the next request."""
    smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
        conn.sendall(
            method.encode()
            + b" /healthz HTTP/1.1\r\nHost: x\r\nOrigin: "
            + ORIGIN.encode()
            + b"\r\nContent-Length: %d\r\n\r\n" % len(smuggled)
            + smuggled
        )
        answer = _read_all(conn)
    assert answer.count(b"HTTP/1.1") == 1 and b"Connection: close" in answer, answer


@pytest.mark.parametrize("part", ["headers", "body"])
def test_a_request_sent_a_byte_at_a_time_is_cut_at_the_idle_timeout(
    server: ServerThread, part: str
) -> None:
    """Slowloris: a byte now and then used to renew the idle timeout for ever, so a few
    hundred such connections held every slot of --max-connections. The whole request
    (headers and body) must arrive within --idle-timeout-seconds."""
    gateway = _gateway(server, idle_timeout_seconds=0.5)
    head = (
        b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/grpc-web+proto\r\nContent-Length: 400\r\n"
    )
    try:
        with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
            if part == "headers":  # a header line that never ends
                conn.sendall(head)
                trickle = b"x-pad: " + b"a" * 393
            else:  # a body one byte short of its Content-Length
                conn.sendall(head + b"\r\n")
                trickle = b"\x00" * 399
            conn.settimeout(0.05)
            sent, closed = 0, False
            for byte in trickle:  # 400 bytes, one every 50 ms at least: 20 s and more
                try:
                    conn.sendall(bytes((byte,)))
                    sent += 1
                    closed = conn.recv(4096) == b""
                except TimeoutError:
                    continue
                except OSError:  # reset, or broken pipe
                    closed = True
                if closed:
                    break
            assert closed, f"still open after {sent} bytes"
            assert sent < 200, sent  # 0.5 s: about 10 bytes, with room for a slow machine
        assert call(gateway.port, "ListGames", pb.ListGamesRequest()).code == 0
    finally:
        gateway.stop()


def test_a_text_body_in_very_many_base64_pieces_is_refused_at_once(gateway: Gateway) -> None:
    """Each base64 piece was decoded by a step in Python: 20 MB of "AA==" (5 million
    pieces) took 5 s of the gateway's CPU and 470 MB. More than MAX_TEXT_PIECES
    pieces are refused before any is decoded."""
    from referee.grpcweb import MAX_TEXT_PIECES, CallError

    assert decode_text(b"AA==" * MAX_TEXT_PIECES) == b"\x00" * MAX_TEXT_PIECES
    with pytest.raises(CallError, match="pieces"):
        decode_text(b"AA==" * (MAX_TEXT_PIECES + 1))
    reply = post(gateway.port, SERVICE + "ListGames", None, body=b"AA==" * 100_000, text=True)
    assert reply.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
    assert "pieces" in reply.trailers["grpc-message"]


def test_a_request_over_the_message_limit_is_resource_exhausted(server: ServerThread) -> None:
    gateway = _gateway(server, max_message_bytes=1024)
    try:
        reply = post(gateway.port, SERVICE + "Replay", b"x" * 2000)
        assert reply.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
        assert reply.headers["connection"] == "close"
        ok = call(gateway.port, "ListGames", pb.ListGamesRequest())
        assert ok.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]  # its answer: 5 KB
        assert "larger than max" in ok.trailers["grpc-message"]
    finally:
        gateway.stop()


def _frame(size: int) -> bytes:
    """A body of one message frame of ``size`` bytes (not a valid request message)."""
    return b"\x00" + size.to_bytes(4, "big") + b"\xff" * size


def _http_call(conn: http.client.HTTPConnection, body: bytes) -> Reply:
    """One call on a kept connection: a Replay whose message is ``body``'s frame."""
    conn.request("POST", SERVICE + "Replay", body, {"Content-Type": "application/grpc-web"})
    r = conn.getresponse()
    data = r.read()
    return Reply(r.status, {k.lower(): v for k, v in r.getheaders()}, data, False)


def test_the_request_bytes_held_at_once_are_bounded(server: ServerThread) -> None:
    """``max_buffered_bytes``: request bodies are counted as they arrive, all connections
    together; a call whose body would go over is RESOURCE_EXHAUSTED (reason
    GATEWAY_BUFFER_FULL), its body read and dropped, its connection kept. What is
    counted is what has arrived: a body announced and not yet sent holds nothing."""
    gateway = _gateway(
        server, metrics_port=0, max_message_bytes=192 * 1024, max_buffered_bytes=300_000
    )
    assert gateway.metrics_port is not None

    def held() -> float:
        return sample(scrape(gateway.metrics_port), "referee_grpc_web_buffered_bytes")

    try:
        slow = socket.create_connection(("127.0.0.1", gateway.port))
        conn = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=30)
        with slow, contextlib.closing(conn):
            # A client that announces 190,005 bytes: nothing held until they arrive.
            body = _frame(190_000)
            slow.sendall(
                b"POST " + SERVICE.encode() + b"Replay HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/grpc-web\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body)
            )  # fmt: skip
            assert (
                _http_call(conn, _frame(40_000)).code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            )
            # 150,000 of them: two chunks of 64 KiB are held.
            slow.sendall(body[:150_000])
            wait_until(lambda: held() == 131_072, "two chunks of the slow body held")
            # Its third chunk would go over: 131,072 + 2 × 65,536 + 48,933 > 300,000.
            refused = _http_call(conn, _frame(180_000))
            assert refused.status == 200
            assert refused.code == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            assert "--max-buffered-bytes" in refused.trailers["grpc-message"]
            (info,) = [
                d for d in refused.details().details if d.Is(error_details_pb2.ErrorInfo.DESCRIPTOR)
            ]
            error = error_details_pb2.ErrorInfo()
            info.Unpack(error)
            assert (error.reason, error.domain) == ("GATEWAY_BUFFER_FULL", "referee.v1")
            assert dict(error.metadata) == {"limit_bytes": "300000"}
            assert refused.headers.get("connection") != "close"
            assert held() == 131_072  # the refused body's chunks let go, the rest dropped
            # The same connection serves on: the refused body was not taken for a request.
            small = _http_call(conn, _frame(1_000))
            assert small.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            # The slow body arrives whole: it is answered, and its bytes let go.
            slow.sendall(body[150_000:])
            slow.settimeout(30)
            answer = b""
            while b"grpc-status:" not in answer:
                answer += slow.recv(65536)
            assert b"HTTP/1.1 200" in answer and b"grpc-status: 3" in answer, answer
            wait_until(lambda: held() == 0, "nothing held")
            again = _http_call(conn, _frame(180_000))
            assert again.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        calls = scrape(gateway.metrics_port)
        assert (
            sample(
                calls, "referee_grpc_web_calls_total", method="Replay", code="RESOURCE_EXHAUSTED"
            )
            == 1
        )
        assert held() == 0
        assert sample(calls, "referee_grpc_web_buffer_full_total") == 1
    finally:
        gateway.stop()


def test_expect_100_continue_is_refused_at_once_when_the_body_would_not_fit(
    server: ServerThread,
) -> None:
    """A client that sends ``Expect: 100-continue`` for a body that would not fit in
    --max-buffered-bytes at that moment gets the refusal (GATEWAY_BUFFER_FULL) instead of
    ``100 Continue``: it need not send a body only to have it dropped. A body that fits
    still gets ``100 Continue``."""
    gateway = _gateway(
        server, metrics_port=0, max_message_bytes=192 * 1024, max_buffered_bytes=300_000
    )
    assert gateway.metrics_port is not None

    def ask(length: int) -> tuple[socket.socket, bytes]:
        conn = socket.create_connection(("127.0.0.1", gateway.port))
        conn.settimeout(30)
        conn.sendall(
            b"POST " + SERVICE.encode() + b"Replay HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/grpc-web+proto\r\nExpect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % length
        )  # fmt: skip
        return conn, conn.recv(65536)

    try:
        with socket.create_connection(("127.0.0.1", gateway.port)) as slow:
            body = _frame(190_000)
            slow.sendall(
                b"POST " + SERVICE.encode() + b"Replay HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/grpc-web\r\n"
                b"Content-Length: %d\r\n\r\n" % len(body) + body[:150_000]
            )  # fmt: skip
            wait_until(
                lambda: (
                    sample(scrape(gateway.metrics_port), "referee_grpc_web_buffered_bytes")
                    == 131_072
                ),
                "two chunks of the slow body held",
            )
            # 131,072 held + 180,005 > 300,000: refused before the body is sent.
            refused, first = ask(180_005)
            with refused:
                answer = first + _read_all(refused)
            assert not answer.startswith(b"HTTP/1.1 100"), answer
            assert answer.startswith(b"HTTP/1.1 200"), answer
            assert b"grpc-status: 8" in answer and b"Connection: close" in answer, answer
            assert b"--max-buffered-bytes" in answer, answer
            # 131,072 + 100,005 fits: 100 Continue, as before.
            fits, first = ask(100_005)
            with fits:
                assert first == b"HTTP/1.1 100 Continue\r\n\r\n", first
        assert sample(scrape(gateway.metrics_port), "referee_grpc_web_buffer_full_total") == 1
    finally:
        gateway.stop()


def test_the_limit_on_request_bytes_held_fits_the_largest_request() -> None:
    # The default: 64 MiB, or twice the largest grpc-web-text body when that is more.
    assert GatewaySettings().buffered_bytes() == 64 * 1024 * 1024
    big = GatewaySettings(max_message_bytes=64 * 1024 * 1024)
    assert big.buffered_bytes() == 2 * ((64 * 1024 * 1024 + 5 + 2) // 3 * 4 + 1024)
    assert GatewaySettings(max_buffered_bytes=10**9).buffered_bytes() == 10**9
    # One request of the largest size must fit, or it could never be served.
    with pytest.raises(ValueError, match="max_buffered_bytes must be at least 22370"):
        GatewaySettings(max_buffered_bytes=16 * 1024 * 1024)


def test_a_client_holding_the_whole_budget_cannot_refuse_small_calls(
    server: ServerThread,
) -> None:
    """Bodies of one chunk (64 KiB) are not counted: a client that sends large bodies
    and stalls before their last bytes holds the budget until the idle timeout, and
    would otherwise refuse every call of every page (a 5-byte ListGames included)."""
    limit = 22 * 65536  # chunks fill it exactly
    gateway = _gateway(server, metrics_port=0, max_message_bytes=1 << 20, max_buffered_bytes=limit)
    assert gateway.metrics_port is not None
    try:
        stalled = [socket.create_connection(("127.0.0.1", gateway.port)) for _ in range(2)]
        conn = http.client.HTTPConnection("127.0.0.1", gateway.port, timeout=30)
        with contextlib.ExitStack() as stack:
            for sock in stalled:
                stack.enter_context(sock)
            stack.enter_context(contextlib.closing(conn))
            body = _frame(800_000)
            for sock in stalled:  # 11 chunks each, the body never finished
                sock.sendall(
                    b"POST " + SERVICE.encode() + b"Replay HTTP/1.1\r\nHost: x\r\n"
                    b"Content-Type: application/grpc-web\r\n"
                    b"Content-Length: %d\r\n\r\n" % len(body) + body[: 11 * 65536]
                )  # fmt: skip
            wait_until(
                lambda: (
                    sample(scrape(gateway.metrics_port), "referee_grpc_web_buffered_bytes") == limit
                ),
                "the budget held whole",
            )
            assert (
                _http_call(conn, _frame(100_000)).code
                == grpc.StatusCode.RESOURCE_EXHAUSTED.value[0]
            )
            assert _http_call(conn, _frame(1_000)).code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
            conn.request(
                "POST", SERVICE + "ListGames", b"\x00" * 5, {"Content-Type": "application/grpc-web"}
            )
            r = conn.getresponse()
            assert Reply(r.status, dict(r.getheaders()), r.read(), False).code == 0
    finally:
        gateway.stop()


def test_whitespace_in_a_text_body_costs_no_object_a_piece() -> None:
    """A grpc-web-text body may carry whitespace; dropping it must not make an object of
    every piece between (a body of "A A A ..." took about 85 bytes of memory a byte)."""
    import tracemalloc

    framed = b"\x00" + (150_000).to_bytes(4, "big") + b"\xab" * 150_000
    raw = base64.b64encode(framed)
    body = bytearray(len(raw) * 2)
    body[0::2] = raw
    body[1::2] = b" " * len(raw)
    tracemalloc.start()
    try:
        assert decode_text(body) == framed
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 3 * len(body), peak


def test_a_content_length_of_other_digits_than_ascii_is_411(gateway: Gateway) -> None:
    with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
        conn.sendall(
            b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/grpc-web\r\nContent-Length: \xb2\r\n\r\nab"
        )  # fmt: skip
        assert _read_all(conn).startswith(b"HTTP/1.1 411")


# ------------------------------------------------------------------ metrics


def test_the_gateways_metrics_count_calls_refusals_and_connections(server: ServerThread) -> None:
    """--metrics-port: calls by method and status (the server's and the gateway's own),
    their time, the HTTP refusals by status and the open connections."""
    gateway = _gateway(server, metrics_port=0)
    try:
        assert gateway.metrics_port is not None
        before = scrape(gateway.metrics_port)
        assert sample(before, "referee_grpc_web_build_info") == 1
        for status in ("404", "405", "411", "415", "503"):  # known at 0 before any
            assert f'referee_grpc_web_http_refusals_total{{status="{status}"}}' in before
        assert sample(before, "process_resident_memory_bytes") > 0
        assert call(gateway.port, "ListGames", pb.ListGamesRequest()).code == 0
        assert call(gateway.port, "ListGames", pb.ListGamesRequest(), text=True).code == 0
        bad = call(gateway.port, "ApplyAction", pb.ApplyActionRequest())  # the server's
        assert bad.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        frame = post(gateway.port, SERVICE + "ViewState", None, body=b"\x00\x00")  # its own
        assert frame.code == grpc.StatusCode.INVALID_ARGUMENT.value[0]
        other = post(gateway.port, "/x.Y/Z", b"")
        assert other.code == grpc.StatusCode.UNIMPLEMENTED.value[0]
        wrong = post(gateway.port, SERVICE + "ListGames", b"", content_type="text/plain")
        assert wrong.status == 415
        with socket.create_connection(("127.0.0.1", gateway.port)) as one:
            assert _raw_call(one).startswith(b"HTTP/1.1 200")  # kept alive
            with socket.create_connection(("127.0.0.1", gateway.port)) as two:
                assert _raw_call(two).startswith(b"HTTP/1.1 200")
                wait_until(
                    lambda: (
                        sample(scrape(gateway.metrics_port), "referee_grpc_web_connections") == 2
                    ),
                    "two connections open",
                )
        wait_until(
            lambda: sample(scrape(gateway.metrics_port), "referee_grpc_web_connections") == 0,
            "the connections closed",
        )
        after = scrape(gateway.metrics_port)

        def calls(method: str, code: str) -> float:
            return sample(after, "referee_grpc_web_calls_total", method=method, code=code)

        assert calls("ListGames", "OK") == 2 + 2  # two here, one on each kept connection
        assert calls("ApplyAction", "INVALID_ARGUMENT") == 1
        assert calls("ViewState", "INVALID_ARGUMENT") == 1
        assert calls("other", "UNIMPLEMENTED") == 1
        assert sample(after, "referee_grpc_web_calls_total") == 7
        seconds = "referee_grpc_web_call_duration_seconds"
        assert sample(after, seconds + "_count", method="ListGames") == 4
        assert 0 < sample(after, seconds + "_sum", method="ListGames") < 60
        assert sample(after, seconds + "_bucket", method="ListGames", le="+Inf") == 4

        def refusals(status: str) -> float:
            return sample(after, "referee_grpc_web_http_refusals_total", status=status)

        assert (refusals("415"), refusals("503"), refusals("404")) == (1, 0, 0)
    finally:
        gateway.stop()
    # Over --max-connections: a slot is held by a kept-alive connection (slots are freed
    # when a connection's thread ends, after the client has gone: so one gateway each).
    full = _gateway(server, metrics_port=0, max_connections=1)
    try:
        assert full.metrics_port is not None
        with socket.create_connection(("127.0.0.1", full.port)) as one:
            assert _raw_call(one).startswith(b"HTTP/1.1 200")  # kept alive: holds the slot
            with socket.create_connection(("127.0.0.1", full.port)) as two:
                two.settimeout(30)
                assert two.recv(4096).startswith(b"HTTP/1.1 503")
            refused = sample(
                scrape(full.metrics_port), "referee_grpc_web_http_refusals_total", status="503"
            )
            assert refused == 1
    finally:
        full.stop()
    with pytest.raises(OSError):  # the metrics port closed with the gateway
        socket.create_connection(("127.0.0.1", gateway.metrics_port), timeout=5)


def test_without_metrics_port_the_gateway_has_no_metrics(gateway: Gateway) -> None:
    assert gateway.metrics is None and gateway.metrics_port is None
    assert call(gateway.port, "ListGames", pb.ListGamesRequest()).code == 0


# ------------------------------------------------------------------ CORS


def _preflight(port: int, origin: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request(
        "OPTIONS",
        SERVICE + "ApplyAction",
        headers={
            "Origin": origin,
            "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "content-type,x-grpc-web,authorization",
        },
    )
    r = conn.getresponse()
    r.read()
    conn.close()
    return r


def test_cors_for_the_allowed_origins_only(gateway: Gateway) -> None:
    allowed = _preflight(gateway.port, ORIGIN)
    assert allowed.status == 204
    assert allowed.getheader("Access-Control-Allow-Origin") == ORIGIN
    assert allowed.getheader("Access-Control-Allow-Methods") == "POST"
    assert "authorization" in allowed.getheader("Access-Control-Allow-Headers", "")
    other = _preflight(gateway.port, "https://evil.example.net")
    assert other.status == 403 and other.getheader("Access-Control-Allow-Origin") is None

    ok = call(gateway.port, "ListGames", pb.ListGamesRequest(), headers={"Origin": ORIGIN})
    assert ok.headers["access-control-allow-origin"] == ORIGIN
    assert "grpc-status" in ok.headers["access-control-expose-headers"]
    assert ok.headers["vary"] == "Origin"
    foreign = call(
        gateway.port, "ListGames", pb.ListGamesRequest(), headers={"Origin": "https://x.test"}
    )
    assert "access-control-allow-origin" not in foreign.headers


def test_allowed_origins_compare_as_browsers_send_them(server: ServerThread) -> None:
    gateway = _gateway(server, allow_origins=("HTTPS://Play.Example.com/",))
    try:
        allowed = _preflight(gateway.port, ORIGIN)
        assert allowed.getheader("Access-Control-Allow-Origin") == ORIGIN
    finally:
        gateway.stop()


def test_cors_for_any_origin(server: ServerThread) -> None:
    gateway = _gateway(server, allow_origins=("*",))
    try:
        assert (
            _preflight(gateway.port, "https://x.test").getheader("Access-Control-Allow-Origin")
            == "*"
        )
        ok = call(gateway.port, "ListGames", pb.ListGamesRequest(), headers={"Origin": "null"})
        assert ok.headers["access-control-allow-origin"] == "*"
    finally:
        gateway.stop()


# ------------------------------------------------------------------ connections, HTTPS, stop


@pytest.mark.parametrize(
    "headers",
    [
        b"Content-Type: text/plain\r\n",  # 415
        b"Content-Type: application/grpc-web+proto\r\nContent-Length: 99999999999\r\n",
    ],
    ids=["not a gRPC-Web call", "over the message limit"],
)
def test_the_body_of_a_refused_call_is_not_taken_for_the_next_request(
    gateway: Gateway, headers: bytes
) -> None:
    """A POST refused before its body is read (its Content-Type, its length): the body
    must not be served as the next request on the connection, where a proxy in front
    sees one request (request smuggling). The connection closes after the answer."""
    smuggled = b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
    length = b"" if b"Content-Length" in headers else b"Content-Length: %d\r\n" % len(smuggled)
    with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
        conn.sendall(
            b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
            + headers + length + b"\r\n" + smuggled
        )  # fmt: skip
        answer = _read_all(conn)
    assert answer.count(b"HTTP/1.1") == 1 and b"Connection: close" in answer, answer


@pytest.mark.parametrize("over", [False, True], ids=["within the limit", "over it"])
def test_expect_100_continue_is_answered_after_the_request_is_checked(
    gateway: Gateway, over: bool
) -> None:
    """A client that sends ``Expect: 100-continue`` waits for ``100 Continue`` before
    its body: it gets one only for a call the gateway will read, and for one it refuses
    (over the message limit here) the answer at once, without sending the body."""
    length = 99999999999 if over else 5
    with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
        conn.sendall(
            b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/grpc-web+proto\r\nExpect: 100-continue\r\n"
            b"Content-Length: %d\r\n\r\n" % length
        )  # fmt: skip
        conn.settimeout(30)
        first = conn.recv(65536)
        if over:
            assert first.startswith(b"HTTP/1.1 200"), first  # trailers-only: the status
            assert b"grpc-status: 8" in first + _read_all(conn), first  # RESOURCE_EXHAUSTED
            return
        assert first == b"HTTP/1.1 100 Continue\r\n\r\n", first
        conn.sendall(b"\x00" * 5)
        data = b""
        while b"grpc-status:" not in data:
            data += conn.recv(65536)
        assert b"HTTP/1.1 200" in data and b"grpc-status:0" in data.replace(b" ", b""), data


def _raw_call(sock: socket.socket) -> bytes:
    body = b"\x00\x00\x00\x00\x00"
    sock.sendall(
        b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
        b"Content-Type: application/grpc-web+proto\r\nContent-Length: 5\r\n\r\n" + body
    )
    data = b""
    while b"grpc-status:" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def test_an_answer_leaves_in_one_write(gateway: Gateway) -> None:
    """Headers and body in one write (and no Nagle delay): written apart, the body of a
    keep-alive connection's answer waited for the client's delayed ACK, about 40 ms a
    call (bench/grpcweb.py measured 44 calls/s). One write on loopback arrives whole,
    so the first read holds the whole answer."""
    with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
        conn.settimeout(30)
        for _ in range(3):  # on one kept-alive connection
            body = b"\x00\x00\x00\x00\x00"
            conn.sendall(
                b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
                b"Content-Type: application/grpc-web+proto\r\nContent-Length: 5\r\n\r\n" + body
            )
            first = conn.recv(1 << 20)
            head, _, rest = first.partition(b"\r\n\r\n")
            length = int(re.search(rb"Content-Length: (\d+)", head).group(1))  # type: ignore[union-attr]
            assert len(rest) == length, (len(rest), length)
            assert rest.endswith(b"\r\n") and b"grpc-status:0" in rest


def test_connections_over_the_limit_are_answered_503(server: ServerThread) -> None:
    gateway = _gateway(server, max_connections=1)
    try:
        with socket.create_connection(("127.0.0.1", gateway.port)) as first:
            assert _raw_call(first).startswith(b"HTTP/1.1 200")  # kept alive: holds the slot
            with socket.create_connection(("127.0.0.1", gateway.port)) as second:
                second.settimeout(30)
                assert second.recv(4096).startswith(b"HTTP/1.1 503")
    finally:
        gateway.stop()


def test_https_connections_over_the_limit_are_closed_without_plain_text(
    server: ServerThread, tmp_path: Path
) -> None:
    """Over HTTPS a connection over the limit has had no handshake: it is closed with
    nothing written (a plain-text 503 would reach the client as a broken handshake)."""
    certs = make_certs(tmp_path)
    gateway = _gateway(
        server, max_connections=1, tls_cert=certs.server_cert, tls_key=certs.server_key
    )
    try:
        context = ssl.create_default_context(cafile=str(certs.ca))
        with (
            socket.create_connection(("127.0.0.1", gateway.port)) as raw,
            context.wrap_socket(raw, server_hostname="localhost") as first,
        ):
            first.sendall(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            first.settimeout(30)
            assert first.recv(4096).startswith(b"HTTP/1.1 200")  # kept alive: the slot
            with socket.create_connection(("127.0.0.1", gateway.port)) as second:
                second.settimeout(30)
                assert second.recv(4096) == b""
    finally:
        gateway.stop()


def test_a_stop_closes_idle_connections_and_takes_no_new_ones(server: ServerThread) -> None:
    gateway = _gateway(server)
    idle = socket.create_connection(("127.0.0.1", gateway.port))
    try:
        assert _raw_call(idle).startswith(b"HTTP/1.1 200")
        gateway.stop()
        idle.settimeout(30)
        assert idle.recv(4096) == b""  # closed by the stop
        with pytest.raises(OSError):
            socket.create_connection(("127.0.0.1", gateway.port), timeout=5)
    finally:
        idle.close()


def _healthz(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", "/healthz")
        r = conn.getresponse()
        r.read()
        return r.status
    finally:
        conn.close()


def test_a_stop_drains_first_health_503_calls_served(server: ServerThread) -> None:
    import threading

    gateway = _gateway(server, drain_delay_seconds=600)
    assert _healthz(gateway.port) == 200
    stopping = threading.Thread(target=gateway.stop)
    stopping.start()
    try:
        for _ in range(3000):
            if gateway.draining:
                break
            threading.Event().wait(0.01)
        assert _healthz(gateway.port) == 503  # the load balancer takes the gateway out
        reply = call(gateway.port, "ListGames", pb.ListGamesRequest())
        assert reply.code == 0 and reply.messages  # while calls are still served
        assert "connection" not in reply.headers
    finally:
        gateway.cut_drain()  # as a second SIGTERM does
        stopping.join(60)
    assert not stopping.is_alive()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", gateway.port), timeout=5)


def test_a_stop_gives_the_grace_to_a_body_still_arriving(server: ServerThread) -> None:
    """A call whose body is still arriving when the gateway stops is in flight: it is
    read, forwarded and answered (``Connection: close``) within the grace, not cut with
    its connection; and so is an answer still being written."""
    import threading

    gateway = _gateway(server, grace_seconds=60)
    message = pb.ListGamesRequest().SerializeToString()
    body = b"\x00" + len(message).to_bytes(4, "big") + message
    with socket.create_connection(("127.0.0.1", gateway.port)) as conn:
        conn.sendall(
            b"POST " + SERVICE.encode() + b"ListGames HTTP/1.1\r\nHost: x\r\n"
            b"Content-Type: application/grpc-web\r\nContent-Length: %d\r\n\r\n" % len(body)
            + body[:2]
        )  # fmt: skip
        wait_until(lambda: gateway.calls_in_flight == 1, "the call in flight")
        stopping = threading.Thread(target=gateway.stop)
        stopping.start()
        try:
            wait_until(lambda: gateway.stopping, "the gateway stopping")
            conn.sendall(body[2:])
            answer = _read_all(conn)  # until the gateway closes the connection
        finally:
            stopping.join(60)
    assert not stopping.is_alive()
    assert answer.startswith(b"HTTP/1.1 200") and b"Connection: close" in answer, answer
    assert Reply(200, {}, answer.split(b"\r\n\r\n", 1)[1], False).code == 0, answer


def test_https(server: ServerThread, tmp_path: Path) -> None:
    certs = make_certs(tmp_path)
    gateway = _gateway(server, tls_cert=certs.server_cert, tls_key=certs.server_key)
    try:
        context = ssl.create_default_context(cafile=str(certs.ca))
        reply = call(gateway.port, "ListGames", pb.ListGamesRequest(), context=context)
        assert reply.code == 0 and reply.messages
        with pytest.raises((ConnectionError, http.client.HTTPException, OSError)):
            call(gateway.port, "ListGames", pb.ListGamesRequest())  # plain HTTP: no answer
        assert call(gateway.port, "ListGames", pb.ListGamesRequest(), context=context).code == 0
    finally:
        gateway.stop()


def test_https_certificates_are_reloaded_when_their_files_change(
    server: ServerThread, tmp_path: Path
) -> None:
    import shutil
    import time

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    first, second = make_certs(tmp_path / "a"), make_certs(tmp_path / "b")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    shutil.copy(first.server_cert, cert)
    shutil.copy(first.server_key, key)
    gateway = _gateway(server, tls_cert=cert, tls_key=key)
    try:
        old = ssl.create_default_context(cafile=str(first.ca))
        new = ssl.create_default_context(cafile=str(second.ca))
        assert call(gateway.port, "ListGames", pb.ListGamesRequest(), context=old).code == 0
        key.write_text("not a key")  # a half-written pair: the last good one serves
        for _ in range(8):  # the files are looked at once a second at most
            time.sleep(0.2)
            assert call(gateway.port, "ListGames", pb.ListGamesRequest(), context=old).code == 0
        shutil.copy(second.server_cert, cert)
        shutil.copy(second.server_key, key)
        deadline = time.monotonic() + 60
        while True:
            try:
                reply = call(gateway.port, "ListGames", pb.ListGamesRequest(), context=new)
                break
            except ssl.SSLError:
                assert time.monotonic() < deadline, "the new certificate was never served"
                time.sleep(0.1)
        assert reply.code == 0
    finally:
        gateway.stop()


def test_a_target_with_tls(tmp_path: Path) -> None:
    from referee.tls import TlsFiles

    certs = make_certs(tmp_path)
    with _server(tls=TlsFiles(certs.server_cert, certs.server_key)) as secured:
        credentials = grpc.ssl_channel_credentials(root_certificates=certs.ca.read_bytes())
        gateway = _gateway(
            secured,
            target_credentials=credentials,
            target_options=(("grpc.ssl_target_name_override", "localhost"),),
        )
        try:
            assert call(gateway.port, "ListGames", pb.ListGamesRequest()).code == 0
        finally:
            gateway.stop()


def test_an_unreachable_target_is_unavailable() -> None:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    gateway = Gateway(
        GatewaySettings(target=f"127.0.0.1:{port}", host="127.0.0.1", port=0, grace_seconds=1)
    )
    gateway.start()
    try:
        reply = call(gateway.port, "ListGames", pb.ListGamesRequest(), headers={"Origin": ORIGIN})
        assert reply.code == grpc.StatusCode.UNAVAILABLE.value[0]
        # gRPC's own text names the target's address: not for a page, the log has it.
        assert str(port) not in reply.trailers["grpc-message"], reply.trailers
        assert "127.0.0.1" not in reply.trailers["grpc-message"], reply.trailers
    finally:
        gateway.stop()


def test_a_target_that_comes_back_is_retried_within_seconds(
    server: ServerThread, monkeypatch: pytest.MonkeyPatch
) -> None:
    """gRPC's reconnection backoff grows to 120 s: after a server's restart a gateway
    answered UNAVAILABLE for up to two minutes (by hand: 15 s after a 45 s outage).
    Its channels cap the backoff at MAX_RECONNECT_BACKOFF_MS."""
    from referee.grpcweb import MAX_RECONNECT_BACKOFF_MS

    seen: list[dict[str, Any]] = []
    real = grpc.insecure_channel

    def spy(target: str, options: Any = None, **kw: Any) -> grpc.Channel:
        seen.append(dict(options or ()))
        return real(target, options=options, **kw)

    monkeypatch.setattr(grpc, "insecure_channel", spy)
    gateway = _gateway(server, channels=2)
    gateway.stop()
    assert len(seen) == 2
    assert all(o["grpc.max_reconnect_backoff_ms"] == MAX_RECONNECT_BACKOFF_MS for o in seen)


# ------------------------------------------------------------------ anything a client sends

_STATUSES = {c.value[0] for c in grpc.StatusCode} - {
    grpc.StatusCode.UNKNOWN.value[0],
    grpc.StatusCode.INTERNAL.value[0],
}


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    path=st.sampled_from(
        [SERVICE + "ApplyAction", SERVICE + "ListGames", SERVICE + "Replay", "/x/y", "/"]
    ),
    content_type=st.sampled_from(
        [
            "application/grpc-web+proto",
            "application/grpc-web",
            "application/grpc-web-text",
            "application/grpc-web-text+proto; charset=utf-8",
            "application/grpc-web+json",
            "text/plain",
        ]
    ),
    body=st.one_of(
        st.binary(max_size=300),
        st.binary(max_size=300).map(lambda b: b"\x00" + len(b).to_bytes(4, "big") + b),
        st.binary(max_size=300).map(
            lambda b: base64.b64encode(b"\x00" + len(b).to_bytes(4, "big") + b)
        ),
    ),
    headers=st.dictionaries(
        st.sampled_from(["grpc-timeout", "authorization", "x-request-id", "traceparent", "cookie"]),
        st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=40),
        max_size=3,
    ),
)
def test_anything_a_client_sends_gets_a_status_never_unknown_or_internal(
    gateway: Gateway, path: str, content_type: str, body: bytes, headers: dict[str, str]
) -> None:
    reply = post(gateway.port, path, None, body=body, content_type=content_type, headers=headers)
    if reply.status != 200:
        assert reply.status in (411, 415), reply.status
        return
    assert reply.code in _STATUSES, reply.trailers
    assert call(gateway.port, "ListGames", pb.ListGamesRequest()).code == 0


# ------------------------------------------------------------------ the command


def _run_gateway(*args: str) -> Any:
    import subprocess
    import sys

    return subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "grpc-web", "--log-format", "json", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.parametrize("stop", ["SIGTERM", "SIGHUP"])
def test_the_command_serves_until_sigterm(server: ServerThread, stop: str) -> None:
    """SIGHUP stops it as SIGTERM does (a closed terminal: not the default action, an
    exit with no drain)."""
    import json
    import signal

    proc = _run_gateway(
        "--target", server.address, "--host", "127.0.0.1", "--port", "0",
        "--metrics-port", "0", "--metrics-host", "127.0.0.1",
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        line = json.loads(proc.stderr.readline())
        assert line["event"] == "grpc_web_serving" and line["target"] == server.address
        reply = call(line["port"], "ListGames", pb.ListGamesRequest())
        assert reply.code == 0 and reply.messages
        metrics = scrape(line["metrics_port"])
        assert sample(metrics, "referee_grpc_web_calls_total", method="ListGames") == 1
        proc.send_signal(getattr(signal, stop))
        assert proc.wait(30) == 0
        events = [json.loads(x)["event"] for x in proc.stderr.read().splitlines()]
        assert events == ["grpc_web_stopping", "grpc_web_stopped"]
    finally:
        proc.kill()
        proc.wait()


def test_the_command_names_the_port_it_cannot_bind() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        for args, named in (
            (["--port", port], f"cannot bind 127.0.0.1:{port}"),
            (
                ["--port", "0", "--metrics-port", port],
                f"cannot bind --metrics-port 127.0.0.1:{port}",
            ),
        ):
            proc = _run_gateway("--host", "127.0.0.1", "--metrics-host", "127.0.0.1", *args)
            _, err = proc.communicate(timeout=60)
            assert proc.returncode == 2 and named in err and "Traceback" not in err, err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _health(*args: str) -> Any:
    import subprocess
    import sys

    return subprocess.run(
        [sys.executable, "-m", "referee.cli", "health", "--timeout", "10", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_images_health_check_asks_a_gateway_its_healthz(
    server: ServerThread, tmp_path: Path
) -> None:
    """``referee health --container`` (the image's HEALTHCHECK): when the container's main
    process is the gateway, its GET /healthz on the port its command line and
    environment give (HTTPS too); anything else, the server's gRPC health as before."""
    import json
    import subprocess
    import sys

    certs = make_certs(tmp_path)
    for tls in ([], ["--tls-cert", str(certs.server_cert), "--tls-key", str(certs.server_key)]):
        port = _free_port()
        proc = _run_gateway(
            "--target", server.address, "--host", "127.0.0.1", "--port", str(port), *tls
        )
        try:
            assert proc.stderr is not None
            assert json.loads(proc.stderr.readline())["event"] == "grpc_web_serving"
            checked = _health("--container", "--pid", str(proc.pid))
            assert checked.returncode == 0, checked.stderr
            assert checked.stdout == f"127.0.0.1:{port} /healthz: 200 ok\n"
        finally:
            proc.kill()
            proc.wait()
    # A gateway's command line with nothing listening: unhealthy, said so.
    port = _free_port()
    idle = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)", "referee", "grpc-web",
         "--port", str(port)]
    )  # fmt: skip
    try:
        wait_until(lambda: b"grpc-web" in Path(f"/proc/{idle.pid}/cmdline").read_bytes(), "argv")
        down = _health("--container", "--pid", str(idle.pid))
        assert down.returncode == 1 and f"the gateway at 127.0.0.1:{port}" in down.stderr
    finally:
        idle.kill()
        idle.wait()
    # Not a gateway (this test's own process): the server's health, at --address.
    served = _health("--container", "--pid", str(os.getpid()), "--address", server.address)
    assert served.returncode == 0 and served.stdout == f"{server.address}: SERVING\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--tls-cert", "/nonexistent.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-cert", "/nonexistent.pem", "--tls-key", "/x.pem"], "--tls-cert, --tls-key"),
        (["--allow-origin", "play.example.com"], "is not an origin"),
        (["--max-message-bytes", "4096"], "out of range"),
        (["--max-buffered-bytes", "1000000"], "--max-buffered-bytes must be at least 22370"),
        (["--max-buffered-bytes", "lots"], "'lots' is not a whole number"),
        (["--server-name", "x"], "--server-name needs --tls or --ca-file"),
        (["--port", "70000"], "out of range"),
        (["--metrics-port", "-1"], "out of range"),
    ],
)
def test_the_command_refuses_settings_that_cannot_work(args: list[str], message: str) -> None:
    proc = _run_gateway("--port", "0", *args)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 2, err
    assert message in err and "Traceback" not in err, err


def test_check_config_prints_the_settings_and_binds_nothing(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """``referee grpc-web --check-config``: what the gateway would serve with, from flags
    and variables, exit 0; a port in use is no error (nothing is bound), TLS files that
    cannot be used are (exit 2, the message serving would give)."""
    from ..run_cli import referee

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        monkeypatch.setenv("REFEREE_GRPC_WEB_ALLOW_ORIGINS", "https://play.example.com")
        code, out, err = referee(
            capsys,
            "grpc-web",
            "--check-config",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--target",
            "referee:50051",
            "--max-message-bytes",
            str(2 * 1024 * 1024),
            "--metrics-port",
            "9091",
        )
    assert (code, err) == (0, "")
    assert out.splitlines() == [
        "referee grpc-web: the settings are good",
        f"  listen    127.0.0.1:{port}, HTTP",
        "  target    referee:50051 over plaintext, 4 connections",
        "  origins   https://play.example.com",
        "  limits    messages 2 MiB, 256 connections, requests held 64 MiB (auto), calls 60 s, "
        "a request whole within 60 s",
        "  stopping  drain delay 0 s, then grace 10 s",
        "  metrics   0.0.0.0:9091",
    ]
    monkeypatch.setenv("REFEREE_GRPC_WEB_ALLOW_ORIGINS", "*")
    code, out, _ = referee(capsys, "grpc-web", "--check-config")
    assert code == 0
    assert "  origins   any page (*)" in out
    assert "  warning   any web page may call the server through this gateway" in out
    missing = tmp_path / "missing.pem"
    code, out, err = referee(
        capsys, "grpc-web", "--check-config", "--tls-cert", str(missing), "--tls-key", str(missing)
    )
    assert code == 2 and out == ""
    assert "--tls-cert, --tls-key" in err and "No such file or directory" in err
    monkeypatch.setenv("REFEREE_GRPC_WEB_MAX_BUFFERED_BYTES", "1000")
    code, out, err = referee(capsys, "grpc-web", "--check-config")
    assert code == 2 and out == ""
    assert "REFEREE_GRPC_WEB_MAX_BUFFERED_BYTES must be at least 22370" in err, err
    _, out, _ = referee(
        capsys, "grpc-web", "--check-config", "--max-message-bytes", str(1 << 20),
        "--max-buffered-bytes", str(2 << 20),
    )  # fmt: skip
    assert "requests held 2 MiB, calls" in out, out
