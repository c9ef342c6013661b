"""validate: impossible states are errors of the request, with proto field paths."""

from __future__ import annotations

import dataclasses
import random

import pytest

from referee.cards import name
from referee.games.base import InvalidInput
from referee.games.ecarte import RULES
from referee.games.ecarte.state import (
    MAX_DEAL,
    EcarteConfig,
    EcarteState,
    Phase,
    SpectatorNet,
    Wager,
)
from referee.games.ecarte.validation import _MAX_CHIPS as MAX_CHIPS
from referee.games.ecarte.validation import validate
from tests.ecarte.helpers import build, c, mask, random_playout

ELDER, DEALER = 1, 0
E_HAND, D_HAND = "7D 8D 9D 7H 9S", "QC JC AC 10H KS"


def fields(state: EcarteState, check_deal: bool = False) -> list[str]:
    with pytest.raises(InvalidInput) as e:
        validate(state, check_deal=check_deal)
    return [v.field for v in e.value.violations]


def findings(state: EcarteState) -> list[str]:
    """The fields ``validate`` reports (the seed's deal aside); [] for a valid state."""
    try:
        validate(state, check_deal=False)
    except InvalidInput as e:
        return [v.field for v in e.violations]
    return []


def base(**kw: object) -> EcarteState:
    return build(E_HAND, D_HAND, "7C", **kw)  # type: ignore[arg-type]


def replace(state: EcarteState, **kw: object) -> EcarteState:
    return dataclasses.replace(state, **kw)  # type: ignore[arg-type]


def test_reachable_states_are_valid() -> None:
    """Every state of random matches passes, the seed's deal included."""
    cfg = EcarteConfig(games_to_win=2, target_points=3, stake=2, gallery=True)
    states, _, _ = random_playout(cfg, bytes(range(32)), random.Random(0))
    for s in states:
        RULES.validate(s)


def test_E_DECK_1_a_card_twice_or_missing() -> None:
    """E-DECK-1: every card exactly once across hands, discards, turn-up, stock, tricks."""
    s = base()
    twice = replace(s, hands=(s.hands[0], s.hands[1] | mask("KS")))
    assert "seats[1].hand" in fields(twice)
    in_stock = replace(s, stock=s.stock + bytes([c("7D")]))
    assert "stock" in fields(in_stock)
    missing = replace(s, stock=s.stock[1:])
    assert fields(missing) == ["seats"]
    with pytest.raises(InvalidInput, match=rf"cards are missing: {name(s.stock[0])} \(E-DECK-1\)"):
        validate(missing, check_deal=False)
    foreign = replace(s, hands=(s.hands[0], s.hands[1] | 1 << 1))  # the two of clubs
    assert "seats[1].hand" in fields(foreign)
    bad_byte = replace(s, stock=s.stock[:-1] + bytes([60]))
    assert "stock" in fields(bad_byte)


def test_E_DEAL_3_trump_must_match_the_turn_up() -> None:
    """E-DEAL-3: trumps are the suit of the turned-up card."""
    assert fields(replace(base(), trump=2)) == ["trump"]


def test_seats_and_turn_in_range() -> None:
    s = base()
    assert "turn" in fields(replace(s, turn=2))
    assert "turn" in fields(replace(s, turn=-1))
    assert "dealer" in fields(replace(s, dealer=5))
    assert "dealer" in fields(replace(s, dealer=2))
    assert "dealer" in fields(replace(s, dealer=-1))
    assert "deal" in fields(replace(s, deal=-1))
    assert "deal" in fields(replace(s, deal=MAX_DEAL + 1))
    validate(replace(s, deal=MAX_DEAL), check_deal=False)
    validate(replace(base(phase=Phase.ANSWER), turn=DEALER), check_deal=False)  # seat 0
    for card in (-1, 52, 60):
        assert "turn_up" in fields(replace(s, turn_up=card))
    assert fields(replace(s, points=(0, 0, 0))) == ["seats"]
    assert "seed" in fields(replace(s, seed=b"short"))
    assert "turn_up" in fields(replace(s, turn_up=1))


def test_config_out_of_range_is_prefixed() -> None:
    """E-CONF: field paths are relative to EcarteState: config.target_points."""
    s = replace(base(), config=EcarteConfig(target_points=0))
    assert fields(s) == ["config.target_points"]


