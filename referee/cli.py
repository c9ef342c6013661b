"""The ``referee`` command line."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from referee import __version__

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


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} must be at least 0")
    return value


def _choice(choices: Sequence[str]) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text.lower() not in choices:
            raise argparse.ArgumentTypeError(f"{text!r} is not one of {', '.join(choices)}")
        return text.lower()

    return parse


def _add_setting(
    parser: argparse.ArgumentParser,
    flag: str,
    env: str,
    default: str,
    parse: Callable[[str], Any],
    help_text: str,
) -> None:
    """A flag whose default comes from ``REFEREE_<env>`` (checked like the flag itself)."""
    raw = _env(env, default)
    try:
        value = parse(raw)
    except argparse.ArgumentTypeError as e:
        parser.exit(2, f"{parser.prog}: error: environment {ENV_PREFIX}{env}: {e}\n")
    parser.add_argument(
        flag,
        type=parse,
        default=value,
        help=f"{help_text} (env {ENV_PREFIX}{env}; default {default or 'none'})",
    )


def _parser() -> argparse.ArgumentParser:
    from referee.logs import FORMATS, LEVELS
    from referee.server import DEFAULT_PORT

    parser = argparse.ArgumentParser(
        prog="referee",
        description="Referee: a stateless gRPC rules referee for card games.",
    )
    parser.add_argument("--version", action="version", version=f"referee {__version__}")
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
        _int_range(1024, 256 * 1024 * 1024),
        "largest request or response accepted",
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

    sub.add_parser("games", help="list the games, their options and variants")

    health = sub.add_parser("health", help="check a server's health (exit 0 when SERVING)")
    health.add_argument("--address", default=f"localhost:{_env('PORT', str(DEFAULT_PORT))}")
    health.add_argument("--service", default="", help="service name ('' = the whole server)")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds")
    return parser


def _serve(args: argparse.Namespace) -> int:
    from referee import logs
    from referee.server import ServerSettings, serve

    logs.configure(args.log_level, args.log_format)
    settings = ServerSettings(
        host=args.host,
        port=args.port,
        max_message_bytes=args.max_message_bytes,
        grace_seconds=args.grace_seconds,
        max_replay_actions=args.max_replay_actions,
    )
    try:
        asyncio.run(serve(settings))
    except OSError as e:
        print(f"referee: cannot serve: {e}", file=sys.stderr)
        return 2
    return 0


def _games() -> int:
    from referee.codec import all_codecs

    for codec in all_codecs():
        r = codec.rules
        print(f"{r.game_id}  {r.title}  rules {r.rules_version}  seats {r.min_seats}-{r.max_seats}")
        print(f"  {r.rules_document}")
        width = max(len(o.name) for o in r.options)
        for o in r.options:
            rng = f" [{o.min}..{o.max}]" if o.type == 2 else ""
            default = o.default or "(none)"
            print(f"  {o.name:<{width}}  default {default}{rng}  {o.rule_id}  {o.description}")
        print("  variants: " + ", ".join(f"{v.title} ({v.rule_id})" for v in r.variants))
        print()
    return 0


def _health(args: argparse.Namespace) -> int:
    import grpc
    from grpc_health.v1 import health_pb2, health_pb2_grpc

    with grpc.insecure_channel(args.address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        try:
            reply = stub.Check(
                health_pb2.HealthCheckRequest(service=args.service), timeout=args.timeout
            )
        except grpc.RpcError as e:
            print(f"{args.address}: {e.code().name}: {e.details()}", file=sys.stderr)
            return 1
    status = health_pb2.HealthCheckResponse.ServingStatus.Name(reply.status)
    print(f"{args.address}: {status}")
    return 0 if reply.status == health_pb2.HealthCheckResponse.SERVING else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "games":
        return _games()
    if args.command == "health":
        return _health(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
