// The reference web client: start a game, play it with taps, double-taps and keys, watch
// someone else's live, or replay a game's log (replay.js). Everything goes through the
// public HTTP API (see /openapi.yaml).

import { Api, ApiError } from "./api.js";
import { mark, motionMs, render } from "./board.js";
import { RULES, TITLES, cardName, pileName } from "./cards.js";
import { capital, formatTime } from "./format.js";
import { BoardPanel } from "./leaderboard.js";
import { LiveFeed } from "./live.js";
import { RecordPanel, rememberWin } from "./record.js";
import { Replay } from "./replay.js";
import { applyStep, cloneState, firstEmptyCell, locate, pileCards, stepsOf } from "./state.js";

const PLAYER_KEY = "open-solitaire.player";
const LAST_GAME_KEY = "open-solitaire.last-game";
const NIL = "00000000-0000-0000-0000-000000000000";
const MOVE_MS = 150; // the player's own move glides this long
const AUTO_MS = 180; // and each automatic move after it
const DOUBLE_TAP_MS = 450;
const FINISHED = new Set(["won", "abandoned"]);

const $ = (selector) => document.querySelector(selector);
const api = new Api();
const boards = new BoardPanel(api);
const record = new RecordPanel(api);
const replay = new Replay(api, { boards, say, player: () => app.player });

const app = {
  player: null, // {id, name, token}
  game: null, // the game as the server last answered it
  state: null, // the layout shown (runs ahead of `game` while moves are being shown)
  mode: "none", // "play" (the game is this player's) | "watch" | "replay" (replay.js)
  selection: null, // {kind: "card", card, pile, count, legal} | {kind: "pile", pile, legal}
  hint: null, // {card, pile}
  legal: null, // {version, moves}
  legalPending: null, // {version, promise}
  feed: null,
  lastTap: null, // {card, time}: the tap that chose a card, for double taps
  features: { hint: null, hintWrites: null, daily: null },
  refreshTimer: null,
};

// ------------------------------------------------------------------ one thing at a time

let queue = Promise.resolve();
let pending = 0;

/** Runs `action` after everything queued before it: taps made while cards are still
 * moving apply to the layout those moves leave. */
function enqueue(action) {
  pending += 1;
  document.body.dataset.busy = "true";
  const run = queue
    .then(action)
    .catch(report)
    .finally(() => {
      pending -= 1;
      if (pending === 0) document.body.dataset.busy = "false";
    });
  queue = run;
  return run;
}

const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

function say(text, kind = "info") {
  const node = $("#message");
  node.textContent = text;
  node.classList.toggle("error", kind === "error");
}

/** Runs a refresh of a side panel in the background: its failure only leaves the panel
 * as it was (the console says why). */
function background(action) {
  Promise.resolve().then(action).catch((error) => console.warn("could not refresh:", error.message));
}

function report(error) {
  if (error instanceof ApiError) {
    say(error.detail, "error");
  } else {
    console.error(error);
    say(`Something went wrong here: ${error.message}`, "error");
  }
}

// ------------------------------------------------------------------ the player

function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;
  }
}

async function ensurePlayer() {
  if (app.player) return app.player;
  const stored = readJson(PLAYER_KEY);
  if (stored?.token && stored?.id) {
    app.player = stored;
  } else {
    const name = `Player ${Math.floor(1000 + Math.random() * 9000)}`;
    const created = await api.createPlayer(name);
    app.player = { id: created.id, name: created.name, token: created.token };
    localStorage.setItem(PLAYER_KEY, JSON.stringify(app.player));
  }
  api.token = app.player.token;
  $("#who").textContent = `Playing as ${app.player.name}`;
  return app.player;
}

async function renewPlayer() {
  localStorage.removeItem(PLAYER_KEY);
  app.player = null;
  return ensurePlayer();
}

// ------------------------------------------------------------------ showing the game

function displayedFoundationCards() {
  return Object.values(app.state.foundations).reduce((sum, rank) => sum + rank, 0);
}

