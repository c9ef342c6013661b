"""E-VAR: the variants, as options of the configuration."""

from __future__ import annotations

import random

import pytest

from referee.games.base import PUBLIC_VIEWER, Actor, InvalidInput, Viewer
from referee.games.ecarte import RULES
from referee.games.ecarte import violations as V
from referee.games.ecarte.jeux import is_jeu_de_regle
from referee.games.ecarte.state import (
    ActionKind,
    EcarteAction,
    EcarteConfig,
    EcarteState,
    GameWon,
    KingTurned,
    Phase,
    PointsScored,
    SpectatorNet,
    TrickWon,
    Wager,
    WagerPlaced,
    WagerSettled,
)
from tests.ecarte.helpers import (
    accept,
    announce,
    build,
    discard,
    is_king,
    mask,
    ok,
    pack,
    play,
    play_out,
    propose,
    random_playout,
    refuse,
    rejected,
    rule_ids,
    seed_where,
    wager,
)
from tests.ecarte.test_score_end import POINT_D, POINT_E, VOLE_D

ELDER, DEALER = 1, 0


def variant(vid: str) -> dict[str, str]:
    (v,) = [v for v in RULES.variants if v.id == vid]
    return dict(v.settings)


# ---------------------------------------------------------------- E-VAR-1


@pytest.mark.parametrize(
    ("target", "before", "wins"), [(3, 2, True), (11, 9, True), (11, 8, False)]
)
def test_E_VAR_1_target_points(target: int, before: int, wins: bool) -> None:
    """E-VAR-1: rapide 3, Napoléon 11, any target 1 .. 99: the game ends at the target."""
    cfg = EcarteConfig(target_points=target)
    s = build(*POINT_D, "7C", phase=Phase.TRICKS, config=cfg, points=(before, 0))
    after, _ = play_out(s)  # a raised point: 2 points to the dealer
    assert (after.phase is Phase.MATCH_OVER) == wins
    assert after.points[DEALER] == before + 2


def test_E_VAR_1_range_and_named_variants() -> None:
    """E-VAR-1: 1 .. 99; rapide and Napoléon are listed variants."""
    assert variant("ecarte_rapide") == {"target_points": "3"}
    assert variant("ecarte_de_napoleon") == {"target_points": "11"}
    for bad in (0, 100):
        with pytest.raises(InvalidInput) as e:
            RULES.new_game(EcarteConfig(target_points=bad), bytes(32))
        assert e.value.violations[0].field == "target_points"
    for good in (1, 99):
        RULES.new_game(EcarteConfig(target_points=good), bytes(32))


# ---------------------------------------------------------------- E-VAR-2


def test_E_VAR_2_match_length() -> None:
    """E-VAR-2: games to win 1 .. 9; trois manches gagnantes is 3."""
    assert variant("trois_manches") == {"games_to_win": "3"}
    assert variant("cinq_manches") == {"games_to_win": "5"}
    for bad in (0, 10):
        with pytest.raises(InvalidInput):
            RULES.new_game(EcarteConfig(games_to_win=bad), bytes(32))
    cfg = EcarteConfig(games_to_win=3, target_points=3)
    states, _, events = random_playout(cfg, bytes(32), random.Random(9))
    final = states[-1]
    assert max(final.games_won) == 3 and final.phase is Phase.MATCH_OVER
    games = [e for step in events for e in step if isinstance(e, GameWon)]
    assert len(games) == sum(final.games_won) and [g.game for g in games] == list(range(len(games)))


# ---------------------------------------------------------------- E-VAR-3


STAKES = EcarteConfig(target_points=9, stake=10, vole_multiplier=2, king_multiplier=3)


@pytest.mark.parametrize(
    ("hands", "exchanged", "seat", "points", "chips"),
    [
        (POINT_E, False, ELDER, 1, 10),  # the point: 1 x stake
        (POINT_D, False, DEALER, 2, 20),  # a raised point: 2 x stake
        (VOLE_D, True, DEALER, 2, 40),  # a vole: 2 x stake x vole multiplier
        (VOLE_D, False, DEALER, 3, 60),  # a raised vole: 3 x stake x vole multiplier
    ],
)
def test_E_VAR_3_stakes_per_point(
    hands: tuple[str, str], exchanged: bool, seat: int, points: int, chips: int
) -> None:
    """E-VAR-3: every point is paid by the opponent at the stake; vole points at the
    stake times the vole multiplier."""
    s = build(
        *hands,
        "7C",
        phase=Phase.TRICKS,
        config=STAKES,
        discards={ELDER: "9S", DEALER: "10S"} if exchanged else None,
    )
    after, events = play_out(s)
    (p,) = [e for e in events if isinstance(e, PointsScored)]
    assert (p.seat, p.points, p.chips, p.payer) == (seat, points, chips, 1 - seat)
    assert after.chips[seat] == chips and after.chips[1 - seat] == -chips


