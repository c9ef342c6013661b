"""referee.client against a real server: every RPC, errors, retries, deadlines, sealed states."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
import threading
from concurrent import futures
from typing import Any

import grpc
import pytest

from referee.bots import EagerBot, RandomBot, TablePolicy, action_kind
from referee.client import (
    PUBLIC,
    TABLE,
    AsyncClient,
    Client,
    Credentials,
    GameHandle,
    RefereeError,
    config,
    seat,
    seat_actor,
)
from referee.tabletop import GameError, run_game
from referee.v1 import common_pb2, ecarte_pb2, referee_pb2, referee_pb2_grpc

from ..server_thread import ServerThread

SEED = bytes(range(32))


def test_every_served_game_plays_to_its_end(client: Client, served_games: list[str]) -> None:
    for game in served_games:
        out = io.StringIO()
        played = run_game(client, config(game), seed=SEED, bot_for=lambda s: EagerBot(s), out=out)
        assert played.game.finished, out.getvalue()
        assert played.game.scoreboard.winners
        assert played.seed == SEED
        assert "matches the commitment" in out.getvalue()


def test_earl_of_coventry_session_of_several_rounds(client: Client) -> None:
    out = io.StringIO()
    played = run_game(
        client,
        config("earl_of_coventry", seats=5, scoring="EARL_OF_COVENTRY_SCORING_COUNTERS"),
        seed=SEED,
        bot_for=lambda s: RandomBot(s),
        rounds=3,
        out=out,
    )
    assert played.game.state is not None
    s = played.game.state.earl_of_coventry
    assert s.round >= 2 and sum(x.counters for x in s.seats) == 100
    assert out.getvalue().count("the table: next round") == 2


def test_ecarte_matches_play_to_their_end(client: Client) -> None:
    for options, games in (
        ({"gamesToWin": 2, "stake": 1, "gallery": True}, 2),
        ({"seats": 3, "packets": "ECARTE_PACKETS_TWO_THREE"}, 1),
        ({"jeuxDeRegle": True, "targetPoints": 3}, 1),
    ):
        out = io.StringIO()
        played = run_game(client, config("ecarte", options), seed=SEED, bot_for=EagerBot, out=out)
        assert played.game.state is not None
        assert played.game.state.ecarte.phase == ecarte_pb2.ECARTE_PHASE_MATCH_OVER
        winner = played.game.scoreboard.winners[0]
        assert played.game.scoreboard.seats[winner].games_won == games, out.getvalue()
        assert "match won" in out.getvalue()


def test_new_game_apply_legal_actions_view_replay(client: Client) -> None:
    started = client.new_game(config("earl_of_coventry", seats=3), SEED, views=[seat(1)])
    game = started.game
    assert not game.sealed and game.state is not None and len(game.state_hash) == 32
    assert started.views[0].earl_of_coventry.seats[1].hand
    actions = client.legal_actions(game)
    assert actions and all(a.actor == actions[0].actor for a in actions)
    applied = client.apply(game, actions[0], views=[PUBLIC])
    assert applied.accepted and applied.verdict == common_pb2.VERDICT_ACCEPTED
    assert applied.game.state is not None and applied.game.state.version == 1
    assert applied.events and applied.views[0].events
    view = client.view(applied.game, seat(2))
    assert view.state_hash == applied.game.state_hash
    shown = {s.seat for s in view.view.earl_of_coventry.seats if s.hand}
    assert shown == {2}
    replay = client.replay(config("earl_of_coventry", seats=3), SEED, [actions[0]])
    assert replay.initial_hash == game.state_hash
    assert replay.final_hash == applied.game.state_hash


def test_replay_returns_the_game_log_referee_verify_checks(client: Client) -> None:
    from referee.verify import verify

    cfg = config("earl_of_coventry", seats=3)
    game = client.new_game(cfg, SEED).game
    played = []
    while not game.finished:
        action = client.legal_actions(game)[-1]
        played.append(action)
        game = client.apply(game, action).game
    replay = client.replay(cfg, SEED, played, include_log=True)
    assert len(replay.log.entries) == len(played)
    assert replay.log.final_hash == replay.final_hash == game.state_hash
    assert verify(replay.log).ok, verify(replay.log)
    plain = client.replay(cfg, SEED, played)
    assert not plain.HasField("log")
    # Events are asked for, not sent by default.
    assert not any(step.events for step in plain.steps)
    assert any(step.events for step in client.replay(cfg, SEED, played, include_events=True).steps)
    # A stored log replayed under its own rules version, or refused.
    log = replay.log
    again = client.replay(
        log.config, log.seed, [e.action for e in log.entries], rules_version=log.rules_version
    )
    assert again.final_hash == log.final_hash
    with pytest.raises(RefereeError) as info:
        client.replay(cfg, SEED, played, rules_version="earl_of_coventry/2")
    assert info.value.reason == "RULES_VERSION_UNSUPPORTED"


def test_answers_over_grpcs_4_mib_default_are_received(client: Client) -> None:
    # The server answers up to --max-message-bytes (16 MiB by default); gRPC clients
    # refuse more than 4 MiB unless told otherwise. 45,000 rejected steps: about 4.3 MB.
    cfg = config("earl_of_coventry", seats=3)
    game = client.new_game(cfg, SEED).game
    action = client.legal_actions(game)[0]
    wrong = referee_pb2.Action()
    wrong.CopyFrom(action)
    wrong.actor.seat = (action.actor.seat + 1) % 3
    replay = client.replay(cfg, SEED, [action] + [wrong] * 45_000, timeout=60)
    assert replay.ByteSize() > 4 * 1024 * 1024
    assert replay.steps[-1].verdict == common_pb2.VERDICT_REJECTED


def test_a_service_config_in_the_options_is_the_one_used(server: ServerThread) -> None:
    # docs/deploy.md's service config (round_robin, health checking) given to the
    # client must replace the client's own, not be silently ignored: with health
    # checking of a service the server does not know, the server counts as unhealthy.
    def with_health_check(service: str) -> list[tuple[str, Any]]:
        cfg = {
            "loadBalancingConfig": [{"round_robin": {}}],
            "healthCheckConfig": {"serviceName": service},
        }
        return [("grpc.service_config", json.dumps(cfg))]

    with Client(server.address, options=with_health_check("referee.v1.RefereeService")) as c:
        assert c.list_games()
    with (
        Client(server.address, options=with_health_check("no.such.Service"), timeout=5) as c,
        pytest.raises(RefereeError) as info,
    ):
        c.list_games()
    assert info.value.code == grpc.StatusCode.UNAVAILABLE


def test_illegal_action_is_a_verdict(client: Client) -> None:
    game = client.new_game(config("earl_of_coventry", seats=3), SEED).game
    action = client.legal_actions(game)[0]
    action.actor.seat = (action.actor.seat + 1) % 3
    applied = client.apply(game, action)
    assert applied.verdict == common_pb2.VERDICT_REJECTED and not applied.accepted
    assert "NOT_YOUR_TURN" in [v.code for v in applied.violations]
    assert applied.game.state_hash == game.state_hash
    assert client.legal_actions(game, TABLE) == []
    assert client.legal_actions(game, seat_actor(action.actor.seat)) == []


def test_broken_requests_are_referee_errors(client: Client) -> None:
    with pytest.raises(RefereeError) as info:
        client.new_game(config("earl_of_coventry", seats=14))
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.field_violations[0][0] == "config.earl_of_coventry.seats"
    game = client.new_game(config("earl_of_coventry"), SEED).game
    assert game.state is not None
    old = referee_pb2.GameState()
    old.CopyFrom(game.state)
    old.rules_version = "earl_of_coventry/99"
    with pytest.raises(RefereeError) as info:
        client.legal_actions(GameHandle(old, b"", b"", common_pb2.Scoreboard()))
    assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.reason == "RULES_VERSION_UNSUPPORTED"


def test_an_errors_text_names_each_violation_once() -> None:
    """The message names the first violation ("invalid FIELD: DESCRIPTION"): the text
    adds only the violations it does not name, and the field violations stay whole."""
    one = RefereeError(grpc.StatusCode.INVALID_ARGUMENT, "invalid a.b: is bad", [("a.b", "is bad")])
    assert str(one) == "INVALID_ARGUMENT: invalid a.b: is bad"
    assert one.field_violations == [("a.b", "is bad")]
    two = RefereeError(
        grpc.StatusCode.INVALID_ARGUMENT,
        "invalid a: x (and 1 more)",
        [("a", "x"), ("b", "y")],
    )
    assert str(two) == "INVALID_ARGUMENT: invalid a: x (and 1 more) (b: y)"
    other = RefereeError(grpc.StatusCode.INVALID_ARGUMENT, "refused", [("seed", "is short")])
    assert str(other) == "INVALID_ARGUMENT: refused (seed: is short)"


def test_config_helper() -> None:
    assert config("earl_of_coventry", {"openHands": True}, seats=3).earl_of_coventry.open_hands
    with pytest.raises(ValueError, match="unknown game"):
        config("chess")


def test_bots_and_table_policy_are_generic() -> None:
    def earl(kind: str) -> referee_pb2.Action:
        a = referee_pb2.Action(actor=TABLE)
        getattr(a.earl_of_coventry, kind).SetInParent()
        return a

    actions = [earl("next_round"), earl("end_session")]
    assert [action_kind(a) for a in actions] == ["next_round", "end_session"]
    # By default the table deals one round, then ends when it may.
    assert action_kind(TablePolicy().choose(actions)) == "end_session"
    assert action_kind(TablePolicy().choose(actions[:1])) == "next_round"
    policy = TablePolicy(rounds=2)
    assert action_kind(policy.choose(actions)) == "next_round"
    assert action_kind(policy.choose(actions)) == "end_session"
    assert action_kind(EagerBot(1).choose([earl("pass"), earl("next_round")], None)) == "next_round"
    a, b = RandomBot(4), RandomBot(4)
    picks = [earl("pass"), earl("next_round"), earl("end_session")]
    assert [a.choose(picks, None) for _ in range(20)] == [b.choose(picks, None) for _ in range(20)]


# ---------------------------------------------------------------- retries and deadlines


class _Flaky(referee_pb2_grpc.RefereeServiceServicer):
    """ListGames fails with ``code`` ``failures`` times, then answers; NewGame blocks."""

    def __init__(self, code: grpc.StatusCode, failures: int) -> None:
        self.code, self.failures, self.calls = code, failures, 0
        self.release = threading.Event()

    def ListGames(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.calls += 1
        if self.calls <= self.failures:
            context.abort(self.code, "try again")
        return referee_pb2.ListGamesResponse(server_version="flaky")

    def NewGame(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.release.wait(30)
        return referee_pb2.NewGameResponse()


def _serve(servicer: referee_pb2_grpc.RefereeServiceServicer) -> tuple[grpc.Server, str]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    referee_pb2_grpc.add_RefereeServiceServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, f"127.0.0.1:{port}"


def test_unavailable_is_retried() -> None:
    flaky = _Flaky(grpc.StatusCode.UNAVAILABLE, failures=2)
    server, address = _serve(flaky)
    try:
        with Client(address) as c:
            assert c.list_games() == []
        assert flaky.calls == 3
    finally:
        server.stop(None)


def test_unavailable_gives_up_after_max_attempts() -> None:
    flaky = _Flaky(grpc.StatusCode.UNAVAILABLE, failures=10)
    server, address = _serve(flaky)
    try:
        with Client(address, max_attempts=3) as c, pytest.raises(RefereeError) as info:
            c.list_games()
        assert info.value.code == grpc.StatusCode.UNAVAILABLE
        assert flaky.calls == 3
    finally:
        server.stop(None)


def test_other_errors_are_not_retried() -> None:
    flaky = _Flaky(grpc.StatusCode.INTERNAL, failures=1)
    server, address = _serve(flaky)
    try:
        with Client(address) as c, pytest.raises(RefereeError) as info:
            c.list_games()
        assert info.value.code == grpc.StatusCode.INTERNAL
        assert flaky.calls == 1
    finally:
        server.stop(None)


def test_every_call_has_a_deadline() -> None:
    flaky = _Flaky(grpc.StatusCode.OK, failures=0)
    server, address = _serve(flaky)
    try:
        with Client(address, timeout=0.3) as c, pytest.raises(RefereeError) as info:
            c.new_game(config("earl_of_coventry"))
        assert info.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
    finally:
        flaky.release.set()
        server.stop(None)


@pytest.mark.parametrize("max_attempts", [1, 2, None])
def test_max_attempts_counts_every_attempt(max_attempts: int | None) -> None:
    """1: no retry; the default: 5 attempts (docs/clients.md)."""
    flaky = _Flaky(grpc.StatusCode.UNAVAILABLE, failures=10)
    server, address = _serve(flaky)
    kwargs = {} if max_attempts is None else {"max_attempts": max_attempts}
    try:
        with Client(address, **kwargs) as c, pytest.raises(RefereeError) as info:
            c.list_games()
        assert info.value.code == grpc.StatusCode.UNAVAILABLE
        assert flaky.calls == (max_attempts or 5)
    finally:
        server.stop(None)


def test_max_attempts_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        Client("127.0.0.1:1", max_attempts=0)


def test_max_attempts_above_grpcs_cap_is_refused() -> None:
    """gRPC core clamps a retry policy's maxAttempts to 5 (it logs "clamped
    retryPolicy.maxAttempts at 5" and makes 5): more is refused, not silently cut."""
    with pytest.raises(ValueError, match="at most 5"):
        Client("127.0.0.1:1", max_attempts=6)
    # With a service config of the caller's own, its retryPolicy decides: allowed.
    own = [("grpc.service_config", json.dumps({"methodConfig": []}))]
    Client("127.0.0.1:1", max_attempts=6, options=own).close()


