// The lobby (new game, bot descriptions, your tables) and joining a table by its shared link.

import { createTable, fetchOptions, fetchTableInfo, takeSeat } from "./api.js";
import { plainMessage } from "./messages.js";
import { cutName, nameProblem } from "./names.js";

const DEFAULT_OPTIONS = {
  bots: ["random", "paper", "estimate", "simulation", "pimc", "dd"],
  schemes: ["classic"],  // the default scheme; the list comes from GET /api/bots (the scheme registry)
};
const PREFERRED_BOTS = ["pimc", "paper", "estimate", "simulation", "random"];
const STORE_KEY = "tribridge.tables";
const NAME_KEY = "tribridge.name";

/** One line on each bot, used when the server does not describe its bots (docs/bots.md). */
const BOT_DESCRIPTIONS = {
  random: "Random legal calls and cards. Instant; for trying the table out.",
  paper: "Bids by the seed paper's No-Trump call rule; plays by simulation (PIMC).",
  estimate: "Bids from a trained trick estimate of its hand plus a guessed widow; plays by simulation.",
  simulation: "Bids by playing each call out over sampled layouts; plays by simulation.",
  pimc: "The strongest pair: simulation bidding and PIMC card play (a few seconds a card).",
  dd: "Paper bidding; plays double dummy, seeing every card (it cheats: a yardstick).",
};

const $ = (id) => document.getElementById(id);

