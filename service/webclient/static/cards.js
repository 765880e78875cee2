// Cards and piles as text (RULES.md: "TH" is the ten of hearts) and in words.

const RANK_OF = { A: 1, T: 10, J: 11, Q: 12, K: 13 };
const RANK_TEXT = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"];
const RANK_SHOWN = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const RANK_WORDS = [
  "", "ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
  "jack", "queen", "king",
];
export const SUITS = ["S", "H", "D", "C"];
const SUIT_WORDS = { S: "spades", H: "hearts", D: "diamonds", C: "clubs" };
export const SUIT_SYMBOLS = { S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663" };

export const TITLES = {
  freecell: "FreeCell",
  bakers_game: "Baker's Game",
  bakers_dozen: "Baker's Dozen",
  beleaguered_castle: "Beleaguered Castle",
};

export function rankOf(text) {
  const r = text[0];
  return RANK_OF[r] ?? Number(r);
}

export function suitOf(text) {
  return text[text.length - 1];
}

export function cardText(rank, suit) {
  return RANK_TEXT[rank] + suit;
}

export function isRed(text) {
  const s = suitOf(text);
  return s === "H" || s === "D";
}

/** "seven of hearts" */
export function cardName(text) {
  return `${RANK_WORDS[rankOf(text)]} of ${SUIT_WORDS[suitOf(text)]}`;
}

export function rankShown(text) {
  return RANK_SHOWN[rankOf(text)];
}

export function suitWord(suit) {
  return SUIT_WORDS[suit];
}

/** "column 3", "row 3" (Beleaguered Castle), "cell 2", "the foundations" */
export function pileName(pile, variant) {
  if (pile === "f") return "the foundations";
  if (pile === "c") return "a free cell";
  const n = pile.slice(1);
  if (pile[0] === "c") return `cell ${n}`;
  return `${variant === "beleaguered_castle" ? "row" : "column"} ${n}`;
}

/** The rules of each game in a few lines (from the seeds, RULES.md). */
export const RULES = {
  freecell: [
    "Eight columns, four cells, four foundations built up by suit from the ace to the king.",
    "Columns build down in alternating colours: a red 7 goes on a black 8.",
    "A cell holds one card. An empty column takes any card.",
    "A run moves at once when there is room to move it card by card: (free cells + 1) × 2^(empty columns) cards.",
  ],
  bakers_game: [
    "FreeCell's layout, but columns build down in suit: 7♥ only on 8♥.",
    "A cell holds one card taken from a column. An empty column takes any card.",
    "One card per move.",
  ],
  bakers_dozen: [
    "Thirteen columns of four cards, kings at the bottom. No cells.",
    "A card goes on any card one rank higher, whatever its suit.",
    "One card per move. An empty column stays empty.",
  ],
  beleaguered_castle: [
    "The aces start on the foundations; eight rows of six cards, four on each side.",
    "Only the outer card of a row moves. It goes on any card one rank higher.",
    "One card per move. An empty row takes any card.",
  ],
};
