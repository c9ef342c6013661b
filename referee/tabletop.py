"""Playing whole games through a running server: ``referee play`` and ``referee demo``.

:func:`run_game` drives any game with :mod:`referee.client`: it asks
``LegalActions`` who may act and what they may do, lets a bot (or a person at
the terminal) pick one, and sends it with ``ApplyAction``, until the
scoreboard says the match or session is over. Then it checks the whole game
with ``Replay`` (the same final hash) and that the revealed seed matches the
commitment shown at the start.

The person at the terminal sees only their seat's view: their own hand, the
other hands as counts, the events as their seat may see them. When another
seat is on turn and they may act out of turn (announce the king of trumps in
Écarté, E-KING-1), they may also let that seat play.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message

from referee.bots import Bot, TablePolicy
from referee.client import PUBLIC, Client, GameHandle, seat
from referee.v1 import cards_pb2, common_pb2, referee_pb2
from referee.v1 import earl_of_coventry_pb2 as eoc
from referee.v1 import ecarte_pb2 as ecarte

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_PLURALS = (
    "aces",
    "twos",
    "threes",
    "fours",
    "fives",
    "sixes",
    "sevens",
    "eights",
    "nines",
    "tens",
    "jacks",
    "queens",
    "kings",
)
SUITS = ("♣", "♦", "♥", "♠")

# ---------------------------------------------------------------- describing messages


def card_text(card: cards_pb2.Card) -> str:
    """``Q♥``, ``10♠``; ``?`` for a card that is not a card."""
    if not (1 <= card.rank <= 13 and 1 <= card.suit <= 4):
        return "?"
    return f"{RANKS[card.rank - 1]}{SUITS[card.suit - 1]}"


def cards_text(cards: Sequence[cards_pb2.Card]) -> str:
    return " ".join(card_text(c) for c in cards) or "-"


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).upper()


def enum_text(descriptor: Any, number: int) -> str:
    """An enum value without its type prefix, in words: ``playing``, ``between rounds``."""
    value = descriptor.values_by_number.get(number)
    if value is None:
        return str(number)
    prefix = _snake(descriptor.name) + "_"
    name: str = value.name
    if name.startswith(prefix):
        name = name[len(prefix) :]
    return name.lower().replace("_", " ")


_INTEGER_TYPES = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_INT64,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_UINT64,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SINT64,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_FIXED64,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_SFIXED64,
    }
)


# Integer fields whose 0 means "not in play" rather than a value: chips paid
# for points are 0 in every game without stakes (E-VAR-3).
_HIDDEN_AT_ZERO = frozenset({"referee.v1.EcartePointsScored.chips"})


def _value_text(fd: FieldDescriptor, value: Any, zeros: bool = True) -> str:
    if fd.type == FieldDescriptor.TYPE_MESSAGE:
        if isinstance(value, cards_pb2.Card):
            return card_text(value)
        text = describe(value, zeros=zeros)
        return f"({text})" if text else ""
    if fd.type == FieldDescriptor.TYPE_ENUM:
        return enum_text(fd.enum_type, value)
    if fd.type == FieldDescriptor.TYPE_BYTES:
        return bytes(value).hex()
    if fd.type == FieldDescriptor.TYPE_STRING:
        return repr(value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def _shown(message: Message, fd: Any, zeros: bool) -> bool:
    """Whether :func:`describe` shows a field.

    Proto3 leaves out zero values on the wire and ``ListFields`` with them, but
    in events and actions an integer field is a seat, an index, a count or a
    score, for which 0 is a value like any other (seat 0 dealt, trick 0 was
    won): integer fields are always shown (with ``zeros``; a configuration,
    where 0 means the default, passes ``zeros=False``), but for the few whose
    0 means "not in play" (``_HIDDEN_AT_ZERO``). Fields with explicit presence
    (messages, ``optional``) are shown when set; false booleans, empty strings
    and bytes, unspecified enums and empty lists are not.
    """
    if fd.is_repeated:
        return len(getattr(message, fd.name)) > 0
    if fd.has_presence:
        return message.HasField(fd.name)
    if fd.type in _INTEGER_TYPES and zeros and fd.full_name not in _HIDDEN_AT_ZERO:
        return True
    return bool(getattr(message, fd.name))


def _fields(message: Message, zeros: bool) -> list[tuple[Any, Any]]:
    """The fields :func:`describe` shows, the ``seat`` first."""
    fields = [
        (fd, getattr(message, fd.name))
        for fd in message.DESCRIPTOR.fields
        if _shown(message, fd, zeros)
    ]
    fields.sort(key=lambda item: item[0].name != "seat")  # stable: the rest keep their order
    return fields


def describe(message: Message, *, zeros: bool = True) -> str:
    """Any message on one line: its fields, cards as ``Q♥``, enums in words.

    Integer fields are shown also when 0 (see :func:`_shown`); ``zeros=False``
    leaves them out, for a configuration whose zero values mean the defaults.
    """
    parts = []
    for fd, value in _fields(message, zeros):
        name = fd.name.replace("_", " ")
        if fd.is_repeated:
            if fd.message_type is cards_pb2.Card.DESCRIPTOR:
                parts.append(f"{name} {cards_text(value)}")
            else:
                items = ", ".join(_value_text(fd, v, zeros) for v in value)
                parts.append(f"{name} [{items}]")
        else:
            text = _value_text(fd, value, zeros)
            parts.append(f"{name} {text}" if text else name)
    return ", ".join(parts)


def _case(message: Message, oneof: str = "") -> tuple[str, Message | None]:
    """The set case of a message's (first) oneof and its value."""
    oneofs = message.DESCRIPTOR.oneofs
    if not oneofs:
        return "", None
    name = message.WhichOneof(oneof or oneofs[0].name)
    if name is None:
        return "", None
    value = getattr(message, name)
    return name, value if isinstance(value, Message) else None