def test_E_VAR_3_king_points_at_the_king_multiplier() -> None:
    """E-VAR-3: a king (announced or turned) pays stake x king multiplier."""
    s = build("7D 8D 9D 7H 9S", "KC QC JC 10H KS", "7C", config=STAKES)
    after = ok(s, announce(DEALER)).state
    assert after.chips == (30, -30)
    seed = seed_where(lambda x: is_king(pack(x, 0)[10]))
    state, events = RULES.new_game(EcarteConfig(first_dealer=0, stake=10, king_multiplier=3), seed)
    assert state.chips == (30, -30)
    assert any(isinstance(e, KingTurned) for e in events)


def test_E_VAR_3_no_stakes_no_chips() -> None:
    """E-VAR-3: stake 0 (the default) turns the variant off."""
    s = build(*VOLE_D, "7C", phase=Phase.TRICKS, config=EcarteConfig(target_points=9))
    after, events = play_out(s)
    assert after.chips == (0, 0)
    assert all(e.chips == 0 and e.payer == -1 for e in events if isinstance(e, PointsScored))
    assert variant("avec_enjeux")["stake"] == "1"


# ---------------------------------------------------------------- E-VAR-4

GALLERY = EcarteConfig(target_points=5, gallery=True, wager_limit=50)


def gallery(phase: Phase = Phase.PROPOSAL, **kw: object) -> EcarteState:
    return build(*POINT_D, "7C", phase=phase, config=GALLERY, **kw)  # type: ignore[arg-type]


def test_E_VAR_4_wagers_need_the_gallery() -> None:
    """E-VAR-4: without Écarté au Cercle there are no wagers."""
    s = build(*POINT_D, "7C")
    assert RULES.legal_actions(s, Actor.of_spectator("ann")) == []
    assert rejected(s, wager("ann", 0, 5)) == [V.WAGERS_NOT_ALLOWED]
    assert variant("au_cercle") == {"gallery": "true"}


def test_E_VAR_4_wager_window_before_the_first_lead() -> None:
    """E-VAR-4: wagers are taken during the exchange and after a refusal before the
    lead; after the first lead the window is closed."""
    open_states = [gallery(), gallery(Phase.ANSWER), gallery(Phase.ELDER_DISCARD)]
    open_states.append(ok(ok(gallery(), propose(ELDER)).state, refuse(DEALER)).state)
    for s in open_states:
        listed = RULES.legal_actions(s, Actor.of_spectator("ann"))
        assert [(a.kind, a.seat, a.amount, a.amount_max) for a in listed] == [
            (ActionKind.WAGER, 0, 1, 50),
            (ActionKind.WAGER, 1, 1, 50),
        ]
        ok(s, wager("ann", 1, 50))
    closed = ok(open_states[-1], play(ELDER, "8D")).state
    assert RULES.legal_actions(closed, Actor.of_spectator("ann")) == []
    assert rejected(closed, wager("ann", 1, 5)) == [V.WAGER_WINDOW_CLOSED]
    assert rule_ids(closed, wager("ann", 1, 5)) == ["E-VAR-4"]


def test_E_VAR_4_wager_amount_positive_and_within_the_limit() -> None:
    """E-VAR-4: a positive whole number, at most the configured limit."""
    s = gallery()
    assert rejected(s, wager("ann", 0, 51)) == [V.WAGER_OVER_LIMIT]
    assert rejected(s, wager("ann", 0, 0)) == [V.WAGER_NOT_POSITIVE]
    ok(s, wager("ann", 0, 1))
    ok(s, wager("ann", 0, 50))
    # A spectator is named by 1 to 128 characters (shorter and longer: request errors).
    ok(s, wager("a", 0, 1))
    ok(s, wager("x" * 128, 0, 1))
    with pytest.raises(InvalidInput):
        RULES.new_game(EcarteConfig(gallery=True, wager_limit=1_000_001), bytes(32))


def test_E_VAR_4_only_spectators_wager_spectators_only_wager() -> None:
    """E-VAR-4: seats cannot wager; a spectator's only action is a wager."""
    s = gallery()
    seat_wager = EcarteAction(Actor.of_seat(ELDER), ActionKind.WAGER, seat=0, amount=5)
    assert rejected(s, seat_wager) == [V.SEAT_CANNOT_WAGER]
    spectator_play = EcarteAction(
        Actor.of_spectator("ann"), ActionKind.PLAY, card=mask("8D").bit_length() - 1
    )
    assert rejected(s, spectator_play) == [V.SPECTATOR_CANNOT_PLAY]


