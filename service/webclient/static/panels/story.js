// `/?player={id}`: a player's story, from GET /v1/players/{id}/stats. Per game played
// (a block marked data-variant="freecell", …): played, won, won with hints, win rate,
// streak and best streak, best and median times (each in data-field="played", …, its
// number as the API gave it in data-value), and two charts of the recent finished games
// (charts.js): the times of the wins (data-chart="times") and the wins and losses
// (data-chart="results"), oldest first. The view is marked data-page="stats". Also here:
// the "played by" link of a game watched or replayed.

import { ApiError } from "../api.js";
import { $, api, app } from "../app.js";
import { TITLES } from "../cards.js";
import { barChart } from "./charts.js";
import { formatTime, isolated, nameIn } from "../format.js";
import { storyUrl } from "../routing.js";

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const count = (value) => String(value ?? 0);
const time = (ms) => (ms === null || ms === undefined ? "none yet" : formatTime(ms));
const percent = (rate) => `${Math.round((rate || 0) * 100)}%`;
const SLOTS = 12; // a chart of recent games has room for this many at least: few stay slim

// each figure: its field, its name on the page, how its number is written
const FIGURES = [
  ["played", "Played", count],
  ["won", "Won", count],
  ["won_assisted", "Won with hints", count],
  ["win_rate", "Win rate", percent],
  ["streak", "Streak", count],
  ["best_streak", "Best streak", count],
  ["best_ms", "Best time", time],
  ["median_ms", "Median time", time],
];

let shownId = null; // the player whose story is shown

function el(tag, attrs = {}, text = null) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  if (text !== null) node.textContent = text;
  return node;
}

/** Shows player `id`'s story in place of a game. False when there is no such player. */
export async function openStory(id) {
  shownId = id;
  document.body.dataset.mode = "stats";
  $("#welcome").hidden = true;
  $("#game").hidden = true;
  $("#story").hidden = false;
  $("#story").dataset.state = "loading";
  $("#story-title").textContent = "A player's games";
  $("#story-message").textContent = "Reading this player's games…";
  $("#story-games").replaceChildren();
  let stats;
  try {
    stats = await api.stats(id);
  } catch (error) {
    if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
      closeStory();
      return false;
    }
    throw error;
  }
  if (shownId !== id) return true; // another address was opened meanwhile
  const name = stats.player?.name ? isolated(stats.player.name) : "This player";
  const me = Boolean(app.player && app.player.id === stats.player?.id);
  document.title = `${name}'s games · Open Solitaire`;
  const shown = stats.player?.name
    ? nameIn(document.createElement("span"), stats.player.name) : "This player";
  $("#story-title").replaceChildren(...(me ? ["Your games (", shown, ")"] : [shown, "'s games"]));
  const variants = Object.keys(TITLES).filter((v) => stats.games?.[v]);
  const blocks = variants.map((v) => block(v, stats.games[v], stats.recent || [], name));
  $("#story-games").replaceChildren(...blocks);
  $("#story-message").textContent = variants.length
    ? "The charts show the last games that ended (100 at most), the latest on the right."
    : `${me ? "You have" : `${name} has`} not played a game yet.`;
  $("#story").dataset.state = "shown";
  for (const b of blocks) drawCharts(b); // once in the page: drawn at their boxes' width
  return true;
}

export function closeStory() {
  shownId = null;
  $("#story").hidden = true;
  $("#story-games").replaceChildren();
}

function block(variant, figures, recent, name) {
  const title = TITLES[variant];
  const section = el("section", {
    class: "story-game", "data-variant": variant, "aria-labelledby": `story-${variant}`,
  });
  section.append(el("h3", { id: `story-${variant}` }, title));
  const list = el("dl", { class: "figures" });
  for (const [field, label, write] of FIGURES) {
    const value = figures[field];
    const item = el("div");
    item.append(el("dt", {}, label), el("dd", {
      "data-field": field, "data-value": value === null || value === undefined ? "" : value,
    }, write(value)));
    list.append(item);
  }
  section.append(list);
  // the API lists them newest first; the charts read from the left, oldest first
  const games = recent.filter((g) => g.variant === variant).reverse();
  section.chartData = { games, title, name };
  if (!games.length) {
    section.append(el("p", { class: "muted" }, `No ${title} game has ended yet.`));
    return section;
  }
  const wins = games.filter((g) => g.status === "won" && g.elapsed_ms !== null);
  section.append(figure("times", wins.length
    ? `Times of the last ${plural(wins.length, "win")}` : "No win among these games yet"));
  section.append(figure("results", `Wins and losses of the last ${plural(games.length, "game")}`));
  return section;
}

