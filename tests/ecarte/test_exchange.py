"""E-EXCH: proposal, answer and exchange."""

from __future__ import annotations

from itertools import combinations

from referee.cards import ECARTE_DECK, name
from referee.games.base import PUBLIC_VIEWER, Viewer
from referee.games.ecarte import RULES
from referee.games.ecarte import violations as V
from referee.games.ecarte.state import (
    ActionKind,
    DealScored,
    EcarteConfig,
    EcarteState,
    Exchanged,
    Phase,
)
from tests.ecarte.helpers import (
    accept,
    build,
    cards,
    discard,
    key,
    mask,
    ok,
    play,
    play_out,
    propose,
    refuse,
    rejected,
    rule_ids,
)

# Dealer 0, so the elder is seat 1 and the responder (the dealer) seat 0.
ELDER, DEALER = 1, 0
E_HAND = "7D 8D 9D 7H 9S"
D_HAND = "QC JC AC 10C KS"


def fresh(phase: Phase = Phase.PROPOSAL, config: EcarteConfig | None = None) -> EcarteState:
    return build(E_HAND, D_HAND, "7C", phase=phase, config=config)


def small_stock(n: int, phase: Phase = Phase.PROPOSAL) -> EcarteState:
    """A state after exchanges that left ``n`` cards in the stock."""
    placed = mask(E_HAND) | mask(D_HAND) | mask("7C")
    others = [x for x in ECARTE_DECK if not placed >> x & 1]  # the 21 other cards
    stock, gone = others[:n], others[n:]
    half = (len(gone) + 1) // 2
    return build(
        E_HAND,
        D_HAND,
        "7C",
        phase=phase,
        stock=" ".join(name(x) for x in stock),
        discards={
            ELDER: " ".join(name(x) for x in gone[:half]),
            DEALER: " ".join(name(x) for x in gone[half:]),
        },
    )


def test_E_EXCH_1_elder_proposes_or_leads_first() -> None:
    """E-EXCH-1: the elder acts first: propose, or lead (the lead is the decision)."""
    s = fresh()
    kinds = sorted(a.kind for a in RULES.legal_actions(s, None))
    assert kinds == [ActionKind.PROPOSE] + [ActionKind.PLAY] * 5
    assert RULES.legal_actions(s, play(DEALER, "QC").actor) == []
    assert V.NOT_YOUR_TURN in rejected(s, play(DEALER, "QC"))
    assert V.NOT_YOUR_TURN in rejected(s, propose(DEALER))
    after = ok(s, play(ELDER, "9S")).state
    assert after.phase is Phase.TRICKS and after.turn == DEALER
    # The lead ended the exchange phase: no proposal any more in this deal.
    assert V.WRONG_PHASE in rejected(after, propose(ELDER))


def test_E_EXCH_2_proposal_with_a_stock_of_1_is_rejected() -> None:
    """E-EXCH-2: a proposal needs 2 cards in the stock; with 1 the elder must play."""
    s = small_stock(1)
    assert rejected(s, propose(ELDER)) == [V.STOCK_TOO_SMALL]
    assert rule_ids(s, propose(ELDER)) == ["E-EXCH-2"]
    assert {a.kind for a in RULES.legal_actions(s, None)} == {ActionKind.PLAY}
    s0 = small_stock(0)
    assert rejected(s0, propose(ELDER)) == [V.STOCK_TOO_SMALL]


def test_E_EXCH_2_proposal_with_a_stock_of_2_is_allowed() -> None:
    """E-EXCH-2: with 2 cards both players can exchange one each."""
    s = small_stock(2)
    s = ok(s, propose(ELDER)).state
    s = ok(s, accept(DEALER)).state
    # E-EXCH-5: the elder discards at most stock - 1 = 1 card.
    assert all(len(a.cards) == 1 for a in RULES.legal_actions(s, None) if a.cards)
    assert rejected(s, discard(ELDER, "7D 8D")) == [V.DISCARD_COUNT]
    s = ok(s, discard(ELDER, "7D")).state
    assert len(s.stock) == 1
    # E-EXCH-6: the dealer then discards exactly the one card left.
    assert rejected(s, discard(DEALER, "QC JC")) == [V.DISCARD_COUNT]
    s = ok(s, discard(DEALER, "QC")).state
    assert len(s.stock) == 0 and s.phase is Phase.PROPOSAL
    assert rejected(s, propose(ELDER)) == [V.STOCK_TOO_SMALL]


