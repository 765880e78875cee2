// The game view: the table and its marks (the card chosen, its legal places, a hint), the
// bar above it (title, links, status, moves, time, foundations), the buttons and the
// banner of a game that is over or stuck. It only shows `app`; it changes nothing.

import { $, api, app, OVER } from "../app.js";
import { mark, render } from "./board.js";
import { RULES, TITLES } from "../cards.js";
import { formatTime } from "../format.js";
import { dealUrl, gameUrl, replayUrl } from "../routing.js";
import { pileCards } from "../state.js";

// ------------------------------------------------------------------ the table

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

/** The choice, its legal places and the hint, marked again without redrawing. */
export function refreshMarks() {
  const table = $("#table");
  mark(table, marks());
  for (const node of table.querySelectorAll("[aria-pressed]")) node.removeAttribute("aria-pressed");
  for (const node of table.querySelectorAll(".card.selected")) node.setAttribute("aria-pressed", "true");
  table.dataset.selected = app.selection?.card || app.selection?.pile || "";
}

/** Draws app.state; the cards that moved glide for `animateMs`. */
export function draw(animateMs = 0) {
  render($("#table"), app.state, app.game.variant, marks(), animateMs);
  refreshMarks();
  $('[data-field="foundation_cards"]').textContent = String(displayedFoundationCards());
}

// ------------------------------------------------------------------ the bar and the rest

/** On a phone, the new game's form folds under its button while a game is shown. */
export function foldNewGame(folded) {
  $(".bar").classList.toggle("open", !folded);
  $("#new-game-toggle").setAttribute("aria-expanded", String(!folded));
}

export function updateView() {
  const g = app.game;
  $("#welcome").hidden = true;
  $("#game").hidden = false;
  document.body.dataset.mode = app.mode;
  foldNewGame(true);
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
  $("#share-link").href = dealUrl(g.variant, g.deal, g.autoplay !== false);
  $("#share-link").textContent = `Link to deal ${g.deal}`;
  $("#watch-link").href = gameUrl(g.id);
  $("#watch-link").textContent = "Link to watch this game";
  $("#replay-line").hidden = g.status === "playing"; // a game that is over: its whole log
  $("#replay-game").href = replayUrl(g.id);
  $("#variant").value = g.variant;
  // the player's own game's setting, which its next deal keeps
  if (app.mode === "play") $("#autoplay").checked = g.autoplay !== false;
  updateAssisted();
  draw();
  $("#table").dataset.version = String(g.version);
  updateClock();
  updateButtons();
  updateBanner();
  updateModeNote();
}

export function updateButtons() {
  const g = app.game;
  const playing = app.mode === "play" && g && !OVER.has(g.status);
  $("#undo").disabled = !(playing && g.can_undo);
  $("#redo").disabled = !(playing && g.can_redo);
  const race = Boolean(g?.race_id); // a race's game: no hints, and no new start of its deal
  $("#hint").hidden = app.features.hint === false || race;
  $("#hint").disabled = !(playing && g.status === "playing");
  $("#restart").hidden = !g || race;
  $("#give-up").hidden = !playing; // a game in play or blocked: not one that is over
  $("#actions").hidden = app.mode !== "play";
}

export function updateClock() {
  const g = app.game;
  if (!g) return;
  let ms;
  if (g.elapsed_ms !== null && g.elapsed_ms !== undefined) ms = g.elapsed_ms;
  else if (OVER.has(g.status)) ms = 0;
  else ms = Date.now() + api.clockOffset - Date.parse(g.created_at);
  $('[data-field="time"]').textContent = formatTime(ms);
}

/** "assisted" beside the title once a hint was given in this game. */
export function updateAssisted() {
  const g = app.game;
  const hints = g.hints || 0;
  const node = $("#assisted");
  node.hidden = !g.assisted; // (a hint that found nothing gives nothing away: API.md)
  node.title = hints ? `${hints} hint${hints === 1 ? "" : "s"} asked for in this game: `
    + "it counts on the boards of wins with hints only" : "Hints were asked for in this game";
}

export function updateModeNote() {
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

/** A button of the banner: input.js runs its data-action ("another-deal", "same-deal",
 * "undo") when it is pressed. */
function bannerButton(label, action) {
  const button = document.createElement("button");
  button.type = "button";
  button.textContent = label;
  button.dataset.action = action;
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
      parts.push(bannerButton("Another deal", "another-deal"));
      parts.push(bannerButton("This deal again", "same-deal"));
    }
  } else if (g.status === "blocked") {
    kind = "blocked";
    const strong = document.createElement("strong");
    strong.textContent = "No legal move is left.";
    parts.push(strong);
    if (app.mode === "play" && g.can_undo) {
      parts.push(document.createTextNode("Undo to go back (Ctrl+Z), or start the deal again."));
      parts.push(bannerButton("Undo", "undo"));
    } else if (app.mode === "play") {
      parts.push(document.createTextNode("This deal cannot be played at all: try another."));
      parts.push(bannerButton("Another deal", "another-deal"));
    }
  } else if (g.status === "abandoned") {
    kind = "blocked";
    parts.push(document.createTextNode("This game was given up."));
  }
  banner.hidden = parts.length === 0;
  banner.className = `banner ${kind}`;
  banner.replaceChildren(...parts);
}

/** The welcome in place of a game. */
export function showWelcomeView() {
  document.body.dataset.mode = "none";
  $("#welcome").hidden = false;
  $("#game").hidden = true;
  document.title = "Open Solitaire";
}
