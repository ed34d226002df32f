// The auction box: every call under the player who made it, and the bidding box.

import { DENOMS, SEATS, SEAT_NAMES, callFragment, normCall, seatLetter } from "./cards.js";
import { callingChairs, chairLabel } from "./names.js";

const $ = (id) => document.getElementById(id);

/** The seat each calling chair held during the auction (from the calls, else from the dealer). */
function auctionSeats(view, chairs) {
  const seats = {};
  for (const entry of view.auction || []) {
    if (typeof entry === "object" && typeof entry.chair === "number" && entry.seat) seats[entry.chair] = seatLetter(entry.seat);
  }
  const dealer = seatLetter(view.dealer);
  if (dealer) {
    const d = SEATS.indexOf(dealer);
    [SEATS[d], SEATS[(d + 1) % 4], SEATS[(d + 3) % 4]].forEach((seat, i) => {
      if (!(chairs[i] in seats)) seats[chairs[i]] = seat;
    });
  }
  return seats;
}

/** The auction by player: one column per player (name and auction seat), calls in calling order. */
export function renderAuction(view, act) {
  const chairs = callingChairs(view);
  const seats = auctionSeats(view, chairs);
  const table = $("auction-table");
  const head = document.createElement("tr");
  for (const chair of chairs) {
    const th = document.createElement("th");
    th.dataset.chair = String(chair);
    th.textContent = chairLabel(view, chair);
    const seat = seats[chair];
    if (seat) {
      const where = document.createElement("span");
      where.className = "auction-seat";
      where.title = `${SEAT_NAMES[seat]} during the auction`;
      where.textContent = ` ${seat}`;
      th.append(where);
    }
    head.append(th);
  }
  table.tHead.replaceChildren(head);
  if (view.phase === "auction" && !(view.auction || []).length) $("call-explain").textContent = "";
  const body = table.tBodies[0];
  body.replaceChildren();
  let row = null;
  (view.auction || []).forEach((entry, index) => {
    const call = typeof entry === "string" ? entry : entry.call;
    if (index % 3 === 0) {
      row = document.createElement("tr");
      body.append(row);
    }
    const td = document.createElement("td");
    td.append(callFragment(call));
    td.dataset.call = normCall(call);
    td.dataset.chair = String(typeof entry === "object" && typeof entry.chair === "number" ? entry.chair : chairs[index % 3]);
    if (typeof entry === "object" && entry.explain) explainable(td, view, entry);
    row.append(td);
  });
  if (view.phase === "auction") {
    if (!row || row.childElementCount === 3) {
      row = document.createElement("tr");
      body.append(row);
    }
    const td = document.createElement("td");
    td.className = "next-call";
    td.textContent = "?";
    row.append(td);
  }
  renderBiddingBox(view, act);
}

/** A bot's call explains itself on hover (its title) and on a tap or click (the line under the auction). */
function explainable(td, view, entry) {
  td.title = entry.explain;
  td.tabIndex = 0;
  td.classList.add("explained");
  const tell = () => {
    $("call-explain").textContent = `${chairLabel(view, entry.chair)}, ${normCall(entry.call) === "P" ? "Pass" : entry.call}: ${entry.explain}`;
  };
  td.addEventListener("click", tell);
  td.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") tell();
  });
}

function renderBiddingBox(view, act) {
  const box = $("bidding-box");
  box.hidden = view.phase !== "auction";
  box.replaceChildren();
  if (view.phase !== "auction") return;
  const legal = new Map();
  if (view.my_turn) for (const call of view.legal_calls || []) legal.set(normCall(call), call);
  const button = (call) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "call";
    b.dataset.call = call;
    b.append(callFragment(call));
    b.disabled = !legal.has(call);
    if (!b.disabled) b.addEventListener("click", () => act({ type: "call", call: legal.get(call) }));
    return b;
  };
  const grid = document.createElement("div");
  grid.className = "bids";
  for (let level = 1; level <= 7; level += 1) {
    for (const denom of DENOMS) grid.append(button(`${level}${denom}`));
  }
  const specials = document.createElement("div");
  specials.className = "specials";
  for (const call of ["P", "X", "XX"]) specials.append(button(call));
  box.append(grid, specials);
}
