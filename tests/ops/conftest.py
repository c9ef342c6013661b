"""Fixtures of the operations tests (workers, metrics, TLS, auth, limits, deploy)."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee import logs

from .helpers import Certs, make_certs

# In-process servers log warnings only; tests that read logs capture them.
logs.configure("warning", "json")


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Certs:
    return make_certs(Path(tmp_path_factory.mktemp("certs")))
