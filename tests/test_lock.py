"""The container image's locks (container/*.lock, made by scripts/lock.sh) pin every
package exactly, with hashes, inside pyproject.toml's ranges, and were made from today's
pyproject.toml, buildsys/backend.py and Dockerfile.

Offline: these read the files only. That the locks install (every hash right, no
dependency missing) is tests/test_container.py's part: it builds and installs from them.
"""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("lock_inputs", ROOT / "scripts" / "lock_inputs.py")
assert spec and spec.loader
lock_inputs = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lock_inputs)

RUNTIME_LOCK = ROOT / "container" / "requirements.lock"
BUILD_LOCK = ROOT / "container" / "build-requirements.lock"
KINDS = {"runtime": RUNTIME_LOCK, "build": BUILD_LOCK}
RELOCK = "run scripts/lock.sh, review the diff (git diff container/) and commit it"


@dataclass(frozen=True)
class Pin:
    name: str  # canonical (PEP 503)
    version: Version
    hashes: tuple[str, ...]
    line: str


def read_lock(path: Path) -> dict[str, Pin]:
    """A lock's pins by canonical name. Every entry must be ``name==version`` followed
    by at least one ``--hash=sha256:...``; anything else fails here."""
    text = re.sub(r"\\\n", " ", path.read_text(encoding="utf-8"))
    pins: dict[str, Pin] = {}
    for raw in text.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()  # comments
        if not line:
            continue
        assert not line.startswith("-"), f"{path.name}: an option in a lock: {line}"
        requirement_text, *options = re.split(r"\s+(?=--)", line)
        requirement = Requirement(requirement_text)
        specs = list(requirement.specifier)
        assert len(specs) == 1 and specs[0].operator == "==" and "*" not in specs[0].version, (
            f"{path.name}: {requirement_text} is not pinned to one exact version"
        )
        assert not requirement.url and not requirement.extras, f"{path.name}: {requirement_text}"
        hashes = []
        for option in options:
            match = re.fullmatch(r"--hash=sha256:([0-9a-f]{64})", option.strip())
            assert match, f"{path.name}: {requirement_text}: not a sha256 hash: {option}"
            hashes.append(match[1])
        assert hashes, f"{path.name}: {requirement_text} has no hash (pip --require-hashes)"
        name = canonicalize_name(requirement.name)
        assert name not in pins, f"{path.name}: {name} pinned twice"
        pins[name] = Pin(name, Version(specs[0].version), tuple(hashes), requirement_text)
    assert pins, f"{path.name} pins nothing"
    return pins


def target_environment() -> dict[str, str]:
    """The markers' environment of the image: Linux x86_64, the base image's CPython."""
    python, _ = lock_inputs.target()
    env = dict(default_environment())
    env.update(
        python_version=".".join(python.split(".")[:2]),
        python_full_version=python,
        implementation_name="cpython",
        implementation_version=python,
        platform_python_implementation="CPython",
        sys_platform="linux",
        platform_system="Linux",
        platform_machine="x86_64",
        os_name="posix",
    )
    return env


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_is_pinned_with_hashes(kind: str) -> None:
    pins = read_lock(KINDS[kind])
    for pin in pins.values():
        assert len(set(pin.hashes)) == len(pin.hashes), f"{pin.line}: a hash repeated"


@pytest.mark.parametrize("kind", KINDS)
def test_every_requirement_is_locked_inside_its_range(kind: str) -> None:
    """Each requirement (pyproject.toml's dependencies for the runtime lock; the build
    requirements for the build lock) has a pin its range admits."""
    pins = read_lock(KINDS[kind])
    env = target_environment()
    requirements = [Requirement(r) for r in lock_inputs.requirements(kind)]
    assert requirements
    for requirement in requirements:
        if requirement.marker and not requirement.marker.evaluate(env):
            continue  # not installed in the image
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{KINDS[kind].name} has no {name} ({requirement}): {RELOCK}"
        version = pins[name].version
        assert requirement.specifier.contains(version, prereleases=True), (
            f"{KINDS[kind].name} pins {name}=={version}, outside {requirement}: {RELOCK}"
        )


def test_the_build_lock_has_the_runtime_locks_versions() -> None:
    """mypyc compiles against the types of the packages the image runs: a package in both
    locks has one version (scripts/lock.sh constrains the build lock with the runtime's)."""
    runtime, build = read_lock(RUNTIME_LOCK), read_lock(BUILD_LOCK)
    for name in runtime.keys() & build.keys():
        assert runtime[name].version == build[name].version, (
            f"{name}: {runtime[name].version} at run time, {build[name].version} in the"
            f" build: {RELOCK}"
        )
        assert set(runtime[name].hashes) == set(build[name].hashes), (
            f"{name}=={runtime[name].version}: the two locks have other hashes for its files"
            f" (one was edited by hand?): {RELOCK}"
        )


@pytest.mark.parametrize("kind", KINDS)
def test_the_lock_was_made_from_todays_inputs(kind: str) -> None:
    """A lock's header records a hash of what it was made from (the requirements, the
    Dockerfile's base image, the platform): a range changed in pyproject.toml or
    buildsys/backend.py, or another base image, without re-locking fails here."""
    recorded = lock_inputs.header_digest(KINDS[kind])
    assert recorded, f"{KINDS[kind].name} has no inputs-sha256 line in its header: {RELOCK}"
    assert recorded == lock_inputs.inputs_digest(kind), (
        f"container/{KINDS[kind].name} was made from other inputs than today's"
        f" ({'pyproject.toml dependencies' if kind == 'runtime' else 'build requirements'}"
        f" or the Dockerfile's base image changed since): {RELOCK}"
    )


@pytest.mark.parametrize("kind", KINDS)
def test_the_header_says_how_to_regenerate(kind: str) -> None:
    text = KINDS[kind].read_text(encoding="utf-8")
    head = text[: text.index("\n", text.index("inputs-sha256"))]
    assert "scripts/lock.sh" in head and "Do not edit by hand" in head
    python, platform = lock_inputs.target()
    assert f"CPython {python} on {platform}" in head


def test_the_image_builds_from_the_locks() -> None:
    """The Dockerfile copies both locks into the build stage, and the container's scripts
    install from them with hash checking."""
    dockerfile = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    copied = " ".join(re.findall(r"^COPY\s+(.*)$", dockerfile, flags=re.MULTILINE))
    for lock in KINDS.values():
        assert lock.relative_to(ROOT).as_posix() in copied.split()
    build = (ROOT / "container" / "build-wheels.sh").read_text(encoding="utf-8")
    install = (ROOT / "container" / "install.sh").read_text(encoding="utf-8")
    assert build.count("--require-hashes") == 2 and "--no-build-isolation" in build
    assert "--require-hashes" in install and "--no-deps" in install
