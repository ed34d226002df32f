// Panels shown around the table: the deal's result and scores, the running score sheet, the analysis.

import { SEATS, SEAT_NAMES, DENOMS, HAND_SUIT_ORDER, callFragment, parseCard, rankText, seatLetter, sortCards, suitSpan } from "./cards.js";

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function chairName(view, chair) {
  if (chair === view.my_chair) return "You";
  const info = (view.chairs || [])[chair] || {};
  if (info.kind === "bot") return `${chair + 1}: ${info.bot ?? "bot"}`;
  return `Player ${chair + 1}`;
}

function seatName(seat) {
  const s = seatLetter(seat);
  return s ? SEAT_NAMES[s] : "";
}

function fmtPoints(n) {
  if (n === null || n === undefined) return "–";
  return typeof n === "number" ? String(n) : String(n);
}

/** One line describing how the deal ended. */
export function resultText(view) {
  const result = view.result || {};
  if (result.text) return result.text;
  if (result.passed_out) return "Passed out: all three players passed. No score.";
  const contract = result.contract ?? view.contract;
  const declarer = seatName(result.declarer ?? view.declarer);
  const tricks = result.declarer_tricks ?? (view.tricks || {}).declarer;
  if (!contract) return "Deal over.";
  const made = result.made !== undefined ? (result.made ? "made" : "went down") : "";
  return `${contract} by ${declarer}: ${tricks} tricks, ${made}`.trim();
}

/** This deal's points for each chair under the table's scheme. */
export function renderDealScores(table, view) {
  table.replaceChildren();
  const scores = view.scores;
  if (!scores) return;
  const perChair = scores.per_chair || (Array.isArray(scores) ? scores : null);
  const head = el("tr", {}, el("th", {}, ""));
  const row = el("tr", {}, el("th", {}, "This deal"));
  (view.chairs || [0, 0, 0]).forEach((_, chair) => {
    head.append(el("th", {}, chairName(view, chair)));
    row.append(el("td", { "data-testid": `deal-score-${chair}` }, fmtPoints(perChair ? perChair[chair] : null)));
  });
  table.append(el("thead", {}, head), el("tbody", {}, row));
  const breakdown = scores.breakdown || {};
  const parts = Object.entries(breakdown).filter(([, v]) => v);
  if (parts.length) {
    const text = parts.map(([k, v]) => `${k.replaceAll("_", " ")} ${v}`).join(", ");
    table.append(el("caption", { className: "breakdown" }, text));
  }
}

/** The running score sheet: one row per deal, games in the rubber, totals. */
export function renderScoreSheet(box, view) {
  box.replaceChildren();
  const sheet = view.score_sheet;
  const chairs = (view.chairs || [0, 0, 0]).map((_, i) => i);
  if (!sheet) {
    box.append(el("p", { className: "muted" }, "No deals scored yet."));
    return;
  }
  const table = el("table", { className: "sheet" });
  const head = el("tr", {}, el("th", {}, "Deal"), el("th", {}, "Contract"));
  for (const chair of chairs) head.append(el("th", {}, chairName(view, chair)));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const deal of sheet.deals || []) {
    const contract = el("td");
    if (deal.contract) {
      contract.append(callFragment(deal.contract));
      if (deal.declarer_chair !== undefined && deal.declarer_chair !== null) {
        contract.append(` ${chairName(view, deal.declarer_chair)}`);
      }
      if (deal.declarer_tricks !== undefined && deal.declarer_tricks !== null) contract.append(` (${deal.declarer_tricks})`);
    } else contract.textContent = "passed out";
    const row = el("tr", {}, el("td", {}, String(deal.deal_no ?? "")), contract);
    for (const chair of chairs) row.append(el("td", {}, fmtPoints((deal.per_chair || [])[chair])));
    body.append(row);
  }
  table.append(body);
  const foot = el("tfoot");
  const addRow = (label, values, testid) => {
    if (!values) return;
    const row = el("tr", {}, el("th", { colSpan: 2 }, label));
    for (const chair of chairs) {
      row.append(el("td", testid ? { "data-testid": `${testid}-${chair}` } : {}, fmtPoints(values[chair])));
    }
    foot.append(row);
  };
  addRow("Towards game", sheet.below);
  addRow("Games this rubber", sheet.games, "games");
  addRow("Above the line", sheet.above);
  addRow("Total", sheet.totals, "total");
  table.append(foot);
  box.append(table);
  for (const rubber of sheet.rubbers || []) {
    const winner = rubber.winner_chair;
    box.append(el("p", { className: "rubber" },
      `Rubber won by ${winner === undefined || winner === null ? "?" : chairName(view, winner)}`
      + (rubber.per_chair ? `: ${rubber.per_chair.join(" / ")}` : "")));
  }
}

