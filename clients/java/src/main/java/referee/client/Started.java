package referee.client;

import com.google.protobuf.ByteString;
import java.util.List;
import referee.v1.Referee.Event;
import referee.v1.Referee.GameView;
import referee.v1.Referee.NewGameResponse;

/** The answer to NewGame: the response and the game's first handle. */
public final class Started {
  private final NewGameResponse response;
  private final GameHandle game;

  Started(NewGameResponse response, GameHandle game) {
    this.response = response;
    this.game = game;
  }

  public NewGameResponse response() {
    return response;
  }

  /** The first state (the first deal done), plain or sealed, with the credentials. */
  public GameHandle game() {
    return game;
  }

  /** SHA-256 of the seed: keep it to check the seed revealed at the end. */
  public ByteString seedCommitment() {
    return response.getSeedCommitment();
  }

  public List<Event> events() {
    return response.getEventsList();
  }

  public List<GameView> views() {
    return response.getViewsList();
  }
}
