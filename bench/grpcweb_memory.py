"""The gRPC-Web gateway's memory under large requests: its peak resident size while
``--clients`` clients each send one call of the largest size at once.

    python bench/grpcweb_memory.py [--clients 8] [--max-message-bytes 16777216]
                                   [--max-buffered-bytes auto|N ...] [--binary]

One `referee serve --workers 1` and one `referee grpc-web` in front of it (the gateway
with the given ``--max-message-bytes`` and, in turn, each ``--max-buffered-bytes``).
Each client sends a ``grpc-web-text`` Replay whose message is as large as the limit
allows (random bytes: the server answers INVALID_ARGUMENT, after the gateway has held,
decoded and forwarded it). Reported, for each setting: the gateway's resident size
before the calls and its peak during them (VmHWM, /proc), and how many calls the
gateway let through and how many it refused RESOURCE_EXHAUSTED (GATEWAY_BUFFER_FULL).
What bounds the peak is ``--max-buffered-bytes``: the request bytes the gateway holds
at once, all connections together (docs/clients.md, Memory).
"""

from __future__ import annotations

import argparse
import base64
import http.client
import os
import shlex
import subprocess
import sys
import tempfile
import threading
from collections import Counter
from pathlib import Path

from service import free_port, wait_for_port  # bench/ is on sys.path
from workload import build

METHOD = "/referee.v1.RefereeService/Replay"
CODES = {"3": "INVALID_ARGUMENT", "8": "RESOURCE_EXHAUSTED"}


def peak_mib(pid: int) -> tuple[float, float]:
    """(resident, peak resident) MiB of a process."""
    values = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            values[key] = int(value.split()[0]) / 1024
    return values["VmRSS"], values["VmHWM"]


def send(port: int, body: bytes, codes: list[str], content_type: str) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
    try:
        conn.request("POST", METHOD, body, {"Content-Type": content_type})
        reply = conn.getresponse()
        reply.read()
        codes.append(reply.getheader("grpc-status") or f"HTTP {reply.status}")
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--max-message-bytes", type=int, default=16 * 1024 * 1024)
    parser.add_argument("--max-buffered-bytes", nargs="+", default=["auto"])
    parser.add_argument("--binary", action="store_true", help="binary bodies, not grpc-web-text")
    args = parser.parse_args()
    print(
        "command: python bench/grpcweb_memory.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    )
    print(f"build: {build()}")
    referee = [sys.executable, "-P", "-m", "referee.cli"]  # -P: the build on sys.path, not cwd
    message = os.urandom(args.max_message_bytes - 16)  # room for the field's tag and length
    body = b"\x00" + len(message).to_bytes(4, "big") + message
    kind = "grpc-web" if args.binary else "grpc-web-text"
    if not args.binary:
        body = base64.b64encode(body)
    print(
        f"{args.clients} clients at once, each one {kind} call of {len(body):,} bytes "
        f"(--max-message-bytes {args.max_message_bytes:,})"
    )
    print(
        f"{'--max-buffered-bytes':<22}{'RSS before MiB':>16}{'peak MiB':>10}{'growth MiB':>12}"
        f"  answers"
    )
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        logs = open(Path(tmp) / "logs", "w")  # noqa: SIM115 (the servers' log lines)
        server = subprocess.Popen(
            [
                *referee,
                *("serve", "--port", str(port), "--host", "127.0.0.1", "--workers", "1"),
                *("--max-message-bytes", str(args.max_message_bytes), "--log-format", "json"),
            ],
            stdout=logs,
            stderr=logs,
        )
        try:
            wait_for_port(port)
            for limit in args.max_buffered_bytes:
                web_port = free_port()
                gateway = subprocess.Popen(
                    [
                        *referee,
                        *("grpc-web", "--target", f"127.0.0.1:{port}", "--host", "127.0.0.1"),
                        *("--port", str(web_port), "--log-format", "json"),
                        *("--max-message-bytes", str(args.max_message_bytes)),
                        *("--max-buffered-bytes", limit),
                    ],
                    stdout=logs,
                    stderr=logs,
                )
                try:
                    wait_for_port(web_port)
                    before, _ = peak_mib(gateway.pid)
                    codes: list[str] = []
                    clients = [
                        threading.Thread(
                            target=send, args=(web_port, body, codes, f"application/{kind}")
                        )
                        for _ in range(args.clients)
                    ]
                    for client in clients:
                        client.start()
                    for client in clients:
                        client.join()
                    _, peak = peak_mib(gateway.pid)
                    answers = ", ".join(
                        f"{n} {CODES.get(code, code)}" for code, n in sorted(Counter(codes).items())
                    )
                    print(
                        f"{limit:<22}{before:>16.0f}{peak:>10.0f}{peak - before:>12.0f}  {answers}"
                    )
                finally:
                    gateway.terminate()
                    gateway.wait(60)
        finally:
            server.terminate()
            server.wait(60)
            logs.close()


if __name__ == "__main__":
    main()
