"""Sealed state tokens: authenticated encryption of game states (docs/trust.md).

A token is ``b"RS" || version (1 byte, 3) || policy (1 byte) || len(key id) (1 byte) ||
key id || nonce (12 bytes) || AES-256-GCM(key, nonce, plaintext, aad=header)`` where the
header is everything before the nonce and the plaintext is ``len(state)`` (4 bytes, big
endian) || ``state`` || zero bytes: ``state`` is the deterministic serialization of a
``referee.v1.GameState``, and the zeros pad it to the length it would have with its
hidden cards at their widest (the codec's ``widen_hidden``), so that a token's length
depends on public information only (format 2 had no length and no padding: its length
told the highest hidden card of each hand; still read, written only with --seal-format
2, for a rolling upgrade). The policy byte
records whether the server that sealed it required sealed states (``--require-sealed``:
1, else 0); a server opens only tokens of its own policy, so that a server without
``--require-sealed`` holding the same keys cannot open (and show every hand of) a
game of a strict server, nor a strict server take up a game whose creator chose its
seed. The first key of a keyring seals; every key opens (rotation without downtime).
Key material never leaves this module: errors and logs name key ids only.
"""

from __future__ import annotations

import base64
import binascii
import copy
import hashlib
import hmac
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

MAGIC = b"RS"
FORMAT_VERSION = 3  # the format written; 3: padded plaintext
# Formats read: 2 (unpadded, from servers before format 3, so that games under way go on
# across an upgrade); 1, before the policy byte, is refused (its policy is unknown).
READ_FORMATS = (2, 3)
LENGTH_BYTES = 4
LENIENT, STRICT = 0, 1  # the policy byte
KEY_BYTES = 32
NONCE_BYTES = 12
TAG_BYTES = 16
MAX_KEY_ID = 32
_KEY_ID = re.compile(r"^[A-Za-z0-9._-]{1,32}$")

# ErrorInfo reasons (stable).
SEAL_MALFORMED = "STATE_SEAL_MALFORMED"
SEAL_VERSION = "STATE_SEAL_VERSION_UNSUPPORTED"
SEAL_UNKNOWN_KEY = "STATE_SEAL_UNKNOWN_KEY"
SEAL_INVALID = "STATE_SEAL_INVALID"
SEAL_POLICY = "STATE_SEAL_POLICY_MISMATCH"
# Every reason a sealed token is refused for (referee_sealed_token_refusals_total{reason}).
SEAL_REASONS = (SEAL_MALFORMED, SEAL_VERSION, SEAL_UNKNOWN_KEY, SEAL_INVALID, SEAL_POLICY)


