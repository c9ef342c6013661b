"""Stalled and hostile HTTP/2 clients against a server in this process, on both engines
(docs/reliability.md, items 37, 38 and 40).

- Calls whose request never comes (HEADERS sent, no DATA: a client stalled mid-call,
  or one that opens streams and sends nothing) hold no handler thread of the threads
  engine: other calls and health checks are served while they wait. Those refused on
  their headers are answered at once, and those no limit counts (health, reflection)
  wait in threads of their own.
- A connection may not open streams without bound: the server advertises
  SETTINGS_MAX_CONCURRENT_STREAMS and refuses the streams over it (REFUSED_STREAM),
  since every open stream costs it memory whether or not its request ever comes; streams
  the client resets at once ("rapid reset") count until the server is done with them.
- Compressed requests (item 38) are inflated and served, or refused UNIMPLEMENTED
  under --compressed-requests refuse; inflating stops at --max-message-bytes."""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee.server import ENGINES, MAX_STREAMS_PER_CONNECTION, ServerSettings
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from ..ops.helpers import TIMEOUT, HeldCalls, InProcess, wait_until
from ..service.slow_http2 import (
    ACK,
    END_HEADERS,
    HEADERS,
    PING,
    PREFACE,
    SETTINGS,
    _literal,
    frame,
    split_frames,
)
from .protofuzz import unknown_field
from .support import caller

RST_STREAM = 0x3
SETTINGS_MAX_CONCURRENT_STREAMS = 0x3
REFUSED_STREAM = 0x7


def read_frames(sock: socket.socket, buffer: bytearray) -> list[tuple[int, int, int, bytes]]:
    """The whole frames received so far (blocking for at least one read):
    (type, flags, stream, payload) each; a partial frame stays in ``buffer``."""
    data = sock.recv(65_536)
    if not data:
        raise AssertionError("the server closed the connection")
    buffer += data
    return split_frames(buffer)


def handshake(sock: socket.socket, buffer: bytearray) -> dict[int, int]:
    """The client's preface and empty SETTINGS on a raw connection, then the server's
    SETTINGS (acknowledged) until it acknowledges ours: what the server advertised."""
    sock.sendall(PREFACE + frame(SETTINGS, 0, 0))
    advertised: dict[int, int] = {}
    acknowledged = False
    while not acknowledged:
        for kind, flags, _, payload in read_frames(sock, buffer):
            if kind == SETTINGS and not flags & ACK:
                for i in range(0, len(payload), 6):
                    key, value = struct.unpack(">HI", payload[i : i + 6])
                    advertised[key] = value
                sock.sendall(frame(SETTINGS, ACK, 0))
            elif kind == SETTINGS:
                acknowledged = True
    return advertised


def refused_streams(sock: socket.socket, buffer: bytearray) -> list[int]:
    """The streams the server refused in what one read brings (every RST_STREAM must
    be REFUSED_STREAM); its PINGs are answered."""
    refused = []
    for kind, flags, stream, payload in read_frames(sock, buffer):
        if kind == RST_STREAM:
            assert int.from_bytes(payload, "big") == REFUSED_STREAM, stream
            refused.append(stream)
        elif kind == PING and not flags & ACK:
            sock.sendall(frame(PING, ACK, 0, payload))
    return refused


def call_headers(port: int, method: str) -> bytes:
    """A gRPC call's HEADERS block (HPACK literals, never indexed)."""
    return b"".join(
        _literal(name, value)
        for name, value in (
            (":method", "POST"),
            (":scheme", "http"),
            (":authority", f"127.0.0.1:{port}"),
            (":path", f"/referee.v1.RefereeService/{method}"),
            ("content-type", "application/grpc"),
            ("te", "trailers"),
        )
    )


@pytest.mark.parametrize("engine", ENGINES)
def test_a_connection_cannot_open_streams_without_bound(engine: str) -> None:
    """HEADERS-only streams on one raw connection, a few more than the limit: the server
    said the limit in its SETTINGS, and refuses exactly the streams over it. Without the
    limit (gRPC's default) every one stayed open, about 21 KB of the server's memory
    each: 30,000 such streams (450 KB sent) took a worker from 55 to 693 MB."""
    extra = 3
    with InProcess(ServerSettings(host="127.0.0.1", port=0), engine=engine) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
        try:
            buffer = bytearray()
            advertised = handshake(sock, buffer)
            assert advertised.get(SETTINGS_MAX_CONCURRENT_STREAMS) == MAX_STREAMS_PER_CONNECTION
            block = call_headers(server.port, "ListGames")
            streams = [1 + 2 * i for i in range(MAX_STREAMS_PER_CONNECTION + extra)]
            # HEADERS without END_STREAM and no DATA: calls whose request never comes.
            sock.sendall(b"".join(frame(HEADERS, END_HEADERS, s, block) for s in streams))
            refused: list[int] = []
            while len(refused) < extra:
                refused += refused_streams(sock, buffer)
            assert refused == streams[-extra:]
        finally:
            sock.close()
        with grpc.insecure_channel(server.address) as ch:  # the server serves on
            stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
            assert stub.ListGames(pb.ListGamesRequest(), timeout=TIMEOUT).games


