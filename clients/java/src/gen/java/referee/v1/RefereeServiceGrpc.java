package referee.v1;

import static io.grpc.MethodDescriptor.generateFullMethodName;

/**
 * <pre>
 * A stateless referee for card games. Every request carries the game state;
 * the referee keeps nothing between calls.
 * Errors: illegal actions are verdicts in OK responses. gRPC errors are for
 * broken requests: INVALID_ARGUMENT (malformed or impossible state, action or
 * configuration; details carry google.rpc.BadRequest field violations, or an
 * ErrorInfo for a sealed token that cannot be opened), FAILED_PRECONDITION (a
 * rules version this server does not serve, RULES_VERSION_UNSUPPORTED: another
 * replica may; or what this server's policy refuses, STATE_SEAL_REQUIRED and
 * CLIENT_SEED_REFUSED: no replica takes it), RESOURCE_EXHAUSTED (overload,
 * limits), UNAUTHENTICATED / PERMISSION_DENIED. Program against the ErrorInfo
 * reason (docs/api.md lists them all).
 * </pre>
 */
@javax.annotation.Generated(
    value = "by gRPC proto compiler",
    comments = "Source: referee/v1/referee.proto")
@io.grpc.stub.annotations.GrpcGenerated
public final class RefereeServiceGrpc {

  private RefereeServiceGrpc() {}

  public static final String SERVICE_NAME = "referee.v1.RefereeService";

  // Static method descriptors that strictly reflect the proto.
  private static volatile io.grpc.MethodDescriptor<referee.v1.Referee.ListGamesRequest,
      referee.v1.Referee.ListGamesResponse> getListGamesMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ListGames",
      requestType = referee.v1.Referee.ListGamesRequest.class,
      responseType = referee.v1.Referee.ListGamesResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<referee.v1.Referee.ListGamesRequest,
      referee.v1.Referee.ListGamesResponse> getListGamesMethod() {
    io.grpc.MethodDescriptor<referee.v1.Referee.ListGamesRequest, referee.v1.Referee.ListGamesResponse> getListGamesMethod;
    if ((getListGamesMethod = RefereeServiceGrpc.getListGamesMethod) == null) {
      synchronized (RefereeServiceGrpc.class) {
        if ((getListGamesMethod = RefereeServiceGrpc.getListGamesMethod) == null) {
          RefereeServiceGrpc.getListGamesMethod = getListGamesMethod =
              io.grpc.MethodDescriptor.<referee.v1.Referee.ListGamesRequest, referee.v1.Referee.ListGamesResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ListGames"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ListGamesRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ListGamesResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RefereeServiceMethodDescriptorSupplier("ListGames"))
              .build();
        }
      }
    }
    return getListGamesMethod;
  }

