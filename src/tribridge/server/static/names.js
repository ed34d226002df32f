// Names of the chairs as every player sees them.

function baseLabel(view, chair) {
  const info = (view.chairs || [])[chair] || {};
  if (info.kind === "bot") return info.bot ? `${info.bot} bot` : info.name || "bot";
  if (info.taken === false) return `Open chair ${chair + 1}`;
  return info.name || `Player ${chair + 1}`;
}

/** A chair's name for this view: "You", the player's name, or the bot's ("pimc bot"); a shared name gets the chair number. */
export function chairLabel(view, chair) {
  if (chair === null || chair === undefined || Number.isNaN(chair)) return "";
  if (chair === view.my_chair) return "You";
  const label = baseLabel(view, chair);
  const shared = [0, 1, 2].some((other) => other !== chair && other !== view.my_chair && baseLabel(view, other) === label);
  return shared ? `${label} ${chair + 1}` : label;
}

/** The three chairs in calling order, from the dealer's chair. */
export function callingChairs(view) {
  const calls = view.auction || [];
  let dealerChair = view.dealer_chair;
  if ((dealerChair === undefined || dealerChair === null) && calls.length && typeof calls[0].chair === "number") {
    dealerChair = calls[0].chair;
  }
  if (dealerChair === undefined || dealerChair === null) dealerChair = ((view.deal_no || 1) - 1) % 3;
  return [0, 1, 2].map((i) => (dealerChair + i) % 3);
}