@pytest.mark.parametrize("engine", ENGINES)
def test_streams_reset_at_once_still_count_against_the_limit(engine: str) -> None:
    """A "rapid reset" flood (item 37): ten times the limit of streams, each opened and
    reset at once (HEADERS, then RST_STREAM CANCEL), in one burst on one connection.
    gRPC counts a stream the client reset until the server is done with it, so past the
    limit the flood is refused (REFUSED_STREAM) instead of reaching gRPC's queue of calls
    not yet taken by the server. Without the limit none was refused, that queue filled,
    and gRPC answered other clients' calls CANCELLED: 32 - 36 of 55 - 58 probe
    ApplyActions in a 6 s flood, none with it (reliability.md, item 37)."""
    flood = 10 * MAX_STREAMS_PER_CONNECTION
    with InProcess(ServerSettings(host="127.0.0.1", port=0), engine=engine) as server:
        sock = socket.create_connection(("127.0.0.1", server.port), timeout=TIMEOUT)
        try:
            buffer = bytearray()
            handshake(sock, buffer)
            block = call_headers(server.port, "ApplyAction")
            cancel = (0x8).to_bytes(4, "big")
            sock.sendall(
                b"".join(
                    frame(HEADERS, END_HEADERS, s, block) + frame(RST_STREAM, 0, s, cancel)
                    for s in range(1, 2 * flood, 2)
                )
            )
            give_up = time.monotonic() + TIMEOUT  # without the limit, none is ever refused
            while not refused_streams(sock, buffer):
                assert time.monotonic() < give_up, "no stream of the flood was refused"
        finally:
            sock.close()
        with grpc.insecure_channel(server.address) as ch:
            stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
            assert stub.ListGames(pb.ListGamesRequest(), timeout=TIMEOUT).games


def streamed_check(channel: grpc.Channel) -> Any:
    """Health ``Check`` called as client-streaming: the call starts at once, its one
    request sent when the iterator given yields it (a request held back)."""
    return channel.stream_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )


@contextlib.contextmanager
def held_calls(
    settings: ServerSettings, engine: str
) -> Iterator[tuple[InProcess, grpc.Channel, HeldCalls]]:
    """A server in this process, calls to hold on a connection to it, and a channel of
    another connection for the calls that must be served meanwhile."""
    with (
        InProcess(settings, engine=engine) as server,
        grpc.insecure_channel(server.address) as held_channel,
        grpc.insecure_channel(
            server.address, options=[("grpc.use_local_subchannel_pool", 1)]
        ) as ch,
        HeldCalls(held_channel) as held,
    ):
        yield server, ch, held


@pytest.mark.parametrize("engine", ENGINES)
def test_calls_whose_request_never_comes_hold_no_handler_thread(engine: str) -> None:
    """Twice as many calls as the threads engine has handler threads, each started and
    its request held back (as from a stalled client, or one sending HEADERS only): other
    calls and health checks are still served. The threads engine ran every call in a
    handler thread from its headers on, where it waited for the request, so those calls
    held every thread and the other calls waited for them (10 s here, then
    DEADLINE_EXCEEDED; with the default 8 threads, 8 such streams stopped a worker until
    their connection closed)."""
    settings = ServerSettings(host="127.0.0.1", port=0, threads=2)
    with held_calls(settings, engine) as (server, ch, held):
        interceptor = server.server.interceptor
        calls = [held.start() for _ in range(2 * settings.threads)]
        wait_until(lambda: interceptor.in_flight == len(calls), "the held calls in flight")
        stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
        assert stub.ListGames(pb.ListGamesRequest(), timeout=10).games
        health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        held.release()
        for call in calls:  # and the held calls, their requests sent at last, are answered
            assert call.result(timeout=TIMEOUT).games
        wait_until(lambda: interceptor.in_flight == 0, "every call to leave")


