// A race (`/?race={id}`): its lobby (the players, a countdown to the start by the server's
// clock, a Join button for someone not in it yet), then this player's own game on the
// board (an ordinary game: game.js plays it) beside every racer's progress, live from the
// race's stream, and the final ranking. Someone not in the race watches the racers only.
// The welcome's race form creates a race and opens it, with its link to share.
// The panel marks each racer with data-racer="{player id}" and their data-field="rank",
// "moves", "foundation_cards" and "status", a win faster than a hand plays with
// data-tag="unverified"; the countdown is data-field="countdown".

import { ApiError } from "./api.js";
import { $, api, app, background, enqueue, OVER, say } from "./app.js";
import { TITLES } from "./cards.js";
import { refreshDevices } from "./panels/devices.js";
import { formatTime, isolated, nameIn, tag } from "./format.js";
import { openGame, showWelcome } from "./table/game.js";
import { LiveFeed } from "./live.js";
import { refreshRecord } from "./panels/panels.js";
import { ensurePlayer } from "./player.js";
import { dealFrom, raceUrl, readAddress, storyUrl } from "./routing.js";

const TICK_MS = 250; // the countdown's pace
const POLL_MS = 2000; // the race read again this often while its stream is not connected

// the race shown: its id, the race as last read (kept up to date by the stream), the
// stream, the countdown's timer, the last seq applied, whether this player's game is open
const race = { id: null, data: null, feed: null, timer: null, seq: 0, gameOpened: false, lastRead: 0 };

const now = () => Date.now() + api.clockOffset; // the server's clock, as near as known
const mine = () => race.data?.players.find((p) => app.player && p.player.id === app.player.id);

// ------------------------------------------------------------------ opening and closing

export async function openRace(id) {
  closeRace();
  showWelcome(); // no game shown (its feed stopped), then no welcome either: the lobby
  $("#welcome").hidden = true;
  let data;
  try {
    data = await api.race(id);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
      $("#welcome").hidden = false;
      say(`There is no race ${id} here. Create one below.`, "error");
      return;
    }
    throw error;
  }
  race.id = id;
  race.data = data;
  race.seq = data.version || 0;
  race.lastRead = Date.now();
  document.title = `${TITLES[data.variant] || data.variant} race · Open Solitaire`;
  const link = $("#race-link");
  link.href = raceUrl(id);
  link.textContent = new URL(raceUrl(id), location.href).href;
  place(false);
  $("#race").hidden = false;
  render();
  race.feed = new LiveFeed(id, race.seq, onEvent, () => {}, {
    poll: false, api, path: `/v1/races/${id}/stream`,
  }).start();
  race.timer = setInterval(tick, TICK_MS);
  await afterRead();
}

/** Leaves the race shown (the address asks for something else now). */
export function closeRace() {
  race.feed?.stop();
  clearInterval(race.timer);
  Object.assign(race, { id: null, data: null, feed: null, timer: null, seq: 0, gameOpened: false });
  $("#race").hidden = true;
  document.body.dataset.race = "";
}

/** The panel goes beside the board when this player's game is shown, else in its place. */
function place(besideBoard) {
  const panel = $("#race");
  if (besideBoard) $("#board-panel").after(panel);
  else $("#game").after(panel);
  panel.classList.toggle("race-main", !besideBoard);
}

// ------------------------------------------------------------------ the race, kept up to date

function onEvent(event) {
  if (!race.data || event.seq <= race.seq) return;
  race.seq = event.seq;
  const d = event.data || {};
  const racer = race.data.players.find((p) => p.player.id === d.player);
  if (event.type === "Progress" && racer) {
    Object.assign(racer, { moves: d.moves, foundation_cards: d.foundation_cards, status: d.status });
    render();
    return;
  }
  background(reread); // a player joined, the start, a finish, the end: the race as it is now
}

async function reread() {
  if (!race.id) return;
  const id = race.id;
  race.lastRead = Date.now();
  const data = await api.race(id);
  if (race.id !== id) return;
  race.data = data;
  // a read older than the events applied: read again in a moment
  if ((data.version ?? race.seq) < race.seq) setTimeout(() => background(reread), 300);
  render();
  await afterRead();
}

/** Once the race is on: this player's own game opens on the board. */
async function afterRead() {
  const me = mine();
  if (race.data.status === "open" || race.gameOpened || !me?.game_id) return;
  race.gameOpened = true;
  const id = race.id;
  enqueue(async () => { // after the action running now (never awaited from within one)
    if (race.id !== id) return;
    place(true);
    await openGame(me.game_id);
    if (race.data?.status === "running") say("The race is on! Tap a card to choose it.");
  });
}

function tick() {
  if (!race.id) return;
  const address = readAddress();
  if (address.kind !== "race" || address.id !== race.id) {
    closeRace(); // a new game was dealt from the race's page
    return;
  }
  updateCountdown();
  const d = race.data;
  const due = d.status === "open" && now() >= Date.parse(d.starts_at);
  const quiet = race.feed?.mode !== "live" && d.status !== "over";
  // the start is due (reading the race starts it), or the stream is not there: read it
  if ((due || quiet) && Date.now() - race.lastRead > (due ? 1000 : POLL_MS)) background(reread);
}

