package referee.client;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.OneofDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ChannelCredentials;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.stub.MetadataUtils;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import referee.v1.Common.Actor;
import referee.v1.Common.PublicViewer;
import referee.v1.Common.TableActor;
import referee.v1.Common.Viewer;
import referee.v1.Referee.Action;
import referee.v1.Referee.ApplyActionRequest;
import referee.v1.Referee.ApplyActionResponse;
import referee.v1.Referee.GameConfig;
import referee.v1.Referee.GameInfo;
import referee.v1.Referee.LegalActionsRequest;
import referee.v1.Referee.ListGamesRequest;
import referee.v1.Referee.NewGameRequest;
import referee.v1.Referee.NewGameResponse;
import referee.v1.Referee.ReplayRequest;
import referee.v1.Referee.ReplayResponse;
import referee.v1.Referee.ViewStateRequest;
import referee.v1.Referee.ViewStateResponse;
import referee.v1.RefereeServiceGrpc;

/**
 * A client of the Referee gRPC service over one channel (safe for concurrent use).
 *
 * <pre>{@code
 * try (RefereeClient referee = new RefereeClient("localhost:50051")) {
 *   GameHandle game = referee.newGame(RefereeClient.config("ecarte", "{}")).game();
 *   while (!game.finished()) {
 *     game = referee.apply(game, referee.legalActions(game).get(0)).game();
 *   }
 * }
 * }</pre>
 *
 * <p>It adds to the generated stubs: a deadline on every call (10 s unless set), retries of calls
 * that fail with UNAVAILABLE and only those (gRPC's retry policy: 5 attempts, backoff 0.1 s
 * doubling to 2 s; every RPC is safe to retry, the referee keeps no state), answers up to 256 MiB,
 * {@link GameHandle}, which keeps the state the server returned, plain or sealed, and sends it back
 * the same way with the seat credentials on every actor and seat viewer, and {@link
 * RefereeException}, with the {@code google.rpc} details decoded. Illegal actions are not errors:
 * {@link #apply} returns the verdict.
 */
public final class RefereeClient implements AutoCloseable {
  /** Every call's deadline unless the builder sets another. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);
  /** The attempts of a call failing with UNAVAILABLE. */
  public static final int DEFAULT_ATTEMPTS = 5;
  /**
   * The largest answer accepted: the largest {@code --max-message-bytes} a server may be given.
   * gRPC's default, 4 MiB, is below the server's default limit (16 MiB).
   */
  public static final int MAX_RECEIVE_BYTES = 256 * 1024 * 1024;
  /** The service's full name, for service configs. */
  public static final String SERVICE = "referee.v1.RefereeService";

  /** The reason of LegalActions without an actor on a {@code --require-sealed} server. */
  static final String ACTOR_REQUIRED = "ACTOR_REQUIRED";

  /** The public viewer: only what every player may see. */
  public static final Viewer PUBLIC =
      Viewer.newBuilder().setPublic(PublicViewer.getDefaultInstance()).build();
  /** The table as an actor (between rounds). */
  public static final Actor TABLE =
      Actor.newBuilder().setTable(TableActor.getDefaultInstance()).build();

  private final ManagedChannel channel;
  private final RefereeServiceGrpc.RefereeServiceBlockingStub stub;
  // The server wants an actor in LegalActions (--require-sealed): set on reason ACTOR_REQUIRED.
  private final AtomicBoolean perActor = new AtomicBoolean();

  /** A plaintext client of address (host:port) with the defaults. */
  public RefereeClient(String address) {
    this(builder(address));
  }

  private RefereeClient(Builder b) {
    ManagedChannelBuilder<?> channelBuilder = channelBuilder(b.address, b.credentials());
    // gRPC runs a channel's interceptors last to first: the deadline's, then the metadata's,
    // then the user's (the last given first), so that theirs see the deadline and the headers.
    List<ClientInterceptor> interceptors = new ArrayList<>(b.interceptors);
    if (!b.headers.keys().isEmpty()) {
      interceptors.add(MetadataUtils.newAttachHeadersInterceptor(b.headers));
    }
    interceptors.add(new DefaultDeadline(b.timeout));
    channelBuilder
        .maxInboundMessageSize(MAX_RECEIVE_BYTES)
        .intercept(interceptors)
        .enableRetry()
        .maxRetryAttempts(Math.max(b.maxAttempts, DEFAULT_ATTEMPTS))
        .defaultServiceConfig(b.serviceConfig != null ? b.serviceConfig : serviceConfig(b.maxAttempts));
    if (b.serverName != null) {
      channelBuilder.overrideAuthority(b.serverName);
    }
    channel = channelBuilder.build();
    stub = RefereeServiceGrpc.newBlockingStub(channel);
  }

