"""A real Referee server on its own event loop in a background thread (for tests)."""

from __future__ import annotations

import asyncio
import threading

from referee import logs
from referee.server import RefereeServer, ServerSettings

# The in-process servers log warnings only (the subprocess tests read their own logs).
logs.configure("warning", "json")


class ServerThread:
    """A RefereeServer running on its own event loop in a background thread."""

    def __init__(self, settings: ServerSettings) -> None:
        self.settings = settings
        self.loop = asyncio.new_event_loop()
        self.server: RefereeServer | None = None
        self.port = 0
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)

        async def start() -> None:
            self.server = RefereeServer(self.settings)
            self.port = await self.server.start()
            self._ready.set()

        self.loop.run_until_complete(start())
        self.loop.run_forever()
        self.loop.close()

    def start(self) -> ServerThread:
        self._thread.start()
        if not self._ready.wait(30):
            raise RuntimeError("server did not start")
        return self

    def stop(self) -> None:
        assert self.server is not None
        asyncio.run_coroutine_threadsafe(self.server.stop(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self._thread.join(30)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"