/** All tables this browser holds a chair at: {tableId: {token, chair, at}}. */
export function storedTables() {
  try {
    return JSON.parse(localStorage.getItem(STORE_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

/** Remember this browser's chair and token at a table. */
export function rememberSeat(tableId, token, chair) {
  const tables = storedTables();
  tables[tableId] = { token, chair, at: Date.now() };
  localStorage.setItem(STORE_KEY, JSON.stringify(tables));
  holdForAccount(tableId, token);
}

/** Tie the chair to the logged-in account, if any (a guest's answer is 401, and nothing changes). */
function holdForAccount(tableId, token) {
  fetch("/api/account/seats", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify({ table_id: tableId, token }),
  }).catch(() => null);
}

/** Forget this browser's chair at a table. */
export function forgetSeat(tableId) {
  const tables = storedTables();
  delete tables[tableId];
  localStorage.setItem(STORE_KEY, JSON.stringify(tables));
}

/** The player's name as last typed (empty when never given). */
export function playerName() {
  return (localStorage.getItem(NAME_KEY) || "").trim();
}

function saveName(name) {
  localStorage.setItem(NAME_KEY, cutName(name));
}

let descriptions = { bots: BOT_DESCRIPTIONS, schemes: {} };

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

function describeChoice(selectId) {
  const value = $(selectId).value;
  const text = value === "friend" ? "A person you invite: you get a link to send."
    : descriptions.bots[value.slice(4)] || `The ${value.slice(4)} bot.`;
  $(`${selectId}-desc`).textContent = text;
}

function describeScheme() {
  $("scheme-desc").textContent = descriptions.schemes[$("scheme").value] || "";
}

/** Who sits at a table, in words, from its public facts. */
function tableSummary(info, myChair) {
  const chairs = (info.chairs || []).map((chair, i) => {
    if (i === myChair) return "you";
    if (chair.kind === "bot") return `${chair.bot} bot`;
    return chair.name || (chair.taken ? `player ${i + 1}` : "open chair");
  });
  const parts = [chairs.join(", ")];
  if (info.deal_no) parts.push(`deal ${info.deal_no}`);
  const totals = info.totals || (info.score_sheet && info.score_sheet.totals);
  if (Array.isArray(totals)) parts.push(`score ${totals.join(" / ")}`);
  return parts.join(" · ");
}

async function renderYourTables(tableUrl) {
  const tables = Object.entries(storedTables()).sort((a, b) => b[1].at - a[1].at).slice(0, 5);
  $("resume").hidden = tables.length === 0;
  const list = $("resume-list");
  list.replaceChildren();
  for (const [tableId, seat] of tables) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = tableUrl(tableId);
    a.textContent = `Table ${tableId}`;
    const facts = document.createElement("span");
    facts.className = "table-facts";
    li.append(a, " ", facts);
    list.append(li);
    fetchTableInfo(tableId).then((info) => {
      if (info && !info.missing && (info.waiting_for || []).includes(seat.chair)) {
        const mark = document.createElement("b");
        mark.className = "your-turn";
        mark.dataset.testid = "your-turn";
        mark.textContent = "your turn";
        li.insertBefore(mark, facts);
        li.insertBefore(document.createTextNode(" "), facts);
      }
      if (info && !info.missing) facts.textContent = tableSummary(info, seat.chair);
      else if (info && info.missing) facts.textContent = "(no longer on this server)";
    });
  }
}

/** Show the lobby; ``tableUrl`` builds a table's link. */
export async function showLobby(tableUrl) {
  const options = (await fetchOptions()) || DEFAULT_OPTIONS;
  const bots = options.bots && options.bots.length ? options.bots : DEFAULT_OPTIONS.bots;
  const schemes = options.schemes && options.schemes.length ? options.schemes : DEFAULT_OPTIONS.schemes;
  const preferred = PREFERRED_BOTS.find((b) => bots.includes(b)) || bots[0];
  descriptions = { bots: options.bot_descriptions || BOT_DESCRIPTIONS, schemes: options.scheme_descriptions || {} };
  const chairEntries = [...bots.map((b) => [`bot:${b}`, `Bot: ${b}`]), ["friend", "A friend (share a link)"]];
  for (const id of ["chair-1", "chair-2"]) {
    if (!$(id).options.length) fillSelect($(id), chairEntries, `bot:${preferred}`);
    describeChoice(id);
  }
  if (!$("scheme").options.length) fillSelect($("scheme"), schemes.map((s) => [s, s]), schemes[0]);
  describeScheme();
  if (!$("player-name").value) $("player-name").value = playerName();
  const list = $("bot-list");
  list.replaceChildren();
  for (const bot of bots) {
    const dt = document.createElement("dt");
    dt.textContent = bot;
    const dd = document.createElement("dd");
    dd.textContent = descriptions.bots[bot] || `The ${bot} bot.`;
    list.append(dt, dd);
  }
  renderYourTables(tableUrl);
}

/** Wire the lobby's forms; ``goToTable(id)`` opens a table. */
export function initLobby(goToTable) {
  for (const id of ["chair-1", "chair-2"]) $(id).addEventListener("change", () => describeChoice(id));
  $("scheme").addEventListener("change", describeScheme);
  $("new-game").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("lobby-error").textContent = nameProblem($("player-name").value);
    if ($("lobby-error").textContent) return;
    const name = cutName($("player-name").value);
    saveName(name);
    const chair = (value) => (value === "friend" ? { kind: "human" } : { kind: "bot", bot: value.slice(4) });
    const me = name ? { kind: "human", name } : { kind: "human" };
    const chairs = [me, chair($("chair-1").value), chair($("chair-2").value)];
    $("start-game").disabled = true;
    try {
      const created = await createTable(chairs, $("scheme").value, $("allow-hints").checked);
      let { token, chair: myChair } = created;
      if (!token) ({ token, chair: myChair } = await takeSeat(created.table_id, 0, name));
      rememberSeat(created.table_id, token, myChair ?? 0);
      goToTable(created.table_id);
    } catch (err) {
      $("lobby-error").textContent = `Could not start the game: ${plainMessage(err)}`;
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
}

function chairButton(tableId, chair, index, onSeated, onWatch) {
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.chair = String(index);
  if (chair.kind === "bot") {
    button.textContent = `Chair ${index + 1}: bot ${chair.bot ?? ""}`;
    button.disabled = true;
  } else if (chair.taken) {
    button.textContent = `Chair ${index + 1}: ${chair.name || "taken"}`;
    button.disabled = true;
  } else {
    button.textContent = `Take chair ${index + 1}`;
    button.classList.add("primary");
  }
  button.addEventListener("click", async () => {
    $("join-error").textContent = nameProblem($("join-name").value);
    if ($("join-error").textContent) return;
    const name = cutName($("join-name").value);
    saveName(name);
    try {
      const seat = await takeSeat(tableId, index, name);
      rememberSeat(tableId, seat.token, seat.chair ?? index);
      onSeated();
    } catch (err) {
      $("join-error").textContent = `Could not take chair ${index + 1}: ${plainMessage(err)}`;
      showJoin(tableId, $("join-error").textContent, onSeated, onWatch);
    }
  });
  return button;
}

/** The join page of a shared link: who sits where, a name, the free chairs; a full table offers to watch. */
export async function showJoin(tableId, message, onSeated, onWatch) {
  $("join-table-id").textContent = tableId;
  $("join-error").textContent = message;
  if (!$("join-name").value) $("join-name").value = playerName();
  const info = await fetchTableInfo(tableId);
  const box = $("join-chairs");
  box.replaceChildren();
  if (info && info.missing) {
    $("join-error").textContent = `There is no table ${tableId} on this server (${info.error}).`;
    return;
  }
  const chairs = (info && info.chairs) || [{}, {}, {}];
  chairs.forEach((chair, index) => box.append(chairButton(tableId, chair, index, onSeated, onWatch)));
  const full = Boolean(info) && chairs.every((chair) => chair.kind === "bot" || chair.taken);
  $("join-full").hidden = !full;
  $("join-watch").hidden = !info;
  $("watch-table").onclick = () => onWatch(tableId);
}