def test_a_configuration_is_checked_until_it_passes() -> None:
    """Validation checks a state's configuration once it passed (check_once): a bad
    configuration fails every validation, a good one is marked and not checked again."""
    bad = EcarteConfig(target_points=0)
    for _ in range(2):
        assert fields(replace(base(), config=bad)) == ["config.target_points"]
        assert not bad.checked
    good = dataclasses.replace(base().config)  # a new configuration of the same value
    validate(replace(base(), config=good), check_deal=False)
    assert good.checked and good == base().config  # the mark is not part of its value


def test_phase_consistent_with_the_hands() -> None:
    """E-DEAL-2 / E-EXCH: five cards each until the first lead; the seat on turn
    follows from the phase; a proposal needs a stock of 2; the elder discards first."""
    s = base()
    short = replace(s, hands=(s.hands[0] & ~mask("KS"), s.hands[1]), stock=s.stock + b"\x33")
    assert "seats[0].hand" in fields(short)
    # Also when the match ended before the first lead (a king's point, E-DEAL-4/E-KING-1).
    over = replace(s, phase=Phase.MATCH_OVER, games_won=(1, 0), points=(5, 0))
    validate(over, check_deal=False)
    assert "seats[0].hand" in fields(
        replace(over, hands=short.hands, stock=short.stock), check_deal=False
    )
    assert fields(replace(s, turn=DEALER)) == ["turn"]
    answer = base(phase=Phase.ANSWER)
    assert fields(replace(answer, turn=ELDER)) == ["turn"]
    responder = base(phase=Phase.RESPONDER_DISCARD, check=False)
    assert f"seats[{ELDER}].discards" in fields(responder)
    one_sided = base(discards={ELDER: "8C"}, check=False)
    assert "seats" in fields(one_sided)


def test_tricks_consistent_with_hands_counts_and_rules() -> None:
    """E-PLAY: tricks won, hand sizes, the seat on turn and the legality of every card
    played second must agree with the tricks."""
    s = build("7D 8D 9D 7H", "QC JC AC 10H", "7C", phase=Phase.TRICKS, tricks="9S KS")
    assert s.tricks_won == (1, 0) and s.turn == DEALER
    assert f"seats[{DEALER}].tricks_won" in fields(replace(s, tricks_won=(0, 1)))
    assert "turn" in fields(replace(s, turn=ELDER))
    # The dealer answered 9S with 10H while holding KS: E-PLAY-3 was broken.
    broken = build(
        "7D 8D 9D 7H", "QC JC AC KS", "7C", phase=Phase.TRICKS, tricks="9S 10H", check=False
    )
    assert "tricks" in fields(broken)
    # The dealer trumped 9S holding KS, which it led next: a revoke seen only through
    # a card played later (the hands are rebuilt backwards from the tricks).
    revoke = build(
        "7D 8D 9D", "QC JC AC", "7C", phase=Phase.TRICKS, tricks="9S 8C KS 7S", check=False
    )
    assert revoke.turn == DEALER
    assert fields(revoke) == ["tricks"]
    # Followed without beating, holding KS (E-PLAY-4); discarded a heart, holding a
    # trump (E-PLAY-5): the message names the card and the trick.
    for hand, trick, card in (("QC JC AC KS", "9S 7S", "7S"), ("QC JC AC KH", "9S 10H", "10H")):
        bad = build("7D 8D 9D 7H", hand, "7C", phase=Phase.TRICKS, tricks=trick, check=False)
        with pytest.raises(InvalidInput) as e:
            validate(bad, check_deal=False)
        assert [(v.field, v.description) for v in e.value.violations] == [
            ("tricks", f"{card} in trick 1 broke E-PLAY-3 .. E-PLAY-5")
        ]
    # Five tricks played and the deal still on: it ends with its fifth trick (E-PLAY-8).
    done = build(
        "",
        "",
        "7C",
        phase=Phase.TRICKS,
        tricks="7D 10D JD 8D QD 9D 8H 7H 10S 9S",
        check=False,
    )
    assert "tricks" in fields(done)
    # Answered with the ace of trumps (card code 0) holding a spade.
    ace = build(
        "7D 8D 9D 7H", "QC JC KS 10H", "7C", phase=Phase.TRICKS, tricks="9S AC", check=False
    )
    assert fields(ace) == ["tricks"]
    fair = build("7D 8D 9D", "QC JC AC", "7C", phase=Phase.TRICKS, tricks="9S KS 8C 7S")
    validate(fair, check_deal=False)
    uneven = build(
        "7D 8D 9D 7H 8H", "QC JC AC 10H", "7C", phase=Phase.TRICKS, tricks="9S KS", check=False
    )
    assert f"seats[{ELDER}].hand" in fields(uneven)


