"""A gRPC-Web gateway to a Referee server, for browsers (``referee grpc-web``).

A web page cannot speak native gRPC: ``fetch`` gives no HTTP/2 trailers. It can speak
gRPC-Web (binary ``application/grpc-web+proto`` or base64 ``application/grpc-web-text``,
over HTTP/1.1 and through any HTTP proxy), which Connect's ``createGrpcWebTransport``
and Google's ``grpc-web`` clients send. This gateway takes those calls and forwards
each as one unary gRPC call to the target server, so what the server does for a call
(tokens, limits, sealed states and seat credentials, its log line and metrics) applies
unchanged: the gateway holds no rule and no state, and runs beside the server (a
sidecar) or apart from it. docs/clients.md "Browsers: gRPC-Web" says how to use it.

What it forwards: the request's one message; the ``authorization``, ``x-request-id``,
``traceparent`` and ``tracestate`` headers as metadata; ``grpc-timeout`` as the call's
deadline (at most ``call_timeout_seconds``). What it answers: the server's message, its
status, message and details (``grpc-status-details-bin``: the ``ErrorInfo`` reasons)
and its metadata, in the gRPC-Web framing, with CORS headers for the allowed origins.
Only the unary methods of ``referee.v1.RefereeService`` and ``grpc.health.v1.Health``
are forwarded; a streaming or unknown method is ``UNIMPLEMENTED``. Requests that are not
gRPC-Web calls get an HTTP error (415, 405, 411, 400); ``GET /healthz`` answers 200
while the gateway runs. A request must arrive whole within the idle timeout, and the
request bytes the gateway holds at once, all connections together, are bounded
(``max_buffered_bytes``): a call that would go over is ``RESOURCE_EXHAUSTED``.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import os
import re
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Final

import grpc

from referee.errors import RequestError
from referee.httpio import DeadlineReader
from referee.logs import get_logger

log = get_logger("referee.grpcweb")

# The request headers forwarded to the server as metadata: what the server reads
# (docs/operations.md: tokens, request ids, traces). Nothing else a browser sends
# (cookies above all) reaches it.
FORWARDED_HEADERS: Final = ("authorization", "x-request-id", "traceparent", "tracestate")
# What a page may read of an answer (CORS): the status, the details, the request id.
EXPOSED_HEADERS: Final = "grpc-status, grpc-message, grpc-status-details-bin, x-request-id"
BINARY_TYPES: Final = frozenset({"application/grpc-web", "application/grpc-web+proto"})
TEXT_TYPES: Final = frozenset({"application/grpc-web-text", "application/grpc-web-text+proto"})
PREFLIGHT_MAX_AGE: Final = "600"
# The HTTP errors the gateway answers instead of a call (counted by status).
REFUSAL_STATUSES: Final = (400, 404, 405, 411, 415, 503)
HANDSHAKE_SECONDS: Final = 10.0
TLS_CHECK_SECONDS: Final = 1.0

_TIMEOUT = re.compile(r"([0-9]{1,8})([HMSmun])")
_UNITS: Final = {"H": 3600.0, "M": 60.0, "S": 1.0, "m": 1e-3, "u": 1e-6, "n": 1e-9}
_METADATA_VALUE = re.compile(r"[\x20-\x7e]*")
_WHITESPACE = re.compile(rb"\s")
_CONTENT_LENGTH = re.compile(r"[0-9]{1,15}")  # ASCII digits: isdigit() also takes "²"
# What _WHITESPACE matches, for bytes.translate: one copy without it, where split() and
# join() would make an object of every piece (a body of "A A A ..." cost about 85 bytes
# of memory a byte that way).
_WHITESPACE_BYTES: Final = b" \t\n\r\x0b\x0c"
# A grpc-web-text body is base64, possibly in padded pieces one after another (a
# client that encodes each frame, or the frame's head and its message, apart). One
# call's body needs a few; each piece costs a step in Python, so more are refused.
MAX_TEXT_PIECES: Final = 64
# What a page sees of an UNAVAILABLE the gateway's own channel raised (gRPC's text
# names the target's address, which a page has no business knowing): the log has it.
UNAVAILABLE_MESSAGE: Final = "the gateway cannot reach the Referee server; try again"
# Reconnection to a target that was down is tried at least this often (gRPC's own
# backoff grows to 120 s, so a gateway would answer UNAVAILABLE for up to two
# minutes after its server came back).
MAX_RECONNECT_BACKOFF_MS: Final = 5000
# A request's body is read, and counted against max_buffered_bytes, this much at a time.
READ_CHUNK: Final = 64 * 1024
# The default of max_buffered_bytes: this, or two of the largest bodies when more.
DEFAULT_BUFFERED_BYTES: Final = 64 * 1024 * 1024


def unary_methods() -> frozenset[str]:
    """The paths the gateway forwards: every unary method of the Referee service and
    of the health service (``/referee.v1.RefereeService/ApplyAction``, ...)."""
    from grpc_health.v1 import health_pb2

    from referee.v1 import referee_pb2

    services = (
        referee_pb2.DESCRIPTOR.services_by_name["RefereeService"],
        health_pb2.DESCRIPTOR.services_by_name["Health"],
    )
    return frozenset(
        f"/{service.full_name}/{method.name}"
        for service in services
        for method in service.methods
        if not method.client_streaming and not method.server_streaming
    )


@dataclass(frozen=True)
class GatewaySettings:
    """What ``referee grpc-web`` serves with (checked by the command line)."""

    target: str = "localhost:50051"
    host: str = "0.0.0.0"
    port: int = 8080
    # Origins whose pages may call (CORS), "scheme://host[:port]"; "*": any page.
    # Empty: no CORS headers, so only pages of the gateway's own origin (behind the
    # same reverse proxy) can call.
    allow_origins: tuple[str, ...] = ()
    max_message_bytes: int = 16 * 1024 * 1024
    max_connections: int = 256
    # The request bytes held at once, all connections together: bodies over READ_CHUNK
    # from their first byte read to the server's answer. None: DEFAULT_BUFFERED_BYTES,
    # or two of the largest bodies if more.
    max_buffered_bytes: int | None = None
    call_timeout_seconds: float = 60.0
    idle_timeout_seconds: float = 60.0
    # On stop: GET /healthz answers 503 at once while calls are still served for this
    # long (the load balancer's time to stop sending new ones), then the listener closes.
    drain_delay_seconds: float = 0.0
    grace_seconds: float = 10.0
    channels: int = 4
    # HTTPS: PEM certificate chain and key, reloaded when their files change.
    tls_cert: Path | None = None
    tls_key: Path | None = None
    # How to reach the target: TLS credentials and channel options (the client
    # commands' --tls, --ca-file, --server-name, --cert-file, --key-file).
    target_credentials: grpc.ChannelCredentials | None = field(default=None, repr=False)
    target_options: tuple[tuple[str, Any], ...] = ()
    # Prometheus metrics over HTTP on this port (None: off; 0: any free port).
    metrics_host: str = "0.0.0.0"
    metrics_port: int | None = None

    def __post_init__(self) -> None:
        largest = body_limit(self.max_message_bytes, text=True)
        if self.max_buffered_bytes is not None and self.max_buffered_bytes < largest:
            raise ValueError(
                f"max_buffered_bytes must be at least {largest}: the body of one "
                "grpc-web-text request of max_message_bytes"
            )

    def buffered_bytes(self) -> int:
        """``max_buffered_bytes``, its default worked out."""
        if self.max_buffered_bytes is not None:
            return self.max_buffered_bytes
        return max(DEFAULT_BUFFERED_BYTES, 2 * body_limit(self.max_message_bytes, text=True))


def body_limit(max_message_bytes: int, *, text: bool) -> int:
    """The largest request body of a message of ``max_message_bytes``: its frame, in
    base64 for ``grpc-web-text`` (with room for padded pieces and whitespace)."""
    framed = max_message_bytes + 5
    return (framed + 2) // 3 * 4 + 1024 if text else framed


class GatewayMetrics:
    """The gateway's own metrics (``referee grpc-web --metrics-port``): what the
    server's cannot show, the calls as pages saw them (the gateway's time included,
    and the calls it refused itself), its connections and its HTTP refusals. Labels
    are bounded: a method the gateway does not forward counts as ``other``."""

    def __init__(self, methods: frozenset[str]) -> None:
        from prometheus_client import (
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            ProcessCollector,
            disable_created_metrics,
        )

        from referee import __version__
        from referee.metrics import LATENCY_BUCKETS

        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = reg = CollectorRegistry(auto_describe=True)
        ProcessCollector(registry=reg)
        self.calls = Counter(
            "referee_grpc_web_calls",
            "gRPC-Web calls answered, by method and gRPC status code (the server's, or the"
            " gateway's own refusal: a malformed body, over the size limit, not forwarded)",
            ("method", "code"),
            registry=reg,
        )
        self.latency = Histogram(
            "referee_grpc_web_call_duration_seconds",
            "Time from a call's request read by the gateway to its answer written, by method",
            ("method",),
            buckets=LATENCY_BUCKETS,
            registry=reg,
        )
        self.refusals = Counter(
            "referee_grpc_web_http_refusals",
            "Requests answered with an HTTP error instead of a call, by HTTP status (400,"
            " 404, 405, 411, 415; 503: over --max-connections)",
            ("status",),
            registry=reg,
        )
        self.connections = Gauge(
            "referee_grpc_web_connections", "Connections open to the gateway", registry=reg
        )
        self.buffered = Gauge(
            "referee_grpc_web_buffered_bytes",
            "Request bytes the gateway holds, all connections together: bodies over 64 KiB"
            " read and not yet answered (at most --max-buffered-bytes)",
            registry=reg,
        )
        self.buffer_full = Counter(
            "referee_grpc_web_buffer_full",
            "Calls refused RESOURCE_EXHAUSTED (GATEWAY_BUFFER_FULL) because their body would"
            " have gone over --max-buffered-bytes",
            registry=reg,
        )
        info = Gauge(
            "referee_grpc_web_build_info",
            "Always 1; the version of the gateway",
            ("version",),
            registry=reg,
        )
        info.labels(__version__).set(1)
        self._methods = {path: path.rsplit("/", 1)[1] for path in methods}
        for status in REFUSAL_STATUSES:
            self.refusals.labels(str(status))

    def call(self, path: str, code: str, seconds: float) -> None:
        method = self._methods.get(path, "other")
        self.calls.labels(method, code).inc()
        self.latency.labels(method).observe(seconds)

    def refused(self, status: int) -> None:
        self.refusals.labels(str(status)).inc()


class CallError(RequestError):
    """A call the gateway answers itself, with a gRPC status (and, with a ``reason``, a
    ``google.rpc.ErrorInfo`` in its details, as the server's own refusals carry)."""

    def status_lines(self) -> list[tuple[str, str]]:
        """Its status as header lines: ``grpc-status``, ``grpc-message``, and
        ``grpc-status-details-bin`` when it has a reason."""
        lines = [("grpc-status", str(self.code.value[0]))]
        if self.message:
            lines.append(("grpc-message", percent_encode(self.message)))
        if self.reason:
            details = self.to_status().SerializeToString()
            lines += _metadata_lines([("grpc-status-details-bin", details)])
        return lines


def parse_timeout(text: str) -> float:
    """A ``grpc-timeout`` header's seconds (gRPC over HTTP/2: 1 to 8 digits, a unit)."""
    match = _TIMEOUT.fullmatch(text.strip())
    if match is None:
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT, f"malformed grpc-timeout {text!r}")
    return int(match.group(1)) * _UNITS[match.group(2)]


