"""Scale and memory: ApplyAction throughput with 1 and 2 worker processes on each engine,
and the resident size of a worker at idle and after 100,000 calls.

    python bench/scale.py [--calls 100000] [--seconds 10] [--engines auto asyncio threads]

`referee serve --workers N --engine E` (production logging) is loaded by h2load with 8
connections x 16 streams (SO_REUSEPORT spreads connections over the workers; h2load
shares the machine's cores with them). Each row says which engine served and where its
workers ran (their start-up lines: `--engine auto` resolves per worker). Memory is read
from /proc/PID/status (VmRSS) of the worker that served the calls.
"""

from __future__ import annotations

import argparse
import json
import os
import struct
import subprocess
import tempfile
import time
from pathlib import Path

from service import free_port, wait_for_port  # bench/ is on sys.path when this runs
from workload import apply_request, build, serve_command

METHOD = "/referee.v1.RefereeService/ApplyAction"


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise RuntimeError("no VmRSS")


def h2load(port: int, body: Path, *, calls: int | None = None, seconds: float = 0) -> float:
    cmd = [
        "h2load",
        "--clients=8",
        "--max-concurrent-streams=16",
        "--header=content-type: application/grpc",
        "--header=te: trailers",
        f"--data={body}",
    ]
    cmd += [f"--requests={calls}"] if calls else [f"--duration={seconds:g}", "--warm-up-time=2"]
    out = subprocess.run(
        [*cmd, f"http://127.0.0.1:{port}{METHOD}"], capture_output=True, text=True, check=True
    ).stdout
    line = next(x for x in out.splitlines() if x.startswith("finished in"))
    return float(line.split(",")[1].split()[0])


def serving(log: Path) -> list[dict[str, object]]:
    """The start-up lines of the workers that serve."""
    lines = []
    for line in log.read_text().splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if entry.get("event") == "referee_serving":
            lines.append(entry)
    return lines


def worker_pids(log: Path) -> list[int]:
    return [int(str(entry["pid"])) for entry in serving(log)]


def how(log: Path) -> str:
    """Which engine the workers serve with, and on which CPUs."""
    return ", ".join(f"{e['engine']} (cpu {e.get('cpu', 'not pinned')})" for e in serving(log))


def serve(workers: int, port: int, log: Path, engine: str) -> subprocess.Popen[bytes]:
    with open(log, "w") as out:
        return subprocess.Popen(
            serve_command(port, "--log-format", "json", "--engine", engine, workers=workers),
            stdout=out,
            stderr=out,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument(
        "--engines",
        nargs="+",
        choices=("auto", "asyncio", "threads"),
        default=["auto", "asyncio", "threads"],
    )
    args = parser.parse_args()
    print(
        f"command: python bench/scale.py --calls {args.calls} --seconds {args.seconds:g}"
        f" --engines {' '.join(args.engines)}"
    )
    print(f"build: {build()}")
    print(f"cpus: {os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        data = apply_request("earl_of_coventry").SerializeToString()
        body = work / "body"
        body.write_bytes(b"\0" + struct.pack(">I", len(data)) + data)
        for engine in args.engines:
            for workers in (1, 2):
                port = free_port()
                log = work / f"serve-{engine}-{workers}.log"
                server = serve(workers, port, log, engine)
                try:
                    wait_for_port(port)
                    while len(worker_pids(log)) < workers:
                        time.sleep(0.05)
                    rate = h2load(port, body, seconds=args.seconds)
                    print(
                        f"--engine {engine}, workers {workers}: {rate:,.0f} ApplyAction "
                        f"calls/s (earl_of_coventry); served by {how(log)}"
                    )
                finally:
                    server.terminate()
                    server.wait(60)
        for engine in args.engines:
            port = free_port()
            log = work / f"serve-memory-{engine}.log"
            server = serve(1, port, log, engine)
            try:
                wait_for_port(port)
                while not worker_pids(log):
                    time.sleep(0.05)
                (pid,) = worker_pids(log)
                idle = rss_kib(pid)
                h2load(port, body, calls=args.calls // 10)
                warm = rss_kib(pid)
                h2load(port, body, calls=args.calls)
                after = rss_kib(pid)
                print(
                    f"--engine {engine}, worker RSS: idle {idle / 1024:.1f} MiB, after warm-up "
                    f"({args.calls // 10:,} calls) {warm / 1024:.1f} MiB, after "
                    f"{args.calls:,} more calls {after / 1024:.1f} MiB "
                    f"({(after - warm) / warm * 100:+.1f}% after warm-up); served by {how(log)}"
                )
            finally:
                server.terminate()
                server.wait(60)


if __name__ == "__main__":
    main()
