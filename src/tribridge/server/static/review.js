// The deal review: the auction by player, then the play card by card with the double-dummy tricks
// of the declaring side after each card and the cards that cost a trick (buttons and arrow keys).

import { SEATS, SEAT_NAMES, HAND_SUIT_ORDER, callFragment, el, parseCard, rankText, suitSpan } from "./cards.js";

const $ = (id) => document.getElementById(id);
let current = null; // {review, cards, step, nameOf}

function cardText(card) {
  const { suit, rank } = parseCard(card);
  return el("span", { className: "rv-card" }, suitSpan(suit), rankText(rank));
}

function tricksWord(n) {
  return `${n} trick${n === 1 ? "" : "s"}`;
}

/** PBN "S.H.D.C" to a list of cards like "SA". */
function pbnCards(pbn) {
  const out = [];
  (pbn || "").split(".").forEach((ranks, i) => {
    for (const rank of ranks) out.push("SHDC"[i] + rank);
  });
  return out;
}

/** Who sits at a play seat: a player's name, or the dummy. */
function seatOwner(review, seat, nameOf) {
  if (seat === review.dummy) return "Dummy";
  for (const [player, now] of Object.entries(review.seats || {})) {
    if (now === seat) return nameOf((review.chair_of_player || {})[player], player);
  }
  return SEAT_NAMES[seat];
}

function renderAuction(review, nameOf) {
  const players = [];
  for (const call of review.auction) if (!players.includes(call.player)) players.push(call.player);
  const table = el("table", { className: "auction rv-auction" });
  const head = el("tr");
  for (const player of players) {
    head.append(el("th", {}, `${nameOf((review.chair_of_player || {})[player], player)} (${player})`));
  }
  table.append(el("thead", {}, head));
  const body = el("tbody");
  let row = null;
  review.auction.forEach((call, i) => {
    if (i % Math.max(players.length, 1) === 0) {
      row = el("tr");
      body.append(row);
    }
    row.append(el("td", { "data-call": call.call }, callFragment(call.call)));
  });
  table.append(body);
  return table;
}

function renderHands(review, played, nameOf) {
  const gone = new Set(played);
  const grid = el("div", { className: "rv-hands" });
  for (const seat of SEATS) {
    const cards = pbnCards((review.hands || {})[seat]).filter((c) => !gone.has(c));
    const box = el("div", { className: `rv-hand rv-${seat}`, "data-seat": seat },
      el("div", { className: "cell-title" }, `${SEAT_NAMES[seat]}: ${seatOwner(review, seat, nameOf)}`));
    for (const suit of HAND_SUIT_ORDER) {
      const ranks = cards.filter((c) => c[0] === suit).map((c) => rankText(c[1]));
      box.append(el("div", {}, suitSpan(suit), " ", ranks.length ? ranks.join(" ") : "—"));
    }
    grid.append(box);
  }
  return grid;
}

function renderPlayList(review) {
  const list = el("ol", { className: "rv-tricks" });
  let index = 0;
  for (const trick of review.tricks) {
    const li = el("li");
    for (const entry of trick.cards) {
      index += 1;
      const step = index;
      const button = el("button", {
        type: "button", className: `rv-step${entry.cost ? " cost" : ""}`, "data-step": String(step),
        title: entry.cost ? `cost ${tricksWord(entry.cost)}` : "double-dummy best",
      }, cardText(entry.card));
      button.addEventListener("click", () => show(step));
      li.append(button);
    }
    if (trick.winner) li.append(el("span", { className: "muted" }, ` won by ${SEAT_NAMES[trick.winner]}`));
    list.append(li);
  }
  return list;
}

function stepInfo(review, cards, step, nameOf) {
  const box = el("div", { className: "rv-info" });
  const dd = step === 0 ? review.dd_start : cards[step - 1].dd_after;
  if (step === 0) box.append(el("p", {}, review.contract ? "Before the opening lead." : "Passed out: no play."));
  else {
    const entry = cards[step - 1];
    const line = el("p", {}, `Card ${step} of ${cards.length}: `, cardText(entry.card),
      ` by ${SEAT_NAMES[entry.seat]} (${seatOwner(review, entry.seat, nameOf)})`);
    if (entry.cost) {
      const best = el("span", { className: "rv-best" }, "; best was ");
      entry.best.forEach((card, i) => best.append(i ? " " : "", cardText(card)));
      line.append(el("b", { className: "rv-cost", "data-testid": "review-cost" }, ` — cost ${tricksWord(entry.cost)}`), best);
    }
    box.append(line);
  }
  if (dd !== null && dd !== undefined) {
    box.append(el("p", { "data-testid": "review-dd" },
      `Double dummy: the declaring side takes ${tricksWord(dd)} in all`));
  }
  if (step === cards.length && review.claim) {
    box.append(el("p", {}, `Claim agreed: ${SEAT_NAMES[review.claim.seat]}'s side takes ${review.claim.tricks}`
      + ` of the last ${review.claim.tricks_left}; the declaring side took ${tricksWord(review.declarer_tricks)}.`));
  }
  return box;
}

