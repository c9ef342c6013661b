"""Jeux de règle (E-VAR-6): hands with which the elder may not propose."""

from __future__ import annotations

from referee.games.ecarte.deck import ECARTE_SUIT_MASKS, KINGS, QUEENS


def is_jeu_de_regle(hand: int, trump: int) -> bool:
    """E-VAR-6: does ``hand`` (a card mask) hold a jeu de règle with ``trump`` as trumps?

    (a) three or more trumps; (b) two trumps and a plain king or three cards of
    one plain suit; (c) one trump and four cards of one plain suit, two plain
    kings, or king and queen of one plain suit; (d) no trump and three or more
    kings. "Three cards", "two kings" and the like mean at least that many.
    """
    trumps = (hand & ECARTE_SUIT_MASKS[trump]).bit_count()
    if trumps >= 3:
        return True  # (a)
    longest = 0
    kings = 0
    king_queen = False
    for suit in range(4):
        if suit == trump:
            continue
        longest = max(longest, (hand & ECARTE_SUIT_MASKS[suit]).bit_count())
        if hand >> KINGS[suit] & 1:
            kings += 1
            if hand >> QUEENS[suit] & 1:
                king_queen = True
    if trumps == 2:
        return kings >= 1 or longest >= 3  # (b)
    if trumps == 1:
        return longest >= 4 or kings >= 2 or king_queen  # (c)
    return kings >= 3  # (d)
