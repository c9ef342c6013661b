"""Configuration, state, actions, events and views of Écarté.

Everything here is plain data; the rules live in ``rules.py``. Cards are codes
0..51 (``referee.cards``), hands and discards are card masks, the stock and the
cards played to the tricks are ``bytes`` of card codes.

Roles: in every deal the *dealer* deals; the *elder* is the player to the
dealer's left; the *responder* is the player who takes the dealer's part in
the play (answers proposals, exchanges second, scores a turned king, gains the
bonus of E-SCORE-3). With two seats the responder is the dealer; with three
(E-VAR-5) the dealer sits out and the responder is the player to the dealer's
right.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final, NamedTuple

from referee.games.base import Actor, FieldViolation, InvalidInput

MIN_SEATS: Final = 2
MAX_SEATS: Final = 3
DEFAULT_TARGET: Final = 5
MAX_TARGET: Final = 99
DEFAULT_GAMES_TO_WIN: Final = 1
MAX_GAMES_TO_WIN: Final = 9
MAX_STAKE: Final = 1_000_000
DEFAULT_MULTIPLIER: Final = 2
MAX_MULTIPLIER: Final = 100
DEFAULT_WAGER_LIMIT: Final = 100
MAX_WAGER_LIMIT: Final = 1_000_000
MAX_SPECTATOR_ID: Final = 128  # as referee.codec.common.MAX_SPECTATOR_ID_LENGTH
HAND_SIZE: Final = 5
STOCK_SIZE: Final = 21
# Shuffle 0xFFFFFFFF is the cut pack (SHUF-4): deals stop one short of it.
MAX_DEAL: Final = 0xFFFFFFFE
NO_SEAT: Final = -1


class Packets(IntEnum):
    """E-DEAL-2. Values equal ``referee.v1.EcartePackets``."""

    THREE_TWO = 1
    TWO_THREE = 2


class Phase(IntEnum):
    """Values equal ``referee.v1.EcartePhase``."""

    PROPOSAL = 1
    """The elder proposes or leads (E-EXCH-1, E-EXCH-7)."""
    ANSWER = 2
    """A proposal awaits the responder's answer (E-EXCH-3)."""
    ELDER_DISCARD = 3
    """Accepted: the elder discards (E-EXCH-5)."""
    RESPONDER_DISCARD = 4
    """The responder discards (E-EXCH-6)."""
    TRICKS = 5
    """The tricks (E-PLAY); also the first lead after a refusal (E-EXCH-4)."""
    MATCH_OVER = 6
    """Nothing is legal any more (E-END-3)."""


@dataclass(frozen=True, slots=True)
class EcarteConfig:
    """The options of a match (defaults filled in). Field names equal ``EcarteConfig``."""

    seats: int = MIN_SEATS
    first_dealer: int | None = None
    packets: Packets = Packets.THREE_TWO
    target_points: int = DEFAULT_TARGET
    games_to_win: int = DEFAULT_GAMES_TO_WIN
    stake: int = 0
    vole_multiplier: int = DEFAULT_MULTIPLIER
    king_multiplier: int = DEFAULT_MULTIPLIER
    gallery: bool = False
    wager_limit: int = DEFAULT_WAGER_LIMIT
    jeux_de_regle: bool = False
    # Set once check() passed (referee.games.base.check_once); not part of the value.
    checked: bool = field(default=False, init=False, compare=False, hash=False, repr=False)

    def check(self) -> None:
        """Raise :class:`InvalidInput` for a configuration out of range (E-CONF)."""
        errors: list[FieldViolation] = []

        def rng(field: str, value: int, lo: int, hi: int, rule: str) -> None:
            if not lo <= value <= hi:
                errors.append(FieldViolation(field, f"must be {lo:,} .. {hi:,} ({rule})"))

        rng("seats", self.seats, MIN_SEATS, MAX_SEATS, "E-SEAT-1, E-VAR-5")
        if self.first_dealer is not None and not 0 <= self.first_dealer < self.seats:
            errors.append(FieldViolation("first_dealer", "must be a seat of the table (E-SEAT-2)"))
        if not isinstance(self.packets, Packets):
            errors.append(FieldViolation("packets", "is unknown (E-DEAL-2)"))
        rng("target_points", self.target_points, 1, MAX_TARGET, "E-VAR-1")
        rng("games_to_win", self.games_to_win, 1, MAX_GAMES_TO_WIN, "E-VAR-2")
        # E-CONF gives lower bounds only; the upper ones are D-9's.
        rng("stake", self.stake, 0, MAX_STAKE, "E-CONF, D-9")
        rng("vole_multiplier", self.vole_multiplier, 1, MAX_MULTIPLIER, "E-CONF, D-9")
        rng("king_multiplier", self.king_multiplier, 1, MAX_MULTIPLIER, "E-CONF, D-9")
        rng("wager_limit", self.wager_limit, 1, MAX_WAGER_LIMIT, "E-CONF")
        if errors:
            raise InvalidInput(errors)


