package referee.client;

import com.google.protobuf.ByteString;
import com.google.rpc.BadRequest;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ForwardingClientCall.SimpleForwardingClientCall;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.TlsChannelCredentials;
import io.grpc.TlsServerCredentials;
import io.netty.handler.ssl.OpenSsl;
import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import referee.v1.Common.Actor;
import referee.v1.Common.Verdict;
import referee.v1.EarlOfCoventry.EarlOfCoventryPhase;
import referee.v1.EarlOfCoventry.EarlOfCoventrySeat;
import referee.v1.EarlOfCoventry.EarlOfCoventrySeatView;
import referee.v1.Ecarte.EcartePhase;
import referee.v1.Referee.Action;
import referee.v1.Referee.ApplyActionRequest;
import referee.v1.Referee.GameConfig;
import referee.v1.Referee.GameInfo;
import referee.v1.Referee.GameState;
import referee.v1.Referee.ListGamesRequest;
import referee.v1.Referee.ReplayRequest;
import referee.v1.Referee.ReplayResponse;
import referee.v1.Referee.ViewStateResponse;

/**
 * The Java client's tests, against three servers named by the environment: REFEREE_ADDRESS (a
 * plain server), REFEREE_SEALED_ADDRESS (a sealing key) and REFEREE_STRICT_ADDRESS
 * (--require-sealed). A server that is not named is a failure, never a skip. tests/clients starts
 * the three and runs this: {@code ./run.sh referee.client.ClientTests [TEST ...]} (no TEST: all).
 * Prints "--- PASS name" or "--- FAIL name" per test, then "java tests: N passed, M failed", and
 * exits 1 if any failed.
 */
public final class ClientTests {
  interface Body {
    void run() throws Exception;
  }

  private static final Map<String, Body> TESTS = new LinkedHashMap<>();
  private static final ByteString SEED = seed();

  private ClientTests() {}

  private static ByteString seed() {
    byte[] b = new byte[32];
    for (int i = 0; i < b.length; i++) {
      b[i] = (byte) i;
    }
    return ByteString.copyFrom(b);
  }

  // ---- the runner --------------------------------------------------------------------------

  public static void main(String[] args) {
    register();
    List<String> names = args.length == 0 ? new ArrayList<>(TESTS.keySet()) : List.of(args);
    int passed = 0;
    int failed = 0;
    for (String name : names) {
      Body body = TESTS.get(name);
      System.out.println("=== RUN " + name);
      long start = System.nanoTime();
      try {
        if (body == null) {
          throw new AssertionError("no test " + name + "; the tests: " + TESTS.keySet());
        }
        body.run();
        passed++;
        System.out.printf("--- PASS %s (%.2f s)%n", name, seconds(start));
      } catch (Throwable t) {
        failed++;
        System.out.printf("--- FAIL %s (%.2f s): %s%n", name, seconds(start), t);
        t.printStackTrace(System.out);
      }
    }
    System.out.println("java tests: " + passed + " passed, " + failed + " failed");
    System.exit(failed > 0 ? 1 : 0);
  }

  private static double seconds(long start) {
    return (System.nanoTime() - start) / 1e9;
  }

  static void check(boolean condition, String what) {
    if (!condition) {
      throw new AssertionError(what);
    }
  }

  interface Call {
    void run() throws Exception;
  }

  /** The RefereeException call raised; fails when it raised none. */
  static RefereeException raised(Call call) throws Exception {
    try {
      call.run();
    } catch (RefereeException e) {
      return e;
    }
    throw new AssertionError("no RefereeException");
  }

  static void log(String line) {
    System.out.println("    " + line);
  }

  /** A client of the server the environment variable names (unset: a failure). */
  static RefereeClient client(String variable, String what) {
    String address = System.getenv(variable);
    if (address == null || address.isEmpty()) {
      throw new AssertionError(
          variable + " is not set: a server with " + what + " (tests/clients starts one)");
    }
    return new RefereeClient(address);
  }

  static RefereeClient plain() {
    return client("REFEREE_ADDRESS", "default settings (referee serve)");
  }

  static RefereeClient sealing() {
    return client("REFEREE_SEALED_ADDRESS", "--seal-keys-file");
  }

  static RefereeClient strict() {
    return client("REFEREE_STRICT_ADDRESS", "--seal-keys-file and --require-sealed");
  }

  static GameConfig config(String game, String options) {
    return RefereeClient.config(game, options);
  }

  static List<String> servedGames(RefereeClient c) {
    List<String> games = new ArrayList<>();
    for (GameInfo g : c.listGames()) {
      games.add(g.getId());
    }
    return games;
  }

  // ---- the tests ---------------------------------------------------------------------------

