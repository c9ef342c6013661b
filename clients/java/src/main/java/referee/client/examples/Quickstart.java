package referee.client.examples;

import java.util.List;
import referee.client.GameHandle;
import referee.client.RefereeClient;
import referee.v1.Referee.Action;

/**
 * The README's Java quickstart, runnable: ./run.sh referee.client.examples.Quickstart (the server's
 * address from REFEREE_ADDRESS, default localhost:50051; no arguments but --help). Errors are
 * RefereeExceptions, which end it; examples/Bot.java handles them.
 */
public final class Quickstart {
  private static final String USAGE =
      "usage: Quickstart (no arguments: the server's address comes from REFEREE_ADDRESS, "
          + "default localhost:50051)";

  public static void main(String[] args) {
    if (args.length > 0) {
      boolean help = args[0].equals("--help") || args[0].equals("-h");
      if (help) {
        System.out.println(USAGE);
      } else {
        System.err.println("Quickstart: no arguments are taken, not " + args[0] + "\n" + USAGE);
      }
      System.exit(help ? 0 : 2);
    }
    String address = System.getenv().getOrDefault("REFEREE_ADDRESS", "localhost:50051");

    try (RefereeClient referee = new RefereeClient(address)) {
      GameHandle game = referee.newGame(RefereeClient.config("earl_of_coventry", "{\"seats\": 3}")).game();
      while (!game.finished()) { // whoever may act takes their last legal action
        List<Action> actions = referee.legalActions(game);
        game = referee.apply(game, actions.get(actions.size() - 1)).game();
      }
      System.out.println("winners: " + game.scoreboard().getWinnersList());
    }
  }
}
