"""Process start: the gRPC server with health, reflection, interceptors,
logging, metrics, authentication, TLS, limits and graceful shutdown.

One server runs in each worker process (``referee.workers`` forks them) or in the
only process (``--workers 1``), on one of two engines (``--engine``):
:class:`RefereeServer` on grpc.aio, or :class:`referee.threaded.ThreadedRefereeServer`
on grpc's threaded server. Both share :class:`ServerBase` and :class:`CallBook`.
"""

from __future__ import annotations

import asyncio
import gc
import inspect
import logging
import threading
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from time import perf_counter
from typing import TYPE_CHECKING, Any, Final

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import _async as reflection_aio
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

from referee import __version__, build
from referee.auth import TokenSet
from referee.calls import (
    ARRIVED,
    CLIENT,
    Book,
    Large,
    Malformed,
    ended_early,
    malformed,
    tolerant,
)
from referee.coalesce import Coalescer
from referee.codec import all_codecs
from referee.errors import RequestError, oversize, request_bytes_busy
from referee.keyfile import KeyWatch
from referee.logs import RPC_LOGGER, get_logger, rpc_level
from referee.sealing import Keyring
from referee.service import (
    CURRENT_CALL,
    DEFAULT_MAX_REPLAY_CPU_SECONDS,
    Limits,
    Referee,
    RefereeServicer,
    Serialized,
    abort_with,
)
from referee.tls import TlsFiles
from referee.tracing import FLUSH_SECONDS, Tracing
from referee.tracing import MODES as TRACING_MODES
from referee.tracing import endpoint as tracing_endpoint
from referee.v1 import referee_pb2, referee_pb2_grpc

if TYPE_CHECKING:
    from referee.metrics import Metrics

SERVICE_NAME = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"].full_name
HEALTH_SERVICE_NAME = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name
# Server reflection's stable name; grpcio-reflection serves only v1alpha (same messages).
REFLECTION_V1 = "grpc.reflection.v1.ServerReflection"
DEFAULT_PORT = 50051
# The smallest --max-message-bytes the command line takes: every answer but a Replay's
# and one carrying a large state fits in far less (tests/ops/test_limits.py measures the
# largest: about 180 KB, an ApplyAction of 13 seats with 32 views; a state up to
# service.LARGE_STATE_BYTES with 32 views, under 600 KB), so only those can be over the
# limit, and they are refused with their reason (RESPONSE_TOO_LARGE: the Replay's by its
# handler, the large state's by the Referee as its views are made) instead of gRPC's bare
# failure to send them after the call was logged as answered.
MIN_MESSAGE_BYTES = 1024 * 1024
# The smallest --max-request-bytes-in-flight but 0 (no limit): requests of 64 KiB or
# less (calls.LARGE_REQUEST_BYTES) are not counted, so a limit near that would refuse
# every large request but one at a time.
MIN_REQUEST_BYTES_IN_FLIGHT = 1024 * 1024
ENGINES = ("asyncio", "threads")
ENGINE_CHOICES = ("auto", *ENGINES)  # auto: threads where a worker has a CPU of its own
DEFAULT_ENGINE = "auto"
DEFAULT_THREADS = 8
# Streams (calls) one HTTP/2 connection may have open at once, advertised to clients as
# SETTINGS_MAX_CONCURRENT_STREAMS; gRPC's own default is no limit. Every open stream
# costs the server about 21 KB whether or not its request ever comes: one connection
# opening 30,000 streams with 15-byte HEADERS frames (450 KB) took a worker from 55 to
# 693 MB, for as long as the connection lived. Streams over the limit are refused
# (RST_STREAM REFUSED_STREAM); so are those of a "rapid reset" flood past it, since gRPC
# counts a stream its client reset until the server is done with it (without the limit
# such a flood filled gRPC's queue of calls not yet taken, and gRPC answered other
# clients' calls CANCELLED). grpcio's client does not wait for a free stream: it
# sends the call, which fails UNAVAILABLE (a limit of 100 refused 34 of a burst of 150
# calls on one channel), so the limit is far above what one connection of a client
# has in flight: the benchmarks keep 16, the gRPC-Web gateway 64 (--max-connections 256
# over its 4 channels), and a worker admits 256 under the Deployment's
# --max-concurrent-rpcs.
MAX_STREAMS_PER_CONNECTION = 1000
# How long a new connection may take to complete its handshake (TLS, then the HTTP/2
# preface and first SETTINGS) before gRPC closes it; gRPC's own default is 120 s. A
# connection that sends nothing holds a file descriptor and about 14 KB of a worker
# until then (3,000 silent connections: 55 to 97 MB, on either engine), and a worker at
# its open-files limit accepts no one ("File descriptor limit reached. Retrying."):
# 10 s is ample for a handshake over any network and cuts what a client can hold that
# way twelvefold. A connection whose handshake is done is not affected.
DEFAULT_HANDSHAKE_TIMEOUT_SECONDS = 10.0
PROBE_STREAMS_PER_CONNECTION = 16  # the same on --health-port, where probes come one by one
# Compressed requests (grpc-encoding gzip or deflate): "accept" (gRPC's default) or
# "refuse" (gRPC answers UNIMPLEMENTED before the referee sees the call). gRPC inflates
# a request whole, up to max_message_bytes, before any check of ours, tokens included:
# a 15 KB gzip'd request of 15 MiB cost a worker 70 - 90 ms of CPU and 46 MB at its
# peak, with or without a valid token, and a 100,000-action Replay of 1.6 MB (a second
# of CPU) is 3 KB gzip'd. Refused, they cost nothing measurable.
COMPRESSED_REQUESTS = ("accept", "refuse")
# grpc.compression_enabled_algorithms_bitset: bit 0 is identity, 1 deflate, 2 gzip.
IDENTITY_ONLY = 1
# Threads of the threads engine's --health-port server, made as needed: a probe whose
# request never comes holds one until its connection ends (grpc's threaded server waits
# for a request in the call's thread), so a few such streams must not stop the probes.
PROBE_THREADS = 64
# How often a stop looks whether calls are still in flight (ServerBase._quiescing).
QUIESCE_POLL_SECONDS = 0.005

