"""Earl of Coventry: protobuf <-> rules objects."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer

from referee.cards import FULL_MASK
from referee.codec.common import (
    CARD_MESSAGES,
    MAX_CALL_LENGTH,
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
    read_packed,
    read_scalars,
    read_varint,
    read_wire,
    remember,
    remember_by_bytes,
    signed,
    skip_field,
)
from referee.games.base import ActorKind, InvalidInput
from referee.games.earl_of_coventry.calls import CallStyle
from referee.games.earl_of_coventry.rules import RULES
from referee.games.earl_of_coventry.state import (
    DEFAULT_COUNTERS,
    DEFAULT_SEATS,
    MAX_SEATS,
    NO_RANK,
    NO_SEAT,
    ActionKind,
    CardPlayed,
    CoupletBotched,
    DealerCut,
    EarlAction,
    EarlConfig,
    EarlEvent,
    EarlState,
    EarlView,
    LeadPassed,
    Passed,
    PassedOver,
    PenaltyCharged,
    Phase,
    RankCompleted,
    RoundDealt,
    RoundWon,
    RunCutShort,
    Scoring,
    SeatEliminated,
    SessionEnded,
    TiebreakStarted,
)
from referee.v1 import earl_of_coventry_pb2 as pb
from referee.v1 import referee_pb2

# The repeated Card fields written from card codes (CardField).
_SEAT_HAND: Final = CardField(pb.EarlOfCoventrySeatView, "hand")
_PLAYED: Final = CardField(pb.EarlOfCoventryView, "played")
_DRAW_CARDS: Final = CardField(pb.EarlOfCoventryCutDraw, "cards")

GAME_STATE_FIELD: Final = referee_pb2.GameState.DESCRIPTOR.fields_by_name["earl_of_coventry"].number
PHASES: Final[dict[int, Phase]] = {int(p): p for p in Phase}
# Compiled (mypyc), reading a state from its canonical bytes is the faster way; interpreted,
# protobuf's attributes (implemented in C) beat a Python loop over bytes. Both read the
# same fields with the same checks (tests/test_codec_wire.py compares them; the test
# suite runs against both builds).
READ_BYTES: Final = not __file__.endswith(".py")


class EarlOfCoventryCodec:
    game_id = "earl_of_coventry"
    rules = RULES

    def __init__(self) -> None:
        self._configs = ConfigDecoder(self._build_config, self._encode_config)
        # Serialized actions (action_bytes), by rules action.
        self._actions: dict[EarlAction, bytes] = {}
        # Decoded actions, by their serialized form.
        self._decoded: dict[bytes, EarlAction] = {}

    # ------------------------------------------------------------ config

    def decode_config(self, msg: referee_pb2.GameConfig, path: str) -> EarlConfig:
        return self._configs.config(msg.earl_of_coventry, f"{path}.earl_of_coventry")

    def seat_count_of_config(self, config: EarlConfig) -> int:
        return config.seats

    def seat_count(self, state: EarlState) -> int:
        return state.config.seats

    def _build_config(self, c: pb.EarlOfCoventryConfig, path: str) -> EarlConfig:
        check_enum(c.call_style, range(0, 5), f"{path}.call_style", "call style")
        check_enum(c.scoring, range(0, 4), f"{path}.scoring", "scoring")
        templates = c.couplet_templates
        if len(templates) > 4:
            # Never valid (four with the custom call style, none with the others): refused
            # before a string is made and checked for each (a 16 MiB request holds millions
            # of one-letter templates: about 60 bytes of memory, and a normalisation, each).
            raise InvalidInput.one(
                f"{path}.couplet_templates",
                "the custom call style needs exactly four templates (C-VAR-5)"
                if c.call_style == pb.EARL_OF_COVENTRY_CALL_STYLE_CUSTOM
                else "templates are only allowed with the custom call style",
            )
        config = EarlConfig(
            seats=c.seats or DEFAULT_SEATS,
            first_dealer=c.first_dealer if c.HasField("first_dealer") else None,
            call_style=CallStyle(c.call_style or CallStyle.EARL),
            couplet_templates=tuple(templates),
            scoring=Scoring(c.scoring or Scoring.SIMPLE),
            starting_counters=c.starting_counters or DEFAULT_COUNTERS,
            penalty_earl=c.penalty_earl,
            open_hands=c.open_hands,
            holding_allowed=c.holding_allowed,
        )
        try:
            config.check()
        except InvalidInput as e:
            raise e.prefixed(path) from None
        return config

    def _encode_config(self, config: EarlConfig, out: pb.EarlOfCoventryConfig) -> None:
        out.seats = config.seats
        if config.first_dealer is not None:
            out.first_dealer = config.first_dealer
        out.call_style = config.call_style  # type: ignore[assignment]
        out.couplet_templates.extend(config.couplet_templates)
        out.scoring = config.scoring  # type: ignore[assignment]
        out.starting_counters = config.starting_counters
        out.penalty_earl = config.penalty_earl
        out.open_hands = config.open_hands
        out.holding_allowed = config.holding_allowed

    # ------------------------------------------------------------ state

    def decode_state(
        self, msg: referee_pb2.GameState, seed: bytes, path: str, data: bytes | None = None
    ) -> EarlState:
        """Compiled, the fields are read from ``data``, the canonical serialization of
        ``msg`` (the state hash is taken of it; made here when not given); interpreted,
        through the message's attributes (READ_BYTES)."""
        if READ_BYTES:
            if data is None:
                data = msg.SerializeToString(deterministic=True)
            return self.decode_state_bytes(data, seed, path)
        path = f"{path}.earl_of_coventry"
        return checked(RULES.validate, self._read_message(msg.earl_of_coventry, seed, path), path)

    def decode_state_bytes(self, data: bytes, seed: bytes, path: str) -> EarlState:
        """The checked state of a GameState's canonical bytes ``data``."""
        path = f"{path}.earl_of_coventry"
        return checked(RULES.validate, read_wire(self._read_state, data, seed, path), path)

    def _read_message(self, s: pb.EarlOfCoventryState, seed: bytes, path: str) -> EarlState:
        """The state's fields read through the message's attributes (interpreted, the
        faster way: see READ_BYTES); unchecked."""
        config = self._configs.state_config(s.config, f"{path}.config")
        check_enum(s.phase, range(1, 4), f"{path}.phase", "phase")
        check_enum(s.current_rank, range(0, 14), f"{path}.current_rank", "rank")
        seats = s.seats
        if len(seats) != config.seats:
            raise InvalidInput.one(f"{path}.seats", f"must list exactly {config.seats} seats")
        hands: list[int] = []
        rounds_won: list[int] = []
        counters: list[int] = []
        eliminated = 0
        dealt_in = 0
        for i, seat in enumerate(seats):
            hand = seat.hand
            if hand & ~FULL_MASK:
                raise InvalidInput.one(f"{path}.seats[{i}].hand", "holds bits that are no card")
            hands.append(hand)
            rounds_won.append(seat.rounds_won)
            counters.append(seat.counters)
            if seat.eliminated:
                eliminated |= 1 << i
            if seat.dealt_in:
                dealt_in |= 1 << i
        state = EarlState(
            config=config,
            seed=seed,
            phase=PHASES[s.phase],
            round=s.round,
            dealer=s.dealer,
            hands=tuple(hands),
            rounds_won=tuple(rounds_won),
            counters=tuple(counters),
            eliminated=eliminated,
            dealt_in=dealt_in,
            played=s.played,
            current_rank=s.current_rank - 1 if s.current_rank else NO_RANK,
            run_length=s.run_length,
            turn=s.turn,
            last_player=s.last_player,
            pool=s.pool,
            tiebreak=s.tiebreak,
            round_winner=s.round_winner if s.HasField("round_winner") else NO_SEAT,
            winners=tuple(s.winners),
        )
        return state

    def _read_state(self, data: bytes, seed: bytes, path: str) -> EarlState:
        pos, end = field_span(data, GAME_STATE_FIELD)
        config_key = b""
        phase = round_number = dealer = current_rank = run_length = turn = last_player = 0
        pool = 0
        tiebreak = False
        round_winner = NO_SEAT
        played = b""
        winners: list[int] = []
        seats: list[tuple[int, int]] = []  # the span of each seat's message
        while pos < end:
            tag, pos = read_varint(data, pos)
            field = tag >> 3
            if tag & 7 == 0:
                value, pos = read_varint(data, pos)
                if field == 2:
                    phase = signed(value)
                elif field == 3:
                    round_number = value
                elif field == 4:
                    dealer = value
                elif field == 7:
                    current_rank = signed(value)
                elif field == 8:
                    run_length = value
                elif field == 9:
                    turn = value
                elif field == 10:
                    last_player = value
                elif field == 11:
                    pool = value
                elif field == 12:
                    tiebreak = value != 0
                elif field == 13:
                    round_winner = value
                elif field == 14:
                    winners.append(value)
            elif tag & 7 == 2:
                start, pos = read_length(data, pos)
                if field == 1:
                    config_key = data[start:pos]
                elif field == 5:
                    if len(seats) <= MAX_SEATS:  # one more is refused below all the same
                        seats.append((start, pos))
                elif field == 6:
                    played = data[start:pos]
                elif field == 14:
                    read_packed(data, start, pos, winners)
            else:
                pos = skip_field(data, pos, tag & 7)
        if pos != end:
            raise WireError("a field overruns the state")
        config = self._configs.state_config_of(
            config_key, pb.EarlOfCoventryConfig.FromString, f"{path}.config"
        )
        check_enum(phase, range(1, 4), f"{path}.phase", "phase")
        check_enum(current_rank, range(0, 14), f"{path}.current_rank", "rank")
        if len(seats) != config.seats:
            raise InvalidInput.one(f"{path}.seats", f"must list exactly {config.seats} seats")
        hands: list[int] = []
        rounds_won: list[int] = []
        counters: list[int] = []
        eliminated = 0
        dealt_in = 0
        for i, (pos, end) in enumerate(seats):
            hand, won, held, out, dealt = read_scalars(data, pos, end, 5)
            if out:
                eliminated |= 1 << i
            if dealt:
                dealt_in |= 1 << i
            if hand & ~FULL_MASK:
                raise InvalidInput.one(f"{path}.seats[{i}].hand", "holds bits that are no card")
            hands.append(hand)
            rounds_won.append(won)
            counters.append(held)
        return EarlState(
            config=config,
            seed=seed,
            phase=PHASES[phase],
            round=round_number,
            dealer=dealer,
            hands=tuple(hands),
            rounds_won=tuple(rounds_won),
            counters=tuple(counters),
            eliminated=eliminated,
            dealt_in=dealt_in,
            played=played,
            current_rank=current_rank - 1 if current_rank else NO_RANK,
            run_length=run_length,
            turn=turn,
            last_player=last_player,
            pool=pool,
            tiebreak=tiebreak,
            round_winner=round_winner,
            winners=tuple(winners),
        )

    def encode_state(self, state: EarlState, out: referee_pb2.GameState) -> None:
        s = out.earl_of_coventry
        self._configs.encoded(state.config, s.config)
        s.phase = state.phase  # type: ignore[assignment]
        s.round = state.round
        s.dealer = state.dealer
        eliminated = state.eliminated
        dealt_in = state.dealt_in
        for i, hand in enumerate(state.hands):
            s.seats.add(
                hand=hand,
                rounds_won=state.rounds_won[i],
                counters=state.counters[i],
                eliminated=bool(eliminated >> i & 1),
                dealt_in=bool(dealt_in >> i & 1),
            )
        s.played = state.played
        s.current_rank = state.current_rank + 1 if state.current_rank != NO_RANK else 0  # type: ignore[assignment]
        s.run_length = state.run_length
        s.turn = state.turn
        s.last_player = state.last_player
        s.pool = state.pool
        s.tiebreak = state.tiebreak
        if state.round_winner != NO_SEAT:
            s.round_winner = state.round_winner
        s.winners.extend(state.winners)

    def widen_hidden(self, out: referee_pb2.GameState) -> None:
        for seat in out.earl_of_coventry.seats:
            if seat.hand:
                seat.hand = FULL_MASK

    def encode_successor(
        self, previous: EarlState, state: EarlState, out: referee_pb2.GameState
    ) -> None:
        """Turn ``out``, a copy of the encoded ``previous`` state (checked on the way in,
        so canonical), into the encoding of ``state`` by writing what changed only: the
        same bytes as :meth:`encode_state`, for a fraction of the work."""
        s = out.earl_of_coventry
        if state.config is not previous.config:
            s.ClearField("config")
            self._configs.encoded(state.config, s.config)
        if state.phase is not previous.phase:
            s.phase = state.phase  # type: ignore[assignment]
        if state.round != previous.round:
            s.round = state.round
        if state.dealer != previous.dealer:
            s.dealer = state.dealer
        seats = s.seats
        if state.hands is not previous.hands:
            for i, (old, new) in enumerate(zip(previous.hands, state.hands, strict=True)):
                if old != new:
                    seats[i].hand = new
        if state.rounds_won is not previous.rounds_won:
            for i, won in enumerate(state.rounds_won):
                seats[i].rounds_won = won
        if state.counters is not previous.counters:
            for i, counters in enumerate(state.counters):
                seats[i].counters = counters
        if state.eliminated != previous.eliminated or state.dealt_in != previous.dealt_in:
            for i, seat in enumerate(seats):
                seat.eliminated = bool(state.eliminated >> i & 1)
                seat.dealt_in = bool(state.dealt_in >> i & 1)
        if state.played is not previous.played:
            s.played = state.played
        if state.current_rank != previous.current_rank:
            s.current_rank = state.current_rank + 1 if state.current_rank != NO_RANK else 0  # type: ignore[assignment]
        if state.run_length != previous.run_length:
            s.run_length = state.run_length
        if state.turn != previous.turn:
            s.turn = state.turn
        if state.last_player != previous.last_player:
            s.last_player = state.last_player
        if state.pool != previous.pool:
            s.pool = state.pool
        if state.tiebreak != previous.tiebreak:
            s.tiebreak = state.tiebreak
        if state.round_winner != previous.round_winner:
            if state.round_winner == NO_SEAT:
                s.ClearField("round_winner")
            else:
                s.round_winner = state.round_winner
        if state.winners != previous.winners:
            del s.winners[:]
            s.winners.extend(state.winners)

    # ------------------------------------------------------------ actions

    def decode_action(self, msg: referee_pb2.Action, state: EarlState, path: str) -> EarlAction:
        # Actions repeat (a few hundred distinct ones per configuration): decode each once.
        key = msg.SerializeToString(deterministic=True)
        action = self._decoded.get(key)
        if action is None:
            action = remember_by_bytes(self._decoded, key, self._decode_action(msg, path))
        actor = action.actor
        if actor.kind is ActorKind.SEAT and actor.seat >= state.config.seats:
            raise InvalidInput.one(f"{path}.actor.seat", "is not a seat of the table")
        return action

    def _decode_action(self, msg: referee_pb2.Action, path: str) -> EarlAction:
        """The rules action of a message, checked on its own (not against a state)."""
        if not msg.HasField("actor"):
            raise InvalidInput.one(f"{path}.actor", "is required")
        actor = decode_actor(msg.actor, f"{path}.actor")
        if actor.kind is ActorKind.SPECTATOR:
            raise InvalidInput.one(f"{path}.actor.spectator", "Earl of Coventry has no spectators")
        a = msg.earl_of_coventry
        kind = a.WhichOneof("kind")
        apath = f"{path}.earl_of_coventry"
        if kind == "play":
            if not a.play.HasField("card"):
                raise InvalidInput.one(f"{apath}.play.card", "is required")
            card = card_code(a.play.card, f"{apath}.play.card")
            call = a.play.call
            if len(call) > MAX_CALL_LENGTH:
                raise InvalidInput.one(
                    f"{apath}.play.call", f"must be at most {MAX_CALL_LENGTH} characters"
                )
            return EarlAction(actor, ActionKind.PLAY, card, call)
        if kind == "pass":
            return EarlAction(actor, ActionKind.PASS)
        if kind == "next_round":
            return EarlAction(actor, ActionKind.NEXT_ROUND)
        if kind == "end_session":
            return EarlAction(actor, ActionKind.END_SESSION)
        raise InvalidInput.one(apath, "must be a play, a pass, next_round or end_session")

    def encode_action(self, action: EarlAction, out: referee_pb2.Action) -> None:
        out.MergeFromString(self.action_bytes(action))

    def action_bytes(self, action: EarlAction) -> bytes:
        cached = self._actions.get(action)
        if cached is None:
            msg = referee_pb2.Action()
            encode_actor(action.actor, msg.actor)
            a = msg.earl_of_coventry
            kind = action.kind
            if kind is ActionKind.PLAY:
                a.play.card.CopyFrom(CARD_MESSAGES[action.card])
                a.play.call = action.call
            elif kind is ActionKind.PASS:
                getattr(a, "pass").SetInParent()  # `pass` is a Python keyword
            elif kind is ActionKind.NEXT_ROUND:
                a.next_round.SetInParent()
            else:
                a.end_session.SetInParent()
            cached = remember(self._actions, action, msg.SerializeToString(deterministic=True))
        return cached

    # ------------------------------------------------------------ events

    def encode_events(
        self, events: Sequence[EarlEvent], out: RepeatedCompositeFieldContainer[referee_pb2.Event]
    ) -> None:
        for event in events:
            _EVENT_ENCODERS[type(event)](event, out.add().earl_of_coventry)

    # ------------------------------------------------------------ views

    def encode_view(self, view: EarlView, out: referee_pb2.GameView) -> None:
        v = out.earl_of_coventry
        self._configs.encoded(view.config, v.config)
        v.phase = view.phase  # type: ignore[assignment]
        if view.round:
            v.round = view.round
        if view.dealer:
            v.dealer = view.dealer
        if view.turn:
            v.turn = view.turn
        if view.current_rank != NO_RANK:
            v.current_rank = view.current_rank + 1  # type: ignore[assignment]
        if view.run_length:
            v.run_length = view.run_length
        if view.last_player:
            v.last_player = view.last_player
        add = v.seats.add
        for seat in view.seats:
            # Only what is set: zero fields cost to write and are not serialized anyway.
            sv = add()
            if seat.seat:
                sv.seat = seat.seat
            if seat.card_count:
                sv.card_count = seat.card_count
            if seat.hand is not None:
                sv.hand_visible = True
                _SEAT_HAND.add(sv, seat.hand)
            if seat.rounds_won:
                sv.rounds_won = seat.rounds_won
            if seat.counters:
                sv.counters = seat.counters
            if seat.eliminated:
                sv.eliminated = True
            if seat.dealt_in:
                sv.dealt_in = True
        if view.played:
            _PLAYED.add(v, view.played)
        if view.pool:
            v.pool = view.pool
        if view.tiebreak:
            v.tiebreak = True
        if view.round_winner != NO_SEAT:
            v.round_winner = view.round_winner
        if view.winners:
            v.winners.extend(view.winners)
        if view.next_call:
            v.next_call = view.next_call

    def game_info(self, out: referee_pb2.GameInfo) -> None:
        encode_game_info(out, RULES)


