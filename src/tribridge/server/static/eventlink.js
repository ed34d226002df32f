// At an event's table: the link back to the event, and no "Next deal" after the event's last board.

/** Show the link to the table's event (hidden at an ordinary table); stop at the last board. */
export function renderEventLink(view) {
  const link = document.getElementById("event-link");
  const next = document.getElementById("next-deal");
  const event = view.event;
  link.hidden = !event;
  next.hidden = Boolean(event && event.over);
  if (!event) return;
  if (event.over) next.disabled = true;
  link.href = `events.html?event=${encodeURIComponent(event.event_id)}`;
  link.textContent = event.over
    ? "This table's boards are all played: back to the event (standings and travellers)"
    : `Board ${view.deal_no} of ${event.boards} · back to the event`;
}
