// Spectators: the watch link, a player's "let watchers see my hand", and what a spectator's page says.

import { chairLabel } from "./names.js";

const $ = (id) => document.getElementById(id);

/** The watch link of a table (a spectator's page; ``chair`` follows that chair's view when its player allows). */
export function watchUrl(tableUrl, tableId, chair = null) {
  const url = new URL(tableUrl(tableId));
  url.searchParams.set("watch", "");
  if (chair !== null) url.searchParams.set("chair", String(chair));
  return url.toString();
}

/** The watch controls under the table: a player shares a watch link and may let watchers see their hand. */
export function renderWatchers(view, tableUrl) {
  const spectator = Boolean(view.spectator);
  const eventTable = Boolean(view.event); // an event's tables are not watched while it runs
  $("share-view-label").hidden = spectator || eventTable;
  $("copy-watch-link").hidden = spectator || eventTable;
  $("share-view").checked = (view.shown_to_watchers || []).includes(view.my_chair);
  $("watch-link").value = watchUrl(tableUrl, view.table_id, spectator ? null : view.my_chair);
  $("watching-note").hidden = !spectator;
  if (spectator) {
    const follow = view.watching_chair;
    $("watching-note").textContent = follow === null || follow === undefined
      ? "You are watching: hidden hands show when the deal is over."
      : `You are watching with ${chairLabel(view, follow)}'s view.`;
  }
}

/** Wire the controls: ``act(action, versioned)`` sends an action; ``view()`` is the view on screen. */
export function initWatchers(act, view) {
  $("share-view").addEventListener("change", () => act({ type: "watchers", allow: $("share-view").checked }, false));
  $("copy-watch-link").addEventListener("click", async () => {
    const shown = view();
    if (!shown) return;
    const link = new URL($("watch-link").value);
    if (!(shown.shown_to_watchers || []).includes(shown.my_chair)) link.searchParams.delete("chair");
    try {
      await navigator.clipboard.writeText(link.toString());
      $("copy-watch-link").textContent = "Watch link copied";
    } catch {
      $("watch-link").hidden = false;
      $("watch-link").value = link.toString();
      $("watch-link").select();
    }
  });
}
