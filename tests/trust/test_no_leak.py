"""Views never leak (docs/trust.md): two states that differ only in what a viewer may not
see give byte-identical views and event views for that viewer, as the service encodes
them. Earl of Coventry's open hands (C-VAR-6) is the one exception, tested as such.

The twin states are made by moving hidden cards between hands, which the service itself
refuses (a hand may hold only what the seed dealt it), so the views are made with the
service's own view encoding, after the rules' validation without that deal check."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from referee.cards import RANK_MASKS, card_list
from referee.codec import all_codecs
from referee.codec.common import decode_viewer
from referee.codec.earl_of_coventry import CODEC
from referee.games.base import PUBLIC_VIEWER, Actor, ActorKind, InvalidInput
from referee.games.earl_of_coventry.calls import CallStyle
from referee.games.earl_of_coventry.rules import RULES
from referee.games.earl_of_coventry.state import ActionKind as EarlKind
from referee.games.earl_of_coventry.state import EarlAction, EarlConfig, EarlState, Phase, Scoring
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


def with_hands(state: EarlState, hands: list[int]) -> EarlState | None:
    other = state.clone()
    other.hands = tuple(hands)
    try:
        RULES.validate(other, check_deal=False)
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


def view_bytes(state: EarlState, viewer: common_pb2.Viewer, events: Sequence[object] = ()) -> bytes:
    """The view the service encodes for ``viewer`` (with these events)."""
    msg = pb.GameView()
    REFEREE._view(
        CODEC, state, decode_viewer(viewer, "viewer"), msg, seed=SEED, version=7, events=events
    )
    return msg.SerializeToString(deterministic=True)


configs = st.builds(
    EarlConfig,
    seats=st.integers(2, 13),
    call_style=st.sampled_from([CallStyle.EARL, CallStyle.SNIP_SNAP_SNORUM, CallStyle.SILENT]),
    scoring=st.sampled_from(list(Scoring)),
    penalty_earl=st.booleans(),
    holding_allowed=st.booleans(),
)


def a_seat_and_its_twin(
    config: EarlConfig, choices: int, steps: int
) -> tuple[EarlState, int, EarlState]:
    """A reachable state, a seat, and the same state with the other seats' cards dealt
    anew among them (an example where they cannot differ is left out)."""
    rng = random.Random(choices)
    state = reachable(config, rng, steps)
    seat = rng.randrange(config.seats)
    others = [s for s in range(config.seats) if s != seat]
    twin = shuffled_hidden(state, others, rng, same_ranks=False)
    assume(twin is not None and twin.hands != state.hands)
    assert twin is not None
    return state, seat, twin


@given(config=configs, choices=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_a_seat_view_does_not_depend_on_other_hands(
    config: EarlConfig, choices: int, steps: int
) -> None:
    state, viewer_seat, twin = a_seat_and_its_twin(config, choices, steps)
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
    action = rng.choice(RULES.legal_actions(state, None))
    viewers = [common_pb2.Viewer(seat=actor), common_pb2.Viewer(public=common_pb2.PublicViewer())]

    def answer(s: EarlState) -> list[bytes]:
        outcome = RULES.apply(s, action)
        public = pb.ApplyActionResponse()
        CODEC.encode_events(
            RULES.redact_events(outcome.state, outcome.events, PUBLIC_VIEWER), public.events
        )
        return [public.SerializeToString(deterministic=True)] + [
            view_bytes(outcome.state, v, outcome.events) for v in viewers
        ]

    assert answer(state) == answer(twin)


def judged(outcome: object) -> tuple[object, ...]:
    """What a verdict tells its actor: the verdict, each violation (code, rule, message)
    and the penalties."""
    o: Any = outcome
    return (
        o.verdict,
        [(v.code, v.rule_id, v.message) for v in o.violations],
        list(o.penalties),
    )


@given(config=configs, choices=st.integers(0, 2**32), steps=st.integers(0, 60))
def test_a_seats_own_actions_are_judged_alike_whatever_the_others_hold(
    config: EarlConfig, choices: int, steps: int
) -> None:
    """No verdict is a side channel: a seat (on turn or not) that tries every card of the
    pack, with the expected call and a wrong one, passes, or acts for the table, gets the
    same verdict, violations and penalties, and the same legal actions, whether the other
    hands hold one set of cards or another."""
    state, seat, twin = a_seat_and_its_twin(config, choices, steps)
    actor = Actor(ActorKind.SEAT, seat)
    legal = RULES.legal_actions(state, None)
    call = next((a.call for a in legal if a.kind is EarlKind.PLAY), "")
    tried = [EarlAction(actor, EarlKind.PLAY, c, said) for c in range(52) for said in (call, "x")]
    tried += [EarlAction(actor, kind) for kind in EarlKind if kind is not EarlKind.PLAY]
    for action in tried:
        assert judged(RULES.apply(state, action)) == judged(RULES.apply(twin, action)), action
    assert RULES.legal_actions(state, actor) == RULES.legal_actions(twin, actor)


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
    view = pb.GameView.FromString(view_bytes(state, public))
    assert all(s.hand_visible for s in view.earl_of_coventry.seats)


# ---------------------------------------------------------------- Écarté

from referee.codec.ecarte import CODEC as ECARTE_CODEC  # noqa: E402
from referee.games.ecarte.rules import RULES as ECARTE  # noqa: E402
from referee.games.ecarte.state import ActionKind as EcarteKind  # noqa: E402
from referee.games.ecarte.state import (  # noqa: E402
    EcarteAction,
    EcarteConfig,
    EcarteState,
)
from referee.games.ecarte.state import Phase as EcartePhase  # noqa: E402
from referee.games.ecarte.validation import validate as ecarte_validate  # noqa: E402


def ecarte_reachable(config: EcarteConfig, rng: random.Random, steps: int) -> EcarteState:
    state, _ = ECARTE.new_game(config, SEED)
    for _ in range(steps):
        legal = ECARTE.legal_actions(state, None)
        if not legal:
            break
        state = ECARTE.apply(state, rng.choice(legal)).state
    return state


def ecarte_twin(
    state: EcarteState, viewer: int, rng: random.Random, keep: int = 0
) -> EcarteState | None:
    """``state`` with every card ``viewer`` cannot see (other hands, other discards, the
    stock; but not the cards of ``keep``) dealt anew among those places, sizes kept."""
    others = [s for s in range(state.config.seats) if s != viewer]
    hands, discards = list(state.hands), list(state.discards)
    pool = [c for s in others for c in card_list((hands[s] | discards[s]) & ~keep)]
    pool += list(state.stock)
    rng.shuffle(pool)
    for s in others:
        for piles in (hands, discards):
            k = (piles[s] & ~keep).bit_count()
            piles[s] &= keep
            for c in pool[:k]:
                piles[s] |= 1 << c
            pool = pool[k:]
    twin = state.clone()
    twin.hands, twin.discards, twin.stock = tuple(hands), tuple(discards), bytes(pool)
    try:
        ecarte_validate(twin, check_deal=False)
    except InvalidInput:
        return None
    return twin


def ecarte_view(
    state: EcarteState, viewer: common_pb2.Viewer, events: Sequence[object] = ()
) -> bytes:
    msg = pb.GameView()
    REFEREE._view(
        ECARTE_CODEC,
        state,
        decode_viewer(viewer, "viewer"),
        msg,
        seed=SEED,
        version=3,
        events=events,
    )
    return msg.SerializeToString(deterministic=True)


ecarte_configs = st.builds(
    EcarteConfig,
    seats=st.sampled_from([2, 3]),
    gallery=st.booleans(),
    jeux_de_regle=st.booleans(),
    target_points=st.sampled_from([3, 5, 11]),
)


def an_ecarte_seat_and_its_twin(
    config: EcarteConfig, choices: int, steps: int
) -> tuple[EcarteState, int, EcarteState]:
    """A reachable state, a seat, and the same state with every card the seat cannot see
    dealt anew (an example where they cannot differ is left out)."""
    rng = random.Random(choices)
    state = ecarte_reachable(config, rng, steps)
    seat = rng.randrange(config.seats)
    twin = ecarte_twin(state, seat, rng)
    assume(twin is not None and (twin.hands, twin.stock) != (state.hands, state.stock))
    assert twin is not None
    return state, seat, twin


@given(config=ecarte_configs, choices=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_ecarte_views_do_not_depend_on_hidden_cards(
    config: EcarteConfig, choices: int, steps: int
) -> None:
    state, viewer, twin = an_ecarte_seat_and_its_twin(config, choices, steps)
    for v in (
        common_pb2.Viewer(seat=viewer),
        common_pb2.Viewer(spectator="gallery"),
        common_pb2.Viewer(public=common_pb2.PublicViewer()),
    ):
        assert ecarte_view(state, v) == ecarte_view(twin, v)


@given(config=ecarte_configs, choices=st.integers(0, 2**32))
def test_ecarte_an_opponents_exchange_is_not_shown(config: EcarteConfig, choices: int) -> None:
    """An opponent discards and draws: what it discarded and drew stays hidden from the
    other seats and the public, in the events and in the views."""
    rng = random.Random(choices)
    state, _ = ECARTE.new_game(config, SEED)
    discard = None
    for _ in range(60):
        legal = ECARTE.legal_actions(state, None)
        if not legal:
            break
        discards = [a for a in legal if a.kind is EcarteKind.DISCARD]
        if discards and state.phase in (EcartePhase.ELDER_DISCARD, EcartePhase.RESPONDER_DISCARD):
            discard = rng.choice(discards)
            break
        proposals = [a for a in legal if a.kind in (EcarteKind.PROPOSE, EcarteKind.ACCEPT)]
        state = ECARTE.apply(state, rng.choice(proposals or legal)).state
    assume(discard is not None)
    assert discard is not None
    actor = discard.actor.seat
    viewer = next(s for s in range(config.seats) if s != actor)
    keep = sum(1 << c for c in discard.cards)
    twin = ecarte_twin(state, viewer, rng, keep=keep)
    assume(twin is not None and twin.stock != state.stock)
    assert twin is not None

    def answer(s: EcarteState) -> list[bytes]:
        outcome = ECARTE.apply(s, discard)
        public = pb.ApplyActionResponse()
        ECARTE_CODEC.encode_events(
            ECARTE.redact_events(outcome.state, outcome.events, PUBLIC_VIEWER), public.events
        )
        return [public.SerializeToString(deterministic=True)] + [
            ecarte_view(outcome.state, v, outcome.events)
            for v in (common_pb2.Viewer(seat=viewer), common_pb2.Viewer(spectator="gallery"))
        ]

    assert answer(state) == answer(twin)


@given(config=ecarte_configs, choices=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_ecarte_a_seats_own_actions_are_judged_alike_whatever_it_cannot_see(
    config: EcarteConfig, choices: int, steps: int
) -> None:
    """No verdict is a side channel: a seat that plays each of the 32 cards, discards
    each of them alone and its whole hand, proposes, accepts, refuses and announces the
    king gets the same verdict, violations and penalties, and the same legal actions,
    whatever the other hands, the other discards and the stock hold."""
    state, seat, twin = an_ecarte_seat_and_its_twin(config, choices, steps)
    actor = Actor(ActorKind.SEAT, seat)
    pack = sorted({c for h in state.hands for c in card_list(h)} | set(state.stock))
    tried = [EcarteAction(actor, EcarteKind.PLAY, card=c) for c in pack]
    tried += [EcarteAction(actor, EcarteKind.DISCARD, cards=(c,)) for c in pack]
    tried.append(EcarteAction(actor, EcarteKind.DISCARD, cards=tuple(card_list(state.hands[seat]))))
    tried += [
        EcarteAction(actor, kind)
        for kind in (
            EcarteKind.PROPOSE,
            EcarteKind.ACCEPT,
            EcarteKind.REFUSE,
            EcarteKind.ANNOUNCE_KING,
        )
    ]
    for action in tried:
        try:
            mine = judged(ECARTE.apply(state, action))
        except InvalidInput as e:  # malformed (an empty discard): the same error for both
            with pytest.raises(InvalidInput, match=re.escape(str(e))):
                ECARTE.apply(twin, action)
            continue
        assert mine == judged(ECARTE.apply(twin, action)), action
    assert ECARTE.legal_actions(state, actor) == ECARTE.legal_actions(twin, actor)


def test_a_sealed_tokens_length_tells_nothing_of_hidden_cards() -> None:
    """Fresh deals of one configuration that show the same public information (the same
    dealer and seat on turn; a turn-up that is or is not the card of code 0, which
    protobuf leaves out, and is or is not a king, which scores) give tokens of the same
    length, whatever the cards dealt: the plaintext is padded to the length of the state
    with its hidden cards at their widest (trust.md, format 3). Unpadded, a hand's
    varint length gives its highest card away (a red team's finding: seat 0 named the
    band of seat 1's highest card from the token's length alone, in 30 games of 30)."""
    from referee.sealing import Keyring
    from referee.v1 import earl_of_coventry_pb2, ecarte_pb2

    referee = Referee(all_codecs(), keyring=Keyring([("k1", bytes(32))]), require_sealed=True)
    public = common_pb2.Viewer(public=common_pb2.PublicViewer())
    rng = random.Random(11)
    for config, seats in (
        (pb.GameConfig(ecarte=ecarte_pb2.EcarteConfig()), 2),
        (pb.GameConfig(earl_of_coventry=earl_of_coventry_pb2.EarlOfCoventryConfig(seats=3)), 3),
    ):
        lengths: dict[tuple[int, int, bool, tuple[int, ...]], list[int]] = {}
        for _ in range(60):
            entropy = [rng.randbytes(32) for _ in range(seats)]
            started = referee.new_game(
                pb.NewGameRequest(config=config, seat_entropy=entropy, views=[public])
            )
            view = getattr(started.views[0], started.views[0].WhichOneof("game"))
            turn_up = view.turn_up if config.HasField("ecarte") else None
            zero = turn_up is not None and (turn_up.suit, turn_up.rank) == (1, 1)  # AC
            points = tuple(getattr(sv, "points", 0) for sv in view.seats)  # a turned-up king
            key = (view.dealer, view.turn, zero, points)
            lengths.setdefault(key, []).append(len(started.sealed_state))
        assert all(len(set(v)) == 1 for v in lengths.values()), (config, lengths)
        assert max(len(v) for v in lengths.values()) >= 10  # games alike in public
