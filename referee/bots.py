"""Bots that play any game through ``LegalActions``.

A bot never needs to know a game's rules: the referee lists every action a
seat may take now, complete and ready to send, and the bot picks one. The
table (start the next round, end a session) is played by :class:`TablePolicy`.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Protocol

from google.protobuf.message import Message

from referee.v1 import referee_pb2


class Bot(Protocol):
    def choose(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None
    ) -> referee_pb2.Action:
        """One of ``actions`` (never empty), given what this seat sees."""
        ...


def action_kind(action: referee_pb2.Action) -> str:
    """The name of the game action's case, e.g. ``play``, ``next_round``."""
    game = action.WhichOneof("game")
    if game is None:
        return ""
    inner: Message = getattr(action, game)
    oneofs = inner.DESCRIPTOR.oneofs
    if not oneofs:
        return str(game)
    kind: str | None = inner.WhichOneof(oneofs[0].name)
    return kind or ""


class RandomBot:
    """Picks uniformly among the legal actions, from its own seeded generator."""

    def __init__(self, seed: int | str | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None
    ) -> referee_pb2.Action:
        return actions[self.rng.randrange(len(actions))]


class EagerBot(RandomBot):
    """A simple heuristic for any game: never passes when it can do something else.

    Among the remaining actions it picks at random (seeded).
    """

    def choose(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None
    ) -> referee_pb2.Action:
        active = [a for a in actions if action_kind(a) != "pass"]
        return super().choose(active or actions, view)


class TablePolicy:
    """The table's choices between rounds: deal ``rounds`` rounds, then end.

    Generic: an action whose case name starts with ``end`` ends the match or
    session (``end_session``); any other table action continues it
    (``next_round``). A game with no ending action ends by itself.
    """

    def __init__(self, rounds: int = 1) -> None:
        if rounds < 1:
            raise ValueError("rounds must be at least 1")
        self.rounds = rounds
        self.decisions = 0

    def choose(self, actions: Sequence[referee_pb2.Action]) -> referee_pb2.Action:
        self.decisions += 1
        ending = [a for a in actions if action_kind(a).startswith("end")]
        going_on = [a for a in actions if not action_kind(a).startswith("end")]
        if self.decisions >= self.rounds and ending:
            return ending[0]
        return (going_on or ending)[0]
