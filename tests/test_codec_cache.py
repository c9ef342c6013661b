"""The codec caches are bounded: inputs are the clients', so none grows past CACHE_LIMIT."""

from __future__ import annotations

from referee.codec import all_codecs
from referee.codec.common import CACHE_LIMIT, remember
from referee.v1 import earl_of_coventry_pb2 as eoc


def test_remember_stores_and_empties_a_full_cache_first() -> None:
    cache: dict[int, str] = {}
    for i in range(CACHE_LIMIT):
        assert remember(cache, i, str(i)) == str(i)
    assert len(cache) == CACHE_LIMIT and cache[7] == "7"
    assert remember(cache, -1, "new") == "new"
    assert cache == {-1: "new"}


def test_many_distinct_configurations_keep_the_config_cache_bounded() -> None:
    codec = next(c for c in all_codecs() if c.game_id == "earl_of_coventry")
    decoder = codec._configs  # type: ignore[attr-defined]
    for counters in range(1, CACHE_LIMIT + 10):
        decoder.config(eoc.EarlOfCoventryConfig(seats=4, starting_counters=counters), "config")
    assert 1 <= len(decoder._configs) <= CACHE_LIMIT


def test_ecarte_actions_are_remembered_and_still_checked_against_each_state() -> None:
    """A remembered action is checked against the state it comes with, as a fresh decode
    would be: a seat (or a wager's seat) the table does not have is refused."""
    import pytest

    from referee.games.base import InvalidInput
    from referee.service import Referee
    from referee.v1 import ecarte_pb2 as epb
    from referee.v1 import referee_pb2 as pb

    referee = Referee(all_codecs())
    codec = referee.codecs["ecarte"]
    seed = bytes(range(32))

    def state(seats: int) -> object:
        msg = referee.new_game(
            pb.NewGameRequest(config=pb.GameConfig(ecarte={"seats": seats}), seed=seed)
        ).state
        return codec.decode_state(msg, seed, "state")

    two, three = state(2), state(3)
    seat2 = pb.Action(actor={"seat": 2}, ecarte=epb.EcarteAction(propose={}))
    wager = pb.Action(actor={"spectator": "ann"}, ecarte={"wager": {"seat": 2, "amount": 1}})
    for action in (seat2, wager):
        first = codec.decode_action(action, three, "action")  # decoded, remembered
        assert codec.decode_action(action, three, "action") is first  # remembered
        with pytest.raises(InvalidInput) as e:
            codec.decode_action(action, two, "action")
        field = "action.actor.seat" if action is seat2 else "action.ecarte.wager.seat"
        assert [v.field for v in e.value.violations] == [field]
    for amount in range(CACHE_LIMIT + 10):  # distinct actions: the cache stays bounded
        codec.decode_action(
            pb.Action(actor={"spectator": "ann"}, ecarte={"wager": {"seat": 0, "amount": amount}}),
            three,
            "action",
        )
    assert 1 <= len(codec._decoded) <= CACHE_LIMIT  # type: ignore[attr-defined]
