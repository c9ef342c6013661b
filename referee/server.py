"""Process start: the gRPC server with health, reflection, interceptors,
logging, limits and graceful shutdown."""

from __future__ import annotations

import asyncio
import signal
import time
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1._async import HealthServicer
from grpc_reflection.v1alpha import reflection

from referee import __version__
from referee.codec import all_codecs
from referee.logs import get_logger
from referee.sealing import Keyring
from referee.service import (
    CURRENT_CALL,
    REQUEST_ID_KEY,
    CallInfo,
    Limits,
    Referee,
    RefereeServicer,
)
from referee.v1 import referee_pb2, referee_pb2_grpc

SERVICE_NAME = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"].full_name
DEFAULT_PORT = 50051
MAX_REQUEST_ID_LENGTH = 128

log = get_logger("referee.server")


@dataclass(frozen=True, slots=True)
class ServerSettings:
    host: str = "0.0.0.0"
    port: int = DEFAULT_PORT
    max_message_bytes: int = 16 * 1024 * 1024
    grace_seconds: float = 10.0
    max_replay_actions: int = 100_000
    seal_keys: tuple[tuple[str, bytes], ...] = ()
    require_sealed: bool = False

    def __repr__(self) -> str:  # never show key material
        return (
            f"ServerSettings(host={self.host!r}, port={self.port}, "
            f"seal_keys={[k for k, _ in self.seal_keys]})"
        )


if TYPE_CHECKING:
    Ctx = grpc.aio.ServicerContext[Any, Any]
    MethodHandler = grpc.RpcMethodHandler[Any, Any]
    Handler = Callable[[Any, Ctx], Awaitable[Any]]


class CallInterceptor(grpc.aio.ServerInterceptor):  # type: ignore[type-arg]
    """One log line per RPC (method, game, verdict, violations, status, latency, request
    id); the request id is taken from ``x-request-id`` or made, and returned in the
    trailing metadata. An unexpected exception becomes INTERNAL without details (and a
    logged traceback): it is a bug, never something a client can cause."""

    def __init__(self) -> None:
        self._wrapped: dict[str, MethodHandler] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[MethodHandler]],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> MethodHandler:
        method = handler_call_details.method
        cached = self._wrapped.get(method)
        if cached is not None:
            return cached
        handler = await continuation(handler_call_details)
        if handler is None or handler.unary_unary is None:
            return handler
        wrapped = grpc.unary_unary_rpc_method_handler(
            self._wrap(method, handler.unary_unary),  # type: ignore[arg-type]
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )
        self._wrapped[method] = wrapped
        return wrapped

    @staticmethod
    def _wrap(method: str, inner: Handler) -> Handler:
        short = method.rsplit("/", 1)[-1]
        quiet = method.startswith("/grpc.")  # health checks, reflection: debug level

        async def handler(request: Any, context: Ctx) -> Any:
            start = time.perf_counter()
            request_id = ""
            for key, value in context.invocation_metadata() or ():
                if key == REQUEST_ID_KEY and isinstance(value, str):
                    request_id = value[:MAX_REQUEST_ID_LENGTH]
                    break
            if not request_id:
                request_id = uuid.uuid4().hex
            info = CallInfo(method=short, request_id=request_id)
            token = CURRENT_CALL.set(info)
            log.debug("rpc_start", method=short, request_id=request_id)
            context.set_trailing_metadata(((REQUEST_ID_KEY, request_id),))
            status = "OK"
            try:
                return await inner(request, context)
            except grpc.aio.AbortError:
                code = context.code()
                status = code.name if isinstance(code, grpc.StatusCode) else str(code)
                raise
            except asyncio.CancelledError:
                status = "CANCELLED"
                raise
            except Exception:
                status = "INTERNAL"
                log.exception("rpc_failed", method=short, request_id=request_id)
                await context.abort(grpc.StatusCode.INTERNAL, "internal error")
                raise
            finally:
                CURRENT_CALL.reset(token)
                ms = round((time.perf_counter() - start) * 1000, 3)
                fields: dict[str, Any] = {
                    "method": short,
                    "status": status,
                    "ms": ms,
                    "request_id": request_id,
                }
                if info.game:
                    fields["game"] = info.game
                if info.verdict:
                    fields["verdict"] = info.verdict
                    if info.violations:
                        fields["violations"] = list(info.violations)
                if quiet:
                    log.debug("rpc", **fields)
                else:
                    log.info("rpc", **fields)

        return handler


class RefereeServer:
    """A running Referee gRPC server (asyncio)."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.keyring = Keyring(settings.seal_keys) if settings.seal_keys else None
        self.referee = Referee(
            all_codecs(),
            Limits(max_replay_actions=settings.max_replay_actions),
            keyring=self.keyring,
            require_sealed=settings.require_sealed,
        )
        self.health = HealthServicer()
        self.server = grpc.aio.server(
            interceptors=[CallInterceptor()],
            options=[
                ("grpc.max_receive_message_length", settings.max_message_bytes),
                ("grpc.max_send_message_length", settings.max_message_bytes),
                ("grpc.so_reuseport", 0),
            ],
        )
        referee_pb2_grpc.add_RefereeServiceServicer_to_server(  # type: ignore[no-untyped-call]
            RefereeServicer(self.referee), self.server
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        reflection.enable_server_reflection(
            (
                SERVICE_NAME,
                health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
                reflection.SERVICE_NAME,
            ),
            self.server,
        )
        self.port = 0
        self._stopping: asyncio.Event | None = None

    async def start(self) -> int:
        """Bind and start; returns the bound port (useful with port 0)."""
        address = f"{self.settings.host}:{self.settings.port}"
        if ":" in self.settings.host and not self.settings.host.startswith("["):
            address = f"[{self.settings.host}]:{self.settings.port}"
        self.port = self.server.add_insecure_port(address)
        if self.port == 0:
            raise OSError(f"could not bind {address}")
        await self.server.start()
        for service in ("", SERVICE_NAME):
            await self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        self._stopping = asyncio.Event()
        log.info(
            "referee_serving",
            address=f"{self.settings.host}:{self.port}",
            port=self.port,
            version=__version__,
            games=[c.game_id for c in all_codecs()],
            sealing=self._sealing_mode(),
        )
        return self.port

    def _sealing_mode(self) -> str:
        if self.keyring is None:
            return "off: plain states (no sealing keys configured)"
        mode = "sealed states only" if self.settings.require_sealed else "sealed and plain states"
        return (
            f"on: {mode}; sealing with key {self.keyring.sealing_key_id!r}, "
            f"opening with {list(self.keyring.key_ids)}"
        )

    async def stop(self) -> None:
        """Drain: health NOT_SERVING first, then in-flight calls finish within the grace."""
        log.info("referee_stopping", grace_seconds=self.settings.grace_seconds)
        await self.health.enter_graceful_shutdown()
        await self.server.stop(self.settings.grace_seconds)
        log.info("referee_stopped")

    def request_stop(self) -> None:
        if self._stopping is not None:
            self._stopping.set()

    async def run_until_signalled(self) -> None:
        """Serve until SIGTERM or SIGINT, then stop gracefully."""
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, self.request_stop)
        assert self._stopping is not None
        await self._stopping.wait()
        await self.stop()


async def serve(settings: ServerSettings) -> None:
    server = RefereeServer(settings)
    await server.start()
    await server.run_until_signalled()
