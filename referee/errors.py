"""Errors of a request (as opposed to verdicts), and their gRPC status."""

from __future__ import annotations

import grpc
from google.rpc import code_pb2, error_details_pb2, status_pb2

from referee.games.base import InvalidInput

ERROR_DOMAIN = "referee.v1"
MAX_FIELD_VIOLATIONS = 10  # named in a BadRequest (the message counts every one)
MAX_DETAIL_CHARS = 300  # of a field path or a description


class RequestError(Exception):
    """A request the referee refuses: a status code, a message and error details."""

    def __init__(
        self,
        code: grpc.StatusCode,
        message: str,
        *,
        reason: str = "",
        metadata: dict[str, str] | None = None,
        bad_request: error_details_pb2.BadRequest | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.reason = reason
        self.metadata = metadata or {}
        self.bad_request = bad_request

    @classmethod
    def from_invalid(cls, error: InvalidInput) -> RequestError:
        br = error_details_pb2.BadRequest()
        # The details travel in a trailer: gRPC clients refuse metadata over 8 KiB (by
        # default, at random between 8 and 16 KiB), so a request with hundreds of faults
        # (a bytes field of bad card codes) would come back RESOURCE_EXHAUSTED. The first
        # few faults are named; the message counts them all.
        for v in error.violations[:MAX_FIELD_VIOLATIONS]:
            br.field_violations.add(
                field=v.field[:MAX_DETAIL_CHARS], description=v.description[:MAX_DETAIL_CHARS]
            )
        first = error.violations[0] if error.violations else None
        message = (
            f"invalid {first.field[:MAX_DETAIL_CHARS]}: {first.description[:MAX_DETAIL_CHARS]}"
            if first
            else "invalid request"
        )
        if error.total > 1:
            message += f" (and {error.total - 1} more)"
        return cls(grpc.StatusCode.INVALID_ARGUMENT, message, bad_request=br)

    def to_status(self) -> status_pb2.Status:
        status = status_pb2.Status(code=_RPC_CODES[self.code], message=self.message)
        if self.bad_request is not None:
            status.details.add().Pack(self.bad_request)
        if self.reason:
            status.details.add().Pack(
                error_details_pb2.ErrorInfo(
                    reason=self.reason, domain=ERROR_DOMAIN, metadata=self.metadata
                )
            )
        return status


def invalid(field: str, description: str) -> RequestError:
    return RequestError.from_invalid(InvalidInput.one(field, description))


REPLAY_ADVICE = "replay fewer actions per call, or without include_log"


def oversize(
    size: int, limit: int, advice: str = REPLAY_ADVICE, *, partial: bool = False
) -> RequestError:
    """RESOURCE_EXHAUSTED (reason RESPONSE_TOO_LARGE) for an answer over the size limit,
    instead of gRPC's own failure to send it after the call was counted as done. With
    ``partial``, ``size`` is what was built when the answer went over (it was not built
    further): the answer would have been larger still."""
    would = "would be over" if partial else "would be"
    return RequestError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"the answer {would} {size:,} bytes, over this server's limit of {limit:,}"
        f" (--max-message-bytes): {advice}",
        reason="RESPONSE_TOO_LARGE",
        metadata={"response_bytes": str(size), "limit_bytes": str(limit)},
    )


_RPC_CODES = {
    grpc.StatusCode.INVALID_ARGUMENT: code_pb2.INVALID_ARGUMENT,
    grpc.StatusCode.FAILED_PRECONDITION: code_pb2.FAILED_PRECONDITION,
    grpc.StatusCode.RESOURCE_EXHAUSTED: code_pb2.RESOURCE_EXHAUSTED,
    grpc.StatusCode.DEADLINE_EXCEEDED: code_pb2.DEADLINE_EXCEEDED,
    grpc.StatusCode.UNAUTHENTICATED: code_pb2.UNAUTHENTICATED,
    grpc.StatusCode.PERMISSION_DENIED: code_pb2.PERMISSION_DENIED,
    grpc.StatusCode.INTERNAL: code_pb2.INTERNAL,
    grpc.StatusCode.UNAVAILABLE: code_pb2.UNAVAILABLE,
}


def request_bytes_busy(size: int, in_flight: int, limit: int) -> RequestError:
    """RESOURCE_EXHAUSTED (reason REQUEST_BYTES_IN_FLIGHT): a request whose bytes would
    take those a worker serves at once over --max-request-bytes-in-flight (a call costs
    memory in proportion to its request: up to about 36 bytes a byte)."""
    if size > limit:
        why = (
            f"the request is {size:,} bytes, over the {limit:,} bytes of requests this "
            "server serves at once (--max-request-bytes-in-flight): send less, a retry "
            "gets the same"
        )
    else:
        why = (
            f"the request's {size:,} bytes would take the requests this worker serves at "
            f"once ({in_flight:,} bytes) over {limit:,} (--max-request-bytes-in-flight): "
            "back off and retry"
        )
    return RequestError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        why,
        reason="REQUEST_BYTES_IN_FLIGHT",
        metadata={
            "request_bytes": str(size),
            "in_flight_bytes": str(in_flight),
            "limit_bytes": str(limit),
        },
    )
