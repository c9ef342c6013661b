"""Écarté through every RPC of a real server (port 0)."""

from __future__ import annotations

import hashlib

import grpc
import pytest

from referee.cards import card_list
from referee.v1 import cards_pb2, common_pb2, referee_pb2_grpc
from referee.v1 import ecarte_pb2 as epb
from referee.v1 import referee_pb2 as pb
from tests.service.test_service import expect_invalid

SEED = bytes(range(32))
Stub = referee_pb2_grpc.RefereeServiceStub


def config(**options: object) -> pb.GameConfig:
    return pb.GameConfig(ecarte=epb.EcarteConfig(**options))  # type: ignore[arg-type]


def new_game(stub: Stub, seed: bytes = SEED, **options: object) -> pb.NewGameResponse:
    response: pb.NewGameResponse = stub.NewGame(
        pb.NewGameRequest(config=config(**options), seed=seed)
    )
    return response


def legal(
    stub: Stub, state: pb.GameState, actor: common_pb2.Actor | None = None
) -> list[pb.Action]:
    request = pb.LegalActionsRequest(state=state)
    if actor is not None:
        request.actor.CopyFrom(actor)
    return list(stub.LegalActions(request).actions)


def test_list_games_describes_ecarte(stub: Stub) -> None:
    games = {g.id: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    ecarte = games["ecarte"]
    assert ecarte.rules_version == "ecarte/1"
    assert ecarte.rules_document == "docs/rules/ecarte.md"
    assert (ecarte.min_seats, ecarte.max_seats) == (2, 3)
    options = {o.name: o for o in ecarte.options}
    assert set(options) == set(epb.EcarteConfig.DESCRIPTOR.fields_by_name)
    assert options["target_points"].default_value == "5"
    assert (options["target_points"].min, options["target_points"].max) == (1, 99)
    assert options["packets"].type == pb.OPTION_TYPE_ENUM
    assert {v.rule_id for v in ecarte.variants} >= {f"E-VAR-{i}" for i in range(1, 7)}


def test_new_game_is_deterministic_and_hides_the_hands(stub: Stub) -> None:
    a, b = new_game(stub), new_game(stub)
    assert (
        a.state_hash
        == b.state_hash
        == hashlib.sha256(a.state.SerializeToString(deterministic=True)).digest()
    )
    assert a.state.rules_version == "ecarte/1"
    s = a.state.ecarte
    every = sorted([c for x in s.seats for c in card_list(x.hand)] + [s.turn_up, *s.stock])
    assert len(every) == 32 and len(set(every)) == 32
    kinds = [e.ecarte.WhichOneof("kind") for e in a.events]
    assert kinds[:2] == ["dealer_cut", "dealt"]
    dealt = a.events[1].ecarte.dealt
    assert all(not h.cards and h.card_count == 5 for h in dealt.hands)  # public: counts only
    r = stub.NewGame(
        pb.NewGameRequest(
            config=config(),
            seed=SEED,
            views=[common_pb2.Viewer(seat=0), common_pb2.Viewer(spectator="ann")],
        )
    )
    seat_view, spectator_view = r.views
    own = seat_view.ecarte.seats[0]
    assert own.hand_visible and len(own.hand) == 5
    assert not seat_view.ecarte.seats[1].hand and seat_view.ecarte.seats[1].card_count == 5
    assert all(not x.hand for x in spectator_view.ecarte.seats)
    assert spectator_view.ecarte.stock_count == 21
    (dealt_view,) = [e for e in seat_view.events if e.ecarte.WhichOneof("kind") == "dealt"]
    assert len(dealt_view.ecarte.dealt.hands[0].cards) == 5
    assert not dealt_view.ecarte.dealt.hands[1].cards


def test_rejections_are_verdicts_with_rule_ids(stub: Stub) -> None:
    first = new_game(stub, first_dealer=0)
    # The dealer (seat 0) may not propose: the elder (seat 1) acts first.
    action = pb.Action(
        actor=common_pb2.Actor(seat=0), ecarte=epb.EcarteAction(propose=epb.EcartePropose())
    )
    r = stub.ApplyAction(pb.ApplyActionRequest(state=first.state, action=action))
    assert r.verdict == common_pb2.VERDICT_REJECTED
    assert [(v.code, v.rule_id) for v in r.violations] == [("NOT_YOUR_TURN", "E-TURN")]
    assert r.state == first.state and r.state_hash == first.state_hash and not r.events


def test_a_whole_match_through_legal_actions_and_apply(stub: Stub) -> None:
    """A client that only uses LegalActions + ApplyAction plays a match to its end."""
    state = new_game(stub, games_to_win=2, target_points=3, stake=2).state
    for steps in range(5000):
        actions = legal(stub, state)
        if not actions:
            break
        action = actions[steps % len(actions)]
        r = stub.ApplyAction(
            pb.ApplyActionRequest(state=state, action=action, views=[common_pb2.Viewer(seat=0)])
        )
        assert r.verdict == common_pb2.VERDICT_ACCEPTED, r.violations
        assert r.state.parent_hash and r.state.version == state.version + 1
        state = r.state
    s = state.ecarte
    assert s.phase == epb.ECARTE_PHASE_MATCH_OVER
    final = stub.ViewState(pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=1)))
    board = final.scoreboard
    assert board.finished and len(board.winners) == 1
    assert board.seats[board.winners[0]].games_won == 2
    assert sum(x.chips for x in s.seats) == 0
    assert final.view.seed == SEED  # SHUF-5: revealed once the match is over
    assert final.view.ecarte.winner == board.winners[0]


