"""Several worker processes on one port: ``referee serve --workers N``.

Python runs one thread of Python at a time, so one process uses one core. The
supervisor (this module, PID 1 in the container) forks N workers *before any
gRPC object exists* (gRPC's core cannot be forked once started), each worker
runs its own gRPC server (``--engine``) bound to the same port with ``SO_REUSEPORT``, and
the kernel spreads incoming **connections** (not calls) over the workers. A
client with one connection talks to one worker; clients should open several
connections, or several clients share the load (see docs/deploy.md).

The supervisor:

- checks the ports are free, then holds them (a bound ``SO_REUSEPORT`` socket
  that does not listen) so that port 0 resolves to one port for all workers and
  nobody else takes it while a worker restarts;
- with ``--metrics-port``, makes the prometheus-client multiprocess directory
  and forks a metrics process that serves the sum of all workers' metrics;
- restarts a worker that dies (at once, or with an exponential backoff up to
  30 s if it keeps dying within 10 s of its start); a worker that dies before
  every process first became ready stops everything (exit 1): that is a start-up
  problem, not a crash to paper over;
- on SIGTERM, SIGINT or SIGHUP (``STOP_SIGNALS``), forwards SIGTERM to the workers,
  which drain (health NOT_SERVING, drain delay, in-flight calls finish within the
  grace), waits for them (SIGKILL after drain delay + grace + 5 s), stops the
  metrics process and exits 0. A second signal kills the workers at once (exit 1);
- kills and replaces a worker silent for ``--worker-hang-seconds`` (no heartbeat),
  after asking it for its Python stacks;
- logs what a worker writes to its stacks pipe (``child_stacks``): its Python stacks
  on SIGUSR2 (sent to the supervisor, it asks every worker) or on a fatal signal.

The supervisor never creates a thread, an event loop or a gRPC object: it is a
``selectors`` loop over a signal wake-up pipe, a readiness pipe the children
write to and the workers' stacks pipes. Children die with it (``PR_SET_PDEATHSIG``).
"""

from __future__ import annotations

import contextlib
import math
import os
import selectors
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from referee import logs, stacks
from referee.logs import get_logger

if TYPE_CHECKING:
    from referee.metrics import Metrics
    from referee.server import ServerSettings

log = get_logger("referee.supervisor")

RESTART_BACKOFF_FIRST = 0.5
RESTART_BACKOFF_MAX = 30.0
STABLE_SECONDS = 10.0  # a worker that ran this long is restarted without delay
KILL_MARGIN_SECONDS = 5.0
HEARTBEAT_SECONDS = 1.0  # a worker's heartbeat line (with worker_hang_seconds > 0)
# What stops a server, a worker, the supervisor or the gRPC-Web gateway gracefully.
# SIGHUP too: its default action is an exit with no drain (a closed terminal, a session
# that ends under systemd or ssh), and there is nothing to reload on it (the tokens, TLS
# and key files reload by themselves, docs/operations.md).
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
# An operator's question (kill -USR2, to the supervisor or a worker): a worker writes its
# threads' Python stacks to its stacks pipe from a Python signal handler, and goes on.
STACKS_SIGNAL = stacks.ASK_SIGNAL
# A hung worker is sent HUNG_STACKS_SIGNAL (its stacks written by faulthandler, from its
# C signal handler, so even a worker stuck holding the GIL answers) and SIGKILLed this
# long after. Two signals: faulthandler's dump reads the other threads' frames without
# the GIL, which can crash a worker that is running (referee/stacks.py).
HUNG_STACKS_SIGNAL = stacks.HUNG_SIGNAL
STACKS_SECONDS = 1.0
STACKS_MAX_BYTES = 64 * 1024  # logged of a worker's stacks at a time, at most
# Stacks are logged once their writer has been quiet this long (faulthandler writes a
# dump line by line, from its signal handler, within milliseconds), or when it exits.
STACKS_SETTLE_SECONDS = 0.1


def available_cpus() -> int:
    """CPUs this process may use: its affinity, capped by a cgroup CPU quota
    (a container limited to 2 CPUs on a 64-core node gets 2)."""
    try:
        count = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        count = os.cpu_count() or 1
    quota = _cgroup_cpu_quota()
    if quota is not None:
        count = min(count, max(1, math.ceil(quota)))
    return max(1, count)


