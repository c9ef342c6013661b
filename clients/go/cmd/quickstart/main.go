// Command quickstart is the README's Go quickstart, runnable: go run ./cmd/quickstart
// (the server's address from REFEREE_ADDRESS, default localhost:50051). It
// ignores errors for brevity; cmd/referee-bot handles them.
package main

import (
	"context"
	"fmt"
	"os"

	"referee/clients/go/referee"
)

func main() {
	ctx, address := context.Background(), "localhost:50051"
	if a := os.Getenv("REFEREE_ADDRESS"); a != "" {
		address = a
	}

	client, _ := referee.Dial(address)
	config, _ := referee.Config("earl_of_coventry", `{"seats": 3}`)
	started, _ := client.NewGame(ctx, config, referee.NewGameOptions{})
	game := started.Game
	for !game.Finished() { // whoever may act takes their last legal action
		actions, _ := client.LegalActions(ctx, game, nil)
		applied, _ := client.Apply(ctx, game, actions[len(actions)-1], nil)
		game = applied.Game
	}
	fmt.Println("winners:", game.Scoreboard.GetWinners())
}
