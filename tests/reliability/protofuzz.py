"""Hypothesis strategies over protobuf descriptors: random messages of any type, and
mutations of real messages (any field, any ``oneof`` case, out-of-range enums and
integers, empty/huge/unicode strings and bytes, truncated/duplicated/huge repeated
fields), plus garbage that looks like protobuf wire format."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass
from hypothesis import strategies as st

F = FieldDescriptor
Draw = Callable[[st.SearchStrategy[Any]], Any]

MAX_DEPTH = 6  # nesting of random messages (GameState > EcarteState > config: 3)
HUGE_REPEATED_SCALARS = 200_000  # entries of a huge repeated scalar field
HUGE_REPEATED_MESSAGES = 5_000  # entries of a huge repeated message field
HUGE_BYTES = 2 * 1024 * 1024  # a huge bytes field (under the 16 MiB limit)
HUGE_REPEATED_BYTES = 4 * 1024 * 1024  # the most a huge repeated message field holds
HUGE_TEXT = 300_000  # characters of a huge string (at most 4 bytes each)
COPIES_BYTES = 16 * 1024 * 1024  # the most a mutation's copies of a field hold

_RANGES = {
    F.TYPE_INT32: (-(2**31), 2**31 - 1),
    F.TYPE_SINT32: (-(2**31), 2**31 - 1),
    F.TYPE_SFIXED32: (-(2**31), 2**31 - 1),
    F.TYPE_ENUM: (-(2**31), 2**31 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1),
    F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_INT64: (-(2**63), 2**63 - 1),
    F.TYPE_SINT64: (-(2**63), 2**63 - 1),
    F.TYPE_SFIXED64: (-(2**63), 2**63 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1),
    F.TYPE_FIXED64: (0, 2**64 - 1),
}
# Values where off-by-one errors live: seat counts, card codes, ranks, limits.
_EDGES = (0, 1, 2, 3, 4, 5, 6, 7, 12, 13, 14, 31, 32, 33, 51, 52, 53, 63, 64, 99, 100, 101)
_EDGES += (127, 128, 255, 256, 1000, 1001, 65535, 100_000, 1_000_000, 1_000_001)

RULES_VERSIONS = (
    "",
    "ecarte/1",
    "earl_of_coventry/1",
    "ecarte/2",
    "earl_of_coventry/0",
    "ECARTE/1",
    "ecarte/1\x00",
    "écarté/1",
    "ecarte/1 ",
    "x" * 10_000,
)


@cache
def integers(ftype: int) -> st.SearchStrategy[int]:
    lo, hi = _RANGES[ftype]
    edges = sorted({v for e in _EDGES for v in (e, -e, lo, hi, hi - 1) if lo <= v <= hi})
    return st.one_of(st.sampled_from(edges), st.integers(lo, hi))


@cache
def enum_numbers(field: FieldDescriptor) -> st.SearchStrategy[int]:
    """Any int32: the declared values, their neighbours, and far out of range."""
    assert field.enum_type is not None
    declared = [v.number for v in field.enum_type.values]
    return st.one_of(
        st.sampled_from(declared), st.sampled_from([-1, max(declared) + 1]), integers(F.TYPE_ENUM)
    )


def _times(unit: Any, n: int) -> Any:
    return unit * n


_UTF8 = st.characters(codec="utf-8")  # any code point that UTF-8 encodes (no surrogates)


@cache
def texts() -> st.SearchStrategy[str]:
    return st.one_of(
        st.just(""),
        st.sampled_from(RULES_VERSIONS),
        st.text(_UTF8, max_size=40),
        st.text(st.characters(codec="utf-8", min_codepoint=0x80), max_size=20),  # non-ASCII
        st.builds(_times, st.text(_UTF8, min_size=1, max_size=3), st.integers(100, HUGE_TEXT)),
    )


@cache
def binaries() -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.just(b""),
        st.binary(max_size=40),
        st.binary(min_size=32, max_size=32),
        st.lists(st.integers(0, 60), max_size=40).map(bytes),  # near card codes
        st.builds(_times, st.binary(min_size=1, max_size=4), st.integers(64, HUGE_BYTES)),
    )


@cache
def scalars(field: FieldDescriptor) -> st.SearchStrategy[Any]:
    t = field.type
    if t == F.TYPE_BOOL:
        return st.booleans()
    if t == F.TYPE_STRING:
        return texts()
    if t == F.TYPE_BYTES:
        return binaries()
    if t == F.TYPE_ENUM:
        return enum_numbers(field)
    if t in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
        return st.floats()
    return integers(t)


_MESSAGES: dict[tuple[str, int], st.SearchStrategy[Message]] = {}


def messages(desc: Descriptor, depth: int = 0) -> st.SearchStrategy[Message]:
    """Random messages of a type: any subset of its fields set (several cases of a
    ``oneof`` may be drawn: the last one set wins), repeated fields empty, short or huge."""
    key = (desc.full_name, depth)
    if key not in _MESSAGES:
        _MESSAGES[key] = st.deferred(lambda: _messages(desc, depth))
    return _MESSAGES[key]


def _messages(desc: Descriptor, depth: int) -> st.SearchStrategy[Message]:
    cls = GetMessageClass(desc)
    fields = list(desc.fields)
    if depth >= MAX_DEPTH or not fields:
        return st.builds(cls)

    @st.composite
    def build(draw: Draw) -> Message:
        msg = cls()
        chosen = draw(st.lists(st.sampled_from(fields), unique_by=lambda f: f.number, max_size=8))
        for f in chosen:
            set_random(msg, f, draw, depth)
        return msg

    return build()


@cache
def _element(field: FieldDescriptor, depth: int) -> st.SearchStrategy[Any]:
    if field.type == F.TYPE_MESSAGE:
        return messages(field.message_type, depth + 1)
    return scalars(field)


def set_random(msg: Message, field: FieldDescriptor, draw: Draw, depth: int = 0) -> None:
    """Give ``field`` of ``msg`` a random value (a list for a repeated field)."""
    if field.is_repeated:
        seq = getattr(msg, field.name)
        del seq[:]
        element = _element(field, depth)
        if draw(st.integers(0, 9)) == 0:  # huge, by repeating one element
            value = draw(element)
            top = HUGE_REPEATED_SCALARS
            if field.type == F.TYPE_MESSAGE:  # at most HUGE_REPEATED_BYTES in all
                top = min(HUGE_REPEATED_MESSAGES, HUGE_REPEATED_BYTES // (value.ByteSize() + 2))
            elif field.type == F.TYPE_STRING or field.type == F.TYPE_BYTES:
                value = value[:16]
            values = [value] * draw(st.integers(min(100, top), max(top, 1)))
        else:
            values = draw(st.lists(element, max_size=4))
        seq.extend(values)
    elif field.type == F.TYPE_MESSAGE:
        getattr(msg, field.name).CopyFrom(draw(messages(field.message_type, depth + 1)))
    else:
        setattr(msg, field.name, draw(scalars(field)))


# ------------------------------------------------------------------ mutations


class Site:
    """A place in a message to mutate: a field, or one element of a repeated field."""

    __slots__ = ("field", "index", "msg", "path")

    def __init__(self, msg: Message, field: FieldDescriptor, index: int | None, path: str) -> None:
        self.msg, self.field, self.index, self.path = msg, field, index, path

    def __repr__(self) -> str:
        return self.path


def sites(msg: Message, path: str = "") -> list[Site]:
    """Every field of ``msg`` (set or not) and of its set sub-messages, recursively;
    every element of its repeated fields (at most 16 of each)."""
    out: list[Site] = []
    for f in msg.DESCRIPTOR.fields:
        here = f"{path}{f.name}"
        out.append(Site(msg, f, None, here))
        if f.is_repeated:
            seq = getattr(msg, f.name)
            for i in range(min(len(seq), 16)):
                out.append(Site(msg, f, i, f"{here}[{i}]"))
                if f.type == F.TYPE_MESSAGE:
                    out.extend(sites(seq[i], f"{here}[{i}]."))
        elif f.type == F.TYPE_MESSAGE and msg.HasField(f.name):
            out.extend(sites(getattr(msg, f.name), f"{here}."))
    return out


def _mutate_int(value: int, ftype: int, draw: Draw) -> int:
    lo, hi = _RANGES[ftype]
    op = draw(st.integers(0, 3))
    if op == 0:
        return max(lo, min(hi, value + draw(st.sampled_from([-2, -1, 1, 2]))))
    if op == 1:
        return max(lo, min(hi, value * 2 + 1))
    return int(draw(integers(ftype)))


def mutate_bytes(value: bytes, draw: Draw) -> bytes:
    b = bytearray(value)
    op = draw(st.integers(0, 9))
    if b and op == 0:  # flip a bit
        i = draw(st.integers(0, len(b) - 1))
        b[i] ^= 1 << draw(st.integers(0, 7))
    elif b and op == 1:  # set a byte
        b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
    elif len(b) > 1 and op == 2:  # swap two bytes (e.g. two cards: a non-canonical order)
        i, j = draw(st.integers(0, len(b) - 1)), draw(st.integers(0, len(b) - 1))
        b[i], b[j] = b[j], b[i]
    elif b and op == 3:  # truncate
        del b[draw(st.integers(0, len(b) - 1)) :]
    elif b and op == 4:  # duplicate a byte (a card twice)
        i = draw(st.integers(0, len(b) - 1))
        b.insert(i, b[i])
    elif b and op == 5:  # drop a byte (a card lost)
        del b[draw(st.integers(0, len(b) - 1))]
    elif op == 6:  # insert a byte
        b.insert(draw(st.integers(0, len(b))), draw(st.integers(0, 255)))
    elif op == 7:
        b.reverse()
    else:
        return bytes(draw(binaries()))
    return bytes(b)


def _mutate_text(value: str, draw: Draw) -> str:
    op = draw(st.integers(0, 3))
    if op == 0 and value:
        return value[: draw(st.integers(0, len(value) - 1))]
    if op == 1:
        return value + draw(st.text(_UTF8, min_size=1, max_size=5))
    return str(draw(texts()))


def mutate_scalar(value: Any, field: FieldDescriptor, draw: Draw) -> Any:
    t = field.type
    if t == F.TYPE_BOOL:
        return not value
    if t == F.TYPE_ENUM:
        return draw(enum_numbers(field))
    if t == F.TYPE_BYTES:
        return mutate_bytes(value, draw)
    if t == F.TYPE_STRING:
        return _mutate_text(value, draw)
    return _mutate_int(value, t, draw)


def _entry_size(value: Any) -> int:
    """About the bytes an entry of a repeated field takes on the wire."""
    if isinstance(value, bytes | str):
        return len(value)
    if isinstance(value, Message):
        return value.ByteSize()
    return 8


def most_copies(items: list[Any]) -> int:
    """The most copies a mutation makes of a repeated field's ``items`` (not empty): up
    to 2,000, to at most 200,000 entries and 16 MiB; at least 2."""
    size = sum(_entry_size(x) for x in items)
    return max(2, min(2000, HUGE_REPEATED_SCALARS // len(items), COPIES_BYTES // max(1, size)))


def mutate_site(site: Site, draw: Draw) -> None:
    msg, f, index = site.msg, site.field, site.index
    if f.is_repeated:
        seq = getattr(msg, f.name)
        if index is not None:  # one element
            if f.type == F.TYPE_MESSAGE:
                if draw(st.booleans()):
                    seq[index].Clear()
                else:
                    seq[index].CopyFrom(draw(messages(f.message_type, 1)))
            else:
                seq[index] = mutate_scalar(seq[index], f, draw)
            return
        items = list(seq)
        n = len(items)
        op = draw(st.integers(0, 7))
        if n and op == 0:  # drop one
            del items[draw(st.integers(0, n - 1))]
        elif n and op == 1:  # duplicate one
            i = draw(st.integers(0, n - 1))
            items.insert(i, items[i])
        elif n > 1 and op == 2:  # swap two
            i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
            items[i], items[j] = items[j], items[i]
        elif n and op == 3:  # truncate
            items = items[: draw(st.integers(0, n - 1))]
        elif n and op == 4:  # many copies: up to 2,000 times, to at most 200,000
            # entries and 16 MiB (else a field holding a huge entry, or multiplied by an
            # earlier mutation, is multiplied past the test client's memory)
            items = items * draw(st.integers(2, most_copies(items)))
        elif op == 5:
            items = []
        else:
            set_random(msg, f, draw, 1)
            return
        if f.type == F.TYPE_MESSAGE:
            copies = [GetMessageClass(f.message_type)() for _ in items]
            for c, m in zip(copies, items, strict=True):
                c.CopyFrom(m)
            items = copies
        del seq[:]
        seq.extend(items)
    elif f.type == F.TYPE_MESSAGE:
        op = draw(st.integers(0, 2))
        if op == 0:
            msg.ClearField(f.name)
        elif op == 1:  # present but empty (selects this oneof case when in a oneof)
            getattr(msg, f.name).Clear()
            getattr(msg, f.name).SetInParent()
        else:
            getattr(msg, f.name).CopyFrom(draw(messages(f.message_type, 1)))
    else:
        setattr(msg, f.name, mutate_scalar(getattr(msg, f.name), f, draw))


def swap_cards(state: Message, draw: Draw) -> bool:
    """Exchange one card between two seats' hands (cards stay unique: only the deal is
    wrong). Hands are card sets: 52-bit masks, bit ``code`` for each card held."""
    game = state.WhichOneof("game")  # type: ignore[attr-defined]
    if game is None:
        return False
    seats = getattr(state, game).seats
    if len(seats) < 2:
        return False
    a, b = draw(st.permutations(range(len(seats))))[:2]
    ha, hb = seats[a].hand, seats[b].hand
    if not ha or not hb:
        return False
    ca = _nth_bit(ha, draw(st.integers(0, ha.bit_count() - 1)))
    cb = _nth_bit(hb, draw(st.integers(0, hb.bit_count() - 1)))
    seats[a].hand, seats[b].hand = ha ^ ca | cb, hb ^ cb | ca
    return True


def _nth_bit(mask: int, n: int) -> int:
    for _ in range(n):
        mask &= mask - 1
    return mask & -mask


def mutate(msg: Message, draw: Draw, max_mutations: int = 3) -> list[str]:
    """Apply 1..``max_mutations`` mutations to ``msg`` in place; returns what was done."""
    done = []
    for _ in range(draw(st.integers(1, max_mutations))):
        state = _find_state(msg)
        if state is not None and draw(st.integers(0, 7)) == 0 and swap_cards(state, draw):
            done.append("swap_cards")
            continue
        candidates = sites(msg)
        site = candidates[draw(st.integers(0, len(candidates) - 1))]
        mutate_site(site, draw)
        done.append(site.path)
    return done


def _find_state(msg: Message) -> Message | None:
    if msg.DESCRIPTOR.name == "GameState":
        return msg
    for name in ("state", "final_state"):
        if name in msg.DESCRIPTOR.fields_by_name and msg.HasField(name):  # type: ignore[attr-defined]
            return getattr(msg, name)  # type: ignore[no-any-return]
    return None


# ------------------------------------------------------------------ wire-format garbage


def varint(n: int) -> bytes:
    """``n`` as a protobuf varint."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def unknown_field(number: int, payload: bytes) -> bytes:
    """A length-delimited field ``number`` holding ``payload``: appended to a message
    of a type without that field, a valid message every parser keeps or skips."""
    return varint(number << 3 | 2) + varint(len(payload)) + payload