class ActionKind(IntEnum):
    PROPOSE = 1
    ACCEPT = 2
    REFUSE = 3
    DISCARD = 4
    PLAY = 5
    ANNOUNCE_KING = 6
    WAGER = 7


class EcarteAction(NamedTuple):
    """A proposed action.

    ``card``: PLAY. ``cards``: DISCARD (any order, each card once). ``seat`` and
    ``amount``: WAGER. In the wagers that ``legal_actions`` lists, ``amount`` is
    the smallest legal amount and ``amount_max`` the largest: every amount in
    between is legal (E-VAR-4); ``apply`` ignores ``amount_max``.

    A named tuple rather than a frozen dataclass: ``legal_actions`` builds up to
    31 discards at a time, and a tuple is built three times faster.
    """

    actor: Actor
    kind: ActionKind
    card: int = -1
    cards: tuple[int, ...] = ()
    seat: int = -1
    amount: int = 0
    amount_max: int = 0


@dataclass(frozen=True, slots=True)
class Wager:
    """An open wager of a spectator on the winner of the current game (E-VAR-4)."""

    spectator: str
    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class SpectatorNet:
    """A spectator's net result of settled wagers (E-VAR-4)."""

    spectator: str
    net: int


@dataclass(slots=True, init=False)
class EcarteState:
    """The full state of a match. Treat as immutable: ``rules.apply`` returns new ones.

    Per-seat tuples have ``config.seats`` entries. ``discards[s]`` are the
    cards seat ``s`` discarded in this deal. ``tricks`` lists the cards played
    in this deal in order (leader's card first in each trick); an odd length
    means a card is led and awaits the answer. ``king_announced`` is the seat
    that announced the king of trumps in this deal, or ``NO_SEAT``. In
    ``MATCH_OVER`` the cards stay as the last deal left them.
    """

    config: EcarteConfig
    seed: bytes
    phase: Phase
    deal: int
    dealer: int
    turn: int
    hands: tuple[int, ...]
    discards: tuple[int, ...]
    tricks_won: tuple[int, ...]
    points: tuple[int, ...]
    games_won: tuple[int, ...]
    chips: tuple[int, ...]
    turn_up: int
    trump: int
    stock: bytes
    tricks: bytes
    king_announced: int
    wagers: tuple[Wager, ...]
    ledger: tuple[SpectatorNet, ...]

    def __init__(
        self,
        config: EcarteConfig,
        seed: bytes,
        phase: Phase,
        deal: int,
        dealer: int,
        turn: int,
        hands: tuple[int, ...],
        discards: tuple[int, ...],
        tricks_won: tuple[int, ...],
        points: tuple[int, ...],
        games_won: tuple[int, ...],
        chips: tuple[int, ...],
        turn_up: int,
        trump: int,
        stock: bytes,
        tricks: bytes,
        king_announced: int,
        wagers: tuple[Wager, ...],
        ledger: tuple[SpectatorNet, ...],
    ) -> None:
        self.config = config
        self.seed = seed
        self.phase = phase
        self.deal = deal
        self.dealer = dealer
        self.turn = turn
        self.hands = hands
        self.discards = discards
        self.tricks_won = tricks_won
        self.points = points
        self.games_won = games_won
        self.chips = chips
        self.turn_up = turn_up
        self.trump = trump
        self.stock = stock
        self.tricks = tricks
        self.king_announced = king_announced
        self.wagers = wagers
        self.ledger = ledger

    def clone(self) -> EcarteState:
        """A shallow copy (every field is immutable)."""
        return EcarteState(
            self.config,
            self.seed,
            self.phase,
            self.deal,
            self.dealer,
            self.turn,
            self.hands,
            self.discards,
            self.tricks_won,
            self.points,
            self.games_won,
            self.chips,
            self.turn_up,
            self.trump,
            self.stock,
            self.tricks,
            self.king_announced,
            self.wagers,
            self.ledger,
        )

    @property
    def game(self) -> int:
        """The number of the current (or, when the match is over, last) game, from 0."""
        done = sum(self.games_won)
        return done - 1 if self.phase is Phase.MATCH_OVER else done


