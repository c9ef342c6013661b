"""Bearer-token authentication: the tokens a server accepts, checked in constant time.

Tokens come from a file (``--auth-tokens-file``: one ``TOKEN``, ``NAME TOKEN`` or
``NAME TOKEN METHOD[,METHOD...]`` a line) and/or from ``REFEREE_AUTH_TOKENS``
(comma-separated ``TOKEN``, ``NAME=TOKEN`` or ``NAME=TOKEN METHOD[+METHOD...]``
entries). Clients send ``authorization: Bearer TOKEN``.

A token without methods may call every method; one with methods only those (its
*scope*): methods of ``referee.v1.RefereeService`` by their short name (``ViewState``)
or full name (``/referee.v1.RefereeService/ViewState``), whole services by name
(``referee.v1.RefereeService``), and ``@read`` for ``ListGames``, ``ViewState`` and
``LegalActions``: what a player's client needs (the platform alone applies actions:
docs/trust.md). A call with a valid token outside its scope is refused
``PERMISSION_DENIED`` (reason ``METHOD_NOT_ALLOWED``) by the interceptor, before its
request is read; exempt services need no token, whatever the scopes.

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
from typing import Final, TypeAlias, cast

from grpc_health.v1 import health_pb2
from grpc_reflection.v1alpha import reflection_pb2

from referee.logs import get_logger
from referee.v1 import referee_pb2

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

# What a token's scope may name: the methods of the services a server serves, by the
# full name gRPC gives a call (``/package.Service/Method``).
REFEREE_SERVICE: Final = referee_pb2.DESCRIPTOR.services_by_name["RefereeService"]
SERVICES: Final[dict[str, tuple[str, ...]]] = {
    service.full_name: tuple(f"/{service.full_name}/{m.name}" for m in service.methods)
    for service in (
        REFEREE_SERVICE,
        health_pb2.DESCRIPTOR.services_by_name["Health"],
        reflection_pb2.DESCRIPTOR.services_by_name["ServerReflection"],
    )
}
# Server reflection is also served as v1 (referee.server.enable_reflection): v1alpha's
# protocol under another package name.
SERVICES["grpc.reflection.v1.ServerReflection"] = (
    "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
)
# Groups of methods, by a name starting with "@" (names of tokens may hold an "@" but
# a scope is never a name, so no group can be mistaken for one).
READ_METHODS: Final = ("ListGames", "ViewState", "LegalActions")
GROUPS: Final[dict[str, tuple[str, ...]]] = {
    "@read": tuple(f"/{REFEREE_SERVICE.full_name}/{m}" for m in READ_METHODS),
}
_SHORT: Final = {m.name: f"/{REFEREE_SERVICE.full_name}/{m.name}" for m in REFEREE_SERVICE.methods}
_FULL: Final = frozenset(m for methods in SERVICES.values() for m in methods)
_SCOPE_SPLIT = re.compile(r"[,+\s]+")
# A name shown in an error: shorter than any token, or shaped like a method's full name
# (``/lower.case.package.Service/Method``): never a token written in the wrong place.
_SHOWABLE = re.compile(r"^/?[a-z][a-z0-9_]*(\.[a-z0-9_]+)+\.[A-Z][A-Za-z0-9_]*(/[A-Za-z0-9_]+)?$")


class TokenError(ValueError):
    """A token source that cannot be used (the message never contains a token)."""


Methods: TypeAlias = "frozenset[str] | None"
"""The methods a token may call (full names), or ``None``: every method."""

TokenSpec: TypeAlias = (
    "tuple[str, str] | tuple[str, str, Iterable[str] | None] "
    "| tuple[str, str, Iterable[str] | None, int]"
)
"""``(name, token)``, ``(name, token, methods)`` or ``(name, token, methods,
max_in_flight)``, as :class:`TokenSet` takes them."""

MAX_IN_FLIGHT_PREFIX: Final = "max-in-flight="
# The most calls in flight a token's limit may name (per worker): a limit, not a count.
MAX_IN_FLIGHT_LIMIT: Final = 1_000_000


@dataclass(frozen=True, slots=True)
class Grant:
    """An accepted token: its name (for log lines) and the methods it may call
    (``None``: every method)."""

    name: str
    digest: bytes
    methods: Methods = None
    # Calls of this token in flight at once on a worker (0: no limit of its own):
    # ``max-in-flight=N`` after the token (docs/operations.md#tls-and-tokens).
    max_in_flight: int = 0

    def __repr__(self) -> str:
        methods = "every method" if self.methods is None else sorted(self.methods)
        limit = f", max_in_flight={self.max_in_flight}" if self.max_in_flight else ""
        return f"Grant(name={self.name!r}, methods={methods!r}{limit})"


def resolve_methods(names: Iterable[str], where: str) -> frozenset[str]:
    """The full names of the methods ``names`` stand for: short names of
    ``referee.v1.RefereeService``'s methods, full names (with or without the leading
    ``/``), services and groups (``@read``). An unknown one is a :class:`TokenError`
    starting with ``where``."""
    methods: set[str] = set()
    for name in names:
        if name in _SHORT:
            methods.add(_SHORT[name])
        elif name in GROUPS:
            methods.update(GROUPS[name])
        elif name in SERVICES:
            methods.update(SERVICES[name])
        elif ("/" + name.lstrip("/")) in _FULL and name.count("/") <= 2:
            methods.add("/" + name.lstrip("/"))
        else:
            shown = (
                repr(name)
                if len(name) < MIN_TOKEN_LENGTH or _SHOWABLE.match(name)
                else (f"a name of {len(name)} characters (not shown: it may be a token)")
            )
            raise TokenError(
                f"{where}: unknown method {shown}: a method is one of "
                f"{', '.join(_SHORT)} (or its full name /{REFEREE_SERVICE.full_name}/NAME), "
                f"a group ({', '.join(GROUPS)}) or a service ({', '.join(SERVICES)})"
            )
    return frozenset(methods)


def _digest(token: bytes) -> bytes:
    return hashlib.sha256(token).digest()


def parse_tokens(
    text: str, source: str, *, separator: str = "\n"
) -> list[tuple[str, str, Methods, int]]:
    """``(name, token, methods, max_in_flight)`` from a file (lines) or a variable
    (comma-separated); ``methods`` is ``None`` for a token that may call every method,
    ``max_in_flight`` 0 for a token with no limit of its own.

    An entry is ``TOKEN``, ``NAME TOKEN`` or ``NAME TOKEN METHODS`` (and in a
    variable, where spaces are awkward, ``NAME=TOKEN``, or ``NAME=TOKEN METHODS``),
    ``METHODS`` being names separated by commas (in a file), ``+`` or spaces; blank
    entries and ``#`` comments are skipped. Among them, ``max-in-flight=N`` limits the
    token's calls in flight on a worker. A token never holds a space, so whatever
    follows it is its scope: today's entries keep their meaning."""
    found: list[tuple[str, str, Methods, int]] = []
    for number, raw in enumerate(text.split(separator), start=1):
        entry = raw.strip()
        if not entry or entry.startswith("#"):
            continue
        where = f"{source} entry {number}" if separator != "\n" else f"{source} line {number}"
        parts = entry.split()
        if separator != "\n" and "=" in parts[0]:
            # NAME=TOKEN (a name never holds "="; a variable's bare token may not either).
            name, _, token = parts[0].partition("=")
            parts[:1] = [name, token]
        scope: list[str] = []
        if len(parts) == 1:
            name, token = "", parts[0]
        else:
            name, token, scope = parts[0], parts[1], parts[2:]
            if not _NAME_RE.match(name):
                raise TokenError(f"{where}: the name must be 1-64 letters, digits or _.@:/-")
        if not _TOKEN_RE.match(token):
            raise TokenError(f"{where}: a token must be visible ASCII characters only")
        if not MIN_TOKEN_LENGTH <= len(token) <= MAX_TOKEN_LENGTH:
            raise TokenError(
                f"{where}: a token must be {MIN_TOKEN_LENGTH} to {MAX_TOKEN_LENGTH} characters "
                f"(use e.g. `openssl rand -hex 32`)"
            )
        methods: Methods = None
        limit = 0
        if scope:
            names = [n for n in _SCOPE_SPLIT.split(" ".join(scope)) if n]
            limits = [n for n in names if n.startswith(MAX_IN_FLIGHT_PREFIX)]
            names = [n for n in names if not n.startswith(MAX_IN_FLIGHT_PREFIX)]
            if len(limits) > 1:
                raise TokenError(f"{where}: max-in-flight given twice")
            if limits:
                limit = _max_in_flight(limits[0][len(MAX_IN_FLIGHT_PREFIX) :], where)
            if not names and not limits:
                raise TokenError(f"{where}: no method named after the token")
            if names:
                methods = resolve_methods(names, where)
        found.append((name, token, methods, limit))
    return found


