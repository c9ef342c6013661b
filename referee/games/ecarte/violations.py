"""Violation codes of Écarté (stable) and the rule each one cites.

Codes never change meaning; new ones may be added. The table is the single
place that ties a code to its rule ids; docs/rules/ecarte.md reproduces it.
"""

from __future__ import annotations

from typing import Final

NOT_YOUR_TURN: Final = "NOT_YOUR_TURN"
WRONG_PHASE: Final = "WRONG_PHASE"
CARD_NOT_IN_HAND: Final = "CARD_NOT_IN_HAND"
DISCARD_COUNT: Final = "DISCARD_COUNT"
STOCK_TOO_SMALL: Final = "STOCK_TOO_SMALL"
JEU_DE_REGLE: Final = "JEU_DE_REGLE"
MUST_FOLLOW_SUIT: Final = "MUST_FOLLOW_SUIT"
MUST_BEAT: Final = "MUST_BEAT"
MUST_TRUMP: Final = "MUST_TRUMP"
KING_NOT_HELD: Final = "KING_NOT_HELD"
KING_TOO_LATE: Final = "KING_TOO_LATE"
KING_ALREADY_ANNOUNCED: Final = "KING_ALREADY_ANNOUNCED"
ANNOUNCED_KING_DISCARDED: Final = "ANNOUNCED_KING_DISCARDED"
WAGERS_NOT_ALLOWED: Final = "WAGERS_NOT_ALLOWED"
WAGER_WINDOW_CLOSED: Final = "WAGER_WINDOW_CLOSED"
WAGER_OVER_LIMIT: Final = "WAGER_OVER_LIMIT"
WAGER_NOT_POSITIVE: Final = "WAGER_NOT_POSITIVE"
SEAT_CANNOT_WAGER: Final = "SEAT_CANNOT_WAGER"
SPECTATOR_CANNOT_PLAY: Final = "SPECTATOR_CANNOT_PLAY"
SEAT_SITS_OUT: Final = "SEAT_SITS_OUT"
MATCH_OVER: Final = "MATCH_OVER"

CODES: Final[dict[str, tuple[str, ...]]] = {
    NOT_YOUR_TURN: ("E-TURN",),
    WRONG_PHASE: ("E-PHASE",),
    CARD_NOT_IN_HAND: ("E-CARD",),
    DISCARD_COUNT: ("E-EXCH-5", "E-EXCH-6"),
    STOCK_TOO_SMALL: ("E-EXCH-2",),
    JEU_DE_REGLE: ("E-VAR-6",),
    MUST_FOLLOW_SUIT: ("E-PLAY-3",),
    MUST_BEAT: ("E-PLAY-4",),
    MUST_TRUMP: ("E-PLAY-5",),
    KING_NOT_HELD: ("E-KING-2",),
    KING_TOO_LATE: ("E-KING-1",),
    KING_ALREADY_ANNOUNCED: ("E-KING-5",),
    ANNOUNCED_KING_DISCARDED: ("E-KING-3",),
    WAGERS_NOT_ALLOWED: ("E-VAR-4",),
    WAGER_WINDOW_CLOSED: ("E-VAR-4",),
    WAGER_OVER_LIMIT: ("E-VAR-4",),
    WAGER_NOT_POSITIVE: ("E-VAR-4",),
    SEAT_CANNOT_WAGER: ("E-VAR-4",),
    SPECTATOR_CANNOT_PLAY: ("E-VAR-4",),
    SEAT_SITS_OUT: ("E-VAR-5",),
    MATCH_OVER: ("E-END-3",),
}
"""Every code and the rule ids its violations may cite."""