def own_cpu(worker: int, workers: int) -> int | None:
    """The CPU to pin worker ``worker`` of ``workers`` to, or None (not pinned).

    Pinned only where the CPUs are the workers' own: as many workers as CPUs in this
    process's affinity, and no cgroup CPU quota narrower than them (a container given
    exclusive CPUs, as Kubernetes' static CPU manager does for whole-CPU requests; a
    VM). A quota narrower than the affinity means CPUs shared with other containers,
    where every replica would pin its first worker to the same CPU."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return None
    if workers != len(cpus):
        return None
    quota = _cgroup_cpu_quota()
    if quota is not None and quota < len(cpus):
        return None
    return cpus[worker % len(cpus)]


def _cgroup_cpu_quota(root: str = "/sys/fs/cgroup") -> float | None:
    try:  # cgroup v2
        with open(os.path.join(root, "cpu.max")) as f:
            quota, period = f.read().split()[:2]
        return None if quota == "max" else int(quota) / int(period)
    except (OSError, ValueError):
        pass
    try:  # cgroup v1
        with open(os.path.join(root, "cpu", "cpu.cfs_quota_us")) as f:
            quota_us = int(f.read())
        with open(os.path.join(root, "cpu", "cpu.cfs_period_us")) as f:
            period_us = int(f.read())
        return None if quota_us <= 0 else quota_us / period_us
    except (OSError, ValueError):
        return None


def _socket_for(family: socket.AddressFamily) -> socket.socket:
    s = socket.socket(family, socket.SOCK_STREAM)
    if family == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)  # dual stack, as gRPC
    return s


def probe_port(host: str, port: int) -> tuple[socket.AddressFamily, Any]:
    """Check that ``host:port`` can be bound by a server of its own: an exclusive bind
    (``SO_REUSEADDR``, as gRPC and the metrics server set, but no ``SO_REUSEPORT``), then
    closed. Returns the address family and the socket address (its port the one bound,
    for port 0). A server listening on the port, or a host that is not this machine's,
    raises the ``OSError`` of the bind (``errno`` set; ``socket.gaierror`` for a host that
    does not resolve): ``referee serve`` checks its ports so before gRPC binds them, which
    would log its own line first (docs/operations.md)."""
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = infos[0]
    probe = _socket_for(family)
    try:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        probe.bind(address)
        return family, (address[0], probe.getsockname()[1], *address[2:])
    finally:
        probe.close()


def reserve_port(host: str, port: int, what: str = "port") -> socket.socket:
    """Check that ``host:port`` is free, then hold it for the workers.

    The check is an exclusive bind (:func:`probe_port`), so another server, or
    another Referee, already on the port is an error here and not a silent
    sharing of connections. The returned socket is bound with ``SO_REUSEPORT``
    and never listens: it receives no connection, it only keeps the port."""
    try:
        family, address = probe_port(host, port)
    except socket.gaierror as e:
        raise OSError(f"cannot resolve {what} host {host!r}: {e.strerror}") from None
    except OSError as e:
        raise OSError(f"cannot bind {what} {host}:{port}: {e.strerror or e}") from None
    hold = _socket_for(family)
    try:
        hold.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        hold.bind(address)
    except OSError as e:
        hold.close()
        raise OSError(f"cannot bind {what} {host}:{port}: {e.strerror or e}") from None
    return hold


@dataclass(slots=True)
class _Child:
    kind: str  # "worker" or "metrics"
    index: int
    pid: int = 0
    started: float = 0.0
    ready: bool = False
    failures: int = 0
    restart_at: float | None = None
    signalled: bool = False
    seen: float = 0.0  # when its last line (readiness, heartbeat) was read
    stacks_r: int = -1  # the read end of its stacks pipe (a worker's)
    stacks: bytes = b""  # read from it, not yet logged
    stacks_truncated: bool = False
    stacks_due: float | None = None  # when what was read is logged
    stacks_since: float = 0.0  # when the first of it was read
    kill_at: float | None = None  # SIGKILL due (a hung worker, its stacks asked for)

    @property
    def name(self) -> str:
        return f"worker {self.index}" if self.kind == "worker" else "metrics"


def _die_with_parent() -> None:
    """Ask the kernel to send SIGTERM to this process when its parent dies (Linux)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        libc.prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def kill_after_seconds(settings: ServerSettings) -> float:
    """How long after a stop begins the supervisor kills a worker still running: its
    drain delay and grace, ``KILL_MARGIN_SECONDS``, and with tracing on the time a
    worker may take to send its last spans (referee.tracing.FLUSH_SECONDS)."""
    seconds = settings.drain_delay_seconds + settings.grace_seconds + KILL_MARGIN_SECONDS
    if settings.tracing != "off":
        from referee.tracing import FLUSH_SECONDS

        seconds += FLUSH_SECONDS
    return seconds


