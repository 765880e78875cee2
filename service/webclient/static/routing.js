// The page's address: what it asks for (read), and the addresses the page writes and
// links to. `/?replay={id}` replays a game's log, `/?game={id}` opens a game (to play it,
// or to watch it when it is someone else's), `/?race={id}` opens a race (race.js),
// `/?player={id}` a player's story (story.js), `/?variant=…&deal=…[&autoplay=0]` deals a
// new game of that deal, and `/` is the welcome.

import { ApiError } from "./api.js";

export const gameUrl = (id) => `/?game=${id}`;
export const replayUrl = (id) => `/?replay=${id}`;
export const raceUrl = (id) => `/?race=${id}`;
export const storyUrl = (id) => `/?player=${encodeURIComponent(id)}`;
export const dealUrl = (variant, deal, autoplay = true) =>
  `/?variant=${variant}&deal=${deal}${autoplay ? "" : "&autoplay=0"}`;

/** A deal number typed or given in the address: null for none (a random deal). */
export function dealFrom(text) {
  if (text === null || text === undefined || String(text).trim() === "") return null;
  const written = String(text).trim();
  if (!/^[0-9]+$/.test(written) || Number(written) < 1) { // (no "1e3", no "0x10")
    throw new ApiError(400, { detail: `a deal is a whole number from 1 up, not "${text}"` });
  }
  const value = Number(written);
  if (!Number.isSafeInteger(value)) {
    throw new ApiError(422, {
      detail: `deal numbers run from 1 to 8589934591; there is no deal ${written}`,
    });
  }
  return value;
}

/** What the address asks for: {kind: "replay", id} | {kind: "game", id} | {kind: "race", id} |
 * {kind: "player", id} | {kind: "deal", variant, dealText, autoplay} | {kind: "welcome"}
 * (dealText: as written, for dealFrom). */
export function readAddress() {
  const query = new URLSearchParams(location.search);
  const replayId = query.get("replay");
  if (replayId) return { kind: "replay", id: replayId };
  const gameId = query.get("game");
  if (gameId) return { kind: "game", id: gameId };
  const raceId = query.get("race");
  if (raceId) return { kind: "race", id: raceId };
  const playerId = query.get("player");
  if (playerId) return { kind: "player", id: playerId };
  if (query.has("variant") || query.has("deal")) {
    return {
      kind: "deal",
      variant: query.get("variant") || "freecell",
      dealText: query.get("deal"),
      autoplay: !["0", "false", "off"].includes(query.get("autoplay") || ""),
    };
  }
  return { kind: "welcome" };
}

/** The address of the game just dealt: in place of the deal's address (which would deal
 * again on reload) or as a new entry in the history. */
export function showGameAddress(id, { replace = false } = {}) {
  if (replace) history.replaceState({ game: id }, "", gameUrl(id));
  else history.pushState({ game: id }, "", gameUrl(id));
}

/** Calls `onChange` when the reader goes back or forth in the history. */
export function onAddressChange(onChange) {
  window.addEventListener("popstate", onChange);
}
