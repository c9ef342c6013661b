"""Every RPC of referee.v1.RefereeService over a real server (port 0)."""

from __future__ import annotations

import hashlib
from typing import Any

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.cards import card_list
from referee.v1 import (
    cards_pb2,
    common_pb2,
    referee_pb2_grpc,
)
from referee.v1 import (
    earl_of_coventry_pb2 as eoc,
)
from referee.v1 import (
    referee_pb2 as pb,
)

from ..status_details import error_info

SEED = bytes(range(32))
Stub = referee_pb2_grpc.RefereeServiceStub


def earl_config(**options: object) -> pb.GameConfig:
    return pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(**options))  # type: ignore[arg-type]


def new_game(stub: Stub, seed: bytes = SEED, **options: object) -> pb.NewGameResponse:
    return stub.NewGame(pb.NewGameRequest(config=earl_config(**options), seed=seed))


def bad_request(err: grpc.RpcError) -> list[tuple[str, str]]:
    """The (field, description) pairs of the BadRequest detail of an error."""
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, "the error carries a google.rpc.Status"
    out = []
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            br = error_details_pb2.BadRequest()
            detail.Unpack(br)
            out.extend((v.field, v.description) for v in br.field_violations)
    return out


def expect_invalid(call: object, field_prefix: str) -> list[tuple[str, str]]:
    with pytest.raises(grpc.RpcError) as info:
        call()  # type: ignore[operator]
    err = info.value
    assert err.code() == grpc.StatusCode.INVALID_ARGUMENT, err.details()
    fields = bad_request(err)
    assert fields, "INVALID_ARGUMENT carries BadRequest field violations"
    assert any(f.startswith(field_prefix) for f, _ in fields), fields
    return fields


def play(seat: int, card: cards_pb2.Card, call: str = "") -> pb.Action:
    return pb.Action(
        actor=common_pb2.Actor(seat=seat),
        earl_of_coventry=eoc.EarlOfCoventryAction(
            play=eoc.EarlOfCoventryPlay(card=card, call=call)
        ),
    )


# ---------------------------------------------------------------- ListGames


