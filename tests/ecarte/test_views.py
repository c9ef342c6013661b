"""Views, redacted events, the scoreboard and the ListGames metadata."""

from __future__ import annotations

import dataclasses

import pytest

from referee.games.base import PUBLIC_VIEWER, InvalidInput, OptionType, Viewer
from referee.games.ecarte import RULES
from referee.games.ecarte.state import Dealt, EcarteConfig, Packets, Phase
from tests.ecarte.helpers import build, cards, mask, ok, play, play_out

ELDER, DEALER = 1, 0
E_HAND, D_HAND = "7D 8D 9D 7H 9S", "QC JC AC 10H KS"


def test_a_seat_sees_its_own_hand_and_public_information() -> None:
    """A seat sees its hand; the other hand and the stock as counts; the turn-up."""
    s = build(E_HAND, D_HAND, "7C")
    v = RULES.view(s, Viewer.of_seat(ELDER))
    assert v.seats[ELDER].hand == tuple(sorted(cards(E_HAND)))
    assert v.seats[DEALER].hand is None and v.seats[DEALER].card_count == 5
    assert v.stock_count == 21 and v.turn_up == cards("7C")[0] and v.trump == 0
    assert (v.elder, v.responder, v.dealer, v.turn) == (ELDER, DEALER, DEALER, ELDER)
    assert v.original_hands and v.winner == -1 and v.phase is Phase.PROPOSAL
    assert "stock" not in {f.name for f in dataclasses.fields(v)}


def test_tricks_are_public_with_leaders_and_winners() -> None:
    s = build("7D 8D 9D 7H", "QC JC AC 10H", "7C", phase=Phase.TRICKS, tricks="9S KS")
    s = ok(s, play(DEALER, "10H")).state
    v = RULES.view(s, PUBLIC_VIEWER)
    assert [(t.leader, t.cards, t.winner) for t in v.tricks] == [
        (ELDER, tuple(cards("9S KS")), DEALER),
        (DEALER, tuple(cards("10H")), -1),
    ]
    assert v.seats[DEALER].tricks_won == 1


def test_dealt_hands_are_redacted_for_everyone_else() -> None:
    state, events = RULES.new_game(EcarteConfig(first_dealer=0), bytes(32))
    (dealt,) = [e for e in events if isinstance(e, Dealt)]
    assert all(len(h) == 5 for h in dealt.hands)
    for viewer, shown in (
        (Viewer.of_seat(0), (True, False)),
        (Viewer.of_seat(1), (False, True)),
        (PUBLIC_VIEWER, (False, False)),
        (Viewer.of_spectator("ann"), (False, False)),
    ):
        (red,) = [e for e in RULES.redact_events(state, events, viewer) if isinstance(e, Dealt)]
        assert tuple(bool(h) for h in red.hands) == shown
        assert red.hand_sizes == (5, 5) and red.turn_up == dealt.turn_up
        for s, visible in enumerate(shown):
            if visible:
                assert mask(" ".join(_names(red.hands[s]))) == state.hands[s]


def _names(cs: tuple[int, ...]) -> list[str]:
    from referee.cards import name

    return [name(x) for x in cs]


def test_unknown_viewers_are_request_errors() -> None:
    s = build(E_HAND, D_HAND, "7C")
    with pytest.raises(InvalidInput):
        RULES.view(s, Viewer.of_seat(2))
    with pytest.raises(InvalidInput):
        RULES.view(s, Viewer.of_spectator(""))


def test_spectators_are_named_by_1_to_128_characters_in_views_and_events() -> None:
    """E-VAR-4: the rules check a spectator viewer's name themselves, also when called
    in-process without the codec's check before them."""
    state, events = RULES.new_game(EcarteConfig(first_dealer=0), bytes(32))
    for name in ("x", "y" * 128):
        viewer = Viewer.of_spectator(name)
        assert all(v.hand is None for v in RULES.view(state, viewer).seats)
        assert RULES.redact_events(state, events, viewer)
    for name in ("", "z" * 129):
        with pytest.raises(InvalidInput) as caught:
            RULES.view(state, Viewer.of_spectator(name))
        assert [v.field for v in caught.value.violations] == ["viewer.spectator"]
        with pytest.raises(InvalidInput):
            RULES.redact_events(state, events, Viewer.of_spectator(name))


def test_scoreboard_and_winner() -> None:
    """The common scoreboard: points, games won, chips, cards in hand, winners."""
    s = build(
        "7D 8D 9D 7H 8H",
        "KC QC JC AC 10C",
        "7C",
        phase=Phase.TRICKS,
        config=EcarteConfig(stake=2),
        points=(4, 1),
        chips=(8, -8),
    )
    board = RULES.scoreboard(s)
    assert [(x.points, x.games_won, x.chips, x.cards_in_hand) for x in board.seats] == [
        (4, 0, 8, 5),
        (1, 0, -8, 5),
    ]
    assert not board.finished and board.winners == ()
    after, _ = play_out(s)
    board = RULES.scoreboard(after)
    assert board.finished and board.winners == (DEALER,)
    assert RULES.view(after, PUBLIC_VIEWER).winner == DEALER
    assert RULES.is_over(after)


def test_options_and_variants_describe_the_configuration() -> None:
    """ListGames metadata: every option is a field of the configuration with its
    default and range; every variant's settings name options."""
    defaults = EcarteConfig()
    names = {f.name for f in dataclasses.fields(EcarteConfig) if f.init}  # not `checked`
    assert {o.name for o in RULES.options} == names
    for o in RULES.options:
        value = getattr(defaults, o.name)
        if o.type is OptionType.INTEGER and value is not None:
            assert o.default == str(value) and o.min <= value <= o.max, o.name
        elif o.type is OptionType.BOOL:
            assert o.default == str(value).lower()
        elif o.type is OptionType.ENUM:
            assert o.default == f"ECARTE_PACKETS_{Packets(value).name}"
        assert o.rule_id.startswith("E-")
    for variant in RULES.variants:
        assert variant.settings and all(k in names for k, _ in variant.settings)
    assert (RULES.game_id, RULES.rules_version, RULES.rules_document) == (
        "ecarte",
        "ecarte/1",
        "docs/rules/ecarte.md",
    )
    assert (RULES.min_seats, RULES.max_seats) == (2, 3)