@st.composite
def wire_garbage(draw: Draw) -> bytes:
    """Bytes that look like protobuf: tags of real field numbers with wrong wire types,
    lengths that overrun, over-long varints, deep nesting, groups."""
    out = bytearray()
    for _ in range(draw(st.integers(1, 6))):
        number = draw(st.sampled_from([1, 2, 3, 4, 5, 6, 10, 11, 15, 16, 2**29 - 1]))
        wire = draw(st.integers(0, 7))  # 3/4 (groups), 6/7 (invalid) included
        out += varint(number << 3 | wire)
        kind = draw(st.integers(0, 4))
        if kind == 0:
            out += varint(draw(st.integers(0, 2**64 - 1)))
        elif kind == 1:  # a length larger than what follows
            out += varint(draw(st.integers(1, 2**32))) + draw(st.binary(max_size=8))
        elif kind == 2:  # an 11-byte varint
            out += b"\xff" * 10 + b"\x01"
        elif kind == 3:  # nested length-delimited fields, deeper than any parser allows
            depth = draw(st.integers(1, 200))
            inner = b""
            for _ in range(depth):
                inner = varint(10 << 3 | 2) + varint(len(inner)) + inner
            out += varint(len(inner)) + inner
        else:
            out += draw(st.binary(max_size=16))
    return bytes(out)
