"""An independent, slow, readable model of Earl of Coventry, written from the rulebooks only.

Sources (the specification, and nothing else):

- ``shared/rules/README.md``: seats, cards, the SHUF shuffle, the CUT, verdicts;
- ``shared/rules/earl-of-coventry.md``: the rulebook, every rule with an id;
- ``docs/rules/earl-of-coventry.md``: the project's violation codes and its decisions
  where the rulebook is silent.

It imports nothing from ``referee``: the shuffle (SHUF-1..3), the cut (CUT-1/2,
C-SEAT-2) and the couplet normalisation (C-CHANT-2) are written again here from the
text, so that ``tests/differential/test_earl_differential.py`` can play the same
session on this model and on the engine and compare them step by step.

Plain data, plain Python: cards are the canonical indexes of README "Cards"
(``13 * suit + rank``, clubs first, ace first), ranks are 0 (ace) .. 12 (king), seats
``0 .. n-1``. The model mutates itself; :meth:`EarlModel.apply` leaves it unchanged on
a rejected action. Clear over fast.
"""

from __future__ import annotations

import copy
import hashlib
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field

# ---------------------------------------------------------------- constants

TABLE = "table"
"""The table as an actor (C-SCORE-6): not a seat."""

PLAY, PASS, NEXT_ROUND, END_SESSION = "play", "pass", "next_round", "end_session"
PLAYING, BETWEEN_ROUNDS, SESSION_OVER = "playing", "between_rounds", "session_over"
ACCEPTED, REJECTED, PENALIZED = "accepted", "rejected", "penalized"

EARL, SNIP, SILENT, CUSTOM = "earl", "snip_snap_snorum", "silent", "custom"
SIMPLE, COUNTERS, ELIMINATION = "simple", "counters", "elimination"

# C-CHANT: the four couplets, lead first (rulebook text, verbatim).
COUPLETS = (
    "There's as good as {rank} can be.",
    "There's a {rank} as good as he.",
    "There's the best of all the three.",
    "And there's the Earl of Coventry.",
)
# C-CHANT-1: the English rank names, ace first (README "Cards": A, 2 .. 10, J, Q, K).
RANK_NAMES = (
    "Ace",
    "Two",
    "Three",
    "Four",
    "Five",
    "Six",
    "Seven",
    "Eight",
    "Nine",
    "Ten",
    "Jack",
    "Queen",
    "King",
)
JACK = 10
# C-VAR-2: Snip Snap Snorum calls for positions 2, 3, 4 (the lead needs none).
SNIP_CALLS: dict[int, tuple[str, ...]] = {2: ("Snip!",), 3: ("Snap!",), 4: ("Snorem!", "Snorum!")}

# The project's violation codes and the rule each cites (docs/rules, "Violation codes").
RULE_OF_CODE: dict[str, frozenset[str]] = {
    "NOT_YOUR_TURN": frozenset({"C-ILL-1"}),
    "CARD_NOT_IN_HAND": frozenset({"C-ILL-1"}),
    "WRONG_RANK": frozenset({"C-PLAY-4"}),
    "MUST_PLAY_RANK": frozenset({"C-PLAY-6"}),
    "LEADER_CANNOT_PASS": frozenset({"C-PLAY-6"}),
    "COUPLET_BOTCHED": frozenset({"C-CHANT-3"}),
    # "C-SCORE-5 / C-SCORE-4": eliminated, or sitting out a tie-break round.
    "SEAT_NOT_DEALT_IN": frozenset({"C-SCORE-5", "C-SCORE-4"}),
    "ROUND_IN_PROGRESS": frozenset({"C-SCORE-6"}),
    "ROUND_OVER": frozenset({"C-SCORE-6"}),
    "TABLE_ACTION_BY_SEAT": frozenset({"C-SCORE-6"}),
    "SEAT_ACTION_BY_TABLE": frozenset({"C-SCORE-6"}),
    "SESSION_OVER": frozenset({"C-SCORE-6"}),
    "ROUND_LIMIT": frozenset({"C-DEAL-1"}),
}
# C-ILL-1 (and C-PLAY-6, the passes C-ILL-1 names): the illegal plays Penalty Earl charges.
ILLEGAL_PLAY_CODES = frozenset(
    {"NOT_YOUR_TURN", "CARD_NOT_IN_HAND", "WRONG_RANK", "MUST_PLAY_RANK", "LEADER_CANNOT_PASS"}
)