  private static void register() {
    TESTS.put("listGamesServesEveryGame", ClientTests::listGamesServesEveryGame);
    TESTS.put("everyGamePlaysToItsEnd", ClientTests::everyGamePlaysToItsEnd);
    TESTS.put("sealingServerTokensAreCarriedBack", ClientTests::sealingServerTokensAreCarriedBack);
    TESTS.put("strictServerEveryGamePerActor", ClientTests::strictServerEveryGamePerActor);
    TESTS.put("strictServerCredentialsPerSeat", ClientTests::strictServerCredentialsPerSeat);
    TESTS.put("credentialsGoOnActorsAndSeatViewers", ClientTests::credentialsOnActorsAndViewers);
    TESTS.put("onlyActorRequiredTurnsPerActor", ClientTests::onlyActorRequiredTurnsPerActor);
    TESTS.put("earlOfCoventryIsDeterministic", ClientTests::earlOfCoventryIsDeterministic);
    TESTS.put("earlOfCoventrySessionWithCounters", ClientTests::earlOfCoventryWithCounters);
    TESTS.put("ecarteMatchesPlayToTheirEnd", ClientTests::ecarteMatchesPlayToTheirEnd);
    TESTS.put("illegalActionIsAVerdict", ClientTests::illegalActionIsAVerdict);
    TESTS.put("viewShowsOwnHandOnly", ClientTests::viewShowsOwnHandOnly);
    TESTS.put("brokenConfigHasFieldViolations", ClientTests::brokenConfigHasFieldViolations);
    TESTS.put("brokenStateHasFieldViolations", ClientTests::brokenStateHasFieldViolations);
    TESTS.put("unsupportedRulesVersionHasAReason", ClientTests::unsupportedRulesVersion);
    TESTS.put("replayWithTheLog", ClientTests::replayWithTheLog);
    TESTS.put("serverDownIsUnavailable", ClientTests::serverDownIsUnavailable);
    TESTS.put("retriesUnavailableOnly", ClientTests::retriesUnavailableOnly);
    TESTS.put("deadlineOnEveryCall", ClientTests::deadlineOnEveryCall);
    TESTS.put("tlsWithACaFileAndABearerToken", ClientTests::tlsWithACaFileAndABearerToken);
    TESTS.put("tlsWithoutOpenSslIsAClearError", ClientTests::tlsWithoutOpenSslIsAClearError);
    TESTS.put("interceptorsRunOnEveryCall", ClientTests::interceptorsRunOnEveryCall);
    TESTS.put("answersOver4MiBAreReceived", ClientTests::answersOver4MiBAreReceived);
    TESTS.put("configFromJson", ClientTests::configFromJson);
    TESTS.put("sealedHandleSendsTheToken", ClientTests::sealedHandleSendsTheToken);
    TESTS.put("goldenVectors", ClientTests::goldenVectors);
    TESTS.put("exampleBotArguments", ClientTests::exampleBotArguments);
  }

  static void listGamesServesEveryGame() {
    try (RefereeClient c = plain()) {
      List<GameInfo> games = c.listGames();
      boolean earl = false;
      for (GameInfo g : games) {
        earl |= g.getId().equals("earl_of_coventry")
            && g.getRulesVersion().equals("earl_of_coventry/1");
      }
      check(earl, "earl_of_coventry/1 not listed: " + servedGames(c));
      check(servedGames(c).contains("ecarte"), "ecarte not listed: " + servedGames(c));
    }
  }

  static void everyGamePlaysToItsEnd() {
    try (RefereeClient c = plain()) {
      for (String id : servedGames(c)) {
        Play.Played played =
            Play.playGame(c, config(id, ""), new Play.Options().seed(SEED).botSeed(3));
        check(played.game.finished() && !played.winners.isEmpty(), id + " not finished");
        check(!played.game.sealed() && played.game.state() != null, id + ": a plain server seals");
        log(id + ": " + played.actions.size() + " actions, winners " + played.winners);
      }
    }
  }

  static void sealingServerTokensAreCarriedBack() {
    try (RefereeClient c = sealing()) {
      for (String id : servedGames(c)) {
        String options = id.equals("earl_of_coventry") ? "{\"seats\": 3}" : "";
        Play.Played played =
            Play.playGame(c, config(id, options), new Play.Options().seed(SEED).botSeed(2));
        GameHandle game = played.game;
        check(game.finished(), id + " not finished");
        check(game.sealed() && game.state() == null, id + ": not carried as a token");
        int seats = id.equals("earl_of_coventry") ? 3 : 2;
        check(game.credentials().seats().size() == seats, id + ": seat credentials");
        check(!game.credentials().table().isEmpty(), id + ": no table credential");
        check(!c.perActor(), id + ": a sealing server without --require-sealed went per actor");
        log(id + ": " + played.actions.size() + " actions, sealed, winners " + played.winners);
      }
    }
  }

  static void strictServerEveryGamePerActor() {
    try (RefereeClient c = strict()) {
      for (String id : servedGames(c)) {
        String options = id.equals("earl_of_coventry") ? "{\"seats\": 4}" : "";
        // Écarté has no table actions: asked of the table as of every seat (D-15).
        Play.Played played = Play.playGame(c, config(id, options), new Play.Options().botSeed(2));
        check(played.game.finished() && played.game.sealed(), id + ": not finished, or not sealed");
        check(c.perActor(), id + ": LegalActions was not asked per actor");
        log(id + ": " + played.actions.size() + " actions per actor, winners " + played.winners);
      }
    }
  }

