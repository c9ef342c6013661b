package referee.client.examples;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import referee.client.Play;
import referee.client.RefereeClient;
import referee.client.RefereeException;
import referee.client.Text;
import referee.v1.Referee.GameInfo;

/**
 * The example bot: bots play a complete game of every kind the server referees -- an Écarté match,
 * an Earl of Coventry round -- choosing among LegalActions, and print the result.
 *
 * <pre>
 * ./run.sh referee.client.examples.Bot [--address localhost:50051] [--games ecarte,earl_of_coventry] [-v]
 * </pre>
 *
 * The address also comes from REFEREE_ADDRESS, the games from REFEREE_GAMES, -v from
 * REFEREE_VERBOSE. --help or -h prints the usage. Exits 1 if any game failed, 2 on a usage error.
 */
public final class Bot {
  // The games' options (defaults otherwise), as protobuf JSON.
  private static final Map<String, String> CONFIGS =
      Map.of("ecarte", "{}", "earl_of_coventry", "{\"seats\": 4}");

  private static final String USAGE = "usage: Bot [--address HOST:PORT] [--games ID,ID] [-v]";
  private static final String HELP =
      String.join(
          "\n",
          USAGE,
          "Bots play a complete game of every kind the server referees and print the results.",
          "  --address HOST:PORT  the server (default: REFEREE_ADDRESS, else localhost:50051)",
          "  --games ID,ID        only these (default: REFEREE_GAMES, else every game served)",
          "  -v                   print every action (also REFEREE_VERBOSE=1)",
          "Exits 1 if a game failed, 2 on a usage error.");

  private Bot() {}

  public static void main(String[] args) {
    String address = env("REFEREE_ADDRESS", "localhost:50051");
    String games = env("REFEREE_GAMES", "");
    boolean verbose = !env("REFEREE_VERBOSE", "").isEmpty();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "-h":
        case "--help":
          System.out.println(HELP);
          System.exit(0);
          return;
        case "--address":
          address = value(args, ++i);
          break;
        case "--games":
          games = value(args, ++i);
          break;
        case "-v":
          verbose = true;
          break;
        default:
          usageError("unknown option " + args[i]);
      }
    }
    System.exit(run(address, games, verbose));
  }

  /** The value of the option before args[i]: a usage error when there is none. */
  private static String value(String[] args, int i) {
    if (i >= args.length || args[i].isEmpty()) {
      usageError(args[i - 1] + " needs a value");
    }
    return args[i];
  }

  private static void usageError(String problem) {
    System.err.println("Bot: " + problem + "\n" + USAGE);
    System.exit(2);
  }

  private static String env(String name, String fallback) {
    String value = System.getenv(name);
    return value == null || value.isEmpty() ? fallback : value;
  }

  static int run(String address, String games, boolean verbose) {
    try (RefereeClient client = new RefereeClient(address)) {
      List<String> served = new ArrayList<>();
      try {
        for (GameInfo g : client.listGames()) {
          served.add(g.getId());
        }
      } catch (RefereeException e) {
        System.err.println(address + ": " + e.getMessage());
        return 1;
      }
      List<String> wanted = games.isEmpty() ? served : Arrays.asList(games.split(","));
      int failed = 0;
      for (String id : wanted) {
        if (!served.contains(id)) {
          System.err.println(id + ": not served by " + address);
          failed++;
          continue;
        }
        Play.Options options = new Play.Options().botSeed(7).rounds(1);
        if (verbose) {
          options.log(System.out::println);
        }
        try {
          Play.Played played =
              Play.playGame(client, RefereeClient.config(id, CONFIGS.get(id)), options);
          System.out.println(
              id + ": finished after " + played.actions.size() + " actions; winner "
                  + played.winners + "; " + Text.scoreboard(played.game.scoreboard()));
        } catch (RuntimeException e) {
          System.err.println(id + ": FAILED: " + e.getMessage());
          failed++;
        }
      }
      return failed > 0 ? 1 : 0;
    }
  }
}
