"""referee.stacks: a worker's Python stacks written on an operator's question, safely."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from types import FrameType

import pytest

from referee import stacks

from .helpers import TIMEOUT


@pytest.fixture
def parked() -> Iterator[threading.Event]:
    """A thread named "parked" waiting in ``park_here`` (a local holds a secret) until
    the test ends."""
    release = threading.Event()

    def park_here() -> None:
        secret = "SEEDSECRET-not-for-logs"  # noqa: F841 (never to appear in the stacks)
        release.wait(TIMEOUT)

    thread = threading.Thread(target=park_here, name="parked")
    thread.start()
    yield release
    release.set()
    thread.join(TIMEOUT)


def test_every_thread_is_listed_by_name_most_recent_call_first(
    parked: threading.Event,
) -> None:
    text = stacks.format_stacks()
    blocks = {b.splitlines()[0]: b.splitlines()[1:] for b in text.strip().split("\n\n")}
    heads = list(blocks)
    # Every thread, also those threading does not know (started with _thread: no name).
    assert len(heads) == len(sys._current_frames())
    for thread in threading.enumerate():
        assert sum(f" ({thread.name}) " in h for h in heads) >= 1, thread.name
    (current,) = [h for h in heads if h.startswith("Current thread ")]
    assert current.endswith(" (MainThread) (most recent call first):")
    (other,) = [h for h in heads if "(parked)" in h]
    assert other.startswith("Thread 0x")
    frames = blocks[other]
    # Most recent first: Event.wait's own frames, then park_here, then Thread.run...
    names = [line.rsplit(" in ", 1)[1] for line in frames]
    assert names.index("park_here") < names.index("run") < names.index("_bootstrap")
    assert all(line.startswith('  File "') for line in frames)
    assert f'"{__file__}", line ' in "\n".join(frames)
    # The calling thread's stack starts here, in this test.
    assert blocks[current][0].endswith(
        " in test_every_thread_is_listed_by_name_most_recent_call_first"
    )


def test_no_value_and_no_source_line_is_written(parked: threading.Event) -> None:
    """File names, line numbers and function names only: neither a local's value nor
    the source line (which may hold a literal) is written."""
    text = stacks.format_stacks()
    assert "park_here" in text
    assert "SEEDSECRET" not in text and "release.wait" not in text


def test_a_signal_handler_starts_the_current_thread_at_the_interrupted_frame() -> None:
    def interrupted_here() -> FrameType:
        frame = sys._getframe()
        return frame

    text = stacks.format_stacks(interrupted_here())
    current = next(b for b in text.split("\n\n") if b.startswith("Current thread "))
    first = current.splitlines()[1]
    assert first.endswith(" in interrupted_here")
    assert "format_stacks" not in current


def test_a_deep_stack_is_cut_at_max_frames() -> None:
    def down(n: int) -> str:
        return down(n - 1) if n else stacks.format_stacks()

    text = down(stacks.MAX_FRAMES + 50)
    current = next(b for b in text.split("\n\n") if b.startswith("Current thread "))
    lines = current.splitlines()
    assert len(lines) == 1 + stacks.MAX_FRAMES + 1 and lines[-1] == "  ..."
    shallow = next(b for b in stacks.format_stacks().split("\n\n") if "Current" in b)
    assert "  ..." not in shallow
    # Exactly MAX_FRAMES frames: all written, nothing said to be cut.
    import traceback

    base = len(list(traceback.walk_stack(sys._getframe())))  # this test's frame and below
    text = down(stacks.MAX_FRAMES - base - 1)  # down(k) adds k + 1 frames
    lines = next(b for b in text.split("\n\n") if b.startswith("Current")).splitlines()
    assert len(lines) == 1 + stacks.MAX_FRAMES and lines[-1] != "  ..."


def test_a_full_pipe_loses_the_rest_and_never_blocks() -> None:
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        size = 1 << 20  # more than any pipe's buffer
        stacks.write_all(w, b"x" * size)  # returns: does not wait for a reader
        os.set_blocking(r, False)
        got = b""
        while True:
            try:
                chunk = os.read(r, 1 << 16)
            except BlockingIOError:
                break
            got += chunk
        assert 0 < len(got) < size and set(got) == {ord("x")}
        stacks.write_all(w, b"more")  # room again: written whole
        assert os.read(r, 16) == b"more"
    finally:
        os.close(r)
        os.close(w)


def test_asked_again_and_again_while_threads_come_and_go_the_process_goes_on() -> None:
    """The handler installed as a worker's (a pipe, the hung signal too), asked 200
    times while threads run deep stacks, start and end: every answer is a whole dump
    and the process lives. (faulthandler's dump, which read the other threads' frames
    without the GIL, once killed a worker with SIGSEGV in such a moment.)"""
    program = textwrap.dedent(
        """
        import os, signal, sys, threading, time
        from referee import stacks
        r, w = os.pipe()
        os.set_blocking(w, False)
        stacks.install(w, hung_signal=True)
        got = []
        threading.Thread(target=lambda: [got.append(os.read(r, 1 << 16)) for _ in iter(int, 1)],
                         daemon=True, name="reader").start()
        def down(n):
            return down(n - 1) if n else sum(range(50))
        def churn():
            while True:
                down(40)
        def spawn():
            while True:
                t = threading.Thread(target=down, args=(20,))
                t.start()
                t.join()
        for _ in range(2):
            threading.Thread(target=churn, daemon=True).start()
        threading.Thread(target=spawn, daemon=True).start()
        for _ in range(200):
            os.kill(os.getpid(), stacks.ASK_SIGNAL)
            time.sleep(0.001)
        deadline = time.monotonic() + 10
        while b"".join(got).count(b"Current thread ") < 200 and time.monotonic() < deadline:
            time.sleep(0.01)
        text = b"".join(got).decode()
        print(text.count("Current thread "), text.count("(reader)"), "Fatal" in text)
        """
    )
    assert run(program) == ["200", "200", "False"]


def test_install_answers_each_signal_as_its_case_needs() -> None:
    """ASK_SIGNAL gets the Python handler; the hung signal faulthandler's only when
    asked for (a one-process server has no supervisor to send it). In a process of its
    own: pytest keeps faulthandler for itself."""
    program = textwrap.dedent(
        """
        import faulthandler, os, signal
        from referee import stacks
        r, w = os.pipe()
        stacks.install(w, hung_signal=False)
        print(callable(signal.getsignal(stacks.ASK_SIGNAL)))
        print(faulthandler.unregister(stacks.HUNG_SIGNAL))
        stacks.install(w, hung_signal=True)
        print(faulthandler.unregister(stacks.HUNG_SIGNAL))
        """
    )
    assert run(program) == ["True", "False", "True"]


def run(program: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", program],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()
