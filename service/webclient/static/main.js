// The reference web client: start a game, play it with taps, double-taps and keys, watch
// someone else's live, or replay a game's log. Everything goes through the public HTTP API
// (see /openapi.yaml). This module opens what the address asks for and starts the rest:
//   app.js      the page's one state, the API client, the message line, the action queue
//   routing.js  the address: what it asks for, and the addresses the page writes
//   player.js   this device's player; live.js a game's live events
//   race.js     a race: its lobby, this player's board beside every racer's progress, the
//               ranking; and the form that creates one
// table/, the game on the table:
//   game.js     the game shown: opening, dealing, following it live, showing its steps
//   choose.js   choosing a card or a pile, and its legal places
//   play.js     moves, undo, redo, giving up and hints through the API
//   input.js    taps, keys, the new-game form and the buttons; drag.js drags
//   view.js     the table and the bar above it; replay.js a game's log, step by step
// panels/, beside the game:
//   panels.js   the side panels; devices.js the player's devices, signing one out, and
//               linking another with a code
//   story.js    a player's story (`/?player={id}`): their figures and charts per game
//   standings.js  where a won game stands among the deal's winners (a chart, charts.js)
//   friends.js  the players this player follows (the board panel's Follow buttons)

import { ApiError } from "./api.js";
import { api, app, background, enqueue, report, say } from "./app.js";
import { TITLES } from "./cards.js";
import { refreshDevices, wireDevices } from "./panels/devices.js";
import { openGame, openReplay, reload, replay, showWelcome, startGame } from "./table/game.js";
import { wireDrag } from "./table/drag.js";
import { wireInput } from "./table/input.js";
import { offerResume, refreshDaily, refreshRecord, standings } from "./panels/panels.js";
import { ensurePlayer } from "./player.js";
import { closeRace, openRace, wireRaces } from "./race.js";
import { dealFrom, onAddressChange, readAddress } from "./routing.js";
import { closeStory, openStory } from "./panels/story.js";
import { updateClock } from "./table/view.js";

/** Opens what the address asks for: a replay, a game, a race, a player's story, a new
 * deal, or the welcome. */
async function route() {
  replay.close();
  closeRace();
  closeStory();
  standings.hide();
  const address = readAddress();
  if (address.kind === "replay") return openReplay(address.id);
  if (address.kind === "race") return openRace(address.id);
  if (address.kind === "player") return openPlayer(address.id);
  if (address.kind === "game") return openGame(address.id);
  if (address.kind === "deal") {
    // the welcome's form says the deal asked for, should the page end there (a bad deal,
    // an unknown game, a device signed out); a number field takes only digits
    const asked = address.dealText ?? "";
    document.getElementById("deal-input").value = /^\d+$/.test(asked) ? asked : "";
    if (!(address.variant in TITLES)) {
      showWelcome();
      say(`There is no game called "${address.variant}" here; pick one below.`, "error");
      return undefined;
    }
    document.getElementById("variant").value = address.variant;
    try {
      return await startGame(address.variant, dealFrom(address.dealText), address.autoplay,
        { replace: true });
    } catch (error) {
      if (!(error instanceof ApiError) || error.status >= 500) throw error;
      showWelcome(); // (a deal that is no deal: the game's own message line is hidden)
      say(`${error.detail}. Pick a deal below.`, "error");
      return undefined;
    }
  }
  showWelcome();
  say("Pick a game: a deal number to share, a random deal, or today's deal.");
  return offerResume();
}

/** A player's story in place of a game (no game shown, no deal's board). */
async function openPlayer(id) {
  showWelcome(); // the game shown (its feed) and its board go
  if (await openStory(id)) return;
  showWelcome();
  say(`There is no player ${id} here. Pick a game below.`, "error");
}

// for scripts and for looking around in the browser's console
window.openSolitaire = { app, api };

wireInput();
wireDrag();
wireRaces();
wireDevices({ showWelcome, refreshRecord });
onAddressChange(() => enqueue(route));
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState !== "visible") return;
  if (app.game) enqueue(reload);
  background(refreshDevices);
});
setInterval(updateClock, 500);

enqueue(async () => {
  background(refreshDaily);
  try {
    // a player is made when this device first deals a game or joins a race: someone who
    // only watches a game, replays one, opens a race's link or reads a player's story,
    // or looks at the welcome, gets none
    await ensurePlayer({ create: false });
  } catch (error) {
    report(error);
  }
  background(refreshRecord);
  background(refreshDevices);
  await route();
});
