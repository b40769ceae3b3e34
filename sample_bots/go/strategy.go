package main

// The Go sample bot's strategy: a pure function from a DecisionRequest to an Action, one
// of request.Legal (docs/protocol.md, "Legal actions").
//
//   - Trump (rounds 2+): the suit this hand holds most of, ties by the sum of its ranks.
//   - Lead: the highest card.
//   - Follow: the cheapest card that takes the trick; if none does, the lowest card,
//     side suits before trumps.
//   - Dog's life (docs/rules.md R18): play the one card when it takes the trick now (or
//     when leading), else pass. A dog is never offered a pass on the last trick.

import pb "kwhist/knockout_whist/v1"

// beats tells whether card, played after best (the card winning so far), takes the trick (R13).
func beats(card, best *pb.Card, trump pb.Suit) bool {
	if card.Suit == best.Suit {
		return card.Rank > best.Rank
	}
	return trump != pb.Suit_SUIT_UNSPECIFIED && card.Suit == trump
}

// winning is the card winning the current trick so far, or nil before its first card.
func winning(view *pb.SeatView) *pb.Card {
	var best *pb.Card
	for _, play := range view.GetCurrentTrick().GetPlays() {
		if play.Card == nil || play.Passed {
			continue
		}
		if best == nil || beats(play.Card, best, view.Trump) {
			best = play.Card
		}
	}
	return best
}

// cost orders cards from the cheapest to throw: side suits before trumps, low before high.
func cost(card *pb.Card, trump pb.Suit) int {
	value := int(card.Rank)*10 + int(card.Suit)
	if trump != pb.Suit_SUIT_UNSPECIFIED && card.Suit == trump {
		value += 1000
	}
	return value
}

// Decide answers one request with one of its legal actions.
func Decide(request *pb.DecisionRequest) *pb.Action {
	legal := request.Legal
	if request.Decision == pb.DecisionKind_CHOOSE_TRUMP {
		return chooseTrump(request.View, legal)
	}
	view := request.View
	var pass *pb.Action
	var plays []*pb.Action
	for _, action := range legal {
		switch {
		case action.GetPassTrick() != nil:
			pass = action
		case action.GetPlay() != nil:
			plays = append(plays, action)
		}
	}
	if len(plays) == 0 {
		return legal[0]
	}
	best := winning(view)
	if best == nil { // leading: the highest card
		highest := plays[0]
		for _, action := range plays[1:] {
			if action.GetPlay().Rank > highest.GetPlay().Rank {
				highest = action
			}
		}
		return highest
	}
	var cheapest, lowest *pb.Action
	for _, action := range plays {
		card := action.GetPlay()
		if beats(card, best, view.Trump) && (cheapest == nil || cost(card, view.Trump) < cost(cheapest.GetPlay(), view.Trump)) {
			cheapest = action
		}
		if lowest == nil || cost(card, view.Trump) < cost(lowest.GetPlay(), view.Trump) {
			lowest = action
		}
	}
	if cheapest != nil {
		return cheapest
	}
	if pass != nil { // on the dog's life: keep the card for a trick it can take
		return pass
	}
	return lowest
}

// chooseTrump names the suit held most (ties: the higher sum of ranks, then suit order).
func chooseTrump(view *pb.SeatView, legal []*pb.Action) *pb.Action {
	var best *pb.Action
	bestScore := -1
	for _, action := range legal {
		suit := action.GetChooseTrump().GetSuit()
		if suit == pb.Suit_SUIT_UNSPECIFIED { // the no-trump choice, when the rules allow it
			continue
		}
		score := 0
		for _, card := range view.Hand {
			if card.Suit == suit {
				score += 100 + int(card.Rank)
			}
		}
		if score > bestScore {
			best, bestScore = action, score
		}
	}
	if best == nil {
		return legal[0]
	}
	return best
}
