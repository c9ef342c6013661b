"""The servicer: decode, call the rules, encode. It holds no rule.

:class:`Referee` does the work of each RPC synchronously on protobuf
messages (usable in-process, e.g. by tests and benchmarks);
:class:`RefereeServicer` exposes it over gRPC (grpc.aio) and
:class:`ThreadedRefereeServicer` over grpc's threaded server. Errors of the
request are :class:`~referee.errors.RequestError`; verdicts are data.
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol, TypeVar

import grpc
from google.protobuf.message import DecodeError
from grpc_status import rpc_status

from referee import __version__, metrics
from referee.coalesce import Coalescer
from referee.codec import others, starting
from referee.codec.base import GameCodec
from referee.codec.common import (
    decode_actor,
    decode_viewer,
    encode_penalties,
    encode_scoreboard,
    encode_viewer,
    encode_violations,
    repeated_entries,
)
from referee.errors import RequestError, invalid, oversize
from referee.games.base import PUBLIC_VIEWER, ActorKind, InvalidInput, Verdict, Viewer, ViewerKind
from referee.sealing import (
    SEAL_INVALID,
    TABLE_SEAT,
    Keyring,
    SealError,
    check_credential,
    credential,
)
from referee.seeds import MAX_ENTROPY_BYTES, SEED_BYTES, commitment, effective_seed, random_seed
from referee.v1 import referee_pb2, referee_pb2_grpc

# Final: compiled (setup.py), a constant is then a C value, not a lookup in the
# module's dictionary at each use.
MAX_SEATS: Final = 13
DEFAULT_MAX_VIEWS: Final = 32
REQUEST_ID_KEY: Final = "x-request-id"
DEFAULT_MAX_REPLAY_ACTIONS: Final = 100_000
# The CPU a server lets one Replay use (its thread's, so the same under any load). A
# Replay of the 100,000-action cap takes about 1 s on a slow machine; an Écarté gallery
# of n wagers costs n * n (each step's state, with every open wager, is serialized and
# hashed: 100,000 wagers, 1.3 MB or 2.6 KB gzip'd, would take minutes).
DEFAULT_MAX_REPLAY_CPU_SECONDS: Final = 10.0
# A state whose canonical bytes are over this is a large one: only an Écarté gallery of
# hundreds of wagers or spectators makes one (every other state of either game is under
# 2 KB). An answer carrying a large state is sized as it is built, so that one over the
# answer limit is refused before the views that would not fit are made (each view holds
# the wagers again: 32 views of a 3 MB state would be 117 MB and a gigabyte of memory).
# Under it, an answer with the most views is under 1 MiB, the least limit there is
# (tests/ops/test_limits.py).
LARGE_STATE_BYTES: Final = 16 * 1024
VIEWS_ADVICE: Final = "ask for fewer views of this state"
STATE_ADVICE: Final = "the state alone is too large for an answer"
MAX_VERSION: Final = 2**64 - 1  # GameState.version is a uint64: no state has this version
LAST_VERSION: Final = MAX_VERSION - 1  # the last a state may have: nothing may follow it

_VERDICT_NAMES: Final = {1: "accepted", 2: "rejected", 3: "penalized"}
_ACTIONS_FIELD: Final[int] = referee_pb2.LegalActionsResponse.DESCRIPTOR.fields_by_name[
    "actions"
].number


class CallInfo:
    """What one RPC did, for its log line and metrics (filled by the Referee). One per
    call: a plain class (no dictionary made for ``extra`` until a field is noted)."""

    __slots__ = (
        "extra",
        "game",
        "method",
        "request_id",
        "rules_version",
        "trace",
        "verdict",
        "violations",
    )

    def __init__(self, method: str, request_id: str = "") -> None:
        self.method = method
        # The call's ``traceparent`` and ``tracestate`` as sent, kept for its span when
        # tracing is on (referee.tracing); None else.
        self.trace: tuple[str, str] | None = None
        self.game = ""
        self.rules_version = ""  # the version that judged the call (metrics only)
        self.verdict = ""
        self.violations: tuple[str, ...] = ()
        self.request_id = request_id
        self.extra: dict[str, Any] | None = None  # more fields for the log line

    def note(self, key: str, value: Any) -> None:
        """A field for the call's log line (e.g. ``seal_refusal``)."""
        if self.extra is None:
            self.extra = {}
        self.extra[key] = value


CURRENT_CALL: Final[ContextVar[CallInfo | None]] = ContextVar("referee_call", default=None)


@dataclass(slots=True, init=False)  # built on every request: __init__ written out
class Opened:
    """A state received in a request, decoded and checked; ``data`` is its canonical
    serialization."""

    codec: GameCodec
    state: Any
    msg: referee_pb2.GameState
    data: bytes
    sealed: bytes
    ring: Keyring | None

    def __init__(
        self,
        codec: GameCodec,
        state: Any,
        msg: referee_pb2.GameState,
        data: bytes,
        sealed: bytes = b"",
        ring: Keyring | None = None,
    ) -> None:
        self.codec = codec
        self.state = state
        self.msg = msg
        self.data = data
        self.sealed = sealed
        # The keys this call uses from start to end (opening, credentials, sealing): a
        # keys file reloaded meanwhile serves from the next call (referee/keyfile.py).
        self.ring = ring

    @property
    def hash(self) -> bytes:
        """The state hash (SHA-256 of ``data``): taken when asked for, since LegalActions
        never needs it (each RPC asks for it once at most)."""
        return state_hash_of(self.data)


