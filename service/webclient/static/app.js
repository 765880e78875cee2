// The page's one shared state (the game shown, the player, what is chosen), the API client,
// the message line, and the queue that runs one action at a time. Every other module of
// the game view reads and writes `app`; nothing else keeps state of the game.

import { Api, ApiError } from "./api.js";

// the statuses that end play for good (the engine's OVER_STATUSES, engine/status.py); a
// blocked game may still be undone
export const OVER = new Set(["won", "abandoned"]);

export const $ = (selector) => document.querySelector(selector);
export const api = new Api();

export const app = {
  player: null, // {id, name, token}
  game: null, // the game as the server last answered it
  state: null, // the layout shown (runs ahead of `game` while moves are being shown)
  mode: "none", // "play" (the game is this player's) | "watch" | "replay" (replay.js)
  selection: null, // {kind: "card", card, pile, count, legal} | {kind: "pile", pile, legal}
  hint: null, // {card, pile}
  hintWarned: null, // the game whose player was told that a hint marks it assisted
  legal: null, // {version, moves}
  legalPending: null, // {version, promise}
  feed: null,
  lastTap: null, // {card, time}: the tap that chose a card, for double taps
  features: { hint: null, daily: null },
  refreshTimer: null,
};

// ------------------------------------------------------------------ the message line

export function say(text, kind = "info") {
  // the game's message line, and the welcome's (the one of them in sight)
  for (const node of [$("#message"), $("#welcome-message")]) {
    node.textContent = text;
    node.classList.toggle("error", kind === "error");
  }
}

export function report(error) {
  if (error instanceof ApiError) {
    say(error.detail, "error");
  } else {
    console.error(error);
    say(`Something went wrong here: ${error.message}`, "error");
  }
}

// ------------------------------------------------------------------ one thing at a time

let queue = Promise.resolve();
let pending = 0;

/** Runs `action` after everything queued before it: taps made while cards are still
 * moving apply to the layout those moves leave. body[data-busy] is "true" meanwhile. */
export function enqueue(action) {
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

/** Runs a refresh of a side panel in the background: its failure only leaves the panel
 * as it was (the console says why). */
export function background(action) {
  Promise.resolve().then(action).catch((error) => console.warn("could not refresh:", error.message));
}

export const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/** A value kept in localStorage as JSON, or null. */
export function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;
  }
}
