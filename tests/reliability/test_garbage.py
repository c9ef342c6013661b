"""Raw bytes as the request body of every method of a live server (a generic call with
identity serializers): random bytes, bytes that look like protobuf (real field numbers
with wrong wire types, overrunning lengths, over-long varints, nesting deeper than any
parser allows), and very large bodies. The server answers each with a status and keeps
serving; a body that does not parse is INVALID_ARGUMENT (reason REQUEST_MALFORMED)."""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf.message import DecodeError
from google.rpc import error_details_pb2
from grpc_health.v1.health_pb2 import HealthCheckRequest, HealthCheckResponse
from grpc_reflection.v1alpha.reflection_pb2 import (
    ServerReflectionRequest,
    ServerReflectionResponse,
)
from grpc_status import rpc_status
from hypothesis import given, settings
from hypothesis import strategies as st

from ..ops.helpers import wait_until
from . import protofuzz
from .conftest import scaled
from .support import (
    CLIENT_ERRORS,
    METHODS,
    RESPONSE_CLASSES,
    SERVICE,
    RefereeProcess,
    check_error,
    raw_caller,
)

PATHS = tuple(f"/{SERVICE.full_name}/{m}" for m in METHODS)
HEALTH_CHECK = "/grpc.health.v1.Health/Check"
KNOWN_GARBAGE = (
    b"\xff\xff\xff",  # a field number 0 / truncated varint
    b"\x0a\x05abc",  # a length that overruns the body
    b"\x08" + b"\xff" * 10 + b"\x01",  # an 11-byte varint
    b"\x0f",  # wire type 7 does not exist
    b"\x0a\x02\x08",  # a sub-message that ends inside a varint
)


@pytest.fixture(scope="module")
def channel(plain_server: RefereeProcess) -> Iterator[grpc.Channel]:
    with plain_server.channel() as ch:
        yield ch


def _reason(err: grpc.RpcError) -> tuple[str, dict[str, str]]:
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None
    for detail in status.details:
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            return info.reason, dict(info.metadata)
    raise AssertionError("no ErrorInfo")


@pytest.mark.parametrize("path", [*PATHS, HEALTH_CHECK])
def test_a_body_that_does_not_parse_is_invalid_argument(
    path: str, channel: grpc.Channel, plain_server: RefereeProcess
) -> None:
    """Regression: gRPC answered UNKNOWN ("Unexpected <class 'DecodeError'>: ...")."""
    call = raw_caller(channel, path)
    ids = [f"garbage-{path}-{i}" for i in range(len(KNOWN_GARBAGE))]
    for body, rid in zip(KNOWN_GARBAGE, ids, strict=True):
        with pytest.raises(grpc.RpcError) as caught:
            call.with_call(body, timeout=10, metadata=(("x-request-id", rid),))
        err = caught.value
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
        reason, metadata = _reason(err)
        assert reason == "REQUEST_MALFORMED"
        assert metadata["message_type"].endswith("Request")
        assert ("x-request-id", rid) in (err.trailing_metadata() or ())  # type: ignore[attr-defined]
    if path != HEALTH_CHECK:  # health checks log at debug level
        # Logged like any refused call.
        wait_until(lambda: all(r in plain_server.by_id for r in ids), "their log lines")
        assert {plain_server.by_id[r] for r in ids} == {"INVALID_ARGUMENT"}
    plain_server.assert_healthy()


def test_random_bodies_on_every_method(
    channel: grpc.Channel, plain_server: RefereeProcess, tally: Counter[str]
) -> None:
    @settings(max_examples=scaled(1500))
    @given(
        path=st.sampled_from(PATHS),
        body=st.one_of(st.binary(max_size=300), protofuzz.wire_garbage()),
    )
    def run(path: str, body: bytes) -> None:
        tally[f"garbage {_send(channel, path, body)}"] += 1

    run()
    plain_server.assert_healthy()


def _send(channel: grpc.Channel, path: str, body: bytes) -> str:
    method = path.rsplit("/", 1)[1]
    try:
        reply = raw_caller(channel, path)(body, timeout=30)
    except grpc.RpcError as err:
        return check_error(err, CLIENT_ERRORS)
    # The bytes happened to parse (protobuf reads what it can): a whole answer.
    try:
        RESPONSE_CLASSES[method].FromString(reply)
    except DecodeError as e:
        raise AssertionError(f"{method} answered bytes that do not parse") from e
    return "OK"


def test_large_bodies(plain_server: RefereeProcess) -> None:
    """10 MiB of random bytes: INVALID_ARGUMENT; 17 MiB (over the 16 MiB limit):
    RESOURCE_EXHAUSTED before the handler runs. The server keeps serving."""
    rng = os.urandom
    with plain_server.channel() as ch:
        for path in PATHS:
            with pytest.raises(grpc.RpcError) as err:
                raw_caller(ch, path)(b"\x0f" + rng(10 * 1024 * 1024), timeout=30)
            assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        with pytest.raises(grpc.RpcError) as err:
            raw_caller(ch, PATHS[2])(rng(17 * 1024 * 1024), timeout=30)
        assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    plain_server.assert_healthy()


def test_streaming_services_refuse_garbage_and_the_server_stays_up(
    channel: grpc.Channel, plain_server: RefereeProcess
) -> None:
    """Health Watch and reflection are grpcio's own streaming services: a body that does
    not parse ends the stream with INVALID_ARGUMENT (REQUEST_MALFORMED; grpcio alone
    answers UNKNOWN there), and valid requests are still answered."""
    watch = channel.unary_stream("/grpc.health.v1.Health/Watch")
    with pytest.raises(grpc.RpcError) as err:
        list(watch(b"\xff\xff", timeout=10))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    assert "grpc.health.v1.HealthCheckRequest" in (err.value.details() or "")
    reflect = channel.stream_stream(
        "/grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo"
    )
    with pytest.raises(grpc.RpcError) as err:
        list(reflect(iter([b"\xff\xff"]), timeout=10))
    assert err.value.code() == grpc.StatusCode.INVALID_ARGUMENT, err.value.details()
    # A valid reflection exchange and the first answer of a valid Watch still work.
    listing = ServerReflectionRequest(list_services="").SerializeToString()
    (reply,) = list(reflect(iter([listing]), timeout=10))
    services = ServerReflectionResponse.FromString(reply).list_services_response.service
    assert "referee.v1.RefereeService" in {s.name for s in services}
    stream = watch(HealthCheckRequest(service="").SerializeToString(), timeout=10)
    first = HealthCheckResponse.FromString(next(iter(stream)))
    assert first.status == HealthCheckResponse.SERVING
    stream.cancel()
    plain_server.assert_healthy()
