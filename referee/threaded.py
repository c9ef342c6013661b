"""The threads engine (``referee serve --engine threads``): grpc's threaded server.

Each call runs from start to end in one of ``--threads`` handler threads, and gRPC's
own Python in its one serving thread. Per call that is a fraction of what grpc.aio
does in Python (no event loop turn, task, coroutine or future per call) and about 4
thread switches instead of 17 (docs/benchmarks.md: ``bench/service.py`` measures both
engines). A worker's threads share its one GIL, so they are fastest on one CPU: a
worker is pinned to a CPU of its own where the CPUs are the workers' own
(:func:`referee.workers.own_cpu`); elsewhere the GIL passing between cores costs more
than the engine saves, and grpc.aio is the better choice: ``--engine auto`` (the
default) takes this engine exactly where its workers can be pinned.

Everything a call gets is the same on both engines: the interceptor's request id, log
line, metrics, token check and concurrency limit (:class:`referee.server.CallBook`),
the same errors (the servicer: :class:`referee.service.ThreadedRefereeServicer`),
health, reflection, TLS, and the same graceful shutdown. What only grpc.aio has is
coalescing (``--coalesce-us``), which needs one event loop running every call.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
import time
from collections.abc import Callable
from concurrent import futures
from contextvars import Context, ContextVar
from typing import TYPE_CHECKING, Any, cast

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee import logs
from referee.calls import Large, Malformed, Refused, malformed, threaded_handler, tolerant
from referee.errors import RequestError
from referee.server import (
    _REFUSALS,
    PROBE_THREADS,
    QUIESCE_POLL_SECONDS,
    SERVICE_NAME,
    CallBook,
    ServerBase,
    ServerSettings,
    _noted,
    enable_reflection,
    log,
    tune_gc,
)
from referee.service import ThreadedRefereeServicer, abort_with_status
from referee.v1 import referee_pb2_grpc
from referee.workers import STOP_SIGNALS, own_cpu

if TYPE_CHECKING:
    from referee.metrics import Metrics
    from referee.tracing import Tracing

    MethodHandler = grpc.RpcMethodHandler[Any, Any]

STOP_POLL_SECONDS = 0.2  # how often the main thread looks for a stop signal
# Threads beyond the --threads handler threads in which calls wait for their request.
# grpc's threaded server runs a call in a pool thread from its headers on, and the
# thread waits there for the request, for as long as the client takes: with a pool of
# --threads, that many calls whose request never came (a client stalled mid-call, or
# one sending HEADERS only: 8 streams, a few hundred bytes) held every thread, and every
# other call of the worker, health checks included, waited until their connection
# closed. Calls now wait for their request in a pool this much larger, and run their
# handlers at most --threads at a time (``ThreadCallInterceptor._slots``).
REQUEST_WAIT_THREADS = 256
# Threads of the calls no limit counts (health and reflection on the service port), a
# pool of their own: a call waits for its request in its thread, and a reflection stream
# holds one for as long as it is open, so 300 such streams held back on one connection
# took every thread of the calls' pool, and every other call of the worker waited, under
# any --max-concurrent-rpcs. Now they can hold only these.
UNCOUNTED_THREADS = 16
# How long past the grace a stop waits for gRPC's shutdown to complete before giving up
# on it (a serving thread that never comes back must not keep a stopping worker alive).
STOP_MARGIN_SECONDS = 5.0


# Set in a call's own context by the interceptor when it admits the call (counted in
# flight): grpc's threaded server runs the interceptor, then the call, in that context.
_ADMITTED: ContextVar[bool] = ContextVar("referee_admitted", default=False)
# Set in the same context when the admitted call's handler starts: the call then leaves
# once gRPC has written its answer (its termination callbacks), not when its task ends.
_HANDLED: ContextVar[bool] = ContextVar("referee_handled", default=False)
# Set in the same context when the admitted call is a Replay (counted among the Replays
# in flight too: it leaves through ``_leave_replay``).
_REPLAY: ContextVar[bool] = ContextVar("referee_replay", default=False)
# Set in the same context when the admitted call's token has a max-in-flight of its
# own: the token's digest, whose count the call takes down as it leaves.
_TOKEN: ContextVar[bytes | None] = ContextVar("referee_token", default=None)


class _CallPool(futures.ThreadPoolExecutor):
    """The handler threads. A call admitted by the interceptor is in flight until gRPC
    has written its answer and status (``ThreadCallInterceptor._answering``), or, if
    its handler never runs (its client gone before its request came), until its task
    here ends.

    grpc's threaded server submits each call here as ``call_context.run(...)``, in the
    context the interceptor ran in: a submission whose context says the call was
    admitted is that call's."""

    def __init__(
        self, threads: int, leaver: Callable[[bool, bytes | None], Callable[..., None]]
    ) -> None:
        super().__init__(max_workers=threads, thread_name_prefix="referee-call")
        self._leaver = leaver

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> futures.Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        context = getattr(fn, "__self__", None)
        if isinstance(context, Context) and context.get(_ADMITTED, False):
            leave = self._leaver(context.get(_REPLAY, False), context.get(_TOKEN, None))

            def ended(done: object) -> None:
                if not context.get(_HANDLED, False):  # else gRPC's callback leaves
                    leave(done)

            future.add_done_callback(ended)
        return future


