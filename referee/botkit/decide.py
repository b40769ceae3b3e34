"""One decision on the bot's side: the request becomes a :class:`SeatView` (by
``referee.transport.decode``), the bot is asked, its answer becomes an ``Action`` message.
"""

from __future__ import annotations

import time

from referee._proto.knockout_whist.v1 import bot_pb2 as pb
from referee.botkit.bot import Bot, TimeLeft
from referee.game.cards import Card, Suit
from referee.game.views import Action, ChooseTrump, DecisionKind, Pass, Play
from referee.transport import decode


def decide(bot: Bot, request: pb.DecisionRequest, received_s: float | None = None) -> pb.Action:
    """Decode ``request``, tell ``bot`` the events (:meth:`Bot.observe`), the time of its
    previous decision (:meth:`Bot.observe_time`) and the time this one may take
    (:meth:`Bot.observe_time_left`; ``received_s``: when the request came, on
    ``time.monotonic()``, default now), ask it to choose trump or play, and encode its
    answer. Raises TypeError when the bot answers with something other than a Suit / Card /
    None, ValueError (or ``MalformedReply``) for a request that cannot be decoded."""
    received_s = time.monotonic() if received_s is None else received_s
    view, events = decode.request_to_view(request)
    bot.observe(view, events)
    bot.observe_time(view, request.last_decision_ms if request.HasField("last_decision_ms") else None)
    bot.observe_time_left(view, TimeLeft(request.time_left_ms, request.bank_left_ms, received_s))
    action: Action
    if view.decision is DecisionKind.CHOOSE_TRUMP:
        suit = bot.choose_trump(view)
        if suit is not None and not isinstance(suit, Suit):
            raise TypeError(f"choose_trump() returned {suit!r}; expected a Suit or None (no trump)")
        action = ChooseTrump(suit)
    else:
        card = bot.play(view)
        if card is not None and not isinstance(card, Card):
            raise TypeError(f"play() returned {card!r}; expected a Card or None (pass)")
        action = Pass() if card is None else Play(card)
    return decode.action_to_proto(action)