def test_E_VAR_4_wagers_are_public_and_settled_at_even_money() -> None:
    """E-VAR-4: any number of wagers, on any seat, public; settled when the game ends;
    the state keeps each spectator's net result."""
    s = build(*VOLE_D, "7C", config=GALLERY, points=(4, 0))
    for action in (
        wager("ann", 0, 10),
        wager("ann", 1, 5),
        wager("bob", 1, 7),
        wager("cy", 0, 1),  # the smallest wager, won
    ):
        out = ok(s, action)
        assert isinstance(out.events[0], WagerPlaced)
        s = out.state
    assert s.wagers == (
        Wager("ann", 0, 10),
        Wager("ann", 1, 5),
        Wager("bob", 1, 7),
        Wager("cy", 0, 1),
    )
    for viewer in (PUBLIC_VIEWER, Viewer.of_spectator("zed"), Viewer.of_seat(0)):
        assert RULES.view(s, viewer).wagers == s.wagers
    board = RULES.scoreboard(s)
    assert [(x.spectator, x.net, x.open_wagers) for x in board.spectators] == [
        ("ann", 0, 15),
        ("bob", 0, 7),
        ("cy", 0, 1),
    ]
    s = ok(s, play(ELDER, "7D")).state
    after, events = play_out(s)  # the dealer's vole ends the game: seat 0 wins
    settled = [e for e in events if isinstance(e, WagerSettled)]
    assert [(e.spectator, e.seat, e.won, e.net) for e in settled] == [
        ("ann", 0, True, 10),
        ("ann", 1, False, 5),
        ("bob", 1, False, -7),
        ("cy", 0, True, 1),
    ]
    assert after.wagers == ()
    assert after.ledger == (SpectatorNet("ann", 5), SpectatorNet("bob", -7), SpectatorNet("cy", 1))
    board = RULES.scoreboard(after)
    assert [(x.spectator, x.net, x.open_wagers) for x in board.spectators] == [
        ("ann", 5, 0),
        ("bob", -7, 0),
        ("cy", 1, 0),
    ]


def test_E_VAR_4_wagers_stay_open_across_deals_of_a_game() -> None:
    """E-VAR-4: a wager is on the winner of the game, settled at its end only."""
    s = ok(gallery(points=(0, 0)), wager("ann", 1, 5)).state
    s = ok(s, play(ELDER, "8D")).state
    after, events = play_out(s)
    assert after.deal == 1 and after.phase is not Phase.MATCH_OVER
    assert after.wagers == (Wager("ann", 1, 5),)
    assert not any(isinstance(e, WagerSettled) for e in events)


def test_E_VAR_4_spectators_see_no_hidden_cards() -> None:
    """E-VAR-4: spectators never see hidden cards."""
    v = RULES.view(gallery(), Viewer.of_spectator("ann"))
    assert all(x.hand is None and x.discards is None for x in v.seats)


# ---------------------------------------------------------------- E-VAR-5


def test_E_VAR_5_the_seat_sitting_out_is_told_every_rule_it_breaks() -> None:
    """E-VAR-5 with E-TURN, E-PHASE, E-CARD and E-KING-2 ("every rejection names the
    rules broken"): the dealer sitting out is never on turn and holds no card, so its
    actions name each rule they break, SEAT_SITS_OUT first (D-16); its announcement,
    which E-TURN excepts, names the king it does not hold."""
    s = build("7D 8D 9D 7H 9S", "KC QC JC 10H KS", "7C", config=EcarteConfig(seats=3))
    sits_out = s.dealer
    assert s.hands[sits_out] == 0 and s.phase is Phase.PROPOSAL
    # The elder may play at once (E-EXCH-1): a play is in phase; a discard is not.
    assert rejected(s, play(sits_out, "7D")) == [
        V.SEAT_SITS_OUT,
        V.NOT_YOUR_TURN,
        V.CARD_NOT_IN_HAND,
    ]
    assert rule_ids(s, play(sits_out, "7D")) == ["E-VAR-5", "E-TURN", "E-CARD"]
    assert rejected(s, announce(sits_out)) == [V.SEAT_SITS_OUT, V.KING_NOT_HELD]
    assert rejected(s, discard(sits_out, "KC")) == [
        V.SEAT_SITS_OUT,
        V.NOT_YOUR_TURN,
        V.WRONG_PHASE,
        V.CARD_NOT_IN_HAND,
    ]
    # A wager is judged by its own rules only (D-6, D-16): no seat may wager.
    with_gallery = build(
        "7D 8D 9D 7H 9S", "KC QC JC 10H KS", "7C", config=EcarteConfig(seats=3, gallery=True)
    )
    seat_wager = EcarteAction(Actor.of_seat(sits_out), ActionKind.WAGER, seat=0, amount=5)
    assert rejected(with_gallery, seat_wager) == [V.SEAT_CANNOT_WAGER]


