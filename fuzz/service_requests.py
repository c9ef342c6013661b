"""Coverage-guided fuzzing (atheris, libFuzzer) of whole requests, in process: the first
byte of an input picks the RPC, the rest is its request message (protobuf bytes), handed
to the service's own function (``Referee.apply_action``, ...). Anything but a
``RequestError`` is a crash, and so is an answer that does not hold up: a state hash
that is not the SHA-256 of the state, a successor that is not version + 1 of the state
sent, a legal action that is not accepted.

Short run (CI, tests/reliability/test_atheris.py):
    python fuzz/service_requests.py -runs=100000 -seed=1 CORPUS_COPY
Longer run (docs/reliability.md):
    python fuzz/service_requests.py -max_total_time=1800 fuzz/corpus/service_requests
Re-make the seed corpus from real games: python fuzz/make_corpus.py
"""

from __future__ import annotations

import hashlib
import os
import sys

import atheris

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

with atheris.instrument_imports(include=["referee"], exclude=["referee.v1"]):
    from google.protobuf.message import DecodeError

    from referee.codec import all_codecs
    from referee.errors import RequestError
    from referee.service import LAST_VERSION, Limits, Referee
    from referee.v1 import common_pb2
    from referee.v1 import referee_pb2 as pb

# Replays are bounded (as --max-replay-actions would): an input is at most a few KB.
REFEREE = Referee(all_codecs(), Limits(max_replay_actions=2_000))
METHODS = (
    (pb.NewGameRequest, REFEREE.new_game),
    (pb.ApplyActionRequest, REFEREE.apply_action),
    (pb.LegalActionsRequest, REFEREE.legal_actions),
    (pb.ViewStateRequest, REFEREE.view_state),
    (pb.ReplayRequest, REFEREE.replay),
)


def digest(state: pb.GameState) -> bytes:
    return hashlib.sha256(state.SerializeToString(deterministic=True)).digest()


def check(request: object, reply: object) -> None:
    if isinstance(reply, pb.ApplyActionResponse):
        assert isinstance(request, pb.ApplyActionRequest)
        sent = request.state  # as the service read it (unknown fields dropped)
        if reply.state_hash != digest(reply.state):
            raise AssertionError("state_hash is not the hash of the state")
        if reply.verdict == common_pb2.VERDICT_REJECTED:
            if reply.state_hash != digest(sent):
                raise AssertionError("a rejection changed the state")
        elif reply.state.version != sent.version + 1 or reply.state.parent_hash != digest(sent):
            raise AssertionError("a successor is not version + 1 of the state sent")
    elif isinstance(reply, pb.LegalActionsResponse) and reply.actions:
        assert isinstance(request, pb.LegalActionsRequest)
        if request.state.version == LAST_VERSION:
            return  # the end of every game: nothing may be applied to it
        for action in reply.actions[:4]:
            after = REFEREE.apply_action(pb.ApplyActionRequest(state=request.state, action=action))
            if after.verdict != common_pb2.VERDICT_ACCEPTED:
                raise AssertionError(f"a legal action was not accepted: {after.violations}")
    elif isinstance(reply, pb.NewGameResponse | pb.ReplayResponse):
        state = reply.state if isinstance(reply, pb.NewGameResponse) else reply.final_state
        final = reply.state_hash if isinstance(reply, pb.NewGameResponse) else reply.final_hash
        if final != digest(state):
            raise AssertionError("the hash is not the hash of the state")


def TestOneInput(data: bytes) -> None:
    if not data:
        return
    message, method = METHODS[data[0] % len(METHODS)]
    try:
        request = message.FromString(data[1:])
    except DecodeError:
        return
    try:
        reply = method(request)  # type: ignore[operator]
    except RequestError:
        return
    check(request, reply)


def main() -> None:
    atheris.Setup(sys.argv, TestOneInput)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
