"""Protobuf conversions shared by every game (the edge of the service only)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final, Generic, TypeVar

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from google.protobuf.message import DecodeError, Message

from referee.games.base import (
    PUBLIC_VIEWER,
    TABLE_ACTOR,
    Actor,
    ActorKind,
    FieldViolation,
    InvalidInput,
    OptionSpec,
    Penalty,
    Scoreboard,
    VariantSpec,
    Viewer,
    Violation,
)
from referee.v1 import cards_pb2, common_pb2, referee_pb2

CARD_MESSAGES: Final[tuple[cards_pb2.Card, ...]] = tuple(
    cards_pb2.Card(suit=c // 13 + 1, rank=c % 13 + 1)  # type: ignore[arg-type]
    for c in range(52)
)
"""The Card message of each card code, built once (copied into responses)."""

CACHE_LIMIT: Final = 4096
"""Entries of each codec cache (decoded configurations, actions ...); cleared when full."""

_K = TypeVar("_K")
_V = TypeVar("_V")


def remember(cache: dict[_K, _V], key: _K, value: _V) -> _V:
    """Store ``value`` in a codec cache (emptied first when it holds CACHE_LIMIT
    entries: inputs are the clients', so a cache must not grow without bound)."""
    if len(cache) >= CACHE_LIMIT:
        cache.clear()
    cache[key] = value
    return value


MAX_KEY_BYTES: Final = 4096
"""The longest serialized message a codec cache keeps as a key. The caches are keyed by a
request's own bytes, unknown fields included: without this, each entry could hold a
request's worth of memory (4096 of them, 16 MiB each) for as long as it stays cached. The
longest message worth keeping is a play with a call of MAX_CALL_LENGTH characters of four
bytes in UTF-8, or a configuration with four templates of 200 such characters."""


def remember_by_bytes(cache: dict[bytes, _V], key: bytes, value: _V) -> _V:
    """:func:`remember` for a cache keyed by a serialized message: a key longer than
    MAX_KEY_BYTES is not kept (``value`` is returned all the same)."""
    if len(key) <= MAX_KEY_BYTES:
        remember(cache, key, value)
    return value


MAX_CALL_LENGTH: Final = 1000
MAX_SPECTATOR_ID_LENGTH: Final = 128


Config = TypeVar("Config")
ConfigMessage = TypeVar("ConfigMessage", bound=Message)


class ConfigDecoder(Generic[Config, ConfigMessage]):
    """Configurations decoded once per distinct message (they are few and immutable).

    ``build(message, path)`` makes and checks one (zero fields standing for defaults);
    ``encode(config, message)`` writes one out with every option explicit."""

    def __init__(
        self,
        build: Callable[[ConfigMessage, str], Config],
        encode: Callable[[Config, ConfigMessage], None],
    ) -> None:
        self._build = build
        self._encode = encode
        self._configs: dict[bytes, Config] = {}
        self._state_configs: dict[bytes, Config] = {}
        self._messages: dict[int, tuple[Config, ConfigMessage]] = {}

    def config(self, message: ConfigMessage, path: str) -> Config:
        """The configuration of a GameConfig (NewGame, Replay): zero means the default."""
        key = message.SerializeToString(deterministic=True)
        config = self._configs.get(key)
        if config is None:
            config = remember_by_bytes(self._configs, key, self._build(message, path))
        return config

    def state_config(self, message: ConfigMessage, path: str) -> Config:
        """The configuration of a state, which must be written out as the referee writes
        it (every option explicit; 0 stands for a default in a GameConfig only): one
        state has one encoding, hence one hash, and ``encode_successor`` may keep it."""
        key = message.SerializeToString(deterministic=True)
        config = self._state_configs.get(key)
        if config is None:
            config = self.config(message, path)
            canonical = type(message)()
            self._encode(config, canonical)
            if canonical.SerializeToString(deterministic=True) != key:
                raise InvalidInput.one(
                    path, "must have every option written out, as in the states the referee returns"
                )
            remember_by_bytes(self._state_configs, key, config)
        return config

    def state_config_of(
        self, key: bytes, parse: Callable[[bytes], ConfigMessage], path: str
    ) -> Config:
        """:meth:`state_config` of the configuration serialized as ``key`` (as a state's
        canonical bytes hold it); ``parse`` makes the message, on a cache miss only."""
        config = self._state_configs.get(key)
        if config is None:
            try:
                message = parse(key)
            except DecodeError:
                raise InvalidInput.one(path, "is not a well-formed configuration") from None
            config = self.state_config(message, path)
        return config

    def encoded(self, config: Config, message: ConfigMessage) -> None:
        """Write ``config`` into ``message`` (a copy of its encoding, made once per
        configuration object; the entry keeps the object alive, so its id stays its own)."""
        entry = self._messages.get(id(config))
        if entry is None or entry[0] is not config:
            made = type(message)()
            self._encode(config, made)
            entry = remember(self._messages, id(config), (config, made))
        message.CopyFrom(entry[1])


# ---------------------------------------------------------------- wire format
#
# A state arrives as a protobuf message and is hashed from its canonical serialization
# (service.state_hash). The codecs read the game's fields from those same bytes instead
# of through the message's attributes: one pass over a few hundred bytes in compiled
# code, instead of a Python object per field and per seat. The bytes are the protobuf
# library's own deterministic serialization, so they are well formed (each field once,
# in field-number order); the readers still refuse anything else (WireError) rather than
# guess.

_INT64_SIGN: Final = 1 << 63
_UINT64: Final = 1 << 64


class WireError(Exception):
    """Bytes that are not a well-formed protobuf serialization."""


def read_varint(data: bytes, pos: int) -> tuple[int, int]:
    """The base-128 varint at ``data[pos]`` and the position after it."""
    end = len(data)
    if pos >= end:
        raise WireError("truncated varint")
    b = data[pos]
    if b < 0x80:
        return b, pos + 1
    result = b & 0x7F
    shift = 7
    while True:
        pos += 1
        if pos >= end or shift > 63:
            raise WireError("truncated or overlong varint")
        b = data[pos]
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result, pos + 1
        shift += 7


def signed(value: int) -> int:
    """A varint read as an int32/int64/enum (two's complement over 64 bits)."""
    return value - _UINT64 if value >= _INT64_SIGN else value


def zigzag(value: int) -> int:
    """A varint read as a sint32/sint64 (ZigZag encoding)."""
    return (value >> 1) ^ -(value & 1)


def read_length(data: bytes, pos: int) -> tuple[int, int]:
    """The span (start, end) of the length-delimited value at ``data[pos]``."""
    n, pos = read_varint(data, pos)
    end = pos + n
    if end > len(data):
        raise WireError("truncated length-delimited field")
    return pos, end


def skip_field(data: bytes, pos: int, wire_type: int) -> int:
    """The position after a field's value of ``wire_type`` (one the readers ignore)."""
    if wire_type == 0:
        return read_varint(data, pos)[1]
    if wire_type == 2:
        return read_length(data, pos)[1]
    if wire_type == 1:
        pos += 8
    elif wire_type == 5:
        pos += 4
    else:
        raise WireError(f"unsupported wire type {wire_type}")
    if pos > len(data):
        raise WireError("truncated fixed-width field")
    return pos


def read_packed(data: bytes, start: int, end: int, out: list[int]) -> None:
    """Append the varints of a packed repeated field's span to ``out``."""
    while start < end:
        value, start = read_varint(data, start)
        out.append(value)
    if start != end:
        raise WireError("packed field overruns its length")


def read_scalars(data: bytes, start: int, end: int, count: int) -> list[int]:
    """The varint fields 1 .. ``count`` of the message spanning ``data[start:end]``, by
    field number less one (0 when absent; others skipped): for messages of scalars only,
    like a seat's."""
    values = [0] * count
    pos = start
    while pos < end:
        tag, pos = read_varint(data, pos)
        if tag & 7 != 0:
            pos = skip_field(data, pos, tag & 7)
            continue
        value, pos = read_varint(data, pos)
        field = tag >> 3
        if 1 <= field <= count:
            values[field - 1] = value
    if pos != end:
        raise WireError("a field overruns its message")
    return values


_S = TypeVar("_S")


def read_wire(read: Callable[[bytes, bytes, str], _S], data: bytes, seed: bytes, path: str) -> _S:
    """``read(data, seed, path)``, a codec's reader of a state's bytes; bytes that are not
    a well-formed serialization are a request error."""
    try:
        return read(data, seed, path)
    except (WireError, UnicodeDecodeError) as e:
        raise InvalidInput.one(path, f"is not a well-formed state ({e})") from None


def checked(validate: Callable[[_S], None], state: _S, path: str) -> _S:
    """``state`` once ``validate`` (the rules' ``validate``) accepts it; its violations'
    fields prefixed with ``path`` otherwise."""
    try:
        validate(state)
    except InvalidInput as e:
        raise e.prefixed(path) from None
    return state


def field_span(data: bytes, number: int) -> tuple[int, int]:
    """The span of the (last) length-delimited field ``number`` of the message
    serialized as ``data``; (0, 0) when it is absent."""
    want = number << 3 | 2
    pos = 0
    end = len(data)
    start = stop = 0
    while pos < end:
        tag, pos = read_varint(data, pos)
        if tag == want:
            start, stop = read_length(data, pos)
            pos = stop
        else:
            pos = skip_field(data, pos, tag & 7)
    return start, stop


def card_code(card: cards_pb2.Card, path: str) -> int:
    """The code of a Card message; ``InvalidInput`` for an unspecified or unknown suit/rank."""
    suit = card.suit
    rank = card.rank
    if not 1 <= suit <= 4:
        raise InvalidInput.one(f"{path}.suit", "must be a suit (SUIT_CLUBS .. SUIT_SPADES)")
    if not 1 <= rank <= 13:
        raise InvalidInput.one(f"{path}.rank", "must be a rank (RANK_ACE .. RANK_KING)")
    return 13 * (suit - 1) + rank - 1


class CardField:
    """A repeated ``Card`` field of a message type, filled from card codes: their wire
    encoding (from CARD_MESSAGES) is merged into the message in one call, which appends
    to the field. Two and a half times cheaper than adding Card messages one by one (each
    is copied into the message)."""

    __slots__ = ("entries", "message", "name")

    def __init__(self, message: type[Message], name: str) -> None:
        field = message.DESCRIPTOR.fields_by_name[name]
        if field.message_type is not cards_pb2.Card.DESCRIPTOR or not field.is_repeated:
            raise TypeError(f"{message.__name__}.{name} is not a repeated Card field")
        self.message = message
        self.name = name
        self.entries: tuple[bytes, ...] = tuple(
            repeated_entries(field.number, [m.SerializeToString()]) for m in CARD_MESSAGES
        )

    def add(self, out: Message, codes: Iterable[int]) -> None:
        """Append the cards ``codes`` (card codes 0 .. 51) to this field of ``out``."""
        data = b"".join([self.entries[c] for c in codes])
        if data:
            out.MergeFromString(data)


def decode_actor(msg: common_pb2.Actor, path: str) -> Actor:
    kind = msg.WhichOneof("kind")
    if kind == "seat":
        return Actor.of_seat(msg.seat)
    if kind == "table":
        return TABLE_ACTOR
    if kind == "spectator":
        spectator = msg.spectator
        if not spectator or len(spectator) > MAX_SPECTATOR_ID_LENGTH:
            raise InvalidInput.one(
                f"{path}.spectator", f"must be 1 .. {MAX_SPECTATOR_ID_LENGTH} characters"
            )
        return Actor.of_spectator(spectator)
    raise InvalidInput.one(path, "must name a seat, a spectator or the table")


def encode_actor(actor: Actor, out: common_pb2.Actor) -> None:
    if actor.kind is ActorKind.SEAT:
        out.seat = actor.seat
    elif actor.kind is ActorKind.SPECTATOR:
        out.spectator = actor.spectator
    else:
        out.table.SetInParent()


def decode_viewer(msg: common_pb2.Viewer, path: str) -> Viewer:
    kind = msg.WhichOneof("kind")
    if kind == "seat":
        return Viewer.of_seat(msg.seat)
    if kind == "spectator":
        spectator = msg.spectator
        if not spectator or len(spectator) > MAX_SPECTATOR_ID_LENGTH:
            raise InvalidInput.one(
                f"{path}.spectator", f"must be 1 .. {MAX_SPECTATOR_ID_LENGTH} characters"
            )
        return Viewer.of_spectator(spectator)
    if kind == "public":
        return PUBLIC_VIEWER
    raise InvalidInput.one(path, "must name a seat, a spectator or the public")


def encode_viewer(viewer: Viewer, out: common_pb2.Viewer) -> None:
    if viewer.seat >= 0:
        out.seat = viewer.seat
    elif viewer.spectator:
        out.spectator = viewer.spectator
    else:
        out.public.SetInParent()


def check_enum(value: int, allowed: range, path: str, what: str) -> None:
    if value not in allowed:
        raise InvalidInput.one(path, f"unknown {what} value {value}")


def encode_violations(
    violations: Iterable[Violation], out: RepeatedCompositeFieldContainer[common_pb2.Violation]
) -> None:
    for v in violations:
        out.add(code=v.code, message=v.message, rule_id=v.rule_id)


def encode_penalties(
    penalties: Iterable[Penalty], out: RepeatedCompositeFieldContainer[common_pb2.Penalty]
) -> None:
    for p in penalties:
        out.add(seat=p.seat, amount=p.amount, code=p.code, rule_id=p.rule_id)


def _write_varint(out: list[int], value: int) -> None:
    """Append ``value`` as a base-128 varint (a negative int64 as its 64-bit two's
    complement, as protobuf writes it)."""
    if value < 0:
        value += _UINT64
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)


