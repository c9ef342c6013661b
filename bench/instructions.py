"""Instructions per call of the referee's own work, counted by valgrind's callgrind: the
in-process RPCs of ``bench/inprocess.py`` (request parsed, the Referee's method, response
serialized), each the same bytes on every run.

    python bench/instructions.py [--games earl_of_coventry ecarte] [--rpcs ApplyAction ...]
                                 [--calls 400]

A timing moves by 20 % and more between runs on a shared VM; an instruction count of the
same build, inputs and environment moves by well under 1 % (string hashing, whose seed is
fixed here, and memory addresses are all that vary). So this is the figure that shows a
change of a few percent in the referee's own cost, on any machine. It is not a time:
cache misses, which dominate inside a loaded server (docs/benchmarks.md), are not in it.

Each figure is the difference between two runs of a child process under callgrind, one
making ``--calls`` more calls than the other after the same warm-up, divided by
``--calls``: start-up, imports and warm-up cancel out. Needs valgrind (Debian
``valgrind``); each run takes some tens of seconds.

``--cold`` adds what a call costs in a server and not in a loop: the lines of 64 bytes of
code and of data it must fetch from beyond a core's own caches when they hold none of
its lines, as after the work between two calls in a loaded server (gRPC's, the kernel's,
other tenants' on a shared machine). Counted by callgrind's cache simulation (first
levels of 32 KiB, a last level of 1 MiB), with 4 MiB copied before each call, less what
the copying alone misses. Like the instruction count, a count: the same on every run, so
it shows whether a change makes a call touch fewer distinct lines, which a timing inside
a server on a shared VM cannot resolve.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from workload import build, rpc_requests  # bench/ is on sys.path

BENCH = str(Path(__file__).resolve().parent)
WARM_UP = 300

# The child: the request ``name`` of game argv[2], WARM_UP (argv[5]) calls, then argv[4]
# times: ``EVICT`` bytes copied first if argv[6] is "cold", then the call unless argv[7]
# is "no call" (``--cold``: what the copying alone misses is subtracted).
CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
from workload import rpc_requests
name, rpc, request = next(r for r in rpc_requests(sys.argv[2]) if r[0] == sys.argv[3])
kind, data = type(request), request.SerializeToString()
for _ in range(int(sys.argv[5])):
    rpc(kind.FromString(data)).SerializeToString()
size = int(sys.argv[8]) if sys.argv[6] == "cold" else 0
source, target = bytearray(b"x" * size), bytearray(size)
call = sys.argv[7] != "no call"
for _ in range(int(sys.argv[4])):
    if size:
        target[:] = source
    if call:
        rpc(kind.FromString(data)).SerializeToString()
"""


# The child of ``--stack``: a ListGames call (a prepared answer) through the threads
# engine's interceptor and handler wrapper (request id, trailing metadata, the log line
# recorded, rendered and written to /dev/null: argv[2] "info"; filtered out: "warning"),
# or the servicer alone (argv[1] "servicer"). The grpc context is a stand-in.
STACK_CHILD = """
import os, sys
import grpc
from referee import logs
from referee.codec import all_codecs
from referee.service import Referee, ThreadedRefereeServicer
from referee.threaded import ThreadCallInterceptor
from referee.v1 import referee_pb2

logs.configure(sys.argv[2], "json", open(os.devnull, "w"))
servicer = ThreadedRefereeServicer(Referee(all_codecs()))
request = referee_pb2.ListGamesRequest()
metadata = (("user-agent", "grpc-python/1.85"),)

class Details:
    method = "/referee.v1.RefereeService/ListGames"
    invocation_metadata = metadata

class Context:
    def invocation_metadata(self): return metadata
    def set_trailing_metadata(self, trailing): self.trailing = trailing
    def is_active(self): return True
    def add_callback(self, callback): callback(); return True  # run as if at the end
    def code(self): return None

context, details = Context(), Details()
interceptor = ThreadCallInterceptor(threads=1)
handler = grpc.unary_unary_rpc_method_handler(servicer.ListGames)

def servicer_only():
    servicer.ListGames(request, context)

def stack():
    interceptor.intercept_service(lambda _: handler, details).unary_unary(request, context)

one = servicer_only if sys.argv[1] == "servicer" else stack
for _ in range(int(sys.argv[4]) + int(sys.argv[3])):
    one()
logs.flush()
"""
STACK_ROWS = {
    # row: (child argv[1], argv[2])
    "servicer alone (ListGames)": ("servicer", "info"),
    "+ interceptor, request id": ("stack", "warning"),
    "+ the log line": ("stack", "info"),
}


