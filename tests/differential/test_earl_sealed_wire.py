"""Differential test of the protobuf edge of a sealing server: ``test_earl_wire`` sealed.

The random Earl of Coventry sessions of ``test_earl_wire`` (its configurations, action
choosers, decoders and checks, imported) played on a :class:`referee.service.Referee`
with sealing keys, most with ``require_sealed`` and some without. The client side holds
only what a real one holds: the ``sealed_state`` token of each answer, the seat
credentials of ``NewGame`` on every seat viewer and seat actor, the table credential on
the table's actions. The test reads each token itself, from docs/trust.md's format only
(``"RS" ‖ 0x03 ‖ policy ‖ len(key id) ‖ key id ‖ nonce ‖ AES-256-GCM``, the header as
associated data; ``cryptography``'s AESGCM, not ``referee/sealing.py``) and compares the
state inside with the model as the plain wire test does. It also checks, from
docs/trust.md and docs/api.md:

- answers carry no plain ``state``; every token opens, is sealed under the first key with
  the server's policy byte and a fresh nonce, holds the deterministic serialization of a
  state whose SHA-256 is ``state_hash``; a rejected action hands back the token sent;
- the seed: derived from the seats' entropy with the key (docs/trust.md's HMAC formula,
  computed here) when the seats give entropy and the caller no seed, so ``NewGame`` is
  idempotent; the caller's seed on a lenient server; else drawn (read from the first
  token); the model deals from the effective seed (``referee-seed-v1`` formula);
- ``NewGame`` returns a 16-byte credential per seat and one for the table;
- with ``require_sealed``: a seat viewer or seat actor without its credential or with
  another's, and a table action without the table credential, are ``PERMISSION_DENIED``
  ``SEAT_CREDENTIAL_INVALID``; public and spectator views need none; ``LegalActions``
  without an actor is ``ACTOR_REQUIRED``; a plain state is ``STATE_SEAL_REQUIRED``; a
  ``NewGame`` seed is ``CLIENT_SEED_REFUSED``;
- without it: seat views need no credential, plain states are accepted;
- both: a token sealed here by the documented format (under either key) is accepted, one
  of the other policy is refused ``STATE_SEAL_POLICY_MISMATCH``; ``Replay`` answers with a
  plain final state and no token.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

import grpc
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.sealing import Keyring
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb
from tests.differential import earl_model as m
from tests.differential import test_earl_differential as d
from tests.differential import test_earl_wire as w
from tests.differential import trust_format as trust

STRICT_KEYS = [("strict-2026a", bytes(range(1, 33))), ("strict-2025b", bytes(range(33, 65)))]
LENIENT_KEYS = [("lenient.k", bytes(range(65, 97)))]
KEYS = dict(STRICT_KEYS + LENIENT_KEYS)
STRICT = Referee(all_codecs(), keyring=Keyring(STRICT_KEYS), require_sealed=True)
LENIENT = Referee(all_codecs(), keyring=Keyring(LENIENT_KEYS), require_sealed=False)
# The other policy under the same keys: each must refuse the other's tokens.
OTHER_POLICY = {
    True: Referee(all_codecs(), keyring=Keyring(STRICT_KEYS), require_sealed=False),
    False: Referee(all_codecs(), keyring=Keyring(LENIENT_KEYS), require_sealed=True),
}
MAX_STEPS = 100
DENIED = (grpc.StatusCode.PERMISSION_DENIED, "SEAT_CREDENTIAL_INVALID")


def open_token(token: bytes, policy: int, key_id: str) -> tuple[bytes, bytes]:
    """docs/trust.md "Format (version 2)": the plaintext and the nonce."""
    return trust.open_token(token, KEYS, policy, key_id)


def make_token(plain: bytes, policy: int, key_id: str) -> bytes:
    return trust.make_token(plain, KEYS, policy, key_id)


def refused(method: Any, request: Any, want: tuple[grpc.StatusCode, str], where: str) -> None:
    try:
        resp = method(w.wire(request))
    except RequestError as e:
        assert (e.code, e.reason) == want, (e.code, e.reason, e.message, where)
        return
    raise AssertionError(f"answered instead of {want}: {type(resp).__name__}{where}")


@dataclass
class Sealed(w.WireSession):
    referee: Referee = STRICT
    strict: bool = True
    entropy: list[bytes] = field(default_factory=list)
    token: bytes = b""
    creds: list[bytes] = field(default_factory=list)
    table_cred: bytes = b""
    nonces: set[bytes] = field(default_factory=set)

    def where(self) -> str:
        return f"\nstrict={self.strict} entropy={self.entropy!r}{super().where()}"

    @property
    def policy(self) -> int:
        return 1 if self.strict else 0

    @property
    def key_ids(self) -> list[str]:
        return [k for k, _ in (STRICT_KEYS if self.strict else LENIENT_KEYS)]

    def viewers(self) -> list[common_pb2.Viewer]:
        out = w.viewers_pb(self.model.n)
        for v in out[: self.model.n]:
            v.credential = self.creds[v.seat]
        return out

    def action(self, a: m.Action) -> pb.Action:
        out = w.action_pb(a)
        out.actor.credential = self.table_cred if a.actor == m.TABLE else self.creds[int(a.actor)]
        return out


def bare(viewers: list[common_pb2.Viewer]) -> list[common_pb2.Viewer]:
    """The viewers as views name them: without the credential (not echoed back)."""
    out = [common_pb2.Viewer() for _ in viewers]
    for x, v in zip(out, viewers, strict=True):
        x.CopyFrom(v)
        x.ClearField("credential")
    return out


def read_answer(s: Sealed, resp: Any, where: str) -> tuple[pb.GameState, bytes]:
    """The state inside an answer's token, checked against its ``state_hash``."""
    assert not resp.HasField("state") and resp.sealed_state, f"plain state in an answer{where}"
    plain, nonce = open_token(resp.sealed_state, s.policy, s.key_ids[0])
    if resp.sealed_state != s.token:
        assert nonce not in s.nonces, f"nonce used twice{where}"
        s.nonces.add(nonce)
    state = pb.GameState.FromString(plain)
    assert state.SerializeToString(deterministic=True) == plain, f"not deterministic{where}"
    assert hashlib.sha256(plain).digest() == resp.state_hash, f"state_hash{where}"
    return state, plain


