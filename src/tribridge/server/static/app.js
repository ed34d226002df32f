// The web table's entry point: lobby, joining by link, the table view, pacing of pushed views, keyboard play.

import {
  SEATS, SEAT_NAMES, seatLetter, relativePosition, sortCards, normCard,
  cardElement, cardBack, parseCard, suitSpan, HAND_SUIT_ORDER,
} from "./cards.js";
import { renderAuction } from "./auction.js";
import { initClaims, renderClaim } from "./claims.js";
import { chairLabel } from "./names.js";
import { initKeys, renderKeyHint } from "./keys.js";
import { ApiError, TableConnection } from "./api.js";
import { forgetSeat, initLobby, showJoin, showLobby, storedTables } from "./lobby.js";
import { renderAnalysis, renderScoreSheet, renderDealScores, resultText } from "./panels.js";
import { initReview, openReview, reviewBack } from "./review.js";
import { isStale, plainMessage } from "./messages.js";
import { initDownloads } from "./downloads.js";
import { initHints, renderHint } from "./hints.js";
import { initWatchers, renderWatchers } from "./watchers.js";
import { initTalk, renderTalk } from "./talk.js";
import { initUndo, renderUndo, undoNotice } from "./undo.js";
import { flashTitle, noticeFor, renderNextReady, renderStatus } from "./status.js";
import { dealWord, renderEventLink } from "./eventlink.js";

const params = new URLSearchParams(location.search);
// Minimum time between two displayed views, so a person can follow the bots (?pace=ms overrides).
const PACE_MS = Number.isFinite(Number(params.get("pace"))) && params.get("pace") !== null
  ? Number(params.get("pace")) : 700;
const MESSAGE_MS = 4000; // a message by the hand goes after this long, or at the next change of the table

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- routing

function showSection(name) {
  for (const id of ["lobby", "join", "table"]) $(id).hidden = id !== name;
}

function tableUrl(tableId) {
  const url = new URL(location.href);
  url.search = "";
  url.hash = "";
  url.searchParams.set("table", tableId);
  if (params.get("pace") !== null) url.searchParams.set("pace", params.get("pace"));
  return url.toString();
}

function goToTable(tableId) {
  history.pushState(null, "", tableUrl(tableId));
  route();
}

function route() {
  const tableId = new URLSearchParams(location.search).get("table");
  if (!tableId) {
    closeTable();
    showSection("lobby");
    showLobby(tableUrl);
    return;
  }
  const seat = storedTables()[tableId];
  if (seat) openTable(tableId, seat.token);
  else if (new URLSearchParams(location.search).get("watch") !== null) {
    const follow = new URLSearchParams(location.search).get("chair");
    openTable(tableId, null, follow === null || follow === "" ? null : Number(follow));
  }
  else joinTable(tableId);
}

function joinTable(tableId, message = "") {
  showSection("join");
  showJoin(tableId, message, route, watchTable);
}

/** Watch a table as a spectator (no chair, no token). */
function watchTable(tableId) {
  const url = new URL(tableUrl(tableId));
  url.searchParams.set("watch", "");
  history.pushState(null, "", url.toString());
  route();
}

window.addEventListener("popstate", () => {
  if (reviewBack()) return; // Back with the review open closes the review, not the table
  if (!$("help").hidden) $("help").hidden = true;
  route();
});

// ---------------------------------------------------------------- the table: connection and pacing

let conn = null;
let shown = null; // the view on screen
let queue = []; // pushed views waiting to be shown
let newestVersion = -1;
let newestText = ""; // the newest view received, as JSON
let lastShownAt = 0;
let pumpTimer = null;
let messageTimer = null;
let messageVersion = null; // the version shown when the message appeared
let noticeVersion = null; // the version whose notice (a disputed claim) was shown

function closeTable() {
  flashTitle(null);
  if (conn) conn.close();
  conn = null;
  shown = null;
  queue = [];
  newestVersion = -1;
  newestText = "";
  clearTimeout(pumpTimer);
  pumpTimer = null;
}

async function openTable(tableId, token, follow = null) {
  closeTable();
  showSection("table");
  const connection = new TableConnection(tableId, token, receiveView, connectionStatus, follow);
  conn = connection;
  try {
    const view = await connection.state();
    showNow(view);
  } catch (err) {
    if (conn !== connection) return;
    closeTable();
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
      forgetSeat(tableId);
      joinTable(tableId, `Your seat at this table is no longer valid (${err.message}).`);
    } else {
      showError(`Could not load the table: ${plainMessage(err)}`);
    }
    return;
  }
  connection.start();
}

