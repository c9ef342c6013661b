"""Sealed state tokens (docs/trust.md)."""

from __future__ import annotations

import base64
import hashlib
import os
import random

import grpc
import pytest
from google.rpc import error_details_pb2
from grpc_status import rpc_status

from referee.codec import all_codecs
from referee.errors import RequestError
from referee.sealing import (
    SEAL_INVALID,
    SEAL_MALFORMED,
    SEAL_POLICY,
    SEAL_UNKNOWN_KEY,
    SEAL_VERSION,
    KeyConfigError,
    Keyring,
    SealError,
    new_key_line,
    parse_keys,
)
from referee.server import ServerSettings
from referee.service import Referee
from referee.v1 import common_pb2, referee_pb2_grpc
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import referee_pb2 as pb

from ..server_thread import ServerThread

K1 = ("k1", bytes(range(32)))
K2 = ("k2", bytes(range(32, 64)))
CONFIG = pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=3))


def sealed_referee(*keys: tuple[str, bytes], require: bool = False) -> Referee:
    return Referee(all_codecs(), keyring=Keyring(keys), require_sealed=require)


def reason_of(err: RequestError) -> str:
    return err.reason


def test_round_trip_and_tokens_hide_the_state() -> None:
    referee = sealed_referee(K1)
    first = referee.new_game(pb.NewGameRequest(config=CONFIG))
    assert first.sealed_state and not first.HasField("state")
    token = first.sealed_state
    plain = pb.GameState.FromString(Keyring([K1]).open(token))
    assert plain.seed not in token  # encrypted, not just signed
    assert (
        first.state_hash
        == __import__("hashlib").sha256(plain.SerializeToString(deterministic=True)).digest()
    )
    # Play through tokens only.
    state_token = token
    for _ in range(10):
        actions = referee.legal_actions(pb.LegalActionsRequest(sealed_state=state_token)).actions
        reply = referee.apply_action(
            pb.ApplyActionRequest(sealed_state=state_token, action=actions[0])
        )
        assert reply.verdict == common_pb2.VERDICT_ACCEPTED
        assert reply.sealed_state and not reply.HasField("state")
        assert reply.sealed_state != state_token
        state_token = reply.sealed_state
    view = referee.view_state(
        pb.ViewStateRequest(sealed_state=state_token, viewer=common_pb2.Viewer(seat=0))
    )
    assert view.view.version == 10