class ThreadCallInterceptor(CallBook, grpc.ServerInterceptor):  # type: ignore[type-arg]
    """:class:`referee.server.CallInterceptor` for grpc's threaded server."""

    def __init__(
        self,
        metrics: Metrics | None = None,
        auth: Any = None,
        max_concurrent: int = 0,
        max_response_bytes: int = 0,
        threads: int = 8,
        max_replays: int = 0,
        tracing: Tracing | None = None,
        max_request_bytes: int = 0,
    ) -> None:
        super().__init__(
            metrics,
            auth,
            max_concurrent,
            max_response_bytes,
            max_replays,
            tracing,
            max_request_bytes,
        )
        # The pool's threads wait for requests (made as needed); a handler runs holding
        # one of ``threads`` slots (REQUEST_WAIT_THREADS says why). The slots are tokens
        # in a SimpleQueue, whose get and put are C: about 80 ns a call, where a
        # threading.Semaphore's Python took 1.6 us.
        self.pool = _CallPool(threads + REQUEST_WAIT_THREADS, self._leaver)
        self.uncounted_pool = futures.ThreadPoolExecutor(
            UNCOUNTED_THREADS, thread_name_prefix="referee-uncounted"
        )
        self._slots: queue.SimpleQueue[None] = queue.SimpleQueue()
        for _ in range(threads):
            self._slots.put(None)

    def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], MethodHandler | None],
        handler_call_details: grpc.HandlerCallDetails,
    ) -> MethodHandler | None:
        method = handler_call_details.method
        try:
            entry = self._methods[method]
        except KeyError:
            handler = continuation(handler_call_details)
            entry = self._methods[method] = self._prepare(method, handler)
        if entry is None:
            return continuation(handler_call_details)
        return self._admit(entry, handler_call_details.invocation_metadata)  # type: ignore[no-any-return]

    def _track(self, replay: bool, token: bytes | None) -> None:
        _ADMITTED.set(True)  # in the call's context: its pool task or gRPC calls _leave
        if replay:
            _REPLAY.set(True)
        if token is not None:
            _TOKEN.set(token)

    def _wrap(self, short: str, inner: Any, quiet: bool) -> Any:
        handler = threaded_handler(
            self._book,
            short,
            inner,
            self._max_response_of(short),
            quiet,
            self._answering,
        )
        take, give = self._slots.get, self._slots.put
        hold, release = self._hold, self._release

        def gated(request: Any, context: Any) -> Any:
            # The request has come (grpc calls a unary handler with it): take one of the
            # ``threads`` handler slots. Streams (health Watch, reflection) take none.
            # A large one (tolerant(sized=True): --max-request-bytes-in-flight is on) is
            # counted first: up to REQUEST_WAIT_THREADS requests, parsed, may wait for a
            # slot, and their bytes are held as much as those of the calls being served.
            # One refused is answered at once, without waiting for a slot.
            held = 0
            if request.__class__ is Large:
                error = hold(request.size)
                if error is not None:
                    return handler(Refused(error), context)
                held = request.size
                request = request.message
            take()
            try:
                return handler(request, context)
            finally:
                give(None)
                if held:
                    release(held)

        return gated

    def _uncounted(self, handler: MethodHandler) -> MethodHandler:
        # grpc's threaded server runs a behaviour with this attribute in that pool.
        for behaviour in (
            handler.unary_unary,
            handler.unary_stream,
            handler.stream_unary,
            handler.stream_stream,
        ):
            if behaviour is not None:
                cast(Any, behaviour).experimental_thread_pool = self.uncounted_pool
        return handler

    def _answering(self, context: Any) -> None:
        """An admitted call's handler starts (in the call's context): the call stays
        in flight until gRPC has written its answer and status, when it runs the
        call's termination callbacks. Its task in the pool ends earlier, once the
        answer is handed to gRPC: a stop that counted only that would close the
        connection under an answer still being written (``ServerBase._quiescing``)."""
        if not _ADMITTED.get():
            return
        _HANDLED.set(True)
        leave = self._leaver(_REPLAY.get(), _TOKEN.get())
        if not context.add_callback(leave):  # the call has ended already
            leave()

    def _tolerant_stream(self, handler: MethodHandler) -> MethodHandler:
        """grpcio's own streaming services on the threaded server (health Watch, which
        answers through a callback when non-blocking; reflection, a generator over the
        requests) refusing a body that does not parse with INVALID_ARGUMENT."""
        deserializer = tolerant(handler.request_deserializer)
        serializer = handler.response_serializer
        watch: Any = handler.unary_stream
        if watch is not None:

            def checked_watch(request: Any, context: Any, *callback: Any) -> Any:
                if request.__class__ is Malformed:
                    abort_with_status(malformed(request), context)
                return watch(request, context, *callback)  # non-blocking: its callback

            # grpc reads these off the behaviour (the health servicer sets them).
            for name in ("experimental_non_blocking", "experimental_thread_pool"):
                if hasattr(watch, name):
                    setattr(checked_watch, name, getattr(watch, name))
            return grpc.unary_stream_rpc_method_handler(
                checked_watch, request_deserializer=deserializer, response_serializer=serializer
            )
        exchange: Any = handler.stream_stream
        if exchange is not None:

            def checked(requests: Any, context: Any) -> Any:
                for request in requests:
                    if request.__class__ is Malformed:
                        abort_with_status(malformed(request), context)
                    yield request

            def checked_exchange(requests: Any, context: Any) -> Any:
                yield from exchange(checked(requests, context), context)

            return grpc.stream_stream_rpc_method_handler(
                checked_exchange, request_deserializer=deserializer, response_serializer=serializer
            )
        return handler

    def _refusal(
        self, handler: MethodHandler, code: grpc.StatusCode, error: RequestError | None = None
    ) -> MethodHandler:
        message = _REFUSALS.get(code, "")

        def stop(context: Any) -> None:
            if error is not None:
                abort_with_status(error, context)  # its code, message and details
            else:
                context.abort(code, message)

        def refuse(request: Any, context: Any) -> Any:
            stop(context)

        def refuse_stream(request: Any, context: Any) -> Any:
            stop(context)
            yield  # pragma: no cover - makes this a generator

        # Client-streaming whatever the method's shape: answered at once, no thread
        # waiting for a request (CallBook._prepare).
        if handler.response_streaming:
            return grpc.stream_stream_rpc_method_handler(refuse_stream)
        return grpc.stream_unary_rpc_method_handler(refuse)

    def _refuse(self, code: grpc.StatusCode) -> Any:
        message = _REFUSALS[code]

        def refuse(request: Any, context: Any) -> Any:
            context.abort(code, message)

        return refuse

    def _deny(self, error: RequestError) -> Any:
        def deny(request: Any, context: Any) -> Any:
            abort_with_status(error, context, _noted(error))

        return deny


