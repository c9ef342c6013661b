"""A small typed client for the Referee service.

::

    from referee.client import Client, config, seat

    with Client("localhost:50051") as referee:
        game = referee.new_game(config("earl_of_coventry", seats=3)).game
        while not game.finished:
            action = referee.legal_actions(game)[0]
            game = referee.apply(game, action).game

What it adds to the generated stubs (``referee.v1``):

- a default deadline on every call (``timeout``), and retries of calls that
  fail with ``UNAVAILABLE`` only (a gRPC retry policy in the channel's service
  config: every RPC is safe to retry, the referee keeps no state);
- :class:`GameHandle`, which holds the state the server returned, plain or
  sealed, and sends it back the same way, so callers never deal with
  ``state`` versus ``sealed_state``; with a sealing server it also holds the
  seat and table credentials ``NewGame`` returned and puts the right one on
  every actor and seat viewer that has none (docs/trust.md);
- :class:`RefereeError` for gRPC errors, with the ``google.rpc.BadRequest``
  field violations and the ``google.rpc.ErrorInfo`` reason already decoded.

Illegal actions are not errors: :meth:`Client.apply` returns the verdict.

:class:`AsyncClient` is the same client for asyncio programs (grpc.aio): the same
methods, each a coroutine::

    async with AsyncClient("localhost:50051") as referee:
        game = (await referee.new_game(config("ecarte"))).game
        while not game.finished:
            action = (await referee.legal_actions(game))[0]
            game = (await referee.apply(game, action)).game
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import grpc
from google.protobuf import json_format

from referee.v1 import common_pb2, referee_pb2, referee_pb2_grpc

__all__ = [
    "DEFAULT_TIMEOUT",
    "PUBLIC",
    "TABLE",
    "Applied",
    "AsyncClient",
    "Client",
    "Credentials",
    "GameHandle",
    "RefereeError",
    "Started",
    "config",
    "seat",
    "seat_actor",
]

SERVICE = "referee.v1.RefereeService"
#: Seconds every call may take unless the call says otherwise.
DEFAULT_TIMEOUT = 10.0
#: Attempts of a call that fails with UNAVAILABLE (the first one included).
DEFAULT_ATTEMPTS = 5
#: The most attempts gRPC core's retry policy makes: it clamps a larger maxAttempts to
#: 5 (logging "clamped retryPolicy.maxAttempts at 5"), and no channel argument raises it.
MAX_ATTEMPTS = 5
#: The largest response the client accepts: the largest ``--max-message-bytes`` a
#: server may be given (256 MiB). gRPC's own default, 4 MiB, is below the server's
#: default limit (16 MiB), and a ``Replay`` answer in between would be refused here.
MAX_RECEIVE_BYTES = 256 * 1024 * 1024

# The reason of a LegalActions call without an actor on a server that requires one
# (--require-sealed): then the client asks per actor, with the handle's credentials.
_NEEDS_AN_ACTOR = "ACTOR_REQUIRED"

PUBLIC = common_pb2.Viewer(public=common_pb2.PublicViewer())
TABLE = common_pb2.Actor(table=common_pb2.TableActor())


def seat(n: int) -> common_pb2.Viewer:
    """The viewer of seat ``n``."""
    return common_pb2.Viewer(seat=n)


def seat_actor(n: int) -> common_pb2.Actor:
    """The actor of seat ``n``."""
    return common_pb2.Actor(seat=n)


def config(game: str, options: dict[str, Any] | None = None, **more: Any) -> referee_pb2.GameConfig:
    """A ``GameConfig`` for a game id (``earl_of_coventry``, ``ecarte``) and its options.

    Options use the configuration message's field names (or their JSON names),
    values as in the protobuf JSON mapping (enum values by name or number).
    """
    fields = referee_pb2.GameConfig.DESCRIPTOR.oneofs_by_name["game"].fields
    if game not in {f.name for f in fields}:
        known = ", ".join(sorted(f.name for f in fields))
        raise ValueError(f"unknown game {game!r} (this client knows {known})")
    settings = {**(options or {}), **more}
    return json_format.ParseDict({game: settings}, referee_pb2.GameConfig())


class RefereeError(Exception):
    """A gRPC error from the referee: a broken request, not an illegal action."""

    def __init__(
        self,
        code: grpc.StatusCode,
        details: str,
        field_violations: Sequence[tuple[str, str]] = (),
        reason: str = "",
    ) -> None:
        self.code = code
        self.details = details
        #: ``(field, description)`` pairs of a ``google.rpc.BadRequest``.
        self.field_violations = list(field_violations)
        #: The ``google.rpc.ErrorInfo`` reason, e.g. ``RULES_VERSION_UNSUPPORTED``.
        self.reason = reason
        text = f"{code.name}: {details}"
        # The message names the first violation itself ("invalid FIELD: DESCRIPTION"):
        # only the violations it does not name are added.
        more = [f"{f}: {d}" for f, d in self.field_violations if f"{f}: {d}" not in details]
        if more:
            text += " (" + "; ".join(more) + ")"
        super().__init__(text)

    @classmethod
    def from_rpc_error(cls, err: grpc.RpcError) -> RefereeError:
        call: Any = err
        code = call.code() if hasattr(call, "code") else grpc.StatusCode.UNKNOWN
        details = (call.details() if hasattr(call, "details") else "") or ""
        violations: list[tuple[str, str]] = []
        reason = ""
        try:
            from google.rpc import error_details_pb2
            from grpc_status import rpc_status

            status = rpc_status.from_call(call)
        except (ImportError, ValueError, AttributeError):
            status = None
        if status is not None:
            for detail in status.details:
                if detail.Is(error_details_pb2.BadRequest.DESCRIPTOR):
                    bad = error_details_pb2.BadRequest()
                    detail.Unpack(bad)
                    violations.extend((v.field, v.description) for v in bad.field_violations)
                elif detail.Is(error_details_pb2.ErrorInfo.DESCRIPTOR):
                    info = error_details_pb2.ErrorInfo()
                    detail.Unpack(info)
                    reason = info.reason
        return cls(code, details, violations, reason)


@dataclass(frozen=True)
class Credentials:
    """The credentials a sealing server returned with ``NewGame`` (docs/trust.md).

    A platform that runs the game holds them all; hand each player only its
    own (:meth:`only_seat`). Empty with a server that does not seal.
    """

    #: One per seat, index = seat.
    seats: tuple[bytes, ...] = ()
    table: bytes = b""

    def __bool__(self) -> bool:
        return bool(self.seats or self.table)

    def only_seat(self, n: int) -> Credentials:
        """What the player of seat ``n`` should hold: its own credential and nothing else."""
        return Credentials(tuple(c if i == n else b"" for i, c in enumerate(self.seats)))

    def _seat(self, n: int) -> bytes:
        return self.seats[n] if 0 <= n < len(self.seats) else b""

    def actor(self, actor: common_pb2.Actor) -> common_pb2.Actor:
        """``actor`` with its credential, when it has none and one is held."""
        if actor.credential:
            return actor
        kind = actor.WhichOneof("kind")
        credential = (
            self._seat(actor.seat) if kind == "seat" else self.table if kind == "table" else b""
        )
        if not credential:
            return actor
        out = common_pb2.Actor()
        out.CopyFrom(actor)
        out.credential = credential
        return out

    def viewer(self, viewer: common_pb2.Viewer) -> common_pb2.Viewer:
        """``viewer`` with its credential, when it is a seat without one and one is held."""
        if viewer.credential or viewer.WhichOneof("kind") != "seat":
            return viewer
        credential = self._seat(viewer.seat)
        if not credential:
            return viewer
        out = common_pb2.Viewer()
        out.CopyFrom(viewer)
        out.credential = credential
        return out


class _CarriesState(Protocol):
    """A request that takes the state plain or sealed."""

    state: referee_pb2.GameState
    sealed_state: bytes


@dataclass(frozen=True)
class GameHandle:
    """The state of one game as the server last returned it, plain or sealed.

    Treat it as opaque: pass it back to the :class:`Client`. A server that
    seals states returns tokens, and the handle sends the token back; a server
    in plain mode returns states, and the handle sends the state back.
    """

    #: The plain state, when the server returned one (it holds hidden
    #: information: show players views, never this).
    state: referee_pb2.GameState | None
    #: The sealed token, when the server seals states.
    sealed_state: bytes
    #: SHA-256 of the state's canonical serialization.
    state_hash: bytes
    #: The standings after this state.
    scoreboard: common_pb2.Scoreboard = field(default_factory=common_pb2.Scoreboard)
    #: The seat and table credentials of a sealing server (empty otherwise).
    credentials: Credentials = field(default_factory=Credentials)

    def __post_init__(self) -> None:
        if self.state is None and not self.sealed_state:
            raise ValueError("the server returned neither a state nor a sealed state")

    @property
    def sealed(self) -> bool:
        return bool(self.sealed_state)

    @property
    def finished(self) -> bool:
        """The match or session is over."""
        return self.scoreboard.finished

    def fill(self, request: _CarriesState) -> None:
        """Put this state into a request: the sealed token if there is one, else the state."""
        if self.sealed_state:
            request.sealed_state = self.sealed_state
        else:
            assert self.state is not None
            request.state.CopyFrom(self.state)

    @classmethod
    def from_state(
        cls,
        state: referee_pb2.GameState,
        sealed_state: bytes,
        state_hash: bytes,
        scoreboard: common_pb2.Scoreboard,
        credentials: Credentials | None = None,
    ) -> GameHandle:
        plain = state if state.ByteSize() or not sealed_state else None
        return cls(plain, sealed_state, state_hash, scoreboard, credentials or Credentials())

    def with_credentials(self, credentials: Credentials) -> GameHandle:
        """The same state holding other credentials (e.g. one player's own only)."""
        return GameHandle(
            self.state, self.sealed_state, self.state_hash, self.scoreboard, credentials
        )


@dataclass(frozen=True)
class Started:
    """The answer to :meth:`Client.new_game`."""

    response: referee_pb2.NewGameResponse
    game: GameHandle

    @property
    def views(self) -> Sequence[referee_pb2.GameView]:
        return self.response.views

    @property
    def events(self) -> Sequence[referee_pb2.Event]:
        return self.response.events


@dataclass(frozen=True)
class Applied:
    """The answer to :meth:`Client.apply`: the verdict and the game after it."""

    response: referee_pb2.ApplyActionResponse
    #: The next state (the same state when the verdict is rejected).
    game: GameHandle

    @property
    def verdict(self) -> common_pb2.Verdict:
        return self.response.verdict

    @property
    def accepted(self) -> bool:
        return self.response.verdict == common_pb2.VERDICT_ACCEPTED

    @property
    def violations(self) -> Sequence[common_pb2.Violation]:
        return self.response.violations

    @property
    def events(self) -> Sequence[referee_pb2.Event]:
        return self.response.events

    @property
    def views(self) -> Sequence[referee_pb2.GameView]:
        return self.response.views


def service_config(max_attempts: int = DEFAULT_ATTEMPTS) -> str:
    """The channel's service config: retry every Referee RPC on UNAVAILABLE only."""
    if max_attempts < 2:
        return json.dumps({"methodConfig": [{"name": [{"service": SERVICE}]}]})
    policy = {
        "maxAttempts": max_attempts,
        "initialBackoff": "0.1s",
        "maxBackoff": "2s",
        "backoffMultiplier": 2,
        "retryableStatusCodes": ["UNAVAILABLE"],
    }
    return json.dumps({"methodConfig": [{"name": [{"service": SERVICE}], "retryPolicy": policy}]})


def _channel_options(
    options: Sequence[tuple[str, Any]], max_attempts: int
) -> list[tuple[str, Any]]:
    """The caller's channel options, then the client's own for the keys not given."""
    if max_attempts < 1:
        raise ValueError("max_attempts must be at least 1")
    given = {key for key, _ in options}
    if max_attempts > MAX_ATTEMPTS and "grpc.service_config" not in given:
        raise ValueError(
            f"max_attempts is at most {MAX_ATTEMPTS}, not {max_attempts}: gRPC's retry "
            f"policy makes at most {MAX_ATTEMPTS} attempts (it would cut {max_attempts} to "
            f"{MAX_ATTEMPTS} without a word)"
        )
    defaults: list[tuple[str, Any]] = [
        ("grpc.enable_retries", 1),
        ("grpc.service_config", service_config(max_attempts)),
        ("grpc.max_receive_message_length", MAX_RECEIVE_BYTES),
    ]
    return [*options, *(kv for kv in defaults if kv[0] not in given)]


# What both clients send and make of the answers: the requests built from a handle
# (its state or token, its credentials on actors and seat viewers), the answers read
# into handles. Only the calls differ (blocking, or coroutines).


def _new_game_request(
    game_config: referee_pb2.GameConfig,
    seed: bytes,
    seat_entropy: Iterable[bytes],
    views: Iterable[common_pb2.Viewer],
) -> referee_pb2.NewGameRequest:
    return referee_pb2.NewGameRequest(
        config=game_config, seed=seed, seat_entropy=list(seat_entropy), views=list(views)
    )


def _started(reply: referee_pb2.NewGameResponse) -> Started:
    credentials = Credentials(tuple(reply.seat_credentials), reply.table_credential)
    game = GameHandle.from_state(
        reply.state, reply.sealed_state, reply.state_hash, reply.scoreboard, credentials
    )
    return Started(reply, game)


def _apply_request(
    game: GameHandle, action: referee_pb2.Action, views: Iterable[common_pb2.Viewer]
) -> referee_pb2.ApplyActionRequest:
    creds = game.credentials
    request = referee_pb2.ApplyActionRequest(action=action, views=[creds.viewer(v) for v in views])
    if creds and action.HasField("actor"):
        request.action.actor.CopyFrom(creds.actor(action.actor))
    game.fill(request)
    return request


def _applied(reply: referee_pb2.ApplyActionResponse, game: GameHandle) -> Applied:
    return Applied(
        reply,
        GameHandle.from_state(
            reply.state, reply.sealed_state, reply.state_hash, reply.scoreboard, game.credentials
        ),
    )


def _legal_actions_request(
    game: GameHandle, actor: common_pb2.Actor | None
) -> referee_pb2.LegalActionsRequest:
    request = referee_pb2.LegalActionsRequest(
        actor=game.credentials.actor(actor) if actor is not None else None
    )
    game.fill(request)
    return request


def _needs_an_actor(game: GameHandle, actor: common_pb2.Actor | None, e: RefereeError) -> bool:
    """A server that requires sealed states answers only for one actor with its
    credential: then, with no actor, the handle's credentials are used to ask for the
    table and for every seat (:func:`_every_actor`), and the answers are joined."""
    return actor is None and bool(game.credentials) and e.reason == _NEEDS_AN_ACTOR


def _every_actor(game: GameHandle) -> list[common_pb2.Actor]:
    """The table and every seat the handle holds a credential for (a player's handle
    holds its own seat's only: the others would be refused)."""
    creds = game.credentials
    return ([TABLE] if creds.table else []) + [
        seat_actor(n) for n, credential in enumerate(creds.seats) if credential
    ]


def _view_request(game: GameHandle, viewer: common_pb2.Viewer) -> referee_pb2.ViewStateRequest:
    request = referee_pb2.ViewStateRequest(viewer=game.credentials.viewer(viewer))
    game.fill(request)
    return request


def _replay_request(
    game_config: referee_pb2.GameConfig,
    seed: bytes,
    actions: Iterable[referee_pb2.Action],
    seat_entropy: Iterable[bytes],
    include_events: bool,
    include_log: bool,
    rules_version: str,
) -> referee_pb2.ReplayRequest:
    return referee_pb2.ReplayRequest(
        config=game_config,
        seed=seed,
        seat_entropy=list(seat_entropy),
        actions=list(actions),
        include_events=include_events,
        include_log=include_log,
        rules_version=rules_version,
    )


class Client:
    """A Referee client over one gRPC channel (thread-safe, like the channel)."""

    def __init__(
        self,
        address: str = "localhost:50051",
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int = DEFAULT_ATTEMPTS,
        credentials: grpc.ChannelCredentials | None = None,
        metadata: Sequence[tuple[str, str]] = (),
        options: Sequence[tuple[str, Any]] = (),
        channel: grpc.Channel | None = None,
    ) -> None:
        """Connect to ``address`` (``host:port``).

        ``timeout`` is every call's deadline in seconds unless a call gives its
        own; ``max_attempts`` bounds the attempts of a call failing with
        ``UNAVAILABLE`` (5 by default and at most, gRPC's limit; 1 for none).
        ``options`` are gRPC channel arguments; each replaces the client's own of the same key: a
        ``grpc.service_config`` given there (round_robin and health checking,
        docs/deploy.md) replaces the client's, so give it its own ``retryPolicy``.
        ``channel`` uses an existing channel instead (the caller configures and
        closes it).
        """
        opts = _channel_options(options, max_attempts)
        self.timeout = timeout
        self.metadata = tuple(metadata)
        self._own_channel = channel is None
        if channel is None:
            if credentials is None:
                channel = grpc.insecure_channel(address, options=opts)
            else:
                channel = grpc.secure_channel(address, credentials, options=opts)
        self.channel = channel
        self._per_actor = False
        self.stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]

    def close(self) -> None:
        if self._own_channel:
            self.channel.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return method(
                request,
                timeout=self.timeout if timeout is None else timeout,
                metadata=self.metadata or None,
            )
        except grpc.RpcError as err:
            raise RefereeError.from_rpc_error(err) from err

    # ------------------------------------------------------------------ RPCs

    def list_games(self, *, timeout: float | None = None) -> list[referee_pb2.GameInfo]:
        """Every game the server referees, with its options and variants."""
        reply = self._call(self.stub.ListGames, referee_pb2.ListGamesRequest(), timeout)
        return list(reply.games)

    def new_game(
        self,
        game_config: referee_pb2.GameConfig,
        seed: bytes = b"",
        *,
        seat_entropy: Iterable[bytes] = (),
        views: Iterable[common_pb2.Viewer] = (),
        timeout: float | None = None,
    ) -> Started:
        """Start a match or session (the first deal is done). No seed: the server draws one."""
        request = _new_game_request(game_config, seed, seat_entropy, views)
        return _started(self._call(self.stub.NewGame, request, timeout))

    def apply(
        self,
        game: GameHandle,
        action: referee_pb2.Action,
        *,
        views: Iterable[common_pb2.Viewer] = (),
        timeout: float | None = None,
    ) -> Applied:
        """Referee one action: the verdict, and the game after it."""
        request = _apply_request(game, action, views)
        return _applied(self._call(self.stub.ApplyAction, request, timeout), game)

    def legal_actions(
        self,
        game: GameHandle,
        actor: common_pb2.Actor | None = None,
        *,
        timeout: float | None = None,
    ) -> list[referee_pb2.Action]:
        """Every action ``actor`` may take now (no actor: whoever may act).

        A server that requires sealed states answers only for one actor with
        its credential: then, with no actor, the handle's credentials are used
        to ask for the table and for every seat, and the answers are joined.
        """
        if actor is None and game.credentials and self._per_actor:
            return self._legal_actions_per_actor(game, timeout)
        try:
            reply = self._call(self.stub.LegalActions, _legal_actions_request(game, actor), timeout)
        except RefereeError as e:
            if _needs_an_actor(game, actor, e):
                self._per_actor = True
                return self._legal_actions_per_actor(game, timeout)
            raise
        return list(reply.actions)

    def _legal_actions_per_actor(
        self, game: GameHandle, timeout: float | None
    ) -> list[referee_pb2.Action]:
        found: list[referee_pb2.Action] = []
        for actor in _every_actor(game):
            found.extend(self.legal_actions(game, actor, timeout=timeout))
        return found

    def view(
        self,
        game: GameHandle,
        viewer: common_pb2.Viewer,
        *,
        timeout: float | None = None,
    ) -> referee_pb2.ViewStateResponse:
        """What ``viewer`` may see of the game (its view, the scoreboard, the state hash)."""
        reply: referee_pb2.ViewStateResponse = self._call(
            self.stub.ViewState, _view_request(game, viewer), timeout
        )
        return reply

    def replay(
        self,
        game_config: referee_pb2.GameConfig,
        seed: bytes,
        actions: Iterable[referee_pb2.Action],
        *,
        seat_entropy: Iterable[bytes] = (),
        include_events: bool = False,
        include_log: bool = False,
        rules_version: str = "",
        timeout: float | None = None,
    ) -> referee_pb2.ReplayResponse:
        """Referee a whole list of actions from the start: each verdict and the hash chain.

        ``include_log`` also returns the game as a ``GameLog`` (``log``), the record
        ``referee verify`` checks (docs/trust.md). ``rules_version`` (a stored log's)
        replays under that version or fails (``RULES_VERSION_UNSUPPORTED``); by
        default, under the version a new game of ``game_config`` starts under.
        """
        request = _replay_request(
            game_config, seed, actions, seat_entropy, include_events, include_log, rules_version
        )
        reply: referee_pb2.ReplayResponse = self._call(self.stub.Replay, request, timeout)
        return reply