def test_scores_and_chips_consistent() -> None:
    """E-END, E-VAR-3: points below the target while the match runs; chips only with
    stakes, summing to zero."""
    assert "seats[0].points" in fields(base(points=(5, 0), check=False))
    assert "phase" in fields(base(games_won=(1, 0), check=False))
    assert "seats" in fields(base(chips=(5, -5), check=False))
    staked = EcarteConfig(stake=5)
    assert "seats" in fields(base(config=staked, chips=(5, -4), check=False))
    over = base(check=False)
    over = replace(over, phase=Phase.MATCH_OVER)
    assert "seats" in fields(over)


def test_wagers_consistent() -> None:
    """E-VAR-4: wagers need the gallery; amounts within the limit; settled at the end."""
    w = (Wager("ann", 0, 10),)
    assert "wagers" in fields(base(wagers=w, check=False))
    cfg = EcarteConfig(gallery=True, wager_limit=5)
    assert "wagers[0].amount" in fields(base(config=cfg, wagers=w, check=False))
    assert "wagers[0].spectator" in fields(base(config=cfg, wagers=(Wager("", 0, 1),), check=False))


def test_wagers_and_the_ledger_at_their_bounds() -> None:
    """E-VAR-4: spectators are named by 1 .. 128 characters, wagers are on a seat of the
    table for 1 .. the limit, the ledger lists each spectator once, sorted, with a net
    within range; each bound itself is accepted."""
    cfg = EcarteConfig(gallery=True, wager_limit=5)
    s = base(config=cfg)
    x128 = "x" * 128

    def wagers(*w: Wager) -> list[str]:
        return findings(replace(s, wagers=w))

    assert wagers(Wager("a", 0, 1), Wager(x128, 1, 5)) == []
    assert wagers(Wager(x128 + "x", 0, 1)) == ["wagers[0].spectator"]
    assert wagers(Wager("ann", 2, 1)) == ["wagers[0].seat"]
    assert wagers(Wager("ann", -1, 1)) == ["wagers[0].seat"]
    assert wagers(Wager("ann", 0, 0)) == ["wagers[0].amount"]
    assert wagers(Wager("ann", 0, 6)) == ["wagers[0].amount"]

    def ledger(*x: SpectatorNet) -> list[str]:
        return findings(replace(s, ledger=x))

    big = MAX_CHIPS
    assert ledger(SpectatorNet("a", -big), SpectatorNet(x128, big)) == []
    assert ledger(SpectatorNet("", 0)) == ["spectators[0].spectator"]
    assert ledger(SpectatorNet(x128 + "x", 0)) == ["spectators[0].spectator"]
    assert ledger(SpectatorNet("bob", 1), SpectatorNet("ann", 1)) == ["spectators[1].spectator"]
    assert ledger(SpectatorNet("ann", 1), SpectatorNet("ann", 1)) == ["spectators[1].spectator"]
    assert ledger(SpectatorNet("ann", big + 1)) == ["spectators[0].net"]
    assert ledger(SpectatorNet("ann", -big - 1)) == ["spectators[0].net"]


def test_scores_at_their_bounds() -> None:
    """E-END-1, E-END-2, E-DEAL-5, E-VAR-3: a running game's points are below the target;
    the last game's winner ends 0 .. 2 points past it (a raised vole from one short);
    every game won took a deal; chips stay within range."""
    cfg = EcarteConfig(target_points=5, games_to_win=2, stake=1)
    s = base(config=cfg)
    won = replace(s, phase=Phase.MATCH_OVER, games_won=(2, 0), deal=1, points=(5, 0))
    for points in (5, 6, 7):
        validate(replace(won, points=(points, 0)), check_deal=False)
    for points in (4, 8):
        assert fields(replace(won, points=(points, 0))) == ["seats[0].points"]
    validate(replace(s, points=(4, 4)), check_deal=False)
    assert fields(replace(s, points=(0, 5))) == ["seats[1].points"]
    # A game won and the next one running: its deal is at least the second.
    second = replace(s, games_won=(1, 0))
    validate(replace(second, deal=1), check_deal=False)
    assert fields(replace(second, deal=0)) == ["deal"]
    validate(replace(won, deal=1), check_deal=False)  # the last game ended the match
    assert fields(replace(won, deal=0)) == ["deal"]
    big = MAX_CHIPS
    validate(replace(s, chips=(big, -big)), check_deal=False)
    assert fields(replace(s, chips=(big + 1, -big - 1))) == ["seats[0].chips", "seats[1].chips"]