function connectionStatus(status) {
  if (status === "taken") {
    seatTakenElsewhere();
    return;
  }
  $("conn").textContent = status === "live" ? "● live" : status === "polling" ? "○ polling" : "";
  $("conn").className = `conn conn-${status}`;
}

/** The server closed the socket: this chair was taken back on another device, whose new token replaced ours. */
function seatTakenElsewhere() {
  const tableId = conn && conn.tableId;
  closeTable();
  if (!tableId) return;
  forgetSeat(tableId);
  joinTable(tableId, "Your seat at this table was taken on another device.");
}

function versionOf(view) {
  return typeof view.version === "number" ? view.version : null;
}

/** A view pushed by the server or polled: queue it, newest versions only. */
function receiveView(view) {
  const version = versionOf(view);
  const text = JSON.stringify(view);
  if (version !== null) {
    // A view of the same version may still bring news (the analysis arrives after the deal).
    if (version < newestVersion || (version === newestVersion && text === newestText)) return;
    newestVersion = version;
  }
  newestText = text;
  queue.push(view);
  pump();
}

/** Show queued views one by one, at least PACE_MS apart. */
function pump() {
  if (pumpTimer || queue.length === 0) return;
  const wait = lastShownAt + PACE_MS - Date.now();
  if (wait > 0) {
    pumpTimer = setTimeout(() => {
      pumpTimer = null;
      pump();
    }, wait);
    return;
  }
  render(queue.shift());
  if (queue.length) pump();
}

/** Show a view at once (the answer to our own action), dropping older queued views. */
function showNow(view) {
  const version = versionOf(view);
  if (version !== null) {
    if (version < newestVersion && shown && versionOf(shown) !== null && versionOf(shown) >= version) return;
    if (version >= newestVersion) newestText = JSON.stringify(view);
    newestVersion = Math.max(newestVersion, version);
    queue = queue.filter((v) => versionOf(v) === null || versionOf(v) > version);
  }
  render(view);
  pump();
}

let inFlight = false; // an action of ours is on its way: further clicks are ignored until it is answered

/** Send an action; ``versioned`` actions carry the version on screen (table talk and the like do not). */
async function act(action, versioned = true) {
  if (!conn || (versioned && inFlight) || (shown && shown.spectator)) return;
  if (versioned) inFlight = true; // side actions (talk) never block a call or a card
  const body = { ...action };
  if (versioned && shown && versionOf(shown) !== null) body.version = versionOf(shown);
  try {
    const view = await conn.act(body);
    if (view && typeof view === "object" && "phase" in view) showNow(view);
  } catch (err) {
    if (!isStale(err)) showError(plainMessage(err)); // a stale version: the table moved on; show where it is
    try {
      showNow(await conn.state());
    } catch {
      // The next poll or push will bring the state.
    }
  } finally {
    if (versioned) inFlight = false;
  }
}

/** A short message next to the hand; it goes at the next change of the table or after MESSAGE_MS. */
function showError(message) {
  $("table-msg").textContent = message;
  $("table-msg").dataset.last = message; // kept after the message goes (for tests and screen readers' history)
  messageVersion = shown ? versionOf(shown) : null;
  clearTimeout(messageTimer);
  messageTimer = setTimeout(clearMessage, MESSAGE_MS);
}

function clearMessage() {
  $("table-msg").textContent = "";
  messageVersion = null;
}

// ---------------------------------------------------------------- the table: rendering

function chairOfSeat(view) {
  const map = {};
  for (const [chair, seat] of Object.entries(view.seats || {})) map[seatLetter(seat)] = Number(chair);
  return map;
}

function isDone(view) {
  return view.phase === "done";
}

function legalCardSet(view) {
  return new Set(view.my_turn ? (view.legal_cards || []).map(normCard) : []);
}

