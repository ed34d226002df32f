// The web table's entry point: lobby, joining by link, the table view, pacing of pushed views, keyboard play.

import {
  SEATS, SEAT_NAMES, DENOMS, RANKS, seatLetter, relativePosition, sortCards, normCard, normCall,
  callFragment, cardElement, cardBack, parseCard, suitSpan, HAND_SUIT_ORDER,
} from "./cards.js";
import { ApiError, TableConnection, createTable, fetchOptions, fetchTableInfo, takeSeat } from "./api.js";
import { renderAnalysis, renderScoreSheet, renderDealScores, resultText } from "./panels.js";

const DEFAULT_OPTIONS = {
  bots: ["random", "paper", "estimate", "simulation", "pimc", "dd"],
  schemes: ["classic", "tribridge"],
};
const PREFERRED_BOTS = ["pimc", "paper", "estimate", "simulation", "random"];
const STORE_KEY = "tribridge.tables";
const params = new URLSearchParams(location.search);
// Minimum time between two displayed views, so a person can follow the bots (?pace=ms overrides).
const PACE_MS = Number.isFinite(Number(params.get("pace"))) && params.get("pace") !== null
  ? Number(params.get("pace")) : 700;

const $ = (id) => document.getElementById(id);

// ---------------------------------------------------------------- token storage

/** All tables this browser holds a chair at: {tableId: {token, chair, at}}. */
function storedTables() {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

function rememberSeat(tableId, token, chair) {
  const tables = storedTables();
  tables[tableId] = { token, chair, at: Date.now() };
  localStorage.setItem(STORE_KEY, JSON.stringify(tables));
}

function forgetSeat(tableId) {
  const tables = storedTables();
  delete tables[tableId];
  localStorage.setItem(STORE_KEY, JSON.stringify(tables));
}

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
    showLobby();
    return;
  }
  const seat = storedTables()[tableId];
  if (seat) openTable(tableId, seat.token);
  else showJoin(tableId);
}

window.addEventListener("popstate", route);

// ---------------------------------------------------------------- lobby

function fillSelect(select, entries, chosen) {
  select.replaceChildren();
  for (const [value, label] of entries) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = label;
    if (value === chosen) option.selected = true;
    select.append(option);
  }
}

async function showLobby() {
  showSection("lobby");
  const options = (await fetchOptions()) || DEFAULT_OPTIONS;
  const bots = options.bots && options.bots.length ? options.bots : DEFAULT_OPTIONS.bots;
  const schemes = options.schemes && options.schemes.length ? options.schemes : DEFAULT_OPTIONS.schemes;
  const preferred = PREFERRED_BOTS.find((b) => bots.includes(b)) || bots[0];
  const chairEntries = [...bots.map((b) => [`bot:${b}`, `Bot: ${b}`]), ["friend", "A friend (share a link)"]];
  for (const id of ["chair-1", "chair-2"]) {
    if (!$(id).options.length) fillSelect($(id), chairEntries, `bot:${preferred}`);
  }
  if (!$("scheme").options.length) fillSelect($("scheme"), schemes.map((s) => [s, s]), schemes[0]);

  const tables = Object.entries(storedTables()).sort((a, b) => b[1].at - a[1].at).slice(0, 5);
  $("resume").hidden = tables.length === 0;
  const list = $("resume-list");
  list.replaceChildren();
  for (const [tableId, seat] of tables) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = tableUrl(tableId);
    a.textContent = `Table ${tableId} (chair ${seat.chair + 1})`;
    li.append(a);
    list.append(li);
  }
}

$("new-game").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("lobby-error").textContent = "";
  const chair = (value) => (value === "friend" ? { kind: "human" } : { kind: "bot", bot: value.slice(4) });
  const chairs = [{ kind: "human" }, chair($("chair-1").value), chair($("chair-2").value)];
  $("start-game").disabled = true;
  try {
    const created = await createTable(chairs, $("scheme").value);
    let { token, chair: myChair } = created;
    if (!token) ({ token, chair: myChair } = await takeSeat(created.table_id, 0));
    rememberSeat(created.table_id, token, myChair ?? 0);
    goToTable(created.table_id);
  } catch (err) {
    $("lobby-error").textContent = `Could not start the game: ${err.message}`;
  } finally {
    $("start-game").disabled = false;
  }
});