function selectedCards() {
  const sel = app.selection;
  if (!sel) return [];
  const cards = pileCards(app.state, sel.pile);
  if (sel.kind === "pile") return cards.slice(-1);
  const index = cards.indexOf(sel.card);
  return index < 0 ? [] : cards.slice(index);
}

function marks() {
  return {
    selected: selectedCards(),
    legal: app.selection?.legal || [],
    hintCard: app.hint?.card || null,
    hintPile: app.hint?.pile || null,
  };
}

function refreshMarks() {
  const table = $("#table");
  mark(table, marks());
  for (const node of table.querySelectorAll("[aria-pressed]")) node.removeAttribute("aria-pressed");
  for (const node of table.querySelectorAll(".card.selected")) node.setAttribute("aria-pressed", "true");
  table.dataset.selected = app.selection?.card || app.selection?.pile || "";
}

function draw(animateMs = 0) {
  render($("#table"), app.state, app.game.variant, marks(), animateMs);
  refreshMarks();
  $('[data-field="foundation_cards"]').textContent = String(displayedFoundationCards());
}

function updateView() {
  const g = app.game;
  $("#welcome").hidden = true;
  $("#game").hidden = false;
  document.body.dataset.mode = app.mode;
  const title = TITLES[g.variant] || g.variant;
  document.title = `${title} deal ${g.deal} · Open Solitaire`;
  $('[data-field="title"]').textContent = title;
  $('[data-field="deal"]').textContent = String(g.deal);
  $('[data-field="status"]').textContent = g.status;
  $('[data-field="moves"]').textContent = String(g.moves);
  $('[data-field="rules-title"]').textContent = title;
  $("#rules").replaceChildren(...(RULES[g.variant] || []).map((line) => {
    const p = document.createElement("p");
    p.textContent = line;
    return p;
  }));
  const dealUrl = `/?variant=${g.variant}&deal=${g.deal}`;
  $("#share-link").href = dealUrl;
  $("#share-link").textContent = `Link to deal ${g.deal}`;
  $("#watch-link").href = `/?game=${g.id}`;
  $("#watch-link").textContent = "Link to watch this game";
  $("#replay-line").hidden = g.status === "playing"; // a game that is over: its whole log
  $("#replay-game").href = `/?replay=${g.id}`;
  $("#variant").value = g.variant;
  updateAssisted();
  draw();
  $("#table").dataset.version = String(g.version);
  updateClock();
  updateButtons();
  updateBanner();
  updateModeNote();
}

function updateButtons() {
  const g = app.game;
  const playing = app.mode === "play" && g && !FINISHED.has(g.status);
  $("#undo").disabled = !(playing && g.can_undo);
  $("#redo").disabled = !(playing && g.can_redo);
  $("#hint").hidden = app.features.hint === false;
  $("#hint").disabled = !(playing && g.status === "playing");
  $("#restart").hidden = !g;
  $("#actions").hidden = app.mode !== "play";
}

function updateClock() {
  const g = app.game;
  if (!g) return;
  let ms;
  if (g.elapsed_ms !== null && g.elapsed_ms !== undefined) ms = g.elapsed_ms;
  else if (FINISHED.has(g.status)) ms = 0;
  else ms = Date.now() + api.clockOffset - Date.parse(g.created_at);
  $('[data-field="time"]').textContent = formatTime(ms);
}

/** "assisted" beside the title once a hint was given in this game. */
function updateAssisted() {
  const g = app.game;
  const hints = g.hints || 0;
  const node = $("#assisted");
  node.hidden = !(g.assisted || hints > 0);
  node.title = hints ? `${hints} hint${hints === 1 ? "" : "s"} asked for in this game: `
    + "it counts on the boards of wins with hints only" : "Hints were asked for in this game";
}

function updateModeNote() {
  const note = $("#mode-note");
  if (app.mode !== "watch") {
    note.textContent = "";
    return;
  }
  const how = {
    live: "watching live",
    polling: "watching (checking for moves every few seconds)",
    connecting: "watching (connecting…)",
    offline: "watching (not connected)",
  };
  note.textContent = `· ${how[app.feed?.mode] || "watching"}`;
}

