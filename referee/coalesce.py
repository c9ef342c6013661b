"""Coalescing: under load, the short RPCs of a worker run in small batches.

A call's own work (decode, check, apply, encode: about 20 µs in a loop) costs two to
three times as much when it runs alone between gRPC's work for other calls: it finds
the caches and branch predictors cold after gRPC's and the kernel's work. Run back to
back, calls that arrived within a few tens of microseconds of each other find them
warm. So a call may wait until calls stop arriving for ``gap`` seconds (at most
``max_wait``, at most ``max_batch`` calls); then the waiting calls run one after the
other (bench/service.py measures the effect; docs/benchmarks.md).

Waiting is adaptive: it goes on while it pays, that is while the batches it makes hold
more than one call. When they do not (a lone client, light load), calls run at once,
and one call in ``PROBE_EVERY`` of those arriving within a gap of the call before waits
to find out whether load has come back. A call arriving more than a gap after the one
before never probes: waiting could only find company that is not in sight. So a lone
client whose round trip is longer than the gap never waits, nor does a worker whose calls
arrive farther apart than the gap even under load (a machine where gRPC's own work per
call is dear: docs/benchmarks.md).

Each call runs in its own context (its request id, its log line, its metrics),
exactly as it would unbatched, and one call's failure is its own; a call cancelled
while it waits (its deadline, its client gone) is skipped. While calls wait, the event
loop keeps turning instead of sleeping in ``epoll``, so a worker under load uses a
little more CPU than it would otherwise; an idle worker uses none.
"""

from __future__ import annotations

import asyncio
import contextvars
import time
from collections.abc import Callable
from typing import Any

MAX_BATCH = 32
MAX_WAIT_GAPS = 10  # a call waits at most this many gaps
PROBE_EVERY = 16  # while waiting does not pay, one call in this many still waits
PAYS = 0.25  # waiting pays while this share of recent batches (a moving average) hold 2+
WEIGHT = 1 / 8  # of the newest batch in that average

_Item = tuple[Callable[[Any], Any], Any, "asyncio.Future[Any]", contextvars.Context]


class Coalescer:
    """Runs ``fn(request)`` for the calls of one event loop, batched under load."""

    def __init__(
        self,
        gap_seconds: float,
        max_batch: int = MAX_BATCH,
        on_batch: Callable[[int], None] | None = None,
    ) -> None:
        """``on_batch(n)`` is told the size of each batch run, a call run at once
        counting as a batch of one (the ``referee_coalesced_batch_calls`` metric)."""
        if gap_seconds <= 0:
            raise ValueError("gap_seconds must be positive (no coalescer: no batching)")
        self.gap = gap_seconds
        self.max_wait = gap_seconds * MAX_WAIT_GAPS
        self.max_batch = max_batch
        self.on_batch = on_batch
        self._queue: list[_Item] = []
        self._armed = False
        self._first = 0.0
        self._last = 0.0  # when the last call arrived
        self._pays = 1.0  # share of recent batches holding more than one call
        self._solo = 0  # calls within a gap of the one before, run at once or probing
        self.batches = 0  # batches run (for tests and benchmarks)
        self.calls = 0  # calls run in them

    def run(self, fn: Callable[[Any], Any], request: Any) -> Any:
        """``fn(request)``'s result, or a future of it when the call waits.

        Raises what ``fn`` raises (at once, or through the future)."""
        queue = self._queue
        now = time.monotonic()
        if not queue and self._pays < PAYS:
            near = now - self._last < self.gap  # a call came within a gap before
            self._last = now
            if near:
                self._solo += 1
            if not near or self._solo % PROBE_EVERY:
                if self.on_batch is not None:
                    self.on_batch(1)
                return fn(request)
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        queue.append((fn, request, future, contextvars.copy_context()))
        self._last = now
        if len(queue) >= self.max_batch:
            self._flush()
        elif not self._armed:
            self._armed = True
            self._first = now
            loop.call_soon(self._check)
        return future

    def _check(self) -> None:
        if not self._armed:
            return  # flushed in the meantime (a full batch)
        now = time.monotonic()
        if now - self._last >= self.gap or now - self._first >= self.max_wait:
            self._flush()
        else:
            asyncio.get_running_loop().call_soon(self._check)

    def _flush(self) -> None:
        self._armed = False
        batch = self._queue
        self._queue = []
        self.batches += 1
        self.calls += len(batch)
        self._pays += ((len(batch) > 1) - self._pays) * WEIGHT
        if self.on_batch is not None:
            self.on_batch(len(batch))
        for fn, request, future, context in batch:
            if future.done():  # cancelled while waiting (deadline, client gone)
                continue
            try:
                result = context.run(fn, request)
            except Exception as e:  # the call's own failure, raised in its handler
                future.set_exception(e)
            else:
                future.set_result(result)
