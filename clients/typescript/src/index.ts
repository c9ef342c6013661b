export * from "./client.js";
export * from "./play.js";
export * from "./text.js";
export * from "./vectors.js";
export {
  BadRequestSchema,
  ErrorInfoSchema,
  type BadRequest,
  type BadRequest_FieldViolation,
  type ErrorInfo,
} from "./gen/google/rpc/error_details_pb.js";
export * from "./gen/referee/v1/cards_pb.js";
export * from "./gen/referee/v1/common_pb.js";
export * from "./gen/referee/v1/earl_of_coventry_pb.js";
export * from "./gen/referee/v1/ecarte_pb.js";
export * from "./gen/referee/v1/referee_pb.js";
