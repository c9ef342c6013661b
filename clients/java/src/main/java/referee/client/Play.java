package referee.client;

import com.google.protobuf.ByteString;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import referee.v1.Common.Actor;
import referee.v1.Common.Violation;
import referee.v1.Referee.Action;
import referee.v1.Referee.GameConfig;
import referee.v1.Referee.ReplayResponse;

/** Bots that play any game through LegalActions, and {@link #playGame}, a whole game with them. */
public final class Play {
  private Play() {}

  /** Picks one of the legal actions (never given an empty list). */
  public interface Bot {
    Action choose(List<Action> actions);
  }

  /** Picks at random (seeded), but never passes when something else is possible. */
  public static Bot eagerBot(long seed) {
    Random random = new Random(seed);
    return actions -> {
      List<Action> active =
          actions.stream()
              .filter(a -> !Text.actionKind(a).equals("pass"))
              .collect(Collectors.toList());
      List<Action> from = active.isEmpty() ? actions : active;
      return from.get(random.nextInt(from.size()));
    };
  }

  /**
   * Plays the table between rounds: deals rounds rounds, then ends. Generic: an action whose case
   * starts with "end" ends the match or session; any other goes on.
   */
  public static Bot tablePolicy(int rounds) {
    int[] decisions = {0};
    return actions -> {
      decisions[0]++;
      List<Action> ending = new ArrayList<>();
      List<Action> goingOn = new ArrayList<>();
      for (Action a : actions) {
        (Text.actionKind(a).startsWith("end") ? ending : goingOn).add(a);
      }
      if (decisions[0] >= rounds && !ending.isEmpty()) {
        return ending.get(0);
      }
      return goingOn.isEmpty() ? ending.get(0) : goingOn.get(0);
    };
  }

  /** The options of {@link #playGame}. */
  public static final class Options {
    ByteString seed = ByteString.EMPTY;
    long botSeed;
    int rounds = 1;
    Consumer<String> log = line -> {};
    int maxSteps = 100_000;

    /** The deal's seed (32 bytes); none: the server draws one. */
    public Options seed(ByteString seed) {
      this.seed = seed;
      return this;
    }

    /** The bots' choices: the same seeds give the same game. */
    public Options botSeed(long botSeed) {
      this.botSeed = botSeed;
      return this;
    }

    /** Rounds the table deals before ending a session (default 1). */
    public Options rounds(int rounds) {
      this.rounds = Math.max(1, rounds);
      return this;
    }

    /** The transcript: the table's actions and the public events. */
    public Options log(Consumer<String> log) {
      this.log = log;
      return this;
    }

    public Options maxSteps(int maxSteps) {
      this.maxSteps = maxSteps;
      return this;
    }
  }

  /** A game played to its end. */
  public static final class Played {
    public final GameHandle game;
    public final List<Action> actions;
    public final ByteString seed;
    public final List<Integer> winners;

    Played(GameHandle game, List<Action> actions, ByteString seed) {
      this.game = game;
      this.actions = actions;
      this.seed = seed;
      this.winners = game.scoreboard().getWinnersList();
    }
  }

  /**
   * Plays one match or session to its end with bots on every seat, choosing among LegalActions.
   * Fails (IllegalStateException) when a legal action is not accepted, when the game stops before
   * its end, when the seed revealed at the end does not match its commitment, or when Replay of the
   * actions gives another final state.
   */
  public static Played playGame(RefereeClient client, GameConfig config, Options o) {
    Bot table = tablePolicy(o.rounds);
    Map<Integer, Bot> bots = new HashMap<>();
    Started started = client.newGame(config, new NewGameOptions().seed(o.seed));
    GameHandle game = started.game();
    ByteString commitment = started.seedCommitment();
    o.log.accept("seed commitment " + Text.hex(commitment));
    started.events().forEach(e -> o.log.accept("  " + Text.json(e)));
    List<Action> actions = new ArrayList<>();
    for (int step = 0; !game.finished(); step++) {
      if (step >= o.maxSteps) {
        throw new IllegalStateException("the game did not end within " + o.maxSteps + " actions");
      }
      List<Action> legal = client.legalActions(game);
      if (legal.isEmpty()) {
        throw new IllegalStateException("no one may act, yet the game is not over");
      }
      Actor actor = legal.get(0).getActor();
      List<Action> mine =
          legal.stream().filter(a -> a.getActor().equals(actor)).collect(Collectors.toList());
      Action action;
      switch (actor.getKindCase()) {
        case TABLE:
          action = table.choose(mine);
          break;
        case SEAT:
          int seat = actor.getSeat();
          action = bots.computeIfAbsent(seat, n -> eagerBot(o.botSeed * 1000 + n)).choose(mine);
          break;
        default:
          throw new IllegalStateException("no player for " + Text.actor(actor));
      }
      Applied applied = client.apply(game, action);
      if (!applied.accepted()) {
        List<String> why = new ArrayList<>();
        for (Violation v : applied.violations()) {
          why.add(v.getCode() + " (" + v.getRuleId() + "): " + v.getMessage());
        }
        throw new IllegalStateException(
            Text.actor(actor)
                + " "
                + Text.action(action)
                + ": "
                + applied.verdict()
                + ": "
                + String.join("; ", why));
      }
      actions.add(action);
      game = applied.game();
      if (actor.getKindCase() == Actor.KindCase.TABLE) {
        o.log.accept("the table: " + Text.actionKind(action));
      }
      applied.events().forEach(e -> o.log.accept("  " + Text.json(e)));
    }
    ByteString seed = client.view(game, RefereeClient.PUBLIC).getView().getSeed();
    if (seed.isEmpty() || !sha256(seed).equals(commitment)) {
      throw new IllegalStateException("the seed revealed at the end does not match the commitment");
    }
    ReplayResponse replay = client.replay(config, seed, actions);
    if (!replay.getFinalHash().equals(game.stateHash())) {
      throw new IllegalStateException("Replay of the game's actions gives another final state");
    }
    o.log.accept("seed revealed " + Text.hex(seed) + ": matches the commitment");
    o.log.accept(
        "replay of " + actions.size() + " actions: final hash "
            + Text.hex(game.stateHash().substring(0, 8)) + "… matches");
    return new Played(game, actions, seed);
  }

  static ByteString sha256(ByteString data) {
    try {
      return ByteString.copyFrom(MessageDigest.getInstance("SHA-256").digest(data.toByteArray()));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
