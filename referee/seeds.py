"""Seeds, seat entropy and the seed commitment (SHUF-5; docs/trust.md).

The referee's seed is 32 bytes, given by the caller or drawn from the
operating system's secure random source. Seats may add entropy at NewGame so
that no single party chooses the deal. The *effective seed* that every
shuffle uses is:

- the referee's seed itself when no seat gave entropy (so the SHUF vectors
  apply directly), else
- ``SHA-256( b"referee-seed-v1" || u32be(len(seed)) || seed ||
  u32be(n) || for each of the n entropies: u32be(len(e)) || e )``

where ``n`` is the number of entropy entries (in seat order; an empty entry
means that seat gave none). The commitment shown in every view is
``SHA-256(seed)`` of the referee's seed; the seed itself is shown once the
match or session is over.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence

SEED_BYTES = 32
MAX_ENTROPY_BYTES = 64
MIX_PREFIX = b"referee-seed-v1"


def random_seed() -> bytes:
    return secrets.token_bytes(SEED_BYTES)


def commitment(seed: bytes) -> bytes:
    return hashlib.sha256(seed).digest()


def effective_seed(seed: bytes, entropy: Sequence[bytes]) -> bytes:
    if not entropy:
        return seed
    h = hashlib.sha256(MIX_PREFIX)
    h.update(len(seed).to_bytes(4, "big"))
    h.update(seed)
    h.update(len(entropy).to_bytes(4, "big"))
    for e in entropy:
        h.update(len(e).to_bytes(4, "big"))
        h.update(e)
    return h.digest()
