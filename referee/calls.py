"""A call's bookkeeping, on the hot path of both engines: its request id, its
:class:`~referee.service.CallInfo`, its one log line and its metrics (:class:`Book`),
and on the threads engine the handler around the servicer (:func:`threaded_handler`).

Compiled with the servicer (setup.py): this is the Python every call runs around the
referee's work, and interpreted it was about 40,000 instructions a call
(``bench/instructions.py --stack``, docs/benchmarks.md). The interceptors themselves
(:class:`referee.server.CallBook` and its engines' subclasses, which are gRPC's
interceptor classes) stay interpreted: they prepare a method once and admit a call.
"""

from __future__ import annotations

import itertools
import logging
import os
import re
import time
from collections.abc import Callable
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, Final

import grpc

from referee.errors import RequestError, oversize
from referee.logs import rpc_line
from referee.service import CURRENT_CALL, REQUEST_ID_KEY, CallInfo, abort_with_status

if TYPE_CHECKING:
    from referee.metrics import Metrics
    from referee.tracing import Tracing

MAX_REQUEST_ID_LENGTH: Final = 128
# W3C Trace Context (https://www.w3.org/TR/trace-context/): a caller traced with
# OpenTelemetry (or any W3C tracer) sends ``traceparent``; its trace id and its span id
# (the caller's span) go on the call's log line, so that a log pipeline ties the line
# to the trace. A header that is not valid is ignored. With --tracing otlp the call
# also makes a span of its own, a child of the caller's (referee.tracing), and the
# line names that span instead.
TRACEPARENT_KEY: Final = "traceparent"
TRACESTATE_KEY: Final = "tracestate"
_TRACEPARENT: Final = re.compile(
    r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-[^\x00-\x1f]*)?\Z"
)
_ZERO_TRACE: Final = "0" * 32
_ZERO_SPAN: Final = "0" * 16
_ID_MASK: Final = (1 << 64) - 1
# Codes whose per-RPC line is a warning, not info: the server in trouble (the call was
# refused for want of capacity, overran its deadline, failed) or a caller refused for
# want of a token or a credential. With --log-level warning only these lines are
# written: the per-RPC lines of the calls that need a look, not of every call.
WARNING_CODES: Final = frozenset(
    {
        "RESOURCE_EXHAUSTED",
        "DEADLINE_EXCEEDED",
        "UNAVAILABLE",
        "INTERNAL",
        "UNKNOWN",
        "UNAUTHENTICATED",
        "PERMISSION_DENIED",
    }
)

# A call that ends with at most this long left before its deadline is logged
# DEADLINE_EXCEEDED, not CANCELLED: a client's deadline runs out a little before the
# server's (the server's counts from the request's arrival), and under load the
# client's cancel can reach the server first. Counted as deadlines, these calls show in
# the error-ratio alert instead of passing for clients that left.
DEADLINE_SLACK_SECONDS: Final = 0.25


def ended_early(context: Any) -> str:
    """The status of a call whose client is gone: DEADLINE_EXCEEDED when its deadline
    has passed or is about to (:data:`DEADLINE_SLACK_SECONDS`), else CANCELLED."""
    remaining = context.time_remaining()  # None without a deadline
    if remaining is not None and remaining <= DEADLINE_SLACK_SECONDS:
        return "DEADLINE_EXCEEDED"
    return "CANCELLED"


# The name of the token that authenticated the call (set by the interceptor).
CLIENT: Final[ContextVar[str]] = ContextVar("referee_client", default="")
# When the server admitted the call (``time.perf_counter()``, set by the interceptor as
# it admits or refuses it, in the call's context): its latency starts there, so that
# it holds the reading of its request and, on the threads engine, its wait for a free
# handler thread, not only its handler's run. 0.0: no interceptor (its handler's start).
ARRIVED: Final[ContextVar[float]] = ContextVar("referee_arrived", default=0.0)


def trace_context(traceparent: str) -> tuple[str, str] | None:
    """The trace id and parent span id of a W3C ``traceparent`` header, or None when it
    is not valid: version ``ff``, a zero trace or span id, upper-case hex, a wrong
    length, or (version ``00``) anything after the flags."""
    if len(traceparent) > 512:
        return None
    match = _TRACEPARENT.match(traceparent)
    if match is None:
        return None
    version, trace_id, span_id, rest = match.groups()
    if version == "ff" or (version == "00" and rest is not None):
        return None
    if trace_id == _ZERO_TRACE or span_id == _ZERO_SPAN:
        return None
    return trace_id, span_id