def _rank(r: int) -> int:
    return r + 1


def _dealer_cut(e: DealerCut, out: pb.EarlOfCoventryEvent) -> None:
    m = out.dealer_cut
    m.dealer = e.dealer
    for seat, cards in enumerate(e.draws):
        _DRAW_CARDS.add(m.draws.add(seat=seat), cards)


def _round_dealt(e: RoundDealt, out: pb.EarlOfCoventryEvent) -> None:
    m = out.round_dealt
    m.round = e.round
    m.dealer = e.dealer
    m.seats.extend(e.seats)
    m.hand_sizes.extend(e.hand_sizes)
    m.tiebreak = e.tiebreak


def _card_played(e: CardPlayed, out: pb.EarlOfCoventryEvent) -> None:
    m = out.card_played
    m.seat = e.seat
    m.card.CopyFrom(CARD_MESSAGES[e.card])
    m.position = e.position
    m.call = e.call
    m.cards_left = e.cards_left


def _passed_over(e: PassedOver, out: pb.EarlOfCoventryEvent) -> None:
    out.passed_over.seat = e.seat
    out.passed_over.rank = _rank(e.rank)  # type: ignore[assignment]


def _passed(e: Passed, out: pb.EarlOfCoventryEvent) -> None:
    out.passed.seat = e.seat
    out.passed.rank = _rank(e.rank)  # type: ignore[assignment]


