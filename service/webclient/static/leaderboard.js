// The side panel with a deal's board: fastest first, each entry linking to its replay
// (`/?replay={game_id}`, the proof of its time). A box adds the wins made with hints
// (`?assisted=true`), each of them marked, and those played faster than a hand plays
// marked unverified.

import { ApiError } from "./api.js";
import { TITLES } from "./cards.js";
import { formatTime } from "./format.js";

const $ = (selector) => document.querySelector(selector);

function tag(text, title, kind) {
  const node = document.createElement("span");
  node.className = `tag ${kind}`;
  node.textContent = text;
  node.title = title;
  node.dataset.tag = kind;
  return node;
}

function entryLine(entry, { player, gameId }) {
  const li = document.createElement("li");
  const classes = [];
  if (player && entry.player?.id === player.id) classes.push("me");
  if (gameId && entry.game_id === gameId) classes.push("this-game");
  li.className = classes.join(" ");
  li.dataset.gameId = entry.game_id;
  const rank = document.createElement("span");
  rank.textContent = `${entry.rank}.`;
  const who = document.createElement("span");
  who.className = "who-won";
  const name = document.createElement("span");
  name.textContent = entry.player?.name || "?";
  who.append(name);
  if (entry.assisted) {
    who.append(" ", tag("hinted", "Won with the help of hints", "assisted"));
  }
  if (entry.verified === false) {
    who.append(" ", tag("unverified", "Played faster than a hand plays: off the main board",
      "unverified"));
  }
  const time = document.createElement("span");
  time.className = "time";
  time.textContent = formatTime(entry.elapsed_ms);
  const details = document.createElement("span");
  details.className = "details";
  const undos = entry.undos ? ` · ${entry.undos} undo${entry.undos === 1 ? "" : "s"}` : "";
  details.textContent = `${entry.moves} moves${undos} · `;
  const replay = document.createElement("a");
  replay.className = "replay-link";
  replay.href = `/?replay=${encodeURIComponent(entry.game_id)}`;
  replay.dataset.replay = entry.game_id;
  replay.textContent = "replay";
  replay.title = `Replay ${entry.player?.name ? `${entry.player.name}'s` : "this"} win move by move`;
  details.append(replay);
  li.append(rank, who, time, details);
  return li;
}

export class BoardPanel {
  constructor(api) {
    this.api = api;
    this.available = null; // false once the server says it has no boards
    this.shown = null; // the last {variant, deal, player, playing, gameId} asked for
    this.generation = 0;
    $("#board-assisted").addEventListener("change", () => {
      if (this.shown) this.show(this.shown).catch((error) => console.warn(error.message));
    });
  }

  hide() {
    this.generation += 1;
    this.shown = null;
    $("#board-panel").hidden = true;
  }

  /** Shows the board of `variant` `deal`: `player` (or null) is marked and told their
   * rank, `gameId` (a replay's game) is marked, `playing` says the page plays this deal. */
  async show({ variant, deal, player = null, playing = false, gameId = null }) {
    const panel = $("#board-panel");
    this.shown = { variant, deal, player, playing, gameId };
    const generation = ++this.generation;
    if (this.available === false) {
      panel.hidden = true;
      return;
    }
    const assisted = $("#board-assisted").checked;
    let top;
    try {
      top = await this.api.leaderboard(variant, deal, { limit: 10, assisted });
    } catch (error) {
      if (error instanceof ApiError && (error.routeMissing || error.status === 422)) {
        if (error.routeMissing) this.available = false;
        panel.hidden = true;
        return;
      }
      throw error;
    }
    this.available = true;
    let mine = null;
    if (player) {
      try {
        const around = await this.api.leaderboard(variant, deal, {
          aroundMe: true, limit: 5, assisted,
        });
        mine = (around.entries || []).find((e) => e.player?.id === player.id) || null;
      } catch {
        mine = null; // no entry of this player's yet
      }
    }
    if (generation !== this.generation) return; // another deal was opened meanwhile
    const entries = top.entries || [];
    const list = $("#leaderboard");
    const marks = { player, gameId };
    list.replaceChildren(...entries.map((entry) => entryLine(entry, marks)));
    if (mine && !entries.some((e) => e.player?.id === player.id)) {
      list.append(entryLine(mine, marks));
    }
    $("#board-title").textContent = `Fastest on ${TITLES[variant] || variant} deal ${deal}`;
    let rank = "";
    if (mine) rank = `Your rank: ${mine.rank}.`;
    else if (!entries.length) rank = `Nobody has won this deal here yet${assisted ? "" : " without hints"}.`;
    else if (playing) rank = "Win this deal to get on the board.";
    $("#my-rank").textContent = rank;
    panel.dataset.assisted = String(assisted);
    panel.hidden = false;
  }
}
