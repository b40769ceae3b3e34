// My first Knockout Whist bot in Go: play my lowest legal card, name my longest suit trump.
//
// Build: see "Go" in docs/protocol.md (the generated package is kwhist/knockout_whist/v1).
// Run it:  KWHIST_LISTEN=unix:/tmp/first.sock ./first-bot
// Play it: referee play ./first-bot heuristic random --trace
package main

import (
	"context"
	"log"
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"

	pb "kwhist/knockout_whist/v1"

	"google.golang.org/grpc"
)

type firstBot struct {
	pb.UnimplementedKnockoutWhistBotServer // GameOver (and anything added later) answers UNIMPLEMENTED
}

func (firstBot) Hello(ctx context.Context, request *pb.HelloRequest) (*pb.HelloReply, error) {
	return &pb.HelloReply{ProtocolMajor: 1, ProtocolMinor: 0, Name: "first-go-bot", Author: "me"}, nil
}

// Decide returns one of request.Legal: any copy of a legal action will do.
func (firstBot) Decide(ctx context.Context, request *pb.DecisionRequest) (*pb.Action, error) {
	var best *pb.Action
	if request.Decision == pb.DecisionKind_CHOOSE_TRUMP {
		bestCount := -1
		for _, action := range request.Legal {
			suit := action.GetChooseTrump().GetSuit() // SUIT_UNSPECIFIED for the no-trump choice
			count := 0
			for _, card := range request.View.Hand {
				if card.Suit == suit {
					count++
				}
			}
			if suit != pb.Suit_SUIT_UNSPECIFIED && count > bestCount {
				best, bestCount = action, count
			}
		}
	} else {
		for _, action := range request.Legal { // a dog may also pass: this bot never does
			if card := action.GetPlay(); card != nil && (best == nil || card.Rank < best.GetPlay().Rank) {
				best = action
			}
		}
	}
	if best == nil {
		best = request.Legal[0]
	}
	return best, nil
}

func main() {
	address := os.Getenv("KWHIST_LISTEN") // "unix:/path/bot.sock" or "host:port"
	network, path := "tcp", address
	if strings.HasPrefix(address, "unix:") {
		network, path = "unix", strings.TrimPrefix(address, "unix:")
	}
	listener, err := net.Listen(network, path)
	if err != nil {
		log.Fatalf("first-go-bot: cannot listen on %q: %v", address, err)
	}
	server := grpc.NewServer()
	pb.RegisterKnockoutWhistBotServer(server, firstBot{})
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-stop; server.GracefulStop() }()
	if err := server.Serve(listener); err != nil {
		log.Fatal(err)
	}
}