def test_every_single_bit_flip_and_truncation_is_refused() -> None:
    """10,000 random single-bit flips and truncations of a token are all refused."""
    referee = sealed_referee(K1)
    token = referee.new_game(pb.NewGameRequest(config=CONFIG)).sealed_state
    rng = random.Random(5)
    reasons: dict[str, int] = {}
    for n in range(10_000):
        if n % 4 == 0:
            bad = token[: rng.randrange(1, len(token))]
        else:
            bit = rng.randrange(len(token) * 8)
            mutable = bytearray(token)
            mutable[bit // 8] ^= 1 << (bit % 8)
            bad = bytes(mutable)
        with pytest.raises(RequestError) as info:
            referee.open_state(pb.GameState(), bad)
        err = info.value
        assert err.code == grpc.StatusCode.INVALID_ARGUMENT
        assert err.reason.startswith("STATE_SEAL_")
        reasons[err.reason] = reasons.get(err.reason, 0) + 1
    assert set(reasons) <= {
        SEAL_INVALID,
        SEAL_MALFORMED,
        SEAL_UNKNOWN_KEY,
        SEAL_VERSION,
        SEAL_POLICY,
    }
    assert reasons[SEAL_INVALID] > 5000


def test_key_rotation_old_key_opens_new_key_seals() -> None:
    old = sealed_referee(K1)
    token = old.new_game(pb.NewGameRequest(config=CONFIG)).sealed_state
    rotated = sealed_referee(K2, K1)  # k2 now seals, k1 still opens
    action = rotated.legal_actions(pb.LegalActionsRequest(sealed_state=token)).actions[0]
    reply = rotated.apply_action(pb.ApplyActionRequest(sealed_state=token, action=action))
    assert reply.verdict == common_pb2.VERDICT_ACCEPTED
    assert reply.sealed_state[5:7] == b"k2"
    with pytest.raises(SealError) as info:
        Keyring([K1]).open(reply.sealed_state)
    assert info.value.reason == SEAL_UNKNOWN_KEY
    retired = sealed_referee(K2)  # k1 retired: its tokens no longer open
    with pytest.raises(RequestError) as err:
        retired.open_state(pb.GameState(), token)
    assert err.value.reason == SEAL_UNKNOWN_KEY
    assert "k1" in err.value.message and base64.b64encode(K1[1]).decode() not in err.value.message


def test_other_token_versions_are_refused() -> None:
    referee = sealed_referee(K1)
    token = bytearray(referee.new_game(pb.NewGameRequest(config=CONFIG)).sealed_state)
    for version in (1, 4):  # 1: before the policy byte (2026-12-05); 4: not yet made
        token[2] = version
        with pytest.raises(RequestError) as info:
            referee.open_state(pb.GameState(), bytes(token))
        assert info.value.reason == SEAL_VERSION


def test_require_sealed_refuses_plain_states_and_client_seeds() -> None:
    plain = Referee(all_codecs()).new_game(pb.NewGameRequest(config=CONFIG)).state
    strict = sealed_referee(K1, require=True)
    with pytest.raises(RequestError) as info:
        strict.legal_actions(pb.LegalActionsRequest(state=plain))
    assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.reason == "STATE_SEAL_REQUIRED"
    with pytest.raises(RequestError) as info:
        strict.new_game(pb.NewGameRequest(config=CONFIG, seed=bytes(32)))
    assert info.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert info.value.reason == "CLIENT_SEED_REFUSED"
    # Seats' entropy is welcome.
    assert strict.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=[b"a", b"b"])).sealed_state


def test_replay_never_mints_a_token_even_on_a_strict_server() -> None:
    """Replay takes the seed from its caller: its final state comes back plain and
    ``sealed_state`` stays empty, so a seed of the caller's choice cannot become a
    token that a --require-sealed server would take (referee.proto, docs/trust.md)."""
    strict = sealed_referee(K1, require=True)
    seed = bytes(range(32))
    game = Referee(all_codecs()).new_game(pb.NewGameRequest(config=CONFIG, seed=seed))
    actions = Referee(all_codecs()).legal_actions(pb.LegalActionsRequest(state=game.state))
    replayed = strict.replay(
        pb.ReplayRequest(config=CONFIG, seed=seed, actions=[actions.actions[0]])
    )
    assert not replayed.sealed_state
    assert replayed.final_state.seed == seed and replayed.final_state.version == 1
    with pytest.raises(RequestError) as info:
        strict.legal_actions(pb.LegalActionsRequest(state=replayed.final_state))
    assert info.value.reason == "STATE_SEAL_REQUIRED"


def test_both_state_and_token_is_invalid() -> None:
    referee = sealed_referee(K1)
    first = referee.new_game(pb.NewGameRequest(config=CONFIG))
    plain = pb.GameState.FromString(Keyring([K1]).open(first.sealed_state))
    with pytest.raises(RequestError) as info:
        referee.legal_actions(pb.LegalActionsRequest(state=plain, sealed_state=first.sealed_state))
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT


def test_plain_mode_refuses_tokens_with_a_clear_error() -> None:
    token = sealed_referee(K1).new_game(pb.NewGameRequest(config=CONFIG)).sealed_state
    with pytest.raises(RequestError) as info:
        Referee(all_codecs()).legal_actions(pb.LegalActionsRequest(sealed_state=token))
    assert info.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert info.value.reason == "STATE_SEALING_DISABLED"
    assert "plain" in info.value.message