CUT_SHUFFLE = 0xFFFFFFFF  # SHUF-4: the pack cut for the first dealer
# docs/rules "Round numbers": ordinary rounds go up to 0xFFFFFFFD, so that a tie-break
# round can always be dealt (0xFFFFFFFE); ROUND_LIMIT refuses a next round beyond.
LAST_ORDINARY_ROUND = 0xFFFFFFFD


def rank_of(card: int) -> int:
    """README "Cards": canonical order is suit-major, ace..king within a suit."""
    return card % 13


# ---------------------------------------------------------------- SHUF, CUT


def _shuffle_stream(seed: bytes, k: int) -> Iterator[int]:
    """SHUF-1: the bytes SHA-256("referee-shuffle-v1" || seed || k || c), c = 0, 1, ..."""
    c = 0
    while True:
        block = hashlib.sha256(
            b"referee-shuffle-v1" + seed + k.to_bytes(4, "big") + c.to_bytes(4, "big")
        ).digest()
        yield from block
        c += 1


def _uniform_below(stream: Iterator[int], m: int) -> int:
    """SHUF-2: 4 big-endian bytes, rejected at or above 2^32 - (2^32 mod m), then mod m."""
    while True:
        x = int.from_bytes(bytes(next(stream) for _ in range(4)), "big")
        if x < 2**32 - (2**32 % m):
            return x % m


def shuffled_pack(seed: bytes, k: int) -> list[int]:
    """SHUF-3: Fisher-Yates on the canonical 52-card deck from the top index down.

    Position 0 of the result is the top of the pack, the first card dealt."""
    pack = list(range(52))
    stream = _shuffle_stream(seed, k)
    for i in range(len(pack) - 1, 0, -1):
        j = _uniform_below(stream, i + 1)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def cut_for_dealer(seed: bytes, seats: int) -> tuple[int, list[list[int]]]:
    """CUT-1/2, C-SEAT-2: seat i gets card i of the cut pack; the LOWEST rank deals
    (aces low, suits ignored); tied seats draw again, in seat order, the next cards."""
    pack = shuffled_pack(seed, CUT_SHUFFLE)
    draws: list[list[int]] = [[] for _ in range(seats)]
    position = 0
    contenders = list(range(seats))
    while True:
        for s in contenders:  # in seat order
            draws[s].append(pack[position])
            position += 1
        lowest = min(rank_of(draws[s][-1]) for s in contenders)
        contenders = [s for s in contenders if rank_of(draws[s][-1]) == lowest]
        if len(contenders) == 1:
            return contenders[0], draws


# ---------------------------------------------------------------- C-CHANT-2

# "typographic apostrophes (U+2019, U+2018, U+02BC, U+201B, U+FF07) turned into '"
TYPOGRAPHIC_APOSTROPHES = "\u2019\u2018\u02bc\u201b\uff07"
# "any white space": the Unicode White_Space property (docs/rules, "C-CHANT-2 in Unicode
# terms"; U+001C..U+001F are NOT white space there, unlike Python's str.isspace).
WHITE_SPACE = frozenset(
    [chr(c) for c in range(0x09, 0x0E)]
    + [" ", "\u0085", "\u00a0", "\u1680"]
    + [chr(c) for c in range(0x2000, 0x200B)]
    + ["\u2028", "\u2029", "\u202f", "\u205f", "\u3000"]
)


def normalise(text: str) -> str:
    """C-CHANT-2, step by step as the rulebook lists the steps."""
    # letters lower-cased
    text = text.lower()
    # typographic apostrophes turned into '
    for ch in TYPOGRAPHIC_APOSTROPHES:
        text = text.replace(ch, "'")
    # any white space turned into a space
    text = "".join(" " if ch in WHITE_SPACE else ch for ch in text)
    # every character other than a letter (L*), a digit (Nd), ' or a space removed
    kept = []
    for ch in text:
        category = unicodedata.category(ch)
        if category.startswith("L") or category == "Nd" or ch in "' ":
            kept.append(ch)
    text = "".join(kept)
    # runs of spaces collapsed; leading and trailing spaces dropped
    words = text.split(" ")
    words = [w for w in words if w != ""]
    # then the whole words `there is` read as `there's` (whole words: bounded by spaces
    # or the ends; an apostrophe belongs to its word, docs/rules)
    out: list[str] = []
    i = 0
    while i < len(words):
        if words[i] == "there" and i + 1 < len(words) and words[i + 1] == "is":
            out.append("there's")
            i += 2
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)