  static void strictServerCredentialsPerSeat() throws Exception {
    try (RefereeClient c = strict()) {
      GameHandle game = c.newGame(config("earl_of_coventry", "{\"seats\": 3}")).game();
      List<Action> actions = c.legalActions(game);
      check(!actions.isEmpty(), "no legal action");
      int turn = actions.get(0).getActor().getSeat();
      int other = (turn + 1) % 3;
      RefereeException e = raised(() -> c.apply(game.onlySeat(other), actions.get(0)));
      check(e.code() == Status.Code.PERMISSION_DENIED, "acting for another seat: " + e);
      check(e.reason().equals("SEAT_CREDENTIAL_INVALID"), "acting for another seat: " + e);
      e = raised(() -> c.view(game.onlySeat(other), RefereeClient.seat(turn)));
      check(e.reason().equals("SEAT_CREDENTIAL_INVALID"), "viewing another seat: " + e);
      // A player holding its own credential only: its own actions, its own view.
      GameHandle mine = game.onlySeat(turn);
      List<Action> own = c.legalActions(mine);
      check(!own.isEmpty(), "the seat on turn has no legal action");
      for (Action a : own) {
        check(a.getActor().getSeat() == turn, "another seat's action: " + a);
      }
      ViewStateResponse view = c.view(mine, RefereeClient.seat(turn));
      check(
          view.getView().getEarlOfCoventry().getSeats(turn).getHandCount() > 0,
          "its own view shows no hand");
      Applied applied = c.apply(mine, actions.get(0));
      check(applied.accepted(), "acting for its own seat: " + applied.verdict());
      check(applied.game().credentials().seat(turn).equals(mine.credentials().seat(turn)),
          "the next handle lost the credential");
      e = raised(() -> c.newGame(config("earl_of_coventry", ""), new NewGameOptions().seed(SEED)));
      check(e.reason().equals("CLIENT_SEED_REFUSED"), "a client seed: " + e);
    }
  }

  /** What the client sends: each actor and seat viewer with its credential from the handle. */
  static void credentialsOnActorsAndViewers() {
    ByteString s0 = ByteString.copyFromUtf8("seat-0");
    ByteString s1 = ByteString.copyFromUtf8("seat-1");
    ByteString table = ByteString.copyFromUtf8("table");
    Credentials all = new Credentials(List.of(s0, s1), table);
    GameHandle game =
        GameHandle.of(null, ByteString.copyFromUtf8("token"), ByteString.EMPTY, null, all);
    Action play = Action.newBuilder().setActor(RefereeClient.seatActor(1)).build();
    ApplyActionRequest r =
        RefereeClient.applyRequest(
            game, play, List.of(RefereeClient.seat(0), RefereeClient.PUBLIC, RefereeClient.seat(5)));
    check(r.getAction().getActor().getCredential().equals(s1), "seat 1's actor: " + r);
    check(r.getViews(0).getCredential().equals(s0), "seat 0's viewer");
    check(r.getViews(1).getCredential().isEmpty(), "the public viewer got a credential");
    check(r.getViews(2).getCredential().isEmpty(), "a seat without credential got one");
    Action byTable = Action.newBuilder().setActor(RefereeClient.TABLE).build();
    r = RefereeClient.applyRequest(game, byTable, List.of());
    check(r.getAction().getActor().getCredential().equals(table), "the table's actor");
    Actor given = RefereeClient.seatActor(0).toBuilder().setCredential(s1).build();
    r = RefereeClient.applyRequest(game, play.toBuilder().setActor(given).build(), List.of());
    check(r.getAction().getActor().getCredential().equals(s1), "a given credential was replaced");
    r = RefereeClient.applyRequest(game.onlySeat(0), play, List.of(RefereeClient.seat(1)));
    check(r.getAction().getActor().getCredential().isEmpty(), "onlySeat(0) signed for seat 1");
    check(r.getViews(0).getCredential().isEmpty(), "onlySeat(0) signed seat 1's viewer");
    check(game.onlySeat(1).credentials().table().isEmpty(), "onlySeat kept the table's");
  }

  /**
   * Without an actor, the client asks per actor only when the server says the call needs one
   * (reason ACTOR_REQUIRED): any other error, here a broken token, is the caller's.
   */
  static void onlyActorRequiredTurnsPerActor() throws Exception {
    try (RefereeClient c = sealing()) {
      Started started =
          c.newGame(config("earl_of_coventry", "{\"seats\": 3}"), new NewGameOptions().seed(SEED));
      GameHandle game = started.game();
      byte[] token = game.sealedState().toByteArray();
      token[token.length - 1] ^= 1;
      GameHandle broken =
          GameHandle.of(
              null,
              ByteString.copyFrom(token),
              game.stateHash(),
              game.scoreboard(),
              game.credentials());
      RefereeException e = raised(() -> c.legalActions(broken));
      check(e.code() == Status.Code.INVALID_ARGUMENT, "a broken token: " + e);
      check(e.reason().equals("STATE_SEAL_INVALID"), "a broken token: " + e);
      check(!c.perActor(), "a broken token turned the client to asking per actor");
    }
    try (RefereeClient c = strict()) {
      GameHandle game = c.newGame(config("earl_of_coventry", "{\"seats\": 3}")).game();
      check(!c.perActor(), "per actor before the server said so");
      check(!c.legalActions(game).isEmpty() && c.perActor(), "a strict server: not per actor");
      // Without credentials there is no one to ask for: the server's refusal is the caller's.
      RefereeException e = raised(() -> c.legalActions(game.withCredentials(Credentials.NONE)));
      check(e.reason().equals("ACTOR_REQUIRED"), "no credentials: " + e);
    }
  }

  static void earlOfCoventryIsDeterministic() {
    try (RefereeClient c = plain()) {
      GameConfig cfg = config("earl_of_coventry", "{\"seats\": 3}");
      Play.Played a = Play.playGame(c, cfg, new Play.Options().seed(SEED).botSeed(5));
      Play.Played b = Play.playGame(c, cfg, new Play.Options().seed(SEED).botSeed(5));
      check(a.game.stateHash().equals(b.game.stateHash()), "the same seeds gave different games");
      check(a.actions.size() == b.actions.size(), "the same seeds gave different games");
      EarlOfCoventryPhase phase = a.game.state().getEarlOfCoventry().getPhase();
      check(phase == EarlOfCoventryPhase.EARL_OF_COVENTRY_PHASE_SESSION_OVER, "phase " + phase);
    }
  }

