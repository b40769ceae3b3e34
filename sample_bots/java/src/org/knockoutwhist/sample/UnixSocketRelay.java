package org.knockoutwhist.sample;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.local.LocalAddress;
import io.netty.channel.local.LocalChannel;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Serves a Unix socket (Java 16+) for a gRPC server on netty's in-process transport: each
 * connection accepted on the socket is joined to a new in-process connection to the server, and
 * bytes are copied both ways until either side closes. With a netty that has its native epoll
 * transport, {@code EpollServerDomainSocketChannel} would make this unnecessary; Debian's netty
 * has none.
 */
final class UnixSocketRelay implements AutoCloseable {
  private static final int BUFFER_BYTES = 64 * 1024;

  private final ServerSocketChannel listener;
  private final LocalAddress server;
  private final EventLoopGroup loops;

  private UnixSocketRelay(ServerSocketChannel listener, LocalAddress server, EventLoopGroup loops) {
    this.listener = listener;
    this.server = server;
    this.loops = loops;
  }

  /** Listens on {@code path} (replacing a socket left there) and relays to {@code server}. */
  static UnixSocketRelay start(Path path, LocalAddress server, EventLoopGroup loops) throws IOException {
    Files.deleteIfExists(path);
    ServerSocketChannel listener = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
    listener.bind(UnixDomainSocketAddress.of(path));
    UnixSocketRelay relay = new UnixSocketRelay(listener, server, loops);
    Thread accepting = new Thread(relay::acceptLoop, "unix-socket-accept");
    accepting.setDaemon(true);
    accepting.start();
    return relay;
  }

  private void acceptLoop() {
    while (listener.isOpen()) {
      try {
        SocketChannel client = listener.accept();
        join(client);
      } catch (IOException | InterruptedException error) {
        if (listener.isOpen()) {
          System.err.println("java-sample: relay: " + error);
        }
      }
    }
  }

  /** Connects {@code client} to the server: server -> client on netty's event loop, client ->
   * server on a thread of its own. */
  private void join(SocketChannel client) throws InterruptedException {
    Channel inside =
        new Bootstrap()
            .group(loops)
            .channel(LocalChannel.class)
            .handler(
                new ChannelInboundHandlerAdapter() {
                  @Override
                  public void channelRead(ChannelHandlerContext context, Object message) {
                    ByteBuf bytes = (ByteBuf) message;
                    try {
                      for (ByteBuffer chunk : bytes.nioBuffers()) {
                        while (chunk.hasRemaining()) {
                          client.write(chunk);
                        }
                      }
                    } catch (IOException error) {
                      context.close();
                    } finally {
                      bytes.release();
                    }
                  }

                  @Override
                  public void channelInactive(ChannelHandlerContext context) {
                    closeQuietly(client);
                  }
                })
            .connect(server)
            .sync()
            .channel();
    Thread reading =
        new Thread(
            () -> {
              ByteBuffer buffer = ByteBuffer.allocate(BUFFER_BYTES);
              try {
                while (client.read(buffer) >= 0) {
                  buffer.flip();
                  inside.writeAndFlush(Unpooled.copiedBuffer(buffer));
                  buffer.clear();
                }
              } catch (IOException ignored) {
                // the client went away: close the in-process side too
              }
              inside.close();
              closeQuietly(client);
            },
            "unix-socket-read");
    reading.setDaemon(true);
    reading.start();
  }

  private static void closeQuietly(SocketChannel channel) {
    try {
      channel.close();
    } catch (IOException ignored) {
      // already closed
    }
  }

  @Override
  public void close() {
    try {
      listener.close();
    } catch (IOException ignored) {
      // already closed
    }
  }
}
