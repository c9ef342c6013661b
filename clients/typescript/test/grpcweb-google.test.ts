// Google's gRPC-Web client (the `grpc-web` runtime of github.com/grpc/grpc-web, as
// pages built with protoc-gen-grpc-web use it) through the gateway, in both of its
// formats: "text" (application/grpc-web-text, its default: base64 bodies) and
// "binary". Its generated stubs only wrap GrpcWebClientBase with a MethodDescriptor
// per method; here the descriptors carry the generated protobuf-es code's
// serializers. Node has no XMLHttpRequest, which the runtime calls: xhr2 stands in
// for the browser's.
import assert from "node:assert/strict";
import { test } from "node:test";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { DescMessage, MessageShape } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { GrpcWebClientBase, MethodDescriptor, MethodType } from "grpc-web";
import { RpcError, StatusCode } from "grpc-web";
import XMLHttpRequest from "xhr2";

import { BadRequestSchema } from "../src/gen/google/rpc/error_details_pb.js";
import { ActorSchema, Verdict } from "../src/gen/referee/v1/common_pb.js";
import {
  ApplyActionRequestSchema,
  ApplyActionResponseSchema,
  LegalActionsRequestSchema,
  LegalActionsResponseSchema,
  NewGameRequestSchema,
  NewGameResponseSchema,
} from "../src/gen/referee/v1/referee_pb.js";
import { ListGamesRequestSchema, ListGamesResponseSchema } from "../src/gen/referee/v1/referee_pb.js";
import type { ListGamesRequest, ListGamesResponse } from "../src/gen/referee/v1/referee_pb.js";
import { grpcWebUrl } from "./support.js";

(globalThis as Record<string, unknown>)["XMLHttpRequest"] = XMLHttpRequest;

const SEED = new Uint8Array(32).map((_, i) => i);
const SERVICE = "referee.v1.RefereeService";

/** What protoc-gen-grpc-web generates for one unary method, with protobuf-es serializers. */
function method<I extends DescMessage, O extends DescMessage>(name: string, input: I, output: O) {
  // The runtime never constructs these (the generated stubs pass message classes).
  const unused = Object as unknown as new (...args: unknown[]) => never;
  return new MethodDescriptor<MessageShape<I>, MessageShape<O>>(
    `/${SERVICE}/${name}`,
    MethodType.UNARY,
    unused,
    unused,
    (request: MessageShape<I>) => toBinary(input, request),
    (bytes: Uint8Array) => fromBinary(output, bytes),
  );
}

const listGamesMethod = method("ListGames", ListGamesRequestSchema, ListGamesResponseSchema);
const newGame = method("NewGame", NewGameRequestSchema, NewGameResponseSchema);
const legalActions = method("LegalActions", LegalActionsRequestSchema, LegalActionsResponseSchema);
const applyAction = method("ApplyAction", ApplyActionRequestSchema, ApplyActionResponseSchema);

function call<Q, R>(
  client: GrpcWebClientBase,
  descriptor: MethodDescriptor<Q, R>,
  request: Q,
  metadata: Record<string, string> = {},
): Promise<R> {
  return client.unaryCall(`${grpcWebUrl()}${descriptor.getName()}`, request, metadata, descriptor);
}

/** The details of grpc-status-details-bin (a google.rpc.Status: its field 3, each an
 * Any: the type URL in field 1, the detail in field 2), by type URL. */
function details(error: RpcError): Map<string, Uint8Array> {
  const raw = error.metadata?.["grpc-status-details-bin"];
  assert.ok(raw, "the answer carries grpc-status-details-bin");
  const found = new Map<string, Uint8Array>();
  const status = new BinaryReader(Buffer.from(raw, "base64"));
  while (status.pos < status.len) {
    const [field, wireType] = status.tag();
    if (field !== 3) {
      status.skip(wireType);
      continue;
    }
    const any = new BinaryReader(status.bytes());
    let typeUrl = "";
    let value: Uint8Array = new Uint8Array();
    while (any.pos < any.len) {
      const [f, w] = any.tag();
      if (f === 1) typeUrl = any.string();
      else if (f === 2) value = any.bytes();
      else any.skip(w);
    }
    found.set(typeUrl, value);
  }
  return found;
}

