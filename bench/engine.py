"""Engine vs peer: in-process random playouts, Referee's rules core against OpenSpiel's C++
engine (through pyspiel) on its nearest games, in the same run.

    python bench/engine.py [--seconds 5]

A step is one decision: the legal actions of the state, a random choice among them, and
apply. Time includes dealing (OpenSpiel's chance nodes; Referee's new_game/next round).
Needs `pip install open_spiel` (the `bench` extra).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable

from workload import build  # bench/ is on sys.path when this script runs

from referee.games.earl_of_coventry.rules import RULES as EARL
from referee.games.earl_of_coventry.state import EarlConfig, Phase
from referee.games.ecarte.rules import RULES as ECARTE
from referee.games.ecarte.state import EcarteConfig


def openspiel(name: str, seconds: float, seed: int) -> float:
    import pyspiel  # type: ignore[import-not-found,unused-ignore]

    game = pyspiel.load_game(name)
    rng = random.Random(seed)
    choice = rng.choice
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(choice(state.chance_outcomes())[0])
            else:
                state.apply_action(choice(state.legal_actions()))
                steps += 1
    return steps / (time.perf_counter() - start)


def earl_of_coventry(seconds: float, seed: int) -> float:
    """Random rounds of Earl of Coventry (4 seats, couplets): plays with their couplets."""
    rng = random.Random(seed)
    choice = rng.choice
    config = EarlConfig()
    legal = EARL.legal_actions
    apply = EARL.apply
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state, _ = EARL.new_game(config, rng.randbytes(32))
        while state.phase is Phase.PLAYING:
            state = apply(state, choice(legal(state, None))).state
            steps += 1
    return steps / (time.perf_counter() - start)


def ecarte(seconds: float, seed: int) -> float:
    """Random matches of Écarté (2 seats, default options, matches of three games)."""
    rng = random.Random(seed)
    choice = rng.choice
    config = EcarteConfig(games_to_win=3)
    legal = ECARTE.legal_actions
    apply = ECARTE.apply
    over = ECARTE.is_over
    steps = 0
    start = time.perf_counter()
    deadline = start + seconds
    while time.perf_counter() < deadline:
        state, _ = ECARTE.new_game(config, rng.randbytes(32))
        while not over(state):
            state = apply(state, choice(legal(state, None))).state
            steps += 1
    return steps / (time.perf_counter() - start)


PAIRS: list[tuple[str, Callable[[float, int], float], str]] = [
    ("ecarte", ecarte, "euchre"),
    ("earl_of_coventry", earl_of_coventry, "crazy_eights"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--no-peer", action="store_true", help="Referee's engines only (no OpenSpiel needed)"
    )
    args = parser.parse_args()
    peer = "" if not args.no_peer else " --no-peer"
    print(f"command: python bench/engine.py --seconds {args.seconds:g} --seed {args.seed}{peer}")
    print(f"python {sys.version.split()[0]}")
    print(f"build: {build()}")
    print(f"{'referee game':<20} {'steps/s':>10}   {'openspiel game':<14} {'steps/s':>10}   ratio")
    for ours, run, theirs in PAIRS:
        a = run(args.seconds, args.seed)
        if args.no_peer:
            print(f"{ours:<20} {a:>10,.0f}   {theirs:<14} {'-':>10}   -")
            continue
        b = openspiel(theirs, args.seconds, args.seed)
        print(f"{ours:<20} {a:>10,.0f}   {theirs:<14} {b:>10,.0f}   {a / b:.2f}")


if __name__ == "__main__":
    main()