def test_list_games_describes_earl_of_coventry(stub: Stub) -> None:
    games = {g.id: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    earl = games["earl_of_coventry"]
    assert earl.rules_version == "earl_of_coventry/1"
    assert earl.rules_document.endswith(".md")
    assert (earl.min_seats, earl.max_seats) == (2, 13)
    options = {o.name: o for o in earl.options}
    assert options["seats"].default_value == "4"
    assert (options["seats"].min, options["seats"].max) == (2, 13)
    assert options["scoring"].type == pb.OPTION_TYPE_ENUM
    assert "EARL_OF_COVENTRY_SCORING_ELIMINATION" in options["scoring"].choices
    # Every option is a field of the configuration message.
    fields = set(eoc.EarlOfCoventryConfig.DESCRIPTOR.fields_by_name)
    assert set(options) <= fields
    assert {v.rule_id for v in earl.variants} >= {f"C-VAR-{i}" for i in range(1, 8)}


# ---------------------------------------------------------------- NewGame


def test_new_game_is_deterministic_for_a_seed(stub: Stub) -> None:
    a, b = new_game(stub), new_game(stub)
    assert a.state_hash == b.state_hash
    assert a.state.SerializeToString(deterministic=True) == b.state.SerializeToString(
        deterministic=True
    )
    assert a.state_hash == hashlib.sha256(a.state.SerializeToString(deterministic=True)).digest()
    assert a.seed_commitment == hashlib.sha256(SEED).digest()
    assert a.state.version == 0 and not a.state.parent_hash
    assert a.state.rules_version == "earl_of_coventry/1"


def test_new_game_draws_a_random_seed_when_none_given(stub: Stub) -> None:
    a = stub.NewGame(pb.NewGameRequest(config=earl_config()))
    b = stub.NewGame(pb.NewGameRequest(config=earl_config()))
    assert len(a.state.seed) == 32 and a.state.seed != b.state.seed
    assert a.seed_commitment == hashlib.sha256(a.state.seed).digest()


def test_new_game_deals_the_whole_pack_and_reports_the_cut(stub: Stub) -> None:
    r = new_game(stub, seats=5)
    seats = r.state.earl_of_coventry.seats
    assert sorted(c for s in seats for c in card_list(s.hand)) == list(range(52))
    assert sorted(s.hand.bit_count() for s in seats) == [10, 10, 10, 11, 11]
    kinds = [e.earl_of_coventry.WhichOneof("kind") for e in r.events]
    assert kinds == ["dealer_cut", "round_dealt"]
    assert r.scoreboard.seats[0].cards_in_hand == seats[0].hand.bit_count()


def test_new_game_views_show_own_hand_only_and_no_seed(stub: Stub) -> None:
    r = stub.NewGame(
        pb.NewGameRequest(
            config=earl_config(seats=3),
            seed=SEED,
            views=[common_pb2.Viewer(seat=1), common_pb2.Viewer(public=common_pb2.PublicViewer())],
        )
    )
    seat_view, public_view = r.views
    own = seat_view.earl_of_coventry.seats[1]
    assert own.hand_visible and len(own.hand) == own.card_count > 0
    others = [s for s in seat_view.earl_of_coventry.seats if s.seat != 1]
    assert all(not s.hand and not s.hand_visible and s.card_count for s in others)
    assert all(not s.hand for s in public_view.earl_of_coventry.seats)
    for view in r.views:
        assert not view.seed and view.seed_commitment == hashlib.sha256(SEED).digest()
        assert SEED not in view.SerializeToString()


@pytest.mark.parametrize(
    ("request_", "field"),
    [
        (pb.NewGameRequest(), "config"),
        (pb.NewGameRequest(config=earl_config(), seed=b"short"), "seed"),
        (pb.NewGameRequest(config=earl_config(seats=14)), "config.earl_of_coventry.seats"),
        (pb.NewGameRequest(config=earl_config(seats=1)), "config.earl_of_coventry.seats"),
        (
            pb.NewGameRequest(config=earl_config(first_dealer=4)),
            "config.earl_of_coventry.first_dealer",
        ),
        (
            pb.NewGameRequest(config=earl_config(call_style=9)),
            "config.earl_of_coventry.call_style",
        ),
        (
            pb.NewGameRequest(config=earl_config(call_style=4)),
            "config.earl_of_coventry.couplet_templates",
        ),
        (
            pb.NewGameRequest(config=earl_config(starting_counters=2_000_000)),
            "config.earl_of_coventry.starting_counters",
        ),
        (pb.NewGameRequest(config=earl_config(), views=[common_pb2.Viewer(seat=7)]), "views[0]"),
        (pb.NewGameRequest(config=earl_config(), views=[common_pb2.Viewer()]), "views[0]"),
        (
            pb.NewGameRequest(config=earl_config(seats=2), seat_entropy=[b"a", b"b", b"c"]),
            "seat_entropy",
        ),
    ],
)
def test_new_game_refuses_malformed_requests(
    stub: Stub, request_: pb.NewGameRequest, field: str
) -> None:
    expect_invalid(lambda: stub.NewGame(request_), field)


# ---------------------------------------------------------------- ApplyAction / LegalActions


def test_legal_actions_are_complete_and_all_accepted(stub: Stub) -> None:
    state = new_game(stub).state
    actions = stub.LegalActions(pb.LegalActionsRequest(state=state)).actions
    assert actions
    turn = state.earl_of_coventry.turn
    for action in actions:
        assert action.actor.seat == turn
        p = action.earl_of_coventry.play
        assert p.call.startswith("There's as good as ") and p.call.endswith(" can be.")
        r = stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action))
        assert r.verdict == common_pb2.VERDICT_ACCEPTED, r.violations


def test_apply_chains_versions_and_hashes(stub: Stub) -> None:
    first = new_game(stub)
    action = stub.LegalActions(pb.LegalActionsRequest(state=first.state)).actions[0]
    r = stub.ApplyAction(pb.ApplyActionRequest(state=first.state, action=action))
    assert r.state.version == 1
    assert r.state.parent_hash == first.state_hash
    assert r.state_hash == hashlib.sha256(r.state.SerializeToString(deterministic=True)).digest()
    assert r.events[0].earl_of_coventry.WhichOneof("kind") == "card_played"