def actor_text(actor: common_pb2.Actor) -> str:
    kind = actor.WhichOneof("kind")
    if kind == "seat":
        return f"seat {actor.seat}"
    if kind == "spectator":
        return f"spectator {actor.spectator!r}"
    return "the table"


def action_text(action: referee_pb2.Action) -> str:
    """``play Q♥ saying 'There's as good as...'``, ``next round``, any game."""
    _, inner = _case(action, "game")
    if inner is None:
        return "(no action)"
    if isinstance(inner, eoc.EarlOfCoventryAction) and inner.HasField("play"):
        text = f"play {card_text(inner.play.card)}"
        return f"{text} saying {inner.play.call!r}" if inner.play.call else text
    kind, value = _case(inner)
    if not kind:
        return describe(inner) or "(empty action)"
    detail = describe(value) if value is not None else ""
    return kind.replace("_", " ") + (f" {detail}" if detail else "")


def _earl_event(e: eoc.EarlOfCoventryEvent) -> str | None:
    kind = e.WhichOneof("kind")
    if kind == "dealer_cut":
        draws = ", ".join(f"seat {d.seat} {cards_text(d.cards)}" for d in e.dealer_cut.draws)
        return f"cut for the deal: {draws}; seat {e.dealer_cut.dealer} deals"
    if kind == "round_dealt":
        d = e.round_dealt
        sizes = ", ".join(f"seat {s}: {n}" for s, n in zip(d.seats, d.hand_sizes, strict=False))
        tie = " (tie-break)" if d.tiebreak else ""
        return f"round {d.round + 1}{tie} dealt by seat {d.dealer} ({sizes} cards)"
    if kind == "card_played":
        p = e.card_played
        call = f": {p.call!r}" if p.call else ""
        return f"seat {p.seat} plays {card_text(p.card)}{call} ({p.cards_left} left)"
    if kind == "passed_over":
        return (
            f"seat {e.passed_over.seat} has no {RANK_PLURALS[e.passed_over.rank - 1]}: passed over"
        )
    if kind == "passed":
        return f"seat {e.passed.seat} holds {RANK_PLURALS[e.passed.rank - 1]} but passes"
    if kind == "rank_completed":
        r = e.rank_completed
        return f"the {RANK_PLURALS[r.rank - 1]} are complete: seat {r.seat} is the Earl and leads"
    if kind == "round_won":
        w = e.round_won
        paid = ", ".join(f"seat {p.from_seat} pays {p.amount}" for p in w.payments if p.amount)
        return f"seat {w.seat} wins round {w.round + 1}" + (f" ({paid})" if paid else "")
    if kind == "session_ended":
        winners = ", ".join(f"seat {s}" for s in e.session_ended.winners)
        return f"the session is over: {winners} won"
    return None


