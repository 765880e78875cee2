// The player this device plays as: made on the first visit and kept in localStorage
// (its token goes with every write), signed in with another device's link code or signed
// out (devices.js); and the game it played last. The header names them, the name linking
// to their story (`/?player={id}`).

import { $, api, app, readJson } from "./app.js";
import { nameIn } from "./format.js";
import { storyUrl } from "./routing.js";

const PLAYER_KEY = "open-solitaire.player";

/** This device's player, made now when it has none (unless `create` is false: someone
 * who only watches a race gets no player until they join). */
export async function ensurePlayer({ create = true } = {}) {
  if (app.player) return app.player;
  const stored = readJson(PLAYER_KEY);
  if (stored?.token && stored?.id) {
    app.player = stored;
  } else if (!create) {
    return null;
  } else {
    const created = await createWithFreeName();
    app.player = { id: created.id, name: created.name, token: created.token };
    localStorage.setItem(PLAYER_KEY, JSON.stringify(app.player));
  }
  api.token = app.player.token;
  showWho();
  return app.player;
}

/** "Playing as NAME" in the header, NAME linking to the player's story. */
function showWho() {
  const link = document.createElement("a");
  link.href = storyUrl(app.player.id);
  link.className = "player-link";
  link.dataset.player = app.player.id;
  link.title = "Your games, times and streaks";
  nameIn(link, app.player.name);
  $("#who").replaceChildren("Playing as ", link);
}

/** A new player named "Player" and a random number: a name that looks like another
 * player's is refused (409 name-taken), so another number is drawn then. */
async function createWithFreeName() {
  for (let attempt = 1; ; attempt++) {
    const name = `Player ${Math.floor(100000 + Math.random() * 900000)}`;
    try {
      return await api.createPlayer(name);
    } catch (error) {
      const taken = error.status === 409 && (error.problem.type || "").endsWith("/name-taken");
      if (!taken || attempt >= 5) throw error;
    }
  }
}

/** Plays on this device as `player` ({id, name, token}), from now on. */
export function signIn(player) {
  app.player = { id: player.id, name: player.name, token: player.token };
  localStorage.setItem(PLAYER_KEY, JSON.stringify(app.player));
  api.token = app.player.token;
  showWho();
}

/** Forgets this device's player (its token was revoked): the next game makes a new one. */
export function signOut() {
  localStorage.removeItem(PLAYER_KEY);
  app.player = null;
  api.token = null;
  $("#who").textContent = "Signed out on this device";
}

// ------------------------------------------------------------------ the last game played

const LAST_GAME_KEY = "open-solitaire.last-game";

/** The game this device played last, offered again on the welcome. */
export function keepLastGame(id) {
  localStorage.setItem(LAST_GAME_KEY, id);
}

export function lastGameId() {
  return localStorage.getItem(LAST_GAME_KEY);
}