def test_key_configuration_errors() -> None:
    assert parse_keys("a:" + base64.b64encode(bytes(32)).decode() + " # comment\n")[0][0] == "a"
    line = new_key_line("prod-2026")
    assert Keyring(parse_keys(line)).sealing_key_id == "prod-2026"
    for text in ("nocolon", "a:!!!", "a:" + base64.b64encode(bytes(16)).decode(), ""):
        with pytest.raises(KeyConfigError):
            Keyring(parse_keys(text))
    with pytest.raises(KeyConfigError):
        Keyring([K1, K1])
    assert "bytes" not in repr(Keyring([K1]).keys)


def test_sealed_server_over_the_wire() -> None:
    """A server with keys: tokens out, tokens in, ErrorInfo on a bad token."""
    thread = ServerThread(
        ServerSettings(host="127.0.0.1", port=0, seal_keys=(K1,), require_sealed=True)
    ).start()
    try:
        with grpc.insecure_channel(thread.address) as ch:
            stub = referee_pb2_grpc.RefereeServiceStub(ch)
            first = stub.NewGame(pb.NewGameRequest(config=CONFIG))
            assert first.sealed_state and not first.HasField("state")
            bad = bytearray(first.sealed_state)
            bad[-1] ^= 1
            with pytest.raises(grpc.RpcError) as info:
                stub.LegalActions(pb.LegalActionsRequest(sealed_state=bytes(bad)))
            assert info.value.code() == grpc.StatusCode.INVALID_ARGUMENT
            status = rpc_status.from_call(info.value)  # type: ignore[arg-type]
            assert status is not None
            detail = error_details_pb2.ErrorInfo()
            assert status.details[0].Unpack(detail)
            assert detail.reason == SEAL_INVALID and detail.domain == "referee.v1"
            seats = range(3)
            actions = [
                a
                for s in seats
                for a in stub.LegalActions(
                    pb.LegalActionsRequest(
                        sealed_state=first.sealed_state,
                        actor=common_pb2.Actor(seat=s, credential=first.seat_credentials[s]),
                    )
                ).actions
            ]
            action = actions[0]
            action.actor.credential = first.seat_credentials[action.actor.seat]
            reply = stub.ApplyAction(
                pb.ApplyActionRequest(sealed_state=first.sealed_state, action=action)
            )
            assert reply.verdict == common_pb2.VERDICT_ACCEPTED and reply.sealed_state
    finally:
        thread.stop()


