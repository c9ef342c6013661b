"""A ``referee serve`` subprocess whose JSON log is tallied (not kept: a soak writes
hundreds of thousands of lines), generic calls, and the check every answer must pass."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import grpc
from google.protobuf.message import Message
from google.rpc import error_details_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_status import rpc_status

from referee.v1 import referee_pb2

from ..server_thread import subprocess_env

TIMEOUT = 60.0  # upper bound of every wait; each ends on a condition, far sooner
MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # the server's default limit
SERVICE = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
METHODS = tuple(m.name for m in SERVICE.methods)
REQUEST_TYPES = {m.name: m.input_type for m in SERVICE.methods}
RESPONSE_CLASSES: dict[str, Any] = {
    m.name: getattr(referee_pb2, m.output_type.name) for m in SERVICE.methods
}

# Statuses a client can cause; UNKNOWN and INTERNAL are never among them.
CLIENT_ERRORS = frozenset({grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION})
# RESOURCE_EXHAUSTED reasons a request within every limit may meet: an answer over the
# message limit, a Replay over its CPU limit.
COSTLY = frozenset({"RESPONSE_TOO_LARGE", "REPLAY_CPU_LIMIT"})

# A client that accepts any answer the server may send (up to 64 MiB).
CLIENT_OPTIONS = [
    ("grpc.max_receive_message_length", 64 * 1024 * 1024),
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
]


class RefereeProcess:
    """``referee serve --port 0`` in a subprocess with JSON logs on stderr.

    Lines of event ``rpc`` are counted by (method, status) and, with ``keep_ids``,
    their status is kept by request id; every other line is kept. Lines at level
    error or above, and any line that is not JSON, are kept apart as ``problems``.
    """

    def __init__(
        self, *args: str, env: dict[str, str] | None = None, keep_ids: bool = False
    ) -> None:
        self.args = args
        if not any(a.startswith("--workers") for a in args):
            # One process: a crash ends the server (no sibling worker answers health).
            args = ("--workers", "1", *args)
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "referee.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--log-format",
                "json",
                "--log-level",
                "info",
                *args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env(env),
            preexec_fn=die_with_parent,
        )
        self.keep_ids = keep_ids
        self.rpcs: Counter[tuple[str, str]] = Counter()
        self.by_worker: Counter[int] = Counter()
        self.by_id: dict[str, str] = {}  # request id -> status
        self.pid_of: dict[str, int] = {}  # request id -> the process that logged it
        self.events: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self._cond = threading.Condition()
        self._closed = False
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        workers = next((a for a in args if a.startswith("--workers")), None)
        if workers is not None and args[args.index(workers) + 1] != "1":
            self.wait_for("supervisor_ready")
            self.port = int(self.wait_for("supervisor_started")["port"])
        else:
            self.port = int(self.wait_for("referee_serving")["port"])

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                with self._cond:
                    self.problems.append(line)
                continue
            with self._cond:
                if entry.get("event") == "rpc":
                    self.rpcs[(entry["method"], entry["status"])] += 1
                    self.by_worker[int(entry.get("worker", 0))] += 1
                    if self.keep_ids:
                        self.by_id[entry["request_id"]] = entry["status"]
                        self.pid_of[entry["request_id"]] = int(entry.get("pid", 0))
                else:
                    self.events.append(entry)
                if entry.get("level") in ("error", "critical", "exception"):
                    self.problems.append(line)
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def channel(self, **options: Any) -> grpc.Channel:
        opts = [*CLIENT_OPTIONS, *options.items()]
        return grpc.insecure_channel(self.address, options=opts)

    def find(self, event: str, since: int = 0, **fields: Any) -> dict[str, Any] | None:
        with self._cond:
            for entry in self.events[since:]:
                if entry.get("event") == event and all(
                    entry.get(k) == v for k, v in fields.items()
                ):
                    return entry
        return None

    def wait_for(
        self, event: str, since: int = 0, timeout: float = TIMEOUT, **fields: Any
    ) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                found = self.find(event, since, **fields)
                if found is not None:
                    return found
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    tail = "".join(self.problems[-5:])
                    raise AssertionError(f"no {event} {fields} in the server's log {tail}")
                self._cond.wait(left)

    def wait_rpcs(self, total: int, timeout: float = TIMEOUT) -> None:
        """Until the log shows at least ``total`` RPC lines (they follow the answers)."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while sum(self.rpcs.values()) < total:
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    raise AssertionError(
                        f"{sum(self.rpcs.values())} of {total} RPC lines in the log"
                    )
                self._cond.wait(left)

    def wait_ids(self, ids: list[str], timeout: float = TIMEOUT) -> None:
        """Until the log has a line for each request id (``keep_ids``)."""
        assert self.keep_ids
        deadline = time.monotonic() + timeout
        with self._cond:
            while not all(i in self.by_id for i in ids):
                left = deadline - time.monotonic()
                if self._closed or left <= 0:
                    raise AssertionError(
                        f"no log line for {[i for i in ids if i not in self.by_id]}"
                    )
                self._cond.wait(left)

    def mark(self) -> int:
        with self._cond:
            return len(self.events)

    def statuses(self) -> Counter[str]:
        with self._cond:
            out: Counter[str] = Counter()
            for (_, status), n in self.rpcs.items():
                out[status] += n
            return out

    def worker_pids(self) -> dict[int, int]:
        """The pid of each worker serving now (the last ``referee_serving`` of each)."""
        with self._cond:
            return {
                int(e.get("worker", 0)): int(e["pid"])
                for e in self.events
                if e.get("event") == "referee_serving"
            }

    def assert_healthy(self) -> None:
        """Alive, answering health SERVING, and nothing logged at error level
        (an unexpected exception is logged there, with its traceback, as INTERNAL)."""
        assert self.proc.poll() is None, f"the server exited with {self.proc.returncode}"
        with self.channel() as ch:
            reply = health_pb2_grpc.HealthStub(ch).Check(
                health_pb2.HealthCheckRequest(service=SERVICE.full_name), timeout=10
            )
        assert reply.status == health_pb2.HealthCheckResponse.SERVING
        with self._cond:
            assert not self.problems, "".join(self.problems[:3])
            bad = {k: n for k, n in self.rpcs.items() if k[1] in ("INTERNAL", "UNKNOWN")}
            assert not bad, bad

    def terminate(self, timeout: float = TIMEOUT) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout)
        self._reader.join(timeout)
        return code

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(TIMEOUT)


