"""Types shared by the rules of every game.

The rules core is pure Python: no grpc, no protobuf, no I/O. A game is a
configuration, a state, the legal actions of a state and ``apply``:
``apply(state, action) -> Outcome`` never mutates its input and never trusts
the caller. ``legal_actions`` is the single source of truth for legality:
``apply`` accepts exactly the actions ``legal_actions`` lists (up to free
text such as a couplet, whose correctness is judged by ``apply``).

Field names in :class:`FieldViolation` use the names of the protobuf
contract relative to the game's own message (``seats[2].hand``,
``config.seats``); the codec prefixes the path of the request field.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import IntEnum
from typing import Final, Generic, Protocol, TypeVar


class Verdict(IntEnum):
    """rules/README.md "Verdicts". Values equal ``referee.v1.Verdict``."""

    ACCEPTED = 1
    REJECTED = 2
    PENALIZED = 3


@dataclass(frozen=True, slots=True)
class Violation:
    """One broken rule: a stable UPPER_SNAKE code, a message, the rule id."""

    code: str
    message: str
    rule_id: str


class ActorKind(IntEnum):
    SEAT = 1
    SPECTATOR = 2
    TABLE = 3


@dataclass(frozen=True, slots=True)
class Actor:
    """Who acts: a seat, a spectator (by id) or the table."""

    kind: ActorKind
    seat: int = -1
    spectator: str = ""

    # Written out (the dataclass keeps them): compiled, where the generated ones are
    # interpreted; actions holding an actor are dictionary keys on every request.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, Actor)
        return (
            self.kind == other.kind
            and self.seat == other.seat
            and self.spectator == other.spectator
        )

    def __hash__(self) -> int:
        return hash((self.kind, self.seat, self.spectator))

    @staticmethod
    def of_seat(seat: int) -> Actor:
        if 0 <= seat < len(_SEAT_ACTORS):
            return _SEAT_ACTORS[seat]
        return Actor(ActorKind.SEAT, seat)

    @staticmethod
    def of_spectator(spectator: str) -> Actor:
        return Actor(ActorKind.SPECTATOR, -1, spectator)

    def __str__(self) -> str:
        if self.kind is ActorKind.SEAT:
            return f"seat {self.seat}"
        if self.kind is ActorKind.SPECTATOR:
            return f"spectator {self.spectator!r}"
        return "the table"


_SEAT_ACTORS: Final = tuple(Actor(ActorKind.SEAT, s) for s in range(16))
TABLE_ACTOR: Final = Actor(ActorKind.TABLE)


class ViewerKind(IntEnum):
    SEAT = 1
    SPECTATOR = 2
    PUBLIC = 3


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who looks: a seat sees its own cards; a spectator and the public see what is public."""

    kind: ViewerKind
    seat: int = -1
    spectator: str = ""

    @staticmethod
    def of_seat(seat: int) -> Viewer:
        if 0 <= seat < len(_SEAT_VIEWERS):
            return _SEAT_VIEWERS[seat]
        return Viewer(ViewerKind.SEAT, seat)

    @staticmethod
    def of_spectator(spectator: str) -> Viewer:
        return Viewer(ViewerKind.SPECTATOR, -1, spectator)


_SEAT_VIEWERS: Final = tuple(Viewer(ViewerKind.SEAT, s) for s in range(16))
PUBLIC_VIEWER: Final = Viewer(ViewerKind.PUBLIC)


@dataclass(frozen=True, slots=True)
class Penalty:
    """A penalty applied to a seat (counters or chips actually moved)."""

    seat: int
    amount: int
    code: str
    rule_id: str


@dataclass(frozen=True, slots=True)
class FieldViolation:
    """One reason a request is malformed or impossible (google.rpc.BadRequest)."""

    field: str
    description: str


