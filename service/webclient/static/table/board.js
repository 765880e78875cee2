// Draws the table: piles marked data-pile, cards marked data-card and named in words.
// Cards that change place glide from where they were (unless the reader asked for less
// motion), so automatic moves are seen one by one.

import {
  SUITS, SUIT_SYMBOLS, cardName, cardText, isRed, pileName, rankOf, rankShown,
  suitWord,
} from "../cards.js";

const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

export function motionMs(ms) {
  return reducedMotion.matches ? 0 : ms;
}

function el(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) node.append(child);
  return node;
}

function cardElement(card, { free, pile, variant }) {
  const face = rankOf(card) > 10;
  const node = el("div", {
    class: `card${isRed(card) ? " red" : ""}${face ? " face" : ""}`,
    "data-card": card,
    role: "button",
    "aria-label": cardName(card),
    tabindex: free ? "0" : null,
  });
  node.title = `${cardName(card)} (${pileName(pile, variant)})`;
  // the corner's rank and suit (side by side; stacked where rows fan sideways)
  const corner = (side) => el("span", { class: `corner ${side}`, "aria-hidden": "true" }, [
    el("span", { class: "rank", text: rankShown(card) }),
    el("span", { class: "suit", text: SUIT_SYMBOLS[card[1]] }),
  ]);
  node.append(
    corner("tl"),
    corner("tr"),
    el("span", {
      class: "pip",
      "aria-hidden": "true",
      text: face ? rankShown(card) + SUIT_SYMBOLS[card[1]] : SUIT_SYMBOLS[card[1]],
    }),
  );
  return node;
}

function describeColumn(pile, cards, variant) {
  const name = pileName(pile, variant);
  if (!cards.length) return `${name}, empty`;
  const n = cards.length;
  return `${name}, ${n} card${n === 1 ? "" : "s"}, free card ${cardName(cards[n - 1])}`;
}

function columnElement(pile, cards, variant, kind) {
  const node = el("div", {
    class: `pile ${kind}`,
    "data-pile": pile,
    role: "group",
    "aria-label": describeColumn(pile, cards, variant),
    tabindex: cards.length ? null : "0",
  });
  cards.forEach((card, i) => {
    node.append(cardElement(card, { free: i === cards.length - 1, pile, variant }));
  });
  node.style.setProperty("--n", String(cards.length)); // a castle row's fan (style.css)
  return node;
}

function cellElement(i, held, variant) {
  const pile = `c${i + 1}`;
  const node = el("div", {
    class: "pile cell",
    "data-pile": pile,
    role: "group",
    "aria-label": held ? `${pileName(pile)}: ${cardName(held)}` : `${pileName(pile)}, empty`,
    tabindex: held ? null : "0",
  });
  if (held) node.append(cardElement(held, { free: true, pile, variant }));
  return node;
}

function foundationsElement(foundations, variant) {
  const tops = SUITS.map((suit) => {
    const rank = foundations[suit] || 0;
    return rank ? `${suitWord(suit)} up to the ${cardName(cardText(rank, suit)).split(" of ")[0]}`
      : `${suitWord(suit)} empty`;
  });
  const node = el("div", {
    class: "pile foundations",
    "data-pile": "f",
    role: "group",
    "aria-label": `Foundations: ${tops.join(", ")}`,
    tabindex: "0",
  });
  for (const suit of SUITS) {
    const rank = foundations[suit] || 0;
    const slot = el("div", { class: "slot", "data-suit": suit });
    slot.append(el("span", { class: "placeholder", "aria-hidden": "true", text: SUIT_SYMBOLS[suit] }));
    if (rank) {
      const card = cardElement(cardText(rank, suit), { free: false, pile: "f", variant });
      card.classList.add("locked");
      slot.append(card);
    }
    node.append(slot);
  }
  return node;
}

