// Command quickstart is the README's Go quickstart, runnable: go run ./cmd/quickstart
// (the server's address from REFEREE_ADDRESS, default localhost:50051).
package main

import (
	"context"
	"fmt"
	"log"
	"os"

	"referee/clients/go/referee"
)

func main() {
	ctx, address := context.Background(), "localhost:50051"
	if a := os.Getenv("REFEREE_ADDRESS"); a != "" {
		address = a
	}

	client, err := referee.Dial(address)
	if err != nil {
		log.Fatal(err)
	}
	config, _ := referee.Config("earl_of_coventry", `{"seats": 3}`)
	started, err := client.NewGame(ctx, config, referee.NewGameOptions{})
	if err != nil {
		log.Fatal(err) // no server there: Unavailable, after 5 attempts
	}
	game := started.Game
	for !game.Finished() { // whoever may act takes their last legal action
		actions, err := client.LegalActions(ctx, game, nil)
		if err != nil {
			log.Fatal(err)
		}
		applied, err := client.Apply(ctx, game, actions[len(actions)-1], nil)
		if err != nil {
			log.Fatal(err)
		}
		game = applied.Game
	}
	fmt.Println("winners:", game.Scoreboard.GetWinners())
}
