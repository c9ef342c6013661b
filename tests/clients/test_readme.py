"""The README's client quickstarts are the runnable quickstart files, and they run."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest

from ..server_thread import ServerThread
from . import test_go, test_java, test_typescript
from .conftest import CLIENTS, ROOT, run

README = (ROOT / "README.md").read_text(encoding="utf-8")


def block(language: str, containing: str) -> str:
    blocks = [b for b in re.findall(rf"```{language}\n(.*?)```", README, re.S) if containing in b]
    assert len(blocks) == 1, f"one {language} block with {containing!r} in the README"
    return blocks[0]


def lines(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip()]


def assert_in_file(snippet: str, path: str) -> None:
    """The snippet, with its literal address as the variable ``address``, is in the file:
    its imports in order, then its code as one run of lines (the file defines
    ``address`` between the two)."""
    want = lines(snippet.replace('"localhost:50051"', "address"))
    have = lines((CLIENTS / path).read_text(encoding="utf-8"))
    imports = [line for line in want if line.startswith("import ")]
    code = want[len(imports) :]
    assert want[: len(imports)] == imports, f"the README snippet's imports come first ({path})"
    assert all(line in have for line in imports), f"README snippet's imports not in {path}"
    starts = [i for i, line in enumerate(have) if line == code[0]]
    assert any(have[i : i + len(code)] == code for i in starts), f"README snippet not in {path}"


def test_python_quickstart_runs(server: ServerThread) -> None:
    code = block("python", "from referee.client import").replace("localhost:50051", server.address)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {})
    assert re.match(r"winners: \[\d+", out.getvalue()), out.getvalue()


def test_the_clients_page_python_example_runs(server: ServerThread) -> None:
    """docs/clients.md's first Python example runs as written: it plays a session to
    its end and replays it with the seed revealed there."""
    text = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert "referee.replay(" in blocks[0] and "localhost:50051" in blocks[0]
    namespace: dict[str, Any] = {}
    code = blocks[0].replace("localhost:50051", server.address)
    exec(compile(code, "docs/clients.md", "exec"), namespace)
    assert namespace["game"].finished and len(namespace["seed"]) == 32
    assert namespace["replayed"].final_hash == namespace["game"].state_hash


def test_typescript_quickstart_runs(server: ServerThread) -> None:
    assert_in_file(block("ts", "RefereeClient"), "typescript/src/examples/quickstart.ts")
    test_typescript._ready()
    build = run(["npm", "run", "build"], cwd=test_typescript.TS)
    assert build.returncode == 0, build.stdout + build.stderr
    result = run(
        ["node", "dist/src/examples/quickstart.js"],
        cwd=test_typescript.TS,
        env={"REFEREE_ADDRESS": server.address},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("winners: ["), result.stdout


def test_go_quickstart_runs(server: ServerThread) -> None:
    assert_in_file(block("go", "referee.Dial"), "go/cmd/quickstart/main.go")
    test_go._vendor()
    result = run(
        ["go", "run", "./cmd/quickstart"],
        cwd=test_go.GO,
        env={**test_go.ENV, "REFEREE_ADDRESS": server.address},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("winners: ["), result.stdout


def test_java_quickstart_runs(server: ServerThread) -> None:
    quickstart = "java/src/main/java/referee/client/examples/Quickstart.java"
    assert_in_file(block("java", "RefereeClient"), quickstart)
    test_java._build()
    result = run(
        ["./run.sh", "referee.client.examples.Quickstart"],
        cwd=test_java.JAVA,
        env={"REFEREE_ADDRESS": server.address},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("winners: ["), result.stdout


def test_the_docs_python_client_settings_make_a_client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/clients.md's and docs/deploy.md's Python client with TLS, a token and
    deploy.md's service config: the keywords exist and the service config is the
    channel's (nothing connects: channels connect on their first call)."""
    import json

    import grpc

    from referee.client import Client

    deploy = (ROOT / "docs" / "deploy.md").read_text(encoding="utf-8")
    service_config = json.loads(re.findall(r"```json\n(.*?)```", deploy, re.S)[0])
    (tmp_path / "ca.pem").write_bytes(b"not a certificate: nothing connects")
    monkeypatch.chdir(tmp_path)
    made: list[Client] = []
    original_init = Client.__init__

    def init(self: Client, *args: Any, **kwargs: Any) -> None:
        original_init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Client, "__init__", init)
    for doc in ("clients.md", "deploy.md"):
        text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
        snippets = [
            b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "credentials=" in b
        ]
        assert snippets, f"docs/{doc} shows the client with TLS and a token"
        for snippet in snippets:
            namespace = {
                "grpc": grpc,
                "json": json,
                "SERVICE_CONFIG": service_config,
                "token": "t" * 32,
                "ca_pem": b"",
            }
            exec(compile(snippet.replace("{...}", "SERVICE_CONFIG"), doc, "exec"), namespace)
    assert made
    for client in made:
        assert client.metadata == (("authorization", "Bearer " + "t" * 32),)
        client.close()


def test_the_clients_page_grpc_web_code_is_the_tests() -> None:
    """docs/clients.md's code for Google's grpc-web client is in the TypeScript test that
    runs it (grpcweb-google.test.ts; its address there comes from the test's gateway):
    the block's imports are imported there, its code is a run of the test's lines."""
    text = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")
    (snippet,) = [b for b in re.findall(r"```ts\n(.*?)```", text, re.S) if "GrpcWebClientBase" in b]
    test_file = "typescript/test/grpcweb-google.test.ts"
    have = (CLIENTS / test_file).read_text(encoding="utf-8")
    want = lines(snippet)
    imports = [line for line in want if line.startswith("import ")]
    for line in imports:  # the same names from the same module (the test sits elsewhere)
        names, module = re.fullmatch(
            r'(import (?:type )?\{ .* \} from )"(?:\./)?(.*)";', line
        ).groups()  # type: ignore[union-attr]
        assert re.search(re.escape(names) + r'"[./]*(?:src/)?' + re.escape(module), have), line
    code = [line for line in want[len(imports) :] if not line.startswith("const url = ")]
    assert_in_file("\n".join(code), test_file)