def test_a_channel_given_to_the_client_stays_open_after_it(server: ServerThread) -> None:
    with grpc.insecure_channel(server.address) as channel:
        with Client(channel=channel) as c:
            assert c.list_games()
        with Client(channel=channel) as c:
            assert c.list_games(), "closing the first client closed the caller's channel"


def test_credentials_fill_in_only_what_is_missing() -> None:
    creds = Credentials((b"s0", b"s1"), b"tb")
    own = common_pb2.Viewer(seat=1, credential=b"mine")
    assert creds.viewer(own).credential == b"mine"
    assert creds.viewer(common_pb2.Viewer(seat=1)).credential == b"s1"
    assert creds.viewer(common_pb2.Viewer(seat=5)).credential == b""
    assert creds.viewer(common_pb2.Viewer(seat=2)).credential == b""  # one past the table
    for other in (
        common_pb2.Viewer(spectator="ann"),
        common_pb2.Viewer(public=common_pb2.PublicViewer()),
    ):
        assert creds.viewer(other) == other and not creds.viewer(other).credential
    assert creds.actor(common_pb2.Actor(seat=0, credential=b"mine")).credential == b"mine"
    assert creds.actor(common_pb2.Actor(seat=0)).credential == b"s0"
    assert creds.actor(common_pb2.Actor(table=common_pb2.TableActor())).credential == b"tb"
    assert creds.actor(common_pb2.Actor(spectator="ann")).credential == b""
    assert creds.only_seat(1) == Credentials((b"", b"s1"))
    assert not Credentials() and Credentials(table=b"t")


