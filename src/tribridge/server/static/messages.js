// Plain words for every error the page can get from the server (or from the network).

import { ApiError } from "./api.js";

/** The server's chair numbers (0..2) as the page writes them (Chair 1..3). */
function chairsAsShown(text) {
  return text.replace(/\bchair (\d)\b/gi, (_, n) => `chair ${Number(n) + 1}`);
}

const PATTERNS = [
  [/stale version|table is at version/i, "The table moved on before your action arrived; here is where it stands now."],
  [/not your turn/i, "It is not your turn yet."],
  [/already taken/i, (m, text) => `Someone else took ${chairsAsShown(text).match(/chair \d/i)[0]} a moment ago; choose another chair.`],
  [/is a bot/i, "That chair is played by a bot."],
  [/hints are turned off/i, "Hints are turned off at this table."],
  [/too many hints/i, "You asked for many hints in a short time; wait a minute."],
  [/hint is given on your own turn/i, "Hints are for your own turn."],
  [/too many messages/i, "You are sending messages too fast; wait a few seconds."],
  [/wrong seat token|missing seat token/i, "This browser no longer holds a seat at this table."],
  [/no table/i, "There is no such table on this server (it may have ended)."],
  [/too many live tables for this client/i, "You have too many tables open; finish or leave one first."],
  [/too many/i, "The server is busy; try again in a moment."],
  [/not over|only allowed when it is done/i, "The deal is not over yet."],
  [/no claim to answer|there is no pending claim/i, "There is no claim to answer now."],
  [/you are ready for the next deal already/i, (m, text) => `You are ready; ${text.split("; ")[1] || "waiting for the others"}.`],
];

/** A message a person understands for an error (an ApiError from the server, or a network failure). */
export function plainMessage(err) {
  const text = String((err && err.message) || err || "");
  if (!(err instanceof ApiError)) {
    if (/fetch|network|load failed/i.test(text)) return "The server cannot be reached; check your connection.";
  }
  for (const [pattern, words] of PATTERNS) {
    const match = pattern.exec(text);
    if (match) return typeof words === "function" ? words(match, text) : words;
  }
  if (err instanceof ApiError && err.status >= 500) return "The server had a problem; try again.";
  const words = text.replace(/^[a-z_][a-z_0-9.[\]]*: /, ""); // the server names the field first: not for people
  return chairsAsShown(words.charAt(0).toUpperCase() + words.slice(1));
}

/** Whether an error is the 409 of an action made on a view that was already old (our own double click). */
export function isStale(err) {
  return err instanceof ApiError && err.status === 409 && /stale version/i.test(err.message);
}
