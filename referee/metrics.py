"""Prometheus metrics (``referee serve --metrics-port``).

One worker (``--workers 1``): the metrics live in the process and are served
from a thread, with the standard process and Python collectors.

Several workers: prometheus-client's multiprocess mode. The supervisor makes
the directory named by ``PROMETHEUS_MULTIPROC_DIR`` *before* anything imports
``prometheus_client`` (the value class is chosen at import), each worker writes
its values to memory-mapped files there, and a small metrics process forked by
the supervisor serves their sum, plus ``process_*`` metrics summed over the
supervisor and all its children (:class:`ProcessTreeCollector`). Counters keep
counting across worker restarts (a dead worker's files stay), live gauges drop
a dead worker's values.

This module does not import ``prometheus_client`` at import time for that
reason; :class:`Metrics` does, when created.

Hot path: one ``CallInterceptor`` records each RPC with :meth:`Metrics.rpc`,
which caches the labelled children (no ``labels()`` lookup per call).

The sealing code reports a refused sealed token with :func:`sealed_refusal`
(a no-op when metrics are off).

Both modes show the same ``referee_*`` series: no ``*_created`` series (multiprocess
mode has none), the label children known in advance made at start (the sealed-token
refusal reasons, the actions of each game by verdict) so that they are 0 rather than
absent, and in multiprocess mode every family, also one with no child yet (calls by
method, latency), described without samples as one process describes it
(:class:`_EveryFamily`). Neither mode has ``python_gc_*`` (a metrics process has no
workers' collections to show).
"""

from __future__ import annotations

import contextlib
import io
import os
import socket
import threading
from collections.abc import Iterable, Iterator
from http.server import ThreadingHTTPServer
from typing import Any

from referee import __version__

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
LATENCY_BUCKETS = (
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
    30.0,
    60.0,
)
BATCH_BUCKETS = (1, 2, 4, 8, 16, 32)
# Verdict numbers of referee.v1.Verdict (common.proto) -> label values.
_VERDICTS = {1: "accepted", 2: "rejected", 3: "penalized"}


def multiprocess() -> bool:
    return MULTIPROC_ENV in os.environ