@dataclass(frozen=True, slots=True)
class Limits:
    max_views: int = DEFAULT_MAX_VIEWS
    max_replay_actions: int = DEFAULT_MAX_REPLAY_ACTIONS
    # 0: none (in-process, e.g. `referee verify`); a server passes its own.
    max_replay_cpu_seconds: float = 0.0
    # The largest answer the server can send (--max-message-bytes); 0: none.
    max_response_bytes: int = 0


def state_hash(msg: referee_pb2.GameState) -> bytes:
    """SHA-256 of the canonical (deterministic) serialization of a state."""
    return hashlib.sha256(msg.SerializeToString(deterministic=True)).digest()


def state_hash_of(data: bytes) -> bytes:
    """SHA-256 of a state's canonical bytes."""
    return hashlib.sha256(data).digest()


def sealed_length(codec: GameCodec, state: referee_pb2.GameState) -> int:
    """The length a sealed token's state is padded to: ``state``'s serialization with its
    hidden cards at their widest (``widen_hidden``), which depends on public information
    only (docs/trust.md)."""
    shape = referee_pb2.GameState()
    shape.CopyFrom(state)
    codec.widen_hidden(shape)
    return shape.ByteSize()


def _note_seal_refusal(reason: str) -> None:
    """Count a refused token (metric referee_sealed_token_refusals_total{reason}) and note
    the reason for the call's log line. Never the token itself."""
    metrics.sealed_refusal(reason)
    info = CURRENT_CALL.get()
    if info is not None:
        info.note("seal_refusal", reason)


def _note(codec: GameCodec, verdict: int = 0, violations: Sequence[Any] = ()) -> None:
    info = CURRENT_CALL.get()
    if info is not None:
        info.game = codec.game_id
        info.rules_version = codec.rules.rules_version
        if verdict:
            info.verdict = _VERDICT_NAMES[verdict]
            info.violations = tuple(v.code for v in violations)


