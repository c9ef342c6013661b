"""Shared test configuration: a deterministic hypothesis profile and the shared directory."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from hypothesis import HealthCheck, settings

from referee.server import ServerSettings
from referee.v1 import referee_pb2_grpc

from .server_thread import ServerThread

settings.register_profile(
    "referee",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=40,
    print_blob=False,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("referee")
# The same, randomized: new examples on every run, for long runs by hand
# (`--hypothesis-profile=explore --hypothesis-seed=N`, docs/reliability.md).
settings.register_profile("explore", settings.get_profile("referee"), derandomize=False)

# The tests that take most of CI's time (its --durations: 20 s to 4 min each, on a 2-core
# machine), in that order. They are collected first, and CI runs pytest-xdist with
# --dist worksteal: each worker starts with half of the tests, the long ones all at the
# front of the first's, and a worker that runs out takes half of what another has left.
# Collected in their places, the container test (4 minutes) began with a fifth of the
# tests left, and the other worker finished those and sat idle.
LONG_FIRST = (
    "tests/test_container.py",
    "tests/reliability/test_soak.py",
    "tests/reliability/test_atheris.py",
    "tests/test_bench.py",
    "tests/clients/test_java.py",
    "tests/reliability/test_fuzz_service.py",
    "tests/differential/",
    "tests/clients/test_typescript.py",
    "tests/clients/test_vectors.py",
    "tests/clients/test_python_async_client.py",
    "tests/reliability/test_garbage.py",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    def rank(item: pytest.Item) -> int:
        for i, prefix in enumerate(LONG_FIRST):
            if item.nodeid.startswith(prefix):
                return i
        return len(LONG_FIRST)

    items.sort(key=rank)  # stable: every other test keeps its place


def repository_root() -> Path:
    """The directory holding ``pyproject.toml`` above this file (a checkout or a worktree)."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        if (parent / "pyproject.toml").is_file():
            return parent
    raise RuntimeError("no pyproject.toml above the tests")


def shared_dir() -> Path:
    """``$REFEREE_SHARED``, by default the sibling ``shared`` directory of the repository root.

    Missing shared material is a failure, never a skip: the golden vectors and the
    rulebook are what the tests check against.
    """
    env = os.environ.get("REFEREE_SHARED")
    path = Path(env) if env else repository_root().parent / "shared"
    if not path.is_dir():
        pytest.fail(f"shared directory not found: {path} (set REFEREE_SHARED)", pytrace=False)
    return path


# A real server on port 0, shared by the service, trust and client tests.


@pytest.fixture(scope="session")
def server() -> Iterator[ServerThread]:
    thread = ServerThread(ServerSettings(host="127.0.0.1", port=0, grace_seconds=1)).start()
    yield thread
    thread.stop()


@pytest.fixture(scope="session")
def channel(server: ServerThread) -> Iterator[grpc.Channel]:
    with grpc.insecure_channel(server.address) as ch:
        yield ch


@pytest.fixture(scope="session")
def stub(channel: grpc.Channel) -> referee_pb2_grpc.RefereeServiceStub:
    return referee_pb2_grpc.RefereeServiceStub(channel)
