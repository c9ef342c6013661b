"""The codecs' shared pieces (referee/codec/common.py) at their bounds: card messages,
actors and viewers both ways, and two's complement varints."""

from __future__ import annotations

import pytest

from referee.codec.common import (
    CARD_MESSAGES,
    MAX_SPECTATOR_ID_LENGTH,
    card_code,
    decode_actor,
    decode_viewer,
    encode_actor,
    encode_viewer,
    signed,
)
from referee.games.base import PUBLIC_VIEWER, TABLE_ACTOR, Actor, InvalidInput, Viewer
from referee.v1 import cards_pb2, common_pb2


def test_every_card_code_has_its_message_and_reads_back() -> None:
    assert len(CARD_MESSAGES) == 52
    assert [card_code(m, "card") for m in CARD_MESSAGES] == list(range(52))


@pytest.mark.parametrize(("suit", "rank"), [(0, 1), (5, 1), (1, 0), (1, 14), (4, 14), (5, 13)])
def test_a_card_outside_the_suits_and_ranks_is_refused(suit: int, rank: int) -> None:
    card = cards_pb2.Card(suit=suit, rank=rank)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput) as caught:
        card_code(card, "action.card")
    (field,) = [v.field for v in caught.value.violations]
    assert field == ("action.card.suit" if not 1 <= suit <= 4 else "action.card.rank")


def test_the_corner_cards_are_accepted() -> None:
    assert card_code(cards_pb2.Card(suit=1, rank=1), "c") == 0  # type: ignore[arg-type]
    assert card_code(cards_pb2.Card(suit=4, rank=13), "c") == 51  # type: ignore[arg-type]


@pytest.mark.parametrize("kind", ["actor", "viewer"])
def test_spectator_ids_from_one_to_the_longest_allowed(kind: str) -> None:
    message: type[common_pb2.Actor] | type[common_pb2.Viewer]
    message, decode = (
        (common_pb2.Actor, decode_actor) if kind == "actor" else (common_pb2.Viewer, decode_viewer)
    )
    for name in ("x", "y" * MAX_SPECTATOR_ID_LENGTH):
        assert decode(message(spectator=name), kind).spectator == name  # type: ignore[arg-type]
    for name in ("", "z" * (MAX_SPECTATOR_ID_LENGTH + 1)):
        with pytest.raises(InvalidInput) as caught:
            decode(message(spectator=name), kind)  # type: ignore[arg-type]
        assert [v.field for v in caught.value.violations] == [f"{kind}.spectator"]


@pytest.mark.parametrize(
    "viewer",
    [
        Viewer.of_seat(0),
        Viewer.of_seat(1),
        Viewer.of_seat(12),
        Viewer.of_spectator("s"),
        PUBLIC_VIEWER,
    ],
)
def test_viewers_encode_and_decode_to_themselves(viewer: Viewer) -> None:
    """Seat 0 is a seat, not the public (the encoder tells them apart by ``seat >= 0``)."""
    out = common_pb2.Viewer()
    encode_viewer(viewer, out)
    assert out.WhichOneof("kind") == viewer.kind.name.lower()
    assert decode_viewer(out, "viewer") == viewer


@pytest.mark.parametrize(
    "actor", [Actor.of_seat(0), Actor.of_seat(5), Actor.of_spectator("s"), TABLE_ACTOR]
)
def test_actors_encode_and_decode_to_themselves(actor: Actor) -> None:
    out = common_pb2.Actor()
    encode_actor(actor, out)
    assert out.WhichOneof("kind") == actor.kind.name.lower()
    assert decode_actor(out, "actor") == actor


def test_the_sign_bit_of_a_64_bit_varint() -> None:
    assert signed(2**63 - 1) == 2**63 - 1
    assert signed(2**63) == -(2**63)
    assert signed(2**64 - 1) == -1
    assert signed(0) == 0