def event_text(event: referee_pb2.Event) -> str:
    """One line for an event of any game."""
    game, inner = _case(event, "game")
    if inner is None:
        return "(no event)"
    if isinstance(inner, eoc.EarlOfCoventryEvent):
        text = _earl_event(inner)
        if text is not None:
            return text
    kind, value = _case(inner)
    if not kind:
        return f"{game}: {describe(inner)}"
    detail = describe(value) if value is not None else ""
    return kind.replace("_", " ") + (f": {detail}" if detail else "")


def scoreboard_text(board: common_pb2.Scoreboard) -> list[str]:
    lines = []
    for s in board.seats:
        fields = [
            f"{fd.name.replace('_', ' ')} {v}" for fd, v in s.ListFields() if fd.name != "seat"
        ]
        lines.append(f"  seat {s.seat}: " + (", ".join(fields) or "-"))
    if board.pool:
        lines.append(f"  pool: {board.pool}")
    if board.finished:
        lines.append("  winners: " + (", ".join(f"seat {w}" for w in board.winners) or "none"))
    return lines


def _earl_table(view: eoc.EarlOfCoventryView, me: int | None) -> list[str]:
    lines = [
        f"Earl of Coventry · round {view.round + 1}{' (tie-break)' if view.tiebreak else ''}"
        f" · dealer seat {view.dealer}"
        f" · {enum_text(eoc.EarlOfCoventryPhase.DESCRIPTOR, view.phase)}"
    ]
    for s in view.seats:
        who = " (you)" if s.seat == me else ""
        turn = (
            " <- to play"
            if view.phase == eoc.EARL_OF_COVENTRY_PHASE_PLAYING and s.seat == view.turn
            else ""
        )
        extra = []
        if s.rounds_won:
            extra.append(f"rounds won {s.rounds_won}")
        if s.counters:
            extra.append(f"counters {s.counters}")
        if s.eliminated:
            extra.append("eliminated")
        hand = cards_text(s.hand) if s.hand_visible else "#" * min(s.card_count, 20)
        lines.append(
            f"  seat {s.seat}{who:<6} {s.card_count:>2} cards  {hand}"
            + (f"  ({', '.join(extra)})" if extra else "")
            + turn
        )
    if view.played:
        lines.append(f"  played: {cards_text(view.played[-12:])}")
    if view.current_rank:
        lines.append(
            f"  run of {RANK_PLURALS[view.current_rank - 1]}: {view.run_length} of 4 played"
        )
    elif view.phase == eoc.EARL_OF_COVENTRY_PHASE_PLAYING:
        lines.append("  a lead is due")
    if view.next_call:
        lines.append(f"  next call: {view.next_call!r}")
    if view.pool:
        lines.append(f"  pool: {view.pool}")
    return lines


# E-DECK-2: the order within a suit, highest first; the ace between the jack and the ten.
ECARTE_RANK_ORDER = (13, 12, 11, 1, 10, 9, 8, 7)


def ecarte_hand_order(cards: Sequence[cards_pb2.Card], trump: int) -> list[cards_pb2.Card]:
    """Trumps first, then the other suits (♣ ♦ ♥ ♠), each highest first (E-DECK-2)."""

    def key(card: cards_pb2.Card) -> tuple[bool, int, int]:
        order = ECARTE_RANK_ORDER
        return (card.suit != trump, card.suit, order.index(card.rank) if card.rank in order else 8)

    return sorted(cards, key=key)


def _ecarte_doing(view: ecarte.EcarteView) -> str:
    """What the seat on turn is to do, in words."""
    if view.phase == ecarte.ECARTE_PHASE_PROPOSAL:
        return "to propose or lead" if view.stock_count >= 2 else "to lead"
    if view.phase == ecarte.ECARTE_PHASE_ANSWER:
        return "to accept or refuse the proposal"
    if view.phase in (ecarte.ECARTE_PHASE_ELDER_DISCARD, ecarte.ECARTE_PHASE_RESPONDER_DISCARD):
        return "to discard"
    if view.phase == ecarte.ECARTE_PHASE_TRICKS:
        open_trick = view.tricks and not view.tricks[-1].HasField("winner")
        return "to answer the lead" if open_trick else "to lead"
    return ""


