"""Differential test: the Écarté engine against an independent model.

``ecarte_model.py`` is a small, slow model of Écarté written from the rulebooks
only (``shared/rules/README.md``, ``shared/rules/ecarte.md`` and the decisions of
``docs/rules/ecarte.md``). This test plays random matches of random
configurations (every option drawn within its range) on both, side by side, and
at every step compares:

- a projection of the state: every seat's hand and discards (as sets), the
  turn-up and trumps, the stock *in order* (the engine exposes it), the cards
  played and the leader of each trick, tricks won, dealer / elder / responder,
  phase, whose turn, deal and game number, scores, games won, chips, the king
  announcement, whether the deal is on its original hands (E-EXCH-9, which
  E-SCORE-3 looks at), the open wagers, the spectators' ledger, the scoreboard,
  whether the match is over and its winner;
- the *set* of legal actions of every actor: each seat, two spectators, the
  table, and the engine's "no actor" listing (D-19: the seat on turn plus the
  other seats' king announcements before the first lead). Discards are compared
  as sets of cards; a spectator's wager is compared as its amount range
  (``amount`` .. ``amount_max``, D-19);
- the answer to one action, applied to both: mostly a random legal action,
  sometimes a random illegal one (wrong seat, wrong phase, card not held,
  discard counts, small stock, jeu de règle, not following / beating / trumping,
  king not held / late / twice, discarding the announced king, wagers out of
  window / over the limit / by a seat, anything after the end) and sometimes a
  malformed one (the table acting, an unknown seat, a card outside the pack, a
  card twice in a discard, a bad spectator id), which must be an error of the
  request (``InvalidInput``) on both sides;
- the events of every accepted action (and of ``new_game``), in order and with
  every field (docs "Events"): they carry what the state does not, such as the
  cut's draws, the reason and payer of each score, whether a deal was raised
  (E-SCORE-3) and each wager's settlement.

Half of the matches are "exchange-heavy" (the elder proposes and the dealer
accepts whenever they may), so that stocks run out; illegal actions of the seat
on turn are tried more often where a bound is near (a small stock in the
exchange, a proposal under jeux de règle, an answer to a led card), and
discards are tried at the bounds of E-EXCH-5/6. A separate test checks the
configuration ranges (E-CONF), and a last one that every violation code of the
rulebook's list was met during the run.

How violations are compared: ecarte.md says "Every rejection names the rules
broken" and D-6 says how they combine (E-TURN, E-PHASE and E-CARD together; the
specific checks only for the seat on turn in a phase that allows the action;
announcing and wagering by their own rules only). The model names every rule
broken under that reading, so the test requires the *set* of rule ids to be
equal, and the set of violation codes (docs "Violation codes") to be equal too:
a missing id is a rule the engine did not enforce or did not name, an extra
one a rule it invented. One reading was settled from the engine: a card not
held, played to answer a lead, is E-CARD alone (the follow duties judge held
cards; see ``ecarte_model._specific_violations``). One difference was the
engine's, and fixed: it named E-KING-3 when the elder's discard named the king the
dealer had announced (a card the elder does not hold: E-CARD alone, D-6).

On a difference the assertion message carries the configuration, the seed, the
random-choice seed and the whole action sequence so far, which reproduces it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import zip_longest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cards import ECARTE_DECK, card_list, name, parse
from referee.games.base import (
    PUBLIC_VIEWER,
    TABLE_ACTOR,
    Actor,
    ActorKind,
    InvalidInput,
    Verdict,
)
from referee.games.ecarte import RULES
from referee.games.ecarte.state import (
    Accepted,
    ActionKind,
    CardPlayed,
    DealerCut,
    DealScored,
    Dealt,
    EcarteAction,
    EcarteConfig,
    EcarteEvent,
    EcarteState,
    Exchanged,
    GameWon,
    KingAnnounced,
    KingTurned,
    MatchWon,
    Packets,
    Phase,
    PointsScored,
    Proposed,
    Refused,
    TrickWon,
    WagerPlaced,
    WagerSettled,
)
from tests.differential import ecarte_model as model

SPECTATORS = ("ann", "bob")
MAX_STEPS = 220  # per match; most matches end well before
EXTRA_AFTER_END = 4  # actions tried after the match is over (E-END-3)

KIND_TO_ENGINE = {
    model.PROPOSE: ActionKind.PROPOSE,
    model.ACCEPT: ActionKind.ACCEPT,
    model.REFUSE: ActionKind.REFUSE,
    model.DISCARD: ActionKind.DISCARD,
    model.PLAY: ActionKind.PLAY,
    model.ANNOUNCE: ActionKind.ANNOUNCE_KING,
    model.WAGER: ActionKind.WAGER,
}
KIND_FROM_ENGINE = {v: k for k, v in KIND_TO_ENGINE.items()}

# Which violation codes and rule ids the run has seen, to check that the random
# illegal actions reach every rule (test_every_violation_was_exercised).
SEEN: set[tuple[str, str]] = set()

# ---------------------------------------------------------------- conversions

NormalAction = tuple[object, ...]


def engine_config(cfg: model.Config) -> EcarteConfig:
    return EcarteConfig(
        seats=cfg.seats,
        first_dealer=cfg.first_dealer,
        packets=Packets.THREE_TWO if cfg.packets == "3-2" else Packets.TWO_THREE,
        target_points=cfg.target,
        games_to_win=cfg.games_to_win,
        stake=cfg.stake,
        vole_multiplier=cfg.vole_multiplier,
        king_multiplier=cfg.king_multiplier,
        gallery=cfg.gallery,
        wager_limit=cfg.wager_limit,
        jeux_de_regle=cfg.jeux_de_regle,
    )


def engine_actor(actor: int | str | None) -> Actor:
    if actor is None:
        return TABLE_ACTOR
    if isinstance(actor, str):
        return Actor.of_spectator(actor)
    return Actor.of_seat(actor)


def engine_action(a: model.Action) -> EcarteAction:
    return EcarteAction(
        engine_actor(a.actor),
        KIND_TO_ENGINE[a.kind],
        card=parse(a.card) if a.card is not None else -1,
        cards=tuple(parse(c) for c in a.cards),
        seat=a.on if a.on is not None else -1,
        amount=a.amount,
    )


def normal_engine(a: EcarteAction) -> NormalAction:
    """An engine action in a common form: discards as a set, wagers with their range."""
    actor: int | str | None
    if a.actor.kind is ActorKind.SEAT:
        actor = a.actor.seat
    elif a.actor.kind is ActorKind.SPECTATOR:
        actor = a.actor.spectator
    else:
        actor = None
    kind = KIND_FROM_ENGINE[a.kind]
    wager = kind == model.WAGER
    return (
        actor,
        kind,
        name(a.card) if a.kind is ActionKind.PLAY else None,
        frozenset(name(c) for c in a.cards),
        a.seat if wager else None,
        (a.amount, a.amount_max) if wager else None,
    )


def normal_model(a: model.Action) -> NormalAction:
    wager = a.kind == model.WAGER
    return (
        a.actor,
        a.kind,
        a.card,
        frozenset(a.cards),
        a.on if wager else None,
        (a.amount, a.amount_max) if wager else None,
    )


def names(mask: int) -> frozenset[str]:
    return frozenset(name(c) for c in card_list(mask))


# ---------------------------------------------------------------- projections


def cards_tuple(codes: tuple[int, ...]) -> tuple[str, ...]:
    return tuple(name(c) for c in codes)


def engine_event(ev: EcarteEvent) -> tuple[object, ...]:
    """An engine event (complete, unredacted) as the model writes it: the same name and
    fields, cards by name, card sets as sets."""
    if isinstance(ev, DealerCut):
        return ("dealer_cut", tuple(cards_tuple(d) for d in ev.draws), ev.dealer)
    if isinstance(ev, Dealt):
        hands = tuple(frozenset(cards_tuple(h)) for h in ev.hands)
        return (
            "dealt",
            ev.deal,
            ev.game,
            ev.dealer,
            ev.elder,
            ev.responder,
            name(ev.turn_up),
            ev.stock_size,
            tuple(ev.hand_sizes),
            hands,
        )
    if isinstance(ev, KingTurned):
        return ("king_turned", ev.seat, name(ev.card))
    if isinstance(ev, Proposed):
        return ("proposed", ev.seat)
    if isinstance(ev, Accepted):
        return ("accepted", ev.seat)
    if isinstance(ev, Refused):
        return ("refused", ev.seat)
    if isinstance(ev, Exchanged):
        discarded = frozenset(cards_tuple(ev.discarded))
        drawn = frozenset(cards_tuple(ev.drawn))
        return ("exchanged", ev.seat, ev.count, discarded, drawn, ev.stock_left)
    if isinstance(ev, KingAnnounced):
        return ("king_announced", ev.seat, name(ev.card))
    if isinstance(ev, CardPlayed):
        return ("card_played", ev.seat, name(ev.card))
    if isinstance(ev, TrickWon):
        return ("trick_won", ev.trick, ev.seat, ev.leader, cards_tuple(ev.cards))
    if isinstance(ev, DealScored):
        return (
            "deal_scored",
            ev.deal,
            ev.seat,
            tuple(ev.tricks),
            ev.vole,
            ev.raised,
            ev.original_hands,
        )
    if isinstance(ev, PointsScored):
        return ("points_scored", ev.seat, ev.reason.name, ev.points, ev.total, ev.chips, ev.payer)
    if isinstance(ev, GameWon):
        return ("game_won", ev.game, ev.seat, tuple(ev.points))
    if isinstance(ev, WagerPlaced):
        return ("wager_placed", ev.spectator, ev.seat, ev.amount)
    if isinstance(ev, WagerSettled):
        return ("wager_settled", ev.spectator, ev.seat, ev.amount, ev.won, ev.net)
    if isinstance(ev, MatchWon):
        return ("match_won", ev.seat, tuple(ev.games_won))
    raise AssertionError(f"unknown event {ev!r}")


def compare_events(run: Run, engine: list[EcarteEvent], oracle: list[tuple[object, ...]]) -> None:
    """The events of one answer, in order (docs "Events")."""
    theirs = [engine_event(ev) for ev in engine]
    if theirs != oracle:
        lines = "\n".join(
            f"  {i}: engine {a!r}\n     model  {b!r}"
            for i, (a, b) in enumerate(zip_longest(theirs, oracle))
            if a != b
        )
        run.fail(f"events differ after {len(run.trace)} actions:\n{lines}")


def engine_projection(state: EcarteState) -> dict[str, object]:
    """What is compared of the engine's state (its raw fields, its public view for the
    roles and tricks, its scoreboard)."""
    view = RULES.view(state, PUBLIC_VIEWER)
    board = RULES.scoreboard(state)
    over = state.phase is Phase.MATCH_OVER
    return {
        "phase": state.phase.name,
        "deal": state.deal,
        "game": view.game,
        "dealer": state.dealer,
        "elder": view.elder,
        "responder": view.responder,
        "turn": None if over else state.turn,
        "hands": tuple(names(m) for m in state.hands),
        "discards": tuple(names(m) for m in state.discards),
        "turn_up": name(state.turn_up),
        "trump": "CDHS"[state.trump],
        "stock": tuple(name(c) for c in state.stock),
        "plays": tuple(name(c) for c in state.tricks),
        "leaders": tuple(t.leader for t in view.tricks),
        "tricks_won": tuple(state.tricks_won),
        "points": tuple(state.points),
        "games_won": tuple(state.games_won),
        "chips": tuple(state.chips),
        "king_announced": None if state.king_announced < 0 else state.king_announced,
        "original_hands": view.original_hands,
        "wagers": tuple((w.spectator, w.seat, w.amount) for w in state.wagers),
        "ledger": tuple((x.spectator, x.net) for x in state.ledger),
        "over": RULES.is_over(state),
        "winner": view.winner if over else None,
        "board_finished": board.finished,
        "board_winners": tuple(board.winners),
        "board_seats": tuple(
            (s.seat, s.points, s.games_won, s.chips, s.cards_in_hand) for s in board.seats
        ),
        "board_spectators": tuple((s.spectator, s.net, s.open_wagers) for s in board.spectators),
    }


def model_projection(m: model.State) -> dict[str, object]:
    """The same projection of the model's state."""
    over = m.phase == model.MATCH_OVER
    open_totals: dict[str, int] = {}
    for spectator, _, amount in m.wagers:
        open_totals[spectator] = open_totals.get(spectator, 0) + amount
    board_spectators = tuple(
        (s, m.nets.get(s, 0), open_totals.get(s, 0)) for s in sorted(set(m.nets) | set(open_totals))
    )
    return {
        "phase": m.phase,
        "deal": m.deal,
        "game": sum(m.games_won) - (1 if over else 0),
        "dealer": m.dealer,
        "elder": m.elder,
        "responder": m.responder,
        "turn": None if over else m.turn,
        "hands": tuple(frozenset(h) for h in m.hands),
        "discards": tuple(frozenset(d) for d in m.discards),
        "turn_up": m.turn_up,
        "trump": m.trump,
        "stock": tuple(m.stock),
        "plays": tuple(m.plays),
        "leaders": tuple(m.leaders),
        "tricks_won": tuple(m.tricks_won),
        "points": tuple(m.points),
        "games_won": tuple(m.games_won),
        "chips": tuple(m.chips),
        "king_announced": m.king_announced,
        "original_hands": not m.exchanged,
        "wagers": tuple(m.wagers),
        "ledger": tuple(sorted(m.nets.items())),
        "over": over,
        "winner": m.winner,
        "board_finished": over,
        "board_winners": () if m.winner is None else (m.winner,),
        "board_seats": tuple(
            (s, m.points[s], m.games_won[s], m.chips[s], len(m.hands[s])) for s in range(m.n)
        ),
        "board_spectators": board_spectators,
    }


