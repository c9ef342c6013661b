"""scripts/make_vectors.py: it reproduces the checked-in vectors byte for byte, and a
release that brings a second rules version of a game keeps the old version's files as
they are and adds files for the new one (docs/trust.md, golden vectors).

No game has a second version yet, so the second one here is Écarté's own rules under
the name `ecarte/2` (as in tests/service/test_rules_versions.py). Not in the compiled
build's pass (scripts/ is not in its tree): there, tests/trust/test_vectors.py checks
the build against the same files."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from referee.codec.earl_of_coventry import CODEC as EARL_OF_COVENTRY
from referee.codec.ecarte import CODEC as ECARTE
from tests.service.test_rules_versions import ECARTE_2

ROOT = Path(__file__).resolve().parents[1]
VECTORS = ROOT / "tests" / "vectors"
spec = importlib.util.spec_from_file_location("make_vectors", ROOT / "scripts" / "make_vectors.py")
assert spec and spec.loader
make_vectors = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_vectors)

TWO_VERSIONS: list[Any] = [ECARTE, ECARTE_2, EARL_OF_COVENTRY]
ECARTE_NAMES = [n for n, config, _ in make_vectors._vectors() if "ecarte" in config]


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A copy of tests/vectors/ to write into."""
    copy = tmp_path / "vectors"
    shutil.copytree(VECTORS, copy)
    return copy


def contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.glob("*.json"))}


def recorded(path: Path) -> str:
    version: str = json.loads(path.read_text())["rulesVersion"]
    return version


def test_the_script_reproduces_the_checked_in_vectors(out: Path) -> None:
    assert make_vectors.main([], out=out) == 0
    assert contents(out) == contents(VECTORS)


def test_a_new_version_keeps_the_old_files_and_adds_its_own(out: Path) -> None:
    before = contents(out)
    assert len(ECARTE_NAMES) == 3
    # The release that brings ecarte/2: the old files are rewritten under ecarte/1, as
    # they were, though ecarte/2 is now the newest.
    assert make_vectors.main([], out=out, codecs=TWO_VERSIONS) == 0
    assert contents(out) == before
    # Its vectors, added beside them.
    assert make_vectors.main(["--rules-version", "ecarte/2"], out=out, codecs=TWO_VERSIONS) == 0
    added = sorted(set(contents(out)) - set(before))
    assert added == sorted(n.replace(".json", ".ecarte-2.json") for n in ECARTE_NAMES)
    for name in added:
        assert recorded(out / name) == "ecarte/2"
        old = json.loads((out / name.replace(".ecarte-2", "")).read_text())
        new = json.loads((out / name).read_text())
        # The same bots and seed; only the version differs (the renamed rules are the same).
        assert old.pop("rulesVersion") == "ecarte/1"
        assert new.pop("rulesVersion") == "ecarte/2"
        assert [e["action"] for e in new["entries"]] == [e["action"] for e in old["entries"]]
    for name, data in before.items():
        assert (out / name).read_bytes() == data
    # A later run without the option rewrites both versions' files under their own.
    with_new = contents(out)
    assert make_vectors.main([], out=out, codecs=TWO_VERSIONS) == 0
    assert contents(out) == with_new


def test_a_vector_with_no_file_is_played_under_the_newest_version(out: Path) -> None:
    name = ECARTE_NAMES[0]
    (out / name).unlink()
    assert make_vectors.main([], out=out, codecs=TWO_VERSIONS) == 0
    assert recorded(out / name) == "ecarte/2"


def test_a_file_of_a_version_no_longer_served_stops_the_script(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = contents(out)
    assert make_vectors.main([], out=out, codecs=[ECARTE_2, EARL_OF_COVENTRY]) == 2
    err = capsys.readouterr().err
    assert "records 'ecarte/1', which this build does not serve" in err
    assert contents(out) == before  # nothing written


def test_a_version_not_served_is_refused(out: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert make_vectors.main(["--rules-version", "ecarte/9"], out=out) == 2
    assert "'ecarte/9' is not a rules version served here" in capsys.readouterr().err


def test_a_file_of_another_games_version_is_refused(
    out: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(out / "earl_of_coventry-default.json", out / "ecarte-default.odd.json")
    assert make_vectors.main([], out=out) == 2
    assert "records 'earl_of_coventry/1', a version of another game" in capsys.readouterr().err
