#!/usr/bin/env python3
"""What the interceptor (logs, metrics, auth, limit) adds to each call, in-process.

    python scripts/bench_overhead.py [--calls 20000] [--rounds 5]

Each call runs as its own asyncio task, as grpc.aio runs it: the interceptor's
``intercept_service`` then the wrapped ``RefereeServicer.ListGames`` (a cached
response, the closest RPC to a no-op), with a minimal servicer context. The
baseline is the same task calling the servicer directly. Reported: the best of
``--rounds`` (microseconds per call), and the overhead over the baseline.

The server CPU of one no-op unary call through grpc.aio is about 150 us on the
reference 2-core machine (``--e2e`` measures it: a bare grpc.aio server on
loopback, server CPU from /proc); the overhead column divided by it is the share
of a no-op call's cost, an upper bound for real RPCs, which cost more.

Configurations (``multiproc`` runs in a child process with PROMETHEUS_MULTIPROC_DIR):
  interceptor   log line filtered out (level warning), no metrics
  +log          the info log line per RPC, JSON, to /dev/null
  +metrics      +log and Prometheus metrics (one process)
  +multiproc    +log and metrics in multiprocess mode (as with --workers N)
  +auth+limit   +metrics, a bearer token checked and a concurrency limit
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Any

TOKEN = "bench-token-0123456789abcdef"
CONFIGS = ("baseline", "interceptor", "+log", "+metrics", "+multiproc", "+auth+limit")
METHOD = "/referee.v1.RefereeService/ListGames"


class Details:
    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self.method = METHOD
        self.invocation_metadata = metadata


class Context:
    """The parts of grpc.aio.ServicerContext the interceptor and servicer use."""

    def __init__(self, metadata: tuple[tuple[str, str], ...]) -> None:
        self._metadata = metadata

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def set_trailing_metadata(self, metadata: Any) -> None:
        self.trailing = metadata

    def code(self) -> Any:
        return None

    def time_remaining(self) -> None:
        return None


def run_config(config: str, calls: int, rounds: int) -> list[float]:
    import grpc

    from referee import logs
    from referee.auth import TokenSet
    from referee.codec import all_codecs
    from referee.server import CallInterceptor
    from referee.service import Referee, RefereeServicer
    from referee.v1 import referee_pb2

    devnull = open(os.devnull, "w")  # noqa: SIM115
    quiet = config in ("baseline", "interceptor")
    logs.configure("warning" if quiet else "info", "json", devnull)
    servicer = RefereeServicer(Referee(all_codecs()))
    request = referee_pb2.ListGamesRequest()
    metadata: tuple[tuple[str, str], ...] = (("user-agent", "grpc-python/1.85"),)
    if config == "+auth+limit":
        metadata += (("authorization", f"Bearer {TOKEN}"),)
    metrics = None
    if config in ("+metrics", "+multiproc", "+auth+limit"):
        from referee.metrics import Metrics

        metrics = Metrics()
    auth = TokenSet([("bench", TOKEN)]) if config == "+auth+limit" else None
    interceptor = CallInterceptor(metrics, auth, 1000 if config == "+auth+limit" else 0)
    handler = grpc.unary_unary_rpc_method_handler(servicer.ListGames)
    details = Details(metadata)
    context = Context(metadata)

    async def continuation(_details: Any) -> Any:
        return handler

    async def direct() -> None:
        await servicer.ListGames(request, context)  # type: ignore[arg-type]

    async def intercepted() -> None:
        h = await interceptor.intercept_service(continuation, details)  # type: ignore[arg-type]
        await h.unary_unary(request, context)

    one = direct if config == "baseline" else intercepted

    async def measure() -> float:
        for _ in range(500):
            await asyncio.create_task(one())
        start = time.perf_counter()
        for _ in range(calls):
            await asyncio.create_task(one())
        return (time.perf_counter() - start) / calls * 1e6

    return [asyncio.run(measure()) for _ in range(rounds)]


def e2e(calls: int) -> float:
    """Server CPU (us) of one no-op unary call through a bare grpc.aio server."""
    code = r"""
import asyncio, grpc, json, sys
async def noop(request, context): return b""
async def main():
    call = grpc.unary_unary_rpc_method_handler(noop)
    h = grpc.method_handlers_generic_handler("bench.Noop", {"Call": call})
    server = grpc.aio.server(); server.add_generic_rpc_handlers((h,))
    port = server.add_insecure_port("127.0.0.1:0"); await server.start()
    print(json.dumps({"port": port}), flush=True); await asyncio.Event().wait()
asyncio.run(main())
"""
    import grpc

    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        port = json.loads(proc.stdout.readline())["port"]

        async def load(n: int) -> None:
            channels = [
                grpc.aio.insecure_channel(
                    f"127.0.0.1:{port}", options=[("grpc.use_local_subchannel_pool", 1)]
                )
                for _ in range(4)
            ]
            calls_ = [ch.unary_unary("/bench.Noop/Call") for ch in channels]
            left = n

            async def client(i: int) -> None:
                nonlocal left
                while left > 0:
                    left -= 1
                    await calls_[i % 4](b"")

            await asyncio.gather(*(client(i) for i in range(32)))
            for ch in channels:
                await ch.close()

        asyncio.run(load(1000))
        best = float("inf")
        for _ in range(3):
            before = _cpu(proc.pid)
            asyncio.run(load(calls))
            best = min(best, (_cpu(proc.pid) - before) / calls * 1e6)
        return best
    finally:
        proc.kill()
        proc.wait()


def _cpu(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--e2e", action="store_true", help="also measure a bare gRPC call")
    parser.add_argument("--only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        print(json.dumps(run_config(args.only, args.calls, args.rounds)))
        return
    best: dict[str, float] = {}
    for config in CONFIGS:
        env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
        tmp = None
        if config == "+multiproc":
            tmp = tempfile.mkdtemp(prefix="bench-metrics-")
            env["PROMETHEUS_MULTIPROC_DIR"] = tmp
        try:
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--only",
                    config,
                    "--calls",
                    str(args.calls),
                    "--rounds",
                    str(args.rounds),
                ],
                env=env,
                check=True,
                capture_output=True,
                text=True,
            ).stdout
        finally:
            if tmp:
                shutil.rmtree(tmp, ignore_errors=True)
        best[config] = min(json.loads(out))
    noop = e2e(args.calls) if args.e2e else None
    print(
        f"{'config':<12} {'us/call':>8} {'+us':>7}"
        + ("  share of a no-op gRPC call" if noop else "")
    )
    for config in CONFIGS:
        extra = best[config] - best["baseline"]
        line = f"{config:<12} {best[config]:>8.1f} {extra:>7.1f}"
        if noop:
            line += f"  {extra / noop:>6.1%}"
        print(line)
    if noop:
        print(f"bare grpc.aio no-op unary call: {noop:.0f} us server CPU per call")


if __name__ == "__main__":
    main()
