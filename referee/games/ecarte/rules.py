"""The rules of Écarté (docs/rules/ecarte.md, rule ids E-*).

``legal_actions`` is the single source of truth for legality: ``apply``
accepts an action exactly when ``legal_actions`` lists it (a discard as a set
of cards; a wager when its amount lies in the listed range). ``apply`` never
mutates its input; a rejected action returns the very input state. Both
assume a state that passed ``validate`` (the service validates every state on
the way in) and check every action (``InvalidInput`` for a malformed one).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Final

from referee.cards import name
from referee.games.base import (
    Actor,
    ActorKind,
    InvalidInput,
    OptionSpec,
    OptionType,
    Outcome,
    Scoreboard,
    SeatScore,
    SpectatorScore,
    VariantSpec,
    Verdict,
    Viewer,
    Violation,
)
from referee.games.ecarte import violations as V
from referee.games.ecarte.deck import (
    BEATS,
    CARD_BIT,
    ECARTE_SUIT_MASKS,
    IS_ECARTE_CARD,
    KING_RANK,
    KINGS,
    PACKET_POSITIONS,
    STRENGTH,
    SUIT,
    SUIT_MASK_OF,
    TURN_UP_POSITION,
    cut_dealer,
    ecarte_pack,
)
from referee.games.ecarte.jeux import is_jeu_de_regle
from referee.games.ecarte.state import (
    DEFAULT_GAMES_TO_WIN,
    DEFAULT_MULTIPLIER,
    DEFAULT_TARGET,
    DEFAULT_WAGER_LIMIT,
    HAND_SIZE,
    MAX_GAMES_TO_WIN,
    MAX_MULTIPLIER,
    MAX_SEATS,
    MAX_SPECTATOR_ID,
    MAX_STAKE,
    MAX_TARGET,
    MAX_WAGER_LIMIT,
    MIN_SEATS,
    NO_SEAT,
    ROLES,
    STOCK_SIZE,
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
    EcarteView,
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
    ScoreReason,
    SpectatorNet,
    TrickWon,
    Wager,
    WagerPlaced,
    WagerSettled,
)

GAME_ID: Final = "ecarte"
RULES_VERSION: Final = "ecarte/1"


# E-PHASE: the turn actions each phase allows (announcing and wagering aside).
PHASE_KINDS: Final[dict[Phase, frozenset[ActionKind]]] = {
    Phase.PROPOSAL: frozenset((ActionKind.PROPOSE, ActionKind.PLAY)),
    Phase.ANSWER: frozenset((ActionKind.ACCEPT, ActionKind.REFUSE)),
    Phase.ELDER_DISCARD: frozenset((ActionKind.DISCARD,)),
    Phase.RESPONDER_DISCARD: frozenset((ActionKind.DISCARD,)),
    Phase.TRICKS: frozenset((ActionKind.PLAY,)),
    Phase.MATCH_OVER: frozenset(),
}

# Enum members as module constants for the hot path (an enum attribute costs ~40 ns).
_PLAY_KIND: Final = ActionKind.PLAY
_SEAT_ACTOR: Final = ActorKind.SEAT
_PROPOSAL: Final = Phase.PROPOSAL
_TRICKS: Final = Phase.TRICKS
_MATCH_OVER: Final = Phase.MATCH_OVER
_ACCEPTED: Final = Verdict.ACCEPTED

# Immutable action and event objects, shared on the hot path.
_SEATS: Final = tuple(Actor.of_seat(s) for s in range(MAX_SEATS))
_PROPOSE: Final = tuple(EcarteAction(a, ActionKind.PROPOSE) for a in _SEATS)
_ACCEPT: Final = tuple(EcarteAction(a, ActionKind.ACCEPT) for a in _SEATS)
_REFUSE: Final = tuple(EcarteAction(a, ActionKind.REFUSE) for a in _SEATS)
_ANNOUNCE: Final = tuple(EcarteAction(a, ActionKind.ANNOUNCE_KING) for a in _SEATS)
_PLAYS: Final = tuple(tuple(EcarteAction(a, ActionKind.PLAY, c) for c in range(52)) for a in _SEATS)
_CARD_PLAYED: Final = tuple(tuple(CardPlayed(s, c) for c in range(52)) for s in range(MAX_SEATS))
_CARD_BYTE: Final = tuple(bytes((c,)) for c in range(52))
_OTHER: Final[dict[int, tuple[tuple[int, ...], ...]]] = {
    n: tuple(tuple(r if s == e else e if s == r else NO_SEAT for s in range(n)) for e, r in roles)
    for n, roles in ROLES.items()
}
"""``_OTHER[seats][dealer][seat]``: the other player of the deal (``NO_SEAT`` if sitting out)."""
_ZEROS: Final = {n: (0,) * n for n in ROLES}
_HAND_SIZES: Final = {
    n: tuple(tuple(HAND_SIZE if s in roles else 0 for s in range(n)) for roles in seat_roles)
    for n, seat_roles in ROLES.items()
}
"""``_HAND_SIZES[seats][dealer]``: cards dealt to each seat (E-DEAL-2, E-VAR-5)."""
_TRICK_WON: Final[dict[int, TrickWon]] = {}  # bounded: 5 tricks x seat pairs x 32 x 32 cards
_DISCARDS: Final[dict[tuple[int, int, int], tuple[EcarteAction, ...]]] = {}
# About 5.5 KB an entry (up to 31 discards of a 5-card hand): 1,024 entries hold ~6 MB.
# (65,536 grew a worker by ~340 MB under real traffic, where every deal is new.)
_CACHE_LIMIT: Final = 1 << 10


def _cards(mask: int) -> tuple[int, ...]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return tuple(out)


def _plays(seat: int, mask: int) -> list[EcarteAction]:
    """The plays of the cards of ``mask`` by ``seat``, in canonical order."""
    plays = _PLAYS[seat]
    out = []
    while mask:
        low = mask & -mask
        out.append(plays[low.bit_length() - 1])
        mask ^= low
    return out


def _discard_actions(seat: int, allowed: int, most: int) -> tuple[EcarteAction, ...]:
    """Every discard of 1 .. ``most`` cards of ``allowed`` (E-EXCH-5/6), smallest first."""
    key = (seat, allowed, most)
    found = _DISCARDS.get(key)
    if found is None:
        cards = _cards(allowed)
        # tuple.__new__ skips the named tuple's Python-level constructor (3x faster).
        head = (_SEATS[seat], ActionKind.DISCARD, -1)
        new = tuple.__new__
        found = tuple(
            new(EcarteAction, (*head, combo, -1, 0, 0))
            for k in range(1, most + 1)
            for combo in combinations(cards, k)
        )
        if len(_DISCARDS) >= _CACHE_LIMIT:
            _DISCARDS.clear()
        _DISCARDS[key] = found
    return found


def play_mask(state: EcarteState, seat: int) -> int:
    """The cards ``seat`` may play now, if on turn to play (E-PLAY-2 .. E-PLAY-6)."""
    hand = state.hands[seat]
    tricks = state.tricks
    if not len(tricks) & 1:
        return hand  # E-PLAY-2: the leader may lead any card
    led = tricks[-1]
    follow = hand & SUIT_MASK_OF[led]
    if follow:
        return follow & BEATS[led] or follow  # E-PLAY-3, E-PLAY-4
    return hand & ECARTE_SUIT_MASKS[state.trump] or hand  # E-PLAY-5, E-PLAY-6


class EcarteRules:
    """Écarté and its variants, as one stateless object (see ``RULES``)."""

    game_id = GAME_ID
    title = "Écarté"
    rules_version = RULES_VERSION
    rules_document = "docs/rules/ecarte.md"
    description = (
        "The 19th-century French two-player trick-taking game with a 32-card pack: "
        "five cards each, a turned-up trump, the proposal and exchange, five tricks "
        "with the strict duty to follow and to beat, the king of trumps, the point "
        "and the vole. Includes Écarté rapide and de Napoléon, matches of several "
        "games, stakes, Écarté au Cercle (gallery wagers), à trois and jeux de règle."
    )
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    options = (
        OptionSpec(
            "seats",
            "Number of seats: 2, or 3 for Écarté à trois.",
            OptionType.INTEGER,
            str(MIN_SEATS),
            "E-VAR-5",
            MIN_SEATS,
            MAX_SEATS,
        ),
        OptionSpec(
            "first_dealer",
            "The first dealer; absent: the seats cut, lowest card in Écarté order deals.",
            OptionType.INTEGER,
            "",
            "E-SEAT-2",
            0,
            MAX_SEATS - 1,
        ),
        OptionSpec(
            "packets",
            "How the five cards are dealt: 3 then 2 (default) or 2 then 3.",
            OptionType.ENUM,
            "ECARTE_PACKETS_THREE_TWO",
            "E-DEAL-2",
            choices=tuple(f"ECARTE_PACKETS_{p.name}" for p in Packets),
        ),
        OptionSpec(
            "target_points",
            "Points that win a game (rapide 3, Napoléon 11).",
            OptionType.INTEGER,
            str(DEFAULT_TARGET),
            "E-VAR-1",
            1,
            MAX_TARGET,
        ),
        OptionSpec(
            "games_to_win",
            "Games that win the match (trois manches gagnantes: 3).",
            OptionType.INTEGER,
            str(DEFAULT_GAMES_TO_WIN),
            "E-VAR-2",
            1,
            MAX_GAMES_TO_WIN,
        ),
        OptionSpec(
            "stake",
            "Chips paid per point; 0 plays without stakes.",
            OptionType.INTEGER,
            "0",
            "E-VAR-3",
            0,
            MAX_STAKE,
        ),
        OptionSpec(
            "vole_multiplier",
            "Stakes: multiplier of the points of a vole.",
            OptionType.INTEGER,
            str(DEFAULT_MULTIPLIER),
            "E-VAR-3",
            1,
            MAX_MULTIPLIER,
        ),
        OptionSpec(
            "king_multiplier",
            "Stakes: multiplier of a king's point (turned or announced).",
            OptionType.INTEGER,
            str(DEFAULT_MULTIPLIER),
            "E-VAR-3",
            1,
            MAX_MULTIPLIER,
        ),
        OptionSpec(
            "gallery",
            "Écarté au Cercle: spectators may wager on the winner of the game.",
            OptionType.BOOL,
            "false",
            "E-VAR-4",
        ),
        OptionSpec(
            "wager_limit",
            "Écarté au Cercle: the largest single wager.",
            OptionType.INTEGER,
            str(DEFAULT_WAGER_LIMIT),
            "E-VAR-4",
            1,
            MAX_WAGER_LIMIT,
        ),
        OptionSpec(
            "jeux_de_regle",
            "The elder may not propose while holding a jeu de règle.",
            OptionType.BOOL,
            "false",
            "E-VAR-6",
        ),
    )
    variants = (
        VariantSpec(
            "ecarte_rapide",
            "Écarté rapide",
            "E-VAR-1",
            "Games to 3 points.",
            (("target_points", "3"),),
        ),
        VariantSpec(
            "ecarte_de_napoleon",
            "Écarté de Napoléon",
            "E-VAR-1",
            "Games to 11 points.",
            (("target_points", "11"),),
        ),
        VariantSpec(
            "trois_manches",
            "Trois manches gagnantes",
            "E-VAR-2",
            "The first to win three games wins the match.",
            (("games_to_win", "3"),),
        ),
        VariantSpec(
            "cinq_manches",
            "Cinq manches gagnantes",
            "E-VAR-2",
            "The first to win five games wins the match.",
            (("games_to_win", "5"),),
        ),
        VariantSpec(
            "avec_enjeux",
            "Écarté avec enjeux",
            "E-VAR-3",
            "Each point is paid in chips; vole and king points at a multiple.",
            (("stake", "1"), ("vole_multiplier", "2"), ("king_multiplier", "2")),
        ),
        VariantSpec(
            "au_cercle",
            "Écarté au Cercle",
            "E-VAR-4",
            "Spectators wager on the winner of each game, before the first lead.",
            (("gallery", "true"),),
        ),
        VariantSpec(
            "a_trois",
            "Écarté à trois",
            "E-VAR-5",
            "Three players; the dealer sits out each deal.",
            (("seats", "3"),),
        ),
        VariantSpec(
            "jeux_de_regle",
            "Jeux de règle",
            "E-VAR-6",
            "The elder must play, not propose, with a jeu de règle.",
            (("jeux_de_regle", "true"),),
        ),
    )

    # ------------------------------------------------------------ start

    def new_game(self, config: EcarteConfig, seed: bytes) -> tuple[EcarteState, list[EcarteEvent]]:
        """E-SEAT-2 (cut or fixed dealer), then deal 0 (E-DEAL)."""
        config.check()
        if len(seed) != 32:
            raise InvalidInput.one("seed", "must be 32 bytes")
        n = config.seats
        events: list[EcarteEvent] = []
        if config.first_dealer is None:
            dealer, draws = cut_dealer(seed, n)
            events.append(DealerCut(draws, dealer))
        else:
            dealer = config.first_dealer
        zeros = (0,) * n
        state = EcarteState(
            config=config,
            seed=seed,
            phase=Phase.PROPOSAL,
            deal=0,
            dealer=dealer,
            turn=0,
            hands=zeros,
            discards=zeros,
            tricks_won=zeros,
            points=zeros,
            games_won=zeros,
            chips=zeros,
            turn_up=0,
            trump=0,
            stock=b"",
            tricks=b"",
            king_announced=NO_SEAT,
            wagers=(),
            ledger=(),
        )
        self._deal(state, events)
        return state, events

    def _deal(self, s: EcarteState, events: list[EcarteEvent]) -> None:
        """E-DEAL-1 .. E-DEAL-4: deal number ``s.deal`` by ``s.dealer``. Mutates ``s``."""
        cfg = s.config
        n = cfg.seats
        pack = ecarte_pack(s.seed, s.deal)  # E-DEAL-1
        elder, responder = ROLES[n][s.dealer]
        ep, rp = PACKET_POSITIONS[cfg.packets]  # E-DEAL-2
        cards_e = sorted([pack[i] for i in ep])
        cards_r = sorted([pack[i] for i in rp])
        bit = CARD_BIT
        hands = [0] * n
        hands[elder] = bit[cards_e[0]] | bit[cards_e[1]] | bit[cards_e[2]] | bit[cards_e[3]]
        hands[elder] |= bit[cards_e[4]]
        hands[responder] = bit[cards_r[0]] | bit[cards_r[1]] | bit[cards_r[2]] | bit[cards_r[3]]
        hands[responder] |= bit[cards_r[4]]
        zeros = _ZEROS[n]
        turn_up = pack[TURN_UP_POSITION]  # E-DEAL-3
        s.phase = Phase.PROPOSAL
        s.turn = elder
        s.hands = tuple(hands)
        s.discards = zeros
        s.tricks_won = zeros
        s.turn_up = turn_up
        s.trump = SUIT[turn_up]
        s.stock = bytes(pack[TURN_UP_POSITION + 1 :])
        s.tricks = b""
        s.king_announced = NO_SEAT
        shown: list[tuple[int, ...]] = [()] * n
        shown[elder] = tuple(cards_e)
        shown[responder] = tuple(cards_r)
        events.append(
            Dealt(
                s.deal,
                sum(s.games_won),
                s.dealer,
                elder,
                responder,
                turn_up,
                STOCK_SIZE,
                _HAND_SIZES[n][s.dealer],
                tuple(shown),
            )
        )
        if turn_up % 13 == KING_RANK:
            # E-DEAL-4: the turned king scores for the responder at once.
            events.append(KingTurned(responder, turn_up))
            self._score(s, responder, 1, ScoreReason.TURNED_KING, events)

    def _next_deal(self, s: EcarteState, events: list[EcarteEvent]) -> None:
        """E-DEAL-5, E-SEAT-3: the next deal, by the next dealer, at once."""
        s.deal += 1
        s.dealer = (s.dealer + 1) % s.config.seats
        self._deal(s, events)

    def _score(
        self,
        s: EcarteState,
        seat: int,
        points: int,
        reason: ScoreReason,
        events: list[EcarteEvent],
    ) -> bool:
        """Score ``points`` to ``seat`` with their stakes (E-SCORE, E-VAR-3); end the game
        when the target is reached (E-END-1). Returns True when the game ended (the next
        deal, if any, is then dealt). Mutates ``s``."""
        cfg = s.config
        totals = list(s.points)
        totals[seat] += points
        s.points = tuple(totals)
        chips = 0
        payer = NO_SEAT
        if cfg.stake:
            elder, responder = ROLES[cfg.seats][s.dealer]
            payer = responder if seat == elder else elder
            chips = points * cfg.stake
            if reason is ScoreReason.VOLE:
                chips *= cfg.vole_multiplier
            elif reason is not ScoreReason.POINT:
                chips *= cfg.king_multiplier
            ledger = list(s.chips)
            ledger[seat] += chips
            ledger[payer] -= chips
            s.chips = tuple(ledger)
        events.append(PointsScored(seat, reason, points, totals[seat], chips, payer))
        if totals[seat] >= cfg.target_points:
            self._end_game(s, seat, events)
            return True
        return False

    def _end_game(self, s: EcarteState, winner: int, events: list[EcarteEvent]) -> None:
        """E-END-1, E-END-2, E-VAR-4 settlement. Mutates ``s``."""
        cfg = s.config
        game = s.game
        won = list(s.games_won)
        won[winner] += 1
        s.games_won = tuple(won)
        events.append(GameWon(game, winner, s.points))
        if s.wagers:
            nets = {x.spectator: x.net for x in s.ledger}
            for w in s.wagers:
                gain = w.amount if w.seat == winner else -w.amount
                net = nets.get(w.spectator, 0) + gain
                nets[w.spectator] = net
                events.append(WagerSettled(w.spectator, w.seat, w.amount, gain > 0, net))
            s.ledger = tuple(SpectatorNet(k, nets[k]) for k in sorted(nets))
            s.wagers = ()
        if won[winner] >= cfg.games_to_win:
            s.phase = Phase.MATCH_OVER
            events.append(MatchWon(winner, s.games_won))
            return
        s.points = (0,) * cfg.seats
        self._next_deal(s, events)

    def _end_deal(self, s: EcarteState, events: list[EcarteEvent]) -> None:
        """E-PLAY-8 then E-SCORE-1 .. E-SCORE-3; the next deal. Mutates ``s``."""
        elder, responder = ROLES[s.config.seats][s.dealer]
        won = s.tricks_won
        winner = elder if won[elder] >= 3 else responder
        vole = won[winner] == 5
        points = 2 if vole else 1
        original = not (s.discards[elder] or s.discards[responder])  # E-EXCH-9
        raised = original and winner == responder  # E-SCORE-3
        if raised:
            points += 1
        events.append(DealScored(s.deal, winner, won, vole, raised, original))
        reason = ScoreReason.VOLE if vole else ScoreReason.POINT
        if not self._score(s, winner, points, reason, events):
            self._next_deal(s, events)

    # ------------------------------------------------------------ legality

    def legal_actions(self, state: EcarteState, actor: Actor | None) -> list[EcarteAction]:
        """Every action ``actor`` may take now; ``None``: every seat (spectators aside)."""
        if actor is None and state.tricks and state.phase is _TRICKS:  # hot path: the tricks
            seat = state.turn
            m = play_mask(state, seat)
            plays = _PLAYS[seat]
            out = []
            while m:
                low = m & -m
                out.append(plays[low.bit_length() - 1])
                m ^= low
            return out
        if actor is not None and actor.kind is ActorKind.TABLE:
            return []  # D-15: the table never has an action in Écarté
        if state.phase is Phase.MATCH_OVER:
            if actor is not None:
                self._check_actor(state, actor)
            return []  # E-END-3
        if actor is None:
            out = self._turn_actions(state, state.turn)
            if not state.tricks and state.king_announced < 0:
                holder = self._king_holder(state)
                if holder >= 0 and holder != state.turn:
                    out.append(_ANNOUNCE[holder])
            return out
        self._check_actor(state, actor)
        if actor.kind is ActorKind.SPECTATOR:
            cfg = state.config
            if not cfg.gallery or state.tricks:
                return []
            return [
                EcarteAction(actor, ActionKind.WAGER, seat=s, amount=1, amount_max=cfg.wager_limit)
                for s in range(cfg.seats)
            ]
        seat = actor.seat
        if seat == state.turn:
            return self._turn_actions(state, seat)
        if (
            not state.tricks
            and state.king_announced < 0
            and state.hands[seat] >> KINGS[state.trump] & 1
        ):
            return [_ANNOUNCE[seat]]
        return []

    def _king_holder(self, state: EcarteState) -> int:
        king = CARD_BIT[KINGS[state.trump]]
        for s, h in enumerate(state.hands):
            if h & king:
                return s
        return NO_SEAT

    def _turn_actions(self, state: EcarteState, seat: int) -> list[EcarteAction]:
        """The actions of the seat on turn (``seat == state.turn``), announcing included."""
        phase = state.phase
        hand = state.hands[seat]
        if phase is Phase.TRICKS:
            out = _plays(seat, play_mask(state, seat))
            if state.tricks:
                return out
        elif phase is Phase.PROPOSAL:
            out = []
            if len(state.stock) >= 2 and not (
                state.config.jeux_de_regle and is_jeu_de_regle(hand, state.trump)
            ):
                out.append(_PROPOSE[seat])
            out.extend(_plays(seat, hand))
        elif phase is Phase.ANSWER:
            out = [_ACCEPT[seat], _REFUSE[seat]]
        else:
            stock = len(state.stock)
            most = stock - 1 if phase is Phase.ELDER_DISCARD else stock
            allowed = hand
            if state.king_announced >= 0:
                allowed &= ~CARD_BIT[KINGS[state.trump]]  # E-KING-3
            out = list(_discard_actions(seat, allowed, min(HAND_SIZE, most)))
        if state.king_announced < 0 and hand >> KINGS[state.trump] & 1:
            out.append(_ANNOUNCE[seat])
        return out

    def _check_actor(self, state: EcarteState, actor: Actor) -> None:
        if actor.kind is ActorKind.SEAT:
            if not 0 <= actor.seat < state.config.seats:
                raise InvalidInput.one("actor.seat", "is not a seat of the table")
        elif actor.kind is ActorKind.SPECTATOR:
            if not 0 < len(actor.spectator) <= MAX_SPECTATOR_ID:
                raise InvalidInput.one(
                    "actor.spectator", f"must be 1 .. {MAX_SPECTATOR_ID} characters"
                )
        else:
            raise InvalidInput.one("actor", "Écarté has no table actions")

    def _check_action(self, state: EcarteState, action: EcarteAction) -> None:
        """``InvalidInput`` for a malformed action (an error of the request, not a verdict)."""
        self._check_actor(state, action.actor)
        kind = action.kind
        if not isinstance(kind, ActionKind):
            raise InvalidInput.one("kind", "an action needs a kind")
        if kind is ActionKind.PLAY:
            if not (type(action.card) is int and 0 <= action.card < 52):
                raise InvalidInput.one("play.card", "is not a card")
            if not IS_ECARTE_CARD[action.card]:
                raise InvalidInput.one("play.card", "is not a card of the Écarté pack (E-DECK-1)")
        elif kind is ActionKind.DISCARD:
            seen = 0
            for i, c in enumerate(action.cards):
                if not (type(c) is int and 0 <= c < 52 and IS_ECARTE_CARD[c]):
                    raise InvalidInput.one(
                        f"discard.cards[{i}]", "is not a card of the Écarté pack (E-DECK-1)"
                    )
                if seen >> c & 1:
                    raise InvalidInput.one(f"discard.cards[{i}]", f"{name(c)} is named twice")
                seen |= 1 << c
        elif kind is ActionKind.WAGER:
            if not (type(action.seat) is int and 0 <= action.seat < state.config.seats):
                raise InvalidInput.one("wager.seat", "is not a seat of the table")
            if type(action.amount) is not int:
                raise InvalidInput.one("wager.amount", "must be a whole number")

    def violations(self, state: EcarteState, action: EcarteAction) -> list[Violation]:
        """Why ``action`` is illegal now (empty when legal). Mirrors ``legal_actions``."""
        if state.phase is Phase.MATCH_OVER:
            return [Violation(V.MATCH_OVER, "the match is over", "E-END-3")]
        actor = action.actor
        kind = action.kind
        if actor.kind is ActorKind.SPECTATOR:
            if kind is not ActionKind.WAGER:
                return [Violation(V.SPECTATOR_CANNOT_PLAY, "a spectator may only wager", "E-VAR-4")]
            return self._wager_violations(state, action)
        seat = actor.seat
        if kind is ActionKind.WAGER:
            return [Violation(V.SEAT_CANNOT_WAGER, "seats cannot wager", "E-VAR-4")]
        elder, responder = ROLES[state.config.seats][state.dealer]
        out: list[Violation] = []
        if seat != elder and seat != responder:
            # D-16: named first, with every other rule the action breaks (it is never on
            # turn and holds no card: E-TURN, E-CARD, E-KING-2 as they apply, D-6).
            out.append(
                Violation(V.SEAT_SITS_OUT, f"seat {seat} deals this deal and sits out", "E-VAR-5")
            )
        if kind is ActionKind.ANNOUNCE_KING:
            out.extend(self._announce_violations(state, seat))
            return out
        if seat != state.turn:
            out.append(
                Violation(
                    V.NOT_YOUR_TURN, f"it is seat {state.turn}'s turn, not seat {seat}'s", "E-TURN"
                )
            )
        if kind not in PHASE_KINDS[state.phase]:
            out.append(
                Violation(
                    V.WRONG_PHASE,
                    f"{kind.name.lower()} is not allowed in phase {state.phase.name.lower()}",
                    "E-PHASE",
                )
            )
        on_turn = not out  # neither sitting out, nor out of turn, nor in the wrong phase
        hand = state.hands[seat]
        if kind is ActionKind.PLAY:
            card = action.card
            if not hand >> card & 1:
                out.append(
                    Violation(
                        V.CARD_NOT_IN_HAND, f"seat {seat} does not hold {name(card)}", "E-CARD"
                    )
                )
            elif on_turn:
                out.extend(self._follow_violations(state, hand, card))
        elif kind is ActionKind.DISCARD:
            mask = 0
            for c in action.cards:
                mask |= 1 << c
            if mask & ~hand:
                missing = " ".join(name(c) for c in action.cards if not hand >> c & 1)
                out.append(
                    Violation(V.CARD_NOT_IN_HAND, f"seat {seat} does not hold {missing}", "E-CARD")
                )
            # E-KING-3 binds the king's holder, its announcer, on turn or not (D-6): another
            # seat naming that king does not hold it, which is E-CARD alone.
            king = KINGS[state.trump]
            if state.king_announced == seat and mask & hand & CARD_BIT[king]:
                out.append(
                    Violation(
                        V.ANNOUNCED_KING_DISCARDED,
                        f"the announced king {name(king)} may not be discarded",
                        "E-KING-3",
                    )
                )
            if on_turn:
                out.extend(self._discard_violations(state, seat, mask))
        elif kind is ActionKind.PROPOSE and on_turn:
            if len(state.stock) < 2:
                out.append(
                    Violation(
                        V.STOCK_TOO_SMALL,
                        f"the stock holds {len(state.stock)} card(s); proposing needs 2",
                        "E-EXCH-2",
                    )
                )
            if state.config.jeux_de_regle and is_jeu_de_regle(hand, state.trump):
                out.append(
                    Violation(
                        V.JEU_DE_REGLE,
                        "the elder holds a jeu de règle and must play",
                        "E-VAR-6",
                    )
                )
        return out

    def _follow_violations(self, state: EcarteState, hand: int, card: int) -> list[Violation]:
        """E-PLAY-3 .. E-PLAY-5 for a card held by the seat on turn."""
        tricks = state.tricks
        if not len(tricks) & 1:
            return []
        led = tricks[-1]
        follow = hand & ECARTE_SUIT_MASKS[SUIT[led]]
        if follow:
            if not follow >> card & 1:
                return [
                    Violation(
                        V.MUST_FOLLOW_SUIT,
                        f"{name(card)} does not follow {name(led)}; a card of its suit is held",
                        "E-PLAY-3",
                    )
                ]
            if follow & BEATS[led] and not BEATS[led] >> card & 1:
                return [
                    Violation(
                        V.MUST_BEAT,
                        f"{name(card)} does not beat {name(led)}; "
                        "a higher card of its suit is held",
                        "E-PLAY-4",
                    )
                ]
            return []
        trumps = hand & ECARTE_SUIT_MASKS[state.trump]
        if trumps and not trumps >> card & 1:
            return [
                Violation(
                    V.MUST_TRUMP,
                    f"cannot follow {name(led)}: a trump must be played",
                    "E-PLAY-5",
                )
            ]
        return []

    def _discard_violations(self, state: EcarteState, seat: int, mask: int) -> list[Violation]:
        """E-EXCH-5 / E-EXCH-6: the discard's count, for the seat on turn."""
        out: list[Violation] = []
        stock = len(state.stock)
        if state.phase is Phase.ELDER_DISCARD:
            most, rule = min(HAND_SIZE, stock - 1), "E-EXCH-5"
        else:
            most, rule = min(HAND_SIZE, stock), "E-EXCH-6"
        count = mask.bit_count()
        if not 1 <= count <= most:
            out.append(
                Violation(
                    V.DISCARD_COUNT,
                    f"seat {seat} must discard 1 .. {most} card(s) (stock {stock}), not {count}",
                    rule,
                )
            )
        return out

    def _announce_violations(self, state: EcarteState, seat: int) -> list[Violation]:
        out: list[Violation] = []
        king = KINGS[state.trump]
        if state.tricks:
            out.append(
                Violation(
                    V.KING_TOO_LATE,
                    "the king must be announced before the first lead; "
                    f"{len(state.tricks)} card(s) of this deal have been played",
                    "E-KING-1",
                )
            )
        if state.king_announced >= 0:
            out.append(
                Violation(
                    V.KING_ALREADY_ANNOUNCED,
                    f"seat {state.king_announced} already announced the king",
                    "E-KING-5",
                )
            )
        if state.turn_up == king:
            out.append(
                Violation(
                    V.KING_NOT_HELD,
                    f"{name(king)} is the turn-up, which nobody holds (D-7)",
                    "E-KING-2",
                )
            )
        elif not state.hands[seat] >> king & 1:
            out.append(
                Violation(V.KING_NOT_HELD, f"seat {seat} does not hold {name(king)}", "E-KING-2")
            )
        return out

    def _wager_violations(self, state: EcarteState, action: EcarteAction) -> list[Violation]:
        cfg = state.config
        if not cfg.gallery:
            return [
                Violation(V.WAGERS_NOT_ALLOWED, "wagers need Écarté au Cercle (gallery)", "E-VAR-4")
            ]
        out: list[Violation] = []
        if state.tricks:
            out.append(
                Violation(
                    V.WAGER_WINDOW_CLOSED,
                    "wagers are taken only before the first lead of a deal",
                    "E-VAR-4",
                )
            )
        if action.amount < 1:
            out.append(Violation(V.WAGER_NOT_POSITIVE, "a wager is a positive amount", "E-VAR-4"))
        elif action.amount > cfg.wager_limit:
            out.append(
                Violation(
                    V.WAGER_OVER_LIMIT,
                    f"a wager is at most {cfg.wager_limit:,} chips",
                    "E-VAR-4",
                )
            )
        return out

    # ------------------------------------------------------------ apply

    def apply(self, state: EcarteState, action: EcarteAction) -> Outcome[EcarteState, EcarteEvent]:
        kind = action.kind
        actor = action.actor
        if kind is _PLAY_KIND:
            # Fast path: a legal play by the seat on turn (the turn is a valid seat).
            card = action.card
            phase = state.phase
            if (
                actor.kind is _SEAT_ACTOR
                and actor.seat == state.turn
                and type(card) is int
                and card >= 0
                and (phase is _TRICKS or phase is _PROPOSAL)
                and play_mask(state, actor.seat) >> card & 1
            ):
                return self._play(state, actor.seat, card)
        self._check_action(state, action)
        violations = self.violations(state, action)
        if violations:
            return Outcome(Verdict.REJECTED, state, [], tuple(violations))
        if kind is ActionKind.PLAY:  # pragma: no cover - the fast path takes every legal play
            return self._play(state, actor.seat, action.card)
        new = state.clone()
        events: list[EcarteEvent] = []
        seat = actor.seat
        elder, responder = ROLES[state.config.seats][state.dealer]
        if kind is ActionKind.PROPOSE:
            new.phase = Phase.ANSWER  # E-EXCH-3
            new.turn = responder
            events.append(Proposed(seat))
        elif kind is ActionKind.ACCEPT:
            new.phase = Phase.ELDER_DISCARD  # E-EXCH-5
            new.turn = elder
            events.append(Accepted(seat))
        elif kind is ActionKind.REFUSE:
            new.phase = Phase.TRICKS  # E-EXCH-4
            new.turn = elder
            events.append(Refused(seat))
        elif kind is ActionKind.DISCARD:
            self._exchange(new, seat, action.cards, events)
            if state.phase is Phase.ELDER_DISCARD:
                new.phase = Phase.RESPONDER_DISCARD  # E-EXCH-6
                new.turn = responder
            else:
                new.phase = Phase.PROPOSAL  # E-EXCH-7
                new.turn = elder
        elif kind is ActionKind.ANNOUNCE_KING:
            new.king_announced = seat  # E-KING-1, E-KING-5
            events.append(KingAnnounced(seat, KINGS[state.trump]))
            self._score(new, seat, 1, ScoreReason.ANNOUNCED_KING, events)  # E-KING-4
        else:  # WAGER (E-VAR-4)
            new.wagers = (*state.wagers, Wager(actor.spectator, action.seat, action.amount))
            events.append(WagerPlaced(actor.spectator, action.seat, action.amount))
        return Outcome(Verdict.ACCEPTED, new, events)

    def _exchange(
        self, s: EcarteState, seat: int, cards: tuple[int, ...], events: list[EcarteEvent]
    ) -> None:
        """E-EXCH-5/6: discard ``cards`` face down, draw as many from the top of the stock."""
        mask = 0
        for c in cards:
            mask |= 1 << c
        k = len(cards)
        drawn = s.stock[:k]
        s.stock = s.stock[k:]
        got = 0
        for c in drawn:
            got |= 1 << c
        hands = list(s.hands)
        hands[seat] = hands[seat] & ~mask | got
        s.hands = tuple(hands)
        discards = list(s.discards)
        discards[seat] |= mask
        s.discards = tuple(discards)
        events.append(Exchanged(seat, k, _cards(mask), tuple(drawn), len(s.stock)))

    def _play(self, state: EcarteState, seat: int, card: int) -> Outcome[EcarteState, EcarteEvent]:
        """E-EXCH-1 (a lead ends the exchange), E-PLAY-1 .. E-PLAY-8."""
        s = state.clone()
        hands = state.hands
        s.hands = (*hands[:seat], hands[seat] ^ CARD_BIT[card], *hands[seat + 1 :])
        tricks = state.tricks + _CARD_BYTE[card]
        s.tricks = tricks
        s.phase = _TRICKS
        other = _OTHER[state.config.seats][state.dealer][seat]
        if len(tricks) & 1:
            s.turn = other
            return Outcome(_ACCEPTED, s, [_CARD_PLAYED[seat][card]])
        led = tricks[-2]
        # E-PLAY-7: the follower wins with a higher card of the suit led, or a trump.
        if SUIT[card] == SUIT[led]:
            winner = seat if STRENGTH[card] > STRENGTH[led] else other
        else:
            winner = seat if SUIT[card] == state.trump else other
        won = list(state.tricks_won)
        won[winner] += 1
        s.tricks_won = tuple(won)
        s.turn = winner  # E-PLAY-1
        key = ((len(tricks) * 4 + winner) * 4 + other) * 4096 + led * 64 + card
        trick_won = _TRICK_WON.get(key)
        if trick_won is None:
            trick_won = _TRICK_WON[key] = TrickWon(len(tricks) // 2 - 1, winner, other, (led, card))
        events: list[EcarteEvent] = [_CARD_PLAYED[seat][card], trick_won]
        if len(tricks) == 10:
            self._end_deal(s, events)  # E-PLAY-8
        return Outcome(_ACCEPTED, s, events)

    # ------------------------------------------------------------ reading

    def validate(self, state: EcarteState) -> None:
        """Raise :class:`InvalidInput` unless ``state`` is a possible state of these rules."""
        from referee.games.ecarte.validation import validate

        validate(state)

    def is_over(self, state: EcarteState) -> bool:
        return state.phase is _MATCH_OVER

    def winner(self, state: EcarteState) -> int:
        """The match winner, or ``NO_SEAT`` while the match runs."""
        if state.phase is not Phase.MATCH_OVER:
            return NO_SEAT
        goal = state.config.games_to_win
        return next((s for s, g in enumerate(state.games_won) if g >= goal), NO_SEAT)

    def scoreboard(self, state: EcarteState) -> Scoreboard:
        n = state.config.seats
        seats = tuple(
            [
                SeatScore(
                    seat=s,
                    points=state.points[s],
                    games_won=state.games_won[s],
                    chips=state.chips[s],
                    cards_in_hand=state.hands[s].bit_count(),
                )
                for s in range(n)
            ]
        )
        spectators: tuple[SpectatorScore, ...] = ()
        if state.wagers or state.ledger:  # a gallery (E-VAR-2)
            open_by: dict[str, int] = {}
            for w in state.wagers:
                open_by[w.spectator] = open_by.get(w.spectator, 0) + w.amount
            nets = {x.spectator: x.net for x in state.ledger}
            spectators = tuple(
                SpectatorScore(k, nets.get(k, 0), open_by.get(k, 0))
                for k in sorted(set(nets) | set(open_by))
            )
        winner = self.winner(state)
        return Scoreboard(
            seats=seats,
            finished=state.phase is Phase.MATCH_OVER,
            winners=(winner,) if winner >= 0 else (),
            spectators=spectators,
        )

    def view(self, state: EcarteState, viewer: Viewer) -> EcarteView:
        from referee.games.ecarte.views import view

        return view(state, viewer)

    def redact_events(
        self, state: EcarteState, events: Sequence[EcarteEvent], viewer: Viewer
    ) -> list[EcarteEvent]:
        from referee.games.ecarte.views import redact_events

        return redact_events(events, viewer, state.config.seats)


RULES: Final = EcarteRules()