$("join-form").addEventListener("submit", (event) => {
  event.preventDefault();
  const text = $("join-id").value.trim();
  if (!text) return;
  let tableId = text;
  try {
    tableId = new URL(text).searchParams.get("table") || text;
  } catch {
    // Not a URL: an id.
  }
  goToTable(tableId);
});

// ---------------------------------------------------------------- joining by link

async function showJoin(tableId, message = "") {
  showSection("join");
  $("join-table-id").textContent = tableId;
  $("join-error").textContent = message;
  const info = await fetchTableInfo(tableId);
  const box = $("join-chairs");
  box.replaceChildren();
  if (info && info.missing) {
    $("join-error").textContent = `There is no table ${tableId} on this server (${info.error}).`;
    return;
  }
  const chairs = (info && info.chairs) || [{}, {}, {}];
  chairs.forEach((chair, index) => {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.chair = String(index);
    if (chair.kind === "bot") {
      button.textContent = `Chair ${index + 1}: bot ${chair.bot ?? ""}`;
      button.disabled = true;
    } else if (chair.taken) {
      button.textContent = `Chair ${index + 1}: taken`;
      button.disabled = true;
    } else {
      button.textContent = `Take chair ${index + 1}`;
      button.classList.add("primary");
    }
    button.addEventListener("click", async () => {
      try {
        const seat = await takeSeat(tableId, index);
        rememberSeat(tableId, seat.token, seat.chair ?? index);
        route();
      } catch (err) {
        $("join-error").textContent = `Could not take chair ${index + 1}: ${err.message}`;
      }
    });
    box.append(button);
  });
}

// ---------------------------------------------------------------- the table: connection and pacing

let conn = null;
let shown = null; // the view on screen
let queue = []; // pushed views waiting to be shown
let newestVersion = -1;
let newestText = ""; // the newest view received, as JSON
let lastShownAt = 0;
let pumpTimer = null;
let keyBuffer = "";
let errorTimer = null;

function closeTable() {
  if (conn) conn.close();
  conn = null;
  shown = null;
  queue = [];
  newestVersion = -1;
  newestText = "";
  clearTimeout(pumpTimer);
  pumpTimer = null;
}

async function openTable(tableId, token) {
  closeTable();
  showSection("table");
  const connection = new TableConnection(tableId, token, receiveView, connectionStatus);
  conn = connection;
  try {
    const view = await connection.state();
    showNow(view);
  } catch (err) {
    if (conn !== connection) return;
    closeTable();
    if (err instanceof ApiError && (err.status === 403 || err.status === 404)) {
      forgetSeat(tableId);
      showJoin(tableId, `Your seat at this table is no longer valid (${err.message}).`);
    } else {
      showError(`Could not load the table: ${err.message}`);
    }
    return;
  }
  connection.start();
}

