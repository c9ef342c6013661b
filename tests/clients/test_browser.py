"""A real browser calls the gRPC-Web gateway from another origin (headless Chromium).

The Node suites (clients/typescript/test/grpcweb*.test.ts) run the browser clients'
code, but Node enforces no CORS. Here Chromium loads a page from one origin (a
static server on 127.0.0.1, its own port) that calls ``referee grpc-web`` on another
(a gateway allowing that origin, in front of a server with a token): Connect's web
transport (fetch) and Google's grpc-web runtime (XMLHttpRequest, text and binary)
play NewGame, LegalActions and ApplyAction through the browser's CORS preflight with
the headers those clients send (``x-grpc-web``, ``x-user-agent``, ``content-type``,
``authorization``, ``x-request-id``); an illegal action comes back as its verdict
(violation code and rule id); errors come back readable (code, message, ErrorInfo
reason, ``x-request-id``: what the gateway exposes). The same page from an origin
that is not allowed is refused by the browser: its calls fail on the page and none
reaches the gateway past the preflight.

The page (tests/clients/browser/page.js) is served as the browser runs it: the
packages' own ESM files from clients/typescript/node_modules through an import map,
the generated code transpiled (TypeScript's transpileModule, no bundler). It POSTs
what it saw, as JSON, to its own origin; the test waits for that (a generous
deadline only guards against a hang), then kills Chromium.

Chromium comes from Debian (``apt-get install chromium``: scripts/install-client-deps.sh,
which .ci/run runs); ``$REFEREE_CHROMIUM`` names another binary. Missing, the test
fails with how to install it, never skips.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest

from referee import grpcweb
from referee.auth import TokenSet
from referee.grpcweb import Gateway, GatewaySettings
from referee.server import ServerSettings
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb
from referee.v1.referee_pb2_grpc import RefereeServiceStub

from ..server_thread import ServerThread
from .conftest import CLIENTS, require_tool, run

TS = CLIENTS / "typescript"
NODE_MODULES = TS / "node_modules"
PAGE = Path(__file__).with_name("browser") / "page.js"
# The packages the page imports (ESM files served as they are).
PACKAGES = ("@bufbuild/protobuf", "@connectrpc/connect", "@connectrpc/connect-web", "grpc-web")
TOKEN = "browser-page-token-0123456789abcdef"
SEED = bytes(range(32))
CLIENT_NAMES = ("connect", "grpcWeb_text", "grpcWeb_binary")
CHROMIUM_INSTALL = (
    "set REFEREE_CHROMIUM to a Chromium or Chrome binary, or apt-get install chromium"
    " (Debian 12: scripts/install-client-deps.sh installs it)"
)
NODE_INSTALL = (
    "install Node >= 20 and npm (apt-get install nodejs npm), then npm ci in clients/typescript"
)
# A guard against a hang only: the page reports in about a second.
REPORT_DEADLINE_SECONDS = 90.0

# TypeScript's transpileModule on the generated code (src/gen): ES modules for the page.
_TRANSPILE = """
const ts = require(process.argv[1] + "/node_modules/typescript");
const fs = require("fs"), path = require("path");
const src = path.join(process.argv[1], "src", "gen"), out = process.argv[2];
for (const f of fs.readdirSync(src, { recursive: true })) {
  if (!f.endsWith(".ts")) continue;
  const js = ts.transpileModule(fs.readFileSync(path.join(src, f), "utf8"), {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ES2022 },
  }).outputText;
  fs.mkdirSync(path.dirname(path.join(out, f)), { recursive: true });
  fs.writeFileSync(path.join(out, f.replace(/\\.ts$/, ".js")), js);
}
"""


def chromium() -> str:
    """``$REFEREE_CHROMIUM``, else ``chromium`` on the PATH; missing: the test fails."""
    given = os.environ.get("REFEREE_CHROMIUM")
    if given:
        if shutil.which(given) is None:
            pytest.fail(f"REFEREE_CHROMIUM={given} is not an executable", pytrace=False)
        return given
    return require_tool("chromium", CHROMIUM_INSTALL)


def import_map() -> dict[str, dict[str, str]]:
    """Each package's ESM entry points (its package.json ``exports``, ``import``)."""
    imports = {}
    for package in PACKAGES:
        meta = json.loads((NODE_MODULES / package / "package.json").read_text(encoding="utf-8"))
        exports = meta.get("exports") or {".": meta["module"]}
        for subpath, target in exports.items():
            while isinstance(target, dict):
                target = target.get("import") or target["default"]
            imports[package + subpath[1:]] = f"/node_modules/{package}/{target.removeprefix('./')}"
    return {"imports": imports}


