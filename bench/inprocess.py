"""In-process cost of each RPC: the service's own code (decode, validate, apply, encode,
hash) called directly, without gRPC, on realistic mid-game requests.

    python bench/inprocess.py [--calls 5000]

The figure is the best of five runs of ``--calls`` calls, in microseconds per call,
request parsing and response serialization included (what the gRPC layer would do).
"""

from __future__ import annotations

import argparse
import timeit
from collections.abc import Callable
from functools import partial

from workload import build, rpc_requests  # bench/ is on sys.path


def per_call(fn: Callable[[], object], calls: int) -> float:
    return min(timeit.repeat(fn, number=calls, repeat=5)) / calls * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=5000)
    args = parser.parse_args()
    print(f"command: python bench/inprocess.py --calls {args.calls}")
    print(f"build: {build()}")
    print(f"{'game':18} {'RPC':36} {'us/call':>8}")
    for game in ("earl_of_coventry", "ecarte"):
        requests = rpc_requests(game)
        for name, rpc, request in requests:
            call = partial(_call, rpc, type(request), request.SerializeToString())
            print(f"{game:18} {name:36} {per_call(call, args.calls):8.1f}")


def _call(rpc: Callable[..., object], kind: type, data: bytes) -> None:
    rpc(kind.FromString(data)).SerializeToString()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
