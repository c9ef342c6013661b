"""``--tracing otlp``: a span a call, sent to an OpenTelemetry collector over OTLP/gRPC
(referee.tracing, docs/operations.md#traces). The collector here is a real gRPC server
of OTLP's trace service; the server a real ``referee serve``."""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from concurrent import futures
from typing import Any

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2, trace_service_pb2_grpc
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from referee.server import ServerSettings
from referee.tracing import SERVER_ERRORS, Tracing, TracingError, check_environment
from referee.v1 import common_pb2, referee_pb2_grpc
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

from ..run_cli import referee
from ..server_thread import subprocess_env
from .helpers import TIMEOUT, InProcess, Served, captured_logs, log_lines

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"
SAMPLED = f"00-{TRACE_ID}-{CALLER_SPAN}-01"
NOT_SAMPLED = f"00-{'1' * 32}-{CALLER_SPAN}-00"
# Every attribute a span may carry: OpenTelemetry's for RPCs and the log line's fields.
ATTRIBUTES = {
    "rpc.system",
    "rpc.service",
    "rpc.method",
    "rpc.grpc.status_code",
    "referee.request_id",
    "referee.game",
    "referee.verdict",
    "referee.violations",
    "referee.client",
    "referee.seal_refusal",
    "referee.reason",
}


class Collector(trace_service_pb2_grpc.TraceServiceServicer):  # type: ignore[misc]
    """OTLP's trace service, keeping every span it is sent with its resource."""

    def __init__(self) -> None:
        self.spans: list[tuple[dict[str, Any], Any]] = []
        self._cond = threading.Condition()

    def Export(self, request: Any, context: Any) -> Any:
        with self._cond:
            for resource_spans in request.resource_spans:
                resource = {a.key: value_of(a.value) for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    self.spans.extend((resource, span) for span in scope.spans)
            self._cond.notify_all()
        return trace_service_pb2.ExportTraceServiceResponse()

    def wait_for(self, count: int) -> list[tuple[dict[str, Any], Any]]:
        with self._cond:
            if not self._cond.wait_for(lambda: len(self.spans) >= count, TIMEOUT):
                raise AssertionError(f"{len(self.spans)} spans of {count} reached the collector")
            return list(self.spans)


def value_of(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind == "array_value":
        return tuple(value_of(v) for v in value.array_value.values)
    return getattr(value, kind)


def attributes_of(span: Any) -> dict[str, Any]:
    return {a.key: value_of(a.value) for a in span.attributes}


@pytest.fixture
def collector() -> Iterator[tuple[Collector, int]]:
    service = Collector()
    server = grpc.server(futures.ThreadPoolExecutor(2))
    trace_service_pb2_grpc.add_TraceServiceServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    try:
        yield service, port
    finally:
        server.stop(0)


def test_each_call_is_a_server_span_under_the_callers_trace(
    collector: tuple[Collector, int],
) -> None:
    """E2E: ``referee serve --tracing otlp`` sends one SERVER span a call: a child of the
    caller's span when it sent a sampled ``traceparent``, a trace of its own without
    one, none when the caller did not sample; named by the method, with the call's
    game, verdict, violations and code, and nothing else; the log line names the span.
    Spans still batched are sent when the server stops."""
    service, port = collector
    served = Served(
        "--tracing",
        "otlp",
        env={
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_BSP_SCHEDULE_DELAY": "60000",  # nothing sent before the stop's flush
        },
    )
    try:
        ready = served.wait_for("referee_serving")
        assert ready["tracing"] == f"otlp to http://127.0.0.1:{port}"
        config = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3))
        with grpc.insecure_channel(f"127.0.0.1:{ready['port']}") as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
            game = stub.NewGame(pb.NewGameRequest(config=config), timeout=TIMEOUT)
            legal = stub.LegalActions(pb.LegalActionsRequest(state=game.state), timeout=TIMEOUT)
            action = legal.actions[0]
            traced = (("traceparent", SAMPLED), ("tracestate", "vendor=1"))
            stub.ApplyAction(
                pb.ApplyActionRequest(state=game.state, action=action),
                metadata=traced,
                timeout=TIMEOUT,
            )
            wrong = pb.Action()
            wrong.CopyFrom(action)
            wrong.actor.seat = (action.actor.seat + 1) % 3
            rejected = stub.ApplyAction(
                pb.ApplyActionRequest(state=game.state, action=wrong),
                metadata=(("traceparent", SAMPLED),),
                timeout=TIMEOUT,
            )
            assert rejected.verdict == common_pb2.VERDICT_REJECTED
            with pytest.raises(grpc.RpcError) as refused:
                stub.ApplyAction(pb.ApplyActionRequest(action=action), timeout=TIMEOUT)
            assert refused.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            stub.ListGames(  # a tracestate that is not one: dropped, not logged
                pb.ListGamesRequest(),
                metadata=(("traceparent", NOT_SAMPLED), ("tracestate", "Not A Key=1,,=x")),
                timeout=TIMEOUT,
            )
            stub.ViewState(  # the caller did not sample: no span
                pb.ViewStateRequest(state=game.state, viewer={"public": {}}),
                metadata=(("traceparent", NOT_SAMPLED),),
                timeout=TIMEOUT,
            )
        assert served.terminate() == 0
        spans = service.wait_for(5)
    finally:
        served.close()
    assert len(spans) == 5
    assert not served.events("unparsed"), served.events("unparsed")  # JSON lines only
    assert not served.events("opentelemetry_log")
    resource = spans[0][0]
    assert resource["service.name"] == "referee"
    by_method = [(attributes_of(span)["rpc.method"], span) for _, span in spans]
    assert [m for m, _ in by_method] == [
        "NewGame",
        "LegalActions",
        "ApplyAction",
        "ApplyAction",
        "ApplyAction",
    ]
    lines = {line["request_id"]: line for line in served.events("rpc")}
    for method, span in by_method:
        attrs = attributes_of(span)
        assert set(attrs) <= ATTRIBUTES, set(attrs) - ATTRIBUTES
        assert span.name == f"referee.v1.RefereeService/{method}"
        assert span.kind == span.SPAN_KIND_SERVER
        assert attrs["rpc.system"] == "grpc"
        assert attrs["rpc.service"] == "referee.v1.RefereeService"
        assert span.end_time_unix_nano > span.start_time_unix_nano
        line = lines[attrs["referee.request_id"]]  # the line names its span
        assert line["trace_id"] == span.trace_id.hex()
        assert line["span_id"] == span.span_id.hex()
    (_, new_game), (_, legal_span), (_, applied), (_, rejected_span), (_, refused_span) = by_method
    for root in (new_game, legal_span, refused_span):  # no traceparent: a trace of its own
        assert root.parent_span_id == b""
        assert root.trace_id.hex() != TRACE_ID
    assert attributes_of(new_game)["referee.game"] == "earl_of_coventry"
    for child in (applied, rejected_span):
        assert child.trace_id.hex() == TRACE_ID
        assert child.parent_span_id.hex() == CALLER_SPAN
    assert applied.trace_state == "vendor=1"
    assert attributes_of(applied)["referee.verdict"] == "accepted"
    assert attributes_of(applied)["rpc.grpc.status_code"] == 0
    rejection = attributes_of(rejected_span)
    assert rejection["referee.verdict"] == "rejected"
    assert "NOT_YOUR_TURN" in rejection["referee.violations"]
    assert attributes_of(refused_span)["rpc.grpc.status_code"] == 3  # INVALID_ARGUMENT
    # A caller's error is not the server's: the span's status is left unset.
    assert refused_span.status.code == refused_span.status.STATUS_CODE_UNSET