def test_require_sealed_guards_each_seat_with_its_credential() -> None:
    """With --require-sealed, a seat's view, legal actions and actions need its credential;
    the public view needs none (docs/trust.md)."""
    strict = sealed_referee(K1, require=True)
    first = strict.new_game(pb.NewGameRequest(config=CONFIG))
    creds = list(first.seat_credentials)
    assert len(creds) == 3 and len(set(creds)) == 3 and first.table_credential
    token = first.sealed_state
    turn = pb.GameState.FromString(Keyring([K1], strict=True).open(token)).earl_of_coventry.turn
    other = (turn + 1) % 3

    def denied(call: object) -> None:
        with pytest.raises(RequestError) as info:
            call()  # type: ignore[operator]
        assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert info.value.reason == "SEAT_CREDENTIAL_INVALID"

    # Views: own credential opens own seat only; public needs none.
    own = common_pb2.Viewer(seat=turn, credential=creds[turn])
    assert strict.view_state(pb.ViewStateRequest(sealed_state=token, viewer=own)).view
    denied(
        lambda: strict.view_state(
            pb.ViewStateRequest(
                sealed_state=token, viewer=common_pb2.Viewer(seat=other, credential=creds[turn])
            )
        )
    )
    denied(
        lambda: strict.view_state(
            pb.ViewStateRequest(sealed_state=token, viewer=common_pb2.Viewer(seat=other))
        )
    )
    public = common_pb2.Viewer(public=common_pb2.PublicViewer())
    assert strict.view_state(pb.ViewStateRequest(sealed_state=token, viewer=public)).view
    # Legal actions and actions.
    actor = common_pb2.Actor(seat=turn, credential=creds[turn])
    actions = strict.legal_actions(pb.LegalActionsRequest(sealed_state=token, actor=actor)).actions
    assert actions
    denied(
        lambda: strict.legal_actions(
            pb.LegalActionsRequest(sealed_state=token, actor=common_pb2.Actor(seat=turn))
        )
    )
    with pytest.raises(RequestError) as no_actor:
        strict.legal_actions(pb.LegalActionsRequest(sealed_state=token))
    # A stable reason to program against, beside the field at fault (docs/api.md).
    assert no_actor.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert no_actor.value.reason == "ACTOR_REQUIRED"
    assert no_actor.value.bad_request is not None
    assert [v.field for v in no_actor.value.bad_request.field_violations] == ["actor"]
    action = actions[0]
    stolen = pb.Action()
    stolen.CopyFrom(action)
    stolen.actor.credential = creds[other]
    denied(lambda: strict.apply_action(pb.ApplyActionRequest(sealed_state=token, action=stolen)))
    action.actor.credential = creds[turn]
    reply = strict.apply_action(
        pb.ApplyActionRequest(sealed_state=token, action=action, views=[own])
    )
    assert reply.verdict == common_pb2.VERDICT_ACCEPTED
    denied(
        lambda: strict.apply_action(
            pb.ApplyActionRequest(
                sealed_state=token, action=action, views=[common_pb2.Viewer(seat=other)]
            )
        )
    )
    # The credentials of one game do not open another.
    second = strict.new_game(pb.NewGameRequest(config=CONFIG))
    assert second.seat_credentials[turn] != creds[turn]


def test_a_refused_credential_says_whether_it_was_missing_or_not_this_seats() -> None:
    """The refusal of a seat's credential tells what to do: a missing one names the
    field of NewGame's answer to send; a wrong one names its causes, a sealing key
    removed too early among them (docs/trust.md, Keys and rotation)."""
    old = sealed_referee(K1, require=True)
    first = old.new_game(pb.NewGameRequest(config=CONFIG))
    creds = list(first.seat_credentials)
    turn = pb.GameState.FromString(Keyring([K1], strict=True).open(first.sealed_state))
    seat = turn.earl_of_coventry.turn

    def refusal(referee: Referee, token: bytes, credential: bytes) -> str:
        viewer = common_pb2.Viewer(seat=seat, credential=credential)
        with pytest.raises(RequestError) as info:
            referee.view_state(pb.ViewStateRequest(sealed_state=token, viewer=viewer))
        assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
        assert info.value.reason == "SEAT_CREDENTIAL_INVALID"
        return info.value.message

    missing = refusal(old, first.sealed_state, b"")
    assert missing.startswith("viewer.credential is missing")
    assert f"seat_credentials[{seat}]" in missing
    another = refusal(old, first.sealed_state, creds[(seat + 1) % 3])
    assert another.startswith(f"viewer.credential is not the credential of seat {seat}")
    # The rotation: the game's next token is sealed with k2, then k1 is removed too early.
    rotated = sealed_referee(K2, K1, require=True)
    actor = common_pb2.Actor(seat=seat, credential=creds[seat])
    action = rotated.legal_actions(
        pb.LegalActionsRequest(sealed_state=first.sealed_state, actor=actor)
    ).actions[0]
    action.actor.credential = creds[seat]
    token = rotated.apply_action(
        pb.ApplyActionRequest(sealed_state=first.sealed_state, action=action)
    ).sealed_state
    retired = sealed_referee(K2, require=True)
    public = common_pb2.Viewer(public=common_pb2.PublicViewer())
    assert retired.view_state(pb.ViewStateRequest(sealed_state=token, viewer=public)).view
    assert "a sealing key this server no longer holds" in refusal(retired, token, creds[seat])