  private static volatile io.grpc.MethodDescriptor<referee.v1.Referee.NewGameRequest,
      referee.v1.Referee.NewGameResponse> getNewGameMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "NewGame",
      requestType = referee.v1.Referee.NewGameRequest.class,
      responseType = referee.v1.Referee.NewGameResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<referee.v1.Referee.NewGameRequest,
      referee.v1.Referee.NewGameResponse> getNewGameMethod() {
    io.grpc.MethodDescriptor<referee.v1.Referee.NewGameRequest, referee.v1.Referee.NewGameResponse> getNewGameMethod;
    if ((getNewGameMethod = RefereeServiceGrpc.getNewGameMethod) == null) {
      synchronized (RefereeServiceGrpc.class) {
        if ((getNewGameMethod = RefereeServiceGrpc.getNewGameMethod) == null) {
          RefereeServiceGrpc.getNewGameMethod = getNewGameMethod =
              io.grpc.MethodDescriptor.<referee.v1.Referee.NewGameRequest, referee.v1.Referee.NewGameResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "NewGame"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.NewGameRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.NewGameResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RefereeServiceMethodDescriptorSupplier("NewGame"))
              .build();
        }
      }
    }
    return getNewGameMethod;
  }

  private static volatile io.grpc.MethodDescriptor<referee.v1.Referee.ApplyActionRequest,
      referee.v1.Referee.ApplyActionResponse> getApplyActionMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ApplyAction",
      requestType = referee.v1.Referee.ApplyActionRequest.class,
      responseType = referee.v1.Referee.ApplyActionResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<referee.v1.Referee.ApplyActionRequest,
      referee.v1.Referee.ApplyActionResponse> getApplyActionMethod() {
    io.grpc.MethodDescriptor<referee.v1.Referee.ApplyActionRequest, referee.v1.Referee.ApplyActionResponse> getApplyActionMethod;
    if ((getApplyActionMethod = RefereeServiceGrpc.getApplyActionMethod) == null) {
      synchronized (RefereeServiceGrpc.class) {
        if ((getApplyActionMethod = RefereeServiceGrpc.getApplyActionMethod) == null) {
          RefereeServiceGrpc.getApplyActionMethod = getApplyActionMethod =
              io.grpc.MethodDescriptor.<referee.v1.Referee.ApplyActionRequest, referee.v1.Referee.ApplyActionResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ApplyAction"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ApplyActionRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ApplyActionResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RefereeServiceMethodDescriptorSupplier("ApplyAction"))
              .build();
        }
      }
    }
    return getApplyActionMethod;
  }

  private static volatile io.grpc.MethodDescriptor<referee.v1.Referee.LegalActionsRequest,
      referee.v1.Referee.LegalActionsResponse> getLegalActionsMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "LegalActions",
      requestType = referee.v1.Referee.LegalActionsRequest.class,
      responseType = referee.v1.Referee.LegalActionsResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<referee.v1.Referee.LegalActionsRequest,
      referee.v1.Referee.LegalActionsResponse> getLegalActionsMethod() {
    io.grpc.MethodDescriptor<referee.v1.Referee.LegalActionsRequest, referee.v1.Referee.LegalActionsResponse> getLegalActionsMethod;
    if ((getLegalActionsMethod = RefereeServiceGrpc.getLegalActionsMethod) == null) {
      synchronized (RefereeServiceGrpc.class) {
        if ((getLegalActionsMethod = RefereeServiceGrpc.getLegalActionsMethod) == null) {
          RefereeServiceGrpc.getLegalActionsMethod = getLegalActionsMethod =
              io.grpc.MethodDescriptor.<referee.v1.Referee.LegalActionsRequest, referee.v1.Referee.LegalActionsResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "LegalActions"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.LegalActionsRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.LegalActionsResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RefereeServiceMethodDescriptorSupplier("LegalActions"))
              .build();
        }
      }
    }
    return getLegalActionsMethod;
  }

  private static volatile io.grpc.MethodDescriptor<referee.v1.Referee.ViewStateRequest,
      referee.v1.Referee.ViewStateResponse> getViewStateMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "ViewState",
      requestType = referee.v1.Referee.ViewStateRequest.class,
      responseType = referee.v1.Referee.ViewStateResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<referee.v1.Referee.ViewStateRequest,
      referee.v1.Referee.ViewStateResponse> getViewStateMethod() {
    io.grpc.MethodDescriptor<referee.v1.Referee.ViewStateRequest, referee.v1.Referee.ViewStateResponse> getViewStateMethod;
    if ((getViewStateMethod = RefereeServiceGrpc.getViewStateMethod) == null) {
      synchronized (RefereeServiceGrpc.class) {
        if ((getViewStateMethod = RefereeServiceGrpc.getViewStateMethod) == null) {
          RefereeServiceGrpc.getViewStateMethod = getViewStateMethod =
              io.grpc.MethodDescriptor.<referee.v1.Referee.ViewStateRequest, referee.v1.Referee.ViewStateResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "ViewState"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ViewStateRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ViewStateResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RefereeServiceMethodDescriptorSupplier("ViewState"))
              .build();
        }
      }
    }
    return getViewStateMethod;
  }

  private static volatile io.grpc.MethodDescriptor<referee.v1.Referee.ReplayRequest,
      referee.v1.Referee.ReplayResponse> getReplayMethod;

  @io.grpc.stub.annotations.RpcMethod(
      fullMethodName = SERVICE_NAME + '/' + "Replay",
      requestType = referee.v1.Referee.ReplayRequest.class,
      responseType = referee.v1.Referee.ReplayResponse.class,
      methodType = io.grpc.MethodDescriptor.MethodType.UNARY)
  public static io.grpc.MethodDescriptor<referee.v1.Referee.ReplayRequest,
      referee.v1.Referee.ReplayResponse> getReplayMethod() {
    io.grpc.MethodDescriptor<referee.v1.Referee.ReplayRequest, referee.v1.Referee.ReplayResponse> getReplayMethod;
    if ((getReplayMethod = RefereeServiceGrpc.getReplayMethod) == null) {
      synchronized (RefereeServiceGrpc.class) {
        if ((getReplayMethod = RefereeServiceGrpc.getReplayMethod) == null) {
          RefereeServiceGrpc.getReplayMethod = getReplayMethod =
              io.grpc.MethodDescriptor.<referee.v1.Referee.ReplayRequest, referee.v1.Referee.ReplayResponse>newBuilder()
              .setType(io.grpc.MethodDescriptor.MethodType.UNARY)
              .setFullMethodName(generateFullMethodName(SERVICE_NAME, "Replay"))
              .setSampledToLocalTracing(true)
              .setRequestMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ReplayRequest.getDefaultInstance()))
              .setResponseMarshaller(io.grpc.protobuf.ProtoUtils.marshaller(
                  referee.v1.Referee.ReplayResponse.getDefaultInstance()))
              .setSchemaDescriptor(new RefereeServiceMethodDescriptorSupplier("Replay"))
              .build();
        }
      }
    }
    return getReplayMethod;
  }

  /**
   * Creates a new async stub that supports all call types for the service
   */
  public static RefereeServiceStub newStub(io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RefereeServiceStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RefereeServiceStub>() {
        @java.lang.Override
        public RefereeServiceStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RefereeServiceStub(channel, callOptions);
        }
      };
    return RefereeServiceStub.newStub(factory, channel);
  }

  /**
   * Creates a new blocking-style stub that supports unary and streaming output calls on the service
   */
  public static RefereeServiceBlockingStub newBlockingStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RefereeServiceBlockingStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RefereeServiceBlockingStub>() {
        @java.lang.Override
        public RefereeServiceBlockingStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RefereeServiceBlockingStub(channel, callOptions);
        }
      };
    return RefereeServiceBlockingStub.newStub(factory, channel);
  }

  /**
   * Creates a new ListenableFuture-style stub that supports unary calls on the service
   */
  public static RefereeServiceFutureStub newFutureStub(
      io.grpc.Channel channel) {
    io.grpc.stub.AbstractStub.StubFactory<RefereeServiceFutureStub> factory =
      new io.grpc.stub.AbstractStub.StubFactory<RefereeServiceFutureStub>() {
        @java.lang.Override
        public RefereeServiceFutureStub newStub(io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
          return new RefereeServiceFutureStub(channel, callOptions);
        }
      };
    return RefereeServiceFutureStub.newStub(factory, channel);
  }

  /**
   * <pre>
   * A stateless referee for card games. Every request carries the game state;
   * the referee keeps nothing between calls.
   * Errors: illegal actions are verdicts in OK responses. gRPC errors are for
   * broken requests: INVALID_ARGUMENT (malformed or impossible state, action or
   * configuration; details carry google.rpc.BadRequest field violations, or an
   * ErrorInfo for a sealed token that cannot be opened), FAILED_PRECONDITION (a
   * rules version this server does not serve, RULES_VERSION_UNSUPPORTED: another
   * replica may; or what this server's policy refuses, STATE_SEAL_REQUIRED and
   * CLIENT_SEED_REFUSED: no replica takes it), RESOURCE_EXHAUSTED (overload,
   * limits), UNAUTHENTICATED / PERMISSION_DENIED. Program against the ErrorInfo
   * reason (docs/api.md lists them all).
   * </pre>
   */
  public static abstract class RefereeServiceImplBase implements io.grpc.BindableService {

    /**
     * <pre>
     * Every game this server referees, with its options and variants.
     * </pre>
     */
    public void listGames(referee.v1.Referee.ListGamesRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ListGamesResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getListGamesMethod(), responseObserver);
    }

    /**
     * <pre>
     * Create a match or session: the first deal is done.
     * </pre>
     */
    public void newGame(referee.v1.Referee.NewGameRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.NewGameResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getNewGameMethod(), responseObserver);
    }

    /**
     * <pre>
     * Referee one action.
     * </pre>
     */
    public void applyAction(referee.v1.Referee.ApplyActionRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ApplyActionResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getApplyActionMethod(), responseObserver);
    }

    /**
     * <pre>
     * Every action an actor may take now.
     * </pre>
     */
    public void legalActions(referee.v1.Referee.LegalActionsRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.LegalActionsResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getLegalActionsMethod(), responseObserver);
    }

    /**
     * <pre>
     * What one viewer may see of a state.
     * </pre>
     */
    public void viewState(referee.v1.Referee.ViewStateRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ViewStateResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getViewStateMethod(), responseObserver);
    }

    /**
     * <pre>
     * Referee a whole list of actions from the start of a game.
     * </pre>
     */
    public void replay(referee.v1.Referee.ReplayRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ReplayResponse> responseObserver) {
      io.grpc.stub.ServerCalls.asyncUnimplementedUnaryCall(getReplayMethod(), responseObserver);
    }

    @java.lang.Override public final io.grpc.ServerServiceDefinition bindService() {
      return io.grpc.ServerServiceDefinition.builder(getServiceDescriptor())
          .addMethod(
            getListGamesMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                referee.v1.Referee.ListGamesRequest,
                referee.v1.Referee.ListGamesResponse>(
                  this, METHODID_LIST_GAMES)))
          .addMethod(
            getNewGameMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                referee.v1.Referee.NewGameRequest,
                referee.v1.Referee.NewGameResponse>(
                  this, METHODID_NEW_GAME)))
          .addMethod(
            getApplyActionMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                referee.v1.Referee.ApplyActionRequest,
                referee.v1.Referee.ApplyActionResponse>(
                  this, METHODID_APPLY_ACTION)))
          .addMethod(
            getLegalActionsMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                referee.v1.Referee.LegalActionsRequest,
                referee.v1.Referee.LegalActionsResponse>(
                  this, METHODID_LEGAL_ACTIONS)))
          .addMethod(
            getViewStateMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                referee.v1.Referee.ViewStateRequest,
                referee.v1.Referee.ViewStateResponse>(
                  this, METHODID_VIEW_STATE)))
          .addMethod(
            getReplayMethod(),
            io.grpc.stub.ServerCalls.asyncUnaryCall(
              new MethodHandlers<
                referee.v1.Referee.ReplayRequest,
                referee.v1.Referee.ReplayResponse>(
                  this, METHODID_REPLAY)))
          .build();
    }
  }

  /**
   * <pre>
   * A stateless referee for card games. Every request carries the game state;
   * the referee keeps nothing between calls.
   * Errors: illegal actions are verdicts in OK responses. gRPC errors are for
   * broken requests: INVALID_ARGUMENT (malformed or impossible state, action or
   * configuration; details carry google.rpc.BadRequest field violations, or an
   * ErrorInfo for a sealed token that cannot be opened), FAILED_PRECONDITION (a
   * rules version this server does not serve, RULES_VERSION_UNSUPPORTED: another
   * replica may; or what this server's policy refuses, STATE_SEAL_REQUIRED and
   * CLIENT_SEED_REFUSED: no replica takes it), RESOURCE_EXHAUSTED (overload,
   * limits), UNAUTHENTICATED / PERMISSION_DENIED. Program against the ErrorInfo
   * reason (docs/api.md lists them all).
   * </pre>
   */
  public static final class RefereeServiceStub extends io.grpc.stub.AbstractAsyncStub<RefereeServiceStub> {
    private RefereeServiceStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RefereeServiceStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RefereeServiceStub(channel, callOptions);
    }

    /**
     * <pre>
     * Every game this server referees, with its options and variants.
     * </pre>
     */
    public void listGames(referee.v1.Referee.ListGamesRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ListGamesResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getListGamesMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Create a match or session: the first deal is done.
     * </pre>
     */
    public void newGame(referee.v1.Referee.NewGameRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.NewGameResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getNewGameMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Referee one action.
     * </pre>
     */
    public void applyAction(referee.v1.Referee.ApplyActionRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ApplyActionResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getApplyActionMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Every action an actor may take now.
     * </pre>
     */
    public void legalActions(referee.v1.Referee.LegalActionsRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.LegalActionsResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getLegalActionsMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * What one viewer may see of a state.
     * </pre>
     */
    public void viewState(referee.v1.Referee.ViewStateRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ViewStateResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getViewStateMethod(), getCallOptions()), request, responseObserver);
    }

    /**
     * <pre>
     * Referee a whole list of actions from the start of a game.
     * </pre>
     */
    public void replay(referee.v1.Referee.ReplayRequest request,
        io.grpc.stub.StreamObserver<referee.v1.Referee.ReplayResponse> responseObserver) {
      io.grpc.stub.ClientCalls.asyncUnaryCall(
          getChannel().newCall(getReplayMethod(), getCallOptions()), request, responseObserver);
    }
  }

  /**
   * <pre>
   * A stateless referee for card games. Every request carries the game state;
   * the referee keeps nothing between calls.
   * Errors: illegal actions are verdicts in OK responses. gRPC errors are for
   * broken requests: INVALID_ARGUMENT (malformed or impossible state, action or
   * configuration; details carry google.rpc.BadRequest field violations, or an
   * ErrorInfo for a sealed token that cannot be opened), FAILED_PRECONDITION (a
   * rules version this server does not serve, RULES_VERSION_UNSUPPORTED: another
   * replica may; or what this server's policy refuses, STATE_SEAL_REQUIRED and
   * CLIENT_SEED_REFUSED: no replica takes it), RESOURCE_EXHAUSTED (overload,
   * limits), UNAUTHENTICATED / PERMISSION_DENIED. Program against the ErrorInfo
   * reason (docs/api.md lists them all).
   * </pre>
   */
  public static final class RefereeServiceBlockingStub extends io.grpc.stub.AbstractBlockingStub<RefereeServiceBlockingStub> {
    private RefereeServiceBlockingStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RefereeServiceBlockingStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RefereeServiceBlockingStub(channel, callOptions);
    }

    /**
     * <pre>
     * Every game this server referees, with its options and variants.
     * </pre>
     */
    public referee.v1.Referee.ListGamesResponse listGames(referee.v1.Referee.ListGamesRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getListGamesMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Create a match or session: the first deal is done.
     * </pre>
     */
    public referee.v1.Referee.NewGameResponse newGame(referee.v1.Referee.NewGameRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getNewGameMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Referee one action.
     * </pre>
     */
    public referee.v1.Referee.ApplyActionResponse applyAction(referee.v1.Referee.ApplyActionRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getApplyActionMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Every action an actor may take now.
     * </pre>
     */
    public referee.v1.Referee.LegalActionsResponse legalActions(referee.v1.Referee.LegalActionsRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getLegalActionsMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * What one viewer may see of a state.
     * </pre>
     */
    public referee.v1.Referee.ViewStateResponse viewState(referee.v1.Referee.ViewStateRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getViewStateMethod(), getCallOptions(), request);
    }

    /**
     * <pre>
     * Referee a whole list of actions from the start of a game.
     * </pre>
     */
    public referee.v1.Referee.ReplayResponse replay(referee.v1.Referee.ReplayRequest request) {
      return io.grpc.stub.ClientCalls.blockingUnaryCall(
          getChannel(), getReplayMethod(), getCallOptions(), request);
    }
  }

  /**
   * <pre>
   * A stateless referee for card games. Every request carries the game state;
   * the referee keeps nothing between calls.
   * Errors: illegal actions are verdicts in OK responses. gRPC errors are for
   * broken requests: INVALID_ARGUMENT (malformed or impossible state, action or
   * configuration; details carry google.rpc.BadRequest field violations, or an
   * ErrorInfo for a sealed token that cannot be opened), FAILED_PRECONDITION (a
   * rules version this server does not serve, RULES_VERSION_UNSUPPORTED: another
   * replica may; or what this server's policy refuses, STATE_SEAL_REQUIRED and
   * CLIENT_SEED_REFUSED: no replica takes it), RESOURCE_EXHAUSTED (overload,
   * limits), UNAUTHENTICATED / PERMISSION_DENIED. Program against the ErrorInfo
   * reason (docs/api.md lists them all).
   * </pre>
   */
  public static final class RefereeServiceFutureStub extends io.grpc.stub.AbstractFutureStub<RefereeServiceFutureStub> {
    private RefereeServiceFutureStub(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      super(channel, callOptions);
    }

    @java.lang.Override
    protected RefereeServiceFutureStub build(
        io.grpc.Channel channel, io.grpc.CallOptions callOptions) {
      return new RefereeServiceFutureStub(channel, callOptions);
    }

    /**
     * <pre>
     * Every game this server referees, with its options and variants.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<referee.v1.Referee.ListGamesResponse> listGames(
        referee.v1.Referee.ListGamesRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getListGamesMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Create a match or session: the first deal is done.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<referee.v1.Referee.NewGameResponse> newGame(
        referee.v1.Referee.NewGameRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getNewGameMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Referee one action.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<referee.v1.Referee.ApplyActionResponse> applyAction(
        referee.v1.Referee.ApplyActionRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getApplyActionMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Every action an actor may take now.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<referee.v1.Referee.LegalActionsResponse> legalActions(
        referee.v1.Referee.LegalActionsRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getLegalActionsMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * What one viewer may see of a state.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<referee.v1.Referee.ViewStateResponse> viewState(
        referee.v1.Referee.ViewStateRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getViewStateMethod(), getCallOptions()), request);
    }

    /**
     * <pre>
     * Referee a whole list of actions from the start of a game.
     * </pre>
     */
    public com.google.common.util.concurrent.ListenableFuture<referee.v1.Referee.ReplayResponse> replay(
        referee.v1.Referee.ReplayRequest request) {
      return io.grpc.stub.ClientCalls.futureUnaryCall(
          getChannel().newCall(getReplayMethod(), getCallOptions()), request);
    }
  }

  private static final int METHODID_LIST_GAMES = 0;
  private static final int METHODID_NEW_GAME = 1;
  private static final int METHODID_APPLY_ACTION = 2;
  private static final int METHODID_LEGAL_ACTIONS = 3;
  private static final int METHODID_VIEW_STATE = 4;
  private static final int METHODID_REPLAY = 5;

  private static final class MethodHandlers<Req, Resp> implements
      io.grpc.stub.ServerCalls.UnaryMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ServerStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.ClientStreamingMethod<Req, Resp>,
      io.grpc.stub.ServerCalls.BidiStreamingMethod<Req, Resp> {
    private final RefereeServiceImplBase serviceImpl;
    private final int methodId;

    MethodHandlers(RefereeServiceImplBase serviceImpl, int methodId) {
      this.serviceImpl = serviceImpl;
      this.methodId = methodId;
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public void invoke(Req request, io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        case METHODID_LIST_GAMES:
          serviceImpl.listGames((referee.v1.Referee.ListGamesRequest) request,
              (io.grpc.stub.StreamObserver<referee.v1.Referee.ListGamesResponse>) responseObserver);
          break;
        case METHODID_NEW_GAME:
          serviceImpl.newGame((referee.v1.Referee.NewGameRequest) request,
              (io.grpc.stub.StreamObserver<referee.v1.Referee.NewGameResponse>) responseObserver);
          break;
        case METHODID_APPLY_ACTION:
          serviceImpl.applyAction((referee.v1.Referee.ApplyActionRequest) request,
              (io.grpc.stub.StreamObserver<referee.v1.Referee.ApplyActionResponse>) responseObserver);
          break;
        case METHODID_LEGAL_ACTIONS:
          serviceImpl.legalActions((referee.v1.Referee.LegalActionsRequest) request,
              (io.grpc.stub.StreamObserver<referee.v1.Referee.LegalActionsResponse>) responseObserver);
          break;
        case METHODID_VIEW_STATE:
          serviceImpl.viewState((referee.v1.Referee.ViewStateRequest) request,
              (io.grpc.stub.StreamObserver<referee.v1.Referee.ViewStateResponse>) responseObserver);
          break;
        case METHODID_REPLAY:
          serviceImpl.replay((referee.v1.Referee.ReplayRequest) request,
              (io.grpc.stub.StreamObserver<referee.v1.Referee.ReplayResponse>) responseObserver);
          break;
        default:
          throw new AssertionError();
      }
    }

    @java.lang.Override
    @java.lang.SuppressWarnings("unchecked")
    public io.grpc.stub.StreamObserver<Req> invoke(
        io.grpc.stub.StreamObserver<Resp> responseObserver) {
      switch (methodId) {
        default:
          throw new AssertionError();
      }
    }
  }

  private static abstract class RefereeServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoFileDescriptorSupplier, io.grpc.protobuf.ProtoServiceDescriptorSupplier {
    RefereeServiceBaseDescriptorSupplier() {}

    @java.lang.Override
    public com.google.protobuf.Descriptors.FileDescriptor getFileDescriptor() {
      return referee.v1.Referee.getDescriptor();
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.ServiceDescriptor getServiceDescriptor() {
      return getFileDescriptor().findServiceByName("RefereeService");
    }
  }

  private static final class RefereeServiceFileDescriptorSupplier
      extends RefereeServiceBaseDescriptorSupplier {
    RefereeServiceFileDescriptorSupplier() {}
  }

  private static final class RefereeServiceMethodDescriptorSupplier
      extends RefereeServiceBaseDescriptorSupplier
      implements io.grpc.protobuf.ProtoMethodDescriptorSupplier {
    private final String methodName;

    RefereeServiceMethodDescriptorSupplier(String methodName) {
      this.methodName = methodName;
    }

    @java.lang.Override
    public com.google.protobuf.Descriptors.MethodDescriptor getMethodDescriptor() {
      return getServiceDescriptor().findMethodByName(methodName);
    }
  }

  private static volatile io.grpc.ServiceDescriptor serviceDescriptor;

  public static io.grpc.ServiceDescriptor getServiceDescriptor() {
    io.grpc.ServiceDescriptor result = serviceDescriptor;
    if (result == null) {
      synchronized (RefereeServiceGrpc.class) {
        result = serviceDescriptor;
        if (result == null) {
          serviceDescriptor = result = io.grpc.ServiceDescriptor.newBuilder(SERVICE_NAME)
              .setSchemaDescriptor(new RefereeServiceFileDescriptorSupplier())
              .addMethod(getListGamesMethod())
              .addMethod(getNewGameMethod())
              .addMethod(getApplyActionMethod())
              .addMethod(getLegalActionsMethod())
              .addMethod(getViewStateMethod())
              .addMethod(getReplayMethod())
              .build();
        }
      }
    }
    return result;
  }
}