test("Google's grpc-web: docs/clients.md's code runs", async () => {
  const url = grpcWebUrl();
  // From here to the end of the call, docs/clients.md's block, word for word
  // (tests/clients/test_readme.py checks it).
  const listGames = new MethodDescriptor<ListGamesRequest, ListGamesResponse>(
    "/referee.v1.RefereeService/ListGames",
    MethodType.UNARY,
    Object as never, // message classes, which the runtime never constructs
    Object as never,
    (request: ListGamesRequest) => toBinary(ListGamesRequestSchema, request),
    (bytes: Uint8Array) => fromBinary(ListGamesResponseSchema, bytes),
  );
  const client = new GrpcWebClientBase({ format: "text" });
  const { games } = await client.unaryCall(
    `${url}/referee.v1.RefereeService/ListGames`,
    create(ListGamesRequestSchema),
    {},
    listGames,
  );
  assert.deepEqual(games.map((g) => g.id).sort(), ["earl_of_coventry", "ecarte"]);
});

for (const format of ["text", "binary"] as const) {
  test(`Google's grpc-web (${format}): a page lists the games and plays through the gateway`, async () => {
    const client = new GrpcWebClientBase({ format });
    const { games } = await call(client, listGamesMethod, create(ListGamesRequestSchema));
    assert.deepEqual(games.map((g) => g.id).sort(), ["earl_of_coventry", "ecarte"]);

    const started = await call(
      client,
      newGame,
      create(NewGameRequestSchema, {
        config: { game: { case: "earlOfCoventry", value: { seats: 3 } } },
        seed: SEED,
        views: [{ kind: { case: "seat", value: 0 } }],
      }),
    );
    const view = started.views[0]?.game;
    assert.equal(view?.case, "earlOfCoventry");
    assert.ok([17, 18].includes(view.value.seats[0]!.hand.length));
    assert.equal(view.value.seats[1]!.hand.length, 0); // another seat's cards: never shown
    let state = started.state;
    for (let i = 0; i < 6; i++) {
      const { actions } = await call(client, legalActions, create(LegalActionsRequestSchema, { state }));
      const reply = await call(
        client,
        applyAction,
        create(ApplyActionRequestSchema, { state, action: actions[0] }),
      );
      assert.equal(reply.verdict, Verdict.ACCEPTED);
      assert.equal(reply.state?.version, BigInt(i + 1));
      state = reply.state;
    }

    // An illegal action (another seat's turn) is a verdict, not an error.
    const { actions } = await call(client, legalActions, create(LegalActionsRequestSchema, { state }));
    const action = actions[0]!;
    action.actor = create(ActorSchema, {
      kind: { case: "seat", value: ((action.actor?.kind.value as number) + 1) % 3 },
    });
    const rejected = await call(client, applyAction, create(ApplyActionRequestSchema, { state, action }));
    assert.equal(rejected.verdict, Verdict.REJECTED);
    assert.ok(rejected.violations.length > 0);
  });

  test(`Google's grpc-web (${format}): an error keeps its code, message, details and request id`, async () => {
    const client = new GrpcWebClientBase({ format });
    await assert.rejects(
      call(client, applyAction, create(ApplyActionRequestSchema), { "x-request-id": `google-${format}` }),
      (err: unknown) => {
        assert.ok(err instanceof RpcError);
        assert.equal(err.code, StatusCode.INVALID_ARGUMENT);
        assert.match(err.message, /state/);
        assert.equal(err.metadata?.["x-request-id"], `google-${format}`);
        const bad = details(err).get("type.googleapis.com/google.rpc.BadRequest");
        assert.ok(bad, "a BadRequest detail");
        const violations = fromBinary(BadRequestSchema, bad).fieldViolations;
        assert.deepEqual(
          violations.map((v) => v.field),
          ["state"],
        );
        return true;
      },
    );
  });
}
