"""Fuzzing every RPC of a live `referee serve` (a subprocess): random messages built from
the protobuf descriptors, and mutations of real requests taken from random playouts of
both games. Every answer is OK (and then checked as a whole), INVALID_ARGUMENT with a
BadRequest or ErrorInfo, or FAILED_PRECONDITION with an ErrorInfo; never UNKNOWN or
INTERNAL; the server logs no error and still answers health afterwards."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_status import rpc_status
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.service import LAST_VERSION
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

from ..ops.helpers import long_replay
from . import protofuzz
from .conftest import scaled
from .playouts import CONFIGS, REJECTED, Game, replay_request, verify
from .support import (
    CLIENT_ERRORS,
    MAX_MESSAGE_BYTES,
    METHODS,
    REQUEST_TYPES,
    RefereeProcess,
    caller,
    check_error,
)

Draw = Callable[[st.SearchStrategy[Any]], Any]
CONFIGS_DEFAULT = {
    c.WhichOneof("game"): c for c in CONFIGS if not c.ListFields()[0][1].ListFields()
}


@pytest.fixture(scope="module")
def calls(plain_server: RefereeProcess) -> Iterator[dict[str, Callable[..., Any]]]:
    with plain_server.channel() as ch:
        yield {m: caller(ch, m) for m in METHODS}


def outcome(calls: dict[str, Callable[..., Any]], method: str, request: Message) -> tuple[str, Any]:
    """Send ``request``; check the answer; returns (outcome, reply or None)."""
    try:
        reply = calls[method](request, timeout=60)
    except grpc.RpcError as err:
        allowed = CLIENT_ERRORS
        if request.ByteSize() > MAX_MESSAGE_BYTES:
            allowed |= {grpc.StatusCode.RESOURCE_EXHAUSTED}
        return check_error(err, allowed), None
    verify(method, request, reply)
    return "OK", reply


# ------------------------------------------------------------------ random messages


@pytest.mark.parametrize("method", METHODS)
def test_random_messages_on_every_rpc(
    method: str,
    calls: dict[str, Callable[..., Any]],
    plain_server: RefereeProcess,
    tally: Counter[str],
) -> None:
    """Any message of the request type: any fields, any oneof case, enums and integers
    out of range, empty, huge and non-ASCII strings and bytes, huge repeated fields."""

    @settings(max_examples=scaled(500))
    @given(protofuzz.messages(REQUEST_TYPES[method]))
    def run(request: Message) -> None:
        result, _ = outcome(calls, method, request)
        tally[f"random {method} {result.split(':')[0]}"] += 1

    run()
    plain_server.assert_healthy()


# ------------------------------------------------------------------ mutations of real requests


def _pick(pool: list[Game], draw: Draw) -> tuple[Game, int]:
    game = pool[draw(st.integers(0, len(pool) - 1))]
    return game, draw(st.integers(0, len(game.steps) - 1))


def _viewer(seats: int, draw: Draw) -> common_pb2.Viewer:
    kind = draw(st.integers(0, 2))
    if kind == 0:
        return common_pb2.Viewer(seat=draw(st.integers(0, seats - 1)))
    if kind == 1:
        return common_pb2.Viewer(spectator="ann")
    return common_pb2.Viewer(public=common_pb2.PublicViewer())


def real_request(method: str, pool: list[Game], draw: Draw) -> Message:
    """A request a well-behaved client would send, from a real game."""
    game, i = _pick(pool, draw)
    step = game.steps[i]
    seats = len(getattr(step.state, game.game_id).seats)
    if method == "ApplyAction":
        action = step.action if draw(st.booleans()) else draw(st.sampled_from(step.legal))
        request = pb.ApplyActionRequest(state=step.state, action=action)
        request.views.extend(_viewer(seats, draw) for _ in range(draw(st.integers(0, 2))))
        return request
    if method == "LegalActions":
        request = pb.LegalActionsRequest(state=step.state)
        if draw(st.booleans()):
            request.actor.CopyFrom(step.action.actor)
        return request
    if method == "ViewState":
        return pb.ViewStateRequest(state=step.state, viewer=_viewer(seats, draw))
    if method == "NewGame":
        request = pb.NewGameRequest(config=game.config)
        if draw(st.booleans()):
            request.seed = game.seed
        request.seat_entropy.extend(draw(st.lists(st.binary(max_size=64), max_size=seats)))
        request.views.extend(_viewer(seats, draw) for _ in range(draw(st.integers(0, 2))))
        return request
    request = replay_request(game, upto=i + 1)
    request.include_events = draw(st.booleans())
    request.include_log = draw(st.booleans())
    return request


MUTABLE = ("NewGame", "ApplyAction", "LegalActions", "ViewState", "Replay")


@pytest.mark.parametrize("method", MUTABLE)
def test_mutated_real_requests(
    method: str,
    calls: dict[str, Callable[..., Any]],
    plain_server: RefereeProcess,
    pool: list[Game],
    tally: Counter[str],
) -> None:
    """Real requests with 1-3 mutations anywhere (a field of the state, the action, the
    viewer; cards swapped between hands, repeated fields truncated or duplicated, another
    rules version, another oneof case). A state the server accepts must also be one it
    keeps accepting: the successor of an accepted action opens again, and the actions
    LegalActions offers are accepted."""
    seen: Counter[str] = Counter()

    @settings(max_examples=scaled(2000))
    @given(st.data())
    def run(data: st.DataObject) -> None:
        request = real_request(method, pool, data.draw)
        protofuzz.mutate(request, data.draw)
        result, reply = outcome(calls, method, request)
        seen[result.split(":")[0]] += 1
        tally[f"mutated {method} {result}"] += 1
        if reply is None:
            return
        if method == "ApplyAction" and reply.verdict != REJECTED:
            follow = pb.LegalActionsRequest(state=reply.state)
            assert outcome(calls, "LegalActions", follow)[0] == "OK", "successor refused"
        if method == "LegalActions" and reply.actions:
            action = reply.actions[data.draw(st.integers(0, len(reply.actions) - 1))]
            applied = pb.ApplyActionRequest(state=request.state, action=action)
            result, after = outcome(calls, "ApplyAction", applied)
            if request.state.version == LAST_VERSION:  # the end of every game
                assert result == "INVALID_ARGUMENT:state.version"
                return
            assert result == "OK" and after.verdict == common_pb2.VERDICT_ACCEPTED, (
                result,
                after and after.violations,
            )

    run()
    # Mutations reach past the first checks: some requests are still served.
    assert seen["OK"] and seen["INVALID_ARGUMENT"], seen
    plain_server.assert_healthy()


def test_legal_actions_for_the_table_in_ecarte_is_an_empty_list(
    calls: dict[str, Callable[..., Any]], pool: list[Game]
) -> None:
    """Regression: Écarté has no table actions; LegalActions for the table was
    INTERNAL, then INVALID_ARGUMENT, which clients that ask every actor (a server
    requiring sealed states) could not get past. It is answered: nothing (D-15)."""
    game = next(g for g in pool if g.game_id == "ecarte")
    request = pb.LegalActionsRequest(state=game.first.state)
    request.actor.table.SetInParent()
    result, reply = outcome(calls, "LegalActions", request)
    assert result == "OK" and list(reply.actions) == []


@pytest.mark.parametrize(
    ("game_id", "option"),
    [
        ("ecarte", "vole_multiplier"),
        ("ecarte", "wager_limit"),
        ("ecarte", ""),
        ("earl_of_coventry", "seats"),
        ("earl_of_coventry", "starting_counters"),
        ("earl_of_coventry", ""),
    ],
)
def test_a_state_carries_its_configuration_written_out(
    calls: dict[str, Callable[..., Any]], pool: list[Game], game_id: str, option: str
) -> None:
    """Regression (found by fuzz/state_decoder.py): a state whose configuration left an
    option at 0 (its default, as a GameConfig may) was accepted. One state then had
    several encodings and hashes, and its successors kept the odd encoding (the
    incremental encoder copies what did not change): their hashes were not Replay's."""
    game = next(g for g in pool if g.game_id == game_id and g.config == CONFIGS_DEFAULT[game_id])
    step = game.steps[0]
    request = pb.ApplyActionRequest(state=step.state, action=step.action)
    config = getattr(request.state, game_id).config
    if option:
        config.ClearField(option)
    else:
        getattr(request.state, game_id).ClearField("config")
    assert outcome(calls, "ApplyAction", request)[0] == f"INVALID_ARGUMENT:state.{game_id}.config"
    assert (
        outcome(calls, "ApplyAction", pb.ApplyActionRequest(state=step.state, action=step.action))[
            0
        ]
        == "OK"
    )