class Referee:
    """The RPCs as plain functions of protobuf messages."""

    def __init__(
        self,
        codecs: Sequence[GameCodec],
        limits: Limits | None = None,
        *,
        keyring: Keyring | None = None,
        require_sealed: bool = False,
        new_game_rules: Sequence[str] = (),
    ) -> None:
        if require_sealed and keyring is None:
            raise ValueError("require_sealed needs sealing keys")
        # Tokens record the policy they were made under; this server opens its own only.
        self.keyring = keyring.with_policy(require_sealed) if keyring is not None else None
        self.require_sealed = require_sealed
        # NewGame (and Replay without a rules version) starts each game under its newest
        # version, or the one ``new_game_rules`` names (held back during a rollout); a
        # state or a stored log is judged by the version it names.
        self.codecs: Mapping[str, GameCodec] = starting(codecs, new_game_rules)
        self.by_version: Mapping[str, GameCodec] = {c.rules.rules_version: c for c in codecs}
        self.limits = limits or Limits()
        # The clock of Limits.max_replay_cpu_seconds: the CPU time of the thread that
        # runs a Replay (a test may set its own).
        self.cpu_clock: Callable[[], float] = time.thread_time
        games = referee_pb2.ListGamesResponse(server_version=__version__)
        for current in self.codecs.values():
            info = games.games.add()
            current.game_info(info)
            info.other_rules_versions.extend(c.rules.rules_version for c in others(codecs, current))
        self._games = games

    # ------------------------------------------------------------ helpers

    def _unsupported(self, version: str) -> RequestError:
        return RequestError(
            grpc.StatusCode.FAILED_PRECONDITION,
            f"rules version {version[:100]!r} is not served here; this server serves "
            + ", ".join(sorted(self.by_version)),
            reason="RULES_VERSION_UNSUPPORTED",
            metadata={"rules_version": version[:100]},
        )

    def _codec_for_config(self, config: referee_pb2.GameConfig, path: str) -> GameCodec:
        game = config.WhichOneof("game")
        if game is None:
            raise invalid(path, "must name a game (" + ", ".join(self.codecs) + ")")
        return self.codecs[game]

    @staticmethod
    def _seed(seed: bytes, required: bool) -> bytes:
        if not seed:
            if required:
                raise invalid("seed", f"must be {SEED_BYTES} bytes")
            seed = random_seed()
        elif len(seed) != SEED_BYTES:
            raise invalid("seed", f"must be {SEED_BYTES} bytes, not {len(seed)}")
        return seed

    @staticmethod
    def _check_entropy(entropy: Sequence[bytes], seats: int, path: str) -> None:
        if len(entropy) > seats:
            raise invalid(path, f"at most one entry per seat ({seats})")
        for i, e in enumerate(entropy):
            if len(e) > MAX_ENTROPY_BYTES:
                raise invalid(f"{path}[{i}]", f"must be at most {MAX_ENTROPY_BYTES} bytes")
        if entropy and not entropy[-1]:
            # One list, one deal: with trailing empty entries a caller could make several
            # deals of the seats' one entropy (NewGame, Replay), and a state with one is
            # none the referee made.
            raise invalid(f"{path}[{len(entropy) - 1}]", "a trailing entry is empty: leave it out")

    def open_state(self, msg: referee_pb2.GameState, sealed: bytes, path: str = "state") -> Opened:
        """Decode and check a state from a request: plain (``msg``) or a sealed token."""
        ring = self.keyring
        if sealed:
            if msg.ByteSize():
                raise invalid(path, "send either state or sealed_state, not both")
            msg = self._unseal(sealed, ring)
            path = "sealed_state"
        elif self.require_sealed:
            raise RequestError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "this server accepts sealed states only: send the sealed_state token "
                "returned by the previous call",
                reason="STATE_SEAL_REQUIRED",
            )
        game = msg.WhichOneof("game")
        if game is None:
            raise invalid(path, "is required (the state returned by the previous call)")
        version = msg.rules_version
        codec = self.by_version.get(version)
        if codec is None:
            if not version:
                raise invalid(f"{path}.rules_version", "is required")
            raise self._unsupported(version)
        if codec.game_id != game:
            raise invalid(path, f"rules version {version!r} does not match the {game} state")
        seed = msg.seed
        if len(seed) != SEED_BYTES:
            raise invalid(f"{path}.seed", f"must be {SEED_BYTES} bytes")
        if msg.version > LAST_VERSION:
            raise invalid(f"{path}.version", f"must be at most {LAST_VERSION}")
        # A repeated field read as a list ([:]) once, here: the field has no iterator, and
        # Python iterating it by index ends on an IndexError, raised and discarded (about
        # 1,800 instructions, its message formatted) even when the field is empty.
        entropy = msg.seat_entropy[:]
        self._check_entropy(entropy, MAX_SEATS, f"{path}.seat_entropy")
        msg.DiscardUnknownFields()
        data = msg.SerializeToString(deterministic=True)  # hashed, and the codec reads it
        try:
            state = codec.decode_state(msg, effective_seed(seed, entropy), path, data)
        except InvalidInput as e:
            raise RequestError.from_invalid(e) from None
        return Opened(codec, state, msg, data, sealed, ring)

    @staticmethod
    def _unseal(token: bytes, ring: Keyring | None) -> referee_pb2.GameState:
        if ring is None:
            raise RequestError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "this server does not seal states (plain mode): send the plain state",
                reason="STATE_SEALING_DISABLED",
            )
        try:
            plaintext = ring.open(token)
            return referee_pb2.GameState.FromString(plaintext)
        except SealError as e:
            _note_seal_refusal(e.reason)
            raise RequestError(
                grpc.StatusCode.INVALID_ARGUMENT, e.message, reason=e.reason
            ) from None
        except DecodeError:
            _note_seal_refusal(SEAL_INVALID)
            raise RequestError(
                grpc.StatusCode.INVALID_ARGUMENT,
                "sealed_state does not hold a state",
                reason=SEAL_INVALID,
            ) from None

    def _encode_next(
        self,
        codec: GameCodec,
        state: Any,
        out: referee_pb2.GameState,
        *,
        seed: bytes,
        entropy: Sequence[bytes],
        version: int,
        parent: bytes,
    ) -> bytes:
        """Fill ``out`` with a state and its envelope; returns its canonical bytes."""
        out.rules_version = codec.rules.rules_version
        out.version = version
        if parent:
            out.parent_hash = parent
        out.seed = seed
        out.seat_entropy.extend(entropy)
        codec.encode_state(state, out)
        return out.SerializeToString(deterministic=True)

    def _size_limit(self, data: bytes) -> int:
        """The answer limit when an answer carrying the state ``data`` (or its successor)
        must be sized as it is built (a large state: ``LARGE_STATE_BYTES``), else 0."""
        limit = self.limits.max_response_bytes
        return limit if limit and len(data) > LARGE_STATE_BYTES else 0

    @staticmethod
    def _deliver(codec: GameCodec, data: bytes, response: Any, ring: Keyring | None) -> bytes:
        """Put a freshly encoded state (``response.state``, serialized as ``data``) in a
        NewGame/ApplyAction response: as a sealed token instead when the server seals,
        padded to a length that public information alone decides. Returns the state
        hash."""
        if ring is not None:
            response.sealed_state = ring.seal(data, sealed_length(codec, response.state))
            response.ClearField("state")
        return state_hash_of(data)

    def _viewers(
        self,
        msgs: Sequence[Any],
        seats: int,
        path: str,
        opened: Opened | None = None,
        *,
        repeated: bool = True,
    ) -> list[Viewer]:
        """Decode the viewers of a request; with ``opened``, check seat credentials."""
        if len(msgs) > self.limits.max_views:
            raise invalid(path, f"at most {self.limits.max_views} views per request")
        viewers = []
        for i, m in enumerate(msgs[:]):  # [:]: see open_state
            where = f"{path}[{i}]" if repeated else path
            try:
                v = decode_viewer(m, where)
            except InvalidInput as e:
                raise RequestError.from_invalid(e) from None
            if v.kind is ViewerKind.SEAT:
                if v.seat >= seats:
                    raise invalid(f"{where}.seat", "is not a seat of the table")
                if opened is not None:
                    self._authorize(opened, v.seat, m.credential, where)
            viewers.append(v)
        return viewers

    def _authorize(self, opened: Opened, seat: int, given: bytes, path: str) -> None:
        """With --require-sealed, a seat's hidden information and actions need its credential."""
        if not self.require_sealed or opened.ring is None:
            return
        if not check_credential(opened.ring, commitment(opened.msg.seed), seat, given):
            who = "the table" if seat == TABLE_SEAT else f"seat {seat}"
            returned = "table_credential" if seat == TABLE_SEAT else f"seat_credentials[{seat}]"
            if given:
                why = (
                    f"is not the credential of {who} in this game (one of another seat or game, "
                    "or made under a sealing key this server no longer holds)"
                )
            else:
                why = f"is missing: send the credential of {who} NewGame returned ({returned})"
            raise RequestError(
                grpc.StatusCode.PERMISSION_DENIED,
                f"{path}.credential {why}",
                reason="SEAT_CREDENTIAL_INVALID",
            )

    def _authorize_actor(self, opened: Opened, msg: Any, actor: Any, path: str) -> None:
        if actor.kind is ActorKind.SEAT:
            self._authorize(opened, actor.seat, msg.credential, path)
        elif actor.kind is ActorKind.TABLE:
            self._authorize(opened, TABLE_SEAT, msg.credential, path)

    def _view(
        self,
        codec: GameCodec,
        state: Any,
        viewer: Viewer,
        out: referee_pb2.GameView,
        *,
        seed: bytes,
        version: int,
        events: Sequence[Any] = (),
        entropy: Sequence[bytes] = (),
    ) -> None:
        rules = codec.rules
        encode_viewer(viewer, out.viewer)
        out.rules_version = rules.rules_version
        out.version = version
        out.seed_commitment = commitment(seed)
        if rules.is_over(state):
            # SHUF-5: revealed once the match or session is over, with the entropy the
            # shuffles mixed in: the view alone then re-derives every deal.
            out.seed = seed
            if entropy:
                out.seat_entropy.extend(entropy)
        if events:
            codec.encode_events(rules.redact_events(state, events, viewer), out.events)
        codec.encode_view(rules.view(state, viewer), out)

    # ------------------------------------------------------------ RPCs

    def list_games(self, request: referee_pb2.ListGamesRequest) -> referee_pb2.ListGamesResponse:
        return self._games

    def new_game(self, request: referee_pb2.NewGameRequest) -> referee_pb2.NewGameResponse:
        ring = self.keyring  # one call, one set of keys (see Opened.ring)
        codec = self._codec_for_config(request.config, "config")
        _note(codec)
        try:
            config = codec.decode_config(request.config, "config")
        except InvalidInput as e:
            raise RequestError.from_invalid(e) from None
        rules = codec.rules
        entropy = request.seat_entropy[:]  # [:]: see open_state
        seats = codec.seat_count_of_config(config)
        self._check_entropy(entropy, seats, "seat_entropy")
        if request.seed and self.require_sealed:
            raise RequestError(
                grpc.StatusCode.FAILED_PRECONDITION,
                "this server seals states and draws every seed itself: a seed chosen by "
                "the caller would let the caller know the deal (send seat_entropy instead)",
                reason="CLIENT_SEED_REFUSED",
            )
        if not request.seed and ring is not None and entropy:
            # Derived, not drawn: the same entropy gives the same deal (docs/trust.md).
            seed = ring.game_seed(entropy)
        else:
            seed = self._seed(request.seed, required=False)
        viewers = self._viewers(request.views, seats, "views")
        state, events = rules.new_game(config, effective_seed(seed, entropy))
        response = referee_pb2.NewGameResponse()
        data = self._encode_next(
            codec, state, response.state, seed=seed, entropy=entropy, version=0, parent=b""
        )
        response.state_hash = self._deliver(codec, data, response, ring)
        codec.encode_events(rules.redact_events(state, events, PUBLIC_VIEWER), response.events)
        for viewer in viewers:
            self._view(
                codec,
                state,
                viewer,
                response.views.add(),
                seed=seed,
                version=0,
                events=events,
                entropy=entropy,
            )
        encode_scoreboard(rules.scoreboard(state), response.scoreboard)
        response.seed_commitment = commitment(seed)
        if ring is not None:
            response.seat_credentials.extend(
                credential(ring, response.seed_commitment, s) for s in range(seats)
            )
            response.table_credential = credential(ring, response.seed_commitment, TABLE_SEAT)
        return response

    def apply_action(
        self, request: referee_pb2.ApplyActionRequest
    ) -> referee_pb2.ApplyActionResponse:
        opened = self.open_state(request.state, request.sealed_state)
        codec = opened.codec
        rules = codec.rules
        if opened.msg.version >= LAST_VERSION:
            where = "sealed_state" if opened.sealed else "state"
            raise invalid(f"{where}.version", f"is the last ({LAST_VERSION}): no action may follow")
        if not request.HasField("action"):
            raise invalid("action", "is required")
        game = request.action.WhichOneof("game")
        if game != codec.game_id:
            found = game if game is not None else "no game"
            raise invalid("action", f"must be an action of {codec.game_id} (found {found})")
        try:
            action = codec.decode_action(request.action, opened.state, "action")
        except InvalidInput as e:
            raise RequestError.from_invalid(e) from None
        self._authorize_actor(opened, request.action.actor, action.actor, "action.actor")
        try:
            outcome = rules.apply(opened.state, action)
        except InvalidInput as e:
            raise RequestError.from_invalid(e.prefixed("action")) from None
        _note(codec, outcome.verdict, outcome.violations)
        seats = codec.seat_count(opened.state)
        viewers = self._viewers(request.views, seats, "views", opened)
        response = referee_pb2.ApplyActionResponse(verdict=outcome.verdict)
        encode_violations(outcome.violations, response.violations)
        encode_penalties(outcome.penalties, response.penalties)
        msg = opened.msg
        if outcome.verdict is Verdict.REJECTED:
            # The state is unchanged: hand back what was sent (the same token when sealed).
            if opened.sealed:
                response.sealed_state = opened.sealed
            else:
                response.state.CopyFrom(msg)
                if opened.ring is not None:
                    # A plain state sent to a server that seals (without
                    # --require-sealed) comes back as a token, as an accepted action's
                    # next state does: a sealing server's answers carry their state
                    # sealed, whatever the verdict (docs/trust.md).
                    self._deliver(codec, opened.data, response, opened.ring)
            response.state_hash = opened.hash
            version = msg.version
        else:
            version = msg.version + 1
            out = response.state
            out.CopyFrom(msg)
            out.version = version
            out.parent_hash = opened.hash
            codec.encode_successor(opened.state, outcome.state, out)
            data = out.SerializeToString(deterministic=True)
            response.state_hash = self._deliver(codec, data, response, opened.ring)
        events = outcome.events
        if events:
            codec.encode_events(
                rules.redact_events(outcome.state, events, PUBLIC_VIEWER), response.events
            )
        # A large state's answer is sized as its views are made (each may hold the state's
        # wagers again): one over the limit is refused before the rest are made.
        limit = self._size_limit(opened.data)
        size = response.ByteSize() if limit else 0
        for viewer in viewers:
            if size > limit > 0:
                raise oversize(size, limit, VIEWS_ADVICE, partial=True)
            view = response.views.add()
            self._view(
                codec,
                outcome.state,
                viewer,
                view,
                seed=msg.seed,
                version=version,
                events=events,
                entropy=msg.seat_entropy,
            )
            if limit:
                size += view.ByteSize() + 2  # at least a tag and a length more
        encode_scoreboard(rules.scoreboard(outcome.state), response.scoreboard)
        if limit and (size := response.ByteSize()) > limit:
            raise oversize(size, limit, VIEWS_ADVICE if viewers else STATE_ADVICE)
        return response

    def legal_actions(
        self, request: referee_pb2.LegalActionsRequest
    ) -> referee_pb2.LegalActionsResponse:
        opened = self.open_state(request.state, request.sealed_state)
        codec = opened.codec
        _note(codec)
        actor = None
        if request.HasField("actor"):
            try:
                actor = decode_actor(request.actor, "actor")
            except InvalidInput as e:
                raise RequestError.from_invalid(e) from None
            if actor.kind is ActorKind.SEAT and actor.seat >= codec.seat_count(opened.state):
                raise invalid("actor.seat", "is not a seat of the table")
            self._authorize_actor(opened, request.actor, actor, "actor")
        elif self.require_sealed:
            # Without one, the seat on turn's actions (its hand) would be shown to anyone.
            error = invalid(
                "actor",
                "is required when the server requires sealed states: ask with your own seat "
                "and its credential (or the table's)",
            )
            raise RequestError(
                error.code, error.message, reason="ACTOR_REQUIRED", bad_request=error.bad_request
            )
        try:
            # The rules refuse an actor the game has no place for (Écarté's table).
            actions = codec.rules.legal_actions(opened.state, actor)
        except InvalidInput as e:
            raise RequestError.from_invalid(e) from None
        response = referee_pb2.LegalActionsResponse()
        response.MergeFromString(repeated_entries(_ACTIONS_FIELD, map(codec.action_bytes, actions)))
        return response

    def view_state(self, request: referee_pb2.ViewStateRequest) -> referee_pb2.ViewStateResponse:
        opened = self.open_state(request.state, request.sealed_state)
        codec = opened.codec
        _note(codec)
        if not request.HasField("viewer"):
            raise invalid("viewer", "is required (a seat, a spectator or the public)")
        (viewer,) = self._viewers(
            [request.viewer], codec.seat_count(opened.state), "viewer", opened, repeated=False
        )
        response = referee_pb2.ViewStateResponse(state_hash=opened.hash)
        self._view(
            codec,
            opened.state,
            viewer,
            response.view,
            seed=opened.msg.seed,
            version=opened.msg.version,
            entropy=opened.msg.seat_entropy,
        )
        encode_scoreboard(codec.rules.scoreboard(opened.state), response.scoreboard)
        limit = self._size_limit(opened.data)
        if limit and (size := response.ByteSize()) > limit:
            raise oversize(size, limit, "this view of the state is too large for an answer")
        return response

    def replay(
        self,
        request: referee_pb2.ReplayRequest,
        should_stop: Callable[[], bool] | None = None,
    ) -> referee_pb2.ReplayResponse:
        """Apply every action from the start; ``should_stop`` is polled between actions."""
        codec = self._codec_for_config(request.config, "config")
        named = request.rules_version
        if named:
            # A stored log replays under its own rules or not at all: a release that
            # serves a newer version of the game must not judge it by that one.
            chosen = self.by_version.get(named)
            if chosen is None:
                raise self._unsupported(named)
            if chosen.game_id != codec.game_id:
                raise invalid("rules_version", f"must be a version of {codec.game_id}")
            codec = chosen
        _note(codec)
        if len(request.actions) > self.limits.max_replay_actions:
            raise RequestError(
                grpc.StatusCode.INVALID_ARGUMENT,
                f"at most {self.limits.max_replay_actions} actions per Replay",
                reason="REPLAY_TOO_LONG",
            )
        try:
            config = codec.decode_config(request.config, "config")
        except InvalidInput as e:
            raise RequestError.from_invalid(e) from None
        entropy = request.seat_entropy[:]  # [:]: see open_state
        self._check_entropy(entropy, codec.seat_count_of_config(config), "seat_entropy")
        seed = self._seed(request.seed, required=True)
        rules = codec.rules
        state, _ = rules.new_game(config, effective_seed(seed, entropy))
        response = referee_pb2.ReplayResponse()
        msg = referee_pb2.GameState()
        current = state_hash_of(
            self._encode_next(codec, state, msg, seed=seed, entropy=entropy, version=0, parent=b"")
        )
        response.initial_hash = current
        log = response.log if request.include_log else None
        if log is not None:
            log.rules_version = rules.rules_version
            log.config.CopyFrom(request.config)
            log.seed = seed
            log.seat_entropy.extend(entropy)
            log.seed_commitment = commitment(seed)
            log.initial_hash = current
        version = 0
        include_events = request.include_events
        cpu_limit = self.limits.max_replay_cpu_seconds
        cpu_clock = self.cpu_clock
        cpu_start = cpu_clock() if cpu_limit else 0.0
        for i, action_msg in enumerate(request.actions):
            if i % 256 == 255:
                if should_stop is not None and should_stop():
                    raise RequestError(
                        grpc.StatusCode.DEADLINE_EXCEEDED,
                        f"the deadline passed after {i} of {len(request.actions)} actions",
                    )
                if cpu_limit and cpu_clock() - cpu_start > cpu_limit:
                    raise _replay_cpu_exceeded(cpu_limit, i, len(request.actions))
            path = f"actions[{i}]"
            if action_msg.WhichOneof("game") != codec.game_id:
                raise invalid(path, f"must be an action of {codec.game_id}")
            try:
                action = codec.decode_action(action_msg, state, path)
            except InvalidInput as e:
                raise RequestError.from_invalid(e) from None
            try:
                outcome = rules.apply(state, action)
            except InvalidInput as e:
                raise RequestError.from_invalid(e.prefixed(path)) from None
            step = response.steps.add(index=i, verdict=outcome.verdict)
            encode_violations(outcome.violations, step.violations)
            encode_penalties(outcome.penalties, step.penalties)
            if outcome.verdict is not Verdict.REJECTED:
                version += 1
                msg.version = version
                msg.parent_hash = current
                codec.encode_successor(state, outcome.state, msg)
                state = outcome.state
                current = state_hash(msg)
                if include_events:
                    codec.encode_events(
                        rules.redact_events(state, outcome.events, PUBLIC_VIEWER), step.events
                    )
            step.state_hash = current
            if log is not None:
                entry = log.entries.add(
                    action=action_msg,
                    verdict=outcome.verdict,
                    violations=[v.code for v in outcome.violations],
                    state_hash=current,
                )
                # A log is an audit file, kept and passed around: the seat credentials
                # the actions carried do not go into it (they prove nothing to
                # `referee verify`, and until the game ends they still act for a seat).
                if entry.action.actor.credential:
                    entry.action.actor.ClearField("credential")
        response.final_state.CopyFrom(msg)
        response.final_hash = current
        if log is not None:
            log.final_hash = current
        encode_scoreboard(rules.scoreboard(state), response.scoreboard)
        return response