ROLES: Final[dict[int, tuple[tuple[int, int], ...]]] = {
    2: ((1, 0), (0, 1)),
    3: ((1, 2), (2, 0), (0, 1)),
}
"""``ROLES[seats][dealer] == (elder, responder)`` (E-SEAT, E-VAR-5)."""


# ---------------------------------------------------------------- events
#
# Events are created on every call: plain slotted dataclasses (a frozen one costs three
# times as much to create); treat them as immutable all the same. ``CardPlayed`` and
# ``TrickWon`` are frozen: the rules share cached instances of them. Those made on
# every request have their __init__ written out, compiled (referee.games.base, above
# SeatScore).


@dataclass(slots=True)
class DealerCut:
    """CUT / E-SEAT-2: ``draws[s]`` are the cards seat ``s`` drew; the lowest deals."""

    draws: tuple[tuple[int, ...], ...]
    dealer: int


@dataclass(slots=True)
class Dealt:
    """E-DEAL-1 .. E-DEAL-3. ``hands[s]`` is empty where the viewer may not see it;
    ``hand_sizes`` are public (0 for a dealer sitting out, E-VAR-5)."""

    deal: int
    game: int
    dealer: int
    elder: int
    responder: int
    turn_up: int
    stock_size: int
    hand_sizes: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...]


@dataclass(slots=True)
class KingTurned:
    """E-DEAL-4: the turned-up card is a king; ``seat`` (the responder) scores."""

    seat: int
    card: int


@dataclass(slots=True, init=False)
class Proposed:
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True, init=False)
class Accepted:
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True, init=False)
class Refused:
    seat: int

    def __init__(self, seat: int) -> None:
        self.seat = seat


@dataclass(slots=True, init=False)
class Exchanged:
    """E-EXCH-5/6/8: ``count`` cards discarded and drawn (public); the cards
    themselves are empty unless the viewer is ``seat``."""

    seat: int
    count: int
    discarded: tuple[int, ...]
    drawn: tuple[int, ...]
    stock_left: int

    def __init__(
        self,
        seat: int,
        count: int,
        discarded: tuple[int, ...],
        drawn: tuple[int, ...],
        stock_left: int,
    ) -> None:
        self.seat = seat
        self.count = count
        self.discarded = discarded
        self.drawn = drawn
        self.stock_left = stock_left


@dataclass(slots=True, init=False)
class KingAnnounced:
    """E-KING-1: ``seat`` announced the king of trumps ``card``."""

    seat: int
    card: int

    def __init__(self, seat: int, card: int) -> None:
        self.seat = seat
        self.card = card


@dataclass(frozen=True, slots=True)
class CardPlayed:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class TrickWon:
    """E-PLAY-7: trick number ``trick`` (0..4), led by ``leader``, won by ``seat``."""

    trick: int
    seat: int
    leader: int
    cards: tuple[int, int]


@dataclass(slots=True)
class DealScored:
    """E-SCORE-1 .. E-SCORE-3: the tricks of a deal played out. ``tricks`` per seat."""

    deal: int
    seat: int
    tricks: tuple[int, ...]
    vole: bool
    raised: bool
    original_hands: bool


class ScoreReason(IntEnum):
    """Values equal ``referee.v1.EcarteScoreReason``."""

    TURNED_KING = 1
    ANNOUNCED_KING = 2
    POINT = 3
    VOLE = 4