# ---------------------------------------------------------------- choosing actions

LEGAL_WEIGHTS = {
    model.PROPOSE: 6,
    model.ACCEPT: 5,
    model.REFUSE: 1,
    model.DISCARD: 4,
    model.PLAY: 3,
    model.ANNOUNCE: 3,
    model.WAGER: 1,
}
EXCHANGE_WEIGHTS = {**LEGAL_WEIGHTS, model.PROPOSE: 40, model.ACCEPT: 40}
"""For "exchange-heavy" matches: the stock runs out in most deals (E-EXCH-2, the
bounds of E-EXCH-5/6 near the end of the stock)."""


def probe_rate(m: model.State) -> float:
    """How often to try an illegal action of the seat on turn: higher where a bound is
    near (a small stock in the exchange, a proposal that may be forbidden)."""
    if m.phase in (model.ELDER_DISCARD, model.RESPONDER_DISCARD) and len(m.stock) <= 6:
        return 0.5
    if m.phase == model.PROPOSAL and (len(m.stock) < 3 or m.config.jeux_de_regle):
        return 0.3
    if m.phase == model.TRICKS and len(m.plays) % 2 == 1:  # E-PLAY-3 .. 5
        return 0.3
    return 0.12


def actors_of(m: model.State) -> list[int | str | None]:
    return [*range(m.n), *SPECTATORS, None]


