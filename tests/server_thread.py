"""A real Referee server in this process, on either engine (for tests).

The engine is the settings' own unless ``engine`` is given; ``REFEREE_TEST_ENGINE``
(``asyncio`` or ``threads``) sets it for every server a test run makes that way, and
for ``referee serve`` subprocesses (``REFEREE_ENGINE``), so that the service,
operations and reliability tests run against both engines (``./dev test`` runs
everything with ``asyncio``, then those with ``threads``)."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import threading
from typing import Any

from referee import logs
from referee.server import ENGINES, RefereeServer, ServerBase, ServerSettings, engine_for

# The in-process servers log warnings only (the subprocess tests read their own logs).
logs.configure("warning", "json")

TEST_ENGINE = os.environ.get("REFEREE_TEST_ENGINE", "")
if TEST_ENGINE and TEST_ENGINE not in ENGINES:
    raise RuntimeError(f"REFEREE_TEST_ENGINE must be one of {ENGINES}, not {TEST_ENGINE!r}")


def subprocess_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a ``referee serve`` subprocess: this one, unbuffered, on the
    test run's engine (if any), and ``extra``."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    if TEST_ENGINE:
        env["REFEREE_ENGINE"] = TEST_ENGINE
    return {**env, **(extra or {})}


def engine_of(settings: ServerSettings, engine: str | None = None) -> ServerSettings:
    """``settings`` with the engine asked for, else the test run's (if any), else the
    settings' own; ``auto`` resolved as a worker resolves it (``engine_for``)."""
    chosen = dataclasses.replace(settings, engine=engine or TEST_ENGINE or settings.engine)
    return dataclasses.replace(chosen, engine=engine_for(chosen))


class ServerThread:
    """A Referee server running in the background: grpc.aio on its own event loop in
    a thread, or grpc's threaded server (which makes its own threads)."""

    def __init__(
        self, settings: ServerSettings, metrics: Any = None, engine: str | None = None
    ) -> None:
        self.settings = engine_of(settings, engine)
        self.metrics = metrics
        self.loop: asyncio.AbstractEventLoop | None = None
        self.server: Any = None
        self.port = 0
        self._ready = threading.Event()
        self._thread: threading.Thread | None = None

    @property
    def engine(self) -> str:
        return self.settings.engine

    def _run(self) -> None:
        assert self.loop is not None
        asyncio.set_event_loop(self.loop)

        async def start() -> None:
            self.server = RefereeServer(self.settings, self.metrics)
            self.port = await self.server.start()
            self._ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()
        self.loop.close()

    def start(self) -> ServerThread:
        if self.engine == "threads":
            from referee.threaded import ThreadedRefereeServer

            self.server = ThreadedRefereeServer(self.settings, self.metrics)
            self.port = self.server.start()
            return self
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("server did not start")
        return self

    def _call(self, method: str) -> None:
        """``server.<method>()``, awaited on the server's loop for grpc.aio."""
        fn = getattr(self.server, method)
        if self.loop is None:
            fn()
        else:
            asyncio.run_coroutine_threadsafe(fn(), self.loop).result(30)

    def enter_graceful_shutdown(self) -> None:
        """Health NOT_SERVING, as on SIGTERM (the server keeps serving)."""
        health = self.server.health
        if self.loop is None:
            health.enter_graceful_shutdown()
        else:
            asyncio.run_coroutine_threadsafe(health.enter_graceful_shutdown(), self.loop).result(30)

    def stop(self) -> None:
        assert self.server is not None
        self._call("stop")
        if self.loop is not None and self._thread is not None:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join(30)

    def __enter__(self) -> ServerThread:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    @property
    def health_address(self) -> str:
        assert isinstance(self.server, ServerBase)
        return f"127.0.0.1:{self.server.health_port}"
