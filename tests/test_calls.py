"""A call's bookkeeping (referee/calls.py): its request id and trailing metadata, its
CallInfo while it runs, its one log line."""

from __future__ import annotations

import itertools
import logging
import re
from collections.abc import Callable
from typing import Any

import grpc
import pytest

from referee import calls, logs
from referee.calls import MAX_REQUEST_ID_LENGTH, Book
from referee.service import CURRENT_CALL, CallInfo
from referee.v1 import referee_pb2 as pb


class Context:
    """The two methods of a gRPC servicer context the bookkeeping uses."""

    def __init__(self, metadata: tuple[tuple[str, Any], ...] = ()) -> None:
        self.metadata = metadata
        self.trailing: tuple[tuple[str, str], ...] = ()

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self.metadata

    def set_trailing_metadata(self, trailing: tuple[tuple[str, str], ...]) -> None:
        self.trailing = trailing

    def peer(self) -> str:
        return "ipv4:198.51.100.7:40000"


def test_a_request_id_is_made_unique_and_returned_in_the_trailing_metadata() -> None:
    book, other = Book(None, False, None), Book(None, False, None)
    ids = []
    for _ in range(3):
        context = Context((("user-agent", "grpc-python"),))
        info, token, _ = book.begin("ListGames", context)
        CURRENT_CALL.reset(token)
        assert context.trailing == (("x-request-id", info.request_id),)
        ids.append(info.request_id)
    # A random prefix per server (16 hex digits), then a counter (16 hex digits).
    assert all(re.fullmatch(r"[0-9a-f]{32}", i) for i in ids), ids
    assert len({i[:16] for i in ids}) == 1
    assert [int(i[16:], 16) for i in ids] == [1, 2, 3]
    info, token, _ = other.begin("ListGames", Context())
    CURRENT_CALL.reset(token)
    assert info.request_id[:16] != ids[0][:16]


def test_a_clients_request_id_is_kept_and_bounded() -> None:
    book = Book(None, False, None)
    for given, kept in [("r-1", "r-1"), ("x" * 500, "x" * MAX_REQUEST_ID_LENGTH)]:
        context = Context((("x-request-id", given),))
        info, token, _ = book.begin("ApplyAction", context)
        assert CURRENT_CALL.get() is info and info.method == "ApplyAction"
        CURRENT_CALL.reset(token)
        assert info.request_id == kept
        assert context.trailing == (("x-request-id", kept),)


TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
SPAN = "00f067aa0ba902b7"


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (f"00-{TRACE}-{SPAN}-01", (TRACE, SPAN)),
        (f"00-{TRACE}-{SPAN}-00", (TRACE, SPAN)),  # not sampled: still the same trace
        # A later version may add fields after the flags (W3C Trace Context, 4.3).
        (f"01-{TRACE}-{SPAN}-01-what-comes-next", (TRACE, SPAN)),
        (f"00-{TRACE}-{SPAN}-01-more", None),  # version 00 has nothing after the flags
        (f"ff-{TRACE}-{SPAN}-01", None),  # version ff is invalid
        (f"00-{'0' * 32}-{SPAN}-01", None),  # all-zero trace id
        (f"00-{TRACE}-{'0' * 16}-01", None),  # all-zero span id
        (f"00-{TRACE.upper()}-{SPAN}-01", None),  # lower-case hex only
        (f"00-{TRACE[:-1]}-{SPAN}-01", None),
        (f"00-{TRACE}-{SPAN}-1", None),
        (f"00-{TRACE}-{SPAN}-01\n", None),
        (f"00_{TRACE}_{SPAN}_01", None),
        ("", None),
        ("not a trace", None),
        (f"01-{TRACE}-{SPAN}-01-" + "x" * 600, None),  # bounded
    ],
)
def test_a_w3c_traceparent_is_read_strictly(header: str, expected: Any) -> None:
    assert calls.trace_context(header) == expected