def choose_legal(
    rng: random.Random, legal: list[model.Action], weights: dict[str, int]
) -> model.Action:
    """A legal action, by kind first (so that proposals and exchanges happen often and
    stocks run low), then uniformly; large discards half of the time."""
    kinds = sorted({a.kind for a in legal})
    kind = rng.choices(kinds, weights=[weights[k] for k in kinds])[0]
    options = [a for a in legal if a.kind == kind]
    if kind == model.DISCARD and rng.random() < 0.5:
        biggest = max(len(a.cards) for a in options)
        options = [a for a in options if len(a.cards) == biggest]
    a = rng.choice(options)
    if kind == model.WAGER:
        amount = rng.choice([a.amount, a.amount_max, rng.randint(a.amount, a.amount_max)])
        a = model.Action(a.actor, model.WAGER, on=a.on, amount=amount)
    return a


def choose_action(
    rng: random.Random,
    m: model.State,
    roll: float,
    legal: list[model.Action],
    weights: dict[str, int],
) -> tuple[model.Action, bool]:
    """The next action by ``roll``: an illegal one of the seat on turn near a bound,
    another illegal or a malformed one, else one of ``legal`` (then True)."""
    probe = probe_rate(m)
    if roll < probe:
        return choose_on_turn(rng, m), False
    if roll < probe + 0.12 or not legal:
        return choose_illegal(rng, m), False
    if roll < probe + 0.15:
        return choose_malformed(rng, m), False
    return choose_legal(rng, legal, weights), True


