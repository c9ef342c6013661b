"""Bearer-token authentication: the tokens a server accepts, checked in constant time.

Tokens come from a file (``--auth-tokens-file``: one ``TOKEN`` or ``NAME TOKEN``
a line) and/or from ``REFEREE_AUTH_TOKENS`` (comma-separated ``TOKEN`` or
``NAME=TOKEN`` entries). Clients send ``authorization: Bearer TOKEN``.

Only SHA-256 digests of the tokens are kept after loading; the presented token
is hashed and compared with every configured digest using
:func:`hmac.compare_digest`, with no early exit, so neither the length nor the
position of a match leaks through timing. Token values are never logged, and
the objects here never show them in ``repr``; a token's name (default
``token-N``) is what a log line may carry.

The file is looked at again every few seconds (``RELOAD_SECONDS``, on a call that
needs a token): when it has changed, its tokens replace the file's earlier ones
(the variable's stay), so tokens rotate without a restart. A file that cannot be
used then is refused (logged once) and the last good tokens stay valid.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from referee.logs import get_logger

AUTHORIZATION_KEY = "authorization"
MIN_TOKEN_LENGTH = 16
MAX_TOKEN_LENGTH = 4096
# Services reachable without a token unless configured otherwise (probes, tooling).
DEFAULT_EXEMPT = (
    "grpc.health.v1.Health",
    "grpc.reflection.v1alpha.ServerReflection",
    "grpc.reflection.v1.ServerReflection",
)
# How often a server looks at its tokens file for changes (a stat, on a call that needs
# a token).
RELOAD_SECONDS: Final = 5.0
_TOKEN_RE = re.compile(r"^[\x21-\x7e]+$")  # visible ASCII: valid in an HTTP/2 header
_NAME_RE = re.compile(r"^[A-Za-z0-9_.@:/-]{1,64}$")


class TokenError(ValueError):
    """A token source that cannot be used (the message never contains a token)."""


@dataclass(frozen=True, slots=True)
class _Entry:
    name: str
    digest: bytes

    def __repr__(self) -> str:
        return f"_Entry(name={self.name!r})"


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


def parse_tokens(text: str, source: str, *, separator: str = "\n") -> list[tuple[str, str]]:
    """``(name, token)`` pairs from a file (lines) or a variable (comma-separated).

    An entry is ``TOKEN`` or ``NAME TOKEN`` (or ``NAME=TOKEN`` in a variable,
    where spaces are awkward); blank entries and ``#`` comments are skipped."""
    pairs: list[tuple[str, str]] = []
    for number, raw in enumerate(text.split(separator), start=1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        where = f"{source} entry {number}" if separator != "\n" else f"{source} line {number}"
        parts = entry.split()
        if len(parts) == 1 and separator != "\n" and "=" in entry:
            name, _, token = entry.partition("=")
            parts = [name, token]
        if len(parts) == 1:
            name, token = "", parts[0]
        elif len(parts) == 2:
            name, token = parts
            if not _NAME_RE.match(name):
                raise TokenError(f"{where}: the name must be 1-64 letters, digits or _.@:/-")
        else:
            raise TokenError(f"{where}: expected TOKEN or NAME TOKEN")
        if not _TOKEN_RE.match(token):
            raise TokenError(f"{where}: a token must be visible ASCII characters only")
        if not MIN_TOKEN_LENGTH <= len(token) <= MAX_TOKEN_LENGTH:
            raise TokenError(
                f"{where}: a token must be {MIN_TOKEN_LENGTH} to {MAX_TOKEN_LENGTH} characters "
                f"(use e.g. `openssl rand -hex 32`)"
            )
        pairs.append((name, token))
    return pairs


class _Reload:
    """Where a :class:`TokenSet`'s tokens came from, to read them again."""

    __slots__ = ("due", "file", "interval", "lock", "stamp", "variable", "variable_name")

    def __init__(
        self, file: Path, variable: str, variable_name: str, interval: float, stamp: object
    ) -> None:
        self.file = file
        self.variable = variable
        self.variable_name = variable_name
        self.interval = interval
        self.stamp = stamp  # the file's identity, times and size when last read
        self.due = time.monotonic() + interval
        self.lock = threading.Lock()


def _stamp(file: Path) -> object:
    """What changes when a file is rewritten or replaced (a Secret volume swaps a
    symlink; an editor renames a new file over the old)."""
    try:
        st = os.stat(file)
    except OSError as e:
        return ("unreadable", e.errno)
    return (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_size, st.st_ctime_ns)


class TokenSet:
    """The accepted tokens (as digests) and the services that need none; loaded from a
    file (:meth:`load`), they follow the file."""

    __slots__ = ("_entries", "_reload", "exempt")

    def __init__(
        self, tokens: Iterable[tuple[str, str]], exempt: Sequence[str] = DEFAULT_EXEMPT
    ) -> None:
        entries: list[_Entry] = []
        seen: set[bytes] = set()
        for i, (name, token) in enumerate(tokens, start=1):
            digest = _digest(token.encode("ascii"))
            if digest in seen:
                continue
            seen.add(digest)
            entries.append(_Entry(name or f"token-{i}", digest))
        if not entries:
            raise TokenError("no tokens configured")
        self._entries = tuple(entries)
        self._reload: _Reload | None = None
        self.exempt = tuple(exempt)

    @classmethod
    def load(
        cls,
        file: Path | None = None,
        variable: str = "",
        exempt: Sequence[str] = DEFAULT_EXEMPT,
        variable_name: str = "REFEREE_AUTH_TOKENS",
        *,
        reload_seconds: float | None = RELOAD_SECONDS,
    ) -> TokenSet | None:
        """The tokens of a file and/or a variable; ``None`` when neither has any. The
        file is read again when it changes, looked at every ``reload_seconds`` at most
        (``None``: never)."""
        stamp = _stamp(file) if file is not None else None
        pairs = _pairs(file, variable, variable_name)
        if not pairs:
            return None
        tokens = cls(pairs, exempt)
        if file is not None and reload_seconds is not None:
            tokens._reload = _Reload(file, variable, variable_name, reload_seconds, stamp)
        return tokens

    def _refresh(self, reload: _Reload) -> None:
        """Read the file again if it has changed (one thread at a time; the others go on
        with the current tokens)."""
        if not reload.lock.acquire(blocking=False):
            return
        try:
            reload.due = time.monotonic() + reload.interval
            stamp = _stamp(reload.file)
            if stamp == reload.stamp:
                return
            reload.stamp = stamp
            log = get_logger("referee.auth")
            try:
                pairs = _pairs(reload.file, reload.variable, reload.variable_name)
                entries = TokenSet(pairs, self.exempt)._entries
            except TokenError as e:
                log.warning(
                    "auth_tokens_reload_refused",
                    error=str(e),
                    serving=f"the last good {len(self._entries)} tokens",
                )
                return
            self._entries = entries
            log.info("auth_tokens_reloaded", file=str(reload.file), tokens=len(entries))
        finally:
            reload.lock.release()

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return f"TokenSet({len(self._entries)} tokens, exempt={list(self.exempt)!r})"

    def is_exempt(self, method: str) -> bool:
        """``method`` is ``/package.Service/Method``; exempt entries name a service or a method."""
        service = method[1:].split("/", 1)[0]
        return any(e in (service, method, method[1:]) for e in self.exempt)

    def check(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
        """The name of the token presented in ``authorization: Bearer ...``, or None."""
        presented: bytes | None = None
        for key, value in metadata or ():
            if key == AUTHORIZATION_KEY:
                raw = value.encode("latin-1", "replace") if isinstance(value, str) else value
                scheme, _, token = raw.partition(b" ")
                if scheme.lower() == b"bearer" and token:
                    presented = token.strip()
                break
        reload = self._reload
        if reload is not None and time.monotonic() >= reload.due:
            self._refresh(reload)
        if presented is None:
            return None
        digest = _digest(presented)
        found: str | None = None
        for entry in self._entries:  # no early exit: constant time in the match position
            if hmac.compare_digest(entry.digest, digest):
                found = entry.name
        return found


def _pairs(file: Path | None, variable: str, variable_name: str) -> list[tuple[str, str]]:
    pairs: list[tuple[str, str]] = []
    if file is not None:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            reason = getattr(e, "strerror", None) or e
            raise TokenError(f"cannot read {file}: {reason}") from None
        found = parse_tokens(text, str(file))
        if not found:
            raise TokenError(f"{file} holds no token")
        pairs += found
    if variable.strip():
        pairs += parse_tokens(variable, variable_name, separator=",")
    return pairs