def record(tracing: Tracing, **fields: Any) -> dict[str, Any]:
    line = {"method": "ApplyAction", "status": "OK", "request_id": "r1", **fields}
    tracing.record(line, 0.001, fields.pop("traceparent", ""), "")
    return line


def test_a_spans_status_is_an_error_for_the_servers_errors_only() -> None:
    exporter = InMemorySpanExporter()
    tracing = Tracing(exporter=exporter)
    try:
        for code in grpc.StatusCode:
            record(tracing, status=code.name, reason=f"{code.name}_REASON")
        assert tracing.shutdown()
        spans = exporter.get_finished_spans()
        assert len(spans) == len(grpc.StatusCode)
        for code, span in zip(grpc.StatusCode, spans, strict=True):
            assert span.kind == SpanKind.SERVER
            assert span.attributes is not None
            assert span.attributes["rpc.grpc.status_code"] == code.value[0]
            assert span.attributes["referee.reason"] == f"{code.name}_REASON"  # the line's
            error = span.status.status_code == StatusCode.ERROR
            assert error == (code.name in SERVER_ERRORS), code
        assert {"UNKNOWN", "INTERNAL", "UNAVAILABLE", "DEADLINE_EXCEEDED"} <= SERVER_ERRORS
        assert not {"INVALID_ARGUMENT", "FAILED_PRECONDITION", "OK"} & SERVER_ERRORS
    finally:
        tracing.shutdown()


