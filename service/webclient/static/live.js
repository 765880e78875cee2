// Follows a game's events live: the WebSocket stream GET /v1/games/{id}/stream?after=N,
// reconnecting with the last seq seen (so nothing is missed), or, where the server has no
// stream, reading /events?after=N every so often. A race's stream (`path`) is read the
// same way.

const MAX_BACKOFF_MS = 8000;
const POLL_MS = 1500;

export class LiveFeed {
  /**
   * @param {string} gameId
   * @param {number} after the last seq the page has
   * @param {(event: object) => void} onEvent called once per event, in seq order
   * @param {(mode: string) => void} onMode "connecting" | "live" | "polling" | "offline"
   * @param {{poll: boolean, api: object, path: string}} options poll: read /events when
   *   there is no stream; path: another stream than the game's (a race's)
   */
  constructor(gameId, after, onEvent, onMode, { poll = true, api = null, path = null } = {}) {
    this.gameId = gameId;
    this.path = path || `/v1/games/${gameId}/stream`;
    this.after = after;
    this.onEvent = onEvent;
    this.onMode = onMode;
    this.poll = poll;
    this.api = api;
    this.socket = null;
    this.stopped = false;
    this.failures = 0;
    this.everOpened = false;
    this.timer = null;
    this.mode = "connecting";
  }

  start() {
    this.connect();
    return this;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.socket) {
      this.socket.onclose = null;
      this.socket.close();
      this.socket = null;
    }
  }

  /** The page got events another way (its own move): don't hand them out again. */
  seen(seq) {
    if (seq > this.after) this.after = seq;
  }

  setMode(mode) {
    if (mode !== this.mode) {
      this.mode = mode;
      this.onMode(mode);
    }
  }

  deliver(event) {
    if (typeof event.seq !== "number" || event.seq <= this.after) return;
    this.after = event.seq;
    this.onEvent(event);
  }

  connect() {
    if (this.stopped) return;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const url = `${scheme}//${location.host}${this.path}?after=${this.after}`;
    let opened = false;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      this.retry(false);
      return;
    }
    this.socket = socket;
    socket.onopen = () => {
      opened = true;
      this.everOpened = true;
      this.failures = 0;
      this.setMode("live");
    };
    socket.onmessage = (message) => {
      let event;
      try {
        event = JSON.parse(message.data);
      } catch {
        return;
      }
      if (event.type === "reconnect") {
        // the server is about to close: come back from the last seq it sent
        if (typeof event.after === "number" && event.after > this.after) this.after = event.after;
        return;
      }
      this.deliver(event);
    };
    socket.onclose = () => {
      this.socket = null;
      this.retry(opened);
    };
  }

  retry(wasOpen) {
    if (this.stopped) return;
    this.failures += 1;
    if (!this.everOpened && this.failures >= 2) {
      // no stream on this server: read the log instead
      if (this.poll) this.startPolling();
      else this.setMode("offline");
      return;
    }
    this.setMode("connecting");
    const delay = wasOpen ? 200 : Math.min(MAX_BACKOFF_MS, 250 * 2 ** this.failures);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  startPolling() {
    this.setMode("polling");
    const tick = async () => {
      if (this.stopped) return;
      try {
        const answer = await this.api.events(this.gameId, this.after);
        for (const event of answer.events || []) this.deliver(event);
      } catch {
        // try again on the next tick
      }
      if (!this.stopped) this.timer = setTimeout(tick, POLL_MS);
    };
    tick();
  }
}
