// After a win: where the game's time stands among the deal's winners. The default board's
// winning times in bins (GET /v1/leaderboards/{variant}/{deal}/times) drawn as bars
// (charts.js), this game's time marked (data-mark="mine") and its bin highlighted; and
// "rank N of M" where the game's view says `standing` (a win with hints, one off the main
// board, or a server from before standings has none; a move's answer without it, the
// view is read once). The chart is data-chart="standings".

import { ApiError } from "../api.js";
import { TITLES } from "../cards.js";
import { barChart } from "./charts.js";
import { formatTime } from "../format.js";

const $ = (selector) => document.querySelector(selector);
const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;
const MIN_BINS = 6; // the time axis spans this many bins at least: a few bars stay slim

export class Standings {
  constructor(api) {
    this.api = api;
    this.available = null; // false once the server says it has no winning times
    this.generation = 0;
  }

  hide() {
    this.generation += 1;
    $("#standings").hidden = true;
  }

  /** Shows where `game` stands, when it is won (else hides); `own`: the page's player
   * won it (else someone watches it). */
  async show(game, { own = true } = {}) {
    if (!game || game.status !== "won" || this.available === false) {
      this.hide();
      return;
    }
    const generation = ++this.generation;
    let times;
    let view = game;
    try {
      [times, view] = await Promise.all([
        this.api.winningTimes(game.variant, game.deal),
        "standing" in game ? game : this.api.game(game.id).catch(() => game),
      ]);
    } catch (error) {
      if (error instanceof ApiError && error.routeMissing) this.available = false;
      if (generation === this.generation) this.hide();
      if (error instanceof ApiError) return;
      throw error;
    }
    if (generation !== this.generation) return; // another game was opened meanwhile
    this.available = true;
    draw({ ...game, standing: game.standing ?? view?.standing ?? null }, times, own);
    $("#standings").hidden = false;
  }
}

/** The bin of `ms` among `bins` (from inclusive, to exclusive), or -1. */
function binOf(bins, ms) {
  return bins.findIndex((bin) => bin.from_ms <= ms && ms < bin.to_ms);
}

function draw(game, times, own) {
  const title = `${TITLES[game.variant] || game.variant} deal ${game.deal}`;
  const bins = times.bins || [];
  const winners = times.winners ?? bins.reduce((sum, bin) => sum + bin.count, 0);
  const ms = game.elapsed_ms ?? 0;
  const who = own ? "Your time" : "This game";
  const standing = game.standing && Number.isFinite(game.standing.rank) ? game.standing : null;

  const line = $('#standings [data-field="standing"]');
  if (standing) {
    const rank = document.createElement("strong");
    rank.textContent = `rank ${standing.rank} of ${standing.of}`;
    line.replaceChildren(`${who} ${formatTime(ms)}: `, rank, ` on the board of ${title}.`);
  } else if (game.assisted) {
    line.textContent = `${who} ${formatTime(ms)}: a win with hints is not on the main board`
      + ` (${plural(winners, "winner")} there).`;
  } else {
    line.textContent = `${who} ${formatTime(ms)}; ${plural(winners, "winner")} on the board`
      + ` of ${title}.`;
  }
  line.dataset.rank = standing ? String(standing.rank) : "";
  line.dataset.of = standing ? String(standing.of) : "";

  const box = $("#standings-chart");
  const note = $("#standings-note");
  if (!bins.length) {
    box.replaceChildren();
    note.textContent = "Nobody is on this deal's board yet.";
    return;
  }
  const first = bins[0].from_ms;
  const last = bins[bins.length - 1].to_ms;
  const width = bins[0].to_ms - bins[0].from_ms;
  const mine = binOf(bins, ms);
  const most = Math.max(1, ...bins.map((bin) => bin.count));
  const span = (bin) => `${formatTime(bin.from_ms)} to ${formatTime(bin.to_ms)}`;
  let label = `Winning times on ${title}: ${plural(winners, "winner")}, from ${formatTime(first)}`
    + ` to ${formatTime(last)}, in ${plural(bins.length, "bar")}.`
    + ` ${who}, ${formatTime(ms)}, is marked`;
  label += mine >= 0
    ? `, in the bar of ${span(bins[mine])} (${plural(bins[mine].count, "winner")}).`
    : ", outside the board's times.";
  if (standing) label += ` Rank ${standing.rank} of ${standing.of}.`;
  barChart(box, {
    chart: "standings",
    label,
    height: 170,
    domain: [Math.min(first, ms), Math.max(last, ms + 1, first + MIN_BINS * width)],
    bars: bins.map((bin, i) => ({
      from: bin.from_ms,
      to: bin.to_ms,
      value: bin.count,
      className: i === mine ? "mine" : "",
      data: {
        fromMs: bin.from_ms, toMs: bin.to_ms, count: bin.count, ...(i === mine ? { mine: "true" } : {}),
      },
      title: `${span(bin)}: ${plural(bin.count, "winner")}`,
    })),
    yLabels: [{ at: 0, text: "0" }, { at: most, text: String(most) }],
    xLabels: [...bins.map((bin) => ({ at: bin.from_ms, text: formatTime(bin.from_ms) })),
      { at: last, text: formatTime(last) }],
    marks: [{
      at: ms, text: `${own ? "You" : "This game"}: ${formatTime(ms)}`, data: { mark: "mine", ms },
    }],
  });
  note.textContent = "Each bar counts the winners whose time falls in its span, the fastest"
    + " on the left; the highest bar holds " + plural(most, "winner") + ".";
}
