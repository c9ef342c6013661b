"""Validation of Écarté states: ``InvalidInput`` for every impossible state.

Field paths are the protobuf field names relative to ``EcarteState``
(``seats[1].hand``, ``stock``, ``config.target_points``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from referee.cards import ECARTE_MASK, card_list, name
from referee.games.base import Findings, InvalidInput, check_once
from referee.games.ecarte.deck import (
    BEATS,
    CARD_BIT,
    ECARTE_SUIT_MASKS,
    IS_ECARTE_CARD,
    KING_RANK,
    KINGS,
    PACKET_POSITIONS,
    SUIT,
    TURN_UP_POSITION,
    beats,
    cut_dealer,
    ecarte_pack,
)
from referee.games.ecarte.jeux import is_jeu_de_regle
from referee.games.ecarte.state import (
    HAND_SIZE,
    MAX_DEAL,
    MAX_SPECTATOR_ID,
    NO_SEAT,
    ROLES,
    STOCK_SIZE,
    EcarteState,
    Phase,
)

_Bad = Callable[[str, str], None]
_MAX_CHIPS: Final = 1 << 62
_EXCHANGE: Final = (Phase.PROPOSAL, Phase.ANSWER, Phase.ELDER_DISCARD, Phase.RESPONDER_DISCARD)


class _Report(Findings):
    """The violations found so far (:class:`Findings`), and the cards placed (E-DECK-1)."""

    def __init__(self) -> None:
        super().__init__()
        self.seen = 0

    def place(self, path: str, mask: int) -> None:
        if mask & ~ECARTE_MASK:
            self.bad(path, "holds a card that is not in the Écarté pack (E-DECK-1)")
        twice = mask & self.seen
        if twice:
            self.bad(path, f"{' '.join(name(c) for c in card_list(twice))} appear(s) twice")
        self.seen |= mask

    def place_bytes(self, path: str, data: bytes) -> int:
        mask = 0
        for i, c in enumerate(data):
            if c >= 52 or not IS_ECARTE_CARD[c]:
                self.bad(f"{path}", f"byte {i} is not a card of the Écarté pack (E-DECK-1)")
                continue
            if mask >> c & 1:
                self.bad(path, f"{name(c)} appears twice")
            mask |= 1 << c
        self.place(path, mask)
        return mask


def validate(state: EcarteState, *, check_deal: bool = True) -> None:
    """Raise :class:`InvalidInput` unless ``state`` is a possible state of Écarté.

    With ``check_deal`` (the default) the cards must also be those of the
    seed's deal (decision D-14 of docs/rules/ecarte.md): the turn-up, the
    stock, the first dealer and each player's dealt cards are re-derived from
    the seed. Tests that build states by hand pass ``check_deal=False``.
    """
    cfg = state.config
    try:
        check_once(cfg)
    except InvalidInput as e:
        raise e.prefixed("config") from None
    report = _Report()
    errors = report.errors
    bad = report.bad  # not a nested function: no reference cycle per call (Findings)

    n = cfg.seats
    per_seat = (
        state.hands,
        state.discards,
        state.tricks_won,
        state.points,
        state.games_won,
        state.chips,
    )
    if any(len(t) != n for t in per_seat):
        raise InvalidInput.one("seats", f"must list exactly {n} seats (config.seats)")
    if len(state.seed) != 32:
        bad("seed", "must be 32 bytes")
    if not isinstance(state.phase, Phase):
        bad("phase", "is unknown")
    if not 0 <= state.dealer < n:
        bad("dealer", "is not a seat of the table")
    if not 0 <= state.turn < n:
        bad("turn", "is not a seat of the table")
    if not 0 <= state.deal <= MAX_DEAL:
        bad("deal", "is out of range")
    if not (0 <= state.turn_up < 52 and IS_ECARTE_CARD[state.turn_up]):
        bad("turn_up", "is not a card of the Écarté pack (E-DECK-1)")
    if errors:
        raise report.invalid()

    # E-DECK-1: all 32 cards exactly once across hands, discards, turn-up, stock, tricks.
    place = report.place
    for s in range(n):
        place(f"seats[{s}].hand", state.hands[s])
        place(f"seats[{s}].discards", state.discards[s])
    place("turn_up", CARD_BIT[state.turn_up])
    report.place_bytes("stock", state.stock)
    report.place_bytes("tricks", state.tricks)
    if errors:
        raise report.invalid()
    seen = report.seen
    if seen != ECARTE_MASK:
        missing = " ".join(name(c) for c in card_list(ECARTE_MASK & ~seen))
        raise InvalidInput.one("seats", f"cards are missing: {missing} (E-DECK-1)")

    if state.trump != SUIT[state.turn_up]:
        bad("trump", "must be the suit of the turned-up card (E-DEAL-3)")
        raise report.invalid()

    phase = state.phase
    over = phase is Phase.MATCH_OVER
    elder, responder = ROLES[n][state.dealer]
    for s in range(n):
        # E-VAR-5: the dealer of a deal à trois sits out.
        if s not in (elder, responder) and (
            state.hands[s] or state.discards[s] or state.tricks_won[s]
        ):
            bad(f"seats[{s}].hand", "the dealer sits out the deal à trois (E-VAR-5)")

    played = _check_tricks(state, elder, responder, bad)
    t = len(state.tricks)
    if phase in _EXCHANGE or (over and t == 0):
        if t:
            bad("tricks", "no card is played during the exchange (E-EXCH-1)")
        for s in (elder, responder):
            if state.hands[s].bit_count() != HAND_SIZE:
                bad(f"seats[{s}].hand", "holds 5 cards until the first lead (E-DEAL-2, E-EXCH-5)")
    de, dr = state.discards[elder], state.discards[responder]
    stock = len(state.stock)
    # The hand a proposal was made on, while it is still the elder's hand: awaiting the
    # answer, the elder's discard, or the first lead after a refusal (E-EXCH-4, the only
    # way into the tricks with no card led).
    proposed_on = phase in (Phase.ANSWER, Phase.ELDER_DISCARD) or (phase is Phase.TRICKS and t == 0)
    if phase is Phase.RESPONDER_DISCARD:
        if not de:
            bad(f"seats[{elder}].discards", "the elder discards first (E-EXCH-5, E-EXCH-6)")
    elif bool(de) != bool(dr) and (not over or t):
        # Each exchange is both players' (E-EXCH-6: the dealer discards at least one);
        # only a game ended by a king during the responder's discard leaves one side.
        bad("seats", "both players discard in every exchange (E-EXCH-5, E-EXCH-6)")
    if proposed_on and stock < 2:
        bad("stock", "a proposal needs a stock of at least 2 (E-EXCH-2)")
    if phase is Phase.RESPONDER_DISCARD and stock < 1:
        bad("stock", "the elder leaves at least one card in the stock (E-EXCH-5)")
    if proposed_on and cfg.jeux_de_regle and is_jeu_de_regle(state.hands[elder], state.trump):
        bad(f"seats[{elder}].hand", "a jeu de règle cannot be proposed on (E-VAR-6)")
    if phase in _EXCHANGE:
        expected = elder if phase in (Phase.PROPOSAL, Phase.ELDER_DISCARD) else responder
        if state.turn != expected:
            bad("turn", f"must be seat {expected} in phase {phase.name.lower()}")
    elif phase is Phase.TRICKS:
        if t >= 2 * 5:
            bad("tricks", "a deal ends with its fifth trick (E-PLAY-8)")
    elif t not in (0, 10):
        bad("tricks", "a match ends before the first lead or after the fifth trick (E-END-1)")

    _check_king(state, elder, responder, played, bad)
    _check_scores(state, elder, responder, bad)
    _check_wagers(state, bad)
    if errors:
        raise report.invalid()
    if check_deal:
        _check_deal(state, elder, responder, played, bad)
        if errors:
            raise report.invalid()


def _check_tricks(state: EcarteState, elder: int, responder: int, bad: _Bad) -> list[int]:
    """E-PLAY: replay the tricks of the deal; returns the cards each seat played.

    Checks hand sizes, tricks won, the seat on turn and that every card played
    second obeyed E-PLAY-3 .. E-PLAY-5 with the hand its player held then.
    """
    n = state.config.seats
    tricks = state.tricks
    played = [0] * n
    won = [0] * n
    leader = elder
    order: list[tuple[int, int, int, int]] = []  # (leader, led, follower, followed or -1)
    for i in range(0, len(tricks), 2):
        follower = responder if leader == elder else elder
        led = tricks[i]
        played[leader] |= 1 << led
        if i + 1 < len(tricks):
            card = tricks[i + 1]
            played[follower] |= 1 << card
            order.append((leader, led, follower, card))
            leader = follower if beats(led, card, state.trump) else leader
            won[leader] += 1
        else:
            order.append((leader, led, follower, -1))
    # E-PLAY-3 .. E-PLAY-5: each answer was legal for the hand held at the time.
    held = list(state.hands)
    for k in range(len(order) - 1, -1, -1):
        lead_seat, led, follower, card = order[k]
        held[lead_seat] |= 1 << led
        if card < 0:
            continue
        held[follower] |= 1 << card
        hand = held[follower]
        follow = hand & ECARTE_SUIT_MASKS[SUIT[led]]
        if follow:
            legal = follow & BEATS[led] or follow
        else:
            legal = hand & ECARTE_SUIT_MASKS[state.trump] or hand
        if not legal >> card & 1:
            bad("tricks", f"{name(card)} in trick {k + 1} broke E-PLAY-3 .. E-PLAY-5")
    for s in (elder, responder):
        if state.hands[s].bit_count() + played[s].bit_count() != HAND_SIZE:
            bad(f"seats[{s}].hand", "hand size does not match the cards played (E-DEAL-2)")
        if state.tricks_won[s] != won[s]:
            bad(f"seats[{s}].tricks_won", f"must be {won[s]}, as the tricks show (E-PLAY-7)")
    if state.phase is Phase.TRICKS:
        expected = leader if not len(tricks) & 1 else (responder if leader == elder else elder)
        if state.turn != expected:
            bad("turn", f"must be seat {expected}, as the tricks show (E-PLAY-1)")
    return played


def _check_king(
    state: EcarteState, elder: int, responder: int, played: list[int], bad: _Bad
) -> None:
    """E-DEAL-4, E-KING-1 .. E-KING-5."""
    over = state.phase is Phase.MATCH_OVER
    king = KINGS[state.trump]
    a = state.king_announced
    if a != NO_SEAT:
        if a not in (elder, responder):
            bad("king_announced", "must be a player of the deal (E-KING-1)")
        elif state.turn_up == king:
            bad("king_announced", "the king of trumps is turned up; nobody holds it (E-KING-2)")
        elif not (state.hands[a] | played[a]) >> king & 1:
            bad("king_announced", "the announcer keeps the king of trumps (E-KING-2, E-KING-3)")
        elif not over and state.points[a] < 1:
            bad(f"seats[{a}].points", "the announced king scored a point (E-KING-1)")
    if state.turn_up % 13 == KING_RANK and not over and state.points[responder] < 1:
        bad(f"seats[{responder}].points", "the turned king scored a point (E-DEAL-4)")


def _check_scores(state: EcarteState, elder: int, responder: int, bad: _Bad) -> None:
    """E-END-1, E-END-2, E-VAR-3."""
    cfg = state.config
    over = state.phase is Phase.MATCH_OVER
    target = cfg.target_points
    champions = [s for s in range(cfg.seats) if state.games_won[s] >= cfg.games_to_win]
    for s in range(cfg.seats):
        p = state.points[s]
        g = state.games_won[s]
        if s in champions:
            if g != cfg.games_to_win:
                bad(f"seats[{s}].games_won", "the match ends at config.games_to_win (E-END-2)")
            if not target <= p <= target + 2:
                bad(f"seats[{s}].points", "the winner of the last game reached the target")
        else:
            if not 0 <= p < target:
                bad(f"seats[{s}].points", f"must be 0 .. {target - 1} (E-END-1)")
            if g < 0:
                bad(f"seats[{s}].games_won", "is out of range")
    if over and len(champions) != 1:
        bad("seats", "a finished match has exactly one winner (E-END-2)")
    if not over and champions:
        bad("phase", "a seat has won the match: the match is over (E-END-2)")
    if over and champions and champions[0] not in (elder, responder):
        bad("seats", "the last game was won by a player of the last deal")
    games = sum(state.games_won)
    if state.deal < games - (1 if over else 0):
        bad("deal", "every game has at least one deal (E-DEAL-5)")
    if not cfg.stake and any(state.chips):
        bad("seats", "chips move only with stakes (E-VAR-3)")
    if sum(state.chips) != 0:
        bad("seats", "chips are paid between the players: they sum to 0 (E-VAR-3)")
    for s in range(cfg.seats):
        if not -_MAX_CHIPS <= state.chips[s] <= _MAX_CHIPS:
            bad(f"seats[{s}].chips", "is out of range")


def _check_wagers(state: EcarteState, bad: _Bad) -> None:
    """E-VAR-4."""
    cfg = state.config
    if not cfg.gallery and (state.wagers or state.ledger):
        bad("wagers", "wagers need Écarté au Cercle (config.gallery, E-VAR-4)")
    if state.phase is Phase.MATCH_OVER and state.wagers:
        bad("wagers", "every wager is settled when the game ends (E-VAR-4)")
    for i, w in enumerate(state.wagers):
        if not 0 < len(w.spectator) <= MAX_SPECTATOR_ID:
            bad(f"wagers[{i}].spectator", f"must be 1 .. {MAX_SPECTATOR_ID} characters")
        if not 0 <= w.seat < cfg.seats:
            bad(f"wagers[{i}].seat", "is not a seat of the table")
        if not 1 <= w.amount <= cfg.wager_limit:
            bad(f"wagers[{i}].amount", f"must be 1 .. {cfg.wager_limit} (E-VAR-4)")
    previous = ""
    for i, x in enumerate(state.ledger):
        if not 0 < len(x.spectator) <= MAX_SPECTATOR_ID:
            bad(f"spectators[{i}].spectator", f"must be 1 .. {MAX_SPECTATOR_ID} characters")
        elif x.spectator <= previous:
            bad(f"spectators[{i}].spectator", "spectators are listed once, sorted by id")
        previous = x.spectator
        if not -_MAX_CHIPS <= x.net <= _MAX_CHIPS:
            bad(f"spectators[{i}].net", "is out of range")


def _check_deal(
    state: EcarteState, elder: int, responder: int, played: list[int], bad: _Bad
) -> None:
    """D-14: the cards are those of the seed's deal (E-SEAT-2, E-SEAT-3, E-DEAL-1 .. E-DEAL-3)."""
    cfg = state.config
    n = cfg.seats
    first = cfg.first_dealer
    if first is None:
        first = cut_dealer(state.seed, n)[0]
    if state.dealer != (first + state.deal) % n:
        bad("dealer", "the deal passes to the left after every deal (E-SEAT-3)")
    pack = ecarte_pack(state.seed, state.deal)
    if state.turn_up != pack[TURN_UP_POSITION]:
        bad("turn_up", "is not the turned-up card of this deal's shuffle (E-DEAL-3)")
    drawn = STOCK_SIZE - len(state.stock)
    if state.stock != bytes(pack[TURN_UP_POSITION + 1 + drawn :]):
        bad("stock", "is not what is left of this deal's stock (E-DEAL-3)")
    positions = PACKET_POSITIONS[cfg.packets]
    for seat, where in ((elder, positions[0]), (responder, positions[1])):
        dealt = 0
        for i in where:
            dealt |= 1 << pack[i]
        had = state.hands[seat] | state.discards[seat] | played[seat]
        if dealt & ~had:
            bad(f"seats[{seat}].hand", "does not hold the cards dealt to this seat (E-DEAL-2)")
