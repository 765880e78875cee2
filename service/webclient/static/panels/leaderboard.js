// The side panel with a deal's board: fastest first, each entry linking to its replay
// (`/?replay={game_id}`, the proof of its time) and its player's story (`/?player={id}`).
// A box adds the wins made with hints (`?assisted=true`), each of them marked, and those
// played faster than a hand plays marked unverified. With a player on this page, each
// other player's entry has a Follow button (friends.js; data-follow, aria-pressed), and a
// box (data-board="friends") shows the board of the player and those they follow instead.

import { ApiError } from "../api.js";
import { TITLES } from "../cards.js";
import { formatTime, isolated, nameIn, tag } from "../format.js";
import { Friends, followButton, setFollowing } from "./friends.js";
import { storyUrl } from "../routing.js";

const $ = (selector) => document.querySelector(selector);

function entryLine(entry, { player, gameId, friends }) {
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
  let name;
  if (entry.player?.id) {
    name = document.createElement("a");
    name.href = storyUrl(entry.player.id);
    name.className = "player-link";
    name.dataset.player = entry.player.id;
    name.title = `${isolated(entry.player.name)}'s games, times and streaks`;
  } else {
    name = document.createElement("span");
  }
  nameIn(name, entry.player?.name || "?");
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
  replay.title = `Replay ${entry.player?.name ? `${isolated(entry.player.name)}'s` : "this"} win move by move`;
  details.append(replay);
  if (friends && player && entry.player?.id && entry.player.id !== player.id) {
    details.append(followButton(entry.player, friends.has(entry.player.id)));
  }
  li.append(rank, who, time, details);
  return li;
}

export class BoardPanel {
  constructor(api) {
    this.api = api;
    this.friends = new Friends(api);
    this.available = null; // false once the server says it has no boards
    this.shown = null; // the last {variant, deal, player, playing, gameId} asked for
    this.generation = 0;
    const again = () => {
      if (this.shown) this.show(this.shown).catch((error) => console.warn(error.message));
    };
    $("#board-assisted").addEventListener("change", again);
    $("#board-friends").addEventListener("change", again);
    $("#leaderboard").addEventListener("click", (event) => {
      const button = event.target.closest?.("[data-follow]");
      if (button) this.follow(button).catch((error) => console.warn(error.message));
    });
  }

  hide() {
    this.generation += 1;
    this.shown = null;
    $("#board-panel").hidden = true;
  }

  /** Follows the player of `button`'s entry, or stops following them. */
  async follow(button) {
    const id = button.dataset.follow;
    const name = button.closest("li")?.querySelector(".player-link")?.textContent || "this player";
    const same = () => document.querySelectorAll(`#leaderboard [data-follow="${CSS.escape(id)}"]`);
    for (const node of same()) node.disabled = true;
    let following;
    try {
      following = await this.friends.toggle(id);
    } catch (error) {
      $("#board-message").textContent = `That did not work: ${error.detail || error.message}`;
      return;
    } finally {
      for (const node of same()) node.disabled = false;
    }
    for (const node of same()) setFollowing(node, following);
    $("#board-message").textContent = following
      ? `You follow ${name}: their wins are on your friends' board.`
      : `You no longer follow ${name}.`;
    if (this.shown && $("#board-friends").checked) await this.show(this.shown);
  }

  /** Shows the board of `variant` `deal`: `player` (or null) is marked and told their
   * rank, `gameId` (a replay's game) is marked, `playing` says the page plays this deal. */
  async show({ variant, deal, player = null, playing = false, gameId = null }) {
    const panel = $("#board-panel");
    const changed = !this.shown || this.shown.variant !== variant || this.shown.deal !== deal;
    this.shown = { variant, deal, player, playing, gameId };
    const generation = ++this.generation;
    if (this.available === false) {
      panel.hidden = true;
      return;
    }
    if (changed) $("#board-message").textContent = "";
    const friends = await this.friends.load(player); // null: no follow buttons, no box
    const friendsOnly = Boolean(friends) && $("#board-friends").checked;
    const assisted = $("#board-assisted").checked;
    let top;
    try {
      top = await this.api.leaderboard(variant, deal, {
        limit: friendsOnly ? 20 : 10, assisted, friends: friendsOnly,
      });
    } catch (error) {
      if (error instanceof ApiError && (error.routeMissing || error.status === 422)) {
        if (error.routeMissing) this.available = false;
        panel.hidden = true;
        return;
      }
      throw error;
    }
    this.available = true;
    const entries = top.entries || [];
    let mine = player ? entries.find((e) => e.player?.id === player.id) || null : null;
    // the player's entry past the first page (a board of one page without it has none)
    if (player && !friendsOnly && !mine && top.next) {
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
    const list = $("#leaderboard");
    const marks = { player, gameId, friends };
    list.replaceChildren(...entries.map((entry) => entryLine(entry, marks)));
    if (mine && !entries.some((e) => e.player?.id === player.id)) {
      list.append(entryLine(mine, marks));
    }
    const title = `${TITLES[variant] || variant} deal ${deal}`;
    $("#board-title").textContent = friendsOnly ? `You and those you follow on ${title}`
      : `Fastest on ${title}`;
    const plain = assisted ? "" : " without hints";
    let rank = "";
    if (mine) rank = `Your rank: ${mine.rank}.`;
    else if (!entries.length && friendsOnly) {
      rank = `Neither you nor anyone you follow has won this deal yet${plain}.`
        + " Follow players from the full board.";
    } else if (!entries.length) rank = `Nobody has won this deal here yet${plain}.`;
    else if (playing) rank = "Win this deal to get on the board.";
    $("#my-rank").textContent = rank;
    $("#board-friends-line").hidden = !friends;
    panel.dataset.assisted = String(assisted);
    panel.dataset.showing = friendsOnly ? "friends" : "all";
    panel.hidden = false;
  }
}
