// A small typed client for the Referee service over gRPC (Connect's gRPC
// transport for Node):
// - a default deadline on every call;
// - retries of calls that fail with UNAVAILABLE, and only those (every RPC is
//   safe to retry: the referee keeps no state between calls);
// - GameHandle, which keeps the state the server returned -- plain or sealed --
//   and sends it back the same way, so callers never deal with the difference.
// Illegal actions are not errors: apply() returns the verdict.
import { clone, create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import type { SecureClientSessionOptions } from "node:http2";

import { Code, ConnectError, createClient, type Client, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";

import { BadRequestSchema, ErrorInfoSchema } from "./gen/google/rpc/error_details_pb.js";
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
  ActionSchema,
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

/**
 * The credentials a sealing server returned with NewGame (docs/trust.md): one
 * per seat (index = seat) and the table's. A platform holds them all; hand each
 * player only its own (onlySeat). Empty with a server that does not seal.
 */
export interface Credentials {
  readonly seats: Uint8Array[];
  readonly table: Uint8Array;
}

export const NO_CREDENTIALS: Credentials = { seats: [], table: new Uint8Array() };

const hasCredentials = (c: Credentials) => c.seats.length > 0 || c.table.length > 0;

/** What the player of seat `n` should hold: its own credential and nothing else. */
export function onlySeat(c: Credentials, n: number): Credentials {
  return { seats: c.seats.map((x, i) => (i === n ? x : new Uint8Array())), table: new Uint8Array() };
}

function withActorCredential(c: Credentials, actor: Actor): Actor {
  if (actor.credential.length > 0) return actor;
  const k = actor.kind;
  const credential = k.case === "seat" ? c.seats[k.value] : k.case === "table" ? c.table : undefined;
  return credential && credential.length > 0 ? { ...clone(ActorSchema, actor), credential } : actor;
}

function withViewerCredential(c: Credentials, viewer: Viewer): Viewer {
  if (viewer.credential.length > 0 || viewer.kind.case !== "seat") return viewer;
  const credential = c.seats[viewer.kind.value];
  return credential && credential.length > 0 ? { ...clone(ViewerSchema, viewer), credential } : viewer;
}

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
  /** The seat and table credentials of a sealing server, put on actors and seat viewers that have none. */
  readonly credentials: Credentials;
}

/** A handle from what a response carried. */
export function handleOf(
  state: GameState | undefined,
  sealedState: Uint8Array,
  stateHash: Uint8Array,
  scoreboard: Scoreboard | undefined,
  credentials: Credentials = NO_CREDENTIALS,
): GameHandle {
  if (!state && sealedState.length === 0) {
    throw new Error("the server returned neither a state nor a sealed state");
  }
  return { state, sealedState, stateHash, scoreboard: scoreboard ?? create(ScoreboardSchema), credentials };
}

/** The part of a request that carries the game: the sealed token if there is one, else the state. */
export function stateOf(game: GameHandle): { state?: GameState; sealedState?: Uint8Array } {
  return game.sealedState.length > 0 ? { sealedState: game.sealedState } : { state: game.state };
}

/** One `google.rpc.BadRequest` field violation: the path in the request and what is wrong there. */
export interface FieldViolation {
  readonly field: string;
  readonly description: string;
}

/** What RefereeError decodes from the google.rpc details (docs/api.md, "Errors"). */
export interface ErrorDetails {
  /** The `google.rpc.ErrorInfo` reason. */
  reason?: string;
  /** The `google.rpc.ErrorInfo` metadata. */
  metadata?: Record<string, string>;
  /** The `google.rpc.BadRequest` field violations. */
  fieldViolations?: FieldViolation[];
}

/**
 * A gRPC error from the referee: a broken request (never an illegal action).
 * Program against `reason` (stable, listed in docs/api.md), not the message.
 */
export class RefereeError extends Error {
  /** The `google.rpc.ErrorInfo` reason, e.g. RULES_VERSION_UNSUPPORTED ("" when there is none). */
  readonly reason: string;
  /** The `google.rpc.ErrorInfo` metadata, e.g. `{ rules_version: "ecarte/999" }` (empty when none). */
  readonly metadata: Record<string, string>;
  /** The `google.rpc.BadRequest` field violations (empty when none). */
  readonly fieldViolations: FieldViolation[];

  constructor(
    readonly code: Code,
    readonly details: string,
    /** The type names of the google.rpc details (e.g. google.rpc.BadRequest). */
    readonly detailTypes: string[],
    decoded: ErrorDetails = {},
  ) {
    const fieldViolations = decoded.fieldViolations ?? [];
    // Each violation the server's message does not name already (it names its first).
    const violations = fieldViolations
      .map((v) => `${v.field}: ${v.description}`)
      .filter((text) => !details.includes(text))
      .join("; ");
    super(`${Code[code] ?? code}: ${details}` + (violations ? ` (${violations})` : ""));
    this.name = "RefereeError";
    this.reason = decoded.reason ?? "";
    this.metadata = decoded.metadata ?? {};
    this.fieldViolations = fieldViolations;
  }

  /** The RefereeError of a Connect error, with its google.rpc details decoded. */
  static from(err: ConnectError): RefereeError {
    const types = err.details.map((d) => ("desc" in d ? d.desc.typeName : d.type));
    const info = err.findDetails(ErrorInfoSchema)[0];
    const fieldViolations = err
      .findDetails(BadRequestSchema)
      .flatMap((bad) => bad.fieldViolations.map(({ field, description }) => ({ field, description })));
    return new RefereeError(err.code, err.rawMessage, types, {
      reason: info?.reason ?? "",
      metadata: { ...info?.metadata },
      fieldViolations,
    });
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
  /** Every call's deadline, its retries included (default 10 s). */
  timeoutMs?: number;
  /** Attempts of a call that fails with UNAVAILABLE, the first included (default 5; 1: no retry). */
  maxAttempts?: number;
  /**
   * Metadata sent with every call, e.g. `{ authorization: "Bearer <token>" }` for a
   * server with `--auth-tokens-file` (docs/operations.md).
   */
  headers?: Record<string, string>;
  /**
   * Node's HTTP/2 session options, e.g. `{ ca }` to trust a private CA, or `{ key, cert }`
   * for mutual TLS (with an `https://` address).
   */
  nodeOptions?: SecureClientSessionOptions;
}

/** An interceptor that sets `headers` on every call. */
function withHeaders(headers: Record<string, string>): Interceptor {
  return (next) => async (req) => {
    for (const [name, value] of Object.entries(headers)) req.header.set(name, value);
    return next(req);
  };
}

// The errors of a LegalActions call without an actor on a server that requires one.
// The reason of a LegalActions call without an actor on a server that requires one
// (--require-sealed): then the client asks per actor, with the handle's credentials.
const NEEDS_AN_ACTOR = "ACTOR_REQUIRED";

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export class RefereeClient {
  /** The generated Connect client, for anything this wrapper does not cover. */
  readonly stub: Client<typeof RefereeService>;
  readonly timeoutMs: number;
  readonly maxAttempts: number;
  private perActor = false;

  /** `address` is `host:port` (plaintext HTTP/2) or a URL (`https://host:port` for TLS). */
  constructor(address: string, options: ClientOptions = {}) {
    const baseUrl = /^https?:\/\//.test(address) ? address : `http://${address}`;
    const interceptors = options.headers ? [withHeaders(options.headers)] : [];
    const nodeOptions = options.nodeOptions;
    this.stub = createClient(RefereeService, createGrpcTransport({ baseUrl, interceptors, nodeOptions }));
    this.timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.maxAttempts = Math.max(1, options.maxAttempts ?? DEFAULT_ATTEMPTS);
  }

  // One deadline for the whole call, its retries included (as gRPC's retry policy in
  // Python and Java, and the Go client's interceptor): each attempt gets the time left,
  // and no attempt starts once the deadline has passed.
  private async call<T>(
    fn: (options: { timeoutMs: number }) => Promise<T>,
    timeoutMs: number = this.timeoutMs,
  ): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let backoff = 100;
    for (let attempt = 1; ; attempt++) {
      try {
        return await fn({ timeoutMs: deadline - Date.now() });
      } catch (err) {
        const e = ConnectError.from(err);
        if (e.code === Code.Unavailable && attempt < this.maxAttempts && Date.now() + backoff < deadline) {
          await sleep(backoff);
          backoff = Math.min(backoff * 2, 2_000);
          continue;
        }
        throw RefereeError.from(e);
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
    const credentials = { seats: response.seatCredentials, table: response.tableCredential };
    return {
      response,
      game: handleOf(response.state, response.sealedState, response.stateHash, response.scoreboard, credentials),
    };
  }

  /** Referee one action: the verdict, and the game after it. */
  async apply(game: GameHandle, action: Action, options: { views?: Viewer[] } = {}): Promise<Applied> {
    const creds = game.credentials;
    const views = options.views?.map((v) => withViewerCredential(creds, v));
    const signed = action.actor ? { ...clone(ActionSchema, action), actor: withActorCredential(creds, action.actor) } : action;
    const response = await this.call((o) =>
      this.stub.applyAction({ ...stateOf(game), action: signed, views }, o),
    );
    return {
      response,
      game: handleOf(response.state, response.sealedState, response.stateHash, response.scoreboard, creds),
      accepted: response.verdict === Verdict.ACCEPTED,
      verdict: Verdict[response.verdict] ?? String(response.verdict),
    };
  }

  /**
   * Every action `actor` may take now (no actor: whoever may act). A server that
   * requires sealed states answers only for one actor with its credential: then,
   * with no actor, the handle's credentials ask for the table and every seat.
   */
  async legalActions(game: GameHandle, actor?: Actor): Promise<Action[]> {
    const creds = game.credentials;
    if (!actor && hasCredentials(creds) && this.perActor) return this.legalActionsPerActor(game);
    try {
      const signed = actor ? withActorCredential(creds, actor) : undefined;
      return (await this.call((o) => this.stub.legalActions({ ...stateOf(game), actor: signed }, o))).actions;
    } catch (err) {
      if (!actor && hasCredentials(creds) && err instanceof RefereeError && err.reason === NEEDS_AN_ACTOR) {
        this.perActor = true;
        return this.legalActionsPerActor(game);
      }
      throw err;
    }
  }

  private async legalActionsPerActor(game: GameHandle): Promise<Action[]> {
    // The table and every seat the handle holds a credential for (a player's handle
    // holds its own seat's only: the others would be refused).
    const creds = game.credentials;
    const actors = [
      ...(creds.table.length > 0 ? [TABLE] : []),
      ...creds.seats.flatMap((c, n) => (c.length > 0 ? [seatActor(n)] : [])),
    ];
    const found: Action[] = [];
    for (const actor of actors) found.push(...(await this.legalActions(game, actor)));
    return found;
  }

  /** What `viewer` may see of the game. */
  async view(game: GameHandle, viewer: Viewer): Promise<ViewStateResponse> {
    const signed = withViewerCredential(game.credentials, viewer);
    return this.call((o) => this.stub.viewState({ ...stateOf(game), viewer: signed }, o));
  }

  /**
   * Referee a whole list of actions from the start: each verdict and the hash chain;
   * `includeLog` also returns the game as a GameLog (`log`), what `referee verify` checks.
   * `rulesVersion` (a stored log's) replays under that version or fails
   * (RULES_VERSION_UNSUPPORTED); `timeoutMs` is this call's deadline instead of the
   * client's (a long replay).
   */
  async replay(
    config: GameConfig,
    seed: Uint8Array,
    actions: Action[],
    options: {
      seatEntropy?: Uint8Array[];
      includeEvents?: boolean;
      includeLog?: boolean;
      rulesVersion?: string;
      timeoutMs?: number;
    } = {},
  ): Promise<ReplayResponse> {
    const { seatEntropy, includeEvents, includeLog, rulesVersion, timeoutMs } = options;
    return this.call(
      (o) =>
        this.stub.replay(
          { config, seed, actions, seatEntropy, includeEvents, includeLog, rulesVersion },
          o,
        ),
      timeoutMs,
    );
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
