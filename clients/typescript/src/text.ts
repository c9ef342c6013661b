// Readable one-line texts for cards, actions and events of any game.
import { toJsonString } from "@bufbuild/protobuf";

import type { Card } from "./gen/referee/v1/cards_pb.js";
import { ActorSchema, type Actor, type Scoreboard } from "./gen/referee/v1/common_pb.js";
import { ActionSchema, EventSchema, type Action, type Event } from "./gen/referee/v1/referee_pb.js";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["♣", "♦", "♥", "♠"];

export function cardText(card: Card | undefined): string {
  if (!card) return "?";
  return `${RANKS[card.rank - 1] ?? "?"}${SUITS[card.suit - 1] ?? "?"}`;
}

/** The case of the first oneof of a generated message (`play`, `next_round`...). */
export function caseOf(message: object | undefined): string | undefined {
  if (!message) return undefined;
  for (const value of Object.values(message)) {
    if (value !== null && typeof value === "object" && "case" in value) {
      const c = (value as { case: unknown }).case;
      if (typeof c === "string") return c;
    }
  }
  return undefined;
}

/** The game action's case: `play`, `pass`, `nextRound`, `endSession`... */
export function actionKind(action: Action): string {
  return caseOf(action.game.value) ?? action.game.case ?? "";
}

export function actorText(actor: Actor | undefined): string {
  switch (actor?.kind.case) {
    case "seat":
      return `seat ${actor.kind.value}`;
    case "spectator":
      return `spectator ${JSON.stringify(actor.kind.value)}`;
    case "table":
      return "the table";
    default:
      return actor ? toJsonString(ActorSchema, actor) : "nobody";
  }
}

export function actionText(action: Action): string {
  if (action.game.case === "earlOfCoventry" && action.game.value.kind.case === "play") {
    const play = action.game.value.kind.value;
    return `play ${cardText(play.card)}${play.call ? ` saying ${JSON.stringify(play.call)}` : ""}`;
  }
  if (action.game.case === "ecarte") {
    const k = action.game.value.kind;
    if (k.case === "play") return `play ${cardText(k.value.card)}`;
    if (k.case === "discard") return `discard ${k.value.cards.map(cardText).join(" ")}`;
  }
  const json = JSON.parse(toJsonString(ActionSchema, action)) as Record<string, unknown>;
  delete json["actor"];
  return `${actionKind(action)} ${JSON.stringify(json)}`;
}

export function eventText(event: Event): string {
  if (event.game.case === "earlOfCoventry") {
    const k = event.game.value.kind;
    switch (k.case) {
      case "cardPlayed":
        return `seat ${k.value.seat} plays ${cardText(k.value.card)}: ${JSON.stringify(k.value.call)}`;
      case "passedOver":
        return `seat ${k.value.seat} passed over`;
      case "rankCompleted":
        return `rank complete: seat ${k.value.seat} is the Earl`;
      case "roundWon":
        return `seat ${k.value.seat} wins round ${k.value.round + 1}`;
      case "sessionEnded":
        return `session over: winners ${k.value.winners.join(", ")}`;
      default:
        break;
    }
  }
  if (event.game.case === "ecarte") {
    const k = event.game.value.kind;
    switch (k.case) {
      case "cardPlayed":
        return `seat ${k.value.seat} plays ${cardText(k.value.card)}`;
      case "trickWon":
        return `seat ${k.value.seat} wins trick ${k.value.trick + 1}: ${k.value.cards.map(cardText).join(" ")}`;
      case "pointsScored":
        return `seat ${k.value.seat} scores ${k.value.points} (total ${k.value.total})`;
      case "gameWon":
        return `seat ${k.value.seat} wins game ${k.value.game + 1} (points ${k.value.points.join("-")})`;
      case "matchWon":
        return `seat ${k.value.seat} wins the match (games ${k.value.gamesWon.join("-")})`;
      default:
        break;
    }
  }
  return toJsonString(EventSchema, event);
}

export function scoreboardText(board: Scoreboard): string {
  const seats = board.seats.map((s) => {
    const parts = [`seat ${s.seat}`];
    if (s.roundsWon) parts.push(`rounds won ${s.roundsWon}`);
    if (s.gamesWon) parts.push(`games won ${s.gamesWon}`);
    if (s.points) parts.push(`points ${s.points}`);
    if (s.counters) parts.push(`counters ${s.counters}`);
    if (s.chips) parts.push(`chips ${s.chips}`);
    parts.push(`cards in hand ${s.cardsInHand}`);
    return parts.join(" ");
  });
  return `${seats.join("; ")}; finished ${board.finished}; winners [${board.winners.join(", ")}]`;
}