  static void earlOfCoventryWithCounters() {
    try (RefereeClient c = plain()) {
      GameConfig cfg =
          config(
              "earl_of_coventry",
              "{\"seats\": 5, \"scoring\": \"EARL_OF_COVENTRY_SCORING_COUNTERS\"}");
      Play.Played played = Play.playGame(c, cfg, new Play.Options().seed(SEED).botSeed(9).rounds(3));
      check(played.game.state().getEarlOfCoventry().getRound() >= 2, "fewer than 3 rounds");
      long total = 0;
      for (EarlOfCoventrySeat s : played.game.state().getEarlOfCoventry().getSeatsList()) {
        total += s.getCounters();
      }
      check(total == 100, "counters " + total + ", want 100");
    }
  }

  static void ecarteMatchesPlayToTheirEnd() {
    try (RefereeClient c = plain()) {
      String[][] matches = {{"{\"gamesToWin\": 2, \"stake\": 1}", "2"}, {"{\"seats\": 3}", "1"}};
      for (String[] m : matches) {
        GameConfig cfg = config("ecarte", m[0]);
        Play.Played a = Play.playGame(c, cfg, new Play.Options().seed(SEED).botSeed(4));
        Play.Played b = Play.playGame(c, cfg, new Play.Options().seed(SEED).botSeed(4));
        check(a.game.stateHash().equals(b.game.stateHash()), m[0] + ": different matches");
        EcartePhase phase = a.game.state().getEcarte().getPhase();
        check(phase == EcartePhase.ECARTE_PHASE_MATCH_OVER, m[0] + ": phase " + phase);
        int won = a.game.scoreboard().getSeats(a.winners.get(0)).getGamesWon();
        check(won == Integer.parseInt(m[1]), m[0] + ": the winner won " + won + " games");
        log("ecarte " + m[0] + ": " + a.actions.size() + " actions, winners " + a.winners);
      }
    }
  }

  static void illegalActionIsAVerdict() {
    try (RefereeClient c = plain()) {
      GameHandle game =
          c.newGame(config("earl_of_coventry", "{\"seats\": 3}"), new NewGameOptions().seed(SEED))
              .game();
      List<Action> actions = c.legalActions(game);
      check(!actions.isEmpty(), "no legal action");
      Action first = actions.get(0);
      Action bad =
          first.toBuilder()
              .setActor(RefereeClient.seatActor((first.getActor().getSeat() + 1) % 3))
              .build();
      Applied applied = c.apply(game, bad, RefereeClient.PUBLIC);
      check(applied.verdict() == Verdict.VERDICT_REJECTED, "verdict " + applied.verdict());
      check(!applied.accepted(), "accepted");
      check(
          applied.violations().get(0).getCode().equals("NOT_YOUR_TURN"),
          "violations " + applied.violations());
      check(applied.game().stateHash().equals(game.stateHash()), "a rejection changed the state");
      check(c.legalActions(game, RefereeClient.TABLE).isEmpty(), "table actions during a round");
      Applied good = c.apply(game, first, RefereeClient.PUBLIC);
      check(good.accepted() && good.views().size() == 1 && !good.events().isEmpty(), "accepted");
      check(!good.game().stateHash().equals(game.stateHash()), "the state did not change");
    }
  }

  static void viewShowsOwnHandOnly() {
    try (RefereeClient c = plain()) {
      Started started =
          c.newGame(
              config("earl_of_coventry", ""),
              new NewGameOptions().seed(SEED).views(RefereeClient.seat(1)));
      check(started.views().size() == 1, "NewGame returned no view");
      check(started.seedCommitment().size() == 32, "no seed commitment");
      ViewStateResponse view = c.view(started.game(), RefereeClient.seat(2));
      for (EarlOfCoventrySeatView s : view.getView().getEarlOfCoventry().getSeatsList()) {
        check((s.getHandCount() > 0) == (s.getSeat() == 2), "seat " + s.getSeat() + " hand shown");
      }
      check(view.getView().getSeed().isEmpty(), "the seed is shown while the game runs");
      check(view.getStateHash().equals(started.game().stateHash()), "the view's hash");
    }
  }

  static void brokenConfigHasFieldViolations() throws Exception {
    try (RefereeClient c = plain()) {
      RefereeException e = raised(() -> c.newGame(config("earl_of_coventry", "{\"seats\": 14}")));
      check(e.code() == Status.Code.INVALID_ARGUMENT, "code " + e.code());
      check(!e.fieldViolations().isEmpty(), "no field violation: " + e);
      check(
          e.fieldViolations().get(0).getField().equals("config.earl_of_coventry.seats"),
          "field violations " + e.fieldViolations());
      String said = e.fieldViolations().get(0).getDescription();
      check(
          e.getMessage().indexOf(said) == e.getMessage().lastIndexOf(said),
          "the violation named twice: " + e.getMessage());
    }
  }

