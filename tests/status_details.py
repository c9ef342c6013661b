"""The ``google.rpc`` details of a refused call, as the tests read them."""

from __future__ import annotations

import grpc
from google.rpc import error_details_pb2
from grpc_status import rpc_status


def error_info(error: grpc.RpcError) -> error_details_pb2.ErrorInfo:
    """The call's one detail, a ``google.rpc.ErrorInfo``."""
    status = rpc_status.from_call(error)  # type: ignore[arg-type]
    assert status is not None
    info = error_details_pb2.ErrorInfo()
    assert [d.Unpack(info) for d in status.details] == [True]
    return info