function show(step) {
  if (!current) return;
  const { review, cards, nameOf } = current;
  current.step = Math.max(0, Math.min(cards.length, step));
  const played = cards.slice(0, current.step).map((c) => c.card);
  const root = $("review");
  root.dataset.step = String(current.step);
  root.dataset.steps = String(cards.length);
  const body = $("review-body");
  body.replaceChildren();
  const trickStart = current.step === 0 ? 0 : Math.floor((current.step - 1) / 4) * 4;
  const onTable = cards.slice(trickStart, current.step);
  const trick = el("p", { className: "rv-trick" }, "Trick: ");
  for (const entry of onTable) trick.append(cardText(entry.card), ` (${entry.seat}) `);
  body.append(stepInfo(review, cards, current.step, nameOf), renderHands(review, played, nameOf));
  if (onTable.length) body.append(trick);
  for (const button of root.querySelectorAll(".rv-step")) {
    button.classList.toggle("now", Number(button.dataset.step) === current.step);
  }
  $("review-prev").disabled = current.step === 0;
  $("review-first").disabled = current.step === 0;
  $("review-next").disabled = current.step === cards.length;
  $("review-last").disabled = current.step === cards.length;
}

/** Open the review of a deal; ``nameOf(chair, seat)`` names a player. */
export function openReview(review, nameOf) {
  const cards = review.tricks.flatMap((t) => t.cards);
  current = { review, cards, step: 0, nameOf };
  $("review-title").textContent = `${review.deal_word || "Deal"} ${review.deal_no}`;
  const contract = $("review-contract");
  contract.replaceChildren();
  if (review.contract) {
    contract.append(callFragment(review.contract), ` by ${seatOwner(review, review.declarer, nameOf)}`
      + `, ${tricksWord(review.declarer_tricks)}`);
  } else contract.append("Passed out");
  $("review-auction").replaceChildren(renderAuction(review, nameOf));
  if ((review.undone || []).length) {
    const note = el("p", { className: "muted", "data-testid": "review-undone" }, "Taken back by consent: ");
    review.undone.forEach((u, i) => {
      const a = u.action || {};
      note.append(i ? "; " : "", `${nameOf(u.chair, "")}: `, a.type === "call" ? callFragment(a.call) : cardText(a.card));
    });
    $("review-auction").append(note);
  }
  $("review-play").replaceChildren(renderPlayList(review));
  if ($("review").hidden) history.pushState({ review: review.deal_no }, "", location.href); // Back closes it
  $("review").hidden = false;
  show(0);
  $("review-next").focus();
}

/** Close the review (stepping back over the history entry its opening added). */
export function closeReview() {
  const opened = !$("review").hidden && history.state && history.state.review !== undefined;
  current = null;
  $("review").hidden = true;
  if (opened) history.back();
}

/** The browser's Back: close an open review and stay at the table; true when it did. */
export function reviewBack() {
  if ($("review").hidden) return false;
  current = null;
  $("review").hidden = true;
  return true;
}

/** Whether the review is open (it takes the arrow keys). */
export function reviewOpen() {
  return current !== null && !$("review").hidden;
}

/** Arrow keys, Home/End and Escape while the review is open; true when the key was used. */
export function reviewKey(key) {
  if (!reviewOpen()) return false;
  const moves = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  if (key in moves) show(current.step + moves[key]);
  else if (key === "Home") show(0);
  else if (key === "End") show(current.cards.length);
  else if (key === "Escape") closeReview();
  else return false;
  return true;
}

/** Wire the review's buttons. */
export function initReview() {
  $("review-first").addEventListener("click", () => show(0));
  $("review-prev").addEventListener("click", () => current && show(current.step - 1));
  $("review-next").addEventListener("click", () => current && show(current.step + 1));
  $("review-last").addEventListener("click", () => current && show(current.cards.length));
  $("review-close").addEventListener("click", closeReview);
}