def test_spectators_wager_through_the_service(stub: Stub) -> None:
    state = new_game(stub, gallery=True, wager_limit=20).state
    spectator = common_pb2.Actor(spectator="ann")
    (w0, w1) = legal(stub, state, spectator)
    assert (w0.ecarte.wager.seat, w0.ecarte.wager.amount, w0.ecarte.wager.amount_max) == (0, 1, 20)
    w1.ecarte.wager.amount = 20
    r = stub.ApplyAction(pb.ApplyActionRequest(state=state, action=w1))
    assert r.verdict == common_pb2.VERDICT_ACCEPTED
    assert [(x.spectator, x.open_wagers) for x in r.scoreboard.spectators] == [("ann", 20)]
    w1.ecarte.wager.amount = 21
    r2 = stub.ApplyAction(pb.ApplyActionRequest(state=r.state, action=w1))
    assert [(v.code, v.rule_id) for v in r2.violations] == [("WAGER_OVER_LIMIT", "E-VAR-4")]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (
            lambda s: s.seats[0].__setattr__("hand", s.seats[0].hand | 1 << 1),
            "state.ecarte.seats[0].hand",
        ),
        (lambda s: s.__setattr__("stock", s.stock[1:]), "state.ecarte.seats"),
        (lambda s: s.__setattr__("trump", (s.trump % 4) + 1), "state.ecarte.trump"),
        (lambda s: s.config.__setattr__("target_points", 100), "state.ecarte.config.target_points"),
        (lambda s: s.__setattr__("turn", 7), "state.ecarte.turn"),
    ],
)
def test_impossible_states_are_invalid_argument(stub: Stub, change: object, field: str) -> None:
    state = new_game(stub).state
    change(state.ecarte)  # type: ignore[operator]
    expect_invalid(lambda: stub.LegalActions(pb.LegalActionsRequest(state=state)), field)


def test_malformed_actions_are_invalid_argument(stub: Stub) -> None:
    state = new_game(stub).state
    action = pb.Action(
        actor=common_pb2.Actor(seat=0),
        ecarte=epb.EcarteAction(discard=epb.EcarteDiscard(cards=[state_card(), state_card()])),
    )
    expect_invalid(
        lambda: stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action)),
        "action.ecarte.discard.cards[1]",
    )
    expect_invalid(
        lambda: stub.NewGame(pb.NewGameRequest(config=config(seats=4))), "config.ecarte.seats"
    )


def state_card() -> cards_pb2.Card:
    return cards_pb2.Card(suit=cards_pb2.SUIT_HEARTS, rank=cards_pb2.RANK_KING)


def test_replay_matches_step_by_step_play(stub: Stub) -> None:
    first = new_game(stub, seats=3, first_dealer=2)
    state, actions = first.state, []
    for i in range(40):
        options = legal(stub, state)
        action = options[i % len(options)]
        actions.append(action)
        state = stub.ApplyAction(pb.ApplyActionRequest(state=state, action=action)).state
    replay = stub.Replay(
        pb.ReplayRequest(config=config(seats=3, first_dealer=2), seed=SEED, actions=actions)
    )
    assert replay.final_state == state
    assert all(step.verdict == common_pb2.VERDICT_ACCEPTED for step in replay.steps)


def test_rules_version_mismatch(stub: Stub) -> None:
    state = new_game(stub).state
    state.rules_version = "ecarte/0"
    with pytest.raises(grpc.RpcError) as info:
        stub.LegalActions(pb.LegalActionsRequest(state=state))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
