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
    if (typeof entry === "object" && entry.explain) explainable(td, view, entry, index);
    row.append(td);
  });
  followLatestExplained(view);
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

/** An explanation's two lines: what the call shows, then how the bot chose it. */
function explainLines(text) {
  const at = text.indexOf("\n");
  return at < 0 ? [text, ""] : [text.slice(0, at), text.slice(at + 1)];
}

/** The call's name as players say it ("Pass" for P). */
function callWords(call) {
  return normCall(call) === "P" ? "Pass" : call;
}

/** Fill ``box`` with a call's explanation: who and which call, what it shows (or that it is being worked out, a bot's
 * call's words come a moment after the call), then how it was chosen. */
function fillExplanation(box, view, entry) {
  const [shows, how] = explainLines(entry.explain);
  const head = document.createElement("span");
  head.className = entry.explain_pending ? "explain-shows explain-pending" : "explain-shows";
  head.textContent = `${chairLabel(view, entry.chair)}, ${callWords(entry.call)}: ${shows}`;
  box.replaceChildren(head);
  if (how) {
    const second = document.createElement("span");
    second.className = "explain-how";
    second.textContent = how;
    box.append(second);
  }
}

/** The line under the auction: the explained call a player tapped, until a later bot call explains itself. */
let shownLatest = null; // "deal:index" of the latest explained call the line has followed

function followLatestExplained(view) {
  const line = $("call-explain");
  const entries = view.auction || [];
  let latest = -1;
  entries.forEach((entry, index) => {
    if (typeof entry === "object" && entry.explain) latest = index;
  });
  const key = latest < 0 ? null : `${view.table_id || ""}:${view.deal_no ?? ""}:${latest}`;
  if (key === shownLatest) {
    const shown = Number(line.dataset.index); // the call on the line (perhaps one tapped): its words may have come
    if (line.dataset.index !== undefined && entries[shown] && entries[shown].explain) tellOnLine(view, entries[shown], shown);
    return;
  }
  shownLatest = key;
  if (latest < 0) {
    line.replaceChildren();
    delete line.dataset.index;
  } else tellOnLine(view, entries[latest], latest);
}

/** The line under the auction explains the call at ``index``. */
function tellOnLine(view, entry, index) {
  const line = $("call-explain");
  fillExplanation(line, view, entry);
  line.dataset.index = String(index);
}

/** Hide every open call tooltip but ``keep``. */
function hideTips(keep = null) {
  for (const tip of document.querySelectorAll("#auction-table .call-tip:not([hidden])")) {
    if (tip !== keep) tip.hidden = true;
  }
}

/** Shift an open tooltip sideways so that it stays inside the window (narrow phones, the outer columns). */
function keepOnScreen(tip) {
  tip.style.marginLeft = "0px";
  const box = tip.getBoundingClientRect();
  const room = document.documentElement.clientWidth;
  let shift = 0;
  if (box.left < 4) shift = 4 - box.left;
  else if (box.right > room - 4) shift = room - 4 - box.right;
  tip.style.marginLeft = `${shift}px`;
}

/** A bot's call explains itself in a tooltip of its own cell (hover, focus or tap) and on the line under the auction. */
function explainable(td, view, entry, index) {
  td.tabIndex = 0;
  td.classList.add("explained");
  const tip = document.createElement("span");
  tip.className = "call-tip";
  tip.id = `call-tip-${index}`;
  tip.setAttribute("role", "tooltip");
  tip.hidden = true;
  fillExplanation(tip, view, entry);
  td.append(tip);
  td.setAttribute("aria-describedby", tip.id);
  const show = () => {
    hideTips(tip);
    tip.hidden = false;
    keepOnScreen(tip);
  };
  const hide = () => {
    tip.hidden = true;
  };
  const tell = () => {
    show();
    tellOnLine(view, entry, index);
  };
  // hover is a mouse's: a tap ends with a synthetic mouse leave, and the tooltip it opened should stay open
  td.addEventListener("pointerenter", (event) => {
    if (event.pointerType === "mouse") show();
  });
  td.addEventListener("pointerleave", (event) => {
    if (event.pointerType === "mouse") hide();
  });
  td.addEventListener("focus", show);
  td.addEventListener("blur", hide);
  td.addEventListener("click", tell);
  td.addEventListener("keydown", (event) => {
    if (event.key === "Enter" || event.key === " ") tell();
    if (event.key === "Escape") hide();
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
