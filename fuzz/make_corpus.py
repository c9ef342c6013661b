"""Write the seed corpora of the fuzz targets from real games (tests/reliability
playouts of every configuration of both games):

- fuzz/corpus/state_decoder/: states at several points of each game, as plain states
  (mode 0), sealed plaintexts (mode 1) and sealed tokens (mode 2);
- fuzz/corpus/service_requests/: NewGame, ApplyAction, LegalActions, ViewState and
  Replay requests a well-behaved client would send.

    python fuzz/make_corpus.py   # rewrites both
"""

from __future__ import annotations

import hashlib
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from referee.sealing import Keyring  # noqa: E402
from referee.v1 import common_pb2  # noqa: E402
from referee.v1 import referee_pb2 as pb  # noqa: E402
from tests.reliability.playouts import games, replay_request  # noqa: E402

KEYRING = Keyring([("fuzz", bytes(range(32)))])  # the key of fuzz/state_decoder.py
CORPORA = ROOT / "fuzz" / "corpus"
MAX_LEN = 4096  # libFuzzer's default largest input


def write(directory: Path, entry: bytes, name_of: bytes | None = None) -> None:
    if len(entry) <= MAX_LEN:
        (directory / hashlib.sha1(name_of or entry).hexdigest()).write_bytes(entry)


def main() -> None:
    states_dir = CORPORA / "state_decoder"
    requests_dir = CORPORA / "service_requests"
    for d in (states_dir, requests_dir):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)
    for game in games(22, seed=8):
        states = list(game.states())
        for i in sorted({0, 1, len(states) // 3, len(states) // 2, len(states) - 1}):
            data = states[i].SerializeToString(deterministic=True)
            write(states_dir, b"\x00" + data)
            write(states_dir, b"\x01" + data)
            if i % 2 == 0:  # a token's bytes are random: named after its state
                write(states_dir, b"\x02" + KEYRING.seal(data), b"\x02" + data)
        write(
            requests_dir,
            b"\x00"
            + pb.NewGameRequest(
                config=game.config, seed=game.seed, views=[common_pb2.Viewer(seat=0)]
            ).SerializeToString(),
        )
        for step in game.steps[:: max(1, len(game.steps) // 6)]:
            apply = pb.ApplyActionRequest(state=step.state, action=step.action)
            apply.views.add(seat=0)
            write(requests_dir, b"\x01" + apply.SerializeToString())
            legal = pb.LegalActionsRequest(state=step.state)
            write(requests_dir, b"\x02" + legal.SerializeToString())
            view = pb.ViewStateRequest(state=step.state, viewer=common_pb2.Viewer(seat=1))
            write(requests_dir, b"\x03" + view.SerializeToString())
        replay = replay_request(game, upto=40)
        replay.include_events = True
        write(requests_dir, b"\x04" + replay.SerializeToString())
    for d in (states_dir, requests_dir):
        print(f"{len(list(d.iterdir()))} inputs in {d.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
