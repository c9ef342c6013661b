"""Where the server's time goes: the CPU time of the same code inside a loaded gRPC
server and in a tight in-process loop.

    python bench/inserver.py [--seconds 6] [--game earl_of_coventry]

A bare grpc.aio server (no interceptor, no logs; pinned to one core, h2load on the
other, 4 connections x 16 streams) answers ApplyAction (state and action, no view) by
running one piece of work per call and returning a prepared response; the handler
measures the work's thread CPU time (``time.thread_time_ns``) and reports the mean.
The same work is then timed in-process (best of five runs). Works: nothing (the no-op
floor), ``Referee.apply_action``, state decoding and checking alone
(``Referee.open_state``), and a loop of integer additions that touches no data.

``--engine threads`` serves on grpc's threaded server instead (8 threads, as
``referee serve --engine threads``), the work timed the same way.

Each work is served twice: once as above ("in server"), and once running the work a
second time in each call, right after the first, the second timed ("again"): the same
code in the same server, but with its caches warm from the first run instead of cold
from gRPC's threads and the kernel's work between two calls.

Then ``Referee.apply_action`` in-process again, with what happens in a server between
two calls done in the loop between two calls, untimed: another thread woken and waking
this one back (a thread hop, as gRPC makes several per call), other memory read and
written, one line in each of 4,096 pages (the processor's TLB filled with other
pages), other code run (as gRPC's and the kernel's work between two calls), or the
thread asleep for 200 µs, its CPU idle meanwhile (as a server's CPU between two calls
under less than full load): what makes the same work dearer inside a server.
"""

from __future__ import annotations

import argparse
import contextlib
import decimal
import difflib
import fractions
import json
import os
import queue
import re
import shutil
import statistics
import struct
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import timeit
from pathlib import Path
from typing import Any

from service import free_port, pinned, wait_for_port  # bench/ is on sys.path
from workload import REFEREE, WORKS, apply_request, build, do_work

from referee.v1 import referee_pb2 as pb

# The bare server of argv[5] (asyncio: grpc.aio; threads: grpc's threaded server, 8
# threads), running the work of argv[2] argv[6] times (1 or 2) in each call and timing
# the last.
SERVER = """
import asyncio, sys, time
sys.path.insert(0, sys.argv[3])
from workload import do_work, serve_apply_action, serve_apply_action_threads
from referee.v1 import referee_pb2 as pb
work = sys.argv[2]
again = sys.argv[6] == "2"
response = pb.ApplyActionResponse.FromString(open(sys.argv[4], "rb").read())
total = [0, 0]
def timed(request, context):
    if again:
        do_work(work, request)
    start = time.thread_time_ns()
    do_work(work, request)
    total[0] += time.thread_time_ns() - start
    total[1] += 1
    if total[1] % 200 == 0:  # often enough for a short run on a slow machine
        print(total[0] / total[1] / 1000, file=sys.stderr, flush=True)
    return response
async def handler(request, context):
    return timed(request, context)
if sys.argv[5] == "threads":
    serve_apply_action_threads(int(sys.argv[1]), timed)
else:
    asyncio.run(serve_apply_action(int(sys.argv[1]), handler))
"""


def in_process(work: str, data: bytes, n: int = 5000) -> float:
    """Microseconds of ``work`` on a freshly parsed request, best of five runs of ``n``."""

    def call() -> None:
        do_work(work, pb.ApplyActionRequest.FromString(data))

    def parse_only() -> None:
        pb.ApplyActionRequest.FromString(data)

    spent = min(timeit.repeat(call, number=n, repeat=5))
    parse = min(timeit.repeat(parse_only, number=n, repeat=5))
    return max(spent - parse, 0.0) / n * 1e6


MEMORY = {"256 KiB": 256 << 10, "1 MiB": 1 << 20, "4 MiB": 4 << 20}
PAGES = 4096  # "4,096 pages": one line in each, 16 MiB apart in all (a TLB's worth)
DISTURBANCES = (
    "nothing", "a thread hop", *MEMORY, "4,096 pages", "other code", "200 us asleep"
)  # fmt: skip
_OTHER = {"a": [1, 2.5, "x" * 40, {"b": None}] * 20}


def other_code() -> None:
    """About a hundred microseconds of varied Python and C code from the standard
    library and protobuf, touching little data (as gRPC's own code between two calls):
    what it leaves in the processor's caches and branch predictors is not Referee's."""
    json.loads(json.dumps(_OTHER))
    re.sub(r"(\w+)@(\w+)", r"\2 at \1", "mail me@example or you@there " * 5)
    decimal.Decimal("1.1") * decimal.Decimal("3.3")
    fractions.Fraction(3, 7) + fractions.Fraction(2, 9)
    statistics.median([5, 3, 1, 4])
    difflib.SequenceMatcher(None, "abcdefgh", "abdfegh").ratio()
    textwrap.fill("word " * 40, 30)
    pb.ApplyActionResponse(state_hash=b"x" * 32).SerializeToString()


