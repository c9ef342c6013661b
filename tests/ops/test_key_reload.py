"""The sealing keys follow ``--seal-keys-file`` (referee.keyfile): each step of a
rotation (docs/trust.md) without a restart; a file that cannot be used is refused and
the last good keys serve on.

Deterministic: the in-process tests ask the server's watch to look at the file
(``KeyWatch.check``) instead of waiting for its thread; one subprocess test lets the
thread find the change, as in production."""

from __future__ import annotations

import base64
import os
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee import cli
from referee.codec import all_codecs
from referee.errors import RequestError
from referee.metrics import Metrics
from referee.sealing import Keyring
from referee.service import Referee
from referee.v1 import common_pb2, referee_pb2_grpc
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

from .helpers import TIMEOUT, InProcess, Served, captured_logs, log_lines

K1 = "k1:" + base64.b64encode(bytes(range(32))).decode()
K2 = "k2:" + base64.b64encode(bytes(range(1, 33))).decode()
NEW_GAME = pb.NewGameRequest(
    config=pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3))
)


def write(path: Path, text: str) -> None:
    """Replace the file atomically, as a Kubernetes Secret volume or an editor does."""
    fresh = path.with_suffix(".new")
    fresh.write_text(text)
    os.replace(fresh, path)


def key_of(token: bytes) -> str:
    """The id of the key that sealed a token (its header: docs/trust.md)."""
    return token[5 : 5 + token[4]].decode()


def settings_of(argv: list[str]) -> Any:
    parser = cli._parser()
    args = parser.parse_args(argv)
    return cli._settings(args.serve_parser, args)


def opens(stub: Any, token: bytes) -> grpc.StatusCode:
    request = pb.ViewStateRequest(sealed_state=token, viewer={"public": {}})
    try:
        stub.ViewState(request, timeout=TIMEOUT)
    except grpc.RpcError as e:
        return e.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def series(metrics: Metrics) -> dict[tuple[str, str], float]:
    return {
        (s.labels["sealing_key"], s.labels["keys"]): s.value
        for family in metrics.seal_keys_workers.collect()
        for s in family.samples
    }


