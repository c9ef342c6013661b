import assert from "node:assert/strict";
import { test } from "node:test";
import { clone, create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";

import {
  EarlOfCoventryPhase,
  EcartePhase,
  GameStateSchema,
  PUBLIC,
  RefereeClient,
  RefereeError,
  ReplayResponseSchema,
  TABLE,
  gameConfig,
  handleOf,
  onlySeat,
  playGame,
  seatActor,
  seatViewer,
  stateOf,
} from "../src/index.js";
import { address, sealedAddress, strictAddress } from "./support.js";

const SEED = new Uint8Array(32).map((_, i) => i);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

test("ListGames serves Earl of Coventry", async () => {
  const games = await new RefereeClient(address()).listGames();
  const earl = games.find((g) => g.id === "earl_of_coventry");
  assert.ok(earl, `games: ${games.map((g) => g.id).join(", ")}`);
  assert.equal(earl.rulesVersion, "earl_of_coventry/1");
});

test("every game the server serves plays to its end", async (t) => {
  const client = new RefereeClient(address());
  for (const info of await client.listGames()) {
    await t.test(info.id, async () => {
      const played = await playGame(client, gameConfig(info.id), { seed: SEED, botSeed: 3 });
      assert.ok(played.game.scoreboard.finished);
      assert.ok(played.winners.length > 0);
    });
  }
});

test("an Earl of Coventry round is deterministic for a seed", async () => {
  const client = new RefereeClient(address());
  const config = gameConfig("earl_of_coventry", { seats: 3 });
  const a = await playGame(client, config, { seed: SEED, botSeed: 5 });
  const b = await playGame(client, config, { seed: SEED, botSeed: 5 });
  assert.equal(hex(a.game.stateHash), hex(b.game.stateHash));
  assert.equal(a.actions.length, b.actions.length);
  const state = a.game.state?.game;
  assert.equal(state?.case, "earlOfCoventry");
  assert.equal(state?.value.phase, EarlOfCoventryPhase.SESSION_OVER);
});

test("an Earl of Coventry session of three rounds with counters", async () => {
  const client = new RefereeClient(address());
  const config = gameConfig("earl_of_coventry", { seats: 5, scoring: "EARL_OF_COVENTRY_SCORING_COUNTERS" });
  const played = await playGame(client, config, { seed: SEED, botSeed: 9, rounds: 3 });
  const state = played.game.state?.game;
  assert.equal(state?.case, "earlOfCoventry");
  assert.ok(state.value.round >= 2, `rounds played: ${state.value.round + 1}`);
  const counters = state.value.seats.reduce((sum, s) => sum + s.counters, 0n);
  assert.equal(counters, 5n * 20n);
});

test("Écarté matches play to their end: two games to win with stakes, and à trois", async () => {
  const client = new RefereeClient(address());
  const matches: { options: { [key: string]: number }; games: number }[] = [
    { options: { gamesToWin: 2, stake: 1 }, games: 2 },
    { options: { seats: 3 }, games: 1 },
  ];
  for (const { options, games } of matches) {
    const config = gameConfig("ecarte", options);
    const a = await playGame(client, config, { seed: SEED, botSeed: 4 });
    const b = await playGame(client, config, { seed: SEED, botSeed: 4 });
    assert.equal(hex(a.game.stateHash), hex(b.game.stateHash));
    const state = a.game.state?.game;
    assert.equal(state?.case, "ecarte");
    assert.equal(state.value.phase, EcartePhase.MATCH_OVER);
    const [winner] = a.winners;
    assert.ok(winner !== undefined);
    assert.equal(a.game.scoreboard.seats[winner]?.gamesWon, games);
  }
});

test("replay with includeLog returns the game's GameLog", async () => {
  const client = new RefereeClient(address());
  const config = gameConfig("earl_of_coventry", { seats: 3 });
  const played = await playGame(client, config, { seed: SEED, botSeed: 4 });
  const replay = await client.replay(config, SEED, played.actions, { includeLog: true });
  assert.equal(replay.log?.entries.length, played.actions.length);
  assert.equal(hex(replay.log?.finalHash ?? new Uint8Array()), hex(played.game.stateHash));
  assert.equal((await client.replay(config, SEED, played.actions)).log, undefined);
});

test("an illegal action is a verdict, not an error", async () => {
  const client = new RefereeClient(address());
  const { game } = await client.newGame(gameConfig("earl_of_coventry", { seats: 3 }), { seed: SEED });
  const [action] = await client.legalActions(game);
  assert.ok(action?.actor?.kind.case === "seat");
  action.actor = seatActor((action.actor.kind.value + 1) % 3);
  const applied = await client.apply(game, action);
  assert.equal(applied.verdict, "REJECTED");
  assert.ok(applied.response.violations.some((v) => v.code === "NOT_YOUR_TURN"));
  assert.equal(hex(applied.game.stateHash), hex(game.stateHash));
  assert.deepEqual(await client.legalActions(game, TABLE), []);
});

test("a seat's view shows its own hand only", async () => {
  const client = new RefereeClient(address());
  const { game } = await client.newGame(gameConfig("earl_of_coventry", { seats: 4 }), { seed: SEED });
  const mine = await client.view(game, seatViewer(2));
  const view = mine.view?.game;
  assert.equal(view?.case, "earlOfCoventry");
  for (const s of view.value.seats) assert.equal(s.hand.length > 0, s.seat === 2);
  const pub = await client.view(game, PUBLIC);
  assert.equal(pub.view?.seed.length, 0);
  assert.equal(hex(mine.stateHash), hex(game.stateHash));
});

test("a broken request is a RefereeError with its code and details", async () => {
  const client = new RefereeClient(address());
  await assert.rejects(
    client.newGame(gameConfig("earl_of_coventry", { seats: 14 })),
    (err: unknown) =>
      err instanceof RefereeError &&
      err.code === Code.InvalidArgument &&
      err.detailTypes.includes("google.rpc.BadRequest"),
  );
});

test("a rules version the server does not serve: the ErrorInfo reason and metadata", async () => {
  const client = new RefereeClient(address());
  const { game } = await client.newGame(gameConfig("ecarte"), { seed: SEED });
  assert.ok(game.state);
  const future = clone(GameStateSchema, game.state);
  future.rulesVersion = "ecarte/999";
  const handle = handleOf(future, new Uint8Array(), game.stateHash, game.scoreboard);
  await assert.rejects(client.legalActions(handle), (err: unknown) => {
    assert.ok(err instanceof RefereeError, String(err));
    assert.equal(err.code, Code.FailedPrecondition);
    assert.equal(err.reason, "RULES_VERSION_UNSUPPORTED");
    assert.equal(err.metadata["rules_version"], "ecarte/999");
    assert.deepEqual(err.fieldViolations, []);
    assert.ok(err.detailTypes.includes("google.rpc.ErrorInfo"));
    return true;
  });
});

test("a malformed request: the BadRequest field violations, and no reason", async () => {
  const client = new RefereeClient(address());
  await assert.rejects(
    client.newGame(gameConfig("earl_of_coventry", { seats: 3 }), { seed: new Uint8Array(3) }),
    (err: unknown) => {
      assert.ok(err instanceof RefereeError, String(err));
      assert.equal(err.code, Code.InvalidArgument);
      assert.equal(err.fieldViolations[0]?.field, "seed");
      assert.match(err.fieldViolations[0]?.description ?? "", /32 bytes/);
      // Named once: the server's message names its first violation already.
      const said = err.fieldViolations[0]?.description ?? "";
      assert.equal(err.message.split(said).length - 1, 1, err.message);
      assert.equal(err.reason, "");
      assert.deepEqual(err.metadata, {});
      return true;
    },
  );
});

test("UNAVAILABLE is retried, other errors are not", async () => {
  const client = new RefereeClient("127.0.0.1:9", { maxAttempts: 3 });
  let calls = 0;
  const stub = {
    listGames: async () => {
      calls++;
      if (calls < 3) throw new ConnectError("down", Code.Unavailable);
      return { games: [] };
    },
  };
  Object.defineProperty(client, "stub", { value: stub });
  assert.deepEqual(await client.listGames(), []);
  assert.equal(calls, 3);
  calls = 10;
  stub.listGames = async () => {
    calls++;
    throw new ConnectError("bad", Code.InvalidArgument);
  };
  await assert.rejects(
    client.listGames(),
    (err: unknown) => err instanceof RefereeError && err.reason === "" && err.fieldViolations.length === 0,
  );
  assert.equal(calls, 11);
});

test("the deadline bounds the whole call, its retries included", async () => {
  // Each attempt fails UNAVAILABLE after 150 ms: with a 400 ms deadline, the call must
  // end by then (docs/clients.md: retries "within the deadline"), not after 5 attempts.
  const client = new RefereeClient("127.0.0.1:9", { timeoutMs: 400, maxAttempts: 5 });
  const given: number[] = [];
  const stub = {
    listGames: async (_req: unknown, options: { timeoutMs: number }) => {
      given.push(options.timeoutMs);
      await new Promise((resolve) => setTimeout(resolve, Math.min(150, options.timeoutMs)));
      if (options.timeoutMs <= 150) throw new ConnectError("timed out", Code.DeadlineExceeded);
      throw new ConnectError("down", Code.Unavailable);
    },
  };
  Object.defineProperty(client, "stub", { value: stub });
  const started = Date.now();
  await assert.rejects(client.listGames(), (err: unknown) => err instanceof RefereeError);
  const took = Date.now() - started;
  assert.ok(took < 1200, `the call took ${took} ms with a 400 ms deadline (attempts: ${given.length})`);
  assert.ok(given.length < 5, `${given.length} attempts within a 400 ms deadline`);
  for (const t of given) assert.ok(t <= 400, `an attempt was given ${t} ms of a 400 ms deadline`);
});

test("a replay takes a deadline of its own", async () => {
  const client = new RefereeClient("127.0.0.1:9", { timeoutMs: 400 });
  const given: number[] = [];
  const stub = {
    replay: async (_req: unknown, options: { timeoutMs: number }) => {
      given.push(options.timeoutMs);
      return create(ReplayResponseSchema, {});
    },
  };
  Object.defineProperty(client, "stub", { value: stub });
  await client.replay(gameConfig("ecarte"), new Uint8Array(32), [], { timeoutMs: 60_000 });
  await client.replay(gameConfig("ecarte"), new Uint8Array(32), []);
  assert.equal(given.length, 2);
  assert.ok(given[0]! > 59_000 && given[0]! <= 60_000, `${given[0]} ms given for 60,000`);
  assert.ok(given[1]! > 300 && given[1]! <= 400, `${given[1]} ms given for the client's 400`);
});

test("a server that is down is UNAVAILABLE after the retries", async () => {
  const client = new RefereeClient("127.0.0.1:1", { maxAttempts: 2, timeoutMs: 2000 });
  await assert.rejects(client.listGames(), (err: unknown) => err instanceof RefereeError && err.code === Code.Unavailable);
});

test("a sealed game handle sends the token back, never a state", () => {
  const token = new Uint8Array([1, 2, 3]);
  const sealed = handleOf(create(GameStateSchema), token, new Uint8Array(32), undefined);
  assert.deepEqual(stateOf(sealed), { sealedState: token });
  const plain = handleOf(create(GameStateSchema, { rulesVersion: "x/1" }), new Uint8Array(), new Uint8Array(32), undefined);
  assert.equal(stateOf(plain).state?.rulesVersion, "x/1");
  assert.throws(() => handleOf(undefined, new Uint8Array(), new Uint8Array(), undefined));
});

test("a sealing server's tokens are carried back, never a state", async () => {
  const client = new RefereeClient(sealedAddress());
  const played = await playGame(client, gameConfig("earl_of_coventry", { seats: 3 }), { seed: SEED, botSeed: 2 });
  assert.ok(played.game.sealedState.length > 0);
  assert.equal(played.game.state, undefined);
  assert.equal(played.game.credentials.seats.length, 3);
});

test("only ACTOR_REQUIRED turns LegalActions without an actor into one call per actor", async () => {
  // Any other error, here a broken token, is the caller's: raised as it came, and the
  // client goes on asking in one call.
  const perActor = (c: RefereeClient) => (c as unknown as { perActor: boolean }).perActor;
  const client = new RefereeClient(sealedAddress());
  const { game } = await client.newGame(gameConfig("earl_of_coventry", { seats: 3 }), { seed: SEED });
  const token = game.sealedState.slice();
  token.set([(token.at(-1) ?? 0) ^ 1], token.length - 1);
  await assert.rejects(
    client.legalActions({ ...game, sealedState: token }),
    (err: unknown) => err instanceof RefereeError && err.reason === "STATE_SEAL_INVALID",
  );
  assert.equal(perActor(client), false);
  assert.ok((await client.legalActions(game)).length > 0 && !perActor(client));
  const strict = new RefereeClient(strictAddress());
  const started = await strict.newGame(gameConfig("earl_of_coventry", { seats: 3 }));
  assert.ok((await strict.legalActions(started.game)).length > 0 && perActor(strict));
});

test("a player's handle asks for the actors it holds credentials for", async () => {
  // Without an actor on a strict server, a handle holding one seat's credential asks
  // for that seat alone: the table and the other seats would refuse it.
  const client = new RefereeClient(strictAddress());
  const { game } = await client.newGame(gameConfig("earl_of_coventry", { seats: 3 }));
  const [first] = await client.legalActions(game);
  assert.ok(first?.actor?.kind.case === "seat");
  const turn = first.actor.kind.value;
  const mine = await client.legalActions({ ...game, credentials: onlySeat(game.credentials, turn) });
  assert.ok(mine.length > 0);
  for (const a of mine) assert.ok(a.actor?.kind.case === "seat" && a.actor.kind.value === turn);
  const other = await client.legalActions({ ...game, credentials: onlySeat(game.credentials, (turn + 1) % 3) });
  assert.deepEqual(other, []);
});

test("a server that requires sealed states: credentials on every actor", async () => {
  const client = new RefereeClient(strictAddress());
  const played = await playGame(client, gameConfig("earl_of_coventry", { seats: 4 }), { botSeed: 2 });
  assert.ok(played.game.scoreboard.finished && played.game.sealedState.length > 0);
  // Écarté has no table actions: asked of the table as of every seat (D-15).
  const ecarte = await playGame(client, gameConfig("ecarte"), { botSeed: 2 });
  assert.ok(ecarte.game.scoreboard.finished && ecarte.game.sealedState.length > 0);
  const { game } = await client.newGame(gameConfig("earl_of_coventry", { seats: 3 }));
  const [action] = await client.legalActions(game);
  assert.ok(action?.actor?.kind.case === "seat");
  const turn = action.actor.kind.value;
  const other = { ...game, credentials: onlySeat(game.credentials, (turn + 1) % 3) };
  await assert.rejects(
    client.apply(other, action),
    (err: unknown) =>
      err instanceof RefereeError && err.code === Code.PermissionDenied && err.reason === "SEAT_CREDENTIAL_INVALID",
  );
  const mine = await client.apply({ ...game, credentials: onlySeat(game.credentials, turn) }, action);
  assert.ok(mine.accepted);
  await assert.rejects(
    client.newGame(gameConfig("earl_of_coventry"), { seed: SEED }),
    (err: unknown) =>
      err instanceof RefereeError && err.code === Code.FailedPrecondition && err.reason === "CLIENT_SEED_REFUSED",
  );
});
