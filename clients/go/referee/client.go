// Package referee is a small typed client for the Referee gRPC service.
//
//	client, err := referee.Dial("localhost:50051")
//	config, err := referee.Config("earl_of_coventry", `{"seats": 3}`)
//	started, err := client.NewGame(ctx, config, referee.NewGameOptions{})
//	game := started.Game
//	for !game.Finished() {
//		actions, _ := client.LegalActions(ctx, game, nil)
//		applied, _ := client.Apply(ctx, game, actions[0], nil)
//		game = applied.Game
//	}
//
// It adds to the generated stubs (package refereev1): a default deadline on
// every call, retries of calls that fail with UNAVAILABLE and only those (the
// referee keeps no state, so every RPC is safe to retry), GameHandle, which
// keeps the state the server returned -- plain or sealed -- and sends it back
// the same way, and Error, with the google.rpc details decoded. Illegal
// actions are not errors: Apply returns the verdict.
package referee

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	refereev1 "referee/clients/go/gen/referee/v1"
)

const (
	// DefaultTimeout is every call's deadline when its context has none.
	DefaultTimeout = 10 * time.Second
	// DefaultAttempts bounds the attempts of a call failing with UNAVAILABLE.
	DefaultAttempts = 5
	// MaxReceiveBytes is the largest response a call accepts: the largest
	// --max-message-bytes a server may be given. gRPC's own default, 4 MiB, is
	// below the server's default limit (16 MiB), so a Replay answer in between
	// would be refused by the client.
	MaxReceiveBytes = 256 * 1024 * 1024
)

// Options configure Dial.
type Options struct {
	Timeout     time.Duration // default DefaultTimeout
	MaxAttempts int           // default DefaultAttempts; 1: no retry
	// TransportCredentials, when set, make the connection use them (TLS:
	// credentials.NewTLS); nil: plaintext. Give TLS here, not as
	// grpc.WithTransportCredentials in DialOptions, which would conflict with
	// the plaintext default.
	TransportCredentials credentials.TransportCredentials
	// DialOptions are added last (e.g. grpc.WithPerRPCCredentials for a bearer
	// token, grpc.WithDefaultServiceConfig for round_robin, docs/deploy.md).
	DialOptions []grpc.DialOption
}

// Client is a Referee client over one connection (safe for concurrent use).
type Client struct {
	Conn *grpc.ClientConn
	// Stub is the generated client, for anything this wrapper does not cover.
	Stub     refereev1.RefereeServiceClient
	perActor atomic.Bool // the server wants an actor in LegalActions (--require-sealed)
}

// Dial connects to address (host:port), in plaintext unless
// opts.TransportCredentials are given. The connection is made lazily: a server
// that is not up yet makes calls fail with UNAVAILABLE, which are retried.
func Dial(address string, opts ...Options) (*Client, error) {
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	if o.MaxAttempts <= 0 {
		o.MaxAttempts = DefaultAttempts
	}
	security := grpc.WithInsecure()
	if o.TransportCredentials != nil {
		security = grpc.WithTransportCredentials(o.TransportCredentials)
	}
	dial := []grpc.DialOption{
		security,
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(MaxReceiveBytes)),
		grpc.WithChainUnaryInterceptor(deadline(o.Timeout), RetryUnavailable(o.MaxAttempts)),
	}
	conn, err := grpc.Dial(address, append(dial, o.DialOptions...)...)
	if err != nil {
		return nil, err
	}
	return &Client{Conn: conn, Stub: refereev1.NewRefereeServiceClient(conn)}, nil
}

// BearerToken sends "authorization: Bearer <token>" with every call, for a
// server with --auth-tokens-file (docs/operations.md): pass it in
// Options.DialOptions. It also works without TLS (a mesh's mTLS, a test), where
// the token can be read on the network.
func BearerToken(token string) grpc.DialOption {
	return grpc.WithPerRPCCredentials(bearerToken(token))
}

type bearerToken string

func (t bearerToken) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(t)}, nil
}

func (bearerToken) RequireTransportSecurity() bool { return false }

// Close closes the connection.
func (c *Client) Close() error { return c.Conn.Close() }

func deadline(timeout time.Duration) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if _, ok := ctx.Deadline(); !ok {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, timeout)
			defer cancel()
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

// RetryUnavailable retries a call that fails with UNAVAILABLE, up to
// maxAttempts attempts in all, with exponential backoff (0.1 s, 0.2 s, ... at
// most 2 s) within the call's deadline. Other errors are returned at once.
func RetryUnavailable(maxAttempts int) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply interface{}, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		backoff := 100 * time.Millisecond
		for attempt := 1; ; attempt++ {
			err := invoker(ctx, method, req, reply, cc, opts...)
			if status.Code(err) != codes.Unavailable || attempt >= maxAttempts {
				return err
			}
			select {
			case <-ctx.Done():
				return err
			case <-time.After(backoff):
			}
			if backoff *= 2; backoff > 2*time.Second {
				backoff = 2 * time.Second
			}
		}
	}
}

