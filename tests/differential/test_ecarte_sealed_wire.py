"""Differential test of the sealing service: ``test_ecarte_wire`` on sealed tokens.

The same random Écarté matches as ``test_ecarte_wire.py`` (its helpers and the model's
generators), on a :class:`referee.service.Referee` that holds sealing keys, with
``require_sealed`` in most matches and without it in some. The client side carries
only what a real client has: the ``sealed_state`` token of each answer (never a plain
state), the seat credentials of ``NewGame`` on every seat viewer and seat actor, the
table credential on the table actor. To compare with the model the test opens every
token itself, from docs/trust.md's description of format 3 only (not
``referee/sealing.py``): ``"RS" ‖ 0x03 ‖ policy ‖ len(key id) ‖ key id ‖ nonce(12) ‖
AES-256-GCM(key, nonce, state, aad = everything before the nonce)``. It checks:

- every token opens under the first key of the ring, records the server's policy,
  has a nonce never seen before in the match (a rejected action may hand back the
  token it was sent) and decodes to a state whose SHA-256 is the answer's
  ``state_hash``; the answers' plain ``state`` is empty;
- the seed: with seat entropy and no seed of the caller's, the one derived from the
  entropy with the key (docs/trust.md "A deal the caller cannot draw again", computed
  here), and ``NewGame`` idempotent on it; otherwise read from the first state; a
  caller's seed refused under ``--require-sealed`` (``CLIENT_SEED_REFUSED``);
- everything ``test_ecarte_wire`` checks of states, views, events, scoreboards,
  ``LegalActions``, ``ViewState`` and ``Replay`` (whose ``final_state`` is plain and
  ``sealed_state`` empty);
- credentials: one 16-byte credential per seat and one for the table, all distinct;
  under ``--require-sealed`` a seat viewer (``ViewState``, ``ApplyAction`` views) or a
  seat actor (``ApplyAction``, ``LegalActions``) with no credential or another's is
  ``PERMISSION_DENIED``/``SEAT_CREDENTIAL_INVALID``, ``LegalActions`` without an actor
  ``ACTOR_REQUIRED``, a plain state ``STATE_SEAL_REQUIRED``; spectators (and their
  wagers, au Cercle) and the public need none. Without ``--require-sealed`` no
  credential is checked and a plain state is accepted.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import TypeVar

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.sealing import Keyring
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb
from tests.differential import ecarte_model as model
from tests.differential import trust_format as trust
from tests.differential.test_ecarte_differential import (
    EXCHANGE_WEIGHTS,
    EXTRA_AFTER_END,
    LEGAL_WEIGHTS,
    SPECTATORS,
    actors_of,
    configs,
    normal_model,
)
from tests.differential.test_ecarte_wire import (
    OUTSIDER,
    WIRE_ONLY_RATE,
    Match,
    Wire,
    action_msg,
    actor_msg,
    check_answer,
    check_state,
    check_view,
    config_msg,
    decode_scoreboard,
    expected_scoreboard,
    next_action,
    normal_wire,
    sha,
    short,
    shuffle_seed,
    trick_winners,
    viewer_msg,
    viewers_of,
    wire_only_malformed,
)

KEYS = [("ecarte-k1", bytes(range(7, 39))), ("old.k0", bytes(range(100, 132)))]  # [0] seals
KEY_BY_ID = dict(KEYS)
STRICT = Referee(all_codecs(), keyring=Keyring(KEYS), require_sealed=True)
LENIENT = Referee(all_codecs(), keyring=Keyring(KEYS), require_sealed=False)
MAX_STEPS = 90
PROBE_RATE = 0.15  # how often LegalActions, ViewState and the credential probes run


# ---------------------------------------------------------------- docs/trust.md


def open_token(token: bytes, strict: bool) -> bytes:
    """Format 2, from docs/trust.md only: the plaintext of a token this test's server sealed."""
    return trust.open_token(token, KEY_BY_ID, 1 if strict else 0, KEYS[0][0])[0]


def derived_seed(entropy: Sequence[bytes], strict: bool) -> bytes:
    """docs/trust.md: the referee's seed of a game with entropy, under the sealing key and
    the server's policy."""
    return trust.derived_seed(KEYS[0][1], entropy, 1 if strict else 0)


# ---------------------------------------------------------------- the client side