function bannerButton(label, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.addEventListener("click", () => enqueue(action));
  return button;
}

function updateBanner() {
  const g = app.game;
  const banner = $("#banner");
  const title = TITLES[g.variant];
  const parts = [];
  let kind = "";
  if (g.status === "won") {
    kind = "won";
    const how = `${title} deal ${g.deal} in ${formatTime(g.elapsed_ms || 0)}, ${g.moves} moves`;
    const strong = document.createElement("strong");
    strong.textContent = app.mode === "play" ? `You won! ${how}.` : `Won: ${how}.`;
    parts.push(strong);
    if (app.mode === "play") {
      parts.push(bannerButton("Another deal", () => startGame(g.variant, null, g.autoplay)));
      parts.push(bannerButton("This deal again", () => startGame(g.variant, g.deal, g.autoplay)));
    }
  } else if (g.status === "blocked") {
    kind = "blocked";
    const strong = document.createElement("strong");
    strong.textContent = "No legal move is left.";
    parts.push(strong);
    if (app.mode === "play" && g.can_undo) {
      parts.push(document.createTextNode("Undo to go back (Ctrl+Z), or start the deal again."));
      parts.push(bannerButton("Undo", undo));
    } else if (app.mode === "play") {
      parts.push(document.createTextNode("This deal cannot be played at all: try another."));
      parts.push(bannerButton("Another deal", () => startGame(g.variant, null, g.autoplay)));
    }
  } else if (g.status === "abandoned") {
    kind = "blocked";
    parts.push(document.createTextNode("This game was given up."));
  }
  banner.hidden = parts.length === 0;
  banner.className = `banner ${kind}`;
  banner.replaceChildren(...parts);
}

// ------------------------------------------------------------------ opening games

function stopFeed() {
  app.feed?.stop();
  app.feed = null;
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
    },
    { poll: app.mode === "watch", api },
  ).start();
  document.body.dataset.live = app.feed.mode;
}

function setGame(game, { fresh = false } = {}) {
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
  }
  updateView();
  if (app.mode === "play" && !FINISHED.has(game.status)) legalNow().catch(() => {});
}

async function openGame(id) {
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
  if (app.mode === "play") localStorage.setItem(LAST_GAME_KEY, game.id);
  say(app.mode === "play"
    ? `${TITLES[game.variant]} deal ${game.deal}. Tap a card to choose it.`
    : `You are watching ${TITLES[game.variant]} deal ${game.deal}: moves appear as they are played.`);
}

async function startGame(variant, deal, autoplay, { replace = false } = {}) {
  await ensurePlayer();
  say(`Dealing ${TITLES[variant]}${deal ? ` deal ${deal}` : ""}…`);
  let game;
  try {
    game = await api.createGame(variant, deal, autoplay);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 401) throw error;
    await renewPlayer(); // the service no longer knows this device's player
    game = await api.createGame(variant, deal, autoplay);
  }
  const url = `/?game=${game.id}`;
  if (replace) history.replaceState({ game: game.id }, "", url);
  else history.pushState({ game: game.id }, "", url);
  localStorage.setItem(LAST_GAME_KEY, game.id);
  setGame(game, { fresh: true });
  say(`${TITLES[variant]} deal ${game.deal}. Tap a card to choose it; its legal places are outlined.`);
  background(refreshDaily);
}

function showWelcome() {
  stopFeed();
  app.game = null;
  app.mode = "none";
  document.body.dataset.mode = "none";
  $("#welcome").hidden = false;
  $("#game").hidden = true;
  boards.hide();
  document.title = "Open Solitaire";
}

async function offerResume() {
  const last = localStorage.getItem(LAST_GAME_KEY);
  if (!last) return;
  try {
    const game = await api.game(last);
    if (FINISHED.has(game.status)) return;
    $("#resume").href = `/?game=${game.id}`;
    $("#resume").textContent = `Continue your ${TITLES[game.variant]} game, deal ${game.deal} `
      + `(${game.moves} moves)`;
    $("#resume-line").hidden = false;
  } catch {
    // the game is gone: nothing to offer
  }
}

