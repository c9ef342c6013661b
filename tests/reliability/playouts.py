"""Realistic games, played in-process through the service's own functions (:class:`Referee`):
the raw material of the mutation fuzzers, the soak's reference and the atheris corpus.

Every state here came out of the referee; every action is one that ``LegalActions``
offered, or (with ``off_script``) such an action bent the way a careless or cheating
client would bend it (another seat, another card, a botched couplet).
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from referee.cards import ECARTE_DECK
from referee.codec import all_codecs
from referee.service import Referee
from referee.v1 import common_pb2, referee_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import ecarte_pb2 as epb
from referee.v1 import referee_pb2 as pb

ACCEPTED = common_pb2.VERDICT_ACCEPTED
REJECTED = common_pb2.VERDICT_REJECTED
PENALIZED = common_pb2.VERDICT_PENALIZED

CUSTOM_TEMPLATES = ["One {rank}", "Two {rank}s", "Three {rank}s", "And the fourth {rank}"]

# Both games, their variants and extremes of their options.
CONFIGS: tuple[pb.GameConfig, ...] = (
    pb.GameConfig(ecarte=epb.EcarteConfig()),
    pb.GameConfig(ecarte=epb.EcarteConfig(target_points=3, stake=1, jeux_de_regle=True)),
    pb.GameConfig(
        ecarte=epb.EcarteConfig(
            packets=epb.ECARTE_PACKETS_TWO_THREE, games_to_win=3, target_points=1, first_dealer=1
        )
    ),
    pb.GameConfig(ecarte=epb.EcarteConfig(seats=3, gallery=True, stake=5, wager_limit=50)),
    pb.GameConfig(ecarte=epb.EcarteConfig(gallery=True, king_multiplier=100, stake=1_000_000)),
    pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig()),
    pb.GameConfig(earl_of_coventry=eoc.EarlOfCoventryConfig(seats=2, first_dealer=1)),
    pb.GameConfig(
        earl_of_coventry=eoc.EarlOfCoventryConfig(
            seats=13,
            penalty_earl=True,
            scoring=eoc.EARL_OF_COVENTRY_SCORING_ELIMINATION,
            starting_counters=3,
        )
    ),
    pb.GameConfig(
        earl_of_coventry=eoc.EarlOfCoventryConfig(
            seats=5,
            call_style=eoc.EARL_OF_COVENTRY_CALL_STYLE_CUSTOM,
            couplet_templates=CUSTOM_TEMPLATES,
            scoring=eoc.EARL_OF_COVENTRY_SCORING_COUNTERS,
            holding_allowed=True,
        )
    ),
    pb.GameConfig(
        earl_of_coventry=eoc.EarlOfCoventryConfig(
            seats=3,
            call_style=eoc.EARL_OF_COVENTRY_CALL_STYLE_SNIP_SNAP_SNORUM,
            open_hands=True,
            penalty_earl=True,
        )
    ),
    pb.GameConfig(
        earl_of_coventry=eoc.EarlOfCoventryConfig(
            seats=7, call_style=eoc.EARL_OF_COVENTRY_CALL_STYLE_SILENT
        )
    ),
)

SPECTATORS = ("ann", "bob")


def seats_of(config: pb.GameConfig) -> int:
    """The number of seats of a configuration (the defaults: 2 for Écarté, 4 for Earl)."""
    if config.WhichOneof("game") == "ecarte":
        return config.ecarte.seats or 2
    return config.earl_of_coventry.seats or 4


def canonical(state: pb.GameState) -> bytes:
    return state.SerializeToString(deterministic=True)


def state_hash(state: pb.GameState) -> bytes:
    """What the service calls the hash of a state: SHA-256 of its canonical bytes."""
    return hashlib.sha256(canonical(state)).digest()


@dataclass
class Step:
    state: pb.GameState  # the state the action was sent with
    action: pb.Action
    reply: pb.ApplyActionResponse
    legal: list[pb.Action]  # what LegalActions offered in ``state``


@dataclass
class Game:
    config: pb.GameConfig
    seed: bytes
    first: pb.NewGameResponse
    steps: list[Step] = field(default_factory=list)

    @property
    def game_id(self) -> str:
        return str(self.config.WhichOneof("game"))

    def states(self) -> Iterator[pb.GameState]:
        yield self.first.state
        for s in self.steps:
            yield s.reply.state


_REFEREE: Referee | None = None


def referee() -> Referee:
    """One in-process referee (plain mode) for every playout."""
    global _REFEREE
    if _REFEREE is None:
        _REFEREE = Referee(all_codecs())
    return _REFEREE


def bend(action: pb.Action, state: pb.GameState, rng: random.Random) -> pb.Action:
    """An action as a careless or cheating client might send it instead of ``action``."""
    bent = pb.Action()
    bent.CopyFrom(action)
    game = state.WhichOneof("game")
    seats = len(getattr(state, str(game)).seats)
    choice = rng.randrange(4)
    if choice == 0 and bent.actor.WhichOneof("kind") == "seat":
        bent.actor.seat = (bent.actor.seat + rng.randrange(1, seats)) % seats
    elif choice == 1 and game == "earl_of_coventry" and bent.earl_of_coventry.HasField("play"):
        bent.earl_of_coventry.play.call = rng.choice(["", "Snip!", bent.earl_of_coventry.play.call])
    elif choice == 2:  # any card of the game's pack (most are not in hand, or not playable)
        card = rng.choice(ECARTE_DECK) if game == "ecarte" else rng.randrange(52)
        target = bent.ecarte if game == "ecarte" else bent.earl_of_coventry
        target.play.card.suit = card // 13 + 1  # type: ignore[assignment]
        target.play.card.rank = card % 13 + 1  # type: ignore[assignment]
    elif game == "earl_of_coventry":
        getattr(bent.earl_of_coventry, "pass").SetInParent()
    else:
        bent.ecarte.refuse.SetInParent()
    return bent


def _kind(action: pb.Action) -> str:
    game = action.WhichOneof("game")
    return str(getattr(action, str(game)).WhichOneof("kind"))


def pick(legal: list[pb.Action], rng: random.Random) -> pb.Action:
    """A kind of action first, then one of that kind: exchanges, proposals and passes
    come up as often as plays."""
    kinds = sorted({_kind(a) for a in legal})
    kind = rng.choice(kinds)
    return rng.choice([a for a in legal if _kind(a) == kind])


def playout(
    config: pb.GameConfig,
    seed: bytes,
    rng: random.Random,
    max_steps: int = 150,
    off_script: float = 0.15,
) -> Game:
    """A game from ``NewGame``: the seat on turn (or the table, or a spectator placing a
    wager) picks one of ``LegalActions`` at random; with probability ``off_script`` the
    action is bent first (then usually rejected or penalized)."""
    ref = referee()
    first = ref.new_game(pb.NewGameRequest(config=config, seed=seed))
    game = Game(config, seed, first)
    state = first.state
    gallery = config.WhichOneof("game") == "ecarte" and config.ecarte.gallery
    for _ in range(max_steps):
        request = pb.LegalActionsRequest(state=state)
        if gallery and rng.random() < 0.2:
            request.actor.spectator = rng.choice(SPECTATORS)
        legal = list(ref.legal_actions(request).actions)
        if not legal and request.HasField("actor"):
            legal = list(ref.legal_actions(pb.LegalActionsRequest(state=state)).actions)
        if not legal:
            break
        action = pick(legal, rng)
        if rng.random() < off_script:
            action = bend(action, state, rng)
        reply = ref.apply_action(pb.ApplyActionRequest(state=state, action=action))
        game.steps.append(Step(state, action, reply, legal))
        state = reply.state
    return game


def games(count: int, seed: int = 1, max_steps: int = 150) -> list[Game]:
    """``count`` games over every configuration, reproducible from ``seed``."""
    rng = random.Random(seed)
    return [
        playout(CONFIGS[i % len(CONFIGS)], rng.randbytes(32), rng, max_steps=max_steps)
        for i in range(count)
    ]


def replay_request(game: Game, upto: int | None = None) -> pb.ReplayRequest:
    steps = game.steps if upto is None else game.steps[:upto]
    return pb.ReplayRequest(config=game.config, seed=game.seed, actions=[s.action for s in steps])


def verify_apply(
    request: referee_pb2.ApplyActionRequest, reply: referee_pb2.ApplyActionResponse
) -> None:
    """A whole answer to ApplyAction (plain states): its hash is the SHA-256 of its state;
    a rejection hands back the state sent, anything else is that state's successor
    (version + 1, parent_hash = the hash of the state sent)."""
    sent = pb.GameState()
    sent.CopyFrom(request.state)
    sent.DiscardUnknownFields()
    assert reply.verdict in (ACCEPTED, REJECTED, PENALIZED), reply.verdict
    assert reply.state_hash == state_hash(reply.state), "state_hash is not SHA-256 of the state"
    if reply.verdict == REJECTED:
        assert reply.violations, "a rejection names its violations"
        assert canonical(reply.state) == canonical(sent), "a rejection changed the state"
    else:
        assert reply.state.version == sent.version + 1
        assert reply.state.parent_hash == state_hash(sent)
        assert reply.state.rules_version == sent.rules_version
        assert reply.state.seed == sent.seed


def _sent_state(state: pb.GameState) -> pb.GameState:
    """The state as the server reads it (unknown fields dropped)."""
    copy = pb.GameState()
    copy.CopyFrom(state)
    copy.DiscardUnknownFields()
    return copy


def verify(method: str, request: Any, reply: Any) -> None:
    """An OK answer is a whole answer, consistent with the request."""
    if method == "ApplyAction":
        verify_apply(request, reply)
    elif method == "ViewState":
        sent = _sent_state(request.state)
        assert reply.state_hash == state_hash(sent)
        assert reply.view.version == sent.version
        assert reply.view.rules_version == sent.rules_version
        assert reply.view.seed_commitment == hashlib.sha256(sent.seed).digest()
    elif method == "LegalActions":
        game = request.state.WhichOneof("game")
        assert all(a.WhichOneof("game") == game for a in reply.actions)
    elif method == "NewGame":
        assert reply.state_hash == state_hash(reply.state)
        assert reply.state.version == 0 and not reply.state.parent_hash
        assert len(reply.views) == len(request.views)
        assert reply.seed_commitment == hashlib.sha256(reply.state.seed).digest()
        if request.seed:
            assert reply.state.seed == request.seed
    elif method == "Replay":
        assert [s.index for s in reply.steps] == list(range(len(request.actions)))
        assert reply.final_hash == state_hash(reply.final_state)
        last = reply.steps[-1].state_hash if reply.steps else reply.initial_hash
        assert last == reply.final_hash
    else:
        assert {g.id for g in reply.games} == {"ecarte", "earl_of_coventry"}