def test_a_request_with_hundreds_of_faults_gets_its_invalid_argument(
    calls: dict[str, Callable[..., Any]], pool: list[Game]
) -> None:
    """Regression (found by the mutation fuzzer): 164 bad card codes in a state made a
    BadRequest of 165 field violations, a 10 KB trailer that gRPC clients refuse (at
    random above 8 KiB): the client got RESOURCE_EXHAUSTED instead of the error."""
    game = next(g for g in pool if g.game_id == "earl_of_coventry")
    request = pb.LegalActionsRequest(state=game.steps[3].state)
    request.state.earl_of_coventry.played = b"K" * 164
    for _ in range(20):  # the client's refusal was random: never, now
        with pytest.raises(grpc.RpcError) as caught:
            calls["LegalActions"](request, timeout=10)
        err = caught.value
        assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
        assert "(and 164 more)" in (err.details() or "")
        trailers = dict(err.trailing_metadata() or ())  # type: ignore[attr-defined]
        assert len(trailers["grpc-status-details-bin"]) < 4096
    assert check_error(err) == "INVALID_ARGUMENT:state.earl_of_coventry.played"


@pytest.mark.parametrize("method", ["ApplyAction", "LegalActions", "ViewState"])
def test_a_state_of_the_largest_version_is_invalid_argument(
    calls: dict[str, Callable[..., Any]], pool: list[Game], method: str
) -> None:
    """Regression (found by the mutation fuzzer at 20,000 examples): a state of version
    2**64 - 1 (a uint64's largest) was accepted; ApplyAction then failed to write its
    successor's version and answered INTERNAL. Now no state has that version, and none
    follows the last one (2**64 - 2): it may be viewed, but nothing applied to it."""
    step = next(g for g in pool if g.game_id == "ecarte").steps[0]
    request: Any
    if method == "ApplyAction":
        request = pb.ApplyActionRequest(state=step.state, action=step.action)
    elif method == "LegalActions":
        request = pb.LegalActionsRequest(state=step.state)
    else:
        request = pb.ViewStateRequest(state=step.state, viewer=common_pb2.Viewer(seat=0))
    request.state.version = 2**64 - 1
    assert outcome(calls, method, request)[0] == "INVALID_ARGUMENT:state.version"
    request.state.version = LAST_VERSION
    last = "INVALID_ARGUMENT:state.version" if method == "ApplyAction" else "OK"
    assert outcome(calls, method, request)[0] == last
    request.state.version = LAST_VERSION - 1
    result, reply = outcome(calls, method, request)
    assert result == "OK"
    if method == "ApplyAction":  # the last state, made by the referee, is one it reads
        assert reply.state.version == LAST_VERSION
        assert (
            outcome(
                calls,
                "ViewState",
                pb.ViewStateRequest(state=reply.state, viewer=common_pb2.Viewer(seat=0)),
            )[0]
            == "OK"
        )


