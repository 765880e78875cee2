// A game's log as a replay sees it: the opening layout, then one step an event (the event
// that says the game is won ends the step of the winning move), each step rebuilt here
// from the events (engine/game.py names them). Going back goes forward again from the
// nearest checkpoint, kept every CHECKPOINT_EVERY steps: memory stays in proportion to the
// log (at most MAX_GAME_EVENTS events) whatever is visited. No DOM here.

import { cardName, pileName } from "../cards.js";
import { capital } from "../format.js";
import { applyMove, cloneState, firstEmptyCell, pileCards, reverseMove } from "../state.js";

const CHECKPOINT_EVERY = 64;

/** The position after a step: the layout and what the game view shows beside it. */
function openingFrame(state, first) {
  return {
    state: cloneState(state),
    moves: 0, // player moves in the current line of play
    undos: 0,
    hints: 0,
    status: "playing",
    seq: first.seq,
    at: first.at,
  };
}

function copyFrame(frame) {
  return { ...frame, state: cloneState(frame.state) };
}

/** Applies one event of the log to `frame`. */
function advance(frame, event) {
  const data = event.data || {};
  switch (event.type) {
    case "CardMoved":
      applyMove(frame.state, data);
      if (!data.auto) frame.moves += 1;
      break;
    case "MoveRedone":
      applyMove(frame.state, data);
      frame.moves += 1;
      break;
    case "MoveUndone":
      for (const move of data.moves || []) reverseMove(frame.state, move);
      frame.moves -= 1;
      frame.undos += 1;
      break;
    case "GameWon":
      frame.status = "won";
      break;
    case "GameAbandoned":
      frame.status = "abandoned";
      break;
    case "HintGiven":
      frame.hints += 1; // nothing changes on the board
      break;
    default:
      break; // an event this page does not know changes nothing it shows
  }
  frame.seq = event.seq;
  frame.at = event.at;
}

/** The log cut into steps: [first, last] indexes of events; step 0 is GameCreated. */
function cutSteps(events) {
  const steps = [[0, 0]];
  for (let i = 1; i < events.length; i += 1) {
    const previous = steps[steps.length - 1];
    if (events[i].type === "GameWon" && steps.length > 1 && previous[1] === i - 1) {
      previous[1] = i;
    } else {
      steps.push([i, i]);
    }
  }
  return steps;
}

export class Timeline {
  /**
   * @param {object[]} events the log from its GameCreated event, oldest first
   * @param {object} opening the deal's layout {tableau, cells, foundations}
   * @param {string} variant
   */
  constructor(events, opening, variant) {
    this.events = events;
    this.variant = variant;
    this.broken = null; // why the log cannot be replayed past its last step here
    const steps = cutSteps(events);
    const frame = openingFrame(opening, events[0]);
    this.checkpoints = [copyFrame(frame)];
    for (let s = 1; s < steps.length; s += 1) {
      try {
        this.apply(frame, steps[s]);
      } catch (error) {
        this.broken = `The log cannot be replayed past step ${s - 1} here (${error.message}).`;
        steps.length = s;
        break;
      }
      if (s % CHECKPOINT_EVERY === 0) this.checkpoints.push(copyFrame(frame));
    }
    this.steps = steps;
    events.length = steps[steps.length - 1][1] + 1;
  }

  /** The last step's number (0: the log holds only the game's creation). */
  get last() {
    return this.steps.length - 1;
  }

  get startedAt() {
    return this.events[0].at;
  }

  apply(frame, [first, last]) {
    for (let i = first; i <= last; i += 1) advance(frame, this.events[i]);
  }

  /** Moves `frame` (the one after step k - 1) on to step `k`. */
  forward(frame, k) {
    this.apply(frame, this.steps[k]);
  }

  /** A new frame: the one after step `k`, from the checkpoint before it. */
  frameAt(k) {
    const base = Math.floor(k / CHECKPOINT_EVERY);
    const frame = copyFrame(this.checkpoints[base]);
    for (let s = base * CHECKPOINT_EVERY + 1; s <= k; s += 1) this.forward(frame, s);
    return frame;
  }

  /** The event that makes step `k`. */
  eventOf(k) {
    return this.events[this.steps[k][0]];
  }

  /** The cards to mark after step `k` (`frame`): the card moved, or a hint's card and place. */
  marks(k, frame) {
    if (k === 0) return {};
    const event = this.eventOf(k);
    const data = event.data || {};
    if (event.type === "HintGiven" && data.move) {
      const cards = pileCards(frame.state, data.move.from);
      const pile = data.move.to === "c" ? firstEmptyCell(frame.state) : data.move.to;
      return { hintCard: cards[cards.length - (data.move.count || 1)] || null, hintPile: pile };
    }
    if (event.type === "CardMoved" || event.type === "MoveRedone") {
      return { selected: data.card ? [data.card] : [] };
    }
    return {};
  }

  /** What step `k` did (`frame`: the layout after it), in a sentence. */
  describe(k, frame) {
    if (k === 0) return "The deal as it was dealt.";
    const [first, last] = this.steps[k];
    const event = this.events[first];
    const data = event.data || {};
    const where = (pile) => pileName(pile, this.variant);
    const what = (move) => {
      const who = move.card ? cardName(move.card) : `${move.count || 1} card(s)`;
      const more = (move.count || 1) > 1 ? ` and the ${move.count - 1} on it` : "";
      return `${who}${more}`;
    };
    let text;
    switch (event.type) {
      case "CardMoved":
        text = data.auto ? `${what(data)} goes up to its foundation by itself`
          : `${what(data)} to ${where(data.to)}`;
        break;
      case "MoveRedone":
        text = `played again: ${what(data)} to ${where(data.to)}`;
        break;
      case "MoveUndone": {
        const moves = data.moves || [];
        const own = moves[moves.length - 1]; // the player's move comes last
        const ups = moves.length - 1;
        text = own ? `taken back: ${what(own)} returns to ${where(own.from)}` : "taken back";
        if (ups === 1) text += ", and a card comes down from the foundations";
        else if (ups > 1) text += `, and ${ups} cards come down from the foundations`;
        break;
      }
      case "HintGiven": {
        const m = data.move;
        if (data.verdict === "winnable" && m) {
          const cards = pileCards(frame.state, m.from);
          const card = cards[cards.length - (m.count || 1)];
          const left = data.moves_to_win ? ` (${data.moves_to_win} moves to win)` : "";
          text = `a hint was asked for: ${card ? cardName(card) : m.from} to ${where(m.to)}${left}`;
        } else if (data.verdict === "unwinnable") {
          text = "a hint was asked for: no winning line was left";
        } else {
          text = "a hint was asked for: the search found no line in time";
        }
        break;
      }
      case "GameAbandoned":
        text = "the game was given up";
        break;
      default:
        text = event.type;
    }
    const won = last > first && this.events[last].type === "GameWon";
    return `${capital(text)}.${won ? " The game is won!" : ""}`;
  }
}