def test_require_sealed_guards_the_table_not_the_spectators() -> None:
    """The table's actions need the table credential (checked before the rules: here the
    round has not ended, so the rules then reject it); a spectator has no credential and
    needs none (docs/trust.md)."""
    from referee.v1 import ecarte_pb2 as epb

    strict = sealed_referee(K1, require=True)
    first = strict.new_game(pb.NewGameRequest(config=CONFIG))
    table = common_pb2.Actor(table=common_pb2.TableActor())
    next_round = eoc.EarlOfCoventryAction(next_round=eoc.EarlOfCoventryNextRound())
    action = pb.Action(actor=table, earl_of_coventry=next_round)
    request = pb.ApplyActionRequest(sealed_state=first.sealed_state, action=action)
    with pytest.raises(RequestError) as info:
        strict.apply_action(request)
    assert info.value.code == grpc.StatusCode.PERMISSION_DENIED
    assert "credential of the table" in info.value.message
    request.action.actor.credential = first.table_credential
    assert strict.apply_action(request).verdict == common_pb2.VERDICT_REJECTED

    gallery = pb.GameConfig(ecarte=epb.EcarteConfig(gallery=True))
    ecarte = strict.new_game(pb.NewGameRequest(config=gallery))
    wager = pb.Action(
        actor=common_pb2.Actor(spectator="ann"),
        ecarte=epb.EcarteAction(wager=epb.EcartePlaceWager(seat=0, amount=1)),
    )
    reply = strict.apply_action(
        pb.ApplyActionRequest(sealed_state=ecarte.sealed_state, action=wager)
    )
    assert reply.verdict == common_pb2.VERDICT_ACCEPTED


@pytest.mark.parametrize("strict", [False, True])
def test_tokens_follow_the_documented_format(strict: bool) -> None:
    """docs/trust.md, format 3, checked with AES-GCM directly: a token the keyring seals
    opens by hand (u32 length, the state, zeros to the padded length), and one made by
    hand opens in the keyring (tokens sealed by one release open in the next). A token
    of format 2 (the plaintext the state alone, before padding) still opens. The policy
    byte is 1 under --require-sealed, else 0."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key_id, material = K1
    ring = Keyring([K1], strict=strict)
    header = b"RS" + bytes([3, int(strict), len(key_id)]) + key_id.encode()
    token = ring.seal(b"state bytes", 20)
    assert token.startswith(header)
    assert len(token) == len(header) + 12 + 4 + 20 + 16  # nonce, length, padded, tag
    nonce = token[len(header) : len(header) + 12]
    plaintext = AESGCM(material).decrypt(nonce, token[len(header) + 12 :], header)
    assert plaintext == (11).to_bytes(4, "big") + b"state bytes" + bytes(9)
    assert ring.open(token) == b"state bytes"
    by_hand = (7).to_bytes(4, "big") + b"by hand" + bytes(3)
    made = header + bytes(12) + AESGCM(material).encrypt(bytes(12), by_hand, header)
    assert ring.open(made) == b"by hand"
    old = b"RS" + bytes([2, int(strict), len(key_id)]) + key_id.encode()
    made = old + bytes(12) + AESGCM(material).encrypt(bytes(12), b"format 2", old)
    assert ring.open(made) == b"format 2"


@pytest.mark.parametrize(
    "plaintext",
    [b"", b"\x00\x00\x00", (9).to_bytes(4, "big") + b"short", (1).to_bytes(4, "big") + b"xy"],
    ids=["empty", "no-length", "state-cut", "padding-not-zero"],
)
def test_a_format_3_plaintext_that_is_not_a_frame_is_refused(plaintext: bytes) -> None:
    """Authenticated, so only a key's holder could make one, but a frame that does not
    add up (no length, a state shorter than its length, padding that is not zeros) is
    refused as not holding a state, never guessed at."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key_id, material = K1
    header = b"RS" + bytes([3, 0, len(key_id)]) + key_id.encode()
    token = header + bytes(12) + AESGCM(material).encrypt(bytes(12), plaintext, header)
    with pytest.raises(SealError) as info:
        Keyring([K1]).open(token)
    assert info.value.reason == SEAL_INVALID