def decode_text(body: bytes | bytearray) -> bytes:
    """A ``grpc-web-text`` body: base64, possibly several padded pieces one after another
    (at most ``MAX_TEXT_PIECES``)."""
    data = body.translate(None, _WHITESPACE_BYTES) if _WHITESPACE.search(body) else body
    out: list[bytes] = []
    start = 0
    try:
        pad = data.find(b"=")
        if pad < 0 or pad >= len(data) - 2:  # one piece: what clients send
            return base64.b64decode(data, validate=True)
        while start < len(data):
            if len(out) == MAX_TEXT_PIECES:
                raise CallError(
                    grpc.StatusCode.INVALID_ARGUMENT,
                    f"the grpc-web-text body is in over {MAX_TEXT_PIECES} base64 pieces",
                )
            end = data.find(b"=", start)
            if end < 0:
                end = len(data)
            else:
                while end < len(data) and data[end : end + 1] == b"=":
                    end += 1
            out.append(base64.b64decode(data[start:end], validate=True))
            start = end
    except (binascii.Error, ValueError):
        raise CallError(
            grpc.StatusCode.INVALID_ARGUMENT, "the grpc-web-text body is not base64"
        ) from None
    return b"".join(out)


def frame(flag: int, payload: bytes) -> bytes:
    """One gRPC-Web frame: the flag byte, the payload's length (4 bytes), the payload."""
    return bytes((flag,)) + len(payload).to_bytes(4, "big") + payload


