import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";

/** The server under test: REFEREE_ADDRESS must be set (a missing server is a failure, not a skip). */
export function address(): string {
  const a = process.env["REFEREE_ADDRESS"];
  if (!a) throw new Error("REFEREE_ADDRESS is not set: start a server (referee serve) and set host:port");
  return a;
}

/** A server with a sealing key (REFEREE_SEALED_ADDRESS) and one that requires sealed states (REFEREE_STRICT_ADDRESS). */
export function sealedAddress(): string {
  const a = process.env["REFEREE_SEALED_ADDRESS"];
  if (!a) throw new Error("REFEREE_SEALED_ADDRESS is not set: a server with --seal-keys-file (tests/clients starts one)");
  return a;
}

export function strictAddress(): string {
  const a = process.env["REFEREE_STRICT_ADDRESS"];
  if (!a) throw new Error("REFEREE_STRICT_ADDRESS is not set: a server with --require-sealed (tests/clients starts one)");
  return a;
}

/** tests/vectors of the repository (REFEREE_VECTORS overrides). */
export function vectorsDir(): string {
  const here = dirname(fileURLToPath(import.meta.url)); // clients/typescript/dist/test
  return process.env["REFEREE_VECTORS"] ?? join(here, "..", "..", "..", "..", "tests", "vectors");
}

/** The gRPC-Web gateways (`referee grpc-web`) in front of the plain and the strict server. */
export function grpcWebUrl(): string {
  const a = process.env["REFEREE_GRPC_WEB_URL"];
  if (!a) throw new Error("REFEREE_GRPC_WEB_URL is not set: a referee grpc-web gateway (tests/clients starts one)");
  return a;
}

export function strictGrpcWebUrl(): string {
  const a = process.env["REFEREE_STRICT_GRPC_WEB_URL"];
  if (!a) throw new Error("REFEREE_STRICT_GRPC_WEB_URL is not set: a referee grpc-web gateway (tests/clients starts one)");
  return a;
}
