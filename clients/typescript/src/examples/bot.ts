// Example: bots play a complete game of every kind the server referees --
// an Écarté match, an Earl of Coventry round -- choosing among LegalActions,
// and print the result.
//
//   REFEREE_ADDRESS=localhost:50051 npm run bot            (or: node dist/src/examples/bot.js ADDRESS)
//   REFEREE_GAMES=earl_of_coventry ...                     only these games
//   REFEREE_VERBOSE=1 ...                                  print every event
import { RefereeClient, gameConfig } from "../client.js";
import { playGame } from "../play.js";
import { scoreboardText } from "../text.js";

/** The games to play and their configurations (default options otherwise). */
const CONFIGS: Record<string, Record<string, number>> = {
  ecarte: {},
  earl_of_coventry: { seats: 4 },
};

async function main(): Promise<number> {
  const address = process.argv[2] ?? process.env["REFEREE_ADDRESS"] ?? "localhost:50051";
  const client = new RefereeClient(address);
  const served = (await client.listGames()).map((g) => g.id);
  const wanted = process.env["REFEREE_GAMES"]?.split(",").filter(Boolean) ?? served;
  const verbose = Boolean(process.env["REFEREE_VERBOSE"]);
  let failed = 0;
  for (const id of wanted) {
    if (!served.includes(id)) {
      console.error(`${id}: not served by ${address} (it serves ${served.join(", ")})`);
      failed++;
      continue;
    }
    try {
      const played = await playGame(client, gameConfig(id, CONFIGS[id] ?? {}), {
        botSeed: 7,
        rounds: 1,
        log: verbose ? (line) => console.log(line) : undefined,
      });
      console.log(
        `${id}: finished after ${played.actions.length} actions; ` +
          `winner ${played.winners.map((w) => `seat ${w}`).join(", ")}; ` +
          `${scoreboardText(played.game.scoreboard)}`,
      );
    } catch (err) {
      console.error(`${id}: FAILED: ${err instanceof Error ? err.message : String(err)}`);
      failed++;
    }
  }
  return failed === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err instanceof Error ? err.message : err);
    process.exit(1);
  },
);
