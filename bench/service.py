"""Service vs floor: ApplyAction throughput and latency of Referee against a no-op gRPC
handler that receives the same request and returns a response of the same size, on the
same machine, in one run, both loaded by h2load (Debian `nghttp2-client`).

    python bench/service.py [--seconds 10] [--rounds 3] [--games earl_of_coventry ecarte]
                            [--servers no-op 'no-op threads' stack 'stack threads' referee
                             'referee threads']

For each game, two realistic mid-game ApplyAction requests (a state and a legal action;
the same with the acting seat's view, as a bot would ask), each served by the servers
of ``--servers``:

- "no-op": a grpc.aio server with the same protobuf types returning a prepared
  response of the same size (the floor of `--engine asyncio`);
- "no-op threads": the same on grpc's threaded server, 8 threads (the floor of
  `--engine threads`; where thread switches are dear it is far above grpc.aio's);
- "referee": `referee serve --workers 1 --engine asyncio` (production logging: one JSON
  line per call, to a file; coalescing on);
- "referee threads": the same with `--engine threads` (what `--engine auto`, the
  default, serves with here: the server pinned to one CPU owns it);
- "stack": Referee's grpc.aio server with its interceptor, log line and coalescing but
  a prepared answer instead of the referee's work (what the serving stack costs);
- "stack threads": the same on the threads engine (Referee's threaded server, its
  interceptor and log line, a prepared answer): with "stack", it splits a ratio into
  what the serving stack costs and what the referee's own work costs;
- "no-op coalesced" (not by default): the no-op with Referee's coalescing
  (referee/coalesce.py: what the same batching and busy event loop give gRPC itself);
- "referee uncoalesced" (not by default): Referee with `--coalesce-us 0`.

Each server is pinned to one core and h2load to the other (taskset), so the
server's core is the bottleneck. Saturation: h2load with 4 connections x 16 streams
(64 calls in flight, so latency there is queueing: Little's law); half load: 4
connections x 1 stream paced at half the saturated rate (h2load --rps); one client:
1 connection x 1 stream, one call at a time as fast as answers come back. Latency
percentiles come from h2load's per-request log; the server's CPU time and context
switches per call (all its threads, from /proc) are measured over the saturated run.

Saturation is measured in ``--rounds`` rounds, each server started afresh in each, the
order reversed every other round: a ratio is taken within one round (servers measured
minutes apart on a shared VM can differ by several percent for no reason of their own),
and the median round is reported with every round's ratio. Half load (at half the
median saturated rate) and one client are measured once, after the rounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from workload import (  # bench/ is on sys.path when this script runs
    apply_request,
    build,
    serve_command,
)

from referee.codec import all_codecs
from referee.service import Referee

METHOD = "/referee.v1.RefereeService/ApplyAction"
# Every server this script can measure (--servers), and those it measures by default.
ALL_SERVERS = (
    "no-op",
    "no-op threads",
    "no-op coalesced",
    "stack",
    "stack threads",
    "referee",
    "referee uncoalesced",
    "referee threads",
)
SERVERS = ("no-op", "no-op threads", "stack", "stack threads", "referee", "referee threads")
# The ratios printed (when both servers were measured): server, floor, what it says.
RATIOS = (
    ("referee", "no-op", " (--engine asyncio)"),
    ("referee threads", "no-op threads", " (--engine threads against its own floor)"),
    ("referee threads", "no-op", " (--engine threads against grpc.aio's floor)"),
    ("no-op threads", "no-op", " (the two floors)"),
    ("stack", "no-op", " (the serving stack, no rules)"),
    ("stack threads", "no-op threads", " (the threads engine's serving stack, no rules)"),
    ("referee uncoalesced", "no-op", " (--coalesce-us 0)"),
    ("referee", "no-op coalesced", " (against gRPC with the same batching)"),
)
BENCH = str(Path(__file__).resolve().parent)
CONNECTIONS = 4
STREAMS = 16


@dataclass
class Load:
    rps: float
    p50: float
    p90: float
    p99: float
    errors: int
    cpu_us: float = 0.0  # server CPU time per call (all its threads), microseconds
    switches: float = 0.0  # the server's context switches per call (all its threads)


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process (all threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def context_switches(pid: int) -> int:
    """Context switches (voluntary and not) of all of a process's threads, from /proc:
    gRPC hands each call between its threads, and where a switch is dear (a VM whose
    kernel runs under a hypervisor's control) this count explains a slow floor."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:
            text = (task / "status").read_text()
        except OSError:  # a thread that ended meanwhile
            continue
        for line in text.splitlines():
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                total += int(line.split()[1])
    return total


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def pinned(cpu: int) -> list[str]:
    return ["taskset", "-c", str(cpu)] if shutil.which("taskset") and os.cpu_count() else []


def wait_for_port(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


NOOP = """
import asyncio, sys
sys.path.insert(0, sys.argv[3])
from workload import serve_apply_action
from referee.v1 import referee_pb2 as pb
response = pb.ApplyActionResponse.FromString(open(sys.argv[2], "rb").read())
async def handler(request, context):
    return response
asyncio.run(serve_apply_action(int(sys.argv[1]), handler))
"""

# The same on grpc's threaded server (a pool of 8 threads, as `--engine threads`):
# the floor of Referee's threads engine.
NOOP_THREADS = """
import sys
sys.path.insert(0, sys.argv[3])
from workload import serve_apply_action_threads
from referee.v1 import referee_pb2 as pb
response = pb.ApplyActionResponse.FromString(open(sys.argv[2], "rb").read())
def handler(request, context):
    return response
serve_apply_action_threads(int(sys.argv[1]), handler)
"""

# The no-op server with the coalescing Referee's server does (referee/coalesce.py): what
# the same batching and busy event loop would give gRPC itself (a reference, not the
# target's floor).
NOOP_COALESCED = """
import asyncio, sys
sys.path.insert(0, sys.argv[3])
from workload import serve_apply_action
from referee.coalesce import Coalescer
from referee.server import ServerSettings
from referee.v1 import referee_pb2 as pb
response = pb.ApplyActionResponse.FromString(open(sys.argv[2], "rb").read())
coalescer = Coalescer(ServerSettings().coalesce_us / 1e6)
def answer(request):
    return response
async def handler(request, context):
    result = coalescer.run(answer, request)
    return await result if isinstance(result, asyncio.Future) else result
asyncio.run(serve_apply_action(int(sys.argv[1]), handler))
"""

# Referee's server as `referee serve --workers 1` runs it, on the engine of argv[3]
# (the interceptor: request id, trailing metadata, one JSON log line per call; on
# asyncio coalescing, on threads the worker pinned; the worker's GC tuning), with
# Referee's own work replaced by a prepared answer: what the serving stack costs before
# any rule is applied.
STACK = """
import sys
from referee import logs
from referee.server import ServerSettings, run_worker
from referee.v1 import referee_pb2 as pb
response = pb.ApplyActionResponse.FromString(open(sys.argv[2], "rb").read())
logs.configure("info", "json")
logs.bind_process(worker=0)
class Prepared:  # the servicer's referee (referee.service.Rpcs), ApplyAction prepared
    def __init__(self, referee):
        self.referee = referee
    def __getattr__(self, name):
        return getattr(self.referee, name)
    def apply_action(self, request):
        return response
def prepared(server):
    server.servicer.referee = Prepared(server.referee)
settings = ServerSettings(host="127.0.0.1", port=int(sys.argv[1]), engine=sys.argv[3])
run_worker(settings, None, 0, prepared)
"""


def h2load(
    port: int,
    body: Path,
    seconds: float,
    warm_up: float,
    rps: float | None,
    log: Path,
    connections: int = CONNECTIONS,
) -> Load:
    log.unlink(missing_ok=True)
    cmd = [
        *pinned(0),
        "h2load",
        f"--duration={seconds:g}",
        f"--warm-up-time={warm_up:g}",
        f"--clients={connections}",
        f"--max-concurrent-streams={STREAMS if rps is None and connections > 1 else 1}",
        "--header=content-type: application/grpc",
        "--header=te: trailers",
        f"--data={body}",
        f"--log-file={log}",
    ]
    if rps is not None:
        cmd.append(f"--rps={rps / CONNECTIONS:.0f}")
    cmd.append(f"http://127.0.0.1:{port}{METHOD}")
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    rate, failed, q = h2load_results(out, log)
    return Load(rate, q[49], q[89], q[98], failed)


def h2load_results(out: str, log: Path) -> tuple[float, int, list[float]]:
    """An h2load run's calls/s, failed calls and latency percentiles (ms, 1 .. 99), from
    its output and its per-request log (``--log-file``)."""
    line = next(x for x in out.splitlines() if x.startswith("finished in"))
    rate = float(line.split(",")[1].split()[0])
    requests = next(x for x in out.splitlines() if x.startswith("requests:"))
    failed = int(requests.split(",")[4].split()[0]) + int(requests.split(",")[5].split()[0])
    durations = sorted(
        int(row.split("\t")[2]) / 1000 for row in log.read_text().splitlines() if row.strip()
    )
    return rate, failed, statistics.quantiles(durations, n=100)


def measure(
    game: str,
    seconds: float,
    warm_up: float,
    work: Path,
    views: bool,
    rounds: int,
    servers: tuple[str, ...] = SERVERS,
) -> dict[str, Load]:
    request = apply_request(game)
    if not views:
        del request.views[:]
    data = request.SerializeToString()
    body = work / f"{game}.body"
    body.write_bytes(b"\0" + struct.pack(">I", len(data)) + data)
    response = work / f"{game}.response"
    response.write_bytes(Referee(all_codecs()).apply_action(request).SerializeToString())
    names = servers

    def command(name: str, port: int) -> list[str]:
        if name == "no-op":
            return [sys.executable, "-P", "-c", NOOP, str(port), str(response), BENCH]
        if name == "no-op threads":
            return [sys.executable, "-P", "-c", NOOP_THREADS, str(port), str(response), BENCH]
        if name == "referee threads":
            return serve_command(port, "--log-format", "json", "--engine", "threads")
        if name == "no-op coalesced":
            return [sys.executable, "-P", "-c", NOOP_COALESCED, str(port), str(response), BENCH]
        if name in ("stack", "stack threads"):
            engine = "threads" if name == "stack threads" else "asyncio"
            return [sys.executable, "-P", "-c", STACK, str(port), str(response), engine]
        if name == "referee":
            return serve_command(port, "--log-format", "json", "--engine", "asyncio")
        # As shipped but with coalescing off: what coalescing changes.
        return serve_command(
            port, "--log-format", "json", "--engine", "asyncio", "--coalesce-us", "0"
        )

    def serving(name: str) -> tuple[subprocess.Popen[bytes], int]:
        port = free_port()
        with open(work / f"{name}-{game}.log", "a") as log:
            server = subprocess.Popen([*pinned(1), *command(name, port)], stdout=log, stderr=log)
        wait_for_port(port)
        return server, port

    # Saturation, in rounds: every server started afresh each round, the order reversed
    # every other round, so that a drift of the machine's speed (a shared VM) or one
    # process's luck of memory layout weighs on every server alike; each ratio is taken
    # within its round, and the median round reported.
    saturated: dict[str, list[Load]] = {name: [] for name in names}
    for turn in range(rounds):
        for name in names if turn % 2 == 0 else reversed(names):
            server, port = serving(name)
            try:
                before = cpu_seconds(server.pid)
                switched = context_switches(server.pid)
                started = time.monotonic()
                full = h2load(port, body, seconds, warm_up, None, work / "h2-full.log")
                # h2load runs `seconds` plus its warm-up at the same rate.
                calls = full.rps * (time.monotonic() - started)
                full.cpu_us = (cpu_seconds(server.pid) - before) / calls * 1e6
                full.switches = (context_switches(server.pid) - switched) / calls
                saturated[name].append(full)
            finally:
                server.terminate()
                server.wait(30)
    results: dict[str, Load] = {}
    for name in names:
        runs = saturated[name]
        median = sorted(runs, key=lambda x: x.rps)[len(runs) // 2]
        server, port = serving(name)
        try:
            half = h2load(port, body, seconds, warm_up, median.rps / 2, work / "h2-half.log")
            # One client sending one call at a time, as fast as answers come back.
            one = h2load(port, body, seconds, warm_up, None, work / "h2-one.log", connections=1)
        finally:
            server.terminate()
            server.wait(30)
        results[f"{name} saturated"] = median
        results[f"{name} half load"] = half
        results[f"{name} one client"] = one
    what = "with the actor's view" if views else "state and action"
    print(
        f"\n{game}, ApplyAction {what}: request {len(data)} bytes, "
        f"response {response.stat().st_size} bytes"
    )
    print(
        f"{'':30} {'calls/s':>9} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'errors':>7}"
        f" {'CPU us/call':>12} {'switches/call':>14}"
    )
    for label, r in results.items():
        cpu = f" {r.cpu_us:12.0f} {r.switches:14.1f}" if r.cpu_us else ""
        print(f"{label:30} {r.rps:9,.0f} {r.p50:8.2f} {r.p90:8.2f} {r.p99:8.2f} {r.errors:7}{cpu}")

    def ratio(name: str, floor: str) -> str:
        each = [a.rps / b.rps for a, b in zip(saturated[name], saturated[floor], strict=True)]
        median = sorted(each)[len(each) // 2]
        if len(each) == 1:
            return f"{median:.2f}"
        return f"{median:.2f} (median of {len(each)} rounds: {' '.join(f'{x:.2f}' for x in each)})"

    for name, floor, note in RATIOS:
        if name in servers and floor in servers:
            print(f"ratio {name} / {floor} at saturation: {ratio(name, floor)}{note}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=10, help="whole seconds (h2load)")
    parser.add_argument("--games", nargs="+", default=["earl_of_coventry", "ecarte"])
    parser.add_argument("--warm-up", type=int, default=2, help="whole seconds (h2load)")
    parser.add_argument("--rounds", type=int, default=3, help="saturated runs per server")
    parser.add_argument(
        "--servers",
        nargs="+",
        choices=ALL_SERVERS,
        default=list(SERVERS),
        help="the servers to measure, in this order",
    )
    args = parser.parse_args()
    if not shutil.which("h2load"):
        sys.exit("h2load not found: apt-get install nghttp2-client")
    print(
        f"command: python bench/service.py --seconds {args.seconds:g} "
        f"--warm-up {args.warm_up:g} --rounds {args.rounds} --games {' '.join(args.games)}"
        f" --servers {' '.join(repr(x) if ' ' in x else x for x in args.servers)}"
    )
    print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    print(f"build: {build()}")
    with tempfile.TemporaryDirectory() as tmp:
        for game in args.games:
            for views in (False, True):
                measure(
                    game,
                    args.seconds,
                    args.warm_up,
                    Path(tmp),
                    views,
                    args.rounds,
                    tuple(args.servers),
                )


if __name__ == "__main__":
    main()
