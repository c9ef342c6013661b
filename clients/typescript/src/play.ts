// Bots that play any game through LegalActions, and a loop that plays one
// match or session to its end through a running server.
import { createHash } from "node:crypto";
import { equals } from "@bufbuild/protobuf";

import { PUBLIC, type GameHandle, type RefereeClient } from "./client.js";
import { ActorSchema } from "./gen/referee/v1/common_pb.js";
import type { Action, GameConfig } from "./gen/referee/v1/referee_pb.js";
import { actionKind, actionText, actorText, eventText } from "./text.js";

/** A bot picks one of the legal actions (never empty). */
export type Bot = (actions: Action[]) => Action;

/** A small seeded generator (mulberry32): the same seed, the same choices. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random among the legal actions, but never a pass when something else is possible. */
export function eagerBot(seed: number): Bot {
  const random = seededRandom(seed);
  return (actions) => {
    const active = actions.filter((a) => actionKind(a) !== "pass");
    const pool = active.length > 0 ? active : actions;
    const pick = pool[Math.floor(random() * pool.length)];
    if (!pick) throw new Error("no legal action to choose from");
    return pick;
  };
}

/**
 * The table between rounds: deal `rounds` rounds, then end. Generic: an action
 * whose case starts with "end" ends the match or session; any other continues.
 */
export function tablePolicy(rounds: number): Bot {
  let decisions = 0;
  return (actions) => {
    decisions++;
    const ending = actions.filter((a) => actionKind(a).startsWith("end"));
    const goingOn = actions.filter((a) => !actionKind(a).startsWith("end"));
    const pick = decisions >= rounds && ending.length > 0 ? ending[0] : (goingOn[0] ?? ending[0]);
    if (!pick) throw new Error("no table action to choose from");
    return pick;
  };
}

export interface Played {
  game: GameHandle;
  actions: Action[];
  seed: Uint8Array;
  winners: number[];
}

export interface PlayOptions {
  seed?: Uint8Array;
  /** Seed of the bots' choices. */
  botSeed?: number;
  /** Rounds the table deals before ending a session (default 1). */
  rounds?: number;
  /** Where the transcript goes (default: nowhere). */
  log?: (line: string) => void;
  maxSteps?: number;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const same = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

/**
 * Play one match or session to its end with bots on every seat. Throws when a
 * legal action is not accepted, when the game stops before its end, when the
 * revealed seed does not match its commitment, or when Replay disagrees.
 */
export async function playGame(
  client: RefereeClient,
  config: GameConfig,
  options: PlayOptions = {},
): Promise<Played> {
  const log = options.log ?? (() => {});
  const botSeed = options.botSeed ?? 1;
  const table = tablePolicy(options.rounds ?? 1);
  const bots = new Map<number, Bot>();
  const started = await client.newGame(config, { seed: options.seed });
  let game = started.game;
  const commitment = started.response.seedCommitment;
  log(`seed commitment ${hex(commitment)}`);
  for (const e of started.response.events) log(`  ${eventText(e)}`);
  const actions: Action[] = [];
  const maxSteps = options.maxSteps ?? 100_000;

  for (let step = 0; !game.scoreboard.finished; step++) {
    if (step >= maxSteps) throw new Error(`the game did not end within ${maxSteps} actions`);
    const legal = await client.legalActions(game);
    const first = legal[0];
    if (!first) throw new Error("no one may act, yet the game is not over");
    const actor = first.actor;
    const mine = legal.filter((a) => a.actor && actor && equals(ActorSchema, a.actor, actor));
    let action: Action;
    if (actor?.kind.case === "table") {
      action = table(mine);
    } else if (actor?.kind.case === "seat") {
      const seat = actor.kind.value;
      let bot = bots.get(seat);
      if (!bot) {
        bot = eagerBot(botSeed * 1000 + seat);
        bots.set(seat, bot);
      }
      action = bot(mine);
    } else {
      throw new Error(`no player for ${actorText(actor)}`);
    }
    const applied = await client.apply(game, action);
    if (!applied.accepted) {
      const why = applied.response.violations.map((v) => `${v.code} (${v.ruleId}): ${v.message}`);
      throw new Error(`${actorText(actor)} ${actionText(action)}: ${applied.verdict}: ${why.join("; ")}`);
    }
    actions.push(action);
    game = applied.game;
    if (actor?.kind.case === "table") log(`the table: ${actionKind(action)}`);
    for (const e of applied.response.events) log(`  ${eventText(e)}`);
  }

  const final = await client.view(game, PUBLIC);
  const seed = final.view?.seed ?? new Uint8Array();
  if (seed.length === 0 || !same(createHash("sha256").update(seed).digest(), commitment)) {
    throw new Error("the seed revealed at the end does not match the commitment");
  }
  const replay = await client.replay(config, seed, actions);
  if (!same(replay.finalHash, game.stateHash)) {
    throw new Error("Replay of the game's actions gives another final state");
  }
  log(`seed revealed ${hex(seed)}: matches the commitment`);
  log(`replay of ${actions.length} actions: final hash ${hex(game.stateHash).slice(0, 16)}… matches`);
  return { game, actions, seed, winners: [...game.scoreboard.winners] };
}