def test_a_callers_trace_goes_on_its_line(lines: list[tuple[dict[str, Any], int]]) -> None:
    """A caller traced with OpenTelemetry sends ``traceparent``: its trace id and span
    id go on the call's log line; an invalid one, or none, adds nothing."""
    book = Book(None, False, None)
    for metadata in [
        (("x-request-id", "r-1"), ("traceparent", f"00-{TRACE}-{SPAN}-01")),
        # The first of each header counts, in either order (gRPC itself passes a server
        # only the last of several traceparent headers, and every x-request-id).
        (
            ("traceparent", f"00-{TRACE}-{SPAN}-01"),
            ("x-request-id", "r-2"),
            ("traceparent", f"00-{'1' * 32}-{'2' * 16}-01"),
            ("x-request-id", "r-3"),
        ),
        (("x-request-id", "r-4"), ("traceparent", f"00-{'0' * 32}-{SPAN}-01")),
        (("x-request-id", "r-5"),),
    ]:
        context = Context(metadata)
        info, token, start = book.begin("ApplyAction", context)
        book.end(info, token, start, "OK", None, logging.INFO, context)
    assert [(f["request_id"], f.get("trace_id"), f.get("span_id")) for f, _ in lines] == [
        ("r-1", TRACE, SPAN),
        ("r-2", TRACE, SPAN),
        ("r-4", None, None),
        ("r-5", None, None),
    ]


class Recorder:
    """A stand-in for :class:`referee.metrics.Metrics` and for the log: what was called."""

    def __init__(self) -> None:
        self.calls: list[tuple[Any, ...]] = []

    def rpc(self, *args: Any) -> None:
        self.calls.append(("rpc", *args))

    def action(self, *args: Any) -> None:
        self.calls.append(("action", *args))

    def replay_steps(self, game: str, rules_version: str, steps: Any) -> None:
        self.calls.append(("replay_steps", game, rules_version, steps))

    def debug(self, event: str, **fields: Any) -> None:
        self.calls.append(("debug", event, fields))

    def exception(self, event: str, **fields: Any) -> None:
        self.calls.append(("exception", event, fields))


@pytest.fixture
def lines(monkeypatch: pytest.MonkeyPatch) -> list[tuple[dict[str, Any], int]]:
    """The RPC log lines of the calls' bookkeeping (fields, level), kept: recorded by
    ``logs.rpc_line`` (which the compiled ``calls`` module calls too) into a stand-in
    for its writer, every level written."""
    kept: list[tuple[dict[str, Any], int]] = []
    levels = {"info": logging.INFO, "debug": logging.DEBUG, "warning": logging.WARNING}

    class Writer:
        def record(self, method: str, fields: dict[str, Any]) -> None:
            assert fields.pop("event") == "rpc" and fields.pop(logs.RECORDED_AT) > 0
            kept.append((fields, levels[method]))

    monkeypatch.setitem(logs._RPC, "writer", Writer())
    monkeypatch.setitem(logs._RPC, "level", logging.DEBUG)
    return kept


def _ended(
    book: Book,
    method: str,
    status: str,
    response: Any = None,
    *,
    fill: Callable[[CallInfo], None] = lambda info: None,
    level: int = logging.INFO,
) -> None:
    context = Context((("x-request-id", "r-9"),))
    info, token, start = book.begin(method, context)
    fill(info)
    book.end(info, token, start, status, response, level, context)
    assert CURRENT_CALL.get() is None  # the call's info is gone with it


