package org.knockoutwhist.sample;

import java.util.ArrayList;
import java.util.List;
import org.knockoutwhist.v1.Action;
import org.knockoutwhist.v1.Card;
import org.knockoutwhist.v1.DecisionKind;
import org.knockoutwhist.v1.DecisionRequest;
import org.knockoutwhist.v1.SeatView;
import org.knockoutwhist.v1.Suit;
import org.knockoutwhist.v1.TrickPlay;

/**
 * The Java sample bot's decisions: a pure function from a DecisionRequest to one of its legal
 * actions (docs/protocol.md, "Legal actions"). The same strategy as the Go sample:
 *
 * <ul>
 *   <li>Trump (rounds 2+): the suit this hand holds most of, ties by the sum of its ranks.
 *   <li>Lead: the highest card.
 *   <li>Follow: the cheapest card that takes the trick; if none does, the lowest card, side
 *       suits before trumps.
 *   <li>Dog's life (docs/rules.md R18): play the one card when it takes the trick now (or when
 *       leading), else pass. A dog is never offered a pass on the last trick.
 * </ul>
 */
public final class Strategy {
  private Strategy() {}

  /** Whether {@code card}, played after {@code best} (winning so far), takes the trick (R13). */
  static boolean beats(Card card, Card best, Suit trump) {
    if (card.getSuit() == best.getSuit()) {
      return card.getRankValue() > best.getRankValue();
    }
    return trump != Suit.SUIT_UNSPECIFIED && card.getSuit() == trump;
  }

  /** The card winning the current trick so far, or null before its first card. */
  static Card winning(SeatView view) {
    Card best = null;
    for (TrickPlay play : view.getCurrentTrick().getPlaysList()) {
      if (!play.hasCard() || play.getPassed()) {
        continue;
      }
      if (best == null || beats(play.getCard(), best, view.getTrump())) {
        best = play.getCard();
      }
    }
    return best;
  }

  /** Orders cards from the cheapest to throw: side suits before trumps, low before high. */
  static int cost(Card card, Suit trump) {
    int value = card.getRankValue() * 10 + card.getSuitValue();
    if (trump != Suit.SUIT_UNSPECIFIED && card.getSuit() == trump) {
      value += 1000;
    }
    return value;
  }

  /** One of {@code request}'s legal actions. */
  public static Action decide(DecisionRequest request) {
    List<Action> legal = request.getLegalList();
    if (request.getDecision() == DecisionKind.CHOOSE_TRUMP) {
      return chooseTrump(request.getView(), legal);
    }
    SeatView view = request.getView();
    Action pass = null;
    List<Action> plays = new ArrayList<>();
    for (Action action : legal) {
      if (action.hasPassTrick()) {
        pass = action;
      } else if (action.hasPlay()) {
        plays.add(action);
      }
    }
    if (plays.isEmpty()) {
      return legal.get(0);
    }
    Card best = winning(view);
    if (best == null) { // leading: the highest card
      Action highest = plays.get(0);
      for (Action action : plays) {
        if (action.getPlay().getRankValue() > highest.getPlay().getRankValue()) {
          highest = action;
        }
      }
      return highest;
    }
    Suit trump = view.getTrump();
    Action cheapest = null;
    Action lowest = null;
    for (Action action : plays) {
      Card card = action.getPlay();
      if (beats(card, best, trump) && (cheapest == null || cost(card, trump) < cost(cheapest.getPlay(), trump))) {
        cheapest = action;
      }
      if (lowest == null || cost(card, trump) < cost(lowest.getPlay(), trump)) {
        lowest = action;
      }
    }
    if (cheapest != null) {
      return cheapest;
    }
    if (pass != null) { // on the dog's life: keep the card for a trick it can take
      return pass;
    }
    return lowest;
  }

  /** The suit held most (ties: the higher sum of ranks, then suit order). */
  static Action chooseTrump(SeatView view, List<Action> legal) {
    Action best = null;
    int bestScore = -1;
    for (Action action : legal) {
      Suit suit = action.getChooseTrump().getSuit();
      if (suit == Suit.SUIT_UNSPECIFIED) { // the no-trump choice, when the rules allow it
        continue;
      }
      int score = 0;
      for (Card card : view.getHandList()) {
        if (card.getSuit() == suit) {
          score += 100 + card.getRankValue();
        }
      }
      if (score > bestScore) {
        best = action;
        bestScore = score;
      }
    }
    return best != null ? best : legal.get(0);
  }
}