class _Recording(referee_pb2_grpc.RefereeServiceServicer):
    """ListGames answers and keeps each call's metadata."""

    def __init__(self) -> None:
        self.metadata: list[dict[str, str]] = []

    def ListGames(self, request: Any, context: grpc.ServicerContext) -> Any:
        self.metadata.append({k: str(v) for k, v in context.invocation_metadata()})
        return referee_pb2.ListGamesResponse(server_version="recording")


def test_the_clients_metadata_goes_with_every_call() -> None:
    """``metadata`` (e.g. a bearer token) is sent on every call of both clients."""
    recording = _Recording()
    server, address = _serve(recording)
    token = ("authorization", "Bearer abc")

    async def in_a_loop() -> None:
        async with AsyncClient(address, metadata=[token]) as c:
            await c.list_games()

    try:
        with Client(address, metadata=[token, ("x-request-id", "r1")]) as c:
            c.list_games()
        asyncio.run(in_a_loop())
        with Client(address) as c:
            c.list_games()
    finally:
        server.stop(None)
    first, second, third = recording.metadata
    assert first["authorization"] == "Bearer abc" and first["x-request-id"] == "r1"
    assert second["authorization"] == "Bearer abc"
    assert "authorization" not in third


def test_the_async_clients_calls_have_a_deadline() -> None:
    flaky = _Flaky(grpc.StatusCode.OK, failures=0)
    server, address = _serve(flaky)

    async def in_a_loop() -> None:
        async with AsyncClient(address, timeout=0.3) as c:
            with pytest.raises(RefereeError) as info:
                await c.new_game(config("earl_of_coventry"))
            assert info.value.code == grpc.StatusCode.DEADLINE_EXCEEDED
            with pytest.raises(RefereeError) as info:  # a call's own timeout
                await c.new_game(config("earl_of_coventry"), timeout=0.2)
            assert info.value.code == grpc.StatusCode.DEADLINE_EXCEEDED

    try:
        asyncio.run(in_a_loop())
    finally:
        flaky.release.set()
        server.stop(None)


