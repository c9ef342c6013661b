"""What Referee's two HTTP/1.1 servers (the gRPC-Web gateway, ``referee grpc-web``, and
the metrics endpoint, ``--metrics-port``) share: reads bounded by a deadline.

Both are ``http.server`` servers with a thread per connection, so a connection that
sends nothing, or a byte now and then, holds a thread for as long as it is let."""

from __future__ import annotations

import io
import socket
import time
from typing import Any


class DeadlineReader(io.RawIOBase):
    """A connection's reads, each bounded by what is left of the time the request may
    take to arrive (from the end of the previous answer, or the connection's start, to
    the end of its body): a client that sends a byte now and then (slowloris) is cut
    at that deadline, not kept for ever by a timeout that each byte renews. A read past
    the deadline raises ``TimeoutError``, which ``http.server`` takes as a request
    that timed out (the connection is closed)."""

    def __init__(self, sock: socket.socket, seconds: float) -> None:
        super().__init__()
        self._sock = sock
        self._seconds = seconds
        self.deadline = time.monotonic() + seconds

    def restart(self) -> None:
        self.deadline = time.monotonic() + self._seconds

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError("the request did not arrive in time")
        self._sock.settimeout(left)
        try:
            return self._sock.recv_into(buffer)
        finally:
            self._sock.settimeout(self._seconds)  # what an answer's writes may take