def test_rejected_action_leaves_the_state_unchanged(stub: Stub) -> None:
    first = new_game(stub)
    s = first.state.earl_of_coventry
    other = (s.turn + 1) % 4
    card = card_list(s.seats[other].hand)[0]
    action = play(other, cards_pb2.Card(suit=card // 13 + 1, rank=card % 13 + 1), "x")
    r = stub.ApplyAction(pb.ApplyActionRequest(state=first.state, action=action))
    assert r.verdict == common_pb2.VERDICT_REJECTED
    codes = {(v.code, v.rule_id) for v in r.violations}
    assert ("NOT_YOUR_TURN", "C-ILL-1") in codes
    assert r.state == first.state and r.state_hash == first.state_hash
    assert not r.events


def test_botched_couplet_is_penalized(stub: Stub) -> None:
    first = new_game(stub)
    action = stub.LegalActions(pb.LegalActionsRequest(state=first.state)).actions[0]
    action.earl_of_coventry.play.call = "There is as good as nothing can be"
    r = stub.ApplyAction(pb.ApplyActionRequest(state=first.state, action=action))
    assert r.verdict == common_pb2.VERDICT_PENALIZED
    assert [(v.code, v.rule_id) for v in r.violations] == [("COUPLET_BOTCHED", "C-CHANT-3")]
    kinds = [e.earl_of_coventry.WhichOneof("kind") for e in r.events]
    assert kinds == ["couplet_botched", "lead_passed"]
    assert r.state.version == 1


def test_a_whole_session_through_legal_actions_and_apply(stub: Stub) -> None:
    """A client that only uses LegalActions + ApplyAction plays rounds to the end."""
    state = new_game(stub, seats=3, scoring=eoc.EARL_OF_COVENTRY_SCORING_COUNTERS).state
    rounds = 0
    for _ in range(5000):
        actions = stub.LegalActions(pb.LegalActionsRequest(state=state)).actions
        if not actions:
            break
        action = actions[0]
        if action.actor.HasField("table"):
            rounds += 1
            # Two rounds, then end the session.
            kind = "next_round" if rounds < 2 else "end_session"
            action = next(a for a in actions if a.earl_of_coventry.WhichOneof("kind") == kind)
        r = stub.ApplyAction(
            pb.ApplyActionRequest(state=state, action=action, views=[common_pb2.Viewer(seat=0)])
        )
        assert r.verdict == common_pb2.VERDICT_ACCEPTED, r.violations
        state = r.state
    s = state.earl_of_coventry
    assert s.phase == eoc.EARL_OF_COVENTRY_PHASE_SESSION_OVER
    final = stub.ViewState(pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=0)))
    assert final.scoreboard.finished and list(final.scoreboard.winners) == list(s.winners)
    assert final.view.seed == SEED  # SHUF-5: revealed once the session is over
    assert sum(x.counters for x in s.seats) == 3 * 20


def test_the_final_view_alone_re_derives_the_deals_of_a_game_with_seat_entropy(
    stub: Stub,
) -> None:
    """SHUF-5: once the session is over, views show the seed and, for a game whose deals
    mixed in the seats' entropy, that entropy too (before, neither): so a seat's client
    re-derives every deal from its own view. Here: the seed the shuffles used is
    SHA-256("referee-seed-v1" ...) of the two (docs/api.md#seeds), and a new game from
    it deals the same first hands."""
    from referee.seeds import effective_seed

    entropy = [b"seat zero's entropy", b"", b"seat two's"]
    seat0 = common_pb2.Viewer(seat=0)
    first = stub.NewGame(
        pb.NewGameRequest(
            config=earl_config(seats=3), seed=SEED, seat_entropy=entropy, views=[seat0]
        )
    )
    assert (first.views[0].seed, list(first.views[0].seat_entropy)) == (b"", [])
    state = first.state
    while state.earl_of_coventry.phase != eoc.EARL_OF_COVENTRY_PHASE_SESSION_OVER:
        actions = stub.LegalActions(pb.LegalActionsRequest(state=state)).actions
        ended = [a for a in actions if a.earl_of_coventry.WhichOneof("kind") == "end_session"]
        reply = stub.ApplyAction(
            pb.ApplyActionRequest(state=state, action=(ended or actions)[0], views=[seat0])
        )
        assert reply.verdict == common_pb2.VERDICT_ACCEPTED, reply.violations
        over = reply.state.earl_of_coventry.phase == eoc.EARL_OF_COVENTRY_PHASE_SESSION_OVER
        view = reply.views[0]
        assert (view.seed, list(view.seat_entropy)) == ((SEED, entropy) if over else (b"", []))
        state = reply.state
    final = stub.ViewState(pb.ViewStateRequest(state=state, viewer=seat0)).view
    assert (final.seed, list(final.seat_entropy)) == (SEED, entropy)
    again = stub.NewGame(
        pb.NewGameRequest(
            config=earl_config(seats=3), seed=effective_seed(final.seed, final.seat_entropy)
        )
    )
    hands = [s.hand for s in first.state.earl_of_coventry.seats]
    assert [s.hand for s in again.state.earl_of_coventry.seats] == hands
    plain = stub.NewGame(pb.NewGameRequest(config=earl_config(seats=3), seed=final.seed))
    assert [s.hand for s in plain.state.earl_of_coventry.seats] != hands  # the seed alone


