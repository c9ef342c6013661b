package referee.client;

import java.util.List;
import referee.v1.Common.Penalty;
import referee.v1.Common.Verdict;
import referee.v1.Common.Violation;
import referee.v1.Referee.ApplyActionResponse;
import referee.v1.Referee.Event;
import referee.v1.Referee.GameView;

/** The answer to ApplyAction: the verdict and the game after it. Verdicts are data. */
public final class Applied {
  private final ApplyActionResponse response;
  private final GameHandle game;

  Applied(ApplyActionResponse response, GameHandle game) {
    this.response = response;
    this.game = game;
  }

  public ApplyActionResponse response() {
    return response;
  }

  public Verdict verdict() {
    return response.getVerdict();
  }

  /** Whether the action was accepted. */
  public boolean accepted() {
    return response.getVerdict() == Verdict.VERDICT_ACCEPTED;
  }

  /** Every rule broken (empty when accepted). */
  public List<Violation> violations() {
    return response.getViolationsList();
  }

  public List<Penalty> penalties() {
    return response.getPenaltiesList();
  }

  /** What happened, as the public sees it. */
  public List<Event> events() {
    return response.getEventsList();
  }

  /** The views asked for, of the next state. */
  public List<GameView> views() {
    return response.getViewsList();
  }

  /** The next state: the same state when the verdict is rejected. */
  public GameHandle game() {
    return game;
  }
}
