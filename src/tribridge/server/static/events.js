// The events page: open events, starting one, entering, the link to one's table, standings and travellers.

import { ApiError, fetchOptions } from "./api.js";
import { suitSpan } from "./cards.js";
import { playerName, rememberSeat } from "./lobby.js";

const EVENTS_KEY = "tribridge.events";
const POLL_MS = 3000;
const ROLES = ["dealer", "dealer's left", "dealer's right"]; // the event's chairs, counted from the dealer
const SEAT_WORDS = { N: "North", E: "East", S: "South", W: "West" };
const SEAT_ORDER = ["N", "E", "S", "W"];
const params = new URLSearchParams(location.search);
const $ = (id) => document.getElementById(id);
let pollTimer = null;
let account = null; // the logged-in account ({username}), or null for a guest

/** The logged-in account, or null (a guest). */
async function loggedIn() {
  const response = await fetch("/api/account", { headers: { Accept: "application/json" } }).catch(() => null);
  return response && response.ok ? response.json() : null;
}

async function call(method, url, body, token) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new ApiError(response.status, (data && data.error) || `${response.status}`);
  return data;
}

/** This browser's entries: {eventId: {table_id, token, name}}. */
function storedEntries() {
  try {
    return JSON.parse(localStorage.getItem(EVENTS_KEY) || "{}") || {};
  } catch {
    return {};
  }
}

function rememberEntry(eventId, entry) {
  const entries = storedEntries();
  entries[eventId] = { table_id: entry.table_id, token: entry.token, name: entry.name };
  localStorage.setItem(EVENTS_KEY, JSON.stringify(entries));
  if (entry.table_id) rememberSeat(entry.table_id, entry.token, 0); // the table page finds its chair there
}

function cell(row, text, className = "", tag = "td") {
  const el = document.createElement(tag);
  el.textContent = text;
  if (className) el.className = className;
  row.append(el);
  return el;
}

function closesText(summary) {
  const when = new Date(summary.closes_at * 1000);
  return summary.open ? `closes ${when.toLocaleString()}` : `closed ${when.toLocaleString()}`;
}

// ---------------------------------------------------------------- the list and the form

async function showHome() {
  $("events-home").hidden = false;
  const options = (await fetchOptions()) || { bots: ["random"], schemes: ["classic"] };
  fillSelect($("event-scheme"), options.schemes, "classic");
  const fillers = ["paper+random", "random", ...options.bots.filter((b) => b !== "random")];
  fillSelect($("event-filler"), fillers, "paper+random");
  $("event-name").value = $("event-name").value || `${playerName() || "Daily"} event`;
  const { events } = await call("GET", "/api/events");
  const list = $("open-events");
  list.replaceChildren();
  const mine = storedEntries();
  renderDaily(events.find((e) => e.house), mine);
  for (const summary of events) {
    const li = document.createElement("li");
    const a = document.createElement("a");
    a.href = `events.html?event=${encodeURIComponent(summary.event_id)}`;
    a.textContent = summary.name;
    a.dataset.eventId = summary.event_id;
    const entered = mine[summary.event_id] ? " · you entered" : "";
    li.append(a, ` — ${summary.form}, ${plural(summary.boards, "board")}, ${plural(summary.entries, "entrant")}, ${closesText(summary)}${entered}`);
    list.append(li);
  }
  $("no-events").hidden = events.length > 0;
  await renderSeries();
}

/** The daily series of this week or month: each account's days, best percentages and score. */
async function renderSeries() {
  const period = $("series-period").value;
  const series = await call("GET", `/api/events/series?period=${period}`);
  $("series-facts").textContent = `${series.first} to ${series.last}: the best ${series.best} days' percentages`
    + ` of each account, added and divided by ${series.best} (a day counts once its event has closed).`;
  const table = $("series");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const [text, cls] of [["Rank", ""], ["Player", ""], ["Days", "num"], ["Best %", ""], ["Score", "num"]]) {
    cell(head, text, cls, "th");
  }
  const body = table.createTBody();
  for (const line of series.lines) {
    const row = body.insertRow();
    row.dataset.name = line.name;
    if (account && line.name === account.username) row.className = "mine";
    cell(row, line.rank);
    cell(row, line.name, "name");
    cell(row, String(line.days), "num");
    cell(row, line.percents.map((p) => p.toFixed(1)).join(", "));
    cell(row, line.score.toFixed(2), "num").dataset.testid = "series-score";
  }
  $("no-series").hidden = series.lines.length > 0;
}

$("series-period").addEventListener("change", () => renderSeries());