def _ecarte_table(view: ecarte.EcarteView, me: int | None) -> list[str]:
    """Écarté as one seat (or the public) sees it: only what the view holds."""
    target = view.config.target_points or 5
    games_to_win = view.config.games_to_win or 1
    over = view.phase == ecarte.ECARTE_PHASE_MATCH_OVER
    lines = [
        f"Écarté · game {view.game + 1} · deal {view.deal + 1} · dealer seat {view.dealer}"
        f" · {enum_text(ecarte.EcartePhase.DESCRIPTOR, view.phase)}"
    ]
    table = [f"trumps {SUITS[view.trump - 1]}" if 1 <= view.trump <= 4 else "no trumps"]
    if view.HasField("turn_up"):
        table[0] += f" (turned up {card_text(view.turn_up)})"
    table.append(f"stock {view.stock_count}")
    if view.HasField("king_announced"):
        table.append(f"king of trumps announced by seat {view.king_announced}")
    if view.phase == ecarte.ECARTE_PHASE_TRICKS and view.original_hands:
        table.append("played on the original hands")
    lines.append("  " + " · ".join(table))
    for s in view.seats:
        who = " (you)" if s.seat == me else ""
        if s.sits_out:
            role = "sits out"
        elif s.seat == view.elder:
            role = "elder"
        elif s.seat == view.dealer:
            role = "dealer"
        else:
            role = "responder"
        if s.hand_visible:
            hand = cards_text(ecarte_hand_order(s.hand, view.trump))
        else:
            hand = "#" * min(s.card_count, 20)
        score = [f"points {s.points}/{target}", f"games {s.games_won}/{games_to_win}"]
        if not s.sits_out:
            score.append(f"tricks {s.tricks_won}")
        if s.discards:
            score.append(f"discarded {cards_text(ecarte_hand_order(s.discards, view.trump))}")
        elif s.discard_count:
            score.append(f"discarded {s.discard_count}")
        if view.config.stake:
            score.append(f"chips {s.chips:+d}" if s.chips else "chips 0")
        turn = f"  <- {_ecarte_doing(view)}" if not over and s.seat == view.turn else ""
        lines.append(
            f"  seat {s.seat}{who:<6} {role:<9} {s.card_count} cards  {hand:<14}"
            f"  {', '.join(score)}{turn}"
        )
    for number, trick in enumerate(view.tricks, 1):
        # The leader's card first, then the other player's of the deal (E-PLAY-1).
        follower = view.responder if trick.leader == view.elder else view.elder
        played = [
            f"{card_text(card)} by seat {player}"
            for card, player in zip(trick.cards, (trick.leader, follower), strict=False)
        ]
        if trick.HasField("winner"):
            played.append(f"won by seat {trick.winner}")
        lines.append(f"  trick {number}: {', '.join(played)}")
    if view.config.gallery:
        wagers = ", ".join(f"{w.spectator!r} {w.amount} on seat {w.seat}" for w in view.wagers)
        lines.append(f"  wagers: {wagers or 'none open'}")
        if view.spectators:
            nets = ", ".join(f"{n.spectator!r} {n.net:+d}" for n in view.spectators)
            lines.append(f"  spectators' results: {nets}")
    if view.HasField("winner"):
        lines.append(f"  the match is over: seat {view.winner} won")
    return lines


