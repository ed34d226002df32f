// Panels shown around the table: the deal's result and scores, the running score sheet, the analysis.

import {
  SEATS, SEAT_NAMES, DENOMS, HAND_SUIT_ORDER, callFragment, el, parseCard, rankText, seatLetter, sortCards, suitSpan,
} from "./cards.js";
import { dealWord } from "./eventlink.js";
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
    frag.append(`${dealWord(view)} over.`);
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

export const INSULT_WORDS = "doubling bonus (doubled and made: the insult)"; // as the lobby says (words.py)

const SCORE_WORDS = {
  overtricks: "overtricks",
  double_bonus: INSULT_WORDS,
  making_bonus: "making bonus",
  undertricks_each_defender: "penalty for the undertricks, to each defender",
  declarer_penalty: "the declarer's undertrick penalty",
  honours_declarer: "the declarer's honours",
  honours_defender_lho: "honours of the defender at the declarer's left",
  honours_defender_rho: "honours of the defender at the declarer's right",
  game_bonus: "game bonus (a game won)",
  rubber_bonus: "rubber bonus (the rubber won)",
};

/** The sheet's entry of the view's deal (game and rubber bonuses, each chair's change of total). */
function sheetEntry(view) {
  return ((view.score_sheet || {}).deals || []).find((d) => d.deal_no === view.deal_no) || null;
}

/** Every part of this deal's own score in words: trick points (game or part score), slams, doubling, penalties. */
export function scoreParts(view) {
  const breakdown = (view.scores || {}).breakdown || {};
  const entry = sheetEntry(view);
  const game = (entry ? entry.bonuses || [] : []).some((b) => b.kind === "game_bonus");
  const tricks = (view.result || {}).declarer_tricks;
  const parts = [];
  for (const [key, points] of Object.entries(breakdown)) {
    if (!points) continue;
    let words = SCORE_WORDS[key] || key.replaceAll("_", " ");
    if (key === "contract_tricks") words = game ? "tricks bid (they make game)" : "tricks bid (a part score towards game)";
    if (key === "slam_bonus") words = tricks === 13 ? "grand slam bonus" : "small slam bonus";
    parts.push([words, points]);
  }
  return parts;
}

/** This deal's points for each chair, every part of the running total's change named (the deal's own score, the game
 * and rubber bonuses it won), the change, and the running total after it (the score sheet's Total). */
export function renderDealScores(table, view) {
  table.replaceChildren();
  const scores = view.scores;
  if (!scores) return;
  const perChair = scores.per_chair || (Array.isArray(scores) ? scores : null);
  const entry = sheetEntry(view);
  const chairs = (view.chairs || [0, 0, 0]).map((_, i) => i);
  const head = el("tr", {}, el("th", {}, ""));
  for (const chair of chairs) head.append(el("th", {}, chairLabel(view, chair)));
  const body = el("tbody");
  const addRow = (label, title, values, testid) => {
    const row = el("tr", {}, el("th", { title }, label));
    for (const chair of chairs) {
      row.append(el("td", testid ? { "data-testid": `${testid}-${chair}` } : {}, fmtPoints(values ? values[chair] : null)));
    }
    body.append(row);
  };
  addRow("This deal", "the deal's own score, before game and rubber bonuses", perChair, "deal-score");
  for (const bonus of entry ? entry.bonuses || [] : []) {
    addRow(`+ ${SCORE_WORDS[bonus.kind] || bonus.kind}`, "won with this deal, added to the running total",
      chairs.map((c) => (c === bonus.chair ? bonus.points : 0)), `deal-${bonus.kind}`);
  }
  if (entry) {
    addRow("= Change of total", "the running total's change: this deal's score and the bonuses it won", entry.change, "deal-change");
    const sheet = view.score_sheet || {};
    const latest = (sheet.deals || []).at(-1);
    if (latest && latest.deal_no === view.deal_no) {
      addRow("Running total (score sheet)", "the score sheet's Total after this deal: all deals, all rubbers",
        sheet.totals, "deal-total");
    }
  }
  table.append(el("thead", {}, head), body);
  const parts = scoreParts(view);
  if (parts.length) {
    const text = parts.map(([words, points]) => `${words} ${points}`).join("; ");
    table.append(el("caption", { className: "breakdown" }, `This deal's score: ${text}`));
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

/** The one label of a seat in the analysis: who sits there in the play, and the seat ("Ann (South)"). */
function seatLabel(view, seat) {
  const chair = Object.entries(view.seats || {}).find(([, s]) => seatLetter(s) === seat);
  const who = chair ? chairLabel(view, Number(chair[0])) : seat === seatLetter(view.dummy_seat) ? "Dummy" : "Widow";
  return `${who} (${SEAT_NAMES[seat]})`;
}

/** A chair's label in the analysis: the same as over its hand. */
function chairSeatLabel(view, chair) {
  const seat = seatLetter((view.seats || {})[String(chair)]);
  return seat ? seatLabel(view, seat) : chairLabel(view, chair);
}

function handsSection(view, analysis) {
  const hands = el("div", { className: "hands-grid" });
  for (const seat of SEATS) {
    const cards = analysis.hands[seat];
    if (!cards) continue;
    hands.append(el("div", { className: `hand-cell cell-${seat}` },
      el("div", { className: "cell-title" }, seatLabel(view, seat)), handDiagram(cards)));
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
      el("th", {}, chairSeatLabel(view, entry.chair)));
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
    list.append(el("tr", { "data-chair": String(entry.chair) }, el("th", {}, chairSeatLabel(view, entry.chair)),
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
      callFragment(best.contract), ` by ${chairSeatLabel(view, best.declarer_chair)},`
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
  if (analysis.pending) {
    box.append(el("p", { className: "muted wide analysis-status", "data-testid": "analysis-pending" },
      "Computing the double-dummy analysis…"));
  } else for (const note of analysis.notes || []) box.append(el("p", { className: "muted wide" }, note));
  if (!analysis.pending && analysis.declarer_tricks) box.append(glossary());
  if (!box.childElementCount) box.append(el("p", { className: "muted" }, "No analysis for this deal."));
}

const GLOSSARY = [
  ["Double dummy", "The tricks a side takes when every player sees all four hands and plays perfectly: a fixed"
    + " yardstick of what the cards allow, not what people find at the table."],
  ["Best contract", "The highest-scoring contract, undoubled, that would make: read from the double-dummy table,"
    + " bid exactly to the tricks it takes."],
  ["Capture count", "The seed paper's counting rule for a no-trump hand: how many cards the player and the widow"
    + " capture (win) in no-trumps. A quick count, not double-dummy tricks; 0 when its conditions fail."],
  ["No-Trump call rule", "The seed paper's rule for bidding no-trumps on one's own hand: enough top cards"
    + " (condition A) and no suit too short for the top cards it misses (condition B), up to the level it allows."],
  ["Widow", "The fourth hand: face down in the auction, then the declarer's dummy, moved opposite the declarer."],
];

/** The research words of the analysis, explained. */
function glossary() {
  const list = el("dl", { className: "glossary" });
  for (const [term, words] of GLOSSARY) list.append(el("dt", {}, term), el("dd", {}, words));
  return el("section", { className: "wide" }, el("h3", {}, "The words"), list);
}