if TYPE_CHECKING:
    Ctx = grpc.aio.ServicerContext[Any, Any]

_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")


def _status_of(
    error: RequestError, request_id: str
) -> tuple[grpc.StatusCode, str, tuple[Any, ...]]:
    """``error`` as a gRPC status: code, message and trailing metadata (the
    google.rpc.Status details, and the request id when there is one). Its reason goes
    on the call's log line too (``reason``: what the client can program against)."""
    if error.reason:
        info = CURRENT_CALL.get()
        if info is not None:
            info.note("reason", error.reason)
    status = rpc_status.to_status(error.to_status())
    metadata = tuple(status.trailing_metadata)
    if request_id:
        metadata += ((REQUEST_ID_KEY, request_id),)
    return status.code, status.details, metadata


async def abort_with(error: RequestError, context: Ctx, request_id: str = "") -> None:
    """End the call with ``error``: its code, message and details (google.rpc.Status in
    the trailers), and the request id when there is one. Raises (grpc.aio's abort)."""
    code, details, metadata = _status_of(error, request_id)
    await context.abort(code, details, metadata)


class _Status(NamedTuple):
    """A ``grpc.Status`` (the threaded server's ``abort_with_status`` takes one)."""

    code: grpc.StatusCode
    details: str
    trailing_metadata: tuple[Any, ...]


