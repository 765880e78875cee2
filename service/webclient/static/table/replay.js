// `/?replay={game_id}`: a game's log replayed from its first event, read-only (no token):
// play, pause, step back and forward, to the start or the end, a slider, and the speed.
// The log is read page by page from /v1/games/{id}/events, the opening layout from
// /v1/deals/{variant}/{deal}; timeline.js rebuilds each step. The table, the fields
// (status, moves, time, foundation_cards) and the markup are the game view's; the step
// shown is in data-field="step" (of "steps"), and on #table as data-step and data-seq.

import { ApiError } from "../api.js";
import { motionMs, render } from "./board.js";
import { TITLES } from "../cards.js";
import { formatTime } from "../format.js";
import { Timeline } from "./timeline.js";

const MAX_STEPS_A_TICK = 12; // at the fastest speed: steps applied between two drawings
const TOLD_MS = 400; // played faster than this a step, the steps are told only at a pause
const $ = (selector) => document.querySelector(selector);

/** The time between two steps at the speed chosen ("max": none). */
function speedMs(value) {
  if (value === "max") return 0;
  const perSecond = Number(value);
  return perSecond > 0 ? Math.round(1000 / perSecond) : 500;
}

export class Replay {
  /**
   * @param {object} api the page's Api
   * @param {{boards: object, say: Function, player: () => object|null}} hooks the board
   *   panel, the page's message line and the page's player (to mark their entry)
   */
  constructor(api, { boards, say, player }) {
    this.api = api;
    this.boards = boards;
    this.say = say;
    this.player = player;
    this.active = false;
    this.reset();
    this.wire();
  }

  reset() {
    clearTimeout(this.timer);
    this.timer = null;
    this.playing = false;
    this.id = null;
    this.variant = null;
    this.deal = null;
    this.game = null; // the game as the server has it now, for its final status
    this.timeline = null;
    this.frame = null; // the layout and counts after this.step (never a checkpoint itself)
    this.step = 0;
  }

  get last() {
    return this.timeline ? this.timeline.last : 0;
  }

  // ---------------------------------------------------------------- opening a replay

