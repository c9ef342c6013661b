"""The servicer's own checks at their bounds (in-process Referee): state versions, seat
entropy, views per request, viewer seats. Each bound is tried at its last accepted
value and one past it."""

from __future__ import annotations

import itertools
import time

import grpc
import pytest

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.seeds import MAX_ENTROPY_BYTES
from referee.service import (
    DEFAULT_MAX_VIEWS,
    LARGE_STATE_BYTES,
    LAST_VERSION,
    MAX_SEATS,
    Limits,
    Referee,
)
from referee.v1 import common_pb2, ecarte_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

from ..ops.helpers import gallery_replay, gallery_state

REFEREE = Referee(all_codecs())


def game(seats: int = 3, **request: object) -> pb.NewGameResponse:
    config = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=seats))
    return REFEREE.new_game(pb.NewGameRequest(config=config, seed=bytes(32), **request))  # type: ignore[arg-type]


def refused_fields(call: object) -> list[str]:
    with pytest.raises(RequestError) as caught:
        call()  # type: ignore[operator]
    assert caught.value.bad_request is not None, caught.value.message
    return [v.field for v in caught.value.bad_request.field_violations]


def first_action(state: pb.GameState) -> pb.Action:
    return REFEREE.legal_actions(pb.LegalActionsRequest(state=state)).actions[0]


def test_the_last_version_is_read_but_nothing_may_follow_it() -> None:
    assert LAST_VERSION == 2**64 - 2  # GameState.version is a uint64
    state = game().state
    state.version = LAST_VERSION - 1
    action = first_action(state)
    reply = REFEREE.apply_action(pb.ApplyActionRequest(state=state, action=action))
    assert reply.state.version == LAST_VERSION
    last = reply.state
    seat0 = common_pb2.Viewer(seat=0)
    assert REFEREE.view_state(pb.ViewStateRequest(state=last, viewer=seat0)).view.version == (
        LAST_VERSION
    )
    action = first_action(last)
    assert refused_fields(
        lambda: REFEREE.apply_action(pb.ApplyActionRequest(state=last, action=action))
    ) == ["state.version"]
    last.version = LAST_VERSION + 1  # the largest uint64
    assert refused_fields(
        lambda: REFEREE.view_state(pb.ViewStateRequest(state=last, viewer=seat0))
    ) == ["state.version"]


def test_a_state_holds_one_entropy_entry_per_seat_at_most() -> None:
    """A state's seat entropy is checked before its game is known: 13 entries (the most
    seats of any game) of up to MAX_ENTROPY_BYTES each."""
    assert MAX_ENTROPY_BYTES == 64  # docs/api.md, docs/trust.md
    state = game(13).state
    state.ClearField("seat_entropy")
    state.seat_entropy.extend([bytes([i]) * MAX_ENTROPY_BYTES for i in range(MAX_SEATS)])
    assert MAX_SEATS == 13

    def legal() -> object:
        return REFEREE.legal_actions(pb.LegalActionsRequest(state=state))

    # At the bounds the entries are read (and then found not to be this deal's: the
    # hands are not what the seed and these entries deal).
    assert "state.seat_entropy" not in str(_fields_or_none(legal))
    state.seat_entropy.append(b"x")
    assert refused_fields(legal) == ["state.seat_entropy"]
    del state.seat_entropy[-1]
    state.seat_entropy[0] += b"x"
    assert refused_fields(legal) == ["state.seat_entropy[0]"]


def _fields_or_none(call: object) -> list[str] | None:
    try:
        call()  # type: ignore[operator]
    except RequestError as e:
        return [v.field for v in e.bad_request.field_violations] if e.bad_request else [e.message]
    return None


def test_views_per_request_up_to_the_limit() -> None:
    assert Limits().max_views == DEFAULT_MAX_VIEWS == 32
    views = [common_pb2.Viewer(seat=i % 3) for i in range(DEFAULT_MAX_VIEWS)]
    assert len(game(views=views).views) == DEFAULT_MAX_VIEWS
    views.append(common_pb2.Viewer(public=common_pb2.PublicViewer()))
    assert refused_fields(lambda: game(views=views)) == ["views"]


