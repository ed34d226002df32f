// Keyboard play: calls and cards by letters, Enter for the next deal, the review's arrow keys.

import { RANKS, normCall, normCard } from "./cards.js";
import { reviewKey, reviewOpen } from "./review.js";

const $ = (id) => document.getElementById(id);
let keyBuffer = "";
let hooks = null; // {view(), act(action), showError(text)}

/** The keyboard hint under the table (hidden on touch screens by the style sheet). */
export function renderKeyHint(view) {
  const hint = $("keyhint");
  if (keyBuffer) hint.textContent = `Typed: ${keyBuffer} (Esc clears)`;
  else if (view && view.my_turn && view.phase === "play") hint.textContent = "Keys: suit letter then rank, e.g. S A";
  else if (view && view.my_turn && view.phase === "auction") hint.textContent = "Keys: 1-7 then C D H S N to bid; P pass, X double, R redouble";
  else hint.textContent = "";
}

function handleKey(event) {
  const view = hooks.view();
  if (!view || $("table").hidden) return;
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  if (reviewOpen()) {
    if (reviewKey(event.key)) event.preventDefault();
    return;
  }
  const target = event.target;
  if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName)) return;
  const key = event.key.toUpperCase();
  if (key === "ESCAPE") {
    keyBuffer = "";
    renderKeyHint(view);
    return;
  }
  if (key === "ENTER" && view.phase === "done") {
    event.preventDefault();
    $("next-deal").click();
    return;
  }
  if (!view.my_turn) return;
  if (view.phase === "auction") auctionKey(key);
  else if (view.phase === "play") playKey(key);
  renderKeyHint(view);
}

function auctionKey(key) {
  const legal = new Map((hooks.view().legal_calls || []).map((c) => [normCall(c), c]));
  const tryCall = (call) => {
    keyBuffer = "";
    if (legal.has(call)) hooks.act({ type: "call", call: legal.get(call) });
    else hooks.showError(`${call} is not a legal call now`);
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
  const legal = (hooks.view().legal_cards || []).map(normCard);
  if (/^[CDHS]$/.test(key) && (!keyBuffer || keyBuffer.length === 1)) {
    keyBuffer = key;
    const ofSuit = legal.filter((c) => c[0] === key);
    if (ofSuit.length === 0) {
      hooks.showError(`No playable ${{ C: "club", D: "diamond", H: "heart", S: "spade" }[key]}`);
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
  if (legal.includes(card)) hooks.act({ type: "play", card });
  else hooks.showError(`${card} cannot be played now`);
}

/** Listen to the keyboard; ``view()`` is the view on screen. */
export function initKeys(options) {
  hooks = options;
  document.addEventListener("keydown", handleKey);
}
