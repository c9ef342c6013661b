"""Differential test of the protobuf edge: the service and the Écarté codec against the model.

``test_ecarte_differential.py`` compares the rules objects with the independent model
(``ecarte_model.py``); this test does the same through the service layer, in process
(:class:`referee.service.Referee` on protobuf messages, no gRPC server), so that the
codecs (the incremental encoding of the next state, the sparse views and scoreboard,
reading states from their bytes) are checked against the rulebook too. Random
configurations (every option, reusing ``configs``) and seeds; ``NewGame`` with the
seed, then a loop of ``ApplyAction`` with the state of the previous answer (sent
back as a client would: parsed again from its bytes), an action chosen by the
model-side generators (mostly legal, sometimes illegal, sometimes malformed; a few
malformations only the wire can express) and views for every seat, two spectators
and the public. A third of the matches have seats' entropy (the model deals from
the seed that docs/api.md "Seeds" derives). Each request's state is read by the
codec from its bytes (as the compiled build always does) or, interpreted, through
the message's attributes, at random. At every step the test compares, with its own
decoding written from the ``.proto`` files and ``docs/api.md`` (not from
``referee/codec/``):

- the verdict, the violation codes and rule ids, the penalties (none in Écarté)
  with the model's answer; a malformed action is ``INVALID_ARGUMENT``
  (:class:`referee.errors.RequestError`) and advances nothing;
- the next ``GameState``: envelope (rules version, version + 1 when accepted and
  unchanged bytes when rejected, ``parent_hash`` = the hash of the state sent,
  the seed and entropy) and every field of ``EcarteState`` decoded from card codes
  and bitsets, against the model's state projection;
- ``state_hash`` = SHA-256 of the state's deterministic serialization, and the
  serialization canonical (parsing and serializing again gives the same bytes);
- every view, against what the rulebook lets its viewer see, derived from the
  model: a seat its own hand and discards, of the others the counts (E-EXCH-8);
  spectators and the public only what is public (E-VAR-4); the stock as a count;
  the turn-up, the tricks with leaders and winners, scores, wagers, the ledger;
  the seed only as its commitment until the match is over (SHUF-5);
- the events: the response's as the public sees them, each view's as its viewer
  may see them (D-20: ``dealt`` hands and ``exchanged`` cards to their owner only);
- the scoreboard;
- now and then ``LegalActions`` for every actor (two spectators, the table, and no
  actor, D-19), whose listed actions are then sent back unchanged when the model
  picks one of them; and ``ViewState`` for every viewer (the same views as the last
  answer's, without events);
- at the end of the match, ``Replay`` of every well-formed action sent gives the
  same verdicts, every step's hash and public events, the final state byte for byte
  and its hash, and a ``GameLog`` recording the same.

Two things the wire cannot say are adapted, not skipped: a wager of a negative
amount (``choose_illegal`` makes some) is sent as 0 or as the largest ``uint64``;
and the state's and views' ``turn`` are not compared once the match is over (no
seat is on turn; the contract does not say what the field then holds).

On a difference the assertion message carries the configuration, the seed, the
random-choice seed and the whole action sequence, which reproduces it.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar
from unittest import mock

import grpc
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.codec import all_codecs
from referee.codec import ecarte as ecarte_codec
from referee.errors import RequestError
from referee.service import Referee
from referee.v1 import cards_pb2, common_pb2, ecarte_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc_pb2
from referee.v1 import referee_pb2 as pb
from tests.differential import ecarte_model as model
from tests.differential.test_ecarte_differential import (
    EXCHANGE_WEIGHTS,
    EXTRA_AFTER_END,
    LEGAL_WEIGHTS,
    SPECTATORS,
    actors_of,
    choose_action,
    configs,
    model_projection,
    normal_model,
    seeds,
)
from tests.differential.trust_format import shuffle_seed

REFEREE = Referee(all_codecs())
COMPILED = ecarte_codec.READ_BYTES  # True in the compiled build only
RULES_VERSION = "ecarte/1"
MAX_STEPS = 160  # per match (most end well before)
OUTSIDER = "zed"  # a spectator that never wagers
LEGAL_RATE = 0.2  # how often LegalActions is asked for every actor
VIEW_RATE = 0.15  # how often ViewState is asked for every viewer

# ---------------------------------------------------------------- cards (cards.proto)

SUIT_LETTERS = {1: "C", 2: "D", 3: "H", 4: "S"}
RANK_NAMES = {1: "A", 7: "7", 8: "8", 9: "9", 10: "10", 11: "J", 12: "Q", 13: "K"}
RANK_NUMBERS = {"A": 1, "7": 7, "8": 8, "9": 9, "10": 10, "J": 11, "Q": 12, "K": 13}
SUIT_NUMBERS = {v: k for k, v in SUIT_LETTERS.items()}


def card_msg(card: str) -> cards_pb2.Card:
    """A card in the rulebook notation as a ``Card`` (also a two: ``2C``)."""
    rank = 2 if card[:-1] == "2" else RANK_NUMBERS[card[:-1]]
    return cards_pb2.Card(suit=SUIT_NUMBERS[card[-1]], rank=rank)  # type: ignore[arg-type]


def card_name(msg: cards_pb2.Card) -> str:
    """A ``Card`` in the rulebook notation; one outside the Écarté pack shows as such
    (a difference to report, not a crash)."""
    if msg.rank not in RANK_NAMES or msg.suit not in SUIT_LETTERS:
        return f"<suit {msg.suit} rank {msg.rank}>"
    return RANK_NAMES[msg.rank] + SUIT_LETTERS[msg.suit]


def code_name(code: int) -> str:
    """cards.proto: ``code = 13 * (suit - 1) + (rank - 1)``."""
    suit, rank = divmod(code, 13)
    if rank + 1 not in RANK_NAMES or suit + 1 not in SUIT_LETTERS:
        return f"<code {code}>"
    return RANK_NAMES[rank + 1] + SUIT_LETTERS[suit + 1]


def bitset_names(mask: int) -> frozenset[str]:
    """A set of cards as a ``uint64``: bit ``code`` per card."""
    return frozenset(code_name(c) for c in range(64) if mask >> c & 1)


def pile_names(data: bytes) -> tuple[str, ...]:
    """An ordered pile as ``bytes``: one code per byte."""
    return tuple(code_name(b) for b in data)


# ---------------------------------------------------------------- requests


def config_msg(cfg: model.Config) -> pb.GameConfig:
    c = ecarte_pb2.EcarteConfig(
        seats=cfg.seats,
        packets=1 if cfg.packets == "3-2" else 2,  # type: ignore[arg-type]
        target_points=cfg.target,
        games_to_win=cfg.games_to_win,
        stake=cfg.stake,
        vole_multiplier=cfg.vole_multiplier,
        king_multiplier=cfg.king_multiplier,
        gallery=cfg.gallery,
        wager_limit=cfg.wager_limit,
        jeux_de_regle=cfg.jeux_de_regle,
    )
    if cfg.first_dealer is not None:
        c.first_dealer = cfg.first_dealer
    return pb.GameConfig(ecarte=c)


def actor_msg(actor: int | str | None) -> common_pb2.Actor:
    if actor is None:
        return common_pb2.Actor(table=common_pb2.TableActor())
    if isinstance(actor, str):
        return common_pb2.Actor(spectator=actor)
    return common_pb2.Actor(seat=actor)


def action_msg(a: model.Action) -> pb.Action:
    e = ecarte_pb2.EcarteAction()
    if a.kind == model.PROPOSE:
        e.propose.SetInParent()
    elif a.kind == model.ACCEPT:
        e.accept.SetInParent()
    elif a.kind == model.REFUSE:
        e.refuse.SetInParent()
    elif a.kind == model.ANNOUNCE:
        e.announce_king.SetInParent()
    elif a.kind == model.DISCARD:
        e.discard.SetInParent()
        e.discard.cards.extend(card_msg(c) for c in a.cards)
    elif a.kind == model.PLAY:
        e.play.card.CopyFrom(card_msg(a.card or ""))
    else:
        e.wager.seat = a.on or 0
        e.wager.amount = a.amount
    return pb.Action(actor=actor_msg(a.actor), ecarte=e)


def viewers_of(m: model.State) -> list[int | str | None]:
    """Every seat, a spectator that wagers, one that never does, the public (None)."""
    return [*range(m.n), SPECTATORS[0], OUTSIDER, None]


def viewer_msg(v: int | str | None) -> common_pb2.Viewer:
    if v is None:
        return common_pb2.Viewer(public=common_pb2.PublicViewer())
    if isinstance(v, str):
        return common_pb2.Viewer(spectator=v)
    return common_pb2.Viewer(seat=v)


def wire_only_malformed(rng: random.Random, m: model.State) -> tuple[str, pb.ApplyActionRequest]:
    """Malformations only the wire can express (docs/api.md "Errors": a missing oneof,
    an unknown enum value, another game's action, a viewer out of range). The state
    is filled in by the caller."""
    seat = m.turn
    bad_card = ecarte_pb2.EcarteAction()
    bad_card.play.card.CopyFrom(cards_pb2.Card(suit=1, rank=99))  # type: ignore[arg-type]
    no_suit = ecarte_pb2.EcarteAction()
    no_suit.play.card.CopyFrom(cards_pb2.Card(rank=1))  # type: ignore[arg-type]
    no_card = ecarte_pb2.EcarteAction()
    no_card.play.SetInParent()
    propose = ecarte_pb2.EcarteAction()
    propose.propose.SetInParent()
    options: list[tuple[str, pb.ApplyActionRequest]] = [
        ("no actor", pb.ApplyActionRequest(action=pb.Action(ecarte=propose))),
        ("no game action", pb.ApplyActionRequest(action=pb.Action(actor=actor_msg(seat)))),
        (
            "no kind",
            pb.ApplyActionRequest(
                action=pb.Action(actor=actor_msg(seat), ecarte=ecarte_pb2.EcarteAction())
            ),
        ),
        (
            "rank 99",
            pb.ApplyActionRequest(action=pb.Action(actor=actor_msg(seat), ecarte=bad_card)),
        ),
        ("no suit", pb.ApplyActionRequest(action=pb.Action(actor=actor_msg(seat), ecarte=no_suit))),
        ("no card", pb.ApplyActionRequest(action=pb.Action(actor=actor_msg(seat), ecarte=no_card))),
        (
            "earl action",
            pb.ApplyActionRequest(
                action=pb.Action(
                    actor=actor_msg(seat), earl_of_coventry=eoc_pb2.EarlOfCoventryAction()
                )
            ),
        ),
        (
            "viewer seat out of range",
            pb.ApplyActionRequest(
                action=pb.Action(actor=actor_msg(seat), ecarte=propose),
                views=[common_pb2.Viewer(seat=m.n)],
            ),
        ),
    ]
    return rng.choice(options)


# ---------------------------------------------------------------- the run


@dataclass
class Match:
    """One match on the service and the model, with what reproduces a difference."""

    config: model.Config
    seed: bytes
    choice_seed: int
    exchanges: bool
    entropy: list[bytes] = field(default_factory=list)
    trace: list[object] = field(default_factory=list)

    def fail(self, what: str) -> None:
        steps = "\n".join(f"  {i}: {a}" for i, a in enumerate(self.trace))
        pytest.fail(
            f"{what}\nconfig={self.config}\nseed=bytes.fromhex({self.seed.hex()!r})\n"
            f"choice_seed={self.choice_seed} exchanges={self.exchanges}\n"
            f"seat_entropy={self.entropy!r}\n"
            f"actions ({len(self.trace)}):\n{steps}",
            pytrace=False,
        )

    def check(self, what: str, wire: object, oracle: object) -> None:
        if wire != oracle:
            self.fail(
                f"{what} differ after {len(self.trace)} actions:\n"
                f"  wire:  {wire!r}\n  model: {oracle!r}"
            )


# ---------------------------------------------------------------- decoding states

PHASES = {
    v.number: v.name.removeprefix("ECARTE_PHASE_") for v in ecarte_pb2.EcartePhase.DESCRIPTOR.values
}


def decode_config(c: ecarte_pb2.EcarteConfig) -> model.Config:
    """ecarte.proto: zero values mean the defaults."""
    return model.Config(
        seats=c.seats or 2,
        first_dealer=c.first_dealer if c.HasField("first_dealer") else None,
        packets="2-3" if c.packets == 2 else "3-2",
        target=c.target_points or 5,
        games_to_win=c.games_to_win or 1,
        stake=c.stake,
        vole_multiplier=c.vole_multiplier or 2,
        king_multiplier=c.king_multiplier or 2,
        gallery=c.gallery,
        wager_limit=c.wager_limit or 100,
        jeux_de_regle=c.jeux_de_regle,
    )


def decode_state(s: ecarte_pb2.EcarteState) -> dict[str, object]:
    """Every field of an ``EcarteState``, in the model's terms."""
    return {
        "config": decode_config(s.config),
        "phase": PHASES.get(s.phase, s.phase),
        "deal": s.deal,
        "dealer": s.dealer,
        "turn": s.turn,
        "hands": tuple(bitset_names(x.hand) for x in s.seats),
        "discards": tuple(bitset_names(x.discards) for x in s.seats),
        "tricks_won": tuple(x.tricks_won for x in s.seats),
        "points": tuple(x.points for x in s.seats),
        "games_won": tuple(x.games_won for x in s.seats),
        "chips": tuple(x.chips for x in s.seats),
        "turn_up": code_name(s.turn_up),
        "trump": SUIT_LETTERS.get(s.trump, s.trump),
        "stock": pile_names(s.stock),
        "plays": pile_names(s.tricks),
        "king_announced": s.king_announced if s.HasField("king_announced") else None,
        "wagers": tuple((w.spectator, w.seat, w.amount) for w in s.wagers),
        "ledger": tuple((x.spectator, x.net) for x in s.spectators),
    }


def expected_state(m: model.State) -> dict[str, object]:
    p = model_projection(m)
    over = m.phase == model.MATCH_OVER
    return {
        "config": m.config,
        "phase": m.phase,
        "deal": m.deal,
        "dealer": m.dealer,
        "turn": None if over else m.turn,
        "hands": p["hands"],
        "discards": p["discards"],
        "tricks_won": p["tricks_won"],
        "points": p["points"],
        "games_won": p["games_won"],
        "chips": p["chips"],
        "turn_up": m.turn_up,
        "trump": m.trump,
        "stock": p["stock"],
        "plays": p["plays"],
        "king_announced": m.king_announced,
        "wagers": p["wagers"],
        "ledger": p["ledger"],
    }


# ---------------------------------------------------------------- views


def trick_winners(events: Sequence[tuple[object, ...]], known: list[int]) -> list[int]:
    """The winners of this deal's tricks, followed through the model's events."""
    out = list(known)
    for ev in events:
        if ev[0] == "dealt":
            out = []
        elif ev[0] == "trick_won":
            out.append(int(ev[2]))  # type: ignore[call-overload]
    return out


def decode_view(v: ecarte_pb2.EcarteView) -> dict[str, object]:
    return {
        "config": decode_config(v.config),
        "phase": PHASES.get(v.phase, v.phase),
        "deal": v.deal,
        "game": v.game,
        "dealer": v.dealer,
        "elder": v.elder,
        "responder": v.responder,
        "turn": v.turn,
        "turn_up": card_name(v.turn_up) if v.HasField("turn_up") else None,
        "trump": SUIT_LETTERS.get(v.trump, v.trump),
        "stock_count": v.stock_count,
        "seats": tuple(
            (
                s.seat,
                s.card_count,
                frozenset(card_name(c) for c in s.hand),
                len(s.hand),
                s.hand_visible,
                s.discard_count,
                frozenset(card_name(c) for c in s.discards),
                len(s.discards),
                s.tricks_won,
                s.points,
                s.games_won,
                s.chips,
                s.sits_out,
            )
            for s in v.seats
        ),
        "tricks": tuple(
            (
                t.leader,
                tuple(card_name(c) for c in t.cards),
                t.winner if t.HasField("winner") else None,
            )
            for t in v.tricks
        ),
        "king_announced": v.king_announced if v.HasField("king_announced") else None,
        "original_hands": v.original_hands,
        "wagers": tuple((w.spectator, w.seat, w.amount) for w in v.wagers),
        "ledger": tuple((x.spectator, x.net) for x in v.spectators),
        "winner": v.winner if v.HasField("winner") else None,
    }


def expected_view(
    m: model.State, viewer: int | str | None, winners: list[int]
) -> dict[str, object]:
    """What the rulebook lets ``viewer`` see (docs/rules/ecarte.md "Views", E-EXCH-8,
    E-VAR-4, E-VAR-5): its own hand and discards if a seat, counts of the rest."""
    over = m.phase == model.MATCH_OVER
    seats = []
    for s in range(m.n):
        own = viewer == s
        hand = frozenset(m.hands[s]) if own else frozenset()
        discards = frozenset(m.discards[s]) if own else frozenset()
        seats.append(
            (
                s,
                len(m.hands[s]),
                hand,
                len(hand),
                own,
                len(m.discards[s]),
                discards,
                len(discards),
                m.tricks_won[s],
                m.points[s],
                m.games_won[s],
                m.chips[s],
                m.n == 3 and s == m.dealer,
            )
        )
    tricks = []
    for i, leader in enumerate(m.leaders):
        cards = tuple(m.plays[2 * i : 2 * i + 2])
        tricks.append((leader, cards, winners[i] if len(cards) == 2 else None))
    p = model_projection(m)
    return {
        "config": m.config,
        "phase": m.phase,
        "deal": m.deal,
        "game": p["game"],
        "dealer": m.dealer,
        "elder": m.elder,
        "responder": m.responder,
        "turn": None if over else m.turn,
        "turn_up": m.turn_up,
        "trump": m.trump,
        "stock_count": len(m.stock),
        "seats": tuple(seats),
        "tricks": tuple(tricks),
        "king_announced": m.king_announced,
        "original_hands": not m.exchanged,
        "wagers": tuple(m.wagers),
        "ledger": p["ledger"],
        "winner": m.winner,
    }


# ---------------------------------------------------------------- events


def names(cards: Sequence[cards_pb2.Card]) -> tuple[str, ...]:
    return tuple(card_name(c) for c in cards)


def decode_event(ev: pb.Event) -> tuple[object, ...]:
    """A protobuf event in the model's form (cards by name; a hidden card set empty)."""
    kind = ev.ecarte.WhichOneof("kind")
    e: Any = getattr(ev.ecarte, kind or "dealt")
    if kind in ("dealer_cut", "dealt"):
        listed = [x.seat for x in (e.draws if kind == "dealer_cut" else e.hands)]
        if listed != list(range(len(listed))):  # one entry per seat, in seat order
            return (kind, "seats listed out of order", listed)
    if kind == "dealer_cut":
        return ("dealer_cut", tuple(names(d.cards) for d in e.draws), e.dealer)
    if kind == "dealt":
        return (
            "dealt",
            e.deal,
            e.game,
            e.dealer,
            e.elder,
            e.responder,
            card_name(e.turn_up),
            e.stock_size,
            tuple(h.card_count for h in e.hands),
            tuple(frozenset(names(h.cards)) for h in e.hands),
            tuple(len(h.cards) for h in e.hands),
        )
    if kind in ("king_turned", "king_announced", "card_played"):
        return (kind, e.seat, card_name(e.card))
    if kind in ("proposed", "accepted", "refused"):
        return (kind, e.seat)
    if kind == "exchanged":
        return (
            "exchanged",
            e.seat,
            e.count,
            frozenset(names(e.discarded)),
            names(e.drawn),
            e.stock_left,
            len(e.discarded),
        )
    if kind == "trick_won":
        return ("trick_won", e.trick, e.seat, e.leader, names(e.cards))
    if kind == "deal_scored":
        return ("deal_scored", e.deal, e.seat, tuple(e.tricks), e.vole, e.raised, e.original_hands)
    if kind == "points_scored":
        reason = ecarte_pb2.EcarteScoreReason.Name(e.reason).removeprefix("ECARTE_SCORE_REASON_")
        payer = e.payer if e.HasField("payer") else -1
        return ("points_scored", e.seat, reason, e.points, e.total, e.chips, payer)
    if kind == "game_won":
        return ("game_won", e.game, e.seat, tuple(e.points))
    if kind == "wager_placed":
        return ("wager_placed", e.spectator, e.seat, e.amount)
    if kind == "wager_settled":
        return ("wager_settled", e.spectator, e.seat, e.amount, e.won, e.net)
    if kind == "match_won":
        return ("match_won", e.seat, tuple(e.games_won))
    return ("unknown", kind)


def expected_events(
    events: Sequence[tuple[object, ...]], viewer: int | str | None, stock_before: Sequence[str]
) -> list[tuple[object, ...]]:
    """The model's events as ``viewer`` may see them (D-20): the hands of ``dealt`` and
    the cards of ``exchanged`` to their owner only. Drawn cards in the order drawn
    (from the top of the stock the action found)."""
    out: list[tuple[object, ...]] = []
    stock = list(stock_before)
    for ev in events:
        if ev[0] == "dealt":
            hands: tuple[frozenset[str], ...] = ev[9]  # type: ignore[assignment]
            shown = tuple(h if viewer == s else frozenset() for s, h in enumerate(hands))
            out.append((*ev[:9], shown, tuple(len(h) for h in shown)))
        elif ev[0] == "exchanged":
            _, seat, count, discarded, _drawn, left = ev
            drawn = tuple(stock[: int(count)])  # type: ignore[call-overload]
            stock = stock[int(count) :]  # type: ignore[call-overload]
            own = viewer == seat
            cards = discarded if own else frozenset()
            out.append(("exchanged", seat, count, cards, drawn if own else (), left, len(cards)))  # type: ignore[arg-type]
        else:
            out.append(ev)
    return out


# ---------------------------------------------------------------- scoreboard


def decode_scoreboard(b: common_pb2.Scoreboard) -> dict[str, object]:
    return {
        "seats": tuple(
            (
                s.seat,
                s.points,
                s.games_won,
                s.chips,
                s.cards_in_hand,
                s.rounds_won,
                s.counters,
                s.eliminated,
            )
            for s in b.seats
        ),
        "finished": b.finished,
        "winners": tuple(b.winners),
        "pool": b.pool,
        "spectators": tuple((s.spectator, s.net, s.open_wagers) for s in b.spectators),
        "standings": tuple(tuple(g.seats) for g in b.standings),
    }


def expected_scoreboard(m: model.State) -> dict[str, object]:
    p = model_projection(m)
    seats: Any = p["board_seats"]
    return {
        "seats": tuple((*s, 0, 0, False) for s in seats),
        "finished": p["board_finished"],
        "winners": p["board_winners"],
        "pool": 0,
        "spectators": p["board_spectators"],
        "standings": (),
    }


# ---------------------------------------------------------------- legal actions

KIND_OF_FIELD = {
    "propose": model.PROPOSE,
    "accept": model.ACCEPT,
    "refuse": model.REFUSE,
    "discard": model.DISCARD,
    "play": model.PLAY,
    "announce_king": model.ANNOUNCE,
    "wager": model.WAGER,
}


def decode_actor(a: common_pb2.Actor) -> int | str | None:
    which = a.WhichOneof("kind")
    if which == "seat":
        return a.seat
    if which == "spectator":
        return a.spectator
    return None


def normal_wire(a: pb.Action) -> tuple[object, ...]:
    """A listed action in the form of ``normal_model``."""
    which = a.ecarte.WhichOneof("kind") or ""
    kind = KIND_OF_FIELD.get(which, which)
    e = a.ecarte
    wager = kind == model.WAGER
    return (
        decode_actor(a.actor),
        kind,
        card_name(e.play.card) if kind == model.PLAY else None,
        frozenset(card_name(c) for c in e.discard.cards),
        e.wager.seat if wager else None,
        (e.wager.amount, e.wager.amount_max) if wager else None,
    )


# ---------------------------------------------------------------- comparing one answer


_Req = TypeVar("_Req")
_Resp = TypeVar("_Resp")


def call(match: Match, rpc: Callable[[_Req], _Resp], request: _Req) -> _Resp:
    """An RPC that must succeed: a refusal (e.g. of a state the service returned itself)
    is a difference, reported with the action sequence."""
    try:
        return rpc(request)
    except RequestError as err:
        match.fail(f"{rpc.__name__} refused: {err.code.name} {err.message}")
        raise


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


@dataclass
class Wire:
    """The client's side: the state last received, its bytes and hash, what was sent."""

    state: pb.GameState
    data: bytes
    hash: bytes
    views: dict[int | str | None, pb.GameView]
    sent: list[pb.Action] = field(default_factory=list)  # well-formed actions, for Replay
    verdicts: list[tuple[int, tuple[tuple[str, str], ...], bytes]] = field(default_factory=list)
    winners: list[int] = field(default_factory=list)  # this deal's trick winners (model)
    events: list[list[pb.Event]] = field(default_factory=list)  # each step's public events


def check_state(match: Match, state: pb.GameState, state_hash: bytes, m: model.State) -> bytes:
    """The envelope, the hash and every field of a returned state; returns its bytes."""
    data = state.SerializeToString(deterministic=True)
    match.check("state hash", state_hash, sha(data))
    again = pb.GameState.FromString(data).SerializeToString(deterministic=True)
    match.check("state bytes after a round trip", again, data)
    match.check("rules version", state.rules_version, RULES_VERSION)
    match.check("seed", state.seed, match.seed)
    match.check("seat entropy", list(state.seat_entropy), match.entropy)
    match.check("game", state.WhichOneof("game"), "ecarte")
    got = decode_state(state.ecarte)
    if m.phase == model.MATCH_OVER:
        got["turn"] = None  # unspecified once over
    want = expected_state(m)
    diff = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    if diff:
        lines = "\n".join(f"  {k}: wire {v[0]!r} / model {v[1]!r}" for k, v in diff.items())
        match.fail(f"states differ after {len(match.trace)} actions:\n{lines}")
    return data


def check_view(
    match: Match,
    view: pb.GameView,
    viewer: int | str | None,
    m: model.State,
    wire: Wire,
    version: int,
    events: Sequence[tuple[object, ...]] | None,
    stock_before: Sequence[str],
) -> None:
    who = f"view of {viewer!r}"
    match.check(f"{who}: viewer", view.viewer, viewer_msg(viewer))
    match.check(f"{who}: rules version", view.rules_version, RULES_VERSION)
    match.check(f"{who}: version", view.version, version)
    match.check(f"{who}: seed commitment", view.seed_commitment, sha(match.seed))
    over = m.phase == model.MATCH_OVER
    match.check(f"{who}: seed (SHUF-5)", view.seed, match.seed if over else b"")
    match.check(
        f"{who}: seat entropy (SHUF-5)", list(view.seat_entropy), match.entropy if over else []
    )
    match.check(f"{who}: game", view.WhichOneof("game"), "ecarte")
    got = decode_view(view.ecarte)
    if over:
        got["turn"] = None
    want = expected_view(m, viewer, wire.winners)
    diff = {k: (got[k], want[k]) for k in want if got[k] != want[k]}
    if diff:
        lines = "\n".join(
            f"  {k}: wire {v[0]!r}\n  {' ' * len(k)}  model {v[1]!r}" for k, v in diff.items()
        )
        match.fail(f"{who} differs after {len(match.trace)} actions:\n{lines}")
    theirs = [decode_event(e) for e in view.events]
    ours = expected_events(events, viewer, stock_before) if events is not None else []
    match.check(f"{who}: events", theirs, ours)


def check_answer(
    match: Match,
    wire: Wire,
    m: model.State,
    resp: pb.NewGameResponse | pb.ApplyActionResponse,
    version: int,
    events: Sequence[tuple[object, ...]],
    stock_before: Sequence[str],
) -> None:
    """Events, views and scoreboard of a NewGame or ApplyAction answer."""
    match.check(
        "public events",
        [decode_event(e) for e in resp.events],
        expected_events(events, None, stock_before),
    )
    viewers = viewers_of(m)
    match.check("number of views", len(resp.views), len(viewers))
    for viewer, view in zip(viewers, resp.views, strict=False):
        check_view(match, view, viewer, m, wire, version, events, stock_before)
        wire.views[viewer] = view
    match.check("scoreboard", decode_scoreboard(resp.scoreboard), expected_scoreboard(m))


def check_legal(match: Match, wire: Wire, m: model.State) -> dict[object, pb.Action]:
    """LegalActions of every actor, the table and no actor against the model; returns
    the listed actions by normal form (sent back unchanged now and then)."""
    listed: dict[object, pb.Action] = {}
    for actor in [*actors_of(m), OUTSIDER]:
        req = pb.LegalActionsRequest(state=wire.state, actor=actor_msg(actor))
        got = call(match, REFEREE.legal_actions, req).actions
        theirs = [normal_wire(a) for a in got]
        match.check(f"LegalActions of {actor!r} listed twice", len(set(theirs)), len(theirs))
        mine = {normal_model(a) for a in model.legal_actions(m, actor)}
        match.check(f"LegalActions of {actor!r}", set(theirs), mine)
        listed.update(zip(theirs, got, strict=True))
    expected: set[tuple[object, ...]] = set()
    if m.phase != model.MATCH_OVER:
        expected = {normal_model(a) for a in model.legal_actions(m, m.turn)}
    for s in range(m.n):
        expected |= {normal_model(a) for a in model.legal_actions(m, s) if a.kind == model.ANNOUNCE}
    got = call(match, REFEREE.legal_actions, pb.LegalActionsRequest(state=wire.state)).actions
    match.check("LegalActions with no actor (D-19)", {normal_wire(a) for a in got}, expected)
    return listed


def check_view_state(match: Match, wire: Wire, m: model.State) -> None:
    """ViewState of every viewer: the views of the last answer without its events."""
    for viewer in viewers_of(m):
        resp = call(
            match,
            REFEREE.view_state,
            pb.ViewStateRequest(state=wire.state, viewer=viewer_msg(viewer)),
        )
        match.check(f"ViewState hash of {viewer!r}", resp.state_hash, wire.hash)
        check_view(match, resp.view, viewer, m, wire, wire.state.version, None, ())
        match.check(
            f"ViewState scoreboard of {viewer!r}",
            decode_scoreboard(resp.scoreboard),
            expected_scoreboard(m),
        )
        last = pb.GameView()
        last.CopyFrom(wire.views[viewer])
        last.ClearField("events")
        match.check(f"ViewState of {viewer!r} and the last answer's view", resp.view, last)


def send(request: pb.ApplyActionRequest, wire: Wire, m: model.State) -> pb.ApplyActionResponse:
    """Send ``request`` with the state last received, parsed again from its bytes (as a
    client receives it) and views for every viewer unless the request names some."""
    request.state.CopyFrom(pb.GameState.FromString(wire.data))
    if not request.views:
        request.views.extend(viewer_msg(v) for v in viewers_of(m))
    return REFEREE.apply_action(request)


def expect_error(
    match: Match, what: str, request: pb.ApplyActionRequest, wire: Wire, m: model.State
) -> None:
    try:
        resp = send(request, wire, m)
    except RequestError as err:
        match.check(f"status of {what}", err.code, grpc.StatusCode.INVALID_ARGUMENT)
        # docs/api.md "Errors": a BadRequest naming the fields, paths in the request.
        fields = [v.field for v in err.bad_request.field_violations] if err.bad_request else []
        prefix = "views" if request.views and "viewer" in what else "action"
        match.check(
            f"fields named by {what}",
            bool(fields) and all(f.startswith(prefix) for f in fields),
            True,
        )
        return
    match.fail(
        f"{what}: wire answered {common_pb2.Verdict.Name(resp.verdict)}, expected INVALID_ARGUMENT"
    )


def step(
    match: Match, wire: Wire, m: model.State, action: model.Action, msg: pb.Action
) -> model.State:
    """Apply ``action`` (sent as ``msg``) on both sides and compare the answers."""
    match.trace.append(action)
    mine = model.apply(m, action)
    if mine.verdict == model.ERROR:
        expect_error(match, "a malformed action", pb.ApplyActionRequest(action=msg), wire, m)
        return m
    try:
        resp = send(pb.ApplyActionRequest(action=msg), wire, m)
    except RequestError as err:
        match.fail(f"wire: {err.code} ({err.message}); model: {mine.verdict} {mine.violations}")
        raise
    verdict = {
        common_pb2.VERDICT_ACCEPTED: model.ACCEPTED,
        common_pb2.VERDICT_REJECTED: model.REJECTED,
    }.get(resp.verdict, common_pb2.Verdict.Name(resp.verdict))
    theirs = {(v.code, v.rule_id) for v in resp.violations}
    ours = {(b.code, b.rule_id) for b in mine.violations}
    match.check("verdicts", (verdict, sorted(theirs)), (mine.verdict, sorted(ours)))
    match.check("violations listed once", len(resp.violations), len(theirs))
    match.check("violation messages present", all(v.message for v in resp.violations), True)
    match.check("penalties", list(resp.penalties), [])
    accepted = verdict == model.ACCEPTED
    new = mine.state if accepted else m
    if accepted:
        match.check("version", resp.state.version, wire.state.version + 1)
        match.check("parent hash", resp.state.parent_hash, wire.hash)
    else:
        match.check(
            "state of a rejected action (bytes)",
            resp.state.SerializeToString(deterministic=True),
            wire.data,
        )
        match.check("hash of a rejected action", resp.state_hash, wire.hash)
    data = check_state(match, resp.state, resp.state_hash, new)
    events = new.events if accepted else []
    if accepted:
        wire.winners = trick_winners(events, wire.winners)
    check_answer(match, wire, new, resp, resp.state.version, events, m.stock)
    wire.state, wire.data, wire.hash = resp.state, data, resp.state_hash
    wire.sent.append(msg)
    wire.events.append(list(resp.events))
    wire.verdicts.append(
        (resp.verdict, tuple((v.code, v.rule_id) for v in resp.violations), resp.state_hash)
    )
    return new


def check_replay(match: Match, wire: Wire, first_hash: bytes) -> None:
    """Replay of every well-formed action sent: the same verdicts, hashes and final state."""
    resp = call(
        match,
        REFEREE.replay,
        pb.ReplayRequest(
            config=config_msg(match.config),
            seed=match.seed,
            seat_entropy=match.entropy,
            actions=wire.sent,
            include_events=True,
            include_log=True,
        ),
    )
    match.check("Replay initial hash", resp.initial_hash, first_hash)
    got = [
        (s.verdict, tuple((v.code, v.rule_id) for v in s.violations), s.state_hash)
        for s in resp.steps
    ]
    for i, (a, b) in enumerate(zip(got, wire.verdicts, strict=False)):
        match.check(f"Replay step {i}", a, b)
    match.check("Replay step count", len(got), len(wire.verdicts))
    match.check("Replay step indexes", [s.index for s in resp.steps], list(range(len(got))))
    match.check(
        "Replay final state", resp.final_state.SerializeToString(deterministic=True), wire.data
    )
    match.check("Replay final hash", resp.final_hash, wire.hash)
    match.check("Replay events", [list(s.events) for s in resp.steps], wire.events)
    log = resp.log
    match.check("Replay log rules version", log.rules_version, RULES_VERSION)
    match.check("Replay log config", log.config, config_msg(match.config))
    match.check("Replay log seed", (log.seed, list(log.seat_entropy)), (match.seed, match.entropy))
    match.check("Replay log commitment", log.seed_commitment, sha(match.seed))
    match.check("Replay log hashes", (log.initial_hash, log.final_hash), (first_hash, wire.hash))
    entries = [(e.action, e.verdict, list(e.violations), e.state_hash) for e in log.entries]
    recorded = [
        (a, verdict, [code for code, _ in broken], h)
        for a, (verdict, broken, h) in zip(wire.sent, wire.verdicts, strict=True)
    ]
    match.check("Replay log entries", entries, recorded)
    last = call(
        match, REFEREE.view_state, pb.ViewStateRequest(state=wire.state, viewer=viewer_msg(None))
    )
    match.check("Replay scoreboard", resp.scoreboard, last.scoreboard)


def as_listed(listed: dict[object, pb.Action], a: model.Action) -> pb.Action | None:
    """``a`` as LegalActions listed it, when it was asked: sent back unchanged, but for a
    wager's amount (chosen in the listed range; ``amount_max`` stays, ApplyAction
    ignores it)."""
    if a.kind != model.WAGER:
        return listed.get(normal_model(a))
    for key, msg in listed.items():
        if key[:2] == (a.actor, model.WAGER) and key[4] == a.on:  # type: ignore[index]
            out = pb.Action()
            out.CopyFrom(msg)
            out.ecarte.wager.amount = a.amount
            return out
    return None


def wire_action(rng: random.Random, a: model.Action) -> model.Action:
    """A wager of a negative amount cannot be sent (``uint64``): sent as 0, or as the
    largest ``uint64`` (over any limit)."""
    if a.kind == model.WAGER and a.amount < 0:
        return model.Action(a.actor, a.kind, on=a.on, amount=rng.choice([0, 2**64 - 1]))
    return a


WIRE_ONLY_RATE = 0.03  # of the steps: a malformation only the wire can express


def next_action(
    rng: random.Random,
    m: model.State,
    roll: float,
    weights: dict[str, int],
    listed: dict[object, pb.Action],
) -> tuple[model.Action, pb.Action]:
    """The next action of a match and its message, by ``roll`` (at least
    ``WIRE_ONLY_RATE``): an illegal one of the seat on turn near a bound, another illegal
    or malformed one, else a legal one, sent as ``LegalActions`` listed it when it did."""
    flat = [a for actor in actors_of(m) for a in model.legal_actions(m, actor)]
    action, legal = choose_action(rng, m, roll, flat, weights)
    listed_msg = as_listed(listed, action) if legal else None
    action = wire_action(rng, action)
    return action, listed_msg if listed_msg is not None else action_msg(action)


def play_match(
    cfg: model.Config,
    seed: bytes,
    choice_seed: int,
    exchanges: bool,
    entropy: Sequence[bytes] = (),
) -> int:
    """Play one match on both sides; returns the number of actions tried."""
    rng = random.Random(choice_seed)
    weights = EXCHANGE_WEIGHTS if exchanges else LEGAL_WEIGHTS
    match = Match(cfg, seed, choice_seed, exchanges, list(entropy))
    m = model.new_game(cfg, shuffle_seed(seed, entropy))
    resp = call(
        match,
        REFEREE.new_game,
        pb.NewGameRequest(
            config=config_msg(cfg),
            seed=seed,
            seat_entropy=entropy,
            views=[viewer_msg(v) for v in viewers_of(m)],
        ),
    )
    match.check("NewGame seed commitment", resp.seed_commitment, sha(seed))
    match.check("NewGame version", resp.state.version, 0)
    match.check("NewGame parent hash", resp.state.parent_hash, b"")
    data = check_state(match, resp.state, resp.state_hash, m)
    wire = Wire(resp.state, data, resp.state_hash, {})
    wire.winners = trick_winners(m.events, [])
    check_answer(match, wire, m, resp, 0, m.events, ())
    first_hash = resp.state_hash
    after_end = 0
    readers = random.Random(choice_seed + 1)
    for _ in range(MAX_STEPS):
        # Incoming states read from their bytes (as the compiled build always does) or,
        # interpreted, through the message's attributes: both readers, on every kind of
        # state. Compiled, the switch is a constant and patching it changes nothing.
        from_bytes = COMPILED or readers.random() < 0.5
        with mock.patch.object(ecarte_codec, "READ_BYTES", from_bytes):
            listed: dict[object, pb.Action] = {}
            if rng.random() < LEGAL_RATE or m.phase == model.MATCH_OVER:
                listed = check_legal(match, wire, m)
            if rng.random() < VIEW_RATE:
                check_view_state(match, wire, m)
            if m.phase == model.MATCH_OVER:
                if after_end == EXTRA_AFTER_END:
                    break
                after_end += 1
            roll = rng.random()
            if roll < WIRE_ONLY_RATE:
                what, request = wire_only_malformed(rng, m)
                match.trace.append(f"(wire only) {what}")
                expect_error(match, what, request, wire, m)
                continue
            action, msg = next_action(rng, m, roll, weights, listed)
            m = step(match, wire, m, action, msg)
    check_view_state(match, wire, m)
    check_replay(match, wire, first_hash)
    return len(match.trace)


# ---------------------------------------------------------------- tests


def short(cfg: model.Config) -> model.Config:
    """The same options in a match short enough to end within the step budget."""
    return replace(cfg, target=min(cfg.target, 3), games_to_win=min(cfg.games_to_win, 2))


@st.composite
def setups(draw: st.DrawFn) -> tuple[model.Config, list[bytes]]:
    """A configuration (every option; half of them short matches) and, for a third of
    the matches, the seats' entropy (docs/api.md "Seeds": at most one entry per seat,
    each at most 64 bytes, no trailing empty entry)."""
    cfg = draw(st.one_of(configs(), configs().map(short)))
    entropy = draw(
        st.one_of(
            st.just([]),
            st.just([]),
            st.lists(st.binary(max_size=64), min_size=1, max_size=cfg.seats).map(
                lambda es: [*es[:-1], es[-1] or b"\x00"]
            ),
        )
    )
    return cfg, entropy


@settings(max_examples=50)
@given(setups(), seeds, st.integers(0, 2**32 - 1), st.booleans())
def test_service_agrees_with_model(
    setup: tuple[model.Config, list[bytes]], seed: bytes, choice_seed: int, exchanges: bool
) -> None:
    """Random matches through the service: verdicts, states, views, events, scoreboards,
    legal actions and replays agree with the model at every step."""
    cfg, entropy = setup
    play_match(cfg, seed, choice_seed, exchanges, entropy)
