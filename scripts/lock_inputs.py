"""What the container image's locks (container/*.lock) are made from, and their headers.

scripts/lock.sh calls this for the requirements to resolve, the target (the image's
CPython and platform) and each lock's header; tests/test_lock.py for the same values, to
check that the committed locks were made from today's pyproject.toml, buildsys/backend.py
and Dockerfile (a header's ``inputs-sha256``).

    python scripts/lock_inputs.py requirements runtime|build   one requirement a line
    python scripts/lock_inputs.py target                       PYTHON_VERSION PLATFORM
    python scripts/lock_inputs.py header runtime|build         the lock's header comment

Standard library only: it runs before anything is installed.
"""

from __future__ import annotations

import ast
import hashlib
import re
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCKS = {
    "runtime": ROOT / "container" / "requirements.lock",
    "build": ROOT / "container" / "build-requirements.lock",
}
# The glibc of each Debian release the base image may be built on: the newest manylinux
# tag its wheels may carry.
GLIBC = {"bookworm": "2_36"}


def base_image() -> str:
    """The Dockerfile's base image, the same for every stage."""
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    images = set(re.findall(r"^FROM\s+(\S+)", text, flags=re.MULTILINE))
    if len(images) != 1:
        raise SystemExit(f"the Dockerfile's stages have different base images: {sorted(images)}")
    return images.pop()


def target() -> tuple[str, str]:
    """(CPython version, platform) of the base image, e.g. ("3.11.11",
    "x86_64-manylinux_2_36") for python:3.11.11-slim-bookworm."""
    image = base_image()
    match = re.fullmatch(r"python:(\d+\.\d+\.\d+)-(?:slim-)?(\w+)", image)
    if not match or match[2] not in GLIBC:
        raise SystemExit(
            f"base image {image}: lock_inputs.py knows python:X.Y.Z-slim-<Debian release>"
            f" for the releases {sorted(GLIBC)}; add its glibc to GLIBC"
        )
    return match[1], f"x86_64-manylinux_{GLIBC[match[2]]}"


def runtime_requirements() -> list[str]:
    """pyproject.toml's [project] dependencies: what the image runs."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [str(r) for r in pyproject["project"]["dependencies"]]


def build_requirements() -> list[str]:
    """What the build stage needs to build the compiled wheel: pyproject.toml's
    [build-system] requires and buildsys/backend.py's COMPILE_REQUIRES (mypyc and the
    types of what the compiled modules import)."""
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    backend = ast.parse((ROOT / "buildsys" / "backend.py").read_text(encoding="utf-8"))
    for node in backend.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "COMPILE_REQUIRES" for t in node.targets
        ):
            compile_requires = ast.literal_eval(node.value)
            break
    else:
        raise SystemExit("buildsys/backend.py has no COMPILE_REQUIRES")
    return [*pyproject["build-system"]["requires"], *compile_requires]


def requirements(kind: str) -> list[str]:
    return {"runtime": runtime_requirements, "build": build_requirements}[kind]()


def inputs_digest(kind: str) -> str:
    """A hash of everything a lock is made from: the requirements (order and spacing
    aside), the base image and the platform. A lock whose header carries another one was
    made from other inputs and must be made again."""
    python, platform = target()
    lines = [f"lock {kind}", f"base-image {base_image()}", f"python {python}"]
    lines += [f"platform {platform}"]
    lines += sorted("requirement " + re.sub(r"\s+", "", r) for r in requirements(kind))
    return hashlib.sha256("\n".join(lines).encode()).hexdigest()


def header_digest(lock: Path) -> str | None:
    """The ``inputs-sha256`` a lock's header records."""
    match = re.search(r"^# inputs-sha256: ([0-9a-f]{64})$", lock.read_text(), re.MULTILINE)
    return match[1] if match else None


def header(kind: str) -> str:
    python, platform = target()
    what = {
        "runtime": [
            "The container image's runtime Python packages: pyproject.toml's dependencies,",
            "transitively. container/build-wheels.sh fetches them and container/install.sh",
            "installs them, both with --require-hashes.",
        ],
        "build": [
            "The container's build stage's Python packages: pyproject.toml's [build-system]",
            "requires and buildsys/backend.py's COMPILE_REQUIRES (mypyc and the types the",
            "compiled modules need), transitively, at requirements.lock's versions where they",
            "overlap. container/build-wheels.sh installs them with --require-hashes, then",
            "builds Referee's wheel from them without build isolation.",
        ],
    }[kind]
    lines = [
        f"container/{LOCKS[kind].name}",
        "",
        *what,
        f"Exact versions with hashes for CPython {python} on {platform}",
        f"(the image's {base_image()}).",
        "",
        "Do not edit by hand. Regenerate both locks with scripts/lock.sh after changing",
        "pyproject.toml's dependencies or [build-system] requires, buildsys/backend.py's",
        "COMPILE_REQUIRES or the Dockerfile's base image, and review the diff;",
        "scripts/lock.sh --upgrade moves every pin to the newest release in range,",
        "--upgrade-package NAME one package. tests/test_lock.py compares this hash of",
        "those inputs with today's:",
        f"inputs-sha256: {inputs_digest(kind)}",
    ]
    return "".join(f"# {line}\n" if line else "#\n" for line in lines)


def main(argv: list[str]) -> int:
    match argv:
        case ["requirements", ("runtime" | "build") as kind]:
            print("\n".join(requirements(kind)))
        case ["target"]:
            print(*target())
        case ["header", ("runtime" | "build") as kind]:
            print(header(kind), end="")
        case _:
            print(__doc__, file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