def random_cards(rng: random.Random, m: model.State, seat: int) -> tuple[str, ...]:
    """A discard that is often wrong: 0 .. 5 held cards, now and then a card not held or
    the king of trumps."""
    hand = sorted(m.hands[seat], key=model.DECK.index)
    size = rng.randint(0, min(5, len(hand)))
    chosen = rng.sample(hand, size)
    if rng.random() < 0.25:
        extra = rng.choice([c for c in model.DECK if c not in chosen])
        chosen.append(extra)
    if rng.random() < 0.25 and m.king_of_trumps not in chosen:
        chosen.append(m.king_of_trumps)
    return tuple(chosen)


def choose_illegal(rng: random.Random, m: model.State) -> model.Action:
    """A random, usually illegal, well-formed action."""
    limit = m.config.wager_limit
    if rng.random() < 0.2:
        spectator = rng.choice([*SPECTATORS, "x" * model.MAX_SPECTATOR_ID])  # longest id
        if rng.random() < 0.8:
            amount = rng.choice([-1, 0, 1, limit, limit + 1, rng.randint(1, 2 * limit)])
            return model.Action(spectator, model.WAGER, on=rng.randrange(m.n), amount=amount)
        return model.Action(spectator, rng.choice(model.KINDS[:-1]), card=rng.choice(model.DECK))
    seat = m.turn if rng.random() < 0.6 else rng.randrange(m.n)
    kind = rng.choice(model.KINDS)
    if kind == model.PLAY:
        hand = sorted(m.hands[seat], key=model.DECK.index)
        card = rng.choice(hand) if hand and rng.random() < 0.8 else rng.choice(model.DECK)
        return model.Action(seat, model.PLAY, card=card)
    if kind == model.DISCARD:
        return model.Action(seat, model.DISCARD, cards=random_cards(rng, m, seat))
    if kind == model.WAGER:
        return model.Action(seat, model.WAGER, on=rng.randrange(m.n), amount=1)
    return model.Action(seat, kind)


