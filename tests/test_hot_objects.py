"""Objects of the rules core that every request makes or uses.

Classes built on every request have their ``__init__`` written out (``@dataclass(...,
init=False)``: compiled, it is native code; referee.games.base, above SeatScore). Each
such ``__init__`` must take exactly the dataclass's fields, in order, and store each one
under its own name, and a ``clone()`` must pass every field in order: checked on the
source (a swapped pair of fields of one type would pass mypy and most equality checks).
"""

from __future__ import annotations

import ast
import dataclasses
from pathlib import Path
from typing import Any

import pytest

from referee.games.base import Actor, ActorKind, Scoreboard, SeatScore, Viewer, ViewerKind
from referee.games.earl_of_coventry.rules import RULES as EARL
from referee.games.earl_of_coventry.state import ActionKind as EarlActionKind
from referee.games.earl_of_coventry.state import EarlAction, EarlConfig
from referee.games.ecarte.rules import RULES as ECARTE
from referee.games.ecarte.state import EcarteConfig

GAMES = Path(__file__).resolve().parent.parent / "referee" / "games"
SERVICE = GAMES.parent / "service.py"  # compiled with the rules core (Opened, per request)
SEED = bytes(range(32))


def written_out() -> list[tuple[Path, ast.ClassDef]]:
    """Every dataclass of the rules core and the servicer with ``init=False``."""
    found = []
    for path in [*sorted(GAMES.rglob("*.py")), SERVICE]:
        for node in ast.parse(path.read_text()).body:
            if not isinstance(node, ast.ClassDef):
                continue
            for decorator in node.decorator_list:
                if (
                    isinstance(decorator, ast.Call)
                    and ast.unparse(decorator.func) == "dataclass"
                    and any(
                        k.arg == "init" and ast.literal_eval(k.value) is False
                        for k in decorator.keywords
                    )
                ):
                    found.append((path, node))
    return found


CLASSES = written_out()


def fields_of(node: ast.ClassDef) -> list[str]:
    return [
        s.target.id
        for s in node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    ]


def method(node: ast.ClassDef, name: str) -> ast.FunctionDef | None:
    return next((s for s in node.body if isinstance(s, ast.FunctionDef) and s.name == name), None)


def test_the_hot_classes_are_written_out() -> None:
    names = {node.name for _, node in CLASSES}
    assert {"SeatScore", "Scoreboard", "EarlState", "EcarteState", "CardPlayed", "Opened"} <= names


@pytest.mark.parametrize(
    ("path", "node"), CLASSES, ids=[f"{p.parent.name}.{n.name}" for p, n in CLASSES]
)
def test_init_takes_and_stores_every_field_in_order(path: Path, node: ast.ClassDef) -> None:
    fields = fields_of(node)
    for s in node.body:  # defaults belong to __init__ alone
        if isinstance(s, ast.AnnAssign):
            assert s.value is None, f"{node.name}.{ast.unparse(s.target)} has a class default"
    init = method(node, "__init__")
    assert init is not None, f"{node.name} has init=False and no __init__"
    assert [a.arg for a in init.args.args] == ["self", *fields]
    stored = [
        (ast.unparse(s.targets[0]), ast.unparse(s.value))
        for s in init.body
        if isinstance(s, ast.Assign)
    ]
    assert stored == [(f"self.{f}", f) for f in fields]
    clone = method(node, "clone")
    if clone is not None:
        (ret,) = [s for s in clone.body if isinstance(s, ast.Return)]
        assert isinstance(ret.value, ast.Call) and ast.unparse(ret.value.func) == node.name
        assert [ast.unparse(a) for a in ret.value.args] == [f"self.{f}" for f in fields]
        assert not ret.value.keywords


def test_written_out_classes_keep_their_dataclass_behaviour() -> None:
    """Defaults, keywords, equality and repr as the generated __init__ gave them."""
    assert SeatScore(2) == SeatScore(seat=2, points=0, games_won=0, rounds_won=0)
    assert SeatScore(2, cards_in_hand=3) != SeatScore(2)
    assert repr(SeatScore(1)).startswith("SeatScore(seat=1, points=0,")
    board = Scoreboard((SeatScore(0),))
    assert (board.finished, board.winners, board.pool, board.spectators) == (False, (), 0, ())
    assert dataclasses.fields(Scoreboard)[0].name == "seats"


@pytest.mark.parametrize("game", ["earl_of_coventry", "ecarte"])
def test_clone_is_an_equal_copy(game: str) -> None:
    if game == "earl_of_coventry":
        state, _ = EARL.new_game(EarlConfig(seats=5), SEED)
    else:
        state, _ = ECARTE.new_game(EcarteConfig(), SEED)
    copy = state.clone()
    assert copy == state and copy is not state
    for f in dataclasses.fields(state):
        assert getattr(copy, f.name) is getattr(state, f.name)


def test_seats_acting_and_looking_are_shared_instances() -> None:
    """Actor.of_seat and Viewer.of_seat hand out prebuilt (frozen) instances for the
    seats a table can have, equal to new ones; any other seat gets a new one."""
    for seat in (0, 1, 12, 15, 16, 40):
        actor, viewer = Actor.of_seat(seat), Viewer.of_seat(seat)
        assert actor == Actor(ActorKind.SEAT, seat) and viewer == Viewer(ViewerKind.SEAT, seat)
        shared = seat < 16
        assert (actor is Actor.of_seat(seat)) is shared
        assert (viewer is Viewer.of_seat(seat)) is shared


@pytest.mark.parametrize(
    ("base", "changes"),
    [
        (Actor(ActorKind.SEAT, 1), {"kind": ActorKind.SPECTATOR, "seat": 3, "spectator": "x"}),
        (
            EarlAction(Actor.of_seat(1), EarlActionKind.PLAY, 5, "a"),
            {"actor": Actor.of_seat(2), "kind": EarlActionKind.PASS, "card": 7, "call": "b"},
        ),
    ],
    ids=["Actor", "EarlAction"],
)
def test_written_out_equality_compares_every_field(base: Any, changes: dict[str, Any]) -> None:
    """Actor's and EarlAction's __eq__ and __hash__ are their own (compiled; they key the
    codecs' caches): equal exactly when every field is, hashed alike when equal, and a
    field changed alone makes another value."""
    cls = type(base)
    assert set(changes) == {f.name for f in dataclasses.fields(cls)}  # every field tried
    for method in ("__eq__", "__hash__"):
        assert getattr(cls.__dict__[method], "__qualname__", cls.__name__) == (
            f"{cls.__name__}.{method}"
        )
    same = dataclasses.replace(base)
    assert same is not base and same == base and hash(same) == hash(base)
    assert base != (base,) and base != "x"  # another type: never equal
    for name, value in changes.items():
        other = dataclasses.replace(base, **{name: value})
        assert other != base and base != other, name
        assert dataclasses.replace(other, **{name: getattr(base, name)}) == base, name