HEALTH_SEND_SECONDS = 5.0  # how long a shutdown waits for NOT_SERVING to reach watchers


class ThreadedHealth(health_pb2_grpc.HealthServicer):  # type: ignore[misc]
    """``grpc.health.v1.Health`` for grpc's threaded server.

    grpcio's own (``grpc_health.v1.health.HealthServicer``) sends a status change to
    every watcher while it holds its lock, and each send waits for the server's one
    serving thread to complete it; a watch ending at that moment makes the serving
    thread wait for the same lock (its close callback): the server stops serving. Here
    every answer to a watcher is sent by the one thread of ``sender``, in order, never
    under the lock; ``Watch`` holds no thread (grpc's non-blocking behaviour)."""

    def __init__(self, sender: futures.ThreadPoolExecutor) -> None:
        self._lock = threading.Lock()
        self._status = {"": health_pb2.HealthCheckResponse.SERVING}
        self._watchers: dict[str, set[Callable[[Any], None]]] = {}
        self._sender = sender
        self._shutting_down = False

    def Check(self, request: Any, context: Any) -> Any:
        with self._lock:
            status = self._status.get(request.service)
        if status is None:
            context.abort(grpc.StatusCode.NOT_FOUND, "unknown service")
        return health_pb2.HealthCheckResponse(status=status)

    def Watch(self, request: Any, context: Any, send: Callable[[Any], None]) -> None:
        service = request.service
        unknown = health_pb2.HealthCheckResponse.SERVICE_UNKNOWN
        with self._lock:
            status = self._status.get(service, unknown)
            self._watchers.setdefault(service, set()).add(send)
            # Queued under the lock: no later status can be queued before it.
            self._sender.submit(send, health_pb2.HealthCheckResponse(status=status))

        def unwatch() -> None:  # in the serving thread, when the call ends: no wait
            with self._lock:
                self._watchers.get(service, set()).discard(send)

        context.add_callback(unwatch)

    # grpc reads these off the behaviour: answer through ``send``, in the sender's thread.
    Watch.experimental_non_blocking = True  # type: ignore[attr-defined]

    def set(self, service: str, status: Any) -> None:
        with self._lock:
            if self._shutting_down:
                return
            self._set(service, status)

    def _set(self, service: str, status: Any) -> None:
        self._status[service] = status
        for send in self._watchers.get(service, ()):
            self._sender.submit(send, health_pb2.HealthCheckResponse(status=status))

    def enter_graceful_shutdown(self) -> None:
        """Every service NOT_SERVING for good; returns once the watchers have been sent
        it (or ``HEALTH_SEND_SECONDS`` passed)."""
        with self._lock:
            if self._shutting_down:
                return
            self._shutting_down = True
            for service in list(self._status):
                self._set(service, health_pb2.HealthCheckResponse.NOT_SERVING)
            sent = self._sender.submit(lambda: None)
        with contextlib.suppress(futures.TimeoutError):
            sent.result(HEALTH_SEND_SECONDS)