def test_format_2_is_written_only_when_asked_for_and_read_always() -> None:
    """--seal-format 2, for the first step of a rolling upgrade from a release that reads
    format 2 only: its tokens are the state alone (unpadded), and a server writing
    format 3 opens them; format 3's tokens open there too. No other format is written."""
    old = Keyring([K1], write_format=2)
    token = old.seal(b"state bytes", 20)
    assert token[2] == 2 and len(token) == 5 + len(K1[0]) + 12 + len(b"state bytes") + 16
    assert Keyring([K1]).open(token) == b"state bytes"
    assert old.open(Keyring([K1]).seal(b"new", 9)) == b"new"
    assert old.with_policy(True).seal(b"x")[2:4] == bytes([2, 1])
    with pytest.raises(KeyConfigError):
        Keyring([K1], write_format=4)


def test_a_padded_length_shorter_than_the_state_is_a_bug() -> None:
    with pytest.raises(ValueError):
        Keyring([K1]).seal(b"state bytes", 5)


PUBLIC = common_pb2.Viewer(public=common_pb2.PublicViewer())


def test_a_token_opens_only_on_a_server_of_its_policy() -> None:
    """A --require-sealed server's tokens do not open on a server without it holding the
    same keys (which would show every hand: it checks no credential), nor do that
    server's tokens open on the strict one (their game's seed may have been chosen by
    its creator). Refused STATE_SEAL_POLICY_MISMATCH, saying why; the policy byte is
    authenticated, so flipping it does not verify."""
    strict, lenient = sealed_referee(K1, require=True), sealed_referee(K1)
    strict_token = strict.new_game(pb.NewGameRequest(config=CONFIG)).sealed_state
    lenient_token = lenient.new_game(pb.NewGameRequest(config=CONFIG)).sealed_state
    assert (strict_token[3], lenient_token[3]) == (1, 0)
    for server, token, says in (
        (lenient, strict_token, "made by a server with --require-sealed"),
        (strict, lenient_token, "made by a server without --require-sealed"),
    ):
        with pytest.raises(RequestError) as err:
            server.view_state(pb.ViewStateRequest(sealed_state=token, viewer=PUBLIC))
        assert err.value.reason == SEAL_POLICY and says in err.value.message
        assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    flipped = bytearray(strict_token)
    flipped[3] = 0
    with pytest.raises(RequestError) as err:
        lenient.view_state(pb.ViewStateRequest(sealed_state=bytes(flipped), viewer=PUBLIC))
    assert err.value.reason == SEAL_INVALID
    # Each opens its own.
    assert strict.view_state(pb.ViewStateRequest(sealed_state=strict_token, viewer=PUBLIC)).view
    assert lenient.view_state(pb.ViewStateRequest(sealed_state=lenient_token, viewer=PUBLIC)).view


def test_the_shortest_token_and_one_byte_less() -> None:
    """The shortest a token can be: header, nonce and tag, no plaintext (verifies, but
    holds no frame: refused as not holding a state). One byte less is malformed. The
    shortest the keyring seals, an empty state (its 4-byte length only), opens; its last
    byte altered does not verify."""
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    key_id, material = K1
    ring = Keyring([K1])
    header = b"RS" + bytes([3, 0, len(key_id)]) + key_id.encode()
    shortest = header + bytes(12) + AESGCM(material).encrypt(bytes(12), b"", header)
    token = ring.seal(b"")
    assert ring.open(token) == b"" and len(token) == len(shortest) + 4
    altered = token[:-1] + bytes([token[-1] ^ 1])
    for bad, reason in (
        (shortest, SEAL_INVALID),
        (shortest[:-1], SEAL_MALFORMED),
        (altered, SEAL_INVALID),
    ):
        with pytest.raises(SealError) as info:
            ring.open(bad)
        assert info.value.reason == reason


