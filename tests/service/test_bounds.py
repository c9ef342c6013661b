"""The servicer's own checks at their bounds (in-process Referee): state versions, seat
entropy, views per request, viewer seats. Each bound is tried at its last accepted
value and one past it."""

from __future__ import annotations

import pytest

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.seeds import MAX_ENTROPY_BYTES
from referee.service import DEFAULT_MAX_VIEWS, LAST_VERSION, MAX_SEATS, Limits, Referee
from referee.v1 import common_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

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
    for module in ("service.py", "calls.py", "server.py", "threaded.py", "auth.py"):
        given |= set(re.findall(r'reason="([A-Z_]+)"', (root / "referee" / module).read_text()))
    assert "RULES_VERSION_UNSUPPORTED" in given and "REQUEST_MALFORMED" in given
    errors = (root / "docs" / "api.md").read_text().split("## Errors", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"reason `([A-Z_]+)`", errors))
    documented |= set(re.findall(r"`(STATE_SEAL_[A-Z_]+)`", errors))
    assert given == documented
