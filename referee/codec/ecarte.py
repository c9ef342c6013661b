"""Écarté: protobuf <-> rules objects (docs/rules/ecarte.md).

Every field-level check of the protobuf messages happens here, with the proto
field paths (``state.ecarte.seats[1].hand``, ``action.ecarte.discard.cards[2]``),
so that the rules core never sees a malformed value; the state is then
checked as a whole by ``RULES.validate``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from referee.cards import ECARTE_MASK, FULL_MASK, name
from referee.codec.common import (
    CARD_MESSAGES,
    CardField,
    ConfigDecoder,
    WireError,
    card_code,
    check_enum,
    checked,
    decode_actor,
    encode_actor,
    encode_game_info,
    field_span,
    read_length,
    read_scalars,
    read_varint,
    read_wire,
    remember,
    remember_by_bytes,
    signed,
    skip_field,
    zigzag,
)
from referee.games.base import ActorKind, InvalidInput
from referee.games.ecarte.rules import RULES
from referee.games.ecarte.state import (
    DEFAULT_GAMES_TO_WIN,
    DEFAULT_MULTIPLIER,
    DEFAULT_TARGET,
    DEFAULT_WAGER_LIMIT,
    MAX_SEATS,
    MIN_SEATS,
    NO_SEAT,
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
    SpectatorNet,
    TrickWon,
    Wager,
    WagerPlaced,
    WagerSettled,
)
from referee.v1 import ecarte_pb2 as pb
from referee.v1 import referee_pb2

# The repeated Card fields written from card codes (CardField).
_DISCARD_CARDS: Final = CardField(pb.EcarteDiscard, "cards")
_DRAW_CARDS: Final = CardField(pb.EcarteCutDraw, "cards")
_DEALT_CARDS: Final = CardField(pb.EcarteHandDealt, "cards")
_EXCHANGED_DISCARDED: Final = CardField(pb.EcarteExchanged, "discarded")
_EXCHANGED_DRAWN: Final = CardField(pb.EcarteExchanged, "drawn")
_TRICK_WON_CARDS: Final = CardField(pb.EcarteTrickWon, "cards")
_SEAT_HAND: Final = CardField(pb.EcarteSeatView, "hand")
_SEAT_DISCARDS: Final = CardField(pb.EcarteSeatView, "discards")
_TRICK_CARDS: Final = CardField(pb.EcarteTrickView, "cards")

_SIMPLE_ACTIONS: Final = {
    "propose": ActionKind.PROPOSE,
    "accept": ActionKind.ACCEPT,
    "refuse": ActionKind.REFUSE,
    "announce_king": ActionKind.ANNOUNCE_KING,
}
_SIMPLE_NAMES: Final = {kind: field for field, kind in _SIMPLE_ACTIONS.items()}


def _card_sequence(data: bytes, path: str) -> bytes:
    """An ordered list of Écarté cards (the stock, the tricks); each card once."""
    seen = 0
    for i, c in enumerate(data):
        if c >= 52 or not ECARTE_MASK >> c & 1:
            raise InvalidInput.one(path, f"byte {i}: card code {c} is not a card of the pack")
        if seen >> c & 1:
            raise InvalidInput.one(path, f"{name(c)} appears twice")
        seen |= 1 << c
    return bytes(data)


def _ecarte_card(card: Any, path: str) -> int:
    code = card_code(card, path)
    if not ECARTE_MASK >> code & 1:
        raise InvalidInput.one(path, f"{name(code)} is not a card of the Écarté pack (E-DECK-1)")
    return code


GAME_STATE_FIELD: Final = referee_pb2.GameState.DESCRIPTOR.fields_by_name["ecarte"].number
PHASES: Final[dict[int, Phase]] = {int(p): p for p in Phase}
# Compiled (mypyc), reading a state from its canonical bytes is the faster way; interpreted,
# protobuf's attributes (implemented in C) beat a Python loop over bytes. Both read the
# same fields with the same checks (tests/test_codec_wire.py compares them; the test
# suite runs against both builds).
READ_BYTES: Final = not __file__.endswith(".py")


class EcarteCodec:
    game_id = "ecarte"
    rules = RULES

    def __init__(self) -> None:
        self._configs = ConfigDecoder(self._build_config, self._encode_config)
        # Decoded actions, by their serialized form (actions repeat: decode each once).
        self._decoded: dict[bytes, EcarteAction] = {}
        # Serialized actions (action_bytes), by action.
        self._actions: dict[EcarteAction, bytes] = {}

    # ------------------------------------------------------------ config

    def decode_config(self, msg: referee_pb2.GameConfig, path: str) -> EcarteConfig:
        return self._configs.config(msg.ecarte, f"{path}.ecarte")

    def seat_count_of_config(self, config: EcarteConfig) -> int:
        return config.seats

    def seat_count(self, state: EcarteState) -> int:
        return state.config.seats

    def _build_config(self, c: pb.EcarteConfig, path: str) -> EcarteConfig:
        check_enum(c.packets, range(0, 3), f"{path}.packets", "packets")
        config = EcarteConfig(
            seats=c.seats or MIN_SEATS,
            first_dealer=c.first_dealer if c.HasField("first_dealer") else None,
            packets=Packets(c.packets or Packets.THREE_TWO),
            target_points=c.target_points or DEFAULT_TARGET,
            games_to_win=c.games_to_win or DEFAULT_GAMES_TO_WIN,
            stake=c.stake,
            vole_multiplier=c.vole_multiplier or DEFAULT_MULTIPLIER,
            king_multiplier=c.king_multiplier or DEFAULT_MULTIPLIER,
            gallery=c.gallery,
            wager_limit=c.wager_limit or DEFAULT_WAGER_LIMIT,
            jeux_de_regle=c.jeux_de_regle,
        )
        try:
            config.check()
        except InvalidInput as e:
            raise e.prefixed(path) from None
        return config

    def _encode_config(self, config: EcarteConfig, out: pb.EcarteConfig) -> None:
        out.seats = config.seats
        if config.first_dealer is not None:
            out.first_dealer = config.first_dealer
        out.packets = config.packets  # type: ignore[assignment]
        out.target_points = config.target_points
        out.games_to_win = config.games_to_win
        out.stake = config.stake
        out.vole_multiplier = config.vole_multiplier
        out.king_multiplier = config.king_multiplier
        out.gallery = config.gallery
        out.wager_limit = config.wager_limit
        out.jeux_de_regle = config.jeux_de_regle

    # ------------------------------------------------------------ state

    def decode_state(
        self, msg: referee_pb2.GameState, seed: bytes, path: str, data: bytes | None = None
    ) -> EcarteState:
        """Compiled, the fields are read from ``data``, the canonical serialization of
        ``msg`` (the state hash is taken of it; made here when not given); interpreted,
        through the message's attributes (READ_BYTES)."""
        if READ_BYTES:
            if data is None:
                data = msg.SerializeToString(deterministic=True)
            return self.decode_state_bytes(data, seed, path)
        path = f"{path}.ecarte"
        return checked(RULES.validate, self._read_message(msg.ecarte, seed, path), path)

    def decode_state_bytes(self, data: bytes, seed: bytes, path: str) -> EcarteState:
        """The checked state of a GameState's canonical bytes ``data``."""
        path = f"{path}.ecarte"
        return checked(RULES.validate, read_wire(self._read_state, data, seed, path), path)

    def _read_message(self, s: pb.EcarteState, seed: bytes, path: str) -> EcarteState:
        """The state's fields read through the message's attributes (interpreted, the
        faster way: see READ_BYTES); unchecked."""
        config = self._configs.state_config(s.config, f"{path}.config")
        check_enum(s.phase, range(1, 7), f"{path}.phase", "phase")
        check_enum(s.trump, range(1, 5), f"{path}.trump", "suit")
        n = config.seats
        if len(s.seats) != n:
            raise InvalidInput.one(f"{path}.seats", f"must list exactly {n} seats")
        hands, discards, tricks_won, points, games_won, chips = [], [], [], [], [], []
        for i, seat in enumerate(s.seats):
            hand, discarded = seat.hand, seat.discards
            if (hand | discarded) & ~ECARTE_MASK:
                where = "hand" if hand & ~ECARTE_MASK else "discards"
                raise InvalidInput.one(
                    f"{path}.seats[{i}].{where}", "holds bits that are no card of the Écarté pack"
                )
            hands.append(hand)
            discards.append(discarded)
            tricks_won.append(seat.tricks_won)
            points.append(seat.points)
            games_won.append(seat.games_won)
            chips.append(seat.chips)
        turn_up = s.turn_up
        if turn_up >= 52 or not ECARTE_MASK >> turn_up & 1:
            raise InvalidInput.one(f"{path}.turn_up", "is not a card of the Écarté pack")
        wagers = []
        for i, w in enumerate(s.wagers):
            if not w.spectator:
                raise InvalidInput.one(f"{path}.wagers[{i}].spectator", "is required")
            wagers.append(Wager(w.spectator, w.seat, w.amount))
        ledger = tuple(SpectatorNet(x.spectator, x.net) for x in s.spectators)
        state = EcarteState(
            config=config,
            seed=seed,
            phase=PHASES[s.phase],
            deal=s.deal,
            dealer=s.dealer,
            turn=s.turn,
            hands=tuple(hands),
            discards=tuple(discards),
            tricks_won=tuple(tricks_won),
            points=tuple(points),
            games_won=tuple(games_won),
            chips=tuple(chips),
            turn_up=turn_up,
            trump=s.trump - 1,
            stock=_card_sequence(s.stock, f"{path}.stock"),
            tricks=_card_sequence(s.tricks, f"{path}.tricks"),
            king_announced=s.king_announced if s.HasField("king_announced") else NO_SEAT,
            wagers=tuple(wagers),
            ledger=ledger,
        )
        return state

    def _read_state(self, data: bytes, seed: bytes, path: str) -> EcarteState:
        pos, end = field_span(data, GAME_STATE_FIELD)
        config_key = stock = tricks = b""
        phase = deal = dealer = turn = turn_up = trump = 0
        king_announced = NO_SEAT
        seats: list[tuple[int, int]] = []  # the span of each message
        wagers: list[tuple[int, int]] = []
        spectators: list[tuple[int, int]] = []
        while pos < end:
            tag, pos = read_varint(data, pos)
            field = tag >> 3
            if tag & 7 == 0:
                value, pos = read_varint(data, pos)
                if field == 2:
                    phase = signed(value)
                elif field == 3:
                    deal = value
                elif field == 4:
                    dealer = value
                elif field == 5:
                    turn = value
                elif field == 7:
                    turn_up = value
                elif field == 8:
                    trump = signed(value)
                elif field == 11:
                    king_announced = value
            elif tag & 7 == 2:
                start, pos = read_length(data, pos)
                if field == 1:
                    config_key = data[start:pos]
                elif field == 6:
                    if len(seats) <= MAX_SEATS:  # one more is refused below all the same
                        seats.append((start, pos))
                elif field == 9:
                    stock = data[start:pos]
                elif field == 10:
                    tricks = data[start:pos]
                elif field == 12:
                    wagers.append((start, pos))
                elif field == 13:
                    spectators.append((start, pos))
            else:
                pos = skip_field(data, pos, tag & 7)
        if pos != end:
            raise WireError("a field overruns the state")
        config = self._configs.state_config_of(
            config_key, pb.EcarteConfig.FromString, f"{path}.config"
        )
        check_enum(phase, range(1, 7), f"{path}.phase", "phase")
        check_enum(trump, range(1, 5), f"{path}.trump", "suit")
        n = config.seats
        if len(seats) != n:
            raise InvalidInput.one(f"{path}.seats", f"must list exactly {n} seats")
        hands: list[int] = []
        discards: list[int] = []
        tricks_won: list[int] = []
        points: list[int] = []
        games_won: list[int] = []
        chips: list[int] = []
        for i, (pos, end) in enumerate(seats):
            hand, discarded, won, scored, games, chips_zigzag = read_scalars(data, pos, end, 6)
            held = zigzag(chips_zigzag)  # sint64
            if (hand | discarded) & ~ECARTE_MASK:
                where = "hand" if hand & ~ECARTE_MASK else "discards"
                raise InvalidInput.one(
                    f"{path}.seats[{i}].{where}", "holds bits that are no card of the Écarté pack"
                )
            hands.append(hand)
            discards.append(discarded)
            tricks_won.append(won)
            points.append(scored)
            games_won.append(games)
            chips.append(held)
        if turn_up >= 52 or not ECARTE_MASK >> turn_up & 1:
            raise InvalidInput.one(f"{path}.turn_up", "is not a card of the Écarté pack")
        wager_list: list[Wager] = []
        for i, (pos, end) in enumerate(wagers):
            spectator, seat, amount = "", 0, 0
            while pos < end:
                tag, pos = read_varint(data, pos)
                if tag == 0x0A:
                    start, pos = read_length(data, pos)
                    spectator = data[start:pos].decode()
                elif tag == 0x10:
                    seat, pos = read_varint(data, pos)
                elif tag == 0x18:
                    amount, pos = read_varint(data, pos)
                else:
                    pos = skip_field(data, pos, tag & 7)
            if pos != end:
                raise WireError("a field overruns its wager")
            if not spectator:
                raise InvalidInput.one(f"{path}.wagers[{i}].spectator", "is required")
            wager_list.append(Wager(spectator, seat, amount))
        ledger: list[SpectatorNet] = []
        for pos, end in spectators:
            spectator, net = "", 0
            while pos < end:
                tag, pos = read_varint(data, pos)
                if tag == 0x0A:
                    start, pos = read_length(data, pos)
                    spectator = data[start:pos].decode()
                elif tag == 0x10:
                    value, pos = read_varint(data, pos)
                    net = zigzag(value)
                else:
                    pos = skip_field(data, pos, tag & 7)
            if pos != end:
                raise WireError("a field overruns its spectator")
            ledger.append(SpectatorNet(spectator, net))
        return EcarteState(
            config=config,
            seed=seed,
            phase=PHASES[phase],
            deal=deal,
            dealer=dealer,
            turn=turn,
            hands=tuple(hands),
            discards=tuple(discards),
            tricks_won=tuple(tricks_won),
            points=tuple(points),
            games_won=tuple(games_won),
            chips=tuple(chips),
            turn_up=turn_up,
            trump=trump - 1,
            stock=_card_sequence(stock, f"{path}.stock"),
            tricks=_card_sequence(tricks, f"{path}.tricks"),
            king_announced=king_announced,
            wagers=tuple(wager_list),
            ledger=tuple(ledger),
        )

    def encode_state(self, state: EcarteState, out: referee_pb2.GameState) -> None:
        s = out.ecarte
        self._configs.encoded(state.config, s.config)
        s.phase = state.phase  # type: ignore[assignment]
        s.deal = state.deal
        s.dealer = state.dealer
        s.turn = state.turn
        for i, hand in enumerate(state.hands):
            s.seats.add(
                hand=hand,
                discards=state.discards[i],
                tricks_won=state.tricks_won[i],
                points=state.points[i],
                games_won=state.games_won[i],
                chips=state.chips[i],
            )
        s.turn_up = state.turn_up
        s.trump = state.trump + 1  # type: ignore[assignment]
        s.stock = state.stock
        s.tricks = state.tricks
        if state.king_announced != NO_SEAT:
            s.king_announced = state.king_announced
        for w in state.wagers:
            s.wagers.add(spectator=w.spectator, seat=w.seat, amount=w.amount)
        for x in state.ledger:
            s.spectators.add(spectator=x.spectator, net=x.net)

    def widen_hidden(self, out: referee_pb2.GameState) -> None:
        for seat in out.ecarte.seats:
            if seat.hand:
                seat.hand = FULL_MASK
            if seat.discards:
                seat.discards = FULL_MASK

    def encode_successor(
        self, previous: EcarteState, state: EcarteState, out: referee_pb2.GameState
    ) -> None:
        """Turn ``out``, a copy of the encoded ``previous`` state (checked on the way in,
        so canonical), into the encoding of ``state`` by writing what changed only: the
        same bytes as :meth:`encode_state`."""
        s = out.ecarte
        if state.config is not previous.config:
            s.ClearField("config")
            self._configs.encoded(state.config, s.config)
        if state.phase is not previous.phase:
            s.phase = state.phase  # type: ignore[assignment]
        if state.deal != previous.deal:
            s.deal = state.deal
        if state.dealer != previous.dealer:
            s.dealer = state.dealer
        if state.turn != previous.turn:
            s.turn = state.turn
        seats = s.seats
        for field, new, old in (
            ("hand", state.hands, previous.hands),
            ("discards", state.discards, previous.discards),
            ("tricks_won", state.tricks_won, previous.tricks_won),
            ("points", state.points, previous.points),
            ("games_won", state.games_won, previous.games_won),
            ("chips", state.chips, previous.chips),
        ):
            if new != old:
                for i, value in enumerate(new):
                    if value != old[i]:
                        setattr(seats[i], field, value)
        if state.turn_up != previous.turn_up:
            s.turn_up = state.turn_up
        if state.trump != previous.trump:
            s.trump = state.trump + 1  # type: ignore[assignment]
        if state.stock != previous.stock:
            s.stock = state.stock
        if state.tricks != previous.tricks:
            s.tricks = state.tricks
        if state.king_announced != previous.king_announced:
            if state.king_announced == NO_SEAT:
                s.ClearField("king_announced")
            else:
                s.king_announced = state.king_announced
        new_wagers, old_wagers = state.wagers, previous.wagers
        if new_wagers is not old_wagers and new_wagers != old_wagers:
            kept = len(old_wagers)
            if len(new_wagers) < kept or new_wagers[:kept] != old_wagers:
                # Settled (emptied): written anew. A wager placed only adds one at the end,
                # so only it is written: rewriting every open wager at each one placed
                # cost a Replay of n wagers n * n / 2 messages, each kept in the state's
                # memory until the Replay's end (400 MB for 4,000 wagers).
                del s.wagers[:]
                kept = 0
            for w in new_wagers[kept:]:
                s.wagers.add(spectator=w.spectator, seat=w.seat, amount=w.amount)
        if state.ledger != previous.ledger:
            del s.spectators[:]
            for x in state.ledger:
                s.spectators.add(spectator=x.spectator, net=x.net)

    # ------------------------------------------------------------ actions

    def decode_action(self, msg: referee_pb2.Action, state: EcarteState, path: str) -> EcarteAction:
        key = msg.SerializeToString(deterministic=True)
        action = self._decoded.get(key)
        if action is None:  # decoded and checked in full, then remembered
            return remember_by_bytes(self._decoded, key, self._decode_action(msg, state, path))
        # Remembered: only what depends on the state remains to check, as decoding would.
        n = state.config.seats
        actor = action.actor
        if actor.kind is ActorKind.SEAT and actor.seat >= n:
            raise InvalidInput.one(f"{path}.actor.seat", "is not a seat of the table")
        if action.kind is ActionKind.WAGER and action.seat >= n:
            raise InvalidInput.one(f"{path}.ecarte.wager.seat", "is not a seat of the table")
        return action

    def _decode_action(
        self, msg: referee_pb2.Action, state: EcarteState, path: str
    ) -> EcarteAction:
        if not msg.HasField("actor"):
            raise InvalidInput.one(f"{path}.actor", "is required")
        actor = decode_actor(msg.actor, f"{path}.actor")
        n = state.config.seats
        if actor.kind is ActorKind.SEAT and actor.seat >= n:
            raise InvalidInput.one(f"{path}.actor.seat", "is not a seat of the table")
        if actor.kind is ActorKind.TABLE:
            raise InvalidInput.one(f"{path}.actor", "Écarté has no table actions (D-15)")
        a = msg.ecarte
        kind = a.WhichOneof("kind")
        apath = f"{path}.ecarte"
        if kind in _SIMPLE_ACTIONS:
            return EcarteAction(actor, _SIMPLE_ACTIONS[kind])
        if kind == "play":
            if not a.play.HasField("card"):
                raise InvalidInput.one(f"{apath}.play.card", "is required")
            card = _ecarte_card(a.play.card, f"{apath}.play.card")
            return EcarteAction(actor, ActionKind.PLAY, card)
        if kind == "discard":
            cards: list[int] = []
            seen = 0
            for i, card_msg in enumerate(a.discard.cards):
                where = f"{apath}.discard.cards[{i}]"
                card = _ecarte_card(card_msg, where)
                if seen >> card & 1:
                    raise InvalidInput.one(where, f"{name(card)} is named twice")
                seen |= 1 << card
                cards.append(card)
            return EcarteAction(actor, ActionKind.DISCARD, cards=tuple(cards))
        if kind == "wager":
            w = a.wager
            if w.seat >= n:
                raise InvalidInput.one(f"{apath}.wager.seat", "is not a seat of the table")
            return EcarteAction(actor, ActionKind.WAGER, seat=w.seat, amount=w.amount)
        raise InvalidInput.one(
            apath,
            "must be one of propose, accept, refuse, discard, play, announce_king, wager",
        )

    def encode_action(self, action: EcarteAction, out: referee_pb2.Action) -> None:
        encode_actor(action.actor, out.actor)
        a = out.ecarte
        kind = action.kind
        if kind is ActionKind.PLAY:
            a.play.card.CopyFrom(CARD_MESSAGES[action.card])
        elif kind is ActionKind.DISCARD:
            _DISCARD_CARDS.add(a.discard, action.cards)
        elif kind is ActionKind.WAGER:
            a.wager.seat = action.seat
            a.wager.amount = action.amount
            a.wager.amount_max = action.amount_max
        else:
            getattr(a, _SIMPLE_NAMES[kind]).SetInParent()

    def action_bytes(self, action: EcarteAction) -> bytes:
        cached = self._actions.get(action)
        if cached is None:
            msg = referee_pb2.Action()
            self.encode_action(action, msg)
            cached = remember(self._actions, action, msg.SerializeToString(deterministic=True))
        return cached

    # ------------------------------------------------------------ events

    def encode_events(
        self, events: Sequence[EcarteEvent], out: RepeatedCompositeFieldContainer[referee_pb2.Event]
    ) -> None:
        for event in events:
            _EVENT_ENCODERS[type(event)](event, out.add().ecarte)

    # ------------------------------------------------------------ views

    def encode_view(self, view: EcarteView, out: referee_pb2.GameView) -> None:
        v = out.ecarte
        self._configs.encoded(view.config, v.config)
        v.phase = view.phase  # type: ignore[assignment]
        v.deal = view.deal
        v.game = view.game
        v.dealer = view.dealer
        v.elder = view.elder
        v.responder = view.responder
        v.turn = view.turn
        v.turn_up.CopyFrom(CARD_MESSAGES[view.turn_up])
        v.trump = view.trump + 1  # type: ignore[assignment]
        v.stock_count = view.stock_count
        for seat in view.seats:
            sv = v.seats.add(
                seat=seat.seat,
                card_count=seat.card_count,
                hand_visible=seat.hand is not None,
                discard_count=seat.discard_count,
                tricks_won=seat.tricks_won,
                points=seat.points,
                games_won=seat.games_won,
                chips=seat.chips,
                sits_out=seat.sits_out,
            )
            if seat.hand is not None:
                _SEAT_HAND.add(sv, seat.hand)
            if seat.discards is not None:
                _SEAT_DISCARDS.add(sv, seat.discards)
        for t in view.tricks:
            tv = v.tricks.add(leader=t.leader)
            _TRICK_CARDS.add(tv, t.cards)
            if t.winner != NO_SEAT:
                tv.winner = t.winner
        if view.king_announced != NO_SEAT:
            v.king_announced = view.king_announced
        v.original_hands = view.original_hands
        for w in view.wagers:
            v.wagers.add(spectator=w.spectator, seat=w.seat, amount=w.amount)
        for x in view.spectators:
            v.spectators.add(spectator=x.spectator, net=x.net)
        if view.winner != NO_SEAT:
            v.winner = view.winner

    def game_info(self, out: referee_pb2.GameInfo) -> None:
        encode_game_info(out, RULES)