@dataclass
class Client:
    """What a client holds: the latest token, the credentials; and the test's own
    reading of the token (``wire.state``/``data``/``hash``)."""

    referee: Referee
    strict: bool
    token: bytes
    seats: list[bytes]
    table: bytes
    wire: Wire
    nonces: set[bytes] = field(default_factory=set)

    def viewer(self, v: int | str | None, credential: bytes | None = None) -> common_pb2.Viewer:
        msg = viewer_msg(v)
        if isinstance(v, int):
            msg.credential = self.seats[v] if credential is None else credential
        return msg

    def actor(self, msg: common_pb2.Actor, credential: bytes | None = None) -> None:
        kind = msg.WhichOneof("kind")
        if kind == "seat" and msg.seat < len(self.seats):
            msg.credential = self.seats[msg.seat] if credential is None else credential
        elif kind == "table":
            msg.credential = self.table if credential is None else credential


def opened(match: Match, client: Client, token: bytes, state_hash: bytes) -> pb.GameState:
    """Open a token of an answer: its plaintext hashes to ``state_hash``; a fresh nonce."""
    match.check("sealed_state present", bool(token), True)
    try:
        data = open_token(token, client.strict)
    except Exception as err:  # a difference, reported with the trace
        match.fail(f"token does not open as docs/trust.md says: {err!r}")
        raise
    match.check("hash of the token's state", sha(data), state_hash)
    if token != client.token:
        nonce = token[5 + token[4] : 17 + token[4]]
        match.check("a fresh nonce", nonce in client.nonces, False)
        client.nonces.add(nonce)
    return pb.GameState.FromString(data)


_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")


def call(match: Match, rpc: Callable[[_Req], _Resp], request: _Req) -> _Resp:
    try:
        return rpc(request)
    except RequestError as err:
        match.fail(f"{rpc.__name__} refused: {err.code.name} {err.reason} {err.message}")
        raise


def refused(
    match: Match, what: str, rpc: Callable[[_Req], object], request: _Req, code: object, reason: str
) -> None:
    try:
        rpc(request)
    except RequestError as err:
        match.check(f"{what}: refusal", (err.code, err.reason), (code, reason))
        return
    match.fail(f"{what}: answered, expected {code} {reason}")


DENIED = grpc.StatusCode.PERMISSION_DENIED
BAD_CREDENTIAL = "SEAT_CREDENTIAL_INVALID"


# ---------------------------------------------------------------- probes


def check_legal(match: Match, c: Client, m: model.State) -> dict[object, pb.Action]:
    """LegalActions of every actor (with its credential) against the model."""
    listed: dict[object, pb.Action] = {}
    for actor in [*actors_of(m), OUTSIDER]:
        req = pb.LegalActionsRequest(sealed_state=c.token, actor=actor_msg(actor))
        c.actor(req.actor)
        got = call(match, c.referee.legal_actions, req).actions
        theirs = [normal_wire(a) for a in got]
        mine = {normal_model(a) for a in model.legal_actions(m, actor)}
        match.check(f"LegalActions of {actor!r}", (set(theirs), len(theirs)), (mine, len(mine)))
        listed.update(zip(theirs, got, strict=True))
    no_actor = pb.LegalActionsRequest(sealed_state=c.token)
    seat = random.Random(len(match.trace)).randrange(m.n)
    other = pb.LegalActionsRequest(sealed_state=c.token, actor=actor_msg(seat))
    c.actor(other.actor, c.seats[(seat + 1) % m.n])
    if c.strict:
        refused(
            match,
            "LegalActions, no actor",
            c.referee.legal_actions,
            no_actor,
            grpc.StatusCode.INVALID_ARGUMENT,
            "ACTOR_REQUIRED",
        )
        refused(
            match,
            "LegalActions, another's credential",
            c.referee.legal_actions,
            other,
            DENIED,
            BAD_CREDENTIAL,
        )
    else:
        expected: set[tuple[object, ...]] = set()
        if m.phase != model.MATCH_OVER:
            expected = {normal_model(a) for a in model.legal_actions(m, m.turn)}
        for s in range(m.n):
            expected |= {
                normal_model(a) for a in model.legal_actions(m, s) if a.kind == model.ANNOUNCE
            }
        got = call(match, c.referee.legal_actions, no_actor).actions
        match.check("LegalActions, no actor (D-19)", {normal_wire(a) for a in got}, expected)
        got = call(match, c.referee.legal_actions, other).actions
        mine = {normal_model(a) for a in model.legal_actions(m, seat)}
        match.check(
            "LegalActions, lenient, another's credential", {normal_wire(a) for a in got}, mine
        )
    return listed