# ------------------------------------------------------------------ huge fields


def _huge_requests(pool: list[Game]) -> Iterator[tuple[str, str, Message]]:
    earl = next(g for g in pool if g.game_id == "earl_of_coventry")
    ecarte = next(g for g in pool if g.game_id == "ecarte")
    step = earl.steps[0]

    request: Any = pb.NewGameRequest(config=earl.config)
    request.seat_entropy.extend([b""] * 1_000_000)
    yield "NewGame", "1,000,000 seat_entropy entries", request

    request = pb.NewGameRequest(config=earl.config)
    request.views.extend([common_pb2.Viewer(seat=0)] * 200_000)
    yield "NewGame", "200,000 views", request

    request = pb.ApplyActionRequest(state=step.state, action=step.action)
    request.action.earl_of_coventry.play.call = "é" * 7_000_000  # 14 MB of UTF-8
    yield "ApplyAction", "a 14 MB couplet", request

    request = pb.ApplyActionRequest(state=step.state, action=step.action)
    request.state.earl_of_coventry.seats.extend([request.state.earl_of_coventry.seats[0]] * 300_000)
    yield "ApplyAction", "300,000 seats", request

    request = pb.LegalActionsRequest(state=ecarte.steps[0].state)
    request.state.ecarte.stock = bytes(range(32)) * 400_000  # 12.8 MB of stock
    yield "LegalActions", "a 12.8 MB stock", request

    request = pb.ViewStateRequest(state=ecarte.steps[0].state, viewer=common_pb2.Viewer(seat=0))
    request.state.seat_entropy.extend([b"\x00" * 64] * 100_000)
    yield "ViewState", "100,000 seat_entropy entries in the state", request

    request = pb.ViewStateRequest(state=step.state)
    request.viewer.spectator = "s" * 10_000_000
    yield "ViewState", "a 10 MB spectator id", request

    request = replay_request(earl)
    request.actions.extend([request.actions[-1]] * (100_001 - len(request.actions)))
    yield "Replay", "100,001 actions (over --max-replay-actions)", request


