"""The build backend: setuptools, plus what the compiled build needs.

``REFEREE_COMPILE=1 pip wheel .`` compiles the rules core, the codecs, the servicer, a
call's bookkeeping and the log pipeline with mypyc (see setup.py); the build then needs
mypy and the types of everything the compiled modules import (the protobuf and grpc
stubs; cryptography, prometheus-client, structlog and orjson carry their own), which this
backend adds to the build requirements. Without ``REFEREE_COMPILE`` the build is plain
setuptools and the wheel is pure Python. The container's build stage builds without
isolation instead, from these requirements as container/build-requirements.lock pins
them (scripts/lock.sh reads COMPILE_REQUIRES from here).
"""

from __future__ import annotations

import os

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403  (the whole PEP 517/660 interface)

# The same ranges as the dev extra and the dependencies: the type checker the code is
# checked with, and the types of what the compiled modules import (mypy follows them).
COMPILE_REQUIRES = [
    "mypy>=1.10,<3",
    "types-protobuf>=5.28",
    "grpc-stubs>=1.53,<2",
    "cryptography>=42,<51",
    "prometheus-client>=0.20,<1",
    "structlog>=24.1,<27",
    "orjson>=3.10,<4",
    "opentelemetry-sdk>=1.45,<2",  # referee.tracing (the server imports it)
    "opentelemetry-exporter-otlp-proto-grpc>=1.45,<2",
]


def compiling() -> bool:
    return os.environ.get("REFEREE_COMPILE", "") not in ("", "0")


def get_requires_for_build_wheel(
    config_settings: dict[str, str | list[str]] | None = None,
) -> list[str]:
    extra = COMPILE_REQUIRES if compiling() else []
    return [*_setuptools.get_requires_for_build_wheel(config_settings), *extra]