def _generic_lines(message: Message, me: int | None, indent: str = "  ") -> list[str]:
    lines = []
    for fd, value in _fields(message, zeros=True):
        name = fd.name.replace("_", " ")
        if fd.name == "config":
            continue  # shown once, at the start
        if fd.is_repeated:
            if fd.message_type is cards_pb2.Card.DESCRIPTOR:
                lines.append(f"{indent}{name}: {cards_text(value)}")
            elif fd.type == FieldDescriptor.TYPE_MESSAGE:
                for item in value:
                    you = " (you)" if me is not None and getattr(item, "seat", None) == me else ""
                    lines.append(f"{indent}{name}: {describe(item)}{you}")
            else:
                lines.append(f"{indent}{name}: {', '.join(_value_text(fd, v) for v in value)}")
        elif fd.type == FieldDescriptor.TYPE_MESSAGE and not isinstance(value, cards_pb2.Card):
            lines.append(f"{indent}{name}:")
            lines.extend(_generic_lines(value, me, indent + "  "))
        else:
            lines.append(f"{indent}{name}: {_value_text(fd, value)}")
    return lines


def table_text(view: referee_pb2.GameView, me: int | None = None) -> list[str]:
    """The table as ``view``'s viewer sees it: a layout for each game, a generic one else."""
    game, inner = _case(view, "game")
    if isinstance(inner, eoc.EarlOfCoventryView):
        return _earl_table(inner, me)
    if isinstance(inner, ecarte.EcarteView):
        return _ecarte_table(inner, me)
    if inner is None:
        return ["(empty view)"]
    return [f"{game} (version {view.version}):", *_generic_lines(inner, me)]


# ---------------------------------------------------------------- playing


class Quit(Exception):
    """The person at the terminal quit."""


class GameError(Exception):
    """The game could not be played to its end (an unexpected verdict, a stuck game)."""


@dataclass
class Human:
    """A person at the terminal playing one seat."""

    seat: int
    input: TextIO
    output: TextIO

    def choose(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None
    ) -> referee_pb2.Action:
        """One of ``actions``, the seat's move."""
        action = self._menu("Your move:", actions, view, "")
        assert action is not None  # no choice to wait was offered
        return action

    def choose_or_wait(
        self, actions: Sequence[referee_pb2.Action], view: referee_pb2.GameView | None, wait: str
    ) -> referee_pb2.Action | None:
        """One of ``actions`` the seat may take out of turn, or ``None`` to let play go on.

        ``wait`` names that last choice, e.g. ``let seat 1 play``.
        """
        return self._menu("You may act out of turn:", actions, view, wait)

    def _menu(
        self,
        title: str,
        actions: Sequence[referee_pb2.Action],
        view: referee_pb2.GameView | None,
        wait: str,
    ) -> referee_pb2.Action | None:
        out = self.output
        print(file=out)
        if view is not None:
            for line in table_text(view, self.seat):
                print(line, file=out)
        choices: list[referee_pb2.Action | None] = [*actions, None] if wait else list(actions)
        print(title, file=out)
        for i, action in enumerate(choices, 1):
            text = action_text(action) if action is not None else wait
            print(f"  {i:>2}. {text}", file=out)
        while True:
            print(f"Choose 1-{len(choices)} (q to quit): ", end="", file=out, flush=True)
            line = self.input.readline()
            if not line:
                raise Quit("input ended")
            text = line.strip().lower()
            if not self.input.isatty():
                print(text, file=out)  # echo piped input, so a transcript reads well
            if text in {"q", "quit", "exit"}:
                raise Quit("quit")
            if text.isdigit() and 1 <= int(text) <= len(choices):
                return choices[int(text) - 1]
            print(f"  {text!r} is not a choice", file=out)


def _is_seat(actor: common_pb2.Actor, number: int) -> bool:
    return actor.WhichOneof("kind") == "seat" and actor.seat == number


def _seat_on_turn(view: referee_pb2.GameView | None) -> int | None:
    """The seat on turn as the view shows it (``turn``), or ``None`` when it does not say."""
    if view is None:
        return None
    _, inner = _case(view, "game")
    field: Any = inner.DESCRIPTOR.fields_by_name.get("turn") if inner is not None else None
    if field is None:
        return None
    return int(getattr(inner, field.name))


@dataclass
class Played:
    """A game played to its end."""

    config: referee_pb2.GameConfig
    seed: bytes
    seats: int
    game: GameHandle
    actions: list[referee_pb2.Action] = field(default_factory=list)
    final_view: referee_pb2.GameView | None = None


