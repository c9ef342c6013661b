// A web page's calls, through the gRPC-Web gateway (`referee grpc-web`): Connect's
// browser transport (@connectrpc/connect-web, over fetch: Node's here, the browser's in
// a page) and the generated code only, nothing that needs Node. docs/clients.md
// "Browsers: gRPC-Web" shows the same code.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";

import { ErrorInfoSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { ActorSchema, Verdict } from "../src/gen/referee/v1/common_pb.js";
import { RefereeService } from "../src/gen/referee/v1/referee_pb.js";
import { grpcWebUrl, strictGrpcWebUrl } from "./support.js";

const SEED = new Uint8Array(32).map((_, i) => i);

function webClient(baseUrl: string) {
  return createClient(RefereeService, createGrpcWebTransport({ baseUrl }));
}

test("gRPC-Web: a page lists the games and plays through the gateway", async () => {
  const referee = webClient(grpcWebUrl());
  const { games } = await referee.listGames({});
  assert.deepEqual(games.map((g) => g.id).sort(), ["earl_of_coventry", "ecarte"]);

  const started = await referee.newGame({
    config: { game: { case: "earlOfCoventry", value: { seats: 3 } } },
    seed: SEED,
    views: [{ kind: { case: "seat", value: 0 } }],
  });
  const view = started.views[0]?.game;
  assert.equal(view?.case, "earlOfCoventry");
  assert.ok([17, 18].includes(view.value.seats[0]!.hand.length)); // 52 cards: 18, 17, 17
  assert.equal(view.value.seats[1]!.hand.length, 0); // another seat's cards: never shown
  let state = started.state;
  for (let i = 0; i < 6; i++) {
    const { actions } = await referee.legalActions({ state });
    const reply = await referee.applyAction({ state, action: actions[0] });
    assert.equal(reply.verdict, Verdict.ACCEPTED);
    assert.equal(reply.state?.version, BigInt(i + 1));
    state = reply.state;
  }
});

test("gRPC-Web: an illegal action is a verdict; a bad request an error with its details", async () => {
  const referee = webClient(grpcWebUrl());
  const { state } = await referee.newGame({
    config: { game: { case: "earlOfCoventry", value: { seats: 3 } } },
    seed: SEED,
  });
  const { actions } = await referee.legalActions({ state });
  const action = actions[0]!;
  action.actor = create(ActorSchema, {
    kind: { case: "seat", value: ((action.actor?.kind.value as number) + 1) % 3 },
  });
  const rejected = await referee.applyAction({ state, action });
  assert.equal(rejected.verdict, Verdict.REJECTED);
  assert.ok(rejected.violations.length > 0);

  await assert.rejects(referee.applyAction({}), (err: unknown) => {
    const e = ConnectError.from(err);
    assert.equal(e.code, Code.InvalidArgument);
    assert.match(e.rawMessage, /state/);
    return true;
  });
});

test("gRPC-Web: a player's page on a strict server holds its token and credential", async () => {
  const referee = webClient(strictGrpcWebUrl());
  const started = await referee.newGame({
    config: { game: { case: "earlOfCoventry", value: { seats: 3 } } },
    seatEntropy: [new Uint8Array([1]), new Uint8Array([2]), new Uint8Array([3])],
  });
  assert.equal(started.state, undefined);
  assert.ok(started.sealedState.length > 0);
  const mine = await referee.viewState({
    sealedState: started.sealedState,
    viewer: { kind: { case: "seat", value: 1 }, credential: started.seatCredentials[1]! },
  });
  const seen = mine.view?.game;
  assert.equal(seen?.case, "earlOfCoventry");
  assert.ok(seen.value.seats[1]!.hand.length > 0);
  assert.equal(seen.value.seats[2]!.hand.length, 0);

  await assert.rejects(
    referee.viewState({
      sealedState: started.sealedState,
      viewer: { kind: { case: "seat", value: 2 }, credential: started.seatCredentials[1]! },
    }),
    (err: unknown) => {
      const e = ConnectError.from(err);
      assert.equal(e.code, Code.PermissionDenied);
      assert.equal(e.findDetails(ErrorInfoSchema)[0]?.reason, "SEAT_CREDENTIAL_INVALID");
      return true;
    },
  );
});
