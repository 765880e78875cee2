// The layout ({tableau, cells, foundations}) and the events that change it, applied on
// this side so that each move, automatic ones included, can be shown as it happens.
// The server's state stays the truth: after the steps the page takes the game it answered.

import { rankOf, suitOf, cardText } from "./cards.js";

export function cloneState(state) {
  return {
    tableau: state.tableau.map((column) => column.slice()),
    cells: state.cells.slice(),
    foundations: { ...state.foundations },
  };
}

/** The cards of a pile, buried first (a cell holds at most one; "f" its four tops). */
export function pileCards(state, pile) {
  if (pile === "f") {
    return Object.entries(state.foundations)
      .filter(([, rank]) => rank > 0)
      .map(([suit, rank]) => cardText(rank, suit));
  }
  if (pile[0] === "c") {
    const held = state.cells[Number(pile.slice(1)) - 1];
    return held ? [held] : [];
  }
  return state.tableau[Number(pile.slice(1)) - 1] || [];
}

/** Where a card lies: {pile, index, count} (count: the card and those on top of it). */
export function locate(state, card) {
  for (let i = 0; i < state.tableau.length; i += 1) {
    const index = state.tableau[i].indexOf(card);
    if (index >= 0) {
      return { pile: `t${i + 1}`, index, count: state.tableau[i].length - index };
    }
  }
  const cell = state.cells.indexOf(card);
  if (cell >= 0) return { pile: `c${cell + 1}`, index: 0, count: 1 };
  if ((state.foundations[suitOf(card)] || 0) >= rankOf(card)) {
    return { pile: "f", index: 0, count: 0 };
  }
  return null;
}

export function firstEmptyCell(state) {
  const i = state.cells.indexOf(null);
  return i < 0 ? null : `c${i + 1}`;
}

function take(state, pile, count) {
  if (pile[0] === "c") {
    const i = Number(pile.slice(1)) - 1;
    const held = state.cells[i];
    if (!held) throw new Error(`${pile} is empty`);
    state.cells[i] = null;
    return [held];
  }
  if (pile[0] === "t") {
    const column = state.tableau[Number(pile.slice(1)) - 1];
    if (!column || column.length < count) throw new Error(`${pile} has too few cards`);
    return column.splice(column.length - count, count);
  }
  throw new Error(`cannot take from ${pile}`);
}

function put(state, pile, cards) {
  if (pile === "f") {
    for (const card of cards) state.foundations[suitOf(card)] = rankOf(card);
    return;
  }
  let target = pile;
  if (target === "c") target = firstEmptyCell(state);
  if (target && target[0] === "c") {
    state.cells[Number(target.slice(1)) - 1] = cards[0];
    return;
  }
  state.tableau[Number(target.slice(1)) - 1].push(...cards);
}

export function applyMove(state, move) {
  put(state, move.to, take(state, move.from, move.count || 1));
}

/** Takes a recorded move back: its card(s) return from `to` to `from`. */
export function reverseMove(state, move) {
  if (move.to === "f") {
    const card = move.card;
    state.foundations[suitOf(card)] = rankOf(card) - 1;
    put(state, move.from, [card]);
    return;
  }
  put(state, move.from, take(state, move.to, move.count || 1));
}

/** The visible steps of a list of events: [{kind, move, auto}] in the order they happened. */
export function stepsOf(events) {
  const steps = [];
  for (const event of events) {
    const data = event.data || {};
    if (event.type === "CardMoved") {
      steps.push({ kind: "move", move: data, auto: Boolean(data.auto), seq: event.seq });
    } else if (event.type === "MoveRedone") {
      steps.push({ kind: "move", move: data, auto: false, redo: true, seq: event.seq });
    } else if (event.type === "MoveUndone") {
      for (const move of data.moves || []) {
        steps.push({ kind: "undo", move, auto: Boolean(move.auto), seq: event.seq });
      }
    }
  }
  return steps;
}

export function applyStep(state, step) {
  if (step.kind === "undo") reverseMove(state, step.move);
  else applyMove(state, step.move);
}
