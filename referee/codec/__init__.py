"""Protobuf <-> rules objects, one module per game. Used at the edge of the service only."""

from __future__ import annotations

from referee.codec.base import GameCodec
from referee.codec.earl_of_coventry import CODEC as EARL_OF_COVENTRY
from referee.codec.ecarte import CODEC as ECARTE


def all_codecs() -> list[GameCodec]:
    """Every game this server referees, in ListGames order."""
    return [ECARTE, EARL_OF_COVENTRY]
