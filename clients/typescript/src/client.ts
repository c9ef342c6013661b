// A small typed client for the Referee service over gRPC (Connect's gRPC
// transport for Node):
// - a default deadline on every call;
// - retries of calls that fail with UNAVAILABLE, and only those (every RPC is
//   safe to retry: the referee keeps no state between calls);
// - GameHandle, which keeps the state the server returned -- plain or sealed --
//   and sends it back the same way, so callers never deal with the difference.
// Illegal actions are not errors: apply() returns the verdict.
import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import {
  ActorSchema,
  PublicViewerSchema,
  ScoreboardSchema,
  TableActorSchema,
  Verdict,
  ViewerSchema,
  type Actor,
  type Scoreboard,
  type Viewer,
} from "./gen/referee/v1/common_pb.js";
import {
  GameConfigSchema,
  RefereeService,
  type Action,
  type ApplyActionResponse,
  type GameConfig,
  type GameInfo,
  type GameState,
  type NewGameResponse,
  type ReplayResponse,
  type ViewStateResponse,
} from "./gen/referee/v1/referee_pb.js";

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_ATTEMPTS = 5;

/** The state of one game as the server last returned it, plain or sealed. Treat it as opaque. */
export interface GameHandle {
  /** The plain state, when the server returned one (hidden information: never show it to a player). */
  readonly state: GameState | undefined;
  /** The sealed token, when the server seals states (empty otherwise). */
  readonly sealedState: Uint8Array;
  /** SHA-256 of the state's canonical serialization. */
  readonly stateHash: Uint8Array;
  /** The standings after this state; `scoreboard.finished` once the match or session is over. */
  readonly scoreboard: Scoreboard;
}

/** A handle from what a response carried. */
export function handleOf(
  state: GameState | undefined,
  sealedState: Uint8Array,
  stateHash: Uint8Array,
  scoreboard: Scoreboard | undefined,
): GameHandle {
  if (!state && sealedState.length === 0) {
    throw new Error("the server returned neither a state nor a sealed state");
  }
  return { state, sealedState, stateHash, scoreboard: scoreboard ?? create(ScoreboardSchema) };
}

/** The part of a request that carries the game: the sealed token if there is one, else the state. */
export function stateOf(game: GameHandle): { state?: GameState; sealedState?: Uint8Array } {
  return game.sealedState.length > 0 ? { sealedState: game.sealedState } : { state: game.state };
}

/** A gRPC error from the referee: a broken request (never an illegal action). */
export class RefereeError extends Error {
  constructor(
    readonly code: Code,
    readonly details: string,
    /** The type names of the google.rpc details (e.g. google.rpc.BadRequest). */
    readonly detailTypes: string[],
  ) {
    super(`${Code[code] ?? code}: ${details}`);
    this.name = "RefereeError";
  }
}

export interface Applied {
  readonly response: ApplyActionResponse;
  /** The next state (the same state when the verdict is rejected). */
  readonly game: GameHandle;
  readonly accepted: boolean;
  /** ACCEPTED, REJECTED, PENALIZED. */
  readonly verdict: string;
}

export interface ClientOptions {
  /** Every call's deadline (default 10 s). */
  timeoutMs?: number;
  /** Attempts of a call that fails with UNAVAILABLE, the first included (default 5; 1: no retry). */
  maxAttempts?: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class RefereeClient {
  /** The generated Connect client, for anything this wrapper does not cover. */
  readonly stub: Client<typeof RefereeService>;
  readonly timeoutMs: number;
  readonly maxAttempts: number;

  /** `address` is `host:port` (plaintext HTTP/2) or a URL (`https://host:port` for TLS). */
  constructor(address: string, options: ClientOptions = {}) {
    const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
    this.stub = createClient(RefereeService, createGrpcTransport({ baseUrl }));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_ATTEMPTS);
  }

  private async call<T>(fn: (options: { timeoutMs: number }) => Promise<T>): Promise<T> {
    let backoff = 100;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn({ timeoutMs: this.timeoutMs });
      } catch (err) {
        const e = ConnectError.from(err);
        if (e.code === Code.Unavailable && attempt < this.maxAttempts) {
          await sleep(backoff);
          backoff = Math.min(backoff * 2, 2_000);
          continue;
        }
        const types = e.details.map((d) => ("desc" in d ? d.desc.typeName : d.type));
        throw new RefereeError(e.code, e.rawMessage, types);
      }
    }
  }

  /** Every game the server referees, with its options and variants. */
  async listGames(): Promise<GameInfo[]> {
    return (await this.call((o) => this.stub.listGames({}, o))).games;
  }

  /** Start a match or session (the first deal is done). No seed: the server draws one. */
  async newGame(
    config: GameConfig,
    options: { seed?: Uint8Array; seatEntropy?: Uint8Array[]; views?: Viewer[] } = {},
  ): Promise<{ response: NewGameResponse; game: GameHandle }> {
    const { seed, seatEntropy, views } = options;
    const response = await this.call((o) => this.stub.newGame({ config, seed, seatEntropy, views }, o));
    return {
      response,
      game: handleOf(response.state, response.sealedState, response.stateHash, response.scoreboard),
    };
  }

  /** Referee one action: the verdict, and the game after it. */
  async apply(game: GameHandle, action: Action, options: { views?: Viewer[] } = {}): Promise<Applied> {
    const response = await this.call((o) =>
      this.stub.applyAction({ ...stateOf(game), action, views: options.views }, o),
    );
    return {
      response,
      game: handleOf(response.state, response.sealedState, response.stateHash, response.scoreboard),
      accepted: response.verdict === Verdict.ACCEPTED,
      verdict: Verdict[response.verdict] ?? String(response.verdict),
    };
  }

  /** Every action `actor` may take now (no actor: whoever may act). */
  async legalActions(game: GameHandle, actor?: Actor): Promise<Action[]> {
    return (await this.call((o) => this.stub.legalActions({ ...stateOf(game), actor }, o))).actions;
  }

  /** What `viewer` may see of the game. */
  async view(game: GameHandle, viewer: Viewer): Promise<ViewStateResponse> {
    return this.call((o) => this.stub.viewState({ ...stateOf(game), viewer }, o));
  }

  /** Referee a whole list of actions from the start: each verdict and the hash chain. */
  async replay(
    config: GameConfig,
    seed: Uint8Array,
    actions: Action[],
    options: { seatEntropy?: Uint8Array[]; includeEvents?: boolean } = {},
  ): Promise<ReplayResponse> {
    const { seatEntropy, includeEvents } = options;
    return this.call((o) => this.stub.replay({ config, seed, actions, seatEntropy, includeEvents }, o));
  }
}

export const PUBLIC: Viewer = create(ViewerSchema, {
  kind: { case: "public", value: create(PublicViewerSchema) },
});
export const TABLE: Actor = create(ActorSchema, {
  kind: { case: "table", value: create(TableActorSchema) },
});
export const seatViewer = (seat: number): Viewer =>
  create(ViewerSchema, { kind: { case: "seat", value: seat } });
export const seatActor = (seat: number): Actor =>
  create(ActorSchema, { kind: { case: "seat", value: seat } });

/** A GameConfig from a game id (`earl_of_coventry`, `ecarte`) and its options (protobuf JSON). */
export function gameConfig(game: string, options: { [key: string]: JsonValue } = {}): GameConfig {
  return fromJson(GameConfigSchema, { [game]: options });
}
