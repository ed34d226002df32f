// At an event's table: the link back to the event, the board the event page sent us to, the word "Board", and no
// "Next board" after the event's last board.

let movedOn = false; // the table was moved on to the board the event page asked for (once a page)

/** "Board" at an event's table (as the event says), "Deal" elsewhere. */
export function dealWord(view) {
  return view && view.event ? "Board" : "Deal";
}

/** Show the link to the table's event (hidden at an ordinary table); stop at the last board; when the event page
 * opened the table for a board (``board=N``) and the table still shows the finished one before it, move on. */
export function renderEventLink(view, act) {
  const link = document.getElementById("event-link");
  const next = document.getElementById("next-deal");
  const event = view.event;
  link.hidden = !event;
  next.hidden = Boolean(event && event.over);
  next.firstChild.textContent = `Next ${dealWord(view).toLowerCase()}`;
  if (!event) return;
  if (event.over) next.disabled = true;
  link.href = `events.html?event=${encodeURIComponent(event.event_id)}`;
  link.textContent = event.over
    ? "This table's boards are all played: back to the event (standings and travellers)"
    : `Board ${view.deal_no} of ${event.boards} · back to the event`;
  const wanted = Number(new URLSearchParams(location.search).get("board"));
  if (!movedOn && act && !view.spectator && !event.over && view.phase === "done" && view.deal_no < wanted) {
    movedOn = true;
    act({ type: "next" });
  }
}