def test_a_calls_line_and_metrics_say_what_it_did(
    lines: list[tuple[dict[str, Any], int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    clock = iter([5.0, 5.00123449, 7.0, 7.5, 9.0, 9.25, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0])
    monkeypatch.setattr(calls.time, "perf_counter", lambda: next(clock, 0.0))
    metrics, log = Recorder(), Recorder()
    book = Book(metrics, True, log)  # type: ignore[arg-type]

    def rejected(info: CallInfo) -> None:
        info.game, info.verdict, info.violations = "ecarte", "rejected", ("E-PLAY-4", "E-X")
        info.rules_version = "ecarte/1"
        info.note("seal_refusal", "STATE_SEAL_INVALID")

    token = calls.CLIENT.set("bot-fleet")
    try:
        _ended(book, "ApplyAction", "OK", fill=rejected)
    finally:
        calls.CLIENT.reset(token)
    steps = ["step"]
    replay = type("Replay", (), {"steps": steps})()

    def game(info: CallInfo) -> None:
        info.game, info.rules_version = "earl_of_coventry", "earl_of_coventry/1"

    _ended(book, "Replay", "OK", replay, fill=game, level=logging.DEBUG)
    _ended(book, "ListGames", "UNAUTHENTICATED")
    _ended(book, "ViewState", "PERMISSION_DENIED")

    def accepted(info: CallInfo) -> None:
        info.game, info.verdict = "ecarte", "accepted"

    _ended(book, "ApplyAction", "DEADLINE_EXCEEDED", fill=accepted)  # not counted as judged
    _ended(book, "Replay", "INVALID_ARGUMENT", fill=game)
    _ended(book, "ApplyAction", "OK", object(), fill=game)  # no verdict: nothing judged

    assert lines[0] == (
        {
            "method": "ApplyAction",
            "status": "OK",
            "ms": 1.234,
            "request_id": "r-9",
            "game": "ecarte",
            "verdict": "rejected",
            "violations": ["E-PLAY-4", "E-X"],
            "seal_refusal": "STATE_SEAL_INVALID",
            "client": "bot-fleet",
        },
        logging.INFO,
    )
    assert lines[1] == (
        {
            "method": "Replay",
            "status": "OK",
            "ms": 500.0,
            "request_id": "r-9",
            "game": "earl_of_coventry",
        },
        logging.DEBUG,
    )
    # A refusal for want of a token or a credential names the peer; no other line does.
    assert lines[2][0] == {
        "method": "ListGames",
        "status": "UNAUTHENTICATED",
        "ms": 250.0,
        "request_id": "r-9",
        "peer": "ipv4:198.51.100.7:40000",
    }
    assert lines[3][0]["peer"] == "ipv4:198.51.100.7:40000"
    assert [line for line, _ in lines if "peer" in line] == [lines[2][0], lines[3][0]]
    assert lines[4][0]["verdict"] == "accepted" and "violations" not in lines[4][0]
    # Refusals for want of a token or a credential, and the server's trouble
    # (DEADLINE_EXCEEDED here), are warnings, so that --log-level warning keeps them;
    # answers to the request (INVALID_ARGUMENT) and OK stay at their level.
    assert [level for _, level in lines] == [
        logging.INFO,
        logging.DEBUG,
        logging.WARNING,
        logging.WARNING,
        logging.WARNING,
        logging.INFO,
        logging.INFO,
    ]
    assert metrics.calls == [
        ("rpc", "ApplyAction", "ecarte", "rejected", "OK", pytest.approx(0.00123449)),
        ("action", "ecarte", "ecarte/1", "rejected"),
        ("rpc", "Replay", "earl_of_coventry", "", "OK", 0.5),
        ("replay_steps", "earl_of_coventry", "earl_of_coventry/1", steps),
        ("rpc", "ListGames", "", "", "UNAUTHENTICATED", 0.25),
        ("rpc", "ViewState", "", "", "PERMISSION_DENIED", 0.0),
        ("rpc", "ApplyAction", "ecarte", "accepted", "DEADLINE_EXCEEDED", 0.0),
        ("rpc", "Replay", "earl_of_coventry", "", "INVALID_ARGUMENT", 0.0),
        ("rpc", "ApplyAction", "earl_of_coventry", "", "OK", 0.0),
    ]
    assert [c[:2] for c in log.calls] == [("debug", "rpc_start")] * 7
    assert log.calls[0][2] == {"method": "ApplyAction", "request_id": "r-9"}
    quiet = Recorder()
    _ended(Book(None, False, quiet), "Check", "OK")  # type: ignore[arg-type]
    assert quiet.calls == []  # no rpc_start line unless asked


def test_a_calls_latency_starts_when_the_server_admitted_it(
    lines: list[tuple[dict[str, Any], int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interceptor notes when it admitted the call (``ARRIVED``, in the call's
    context): the call's ``ms`` and latency run from there, not from its handler's
    start (the reading of its request, a wait for a handler thread are in it)."""
    import contextvars
    import time

    clock = iter([12.5])  # read once: the handler ends at 12.5 (its start is not read)
    monkeypatch.setattr(time, "perf_counter", lambda: next(clock))
    metrics = Recorder()
    book = Book(metrics, False, None)  # type: ignore[arg-type]

    def call() -> None:
        calls.ARRIVED.set(2.0)  # as the interceptor admits it
        _ended(book, "ListGames", "OK")

    contextvars.copy_context().run(call)
    assert lines[-1][0]["ms"] == 10_500.0
    assert metrics.calls == [("rpc", "ListGames", "", "", "OK", 10.5)]
    assert calls.ARRIVED.get() == 0.0  # the next call's own, never this one's


class Aborted(Exception):
    pass


class HandlerContext(Context):
    """A threaded server's context: aborts raise, and set the call's code."""

    def __init__(self, active: bool = True, remaining: float | None = None) -> None:
        super().__init__()
        self.active = active
        self.remaining = remaining
        self.status: Any = None
        self._code: grpc.StatusCode | None = None

    def is_active(self) -> bool:
        return self.active

    def time_remaining(self) -> float | None:
        return self.remaining

    def code(self) -> grpc.StatusCode | None:
        return self._code

    def abort_with_status(self, status: Any) -> None:
        self.status, self._code = status, status.code
        raise Aborted

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.status, self._code = (code, details), code
        raise Aborted


class Answer:
    def __init__(self, size: int) -> None:
        self.size = size

    def ByteSize(self) -> int:  # protobuf's name
        return self.size


def test_the_threaded_handler_ends_every_call_with_one_status(
    lines: list[tuple[dict[str, Any], int]],
) -> None:
    log = Recorder()
    book = Book(None, False, log)  # type: ignore[arg-type]
    answering: list[Any] = []  # the contexts given to ``answering``, first thing

    def run(inner: Any, request: Any = "request", *, limit: int = 100, **kw: Any) -> Any:
        quiet = kw.pop("quiet", False)
        handler = calls.threaded_handler(book, "ApplyAction", inner, limit, quiet, answering.append)
        context = HandlerContext(**kw)
        seen, given = len(lines), len(answering)
        try:
            return handler(request, context), context
        except Aborted:
            return None, context
        except RuntimeError as e:
            return e, context
        finally:
            # Every call, however it ends, gives its context to ``answering`` once.
            assert answering[given:] == [context] and len(lines) == seen + 1

    def bug(request: Any, context: Any) -> Any:
        raise RuntimeError("a bug")

    answer, _ = run(lambda r, c: Answer(100))  # at the limit: answered
    assert answer.size == 100 and lines[-1] == (lines[-1][0], logging.INFO)
    assert lines[-1][0]["status"] == "OK"
    assert run(lambda r, c: Answer(100), quiet=True)[0].size == 100
    assert lines[-1][1] == logging.DEBUG and lines[-1][0]["status"] == "OK"
    assert run(lambda r, c: Answer(101), limit=0)[0].size == 101  # no limit
    answer, context = run(lambda r, c: Answer(101))
    assert answer is None and context.status.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert lines[-1][0]["status"] == "RESOURCE_EXHAUSTED"
    answer, context = run(lambda r, c: Answer(1), calls.Malformed("referee.v1.X"))
    assert answer is None and context.status.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "referee.v1.X" in context.status.details and lines[-1][0]["status"] == "INVALID_ARGUMENT"
    answer, _ = run(lambda r, c: Answer(1), active=False)  # answered after the client left
    assert answer.size == 1 and lines[-1][0]["status"] == "CANCELLED"
    error, context = run(bug, active=False)  # a failure after the client left
    assert isinstance(error, RuntimeError) and context.status is None
    assert lines[-1][0]["status"] == "CANCELLED" and log.calls == []
    # Past its deadline, or a moment before it (the client's deadline): the deadline's.
    for remaining, status in [(-1.0, "DEADLINE_EXCEEDED"), (0.2, "DEADLINE_EXCEEDED")]:
        answer, _ = run(lambda r, c: Answer(1), active=False, remaining=remaining)
        assert answer.size == 1 and lines[-1][0]["status"] == status
        run(bug, active=False, remaining=remaining)
        assert lines[-1][0]["status"] == status and log.calls == []
    run(lambda r, c: Answer(1), active=False, remaining=0.3)
    assert lines[-1][0]["status"] == "CANCELLED"
    answer, context = run(bug)  # a bug: INTERNAL, no details, logged with the request id
    assert answer is None and context.status == (grpc.StatusCode.INTERNAL, "internal error")
    assert lines[-1][0]["status"] == "INTERNAL"
    assert log.calls == [
        (
            "exception",
            "rpc_failed",
            {"method": "ApplyAction", "request_id": lines[-1][0]["request_id"]},
        )
    ]


class AioContext(Context):
    """A grpc.aio context: ``abort`` records the status and raises AbortError."""

    def __init__(self) -> None:
        super().__init__()
        self.status: Any = None

    def code(self) -> grpc.StatusCode | None:
        return self.status[0] if self.status else None

    def done(self) -> bool:
        return False

    async def abort(self, code: grpc.StatusCode, details: str = "", trailing: Any = ()) -> None:
        self.status = (code, details)
        raise grpc.aio.AbortError()


@pytest.mark.parametrize(
    ("method", "size", "refused"),
    [
        ("Replay", 100, False),  # at the limit: answered
        ("Replay", 101, True),  # one byte over: refused
        ("ApplyAction", 101, False),  # only a Replay's answer can outgrow it: not checked
    ],
)
def test_the_grpc_aio_handler_refuses_an_answer_one_byte_over_the_limit(
    lines: list[tuple[dict[str, Any], int]], method: str, size: int, refused: bool
) -> None:
    import asyncio

    from referee.server import CallInterceptor

    async def inner(request: Any, context: Any) -> Answer:
        return Answer(size)

    handler = CallInterceptor(max_response_bytes=100)._wrap(method, inner, False)
    context = AioContext()

    async def call() -> Any:
        try:
            return await handler("request", context)
        except grpc.aio.AbortError:
            return None

    answer = asyncio.run(call())
    if refused:
        assert answer is None and context.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert "101" in context.status[1] and "100" in context.status[1]
        assert lines[-1][0]["status"] == "RESOURCE_EXHAUSTED"
    else:
        assert answer.size == size and context.status is None
        assert lines[-1][0]["status"] == "OK"


def test_request_ids_made_here_wrap_at_64_bits() -> None:
    book = Book(None, False, None)
    book.ids = itertools.count(2**64 + 5)
    info, token, _ = book.begin("ListGames", Context())
    CURRENT_CALL.reset(token)
    assert info.request_id == book.id_prefix + "0000000000000005"


def test_a_body_that_does_not_parse_becomes_malformed() -> None:
    assert calls.tolerant(None) is None  # grpc's own: no deserializer
    parse = calls.tolerant(pb.ApplyActionRequest.FromString)
    assert parse is not None
    assert parse(pb.ApplyActionRequest(sealed_state=b"t").SerializeToString()).sealed_state == b"t"
    bad = parse(b"\xff\xff\xff")
    assert isinstance(bad, calls.Malformed)
    assert bad.message_type == "referee.v1.ApplyActionRequest"

    def refuses(data: bytes) -> Any:
        raise ValueError(data)

    plain = calls.tolerant(refuses)  # no message type to name
    assert plain is not None
    assert plain(b"x").message_type == "request"


@pytest.mark.parametrize(
    ("remaining", "status"),
    [
        (-0.01, "DEADLINE_EXCEEDED"),  # gRPC cancelled the task at the server's deadline
        (0.2, "DEADLINE_EXCEEDED"),  # the client's deadline, a moment before the server's
        (0.3, "CANCELLED"),  # the client left
        (None, "CANCELLED"),  # no deadline
    ],
)
def test_a_grpc_aio_call_cancelled_near_its_deadline_is_logged_past_it(
    lines: list[tuple[dict[str, Any], int]], remaining: float | None, status: str
) -> None:
    import asyncio

    from referee.calls import DEADLINE_SLACK_SECONDS
    from referee.server import CallInterceptor

    assert DEADLINE_SLACK_SECONDS == 0.25

    async def inner(request: Any, context: Any) -> Any:
        raise asyncio.CancelledError

    class Cancelled(AioContext):
        def time_remaining(self) -> float | None:
            return remaining

    handler = CallInterceptor()._wrap("Replay", inner, False)

    async def call() -> None:
        with pytest.raises(asyncio.CancelledError):
            await handler("request", Cancelled())

    asyncio.run(call())
    assert lines[-1][0]["status"] == status
