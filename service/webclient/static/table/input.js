// What the reader does: taps and double taps on the table, keys, the new-game form and the
// game's buttons. Each becomes one action in the page's queue (app.js), so that taps made
// while cards are still moving apply to the layout those moves leave.

import { $, app, enqueue, say } from "../app.js";
import { canPlay, clearSelection, selectCard, selectPile } from "./choose.js";
import { startGame } from "./game.js";
import { refreshDaily } from "../panels/panels.js";
import {
  autoMove, flushMoves, giveUp, hint, moveSelectionTo, queueMove, redo, undo,
} from "./play.js";
import { dealFrom } from "../routing.js";
import { pileCards } from "../state.js";
import { foldNewGame } from "./view.js";

const DOUBLE_TAP_MS = 450;

// ------------------------------------------------------------------ taps

/** A tap on `pile` (on `card`, or on the pile itself when null) at `time` (ms). */
async function tap(pile, card, time) {
  if (!canPlay()) return;
  const sel = app.selection;
  const last = app.lastTap;
  app.lastTap = null;
  if (card && last && last.card === card && time - last.time < DOUBLE_TAP_MS) {
    await autoMove(card); // double tap: up, or else to a free cell
    return;
  }
  if (!sel) {
    if (pile === "f") {
      say("Cards on the foundations stay there. Choose a card to send up.");
      return;
    }
    const cards = pileCards(app.state, pile);
    const chosen = card || cards[cards.length - 1];
    if (!chosen) return;
    app.lastTap = { card: chosen, time };
    await selectCard(chosen);
    return;
  }
  if (sel.kind === "card" && card === sel.card) {
    clearSelection();
    say("Choice dropped.");
    return;
  }
  if (pile === sel.pile) {
    if (card && pile[0] === "t") {
      app.lastTap = { card, time };
      await selectCard(card);
    } else {
      clearSelection();
      say("Choice dropped.");
    }
    return;
  }
  await moveSelectionTo(pile);
}

// ------------------------------------------------------------------ keys

/** The column a key names: 1-9, 0 for 10, then - = \ (or Shift+1..3) for 11-13. */
function columnForKey(event) {
  const columns = app.game ? app.game.state.tableau.length : 8;
  let n = null;
  const code = /^(Digit|Numpad)(\d)$/.exec(event.code || "");
  if (code) {
    n = Number(code[2]) || 10;
    // Shift+1..3 (US keyboards print !, @, #) for Baker's Dozen's columns 11-13;
    // where Shift gives the digits themselves (AZERTY) it stays the digit
    if (code[1] === "Digit" && event.shiftKey && !/^\d$/.test(event.key) && n <= 3) n += 10;
  } else if (/^\d$/.test(event.key)) {
    n = Number(event.key) || 10;
  } else if (event.code === "Minus" || event.key === "-") {
    n = 11;
  } else if (event.code === "Equal" || event.key === "=") {
    n = 12;
  } else if (event.code === "Backslash" || event.key === "\\") {
    n = 13;
  }
  return n !== null && n <= columns ? `t${n}` : null;
}

/** A pile named with a key: the first picks it, the second says where it goes. */
async function keyPile(pile) {
  if (!canPlay()) return;
  const sel = app.selection;
  if (pile === "c") {
    const held = app.state.cells.flatMap((card, i) => (card ? [`c${i + 1}`] : []));
    if (!sel || sel.pile[0] === "c") {
      // L picks a cell card; again, the next one
      if (!app.state.cells.length) {
        say("This game has no cells.");
        return;
      }
      const next = sel ? held[held.indexOf(sel.pile) + 1] : held[0];
      if (next) await selectPile(next);
      else if (sel) clearSelection();
      else say("The cells are empty.");
      return;
    }
    await moveSelectionTo("c");
    return;
  }
  if (pile === "f") {
    if (!sel) {
      say(app.state.cells.length
        ? "Choose a card first: a column's number, or L for the cells."
        : "Choose a card first: a column's number.");
      return;
    }
    await moveSelectionTo("f");
    return;
  }
  if (!sel) {
    await selectPile(pile);
    return;
  }
  if (sel.pile === pile) {
    clearSelection();
    say("Choice dropped.");
    return;
  }
  await moveSelectionTo(pile);
}