class ThreadedRefereeServer(ServerBase):
    """A running Referee gRPC server on grpc's threaded server (``--engine threads``):
    the service port (plaintext or TLS) and, when configured, a plaintext port serving
    only the health service."""

    engine = "threads"
    interceptor: ThreadCallInterceptor

    def __init__(
        self,
        settings: ServerSettings,
        metrics: Metrics | None = None,
        worker: int | None = None,
    ) -> None:
        super().__init__(settings, metrics, worker)
        self.interceptor = ThreadCallInterceptor(
            metrics,
            settings.auth,
            settings.max_concurrent_rpcs,
            max_response_bytes=settings.max_message_bytes,
            threads=settings.threads,
            max_replays=settings.max_concurrent_replays,
            max_request_bytes=settings.max_request_bytes_in_flight,
            tracing=self.tracing,
        )
        # Health answers watchers from a thread of its own, in order (ThreadedHealth).
        self._health_pool = futures.ThreadPoolExecutor(1, thread_name_prefix="referee-health")
        self.health = ThreadedHealth(self._health_pool)
        self.server = grpc.server(
            self.interceptor.pool,
            interceptors=[self.interceptor],
            options=settings.grpc_options(),
        )
        self.servicer = ThreadedRefereeServicer(self.referee)
        referee_pb2_grpc.add_RefereeServiceServicer_to_server(  # type: ignore[no-untyped-call]
            self.servicer, self.server
        )
        health_pb2_grpc.add_HealthServicer_to_server(self.health, self.server)
        enable_reflection(self.server)
        self.health_server: grpc.Server | None = None
        if settings.health_port is not None:
            self.health_server = grpc.server(
                futures.ThreadPoolExecutor(PROBE_THREADS, thread_name_prefix="referee-probe"),
                options=self._health_options(),
            )
            health_pb2_grpc.add_HealthServicer_to_server(self.health, self.health_server)
        self.cpu: int | None = None  # the CPU this worker is pinned to (serve_threads)
        self._stop_requested = False

    def start(self) -> int:
        """Bind and start; returns the bound port (useful with port 0)."""
        self._bind_ports(self.server, self.health_server)
        if self.health_server is not None:
            self.health_server.start()
        self.server.start()
        for service in ("", SERVICE_NAME):
            self.health.set(service, health_pb2.HealthCheckResponse.SERVING)
        self._log_serving(
            threads=self.settings.threads,
            cpu="not pinned" if self.cpu is None else self.cpu,
        )
        self._follow_keys(True)
        return self.port

    def stop(self) -> bool:
        """Drain: health NOT_SERVING first; after the drain delay, during which calls
        are still served, serving on until no call is in flight (at most half the
        grace: ``_close_connections`` says why); then GOAWAY, and the calls still in
        flight finish within the rest of the grace.

        Returns whether gRPC's shutdown completed. It is waited for until
        ``STOP_MARGIN_SECONDS`` past the grace, no longer: if gRPC's serving thread
        never comes back (held where it looks up a call's handler, under the server's
        lock, which gRPC's own stop takes too), the stop is logged as incomplete
        (``referee_stop_incomplete``, an error) and False returned, rather than the
        caller waiting for ever."""
        s = self.settings
        self._log_stopping()
        self.health.enter_graceful_shutdown()
        if s.drain_delay_seconds > 0:
            time.sleep(s.drain_delay_seconds)
        started = time.monotonic()
        while self._quiescing(started):
            time.sleep(QUIESCE_POLL_SECONDS)
        grace = self._close_connections(started)
        # The margin counts from the grace's end, and the grace from the drain's end:
        # the wait for calls in flight above is part of it, not added to it.
        bound = grace + STOP_MARGIN_SECONDS
        done = _returns_within(bound, lambda: self.server.stop(grace).wait())
        if self.health_server is not None:
            health_server = self.health_server
            stopped = _returns_within(STOP_MARGIN_SECONDS, lambda: health_server.stop(0).wait())
            done = stopped and done
        self._health_pool.shutdown(wait=False)
        self.interceptor.uncounted_pool.shutdown(wait=False)
        self._stop_tracing()
        if not done:
            log.error(
                "referee_stop_incomplete", waited_seconds=round(time.monotonic() - started, 3)
            )
            return False
        log.info("referee_stopped")
        return True

    def request_stop(self) -> None:
        self._stop_requested = True

    def install_signal_handlers(self) -> None:
        """SIGTERM, SIGINT and SIGHUP stop the server gracefully from now on, also before it
        has started: called before :meth:`start`, so that no signal finds the server
        serving without its handler (the default action, an exit with no drain).

        The handlers only note the signal (they run in this thread between two
        bytecodes, where taking a lock could deadlock)."""

        for sig in STOP_SIGNALS:
            signal.signal(sig, lambda _signum, _frame: self.request_stop())

    def run_until_signalled(self) -> bool:
        """Serve until SIGTERM or SIGINT, then stop gracefully; returns :meth:`stop`'s
        answer. This thread looks for a noted signal every ``STOP_POLL_SECONDS``."""
        self.install_signal_handlers()
        while not self._stop_requested:
            time.sleep(STOP_POLL_SECONDS)
        return self.stop()


