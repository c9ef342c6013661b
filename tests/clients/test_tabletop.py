"""The terminal table of ``referee play`` and ``referee demo`` (referee.tabletop).

The text functions are tested on messages built here; the choices of the
person at the terminal against the real server of the ``client`` fixture.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from pathlib import Path

import pytest

from referee.client import Client, config, seat
from referee.tabletop import (
    RANKS,
    SUITS,
    GameError,
    Human,
    Quit,
    action_text,
    describe,
    ecarte_hand_order,
    event_text,
    run_game,
    table_text,
)
from referee.v1 import cards_pb2, ecarte_pb2, referee_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc

E = ecarte_pb2


def card(text: str) -> cards_pb2.Card:
    """``"10♦"`` as a Card."""
    rank, suit = RANKS.index(text[:-1]) + 1, SUITS.index(text[-1]) + 1
    return cards_pb2.Card(rank=rank, suit=suit)  # type: ignore[arg-type]


def cards(text: str) -> list[cards_pb2.Card]:
    return [card(t) for t in text.split()]


def ecarte_event(**kind: object) -> referee_pb2.Event:
    return referee_pb2.Event(ecarte=E.EcarteEvent(**kind))  # type: ignore[arg-type]


def earl_event(**kind: object) -> referee_pb2.Event:
    return referee_pb2.Event(earl_of_coventry=eoc.EarlOfCoventryEvent(**kind))  # type: ignore[arg-type]


# ---------------------------------------------------------------- events: seat 0 is a seat


def test_event_text_shows_seats_indices_and_counts_that_are_zero() -> None:
    cut = E.EcarteDealerCut(
        draws=[
            E.EcarteCutDraw(seat=0, cards=cards("A♠")),
            E.EcarteCutDraw(seat=1, cards=cards("K♠")),
        ],
        dealer=0,
    )
    assert (
        event_text(ecarte_event(dealer_cut=cut))
        == "dealer cut: draws [(seat 0, cards A♠), (seat 1, cards K♠)], dealer 0"
    )
    dealt = E.EcarteDealt(
        deal=0,
        game=0,
        dealer=1,
        elder=0,
        responder=1,
        turn_up=card("7♥"),
        stock_size=21,
        hands=[
            E.EcarteHandDealt(seat=0, card_count=5, cards=cards("A♣ 7♣ 9♣ 7♦ K♦")),
            E.EcarteHandDealt(seat=1, card_count=5),
            E.EcarteHandDealt(seat=2, card_count=0),  # à trois: the dealer sits out
        ],
    )
    assert event_text(ecarte_event(dealt=dealt)) == (
        "dealt: deal 0, game 0, dealer 1, elder 0, responder 1, turn up 7♥, stock size 21,"
        " hands [(seat 0, card count 5, cards A♣ 7♣ 9♣ 7♦ K♦), (seat 1, card count 5),"
        " (seat 2, card count 0)]"
    )
    first = E.EcarteTrickWon(trick=0, seat=1, leader=0, cards=cards("9♥ 10♥"))
    later = E.EcarteTrickWon(trick=1, seat=1, leader=1, cards=cards("K♠ 7♠"))
    assert event_text(ecarte_event(trick_won=first)) == (
        "trick won: seat 1, trick 0, leader 0, cards 9♥ 10♥"
    )
    assert event_text(ecarte_event(trick_won=later)) == (
        "trick won: seat 1, trick 1, leader 1, cards K♠ 7♠"
    )
    assert event_text(ecarte_event(proposed=E.EcarteProposed(seat=0))) == "proposed: seat 0"
    exchanged = E.EcarteExchanged(seat=0, count=5, stock_left=0)
    assert event_text(ecarte_event(exchanged=exchanged)) == (
        "exchanged: seat 0, count 5, stock left 0"
    )
    won = E.EcarteGameWon(game=0, seat=0, points=[5, 0])
    assert event_text(ecarte_event(game_won=won)) == "game won: seat 0, game 0, points [5, 0]"


def test_event_text_leaves_out_false_flags_empty_lists_and_chips_without_stakes() -> None:
    scored = E.EcarteDealScored(deal=0, seat=0, tricks=[3, 2])
    assert event_text(ecarte_event(deal_scored=scored)) == (
        "deal scored: seat 0, deal 0, tricks [3, 2]"
    )
    scored.original_hands = True
    assert event_text(ecarte_event(deal_scored=scored)).endswith(", original hands true")
    points = E.EcartePointsScored(
        seat=0, reason=E.ECARTE_SCORE_REASON_ANNOUNCED_KING, points=1, total=1
    )
    assert event_text(ecarte_event(points_scored=points)) == (
        "points scored: seat 0, reason announced king, points 1, total 1"
    )
    staked = E.EcartePointsScored(
        seat=1, reason=E.ECARTE_SCORE_REASON_POINT, points=1, total=3, chips=10, payer=0
    )
    assert event_text(ecarte_event(points_scored=staked)) == (
        "points scored: seat 1, reason point, points 1, total 3, chips 10, payer 0"
    )
    settled = E.EcarteWagerSettled(spectator="ann", seat=0, amount=5, net=0)
    assert event_text(ecarte_event(wager_settled=settled)) == (
        "wager settled: seat 0, spectator 'ann', amount 5, net 0"
    )


def test_earl_of_coventry_events_without_a_layout_show_seat_zero() -> None:
    passed = eoc.EarlOfCoventryLeadPassed(from_seat=0, to_seat=1)
    assert event_text(earl_event(lead_passed=passed)) == "lead passed: from seat 0, to seat 1"
    eliminated = eoc.EarlOfCoventrySeatEliminated(seat=0)
    assert event_text(earl_event(seat_eliminated=eliminated)) == "seat eliminated: seat 0"
    # The events with a layout of their own already named seat 0.
    cut = eoc.EarlOfCoventryDealerCut(
        draws=[eoc.EarlOfCoventryCutDraw(seat=0, cards=cards("2♠"))], dealer=0
    )
    assert event_text(earl_event(dealer_cut=cut)) == "cut for the deal: seat 0 2♠; seat 0 deals"


def test_options_and_actions() -> None:
    # In a configuration 0 means the default: only what is set is shown.
    assert describe(E.EcarteConfig(games_to_win=2), zeros=False) == "games to win 2"
    assert describe(E.EcarteConfig(first_dealer=0), zeros=False) == "first dealer 0"
    wager = referee_pb2.Action(
        ecarte=E.EcarteAction(wager=E.EcartePlaceWager(seat=0, amount=1, amount_max=100))
    )
    assert action_text(wager) == "wager seat 0, amount 1, amount max 100"
    announce = referee_pb2.Action(ecarte=E.EcarteAction(announce_king=E.EcarteAnnounceKing()))
    assert action_text(announce) == "announce king"


# ---------------------------------------------------------------- the Écarté table


def test_ecarte_hand_order_puts_trumps_first_highest_first() -> None:
    hand = cards("7♣ A♥ 9♠ K♣ A♣ 10♣ J♣ Q♥")
    ordered = ecarte_hand_order(hand, cards_pb2.SUIT_HEARTS)
    assert " ".join(f"{RANKS[c.rank - 1]}{SUITS[c.suit - 1]}" for c in ordered) == (
        "Q♥ A♥ K♣ J♣ A♣ 10♣ 7♣ 9♠"
    )


def ecarte_view(**fields: object) -> referee_pb2.GameView:
    return referee_pb2.GameView(version=7, ecarte=E.EcarteView(**fields))  # type: ignore[arg-type]


def test_ecarte_table_in_the_tricks() -> None:
    view = ecarte_view(
        config=E.EcarteConfig(games_to_win=2),
        phase=E.ECARTE_PHASE_TRICKS,
        deal=2,
        game=0,
        dealer=1,
        elder=0,
        responder=1,
        turn=1,
        turn_up=card("7♥"),
        trump=cards_pb2.SUIT_HEARTS,
        stock_count=17,
        seats=[
            E.EcarteSeatView(
                seat=0,
                card_count=3,
                hand=cards("A♠ 9♣ Q♥"),
                hand_visible=True,
                discard_count=2,
                discards=cards("7♦ 8♣"),
                tricks_won=1,
                points=2,
                games_won=1,
            ),
            E.EcarteSeatView(seat=1, card_count=4, discard_count=2, points=1),
        ],
        tricks=[
            E.EcarteTrickView(leader=0, cards=cards("A♥ 8♥"), winner=0),
            E.EcarteTrickView(leader=0, cards=cards("10♦")),
        ],
        king_announced=1,
    )
    assert table_text(view, 0) == [
        "Écarté · game 1 · deal 3 · dealer seat 1 · tricks",
        "  trumps ♥ (turned up 7♥) · stock 17 · king of trumps announced by seat 1",
        "  seat 0 (you) elder     3 cards  Q♥ 9♣ A♠        "
        "points 2/5, games 1/2, tricks 1, discarded 8♣ 7♦",
        "  seat 1       dealer    4 cards  ####            "
        "points 1/5, games 0/2, tricks 0, discarded 2  <- to answer the lead",
        "  trick 1: A♥ by seat 0, 8♥ by seat 1, won by seat 0",
        "  trick 2: 10♦ by seat 0",
    ]


def test_ecarte_table_a_trois_with_stakes_and_gallery_at_the_end() -> None:
    view = ecarte_view(
        config=E.EcarteConfig(seats=3, target_points=3, stake=1, gallery=True),
        phase=E.ECARTE_PHASE_MATCH_OVER,
        deal=4,
        game=0,
        dealer=2,
        elder=0,
        responder=1,
        turn=0,
        turn_up=card("J♠"),
        trump=cards_pb2.SUIT_SPADES,
        seats=[
            E.EcarteSeatView(seat=0, points=3, games_won=1, chips=4),
            E.EcarteSeatView(seat=1, points=1, chips=-3),
            E.EcarteSeatView(seat=2, sits_out=True, chips=-1),
        ],
        spectators=[E.EcarteSpectatorNet(spectator="ann", net=-20)],
        winner=0,
    )
    text = table_text(view)
    assert text[0] == "Écarté · game 1 · deal 5 · dealer seat 2 · match over"
    assert " ".join(text[2].split()) == (
        "seat 0 elder 0 cards points 3/3, games 1/1, tricks 0, chips +4"
    )
    assert "responder" in text[3] and "chips -3" in text[3]
    assert "sits out" in text[4] and "tricks" not in text[4]
    assert text[5:] == [
        "  wagers: none open",
        "  spectators' results: 'ann' -20",
        "  the match is over: seat 0 won",
    ]
    assert not any("<-" in line for line in text)


def test_ecarte_table_shows_wagers_and_who_proposes() -> None:
    view = ecarte_view(
        config=E.EcarteConfig(gallery=True),
        phase=E.ECARTE_PHASE_PROPOSAL,
        elder=1,
        turn=1,
        trump=cards_pb2.SUIT_CLUBS,
        turn_up=card("8♣"),
        stock_count=21,
        original_hands=True,
        seats=[E.EcarteSeatView(seat=0, card_count=5), E.EcarteSeatView(seat=1, card_count=5)],
        wagers=[E.EcarteWager(spectator="ann", seat=0, amount=20)],
    )
    text = table_text(view, 1)
    assert text[1] == "  trumps ♣ (turned up 8♣) · stock 21"
    assert text[3].startswith("  seat 1 (you) elder ") and text[3].endswith("<- to propose or lead")
    assert text[4] == "  wagers: 'ann' 20 on seat 0"


def test_ecarte_table_shows_a_seat_its_own_cards_only(client: Client) -> None:
    started = client.new_game(config("ecarte"), SEED_KING, views=[seat(0)])
    assert started.game.state is not None
    full = started.game.state.ecarte
    # Card codes: 13 * (suit - 1) + (rank - 1) (cards.proto).
    hidden = [f"{RANKS[c % 13]}{SUITS[c // 13]}" for c in range(52) if full.seats[1].hand >> c & 1]
    assert len(hidden) == 5
    lines = table_text(started.views[0], 0)
    assert lines[2].startswith("  seat 0 (you) dealer    5 cards  K♦ 7♦ A♣ 9♣ 7♣ ")
    assert lines[3].startswith("  seat 1       elder     5 cards  ##### ")
    text = "\n".join(lines)
    assert not any(c in text.split() for c in hidden)
    assert "version" not in text and "original hands" not in text


# ---------------------------------------------------------------- announcing out of turn

# With this seed seat 0 deals (the cut) and holds the king of trumps K♦; seat 1,
# the elder, is on turn to propose or lead (E-EXCH-1).
SEED_KING = bytes.fromhex("aea92132c4cbeb263e6ac2bf6c183b5d81737f179f21efdc5863739672f0f470")


class FirstBot:
    """Always the first action listed (for the elder: propose)."""

    def choose(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None
    ) -> referee_pb2.Action:
        return actions[0]


def _play(client: Client, answers: str) -> str:
    out = io.StringIO()
    with pytest.raises(Quit):
        run_game(
            client,
            config("ecarte", {"gamesToWin": 2}),
            seed=SEED_KING,
            bot_for=lambda s: FirstBot(),
            human=Human(0, io.StringIO(answers), out),
            out=out,
        )
    return out.getvalue()


def test_the_seed_gives_seat_0_the_king_while_seat_1_is_on_turn(client: Client) -> None:
    view = client.new_game(config("ecarte"), SEED_KING, views=[seat(0)]).views[0].ecarte
    assert view.turn == 1 and view.dealer == 0
    assert card("K♦") in view.seats[0].hand and view.trump == cards_pb2.SUIT_DIAMONDS


def test_the_holder_of_the_king_may_let_the_seat_on_turn_play(client: Client) -> None:
    """E-KING-1: the holder MAY announce; announcing is not a turn action."""
    text = _play(client, "2\nq\n")
    assert "   1. announce king\n   2. let seat 1 play\n" in text
    menu, after = text.split("Choose 1-2 (q to quit): 2\n", 1)
    assert menu.endswith("You may act out of turn:\n   1. announce king\n   2. let seat 1 play\n")
    # Seat 1 plays on: it proposes, and the human answers on their own turn,
    # the king still to be announced among the turn's actions.
    assert after.startswith("  proposed: seat 1\n")
    own_turn = after.split("Your move:\n", 1)[1].split("Choose", 1)[0]
    assert {"accept", "refuse", "announce king"} == {
        line.split(". ", 1)[1] for line in own_turn.splitlines()
    }
    assert "let seat" not in after


def test_answers_that_are_not_a_choice_ask_again(client: Client) -> None:
    """Words, 0, a number past the menu and an empty line are not choices: the menu
    asks again, and nothing is played until a choice is made."""
    text = _play(client, "announce\n0\n3\n\n-1\n2\nq\n")
    for wrong in ("announce", "0", "3", "", "-1"):
        assert f"Choose 1-2 (q to quit): {wrong}\n  {wrong!r} is not a choice\n" in text
    assert text.count("Choose 1-2 (q to quit): ") == 6
    assert "Choose 1-2 (q to quit): 2\n  proposed: seat 1\n" in text


def test_the_holder_of_the_king_may_announce_out_of_turn(client: Client) -> None:
    text = _play(client, "1\nq\n")
    assert "   1. announce king\n   2. let seat 1 play\n" in text
    after = text.split("Choose 1-2 (q to quit): 1\n", 1)[1]
    assert after.startswith(
        "  king announced: seat 0, card K♦\n"
        "  points scored: seat 0, reason announced king, points 1, total 1\n"
        "  proposed: seat 1\n"
    )
    own_turn = after.split("Your move:\n", 1)[1].split("Choose", 1)[0]
    assert "announce king" not in own_turn  # once per deal (E-KING-5)
    assert "king of trumps announced by seat 0" in after


class WaitingHuman(Human):
    """Never acts out of turn; on its own turn, the first action. Counts the questions."""

    def __init__(self) -> None:
        super().__init__(0, io.StringIO(), io.StringIO())
        self.asked_at: list[int] = []

    def choose(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None
    ) -> referee_pb2.Action:
        return actions[0]

    def choose_or_wait(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None, wait: str
    ) -> referee_pb2.Action | None:
        assert view is not None and wait == "let seat 1 play"
        assert [action_text(a) for a in actions] == ["announce king"]
        self.asked_at.append(view.version)
        return None


def test_declining_lets_the_game_go_on_to_its_end(client: Client) -> None:
    human = WaitingHuman()
    out = io.StringIO()
    played = run_game(
        client,
        config("ecarte"),
        seed=SEED_KING,
        bot_for=lambda s: FirstBot(),
        human=human,
        out=out,
    )
    assert played.game.finished, out.getvalue()
    # Asked when seat 1 was on turn before the first lead, never twice in one state.
    assert human.asked_at and human.asked_at[0] == 0
    assert len(set(human.asked_at)) == len(human.asked_at)
    assert "king announced" not in out.getvalue()


def test_the_docs_show_the_table_and_menu_play_prints(client: Client) -> None:
    """docs/clients.md's Écarté sample is what ``referee play`` prints for SEED_KING."""
    docs = (Path(__file__).resolve().parents[2] / "docs" / "clients.md").read_text("utf-8")
    (sample,) = [b for b in re.findall(r"```text\n(.*?)```", docs, re.S) if "Écarté ·" in b]
    assert SEED_KING.hex().startswith(re.findall(r"`([0-9a-f]{8})…`", docs)[0])
    shown = _play(client, "q\n")
    assert sample in shown.replace("(q to quit): q\n", "(q to quit):\n")