class Supervisor:
    """Runs N workers (and a metrics process) until SIGTERM/SIGINT."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.pid = os.getpid()
        self.children = [_Child("worker", i) for i in range(settings.workers)]
        self.metrics: Metrics | None = None
        self.metrics_dir: str | None = None
        self._own_metrics_dir = False
        self._holds: list[socket.socket] = []
        self._metrics_sock: socket.socket | None = None
        self._sel = selectors.DefaultSelector()
        self._sig_r, self._sig_w = os.pipe()
        self._ready_r, self._ready_w = os.pipe()
        self._ready_buffer = b""
        self.stopping = False
        self.forced = False
        self.fatal = ""
        self.all_ready = False
        self._kill_at = 0.0

    # ------------------------------------------------------------ set-up

    def _setup(self) -> None:
        s = self.settings
        main = reserve_port(s.host, s.port)
        self._holds.append(main)
        updates: dict[str, int] = {"port": main.getsockname()[1]}
        if s.health_port is not None:
            health = reserve_port(s.health_host, s.health_port, "health port")
            self._holds.append(health)
            updates["health_port"] = health.getsockname()[1]
        self.settings = replace(s, **updates)  # type: ignore[arg-type]
        if s.metrics_port is not None:
            from referee import metrics as m

            self._metrics_sock = m.bind_socket(s.metrics_host, s.metrics_port)
            self._setup_metrics_dir()
            # Only now may prometheus_client be imported (it picks multiprocess mode).
            self.metrics = m.Metrics()
            m.install(self.metrics)
            self.children.append(_Child("metrics", 0))
        self._watch_pipes()
        signal.set_wakeup_fd(self._sig_w, warn_on_full_buffer=False)
        for sig in (*STOP_SIGNALS, signal.SIGCHLD, STACKS_SIGNAL):
            signal.signal(sig, _noop)

    def _watch_pipes(self) -> None:
        """The loop's two pipes, non-blocking, in its selector: signals (the wakeup
        fd's bytes) and the children's readiness lines."""
        for fd in (self._sig_r, self._sig_w, self._ready_r):
            os.set_blocking(fd, False)
        self._sel.register(self._sig_r, selectors.EVENT_READ)
        self._sel.register(self._ready_r, selectors.EVENT_READ)

    def _setup_metrics_dir(self) -> None:
        from referee.metrics import MULTIPROC_ENV, clear_directory

        given = os.environ.get(MULTIPROC_ENV)
        if given:
            os.makedirs(given, exist_ok=True)
            clear_directory(given)
            self.metrics_dir = given
        else:
            self.metrics_dir = tempfile.mkdtemp(prefix="referee-metrics-")
            self._own_metrics_dir = True
            os.environ[MULTIPROC_ENV] = self.metrics_dir

    def _cleanup(self) -> None:
        signal.set_wakeup_fd(-1)
        for sig in (*STOP_SIGNALS, signal.SIGCHLD, STACKS_SIGNAL):
            signal.signal(sig, signal.SIG_DFL)
        for sock in self._holds:
            sock.close()
        if self._metrics_sock is not None:
            self._metrics_sock.close()
        self._sel.close()
        for fd in (self._sig_r, self._sig_w, self._ready_r, self._ready_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        for c in self.children:
            if c.stacks_r >= 0:
                with contextlib.suppress(OSError):
                    os.close(c.stacks_r)
                c.stacks_r = -1
        if self.metrics_dir is not None and self._own_metrics_dir:
            shutil.rmtree(self.metrics_dir, ignore_errors=True)

    # ------------------------------------------------------------ running

    def run(self) -> int:
        """Serve until stopped; the exit code (0 after a graceful stop)."""
        logs.bind_process(role="supervisor")
        try:
            self._setup()
        except BaseException:
            self._cleanup()
            raise
        try:
            s = self.settings
            log.info(
                "supervisor_started",
                workers=s.workers,
                port=s.port,
                health_port=s.health_port,
                metrics_port=(self._metrics_sock.getsockname()[1] if self._metrics_sock else None),
            )
            for child in self.children:
                self._spawn(child)
            return self._loop()
        finally:
            self._cleanup()

    def _loop(self) -> int:
        while True:
            now = time.monotonic()
            timeout: float | None = None
            if self.stopping:
                timeout = max(0.0, self._kill_at - now)
            for child in self.children:
                if child.restart_at is not None:
                    wait = max(0.0, child.restart_at - now)
                    timeout = wait if timeout is None else min(timeout, wait)
            hang = self._hang_deadline()
            if hang is not None and not self.stopping:
                wait = max(0.0, hang - now)
                timeout = wait if timeout is None else min(timeout, wait)
            for child in self.children:
                for due in (child.kill_at, child.stacks_due):
                    if due is not None:
                        wait = max(0.0, due - now)
                        timeout = wait if timeout is None else min(timeout, wait)
            for key, _ in self._sel.select(timeout):
                if key.fileobj == self._sig_r:
                    self._read_signals()
                elif key.fileobj == self._ready_r:
                    self._read_ready()
                elif isinstance(key.data, _Child):
                    self._read_stacks(key.data)
            self._flush_stacks(time.monotonic())
            self._reap()
            self._kill_due(time.monotonic())
            if not self.stopping:
                self._kill_hung(time.monotonic(), hang)
            if self.fatal and not self.stopping:
                self._begin_stop(None)
            now = time.monotonic()
            if self.stopping:
                alive = [c for c in self.children if c.pid]
                workers_alive = [c for c in alive if c.kind == "worker"]
                if not workers_alive:
                    for c in alive:  # the metrics process goes last
                        if not c.signalled:
                            self._signal(c, signal.SIGTERM)
                if not alive:
                    code = 1 if (self.forced or self.fatal) else 0
                    log.info("supervisor_stopped", exit_code=code)
                    return code
                if now >= self._kill_at:
                    for c in alive:
                        log.warning("child_killed", child=c.name, child_pid=c.pid)
                        self._signal(c, signal.SIGKILL)
                    self._kill_at = now + KILL_MARGIN_SECONDS
            else:
                for child in self.children:
                    if child.restart_at is not None and now >= child.restart_at:
                        child.restart_at = None
                        if self.metrics is not None:
                            self.metrics.worker_restarts.inc()
                        self._spawn(child)

    def _watched(self) -> list[_Child]:
        """The workers whose heartbeat is watched: ready, alive, not yet signalled."""
        if self.settings.worker_hang_seconds <= 0:
            return []
        return [
            c for c in self.children if c.kind == "worker" and c.pid and c.ready and not c.signalled
        ]

    def _hang_deadline(self) -> float | None:
        watched = self._watched()
        if not watched:
            return None
        return min(c.seen for c in watched) + self.settings.worker_hang_seconds

    def _kill_hung(self, now: float, due: float | None = None) -> None:
        """A worker silent for worker_hang_seconds (its event loop or its whole process
        stuck: it would answer neither calls nor health checks) is killed; reaped, it
        is restarted like any dead worker.

        ``due``: the hang deadline the loop woke up for. Woken much later than that,
        the supervisor itself was not running (the whole server paused, say): the
        workers' beats of that time are not read yet, so every worker gets a fresh
        window instead of all being taken for hung at once."""
        if due is not None and now - due > 2 * HEARTBEAT_SECONDS:
            log.warning("supervisor_overslept", late_seconds=round(now - due, 3))
            for c in self._watched():
                c.seen = now
            return
        for c in self._watched():
            silent = now - c.seen
            if silent >= self.settings.worker_hang_seconds:
                log.error(
                    "child_hung", child=c.name, child_pid=c.pid, silent_seconds=round(silent, 3)
                )
                if c.stacks_r < 0:
                    self._signal(c, signal.SIGKILL)
                    continue
                # Its stacks first (logged as child_stacks as they come), then
                # SIGKILL: a stuck process may not heed SIGTERM. faulthandler writes
                # them from its C signal handler, so even a worker stuck holding the
                # GIL does; a stopped one (SIGSTOP) writes nothing and is killed alike.
                self._signal(c, HUNG_STACKS_SIGNAL)
                c.kill_at = now + STACKS_SECONDS

    def _kill_due(self, now: float) -> None:
        """SIGKILL the hung workers whose stacks were asked for STACKS_SECONDS ago."""
        for c in self.children:
            if c.kill_at is not None and now >= c.kill_at:
                c.kill_at = None
                if c.pid:
                    self._signal(c, signal.SIGKILL)

    def _read_stacks(self, child: _Child) -> None:
        """Read what a worker wrote to its stacks pipe (on STACKS_SIGNAL, or dying of
        a fatal signal); logged once it has been quiet for STACKS_SETTLE_SECONDS
        (:meth:`_flush_stacks`), or when it exits. At its end (the worker gone), the
        pipe leaves the selector; :meth:`_log_stacks` closes it once it is reaped."""
        fd = child.stacks_r
        try:
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    if fd in self._sel.get_map():
                        self._sel.unregister(fd)
                    break
                room = STACKS_MAX_BYTES - len(child.stacks)
                child.stacks += chunk[:room]
                child.stacks_truncated = child.stacks_truncated or len(chunk) > room
        except BlockingIOError:
            pass
        if child.stacks or child.stacks_truncated:
            # Quiet for STACKS_SETTLE_SECONDS, or STACKS_SECONDS after the first bytes
            # whatever comes (a worker signalled again and again).
            now = time.monotonic()
            if child.stacks_due is None:
                child.stacks_since = now
            child.stacks_due = min(now + STACKS_SETTLE_SECONDS, child.stacks_since + STACKS_SECONDS)

    def _flush_stacks(self, now: float) -> None:
        """Log the stacks read that have settled."""
        for c in self.children:
            if c.stacks_due is not None and now >= c.stacks_due:
                self._emit_stacks(c, c.pid)

    def _emit_stacks(self, child: _Child, pid: int, dead: bool = False) -> None:
        """Log what was read of a worker's stacks: at level error when they tell of a
        fault (a fatal signal, which faulthandler heads "Fatal Python error"; a hung
        worker about to be killed; a worker gone), at info when they were asked for
        (SIGUSR2, to the supervisor or to the worker): alerts on error lines must not
        fire for an operator's question."""
        if child.stacks:
            fault = dead or child.kill_at is not None or b"Fatal Python error" in child.stacks
            (log.error if fault else log.info)(
                "child_stacks",
                child=child.name,
                child_pid=pid,
                stacks=child.stacks.decode(errors="replace"),
                truncated=child.stacks_truncated,
            )
        child.stacks, child.stacks_truncated, child.stacks_due = b"", False, None

    def _log_stacks(self, child: _Child, pid: int) -> None:
        """Close a dead worker's stacks pipe, logging what it wrote there and was not
        logged yet (``child_stacks``: Python's own traceback format, file names, lines
        and function names only; never a variable's value)."""
        fd = child.stacks_r
        if fd < 0:
            return
        try:
            self._read_stacks(child)  # what is left, to the pipe's end
        finally:
            if fd in self._sel.get_map():  # a writer somewhere (none expected)
                self._sel.unregister(fd)
            os.close(fd)
            child.stacks_r = -1
        self._emit_stacks(child, pid, dead=True)

    def _signal(self, child: _Child, sig: int) -> None:
        child.signalled = True
        with contextlib.suppress(ProcessLookupError):
            os.kill(child.pid, sig)

    def _read_signals(self) -> None:
        try:
            data = os.read(self._sig_r, 512)
        except BlockingIOError:
            return
        for number in data:
            if number in STOP_SIGNALS:
                self._begin_stop(signal.Signals(number).name)
            elif number == STACKS_SIGNAL:
                self._ask_stacks()

    def _ask_stacks(self) -> None:
        """STACKS_SIGNAL to the supervisor (an operator's ``kill -USR2``): every worker
        is asked for its Python stacks, each logged as ``child_stacks``; nothing stops."""
        asked = [c for c in self.children if c.kind == "worker" and c.pid and c.stacks_r >= 0]
        log.info("supervisor_stacks_asked", workers=[c.name for c in asked])
        for c in asked:
            with contextlib.suppress(ProcessLookupError):
                os.kill(c.pid, STACKS_SIGNAL)

    def _begin_stop(self, reason: str | None) -> None:
        if self.stopping:
            if reason is not None and not self.forced:
                self.forced = True
                log.warning("supervisor_forced_stop", signal=reason)
                for c in self.children:
                    if c.pid:
                        self._signal(c, signal.SIGKILL)
            return
        self.stopping = True
        s = self.settings
        self._kill_at = time.monotonic() + kill_after_seconds(s)
        log.info(
            "supervisor_stopping",
            signal=reason,
            reason=self.fatal or None,
            grace_seconds=s.grace_seconds,
            drain_delay_seconds=s.drain_delay_seconds,
        )
        for c in self.children:
            c.restart_at = None
            if c.pid and c.kind == "worker":
                self._signal(c, signal.SIGTERM)

    def _read_ready(self) -> None:
        try:
            self._ready_buffer += os.read(self._ready_r, 4096)
        except BlockingIOError:
            return
        *lines, self._ready_buffer = self._ready_buffer.split(b"\n")
        for line in lines:
            kind, _, rest = line.decode().partition(" ")
            index_text, _, pid_text = rest.partition(" ")
            for c in self.children:
                if c.kind == kind and c.index == int(index_text) and c.pid == int(pid_text):
                    c.ready = True
                    c.seen = time.monotonic()
        self._update_workers_gauge()
        if not self.all_ready and all(c.ready for c in self.children):
            self.all_ready = True
            log.info("supervisor_ready", workers=self.settings.workers, port=self.settings.port)

    def _update_workers_gauge(self) -> None:
        if self.metrics is not None:
            serving = sum(1 for c in self.children if c.kind == "worker" and c.pid and c.ready)
            self.metrics.workers.set(serving)

    def _reap(self) -> None:
        while True:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            child = next((c for c in self.children if c.pid == pid), None)
            if child is None:
                continue
            self._exited(child, os.waitstatus_to_exitcode(status))

    def _exited(self, child: _Child, code: int) -> None:
        from referee import metrics as m

        lived = time.monotonic() - child.started
        pid, was_ready = child.pid, child.ready
        child.pid, child.ready, child.signalled, child.kill_at = 0, False, False, None
        self._log_stacks(child, pid)
        m.mark_process_dead(pid)
        self._update_workers_gauge()
        how = {"exit_code": code} if code >= 0 else {"signal": signal.Signals(-code).name}
        if self.stopping:
            log.info("child_exited", child=child.name, child_pid=pid, **how)
            return
        if not self.all_ready:
            self.fatal = f"{child.name} exited during start-up"
            log.error("child_failed_to_start", child=child.name, child_pid=pid, **how)
            return
        child.failures = 0 if (lived >= STABLE_SECONDS and was_ready) else child.failures + 1
        # At once, unless it keeps dying young: then 0.5 s, 1 s, 2 s ... up to 30 s.
        delay = 0.0
        if child.failures > 1:
            delay = min(RESTART_BACKOFF_MAX, RESTART_BACKOFF_FIRST * 2 ** (child.failures - 2))
        child.restart_at = time.monotonic() + delay
        log.error(
            "child_died",
            child=child.name,
            child_pid=pid,
            lived_seconds=round(lived, 3),
            restart_in_seconds=delay,
            **how,
        )

    # ------------------------------------------------------------ children

    def _spawn(self, child: _Child) -> None:
        stacks_w = -1
        if child.kind == "worker":
            if child.stacks_r >= 0:  # pragma: no cover - closed when it was reaped
                os.close(child.stacks_r)
            child.stacks_r, stacks_w = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            if stacks_w >= 0:
                os.close(stacks_w)
                os.close(child.stacks_r)
                child.stacks_r = -1
            raise
        if pid:
            if stacks_w >= 0:
                os.close(stacks_w)
                os.set_blocking(child.stacks_r, False)
                self._sel.register(child.stacks_r, selectors.EVENT_READ, child)
            child.pid = pid
            child.started = time.monotonic()
            child.ready = False
            log.info("child_started", child=child.name, child_pid=pid)
            return
        code = 1
        try:
            self._become(child, stacks_w)
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else 1
        except BaseException:
            log.exception("child_crashed", child=child.name)
        finally:
            logs.flush()  # os._exit skips atexit: the last per-RPC lines first
            os._exit(code)

    def _become(self, child: _Child, stacks_w: int = -1) -> None:
        """In the forked child: drop the supervisor's state, then run."""
        _die_with_parent()
        signal.set_wakeup_fd(-1)
        for sig in (*STOP_SIGNALS, signal.SIGCHLD, STACKS_SIGNAL):
            signal.signal(sig, signal.SIG_DFL)
        if os.getppid() != self.pid:  # the supervisor died before the prctl
            raise SystemExit(1)
        self._sel.close()
        for fd in (self._sig_r, self._sig_w, self._ready_r):
            os.close(fd)
        for c in self.children:  # every worker's stacks pipe (read end), this one's too
            if c.stacks_r >= 0:
                os.close(c.stacks_r)
                c.stacks_r = -1
        for sock in self._holds:
            sock.close()
        ready_fd = self._ready_w
        announce = f"{child.kind} {child.index} {os.getpid()}\n".encode()
        if child.kind == "metrics":
            assert self._metrics_sock is not None
            logs.bind_process(role="metrics")
            _run_metrics(self._metrics_sock, self.pid, lambda: os.write(ready_fd, announce))
            return
        if self._metrics_sock is not None:
            self._metrics_sock.close()
        logs.bind_process(worker=child.index)
        from referee.server import run_worker

        if stacks_w >= 0:
            _register_stacks(stacks_w)

        def ready(server: object) -> None:
            os.write(ready_fd, announce)
            if self.settings.worker_hang_seconds > 0:
                _heartbeat(server, ready_fd, announce)

        run_worker(self.settings, self.metrics, child.index, on_ready=ready)