def test_a_viewer_seat_must_be_a_seat_of_the_table() -> None:
    assert refused_fields(lambda: game(views=[common_pb2.Viewer(seat=3)])) == ["views[0].seat"]
    assert game(views=[common_pb2.Viewer(seat=2)]).views[0].earl_of_coventry.seats
    state = game().state
    request = pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=3))
    assert refused_fields(lambda: REFEREE.view_state(request)) == ["viewer.seat"]


def test_a_new_games_views_are_of_version_0() -> None:
    views = [common_pb2.Viewer(seat=0), common_pb2.Viewer(public=common_pb2.PublicViewer())]
    new = game(views=views)
    assert new.state.version == 0
    assert [v.version for v in new.views] == [0, 0]


def test_every_error_reason_the_server_gives_is_in_the_api_docs() -> None:
    """docs/api.md's error table is the list platform teams program against: every
    google.rpc.ErrorInfo reason the server can give is in it, and nothing else."""
    import re
    from pathlib import Path

    from referee import sealing

    root = Path(__file__).resolve().parents[2]
    given = set(sealing.SEAL_REASONS)
    for module in ("service.py", "calls.py", "server.py", "threaded.py", "auth.py", "errors.py"):
        given |= set(re.findall(r'reason="([A-Z_]+)"', (root / "referee" / module).read_text()))
    assert "RULES_VERSION_UNSUPPORTED" in given and "REQUEST_MALFORMED" in given
    errors = (root / "docs" / "api.md").read_text().split("## Errors", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"reason `([A-Z_]+)`", errors))
    documented |= set(re.findall(r"`(STATE_SEAL_[A-Z_]+)`", errors))
    assert given == documented


def test_a_replay_is_stopped_at_its_cpu_limit_between_actions() -> None:
    """Limits.max_replay_cpu_seconds, on a clock that advances a second each time it is
    read: the clock is read once at the start and every 256 actions, and the Replay is
    stopped at the first reading past the limit (the 11th of a 10 s limit, before action
    11 * 256 - 1), RESOURCE_EXHAUSTED with reason REPLAY_CPU_LIMIT and how far it got."""
    referee = Referee(all_codecs(), Limits(max_replay_cpu_seconds=10))
    assert referee.cpu_clock is time.thread_time  # the Replay's own thread's CPU
    readings = itertools.count()
    referee.cpu_clock = lambda: float(next(readings))
    with pytest.raises(RequestError) as caught:
        referee.replay(gallery_replay(5_000))
    error = caught.value
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "REPLAY_CPU_LIMIT")
    assert error.metadata == {"limit_seconds": "10", "actions_done": "2815", "actions": "5000"}
    assert "stopped after 2,815 of 5,000 actions" in error.message
    assert next(readings) == 12  # the start, then 11 every 256 actions
    # Under the limit, or with none (0: the clock is never read), the Replay is whole.
    referee.limits = Limits(max_replay_cpu_seconds=100)
    assert len(referee.replay(gallery_replay(5_000)).steps) == 5_000
    referee.limits = Limits()
    assert Limits().max_replay_cpu_seconds == 0
    referee.cpu_clock = lambda: pytest.fail("read without a limit")  # type: ignore[return-value]
    assert len(referee.replay(gallery_replay(5_000)).steps) == 5_000