function figure(kind, caption) {
  const node = el("figure", { class: "chart-figure" });
  node.append(el("figcaption", {}, caption), el("div", { class: "chart", "data-box": kind }));
  return node;
}

function drawCharts(section) {
  const { games, title, name } = section.chartData || {};
  if (!games?.length) return;
  const wins = games.filter((g) => g.status === "won" && g.elapsed_ms !== null);
  const timesBox = section.querySelector('[data-box="times"]');
  if (wins.length) {
    const times = wins.map((g) => g.elapsed_ms);
    const slowest = Math.max(...times);
    barChart(timesBox, {
      chart: "times",
      label: `${name}'s times in the last ${plural(wins.length, "win")} of ${title}, oldest`
        + ` first: best ${formatTime(Math.min(...times))}, slowest ${formatTime(slowest)},`
        + ` latest ${formatTime(times[times.length - 1])}.`,
      domain: [wins.length - Math.max(wins.length, SLOTS), wins.length], // the latest right
      bars: wins.map((g, i) => ({
        from: i, to: i + 1, value: g.elapsed_ms, className: "won",
        data: { gameId: g.game_id, deal: g.deal, ms: g.elapsed_ms },
        title: `Deal ${g.deal}: ${formatTime(g.elapsed_ms)}`,
      })),
      yLabels: [{ at: 0, text: "0:00" }, { at: slowest, text: formatTime(slowest) }],
      xLabels: [{ at: 0, text: "oldest", anchor: "start" },
        { at: wins.length, text: "latest", anchor: "end" }],
    });
  } else {
    timesBox.closest("figure").querySelector("figcaption").classList.add("muted");
  }
  const won = games.filter((g) => g.status === "won").length;
  barChart(section.querySelector('[data-box="results"]'), {
    chart: "results",
    height: 120,
    label: `${name}'s last ${plural(games.length, "game")} of ${title}, oldest first:`
      + ` ${won} won, ${games.length - won} lost (abandoned or stuck); the latest`
      + ` ${games[games.length - 1].status === "won" ? "won" : "lost"}.`,
    domain: [games.length - Math.max(games.length, SLOTS), games.length],
    bars: games.map((g, i) => ({
      from: i, to: i + 1, value: g.status === "won" ? 1 : -1,
      className: g.status === "won" ? "won" : "lost",
      data: { gameId: g.game_id, deal: g.deal, status: g.status },
      title: `Deal ${g.deal}: ${g.status}`,
    })),
    yLabels: [{ at: 1, text: "won" }, { at: -1, text: "lost" }],
    xLabels: [{ at: 0, text: "oldest", anchor: "start" },
      { at: games.length, text: "latest", anchor: "end" }],
  });
}

// ------------------------------------------------------------------ "played by"

const names = new Map(); // player id -> a promise of their name

function nameOf(id) {
  if (!names.has(id)) {
    names.set(id, api.player(id).then((p) => p.name).catch(() => {
      names.delete(id);
      return null;
    }));
  }
  return names.get(id);
}

/** "· played by NAME" beside the game's links, NAME linking to their story (null: hidden). */
export async function showPlayedBy(playerId) {
  const line = $("#played-by");
  line.dataset.player = playerId || "";
  if (!playerId) {
    line.hidden = true;
    return;
  }
  const name = await nameOf(playerId);
  if (line.dataset.player !== playerId) return; // another game meanwhile
  const link = $("#played-by-link");
  link.href = storyUrl(playerId);
  nameIn(link, name || "this player");
  link.title = `${name ? isolated(name) : "This player"}'s games, times and streaks`;
  line.hidden = !name;
}