  static void brokenStateHasFieldViolations() throws Exception {
    try (RefereeClient c = plain()) {
      GameHandle game =
          c.newGame(config("earl_of_coventry", "{\"seats\": 3}"), new NewGameOptions().seed(SEED))
              .game();
      GameState.Builder state = game.state().toBuilder();
      long hand0 = state.getEarlOfCoventry().getSeats(0).getHand();
      state.getEarlOfCoventryBuilder().getSeatsBuilder(1).setHand(hand0); // a card twice
      GameHandle broken =
          GameHandle.of(state.build(), null, null, game.scoreboard(), game.credentials());
      RefereeException e = raised(() -> c.legalActions(broken));
      check(e.code() == Status.Code.INVALID_ARGUMENT, "code " + e.code());
      check(e.reason().isEmpty(), "a reason: " + e.reason());
      List<String> fields = new ArrayList<>();
      for (BadRequest.FieldViolation v : e.fieldViolations()) {
        fields.add(v.getField());
      }
      check(fields.contains("state.earl_of_coventry.seats[1].hand"), "field violations " + fields);
      check(e.getMessage().contains("state.earl_of_coventry.seats[1].hand: "), e.getMessage());
    }
  }

  static void unsupportedRulesVersion() throws Exception {
    try (RefereeClient c = plain()) {
      GameHandle game = c.newGame(config("earl_of_coventry", "")).game();
      GameState old = game.state().toBuilder().setRulesVersion("earl_of_coventry/0").build();
      GameHandle broken = GameHandle.of(old, null, null, null, null);
      RefereeException e = raised(() -> c.legalActions(broken));
      check(e.code() == Status.Code.FAILED_PRECONDITION, "code " + e.code());
      check(e.reason().equals("RULES_VERSION_UNSUPPORTED"), "reason " + e.reason());
      check(
          "earl_of_coventry/0".equals(e.metadata().get("rules_version")),
          "metadata " + e.metadata());
      check(e.fieldViolations().isEmpty(), "field violations " + e.fieldViolations());
    }
  }

  static void replayWithTheLog() {
    try (RefereeClient c = plain()) {
      GameConfig cfg = config("earl_of_coventry", "{\"seats\": 3}");
      Started started = c.newGame(cfg, new NewGameOptions().seed(SEED));
      GameHandle game = started.game();
      List<Action> actions = new ArrayList<>();
      for (int i = 0; i < 6; i++) {
        Action a = c.legalActions(game).get(0);
        actions.add(a);
        game = c.apply(game, a).game();
      }
      ReplayResponse plainReplay = c.replay(cfg, SEED, actions);
      check(plainReplay.getFinalHash().equals(game.stateHash()), "replay: another final hash");
      check(!plainReplay.hasLog(), "a log that was not asked for");
      ReplayResponse r =
          c.replay(
              ReplayRequest.newBuilder()
                  .setConfig(cfg)
                  .setSeed(SEED)
                  .addAllActions(actions)
                  .setIncludeLog(true)
                  .build());
      check(r.getStepsCount() == 6, "steps " + r.getStepsCount());
      check(r.getLog().getFinalHash().equals(game.stateHash()), "the log's final hash");
      check(r.getLog().getEntriesCount() == 6, "the log's entries");
      check(r.getLog().getSeedCommitment().equals(started.seedCommitment()), "the commitment");
      check(Play.sha256(SEED).equals(started.seedCommitment()), "SHA-256(seed) != commitment");
    }
  }

  static void serverDownIsUnavailable() throws Exception {
    try (RefereeClient c = new RefereeClient("127.0.0.1:1")) {
      RefereeException e = raised(c::listGames);
      check(e.code() == Status.Code.UNAVAILABLE, "code " + e.code());
      // What the network said, not only gRPC's "io exception".
      check(e.getMessage().contains("Connection refused"), "message " + e.getMessage());
    }
  }

  /** gRPC's retry policy, as the client sets it, on a stand-in server that counts its calls. */
  static void retriesUnavailableOnly() throws Exception {
    try (StandIn s = new StandIn(Status.UNAVAILABLE, 2, 10, 0);
        RefereeClient c = new RefereeClient(s.address())) {
      check(c.listGames().size() == 1, "no answer");
      check(s.calls.get() == 3, "UNAVAILABLE twice: " + s.calls.get() + " calls, want 3");
      c.listGames();
      check(s.calls.get() == 4, "an answer was retried: " + s.calls.get() + " calls, want 4");
    }
    // The generated stub on the client's channel has the same policy.
    try (StandIn s = new StandIn(Status.UNAVAILABLE, 2, 10, 0);
        RefereeClient c = new RefereeClient(s.address())) {
      c.stub().listGames(ListGamesRequest.getDefaultInstance());
      check(s.calls.get() == 3, "the stub, UNAVAILABLE twice: " + s.calls.get() + " calls");
    }
    try (StandIn s = new StandIn(Status.UNAVAILABLE, 100, 10, 0);
        RefereeClient c = new RefereeClient(s.address())) {
      RefereeException e = raised(c::listGames);
      check(e.code() == Status.Code.UNAVAILABLE, "code " + e.code());
      check(s.calls.get() == 5, "always UNAVAILABLE: " + s.calls.get() + " calls, want 5");
    }
    try (StandIn s = new StandIn(Status.UNAVAILABLE, 100, 10, 0);
        RefereeClient c = RefereeClient.builder(s.address()).maxAttempts(2).build()) {
      raised(c::listGames);
      check(s.calls.get() == 2, "maxAttempts 2: " + s.calls.get() + " calls");
    }
    try (StandIn s = new StandIn(Status.UNAVAILABLE, 100, 10, 0);
        RefereeClient c = RefereeClient.builder(s.address()).maxAttempts(1).build()) {
      raised(c::listGames);
      check(s.calls.get() == 1, "maxAttempts 1: " + s.calls.get() + " calls");
    }
    try (StandIn s = new StandIn(Status.INVALID_ARGUMENT, 100, 10, 0);
        RefereeClient c = new RefereeClient(s.address())) {
      RefereeException e = raised(c::listGames);
      check(e.code() == Status.Code.INVALID_ARGUMENT, "code " + e.code());
      check(s.calls.get() == 1, "INVALID_ARGUMENT was retried: " + s.calls.get() + " calls");
    }
  }