def test_card_bytes_beyond_the_pack_are_refused() -> None:
    """E-DECK-1: a stock byte that is no card (52 and above) is an error, not a crash."""
    s = base()
    for byte in (52, 53, 255):
        assert "stock" in fields(replace(s, stock=s.stock[:-1] + bytes([byte])))


def test_king_announcement_consistent() -> None:
    """E-KING: the announcer holds (or played) the king of trumps and scored for it."""
    s = build(E_HAND, "KC JC AC 10H KS", "7C", king_announced=DEALER, points=(1, 0))
    assert fields(replace(s, king_announced=ELDER)) == ["king_announced"]
    assert fields(replace(s, points=(0, 0))) == ["seats[0].points"]


def test_a_turned_king_scored_for_the_dealer() -> None:
    """E-DEAL-4: a king turned up is a point of the dealer's while the match runs."""
    turned = build(E_HAND, D_HAND, "KC", points=(1, 0))
    validate(turned, check_deal=False)
    assert fields(replace(turned, points=(0, 0))) == [f"seats[{DEALER}].points"]
    assert fields(replace(turned, points=(0, 1))) == [f"seats[{DEALER}].points"]


def test_the_dealer_a_trois_holds_nothing() -> None:
    """E-VAR-5: the dealer of a deal à trois sits out: no hand, no discards, no tricks."""
    three = EcarteConfig(seats=3)
    s = build(E_HAND, D_HAND, "7C", config=three, dealer=2)
    validate(s, check_deal=False)
    assert fields(replace(s, tricks_won=(0, 0, 1))) == ["seats[2].hand"]
    moved = replace(s, discards=(0, 0, mask("8H")), stock=s.stock.replace(bytes([c("8H")]), b""))
    assert fields(moved) == ["seats[2].hand"]


def test_D14_the_cards_must_be_the_seeds_deal() -> None:
    """D-14: with check_deal the turn-up, stock, dealer and dealt hands are re-derived
    from the seed: a state edited by hand is refused."""
    state, _ = RULES.new_game(EcarteConfig(first_dealer=0), bytes(range(32)))
    validate(state)
    # Swap a card of the elder's hand with the top of the stock.
    card = next(x for x in range(52) if state.hands[ELDER] >> x & 1)
    top = state.stock[0]
    hands = (state.hands[0], state.hands[1] & ~(1 << card) | (1 << top))
    edited = replace(state, hands=hands, stock=bytes([card]) + state.stock[1:])
    validate(edited, check_deal=False)
    with pytest.raises(InvalidInput):
        validate(edited)  # the deal is checked unless a test says otherwise
    got = fields(edited, check_deal=True)
    assert "stock" in got and f"seats[{ELDER}].hand" in got
    assert fields(replace(state, dealer=1, turn=0), check_deal=True)[0] == "dealer"
    other_seed = replace(state, seed=bytes(32))
    assert "turn_up" in fields(other_seed, check_deal=True) or "stock" in fields(
        other_seed, check_deal=True
    )


def test_E_EXCH_6_no_trick_after_an_exchange_of_the_elder_alone() -> None:
    """E-EXCH-5 / E-EXCH-6: every exchange is both players' (the dealer discards at
    least one card): tricks after the elder alone exchanged are impossible, before or
    after the first lead and at the end of the match. Only a king's point ending the
    game during the responder's discard (E-KING-4) leaves one side's discards."""
    from tests.ecarte.helpers import announce, play_out

    elder_only = {ELDER: "8C"}
    both = {ELDER: "8C", DEALER: "9C"}
    assert fields(base(phase=Phase.TRICKS, discards=elder_only, check=False)) == ["seats"]
    validate(base(phase=Phase.TRICKS, discards=both), check_deal=False)
    hands = ("8D 9D 7H 9S", D_HAND, "7C")
    led = build(*hands, phase=Phase.TRICKS, tricks="7D", discards=elder_only, check=False)
    assert fields(led) == ["seats"]
    validate(build(*hands, phase=Phase.TRICKS, tricks="7D", discards=both), check_deal=False)
    # Played out to the end of the match: still impossible.
    last = base(phase=Phase.TRICKS, discards=elder_only, points=(4, 0), check=False)
    over, _ = play_out(last)
    assert over.phase is Phase.MATCH_OVER and len(over.tricks) == 10
    assert "seats" in fields(over)
    # The king announced during the responder's discard ends the match there: valid.
    s = build(
        "7D 8D 9D 7H 9S",
        "KC QC JC 10H KS",
        "7C",
        phase=Phase.RESPONDER_DISCARD,
        discards=elder_only,
        points=(4, 0),
    )
    ended = RULES.apply(s, announce(DEALER)).state
    assert ended.phase is Phase.MATCH_OVER and ended.discards == (0, mask("8C"))
    validate(ended, check_deal=False)


