// The lines around the table: the status bar, the reseating after the auction, who is ready, notices.

import { SEAT_NAMES, callFragment, seatLetter } from "./cards.js";
import { dealWord } from "./eventlink.js";
import { chairLabel } from "./names.js";

const $ = (id) => document.getElementById(id);

function listWords(names) {
  return names.length <= 1 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
}

/** The status bar: deal, dealer, contract and declarer, tricks, whose turn it is. */
export function renderStatus(view, bySeat, { declarer, turn, dummySeat }) {
  const dealer = seatLetter(view.dealer);
  $("deal-info").textContent = `${dealWord(view)} ${view.deal_no ?? "?"}` + (dealer ? ` · dealer ${SEAT_NAMES[dealer]}` : "")
    + (view.scheme ? ` · ${view.scheme} scoring` : "");
  const contract = $("contract-info");
  contract.replaceChildren();
  if (view.contract) {
    contract.append("Contract ");
    const c = document.createElement("b");
    c.id = "contract";
    c.append(callFragment(view.contract));
    contract.append(c);
    if (declarer) contract.append(` by ${SEAT_NAMES[declarer]} (${chairLabel(view, bySeat[declarer])})`);
  } else if (view.phase === "auction") contract.textContent = "Auction";
  else if (view.phase === "done" && view.result && view.result.passed_out) contract.textContent = "Passed out";
  renderTricks(view);
  const turnInfo = $("turn-info");
  turnInfo.classList.toggle("mine", Boolean(view.my_turn));
  if (view.phase === "done") turnInfo.textContent = `${dealWord(view)} over`;
  else if (view.waiting_for_friends) turnInfo.textContent = "Waiting for your friend: the game starts when they take their chair";
  else if (view.my_turn) {
    const fromDummy = view.phase === "play" && turn && turn === dummySeat;
    turnInfo.textContent = view.phase === "auction" ? "Your call" : fromDummy ? "Your turn: play from dummy" : "Your turn";
  } else if (turn) {
    const chair = view.turn_chair ?? bySeat[turn] ?? (turn === dummySeat && declarer ? bySeat[declarer] : undefined);
    turnInfo.textContent = `Waiting for ${chairLabel(view, chair) || SEAT_NAMES[turn]}`;
  } else turnInfo.textContent = "";
  $("watchers").textContent = view.watchers ? `${view.watchers} watching` : "";
  $("reseat-note").textContent = reseatWords(view);
  $("reseat-note").hidden = !$("reseat-note").textContent;
}

function renderTricks(view) {
  const tricks = view.tricks || {};
  const tricksEl = $("tricks-info");
  tricksEl.replaceChildren();
  if (view.phase === "auction" || !view.contract) return;
  const bold = (id, n) => {
    const b = document.createElement("b");
    b.id = id;
    b.textContent = String(n ?? 0);
    return b;
  };
  tricksEl.append("Tricks: declarer ", bold("tricks-declarer", tricks.declarer), " · defenders ",
    bold("tricks-defenders", tricks.defenders));
}

/** After the auction: where the widow's hand went and who sits opposite whom now. */
export function reseatWords(view) {
  if (view.phase !== "play" || view.declarer_chair === null || view.declarer_chair === undefined) return "";
  const declarer = view.declarer_chair;
  const defenders = [0, 1, 2].filter((c) => c !== declarer);
  const dummy = SEAT_NAMES[seatLetter(view.dummy_seat)] || "";
  if (declarer === view.my_chair) {
    return `You won the auction: the widow's hand is your dummy, opposite you (${dummy});`
      + ` ${listWords(defenders.map((c) => chairLabel(view, c)))} defend.`;
  }
  const who = chairLabel(view, declarer);
  const start = `${who} won the auction: the widow's hand goes to ${who} as dummy (${dummy}); `;
  if (defenders.includes(view.my_chair)) {
    const partner = defenders.find((c) => c !== view.my_chair);
    return `${start}${chairLabel(view, partner)}, your partner for this deal, now sits opposite you.`;
  }
  return `${start}${listWords(defenders.map((c) => chairLabel(view, c)))} defend, opposite each other.`;
}

/** Who asked for the next deal and who the table waits for (people only: bots are always ready). */
export function renderNextReady(view) {
  const people = (view.chairs || []).map((c, i) => (c && c.kind === "human" ? i : null)).filter((c) => c !== null);
  const ready = view.next_ready || [];
  const line = $("next-ready");
  const mine = ready.includes(view.my_chair);
  $("next-deal").disabled = mine || Boolean(view.spectator);
  if (!view.next_consent || people.length < 2) {
    line.textContent = "";
    return;
  }
  const waiting = people.filter((c) => !ready.includes(c)).map((c) => (c === view.my_chair ? "you" : chairLabel(view, c)));
  const word = dealWord(view).toLowerCase();
  line.textContent = ready.length
    ? `Ready for the next ${word}: ${listWords(ready.map((c) => chairLabel(view, c)))}; waiting for ${waiting.join(", ")}.`
    : `The next ${word} starts when every player has pressed Next ${word}.`;
}

/** A notice about the newest action that the table should hear about (a disputed claim), or "". */
export function noticeFor(view) {
  const last = view.last_action;
  if (!last || last.type !== "dispute_claim") return "";
  return `${chairLabel(view, last.chair)} disputed the claim; play goes on.`;
}

const TITLE = document.title;
let flashTimer = null;

/** On my turn the page's title flashes (so a player in another tab notices) until the turn passes. */
export function flashTitle(view) {
  const due = Boolean(view && view.my_turn && !view.spectator);
  if (!due) {
    clearInterval(flashTimer);
    flashTimer = null;
    document.title = TITLE;
    return;
  }
  if (flashTimer) return;
  let on = false;
  const flip = () => {
    on = !on;
    document.title = on ? "● Your turn — tribridge" : TITLE;
  };
  flip();
  flashTimer = setInterval(flip, 1000);
}