function onKey(event) {
  // keys typed into a field are the field's (a checkbox or a radio button takes none)
  const field = event.target.closest?.("input, select, textarea");
  if (field && !(field.type === "checkbox" || field.type === "radio")) return;
  if (field && event.key === " ") return; // (the space ticks the box)
  if (event.altKey) return;
  const key = event.key.toLowerCase();
  const ctrl = event.ctrlKey || event.metaKey;
  if (ctrl && key === "z") {
    event.preventDefault();
    enqueue(event.shiftKey ? redo : undo);
    return;
  }
  if (ctrl && key === "y") {
    event.preventDefault();
    enqueue(redo);
    return;
  }
  if (ctrl || !app.game) return;
  if (event.key === "Escape") {
    enqueue(async () => {
      if (app.selection) say("Choice dropped.");
      clearSelection();
    });
    return;
  }
  const focused = event.target.closest?.("#table [data-card], #table [data-pile]");
  if (focused && (event.key === "Enter" || event.key === " ")) {
    event.preventDefault();
    const pile = focused.closest("[data-pile]").dataset.pile;
    const card = focused.dataset.card || null;
    enqueue(() => tap(pile, card, event.timeStamp));
    return;
  }
  if (event.target.closest?.("button, a") && (event.key === "Enter" || event.key === " ")) return;
  let pile = columnForKey(event);
  if (!pile && key === "l") pile = "c";
  if (!pile && key === "f") pile = "f";
  if (pile) {
    event.preventDefault();
    enqueue(() => keyPile(pile));
    return;
  }
  if (key === "h" && app.features.hint !== false) enqueue(hint);
}

// ------------------------------------------------------------------ wiring

/** The same game again from its first deal, or another deal of it (`deal` null). */
function dealAgain(deal) {
  const g = app.game;
  if (g) enqueue(() => startGame(g.variant, deal === undefined ? g.deal : deal, g.autoplay));
}

const BANNER_ACTIONS = {
  "another-deal": () => dealAgain(null),
  "same-deal": () => dealAgain(),
  undo: () => enqueue(undo),
};

let lastClick = null; // {card, time, entry}: the last click on a card and its queued tap

/** A click on the table becomes a tap in the queue. A double tap whose first tap is still
 * waiting (an earlier move is on its way) is one move kept for the next sending, so that
 * the moves made meanwhile go together in one request (play.js, flushMoves). */
function onTableClick(event) {
  const pileEl = event.target.closest("[data-pile]");
  if (!pileEl) return;
  const card = event.target.closest("[data-card]")?.dataset.card || null;
  const time = event.timeStamp;
  const last = lastClick;
  if (card && last && last.card === card && time - last.time < DOUBLE_TAP_MS
      && !last.entry.started) {
    last.entry.cancelled = true;
    lastClick = null;
    queueMove({ card, doubleTap: true }); // read when sent (play.js, flushMoves)
    enqueue(flushMoves);
    return;
  }
  const entry = { started: false, cancelled: false };
  lastClick = card ? { card, time, entry } : null;
  enqueue(async () => {
    entry.started = true;
    if (!entry.cancelled) await tap(pileEl.dataset.pile, card, time);
  });
}

export function wireInput() {
  $("#table").addEventListener("click", onTableClick);
  document.addEventListener("keydown", onKey);
  $("#banner").addEventListener("click", (event) => {
    const action = event.target.closest("button[data-action]")?.dataset.action;
    BANNER_ACTIONS[action]?.();
  });
  $("#new-game-toggle").addEventListener("click", () => {
    foldNewGame($(".bar").classList.contains("open"));
  });
  $("#new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    enqueue(() => startGame($("#variant").value, dealFrom($("#deal-input").value),
      $("#autoplay").checked));
  });
  $("#random-deal").addEventListener("click", () => {
    enqueue(() => startGame($("#variant").value, null, $("#autoplay").checked,
      { grade: $("#grade").value || null }));
  });
  $("#daily-deal").addEventListener("click", (event) => {
    const { variant, deal } = event.currentTarget.dataset;
    enqueue(() => startGame(variant, Number(deal), $("#autoplay").checked));
  });
  $("#autoplay").addEventListener("change", (event) => {
    // a game keeps the setting it was dealt with (the API's `autoplay`): say so mid-game
    const g = app.game;
    if (app.mode === "play" && g && g.status === "playing") {
      say(event.target.checked === (g.autoplay !== false)
        ? "" : `Cards will ${event.target.checked ? "" : "no longer "}go up by themselves`
          + " from the next deal on: this game keeps its setting.");
    }
  });
  $("#variant").addEventListener("change", () => enqueue(refreshDaily));
  $("#grade").addEventListener("change", () => enqueue(refreshDaily));
  for (const button of document.querySelectorAll("[data-start]")) {
    button.addEventListener("click", () => {
      $("#variant").value = button.dataset.start;
      enqueue(() => startGame(button.dataset.start, dealFrom($("#deal-input").value),
        $("#autoplay").checked));
    });
  }
  $("#undo").addEventListener("click", () => enqueue(undo));
  $("#redo").addEventListener("click", () => enqueue(redo));
  $("#hint").addEventListener("click", () => enqueue(hint));
  $("#restart").addEventListener("click", () => dealAgain());
  $("#give-up").addEventListener("click", () => enqueue(giveUp));
}