LAUNCHER = """<!doctype html>
<meta charset="utf-8"><title>Referee pages</title>
<iframe src="{allowed}/page.html"></iframe>
<iframe src="{blocked}/page.html"></iframe>
"""

PAGE_HTML = """<!doctype html>
<meta charset="utf-8"><title>Referee gRPC-Web page</title>
<script type="importmap">{import_map}</script>
<script type="module">
const config = {config};
let result;
try {{
  const page = await import("/page.js");
  result = await page.run(config);
}} catch (err) {{
  result = {{ origin: location.origin, pageError: String(err?.stack ?? err) }};
}}
await fetch("/report", {{ method: "POST", body: JSON.stringify(result) }});
</script>
"""


class Site(ThreadingHTTPServer):
    """A static web server for the page (one origin), and where the page reports."""

    daemon_threads = True

    def __init__(self, gen: Path, reports: dict[str, Any], done: threading.Condition) -> None:
        super().__init__(("127.0.0.1", 0), _SiteHandler)
        self.gen = gen
        self.reports = reports
        self.done = done
        self.page_html = b""
        self.launcher = b""

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _SiteHandler(BaseHTTPRequestHandler):
    server: Site

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, content_type: str, body: bytes) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def _file(self, root: Path, relative: str) -> None:
        path = (root / relative).resolve()
        if not path.is_relative_to(root.resolve()) or not path.is_file():
            self._send(404, "text/plain", b"not found\n")
            return
        self._send(200, "text/javascript; charset=utf-8", path.read_bytes())

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        if path == "/":
            self._send(200, "text/html; charset=utf-8", self.server.launcher)
        elif path == "/page.html":
            self._send(200, "text/html; charset=utf-8", self.server.page_html)
        elif path == "/page.js":
            self._send(200, "text/javascript; charset=utf-8", PAGE.read_bytes())
        elif path.startswith("/gen/"):
            self._file(self.server.gen, path.removeprefix("/gen/"))
        elif package := next((p for p in PACKAGES if path.startswith(f"/node_modules/{p}/")), None):
            self._file(NODE_MODULES / package, path.removeprefix(f"/node_modules/{package}/"))
        else:
            self._send(404, "text/plain", b"not found\n")

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self._send(204 if self.path == "/report" else 404, "text/plain", b"")
        if self.path == "/report":
            with self.server.done:
                self.server.reports[self.server.origin] = json.loads(body)
                self.server.done.notify_all()


@pytest.fixture
def gateway_requests(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, str]]:
    """Every request the gateways receive from now on: method, path and headers."""
    seen: list[dict[str, str]] = []
    for method in ("do_OPTIONS", "do_POST"):
        original = getattr(grpcweb._Handler, method)

        def spy(handler: Any, original: Any = original) -> None:
            headers = {k.lower(): v for k, v in handler.headers.items()}
            seen.append({":method": handler.command, ":path": handler.path, **headers})
            original(handler)

        monkeypatch.setattr(grpcweb._Handler, method, spy)
    return seen


def _expected_rejection(server: ServerThread) -> list[dict[str, str]]:
    """The violations the server gives the page's illegal action (another seat's turn)."""
    metadata = (("authorization", f"Bearer {TOKEN}"),)
    config = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3))
    with grpc.insecure_channel(server.address) as channel:
        stub = RefereeServiceStub(channel)
        request = pb.NewGameRequest(config=config, seed=SEED)
        state = stub.NewGame(request, metadata=metadata).state
        legal = stub.LegalActions(pb.LegalActionsRequest(state=state), metadata=metadata)
        action = legal.actions[0]
        action.actor.seat = (action.actor.seat + 1) % 3
        applied = pb.ApplyActionRequest(state=state, action=action)
        rejected = stub.ApplyAction(applied, metadata=metadata)
    assert rejected.violations
    return [{"code": v.code, "ruleId": v.rule_id} for v in rejected.violations]