# ---------------------------------------------------------------- event encoders


def _dealer_cut(e: DealerCut, out: pb.EcarteEvent) -> None:
    m = out.dealer_cut
    m.dealer = e.dealer
    for seat, cards in enumerate(e.draws):
        _DRAW_CARDS.add(m.draws.add(seat=seat), cards)


def _dealt(e: Dealt, out: pb.EcarteEvent) -> None:
    m = out.dealt
    m.deal = e.deal
    m.game = e.game
    m.dealer = e.dealer
    m.elder = e.elder
    m.responder = e.responder
    m.turn_up.CopyFrom(CARD_MESSAGES[e.turn_up])
    m.stock_size = e.stock_size
    for seat, (size, cards) in enumerate(zip(e.hand_sizes, e.hands, strict=True)):
        _DEALT_CARDS.add(m.hands.add(seat=seat, card_count=size), cards)


def _king_turned(e: KingTurned, out: pb.EcarteEvent) -> None:
    out.king_turned.seat = e.seat
    out.king_turned.card.CopyFrom(CARD_MESSAGES[e.card])


def _proposed(e: Proposed, out: pb.EcarteEvent) -> None:
    out.proposed.seat = e.seat


def _accepted(e: Accepted, out: pb.EcarteEvent) -> None:
    out.accepted.seat = e.seat