class SealError(Exception):
    """A token that cannot be opened; ``reason`` is an ErrorInfo reason."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message


class KeyConfigError(ValueError):
    """An unusable key configuration (start-up error)."""


TABLE_SEAT = 0xFFFFFFFF
CREDENTIAL_BYTES = 16


GAME_SEED_LABEL = b"referee-game-seed-v1"  # the seed root's (HMAC of the key)
# The seed's: v2 binds the policy byte (a server without --require-sealed holding the same
# key deals other games from the same entropy, whose credentials open nothing of a strict
# server's games); v1 (before 2026-12-06) bound the entropy only.
GAME_SEED_MESSAGE_LABEL = b"referee-game-seed-v2"


@dataclass(frozen=True, slots=True)
class Key:
    id: str
    aead: AESGCM
    credential_root: bytes
    seed_root: bytes

    def __repr__(self) -> str:  # never show key material
        return f"Key(id={self.id!r})"


class Keyring:
    """Sealing keys: ``keys[0]`` seals, all open; ``strict``: the policy of the server
    (``--require-sealed``) its tokens record, and the only one it opens;
    ``write_format``: the token format it writes (``--seal-format``: 2 only for the first
    step of a rolling upgrade from a release that reads format 2 only; it reads both)."""

    def __init__(
        self,
        keys: Iterable[tuple[str, bytes]],
        *,
        strict: bool = False,
        write_format: int = FORMAT_VERSION,
    ) -> None:
        if write_format not in READ_FORMATS:
            raise KeyConfigError(f"token format {write_format}: one of {READ_FORMATS}")
        parsed: list[Key] = []
        seen: set[str] = set()
        for number, (key_id, material) in enumerate(keys, start=1):
            if not _KEY_ID.match(key_id):
                # Not shown: a key written the wrong way round (base64:id) has its
                # material where its id should be.
                raise KeyConfigError(
                    f"key {number}: its id is not 1 to {MAX_KEY_ID} characters of "
                    "A-Z a-z 0-9 . _ - (each key is written id:base64)"
                )
            if key_id in seen:
                raise KeyConfigError(f"key id {key_id!r} appears twice")
            if len(material) != KEY_BYTES:
                raise KeyConfigError(f"key {key_id!r} must be {KEY_BYTES} bytes (AES-256)")
            seen.add(key_id)
            root = hmac.new(material, b"referee-seat-credential-v1", hashlib.sha256).digest()
            seed_root = hmac.new(material, GAME_SEED_LABEL, hashlib.sha256).digest()
            parsed.append(Key(key_id, AESGCM(material), root, seed_root))
        if not parsed:
            raise KeyConfigError("no sealing key given")
        self.keys = tuple(parsed)
        self.strict = strict
        self._by_id: Mapping[bytes, Key] = {k.id.encode(): k for k in parsed}
        self._sealing = parsed[0]
        kid = parsed[0].id.encode()
        self._policy = STRICT if strict else LENIENT
        self.write_format = write_format
        self._header = MAGIC + bytes((write_format, self._policy, len(kid))) + kid

    def with_policy(self, strict: bool) -> Keyring:
        """The same keys under the policy ``strict``."""
        if strict == self.strict:
            return self
        ring = copy.copy(self)
        ring.strict = strict
        ring._policy = STRICT if strict else LENIENT
        kid = self._sealing.id.encode()
        ring._header = MAGIC + bytes((ring.write_format, ring._policy, len(kid))) + kid
        return ring

    @property
    def key_ids(self) -> tuple[str, ...]:
        return tuple(k.id for k in self.keys)

    @property
    def sealing_key_id(self) -> str:
        return self._sealing.id

    def game_seed(self, entropy: Sequence[bytes]) -> bytes:
        """The referee's seed of a new game whose seats gave ``entropy``, derived with a
        secret of the sealing key instead of drawn at random (docs/trust.md, Verifiable
        deals): nobody without the key can foresee it, and the same entropy gives the
        same seed, so whoever calls NewGame cannot draw the deal again."""
        mac = hmac.new(self._sealing.seed_root, GAME_SEED_MESSAGE_LABEL, hashlib.sha256)
        mac.update(bytes((self._policy,)))
        mac.update(len(entropy).to_bytes(4, "big"))
        for e in entropy:
            mac.update(len(e).to_bytes(4, "big"))
            mac.update(e)
        return mac.digest()

    def seal(self, state: bytes, padded_length: int | None = None) -> bytes:
        """A token of ``state`` (a serialized GameState), padded with zeros to
        ``padded_length`` bytes (at least ``len(state)``; the codec's ``widen_hidden``
        length, so that the token's length tells nothing of hidden cards)."""
        pad = 0 if padded_length is None else padded_length - len(state)
        if pad < 0:
            raise ValueError("padded_length is shorter than the state")
        if self.write_format == 2:  # the state alone, unpadded (--seal-format 2)
            plaintext = state
        else:
            plaintext = len(state).to_bytes(LENGTH_BYTES, "big") + state + bytes(pad)
        nonce = os.urandom(NONCE_BYTES)
        header = self._header
        return header + nonce + self._sealing.aead.encrypt(nonce, plaintext, header)

    def open(self, token: bytes) -> bytes:
        """The plaintext of a token; :class:`SealError` for anything but an intact token."""
        if len(token) < 5 or token[:2] != MAGIC:
            raise SealError(SEAL_MALFORMED, "sealed_state is not a Referee state token")
        if token[2] not in READ_FORMATS:
            raise SealError(
                SEAL_VERSION,
                f"sealed_state has token format {token[2]}; this server reads formats "
                + " and ".join(map(str, READ_FORMATS)),
            )
        policy, kid_len = token[3], token[4]
        header_len = 5 + kid_len
        if (
            policy not in (LENIENT, STRICT)
            or not 1 <= kid_len <= MAX_KEY_ID
            or len(token) < header_len + NONCE_BYTES + TAG_BYTES
        ):
            raise SealError(SEAL_MALFORMED, "sealed_state is truncated or malformed")
        kid = token[5:header_len]
        key = self._by_id.get(kid)
        if key is None:
            text = kid.decode("ascii", "replace")
            shown = repr(text) if _KEY_ID.match(text) else "that is not a key id"
            raise SealError(
                SEAL_UNKNOWN_KEY,
                f"sealed_state was sealed with a key {shown}, which this server does not hold",
            )
        if policy != self._policy:
            # Checked after the key: a token of another key says so first. The policy
            # byte is authenticated (associated data), but refusing needs no decryption.
            raise SealError(SEAL_POLICY, _POLICY_MISMATCH[self._policy])
        nonce = token[header_len : header_len + NONCE_BYTES]
        try:
            plaintext = key.aead.decrypt(
                nonce, token[header_len + NONCE_BYTES :], token[:header_len]
            )
        except InvalidTag:
            raise SealError(
                SEAL_INVALID, "sealed_state does not verify: it was altered or corrupted"
            ) from None
        if token[2] == 2:
            return plaintext
        # Authenticated, so made by a holder of the key: a frame that does not add up is
        # refused all the same, never guessed at.
        length = int.from_bytes(plaintext[:LENGTH_BYTES], "big")
        end = LENGTH_BYTES + length
        if len(plaintext) < end or plaintext[end:].count(0) != len(plaintext) - end:
            raise SealError(SEAL_INVALID, "sealed_state does not hold a state")
        return plaintext[LENGTH_BYTES:end]


_POLICY_MISMATCH = {
    STRICT: "sealed_state was made by a server without --require-sealed (a game whose "
    "creator may have chosen its seed); this server requires sealed states and takes "
    "up only games made under that policy",
    LENIENT: "sealed_state was made by a server with --require-sealed; this server does "
    "not require sealed states nor check seat credentials, so it does not open it "
    "(give strict and lenient servers different keys)",
}


def _credential(root: bytes, commitment: bytes, seat: int) -> bytes:
    mac = hmac.new(root, commitment + seat.to_bytes(4, "big"), hashlib.sha256)
    return mac.digest()[:CREDENTIAL_BYTES]


def credential(keyring: Keyring, commitment: bytes, seat: int) -> bytes:
    """The credential of ``seat`` (``TABLE_SEAT`` for the table) in the game whose seed
    commitment is ``commitment``, made with the sealing key."""
    return _credential(keyring.keys[0].credential_root, commitment, seat)


def check_credential(keyring: Keyring, commitment: bytes, seat: int, given: bytes) -> bool:
    """Whether ``given`` is the credential of ``seat`` under any key of the keyring."""
    if len(given) != CREDENTIAL_BYTES:
        return False
    return any(
        hmac.compare_digest(_credential(k.credential_root, commitment, seat), given)
        for k in keyring.keys
    )


def parse_keys(text: str) -> list[tuple[str, bytes]]:
    """Keys from ``id:base64`` entries separated by commas or new lines (``#`` comments)."""
    keys: list[tuple[str, bytes]] = []
    for raw in re.split(r"[,\n]", text):
        entry = raw.split("#", 1)[0].strip()
        if not entry:
            continue
        if ":" not in entry:
            raise KeyConfigError("each key is written id:base64")
        key_id, encoded = entry.split(":", 1)
        key_id = key_id.strip()
        try:
            material = base64.b64decode(encoded.strip(), validate=True)
        except (binascii.Error, ValueError):
            # The id named only when it is one (never what may be key material).
            which = repr(key_id) if _KEY_ID.match(key_id) else str(len(keys) + 1)
            raise KeyConfigError(
                f"key {which} is not valid base64 (each key is written id:base64)"
            ) from None
        keys.append((key_id, material))
    return keys


def new_key_line(key_id: str) -> str:
    """A fresh random key in the ``id:base64`` form (``referee seal-key``)."""
    if not _KEY_ID.match(key_id):
        raise KeyConfigError(f"key id: 1 to {MAX_KEY_ID} characters of A-Z a-z 0-9 . _ -")
    return f"{key_id}:{base64.b64encode(AESGCM.generate_key(256)).decode()}"
