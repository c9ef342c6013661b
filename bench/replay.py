"""Batch: Replay of long logs, actions validated per second in one call.

    python bench/replay.py [--actions 50000]

For each game, random bots play one long session/match (Earl of Coventry: round after
round; Écarté: a match to 99 points, nine games to win) and the log is replayed in one
Replay call: in-process (the service's own code, no transport) and through a running
`referee serve --workers 1` over loopback (the request and the response cross gRPC).
Each action is decoded, refereed, and its state encoded and hashed (the hash chain).
"""

from __future__ import annotations

import argparse
import socket
import subprocess
import time

import grpc
from workload import (  # bench/ is on sys.path when this script runs
    REFEREE,
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--actions", type=int, default=50_000)
    parser.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    args = parser.parse_args()
    print(f"command: python bench/replay.py --actions {args.actions} --rounds {args.rounds}")
    print(f"build: {build()}")
    port = free_port()
    server = subprocess.Popen(
        serve_command(
            port, "--log-level", "warning", "--max-replay-actions", str(max(args.actions, 100_000))
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        channel = grpc.insecure_channel(
            f"127.0.0.1:{port}",
            options=[
                ("grpc.max_receive_message_length", 64 * 1024 * 1024),
                ("grpc.max_send_message_length", 64 * 1024 * 1024),
            ],
        )
        grpc.channel_ready_future(channel).result(timeout=30)
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
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
        channel.close()
    finally:
        server.terminate()
        server.wait(30)
    request = long_log("earl_of_coventry", args.actions)
    others_meanwhile(request)
    request.include_log = True  # the answer three times as large
    others_meanwhile(request)


def others_meanwhile(request: pb.ReplayRequest) -> None:
    """Other calls during two concurrent long Replays on one grpc.aio worker: a client
    sends ListGames one after the other until both Replays have answered."""
    port = free_port()
    server = subprocess.Popen(
        serve_command(
            port,
            "--log-level",
            "warning",
            "--engine",
            "asyncio",
            "--max-replay-actions",
            str(max(len(request.actions), 100_000)),
        ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        channel = grpc.insecure_channel(
            f"127.0.0.1:{port}", options=[("grpc.max_receive_message_length", 64 * 1024 * 1024)]
        )
        grpc.channel_ready_future(channel).result(timeout=30)
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
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
        channel.close()
    finally:
        server.terminate()
        server.wait(30)


if __name__ == "__main__":
    main()
