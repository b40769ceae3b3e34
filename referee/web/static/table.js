// A person's seat at the table: draws the state its event stream sends (made by
// referee/web/tableview.py from the seat's own view and the public events: no other
// seat's card ever reaches this page) and posts the person's answer to the decision asked.
// Mouse, touch and keyboard: ← → move between the cards you may play, Enter or Space
// plays one, P knocks (a dog keeping its card), S H C D name trump, N declares no trump.
(function () {
  "use strict";
  const box = document.getElementById("table");
  const connection = document.getElementById("connection");
  const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };
  const SUIT_NAME = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
  const RANK_NAME = { A: "ace", K: "king", Q: "queen", J: "jack", T: "10" };
  let state = null;
  let answered = null; // the decision already answered from this page ("game:number")
  let focusedAsk = null; // the decision whose first card got the focus ("game:number")
  let shownTrick = []; // the plays drawn last time: a new one is animated
  let clock = null;

  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  function cardName(code) {
    const rank = code.slice(0, -1);
    return (RANK_NAME[rank] || rank) + " of " + SUIT_NAME[code.slice(-1)];
  }

  function card(code, className) {
    const rank = code.slice(0, -1) === "T" ? "10" : code.slice(0, -1);
    const suit = code.slice(-1);
    const node = el("span", "card s-" + suit + (className ? " " + className : ""), rank + SUIT[suit]);
    node.setAttribute("aria-label", cardName(code));
    return node;
  }

  function suit(letter) {
    if (letter === "NT") return el("span", "", "no trump");
    const node = el("span", "card s-" + letter, SUIT[letter]);
    node.setAttribute("aria-label", SUIT_NAME[letter]);
    return node;
  }

  // a line such as "heuristic led {card}": a card (rank and suit letter) in braces is drawn as a card, a suit letter as its sign
  function words(line) {
    const node = el("span", "");
    for (const part of line.split(/(\{[^}]+\})/)) {
      if (/^\{[2-9TJQKA][SHDC]\}$/.test(part)) node.append(card(part.slice(1, -1)));
      else if (/^\{[SHDC]\}$/.test(part)) node.append(suit(part.slice(1, -1)));
      else if (part) node.append(part);
    }
    return node;
  }

  function who(seat) {
    return seat === state.seat ? "you" : state.names[seat];
  }

  function drawFacts() {
    const round = document.getElementById("round");
    round.replaceChildren("Round " + state.round + " · " + state.hand_size + " card" + (state.hand_size === 1 ? "" : "s") + " each · " + who(state.dealer) + " dealt");
    const trump = document.getElementById("trump");
    if (state.trump === null) {
      trump.replaceChildren(state.to_play !== null ? "trump: " + who(state.to_play) + " " + (state.to_play === state.seat ? "name" : "names") + " it" : "trump: —");
    } else {
      const by = state.trump_by === null ? (state.turn_up ? ["the turn-up ", card(state.turn_up)] : []) : ["named by " + who(state.trump_by)];
      trump.replaceChildren("trump ", suit(state.trump), " · ", ...by);
    }
    if (state.turn_up && state.trump === null) trump.append(" · turn-up ", card(state.turn_up));
  }

  function drawSeats() {
    const seats = document.getElementById("seats");
    seats.replaceChildren(...state.seats.map((seat, index) => {
      const node = el("div", "seat " + seat.status + (index === state.seat ? " me" : "") + (index === state.to_play ? " to-play" : ""));
      node.dataset.seat = index;
      node.append(el("span", "name", index === state.seat && seat.name !== "you" ? seat.name + " (you)" : seat.name));
      if (index === state.dealer) node.append(el("span", "badge dealer", "dealer"));
      if (seat.status === "out") node.append(el("span", "badge out", "knocked out"));
      if (seat.status === "dog") node.append(el("span", "badge dog", "dog's life · card " + seat.dog_card));
      if (seat.status !== "out") node.append(el("span", "tricks", seat.tricks + " trick" + (seat.tricks === 1 ? "" : "s")));
      return node;
    }));
  }

  function plays(trick, animate) {
    const row = el("div", "plays");
    trick.plays.forEach((play, position) => {
      let shown;
      if (play.pass) shown = el("span", "knock", "knocked");
      else if (play.face_down && play.card) shown = card(play.card, "face-down mine");
      else if (play.face_down) shown = el("span", "card back", "face down");
      else shown = card(play.card);
      const node = el("span", "play" + (trick.winner === play.seat ? " winner" : ""), el("span", "who", who(play.seat)), shown);
      node.dataset.seat = play.seat;
      if (animate && position >= shownTrick.length) node.classList.add("new");
      row.append(node);
    });
    return row;
  }

  function drawTricks() {
    const trick = document.getElementById("trick");
    const current = state.trick;
    if (current && current.plays.length) {
      trick.replaceChildren(el("h2", "", "This trick"), plays(current, true));
      shownTrick = current.plays.slice();
    } else {
      trick.replaceChildren(el("h2", "", "This trick"), el("p", "dim", state.over ? "the game is over" : "no card played yet"));
      shownTrick = [];
    }
    const last = document.getElementById("last-trick");
    if (state.last_trick) last.replaceChildren(el("h2", "", "Last trick · " + who(state.last_trick.winner) + " won"), plays(state.last_trick, false));
    else last.replaceChildren();
  }

  function button(label, action, className) {
    const node = el("button", className || "", ...label);
    node.type = "button";
    node.dataset.action = action;
    return node;
  }

  function drawPrompt() {
    const prompt = document.getElementById("prompt");
    const ask = state.ask;
    prompt.className = "prompt" + (ask ? " asked" : "");
    if (state.over) {
      const order = state.seats.map((seat, index) => index).sort((a, b) => state.over.placements[a] - state.over.placements[b] || a - b);
      const list = el("ol", "placements", ...order.map((index) => el("li", index === state.seat ? "me" : "", state.over.placements[index] + ". " + state.seats[index].name)));
      prompt.replaceChildren(el("strong", "", "Game over"), list);
      if (state.replay) prompt.append(el("p", "note", "The game is stored. See every request your seat was sent: ", el("code", "", state.replay)));
      return;
    }
    if (!ask) {
      const turn = state.to_play === null ? "" : who(state.to_play) + (state.trump === null ? " names trump…" : " to play…");
      prompt.replaceChildren(el("span", "dim", turn));
      return;
    }
    if (ask.kind === "choose_trump") {
      const choices = ask.suits.map((letter) => button([letter === "NT" ? "no trump" : suit(letter)], letter === "NT" ? "trump NT" : "trump " + letter, "choice"));
      prompt.replaceChildren(el("strong", "", "Your turn: name trump"), el("div", "choices", ...choices));
    } else {
      const parts = [el("strong", "", "Your turn: play a card")];
      if (ask.pass) parts.push(" or ", button(["knock (keep the dog's card)"], "pass", "choice knock"));
      prompt.replaceChildren(...parts);
    }
  }

  function drawHand() {
    const hand = document.getElementById("hand");
    const ask = state.ask && state.ask.kind === "play" ? state.ask : null;
    const legal = new Set(ask ? ask.cards : []);
    let previous = null;
    const nodes = [];
    for (const code of state.hand) {
      const suitLetter = code.slice(-1);
      const node = button([card(code)], code, "hand-card" + (previous && previous !== suitLetter ? " new-suit" : "") + (legal.has(code) ? " legal" : ""));
      node.setAttribute("aria-label", cardName(code));
      if (!legal.has(code)) node.disabled = true;
      nodes.push(node);
      previous = suitLetter;
    }
    if (!nodes.length) nodes.push(el("span", "dim", state.over ? "" : "no cards in your hand"));
    hand.replaceChildren(el("h2", "", "Your hand"), ...nodes);
  }

  function drawRoundEnd() {
    const end = document.getElementById("round-end");
    const summary = state.round_end;
    if (!summary) {
      end.replaceChildren();
      return;
    }
    end.replaceChildren(el("strong", "", "Round " + summary.round + " over"), " · tricks: " + summary.tricks, el("ul", "", ...summary.lines.map((line) => el("li", "", line))));
  }

  function drawLines() {
    const lines = document.getElementById("lines");
    lines.replaceChildren(...state.lines.slice().reverse().map((line) => el("li", "", words(line))));
  }

  function drawClock() {
    const node = document.getElementById("clock");
    if (clock) clearInterval(clock);
    clock = null;
    const ask = state.ask;
    if (!ask || !ask.move_ms) {
      node.hidden = true;
      return;
    }
    const ends = Date.now() + ask.move_ms + ask.bank_ms;
    const tick = () => {
      const left = Math.max(0, ends - Date.now());
      node.textContent = "your clock: " + (left / 1000).toFixed(left < 10000 ? 1 : 0) + " s";
      node.classList.toggle("short", left < 5000);
    };
    node.hidden = false;
    tick();
    clock = setInterval(tick, 200);
  }

  function draw() {
    if (state.waiting) {
      box.classList.add("waiting");
      document.getElementById("prompt").replaceChildren(el("strong", "", "Waiting for your game to start…"));
      return;
    }
    box.classList.remove("waiting");
    const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.action : null;
    drawFacts();
    drawSeats();
    drawTricks();
    drawPrompt();
    drawHand();
    drawRoundEnd();
    drawLines();
    drawClock();
    document.getElementById("note").textContent = state.note || "";
    if (state.ask && answered === asked()) for (const node of choices()) node.disabled = true; // sent: wait for the referee
    const buttons = choices();
    if (state.ask && focusedAsk !== asked() && buttons.length) {
      focusedAsk = asked();
      buttons[0].focus();
    } else if (focused) {
      const again = box.querySelector("button[data-action='" + focused + "']:not([disabled])");
      if (again) again.focus();
    }
  }

  function asked() {
    return state.game + ":" + state.ask.number;
  }

  function choices() {
    return Array.from(box.querySelectorAll("#hand button:not([disabled]), #prompt button:not([disabled])"));
  }

  function send(action) {
    const ask = state && state.ask;
    if (!ask || answered === asked()) return;
    answered = asked();
    for (const node of choices()) node.disabled = true;
    fetch(box.dataset.answer, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ decision: ask.number, action: action }),
      credentials: "same-origin",
    }).then((response) => {
      if (!response.ok && response.status !== 409) answered = null;
    }, () => {
      answered = null;
    });
  }

  box.addEventListener("click", (event) => {
    const target = event.target.closest && event.target.closest("button[data-action]");
    if (target && !target.disabled) send(target.dataset.action);
  });

  document.addEventListener("keydown", (event) => {
    if (!state || !state.ask || event.altKey || event.ctrlKey || event.metaKey) return;
    const buttons = choices();
    const key = event.key;
    if (key === "ArrowRight" || key === "ArrowLeft") {
      if (!buttons.length) return;
      const at = buttons.indexOf(document.activeElement);
      const next = at < 0 ? 0 : (at + (key === "ArrowRight" ? 1 : buttons.length - 1)) % buttons.length;
      buttons[next].focus();
      event.preventDefault();
      return;
    }
    const letter = key.length === 1 ? key.toUpperCase() : "";
    let action = null;
    if (letter === "P" && state.ask.pass) action = "pass";
    else if (state.ask.kind === "choose_trump" && "SHDC".includes(letter) && letter && state.ask.suits.includes(letter)) action = "trump " + letter;
    else if (state.ask.kind === "choose_trump" && letter === "N" && state.ask.suits.includes("NT")) action = "trump NT";
    if (action) {
      event.preventDefault();
      send(action);
    }
  });

  const source = new EventSource(box.dataset.events);
  source.addEventListener("state", (event) => {
    state = JSON.parse(event.data);
    connection.textContent = state.over ? "game over" : "playing";
    draw();
  });
  source.addEventListener("open", () => {
    connection.textContent = state && state.over ? "game over" : "connected";
    connection.classList.remove("lost");
  });
  source.addEventListener("error", () => {
    connection.textContent = state && state.over ? "game over · the referee has stopped" : "connection lost: trying again…";
    connection.classList.add("lost");
  });
})();