def rank_forms(rank: int) -> list[str]:
    """C-CHANT-1: the English name; the numerals 2 .. 10 for Two .. Ten; Knave for Jack."""
    forms = [RANK_NAMES[rank]]
    if 1 <= rank <= 9:
        forms.append(str(rank + 1))
    if rank == JACK:
        forms.append("Knave")
    return forms


# ---------------------------------------------------------------- configuration


@dataclass(frozen=True)
class ModelConfig:
    """The options of a session (docs/rules "Configuration"), with the rulebook defaults."""

    seats: int = 4  # C-SEAT-1
    first_dealer: int | None = None  # C-SEAT-2: None means cut
    call_style: str = EARL  # C-VAR-0
    templates: tuple[str, ...] = ()  # C-VAR-5, with CUSTOM
    scoring: str = SIMPLE  # C-SCORE-0
    starting_counters: int = 20  # C-SCORE-2
    penalty_earl: bool = False  # C-VAR-4
    open_hands: bool = False  # C-VAR-6 (views only)
    holding_allowed: bool = False  # C-VAR-7

    @property
    def keeps_counters(self) -> bool:
        """Counters exist with counters/elimination scoring, or for Penalty Earl's pool."""
        return self.scoring != SIMPLE or self.penalty_earl

    def couplet_templates(self) -> tuple[str, ...]:
        return self.templates if self.call_style == CUSTOM else COUPLETS


# ---------------------------------------------------------------- actions, results


@dataclass(frozen=True)
class Action:
    """A proposed action: ``actor`` is a seat number or :data:`TABLE`."""

    actor: int | str
    kind: str
    card: int | None = None
    call: str = ""


@dataclass
class Result:
    """The model's answer to one action.

    ``violations`` are the (code, rule) pairs that MUST be reported, the first one the
    one Penalty Earl charges; ``may_also`` are codes an engine may add without being
    wrong (where neither book says whether one illegal action breaks one rule or
    several). ``events`` are tuples ``(kind, field, ...)``; ``penalties`` are
    ``(seat, counters moved)``.
    """

    verdict: str
    violations: list[str] = field(default_factory=list)
    may_also: set[str] = field(default_factory=set)
    events: list[tuple[object, ...]] = field(default_factory=list)
    penalties: list[tuple[int, int]] = field(default_factory=list)


# ---------------------------------------------------------------- the model