def _register_stacks(fd: int) -> None:
    """Every thread's Python stack written to ``fd`` (the supervisor's stacks pipe,
    logged as ``child_stacks`` as it comes; :mod:`referee.stacks`): on STACKS_SIGNAL,
    after which the worker goes on (an operator asks with ``kill -USR2``, to the
    supervisor for every worker or to one worker); on HUNG_STACKS_SIGNAL, which the
    supervisor sends before it kills a hung worker; and on a fatal signal (SIGSEGV,
    SIGFPE, SIGABRT, SIGBUS, SIGILL: a crash in a C extension), after which it dies of
    it. Never blocking: a full pipe (signalled again and again) loses stacks, not the
    worker."""
    os.set_blocking(fd, False)
    stacks.install(fd, hung_signal=True)


def _heartbeat(server: object, fd: int, line: bytes) -> None:
    """Repeat the readiness ``line`` every HEARTBEAT_SECONDS: from the event loop on
    grpc.aio (so a loop stuck in a call stops it), from a thread of its own on the
    threads engine (a process stopped, or stuck holding the GIL, stops it)."""
    import asyncio
    import threading

    from referee.server import RefereeServer

    # Never wait for the supervisor (a lost beat is no harm), through a description of
    # the pipe of this process's own: O_NONBLOCK on the inherited one would be every
    # child's (their readiness lines). Without /proc, blocking writes, read at once.
    with contextlib.suppress(OSError):
        fd = os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)

    def beat() -> None:
        with contextlib.suppress(OSError):
            os.write(fd, line)

    if isinstance(server, RefereeServer):
        loop = asyncio.get_running_loop()

        def tick() -> None:
            beat()
            loop.call_later(HEARTBEAT_SECONDS, tick)

        loop.call_later(HEARTBEAT_SECONDS, tick)
        return

    def run() -> None:
        while True:
            time.sleep(HEARTBEAT_SECONDS)
            beat()

    threading.Thread(target=run, name="referee-heartbeat", daemon=True).start()


def _noop(signum: int, frame: object) -> None:
    """Python-level handler: the wake-up fd carries the signal to the loop."""


def _run_metrics(sock: socket.socket, supervisor: int, ready: Callable[[], object]) -> None:
    """The metrics process: serve the multiprocess sum until a stop signal."""
    import threading

    from referee import metrics as m

    registry = m.multiprocess_registry(supervisor)
    server = m.http_server(sock, registry)
    # Block the stop signals in every thread, then wait for one in this one.
    signal.pthread_sigmask(signal.SIG_BLOCK, set(STOP_SIGNALS))
    threading.Thread(target=server.serve_forever, name="metrics-http", daemon=True).start()
    log.info("metrics_serving", port=sock.getsockname()[1])
    ready()
    signal.sigwait(set(STOP_SIGNALS))
    server.server_close()


def run(settings: ServerSettings) -> int:
    """``referee serve`` with ``settings.workers > 1``."""
    return Supervisor(settings).run()
