// Undo by consent: take back my last call or card before the next action, when the others agree.

import { callFragment, cardLabel } from "./cards.js";
import { chairLabel } from "./names.js";

const $ = (id) => document.getElementById(id);

/** An undone (or to-be-undone) action in words: "1♣" or "the ace of spades". */
export function actionWords(action) {
  const frag = document.createDocumentFragment();
  if (!action) frag.append("the last action");
  else if (action.type === "call") frag.append(callFragment(action.call));
  else if (action.type === "play") frag.append(cardLabel(action.card).toLowerCase());
  else frag.append(action.type);
  return frag;
}

/** The Undo button (my own last call or card) and an open request with Agree and Refuse for the others. */
export function renderUndo(view) {
  $("undo").hidden = !view.can_undo || Boolean(view.spectator);
  const request = view.undo;
  $("undo-pending").hidden = !request;
  if (!request) return;
  const waiting = (request.awaiting_chairs || []).map((c) => chairLabel(view, c)).join(", ");
  const mine = request.chair === view.my_chair;
  $("undo-text").textContent = mine
    ? `You asked to take back your last ${view.phase === "auction" ? "call" : "card"}; waiting for ${waiting}.`
    : `${chairLabel(view, request.chair)} asks to take back their last ${view.phase === "auction" ? "call" : "card"}.`;
  $("undo-answers").hidden = !(request.awaiting_chairs || []).includes(view.my_chair);
}

/** What the table should hear about the newest undo action, or "". */
export function undoNotice(view) {
  const last = view.last_action;
  if (!last) return "";
  const who = chairLabel(view, last.chair);
  if (last.type === "undo_refuse") return `${who} refused to let the last action be taken back.`;
  if (last.type !== "undone") return "";
  const undone = (view.undone || [])[(view.undone || []).length - 1];
  const what = document.createElement("span");
  what.append(actionWords(undone && undone.action));
  return `${who === "You" ? "You" : who} took back ${what.textContent}.`;
}

/** Wire the undo buttons to ``act``. */
export function initUndo(act) {
  $("undo").addEventListener("click", () => act({ type: "undo" }));
  $("undo-agree").addEventListener("click", () => act({ type: "undo_agree" }));
  $("undo-refuse").addEventListener("click", () => act({ type: "undo_refuse" }));
}