def test_a_rotation_step_by_step_without_a_restart(tmp_path: Path) -> None:
    """Add k2 (opening only), make it the sealing key, remove k1: each step serves at
    once, the metric names the keys, and tokens of a removed key are refused."""
    keys = tmp_path / "keys"
    write(keys, K1 + "\n")
    metrics = Metrics()
    settings = settings_of(
        ["serve", "--host", "127.0.0.1", "--port", "0", "--seal-keys-file", str(keys)]
    )
    with (
        captured_logs() as out,
        InProcess(settings, metrics) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        watch = server.server.key_watch
        first = stub.NewGame(NEW_GAME, timeout=TIMEOUT).sealed_state
        assert key_of(first) == "k1"
        assert series(metrics) == {("k1", "k1"): 1}
        assert not watch.check()  # unchanged

        write(keys, f"{K1}\n{K2}\n")  # step 1: k2 opens, k1 still seals
        assert watch.check()
        assert key_of(stub.NewGame(NEW_GAME, timeout=TIMEOUT).sealed_state) == "k1"

        write(keys, f"{K2}\n{K1}\n")  # step 2: k2 seals, k1 opens
        assert watch.check()
        second = stub.NewGame(NEW_GAME, timeout=TIMEOUT).sealed_state
        assert key_of(second) == "k2"
        assert opens(stub, first) == grpc.StatusCode.OK  # games under way go on

        write(keys, f"{K2}\n")  # step 3: k1 removed
        assert watch.check()
        assert opens(stub, second) == grpc.StatusCode.OK
        assert opens(stub, first) == grpc.StatusCode.INVALID_ARGUMENT
        assert series(metrics) == {
            ("k1", "k1"): 0,
            ("k1", "k1,k2"): 0,
            ("k2", "k2,k1"): 0,
            ("k2", "k2"): 1,
        }
        lines = [line for line in log_lines(out) if line["event"] == "seal_keys_reloaded"]
    assert [(line["sealing"], line["keys"]) for line in lines] == [
        ("k1", ["k1", "k2"]),
        ("k2", ["k2", "k1"]),
        ("k2", ["k2"]),
    ]
    assert all(line["file"] == str(keys) for line in lines)
    text = "".join(str(line) for line in lines)
    assert K1.split(":")[1] not in text and K2.split(":")[1] not in text  # ids only


def test_a_worker_started_after_a_rotation_serves_the_files_keys_of_now(
    tmp_path: Path,
) -> None:
    """The settings hold the keys ``referee serve`` read at its start; a worker started
    later (one restarted by its supervisor after a rotation: forked with those settings)
    serves the file's keys of now, and counts itself under them, not under the old."""
    keys = tmp_path / "keys"
    write(keys, K1 + "\n")
    settings = settings_of(
        ["serve", "--host", "127.0.0.1", "--port", "0", "--seal-keys-file", str(keys)]
    )
    assert [key_id for key_id, _ in settings.seal_keys] == ["k1"]
    write(keys, f"{K2}\n")  # a rotation, k1 removed, before the worker (re)starts
    metrics = Metrics()
    with (
        captured_logs() as out,
        InProcess(settings, metrics) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        assert key_of(stub.NewGame(NEW_GAME, timeout=TIMEOUT).sealed_state) == "k2"
        assert series(metrics) == {("k2", "k2"): 1}
        assert not server.server.key_watch.check()  # read already: nothing new
        assert "sealing with key 'k2', opening with ['k2']" in server.server._sealing_mode()
        lines = log_lines(out)
    reloaded = [line for line in lines if line["event"] == "seal_keys_reloaded"]
    assert [(line["sealing"], line["keys"]) for line in reloaded] == [("k2", ["k2"])]


@pytest.mark.parametrize(
    ("content", "error"),
    [
        ("", "no sealing key given"),
        ("k2:" + base64.b64encode(bytes(16)).decode(), "must be 32 bytes"),
        (f"{K2}\n{K2}\n", "appears twice"),
        ("k2:not base64!", "key 'k2' is not valid base64"),
        # Written the wrong way round: the material is never shown as an id.
        (K2.split(":")[1] + ":k2", "key 1 is not valid base64"),
        (f"{K1}\n{K2.split(':')[1]}:{K2.split(':')[1]}", "key 2: its id is not"),
        (None, "No such file or directory"),
    ],
)
def test_a_file_that_cannot_be_used_is_refused_and_the_last_good_keys_serve(
    tmp_path: Path, content: str | None, error: str
) -> None:
    keys = tmp_path / "keys"
    write(keys, K1 + "\n")
    settings = settings_of(
        ["serve", "--host", "127.0.0.1", "--port", "0", "--seal-keys-file", str(keys)]
    )
    with (
        captured_logs() as out,
        InProcess(settings) as server,
        grpc.insecure_channel(server.address) as channel,
    ):
        stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
        if content is None:
            keys.unlink()
        else:
            write(keys, content)
        assert not server.server.key_watch.check()
        assert not server.server.key_watch.check()  # logged once, not at every look
        assert key_of(stub.NewGame(NEW_GAME, timeout=TIMEOUT).sealed_state) == "k1"
        refusals = [line for line in log_lines(out) if line["event"] == "seal_keys_reload_refused"]
    assert len(refusals) == 1, refusals
    assert error in refusals[0]["error"]
    assert refusals[0]["serving"] == {"sealing": "k1", "keys": ["k1"]}
    assert K2.split(":")[1] not in str(refusals)  # no key material
    assert K1.split(":")[1] not in str(refusals)


def test_keys_from_the_variable_are_not_followed_and_counted_all_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("REFEREE_SEAL_KEYS", f"{K2},{K1}")
    settings = settings_of(["serve", "--host", "127.0.0.1", "--port", "0"])
    assert settings.seal_keys_file is None
    metrics = Metrics()
    with InProcess(settings, metrics) as server:
        assert server.server.key_watch is None
    assert series(metrics) == {("k2", "k2,k1"): 1}


def test_the_watch_goes_on_looking_after_a_look_that_failed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever a look at the file raises, the watch's thread logs it and looks again
    (its loop run here, in this thread, with no wait between looks)."""
    from referee import keyfile
    from referee.sealing import Keyring, parse_keys
    from referee.service import Referee

    keys = tmp_path / "keys"
    write(keys, K1 + "\n")
    referee = Referee([], keyring=Keyring(parse_keys(K1)))
    watch = keyfile.KeyWatch(keys, referee, interval=0)
    looks: list[int] = []

    def check() -> bool:
        looks.append(1)
        if len(looks) == 1:
            raise RuntimeError("a bug")
        watch.stop()
        return False

    monkeypatch.setattr(watch, "check", check)
    with captured_logs() as out:
        watch._run()
    assert len(looks) == 2
    failed = [line for line in log_lines(out) if line["event"] == "seal_keys_check_failed"]
    assert [(f["level"], f["error"]) for f in failed] == [("error", "RuntimeError")]


def test_a_served_worker_follows_the_file_by_itself(tmp_path: Path) -> None:
    """E2E: ``referee serve --seal-keys-file`` finds the new keys within a few seconds,
    with no signal and no restart."""
    keys = tmp_path / "keys"
    write(keys, K1 + "\n")
    served = Served("--seal-keys-file", str(keys), "--workers", "1")
    try:
        ready = served.wait_for("referee_serving")
        assert "following the keys file" in ready["sealing"]
        mark = served.mark()
        write(keys, f"{K2}\n{K1}\n")
        reloaded = served.wait_for("seal_keys_reloaded", since=mark)
        assert (reloaded["sealing"], reloaded["keys"]) == ("k2", ["k2", "k1"])
        with grpc.insecure_channel(f"127.0.0.1:{ready['port']}") as channel:
            stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
            assert key_of(stub.NewGame(NEW_GAME, timeout=TIMEOUT).sealed_state) == "k2"
        assert served.terminate() == 0
    finally:
        served.close()


class _SwappedWhileOpening(Keyring):
    """Keys that, as a call opens a token with them, are replaced on the referee by
    ``then`` (a reload landing in the middle of the call)."""

    referee: Referee
    then: Keyring

    def open(self, token: bytes) -> bytes:
        self.referee.keyring = self.then
        return super().open(token)


def test_a_call_uses_one_set_of_keys_when_a_reload_lands_during_it() -> None:
    """A reload that removes k1 while a call is opening a k1 token: the call goes on with
    the keys it opened with (its credentials checked and its answer sealed under them),
    and the next call uses the new ones. Before, the credential of the same call was
    checked against the new keys and refused PERMISSION_DENIED."""
    k1, k2 = (("k1", bytes(range(32))), ("k2", bytes(range(1, 33))))
    before = Referee(all_codecs(), keyring=Keyring([k1, k2]), require_sealed=True)
    game = before.new_game(NEW_GAME)
    during = _SwappedWhileOpening([k1, k2], strict=True)
    during.referee, during.then = before, Keyring([k2], strict=True)
    creds = game.seat_credentials
    seat, actions = next(
        (seat, found)
        for seat in range(3)
        if (
            found := before.legal_actions(
                pb.LegalActionsRequest(
                    sealed_state=game.sealed_state,
                    actor=common_pb2.Actor(seat=seat, credential=creds[seat]),
                )
            ).actions
        )
    )
    before.keyring = during
    request = pb.ApplyActionRequest(sealed_state=game.sealed_state, action=actions[0])
    request.action.actor.CopyFrom(common_pb2.Actor(seat=seat, credential=creds[seat]))
    request.views.add(seat=seat, credential=creds[seat])
    answer = before.apply_action(request)  # not refused: k1's credential, k1's keys
    assert answer.verdict == common_pb2.VERDICT_ACCEPTED
    assert answer.sealed_state and key_of(answer.sealed_state) == "k1"
    assert before.keyring is during.then  # the reload landed
    with pytest.raises(RequestError) as refused:
        before.apply_action(request)  # the next call: k2 only
    assert refused.value.reason == "STATE_SEAL_UNKNOWN_KEY"
