import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

/** The server under test: REFEREE_ADDRESS must be set (a missing server is a failure, not a skip). */
export function address(): string {
  const a = process.env["REFEREE_ADDRESS"];
  if (!a) throw new Error("REFEREE_ADDRESS is not set: start a server (referee serve) and set host:port");
  return a;
}

/** tests/vectors of the repository (REFEREE_VECTORS overrides). */
export function vectorsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url)); // clients/typescript/dist/test
  return process.env["REFEREE_VECTORS"] ?? join(here, "..", "..", "..", "..", "tests", "vectors");
}