function valueText(value) {
  if (value === null || value === undefined) return "–";
  if (typeof value === "object") {
    if ("tricks" in value) return String(value.tricks);
    if ("captures" in value) return String(value.captures);
    if ("estimate" in value) return String(value.estimate);
    return Object.entries(value).map(([k, v]) => `${k} ${v}`).join(", ");
  }
  return String(value);
}

function handDiagram(cards) {
  const box = el("div", { className: "mini-hand" });
  const sorted = sortCards(cards || []);
  for (const suit of HAND_SUIT_ORDER) {
    const ranks = sorted.filter((c) => parseCard(c).suit === suit).map((c) => rankText(parseCard(c).rank));
    box.append(el("div", {}, suitSpan(suit), " ", ranks.length ? ranks.join(" ") : "—"));
  }
  return box;
}

/** The analysis panel: the four hands, double-dummy table, capture estimates, NT call verdicts, best contract. */
export function renderAnalysis(box, view) {
  box.replaceChildren();
  const analysis = view.analysis || {};
  const seatsMap = {};
  for (const [chair, seat] of Object.entries(view.seats || {})) seatsMap[seatLetter(seat)] = Number(chair);
  const who = (seat) => (seatsMap[seat] !== undefined ? chairName(view, seatsMap[seat]) : seat === seatLetter(view.dummy_seat) ? "dummy" : "widow");

  if (analysis.hands) {
    const hands = el("div", { className: "hands-grid" });
    for (const seat of SEATS) {
      const cards = analysis.hands[seat];
      if (!cards) continue;
      hands.append(el("div", { className: `hand-cell cell-${seat}` },
        el("div", { className: "cell-title" }, `${SEAT_NAMES[seat]} (${who(seat)})`), handDiagram(cards)));
    }
    box.append(el("section", { className: "wide" }, el("h3", {}, "The hands"), hands));
  }

  const dd = analysis.dd;
  if (dd) {
    const table = el("table", { className: "dd", "data-testid": "dd-table" });
    const head = el("tr", {}, el("th", {}, "Declarer"));
    for (const denom of DENOMS) head.append(el("th", {}, denom === "N" ? "NT" : suitSpan(denom)));
    table.append(el("thead", {}, head));
    const body = el("tbody");
    for (const seat of SEATS) {
      const row = dd[seat];
      if (!row) continue;
      const tr = el("tr", {}, el("th", {}, `${SEAT_NAMES[seat]} (${who(seat)})`));
      for (const denom of DENOMS) tr.append(el("td", {}, fmtPoints(row[denom] ?? row[denom === "N" ? "NT" : denom])));
      body.append(tr);
    }
    table.append(body);
    box.append(el("section", {}, el("h3", {}, "Double dummy: tricks for each declarer"), table));
  }

  const perSeat = (title, data, render, testid) => {
    if (!data) return;
    const list = el("table", { className: "per-seat", "data-testid": testid });
    for (const seat of SEATS) {
      if (!(seat in data)) continue;
      list.append(el("tr", {}, el("th", {}, `${SEAT_NAMES[seat]} (${who(seat)})`), el("td", {}, render(data[seat]))));
    }
    box.append(el("section", {}, el("h3", {}, title), list));
  };
  perSeat("Capture estimate (NT tricks with the widow)", analysis.capture, valueText, "capture");
  perSeat("No-Trump call verdicts", analysis.nt_calls, (v) => {
    if (v && typeof v === "object" && "verdict" in v) {
      return v.level ? `${v.level}NT: ${v.verdict}` : String(v.verdict);
    }
    return valueText(v);
  }, "nt-calls");

  const best = analysis.best_contract;
  if (best) {
    const p = el("p", { className: "best", "data-testid": "best-contract" }, "Best contract: ");
    if (typeof best === "string") p.append(callFragment(best));
    else {
      if (best.contract) p.append(callFragment(best.contract));
      else p.append("pass");
      if (best.declarer) p.append(` by ${SEAT_NAMES[seatLetter(best.declarer)] ?? best.declarer}`);
      if (best.declarer_chair !== undefined && best.declarer_chair !== null) p.append(` (${chairName(view, best.declarer_chair)})`);
      if (best.score !== undefined && best.score !== null) p.append(`, scoring ${best.score}`);
    }
    box.append(el("section", { className: "wide" }, p));
  }
  if (analysis.pending) box.append(el("p", { className: "muted wide", "data-testid": "analysis-pending" }, "Computing the double-dummy analysis…"));
  for (const note of analysis.notes || []) box.append(el("p", { className: "muted" }, note));
  if (!box.childElementCount) box.append(el("p", { className: "muted" }, "No analysis for this deal."));
}