def test_huge_fields_within_the_size_limit(
    calls: dict[str, Callable[..., Any]],
    plain_server: RefereeProcess,
    pool: list[Game],
    tally: Counter[str],
) -> None:
    for method, what, request in _huge_requests(pool):
        assert request.ByteSize() < MAX_MESSAGE_BYTES, what
        result, _ = outcome(calls, method, request)
        assert result.startswith("INVALID_ARGUMENT"), (what, result)
        tally[f"huge {method} {result}"] += 1
    plain_server.assert_healthy()


def test_a_replay_of_the_largest_size_is_served_and_its_answer_over_the_limit_refused(
    calls: dict[str, Callable[..., Any]], plain_server: RefereeProcess
) -> None:
    """100,000 actions (the most a Replay may have) are judged; with the log asked for
    too, the answer is larger than the 16 MiB limit: RESOURCE_EXHAUSTED with reason
    RESPONSE_TOO_LARGE and the sizes (not INTERNAL, nor gRPC's bare send failure), and
    the server's log line says so."""
    request = long_replay(100_000)
    result, reply = outcome(calls, "Replay", request)
    assert result == "OK" and len(reply.steps) == 100_000
    request.include_log = True
    with pytest.raises(grpc.RpcError) as err:
        calls["Replay"](request, timeout=60, metadata=(("x-request-id", "oversize-1"),))
    assert err.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    status = rpc_status.from_call(err.value)
    assert status is not None
    (detail,) = status.details
    info = error_details_pb2.ErrorInfo()
    assert detail.Unpack(info)
    assert info.reason == "RESPONSE_TOO_LARGE"
    assert int(info.metadata["response_bytes"]) > int(info.metadata["limit_bytes"])
    assert int(info.metadata["limit_bytes"]) == MAX_MESSAGE_BYTES
    plain_server.wait_ids(["oversize-1"])
    assert plain_server.by_id["oversize-1"] == "RESOURCE_EXHAUSTED"
    plain_server.assert_healthy()


# ------------------------------------------------------------------ metadata

# What gRPC lets a client send as an ASCII metadata value: visible characters and spaces.
_HEADER_TEXT = st.text(st.characters(min_codepoint=0x20, max_codepoint=0x7E), max_size=600)
_TRACEPARENTS = st.one_of(
    _HEADER_TEXT,
    st.builds(
        "{}-{}-{}-{}{}".format,
        st.sampled_from(["00", "01", "fe", "ff", "0g", "0"]),
        st.text("0123456789abcdefABCDEF", min_size=31, max_size=33),
        st.text("0123456789abcdef", min_size=15, max_size=17),
        st.sampled_from(["00", "01", "ff", "1"]),
        st.sampled_from(["", "-", "-x", " "]),
    ),
)


def test_any_request_id_and_traceparent(
    plain_server: RefereeProcess, calls: dict[str, Callable[..., Any]]
) -> None:
    """Any ``x-request-id`` and ``traceparent`` a client can send, repeated or not: the
    call is answered, its request id comes back bounded, and the server logs no error."""
    request = pb.ListGamesRequest()

    @settings(max_examples=scaled(300))
    @given(
        st.lists(
            st.tuples(st.sampled_from(["x-request-id", "traceparent"]), _TRACEPARENTS),
            max_size=4,
        )
    )
    def run(metadata: list[tuple[str, str]]) -> None:
        _, call = calls["ListGames"].with_call(request, timeout=60, metadata=metadata)
        returned = dict(call.trailing_metadata())["x-request-id"]
        given_ids = [v for k, v in metadata if k == "x-request-id" and v]
        if given_ids:
            assert returned == given_ids[0][:128]
        else:
            assert returned and len(returned) <= 128

    run()
    plain_server.assert_healthy()
