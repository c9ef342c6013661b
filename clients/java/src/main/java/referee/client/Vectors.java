package referee.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.util.JsonFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import referee.v1.Common.Verdict;
import referee.v1.Common.Violation;
import referee.v1.Referee.GameLog;
import referee.v1.Referee.GameLogEntry;
import referee.v1.Referee.ReplayRequest;
import referee.v1.Referee.ReplayResponse;
import referee.v1.Referee.ReplayStep;

/** The golden replay vectors (tests/vectors/*.json: GameLogs in protobuf JSON), replayed. */
public final class Vectors {
  private Vectors() {}

  /** The .json files of dir, sorted; empty when dir does not exist. */
  public static Optional<List<Path>> files(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> entries = Files.list(dir)) {
      return Optional.of(
          entries
              .filter(p -> p.getFileName().toString().endsWith(".json"))
              .sorted()
              .collect(Collectors.toList()));
    }
  }

  /** A GameLog in its protobuf JSON form (docs/trust.md). */
  public static GameLog load(Path file) throws IOException {
    GameLog.Builder log = GameLog.newBuilder();
    JsonFormat.parser().merge(new String(Files.readAllBytes(file), StandardCharsets.UTF_8), log);
    return log.build();
  }

  /** What replaying one vector found. */
  public static final class Result {
    /** Every difference from what the file records (none: the vector holds). */
    public final List<String> failures;
    /** The actions replayed. */
    public final int actions;

    Result(List<String> failures, int actions) {
      this.failures = failures;
      this.actions = actions;
    }
  }

  /**
   * Replays one vector file through the server and compares the seed with its commitment, every
   * verdict, violation code list and state hash, the initial and the final hash.
   */
  public static Result run(RefereeClient client, Path file) throws IOException {
    GameLog log = load(file);
    ReplayRequest.Builder request =
        ReplayRequest.newBuilder()
            .setConfig(log.getConfig())
            .setSeed(log.getSeed())
            .addAllSeatEntropy(log.getSeatEntropyList())
            .setRulesVersion(log.getRulesVersion());
    for (GameLogEntry e : log.getEntriesList()) {
      request.addActions(e.getAction());
    }
    List<String> failures = new ArrayList<>();
    if (!log.getSeedCommitment().isEmpty()
        && !Play.sha256(log.getSeed()).equals(log.getSeedCommitment())) {
      failures.add("the seed does not match the seed commitment");
    }
    ReplayResponse reply = client.replay(request.build());
    if (!reply.getInitialHash().equals(log.getInitialHash())) {
      failures.add(
          "initial hash " + hex(reply.getInitialHash()) + ", expected " + hex(log.getInitialHash()));
    }
    List<GameLogEntry> entries = log.getEntriesList();
    List<ReplayStep> steps = reply.getStepsList();
    if (steps.size() != entries.size()) {
      failures.add(steps.size() + " steps for " + entries.size() + " actions");
    }
    for (int i = 0; i < Math.min(steps.size(), entries.size()); i++) {
      ReplayStep step = steps.get(i);
      GameLogEntry want = entries.get(i);
      if (step.getVerdict() != want.getVerdict()) {
        failures.add(
            "action " + i + ": verdict " + name(step.getVerdict()) + ", expected "
                + name(want.getVerdict()));
      }
      List<String> codes =
          step.getViolationsList().stream().map(Violation::getCode).collect(Collectors.toList());
      if (!codes.equals(want.getViolationsList())) {
        failures.add(
            "action " + i + ": violations " + codes + ", expected " + want.getViolationsList());
      }
      if (!step.getStateHash().equals(want.getStateHash())) {
        failures.add(
            "action " + i + ": state hash " + hex(step.getStateHash()) + ", expected "
                + hex(want.getStateHash()));
      }
    }
    if (!reply.getFinalHash().equals(log.getFinalHash())) {
      failures.add(
          "final hash " + hex(reply.getFinalHash()) + ", expected " + hex(log.getFinalHash()));
    }
    if (reply.hasFinalState()
        && !reply.getFinalState().getRulesVersion().equals(log.getRulesVersion())) {
      failures.add(
          "rules version " + reply.getFinalState().getRulesVersion() + ", expected "
              + log.getRulesVersion());
    }
    return new Result(failures, request.getActionsCount());
  }

  private static String name(Verdict v) {
    return v.name().replaceFirst("^VERDICT_", "");
  }

  private static String hex(ByteString b) {
    return Text.hex(b);
  }
}