@pytest.mark.parametrize("length", [1, 32])
def test_key_ids_of_one_to_32_characters_seal_and_open(length: int) -> None:
    ring = Keyring([("k" * length, bytes(32))])
    assert ring.open(ring.seal(b"x")) == b"x"


@pytest.mark.parametrize("length", [0, 33])
def test_a_token_naming_a_key_id_of_0_or_33_bytes_is_malformed(length: int) -> None:
    ring = Keyring([("k" * 32, bytes(32))])
    token = b"RS\x02\x00" + bytes([length]) + b"k" * length + bytes(12 + 16 + 8)
    with pytest.raises(SealError) as info:
        ring.open(token)
    assert info.value.reason == SEAL_MALFORMED


def test_the_format_refused_is_named() -> None:
    ring = Keyring([K1])
    token = bytearray(ring.seal(b"x"))
    token[2] = 7
    with pytest.raises(SealError) as info:
        ring.open(bytes(token))
    assert info.value.reason == SEAL_VERSION and "token format 7" in info.value.message


def test_credentials_are_16_bytes_and_stable_across_releases() -> None:
    """docs/trust.md: 16-byte HMACs. The values are pinned: a credential handed out
    before an upgrade (or by another replica's release) must still be accepted."""
    from referee.sealing import TABLE_SEAT, check_credential, credential
    from referee.seeds import commitment

    ring = Keyring([K1])
    game = commitment(bytes(32))
    seat0, table = credential(ring, game, 0), credential(ring, game, TABLE_SEAT)
    assert seat0.hex() == "1bf77dffcf41a5e0b30f4137ee955b69"
    assert table.hex() == "63f65cfe66843d7352235a0621571b4b"
    assert check_credential(ring, game, 0, seat0)
    assert not check_credential(ring, game, 1, seat0)
    assert not check_credential(ring, game, 0, seat0 + b"\0")


def test_key_lines_must_be_strict_base64_with_one_colon() -> None:
    """Characters outside base64 are refused, not skipped (a 32-byte key with a stray
    character would otherwise load); a second colon is a configuration error, not a
    crash."""
    good = base64.b64encode(bytes(range(32))).decode()
    assert parse_keys(f"a:{good}") == [("a", bytes(range(32)))]
    for text in (f"a:{good[:10]}!{good[10:]}", f"a:{good}:x", f"a:{good[:10]} {good[10:]}"):
        with pytest.raises(KeyConfigError):
            parse_keys(text)


def test_with_seat_entropy_the_seed_is_derived_and_new_game_cannot_draw_again() -> None:
    """docs/trust.md, Verifiable deals: on a sealing server the seats' entropy fixes the
    referee's seed (HMAC of the entropy under a secret of the sealing key), so calling
    NewGame again with the same entropy gives the same game, and only changed entropy
    (which its seat can see) gives another. Without entropy, or without keys, the seed
    is drawn at random."""
    import hashlib
    import hmac

    entropy = [os.urandom(32), b"", os.urandom(16)]
    strict = sealed_referee(K1, require=True)
    first = strict.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=entropy))
    again = strict.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=entropy))
    assert first.seed_commitment == again.seed_commitment
    assert list(first.seat_credentials) == list(again.seat_credentials)
    ring = Keyring([K1], strict=True)
    state = pb.GameState.FromString(ring.open(first.sealed_state))
    assert state == pb.GameState.FromString(ring.open(again.sealed_state))
    # The documented derivation, by hand: the policy byte (1: strict) is in it.
    root = hmac.new(K1[1], b"referee-game-seed-v1", hashlib.sha256).digest()
    message = b"referee-game-seed-v2" + b"\x01" + len(entropy).to_bytes(4, "big")
    message += b"".join(len(e).to_bytes(4, "big") + e for e in entropy)
    assert state.seed == hmac.new(root, message, hashlib.sha256).digest()
    # A server of the other policy holding the same key deals another game, and its
    # credentials open nothing of this one (a red team's finding: they did).
    lenient = sealed_referee(K1)
    elsewhere = lenient.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=entropy))
    assert elsewhere.seed_commitment != first.seed_commitment
    with pytest.raises(RequestError) as refused:
        strict.view_state(
            pb.ViewStateRequest(
                sealed_state=first.sealed_state,
                viewer=common_pb2.Viewer(seat=1, credential=elsewhere.seat_credentials[1]),
            )
        )
    assert refused.value.code == grpc.StatusCode.PERMISSION_DENIED
    # Any change of the entropy, or another key, is another deal.
    other = [entropy[0], b"", entropy[2][:-1]]
    changed = strict.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=other))
    assert changed.seed_commitment != first.seed_commitment
    rekeyed = sealed_referee(K2, require=True)
    assert (
        rekeyed.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=entropy)).seed_commitment
        != first.seed_commitment
    )
    # No entropy, or no keys: drawn at random every time.
    for referee, request in (
        (strict, pb.NewGameRequest(config=CONFIG)),
        (Referee(all_codecs()), pb.NewGameRequest(config=CONFIG, seat_entropy=entropy)),
    ):
        assert (
            referee.new_game(request).seed_commitment != referee.new_game(request).seed_commitment
        )