def check_view_state(match: Match, c: Client, m: model.State) -> None:
    """ViewState of every viewer (seats with their credential), then wrong credentials."""
    w = c.wire
    for viewer in viewers_of(m):
        req = pb.ViewStateRequest(sealed_state=c.token, viewer=c.viewer(viewer))
        resp = call(match, c.referee.view_state, req)
        match.check(f"ViewState hash of {viewer!r}", resp.state_hash, w.hash)
        check_view(match, resp.view, viewer, m, w, w.state.version, None, ())
        match.check(
            f"ViewState scoreboard of {viewer!r}",
            decode_scoreboard(resp.scoreboard),
            expected_scoreboard(m),
        )
        last = pb.GameView()
        last.CopyFrom(w.views[viewer])
        last.ClearField("events")
        match.check(f"ViewState of {viewer!r} and the last answer's view", resp.view, last)
    rng = random.Random(len(match.trace))
    seat = rng.randrange(m.n)
    for what, cred in [
        ("no credential", b""),
        ("another seat's credential", c.seats[(seat + 1) % m.n]),
        ("the table credential", c.table),
        ("a flipped credential", bytes([c.seats[seat][0] ^ 1]) + c.seats[seat][1:]),
    ]:
        req = pb.ViewStateRequest(sealed_state=c.token, viewer=c.viewer(seat, cred))
        if c.strict:
            refused(
                match,
                f"ViewState of seat {seat}, {what}",
                c.referee.view_state,
                req,
                DENIED,
                BAD_CREDENTIAL,
            )
        else:
            got = call(match, c.referee.view_state, req).view
            last = pb.GameView()
            last.CopyFrom(w.views[seat])
            last.ClearField("events")
            match.check(f"lenient ViewState of seat {seat}, {what}", got, last)
    plain = pb.ViewStateRequest(state=w.state, viewer=c.viewer(None))
    if c.strict:
        refused(
            match,
            "a plain state",
            c.referee.view_state,
            plain,
            grpc.StatusCode.FAILED_PRECONDITION,
            "STATE_SEAL_REQUIRED",
        )
    else:
        answer = call(match, c.referee.view_state, plain)
        match.check("lenient ViewState of the plain state", answer.state_hash, w.hash)


def check_denied_apply(match: Match, c: Client, m: model.State, rng: random.Random) -> None:
    """Under --require-sealed, ApplyAction with a seat actor or a seat viewer that carries
    another seat's credential is refused (a legal action, so only the credential is wrong)."""
    legal = [a for s in range(m.n) for a in model.legal_actions(m, s)]
    if not legal or not c.strict:
        return
    a = rng.choice(legal)
    seat = int(a.actor)  # type: ignore[arg-type]
    req = pb.ApplyActionRequest(sealed_state=c.token, action=action_msg(a))
    c.actor(req.action.actor, c.seats[(seat + 1) % m.n])
    refused(
        match,
        f"ApplyAction of {a} with another's credential",
        c.referee.apply_action,
        req,
        DENIED,
        BAD_CREDENTIAL,
    )
    req = pb.ApplyActionRequest(sealed_state=c.token, action=action_msg(a))
    c.actor(req.action.actor)
    viewer = rng.randrange(m.n)
    req.views.extend([c.viewer(OUTSIDER), c.viewer(viewer, c.seats[(viewer + 1) % m.n])])
    refused(
        match,
        f"ApplyAction viewed by seat {viewer} with another's credential",
        c.referee.apply_action,
        req,
        DENIED,
        BAD_CREDENTIAL,
    )


# ---------------------------------------------------------------- one action


def send(c: Client, request: pb.ApplyActionRequest, m: model.State) -> pb.ApplyActionResponse:
    request.sealed_state = c.token
    if request.HasField("action") and request.action.HasField("actor"):
        c.actor(request.action.actor)
    if not request.views:
        request.views.extend(c.viewer(v) for v in viewers_of(m))
    return c.referee.apply_action(request)


def expect_error(
    match: Match, c: Client, what: str, request: pb.ApplyActionRequest, m: model.State
) -> None:
    try:
        send(c, request, m)
    except RequestError as err:
        match.check(f"status of {what}", err.code, grpc.StatusCode.INVALID_ARGUMENT)
        return
    match.fail(f"{what}: answered, expected INVALID_ARGUMENT")


