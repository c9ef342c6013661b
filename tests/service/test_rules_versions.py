"""Two rules versions of one game on one server (docs/api.md, rules versions):
`NewGame` starts the newest, a state is judged by the version it carries, a stored log
replays under its own, `ListGames` names the others, and `referee verify` says a
log of a version it does not play is not verifiable here rather than divergent.

No game has a second version yet, so the second one here is Écarté's own rules under
the name `ecarte/2`. What it proves is the routing: the version a state comes back
with is the name of the codec (and so the rules object) that judged it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import grpc
import pytest

import referee.server
from referee import verify
from referee.codec import all_codecs, newest, version_number
from referee.codec.base import GameCodec
from referee.codec.earl_of_coventry import CODEC as EARL_OF_COVENTRY
from referee.codec.ecarte import CODEC as ECARTE
from referee.server import ServerSettings
from referee.service import Referee
from referee.v1 import common_pb2, referee_pb2_grpc
from referee.v1 import ecarte_pb2 as epb
from referee.v1 import referee_pb2 as pb
from tests.server_thread import ServerThread

from ..status_details import error_info

SEED = bytes(range(32))
CONFIG = pb.GameConfig(ecarte=epb.EcarteConfig(target_points=1))


class Renamed:
    """A rules object under another version's name (everything else is the original's)."""

    def __init__(self, rules: Any, version: str) -> None:
        self._rules = rules
        self.rules_version = version

    def __getattr__(self, name: str) -> Any:
        return getattr(self._rules, name)


class OtherVersion:
    """``codec`` as the codec of another rules version of its game."""

    def __init__(self, codec: GameCodec, version: str) -> None:
        self._codec = codec
        self.game_id = codec.game_id
        self.rules = Renamed(codec.rules, version)

    def game_info(self, info: pb.GameInfo) -> None:
        self._codec.game_info(info)
        info.rules_version = self.rules.rules_version

    def __getattr__(self, name: str) -> Any:
        return getattr(self._codec, name)


ECARTE_2: Any = OtherVersion(ECARTE, "ecarte/2")
ECARTE_3: Any = OtherVersion(ECARTE, "ecarte/3")


def test_the_newest_version_of_each_game_is_chosen_whatever_the_order() -> None:
    for codecs in (
        [ECARTE, ECARTE_2, EARL_OF_COVENTRY],
        [ECARTE_2, ECARTE, EARL_OF_COVENTRY],
        [ECARTE_3, ECARTE, ECARTE_2, EARL_OF_COVENTRY],
    ):
        chosen = newest(codecs)
        assert list(chosen) == ["ecarte", "earl_of_coventry"]  # games in first-seen order
        assert chosen["ecarte"] is max(
            (c for c in codecs if c.game_id == "ecarte"), key=version_number
        )
        assert chosen["earl_of_coventry"] is EARL_OF_COVENTRY
    assert newest(all_codecs()) == {"ecarte": ECARTE, "earl_of_coventry": EARL_OF_COVENTRY}


@pytest.mark.parametrize(
    "version", ["ecarte", "ecarte/", "ecarte/0", "ecarte/02", "ecarte/x", "ecarte/²", "écarte/2"]
)
def test_a_version_not_written_game_slash_number_is_refused(version: str) -> None:
    with pytest.raises(ValueError, match="is not ecarte/<n>"):
        Referee([ECARTE, OtherVersion(ECARTE, version)])


def test_two_codecs_of_one_version_are_refused() -> None:
    # A dictionary by version would keep one of them silently.
    with pytest.raises(ValueError, match="two codecs of rules version 'ecarte/2'"):
        Referee([ECARTE, ECARTE_2, OtherVersion(ECARTE, "ecarte/2")])


def test_list_games_names_the_version_new_games_start_and_the_others() -> None:
    games = Referee([ECARTE, ECARTE_3, EARL_OF_COVENTRY, ECARTE_2]).list_games(
        pb.ListGamesRequest()
    )
    assert [(g.id, g.rules_version, list(g.other_rules_versions)) for g in games.games] == [
        ("ecarte", "ecarte/3", ["ecarte/2", "ecarte/1"]),
        ("earl_of_coventry", "earl_of_coventry/1", []),
    ]

    # Held back (--new-game-rules): an older version starts new games, the newer one is
    # still judged.
    held = Referee([ECARTE, ECARTE_3, EARL_OF_COVENTRY, ECARTE_2], new_game_rules=["ecarte/2"])
    assert [
        (g.id, g.rules_version, list(g.other_rules_versions))
        for g in held.list_games(pb.ListGamesRequest()).games
    ] == [
        ("ecarte", "ecarte/2", ["ecarte/3", "ecarte/1"]),
        ("earl_of_coventry", "earl_of_coventry/1", []),
    ]
    started = held.new_game(pb.NewGameRequest(config=CONFIG, seed=SEED)).state
    assert started.rules_version == "ecarte/2"


@pytest.mark.parametrize(
    ("versions", "message"),
    [
        (["ecarte/4"], "'ecarte/4' is not a rules version served here"),
        (["ecarte/1", "ecarte/2"], "more than one version of ecarte"),
    ],
)
def test_new_games_under_a_version_not_served_or_two_of_one_game_are_refused(
    versions: list[str], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Referee([ECARTE, ECARTE_2, EARL_OF_COVENTRY], new_game_rules=versions)


Served = tuple[ServerThread, referee_pb2_grpc.RefereeServiceStub]


@contextlib.contextmanager
def serving(metrics: Any = None, **settings: Any) -> Iterator[Served]:
    """A real server (port 0) serving `ecarte/1` and `ecarte/2`, and a stub of it."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(referee.server, "all_codecs", lambda: [ECARTE, ECARTE_2, EARL_OF_COVENTRY])
        with (
            ServerThread(
                ServerSettings(host="127.0.0.1", port=0, grace_seconds=1, **settings), metrics
            ) as server,
            grpc.insecure_channel(server.address) as channel,
        ):
            yield server, referee_pb2_grpc.RefereeServiceStub(channel)


