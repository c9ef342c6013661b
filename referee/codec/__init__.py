"""Protobuf <-> rules objects, one module per game. Used at the edge of the service only."""

from __future__ import annotations

from collections.abc import Iterable

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
