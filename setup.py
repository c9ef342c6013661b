"""Build script: metadata is in pyproject.toml; this adds the optional compiled build.

With ``REFEREE_COMPILE=1`` the rules core (cards, shuffle, games) and the protobuf
codecs are compiled to C extensions with mypyc: the same typed Python source, about
twice as fast (docs/benchmarks.md). The container ships this build; a development
checkout runs the source as it is (an editable install is never compiled, so an edit
always takes effect). ``scripts/test-compiled.sh`` runs the tests against it.
"""

from __future__ import annotations

import os
import sys

from setuptools import setup

# Compiled as one group; everything here is mypy-strict clean. The rules core and the
# codecs import no grpc; the servicer (referee/service.py: the per-call work of every
# RPC, and the two engines' servicer classes) is compiled with them, so that a call's
# own Python runs as C from the handler on (about 5 % fewer instructions a call than
# with the servicer interpreted: docs/benchmarks.md), and so is a call's bookkeeping
# around it (referee/calls.py: request id, log line, metrics, the threads engine's
# handler).
COMPILED = [
    "referee/cards.py",
    "referee/shuffle.py",
    "referee/games",
    "referee/codec",
    "referee/service.py",
    "referee/calls.py",
    "referee/logs.py",
]


def compiling() -> bool:
    return os.environ.get("REFEREE_COMPILE", "") not in ("", "0")


def ext_modules() -> list[object]:
    if not compiling():
        return []
    if any(arg.startswith("editable") for arg in sys.argv):
        raise SystemExit("REFEREE_COMPILE: an editable install is never compiled")
    try:
        from mypyc.build import mypycify
    except ImportError:
        if "egg_info" in sys.argv:  # setuptools reading the build requirements first
            return []
        raise SystemExit(
            "REFEREE_COMPILE=1 needs mypy (mypyc): pip builds install it"
            " (buildsys/backend.py); for setup.py itself, pip install mypy"
        ) from None
    return list(mypycify(COMPILED, opt_level="3"))


# Separate build directories: a plain wheel built after a compiled one in the same
# checkout must not pick up the compiled one's extensions from build/lib*.
setup(
    ext_modules=ext_modules(),
    options={"build": {"build_base": "build/compiled" if compiling() else "build/plain"}},
)