def _refused(e: Refused, out: pb.EcarteEvent) -> None:
    out.refused.seat = e.seat


def _exchanged(e: Exchanged, out: pb.EcarteEvent) -> None:
    m = out.exchanged
    m.seat = e.seat
    m.count = e.count
    _EXCHANGED_DISCARDED.add(m, e.discarded)
    _EXCHANGED_DRAWN.add(m, e.drawn)
    m.stock_left = e.stock_left


def _king_announced(e: KingAnnounced, out: pb.EcarteEvent) -> None:
    out.king_announced.seat = e.seat
    out.king_announced.card.CopyFrom(CARD_MESSAGES[e.card])


def _card_played(e: CardPlayed, out: pb.EcarteEvent) -> None:
    out.card_played.seat = e.seat
    out.card_played.card.CopyFrom(CARD_MESSAGES[e.card])


def _trick_won(e: TrickWon, out: pb.EcarteEvent) -> None:
    m = out.trick_won
    m.trick = e.trick
    m.seat = e.seat
    m.leader = e.leader
    _TRICK_WON_CARDS.add(m, e.cards)


def _deal_scored(e: DealScored, out: pb.EcarteEvent) -> None:
    m = out.deal_scored
    m.deal = e.deal
    m.seat = e.seat
    m.tricks.extend(e.tricks)
    m.vole = e.vole
    m.raised = e.raised
    m.original_hands = e.original_hands


