"""Servers for the operations tests: in-process (``tests/server_thread.py``) and
``referee serve`` in a subprocess with its JSON log lines, plus certificates."""

from __future__ import annotations

import datetime
import io
import ipaddress
import json
import resource
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import structlog

from referee import logs
from referee.v1 import common_pb2, ecarte_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

from ..server_thread import ServerThread, subprocess_env

TIMEOUT = 60.0  # upper bound of any wait; the waits end on a condition, far sooner


def wait_until(condition: Callable[[], Any], what: str, timeout: float = TIMEOUT) -> Any:
    """Poll ``condition`` (cheap, local) until it is truthy; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.005)


InProcess = ServerThread
"""A server in this process, on the test run's engine (``tests/server_thread.py``)."""


@contextmanager
def captured_logs(level: str = "info") -> Iterator[io.StringIO]:
    """JSON log lines of servers created inside the block (the interceptor binds its
    logger when made), restored to the test session's configuration after."""
    saved = structlog.get_config()
    out = io.StringIO()
    logs.configure(level, "json", out)
    try:
        yield out
    finally:
        structlog.configure(**saved)


def log_lines(out: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.getvalue().splitlines() if line.strip()]


class Served:
    """``referee serve`` in a subprocess, with its JSON log lines kept in order."""

    def __init__(
        self,
        *args: str,
        env: dict[str, str] | None = None,
        open_files: tuple[int, int] | None = None,
    ) -> None:
        def limits() -> None:  # in the child, before it runs the server
            if open_files is not None:
                resource.setrlimit(resource.RLIMIT_NOFILE, open_files)

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
                *args,
            ],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=subprocess_env(env),
            preexec_fn=limits if open_files is not None else None,
        )
        self.lines: list[dict[str, Any]] = []
        self.raw: list[str] = []
        self._cond = threading.Condition()
        self._closed = False
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            with self._cond:
                self.raw.append(line)
                try:
                    self.lines.append(json.loads(line))
                except json.JSONDecodeError:
                    self.lines.append({"event": "unparsed", "line": line})
                self._cond.notify_all()
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def find(self, event: str, since: int = 0, **fields: Any) -> dict[str, Any] | None:
        with self._cond:
            for entry in self.lines[since:]:
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
                    tail = "".join(self.raw[-20:])
                    raise AssertionError(f"no {event} {fields} in the server's log:\n{tail}")
                self._cond.wait(left)

    def mark(self) -> int:
        with self._cond:
            return len(self.lines)

    def events(self, event: str) -> list[dict[str, Any]]:
        with self._cond:
            return [e for e in self.lines if e.get("event") == event]

    def terminate(self, timeout: float = TIMEOUT) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(TIMEOUT)


def exposition(port: int) -> str:
    """The Prometheus text exposition served on ``port``."""
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as reply:
        return str(reply.read().decode())


def families(text: str) -> list[tuple[str, str]]:
    """The families of a text exposition, as its ``# TYPE`` lines name them, in order."""
    return [
        (name, kind)
        for _, _, name, kind in (
            line.split(" ", 3) for line in text.splitlines() if line.startswith("# TYPE ")
        )
    ]


def scrape(port: int) -> dict[str, float]:
    """The samples of the Prometheus text exposition served on ``port``."""
    return samples_of(exposition(port))


def samples_of(text: str) -> dict[str, float]:
    """The samples of a Prometheus text exposition, by name and labels."""
    samples: dict[str, float] = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, _, value = line.rpartition(" ")
            samples[key] = float(value)
    return samples


def sample(samples: dict[str, float], name: str, **labels: str) -> float:
    """One sample's value (0 when absent); labels given must all match."""
    total = 0.0
    for key, value in samples.items():
        metric, _, rest = key.partition("{")
        if metric != name:
            continue
        have = dict(part.split("=", 1) for part in rest.rstrip("}").split(",") if "=" in part)
        if all(have.get(k) == json.dumps(v) for k, v in labels.items()):
            total += value
    return total


