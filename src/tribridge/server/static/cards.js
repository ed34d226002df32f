// Cards, calls and seats for the web table: parsing, sorting and small DOM builders.

export const SEATS = ["N", "E", "S", "W"];
export const SEAT_NAMES = { N: "North", E: "East", S: "South", W: "West" };
export const RANKS = "AKQJT98765432";
// Display order of the suits in a hand: alternating colours in the four-colour deck.
export const HAND_SUIT_ORDER = ["S", "H", "C", "D"];
export const SUIT_SYMBOLS = { C: "♣", D: "♦", H: "♥", S: "♠", N: "NT" };
export const SUIT_NAMES = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
export const RANK_NAMES = {
  A: "Ace", K: "King", Q: "Queen", J: "Jack", T: "Ten", 9: "Nine", 8: "Eight",
  7: "Seven", 6: "Six", 5: "Five", 4: "Four", 3: "Three", 2: "Two",
};
export const DENOMS = ["C", "D", "H", "S", "N"];

/** Split a card string "SA" / "S10" into its suit and rank letters. */
export function parseCard(card) {
  const text = String(card).trim().toUpperCase();
  const suit = text[0];
  let rank = text.slice(1);
  if (rank === "10") rank = "T";
  return { suit, rank };
}

/** Seat letter of a seat given as a letter, a name or an index. */
export function seatLetter(seat) {
  if (seat === null || seat === undefined) return null;
  if (typeof seat === "number") return SEATS[seat] ?? null;
  const text = String(seat).trim().toUpperCase();
  if (SEATS.includes(text[0])) return text[0];
  return null;
}

/** Position of a seat around the table seen from mySeat: bottom, left, top or right. */
export function relativePosition(seat, mySeat) {
  const offset = (SEATS.indexOf(seat) - SEATS.indexOf(mySeat) + 4) % 4;
  return ["bottom", "left", "top", "right"][offset];
}

/** Cards sorted for display: by suit (♠ ♥ ♣ ♦), high to low within a suit. */
export function sortCards(cards) {
  return [...cards].sort((a, b) => {
    const ca = parseCard(a);
    const cb = parseCard(b);
    const bySuit = HAND_SUIT_ORDER.indexOf(ca.suit) - HAND_SUIT_ORDER.indexOf(cb.suit);
    return bySuit !== 0 ? bySuit : RANKS.indexOf(ca.rank) - RANKS.indexOf(cb.rank);
  });
}

/** The canonical form of a card, for comparing cards from different sources. */
export function normCard(card) {
  const { suit, rank } = parseCard(card);
  return suit + rank;
}

/** The canonical form of a call: P, X, XX or level + C/D/H/S/N. */
export function normCall(call) {
  let text = String(call).trim().toUpperCase();
  if (text === "PASS" || text === "--" || text === "") return "P";
  if (text === "DB" || text === "DBL") return "X";
  if (text === "RD" || text === "RDBL") return "XX";
  text = text.replace("NT", "N");
  return text;
}

/** Human-readable card name, e.g. "Ace of spades". */
export function cardLabel(card) {
  const { suit, rank } = parseCard(card);
  return `${RANK_NAMES[rank] ?? rank} of ${SUIT_NAMES[suit] ?? suit}`;
}

/** Rank as printed on a card face (10 for the ten). */
export function rankText(rank) {
  return rank === "T" ? "10" : rank;
}

/** A span with a suit symbol in its colour-blind-safe colour. */
export function suitSpan(suit) {
  const span = document.createElement("span");
  span.className = `suit suit-${suit}`;
  span.textContent = SUIT_SYMBOLS[suit] ?? suit;
  return span;
}

/** A DOM fragment showing a call (1♠, 3NT, Pass, X, XX), or a contract like 3NTX. */
export function callFragment(call) {
  const text = normCall(call);
  const frag = document.createDocumentFragment();
  if (text === "P") {
    frag.append("Pass");
    return frag;
  }
  const match = /^([1-7])([CDHSN])(X{0,2})$/.exec(text);
  if (!match) {
    frag.append(text);
    return frag;
  }
  frag.append(match[1]);
  frag.append(suitSpan(match[2]));
  if (match[3]) frag.append(match[3]);
  return frag;
}

/** A card face (a button when playable) for the card string. */
export function cardElement(card, { playable = false, small = false } = {}) {
  const { suit, rank } = parseCard(card);
  const el = document.createElement("button");
  el.type = "button";
  el.className = `card face suit-${suit}${small ? " small" : ""}`;
  el.dataset.card = suit + rank;
  el.setAttribute("aria-label", cardLabel(card));
  el.disabled = !playable;
  if (playable) el.classList.add("playable");
  const r = document.createElement("span");
  r.className = "rank";
  r.textContent = rankText(rank);
  const s = document.createElement("span");
  s.className = "pip";
  s.textContent = SUIT_SYMBOLS[suit];
  el.append(r, s);
  return el;
}

/** A DOM element with attributes (``className``, ``data-*``, properties) and children (nodes or text). */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === "className") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else node[key] = value;
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/** A face-down card. */
export function cardBack() {
  const el = document.createElement("div");
  el.className = "card back";
  el.setAttribute("aria-hidden", "true");
  return el;
}
