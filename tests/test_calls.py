"""A call's bookkeeping (referee/calls.py): its request id and trailing metadata, its
CallInfo while it runs, its one log line."""

from __future__ import annotations

import re
from typing import Any

from referee.calls import MAX_REQUEST_ID_LENGTH, Book
from referee.service import CURRENT_CALL


class Context:
    """The two methods of a gRPC servicer context the bookkeeping uses."""

    def __init__(self, metadata: tuple[tuple[str, Any], ...] = ()) -> None:
        self.metadata = metadata
        self.trailing: tuple[tuple[str, str], ...] = ()

    def invocation_metadata(self) -> tuple[tuple[str, Any], ...]:
        return self.metadata

    def set_trailing_metadata(self, trailing: tuple[tuple[str, str], ...]) -> None:
        self.trailing = trailing


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