def test_legal_actions_for_an_actor_not_on_turn_is_empty(stub: Stub) -> None:
    state = new_game(stub).state
    other = (state.earl_of_coventry.turn + 1) % 4
    r = stub.LegalActions(pb.LegalActionsRequest(state=state, actor=common_pb2.Actor(seat=other)))
    assert not r.actions
    table = stub.LegalActions(
        pb.LegalActionsRequest(state=state, actor=common_pb2.Actor(table=common_pb2.TableActor()))
    )
    assert not table.actions


# ---------------------------------------------------------------- malformed states


def mutated(state: pb.GameState, change: object) -> pb.GameState:
    copy = pb.GameState()
    copy.CopyFrom(state)
    change(copy.earl_of_coventry)  # type: ignore[operator]
    return copy


def _swap_first_card(s: eoc.EarlOfCoventryState) -> None:
    h0, h1 = s.seats[0].hand, s.seats[1].hand
    s.seats[0].hand = (h0 & (h0 - 1)) | (h1 & -h1)  # seat 1's lowest card twice


def _drop_card(s: eoc.EarlOfCoventryState) -> None:
    s.seats[0].hand &= s.seats[0].hand - 1  # a card gone


def _move_card(s: eoc.EarlOfCoventryState) -> None:
    low = s.seats[1].hand & -s.seats[1].hand
    s.seats[0].hand |= low  # one card more than seat 0 was dealt
    s.seats[1].hand &= ~low


def _turn_to_seat_without_rank(s: eoc.EarlOfCoventryState) -> None:
    s.run_length = 1
    s.current_rank = s.played[-1] % 13 + 1 if s.played else 1


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (_swap_first_card, "state.earl_of_coventry.seats"),
        (_drop_card, "state.earl_of_coventry.seats"),
        (_move_card, "state.earl_of_coventry.seats[0].hand"),
        (lambda s: setattr(s, "turn", 9), "state.earl_of_coventry.turn"),
        # At the first lead, turn moved off the eldest (whom last_player names).
        (lambda s: setattr(s, "turn", (s.turn + 1) % 4), "state.earl_of_coventry.turn"),
        (lambda s: setattr(s, "phase", 7), "state.earl_of_coventry.phase"),
        (lambda s: setattr(s, "current_rank", 40), "state.earl_of_coventry.current_rank"),
        (lambda s: s.seats.pop(), "state.earl_of_coventry.seats"),
        (lambda s: setattr(s.config, "seats", 20), "state.earl_of_coventry.config.seats"),
        (lambda s: setattr(s.seats[0], "hand", 1 << 60), "state.earl_of_coventry.seats[0].hand"),
        (_turn_to_seat_without_rank, "state.earl_of_coventry"),
        (lambda s: setattr(s.seats[2], "counters", 5), "state.earl_of_coventry.seats"),
    ],
)
def test_impossible_states_are_invalid_argument(stub: Stub, change: object, field: str) -> None:
    state = mutated(new_game(stub).state, change)
    action = stub.LegalActions(pb.LegalActionsRequest(state=new_game(stub).state)).actions[0]
    for call in (
        lambda: stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action)),
        lambda: stub.LegalActions(pb.LegalActionsRequest(state=state)),
        lambda: stub.ViewState(pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=0))),
    ):
        expect_invalid(call, field)