function connectionStatus(status) {
  $("conn").textContent = status === "live" ? "● live" : status === "polling" ? "○ polling" : "";
  $("conn").className = `conn conn-${status}`;
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

async function act(action) {
  if (!conn) return;
  const body = { ...action };
  if (shown && versionOf(shown) !== null) body.version = versionOf(shown);
  try {
    const view = await conn.act(body);
    if (view && typeof view === "object" && "phase" in view) showNow(view);
  } catch (err) {
    showError(err.message);
    try {
      showNow(await conn.state());
    } catch {
      // The next poll or push will bring the state.
    }
  }
}

function showError(message) {
  $("table-error").textContent = message;
  clearTimeout(errorTimer);
  errorTimer = setTimeout(() => {
    $("table-error").textContent = "";
  }, 5000);
}

// ---------------------------------------------------------------- the table: rendering

function chairOfSeat(view) {
  const map = {};
  for (const [chair, seat] of Object.entries(view.seats || {})) map[seatLetter(seat)] = Number(chair);
  return map;
}

function chairLabel(view, chair) {
  if (chair === null || chair === undefined || Number.isNaN(chair)) return "";
  if (chair === view.my_chair) return "You";
  const info = (view.chairs || [])[chair] || {};
  if (info.kind === "bot") return `${info.bot ?? "bot"} (bot)`;
  if (info.taken === false) return `Open chair ${chair + 1}`;
  return info.name || `Player ${chair + 1}`;
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
  renderClaim(view, declarer);

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
  renderAuction(view, mySeat);
  renderResult(view);
  renderScoreSheet($("score-sheet"), view);
  renderAnalysisBox(view);
  renderKeyHint(view);
}

function renderStatus(view, bySeat, { declarer, turn, dummySeat }) {
  const dealer = seatLetter(view.dealer);
  $("deal-info").textContent = `Deal ${view.deal_no ?? "?"}` + (dealer ? ` · dealer ${SEAT_NAMES[dealer]}` : "")
    + (view.scheme ? ` · ${view.scheme} scoring` : "");
  const contract = $("contract-info");
  contract.replaceChildren();
  if (view.contract) {
    contract.append("Contract ");
    const c = document.createElement("b");
    c.id = "contract";
    c.append(callFragment(view.contract));
    contract.append(c);
    if (declarer) contract.append(` by ${SEAT_NAMES[declarer]} (${chairLabel(view, bySeat[declarer]).replace(" (bot)", "")})`);
  } else if (view.phase === "auction") {
    contract.textContent = "Auction";
  } else if (isDone(view) && view.result && view.result.passed_out) {
    contract.textContent = "Passed out";
  }
  const tricks = view.tricks || {};
  const tricksEl = $("tricks-info");
  tricksEl.replaceChildren();
  if (view.phase !== "auction" && view.contract) {
    tricksEl.append("Tricks: declarer ");
    const d = document.createElement("b");
    d.id = "tricks-declarer";
    d.textContent = String(tricks.declarer ?? 0);
    tricksEl.append(d, " · defenders ");
    const f = document.createElement("b");
    f.id = "tricks-defenders";
    f.textContent = String(tricks.defenders ?? 0);
    tricksEl.append(f);
  }
  const turnInfo = $("turn-info");
  turnInfo.classList.toggle("mine", Boolean(view.my_turn));
  if (isDone(view)) turnInfo.textContent = "Deal over";
  else if (view.my_turn) {
    const fromDummy = view.phase === "play" && turn && turn === dummySeat;
    turnInfo.textContent = view.phase === "auction" ? "Your call" : fromDummy ? "Your turn: play from dummy" : "Your turn";
  } else if (turn) {
    const chair = view.turn_chair ?? bySeat[turn] ?? (turn === dummySeat && declarer ? bySeat[declarer] : undefined);
    turnInfo.textContent = `Waiting for ${chairLabel(view, chair) || SEAT_NAMES[turn]}`;
  } else turnInfo.textContent = "";
}

function renderClaim(view, declarer) {
  const tricks = view.tricks || {};
  const left = 13 - (tricks.declarer ?? 0) - (tricks.defenders ?? 0);
  const mine = view.phase === "play" && view.my_turn && view.declarer_chair === view.my_chair;
  $("claim").hidden = !(mine && declarer && left > 0);
  $("claim").dataset.tricks = String(left);
}

$("claim").addEventListener("click", () => {
  act({ type: "claim", tricks: Number($("claim").dataset.tricks) });
});

function renderInvite(view) {
  const open = (view.chairs || []).some((c) => c && c.kind === "human" && c.taken === false);
  $("invite").hidden = !open;
  if (open) $("invite-link").value = tableUrl(view.table_id || new URLSearchParams(location.search).get("table"));
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
  if (seat === mySeat) faceUp = view.hand || [];
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
        if (row.childElementCount) box.append(row);
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

function biddersFrom(dealer) {
  const d = SEATS.indexOf(dealer);
  return [SEATS[d], SEATS[(d + 1) % 4], SEATS[(d + 3) % 4]];
}

function renderAuction(view, mySeat) {
  const dealer = seatLetter(view.dealer) || "N";
  const bidders = biddersFrom(dealer);
  const table = $("auction-table");
  const head = document.createElement("tr");
  for (const seat of bidders) {
    const th = document.createElement("th");
    th.textContent = SEAT_NAMES[seat] + (view.phase === "auction" && seat === mySeat ? " (you)" : "");
    head.append(th);
  }
  table.tHead.replaceChildren(head);
  const body = table.tBodies[0];
  body.replaceChildren();
  const calls = (view.auction || []).map((entry) => (typeof entry === "string" ? entry : entry.call));
  let row = null;
  calls.forEach((call, index) => {
    if (index % 3 === 0) {
      row = document.createElement("tr");
      body.append(row);
    }
    const td = document.createElement("td");
    td.append(callFragment(call));
    td.dataset.call = normCall(call);
    row.append(td);
  });
  if (view.phase === "auction" && !isDone(view)) {
    if (!row || row.childElementCount === 3) {
      row = document.createElement("tr");
      body.append(row);
    }
    const td = document.createElement("td");
    td.className = "next-call";
    td.textContent = "?";
    row.append(td);
  }
  renderBiddingBox(view);
}

function renderBiddingBox(view) {
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

function renderResult(view) {
  const done = isDone(view);
  $("result-box").hidden = !done;
  if (!done) return;
  $("result").textContent = resultText(view);
  renderDealScores($("deal-scores"), view);
  $("next-deal").disabled = false;
}

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

function renderKeyHint(view) {
  const hint = $("keyhint");
  if (keyBuffer) hint.textContent = `Typed: ${keyBuffer} (Esc clears)`;
  else if (view && view.my_turn && view.phase === "play") hint.textContent = "Keys: suit letter then rank, e.g. S A";
  else if (view && view.my_turn && view.phase === "auction") hint.textContent = "Keys: 1-7 then C D H S N to bid; P pass, X double, R redouble";
  else hint.textContent = "";
}

function handleKey(event) {
  if (!shown || $("table").hidden) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const target = event.target;
  if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
  const key = event.key.toUpperCase();
  if (key === "ESCAPE") {
    keyBuffer = "";
    renderKeyHint(shown);
    return;
  }
  if (key === "ENTER" && isDone(shown)) {
    event.preventDefault();
    $("next-deal").click();
    return;
  }
  if (!shown.my_turn) return;
  if (shown.phase === "auction") auctionKey(key);
  else if (shown.phase === "play") playKey(key);
  renderKeyHint(shown);
}

function auctionKey(key) {
  const legal = new Map((shown.legal_calls || []).map((c) => [normCall(c), c]));
  const tryCall = (call) => {
    keyBuffer = "";
    if (legal.has(call)) act({ type: "call", call: legal.get(call) });
    else showError(`${call} is not a legal call now`);
  };
  if (/^[1-7]$/.test(key)) {
    keyBuffer = key;
  } else if (keyBuffer && /^[CDHSN]$/.test(key)) {
    tryCall(keyBuffer + key);
  } else if (key === "P") tryCall("P");
  else if (key === "X") tryCall("X");
  else if (key === "R") tryCall("XX");
}

function playKey(key) {
  const legal = (shown.legal_cards || []).map(normCard);
  if (/^[CDHS]$/.test(key) && (!keyBuffer || keyBuffer.length === 1)) {
    keyBuffer = key;
    const ofSuit = legal.filter((c) => c[0] === key);
    if (ofSuit.length === 0) {
      showError(`No playable ${{ C: "club", D: "diamond", H: "heart", S: "spade" }[key]}`);
      keyBuffer = "";
    }
    return;
  }
  if (!keyBuffer) return;
  let rank = key;
  if (keyBuffer.length === 2 && keyBuffer[1] === "1" && key === "0") rank = "T";
  else if (key === "1") {
    keyBuffer = keyBuffer[0] + "1";
    return;
  }
  if (!RANKS.includes(rank)) return;
  const card = keyBuffer[0] + rank;
  keyBuffer = "";
  if (legal.includes(card)) act({ type: "play", card });
  else showError(`${card} cannot be played now`);
}

document.addEventListener("keydown", handleKey);

// ---------------------------------------------------------------- help

$("help-toggle").addEventListener("click", (event) => {
  event.preventDefault();
  $("help").hidden = !$("help").hidden;
  if (!$("help").hidden) $("help").scrollIntoView({ behavior: "smooth" });
});

route();

// Exposed for the browser tests and for debugging in the console.
window.tribridge = { get view() { return shown; }, suitSpan };
