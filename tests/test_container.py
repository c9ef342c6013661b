"""The container's install and entrypoint steps, run in a fresh virtual environment.

There is no Docker engine here, so this test runs the very scripts the
Dockerfile runs (container/build-wheels.sh, container/install.sh) and then the
Dockerfile's ENTRYPOINT + CMD and HEALTHCHECK commands from the new
environment, and checks that the server answers and stops cleanly on SIGTERM.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import venv
from pathlib import Path

import grpc

from referee.v1 import referee_pb2, referee_pb2_grpc

ROOT = Path(__file__).resolve().parents[1]


def dockerfile_instruction(name: str) -> str:
    """The last NAME instruction of the Dockerfile, continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    found = re.findall(rf"^{name}\s+(.*)$", text, flags=re.MULTILINE)
    assert found, f"the Dockerfile has a {name}"
    return str(found[-1]).strip()


def exec_form(text: str) -> list[str]:
    value = json.loads(text)
    assert isinstance(value, list), "exec form (JSON array), so that the server is PID 1"
    return [str(v) for v in value]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_container_install_and_entrypoint(tmp_path: Path) -> None:
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    env = {
        **os.environ,
        "PIP": str(bin_dir / "pip"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    wheels = tmp_path / "wheels"
    subprocess.run(
        ["sh", str(ROOT / "container/build-wheels.sh"), str(wheels), str(ROOT)],
        check=True,
        env=env,
        timeout=900,
        capture_output=True,
    )
    assert list(wheels.glob("referee-*.whl"))
    subprocess.run(
        ["sh", str(ROOT / "container/install.sh"), str(wheels)],
        check=True,
        env=env,
        timeout=900,
        capture_output=True,
    )
    assert (bin_dir / "referee").exists()

    port = free_port()
    run_env = {
        **env,
        "REFEREE_PORT": str(port),
        "REFEREE_LOG_FORMAT": "json",
        "HOME": str(tmp_path),
    }
    command = exec_form(dockerfile_instruction("ENTRYPOINT")) + exec_form(
        dockerfile_instruction("CMD")
    )
    assert command[0] == "referee"
    server = subprocess.Popen(
        [str(bin_dir / command[0]), *command[1:]],
        env=run_env,
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stderr is not None
        for line in server.stderr:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                raise AssertionError(line + server.stderr.read()) from None
            if entry.get("event") == "referee_serving":
                assert entry["build"] == "compiled", entry  # the image's wheel is compiled
                break
        # The image's HEALTHCHECK command, from the installed package.
        check = dockerfile_instruction("HEALTHCHECK")
        health_cmd = exec_form(check.split("CMD", 1)[1].strip())
        result = subprocess.run(
            [str(bin_dir / health_cmd[0]), *health_cmd[1:]],
            env=run_env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            games = referee_pb2_grpc.RefereeServiceStub(ch).ListGames(
                referee_pb2.ListGamesRequest(), timeout=10
            )
        assert "earl_of_coventry" in {g.id for g in games.games}
        assert dockerfile_instruction("STOPSIGNAL") == "SIGTERM"
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=60) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    # The installed package does not depend on the source tree.
    out = subprocess.run(
        [str(bin_dir / "python"), "-c", "import referee, sys; print(referee.__file__)"],
        env=run_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert str(env_dir) in out.stdout
    # The image ships the compiled build: the rules core, codecs, servicer, a call's
    # bookkeeping and the log pipeline are extensions.
    out = subprocess.run(
        [
            str(bin_dir / "python"),
            "-c",
            "import referee.games.ecarte.rules as r, referee.codec.common as c,"
            " referee.service as s, referee.calls as k, referee.logs as g; print(r.__file__);"
            " print(c.__file__); print(s.__file__); print(k.__file__); print(g.__file__)",
        ],
        env=run_env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    files = out.stdout.split()
    assert len(files) == 5 and all(f.endswith(".so") for f in files), out.stdout
    assert sys.prefix != str(env_dir)


def test_the_build_context_keeps_what_the_dockerfile_copies() -> None:
    """``.dockerignore`` leaves out of the build context what the image does not need
    (a development tree's .venv, caches, compiled modules), never what it copies."""
    import fnmatch

    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    copied = []
    for line in re.findall(r"^COPY\s+(.*)$", text, flags=re.MULTILINE):
        words = [w for w in line.split() if not w.startswith("--")]
        copied += words[:-1]  # the sources; the last word is the destination
    assert {"referee", "buildsys", "pyproject.toml"} <= set(copied)
    files = [p for c in copied for p in (ROOT / c, *(ROOT / c).rglob("*.py"))]
    for path in files:
        relative = path.relative_to(ROOT).as_posix()
        parts = relative.split("/")
        for pattern in patterns:
            plain = pattern.removeprefix("**/")
            hit = fnmatch.fnmatch(relative, pattern) or any(
                fnmatch.fnmatch(part, plain) for part in parts
            )
            assert not hit, f"{relative} is copied by the Dockerfile but excluded by {pattern}"
    for excluded in (".venv", "tests", "clients", ".git"):
        assert excluded in patterns