function render(view) {
  shown = view;
  lastShownAt = Date.now();
  const mySeat = seatLetter(view.my_seat);
  const dummySeat = seatLetter(view.dummy_seat);
  const widowSeat = seatLetter(view.widow_seat) || dummySeat
    || (seatLetter(view.dealer) ? SEATS[(SEATS.indexOf(seatLetter(view.dealer)) + 2) % 4] : null);
  const declarer = seatLetter(view.declarer);
  const turn = seatLetter(view.turn);
  const bySeat = chairOfSeat(view);
  const legal = legalCardSet(view);

  const root = $("table");
  root.dataset.phase = view.phase || "";
  root.dataset.myTurn = view.my_turn ? "true" : "false";
  root.dataset.version = versionOf(view) ?? "";
  root.dataset.dealNo = view.deal_no ?? "";
  root.dataset.mySeat = mySeat || "";

  renderStatus(view, bySeat, { declarer, turn, dummySeat });
  renderInvite(view);
  renderClaim(view);
  renderHint(view);
  renderWatchers(view, tableUrl);
  renderTalk(view);
  renderUndo(view);
  flashTitle(view);
  if (messageVersion !== null && versionOf(view) !== messageVersion) clearMessage();
  const notice = noticeFor(view) || undoNotice(view);
  if (notice && noticeVersion !== versionOf(view)) {
    noticeVersion = versionOf(view);
    showError(notice);
  }

  for (const seat of SEATS) {
    const pos = relativePosition(seat, mySeat || "S");
    const el = $(`pos-${pos}`);
    el.replaceChildren();
    el.dataset.seat = seat;
    el.classList.toggle("turn", turn === seat && !isDone(view));
    const label = document.createElement("div");
    label.className = "seat-label";
    const who = document.createElement("span");
    who.className = "who";
    const chair = bySeat[seat];
    who.textContent = chair !== undefined ? chairLabel(view, chair) : seat === dummySeat ? "Dummy" : "Widow";
    const where = document.createElement("span");
    where.className = "seat-name";
    where.textContent = SEAT_NAMES[seat];
    label.append(who, " ", where);
    const badges = [];
    if (seat === seatLetter(view.dealer) && view.phase === "auction") badges.push("dealer");
    if (seat === declarer) badges.push("declarer");
    if (seat === dummySeat && view.phase !== "auction") badges.push("dummy");
    for (const badge of badges) {
      const b = document.createElement("span");
      b.className = `badge badge-${badge}`;
      b.textContent = badge;
      label.append(" ", b);
    }
    el.append(label);
    el.append(renderHand(view, seat, { mySeat, dummySeat, widowSeat, legal, pos }));
  }
  renderTrick(view, mySeat || "S");
  renderAuction(view, act);
  renderResult(view);
  renderEventLink(view, act);
  renderScoreSheet($("score-sheet"), view, reviewDeal);
  renderAnalysisBox(view);
  renderKeyHint(view);
}

function renderInvite(view) {
  const open = (view.chairs || []).map((c, i) => (c && c.kind === "human" && c.taken === false ? i : null))
    .filter((c) => c !== null);
  $("invite").hidden = open.length === 0 || Boolean(view.spectator);
  if ($("invite").hidden) return;
  const who = open.map((c) => `chair ${c + 1}`).join(" and ");
  $("invite-text").textContent = `Your friend${open.length > 1 ? "s have" : " has"} not joined yet (${who}).`
    + " Send this link; the game starts when they take their chair:";
  $("invite-link").value = tableUrl(view.table_id || new URLSearchParams(location.search).get("table"));
}

$("copy-link").addEventListener("click", async () => {
  const input = $("invite-link");
  input.select();
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    document.execCommand("copy");
  }
});

function cardCount(view, seat) {
  const counts = view.hand_counts || {};
  if (counts[seat] !== undefined) return counts[seat];
  return view.phase === "auction" ? 13 : 0;
}

