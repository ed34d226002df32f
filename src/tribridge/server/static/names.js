// Names of the chairs as every player sees them.

export const MAX_NAME = 40; // code points, as the server counts them

/** A name trimmed and cut to MAX_NAME code points (never inside a character, as String.slice would). */
export function cutName(name) {
  return Array.from(String(name || "").trim()).slice(0, MAX_NAME).join("").trim();
}

/** Why a typed name cannot be used as it is (longer than MAX_NAME code points, as the server counts), or "". */
export function nameProblem(name) {
  const length = Array.from(String(name || "").trim()).length;
  return length > MAX_NAME ? `Your name has ${length} characters: at most ${MAX_NAME}, please shorten it.` : "";
}

function baseLabel(view, chair) {
  const info = (view.chairs || [])[chair] || {};
  if (info.kind === "bot") return info.label || (info.bot ? `${info.bot} bot` : info.name || "bot"); // the server's name
  if (info.taken === false) return `Friend ${chair + 1} (not joined yet)`;
  return info.name || `Player ${chair + 1}`;
}

/** A chair's name for this view: "You", the player's name, or the bot's as the server names it ("pimc bot", "pimc bot 2"
 * when two chairs hold it); a name two people share gets the chair number. */
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