@pytest.mark.parametrize("engine", ENGINES)
def test_refused_and_uncounted_calls_whose_request_never_comes_hold_no_call_thread(
    engine: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Calls started with their request held back, where --max-concurrent-rpcs counts
    no more: those over the limit are refused at once, before their request comes; held
    health checks and reflection streams (never counted) wait in threads of their own.
    On the threads engine each waited for its request in a thread of the calls' pool,
    so with the Deployment's limit of 256, 300 such streams on one connection (to
    ApplyAction, Health/Check or reflection) took all 264 threads and every other call
    of the worker waited (item 40). Here the pool is cut to 4 + 2 threads."""
    from grpc_reflection.v1alpha import reflection_pb2

    from referee import threaded

    monkeypatch.setattr(threaded, "REQUEST_WAIT_THREADS", 4)
    settings = ServerSettings(host="127.0.0.1", port=0, threads=2, max_concurrent_rpcs=2)
    released = threading.Event()

    def held(message: object) -> Iterator[object]:
        released.wait(TIMEOUT)
        yield message

    with held_calls(settings, engine) as (server, ch, admitted):
        held_channel = admitted.channel
        interceptor = server.server.interceptor
        counted = [admitted.start() for _ in range(settings.max_concurrent_rpcs)]
        wait_until(lambda: interceptor.in_flight == len(counted), "the held calls in flight")
        over = [admitted.start() for _ in range(8)]
        for call in over:  # refused with their request still held back
            assert call.exception(timeout=10).code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        check = streamed_check(held_channel)
        info = held_channel.stream_stream(
            "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
            request_serializer=reflection_pb2.ServerReflectionRequest.SerializeToString,
            response_deserializer=reflection_pb2.ServerReflectionResponse.FromString,
        )
        checks = [
            check.future(held(health_pb2.HealthCheckRequest()), timeout=TIMEOUT) for _ in range(2)
        ]
        streams = [
            info(held(reflection_pb2.ServerReflectionRequest(list_services="")), timeout=TIMEOUT)
            for _ in range(6)
        ]
        health = health_pb2_grpc.HealthStub(ch).Check(health_pb2.HealthCheckRequest(), timeout=10)
        assert health.status == health_pb2.HealthCheckResponse.SERVING
        for call in counted:  # the counted calls answered: a new call is served
            call.cancel()
        wait_until(lambda: interceptor.in_flight == 0, "the counted calls to leave")
        stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
        assert stub.ListGames(pb.ListGamesRequest(), timeout=10).games
        released.set()
        for call in checks:
            assert call.result(timeout=TIMEOUT).status == health_pb2.HealthCheckResponse.SERVING
        for stream in streams:
            assert next(stream).list_services_response.service


@pytest.mark.parametrize("engine", ENGINES)
def test_probes_whose_request_never_comes_do_not_stop_the_health_port(engine: str) -> None:
    """``--health-port``: probes held without their request (as from a stalled client)
    leave the next probe answered. The threads engine's probe server had two threads,
    and grpc's threaded server waits for a call's request in the call's thread: two such
    streams stopped every probe, and the kubelet would restart a healthy worker."""
    settings = ServerSettings(host="127.0.0.1", port=0, health_port=0)
    released = threading.Event()

    def held_request() -> Iterator[health_pb2.HealthCheckRequest]:
        released.wait(TIMEOUT)
        yield health_pb2.HealthCheckRequest()

    with InProcess(settings, engine=engine) as server:
        address = f"127.0.0.1:{server.server.health_port}"
        with (
            grpc.insecure_channel(address) as held_channel,
            grpc.insecure_channel(address, options=[("grpc.use_local_subchannel_pool", 1)]) as ch,
        ):
            check = streamed_check(held_channel)
            try:
                held = [check.future(held_request(), timeout=TIMEOUT) for _ in range(4)]
                answer = health_pb2_grpc.HealthStub(ch).Check(
                    health_pb2.HealthCheckRequest(), timeout=10
                )
                assert answer.status == health_pb2.HealthCheckResponse.SERVING
            finally:
                released.set()
            for call in held:
                assert call.result(timeout=TIMEOUT).status == health_pb2.HealthCheckResponse.SERVING


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("mode", ["accept", "refuse"])
def test_compressed_requests_are_served_unless_refused(engine: str, mode: str) -> None:
    """--compressed-requests: a gzip'd request is inflated and served under accept (gRPC's
    default), answered UNIMPLEMENTED under refuse, before the referee sees it; the same
    request uncompressed is served under both. Inflating stops at --max-message-bytes
    (RESOURCE_EXHAUSTED): 64 KiB of zeros is 90 bytes gzip'd, and 2 MiB 2 KB."""
    settings = ServerSettings(
        host="127.0.0.1", port=0, max_message_bytes=1 << 20, compressed_requests=mode
    )
    with (
        InProcess(settings, engine=engine) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        list_games = caller(channel, "ListGames")
        # Zeros in an unknown field: a valid request that compresses to almost nothing.
        small, bomb = unknown_field(15, bytes(64 << 10)), unknown_field(15, bytes(2 << 20))
        assert list_games(small, timeout=TIMEOUT).games  # uncompressed: served
        if mode == "accept":
            assert list_games(small, timeout=TIMEOUT, compression=grpc.Compression.Gzip).games
            with pytest.raises(grpc.RpcError) as bombed:
                list_games(bomb, timeout=TIMEOUT, compression=grpc.Compression.Gzip)
            assert bombed.value.code() is grpc.StatusCode.RESOURCE_EXHAUSTED
        else:
            for request in (small, bomb):
                for algorithm in (grpc.Compression.Gzip, grpc.Compression.Deflate):
                    with pytest.raises(grpc.RpcError) as refused:
                        list_games(request, timeout=TIMEOUT, compression=algorithm)
                    assert refused.value.code() is grpc.StatusCode.UNIMPLEMENTED
        assert list_games(small, timeout=TIMEOUT).games  # and the server still serves