/** The house's daily event first on the page: what it is and the way in. */
function renderDaily(summary, mine) {
  $("daily-box").hidden = !summary;
  if (!summary) return;
  $("daily-facts").textContent = `${summary.name}: ${plural(summary.boards, "board")} against bots,`
    + ` ${plural(summary.entries, "entrant")} so far, ${closesText(summary)}.`;
  $("daily-link").href = `events.html?event=${encodeURIComponent(summary.event_id)}${paceSuffix("&")}`;
  $("daily-link").textContent = mine[summary.event_id] ? "Back to today's daily" : "Play today's daily";
}

/** "1 board", "2 boards". */
function plural(count, word) {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

function fillSelect(select, values, chosen) {
  select.replaceChildren();
  for (const value of values) {
    const option = document.createElement("option");
    option.value = value;
    option.textContent = value;
    option.selected = value === chosen;
    select.append(option);
  }
}

$("event-form").addEventListener("change", () => {
  const form = $("event-form").value;
  $("individual-fields").hidden = form === "daily";
  $("players-row").hidden = form !== "individual";
  $("teams-row").hidden = form !== "teams";
});

$("new-event").addEventListener("submit", async (event) => {
  event.preventDefault();
  $("create-error").textContent = "";
  const body = {
    form: $("event-form").value,
    name: $("event-name").value,
    boards: Number($("event-boards").value),
    scheme: $("event-scheme").value,
    filler: $("event-filler").value,
    closes_in_hours: Number($("event-hours").value),
  };
  if (body.form === "individual") body.players = Number($("event-players").value);
  if (body.form === "teams") body.teams = Number($("event-teams").value);
  if (body.form !== "daily") body.starts_in_minutes = Number($("event-start").value);
  try {
    const created = await call("POST", "/api/events", body);
    location.href = `events.html?event=${encodeURIComponent(created.event_id)}${paceSuffix("&")}`;
  } catch (err) {
    $("create-error").textContent = err.message;
  }
});

function paceSuffix(joiner) {
  return params.get("pace") !== null ? `${joiner}pace=${encodeURIComponent(params.get("pace"))}` : "";
}

// ---------------------------------------------------------------- one event

async function showEvent(eventId) {
  $("event").hidden = false;
  $("entrant-name").value = account ? account.username : playerName();
  $("entrant-name").disabled = Boolean(account); // an account enters under its username
  $("join-as").textContent = account ? `You enter as ${account.username} (your account: rated).` : "";
  $("join-event").onsubmit = async (event) => {
    event.preventDefault();
    $("event-error").textContent = "";
    try {
      const body = account ? {} : { name: $("entrant-name").value };
      if (!$("team-row").hidden) body.team = $("entrant-team").value;
      if (params.get("invite")) body.invite = params.get("invite"); // a private event's invitation link
      const entry = await call("POST", `/api/events/${encodeURIComponent(eventId)}/entries`, body);
      rememberEntry(eventId, entry);
      localStorage.setItem("tribridge.name", entry.name);
      await refresh(eventId);
    } catch (err) {
      $("event-error").textContent = err.message;
    }
  };
  await refresh(eventId);
}

async function refresh(eventId) {
  clearTimeout(pollTimer);
  const mine = storedEntries()[eventId];
  try {
    renderEvent(await call("GET", `/api/events/${encodeURIComponent(eventId)}`, undefined, mine && mine.token));
    $("event-error").textContent = "";
  } catch (err) {
    $("event-error").textContent = `Could not load the event: ${err.message}`;
    if (err.status === 404) return;
  }
  pollTimer = setTimeout(() => refresh(eventId), POLL_MS);
}

function renderEvent(view) {
  const summary = view.event;
  const section = $("event");
  section.dataset.closed = String(view.closed);
  section.dataset.travellers = String(view.travellers.length);
  $("event-title").textContent = summary.name;
  const rounds = summary.form === "individual"
    ? ` · ${summary.players} places, round ${summary.rounds_started} of ${summary.rounds}`
    : summary.form === "teams" ? ` · ${summary.teams} teams, stage ${summary.stages_started}` : "";
  $("event-facts").textContent = `${summary.form} · ${plural(summary.boards, "board")} · scoring ${summary.scheme}`
    + ` · bots ${view.filler} · ${plural(summary.entries, "entrant")}${rounds} · ${closesText(summary)}`
    + (summary.private ? " · private: its boards came from its creator's file, not the server's dealer" : "");
  $("join-event").hidden = Boolean(view.me) || view.closed;
  $("team-row").hidden = summary.form !== "teams";
  renderMyEntry(view);
  renderTeams(view);
  renderStandings(view);
  renderTravellers(view);
}

function renderMyEntry(view) {
  const box = $("my-entry");
  box.hidden = !view.me;
  if (!view.me) return;
  const { boards } = view.event;
  const played = view.me.boards_played;
  const here = storedEntries()[view.event.event_id];
  if (view.event.form === "daily" && !here) { // entered as the account on another device: take the seat here
    box.replaceChildren(`You entered as ${view.me.name} on another device. `, takeSeatButton(view));
    return;
  }
  if (!view.me.table_id) {
    const start = new Date(view.event.starts_at * 1000).toLocaleTimeString();
    box.replaceChildren(view.event.form === "teams"
      ? `You entered as ${view.me.name}. Your team plays when its match starts (the knockout starts when every`
        + ` team is full, or at ${start}; a seeded team may wait out the first stage).`
      : `You entered as ${view.me.name}. Round ${view.event.rounds_started + 1} starts when its`
        + ` tables are ready (round 1: when all ${view.event.players} places are taken, or at ${start}).`);
    if (view.event.form === "individual" && !view.event.rounds_started) box.append(" ", withdrawButton(view));
    return;
  }
  if (view.me.table_token) rememberSeat(view.me.table_id, view.me.table_token, null); // this round's chair
  const link = document.createElement("a");
  link.className = "play-link";
  link.dataset.testid = "play-link";
  // a daily table plays the boards in order: it moves on to the next one (eventlink.js)
  const board = view.event.form === "daily" && played < boards ? `&board=${played + 1}` : "";
  link.href = `./?table=${encodeURIComponent(view.me.table_id)}&event=${encodeURIComponent(view.event.event_id)}`
    + `${board}${paceSuffix("&")}`;
  link.textContent = played >= boards ? "Your table (all boards played)" : `Play board ${played + 1} of ${boards}`;
  box.replaceChildren(`You entered as ${view.me.name}: ${played} of ${plural(boards, "board")} played. `, link);
}

/** Take a daily entry's chair on this device (the account's seat taken back: the other device's token stops). */
function takeSeatButton(view) {
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.testid = "take-event-seat";
  button.textContent = "Take your seat here";
  button.addEventListener("click", async () => {
    const path = `/api/account/tables/${encodeURIComponent(view.me.table_id)}/seats/0/token`;
    const taken = await call("POST", path);
    rememberEntry(view.event.event_id, { table_id: taken.table_id, token: taken.token, name: view.me.name });
    await refresh(view.event.event_id);
  });
  return button;
}

/** Withdraw from an individual event before its start. */
function withdrawButton(view) {
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.testid = "withdraw";
  button.textContent = "Withdraw";
  button.addEventListener("click", async () => {
    const here = storedEntries()[view.event.event_id];
    await call("DELETE", `/api/events/${encodeURIComponent(view.event.event_id)}/entries/mine`, undefined, here && here.token);
    const entries = storedEntries();
    delete entries[view.event.event_id];
    localStorage.setItem(EVENTS_KEY, JSON.stringify(entries));
    await refresh(view.event.event_id);
  });
  return button;
}

function renderTeams(view) {
  $("teams-box").hidden = view.event.form !== "teams";
  if (view.event.form !== "teams") return;
  const list = $("team-list");
  list.replaceChildren();
  const names = $("team-names");
  names.replaceChildren();
  for (const team of view.teams) {
    const li = document.createElement("li");
    li.textContent = `${team.name}: ${team.members.join(", ")}${team.members.length < 3 ? ` (${plural(3 - team.members.length, "place")} free)` : ""}`;
    list.append(li);
    const option = document.createElement("option");
    option.value = team.name;
    names.append(option);
  }
  const matches = $("matches");
  matches.replaceChildren();
  const head = matches.createTHead().insertRow();
  for (const text of ["Stage", "Match", "Teams: IMPs", "Boards", "Winner"]) cell(head, text, "", "th");
  const body = matches.createTBody();
  for (const m of view.matches) {
    const row = body.insertRow();
    cell(row, String(m.stage));
    cell(row, String(m.match));
    cell(row, m.teams.map((t, i) => `${t} ${m.imps[i]}`).join(" · "));
    cell(row, String(m.boards.length), "num");
    cell(row, m.winner || "playing");
  }
  $("team-standings-box").hidden = !view.team_standings.length;
  const table = $("team-standings");
  table.replaceChildren();
  const top = table.createTHead().insertRow();
  for (const text of ["Rank", "Team", "Members", "Last stage", "IMPs"]) cell(top, text, "", "th");
  const rows = table.createTBody();
  for (const s of view.team_standings) {
    const row = rows.insertRow();
    row.dataset.team = s.team;
    cell(row, s.rank);
    cell(row, s.team);
    cell(row, s.members.join(", "));
    cell(row, String(s.stage), "num");
    cell(row, String(s.imps), "num");
  }
}

function renderStandings(view) {
  $("standings-note").textContent = view.final
    ? "(final: an unplayed board counts 40 %, −2 IMPs)"
    : "(so far: each entrant over the boards it has played)";
  const table = $("standings");
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const [text, cls] of [["Rank", ""], ["Entrant", ""], ["Boards", "num"], ["MP", "num"], ["%", "num"], ["IMPs", "num"]]) {
    cell(head, text, cls, "th");
  }
  const body = table.createTBody();
  for (const s of view.standings) {
    const row = body.insertRow();
    row.dataset.name = s.name;
    if (view.me && s.name === view.me.name) row.className = "mine";
    cell(row, s.rank);
    cell(row, s.bot === "guest" ? `${s.name} (guest)` : s.bot === "account" ? `${s.name} (account)` : s.name, "name");
    row.dataset.kind = s.bot;
    cell(row, String(s.boards), "num");
    cell(row, `${s.matchpoints}/${s.top}`, "num");
    cell(row, s.percent.toFixed(1), "num").dataset.testid = "percent";
    cell(row, String(s.imps), "num");
  }
}