def check_state(s: Sealed, where: str) -> None:
    x = s.state
    assert (x.rules_version, x.version, x.seed, list(x.seat_entropy)) == (
        w.RULES_VERSION,
        s.version,
        s.seed,
        s.entropy,
    ), f"envelope {x.rules_version!r} v{x.version}{where}"
    got, want = w.state_projection(x), w.model_state(s.model)
    assert got == want, f"state differs (wire, model): {w.diff(got, want)}{where}"


def start(config: m.ModelConfig, seed_number: int, driver: int, strict: bool) -> Sealed:
    rng = random.Random(driver)
    referee = STRICT if strict else LENIENT
    n = config.seats
    entropy: list[bytes] = []
    if rng.random() < 0.7:
        entropy = [rng.randbytes(rng.choice([0, 1, 32, 64])) for _ in range(rng.randint(1, n))]
        entropy[-1] = entropy[-1] or b"\x00"
    caller_seed = hashlib.sha256(seed_number.to_bytes(8, "big")).digest()
    req = pb.NewGameRequest(config=w.config_pb(config), seat_entropy=entropy, views=w.viewers_pb(n))
    where0 = f"\nconfig={config!r}\nstrict={strict} entropy={entropy!r}\ndriver={driver}"
    if strict:
        refused(
            referee.new_game,
            pb.NewGameRequest(config=req.config, seed=caller_seed, seat_entropy=entropy),
            (grpc.StatusCode.FAILED_PRECONDITION, "CLIENT_SEED_REFUSED"),
            where0,
        )
    elif rng.random() < 0.5:
        req.seed = caller_seed
    resp = w.call(referee.new_game, req)
    s = Sealed(config, b"", driver, None, pb.GameState(), b"", b"")  # type: ignore[arg-type]
    s.referee, s.strict, s.entropy = referee, strict, entropy
    s.state, s.state_bytes = read_answer(s, resp, where0)
    s.token, s.state_hash, s.seed = resp.sealed_state, resp.state_hash, s.state.seed
    where = s.where()
    if req.seed:
        assert s.seed == caller_seed, where
    elif entropy:
        key = KEYS[s.key_ids[0]]
        derived = trust.derived_seed(key, entropy, s.policy)
        assert s.seed == derived, f"seed not derived as documented{where}"
        again = w.call(referee.new_game, req)  # idempotent: the same game, a fresh token
        assert (again.state_hash, again.seat_credentials) == (
            resp.state_hash,
            resp.seat_credentials,
        )
        assert again.sealed_state != resp.sealed_state, where
    assert len(s.seed) == 32 and resp.seed_commitment == hashlib.sha256(s.seed).digest(), where
    assert s.state.parent_hash == b"", where
    s.creds, s.table_cred = list(resp.seat_credentials), resp.table_credential
    assert len(s.creds) == n and all(len(c) == 16 for c in [*s.creds, s.table_cred]), where
    assert len({*s.creds, s.table_cred}) == n + 1, f"credentials repeat{where}"
    s.model = m.EarlModel(config, trust.shuffle_seed(s.seed, entropy))
    check_state(s, where)
    events = list(resp.events)
    got = [w.event_of_pb(e) for e in events]
    want = [d.normalised_model_event(e) for e in s.model.start_events]
    assert d.by_kind(got) == d.by_kind(want), f"start events {got} != {want}{where}"
    w.check_views(s, w.viewers_pb(n), list(resp.views), events, where)
    w.check_scoreboard(s, resp.scoreboard, where)
    return s


