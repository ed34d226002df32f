// Table talk: short messages to everyone at the table (shown as text, never as markup).

import { chairLabel, MAX_NAME } from "./names.js";

const $ = (id) => document.getElementById(id);
const MAX_TALK = 200; // characters, as the server cuts them
let shownCount = -1;

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
  shownCount = messages.length;
}

/** Wire the talk form: ``act(action, versioned)`` sends ``say`` without the view's version. */
export function initTalk(act) {
  $("talk-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = Array.from($("talk-input").value.trim()).slice(0, MAX_TALK).join("");
    if (!text) return;
    $("talk-input").value = "";
    act({ type: "say", text }, false);
  });
}