def _returns_within(seconds: float, fn: Callable[[], object]) -> bool:
    """Run ``fn`` in a thread of its own; whether it returned (or raised) within
    ``seconds``. A call that never returns is left to its thread (a daemon thread,
    which does not keep the process alive)."""
    finished = threading.Event()

    def run() -> None:
        try:
            fn()
        finally:
            finished.set()

    threading.Thread(target=run, name="referee-stop", daemon=True).start()
    return finished.wait(seconds)


def pin(cpu: int) -> None:
    """Pin this process's threads to ``cpu``; those made later (gRPC's) inherit it."""
    for task in os.listdir("/proc/self/task"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            os.sched_setaffinity(int(task), {cpu})


def serve_threads(
    settings: ServerSettings,
    metrics: Metrics | None = None,
    worker: int = 0,
    on_ready: Callable[[ServerBase], None] | None = None,
) -> None:
    """Serve on grpc's threaded server until SIGTERM or SIGINT, this worker pinned to
    a CPU of its own where the CPUs are the workers' own
    (:func:`referee.workers.own_cpu`). A stop that did not complete (logged) ends
    the process at once with status 1: a handler thread still held would otherwise keep
    it from exiting (the interpreter waits for its pool's threads)."""
    cpu = own_cpu(worker, settings.workers)
    if cpu is not None:
        pin(cpu)
    server = ThreadedRefereeServer(settings, metrics, worker)
    server.cpu = cpu
    server.install_signal_handlers()
    server.start()
    tune_gc()
    if on_ready is not None:
        on_ready(server)
    if not server.run_until_signalled():
        logs.flush()
        os._exit(1)
