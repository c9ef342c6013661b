"""The sealing keys follow their file (``--seal-keys-file``), as the tokens file and
the TLS files do: each step of a key rotation (docs/trust.md) takes effect without a
restart.

A thread of each worker looks at the file every ``RELOAD_SECONDS``. When it has
changed, the keys are read and checked as at start-up; good ones replace the keys of
the worker's referee at once (the next call seals with the new first key and opens
with every key listed), and the worker logs ``seal_keys_reloaded`` with the key ids
(never key material) and counts itself under its keys in
``referee_seal_keys_workers``. A file that cannot be used (unreadable, no key, a key
of the wrong length, an id twice) is refused, logged once as
``seal_keys_reload_refused``, and the last good keys keep serving. Keys given in
``REFEREE_SEAL_KEYS`` are read at start-up only.

A worker reads the file again as it starts, not only when it changes later: the keys
in its settings were read when ``referee serve`` started, and a worker restarted
after a rotation (one that died, its supervisor forking a new one with the settings
of the start) must serve the file's keys of now, not those of the start.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from referee.auth import RELOAD_SECONDS, file_stamp
from referee.logs import get_logger
from referee.sealing import KeyConfigError, Keyring, parse_keys

if TYPE_CHECKING:
    from referee.metrics import Metrics
    from referee.service import Referee

READ_LIMIT: Final = 1 << 20  # a keys file is a few lines; more is not one


def read_key_file(path: Path) -> list[tuple[str, bytes]]:
    """The ``(id, key)`` entries of a keys file (``referee serve`` at start-up, and each
    worker as the file changes); KeyConfigError when it cannot be read or parsed."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read(READ_LIMIT + 1)
    except (OSError, UnicodeDecodeError) as e:
        raise KeyConfigError(getattr(e, "strerror", None) or type(e).__name__) from None
    if len(text) > READ_LIMIT:
        raise KeyConfigError("larger than 1 MiB: not a keys file")
    return parse_keys(text)


def read_keys(path: Path, write_format: int) -> Keyring:
    """The keys of ``path`` as a keyring (checked as at start-up); KeyConfigError when
    it cannot be used."""
    return Keyring(read_key_file(path), write_format=write_format)


def describe(ring: Keyring) -> dict[str, Any]:
    """What a log line and the metric say of a keyring: ids, never material."""
    return {"sealing": ring.sealing_key_id, "keys": list(ring.key_ids)}


class KeyWatch:
    """Follows one keys file for one worker's referee."""

    def __init__(
        self,
        path: Path,
        referee: Referee,
        metrics: Metrics | None = None,
        interval: float = RELOAD_SECONDS,
    ) -> None:
        self.path = path
        self.referee = referee
        self.metrics = metrics
        self.interval = interval
        self._stamp: object = ("not read",)  # no file's stamp: the first check reads it
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        ring = referee.keyring
        assert ring is not None
        self._write_format = ring.write_format
        # The file as it is now: the keys given were read when the server started (a
        # worker restarted after a rotation was given those of before it).
        self.check()

    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="referee-seal-keys", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                self.check()
            except Exception as e:  # the thread must go on looking (a bug, not the file's)
                get_logger("referee.sealing").error(
                    "seal_keys_check_failed", file=str(self.path), error=type(e).__name__
                )

    def check(self) -> bool:
        """Read the file again if it changed; whether new keys now serve."""
        with self._lock:
            stamp = file_stamp(self.path)
            if stamp == self._stamp:
                return False
            self._stamp = stamp
            current = self.referee.keyring
            assert current is not None
            log = get_logger("referee.sealing")  # as configured now (a reload is rare)
            try:
                ring = read_keys(self.path, self._write_format)
            except KeyConfigError as e:
                log.warning(
                    "seal_keys_reload_refused",
                    file=str(self.path),
                    error=str(e),
                    serving=describe(current),
                )
                return False
            if ring.key_ids == current.key_ids and all(
                new.credential_root == old.credential_root
                for new, old in zip(ring.keys, current.keys, strict=True)
            ):
                return False  # rewritten as it was
            self.referee.keyring = ring.with_policy(current.strict)
            if self.metrics is not None:
                self.metrics.seal_keys(ring.sealing_key_id, ring.key_ids)
            log.info("seal_keys_reloaded", file=str(self.path), **describe(ring))
            return True