// ------------------------------------------------------------------ showing it

function updateCountdown() {
  const d = race.data;
  let when = "";
  let left = "";
  if (d.status === "open") {
    when = "Starts in";
    left = formatTime(Math.max(0, Date.parse(d.starts_at) - now()) + 999);
  } else if (d.status === "running") {
    when = "On: time left";
    left = formatTime(Date.parse(d.ends_at) - now());
  } else {
    when = "Over: the final ranking";
  }
  $("#race-when").textContent = when;
  $('#race [data-field="countdown"]').textContent = left;
  const me = mine();
  $("#race-join").hidden = !(d.status === "open" && !me && now() < Date.parse(d.starts_at));
}

function span(field, text) {
  const node = document.createElement("span");
  node.dataset.field = field;
  node.textContent = text;
  return node;
}

function racerRow(p) {
  const li = document.createElement("li");
  li.dataset.racer = p.player.id;
  const isMe = Boolean(app.player && p.player.id === app.player.id);
  li.classList.toggle("me", isMe);
  li.classList.toggle("done", OVER.has(p.status));
  li.append(span("rank", p.rank ? String(p.rank) : ""));
  const name = document.createElement("span");
  name.className = "racer-name";
  const link = document.createElement("a"); // their story
  link.href = storyUrl(p.player.id);
  link.className = "player-link";
  link.dataset.player = p.player.id;
  nameIn(link, p.player.name);
  name.append(link);
  if (isMe) name.append(" ", tag("you", "This is you", "you")); // (no name looks like it)
  if (p.verified === false) { // a win faster than a hand plays: ranked by its time all the same
    name.append(" ", tag("unverified", "Played faster than a hand plays", "unverified"));
  }
  li.append(name);
  const details = document.createElement("span");
  details.className = "details";
  const time = p.elapsed_ms !== null && p.elapsed_ms !== undefined && p.status === "won"
    ? ` in ${formatTime(p.elapsed_ms)}` : "";
  details.append(span("moves", String(p.moves)), p.moves === 1 ? " move · " : " moves · ",
    span("foundation_cards", String(p.foundation_cards)), "/52 up · ",
    span("status", p.status || "joined"), time);
  li.append(details);
  return li;
}

function render() {
  const d = race.data;
  if (!d) return;
  const me = mine();
  document.body.dataset.race = d.status;
  $("#race").dataset.status = d.status;
  const deal = d.deal ? `, deal ${d.deal}` : "";
  $("#race-title").textContent = `${TITLES[d.variant] || d.variant} race${deal}`
    + ` · ${d.players.length} player${d.players.length === 1 ? "" : "s"}`;
  $("#racers").replaceChildren(...d.players.map(racerRow));
  let note;
  if (d.status === "over") note = "The race is over.";
  else if (me && d.status === "open") note = "You are in: your deal opens here at the start.";
  else if (me) note = "";
  else if (d.status === "open") note = "Join before the start to race; or stay to watch.";
  else note = "You are watching this race: the racers' progress shows as they play.";
  $("#race-message").textContent = note;
  updateCountdown();
}

// ------------------------------------------------------------------ joining and creating

async function join() {
  if (!race.id) return;
  const hadPlayer = Boolean(app.player);
  await ensurePlayer(); // a new player when this browser has none, as for a new game
  if (!hadPlayer) {
    background(refreshDevices);
    background(refreshRecord);
  }
  try {
    race.data = await api.joinRace(race.id);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    $("#race-message").textContent = `You could not join: ${error.detail}`;
    background(reread);
    return;
  }
  render();
  say("You joined the race: your deal opens here at the start.");
  await afterRead();
}

async function create() {
  const variant = $("#race-variant").value;
  let deal;
  try {
    deal = dealFrom($("#race-deal").value);
  } catch (error) {
    $("#race-form-message").textContent = error.detail;
    return;
  }
  const startsIn = Number($("#race-starts").value) || 30;
  const hadPlayer = Boolean(app.player);
  await ensurePlayer();
  if (!hadPlayer) {
    background(refreshDevices);
    background(refreshRecord);
  }
  let created;
  try {
    created = await api.createRace(variant, deal, startsIn);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    $("#race-form-message").textContent = `No race was made: ${error.detail}`;
    return;
  }
  $("#race-form-message").textContent = "";
  history.pushState({ race: created.id }, "", raceUrl(created.id));
  await openRace(created.id);
  say("Your race is made: share its link; the others join before the start.");
}

export function wireRaces() {
  $("#race-join").addEventListener("click", () => enqueue(join));
  $("#race-form").addEventListener("submit", (event) => {
    event.preventDefault();
    enqueue(create);
  });
}
