"""An independent model of Écarté, written from the rulebooks only.

This is the *oracle* of the differential test ``test_ecarte_differential.py``. It
was written from ``shared/rules/README.md``, ``shared/rules/ecarte.md`` and the
project's own decisions in ``docs/rules/ecarte.md`` (cited as D-n) without
looking at the engine's rules code, so that the two can be compared. It is meant
to be slow and obviously correct, not fast:

- cards are strings in the rulebook notation (``"KS"``, ``"10H"``, ``"AC"``);
- the state is a mutable dataclass, deep-copied on every action;
- the legal actions are found by trying every candidate action against the one
  function that judges actions (:func:`violations`), so "legal" and "accepted"
  cannot drift apart;
- the shuffle (SHUF-1 .. SHUF-4) and the cut (CUT-1, CUT-2, E-SEAT-2) are
  implemented here from their text, with :mod:`hashlib`;
- every accepted action records its events (docs "Events") as plain tuples;
- :func:`config_errors` gives the configuration ranges (E-CONF).

The one place where the model was changed after meeting the engine is marked in
:func:`_specific_violations` (an open reading of D-6, not a rule bug).

Nothing in this module imports the engine.
"""

from __future__ import annotations

import copy
import hashlib
from collections import Counter
from dataclasses import dataclass, field
from itertools import combinations
from typing import Final

Card = str

SUITS: Final = "CDHS"
"""Suit letters in canonical order (README "Cards")."""
RANKS: Final = ("A", "7", "8", "9", "10", "J", "Q", "K")
"""Écarté ranks in canonical order within a suit (README "Cards")."""
ECARTE_ORDER: Final = ("7", "8", "9", "10", "A", "J", "Q", "K")
"""E-DECK-2, lowest first: the ace ranks between the jack and the ten."""

DECK: Final[tuple[Card, ...]] = tuple(r + s for s in SUITS for r in RANKS)
"""E-DECK-1: the 32 cards in canonical order (AC, 7C, ... KC, AD, ...)."""

CUT_SHUFFLE: Final = 0xFFFFFFFF  # SHUF-4: the pack used to cut for the first dealer
HAND: Final = 5  # E-DEAL-2
MAX_SPECTATOR_ID: Final = 128  # D-12

# Phases (docs/rules/ecarte.md "Phases").
PROPOSAL: Final = "PROPOSAL"
ANSWER: Final = "ANSWER"
ELDER_DISCARD: Final = "ELDER_DISCARD"
RESPONDER_DISCARD: Final = "RESPONDER_DISCARD"
TRICKS: Final = "TRICKS"
MATCH_OVER: Final = "MATCH_OVER"

# Action kinds.
PROPOSE: Final = "propose"
ACCEPT: Final = "accept"
REFUSE: Final = "refuse"
DISCARD: Final = "discard"
PLAY: Final = "play"
ANNOUNCE: Final = "announce_king"
WAGER: Final = "wager"
KINDS: Final = (PROPOSE, ACCEPT, REFUSE, DISCARD, PLAY, ANNOUNCE, WAGER)

# The turn actions each phase allows (E-PHASE; docs "Phases").
PHASE_ACTIONS: Final[dict[str, frozenset[str]]] = {
    PROPOSAL: frozenset({PROPOSE, PLAY}),  # E-EXCH-1: the lead is the decision to play
    ANSWER: frozenset({ACCEPT, REFUSE}),  # E-EXCH-3
    ELDER_DISCARD: frozenset({DISCARD}),  # E-EXCH-5
    RESPONDER_DISCARD: frozenset({DISCARD}),  # E-EXCH-6
    TRICKS: frozenset({PLAY}),  # E-PLAY-1, E-EXCH-4
    MATCH_OVER: frozenset(),  # E-END-3
}


def rank(card: Card) -> str:
    return card[:-1]


def suit(card: Card) -> str:
    return card[-1]


def strength(card: Card) -> int:
    """E-DECK-2: 0 for a seven ... 7 for a king."""
    return ECARTE_ORDER.index(rank(card))


# ---------------------------------------------------------------- SHUF and CUT