function handLine(seat, pbnHand, widow) {
  const span = document.createElement("span");
  if (seat === widow) span.className = "widow";
  span.append(`${seat}${seat === widow ? " (widow)" : ""} `);
  pbnHand.split(".").forEach((holding, i) => {
    span.append(suitSpan("SHDC"[i]), `${holding || "—"} `);
  });
  return span;
}

function renderHands(traveller) {
  const [first, hands] = traveller.deal.split(":");
  const start = SEAT_ORDER.indexOf(first);
  const widow = SEAT_ORDER[(SEAT_ORDER.indexOf(traveller.dealer) + 2) % 4];
  const box = document.createElement("div");
  box.className = "hands";
  hands.split(" ").forEach((hand, i) => box.append(handLine(SEAT_ORDER[(start + i) % 4], hand, widow)));
  return box;
}

/** An event chair on a board by its seat and role: "East, dealer's left" (the widow sits opposite the dealer). */
function chairWords(dealer, chair) {
  const seat = SEAT_ORDER[(SEAT_ORDER.indexOf(dealer) + [0, 1, 3][chair]) % 4];
  return `${SEAT_WORDS[seat] || "?"}, ${ROLES[chair]}`;
}

function renderTravellers(view) {
  const box = $("travellers");
  box.replaceChildren();
  $("travellers-note").textContent = view.closed
    ? "The event has closed: every board."
    : view.me ? "The boards you have played, with everyone's results so far." : "Enter and play a board to see its results.";
  for (const traveller of view.travellers) {
    const div = document.createElement("div");
    div.className = "traveller";
    div.dataset.board = traveller.board;
    const h = document.createElement("h3");
    h.textContent = `Board ${traveller.board} · dealer ${traveller.dealer}`;
    div.append(h, renderHands(traveller));
    const table = document.createElement("table");
    table.className = "event-table";
    const head = table.createTHead().insertRow();
    for (const [text, cls] of [["Entrant", ""], ["Seat", ""], ["Contract", ""], ["By", ""], ["Tricks", "num"], ["Score", "num"], ["%", "num"], ["IMPs", "num"]]) {
      cell(head, text, cls, "th");
    }
    const body = table.createTBody();
    for (const r of traveller.results) {
      const chair = r.fillers.indexOf(false);
      const row = body.insertRow();
      row.dataset.name = r.players[chair];
      if (view.me && r.players[chair] === view.me.name) row.className = "mine";
      cell(row, r.players[chair], "name");
      cell(row, chairWords(traveller.dealer, chair));
      cell(row, r.contract || "passed out");
      cell(row, r.declarer === null ? "" : r.players[r.declarer], "name");
      cell(row, r.tricks === null ? "" : String(r.tricks), "num");
      cell(row, String(r.scores[chair]), "num").dataset.testid = "score";
      cell(row, r.tops[chair] ? (100 * r.matchpoints[chair] / r.tops[chair]).toFixed(0) : "50", "num");
      cell(row, String(r.imps[chair]), "num");
    }
    const scroll = document.createElement("div");
    scroll.className = "scroll";
    scroll.append(table);
    div.append(scroll);
    box.append(div);
  }
}

const eventId = params.get("event");
loggedIn().then((found) => {
  account = found;
  if (eventId) showEvent(eventId);
  else showHome();
});