def test_a_trailing_empty_entropy_entry_is_refused() -> None:
    """One list, one deal: trailing empty entries would let the caller of NewGame make
    several deals of the seats' one entropy. Refused at NewGame, and so in Replay (a
    log with one, which no game of this referee has, does not replay: referee verify
    does not call it OK) and in states."""
    for referee in (sealed_referee(K1, require=True), Referee(all_codecs())):
        with pytest.raises(RequestError) as err:
            referee.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=[b"a", b""]))
        assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
        assert "seat_entropy[1]" in err.value.message and "trailing" in err.value.message
        referee.new_game(pb.NewGameRequest(config=CONFIG, seat_entropy=[b"", b"a"]))
    plain = Referee(all_codecs())
    seed = bytes(range(32))
    with pytest.raises(RequestError) as err:
        plain.replay(pb.ReplayRequest(config=CONFIG, seed=seed, seat_entropy=[b"a", b""]))
    assert err.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "seat_entropy[1]" in err.value.message and "trailing" in err.value.message
    state = plain.new_game(pb.NewGameRequest(config=CONFIG, seed=seed, seat_entropy=[b"a"])).state
    state.seat_entropy.append(b"")
    with pytest.raises(RequestError) as err:
        plain.legal_actions(pb.LegalActionsRequest(state=state))
    assert "state.seat_entropy[1]" in err.value.message and "trailing" in err.value.message


def test_a_plain_state_comes_back_sealed_whatever_the_verdict() -> None:
    """A server with keys but without --require-sealed takes plain states: its answer
    carries the state as a token (docs/trust.md: every response that carries a state
    carries it as sealed_state), for a rejected action as for an accepted one; a
    platform that goes on from Replay's plain final state keeps tokens from then on."""
    referee = sealed_referee(K1)
    state = referee.replay(pb.ReplayRequest(config=CONFIG, seed=bytes(32))).final_state
    good = referee.legal_actions(pb.LegalActionsRequest(state=state)).actions[0]
    bad = pb.Action()
    bad.CopyFrom(good)
    bad.actor.seat = (good.actor.seat + 1) % 3  # not on turn
    accepted = referee.apply_action(pb.ApplyActionRequest(state=state, action=good))
    assert accepted.verdict == common_pb2.VERDICT_ACCEPTED
    assert accepted.sealed_state and not accepted.HasField("state")
    rejected = referee.apply_action(pb.ApplyActionRequest(state=state, action=bad))
    assert rejected.verdict == common_pb2.VERDICT_REJECTED
    assert rejected.sealed_state and not rejected.HasField("state")
    opened = Keyring([K1]).open(rejected.sealed_state)
    assert opened == state.SerializeToString(deterministic=True)
    assert rejected.state_hash == hashlib.sha256(opened).digest()
