package referee.client;

import com.google.protobuf.ByteString;
import referee.v1.Common.Scoreboard;
import referee.v1.Referee.GameState;

/**
 * The state of one game as the server last returned it, plain or sealed, with its hash, scoreboard
 * and the seat credentials. Treat it as opaque: pass it back to the {@link RefereeClient}, which
 * sends the token when there is one and the plain state otherwise. Immutable.
 */
public final class GameHandle {
  private final GameState state;
  private final ByteString sealedState;
  private final ByteString stateHash;
  private final Scoreboard scoreboard;
  private final Credentials credentials;

  private GameHandle(
      GameState state,
      ByteString sealedState,
      ByteString stateHash,
      Scoreboard scoreboard,
      Credentials credentials) {
    this.state = state;
    this.sealedState = sealedState;
    this.stateHash = stateHash;
    this.scoreboard = scoreboard;
    this.credentials = credentials;
  }

  /**
   * A handle from what a response carried, or from what a platform stored (a token and its
   * credentials, to go on with a game later). {@code state} may be null when {@code sealedState}
   * is not empty.
   *
   * @throws IllegalArgumentException when there is neither a state nor a sealed state
   */
  public static GameHandle of(
      GameState state,
      ByteString sealedState,
      ByteString stateHash,
      Scoreboard scoreboard,
      Credentials credentials) {
    ByteString sealed = sealedState == null ? ByteString.EMPTY : sealedState;
    if (state == null && sealed.isEmpty()) {
      throw new IllegalArgumentException("the server returned neither a state nor a sealed state");
    }
    return new GameHandle(
        state,
        sealed,
        stateHash == null ? ByteString.EMPTY : stateHash,
        scoreboard == null ? Scoreboard.getDefaultInstance() : scoreboard,
        credentials == null ? Credentials.NONE : credentials);
  }

  /**
   * The plain state, or null when the server sealed it. It holds hidden information: show players
   * views, never this.
   */
  public GameState state() {
    return state;
  }

  /** The sealed token, empty when the state is plain. */
  public ByteString sealedState() {
    return sealedState;
  }

  /** SHA-256 of the state's canonical serialization. */
  public ByteString stateHash() {
    return stateHash;
  }

  public Scoreboard scoreboard() {
    return scoreboard;
  }

  /** The credentials put on every actor and seat viewer that carries none. */
  public Credentials credentials() {
    return credentials;
  }

  /** Whether the match or session is over. */
  public boolean finished() {
    return scoreboard.getFinished();
  }

  /** Whether the server sealed the state (the handle carries a token). */
  public boolean sealed() {
    return !sealedState.isEmpty();
  }

  /** The same state holding other credentials. */
  public GameHandle withCredentials(Credentials other) {
    return new GameHandle(state, sealedState, stateHash, scoreboard, other);
  }

  /** The same state holding only seat n's credential: what the player of seat n should hold. */
  public GameHandle onlySeat(int n) {
    return withCredentials(credentials.onlySeat(n));
  }

  /** The state a request carries: null when the token is sent instead. */
  GameState requestState() {
    return sealed() ? null : state;
  }

  /** The token a request carries: empty when the plain state is sent. */
  ByteString requestSealedState() {
    return sealedState;
  }
}
