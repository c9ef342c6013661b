// A web page's calls through the gRPC-Web gateway, run by a real browser (headless
// Chromium) from another origin than the gateway's: tests/clients/test_browser.py
// serves this module (the packages' own ESM files through an import map, the
// generated code transpiled) and reads what `run` returns, as JSON.
//
// The same calls with Connect's web transport (fetch) and Google's grpc-web runtime
// (XMLHttpRequest) in both its formats. Nothing here reads a header that CORS does
// not expose to the page: the browser hides the others, which is what is tested.
import { clone, create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { GrpcWebClientBase, MethodDescriptor, MethodType, RpcError } from "grpc-web";

import { ErrorInfoSchema } from "/gen/google/rpc/error_details_pb.js";
import { ActorSchema, Verdict } from "/gen/referee/v1/common_pb.js";
import { ActionSchema, GameStateSchema, RefereeService } from "/gen/referee/v1/referee_pb.js";

const SEED = new Uint8Array(32).map((_, i) => i);
const EARL_OF_COVENTRY = { game: { case: "earlOfCoventry", value: { seats: 3 } } };

/** The answer of an error as the page can read it. */
function connectError(err) {
  const e = ConnectError.from(err);
  return {
    code: e.code,
    message: e.rawMessage,
    reason: e.findDetails(ErrorInfoSchema)[0]?.reason ?? null,
    requestId: e.metadata.get("x-request-id"),
  };
}

/** Connect's client on its gRPC-Web transport, the token set by an interceptor. */
function connectApi(config, withToken = true) {
  const auth = (next) => async (req) => {
    if (withToken) req.header.set("authorization", `Bearer ${config.token}`);
    return next(req);
  };
  const referee = createClient(
    RefereeService,
    createGrpcWebTransport({ baseUrl: config.gateway, interceptors: [auth] }),
  );
  return {
    name: "connect",
    async call(method, request, headers = {}) {
      const name = method[0].toLowerCase() + method.slice(1);
      try {
        return await referee[name](request, { headers });
      } catch (err) {
        throw connectError(err);
      }
    },
  };
}

/** The ErrorInfo reason in grpc-status-details-bin (a google.rpc.Status: field 3 its
 * details, each an Any: type URL in field 1, value in field 2). */
function errorInfoReason(raw) {
  if (!raw) return null;
  const status = new BinaryReader(Uint8Array.from(atob(raw), (c) => c.charCodeAt(0)));
  while (status.pos < status.len) {
    const [field, wireType] = status.tag();
    if (field !== 3) {
      status.skip(wireType);
      continue;
    }
    const any = new BinaryReader(status.bytes());
    let typeUrl = "";
    let value = new Uint8Array();
    while (any.pos < any.len) {
      const [f, w] = any.tag();
      if (f === 1) typeUrl = any.string();
      else if (f === 2) value = any.bytes();
      else any.skip(w);
    }
    if (typeUrl === "type.googleapis.com/google.rpc.ErrorInfo") {
      return fromBinary(ErrorInfoSchema, value).reason;
    }
  }
  return null;
}

/** Google's grpc-web runtime (what protoc-gen-grpc-web's stubs call), a
 * MethodDescriptor per method with protobuf-es's serializers. */
function googleApi(config, format, withToken = true) {
  const client = new GrpcWebClientBase({ format });
  const unused = Object;
  return {
    name: `grpc-web ${format}`,
    async call(method, request, headers = {}) {
      const m = RefereeService.method[method[0].toLowerCase() + method.slice(1)];
      const descriptor = new MethodDescriptor(
        `/${RefereeService.typeName}/${method}`,
        MethodType.UNARY,
        unused,
        unused,
        (r) => toBinary(m.input, r),
        (bytes) => fromBinary(m.output, bytes),
      );
      const metadata = { ...headers };
      if (withToken) metadata.authorization = `Bearer ${config.token}`;
      try {
        return await client.unaryCall(
          `${config.gateway}${descriptor.getName()}`,
          create(m.input, request),
          metadata,
          descriptor,
        );
      } catch (err) {
        if (!(err instanceof RpcError)) throw { code: null, message: String(err) };
        throw {
          code: err.code,
          message: err.message,
          reason: errorInfoReason(err.metadata?.["grpc-status-details-bin"]),
          requestId: err.metadata?.["x-request-id"] ?? null,
        };
      }
    },
  };
}

/** An error as data: what a call threw (already readable), or the exception's text. */
function failure(err) {
  if (err && typeof err === "object" && "code" in err) return err;
  return { code: null, message: String(err?.stack ?? err) };
}

/** One client's calls; each step's outcome, stopping at the first that fails. */
async function play(api, noToken, tag) {
  const steps = {};
  try {
    // Without the token: the server's UNAUTHENTICATED, read on the page.
    try {
      await noToken.call("ListGames", {});
      steps.unauthenticated = { served: true };
    } catch (err) {
      steps.unauthenticated = failure(err);
    }

    const started = await api.call("NewGame", { config: EARL_OF_COVENTRY, seed: SEED });
    const state = started.state;
    steps.newGame = { rulesVersion: state.rulesVersion, version: String(state.version) };

    const { actions } = await api.call("LegalActions", { state });
    const legal = actions[0];
    const applied = await api.call("ApplyAction", { state, action: legal });
    steps.legal = {
      verdict: Verdict[applied.verdict],
      version: String(applied.state?.version),
    };

    // Another seat's turn: a verdict, not an error.
    const illegal = clone(ActionSchema, legal);
    illegal.actor = create(ActorSchema, {
      kind: { case: "seat", value: (legal.actor.kind.value + 1) % 3 },
    });
    const rejected = await api.call("ApplyAction", { state, action: illegal });
    steps.illegal = {
      verdict: Verdict[rejected.verdict],
      violations: rejected.violations.map((v) => ({ code: v.code, ruleId: v.ruleId })),
    };

    // A state of a rules version this server does not serve: an error, with its details.
    const bad = clone(GameStateSchema, state);
    bad.rulesVersion = "earl_of_coventry/99";
    try {
      await api.call("ApplyAction", { state: bad, action: legal }, { "x-request-id": tag });
      steps.badState = { served: true };
    } catch (err) {
      steps.badState = failure(err);
    }
  } catch (err) {
    steps.failed = failure(err);
  }
  return steps;
}

/** The page: every client's calls to the gateway at config.gateway. */
export async function run(config) {
  const out = { origin: location.origin };
  out.connect = await play(connectApi(config), connectApi(config, false), "browser-connect");
  for (const format of ["text", "binary"]) {
    out[`grpcWeb_${format}`] = await play(
      googleApi(config, format),
      googleApi(config, format, false),
      `browser-grpc-web-${format}`,
    );
  }
  return out;
}