function dealFrom(text) {
  if (text === null || text === undefined || String(text).trim() === "") return null;
  const value = Number(String(text).trim());
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new ApiError(400, { detail: `a deal is a whole number from 1 up, not "${text}"` });
  }
  return value;
}

async function openReplay(id) {
  stopFeed();
  app.game = null;
  app.state = null;
  app.selection = null;
  app.hint = null;
  app.mode = "replay";
  if (!(await replay.open(id))) {
    showWelcome();
    say(`There is no game ${id} here to replay. Start a new one.`, "error");
  }
}

async function route() {
  replay.close();
  const query = new URLSearchParams(location.search);
  const replayId = query.get("replay");
  if (replayId) return openReplay(replayId);
  const gameId = query.get("game");
  if (gameId) return openGame(gameId);
  if (query.has("variant") || query.has("deal")) {
    const variant = query.get("variant") || "freecell";
    if (!(variant in TITLES)) {
      showWelcome();
      say(`There is no game called "${variant}" here; pick one below.`, "error");
      return undefined;
    }
    const autoplay = !["0", "false", "off"].includes(query.get("autoplay") || "");
    return startGame(variant, dealFrom(query.get("deal")), autoplay, { replace: true });
  }
  showWelcome();
  say("Pick a game: a deal number to share, a random deal, or today's deal.");
  return offerResume();
}

// ------------------------------------------------------------------ legal places

function legalNow() {
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

function listPlaces(piles) {
  const names = piles.map((pile) => pileName(pile, app.game.variant));
  if (names.length <= 1) return names.join("");
  return `${names.slice(0, -1).join(", ")} or ${names[names.length - 1]}`;
}

// ------------------------------------------------------------------ choosing

function clearSelection() {
  app.selection = null;
  refreshMarks();
}

function canPlay() {
  if (app.mode === "replay") {
    say("This is a replay: the cards move with the controls above the table.");
    return false;
  }
  if (app.mode === "watch") {
    say("You are watching this game: only its player can move the cards.");
    return false;
  }
  if (!app.game) return false;
  if (FINISHED.has(app.game.status)) {
    say(`This game is ${app.game.status}: start a new one to play again.`);
    return false;
  }
  return true;
}

async function selectCard(card) {
  const where = locate(app.state, card);
  if (!where || where.pile === "f") {
    say("Cards on the foundations stay there.");
    return;
  }
  app.selection = { kind: "card", card, pile: where.pile, count: where.count, legal: [] };
  refreshMarks();
  const moves = await legalNow();
  if (app.selection?.card !== card) return;
  app.selection.legal = targetsOf(moves, where.pile, where.count);
  refreshMarks();
  const what = where.count > 1
    ? `${capital(cardName(card))} and the ${where.count - 1} card${where.count > 2 ? "s" : ""} on it`
    : capital(cardName(card));
  say(app.selection.legal.length
    ? `${what}: may go to ${listPlaces(app.selection.legal)}.`
    : `${what}: no legal place to go now.`);
}

async function selectPile(pile) {
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
  say(app.selection.legal.length
    ? `${name} (${cardName(cards[cards.length - 1])}): may go to ${listPlaces(app.selection.legal)}.`
    : `${name} (${cardName(cards[cards.length - 1])}): no legal place to go now.`);
}

// ------------------------------------------------------------------ moving

function describeStep(step) {
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

/** Shows the events one step at a time, then takes the game the server answered. */
async function showEvents(events, finalGame) {
  app.feed?.seen(finalGame.version);
  app.hint = null;
  const steps = stepsOf(events);
  let state = cloneState(app.state);
  for (const step of steps) {
    try {
      applyStep(state, step);
    } catch {
      state = null; // this page had another layout: take the server's
      break;
    }
    app.state = state;
    const ms = motionMs(step.auto ? AUTO_MS : MOVE_MS);
    draw(ms);
    if (ms) await sleep(ms);
    state = cloneState(state);
  }
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
    background(() => record.refresh(app.player));
  } else if (g.status === "blocked") {
    say("No legal move is left: undo to go back, or start again.", "error");
  }
}

async function send(request) {
  app.selection = null;
  refreshMarks();
  let answer;
  try {
    answer = await request();
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.status === 409 && error.problem.current_version !== undefined) {
      await reload();
      say("The game had moved on (in another window?); it is up to date now. Try again.", "error");
    } else if (error.status === 401 || error.status === 403) {
      await reload();
      say(`${error.detail} You can watch this game.`, "error");
    } else {
      say(error.detail, "error");
    }
    return false;
  }
  await showEvents(answer.events || [], answer.game);
  return true;
}

