// What shows beside the game: the deal's board (leaderboard.js), the player's record
// (record.js), where a won game stands (standings.js), today's deal button and the
// welcome's offer to continue the last game.

import { ApiError } from "../api.js";
import { $, api, app, OVER } from "../app.js";
import { TITLES } from "../cards.js";
import { BoardPanel } from "./leaderboard.js";
import { lastGameId } from "../player.js";
import { RecordPanel } from "./record.js";
import { gameUrl } from "../routing.js";
import { Standings } from "./standings.js";

export const boards = new BoardPanel(api);
export const record = new RecordPanel(api);
export const standings = new Standings(api);

/** The board of the deal shown (hidden with no game), and where the game stands once it
 * is won. */
export async function refreshBoard() {
  const g = app.game;
  // a race's game in play shows no board of its deal: its replays are winning lines
  if (!g || (g.race_id && !OVER.has(g.status))) {
    boards.hide();
    standings.hide();
    return;
  }
  await Promise.all([
    boards.show({
      variant: g.variant, deal: g.deal, player: app.player, playing: app.mode === "play",
    }),
    standings.show(g, { own: app.mode === "play" }),
  ]);
}

export async function refreshRecord() {
  await record.refresh(app.player);
}

/** "Today's deal (N)" for the game and difficulty picked in the form, where the server has
 * daily deals. */
export async function refreshDaily() {
  const button = $("#daily-deal");
  if (app.features.daily === false) {
    button.hidden = true;
    return;
  }
  const variant = $("#variant").value;
  const grade = $("#grade").value || null;
  try {
    const daily = await api.daily(variant, grade);
    app.features.daily = true;
    button.dataset.variant = variant;
    button.dataset.deal = String(daily.deal);
    button.textContent = `Today's ${grade ? `${grade} ` : ""}deal (${daily.deal})`;
    button.hidden = false;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) app.features.daily = false;
    button.hidden = true;
  }
}

/** On the welcome: a link back to the last game this device played, if it is still on. */
export async function offerResume() {
  const last = lastGameId();
  if (!last) return;
  try {
    const game = await api.game(last);
    if (OVER.has(game.status)) return;
    $("#resume").href = gameUrl(game.id);
    $("#resume").textContent = `Continue your ${TITLES[game.variant]} game, deal ${game.deal} `
      + `(${game.moves} moves)`;
    $("#resume-line").hidden = false;
  } catch {
    // the game is gone: nothing to offer
  }
}