def request_message(body: bytes | bytearray) -> bytes:
    """The one message of a unary call's body (one uncompressed data frame)."""
    if len(body) < 5:
        raise CallError(
            grpc.StatusCode.INVALID_ARGUMENT, "the request body is not a gRPC-Web message frame"
        )
    flag = body[0]
    length = int.from_bytes(body[1:5], "big")
    if flag & 0x80:
        raise CallError(grpc.StatusCode.INVALID_ARGUMENT, "a request carries no trailers")
    if flag & 0x01:
        raise CallError(
            grpc.StatusCode.UNIMPLEMENTED, "compressed messages are not supported: send identity"
        )
    if flag != 0 or len(body) != 5 + length:
        raise CallError(
            grpc.StatusCode.INVALID_ARGUMENT,
            "the request body must be exactly one gRPC-Web message frame",
        )
    return bytes(memoryview(body)[5:])


def percent_encode(message: str) -> str:
    """``grpc-message``'s encoding: UTF-8, bytes outside printable ASCII and ``%`` as %XX."""
    out = []
    for b in message.encode("utf-8"):
        out.append(chr(b) if 0x20 <= b <= 0x7E and b != 0x25 else f"%{b:02X}")
    return "".join(out)


def _metadata_lines(metadata: Sequence[tuple[str, Any]] | None) -> list[tuple[str, str]]:
    """gRPC metadata as header lines: ``-bin`` values in base64, other values as sent."""
    lines = []
    for key, value in metadata or ():
        if key.endswith("-bin"):
            raw = value if isinstance(value, bytes) else str(value).encode()
            lines.append((key, base64.b64encode(raw).decode("ascii")))
        else:
            lines.append((key, value.decode("latin-1") if isinstance(value, bytes) else value))
    return lines


