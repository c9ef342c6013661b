"""Actors and viewers of the rules core: their equality and hash, written out by hand
(actions holding an actor are dictionary keys: the codecs cache decoded and encoded
actions by them), and the shared seat instances."""

from __future__ import annotations

import pytest

from referee.games.base import TABLE_ACTOR, Actor, ActorKind, Viewer, ViewerKind


def test_actors_are_equal_exactly_when_kind_seat_and_spectator_are() -> None:
    distinct = [
        Actor.of_seat(0),
        Actor.of_seat(1),
        Actor.of_seat(40),
        Actor.of_spectator("ann"),
        Actor.of_spectator("bob"),
        TABLE_ACTOR,
        Actor(ActorKind.SPECTATOR, 0, "ann"),
        Actor(ActorKind.TABLE, 0),
    ]
    for i, a in enumerate(distinct):
        for j, b in enumerate(distinct):
            assert (a == b) is (i == j), (a, b)
            assert (a != b) is (i != j), (a, b)
    assert len(set(distinct)) == len(distinct)
    # Equal actors built apart are one dictionary key.
    twins = [Actor(ActorKind.SEAT, 1), Actor(ActorKind.SEAT, 40), Actor.of_spectator("ann")]
    for twin, original in zip(twins, (distinct[1], distinct[2], distinct[3]), strict=True):
        assert twin == original and hash(twin) == hash(original)
        assert {original: "x"}[twin] == "x"
    assert Actor.of_seat(0) != "seat 0" and Actor.of_seat(0) != Viewer.of_seat(0)


@pytest.mark.parametrize("seat", [-1, 0, 15, 16, 300])
def test_seat_actors_and_viewers_carry_their_seat(seat: int) -> None:
    actor, viewer = Actor.of_seat(seat), Viewer.of_seat(seat)
    assert (actor.kind, actor.seat, actor.spectator) == (ActorKind.SEAT, seat, "")
    assert (viewer.kind, viewer.seat, viewer.spectator) == (ViewerKind.SEAT, seat, "")
    if 0 <= seat < 16:  # the seats of any table: one shared instance each
        assert actor is Actor.of_seat(seat) and viewer is Viewer.of_seat(seat)
    else:
        assert actor == Actor.of_seat(seat) and viewer == Viewer.of_seat(seat)


def test_spectators_have_no_seat() -> None:
    assert Actor.of_spectator("ann") == Actor(ActorKind.SPECTATOR, -1, "ann")
    assert Viewer.of_spectator("ann") == Viewer(ViewerKind.SPECTATOR, -1, "ann")


def test_actors_read_as_who_acts() -> None:
    assert str(Actor.of_seat(2)) == "seat 2"
    assert str(Actor.of_spectator("ann")) == "spectator 'ann'"
    assert str(TABLE_ACTOR) == "the table"
