package referee.client;

import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerCredentials;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import referee.v1.Referee.GameInfo;
import referee.v1.Referee.ListGamesRequest;
import referee.v1.Referee.ListGamesResponse;
import referee.v1.RefereeServiceGrpc;

/**
 * A stand-in server on 127.0.0.1: ListGames fails with a given status a given number of times,
 * then answers one game whose description has a given size and whose title is the authorization
 * metadata received, so that the client's transport, retries, deadline and limits are tested
 * without the referee. It keeps the metadata of every call it received, in order ({@link
 * #headers}).
 */
final class StandIn extends RefereeServiceGrpc.RefereeServiceImplBase implements AutoCloseable {
  private static final Context.Key<String> AUTHORIZATION = Context.key("authorization");
  private static final Metadata.Key<String> AUTHORIZATION_HEADER =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  final AtomicInteger calls = new AtomicInteger();
  /** The metadata of every call received (every attempt of a retried call), in order. */
  final List<Metadata> headers = new CopyOnWriteArrayList<>();
  private final Status failure;
  private final int failures;
  private final int descriptionBytes;
  private final long delayMillis;
  private final Server server;

  StandIn(Status failure, int failures, int descriptionBytes, long delayMillis)
      throws IOException {
    this(failure, failures, descriptionBytes, delayMillis, InsecureServerCredentials.create());
  }

  StandIn(
      Status failure,
      int failures,
      int descriptionBytes,
      long delayMillis,
      ServerCredentials credentials)
      throws IOException {
    this.failure = failure;
    this.failures = failures;
    this.descriptionBytes = descriptionBytes;
    this.delayMillis = delayMillis;
    ServerInterceptor received =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              ServerCall<Q, R> call, Metadata metadata, ServerCallHandler<Q, R> next) {
            headers.add(metadata);
            String token = metadata.get(AUTHORIZATION_HEADER);
            Context context =
                Context.current().withValue(AUTHORIZATION, token == null ? "" : token);
            return Contexts.interceptCall(context, call, metadata, next);
          }
        };
    server =
        Grpc.newServerBuilderForPort(0, credentials)
            .addService(ServerInterceptors.intercept(this, received))
            .build()
            .start();
  }

  /** The address to dial: 127.0.0.1 and the port the server got. */
  String address() {
    return "127.0.0.1:" + server.getPort();
  }

  @Override
  public void listGames(ListGamesRequest request, StreamObserver<ListGamesResponse> answer) {
    int call = calls.incrementAndGet();
    // A slow answer, given up when the caller's deadline cancels the call.
    long end = System.nanoTime() + delayMillis * 1_000_000;
    while (System.nanoTime() < end) {
      if (Context.current().isCancelled()) {
        return;
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    if (call <= failures) {
      answer.onError(failure.withDescription("stand-in failure " + call).asRuntimeException());
      return;
    }
    GameInfo game =
        GameInfo.newBuilder()
            .setId("big")
            .setTitle(AUTHORIZATION.get())
            .setDescription("x".repeat(descriptionBytes))
            .build();
    answer.onNext(ListGamesResponse.newBuilder().addGames(game).build());
    answer.onCompleted();
  }

  @Override
  public void close() {
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
