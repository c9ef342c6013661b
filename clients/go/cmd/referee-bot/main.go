// Command referee-bot: bots play a complete game of every kind the server
// referees -- an Écarté match, an Earl of Coventry round -- choosing among
// LegalActions, and print the result.
//
//	go run ./cmd/referee-bot [-address localhost:50051] [-games ecarte,earl_of_coventry] [-v]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"

	"referee/clients/go/referee"
)

// The games' options (defaults otherwise), as protobuf JSON.
var configs = map[string]string{
	"ecarte":           `{}`,
	"earl_of_coventry": `{"seats": 4}`,
}

func main() {
	address := os.Getenv("REFEREE_ADDRESS")
	if address == "" {
		address = "localhost:50051"
	}
	flag.StringVar(&address, "address", address, "the server (env REFEREE_ADDRESS)")
	games := flag.String("games", os.Getenv("REFEREE_GAMES"), "comma-separated game ids (default: every game of the server)")
	verbose := flag.Bool("v", os.Getenv("REFEREE_VERBOSE") != "", "print every event")
	flag.Parse()
	os.Exit(run(address, *games, *verbose))
}

func run(address, games string, verbose bool) int {
	ctx := context.Background()
	client, err := referee.Dial(address)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer client.Close()
	infos, err := client.ListGames(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: %v\n", address, err)
		return 1
	}
	served := map[string]bool{}
	var wanted []string
	for _, g := range infos {
		served[g.GetId()] = true
		wanted = append(wanted, g.GetId())
	}
	if games != "" {
		wanted = strings.Split(games, ",")
	}
	failed := 0
	for _, id := range wanted {
		if !served[id] {
			fmt.Fprintf(os.Stderr, "%s: not served by %s\n", id, address)
			failed++
			continue
		}
		config, err := referee.Config(id, configs[id])
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			failed++
			continue
		}
		opts := referee.PlayOptions{BotSeed: 7, Rounds: 1}
		if verbose {
			opts.Log = func(line string) { fmt.Println(line) }
		}
		played, err := referee.PlayGame(ctx, client, config, opts)
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", id, err)
			failed++
			continue
		}
		fmt.Printf("%s: finished after %d actions; winner %v; %s\n",
			id, len(played.Actions), played.Winners, referee.ScoreboardText(played.Game.Scoreboard))
	}
	if failed > 0 {
		return 1
	}
	return 0
}
