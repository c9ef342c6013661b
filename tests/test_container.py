"""The container's install and entrypoint steps, run in a fresh virtual environment.

There is no Docker engine here, so this test runs the very scripts the
Dockerfile runs (container/build-wheels.sh, container/install.sh) and then the
Dockerfile's ENTRYPOINT + CMD and HEALTHCHECK commands from the new
environment, and checks that the server answers and stops cleanly on SIGTERM. Like the
image's two stages, the wheels are built in one environment (which gets the build lock)
and installed into another, which must then hold exactly what container/requirements.lock
pins (tests/test_lock.py checks the locks themselves).
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
import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version

from referee.v1 import referee_pb2, referee_pb2_grpc
from tests.test_lock import RUNTIME_LOCK, read_lock

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


def stage_env(env_dir: Path) -> dict[str, str]:
    """A fresh virtual environment standing for one of the image's stages, and the
    environment to run the container's scripts with in it."""
    venv.EnvBuilder(with_pip=True).create(env_dir)
    bin_dir = env_dir / "bin"
    env = {
        **os.environ,
        "PIP": str(bin_dir / "pip"),
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.pop("VIRTUAL_ENV", None)
    return env


def run_script(args: list[str], env: dict[str, str]) -> str:
    """Run a container script; its output is the failure's message (pip's own words
    about a hash or a version the lock gets wrong)."""
    result = subprocess.run(args, env=env, timeout=900, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        tail = "\n".join(result.stdout.splitlines()[-15:])
        pytest.fail(f"{' '.join(args)} exited {result.returncode}:\n{tail}\n{result.stderr}")
    return result.stdout


def test_container_install_and_entrypoint(tmp_path: Path) -> None:
    # The build stage: build lock installed, runtime wheels fetched, Referee compiled.
    build_env = stage_env(tmp_path / "build-venv")
    wheels = tmp_path / "wheels"
    run_script(["sh", str(ROOT / "container/build-wheels.sh"), str(wheels), str(ROOT)], build_env)
    assert list(wheels.glob("referee-*.whl"))
    # The runtime stage: a clean environment, from those wheels only.
    env_dir = tmp_path / "venv"
    env = stage_env(env_dir)
    bin_dir = env_dir / "bin"
    run_script(["sh", str(ROOT / "container/install.sh"), str(wheels)], env)
    assert (bin_dir / "referee").exists()
    # Exactly the lock is installed: pip check passes, and pip freeze lists the lock's
    # pins and Referee, nothing unpinned beside them (pip freeze leaves out the
    # environment's own pip and setuptools, which the lock does not pin).
    run_script([str(bin_dir / "pip"), "check", "--disable-pip-version-check"], env)
    frozen = run_script([str(bin_dir / "pip"), "freeze", "--disable-pip-version-check"], env)
    installed = {}
    for line in frozen.splitlines():
        name, sep, version = line.partition("==")
        assert sep, f"pip freeze: {line} is not a released version"
        installed[canonicalize_name(name)] = Version(version)
    assert installed.pop("referee", None) is not None
    locked = {name: pin.version for name, pin in read_lock(RUNTIME_LOCK).items()}
    moved = sorted(n for n in installed.keys() & locked.keys() if installed[n] != locked[n])
    assert installed == locked, (
        f"installed but not locked: {sorted(installed.keys() - locked.keys())};"
        f" locked but not installed: {sorted(locked.keys() - installed.keys())};"
        f" at other versions: {moved}"
    )

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
        # The same image run as the gRPC-Web gateway (command `grpc-web`): the same
        # HEALTHCHECK asks the gateway's /healthz (PID 1 here is this machine's init,
        # so the check is pointed at the gateway's process).
        web_env = {
            **run_env,
            "REFEREE_GRPC_WEB_PORT": str(free_port()),
            "REFEREE_GRPC_WEB_TARGET": f"127.0.0.1:{port}",
        }
        gateway = subprocess.Popen(
            [str(bin_dir / command[0]), "grpc-web"],
            env=web_env,
            cwd=tmp_path,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert gateway.stderr is not None
            assert json.loads(gateway.stderr.readline())["event"] == "grpc_web_serving"
            web_check = subprocess.run(
                [str(bin_dir / health_cmd[0]), *health_cmd[1:], "--pid", str(gateway.pid)],
                env=web_env,
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert web_check.returncode == 0, web_check.stderr
            assert "/healthz: 200 ok" in web_check.stdout
        finally:
            gateway.kill()
            gateway.wait()
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
