// Playing the game through the API: a move of the card or pile chosen, a card sent up by
// itself, undo, redo and hints. Moves made while an earlier one was on its way go
// together in one request (a batch, all or none). Each answer's events are shown step by
// step (game.js); a refusal is told in the message line, and a game that moved on
// elsewhere is read again.

import { ApiError } from "../api.js";
import { $, api, app, say } from "../app.js";
import { cardName, cardText, pileName, rankOf, suitOf } from "../cards.js";
import { capital } from "../format.js";
import { canPlay, legalNow, mostCards } from "./choose.js";
import { reload, showEvents } from "./game.js";
import { firstEmptyCell, locate, pileCards } from "../state.js";
import { refreshMarks, updateAssisted, updateButtons } from "./view.js";

const MOVED_ON = "The game had moved on (in another window?); it is up to date now.";

/** Sends one write; true when the server took it (its events are shown by then).
 * `batch`: the moves of a request that carries several, whose refusal of one of them
 * (422, its `index`) is not told here: its place is the answer, the game read again. */
async function send(request, batch = null) {
  app.selection = null;
  refreshMarks();
  let answer;
  // a write whose answer is lost may have been made: its events, heard live, are this
  // page's (game.js, onLiveEvent), not another window's
  app.unanswered = app.game?.version;
  try {
    answer = await request();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status !== 0) app.unanswered = undefined;
    if (error.status === 409 && error.problem.current_version !== undefined) {
      await reload();
      say(`${MOVED_ON} Try again.`, "error");
    } else if (error.status === 409 && (error.problem.type || "").endsWith("/race-over")) {
      await reload(); // the race's end abandoned the game: show it as the server has it
      say(error.detail, "error");
    } else if (batch && error.status === 422 && batch[error.problem.index]) {
      await reload();
      return { index: error.problem.index, why: unnumbered(error.detail) };
    } else if (error.status === 401 || error.status === 403) {
      await reload();
      say(`${error.detail} You can watch this game.`, "error");
    } else {
      say(error.detail, "error");
    }
    return false;
  }
  app.unanswered = undefined;
  await showEvents(answer.events || [], answer.game);
  return true;
}

function describeMove(move) {
  const what = move.card ? cardName(move.card) : pileName(move.from, app.game.variant);
  if (move.to === "auto") {
    return app.state?.cells?.length ? `${what} up or to a cell` : `${what} up`;
  }
  return `${what} to ${pileName(move.to, app.game.variant)}`;
}

/** A batch's refusal as said of one move: without the server's "move 1 of the batch
 * (counting from 0): ", a sentence. */
