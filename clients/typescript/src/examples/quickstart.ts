// The README's TypeScript quickstart, runnable: node dist/src/examples/quickstart.js
// (the server's address from REFEREE_ADDRESS, default localhost:50051).
import { RefereeClient, gameConfig } from "@referee/client";

const address = process.env["REFEREE_ADDRESS"] ?? "localhost:50051";

const referee = new RefereeClient(address);
let { game } = await referee.newGame(gameConfig("earl_of_coventry", { seats: 3 }));
while (!game.scoreboard.finished) {
  const actions = await referee.legalActions(game); // whoever may act takes their last legal action
  ({ game } = await referee.apply(game, actions[actions.length - 1]!));
}
console.log("winners:", game.scoreboard.winners);