def _botched(e: CoupletBotched, out: pb.EarlOfCoventryEvent) -> None:
    m = out.couplet_botched
    m.seat = e.seat
    m.card.CopyFrom(CARD_MESSAGES[e.card])
    m.position = e.position
    m.expected = e.expected
    m.said = e.said


def _rank_completed(e: RankCompleted, out: pb.EarlOfCoventryEvent) -> None:
    out.rank_completed.rank = _rank(e.rank)  # type: ignore[assignment]
    out.rank_completed.seat = e.seat


def _run_cut_short(e: RunCutShort, out: pb.EarlOfCoventryEvent) -> None:
    m = out.run_cut_short
    m.rank = _rank(e.rank)  # type: ignore[assignment]
    m.run_length = e.run_length
    m.leader = e.leader
    m.reason = e.reason  # type: ignore[assignment]


def _lead_passed(e: LeadPassed, out: pb.EarlOfCoventryEvent) -> None:
    out.lead_passed.from_seat = e.from_seat
    out.lead_passed.to_seat = e.to_seat


def _penalty(e: PenaltyCharged, out: pb.EarlOfCoventryEvent) -> None:
    m = out.penalty_charged
    m.seat = e.seat
    m.amount = e.amount
    m.pool = e.pool
    m.code = e.code


