package referee.client;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import com.google.rpc.BadRequest;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.protobuf.StatusProto;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A gRPC error from the referee: a broken request, never an illegal action (an illegal action is a
 * verdict, {@link Applied#verdict()}). The {@code google.rpc} details are decoded: program against
 * {@link #reason()} (docs/api.md lists every reason) and {@link #fieldViolations()}, not the
 * message.
 */
public final class RefereeException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private static final String ERROR_INFO = "google.rpc.ErrorInfo";

  private final Status.Code code;
  private final String description;
  private final String reason;
  private final Map<String, String> metadata;
  private final List<BadRequest.FieldViolation> fieldViolations;

  RefereeException(
      Status.Code code,
      String description,
      String reason,
      Map<String, String> metadata,
      List<BadRequest.FieldViolation> fieldViolations,
      Throwable cause) {
    super(text(code, description, fieldViolations, cause), cause);
    this.code = code;
    this.description = description;
    this.reason = reason;
    this.metadata = Collections.unmodifiableMap(new LinkedHashMap<>(metadata));
    this.fieldViolations = Collections.unmodifiableList(new ArrayList<>(fieldViolations));
  }

  /** The error with its details decoded from the {@code grpc-status-details-bin} trailer. */
  public static RefereeException from(StatusRuntimeException e) {
    Status status = e.getStatus();
    String reason = "";
    Map<String, String> metadata = new LinkedHashMap<>();
    List<BadRequest.FieldViolation> violations = new ArrayList<>();
    com.google.rpc.Status details = StatusProto.fromThrowable(e);
    if (details != null) {
      for (Any detail : details.getDetailsList()) {
        try {
          if (detail.getTypeUrl().endsWith("/" + ERROR_INFO)) {
            UnknownFieldSet info = UnknownFieldSet.parseFrom(detail.getValue());
            reason = string(info, 1);
            for (ByteString entry : info.getField(3).getLengthDelimitedList()) {
              UnknownFieldSet kv = UnknownFieldSet.parseFrom(entry);
              metadata.put(string(kv, 1), string(kv, 2));
            }
          } else if (detail.is(BadRequest.class)) {
            violations.addAll(detail.unpack(BadRequest.class).getFieldViolationsList());
          }
        } catch (InvalidProtocolBufferException ignored) {
          // A detail that does not parse is left out; the code and message remain.
        }
      }
    }
    String description = status.getDescription() == null ? "" : status.getDescription();
    return new RefereeException(status.getCode(), description, reason, metadata, violations, e);
  }

  /**
   * The last value of a string field of a message read without its class. ErrorInfo is read so:
   * Debian's proto-google-common-protos (1.16) predates its class; its fields are reason = 1,
   * domain = 2, metadata = 3 (a map: entries of key = 1, value = 2), which never change.
   */
  private static String string(UnknownFieldSet message, int number) {
    List<ByteString> values = message.getField(number).getLengthDelimitedList();
    return values.isEmpty() ? "" : values.get(values.size() - 1).toStringUtf8();
  }

  private static String text(
      Status.Code code,
      String description,
      List<BadRequest.FieldViolation> violations,
      Throwable cause) {
    StringBuilder text = new StringBuilder(code.name()).append(": ").append(description);
    List<String> parts = new ArrayList<>();
    for (BadRequest.FieldViolation v : violations) {
      String part = v.getField() + ": " + v.getDescription();
      if (!description.contains(part)) { // the server's message names its first already
        parts.add(part);
      }
    }
    // A failure of the transport (gRPC's "io exception"): what the network said, e.g.
    // "Connection refused: localhost/127.0.0.1:50051", is the cause's, not the status's.
    Throwable root = cause instanceof StatusRuntimeException ? cause.getCause() : null;
    while (root != null && root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    if (root != null && root.getMessage() != null && !description.contains(root.getMessage())) {
      parts.add(root.getMessage());
    }
    if (!parts.isEmpty()) {
      text.append(" (").append(String.join("; ", parts)).append(")");
    }
    return text.toString();
  }

  /** The gRPC status code, e.g. {@code INVALID_ARGUMENT}. */
  public Status.Code code() {
    return code;
  }

  /** The status message, for people. */
  public String description() {
    return description;
  }

  /** The {@code google.rpc.ErrorInfo} reason, e.g. {@code RULES_VERSION_UNSUPPORTED}; "" if none. */
  public String reason() {
    return reason;
  }

  /** The {@code google.rpc.ErrorInfo} metadata, e.g. {@code rules_version}. */
  public Map<String, String> metadata() {
    return metadata;
  }

  /** The {@code google.rpc.BadRequest} field violations: field path and description. */
  public List<BadRequest.FieldViolation> fieldViolations() {
    return fieldViolations;
  }
}