// Error is a gRPC error from the referee: a broken request (never an illegal action).
// It is also a gRPC status error: status.Code(err) and status.FromError(err) read it
// (the details included), and errors.Is(err, context.DeadlineExceeded) or
// context.Canceled holds when the call ended so.
type Error struct {
	Code    codes.Code
	Message string
	// FieldViolations are the google.rpc.BadRequest details: field path -> description.
	FieldViolations [][2]string
	// Reason is the google.rpc.ErrorInfo reason, e.g. RULES_VERSION_UNSUPPORTED.
	Reason string
	// Metadata is the google.rpc.ErrorInfo metadata, e.g. rules_version, limit_bytes.
	Metadata map[string]string
	status   *status.Status
}

func (e *Error) Error() string {
	text := fmt.Sprintf("%s: %s", e.Code, e.Message)
	var parts []string
	for _, v := range e.FieldViolations {
		// The server's message names its first violation already.
		if part := v[0] + ": " + v[1]; !strings.Contains(e.Message, part) {
			parts = append(parts, part)
		}
	}
	if len(parts) > 0 {
		text += " (" + strings.Join(parts, "; ") + ")"
	}
	return text
}

// GRPCStatus is the call's gRPC status, details included (status.FromError uses it).
func (e *Error) GRPCStatus() *status.Status {
	if e.status == nil {
		return status.New(e.Code, e.Message)
	}
	return e.status
}

// Is matches context.DeadlineExceeded and context.Canceled to the call's code.
func (e *Error) Is(target error) bool {
	switch target {
	case context.DeadlineExceeded:
		return e.Code == codes.DeadlineExceeded
	case context.Canceled:
		return e.Code == codes.Canceled
	}
	return false
}

// reasonActorRequired is the reason of a LegalActions call without an actor on a
// server that requires sealed states: then the client asks per actor.
const reasonActorRequired = "ACTOR_REQUIRED"