MAX_VIOLATIONS: Final = 100
"""Field violations an :class:`InvalidInput` (and a validator's :class:`Findings`) keeps;
any more are counted only (``total``). A request is small next to what one violation
costs (an object, its path, its share of the message): a state of millions of faults (a
bytes field of bad card codes, an open wager list) would otherwise cost the server a
few hundred bytes of memory per byte of request."""


class InvalidInput(Exception):
    """A malformed or impossible configuration, state or action: an error of the
    request (INVALID_ARGUMENT), never a verdict. ``violations``: the first
    MAX_VIOLATIONS; ``total``: how many were found."""

    def __init__(self, violations: Sequence[FieldViolation], total: int = 0) -> None:
        kept = list(violations[:MAX_VIOLATIONS])
        self.violations = kept
        self.total = max(total, len(violations))
        super().__init__("; ".join(f"{v.field}: {v.description}" for v in kept))

    @classmethod
    def one(cls, field_path: str, description: str) -> InvalidInput:
        return cls([FieldViolation(field_path, description)])

    def prefixed(self, prefix: str) -> InvalidInput:
        """The same violations with ``prefix`` put before every field path."""
        return InvalidInput(
            [
                FieldViolation(f"{prefix}.{v.field}" if v.field else prefix, v.description)
                for v in self.violations
            ],
            self.total,
        )


class Checkable(Protocol):
    """A game configuration: immutable, with its own ``check`` and a ``checked`` mark."""

    @property
    def checked(self) -> bool: ...

    def check(self) -> None: ...


def check_once(config: Checkable) -> None:
    """``config.check()`` the first time only: a configuration is immutable, and a state's
    configuration is checked on every validation (each request). Marked once it passed;
    a failing check raises every time."""
    if not config.checked:
        config.check()
        object.__setattr__(config, "checked", True)


class Findings:
    """The field violations a validator finds: ``bad(path, why)`` adds one to ``errors``
    (the first MAX_VIOLATIONS; any more are counted in ``more``), :meth:`invalid` is the
    error to raise.

    Validators use this bound method rather than a nested function: compiled (mypyc), a
    nested function and its environment form a reference cycle, garbage that only the
    cyclic collector frees, once per validated state (one per request)."""

    def __init__(self, errors: list[FieldViolation] | None = None) -> None:
        self.errors: list[FieldViolation] = [] if errors is None else errors
        self.more = 0

    def bad(self, path: str, why: str) -> None:
        if len(self.errors) < MAX_VIOLATIONS:
            self.errors.append(FieldViolation(path, why))
        else:
            self.more += 1

    def full(self) -> bool:
        """Whether ``bad`` now only counts (a validator may then count faults itself)."""
        return len(self.errors) >= MAX_VIOLATIONS

    def invalid(self) -> InvalidInput:
        """The violations found, as the error a validator raises."""
        return InvalidInput(self.errors, len(self.errors) + self.more)


S = TypeVar("S")
A = TypeVar("A")
E = TypeVar("E")
C = TypeVar("C")
V = TypeVar("V")
C_contra = TypeVar("C_contra", contravariant=True)
V_co = TypeVar("V_co", covariant=True)


class Outcome(Generic[S, E]):
    """The referee's answer to one action.

    ``state`` is the next state (accepted, penalized) or the very input state
    (rejected). ``events`` are complete (unredacted); use the game's
    ``redact_events`` before showing them to anyone.
    """

    __slots__ = ("events", "penalties", "state", "verdict", "violations")

    def __init__(
        self,
        verdict: Verdict,
        state: S,
        events: list[E] | None = None,
        violations: tuple[Violation, ...] = (),
        penalties: tuple[Penalty, ...] = (),
    ) -> None:
        self.verdict = verdict
        self.state = state
        self.events: list[E] = [] if events is None else events
        self.violations = violations
        self.penalties = penalties

    def __repr__(self) -> str:
        return (
            f"Outcome({self.verdict!r}, {self.state!r}, {self.events!r}, "
            f"{self.violations!r}, {self.penalties!r})"
        )