@contextlib.contextmanager
def chromium_on(url: str, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Any]]:
    """Headless Chromium showing ``url`` (a profile and a HOME of its own); its process
    and a function giving the end of its output. Killed, its whole process group, on exit."""
    browser = chromium()
    home = tmp_path / "home"
    home.mkdir()
    with (tmp_path / "chromium.log").open("w+b") as log:
        process = subprocess.Popen(
            [
                browser,
                "--headless=new",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                f"--user-data-dir={tmp_path / 'profile'}",
                "--no-first-run",
                "--no-default-browser-check",
                "--no-proxy-server",
                "--disable-extensions",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--enable-logging=stderr",  # the pages' console too
                url,
            ],
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            env={**os.environ, "HOME": str(home)},
            start_new_session=True,  # a process group of its own: killed whole below
        )

        def output() -> str:
            log.seek(0)
            return log.read().decode(errors="replace")[-4000:]

        try:
            yield process, output
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(30)


def play_in_chromium(tmp_path: Path, gateway_requests: list[dict[str, str]]) -> dict[str, Any]:
    """Chromium loads the page from the allowed origin and from another one; what each
    page reported, keyed ``allowed`` and ``blocked``, with the gateway's requests."""
    chromium()
    require_tool("node", NODE_INSTALL)
    if not all((NODE_MODULES / p / "package.json").is_file() for p in (*PACKAGES, "typescript")):
        pytest.fail(f"clients/typescript/node_modules is missing: {NODE_INSTALL}", pytrace=False)
    gen = tmp_path / "gen"
    transpiled = run(["node", "-e", _TRANSPILE, str(TS), str(gen)], cwd=TS, timeout=120)
    assert transpiled.returncode == 0, transpiled.stderr

    reports: dict[str, Any] = {}
    done = threading.Condition()
    with contextlib.ExitStack() as stack:
        allowed, blocked = Site(gen, reports, done), Site(gen, reports, done)
        for site in (allowed, blocked):
            stack.callback(site.server_close)
        settings = ServerSettings(
            host="127.0.0.1", port=0, grace_seconds=1, auth=TokenSet([("web", TOKEN)])
        )
        server = stack.enter_context(ServerThread(settings))
        gateway = Gateway(
            GatewaySettings(
                target=server.address,
                host="127.0.0.1",
                port=0,
                grace_seconds=1,
                allow_origins=(allowed.origin,),
            )
        )
        gateway.start()
        stack.callback(gateway.stop)
        config = {"gateway": f"http://127.0.0.1:{gateway.port}", "token": TOKEN}
        page = PAGE_HTML.format(import_map=json.dumps(import_map()), config=json.dumps(config))
        for site in (allowed, blocked):
            site.page_html = page.encode()
            site.launcher = LAUNCHER.format(allowed=allowed.origin, blocked=blocked.origin).encode()
            threading.Thread(target=site.serve_forever, args=(0.05,), daemon=True).start()
            stack.callback(site.shutdown)

        process, output = stack.enter_context(chromium_on(f"{allowed.origin}/", tmp_path))
        deadline = time.monotonic() + REPORT_DEADLINE_SECONDS
        with done:
            while len(reports) < 2:
                if process.poll() is not None:
                    pytest.fail(f"Chromium exited ({process.returncode}):\n{output()}")
                if time.monotonic() > deadline:
                    pytest.fail(
                        f"no report from the pages after {REPORT_DEADLINE_SECONDS:.0f}s"
                        f" (got {sorted(reports)}):\n{output()}"
                    )
                done.wait(1.0)
        print(f"Chromium's output:\n{output()}")
        return {
            "allowed": reports[allowed.origin],
            "blocked": reports[blocked.origin],
            "allowed_origin": allowed.origin,
            "blocked_origin": blocked.origin,
            "requests": list(gateway_requests),
            "expected_rejection": _expected_rejection(server),
        }


def test_a_real_browser_calls_the_gateway_from_the_allowed_origin_only(
    tmp_path: Path, gateway_requests: list[dict[str, str]]
) -> None:
    """One Chromium run (about two seconds), checked in three parts."""
    browser_run = play_in_chromium(tmp_path, gateway_requests)
    print(json.dumps(browser_run, indent=1))
    _check_the_allowed_page(browser_run)
    _check_the_preflights_and_headers(browser_run)
    _check_the_page_of_another_origin(browser_run)