  /**
   * The channel builder, with a clear error for TLS without OpenSSL: Debian's netty 4.1.48 has no
   * ALPN for the JDK's TLS, so gRPC over TLS needs netty-tcnative's native library, and without it
   * netty says only "JDK provider does not support ALPN protocol" (grpc-netty-shaded, from Maven,
   * has the JDK's ALPN and never gets here).
   */
  private static ManagedChannelBuilder<?> channelBuilder(
      String address, ChannelCredentials credentials) {
    try {
      return Grpc.newChannelBuilder(address, credentials);
    } catch (UnsupportedOperationException e) {
      if (String.valueOf(e.getMessage()).contains("ALPN")) {
        throw new IllegalStateException(TLS_NEEDS_OPENSSL + " (netty: " + e.getMessage() + ")", e);
      }
      throw e;
    }
  }

  /** The error of a TLS client without OpenSSL (netty-tcnative's native library). */
  static final String TLS_NEEDS_OPENSSL =
      "TLS needs OpenSSL here and it is not loaded: apt-get install libnetty-tcnative-jni, run "
          + "clients/java/build.sh (it copies the library to build/native/libnetty_tcnative.so), "
          + "and run java with -Djava.library.path=clients/java/build/native (run.sh does); "
          + "plaintext does not need it";

  /** A builder for a client of address: {@code host:port}, or a gRPC target ({@code dns:///...}). */
  public static Builder builder(String address) {
    return new Builder(address);
  }

  /** The options of a client; {@link #build} makes it. */
  public static final class Builder {
    private final String address;
    private Duration timeout = DEFAULT_TIMEOUT;
    private int maxAttempts = DEFAULT_ATTEMPTS;
    private ChannelCredentials credentials;
    private File caFile;
    private boolean tls;
    private String serverName;
    private final Metadata headers = new Metadata();
    private final List<ClientInterceptor> interceptors = new ArrayList<>();
    private Map<String, ?> serviceConfig;

    private Builder(String address) {
      this.address = address;
    }

