"""docs/trust.md and docs/api.md "Seeds", written from the docs alone for the sealed
wire tests: the sealed-state token (format 3), the seed a game with seat entropy is
dealt from, and the seed the shuffles use. Nothing here comes from ``referee/`` but
the contract's generated messages: the tests open and make tokens with
``cryptography``'s AES-GCM, as a client holding the keys could, so a server that drifts
from the documented format fails them.
"""

from __future__ import annotations

import hashlib
import hmac
import os
from collections.abc import Mapping, Sequence

from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from referee.v1 import referee_pb2 as pb

FORMAT = b"RS\x03"  # "RS" ‖ version 3
SEED_LABEL = b"referee-game-seed-v1"
SEED_MESSAGE_LABEL = b"referee-game-seed-v2"


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def entropy_entries(entropy: Sequence[bytes]) -> bytes:
    """u32(n) ‖ (u32(len e) ‖ e)…: how both seed formulas take the seats' entropy."""
    return u32(len(entropy)) + b"".join(u32(len(e)) + e for e in entropy)


def derived_seed(key: bytes, entropy: Sequence[bytes], policy: int) -> bytes:
    """trust.md "A deal the caller cannot draw again": the referee's seed of a game
    with entropy, under the sealing key."""
    root = hmac.new(key, SEED_LABEL, hashlib.sha256).digest()
    message = SEED_MESSAGE_LABEL + bytes((policy,)) + entropy_entries(entropy)
    return hmac.new(root, message, hashlib.sha256).digest()


def shuffle_seed(seed: bytes, entropy: Sequence[bytes]) -> bytes:
    """api.md "Seeds": the seed the shuffles use. The plain seed without entropy; with it
    SHA-256("referee-seed-v1" ‖ u32(len seed) ‖ seed ‖ u32(n) ‖ (u32(len e) ‖ e)…)."""
    if not entropy:
        return seed
    body = b"referee-seed-v1" + u32(len(seed)) + seed + entropy_entries(entropy)
    return hashlib.sha256(body).digest()


EVERY_CARD = (1 << 52) - 1


def padded_length(state: bytes) -> int:
    """trust.md "Format (version 3)": the length of ``state`` with every hidden card set
    that is not empty (each seat's hand, and Écarté's discards) holding every card."""
    shape = pb.GameState.FromString(state)
    game = shape.WhichOneof("game")
    for seat in getattr(shape, game).seats:
        if seat.hand:
            seat.hand = EVERY_CARD
        if game == "ecarte" and seat.discards:
            seat.discards = EVERY_CARD
    return len(shape.SerializeToString(deterministic=True))


def open_token(
    token: bytes, keys: Mapping[str, bytes], policy: int, key_id: str
) -> tuple[bytes, bytes]:
    """trust.md "Format (version 3)": checks the header (version, the server's policy
    byte, sealed under ``key_id``) and the plaintext's frame (u32 length, the state,
    zeros only, as many as pad the state to its padded length), and returns the state and
    the nonce."""
    assert token[:3] == FORMAT, token[:3]
    assert token[3] == policy, f"policy byte {token[3]}, server policy {policy}"
    n = token[4]
    kid = token[5 : 5 + n].decode("ascii")
    assert kid == key_id, f"sealed under {kid!r}, not the first key {key_id!r}"
    header, nonce, sealed = token[: 5 + n], token[5 + n : 17 + n], token[17 + n :]
    plaintext = AESGCM(keys[kid]).decrypt(nonce, sealed, header)
    length = int.from_bytes(plaintext[:4], "big")
    assert set(plaintext[4 + length :]) <= {0}, "the padding is zeros"
    state = plaintext[4 : 4 + length]
    assert len(plaintext) == 4 + padded_length(state), "padded to the documented length"
    return state, nonce


def make_token(
    plain: bytes, keys: Mapping[str, bytes], policy: int, key_id: str, pad: int = 0
) -> bytes:
    """A token as the format says a server seals one (a fresh random nonce), the state
    followed by ``pad`` zeros."""
    kid = key_id.encode("ascii")
    header = FORMAT + bytes((policy, len(kid))) + kid
    nonce = os.urandom(12)
    plaintext = u32(len(plain)) + plain + bytes(pad)
    return header + nonce + AESGCM(keys[key_id]).encrypt(nonce, plaintext, header)