@pytest.fixture(scope="module")
def stub() -> Iterator[referee_pb2_grpc.RefereeServiceStub]:
    with serving() as (_, stub):
        yield stub


def serving_line(server: ServerThread) -> dict[str, Any]:
    """The fields of the server's ``referee_serving`` log line."""
    lines: list[dict[str, Any]] = []

    class Log:
        def info(self, event: str, **fields: Any) -> None:
            if event == "referee_serving":
                lines.append(fields)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(referee.server, "log", Log())
        server.server._log_serving()
    (fields,) = lines
    return fields


def test_a_rollout_holds_new_games_on_the_version_every_replica_serves() -> None:
    """The first step of a rollout that brings `ecarte/2` (docs/operations.md): the
    upgraded replicas run with `--new-game-rules ecarte/1`, so every game they start
    is one a replica not yet upgraded can judge; a game of `ecarte/2` is still judged
    by its own rules."""
    with serving(new_game_rules=("ecarte/1",)) as (server, stub):
        line = serving_line(server)
        assert line["games"] == ["ecarte", "earl_of_coventry"]
        assert line["rules"] == ["ecarte/1", "ecarte/2", "earl_of_coventry/1"]
        assert line["new_game_rules"] == ["ecarte/1", "earl_of_coventry/1"]
        listed = {g.id: g for g in stub.ListGames(pb.ListGamesRequest()).games}
        assert listed["ecarte"].rules_version == "ecarte/1"
        assert list(listed["ecarte"].other_rules_versions) == ["ecarte/2"]
        state = stub.NewGame(pb.NewGameRequest(config=CONFIG, seed=SEED)).state
        assert state.rules_version == "ecarte/1"
        assert stub.Replay(pb.ReplayRequest(config=CONFIG, seed=SEED)).final_state == state
        newer = stub.Replay(
            pb.ReplayRequest(config=CONFIG, seed=SEED, rules_version="ecarte/2")
        ).final_state
        reply = stub.ApplyAction(
            pb.ApplyActionRequest(state=newer, action=first_legal(stub, newer))
        )
        assert reply.verdict == common_pb2.VERDICT_ACCEPTED
        assert reply.state.rules_version == "ecarte/2"