  static void deadlineOnEveryCall() throws Exception {
    try (StandIn s = new StandIn(Status.OK, 0, 10, 2000);
        RefereeClient c =
            RefereeClient.builder(s.address()).timeout(Duration.ofMillis(300)).build()) {
      long start = System.nanoTime();
      RefereeException e = raised(c::listGames);
      check(e.code() == Status.Code.DEADLINE_EXCEEDED, "code " + e.code());
      check(seconds(start) < 1.5, "the deadline was not kept: " + seconds(start) + " s");
      start = System.nanoTime();
      try {
        c.stub().listGames(ListGamesRequest.getDefaultInstance());
        throw new AssertionError("the generated stub's call has no deadline");
      } catch (io.grpc.StatusRuntimeException raw) {
        check(raw.getStatus().getCode() == Status.Code.DEADLINE_EXCEEDED, "raw: " + raw);
      }
      check(seconds(start) < 1.5, "the stub's deadline was not kept: " + seconds(start) + " s");
    }
  }

  /** docs/operations.md: the service port may speak TLS, with tokens; the client must too. */
  static void tlsWithACaFileAndABearerToken() throws Exception {
    check(OpenSsl.isAvailable(), "the TLS tests: " + RefereeClient.TLS_NEEDS_OPENSSL);
    Path dir = Files.createTempDirectory("referee-java-tls");
    try {
      Path[] pem = selfSigned(dir);
      try (StandIn s =
              new StandIn(
                  Status.OK,
                  0,
                  10,
                  0,
                  TlsServerCredentials.create(pem[0].toFile(), pem[1].toFile()));
          RefereeClient c =
              RefereeClient.builder(s.address())
                  .maxAttempts(1)
                  .caFile(pem[0].toFile())
                  .bearerToken("a-token-of-the-tests")
                  .build()) {
        List<GameInfo> games = c.listGames();
        check(games.get(0).getTitle().equals("Bearer a-token-of-the-tests"),
            "the token sent: " + games.get(0).getTitle());
        try (RefereeClient plaintext = RefereeClient.builder(s.address()).maxAttempts(1).build()) {
          RefereeException e = raised(plaintext::listGames);
          check(e.code() == Status.Code.UNAVAILABLE, "plaintext to TLS: " + e);
        }
        // The name checked is the server name when one is given, not the address's host.
        for (String name : new String[] {"referee.test", "other.test"}) {
          try (RefereeClient named =
              RefereeClient.builder(s.address())
                  .maxAttempts(1)
                  .caFile(pem[0].toFile())
                  .serverName(name)
                  .build()) {
            if (name.equals("referee.test")) {
              check(named.listGames().size() == 1, "server name " + name);
            } else {
              RefereeException e = raised(named::listGames);
              check(e.code() == Status.Code.UNAVAILABLE, "a name the certificate lacks: " + e);
            }
          }
        }
      }
    } finally {
      try (var files = Files.walk(dir)) {
        files.sorted((a, b) -> b.compareTo(a)).map(Path::toFile).forEach(File::delete);
      }
    }
  }

  /**
   * TLS without OpenSSL (build.sh found no libnetty-tcnative-jni, or java was run without
   * run.sh's -Djava.library.path) is an IllegalStateException saying what to install, and
   * plaintext works. Checked in a JVM without the library: this test run again in a child JVM
   * whose library path is an empty directory.
   */
  static void tlsWithoutOpenSslIsAClearError() throws Exception {
    if (OpenSsl.isAvailable()) {
      Path empty = Files.createTempDirectory("referee-java-no-openssl");
      try {
        Child child =
            java(
                List.of("-Djava.library.path=" + empty),
                "referee.client.ClientTests",
                "tlsWithoutOpenSslIsAClearError");
        check(
            child.exit == 0 && child.out.contains("--- PASS tlsWithoutOpenSslIsAClearError"),
            "in a JVM without OpenSSL: exit " + child.exit + "\n" + child.out + child.err);
        log("checked in a JVM without OpenSSL");
      } finally {
        Files.delete(empty);
      }
      return;
    }
    log("OpenSSL is not loaded: " + OpenSsl.unavailabilityCause());
    List<RefereeClient.Builder> tls =
        List.of(
            RefereeClient.builder("127.0.0.1:1").tls(),
            RefereeClient.builder("127.0.0.1:1").credentials(TlsChannelCredentials.create()));
    for (RefereeClient.Builder b : tls) {
      try {
        b.build().close();
        throw new AssertionError("a TLS client without OpenSSL was built");
      } catch (IllegalStateException expected) {
        check(
            expected.getMessage().startsWith(RefereeClient.TLS_NEEDS_OPENSSL), expected.toString());
        check(expected.getMessage().contains("apt-get install libnetty-tcnative-jni"), "no fix");
      }
    }
    try (StandIn s = new StandIn(Status.OK, 0, 10, 0);
        RefereeClient c = RefereeClient.builder(s.address()).maxAttempts(1).build()) {
      check(c.listGames().size() == 1, "plaintext without OpenSSL");
    }
  }

  /** A child JVM's exit status, stdout and stderr. */
  static final class Child {
    final int exit;
    final String out;
    final String err;

    Child(int exit, String out, String err) {
      this.exit = exit;
      this.out = out;
      this.err = err;
    }