async function moveSelectionTo(target) {
  const sel = app.selection;
  const g = app.game;
  if (sel.kind === "card") {
    return send(() => api.move(g.id, { card: sel.card, to: target, expected_version: g.version }));
  }
  // a pile chosen with the keyboard: as many cards as may legally go there
  const moves = await legalNow();
  const fits = moves.filter((m) => m.from === sel.pile
    && (m.to === target || (target[0] === "c" && m.to[0] === "c")));
  const count = fits.reduce((most, m) => Math.max(most, m.count), 1);
  return send(() => api.move(g.id, {
    from: sel.pile, to: target, count, expected_version: g.version,
  }));
}

async function autoMove(card) {
  if (!canPlay()) return;
  const g = app.game;
  await send(() => api.move(g.id, { card, to: "auto", expected_version: g.version }));
}

async function undo() {
  if (!canPlay()) return;
  if (!app.game.can_undo) {
    say("There is no move to undo.");
    return;
  }
  const g = app.game;
  await send(() => api.undo(g.id, g.version));
}

async function redo() {
  if (!canPlay()) return;
  if (!app.game.can_redo) {
    say("There is no undone move to play again.");
    return;
  }
  const g = app.game;
  await send(() => api.redo(g.id, g.version));
}

/** Asks for a hint: POST, since the hint goes on the game's record. */
async function askHint(id) {
  return api.hint(id);
}

/** The hint's event joins the game's log: the game is one version on, and assisted. */
function recordHint(answer) {
  const g = app.game;
  const events = answer.events || [];
  if (!events.length) return answer.version === g.version;
  if (events[0].seq !== g.version + 1) return false;
  const before = g.version;
  g.version = answer.version ?? events[events.length - 1].seq;
  g.hints = (g.hints || 0) + events.filter((e) => e.type === "HintGiven").length;
  g.assisted = true;
  app.feed?.seen(g.version);
  if (app.legal?.version === before) app.legal.version = g.version; // the layout is the same
  $("#table").dataset.version = String(g.version);
  updateAssisted();
  return true;
}

async function hint() {
  if (!canPlay() || app.features.hint === false) return;
  const g = app.game;
  say("Looking for a winning line…");
  let answer;
  try {
    answer = await askHint(g.id);
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
      say("The game had moved on (in another window?); it is up to date now. Ask again.", "error");
      return;
    }
    throw error;
  }
  if (app.game !== g) return;
  if (!recordHint(answer)) {
    await reload(); // the game moved on meanwhile: the hint was for another position
    say("The game had moved on (in another window?); it is up to date now. Ask again.", "error");
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
    say("No winning line is left from here: undo to go back.", "error");
  } else {
    app.hint = null;
    say("No hint: the search ran out of time before finding a winning line.");
  }
}

// ------------------------------------------------------------------ watching

