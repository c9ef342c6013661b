"""Sealed state tokens against live servers with sealing keys (docs/trust.md): altered
tokens, random tokens, tokens that are validly sealed but hold garbage or impossible
states, and (with --require-sealed) mutated requests with seat credentials."""

from __future__ import annotations

import base64
import os
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.sealing import TABLE_SEAT, Keyring, credential
from referee.seeds import commitment
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

from . import protofuzz
from .conftest import scaled
from .playouts import REJECTED, Game, state_hash
from .support import (
    CLIENT_ERRORS,
    MAX_MESSAGE_BYTES,
    METHODS,
    RefereeProcess,
    caller,
    check_error,
)

Draw = Callable[[st.SearchStrategy[Any]], Any]
SEAL_REASONS = {
    "STATE_SEAL_MALFORMED",
    "STATE_SEAL_VERSION_UNSUPPORTED",
    "STATE_SEAL_UNKNOWN_KEY",
    "STATE_SEAL_INVALID",
    "STATE_SEAL_POLICY_MISMATCH",
}
# Two keys: the first seals, both open (a rotation in progress).
KEYS = (("k-new", os.urandom(32)), ("k-old", os.urandom(32)))
KEYRING = Keyring(KEYS)
OLD_ONLY = Keyring(KEYS[1:])
STRICT = Keyring(KEYS, strict=True)  # the tokens of a --require-sealed server


def _env() -> dict[str, str]:
    return {"REFEREE_SEAL_KEYS": ",".join(f"{k}:{base64.b64encode(v).decode()}" for k, v in KEYS)}


@pytest.fixture(scope="module")
def sealed_server() -> Iterator[RefereeProcess]:
    server = RefereeProcess(env=_env())
    yield server
    try:
        server.assert_healthy()
        assert server.terminate() == 0
    finally:
        server.close()


@pytest.fixture(scope="module")
def strict_server() -> Iterator[RefereeProcess]:
    server = RefereeProcess("--require-sealed", "true", env=_env())
    yield server
    try:
        server.assert_healthy()
        assert server.terminate() == 0
    finally:
        server.close()


def _calls(server: RefereeProcess) -> Iterator[dict[str, Callable[..., Any]]]:
    with server.channel() as ch:
        yield {m: caller(ch, m) for m in METHODS}


@pytest.fixture(scope="module")
def sealed_calls(sealed_server: RefereeProcess) -> Iterator[dict[str, Callable[..., Any]]]:
    yield from _calls(sealed_server)


@pytest.fixture(scope="module")
def strict_calls(strict_server: RefereeProcess) -> Iterator[dict[str, Callable[..., Any]]]:
    yield from _calls(strict_server)


def opened(token: bytes) -> pb.GameState:
    return pb.GameState.FromString((STRICT if token[3] else KEYRING).open(token))


def send(
    calls: dict[str, Callable[..., Any]],
    method: str,
    request: Message,
    allowed: frozenset[grpc.StatusCode] = CLIENT_ERRORS,
) -> tuple[str, Any]:
    try:
        reply = calls[method](request, timeout=30)
    except grpc.RpcError as err:
        if request.ByteSize() > MAX_MESSAGE_BYTES:
            allowed |= {grpc.StatusCode.RESOURCE_EXHAUSTED}
        return check_error(err, allowed), None
    return "OK", reply


def verify_sealed(request: Any, reply: Any, sent: pb.GameState) -> None:
    """A whole answer through tokens: no plain state; the token opens (with our copy of
    the key) to a state whose hash is ``state_hash``, the successor of ``sent``."""
    if not isinstance(reply, pb.ApplyActionResponse):
        if isinstance(reply, pb.ViewStateResponse):
            assert reply.state_hash == state_hash(sent)
        return
    assert not reply.HasField("state") and reply.sealed_state
    state = opened(reply.sealed_state)
    assert reply.state_hash == state_hash(state)
    if reply.verdict == REJECTED:
        assert reply.sealed_state == request.sealed_state  # the same token back
        assert state_hash(state) == state_hash(sent)
    else:
        assert state.version == sent.version + 1 and state.parent_hash == state_hash(sent)


def _request(method: str, token: bytes, game: Game, i: int) -> Message:
    step = game.steps[i]
    if method == "ApplyAction":
        return pb.ApplyActionRequest(sealed_state=token, action=step.action)
    if method == "LegalActions":
        return pb.LegalActionsRequest(sealed_state=token)
    return pb.ViewStateRequest(sealed_state=token, viewer=common_pb2.Viewer(seat=0))


def _pick(pool: list[Game], draw: Draw) -> tuple[Game, int]:
    game = pool[draw(st.integers(0, len(pool) - 1))]
    return game, draw(st.integers(0, len(game.steps) - 1))


STATEFUL = ("ApplyAction", "LegalActions", "ViewState")