    @Override
    public String toString() {
      return "exit " + exit + "\nstdout: " + out + "\nstderr: " + err;
    }
  }

  /** Runs a class of this classpath in a child JVM with jvmOptions (at most 60 s). */
  static Child java(List<String> jvmOptions, String... classAndArgs) throws Exception {
    List<String> command = new ArrayList<>();
    command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    command.addAll(jvmOptions);
    command.add("-cp");
    command.add(System.getProperty("java.class.path"));
    command.addAll(List.of(classAndArgs));
    Path out = Files.createTempFile("referee-java-child", ".out");
    Path err = Files.createTempFile("referee-java-child", ".err");
    try {
      Process p =
          new ProcessBuilder(command)
              .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
              .redirectOutput(out.toFile())
              .redirectError(err.toFile())
              .start();
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor();
        throw new AssertionError("still running after 60 s: " + command);
      }
      return new Child(p.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.delete(out);
      Files.delete(err);
    }
  }

  /**
   * Builder.intercept: the user's interceptors run on every call (the generated stub's too),
   * once per call however often it is retried, after the client's own (they see the deadline
   * and the metadata's headers), in grpc-java's order (the last given first), and what they put
   * in the headers reaches the server.
   */
  static void interceptorsRunOnEveryCall() throws Exception {
    Metadata.Key<String> requestId =
        Metadata.Key.of("x-request-id", Metadata.ASCII_STRING_MARSHALLER);
    Metadata.Key<String> client = Metadata.Key.of("x-client", Metadata.ASCII_STRING_MARSHALLER);
    Metadata.Key<String> authorization =
        Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
    AtomicInteger ids = new AtomicInteger();
    List<String> seen = Collections.synchronizedList(new ArrayList<>());
    List<String> order = Collections.synchronizedList(new ArrayList<>());
    ClientInterceptor requestIds =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            order.add("requestIds");
            String id = "request-" + ids.incrementAndGet();
            boolean deadline = options.getDeadline() != null;
            return new SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
              @Override
              public void start(Listener<R> listener, Metadata headers) {
                seen.add(
                    headers.get(client) + ", " + headers.get(authorization) + ", deadline "
                        + deadline);
                headers.put(requestId, id);
                super.start(listener, headers);
              }
            };
          }
        };
    ClientInterceptor second =
        new ClientInterceptor() {
          @Override
          public <Q, R> ClientCall<Q, R> interceptCall(
              MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
            order.add("second");
            return next.newCall(method, options);
          }
        };
    // UNAVAILABLE once: the first call is retried.
    try (StandIn s = new StandIn(Status.UNAVAILABLE, 1, 10, 0);
        RefereeClient c =
            RefereeClient.builder(s.address())
                .metadata("x-client", "client-tests")
                .bearerToken("a-token")
                .intercept(requestIds, second)
                .build()) {
      c.listGames();
      c.listGames();
      c.stub().listGames(ListGamesRequest.getDefaultInstance());
      check(ids.get() == 3, "the interceptor ran on " + ids.get() + " calls, want 3");
      List<String> received = new ArrayList<>();
      for (Metadata m : s.headers) {
        received.add(m.get(requestId));
        check("client-tests".equals(m.get(client)), "x-client: " + m.get(client));
      }
      check(
          received.equals(List.of("request-1", "request-1", "request-2", "request-3")),
          "the x-request-id the server received, per attempt: " + received);
      String want = "client-tests, Bearer a-token, deadline true";
      check(seen.equals(List.of(want, want, want)), "what the interceptor saw: " + seen);
      check(
          order.equals(
              List.of("second", "requestIds", "second", "requestIds", "second", "requestIds")),
          "the interceptors' order: " + order);
    }
  }

  /**
   * The example bot's arguments: --help and -h print the usage and exit 0, a missing value or an
   * unknown option is a usage error (exit 2, the usage on stderr), never a stack trace.
   */
  static void exampleBotArguments() throws Exception {
    for (String example : new String[] {"Bot", "Quickstart"}) {
      String main = "referee.client.examples." + example;
      for (String help : new String[] {"--help", "-h"}) {
        Child c = java(List.of(), main, help);
        check(
            c.exit == 0 && c.out.startsWith("usage: " + example + " ") && c.err.isEmpty(),
            example + " " + help + ": " + c);
      }
    }
    String[][] wrong = {
      {"Bot", "--address"},
      {"Bot", "-v", "--games"},
      {"Bot", "--address", ""},
      {"Bot", "--nope"},
      {"Quickstart", "--address", "localhost:1"},
    };
    for (String[] args : wrong) {
      String[] command = args.clone();
      command[0] = "referee.client.examples." + args[0];
      Child c = java(List.of(), command);
      check(
          c.exit == 2
              && c.out.isEmpty()
              && c.err.startsWith(args[0] + ": ")
              && c.err.contains("\nusage: " + args[0] + " ")
              && !c.err.contains("Exception"),
          String.join(" ", args) + ": " + c);
    }
  }

  /** A certificate for 127.0.0.1 and referee.test (keytool, from the JDK) and its key, as PEM. */
  static Path[] selfSigned(Path dir) throws Exception {
    Path store = dir.resolve("server.p12");
    String keytool = Paths.get(System.getProperty("java.home"), "bin", "keytool").toString();
    Process p =
        new ProcessBuilder(
                keytool, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname",
                "secp256r1", "-dname", "CN=referee-test", "-ext", "san=dns:referee.test,ip:127.0.0.1",
                "-validity", "1", "-storetype", "PKCS12", "-keystore", store.toString(),
                "-storepass", "password", "-keypass", "password")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    check(p.waitFor() == 0, "keytool: " + out);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = new FileInputStream(store.toFile())) {
      ks.load(in, "password".toCharArray());
    }
    PrivateKey key = (PrivateKey) ks.getKey("server", "password".toCharArray());
    Certificate cert = ks.getCertificate("server");
    Path certPem = dir.resolve("server.pem");
    Path keyPem = dir.resolve("server.key");
    Files.writeString(certPem, pem("CERTIFICATE", cert.getEncoded()));
    Files.writeString(keyPem, pem("PRIVATE KEY", key.getEncoded())); // PKCS#8
    return new Path[] {certPem, keyPem};
  }

  static String pem(String type, byte[] der) {
    String body = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + body + "\n-----END " + type + "-----\n";
  }

  /** The server answers up to --max-message-bytes (16 MiB by default), over gRPC's 4 MiB. */
  static void answersOver4MiBAreReceived() throws Exception {
    try (StandIn s = new StandIn(Status.OK, 0, 5 << 20, 0);
        RefereeClient c = RefereeClient.builder(s.address()).maxAttempts(1).build()) {
      check(c.listGames().get(0).getDescription().length() == 5 << 20, "the answer was cut");
    }
  }

  static void configFromJson() {
    GameConfig cfg =
        config(
            "earl_of_coventry",
            "{\"seats\": 5, \"openHands\": true, \"scoring\": \"EARL_OF_COVENTRY_SCORING_COUNTERS\"}");
    check(cfg.getEarlOfCoventry().getSeats() == 5, "seats");
    check(cfg.getEarlOfCoventry().getOpenHands(), "openHands");
    check(cfg.getEarlOfCoventry().getScoring().name().endsWith("COUNTERS"), "scoring");
    check(config("ecarte", null).hasEcarte() && config("ecarte", " ").hasEcarte(), "defaults");
    check(config("earl_of_coventry", "{}").hasEarlOfCoventry(), "{} is the defaults");
    check(config("earlOfCoventry", "").hasEarlOfCoventry(), "the JSON name of a game");
    // An unknown game names the games GameConfig has (its oneof's fields, sorted).
    for (String[] wrong :
        new String[][] {
          {"poker", "{}", "unknown game \"poker\" (games: earl_of_coventry, ecarte)"},
          {"chess", "", "unknown game \"chess\" (games: earl_of_coventry, ecarte)"},
          {"", "", "unknown game \"\" (games: earl_of_coventry, ecarte)"},
          {"ecarte", "{\"noSuchOption\": 1}", "game ecarte: "},
          {"ecarte", "{\"seats\": \"x\"", "game ecarte: "},
        }) {
      try {
        config(wrong[0], wrong[1]);
        throw new AssertionError("accepted " + wrong[0] + " " + wrong[1]);
      } catch (IllegalArgumentException expected) {
        check(expected.getMessage().startsWith(wrong[2]), expected.getMessage());
      }
    }
  }

  static void sealedHandleSendsTheToken() {
    GameState state = GameState.newBuilder().setRulesVersion("x/1").build();
    ByteString token = ByteString.copyFrom(new byte[] {1, 2, 3});
    Action action = Action.newBuilder().setActor(RefereeClient.seatActor(0)).build();
    GameHandle sealed = GameHandle.of(state, token, null, null, null);
    ApplyActionRequest r = RefereeClient.applyRequest(sealed, action, List.of());
    check(!r.hasState() && r.getSealedState().equals(token), "a sealed handle sends its token");
    check(sealed.sealed() && !sealed.finished(), "sealed, not finished");
    GameHandle plain = GameHandle.of(state, null, null, null, null);
    r = RefereeClient.applyRequest(plain, action, List.of());
    check(r.getState().getRulesVersion().equals("x/1") && r.getSealedState().isEmpty(), "plain");
    try {
      GameHandle.of(null, ByteString.EMPTY, null, null, null);
      throw new AssertionError("a handle without a state");
    } catch (IllegalArgumentException expected) {
      // a response without a state is an error
    }
  }

  /** The vectors' directory: REFEREE_VECTORS, or tests/vectors of this repository. */
  static Path vectorsDir() throws URISyntaxException {
    String dir = System.getenv("REFEREE_VECTORS");
    if (dir != null && !dir.isEmpty()) {
      return Paths.get(dir);
    }
    // clients/java/build/classes: four levels below the repository's root.
    Path classes =
        Paths.get(ClientTests.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    return classes.resolve("../../../../tests/vectors").normalize();
  }

  static void goldenVectors() throws Exception {
    Path dir = vectorsDir();
    Optional<List<Path>> files = Vectors.files(dir);
    if (files.isEmpty()) {
      // Said out loud, never skipped silently.
      System.out.println("golden vectors: " + dir + " does not exist; nothing to replay");
      return;
    }
    check(!files.get().isEmpty(), dir + " holds no .json vector");
    int failed = 0;
    try (RefereeClient c = plain()) {
      for (Path f : files.get()) {
        Vectors.Result result = Vectors.run(c, f);
        String name = f.getFileName().toString();
        for (String failure : result.failures) {
          System.out.println("vector " + name + ": " + failure);
        }
        if (result.failures.isEmpty()) {
          System.out.println("vector ok: " + name + " (" + result.actions + " actions)");
        } else {
          failed++;
        }
      }
    } catch (IOException e) {
      throw new AssertionError("a vector does not parse: " + e.getMessage(), e);
    }
    check(failed == 0, failed + " vectors failed");
  }
}
