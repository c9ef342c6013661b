"""Referee: a stateless gRPC rules referee for card games."""

__version__ = "0.1.0"


def build() -> str:
    """``compiled`` when the rules core runs as mypyc extensions (the container's
    build, ``REFEREE_COMPILE=1``), else ``interpreted``."""
    from referee.games import base

    return "interpreted" if (base.__file__ or "").endswith(".py") else "compiled"
