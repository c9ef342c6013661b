"""``./dev``: its help, and ``./dev shell`` with arguments."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEV = ROOT / "dev"


def dev(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", str(DEV), *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **(env or {})},
    )


def test_the_help_is_the_comment_block_and_nothing_else() -> None:
    comments = []
    for line in DEV.read_text(encoding="utf-8").splitlines()[1:]:
        if not line.startswith("#"):
            break
        comments.append(line[2:] if line.startswith("# ") else line[1:])
    for args, code in (((), 0), (("help",), 0), (("no-such-command",), 2)):
        result = dev(*args)
        assert result.returncode == code, result.stderr
        assert result.stdout.splitlines() == comments
        assert "set -euo pipefail" not in result.stdout
    assert any("./dev shell [ARGS]" in line for line in comments)


def test_shell_passes_its_arguments_to_bash(tmp_path: Path) -> None:
    """With a virtual environment that is ready (its Python, its stamp newer than
    pyproject.toml), ``./dev shell -c CMD`` runs CMD in bash with the environment first
    on PATH, and exits with CMD's status."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "bin" / "python").symlink_to(sys.executable)
    (venv / ".installed").touch()
    result = dev(
        "shell",
        "-c",
        'echo "$0 $1 ${PATH%%:*}"; exit 7',
        "one",
        "two",
        env={"REFEREE_VENV": str(venv), "SHELL": "/bin/sh"},
    )
    assert result.returncode == 7, result.stderr
    assert result.stdout == f"one two {venv}/bin\n"