func wrap(err error) error {
	if err == nil {
		return nil
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	e := &Error{Code: st.Code(), Message: st.Message(), status: st}
	for _, d := range st.Details() {
		switch detail := d.(type) {
		case *errdetails.BadRequest:
			for _, v := range detail.GetFieldViolations() {
				e.FieldViolations = append(e.FieldViolations, [2]string{v.GetField(), v.GetDescription()})
			}
		case *errdetails.ErrorInfo:
			e.Reason = detail.GetReason()
			e.Metadata = detail.GetMetadata()
		}
	}
	return e
}

// AsError returns the referee Error in err, if any.
func AsError(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Credentials are what a sealing server returned with NewGame (docs/trust.md):
// one per seat (index = seat) and the table's. A platform holds them all; hand
// each player only its own (OnlySeat). Empty with a server that does not seal.
type Credentials struct {
	Seats [][]byte
	Table []byte
}

// Empty tells whether there is no credential at all.
func (c Credentials) Empty() bool { return len(c.Seats) == 0 && len(c.Table) == 0 }

// OnlySeat is what the player of seat n should hold: its own credential only.
func (c Credentials) OnlySeat(n uint32) Credentials {
	out := Credentials{Seats: make([][]byte, len(c.Seats))}
	if int(n) < len(c.Seats) {
		out.Seats[n] = c.Seats[n]
	}
	return out
}

func (c Credentials) seat(n uint32) []byte {
	if int(n) < len(c.Seats) {
		return c.Seats[n]
	}
	return nil
}

// actor is actor with its credential, when it has none and one is held.
func (c Credentials) actor(a *refereev1.Actor) *refereev1.Actor {
	if a == nil || len(a.GetCredential()) > 0 {
		return a
	}
	var credential []byte
	switch k := a.GetKind().(type) {
	case *refereev1.Actor_Seat:
		credential = c.seat(k.Seat)
	case *refereev1.Actor_Table:
		credential = c.Table
	}
	if len(credential) == 0 {
		return a
	}
	out := proto.Clone(a).(*refereev1.Actor)
	out.Credential = credential
	return out
}

// viewer is viewer with its credential, when it is a seat without one and one is held.
func (c Credentials) viewer(v *refereev1.Viewer) *refereev1.Viewer {
	k, ok := v.GetKind().(*refereev1.Viewer_Seat)
	if !ok || len(v.GetCredential()) > 0 || len(c.seat(k.Seat)) == 0 {
		return v
	}
	out := proto.Clone(v).(*refereev1.Viewer)
	out.Credential = c.seat(k.Seat)
	return out
}

func (c Credentials) viewers(vs []*refereev1.Viewer) []*refereev1.Viewer {
	out := make([]*refereev1.Viewer, len(vs))
	for i, v := range vs {
		out[i] = c.viewer(v)
	}
	return out
}

// GameHandle is the state of one game as the server last returned it, plain
// or sealed. Treat it as opaque: pass it back to the Client.
type GameHandle struct {
	// State is the plain state, when the server returned one. It holds hidden
	// information: show players views, never this.
	State *refereev1.GameState
	// SealedState is the sealed token, when the server seals states.
	SealedState []byte
	// StateHash is SHA-256 of the state's canonical serialization.
	StateHash  []byte
	Scoreboard *refereev1.Scoreboard
	// Credentials of a sealing server, put on every actor and seat viewer that has none.
	Credentials Credentials
}

// WithCredentials is the same state holding other credentials (e.g. one player's own only).
func (g *GameHandle) WithCredentials(c Credentials) *GameHandle {
	out := *g
	out.Credentials = c
	return &out
}

// Finished tells whether the match or session is over.
func (g *GameHandle) Finished() bool { return g.Scoreboard.GetFinished() }

// Sealed tells whether the server sealed the state.
func (g *GameHandle) Sealed() bool { return len(g.SealedState) > 0 }

// plainOrSealed: what a request carries, the token if there is one, else the state.
func (g *GameHandle) plainOrSealed() (*refereev1.GameState, []byte) {
	if g.Sealed() {
		return nil, g.SealedState
	}
	return g.State, nil
}

func handle(state *refereev1.GameState, sealed, hash []byte, board *refereev1.Scoreboard, creds Credentials) (*GameHandle, error) {
	if state == nil && len(sealed) == 0 {
		return nil, errors.New("the server returned neither a state nor a sealed state")
	}
	if board == nil {
		board = &refereev1.Scoreboard{}
	}
	return &GameHandle{State: state, SealedState: sealed, StateHash: hash, Scoreboard: board, Credentials: creds}, nil
}

// Started is the answer to NewGame.
type Started struct {
	Response *refereev1.NewGameResponse
	Game     *GameHandle
}

// Applied is the answer to Apply: the verdict and the game after it.
type Applied struct {
	Response *refereev1.ApplyActionResponse
	// Game is the next state (the same state when the verdict is rejected).
	Game *GameHandle
}

// Accepted tells whether the action was accepted.
func (a *Applied) Accepted() bool {
	return a.Response.GetVerdict() == refereev1.Verdict_VERDICT_ACCEPTED
}

// NewGameOptions are NewGame's optional inputs.
type NewGameOptions struct {
	Seed        []byte // 32 bytes, or nil: the server draws one
	SeatEntropy [][]byte
	Views       []*refereev1.Viewer
}

// ListGames lists every game the server referees.
func (c *Client) ListGames(ctx context.Context) ([]*refereev1.GameInfo, error) {
	r, err := c.Stub.ListGames(ctx, &refereev1.ListGamesRequest{})
	if err != nil {
		return nil, wrap(err)
	}
	return r.GetGames(), nil
}

// NewGame starts a match or session (the first deal is done).
func (c *Client) NewGame(ctx context.Context, config *refereev1.GameConfig, o NewGameOptions) (*Started, error) {
	r, err := c.Stub.NewGame(ctx, &refereev1.NewGameRequest{
		Config: config, Seed: o.Seed, SeatEntropy: o.SeatEntropy, Views: o.Views,
	})
	if err != nil {
		return nil, wrap(err)
	}
	creds := Credentials{Seats: r.GetSeatCredentials(), Table: r.GetTableCredential()}
	g, err := handle(r.GetState(), r.GetSealedState(), r.GetStateHash(), r.GetScoreboard(), creds)
	if err != nil {
		return nil, err
	}
	return &Started{Response: r, Game: g}, nil
}

// Apply referees one action.
func (c *Client) Apply(ctx context.Context, game *GameHandle, action *refereev1.Action, views []*refereev1.Viewer) (*Applied, error) {
	state, sealed := game.plainOrSealed()
	creds := game.Credentials
	if signed := creds.actor(action.GetActor()); signed != action.GetActor() {
		action = proto.Clone(action).(*refereev1.Action)
		action.Actor = signed
	}
	r, err := c.Stub.ApplyAction(ctx, &refereev1.ApplyActionRequest{
		State: state, SealedState: sealed, Action: action, Views: creds.viewers(views),
	})
	if err != nil {
		return nil, wrap(err)
	}
	g, err := handle(r.GetState(), r.GetSealedState(), r.GetStateHash(), r.GetScoreboard(), creds)
	if err != nil {
		return nil, err
	}
	return &Applied{Response: r, Game: g}, nil
}

// LegalActions lists every action actor may take now (nil: whoever may act).
// A server that requires sealed states answers only for one actor with its
// credential: then, with no actor, the handle's credentials ask for the table
// and for every seat, and the answers are joined.
func (c *Client) LegalActions(ctx context.Context, game *GameHandle, actor *refereev1.Actor) ([]*refereev1.Action, error) {
	creds := game.Credentials
	if actor == nil && !creds.Empty() && c.perActor.Load() {
		return c.legalActionsPerActor(ctx, game)
	}
	state, sealed := game.plainOrSealed()
	r, err := c.Stub.LegalActions(ctx, &refereev1.LegalActionsRequest{State: state, SealedState: sealed, Actor: creds.actor(actor)})
	if err != nil {
		// A server that requires sealed states answers only per actor (--require-sealed).
		wrapped := wrap(err)
		if e, ok := wrapped.(*Error); ok && actor == nil && !creds.Empty() && e.Reason == reasonActorRequired {
			c.perActor.Store(true)
			return c.legalActionsPerActor(ctx, game)
		}
		return nil, wrapped
	}
	return r.GetActions(), nil
}

func (c *Client) legalActionsPerActor(ctx context.Context, game *GameHandle) ([]*refereev1.Action, error) {
	// The table and every seat the handle holds a credential for (a player's handle
	// holds its own seat's only: the others would be refused).
	var actors []*refereev1.Actor
	if len(game.Credentials.Table) > 0 {
		actors = append(actors, Table)
	}
	for n, credential := range game.Credentials.Seats {
		if len(credential) > 0 {
			actors = append(actors, SeatActor(uint32(n)))
		}
	}
	var found []*refereev1.Action
	for _, a := range actors {
		actions, err := c.LegalActions(ctx, game, a)
		if err != nil {
			return nil, err
		}
		found = append(found, actions...)
	}
	return found, nil
}

// View returns what viewer may see of the game.
func (c *Client) View(ctx context.Context, game *GameHandle, viewer *refereev1.Viewer) (*refereev1.ViewStateResponse, error) {
	state, sealed := game.plainOrSealed()
	r, err := c.Stub.ViewState(ctx, &refereev1.ViewStateRequest{State: state, SealedState: sealed, Viewer: game.Credentials.viewer(viewer)})
	return r, wrap(err)
}

// Replay referees a whole list of actions from the start.
func (c *Client) Replay(ctx context.Context, req *refereev1.ReplayRequest) (*refereev1.ReplayResponse, error) {
	r, err := c.Stub.Replay(ctx, req)
	return r, wrap(err)
}

// Config builds a GameConfig for a game id (earl_of_coventry, ecarte) and its
// options as protobuf JSON ("" or "{}" for the defaults).
func Config(game, optionsJSON string) (*refereev1.GameConfig, error) {
	if strings.TrimSpace(optionsJSON) == "" {
		optionsJSON = "{}"
	}
	config := &refereev1.GameConfig{}
	games := config.ProtoReflect().Descriptor().Oneofs().ByName("game").Fields()
	var names []string
	known := false
	for i := 0; i < games.Len(); i++ {
		f := games.Get(i)
		names = append(names, string(f.Name()))
		known = known || game == string(f.Name()) || game == f.JSONName()
	}
	if !known {
		return nil, fmt.Errorf("unknown game %q (games: %s)", game, strings.Join(names, ", "))
	}
	if err := protojson.Unmarshal([]byte(fmt.Sprintf("{%q: %s}", game, optionsJSON)), config); err != nil {
		return nil, fmt.Errorf("game %q: %w", game, err)
	}
	return config, nil
}

// Viewers and actors.
var (
	Public = &refereev1.Viewer{Kind: &refereev1.Viewer_Public{Public: &refereev1.PublicViewer{}}}
	Table  = &refereev1.Actor{Kind: &refereev1.Actor_Table{Table: &refereev1.TableActor{}}}
)

// SeatViewer is the viewer of seat n.
func SeatViewer(n uint32) *refereev1.Viewer {
	return &refereev1.Viewer{Kind: &refereev1.Viewer_Seat{Seat: n}}
}

// SeatActor is the actor of seat n.
func SeatActor(n uint32) *refereev1.Actor {
	return &refereev1.Actor{Kind: &refereev1.Actor_Seat{Seat: n}}
}