# Scores are created on every call: plain slotted dataclasses (frozen ones cost three
# times as much to create). Treat them as immutable all the same. A class built on every
# request has its __init__ written out (init=False): compiled (mypyc), that is native
# code, where the dataclass-generated __init__ stays interpreted Python (about five times
# dearer); the dataclass still gives it __eq__ and __repr__.


@dataclass(slots=True, init=False)
class SeatScore:
    seat: int
    points: int
    games_won: int
    rounds_won: int
    counters: int
    chips: int
    eliminated: bool
    cards_in_hand: int

    def __init__(
        self,
        seat: int,
        points: int = 0,
        games_won: int = 0,
        rounds_won: int = 0,
        counters: int = 0,
        chips: int = 0,
        eliminated: bool = False,
        cards_in_hand: int = 0,
    ) -> None:
        self.seat = seat
        self.points = points
        self.games_won = games_won
        self.rounds_won = rounds_won
        self.counters = counters
        self.chips = chips
        self.eliminated = eliminated
        self.cards_in_hand = cards_in_hand


@dataclass(slots=True, init=False)
class SpectatorScore:
    spectator: str
    net: int
    open_wagers: int

    def __init__(self, spectator: str, net: int, open_wagers: int) -> None:
        self.spectator = spectator
        self.net = net
        self.open_wagers = open_wagers


@dataclass(slots=True, init=False)
class Scoreboard:
    seats: tuple[SeatScore, ...]
    finished: bool
    winners: tuple[int, ...]
    pool: int
    spectators: tuple[SpectatorScore, ...]
    standings: tuple[tuple[int, ...], ...]

    def __init__(
        self,
        seats: tuple[SeatScore, ...],
        finished: bool = False,
        winners: tuple[int, ...] = (),
        pool: int = 0,
        spectators: tuple[SpectatorScore, ...] = (),
        standings: tuple[tuple[int, ...], ...] = (),
    ) -> None:
        self.seats = seats
        self.finished = finished
        self.winners = winners
        self.pool = pool
        self.spectators = spectators
        self.standings = standings


class OptionType(IntEnum):
    """Values equal ``referee.v1.OptionType``."""

    BOOL = 1
    INTEGER = 2
    ENUM = 3
    STRING_LIST = 4


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One configuration option, as ListGames describes it."""

    name: str
    description: str
    type: OptionType
    default: str
    rule_id: str
    min: int = 0
    max: int = 0
    choices: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class VariantSpec:
    """A named variant of the rule text and the option settings that select it."""

    id: str
    title: str
    rule_id: str
    description: str
    settings: tuple[tuple[str, str], ...]


class Rules(Protocol[C_contra, S, A, E, V_co]):
    """What every game provides. Implementations are stateless singletons."""

    game_id: str
    title: str
    rules_version: str
    rules_document: str
    description: str
    min_seats: int
    max_seats: int
    options: tuple[OptionSpec, ...]
    variants: tuple[VariantSpec, ...]

    def new_game(self, config: C_contra, seed: bytes) -> tuple[S, list[E]]:
        """The first state (first deal done) and the events of the start."""
        ...

    def validate(self, state: S) -> None:
        """Raise :class:`InvalidInput` unless ``state`` is possible."""
        ...

    def legal_actions(self, state: S, actor: Actor | None) -> list[A]:
        """Every action ``actor`` may take now (``None``: every seat and the table)."""
        ...

    def apply(self, state: S, action: A) -> Outcome[S, E]: ...

    def is_over(self, state: S) -> bool: ...

    def scoreboard(self, state: S) -> Scoreboard: ...

    def view(self, state: S, viewer: Viewer) -> V_co:
        """What ``viewer`` may see of ``state``, and nothing more."""
        ...

    def redact_events(self, state: S, events: Sequence[E], viewer: Viewer) -> list[E]:
        """``events`` as ``viewer`` may see them (``state`` is the state after them)."""
        ...
