// Table talk: short messages to everyone at the table (shown as text, never as markup).

import { chairLabel, MAX_NAME } from "./names.js";

const $ = (id) => document.getElementById(id);
const MAX_TALK = 200; // characters, as the server cuts them
let shownCount = -1;
let seenCount = -1; // messages the player has had on screen

/** The talk box: shown to the people of a table that has more than one person; the newest messages at the end. */
export function renderTalk(view) {
  const people = (view.chairs || []).filter((c) => c && c.kind === "human").length;
  $("talk").hidden = people < 2 || Boolean(view.spectator);
  if ($("talk").hidden) return;
  const messages = view.talk || [];
  const log = $("talk-log");
  const key = JSON.stringify(messages);
  if (log.dataset.key === key) return;
  log.dataset.key = key;
  log.replaceChildren();
  for (const message of messages) {
    const item = document.createElement("li");
    const who = document.createElement("span");
    who.className = "talker";
    who.textContent = `${chairLabel(view, message.chair).slice(0, MAX_NAME * 2)}: `;
    item.append(who, document.createTextNode(message.text));
    log.append(item);
  }
  if (messages.length !== shownCount) log.scrollTop = log.scrollHeight;
  if (seenCount < 0 || talkInView()) seenCount = messages.length; // what was there on arrival counts as read
  else seenCount = Math.min(seenCount, messages.length);
  shownCount = messages.length;
  renderUnread();
}

/** Whether the talk box's messages are on screen now (the whole log, not only its heading). */
function talkInView() {
  const log = $("talk-log").getBoundingClientRect();
  return !$("talk").hidden && log.top >= 0 && log.bottom <= window.innerHeight;
}

/** The "Table talk" button of the status bar, with the count of messages not yet seen. */
function renderUnread() {
  const unread = $("talk").hidden ? 0 : Math.max(shownCount - seenCount, 0);
  $("talk-jump").hidden = $("talk").hidden;
  $("talk-unread").hidden = unread === 0;
  $("talk-unread").textContent = `${unread} new`;
  $("talk-jump").title = unread ? `${unread} unread message${unread === 1 ? "" : "s"}: go to the table talk` : "go to the table talk";
}

function markSeen() {
  if (!talkInView()) return;
  seenCount = shownCount;
  renderUnread();
}

/** Wire the talk form: ``act(action, versioned)`` sends ``say`` without the view's version. */
export function initTalk(act) {
  $("talk-jump").addEventListener("click", () => {
    $("talk").scrollIntoView({ block: "center" });
    $("talk-input").focus({ preventScroll: true });
    seenCount = shownCount;
    renderUnread();
  });
  window.addEventListener("scroll", markSeen, { passive: true });
  $("talk-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = Array.from($("talk-input").value.trim()).slice(0, MAX_TALK).join("");
    if (!text) return;
    $("talk-input").value = "";
    act({ type: "say", text }, false);
  });
}