def run_game(
    client: Client,
    game_config: referee_pb2.GameConfig,
    *,
    bot_for: Callable[[int], Bot],
    seed: bytes = b"",
    human: Human | None = None,
    rounds: int = 1,
    out: TextIO,
    max_steps: int = 100_000,
) -> Played:
    """Play one match or session to its end and print what happens to ``out``.

    Seats are played by ``bot_for(seat)`` except the ``human``'s; the table by
    :class:`TablePolicy` (``rounds`` rounds, then the end). Any verdict other
    than accepted, or a game that stops without finishing, is a
    :class:`GameError`.
    """
    viewer = seat(human.seat) if human else PUBLIC
    started = client.new_game(game_config, seed, views=[viewer])
    game = started.game
    seats = len(started.response.scoreboard.seats)
    commitment = started.response.seed_commitment
    view: referee_pb2.GameView | None = started.views[0] if started.views else None
    _, options = _case(game_config, "game")
    if options is not None and options.ListFields():
        print(f"options: {describe(options, zeros=False)}", file=out)
    print(f"seed commitment {commitment.hex()}", file=out)
    for event in view.events if view is not None else started.events:
        print(f"  {event_text(event)}", file=out)
    bots: dict[int, Bot] = {}
    table = TablePolicy(rounds)
    played = Played(game_config, seed, seats, game)

    for _ in range(max_steps):
        if game.finished:
            break
        actions = client.legal_actions(game)
        if not actions:
            raise GameError("no one may act, yet the game is not over")
        actor = actions[0].actor
        chosen: referee_pb2.Action | None = None
        if human is not None:
            own = [a for a in actions if _is_seat(a.actor, human.seat)]
            others = [a for a in actions if not _is_seat(a.actor, human.seat)]
            turn = _seat_on_turn(view)
            if own and others and turn is not None and turn != human.seat:
                # Another seat is on turn and the human may act out of turn, but need
                # not (announcing the king, E-KING-1): act now, or let that seat play.
                # Declining is asked once per state: the seat on turn plays at once.
                actor = next((a.actor for a in others if _is_seat(a.actor, turn)), others[0].actor)
                chosen = human.choose_or_wait(own, view, f"let {actor_text(actor)} play")
                if chosen is not None:
                    actor = chosen.actor
            elif own:
                actor = own[0].actor
        mine = [a for a in actions if a.actor == actor]
        kind = actor.WhichOneof("kind")
        if chosen is not None:
            action = chosen
        elif kind == "table":
            action = table.choose(mine)
        elif kind == "seat" and human is not None and actor.seat == human.seat:
            action = human.choose(mine, view)
        elif kind == "seat":
            bot = bots.get(actor.seat) or bots.setdefault(actor.seat, bot_for(actor.seat))
            action = bot.choose(mine, None)
        else:
            raise GameError(f"no player for {actor_text(actor)}")
        applied = client.apply(game, action, views=[viewer])
        if not applied.accepted:
            reasons = "; ".join(f"{v.code} ({v.rule_id}): {v.message}" for v in applied.violations)
            verdict = common_pb2.Verdict.Name(applied.verdict)
            raise GameError(f"{actor_text(actor)} {action_text(action)}: {verdict}: {reasons}")
        played.actions.append(action)
        game = applied.game
        view = applied.views[0] if applied.views else None
        if kind == "table":
            print(f"{actor_text(actor)}: {action_text(action)}", file=out)
        for event in view.events if view is not None else applied.events:
            print(f"  {event_text(event)}", file=out)
    else:
        raise GameError(f"the game did not end within {max_steps} actions")

    played.game = game
    final = client.view(game, PUBLIC)
    played.final_view = final.view
    print("final standings:", file=out)
    for line in scoreboard_text(final.scoreboard):
        print(line, file=out)
    revealed = final.view.seed
    if not revealed or hashlib.sha256(revealed).digest() != commitment:
        raise GameError("the seed revealed at the end does not match the commitment")
    played.seed = revealed
    print(f"seed revealed {revealed.hex()}: matches the commitment", file=out)
    replay = client.replay(game_config, revealed, played.actions)
    if replay.final_hash != game.state_hash:
        raise GameError("Replay of the game's actions gives another final state")
    print(
        f"replay of {len(played.actions)} actions: "
        f"final hash {game.state_hash.hex()[:16]}… matches",
        file=out,
    )
    return played
