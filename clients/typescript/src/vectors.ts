// Golden replay vectors (tests/vectors/*.json): every client replays the same
// files and must get the same verdicts and the same final hash.
import { readdirSync, readFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";

import type { RefereeClient } from "./client.js";
import { Verdict } from "./gen/referee/v1/common_pb.js";
import { ActionSchema, GameConfigSchema, type Action } from "./gen/referee/v1/referee_pb.js";

export interface VectorResult {
  file: string;
  actions: number;
  failures: string[];
}

const fromHex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const toHex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** The verdict name as written in a vector: "VERDICT_ACCEPTED" or "ACCEPTED". */
function verdictName(v: unknown): string {
  return String(v).replace(/^VERDICT_/, "");
}

interface Expected {
  verdicts: (string | undefined)[];
  hashes: (string | undefined)[];
}

function expectations(vector: Record<string, unknown>, count: number): Expected {
  const verdicts: (string | undefined)[] = new Array(count).fill(undefined);
  const hashes: (string | undefined)[] = new Array(count).fill(undefined);
  const list = (vector["verdicts"] ?? vector["expectedVerdicts"]) as unknown[] | undefined;
  list?.forEach((v, i) => (verdicts[i] = verdictName(v)));
  const steps = vector["steps"] as Record<string, unknown>[] | undefined;
  steps?.forEach((s, i) => {
    if (s["verdict"] !== undefined) verdicts[i] = verdictName(s["verdict"]);
    if (typeof s["stateHash"] === "string") hashes[i] = s["stateHash"].toLowerCase();
  });
  return { verdicts, hashes };
}

function actionsOf(vector: Record<string, unknown>): Action[] {
  const raw = (vector["actions"] ??
    (vector["steps"] as Record<string, unknown>[] | undefined)?.map((s) => s["action"])) as JsonValue[];
  if (!Array.isArray(raw)) throw new Error("no actions");
  return raw.map((a) => fromJson(ActionSchema, a));
}

/** Replay one vector file through the server; each failure is a line. */
export async function runVector(client: RefereeClient, file: string): Promise<VectorResult> {
  const vector = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
  const config = fromJson(GameConfigSchema, vector["config"] as JsonValue);
  const seed = fromHex(String(vector["seed"]));
  const entropy = ((vector["seatEntropy"] as string[] | undefined) ?? []).map(fromHex);
  const actions = actionsOf(vector);
  const expected = expectations(vector, actions.length);
  const failures: string[] = [];
  const reply = await client.replay(config, seed, actions, { seatEntropy: entropy });
  if (reply.steps.length !== actions.length) {
    failures.push(`${reply.steps.length} steps for ${actions.length} actions`);
  }
  reply.steps.forEach((step, i) => {
    const got = Verdict[step.verdict];
    if (expected.verdicts[i] !== undefined && got !== expected.verdicts[i]) {
      failures.push(`action ${i}: verdict ${got}, expected ${expected.verdicts[i]}`);
    }
    if (expected.hashes[i] !== undefined && toHex(step.stateHash) !== expected.hashes[i]) {
      failures.push(`action ${i}: state hash ${toHex(step.stateHash)}, expected ${expected.hashes[i]}`);
    }
  });
  if (typeof vector["initialHash"] === "string" && toHex(reply.initialHash) !== vector["initialHash"].toLowerCase()) {
    failures.push(`initial hash ${toHex(reply.initialHash)}, expected ${vector["initialHash"]}`);
  }
  const finalHash = String(vector["finalHash"] ?? "").toLowerCase();
  if (!finalHash) failures.push("the vector has no finalHash");
  else if (toHex(reply.finalHash) !== finalHash) {
    failures.push(`final hash ${toHex(reply.finalHash)}, expected ${finalHash}`);
  }
  return { file, actions: actions.length, failures };
}

/** The vector files of a directory, or undefined when it does not exist. */
export function vectorFiles(dir: string): string[] | undefined {
  if (!existsSync(dir)) return undefined;
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
    .map((f) => join(dir, f));
}
