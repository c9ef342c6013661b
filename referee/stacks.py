"""A worker's Python stacks, on an operator's question and when it is stuck or dies.

Two ways, because one is safe and the other always answers:

- **Asked** (``kill -USR2``, :data:`ASK_SIGNAL`): a Python-level signal handler. It
  runs in the main thread between two bytecodes, holding the GIL, and reads every
  thread's frames with ``sys._current_frames()``, which is safe while the others run.
  faulthandler's dump is not: it walks the other threads' frames from its C handler
  without the GIL, and a worker once died of a segmentation fault in the middle of
  one (a frame torn down under it). The cost: a main thread stuck in C code never
  runs the handler, so it answers nothing; that is the next case.
- **Stuck or crashing**: faulthandler, from its C signal handler, so even a worker
  stuck holding the GIL answers: on :data:`HUNG_SIGNAL` (the supervisor sends it to a
  worker with no heartbeat, and SIGKILLs it a second later whatever happens) and on a
  fatal signal (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL), after which it dies anyway.

Both write the same text, headed by "most recent call first" as faulthandler's is:
file names, line numbers and function names, never a variable's value.
"""

from __future__ import annotations

import contextlib
import faulthandler
import os
import signal
import sys
import threading
import traceback
from types import FrameType

ASK_SIGNAL = signal.SIGUSR2
HUNG_SIGNAL = signal.SIGUSR1
MAX_FRAMES = 100  # a thread's frames written at most (faulthandler's own limit)


def format_stacks(current: FrameType | None = None) -> str:
    """Every thread's Python stack, most recent call first, as faulthandler writes
    them (plus each thread's name). ``current``: the calling thread's frame to start
    from (a signal handler passes the interrupted frame, so that it is not listed);
    by default, the caller's."""
    if current is None:
        current = sys._getframe(1)
    here = threading.get_ident()
    # threading's registry read without its lock (a signal handler must take none);
    # one dict lookup per thread under the GIL.
    active = getattr(threading, "_active", {})
    lines: list[str] = []
    for ident, frame in sys._current_frames().items():
        thread = active.get(ident)
        name = f" ({thread.name})" if thread is not None else ""
        if ident == here:
            frame = current
            lines.append(f"Current thread 0x{ident:016x}{name} (most recent call first):")
        else:
            lines.append(f"Thread 0x{ident:016x}{name} (most recent call first):")
        walked = traceback.StackSummary.extract(
            traceback.walk_stack(frame), limit=MAX_FRAMES + 1, lookup_lines=False
        )
        shown = walked[:MAX_FRAMES]
        lines.extend(f'  File "{f.filename}", line {f.lineno} in {f.name}' for f in shown)
        if len(walked) > MAX_FRAMES:  # cut: more frames than are written
            lines.append("  ...")
        lines.append("")
    return "\n".join(lines)


def write_all(fd: int, data: bytes) -> None:
    """Write ``data`` to ``fd`` without ever waiting: a full pipe (stacks asked for
    again and again) loses the rest, not the worker."""
    view = memoryview(data)
    with contextlib.suppress(OSError):  # BlockingIOError among them: the pipe is full
        while view:
            view = view[os.write(fd, view) :]


def install(fd: int, hung_signal: bool) -> None:
    """Stacks to ``fd``: on ASK_SIGNAL (the process goes on), on a fatal signal (it
    dies of it) and, with ``hung_signal``, on HUNG_SIGNAL (the supervisor's, before it
    kills a stuck worker). Called in the main thread."""

    def asked(_signum: int, frame: FrameType | None) -> None:
        write_all(fd, format_stacks(frame).encode(errors="replace"))

    faulthandler.enable(file=fd, all_threads=True)
    if hung_signal:
        faulthandler.register(HUNG_SIGNAL, file=fd, all_threads=True, chain=False)
    signal.signal(ASK_SIGNAL, asked)
