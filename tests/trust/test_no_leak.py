"""Views never leak (docs/trust.md): two states that differ only in what a viewer may not
see give byte-identical views and event views for that viewer, through the service.
Earl of Coventry's open hands (C-VAR-6) is the one exception, tested as such."""

from __future__ import annotations

import random
from collections.abc import Callable

from hypothesis import assume, given
from hypothesis import strategies as st

from referee.cards import RANK_MASKS, card_list
from referee.codec import all_codecs
from referee.codec.earl_of_coventry import CODEC
from referee.games.base import InvalidInput
from referee.games.earl_of_coventry.calls import CallStyle
from referee.games.earl_of_coventry.rules import RULES
from referee.games.earl_of_coventry.state import EarlConfig, EarlState, Phase, Scoring
from referee.service import Referee
from referee.v1 import common_pb2
from referee.v1 import referee_pb2 as pb

REFEREE = Referee(all_codecs())
SEED = bytes(range(7, 39))


def reachable(config: EarlConfig, rng: random.Random, steps: int) -> EarlState:
    state, _ = RULES.new_game(config, SEED)
    for _ in range(steps):
        legal = RULES.legal_actions(state, None)
        if not legal or state.phase is not Phase.PLAYING:
            break
        state = RULES.apply(state, rng.choice(legal)).state
    return state


def to_proto(state: EarlState) -> pb.GameState:
    msg = pb.GameState(rules_version=RULES.rules_version, seed=SEED, version=7)
    CODEC.encode_state(state, msg)
    return msg


def with_hands(state: EarlState, hands: list[int]) -> EarlState | None:
    other = state.clone()
    other.hands = tuple(hands)
    try:
        RULES.validate(other)
    except InvalidInput:
        return None
    return other


def shuffled_hidden(
    state: EarlState, hidden_seats: list[int], rng: random.Random, same_ranks: bool
) -> EarlState | None:
    """``state`` with the cards of ``hidden_seats`` dealt anew among them, each keeping its
    count (and, with ``same_ranks``, its ranks: only suits move)."""
    hands = list(state.hands)
    groups = RANK_MASKS if same_ranks else ((1 << 52) - 1,)
    for group in groups:
        pool = [c for s in hidden_seats for c in card_list(hands[s] & group)]
        rng.shuffle(pool)
        for s in hidden_seats:
            k = (hands[s] & group).bit_count()
            hands[s] &= ~group
            for c in pool[:k]:
                hands[s] |= 1 << c
            pool = pool[k:]
    return with_hands(state, hands)


def view_bytes(state: EarlState, viewer: common_pb2.Viewer) -> bytes:
    reply = REFEREE.view_state(pb.ViewStateRequest(state=to_proto(state), viewer=viewer))
    return reply.view.SerializeToString(deterministic=True)


configs = st.builds(
    EarlConfig,
    seats=st.integers(2, 13),
    call_style=st.sampled_from([CallStyle.EARL, CallStyle.SNIP_SNAP_SNORUM, CallStyle.SILENT]),
    scoring=st.sampled_from(list(Scoring)),
    penalty_earl=st.booleans(),
    holding_allowed=st.booleans(),
)


@given(config=configs, choices=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_a_seat_view_does_not_depend_on_other_hands(
    config: EarlConfig, choices: int, steps: int
) -> None:
    rng = random.Random(choices)
    state = reachable(config, rng, steps)
    viewer_seat = rng.randrange(config.seats)
    others = [s for s in range(config.seats) if s != viewer_seat]
    twin = shuffled_hidden(state, others, rng, same_ranks=False)
    assume(twin is not None and twin.hands != state.hands)
    assert twin is not None
    for viewer in (
        common_pb2.Viewer(seat=viewer_seat),
        common_pb2.Viewer(spectator="gallery"),
        common_pb2.Viewer(public=common_pb2.PublicViewer()),
    ):
        assert view_bytes(state, viewer) == view_bytes(twin, viewer)


@given(config=configs, choices=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_the_public_view_does_not_depend_on_any_hand(
    config: EarlConfig, choices: int, steps: int
) -> None:
    rng = random.Random(choices)
    state = reachable(config, rng, steps)
    twin = shuffled_hidden(state, list(range(config.seats)), rng, same_ranks=False)
    assume(twin is not None and twin.hands != state.hands)
    assert twin is not None
    public = common_pb2.Viewer(public=common_pb2.PublicViewer())
    assert view_bytes(state, public) == view_bytes(twin, public)


@given(config=configs, choices=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_event_views_do_not_depend_on_hidden_cards(
    config: EarlConfig, choices: int, steps: int
) -> None:
    """The seat on turn acts in two states whose other hands differ in suits only (what
    the rules make public about them, the ranks held, is the same): the events and the
    views that seat and the public get back are byte-identical."""
    rng = random.Random(choices)
    state = reachable(config, rng, steps)
    assume(state.phase is Phase.PLAYING)
    actor = state.turn
    others = [s for s in range(config.seats) if s != actor]
    twin = shuffled_hidden(state, others, rng, same_ranks=True)
    assume(twin is not None and twin.hands != state.hands)
    assert twin is not None
    action = pb.Action()
    CODEC.encode_action(rng.choice(RULES.legal_actions(state, None)), action)
    viewers = [common_pb2.Viewer(seat=actor), common_pb2.Viewer(public=common_pb2.PublicViewer())]

    def answer(s: EarlState) -> Callable[[int], bytes]:
        reply = REFEREE.apply_action(
            pb.ApplyActionRequest(state=to_proto(s), action=action, views=viewers)
        )
        events = b"".join(e.SerializeToString(deterministic=True) for e in reply.events)
        views = [v.SerializeToString(deterministic=True) for v in reply.views]
        return lambda i: events if i < 0 else views[i]

    a, b = answer(state), answer(twin)
    assert a(-1) == b(-1)
    assert a(0) == b(0) and a(1) == b(1)


@given(seats=st.integers(2, 13), choices=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_open_hands_is_the_exception(seats: int, choices: int, steps: int) -> None:
    """C-VAR-6: with open hands every viewer sees every hand, so views do change."""
    rng = random.Random(choices)
    state = reachable(EarlConfig(seats=seats, open_hands=True), rng, steps)
    twin = shuffled_hidden(state, list(range(seats)), rng, same_ranks=False)
    assume(twin is not None and twin.hands != state.hands)
    assert twin is not None
    public = common_pb2.Viewer(public=common_pb2.PublicViewer())
    assert view_bytes(state, public) != view_bytes(twin, public)
    view = REFEREE.view_state(pb.ViewStateRequest(state=to_proto(state), viewer=public)).view
    assert all(s.hand_visible for s in view.earl_of_coventry.seats)