log = get_logger("referee.server")


def enable_reflection(server: Any) -> None:
    """Server reflection, as ``grpc.reflection.v1alpha.ServerReflection`` (what
    grpcio-reflection serves) and as ``grpc.reflection.v1.ServerReflection`` (what newer
    tools ask first): v1 is v1alpha's protocol under another package name, the same
    messages field for field, so one servicer answers both. Only v1alpha is listed:
    this process has no descriptor of v1 to describe it with."""
    names = (SERVICE_NAME, HEALTH_SERVICE_NAME, reflection.SERVICE_NAME)
    if isinstance(server, grpc.aio.Server):
        servicer: Any = reflection_aio.ReflectionServicer(names)
    else:
        servicer = reflection.ReflectionServicer(names)
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)
    info = grpc.stream_stream_rpc_method_handler(
        servicer.ServerReflectionInfo,
        request_deserializer=reflection_pb2.ServerReflectionRequest.FromString,
        response_serializer=reflection_pb2.ServerReflectionResponse.SerializeToString,
    )
    server.add_generic_rpc_handlers(
        (grpc.method_handlers_generic_handler(REFLECTION_V1, {"ServerReflectionInfo": info}),)
    )


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """Everything a worker needs to serve (validated by the CLI)."""

    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    max_message_bytes: int = 16 * 1024 * 1024
    grace_seconds: float = 10.0
    max_replay_actions: int = 100_000
    # The CPU one Replay may use before it is stopped (RESOURCE_EXHAUSTED, reason
    # REPLAY_CPU_LIMIT); 0: no limit.
    max_replay_cpu_seconds: float = DEFAULT_MAX_REPLAY_CPU_SECONDS
    # The rules versions NewGame starts games under, where not a game's newest (at most
    # one per game; held back while a rollout that adds a version is under way).
    new_game_rules: tuple[str, ...] = ()
    # Sealing (docs/trust.md): key material is never shown in a repr.
    seal_keys: tuple[tuple[str, bytes], ...] = field(default=(), repr=False)
    require_sealed: bool = False
    # The token format written (2 for the first step of a rolling upgrade from a release
    # that reads only format 2: docs/trust.md); both are read.
    seal_format: int = 3
    # The file the keys were read from (None: REFEREE_SEAL_KEYS): followed, so that a
    # rotation step needs no restart (referee.keyfile).
    seal_keys_file: Path | None = field(default=None, repr=False)
    # Limits and connections
    max_concurrent_rpcs: int = 0  # per worker; 0: no limit
    # Replays in flight per worker (each holds its request and answer parsed: about
    # 45 MiB at the 100,000-action cap); 0: no limit but max_concurrent_rpcs.
    max_concurrent_replays: int = 0
    # The bytes of large requests a worker serves at once (calls.LARGE_REQUEST_BYTES);
    # 0: no limit. A request over it alone is refused too.
    max_request_bytes_in_flight: int = 0
    coalesce_us: int = 200  # under load, short calls run in batches (0: never)
    keepalive_time_seconds: float = 60.0
    keepalive_timeout_seconds: float = 20.0
    keepalive_min_client_interval_seconds: float = 10.0
    max_connection_age_seconds: float = 0.0  # 0: unlimited
    max_connection_age_grace_seconds: float = 60.0
    max_connection_idle_seconds: float = 0.0  # 0: unlimited
    handshake_timeout_seconds: float = DEFAULT_HANDSHAKE_TIMEOUT_SECONDS
    compressed_requests: str = "accept"  # or "refuse" (COMPRESSED_REQUESTS)
    drain_delay_seconds: float = 0.0
    # Probes, TLS, auth
    health_host: str = "0.0.0.0"
    health_port: int | None = None  # a separate plaintext port serving only health
    tls: TlsFiles | None = None
    auth: TokenSet | None = None
    # Processes (the supervisor's business; a worker uses so_reuseport when > 1)
    workers: int = 1
    # With workers > 1: a worker silent this long (no heartbeat: its event loop, or
    # the whole process, stuck) is killed and restarted by the supervisor (0: never).
    worker_hang_seconds: float = 30.0
    # The serving engine: "asyncio" (grpc.aio, coalescing), "threads" (grpc's
    # threaded server, `threads` handler threads, each worker on a CPU of its own
    # where the CPUs are the workers' own: referee.threaded), or "auto": threads where
    # the workers can be pinned so, asyncio elsewhere (engine_for).
    engine: str = DEFAULT_ENGINE
    threads: int = DEFAULT_THREADS
    metrics_host: str = "0.0.0.0"
    metrics_port: int | None = None
    # Spans to an OpenTelemetry collector: "off" or "otlp" (referee.tracing; where to,
    # sampling and resource from OpenTelemetry's OTEL_* variables).
    tracing: str = "off"

    def __post_init__(self) -> None:
        if self.tracing not in TRACING_MODES:
            raise ValueError(f"tracing must be one of {', '.join(TRACING_MODES)}")
        if self.compressed_requests not in COMPRESSED_REQUESTS:
            raise ValueError(f"compressed_requests must be one of {', '.join(COMPRESSED_REQUESTS)}")
        if self.max_replay_cpu_seconds < 0:
            raise ValueError("max_replay_cpu_seconds must be 0 (no limit) or more")
        if self.max_request_bytes_in_flight and not (
            self.max_request_bytes_in_flight >= MIN_REQUEST_BYTES_IN_FLIGHT
        ):
            raise ValueError(
                "max_request_bytes_in_flight must be 0 (no limit) or at least "
                f"{MIN_REQUEST_BYTES_IN_FLIGHT} (1 MiB): requests under 64 KiB are not counted"
            )
        for name in ("max_concurrent_rpcs", "max_concurrent_replays"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be 0 (no limit) or more")
        if not self.handshake_timeout_seconds > 0:
            raise ValueError("handshake_timeout_seconds must be more than 0")
        # The command line refuses less (--max-message-bytes); so does an embedded
        # server: below it, an answer could outgrow the limit after being logged OK.
        if self.max_message_bytes < MIN_MESSAGE_BYTES:
            raise ValueError(
                f"max_message_bytes must be at least {MIN_MESSAGE_BYTES} (1 MiB): "
                "every answer but a Replay's must fit"
            )

    def grpc_options(self) -> list[tuple[str, Any]]:
        options: list[tuple[str, Any]] = [
            ("grpc.max_receive_message_length", self.max_message_bytes),
            ("grpc.max_send_message_length", self.max_message_bytes),
            ("grpc.so_reuseport", 1 if self.workers > 1 else 0),
            ("grpc.keepalive_time_ms", _ms(self.keepalive_time_seconds)),
            ("grpc.keepalive_timeout_ms", _ms(self.keepalive_timeout_seconds)),
            # Clients may ping idle connections (their keepalive), but not too often.
            ("grpc.keepalive_permit_without_calls", 1),
            (
                "grpc.http2.min_ping_interval_without_data_ms",
                _ms(self.keepalive_min_client_interval_seconds),
            ),
            ("grpc.http2.max_ping_strikes", 2),
            ("grpc.max_concurrent_streams", MAX_STREAMS_PER_CONNECTION),
            ("grpc.server_handshake_timeout_ms", _ms(self.handshake_timeout_seconds)),
        ]
        if self.max_connection_age_seconds > 0:
            options += [
                ("grpc.max_connection_age_ms", _ms(self.max_connection_age_seconds)),
                ("grpc.max_connection_age_grace_ms", _ms(self.max_connection_age_grace_seconds)),
            ]
        if self.max_connection_idle_seconds > 0:
            options.append(("grpc.max_connection_idle_ms", _ms(self.max_connection_idle_seconds)))
        if self.compressed_requests == "refuse":
            options.append(("grpc.compression_enabled_algorithms_bitset", IDENTITY_ONLY))
        return options


def _ms(seconds: float) -> int:
    """``seconds`` as gRPC's options take a duration."""
    return int(seconds * 1000)


if TYPE_CHECKING:
    Ctx = grpc.aio.ServicerContext[Any, Any]
    MethodHandler = grpc.RpcMethodHandler[Any, Any]
    Handler = Callable[[Any, Ctx], Awaitable[Any]]


@dataclass(slots=True)
class _Method:
    """What the interceptor prepared for one method: the wrapped handler and the
    handlers that refuse a call (no token; a token not allowed this method; too many
    calls), all logged and counted."""

    handler: Any
    unauthenticated: Any
    busy: Any
    needs_token: bool
    limited: bool
    replay: bool = False  # counted also among the Replays in flight
    method: str = ""  # its full name, as a token's scope holds it (referee.auth)
    denied: Any = None  # refuses a call whose token may not call this method
    # refuses a call whose token has its max-in-flight calls in flight already
    token_busy: Any = None


TOKEN_BUSY: Final = RequestError(
    grpc.StatusCode.RESOURCE_EXHAUSTED,
    "this bearer token has as many calls in flight on this server process as its "
    "max-in-flight allows (the server's tokens file or REFEREE_AUTH_TOKENS); retry with "
    "backoff",
    reason="TOKEN_CALLS_IN_FLIGHT",
)


def method_not_allowed(method: str) -> RequestError:
    """PERMISSION_DENIED (reason METHOD_NOT_ALLOWED) for a call whose bearer token is
    valid but limited to other methods (its scope: referee.auth)."""
    return RequestError(
        grpc.StatusCode.PERMISSION_DENIED,
        f"this bearer token may not call {method}: it is limited to other methods "
        "(the server's tokens file or REFEREE_AUTH_TOKENS)",
        reason="METHOD_NOT_ALLOWED",
        metadata={"method": method},
    )


def host_port(host: str, port: int) -> str:
    """``host:port`` as gRPC takes an address to bind (an IPv6 host in brackets)."""
    if ":" in host and not host.startswith("["):
        return f"[{host}]:{port}"
    return f"{host}:{port}"


def _bind(server: Any, address: str, credentials: grpc.ServerCredentials | None) -> int:
    """Add a port; a failure (in use, not an address of this host) is an OSError."""
    try:
        if credentials is not None:
            port = server.add_secure_port(address, credentials)
        else:
            port = server.add_insecure_port(address)
    except RuntimeError:
        port = 0
    if port == 0:
        raise OSError(f"could not bind {address} (in use, or not an address of this host)")
    return int(port)


class CallBook:
    """What the interceptors of both engines share: the per-method preparation, the
    admission of a call (token, concurrency limit) and its bookkeeping (request id,
    log line, metrics). See :class:`CallInterceptor` for what a call gets."""

    def __init__(
        self,
        metrics: Metrics | None = None,
        auth: TokenSet | None = None,
        max_concurrent: int = 0,
        max_response_bytes: int = 0,
        max_replays: int = 0,
        tracing: Tracing | None = None,
        max_request_bytes: int = 0,
    ) -> None:
        self._methods: dict[str, _Method | None] = {}
        # Only a Replay's answer can outgrow the limit (its steps, its log): checked
        # here, so that the call is refused with a reason and logged as refused.
        self._max_response = max_response_bytes
        self._metrics = metrics
        # A call's request id, log line and metrics (compiled: referee.calls), with a
        # concrete logger (not the lazy proxy: one attribute lookup less per line).
        self._book = Book(
            metrics, rpc_level() <= logging.DEBUG, get_logger(RPC_LOGGER).bind(), tracing
        )
        self._auth = auth
        self._max = max_concurrent
        self._lock = threading.Lock()  # the threads engine ends calls in several threads
        # Calls of the service in flight (health and reflection are not counted), each
        # until its answer and status are written to the connection (grpc.aio: its
        # task ends then; threads: gRPC's termination callback, ``_answering``): for
        # the limit, the metric, and a graceful stop, which waits for none to be left.
        self.in_flight = 0
        self._max_replays = max_replays
        self.replays_in_flight = 0  # of them, Replays (for their own limit)
        # Of them, the calls of each token with a max-in-flight of its own, by its
        # digest (an entry leaves when its count is back to 0).
        self.token_calls: dict[bytes, int] = {}
        # The bytes of the large requests (calls.LARGE_REQUEST_BYTES) of the calls being
        # served, against --max-request-bytes-in-flight (0: not counted): a call costs
        # memory in proportion to its request, and counting calls does not bound that.
        self._max_request_bytes = max_request_bytes
        self.request_bytes_in_flight = 0

    def _admit(self, entry: _Method, metadata: Any) -> Any:
        """The handler for a call of a prepared method: its own, or one refusing it.
        Run as the call arrives, in its context (grpc.aio: the call's task, before its
        request is read; threads: gRPC's serving thread, before the call waits for a
        handler thread): the call's latency starts here (``ARRIVED``)."""
        ARRIVED.set(perf_counter())
        limit = 0
        key = b""
        if entry.needs_token:
            assert self._auth is not None
            grant = self._auth.grant(metadata)
            if grant is None:
                return entry.unauthenticated
            CLIENT.set(grant.name)
            methods = grant.methods  # None: every method (no lookup)
            if methods is not None and entry.method not in methods:
                return entry.denied
            limit = grant.max_in_flight
            key = grant.digest
        if entry.limited:
            if self._max and self.in_flight >= self._max:
                return entry.busy
            replay = entry.replay
            if replay and self._max_replays and self.replays_in_flight >= self._max_replays:
                return entry.busy
            if limit:
                with self._lock:
                    calls = self.token_calls.get(key, 0)
                    if calls >= limit:
                        return entry.token_busy
                    self.token_calls[key] = calls + 1
                self._enter(replay, key)
            else:
                self._enter(replay, None)
        return entry.handler

    def _hold(self, size: int) -> RequestError | None:
        """Count a large request's ``size`` while its call is served (``_release`` it
        then), or the refusal of a request that would take the count over the limit."""
        with self._lock:
            held = self.request_bytes_in_flight
            if held + size > self._max_request_bytes:
                return request_bytes_busy(size, held, self._max_request_bytes)
            self.request_bytes_in_flight = held + size
        if self._metrics is not None:
            self._metrics.request_bytes.inc(size)
        return None

    def _release(self, size: int) -> None:
        with self._lock:
            self.request_bytes_in_flight -= size
        if self._metrics is not None:
            self._metrics.request_bytes.dec(size)

    def _enter(self, replay: bool, token: bytes | None) -> None:
        """A call is admitted: in flight until it ends (``_track`` arranges the
        ``_leaver``'s call). ``token``: the digest of its token when that has a
        max-in-flight of its own (already counted in ``token_calls``)."""
        with self._lock:
            self.in_flight += 1
            if replay:
                self.replays_in_flight += 1
        if self._metrics is not None:
            self._metrics.in_flight.inc()
        self._track(replay, token)

    def _leaver(self, replay: bool, token: bytes | None) -> Callable[..., None]:
        """What an admitted call runs as it ends: ``_leave``, ``_leave_replay`` for a
        Replay, and for a token with a max-in-flight, its count taken down too."""
        leave = self._leave_replay if replay else self._leave
        if token is None:
            return leave
        calls = self.token_calls
        lock = self._lock

        def leave_token(done: object = None) -> None:
            with lock:
                left = calls[token] - 1
                if left:
                    calls[token] = left
                else:
                    del calls[token]
            leave(done)

        return leave_token

    def _leave(self, _done: object = None) -> None:
        with self._lock:
            self.in_flight -= 1
        if self._metrics is not None:
            self._metrics.in_flight.dec()

    def _leave_replay(self, _done: object = None) -> None:
        with self._lock:
            self.in_flight -= 1
            self.replays_in_flight -= 1
        if self._metrics is not None:
            self._metrics.in_flight.dec()

    def _track(self, replay: bool, token: bytes | None) -> None:
        """Have ``self._leaver(replay, token)`` called once when the admitted call ends,
        however it ends."""
        raise NotImplementedError

    def _prepare(self, method: str, handler: MethodHandler | None) -> _Method | None:
        if handler is None:
            return None
        is_grpc = method.startswith("/grpc.")
        needs_token = self._auth is not None and not self._auth.is_exempt(method)
        if handler.unary_unary is None:
            # Streaming (health Watch, reflection): no log line; a body that does not
            # parse is refused with INVALID_ARGUMENT; authenticated when configured.
            stream = self._uncounted(self._tolerant_stream(handler))
            if not needs_token:
                return _Method(stream, None, None, False, False, method=method)
            return _Method(
                stream,
                self._refusal(handler, grpc.StatusCode.UNAUTHENTICATED),
                None,
                True,
                False,
                method=method,
                denied=self._refusal(
                    handler, grpc.StatusCode.PERMISSION_DENIED, method_not_allowed(method)
                ),
            )
        short = method.rsplit("/", 1)[-1]

        serializer = handler.response_serializer
        if short == "Replay" and not is_grpc:
            serializer = presized(serializer)

        wrapped = grpc.unary_unary_rpc_method_handler(
            self._wrap(short, handler.unary_unary, quiet=is_grpc),
            # With --max-request-bytes-in-flight, a large request comes as a Large.
            request_deserializer=tolerant(
                handler.request_deserializer, sized=self._max_request_bytes > 0 and not is_grpc
            ),
            response_serializer=serializer,
        )

        def refusal(inner: Any) -> MethodHandler:
            # A refusal reads no request: taken as client-streaming, it is answered once
            # the call's headers are judged, not once its request has come. (On the
            # threads engine a unary call waits for its request in a thread of the
            # pool: refused calls whose request never came took every thread.)
            return grpc.stream_unary_rpc_method_handler(
                self._wrap(short, inner, quiet=is_grpc), response_serializer=serializer
            )

        return _Method(
            handler=wrapped if not is_grpc else self._uncounted(wrapped),
            unauthenticated=refusal(self._refuse(grpc.StatusCode.UNAUTHENTICATED)),
            busy=refusal(self._refuse(grpc.StatusCode.RESOURCE_EXHAUSTED)),
            needs_token=needs_token,
            limited=not is_grpc,
            replay=short == "Replay" and not is_grpc,
            method=method,
            denied=refusal(self._deny(method_not_allowed(method))),
            token_busy=refusal(self._deny(TOKEN_BUSY)),
        )

    def _uncounted(self, handler: MethodHandler) -> MethodHandler:
        """``handler`` of a method no limit counts (health, reflection), as the engine
        runs it: the threads engine runs them in a pool of their own."""
        return handler

    def _wrap(self, short: str, inner: Any, quiet: bool) -> Any:
        """``inner`` as the engine runs it, with the call's bookkeeping around it."""
        raise NotImplementedError

    def _tolerant_stream(self, handler: MethodHandler) -> MethodHandler:
        raise NotImplementedError

    def _refusal(
        self, handler: MethodHandler, code: grpc.StatusCode, error: RequestError | None = None
    ) -> MethodHandler:
        """A streaming handler of ``handler``'s shape refusing the call with ``code``
        (and ``error``'s message and details, when given)."""
        raise NotImplementedError

    def _refuse(self, code: grpc.StatusCode) -> Any:
        raise NotImplementedError

    def _deny(self, error: RequestError) -> Any:
        """A unary handler refusing the call with ``error`` (its log line notes the
        reason as ``auth_refusal``)."""
        raise NotImplementedError

    def _max_response_of(self, short: str) -> int:
        return self._max_response if short == "Replay" else 0


def _noted(error: RequestError) -> str:
    """The request id of the call refused with ``error`` (in its handler), whose log
    line notes the refusal's reason."""
    info = CURRENT_CALL.get()
    if info is None:
        return ""
    info.note("auth_refusal", error.reason)
    return info.request_id


def presized(serializer: Any) -> Callable[[Any], bytes]:
    """``serializer``, but a :class:`Serialized` response's bytes sent as they are."""

    def serialize(response: Any) -> bytes:
        if response.__class__ is Serialized:
            return response.data
        return serializer(response)  # type: ignore[no-any-return]

    return serialize


def _code_name(code: Any, default: str) -> str:
    return code.name if isinstance(code, grpc.StatusCode) else default


class CallInterceptor(CallBook, grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """The one interceptor of the server (grpc.aio; the threaded server's is
    :class:`referee.threaded.ThreadCallInterceptor`, the same but for the engine).

    - One log line per RPC (method, game, verdict, violations, status, latency, request
      id, and the token's name when authentication is on); the request id is taken
      from ``x-request-id`` or made, and returned in the trailing metadata. Latency
      (``ms``, ``referee_rpc_duration_seconds``) runs from the call's admission here,
      before its request is read (and on the threads engine before it waits for a
      handler thread), to its handler's answer: the same on both engines.
    - Metrics per RPC (count by method, game, verdict and code; latency; actions;
      in-flight calls), when ``metrics`` is given.
    - Bearer-token authentication (``auth``): ``UNAUTHENTICATED`` for a missing or
      wrong token, ``PERMISSION_DENIED`` (reason ``METHOD_NOT_ALLOWED``) for a token
      limited to other methods, decided from the headers before the request is read.
    - A limit on concurrent RPCs (``max_concurrent``, 0: none): a call is in flight
      from its arrival to its end (reading the request included), and one beyond the
      limit is refused with ``RESOURCE_EXHAUSTED``. Health and reflection are never
      limited.
    - A request body that does not parse is refused with ``INVALID_ARGUMENT``
      (reason ``REQUEST_MALFORMED``), where gRPC itself would answer ``UNKNOWN``.
    - An unexpected exception becomes INTERNAL without details (and a logged
      traceback): it is a bug, never something a client can cause.
    """

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[MethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> MethodHandler:
        method = handler_call_details.method
        try:
            entry = self._methods[method]
        except KeyError:
            handler = await continuation(handler_call_details)
            entry = self._methods[method] = self._prepare(method, handler)
        if entry is None:
            return await continuation(handler_call_details)
        return self._admit(entry, handler_call_details.invocation_metadata)  # type: ignore[no-any-return]

    def _track(self, replay: bool, token: bytes | None) -> None:
        task = asyncio.current_task()
        if task is not None:  # the RPC's task: done however the call ends
            task.add_done_callback(self._leaver(replay, token))

    def _wrap(self, short: str, inner: Handler, quiet: bool) -> Handler:
        book = self._book
        begin, end, log = book.begin, book.end, book.log
        max_response = self._max_response_of(short)
        level = logging.DEBUG if quiet else logging.INFO
        hold, release = self._hold, self._release

        async def handler(request: Any, context: Ctx) -> Any:
            info, token, start = begin(short, context)
            status = "OK"
            response = None
            held = 0
            try:
                if request.__class__ is Malformed:
                    await abort_with(malformed(request), context, info.request_id)
                if request.__class__ is Large:  # tolerant(sized=True): the limit is on
                    error = hold(request.size)
                    if error is not None:
                        await abort_with(error, context, info.request_id)
                    held = request.size
                    request = request.message
                answer = response = await inner(request, context)
                if answer.__class__ is Serialized:  # a long Replay's, serialized already
                    response = answer.message  # for the log line and metrics
                if max_response:
                    size = response.ByteSize() if answer is response else len(answer.data)
                    if size > max_response:
                        await abort_with(oversize(size, max_response), context, info.request_id)
                return answer
            except grpc.aio.AbortError:
                status = _code_name(context.code(), str(context.code()))
                raise
            except asyncio.CancelledError:
                # gRPC cancels the call's task at its deadline too (a Replay on its own
                # thread can be overtaken so): that is the deadline's, not a cancel. So is
                # a cancel that comes just before it: the client's own deadline, which runs
                # out first (the server's started when the request reached it).
                status = ended_early(context)
                raise
            except Exception:
                if context.done():
                    # The call ended under us (its deadline passed, the client left):
                    # sending the status failed, nothing is wrong with the server.
                    status = _code_name(context.code(), "CANCELLED")
                    raise
                status = "INTERNAL"
                log.exception("rpc_failed", method=short, request_id=info.request_id)
                await context.abort(grpc.StatusCode.INTERNAL, "internal error")
                raise
            finally:
                if held:
                    release(held)
                end(info, token, start, status, response, level, context)

        return handler

    def _tolerant_stream(self, handler: MethodHandler) -> MethodHandler:
        return _tolerant_stream(handler)

    def _refusal(
        self, handler: MethodHandler, code: grpc.StatusCode, error: RequestError | None = None
    ) -> MethodHandler:
        return _refusal(handler, code, error)

    def _refuse(self, code: grpc.StatusCode) -> Handler:
        message = _REFUSALS[code]

        async def refuse(request: Any, context: Ctx) -> Any:
            await context.abort(code, message)

        return refuse

    def _deny(self, error: RequestError) -> Handler:
        async def deny(request: Any, context: Ctx) -> Any:
            await abort_with(error, context, _noted(error))

        return deny


def _tolerant_stream(handler: MethodHandler) -> MethodHandler:
    """grpcio's own streaming services (health Watch: a coroutine writing to the
    context; reflection: an async generator over the requests) with a request body that
    does not parse ending the call with INVALID_ARGUMENT (REQUEST_MALFORMED), where
    grpcio itself would answer UNKNOWN. A handler of another shape is returned as is."""
    deserializer = tolerant(handler.request_deserializer)
    serializer = handler.response_serializer
    watch: Any = handler.unary_stream  # aio behaviours (the stubs type sync ones)
    if watch is not None and not inspect.isasyncgenfunction(watch):

        async def checked_watch(request: Any, context: Ctx) -> Any:
            if request.__class__ is Malformed:
                await abort_with(malformed(request), context)
            return await watch(request, context)

        return grpc.unary_stream_rpc_method_handler(
            checked_watch, request_deserializer=deserializer, response_serializer=serializer
        )
    exchange: Any = handler.stream_stream
    if exchange is not None and inspect.isasyncgenfunction(exchange):

        async def checked(requests: Any, context: Ctx) -> Any:
            async for request in requests:
                if request.__class__ is Malformed:
                    await abort_with(malformed(request), context)
                yield request

        async def checked_exchange(requests: Any, context: Ctx) -> Any:
            async for item in exchange(checked(requests, context), context):
                yield item

        return grpc.stream_stream_rpc_method_handler(
            checked_exchange, request_deserializer=deserializer, response_serializer=serializer
        )
    return handler


_REFUSALS = {
    grpc.StatusCode.UNAUTHENTICATED: (
        "a valid bearer token is required (metadata 'authorization: Bearer <token>')"
    ),
    grpc.StatusCode.RESOURCE_EXHAUSTED: (
        "too many concurrent calls on this server process; retry with backoff"
    ),
}


def _refusal(
    handler: MethodHandler, code: grpc.StatusCode, error: RequestError | None = None
) -> MethodHandler:
    """A streaming handler of the same shape as ``handler`` that refuses the call (with
    ``error``'s message and details, when given)."""

    message = _REFUSALS.get(code, "")

    async def stop(context: Ctx) -> None:
        if error is not None:
            await abort_with(error, context)  # its code, message and details
        else:
            await context.abort(code, message)

    async def refuse(request: Any, context: Ctx) -> Any:
        await stop(context)

    async def refuse_stream(request: Any, context: Ctx) -> Any:
        await stop(context)
        yield  # pragma: no cover - makes this an async generator

    # Client-streaming whatever the method's shape: a refusal reads no request, so it is
    # answered at once, not once a request has come (``CallBook._prepare``).
    if handler.response_streaming:
        return grpc.stream_stream_rpc_method_handler(refuse_stream)
    return grpc.stream_unary_rpc_method_handler(refuse)


class ServerBase:
    """What a Referee server is whatever its engine: the settings, the referee, the
    interceptor, the services' health, the start-up line."""

    engine = ""
    interceptor: CallBook

    def __init__(
        self,
        settings: ServerSettings,
        metrics: Metrics | None = None,
        worker: int | None = None,
    ) -> None:
        self.settings = settings
        self.worker = worker
        # The keys serving are the referee's (``self.referee.keyring``): a followed keys
        # file replaces them.
        keyring = (
            Keyring(settings.seal_keys, write_format=settings.seal_format)
            if settings.seal_keys
            else None
        )
        self.referee = Referee(
            all_codecs(),
            Limits(
                max_replay_actions=settings.max_replay_actions,
                max_replay_cpu_seconds=settings.max_replay_cpu_seconds,
                max_response_bytes=settings.max_message_bytes,
            ),
            keyring=keyring,
            require_sealed=settings.require_sealed,
            new_game_rules=settings.new_game_rules,
        )
        # Following the keys file reads it now (the keys of the settings were read when
        # ``referee serve`` started: a worker restarted since takes the file's of now).
        self.key_watch = (
            KeyWatch(settings.seal_keys_file, self.referee, metrics)
            if settings.seal_keys_file is not None and keyring is not None
            else None
        )
        ring = self.referee.keyring
        if ring is not None and metrics is not None:
            metrics.seal_keys(ring.sealing_key_id, ring.key_ids)
        self.port = 0
        self.health_port = 0
        # A span a call, sent to an OpenTelemetry collector (--tracing otlp): made here,
        # in the worker, after the fork (its exporter's thread and channel are its own).
        self.tracing = Tracing(worker) if settings.tracing == "otlp" else None

    def _stop_tracing(self) -> None:
        """Send the last spans, within ``referee.tracing.FLUSH_SECONDS``."""
        if self.tracing is not None and not self.tracing.shutdown():
            log.warning("referee_tracing_flush_incomplete", seconds=FLUSH_SECONDS)

    def _bind_ports(self, server: Any, health_server: Any) -> None:
        s = self.settings
        address = host_port(s.host, s.port)
        credentials = s.tls.credentials() if s.tls is not None else None
        self.port = _bind(server, address, credentials)
        if health_server is not None:
            assert s.health_port is not None
            health_address = host_port(s.health_host, s.health_port)
            self.health_port = _bind(health_server, health_address, None)

    def _health_options(self) -> list[tuple[str, Any]]:
        return [
            ("grpc.so_reuseport", 1 if self.settings.workers > 1 else 0),
            ("grpc.max_receive_message_length", 4096),
            # Probes are one call at a time: a connection opening streams without
            # bound would only cost the worker memory (MAX_STREAMS_PER_CONNECTION).
            ("grpc.max_concurrent_streams", PROBE_STREAMS_PER_CONNECTION),
            ("grpc.server_handshake_timeout_ms", _ms(self.settings.handshake_timeout_seconds)),
        ]

    def _log_serving(self, **more: Any) -> None:
        s = self.settings
        fields: dict[str, Any] = {
            "address": f"{s.host}:{self.port}",
            "port": self.port,
            "version": __version__,
            "build": build(),
            "games": list(self.referee.codecs),
            "rules": list(self.referee.by_version),
            "new_game_rules": [c.rules.rules_version for c in self.referee.codecs.values()],
            "sealing": self._sealing_mode(),
            "tls": "off" if s.tls is None else ("mutual" if s.tls.client_ca else "on"),
            "auth": s.auth.describe() if s.auth is not None else "off",
            "engine": self.engine,
        }
        if s.tracing != "off":
            fields["tracing"] = f"{s.tracing} to {tracing_endpoint()}"
        if self.health_port:
            fields["health_port"] = self.health_port
        if s.max_concurrent_rpcs:
            fields["max_concurrent_rpcs"] = s.max_concurrent_rpcs
        if s.max_concurrent_replays:
            fields["max_concurrent_replays"] = s.max_concurrent_replays
        fields.update(more)
        log.info("referee_serving", **fields)

    def _sealing_mode(self) -> str:
        ring = self.referee.keyring  # the keys file's latest keys
        if ring is None:
            return "off: plain states (no sealing keys configured)"
        mode = "sealed states only" if self.settings.require_sealed else "sealed and plain states"
        followed = "" if self.key_watch is None else " (following the keys file)"
        return (
            f"on: {mode}; sealing with key {ring.sealing_key_id!r}, "
            f"opening with {list(ring.key_ids)}{followed}"
        )

    def _follow_keys(self, follow: bool) -> None:
        """Start (a server started) or stop (a stop began) following the keys file."""
        if self.key_watch is not None:
            if follow:
                self.key_watch.start()
            else:
                self.key_watch.stop()

    def _log_stopping(self) -> None:
        self._follow_keys(False)
        s = self.settings
        log.info(
            "referee_stopping",
            grace_seconds=s.grace_seconds,
            drain_delay_seconds=s.drain_delay_seconds,
        )

    def _quiescing(self, started: float) -> bool:
        """Whether a stop goes on serving before it closes the connections: while a
        call is in flight, for at most half the grace (:meth:`_close_connections`)."""
        return (
            self.interceptor.in_flight > 0
            and time.monotonic() - started < self.settings.grace_seconds / 2
        )

    def _close_connections(self, started: float) -> float:
        """Logged when a stop tells the connections to go away (gRPC's stop: GOAWAY,
        then each connection is closed once its last call has ended); returns the
        grace left to the calls still in flight.

        Why a stop first waits for the calls in flight: gRPC closes a connection as
        soon as its last call has written its answer, while the client may not have
        read it yet; a frame the client sends after that close (a flow-control
        update, as it reads) makes the kernel reset the connection, and what the
        client had not received of the answer is lost. An answer written before the
        GOAWAY is safe: gRPC sends a ping with the GOAWAY and closes only once the
        client has acknowledged it, which it does after reading everything before
        it. So the stop waits until no call is in flight, at most half the grace."""
        waited = time.monotonic() - started
        left = max(self.settings.grace_seconds - waited, 0.0)
        log.info(
            "referee_closing_connections",
            calls_in_flight=self.interceptor.in_flight,
            waited_seconds=round(waited, 3),
            grace_left_seconds=round(left, 3),
        )
        return left


class RefereeServer(ServerBase):
    """A running Referee gRPC server on grpc.aio (``--engine asyncio``): the service
    port (plaintext or TLS) and, when configured, a plaintext port serving only the
    health service."""

    engine = "asyncio"

    def __init__(
        self,
        settings: ServerSettings,
        metrics: Metrics | None = None,
        worker: int | None = None,
    ) -> None:
        super().__init__(settings, metrics, worker)
        self.health = HealthServicer()
        self.interceptor = CallInterceptor(
            metrics,
            settings.auth,
            settings.max_concurrent_rpcs,
            max_response_bytes=settings.max_message_bytes,
            max_replays=settings.max_concurrent_replays,
            max_request_bytes=settings.max_request_bytes_in_flight,
            tracing=self.tracing,
        )
        self.coalescer = (
            Coalescer(
                settings.coalesce_us / 1e6,
                on_batch=metrics.batch if metrics is not None else None,
            )
            if settings.coalesce_us
            else None
        )
        options = settings.grpc_options()
        self.server = grpc.aio.server(interceptors=[self.interceptor], options=options)
        self.servicer = RefereeServicer(self.referee, self.coalescer)
        referee_pb2_grpc.add_RefereeServiceServicer_to_server(  # type: ignore[no-untyped-call]
            self.servicer, self.server
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        enable_reflection(self.server)
        self.health_server: grpc.aio.Server | None = None
        if settings.health_port is not None:
            self.health_server = grpc.aio.server(options=self._health_options())
            health_pb2_grpc.add_HealthServicer_to_server(self.health, self.health_server)
        # Set by request_stop, also before start (an Event binds to a loop only when
        # waited on): a signal during start-up stops the server once it has started.
        self._stopping = asyncio.Event()

    async def start(self) -> int:
        """Bind and start; returns the bound port (useful with port 0)."""
        self._bind_ports(self.server, self.health_server)
        if self.health_server is not None:
            await self.health_server.start()
        await self.server.start()
        for service in ("", SERVICE_NAME):
            await self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        self._log_serving(coalesce_us=self.settings.coalesce_us)
        self._follow_keys(True)
        return self.port

    async def stop(self) -> None:
        """Drain: health NOT_SERVING first; after the drain delay, during which calls
        are still served, serving on until no call is in flight (at most half the
        grace: ``_close_connections`` says why); then GOAWAY, and the calls still in
        flight finish within the rest of the grace."""
        s = self.settings
        self._log_stopping()
        await self.health.enter_graceful_shutdown()
        if s.drain_delay_seconds > 0:
            await asyncio.sleep(s.drain_delay_seconds)
        started = time.monotonic()
        while self._quiescing(started):
            await asyncio.sleep(QUIESCE_POLL_SECONDS)
        await self.server.stop(self._close_connections(started))
        self.servicer.close()
        if self.health_server is not None:
            await self.health_server.stop(0)
        await asyncio.to_thread(self._stop_tracing)
        log.info("referee_stopped")

    def request_stop(self) -> None:
        self._stopping.set()

    def install_signal_handlers(self) -> None:
        """SIGTERM, SIGINT and SIGHUP stop the server gracefully from now on, also before it
        has started (it then stops as soon as it has): called before :meth:`start`, so
        that no signal finds the server serving without its handler (the default
        action, an exit with no drain)."""
        from referee.workers import STOP_SIGNALS

        loop = asyncio.get_running_loop()
        for sig in STOP_SIGNALS:
            loop.add_signal_handler(sig, self.request_stop)

    async def run_until_signalled(self) -> None:
        """Serve until SIGTERM or SIGINT, then stop gracefully."""
        self.install_signal_handlers()
        await self._stopping.wait()
        await self.stop()


GC_THRESHOLDS = (10_000, 20, 20)


def tune_gc() -> None:
    """The garbage collector of a worker that serves, once started.

    - What start-up made (modules, descriptors, the server) is frozen: the collections
      that examine every tracked object no longer examine those.
    - The youngest generation is collected every 10,000 net allocations of tracked
      objects instead of 700. gRPC and asyncio leave about 5 objects in cycles per call
      (tasks, futures, exceptions); a saturated worker collected every ~30 calls, now
      every ~400, each collection examining only young objects.

    Measured: a few percent of throughput at saturation, within the noise of one run
    (docs/benchmarks.md); memory stays flat (the soak test).
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


async def serve(
    settings: ServerSettings,
    metrics: Metrics | None = None,
    worker: int | None = None,
    on_ready: Callable[[RefereeServer], None] | None = None,
) -> None:
    """Serve on grpc.aio (``--engine asyncio``) until SIGTERM or SIGINT."""
    server = RefereeServer(settings, metrics, worker)
    server.install_signal_handlers()
    await server.start()
    tune_gc()
    if on_ready is not None:
        on_ready(server)
    await server.run_until_signalled()


def engine_for(settings: ServerSettings, worker: int = 0) -> str:
    """The engine worker ``worker`` serves with: the one set, or for ``auto`` the threads
    engine where the worker gets a CPU of its own (:func:`referee.workers.own_cpu`: the
    workers own the machine's or container's CPUs) and grpc.aio elsewhere. Measured on
    2-vCPU VMs: pinned, the threaded server serves 1.4 - 1.7 times the calls of grpc.aio;
    unpinned its threads pass the GIL between cores and it serves fewer
    (docs/benchmarks.md)."""
    if settings.engine != "auto":
        return settings.engine
    from referee.workers import own_cpu

    return "threads" if own_cpu(worker, settings.workers) is not None else "asyncio"


def run_worker(
    settings: ServerSettings,
    metrics: Metrics | None = None,
    worker: int = 0,
    on_ready: Callable[[ServerBase], None] | None = None,
) -> None:
    """Serve with the engine of ``settings`` (:func:`engine_for`) until SIGTERM or
    SIGINT: the body of a worker process (``--workers N``) or of the only process."""
    settings = replace(settings, engine=engine_for(settings, worker))
    if settings.engine == "threads":
        from referee.threaded import serve_threads

        serve_threads(settings, metrics, worker, on_ready)
    else:
        asyncio.run(serve(settings, metrics, worker, on_ready))