def test_no_server_is_unavailable() -> None:
    with Client("127.0.0.1:1", max_attempts=2) as c, pytest.raises(RefereeError) as info:
        c.list_games()
    assert info.value.code == grpc.StatusCode.UNAVAILABLE


# ---------------------------------------------------------------- sealed states


def test_a_sealing_server_gets_its_tokens_back(sealing_server: ServerThread) -> None:
    with Client(sealing_server.address) as c:
        started = c.new_game(config("earl_of_coventry", seats=3), SEED)
        assert started.game.sealed and started.game.state is None
        assert started.game.credentials and len(started.game.credentials.seats) == 3
        played = run_game(
            c, config("earl_of_coventry", seats=3), seed=SEED, bot_for=RandomBot, out=io.StringIO()
        )
    assert played.game.sealed and played.game.state is None
    assert played.game.finished


def test_only_actor_required_turns_legal_actions_per_actor(
    sealing_server: ServerThread, strict_server: ServerThread
) -> None:
    """Without an actor, the client asks per actor only when the server says the call
    needs one (reason ACTOR_REQUIRED): any other error, here a broken token, is the
    caller's, raised as it came, and the client goes on asking in one call."""
    with Client(sealing_server.address) as c:
        game = c.new_game(config("earl_of_coventry", seats=3), SEED).game
        token = game.sealed_state
        broken = dataclasses.replace(game, sealed_state=token[:-1] + bytes([token[-1] ^ 1]))
        with pytest.raises(RefereeError) as info:
            c.legal_actions(broken)
        assert info.value.reason == "STATE_SEAL_INVALID"
        assert not c._per_actor
        assert c.legal_actions(game) and not c._per_actor
    with Client(strict_server.address) as c:
        game = c.new_game(config("earl_of_coventry", seats=3)).game
        assert c.legal_actions(game) and c._per_actor