def step(
    match: Match, c: Client, m: model.State, action: model.Action, msg: pb.Action
) -> model.State:
    match.trace.append(action)
    mine = model.apply(m, action)
    if mine.verdict == model.ERROR:
        expect_error(match, c, "a malformed action", pb.ApplyActionRequest(action=msg), m)
        return m
    try:
        resp = send(c, pb.ApplyActionRequest(action=msg), m)
    except RequestError as err:
        match.fail(f"wire: {err.code} {err.reason} ({err.message}); model: {mine.verdict}")
        raise
    verdict = {
        common_pb2.VERDICT_ACCEPTED: model.ACCEPTED,
        common_pb2.VERDICT_REJECTED: model.REJECTED,
    }.get(resp.verdict, common_pb2.Verdict.Name(resp.verdict))
    theirs = sorted((v.code, v.rule_id) for v in resp.violations)
    ours = sorted((b.code, b.rule_id) for b in mine.violations)
    match.check("verdicts", (verdict, theirs), (mine.verdict, ours))
    match.check("plain state of a sealing server's answer", resp.HasField("state"), False)
    w = c.wire
    state = opened(match, c, resp.sealed_state, resp.state_hash)
    accepted = verdict == model.ACCEPTED
    new = mine.state if accepted else m
    if accepted:
        match.check("version", state.version, w.state.version + 1)
        match.check("parent hash", state.parent_hash, w.hash)
    else:
        match.check(
            "state of a rejected action", state.SerializeToString(deterministic=True), w.data
        )
    data = check_state(match, state, resp.state_hash, new)
    events = new.events if accepted else []
    if accepted:
        w.winners = trick_winners(events, w.winners)
    check_answer(match, w, new, resp, state.version, events, m.stock)
    c.token = resp.sealed_state
    w.state, w.data, w.hash = state, data, resp.state_hash
    w.sent.append(msg)
    w.verdicts.append(
        (resp.verdict, tuple((v.code, v.rule_id) for v in resp.violations), resp.state_hash)
    )
    return new


def check_replay(match: Match, c: Client, first_hash: bytes) -> None:
    """Replay on the sealing server: the same verdicts and hashes; its final state plain."""
    resp = call(
        match,
        c.referee.replay,
        pb.ReplayRequest(
            config=config_msg(match.config),
            seed=match.seed,
            seat_entropy=match.entropy,
            actions=c.wire.sent,
        ),
    )
    match.check("Replay initial hash", resp.initial_hash, first_hash)
    got = [
        (s.verdict, tuple((v.code, v.rule_id) for v in s.violations), s.state_hash)
        for s in resp.steps
    ]
    match.check("Replay steps", got, c.wire.verdicts)
    match.check(
        "Replay final state (plain)",
        resp.final_state.SerializeToString(deterministic=True),
        c.wire.data,
    )
    match.check("Replay sealed_state (never set)", resp.sealed_state, b"")
    match.check("Replay final hash", resp.final_hash, c.wire.hash)


# ---------------------------------------------------------------- a match


def play_match(
    cfg: model.Config,
    strict: bool,
    given_seed: bytes,
    entropy: list[bytes],
    choice_seed: int,
    exchanges: bool,
) -> int:
    referee = STRICT if strict else LENIENT
    rng = random.Random(choice_seed)
    weights = EXCHANGE_WEIGHTS if exchanges else LEGAL_WEIGHTS
    match = Match(cfg, given_seed, choice_seed, exchanges, list(entropy))
    match.trace.append(f"(strict={strict}, seed given={bool(given_seed)})")
    views = [viewer_msg(v) for v in [*range(cfg.seats), SPECTATORS[0], OUTSIDER, None]]
    request = pb.NewGameRequest(
        config=config_msg(cfg), seed=given_seed, seat_entropy=entropy, views=views
    )
    if strict:
        with_seed = pb.NewGameRequest(config=config_msg(cfg), seed=bytes(32), seat_entropy=entropy)
        refused(
            match,
            "NewGame with a seed",
            referee.new_game,
            with_seed,
            grpc.StatusCode.FAILED_PRECONDITION,
            "CLIENT_SEED_REFUSED",
        )
    resp = call(match, referee.new_game, request)
    match.check("NewGame plain state", resp.HasField("state"), False)
    creds = list(resp.seat_credentials)
    match.check(
        "credentials", [len(x) for x in [*creds, resp.table_credential]], [16] * (cfg.seats + 1)
    )
    match.check("credentials distinct", len({*creds, resp.table_credential}), cfg.seats + 1)
    client = Client(
        referee, strict, b"", creds, resp.table_credential, Wire(pb.GameState(), b"", b"", {})
    )
    state = opened(match, client, resp.sealed_state, resp.state_hash)
    if given_seed:
        seed = given_seed
    elif entropy:
        seed = derived_seed(entropy, strict)
        again = call(
            match, referee.new_game, pb.NewGameRequest(config=config_msg(cfg), seat_entropy=entropy)
        )
        match.check("NewGame again with the same entropy", again.seed_commitment, sha(seed))
    else:
        seed = state.seed
    match.seed = seed
    match.check("seed of the first state (docs/trust.md)", state.seed, seed)
    match.check("NewGame seed commitment", resp.seed_commitment, sha(seed))
    match.check("NewGame version and parent", (state.version, state.parent_hash), (0, b""))
    m = model.new_game(cfg, shuffle_seed(seed, entropy))
    data = check_state(match, state, resp.state_hash, m)
    client.token = resp.sealed_state
    w = client.wire
    w.state, w.data, w.hash = state, data, resp.state_hash
    w.winners = trick_winners(m.events, [])
    check_answer(match, w, m, resp, 0, m.events, ())
    first_hash = resp.state_hash
    after_end = 0
    for _ in range(MAX_STEPS):
        listed: dict[object, pb.Action] = {}
        if rng.random() < PROBE_RATE or m.phase == model.MATCH_OVER:
            listed = check_legal(match, client, m)
        if rng.random() < PROBE_RATE:
            check_view_state(match, client, m)
        if rng.random() < PROBE_RATE:
            check_denied_apply(match, client, m, rng)
        if m.phase == model.MATCH_OVER:
            if after_end == EXTRA_AFTER_END:
                break
            after_end += 1
        roll = rng.random()
        if roll < WIRE_ONLY_RATE:
            what, req = wire_only_malformed(rng, m)
            match.trace.append(f"(wire only) {what}")
            expect_error(match, client, what, req, m)
            continue
        action, msg = next_action(rng, m, roll, weights, listed)
        m = step(match, client, m, action, msg)
    check_view_state(match, client, m)
    check_replay(match, client, first_hash)
    return len(match.trace)


