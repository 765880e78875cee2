// The players this page's player follows (API.md: friends): read once a player from
// GET /v1/players/me/friends, changed with PUT and DELETE /v1/players/me/friends/{id}.
// The board panel (leaderboard.js) gives each other player's entry a button marked
// data-follow="{player id}", aria-pressed "true" while they are followed.

import { ApiError } from "../api.js";
import { isolated } from "../format.js";

export class Friends {
  constructor(api) {
    this.api = api;
    this.available = null; // false once the server says it has no friends
    this.playerId = null;
    this.ids = new Set();
    this.loading = null;
  }

  /** The ids `player` follows (read once for each player); null where the server keeps
   * no friends or cannot say now. */
  async load(player) {
    if (!player || this.available === false) return null;
    if (this.playerId !== player.id || !this.loading) {
      this.playerId = player.id;
      this.ids = new Set();
      this.loading = this.api.friends().then((answer) => {
        this.available = true;
        this.ids = new Set((answer.friends || []).map((friend) => friend.id));
        return this.ids;
      });
    }
    try {
      return await this.loading;
    } catch (error) {
      this.loading = null;
      if (error instanceof ApiError && error.routeMissing) this.available = false;
      return null;
    }
  }

  follows(id) {
    return this.ids.has(id);
  }

  /** Follows `id`, or stops following them: whether they are followed now. */
  async toggle(id) {
    if (this.ids.has(id)) {
      await this.api.unfollow(id);
      this.ids.delete(id);
      return false;
    }
    await this.api.follow(id);
    this.ids.add(id);
    return true;
  }
}

/** The button that follows `who` ({id, name}) or stops following them. */
export function followButton(who, following) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "follow";
  button.dataset.follow = who.id;
  button.setAttribute("aria-label", `Follow ${who.name ? isolated(who.name) : "this player"}`);
  const check = document.createElement("span");
  check.className = "check-mark";
  check.setAttribute("aria-hidden", "true");
  check.textContent = "\u2713 ";
  button.append(check, "Follow");
  setFollowing(button, following);
  return button;
}

export function setFollowing(button, following) {
  button.setAttribute("aria-pressed", String(following));
  button.title = following ? "You follow this player: press to stop"
    : "Follow this player: their wins show on your friends' board";
}