def test_E_VAR_5_a_trois_dealer_sits_out_right_hand_takes_the_dealers_role() -> None:
    """E-VAR-5: the dealer deals and sits out; the player to the dealer's left is the
    elder; the player to the dealer's right answers and exchanges second."""
    for dealer in range(3):
        state, _ = RULES.new_game(EcarteConfig(seats=3, first_dealer=dealer), bytes(32))
        elder, responder = (dealer + 1) % 3, (dealer + 2) % 3
        assert state.hands[dealer] == 0
        assert state.hands[elder].bit_count() == state.hands[responder].bit_count() == 5
        assert state.turn == elder
        assert RULES.legal_actions(state, Actor.of_seat(dealer)) == []
        # D-16: named first, with every other rule broken (D-6): never on turn, no card.
        assert rejected(state, propose(dealer)) == [V.SEAT_SITS_OUT, V.NOT_YOUR_TURN]
        assert rule_ids(state, announce(dealer)) == ["E-VAR-5", "E-KING-2"]
        s = ok(state, propose(elder)).state
        assert s.turn == responder
        assert rejected(s, accept(dealer)) == [V.SEAT_SITS_OUT, V.NOT_YOUR_TURN]
        s = ok(s, accept(responder)).state
        assert s.turn == elder
        first = next(a for a in RULES.legal_actions(s, None) if a.kind is ActionKind.DISCARD)
        s = ok(s, first).state
        assert s.phase is Phase.RESPONDER_DISCARD and s.turn == responder
        assert RULES.view(s, PUBLIC_VIEWER).seats[dealer].sits_out


def test_E_VAR_5_deal_passes_left_and_bonus_goes_to_the_dealers_role() -> None:
    """E-VAR-5: the responder scores the raised points; the deal passes to the left;
    stakes are paid between the two players of the deal."""
    cfg = EcarteConfig(seats=3, target_points=9, stake=10)
    # Dealer 1: elder seat 2, responder seat 0.
    s = build(*VOLE_D, "7C", phase=Phase.TRICKS, config=cfg, dealer=1)
    after, events = play_out(s)
    (p,) = [e for e in events if isinstance(e, PointsScored)]
    assert (p.seat, p.points, p.payer) == (0, 3, 2)
    assert after.points == (3, 0, 0) and after.chips == (60, 0, -60)
    assert after.dealer == 2 and after.hands[2] == 0


def test_E_VAR_5_trick_events_name_the_winner_and_leader_for_every_pair_of_seats() -> None:
    """E-VAR-5 / E-PLAY-7: à trois any two seats play the deal; the trick event names
    the right winner and leader for every ordered pair, whatever was played before
    (same trick, same cards, other seats)."""
    cfg = EcarteConfig(seats=3)
    for _ in range(2):  # a second pass meets whatever the first one left behind
        for dealer in range(3):
            elder, responder = (dealer + 1) % 3, (dealer + 2) % 3
            for follow, winner in (("KS", responder), ("7S", elder)):
                s = build(
                    "8H 9H JH QH",
                    f"{follow} 8D 9D JD QD",
                    "7H",
                    phase=Phase.TRICKS,
                    config=cfg,
                    dealer=dealer,
                    tricks="9S",
                )
                events = ok(s, play(responder, follow)).events
                (won,) = [e for e in events if isinstance(e, TrickWon)]
                assert (won.trick, won.seat, won.leader) == (0, winner, elder)


def test_E_VAR_5_turned_king_scores_the_dealers_role() -> None:
    """E-VAR-5 / E-DEAL-4: à trois the turned king scores for the responder."""
    seed = seed_where(lambda x: is_king(pack(x, 0)[10]))
    state, _ = RULES.new_game(EcarteConfig(seats=3, first_dealer=0), seed)
    assert state.points == (0, 0, 1)


