"""Write the golden replay vectors of tests/vectors/ (GameLog JSON, docs/trust.md).

    python scripts/make_vectors.py                           # rewrite every vector
    python scripts/make_vectors.py --rules-version ecarte/2  # add ecarte/2's beside them

Each vector is a game played by seeded random bots through the in-process
referee, with some illegal actions mixed in (rejected or penalized), recorded
by Replay(include_log). The files pin the referee's behaviour byte for byte:
regenerate them only on purpose (a rules change also bumps the rules version),
and review the diff.

Each file is rewritten under the rules version it records, so a release that brings a
second version of a game leaves the old version's files as they are: they pin it. A
vector with no file yet is played under its game's newest version, into
``<name>.json``. ``--rules-version ecarte/2`` plays every Écarté vector under that
version too, into ``<name>.ecarte-2.json``; later runs rewrite those under it as well.
A file that records a version this build does not serve stops the script: remove the
file with the version, or keep the version.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format

from referee.codec import all_codecs, newest, starting
from referee.codec.base import GameCodec
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


def _game(config_json: dict[str, Any]) -> str:
    """The game id of a vector's GameConfig JSON (``earlOfCoventry`` → ``earl_of_coventry``)."""
    (key,) = config_json
    return "".join("_" + c.lower() if c.isupper() else c for c in key)


def _recorded(path: Path) -> str:
    version: str = json.loads(path.read_text())["rulesVersion"]
    return version


def plan(
    out: Path, codecs: Sequence[GameCodec], added: Sequence[str] = ()
) -> list[tuple[Path, str, int, dict[str, Any], int]]:
    """(file, rules version, the vector's index in _vectors, GameConfig JSON, steps) of
    every vector file to write: each existing file under the version it records, a
    vector with no file under its game's newest version, and every vector of an
    ``added`` version's game under that version. A version that is not served (recorded
    in a file, or added) is a ValueError."""
    served = {c.rules.rules_version: c for c in codecs}
    starts = newest(codecs)
    for version in added:
        starting(codecs, [version])  # a version served here, or the ValueError saying so
    files: list[tuple[Path, str, int, dict[str, Any], int]] = []
    for i, (name, config_json, steps) in enumerate(_vectors()):
        game = _game(config_json)
        stem = name.removesuffix(".json")
        plain = out / name
        versions: dict[str, Path] = {}
        others = sorted(out.glob(f"{stem}.*.json"))
        for path in ([plain] if plain.exists() else []) + others:
            version = _recorded(path)
            if version not in served:
                raise ValueError(
                    f"{path.name} records {version!r}, which this build does not serve: "
                    "remove the file with the version, or keep the version"
                )
            if served[version].game_id != game:
                raise ValueError(f"{path.name} records {version!r}, a version of another game")
            if version in versions:
                raise ValueError(f"{path.name} and {versions[version].name} record {version!r}")
            versions[version] = path
        if not plain.exists():
            versions.setdefault(starts[game].rules.rules_version, plain)
        for version in added:
            if served[version].game_id == game and version not in versions:
                versions[version] = out / f"{stem}.{version.replace('/', '-')}.json"
        files.extend((path, version, i, config_json, steps) for version, path in versions.items())
    return files


def write(
    codecs: Sequence[GameCodec],
    path: Path,
    version: str,
    i: int,
    config_json: dict[str, Any],
    steps: int,
) -> str:
    """Play vector ``i`` of _vectors under ``version`` into ``path``; a line to print. Its
    bots and seed are the same for every version (they come from the vector's name)."""
    referee = Referee(codecs, new_game_rules=[version])  # NewGame and Replay: ``version``
    rng = random.Random(f"vector-{_vectors()[i][0]}")
    seed = bytes(rng.randrange(256) for _ in range(32))
    config = json_format.ParseDict(config_json, pb.GameConfig())
    entropy = [rng.randbytes(8) for _ in range(2)] if i % 2 else []
    actions = play(referee, config, seed, steps, rng, entropy)
    replay = referee.replay(
        pb.ReplayRequest(
            config=config,
            seed=seed,
            seat_entropy=entropy,
            actions=actions,
            include_log=True,
        )
    )
    data = json_format.MessageToDict(replay.log)
    path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")
    verdicts = [e.verdict for e in replay.log.entries]
    return (
        f"{path.name} ({version}): {len(actions)} actions, "
        f"{verdicts.count(common_pb2.VERDICT_REJECTED)} rejected, "
        f"{verdicts.count(common_pb2.VERDICT_PENALIZED)} penalized, "
        f"finished={replay.scoreboard.finished}"
    )


def main(
    argv: Sequence[str] | None = None,
    out: Path = OUT,
    codecs: Sequence[GameCodec] | None = None,
) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--rules-version",
        action="append",
        default=[],
        metavar="VERSION",
        help="also play the vectors of this version's game under it, into "
        "<name>.<game>-<n>.json (repeatable)",
    )
    args = parser.parse_args(argv)
    out.mkdir(parents=True, exist_ok=True)
    try:
        codecs = all_codecs() if codecs is None else codecs
        files = plan(out, codecs, args.rules_version)
    except ValueError as e:
        print(f"make_vectors: {e}", file=sys.stderr)
        return 2
    for file in files:
        print(write(codecs, *file))
    return 0


if __name__ == "__main__":
    sys.exit(main())