@dataclass(slots=True)
class PointsScored:
    """Points to ``seat`` (``total``: its score after them); with stakes (E-VAR-3)
    ``payer`` paid ``chips`` to ``seat`` (``chips`` 0 and ``payer`` -1 without)."""

    seat: int
    reason: ScoreReason
    points: int
    total: int
    chips: int
    payer: int


@dataclass(slots=True)
class GameWon:
    """E-END-1: game ``game`` (from 0) won by ``seat``; ``points`` per seat at its end."""

    game: int
    seat: int
    points: tuple[int, ...]


@dataclass(slots=True)
class WagerPlaced:
    spectator: str
    seat: int
    amount: int


@dataclass(slots=True)
class WagerSettled:
    """E-VAR-4: ``net`` is the spectator's net result after this settlement."""

    spectator: str
    seat: int
    amount: int
    won: bool
    net: int


@dataclass(slots=True)
class MatchWon:
    """E-END-2: the match is over."""

    seat: int
    games_won: tuple[int, ...]


EcarteEvent = (
    DealerCut
    | Dealt
    | KingTurned
    | Proposed
    | Accepted
    | Refused
    | Exchanged
    | KingAnnounced
    | CardPlayed
    | TrickWon
    | DealScored
    | PointsScored
    | GameWon
    | WagerPlaced
    | WagerSettled
    | MatchWon
)


# ---------------------------------------------------------------- views
#
# Views are made on every request that asks for one: plain slotted dataclasses with their
# __init__ written out, compiled (referee.games.base, above SeatScore); treat them as
# immutable all the same.


@dataclass(slots=True, init=False)
class SeatView:
    """One seat as a viewer sees it. ``hand`` and ``discards`` are ``None`` when hidden."""

    seat: int
    card_count: int
    hand: tuple[int, ...] | None
    discard_count: int
    discards: tuple[int, ...] | None
    tricks_won: int
    points: int
    games_won: int
    chips: int
    sits_out: bool

    def __init__(
        self,
        seat: int,
        card_count: int,
        hand: tuple[int, ...] | None,
        discard_count: int,
        discards: tuple[int, ...] | None,
        tricks_won: int,
        points: int,
        games_won: int,
        chips: int,
        sits_out: bool,
    ) -> None:
        self.seat = seat
        self.card_count = card_count
        self.hand = hand
        self.discard_count = discard_count
        self.discards = discards
        self.tricks_won = tricks_won
        self.points = points
        self.games_won = games_won
        self.chips = chips
        self.sits_out = sits_out


@dataclass(slots=True, init=False)
class TrickView:
    """A trick of the deal: ``cards`` in order of play; ``winner`` -1 while open."""

    leader: int
    cards: tuple[int, ...]
    winner: int

    def __init__(self, leader: int, cards: tuple[int, ...], winner: int) -> None:
        self.leader = leader
        self.cards = cards
        self.winner = winner


@dataclass(slots=True, init=False)
class EcarteView:
    config: EcarteConfig
    phase: Phase
    deal: int
    game: int
    dealer: int
    elder: int
    responder: int
    turn: int
    turn_up: int
    trump: int
    stock_count: int
    seats: tuple[SeatView, ...]
    tricks: tuple[TrickView, ...]
    king_announced: int
    original_hands: bool
    wagers: tuple[Wager, ...]
    spectators: tuple[SpectatorNet, ...]
    winner: int

    def __init__(
        self,
        config: EcarteConfig,
        phase: Phase,
        deal: int,
        game: int,
        dealer: int,
        elder: int,
        responder: int,
        turn: int,
        turn_up: int,
        trump: int,
        stock_count: int,
        seats: tuple[SeatView, ...],
        tricks: tuple[TrickView, ...],
        king_announced: int,
        original_hands: bool,
        wagers: tuple[Wager, ...],
        spectators: tuple[SpectatorNet, ...],
        winner: int,
    ) -> None:
        self.config = config
        self.phase = phase
        self.deal = deal
        self.game = game
        self.dealer = dealer
        self.elder = elder
        self.responder = responder
        self.turn = turn
        self.turn_up = turn_up
        self.trump = trump
        self.stock_count = stock_count
        self.seats = seats
        self.tricks = tricks
        self.king_announced = king_announced
        self.original_hands = original_hands
        self.wagers = wagers
        self.spectators = spectators
        self.winner = winner