def abort_with_status(error: RequestError, context: Any, request_id: str = "") -> None:
    """:func:`abort_with` for the threaded server (``--engine threads``). Raises."""
    context.abort_with_status(_Status(*_status_of(error, request_id)))


def _request_id() -> str:
    info = CURRENT_CALL.get()
    return info.request_id if info is not None else ""


class Rpcs(Protocol):
    """What a servicer calls: the RPCs of :class:`Referee`. A servicer's ``referee`` may be
    any object that has them (compiled, a :class:`Referee`'s methods cannot be replaced:
    ``bench/service.py``'s "stack" servers put a stand-in there that answers
    ``ApplyAction`` with a prepared response)."""

    def list_games(self, request: referee_pb2.ListGamesRequest) -> referee_pb2.ListGamesResponse:
        raise NotImplementedError

    def new_game(self, request: referee_pb2.NewGameRequest) -> referee_pb2.NewGameResponse:
        raise NotImplementedError

    def apply_action(
        self, request: referee_pb2.ApplyActionRequest
    ) -> referee_pb2.ApplyActionResponse:
        raise NotImplementedError

    def legal_actions(
        self, request: referee_pb2.LegalActionsRequest
    ) -> referee_pb2.LegalActionsResponse:
        raise NotImplementedError

    def view_state(self, request: referee_pb2.ViewStateRequest) -> referee_pb2.ViewStateResponse:
        raise NotImplementedError

    def replay(
        self,
        request: referee_pb2.ReplayRequest,
        should_stop: Callable[[], bool] | None = None,
    ) -> referee_pb2.ReplayResponse:
        raise NotImplementedError