function unnumbered(detail) {
  const said = String(detail || "").replace(/^move \d+ of the batch \(counting from 0\): /, "");
  const text = capital(said);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

// ------------------------------------------------------------------ moves sent together

/** Moves made while earlier actions were still waiting in the queue (an earlier request
 * on its way): the next flushMoves sends them all in one request. */
const outbox = [];

/** Keeps a move for the next flushMoves (queued after it in the page's queue). */
export function queueMove(move) {
  outbox.push({ gameId: app.game?.id, move });
}

/** Sends the moves waiting: one as a single move, several as one batch (all or none). */
export async function flushMoves() {
  const waiting = outbox.splice(0);
  const g = app.game;
  // a double tap is read on the layout the earlier answers left, now shown
  const moves = waiting.filter((item) => g && item.gameId === g.id)
    .map((item) => (item.move.doubleTap ? doubleTapMove(item.move.card) : item.move))
    .filter(Boolean);
  if (!moves.length || !canPlay()) return;
  if (moves.length === 1) {
    await send(() => api.move(g.id, { ...moves[0], expected_version: g.version }));
    return;
  }
  // a batch is all or none: a move refused is left out and the others go again (those
  // before it were legal; those after it are judged without it), one request each time
  let left = moves;
  const refused = [];
  let made = 0;
  while (left.length && app.game?.id === g.id && canPlay()) {
    const sent = left;
    const version = app.game.version;
    const answer = await send(() => api.moves(g.id, sent, version), sent);
    if (answer === false) return; // refused as a whole, and told (the game moved on…)
    if (answer === true) made = sent.length;
    if (answer?.index === undefined) break;
    refused.push(`${capital(describeMove(sent[answer.index]))} was refused: ${answer.why}`);
    left = sent.filter((_, i) => i !== answer.index);
  }
  if (refused.length) {
    const others = made === 1 ? " The other move was made." : ` The other ${made} moves were made.`;
    say(`${refused.join(" ")}${made ? others : ""}`, "error");
  }
}

/** Moves what is chosen to `target` (a pile, or "c" for any free cell). */
export async function moveSelectionTo(target) {
  const sel = app.selection;
  const g = app.game;
  if (sel.kind === "card") {
    return send(() => api.move(g.id, { card: sel.card, to: target, expected_version: g.version }));
  }
  // a pile chosen with the keyboard: as many cards as may legally go there
  const count = mostCards(await legalNow(), sel.pile, target);
  return send(() => api.move(g.id, {
    from: sel.pile, to: target, count, expected_version: g.version,
  }));
}

/** A double tap's move, on the layout shown: a card to its foundation, or else a free
 * cell; a card already in a cell only goes up (to another cell would spend a move for
 * nothing), and when it cannot yet, the page says so and nothing is sent (null). */
export function doubleTapMove(card) {
  const parked = app.state && locate(app.state, card)?.pile[0] === "c";
  if (!parked) return { card, to: "auto" };
  const rank = rankOf(card);
  if ((app.state.foundations[suitOf(card)] || 0) === rank - 1) return { card, to: "f" };
  say(`The ${cardName(card)} cannot go up before the `
    + `${cardName(cardText(rank - 1, suitOf(card)))}.`, "error");
  return null;
}

/** A double tap's move, sent at once. */
export async function autoMove(card) {
  if (!canPlay()) return;
  const g = app.game;
  const move = doubleTapMove(card);
  if (move) await send(() => api.move(g.id, { ...move, expected_version: g.version }));
}

export async function undo() {
  if (!canPlay()) return;
  if (!app.game.can_undo) {
    say("There is no move to undo.");
    return;
  }
  const g = app.game;
  await send(() => api.undo(g.id, g.version));
}

export async function redo() {
  if (!canPlay()) return;
  if (!app.game.can_redo) {
    say("There is no undone move to play again.");
    return;
  }
  const g = app.game;
  await send(() => api.redo(g.id, g.version));
}

/** Gives the game up, once the player says so: it ends as abandoned (a lost game in the
 * record; in a race, the player is out and the race ends sooner). */
export async function giveUp() {
  if (!canPlay()) return;
  const g = app.game;
  if (!window.confirm("Give this game up? It counts as a lost game.")) return;
  await send(() => api.abandon(g.id, g.version));
}

// ------------------------------------------------------------------ hints

/** The hint's event joins the game's log: the game is one version on, and assisted. */
function recordHint(answer) {
  const g = app.game;
  const events = answer.events || [];
  if (!events.length) return answer.version === g.version;
  if (events[0].seq !== g.version + 1) return false;
  const before = g.version;
  g.version = answer.version ?? events[events.length - 1].seq;
  g.hints = (g.hints || 0) + events.filter((e) => e.type === "HintGiven").length;
  // a hint that found nothing ("unknown") gave nothing away: the game stays unassisted
  if (answer.verdict !== "unknown") g.assisted = true;
  app.feed?.seen(g.version);
  if (app.legal?.version === before) app.legal.version = g.version; // the layout is the same
  $("#table").dataset.version = String(g.version);
  updateAssisted();
  return true;
}

/** Asks for a hint (POST: the hint goes on the game's record) and marks its card and place. */
export async function hint() {
  // (as the button, which a game not in play greys out: a hint there would tell nothing
  // and still mark the game assisted)
  if (!canPlay() || app.features.hint === false || app.game.status !== "playing") return;
  const g = app.game;
  if (g.race_id) {
    say("There are no hints in a race's games.");
    return;
  }
  if (!g.assisted && app.hintWarned !== g.id) {
    // a hint goes on the game's record for good: the first is asked for twice
    app.hintWarned = g.id;
    say("A hint goes on this game's record: won, it would count only among the wins with"
      + " hints. Ask again for the hint.");
    return;
  }
  say("Looking for a winning line…");
  let answer;
  try {
    answer = await api.hint(g.id);
  } catch (error) {
    if (error instanceof ApiError && error.routeMissing) {
      app.features.hint = false;
      updateButtons();
      say("Hints are not available on this server.");
      return;
    }
    if (error instanceof ApiError && error.status === 409
        && error.problem.current_version !== undefined) {
      await reload();
      say(`${MOVED_ON} Ask again.`, "error");
      return;
    }
    throw error;
  }
  if (app.game !== g) return;
  if (!recordHint(answer)) {
    await reload(); // the game moved on meanwhile: the hint was for another position
    say(`${MOVED_ON} Ask again.`, "error");
    return;
  }
  if (answer.verdict === "winnable" && answer.move) {
    const { from, to, count } = answer.move;
    const cards = pileCards(app.state, from);
    const card = cards[cards.length - (count || 1)];
    const pile = to === "c" ? firstEmptyCell(app.state) : to;
    app.hint = { card, pile };
    refreshMarks();
    const left = answer.moves_to_win ? ` (${answer.moves_to_win} moves to win from here)` : "";
    say(`Hint: ${cardName(card)} to ${pileName(pile, g.variant)}${left}.`);
  } else if (answer.verdict === "unwinnable") {
    app.hint = null;
    say(g.moves > 0
      ? "No winning line is left from here: undo to go back."
      : "This deal has no winning line at all: try another deal.", "error");
  } else {
    app.hint = null;
    say("No hint: the search ran out of time before finding a winning line.");
  }
}
