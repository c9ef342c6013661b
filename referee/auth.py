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
"""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

AUTHORIZATION_KEY = "authorization"
MIN_TOKEN_LENGTH = 16
MAX_TOKEN_LENGTH = 4096
# Services reachable without a token unless configured otherwise (probes, tooling).
DEFAULT_EXEMPT = (
    "grpc.health.v1.Health",
    "grpc.reflection.v1alpha.ServerReflection",
    "grpc.reflection.v1.ServerReflection",
)
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


class TokenSet:
    """The accepted tokens (as digests) and the services that need none."""

    __slots__ = ("_entries", "exempt")

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
        self.exempt = tuple(exempt)

    @classmethod
    def load(
        cls,
        file: Path | None = None,
        variable: str = "",
        exempt: Sequence[str] = DEFAULT_EXEMPT,
        variable_name: str = "REFEREE_AUTH_TOKENS",
    ) -> TokenSet | None:
        """The tokens of a file and/or a variable; ``None`` when neither has any."""
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
        if not pairs:
            return None
        return cls(pairs, exempt)

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
        if presented is None:
            return None
        digest = _digest(presented)
        found: str | None = None
        for entry in self._entries:  # no early exit: constant time in the match position
            if hmac.compare_digest(entry.digest, digest):
                found = entry.name
        return found
