// Charts drawn by hand as SVG, no library: the page has no build step, these take a few dozen lines, and there is nothing to keep up to date.
// One kind, bars on an axis: a deal's winning times in bins (standings.js), a player's
// recent times and wins and losses (story.js). Each chart is drawn at its box's width in
// pixels (its text stays 12px on a phone as on a desktop) and again when that changes.

const SVG = "http://www.w3.org/2000/svg";
const PAD = { left: 46, right: 10, top: 22, bottom: 22 }; // room for the labels

/** An SVG element with `attrs` (null ones left out) and, optionally, its text. */
export function svgNode(tag, attrs = {}, text = null) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, String(value));
  }
  if (text !== null) node.textContent = text;
  return node;
}

const drawn = new WeakMap(); // box -> {spec, width}
const resized = typeof ResizeObserver === "function"
  ? new ResizeObserver((entries) => {
    for (const entry of entries) {
      const seen = drawn.get(entry.target);
      const width = Math.round(entry.contentRect.width);
      if (seen && width > 0 && Math.abs(width - seen.width) >= 2) render(entry.target, seen.spec);
    }
  })
  : null;

/**
 * Draws a bar chart into `box` (replacing what it held) and returns its <svg>.
 * spec: {
 *   chart: its data-chart, label: its accessible name (also its <title>),
 *   height: px (160), domain: [x0, x1] (else 0 .. the number of bars),
 *   bars: [{from, to, value, className, data: {name: value} (data-* attributes), title}],
 *   xLabels: [{at, text, anchor}] (the last always shown, the others where there is
 *   room; anchor: "start" | "middle" | "end", else by the edges), yLabels: [{at, text}]
 *   (at: in the axes' units),
 *   marks: [{at, text, data}] (a line across the chart with its label above it)
 * }
 * A bar runs from 0 to its value: a negative value hangs below the axis.
 */
export function barChart(box, spec) {
  if (resized && !drawn.has(box)) resized.observe(box);
  return render(box, spec);
}

function render(box, spec) {
  const width = Math.max(220, Math.round(box.clientWidth || 480));
  const height = spec.height || 160;
  drawn.set(box, { spec, width });
  const bars = spec.bars || [];
  const [x0, x1] = spec.domain || [0, Math.max(1, bars.length)];
  const values = bars.map((bar) => bar.value);
  const top = Math.max(0, ...values, ...(spec.yLabels || []).map((l) => l.at));
  const bottom = Math.min(0, ...values, ...(spec.yLabels || []).map((l) => l.at));
  const plotW = width - PAD.left - PAD.right;
  const plotH = height - PAD.top - PAD.bottom;
  const x = (v) => PAD.left + ((v - x0) / (x1 - x0 || 1)) * plotW;
  const y = (v) => PAD.top + ((top - v) / (top - bottom || 1)) * plotH;

  const svg = svgNode("svg", {
    width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": spec.label,
    "data-chart": spec.chart, class: "chart-svg",
  });
  svg.append(svgNode("title", {}, spec.label));
  for (const label of spec.yLabels || []) {
    svg.append(svgNode("line", {
      class: "grid", x1: PAD.left, x2: width - PAD.right, y1: y(label.at), y2: y(label.at),
    }));
    svg.append(svgNode("text", {
      class: "axis-label", x: PAD.left - 6, y: y(label.at) + 4, "text-anchor": "end",
    }, label.text));
  }
  for (const bar of bars) {
    const left = x(bar.from);
    const w = Math.max(1, x(bar.to) - left - (plotW / (bars.length || 1) > 6 ? 1 : 0));
    const y0 = y(Math.max(0, bar.value));
    const h = Math.max(bar.value ? 1 : 0, Math.abs(y(bar.value) - y(0))); // never lost
    const rect = svgNode("rect", {
      class: `bar ${bar.className || ""}`.trim(), x: left.toFixed(1), y: y0.toFixed(1),
      width: w.toFixed(1), height: h.toFixed(1),
    });
    for (const [name, value] of Object.entries(bar.data || {})) rect.dataset[name] = String(value);
    if (bar.title) rect.append(svgNode("title", {}, bar.title));
    svg.append(rect);
  }
  svg.append(svgNode("line", {
    class: "axis", x1: PAD.left, x2: width - PAD.right, y1: y(0), y2: y(0),
  }));
  const placed = (spec.xLabels || []).map((label) => {
    const at = x(label.at);
    let anchor = label.anchor || "middle";
    if (!label.anchor && at - PAD.left < 30) anchor = "start";
    else if (!label.anchor && width - PAD.right - at < 30) anchor = "end";
    return { ...label, px: at, anchor };
  });
  for (const label of spaced(placed)) {
    svg.append(svgNode("text", {
      class: "axis-label", x: label.px.toFixed(1), y: height - 6, "text-anchor": label.anchor,
    }, label.text));
  }
  for (const mark of spec.marks || []) svg.append(markNode(mark, x(mark.at), width, height));
  box.replaceChildren(svg);
  return svg;
}

/** The labels along the x axis (left to right, placed at `px`) that keep clear of one
 * another: the last always, each other one when it leaves room (12px digits: 6.5px). */
function spaced(labels) {
  const extent = (l) => {
    const w = l.text.length * 6.5;
    const from = { start: l.px, middle: l.px - w / 2, end: l.px - w }[l.anchor];
    return [from - 4, from + w + 4];
  };
  const clear = (a, b) => extent(a)[1] <= extent(b)[0] || extent(b)[1] <= extent(a)[0];
  const last = labels[labels.length - 1];
  const kept = [];
  for (const label of labels.slice(0, -1)) {
    const free = !kept.length || clear(kept[kept.length - 1], label);
    if (free && clear(label, last)) kept.push(label);
  }
  if (last) kept.push(last);
  return kept;
}

/** A line across the chart at `at` px, its text above the plot (kept inside the chart). */
function markNode(mark, at, width, height) {
  const group = svgNode("g", { class: "mark" });
  for (const [name, value] of Object.entries(mark.data || {})) group.dataset[name] = String(value);
  group.append(svgNode("line", {
    x1: at.toFixed(1), x2: at.toFixed(1), y1: PAD.top - 4, y2: height - PAD.bottom,
  }));
  let anchor = "middle";
  if (at < 70) anchor = "start";
  else if (width - at < 70) anchor = "end";
  const nudge = { start: -2, middle: 0, end: 2 }[anchor];
  group.append(svgNode("text", {
    x: (at + nudge).toFixed(1), y: PAD.top - 8, "text-anchor": anchor,
  }, mark.text));
  return group;
}