def _max_in_flight(text: str, where: str) -> int:
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_IN_FLIGHT_LIMIT:
        shown = repr(text) if len(text) < MIN_TOKEN_LENGTH else "a value"
        raise TokenError(
            f"{where}: max-in-flight={shown}: a whole number of calls, 1 to {MAX_IN_FLIGHT_LIMIT}"
        )
    return int(text)


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


def file_stamp(file: Path) -> object:
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

    def __init__(self, tokens: Iterable[TokenSpec], exempt: Sequence[str] = DEFAULT_EXEMPT) -> None:
        """``tokens``: ``(name, token)`` (every method), ``(name, token, methods)``,
        ``methods`` as :func:`resolve_methods` takes them (``None``: every method), or
        ``(name, token, methods, max_in_flight)`` (0: no limit of its own). The same
        token twice keeps the first's name; with other methods or another limit it is an
        error."""
        entries: list[Grant] = []
        seen: dict[bytes, Grant] = {}
        for i, (name, token, *rest) in enumerate(tokens, start=1):
            name = name or f"token-{i}"
            names = cast("Iterable[str] | None", rest[0] if rest else None)
            methods = None if names is None else resolve_methods(names, f"token {name}")
            limit = cast(int, rest[1]) if len(rest) > 1 else 0
            if not 0 <= limit <= MAX_IN_FLIGHT_LIMIT:
                raise TokenError(f"token {name}: max-in-flight 0 to {MAX_IN_FLIGHT_LIMIT}")
            digest = _digest(token.encode("ascii"))
            if digest in seen:
                first = seen[digest]
                if first.methods != methods or first.max_in_flight != limit:
                    other = "methods" if first.methods != methods else "max-in-flight"
                    raise TokenError(
                        f"token {name}: the same token as {first.name}, with other "
                        f"{other} (list a token once)"
                    )
                continue
            seen[digest] = grant = Grant(name, digest, methods, limit)
            entries.append(grant)
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
        stamp = file_stamp(file) if file is not None else None
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
            stamp = file_stamp(reload.file)
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
                    serving=_last_good(len(self._entries)),
                )
                return
            self._entries = entries
            log.info(
                "auth_tokens_reloaded",
                file=str(reload.file),
                tokens=len(entries),
                limited=_limited(entries),
            )
        finally:
            reload.lock.release()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def limited(self) -> int:
        """How many of the tokens may call only some methods."""
        return _limited(self._entries)

    def describe(self) -> str:
        """``N tokens``, how many are limited to some methods, and how many have a
        max-in-flight of their own (the start-up line, ``--check-config``)."""
        limited = self.limited
        n = len(self)
        capped = sum(1 for e in self._entries if e.max_in_flight)
        return (
            f"{n} token{'' if n == 1 else 's'}"
            + (f", {limited} limited" if limited else "")
            + (f", {capped} with max-in-flight" if capped else "")
        )

    def __repr__(self) -> str:
        return f"TokenSet({self.describe()}, exempt={list(self.exempt)!r})"

    def is_exempt(self, method: str) -> bool:
        """``method`` is ``/package.Service/Method``; exempt entries name a service or a method."""
        service = method[1:].split("/", 1)[0]
        return any(e in (service, method, method[1:]) for e in self.exempt)

    def check(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> str | None:
        """The name of the token presented in ``authorization: Bearer ...``, or None."""
        grant = self.grant(metadata)
        return grant.name if grant is not None else None

    def grant(self, metadata: Sequence[tuple[str, str | bytes]] | None) -> Grant | None:
        """The token presented in ``authorization: Bearer ...`` (its name and the
        methods it may call), or None."""
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
        found: Grant | None = None
        for entry in self._entries:  # no early exit: constant time in the match position
            if hmac.compare_digest(entry.digest, digest):
                found = entry
        return found


def _limited(entries: Iterable[Grant]) -> int:
    return sum(1 for e in entries if e.methods is not None)


def _pairs(file: Path | None, variable: str, variable_name: str) -> list[TokenSpec]:
    pairs: list[TokenSpec] = []
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


def _last_good(count: int) -> str:
    """What a refused reload leaves serving, for its log line."""
    return "the last good token" if count == 1 else f"the last good {count} tokens"