function onLiveEvent(event) {
  enqueue(async () => {
    const g = app.game;
    if (!g || event.seq <= g.version) return; // already shown (this page's own move)
    if (event.seq !== g.version + 1) {
      await reload();
      return;
    }
    let state = cloneState(app.state);
    for (const step of stepsOf([event])) {
      try {
        applyStep(state, step);
      } catch {
        await reload();
        return;
      }
      app.state = state;
      const ms = motionMs(step.auto ? AUTO_MS : MOVE_MS);
      draw(ms);
      if (ms) await sleep(ms);
      state = cloneState(state);
      if (app.mode === "watch") say(`${capital(describeStep(step))}.`);
    }
    g.version = event.seq; // the rest (moves, status, time) comes with the refresh
    scheduleRefresh();
  });
}

function scheduleRefresh() {
  clearTimeout(app.refreshTimer);
  app.refreshTimer = setTimeout(() => enqueue(reload), 120);
}

async function reload() {
  if (!app.game) return;
  const wasWon = app.game.status === "won";
  const game = await api.game(app.game.id);
  app.selection = null;
  setGame(game);
  if (game.status === "won" && !wasWon) afterChange();
}

// ------------------------------------------------------------------ boards and records

async function refreshBoard() {
  const g = app.game;
  if (!g) {
    boards.hide();
    return;
  }
  await boards.show({
    variant: g.variant, deal: g.deal, player: app.player, playing: app.mode === "play",
  });
}

async function refreshDaily() {
  const button = $("#daily-deal");
  if (app.features.daily === false) {
    button.hidden = true;
    return;
  }
  const variant = $("#variant").value;
  try {
    const daily = await api.daily(variant);
    app.features.daily = true;
    button.dataset.variant = variant;
    button.dataset.deal = String(daily.deal);
    button.textContent = `Today's deal (${daily.deal})`;
    button.hidden = false;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) app.features.daily = false;
    button.hidden = true;
  }
}

async function probeHint() {
  try {
    await api.hintAfter(NIL);
    app.features.hint = true;
  } catch (error) {
    app.features.hint = !(error instanceof ApiError && error.routeMissing);
  }
  if (app.game) updateButtons();
  else $("#hint").hidden = app.features.hint === false;
}

// ------------------------------------------------------------------ taps

async function tap(pile, card, time) {
  if (!canPlay()) return;
  const sel = app.selection;
  const last = app.lastTap;
  app.lastTap = null;
  if (card && last && last.card === card && time - last.time < DOUBLE_TAP_MS) {
    await autoMove(card); // double tap: to the foundation, or else a free cell
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
      say("Choose a card first: a column's number, or L for the cells.");
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
  if (event.target.closest?.("input, select, textarea")) return;
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

function wire() {
  $("#table").addEventListener("click", (event) => {
    const pileEl = event.target.closest("[data-pile]");
    if (!pileEl) return;
    const card = event.target.closest("[data-card]")?.dataset.card || null;
    const time = event.timeStamp;
    enqueue(() => tap(pileEl.dataset.pile, card, time));
  });
  document.addEventListener("keydown", onKey);
  $("#new-game").addEventListener("submit", (event) => {
    event.preventDefault();
    enqueue(() => startGame($("#variant").value, dealFrom($("#deal-input").value),
      $("#autoplay").checked));
  });
  $("#random-deal").addEventListener("click", () => {
    enqueue(() => startGame($("#variant").value, null, $("#autoplay").checked));
  });
  $("#daily-deal").addEventListener("click", (event) => {
    const { variant, deal } = event.currentTarget.dataset;
    enqueue(() => startGame(variant, Number(deal), $("#autoplay").checked));
  });
  $("#variant").addEventListener("change", () => enqueue(refreshDaily));
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
  $("#restart").addEventListener("click", () => {
    const g = app.game;
    if (g) enqueue(() => startGame(g.variant, g.deal, g.autoplay));
  });
  window.addEventListener("popstate", () => enqueue(route));
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible" && app.game) enqueue(reload);
  });
  setInterval(updateClock, 500);
}

// for scripts and for looking around in the browser's console
window.openSolitaire = { app, api };

wire();
enqueue(async () => {
  background(probeHint);
  background(refreshDaily);
  try {
    await ensurePlayer();
  } catch (error) {
    report(error);
  }
  background(() => record.refresh(app.player));
  await route();
});