def _points_scored(e: PointsScored, out: pb.EcarteEvent) -> None:
    m = out.points_scored
    m.seat = e.seat
    m.reason = e.reason  # type: ignore[assignment]
    m.points = e.points
    m.total = e.total
    m.chips = e.chips
    if e.payer != NO_SEAT:
        m.payer = e.payer


def _game_won(e: GameWon, out: pb.EcarteEvent) -> None:
    m = out.game_won
    m.game = e.game
    m.seat = e.seat
    m.points.extend(e.points)


def _wager_placed(e: WagerPlaced, out: pb.EcarteEvent) -> None:
    m = out.wager_placed
    m.spectator = e.spectator
    m.seat = e.seat
    m.amount = e.amount


def _wager_settled(e: WagerSettled, out: pb.EcarteEvent) -> None:
    m = out.wager_settled
    m.spectator = e.spectator
    m.seat = e.seat
    m.amount = e.amount
    m.won = e.won
    m.net = e.net


def _match_won(e: MatchWon, out: pb.EcarteEvent) -> None:
    out.match_won.seat = e.seat
    out.match_won.games_won.extend(e.games_won)


_EVENT_ENCODERS: Final[dict[type, Callable[[Any, pb.EcarteEvent], None]]] = {
    DealerCut: _dealer_cut,
    Dealt: _dealt,
    KingTurned: _king_turned,
    Proposed: _proposed,
    Accepted: _accepted,
    Refused: _refused,
    Exchanged: _exchanged,
    KingAnnounced: _king_announced,
    CardPlayed: _card_played,
    TrickWon: _trick_won,
    DealScored: _deal_scored,
    PointsScored: _points_scored,
    GameWon: _game_won,
    WagerPlaced: _wager_placed,
    WagerSettled: _wager_settled,
    MatchWon: _match_won,
}

CODEC: Final = EcarteCodec()

__all__ = ["CODEC", "EcarteCodec"]