class Book:
    """A server's bookkeeping of its calls (one per interceptor). Thread-safe: the
    threads engine begins and ends calls in several threads."""

    def __init__(
        self, metrics: Metrics | None, log_starts: bool, log: Any, spans: Tracing | None = None
    ) -> None:
        self.metrics = metrics
        self.spans = spans  # --tracing otlp: a span a call (referee.tracing)
        self.log_starts = log_starts  # a call's first line: debug only
        self.log = log
        # Request ids made here: unique, not secret (a random prefix per server, a counter).
        self.id_prefix = os.urandom(8).hex()
        self.ids = itertools.count(1)

    def begin(self, short: str, context: Any) -> tuple[CallInfo, Token[CallInfo | None], float]:
        """A call's handler starts: its request id (``x-request-id``, or made here, and
        returned in the trailing metadata), its :class:`CallInfo`, its start time (when
        the server admitted it: :data:`ARRIVED`)."""
        start = ARRIVED.get()
        if not start:
            start = time.perf_counter()
        request_id = ""
        traceparent = ""
        tracestate = ""
        for key, value in context.invocation_metadata() or ():
            if key == REQUEST_ID_KEY:
                if not request_id and isinstance(value, str):
                    request_id = value[:MAX_REQUEST_ID_LENGTH]
            elif key == TRACEPARENT_KEY and not traceparent and isinstance(value, str):
                traceparent = value
            elif key == TRACESTATE_KEY and not tracestate and isinstance(value, str):
                tracestate = value
        if not request_id:
            # 16 hex digits (half the instructions of f"{n:016x}": no format spec parsed).
            request_id = self.id_prefix + (next(self.ids) & _ID_MASK).to_bytes(8, "big").hex()
        info = CallInfo(short, request_id)
        if traceparent:
            trace = trace_context(traceparent)
            if trace is not None:
                info.note("trace_id", trace[0])
                info.note("span_id", trace[1])
                if self.spans is not None:
                    info.trace = (traceparent, tracestate)
        token = CURRENT_CALL.set(info)
        if self.log_starts:
            self.log.debug("rpc_start", method=short, request_id=request_id)
        context.set_trailing_metadata(((REQUEST_ID_KEY, request_id),))
        return info, token, start

    def end(
        self,
        info: CallInfo,
        token: Token[CallInfo | None],
        start: float,
        status: str,
        response: Any,
        level: int,
        context: Any,
    ) -> None:
        """A call ended with ``status``: its metrics and its one log line (with the
        peer's address when it was refused for want of a token or a credential)."""
        CURRENT_CALL.reset(token)
        seconds = time.perf_counter() - start
        short = info.method
        metrics = self.metrics
        if metrics is not None:
            metrics.rpc(short, info.game, info.verdict, status, seconds)
            if status == "OK":
                if short == "ApplyAction" and info.verdict:
                    metrics.action(info.game, info.rules_version, info.verdict)
                elif short == "Replay" and response is not None:
                    metrics.replay_steps(info.game, info.rules_version, response.steps)
        fields: dict[str, Any] = {
            "method": short,
            "status": status,
            "ms": round(seconds * 1_000_000) / 1000,  # whole microseconds (cheaper than ndigits)
            "request_id": info.request_id,
        }
        if info.game:
            fields["game"] = info.game
        if info.verdict:
            fields["verdict"] = info.verdict
            if info.violations:
                fields["violations"] = list(info.violations)
        extra = info.extra
        if extra:
            fields.update(extra)  # e.g. seal_refusal: STATE_SEAL_INVALID
        client = CLIENT.get()
        if client:
            fields["client"] = client
        spans = self.spans
        if spans is not None:  # the call's span; the line then names it
            trace = info.trace
            if trace is None:
                spans.record(fields, seconds, "", "")
            else:
                spans.record(fields, seconds, trace[0], trace[1])
        if status != "OK" and status in WARNING_CODES:
            if status == "UNAUTHENTICATED" or status == "PERMISSION_DENIED":
                # Who was refused (no token, a wrong one, another seat's credential): its
                # address, to trace repeated attempts. Not asked of other calls (a lookup).
                fields["peer"] = context.peer()
            if level < logging.WARNING:
                level = logging.WARNING
        rpc_line(fields, level)


