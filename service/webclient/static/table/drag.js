// Dragging a card, with the cards on it, onto a pile, with a mouse or a pen: when the drag
// starts the card is chosen as a tap chooses it (its legal places outlined), and dropped on
// a pile it goes there as a tap on that pile would send it. A finger taps (seed 004): on
// a touch screen a drag scrolls the page.

import { $, app, enqueue, say } from "../app.js";
import { canPlay, clearSelection, selectCard } from "./choose.js";
import { moveSelectionTo } from "./play.js";

const DRAG_PX = 6; // a press that moves less is a tap

let press = null; // {card, pile, x, y, nodes, dragging}: the card pressed, and the drag
let dropped = false; // a drag just ended: the click the browser sends after it is no tap

function onDown(event) {
  if (event.pointerType === "touch" || event.button !== 0 || !app.game) return;
  const cardEl = event.target.closest("[data-card]");
  const pile = cardEl?.closest("[data-pile]")?.dataset.pile;
  if (!pile || pile === "f") return;
  press = { card: cardEl.dataset.card, pile, x: event.clientX, y: event.clientY,
    nodes: [], dragging: false };
}

function onMove(event) {
  if (!press) return;
  const dx = event.clientX - press.x;
  const dy = event.clientY - press.y;
  if (!press.dragging) {
    if (Math.hypot(dx, dy) < DRAG_PX) return;
    if (!canPlay()) {
      press = null;
      return;
    }
    press.dragging = true;
    // the card and the cards on it: its pile's cards after it
    for (let node = $(`#table [data-card="${press.card}"]`); node; node = node.nextElementSibling) {
      node.classList.add("dragging");
      press.nodes.push(node);
    }
    const { card } = press;
    enqueue(() => selectCard(card));
  }
  for (const node of press.nodes) node.style.transform = `translate(${dx}px, ${dy}px)`;
}

function onUp(event) {
  const drag = press;
  press = null;
  if (!drag?.dragging) return;
  for (const node of drag.nodes) {
    node.classList.remove("dragging");
    node.style.transform = "";
  }
  dropped = true;
  setTimeout(() => { dropped = false; });
  const under = document.elementFromPoint(event.clientX, event.clientY);
  const pile = under?.closest("#table [data-pile]")?.dataset.pile;
  enqueue(async () => {
    if (pile && pile !== drag.pile && app.selection?.card === drag.card) {
      await moveSelectionTo(pile);
    } else if (app.selection) {
      clearSelection();
      say("Choice dropped.");
    }
  });
}

function onCancel() {
  if (press?.dragging) onUp({ clientX: -1, clientY: -1 });
  press = null;
}

/** The click that ends a drag is not a tap: it stops here (listening before the taps). */
function onClick(event) {
  if (!dropped) return;
  dropped = false;
  event.stopPropagation();
  event.preventDefault();
}

export function wireDrag() {
  const table = $("#table");
  table.addEventListener("pointerdown", onDown);
  table.addEventListener("click", onClick, { capture: true });
  document.addEventListener("pointermove", onMove);
  document.addEventListener("pointerup", onUp);
  document.addEventListener("pointercancel", onCancel);
}
