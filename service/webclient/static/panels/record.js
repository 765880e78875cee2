// The side panel with the player's record: games won, streak, best times and the deals won
// (the server's record of the player, or, from a server that keeps none, the wins this
// device kept), and a link to the player's whole story (`/?player={id}`).

import { ApiError } from "../api.js";
import { TITLES } from "../cards.js";
import { formatTime } from "../format.js";
import { storyUrl } from "../routing.js";

const RECORD_KEY = "open-solitaire.record";
const $ = (selector) => document.querySelector(selector);

function readJson(key) {
  try {
    return JSON.parse(localStorage.getItem(key));
  } catch {
    return null;
  }
}

/** Keeps a win on this device too (for a server without players' records). */
export function rememberWin(game) {
  const record = readJson(RECORD_KEY) || {};
  const mine = record[game.variant] || { won: [], best: null };
  if (!mine.won.includes(game.deal)) mine.won.push(game.deal);
  if (game.elapsed_ms !== null && (!mine.best || game.elapsed_ms < mine.best.elapsed_ms)) {
    mine.best = { elapsed_ms: game.elapsed_ms, moves: game.moves, deal: game.deal, game_id: game.id };
  }
  record[game.variant] = mine;
  localStorage.setItem(RECORD_KEY, JSON.stringify(record));
}

export class RecordPanel {
  constructor(api) {
    this.api = api;
    this.available = null; // false once the server says it keeps no records
  }

  /** Shows `player`'s record: the server's, or else what this device kept. */
  async refresh(player) {
    $("#record-panel").hidden = !player; // nobody plays on this device (yet): no record
    if (!player) return;
    let server = null;
    if (this.available !== false) {
      try {
        server = await this.api.player(player.id);
        this.available = true;
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        if (error.routeMissing) this.available = false;
      }
    }
    show(server, player);
  }
}

function show(server, player) {
  const local = readJson(RECORD_KEY) || {};
  const won = {};
  const best = {};
  // a server that keeps records is the one judge: a win it does not count (with hints,
  // or faster than a hand) is no best time and no deal won here either
  for (const variant of Object.keys(TITLES)) {
    won[variant] = (server ? server.won_deals?.[variant] : local[variant]?.won) || [];
    best[variant] = (server ? server.best_times?.[variant] : local[variant]?.best) || null;
  }
  const box = $("#record");
  const parts = [];
  const line = (text) => {
    const p = document.createElement("p");
    p.textContent = text;
    return p;
  };
  if (server && typeof server.won === "number") {
    parts.push(line(`${server.won} won of ${server.games_played} played`
      + (server.current_streak ? `, ${server.current_streak} in a row` : "") + "."));
  }
  for (const variant of Object.keys(TITLES)) {
    if (!won[variant].length && !best[variant]) continue;
    const h = document.createElement("h3");
    h.textContent = TITLES[variant];
    parts.push(h);
    if (best[variant]) {
      const b = best[variant];
      const bestLine = line(`Best time ${formatTime(b.elapsed_ms)} (${b.moves} moves, deal ${b.deal}). `);
      if (b.game_id) {
        const replay = document.createElement("a");
        replay.href = `/?replay=${encodeURIComponent(b.game_id)}`;
        replay.textContent = "Replay";
        replay.title = `Replay your best ${TITLES[variant]} win move by move`;
        bestLine.append(replay);
      }
      parts.push(bestLine);
    }
    const list = document.createElement("ul");
    list.className = "record-deals";
    list.setAttribute("aria-label", `${TITLES[variant]} deals won`);
    for (const deal of won[variant].slice(-40)) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.href = `/?variant=${variant}&deal=${deal}`;
      a.textContent = String(deal);
      a.title = `Play ${TITLES[variant]} deal ${deal} again`;
      li.append(a);
      list.append(li);
    }
    if (won[variant].length) parts.push(line("Deals won:"), list);
  }
  if (!parts.length) parts.push(line("No deal won yet. Your wins and best times show here."));
  if (server) {
    const story = document.createElement("a");
    story.href = storyUrl(player.id);
    story.className = "player-link";
    story.dataset.player = player.id;
    story.textContent = "All your games: times, streaks, wins and losses";
    const p = line("");
    p.className = "story-link";
    p.append(story);
    parts.push(p);
  }
  box.replaceChildren(...parts);
}