class Malformed:
    """What a request body that does not parse becomes (instead of an exception in
    gRPC's deserialization, which it answers with UNKNOWN and the exception's text)."""

    __slots__ = ("message_type",)

    def __init__(self, message_type: str) -> None:
        self.message_type = message_type


# A request over this many bytes is a large one: with --max-request-bytes-in-flight its
# bytes are counted while its call is served. Every request of a game in play is far under
# it (a state is under 2 KB but for an Écarté gallery of thousands of wagers); long
# Replays are over it.
LARGE_REQUEST_BYTES: Final = 64 * 1024


class Large:
    """A large request as its deserializer hands it to the call's handler: the message
    and the size of its body (gRPC parses a request where its call's context is not
    always at hand: on the threaded server, in its serving thread)."""

    __slots__ = ("message", "size")

    def __init__(self, message: Any, size: int) -> None:
        self.message = message
        self.size = size


class Refused:
    """A request refused before its handler ran, as the threads engine hands it on (the
    call is still logged and answered by its handler): its bytes would take the large
    requests in flight over --max-request-bytes-in-flight."""

    __slots__ = ("error",)

    def __init__(self, error: RequestError) -> None:
        self.error = error


def tolerant(
    deserializer: Callable[[bytes], Any] | None, sized: bool = False
) -> Callable[[bytes], Any] | None:
    """``deserializer``, returning a :class:`Malformed` for bytes it cannot parse; with
    ``sized``, a large request as a :class:`Large`."""
    if deserializer is None:
        return None
    message_type = getattr(getattr(deserializer, "__self__", None), "DESCRIPTOR", None)
    name: str = message_type.full_name if message_type is not None else "request"

    def deserialize(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception:  # DecodeError, and whatever else a parser may raise on garbage
            return Malformed(name)

    if not sized:
        return deserialize

    def deserialize_sized(data: bytes) -> Any:
        message = deserialize(data)
        if len(data) > LARGE_REQUEST_BYTES and message.__class__ is not Malformed:
            return Large(message, len(data))
        return message

    return deserialize_sized


def malformed(request: Malformed) -> RequestError:
    """INVALID_ARGUMENT (reason REQUEST_MALFORMED) for a body that is not the message."""
    return RequestError(
        grpc.StatusCode.INVALID_ARGUMENT,
        f"the request body is not a valid {request.message_type} (protobuf wire format)",
        reason="REQUEST_MALFORMED",
        metadata={"message_type": request.message_type},
    )


def threaded_handler(
    book: Book,
    short: str,
    inner: Callable[[Any, Any], Any],
    max_response: int,
    quiet: bool,
    answering: Callable[[Any], None],
) -> Callable[[Any, Any], Any]:
    """``inner`` (a unary method of the servicer) as grpc's threaded server runs it, with
    the call's bookkeeping around it (:class:`referee.threaded.ThreadCallInterceptor`);
    ``answering`` is given the call's context first. A large request's bytes are held
    by the interceptor's gate, from before the call waits for a handler slot: the
    handler is given the message, or a :class:`Refused` to answer with its error."""
    level = logging.DEBUG if quiet else logging.INFO

    def handler(request: Any, context: Any) -> Any:
        answering(context)
        info, token, start = book.begin(short, context)
        status = "OK"
        response = None
        try:
            if request.__class__ is Malformed:
                abort_with_status(malformed(request), context, info.request_id)
            if request.__class__ is Refused:
                abort_with_status(request.error, context, info.request_id)
            response = inner(request, context)
            if max_response and response.ByteSize() > max_response:
                error = oversize(response.ByteSize(), max_response)
                abort_with_status(error, context, info.request_id)
            if not context.is_active():  # the deadline passed, the client left
                status = ended_early(context)
            return response
        except Exception:
            # An abort's status (grpc raises a bare Exception), but for a call whose client
            # is gone already: that status reaches nobody (a Replay stopped because its
            # client left is logged CANCELLED, not as its own refusal).
            if not context.is_active():
                status = ended_early(context)
                raise
            code = context.code()
            if isinstance(code, grpc.StatusCode):
                status = code.name
                raise
            status = "INTERNAL"
            book.log.exception("rpc_failed", method=short, request_id=info.request_id)
            context.abort(grpc.StatusCode.INTERNAL, "internal error")
            raise
        finally:
            book.end(info, token, start, status, response, level, context)

    return handler