class _Listener(ThreadingHTTPServer):
    """The HTTP/1.1 server: a thread per connection, at most ``max_connections``."""

    daemon_threads = True
    request_queue_size = 128

    def __init__(self, sock: socket.socket, gateway: Gateway) -> None:
        super().__init__(sock.getsockname()[:2], _Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = sock
        self.server_address = sock.getsockname()
        self.server_name, self.server_port = str(self.server_address[0]), self.server_address[1]
        self.gateway = gateway

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.gateway.slots.acquire(blocking=False):
            if self.gateway.metrics is not None:
                self.gateway.metrics.refused(503)
            # Over HTTPS nothing is written: the connection has had no handshake, and a
            # plain-text answer would reach the client as a broken handshake. A closed
            # connection is what a client retries.
            if not self.gateway.serves_tls:
                with contextlib.suppress(OSError):
                    request.sendall(
                        b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
                        b"Retry-After: 1\r\nConnection: close\r\n\r\n"
                    )
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.gateway.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that broke (a failed TLS handshake, a reset, a client too slow):
        one debug line, not socketserver's traceback on stderr; anything else is a bug
        of the gateway's, logged as an error with its stack."""
        import sys

        error = sys.exc_info()[1]
        if isinstance(error, OSError):  # ssl.SSLError and TimeoutError included
            log.debug("grpc_web_connection_error", error=type(error).__name__)
        else:
            log.error("grpc_web_failed", error=type(error).__name__, exc_info=True)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Listener
    server_version = "referee-grpc-web"
    sys_version = ""

    # The errors http.server answers itself (a malformed request line, too many or too
    # long headers, an unknown method): plain text, as the gateway's own.
    error_content_type = "text/plain; charset=utf-8"
    error_message_format = "%(code)d %(message)s\n"

    def version_string(self) -> str:
        return self.server_version

    # An answer's headers and body leave in one write (the handler flushes after each
    # request), with no Nagle delay: two small writes would wait for the client's
    # delayed ACK, about 40 ms a call.
    wbufsize = 64 * 1024
    _continue = False  # the request asked for 100 Continue (handle_expect_100)

    def setup(self) -> None:
        gateway = self.server.gateway
        with contextlib.suppress(OSError):
            self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        context = gateway.tls_context()
        if context is not None:
            self.request.settimeout(HANDSHAKE_SECONDS)
            self.request = context.wrap_socket(self.request, server_side=True)
        self.request.settimeout(gateway.settings.idle_timeout_seconds)
        gateway.connection_opened(self.request)
        super().setup()
        self.rfile.close()
        self._reader = DeadlineReader(self.request, gateway.settings.idle_timeout_seconds)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        self._reader.restart()
        self._continue = False
        super().handle_one_request()

    def handle_expect_100(self) -> bool:
        """``Expect: 100-continue``: the client waits for ``100 Continue`` before its
        body. Sent only once the call is checked and its body about to be read
        (``_post``): a call refused on its headers, or one whose body would not fit in
        --max-buffered-bytes at that moment, is answered at once, body unsent."""
        self._continue = True
        return True

    def parse_request(self) -> bool:
        """http.server's parsing, then the body's framing: a request whose length is
        ambiguous (Content-Length headers that disagree) is refused, and one that is not
        a POST but has a body is answered, then its connection closed (its body unread,
        it must not be taken for the next request: request smuggling)."""
        if not super().parse_request():
            return False
        lengths = {v.strip() for v in self.headers.get_all("Content-Length") or ()}
        if len(lengths) > 1:
            self._http_error(400, "conflicting Content-Length headers", close=True)
            return False
        if self.command != "POST" and ("Transfer-Encoding" in self.headers or lengths - {"0"}):
            self.close_connection = True
        return True

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.gateway.connection_closed(self.request)
            if isinstance(self.request, ssl.SSLSocket):
                self.request.close()

    def log_message(self, format: str, *args: Any) -> None:
        """No access log: the server logs every call it answers."""

    # ------------------------------------------------------------------ HTTP

    def _cors(self) -> list[tuple[str, str]]:
        origin = self.headers.get("Origin")
        if origin is None:
            return []
        allowed = self.server.gateway.origins
        if "*" in allowed:
            return [
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Expose-Headers", EXPOSED_HEADERS),
            ]
        if origin.lower() in allowed:
            return [
                ("Access-Control-Allow-Origin", origin),
                ("Access-Control-Expose-Headers", EXPOSED_HEADERS),
                ("Vary", "Origin"),
            ]
        return [("Vary", "Origin")]

    def _send(self, status: int, headers: Sequence[tuple[str, str]], body: bytes = b"") -> None:
        self.send_response(status)
        for key, value in headers:
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(body)))
        if self.server.gateway.stopping or self.close_connection:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        if body and self.command != "HEAD":
            self.wfile.write(body)

    def _http_error(self, status: int, text: str, close: bool = False) -> None:
        log.info("grpc_web_refused", http_status=status, path=self.path[:200])
        if self.server.gateway.metrics is not None:
            self.server.gateway.metrics.refused(status)
        if close:
            self.close_connection = True
        body = (text + "\n").encode()
        self._send(status, [("Content-Type", "text/plain; charset=utf-8"), *self._cors()], body)

    def do_OPTIONS(self) -> None:
        """A CORS preflight: allowed for the configured origins, refused (403) else."""
        cors = self._cors()
        if not any(key == "Access-Control-Allow-Origin" for key, _ in cors):
            self._send(403, [("Vary", "Origin")])
            return
        requested = self.headers.get("Access-Control-Request-Headers", "")
        self._send(
            204,
            [
                *cors,
                ("Access-Control-Allow-Methods", "POST"),
                ("Access-Control-Allow-Headers", requested),
                ("Access-Control-Max-Age", PREFLIGHT_MAX_AGE),
            ],
        )

    def do_GET(self) -> None:
        if self.path == "/healthz":
            if self.server.gateway.draining:
                self._send(503, [("Content-Type", "text/plain; charset=utf-8")], b"stopping\n")
            else:
                self._send(200, [("Content-Type", "text/plain; charset=utf-8")], b"ok\n")
        else:
            self._http_error(404, "not found: gRPC-Web calls are POST /package.Service/Method")

    do_HEAD = do_GET

    def _not_allowed(self) -> None:
        self._http_error(405, "gRPC-Web calls are POST")

    do_PUT = do_DELETE = do_PATCH = _not_allowed

    def do_POST(self) -> None:
        started = time.perf_counter()
        code = self._post()
        metrics = self.server.gateway.metrics
        if code is not None and metrics is not None:
            metrics.call(self.path, code, time.perf_counter() - started)

    def _post(self) -> str | None:
        """Answer a POST; the call's gRPC status code name (None: no call answered, an
        HTTP error or a body cut short)."""
        gateway = self.server.gateway
        content_type = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
        if content_type in BINARY_TYPES:
            text = False
        elif content_type in TEXT_TYPES:
            text = True
        else:
            # Its body unread: closed after the answer, or the body would be served as
            # the next request (request smuggling behind a proxy that reuses connections).
            self._http_error(
                415, "a gRPC-Web call's Content-Type is application/grpc-web+proto", close=True
            )
            return None
        if "Transfer-Encoding" in self.headers:  # chunked or any other: not read
            self._http_error(411, "a gRPC-Web call needs a Content-Length", close=True)
            return None
        length_text = self.headers.get("Content-Length")
        if length_text is None or not _CONTENT_LENGTH.fullmatch(length_text.strip()):
            self._http_error(411, "a gRPC-Web call needs a Content-Length", close=True)
            return None
        length = int(length_text)
        limit = body_limit(gateway.settings.max_message_bytes, text=text)
        if length > limit:
            # Not read: the connection closes after the answer.
            self.close_connection = True
            return self._grpc_reply(
                text,
                CallError(
                    grpc.StatusCode.RESOURCE_EXHAUSTED,
                    f"request of {length} bytes, over the limit of "
                    f"{gateway.settings.max_message_bytes} bytes a message",
                ),
            )
        if self._continue:
            if length > READ_CHUNK and not gateway.fits(length):
                # The client waits for 100 Continue before sending: refused now, its
                # body unsent rather than sent and dropped. Unread, so not kept.
                self.close_connection = True
                return self._grpc_reply(text, gateway.buffer_full())
            self.send_response_only(100)
            self.end_headers()
            self.wfile.flush()  # buffered (wbufsize) until the answer otherwise
        # In flight from here to the answer written: a stop gives the grace to a body
        # still arriving and to an answer still being written, not only to the call.
        gateway.enter()
        try:
            outcome = self._forward(length, text)
            return None if outcome is None else self._grpc_reply(text, outcome)
        finally:
            gateway.leave()

    def _forward(self, length: int, text: bool) -> CallError | _Answer | None:
        """Read the body of ``length`` bytes and forward the call: the outcome to answer
        (None: the body was cut short, nothing to answer).

        The body is read a chunk at a time, each counted against --max-buffered-bytes
        as it arrives (so what is counted is what is held: a client that announces a
        large body and sends it slowly holds no more than it has sent). A chunk over the
        limit drops the body: the rest is read and dropped, so that the refusal is an
        answer on a connection that stays usable, not a reset. The chunks go into one
        bytearray (grown in place, where joining pieces would hold the body twice).
        A body of one chunk is not counted: it is held no longer than its call, and
        what such bodies hold is bounded by --max-connections (each connection already
        holds a chunk's buffer while one arrives). So no client, by holding large
        bodies, can refuse the small calls (moves, checks) every page makes."""
        gateway = self.server.gateway
        body = bytearray()
        held = 0
        over = False
        counted = length > READ_CHUNK
        try:
            left = length
            while left:
                piece = self.rfile.read(min(READ_CHUNK, left))
                if not piece:  # the client closed or was cut at the idle timeout
                    self.close_connection = True
                    return None
                left -= len(piece)
                if over:
                    continue
                if not counted:
                    body += piece
                elif gateway.hold(len(piece)):
                    held += len(piece)
                    body += piece
                else:
                    over = True
                    body = bytearray()
                    gateway.release(held)
                    held = 0
            if over:
                return gateway.buffer_full()
            return gateway.call(self.path, body, text, self.headers)
        finally:
            gateway.release(held)

    def _grpc_reply(self, text: bool, outcome: CallError | _Answer) -> str:
        """The gRPC-Web answer: a message frame and a trailer frame when the call
        succeeded; a trailers-only answer (the status in the headers) when not.
        Returns the status code's name."""
        content_type = "application/grpc-web-text+proto" if text else "application/grpc-web+proto"
        headers = [("Content-Type", content_type), *self._cors()]
        if isinstance(outcome, CallError):
            log.info(
                "grpc_web_refused",
                code=outcome.code.name,
                path=self.path[:200],
                **({"reason": outcome.reason} if outcome.reason else {}),
            )
            self._send(200, [*headers, *outcome.status_lines()])
            return outcome.code.name
        headers += outcome.headers
        if outcome.message is None:  # the server's error: trailers only
            self._send(200, [*headers, *outcome.trailers])
            return outcome.code
        trailer = "".join(f"{k}:{v}\r\n" for k, v in outcome.trailers).encode("latin-1")
        # One copy of the message (frame() + frame() would make two).
        message = outcome.message
        body = b"".join((b"\x00" + len(message).to_bytes(4, "big"), message, frame(0x80, trailer)))
        if text:
            body = base64.b64encode(body)
        self._send(200, headers, body)
        return outcome.code