def disturbed(data: bytes, disturbance: str, calls: int = 2000) -> float:
    """Mean µs of ``Referee.apply_action`` in-process (best of five runs) with
    ``disturbance`` done, untimed, before each call: nothing; a thread hop (another
    thread woken through a queue, which wakes this one back); that much other memory
    read and written (one byte in every 64, a cache line each); one line in each of
    4,096 pages (the same offset in each: few lines of the caches, every entry of the
    processor's TLB, where pages are looked up); or other code
    (:func:`other_code`); or 200 µs asleep (the CPU idle, where nothing else runs)."""
    request = pb.ApplyActionRequest.FromString(data)
    before: Any = None
    stop: Any = None
    if disturbance == "a thread hop":
        there: queue.SimpleQueue[int | None] = queue.SimpleQueue()
        back: queue.SimpleQueue[int] = queue.SimpleQueue()

        def echo() -> None:
            while there.get() is not None:
                back.put(1)

        echoer = threading.Thread(target=echo, daemon=True)
        echoer.start()

        def before() -> None:
            there.put(1)
            back.get()

        def stop() -> None:
            there.put(None)
            echoer.join()

    elif disturbance == "other code":
        before = other_code
    elif disturbance == "200 us asleep":

        def before() -> None:
            time.sleep(200e-6)
    elif disturbance in MEMORY:
        other = bytearray(MEMORY[disturbance])

        def before() -> None:
            other[::64] = other[::64]
    elif disturbance == "4,096 pages":
        pages = bytearray(PAGES * 4096)

        def before() -> None:
            pages[::4096] = pages[::4096]

    clock = time.perf_counter_ns
    best = float("inf")
    for _ in range(5):
        spent = 0
        for _ in range(calls):
            if before is not None:
                before()
            start = clock()
            REFEREE.apply_action(request)
            spent += clock() - start
        best = min(best, spent / calls / 1000)
    if stop is not None:
        stop()
    return best


def loaded(
    work: str,
    port: int,
    body: Path,
    response: Path,
    seconds: int,
    engine: str,
    runs: int = 1,
    warm_up: int = 1,
) -> tuple[float, float]:
    """(calls/s, mean µs of the work inside the server) under saturation; with
    ``runs=2`` the work runs twice in each call and the second run is timed."""
    bench = str(Path(__file__).resolve().parent)
    cmd = [sys.executable, "-P", "-c", SERVER, str(port), work, bench, str(response), engine]
    cmd.append(str(runs))
    server = subprocess.Popen([*pinned(1), *cmd], stderr=subprocess.PIPE, text=True)
    try:
        wait_for_port(port)
        out = subprocess.run(
            [
                *pinned(0),
                "h2load",
                f"--duration={seconds}",
                f"--warm-up-time={warm_up}",
                "--clients=4",
                "--max-concurrent-streams=16",
                "--header=content-type: application/grpc",
                "--header=te: trailers",
                f"--data={body}",
                f"http://127.0.0.1:{port}/referee.v1.RefereeService/ApplyAction",
            ],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        line = next(x for x in out.splitlines() if x.startswith("finished in"))
        rate = float(line.split(",")[1].split()[0])
    finally:
        server.terminate()
        _, err = server.communicate(timeout=30)
    means = [float(x) for x in err.split() if x.replace(".", "", 1).isdigit()]
    return rate, means[-1] if means else float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=int, default=6)
    parser.add_argument("--game", default="earl_of_coventry")
    parser.add_argument("--engine", choices=("asyncio", "threads"), default="asyncio")
    parser.add_argument(
        "--warm-up", type=int, default=1, help="whole seconds of load before each measurement"
    )
    parser.add_argument(
        "--calls",
        type=int,
        default=0,
        help="calls a run in-process (default: 5,000, with a disturbance 2,000); fewer: a "
        "quick run whose in-process figures are rougher",
    )
    args = parser.parse_args()
    if not shutil.which("h2load"):
        sys.exit("h2load not found: apt-get install nghttp2-client")
    print(
        f"command: python bench/inserver.py --seconds {args.seconds} --game {args.game}"
        f" --engine {args.engine}"
        + (f" --warm-up {args.warm_up}" if args.warm_up != 1 else "")
        + (f" --calls {args.calls}" if args.calls else "")
    )
    print(f"build: {build()}")
    print(f"cpus: {os.cpu_count()}, load average before: {os.getloadavg()[0]:.2f}")
    request = apply_request(args.game)
    del request.views[:]
    data = request.SerializeToString()
    with tempfile.TemporaryDirectory() as tmp:
        body = Path(tmp) / "body"
        body.write_bytes(b"\0" + struct.pack(">I", len(data)) + data)
        response = Path(tmp) / "response"
        response.write_bytes(REFEREE.apply_action(request).SerializeToString())
        print(
            f"{'work per call':16} {'in-process us':>14} {'in server us':>13} {'calls/s':>9}"
            f" {'again us':>9}"
        )
        for work in WORKS:
            port, seconds, engine, warm_up = free_port(), args.seconds, args.engine, args.warm_up
            rate, inside = loaded(work, port, body, response, seconds, engine, 1, warm_up)
            time.sleep(0.2)
            _, again = loaded(work, free_port(), body, response, seconds, engine, 2, warm_up)
            alone = in_process(work, data, args.calls or 5000)
            print(f"{work:16} {alone:14.1f} {inside:13.1f} {rate:9,.0f} {again:9.1f}")
            time.sleep(0.2)
        # In-process, on the CPU the servers ran on (pinned(1)) where it is ours.
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {1})
        print("\napply_action in-process, with between two calls (untimed):")
        for disturbance in DISTURBANCES:
            mean = disturbed(data, disturbance, args.calls or 2000)
            print(f"  {disturbance:14} {mean:8.1f} us")


if __name__ == "__main__":
    main()
