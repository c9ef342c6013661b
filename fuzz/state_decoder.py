"""Coverage-guided fuzzing (atheris, libFuzzer) of the state decoder and validator.

The first byte of an input picks what the rest is:

- 0: a plain ``GameState`` (protobuf bytes) -> ``Referee.open_state``: parse, check
  (rules version, seed, entropy), decode, validate against the seed's deal;
- 1: the plaintext of a sealed token (sealed here with the server's key) ->
  ``open_state(sealed_state=...)``: a token that verifies but holds anything;
- 2: a token as is -> ``open_state(sealed_state=...)``: ``Keyring.open`` on any bytes.

Anything but a ``RequestError`` (or, for 0, bytes protobuf cannot parse) is a crash.
A state that is accepted must also hold up: it re-encodes to exactly the bytes sent
(the service hashes and extends states as sent: an accepted state is canonical), every
legal action of it applies without error, and the service's incremental encoding of
the successor (``encode_successor``) is byte for byte the full encoding, and the
successor is itself a state the referee accepts (it never hands back a state it would
refuse; the one known exception, a hand-made Écarté state at the last deal number,
docs/rules/ecarte.md D-24, is skipped).

Short run (CI, tests/reliability/test_atheris.py):
    python fuzz/state_decoder.py -runs=20000 -seed=1 CORPUS_COPY
Longer run (docs/reliability.md):
    python fuzz/state_decoder.py -max_total_time=1800 -jobs=2 -workers=2 fuzz/corpus/state_decoder
Re-make the seed corpus from real games: python fuzz/make_corpus.py
"""

from __future__ import annotations

import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with atheris.instrument_imports(include=["referee"], exclude=["referee.v1"]):
    from google.protobuf.message import DecodeError

    from referee.codec import all_codecs
    from referee.errors import RequestError
    from referee.games.base import Verdict
    from referee.games.ecarte.state import MAX_DEAL
    from referee.sealing import Keyring
    from referee.service import Referee
    from referee.v1 import referee_pb2 as pb

# A fixed key, so that the corpus's tokens (fuzz/make_corpus.py) stay valid.
KEYRING = Keyring([("fuzz", bytes(range(32)))])
PLAIN = Referee(all_codecs())
SEALED = Referee(all_codecs(), keyring=KEYRING)
MODES = 3


def check_accepted(opened: object) -> None:
    """What an accepted state must also satisfy (see the module docstring)."""
    codec, state, msg = opened.codec, opened.state, opened.msg  # type: ignore[attr-defined]
    game = codec.game_id
    again = pb.GameState()
    again.CopyFrom(msg)
    again.ClearField(game)
    codec.encode_state(state, again)
    sent = msg.SerializeToString(deterministic=True)
    if again.SerializeToString(deterministic=True) != sent:
        raise AssertionError(f"an accepted {game} state is not canonical: {msg}")
    rules = codec.rules
    for action in rules.legal_actions(state, None)[:8]:
        outcome = rules.apply(state, action)
        if outcome.verdict is not Verdict.ACCEPTED:
            raise AssertionError(f"a legal action was not accepted: {action} {outcome}")
        incremental = pb.GameState()
        incremental.CopyFrom(msg)
        codec.encode_successor(state, outcome.state, incremental)
        full = pb.GameState()
        full.CopyFrom(msg)
        full.ClearField(game)
        codec.encode_state(outcome.state, full)
        if incremental.SerializeToString(deterministic=True) != full.SerializeToString(
            deterministic=True
        ):
            raise AssertionError(f"encode_successor differs from encode_state after {action}")
        if getattr(outcome.state, "deal", 0) > MAX_DEAL:  # D-24
            continue
        try:
            PLAIN.open_state(full, b"", "successor")
        except RequestError as e:
            raise AssertionError(f"the successor after {action} is refused: {e}") from None


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    mode, body = data[0] % MODES, data[1:]
    try:
        if mode == 0:
            try:
                msg = pb.GameState.FromString(body)
            except DecodeError:
                return
            opened = PLAIN.open_state(msg, b"")
        elif mode == 1:
            opened = SEALED.open_state(pb.GameState(), KEYRING.seal(body))
        else:
            opened = SEALED.open_state(pb.GameState(), body)
    except RequestError:
        return
    check_accepted(opened)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
