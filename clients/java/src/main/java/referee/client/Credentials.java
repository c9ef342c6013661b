package referee.client;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import referee.v1.Common.Actor;
import referee.v1.Common.Viewer;

/**
 * What a sealing server returned with NewGame (docs/trust.md): one credential per seat (index =
 * seat) and the table's. A platform holds them all; hand each player only its own ({@link
 * #onlySeat}). Empty with a server that does not seal.
 */
public final class Credentials {
  /** No credential at all (a server that does not seal). */
  public static final Credentials NONE = new Credentials(List.of(), ByteString.EMPTY);

  private final List<ByteString> seats;
  private final ByteString table;

  public Credentials(List<ByteString> seats, ByteString table) {
    this.seats = Collections.unmodifiableList(new ArrayList<>(seats));
    this.table = table == null ? ByteString.EMPTY : table;
  }

  /** One per seat, index = seat (empty for a seat whose credential is not held). */
  public List<ByteString> seats() {
    return seats;
  }

  /** The table's credential (empty when not held). */
  public ByteString table() {
    return table;
  }

  /** Whether there is no credential at all. */
  public boolean empty() {
    return table.isEmpty() && seats.stream().allMatch(ByteString::isEmpty);
  }

  /** Seat n's credential, empty when not held. */
  public ByteString seat(int n) {
    return n >= 0 && n < seats.size() ? seats.get(n) : ByteString.EMPTY;
  }

  /** What the player of seat n should hold: its own credential and nothing else. */
  public Credentials onlySeat(int n) {
    List<ByteString> own = new ArrayList<>();
    for (int i = 0; i < seats.size(); i++) {
      own.add(i == n ? seats.get(i) : ByteString.EMPTY);
    }
    return new Credentials(own, ByteString.EMPTY);
  }

  /** The actor with its credential, when it carries none and one is held. */
  Actor actor(Actor actor) {
    if (actor == null || !actor.getCredential().isEmpty()) {
      return actor;
    }
    ByteString credential;
    switch (actor.getKindCase()) {
      case SEAT:
        credential = seat(actor.getSeat());
        break;
      case TABLE:
        credential = table;
        break;
      default:
        credential = ByteString.EMPTY;
    }
    return credential.isEmpty() ? actor : actor.toBuilder().setCredential(credential).build();
  }

  /** The viewer with its credential, when it is a seat without one and one is held. */
  Viewer viewer(Viewer viewer) {
    if (viewer == null
        || viewer.getKindCase() != Viewer.KindCase.SEAT
        || !viewer.getCredential().isEmpty()
        || seat(viewer.getSeat()).isEmpty()) {
      return viewer;
    }
    return viewer.toBuilder().setCredential(seat(viewer.getSeat())).build();
  }

  List<Viewer> viewers(List<Viewer> viewers) {
    List<Viewer> out = new ArrayList<>(viewers.size());
    for (Viewer v : viewers) {
      out.add(viewer(v));
    }
    return out;
  }
}
