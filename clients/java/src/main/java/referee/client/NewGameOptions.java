package referee.client;

import com.google.protobuf.ByteString;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import referee.v1.Common.Viewer;

/** NewGame's optional inputs: {@code new NewGameOptions().seed(seed).views(RefereeClient.seat(0))}. */
public final class NewGameOptions {
  ByteString seed = ByteString.EMPTY;
  final List<ByteString> seatEntropy = new ArrayList<>();
  final List<Viewer> views = new ArrayList<>();

  /** 32 bytes; none (the default): the server draws a secure random seed. */
  public NewGameOptions seed(ByteString seed) {
    this.seed = seed == null ? ByteString.EMPTY : seed;
    return this;
  }

  public NewGameOptions seed(byte[] seed) {
    return seed(seed == null ? null : ByteString.copyFrom(seed));
  }

  /** Entropy from each seat (index = seat), mixed into the seed (docs/trust.md). */
  public NewGameOptions seatEntropy(List<ByteString> entropy) {
    seatEntropy.clear();
    seatEntropy.addAll(entropy);
    return this;
  }

  /** Views to return with the first state. */
  public NewGameOptions views(Viewer... viewers) {
    views.clear();
    views.addAll(Arrays.asList(viewers));
    return this;
  }
}
