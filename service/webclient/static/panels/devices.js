// This player's devices (API.md: devices, tokens and linking a second device): the side
// panel lists them with a button to sign each out and gives a code to link another
// device; the welcome's form signs this device in with such a code. A request refused
// for its token (401) signs this device out.

import { ApiError } from "../api.js";
import { $, api, app, background, enqueue, say } from "../app.js";
import { signIn, signOut } from "../player.js";
import { nameIn } from "../format.js";

const POLL_MS = 4000; // while a link code is shown: the new device appears in the list

let hooks = { showWelcome: () => {}, refreshRecord: async () => {} };
let poll = null; // {timer, until, count}: the list read again while a code is good

function when(text) {
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) return String(text);
  return date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function stopPoll() {
  if (poll) clearInterval(poll.timer);
  poll = null;
}

function deviceLine(token) {
  const item = document.createElement("li");
  item.dataset.tokenId = token.id;
  item.dataset.current = String(Boolean(token.current));
  const name = document.createElement("strong");
  name.textContent = token.device;
  const details = document.createElement("span");
  details.className = "details";
  let used = when(token.last_used_at);
  if (!token.last_used_at) used = token.current ? "now" : "not yet";
  details.textContent = `added ${when(token.created_at)}, last used ${used}`;
  const button = document.createElement("button");
  button.type = "button";
  button.dataset.revoke = token.id;
  button.textContent = token.current ? "Sign out" : "Remove";
  button.setAttribute("aria-label", token.current
    ? `Sign out this device (${token.device})` : `Remove ${token.device}: sign it out`);
  const head = document.createElement("span");
  head.className = "device-name";
  head.append(name);
  if (token.current) {
    const tag = document.createElement("span");
    tag.className = "tag this-device";
    tag.textContent = "this device";
    head.append(" ", tag);
  }
  item.append(head, details, button);
  return item;
}

/** Lists this player's devices (the panel hides with no player, or a server without). */
export async function refreshDevices() {
  const panel = $("#devices-panel");
  if (!app.player) {
    stopPoll();
    panel.hidden = true;
    return;
  }
  let answer;
  try {
    answer = await api.tokens();
  } catch (error) {
    if (error instanceof ApiError && (error.routeMissing || error.status === 401)) {
      panel.hidden = true;
      return;
    }
    throw error;
  }
  const tokens = answer.tokens || [];
  $("#devices").replaceChildren(...tokens.map(deviceLine));
  panel.dataset.count = String(tokens.length);
  panel.hidden = false;
  if (poll && tokens.length > poll.count) {
    stopPoll();
    $("#link-code-line").hidden = true;
    $("#devices-message").textContent = "The other device is signed in: it is listed above.";
  }
}

/** Signs this device out here: forgets its player and says so (the welcome shows when
 * `welcome`, or when no game is shown). */
function signedOut(welcome) {
  if (!app.player) return;
  stopPoll();
  signOut();
  $("#devices-panel").hidden = true;
  const text = "This device is signed out. Enter a link code from your other device to "
    + "sign in again, or pick a game to play as a new player.";
  $("#link-message").textContent = text;
  $("#link-message").classList.remove("error");
  say(text, "error");
  if (welcome || !app.game) hooks.showWelcome();
}

async function revoke(id) {
  const current = $(`#devices li[data-token-id="${id}"]`)?.dataset.current === "true";
  try {
    await api.revokeToken(id);
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
  }
  if (current) {
    signedOut(true);
    return;
  }
  $("#devices-message").textContent = "That device is signed out.";
  await refreshDevices();
}

async function linkCode() {
  const answer = await api.linkCode();
  const until = new Date(answer.expires_at);
  $("#link-code").textContent = answer.code;
  $("#link-expiry").textContent = Number.isNaN(until.getTime()) ? String(answer.expires_at)
    : until.toLocaleTimeString([], { timeStyle: "short" });
  $("#link-expiry").dateTime = String(answer.expires_at);
  $("#link-code-line").hidden = false;
  $("#devices-message").textContent = "";
  stopPoll();
  const count = Number($("#devices-panel").dataset.count || 0);
  const timer = setInterval(() => {
    if (!poll || Date.now() > poll.until) {
      stopPoll();
      $("#link-code-line").hidden = true;
      return;
    }
    background(refreshDevices);
  }, POLL_MS);
  poll = { timer, until: until.getTime() || Date.now() + 600000, count };
}

/** The welcome's form: this device signs in as the player whose code it is given. */
async function redeem() {
  const line = $("#link-message");
  const code = $("#link-code-input").value.trim();
  const device = $("#link-device").value.trim() || "Web browser";
  line.classList.remove("error");
  line.textContent = "Signing in…";
  let answer;
  try {
    answer = await api.redeemCode(code, device);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    line.classList.add("error");
    if (error.status === 422) {
      line.textContent = "Wrong or expired code: ask your other device for a new one.";
    } else if (error.status === 429) {
      const wait = error.retryAfter ? `${error.retryAfter} seconds` : "a minute";
      line.textContent = `Too many tries from here: try again in ${wait}.`;
    } else {
      line.textContent = error.detail;
    }
    return;
  }
  signIn({ id: answer.player.id, name: answer.player.name, token: answer.token });
  $("#link-code-input").value = "";
  line.replaceChildren("Signed in as ", nameIn(document.createElement("span"), answer.player.name),
    " on this device (", nameIn(document.createElement("span"), answer.device), ").");
  background(refreshDevices);
  background(hooks.refreshRecord);
}

/** Wires the panel and the welcome's form; `showWelcome` and `refreshRecord` come from
 * the modules that own them. */
export function wireDevices(given) {
  hooks = { ...hooks, ...given };
  api.onSignedOut = () => signedOut(false);
  $("#devices").addEventListener("click", (event) => {
    const id = event.target.closest("button[data-revoke]")?.dataset.revoke;
    if (id) enqueue(() => revoke(id));
  });
  $("#link-device-button").addEventListener("click", () => enqueue(linkCode));
  $("#link-form").addEventListener("submit", (event) => {
    event.preventDefault();
    enqueue(redeem);
  });
  if (!$("#link-device").value) {
    const ua = navigator.userAgent;
    const os = ["Android", "iPhone", "iPad", "Windows", "Mac", "Linux"].find((n) => ua.includes(n));
    $("#link-device").value = os ? `Browser on ${os}` : "Web browser";
  }
}
