"""Spans for OpenTelemetry (``referee serve --tracing otlp``): one SERVER span a call.

Off by default. On, each call of the service (not health nor reflection) becomes one
span, made when the call ends from what its log line holds, and sent by OTLP over gRPC
to a collector, batched, from a thread of the worker's own:

- its name is the gRPC method (``referee.v1.RefereeService/ApplyAction``); its parent is
  the caller's span when the call carried a valid W3C ``traceparent`` (and its
  ``tracestate``), else it starts a trace;
- its attributes are OpenTelemetry's for RPCs (``rpc.system``, ``rpc.service``,
  ``rpc.method``, ``rpc.grpc.status_code``) and the call's log fields (``referee.game``,
  ``referee.verdict``, ``referee.violations``, ``referee.request_id``,
  ``referee.client``, a seal refusal): never a card, a state, a seed, a token or a key;
- its status is an error for the codes OpenTelemetry counts as a server's errors.

Where it goes, how much is sampled and the resource are OpenTelemetry's standard
variables, read by its SDK: ``OTEL_EXPORTER_OTLP_ENDPOINT`` (or ``..._TRACES_ENDPOINT``;
default ``http://localhost:4317``), ``OTEL_EXPORTER_OTLP_HEADERS``, ``..._CERTIFICATE``,
``..._TIMEOUT``, ``..._COMPRESSION``, ``OTEL_TRACES_SAMPLER`` (default
``parentbased_always_on``: a caller's decision is kept), ``OTEL_SERVICE_NAME`` (default
``referee``), ``OTEL_RESOURCE_ATTRIBUTES`` and ``OTEL_BSP_*``. docs/operations.md#traces.

The SDK is imported only when tracing is on: a server without it pays nothing.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from typing import Any, Final

import grpc

from referee import __version__
from referee.logs import get_logger

MODES: Final = ("off", "otlp")
SERVICE: Final = "referee.v1.RefereeService"
# The exporter this build ships speaks OTLP over gRPC only.
PROTOCOL_VARIABLES: Final = ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL")
# How long a stopping worker waits for its last spans to be sent.
FLUSH_SECONDS: Final = 5.0

_CODES: Final = {code.name: code.value[0] for code in grpc.StatusCode}
# The codes OpenTelemetry's semantic conventions for gRPC count as a server's errors
# (the others are the caller's: the span's status is left unset).
SERVER_ERRORS: Final = frozenset(
    {"UNKNOWN", "DEADLINE_EXCEEDED", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS"}
)


class TracingError(ValueError):
    """Tracing asked for and not possible as configured (the SDK missing, a protocol
    this build does not ship)."""


def check_environment(environ: Any = None) -> None:
    """Refuse what ``--tracing otlp`` cannot honour: another OTLP protocol than gRPC, or
    the OpenTelemetry packages missing (a build without them)."""
    env = os.environ if environ is None else environ
    for name in PROTOCOL_VARIABLES:
        protocol = env.get(name, "").strip()
        if protocol and protocol != "grpc":
            raise TracingError(
                f"{name}={protocol}: --tracing otlp sends OTLP over gRPC only "
                "(set it to grpc, or unset it; a collector listens for it on port 4317)"
            )
    try:
        import opentelemetry.exporter.otlp.proto.grpc.trace_exporter
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError as e:  # pragma: no cover - the package depends on them
        raise TracingError(
            f"--tracing otlp needs the OpenTelemetry SDK and OTLP exporter ({e.name} "
            "is missing): pip install 'opentelemetry-sdk>=1.45,<2' "
            "'opentelemetry-exporter-otlp-proto-grpc>=1.45,<2'"
        ) from e


def endpoint(environ: Any = None) -> str:
    """Where spans go, as the exporter reads it (for the start-up line and
    ``--check-config``)."""
    env = os.environ if environ is None else environ
    return (
        env.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        or env.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or "http://localhost:4317"
    )


MAX_MESSAGE: Final = 500  # characters of an OpenTelemetry log message kept


class _Forward(logging.Handler):
    """OpenTelemetry's own log records (the exporter's failures: a collector down or
    refusing) as the server's lines, ``opentelemetry_log`` at their level, instead of
    plain text on stderr among the JSON lines. The message only, cut, never a
    traceback."""

    def emit(self, record: logging.LogRecord) -> None:
        try:
            message = record.getMessage()[:MAX_MESSAGE]
            get_logger("referee.tracing").log(
                record.levelno, "opentelemetry_log", logger=record.name, message=message
            )
        except Exception:  # pragma: no cover - logging must not fail a call or a flush
            self.handleError(record)


_FORWARDING = threading.Lock()
# OpenTelemetry's loggers that warn of what a caller sent: a malformed ``tracestate``
# (TraceState), one over 8,192 characters or a ``traceparent`` over 512 (the
# propagator).
CALLERS_LOGGERS: Final = (
    "opentelemetry.trace.span",
    "opentelemetry.trace.propagation.tracecontext",
)


def forward_logs() -> None:
    """Route OpenTelemetry's log records to the server's log (once a process), warnings
    and above. A caller's malformed or overlong ``tracestate`` is dropped in silence
    (W3C: it is then ignored), not logged: its text is the caller's, and a caller could
    have a warning line written for each of its calls."""
    with _FORWARDING:
        otel = logging.getLogger("opentelemetry")
        if any(isinstance(h, _Forward) for h in otel.handlers):
            return
        otel.addHandler(_Forward())
        otel.setLevel(logging.WARNING)
        otel.propagate = False
        for name in CALLERS_LOGGERS:
            logging.getLogger(name).setLevel(logging.CRITICAL)


class Tracing:
    """A worker's spans: its own tracer provider (not OpenTelemetry's global one, so
    that servers embedded in one process each have theirs), a batching processor and
    the OTLP exporter."""

    def __init__(self, worker: int | None = None, exporter: Any = None) -> None:
        check_environment()
        forward_logs()
        from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.resources import SERVICE_NAME, Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
        from opentelemetry.trace import SpanKind, Status, StatusCode
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        attributes: dict[str, Any] = {"service.version": __version__}
        named = os.environ.get("OTEL_SERVICE_NAME") or "service.name=" in os.environ.get(
            "OTEL_RESOURCE_ATTRIBUTES", ""
        )
        if not named:
            attributes[SERVICE_NAME] = "referee"
        if worker is not None:
            attributes["referee.worker"] = worker
        # Not shut down at the interpreter's exit (OpenTelemetry's default): a stop shuts
        # it down within FLUSH_SECONDS (shutdown); a second shutdown at exit would wait
        # again, for an export to a collector that does not answer (its timeout, 10 s).
        self.provider = TracerProvider(resource=Resource.create(attributes), shutdown_on_exit=False)
        self.exporter = OTLPSpanExporter() if exporter is None else exporter
        self.provider.add_span_processor(BatchSpanProcessor(self.exporter))
        self._tracer = self.provider.get_tracer("referee", __version__)
        self._propagator = TraceContextTextMapPropagator()
        self._server = SpanKind.SERVER
        self._error = Status(StatusCode.ERROR)
        # The span's name of each method of the service; a call of another (health's
        # Check, on the same port and through the same interceptor) makes no span.
        from referee.v1 import referee_pb2

        service = referee_pb2.DESCRIPTOR.services_by_name[SERVICE.rsplit(".", 1)[1]]
        assert service.full_name == SERVICE
        self._names = {m.name: f"{SERVICE}/{m.name}" for m in service.methods}
        self._stopped = False
        self._failed = False  # a span could not be made (logged once)

    def record(
        self,
        fields: dict[str, Any],
        seconds: float,
        traceparent: str,
        tracestate: str,
    ) -> None:
        """The span of a call that ended, from its log line's ``fields`` (method,
        status, game, verdict, violations, request id, client, notes) and its duration.
        When the span is recorded, the line's ``trace_id`` and ``span_id`` become the
        span's, so that the line names the span it belongs to.

        Never raises: it runs as the call ends (``referee.calls.Book.end``), where an
        exception would turn the call's answer into an error. A span that cannot be made
        is left out, the line as it was, and the first such failure of a worker logged
        (``referee_tracing_failed``)."""
        try:
            self._record(fields, seconds, traceparent, tracestate)
        except Exception as e:
            if not self._failed:
                self._failed = True
                get_logger("referee.tracing").error(
                    "referee_tracing_failed",
                    error=type(e).__name__,
                    message=str(e)[:MAX_MESSAGE],
                )

    def _record(
        self,
        fields: dict[str, Any],
        seconds: float,
        traceparent: str,
        tracestate: str,
    ) -> None:
        end = time.time_ns()
        short = fields["method"]
        name = self._names.get(short)
        if name is None:  # not a method of the service: health's Check
            return
        status = fields["status"]
        attributes: dict[str, Any] = {
            "rpc.system": "grpc",
            "rpc.service": SERVICE,
            "rpc.method": short,
            "rpc.grpc.status_code": _CODES.get(status, 2),
            "referee.request_id": fields["request_id"],
        }
        for key in ("game", "verdict", "client", "seal_refusal", "reason"):
            value = fields.get(key)
            if value:
                attributes["referee." + key] = value
        violations = fields.get("violations")
        if violations:
            attributes["referee.violations"] = tuple(violations)
        parent = None
        if traceparent:
            carrier = {"traceparent": traceparent}
            if tracestate:
                carrier["tracestate"] = tracestate
            parent = self._propagator.extract(carrier)
        span = self._tracer.start_span(
            name,
            context=parent,
            kind=self._server,
            attributes=attributes,
            start_time=end - int(seconds * 1e9),
        )
        if not span.is_recording():  # not sampled: the caller's ids stay on the line
            return
        if status in SERVER_ERRORS:
            span.set_status(self._error)
        span.end(end_time=end)
        context = span.get_span_context()
        fields["trace_id"] = format(context.trace_id, "032x")
        fields["span_id"] = format(context.span_id, "016x")

    def shutdown(self, seconds: float = FLUSH_SECONDS) -> bool:
        """Send the spans still batched and stop, within ``seconds`` (a collector that
        is down must not keep a stopping worker): whether it finished in time."""
        if self._stopped:
            return True
        self._stopped = True
        finished = threading.Event()

        def run() -> None:
            try:
                self.provider.force_flush(int(seconds * 1000))
                self.provider.shutdown()
            finally:
                finished.set()

        threading.Thread(target=run, name="referee-tracing-stop", daemon=True).start()
        return finished.wait(seconds)
