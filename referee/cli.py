"""The ``referee`` command line."""

from __future__ import annotations

import argparse
import math
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

from referee import __version__, build, stacks

ENV_PREFIX = "REFEREE_"


def _env(name: str, default: str) -> str:
    return os.environ.get(ENV_PREFIX + name, default)


def _int_range(lo: int, hi: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"{value} is out of range {lo} .. {hi}")
        return value

    return parse


def _buffered_bytes(text: str) -> int | None:
    """``--max-buffered-bytes``: a number of bytes, or ``auto`` (None)."""
    if text.strip().lower() == "auto":
        return None
    return _int_range(1, 2**48)(text)


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not a finite number")
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} must be at least 0")
    return value


def _boolean(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off", ""):
        return False
    raise argparse.ArgumentTypeError(f"{text!r} is not true or false")


def _choice(choices: Sequence[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text.lower() not in choices:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(choices)}")
        return text.lower()

    return parse


def _optional(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An optional setting: empty (or ``none``/``off``) means not set."""

    def parse_optional(text: str) -> Any:
        if text.strip().lower() in ("", "none", "off"):
            return None
        return parse(text)

    return parse_optional


def _workers(text: str) -> int:
    from referee.workers import available_cpus

    if text.strip().lower() == "auto":
        return available_cpus()
    return _int_range(1, 1024)(text)


def _path(text: str) -> Path:
    return Path(text).expanduser()


def _names(text: str) -> tuple[str, ...]:
    names = tuple(n.strip() for n in text.split(",") if n.strip())
    for n in names:
        if not re.fullmatch(r"/?[A-Za-z_][\w.]*(/\w+)?", n):
            raise argparse.ArgumentTypeError(
                f"{n!r} is not a service (pkg.Service) or method (/pkg.Service/Method) name"
            )
    return names


def _new_game_rules(text: str) -> tuple[str, ...]:
    """``--new-game-rules``: rules versions this build serves, at most one per game."""
    from referee.codec import all_codecs, starting

    versions = tuple(v.strip() for v in text.split(",") if v.strip())
    try:
        starting(all_codecs(), versions)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None
    return versions


class _Given(argparse._StoreAction):
    """A setting's flag that records, when given, that it was (``_named``)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        super().__call__(parser, namespace, values, option_string)
        namespace.given_flags = {*getattr(namespace, "given_flags", ()), self.option_strings[0]}


def _named(args: argparse.Namespace, flag: str, env: str) -> str:
    """What set a setting, to name in a message: its flag when given (flags win), else
    its variable when set, else the flag (its default)."""
    if flag not in getattr(args, "given_flags", ()) and ENV_PREFIX + env in os.environ:
        return ENV_PREFIX + env
    return flag


class _BadVariable:
    """A setting's ``REFEREE_*`` variable that does not parse: an error only where it
    would be used (``referee serve`` without the setting's flag, which wins), never for
    another command (``referee health``, a container's health check, must still run)."""

    def __init__(self, message: str) -> None:
        self.message = message

    def __repr__(self) -> str:
        return f"<{self.message}>"


def _add_setting(
    parser: argparse.ArgumentParser | argparse._ArgumentGroup,
    flag: str,
    env: str,
    default: str,
    parse: Callable[[str], Any],
    help_text: str,
    alone: Any = None,
) -> None:
    """A flag whose default comes from ``REFEREE_<env>`` (checked like the flag itself).
    With ``alone``, the flag may also be given without a value, meaning ``alone``
    (``--require-sealed`` as ``--require-sealed true``)."""
    raw = _env(env, default)
    try:
        value = parse(raw)
    except argparse.ArgumentTypeError as e:
        value = _BadVariable(f"environment {ENV_PREFIX}{env}: {e}")
    extra: dict[str, Any] = {} if alone is None else {"nargs": "?", "const": alone}
    parser.add_argument(
        flag,
        action=_Given,
        type=parse,
        default=value,
        help=f"{help_text} (env {ENV_PREFIX}{env}; default {default or 'none'})",
        **extra,
    )


def _add_serve_operations(serve: argparse.ArgumentParser) -> None:
    """The settings of issue 7: processes, connections, limits, probes, metrics, TLS, auth."""
    from referee.auth import DEFAULT_EXEMPT

    seconds = _positive_float
    port = _optional(_int_range(0, 65535))
    path = _optional(_path)
    group = serve.add_argument_group("processes and limits")
    _add_setting(
        group,
        "--workers",
        "WORKERS",
        "auto",
        _workers,
        "worker processes sharing the port (SO_REUSEPORT: the kernel spreads connections, "
        "not calls, over them); auto: the CPUs available (cgroup quota included)",
    )
    _add_setting(
        group,
        "--worker-hang-seconds",
        "WORKER_HANG_SECONDS",
        "30",
        seconds,
        "with --workers above 1: a worker that sends no heartbeat (every second) for this "
        "long, its event loop or whole process stuck, is killed and restarted; 0: never "
        "(else at least 3)",
    )
    _add_setting(
        group,
        "--engine",
        "ENGINE",
        "auto",
        _choice(("auto", "asyncio", "threads")),
        "how a worker serves: asyncio (grpc.aio, with coalescing), threads (grpc's "
        "threaded server, each worker pinned to a CPU of its own where the CPUs are the "
        "workers' own), or auto: threads where the workers can be pinned so, asyncio "
        "elsewhere (docs/operations.md#engines)",
    )
    _add_setting(
        group,
        "--threads",
        "THREADS",
        "8",
        _int_range(1, 256),
        "with --engine threads: the handler threads per worker (calls beyond them wait for one)",
    )
    _add_setting(
        group,
        "--max-concurrent-rpcs",
        "MAX_CONCURRENT_RPCS",
        "0",
        _int_range(0, 1_000_000),
        "calls in flight per worker beyond which a call is refused with RESOURCE_EXHAUSTED "
        "(0: no limit; health and reflection are never limited)",
    )
    _add_setting(
        group,
        "--max-concurrent-replays",
        "MAX_CONCURRENT_REPLAYS",
        "0",
        _int_range(0, 1_000_000),
        "Replays in flight per worker beyond which a Replay is refused with "
        "RESOURCE_EXHAUSTED: bounds the memory long Replays need, about 45 MiB each at "
        "the action cap (0: no limit but --max-concurrent-rpcs)",
    )
    _add_setting(
        group,
        "--max-request-bytes-in-flight",
        "MAX_REQUEST_BYTES_IN_FLIGHT",
        "0",
        _int_range(0, 1 << 34),
        "bytes of requests over 64 KiB a worker serves at once; a request that would take "
        "them over it is refused with RESOURCE_EXHAUSTED (reason REQUEST_BYTES_IN_FLIGHT), "
        "and so is one over it alone: bounds the memory large requests need, about 36 "
        "bytes a byte at most (0: no limit; else at least 1 MiB)",
    )
    _add_setting(
        group,
        "--coalesce-us",
        "COALESCE_US",
        "200",
        _int_range(0, 10_000),
        "with --engine asyncio: under load, short calls wait until calls stop arriving "
        "for this many microseconds "
        "(at most 10 times as long, at most 32 calls) and run back to back, which is "
        "cheaper than one at a time; a call alone never waits (0: never batch)",
    )
    _add_setting(
        group,
        "--drain-delay-seconds",
        "DRAIN_DELAY_SECONDS",
        "0",
        seconds,
        "on SIGTERM, how long to keep serving with health NOT_SERVING before draining "
        "(lets load balancers and endpoints notice)",
    )
    group = serve.add_argument_group("connections")
    _add_setting(
        group,
        "--keepalive-time-seconds",
        "KEEPALIVE_TIME_SECONDS",
        "60",
        seconds,
        "ping a connection after this long without activity",
    )
    _add_setting(
        group,
        "--keepalive-timeout-seconds",
        "KEEPALIVE_TIMEOUT_SECONDS",
        "20",
        seconds,
        "close a connection whose ping is not answered within this",
    )
    _add_setting(
        group,
        "--keepalive-min-client-interval-seconds",
        "KEEPALIVE_MIN_CLIENT_INTERVAL_SECONDS",
        "10",
        seconds,
        "shortest interval between client keepalive pings accepted (faster: GOAWAY)",
    )
    _add_setting(
        group,
        "--max-connection-age-seconds",
        "MAX_CONNECTION_AGE_SECONDS",
        "300",
        seconds,
        "close connections (GOAWAY) after this long so that clients re-resolve and "
        "spread over new replicas (0: never)",
    )
    _add_setting(
        group,
        "--max-connection-age-grace-seconds",
        "MAX_CONNECTION_AGE_GRACE_SECONDS",
        "60",
        seconds,
        "time given to calls in flight on a connection closed for its age",
    )
    _add_setting(
        group,
        "--max-connection-idle-seconds",
        "MAX_CONNECTION_IDLE_SECONDS",
        "0",
        seconds,
        "close connections without calls for this long (0: never)",
    )
    _add_setting(
        group,
        "--handshake-timeout-seconds",
        "HANDSHAKE_TIMEOUT_SECONDS",
        "10",
        seconds,
        "close a new connection that has not completed its handshake (TLS, then HTTP/2's "
        "preface) within this; until then it holds a file descriptor (gRPC's default: 120)",
    )
    group = serve.add_argument_group("probes and metrics")
    _add_setting(
        group,
        "--health-port",
        "HEALTH_PORT",
        "",
        port,
        "a separate plaintext port serving only grpc.health.v1.Health, for probes when "
        "the service port needs TLS or tokens (bind it to the pod, do not expose it)",
    )
    _add_setting(group, "--health-host", "HEALTH_HOST", "0.0.0.0", str, "health port address")
    _add_setting(
        group,
        "--metrics-port",
        "METRICS_PORT",
        "",
        port,
        "serve Prometheus metrics over HTTP on this port (all workers summed)",
    )
    _add_setting(group, "--metrics-host", "METRICS_HOST", "0.0.0.0", str, "metrics port address")
    _add_setting(
        group,
        "--tracing",
        "TRACING",
        "off",
        _choice(("off", "otlp")),
        "otlp: a span a call sent to an OpenTelemetry collector over OTLP/gRPC, where "
        "OTEL_EXPORTER_OTLP_ENDPOINT says (sampling and resource from the other OTEL_* "
        "variables; docs/operations.md#traces); off: none",
    )
    group = serve.add_argument_group("TLS and authentication")
    _add_setting(group, "--tls-cert", "TLS_CERT", "", path, "PEM certificate chain: serve TLS")
    _add_setting(group, "--tls-key", "TLS_KEY", "", path, "PEM private key of --tls-cert")
    _add_setting(
        group,
        "--tls-client-ca",
        "TLS_CLIENT_CA",
        "",
        path,
        "PEM CA bundle: require client certificates signed by it (mutual TLS)",
    )
    _add_setting(
        group,
        "--auth-tokens-file",
        "AUTH_TOKENS_FILE",
        "",
        path,
        "file of accepted bearer tokens, one 'TOKEN', 'NAME TOKEN' or 'NAME TOKEN "
        "METHOD[,METHOD...]' (limited to those methods; @read: ListGames, ViewState, "
        "LegalActions) a line; clients send 'authorization: Bearer TOKEN'",
    )
    _add_setting(
        group,
        "--auth-tokens",
        "AUTH_TOKENS",
        "",
        str,
        "accepted bearer tokens, comma-separated 'TOKEN', 'NAME=TOKEN' or 'NAME=TOKEN "
        "METHOD[+METHOD...]' (prefer the "
        "variable or the file: a command line is visible to other processes)",
    )
    _add_setting(
        group,
        "--auth-exempt",
        "AUTH_EXEMPT",
        ",".join(DEFAULT_EXEMPT),
        _names,
        "services or methods callable without a token, comma-separated ('' for none)",
    )


def _settings(parser: argparse.ArgumentParser, args: argparse.Namespace) -> Any:
    """ServerSettings from the parsed flags, with the checks that span several of
    them (files, ports); a problem exits 2 with a message naming the setting."""
    from referee.auth import TokenError, TokenSet
    from referee.server import MIN_REQUEST_BYTES_IN_FLIGHT, ServerSettings
    from referee.tls import TlsError, TlsFiles

    def fail(message: str) -> None:
        parser.exit(2, f"{parser.prog}: error: {message}\n")

    for value in vars(args).values():
        if isinstance(value, _BadVariable):
            fail(value.message)

    def named(flag: str) -> str:  # "--tls-cert", or "REFEREE_TLS_CERT" when it set it
        return _named(args, flag, flag[2:].upper().replace("-", "_"))

    tls = None
    if (args.tls_cert is None) != (args.tls_key is None):
        fail(f"{named('--tls-cert')} and {named('--tls-key')} go together")
    if args.tls_client_ca is not None and args.tls_cert is None:
        fail(f"{named('--tls-client-ca')} (mutual TLS) needs --tls-cert and --tls-key")
    if args.tls_cert is not None:
        tls = TlsFiles(args.tls_cert, args.tls_key, args.tls_client_ca)
        try:
            tls.check()
        except TlsError as e:
            fail(str(e))
    variable = named("--auth-tokens")
    try:
        auth = TokenSet.load(
            args.auth_tokens_file, args.auth_tokens or "", args.auth_exempt, variable
        )
    except TokenError as e:
        # The variable's errors start with its name; the file's name the file (a token
        # listed twice with other methods names the tokens' names).
        file_given = args.auth_tokens_file is not None
        source = (
            f"{named('--auth-tokens-file')}: "
            if file_given and not str(e).startswith(variable)
            else ""
        )
        fail(f"authentication tokens: {source}{e}")
    ports = [(named("--port"), args.host, args.port)]
    if args.health_port is not None:
        ports.append((named("--health-port"), args.health_host, args.health_port))
    if args.metrics_port is not None:
        ports.append((named("--metrics-port"), args.metrics_host, args.metrics_port))
    for i, (flag, _, number) in enumerate(ports):
        for other, _, other_number in ports[:i]:
            if number and number == other_number:
                fail(f"{flag} and {other} are both {number}: they need different ports")
    if args.tracing == "otlp":
        from referee.tracing import TracingError, check_environment

        try:
            check_environment()
        except TracingError as e:
            fail(f"{named('--tracing')} otlp: {e}")
    if args.workers > 1:
        import socket

        if not hasattr(socket, "SO_REUSEPORT"):
            fail(f"{named('--workers')} above 1 needs SO_REUSEPORT (Linux); use --workers 1")
    if 0 < args.worker_hang_seconds < 3:
        fail(
            f"{named('--worker-hang-seconds')} must be 0 (never) or at least 3 "
            "(heartbeats are 1 s apart)"
        )
    if 0 < args.max_request_bytes_in_flight < MIN_REQUEST_BYTES_IN_FLIGHT:
        fail(
            f"{named('--max-request-bytes-in-flight')} must be 0 (no limit) or at least "
            "1048576 (1 MiB): requests under 64 KiB are not counted"
        )
    for flag in (
        "--keepalive-time-seconds",
        "--keepalive-timeout-seconds",
        "--handshake-timeout-seconds",
    ):
        if getattr(args, flag[2:].replace("-", "_")) < 1:
            fail(f"{named(flag)} must be at least 1")
    return ServerSettings(
        host=args.host,
        port=args.port,
        max_message_bytes=args.max_message_bytes,
        grace_seconds=args.grace_seconds,
        max_replay_actions=args.max_replay_actions,
        max_replay_cpu_seconds=args.max_replay_cpu_seconds,
        new_game_rules=args.new_game_rules,
        max_concurrent_rpcs=args.max_concurrent_rpcs,
        max_concurrent_replays=args.max_concurrent_replays,
        max_request_bytes_in_flight=args.max_request_bytes_in_flight,
        coalesce_us=args.coalesce_us,
        engine=args.engine,
        threads=args.threads,
        keepalive_time_seconds=args.keepalive_time_seconds,
        keepalive_timeout_seconds=args.keepalive_timeout_seconds,
        keepalive_min_client_interval_seconds=args.keepalive_min_client_interval_seconds,
        max_connection_age_seconds=args.max_connection_age_seconds,
        max_connection_age_grace_seconds=args.max_connection_age_grace_seconds,
        max_connection_idle_seconds=args.max_connection_idle_seconds,
        handshake_timeout_seconds=args.handshake_timeout_seconds,
        compressed_requests=args.compressed_requests,
        drain_delay_seconds=args.drain_delay_seconds,
        health_host=args.health_host,
        health_port=args.health_port,
        tls=tls,
        auth=auth,
        workers=args.workers,
        worker_hang_seconds=args.worker_hang_seconds,
        metrics_host=args.metrics_host,
        seal_keys=_seal_keys(args),
        require_sealed=args.require_sealed,
        seal_format=args.seal_format,
        seal_keys_file=Path(args.seal_keys_file) if args.seal_keys_file else None,
        metrics_port=args.metrics_port,
        tracing=args.tracing,
    )


def _parser() -> argparse.ArgumentParser:
    from referee.logs import FORMATS, LEVELS
    from referee.server import COMPRESSED_REQUESTS, DEFAULT_PORT, MIN_MESSAGE_BYTES

    parser = argparse.ArgumentParser(
        prog="referee",
        description="Referee: a stateless gRPC rules referee for card games.",
    )
    parser.add_argument(
        "--version", action="version", version=f"referee {__version__} ({build()} build)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    serve = sub.add_parser(
        "serve",
        help="start the gRPC server",
        description="Start the Referee gRPC server. Every option can also be set by an "
        "environment variable; flags win.",
    )
    _add_setting(serve, "--host", "HOST", "0.0.0.0", str, "address to bind")
    _add_setting(
        serve, "--port", "PORT", str(DEFAULT_PORT), _int_range(0, 65535), "port (0: any free)"
    )
    _add_setting(serve, "--log-level", "LOG_LEVEL", "info", _choice(LEVELS), "log level")
    _add_setting(
        serve,
        "--log-format",
        "LOG_FORMAT",
        "auto",
        _choice(FORMATS),
        "log format: json, console, or auto (console on a terminal)",
    )
    _add_setting(
        serve,
        "--max-message-bytes",
        "MAX_MESSAGE_BYTES",
        str(16 * 1024 * 1024),
        _int_range(MIN_MESSAGE_BYTES, 256 * 1024 * 1024),
        "largest request or response accepted (at least 1 MiB: only a Replay's answer "
        "can be larger)",
    )
    _add_setting(
        serve,
        "--compressed-requests",
        "COMPRESSED_REQUESTS",
        "accept",
        _choice(COMPRESSED_REQUESTS),
        "accept: requests compressed with gzip or deflate are inflated (up to "
        "--max-message-bytes, before any check, tokens included) and served; refuse: gRPC "
        "answers them UNIMPLEMENTED (for a port clients you do not trust can reach)",
    )
    _add_setting(
        serve,
        "--grace-seconds",
        "GRACE_SECONDS",
        "10",
        _positive_float,
        "on SIGTERM, how long in-flight calls may take to finish",
    )
    _add_setting(
        serve,
        "--max-replay-actions",
        "MAX_REPLAY_ACTIONS",
        "100000",
        _int_range(1, 10_000_000),
        "most actions one Replay call may carry",
    )
    _add_setting(
        serve,
        "--max-replay-cpu-seconds",
        "MAX_REPLAY_CPU_SECONDS",
        "10",
        _positive_float,
        "CPU time one Replay call may use; a Replay that uses more is stopped with "
        "RESOURCE_EXHAUSTED (reason REPLAY_CPU_LIMIT); 0: no limit",
    )
    _add_setting(
        serve,
        "--new-game-rules",
        "NEW_GAME_RULES",
        "",
        _new_game_rules,
        "the rules versions NewGame starts games under, comma-separated, at most one per "
        "game (default: each game's newest): hold new games on the version every replica "
        "serves while a rollout that adds one is under way",
    )
    _add_serve_operations(serve)
    serve.set_defaults(serve_parser=serve)
    serve.add_argument(
        "--check-config",
        action="store_true",
        help="check the settings (flags and variables, sealing keys, tokens, TLS files) and "
        "print what the server would serve with, then exit without serving: 0 when they "
        "are good, 2 with the message serve would give when not (ports are not bound)",
    )

    serve.add_argument(
        "--seal-keys-file",
        action=_Given,
        default=_env("SEAL_KEYS_FILE", ""),
        help="file of sealing keys, one 'id:base64' per line, the first seals, all open "
        f"(env {ENV_PREFIX}SEAL_KEYS_FILE; or the keys themselves in {ENV_PREFIX}SEAL_KEYS, "
        "comma-separated; one or the other, not both). Without keys the server runs in "
        "plain mode.",
    )
    _add_setting(
        serve,
        "--require-sealed",
        "REQUIRE_SEALED",
        "false",
        _boolean,
        "refuse plain states and caller-chosen seeds (needs sealing keys): true or false; "
        "the flag alone means true",
        alone=True,
    )
    _add_setting(
        serve,
        "--seal-format",
        "SEAL_FORMAT",
        "3",
        _int_range(2, 3),
        "the sealed-token format written: 3, or 2 (unpadded: its length tells hidden cards) "
        "only while a rolling upgrade from a release that reads format 2 only is under way; "
        "both are read",
    )

    sub.add_parser("games", help="list the games, their options and variants")

    verify = sub.add_parser(
        "verify",
        help="check a game log: re-derive every deal from the seed and replay every action",
        description="Check a whole game log: OK (exit 0) only when it carries every field "
        "that binds it to its game (rules version, seed commitment, first, every and final "
        "state hash, verdicts), every one matches, and the game is over; else DIVERGENCE, "
        "NOT VERIFIABLE or INCOMPLETE (exit 1). An unreadable file or a bad option exits 2. "
        "Give the commitment and final hash you saw during the game to tie the log to it, "
        "and as a seat, the entropy you sent (docs/trust.md).",
    )
    verify.add_argument("log", help="a GameLog in JSON (Replay with include_log produces one)")
    verify.add_argument(
        "--commitment",
        type=_sha256_hex,
        metavar="HEX",
        help="the seed commitment the seats saw at the start (64 hex digits): the log's "
        "and SHA-256 of its seed must equal it",
    )
    verify.add_argument(
        "--final-hash",
        type=_sha256_hex,
        metavar="HEX",
        help="the last state hash the platform accepted (64 hex digits): the log must end there",
    )
    verify.add_argument(
        "--seat-entropy",
        type=_seat_entropy,
        action="append",
        metavar="SEAT:HEX",
        help="the entropy seat SEAT sent to NewGame, in hex (SEAT: alone for none): the log's "
        "entry for that seat must equal it, so the deals mixed it in; repeat for more seats",
    )
    verify.add_argument(
        "--partial",
        action="store_true",
        help="also accept a log that lacks fields or stops before the game is over: "
        "check what it has, and list what was not checked (PARTIAL, never OK)",
    )

    seal_key = sub.add_parser("seal-key", help="print a new random sealing key line (id:base64)")
    seal_key.add_argument("--id", default="k1", help="key id (default k1)")

    scenario = sub.add_parser(
        "scenario",
        help="referee scenario files and check their expectations (docs/scenarios.md)",
    )
    scenario.add_argument("files", nargs="+", help="scenario JSON files")
    scenario.add_argument(
        "--address", help="check against a running server (default: in-process referee)"
    )
    _add_connection_options(scenario)

    deal = sub.add_parser(
        "deal",
        help="show the first deal of a game and seed (to write scenarios)",
        description="Show the public events of a game's first deal and what every seat "
        "sees of it (in-process, no server). The game is a game id with --seats and "
        "--config, as play and demo take it, or a whole GameConfig in JSON.",
    )
    deal.add_argument(
        "game",
        metavar="GAME",
        help="game id (earl_of_coventry, ecarte), or a GameConfig in JSON, e.g. "
        '\'{"earlOfCoventry": {"seats": 3}}\'',
    )
    deal.add_argument("--seed", required=True, help="32 bytes as 64 hex digits")
    deal.add_argument(
        "--seats",
        type=_int_range(1, 64),
        help="with a game id: number of seats (games that have it)",
    )
    deal.add_argument(
        "--config",
        help="with a game id: the game's options as JSON, e.g. '{\"firstDealer\": 0}'",
    )

    health = sub.add_parser(
        "health",
        help="check a server's health (exit 0 when SERVING)",
        description="Ask a server's grpc.health.v1.Health service; exit 0 when SERVING. "
        "Health needs no token unless the server's --auth-exempt says otherwise; a TLS "
        "port needs --tls or --ca-file (a --health-port is plaintext).",
    )
    # The client commands' default addresses: a variable that is not a port (unset,
    # none/off, a typo) is passed over, so they still run.
    port = _env("PORT", "").strip()
    if not (port.isascii() and port.isdigit()):
        port = str(DEFAULT_PORT)
    health_port = _env("HEALTH_PORT", "").strip()
    if not (health_port.isascii() and health_port.isdigit()):
        health_port = port
    health.add_argument(
        "--address",
        default=f"localhost:{health_port}",
        help="server to check (default: localhost and REFEREE_HEALTH_PORT, else REFEREE_PORT, "
        f"else {DEFAULT_PORT})",
    )
    health.add_argument("--service", default="", help="service name ('' = the whole server)")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds")
    health.add_argument(
        "--container",
        action="store_true",
        help="check what this container runs (the image's HEALTHCHECK): when its main "
        "process (PID 1) is `referee grpc-web`, the gateway's GET /healthz on its port; "
        "else the server's health as without it",
    )
    health.add_argument(
        "--pid", type=int, default=1, help="with --container: the main process (default 1)"
    )
    _add_connection_options(health)
    _add_grpc_web_parser(sub, f"localhost:{port}")
    _add_play_parser(sub, f"localhost:{port}")
    _add_demo_parser(sub, f"localhost:{port}")
    return parser


GRPC_WEB_PORT: Final = 8080


def _origins(text: str) -> tuple[str, ...]:
    """``--allow-origin``'s list: ``*``, or origins ``scheme://host[:port]``."""
    origins = tuple(o.strip() for o in text.split(",") if o.strip())
    for o in origins:
        if o != "*" and not re.fullmatch(r"https?://[a-z0-9.\-\[\]:]+/?", o.lower()):
            raise argparse.ArgumentTypeError(
                f"{o!r} is not an origin (scheme://host[:port], e.g. https://play.example.com) "
                "nor *"
            )
    return origins


def _add_grpc_web_parser(sub: Any, address: str) -> None:
    from referee.logs import FORMATS, LEVELS
    from referee.server import MIN_MESSAGE_BYTES

    web = sub.add_parser(
        "grpc-web",
        help="serve gRPC-Web for browsers, forwarding to a Referee server",
        description="A gRPC-Web gateway for web pages (Connect's createGrpcWebTransport, "
        "grpc-web): takes gRPC-Web calls over HTTP/1.1 and forwards each to the target "
        "Referee server as a gRPC call, with the caller's authorization, x-request-id, "
        "traceparent and grpc-timeout. Holds no state: run it beside the server or apart. "
        "docs/clients.md#browsers-grpc-web",
    )
    _add_setting(web, "--target", "GRPC_WEB_TARGET", address, str, "the Referee server (host:port)")
    _add_setting(web, "--host", "GRPC_WEB_HOST", "0.0.0.0", str, "address to bind")
    _add_setting(
        web,
        "--port",
        "GRPC_WEB_PORT",
        str(GRPC_WEB_PORT),
        _int_range(0, 65535),
        "port (0: any free)",
    )
    _add_setting(
        web,
        "--allow-origin",
        "GRPC_WEB_ALLOW_ORIGINS",
        "",
        _origins,
        "comma-separated origins whose pages may call (CORS), e.g. https://play.example.com; "
        "* for any; none: only pages served from the gateway's own origin",
    )
    _add_setting(
        web,
        "--max-message-bytes",
        "GRPC_WEB_MAX_MESSAGE_BYTES",
        str(16 * 1024 * 1024),
        _int_range(MIN_MESSAGE_BYTES, 256 * 1024 * 1024),
        "largest request or response accepted",
    )
    _add_setting(
        web,
        "--max-connections",
        "GRPC_WEB_MAX_CONNECTIONS",
        "256",
        _int_range(1, 100_000),
        "connections served at once (a thread each); more are answered 503",
    )
    _add_setting(
        web,
        "--max-buffered-bytes",
        "GRPC_WEB_MAX_BUFFERED_BYTES",
        "auto",
        _buffered_bytes,
        "request bytes held at once, all connections together (bodies over 64 KiB, from "
        "their first byte to the server's answer); a call over it is RESOURCE_EXHAUSTED. "
        "auto: 64 MiB, or twice the largest grpc-web-text body when --max-message-bytes "
        "makes that more",
    )
    _add_setting(
        web,
        "--call-timeout-seconds",
        "GRPC_WEB_CALL_TIMEOUT_SECONDS",
        "60",
        _positive_float,
        "longest a forwarded call may take (a shorter grpc-timeout wins)",
    )
    _add_setting(
        web,
        "--idle-timeout-seconds",
        "GRPC_WEB_IDLE_TIMEOUT_SECONDS",
        "60",
        _positive_float,
        "a connection is closed when its next request has not arrived whole (headers"
        " and body) this long after the last answer or its opening",
    )
    _add_setting(
        web,
        "--grace-seconds",
        "GRPC_WEB_GRACE_SECONDS",
        "10",
        _positive_float,
        "on SIGTERM, how long calls in flight may take to finish",
    )
    _add_setting(
        web,
        "--drain-delay-seconds",
        "GRPC_WEB_DRAIN_DELAY_SECONDS",
        "0",
        _positive_float,
        "on SIGTERM, how long to go on serving while GET /healthz answers 503 (a second "
        "signal cuts it short)",
    )
    _add_setting(
        web,
        "--channels",
        "GRPC_WEB_CHANNELS",
        "4",
        _int_range(1, 64),
        "connections to the target (a server's workers share connections, not calls)",
    )
    _add_setting(
        web,
        "--tls-cert",
        "GRPC_WEB_TLS_CERT",
        "",
        str,
        "PEM certificate chain: serve HTTPS (with --tls-key; reloaded when the files change)",
    )
    _add_setting(web, "--tls-key", "GRPC_WEB_TLS_KEY", "", str, "PEM private key of --tls-cert")
    _add_setting(
        web,
        "--metrics-port",
        "GRPC_WEB_METRICS_PORT",
        "",
        _optional(_int_range(0, 65535)),
        "serve the gateway's Prometheus metrics over HTTP on this port",
    )
    _add_setting(
        web, "--metrics-host", "GRPC_WEB_METRICS_HOST", "0.0.0.0", str, "metrics port address"
    )
    _add_setting(web, "--log-level", "LOG_LEVEL", "info", _choice(LEVELS), "log level")
    _add_setting(
        web,
        "--log-format",
        "LOG_FORMAT",
        "auto",
        _choice(FORMATS),
        "log format: json, console, or auto (console on a terminal)",
    )
    _add_connection_options(web, token=False)
    web.add_argument(
        "--check-config",
        action="store_true",
        help="check the settings (flags and variables, TLS files, the connection to the "
        "target's settings) and print what the gateway would serve with, then exit: 0 when "
        "they are good, 2 with the message it would give when not (no port is bound and the "
        "target is not called)",
    )
    web.set_defaults(grpc_web_parser=web)


def _grpc_web(args: argparse.Namespace) -> int:
    """``referee grpc-web``: serve until SIGTERM or SIGINT, then stop gracefully."""
    parser: argparse.ArgumentParser = args.grpc_web_parser

    def fail(message: str) -> int:
        parser.exit(2, f"{parser.prog}: error: {message}\n")
        return 2

    for value in vars(args).values():
        if isinstance(value, _BadVariable):
            return fail(value.message)
    if bool(args.tls_cert) != bool(args.tls_key):
        return fail("--tls-cert and --tls-key go together")
    cert = key = None
    if args.tls_cert:
        from referee.tls import TlsError, TlsFiles

        cert, key = _path(args.tls_cert), _path(args.tls_key)
        try:
            TlsFiles(cert, key).check()
        except TlsError as e:
            return fail(f"--tls-cert, --tls-key: {e}")
    try:
        connection = _connection(args, token=False)
    except _UsageError as e:
        return fail(str(e))

    from referee import logs
    from referee.grpcweb import Gateway, GatewaySettings, body_limit

    largest = body_limit(args.max_message_bytes, text=True)
    if args.max_buffered_bytes is not None and args.max_buffered_bytes < largest:
        named = _named(args, "--max-buffered-bytes", "GRPC_WEB_MAX_BUFFERED_BYTES")
        return fail(
            f"{named} must be at least {largest}: the body of one grpc-web-text request of "
            f"{_named(args, '--max-message-bytes', 'GRPC_WEB_MAX_MESSAGE_BYTES')}"
        )
    settings = GatewaySettings(
        target=args.target,
        host=args.host,
        port=args.port,
        allow_origins=args.allow_origin,
        max_message_bytes=args.max_message_bytes,
        max_connections=args.max_connections,
        max_buffered_bytes=args.max_buffered_bytes,
        call_timeout_seconds=args.call_timeout_seconds,
        idle_timeout_seconds=args.idle_timeout_seconds,
        grace_seconds=args.grace_seconds,
        drain_delay_seconds=args.drain_delay_seconds,
        channels=args.channels,
        tls_cert=cert,
        tls_key=key,
        target_credentials=connection.credentials,
        target_options=tuple(connection.options),
        metrics_host=args.metrics_host,
        metrics_port=args.metrics_port,
    )
    if args.check_config:
        print(_describe_gateway(settings, connection_tls=connection.credentials is not None))
        return 0
    logs.configure(args.log_level, args.log_format)
    stop = threading.Event()
    gateways: list[Gateway] = []

    def signalled(*_: object) -> None:
        if stop.is_set():  # a second signal: no more drain delay
            for g in gateways:
                g.cut_drain()
        stop.set()

    from referee.workers import STOP_SIGNALS

    for sig in STOP_SIGNALS:
        signal.signal(sig, signalled)
    from referee.metrics import MULTIPROC_ENV, bind_socket

    # The gateway is one process: prometheus-client's multiprocess mode (chosen at its
    # import from this variable, which a server's environment may have set) is not its.
    os.environ.pop(MULTIPROC_ENV, None)
    try:
        sock = bind_socket(args.host, args.port)
    except OSError as e:
        return fail(f"cannot bind {args.host}:{args.port}: {e.strerror or e}")
    try:
        gateway = Gateway(settings, sock)
    except OSError as e:
        sock.close()
        where = f"{args.metrics_host}:{args.metrics_port}"
        return fail(f"cannot bind --metrics-port {where}: {e.strerror or e}")
    gateways.append(gateway)
    gateway.start()
    stop.wait()
    gateway.stop()
    return 0


def _describe_gateway(s: Any, *, connection_tls: bool) -> str:
    """What ``referee grpc-web --check-config`` prints of good settings: no key, no
    token, no file's content."""
    from referee.server import host_port as address

    if s.allow_origins == ("*",):
        origins = "any page (*)"
    elif s.allow_origins:
        origins = ", ".join(s.allow_origins)
    else:
        origins = "none: only pages of the gateway's own origin (no CORS headers)"
    https = f"HTTPS: certificate {s.tls_cert}, key {s.tls_key}" if s.tls_cert else "HTTP"
    message = _size(s.max_message_bytes)
    metrics = address(s.metrics_host, s.metrics_port) if s.metrics_port is not None else "off"
    lines = [
        "referee grpc-web: the settings are good",
        f"  listen    {address(s.host, s.port)}, {https}",
        f"  target    {s.target} over {'TLS' if connection_tls else 'plaintext'}, "
        f"{s.channels} connections",
        f"  origins   {origins}",
        f"  limits    messages {message}, {s.max_connections} connections, requests held "
        f"{_size(s.buffered_bytes())}{' (auto)' if s.max_buffered_bytes is None else ''}, calls "
        f"{s.call_timeout_seconds:g} s, a request whole within {s.idle_timeout_seconds:g} s",
        f"  stopping  drain delay {s.drain_delay_seconds:g} s, then grace {s.grace_seconds:g} s",
        f"  metrics   {metrics}",
    ]
    if s.allow_origins == ("*",):
        lines.append("  warning   any web page may call the server through this gateway")
    return "\n".join(lines)


def _seal_keys(args: argparse.Namespace) -> tuple[tuple[str, bytes], ...]:
    """The sealing keys of the settings; exits 2 with a clear message when unusable."""
    from referee.sealing import KeyConfigError, Keyring, parse_keys

    source = ""
    if args.seal_keys_file and os.environ.get(ENV_PREFIX + "SEAL_KEYS"):
        # Not merged, unlike tokens: the order of the keys decides which one seals.
        named = _named(args, "--seal-keys-file", "SEAL_KEYS_FILE")
        _die(f"sealing keys come from {named} or {ENV_PREFIX}SEAL_KEYS, not both")
    keys: list[tuple[str, bytes]] = []
    if args.seal_keys_file:
        from referee.keyfile import read_key_file

        source = f"{_named(args, '--seal-keys-file', 'SEAL_KEYS_FILE')} {args.seal_keys_file}"
        try:
            keys = read_key_file(Path(args.seal_keys_file))
        except KeyConfigError as e:
            _die(f"{source}: {e}")
    elif os.environ.get(ENV_PREFIX + "SEAL_KEYS"):
        source = f"environment {ENV_PREFIX}SEAL_KEYS"
        try:
            keys = parse_keys(os.environ[ENV_PREFIX + "SEAL_KEYS"])
        except KeyConfigError as e:
            _die(f"{source}: {e}")
    if not source:
        if args.require_sealed:
            required = _named(args, "--require-sealed", "REQUIRE_SEALED")
            _die(f"{required} needs sealing keys (--seal-keys-file or REFEREE_SEAL_KEYS)")
        return ()
    try:
        Keyring(keys)
    except KeyConfigError as e:
        _die(f"{source}: {e}")
    return tuple(keys)


def _die(message: str) -> None:
    print(f"referee serve: error: {message}", file=sys.stderr)
    sys.exit(2)


def _no_core_files() -> None:
    """A server's memory holds the states it judged (every hand, the seeds) and the
    seal keys: a crash must not write it to a core file. The soft limit 0, before any
    worker is forked (they inherit it); the hard limit is left as it was."""
    import resource

    _soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))


# Below this many open files a server warns at start: every connection holds one.
LOW_OPEN_FILES: Final = 4096
# Where the hard limit is unlimited, the soft one is raised to the kernel's largest
# (/proc/sys/fs/nr_open), or this when it cannot be read.
_NR_OPEN_DEFAULT: Final = 1 << 20


def _raise_open_files_limit() -> tuple[int, int]:
    """Every client connection holds a file descriptor, and a server at its soft limit
    takes no new connection (gRPC retries the accept every second while those clients
    wait). Many systems start services with a soft limit of 1,024 under a much higher
    hard one (systemd's default, and some container runtimes'), so the soft limit is
    raised to the hard one, as Go's runtime does, before any worker is forked (they
    inherit it). Returns (soft limit before, soft limit now)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = hard
    if hard == resource.RLIM_INFINITY:
        try:
            target = int(Path("/proc/sys/fs/nr_open").read_text())
        except (OSError, ValueError):
            target = _NR_OPEN_DEFAULT
    if soft != resource.RLIM_INFINITY and soft < target:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        except (OSError, ValueError):
            return soft, soft
        return soft, target
    return soft, soft


def _check_ports(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Stop start-up (exit 2, one line naming the setting as it was given) when a port
    cannot be bound: in use, or a host that is not this machine's. Checked before gRPC
    binds, which would write a line of its own (C-core's log) first; ``GRPC_VERBOSITY``
    cannot be lowered for the bind alone (gRPC reads it once, when it is imported) and
    lowered for good it would hide gRPC's errors while serving. A port taken between
    this check and the bind still fails (``cannot serve``, exit 2)."""
    import errno
    import socket

    from referee.workers import probe_port

    def named(flag: str) -> str:  # "--metrics-port", or "REFEREE_METRICS_PORT" when it set it
        return _named(args, flag, flag[2:].upper().replace("-", "_"))

    ports = [("--port", "--host", args.host, args.port)]
    if args.health_port is not None:
        ports.append(("--health-port", "--health-host", args.health_host, args.health_port))
    if args.metrics_port is not None:
        ports.append(("--metrics-port", "--metrics-host", args.metrics_host, args.metrics_port))
    for port_flag, host_flag, host, port in ports:
        address = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
        try:
            probe_port(host, port)
        except socket.gaierror as e:
            message = f"{named(host_flag)} {host!r}: cannot resolve: {e.strerror}"
        except OSError as e:
            # In use, or a port below 1024 without the privilege: the port's fault;
            # anything else (not an address of this host) the host's.
            own = e.errno in (errno.EADDRINUSE, errno.EACCES)
            flag, value = (port_flag, port) if own else (host_flag, host)
            reason = e.strerror or str(e)
            message = f"{named(flag)} {value}: cannot bind {address}: {reason}"
        else:
            continue
        parser.exit(2, f"{parser.prog}: error: {message}\n")


def _size(size: int) -> str:
    """A message size limit as ``--check-config`` prints it."""
    return f"{size >> 20} MiB" if size % (1 << 20) == 0 else f"{size} bytes"


def _describe_settings(s: Any, *, auto_workers: bool = False) -> str:
    """What ``referee serve --check-config`` prints of good settings: no key material,
    no token, no file's content."""
    from referee.sealing import Keyring
    from referee.server import host_port as address
    from referee.tracing import endpoint as tracing_endpoint

    if s.tls is None:
        tls = "off"
    else:
        tls = f"on: certificate {s.tls.cert}, key {s.tls.key}"
        if s.tls.client_ca is not None:
            tls += f", client certificates from {s.tls.client_ca} (mutual TLS)"
    if s.seal_keys:
        ring = Keyring(s.seal_keys)
        mode = "sealed states only" if s.require_sealed else "sealed and plain states"
        sealing = (
            f"on: {mode}; sealing with key {ring.sealing_key_id!r} (token format "
            f"{s.seal_format}), opening with {list(ring.key_ids)}"
        )
    else:
        sealing = "off: plain states (no sealing keys configured)"
    auth = "off"
    if s.auth is not None:
        exempt = ", ".join(s.auth.exempt)
        auth = s.auth.describe() + (
            f"; no token needed for {exempt}" if exempt else "; every method needs a token"
        )
    workers = f"auto ({s.workers} on this machine)" if auto_workers else str(s.workers)
    if s.workers > 1 or auto_workers:
        hang = s.worker_hang_seconds
        workers += ", a hung worker replaced after " + (f"{hang:g} s" if hang else "never")
    message = _size(s.max_message_bytes)
    age = (
        f"{s.max_connection_age_seconds:g} s (+{s.max_connection_age_grace_seconds:g} s grace)"
        if s.max_connection_age_seconds > 0
        else "unlimited"
    )
    idle = (
        f"{s.max_connection_idle_seconds:g} s" if s.max_connection_idle_seconds > 0 else "unlimited"
    )
    cpu = s.max_replay_cpu_seconds
    replay_cpu = f"at most {cpu:g} s of CPU" if cpu else "CPU unlimited"
    from referee.codec import all_codecs, others, starting

    codecs = all_codecs()
    starts = starting(codecs, s.new_game_rules).values()
    also = [o.rules.rules_version for c in starts for o in others(codecs, c)]
    rules = "new games " + ", ".join(c.rules.rules_version for c in starts)
    if also:
        rules += "; also " + ", ".join(also)
    lines = [
        "referee serve: the settings are good",
        f"  service   {address(s.host, s.port)}, TLS {tls}",
        "  health    "
        + (
            address(s.health_host, s.health_port)
            if s.health_port is not None
            else "on the service port"
        ),
        "  metrics   "
        + (address(s.metrics_host, s.metrics_port) if s.metrics_port is not None else "off"),
        "  tracing   " + (f"OTLP/gRPC to {tracing_endpoint()}" if s.tracing == "otlp" else "off"),
        f"  workers   {workers}; engine {s.engine}",
        f"  stopping  drain delay {s.drain_delay_seconds:g} s, then grace {s.grace_seconds:g} s",
        f"  connect   handshake within {s.handshake_timeout_seconds:g} s; a ping after "
        f"{s.keepalive_time_seconds:g} s quiet ({s.keepalive_timeout_seconds:g} s to answer); "
        f"age {age}; idle {idle}",
        f"  limits    messages {message}, {s.max_replay_actions} actions a "
        f"Replay ({replay_cpu}), calls in flight a worker "
        f"{s.max_concurrent_rpcs or 'unlimited'}, Replays "
        f"{s.max_concurrent_replays or 'unlimited'}, request bytes "
        + (_size(s.max_request_bytes_in_flight) if s.max_request_bytes_in_flight else "unlimited")
        + "; compressed requests "
        + ("accepted" if s.compressed_requests == "accept" else "refused"),
        f"  rules     {rules}",
        f"  sealing   {sealing}",
        f"  auth      {auth}",
    ]
    if s.auth is not None and s.tls is None:
        lines.append(
            "  warning   bearer tokens travel in plaintext unless TLS is terminated in front"
        )
    return "\n".join(lines)


def _serve(args: argparse.Namespace) -> int:
    from referee import logs
    from referee.server import run_worker

    settings = _settings(args.serve_parser, args)
    if args.check_config:
        given = "--workers" in getattr(args, "given_flags", ())
        auto = not given and os.environ.get(ENV_PREFIX + "WORKERS", "auto").strip() == "auto"
        print(_describe_settings(settings, auto_workers=auto))
        return 0
    _check_ports(args.serve_parser, args)
    logs.configure(args.log_level, args.log_format)
    log = logs.get_logger("referee.cli")
    _no_core_files()
    before, open_files = _raise_open_files_limit()
    if open_files != before:
        log.info("open_files_limit_raised", soft_before=before, soft=open_files)
    if open_files < LOW_OPEN_FILES:
        log.warning(
            "open_files_limit_low",
            soft=open_files,
            note=f"each client connection holds a file descriptor: at most about {open_files} "
            "connections; raise the hard limit (ulimit -Hn, systemd LimitNOFILE=, the "
            "container runtime's nofile)",
        )
    if settings.auth is not None and settings.tls is None:
        log.warning(
            "auth_without_tls",
            note="bearer tokens travel in plaintext unless TLS is terminated in front",
        )
    try:
        if settings.workers > 1:
            from referee.workers import run

            return run(settings)
        metrics = None
        on_ready = None
        if settings.metrics_port is not None:
            from referee import metrics as m

            sock = m.bind_socket(settings.metrics_host, settings.metrics_port)
            metrics = m.Metrics()
            m.install(metrics)
            m.serve_in_thread(sock, metrics.exposition_registry())
            log.info("metrics_serving", port=sock.getsockname()[1])
            serving = metrics.workers

            def on_ready(_server: object) -> None:
                # The one process is the one worker (the supervisor counts its workers).
                serving.set(1)

        logs.bind_process(worker=0)
        # A crash in a C extension (SIGSEGV and the like): every thread's Python stack
        # on stderr before the process dies; and on SIGUSR2 (an operator's kill -USR2),
        # the same while it goes on serving. With --workers N, the supervisor logs them.
        stacks.install(sys.stderr.fileno(), hung_signal=False)
        run_worker(settings, metrics, 0, on_ready)
    except OSError as e:
        print(f"referee: cannot serve: {e}", file=sys.stderr)
        return 2
    return 0


def _games() -> int:
    from referee.codec import all_codecs, newest, others

    codecs = all_codecs()
    for codec in newest(codecs).values():
        r = codec.rules
        older = [c.rules.rules_version for c in others(codecs, codec)]
        also = f" (also judges {', '.join(older)})" if older else ""
        print(
            f"{r.game_id}  {r.title}  rules {r.rules_version}{also}  "
            f"seats {r.min_seats}-{r.max_seats}"
        )
        print(f"  {r.rules_document}")
        width = max(len(o.name) for o in r.options)
        for o in r.options:
            rng = f" [{o.min}..{o.max}]" if o.type == 2 else ""
            default = o.default or "(none)"
            print(f"  {o.name:<{width}}  default {default}{rng}  {o.rule_id}  {o.description}")
        print("  variants: " + ", ".join(f"{v.title} ({v.rule_id})" for v in r.variants))
        print()
    return 0


# ------------------------------------------------------------------ the client commands

TOKEN_VARIABLE = ENV_PREFIX + "TOKEN"
# The connection options, in the order a message about one of them names them.
_CONNECTION_FLAGS = (
    "--tls",
    "--ca-file",
    "--server-name",
    "--cert-file",
    "--key-file",
    "--token-file",
)


class _UsageError(Exception):
    """A client command's options that cannot be used: one line, exit 2."""


def _add_connection_options(p: argparse.ArgumentParser, token: bool = True) -> None:
    """TLS and the bearer token of a client command (demo, play, scenario, health); TLS
    only with ``token=False`` (grpc-web: the token is each caller's own)."""
    group = p.add_argument_group(
        "TLS and token" if token else "the server's TLS",
        "for a server with TLS (--tls-cert) or tokens (--auth-tokens-file); "
        "docs/clients.md#the-command-line-and-secured-servers"
        if token
        else "how to reach a server with TLS (--tls-cert) or mutual TLS (--tls-client-ca)",
    )
    group.add_argument(
        "--tls",
        action="store_true",
        help="connect with TLS, checking the server's certificate with the system's CAs",
    )
    group.add_argument(
        "--ca-file",
        type=_path,
        metavar="PATH",
        help="PEM CA bundle to check the server's certificate with, instead of the "
        "system's (implies --tls)",
    )
    group.add_argument(
        "--server-name",
        metavar="NAME",
        help="the name the server's certificate must carry, when it is not the address's "
        "host (with --tls or --ca-file)",
    )
    group.add_argument(
        "--cert-file",
        type=_path,
        metavar="PATH",
        help="PEM client certificate chain, for a server that requires one (mutual TLS, "
        "--tls-client-ca); with --key-file; implies --tls",
    )
    group.add_argument(
        "--key-file", type=_path, metavar="PATH", help="PEM private key of --cert-file"
    )
    if not token:
        return
    group.add_argument(
        "--token-file",
        type=_path,
        metavar="PATH",
        help="file holding the bearer token sent on every call ('authorization: Bearer "
        f"TOKEN'); without it, the token of env {TOKEN_VARIABLE} if set. No option takes "
        "the token itself: a command line is visible to other processes",
    )


class _Connection:
    """How a client command reaches its server: channel credentials (TLS), channel
    options and the call metadata (the token). Its ``repr`` never shows the token."""

    def __init__(self, credentials: Any, options: list[tuple[str, Any]], token: str | None):
        self.credentials = credentials
        self.options = options
        self.metadata: list[tuple[str, str]] = (
            [("authorization", f"Bearer {token}")] if token else []
        )

    def __repr__(self) -> str:
        return f"_Connection(tls={self.credentials is not None}, token={bool(self.metadata)})"


def _token(args: argparse.Namespace) -> str | None:
    """The bearer token of ``--token-file``, else of ``REFEREE_TOKEN`` (unset or empty:
    none). Messages name the source, never the token."""
    raw: bytes
    if args.token_file is not None:
        source = f"--token-file {args.token_file}"
        try:
            raw = args.token_file.read_bytes()
        except OSError as e:
            raise _UsageError(f"{source}: {e.strerror or e}") from None
    else:
        value = os.environ.get(TOKEN_VARIABLE, "")
        if not value.strip():
            return None
        source = f"environment {TOKEN_VARIABLE}"
        raw = value.encode("utf-8", "surrogateescape")
    words = raw.split()
    if not words:
        raise _UsageError(f"{source}: holds no token")
    if len(words) > 1:
        raise _UsageError(f"{source}: must hold one token and nothing else")
    if not re.fullmatch(rb"[\x21-\x7e]+", words[0]):
        raise _UsageError(f"{source}: a token is visible ASCII characters only")
    return words[0].decode("ascii")


def _connection(args: argparse.Namespace, token: bool = True) -> _Connection:
    """The connection the options ask for; a :class:`_UsageError` when they do not fit
    or a file cannot be used (checked before connecting). ``token=False``: TLS only."""
    import grpc

    tls = args.tls or args.ca_file is not None or args.cert_file is not None
    if args.server_name is not None and not tls:
        raise _UsageError("--server-name needs --tls or --ca-file")
    if (args.cert_file is None) != (args.key_file is None):
        raise _UsageError("--cert-file and --key-file go together")
    bearer = _token(args) if token else None
    credentials = None
    if tls:
        ca = None
        if args.ca_file is not None:
            from cryptography import x509

            try:
                ca = args.ca_file.read_bytes()
                x509.load_pem_x509_certificates(ca)
            except OSError as e:
                raise _UsageError(f"--ca-file {args.ca_file}: {e.strerror or e}") from None
            except ValueError:
                raise _UsageError(f"--ca-file {args.ca_file}: holds no PEM certificate") from None
        key = cert = None
        if args.cert_file is not None:
            from referee.tls import TlsError, TlsFiles

            files = TlsFiles(args.cert_file, args.key_file)
            try:
                pem = files.read()
                files.validate(pem)
            except TlsError as e:
                raise _UsageError(f"--cert-file, --key-file: {e}") from None
            key, cert = pem.key, pem.cert
        credentials = grpc.ssl_channel_credentials(
            root_certificates=ca, private_key=key, certificate_chain=cert
        )
    options: list[tuple[str, Any]] = []
    if args.server_name:
        options.append(("grpc.ssl_target_name_override", args.server_name))
    return _Connection(credentials, options, bearer)


def _gateway_settings_of(pid: int) -> argparse.Namespace | None:
    """The settings of process ``pid`` when it runs ``referee grpc-web`` (read from its
    command line, with this process's environment, which a container's health check
    shares with its main process); None when it runs anything else."""
    import contextlib
    import io

    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    argv = [a.decode(errors="replace") for a in raw.split(b"\0") if a]
    if "grpc-web" not in argv:
        return None
    at = argv.index("grpc-web")
    if not any(Path(a).name == "referee" or a == "referee.cli" for a in argv[:at]):
        return None
    with contextlib.redirect_stderr(io.StringIO()):
        try:
            return _parser().parse_args(argv[at:])
        except SystemExit:
            return None


def _gateway_health(settings: argparse.Namespace, timeout: float) -> int:
    """GET /healthz of a gateway of this machine: exit 0 on 200."""
    import http.client
    import ssl

    host = settings.host if settings.host not in ("", "0.0.0.0", "::") else "127.0.0.1"
    where = f"{host}:{settings.port}"
    if settings.port == 0:
        print("referee: the gateway's --port is 0 (any free port): no port to ask", file=sys.stderr)
        return 1
    conn: http.client.HTTPConnection
    if settings.tls_cert:
        # This machine's own gateway: is it up, not who it is.
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        conn = http.client.HTTPSConnection(host, settings.port, timeout=timeout, context=context)
    else:
        conn = http.client.HTTPConnection(host, settings.port, timeout=timeout)
    try:
        conn.request("GET", "/healthz")
        reply = conn.getresponse()
        text = reply.read().decode(errors="replace").strip()
    except (OSError, http.client.HTTPException) as e:
        print(f"referee: the gateway at {where}: {e}", file=sys.stderr)
        return 1
    finally:
        conn.close()
    print(f"{where} /healthz: {reply.status} {text}")
    return 0 if reply.status == 200 else 1


def _health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    if args.container:
        gateway = _gateway_settings_of(args.pid)
        if gateway is not None:
            return _gateway_health(gateway, args.timeout)
    connection = _connection(args)
    if connection.credentials is None:
        channel = grpc.insecure_channel(args.address, options=connection.options)
    else:
        channel = grpc.secure_channel(
            args.address, connection.credentials, options=connection.options
        )
    with channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(
                health_pb2.HealthCheckRequest(service=args.service),
                timeout=args.timeout,
                metadata=connection.metadata or None,
            )
        except grpc.RpcError as e:
            call: Any = e
            print(f"referee: {args.address}: {call.code().name}: {call.details()}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.address}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


class _Server:
    """A running server as the scenarios' backend (scenarios.Backend): the client's
    channel (TLS, retries on UNAVAILABLE), its deadline and token on every call, and
    gRPC errors as :class:`referee.client.RefereeError`."""

    def __init__(self, client: Any) -> None:
        self.client = client

    def _call(self, method: Any, request: Any) -> Any:
        return self.client._call(method, request, None)

    def NewGame(self, request: Any) -> Any:
        return self._call(self.client.stub.NewGame, request)

    def ApplyAction(self, request: Any) -> Any:
        return self._call(self.client.stub.ApplyAction, request)

    def ViewState(self, request: Any) -> Any:
        return self._call(self.client.stub.ViewState, request)

    def Replay(self, request: Any) -> Any:
        return self._call(self.client.stub.Replay, request)


def _scenario(args: argparse.Namespace) -> int:
    import contextlib

    import grpc
    from google.protobuf import json_format

    from referee import scenarios
    from referee.client import Client, RefereeError
    from referee.errors import RequestError

    backend: scenarios.Backend
    with contextlib.ExitStack() as stack:
        if args.address:
            connection = _connection(args)
            client = stack.enter_context(
                Client(
                    args.address,
                    credentials=connection.credentials,
                    metadata=connection.metadata,
                    options=connection.options,
                )
            )
            backend = _Server(client)
        else:
            for flag in _CONNECTION_FLAGS:
                if getattr(args, flag[2:].replace("-", "_")) not in (None, False):
                    raise _UsageError(f"{flag} needs --address (a running server)")
            backend = scenarios.InProcess()
        failed = 0
        for name in args.files:
            failures: list[str]
            try:
                result = scenarios.run(scenarios.load(Path(name)), backend, name)
                failures = result.failures
            except RefereeError as e:
                if e.code != grpc.StatusCode.INVALID_ARGUMENT:
                    # The server's or the connection's (a token, TLS, a server that
                    # refuses client seeds): the same for every file.
                    print(f"referee: {args.address}: {e}", file=sys.stderr)
                    return 1
                failures = [str(e)]  # the file's request
            except RequestError as e:  # in-process: the file's request
                failures = [f"{e.code.name}: {e.message}"]
            except OSError as e:
                failures = [f"cannot read: {e.strerror or e}"]
            except KeyError as e:
                failures = [f"not a scenario: no {e}"]
            except (ValueError, TypeError, AttributeError, json_format.ParseError) as e:
                failures = [f"not a scenario: {e}"]
            if failures:
                failed += 1
                print(f"FAIL  {name}")
                for failure in failures:
                    print(f"      {failure}")
            else:
                print(f"ok    {name}  ({result.steps} steps)")
    return 1 if failed else 0


def _game_names() -> list[str]:
    from referee.v1 import referee_pb2

    return sorted(f.name for f in referee_pb2.GameConfig.DESCRIPTOR.oneofs_by_name["game"].fields)


def _deal_config(args: argparse.Namespace) -> Any:
    """The GameConfig of ``referee deal``'s argument: a game id with ``--seats`` and
    ``--config``, or a whole GameConfig in JSON. ``ValueError`` with the reason."""
    import json

    from google.protobuf import json_format

    from referee.v1 import referee_pb2

    text = args.game.strip()
    if text.startswith("{"):
        if args.seats is not None or args.config is not None:
            raise ValueError(
                "--seats and --config go with a game id (a GameConfig in JSON holds the "
                "options itself)"
            )
        try:
            return json_format.ParseDict(json.loads(text), referee_pb2.GameConfig())
        except json.JSONDecodeError as e:
            raise ValueError(f"GameConfig JSON: {e}") from None
    if re.fullmatch(r"[A-Za-z_]\w*", text):
        return _game_config(text, args.config or "{}", args.seats)
    raise ValueError(
        f"{text!r} is neither a game id ({', '.join(_game_names())}) nor a GameConfig in "
        "JSON (an object, e.g. '{\"earlOfCoventry\": {}}')"
    )


def _deal(args: argparse.Namespace) -> int:
    import json

    from google.protobuf import json_format

    from referee import scenarios
    from referee.errors import RequestError
    from referee.v1 import common_pb2, referee_pb2

    try:
        seed = _seed(args.seed)
        config = _deal_config(args)
    except (ValueError, json_format.ParseError) as e:
        print(f"referee deal: {' '.join(str(e).split())}", file=sys.stderr)  # one line
        return 2
    backend = scenarios.InProcess()
    try:
        first = backend.NewGame(referee_pb2.NewGameRequest(config=config, seed=seed))
        seats = len(first.scoreboard.seats)
        public = common_pb2.Viewer(public=common_pb2.PublicViewer())
        views = [common_pb2.Viewer(seat=s) for s in range(seats)] + [public]
        first = backend.NewGame(referee_pb2.NewGameRequest(config=config, seed=seed, views=views))
    except RequestError as e:
        print(f"referee deal: {e.message}", file=sys.stderr)
        return 2
    out = {
        "events": [scenarios.compact(e) for e in first.events],
        "views": [scenarios.compact(v) for v in first.views],
    }
    print(json.dumps(out, indent=1, ensure_ascii=False))
    return 0


def _hex32(text: str, what: str) -> bytes:
    """32 bytes as 64 hex digits, either case; ``ValueError`` with a one-line reason
    (``what`` the 32 bytes are, e.g. "a 32-byte seed")."""
    digits = text.strip()
    if not re.fullmatch(r"[0-9A-Fa-f]*", digits):
        raise ValueError(f"{text!r} is not hexadecimal")
    if len(digits) != 64:
        raise ValueError(f"{len(digits)} hex digits, not the 64 of {what}")
    return bytes.fromhex(digits)


def _seed(text: str) -> bytes:
    """A seed given as ``--seed``; ``ValueError`` with a one-line reason naming the flag."""
    try:
        return _hex32(text, "a 32-byte seed")
    except ValueError as e:
        raise ValueError(f"--seed: {e}") from None


def _add_game_options(p: argparse.ArgumentParser, address: str) -> None:
    p.add_argument("--address", default=address, help=f"the server (default {address})")
    p.add_argument("--seats", type=_int_range(1, 64), help="number of seats (games that have it)")
    p.add_argument(
        "--config", default="{}", help="the game's options as JSON, e.g. '{\"openHands\": true}'"
    )
    p.add_argument("--seed", help="the deal's seed, 32 bytes as 64 hex digits (default: random)")
    p.add_argument("--bot-seed", type=int, default=None, help="seed of the bots' choices")
    p.add_argument(
        "--rounds",
        type=_int_range(1, 1000),
        default=1,
        help="rounds the table deals before ending a session (default 1)",
    )
    _add_connection_options(p)


def _add_play_parser(sub: Any, address: str) -> None:
    play = sub.add_parser(
        "play",
        help="play a game at the terminal against bots, through a running server",
        description="Play one seat against bots. You see your own hand and what your seat "
        "may see; choose among the legal actions by number.",
    )
    play.add_argument("game", help="game id: ecarte or earl_of_coventry")
    play.add_argument("--seat", type=_int_range(0, 63), default=0, help="your seat (default 0)")
    _add_game_options(play, address)


def _add_demo_parser(sub: Any, address: str) -> None:
    demo = sub.add_parser(
        "demo",
        help="bots play a whole match or session through a running server; prints a transcript",
    )
    demo.add_argument(
        "--game", action="append", help="game id (repeatable; default: every game of the server)"
    )
    _add_game_options(demo, address)


def _game_config(game: str, config: str, seats: int | None) -> Any:
    """The GameConfig of a game id, its options in JSON (``--config``) and ``--seats``."""
    import json

    from google.protobuf import json_format

    from referee.client import config as game_config

    try:
        options = json.loads(config)
    except json.JSONDecodeError as e:
        raise ValueError(f"--config: {e}") from None
    if not isinstance(options, dict):
        raise ValueError("--config must be a JSON object")
    if seats is not None:
        options["seats"] = seats
    try:
        return game_config(game, options)
    except json_format.ParseError as e:
        raise ValueError(f"--config: {_parse_error(e)}") from None


def _parse_error(e: Exception) -> str:
    """protobuf's ParseError of a GameConfig's JSON in one line: an unknown field is
    named with the fields of its message."""
    text = str(e)
    unknown = re.search(r'has no field named "([^"]*)" at "GameConfig\.?([^"]*)"', text)
    if unknown is None:
        return " ".join(text.split())
    field, where = unknown.groups()
    known = re.search(r"Available Fields\(except extensions\): \"\[(.*?)\]\"", text)
    message = f"{where or 'GameConfig'} has no option {field!r}"
    if known:
        message += " (its options: " + ", ".join(re.findall(r"'([^']*)'", known.group(1))) + ")"
    return message


def _play_games(
    args: argparse.Namespace, games: Sequence[str] | None, human_seat: int | None
) -> int:
    import random

    from google.protobuf import json_format

    from referee.client import Client, RefereeError
    from referee.tabletop import GameError, Human, Quit, run_game

    sys.stdout.reconfigure(errors="replace")  # type: ignore[union-attr]
    bot_seed = (
        args.bot_seed if args.bot_seed is not None else random.SystemRandom().randrange(2**32)
    )
    try:
        seed = _seed(args.seed) if args.seed else b""
    except ValueError as e:
        raise _UsageError(str(e)) from None
    connection = _connection(args)
    with Client(
        args.address,
        credentials=connection.credentials,
        metadata=connection.metadata,
        options=connection.options,
    ) as client:
        try:
            ids = list(games) if games else [g.id for g in client.list_games()]
            for game in ids:
                try:
                    game_config = _game_config(game, args.config, args.seats)
                except (ValueError, json_format.ParseError) as e:
                    print(f"referee: {game}: {e}", file=sys.stderr)
                    return 2
                if human_seat is not None:
                    _check_seat(human_seat, game_config)
                human = Human(human_seat, sys.stdin, sys.stdout) if human_seat is not None else None
                print(f"== {game}  (bots' seed {bot_seed})")
                played = run_game(
                    client,
                    game_config,
                    bot_for=_bots(bot_seed, game),
                    seed=seed,
                    human=human,
                    rounds=args.rounds,
                    out=sys.stdout,
                )
                winners = played.game.scoreboard.winners
                print(f"== {game} over: winner {', '.join(f'seat {w}' for w in winners)}")
        except Quit as e:
            print(f"\nreferee: stopped ({e})")
            return 1 if str(e) == "input ended" else 0
        except RefereeError as e:
            print(f"referee: {args.address}: {e}", file=sys.stderr)
            return 1
        except GameError as e:
            print(f"referee: {e}", file=sys.stderr)
            return 1
    return 0


def _check_seat(seat: int, game_config: Any) -> None:
    """``--seat`` is one of the game's seats, when this build knows how many it has (the
    game's defaults as the server's: the same rules); a :class:`_UsageError` when not."""
    from referee.codec import all_codecs, newest
    from referee.games.base import InvalidInput

    game = game_config.WhichOneof("game")
    codec = newest(all_codecs()).get(game or "")
    if codec is None:
        return  # a game this build does not know: the server says
    try:
        seats = codec.seat_count_of_config(codec.decode_config(game_config, "config"))
    except (InvalidInput, ValueError):
        return  # the server says what is wrong with the options
    if seat >= seats:
        raise _UsageError(
            f"--seat {seat}: {game} has {seats} seats, 0 .. {seats - 1} (--seats sets how many)"
        )


def _bots(bot_seed: int, game: str) -> Callable[[int], Any]:
    from referee.bots import EagerBot

    return lambda seat: EagerBot(f"{bot_seed}:{game}:{seat}")


def _play(args: argparse.Namespace) -> int:
    return _play_games(args, [args.game], args.seat)


def _demo(args: argparse.Namespace) -> int:
    return _play_games(args, args.game, None)


def _sha256_hex(text: str) -> bytes:
    """A SHA-256 hash as 64 hex digits, either case (verify's --commitment, --final-hash)."""
    try:
        return _hex32(text, "a SHA-256 hash")
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _seat_entropy(text: str) -> tuple[int, bytes]:
    """verify's --seat-entropy SEAT:HEX: a seat and the entropy it sent (hex, either
    case; empty for none)."""
    from referee.seeds import MAX_ENTROPY_BYTES
    from referee.service import MAX_SEATS

    seat, sep, digits = text.strip().partition(":")
    if not sep or not seat.isascii() or not seat.isdigit() or int(seat) >= MAX_SEATS:
        raise argparse.ArgumentTypeError(
            f"{text!r}: SEAT:HEX, where SEAT is a seat number (0 to {MAX_SEATS - 1})"
        )
    if not re.fullmatch(r"(?:[0-9A-Fa-f]{2})*", digits):
        raise argparse.ArgumentTypeError(f"{text!r}: the entropy is not whole bytes of hex")
    if len(digits) > 2 * MAX_ENTROPY_BYTES:
        raise argparse.ArgumentTypeError(
            f"{text!r}: more than the {MAX_ENTROPY_BYTES} bytes a seat's entropy may hold"
        )
    return int(seat), bytes.fromhex(digits)


def _verify(args: argparse.Namespace) -> int:
    from google.protobuf import json_format

    from referee import verify

    try:
        with open(args.log, encoding="utf-8") as f:
            log = verify.load(f.read())
    except (OSError, UnicodeDecodeError, json_format.ParseError) as e:
        print(f"referee verify: {args.log}: {e}", file=sys.stderr)
        return 2
    entropy: dict[int, bytes] = {}
    for seat, given in args.seat_entropy or ():
        if seat in entropy and entropy[seat] != given:
            print(f"referee verify: --seat-entropy: seat {seat} given twice", file=sys.stderr)
            return 2
        entropy[seat] = given
    report = verify.verify(
        log,
        commitment=args.commitment,
        final_hash=args.final_hash,
        seat_entropy=entropy,
        partial=args.partial,
    )
    for line in report.lines:
        print(line)
    return 0 if report.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else list(argv)
    if words and words[0] in _CLIENT_COMMANDS:
        # gRPC's own log lines (a failed TLS handshake, at info) on a client command's
        # stderr would repeat its one-line error; GRPC_VERBOSITY set says otherwise.
        # Before the parser: it imports grpc, which reads the variable then.
        os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return _run(parser, args)
    except BrokenPipeError:
        # The reader left (``referee games | head``): stop quietly, as other tools do,
        # with stdout pointed at /dev/null so that the exit's flush does not fail too.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


def _run(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    if args.command == "serve":
        return _serve(args)
    if args.command == "games":
        return _games()
    if args.command in _CLIENT_COMMANDS:
        try:
            return _CLIENT_COMMANDS[args.command](args)
        except _UsageError as e:
            print(f"referee: {e}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:  # Ctrl-C at a prompt or while waiting for a server
            print("\nreferee: interrupted", file=sys.stderr)
            return 130
    if args.command == "verify":
        return _verify(args)
    if args.command == "seal-key":
        from referee.sealing import KeyConfigError, new_key_line

        try:
            print(new_key_line(args.id))
        except KeyConfigError as e:
            print(f"referee seal-key: {e}", file=sys.stderr)
            return 2
        return 0
    if args.command == "deal":
        return _deal(args)
    if args.command == "grpc-web":
        return _grpc_web(args)
    parser.print_help()
    return 2


# The commands that call a server (their TLS and token options: _connection).
_CLIENT_COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "health": _health,
    "scenario": _scenario,
    "play": _play,
    "demo": _demo,
}


if __name__ == "__main__":
    sys.exit(main())
