// The Hint button: the hint bot's suggestion for my turn and its reason (when the table allows hints).

import { callFragment, cardLabel } from "./cards.js";
import { plainMessage } from "./messages.js";

const $ = (id) => document.getElementById(id);
let hintVersion = null; // the version the shown hint is for

/** Show the Hint button on my turn at a table with hints; a hint goes once the table moves on. */
export function renderHint(view) {
  $("hint").hidden = !(view.hints && view.my_turn && !view.spectator && view.phase !== "done");
  if (hintVersion !== null && hintVersion !== view.version) {
    $("hint-text").hidden = true;
    hintVersion = null;
  }
}

/** Wire the Hint button: ``connection()`` is the table's connection, ``view()`` the view on screen. */
export function initHints(connection, view) {
  $("hint").addEventListener("click", async () => {
    const conn = connection();
    const shown = view();
    if (!conn || !shown) return;
    $("hint").disabled = true;
    const box = $("hint-text");
    box.hidden = false;
    box.textContent = "Thinking about a hint…";
    hintVersion = shown.version;
    try {
      const hint = await conn.hint();
      box.replaceChildren(`Hint (${hint.bot} bot): `);
      const what = document.createElement("b");
      what.dataset.suggestion = hint.suggestion;
      if (hint.kind === "call") what.append(callFragment(hint.suggestion));
      else what.textContent = cardLabel(hint.suggestion);
      box.append(what, `. ${hint.reason}`);
    } catch (err) {
      box.textContent = `No hint: ${plainMessage(err)}`;
    } finally {
      $("hint").disabled = false;
    }
  });
}
