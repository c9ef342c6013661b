"""The gRPC-Web gateway's cost: ApplyAction through `referee grpc-web` (HTTP/1.1, h2load
--h1) against the same calls straight to the server (gRPC over HTTP/2, h2load), on the
same machine, in one run.

    python bench/grpcweb.py [--seconds 5] [--connections 8] [--games earl_of_coventry ecarte]
                            [--gateway-metrics]

One `referee serve --workers 1 --engine asyncio` and one `referee grpc-web` in front of
it, neither pinned (the gateway adds a process: on a 2-CPU machine the load generator,
the gateway and the server share the CPUs). For each game's mid-game ApplyAction
(bench/workload.py), h2load saturates first the server directly, then the gateway,
each with ``--connections`` connections (one call at a time on each, as a page's
fetches are); reported: calls/s, latency percentiles, and the CPU time per call of the
server and of the gateway (all their threads, from /proc). What a gateway process
costs per call sizes its replicas: calls/s a process forwards at saturation, and its
CPU per call. ``--gateway-metrics``: the gateway serves its own metrics
(``--metrics-port``), to measure what counting each call costs it.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from service import (  # bench/ is on sys.path
    cpu_seconds,
    free_port,
    h2load_results,
    wait_for_port,
)
from workload import apply_request, build

METHOD = "/referee.v1.RefereeService/ApplyAction"


@dataclass
class Run:
    rps: float
    p50: float
    p99: float
    failed: int
    server_us: float
    gateway_us: float


def h2load(url: str, body: Path, seconds: float, connections: int, web: bool, log: Path) -> Run:
    log.unlink(missing_ok=True)
    cmd = [
        "h2load",
        f"--duration={seconds:g}",
        f"--clients={connections}",
        "--max-concurrent-streams=1",
        f"--data={body}",
        f"--log-file={log}",
    ]
    if web:
        cmd += ["--h1", "--header=content-type: application/grpc-web+proto"]
    else:
        cmd += ["--header=content-type: application/grpc", "--header=te: trailers"]
    out = subprocess.run([*cmd, url], capture_output=True, text=True, check=True).stdout
    rate, failed, q = h2load_results(out, log)
    return Run(rate, q[49], q[98], failed, 0.0, 0.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--games", nargs="+", default=["earl_of_coventry", "ecarte"])
    parser.add_argument(
        "--gateway-metrics", action="store_true", help="the gateway counts calls (--metrics-port)"
    )
    args = parser.parse_args()
    print("command: python bench/grpcweb.py " + " ".join(shlex.quote(a) for a in sys.argv[1:]))
    print(f"build: {build()}")
    print(f"gateway metrics: {'on' if args.gateway_metrics else 'off'}")
    metrics = ["--metrics-port", "0", "--metrics-host", "127.0.0.1"] if args.gateway_metrics else []
    referee = [sys.executable, "-P", "-m", "referee.cli"]  # -P: the build on sys.path, not cwd
    port, web_port = free_port(), free_port()
    with tempfile.TemporaryDirectory() as tmp:
        logs = open(Path(tmp) / "logs", "w")  # noqa: SIM115 (the servers' log lines)
        server = subprocess.Popen(
            [
                *referee,
                *("serve", "--port", str(port), "--host", "127.0.0.1", "--workers", "1"),
                *("--engine", "asyncio", "--log-format", "json"),
            ],
            stdout=logs,
            stderr=logs,
        )
        gateway = subprocess.Popen(
            [
                *referee,
                *("grpc-web", "--target", f"127.0.0.1:{port}", "--host", "127.0.0.1"),
                *("--port", str(web_port), "--log-format", "json", *metrics),
            ],
            stdout=logs,
            stderr=logs,
        )
        try:
            wait_for_port(port)
            wait_for_port(web_port)
            print(
                f"\n{args.connections} connections, one call at a time on each, "
                f"{args.seconds:g} s each"
            )
            header = (
                f"{'request':<34}{'path':<10}{'calls/s':>9}{'p50 ms':>9}{'p99 ms':>9}"
                f"{'failed':>8}{'server µs':>11}{'gateway µs':>12}"
            )
            print(header)
            for game in args.games:
                message = apply_request(game).SerializeToString()
                body = Path(tmp) / f"{game}.bin"
                body.write_bytes(b"\x00" + len(message).to_bytes(4, "big") + message)
                runs = {}
                for path, url, web in (
                    ("direct", f"http://127.0.0.1:{port}{METHOD}", False),
                    ("gateway", f"http://127.0.0.1:{web_port}{METHOD}", True),
                ):
                    before = cpu_seconds(server.pid), cpu_seconds(gateway.pid)
                    run = h2load(url, body, args.seconds, args.connections, web, Path(tmp) / "log")
                    after = cpu_seconds(server.pid), cpu_seconds(gateway.pid)
                    calls = run.rps * args.seconds
                    run.server_us = (after[0] - before[0]) / calls * 1e6
                    run.gateway_us = (after[1] - before[1]) / calls * 1e6
                    runs[path] = run
                    print(
                        f"{game + ', ApplyAction':<34}{path:<10}{run.rps:>9,.0f}{run.p50:>9.2f}"
                        f"{run.p99:>9.2f}{run.failed:>8}{run.server_us:>11.0f}"
                        f"{run.gateway_us:>12.0f}"
                    )
                ratio = runs["gateway"].rps / runs["direct"].rps
                print(f"ratio gateway / direct for {game}: {ratio:.2f}")
        finally:
            for proc in (gateway, server):
                proc.terminate()
            for proc in (gateway, server):
                proc.wait(60)
            logs.close()


if __name__ == "__main__":
    main()
