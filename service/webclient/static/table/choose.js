// Choosing what to move: a card (with the cards on it) or, from the keyboard, a pile. The
// places it may legally go come from the server's legal moves for the game's version
// (fetched once a version) and are outlined on the table.

import { api, app, OVER, say } from "../app.js";
import { cardName, pileName } from "../cards.js";
import { capital } from "../format.js";
import { locate, pileCards } from "../state.js";
import { refreshMarks } from "./view.js";

/** The legal moves of the game's current version (one request a version). */
export function legalNow() {
  const g = app.game;
  if (app.legal && app.legal.version === g.version) return Promise.resolve(app.legal.moves);
  if (app.legalPending && app.legalPending.version === g.version) return app.legalPending.promise;
  const version = g.version;
  const promise = api.legalMoves(g.id).then((answer) => {
    if (app.game && answer.version === app.game.version) app.legal = answer;
    return answer.moves;
  });
  app.legalPending = { version, promise };
  return promise;
}

/** The piles a pile's cards may go to: `count` cards (any number when null). A move to
 * a cell is listed once; every empty cell is a place it may go. */
function targetsOf(moves, from, count) {
  const targets = new Set();
  for (const move of moves) {
    if (move.from !== from || (count !== null && move.count !== count)) continue;
    if (move.to[0] === "c") {
      app.state.cells.forEach((held, i) => {
        if (held === null) targets.add(`c${i + 1}`);
      });
    } else {
      targets.add(move.to);
    }
  }
  const order = (pile) => (pile === "f" ? 0 : pile[0] === "c" ? 100 : 200) + Number(pile.slice(1) || 0);
  return [...targets].sort((a, b) => order(a) - order(b));
}

/** The most cards of `pile` that may go to `target` in one move (a cell: any cell), 1 at
 * least: what a move of a pile chosen with the keyboard sends there. */
export function mostCards(moves, pile, target) {
  return moves
    .filter((m) => m.from === pile && (m.to === target || (target[0] === "c" && m.to[0] === "c")))
    .reduce((most, m) => Math.max(most, m.count), 1);
}

function listPlaces(piles) {
  const names = piles.map((pile) => pileName(pile, app.game.variant));
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

export function clearSelection() {
  app.selection = null;
  refreshMarks();
}

/** Whether this page may move the cards now; if not, the message line says why. */
export function canPlay() {
  if (app.mode === "replay") {
    say("This is a replay: the cards move with the controls above the table.");
    return false;
  }
  if (app.mode === "watch") {
    say("You are watching this game: only its player can move the cards.");
    return false;
  }
  if (!app.game) return false;
  if (OVER.has(app.game.status)) {
    say(`This game is ${app.game.status}: start a new one to play again.`);
    return false;
  }
  return true;
}

export async function selectCard(card) {
  const where = locate(app.state, card);
  if (!where || where.pile === "f") {
    say("Cards on the foundations stay there.");
    return;
  }
  app.selection = { kind: "card", card, pile: where.pile, count: where.count, legal: [] };
  refreshMarks();
  const [moves, games] = await Promise.all([legalNow(), api.variants().catch(() => null)]);
  if (app.selection?.card !== card) return;
  app.selection.legal = targetsOf(moves, where.pile, where.count);
  refreshMarks();
  const what = where.count > 1
    ? `${capital(cardName(card))} and the ${where.count > 2 ? `${where.count - 1} cards` : "card"} on it`
    : capital(cardName(card));
  if (where.count > 1 && games?.[app.game.variant]?.moves_runs === false) {
    // (the game moves one card at a time: its rules say so, GET /v1/variants)
    say(`${capital(cardName(card))} is not free: only the card on top moves, one at a time.`);
    return;
  }
  say(app.selection.legal.length
    ? `${what}: may go to ${listPlaces(app.selection.legal)}.`
    : `${what}: no legal place to go now.`);
}

export async function selectPile(pile) {
  const cards = pileCards(app.state, pile);
  if (!cards.length) {
    say(`${capital(pileName(pile, app.game.variant))} is empty.`);
    return;
  }
  app.selection = { kind: "pile", pile, legal: [] };
  refreshMarks();
  const moves = await legalNow();
  if (app.selection?.pile !== pile) return;
  app.selection.legal = targetsOf(moves, pile, null);
  refreshMarks();
  const name = capital(pileName(pile, app.game.variant));
  if (!app.selection.legal.length) {
    say(`${name} (${cardName(cards[cards.length - 1])}): no legal place to go now.`);
    return;
  }
  // what goes where: a place may take more of the column's cards than another
  const byCount = new Map();
  for (const place of app.selection.legal) {
    const count = mostCards(moves, pile, place);
    byCount.set(count, [...(byCount.get(count) || []), place]);
  }
  const parts = [...byCount].sort(([a], [b]) => a - b).map(([count, places]) => {
    const what = count === 1 ? `the ${cardName(cards[cards.length - 1])}`
      : `the ${cardName(cards[cards.length - count])} and the ${count - 1}`
        + ` card${count > 2 ? "s" : ""} on it`;
    return `${what} to ${listPlaces(places)}`;
  });
  say(`${name}: ${parts.join("; ")}.`);
}