  /** Reads the log of game `id` and shows its step 0. False when there is no such game. */
  async open(id) {
    this.close();
    this.active = true;
    this.id = id;
    document.body.dataset.mode = "replay";
    $("#replay-controls").dataset.state = "loading";
    this.say("Reading the game's log…");
    const reading = (n) => {
      if (this.id === id && n) this.say(`Reading the game's log… ${n} events`);
    };
    let events;
    let game;
    try {
      [events, game] = await Promise.all([
        this.api.log(id, { onPage: reading }),
        this.api.game(id).catch(() => null),
      ]);
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 400)) {
        this.close();
        return false;
      }
      throw error;
    }
    if (this.id !== id) return true; // another address was opened meanwhile
    const first = events[0];
    if (!first || first.type !== "GameCreated") {
      throw new ApiError(0, { detail: "this game's log does not start with its creation" });
    }
    const { variant, deal } = first.data;
    const dealt = await this.api.deal(variant, deal);
    if (this.id !== id) return true;
    this.variant = variant;
    this.deal = deal;
    this.game = game;
    this.timeline = new Timeline(events, dealt.state, variant);
    this.showHeader();
    this.seek(0);
    const count = this.last;
    this.say(`${TITLES[variant] || variant} deal ${deal}: ${count} step${count === 1 ? "" : "s"}`
      + " to replay. Press Play, or step forward with \u2192.");
    if (this.timeline.broken) this.say(this.timeline.broken, "error");
    this.boards.show({ variant, deal, player: this.player(), gameId: id })
      .catch((error) => console.warn("could not show the board:", error.message));
    return true;
  }

  close() {
    if (!this.active) return;
    this.active = false;
    this.reset();
    $("#replay-controls").hidden = true;
    $("#assisted").hidden = true;
  }

  // ---------------------------------------------------------------- moving in the log

  seek(k, { animate = false } = {}) {
    const target = Math.max(0, Math.min(this.last, k));
    const single = Math.abs(target - this.step) === 1;
    if (this.frame && target === this.step + 1) {
      this.timeline.forward(this.frame, target);
    } else if (!this.frame || target !== this.step) {
      this.frame = this.timeline.frameAt(target);
    }
    this.step = target;
    const ms = animate && single ? motionMs(Math.min(180, Math.round(this.interval() * 0.8))) : 0;
    this.draw(ms);
  }

  interval() {
    return speedMs($("#replay-speed").value);
  }

  forward() {
    this.pause();
    this.seek(this.step + 1, { animate: true });
  }

  back() {
    this.pause();
    this.seek(this.step - 1, { animate: true });
  }

  toStart() {
    this.pause();
    this.seek(0);
  }

  toEnd() {
    this.pause();
    this.seek(this.last);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    if (!this.active || !this.frame || this.playing) return;
    if (this.step >= this.last) this.seek(0); // from the start again
    this.playing = true;
    this.updateControls();
    // too fast to tell each step: the line says so, and the step reached at the pause
    if (this.interval() < TOLD_MS) this.say("Playing…");
    this.schedule();
  }

  pause() {
    clearTimeout(this.timer);
    this.timer = null;
    if (!this.playing) return;
    this.playing = false;
    this.updateControls();
    this.tell();
  }

  schedule() {
    clearTimeout(this.timer);
    const interval = this.interval();
    // the cards that go up by themselves follow one another faster
    const auto = this.step < this.last && this.timeline.eventOf(this.step + 1).data?.auto;
    const ms = interval && auto ? Math.round(interval / 2) : interval;
    this.timer = setTimeout(() => this.tick(), ms);
  }

  tick() {
    if (!this.playing) return;
    if (this.interval() === 0) {
      // the fastest speed: several steps between two drawings
      const to = Math.min(this.last, this.step + MAX_STEPS_A_TICK);
      while (this.step < to) {
        this.step += 1;
        this.timeline.forward(this.frame, this.step);
      }
      this.draw(0);
    } else {
      this.seek(this.step + 1, { animate: true });
    }
    if (this.step >= this.last) this.pause(); // which says what the last step did
    else this.schedule();
  }

  // ---------------------------------------------------------------- showing it

  showHeader() {
    const title = TITLES[this.variant] || this.variant;
    document.title = `Replay: ${title} deal ${this.deal} · Open Solitaire`;
    $("#welcome").hidden = true;
    $("#game").hidden = false;
    $("#actions").hidden = true;
    $("#banner").hidden = true;
    $("#replay-controls").hidden = false;
    $('[data-field="title"]').textContent = title;
    $('[data-field="deal"]').textContent = String(this.deal);
    $('[data-field="rules-title"]').textContent = title;
    $("#share-link").href = `/?variant=${this.variant}&deal=${this.deal}`;
    $("#share-link").textContent = `Play deal ${this.deal}`;
    $("#watch-link").href = `/?game=${this.id}`;
    $("#watch-link").textContent = this.game?.status === "playing"
      ? "Watch this game live" : "Open this game";
    $("#replay-line").hidden = true;
    $("#mode-note").textContent = "· replay";
    $("#variant").value = this.variant;
    $("#replay-position").max = String(this.last);
    $('[data-field="steps"]').textContent = String(this.last);
  }

  /** The status shown: the log's, except that a game left with no legal move says so at
   * its last step (only the server's view of the game tells). */
  status() {
    if (this.step === this.last && this.game?.status === "blocked") return "blocked";
    return this.frame.status;
  }

  draw(animateMs) {
    const { frame, step, timeline } = this;
    const table = $("#table");
    render(table, frame.state, this.variant, timeline.marks(step, frame), animateMs);
    table.dataset.step = String(step);
    table.dataset.seq = String(frame.seq);
    const up = Object.values(frame.state.foundations).reduce((sum, rank) => sum + rank, 0);
    $('[data-field="foundation_cards"]').textContent = String(up);
    $('[data-field="status"]').textContent = this.status();
    $('[data-field="moves"]').textContent = String(frame.moves);
    $('[data-field="time"]').textContent = formatTime(
      Date.parse(frame.at) - Date.parse(timeline.startedAt),
    );
    $('[data-field="step"]').textContent = String(step);
    $("#replay-position").value = String(step);
    const assisted = $("#assisted");
    assisted.hidden = frame.hints === 0;
    assisted.title = `${frame.hints} hint${frame.hints === 1 ? "" : "s"} asked for so far`;
    this.updateControls();
    if (!this.playing || this.interval() >= TOLD_MS) this.tell();
  }

  /** Says what the step shown did (in the message line, which screen readers read). */
  tell() {
    this.say(this.timeline.describe(this.step, this.frame));
  }

  updateControls() {
    const atStart = this.step <= 0;
    const atEnd = this.step >= this.last;
    $("#replay-start").disabled = atStart;
    $("#replay-back").disabled = atStart;
    $("#replay-forward").disabled = atEnd;
    $("#replay-end").disabled = atEnd;
    const play = $("#replay-play");
    play.textContent = this.playing ? "Pause" : atEnd && this.last > 0 ? "Play again" : "Play";
    play.setAttribute("aria-pressed", String(this.playing));
    play.disabled = this.last === 0;
    $("#replay-controls").dataset.state = this.playing ? "playing" : atEnd ? "ended" : "paused";
  }

  // ---------------------------------------------------------------- controls

  wire() {
    $("#replay-start").addEventListener("click", () => this.toStart());
    $("#replay-back").addEventListener("click", () => this.back());
    $("#replay-play").addEventListener("click", () => this.toggle());
    $("#replay-forward").addEventListener("click", () => this.forward());
    $("#replay-end").addEventListener("click", () => this.toEnd());
    $("#replay-speed").addEventListener("change", () => {
      if (!this.playing) return;
      if (this.interval() < TOLD_MS) this.say("Playing…");
      this.schedule();
    });
    $("#replay-position").addEventListener("input", (event) => {
      this.pause();
      this.seek(Number(event.target.value));
    });
    document.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** → and ← step, Home and End jump, Space plays or pauses. */
  onKey(event) {
    if (!this.active || !this.frame) return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.target.closest?.("input, select, textarea")) return;
    const onButton = event.target.closest?.("button, a");
    const actions = {
      ArrowRight: () => this.forward(),
      ArrowLeft: () => this.back(),
      Home: () => this.toStart(),
      End: () => this.toEnd(),
      " ": onButton ? null : () => this.toggle(),
    };
    const action = actions[event.key];
    if (!action) return;
    event.preventDefault();
    action();
  }
}