def test_E_EXCH_3_dealer_answers_and_answers_are_final() -> None:
    """E-EXCH-3: on a proposal the dealer accepts or refuses; nobody else answers;
    an answer once given cannot be given again or changed."""
    s = ok(fresh(), propose(ELDER)).state
    assert s.phase is Phase.ANSWER and s.turn == DEALER
    assert {key(a) for a in RULES.legal_actions(s, None)} == {
        key(accept(DEALER)),
        key(refuse(DEALER)),
    }
    assert V.NOT_YOUR_TURN in rejected(s, accept(ELDER))
    assert V.WRONG_PHASE in rejected(s, propose(ELDER))  # no second proposal pending
    accepted = ok(s, accept(DEALER)).state
    assert V.WRONG_PHASE in rejected(accepted, refuse(DEALER))
    assert V.WRONG_PHASE in rejected(accepted, accept(DEALER))


def test_E_EXCH_4_refusal_ends_the_exchange_elder_leads() -> None:
    """E-EXCH-4: after a refusal the elder leads the first trick; no exchange any more."""
    s = ok(ok(fresh(), propose(ELDER)).state, refuse(DEALER)).state
    assert s.phase is Phase.TRICKS and s.turn == ELDER
    assert {a.kind for a in RULES.legal_actions(s, None)} == {ActionKind.PLAY}
    assert V.WRONG_PHASE in rejected(s, propose(ELDER))
    assert V.WRONG_PHASE in rejected(s, discard(ELDER, "7D"))
    ok(s, play(ELDER, "7D"))


def test_E_EXCH_5_elder_discards_1_to_5_and_draws_from_the_top() -> None:
    """E-EXCH-5: 1 .. 5 cards, at most stock - 1; as many drawn from the top."""
    s = ok(ok(fresh(), propose(ELDER)).state, accept(DEALER)).state
    assert s.phase is Phase.ELDER_DISCARD and s.turn == ELDER
    listed = [a for a in RULES.legal_actions(s, None) if a.kind is ActionKind.DISCARD]
    expected = {frozenset(x) for k in range(1, 6) for x in combinations(cards(E_HAND), k)}
    assert {frozenset(a.cards) for a in listed} == expected and len(listed) == 31
    assert rejected(s, discard(ELDER, "")) == [V.DISCARD_COUNT]
    assert rule_ids(s, discard(ELDER, "")) == ["E-EXCH-5"]
    top = list(s.stock[:2])
    out = ok(s, discard(ELDER, "7D 8D"))
    after = out.state
    assert after.hands[ELDER] == mask("9D 7H 9S") | (1 << top[0]) | (1 << top[1])
    assert after.stock == s.stock[2:]
    assert after.discards[ELDER] == mask("7D 8D")
    ev = [e for e in out.events if isinstance(e, Exchanged)]
    assert ev and ev[0].count == 2 and list(ev[0].drawn) == top


def test_E_EXCH_5_elder_discarding_stock_minus_1_max_and_stock_rejected() -> None:
    """E-EXCH-5: with 4 cards in the stock the elder may discard 3, not 4."""
    s = small_stock(4, Phase.ELDER_DISCARD)
    assert max(len(a.cards) for a in RULES.legal_actions(s, None) if a.cards) == 3
    assert rejected(s, discard(ELDER, "7D 8D 9D 7H")) == [V.DISCARD_COUNT]
    assert rule_ids(s, discard(ELDER, "7D 8D 9D 7H")) == ["E-EXCH-5"]
    after = ok(s, discard(ELDER, "7D 8D 9D")).state
    assert len(after.stock) == 1 and after.phase is Phase.RESPONDER_DISCARD


def test_E_EXCH_6_dealer_cannot_stand_pat() -> None:
    """E-EXCH-6: after accepting, the dealer must discard at least one card."""
    s = ok(fresh(phase=Phase.ELDER_DISCARD), discard(ELDER, "7D")).state
    assert s.phase is Phase.RESPONDER_DISCARD and s.turn == DEALER
    assert rejected(s, discard(DEALER, "")) == [V.DISCARD_COUNT]
    assert rule_ids(s, discard(DEALER, "")) == ["E-EXCH-6"]
    assert all(a.cards for a in RULES.legal_actions(s, None) if a.kind is ActionKind.DISCARD)
    assert len(RULES.legal_actions(s, None)) == 31


def test_E_EXCH_6_dealer_discards_at_most_the_stock() -> None:
    """E-EXCH-6: with 3 cards left the dealer may discard 3, not 4."""
    s = small_stock(3, Phase.RESPONDER_DISCARD)
    assert max(len(a.cards) for a in RULES.legal_actions(s, None) if a.cards) == 3
    assert rejected(s, discard(DEALER, "QC JC AC 10C")) == [V.DISCARD_COUNT]
    after = ok(s, discard(DEALER, "QC JC AC")).state
    assert after.stock == b"" and after.phase is Phase.PROPOSAL


