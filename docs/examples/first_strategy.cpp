// My first C++ strategy: play my lowest legal card, name my longest suit trump.
// It replaces strategy.cpp in a copy of sample_bots/cpp (main.cpp serves it over gRPC).
#include "strategy.h"

namespace kwhist {

using knockout_whist::v1::Action;
using knockout_whist::v1::DecisionRequest;

Action Decide(const DecisionRequest& request) {
  const Action* best = nullptr;  // the answer is always one of request.legal()
  if (request.decision() == knockout_whist::v1::CHOOSE_TRUMP) {
    int best_count = -1;
    for (const Action& action : request.legal()) {
      if (!action.choose_trump().has_suit()) continue;  // the no-trump choice, when allowed
      int count = 0;
      for (const auto& card : request.view().hand()) count += card.suit() == action.choose_trump().suit();
      if (count > best_count) best = &action, best_count = count;
    }
  } else {
    for (const Action& action : request.legal())  // a dog may also pass: this bot never does
      if (action.has_play() && (best == nullptr || action.play().rank() < best->play().rank())) best = &action;
  }
  return best != nullptr ? *best : request.legal(0);
}

}  // namespace kwhist