# ------------------------------------------------------------------ requests


class HeldCalls:
    """ListGames calls held in flight: the unary method called as client-streaming, so
    a call starts at once (its headers: it is counted in flight) and its one request
    message comes only when ``release()`` is called, as from a slow client. Used as a
    context manager, it releases whatever is still held when the block ends."""

    def __init__(self, channel: grpc.Channel) -> None:
        self.released = threading.Event()
        self.channel = channel
        self._call = channel.stream_unary(
            "/referee.v1.RefereeService/ListGames",
            request_serializer=pb.ListGamesRequest.SerializeToString,
            response_deserializer=pb.ListGamesResponse.FromString,
        )

    def _request(self) -> Iterator[pb.ListGamesRequest]:
        self.released.wait(TIMEOUT)
        yield pb.ListGamesRequest()

    def start(self, metadata: tuple[tuple[str, str], ...] = ()) -> Any:
        """A held call's future (``grpc.Future``): its result once released."""
        return self._call.future(self._request(), metadata=metadata, timeout=TIMEOUT)

    def release(self) -> None:
        self.released.set()

    def __enter__(self) -> HeldCalls:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


CONFIG = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig())
SEED = bytes(32)


def long_replay(actions: int) -> pb.ReplayRequest:
    """A Replay of ``actions`` rejected plays (by a seat not on turn): the state never
    changes, so it is as long as asked."""
    from referee.codec import all_codecs
    from referee.service import Referee

    first = Referee(all_codecs()).new_game(pb.NewGameRequest(config=CONFIG, seed=SEED))
    s = first.state.earl_of_coventry
    other = (s.turn + 1) % len(s.seats)
    hand = s.seats[other].hand
    card = (hand & -hand).bit_length() - 1  # its lowest card
    bad = pb.Action(
        actor=common_pb2.Actor(seat=other),
        earl_of_coventry=eoc.EarlOfCoventryAction(
            play=eoc.EarlOfCoventryPlay(card={"suit": card // 13 + 1, "rank": card % 13 + 1})
        ),
    )
    return pb.ReplayRequest(config=CONFIG, seed=SEED, actions=[bad] * actions)


GALLERY = pb.GameConfig(ecarte={"gallery": True})  # Écarté au Cercle (E-VAR-4)


def gallery_replay(wagers: int) -> pb.ReplayRequest:
    """A Replay of ``wagers`` wagers of one spectator, each accepted (E-VAR-4: any number,
    before the first lead): each step's state holds every open wager, so the Replay
    costs wagers * wagers (1.3 MB of 100,000 of them would take minutes)."""
    wager = pb.Action(
        actor=common_pb2.Actor(spectator="s"),
        ecarte=ecarte_pb2.EcarteAction(wager=ecarte_pb2.EcartePlaceWager(seat=0, amount=1)),
    )
    return pb.ReplayRequest(config=GALLERY, seed=SEED, actions=[wager] * wagers)


def gallery_state(wagers: int, spectator: str = "s") -> pb.GameState:
    """A new Écarté gallery game's state with ``wagers`` open wagers of ``spectator``
    (each in every view of it: wagers are public)."""
    from referee.codec import all_codecs
    from referee.service import Referee

    state = Referee(all_codecs()).new_game(pb.NewGameRequest(config=GALLERY, seed=SEED)).state
    for _ in range(wagers):
        state.ecarte.wagers.add(spectator=spectator, seat=0, amount=1)
    return state


# ------------------------------------------------------------------ certificates


@dataclass(frozen=True)
class Certs:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    rogue_client_cert: Path  # signed by a CA the server does not trust
    rogue_client_key: Path


def make_certs(directory: Path) -> Certs:
    """A CA, a server certificate for localhost/127.0.0.1, a client certificate, and
    a client certificate from another CA (all made here, valid for a day)."""
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

    now = datetime.datetime.now(datetime.UTC)

    def key() -> ec.EllipticCurvePrivateKey:
        return ec.generate_private_key(ec.SECP256R1())

    def name(cn: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, cn)])

    def ca(cn: str) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        k = key()
        cert = (
            x509.CertificateBuilder()
            .subject_name(name(cn))
            .issuer_name(name(cn))
            .public_key(k.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(k.public_key()), False)
            .add_extension(
                x509.KeyUsage(
                    digital_signature=True,
                    content_commitment=False,
                    key_encipherment=False,
                    data_encipherment=False,
                    key_agreement=False,
                    key_cert_sign=True,
                    crl_sign=True,
                    encipher_only=False,
                    decipher_only=False,
                ),
                critical=True,
            )
            .sign(k, hashes.SHA256())
        )
        return cert, k

    def leaf(
        cn: str,
        issuer: tuple[x509.Certificate, ec.EllipticCurvePrivateKey],
        usage: x509.ObjectIdentifier,
        server: bool,
    ) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
        k = key()
        builder = (
            x509.CertificateBuilder()
            .subject_name(name(cn))
            .issuer_name(issuer[0].subject)
            .public_key(k.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([usage]), critical=False)
            # Key identifiers: OpenSSL's strict verification (Python 3.13's default
            # context) refuses a certificate without its issuer's.
            .add_extension(x509.SubjectKeyIdentifier.from_public_key(k.public_key()), False)
            .add_extension(
                x509.AuthorityKeyIdentifier.from_issuer_public_key(issuer[1].public_key()),
                critical=False,
            )
        )
        if server:
            builder = builder.add_extension(
                x509.SubjectAlternativeName(
                    [
                        x509.DNSName("localhost"),
                        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    ]
                ),
                critical=False,
            )
        return builder.sign(issuer[1], hashes.SHA256()), k

    def write(stem: str, pair: tuple[x509.Certificate, ec.EllipticCurvePrivateKey]) -> None:
        cert, k = pair
        (directory / f"{stem}.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        (directory / f"{stem}.key").write_bytes(
            k.private_bytes(
                serialization.Encoding.PEM,
                serialization.PrivateFormat.PKCS8,
                serialization.NoEncryption(),
            )
        )

    authority = ca("Referee test CA")
    rogue = ca("Some other CA")
    write("ca", authority)
    write("server", leaf("localhost", authority, ExtendedKeyUsageOID.SERVER_AUTH, True))
    write("client", leaf("client-1", authority, ExtendedKeyUsageOID.CLIENT_AUTH, False))
    write("rogue", leaf("client-1", rogue, ExtendedKeyUsageOID.CLIENT_AUTH, False))
    return Certs(
        ca=directory / "ca.pem",
        server_cert=directory / "server.pem",
        server_key=directory / "server.key",
        client_cert=directory / "client.pem",
        client_key=directory / "client.key",
        rogue_client_cert=directory / "rogue.pem",
        rogue_client_key=directory / "rogue.key",
    )


def rejected_replay(stub: Any, actions: int) -> tuple[pb.NewGameResponse, pb.ReplayRequest]:
    """:func:`long_replay`, and the server's answer to its NewGame: the state it starts
    from, which its every refused action leaves as it is (so its final hash)."""
    request = long_replay(actions)
    return stub.NewGame(pb.NewGameRequest(config=request.config, seed=request.seed)), request


def closed_by_server(sock: socket.socket, within: float = 30.0) -> bool:
    """Whether the server ends ``sock`` (its end read, or a reset) within ``within``
    seconds, whatever it sent before."""
    deadline = time.monotonic() + within
    try:
        while (left := deadline - time.monotonic()) > 0:
            sock.settimeout(left)
            if not sock.recv(65536):
                return True
    except TimeoutError:
        return False
    except ConnectionResetError:
        return True
    return False
