"""``referee serve --workers 2`` in a subprocess: a worker killed under load comes
back while calls keep succeeding; SIGTERM under load drains with no call lost;
the metrics of all workers are summed. Then the supervisor's decisions in this
process, against made-up children: what a start-up failure, a death, a stop and a
second or third signal lead to."""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import selectors
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from referee import workers as workers_module
from referee.server import ServerSettings
from referee.v1 import referee_pb2 as pb
from referee.v1 import referee_pb2_grpc
from referee.workers import Supervisor

from .helpers import CONFIG, TIMEOUT, Served, sample, scrape, wait_until

# Bounds of every load loop (they stop on a condition long before).
MAX_CALLS_PER_CLIENT = 20_000


@pytest.fixture
def served() -> Iterator[Callable[..., Served]]:
    started: list[Served] = []

    def start(*args: str) -> Served:
        s = Served(*args)
        started.append(s)
        return s

    yield start
    for s in started:
        s.close()


# What docs/deploy.md recommends to clients: round_robin over the addresses, and
# client-side health checking (a backend answering NOT_SERVING gets no new calls).
HEALTH_CHECKED = json.dumps(
    {"loadBalancingConfig": [{"round_robin": {}}], "healthCheckConfig": {"serviceName": ""}}
)


def channel(port: int, health_checked: bool = False) -> grpc.Channel:
    """A channel with a connection of its own (no subchannel shared between channels),
    so that several channels spread over the workers."""
    options: list[tuple[str, object]] = [
        ("grpc.use_local_subchannel_pool", 1),
        ("grpc.initial_reconnect_backoff_ms", 100),
        ("grpc.max_reconnect_backoff_ms", 1000),
    ]
    if health_checked:
        options.append(("grpc.service_config", HEALTH_CHECKED))
    return grpc.insecure_channel(f"127.0.0.1:{port}", options=options)