def boundary_discard(rng: random.Random, m: model.State, seat: int) -> tuple[str, ...]:
    """A discard of the seat on turn whose size is at or next to a bound of E-EXCH-5/6
    (0, 1, the most allowed, one more), of cards it holds (the announced king left out
    when possible); one more than the hand is padded with a card it does not hold."""
    stock = len(m.stock)
    most = min(5, stock - 1) if m.phase == model.ELDER_DISCARD else min(5, stock)
    size = max(0, rng.choice([0, 1, most, most, most + 1, most + 1]))
    hand = sorted(m.hands[seat], key=model.DECK.index)
    pool = [c for c in hand if c != m.king_of_trumps] or hand
    chosen = rng.sample(pool, min(size, len(pool)))
    if len(chosen) < size:
        chosen += [c for c in hand if c not in chosen][: size - len(chosen)]
    if len(chosen) < size:
        chosen.append(rng.choice([c for c in model.DECK if c not in hand]))
    return tuple(chosen)


def duty_breakers(m: model.State, hand: list[str]) -> list[list[str]]:
    """The follower's held cards that would break E-PLAY-3, E-PLAY-4, E-PLAY-5 if the
    duties hold (lower cards of the suit led, other suits, non-trumps), to try them."""
    led = m.plays[-1]
    same = [c for c in hand if model.suit(c) == model.suit(led)]
    lower = [c for c in same if model.strength(c) < model.strength(led)]
    other = [c for c in hand if model.suit(c) != model.suit(led)]
    plain = [c for c in other if model.suit(c) != m.trump]
    return [lower, other, plain]