@pytest.mark.parametrize(
    ("action", "field"),
    [
        (pb.Action(), "action"),
        (pb.Action(actor=common_pb2.Actor(seat=0)), "action"),
        (pb.Action(earl_of_coventry=eoc.EarlOfCoventryAction(next_round={})), "action.actor"),
        (play(9, cards_pb2.Card(suit=1, rank=1)), "action.actor.seat"),
        (play(0, cards_pb2.Card(suit=0, rank=1)), "action.earl_of_coventry.play.card.suit"),
        (play(0, cards_pb2.Card(suit=1, rank=14)), "action.earl_of_coventry.play.card.rank"),
        (play(0, cards_pb2.Card(suit=1, rank=1), "x" * 5000), "action.earl_of_coventry.play.call"),
        (
            pb.Action(
                actor=common_pb2.Actor(spectator="bob"),
                earl_of_coventry=eoc.EarlOfCoventryAction(next_round={}),
            ),
            "action.actor.spectator",
        ),
        (
            pb.Action(actor=common_pb2.Actor(seat=0), earl_of_coventry=eoc.EarlOfCoventryAction()),
            "action.earl_of_coventry",
        ),
    ],
)
def test_malformed_actions_are_invalid_argument(stub: Stub, action: pb.Action, field: str) -> None:
    state = new_game(stub).state
    expect_invalid(
        lambda: stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action)), field
    )


def test_an_action_of_no_game_says_so(stub: Stub) -> None:
    state = new_game(stub).state
    action = pb.Action(actor=common_pb2.Actor(seat=0))
    fields = expect_invalid(
        lambda: stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action)), "action"
    )
    assert fields == [("action", "must be an action of earl_of_coventry (found no game)")]


def test_missing_state_is_invalid_argument(stub: Stub) -> None:
    expect_invalid(lambda: stub.LegalActions(pb.LegalActionsRequest()), "state")


def test_unknown_rules_version_is_failed_precondition(stub: Stub) -> None:
    state = new_game(stub).state
    state.rules_version = "earl_of_coventry/99"
    with pytest.raises(grpc.RpcError) as info:
        stub.LegalActions(pb.LegalActionsRequest(state=state))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "earl_of_coventry/1" in info.value.details()


def test_a_replay_runs_under_the_rules_version_it_names_or_not_at_all(stub: Stub) -> None:
    """A stored GameLog names its rules version: Replay with it judges by those rules,
    and a server that does not serve it says so (RULES_VERSION_UNSUPPORTED) instead of
    replaying under the version it serves now (docs/api.md, rules versions)."""
    config = earl_config(seats=3)
    state = new_game(stub).state
    actions = [stub.LegalActions(pb.LegalActionsRequest(state=state)).actions[0]]
    plain = stub.Replay(pb.ReplayRequest(config=config, seed=SEED, actions=actions))
    named = stub.Replay(
        pb.ReplayRequest(
            config=config, seed=SEED, actions=actions, rules_version=state.rules_version
        )
    )
    assert named == plain and named.final_state.rules_version == "earl_of_coventry/1"
    with pytest.raises(grpc.RpcError) as info:
        stub.Replay(
            pb.ReplayRequest(
                config=config, seed=SEED, actions=actions, rules_version="earl_of_coventry/2"
            )
        )
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    detail = error_info(info.value)
    assert detail.reason == "RULES_VERSION_UNSUPPORTED"
    assert dict(detail.metadata) == {"rules_version": "earl_of_coventry/2"}
    fields = expect_invalid(
        lambda: stub.Replay(
            pb.ReplayRequest(config=config, seed=SEED, actions=actions, rules_version="ecarte/1")
        ),
        "rules_version",
    )
    assert fields == [("rules_version", "must be a version of earl_of_coventry")]


# ---------------------------------------------------------------- ViewState / Replay