    /** Every call's deadline (default 10 s); it bounds the retries too. */
    public Builder timeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("the timeout must be positive");
      }
      this.timeout = timeout;
      return this;
    }

    /** Attempts of a call failing with UNAVAILABLE (default 5; 1: no retry). */
    public Builder maxAttempts(int maxAttempts) {
      if (maxAttempts < 1) {
        throw new IllegalArgumentException("maxAttempts must be at least 1");
      }
      this.maxAttempts = maxAttempts;
      return this;
    }

    /** TLS, checking the server's certificate with the system's CAs. */
    public Builder tls() {
      this.tls = true;
      return this;
    }

    /** TLS, checking the server's certificate with this PEM CA bundle (a private CA). */
    public Builder caFile(File caFile) {
      this.caFile = caFile;
      return this;
    }

    /**
     * Any channel credentials, e.g. {@code TlsChannelCredentials} with a client certificate for
     * mutual TLS ({@code keyManager(certFile, keyFile)}). Default: plaintext.
     */
    public Builder credentials(ChannelCredentials credentials) {
      this.credentials = credentials;
      return this;
    }

    /** The name the server's certificate must carry when it is not the address's host. */
    public Builder serverName(String serverName) {
      this.serverName = serverName;
      return this;
    }

    /**
     * Sends {@code authorization: Bearer <token>} with every call, for a server with {@code
     * --auth-tokens-file}. Without TLS the token can be read on the network.
     */
    public Builder bearerToken(String token) {
      return metadata("authorization", "Bearer " + token);
    }

    /**
     * A metadata entry sent with every call, the same value on each (e.g. an {@code x-client}
     * name). A value per call, such as an {@code x-request-id}, is an {@link #intercept
     * interceptor}'s.
     */
    public Builder metadata(String key, String value) {
      headers.put(Metadata.Key.of(key, Metadata.ASCII_STRING_MARSHALLER), value);
      return this;
    }

    /**
     * Interceptors on every call of the client's channel, the generated stub's ({@link #stub})
     * too: e.g. OpenTelemetry's gRPC client interceptor, or one that puts a new {@code
     * x-request-id} in each call's headers. They run after the client's own: they see the call's
     * deadline in its {@code CallOptions} and, in {@code start}, its headers with the {@link
     * #metadata} and {@link #bearerToken} entries, which they may read, add to or replace. Their
     * order is grpc-java's ({@code ManagedChannelBuilder.intercept}): the last given runs first,
     * and those of a later {@code intercept} before those of an earlier one. They run once per
     * call, not per attempt: the attempts of a call retried on UNAVAILABLE send the same headers.
     */
    public Builder intercept(ClientInterceptor... interceptors) {
      for (ClientInterceptor interceptor : interceptors) {
        if (interceptor == null) {
          throw new NullPointerException("a null interceptor");
        }
        this.interceptors.add(interceptor);
      }
      return this;
    }

    /**
     * A service config (the parsed JSON: maps, lists, strings, Double numbers) replacing the
     * client's own, e.g. docs/deploy.md's with round_robin: give it its own retryPolicy.
     *
     * <p>Its {@code healthCheckConfig} does nothing with Debian's jars: gRPC Java's client-side
     * health checking is in {@code io.grpc:grpc-services}, which Debian does not package. So a
     * server whose health says NOT_SERVING (draining, after SIGTERM) still gets this client's
     * calls, where the Python client stops sending it any (and fails them with UNAVAILABLE
     * "backend unhealthy" when no address is healthy). They are still answered during the
     * server's drain delay; after it, the server's GOAWAY ends the connection and gRPC connects
     * to another address, and the retries on UNAVAILABLE cover the calls caught in between. With
     * Maven or Gradle, {@code io.grpc:grpc-services} on the classpath turns it on for {@code
     * round_robin} (deploy.md's policy; not for {@code pick_first}), with no change here.
     */
    public Builder serviceConfig(Map<String, ?> serviceConfig) {
      this.serviceConfig = serviceConfig;
      return this;
    }

    public RefereeClient build() {
      return new RefereeClient(this);
    }

    private ChannelCredentials credentials() {
      if (credentials != null) {
        return credentials;
      }
      if (caFile != null) {
        try {
          return TlsChannelCredentials.newBuilder().trustManager(caFile).build();
        } catch (IOException e) {
          throw new UncheckedIOException("CA file " + caFile, e);
        }
      }
      return tls ? TlsChannelCredentials.create() : InsecureChannelCredentials.create();
    }
  }

  /**
   * The service config the client gives its channel: every Referee RPC retried on UNAVAILABLE
   * only, maxAttempts attempts, backoff 0.1 s doubling to at most 2 s.
   */
  public static Map<String, ?> serviceConfig(int maxAttempts) {
    Map<String, Object> method = new LinkedHashMap<>();
    method.put("name", List.of(Map.of("service", SERVICE)));
    if (maxAttempts >= 2) {
      Map<String, Object> policy = new LinkedHashMap<>();
      policy.put("maxAttempts", (double) maxAttempts);
      policy.put("initialBackoff", "0.1s");
      policy.put("maxBackoff", "2s");
      policy.put("backoffMultiplier", 2.0);
      policy.put("retryableStatusCodes", List.of("UNAVAILABLE"));
      method.put("retryPolicy", policy);
    }
    return Map.of("methodConfig", List.of(method));
  }

  /** Gives a call without a deadline the client's: the generated stub's calls too. */
  private static final class DefaultDeadline implements ClientInterceptor {
    private final long nanos;

    DefaultDeadline(Duration timeout) {
      this.nanos = timeout.toNanos();
    }

    @Override
    public <Q, R> ClientCall<Q, R> interceptCall(
        MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
      if (options.getDeadline() == null) {
        options = options.withDeadlineAfter(nanos, TimeUnit.NANOSECONDS);
      }
      return next.newCall(method, options);
    }
  }

  /**
   * The generated blocking stub on the client's channel, for anything this wrapper does not
   * cover: its calls have the same deadline, retries, metadata and receive size.
   */
  public RefereeServiceGrpc.RefereeServiceBlockingStub stub() {
    return stub;
  }

  /** The channel (owned by the client: {@link #close} shuts it down). */
  public ManagedChannel channel() {
    return channel;
  }

  /** Shuts the channel down, waiting up to 5 s for calls in flight. */
  @Override
  public void close() {
    channel.shutdown();
    try {
      if (!channel.awaitTermination(5, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** Whether LegalActions without an actor is asked per actor (the server said ACTOR_REQUIRED). */
  boolean perActor() {
    return perActor.get();
  }

  /** Every game this server referees. */
  public List<GameInfo> listGames() {
    try {
      return stub.listGames(ListGamesRequest.getDefaultInstance()).getGamesList();
    } catch (StatusRuntimeException e) {
      throw RefereeException.from(e);
    }
  }

  /** Starts a match or session (the first deal is done); the server draws the seed. */
  public Started newGame(GameConfig config) {
    return newGame(config, new NewGameOptions());
  }

  /** Starts a match or session with a seed, seat entropy or views. */
  public Started newGame(GameConfig config, NewGameOptions options) {
    NewGameRequest request =
        NewGameRequest.newBuilder()
            .setConfig(config)
            .setSeed(options.seed)
            .addAllSeatEntropy(options.seatEntropy)
            .addAllViews(options.views)
            .build();
    NewGameResponse r;
    try {
      r = stub.newGame(request);
    } catch (StatusRuntimeException e) {
      throw RefereeException.from(e);
    }
    Credentials credentials = new Credentials(r.getSeatCredentialsList(), r.getTableCredential());
    GameHandle game =
        GameHandle.of(
            r.hasState() ? r.getState() : null,
            r.getSealedState(),
            r.getStateHash(),
            r.getScoreboard(),
            credentials);
    return new Started(r, game);
  }

  /**
   * Referees one action; views (e.g. {@link #PUBLIC}, {@link #seat}) are returned of the next
   * state. The handle's credential goes on the actor and on seat viewers that carry none.
   */
  public Applied apply(GameHandle game, Action action, Viewer... views) {
    return apply(game, action, Arrays.asList(views));
  }

  public Applied apply(GameHandle game, Action action, List<Viewer> views) {
    ApplyActionRequest request = applyRequest(game, action, views);
    ApplyActionResponse r;
    try {
      r = stub.applyAction(request);
    } catch (StatusRuntimeException e) {
      throw RefereeException.from(e);
    }
    GameHandle next =
        GameHandle.of(
            r.hasState() ? r.getState() : null,
            r.getSealedState(),
            r.getStateHash(),
            r.getScoreboard(),
            game.credentials());
    return new Applied(r, next);
  }

  static ApplyActionRequest applyRequest(GameHandle game, Action action, List<Viewer> views) {
    Credentials credentials = game.credentials();
    if (action.hasActor()) {
      Actor signed = credentials.actor(action.getActor());
      if (signed != action.getActor()) {
        action = action.toBuilder().setActor(signed).build();
      }
    }
    ApplyActionRequest.Builder request =
        ApplyActionRequest.newBuilder()
            .setAction(action)
            .addAllViews(credentials.viewers(views));
    if (game.requestState() != null) {
      request.setState(game.requestState());
    }
    return request.setSealedState(game.requestSealedState()).build();
  }

  /** Every action whoever may act now may take (the seat on turn, or the table). */
  public List<Action> legalActions(GameHandle game) {
    return legalActions(game, null);
  }

  /**
   * Every action actor may take now (null: whoever may act). A server with {@code
   * --require-sealed} answers only for one actor with its credential: asked without an actor, it
   * answers reason ACTOR_REQUIRED, and then, and from then on, the client asks the table and every
   * seat it holds a credential for, and joins the answers.
   */
  public List<Action> legalActions(GameHandle game, Actor actor) {
    Credentials credentials = game.credentials();
    if (actor == null && !credentials.empty() && perActor.get()) {
      return legalActionsPerActor(game);
    }
    LegalActionsRequest.Builder request = LegalActionsRequest.newBuilder();
    if (game.requestState() != null) {
      request.setState(game.requestState());
    }
    request.setSealedState(game.requestSealedState());
    if (actor != null) {
      request.setActor(credentials.actor(actor));
    }
    try {
      return stub.legalActions(request.build()).getActionsList();
    } catch (StatusRuntimeException e) {
      RefereeException error = RefereeException.from(e);
      if (actor == null && !credentials.empty() && ACTOR_REQUIRED.equals(error.reason())) {
        perActor.set(true);
        return legalActionsPerActor(game);
      }
      throw error;
    }
  }

  private List<Action> legalActionsPerActor(GameHandle game) {
    Credentials credentials = game.credentials();
    List<Action> found = new ArrayList<>();
    if (!credentials.table().isEmpty()) {
      found.addAll(legalActions(game, TABLE));
    }
    for (int n = 0; n < credentials.seats().size(); n++) {
      if (!credentials.seat(n).isEmpty()) {
        found.addAll(legalActions(game, seatActor(n)));
      }
    }
    return found;
  }

  /** What viewer may see of the game (a seat viewer gets the handle's credential). */
  public ViewStateResponse view(GameHandle game, Viewer viewer) {
    ViewStateRequest.Builder request =
        ViewStateRequest.newBuilder().setViewer(game.credentials().viewer(viewer));
    if (game.requestState() != null) {
      request.setState(game.requestState());
    }
    request.setSealedState(game.requestSealedState());
    try {
      return stub.viewState(request.build());
    } catch (StatusRuntimeException e) {
      throw RefereeException.from(e);
    }
  }

  /**
   * Referees a whole list of actions from the start: the whole request, e.g. with {@code
   * setIncludeLog(true)} for the game as a GameLog (what {@code referee verify} checks).
   */
  public ReplayResponse replay(ReplayRequest request) {
    try {
      return stub.replay(request);
    } catch (StatusRuntimeException e) {
      throw RefereeException.from(e);
    }
  }

  /** Replays actions from the start of the game of config and seed. */
  public ReplayResponse replay(GameConfig config, ByteString seed, List<Action> actions) {
    return replay(
        ReplayRequest.newBuilder().setConfig(config).setSeed(seed).addAllActions(actions).build());
  }

  /**
   * A GameConfig for a game id ({@code earl_of_coventry}, {@code ecarte}) and its options in the
   * protobuf JSON mapping ({@code "{\"seats\": 3}"}; null, "" or "{}" for the defaults).
   *
   * @throws IllegalArgumentException for an unknown game or options that do not parse
   */
  public static GameConfig config(String game, String optionsJson) {
    OneofDescriptor games = GameConfig.getDescriptor().getOneofs().get(0);
    TreeSet<String> names = new TreeSet<>();
    boolean known = false;
    for (FieldDescriptor field : games.getFields()) {
      names.add(field.getName());
      known |= field.getName().equals(game) || field.getJsonName().equals(game);
    }
    if (!known) {
      throw new IllegalArgumentException(
          "unknown game \"" + game + "\" (games: " + String.join(", ", names) + ")");
    }
    String options = optionsJson == null || optionsJson.isBlank() ? "{}" : optionsJson;
    String json = "{\"" + game.replace("\\", "\\\\").replace("\"", "\\\"") + "\": " + options + "}";
    GameConfig.Builder config = GameConfig.newBuilder();
    try {
      JsonFormat.parser().merge(json, config);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("game " + game + ": " + e.getMessage(), e);
    }
    if (config.getGameCase() == GameConfig.GameCase.GAME_NOT_SET) {
      throw new IllegalArgumentException("game " + game + ": not a game of GameConfig");
    }
    return config.build();
  }

  /** The viewer of seat n. */
  public static Viewer seat(int n) {
    return Viewer.newBuilder().setSeat(n).build();
  }

  /** The actor of seat n. */
  public static Actor seatActor(int n) {
    return Actor.newBuilder().setSeat(n).build();
  }
}