class Metrics:
    """The service's metrics, in their own registry (so tests may make several)."""

    def __init__(self) -> None:
        from prometheus_client import (
            CollectorRegistry,
            Counter,
            Gauge,
            Histogram,
            disable_created_metrics,
        )

        from referee.codec import all_codecs
        from referee.sealing import SEAL_REASONS

        # A ``*_created`` series per counter and histogram child in one process; none in
        # multiprocess mode: none in either (a process-wide setting of prometheus-client).
        disable_created_metrics()  # type: ignore[no-untyped-call]
        self.registry = CollectorRegistry(auto_describe=True)
        reg = self.registry
        (
            self.rpcs,
            self.latency,
            self.actions,
            self.sealed_refusals,
            self.seal_keys_workers,
        ) = labelled(reg)
        self.in_flight = Gauge(
            "referee_in_flight_rpcs",
            "RPCs started and not yet finished (all workers)",
            registry=reg,
            multiprocess_mode="livesum",
        )
        self.request_bytes = Gauge(
            "referee_request_bytes_in_flight",
            "Bytes of the large requests (over 64 KiB) of the calls being served or waiting"
            " for a handler, counted against --max-request-bytes-in-flight (all workers;"
            " 0 where that is off: not counted)",
            registry=reg,
            multiprocess_mode="livesum",
        )
        self.batch_calls = Histogram(
            "referee_coalesced_batch_calls",
            "Calls run back to back in one coalesced batch (--coalesce-us); a call run at"
            " once counts as a batch of one",
            buckets=BATCH_BUCKETS,
            registry=reg,
        )
        self.build_info = Gauge(
            "referee_build_info",
            "Always 1; the version of the server",
            ("version",),
            registry=reg,
            multiprocess_mode="max",
        )
        self.build_info.labels(__version__).set(1)
        self.worker_restarts = Counter(
            "referee_worker_restarts",
            "Worker processes restarted by the supervisor after they died",
            registry=reg,
        )
        self._seal_keys: tuple[str, str] | None = None
        self.workers = Gauge(
            "referee_workers",
            "Worker processes serving (set by the supervisor)",
            registry=reg,
            multiprocess_mode="livemax",
        )
        self._rpc_children: dict[tuple[str, str, str, str], Any] = {}
        self._latency_children: dict[tuple[str, str], Any] = {}
        self._action_children: dict[tuple[str, str, str], Any] = {}
        # The children whose label values are known in advance, at 0 from the start in
        # both modes: a few series. Not the calls by method, game, verdict and code, nor
        # the latency by method and game: their combinations are many and only some ever
        # happen (those appear with their first call, in both modes alike).
        for codec in all_codecs():
            for verdict in _VERDICTS.values():
                key = (codec.game_id, codec.rules.rules_version, verdict)
                self._action_children[key] = self.actions.labels(*key)
        for reason in SEAL_REASONS:
            self.sealed_refusals.labels(reason)

    def seal_keys(self, sealing: str, keys: Iterable[str]) -> None:
        """This worker now serves with these sealing keys (ids only)."""
        labels = (sealing, ",".join(keys))
        if labels == self._seal_keys:
            return
        if self._seal_keys is not None:
            self.seal_keys_workers.labels(*self._seal_keys).set(0)
        self.seal_keys_workers.labels(*labels).set(1)
        self._seal_keys = labels

    def rpc(self, method: str, game: str, verdict: str, code: str, seconds: float) -> None:
        """Count one finished RPC and observe its latency."""
        key = (method, game, verdict, code)
        child = self._rpc_children.get(key)
        if child is None:
            child = self._rpc_children[key] = self.rpcs.labels(*key)
        child.inc()
        lkey = (method, game)
        hist = self._latency_children.get(lkey)
        if hist is None:
            hist = self._latency_children[lkey] = self.latency.labels(*lkey)
        hist.observe(seconds)

    def action(self, game: str, rules_version: str, verdict: str, count: int = 1) -> None:
        key = (game, rules_version, verdict)
        child = self._action_children.get(key)
        if child is None:
            child = self._action_children[key] = self.actions.labels(*key)
        child.inc(count)

    def replay_steps(self, game: str, rules_version: str, steps: Iterable[Any]) -> None:
        """Count the verdicts of a Replay's steps (messages with a ``verdict`` field)."""
        counts: dict[int, int] = {}
        for step in steps:
            counts[step.verdict] = counts.get(step.verdict, 0) + 1
        for verdict, n in counts.items():
            self.action(game, rules_version, _VERDICTS.get(verdict, "unspecified"), n)

    def batch(self, calls: int) -> None:
        """Observe one coalesced batch of ``calls`` calls (a call run at once: 1)."""
        self.batch_calls.observe(calls)

    def sealed_refusal(self, reason: str) -> None:
        self.sealed_refusals.labels(reason).inc()

    def exposition_registry(self) -> Any:
        """What a scrape of this process shows: the service metrics plus the process and
        platform collectors (single-process mode only). Not the GC collector: the
        several-worker metrics process has no ``python_gc_*`` to show, and both modes
        show the same families."""
        from prometheus_client import PlatformCollector, ProcessCollector

        reg = self.registry
        if not getattr(self, "_standard_added", False):
            ProcessCollector(registry=reg)
            PlatformCollector(registry=reg)
            self._standard_added = True
        return reg


def labelled(registry: Any) -> tuple[Any, Any, Any, Any, Any]:
    """The labelled metrics of the service, with no child (in multiprocess mode such a
    metric writes no value file until its first child): calls, latency, actions judged,
    refused sealed tokens, the workers by their sealing keys."""
    from prometheus_client import Counter, Gauge, Histogram

    rpcs = Counter(
        "referee_rpcs",
        "RPCs finished, by method, game, verdict (ApplyAction) and gRPC status code",
        ("method", "game", "verdict", "code"),
        registry=registry,
    )
    latency = Histogram(
        "referee_rpc_duration_seconds",
        "Time from a call's admission by the server (before its request is read and, on"
        " the threads engine, before it waits for a handler thread) to its answer, by"
        " method and game",
        ("method", "game"),
        buckets=LATENCY_BUCKETS,
        registry=registry,
    )
    actions = Counter(
        "referee_actions",
        "Actions judged (ApplyAction, and every step of a Replay), by game, the rules"
        " version that judged them and verdict",
        ("game", "rules_version", "verdict"),
        registry=registry,
    )
    sealed_refusals = Counter(
        "referee_sealed_token_refusals",
        "Sealed state tokens refused (altered, unknown key, malformed ...), by reason",
        ("reason",),
        registry=registry,
    )
    seal_keys_workers = Gauge(
        "referee_seal_keys_workers",
        "Worker processes serving with these sealing keys, by the key that seals and"
        " every key that opens, in order (ids only): a rotation step has reached every"
        " worker when no series but the new list's is above 0",
        ("sealing_key", "keys"),
        registry=registry,
        multiprocess_mode="livesum",
    )
    return rpcs, latency, actions, sealed_refusals, seal_keys_workers


