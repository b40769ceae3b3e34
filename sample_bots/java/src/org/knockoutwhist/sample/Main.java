package org.knockoutwhist.sample;

import io.grpc.Server;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalServerChannel;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.knockoutwhist.v1.Ack;
import org.knockoutwhist.v1.Action;
import org.knockoutwhist.v1.Answer;
import org.knockoutwhist.v1.DecisionRequest;
import org.knockoutwhist.v1.GameSummary;
import org.knockoutwhist.v1.HelloReply;
import org.knockoutwhist.v1.HelloRequest;
import org.knockoutwhist.v1.KnockoutWhistBotGrpc;

/**
 * The Java sample bot: a gRPC server for knockout_whist.v1.KnockoutWhistBot (docs/protocol.md).
 *
 * <p>Built from Debian's packages by {@code make bots} (README.md), then:
 *
 * <pre>
 *   KWHIST_LISTEN=unix:/tmp/java.sock java -jar sample_bots/java/build/kwhist-java-bot.jar
 *   referee play java heuristic random --trace
 * </pre>
 *
 * <p>On {@code unix:PATH} the gRPC server runs on netty's in-process transport and
 * {@link UnixSocketRelay} carries each connection of the Unix socket to it: Debian's netty has
 * no native epoll library, so netty cannot listen on a Unix socket itself, while Java 16+ can.
 * On {@code host:port} netty serves TCP directly.
 */
public final class Main {
  // netty's notices (no hardware address in the sandbox, a TCP option the in-process
  // transport ignores) would fill the bot's log; held here, as the logging system keeps
  // its loggers only weakly
  private static final Logger NETTY = Logger.getLogger("io.netty");

  private Main() {}

  /** The methods of the service; it keeps no state between calls. */
  static final class Bot extends KnockoutWhistBotGrpc.KnockoutWhistBotImplBase {
    @Override
    public void hello(HelloRequest request, StreamObserver<HelloReply> reply) {
      reply.onNext(
          HelloReply.newBuilder()
              .setProtocolMajor(1)
              .setProtocolMinor(1) // 1.1: Play, one stream per seat and game
              .setName("java-sample")
              .setAuthor("Knockout Whist Referee")
              .setPlaysStreams(true)
              .build());
      reply.onCompleted();
    }

    @Override
    public void decide(DecisionRequest request, StreamObserver<Action> reply) {
      reply.onNext(Strategy.decide(request));
      reply.onCompleted();
    }

    /**
     * One seat of one game on one stream (protocol 1.1, asked because Hello says plays_streams):
     * each request in order, answered with its decision number. The referee ends the stream when
     * the game is over, or cancels it after a fault (onError) and asks the seat's next decision
     * on a new stream. If {@code Strategy.decide} throws, gRPC ends the stream with an error.
     */
    @Override
    public StreamObserver<DecisionRequest> play(StreamObserver<Answer> answers) {
      return new StreamObserver<DecisionRequest>() {
        @Override
        public void onNext(DecisionRequest request) {
          answers.onNext(
              Answer.newBuilder()
                  .setDecisionNumber(request.getDecisionNumber())
                  .setAction(Strategy.decide(request))
                  .build());
        }

        @Override
        public void onError(Throwable cancelled) {}

        @Override
        public void onCompleted() {
          answers.onCompleted();
        }
      };
    }

    @Override
    public void gameOver(GameSummary summary, StreamObserver<Ack> reply) {
      reply.onNext(Ack.getDefaultInstance());
      reply.onCompleted();
    }
  }

  public static void main(String[] args) throws Exception {
    NETTY.setLevel(Level.SEVERE);
    String address = System.getenv("KWHIST_LISTEN");
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals("--listen")) {
        address = args[i + 1];
      }
    }
    if (address == null || address.isEmpty()) {
      System.err.println("java-sample: set KWHIST_LISTEN (or --listen) to unix:/path or host:port");
      System.exit(2);
    }
    Server server;
    UnixSocketRelay relay = null;
    if (address.startsWith("unix:")) {
      LocalAddress inside = new LocalAddress("kwhist-java-sample");
      EventLoopGroup loops = new DefaultEventLoopGroup(2);
      server =
          NettyServerBuilder.forAddress(inside)
              .channelType(LocalServerChannel.class)
              .bossEventLoopGroup(loops)
              .workerEventLoopGroup(loops)
              .addService(new Bot())
              .build()
              .start();
      relay = UnixSocketRelay.start(Path.of(address.substring("unix:".length())), inside, loops);
    } else {
      int colon = address.lastIndexOf(':');
      InetSocketAddress tcp =
          new InetSocketAddress(address.substring(0, colon), Integer.parseInt(address.substring(colon + 1)));
      server = NettyServerBuilder.forAddress(tcp).addService(new Bot()).build().start();
    }
    Server serving = server;
    UnixSocketRelay closing = relay;
    Runtime.getRuntime()
        .addShutdownHook( // SIGTERM, SIGINT
            new Thread(
                () -> {
                  if (closing != null) {
                    closing.close();
                  }
                  serving.shutdown();
                  try {
                    serving.awaitTermination(1, TimeUnit.SECONDS);
                  } catch (InterruptedException ignored) {
                    Thread.currentThread().interrupt();
                  }
                }));
    System.err.println("java-sample: serving on " + address);
    server.awaitTermination();
  }
}