def step(s: Sealed, action: m.Action) -> None:
    s.sent.append(action)
    where = s.where()
    msg = s.action(action)
    asked = s.viewers()
    req = pb.ApplyActionRequest(sealed_state=s.token, action=msg, views=asked)
    resp = w.call(s.referee.apply_action, req)
    want = s.model.apply(action)
    codes = w.check_outcome(s, resp, want, action, where)
    state, data = read_answer(s, resp, where)
    if resp.verdict == common_pb2.VERDICT_REJECTED:
        assert data == s.state_bytes and not resp.events, f"a rejection changed the state{where}"
        # docs/trust.md: a rejected action is answered with the very token it came with.
        assert resp.sealed_state == s.token, f"a rejection gave a new token{where}"
    else:
        s.version += 1
        assert state.parent_hash == s.state_hash, f"parent_hash is not the hash sent{where}"
    s.state, s.state_bytes, s.state_hash, s.token = state, data, resp.state_hash, resp.sealed_state
    check_state(s, where)
    w.check_views(s, bare(asked), list(resp.views), list(resp.events), where)
    w.check_scoreboard(s, resp.scoreboard, where)
    pens = [(p.seat, p.amount, p.code, p.rule_id) for p in resp.penalties]
    s.steps.append(w.Step(msg, resp.verdict, codes, pens, resp.state_hash, list(resp.events)))


def check_refusals(s: Sealed, rng: random.Random, action: m.Action) -> None:
    """The credentials, before ``action`` is sent: with ``require_sealed`` every seat and
    table request without its own credential is refused; without, none is needed."""
    where = s.where()
    n = s.model.n
    seat = rng.randrange(n)
    wrong = rng.choice([b"", s.creds[(seat + 1) % n], s.table_cred, bytes(16)])
    bad_viewer = common_pb2.Viewer(seat=seat, credential=wrong)
    bad_action = s.action(action)
    bad_action.actor.credential = rng.choice(
        [b"", bytes(16), *(c for c in [*s.creds, s.table_cred] if c != bad_action.actor.credential)]
    )
    view = pb.ViewStateRequest(sealed_state=s.token, viewer=bad_viewer)
    apply = pb.ApplyActionRequest(sealed_state=s.token, action=bad_action)
    apply_view = pb.ApplyActionRequest(
        sealed_state=s.token, action=s.action(action), views=[bad_viewer]
    )
    legal = pb.LegalActionsRequest(
        sealed_state=s.token, actor=common_pb2.Actor(seat=seat, credential=wrong)
    )
    plain = pb.ViewStateRequest(state=s.state, viewer=s.viewers()[seat])
    if s.strict:
        for method, req in [
            (s.referee.view_state, view),
            (s.referee.apply_action, apply),
            (s.referee.apply_action, apply_view),
            (s.referee.legal_actions, legal),
        ]:
            refused(method, req, DENIED, f"\n{req}{where}")
        seal_required = (grpc.StatusCode.FAILED_PRECONDITION, "STATE_SEAL_REQUIRED")
        refused(s.referee.view_state, plain, seal_required, where)
    else:
        for method, req in [(s.referee.view_state, view), (s.referee.view_state, plain)]:
            resp = w.call(method, req)
            assert resp.state_hash == s.state_hash, where
            w.check_views(s, bare([req.viewer]), [resp.view], [], where)
    # A token made here by the documented format opens, under either key; one of the
    # other policy is refused.
    mine = make_token(s.state_bytes, s.policy, rng.choice(s.key_ids))
    resp = w.call(s.referee.view_state, pb.ViewStateRequest(sealed_state=mine, viewer=plain.viewer))
    assert resp.state_hash == s.state_hash, where
    mismatch = (grpc.StatusCode.INVALID_ARGUMENT, "STATE_SEAL_POLICY_MISMATCH")
    other = OTHER_POLICY[s.strict]
    refused(other.view_state, pb.ViewStateRequest(sealed_state=s.token), mismatch, where)


