package referee

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	refereev1 "referee/clients/go/gen/referee/v1"
)

var seed = func() []byte {
	b := make([]byte, 32)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}()

func dialEnv(t *testing.T, name, what string) *Client {
	t.Helper()
	address := os.Getenv(name)
	if address == "" {
		t.Fatalf("%s is not set: a server with %s (tests/clients starts one)", name, what)
	}
	c, err := Dial(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestSealingServerTokensAreCarriedBack(t *testing.T) {
	c := dialEnv(t, "REFEREE_SEALED_ADDRESS", "--seal-keys-file")
	played, err := PlayGame(context.Background(), c, config(t, "earl_of_coventry", `{"seats": 3}`), PlayOptions{Seed: seed, BotSeed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !played.Game.Sealed() || played.Game.State != nil || len(played.Game.Credentials.Seats) != 3 {
		t.Fatal("a sealing server's game must be carried as a token with credentials")
	}
}

// Without an actor, the client asks per actor only when the server says the call needs
// one (reason ACTOR_REQUIRED): any other error, here a broken token, is the caller's.
func TestOnlyActorRequiredTurnsLegalActionsPerActor(t *testing.T) {
	ctx := context.Background()
	c := dialEnv(t, "REFEREE_SEALED_ADDRESS", "--seal-keys-file")
	started, err := c.NewGame(ctx, config(t, "earl_of_coventry", `{"seats": 3}`), NewGameOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	broken := *started.Game
	broken.SealedState = append([]byte{}, started.Game.SealedState...)
	broken.SealedState[len(broken.SealedState)-1] ^= 1
	_, err = c.LegalActions(ctx, &broken, nil)
	if e, ok := err.(*Error); !ok || e.Reason != "STATE_SEAL_INVALID" {
		t.Fatalf("a broken token: %v", err)
	}
	if c.perActor.Load() {
		t.Fatal("a broken token turned the client to asking per actor")
	}
	strict := dialEnv(t, "REFEREE_STRICT_ADDRESS", "--require-sealed")
	game, err := strict.NewGame(ctx, config(t, "earl_of_coventry", `{"seats": 3}`), NewGameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if actions, err := strict.LegalActions(ctx, game.Game, nil); err != nil || len(actions) == 0 || !strict.perActor.Load() {
		t.Fatalf("a strict server: %v, %d actions, per actor %v", err, len(actions), strict.perActor.Load())
	}
}

// Asked without an actor on a strict server, a handle holding one seat's credential
// (what a player holds) asks for that seat alone: the table and the other seats would
// refuse it.
func TestAPlayersHandleAsksForTheActorsItHoldsCredentialsFor(t *testing.T) {
	ctx := context.Background()
	c := dialEnv(t, "REFEREE_STRICT_ADDRESS", "--require-sealed")
	started, err := c.NewGame(ctx, config(t, "earl_of_coventry", `{"seats": 3}`), NewGameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all, err := c.LegalActions(ctx, started.Game, nil)
	if err != nil || len(all) == 0 {
		t.Fatalf("the platform's handle: %v, %d actions", err, len(all))
	}
	turn := all[0].GetActor().GetSeat()
	mine, err := c.LegalActions(ctx, started.Game.WithCredentials(started.Game.Credentials.OnlySeat(turn)), nil)
	if err != nil || len(mine) == 0 {
		t.Fatalf("the player on turn: %v, %d actions", err, len(mine))
	}
	for _, a := range mine {
		if a.GetActor().GetSeat() != turn {
			t.Fatalf("an action of seat %d for the player of seat %d", a.GetActor().GetSeat(), turn)
		}
	}
	other, err := c.LegalActions(ctx, started.Game.WithCredentials(started.Game.Credentials.OnlySeat((turn+1)%3)), nil)
	if err != nil || len(other) != 0 {
		t.Fatalf("a player not on turn: %v, %d actions", err, len(other))
	}
}

func TestRequireSealedCredentialsOnEveryActor(t *testing.T) {
	c := dialEnv(t, "REFEREE_STRICT_ADDRESS", "--require-sealed")
	ctx := context.Background()
	played, err := PlayGame(ctx, c, config(t, "earl_of_coventry", `{"seats": 4}`), PlayOptions{BotSeed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !played.Game.Finished() || !played.Game.Sealed() {
		t.Fatal("not finished, or not sealed")
	}
	// Écarté has no table actions: asked of the table as of every seat (D-15).
	ecarte, err := PlayGame(ctx, c, config(t, "ecarte", ""), PlayOptions{BotSeed: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !ecarte.Game.Finished() || !ecarte.Game.Sealed() {
		t.Fatal("Écarté: not finished, or not sealed")
	}
	started, err := c.NewGame(ctx, config(t, "earl_of_coventry", `{"seats": 3}`), NewGameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	game := started.Game
	actions, err := c.LegalActions(ctx, game, nil)
	if err != nil || len(actions) == 0 {
		t.Fatal(err, actions)
	}
	turn := actions[0].GetActor().GetSeat()
	_, err = c.Apply(ctx, game.WithCredentials(game.Credentials.OnlySeat((turn+1)%3)), actions[0], nil)
	if e, ok := AsError(err); !ok || e.Code != codes.PermissionDenied || e.Reason != "SEAT_CREDENTIAL_INVALID" {
		t.Fatalf("acting for another seat: %v", err)
	}
	applied, err := c.Apply(ctx, game.WithCredentials(game.Credentials.OnlySeat(turn)), actions[0], nil)
	if err != nil || !applied.Accepted() {
		t.Fatalf("acting for its own seat: %v", err)
	}
	_, err = c.NewGame(ctx, config(t, "earl_of_coventry", ""), NewGameOptions{Seed: seed})
	if e, ok := AsError(err); !ok || e.Reason != "CLIENT_SEED_REFUSED" {
		t.Fatalf("a client seed: %v", err)
	}
}

// dial connects to the server under test: REFEREE_ADDRESS must be set (a
// missing server is a failure, never a skip).
func dial(t *testing.T) *Client {
	t.Helper()
	address := os.Getenv("REFEREE_ADDRESS")
	if address == "" {
		t.Fatal("REFEREE_ADDRESS is not set: start a server (referee serve) and set host:port")
	}
	c, err := Dial(address)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func config(t *testing.T, game, options string) *refereev1.GameConfig {
	t.Helper()
	c, err := Config(game, options)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestListGamesServesEarlOfCoventry(t *testing.T) {
	games, err := dial(t).ListGames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range games {
		if g.GetId() == "earl_of_coventry" && g.GetRulesVersion() == "earl_of_coventry/1" {
			return
		}
	}
	t.Fatalf("earl_of_coventry not listed: %v", games)
}

func TestEveryGameServedPlaysToItsEnd(t *testing.T) {
	c := dial(t)
	games, err := c.ListGames(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range games {
		g := g
		t.Run(g.GetId(), func(t *testing.T) {
			played, err := PlayGame(context.Background(), c, config(t, g.GetId(), ""), PlayOptions{Seed: seed, BotSeed: 3})
			if err != nil {
				t.Fatal(err)
			}
			if !played.Game.Finished() || len(played.Winners) == 0 {
				t.Fatalf("not finished: %s", ScoreboardText(played.Game.Scoreboard))
			}
			t.Logf("%s: %d actions, winners %v", g.GetId(), len(played.Actions), played.Winners)
		})
	}
}

func TestEarlOfCoventryIsDeterministicForASeed(t *testing.T) {
	c := dial(t)
	cfg := config(t, "earl_of_coventry", `{"seats": 3}`)
	a, err := PlayGame(context.Background(), c, cfg, PlayOptions{Seed: seed, BotSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	b, err := PlayGame(context.Background(), c, cfg, PlayOptions{Seed: seed, BotSeed: 5})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Game.StateHash, b.Game.StateHash) || len(a.Actions) != len(b.Actions) {
		t.Fatal("the same seeds gave different games")
	}
	if phase := a.Game.State.GetEarlOfCoventry().GetPhase(); phase != refereev1.EarlOfCoventryPhase_EARL_OF_COVENTRY_PHASE_SESSION_OVER {
		t.Fatalf("phase %v", phase)
	}
}

func TestEarlOfCoventrySessionWithCounters(t *testing.T) {
	c := dial(t)
	cfg := config(t, "earl_of_coventry", `{"seats": 5, "scoring": "EARL_OF_COVENTRY_SCORING_COUNTERS"}`)
	played, err := PlayGame(context.Background(), c, cfg, PlayOptions{Seed: seed, BotSeed: 9, Rounds: 3})
	if err != nil {
		t.Fatal(err)
	}
	s := played.Game.State.GetEarlOfCoventry()
	if s.GetRound() < 2 {
		t.Fatalf("rounds played: %d", s.GetRound()+1)
	}
	var total uint64
	for _, seat := range s.GetSeats() {
		total += seat.GetCounters()
	}
	if total != 100 {
		t.Fatalf("counters %d, want 100", total)
	}
}

func TestEcarteMatchesPlayToTheirEnd(t *testing.T) {
	c := dial(t)
	for _, m := range []struct {
		options string
		games   uint32
	}{{`{"gamesToWin": 2, "stake": 1}`, 2}, {`{"seats": 3}`, 1}} {
		cfg := config(t, "ecarte", m.options)
		a, err := PlayGame(context.Background(), c, cfg, PlayOptions{Seed: seed, BotSeed: 4})
		if err != nil {
			t.Fatal(m.options, err)
		}
		b, err := PlayGame(context.Background(), c, cfg, PlayOptions{Seed: seed, BotSeed: 4})
		if err != nil {
			t.Fatal(m.options, err)
		}
		if !bytes.Equal(a.Game.StateHash, b.Game.StateHash) {
			t.Fatalf("%s: the same seeds gave different matches", m.options)
		}
		if phase := a.Game.State.GetEcarte().GetPhase(); phase != refereev1.EcartePhase_ECARTE_PHASE_MATCH_OVER {
			t.Fatalf("%s: phase %v", m.options, phase)
		}
		if won := a.Game.Scoreboard.GetSeats()[a.Winners[0]].GetGamesWon(); won != m.games {
			t.Fatalf("%s: the winner won %d games, want %d", m.options, won, m.games)
		}
		t.Logf("ecarte %s: %d actions, winner %v", m.options, len(a.Actions), a.Winners)
	}
}

func TestIllegalActionIsAVerdict(t *testing.T) {
	c := dial(t)
	ctx := context.Background()
	started, err := c.NewGame(ctx, config(t, "earl_of_coventry", `{"seats": 3}`), NewGameOptions{Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	actions, err := c.LegalActions(ctx, started.Game, nil)
	if err != nil || len(actions) == 0 {
		t.Fatal(err, actions)
	}
	bad := actions[0]
	bad.Actor = SeatActor((bad.GetActor().GetSeat() + 1) % 3)
	applied, err := c.Apply(ctx, started.Game, bad, nil)
	if err != nil {
		t.Fatal(err)
	}
	if applied.Response.GetVerdict() != refereev1.Verdict_VERDICT_REJECTED || applied.Response.GetViolations()[0].GetCode() != "NOT_YOUR_TURN" {
		t.Fatalf("verdict %v %v", applied.Response.GetVerdict(), applied.Response.GetViolations())
	}
	if !bytes.Equal(applied.Game.StateHash, started.Game.StateHash) {
		t.Fatal("a rejected action changed the state")
	}
	table, err := c.LegalActions(ctx, started.Game, Table)
	if err != nil || len(table) != 0 {
		t.Fatalf("table actions during a round: %v %v", table, err)
	}
}

func TestViewShowsOwnHandOnly(t *testing.T) {
	c := dial(t)
	ctx := context.Background()
	started, err := c.NewGame(ctx, config(t, "earl_of_coventry", ""), NewGameOptions{Seed: seed, Views: []*refereev1.Viewer{SeatViewer(1)}})
	if err != nil {
		t.Fatal(err)
	}
	view, err := c.View(ctx, started.Game, SeatViewer(2))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range view.GetView().GetEarlOfCoventry().GetSeats() {
		if (len(s.GetHand()) > 0) != (s.GetSeat() == 2) {
			t.Fatalf("seat %d hand %v", s.GetSeat(), s.GetHand())
		}
	}
	if len(view.GetView().GetSeed()) != 0 {
		t.Fatal("the seed is shown while the game runs")
	}
	if len(started.Response.GetViews()) != 1 {
		t.Fatal("NewGame returned no view")
	}
}

func TestBrokenRequestIsAnError(t *testing.T) {
	c := dial(t)
	_, err := c.NewGame(context.Background(), config(t, "earl_of_coventry", `{"seats": 14}`), NewGameOptions{})
	e, ok := AsError(err)
	if !ok || e.Code != codes.InvalidArgument || len(e.FieldViolations) == 0 {
		t.Fatalf("error %v", err)
	}
	if e.FieldViolations[0][0] != "config.earl_of_coventry.seats" {
		t.Fatalf("field violations %v", e.FieldViolations)
	}
	// The message names the violation once (the server's message names it already).
	if strings.Count(e.Error(), e.FieldViolations[0][1]) != 1 {
		t.Fatalf("message %q", e.Error())
	}
	// A gRPC status error too, details included.
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.InvalidArgument || status.Code(err) != codes.InvalidArgument || len(st.Details()) == 0 {
		t.Fatalf("status %v %v", st, ok)
	}
}

func TestErrorInfoMetadataAndContextErrors(t *testing.T) {
	c := dial(t)
	ctx := context.Background()
	started, err := c.NewGame(ctx, config(t, "earl_of_coventry", `{"seats": 3}`), NewGameOptions{})
	if err != nil {
		t.Fatal(err)
	}
	game := started.Game
	old := proto.Clone(game.State).(*refereev1.GameState)
	old.RulesVersion = "earl_of_coventry/0"
	_, err = c.LegalActions(ctx, &GameHandle{State: old}, nil)
	e, ok := AsError(err)
	if !ok || e.Code != codes.FailedPrecondition || e.Reason != "RULES_VERSION_UNSUPPORTED" {
		t.Fatalf("error %v", err)
	}
	if e.Metadata["rules_version"] != "earl_of_coventry/0" {
		t.Fatalf("metadata %v", e.Metadata)
	}
	expired, cancel := context.WithTimeout(ctx, time.Nanosecond)
	defer cancel()
	<-expired.Done()
	_, err = c.ListGames(expired)
	if !errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		t.Fatalf("error %v is not context.DeadlineExceeded", err)
	}
	if _, err := Config("poker", "{}"); err == nil || !strings.Contains(err.Error(), `unknown game "poker" (games: ecarte, earl_of_coventry)`) {
		t.Fatalf("error %v", err)
	}
	if _, err := Config("earlOfCoventry", `{"seats": 3}`); err != nil { // the JSON name too
		t.Fatal(err)
	}
}

func TestRetriesUnavailableOnly(t *testing.T) {
	calls := 0
	invoker := func(code codes.Code, failures int) grpc.UnaryInvoker {
		return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn, opts ...grpc.CallOption) error {
			calls++
			if calls <= failures {
				return status.Error(code, "no")
			}
			return nil
		}
	}
	retry := RetryUnavailable(3)
	if err := retry(context.Background(), "/m", nil, nil, nil, invoker(codes.Unavailable, 2)); err != nil || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	calls = 0
	if err := retry(context.Background(), "/m", nil, nil, nil, invoker(codes.Unavailable, 5)); status.Code(err) != codes.Unavailable || calls != 3 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
	calls = 0
	if err := retry(context.Background(), "/m", nil, nil, nil, invoker(codes.InvalidArgument, 5)); status.Code(err) != codes.InvalidArgument || calls != 1 {
		t.Fatalf("err %v after %d calls", err, calls)
	}
}

func TestServerDownIsUnavailable(t *testing.T) {
	c, err := Dial("127.0.0.1:1", Options{MaxAttempts: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_, err = c.ListGames(context.Background())
	if e, ok := AsError(err); !ok || e.Code != codes.Unavailable {
		t.Fatalf("error %v", err)
	}
}

func TestSealedHandleSendsTheToken(t *testing.T) {
	g, err := handle(&refereev1.GameState{RulesVersion: "x/1"}, []byte{1, 2, 3}, nil, nil, Credentials{})
	if err != nil {
		t.Fatal(err)
	}
	state, sealed := g.plainOrSealed()
	if state != nil || !bytes.Equal(sealed, []byte{1, 2, 3}) {
		t.Fatal("a sealed handle must send its token and no state")
	}
	g, _ = handle(&refereev1.GameState{RulesVersion: "x/1"}, nil, nil, nil, Credentials{})
	if state, sealed := g.plainOrSealed(); state.GetRulesVersion() != "x/1" || sealed != nil {
		t.Fatal("a plain handle sends its state")
	}
	if _, err := handle(nil, nil, nil, nil, Credentials{}); err == nil {
		t.Fatal("a response without a state must be an error")
	}
}

func TestGoldenVectors(t *testing.T) {
	dir := os.Getenv("REFEREE_VECTORS")
	if dir == "" {
		_, here, _, _ := runtime.Caller(0) // clients/go/referee/client_test.go
		dir = filepath.Join(filepath.Dir(here), "..", "..", "..", "tests", "vectors")
	}
	files, ok, err := VectorFiles(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !ok {
		// Said out loud, never skipped silently: the vectors come with issue 5.
		t.Logf("golden vectors: %s does not exist; nothing to replay", dir)
		return
	}
	if len(files) == 0 {
		t.Fatalf("%s holds no .json vector", dir)
	}
	c := dial(t)
	for _, f := range files {
		f := f
		t.Run(filepath.Base(f), func(t *testing.T) {
			failures, n, err := RunVector(context.Background(), c, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, msg := range failures {
				t.Error(msg)
			}
			t.Logf("vector %s: %d actions", filepath.Base(f), n)
		})
	}
}
