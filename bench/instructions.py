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

Each figure comes from one run of a child process under callgrind (``--stack``'s rows
from one run for all of them, one after the other): after a warm-up it counts two
stretches of calls, one of ``--calls`` calls and one of twice as many, each
between a zeroing and a dump of callgrind's counters (the child calls two libc functions
nothing else calls, ``srand48`` and ``lcong48``, and callgrind's ``--zero-before`` and
``--dump-before`` name them). The figure is their difference divided by ``--calls``:
start-up, imports, warm-up and the markers themselves are not in it. After its warm-up
the child tunes the garbage collector as a serving worker does (``referee.server.
tune_gc``: start-up's objects frozen), and collects before each stretch, so a
collection of every object does not land in one stretch and not the other (before
2026-12-06, session 23, two runs were compared and a few hundred calls were needed to
drown that out). Needs valgrind (Debian ``valgrind``, which has ``vgdb``).

The child starts with callgrind's instrumentation off (``--instr-atstart=no``: valgrind
runs the code without callgrind's counting or cache simulation, several times faster),
so its start-up, imports and warm-up, nearly all of a run, are not slowed by them. Just
before its first stretch (``--stack``: before its first row's warm-up) the child
switches instrumentation on: it starts ``vgdb --pid=ITS_PID instrumentation on`` (what
``callgrind_control -i on`` sends) and keeps running Python until vgdb returns, since
valgrind reads such a command only while the process runs code (a process blocked in a
wait would need vgdb to interrupt it with ptrace, which a container may forbid); after
INSTRUMENT_TIMEOUT seconds without an answer the child gives up and the run fails. The
stretches' counts do not depend on it: on 2026-12-07 the same child run instrumented
from the start counted the same as when switched on, to the instruction and the cache
line, for both games' five requests, warm and ``--cold`` (``--calls 10``), but one cold
count 10 data lines of 1.3 million apart; ``--stack``'s run differs by some thousand
instructions of a million from one run to the next either way. What does move the
figures, by up to 1 % of instructions and 2 % of cold lines for some requests, is
whatever changes the child's memory before its stretches (its own text, the path of
bench/, the environment's size): compare figures from one version of this script.

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
import tempfile
from dataclasses import dataclass
from pathlib import Path

from workload import build, rpc_requests  # bench/ is on sys.path

BENCH = str(Path(__file__).resolve().parent)
WARM_UP = 300

# Seconds the child waits for vgdb to switch callgrind's instrumentation on.
INSTRUMENT_TIMEOUT = 60

# What every child runs first: the two markers around a stretch of work. ``zero()``
# enters srand48 (callgrind's --zero-before), ``dump()`` lcong48 (--dump-before, each
# dump a file ``OUT.N``); nothing in Python or its libraries calls either. And
# ``instrument()``, which switches callgrind's instrumentation on (the docstring).
MARKERS = f"""
INSTRUMENT_TIMEOUT = {INSTRUMENT_TIMEOUT}
"""
MARKERS += """
import ctypes, gc, os, subprocess, sys, time
_libc = ctypes.CDLL(None)
_state = (ctypes.c_ushort * 7)()
def zero():
    _libc.srand48(0)
def dump():
    _libc.lcong48(_state)

def serving_gc():
    # As a serving worker after start-up (referee.server.tune_gc): what start-up made is
    # frozen, out of the collections' way, and the collector runs as often as there.
    from referee.server import tune_gc
    tune_gc()

def instrument():
    # vgdb hands valgrind the command, which valgrind reads only while this process runs
    # code (every 5,000 blocks), so poll rather than wait (--max-invoke-ms=0: vgdb never
    # interrupts a blocked process with ptrace). The second command reports the state.
    vgdb = subprocess.Popen(
        ["vgdb", "--max-invoke-ms=0", f"--pid={os.getpid()}", "instrumentation", "on",
         "-c", "instrumentation"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )
    deadline = time.monotonic() + INSTRUMENT_TIMEOUT
    while vgdb.poll() is None:
        if time.monotonic() > deadline:
            vgdb.kill()
            vgdb.wait()
            sys.exit(f"callgrind's instrumentation not switched on: no answer from vgdb "
                     f"in {INSTRUMENT_TIMEOUT} s")
    answer = vgdb.stdout.read()
    if vgdb.returncode or "instrumentation: on" not in answer:
        sys.exit(f"callgrind's instrumentation not switched on: vgdb exited "
                 f"{vgdb.returncode}: {answer}")

def stretch(count, one, after=lambda: None):
    gc.collect()  # each stretch starts with the collector's young generation empty
    zero()
    for _ in range(count):
        one()
    after()
    dump()
"""

# The child: the request ``name`` of game argv[2], WARM_UP (argv[5]) calls, callgrind's
# instrumentation on, then two stretches of calls. Warm (argv[6] "warm"): argv[4] calls,
# then twice as many. Cold (argv[6] "cold"): argv[4] times ``EVICT`` (argv[7]) bytes
# copied, then argv[4] times the same copying with a call after each (what the copying
# alone misses is subtracted).
CHILD = (
    MARKERS
    + """
sys.path.insert(0, sys.argv[1])
from workload import rpc_requests
name, rpc, request = next(r for r in rpc_requests(sys.argv[2]) if r[0] == sys.argv[3])
kind, data = type(request), request.SerializeToString()
def call():
    rpc(kind.FromString(data)).SerializeToString()

for _ in range(int(sys.argv[5])):
    call()
serving_gc()
instrument()
calls = int(sys.argv[4])
if sys.argv[6] == "cold":
    source, target = bytearray(b"x" * int(sys.argv[7])), bytearray(int(sys.argv[7]))
    def copy():
        target[:] = source
    def copy_and_call():
        target[:] = source
        call()
    stretch(calls, copy)
    stretch(calls, copy_and_call)
else:
    stretch(calls, call)
    stretch(2 * calls, call)
"""
)


# The child of ``--stack``, one process for every row of STACK_ROWS (argv[1]: the rows'
# "kind:level" pairs, comma-separated; each row a warm-up and two stretches, so two dumps
# a row, in order): a ListGames call (a prepared answer) through the threads engine's
# interceptor and handler wrapper (request id, trailing metadata, the log line recorded,
# rendered and written to /dev/null: level "info"; filtered out: "warning"), or the
# servicer alone (kind "servicer"). The grpc context is a stand-in. Instrumentation on
# before the first row's warm-up (the rows' warm-ups are a small part of this run).
STACK_CHILD = (
    MARKERS
    + """
import grpc
from referee import logs
from referee.codec import all_codecs
from referee.service import Referee, ThreadedRefereeServicer
from referee.threaded import ThreadCallInterceptor
from referee.v1 import referee_pb2

# Lines written when 16 KiB or MAX_WAITING of them wait, as in a loaded worker, and not
# also every FLUSH_SECONDS of wall time: under valgrind a call takes longer than that,
# and the flusher thread's wake-ups made the count depend on how busy the machine was.
logs.FLUSH_SECONDS = 1e9
devnull = open(os.devnull, "w")
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

instrument()
calls = int(sys.argv[2])
for row in sys.argv[1].split(","):
    kind, level = row.split(":")
    logs.configure(level, "json", devnull)
    one = servicer_only if kind == "servicer" else stack
    for _ in range(int(sys.argv[3])):
        one()
    logs.flush()
    serving_gc()
    # logs.flush: the lines rendered and written in the stretch that made them.
    stretch(calls, one, logs.flush)
    stretch(2 * calls, one, logs.flush)
"""
)
STACK_ROWS = {
    # row: (the child's kind, log level)
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


def _stretches(out: Path, count: int = 2) -> list[dict[str, int]]:
    """The stretches a child counted: the events of each dump ``OUT.1``, ``OUT.2``..."""
    dumps = sorted(out.parent.glob(out.name + ".*"), key=lambda p: int(p.suffix[1:]))
    if len(dumps) != count:
        raise RuntimeError(f"callgrind wrote {len(dumps)} dumps, not {count}: {dumps}")
    counted = []
    for dump in dumps:
        text = dump.read_text()
        events = re.search(r"^events: (.+)$", text, re.MULTILINE)
        summary = re.search(r"^summary: (.+)$", text, re.MULTILINE)
        if events is None or summary is None:
            raise RuntimeError(f"callgrind's dump {dump.name} has no summary:\n{text[:2000]}")
        counted.append(dict(zip(events[1].split(), map(int, summary[1].split()), strict=True)))
    return counted


def collected(game: str, rpc: str, calls: int, cold: str = "warm") -> tuple[Counts, Counts]:
    """What callgrind counted in the two stretches of a child (of a request of
    ``rpc_requests``): warm, ``calls`` calls then ``2 * calls``; with ``cold`` "cold",
    under the simulated caches, ``calls`` times EVICT bytes copied, then the same with
    a call after each copy."""
    args = ["-c", CHILD, BENCH, game, rpc, str(calls), str(WARM_UP), cold, str(EVICT)]
    simulate = ["--cache-sim=yes", *CACHES] if cold == "cold" else []
    fewer, more = _run_child(args, simulate, 2)
    return fewer, more


def _run_child(args: list[str], simulate: list[str], stretches: int) -> list[Counts]:
    """The counts of each stretch of a child run under callgrind (``args`` after the
    interpreter's), in order. The child starts uninstrumented and calls ``instrument()``
    (MARKERS) before it counts."""
    with tempfile.TemporaryDirectory(prefix="callgrind-") as tmp:
        out = Path(tmp) / "counts"
        # -P: not the current directory first on sys.path, where a checkout's interpreted
        # package would shadow the build measured (PYTHONPATH=DIR for a compiled tree).
        cmd = [
            "valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", *simulate,
            "--instr-atstart=no", "--vgdb=yes",
            "--zero-before=*srand48*", "--dump-before=*lcong48*",
            sys.executable, "-P", *args,
        ]  # fmt: skip
        env = {**os.environ, "PYTHONHASHSEED": "0"}
        done = subprocess.run(cmd, capture_output=True, text=True, env=env)
        if done.returncode:
            raise RuntimeError(
                f"the child under callgrind exited {done.returncode}:\n{done.stderr[-4000:]}"
            )
        counted = _stretches(out, stretches)
    return [Counts(c["Ir"], c.get("ILmr", 0), c.get("DLmr", 0) + c.get("DLmw", 0)) for c in counted]


def per_call(game: str, rpc: str, calls: int) -> float:
    fewer, more = collected(game, rpc, calls)
    return (more.instructions - fewer.instructions) / calls


def stack_per_call(calls: int) -> dict[str, float]:
    """Instructions a call of each row of STACK_ROWS, all counted in one child (its
    imports run uninstrumented)."""
    rows = ",".join(f"{kind}:{level}" for kind, level in STACK_ROWS.values())
    counts = _run_child(
        ["-c", STACK_CHILD, rows, str(calls), str(WARM_UP)], [], 2 * len(STACK_ROWS)
    )
    return {
        row: (counts[2 * i + 1].instructions - counts[2 * i].instructions) / calls
        for i, row in enumerate(STACK_ROWS)
    }


def cold_lines(game: str, rpc: str, calls: int) -> tuple[float, float]:
    """Lines of code and of data a call brings back into a last-level cache that holds
    none of them (``--cold``): the calls' misses less the copying's own, per call."""
    copying, both = collected(game, rpc, calls, "cold")
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
    if not shutil.which("valgrind") or not shutil.which("vgdb"):
        sys.exit("valgrind or its vgdb not found: apt-get install valgrind")
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
        for row, count in stack_per_call(args.calls).items():
            print(f"{'serving stack':18} {row:36} {count:18,.0f}")


if __name__ == "__main__":
    main()