def check_legal_actions(s: Sealed) -> None:
    model, where = s.model, s.where()
    actors: list[int | str | None] = [*range(model.n), m.TABLE, "spectator", None]
    for actor in actors:
        req = pb.LegalActionsRequest(sealed_state=s.token)
        if actor == "spectator":
            req.actor.spectator = w.SPECTATOR
        elif actor is not None:
            req.actor.CopyFrom(s.action(m.Action(actor, m.PASS)).actor)
        elif s.strict:
            refused(
                s.referee.legal_actions,
                req,
                (grpc.StatusCode.INVALID_ARGUMENT, "ACTOR_REQUIRED"),
                where,
            )
            continue
        got = w.actions_of(w.call(s.referee.legal_actions, req))
        if actor == "spectator":
            want: set[tuple[int | str, str, int | None]] = set()
        elif actor is None:
            want = model.legal_actions(model.turn if model.phase == m.PLAYING else m.TABLE)
        else:
            want = model.legal_actions(actor)
        assert got == want, f"legal actions of {actor!r}: {got ^ want}{where}"


def check_view_state(s: Sealed) -> None:
    where = s.where()
    for viewer in s.viewers():
        resp = w.call(
            s.referee.view_state, pb.ViewStateRequest(sealed_state=s.token, viewer=viewer)
        )
        assert resp.state_hash == s.state_hash, f"ViewState hash{where}"
        w.check_views(s, bare([viewer]), [resp.view], [], where)
        w.check_scoreboard(s, resp.scoreboard, where)


def check_replay(s: Sealed) -> None:
    """docs/trust.md: Replay's final state is plain, also on a server that seals."""
    where = s.where()
    req = pb.ReplayRequest(
        config=w.config_pb(s.config),
        seed=s.seed,
        seat_entropy=s.entropy,
        actions=[x.action for x in s.steps],
    )
    resp = w.call(s.referee.replay, req)
    got = [(x.verdict, [v.code for v in x.violations], x.state_hash) for x in resp.steps]
    assert got == [(x.verdict, x.codes, x.state_hash) for x in s.steps], f"replay{where}"
    assert resp.final_state.SerializeToString(deterministic=True) == s.state_bytes, where
    assert resp.final_hash == s.state_hash and not resp.sealed_state, where


def play(config: m.ModelConfig, seed_number: int, driver: int, strict: bool) -> Sealed:
    s = start(config, seed_number, driver, strict)
    rng = random.Random(driver + 1)
    noise = rng.choice([0.05, 0.2, 0.45])
    for i in range(MAX_STEPS):
        if i % 9 == 0:
            check_legal_actions(s)
        if i % 9 == 4:
            check_view_state(s)
        if s.model.phase == m.SESSION_OVER and rng.random() < 0.7:
            break
        action = d.pick_action(rng, s.model, noise)
        if action.actor == m.TABLE or i % 11 == 0:
            check_refusals(s, rng, action)
        step(s, action)
    check_legal_actions(s)
    check_view_state(s)
    check_replay(s)
    return s


@settings(max_examples=18, deadline=None)
@given(
    config=d.configs(),
    seed_number=st.integers(0, 2**64 - 1),
    driver=st.integers(0, 2**32),
    strict=st.integers(0, 2**16).map(lambda x: x % 4 != 0),
)
def test_sealed_service_matches_model(
    config: m.ModelConfig, seed_number: int, driver: int, strict: bool
) -> None:
    """One random session through a sealing service (``require_sealed`` three times in
    four), read from its tokens alone."""
    play(config, seed_number, driver, strict)
