"""The coverage-guided fuzz targets (atheris on libFuzzer) in short runs: the state
decoder and validator (fuzz/state_decoder.py) and whole requests in process
(fuzz/service_requests.py), each with a fixed seed and a bounded number of inputs, grown
from the checked-in corpora of real states and requests. The longer runs are in
docs/reliability.md."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.sealing import Keyring
from referee.service import Referee
from referee.v1 import referee_pb2 as pb

from ..conftest import repository_root
from .conftest import scaled

ROOT = repository_root()
TARGET = ROOT / "fuzz" / "state_decoder.py"
CORPUS = ROOT / "fuzz" / "corpus" / "state_decoder"
RUNS = scaled(600_000)


def test_the_seed_corpus_is_made_of_states_the_referee_accepts() -> None:
    """The corpus starts the fuzzer deep in the validator only while its states are
    current: after a change of the contract, re-make it (python fuzz/make_corpus.py)."""
    keyring = Keyring([("fuzz", bytes(range(32)))])
    plain, sealed = Referee(all_codecs()), Referee(all_codecs(), keyring=keyring)
    files = sorted(CORPUS.iterdir())
    assert len(files) >= 200
    games = set()
    for path in files:
        data = path.read_bytes()
        mode, body = data[0], data[1:]
        try:
            if mode == 0:
                opened = plain.open_state(pb.GameState.FromString(body), b"")
            elif mode == 1:
                opened = sealed.open_state(pb.GameState(), keyring.seal(body))
            else:
                assert mode == 2
                opened = sealed.open_state(pb.GameState(), body)
        except RequestError as e:
            raise AssertionError(f"{path.name}: {e.message} (run fuzz/make_corpus.py)") from e
        games.add(opened.codec.game_id)
    assert games == {"ecarte", "earl_of_coventry"}


def _short_run(target: Path, corpus: Path, runs: int, tmp_path: Path) -> None:
    copy = tmp_path / "corpus"
    shutil.copytree(corpus, copy)  # libFuzzer adds what it finds to the corpus given
    result = subprocess.run(
        [
            sys.executable,
            str(target),
            f"-runs={runs}",
            "-seed=1",
            "-max_total_time=150",  # a bound: the run ends on its count far sooner
            "-rss_limit_mb=2048",
            f"-artifact_prefix={tmp_path}/",
            str(copy),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    tail = result.stderr[-4000:]
    assert result.returncode == 0, tail
    assert f"Done {runs} runs" in result.stderr, tail
    assert not list(tmp_path.glob("crash-*")), tail
    summary = [line for line in result.stderr.splitlines() if "DONE" in line or "INITED" in line]
    print(f"\n{target.name}: " + " / ".join(summary))


def test_state_decoder_short_fuzz_run(tmp_path: Path) -> None:
    _short_run(TARGET, CORPUS, RUNS, tmp_path)


def test_service_requests_short_fuzz_run(tmp_path: Path) -> None:
    _short_run(
        ROOT / "fuzz" / "service_requests.py",
        ROOT / "fuzz" / "corpus" / "service_requests",
        scaled(300_000),
        tmp_path,
    )
