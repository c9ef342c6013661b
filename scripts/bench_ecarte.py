"""Random playouts of whole Écarté matches through the rules core: steps per second.

    python scripts/bench_ecarte.py [--matches 2000] [--games 3] [--euchre]

A step is one accepted action (legal_actions, a random choice, apply). With
--euchre the same loop runs OpenSpiel's C++ euchre through pyspiel (chance
nodes counted as steps), for comparison on the same machine.
"""

from __future__ import annotations

import argparse
import random
import time

from referee.games.ecarte import RULES
from referee.games.ecarte.state import EcarteConfig


def ecarte(matches: int, games: int) -> tuple[int, float]:
    config = EcarteConfig(games_to_win=games)
    rng = random.Random(1)
    seeds = [rng.randbytes(32) for _ in range(matches)]
    choice, legal, apply, over = rng.choice, RULES.legal_actions, RULES.apply, RULES.is_over
    steps = 0
    start = time.perf_counter()
    for seed in seeds:
        state = RULES.new_game(config, seed)[0]
        while not over(state):
            state = apply(state, choice(legal(state, None))).state
            steps += 1
    return steps, time.perf_counter() - start


def euchre(seconds: float) -> tuple[int, float]:
    import pyspiel  # type: ignore[import-not-found]

    game = pyspiel.load_game("euchre")
    rng = random.Random(1)
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(rng.choice(state.chance_outcomes())[0])
            else:
                state.apply_action(rng.choice(state.legal_actions()))
            steps += 1
    return steps, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=2000)
    parser.add_argument("--games", type=int, default=3, help="games to win per match")
    parser.add_argument("--euchre", action="store_true")
    args = parser.parse_args()
    steps, elapsed = ecarte(args.matches, args.games)
    print(f"ecarte: {steps / elapsed:,.0f} steps/s ({steps:,} steps, {elapsed:.2f} s)")
    if args.euchre:
        steps, elapsed = euchre(elapsed)
        print(f"euchre: {steps / elapsed:,.0f} steps/s ({steps:,} steps, {elapsed:.2f} s)")


if __name__ == "__main__":
    main()
