// The game viewer: draws one stored game from the JSON record in its page
// (<script id="game-record">, made by referee/web/viewer.py), with every hand or as one
// seat saw it, step by step. The address says what is shown: #seat=N (or seat=all) and
// #step=S, numbered from 1 as the page shows it. A seat's view hides the other hands
// until the game is over (docs/design.md §3). Every card the referee played for a bot is
// marked, with its fault. No network: everything is in the page, so it works from disk.
(function () {
  "use strict";
  const record = JSON.parse(document.getElementById("game-record").textContent);
  const box = document.getElementById("viewer");
  const openSeat = box.dataset.seat === "" ? null : Number(box.dataset.seat);
  const steps = record.steps;
  const SUIT = { S: "♠", H: "♥", D: "♦", C: "♣" };

  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    for (const child of children) {
      if (child === null || child === undefined || child === false) continue;
      node.append(typeof child === "string" || typeof child === "number" ? String(child) : child);
    }
    return node;
  }

  function link(href, className, ...children) {
    const node = el("a", className, ...children);
    node.href = href;
    return node;
  }

  function where() {
    const found = {};
    for (const part of location.hash.replace(/^#/, "").split("&")) {
      const [key, value] = part.split("=");
      if (key) found[key] = value;
    }
    let seat = openSeat;
    if (found.seat === "all") seat = null;
    else if (found.seat !== undefined && /^\d+$/.test(found.seat) && Number(found.seat) < record.seats.length) seat = Number(found.seat);
    let step = /^\d+$/.test(found.step || "") ? Number(found.step) : 1;
    step = Math.min(Math.max(step, 1), steps.length);
    return { seat, step };
  }

  function address(seat, step) {
    return "#seat=" + (seat === null ? "all" : seat) + "&step=" + step;
  }

  function card(name) {
    if (!name) return el("span", "card none", "pass");
    const rank = name.slice(0, -1) === "T" ? "10" : name.slice(0, -1);
    const suit = name.slice(-1);
    return el("span", "card s-" + suit, rank + (SUIT[suit] || suit));
  }

  function action(text) {
    if (!text) return el("span", "dim", "nothing");
    if (text === "pass") return el("span", "card none", "pass");
    if (text === "trump NT") return el("span", "", "no trump");
    if (text.startsWith("trump ")) return el("span", "", "trump ", el("span", "card s-" + text.slice(6), SUIT[text.slice(6)] || text.slice(6)));
    return card(text);
  }

  function who(seat) {
    return record.seats[seat] + " (seat " + seat + ")";
  }

  function faultNote(index, seat) {
    const fault = record.faults[index];
    const note = el("div", "fault-note", el("span", "fault " + fault.kind, fault.kind), " ", who(fault.seat));
    note.id = "fault-note-" + index;
    note.dataset.kind = fault.kind;
    note.append(fault.decision === undefined ? ", before the game: " : ", decision " + fault.decision + ": ", fault.detail || "");
    if (fault.answer) note.append("; answered: ", el("code", "", fault.answer));
    if (fault.played) note.append(". The referee played ", action(fault.played), " for it (its fallback move, deliberately weak: a fault never pays)");
    note.append(". ", link(fault.href, "fault-link", "See it on " + record.seats[fault.seat] + "'s page"));
    return note;
  }

  function views(now) {
    const line = el("p", "views", "View: ");
    record.seats.forEach((name, seat) => {
      line.append(link(address(seat, now.step), now.seat === seat ? "current" : "", who(seat)), " · ");
    });
    line.append(link(address(null, now.step), now.seat === null ? "current" : "", "all hands"));
    return line;
  }

  function overview(now) {
    if (!record.faults.length) return null;
    const list = el("ul", "");
    record.faults.forEach((fault, index) => {
      const item = el("li", "fault-item", link(address(now.seat, fault.step), "", "step " + fault.step), ": ");
      item.dataset.kind = fault.kind;
      item.append(who(fault.seat), " ", el("span", "fault " + fault.kind, fault.kind), ": ", fault.detail || "");
      if (fault.played) item.append(" — the referee played ", action(fault.played));
      list.append(item);
    });
    const count = record.faults.length;
    return el("div", "game-faults", el("strong", "", count + " fault" + (count === 1 ? "" : "s") + " in this game"), list);
  }

  function trick(step) {
    const line = el("div", "trick");
    for (const play of step.plays) {
      const marks = [];
      let className = "play";
      if (play.seat === step.winner && play.card) className += " winner";
      if (play.fault !== undefined) {
        className += " fallback";
        const fault = record.faults[play.fault];
        const mark = link("#fault-note-" + play.fault, "fault-mark", fault.kind + ": played by the referee");
        mark.addEventListener("click", (event) => {
          event.preventDefault();
          document.getElementById("fault-note-" + play.fault).scrollIntoView();
        });
        marks.push(mark);
      } else if (play.by_referee) {
        className += " by-referee";
        marks.push(el("span", "referee-mark", "played by the referee"));
      }
      const node = el("span", className, "seat " + play.seat + " ", card(play.card), ...marks);
      node.dataset.seat = play.seat;
      line.append(node);
    }
    return line;
  }

  function hands(step, seat) {
    const body = el("tbody", "");
    step.hands.forEach((hand, index) => {
      const cell = el("td", "name hand");
      cell.dataset.seat = index;
      if (seat !== null && index !== seat) cell.append(el("span", "hidden-hand", hand.length + " card" + (hand.length === 1 ? "" : "s") + " hidden"));
      else if (!hand.length) cell.append(el("span", "dim", "no cards"));
      else hand.forEach((name) => cell.append(card(name)));
      const row = el("tr", seat === index ? "me" : "", el("td", "", index), el("td", "name", record.seats[index]), el("td", "", step.tricks_won[index]), cell);
      body.append(row);
    });
    const head = el("thead", "", el("tr", "", el("th", "", "seat"), el("th", "name", "bot"), el("th", "", "tricks"), el("th", "name", "hand")));
    return el("table", "hands", head, body);
  }

  function dealt() {
    const head = el("tr", "", el("th", "", "round"));
    record.seats.forEach((name, seat) => head.append(el("th", "name", who(seat))));
    const body = el("tbody", "");
    for (const [number, roundHands] of record.dealt) {
      const row = el("tr", "", el("td", "", number));
      roundHands.forEach((hand, seat) => {
        const cell = el("td", "name hand");
        cell.dataset.seat = seat;
        if (hand.length) hand.forEach((name) => cell.append(card(name)));
        else cell.append(el("span", "dim", "—"));
        row.append(cell);
      });
      body.append(row);
    }
    return el("table", "hands dealt", el("thead", "", head), body);
  }

  function section(now) {
    const step = steps[now.step - 1];
    const node = el("section", "step" + (step.kind === "over" ? " final" : ""));
    node.id = "step-" + now.step;
    node.dataset.step = now.step;
    const previous = now.step > 1 ? link(address(now.seat, now.step - 1), "prev", "← previous") : el("span", "prev dim", "← previous");
    const next = now.step < steps.length ? link(address(now.seat, now.step + 1), "next", "next →") : el("span", "next dim", "next →");
    node.append(el("nav", "stepper", previous, el("span", "where", "step " + now.step + " of " + steps.length + ": ", el("strong", "", step.title)), next));
    if (step.kind !== "over") {
      const trump = el("p", "trump", "trump: ", step.no_trump ? "no trump" : step.trump ? el("span", "card s-" + step.trump, SUIT[step.trump]) : "—");
      if (step.turn_up) trump.append(" · turn-up ", card(step.turn_up));
      node.append(trump);
    }
    if (step.plays.length) node.append(trick(step));
    for (const index of step.faults) node.append(faultNote(index, now.seat));
    node.append(el("ul", "notes", ...step.notes.map((text) => el("li", "", text))));
    if (step.kind !== "over") node.append(hands(step, now.seat));
    else node.append(el("h2", "", "Every hand, as dealt"), dealt());
    return node;
  }

  function draw() {
    const now = where();
    const parts = [views(now)];
    if (now.seat !== null) parts.push(el("p", "note", "As " + who(now.seat) + " saw it: the other hands stay hidden until the game is over."));
    const faults = overview(now);
    if (faults) parts.push(faults);
    parts.push(el("div", "steps", section(now)));
    box.replaceChildren(...parts);
  }

  window.addEventListener("hashchange", draw);
  window.addEventListener("popstate", draw);
  box.addEventListener("click", (event) => {  // the viewer's own links: drawn at once, kept in the history
    const target = event.target.closest && event.target.closest("a[href^='#seat=']");
    if (!target || event.defaultPrevented) return;
    event.preventDefault();
    history.pushState(null, "", target.getAttribute("href"));
    draw();
  });
  document.addEventListener("keydown", (event) => {
    if (event.target.closest && event.target.closest("input, textarea")) return;
    const now = where();
    const step = event.key === "ArrowRight" ? now.step + 1 : event.key === "ArrowLeft" ? now.step - 1 : null;
    if (step !== null && step >= 1 && step <= steps.length) location.hash = address(now.seat, step);
  });
  draw();
})();