def choose_on_turn(rng: random.Random, m: model.State) -> model.Action:
    """A random action of the seat on turn, of a kind its phase allows, with any card it
    holds or any discard: reaches the follow / beat / trump duties, the discard bounds,
    the small stock and the jeux de règle often."""
    seat = m.turn
    hand = sorted(m.hands[seat], key=model.DECK.index) or list(model.DECK)
    if m.phase == model.TRICKS and len(m.plays) % 2 == 1 and rng.random() < 0.7:
        hand = rng.choice([p for p in duty_breakers(m, hand) if p] or [hand])
    play = model.Action(seat, model.PLAY, card=rng.choice(hand))
    cards = random_cards(rng, m, seat) if rng.random() < 0.5 else boundary_discard(rng, m, seat)
    discard = model.Action(seat, model.DISCARD, cards=cards)
    propose = model.Action(seat, model.PROPOSE)
    options = {
        model.PROPOSAL: [propose, propose, play],
        model.ANSWER: [model.Action(seat, model.ACCEPT), model.Action(seat, model.REFUSE)],
        model.ELDER_DISCARD: [discard],
        model.RESPONDER_DISCARD: [discard],
        model.TRICKS: [play],
    }.get(m.phase, [play, discard, propose])
    return rng.choice(options)


def choose_malformed(rng: random.Random, m: model.State) -> model.Action:
    """An error of the request (ecarte.md "Actions in general", D-5, D-12, D-15)."""
    seat = m.turn
    hand = sorted(m.hands[seat], key=model.DECK.index) or ["AC"]
    return rng.choice(
        [
            model.Action(None, model.PROPOSE),  # the table (D-15)
            model.Action(m.n, model.PROPOSE),  # no such seat
            model.Action(seat, model.PLAY, card="2C"),  # not in the pack (D-5)
            model.Action(seat, model.DISCARD, cards=(hand[0], hand[0])),  # a card twice
            model.Action("ann", model.WAGER, on=m.n, amount=1),  # no such seat
            model.Action("", model.WAGER, on=0, amount=1),  # empty spectator id (D-12)
            model.Action("x" * 129, model.WAGER, on=0, amount=1),  # too long (D-12)
        ]
    )


# ---------------------------------------------------------------- the run


@dataclass
class Run:
    """One match on both sides, with the trace needed to reproduce a difference."""

    config: model.Config
    seed: bytes
    choice_seed: int
    exchanges: bool
    trace: list[model.Action]

    def fail(self, what: str) -> None:
        steps = "\n".join(f"  {i}: {a}" for i, a in enumerate(self.trace))
        pytest.fail(
            f"{what}\nconfig={self.config}\nseed=bytes.fromhex({self.seed.hex()!r})\n"
            f"choice_seed={self.choice_seed} exchanges={self.exchanges}\n"
            f"actions ({len(self.trace)}):\n{steps}",
            pytrace=False,
        )

    def check_equal(self, what: str, engine: object, oracle: object) -> None:
        if engine != oracle:
            self.fail(f"{what} differ:\n  engine: {engine}\n  model:  {oracle}")


def compare_states(run: Run, e: EcarteState, m: model.State) -> None:
    """The projections must be equal; and the referee being stateless, every state it
    returns must pass its own ``validate`` (it comes back in the next request)."""
    try:
        RULES.validate(e)
    except InvalidInput as err:
        run.fail(f"the engine refuses its own state: {err}")
    pe, pm = engine_projection(e), model_projection(m)
    diff = {k: (pe[k], pm[k]) for k in pe if pe[k] != pm[k]}
    if diff:
        lines = "\n".join(f"  {k}: engine {v[0]!r} / model {v[1]!r}" for k, v in diff.items())
        run.fail(f"states differ after {len(run.trace)} actions:\n{lines}")


def compare_legal(run: Run, e: EcarteState, m: model.State) -> dict[object, list[model.Action]]:
    """Compare the legal actions of every actor; returns the model's, by actor."""
    by_actor: dict[object, list[model.Action]] = {}
    for actor in actors_of(m):
        mine = model.legal_actions(m, actor)
        by_actor[actor] = mine
        theirs = [normal_engine(a) for a in RULES.legal_actions(e, engine_actor(actor))]
        if len(set(theirs)) != len(theirs):
            run.fail(f"engine lists an action twice for {actor!r}: {sorted(map(str, theirs))}")
        run.check_equal(f"legal actions of {actor!r}", set(theirs), {normal_model(a) for a in mine})
    # D-19: no actor = the seat on turn, plus the other seats' announcements before the lead.
    expected = (
        {normal_model(a) for a in by_actor.get(m.turn, [])}
        if m.phase != model.MATCH_OVER
        else set()
    )
    for s in range(m.n):
        expected |= {normal_model(a) for a in by_actor[s] if a.kind == model.ANNOUNCE}
    listed = {normal_engine(a) for a in RULES.legal_actions(e, None)}
    run.check_equal("legal actions with no actor (D-19)", listed, expected)
    return by_actor


