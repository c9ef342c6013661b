#!/usr/bin/env python3
"""What the interceptor (logs, metrics, auth, limit) adds to each call, in-process.

    python bench/overhead.py [--calls 20000] [--rounds 5]

Each call runs as its own asyncio task, as grpc.aio runs it: the interceptor's
``intercept_service`` then the wrapped ``RefereeServicer.ListGames`` (a cached
response, the closest RPC to a no-op), with a minimal servicer context. The
baseline is the same task calling the servicer directly. Reported: the best of
``--rounds`` (microseconds per call), and the overhead over the baseline.

The server CPU of one no-op unary call through grpc.aio is about 160 us on the
reference 2-core machine (`bench/service.py` measures it): the overhead column
divided by it is the share of a no-op call's cost, in-process (inside a loaded
server every Python step costs more: `bench/inserver.py`).

Configurations (``multiproc`` runs in a child process with PROMETHEUS_MULTIPROC_DIR):
  interceptor   log line filtered out (level warning), no metrics
  +log          the info log line per RPC, JSON, to /dev/null
  +metrics      +log and Prometheus metrics (one process)
  +multiproc    +log and metrics in multiprocess mode (as with --workers N)
  +auth+limit   +metrics, a bearer token checked and a concurrency limit
  +tracing      +metrics and a span a call under a caller's sampled traceparent
                (--tracing otlp), each span also encoded as OTLP sends it (the
                batches are flushed inside the timed loop; nothing is sent)
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
CONFIGS = (
    "baseline",
    "interceptor",
    "+log",
    "+metrics",
    "+multiproc",
    "+auth+limit",
    "+tracing",
)
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
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
    if config == "+tracing":
        metadata += (("traceparent", TRACEPARENT),)
    metrics = None
    if config in ("+metrics", "+multiproc", "+auth+limit", "+tracing"):
        from referee.metrics import Metrics

        metrics = Metrics()
    auth = TokenSet([("bench", TOKEN)]) if config == "+auth+limit" else None
    tracing = None
    if config == "+tracing":
        from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
        from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

        from referee.tracing import Tracing

        class Encoded(SpanExporter):
            """What the OTLP exporter does before it sends: the batch as its bytes."""

            def export(self, spans: Any) -> Any:
                encode_spans(spans).SerializeToString()
                return SpanExportResult.SUCCESS

        tracing = Tracing(exporter=Encoded())
    interceptor = CallInterceptor(
        metrics, auth, 1000 if config == "+auth+limit" else 0, tracing=tracing
    )
    handler = grpc.unary_unary_rpc_method_handler(servicer.ListGames)
    details = Details(metadata)
    context = Context(metadata)

    async def continuation(_details: Any) -> Any:
        return handler

    async def direct() -> None:
        await servicer.ListGames(request, context)  # type: ignore[arg-type]

    async def intercepted() -> None:
        h = await interceptor.intercept_service(continuation, details)  # type: ignore[arg-type]
        behaviour: Any = h.unary_unary  # an aio behaviour (the stubs type sync ones)
        await behaviour(request, context)

    one = direct if config == "baseline" else intercepted

    async def measure() -> float:
        for _ in range(500):
            await asyncio.create_task(one())
        start = time.perf_counter()
        for _ in range(calls):
            await asyncio.create_task(one())
        if tracing is not None:  # the spans' export in the timed loop
            tracing.provider.force_flush()
        return (time.perf_counter() - start) / calls * 1e6

    return [asyncio.run(measure()) for _ in range(rounds)]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.only:
        print(json.dumps(run_config(args.only, args.calls, args.rounds)))
        return
    print(f"command: python bench/overhead.py --calls {args.calls} --rounds {args.rounds}")
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
    print(f"{'config':<12} {'us/call':>8} {'+us':>7}")
    for config in CONFIGS:
        extra = best[config] - best["baseline"]
        print(f"{config:<12} {best[config]:>8.1f} {extra:>7.1f}")


if __name__ == "__main__":
    main()
