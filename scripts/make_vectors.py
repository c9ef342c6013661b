"""Write the golden replay vectors of tests/vectors/ (GameLog JSON, docs/trust.md).

    python scripts/make_vectors.py            # rewrite every vector

Each vector is a game played by seeded random bots through the in-process
referee, with some illegal actions mixed in (rejected or penalized), recorded
by Replay(include_log). The files pin the referee's behaviour byte for byte:
regenerate them only on purpose (a rules change also bumps the rules version),
and review the diff. Every vector is played under the version NewGame starts (each
game's newest): a release that brings a second version of a game keeps the old
version's files as they are, which pin it, and adds files for the new one.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from referee.codec import all_codecs
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "vectors"


def _vectors() -> list[tuple[str, dict[str, Any], int]]:
    """(file name, GameConfig JSON, steps) of every vector."""
    return [
        ("earl_of_coventry-default.json", {"earlOfCoventry": {}}, 400),
        (
            "earl_of_coventry-snip-snap-penalty-elimination-open.json",
            {
                "earlOfCoventry": {
                    "seats": 5,
                    "callStyle": "EARL_OF_COVENTRY_CALL_STYLE_SNIP_SNAP_SNORUM",
                    "penaltyEarl": True,
                    "scoring": "EARL_OF_COVENTRY_SCORING_ELIMINATION",
                    "startingCounters": 6,
                    "openHands": True,
                }
            },
            2000,
        ),
        (
            "earl_of_coventry-holding-counters-custom.json",
            {
                "earlOfCoventry": {
                    "seats": 3,
                    "firstDealer": 2,
                    "holdingAllowed": True,
                    "scoring": "EARL_OF_COVENTRY_SCORING_COUNTERS",
                    "startingCounters": 30,
                    "callStyle": "EARL_OF_COVENTRY_CALL_STYLE_CUSTOM",
                    "coupletTemplates": [
                        "Here's a {rank} to start the tune.",
                        "Hic! Another {rank}, hic!",
                        "The third one, hic!",
                        "And that's the Earl's Court.",
                    ],
                }
            },
            600,
        ),
        (
            "earl_of_coventry-13-seats-silent.json",
            {"earlOfCoventry": {"seats": 13, "callStyle": "EARL_OF_COVENTRY_CALL_STYLE_SILENT"}},
            300,
        ),
        ("ecarte-default.json", {"ecarte": {}}, 800),
        (
            "ecarte-napoleon-match-stakes-jeux-de-regle.json",
            {
                "ecarte": {
                    "targetPoints": 11,
                    "gamesToWin": 2,
                    "packets": "ECARTE_PACKETS_TWO_THREE",
                    "stake": 5,
                    "voleMultiplier": 3,
                    "kingMultiplier": 2,
                    "jeuxDeRegle": True,
                }
            },
            3000,
        ),
        (
            "ecarte-a-trois-au-cercle-rapide.json",
            {
                "ecarte": {
                    "seats": 3,
                    "targetPoints": 3,
                    "gamesToWin": 2,
                    "gallery": True,
                    "wagerLimit": 50,
                    "firstDealer": 1,
                }
            },
            2000,
        ),
    ]


SPECTATORS = ("ann", "bob")


def _kind(action: pb.Action) -> Any:
    game = action.WhichOneof("game")
    sub = getattr(action, game)
    return getattr(sub, sub.WhichOneof("kind"))


def _mistake(action: pb.Action, rng: random.Random, seats: int) -> None:
    """Turn a legal action into a likely illegal one: another seat acts, another card."""
    move = _kind(action)
    kinds = ["seat"]
    if hasattr(move, "card") and move.HasField("card"):
        kinds.append("card")
    if hasattr(move, "call") and move.call:
        kinds.append("call")
    kind = rng.choice(kinds)
    if kind == "seat":
        action.actor.seat = (action.actor.seat + 1 + rng.randrange(seats - 1)) % seats
    elif kind == "card":  # another rank, one that both packs have
        ranks = (1, 7, 8, 9, 10, 11, 12, 13)
        move.card.rank = rng.choice([r for r in ranks if r != move.card.rank])
    else:
        move.call = "There's nothing as good as this."


def play(
    referee: Referee,
    config: pb.GameConfig,
    seed: bytes,
    steps: int,
    rng: random.Random,
    entropy: list[bytes],
) -> list[pb.Action]:
    """Random bots (and spectators' wagers where the gallery is open); one action in eight
    is a mistake: another seat, another card, a wrong call."""
    first = referee.new_game(pb.NewGameRequest(config=config, seed=seed, seat_entropy=entropy))
    state = first.state
    seats = len(first.scoreboard.seats)
    actions: list[pb.Action] = []
    tables = 0
    for _ in range(steps):
        legal = list(referee.legal_actions(pb.LegalActionsRequest(state=state)).actions)
        if not legal:
            break
        if rng.random() < 0.1:
            spectator = common_pb2.Actor(spectator=rng.choice(SPECTATORS))
            legal += referee.legal_actions(
                pb.LegalActionsRequest(state=state, actor=spectator)
            ).actions
        action = pb.Action()
        action.CopyFrom(rng.choice(legal))
        if action.actor.HasField("table"):
            tables += 1
            # End the session after a few rounds.
            wanted = "end_session" if tables >= 3 else "next_round"
            for a in legal:
                game = a.WhichOneof("game")
                if getattr(a, game).WhichOneof("kind") == wanted:
                    action.CopyFrom(a)
        elif action.actor.HasField("spectator"):
            wager = action.ecarte.wager
            wager.amount = rng.randint(wager.amount, wager.amount_max)
            wager.ClearField("amount_max")
        elif rng.random() < 0.125:
            _mistake(action, rng, seats)
        reply = referee.apply_action(pb.ApplyActionRequest(state=state, action=action))
        actions.append(action)
        state = reply.state
    return actions


def main() -> None:
    referee = Referee(all_codecs())
    OUT.mkdir(parents=True, exist_ok=True)
    for i, (name, config_json, steps) in enumerate(_vectors()):
        rng = random.Random(f"vector-{name}")
        seed = bytes(rng.randrange(256) for _ in range(32))
        config = json_format.ParseDict(config_json, pb.GameConfig())
        entropy = [rng.randbytes(8) for _ in range(2)] if i % 2 else []
        actions = play(referee, config, seed, steps, rng, entropy)
        replay = referee.replay(
            pb.ReplayRequest(
                config=config, seed=seed, seat_entropy=entropy, actions=actions, include_log=True
            )
        )
        data = json_format.MessageToDict(replay.log)
        (OUT / name).write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        verdicts = [e.verdict for e in replay.log.entries]
        print(
            f"{name}: {len(actions)} actions, "
            f"{verdicts.count(2)} rejected, {verdicts.count(3)} penalized, "
            f"finished={replay.scoreboard.finished}"
        )


if __name__ == "__main__":
    main()
