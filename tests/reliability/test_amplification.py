"""What a request costs the server is a small multiple of its size, and a call keeps
nothing of it once answered (in-process Referee, Python's allocations by tracemalloc).

Regressions, each found measuring cost against request size: a state or configuration
of many faults cost a few hundred bytes of memory per byte of request (one violation
object, path and share of the message each, then a prefixed copy of them all), and a
message's unknown fields were kept in the codec caches' keys, a request's worth for as
long as the entry stayed cached."""

from __future__ import annotations

import gc
import os
import tracemalloc
from collections.abc import Callable
from typing import Any

import pytest

from referee.codec import all_codecs
from referee.errors import MAX_FIELD_VIOLATIONS, RequestError
from referee.games.base import InvalidInput
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

from .protofuzz import unknown_field

SEED = bytes(32)
BYTES_PER_BYTE = 20  # the most memory a refused request may cost per byte of it
EARL = pb.GameConfig(earl_of_coventry={"seats": 4})


def refused(call: Callable[[], Any]) -> tuple[RequestError, int]:
    """The error ``call`` raises and the most memory it held at once."""
    gc.collect()
    tracemalloc.start()
    try:
        with pytest.raises(RequestError) as caught:
            call()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return caught.value, peak


def fields(error: RequestError) -> list[str]:
    assert error.bad_request is not None, error.message
    return [v.field for v in error.bad_request.field_violations]


def test_a_state_of_many_faults_costs_little_and_counts_them_all() -> None:
    referee = Referee(all_codecs())
    state = referee.new_game(pb.NewGameRequest(config=EARL, seed=SEED)).state
    state.earl_of_coventry.played = b"\xff" * 300_000  # no card: 300,000 faults, and a repeat
    request = pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=0))
    error, peak = refused(lambda: referee.view_state(request))
    assert "(and 300000 more)" in error.message
    assert len(fields(error)) == MAX_FIELD_VIOLATIONS
    assert peak < BYTES_PER_BYTE * request.ByteSize(), f"{peak / 2**20:.0f} MiB"


def test_a_gallery_of_bad_wagers_costs_little() -> None:
    referee = Referee(all_codecs())
    config = pb.GameConfig(ecarte={"gallery": True})
    state = referee.new_game(pb.NewGameRequest(config=config, seed=SEED)).state
    for _ in range(50_000):  # each a seat the table lacks and an amount below 1
        state.ecarte.wagers.add(spectator="a", seat=5, amount=0)
    request = pb.ViewStateRequest(state=state, viewer=common_pb2.Viewer(seat=0))
    error, peak = refused(lambda: referee.view_state(request))
    assert "(and 99999 more)" in error.message
    assert fields(error)[0] == "state.ecarte.wagers[0].seat"
    # The state's wagers themselves are read (an object each) before they are judged.
    assert peak < 2 * BYTES_PER_BYTE * request.ByteSize(), f"{peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("game", ["earl_of_coventry", "ecarte"])
def test_a_state_of_many_seats_is_read_no_further_than_a_table(game: str) -> None:
    """Regression (the reader of a state's bytes, the compiled build's): the span of every
    seat entry was kept before their number was checked, 64 bytes of memory for an empty
    entry's two."""
    referee = Referee(all_codecs())
    codec: Any = referee.codecs[game]  # both codecs read a state's bytes (decode_state_bytes)
    config = EARL if game == "earl_of_coventry" else pb.GameConfig(ecarte={})
    state = referee.new_game(pb.NewGameRequest(config=config, seed=SEED)).state
    seats = getattr(state, game).seats
    for _ in range(200_000):
        seats.add()
    data = state.SerializeToString(deterministic=True)
    gc.collect()
    tracemalloc.start()
    try:
        with pytest.raises(InvalidInput) as caught:
            codec.decode_state_bytes(data, SEED, "state")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [v.field for v in caught.value.violations] == [f"state.{game}.seats"]
    assert peak < len(data), f"{peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("style", [1, 4])  # the Earl's couplets, custom templates
def test_a_config_of_many_templates_is_refused_before_they_are_read(style: int) -> None:
    referee = Referee(all_codecs())
    config = pb.GameConfig(earl_of_coventry={"seats": 4, "call_style": style})
    config.earl_of_coventry.couplet_templates.extend(["ab"] * 300_000)  # a string object each
    request = pb.NewGameRequest(config=config, seed=SEED)
    error, peak = refused(lambda: referee.new_game(request))
    assert fields(error) == ["config.earl_of_coventry.couplet_templates"]
    # The configuration's serialization is made (its cache key), and nothing per template.
    assert peak < 2 * request.ByteSize(), f"{peak / 2**20:.0f} MiB"


def _with_unknown_field(message: bytes, size: int) -> bytes:
    """``message`` with an unknown field (number 1000) of ``size`` bytes, distinct each time."""
    return message + unknown_field(1000, os.urandom(16) + bytes(size - 16))


def test_unknown_fields_are_not_kept_after_the_call() -> None:
    """Actions and configurations are decoded once per serialized form and remembered
    by it: one with a large unknown field is decoded, but its bytes are not kept."""
    referee = Referee(all_codecs())
    game = referee.new_game(pb.NewGameRequest(config=EARL, seed=SEED))
    action = referee.legal_actions(pb.LegalActionsRequest(state=game.state)).actions[0]
    config = EARL.earl_of_coventry.SerializeToString()
    size = 1 << 20
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for _ in range(8):
            sent = pb.Action.FromString(_with_unknown_field(action.SerializeToString(), size))
            applied = referee.apply_action(pb.ApplyActionRequest(state=game.state, action=sent))
            assert applied.verdict == common_pb2.VERDICT_ACCEPTED
            replayed = referee.replay(pb.ReplayRequest(config=EARL, seed=SEED, actions=[sent]))
            assert replayed.final_hash == applied.state_hash
            new = pb.NewGameRequest(seed=SEED)
            new.config.earl_of_coventry.MergeFromString(_with_unknown_field(config, size))
            assert referee.new_game(new).state_hash == game.state_hash
            del sent, applied, replayed, new
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < size, f"{held / 2**20:.1f} MiB kept after 24 calls of 1 MiB"


@pytest.mark.parametrize("custom", [False, True])
def test_configurations_a_client_makes_up_keep_little_memory(custom: bool) -> None:
    """Regression: each configuration kept a table of its 2,704 plays (13 seats, ~200 KiB)
    for as long as the codecs cached it, 4,096 of them: 800 MiB a worker, for two small
    calls per configuration. The built-in call styles now share one table each; tables of
    custom templates are few."""
    referee = Referee(all_codecs())
    count = 60 if custom else 200
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i in range(count):
            options: dict[str, Any] = {"seats": 13, "scoring": 2, "starting_counters": i + 1}
            if custom:
                options["call_style"] = 4
                options["couplet_templates"] = [f"{i} of {{rank}}", "two", "three", "four"]
            config = pb.GameConfig(earl_of_coventry=options)
            state = referee.new_game(pb.NewGameRequest(config=config, seed=SEED)).state
            assert referee.legal_actions(pb.LegalActionsRequest(state=state)).actions
        gc.collect()
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held < 8 * 2**20, f"{held / 2**20:.1f} MiB held for {count} configurations"