@dataclass
class Load:
    """Client threads calling NewGame in a loop, each call with its own request id."""

    port: int
    clients: int = 4
    retry_unavailable: bool = False
    health_checked: bool = False
    stop: threading.Event = field(default_factory=threading.Event)
    results: list[tuple[str, str, bool]] = field(default_factory=list)  # id, code, after
    retries: int = 0
    marker: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _threads: list[threading.Thread] = field(default_factory=list)

    def start(self) -> Load:
        for i in range(self.clients):
            t = threading.Thread(target=self._run, args=(i,), daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def _run(self, client: int) -> None:
        with channel(self.port, self.health_checked) as ch:
            stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
            request = pb.NewGameRequest(config=CONFIG)
            for n in range(MAX_CALLS_PER_CLIENT):
                if self.stop.is_set():
                    return
                request_id = f"load-{client}-{n}"
                after = self.marker.is_set()
                for attempt in range(10):
                    try:
                        # A retry waits for the channel to reconnect (wait_for_ready)
                        # instead of failing fast while it is in reconnect backoff.
                        stub.NewGame(
                            request,
                            timeout=10,
                            metadata=(("x-request-id", request_id),),
                            wait_for_ready=attempt > 0,
                        )
                        code = "OK"
                    except grpc.RpcError as e:
                        code = e.code().name
                        if code == "UNAVAILABLE" and self.retry_unavailable:
                            with self._lock:
                                self.retries += 1
                            continue
                    break
                with self._lock:
                    self.results.append((request_id, code, after))
                if code == "UNAVAILABLE" and not self.retry_unavailable:
                    return  # the server is gone

    def ok(self, after: bool | None = None) -> int:
        with self._lock:
            return sum(1 for _, c, a in self.results if c == "OK" and (after is None or a == after))

    def finish(self) -> None:
        self.stop.set()
        for t in self._threads:
            t.join(TIMEOUT)
            assert not t.is_alive()


def test_a_killed_worker_comes_back_and_calls_keep_succeeding(
    served: Callable[..., Served],
) -> None:
    server = served("--workers", "2", "--metrics-port", "0", "--metrics-host", "127.0.0.1")
    started = server.wait_for("supervisor_started")
    server.wait_for("supervisor_ready")
    pids = {e["worker"]: e["pid"] for e in server.events("referee_serving")}
    assert sorted(pids) == [0, 1] and len(set(pids.values())) == 2

    load = Load(started["port"], clients=4, retry_unavailable=True).start()
    try:
        wait_until(lambda: load.ok() >= 100, "calls before the kill")
        # Kill the worker that has served calls (the kernel spread the connections); the
        # lines of the calls follow their answers (written out at least every 50 ms).
        wait_until(lambda: len(server.events("rpc")) >= 100, "the calls' log lines")
        served_by = Counter(e.get("worker") for e in server.events("rpc"))
        victim = served_by.most_common(1)[0][0]
        mark = server.mark()
        os.kill(pids[victim], signal.SIGKILL)
        died = server.wait_for("child_died", since=mark, child=f"worker {victim}")
        assert died["signal"] == "SIGKILL" and died["restart_in_seconds"] == 0
        back = server.wait_for("referee_serving", since=mark, worker=victim)
        assert back["pid"] != pids[victim] and back["port"] == started["port"]
        load.marker.set()
        wait_until(lambda: load.ok(after=True) >= 100, "calls after the restart")
    finally:
        load.finish()
    codes = Counter(code for _, code, _ in load.results)
    assert set(codes) == {"OK"}, codes  # retried on UNAVAILABLE only, then all succeeded

    # A worker logs referee_serving, then (its heap frozen) tells the supervisor it is
    # ready, which counts it in referee_workers when it reads that: the calls above can be
    # answered before, so wait for the count rather than read it once.
    wait_until(
        lambda: sample(scrape(started["metrics_port"]), "referee_workers") == 2,
        "the restarted worker counted in referee_workers",
    )
    metrics = scrape(started["metrics_port"])
    assert sample(metrics, "referee_worker_restarts_total") == 1
    assert sample(metrics, "referee_workers") == 2
    # Counters survive the dead worker (its files stay): every call answered is counted.
    counted = sample(metrics, "referee_rpcs_total", method="NewGame", code="OK")
    assert counted >= len(load.results)
    assert server.terminate() == 0


def test_sigterm_under_load_drains_without_failing_a_call(served: Callable[..., Served]) -> None:
    """On SIGTERM health goes NOT_SERVING first: health-checking clients stop sending
    new calls, a client that ignores health is still served during the drain delay;
    then the workers stop, every call in flight finishes, and the exit code is 0."""
    server = served(
        "--workers",
        "2",
        "--drain-delay-seconds",
        "2",
        "--grace-seconds",
        "10",
        "--health-port",
        "0",
        "--health-host",
        "127.0.0.1",
    )
    started = server.wait_for("supervisor_started")
    server.wait_for("supervisor_ready")
    statuses: list[int] = []
    not_serving = threading.Event()

    def watch() -> None:
        with channel(started["health_port"]) as ch:
            stream = health_pb2_grpc.HealthStub(ch).Watch(
                health_pb2.HealthCheckRequest(), timeout=TIMEOUT
            )
            try:
                for reply in stream:
                    statuses.append(reply.status)
                    if reply.status == health_pb2.HealthCheckResponse.NOT_SERVING:
                        not_serving.set()
                        return
            except grpc.RpcError:
                return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    wait_until(lambda: statuses, "the first health status")
    assert statuses == [health_pb2.HealthCheckResponse.SERVING]

    checked = Load(started["port"], clients=4, health_checked=True, marker=not_serving)
    naive = Load(started["port"], clients=1, marker=not_serving)
    checked.start()
    naive.start()
    try:
        wait_until(lambda: checked.ok() >= 100 and naive.ok() >= 10, "calls before SIGTERM")
        server.proc.send_signal(signal.SIGTERM)
        assert not_serving.wait(TIMEOUT), "health never went NOT_SERVING"
        # During the drain delay the server still serves (health already NOT_SERVING).
        wait_until(lambda: naive.ok(after=True) >= 10, "calls served after NOT_SERVING")
        naive.finish()
        assert server.proc.wait(TIMEOUT) == 0
    finally:
        naive.finish()
        checked.finish()
    watcher.join(TIMEOUT)

    handled = {e["request_id"]: e["status"] for e in server.events("rpc")}
    answered = {rid: code for load in (checked, naive) for rid, code, _ in load.results}
    # Every call the server started finished OK, and its client got the answer.
    assert handled and set(handled.values()) == {"OK"}
    assert all(answered.get(rid) == "OK" for rid in handled), "a call in flight failed"
    # The only failures: health-checking clients refusing to send to a backend that
    # is NOT_SERVING (UNAVAILABLE, never reached the server).
    failed = {rid: code for rid, code in answered.items() if code != "OK"}
    assert set(failed.values()) <= {"UNAVAILABLE"}
    assert not set(failed) & set(handled)
    stopped = server.events("referee_stopped")
    assert sorted(e["worker"] for e in stopped) == [0, 1]
    assert server.find("supervisor_stopped", exit_code=0) is not None


def test_every_rpc_line_is_written_before_the_workers_exit(
    served: Callable[..., Served],
) -> None:
    """Per-RPC log lines are buffered (referee/logs.py): every one of them still reaches
    the log of a multi-worker server that is stopped right after its calls."""
    server = served("--workers", "2")
    started = server.wait_for("supervisor_started")
    server.wait_for("supervisor_ready")
    ids = [f"flush-check-{i}" for i in range(40)]
    with grpc.insecure_channel(f"127.0.0.1:{started['port']}") as channel:
        stub = referee_pb2_grpc.RefereeServiceStub(channel)
        for request_id in ids:
            stub.ListGames(pb.ListGamesRequest(), metadata=(("x-request-id", request_id),))
    assert server.terminate() == 0
    server.wait_for("supervisor_stopped")
    logged = {e.get("request_id") for e in server.events("rpc")}
    assert set(ids) <= logged


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, dead and not yet reaped, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def test_workers_end_with_a_supervisor_killed_outright(served: Callable[..., Served]) -> None:
    """A supervisor killed with SIGKILL cannot stop its workers: the kernel tells each
    worker (SIGTERM) that its parent died, and they stop instead of holding the port."""
    server = served("--workers", "2")
    server.wait_for("supervisor_ready")
    pids = [e["pid"] for e in server.events("referee_serving")]
    assert len(pids) == 2 and all(_alive(pid) for pid in pids)
    server.proc.kill()
    server.proc.wait(TIMEOUT)
    wait_until(lambda: not any(_alive(pid) for pid in pids), "the workers to end")


@pytest.mark.parametrize("given", [True, False])
def test_a_metrics_directory_is_removed_only_when_the_server_made_it(
    served: Callable[..., Served], tmp_path: Path, given: bool
) -> None:
    """Several workers share their metrics through PROMETHEUS_MULTIPROC_DIR: one the
    operator set is kept on exit (its value files of this run cleared at start); one the
    server made is removed."""
    mine = tmp_path / "metrics"
    mine.mkdir()
    (mine / "counter_old.db").write_bytes(b"")  # an earlier run's: cleared at start
    (mine / "notes.txt").write_text("not a value file")
    temp = tmp_path / "tmp"  # where the server makes its own (TMPDIR)
    temp.mkdir()
    env = {"TMPDIR": str(temp)}
    if given:
        env["PROMETHEUS_MULTIPROC_DIR"] = str(mine)
    server = Served("--workers", "2", "--metrics-port", "0", "--metrics-host", "127.0.0.1", env=env)
    try:
        started = server.wait_for("supervisor_started")
        server.wait_for("supervisor_ready")
        port = started["metrics_port"]
        # Both workers counted: the shared directory is the one in use.
        wait_until(lambda: sample(scrape(port), "referee_workers") == 2, "two workers counted")
        made = list(temp.iterdir())
        assert len(made) == (0 if given else 1)  # the server's own, under TMPDIR
        assert all(list(d.glob("*.db")) for d in made)  # holding this run's values
        assert server.terminate() == 0
    finally:
        server.close()
    assert mine.is_dir() and (mine / "notes.txt").exists()
    # Given: the earlier run's value file cleared, this run's kept. Not given: untouched.
    files = {p.name for p in mine.glob("*.db")}
    if given:
        assert files and "counter_old.db" not in files
    else:
        assert files == {"counter_old.db"}
    assert list(temp.iterdir()) == []


def test_a_stop_kills_no_worker_that_stops_within_its_time(
    served: Callable[..., Served],
) -> None:
    """The supervisor kills a worker only past the drain delay, the grace and a margin:
    idle workers, which stop in about the first two, are never killed."""
    server = served("--workers", "2", "--grace-seconds", "0.5", "--drain-delay-seconds", "0.5")
    server.wait_for("supervisor_ready")
    assert server.terminate() == 0
    assert server.wait_for("supervisor_stopped")["exit_code"] == 0
    assert len(server.events("child_exited")) == 2
    assert server.events("child_killed") == []


def test_the_metrics_process_stops_after_the_workers(served: Callable[..., Served]) -> None:
    """On SIGTERM the workers drain first; the metrics process, still answering scrapes
    during the drain, is stopped once no worker is left."""
    server = served(
        "--workers", "2", "--metrics-port", "0", "--metrics-host", "127.0.0.1",
        "--drain-delay-seconds", "1", "--grace-seconds", "0.5",
    )  # fmt: skip
    server.wait_for("supervisor_ready")
    assert server.terminate() == 0
    server.wait_for("supervisor_stopped")
    order = [e["child"] for e in server.events("child_exited")]
    assert sorted(order[:2]) == ["worker 0", "worker 1"] and order[2:] == ["metrics"]


def test_a_hangup_stops_the_workers_and_the_metrics_process_gracefully(
    served: Callable[..., Served],
) -> None:
    """SIGHUP (a closed terminal, a session that ends) stops the supervisor as SIGTERM
    does, not by its default action (an exit at once, the workers left to their
    parent-death signal and no line said)."""
    server = served("--workers", "2", "--metrics-port", "0", "--metrics-host", "127.0.0.1")
    server.wait_for("supervisor_ready")
    server.proc.send_signal(signal.SIGHUP)
    assert server.proc.wait(TIMEOUT) == 0
    assert server.wait_for("supervisor_stopping")["signal"] == "SIGHUP"
    assert server.wait_for("supervisor_stopped")["exit_code"] == 0
    exited = sorted(e["child"] for e in server.events("child_exited"))
    assert exited == ["metrics", "worker 0", "worker 1"]
    assert server.events("child_killed") == []


def test_a_second_signal_stops_at_once_with_exit_status_1(
    served: Callable[..., Served],
) -> None:
    """An operator's second SIGTERM (or Ctrl-C) during a long drain kills the workers
    and ends the supervisor at once, with status 1: not a graceful stop."""
    server = served("--workers", "2", "--drain-delay-seconds", "60")
    server.wait_for("supervisor_ready")
    server.proc.send_signal(signal.SIGTERM)
    server.wait_for("supervisor_stopping")
    server.proc.send_signal(signal.SIGINT)
    assert server.proc.wait(TIMEOUT) == 1
    assert server.wait_for("supervisor_forced_stop")["signal"] == "SIGINT"
    assert server.wait_for("supervisor_stopped")["exit_code"] == 1
    assert len(server.events("supervisor_forced_stop")) == 1


def test_a_worker_that_keeps_dying_young_comes_back_ever_later(
    served: Callable[..., Served],
) -> None:
    """Restarted at once the first time; dying again within STABLE_SECONDS, after 0.5 s,
    then 1 s (doubling up to 30 s): a worker that cannot live does not spin."""

    server = served("--workers", "2")
    server.wait_for("supervisor_ready")
    pid = next(e["pid"] for e in server.events("referee_serving") if e["worker"] == 0)
    delays, waited = [], []
    for _ in range(3):
        mark = server.mark()
        killed = time.monotonic()
        os.kill(pid, signal.SIGKILL)
        died = server.wait_for("child_died", since=mark, child="worker 0")
        pid = server.wait_for("referee_serving", since=mark, worker=0)["pid"]
        waited.append(time.monotonic() - killed)
        delays.append(died["restart_in_seconds"])
    assert delays == [0, 0.5, 1.0]
    assert waited[2] >= 1.0  # never sooner than the delay it announced
    assert server.terminate() == 0


# ------------------------------------------------- the supervisor's decisions, in process


class Recorded:
    """A stand-in for the supervisor's logger: each line as (event, fields)."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, object]]] = []
        self.level_of: list[tuple[str, str]] = []  # (event, level), in the same order

    def _at(level: str) -> Callable[..., None]:  # type: ignore[misc]
        def record(self: Recorded, event: str, **fields: object) -> None:
            self.lines.append((event, fields))
            self.level_of.append((event, level))

        return record

    info, warning, error = _at("info"), _at("warning"), _at("error")

    def events(self, name: str) -> list[dict[str, object]]:
        return [fields for event, fields in self.lines if event == name]

    def levels(self, name: str) -> list[str]:
        return [level for event, level in self.level_of if event == name]


class Children:
    """Made-up worker processes for a Supervisor run in the test's process: a signal
    sent to one (os.kill) makes it exit at once of that signal (os.waitpid reports it),
    and ``exit(pid, code)`` makes one exit by itself. No real process is touched."""

    def __init__(self, wake: int) -> None:
        self.wake = wake
        self.exits: list[tuple[int, int]] = []  # (pid, wait status) not reaped yet
        self.signals: list[tuple[int, int]] = []
        self.ignore_sigterm = False  # as a child stuck in a long call would

    def exit(self, pid: int, code: int) -> None:
        self.exits.append((pid, code << 8))  # the wait status of exit(code)
        os.write(self.wake, b"\0")  # as SIGCHLD would wake the supervisor's select

    def kill(self, pid: int, sig: int) -> None:
        self.signals.append((pid, sig))
        if sig == signal.SIGTERM and self.ignore_sigterm:
            return
        if sig in (workers_module.STACKS_SIGNAL, workers_module.HUNG_STACKS_SIGNAL):
            return  # handled (referee.stacks): goes on
        self.exits.append((pid, int(sig)))  # the wait status of a death by signal sig
        os.write(self.wake, b"\0")

    def waitpid(self, pid: int, options: int) -> tuple[int, int]:
        return self.exits.pop(0) if self.exits else (0, 0)


@pytest.fixture
def supervisor(
    monkeypatch: pytest.MonkeyPatch,
) -> Iterator[tuple[Supervisor, Children, Recorded]]:
    """A Supervisor of two workers, both started (made-up pids 1001 and 1002) and not
    ready yet, with its loop's pipes watched (``_setup``'s other work, ports and this
    process's signal handlers, not done)."""
    from referee import workers

    settings = ServerSettings(
        host="127.0.0.1", port=0, workers=2, grace_seconds=1, drain_delay_seconds=0
    )
    sup = workers.Supervisor(settings)
    children, recorded = Children(sup._sig_w), Recorded()
    monkeypatch.setattr(workers, "log", recorded)
    monkeypatch.setattr(workers.os, "kill", children.kill)
    monkeypatch.setattr(workers.os, "waitpid", children.waitpid)
    sup._watch_pipes()
    now = time.monotonic()
    for child, pid in zip(sup.children, (1001, 1002), strict=True):
        child.pid, child.started = pid, now
    try:
        yield sup, children, recorded
    finally:
        sup._sel.close()
        for fd in (sup._sig_r, sup._sig_w, sup._ready_r, sup._ready_w):
            os.close(fd)


def all_ready(sup: Supervisor) -> None:
    """Every child announced ready (just now): the start-up is over."""
    now = time.monotonic()
    for child in sup.children:
        child.ready, child.seen = True, now
    sup.all_ready = True


def run_loop(sup: Supervisor) -> int:
    """The supervisor's loop to its end, failing (not hanging) if it never ends."""
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(sup._loop()), daemon=True)
    thread.start()
    thread.join(10)
    assert result, "the supervisor's loop did not end"
    return result[0]