def test_view_state_for_every_kind_of_viewer(stub: Stub) -> None:
    state = new_game(stub, seats=4).state
    for viewer, visible in (
        (common_pb2.Viewer(seat=2), {2}),
        (common_pb2.Viewer(public=common_pb2.PublicViewer()), set()),
        (common_pb2.Viewer(spectator="ann"), set()),
    ):
        r = stub.ViewState(pb.ViewStateRequest(state=state, viewer=viewer))
        shown = {s.seat for s in r.view.earl_of_coventry.seats if s.hand}
        assert shown == visible
        assert not r.view.seed
        assert r.state_hash == hashlib.sha256(state.SerializeToString(deterministic=True)).digest()
    expect_invalid(lambda: stub.ViewState(pb.ViewStateRequest(state=state)), "viewer")


def test_open_hands_view_shows_every_hand(stub: Stub) -> None:
    state = new_game(stub, open_hands=True).state
    r = stub.ViewState(
        pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(public=common_pb2.PublicViewer()))
    )
    assert all(s.hand_visible and len(s.hand) == 13 for s in r.view.earl_of_coventry.seats)


def test_replay_matches_step_by_step_play(stub: Stub) -> None:
    first = new_game(stub, seats=3)
    state, hashes, actions = first.state, [], []
    for i in range(40):
        action = stub.LegalActions(pb.LegalActionsRequest(state=state)).actions[-1]
        if i == 5:  # one rejected action in the log: a seat not on turn
            bad = pb.Action()
            bad.CopyFrom(action)
            bad.actor.seat = (bad.actor.seat + 1) % 3
            r = stub.ApplyAction(pb.ApplyActionRequest(state=state, action=bad))
            assert r.verdict == common_pb2.VERDICT_REJECTED
            actions.append(bad)
            hashes.append(r.state_hash)
        r = stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action))
        actions.append(action)
        hashes.append(r.state_hash)
        state = r.state
        if r.scoreboard.finished or not stub.LegalActions(
            pb.LegalActionsRequest(state=state)
        ).actions[0].actor.HasField("seat"):
            break
    replay = stub.Replay(
        pb.ReplayRequest(
            config=earl_config(seats=3), seed=SEED, actions=actions, include_events=True
        )
    )
    assert replay.initial_hash == first.state_hash
    assert [s.state_hash for s in replay.steps] == hashes
    assert replay.final_hash == hashes[-1]
    assert replay.final_state == state
    assert replay.steps[5].verdict == common_pb2.VERDICT_REJECTED
    assert replay.steps[0].events


def test_replay_refuses_a_missing_seed_and_bad_actions(stub: Stub) -> None:
    expect_invalid(lambda: stub.Replay(pb.ReplayRequest(config=earl_config())), "seed")
    expect_invalid(
        lambda: stub.Replay(
            pb.ReplayRequest(config=earl_config(), seed=SEED, actions=[pb.Action()])
        ),
        "actions[0]",
    )


def test_request_id_is_returned(channel: grpc.Channel) -> None:
    stub = referee_pb2_grpc.RefereeServiceStub(channel)
    _, call = stub.ListGames.with_call(pb.ListGamesRequest(), metadata=(("x-request-id", "abc-1"),))
    assert ("x-request-id", "abc-1") in tuple(call.trailing_metadata())
    _, call = stub.ListGames.with_call(pb.ListGamesRequest())
    made = dict(call.trailing_metadata())["x-request-id"]
    assert len(made) == 32


def test_an_unknown_method_has_no_request_id(channel: grpc.Channel) -> None:
    """gRPC answers a method the server does not have before the server sees the call:
    no request id (docs/api.md says so)."""
    nope = channel.unary_unary(
        "/referee.v1.RefereeService/Nope",
        request_serializer=lambda b: b,
        response_deserializer=lambda b: b,
    )
    with pytest.raises(grpc.RpcError) as caught:
        nope(b"", metadata=(("x-request-id", "abc-2"),))
    err: Any = caught.value
    assert err.code() == grpc.StatusCode.UNIMPLEMENTED
    assert "x-request-id" not in dict(err.trailing_metadata() or ())


def test_scenarios_hold_over_the_wire(stub: Stub) -> None:
    """The scenario files give the same results through a real server."""
    from pathlib import Path

    from referee import scenarios

    paths = sorted((Path(__file__).parents[1] / "scenarios").rglob("*.json"))
    results = scenarios.run_files(paths, stub)
    assert results and all(r.ok for r in results), [r.failures for r in results]