def test_E_EXCH_2_a_refusal_needs_a_proposal_with_a_stock_of_2() -> None:
    """E-EXCH-2 / E-EXCH-4: the tricks start with no card led only after a refusal,
    and the refused proposal needed a stock of at least 2 (unchanged since)."""
    from referee.cards import card_list
    from tests.ecarte.helpers import accept, discard, propose

    def names_of(m: int, k: int) -> str:
        return " ".join(name(x) for x in card_list(m)[:k])

    s, _ = RULES.new_game(EcarteConfig(first_dealer=0), bytes(range(32)))
    while len(s.stock) >= 2:
        s = RULES.apply(RULES.apply(s, propose(ELDER)).state, accept(DEALER)).state
        s = RULES.apply(s, discard(ELDER, names_of(s.hands[ELDER], len(s.stock) - 1))).state
        s = RULES.apply(s, discard(DEALER, names_of(s.hands[DEALER], len(s.stock)))).state
    assert s.phase is Phase.PROPOSAL and len(s.stock) == 1
    validate(s)  # the elder must lead
    assert fields(replace(s, phase=Phase.TRICKS), check_deal=True) == ["stock"]


def test_E_VAR_6_no_proposal_was_made_on_a_jeu_de_regle() -> None:
    """E-VAR-6: the hand a proposal was made on stays the elder's until its discard
    (and until the first lead after a refusal): it cannot be a jeu de règle there."""
    cfg = EcarteConfig(jeux_de_regle=True)
    jeu = "7C 8C 9C 7D 8H"  # three trumps (10C turned up)
    for phase in (Phase.ANSWER, Phase.ELDER_DISCARD, Phase.TRICKS):
        s = build(jeu, "QD JD KS QS JS", "10C", config=cfg, phase=phase, check=False)
        assert fields(s) == [f"seats[{ELDER}].hand"], phase
        plain = replace(s, config=EcarteConfig())
        validate(plain, check_deal=False)
    # Once the elder led (without proposing), the jeu de règle is no matter.
    led = build("8C 9C 7D 8H", "QD JD KS QS JS", "10C", config=cfg, phase=Phase.TRICKS, tricks="7C")
    validate(led, check_deal=False)


def test_E_EXCH_2_a_proposal_on_a_stock_of_exactly_2_is_valid_through_its_answer() -> None:
    """E-EXCH-2 at its edge: a stock of 2 allows a proposal, so the states it leads to
    (awaiting the answer, the elder's discard, the dealer's discard from a stock of 1,
    the tricks after a refusal) are valid."""
    from referee.cards import card_list
    from tests.ecarte.helpers import accept, discard, propose, refuse

    def names_of(m: int, k: int) -> str:
        return " ".join(name(x) for x in card_list(m)[:k])

    s, _ = RULES.new_game(EcarteConfig(first_dealer=0), bytes(range(32)))
    while len(s.stock) > 2:  # 21 -> 11 -> 2: the last exchange leaves exactly 2
        s = RULES.apply(RULES.apply(s, propose(ELDER)).state, accept(DEALER)).state
        s = RULES.apply(s, discard(ELDER, names_of(s.hands[ELDER], 5))).state
        keep = 2 if len(s.stock) <= 7 else 0
        s = RULES.apply(
            s, discard(DEALER, names_of(s.hands[DEALER], min(5, len(s.stock) - keep)))
        ).state
    assert s.phase is Phase.PROPOSAL and len(s.stock) == 2
    answer = RULES.apply(s, propose(ELDER)).state
    assert answer.phase is Phase.ANSWER
    validate(answer)
    accepted = RULES.apply(answer, accept(DEALER)).state
    validate(accepted)
    # E-EXCH-5: the elder may leave a single card in the stock for the dealer.
    one = RULES.apply(accepted, discard(ELDER, names_of(accepted.hands[ELDER], 1))).state
    assert one.phase is Phase.RESPONDER_DISCARD and len(one.stock) == 1
    validate(one)
    refused = RULES.apply(answer, refuse(DEALER)).state
    assert refused.phase is Phase.TRICKS and not refused.tricks
    validate(refused)
