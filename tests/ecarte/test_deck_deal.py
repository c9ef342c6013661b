"""E-DECK, E-SEAT, E-DEAL: the pack, the seats, the cut and the deal."""

from __future__ import annotations

import json
import random

import pytest

from referee.cards import ECARTE_DECK, name, parse
from referee.games.base import InvalidInput
from referee.games.ecarte import RULES
from referee.games.ecarte.deck import BEATS, STRENGTH, beats, ecarte_pack
from referee.games.ecarte.state import (
    DealerCut,
    Dealt,
    EcarteConfig,
    GameWon,
    KingTurned,
    Packets,
    Phase,
    PointsScored,
    ScoreReason,
)
from referee.shuffle import CUT_SHUFFLE, shuffle, shuffle_exact
from tests.conftest import shared_dir
from tests.ecarte.helpers import c, is_king, order_index, pack, random_playout, seed_where


def _all_cards(state: object) -> list[int]:
    from referee.games.ecarte.state import EcarteState

    assert isinstance(state, EcarteState)
    out: list[int] = []
    for h in (*state.hands, *state.discards):
        out += [x for x in range(52) if h >> x & 1]
    return [*out, state.turn_up, *state.stock, *state.tricks]


# ---------------------------------------------------------------- E-DECK


def test_E_DECK_1_thirty_two_cards_each_once() -> None:
    """E-DECK-1: A, 7 .. K of each suit, 32 cards; every deal holds each exactly once."""
    assert len(ECARTE_DECK) == 32
    assert sorted(name(x)[:-1] for x in ECARTE_DECK if name(x).endswith("S")) == sorted(
        ["A", "7", "8", "9", "10", "J", "Q", "K"]
    )
    for i in range(20):
        state, _ = RULES.new_game(EcarteConfig(), i.to_bytes(32, "big"))
        every = _all_cards(state)
        assert len(every) == 32 and sorted(every) == sorted(ECARTE_DECK)


def test_E_DECK_1_a_card_outside_the_pack_is_malformed() -> None:
    """E-DECK-1: a two of clubs is not an Écarté card: the request is malformed."""
    from referee.games.ecarte.state import ActionKind, EcarteAction
    from tests.ecarte.helpers import build, seat

    state = build("KS QS JS 7H 8H", "AS 10S 9S 7D 8D", "7C")
    with pytest.raises(InvalidInput) as e:
        RULES.apply(state, EcarteAction(seat(1), ActionKind.PLAY, parse("2C")))
    assert e.value.violations[0].field == "play.card"