function renderHand(view, seat, { mySeat, dummySeat, widowSeat, legal, pos }) {
  const box = document.createElement("div");
  let faceUp = null;
  if (seat === mySeat && !view.hand_hidden) faceUp = view.hand || [];
  else if (seat === dummySeat && Array.isArray(view.widow)) faceUp = view.widow;

  if (faceUp) {
    const cards = sortCards(faceUp);
    const bySuitRows = seat !== mySeat; // dummy: one row per suit, like a diagram
    box.className = `hand face-up ${bySuitRows ? "by-suit" : "row"}`;
    box.dataset.hand = seat === mySeat ? "mine" : "dummy";
    if (bySuitRows) {
      for (const suit of HAND_SUIT_ORDER) {
        const row = document.createElement("div");
        row.className = "suit-row";
        for (const card of cards.filter((c) => parseCard(c).suit === suit)) {
          row.append(playableCard(card, legal, true));
        }
        row.style.setProperty("--cards", String(row.childElementCount));
        const label = suitSpan(suit); // shown on phones, where the side dummy's cards show their rank only
        label.classList.add("row-suit");
        if (row.childElementCount) box.append(row);
        row.prepend(label);
      }
    } else {
      for (const card of cards) box.append(playableCard(card, legal, false));
    }
    return box;
  }
  const count = cardCount(view, seat);
  box.className = `hand backs ${pos === "left" || pos === "right" ? "vertical" : ""}`;
  box.dataset.count = String(count);
  for (let i = 0; i < count; i += 1) box.append(cardBack());
  const note = document.createElement("span");
  note.className = "count";
  note.textContent = seat === widowSeat && view.phase === "auction" ? `widow, face down` : `${count} cards`;
  box.append(note);
  return box;
}

function playableCard(card, legal, small) {
  const playable = legal.has(normCard(card));
  const el = cardElement(card, { playable, small });
  if (playable) el.addEventListener("click", () => act({ type: "play", card: normCard(card) }));
  return el;
}

function renderTrick(view, mySeat) {
  for (const pos of ["top", "left", "right", "bottom"]) $(`slot-${pos}`).replaceChildren();
  let cards = view.current_trick || [];
  let last = false;
  let winner = null;
  if (cards.length === 0 && view.last_trick && view.phase !== "auction") {
    cards = view.last_trick.cards || [];
    winner = seatLetter(view.last_trick.winner);
    last = true;
  }
  $("trick").classList.toggle("last", last);
  cards.forEach((entry, index) => {
    const card = typeof entry === "string" ? entry : entry.card;
    const seat = typeof entry === "string" ? null : seatLetter(entry.seat);
    if (!seat) return;
    const el = cardElement(card, {});
    el.classList.add("played");
    el.style.zIndex = String(index + 1);
    if (last && seat === winner) el.classList.add("winner");
    $(`slot-${relativePosition(seat, mySeat)}`).append(el);
  });
}

function renderResult(view) {
  const done = isDone(view);
  $("result-box").hidden = !done;
  if (!done) return;
  $("result").replaceChildren(resultText(view));
  renderDealScores($("deal-scores"), view);
  renderNextReady(view);
  $("review-deal").hidden = !(view.result && view.result.contract);
  $("downloads").hidden = Boolean(view.spectator);
}

/** Open the review of a finished deal of this table. */
async function reviewDeal(dealNo) {
  if (!conn) return;
  try {
    const review = await conn.review(dealNo);
    review.deal_no = review.deal_no ?? dealNo;
    review.deal_word = dealWord(shown);
    openReview(review, (chair, seat) => (chair === null || chair === undefined ? seat : chairLabel(shown, chair)));
  } catch (err) {
    showError(`No review of deal ${dealNo}: ${err.message}`);
  }
}

$("review-deal").addEventListener("click", () => shown && reviewDeal(shown.deal_no));

$("next-deal").addEventListener("click", () => {
  $("next-deal").disabled = true;
  act({ type: "next" });
});

function renderAnalysisBox(view) {
  const show = isDone(view) && view.analysis;
  $("analysis-box").hidden = !show;
  if (show) renderAnalysis($("analysis"), view);
}

// ---------------------------------------------------------------- keyboard

initKeys({ view: () => shown, act, showError });

// ---------------------------------------------------------------- help

$("help-toggle").addEventListener("click", (event) => {
  event.preventDefault();
  $("help").hidden = !$("help").hidden;
});
$("help-close").addEventListener("click", () => {
  $("help").hidden = true;
});

$("show-side").addEventListener("click", () => {
  $("table").classList.toggle("side-open");
});
$("side-close").addEventListener("click", () => {
  $("table").classList.remove("side-open");
});

initLobby(goToTable);
initHints(() => conn, () => shown);
initWatchers(act, () => shown);
initTalk(act);
initUndo(act);
initDownloads(() => (conn && conn.token && shown ? { tableId: conn.tableId, token: conn.token, dealNo: shown.deal_no } : null),
  (err) => showError(plainMessage(err)));
initClaims(act);
initReview();
route();

// Exposed for the browser tests and for debugging in the console.
window.tribridge = { get view() { return shown; }, suitSpan };
