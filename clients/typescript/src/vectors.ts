// Golden replay vectors (tests/vectors/*.json): GameLog messages in their
// protobuf JSON form (docs/trust.md). Every client replays the same files
// through the server and must get every verdict, violation code and state
// hash, and the final hash, that the file records.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fromJsonString } from "@bufbuild/protobuf";

import type { RefereeClient } from "./client.js";
import { Verdict } from "./gen/referee/v1/common_pb.js";
import { GameLogSchema, type Action } from "./gen/referee/v1/referee_pb.js";

export interface VectorResult {
  file: string;
  actions: number;
  failures: string[];
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Replay one vector file through the server; each difference from the file is a line. */
export async function runVector(client: RefereeClient, file: string): Promise<VectorResult> {
  const log = fromJsonString(GameLogSchema, readFileSync(file, "utf8"));
  const failures: string[] = [];
  if (!log.config) failures.push("the log has no config");
  const actions: Action[] = log.entries.flatMap((e) => (e.action ? [e.action] : []));
  if (actions.length !== log.entries.length) failures.push("an entry has no action");
  const commitment = createHash("sha256").update(log.seed).digest();
  if (log.seedCommitment.length > 0 && hex(commitment) !== hex(log.seedCommitment)) {
    failures.push("the seed does not match the seed commitment");
  }
  if (failures.length > 0 || !log.config) return { file, actions: actions.length, failures };

  const reply = await client.replay(log.config, log.seed, actions, {
    seatEntropy: log.seatEntropy,
    rulesVersion: log.rulesVersion,
  });
  if (hex(reply.initialHash) !== hex(log.initialHash)) {
    failures.push(`initial hash ${hex(reply.initialHash)}, expected ${hex(log.initialHash)}`);
  }
  if (reply.steps.length !== log.entries.length) {
    failures.push(`${reply.steps.length} steps for ${log.entries.length} actions`);
  }
  reply.steps.forEach((step, i) => {
    const entry = log.entries[i];
    if (!entry) return;
    if (step.verdict !== entry.verdict) {
      failures.push(`action ${i}: verdict ${Verdict[step.verdict]}, expected ${Verdict[entry.verdict]}`);
    }
    const codes = step.violations.map((v) => v.code).join(",");
    if (codes !== entry.violations.join(",")) {
      failures.push(`action ${i}: violations [${codes}], expected [${entry.violations.join(",")}]`);
    }
    if (hex(step.stateHash) !== hex(entry.stateHash)) {
      failures.push(`action ${i}: state hash ${hex(step.stateHash)}, expected ${hex(entry.stateHash)}`);
    }
  });
  if (hex(reply.finalHash) !== hex(log.finalHash)) {
    failures.push(`final hash ${hex(reply.finalHash)}, expected ${hex(log.finalHash)}`);
  }
  if (reply.finalState && reply.finalState.rulesVersion !== log.rulesVersion) {
    failures.push(`rules version ${reply.finalState.rulesVersion}, expected ${log.rulesVersion}`);
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
