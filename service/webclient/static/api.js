// The service's HTTP API, as any client would call it (see /openapi.yaml).

/** What a request that got no answer at all says (no network, or the server down). */
export const UNREACHABLE = "The server cannot be reached: check the connection.";

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem || {};
    this.detail = this.message;
  }

  /** A 404 that means "no such route on this server" rather than "no such game":
   * the endpoint is not there (yet), so the page hides what depends on it. */
  get routeMissing() {
    if (this.status !== 404) return false;
    const type = this.problem.type || "";
    return type === "" || type.endsWith("/404");
  }
}

export function randomKey() {
  if (globalThis.crypto?.randomUUID) return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

const ASK_AGAIN_MS = 3000; // while the server cannot be reached, it is asked this often
const KEPT_MAX = 200; // answers kept for If-None-Match, at most this many
const KEPT_CHARS = 4_000_000; // and this much text in all

export class Api {
  constructor() {
    this.token = null;
    this.clockOffset = 0; // server clock minus this device's, from the Date header
    this.kept = new Map(); // GET address (and token) -> {etag, text}: the last 200 with an ETag
    this.keptChars = 0;
    this.onSignedOut = null; // called when a request made with the token is refused (401)
    this.onReached = null; // called when the server answers again after a request got nothing
    this.unreachable = false; // since a request got no answer, until one does
    this.askTimer = null;
    this.variantsAsked = null; // the games, asked once (variants())
  }

  /** What a GET answered last time, kept by address and by the token it was asked with
   * (an answer "around me" differs from one player to the next). */
  keptKey(path, auth) {
    return auth && this.token ? `${path} ${this.token}` : path;
  }

  keep(key, etag, text) {
    this.forget(key); // the newest last: the oldest goes first when there are too many
    if (text.length > KEPT_CHARS / 4) return;
    this.kept.set(key, { etag, text });
    this.keptChars += text.length;
    while (this.kept.size > KEPT_MAX || this.keptChars > KEPT_CHARS) {
      this.forget(this.kept.keys().next().value);
    }
  }

  forget(key) {
    const old = this.kept.get(key);
    if (!old) return;
    this.keptChars -= old.text.length;
    this.kept.delete(key);
  }

  async request(method, path, { body, auth = false, key = false } = {}) {
    const headers = { Accept: "application/json" };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    const withToken = Boolean(auth && this.token);
    if (withToken) headers.Authorization = `Bearer ${this.token}`;
    if (key) headers["Idempotency-Key"] = typeof key === "string" ? key : randomKey();
    const keptKey = method === "GET" ? this.keptKey(path, withToken) : null;
    const kept = keptKey ? this.kept.get(keptKey) : undefined;
    if (kept) headers["If-None-Match"] = kept.etag;
    let response;
    try {
      response = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        cache: "no-store",
      });
    } catch {
      this.lost();
      throw new ApiError(0, { detail: UNREACHABLE });
    }
    if (this.unreachable) this.reached();
    const date = response.headers.get("Date");
    if (date) {
      const offset = Date.parse(date) + 500 - Date.now(); // the header drops milliseconds
      if (Number.isFinite(offset)) this.clockOffset = offset;
    }
    let text = await response.text();
    if (response.status === 304 && kept) {
      text = kept.text; // unchanged since: the body kept (parsed again, so never shared)
      this.keep(keptKey, kept.etag, text);
    } else if (keptKey && response.ok) {
      const etag = response.headers.get("ETag");
      if (etag) this.keep(keptKey, etag, text);
      else this.forget(keptKey);
    }
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch {
        data = null;
      }
    }
    if (!response.ok && response.status !== 304) {
      if (response.status === 401 && withToken && this.onSignedOut) this.onSignedOut();
      const error = new ApiError(response.status, data);
      error.retryAfter = Number(response.headers.get("Retry-After")) || null;
      throw error;
    }
    return data;
  }

  /** A request got no answer: until one does, the server is asked every few seconds (and
   * at once when the device says it is online again), so that the page can say it is back
   * without waiting for the player's next tap. */
  lost() {
    if (this.unreachable) return;
    this.unreachable = true;
    const ask = () => {
      clearTimeout(this.askTimer);
      if (!this.unreachable) return;
      fetch("/healthz", { cache: "no-store" }).then(
        () => { if (this.unreachable) this.reached(); },
        () => { this.askTimer = setTimeout(ask, ASK_AGAIN_MS); },
      );
    };
    this.askAgain = ask;
    globalThis.addEventListener?.("online", ask);
    this.askTimer = setTimeout(ask, ASK_AGAIN_MS);
  }

  reached() {
    this.unreachable = false;
    clearTimeout(this.askTimer);
    globalThis.removeEventListener?.("online", this.askAgain);
    this.onReached?.();
  }

  get(path, options) {
    return this.request("GET", path, options);
  }

  post(path, body, options = {}) {
    return this.request("POST", path, { ...options, body });
  }

  put(path, options = {}) {
    return this.request("PUT", path, options);
  }

  delete(path, options = {}) {
    return this.request("DELETE", path, options);
  }

  // ------------------------------------------------------------ the endpoints

  /** A new player: {id, name, token, created_at}. Tried again with the same name after no
   * answer (or a 503), it sends the same Idempotency-Key, so it gets the player that the
   * first try may have made, not a "name taken". */
  async createPlayer(name) {
    if (this.playerKey?.name !== name) this.playerKey = { name, key: randomKey() };
    const player = await this.post("/v1/players", { name }, { key: this.playerKey.key });
    this.playerKey = null;
    return player;
  }

  player(id) {
    return this.get(`/v1/players/${id}`);
  }

  /** A new game: of `deal`, else a random solvable deal (of `grade` when given). */
  createGame(variant, deal, autoplay, grade = null) {
    const body = { variant, autoplay };
    if (deal !== null && deal !== undefined) body.deal = deal;
    else if (grade) body.grade = grade;
    return this.post("/v1/games", body, { auth: true, key: true });
  }

  game(id) {
    return this.get(`/v1/games/${id}`);
  }

  legalMoves(id) {
    return this.get(`/v1/games/${id}/legal-moves`);
  }

  /** The games as the service's rules describe them, by id (GET /v1/variants): asked
   * once, again after a failure. */
  variants() {
    this.variantsAsked ??= this.get("/v1/variants").then(
      (answer) => Object.fromEntries(answer.variants.map((v) => [v.id, v])),
      (error) => {
        this.variantsAsked = null;
        throw error;
      },
    );
    return this.variantsAsked;
  }

  move(id, body) {
    return this.post(`/v1/games/${id}/moves`, body, { auth: true, key: true });
  }

  /** Several moves, all or none: a refusal (422) names the first bad one's `index`. */
  moves(id, moves, version) {
    return this.post(`/v1/games/${id}/moves`, { moves, expected_version: version },
      { auth: true, key: true });
  }

  undo(id, version) {
    return this.post(`/v1/games/${id}/undo`, { expected_version: version }, { auth: true, key: true });
  }

  redo(id, version) {
    return this.post(`/v1/games/${id}/redo`, { expected_version: version }, { auth: true, key: true });
  }

  /** Gives the game up (it counts as lost; a race's player is out of the race). */
  abandon(id, version) {
    return this.post(`/v1/games/${id}/abandon`, { expected_version: version },
      { auth: true, key: true });
  }

  /** A hint is part of the game's record: asking for one is a write (the owner's). */
  hint(id) {
    return this.post(`/v1/games/${id}/hint`, {}, { auth: true, key: true });
  }

  /** The hint as a reader sees it, recording nothing: for a game that is over (a server
   * from before hints were written answers it for a game in play too). */
  hintAfter(id) {
    return this.get(`/v1/games/${id}/hint`);
  }

  events(id, after, limit = null) {
    const more = limit ? `&limit=${limit}` : "";
    return this.get(`/v1/games/${id}/events?after=${after}${more}`);
  }

  /** A game's whole log, oldest first, read page by page (`next`, or a short page, says
   * when it is all there); `onPage(eventsSoFar)` follows the reading. */
  async log(id, { limit = 1000, max = 20000, onPage = null } = {}) {
    const events = [];
    let after = 0;
    for (;;) {
      const page = await this.events(id, after, limit);
      const batch = page.events || [];
      events.push(...batch);
      if (onPage) onPage(events.length);
      const last = batch.length ? batch[batch.length - 1].seq : after;
      let next = null;
      if (page.next !== undefined) next = page.next;
      else if (batch.length >= limit) next = last;
      if (next === null || next <= after || !batch.length || events.length >= max) break;
      after = next;
    }
    return events;
  }

  deal(variant, deal) {
    return this.get(`/v1/deals/${variant}/${deal}`);
  }

  daily(variant, grade = null) {
    return this.get(`/v1/daily/${variant}${grade ? `?grade=${grade}` : ""}`);
  }

  /** A deal's board; `assisted`: hinted wins too (each entry says `assisted`, and
   * `verified` false for a win played faster than a hand plays); `friends`: only the
   * player and those they follow. */
  leaderboard(variant, deal,
    { aroundMe = false, limit = 10, assisted = false, friends = false } = {}) {
    let q = aroundMe ? `?around=me&limit=${limit}` : `?limit=${limit}`;
    if (assisted) q += "&assisted=true";
    if (friends) q += "&friends=true"; // the player and those they follow (a token)
    return this.get(`/v1/leaderboards/${variant}/${deal}${q}`, { auth: aroundMe || friends });
  }

  /** The default board's winning times in bins: {winners, bins: [{from_ms, to_ms, count}]}. */
  winningTimes(variant, deal) {
    return this.get(`/v1/leaderboards/${variant}/${deal}/times`);
  }

  // ------------------------------------------------------------ a player's story, friends

  /** {player, games: {variant: {played, won, …}}, recent: [{game_id, variant, …}]}. */
  stats(id) {
    return this.get(`/v1/players/${encodeURIComponent(id)}/stats`);
  }

  /** The players this player follows: {friends: [{id, name}]}. */
  friends() {
    return this.get("/v1/players/me/friends", { auth: true });
  }

  follow(id) {
    return this.put(`/v1/players/me/friends/${encodeURIComponent(id)}`, { auth: true });
  }

  unfollow(id) {
    return this.delete(`/v1/players/me/friends/${encodeURIComponent(id)}`, { auth: true });
  }

  // ------------------------------------------------------------ races

  /** A race of one deal for several players (its creator joined): `deal` null, a random
   * deal drawn at the start. */
  createRace(variant, deal, startsInS) {
    const body = { variant, starts_in_s: startsInS };
    if (deal !== null && deal !== undefined) body.deal = deal;
    return this.post("/v1/races", body, { auth: true, key: true });
  }

  race(id) {
    return this.get(`/v1/races/${id}`);
  }

  joinRace(id) {
    return this.post(`/v1/races/${id}/join`, {}, { auth: true, key: true });
  }

  // ------------------------------------------------------------ devices

  /** This player's devices: [{id, device, created_at, last_used_at, current}]. */
  tokens() {
    return this.get("/v1/players/me/tokens", { auth: true });
  }

  revokeToken(id) {
    return this.delete(`/v1/players/me/tokens/${id}`, { auth: true });
  }

  /** A code another device signs in with: {code, expires_at}. */
  linkCode() {
    return this.post("/v1/players/me/link-codes", {}, { auth: true });
  }

  /** Signs this device in with another device's code: {player, id, device, token}. */
  redeemCode(code, device) {
    return this.post("/v1/tokens", { code, device });
  }
}