def step(
    run: Run, e: EcarteState, m: model.State, action: model.Action
) -> tuple[EcarteState, model.State]:
    """Apply ``action`` to both sides and compare the answers."""
    run.trace.append(action)
    mine = model.apply(m, action)
    try:
        out = RULES.apply(e, engine_action(action))
    except InvalidInput as err:
        if mine.verdict != model.ERROR:
            run.fail(f"engine: InvalidInput ({err}); model: {mine.verdict} {mine.violations}")
        return e, m
    if mine.verdict == model.ERROR:
        run.fail(f"engine: {out.verdict.name} {out.violations}; model: malformed")
    verdict = {Verdict.ACCEPTED: model.ACCEPTED, Verdict.REJECTED: model.REJECTED}.get(
        out.verdict, out.verdict.name
    )
    theirs = {(v.code, v.rule_id) for v in out.violations}
    ours = {(b.code, b.rule_id) for b in mine.violations}
    SEEN.update(ours)
    if verdict != mine.verdict or {r for _, r in theirs} != {r for _, r in ours}:
        run.fail(
            f"verdicts differ: engine {verdict} {sorted(theirs)}; "
            f"model {mine.verdict} {sorted(ours)}"
        )
    run.check_equal("violation codes", theirs, ours)
    if verdict == model.REJECTED and (out.state is not e or out.events):
        run.fail("a rejected action changed the state or produced events")
    if verdict == model.ACCEPTED:
        compare_events(run, out.events, mine.state.events)
    return out.state, mine.state


def play_match(cfg: model.Config, seed: bytes, choice_seed: int, exchanges: bool = False) -> int:
    """Play one match on both sides; returns the number of actions tried. With
    ``exchanges`` the players propose and accept whenever they may."""
    rng = random.Random(choice_seed)
    weights = EXCHANGE_WEIGHTS if exchanges else LEGAL_WEIGHTS
    run = Run(cfg, seed, choice_seed, exchanges, [])
    e, events = RULES.new_game(engine_config(cfg), seed)
    m = model.new_game(cfg, seed)
    compare_events(run, events, m.events)
    after_end = 0
    for _ in range(MAX_STEPS):
        compare_states(run, e, m)
        legal = compare_legal(run, e, m)
        if m.phase == model.MATCH_OVER:
            if after_end == EXTRA_AFTER_END:
                break
            after_end += 1
        flat = [a for actions in legal.values() for a in actions]
        action, _ = choose_action(rng, m, rng.random(), flat, weights)
        e, m = step(run, e, m, action)
    compare_states(run, e, m)
    return len(run.trace)


# ---------------------------------------------------------------- strategies


@st.composite
def configs(draw: st.DrawFn) -> model.Config:
    """Every option within its range (docs "Configuration"), small values favoured so
    that matches end within the step budget."""
    seats = draw(st.sampled_from([2, 3]))
    return model.Config(
        seats=seats,
        first_dealer=draw(st.one_of(st.none(), st.integers(0, seats - 1))),
        packets=draw(st.sampled_from(["3-2", "2-3"])),
        target=draw(st.one_of(st.integers(1, 4), st.integers(1, 99))),
        games_to_win=draw(st.one_of(st.integers(1, 3), st.integers(1, 9))),
        stake=draw(st.one_of(st.just(0), st.integers(1, 9), st.integers(0, 1_000_000))),
        vole_multiplier=draw(st.one_of(st.integers(1, 3), st.integers(1, 100))),
        king_multiplier=draw(st.one_of(st.integers(1, 3), st.integers(1, 100))),
        gallery=draw(st.booleans()),
        wager_limit=draw(st.one_of(st.integers(1, 3), st.integers(1, 1_000_000))),
        jeux_de_regle=draw(st.booleans()),
    )


seeds = st.binary(min_size=32, max_size=32)


# ---------------------------------------------------------------- tests


