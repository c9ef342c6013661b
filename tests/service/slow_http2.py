"""A gRPC client that reads its answer slowly, on raw HTTP/2 frames (RFC 9113): a small
receive buffer, a few KiB read at a time, a flow-control update sent as it reads and
every ping acknowledged, as a busy client on a loaded machine behaves.

grpcio's own client cannot be made that slow, and how a server closes its connections
matters only to such a client: a frame it sends after the server has closed makes the
server's kernel reset the connection, and what it had not yet received is lost."""

from __future__ import annotations

import socket
import struct
import time
from dataclasses import dataclass

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
DATA, HEADERS, SETTINGS, PING, GOAWAY, WINDOW_UPDATE = 0x0, 0x1, 0x4, 0x6, 0x7, 0x8
END_STREAM, ACK, END_HEADERS, PADDED = 0x1, 0x1, 0x4, 0x8
STREAM = 1
# The peer's windows before its settings arrive (RFC 9113 6.9.2): a request no larger
# than this is sent without waiting for any window update.
DEFAULT_WINDOW = 65_535


def frame(kind: int, flags: int, stream: int, payload: bytes = b"") -> bytes:
    header = len(payload).to_bytes(3, "big") + bytes([kind, flags]) + stream.to_bytes(4, "big")
    return header + payload


def split_frames(buffer: bytearray) -> list[tuple[int, int, int, bytes]]:
    """The whole frames at the start of ``buffer``, taken out of it: (type, flags,
    stream, payload) each; a partial frame stays in ``buffer``."""
    frames = []
    while len(buffer) >= 9:
        length = int.from_bytes(buffer[:3], "big")
        if len(buffer) < 9 + length:
            break
        kind, flags = buffer[3], buffer[4]
        stream = int.from_bytes(buffer[5:9], "big") & 0x7FFF_FFFF
        frames.append((kind, flags, stream, bytes(buffer[9 : 9 + length])))
        del buffer[: 9 + length]
    return frames


def _hpack_int(value: int, prefix_bits: int) -> bytes:
    """An HPACK integer (RFC 7541 5.1) in a first octet whose other bits are zero."""
    limit = (1 << prefix_bits) - 1
    if value < limit:
        return bytes([value])
    out, value = bytearray([limit]), value - limit
    while value >= 128:
        out.append(value % 128 + 128)
        value //= 128
    out.append(value)
    return bytes(out)


def _literal(name: str, value: str) -> bytes:
    """A header field as a literal without indexing, with a new name, no Huffman."""
    n, v = name.encode(), value.encode()
    return b"\x00" + _hpack_int(len(n), 7) + n + _hpack_int(len(v), 7) + v


@dataclass
class SlowAnswer:
    message: bytes | None  # the answer's one gRPC message, if it came whole
    ended: bool  # the stream's trailers came (END_STREAM)
    error: str | None  # how the connection failed, if it did
    goaways: int


class SlowCall:
    """One unary call on a connection of its own; its request is sent at once."""

    def __init__(self, port: int, path: str, request: bytes, receive_buffer: int = 4096) -> None:
        body = b"\0" + struct.pack(">I", len(request)) + request
        if len(body) > DEFAULT_WINDOW:
            raise ValueError("a request this slow client sends must fit the first window")
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        self.sock.settimeout(60)
        self.sock.connect(("127.0.0.1", port))
        block = b"".join(
            _literal(name, value)
            for name, value in (
                (":method", "POST"),
                (":scheme", "http"),
                (":authority", f"127.0.0.1:{port}"),
                (":path", path),
                ("content-type", "application/grpc"),
                ("te", "trailers"),
            )
        )
        chunks = [body[i : i + 16_384] for i in range(0, len(body), 16_384)]
        self.sock.sendall(
            PREFACE
            + frame(SETTINGS, 0, 0)
            + frame(HEADERS, END_HEADERS, STREAM, block)
            + b"".join(frame(DATA, 0, STREAM, chunk) for chunk in chunks[:-1])
            + frame(DATA, END_STREAM, STREAM, chunks[-1])
        )

    def read_slowly(self, pause_seconds: float = 0.002, read_size: int = 4096) -> SlowAnswer:
        """Read the answer ``read_size`` bytes at a time, pausing between reads."""
        buffer, data, unacknowledged, ended, goaways = bytearray(), b"", 0, False, 0
        error: str | None = None
        try:
            while not ended:
                received = self.sock.recv(read_size)
                if not received:
                    error = "connection closed before the trailers"
                    break
                buffer += received
                out = b""
                for kind, flags, stream, payload in split_frames(buffer):
                    length = len(payload)
                    if kind == DATA:
                        if flags & PADDED:
                            payload = payload[1 : len(payload) - payload[0]]
                        data += payload
                        unacknowledged += length
                        if unacknowledged >= 16_384:  # as a client reads: more window
                            increment = unacknowledged.to_bytes(4, "big")
                            out += frame(WINDOW_UPDATE, 0, 0, increment)
                            out += frame(WINDOW_UPDATE, 0, stream, increment)
                            unacknowledged = 0
                        ended = ended or bool(flags & END_STREAM)
                    elif kind == HEADERS:
                        ended = ended or bool(flags & END_STREAM)
                    elif kind in (SETTINGS, PING) and not flags & ACK:
                        out += frame(kind, ACK, 0, payload if kind == PING else b"")
                    elif kind == GOAWAY:
                        goaways += 1
                if out:
                    self.sock.sendall(out)
                time.sleep(pause_seconds)
        except OSError as e:
            error = repr(e)
        finally:
            self.sock.close()
        message = None
        if len(data) >= 5 and data[0] == 0:
            size = int.from_bytes(data[1:5], "big")
            if len(data) == 5 + size:
                message = data[5:]
        return SlowAnswer(message, ended, error, goaways)