def test_a_call_the_caller_did_not_sample_keeps_the_callers_ids_on_its_line() -> None:
    exporter = InMemorySpanExporter()
    tracing = Tracing(exporter=exporter)
    try:
        line = record(tracing, traceparent=NOT_SAMPLED, trace_id="1" * 32, span_id=CALLER_SPAN)
        assert (line["trace_id"], line["span_id"]) == ("1" * 32, CALLER_SPAN)
        sampled = record(tracing, traceparent=SAMPLED)
        assert sampled["trace_id"] == TRACE_ID and sampled["span_id"] != CALLER_SPAN
        assert tracing.shutdown()
        assert len(exporter.get_finished_spans()) == 1
    finally:
        tracing.shutdown()


def test_service_name_and_resource_from_opentelemetrys_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OTEL_SERVICE_NAME", "rules")
    monkeypatch.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=staging")
    tracing = Tracing(worker=1, exporter=InMemorySpanExporter())
    try:
        resource = tracing.provider.resource.attributes
        assert resource["service.name"] == "rules"
        assert resource["deployment.environment"] == "staging"
        assert resource["referee.worker"] == 1
    finally:
        tracing.shutdown()
    monkeypatch.delenv("OTEL_SERVICE_NAME")
    tracing = Tracing(exporter=InMemorySpanExporter())
    try:
        assert tracing.provider.resource.attributes["service.name"] == "referee"
    finally:
        tracing.shutdown()