def _replay_cpu_exceeded(limit: float, done: int, actions: int) -> RequestError:
    """RESOURCE_EXHAUSTED (reason REPLAY_CPU_LIMIT): a Replay stopped at the server's
    bound on its CPU (--max-replay-cpu-seconds), after ``done`` of ``actions`` actions."""
    return RequestError(
        grpc.StatusCode.RESOURCE_EXHAUSTED,
        f"the Replay used more than {limit:g} s of this server's CPU "
        f"(--max-replay-cpu-seconds) and was stopped after {done:,} of {actions:,} actions: "
        "replay its first actions, then verify the rest step by step (ApplyAction)",
        reason="REPLAY_CPU_LIMIT",
        metadata={
            "limit_seconds": f"{limit:g}",
            "actions_done": str(done),
            "actions": str(actions),
        },
    )


def _deadline_of(context: Any) -> float | None:
    """The call's deadline on ``time.monotonic()``'s clock; None without one.

    ``context`` is Any on purpose: grpc's stubs say ``time_remaining()`` is a float,
    but it is None without a deadline, and the compiled build checks the stubs' type
    at run time."""
    remaining = context.time_remaining()
    return None if remaining is None else time.monotonic() + remaining


def _replay_within(referee: Rpcs, context: Any) -> Callable[[Any], Any]:
    """``referee.replay`` stopping at the call's deadline (checked between actions)."""
    deadline = _deadline_of(context)
    if deadline is None:
        return referee.replay

    def replay(req: referee_pb2.ReplayRequest) -> referee_pb2.ReplayResponse:
        return referee.replay(req, lambda: time.monotonic() >= deadline)

    return replay


