'use strict';
// The sample Node bot's strategy: pure functions from a DecisionRequest (as decoded by
// @grpc/proto-loader with keepCase, enums as strings, defaults, oneofs) to an Action.
//
// - Trump (rounds 2+): the suit with the best length + honours score (2 per card,
//   A=4 K=3 Q=2 J=1); no trump (only when allowed) with a weak best suit and 2+ aces.
// - Lead: a sure winner outside trumps (no higher card of its suit is unseen), else low
//   from the shortest side suit when holding trumps, else low from the longest suit.
// - Follow: the cheapest card that takes the trick (following suit before trumping in);
//   if nothing wins, the lowest card, side suits before trumps.
// - Dog's life (rules.md R18): play the one card when it takes the trick now (or, when
//   leading, when it is a sure winner or a high trump), else pass. Passing is never legal
//   on the last trick, so the dog plays there.

const RANK = {
  TWO: 2, THREE: 3, FOUR: 4, FIVE: 5, SIX: 6, SEVEN: 7, EIGHT: 8,
  NINE: 9, TEN: 10, JACK: 11, QUEEN: 12, KING: 13, ACE: 14,
};
const SUITS = ['SPADES', 'HEARTS', 'DIAMONDS', 'CLUBS']; // suit order, for ties
const HONOURS = { ACE: 4, KING: 3, QUEEN: 2, JACK: 1 };

const rank = (card) => RANK[card.rank];
const key = (card) => `${card.rank}/${card.suit}`;

// Whether `card`, played after `best` (the card winning so far), takes the trick (R13).
function beats(card, best, trump) {
  if (card.suit === best.suit) return rank(card) > rank(best);
  return trump !== null && card.suit === trump;
}

// The card winning `trick` so far, or null when no card has been played face up to it (a
// dog's face-down card under dog_play = "first_trick" shows no card until the trick is
// complete; docs/rules.md W24).
function winningCard(trick, trump) {
  let best = null;
  for (const play of (trick && trick.plays) || []) {
    if (!play.card || play.passed || play.face_down) continue;
    if (best === null || beats(play.card, best, trump)) best = play.card;
  }
  return best;
}

// Cards not in this hand, not played this round and not the turn-up.
function unseenCards(view) {
  const seen = new Set(view.hand.map(key));
  if (view.turn_up) seen.add(key(view.turn_up));
  const tricks = [...view.completed_tricks];
  if (view.current_trick) tricks.push(view.current_trick);
  for (const trick of tricks) {
    for (const play of trick.plays) if (play.card) seen.add(key(play.card));
  }
  const unseen = [];
  for (const suit of SUITS) {
    for (const name of Object.keys(RANK)) {
      const card = { rank: name, suit };
      if (!seen.has(key(card))) unseen.push(card);
    }
  }
  return unseen;
}

// No unseen card of the same suit ranks higher.
function isMaster(card, unseen) {
  return !unseen.some((other) => other.suit === card.suit && rank(other) > rank(card));
}

function suitScore(hand, suit) {
  return hand
    .filter((card) => card.suit === suit)
    .reduce((score, card) => score + 2 + (HONOURS[card.rank] || 0), 0);
}

// Smallest by (is trump, rank, suit order).
function lowest(cards, trump) {
  const cost = (card) => (card.suit === trump ? 100 : 0) + rank(card) + SUITS.indexOf(card.suit) / 10;
  return cards.reduce((best, card) => (cost(card) < cost(best) ? card : best));
}

function chooseTrump(view, legal) {
  const choices = legal.filter((action) => action.choose_trump);
  const suits = choices.map((action) => action.choose_trump.suit).filter((suit) => SUITS.includes(suit));
  if (suits.length === 0) return choices[0] || legal[0];
  let best = suits[0];
  for (const suit of suits) {
    const better = suitScore(view.hand, suit) - suitScore(view.hand, best);
    if (better > 0 || (better === 0 && SUITS.indexOf(suit) < SUITS.indexOf(best))) best = suit;
  }
  const noTrump = choices.find((action) => action.choose_trump.no_trump);
  const aces = view.hand.filter((card) => card.rank === 'ACE').length;
  if (noTrump && suitScore(view.hand, best) < 6 && aces >= 2) return { choose_trump: { no_trump: true } };
  return { choose_trump: { suit: best } };
}

function lead(cards, trump, unseen) {
  const side = cards.filter((card) => card.suit !== trump);
  const masters = side.filter((card) => isMaster(card, unseen));
  if (masters.length) return masters.reduce((a, b) => (rank(b) > rank(a) ? b : a));
  if (side.length === 0) {
    const top = cards.reduce((a, b) => (rank(b) > rank(a) ? b : a));
    return isMaster(top, unseen) ? top : lowest(cards, trump);
  }
  const length = (suit) => side.filter((card) => card.suit === suit).length;
  const holdsTrump = side.length < cards.length;
  const suits = [...new Set(side.map((card) => card.suit))];
  // With trumps in hand, shorten a side suit to trump it later; else play the long suit.
  const pick = suits.reduce((a, b) => {
    const diff = holdsTrump ? length(a) - length(b) : length(b) - length(a);
    return diff > 0 || (diff === 0 && SUITS.indexOf(b) < SUITS.indexOf(a)) ? b : a;
  });
  return lowest(side.filter((card) => card.suit === pick), trump);
}

function playCard(view, legal) {
  const cards = legal.filter((action) => action.play).map((action) => action.play);
  const pass = legal.find((action) => action.pass_trick);
  if (cards.length === 0) return legal[0];
  const trump = view.trump_state === 'TRUMP_STATE_SUIT' ? view.trump : null;
  const winning = winningCard(view.current_trick, trump);
  const unseen = unseenCards(view);
  let card;
  if (pass) {
    // The dog's life: one card, choose the trick to play it on.
    const mine = cards[0];
    const strong = winning === null
      ? isMaster(mine, unseen) || (mine.suit === trump && rank(mine) >= RANK.QUEEN)
      : beats(mine, winning, trump);
    return strong ? { play: mine } : { pass_trick: {} };
  }
  if (winning === null) {
    card = lead(cards, trump, unseen);
  } else {
    const takers = cards.filter((c) => beats(c, winning, trump));
    card = lowest(takers.length ? takers : cards, trump);
  }
  return { play: card };
}

// The Action answering `request` (a decoded DecisionRequest). Always one of request.legal.
function decide(request) {
  const view = request.view;
  if (request.decision === 'CHOOSE_TRUMP') return chooseTrump(view, request.legal);
  return playCard(view, request.legal);
}

module.exports = { decide, beats, winningCard, unseenCards };
