"""Configuration, state, actions and events of Earl of Coventry.

Everything here is plain data; the rules live in ``rules.py``. Cards are
codes 0..51 (``referee.cards``) and hands are 52-bit masks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Final

from referee.games.base import Actor, FieldViolation, InvalidInput
from referee.games.earl_of_coventry.calls import RANK_PLACEHOLDER, CallStyle, normalise

MIN_SEATS: Final = 2
MAX_SEATS: Final = 13
DEFAULT_SEATS: Final = 4
DEFAULT_COUNTERS: Final = 20
MAX_COUNTERS: Final = 1_000_000
MAX_TEMPLATE_LENGTH: Final = 200
# Shuffle 0xFFFFFFFF is the cut pack (SHUF-4), so the last round is 0xFFFFFFFE.
# Ordinary rounds stop at MAX_ROUND - 1: shuffle MAX_ROUND stays free for the
# tie-break round that ending the session may need (C-SCORE-4).
MAX_ROUND: Final = 0xFFFFFFFE
NO_RANK: Final = -1
NO_SEAT: Final = -1


class Scoring(IntEnum):
    """C-SCORE-0. Values equal ``referee.v1.EarlOfCoventryScoring``."""

    SIMPLE = 1
    COUNTERS = 2
    ELIMINATION = 3


class Phase(IntEnum):
    """Values equal ``referee.v1.EarlOfCoventryPhase``."""

    PLAYING = 1
    BETWEEN_ROUNDS = 2
    SESSION_OVER = 3


@dataclass(frozen=True, slots=True)
class EarlConfig:
    """The options of a session (defaults filled in)."""

    seats: int = DEFAULT_SEATS
    first_dealer: int | None = None
    call_style: CallStyle = CallStyle.EARL
    couplet_templates: tuple[str, ...] = ()
    scoring: Scoring = Scoring.SIMPLE
    starting_counters: int = DEFAULT_COUNTERS
    penalty_earl: bool = False
    open_hands: bool = False
    holding_allowed: bool = False
    # A memo of the rules engine for this configuration (its action table), set on
    # first use; not part of the configuration's value.
    memo: Any = field(default=None, init=False, compare=False, hash=False, repr=False)
    # Set once check() passed (referee.games.base.check_once); not part of the value.
    checked: bool = field(default=False, init=False, compare=False, hash=False, repr=False)

    @property
    def uses_counters(self) -> bool:
        """Counters are kept: counters or elimination scoring, or Penalty Earl (C-VAR-4)."""
        return self.scoring is not Scoring.SIMPLE or self.penalty_earl

    @property
    def pays_per_card(self) -> bool:
        """Losers pay per card left (C-SCORE-2)."""
        return self.scoring is not Scoring.SIMPLE

    def check(self) -> None:
        """Raise :class:`InvalidInput` for a configuration out of range (C-SEAT-1, C-VAR-5, ...)."""
        errors: list[FieldViolation] = []
        if not MIN_SEATS <= self.seats <= MAX_SEATS:
            errors.append(FieldViolation("seats", f"must be {MIN_SEATS} .. {MAX_SEATS} (C-SEAT-1)"))
        elif self.first_dealer is not None and not 0 <= self.first_dealer < self.seats:
            errors.append(FieldViolation("first_dealer", "must be a seat of the table (C-SEAT-2)"))
        if not 1 <= self.starting_counters <= MAX_COUNTERS:
            errors.append(
                FieldViolation("starting_counters", f"must be 1 .. {MAX_COUNTERS:,} (C-SCORE-2)")
            )
        if self.call_style is CallStyle.CUSTOM:
            if len(self.couplet_templates) != 4:
                errors.append(
                    FieldViolation(
                        "couplet_templates",
                        "the custom call style needs exactly four templates (C-VAR-5)",
                    )
                )
            for i, t in enumerate(self.couplet_templates):
                if len(t) > MAX_TEMPLATE_LENGTH:
                    errors.append(
                        FieldViolation(
                            f"couplet_templates[{i}]",
                            f"must be at most {MAX_TEMPLATE_LENGTH} characters (C-VAR-5)",
                        )
                    )
                elif not normalise(t):
                    # Blank or punctuation only: the couplet due would be empty after
                    # C-CHANT-2, so any call made of punctuation would match it.
                    errors.append(
                        FieldViolation(
                            f"couplet_templates[{i}]",
                            "needs a letter or a digit: nothing is left of it after "
                            "C-CHANT-2's normalisation (C-VAR-5)",
                        )
                    )
                elif "{" in t.replace(RANK_PLACEHOLDER, "") or "}" in t.replace(
                    RANK_PLACEHOLDER, ""
                ):
                    errors.append(
                        FieldViolation(
                            f"couplet_templates[{i}]",
                            "the only placeholder is {rank} (C-VAR-5)",
                        )
                    )
        elif self.couplet_templates:
            errors.append(
                FieldViolation(
                    "couplet_templates", "templates are only allowed with the custom call style"
                )
            )
        if errors:
            raise InvalidInput(errors)


class ActionKind(IntEnum):
    PLAY = 1
    PASS = 2
    NEXT_ROUND = 3
    END_SESSION = 4


@dataclass(frozen=True, slots=True)
class EarlAction:
    """A proposed action. ``card`` is a card code for PLAY, else -1."""

    actor: Actor
    kind: ActionKind
    card: int = -1
    call: str = ""

    # Written out (the dataclass keeps them): compiled, where the generated ones are
    # interpreted; the codec's cache of action messages is keyed by actions.
    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        assert isinstance(other, EarlAction)
        return (
            self.actor == other.actor
            and self.kind == other.kind
            and self.card == other.card
            and self.call == other.call
        )

    def __hash__(self) -> int:
        return hash((self.actor, self.kind, self.card, self.call))


@dataclass(slots=True, init=False)
class EarlState:
    """The full state of a session. Treat as immutable: ``rules.apply`` returns new ones.

    ``hands`` are card masks per seat. ``dealt_in`` and ``eliminated`` are seat
    masks. ``current_rank`` is a rank index 0..12 or ``NO_RANK`` when a lead is
    due; then ``last_player == turn``. ``played`` lists the cards played in the
    round, oldest first.
    """

    config: EarlConfig
    seed: bytes
    phase: Phase
    round: int
    dealer: int
    hands: tuple[int, ...]
    rounds_won: tuple[int, ...]
    counters: tuple[int, ...]
    eliminated: int
    dealt_in: int
    played: bytes
    current_rank: int
    run_length: int
    turn: int
    last_player: int
    pool: int
    tiebreak: bool
    round_winner: int
    winners: tuple[int, ...]

    def __init__(
        self,
        config: EarlConfig,
        seed: bytes,
        phase: Phase,
        round: int,
        dealer: int,
        hands: tuple[int, ...],
        rounds_won: tuple[int, ...],
        counters: tuple[int, ...],
        eliminated: int,
        dealt_in: int,
        played: bytes,
        current_rank: int,
        run_length: int,
        turn: int,
        last_player: int,
        pool: int,
        tiebreak: bool,
        round_winner: int,
        winners: tuple[int, ...],
    ) -> None:
        self.config = config
        self.seed = seed
        self.phase = phase
        self.round = round
        self.dealer = dealer
        self.hands = hands
        self.rounds_won = rounds_won
        self.counters = counters
        self.eliminated = eliminated
        self.dealt_in = dealt_in
        self.played = played
        self.current_rank = current_rank
        self.run_length = run_length
        self.turn = turn
        self.last_player = last_player
        self.pool = pool
        self.tiebreak = tiebreak
        self.round_winner = round_winner
        self.winners = winners

    def clone(self) -> EarlState:
        """A shallow copy (every field is immutable)."""
        return EarlState(
            self.config,
            self.seed,
            self.phase,
            self.round,
            self.dealer,
            self.hands,
            self.rounds_won,
            self.counters,
            self.eliminated,
            self.dealt_in,
            self.played,
            self.current_rank,
            self.run_length,
            self.turn,
            self.last_player,
            self.pool,
            self.tiebreak,
            self.round_winner,
            self.winners,
        )

    def run_cards(self) -> bytes:
        """The cards of the run under way (the last ``run_length`` cards played)."""
        return self.played[len(self.played) - self.run_length :] if self.run_length else b""


# ---------------------------------------------------------------- events
#
# Events and views are plain slotted dataclasses, not frozen ones (those cost three
# times as much to create, and one is created per card played): treat them as
# immutable all the same. Those made on every request have their __init__ written out,
# compiled (referee.games.base, above SeatScore).


@dataclass(slots=True)
class DealerCut:
    """CUT / C-SEAT-2: ``draws[s]`` are the cards seat ``s`` drew."""

    draws: tuple[tuple[int, ...], ...]
    dealer: int


@dataclass(slots=True)
class RoundDealt:
    round: int
    dealer: int
    seats: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    tiebreak: bool


@dataclass(slots=True, init=False)
class CardPlayed:
    seat: int
    card: int
    position: int
    call: str
    cards_left: int

    def __init__(self, seat: int, card: int, position: int, call: str, cards_left: int) -> None:
        self.seat = seat
        self.card = card
        self.position = position
        self.call = call
        self.cards_left = cards_left


@dataclass(slots=True, init=False)
class PassedOver:
    seat: int
    rank: int

    def __init__(self, seat: int, rank: int) -> None:
        self.seat = seat
        self.rank = rank


@dataclass(slots=True, init=False)
class Passed:
    seat: int
    rank: int

    def __init__(self, seat: int, rank: int) -> None:
        self.seat = seat
        self.rank = rank


@dataclass(slots=True, init=False)
class CoupletBotched:
    seat: int
    card: int
    position: int
    expected: str
    said: str

    def __init__(self, seat: int, card: int, position: int, expected: str, said: str) -> None:
        self.seat = seat
        self.card = card
        self.position = position
        self.expected = expected
        self.said = said


@dataclass(slots=True, init=False)
class RankCompleted:
    rank: int
    seat: int

    def __init__(self, rank: int, seat: int) -> None:
        self.rank = rank
        self.seat = seat


class CutShortReason(IntEnum):
    """C-PLAY-7. Values equal ``referee.v1.EarlOfCoventryCutShortReason``."""

    NO_HOLDER = 1
    ALL_DECLINED = 2


@dataclass(slots=True, init=False)
class RunCutShort:
    rank: int
    run_length: int
    leader: int
    reason: CutShortReason

    def __init__(self, rank: int, run_length: int, leader: int, reason: CutShortReason) -> None:
        self.rank = rank
        self.run_length = run_length
        self.leader = leader
        self.reason = reason


@dataclass(slots=True, init=False)
class LeadPassed:
    from_seat: int
    to_seat: int

    def __init__(self, from_seat: int, to_seat: int) -> None:
        self.from_seat = from_seat
        self.to_seat = to_seat


@dataclass(slots=True, init=False)
class PenaltyCharged:
    seat: int
    amount: int
    pool: int
    code: str

    def __init__(self, seat: int, amount: int, pool: int, code: str) -> None:
        self.seat = seat
        self.amount = amount
        self.pool = pool
        self.code = code


@dataclass(slots=True)
class Payment:
    from_seat: int
    cards_left: int
    amount: int


@dataclass(slots=True)
class RoundWon:
    seat: int
    round: int
    payments: tuple[Payment, ...]
    pool_collected: int


@dataclass(slots=True)
class SeatEliminated:
    seat: int


@dataclass(slots=True)
class TiebreakStarted:
    seats: tuple[int, ...]


@dataclass(slots=True)
class SessionEnded:
    winners: tuple[int, ...]


EarlEvent = (
    DealerCut
    | RoundDealt
    | CardPlayed
    | PassedOver
    | Passed
    | CoupletBotched
    | RankCompleted
    | RunCutShort
    | LeadPassed
    | PenaltyCharged
    | RoundWon
    | SeatEliminated
    | TiebreakStarted
    | SessionEnded
)


# ---------------------------------------------------------------- views


@dataclass(slots=True, init=False)
class SeatView:
    seat: int
    card_count: int
    hand: tuple[int, ...] | None
    rounds_won: int
    counters: int
    eliminated: bool
    dealt_in: bool

    def __init__(
        self,
        seat: int,
        card_count: int,
        hand: tuple[int, ...] | None,
        rounds_won: int,
        counters: int,
        eliminated: bool,
        dealt_in: bool,
    ) -> None:
        self.seat = seat
        self.card_count = card_count
        self.hand = hand
        self.rounds_won = rounds_won
        self.counters = counters
        self.eliminated = eliminated
        self.dealt_in = dealt_in


@dataclass(slots=True, init=False)
class EarlView:
    config: EarlConfig
    phase: Phase
    round: int
    dealer: int
    turn: int
    current_rank: int
    run_length: int
    last_player: int
    seats: tuple[SeatView, ...]
    played: bytes
    pool: int
    tiebreak: bool
    round_winner: int
    winners: tuple[int, ...]
    next_call: str

    def __init__(
        self,
        config: EarlConfig,
        phase: Phase,
        round: int,
        dealer: int,
        turn: int,
        current_rank: int,
        run_length: int,
        last_player: int,
        seats: tuple[SeatView, ...],
        played: bytes,
        pool: int,
        tiebreak: bool,
        round_winner: int,
        winners: tuple[int, ...],
        next_call: str,
    ) -> None:
        self.config = config
        self.phase = phase
        self.round = round
        self.dealer = dealer
        self.turn = turn
        self.current_rank = current_rank
        self.run_length = run_length
        self.last_player = last_player
        self.seats = seats
        self.played = played
        self.pool = pool
        self.tiebreak = tiebreak
        self.round_winner = round_winner
        self.winners = winners
        self.next_call = next_call


def hand_size_dealt(n_dealt: int, position_from_eldest: int) -> int:
    """C-DEAL-2: cards dealt to the seat at ``position_from_eldest`` among ``n_dealt`` seats."""
    return 52 // n_dealt + (1 if position_from_eldest < 52 % n_dealt else 0)