def test_E_DECK_2_order_king_high_ace_between_jack_and_ten() -> None:
    """E-DECK-2: K > Q > J > A > 10 > 9 > 8 > 7 within a suit (checked against the
    order written out independently in the test helpers)."""
    for a in ECARTE_DECK:
        for b in ECARTE_DECK:
            if a // 13 == b // 13 and a != b:
                assert beats(a, b, trump=(a // 13 + 1) % 4) == (order_index(b) > order_index(a))
                assert bool(BEATS[a] >> b & 1) == (order_index(b) > order_index(a))
    assert STRENGTH[c("AS")] > STRENGTH[c("10S")]
    assert STRENGTH[c("JS")] > STRENGTH[c("AS")]
    assert STRENGTH[c("7S")] == 0 and STRENGTH[c("KS")] == 7


# ---------------------------------------------------------------- shuffle


def test_E_DEAL_1_pack_equals_the_SHUF_reference() -> None:
    """E-DEAL-1 / SHUF-1 .. SHUF-3: the pack of a deal is the rulebook's shuffle, drawn
    word by word as the rulebook words it."""
    rng = random.Random(7)
    for _ in range(300):
        seed = rng.randbytes(32)
        k = rng.randrange(1 << 32)
        assert list(ecarte_pack(seed, k)) == shuffle_exact(seed, k, ECARTE_DECK)


def test_E_DEAL_1_golden_vectors() -> None:
    """SHUF golden vectors (shared/vectors/shuffle.json, ecarte32 lists)."""
    data = json.loads((shared_dir() / "vectors" / "shuffle.json").read_text())
    checked = 0
    for vector in data["vectors"]:
        seed = bytes.fromhex(vector["seed"])
        for sh in vector["shuffles"]:
            if "ecarte32" in sh:
                assert [name(x) for x in ecarte_pack(seed, sh["k"])] == sh["ecarte32"]
                checked += 1
    assert checked


# ---------------------------------------------------------------- E-SEAT


def test_E_SEAT_1_two_seats_three_with_a_trois_only() -> None:
    """E-SEAT-1: two seats by default; three only (E-VAR-5); other counts are errors."""
    state, _ = RULES.new_game(EcarteConfig(), bytes(32))
    assert len(state.hands) == 2
    state, _ = RULES.new_game(EcarteConfig(seats=3), bytes(32))
    assert len(state.hands) == 3
    for n in (0, 1, 4):
        with pytest.raises(InvalidInput) as e:
            RULES.new_game(EcarteConfig(seats=n), bytes(32))
        assert e.value.violations[0].field == "seats"


@pytest.mark.parametrize("seats", [2, 3])
def test_E_SEAT_2_cut_lowest_card_deals(seats: int) -> None:
    """E-SEAT-2 / CUT: seat i draws card i of the cut pack; the lowest card in Écarté
    order deals (7 lowest, ace between jack and ten, suits ignored); ties recut."""
    ties = 0
    ace_vs_ten = 0
    for i in range(200):
        seed = i.to_bytes(32, "big")
        state, events = RULES.new_game(EcarteConfig(seats=seats), seed)
        cut = events[0]
        assert isinstance(cut, DealerCut)
        pack = shuffle(seed, CUT_SHUFFLE, ECARTE_DECK)
        # Replay CUT-1/CUT-2 independently with the written-out order.
        pos, contenders = 0, list(range(seats))
        draws: list[list[int]] = [[] for _ in range(seats)]
        while True:
            for s in contenders:
                draws[s].append(pack[pos])
                pos += 1
            low = min(order_index(draws[s][-1]) for s in contenders)
            contenders = [s for s in contenders if order_index(draws[s][-1]) == low]
            if len(contenders) == 1:
                break
        assert cut.dealer == contenders[0] == state.dealer
        assert [list(d) for d in cut.draws] == draws
        ties += any(len(d) > 1 for d in draws)
        firsts = {name(d[0])[:-1] for d in draws}
        ace_vs_ten += {"A", "10"} <= firsts and len(draws[0]) == 1
    assert ties, "some seed should exercise a recut"
    assert ace_vs_ten, "some seed should cut an ace against a ten"


def test_E_SEAT_2_fixed_first_dealer() -> None:
    """E-SEAT-2: a configured first dealer deals; there is no cut."""
    for d in (0, 1):
        state, events = RULES.new_game(EcarteConfig(first_dealer=d), bytes(32))
        assert state.dealer == d
        assert not any(isinstance(e, DealerCut) for e in events)
    with pytest.raises(InvalidInput) as e:
        RULES.new_game(EcarteConfig(first_dealer=2), bytes(32))
    assert e.value.violations[0].field == "first_dealer"


@pytest.mark.parametrize("seats", [2, 3])
def test_E_SEAT_3_deal_alternates_every_deal_and_across_games(seats: int) -> None:
    """E-SEAT-3: the deal passes to the left after every deal, also between games."""
    cfg = EcarteConfig(seats=seats, first_dealer=1, target_points=2, games_to_win=3)
    _, _, events = random_playout(cfg, bytes(32), random.Random(3))
    dealt = [e for step in events for e in step if isinstance(e, Dealt)]
    games = [e for step in events for e in step if isinstance(e, GameWon)]
    assert len(games) >= 3
    assert [e.deal for e in dealt] == list(range(len(dealt)))
    assert [e.dealer for e in dealt] == [(1 + d) % seats for d in range(len(dealt))]


# ---------------------------------------------------------------- E-DEAL


@pytest.mark.parametrize("packets", list(Packets))
def test_E_DEAL_1_to_3_deal_d_uses_shuffle_d(packets: Packets) -> None:
    """E-DEAL-1: deal d uses shuffle d. E-DEAL-2: packets, elder first. E-DEAL-3:
    position 10 turned up (trumps), 11 .. 31 the stock, 11 on top."""
    if packets is Packets.THREE_TWO:
        elder_pos, resp_pos = [0, 1, 2, 6, 7], [3, 4, 5, 8, 9]
    else:
        elder_pos, resp_pos = [0, 1, 4, 5, 6], [2, 3, 7, 8, 9]
    cfg = EcarteConfig(first_dealer=0, packets=packets, games_to_win=2)
    states, _, events = random_playout(cfg, bytes.fromhex("ab" * 32), random.Random(1))
    seen = 0
    for e in (e for step in events for e in step):
        if isinstance(e, Dealt):
            p = pack(bytes.fromhex("ab" * 32), e.deal)
            assert sorted(e.hands[e.elder]) == sorted(p[i] for i in elder_pos)
            assert sorted(e.hands[e.responder]) == sorted(p[i] for i in resp_pos)
            assert e.turn_up == p[10]
            seen += 1
    assert seen > 3 and states
    first, _ = RULES.new_game(cfg, bytes.fromhex("ab" * 32))
    p0 = pack(bytes.fromhex("ab" * 32), 0)
    assert first.turn_up == p0[10] and first.trump == p0[10] // 13
    assert list(first.stock) == p0[11:]
    # The elder is the non-dealer: with dealer 0 the elder is seat 1.
    assert first.hands[1] == sum(1 << p0[i] for i in elder_pos)


def test_E_DEAL_4_turned_king_scores_the_dealer_at_once() -> None:
    """E-DEAL-4: a turned-up king gives the dealer 1 point at once."""
    seed = seed_where(lambda s: is_king(pack(s, 0)[10]))
    state, events = RULES.new_game(EcarteConfig(first_dealer=0), seed)
    assert state.points == (1, 0)
    assert any(isinstance(e, KingTurned) and e.seat == 0 for e in events)
    scored = [e for e in events if isinstance(e, PointsScored)]
    assert [(e.seat, e.reason, e.points) for e in scored] == [(0, ScoreReason.TURNED_KING, 1)]
    assert state.phase is Phase.PROPOSAL


def test_E_DEAL_4_turned_king_reaching_the_target_ends_the_game() -> None:
    """E-DEAL-4 / E-END-1: the turned king's point reaching the target ends the game;
    the deal is not played (no action is legal: the match of one game is over)."""
    seed = seed_where(lambda s: is_king(pack(s, 0)[10]))
    state, events = RULES.new_game(EcarteConfig(first_dealer=1, target_points=1), seed)
    assert state.phase is Phase.MATCH_OVER
    assert state.points == (0, 1) and state.games_won == (0, 1)
    assert RULES.legal_actions(state, None) == []
    assert state.tricks == b""
    assert any(isinstance(e, GameWon) and e.seat == 1 for e in events)


def test_E_DEAL_5_deal_cut_short_uses_the_next_shuffle_at_once() -> None:
    """E-DEAL-5: a deal cut short by a king ending the game is followed at once by the
    next deal, with the next shuffle number and the next dealer; scores restart."""
    seed = seed_where(lambda s: is_king(pack(s, 0)[10]) and not is_king(pack(s, 1)[10]))
    cfg = EcarteConfig(first_dealer=0, target_points=1, games_to_win=2)
    state, events = RULES.new_game(cfg, seed)
    pack1 = pack(seed, 1)
    assert state.phase is Phase.PROPOSAL
    assert state.deal == 1 and state.dealer == 1
    assert state.games_won == (1, 0) and state.points == (0, 0)
    assert state.turn_up == pack1[10]
    assert [type(e).__name__ for e in events] == [
        "Dealt",
        "KingTurned",
        "PointsScored",
        "GameWon",
        "Dealt",
    ]


def test_E_DEAL_5_next_deal_dealt_when_the_tricks_end() -> None:
    """E-DEAL-5: after the fifth trick the next deal is dealt in the same answer."""
    cfg = EcarteConfig(first_dealer=0, target_points=99)
    states, _, events = random_playout(cfg, bytes(32), random.Random(5), max_steps=40)
    for before, after, evs in zip(states, states[1:], events[1:], strict=False):
        if len(before.tricks) == 9 and after.deal == before.deal + 1:
            names = [type(e).__name__ for e in evs]
            assert names[:3] == ["CardPlayed", "TrickWon", "DealScored"]
            assert "Dealt" in names
            assert after.phase is Phase.PROPOSAL and after.tricks == b""
            assert after.dealer == 1 - before.dealer
            return
    raise AssertionError("no deal ended in 40 random steps")