@dataclass(slots=True)
class _Answer:
    """The server's answer to a forwarded call, as HTTP header lines."""

    message: bytes | None
    headers: list[tuple[str, str]]
    trailers: list[tuple[str, str]]
    code: str = "OK"  # the status code's name


class Gateway:
    """The gateway: its listening socket, its channels to the target, its calls."""

    def __init__(self, settings: GatewaySettings, sock: socket.socket | None = None) -> None:
        from referee.metrics import bind_socket

        self.settings = settings
        self.methods = unary_methods()
        # Origins compare as browsers send them: lower case, no trailing slash.
        self.origins = frozenset(o.lower().rstrip("/") for o in settings.allow_origins)
        self.slots = threading.BoundedSemaphore(settings.max_connections)
        self.stopping = False  # answers say Connection: close
        self.draining = False  # /healthz says 503
        self._drain_cut = threading.Event()
        self._lock = threading.Lock()
        self._in_flight = 0
        self.buffer_limit = settings.buffered_bytes()
        self._buffered = 0  # request bytes held (hold, release)
        self._connections: set[socket.socket] = set()
        self._tls: ssl.SSLContext | None = None
        self._tls_stamp: tuple[float, float] | None = None
        self._tls_checked = 0.0
        if settings.tls_cert is not None:
            self._tls = self._load_tls()
        options = [
            ("grpc.max_receive_message_length", settings.max_message_bytes),
            ("grpc.max_send_message_length", settings.max_message_bytes),
            # Each channel its own connection: a server with several workers shares
            # connections among them, not calls (docs/deploy.md).
            ("grpc.use_local_subchannel_pool", 1),
            ("grpc.max_reconnect_backoff_ms", MAX_RECONNECT_BACKOFF_MS),
            *settings.target_options,
        ]
        self._channels = [
            grpc.secure_channel(settings.target, settings.target_credentials, options=options)
            if settings.target_credentials is not None
            else grpc.insecure_channel(settings.target, options=options)
            for _ in range(settings.channels)
        ]
        self._callables: list[dict[str, Any]] = [{} for _ in self._channels]
        self._next = 0
        self.metrics: GatewayMetrics | None = None
        self.metrics_port: int | None = None
        self._metrics_sock: socket.socket | None = None
        self._metrics_server: Any = None
        listen = sock or bind_socket(settings.host, settings.port)
        if settings.metrics_port is not None:
            try:
                self._metrics_sock = bind_socket(settings.metrics_host, settings.metrics_port)
            except OSError:
                listen.close()
                raise
            self.metrics = GatewayMetrics(self.methods)
            self.metrics_port = self._metrics_sock.getsockname()[1]
        self._listener = _Listener(listen, self)
        self._thread: threading.Thread | None = None
        self.port: int = self._listener.server_address[1]

    # ------------------------------------------------------------------ TLS

    def _stamp(self) -> tuple[float, float]:
        assert self.settings.tls_cert is not None and self.settings.tls_key is not None
        return (os.stat(self.settings.tls_cert).st_mtime, os.stat(self.settings.tls_key).st_mtime)

    def _load_tls(self) -> ssl.SSLContext:
        assert self.settings.tls_cert is not None and self.settings.tls_key is not None
        stamp = self._stamp()
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.set_alpn_protocols(["http/1.1"])
        context.load_cert_chain(self.settings.tls_cert, self.settings.tls_key)
        self._tls_stamp = stamp
        return context

    @property
    def serves_tls(self) -> bool:
        """Whether connections are HTTPS (``--tls-cert``)."""
        return self._tls is not None

    def tls_context(self) -> ssl.SSLContext | None:
        """The HTTPS context for a new connection; reloaded when the files changed (at
        most once a second), the last good one kept when the new files do not load."""
        if self._tls is None:
            return None
        now = time.monotonic()
        if now - self._tls_checked >= TLS_CHECK_SECONDS:
            with self._lock:
                self._tls_checked = now
                try:
                    changed = self._stamp() != self._tls_stamp
                    if changed:
                        self._tls = self._load_tls()
                        log.info("tls_reloaded", cert=str(self.settings.tls_cert))
                except (OSError, ssl.SSLError, ValueError) as e:
                    log.warning(
                        "tls_reload_refused", error=type(e).__name__, serving="the last good files"
                    )
        return self._tls

    # ------------------------------------------------------------------ calls

    def hold(self, n: int) -> bool:
        """Count ``n`` more request bytes held, unless that would go over the limit."""
        with self._lock:
            if self._buffered + n > self.buffer_limit:
                return False
            self._buffered += n
        if self.metrics is not None:
            self.metrics.buffered.inc(n)
        return True

    def fits(self, n: int) -> bool:
        """Whether ``n`` more request bytes would fit now (``hold`` still decides, as
        they arrive)."""
        with self._lock:
            return self._buffered + n <= self.buffer_limit

    def release(self, n: int) -> None:
        if n:
            with self._lock:
                self._buffered -= n
            if self.metrics is not None:
                self.metrics.buffered.dec(n)

    def buffer_full(self) -> CallError:
        if self.metrics is not None:
            self.metrics.buffer_full.inc()
        return CallError(
            grpc.StatusCode.RESOURCE_EXHAUSTED,
            f"the gateway holds as many request bytes as it may at once "
            f"({self.buffer_limit}, --max-buffered-bytes); retry with backoff",
            reason="GATEWAY_BUFFER_FULL",
            metadata={"limit_bytes": str(self.buffer_limit)},
        )

    @property
    def calls_in_flight(self) -> int:
        """Calls from their body's first byte read to their answer written."""
        return self._in_flight

    def enter(self) -> None:
        with self._lock:
            self._in_flight += 1

    def leave(self) -> None:
        with self._lock:
            self._in_flight -= 1

    def connection_opened(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.add(conn)
        if self.metrics is not None:
            self.metrics.connections.inc()

    def connection_closed(self, conn: socket.socket) -> None:
        with self._lock:
            self._connections.discard(conn)
        if self.metrics is not None:
            self.metrics.connections.dec()

    def _callable(self, path: str) -> Any:
        with self._lock:
            i = self._next
            self._next = (i + 1) % len(self._channels)
        known = self._callables[i]
        method = known.get(path)
        if method is None:
            method = known[path] = self._channels[i].unary_unary(path, None, None)
        return method

    def call(
        self, path: str, body: bytes | bytearray, text: bool, headers: Any
    ) -> CallError | _Answer:
        """Forward one call; the server's answer, or the gateway's own refusal."""
        try:
            if path not in self.methods:
                raise CallError(
                    grpc.StatusCode.UNIMPLEMENTED,
                    f"{path!r} is not a unary method of referee.v1.RefereeService or "
                    "grpc.health.v1.Health",
                )
            message = request_message(decode_text(body) if text else body)
            timeout = self.settings.call_timeout_seconds
            given = headers.get("grpc-timeout")
            if given is not None:
                timeout = min(timeout, parse_timeout(given))
            metadata = []
            for key in FORWARDED_HEADERS:
                for value in headers.get_all(key) or ():
                    if not _METADATA_VALUE.fullmatch(value):
                        raise CallError(
                            grpc.StatusCode.INVALID_ARGUMENT,
                            f"header {key} is not printable ASCII",
                        )
                    metadata.append((key, value.strip()))
        except CallError as e:
            return e
        method = self._callable(path)
        try:
            response, call = method.with_call(message, timeout=timeout, metadata=metadata)
        except grpc.RpcError as e:
            failed: Any = e
            trailers = [("grpc-status", str(failed.code().value[0]))]
            details = failed.details()
            if failed.code() == grpc.StatusCode.UNAVAILABLE:
                log.warning(
                    "grpc_web_target_unavailable", target=self.settings.target, error=details
                )
                details = UNAVAILABLE_MESSAGE
            if details:
                trailers.append(("grpc-message", percent_encode(details)))
            trailers += _metadata_lines(failed.trailing_metadata())
            return _Answer(
                None, _metadata_lines(failed.initial_metadata()), trailers, failed.code().name
            )
        trailers = [("grpc-status", "0"), *_metadata_lines(call.trailing_metadata())]
        return _Answer(response, _metadata_lines(call.initial_metadata()), trailers)

    # ------------------------------------------------------------------ life

    def cut_drain(self) -> None:
        """End a stop's drain delay now (a second SIGTERM or SIGINT)."""
        self._drain_cut.set()

    def start(self) -> int:
        """Serve in a background thread; returns the bound port."""
        self._thread = threading.Thread(
            target=self._listener.serve_forever, name="grpc-web-accept", daemon=True
        )
        self._thread.start()
        if self._metrics_sock is not None and self.metrics is not None:
            from referee.metrics import serve_in_thread

            self._metrics_server = serve_in_thread(self._metrics_sock, self.metrics.registry)
        s = self.settings
        log.info(
            "grpc_web_serving",
            address=f"{s.host}:{self.port}",
            port=self.port,
            metrics_port=self.metrics_port,
            target=s.target,
            target_tls=s.target_credentials is not None,
            tls="on" if s.tls_cert is not None else "off",
            allow_origins=list(s.allow_origins),
        )
        return self.port

    def stop(self) -> None:
        """Drain, then stop: ``/healthz`` answers 503 while calls are served on for the
        drain delay (:meth:`cut_drain` ends it sooner); then no new connection is
        taken, the calls in flight finish (at most the grace) answered with
        ``Connection: close``, and every connection is closed."""
        s = self.settings
        self.draining = True
        log.info(
            "grpc_web_stopping",
            drain_delay_seconds=s.drain_delay_seconds,
            grace_seconds=s.grace_seconds,
        )
        if s.drain_delay_seconds > 0:
            self._drain_cut.wait(s.drain_delay_seconds)
        self.stopping = True
        self._listener.shutdown()
        self._listener.server_close()
        deadline = time.monotonic() + self.settings.grace_seconds
        while self._in_flight and time.monotonic() < deadline:
            time.sleep(0.01)
        with self._lock:
            connections = list(self._connections)
        for conn in connections:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)
        for channel in self._channels:
            channel.close()
        if self._metrics_server is not None:
            self._metrics_server.shutdown()
        if self._metrics_sock is not None:
            self._metrics_sock.close()
        log.info("grpc_web_stopped", calls_in_flight=self._in_flight)