def test_the_command_line_takes_a_version_only_this_build_serves(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee import cli, codec

    def settings(*argv: str) -> Any:
        args = cli._parser().parse_args(["serve", *argv])
        return cli._settings(args.serve_parser, args)

    with pytest.raises(SystemExit):
        settings("--new-game-rules", "ecarte/2")
    monkeypatch.setattr(codec, "all_codecs", lambda: [ECARTE, ECARTE_2, EARL_OF_COVENTRY])
    assert settings("--new-game-rules", "ecarte/2").new_game_rules == ("ecarte/2",)
    capsys.readouterr()
    assert cli.main(["games"]) == 0
    out = capsys.readouterr().out
    assert "ecarte  Écarté  rules ecarte/2 (also judges ecarte/1)  seats 2-3\n" in out
    assert "earl_of_coventry  Earl of Coventry  rules earl_of_coventry/1  seats" in out


def first_legal(stub: referee_pb2_grpc.RefereeServiceStub, state: pb.GameState) -> pb.Action:
    action: pb.Action = stub.LegalActions(pb.LegalActionsRequest(state=state)).actions[0]
    return action


def test_new_games_start_under_the_newest_version(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    listed = {g.id: g for g in stub.ListGames(pb.ListGamesRequest()).games}
    assert listed["ecarte"].rules_version == "ecarte/2"
    assert list(listed["ecarte"].other_rules_versions) == ["ecarte/1"]
    assert list(listed["earl_of_coventry"].other_rules_versions) == []
    state = stub.NewGame(pb.NewGameRequest(config=CONFIG, seed=SEED)).state
    assert state.rules_version == "ecarte/2"
    # Replay without a version plays the one NewGame starts.
    replay = stub.Replay(pb.ReplayRequest(config=CONFIG, seed=SEED))
    assert replay.final_state == state


def test_a_state_is_judged_by_the_version_it_carries(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    """A game begun under `ecarte/1` (before the upgrade) goes on under it to its end,
    and one begun under `ecarte/2` under that: on the same server, call after call."""
    for version in ("ecarte/1", "ecarte/2"):
        state = stub.Replay(
            pb.ReplayRequest(config=CONFIG, seed=SEED, rules_version=version)
        ).final_state
        assert state.rules_version == version
        actions = []
        while True:
            legal = stub.LegalActions(pb.LegalActionsRequest(state=state)).actions
            if not legal:
                break
            actions.append(legal[0])
            reply = stub.ApplyAction(pb.ApplyActionRequest(state=state, action=legal[0]))
            assert reply.verdict == common_pb2.VERDICT_ACCEPTED
            assert reply.state.rules_version == version
            view = stub.ViewState(
                pb.ViewStateRequest(state=reply.state, viewer=common_pb2.Viewer(seat=0))
            )
            assert view.view.rules_version == version
            state = reply.state
        assert reply.scoreboard.finished
        # The stored log of that game replays under its version, to the same state.
        replay = stub.Replay(
            pb.ReplayRequest(
                config=CONFIG, seed=SEED, actions=actions, rules_version=version, include_log=True
            )
        )
        assert replay.final_state == state
        assert replay.log.rules_version == version
        report = verify_with(replay.log, [ECARTE, ECARTE_2, EARL_OF_COVENTRY])
        assert report.ok, report.lines
        assert report.lines[0].startswith(f"OK: {version}")


def test_a_version_no_longer_served_is_refused_not_misjudged(
    stub: referee_pb2_grpc.RefereeServiceStub,
) -> None:
    with pytest.raises(grpc.RpcError) as info:
        stub.Replay(pb.ReplayRequest(config=CONFIG, seed=SEED, rules_version="ecarte/3"))
    assert info.value.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert error_info(info.value).reason == "RULES_VERSION_UNSUPPORTED"
    assert "ecarte/1, ecarte/2" in (info.value.details() or "")


def verify_with(log: pb.GameLog, codecs: list[Any], partial: bool = False) -> verify.Report:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(verify, "all_codecs", lambda: codecs)
        return verify.verify(log, partial=partial)


def test_verify_calls_a_log_of_a_version_it_does_not_play_not_verifiable() -> None:
    """A log of `ecarte/2` checked by a release that plays `ecarte/1` only is not a
    divergence (nothing in it was shown wrong): it needs a release that plays it."""
    referee2 = Referee([ECARTE, ECARTE_2, EARL_OF_COVENTRY])
    state = referee2.new_game(pb.NewGameRequest(config=CONFIG, seed=SEED)).state
    actions = []
    while legal := referee2.legal_actions(pb.LegalActionsRequest(state=state)).actions:
        actions.append(legal[0])
        state = referee2.apply_action(pb.ApplyActionRequest(state=state, action=legal[0])).state
    log = referee2.replay(
        pb.ReplayRequest(config=CONFIG, seed=SEED, actions=actions, include_log=True)
    ).log
    assert log.rules_version == "ecarte/2"
    assert verify_with(log, [ECARTE, ECARTE_2, EARL_OF_COVENTRY]).ok
    report = verify_with(log, [ECARTE, EARL_OF_COVENTRY])
    assert not report.ok
    assert report.lines == [
        "NOT VERIFIABLE: the log is of rules ecarte/2, which this referee does not play "
        "(it plays earl_of_coventry/1, ecarte/1): verify it with a release that does"
    ]


def test_check_config_and_games_name_the_other_versions_newest_first(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee import cli, codec

    ecarte_9: Any = OtherVersion(ECARTE, "ecarte/9")
    ecarte_10: Any = OtherVersion(ECARTE, "ecarte/10")
    monkeypatch.setattr(
        codec, "all_codecs", lambda: [ECARTE, ecarte_10, EARL_OF_COVENTRY, ecarte_9]
    )
    args = cli._parser().parse_args(["serve", "--new-game-rules", "ecarte/9"])
    summary = cli._describe_settings(cli._settings(args.serve_parser, args))
    assert (
        "  rules     new games ecarte/9, earl_of_coventry/1; also ecarte/10, ecarte/1\n" in summary
    )
    capsys.readouterr()
    assert cli.main(["games"]) == 0
    assert "rules ecarte/10 (also judges ecarte/9, ecarte/1)  seats" in capsys.readouterr().out


def test_verify_partial_finds_the_version_of_a_log_that_does_not_name_it() -> None:
    """A log without its rulesVersion (``--partial``) of an older version is not a
    DIVERGENCE of its first deal on a release that plays a newer one too."""
    referee1 = Referee([ECARTE, EARL_OF_COVENTRY])
    log = referee1.replay(pb.ReplayRequest(config=CONFIG, seed=SEED, include_log=True)).log
    log.ClearField("rules_version")
    report = verify_with(log, [ECARTE, ECARTE_2, EARL_OF_COVENTRY], partial=True)
    assert report.lines[0].startswith(
        "PARTIAL: ecarte/1 (the version whose first state the log's initialHash is), "
    ), report.lines
    log.ClearField("initial_hash")
    report = verify_with(log, [ECARTE, ECARTE_2, EARL_OF_COVENTRY], partial=True)
    assert report.lines == [
        "NOT VERIFIABLE: the log has no rulesVersion, and this referee plays ecarte under "
        "ecarte/1, ecarte/2: nothing says which one refereed it"
    ]


def test_actions_are_counted_by_the_rules_version_that_judged_them() -> None:
    """`referee_actions_total` has a `rules_version` label: what tells an operator that
    no game of a version is in flight any more (deploy.md: rolling back, retiring it)."""
    from referee.metrics import Metrics

    metrics = Metrics()
    with serving(metrics) as (_, stub):
        for version in ("ecarte/1", "ecarte/2", "ecarte/2"):
            state = stub.Replay(
                pb.ReplayRequest(config=CONFIG, seed=SEED, rules_version=version)
            ).final_state
            stub.ApplyAction(pb.ApplyActionRequest(state=state, action=first_legal(stub, state)))
        first = stub.Replay(pb.ReplayRequest(config=CONFIG, seed=SEED)).final_state
        stub.Replay(
            pb.ReplayRequest(
                config=CONFIG,
                seed=SEED,
                rules_version="ecarte/1",
                actions=[first_legal(stub, first)] * 3,  # accepted, then rejected twice
            )
        )
    judged = {
        (s.labels["rules_version"], s.labels["verdict"]): s.value
        for family in metrics.registry.collect()
        for s in family.samples
        if s.name == "referee_actions_total" and s.labels["game"] == "ecarte" and s.value
    }
    assert judged == {
        ("ecarte/1", "accepted"): 2,
        ("ecarte/1", "rejected"): 2,
        ("ecarte/2", "accepted"): 2,
    }