def test_a_protocol_other_than_grpc_is_refused(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
    with pytest.raises(TracingError, match="OTLP over gRPC only"):
        check_environment()
    code, _, err = referee(capsys, "serve", "--tracing", "otlp", "--check-config")
    assert code == 2
    assert "--tracing otlp: OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf" in err
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://collector:4317")
    code, out, _ = referee(capsys, "serve", "--tracing", "otlp", "--check-config")
    assert code == 0
    assert "  tracing   OTLP/gRPC to http://collector:4317" in out
    code, out, _ = referee(capsys, "serve", "--check-config")
    assert "  tracing   off" in out


def test_a_stop_does_not_wait_for_a_collector_that_is_down() -> None:
    """The last spans are sent within the flush bound, or given up."""

    class Stuck(InMemorySpanExporter):
        def __init__(self) -> None:
            super().__init__()
            self.release = threading.Event()

        def export(self, spans: Any) -> Any:
            self.release.wait(TIMEOUT)
            return super().export(spans)

    exporter = Stuck()
    tracing = Tracing(exporter=exporter)
    record(tracing)
    try:
        assert not tracing.shutdown(seconds=0.2)
        assert tracing.shutdown()  # once only
    finally:
        exporter.release.set()


def test_a_worker_exits_at_once_after_a_stop_that_gave_up_its_last_spans() -> None:
    """The stop's bound is the process's: once the flush is given up, nothing waits
    for the collector again as the worker exits (OpenTelemetry's own shutdown at exit
    would, for its export's timeout)."""
    program = """
import threading
from opentelemetry.sdk.trace.export import SpanExporter
from referee.tracing import Tracing

class Stuck(SpanExporter):
    def export(self, spans):
        threading.Event().wait()  # a collector that never answers

tracing = Tracing(exporter=Stuck())
tracing.record({"method": "ListGames", "status": "OK", "request_id": "r"}, 0.0, "", "")
assert not tracing.shutdown(seconds=0.2)
"""
    done = subprocess.run(
        [sys.executable, "-c", program], env=subprocess_env(), timeout=30, capture_output=True
    )
    assert done.returncode == 0, done.stderr


@settings(max_examples=300, deadline=None)
@given(
    tracestate=st.text(max_size=600),
    flags=st.sampled_from(["00", "01", "ff", "02"]),
    rest=st.sampled_from(["", "-", "-extra"]),
)
def test_whatever_a_caller_sends_as_its_trace_a_span_is_made_or_not(
    tracestate: str, flags: str, rest: str
) -> None:
    """A caller's ``tracestate`` (kept only with a valid ``traceparent``) never makes
    the span fail: the call's end, where the span is made, cannot raise."""
    header = f"00-{TRACE_ID}-{CALLER_SPAN}-{flags}{rest}"
    exporter = InMemorySpanExporter()
    tracing = _TRACING.setdefault("t", Tracing(exporter=exporter))
    line = {"method": "ApplyAction", "status": "OK", "request_id": "r"}
    tracing.record(line, 0.0, header, tracestate)
    if "trace_id" in line:  # recorded: a trace id of 32 hex digits
        assert int(line["trace_id"], 16) and len(line["trace_id"]) == 32


_TRACING: dict[str, Tracing] = {}


def test_a_tracestate_too_long_to_keep_is_dropped_without_a_line() -> None:
    """OpenTelemetry drops a ``tracestate`` over 8,192 characters with a warning; the
    caller's doing, on every call it makes: not a line of the server's log."""
    exporter = InMemorySpanExporter()
    with captured_logs() as out:
        tracing = Tracing(exporter=exporter)
        try:
            for state in ("a=" + "b" * 250 + ",c=" + "d" * 8000, "Not A Key=1"):
                line = {"method": "ListGames", "status": "OK", "request_id": "r"}
                tracing.record(line, 0.0, SAMPLED, state)
                assert line["trace_id"] == TRACE_ID  # a span all the same, the caller's child
            assert tracing.shutdown()
        finally:
            tracing.shutdown()
    assert [len(span.context.trace_state) for span in exporter.get_finished_spans()] == [0, 0]
    assert not log_lines(out), log_lines(out)


def test_health_checks_on_the_service_port_make_no_span(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Health's Check is unary and passes the interceptor like the service's calls
    (with its own log line, at debug): it makes no span, nor one named as the service's."""
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    from referee import server as server_module

    exporter = InMemorySpanExporter()
    monkeypatch.setattr(
        server_module, "Tracing", lambda worker=None: Tracing(worker, exporter=exporter)
    )
    settings = ServerSettings(host="127.0.0.1", port=0, tracing="otlp")
    with InProcess(settings) as server, grpc.insecure_channel(server.address) as channel:
        traced = (("traceparent", SAMPLED),)
        health = health_pb2_grpc.HealthStub(channel)
        health.Check(health_pb2.HealthCheckRequest(), metadata=traced, timeout=TIMEOUT)
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        stub.ListGames(pb.ListGamesRequest(), metadata=traced, timeout=TIMEOUT)
        health.Check(health_pb2.HealthCheckRequest(), timeout=TIMEOUT)
        assert server.server.tracing.shutdown()
    spans = exporter.get_finished_spans()
    assert [span.name for span in spans] == ["referee.v1.RefereeService/ListGames"]


def test_a_span_that_cannot_be_made_leaves_the_call_as_it_was() -> None:
    """The span is made as the call ends: should OpenTelemetry fail there, the call is
    answered and logged as without tracing, and the failure logged once a worker."""

    class Broken:
        def start_span(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("no span today")

    settings = ServerSettings(host="127.0.0.1", port=0, tracing="otlp")
    with (
        captured_logs() as out,
        InProcess(settings) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        server.server.tracing._tracer = Broken()
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        for _ in range(2):
            games = stub.ListGames(
                pb.ListGamesRequest(), metadata=(("traceparent", SAMPLED),), timeout=TIMEOUT
            )
            assert games.games
        lines = log_lines(out)
    calls = [line for line in lines if line["event"] == "rpc"]
    assert [(c["status"], c["trace_id"], c["span_id"]) for c in calls] == [
        ("OK", TRACE_ID, CALLER_SPAN)
    ] * 2
    failed = [line for line in lines if line["event"] == "referee_tracing_failed"]
    assert [(f["level"], f["error"], f["message"]) for f in failed] == [
        ("error", "RuntimeError", "no span today")
    ]


def test_a_collector_that_is_down_is_told_in_the_servers_own_log_lines() -> None:
    """The exporter's failures are JSON lines of the server's log (``opentelemetry_log``,
    a warning or an error, the message only), and the server serves on."""
    import socket

    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    served = Served(
        "--tracing",
        "otlp",
        "--workers",
        "1",
        env={
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}",
            "OTEL_BSP_SCHEDULE_DELAY": "10",
            "OTEL_EXPORTER_OTLP_TIMEOUT": "1",
        },
    )
    try:
        ready = served.wait_for("referee_serving")
        with grpc.insecure_channel(f"127.0.0.1:{ready['port']}") as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
            stub.ListGames(pb.ListGamesRequest(), timeout=TIMEOUT)
            failed = served.wait_for("opentelemetry_log")
            assert failed["level"] in ("warning", "error")
            assert str(port) in failed["message"]
            assert "Traceback" not in failed["message"]
            stub.ListGames(pb.ListGamesRequest(), timeout=TIMEOUT)  # serving on
        assert served.terminate() == 0
    finally:
        served.close()
    assert not served.events("unparsed"), served.events("unparsed")
