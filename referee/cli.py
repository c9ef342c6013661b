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

    serve.add_argument(
        "--seal-keys-file",
        default=_env("SEAL_KEYS_FILE", ""),
        help="file of sealing keys, one 'id:base64' per line, the first seals, all open "
        f"(env {ENV_PREFIX}SEAL_KEYS_FILE; or the keys themselves in {ENV_PREFIX}SEAL_KEYS, "
        "comma-separated). Without keys the server runs in plain mode.",
    )
    _add_setting(
        serve,
        "--require-sealed",
        "REQUIRE_SEALED",
        "false",
        _boolean,
        "refuse plain states and caller-chosen seeds (needs sealing keys): true or false",
    )

    sub.add_parser("games", help="list the games, their options and variants")

    verify = sub.add_parser(
        "verify",
        help="check a game log: re-derive every deal from the seed and replay every action",
    )
    verify.add_argument("log", help="a GameLog in JSON (Replay with include_log produces one)")

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

    deal = sub.add_parser(
        "deal",
        help="show the first deal of a configuration and seed (to write scenarios)",
    )
    deal.add_argument("config", help="GameConfig as JSON, e.g. '{\"earlOfCoventry\": {}}'")
    deal.add_argument("--seed", required=True, help="32 bytes as 64 hex digits")

    health = sub.add_parser("health", help="check a server's health (exit 0 when SERVING)")
    health.add_argument("--address", default=f"localhost:{_env('PORT', str(DEFAULT_PORT))}")
    health.add_argument("--service", default="", help="service name ('' = the whole server)")
    health.add_argument("--timeout", type=float, default=3.0, help="seconds")
    _add_play_parser(sub, f"localhost:{_env('PORT', str(DEFAULT_PORT))}")
    _add_demo_parser(sub, f"localhost:{_env('PORT', str(DEFAULT_PORT))}")
    return parser


def _seal_keys(args: argparse.Namespace) -> tuple[tuple[str, bytes], ...]:
    """The sealing keys of the settings; exits 2 with a clear message when unusable."""
    from referee.sealing import KeyConfigError, Keyring, parse_keys

    text = ""
    source = ""
    if args.seal_keys_file:
        source = f"--seal-keys-file {args.seal_keys_file}"
        try:
            with open(args.seal_keys_file, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            _die(f"{source}: {e.strerror}")
    elif os.environ.get(ENV_PREFIX + "SEAL_KEYS"):
        source = f"environment {ENV_PREFIX}SEAL_KEYS"
        text = os.environ[ENV_PREFIX + "SEAL_KEYS"]
    if not source:
        if args.require_sealed:
            _die("--require-sealed needs sealing keys (--seal-keys-file or REFEREE_SEAL_KEYS)")
        return ()
    try:
        keys = parse_keys(text)
        Keyring(keys)
    except KeyConfigError as e:
        _die(f"{source}: {e}")
    return tuple(keys)


def _die(message: str) -> None:
    print(f"referee serve: error: {message}", file=sys.stderr)
    sys.exit(2)


def _serve(args: argparse.Namespace) -> int:
    from referee import logs
    from referee.server import ServerSettings, serve

    seal_keys = _seal_keys(args)
    logs.configure(args.log_level, args.log_format)
    settings = ServerSettings(
        host=args.host,
        port=args.port,
        max_message_bytes=args.max_message_bytes,
        grace_seconds=args.grace_seconds,
        max_replay_actions=args.max_replay_actions,
        seal_keys=seal_keys,
        require_sealed=args.require_sealed,
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


def _scenario(args: argparse.Namespace) -> int:
    from pathlib import Path

    from referee import scenarios

    backend: scenarios.Backend | None = None
    channel = None
    if args.address:
        import grpc

        from referee.v1 import referee_pb2_grpc

        channel = grpc.insecure_channel(args.address)
        backend = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]
    failed = 0
    try:
        for result in scenarios.run_files([Path(f) for f in args.files], backend):
            if result.ok:
                print(f"ok    {result.path}  ({result.steps} steps)")
            else:
                failed += 1
                print(f"FAIL  {result.path}")
                for failure in result.failures:
                    print(f"      {failure}")
    finally:
        if channel is not None:
            channel.close()
    return 1 if failed else 0


def _deal(args: argparse.Namespace) -> int:
    import json

    from google.protobuf import json_format

    from referee import scenarios
    from referee.errors import RequestError
    from referee.v1 import common_pb2, referee_pb2

    try:
        config = json_format.ParseDict(json.loads(args.config), referee_pb2.GameConfig())
        seed = bytes.fromhex(args.seed)
    except (ValueError, json_format.ParseError) as e:
        print(f"referee deal: {e}", file=sys.stderr)
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


def _game_config(game: str, args: argparse.Namespace) -> Any:
    import json

    from referee.client import config

    options = json.loads(args.config)
    if not isinstance(options, dict):
        raise ValueError("--config must be a JSON object")
    if args.seats is not None:
        options["seats"] = args.seats
    return config(game, options)


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
        seed = bytes.fromhex(args.seed) if args.seed else b""
    except ValueError as e:
        print(f"referee: --seed: {e}", file=sys.stderr)
        return 2
    with Client(args.address) as client:
        try:
            ids = list(games) if games else [g.id for g in client.list_games()]
            for game in ids:
                try:
                    game_config = _game_config(game, args)
                except (ValueError, json_format.ParseError) as e:
                    print(f"referee: {game}: {e}", file=sys.stderr)
                    return 2
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


def _bots(bot_seed: int, game: str) -> Callable[[int], Any]:
    from referee.bots import EagerBot

    return lambda seat: EagerBot(f"{bot_seed}:{game}:{seat}")


def _play(args: argparse.Namespace) -> int:
    return _play_games(args, [args.game], args.seat)


def _demo(args: argparse.Namespace) -> int:
    return _play_games(args, args.game, None)


def _verify(args: argparse.Namespace) -> int:
    from google.protobuf import json_format

    from referee import verify

    try:
        with open(args.log, encoding="utf-8") as f:
            log = verify.load(f.read())
    except (OSError, json_format.ParseError) as e:
        print(f"referee verify: {args.log}: {e}", file=sys.stderr)
        return 2
    report = verify.verify(log)
    for line in report.lines:
        print(line)
    return 0 if report.ok else 1


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if args.command == "serve":
        return _serve(args)
    if args.command == "games":
        return _games()
    if args.command == "health":
        return _health(args)
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
    if args.command == "scenario":
        return _scenario(args)
    if args.command == "deal":
        return _deal(args)
    if args.command == "play":
        return _play(args)
    if args.command == "demo":
        return _demo(args)
    parser.print_help()
    return 2


if __name__ == "__main__":
    sys.exit(main())
