package referee

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand"
	"strings"

	"google.golang.org/protobuf/proto"

	refereev1 "referee/clients/go/gen/referee/v1"
)

// Bot picks one of the legal actions (never empty).
type Bot func(actions []*refereev1.Action) *refereev1.Action

// EagerBot picks at random (seeded), but never passes when something else is possible.
func EagerBot(seed int64) Bot {
	rng := rand.New(rand.NewSource(seed))
	return func(actions []*refereev1.Action) *refereev1.Action {
		var active []*refereev1.Action
		for _, a := range actions {
			if ActionKind(a) != "pass" {
				active = append(active, a)
			}
		}
		if len(active) == 0 {
			active = actions
		}
		return active[rng.Intn(len(active))]
	}
}

// TablePolicy plays the table between rounds: deal rounds rounds, then end.
// Generic: an action whose case starts with "end" ends the match or session;
// any other continues it.
func TablePolicy(rounds int) Bot {
	decisions := 0
	return func(actions []*refereev1.Action) *refereev1.Action {
		decisions++
		var ending, goingOn []*refereev1.Action
		for _, a := range actions {
			if strings.HasPrefix(ActionKind(a), "end") {
				ending = append(ending, a)
			} else {
				goingOn = append(goingOn, a)
			}
		}
		if decisions >= rounds && len(ending) > 0 {
			return ending[0]
		}
		if len(goingOn) > 0 {
			return goingOn[0]
		}
		return ending[0]
	}
}

// PlayOptions configure PlayGame.
type PlayOptions struct {
	Seed     []byte // nil: the server draws one
	BotSeed  int64
	Rounds   int          // rounds the table deals before ending a session (default 1)
	Log      func(string) // the transcript (default: none)
	MaxSteps int          // default 100000
}

// Played is a game played to its end.
type Played struct {
	Game    *GameHandle
	Actions []*refereev1.Action
	Seed    []byte
	Winners []uint32
}

// PlayGame plays one match or session to its end with bots on every seat,
// choosing among LegalActions. It fails when a legal action is not accepted,
// when the game stops before its end, when the revealed seed does not match
// its commitment, or when Replay disagrees with the game played.
func PlayGame(ctx context.Context, c *Client, config *refereev1.GameConfig, o PlayOptions) (*Played, error) {
	log := o.Log
	if log == nil {
		log = func(string) {}
	}
	if o.Rounds < 1 {
		o.Rounds = 1
	}
	if o.MaxSteps <= 0 {
		o.MaxSteps = 100000
	}
	table := TablePolicy(o.Rounds)
	bots := map[uint32]Bot{}
	started, err := c.NewGame(ctx, config, NewGameOptions{Seed: o.Seed})
	if err != nil {
		return nil, err
	}
	game := started.Game
	commitment := started.Response.GetSeedCommitment()
	log("seed commitment " + hex.EncodeToString(commitment))
	for _, e := range started.Response.GetEvents() {
		log("  " + EventText(e))
	}
	var actions []*refereev1.Action
	for step := 0; !game.Finished(); step++ {
		if step >= o.MaxSteps {
			return nil, fmt.Errorf("the game did not end within %d actions", o.MaxSteps)
		}
		legal, err := c.LegalActions(ctx, game, nil)
		if err != nil {
			return nil, err
		}
		if len(legal) == 0 {
			return nil, errors.New("no one may act, yet the game is not over")
		}
		actor := legal[0].GetActor()
		var mine []*refereev1.Action
		for _, a := range legal {
			if proto.Equal(a.GetActor(), actor) {
				mine = append(mine, a)
			}
		}
		var action *refereev1.Action
		switch k := actor.GetKind().(type) {
		case *refereev1.Actor_Table:
			action = table(mine)
		case *refereev1.Actor_Seat:
			bot, ok := bots[k.Seat]
			if !ok {
				bot = EagerBot(o.BotSeed*1000 + int64(k.Seat))
				bots[k.Seat] = bot
			}
			action = bot(mine)
		default:
			return nil, fmt.Errorf("no player for %s", ActorText(actor))
		}
		applied, err := c.Apply(ctx, game, action, nil)
		if err != nil {
			return nil, err
		}
		if !applied.Accepted() {
			var why []string
			for _, v := range applied.Response.GetViolations() {
				why = append(why, fmt.Sprintf("%s (%s): %s", v.GetCode(), v.GetRuleId(), v.GetMessage()))
			}
			return nil, fmt.Errorf("%s %s: %s: %s", ActorText(actor), ActionText(action),
				applied.Response.GetVerdict(), strings.Join(why, "; "))
		}
		actions = append(actions, action)
		game = applied.Game
		if _, ok := actor.GetKind().(*refereev1.Actor_Table); ok {
			log("the table: " + ActionKind(action))
		}
		for _, e := range applied.Response.GetEvents() {
			log("  " + EventText(e))
		}
	}
	final, err := c.View(ctx, game, Public)
	if err != nil {
		return nil, err
	}
	seed := final.GetView().GetSeed()
	sum := sha256.Sum256(seed)
	if len(seed) == 0 || !bytes.Equal(sum[:], commitment) {
		return nil, errors.New("the seed revealed at the end does not match the commitment")
	}
	replay, err := c.Replay(ctx, &refereev1.ReplayRequest{Config: config, Seed: seed, Actions: actions})
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(replay.GetFinalHash(), game.StateHash) {
		return nil, errors.New("Replay of the game's actions gives another final state")
	}
	log(fmt.Sprintf("seed revealed %x: matches the commitment", seed))
	log(fmt.Sprintf("replay of %d actions: final hash %x… matches", len(actions), game.StateHash[:8]))
	return &Played{Game: game, Actions: actions, Seed: seed, Winners: game.Scoreboard.GetWinners()}, nil
}
