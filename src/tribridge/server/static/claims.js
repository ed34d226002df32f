// Claims at the table: the declarer claims a number of tricks; the defenders see the claimer's hand
// and accept or dispute (the claim takes effect when both agree).

import { chairLabel } from "./names.js";
import { handDiagram } from "./panels.js";

const $ = (id) => document.getElementById(id);

function tricksLeft(view) {
  if (view.claim && typeof view.claim.tricks_left === "number") return view.claim.tricks_left;
  const tricks = view.tricks || {};
  return 13 - (tricks.declarer ?? 0) - (tricks.defenders ?? 0);
}

function fillClaimChoices(left) {
  const select = $("claim-tricks");
  if (Number(select.dataset.left) === left) return;
  select.dataset.left = String(left);
  select.replaceChildren();
  for (let n = left; n >= 0; n -= 1) {
    const option = document.createElement("option");
    option.value = String(n);
    option.textContent = n === left ? `all ${n}` : String(n);
    select.append(option);
  }
}

/** Show the claim controls (when this chair may claim) and a pending claim with its answers. */
export function renderClaim(view) {
  const left = tricksLeft(view);
  const declarerMayClaim = view.declarer_chair === view.my_chair && view.phase === "play";
  const canClaim = "can_claim" in view ? Boolean(view.can_claim) && declarerMayClaim : declarerMayClaim && view.my_turn;
  $("claim-box").hidden = !(canClaim && left > 0 && !view.claim);
  if (!$("claim-box").hidden) fillClaimChoices(left);
  const claim = view.phase === "play" ? view.claim : null;
  $("claim-pending").hidden = !claim;
  if (!claim) return;
  const who = chairLabel(view, claim.chair);
  const answered = (claim.agreed_chairs || []).map((c) => chairLabel(view, c)).join(", ");
  $("claim-text").textContent = `${who} ${who === "You" ? "claim" : "claims"} ${claim.tricks} of the`
    + ` ${claim.tricks_left} remaining tricks.` + (answered ? ` Accepted by ${answered}.` : "");
  $("claim-hand").replaceChildren();
  if (claim.claimer_hand && claim.chair !== view.my_chair) $("claim-hand").append(handDiagram(claim.claimer_hand));
  const mustAnswer = Boolean(view.must_answer_claim);
  $("claim-answers").hidden = !mustAnswer;
  if (!mustAnswer && claim.chair === view.my_chair) {
    $("claim-text").append(" Waiting for the defenders to answer.");
  }
}

/** Wire the claim buttons to ``act``. */
export function initClaims(act) {
  $("claim").addEventListener("click", () => act({ type: "claim", tricks: Number($("claim-tricks").value) }));
  $("accept-claim").addEventListener("click", () => act({ type: "accept_claim" }));
  $("dispute-claim").addEventListener("click", () => act({ type: "dispute_claim" }));
}