class _Stream:
    """SHUF-1: the byte stream of shuffle ``k``, read 4 bytes at a time."""

    def __init__(self, seed: bytes, k: int) -> None:
        self.seed = seed
        self.k = k
        self.block = 0
        self.buffer = b""

    def read_u32(self) -> int:
        while len(self.buffer) < 4:
            self.buffer += hashlib.sha256(
                b"referee-shuffle-v1"
                + self.seed
                + self.k.to_bytes(4, "big")
                + self.block.to_bytes(4, "big")
            ).digest()
            self.block += 1
        word, self.buffer = self.buffer[:4], self.buffer[4:]
        return int.from_bytes(word, "big")

    def below(self, m: int) -> int:
        """SHUF-2: a uniform integer below ``m`` by rejection."""
        while True:
            x = self.read_u32()
            if x < 2**32 - (2**32 % m):
                return x % m


def shuffled(seed: bytes, k: int) -> list[Card]:
    """SHUF-3: Fisher–Yates from the top index down on the canonical deck; [0] is the top."""
    pack = list(DECK)
    stream = _Stream(seed, k)
    for i in range(len(pack) - 1, 0, -1):
        j = stream.below(i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def cut_for_dealer(seed: bytes, seats: int) -> tuple[int, list[list[Card]]]:
    """CUT-1, CUT-2, E-SEAT-2, D-22: seat i takes card i of the cut pack; the lowest
    Écarté card deals (suits ignored); tied lowest seats draw the next cards, in seat
    order, until one is lowest. Returns the dealer and every seat's draws."""
    pack = shuffled(seed, CUT_SHUFFLE)
    position = 0
    contenders = list(range(seats))
    draws: list[list[Card]] = [[] for _ in range(seats)]
    while True:
        drawn: dict[int, Card] = {}
        for s in contenders:
            drawn[s] = pack[position]
            draws[s].append(pack[position])
            position += 1
        lowest = min(strength(c) for c in drawn.values())
        contenders = [s for s in contenders if strength(drawn[s]) == lowest]
        if len(contenders) == 1:
            return contenders[0], draws


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class Config:
    """Every option of docs/rules/ecarte.md "Configuration", with the book's defaults."""

    seats: int = 2  # E-SEAT-1, 3 = à trois (E-VAR-5)
    first_dealer: int | None = None  # E-SEAT-2: None = cut
    packets: str = "3-2"  # E-DEAL-2: "3-2" or "2-3"
    target: int = 5  # E-VAR-1
    games_to_win: int = 1  # E-VAR-2
    stake: int = 0  # E-VAR-3 (0: off)
    vole_multiplier: int = 2  # E-VAR-3
    king_multiplier: int = 2  # E-VAR-3
    gallery: bool = False  # E-VAR-4
    wager_limit: int = 100  # E-VAR-4
    jeux_de_regle: bool = False  # E-VAR-6


def config_errors(config: Config) -> list[str]:
    """E-CONF and the ranges of docs "Configuration" (D-9): the options out of range.
    A configuration out of range is an error of the request, not a verdict."""
    errors = []
    if config.seats not in (2, 3):  # E-SEAT-1, E-VAR-5
        errors.append("seats")
    if config.first_dealer is not None and not 0 <= config.first_dealer < config.seats:
        errors.append("first_dealer")  # E-SEAT-2
    if config.packets not in ("3-2", "2-3"):  # E-DEAL-2
        errors.append("packets")
    ranges = {
        "target": (config.target, 1, 99),  # E-VAR-1
        "games_to_win": (config.games_to_win, 1, 9),  # E-VAR-2
        "stake": (config.stake, 0, 1_000_000),  # E-CONF, D-9
        "vole_multiplier": (config.vole_multiplier, 1, 100),  # E-CONF, D-9
        "king_multiplier": (config.king_multiplier, 1, 100),  # E-CONF, D-9
        "wager_limit": (config.wager_limit, 1, 1_000_000),  # E-VAR-4, E-CONF
    }
    errors += [k for k, (v, lo, hi) in ranges.items() if not lo <= v <= hi]
    return errors


# ---------------------------------------------------------------- actions and verdicts


@dataclass(frozen=True)
class Action:
    """An action. ``actor``: a seat number, a spectator id (str), or None for the table.
    ``card`` for play, ``cards`` for discard, ``on`` and ``amount`` for a wager. In the
    listed wagers ``amount`` .. ``amount_max`` is the range of legal amounts."""

    actor: int | str | None
    kind: str
    card: Card | None = None
    cards: tuple[Card, ...] = ()
    on: int | None = None
    amount: int = 0
    amount_max: int = 0


ACCEPTED: Final = "accepted"
REJECTED: Final = "rejected"
ERROR: Final = "error"  # malformed: INVALID_ARGUMENT, not a verdict


@dataclass(frozen=True)
class Broken:
    """One broken rule: the project's code (docs "Violation codes") and the rule id."""

    code: str
    rule_id: str


# ---------------------------------------------------------------- state


@dataclass
class State:
    """The whole match. Per-seat lists have ``config.seats`` entries."""

    config: Config
    seed: bytes
    first_dealer: int
    deal: int = 0
    dealer: int = 0
    phase: str = PROPOSAL
    turn: int = 0
    hands: list[set[Card]] = field(default_factory=list)
    discards: list[set[Card]] = field(default_factory=list)
    turn_up: Card = ""
    stock: list[Card] = field(default_factory=list)  # top first
    plays: list[Card] = field(default_factory=list)  # cards played this deal, in order
    leaders: list[int] = field(default_factory=list)  # the leader of each trick begun
    tricks_won: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    games_won: list[int] = field(default_factory=list)
    chips: list[int] = field(default_factory=list)
    king_announced: int | None = None
    exchanged: bool = False  # E-EXCH-9: has an exchange happened in this deal?
    wagers: list[tuple[str, int, int]] = field(default_factory=list)  # (spectator, on, amount)
    nets: dict[str, int] = field(default_factory=dict)  # E-VAR-4 settled results (D-13)
    winner: int | None = None  # of the match
    events: list[tuple[object, ...]] = field(default_factory=list)  # of the last action

    # Roles (E-VAR-5, D-1).
    @property
    def n(self) -> int:
        return self.config.seats

    @property
    def elder(self) -> int:
        """The player to the dealer's left (README "Seats")."""
        return (self.dealer + 1) % self.n

    @property
    def responder(self) -> int:
        """Two seats: the dealer. À trois: the player to the dealer's right (E-VAR-5)."""
        return self.dealer if self.n == 2 else (self.dealer - 1) % self.n

    @property
    def trump(self) -> str:
        """E-DEAL-3: the suit of the turned-up card."""
        return suit(self.turn_up)

    @property
    def king_of_trumps(self) -> Card:
        return "K" + self.trump

    @property
    def led(self) -> bool:
        """Has the first card of the first trick been led (E-KING-1, E-VAR-4)?"""
        return bool(self.plays)

    def emit(self, *event: object) -> None:
        """Record an event (docs "Events": names and fields as the engine's, in the
        order things happen)."""
        self.events.append(event)

    def other(self, seat: int) -> int:
        """The other player of the deal (E-VAR-3, E-VAR-5, D-10)."""
        return self.responder if seat == self.elder else self.elder


def new_game(config: Config, seed: bytes) -> State:
    """The first state: first dealer fixed or cut for (E-SEAT-2), deal 0 dealt."""
    n = config.seats
    events: list[tuple[object, ...]] = []
    if config.first_dealer is not None:
        first = config.first_dealer
    else:
        first, draws = cut_for_dealer(seed, n)
        events.append(("dealer_cut", tuple(tuple(d) for d in draws), first))
    state = State(
        config=config,
        seed=seed,
        first_dealer=first,
        deal=0,
        points=[0] * n,
        games_won=[0] * n,
        chips=[0] * n,
        events=events,
    )
    _deal(state)
    return state


def _deal(state: State) -> None:
    """Deal number ``state.deal`` (E-DEAL-1 .. E-DEAL-4, E-SEAT-3, D-2)."""
    n = state.n
    state.dealer = (state.first_dealer + state.deal) % n  # E-SEAT-3, D-2
    pack = shuffled(state.seed, state.deal)  # E-DEAL-1, SHUF-4
    e, r = state.elder, state.responder
    if state.config.packets == "3-2":  # E-DEAL-2
        elder_pos, responder_pos = (0, 1, 2, 6, 7), (3, 4, 5, 8, 9)
    else:
        elder_pos, responder_pos = (0, 1, 4, 5, 6), (2, 3, 7, 8, 9)
    state.hands = [set() for _ in range(n)]
    state.hands[e] = {pack[i] for i in elder_pos}
    state.hands[r] = {pack[i] for i in responder_pos}  # à trois: the dealer sits out
    state.discards = [set() for _ in range(n)]
    state.turn_up = pack[10]  # E-DEAL-3
    state.stock = pack[11:]
    state.plays = []
    state.leaders = []
    state.tricks_won = [0] * n
    state.king_announced = None
    state.exchanged = False
    state.phase = PROPOSAL  # E-EXCH-1
    state.turn = e
    state.emit(
        "dealt",
        state.deal,
        sum(state.games_won),
        state.dealer,
        e,
        r,
        state.turn_up,
        len(state.stock),
        tuple(len(h) for h in state.hands),
        tuple(frozenset(h) for h in state.hands),
    )
    if rank(state.turn_up) == "K":  # E-DEAL-4: the turned king scores for the responder
        state.emit("king_turned", r, state.turn_up)
        _score(state, r, 1, "TURNED_KING", state.config.stake * state.config.king_multiplier)


def _score(state: State, seat: int, points: int, reason: str, chips: int) -> bool:
    """Score ``points`` for ``seat``, paid ``chips`` by the other player of the deal
    (E-VAR-3, D-10). Ends the game if the target is reached (E-END-1); returns whether
    the game ended."""
    state.points[seat] += points
    payer = -1
    if chips:
        payer = state.other(seat)
        state.chips[seat] += chips
        state.chips[payer] -= chips
    state.emit("points_scored", seat, reason, points, state.points[seat], chips, payer)
    if state.points[seat] >= state.config.target:
        _end_game(state, seat)
        return True
    return False


def _end_game(state: State, winner: int) -> None:
    """E-END-1, E-END-2, E-VAR-4 settlement (D-13), E-DEAL-5."""
    state.emit("game_won", sum(state.games_won), winner, tuple(state.points))
    state.games_won[winner] += 1
    for spectator, on, amount in state.wagers:  # even money, in the order placed
        state.nets[spectator] = state.nets.get(spectator, 0) + (amount if on == winner else -amount)
        state.emit("wager_settled", spectator, on, amount, on == winner, state.nets[spectator])
    state.wagers = []
    if state.games_won[winner] >= state.config.games_to_win:
        state.phase = MATCH_OVER  # E-END-3; cards and points stay as they are (D-8, D-18)
        state.winner = winner
        state.emit("match_won", winner, tuple(state.games_won))
        return
    state.points = [0] * state.n  # E-END-2: scores restart at 0
    _next_deal(state)


def _next_deal(state: State) -> None:
    """E-DEAL-5: the next deal, with the next shuffle number, dealt at once."""
    state.deal += 1
    _deal(state)


def _score_deal(state: State) -> None:
    """E-SCORE-1 .. E-SCORE-3, E-VAR-3 after the fifth trick (E-PLAY-8)."""
    e, r = state.elder, state.responder
    winner = e if state.tricks_won[e] >= 3 else r
    vole = state.tricks_won[winner] == 5
    points = 2 if vole else 1  # E-SCORE-1, E-SCORE-2
    # E-SCORE-3: original hands and the elder won fewer than 3 tricks: raise the dealer's.
    raised = not state.exchanged and winner == r
    if raised:
        points += 1
    state.emit(
        "deal_scored",
        state.deal,
        winner,
        tuple(state.tricks_won),
        vole,
        raised,
        not state.exchanged,
    )
    stake = state.config.stake
    chips = points * stake * (state.config.vole_multiplier if vole else 1)  # E-VAR-3
    if not _score(state, winner, points, "VOLE" if vole else "POINT", chips):
        _next_deal(state)


# ---------------------------------------------------------------- jeux de règle


def is_jeu_de_regle(hand: set[Card], trump: str) -> bool:
    """E-VAR-6 (a)-(d), read as D-17 says: "two"/"one" trump exactly, "three cards",
    "two kings" and the like at least; the king of trumps is never a plain king."""
    trumps = sum(1 for c in hand if suit(c) == trump)
    plain = [c for c in hand if suit(c) != trump]
    plain_kings = [c for c in plain if rank(c) == "K"]
    longest_plain = max(Counter(suit(c) for c in plain).values(), default=0)
    king_queen = any("K" + s in hand and "Q" + s in hand for s in SUITS if s != trump)
    if trumps >= 3:  # (a)
        return True
    if trumps == 2:  # (b)
        return bool(plain_kings) or longest_plain >= 3
    if trumps == 1:  # (c)
        return longest_plain >= 4 or len(plain_kings) >= 2 or king_queen
    return len(plain_kings) >= 3  # (d)


# ---------------------------------------------------------------- judging actions


def malformed(state: State, action: Action) -> bool:
    """Errors of the request, not verdicts (ecarte.md "Actions in general", D-5, D-12,
    D-15): no known kind, the table acting, an unknown seat or spectator id, a card
    outside the pack, a card named twice in a discard, a wager on no seat."""
    if action.kind not in KINDS:
        return True
    actor = action.actor
    if actor is None:  # D-15
        return True
    if isinstance(actor, int) and not 0 <= actor < state.n:
        return True
    if isinstance(actor, str) and not 1 <= len(actor) <= MAX_SPECTATOR_ID:
        return True
    if action.kind == PLAY and action.card not in DECK:
        return True
    if action.kind == DISCARD and (
        any(c not in DECK for c in action.cards) or len(set(action.cards)) != len(action.cards)
    ):
        return True
    return action.kind == WAGER and (action.on is None or not 0 <= action.on < state.n)


def violations(state: State, action: Action) -> list[Broken]:
    """Every rule ``action`` breaks in ``state`` (empty: legal). D-6 decides how the
    rules combine: E-TURN, E-PHASE and E-CARD together, E-KING-3 for the king's
    announcer whenever it names the king in a discard; the other specific checks only
    for the seat on turn in a phase that allows the action; announcing and wagering by
    their own rules only. The seat sitting out (D-16) is named first, with the rest."""
    actor = action.actor
    if state.phase == MATCH_OVER:  # E-END-3
        return [Broken("MATCH_OVER", "E-END-3")]
    if isinstance(actor, str):
        return _spectator_violations(state, action)
    assert isinstance(actor, int)
    if action.kind == WAGER:  # E-VAR-4, D-12: seats cannot wager
        return [Broken("SEAT_CANNOT_WAGER", "E-VAR-4")]
    out: list[Broken] = []
    if state.n == 3 and actor == state.dealer:  # E-VAR-5, D-16: with every other rule
        out.append(Broken("SEAT_SITS_OUT", "E-VAR-5"))
    if action.kind == ANNOUNCE:
        return out + _king_violations(state, actor)
    on_turn = actor == state.turn
    if not on_turn:  # E-TURN
        out.append(Broken("NOT_YOUR_TURN", "E-TURN"))
    in_phase = action.kind in PHASE_ACTIONS[state.phase]
    if not in_phase:  # E-PHASE
        out.append(Broken("WRONG_PHASE", "E-PHASE"))
    named = [action.card] if action.kind == PLAY else list(action.cards)
    hand = state.hands[actor]
    if any(c not in hand for c in named):  # E-CARD
        out.append(Broken("CARD_NOT_IN_HAND", "E-CARD"))
    # E-KING-3 binds the king's holder (its announcer), on turn or not; another seat
    # naming it does not hold it: E-CARD alone (D-6; the differential test found the
    # engine naming E-KING-3 there too, since fixed).
    king = state.king_of_trumps
    announcer = state.king_announced == actor and king in hand
    if action.kind == DISCARD and announcer and king in action.cards:
        out.append(Broken("ANNOUNCED_KING_DISCARDED", "E-KING-3"))
    if on_turn and in_phase:
        out += _specific_violations(state, action)
    return out


def _spectator_violations(state: State, action: Action) -> list[Broken]:
    """E-VAR-4, D-11, D-12."""
    if action.kind != WAGER:
        return [Broken("SPECTATOR_CANNOT_PLAY", "E-VAR-4")]
    if not state.config.gallery:
        return [Broken("WAGERS_NOT_ALLOWED", "E-VAR-4")]
    out = []
    if state.led:  # only before the first lead of the deal
        out.append(Broken("WAGER_WINDOW_CLOSED", "E-VAR-4"))
    if action.amount <= 0:
        out.append(Broken("WAGER_NOT_POSITIVE", "E-VAR-4"))
    if action.amount > state.config.wager_limit:
        out.append(Broken("WAGER_OVER_LIMIT", "E-VAR-4"))
    return out


def _king_violations(state: State, seat: int) -> list[Broken]:
    """E-KING-1, E-KING-2, E-KING-5 (not a turn action: no E-TURN, no E-PHASE)."""
    out = []
    if state.led:  # E-KING-1: the right is lost at the first lead
        out.append(Broken("KING_TOO_LATE", "E-KING-1"))
    if state.king_of_trumps not in state.hands[seat]:  # E-KING-2; a turned-up king: D-7
        out.append(Broken("KING_NOT_HELD", "E-KING-2"))
    if state.king_announced is not None:  # E-KING-5
        out.append(Broken("KING_ALREADY_ANNOUNCED", "E-KING-5"))
    return out


def _specific_violations(state: State, action: Action) -> list[Broken]:
    """The checks that apply to the seat on turn in the right phase (D-6)."""
    out = []
    seat = action.actor
    assert isinstance(seat, int)
    if action.kind == PROPOSE:
        if len(state.stock) < 2:  # E-EXCH-2, D-3
            out.append(Broken("STOCK_TOO_SMALL", "E-EXCH-2"))
        if state.config.jeux_de_regle and is_jeu_de_regle(state.hands[seat], state.trump):
            out.append(Broken("JEU_DE_REGLE", "E-VAR-6"))  # E-VAR-6, D-17
    elif action.kind == DISCARD:
        count = len(action.cards)
        if state.phase == ELDER_DISCARD:  # E-EXCH-5: 1..5 and at most stock - 1
            if not 1 <= count <= min(5, len(state.stock) - 1):
                out.append(Broken("DISCARD_COUNT", "E-EXCH-5"))
        elif not 1 <= count <= min(5, len(state.stock)):  # E-EXCH-6
            out.append(Broken("DISCARD_COUNT", "E-EXCH-6"))
    elif action.kind == PLAY and len(state.plays) % 2 == 1 and action.card in state.hands[seat]:
        # E-PLAY-3 .. 5 judge a card the follower holds; a card not held is E-CARD alone.
        # D-6 leaves this open ("every rule broken" could also name E-PLAY-3 for a card
        # of another suit not held); the engine's reading, found by the differential
        # test, is reasonable and adopted. Discards differ: E-CARD does not stop the
        # count check (E-EXCH-5/6): the count is the discard's, held or not.
        out += _follow_violations(state, seat, action.card or "")
    return out


def _follow_violations(state: State, seat: int, card: Card) -> list[Broken]:
    """E-PLAY-3 .. E-PLAY-6 for the second card of a trick."""
    led = state.plays[-1]
    hand = state.hands[seat]
    same_suit = [c for c in hand if suit(c) == suit(led)]
    if same_suit:
        if suit(card) != suit(led):  # E-PLAY-3
            return [Broken("MUST_FOLLOW_SUIT", "E-PLAY-3")]
        higher = [c for c in same_suit if strength(c) > strength(led)]
        if higher and strength(card) <= strength(led):  # E-PLAY-4, trumps led too
            return [Broken("MUST_BEAT", "E-PLAY-4")]
        return []
    if any(suit(c) == state.trump for c in hand) and suit(card) != state.trump:  # E-PLAY-5
        return [Broken("MUST_TRUMP", "E-PLAY-5")]
    return []  # E-PLAY-6


# ---------------------------------------------------------------- legal actions


def candidates(state: State, actor: int | str | None) -> list[Action]:
    """Every well-formed action ``actor`` could name that might be legal."""
    if actor is None:
        return []  # D-15: the table has no action
    if isinstance(actor, str):
        return [
            Action(actor, WAGER, on=s, amount=1, amount_max=state.config.wager_limit)
            for s in range(state.n)
        ]
    hand = sorted(state.hands[actor], key=DECK.index)
    out = [Action(actor, k) for k in (PROPOSE, ACCEPT, REFUSE, ANNOUNCE)]
    out += [Action(actor, PLAY, card=c) for c in hand]
    for size in range(1, HAND + 1):
        out += [Action(actor, DISCARD, cards=combo) for combo in combinations(hand, size)]
    return out


def legal_actions(state: State, actor: int | str | None) -> list[Action]:
    """The candidates that break no rule (a wager range stands for every amount in it:
    its two ends are checked)."""
    out = []
    for a in candidates(state, actor):
        if a.kind == WAGER:
            top = Action(a.actor, WAGER, on=a.on, amount=a.amount_max)
            if violations(state, a) or violations(state, top):
                continue
        elif violations(state, a):
            continue
        out.append(a)
    return out


# ---------------------------------------------------------------- applying


@dataclass
class Result:
    verdict: str
    violations: list[Broken]
    state: State


def apply(state: State, action: Action) -> Result:
    """Judge ``action``; if legal, return the new state (``state`` is never changed)."""
    if malformed(state, action):
        return Result(ERROR, [], state)
    broken = violations(state, action)
    if broken:
        return Result(REJECTED, broken, state)
    new = copy.deepcopy(state)
    new.events = []
    _perform(new, action)
    return Result(ACCEPTED, [], new)


def _perform(state: State, action: Action) -> None:
    e, r = state.elder, state.responder
    kind = action.kind
    if kind == WAGER:  # E-VAR-4: public, open until the game ends
        assert isinstance(action.actor, str) and action.on is not None
        state.wagers.append((action.actor, action.on, action.amount))
        state.emit("wager_placed", action.actor, action.on, action.amount)
        return
    seat = action.actor
    assert isinstance(seat, int)
    if kind == ANNOUNCE:  # E-KING-1: 1 point at once; E-KING-4 may end the game
        state.king_announced = seat
        state.emit("king_announced", seat, state.king_of_trumps)
        _score(state, seat, 1, "ANNOUNCED_KING", state.config.stake * state.config.king_multiplier)
    elif kind == PROPOSE:  # E-EXCH-3: the responder answers
        state.phase, state.turn = ANSWER, r
        state.emit("proposed", seat)
    elif kind == ACCEPT:  # E-EXCH-5: the elder discards first
        state.phase, state.turn = ELDER_DISCARD, e
        state.emit("accepted", seat)
    elif kind == REFUSE:  # E-EXCH-4: the elder leads
        state.phase, state.turn = TRICKS, e
        state.emit("refused", seat)
    elif kind == DISCARD:  # E-EXCH-5/6/8: discard, then draw as many from the top
        count = len(action.cards)
        state.hands[seat] -= set(action.cards)
        state.discards[seat] |= set(action.cards)
        drawn = state.stock[:count]
        state.hands[seat] |= set(drawn)
        state.stock = state.stock[count:]
        state.exchanged = True  # E-EXCH-9
        state.emit(
            "exchanged", seat, count, frozenset(action.cards), frozenset(drawn), len(state.stock)
        )
        if state.phase == ELDER_DISCARD:
            state.phase, state.turn = RESPONDER_DISCARD, r  # E-EXCH-6
        else:
            state.phase, state.turn = PROPOSAL, e  # E-EXCH-7
    elif kind == PLAY:
        _play(state, seat, action.card or "")


def _play(state: State, seat: int, card: Card) -> None:
    """E-PLAY-1, E-PLAY-7, E-PLAY-8."""
    state.phase = TRICKS  # a lead in PROPOSAL is playing without proposing (E-EXCH-1)
    state.hands[seat].discard(card)
    state.plays.append(card)
    state.emit("card_played", seat, card)
    if len(state.plays) % 2 == 1:  # a lead: the other player answers
        state.leaders.append(seat)
        state.turn = state.other(seat)
        return
    led, answer = state.plays[-2], state.plays[-1]
    leader = state.leaders[-1]
    follower = state.other(leader)
    trump = state.trump
    trumped = suit(answer) == trump and suit(led) != trump  # E-PLAY-7: the trump wins
    beaten = suit(answer) == suit(led) and strength(answer) > strength(led)  # higher (D-25)
    winner = follower if trumped or beaten else leader
    state.tricks_won[winner] += 1
    state.emit("trick_won", len(state.plays) // 2 - 1, winner, leader, (led, answer))
    state.turn = winner  # E-PLAY-1: the winner leads next
    if len(state.plays) == 2 * HAND:  # E-PLAY-8: all five tricks
        _score_deal(state)