def _check_the_allowed_page(browser_run: dict[str, Any]) -> None:
    """The page of the allowed origin plays, and reads verdicts and errors."""
    page = browser_run["allowed"]
    assert "pageError" not in page, page["pageError"]
    assert page["origin"] == browser_run["allowed_origin"]
    for name in CLIENT_NAMES:
        steps = page[name]
        assert "failed" not in steps, f"{name}: {steps['failed']}"
        # Without the token: the server's UNAUTHENTICATED, read by the page.
        denied = steps["unauthenticated"]
        assert denied["code"] == grpc.StatusCode.UNAUTHENTICATED.value[0], (name, denied)
        assert denied["requestId"], (name, denied)  # the server's own, exposed by CORS
        assert steps["newGame"] == {"rulesVersion": "earl_of_coventry/1", "version": "0"}, name
        assert steps["legal"]["verdict"] == "ACCEPTED" and steps["legal"]["version"] == "1", name
        # An illegal action: the typed verdict, each violation's code and rule id.
        assert steps["illegal"] == {
            "verdict": "REJECTED",
            "violations": browser_run["expected_rejection"],
        }, name
        # An error: its code, message, ErrorInfo reason and x-request-id (exposed by CORS).
        bad = steps["badState"]
        assert bad["code"] == grpc.StatusCode.FAILED_PRECONDITION.value[0], (name, bad)
        assert "is not served here" in bad["message"], (name, bad)
        assert bad["reason"] == "RULES_VERSION_UNSUPPORTED", (name, bad)
        tag = "browser-connect" if name == "connect" else f"browser-grpc-web-{name[8:]}"
        assert bad["requestId"] == tag, (name, bad)


def _check_the_preflights_and_headers(browser_run: dict[str, Any]) -> None:
    """The browser asked the gateway first (CORS preflight) for the headers the
    clients send, then sent them."""
    origin = browser_run["allowed_origin"]
    mine = [r for r in browser_run["requests"] if r.get("origin") == origin]
    preflights = [r for r in mine if r[":method"] == "OPTIONS"]
    calls = [r for r in mine if r[":method"] == "POST"]
    assert preflights and calls
    asked = {
        h.strip()
        for r in preflights
        for h in r.get("access-control-request-headers", "").split(",")
        if h.strip()
    }
    assert {"authorization", "content-type", "x-grpc-web", "x-user-agent"} <= asked, asked
    assert "x-request-id" in asked, asked
    assert {r["access-control-request-method"] for r in preflights} == {"POST"}
    types = {r["content-type"] for r in calls}
    assert {"application/grpc-web+proto", "application/grpc-web-text"} <= types, types
    assert all(r.get("x-grpc-web") == "1" and r.get("x-user-agent") for r in calls)
    assert {r[":path"] for r in calls} >= {
        f"/referee.v1.RefereeService/{m}"
        for m in ("ListGames", "NewGame", "LegalActions", "ApplyAction")
    }


def _check_the_page_of_another_origin(browser_run: dict[str, Any]) -> None:
    """The same page from an origin the gateway does not allow: the browser refuses."""
    page = browser_run["blocked"]
    assert "pageError" not in page, page["pageError"]
    assert page["origin"] == browser_run["blocked_origin"]
    for name in CLIENT_NAMES:
        steps = page[name]
        # Every call failed on the page as a network error: no status, no header read.
        assert "newGame" not in steps and "failed" in steps, (name, steps)
        network_error = "Failed to fetch" if name == "connect" else "http status code: 0"
        for failure in (steps["unauthenticated"], steps["failed"]):
            assert failure["code"] == grpc.StatusCode.UNKNOWN.value[0], (name, failure)
            assert network_error in failure["message"], (name, failure)
            assert not failure.get("requestId"), (name, failure)
    theirs = [
        r for r in browser_run["requests"] if r.get("origin") == browser_run["blocked_origin"]
    ]
    # The preflight was refused, so the browser sent no call.
    assert theirs and {r[":method"] for r in theirs} == {"OPTIONS"}, theirs
