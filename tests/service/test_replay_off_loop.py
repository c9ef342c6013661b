"""A long ``Replay`` on grpc.aio runs off the event loop (``REPLAY_OFF_LOOP_ACTIONS``):
other calls, health checks included, are served meanwhile; a call that is cancelled
stops its thread; short Replays stay in the loop.

Every wait here is bounded and none decides by timing: a Replay held open by the test
either lets a ListGames through (off the loop) or blocks it until its deadline (in the
loop, which would be the bug)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc
import pytest

from referee.server import ServerSettings
from referee.service import REPLAY_OFF_LOOP_ACTIONS
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc

from ..server_thread import ServerThread

CONFIG = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3, first_dealer=0))
SEED = bytes(range(32))
WAIT = 30.0  # seconds: only ever reached when the behaviour under test is broken


class HeldReplay:
    """The server's Referee with ``replay`` held until the test releases it."""

    def __init__(self, real: Any, hold: Callable[[Callable[[], bool]], None]) -> None:
        self._real = real
        self._hold = hold
        self.entered = threading.Event()
        self.thread = ""

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def replay(self, request: Any, should_stop: Callable[[], bool] | None = None) -> Any:
        self.thread = threading.current_thread().name
        self.entered.set()
        self._hold(should_stop or (lambda: False))
        return self._real.replay(request, should_stop)


@pytest.fixture
def server() -> Iterator[ServerThread]:
    with ServerThread(ServerSettings(host="127.0.0.1", port=0), engine="asyncio") as thread:
        yield thread


def replay_request(actions: int) -> pb.ReplayRequest:
    """A Replay of ``actions`` actions: the eldest's first legal play, then the same
    play again and again (rejected: not its turn any more). Rejected steps are steps."""
    from referee.codec import all_codecs
    from referee.service import Referee

    referee = Referee(all_codecs())
    state = referee.new_game(pb.NewGameRequest(config=CONFIG, seed=SEED)).state
    first = referee.legal_actions(pb.LegalActionsRequest(state=state)).actions[0]
    return pb.ReplayRequest(config=CONFIG, seed=SEED, actions=[first] * actions)


def hold(server: ServerThread, until: Callable[[Callable[[], bool]], None]) -> HeldReplay:
    held = HeldReplay(server.server.servicer.referee, until)
    server.server.servicer.referee = held
    return held