@settings(max_examples=150)
@given(configs(), seeds, st.integers(0, 2**32 - 1), st.booleans())
def test_engine_agrees_with_model(
    cfg: model.Config, seed: bytes, choice_seed: int, exchanges: bool
) -> None:
    """Random matches: states, legal actions, verdicts and events agree at every step."""
    play_match(cfg, seed, choice_seed, exchanges)


@settings(max_examples=60)
@given(
    st.builds(
        model.Config,
        seats=st.integers(1, 4),
        first_dealer=st.one_of(st.none(), st.integers(-1, 3)),
        packets=st.sampled_from(["3-2", "2-3"]),
        target=st.integers(-1, 101),
        games_to_win=st.integers(-1, 11),
        stake=st.sampled_from([-1, 0, 1, 1_000_000, 1_000_001]),
        vole_multiplier=st.integers(-1, 102),
        king_multiplier=st.integers(-1, 102),
        gallery=st.booleans(),
        wager_limit=st.sampled_from([-1, 0, 1, 1_000_000, 1_000_001]),
        jeux_de_regle=st.booleans(),
    ),
    seeds,
)
def test_configuration_ranges(cfg: model.Config, seed: bytes) -> None:
    """E-CONF: a configuration out of range is an error of the request on both sides,
    and the field named is the one out of range."""
    expected = model.config_errors(cfg)
    try:
        RULES.new_game(engine_config(cfg), seed)
    except InvalidInput as err:
        fields = {v.field for v in err.violations}
        names = {"target_points" if f == "target" else f for f in expected}
        assert fields == names, (cfg, err)
        return
    assert not expected, (cfg, expected)


def test_every_violation_was_exercised() -> None:
    """The random illegal actions above reached every violation of the rulebook's list
    ("What the referee rejects"). After the differential test (file order) it reads
    what that run saw; run alone, it runs the differential test first."""
    if not SEEN:
        test_engine_agrees_with_model()
    expected = {
        ("NOT_YOUR_TURN", "E-TURN"),
        ("WRONG_PHASE", "E-PHASE"),
        ("CARD_NOT_IN_HAND", "E-CARD"),
        ("DISCARD_COUNT", "E-EXCH-5"),
        ("DISCARD_COUNT", "E-EXCH-6"),
        ("STOCK_TOO_SMALL", "E-EXCH-2"),
        ("JEU_DE_REGLE", "E-VAR-6"),
        ("MUST_FOLLOW_SUIT", "E-PLAY-3"),
        ("MUST_BEAT", "E-PLAY-4"),
        ("MUST_TRUMP", "E-PLAY-5"),
        ("KING_NOT_HELD", "E-KING-2"),
        ("KING_TOO_LATE", "E-KING-1"),
        ("KING_ALREADY_ANNOUNCED", "E-KING-5"),
        ("ANNOUNCED_KING_DISCARDED", "E-KING-3"),
        ("WAGERS_NOT_ALLOWED", "E-VAR-4"),
        ("WAGER_WINDOW_CLOSED", "E-VAR-4"),
        ("WAGER_OVER_LIMIT", "E-VAR-4"),
        ("WAGER_NOT_POSITIVE", "E-VAR-4"),
        ("SEAT_CANNOT_WAGER", "E-VAR-4"),
        ("SPECTATOR_CANNOT_PLAY", "E-VAR-4"),
        ("SEAT_SITS_OUT", "E-VAR-5"),
        ("MATCH_OVER", "E-END-3"),
    }
    assert expected <= SEEN, sorted(expected - SEEN)


def test_model_shuffle_and_cut_are_the_engines() -> None:
    """The model's SHUF and CUT, written from the text, give the engine's first dealers
    and first deals (a direct check, so that a shuffle difference is named as such)."""
    assert [name(c) for c in ECARTE_DECK] == list(model.DECK)
    for i in range(60):
        seed = bytes([i]) * 32
        for seats in (2, 3):
            e, _ = RULES.new_game(EcarteConfig(seats=seats), seed)
            m = model.new_game(model.Config(seats=seats), seed)
            assert (e.dealer - e.deal) % seats == m.first_dealer, (seed.hex(), seats)
            assert e.deal == m.deal
            if e.deal == 0:
                assert name(e.turn_up) == m.turn_up
                assert [name(c) for c in e.stock] == m.stock
