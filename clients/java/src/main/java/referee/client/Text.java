package referee.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.MessageOrBuilder;
import com.google.protobuf.util.JsonFormat;
import java.util.ArrayList;
import java.util.List;
import referee.v1.Cards.Card;
import referee.v1.Common.Actor;
import referee.v1.Common.SeatScore;
import referee.v1.Common.Scoreboard;
import referee.v1.Referee.Action;

/** Short texts of actions, actors and standings, for logs and the example bot. */
public final class Text {
  private static final String[] RANKS = {
    "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"
  };
  private static final String[] SUITS = {"♣", "♦", "♥", "♠"};
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  private Text() {}

  /** Q♥, 10♠. */
  public static String card(Card c) {
    int r = c.getRankValue();
    int s = c.getSuitValue();
    if (r < 1 || r > 13 || s < 1 || s > 4) {
      return "?";
    }
    return RANKS[r - 1] + SUITS[s - 1];
  }

  /** The set field of a message's first oneof, or null. */
  private static FieldDescriptor caseOf(Message m) {
    List<OneofDescriptor> oneofs = m.getDescriptorForType().getOneofs();
    return oneofs.isEmpty() ? null : m.getOneofFieldDescriptor(oneofs.get(0));
  }

  /** The game action's case, for any game: play, pass, next_round, end_session, propose... */
  public static String actionKind(Action a) {
    FieldDescriptor game = caseOf(a);
    if (game == null) {
      return "";
    }
    if (game.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
      return game.getName();
    }
    FieldDescriptor kind = caseOf((Message) a.getField(game));
    return kind == null ? game.getName() : kind.getName();
  }

  /** "seat 2", "the table". */
  public static String actor(Actor a) {
    switch (a.getKindCase()) {
      case SEAT:
        return "seat " + a.getSeat();
      case SPECTATOR:
        return "spectator \"" + a.getSpectator() + "\"";
      case TABLE:
        return "the table";
      default:
        return "nobody";
    }
  }

  /** An action of any game: its kind and its fields as compact JSON. */
  public static String action(Action a) {
    if (a.getEarlOfCoventry().hasPlay()) {
      return "play " + card(a.getEarlOfCoventry().getPlay().getCard());
    }
    if (a.getEcarte().hasPlay()) {
      return "play " + card(a.getEcarte().getPlay().getCard());
    }
    FieldDescriptor game = caseOf(a);
    if (game == null) {
      return "(no action)";
    }
    return actionKind(a) + " " + json((MessageOrBuilder) a.getField(game));
  }

  /** A message as one line of protobuf JSON. */
  public static String json(MessageOrBuilder m) {
    try {
      return JsonFormat.printer().omittingInsignificantWhitespace().print(m);
    } catch (InvalidProtocolBufferException e) {
      return e.getMessage();
    }
  }

  /** One line of standings. */
  public static String scoreboard(Scoreboard b) {
    List<String> seats = new ArrayList<>();
    for (SeatScore s : b.getSeatsList()) {
      List<String> parts = new ArrayList<>();
      parts.add("seat " + s.getSeat());
      if (s.getRoundsWon() > 0) {
        parts.add("rounds won " + s.getRoundsWon());
      }
      if (s.getGamesWon() > 0) {
        parts.add("games won " + s.getGamesWon());
      }
      if (s.getPoints() != 0) {
        parts.add("points " + s.getPoints());
      }
      if (s.getCounters() != 0) {
        parts.add("counters " + s.getCounters());
      }
      if (s.getChips() != 0) {
        parts.add("chips " + s.getChips());
      }
      parts.add("cards in hand " + s.getCardsInHand());
      seats.add(String.join(" ", parts));
    }
    return String.join("; ", seats)
        + "; finished "
        + b.getFinished()
        + "; winners "
        + b.getWinnersList();
  }

  /** Lower-case hex. */
  public static String hex(ByteString bytes) {
    StringBuilder out = new StringBuilder(bytes.size() * 2);
    for (int i = 0; i < bytes.size(); i++) {
      int b = bytes.byteAt(i) & 0xff;
      out.append(HEX[b >> 4]).append(HEX[b & 0xf]);
    }
    return out.toString();
  }
}