class AsyncClient:
    """:class:`Client` for asyncio programs, over a grpc.aio channel: the same
    methods, each a coroutine; the same deadlines, retries (``UNAVAILABLE`` only),
    game handles, credentials and errors. Make it, use it and close it in one event
    loop (``async with``); calls from many tasks share its channel."""

    def __init__(
        self,
        address: str = "localhost:50051",
        *,
        timeout: float = DEFAULT_TIMEOUT,
        max_attempts: int = DEFAULT_ATTEMPTS,
        credentials: grpc.ChannelCredentials | None = None,
        metadata: Sequence[tuple[str, str]] = (),
        options: Sequence[tuple[str, Any]] = (),
        channel: grpc.aio.Channel | None = None,
    ) -> None:
        """As :class:`Client`; ``channel`` is a ``grpc.aio`` channel. Made in a coroutine
        of the event loop that uses it (a grpc.aio channel belongs to one loop)."""
        if channel is None:
            try:
                asyncio.get_running_loop()
            except RuntimeError:
                raise RuntimeError(
                    "make AsyncClient inside the event loop that uses it, in a coroutine "
                    "(async with AsyncClient(...) as referee: ...): a grpc.aio channel "
                    "made outside it fails later with 'attached to a different loop'"
                ) from None
        opts = _channel_options(options, max_attempts)
        self.timeout = timeout
        self.metadata = tuple(metadata)
        self._own_channel = channel is None
        if channel is None:
            if credentials is None:
                channel = grpc.aio.insecure_channel(address, options=opts)
            else:
                channel = grpc.aio.secure_channel(address, credentials, options=opts)
        self.channel = channel
        self._per_actor = False
        self.stub = referee_pb2_grpc.RefereeServiceStub(channel)  # type: ignore[no-untyped-call]

    async def close(self) -> None:
        if self._own_channel:
            await self.channel.close(None)

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, method: Any, request: Any, timeout: float | None) -> Any:
        try:
            return await method(
                request,
                timeout=self.timeout if timeout is None else timeout,
                metadata=self.metadata or None,
            )
        except grpc.RpcError as err:
            raise RefereeError.from_rpc_error(err) from err

    # ------------------------------------------------------------------ RPCs

    async def list_games(self, *, timeout: float | None = None) -> list[referee_pb2.GameInfo]:
        """Every game the server referees, with its options and variants."""
        reply = await self._call(self.stub.ListGames, referee_pb2.ListGamesRequest(), timeout)
        return list(reply.games)

    async def new_game(
        self,
        game_config: referee_pb2.GameConfig,
        seed: bytes = b"",
        *,
        seat_entropy: Iterable[bytes] = (),
        views: Iterable[common_pb2.Viewer] = (),
        timeout: float | None = None,
    ) -> Started:
        """Start a match or session (the first deal is done). No seed: the server draws one."""
        request = _new_game_request(game_config, seed, seat_entropy, views)
        return _started(await self._call(self.stub.NewGame, request, timeout))

    async def apply(
        self,
        game: GameHandle,
        action: referee_pb2.Action,
        *,
        views: Iterable[common_pb2.Viewer] = (),
        timeout: float | None = None,
    ) -> Applied:
        """Referee one action: the verdict, and the game after it."""
        request = _apply_request(game, action, views)
        return _applied(await self._call(self.stub.ApplyAction, request, timeout), game)

    async def legal_actions(
        self,
        game: GameHandle,
        actor: common_pb2.Actor | None = None,
        *,
        timeout: float | None = None,
    ) -> list[referee_pb2.Action]:
        """Every action ``actor`` may take now (no actor: whoever may act; per actor
        on a server that requires sealed states, as :meth:`Client.legal_actions`)."""
        if actor is None and game.credentials and self._per_actor:
            return await self._legal_actions_per_actor(game, timeout)
        try:
            reply = await self._call(
                self.stub.LegalActions, _legal_actions_request(game, actor), timeout
            )
        except RefereeError as e:
            if _needs_an_actor(game, actor, e):
                self._per_actor = True
                return await self._legal_actions_per_actor(game, timeout)
            raise
        return list(reply.actions)

    async def _legal_actions_per_actor(
        self, game: GameHandle, timeout: float | None
    ) -> list[referee_pb2.Action]:
        found: list[referee_pb2.Action] = []
        for actor in _every_actor(game):
            found.extend(await self.legal_actions(game, actor, timeout=timeout))
        return found

    async def view(
        self,
        game: GameHandle,
        viewer: common_pb2.Viewer,
        *,
        timeout: float | None = None,
    ) -> referee_pb2.ViewStateResponse:
        """What ``viewer`` may see of the game (its view, the scoreboard, the state hash)."""
        reply: referee_pb2.ViewStateResponse = await self._call(
            self.stub.ViewState, _view_request(game, viewer), timeout
        )
        return reply

    async def replay(
        self,
        game_config: referee_pb2.GameConfig,
        seed: bytes,
        actions: Iterable[referee_pb2.Action],
        *,
        seat_entropy: Iterable[bytes] = (),
        include_events: bool = False,
        include_log: bool = False,
        rules_version: str = "",
        timeout: float | None = None,
    ) -> referee_pb2.ReplayResponse:
        """Referee a whole list of actions from the start (as :meth:`Client.replay`)."""
        request = _replay_request(
            game_config, seed, actions, seat_entropy, include_events, include_log, rules_version
        )
        reply: referee_pb2.ReplayResponse = await self._call(self.stub.Replay, request, timeout)
        return reply