def test_other_calls_are_served_while_a_long_replay_runs(server: ServerThread) -> None:
    released = threading.Event()
    held = hold(server, lambda _stop: released.wait(WAIT))
    with grpc.insecure_channel(server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        replay = stub.Replay.future(replay_request(REPLAY_OFF_LOOP_ACTIONS + 1), timeout=2 * WAIT)
        assert held.entered.wait(WAIT)
        try:
            # In the loop, the held Replay would keep this from being answered.
            games = stub.ListGames(pb.ListGamesRequest(), timeout=WAIT)
        finally:
            released.set()
        assert sorted(g.id for g in games.games) == ["earl_of_coventry", "ecarte"]
        answer = replay.result(timeout=WAIT)
    assert len(answer.steps) == REPLAY_OFF_LOOP_ACTIONS + 1
    assert held.thread.startswith("referee-replay")


def test_a_cancelled_long_replay_stops_its_thread(server: ServerThread) -> None:
    stopped = threading.Event()

    def until_stopped(should_stop: Callable[[], bool]) -> None:
        for _ in range(int(WAIT * 100)):
            if should_stop():
                stopped.set()
                return
            threading.Event().wait(0.01)

    held = hold(server, until_stopped)
    with grpc.insecure_channel(server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        replay = stub.Replay.future(replay_request(REPLAY_OFF_LOOP_ACTIONS + 1), timeout=2 * WAIT)
        assert held.entered.wait(WAIT)
        replay.cancel()
        assert stopped.wait(WAIT), "the Replay's thread went on after its call was cancelled"


def test_a_short_replay_runs_in_the_event_loop(server: ServerThread) -> None:
    held = hold(server, lambda _stop: None)
    with grpc.insecure_channel(server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        answer = stub.Replay(replay_request(REPLAY_OFF_LOOP_ACTIONS), timeout=WAIT)
    assert len(answer.steps) == REPLAY_OFF_LOOP_ACTIONS
    assert server._thread is not None and held.thread == server._thread.name


def test_a_long_replays_errors_are_those_of_any_replay(server: ServerThread) -> None:
    """A refused long Replay (its last action of the other game) answers as in the
    loop: INVALID_ARGUMENT naming the action."""
    request = replay_request(REPLAY_OFF_LOOP_ACTIONS + 1)
    request.actions[-1].ClearField("earl_of_coventry")
    request.actions[-1].ecarte.SetInParent()
    with grpc.insecure_channel(server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        with pytest.raises(grpc.RpcError) as info:
            stub.Replay(request, timeout=WAIT)
    assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert f"actions[{REPLAY_OFF_LOOP_ACTIONS}]" in (info.value.details() or "")


def test_a_long_replay_overtaken_by_its_deadline_is_logged_as_past_its_deadline() -> None:
    """gRPC cancels a call's task at its deadline; a Replay on its own thread may not
    have noticed the deadline first. Its log line says DEADLINE_EXCEEDED all the same,
    not CANCELLED (the client left): the status an operator counts must not depend on
    which side saw the deadline first."""
    from tests.ops.helpers import captured_logs, log_lines

    released = threading.Event()
    with (
        captured_logs() as out,
        ServerThread(ServerSettings(host="127.0.0.1", port=0), engine="asyncio") as server,
    ):
        hold(server, lambda _stop: released.wait(WAIT))  # deaf to its deadline
        with grpc.insecure_channel(server.address) as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)
            with pytest.raises(grpc.RpcError) as info:
                stub.Replay(replay_request(REPLAY_OFF_LOOP_ACTIONS + 1), timeout=0.5)
            assert info.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
            released.set()
            stub.ListGames(pb.ListGamesRequest(), timeout=WAIT)  # its line is out by now
    lines = [e for e in log_lines(out) if e.get("event") == "rpc" and e["method"] == "Replay"]
    assert [e["status"] for e in lines] == ["DEADLINE_EXCEEDED"]


def test_a_long_replay_without_a_deadline(server: ServerThread) -> None:
    """No deadline: ``time_remaining()`` is None (the compiled build once refused it
    for grpc's stubs say float: INTERNAL)."""
    with grpc.insecure_channel(server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        answer = stub.Replay(replay_request(REPLAY_OFF_LOOP_ACTIONS + 1))
    assert len(answer.steps) == REPLAY_OFF_LOOP_ACTIONS + 1


class SizedWhere:
    """A Replay's real response, recording the threads that serialize or size it."""

    def __init__(self, real: Any) -> None:
        self._real = real
        self.threads: list[tuple[str, str]] = []

    def SerializeToString(self, **kwargs: Any) -> bytes:
        self.threads.append(("SerializeToString", threading.current_thread().name))
        return self._real.SerializeToString(**kwargs)  # type: ignore[no-any-return]

    def ByteSize(self) -> int:
        self.threads.append(("ByteSize", threading.current_thread().name))
        return self._real.ByteSize()  # type: ignore[no-any-return]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


def test_a_long_replays_answer_is_serialized_on_its_thread(server: ServerThread) -> None:
    """A long Replay's answer (over 12 MB for 100,000 actions with the log: about 40 ms
    to serialize, as long again to size) is serialized once, on the Replay's own
    thread, and sent as those bytes: not sized apart for the response limit, nor
    serialized in the event loop. The answer is the Replay's, byte for byte; its log
    line and metrics still read its steps."""
    held = hold(server, lambda _stop: None)
    answers: list[SizedWhere] = []
    real_replay = held.replay

    def replay(request: Any, should_stop: Callable[[], bool] | None = None) -> Any:
        answers.append(SizedWhere(real_replay(request, should_stop)))
        return answers[-1]

    held.replay = replay  # type: ignore[method-assign]
    request = replay_request(REPLAY_OFF_LOOP_ACTIONS + 1)
    request.include_log = True
    with grpc.insecure_channel(server.address) as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        answer = stub.Replay(request, timeout=WAIT)
    (sized,) = answers
    assert answer.SerializeToString() == sized._real.SerializeToString()
    assert len(answer.steps) == REPLAY_OFF_LOOP_ACTIONS + 1
    assert [what for what, _ in sized.threads] == ["SerializeToString"]
    assert all(thread.startswith("referee-replay") for _, thread in sized.threads)
