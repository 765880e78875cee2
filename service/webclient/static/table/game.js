// The game shown: opening one (to play it, or to watch it when it is someone else's),
// dealing a new one, following its events live, showing the steps of each answer one at a
// time, and the replay of a game's log (replay.js) in its place.

import { ApiError, UNREACHABLE } from "../api.js";
import { $, api, app, background, enqueue, OVER, say, sleep } from "../app.js";
import { motionMs } from "./board.js";
import { cardName, pileName, TITLES } from "../cards.js";
import { legalNow } from "./choose.js";
import { refreshDevices } from "../panels/devices.js";
import { capital } from "../format.js";
import { LiveFeed } from "../live.js";
import { boards, refreshBoard, refreshDaily, refreshRecord, standings } from "../panels/panels.js";
import { ensurePlayer, keepLastGame, signIn } from "../player.js";
import { rememberWin } from "../panels/record.js";
import { Replay } from "./replay.js";
import { showGameAddress } from "../routing.js";
import { applyStep, cloneState, stepsOf } from "../state.js";
import { showPlayedBy } from "../panels/story.js";
import { draw, showWelcomeView, updateModeNote, updateView } from "./view.js";

const MOVE_MS = 150; // the player's own move glides this long
const AUTO_MS = 180; // and each automatic move after it

export const replay = new Replay(api, { boards, say, player: () => app.player });

// ------------------------------------------------------------------ opening games

let lostTimer = null; // until the player is told that the connection is lost
const BACK = "Connected again: the game is as the server has it.";
const told = () => $("#message").textContent === UNREACHABLE;

// a request that got no answer said so (UNREACHABLE); once the server answers again, the
// game is read again (a move whose answer was lost may have been made) and the page says so
api.onReached = () => {
  if (!told()) return;
  enqueue(async () => {
    if (app.mode === "play") await reload();
    if (told()) say(BACK);
  });
};

function stopFeed() {
  clearTimeout(lostTimer); // (a lost connection of a game no longer shown is no news)
  app.feed?.stop();
  app.feed = null;
}

/** Tells the player when their game's live connection has been lost for 2 s (a server
 * closing a stream on purpose reconnects at once), and when it is back. */
function tellConnection(mode) {
  clearTimeout(lostTimer);
  if (mode === "connecting" && app.mode === "play") {
    lostTimer = setTimeout(() => say(UNREACHABLE, "error"), 2000);
  } else if (mode === "live" && told()) {
    say(BACK);
  }
}

function startFeed() {
  stopFeed();
  const g = app.game;
  app.feed = new LiveFeed(
    g.id,
    g.version,
    (event) => onLiveEvent(event),
    (mode) => {
      document.body.dataset.live = mode;
      updateModeNote();
      tellConnection(mode);
    },
    { poll: true, api }, // (without WebSockets a player's other tab follows too)
  ).start();
  document.body.dataset.live = app.feed.mode;
}

/** Takes `game` as the server answered it; a game other than the one shown (or `fresh`)
 * drops the choice and the hint and follows the new game's events. */
export function setGame(game, { fresh = false } = {}) {
  const changedGame = !app.game || app.game.id !== game.id;
  app.game = game;
  app.state = cloneState(game.state);
  if (fresh || changedGame) {
    app.selection = null;
    app.hint = null;
    app.legal = null;
    app.legalPending = null;
    app.mode = app.player && game.player_id === app.player.id ? "play" : "watch";
    startFeed();
    background(refreshBoard);
    background(() => showPlayedBy(app.mode === "watch" ? game.player_id : null));
  }
  updateView();
  if (app.mode === "play" && !OVER.has(game.status)) legalNow().catch(() => {});
}

export async function openGame(id) {
  let game;
  try {
    game = await api.game(id);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
      showWelcome();
      say(`There is no game ${id} here. Start a new one.`, "error");
      return;
    }
    throw error;
  }
  setGame(game, { fresh: true });
  if (app.mode === "play") keepLastGame(game.id);
  const title = `${TITLES[game.variant]} deal ${game.deal}`;
  if (app.mode !== "play") {
    say(game.status === "playing" || game.status === "blocked"
      ? `You are watching ${title}: moves appear as they are played.`
      : `${title}, ${game.status}. “Replay this game” shows how it was played.`);
  } else if (game.status === "blocked") {
    say(`${title}. No legal move is left: undo to go back, or start again.`, "error");
  } else if (game.status === "playing") {
    say(`${title}. Tap a card to choose it.`);
  } else {
    say(`${title}, ${game.status}.`);
  }
}

/** Deals a new game of `variant` (`deal`, or a random deal when null, of `grade` when
 * given) for this player. */
export async function startGame(variant, deal, autoplay, { replace = false, grade = null } = {}) {
  if (!(await leftGame())) return;
  if (!app.player) {
    await ensurePlayer(); // a new player (the first deal, or this device was signed out)
    background(refreshDevices);
  }
  say(`Dealing ${TITLES[variant]}${deal ? ` deal ${deal}` : grade ? `, a ${grade} deal` : ""}…`);
  let game;
  try {
    game = await api.createGame(variant, deal, autoplay, grade);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    // the token was revoked (or the service no longer knows it): this device is signed
    // out (devices.js says so); the next game is a new player's
    showWelcome();
    return;
  }
  if (game.player_id !== app.player.id) {
    // the token is who plays: a stored id that is not its player's (edited by hand, say)
    // gives way, and the game just dealt is this player's own
    signIn({ ...app.player, id: game.player_id });
  }
  showGameAddress(game.id, { replace });
  keepLastGame(game.id);
  setGame(game, { fresh: true });
  say(`${TITLES[variant]} deal ${game.deal}. Tap a card to choose it; its legal places are outlined.`);
  background(refreshDaily);
  background(refreshRecord); // one game more played
}