def _replay_while_active(referee: Rpcs, context: Any) -> Callable[[Any], Any]:
    """``referee.replay`` on grpc's threaded server: stopping at the call's deadline, or
    when the call has ended otherwise (the client cancelled it or went away, the server
    stopped), checked between actions. grpc's threaded server never interrupts a
    handler, so a Replay whose client left would otherwise go on to its end for nobody."""
    deadline = _deadline_of(context)
    active = context.is_active

    def should_stop() -> bool:
        return not active() or (deadline is not None and time.monotonic() >= deadline)

    def replay(req: referee_pb2.ReplayRequest) -> referee_pb2.ReplayResponse:
        return referee.replay(req, should_stop)

    return replay


#: On grpc.aio, a ``Replay`` of more actions than this runs on a thread of its own
#: (:class:`RefereeServicer`), not in the event loop: a Replay of 100,000 actions takes
#: about a second, during which the loop would serve no other call (health checks
#: included). Shorter ones (a few ms at most) run in the loop, saving two thread hops.
REPLAY_OFF_LOOP_ACTIONS: Final = 1024
REPLAY_THREADS: Final = 2


class Serialized:
    """A response serialized already, with its message for the call's log line and
    metrics; the server's Replay serializer sends ``data`` as it is. A long Replay's
    answer (over 12 MB for 100,000 actions with the log) is so serialized once, on the
    Replay's thread, and its size for the response limit is ``len(data)``: protobuf's
    ``ByteSize`` costs as much as serializing (about 40 ms there), and both ran in the
    event loop. (Serializing holds the GIL, so the loop still waits for it; once.)"""

    __slots__ = ("data", "message")

    def __init__(self, message: Any, data: bytes) -> None:
        self.message = message
        self.data = data