def test_altered_tokens_are_refused(
    sealed_calls: dict[str, Callable[..., Any]],
    sealed_server: RefereeProcess,
    pool: list[Game],
    tally: Counter[str],
) -> None:
    """Any change to a token (a bit, a byte, its length, its version, its key id) is
    INVALID_ARGUMENT with a STATE_SEAL_* reason; the unchanged token is served."""

    @settings(max_examples=scaled(1500))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        game, i = _pick(pool, data.draw)
        state = game.steps[i].state
        keyring = KEYRING if data.draw(st.booleans()) else OLD_ONLY  # both keys open
        token = keyring.seal(state.SerializeToString(deterministic=True))
        altered = _alter(token, data.draw)
        method = data.draw(st.sampled_from(STATEFUL))
        request = _request(method, altered, game, i)
        result, reply = send(sealed_calls, method, request)
        tally[f"token {result}"] += 1
        if altered == token:
            assert result == "OK"
            verify_sealed(request, reply, state)
        elif altered:
            assert result.split(":")[1] in SEAL_REASONS, result
        else:  # no token, no state
            assert result == "INVALID_ARGUMENT:state", result

    run()
    sealed_server.assert_healthy()


def _alter(token: bytes, draw: Draw) -> bytes:
    b = bytearray(token)
    op = draw(st.integers(0, 7))
    if op == 0:  # the format version
        b[2] = draw(st.integers(0, 255))
    elif op == 1:  # the key id: its length or its name
        if draw(st.booleans()):
            b[4] = draw(st.integers(0, 255))
        else:
            b[5] ^= 0x20
    elif op == 7:  # the policy byte (--require-sealed or not)
        b[3] = draw(st.integers(0, 255))
    elif op == 2:  # one bit of the nonce, the ciphertext or the tag
        i = draw(st.integers(5, len(b) - 1))
        b[i] ^= 1 << draw(st.integers(0, 7))
    elif op == 3:
        return bytes(draw(st.binary(max_size=200)))
    else:
        return protofuzz.mutate_bytes(bytes(b), draw)
    return bytes(b)


def test_validly_sealed_garbage_is_invalid_argument(
    sealed_calls: dict[str, Callable[..., Any]],
    sealed_server: RefereeProcess,
    pool: list[Game],
    tally: Counter[str],
) -> None:
    """Tokens that verify (sealed with the server's own key) but hold random bytes or a
    mutated state: the state inside is checked like a plain one."""
    seen: Counter[str] = Counter()

    @settings(max_examples=scaled(1500))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        game, i = _pick(pool, data.draw)
        state = pb.GameState()
        state.CopyFrom(game.steps[i].state)
        if data.draw(st.integers(0, 4)) == 0:
            plaintext = data.draw(st.one_of(st.binary(max_size=200), protofuzz.wire_garbage()))
        else:
            protofuzz.mutate(state, data.draw)
            plaintext = state.SerializeToString()
        method = data.draw(st.sampled_from(STATEFUL))
        request = _request(method, KEYRING.seal(plaintext), game, i)
        result, reply = send(sealed_calls, method, request)
        seen[result.split(":")[0]] += 1
        tally[f"sealed garbage {result}"] += 1
        if reply is not None:
            sent = pb.GameState.FromString(plaintext)
            sent.DiscardUnknownFields()
            verify_sealed(request, reply, sent)

    run()
    assert seen["OK"] and seen["INVALID_ARGUMENT"], seen
    sealed_server.assert_healthy()


def test_require_sealed_with_mutated_requests_and_credentials(
    strict_calls: dict[str, Callable[..., Any]],
    strict_server: RefereeProcess,
    pool: list[Game],
    tally: Counter[str],
) -> None:
    """--require-sealed: real requests (tokens, seat credentials) with mutations: plain
    states are FAILED_PRECONDITION, a wrong or missing credential PERMISSION_DENIED."""
    allowed = CLIENT_ERRORS | {grpc.StatusCode.PERMISSION_DENIED}
    seen: Counter[str] = Counter()

    @settings(max_examples=scaled(1500))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        game, i = _pick(pool, data.draw)
        step = game.steps[i]
        token = STRICT.seal(step.state.SerializeToString(deterministic=True))
        seed_commitment = commitment(step.state.seed)

        def cred(seat: int) -> bytes:
            return credential(STRICT, seed_commitment, seat)

        method = data.draw(st.sampled_from(STATEFUL))
        request: Any
        if method == "ApplyAction":
            request = pb.ApplyActionRequest(sealed_state=token, action=step.action)
            actor = request.action.actor
            seat = actor.seat if actor.WhichOneof("kind") == "seat" else TABLE_SEAT
            actor.credential = cred(seat)
        elif method == "LegalActions":
            request = pb.LegalActionsRequest(sealed_state=token, actor=step.action.actor)
            seat = step.action.actor.seat
            if step.action.actor.WhichOneof("kind") != "seat":
                seat = TABLE_SEAT
            request.actor.credential = cred(seat)
        else:
            request = pb.ViewStateRequest(sealed_state=token)
            request.viewer.seat = 0
            request.viewer.credential = cred(0)
        if data.draw(st.integers(0, 5)):
            protofuzz.mutate(request, data.draw)
        result, reply = send(strict_calls, method, request, allowed)
        seen[result.split(":")[0]] += 1
        tally[f"require-sealed {method} {result}"] += 1
        if reply is not None:
            verify_sealed(request, reply, step.state)

    run()
    assert seen["OK"] and seen["PERMISSION_DENIED"] and seen["INVALID_ARGUMENT"], seen
    strict_server.assert_healthy()
