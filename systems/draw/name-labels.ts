/**
 * Where name labels go so that none covers another. Each player's label wants to sit centred
 * above its figure; the local player's is placed first and drawn last (on top), then the others
 * nearest first, each lifted one label height at a time until it overlaps nothing placed so far.
 * In a crowd only the NAME_CROWD_LIMIT nearest are named, and a label that finds no free place
 * within NAME_MAX_LIFTS is left out rather than drawn over another. Positions are whole pixels,
 * so the pixel font stays crisp however the canvas is scaled.
 *
 * The layout keeps its storage between frames: laying out names allocates nothing.
 */

/** Most labels shown at once besides the local player's: beyond this only the nearest are named. */
export const NAME_CROWD_LIMIT = 12;
/** How many label heights a label may be lifted above its figure to find a free place. */
export const NAME_MAX_LIFTS = 4;
/** Pixels kept free between two stacked labels. */
const GAP = 1;

/** Label boxes of one frame; slot i of each array is one candidate. */
export interface NameLayout {
  /** Candidates added this frame. */
  count: number;
  /** Entity of each candidate. */
  eid: Int32Array;
  /** Wanted box: left, top, width and height in canvas pixels (whole numbers). */
  x: Int32Array;
  y: Int32Array;
  w: Int32Array;
  h: Int32Array;
  /** Squared distance from the local player (0 for the local player itself). */
  dist: Float64Array;
  /** After {@link layoutNames}: 1 when shown at (x, y), 0 when left out. */
  shown: Uint8Array;
  /** After {@link layoutNames}: candidate slots in drawing order, the local player's last; `drawn` of them. */
  order: Int32Array;
  drawn: number;
}

/** An empty layout for up to `capacity` labels a frame. */
export function createNameLayout(capacity: number): NameLayout {
  return {
    count: 0,
    eid: new Int32Array(capacity),
    x: new Int32Array(capacity),
    y: new Int32Array(capacity),
    w: new Int32Array(capacity),
    h: new Int32Array(capacity),
    dist: new Float64Array(capacity),
    shown: new Uint8Array(capacity),
    order: new Int32Array(capacity),
    drawn: 0,
  };
}

/** Starts a frame: no candidates. */
export function clearNames(layout: NameLayout): void {
  layout.count = 0;
  layout.drawn = 0;
}

/**
 * Adds the label of `eid`, `w` x `h` pixels, wanted centred on `cx` with its bottom at `bottom`,
 * `dist2` (squared pixels) from the local player; the local player adds itself with 0. Ignored
 * when the layout is full.
 */
export function addName(layout: NameLayout, eid: number, cx: number, bottom: number, w: number, h: number, dist2: number): void {
  const i = layout.count;
  if (i >= layout.eid.length) return;
  layout.eid[i] = eid;
  layout.x[i] = Math.round(cx - w / 2);
  layout.y[i] = Math.round(bottom - h);
  layout.w[i] = w;
  layout.h[i] = h;
  layout.dist[i] = dist2;
  layout.shown[i] = 0;
  layout.count = i + 1;
}

function overlapsPlaced(layout: NameLayout, placed: number, x: number, y: number, w: number, h: number): boolean {
  for (let k = 0; k < placed; k++) {
    const j = layout.order[k]!;
    if (x < layout.x[j]! + layout.w[j]! + GAP && layout.x[j]! < x + w + GAP && y < layout.y[j]! + layout.h[j]! + GAP && layout.y[j]! < y + h + GAP) return true;
  }
  return false;
}

/**
 * Places the candidates: nearest first (the local player, at distance 0, before all), each at
 * its wanted place or lifted until it is free; at most NAME_CROWD_LIMIT besides the local
 * player's. Fills `shown`, moves `y` of lifted labels, and leaves `order` as the drawing order
 * (farthest first, so the local player's label is drawn on top).
 */
export function layoutNames(layout: NameLayout, localEid: number): void {
  const n = layout.count;
  const { order, dist, eid } = layout;
  for (let i = 0; i < n; i++) order[i] = i;
  // Insertion sort by distance, the local player first: a screen holds at most a few hundred.
  for (let i = 1; i < n; i++) {
    const v = order[i]!;
    const key = eid[v] === localEid ? -1 : dist[v]!;
    let j = i - 1;
    while (j >= 0 && (eid[order[j]!] === localEid ? -1 : dist[order[j]!]!) > key) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = v;
  }
  let placed = 0;
  let others = 0;
  for (let k = 0; k < n; k++) {
    const i = order[k]!;
    const local = eid[i] === localEid;
    if (!local && others >= NAME_CROWD_LIMIT) continue;
    const w = layout.w[i]!;
    const h = layout.h[i]!;
    let y = layout.y[i]!;
    let lifts = 0;
    while (lifts <= NAME_MAX_LIFTS && overlapsPlaced(layout, placed, layout.x[i]!, y, w, h)) {
      y -= h + GAP;
      lifts++;
    }
    if (lifts > NAME_MAX_LIFTS) continue;
    layout.y[i] = y;
    layout.shown[i] = 1;
    // `order` doubles as the list of placed slots: slot k is read before it is overwritten.
    order[placed++] = i;
    if (!local) others++;
  }
  // Reverse the placed slots: farthest drawn first, the local player's last (on top).
  for (let a = 0, b = placed - 1; a < b; a++, b--) {
    const t = order[a]!;
    order[a] = order[b]!;
    order[b] = t;
  }
  layout.drawn = placed;
}