class _Lying:
    """A client whose end-of-game answers are altered: the revealed seed or Replay's
    final hash. ``referee play`` and ``referee demo`` must not say the game checks out."""

    def __init__(self, client: Client, seed: bytes | None = None, replay_hash: bytes = b"") -> None:
        self._client, self._seed, self._replay_hash = client, seed, replay_hash

    def __getattr__(self, name: str) -> object:
        return getattr(self._client, name)

    def view(self, *args: object, **kwargs: object) -> referee_pb2.ViewStateResponse:
        reply = self._client.view(*args, **kwargs)  # type: ignore[arg-type]
        if self._seed is not None and reply.view.seed:
            reply.view.seed = self._seed
        return reply

    def replay(self, *args: object, **kwargs: object) -> referee_pb2.ReplayResponse:
        reply = self._client.replay(*args, **kwargs)  # type: ignore[arg-type]
        if self._replay_hash:
            reply.final_hash = self._replay_hash
        return reply


@pytest.mark.parametrize(
    ("lie", "message"),
    [
        ({"seed": bytes(32)}, "does not match the commitment"),
        ({"seed": b""}, "does not match the commitment"),
        ({"replay_hash": bytes(32)}, "another final state"),
    ],
)
def test_a_seed_or_replay_that_does_not_check_out_is_a_game_error(
    client: Client, lie: dict[str, bytes], message: str
) -> None:
    out = io.StringIO()
    with pytest.raises(GameError, match=message):
        run_game(
            _Lying(client, **lie),  # type: ignore[arg-type]
            config("ecarte"),
            seed=SEED_KING,
            bot_for=lambda s: FirstBot(),
            out=out,
        )
    assert "final hash" not in out.getvalue()
    assert ("seed revealed" in out.getvalue()) is ("replay_hash" in lie)
    # The honest client's game checks out.
    out = io.StringIO()
    run_game(client, config("ecarte"), seed=SEED_KING, bot_for=lambda s: FirstBot(), out=out)
    assert out.getvalue().splitlines()[-1].endswith("matches")