def die_with_parent() -> None:
    """In a child process: SIGTERM when the test process dies, however it dies (Linux),
    so that no server outlives an interrupted test run."""
    import ctypes

    pr_set_pdeathsig = 1
    ctypes.CDLL(None, use_errno=True).prctl(pr_set_pdeathsig, int(signal.SIGTERM), 0, 0, 0)


def rss_kib(pid: int) -> int:
    """Resident set size of a process (VmRSS of /proc/PID/status), in KiB."""
    with open(f"/proc/{pid}/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError(f"no VmRSS for {pid}")


def caller(channel: grpc.Channel, method: str) -> Callable[..., Any]:
    """A unary call of the service that sends a message (or raw bytes) as is."""
    return channel.unary_unary(
        f"/{SERVICE.full_name}/{method}",
        request_serializer=_serialize,
        response_deserializer=RESPONSE_CLASSES[method].FromString,
    )


def raw_caller(channel: grpc.Channel, method: str) -> Callable[..., bytes]:
    """A unary call that sends and receives bytes (identity serializers)."""
    return channel.unary_unary(method)


def _serialize(request: Message | bytes) -> bytes:
    if isinstance(request, bytes):
        return request
    return request.SerializeToString()


def check_error(err: grpc.RpcError, allowed: frozenset[grpc.StatusCode] = CLIENT_ERRORS) -> str:
    """An error a client caused: an allowed status, with its google.rpc details
    (BadRequest field violations or an ErrorInfo reason). Returns the reason or the
    first field, for tallies."""
    code = err.code()
    if code == grpc.StatusCode.RESOURCE_EXHAUSTED:
        # A request within the limits whose answer or work is not: refused with its
        # reason (an Écarté gallery of many wagers; docs/api.md).
        status = rpc_status.from_call(err)  # type: ignore[arg-type]
        for detail in status.details if status is not None else ():
            info = error_details_pb2.ErrorInfo()
            if detail.Unpack(info) and info.reason in COSTLY:
                return f"{code.name}:{info.reason}"
    assert code in allowed, f"{code}: {err.details()}"
    if code not in CLIENT_ERRORS:
        return code.name
    status = rpc_status.from_call(err)  # type: ignore[arg-type]
    assert status is not None, f"{code} without google.rpc.Status details: {err.details()}"
    assert status.code == code.value[0] and status.message == err.details()
    for detail in status.details:
        if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
            bad = error_details_pb2.BadRequest()
            detail.Unpack(bad)
            assert bad.field_violations and all(v.description for v in bad.field_violations)
            return f"{code.name}:{bad.field_violations[0].field.split('[')[0]}"
        if detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
            info = error_details_pb2.ErrorInfo()
            detail.Unpack(info)
            assert info.reason and info.domain == "referee.v1"
            return f"{code.name}:{info.reason}"
    raise AssertionError(f"{code} without BadRequest or ErrorInfo: {err.details()}")