_current: Metrics | None = None


def install(metrics: Metrics | None) -> None:
    """Make ``metrics`` the process's metrics (for :func:`sealed_refusal`)."""
    global _current
    _current = metrics


def current() -> Metrics | None:
    return _current


def sealed_refusal(reason: str) -> None:
    """Count a refused sealed token; ``reason`` is its ErrorInfo reason, one of
    :data:`referee.sealing.SEAL_REASONS` (never token bytes)."""
    if _current is not None:
        _current.sealed_refusal(reason)


# ---------------------------------------------------------------- exposition


# The metrics endpoint is an http.server with a thread per connection. Without bounds a
# connection that sent nothing held its thread for ever (2,000 silent connections: 2,000
# threads and 51 MB, and a process at its open-files limit takes no connection, gRPC's
# included). A scrape's request must arrive whole within METRICS_REQUEST_SECONDS
# (Prometheus sends it at once), and at most METRICS_CONNECTIONS are served at a time;
# one more is answered 503 and closed. HTTP/1.0: a connection serves one request.
METRICS_REQUEST_SECONDS = 10.0
METRICS_CONNECTIONS = 16
_BUSY = b"HTTP/1.0 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 1\r\n\r\n"


class _HttpServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.slots = threading.BoundedSemaphore(METRICS_CONNECTIONS)

    def process_request(self, request: Any, client_address: Any) -> None:
        if not self.slots.acquire(blocking=False):
            with contextlib.suppress(OSError):
                request.sendall(_BUSY)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:  # no thread started: its slot is not taken
            self.slots.release()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A connection that broke (reset, too slow): nothing, where socketserver
        prints a traceback; anything else is a bug, printed so."""
        import sys

        if not isinstance(sys.exc_info()[1], OSError):  # TimeoutError included
            super().handle_error(request, client_address)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket for the metrics endpoint (port 0: any free port)."""
    info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    family, _, _, _, address = info[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        sock.bind(address)
        sock.listen(64)
    except OSError:
        sock.close()
        raise
    return sock


def http_server(sock: socket.socket, registry: Any) -> ThreadingHTTPServer:
    """An HTTP server answering ``GET /metrics`` (any path) from ``registry`` on ``sock``."""
    from prometheus_client.exposition import MetricsHandler

    from referee.httpio import DeadlineReader

    class Handler(MetricsHandler):
        def setup(self) -> None:
            self.request.settimeout(METRICS_REQUEST_SECONDS)  # the answer's writes too
            super().setup()
            self.rfile.close()
            self.rfile = io.BufferedReader(DeadlineReader(self.request, METRICS_REQUEST_SECONDS))

    Handler.registry = registry
    server = _HttpServer(sock.getsockname()[:2], Handler, bind_and_activate=False)
    server.socket.close()
    server.socket = sock
    return server


def serve_in_thread(sock: socket.socket, registry: Any) -> ThreadingHTTPServer:
    server = http_server(sock, registry)
    threading.Thread(target=server.serve_forever, name="metrics-http", daemon=True).start()
    return server


def multiprocess_registry(supervisor_pid: int) -> Any:
    """The registry a scrape sees with several workers: the sum over the worker
    files, the process tree's ``process_*`` metrics, the platform info."""
    from prometheus_client import CollectorRegistry, PlatformCollector
    from prometheus_client.multiprocess import MultiProcessCollector

    reg = CollectorRegistry()
    workers = MultiProcessCollector(None)  # type: ignore[no-untyped-call]
    reg.register(_EveryFamily(workers, labelled(CollectorRegistry())))
    reg.register(ProcessTreeCollector(supervisor_pid))
    PlatformCollector(registry=reg)
    return reg


class _EveryFamily:
    """The workers' sum, plus each of ``metrics`` (labelled, no child: no value file)
    that no worker has a sample of yet, described without samples, as one process
    shows a labelled metric before its first child: a family is in a scrape from the
    start in both modes."""

    def __init__(self, workers: Any, metrics: Iterable[Any]) -> None:
        self.workers = workers
        self.empty = [family for metric in metrics for family in metric.describe()]

    def collect(self) -> Iterator[Any]:
        seen = set()
        for family in self.workers.collect():
            seen.add(family.name)
            yield family
        for family in self.empty:
            if family.name not in seen:
                yield family


def mark_process_dead(pid: int) -> None:
    """Drop a dead worker's live gauges (multiprocess mode)."""
    if multiprocess():
        from prometheus_client import multiprocess as mp

        mp.mark_process_dead(pid)  # type: ignore[no-untyped-call]


def clear_directory(path: str) -> None:
    """Remove the value files of an earlier run (counters restart with the server)."""
    for name in os.listdir(path):
        if name.endswith(".db"):
            os.unlink(os.path.join(path, name))


class ProcessTreeCollector:
    """``process_*`` metrics of the supervisor and all its children, summed (Linux /proc).

    CPU time includes the children the supervisor has reaped (``cutime``/``cstime``),
    so ``process_cpu_seconds_total`` does not go down when a worker is replaced.
    Resident memory is the sum of each process's RSS (pages shared after fork count
    once per process, so it overstates the total)."""

    def __init__(self, root: int, proc: str = "/proc") -> None:
        self.root = root
        self.proc = proc
        self.ticks = os.sysconf("SC_CLK_TCK")
        self.pagesize = os.sysconf("SC_PAGE_SIZE")
        try:
            with open(os.path.join(proc, "stat")) as f:
                self.btime = next(float(line.split()[1]) for line in f if line.startswith("btime"))
        except (OSError, StopIteration):
            self.btime = 0.0

    def _stat(self, pid: int) -> list[str]:
        with open(os.path.join(self.proc, str(pid), "stat"), "rb") as f:
            data = f.read().decode()
        return data[data.rindex(")") + 2 :].split()  # fields from 3 (state) on

    def _children(self) -> list[int]:
        pids: list[int] = []
        for name in os.listdir(self.proc):
            if not name.isdigit() or int(name) == self.root:
                continue
            try:
                if int(self._stat(int(name))[1]) == self.root:
                    pids.append(int(name))
            except (OSError, ValueError, IndexError):
                continue
        return pids

    def collect(self) -> Iterator[Any]:
        from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

        try:
            root = self._stat(self.root)
        except OSError:
            return
        # stat fields (1-based): 14 utime, 15 stime, 16 cutime, 17 cstime, 22 starttime,
        # 23 vsize, 24 rss; our list starts at field 3.
        cpu = sum(int(root[i]) for i in (11, 12, 13, 14)) / self.ticks
        vsize = int(root[20])
        rss = int(root[21]) * self.pagesize
        fds = self._fds(self.root)
        for pid in self._children():
            try:
                fields = self._stat(pid)
            except (OSError, ValueError):
                continue
            cpu += (int(fields[11]) + int(fields[12])) / self.ticks
            vsize += int(fields[20])
            rss += int(fields[21]) * self.pagesize
            fds += self._fds(pid)
        yield CounterMetricFamily(
            "process_cpu_seconds", "User and system CPU time of all processes", value=cpu
        )
        yield GaugeMetricFamily(
            "process_virtual_memory_bytes", "Virtual memory of all processes", value=vsize
        )
        yield GaugeMetricFamily(
            "process_resident_memory_bytes", "Resident memory of all processes", value=rss
        )
        yield GaugeMetricFamily(
            "process_start_time_seconds",
            "Start time of the supervisor since the epoch",
            value=self.btime + int(root[19]) / self.ticks,
        )
        yield GaugeMetricFamily(
            "process_open_fds", "Open file descriptors of all processes", value=fds
        )
        max_fds = self._max_fds()
        if max_fds is not None:
            yield GaugeMetricFamily(
                "process_max_fds", "Maximum open file descriptors per process", value=max_fds
            )

    def _fds(self, pid: int) -> int:
        try:
            return len(os.listdir(os.path.join(self.proc, str(pid), "fd")))
        except OSError:
            return 0

    def _max_fds(self) -> float | None:
        try:
            with open(os.path.join(self.proc, str(self.root), "limits")) as f:
                for line in f:
                    if line.startswith("Max open files"):
                        return float(line.split()[3])
        except (OSError, ValueError, IndexError):
            pass
        return None
