// Talks to the server's table API (docs/dev/interfaces.md): REST calls, WebSocket pushes, polling fallback.

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function request(method, url, { body, token } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(url, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const message = (data && (data.error || data.detail)) || `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, typeof message === "string" ? message : JSON.stringify(message));
  }
  return data;
}

/** Bot names and scoring schemes offered by the server (null when it has no such endpoint). */
export async function fetchOptions() {
  try {
    return await request("GET", "/api/bots");
  } catch {
    return null;
  }
}

/** Create a table; chairs is a list of three {kind, bot}; takes chair 0 for this browser; hints on or off. */
export async function createTable(chairs, scheme, hints = true) {
  return request("POST", "/api/tables", { body: { chairs, scheme, hints, seed: null, take: 0 } });
}

/** Take a free human chair of a table under a name (optional); returns {token, chair}. */
export async function takeSeat(tableId, chair, name = "") {
  return request("POST", `/api/tables/${encodeURIComponent(tableId)}/seats/${chair}`, { body: name ? { name } : {} });
}

/** Public facts of a table (chairs, which are taken), or null when the server does not say. */
export async function fetchTableInfo(tableId) {
  try {
    return await request("GET", `/api/tables/${encodeURIComponent(tableId)}`);
  } catch (err) {
    // A 404 that carries our {"error"} means the table does not exist; anything else: unknown.
    if (err.status === 404 && !/^404 /.test(err.message) && err.message !== "Not Found") return { missing: true, error: err.message };
    return null;
  }
}

/** The close code of a socket whose chair was taken back on another device (its token replaced). */
export const SEAT_TAKEN_CLOSE_CODE = 4409;

/** One chair's connection to a table: state, actions and a stream of pushed views. */
export class TableConnection {
  constructor(tableId, token, onView, onStatus, follow = null) {
    this.tableId = tableId;
    this.token = token;
    this.follow = follow; // a spectator (no token) following this chair's view, when its player allows
    this.onView = onView;
    this.onStatus = onStatus || (() => {});
    this.socket = null;
    this.pollTimer = null;
    this.closed = false;
    this.retryMs = 500;
  }

  base() {
    return `/api/tables/${encodeURIComponent(this.tableId)}`;
  }

  /** The chair's current view (a spectator's view when there is no token). */
  async state() {
    if (!this.token) return request("GET", `${this.base()}/watch${this.follow === null ? "" : `?chair=${this.follow}`}`);
    return request("GET", `${this.base()}/state`, { token: this.token });
  }

  /** Send an action ({type: "call"|"play"|"next"|"claim"|"accept_claim"|"dispute_claim", ...}); returns the new view. */
  async act(action) {
    return request("POST", `${this.base()}/actions`, { body: action, token: this.token });
  }

  /** The hint bot's suggestion for this chair's turn ({kind, suggestion, reason, bot, others, version}). */
  async hint() {
    return request("POST", `${this.base()}/hint`, { token: this.token });
  }

  /** The review of a finished deal of this table (auction, tricks, double-dummy marks). */
  async review(dealNo) {
    return request("GET", `${this.base()}/deals/${encodeURIComponent(dealNo)}/review`, { token: this.token });
  }

  /** Open the WebSocket; poll while it is not open. */
  start() {
    this.openSocket();
    this.schedulePoll();
  }

  openSocket() {
    if (this.closed) return;
    if (typeof WebSocket === "undefined") {
      this.onStatus("polling");
      return;
    }
    const proto = location.protocol === "https:" ? "wss" : "ws";
    // a chair's token goes in the first message, never in the URL (URLs end up in logs); a watcher has none
    const query = this.token ? "" : `?watch=1${this.follow === null ? "" : `&chair=${this.follow}`}`;
    const url = `${proto}://${location.host}${this.base()}/ws${query}`;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      if (this.token) socket.send(JSON.stringify({ token: this.token }));
      this.retryMs = 500;
      this.onStatus("live");
    };
    socket.onmessage = (event) => {
      let message;
      try {
        message = JSON.parse(event.data);
      } catch {
        return;
      }
      const view = message && message.view ? message.view : message;
      if (view && typeof view === "object" && "phase" in view) this.onView(view, "push");
    };
    socket.onclose = (event) => {
      if (this.socket === socket) this.socket = null;
      if (this.closed) return;
      if (event.code === SEAT_TAKEN_CLOSE_CODE) { // the seat was taken back on another device: this one stops
        this.close();
        this.onStatus("taken");
        return;
      }
      this.onStatus("polling");
      setTimeout(() => this.openSocket(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, 15000);
    };
    socket.onerror = () => socket.close();
  }

  socketOpen() {
    return this.socket && this.socket.readyState === WebSocket.OPEN;
  }

  schedulePoll() {
    if (this.closed) return;
    // Poll often while the socket is down, rarely as a safety net while it is up.
    const delay = this.socketOpen() ? 8000 : 1500;
    this.pollTimer = setTimeout(async () => {
      try {
        const view = await this.state();
        this.onView(view, "poll");
      } catch (err) {
        if (err.status === 403 || err.status === 404) this.onStatus("lost", err);
      }
      this.schedulePoll();
    }, delay);
  }

  close() {
    this.closed = true;
    clearTimeout(this.pollTimer);
    if (this.socket) this.socket.close();
  }
}