/** Before another game: the player's own game in play, once anything was done in it, is
 * given up if they say so (it counts as lost, as Give up says: a record where a restart is
 * a game left in play forever would not be one); one untouched is left as it is. A race's
 * game is the race's to end. False: they go on with it. */
async function leftGame() {
  const g = app.game;
  const touched = g && (g.moves > 0 || g.undos > 0 || g.hints > 0);
  if (!touched || app.mode !== "play" || g.status !== "playing" || g.race_id) return true;
  if (!window.confirm("Start another game? The game in play counts as a lost game.")) {
    return false;
  }
  try {
    await api.abandon(g.id, g.version);
  } catch (error) {
    // moved or ended meanwhile, in another window: that window's to finish
    if (!(error instanceof ApiError) || error.status !== 409) throw error;
  }
  return true;
}

export function showWelcome() {
  stopFeed();
  app.game = null;
  app.mode = "none";
  showWelcomeView();
  boards.hide();
  standings.hide();
  background(() => showPlayedBy(null));
}

export async function openReplay(id) {
  stopFeed();
  app.game = null;
  app.state = null;
  app.selection = null;
  app.hint = null;
  app.mode = "replay";
  standings.hide();
  if (!(await replay.open(id))) {
    showWelcome();
    say(`There is no game ${id} here to replay. Start a new one.`, "error");
    return;
  }
  background(() => showPlayedBy(replay.game?.player_id || null));
}

// ------------------------------------------------------------------ steps, told

export function describeStep(step) {
  const m = step.move;
  const variant = app.game.variant;
  const who = m.card ? cardName(m.card) : `${m.count || 1} card(s)`;
  const more = (m.count || 1) > 1 ? ` and ${m.count - 1} more` : "";
  if (step.kind === "undo") return `took back ${who}${more} to ${pileName(m.from, variant)}`;
  if (step.auto) return `${who} goes up to its foundation`;
  return `${who}${more} to ${pileName(m.to, variant)}`;
}

/** What a list of steps did, in a sentence: long runs of automatic moves are counted. */
function summary(steps) {
  const auto = steps.filter((step) => step.auto);
  if (auto.length <= 3) return steps.map(describeStep).join("; ");
  const own = steps.filter((step) => !step.auto).map(describeStep);
  const undone = auto[0].kind === "undo";
  own.push(undone
    ? `${auto.length} cards come back down from the foundations`
    : `then ${auto.length} cards go up to the foundations by themselves`);
  return own.join("; ");
}

/** Shows one step of the layout after another (false when this page's layout was not the
 * one they apply to); `each` is called after each step is shown. */
async function showSteps(steps, each = () => {}) {
  let state = cloneState(app.state);
  for (const step of steps) {
    try {
      applyStep(state, step);
    } catch {
      return false;
    }
    app.state = state;
    const ms = motionMs(step.auto ? AUTO_MS : MOVE_MS);
    draw(ms);
    if (ms) await sleep(ms);
    state = cloneState(state);
    each(step);
  }
  return true;
}

/** Shows the events one step at a time, then takes the game the server answered. */
export async function showEvents(events, finalGame) {
  app.feed?.seen(finalGame.version);
  app.hint = null;
  const steps = stepsOf(events);
  await showSteps(steps); // on another layout, the server's is taken at once
  setGame(finalGame);
  if (steps.length) say(`${capital(summary(steps))}.`);
  afterChange();
}

function afterChange() {
  const g = app.game;
  if (g.status === "won") {
    if (app.mode === "play") rememberWin(g);
    background(refreshBoard);
    setTimeout(() => background(refreshBoard), 1500); // a board may follow a moment later
    background(refreshRecord);
  } else if (g.status === "blocked") {
    say("No legal move is left: undo to go back, or start again.", "error");
  } else if (g.status === "abandoned") {
    say("This game is over: it was abandoned. Start a new one when you like.");
    background(refreshRecord);
    background(refreshBoard); // (a race's game shows its deal's board once it is over)
  }
}

// ------------------------------------------------------------------ following the game

function onLiveEvent(event) {
  enqueue(async () => {
    const g = app.game;
    if (!g || event.seq <= g.version) return; // already shown (this page's own move)
    if (event.seq !== g.version + 1) {
      await reload();
      return;
    }
    // (a player's own page shows its moves with their answers: a step heard here was
    // played elsewhere, in another window or on another device, and any choice is gone)
    const mine = app.unanswered !== undefined && event.seq > app.unanswered;
    const tell = (step) => say(app.mode === "watch" ? `${capital(describeStep(step))}.`
      : mine ? `${capital(describeStep(step))}: your move was made (its answer was lost).`
        : `${capital(describeStep(step))}, played in another window or device.`);
    if (!(await showSteps(stepsOf([event]), tell))) {
      await reload();
      return;
    }
    g.version = event.seq; // the rest (moves, status, time) comes with the refresh
    scheduleRefresh();
  });
}

function scheduleRefresh() {
  clearTimeout(app.refreshTimer);
  app.refreshTimer = setTimeout(() => enqueue(reload), 120);
}

/** The game as the server has it now. */
export async function reload() {
  if (!app.game) return;
  const before = app.game.status;
  const game = await api.game(app.game.id);
  app.selection = null;
  setGame(game);
  if (game.status !== before) afterChange(); // won, blocked or ended elsewhere (a race's end)
}