class RefereeServicer(referee_pb2_grpc.RefereeServiceServicer):
    """The gRPC face of :class:`Referee` (grpc.aio: ``--engine asyncio``)."""

    def __init__(self, referee: Rpcs, coalescer: Coalescer | None = None) -> None:
        self.referee = referee
        self.coalescer = coalescer
        # Long Replays (threads made on first use). They share the GIL with the loop:
        # a Replay offers it every 256 actions, and the loop takes it back anyway after
        # the switch interval (5 ms) to serve other calls.
        self._replays = ThreadPoolExecutor(REPLAY_THREADS, thread_name_prefix="referee-replay")

    def close(self) -> None:
        """Let the Replay threads end once idle (the server has stopped)."""
        self._replays.shutdown(wait=False, cancel_futures=True)

    async def _run(
        self, fn: Callable[[_Req], _Resp], request: _Req, context: Ctx, coalesce: bool = True
    ) -> _Resp:
        try:
            if self.coalescer is None or not coalesce:
                return fn(request)
            result = self.coalescer.run(fn, request)
            if isinstance(result, asyncio.Future):
                return await result  # type: ignore[no-any-return]
            return result  # type: ignore[no-any-return]
        except RequestError as e:
            await abort_with(e, context, _request_id())
            raise  # unreachable: abort raises

    async def ListGames(self, request: Any, context: Ctx) -> Any:
        return await self._run(self.referee.list_games, request, context)

    async def NewGame(self, request: Any, context: Ctx) -> Any:
        return await self._run(self.referee.new_game, request, context)

    async def ApplyAction(self, request: Any, context: Ctx) -> Any:
        return await self._run(self.referee.apply_action, request, context)

    async def LegalActions(self, request: Any, context: Ctx) -> Any:
        return await self._run(self.referee.legal_actions, request, context)

    async def ViewState(self, request: Any, context: Ctx) -> Any:
        return await self._run(self.referee.view_state, request, context)

    async def Replay(self, request: Any, context: Ctx) -> Any:
        if len(request.actions) <= REPLAY_OFF_LOOP_ACTIONS:
            replay = _replay_within(self.referee, context)
            return await self._run(replay, request, context, coalesce=False)
        # Off the loop, in the call's context (its log line's notes, its request id).
        # Stopped between actions at the deadline, or when the call is cancelled (the
        # client left, the server stopped): no thread goes on for nobody.
        gone = threading.Event()
        deadline = _deadline_of(context)

        def should_stop() -> bool:
            time.sleep(0)  # every 256 actions: the GIL to the loop if it waits for it
            return gone.is_set() or (deadline is not None and time.monotonic() >= deadline)

        def off_loop() -> Serialized:
            response = self.referee.replay(request, should_stop)
            return Serialized(response, response.SerializeToString())

        call = contextvars.copy_context()
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._replays, partial(call.run, off_loop))
        except RequestError as e:
            await abort_with(e, context, _request_id())
            raise  # unreachable: abort raises
        except asyncio.CancelledError:
            gone.set()
            raise


class ThreadedRefereeServicer(referee_pb2_grpc.RefereeServiceServicer):
    """The gRPC face of :class:`Referee` on grpc's threaded server (``--engine threads``):
    each call runs in one of the server's threads, from start to end."""

    def __init__(self, referee: Rpcs) -> None:
        self.referee = referee

    @staticmethod
    def _run(fn: Callable[[_Req], _Resp], request: _Req, context: Any) -> _Resp:
        try:
            return fn(request)
        except RequestError as e:
            abort_with_status(e, context, _request_id())
            raise  # unreachable: abort raises

    def ListGames(self, request: Any, context: Any) -> Any:
        return self._run(self.referee.list_games, request, context)

    def NewGame(self, request: Any, context: Any) -> Any:
        return self._run(self.referee.new_game, request, context)

    def ApplyAction(self, request: Any, context: Any) -> Any:
        return self._run(self.referee.apply_action, request, context)

    def LegalActions(self, request: Any, context: Any) -> Any:
        return self._run(self.referee.legal_actions, request, context)

    def ViewState(self, request: Any, context: Any) -> Any:
        return self._run(self.referee.view_state, request, context)

    def Replay(self, request: Any, context: Any) -> Any:
        return self._run(_replay_while_active(self.referee, context), request, context)