def test_E_VAR_5_every_seat_its_own_score_first_to_target_wins() -> None:
    """E-VAR-5: each seat has its own score; the first to the target wins the game."""
    cfg = EcarteConfig(seats=3, target_points=3, games_to_win=2)
    states, _, events = random_playout(cfg, bytes(32), random.Random(4))
    for e in (e for step in events for e in step):
        if isinstance(e, GameWon):
            assert e.points[e.seat] >= 3
            assert sum(p >= 3 for p in e.points) == 1
    assert states[-1].phase is Phase.MATCH_OVER


# ---------------------------------------------------------------- E-VAR-6

JEUX = [
    # (hand, trumps suit letter, is a jeu de règle, clause)
    ("7C 8C 9C 7D 8H", "C", True, "a: three trumps"),
    ("7C 8C KD 7H 8S", "C", True, "b: two trumps and a plain king"),
    ("7C 8C 7D 8D 9D", "C", True, "b: two trumps and three of a plain suit"),
    ("7C 8C 7D 8D 9H", "C", False, "b: two trumps, nothing else"),
    ("7C 7D 8D 9D 10D", "C", True, "c: one trump and four of a plain suit"),
    ("7C KD KH 7S 8S", "C", True, "c: one trump and two plain kings"),
    ("7C KD QD 7S 8H", "C", True, "c: one trump and king-queen of a plain suit"),
    ("7C KD QH 7S 8H", "C", False, "c: one trump, king and queen of different suits"),
    ("7C 7D 8D 9D 10H", "C", False, "c: one trump and three of a plain suit"),
    ("KD KH KS 7D 8D", "C", True, "d: no trump and three kings"),
    ("KD KH 7S 7D 8D", "C", False, "d: no trump and two kings"),
    ("KC QC 7D 8H 9S", "C", False, "b: the king of trumps is a trump, not a plain king"),
    ("KC 7D 8H 9S 10S", "C", False, "c: one trump (its king) and nothing"),
]


@pytest.mark.parametrize(("hand", "trump", "expected", "clause"), JEUX)
def test_E_VAR_6_jeux_de_regle_table(hand: str, trump: str, expected: bool, clause: str) -> None:
    """E-VAR-6 (a) .. (d): the table of jeux de règle."""
    assert is_jeu_de_regle(mask(hand), "CDHS".index(trump)) is expected, clause


def test_E_VAR_6_proposal_of_a_jeu_de_regle_is_rejected() -> None:
    """E-VAR-6: the elder holding a jeu de règle may not propose and must play."""
    cfg = EcarteConfig(jeux_de_regle=True)
    s = build("7C 8C 9C 7D 8H", "QD JD KS QS JS", "10C", config=cfg)
    assert rejected(s, propose(ELDER)) == [V.JEU_DE_REGLE]
    assert rule_ids(s, propose(ELDER)) == ["E-VAR-6"]
    assert {a.kind for a in RULES.legal_actions(s, None)} == {ActionKind.PLAY}
    ok(s, play(ELDER, "7D"))
    plain = build("7C 8C 9C 7D 8H", "QD JD KS QS JS", "10C")
    ok(plain, propose(ELDER))  # without the variant the proposal stands


def test_E_VAR_6_checked_at_every_proposal_of_the_deal() -> None:
    """E-VAR-6: checked on the elder's hand at each proposal: after an exchange that
    gave a jeu de règle the next proposal is rejected."""
    cfg = EcarteConfig(jeux_de_regle=True)
    s = build(
        "7C 7D 8D 7H 8H",
        "QD JD KS QS JS",
        "10C",
        config=cfg,
        stock="8C 9C 9D 10D JC QC KC AC AD KD 9H 10H JH QH KH AH 7S 8S 9S 10S AS",
    )
    s = ok(s, propose(ELDER)).state
    s = ok(ok(s, accept(DEALER)).state, discard(ELDER, "7D 8D")).state  # draws 8C 9C
    assert is_jeu_de_regle(s.hands[ELDER], s.trump)
    s = ok(s, discard(DEALER, "QD")).state
    assert rejected(s, propose(ELDER)) == [V.JEU_DE_REGLE]


def test_E_VAR_combinations_play_out() -> None:
    """E-VAR: the variants combine freely: à trois, stakes, gallery, jeux de règle,
    2-3 packets, Napoléon, several games."""
    from referee.games.ecarte.state import Packets

    cfg = EcarteConfig(
        seats=3,
        packets=Packets.TWO_THREE,
        target_points=11,
        games_to_win=2,
        stake=5,
        vole_multiplier=3,
        king_multiplier=4,
        gallery=True,
        jeux_de_regle=True,
    )
    states, _, _ = random_playout(cfg, bytes(32), random.Random(2))
    assert states[-1].phase is Phase.MATCH_OVER
    assert sum(states[-1].chips) == 0