def test_a_players_handle_asks_for_the_actors_it_holds_credentials_for(
    strict_server: ServerThread,
) -> None:
    """Asked without an actor on a strict server, a handle holding one seat's credential
    (what a player holds) asks for that seat alone: its actions when it is on turn,
    none otherwise. The table and the other seats would refuse it."""
    for cls in (Client, AsyncClient):
        with Client(strict_server.address) as c:
            game = c.new_game(config("earl_of_coventry", seats=3)).game
            turn = c.legal_actions(game)[0].actor.seat
        mine = game.with_credentials(game.credentials.only_seat(turn))
        other = game.with_credentials(game.credentials.only_seat((turn + 1) % 3))
        if cls is Client:
            with Client(strict_server.address) as c:
                actions, none = c.legal_actions(mine), c.legal_actions(other)
        else:

            async def both(x: GameHandle, y: GameHandle) -> tuple[list[Any], list[Any]]:
                async with AsyncClient(strict_server.address) as a:
                    return await a.legal_actions(x), await a.legal_actions(y)

            actions, none = asyncio.run(both(mine, other))
        assert actions and {a.actor.seat for a in actions} == {turn}, cls
        assert none == [], cls


def test_require_sealed_games_are_played_with_credentials(strict_server: ServerThread) -> None:
    with Client(strict_server.address) as c:
        out = io.StringIO()
        played = run_game(c, config("earl_of_coventry", seats=4), bot_for=EagerBot, out=out)
        assert played.game.sealed and played.game.finished, out.getvalue()
        assert "matches the commitment" in out.getvalue()
        # Écarté has no table actions: asked of the table as of every seat (D-15).
        ecarte = run_game(c, config("ecarte"), bot_for=EagerBot, out=out)
        assert ecarte.game.sealed and ecarte.game.finished, out.getvalue()

        started = c.new_game(config("earl_of_coventry", seats=3))
        game = started.game
        action = c.legal_actions(game)[0]
        assert action.actor.WhichOneof("kind") == "seat" and not action.actor.credential
        turn = action.actor.seat
        own = c.view(game, seat(turn)).view.earl_of_coventry.seats[turn]
        assert own.hand_visible and own.hand
        # A player holding another seat's credential only cannot act for this one.
        other = game.with_credentials(game.credentials.only_seat((turn + 1) % 3))
        with pytest.raises(RefereeError) as info:
            c.apply(other, action)
        assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert info.value.reason == "SEAT_CREDENTIAL_INVALID"
        assert c.apply(game.with_credentials(game.credentials.only_seat(turn)), action).accepted
        with pytest.raises(RefereeError) as info:
            c.new_game(config("earl_of_coventry"), SEED)
        assert info.value.reason == "CLIENT_SEED_REFUSED"


def test_a_bot_that_breaks_the_rules_is_a_game_error(client: Client) -> None:
    class Cheat:
        def choose(self, actions: Any, view: Any) -> referee_pb2.Action:
            a = referee_pb2.Action()
            a.CopyFrom(actions[0])
            a.earl_of_coventry.play.call = "wrong words"
            return a

    with pytest.raises(GameError, match="VERDICT_PENALIZED"):
        run_game(
            client,
            config("earl_of_coventry"),
            seed=SEED,
            bot_for=lambda s: Cheat(),
            out=io.StringIO(),
        )