def test_an_answer_of_a_large_state_over_the_limit_is_refused_before_its_views() -> None:
    """Limits.max_response_bytes: an answer carrying a large state (an Écarté gallery of
    many wagers, which every view holds again) is sized as its views are made, and
    refused once over the limit, RESOURCE_EXHAUSTED with reason RESPONSE_TOO_LARGE,
    before the views that would not fit are made: 32 views of this 280 KB state would
    be 9 MB. With the views that fit, it is answered."""
    limit = 1 << 20
    referee = Referee(all_codecs(), Limits(max_response_bytes=limit))
    state = gallery_state(40_000)
    assert state.ByteSize() > LARGE_STATE_BYTES
    wager = pb.Action(
        actor=common_pb2.Actor(spectator="t"),
        ecarte=ecarte_pb2.EcarteAction(wager=ecarte_pb2.EcartePlaceWager(seat=1, amount=2)),
    )
    views = [common_pb2.Viewer(spectator=f"v{i}") for i in range(DEFAULT_MAX_VIEWS)]
    request = pb.ApplyActionRequest(state=state, action=wager, views=views)
    one_view = REFEREE.view_state(pb.ViewStateRequest(state=state, viewer=views[0])).view
    with pytest.raises(RequestError) as caught:
        referee.apply_action(request)
    error = caught.value
    assert (error.code, error.reason) == (grpc.StatusCode.RESOURCE_EXHAUSTED, "RESPONSE_TOO_LARGE")
    assert error.metadata["limit_bytes"] == str(limit)
    # Refused as it went over: what was made is the limit and a view at most.
    made = int(error.metadata["response_bytes"])
    assert limit < made < limit + one_view.ByteSize() + 64, made
    assert "ask for fewer views" in error.message
    del request.views[2:]
    answer = referee.apply_action(request)  # the state and two views: 840 KB
    assert len(answer.views) == 2 and answer.ByteSize() <= limit
    # The server's own default is no limit in-process: the whole answer is made.
    assert REFEREE.apply_action(request).ByteSize() == answer.ByteSize()


def test_a_view_of_a_large_state_over_the_limit_is_refused() -> None:
    state = gallery_state(150_000)  # 1.05 MB, its view a little more
    request = pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(spectator="v"))
    size = REFEREE.view_state(request).ByteSize()
    referee = Referee(all_codecs(), Limits(max_response_bytes=size - 1))
    with pytest.raises(RequestError) as caught:
        referee.view_state(request)
    assert caught.value.reason == "RESPONSE_TOO_LARGE"
    assert caught.value.metadata == {"response_bytes": str(size), "limit_bytes": str(size - 1)}
    referee.limits = Limits(max_response_bytes=size)
    assert referee.view_state(request).ByteSize() == size


def test_under_the_large_state_size_every_answer_fits_the_least_message_limit() -> None:
    """Why states up to LARGE_STATE_BYTES need no sizing: an Écarté gallery state just
    under it (wagers of spectators with the longest ids, in 4-byte characters) answered
    with the most views of the longest viewers is still under 1 MiB, the least
    --max-message-bytes (every other state of either game is under 2 KB)."""
    from referee.server import MIN_MESSAGE_BYTES

    longest = "\U0001f0a1" * 128
    state = gallery_state(0)
    while state.ByteSize() + 600 < LARGE_STATE_BYTES:
        state.ecarte.wagers.add(spectator=longest, seat=0, amount=100)
    size = len(state.SerializeToString(deterministic=True))
    assert LARGE_STATE_BYTES - 600 <= size <= LARGE_STATE_BYTES  # sized from one byte more
    wager = pb.Action(
        actor=common_pb2.Actor(spectator=longest),
        ecarte=ecarte_pb2.EcarteAction(wager=ecarte_pb2.EcartePlaceWager(seat=1, amount=100)),
    )
    views = [common_pb2.Viewer(spectator=f"{i:02d}" + longest[2:]) for i in range(30)]
    views += [common_pb2.Viewer(seat=0), common_pb2.Viewer(public=common_pb2.PublicViewer())]
    request = pb.ApplyActionRequest(state=state, action=wager, views=views)
    answer = Referee(all_codecs(), Limits(max_response_bytes=MIN_MESSAGE_BYTES))
    assert answer.apply_action(request).ByteSize() < MIN_MESSAGE_BYTES * 3 // 4
