#include "strategy.h"

#include <optional>
#include <vector>

namespace kwhist {
namespace {

using knockout_whist::v1::Action;
using knockout_whist::v1::Card;
using knockout_whist::v1::DecisionRequest;
using knockout_whist::v1::SeatView;
using knockout_whist::v1::Suit;
using knockout_whist::v1::Trick;

// Whether `card`, played after `best` (the card winning so far), takes the trick (R13).
bool Beats(const Card& card, const Card& best, Suit trump) {
  if (card.suit() == best.suit()) return card.rank() > best.rank();
  return trump != knockout_whist::v1::SUIT_UNSPECIFIED && card.suit() == trump;
}

// The card winning the current trick so far, if any card has been played face up to it
// (a dog's face-down card under dog_play = "first_trick" is not shown until the trick is
// complete; docs/rules.md W24).
std::optional<Card> Winning(const SeatView& view, Suit trump) {
  std::optional<Card> best;
  if (!view.has_current_trick()) return best;
  for (const auto& play : view.current_trick().plays()) {
    if (play.passed() || play.face_down() || !play.has_card()) continue;
    if (!best || Beats(play.card(), *best, trump)) best = play.card();
  }
  return best;
}

// Cheaper first: side suits before trumps, then lower rank, then suit order.
bool Cheaper(const Card& a, const Card& b, Suit trump) {
  const bool a_trump = a.suit() == trump, b_trump = b.suit() == trump;
  if (a_trump != b_trump) return !a_trump;
  if (a.rank() != b.rank()) return a.rank() < b.rank();
  return a.suit() < b.suit();
}

Card Lowest(const std::vector<Card>& cards, Suit trump) {
  Card best = cards.front();
  for (const auto& card : cards)
    if (Cheaper(card, best, trump)) best = card;
  return best;
}

Action PlayOf(const Card& card) {
  Action action;
  *action.mutable_play() = card;
  return action;
}

Action ChooseTrump(const DecisionRequest& request) {
  std::optional<Suit> best;
  int best_length = -1;
  for (const auto& legal : request.legal()) {
    if (!legal.has_choose_trump() || !legal.choose_trump().has_suit()) continue;
    const Suit suit = legal.choose_trump().suit();
    int length = 0;
    for (const auto& card : request.view().hand()) length += card.suit() == suit ? 1 : 0;
    if (length > best_length || (length == best_length && suit < *best)) {
      best = suit;
      best_length = length;
    }
  }
  if (!best) return request.legal(0);  // only no trump is offered
  Action action;
  action.mutable_choose_trump()->set_suit(*best);
  return action;
}

Action PlayCard(const DecisionRequest& request) {
  const SeatView& view = request.view();
  const Suit trump = view.trump_state() == knockout_whist::v1::TRUMP_STATE_SUIT ? view.trump()
                                                                                : knockout_whist::v1::SUIT_UNSPECIFIED;
  std::vector<Card> cards;
  bool can_pass = false;
  for (const auto& legal : request.legal()) {
    if (legal.has_play()) cards.push_back(legal.play());
    if (legal.has_pass_trick()) can_pass = true;
  }
  if (cards.empty()) return request.legal(0);
  const std::optional<Card> winning = Winning(view, trump);
  if (can_pass) {  // the dog's life: one card, choose the trick to play it on
    const Card& mine = cards.front();
    const bool takes = winning ? Beats(mine, *winning, trump)
                               : mine.rank() == knockout_whist::v1::ACE && mine.suit() != trump;
    if (takes) return PlayOf(mine);
    Action pass;
    pass.mutable_pass_trick();
    return pass;
  }
  if (!winning) {
    for (const auto& card : cards)
      if (card.rank() == knockout_whist::v1::ACE && card.suit() != trump) return PlayOf(card);
    return PlayOf(Lowest(cards, trump));
  }
  std::vector<Card> takers;
  for (const auto& card : cards)
    if (Beats(card, *winning, trump)) takers.push_back(card);
  return PlayOf(Lowest(takers.empty() ? cards : takers, trump));
}

}  // namespace

Action Decide(const DecisionRequest& request) {
  if (request.legal_size() == 0) return Action();  // nothing is legal: cannot happen
  if (request.decision() == knockout_whist::v1::CHOOSE_TRUMP) return ChooseTrump(request);
  return PlayCard(request);
}

}  // namespace kwhist