def _write_scalar(out: list[int], tag: int, value: int) -> None:
    """A varint field (``tag``: its number << 3), left out when zero as proto3 does."""
    if value:
        out.append(tag)
        _write_varint(out, value)


def _write_nested(out: list[int], tag: int, body: list[int]) -> None:
    """A length-delimited field (``tag``: its number << 3 | 2)."""
    out.append(tag)
    _write_varint(out, len(body))
    out.extend(body)


def _write_packed(out: list[int], tag: int, values: Iterable[int]) -> None:
    body: list[int] = []
    for v in values:
        _write_varint(body, v)
    if body:
        _write_nested(out, tag, body)


def repeated_entries(number: int, payloads: Iterable[bytes]) -> bytes:
    """``payloads`` (serialized messages) as entries of the repeated message field
    ``number``: merged into the message holding the field, appended to it in one call."""
    tag: list[int] = []
    _write_varint(tag, number << 3 | 2)
    prefix = bytes(tag)
    out: list[bytes] = []
    for payload in payloads:
        length: list[int] = []
        _write_varint(length, len(payload))
        out.append(prefix)
        out.append(bytes(length))
        out.append(payload)
    return b"".join(out)


def scoreboard_bytes(board: Scoreboard) -> bytes:
    """``board`` serialized as a ``referee.v1.Scoreboard``, written directly in the wire
    format: a few times cheaper than setting a message's fields one by one, and parsed
    into the response once (:func:`encode_scoreboard`)."""
    out: list[int] = []
    for s in board.seats:
        seat: list[int] = []
        _write_scalar(seat, 0x08, s.seat)
        _write_scalar(seat, 0x10, s.points)
        _write_scalar(seat, 0x18, s.games_won)
        _write_scalar(seat, 0x20, s.rounds_won)
        _write_scalar(seat, 0x28, s.counters)
        _write_scalar(seat, 0x30, s.chips)
        _write_scalar(seat, 0x38, int(s.eliminated))
        _write_scalar(seat, 0x40, s.cards_in_hand)
        _write_nested(out, 0x0A, seat)
    if board.finished:
        out.append(0x10)
        out.append(1)
        _write_packed(out, 0x1A, board.winners)
    _write_scalar(out, 0x20, board.pool)
    for sp in board.spectators:
        spectator: list[int] = []
        name = sp.spectator.encode()
        if name:
            _write_nested(spectator, 0x0A, list(name))
        _write_scalar(spectator, 0x10, sp.net)
        _write_scalar(spectator, 0x18, sp.open_wagers)
        _write_nested(out, 0x2A, spectator)
    for group in board.standings:
        members: list[int] = []
        _write_packed(members, 0x0A, group)
        _write_nested(out, 0x32, members)
    return bytes(out)


def encode_scoreboard(board: Scoreboard, out: common_pb2.Scoreboard) -> None:
    out.MergeFromString(scoreboard_bytes(board))


def encode_game_info(info: referee_pb2.GameInfo, rules: Any) -> None:
    """ListGames' description of one game, from its rules object (``Rules`` protocol)."""
    info.id = rules.game_id
    info.title = rules.title
    info.rules_version = rules.rules_version
    info.rules_document = rules.rules_document
    info.description = rules.description
    info.min_seats = rules.min_seats
    info.max_seats = rules.max_seats
    o: OptionSpec
    for o in rules.options:
        info.options.add(
            name=o.name,
            description=o.description,
            type=int(o.type),
            default_value=o.default,
            min=o.min,
            max=o.max,
            choices=o.choices,
            rule_id=o.rule_id,
        )
    v: VariantSpec
    for v in rules.variants:
        variant = info.variants.add(
            id=v.id, title=v.title, rule_id=v.rule_id, description=v.description
        )
        for option_name, value in v.settings:
            variant.settings.add(name=option_name, value=value)


def violation(path: str, description: str) -> FieldViolation:
    return FieldViolation(path, description)
