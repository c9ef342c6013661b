"""Batch: Replay of long logs, actions validated per second in one call; and the memory
a worker needs for Replays at the length cap served at once.

    python bench/replay.py [--actions 50000] [--memory-actions 95000 --memory-calls 8]

For each game, random bots play one long session/match (Earl of Coventry: round after
round; Écarté: a match to 99 points, nine games to win) and the log is replayed in one
Replay call: in-process (the service's own code, no transport) and through a running
`referee serve --workers 1` over loopback (the request and the response cross gRPC).
Each action is decoded, refereed, and its state encoded and hashed (the hash chain).
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import grpc
from workload import (  # bench/ is on sys.path when this script runs
    REFEREE,
    SEED,
    build,
    long_log,
    serve_command,
)

from referee.v1 import ecarte_pb2, referee_pb2_grpc
from referee.v1 import referee_pb2 as pb

LONG_ECARTE = pb.GameConfig(ecarte=ecarte_pb2.EcarteConfig(target_points=99, games_to_win=9))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serving(*options: str) -> Iterator[tuple[int, Any]]:
    """``referee serve --workers 1`` with ``options``, quiet: its pid and a stub to it
    (messages up to 64 MiB either way), stopped at the end."""
    port = free_port()
    server = subprocess.Popen(
        serve_command(port, "--log-level", "warning", *options),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        big = 64 * 1024 * 1024
        with grpc.insecure_channel(
            f"127.0.0.1:{port}",
            options=[
                ("grpc.max_receive_message_length", big),
                ("grpc.max_send_message_length", big),
            ],
        ) as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            yield server.pid, referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    finally:
        server.terminate()
        server.wait(30)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actions", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    parser.add_argument(
        "--memory-actions",
        type=int,
        default=95_000,
        help="actions of each Replay of the memory measure (the answer of 95,000 refused "
        "actions is close to the 16 MiB message limit)",
    )
    parser.add_argument(
        "--memory-calls", type=int, default=8, help="Replays at once (8: --threads' default)"
    )
    args = parser.parse_args()
    print(
        f"command: python bench/replay.py --actions {args.actions} --rounds {args.rounds} "
        f"--memory-actions {args.memory_actions} --memory-calls {args.memory_calls}"
    )
    print(f"build: {build()}")
    with serving("--max-replay-actions", str(max(args.actions, 100_000))) as (_, stub):
        print(f"{'game':18} {'actions':>8} {'in-process/s':>14} {'over gRPC/s':>12}")
        for game in ("earl_of_coventry", "ecarte"):
            request = long_log(game, args.actions, config=LONG_ECARTE if game == "ecarte" else None)
            n = len(request.actions)
            best_local = best_remote = float("inf")
            for _ in range(args.rounds):
                start = time.perf_counter()
                local = REFEREE.replay(request)
                best_local = min(best_local, time.perf_counter() - start)
                start = time.perf_counter()
                remote = stub.Replay(request, timeout=600)
                best_remote = min(best_remote, time.perf_counter() - start)
                assert local.final_hash == remote.final_hash and len(remote.steps) == n
            print(f"{game:18} {n:>8,} {n / best_local:>14,.0f} {n / best_remote:>12,.0f}")
    request = long_log("earl_of_coventry", args.actions)
    others_meanwhile(request)
    request.include_log = True  # the answer three times as large
    others_meanwhile(request)
    print(
        f"a worker's peak resident memory, {args.memory_calls} Replays of "
        f"{args.memory_actions:,} actions at once (VmHWM of /proc/PID/status):"
    )
    legal = long_log("earl_of_coventry", args.memory_actions)
    refused = refused_log(args.memory_actions)
    for engine in ("threads", "asyncio"):
        for name, request in (("legal plays", legal), ("refused plays", refused)):
            peak_memory(request, name, engine, args.memory_calls)


def refused_log(actions: int) -> pb.ReplayRequest:
    """Earl of Coventry: ``actions`` plays by a seat not on turn, each refused with its
    violations, so the answer is as large as a Replay's gets (no events, no log)."""
    from referee.cards import card_list
    from referee.v1 import common_pb2
    from referee.v1 import earl_of_coventry_pb2 as eoc

    config = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig())
    first = REFEREE.new_game(pb.NewGameRequest(config=config, seed=SEED)).state.earl_of_coventry
    other = (first.turn + 1) % 4
    card = card_list(first.seats[other].hand)[0]
    bad = pb.Action(
        actor=common_pb2.Actor(seat=other),
        earl_of_coventry=eoc.EarlOfCoventryAction(
            play=eoc.EarlOfCoventryPlay(card={"suit": card // 13 + 1, "rank": card % 13 + 1})
        ),
    )
    return pb.ReplayRequest(config=config, seed=SEED, actions=[bad] * actions)


def _peak_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmHWM for {pid}")


def peak_memory(request: pb.ReplayRequest, name: str, engine: str, calls: int) -> None:
    """A one-process server's peak resident size before and after ``calls`` Replays of
    ``request`` sent at once."""
    with serving("--engine", engine) as (pid, stub):
        stub.ListGames(pb.ListGamesRequest())
        before = _peak_kib(pid)
        replays = [stub.Replay.future(request, timeout=600) for _ in range(calls)]
        size = max(r.result().ByteSize() for r in replays)
        after = _peak_kib(pid)
    print(
        f"  --engine {engine:8} {name:14} answer {size / 2**20:5.1f} MiB: "
        f"{before / 1024:6.1f} -> {after / 1024:6.1f} MiB "
        f"({(after - before) / 1024 / calls:5.1f} MiB a Replay)"
    )


def others_meanwhile(request: pb.ReplayRequest) -> None:
    """Other calls during two concurrent long Replays on one grpc.aio worker: a client
    sends ListGames one after the other until both Replays have answered."""
    limit = str(max(len(request.actions), 100_000))
    with serving("--engine", "asyncio", "--max-replay-actions", limit) as (_, stub):
        stub.ListGames(pb.ListGamesRequest())
        start = time.perf_counter()
        replays = [stub.Replay.future(request, timeout=600) for _ in range(2)]
        waits = []
        while not all(r.done() for r in replays):
            sent = time.perf_counter()
            stub.ListGames(pb.ListGamesRequest(), timeout=600)
            waits.append(time.perf_counter() - sent)
        took = time.perf_counter() - start
        for r in replays:
            r.result()
        waits.sort()
        log = ", with the log" if request.include_log else ""
        print(
            f"two Replays of {len(request.actions):,} actions{log} at once (--engine asyncio): "
            f"{took:.2f} s; meanwhile {len(waits)} ListGames, "
            f"median {waits[len(waits) // 2] * 1e3:.1f} ms, max {waits[-1] * 1e3:.0f} ms"
        )


if __name__ == "__main__":
    main()
