// Panels shown around the table: the deal's result and scores, the running score sheet, the analysis.

import {
  SEATS, SEAT_NAMES, DENOMS, HAND_SUIT_ORDER, callFragment, el, parseCard, rankText, seatLetter, sortCards, suitSpan,
} from "./cards.js";
import { chairLabel } from "./names.js";

function seatName(seat) {
  const s = seatLetter(seat);
  return s ? SEAT_NAMES[s] : "";
}

function fmtPoints(n) {
  return n === null || n === undefined ? "–" : String(n);
}

function tricksWord(n) {
  return `${n} trick${n === 1 ? "" : "s"}`;
}

/** How the deal ended, e.g. "4♠ by You (South): 10 tricks, made with 1 over" (symbols as everywhere else). */
export function resultText(view) {
  const result = view.result || {};
  const frag = document.createDocumentFragment();
  if (result.passed_out) {
    frag.append("Passed out: all three players passed. No score.");
    return frag;
  }
  const contract = result.contract ?? view.contract;
  if (!contract) {
    frag.append("Deal over.");
    return frag;
  }
  const level = Number(String(contract)[0]);
  const tricks = result.declarer_tricks ?? (view.tricks || {}).declarer ?? 0;
  const need = level + 6;
  const how = tricks >= need ? (tricks === need ? "made exactly" : `made with ${tricks - need} over`) : `down ${need - tricks}`;
  const chair = result.declarer_chair ?? view.declarer_chair;
  const seat = seatName(view.declarer ?? result.declarer);
  frag.append(callFragment(contract), ` by ${chairLabel(view, chair)}${seat ? ` (${seat})` : ""}: ${tricksWord(tricks)}, ${how}`);
  return frag;
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
    head.append(el("th", {}, chairLabel(view, chair)));
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

/** The result as a score sheet writes it: "=" made exactly, "+1" one over, "−2" two down. */
function resultMark(contract, tricks) {
  const need = Number(String(contract)[0]) + 6;
  if (tricks === undefined || tricks === null) return "";
  if (tricks === need) return "=";
  return tricks > need ? `+${tricks - need}` : `−${need - tricks}`;
}

/** A short name for narrow columns. */
function shortName(view, chair) {
  const name = chairLabel(view, chair).replace(" bot", "");
  return name.length > 8 ? `${name.slice(0, 7)}…` : name;
}

/** The running score sheet: one row per deal (its number reopens it), games in the rubber, totals. */
export function renderScoreSheet(box, view, onReview) {
  box.replaceChildren();
  const sheet = view.score_sheet;
  const chairs = (view.chairs || [0, 0, 0]).map((_, i) => i);
  if (!sheet || !(sheet.deals || []).length) {
    box.append(el("p", { className: "muted" }, "No deals scored yet."));
    if (!sheet) return;
  }
  const table = el("table", { className: "sheet" });
  const head = el("tr", {}, el("th", { title: "deal number: click to review the deal" }, "#"),
    el("th", { title: "the contract and its result: = made exactly, +1 one over, −2 two down" }, "Contract"));
  for (const chair of chairs) head.append(el("th", { title: chairLabel(view, chair) }, shortName(view, chair)));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const deal of sheet.deals || []) {
    const number = el("td");
    if (deal.contract && onReview) {
      const button = el("button", { type: "button", className: "reopen", title: `Review deal ${deal.deal_no}`,
        "data-testid": `reopen-${deal.deal_no}` }, String(deal.deal_no));
      button.addEventListener("click", () => onReview(deal.deal_no));
      number.append(button);
    } else number.textContent = String(deal.deal_no ?? "");
    const contract = el("td", { className: "contract" });
    if (deal.contract) {
      contract.append(callFragment(deal.contract), ` ${resultMark(deal.contract, deal.declarer_tricks)}`);
      contract.title = `${deal.contract} by ${chairLabel(view, deal.declarer_chair)}: ${tricksWord(deal.declarer_tricks)}`;
    } else contract.textContent = "passed out";
    const row = el("tr", {}, number, contract);
    for (const chair of chairs) {
      const declarer = deal.contract && chair === deal.declarer_chair;
      row.append(el("td", declarer ? { className: "declarer", title: "declarer" } : {}, fmtPoints((deal.per_chair || [])[chair])));
    }
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
  const shown = (sheet.deals || []).length;
  const older = sheet.deals_total > shown ? ` The last ${shown} of ${sheet.deals_total} deals are shown.` : "";
  box.append(el("div", { className: "sheet-scroll" }, table), el("p", { className: "muted caption" },
    "Contract and result: = made exactly, +1 one over, −2 two down; the declarer's points are underlined."
    + (onReview ? " A deal's number reopens it." : "") + older));
  for (const rubber of sheet.rubbers || []) {
    const winner = rubber.winner_chair;
    box.append(el("p", { className: "rubber" },
      `Rubber won by ${winner === undefined || winner === null ? "?" : chairLabel(view, winner)}`
      + (rubber.per_chair ? `: ${rubber.per_chair.join(" / ")}` : "")));
  }
}

/** Cards from a list like ["SA", ...] or a PBN hand "S.H.D.C". */
function cardsOf(hand) {
  if (Array.isArray(hand)) return hand;
  const out = [];
  String(hand || "").split(".").forEach((ranks, i) => {
    for (const rank of ranks) out.push("SHDC"[i] + rank);
  });
  return out;
}

/** A hand as four lines, one per suit (a list of cards or PBN). */
export function handDiagram(hand) {
  const box = el("div", { className: "mini-hand" });
  const sorted = sortCards(cardsOf(hand));
  for (const suit of HAND_SUIT_ORDER) {
    const ranks = sorted.filter((c) => parseCard(c).suit === suit).map((c) => rankText(parseCard(c).rank));
    box.append(el("div", {}, suitSpan(suit), " ", ranks.length ? ranks.join(" ") : "—"));
  }
  return box;
}

function handsSection(view, analysis) {
  const seatsMap = {};
  for (const [chair, seat] of Object.entries(view.seats || {})) seatsMap[seatLetter(seat)] = Number(chair);
  const who = (seat) => (seatsMap[seat] !== undefined ? chairLabel(view, seatsMap[seat])
    : seat === seatLetter(view.dummy_seat) ? "dummy" : "widow");
  const hands = el("div", { className: "hands-grid" });
  for (const seat of SEATS) {
    const cards = analysis.hands[seat];
    if (!cards) continue;
    hands.append(el("div", { className: `hand-cell cell-${seat}` },
      el("div", { className: "cell-title" }, `${SEAT_NAMES[seat]} (${who(seat)})`), handDiagram(cards)));
  }
  return el("section", { className: "wide" }, el("h3", {}, "The hands"), hands);
}

function declarerTable(view, entries) {
  const table = el("table", { className: "dd", "data-testid": "declarer-tricks" });
  const head = el("tr", {}, el("th", {}, "Declarer"));
  for (const denom of DENOMS) head.append(el("th", {}, denom === "N" ? "NT" : suitSpan(denom)));
  table.append(el("thead", {}, head));
  const body = el("tbody");
  for (const entry of entries) {
    const tr = el("tr", { "data-chair": String(entry.chair) },
      el("th", {}, `${chairLabel(view, entry.chair)} (${entry.seat})`));
    for (const denom of DENOMS) {
      const key = denom === "N" ? "NT" : denom;
      tr.append(el("td", { "data-strain": key }, fmtPoints(entry.tricks[key])));
    }
    body.append(tr);
  }
  table.append(body);
  return table;
}

function perChair(view, title, entries, testid, caption) {
  const list = el("table", { className: "per-seat", "data-testid": testid });
  for (const entry of entries) {
    list.append(el("tr", { "data-chair": String(entry.chair) }, el("th", {}, chairLabel(view, entry.chair)),
      el("td", {}, entry.text)));
  }
  return el("section", {}, el("h3", {}, title), caption ? el("p", { className: "muted caption" }, caption) : null, list);
}

/** The analysis panel: the hands; for each player, double-dummy tricks with the widow as dummy; best contract; estimates. */
export function renderAnalysis(box, view) {
  box.replaceChildren();
  const analysis = view.analysis || {};
  if (analysis.hands) box.append(handsSection(view, analysis));
  if (analysis.declarer_tricks) {
    const section = el("section", {}, el("h3", {}, "Double dummy: each player declaring, the widow as dummy"),
      declarerTable(view, analysis.declarer_tricks));
    if (analysis.widow) {
      section.append(el("p", { className: "muted caption" },
        `The widow (${seatName(analysis.widow.seat)} during the auction) moves opposite the declarer.`));
    }
    box.append(section);
  }
  const best = analysis.best_contract;
  if (best) {
    const p = el("p", { className: "best", "data-testid": "best-contract" }, "Best contract: ",
      callFragment(best.contract), ` by ${chairLabel(view, best.declarer_chair)} (${best.declarer}),`
      + ` ${tricksWord(best.tricks)}, scoring ${best.score}`);
    box.append(el("section", { className: "wide" }, p));
  } else if (analysis.declarer_tricks) {
    box.append(el("section", { className: "wide" }, el("p", { className: "best", "data-testid": "best-contract" },
      "Best contract: none makes; pass.")));
  }
  if (analysis.capture) {
    box.append(perChair(view, "Capture count", analysis.capture.per_chair, "capture", analysis.capture.label));
  }
  if (analysis.nt_calls) {
    box.append(perChair(view, "No-Trump call rule (own hand)", analysis.nt_calls, "nt-calls",
      "The seed paper's rule for bidding no-trumps on one's own hand."));
  }
  if (analysis.pending) box.append(el("p", { className: "muted wide", "data-testid": "analysis-pending" }, "Computing the double-dummy analysis…"));
  for (const note of analysis.notes || []) box.append(el("p", { className: "muted wide" }, note));
  if (!box.childElementCount) box.append(el("p", { className: "muted" }, "No analysis for this deal."));
}
