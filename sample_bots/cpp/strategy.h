// The C++ sample bot's strategy: a pure function from a DecisionRequest to an Action.
#pragma once

#include "knockout_whist/v1/bot.pb.h"

namespace kwhist {

// The answer to `request`; always one of request.legal() (rules.md R12, R18, R8).
//  - Trump (rounds 2+): the longest suit, ties by suit order (S, H, D, C); never no trump
//    unless it is the only choice.
//  - Lead: a side-suit ace if held, else the lowest card (side suits before trumps).
//  - Follow: the lowest card that takes the trick (side suits before trumps); if none
//    does, the lowest card.
//  - Dog's life: play the one card when it takes the trick now, else pass (a dog may
//    not pass on the last trick, so it plays there).
knockout_whist::v1::Action Decide(const knockout_whist::v1::DecisionRequest& request);

}  // namespace kwhist