def _round_won(e: RoundWon, out: pb.EarlOfCoventryEvent) -> None:
    m = out.round_won
    m.seat = e.seat
    m.round = e.round
    for p in e.payments:
        m.payments.add(from_seat=p.from_seat, cards_left=p.cards_left, amount=p.amount)
    m.pool_collected = e.pool_collected


def _eliminated(e: SeatEliminated, out: pb.EarlOfCoventryEvent) -> None:
    out.seat_eliminated.seat = e.seat


def _tiebreak(e: TiebreakStarted, out: pb.EarlOfCoventryEvent) -> None:
    out.tiebreak_started.seats.extend(e.seats)


def _session_ended(e: SessionEnded, out: pb.EarlOfCoventryEvent) -> None:
    out.session_ended.winners.extend(e.winners)


_EVENT_ENCODERS: Final[dict[type, Callable[[Any, pb.EarlOfCoventryEvent], None]]] = {
    DealerCut: _dealer_cut,
    RoundDealt: _round_dealt,
    CardPlayed: _card_played,
    PassedOver: _passed_over,
    Passed: _passed,
    CoupletBotched: _botched,
    RankCompleted: _rank_completed,
    RunCutShort: _run_cut_short,
    LeadPassed: _lead_passed,
    PenaltyCharged: _penalty,
    RoundWon: _round_won,
    SeatEliminated: _eliminated,
    TiebreakStarted: _tiebreak,
    SessionEnded: _session_ended,
}

CODEC: Final = EarlOfCoventryCodec()