# ``--cold``: the simulated caches (callgrind --cache-sim): first-level caches of 32 KiB
# and a last level of 1 MiB, a core's own L2 on the second machine of docs/benchmarks.md
# (AMD EPYC); before each counted call, EVICT bytes are copied (8 MiB read and written
# through them), which leaves none of the call's lines in them.
CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=1048576,16,64")
EVICT = 4 << 20


@dataclass(frozen=True)
class Counts:
    instructions: int
    code_misses: int = 0  # last-level misses fetching instructions (lines of 64 bytes)
    data_misses: int = 0  # last-level misses reading or writing data


def _count(out: str, label: str) -> int:
    match = re.search(rf"{label}\s*:?\s+([\d,]+)", out)
    if match is None:
        raise RuntimeError(f"callgrind printed no {label!r}:\n{out[-2000:]}")
    return int(match.group(1).replace(",", ""))


def collected(game: str, rpc: str, calls: int, cold: str = "warm", call: str = "call") -> Counts:
    """What callgrind counted in a child making WARM_UP + ``calls`` calls (of a request of
    ``rpc_requests``, or with ``game`` "stack" the row ``rpc`` of STACK_ROWS); with
    ``cold`` "cold", under the simulated caches, each call after EVICT bytes copied, and
    with ``call`` "no call" only the copying."""
    if game == "stack":
        args = ["-c", STACK_CHILD, *STACK_ROWS[rpc], str(calls), str(WARM_UP)]
    else:
        args = ["-c", CHILD, BENCH, game, rpc, str(calls), str(WARM_UP), cold, call, str(EVICT)]
    simulate = ["--cache-sim=yes", *CACHES] if cold == "cold" else []
    # -P: not the current directory first on sys.path, where a checkout's interpreted
    # package would shadow the build measured (PYTHONPATH=DIR for a compiled tree).
    cmd = [
        "valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", *simulate,
        sys.executable, "-P", *args,
    ]  # fmt: skip
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True).stderr
    if cold != "cold":
        return Counts(_count(out, "Collected"))
    return Counts(_count(out, "I   refs"), _count(out, "LLi misses"), _count(out, "LLd misses"))


def per_call(game: str, rpc: str, calls: int) -> float:
    return (collected(game, rpc, calls).instructions - collected(game, rpc, 0).instructions) / calls


def cold_lines(game: str, rpc: str, calls: int) -> tuple[float, float]:
    """Lines of code and of data a call brings back into a last-level cache that holds
    none of them (``--cold``): the calls' misses less the copying's own, per call."""
    both = collected(game, rpc, calls, "cold", "call")
    copying = collected(game, rpc, calls, "cold", "no call")
    return (
        (both.code_misses - copying.code_misses) / calls,
        (both.data_misses - copying.data_misses) / calls,
    )


def main() -> None:
    names = [name for name, _, _ in rpc_requests("ecarte")]
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", nargs="+", default=["earl_of_coventry", "ecarte"])
    parser.add_argument(
        "--rpcs", nargs="+", choices=names, default=names[:3], help="the requests to count"
    )
    parser.add_argument("--calls", type=int, default=400, help="the calls counted per figure")
    parser.add_argument(
        "--stack",
        action="store_true",
        help="also count the threads engine's serving stack around a call (interceptor, "
        "request id, trailing metadata, the log line), in-process with a stand-in context",
    )
    parser.add_argument(
        "--cold",
        action="store_true",
        help="also count the lines of code and data each call brings back into caches "
        "that hold none of them (simulated: 1 MiB last level, 4 MiB copied before a call)",
    )
    args = parser.parse_args()
    if not shutil.which("valgrind"):
        sys.exit("valgrind not found: apt-get install valgrind")
    rpcs = " ".join(repr(x) if " " in x else x for x in args.rpcs)
    print(
        f"command: python bench/instructions.py --games {' '.join(args.games)} "
        f"--rpcs {rpcs} --calls {args.calls}"
        + (" --stack" if args.stack else "")
        + (" --cold" if args.cold else "")
    )
    print(f"build: {build()}")
    cold = f" {'cold code lines':>16} {'cold data lines':>16}" if args.cold else ""
    print(f"{'game':18} {'RPC':36} {'instructions/call':>18}{cold}")
    for game in args.games:
        for rpc in args.rpcs:
            row = f"{game:18} {rpc:36} {per_call(game, rpc, args.calls):18,.0f}"
            if args.cold:
                code, data = cold_lines(game, rpc, args.calls)
                row += f" {code:16,.0f} {data:16,.0f}"
            print(row, flush=True)
    if args.stack:
        for row in STACK_ROWS:
            print(f"{'serving stack':18} {row:36} {per_call('stack', row, args.calls):18,.0f}")


if __name__ == "__main__":
    main()
