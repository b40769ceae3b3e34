// The Go sample bot: a gRPC server for knockout_whist.v1.KnockoutWhistBot (docs/protocol.md).
//
// Build it with `make bots` (Debian: golang-go protoc-gen-go protoc-gen-go-grpc
// golang-google-grpc-dev golang-github-golang-protobuf-1-5-dev; see README.md), then:
//
//	KWHIST_LISTEN=unix:/tmp/go.sock sample_bots/go/build/kwhist_go_bot   # or --listen 127.0.0.1:50051
//	referee play sample_bots/go/build/kwhist_go_bot heuristic random --trace
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	pb "kwhist/knockout_whist/v1"

	"google.golang.org/grpc"
)

// bot implements the service's methods; it keeps no state between calls.
type bot struct {
	pb.UnimplementedKnockoutWhistBotServer
}

func (bot) Hello(ctx context.Context, request *pb.HelloRequest) (*pb.HelloReply, error) {
	return &pb.HelloReply{ProtocolMajor: 1, ProtocolMinor: 1, Name: "go-sample", Author: "Knockout Whist Referee", PlaysStreams: true}, nil
}

func (bot) Decide(ctx context.Context, request *pb.DecisionRequest) (*pb.Action, error) {
	return Decide(request), nil
}

// Play answers one seat of one game on one stream (protocol 1.1, asked because Hello says
// PlaysStreams): each request in order, echoing its decision number. It returns when the
// referee ends the stream (the game is over) or cancels it (after a fault the referee asks
// the seat's next decision on a new stream).
func (bot) Play(stream pb.KnockoutWhistBot_PlayServer) error {
	for {
		request, err := stream.Recv()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		answer := &pb.Answer{DecisionNumber: request.DecisionNumber, Action: Decide(request)}
		if err := stream.Send(answer); err != nil {
			return err
		}
	}
}

func (bot) GameOver(ctx context.Context, summary *pb.GameSummary) (*pb.Ack, error) {
	return &pb.Ack{}, nil
}

// listen serves on "unix:/path" (a Unix socket) or "host:port" (TCP), the forms of KWHIST_LISTEN.
func listen(address string) (net.Listener, error) {
	if strings.HasPrefix(address, "unix:") {
		path := strings.TrimPrefix(address, "unix:")
		os.Remove(path) // a socket left by an earlier run
		return net.Listen("unix", path)
	}
	return net.Listen("tcp", address)
}

func main() {
	address := flag.String("listen", os.Getenv("KWHIST_LISTEN"), "address to serve on: unix:/path or host:port (default $KWHIST_LISTEN)")
	flag.Parse()
	if *address == "" {
		fmt.Fprintln(os.Stderr, "go-sample: set KWHIST_LISTEN (or --listen) to unix:/path or host:port")
		os.Exit(2)
	}
	listener, err := listen(*address)
	if err != nil {
		fmt.Fprintf(os.Stderr, "go-sample: cannot listen on %s: %v\n", *address, err)
		os.Exit(2)
	}
	server := grpc.NewServer()
	pb.RegisterKnockoutWhistBotServer(server, bot{})
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		<-signals
		server.GracefulStop() // Serve then returns nil
	}()
	fmt.Fprintf(os.Stderr, "go-sample: serving on %s\n", *address)
	if err := server.Serve(listener); err != nil {
		fmt.Fprintf(os.Stderr, "go-sample: %v\n", err)
		os.Exit(1)
	}
}