# ---------------------------------------------------------------- tests


SCENARIOS = [  # (strict, the seats give entropy, the caller gives a seed); strict in most
    (True, True, False),
    (True, True, False),
    (True, False, False),
    (False, True, False),
    (False, False, True),
    (False, True, True),
]


@st.composite
def setups(draw: st.DrawFn, with_entropy: bool) -> tuple[model.Config, list[bytes]]:
    """A short configuration (au Cercle half of the time or more) and seats' entropy."""
    cfg = short(draw(configs()))
    cfg = replace(cfg, target=min(cfg.target, 2), gallery=cfg.gallery or draw(st.booleans()))
    if not with_entropy:
        return cfg, []
    entropy = draw(
        st.one_of(
            st.lists(st.binary(max_size=64), min_size=1, max_size=cfg.seats).map(
                lambda es: [*es[:-1], es[-1] or b"\x01"]
            ),
            st.lists(st.binary(min_size=32, max_size=32), min_size=cfg.seats, max_size=cfg.seats),
        )
    )
    return cfg, entropy


@pytest.mark.parametrize(("strict", "with_entropy", "with_seed"), SCENARIOS)
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), choice_seed=st.integers(0, 2**32 - 1), exchanges=st.booleans())
def test_sealing_service_agrees_with_model(
    strict: bool,
    with_entropy: bool,
    with_seed: bool,
    data: st.DataObject,
    choice_seed: int,
    exchanges: bool,
) -> None:
    """Random matches on sealed tokens and credentials agree with the model at every step."""
    cfg, entropy = data.draw(setups(with_entropy))
    seed = data.draw(st.binary(min_size=32, max_size=32)) if with_seed else b""
    play_match(cfg, strict, seed, entropy, choice_seed, exchanges)


def test_spectator_wager_under_require_sealed() -> None:
    """docs/trust.md: spectators are not authenticated; au Cercle a spectator wagers on a
    strict server with no credential at all, and its view needs none either."""
    cfg = model.Config(gallery=True, first_dealer=0)
    resp = STRICT.new_game(pb.NewGameRequest(config=config_msg(cfg), seat_entropy=[b"x"]))
    m = model.new_game(cfg, shuffle_seed(derived_seed([b"x"], True), [b"x"]))
    wager = next(a for a in model.legal_actions(m, SPECTATORS[0]) if a.kind == model.WAGER)
    got = STRICT.apply_action(
        pb.ApplyActionRequest(
            sealed_state=resp.sealed_state,
            action=action_msg(wager),
            views=[viewer_msg(SPECTATORS[0]), viewer_msg(None)],
        )
    )
    assert got.verdict == common_pb2.VERDICT_ACCEPTED
    assert [(w.spectator, w.seat, w.amount) for w in got.views[0].ecarte.wagers] == [
        (SPECTATORS[0], wager.on, wager.amount)
    ]
