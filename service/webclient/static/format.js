// Small words and numbers the page shows in several places.

export const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** "3:07", "1:02:07" */
export function formatTime(ms) {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = String(total % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${s}` : `${m}:${s}`;
}

/**
 * A player's name in a sentence or an attribute, isolated from the words around it
 * (U+2068 FIRST STRONG ISOLATE ... U+2069): a name in Hebrew or Arabic is drawn as it is
 * alone, whatever comes before or after it, as the service compares names.
 */
export const isolated = (name) => `\u2068${name}\u2069`;

/**
 * An element that shows a player's name, isolated from what surrounds it and in the
 * direction of its first letter (dir="auto", as <bdi>): see isolated.
 */
export function nameIn(node, name) {
  node.dir = "auto";
  node.textContent = name;
  return node;
}

/** A small word beside a name: "hinted", "unverified" (style.css: .tag) */
export function tag(text, title, kind) {
  const node = document.createElement("span");
  node.className = `tag ${kind}`;
  node.textContent = text;
  node.title = title;
  node.dataset.tag = kind;
  return node;
}