def test_E_EXCH_7_after_both_exchange_the_elder_acts_again() -> None:
    """E-EXCH-7: then the elder proposes again or plays; proposals may repeat."""
    s = ok(fresh(phase=Phase.ELDER_DISCARD), discard(ELDER, "7D 8D")).state
    s = ok(s, discard(DEALER, "10C")).state
    assert s.phase is Phase.PROPOSAL and s.turn == ELDER
    assert ActionKind.PROPOSE in {a.kind for a in RULES.legal_actions(s, None)}
    s = ok(s, propose(ELDER)).state
    s = ok(s, accept(DEALER)).state
    assert s.phase is Phase.ELDER_DISCARD


def test_E_EXCH_8_discards_hidden_from_the_other_player_counts_public() -> None:
    """E-EXCH-8: discards are out of play, seen only by their owner; counts public."""
    s = ok(fresh(phase=Phase.ELDER_DISCARD), discard(ELDER, "7D 8D")).state
    out = ok(s, discard(DEALER, "10C"))
    s = out.state
    mine = RULES.view(s, Viewer.of_seat(ELDER)).seats
    theirs = RULES.view(s, Viewer.of_seat(DEALER)).seats
    assert mine[ELDER].discards == tuple(sorted(cards("7D 8D")))
    assert mine[DEALER].discards is None and mine[DEALER].discard_count == 1
    assert theirs[ELDER].discards is None and theirs[ELDER].discard_count == 2
    for viewer in (PUBLIC_VIEWER, Viewer.of_spectator("gallery")):
        seats = RULES.view(s, viewer).seats
        assert all(x.discards is None and x.hand is None for x in seats)
    ev = RULES.redact_events(s, out.events, Viewer.of_seat(ELDER))
    (x,) = [e for e in ev if isinstance(e, Exchanged)]
    assert x.count == 1 and x.discarded == () and x.drawn == ()
    ev = RULES.redact_events(s, out.events, Viewer.of_seat(DEALER))
    (x,) = [e for e in ev if isinstance(e, Exchanged)]
    assert x.discarded == (cards("10C")[0],) and len(x.drawn) == 1
    # Out of play: a discarded card cannot be played or discarded again.
    assert s.discards[DEALER] & mask("10C")


def _deal_score(state: EcarteState) -> DealScored:
    _, events = play_out(state)
    (scored,) = [e for e in events if isinstance(e, DealScored)]
    return scored


def test_E_EXCH_9_original_hands_when_the_elder_plays_at_once() -> None:
    """E-EXCH-9: no proposal: the deal is played on its original hands."""
    s = ok(fresh(config=EcarteConfig(target_points=9)), play(ELDER, "7D")).state
    assert _deal_score(s).original_hands


def test_E_EXCH_9_original_hands_when_the_first_proposal_is_refused() -> None:
    """E-EXCH-9: the dealer refused the first proposal: original hands."""
    s = fresh(config=EcarteConfig(target_points=9))
    s = ok(ok(s, propose(ELDER)).state, refuse(DEALER)).state
    assert _deal_score(s).original_hands


def test_E_EXCH_9_not_original_after_an_exchange() -> None:
    """E-EXCH-9: an exchange happened, then a refusal: not original hands."""
    s = fresh(config=EcarteConfig(target_points=9))
    s = ok(ok(s, propose(ELDER)).state, accept(DEALER)).state
    s = ok(ok(s, discard(ELDER, "9S")).state, discard(DEALER, "10C")).state
    s = ok(ok(s, propose(ELDER)).state, refuse(DEALER)).state
    assert not _deal_score(s).original_hands


def test_E_EXCH_9_the_view_tells_original_hands_through_the_exchange() -> None:
    """E-EXCH-9: every view says whether the deal is still on its original hands: yes
    until the first discard, no from the elder's discard on (the responder not yet
    having discarded), and for the rest of the deal."""
    s = ok(ok(fresh(), propose(ELDER)).state, accept(DEALER)).state
    assert RULES.view(s, PUBLIC_VIEWER).original_hands
    s = ok(s, discard(ELDER, "9S")).state
    assert s.phase is Phase.RESPONDER_DISCARD
    for viewer in (PUBLIC_VIEWER, Viewer.of_seat(ELDER), Viewer.of_seat(DEALER)):
        assert not RULES.view(s, viewer).original_hands
    s = ok(s, discard(DEALER, "10C")).state
    assert not RULES.view(s, PUBLIC_VIEWER).original_hands
