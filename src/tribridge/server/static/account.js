// The account page: sign up, log in, the account's tables from any device, sessions, password, deletion.

import { rememberSeat, storedTables } from "./lobby.js";
import { initReview, openReview, reviewBack, reviewKey } from "./review.js";

const $ = (id) => document.getElementById(id);

async function call(method, url, body) {
  const options = { method, headers: { Accept: "application/json" } };
  if (body !== undefined) {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  const response = await fetch(url, options);
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error((data && data.error) || `${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

/** Tie every table this browser holds to the account (a guest who signs up keeps them). */
async function linkBrowserTables() {
  const tables = Object.entries(storedTables());
  await Promise.all(tables.map(([tableId, seat]) =>
    call("POST", "/api/account/seats", { table_id: tableId, token: seat.token }).catch(() => null)));
}

function tableLink(tableId) {
  const a = document.createElement("a");
  a.href = `./?table=${encodeURIComponent(tableId)}`;
  a.textContent = `Table ${tableId}`;
  a.dataset.testid = "my-table-link";
  return a;
}

async function renderTables() {
  const { tables } = await call("GET", "/api/account/tables");
  const here = storedTables();
  const list = $("my-tables");
  list.replaceChildren();
  $("no-tables").hidden = tables.length > 0;
  for (const held of tables) {
    const li = document.createElement("li");
    const seat = here[held.table_id];
    if (seat && seat.chair === held.chair) {
      li.append(tableLink(held.table_id));
    } else {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = `Take your seat at table ${held.table_id} here`;
      button.dataset.testid = "take-seat-back";
      button.addEventListener("click", async () => {
        const path = `/api/account/tables/${encodeURIComponent(held.table_id)}/seats/${held.chair}/token`;
        const taken = await call("POST", path);
        rememberSeat(taken.table_id, taken.token, taken.chair);
        li.replaceChildren(tableLink(held.table_id));
      });
      li.append(button);
    }
    list.append(li);
  }
}

async function renderSessions() {
  const { sessions } = await call("GET", "/api/account/sessions");
  const list = $("sessions");
  list.replaceChildren();
  for (const s of sessions) {
    const li = document.createElement("li");
    const since = new Date(s.created * 1000).toLocaleString();
    li.textContent = `${s.agent || "a browser"} at ${s.client}, since ${since}${s.current ? " (this one)" : ""} `;
    if (!s.current) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = "End";
      button.addEventListener("click", async () => {
        await call("DELETE", `/api/account/sessions/${encodeURIComponent(s.session_id)}`);
        await renderSessions();
      });
      li.append(button);
    }
    list.append(li);
  }
}

async function renderRating(username) {
  $("rating-graph").src = `/api/players/${encodeURIComponent(username)}/rating.svg?at=${Date.now()}`;
  const profile = await call("GET", `/api/players/${encodeURIComponent(username)}`);
  const r = profile.rating;
  $("rating-text").textContent = `${r.mu.toFixed(1)} ± ${(2 * r.sigma).toFixed(1)} after ${r.games} games`;
  const records = $("head-to-head");
  records.replaceChildren();
  for (const h of profile.head_to_head) {
    const row = document.createElement("tr");
    for (const text of [h.opponent, h.wins, h.ties, h.losses]) cellOf(row, String(text));
    records.append(row);
  }
  const recent = $("recent-events");
  recent.replaceChildren();
  for (const e of profile.recent_events) {
    const li = document.createElement("li");
    const link = document.createElement("a");
    link.href = `/events.html?event=${encodeURIComponent(e.event_id)}`;
    link.textContent = e.name;
    const result = e.percent === null ? (e.closed ? "closed" : "open") : `${e.percent.toFixed(2)} %`;
    li.append(link, ` (${e.form}, ${result})`);
    recent.append(li);
  }
}

function cellOf(row, text) {
  const td = document.createElement("td");
  td.textContent = text;
  row.append(td);
}

async function renderDeals() {
  const query = new URLSearchParams();
  for (const [key, value] of new FormData($("deal-filters")).entries()) if (value) query.set(key, value);
  const { deals } = await call("GET", `/api/account/deals?${query}`);
  const body = $("deal-rows");
  body.replaceChildren();
  for (const d of deals) {
    const row = document.createElement("tr");
    row.dataset.testid = "deal-row";
    const tick = document.createElement("td");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = `${d.table_id}:${d.deal_no}`;
    tick.append(box);
    row.append(tick);
    const link = document.createElement("td");
    const a = document.createElement("a");
    a.href = d.table_url;
    a.textContent = d.table_id;
    link.append(a);
    row.append(link);
    for (const text of [d.deal_no, d.role, d.contract || "passed out", d.result, d.score,
      d.par_diff === null ? "" : d.par_diff]) cellOf(row, String(text));
    const review = document.createElement("td");
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "Review";
    button.dataset.testid = "deal-review";
    button.addEventListener("click", () => reviewDeal(d));
    review.append(button);
    row.append(review);
    body.append(row);
  }
}

/** Open the review of one of the account's deals (the session is its pass: no seat token on this device). */
async function reviewDeal(d) {
  $("member-error").textContent = "";
  try {
    const path = `/api/tables/${encodeURIComponent(d.table_id)}/deals/${encodeURIComponent(d.deal_no)}/review`;
    const review = await call("GET", path);
    review.deal_word = d.event_id ? "Board" : "Deal";
    const names = review.names || [];
    openReview(review, (chair, seat) => (chair === null || chair === undefined ? seat : names[chair] || seat));
  } catch (err) {
    $("member-error").textContent = `No review of deal ${d.deal_no}: ${err.message}`;
  }
}

function downloadTicked(kind) {
  const picked = [...document.querySelectorAll("#deal-rows input:checked")].map((box) => box.value);
  if (picked.length) location.href = `/api/account/deals/export.${kind}?deals=${encodeURIComponent(picked.join(","))}`;
}

async function showMember(account) {
  $("guest").hidden = true;
  $("member").hidden = false;
  $("username").textContent = account.username;
  await Promise.all([renderTables(), renderSessions(), renderDeals(), renderRating(account.username)]);
}

function showGuest() {
  $("member").hidden = true;
  $("guest").hidden = false;
}

function formValues(form) {
  return Object.fromEntries(new FormData(form).entries());
}

function onSubmit(id, errorId, work) {
  $(id).addEventListener("submit", async (event) => {
    event.preventDefault();
    $(errorId).textContent = "";
    try {
      await work(formValues(event.target), event.target);
    } catch (err) {
      $(errorId).textContent = err.message;
    }
  });
}

async function enter(url, values) {
  const account = await call("POST", url, { username: values.username, password: values.password });
  await linkBrowserTables();
  await showMember(account);
}

async function start() {
  initReview();
  window.addEventListener("popstate", () => reviewBack());
  document.addEventListener("keydown", (event) => {
    if (reviewKey(event.key)) event.preventDefault();
  });
  onSubmit("signup", "guest-error", (values) => enter("/api/accounts", values));
  onSubmit("login", "guest-error", (values) => enter("/api/session", values));
  onSubmit("password", "member-error", async (values, form) => {
    await call("POST", "/api/account/password", values);
    form.reset();
    $("member-note").textContent = "Password changed; your other sessions have ended.";
    await renderSessions();
  });
  onSubmit("delete", "member-error", async (values) => {
    await call("POST", "/api/account/delete", values);
    showGuest();
  });
  $("deal-filters").addEventListener("submit", (event) => {
    event.preventDefault();
    renderDeals().catch((err) => { $("member-error").textContent = err.message; });
  });
  $("download-pbn").addEventListener("click", () => downloadTicked("pbn"));
  $("download-lin").addEventListener("click", () => downloadTicked("lin"));
  $("logout").addEventListener("click", async () => {
    await call("DELETE", "/api/session");
    showGuest();
  });
  $("logout-everywhere").addEventListener("click", async () => {
    await call("POST", "/api/account/logout-everywhere", { keep_this: false });
    showGuest();
  });
  try {
    const account = await call("GET", "/api/account");
    await linkBrowserTables();
    await showMember(account);
  } catch {
    showGuest();
  }
}

start();