class EarlModel:
    """One session of Earl of Coventry (C-*), as plain mutable data."""

    def __init__(self, config: ModelConfig, seed: bytes) -> None:
        """``NewGame``: cut or fixed first dealer (C-SEAT-2), then deal round 0 (C-DEAL-1)."""
        n = config.seats
        assert 2 <= n <= 13, "C-SEAT-1"
        self.config = config
        self.seed = seed
        self.n = n
        self.phase = PLAYING
        self.round = 0
        self.hands: list[set[int]] = [set() for _ in range(n)]
        self.rounds_won = [0] * n
        self.counters = [config.starting_counters if config.keeps_counters else 0] * n
        self.eliminated: set[int] = set()
        self.dealt_in: set[int] = set()
        self.played: list[int] = []
        self.current_rank: int | None = None  # None: a lead is due
        self.run_length = 0
        self.turn = -1
        self.last_player = -1  # the player of the most recent card; the leader at a lead
        self.declined: set[int] = set()  # holders who declined since the most recent card
        self.pool = 0
        self.tiebreak = False
        self.round_winner: int | None = None
        self.winners: tuple[int, ...] = ()
        self.start_events: list[tuple[object, ...]] = []
        if config.first_dealer is None:
            dealer, draws = cut_for_dealer(seed, n)
            self.start_events.append(("dealer_cut", tuple(tuple(d) for d in draws), dealer))
        else:
            dealer = config.first_dealer
        self.dealer = dealer
        self._deal(set(range(n)), self.start_events)

    def clone(self) -> EarlModel:
        return copy.deepcopy(self)

    # ------------------------------------------------------------ seats

    def seats_clockwise_after(self, seat: int) -> list[int]:
        """Every seat once, starting at the left of ``seat`` and ending with ``seat``."""
        return [(seat + i) % self.n for i in range(1, self.n + 1)]

    def next_dealt_in_after(self, seat: int) -> int:
        """The next seat clockwise after ``seat`` that is dealt into the round (C-CHANT-3)."""
        return next(s for s in self.seats_clockwise_after(seat) if s in self.dealt_in)

    def holds_rank(self, seat: int, rank: int) -> bool:
        return any(rank_of(c) == rank for c in self.hands[seat])

    # ------------------------------------------------------------ the deal

    def _deal(self, seats: set[int], events: list[tuple[object, ...]]) -> None:
        """C-DEAL-1/2: shuffle ``round``, one card at a time, clockwise from the eldest
        (dealer's left), to ``seats`` only. C-PLAY-1: the eldest leads."""
        self.dealt_in = set(seats)
        order = [s for s in self.seats_clockwise_after(self.dealer) if s in seats]
        self.hands = [set() for _ in range(self.n)]
        for i, card in enumerate(shuffled_pack(self.seed, self.round)):
            self.hands[order[i % len(order)]].add(card)
        self.phase = PLAYING
        self.played = []
        self.current_rank = None
        self.run_length = 0
        self.declined = set()
        self.turn = self.last_player = order[0]  # the eldest
        self.round_winner = None
        events.append(
            (
                "round_dealt",
                self.round,
                self.dealer,
                tuple(sorted(seats)),
                tuple(len(self.hands[s]) for s in sorted(seats)),
                self.tiebreak,
            )
        )

    # ------------------------------------------------------------ couplets

    def calls_due(self, rank: int, position: int) -> list[str] | None:
        """The calls that match at ``position`` (1..4) of a run of ``rank``, before
        normalisation; ``None`` when any text is accepted (C-VAR-2 lead, C-VAR-3)."""
        style = self.config.call_style
        if style == SILENT:
            return None  # C-VAR-3: whatever text is ignored
        if style == SNIP:
            if position == 1:
                return None  # C-VAR-2: a lead cannot be botched
            return list(SNIP_CALLS[position])
        template = self.config.couplet_templates()[position - 1]
        # C-CHANT-1 (also in custom templates); docs: one form of the rank per couplet.
        return [template.replace("{rank}", form) for form in rank_forms(rank)]

    def canonical_call(self, rank: int, position: int) -> str:
        """The couplet as written, with the English rank name ("" when none is needed)."""
        due = self.calls_due(rank, position)
        return "" if due is None else due[0]

    def call_matches(self, call: str, rank: int, position: int) -> bool:
        """C-CHANT-2: equal after normalisation to one of the calls due."""
        due = self.calls_due(rank, position)
        if due is None:
            return True
        return normalise(call) in {normalise(d) for d in due}

    # ------------------------------------------------------------ legal actions

    def legal_actions(self, actor: int | str) -> set[tuple[int | str, str, int | None]]:
        """Every legal ``(actor, kind, card)``; a play's couplet is :meth:`canonical_call`."""
        if self.phase == SESSION_OVER:
            return set()
        if self.phase == BETWEEN_ROUNDS:
            # C-SCORE-6: only the table acts between rounds.
            if actor != TABLE:
                return set()
            if self.round + 1 > LAST_ORDINARY_ROUND:
                return {(TABLE, END_SESSION, None)}  # docs: ROUND_LIMIT
            return {(TABLE, NEXT_ROUND, None), (TABLE, END_SESSION, None)}
        if actor == TABLE or actor != self.turn:
            return set()  # C-SCORE-6: no table action during a round; C-ILL-1 turn
        hand = self.hands[actor]
        if self.current_rank is None:
            return {(actor, PLAY, c) for c in hand}  # C-PLAY-2: lead any card; never pass
        out: set[tuple[int | str, str, int | None]] = {
            (actor, PLAY, c) for c in hand if rank_of(c) == self.current_rank
        }  # C-PLAY-4
        if self.config.holding_allowed:
            out.add((actor, PASS, None))  # C-VAR-7
        return out

    def all_legal_actions(self) -> set[tuple[int | str, str, int | None]]:
        out = self.legal_actions(TABLE)
        for s in range(self.n):
            out |= self.legal_actions(s)
        return out

    # ------------------------------------------------------------ apply

    def apply(self, action: Action) -> Result:
        """The verdict on ``action`` (README "Verdicts"); the model moves on unless rejected."""
        a = action
        table_kind = a.kind in (NEXT_ROUND, END_SESSION)
        if self.phase == SESSION_OVER:
            return self._reject(
                "SESSION_OVER",
                {"ROUND_OVER", "TABLE_ACTION_BY_SEAT", "SEAT_ACTION_BY_TABLE", "SEAT_NOT_DEALT_IN"},
            )
        if a.actor == TABLE:
            if not table_kind:  # C-SCORE-6: a seat's action sent by the table
                other = "ROUND_IN_PROGRESS" if self.phase == PLAYING else "ROUND_OVER"
                return self._reject("SEAT_ACTION_BY_TABLE", {other})
            if self.phase == PLAYING:
                return self._reject("ROUND_IN_PROGRESS")  # C-SCORE-6
            return self._next_round() if a.kind == NEXT_ROUND else self._end_session()
        assert isinstance(a.actor, int)
        seat = a.actor
        if table_kind:  # C-SCORE-6: a table action sent by a seat
            other = "ROUND_IN_PROGRESS" if self.phase == PLAYING else "ROUND_OVER"
            return self._reject(
                "TABLE_ACTION_BY_SEAT", {other, "SEAT_NOT_DEALT_IN", "NOT_YOUR_TURN"}
            )
        if self.phase == BETWEEN_ROUNDS:
            return self._reject("ROUND_OVER", {"SEAT_NOT_DEALT_IN"})  # C-SCORE-6
        if seat not in self.dealt_in:
            # C-VAR-4: "actions of seats not dealt in ... are plainly rejected", with
            # every rule the action breaks (docs/rules/earl-of-coventry.md): such a seat
            # is never on turn and holds no card (C-ILL-1).
            violations = ["SEAT_NOT_DEALT_IN", "NOT_YOUR_TURN"]
            may_also: set[str] = set()
            if a.kind != PASS:
                assert a.card is not None
                violations.append("CARD_NOT_IN_HAND")
                if self.current_rank is not None and rank_of(a.card) != self.current_rank:
                    may_also.add("WRONG_RANK")  # as for any card not held (_seat_acts)
            return Result(REJECTED, violations, may_also)
        return self._seat_acts(a, seat)

    def _reject(self, code: str, may_also: set[str] | None = None) -> Result:
        return Result(REJECTED, [code], may_also or set())

    def _seat_acts(self, a: Action, seat: int) -> Result:
        """A seat dealt into the round acts during the round: C-ILL-1, C-PLAY-*, C-CHANT-*."""
        violations: list[str] = []
        may_also: set[str] = set()
        leading = self.current_rank is None
        if seat != self.turn:
            violations.append("NOT_YOUR_TURN")  # C-ILL-1 "acting when not on turn"
        if a.kind == PASS:
            # docs: "A pass out of turn is NOT_YOUR_TURN alone".
            if seat == self.turn:
                if leading:
                    violations.append("LEADER_CANNOT_PASS")  # C-PLAY-6
                elif not self.config.holding_allowed:
                    # The search only stops at holders (C-PLAY-3): the seat holds the rank.
                    violations.append("MUST_PLAY_RANK")  # C-PLAY-6, C-ILL-1
        else:
            assert a.card is not None
            held = a.card in self.hands[seat]
            wrong_rank = not leading and rank_of(a.card) != self.current_rank
            if not held:
                violations.append("CARD_NOT_IN_HAND")  # C-ILL-1
            if wrong_rank:
                if held and seat == self.turn:
                    violations.append("WRONG_RANK")  # C-PLAY-4, C-ILL-1, C-CHANT-4
                else:
                    # Not held, or out of turn: whether the wrong rank is named too is
                    # not settled by either book.
                    may_also.add("WRONG_RANK")
        if violations:
            if not self.config.penalty_earl:
                return Result(REJECTED, violations, may_also)  # C-ILL-1: nothing changes
            # C-VAR-4: one counter into the pool, under the first code; the turn stays.
            result = Result(PENALIZED, violations, may_also)
            self._charge(seat, violations[0], result)
            return result
        if a.kind == PASS:
            result = Result(ACCEPTED)
            assert self.current_rank is not None
            result.events.append(("passed", seat, self.current_rank))
            self.declined.add(seat)
            self._search_after_decline(seat, result)  # C-PLAY-3, C-PLAY-7(b)
            return result
        assert a.card is not None
        position = 1 if leading else self.run_length + 1
        if not self.call_matches(a.call, rank_of(a.card), position):
            return self._botched(seat, a.card, position)  # C-CHANT-3
        return self._play(seat, a.card, position)

    def _charge(self, seat: int, code: str, result: Result) -> None:
        """C-VAR-4: one counter into the pool, none if the seat has none (still penalized)."""
        amount = 1 if self.counters[seat] > 0 else 0
        self.counters[seat] -= amount
        self.pool += amount
        result.events.append(("penalty_charged", seat, amount, self.pool, code))
        result.penalties.append((seat, amount))

    def _botched(self, seat: int, card: int, position: int) -> Result:
        """C-CHANT-3: the card goes back to hand; the turn moves on as after a pass."""
        result = Result(PENALIZED, ["COUPLET_BOTCHED"])
        result.events.append(("couplet_botched", seat, card, position))
        if self.config.penalty_earl:
            self._charge(seat, "COUPLET_BOTCHED", result)
        if position == 1:
            # "if they were leading, the lead passes to the player on their left"
            # (the next seat dealt in, docs/rules).
            left = self.next_dealt_in_after(seat)
            result.events.append(("lead_passed", seat, left))
            self.turn = self.last_player = left
        else:
            # "if they were matching, to the next holder after them (C-PLAY-3)"
            self.declined.add(seat)
            self._search_after_decline(seat, result)
        return result

    def _play(self, seat: int, card: int, position: int) -> Result:
        """A legal card with a matching call: C-PLAY-2/4/5/7/8."""
        result = Result(ACCEPTED)
        self.hands[seat].remove(card)
        self.played.append(card)
        rank = rank_of(card)
        result.events.append(("card_played", seat, card, position, len(self.hands[seat])))
        self.current_rank = rank
        self.run_length = position
        self.last_player = seat
        self.declined = set()  # a new card: everyone may be asked again
        if not self.hands[seat]:
            self._round_won(seat, result)  # C-PLAY-8: even mid-rank, even on a lead
            return result
        if position == 4:
            # C-PLAY-5: the Earl leads the next rank.
            result.events.append(("rank_completed", rank, seat))
            self._lead_due(seat)
            return result
        self._search_after_card(seat, result)
        return result

    def _lead_due(self, leader: int) -> None:
        self.current_rank = None
        self.run_length = 0
        self.declined = set()
        self.turn = self.last_player = leader

    def _search_after_card(self, player: int, result: Result) -> None:
        """C-PLAY-3: from the left of ``player`` all the way round to ``player``; every
        seat skipped is a public pass-over event. C-PLAY-7(a) first."""
        rank = self.current_rank
        assert rank is not None
        if not any(self.holds_rank(s, rank) for s in self.dealt_in):
            # C-PLAY-7(a): no one holds the rank any more; no pass-over events.
            result.events.append(("run_cut_short", rank, self.run_length, player, "NO_HOLDER"))
            self._lead_due(player)
            return
        self._search(self.seats_clockwise_after(player), result)

    def _search_after_decline(self, decliner: int, result: Result) -> None:
        """C-PLAY-3 after a pass or a botch: from the left of the decliner up to the player
        of the most recent card, skipping holders who declined since that card; nobody
        left: C-PLAY-7(b), the player of the most recent card leads."""
        rank = self.current_rank
        assert rank is not None
        arc: list[int] = []
        for s in self.seats_clockwise_after(decliner):
            arc.append(s)
            if s == self.last_player:
                break
        if not self._search(arc, result):
            leader = self.last_player
            result.events.append(("run_cut_short", rank, self.run_length, leader, "ALL_DECLINED"))
            self._lead_due(leader)

    def _search(self, arc: list[int], result: Result) -> bool:
        """Give the turn to the first holder of the rank in ``arc`` who has not declined;
        one ``passed_over`` event per seat dealt in skipped on the way (C-PLAY-3)."""
        rank = self.current_rank
        assert rank is not None
        skipped: list[int] = []
        for s in arc:
            if s in self.dealt_in and s not in self.declined and self.holds_rank(s, rank):
                for t in skipped:
                    result.events.append(("passed_over", t, rank))
                self.turn = s
                return True
            if s in self.dealt_in:  # a seat not dealt in is no player of the round
                skipped.append(s)
        return False

    # ------------------------------------------------------------ scoring

    def _round_won(self, winner: int, result: Result) -> None:
        """C-PLAY-8 then C-SCORE-1..5 and C-VAR-4's pool."""
        self.round_winner = winner
        self.rounds_won[winner] += 1  # C-SCORE-1
        payments: list[tuple[int, int, int]] = []
        if self.config.scoring != SIMPLE and not self.tiebreak:
            # C-SCORE-2: each opponent pays one counter per card left, capped.
            for s in self.seats_clockwise_after(winner):
                if s == winner or s not in self.dealt_in:
                    continue
                left = len(self.hands[s])
                amount = min(left, self.counters[s])
                self.counters[s] -= amount
                self.counters[winner] += amount
                payments.append((s, left, amount))
        collected = self.pool  # C-VAR-4: the round winner collects the whole pool
        self.counters[winner] += collected
        self.pool = 0
        result.events.append(("round_won", winner, self.round, tuple(payments), collected))
        # The run is over with the round.
        self.current_rank = None
        self.run_length = 0
        self.declined = set()
        if self.tiebreak:
            # C-SCORE-4: the tie-break winner wins the session.
            self._session_over((winner,), result)
            return
        self.phase = BETWEEN_ROUNDS
        if self.config.scoring == ELIMINATION:
            # C-SCORE-5: no counters left after the payments: eliminated.
            for s in sorted(self.dealt_in):
                if self.counters[s] == 0:
                    self.eliminated.add(s)
                    result.events.append(("seat_eliminated", s))
            still_in = [s for s in range(self.n) if s not in self.eliminated]
            if len(still_in) == 1:
                self._session_over((still_in[0],), result)

    def _session_over(self, winners: tuple[int, ...], result: Result) -> None:
        self.phase = SESSION_OVER
        self.winners = winners
        result.events.append(("session_ended", winners))

    def _next_round(self) -> Result:
        """C-SCORE-6 next round: C-SEAT-3 dealer, C-DEAL-1/2 with shuffle ``round + 1``."""
        if self.round + 1 > LAST_ORDINARY_ROUND:
            return self._reject("ROUND_LIMIT")  # docs/rules "Round numbers", C-DEAL-1
        result = Result(ACCEPTED)
        seats_in = {s for s in range(self.n) if s not in self.eliminated}
        self.round += 1
        self.dealer = next(s for s in self.seats_clockwise_after(self.dealer) if s in seats_in)
        self._deal(seats_in, result.events)
        return result

    def _end_session(self) -> Result:
        """C-SCORE-6 / C-SCORE-4: end the session, or deal the tie-break round at once."""
        result = Result(ACCEPTED)
        if self.config.scoring == SIMPLE:
            # C-SCORE-6: standings by rounds won; the whole best group (docs: winners).
            best = max(self.rounds_won)
            self._session_over(
                tuple(s for s in range(self.n) if self.rounds_won[s] == best), result
            )
            return result
        still_in = [s for s in range(self.n) if s not in self.eliminated]
        most = max(self.counters[s] for s in still_in)
        tied = [s for s in still_in if self.counters[s] == most]
        if len(tied) == 1:
            self._session_over((tied[0],), result)
            return result
        # C-SCORE-4: the tied seats alone, next shuffle, dealer = next tied seat clockwise
        # after the last dealer (C-SEAT-3: sitting out is "not dealt in").
        result.events.append(("tiebreak_started", tuple(tied)))
        self.tiebreak = True
        self.round += 1
        self.dealer = next(s for s in self.seats_clockwise_after(self.dealer) if s in tied)
        self._deal(set(tied), result.events)
        return result

    # ------------------------------------------------------------ standings

    def standings(self) -> list[tuple[int, ...]]:
        """docs/rules "Standings", once over: winners first, then the other seats grouped
        by counters (counters, elimination) or rounds won (simple), best first."""
        rest = [s for s in range(self.n) if s not in self.winners]
        key = self.rounds_won if self.config.scoring == SIMPLE else self.counters
        groups: list[tuple[int, ...]] = [self.winners] if self.winners else []
        for value in sorted({key[s] for s in rest}, reverse=True):
            groups.append(tuple(s for s in rest if key[s] == value))
        return groups