/** Draws `state` into `table`; `marks` = {selected: [cards], legal: [piles], hintCard, hintPile}. */
export function render(table, state, variant, marks = {}, animateMs = 0) {
  const before = new Map();
  if (animateMs > 0) {
    for (const node of table.querySelectorAll("[data-card]")) {
      before.set(node.dataset.card, node.getBoundingClientRect());
    }
  }
  // the card or pile that has the keyboard's focus keeps it across the drawing
  const focused = table.contains(document.activeElement) ? document.activeElement : null;
  const focusCard = focused?.dataset?.card;
  const focusPile = focused?.closest?.("[data-pile]")?.dataset.pile;
  const columns = state.tableau.length;
  table.className = `table layout-${variant === "beleaguered_castle" ? "castle" : "columns"}`
    + (columns > 8 ? " cols-13" : "");
  table.style.setProperty("--cols", String(columns));
  table.replaceChildren();

  const tableau = state.tableau.map((cards, i) => columnElement(
    `t${i + 1}`, cards, variant, variant === "beleaguered_castle" ? "row" : "column",
  ));
  const foundations = foundationsElement(state.foundations, variant);

  if (variant === "beleaguered_castle") {
    const half = Math.ceil(tableau.length / 2);
    const left = el("div", { class: "side-rows left" }, tableau.slice(0, half));
    const right = el("div", { class: "side-rows right" }, tableau.slice(half));
    table.append(el("div", { class: "castle" }, [left, foundations, right]));
  } else {
    const top = el("div", { class: "top-row" });
    if (state.cells.length) {
      top.append(el("div", { class: "cells", role: "group", "aria-label": "Cells" },
        state.cells.map((held, i) => cellElement(i, held, variant))));
    }
    top.append(foundations); // with no cells, the foundations stand at the left
    table.append(top, el("div", { class: "tableau" }, tableau));
  }
  mark(table, marks);
  if (focused) {
    const pile = `[data-pile="${focusPile}"]`;
    const again = (focusCard && table.querySelector(`[data-card="${focusCard}"][tabindex]`))
      || (focusPile && table.querySelector(`${pile} [data-card][tabindex], ${pile}[tabindex]`));
    (again || table).focus({ preventScroll: true });
  }

  if (animateMs > 0 && before.size) {
    const moved = [];
    for (const node of table.querySelectorAll("[data-card]")) {
      const old = before.get(node.dataset.card);
      if (!old) continue;
      const now = node.getBoundingClientRect();
      const dx = old.left - now.left;
      const dy = old.top - now.top;
      if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
      node.style.transition = "none";
      node.style.transform = `translate(${dx}px, ${dy}px)`;
      node.classList.add("moving");
      moved.push(node);
    }
    if (moved.length) {
      table.getBoundingClientRect(); // apply the start positions before the transition
      for (const node of moved) {
        node.style.transition = `transform ${animateMs}ms ease-out`;
        node.style.transform = "";
        node.addEventListener("transitionend", () => {
          node.classList.remove("moving");
          node.style.transition = "";
        }, { once: true });
      }
    }
  }
}

/** Outlines and highlights, without redrawing. */
export function mark(table, { selected = [], legal = [], hintCard = null, hintPile = null } = {}) {
  for (const node of table.querySelectorAll(".selected, .hint-card")) {
    node.classList.remove("selected", "hint-card");
  }
  for (const node of table.querySelectorAll("[data-legal], [data-hint]")) {
    node.removeAttribute("data-legal");
    node.removeAttribute("data-hint");
  }
  for (const card of selected) {
    table.querySelector(`[data-card="${card}"]`)?.classList.add("selected");
  }
  for (const pile of legal) {
    table.querySelector(`[data-pile="${pile}"]`)?.setAttribute("data-legal", "");
  }
  if (hintCard) table.querySelector(`[data-card="${hintCard}"]`)?.classList.add("hint-card");
  if (hintPile) table.querySelector(`[data-pile="${hintPile}"]`)?.setAttribute("data-hint", "");
}
