"""Protobuf <-> rules objects, one module per game. Used at the edge of the service only."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.codec.base import GameCodec
from referee.codec.earl_of_coventry import CODEC as EARL_OF_COVENTRY
from referee.codec.ecarte import CODEC as ECARTE


def all_codecs() -> list[GameCodec]:
    """Every rules version this server referees, games in ListGames order.

    A game may come in several versions (``ecarte/1``, ``ecarte/2``): a release that
    brings a new version of a game keeps the codecs of the ones before it, so games in
    flight and stored logs are judged by the rules they began under (docs/api.md, rules
    versions). ``NewGame`` starts a game under its newest version (:func:`newest`)."""
    return [ECARTE, EARL_OF_COVENTRY]


def version_number(codec: GameCodec) -> int:
    """The number of ``codec``'s rules version: 2 for ``ecarte/2``. A version not
    written ``<game id>/<n>`` (``n`` a positive decimal integer) is a ValueError."""
    version: str = codec.rules.rules_version
    game, _, number = version.partition("/")
    if game != codec.game_id or not number.isdecimal() or not number.isascii():
        raise ValueError(f"rules version {version!r} is not {codec.game_id}/<n>")
    n = int(number)
    if n < 1 or number != str(n):
        raise ValueError(f"rules version {version!r} is not {codec.game_id}/<n>")
    return n


def newest(codecs: Iterable[GameCodec]) -> dict[str, GameCodec]:
    """The codec of each game's newest version, by game id, games in the order of their
    first codec. Two codecs of one version are a ValueError: one would hide the other."""
    seen: set[str] = set()
    by_game: dict[str, GameCodec] = {}
    for codec in codecs:
        version = codec.rules.rules_version
        if version in seen:
            raise ValueError(f"two codecs of rules version {version!r}")
        seen.add(version)
        n = version_number(codec)
        current = by_game.get(codec.game_id)
        if current is None or n > version_number(current):
            by_game[codec.game_id] = codec
    return by_game


def starting(codecs: Sequence[GameCodec], held: Iterable[str] = ()) -> dict[str, GameCodec]:
    """The codec ``NewGame`` starts each game under, by game id: its newest, or the
    version ``held`` names for it (``--new-game-rules``: at most one per game, a version
    of ``codecs``; else a ValueError)."""
    starts = newest(codecs)
    by_version = {c.rules.rules_version: c for c in codecs}
    named: set[str] = set()
    for version in held:
        codec = by_version.get(version)
        if codec is None:
            raise ValueError(
                f"{version!r} is not a rules version served here ({', '.join(by_version)})"
            )
        if codec.game_id in named:
            raise ValueError(f"more than one version of {codec.game_id}")
        named.add(codec.game_id)
        starts[codec.game_id] = codec
    return starts


def others(codecs: Iterable[GameCodec], current: GameCodec) -> list[GameCodec]:
    """The other codecs of ``current``'s game, newest first."""
    return sorted(
        (c for c in codecs if c.game_id == current.game_id and c is not current),
        key=version_number,
        reverse=True,
    )
