"""What a viewer may see of an Écarté state and its events (E-EXCH-8, E-VAR-4).

A seat sees its own hand and its own discards; everything else it sees is
public: the turn-up, how many cards each hand, the stock and each player's
discards hold, the tricks, scores, chips and wagers. Spectators and the public
see only what is public.
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.cards import card_list
from referee.games.base import InvalidInput, Viewer, ViewerKind
from referee.games.ecarte.deck import beats
from referee.games.ecarte.state import (
    MAX_SPECTATOR_ID,
    NO_SEAT,
    ROLES,
    Dealt,
    EcarteEvent,
    EcarteState,
    EcarteView,
    Exchanged,
    Phase,
    SeatView,
    TrickView,
)


def _seat_of(state_seats: int, viewer: Viewer) -> int:
    """The seat whose cards ``viewer`` may see, or ``NO_SEAT``; checks the viewer."""
    if viewer.kind is ViewerKind.SEAT:
        if not 0 <= viewer.seat < state_seats:
            raise InvalidInput.one("viewer.seat", "is not a seat of the table")
        return viewer.seat
    if viewer.kind is ViewerKind.SPECTATOR:
        if not 0 < len(viewer.spectator) <= MAX_SPECTATOR_ID:
            raise InvalidInput.one(
                "viewer.spectator", f"must be 1 .. {MAX_SPECTATOR_ID} characters"
            )
        return NO_SEAT
    if viewer.kind is ViewerKind.PUBLIC:
        return NO_SEAT
    raise InvalidInput.one("viewer", "is unknown")


def tricks_of(state: EcarteState) -> tuple[TrickView, ...]:
    """The tricks of the deal with their leaders and winners (E-PLAY-1, E-PLAY-7)."""
    elder, responder = ROLES[state.config.seats][state.dealer]
    leader = elder
    out = []
    t = state.tricks
    for i in range(0, len(t), 2):
        if i + 1 < len(t):
            other = responder if leader == elder else elder
            winner = other if beats(t[i], t[i + 1], state.trump) else leader
            out.append(TrickView(leader, (t[i], t[i + 1]), winner))
            leader = winner
        else:
            out.append(TrickView(leader, (t[i],), NO_SEAT))
    return tuple(out)


def view(state: EcarteState, viewer: Viewer) -> EcarteView:
    cfg = state.config
    n = cfg.seats
    mine = _seat_of(n, viewer)
    elder, responder = ROLES[n][state.dealer]
    seats = tuple(
        [
            SeatView(
                seat=s,
                card_count=state.hands[s].bit_count(),
                hand=tuple(card_list(state.hands[s])) if s == mine else None,
                discard_count=state.discards[s].bit_count(),
                discards=tuple(card_list(state.discards[s])) if s == mine else None,
                tricks_won=state.tricks_won[s],
                points=state.points[s],
                games_won=state.games_won[s],
                chips=state.chips[s],
                sits_out=s not in (elder, responder),
            )
            for s in range(n)
        ]
    )
    winner = NO_SEAT
    if state.phase is Phase.MATCH_OVER:
        winner = max(range(n), key=lambda s: state.games_won[s])
    return EcarteView(
        config=cfg,
        phase=state.phase,
        deal=state.deal,
        game=state.game,
        dealer=state.dealer,
        elder=elder,
        responder=responder,
        turn=state.turn,
        turn_up=state.turn_up,
        trump=state.trump,
        stock_count=len(state.stock),
        seats=seats,
        tricks=tricks_of(state),
        king_announced=state.king_announced,
        original_hands=not (state.discards[elder] or state.discards[responder]),
        wagers=state.wagers,
        spectators=state.ledger,
        winner=winner,
    )


def redact_events(events: Sequence[EcarteEvent], viewer: Viewer, seats: int) -> list[EcarteEvent]:
    """``events`` as ``viewer`` may see them: only the viewer's own dealt, discarded and
    drawn cards are shown (E-EXCH-8); counts stay."""
    mine = _seat_of(seats, viewer)
    out: list[EcarteEvent] = []
    for e in events:
        if isinstance(e, Dealt):
            hidden = tuple(h if s == mine else () for s, h in enumerate(e.hands))
            if hidden != e.hands:
                e = Dealt(
                    e.deal,
                    e.game,
                    e.dealer,
                    e.elder,
                    e.responder,
                    e.turn_up,
                    e.stock_size,
                    e.hand_sizes,
                    hidden,
                )
        elif isinstance(e, Exchanged) and e.seat != mine and (e.discarded or e.drawn):
            e = Exchanged(e.seat, e.count, (), (), e.stock_left)
        out.append(e)
    return out
