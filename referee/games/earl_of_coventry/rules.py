"""The rules of Earl of Coventry (docs/rules/earl-of-coventry.md, rule ids C-*).

``legal_actions`` is the single source of truth for legality: ``apply``
accepts a play exactly when ``legal_actions`` lists one with that actor and
card, and then judges the call text (C-CHANT-3). ``apply`` never mutates its
input. Both assume a state that passed ``validate`` (the service validates
every state on the way in).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Final

from referee.cards import FULL_DECK, RANK_MASKS, RANK_NAMES, card_list, name
from referee.games.base import (
    TABLE_ACTOR,
    Actor,
    ActorKind,
    FieldViolation,
    Findings,
    InvalidInput,
    OptionSpec,
    OptionType,
    Outcome,
    Penalty,
    Scoreboard,
    SeatScore,
    VariantSpec,
    Verdict,
    Viewer,
    ViewerKind,
    Violation,
    check_once,
)
from referee.games.earl_of_coventry.calls import CallStyle, call_table
from referee.games.earl_of_coventry.state import (
    DEFAULT_COUNTERS,
    DEFAULT_SEATS,
    MAX_COUNTERS,
    MAX_ROUND,
    MAX_SEATS,
    MIN_SEATS,
    NO_RANK,
    NO_SEAT,
    ActionKind,
    CardPlayed,
    CoupletBotched,
    CutShortReason,
    DealerCut,
    EarlAction,
    EarlConfig,
    EarlEvent,
    EarlState,
    EarlView,
    LeadPassed,
    Passed,
    PassedOver,
    Payment,
    PenaltyCharged,
    Phase,
    RankCompleted,
    RoundDealt,
    RoundWon,
    RunCutShort,
    Scoring,
    SeatEliminated,
    SeatView,
    SessionEnded,
    TiebreakStarted,
    hand_size_dealt,
)
from referee.shuffle import SEED_BYTES, cut_for_dealer, shuffle

GAME_ID: Final = "earl_of_coventry"
RULES_VERSION: Final = "earl_of_coventry/1"

# Violation codes (stable).
NOT_YOUR_TURN: Final = "NOT_YOUR_TURN"
CARD_NOT_IN_HAND: Final = "CARD_NOT_IN_HAND"
WRONG_RANK: Final = "WRONG_RANK"
MUST_PLAY_RANK: Final = "MUST_PLAY_RANK"
LEADER_CANNOT_PASS: Final = "LEADER_CANNOT_PASS"
COUPLET_BOTCHED: Final = "COUPLET_BOTCHED"
SEAT_NOT_DEALT_IN: Final = "SEAT_NOT_DEALT_IN"
ROUND_IN_PROGRESS: Final = "ROUND_IN_PROGRESS"
ROUND_OVER: Final = "ROUND_OVER"
TABLE_ACTION_BY_SEAT: Final = "TABLE_ACTION_BY_SEAT"
SEAT_ACTION_BY_TABLE: Final = "SEAT_ACTION_BY_TABLE"
SESSION_OVER: Final = "SESSION_OVER"
ROUND_LIMIT: Final = "ROUND_LIMIT"

_FULL_POPCOUNT: Final = 52
_NOT_CARDS: Final = bytes(range(52, 256))  # the byte values that are no card code


@lru_cache(maxsize=4096)
def _standings(key: tuple[int, ...], winners: tuple[int, ...]) -> tuple[tuple[int, ...], ...]:
    """Seats grouped by ``key`` (counters or rounds won), best first (C-SCORE-4/6).

    Once the session is over its winners come first: the winner of a tie-break round
    (C-SCORE-4) may hold no more counters than the seat it beat."""
    groups: dict[int, list[int]] = {}
    for s, value in enumerate(key):
        if s not in winners:
            groups.setdefault(value, []).append(s)
    standings = tuple(tuple(groups[k]) for k in sorted(groups, reverse=True))
    if winners:
        standings = (tuple(sorted(winners)), *standings)
    return standings


@lru_cache(maxsize=4096)
def _dealt(
    seed: bytes, round_number: int, dealer: int, dealt_in: int, n: int
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """C-DEAL-1/C-DEAL-2: shuffle ``round_number`` dealt one card at a time, clockwise from
    the eldest, to the seats of ``dealt_in``: (the seats in dealing order, each seat's
    cards as a mask). Remembered: validation compares every hand with it."""
    order: list[int] = []
    seat = dealer
    for _ in range(dealt_in.bit_count()):
        seat = _next_in(dealt_in, seat, n)
        order.append(seat)
    hands = [0] * n
    k = len(order)
    for i, card in enumerate(shuffle(seed, round_number, FULL_DECK)):
        hands[order[i % k]] |= 1 << card
    return tuple(order), tuple(hands)


_BYTE: Final = tuple(bytes((c,)) for c in range(256))
_SEAT_ACTORS: Final = tuple(Actor.of_seat(s) for s in range(MAX_SEATS))


class _ActionTable:
    """Every seat action of one call table (call style and templates), built once for
    the most seats a table has: ``plays[seat][position][card]`` (position 0 = a lead)
    carries the canonical call; ``passes[seat]``."""

    __slots__ = ("calls", "passes", "plays")

    def __init__(self, style: CallStyle, templates: tuple[str, ...]) -> None:
        self.calls = call_table(style, templates)
        canonical = self.calls.canonical
        self.plays = tuple(
            tuple(
                tuple(
                    EarlAction(Actor.of_seat(seat), ActionKind.PLAY, c, canonical[c % 13][p])
                    for c in range(52)
                )
                for p in range(4)
            )
            for seat in range(MAX_SEATS)
        )
        self.passes = tuple(
            EarlAction(Actor.of_seat(seat), ActionKind.PASS) for seat in range(MAX_SEATS)
        )


# About 200 KiB each (2,704 actions): few are kept.
_tables = lru_cache(maxsize=16)(_ActionTable)


def _actions(config: EarlConfig) -> _ActionTable:
    """The action table of ``config``'s call table. The built-in call styles have one
    each, shared by all their configurations, and memoized on each (hashing on every
    call would cost more than the lookup saves). A table of custom templates is looked up
    each time: memoized, it would live as long as its configuration in the codecs'
    caches, 4,096 of them (once, one table per configuration: 800 MiB for 4,096
    configurations a client made up)."""
    table = config.memo
    if table is None:
        table = _tables(config.call_style, config.couplet_templates)
        if config.call_style is not CallStyle.CUSTOM:
            object.__setattr__(config, "memo", table)
    return table  # type: ignore[no-any-return]


@lru_cache(maxsize=4096)
def _dealt_sizes(dealer: int, dealt_in: int, n: int) -> tuple[int, ...]:
    """C-DEAL-2: the cards each seat was dealt (0 when not dealt in), by seat."""
    sizes = [0] * n
    n_dealt = dealt_in.bit_count()
    seat = dealer
    for pos in range(n_dealt):
        seat = _next_in(dealt_in, seat, n)
        sizes[seat] = hand_size_dealt(n_dealt, pos)
    return tuple(sizes)


def _next_in(mask: int, after: int, n: int) -> int:
    """The first seat of ``mask`` clockwise after seat ``after`` (``after`` itself last)."""
    for i in range(1, n + 1):
        s = (after + i) % n
        if mask >> s & 1:
            return s
    return NO_SEAT


class EarlOfCoventryRules:
    """Earl of Coventry and its variants, as one stateless object (see ``RULES``)."""

    game_id = GAME_ID
    title = "Earl of Coventry"
    rules_version = RULES_VERSION
    rules_document = "docs/rules/earl-of-coventry.md"
    description = (
        "A 17th-century English shedding game for 2 to 13 players: ranks are played "
        "out in runs of four with chanted couplets; the first to empty the hand wins "
        "the round. Includes Snip Snap Snorum, Silent Earl, Penalty Earl, regional "
        "couplets, open hands, holding allowed, counters and elimination."
    )
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options = (
        OptionSpec(
            "seats",
            "Number of seats.",
            OptionType.INTEGER,
            str(DEFAULT_SEATS),
            "C-SEAT-1",
            MIN_SEATS,
            MAX_SEATS,
        ),
        OptionSpec(
            "first_dealer",
            "The first dealer; absent: the seats cut, lowest card deals, aces low.",
            OptionType.INTEGER,
            "",
            "C-SEAT-2",
            0,
            MAX_SEATS - 1,
        ),
        OptionSpec(
            "call_style",
            "Couplets (earl), short calls (snip snap snorum), none (silent) or custom.",
            OptionType.ENUM,
            "EARL_OF_COVENTRY_CALL_STYLE_EARL",
            "C-VAR-0",
            choices=tuple(f"EARL_OF_COVENTRY_CALL_STYLE_{c.name}" for c in CallStyle),
        ),
        OptionSpec(
            "couplet_templates",
            "With the custom call style: four templates (lead, 2nd, 3rd, 4th) with an "
            "optional {rank} placeholder.",
            OptionType.STRING_LIST,
            "",
            "C-VAR-5",
            4,
            4,
        ),
        OptionSpec(
            "scoring",
            "Simple (rounds won), counters (paid per card left) or elimination.",
            OptionType.ENUM,
            "EARL_OF_COVENTRY_SCORING_SIMPLE",
            "C-SCORE-0",
            choices=tuple(f"EARL_OF_COVENTRY_SCORING_{s.name}" for s in Scoring),
        ),
        OptionSpec(
            "starting_counters",
            "Counters each seat starts with (counters, elimination, Penalty Earl).",
            OptionType.INTEGER,
            str(DEFAULT_COUNTERS),
            "C-SCORE-2",
            1,
            MAX_COUNTERS,
        ),
        OptionSpec(
            "penalty_earl",
            "Botched couplets and illegal plays cost a counter into a pool won by the "
            "round winner.",
            OptionType.BOOL,
            "false",
            "C-VAR-4",
        ),
        OptionSpec(
            "open_hands",
            "Every hand is visible in every view.",
            OptionType.BOOL,
            "false",
            "C-VAR-6",
        ),
        OptionSpec(
            "holding_allowed",
            "A player on turn may pass while holding the current rank.",
            OptionType.BOOL,
            "false",
            "C-VAR-7",
        ),
    )
    variants = (
        VariantSpec(
            "earl_of_coventry",
            "Earl of Coventry",
            "C-VAR-1",
            "The four couplets, ending with 'And there's the Earl of Coventry.'",
            (("call_style", "EARL_OF_COVENTRY_CALL_STYLE_EARL"),),
        ),
        VariantSpec(
            "snip_snap_snorum",
            "Snip Snap Snorum",
            "C-VAR-2",
            "Short calls: Snip!, Snap!, Snorum!",
            (("call_style", "EARL_OF_COVENTRY_CALL_STYLE_SNIP_SNAP_SNORUM"),),
        ),
        VariantSpec(
            "silent_earl",
            "Silent Earl",
            "C-VAR-3",
            "No couplets at all.",
            (("call_style", "EARL_OF_COVENTRY_CALL_STYLE_SILENT"),),
        ),
        VariantSpec(
            "penalty_earl",
            "Penalty Earl",
            "C-VAR-4",
            "A counter into the pool for each botched couplet or illegal play.",
            (("penalty_earl", "true"),),
        ),
        VariantSpec(
            "hiccup",
            "Hiccup / Earl's Court",
            "C-VAR-5",
            "Regional wordings of the couplets: set four templates.",
            (("call_style", "EARL_OF_COVENTRY_CALL_STYLE_CUSTOM"),),
        ),
        VariantSpec(
            "open_hands",
            "Open hands",
            "C-VAR-6",
            "Hands face up on the table.",
            (("open_hands", "true"),),
        ),
        VariantSpec(
            "holding_allowed",
            "Holding allowed",
            "C-VAR-7",
            "A player may keep a matching card for later.",
            (("holding_allowed", "true"),),
        ),
        VariantSpec(
            "counters",
            "Counters",
            "C-SCORE-2",
            "Losers pay the winner a counter per card left.",
            (("scoring", "EARL_OF_COVENTRY_SCORING_COUNTERS"),),
        ),
        VariantSpec(
            "elimination",
            "Elimination",
            "C-SCORE-5",
            "Counters; a seat with none is out; the last seat with counters wins.",
            (("scoring", "EARL_OF_COVENTRY_SCORING_ELIMINATION"),),
        ),
    )

    # ------------------------------------------------------------ start

    def new_game(self, config: EarlConfig, seed: bytes) -> tuple[EarlState, list[EarlEvent]]:
        """C-SEAT-2 (cut or fixed dealer), then round 0 is dealt (C-DEAL-1, C-DEAL-2)."""
        config.check()
        if len(seed) != SEED_BYTES:
            raise InvalidInput.one("seed", "must be 32 bytes (SHUF)")
        n = config.seats
        events: list[EarlEvent] = []
        if config.first_dealer is None:
            # C-SEAT-2: lowest card deals, aces low, suits do not matter.
            dealer, draws = cut_for_dealer(seed, FULL_DECK, n, key=lambda c: c % 13)
            events.append(DealerCut(tuple(tuple(d) for d in draws), dealer))
        else:
            dealer = config.first_dealer
        start = config.starting_counters if config.uses_counters else 0
        state = EarlState(
            config=config,
            seed=seed,
            phase=Phase.PLAYING,
            round=0,
            dealer=dealer,
            hands=(0,) * n,
            rounds_won=(0,) * n,
            counters=(start,) * n,
            eliminated=0,
            dealt_in=(1 << n) - 1,
            played=b"",
            current_rank=NO_RANK,
            run_length=0,
            turn=0,
            last_player=0,
            pool=0,
            tiebreak=False,
            round_winner=NO_SEAT,
            winners=(),
        )
        self._deal(state, 0, dealer, (1 << n) - 1, False, events)
        return state, events

    def _deal(
        self,
        s: EarlState,
        round_number: int,
        dealer: int,
        dealt_in: int,
        tiebreak: bool,
        events: list[EarlEvent],
    ) -> None:
        """C-DEAL-1/C-DEAL-2: deal shuffle ``round_number`` one card at a time from the eldest.

        Mutates ``s``, which must be a fresh copy.
        """
        order, hands = _dealt(s.seed, round_number, dealer, dealt_in, s.config.seats)
        s.phase = Phase.PLAYING
        s.round = round_number
        s.dealer = dealer
        s.hands = tuple(hands)
        s.dealt_in = dealt_in
        s.played = b""
        s.current_rank = NO_RANK
        s.run_length = 0
        eldest = order[0]
        s.turn = eldest  # C-PLAY-1
        s.last_player = eldest
        s.tiebreak = tiebreak
        s.round_winner = NO_SEAT
        events.append(
            RoundDealt(
                round_number,
                dealer,
                tuple(order),
                tuple(hands[x].bit_count() for x in order),
                tiebreak,
            )
        )

    # ------------------------------------------------------------ validation

    def validate(self, state: EarlState, *, check_deal: bool = True) -> None:
        """Raise :class:`InvalidInput` unless ``state`` is a possible state of these rules.

        With ``check_deal`` (always, for states from requests) every hand must hold only
        cards the seed dealt to that seat in this round: hands cannot be edited. Tests that
        build positions by hand pass ``check_deal=False``."""
        try:
            check_once(state.config)
        except InvalidInput as e:
            raise e.prefixed("config") from None
        cfg = state.config
        n = cfg.seats
        errors: list[FieldViolation] = []
        findings = Findings(errors)
        bad = findings.bad  # not a nested function: no reference cycle per call

        if len(state.seed) != SEED_BYTES:
            bad("seed", "must be 32 bytes")
        if not (len(state.hands) == len(state.rounds_won) == len(state.counters) == n):
            bad("seats", f"must list exactly {n} seats (config.seats)")
            raise findings.invalid()
        all_seats = (1 << n) - 1
        for path, value in (("dealer", state.dealer), ("turn", state.turn)):
            if not 0 <= value < n:
                bad(path, "is not a seat of the table")
        if not 0 <= state.last_player < n:
            bad("last_player", "is not a seat of the table")
        # Ordinary rounds stop one short of MAX_ROUND so that a tie-break round can
        # always be dealt (C-SCORE-4); shuffle 0xFFFFFFFF is the cut pack (SHUF-4).
        if not 0 <= state.round <= (MAX_ROUND if state.tiebreak else MAX_ROUND - 1):
            bad("round", "is out of range")
        if errors:
            raise findings.invalid()

        # Every card exactly once across hands and the played pile (C-DECK-1).
        seen = 0
        for s, h in enumerate(state.hands):
            if h >> 52:
                bad(f"seats[{s}].hand", "holds an unknown card code")
            if h & seen:
                bad(f"seats[{s}].hand", "holds a card that appears elsewhere")
            seen |= h
        played = state.played
        played_mask = 0
        clean = True  # every code a card, none twice: one pass, the cost of a valid state
        for c in played:
            if c >= 52 or played_mask >> c & 1:
                clean = False
                break
            played_mask |= 1 << c
        if not clean:
            # Each code that is no card is a violation: named while the findings keep them,
            # counted beyond (a state may hold millions: a string each would cost more
            # than the request).
            unknown = len(played) - len(played.translate(None, _NOT_CARDS))
            for i, c in enumerate(played):
                if not unknown or findings.full():
                    break
                if c >= 52:
                    bad(f"played[{i}]", "is an unknown card code")
                    unknown -= 1
            findings.more += unknown
            if len(set(played)) != len(played):
                bad("played", "a card appears twice")
        elif played:
            if played_mask & seen:
                twice = ", ".join(name(c) for c in card_list(played_mask & seen))
                bad("played", f"{twice} also in a hand")
            seen |= played_mask
        if not errors and seen.bit_count() != _FULL_POPCOUNT:
            missing = ", ".join(name(c) for c in card_list(((1 << 52) - 1) & ~seen))
            bad("seats", f"cards are missing: {missing}")

        # Seats dealt in, eliminated, counters (C-SCORE-2 .. C-SCORE-5, C-VAR-4).
        if state.dealt_in & ~all_seats or state.eliminated & ~all_seats:
            bad("seats", "seat flags out of range")
        playing = state.phase is Phase.PLAYING
        alive = all_seats & ~state.eliminated
        # ``dealt_in`` describes the current round, or the last one between rounds and
        # once the session is over: the seats eliminated at its end were dealt into it.
        if state.dealt_in & state.eliminated and (playing or state.tiebreak):
            bad("seats", "an eliminated seat cannot be dealt in (C-SCORE-5)")
        if state.eliminated and cfg.scoring is not Scoring.ELIMINATION:
            bad("seats", "seats are eliminated only under elimination scoring (C-SCORE-5)")
        n_dealt = state.dealt_in.bit_count()
        if n_dealt < 2:
            bad("seats", "at least two seats are dealt in")
        if not state.tiebreak and alive & ~state.dealt_in:
            bad("seats", "every seat not eliminated is dealt in (C-DEAL-2)")
        for s in range(n):
            if not state.dealt_in >> s & 1 and state.hands[s]:
                bad(f"seats[{s}].hand", "a seat not dealt in holds no cards")
            if state.counters[s] < 0 or state.counters[s] > MAX_COUNTERS * MAX_SEATS:
                bad(f"seats[{s}].counters", "is out of range")
            if state.eliminated >> s & 1 and state.counters[s]:
                bad(f"seats[{s}].counters", "an eliminated seat has no counters (C-SCORE-5)")
            if state.rounds_won[s] < 0:
                bad(f"seats[{s}].rounds_won", "is out of range")
        if cfg.uses_counters:
            if sum(state.counters) + state.pool != cfg.starting_counters * n:
                bad(
                    "seats",
                    "counters are not conserved: stacks and pool must sum to "
                    "starting_counters x seats (C-SCORE-2)",
                )
        elif any(state.counters) or state.pool:
            bad("seats", "counters are kept only with counters scoring or Penalty Earl")
        if state.pool and not cfg.penalty_earl:
            bad("pool", "there is a pool only under Penalty Earl (C-VAR-4)")
        elif state.pool < 0:
            bad("pool", "is out of range")
        elif state.pool and not playing:
            bad("pool", "the round winner has collected the pool (C-VAR-4)")
        if not state.dealt_in >> state.dealer & 1:
            bad("dealer", "the dealer is dealt in (C-SEAT-3)")
        if state.tiebreak:
            self._validate_tiebreak(state, bad)
        finished_rounds = state.round + (0 if state.phase is Phase.PLAYING else 1)
        if sum(state.rounds_won) != finished_rounds:
            bad("seats", "rounds won must add up to the rounds finished")

        # Hand sizes: no seat holds more than it was dealt (C-DEAL-2).
        for s, dealt in enumerate(_dealt_sizes(state.dealer, state.dealt_in, n)):
            if state.hands[s].bit_count() > dealt:
                bad(f"seats[{s}].hand", "holds more cards than were dealt to it (C-DEAL-2)")
        if check_deal and not errors and len(state.seed) == SEED_BYTES and n_dealt >= 2:
            # Cards only leave a hand: each holds only cards the seed dealt it (C-DEAL-1/2).
            _, dealt_hands = _dealt(state.seed, state.round, state.dealer, state.dealt_in, n)
            for s in range(n):
                if state.hands[s] & ~dealt_hands[s]:
                    bad(
                        f"seats[{s}].hand",
                        "holds cards the seed did not deal to it this round (C-DEAL-1, C-DEAL-2)",
                    )

        if state.phase is not Phase.PLAYING:
            w = state.round_winner
            if not 0 <= w < n or not state.dealt_in >> w & 1 or state.hands[w]:
                bad("round_winner", "the round winner has emptied the hand (C-PLAY-8)")
            for s in range(n):
                if s != w and state.dealt_in >> s & 1 and not state.hands[s]:
                    bad(f"seats[{s}].hand", "only the round winner emptied the hand (C-PLAY-8)")
                if (
                    cfg.scoring is Scoring.ELIMINATION
                    and not state.tiebreak
                    and not state.eliminated >> s & 1
                    and not state.counters[s]
                ):
                    bad(
                        f"seats[{s}].counters",
                        "a seat left without counters after a round is eliminated (C-SCORE-5)",
                    )
        if state.phase is Phase.PLAYING:
            self._validate_play(state, findings)
        elif state.phase is Phase.BETWEEN_ROUNDS:
            if state.tiebreak:
                bad("tiebreak", "a tie-break round ends the session (C-SCORE-4)")
            if state.winners:
                bad("winners", "the session is not over")
        elif state.phase is Phase.SESSION_OVER:
            if not state.winners or any(not 0 <= w < n for w in state.winners):
                bad("winners", "a finished session has winners")
            if len(set(state.winners)) != len(state.winners):
                bad("winners", "lists a seat twice")
        else:
            bad("phase", "is unknown")
        if errors:
            raise findings.invalid()

    @staticmethod
    def _validate_tiebreak(state: EarlState, bad: Callable[[str, str], None]) -> None:
        """C-SCORE-4: a tie-break round is dealt only with counters, when the table ends
        the session after at least one round (C-SCORE-6), to exactly the seats that
        shared the most counters. Counters do not move in it but for Penalty Earl's
        pool, which only its seats feed (the previous round's winner collected the
        last one), so while it is played its seats' counters and the pool add up to
        that most, times their number; each has at most that, every other seat still
        in less. Once it is over its winner alone wins the session."""
        cfg = state.config
        if not cfg.pays_per_card:
            bad("tiebreak", "a tie-break round is played only with counters (C-SCORE-4)")
            return
        if state.round == 0:
            bad("tiebreak", "a tie-break round follows at least one round (C-SCORE-4, C-SCORE-6)")
            return
        if state.phase is Phase.SESSION_OVER:
            if state.winners != (state.round_winner,):
                bad("winners", "the tie-break round's winner alone wins (C-SCORE-4)")
            return
        if state.phase is not Phase.PLAYING:
            return  # between rounds: reported by the phase's own check
        n = cfg.seats
        tied = [s for s in range(n) if state.dealt_in >> s & 1]
        if len(tied) < 2:
            return  # reported as such ("at least two seats are dealt in")
        total = state.pool + sum(state.counters[s] for s in tied)
        most = total // len(tied)
        shared = total % len(tied) == 0 and all(state.counters[s] <= most for s in tied)
        if not shared or any(
            state.counters[s] >= most
            for s in range(n)
            if not state.dealt_in >> s & 1 and not state.eliminated >> s & 1
        ):
            bad(
                "tiebreak",
                "a tie-break round is dealt to exactly the seats that share the most "
                "counters (C-SCORE-4)",
            )

    def _validate_play(self, state: EarlState, findings: Findings) -> None:
        bad = findings.bad

        n = state.config.seats
        if state.round_winner != NO_SEAT:
            bad("round_winner", "the round is still being played")
        if state.winners:
            bad("winners", "the session is not over")
        for s in range(n):
            if state.dealt_in >> s & 1 and not state.hands[s]:
                bad(f"seats[{s}].hand", "an empty hand ends the round (C-PLAY-8)")
        seats_ok = True
        if not state.dealt_in >> state.turn & 1:
            bad("turn", "points to a seat not dealt in")
            seats_ok = False
        if not state.dealt_in >> state.last_player & 1:
            bad("last_player", "points to a seat not dealt in")
            seats_ok = False
        if state.run_length == 0:
            if state.current_rank != NO_RANK:
                bad("current_rank", "must be unspecified when a lead is due")
            if seats_ok and state.turn != state.last_player:
                self._blame_lead(state, bad)
        elif not 1 <= state.run_length <= 3:
            bad("run_length", "must be 0 .. 3 (a fourth card ends the run, C-PLAY-5)")
        elif not 0 <= state.current_rank < 13:
            bad("current_rank", "a run under way has a rank")
        else:
            run = state.run_cards()
            if len(run) != state.run_length or any(c % 13 != state.current_rank for c in run):
                bad("played", "the last run_length cards played must be of the current rank")
            if not state.hands[state.turn] & RANK_MASKS[state.current_rank]:
                bad("turn", "points to a seat without the current rank (C-PLAY-3)")

    @staticmethod
    def _blame_lead(state: EarlState, bad: Callable[[str, str], None]) -> None:
        """A lead is due and ``turn`` and ``last_player``, which then both name the
        leader, differ: blame the one a client most likely moved, with the seat
        expected. ``last_player`` holds who leads by the rules (the player of the
        finished run's last card, C-PLAY-5, C-PLAY-7, or the eldest at a round's start,
        C-PLAY-1); ``turn`` is what a client edits to change who acts, so it is blamed.
        Except at a round's first lead with ``turn`` on the eldest (C-PLAY-1) and no
        card played: there ``last_player`` is the one moved."""
        eldest = _next_in(state.dealt_in, state.dealer, state.config.seats)
        if not state.played and state.turn == eldest:
            bad(
                "last_player",
                f"must be {eldest}, the eldest on turn, when the round's first lead is "
                "due (C-PLAY-1)",
            )
        else:
            bad(
                "turn",
                f"must be {state.last_player}, the leader (last_player), when a lead is "
                "due (C-PLAY-1, C-PLAY-5, C-PLAY-7)",
            )

    # ------------------------------------------------------------ legality

    def legal_actions(self, state: EarlState, actor: Actor | None) -> list[EarlAction]:
        """Every action ``actor`` may take now; ``None``: every seat and the table."""
        if actor is None:
            if state.phase is Phase.PLAYING:
                return self._seat_actions(state, _SEAT_ACTORS[state.turn])
            return self.legal_actions(state, TABLE_ACTOR)
        if actor.kind is ActorKind.TABLE:
            if state.phase is Phase.BETWEEN_ROUNDS:
                actions = [EarlAction(actor, ActionKind.END_SESSION)]
                if state.round + 1 < MAX_ROUND:
                    actions.insert(0, EarlAction(actor, ActionKind.NEXT_ROUND))
                return actions
            return []
        if (
            actor.kind is ActorKind.SEAT
            and state.phase is Phase.PLAYING
            and actor.seat == state.turn
        ):
            return self._seat_actions(state, actor)
        return []

    def _seat_actions(self, state: EarlState, actor: Actor) -> list[EarlAction]:
        seat = actor.seat
        hand = state.hands[seat]
        table = _actions(state.config)
        if state.run_length == 0:
            # C-PLAY-2: any card, with the lead couplet of its rank.
            row = table.plays[seat][0]
            return [row[c] for c in card_list(hand)]
        # C-PLAY-4: a card of the current rank with the couplet of its position.
        row = table.plays[seat][state.run_length]
        actions = [row[c] for c in card_list(hand & RANK_MASKS[state.current_rank])]
        if state.config.holding_allowed:  # C-VAR-7
            actions.append(table.passes[seat])
        return actions

    def _violations(self, state: EarlState, action: EarlAction) -> list[Violation]:
        """Why a seat's play or pass during a round is illegal (empty when legal).

        Mirrors ``legal_actions``: an action is legal exactly when it is listed
        there (the call text aside).
        """
        seat = action.actor.seat
        out: list[Violation] = []
        if seat != state.turn:
            out.append(
                Violation(
                    NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not seat {seat}'s", "C-ILL-1"
                )
            )
        hand = state.hands[seat]
        if action.kind is ActionKind.PLAY:
            card = action.card
            if not hand >> card & 1:
                out.append(
                    Violation(
                        CARD_NOT_IN_HAND, f"seat {seat} does not hold {name(card)}", "C-ILL-1"
                    )
                )
            if state.run_length and card % 13 != state.current_rank:
                out.append(
                    Violation(
                        WRONG_RANK,
                        f"{name(card)} is not of the current rank "
                        f"({RANK_NAMES[state.current_rank]})",
                        "C-PLAY-4",
                    )
                )
        elif seat == state.turn:  # PASS: leading and holding the rank are the turn's duties
            if state.run_length == 0:
                out.append(Violation(LEADER_CANNOT_PASS, "a leader may never pass", "C-PLAY-6"))
            elif hand & RANK_MASKS[state.current_rank] and not state.config.holding_allowed:
                out.append(
                    Violation(
                        MUST_PLAY_RANK,
                        f"seat {seat} holds a {RANK_NAMES[state.current_rank]} and must play it",
                        "C-PLAY-6",
                    )
                )
        return out

    # ------------------------------------------------------------ apply

    def apply(self, state: EarlState, action: EarlAction) -> Outcome[EarlState, EarlEvent]:
        actor = action.actor
        card = action.card
        if (
            action.kind is ActionKind.PLAY
            and actor.kind is ActorKind.SEAT
            and actor.seat == state.turn
            and state.phase is Phase.PLAYING
            and card >= 0
            and state.hands[actor.seat] >> card & 1
            and (state.run_length == 0 or card % 13 == state.current_rank)
        ):
            # The common case, a legal card: exactly what ``legal_actions`` lists (the
            # seat on turn is dealt in; the checks below would find no violation).
            return self._play(state, actor.seat, card, action.call)
        if actor.kind is ActorKind.SEAT and not 0 <= actor.seat < state.config.seats:
            raise InvalidInput.one("actor.seat", "is not a seat of the table")
        if actor.kind is ActorKind.SPECTATOR:
            raise InvalidInput.one("actor.spectator", "Earl of Coventry has no spectators")
        if action.kind is ActionKind.PLAY and not 0 <= action.card < 52:
            raise InvalidInput.one("card", "is not a card")
        phase = state.phase
        if phase is Phase.SESSION_OVER:
            return _reject(state, SESSION_OVER, "the session is over", "C-SCORE-6")
        if action.kind is ActionKind.NEXT_ROUND or action.kind is ActionKind.END_SESSION:
            if actor.kind is not ActorKind.TABLE:
                return _reject(
                    state,
                    TABLE_ACTION_BY_SEAT,
                    "only the table starts a round or ends the session",
                    "C-SCORE-6",
                )
            if phase is Phase.PLAYING:
                return _reject(
                    state,
                    ROUND_IN_PROGRESS,
                    "the round is not over; the table acts only between rounds",
                    "C-SCORE-6",
                )
            if action.kind is ActionKind.NEXT_ROUND:
                return self._next_round(state)
            return self._end_session(state)
        if actor.kind is not ActorKind.SEAT:
            return _reject(state, SEAT_ACTION_BY_TABLE, "only a seat plays or passes", "C-SCORE-6")
        seat = actor.seat
        if phase is Phase.BETWEEN_ROUNDS:
            return _reject(
                state,
                ROUND_OVER,
                "the round is over; the table starts the next round",
                "C-SCORE-6",
            )
        if not state.dealt_in >> seat & 1:
            # C-SEAT-3: not dealt in as eliminated (C-SCORE-5, in a tie-break too) or as
            # sitting out a tie-break (C-SCORE-4). Named first, with every other rule the
            # action breaks (never on turn, no card: C-ILL-1); plainly rejected, Penalty
            # Earl or not (C-VAR-4), as Écarté's seat sitting out (its D-16).
            eliminated = state.eliminated >> seat & 1
            rule = "C-SCORE-4" if state.tiebreak and not eliminated else "C-SCORE-5"
            why = "is eliminated" if eliminated else "sits out this tie-break round"
            first = Violation(
                SEAT_NOT_DEALT_IN, f"seat {seat} is not dealt into this round: it {why}", rule
            )
            return Outcome(Verdict.REJECTED, state, [], (first, *self._violations(state, action)))
        violations = self._violations(state, action)
        if violations:
            if not state.config.penalty_earl:
                return Outcome(Verdict.REJECTED, state, [], tuple(violations))  # C-ILL-1
            # C-VAR-4: the offender pays a counter into the pool; play carries on.
            new = state.clone()
            events: list[EarlEvent] = []
            penalty = self._charge(new, seat, violations[0].code, events)
            return Outcome(Verdict.PENALIZED, new, events, tuple(violations), (penalty,))
        if action.kind is ActionKind.PASS:
            new = state.clone()
            events = [Passed(seat, state.current_rank)]
            self._declined(new, seat, events)
            return Outcome(Verdict.ACCEPTED, new, events)
        return self._play(state, seat, action.card, action.call)

    def _play(
        self, state: EarlState, seat: int, card: int, said: str
    ) -> Outcome[EarlState, EarlEvent]:
        position = state.run_length + 1
        rank = card % 13
        calls = _actions(state.config).calls
        new = state.clone()
        if said != calls.canonical[rank][position - 1] and not calls.matches(rank, position, said):
            # C-CHANT-3: the card goes back to hand; the turn moves on as after a pass.
            expected = calls.canonical[rank][position - 1]
            events: list[EarlEvent] = [CoupletBotched(seat, card, position, expected, said)]
            violation = Violation(
                COUPLET_BOTCHED,
                f"the call for {name(card)} in position {position} is {expected!r}",
                "C-CHANT-3",
            )
            penalties: tuple[Penalty, ...] = ()
            if state.config.penalty_earl:
                penalties = (self._charge(new, seat, COUPLET_BOTCHED, events),)
            if position == 1:
                to = _next_in(new.dealt_in, seat, new.config.seats)
                new.turn = to
                new.last_player = to
                events.append(LeadPassed(seat, to))
            else:
                self._declined(new, seat, events)
            return Outcome(Verdict.PENALIZED, new, events, (violation,), penalties)

        hands = list(state.hands)
        hands[seat] &= ~(1 << card)
        new.hands = tuple(hands)
        new.played = state.played + _BYTE[card]
        left = hands[seat].bit_count()
        events = [CardPlayed(seat, card, position, calls.canonical[rank][position - 1], left)]
        if left == 0:
            self._end_round(new, seat, events)  # C-PLAY-8
        elif position == 4:
            # C-PLAY-5: the Earl leads the next rank.
            events.append(RankCompleted(rank, seat))
            new.current_rank = NO_RANK
            new.run_length = 0
            new.turn = seat
            new.last_player = seat
        else:
            new.current_rank = rank
            new.run_length = position
            new.last_player = seat
            self._search(new, seat, seat, events, CutShortReason.NO_HOLDER)
        return Outcome(Verdict.ACCEPTED, new, events, (), ())

    def _search(
        self,
        s: EarlState,
        after: int,
        until: int,
        events: list[EarlEvent],
        reason: CutShortReason,
    ) -> None:
        """C-PLAY-3: give the turn to the next holder of the rank after ``after``, up to
        ``until`` inclusive; else end the run early (C-PLAY-7). Mutates ``s``."""
        n = s.config.seats
        rank_mask = RANK_MASKS[s.current_rank]
        skipped: list[int] = []
        seat = after
        while True:
            seat = (seat + 1) % n
            if s.dealt_in >> seat & 1:
                if s.hands[seat] & rank_mask:
                    events.extend(PassedOver(x, s.current_rank) for x in skipped)
                    s.turn = seat
                    return
                skipped.append(seat)
            if seat == until:
                break
        # C-PLAY-7: the player of the most recent card leads a new rank.
        events.append(RunCutShort(s.current_rank, s.run_length, s.last_player, reason))
        s.current_rank = NO_RANK
        s.run_length = 0
        s.turn = s.last_player

    def _declined(self, s: EarlState, seat: int, events: list[EarlEvent]) -> None:
        """A holder on turn did not play (C-VAR-7 pass, C-CHANT-3 botch): the search goes on
        from its left up to the player of the most recent card (C-PLAY-3, C-PLAY-7 b)."""
        if seat == s.last_player:
            events.append(
                RunCutShort(s.current_rank, s.run_length, seat, CutShortReason.ALL_DECLINED)
            )
            s.current_rank = NO_RANK
            s.run_length = 0
            s.turn = seat
            return
        self._search(s, seat, s.last_player, events, CutShortReason.ALL_DECLINED)

    def _charge(self, s: EarlState, seat: int, code: str, events: list[EarlEvent]) -> Penalty:
        """C-VAR-4: one counter from ``seat`` into the pool (none if it has none)."""
        amount = 1 if s.counters[seat] > 0 else 0
        if amount:
            counters = list(s.counters)
            counters[seat] -= 1
            s.counters = tuple(counters)
            s.pool += 1
        events.append(PenaltyCharged(seat, amount, s.pool, code))
        return Penalty(seat, amount, code, "C-VAR-4")

    def _end_round(self, s: EarlState, winner: int, events: list[EarlEvent]) -> None:
        """C-PLAY-8 and the scoring of C-SCORE-1 .. C-SCORE-5, C-VAR-4. Mutates ``s``."""
        cfg = s.config
        n = cfg.seats
        s.round_winner = winner
        won = list(s.rounds_won)
        won[winner] += 1
        s.rounds_won = tuple(won)
        s.current_rank = NO_RANK
        s.run_length = 0
        s.turn = winner
        s.last_player = winner
        counters = list(s.counters)
        payments: list[Payment] = []
        if cfg.pays_per_card and not s.tiebreak:
            # C-SCORE-2/3: each opponent pays one counter per card left, capped.
            for seat in range(n):
                if seat != winner and s.dealt_in >> seat & 1:
                    left = s.hands[seat].bit_count()
                    amount = min(left, counters[seat])
                    counters[seat] -= amount
                    counters[winner] += amount
                    payments.append(Payment(seat, left, amount))
        collected = s.pool
        counters[winner] += collected  # C-VAR-4: the winner takes the pool
        s.pool = 0
        s.counters = tuple(counters)
        events.append(RoundWon(winner, s.round, tuple(payments), collected))
        if s.tiebreak:
            # C-SCORE-4: the tie-break round's winner wins the session.
            self._finish(s, (winner,), events)
            return
        if cfg.scoring is Scoring.ELIMINATION:
            # C-SCORE-5: seats left without counters are out.
            for seat in range(n):
                if not s.eliminated >> seat & 1 and counters[seat] == 0:
                    s.eliminated |= 1 << seat
                    events.append(SeatEliminated(seat))
            alive = [x for x in range(n) if not s.eliminated >> x & 1]
            if len(alive) == 1:
                self._finish(s, (alive[0],), events)
                return
        s.phase = Phase.BETWEEN_ROUNDS

    def _finish(self, s: EarlState, winners: tuple[int, ...], events: list[EarlEvent]) -> None:
        s.phase = Phase.SESSION_OVER
        s.winners = winners
        events.append(SessionEnded(winners))

    def _next_round(self, state: EarlState) -> Outcome[EarlState, EarlEvent]:
        """C-SCORE-6 next round: C-SEAT-3 rotation, C-DEAL-1/2 deal."""
        if state.round + 1 >= MAX_ROUND:
            return _reject(state, ROUND_LIMIT, "the session has reached its last round", "C-DEAL-1")
        n = state.config.seats
        dealt_in = ((1 << n) - 1) & ~state.eliminated
        dealer = _next_in(dealt_in, state.dealer, n)
        new = state.clone()
        events: list[EarlEvent] = []
        self._deal(new, state.round + 1, dealer, dealt_in, False, events)
        return Outcome(Verdict.ACCEPTED, new, events)

    def _end_session(self, state: EarlState) -> Outcome[EarlState, EarlEvent]:
        """C-SCORE-4 (counters: most counters, tie-break round) / C-SCORE-6 (simple)."""
        cfg = state.config
        n = cfg.seats
        new = state.clone()
        events: list[EarlEvent] = []
        if not cfg.pays_per_card:
            best = max(state.rounds_won)
            self._finish(new, tuple(s for s in range(n) if state.rounds_won[s] == best), events)
            return Outcome(Verdict.ACCEPTED, new, events)
        alive = [s for s in range(n) if not state.eliminated >> s & 1]
        best = max(state.counters[s] for s in alive)
        tied = tuple(s for s in alive if state.counters[s] == best)
        if len(tied) == 1:
            self._finish(new, tied, events)
            return Outcome(Verdict.ACCEPTED, new, events)
        # No round limit here: ordinary rounds stop at MAX_ROUND - 1 (``_next_round``),
        # leaving shuffle MAX_ROUND for this tie-break, so END_SESSION is always legal.
        events.append(TiebreakStarted(tied))
        mask = 0
        for s in tied:
            mask |= 1 << s
        dealer = _next_in(mask, state.dealer, n)
        self._deal(new, state.round + 1, dealer, mask, True, events)
        return Outcome(Verdict.ACCEPTED, new, events)

    # ------------------------------------------------------------ reading

    def is_over(self, state: EarlState) -> bool:
        return state.phase is Phase.SESSION_OVER

    def scoreboard(self, state: EarlState) -> Scoreboard:
        cfg = state.config
        hands = state.hands
        rounds_won = state.rounds_won
        counters = state.counters
        eliminated = state.eliminated
        seats = tuple(
            [
                SeatScore(
                    s,
                    0,
                    0,
                    rounds_won[s],
                    counters[s],
                    0,
                    bool(eliminated >> s & 1),
                    hands[s].bit_count(),
                )
                for s in range(cfg.seats)
            ]
        )
        return Scoreboard(
            seats=seats,
            finished=state.phase is Phase.SESSION_OVER,
            winners=state.winners,
            pool=state.pool,
            standings=_standings(counters if cfg.pays_per_card else rounds_won, state.winners),
        )

    def view(self, state: EarlState, viewer: Viewer) -> EarlView:
        """A seat sees its own hand; with open hands (C-VAR-6) everyone sees every hand."""
        cfg = state.config
        open_hands = cfg.open_hands
        seats = tuple(
            [
                SeatView(
                    seat=s,
                    card_count=state.hands[s].bit_count(),
                    hand=(
                        tuple(card_list(state.hands[s]))
                        if open_hands or (viewer.kind is ViewerKind.SEAT and viewer.seat == s)
                        else None
                    ),
                    rounds_won=state.rounds_won[s],
                    counters=state.counters[s],
                    eliminated=bool(state.eliminated >> s & 1),
                    dealt_in=bool(state.dealt_in >> s & 1),
                )
                for s in range(cfg.seats)
            ]
        )
        next_call = ""
        if state.phase is Phase.PLAYING and state.run_length:
            next_call = _actions(cfg).calls.canonical[state.current_rank][state.run_length]
        return EarlView(
            config=cfg,
            phase=state.phase,
            round=state.round,
            dealer=state.dealer,
            turn=state.turn,
            current_rank=state.current_rank,
            run_length=state.run_length,
            last_player=state.last_player,
            seats=seats,
            played=state.played,
            pool=state.pool,
            tiebreak=state.tiebreak,
            round_winner=state.round_winner,
            winners=state.winners,
            next_call=next_call,
        )

    def redact_events(
        self, state: EarlState, events: Sequence[EarlEvent], viewer: Viewer
    ) -> list[EarlEvent]:
        """Every Earl of Coventry event is public: deals show counts only, cut cards and
        played or botched cards are shown on the table, pass-overs are public (C-PLAY-3)."""
        return list(events)


def _reject(
    state: EarlState, code: str, message: str, rule_id: str
) -> Outcome[EarlState, EarlEvent]:
    return Outcome(Verdict.REJECTED, state, [], (Violation(code, message, rule_id),))


RULES: Final = EarlOfCoventryRules()