def test_a_worker_exiting_during_start_up_stops_the_server_with_status_1(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """A worker that exits before every worker is ready is not restarted: the start-up
    failed (a port, a key, a certificate the worker could not use), so the supervisor
    stops the others and exits 1 instead of restarting a worker that cannot start."""
    sup, children, recorded = supervisor
    children.exit(1001, 3)
    assert run_loop(sup) == 1
    assert recorded.events("child_failed_to_start") == [
        {"child": "worker 0", "child_pid": 1001, "exit_code": 3}
    ]
    assert recorded.events("child_died") == []  # not restarted
    assert sup.fatal == "worker 0 exited during start-up"
    assert recorded.events("supervisor_stopping")[0]["reason"] == sup.fatal
    assert children.signals == [(1002, signal.SIGTERM)]  # the other worker stopped
    assert recorded.events("child_exited") == [
        {"child": "worker 1", "child_pid": 1002, "signal": "SIGTERM"}
    ]
    assert recorded.events("supervisor_stopped") == [{"exit_code": 1}]
    assert all(c.restart_at is None and c.pid == 0 for c in sup.children)


def test_a_clean_stop_exits_0(supervisor: tuple[Supervisor, Children, Recorded]) -> None:
    """The same loop stopped by a signal, every worker ready: status 0."""
    sup, children, recorded = supervisor
    all_ready(sup)
    os.write(children.wake, bytes([signal.SIGTERM]))  # as the signal's wakeup byte
    assert run_loop(sup) == 0
    assert sorted(children.signals) == [(1001, signal.SIGTERM), (1002, signal.SIGTERM)]
    assert [e["child"] for e in recorded.events("child_exited")] == ["worker 0", "worker 1"]
    assert recorded.events("supervisor_stopping")[0]["signal"] == "SIGTERM"
    assert recorded.events("supervisor_stopped") == [{"exit_code": 0}]


@pytest.mark.parametrize(
    ("code", "how"),
    [(3, {"exit_code": 3}), (0, {"exit_code": 0}), (-9, {"signal": "SIGKILL"})],
)
def test_a_dead_worker_is_reported_with_its_exit_status_or_signal(
    supervisor: tuple[Supervisor, Children, Recorded], code: int, how: dict[str, object]
) -> None:
    sup, _, recorded = supervisor
    all_ready(sup)
    worker = sup.children[1]
    sup._exited(worker, code)
    (died,) = recorded.events("child_died")
    assert {k: died[k] for k in how} == how and died["child"] == "worker 1"
    (other,) = {"exit_code", "signal"} - set(how)
    assert died["child_pid"] == 1002 and other not in died
    assert (worker.pid, worker.ready, worker.failures) == (0, False, 1)
    assert worker.restart_at is not None


@pytest.mark.parametrize(
    ("lived", "ready", "failures_before", "failures_after", "delay"),
    [
        (10.0, True, 3, 0, 0.0),  # lived STABLE_SECONDS, ready: a fresh start
        (60.0, True, 9, 0, 0.0),
        (9.9, True, 0, 1, 0.0),  # young: the first failure is restarted at once
        (9.9, True, 1, 2, 0.5),  # then 0.5 s, doubling
        (9.87654, True, 3, 4, 2.0),
        (60.0, False, 2, 3, 1.0),  # long-lived but never ready: still failing
        (0.1, False, 7, 8, 30.0),  # 0.5 x 2^6 = 32: capped at RESTART_BACKOFF_MAX
        (0.1, False, 20, 21, 30.0),
    ],
)
def test_the_restart_delay_follows_the_failures_and_resets_after_a_stable_run(
    supervisor: tuple[Supervisor, Children, Recorded],
    monkeypatch: pytest.MonkeyPatch,
    lived: float,
    ready: bool,
    failures_before: int,
    failures_after: int,
    delay: float,
) -> None:
    from referee import workers

    sup, _, recorded = supervisor
    sup.all_ready = True
    worker = sup.children[0]
    worker.started, worker.ready, worker.failures = 1000.0, ready, failures_before
    clock = type("Clock", (), {"monotonic": staticmethod(lambda: 1000.0 + lived)})
    monkeypatch.setattr(workers, "time", clock)
    sup._exited(worker, -9)
    assert worker.failures == failures_after
    (died,) = recorded.events("child_died")
    assert died["restart_in_seconds"] == delay and died["lived_seconds"] == round(lived, 3)
    assert worker.restart_at == 1000.0 + lived + delay


def test_a_worker_dying_during_a_stop_is_not_restarted(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    sup, _, recorded = supervisor
    sup.all_ready = sup.stopping = True
    sup._exited(sup.children[0], 0)
    assert recorded.events("child_exited") == [
        {"child": "worker 0", "child_pid": 1001, "exit_code": 0}
    ]
    assert recorded.events("child_died") == [] and sup.children[0].restart_at is None
    assert sup.children[0].failures == 0


def test_the_metrics_process_is_stopped_once_every_worker_has_exited(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """Its last scrape still sums every worker: SIGTERM goes to the workers first, to
    the metrics process only when none is left."""
    from referee.workers import _Child

    sup, children, recorded = supervisor
    sup.children.append(_Child("metrics", 0, pid=1003, ready=True))
    all_ready(sup)
    os.write(children.wake, bytes([signal.SIGINT]))
    assert run_loop(sup) == 0
    assert children.signals == [
        (1001, signal.SIGTERM),
        (1002, signal.SIGTERM),
        (1003, signal.SIGTERM),
    ]
    exited = [e["child"] for e in recorded.events("child_exited")]
    assert exited == ["worker 0", "worker 1", "metrics"]


def test_a_third_signal_changes_nothing_more(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """The first signal drains, the second kills every child at once (exit status 1),
    any later one is ignored: one supervisor_forced_stop, one SIGKILL per child."""
    sup, children, recorded = supervisor
    all_ready(sup)
    children.ignore_sigterm = True  # the workers are still draining
    os.write(children.wake, bytes([signal.SIGTERM, signal.SIGINT, signal.SIGTERM]))
    assert run_loop(sup) == 1
    assert recorded.events("supervisor_forced_stop") == [{"signal": "SIGINT"}]
    assert children.signals == [
        (1001, signal.SIGTERM),
        (1002, signal.SIGTERM),
        (1001, signal.SIGKILL),
        (1002, signal.SIGKILL),
    ]
    assert recorded.events("supervisor_stopped") == [{"exit_code": 1}]


def test_a_restarted_metrics_process_is_still_stopped_by_sigterm(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """A child's record is reset when it dies, the 'signalled' mark with it: the metrics
    process started again after a crash gets its SIGTERM at the stop, not a SIGKILL at
    the deadline."""
    from referee.workers import _Child

    sup, children, recorded = supervisor
    metrics = _Child("metrics", 0, pid=1003, ready=True)
    sup.children.append(metrics)
    all_ready(sup)
    sup._signal(metrics, signal.SIGKILL)  # it crashes (here: killed; reaped below)
    children.exits.clear()
    sup._exited(metrics, -signal.SIGKILL)
    assert recorded.events("child_died")[0]["child"] == "metrics"
    metrics.pid, metrics.ready = 1004, True  # as _spawn would restart it
    metrics.restart_at = None
    os.write(children.wake, bytes([signal.SIGTERM]))
    assert run_loop(sup) == 0
    assert (1004, signal.SIGTERM) in children.signals
    assert (1004, signal.SIGKILL) not in children.signals


# ------------------------------------------------------------ hung workers


def test_a_worker_silent_for_worker_hang_seconds_is_killed_then_restarted(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """A ready worker whose last line (readiness or heartbeat) is worker_hang_seconds
    old is killed (SIGKILL: a stuck process may not heed SIGTERM) and, reaped, restarted
    like any dead worker; one heard from more recently is left alone."""
    sup, children, recorded = supervisor
    all_ready(sup)
    hang = sup.settings.worker_hang_seconds
    assert hang == 30.0  # the default
    now = time.monotonic()
    sup.children[0].seen = now - hang
    sup.children[1].seen = now - hang + 0.5
    assert sup._hang_deadline() == now  # the loop wakes up for the oldest
    sup._kill_hung(now)
    assert children.signals == [(1001, signal.SIGKILL)]
    assert recorded.events("child_hung") == [
        {"child": "worker 0", "child_pid": 1001, "silent_seconds": hang}
    ]
    sup._kill_hung(now + 0.1)  # signalled already: not killed twice
    assert children.signals == [(1001, signal.SIGKILL)]
    sup._reap()
    (died,) = recorded.events("child_died")
    assert died["child"] == "worker 0" and died["signal"] == "SIGKILL"
    assert sup.children[0].restart_at is not None and sup.children[1].pid == 1002


def test_a_hung_worker_is_asked_for_its_stacks_then_killed_and_they_are_logged(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """A hung worker with a stacks pipe is sent HUNG_STACKS_SIGNAL first (faulthandler's,
    which answers even from a worker stuck holding the GIL), SIGKILLed
    STACKS_SECONDS later; once reaped, what it wrote to the pipe is logged as
    ``child_stacks`` and the pipe closed."""
    sup, children, recorded = supervisor
    all_ready(sup)
    stacks_r, stacks_w = os.pipe()
    os.set_blocking(stacks_r, False)
    sup.children[0].stacks_r = stacks_r
    trace = b'Thread 0x00007f (most recent call first):\n  File "x.py", line 3 in stuck\n'
    os.write(stacks_w, trace)
    os.close(stacks_w)  # the worker is gone: its end closed
    hang = sup.settings.worker_hang_seconds
    now = time.monotonic()
    sup.children[0].seen = now - hang
    sup._kill_hung(now)
    assert children.signals == [(1001, signal.SIGUSR1)]
    assert recorded.events("child_hung")[0]["child"] == "worker 0"
    sup._kill_hung(now + 0.1)  # asked already: not again
    sup._kill_due(now + workers_module.STACKS_SECONDS - 0.01)
    assert children.signals == [(1001, signal.SIGUSR1)]
    sup._kill_due(now + workers_module.STACKS_SECONDS)
    assert children.signals == [(1001, signal.SIGUSR1), (1001, signal.SIGKILL)]
    sup._kill_due(now + 5)  # once
    assert len(children.signals) == 2
    sup._reap()
    assert recorded.events("child_stacks") == [
        {"child": "worker 0", "child_pid": 1001, "stacks": trace.decode(), "truncated": False}
    ]
    assert recorded.levels("child_stacks") == ["error"]  # a hung worker's: a fault
    assert recorded.events("child_died")[0]["signal"] == "SIGKILL"
    assert sup.children[0].stacks_r == -1 and sup.children[0].kill_at is None
    with pytest.raises(OSError):
        os.fstat(stacks_r)  # closed


def test_the_loop_wakes_up_for_a_hung_workers_kill(
    supervisor: tuple[Supervisor, Children, Recorded], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The supervisor's own loop: a worker silent past the hang time is asked for its
    stacks, then killed on time although nothing else wakes the loop; once reaped (its
    pipe empty: a stopped worker writes nothing), it is restarted, no child_stacks."""
    sup, children, recorded = supervisor
    monkeypatch.setattr(workers_module, "STACKS_SECONDS", 0.05)  # no second spent waiting
    all_ready(sup)
    sup.settings = dataclasses.replace(sup.settings, worker_hang_seconds=3)
    stacks_r, stacks_w = os.pipe()
    os.set_blocking(stacks_r, False)
    os.close(stacks_w)
    sup.children[0].stacks_r = stacks_r
    sup.children[1].seen = time.monotonic() + 3600  # never due in this test
    sup.children[0].seen = time.monotonic() - 3
    spawned: list[str] = []
    sup._spawn = lambda child: spawned.append(child.name)  # type: ignore[method-assign]

    def stop_after_restart() -> None:
        deadline = time.monotonic() + 30
        while not spawned and time.monotonic() < deadline:
            time.sleep(0.01)
        os.write(children.wake, bytes([signal.SIGTERM]))

    stopper = threading.Thread(target=stop_after_restart)
    stopper.start()
    try:
        assert run_loop(sup) == 0
    finally:
        stopper.join()
    assert children.signals[:2] == [(1001, signal.SIGUSR1), (1001, signal.SIGKILL)]
    assert spawned == ["worker 0"]
    assert recorded.events("child_stacks") == []


def test_heartbeats_keep_a_worker_and_nothing_is_watched_when_off_or_stopping(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    sup, children, _ = supervisor
    all_ready(sup)
    old = time.monotonic() - 60
    for child in sup.children:
        child.seen = old
    # A heartbeat line (the readiness line again) is a sign of life.
    os.write(sup._ready_w, b"worker 1 1002\n")
    sup._read_ready()
    assert sup.children[1].seen > old and sup.children[0].seen == old
    sup._kill_hung(time.monotonic())
    assert children.signals == [(1001, signal.SIGKILL)]
    # worker_hang_seconds 0: never.
    sup.settings = dataclasses.replace(sup.settings, worker_hang_seconds=0)
    sup.children[1].seen = old
    assert sup._hang_deadline() is None
    sup._kill_hung(time.monotonic())
    assert children.signals == [(1001, signal.SIGKILL)]


def test_no_worker_is_killed_as_hung_during_a_stop(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """Stopping, the workers drain (silent or not): the stop's own deadline applies."""
    sup, children, recorded = supervisor
    all_ready(sup)
    for child in sup.children:
        child.seen = time.monotonic() - 60
    os.write(children.wake, bytes([signal.SIGTERM]))
    assert run_loop(sup) == 0
    assert recorded.events("child_hung") == []
    assert sorted(children.signals) == [(1001, signal.SIGTERM), (1002, signal.SIGTERM)]


def test_a_stopped_worker_is_found_hung_and_replaced(served: Callable[..., Served]) -> None:
    """End to end: a worker stopped outright (SIGSTOP: no heartbeat, no answer) is killed
    after --worker-hang-seconds and a new one serves in its place."""
    server = served("--workers", "2", "--worker-hang-seconds", "3")
    started = server.wait_for("supervisor_started")
    server.wait_for("supervisor_ready")
    pids = {e["worker"]: e["pid"] for e in server.events("referee_serving")}
    mark = server.mark()
    os.kill(pids[1], signal.SIGSTOP)
    hung = server.wait_for("child_hung", since=mark, child="worker 1")
    assert hung["child_pid"] == pids[1] and hung["silent_seconds"] >= 3
    died = server.wait_for("child_died", since=mark, child="worker 1")
    assert died["signal"] == "SIGKILL"
    back = server.wait_for("referee_serving", since=mark, worker=1)
    assert back["pid"] != pids[1] and back["port"] == started["port"]
    # The other worker, heard from every second, was never taken for hung.
    assert [e["child"] for e in server.events("child_hung")] == ["worker 1"]
    assert server.terminate() == 0


def list_games(ch: grpc.Channel) -> int:
    stub = referee_pb2_grpc.RefereeServiceStub(ch)  # type: ignore[no-untyped-call]
    return len(stub.ListGames(pb.ListGamesRequest(), timeout=TIMEOUT).games)


def test_a_worker_writes_its_stacks_on_the_signal_and_goes_on(
    served: Callable[..., Served],
) -> None:
    """End to end: STACKS_SIGNAL makes a real worker write every thread's Python stack
    to its stacks pipe and go on serving (the signal does not kill it); the supervisor
    logs them as they come, while the worker runs, and not again when it exits."""
    server = served("--workers", "2", "--worker-hang-seconds", "30")
    server.wait_for("supervisor_ready")
    pids = {e["worker"]: e["pid"] for e in server.events("referee_serving")}
    os.kill(pids[0], signal.SIGUSR2)
    stacks = server.wait_for("child_stacks")
    assert stacks["child"] == "worker 0" and stacks["child_pid"] == pids[0]
    assert stacks["truncated"] is False
    assert stacks["level"] == "info"  # asked for: no fault, no alert
    text = stacks["stacks"]
    assert "most recent call first" in text and 'File "' in text
    assert "referee/" in text  # a frame of the server's own code
    # Written by referee.stacks under the GIL (faulthandler names no thread).
    assert "(MainThread) (most recent call first)" in text
    with channel(server.wait_for("supervisor_started")["port"]) as ch:  # still serving
        assert list_games(ch)
    assert server.terminate() == 0
    assert server.events("child_died") == []  # the signal killed nothing
    assert len(server.events("child_stacks")) == 1
    exited = [e for e in server.events("child_exited") if e["child"] == "worker 0"]
    assert exited and exited[0]["exit_code"] == 0


def test_a_worker_signalled_as_a_hung_one_writes_faulthandlers_stacks(
    served: Callable[..., Served],
) -> None:
    """End to end: HUNG_STACKS_SIGNAL, what the supervisor sends a worker with no
    heartbeat, is faulthandler's (it answers even with the GIL held): a real worker
    writes its stacks and, not killed by it, goes on serving."""
    server = served("--workers", "2", "--worker-hang-seconds", "30")
    server.wait_for("supervisor_ready")
    pids = {e["worker"]: e["pid"] for e in server.events("referee_serving")}
    os.kill(pids[1], workers_module.HUNG_STACKS_SIGNAL)
    stacks = server.wait_for("child_stacks", child="worker 1")
    text = stacks["stacks"]
    assert "most recent call first" in text and 'File "' in text
    assert "(MainThread)" not in text  # faulthandler's text, not referee.stacks'
    with channel(server.wait_for("supervisor_started")["port"]) as ch:
        assert list_games(ch)
    assert server.terminate() == 0
    assert server.events("child_died") == []


def test_the_signal_to_the_supervisor_logs_every_workers_stacks(
    served: Callable[..., Served],
) -> None:
    """``kill -USR2`` to the supervisor (PID 1 in a container): every worker's stacks
    are logged, and nothing stops or restarts. The metrics process is not asked (it
    has no stacks pipe: the signal would end it)."""
    server = served(
        "--workers", "2", "--worker-hang-seconds", "30",
        "--metrics-port", "0", "--metrics-host", "127.0.0.1",
    )  # fmt: skip
    server.wait_for("supervisor_ready")
    pids = {e["worker"]: e["pid"] for e in server.events("referee_serving")}
    os.kill(server.proc.pid, signal.SIGUSR2)
    asked = server.wait_for("supervisor_stacks_asked")
    assert sorted(asked["workers"]) == ["worker 0", "worker 1"]
    for worker in (0, 1):
        stacks = server.wait_for("child_stacks", child=f"worker {worker}")
        assert stacks["child_pid"] == pids[worker] and 'File "' in stacks["stacks"]
        assert stacks["level"] == "info"
    with channel(server.wait_for("supervisor_started")["port"]) as ch:
        assert list_games(ch)
    assert server.proc.poll() is None
    assert server.terminate() == 0
    assert server.events("child_died") == [] and len(server.events("child_started")) == 3


def test_a_one_process_server_writes_its_stacks_on_the_signal_and_goes_on(
    served: Callable[..., Served],
) -> None:
    """Without a supervisor (one process), SIGUSR2's stacks go to stderr, and the server
    goes on serving (the signal's default action would have killed it)."""
    server = served("--workers", "1")
    serving = server.wait_for("referee_serving")
    os.kill(server.proc.pid, signal.SIGUSR2)
    wait_until(lambda: "most recent call first" in "".join(server.raw), "the stacks")
    with channel(serving["port"]) as ch:
        assert list_games(ch)
    assert server.terminate() == 0


def test_stacks_are_logged_once_their_writer_is_quiet_and_not_again_at_its_exit(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """In-process: what a live worker writes to its stacks pipe is read as it comes
    and logged once quiet for STACKS_SETTLE_SECONDS, with the worker's pid; what it
    writes later is logged apart, at its exit at the latest; the pipe's end takes it
    out of the loop's selector."""
    sup, children, recorded = supervisor
    all_ready(sup)
    child = sup.children[0]
    stacks_r, stacks_w = os.pipe()
    os.set_blocking(stacks_r, False)
    child.stacks_r = stacks_r
    sup._sel.register(stacks_r, selectors.EVENT_READ, child)
    first, second = b"Thread 0x1 (most recent call first):\n", b'  File "y.py", line 9 in f\n'
    os.write(stacks_w, first)
    sup._read_stacks(child)
    assert child.stacks_due is not None
    sup._flush_stacks(child.stacks_due - 0.01)  # not quiet long enough
    assert recorded.events("child_stacks") == []
    sup._flush_stacks(child.stacks_due)
    assert recorded.events("child_stacks") == [
        {"child": "worker 0", "child_pid": 1001, "stacks": first.decode(), "truncated": False}
    ]
    assert recorded.levels("child_stacks") == ["info"]  # a live worker's, asked for
    assert child.stacks == b"" and child.stacks_due is None
    os.write(stacks_w, second)
    os.close(stacks_w)  # the worker is gone
    sup._read_stacks(child)
    assert stacks_r not in sup._sel.get_map()  # its end: out of the selector
    children.exit(1001, 0)
    sup._reap()  # reaped before the second dump settled: logged now
    events = recorded.events("child_stacks")
    assert len(events) == 2 and events[1]["stacks"] == second.decode()
    assert events[1]["child_pid"] == 1001 and child.stacks_r == -1


def test_stacks_that_keep_coming_are_logged_a_second_after_the_first(
    supervisor: tuple[Supervisor, Children, Recorded], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker writing again and again never looks quiet: what it wrote is logged
    STACKS_SECONDS after the first bytes all the same."""
    sup, _, recorded = supervisor
    clock = [1000.0]
    monkeypatch.setattr(workers_module.time, "monotonic", lambda: clock[0])
    child = sup.children[0]
    stacks_r, stacks_w = os.pipe()
    os.set_blocking(stacks_r, False)
    child.stacks_r = stacks_r
    sup._sel.register(stacks_r, selectors.EVENT_READ, child)
    for i in range(30):  # every 50 ms, for 1.5 s
        clock[0] = 1000.0 + i * 0.05
        os.write(stacks_w, b"line\n")
        sup._read_stacks(child)
        sup._flush_stacks(clock[0])
    # Logged 1 s after the first line (21 lines by then), not never; the next 9 wait
    # for their own second.
    (event,) = recorded.events("child_stacks")
    assert event["stacks"] == "line\n" * 21 and child.stacks == b"line\n" * 9
    os.close(stacks_w)


def test_stacks_beyond_the_limit_are_cut_and_said_to_be(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    sup, _, recorded = supervisor
    all_ready(sup)
    child = sup.children[0]
    stacks_r, stacks_w = os.pipe()
    os.set_blocking(stacks_r, False)
    os.set_blocking(stacks_w, False)
    child.stacks_r = stacks_r
    sup._sel.register(stacks_r, selectors.EVENT_READ, child)
    for _ in range(3):  # more than the limit, in three writes read apart
        os.write(stacks_w, b"x" * (workers_module.STACKS_MAX_BYTES // 2))
        sup._read_stacks(child)
    sup._flush_stacks(time.monotonic() + 1)
    (event,) = recorded.events("child_stacks")
    assert len(event["stacks"]) == workers_module.STACKS_MAX_BYTES and event["truncated"]
    # The next dump starts afresh: whole, and not said to be cut.
    os.write(stacks_w, b"short\n")
    sup._read_stacks(child)
    sup._flush_stacks(time.monotonic() + 1)
    assert recorded.events("child_stacks")[1:] == [
        {"child": "worker 0", "child_pid": 1001, "stacks": "short\n", "truncated": False}
    ]
    # A dump of exactly the limit is whole.
    os.write(stacks_w, b"y" * workers_module.STACKS_MAX_BYTES)
    sup._read_stacks(child)
    sup._flush_stacks(time.monotonic() + 1)
    last = recorded.events("child_stacks")[-1]
    assert len(last["stacks"]) == workers_module.STACKS_MAX_BYTES and not last["truncated"]
    os.close(stacks_w)


@pytest.fixture
def core_files_allowed() -> Iterator[None]:
    """This process, and so the server it starts, allowed core files as far as the hard
    limit lets it: the server must lower the limit itself."""
    soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (hard, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_CORE, (soft, hard))


def core_file_limit(pid: int) -> int:
    """A process's soft limit on the size of its core files (/proc/PID/limits). The
    server's memory holds hands, seeds and seal keys: it sets 0, so a crash (the
    tests below send SIGSEGV) writes no core file."""
    for line in Path(f"/proc/{pid}/limits").read_text().splitlines():
        if line.startswith("Max core file size"):
            soft = line.split()[4]
            return -1 if soft == "unlimited" else int(soft)
    raise AssertionError(f"no core file limit for {pid}")


def test_a_failed_fork_leaves_no_stacks_pipe_open(
    supervisor: tuple[Supervisor, Children, Recorded],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sup, _, _ = supervisor

    def no_fork() -> int:
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(workers_module.os, "fork", no_fork)
    before = sorted(os.listdir("/proc/self/fd"))
    with pytest.raises(BlockingIOError):
        sup._spawn(sup.children[0])
    assert sorted(os.listdir("/proc/self/fd")) == before
    assert sup.children[0].stacks_r == -1


def test_a_crashed_workers_stacks_are_logged_and_it_is_replaced(
    served: Callable[..., Served], core_files_allowed: None
) -> None:
    """A worker dying of a fatal signal (SIGSEGV, as a crash in a C extension) writes
    every thread's Python stack first (faulthandler, to its stacks pipe); the supervisor
    logs them as ``child_stacks`` with the death, and restarts it. Also with the hang
    watchdog off."""
    server = served("--workers", "2", "--worker-hang-seconds", "0")
    server.wait_for("supervisor_ready")
    pids = {e["worker"]: e["pid"] for e in server.events("referee_serving")}
    for pid in (server.proc.pid, *pids.values()):  # no core file of the crash
        assert core_file_limit(pid) == 0
    mark = server.mark()
    os.kill(pids[1], signal.SIGSEGV)
    died = server.wait_for("child_died", since=mark, child="worker 1")
    assert died["signal"] == "SIGSEGV"
    stacks = server.wait_for("child_stacks", since=mark, child="worker 1")
    assert stacks["child_pid"] == pids[1]
    assert "Fatal Python error: Segmentation fault" in stacks["stacks"]
    assert 'File "' in stacks["stacks"] and stacks["level"] == "error"
    server.wait_for("referee_serving", since=mark, worker=1)
    assert server.terminate() == 0


def test_a_one_process_server_writes_its_stacks_on_a_crash(
    served: Callable[..., Served], core_files_allowed: None
) -> None:
    """Without a supervisor (one process), a fatal signal's stacks go to stderr."""
    server = served("--workers", "1")
    server.wait_for("referee_serving")
    assert core_file_limit(server.proc.pid) == 0
    os.kill(server.proc.pid, signal.SIGSEGV)
    assert server.proc.wait(TIMEOUT) == -signal.SIGSEGV
    wait_until(lambda: server._closed, "the end of its stderr")
    text = "".join(server.raw)
    assert "Fatal Python error: Segmentation fault" in text and 'File "' in text


def test_a_supervisor_that_overslept_gives_every_worker_a_fresh_window(
    supervisor: tuple[Supervisor, Children, Recorded],
) -> None:
    """The whole server paused (docker pause, a frozen cgroup) and resumed: the
    supervisor wakes long after the hang deadline it slept for, before the workers'
    late beats are read. It takes none of them for hung: each gets a fresh window."""
    sup, children, recorded = supervisor
    all_ready(sup)
    hang = sup.settings.worker_hang_seconds
    now = time.monotonic()
    for child in sup.children:
        child.seen = now - 120
    due = now - 120 + hang  # the deadline the loop slept for, 90 s ago
    sup._kill_hung(now, due)
    assert children.signals == []
    assert [c.seen for c in sup.children] == [now, now]
    assert recorded.events("supervisor_overslept") == [{"late_seconds": 90.0}]
    sup._kill_hung(now + 1, now - 1 + hang)  # on time (1 s late at most): as before
    assert children.signals == []
    # Silent past the hang time, woken on time. (Not exactly at it: (now + hang) - now
    # rounds below hang for about one value of the clock in a thousand.)
    sup._kill_hung(now + hang + 1, now + hang + 1)
    assert sorted(children.signals) == [(1001, signal.SIGKILL), (1002, signal.SIGKILL)]


def test_a_stop_waits_for_the_last_spans_before_it_kills_a_worker() -> None:
    """With --tracing otlp a stopping worker sends its last spans (up to
    referee.tracing.FLUSH_SECONDS) after its grace: the supervisor waits that too."""
    from referee import workers
    from referee.tracing import FLUSH_SECONDS

    plain = ServerSettings(drain_delay_seconds=15, grace_seconds=30)
    assert workers.kill_after_seconds(plain) == 15 + 30 + workers.KILL_MARGIN_SECONDS
    traced = ServerSettings(drain_delay_seconds=15, grace_seconds=30, tracing="otlp")
    assert workers.kill_after_seconds(traced) == workers.kill_after_seconds(plain) + FLUSH_SECONDS
