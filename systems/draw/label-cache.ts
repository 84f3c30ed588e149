/**
 * Name labels drawn once onto their own small surface and then copied each frame: measuring and
 * shaping text is among the dearest canvas calls without a GPU, and a player's name rarely changes.
 */
import { context2d, type Surface, type SurfaceFactory } from './surface.js';

/** Label font: the HUD's pixel font at 8 px. */
export const LABEL_FONT = '8px "Press Start 2P", monospace';
/** Labels kept; beyond this the cache starts over (names come and go with players). */
const MAX_LABELS = 256;
const LABEL_HEIGHT = 12;

/** Drawn labels by text. */
export interface LabelCache {
  makeSurface: SurfaceFactory;
  labels: Map<string, Surface>;
  /** A context for measuring text before a label's surface exists. */
  measure: ReturnType<typeof context2d>;
  /** Width of a probe text when the labels were drawn; it changes when the web font arrives. */
  probeWidth: number;
}

/** An empty cache drawing with surfaces from `makeSurface`. */
export function createLabelCache(makeSurface: SurfaceFactory): LabelCache {
  return { makeSurface, labels: new Map(), measure: context2d(makeSurface(1, 1)), probeWidth: -1 };
}

/**
 * Call once per frame: drops every label when the font's metrics changed (the pixel font finished
 * loading after labels were drawn in a fallback font).
 */
export function refreshLabels(cache: LabelCache): void {
  cache.measure.font = LABEL_FONT;
  const width = cache.measure.measureText('Mw').width;
  if (width === cache.probeWidth) return;
  cache.probeWidth = width;
  cache.labels.clear();
}

/** The surface of `text` as a label: white text on a dark translucent box, 12 px high. */
export function labelSurface(cache: LabelCache, text: string): Surface {
  let surface = cache.labels.get(text);
  if (surface) return surface;
  if (cache.labels.size >= MAX_LABELS) cache.labels.clear();
  cache.measure.font = LABEL_FONT;
  const width = Math.ceil(cache.measure.measureText(text).width) + 6;
  surface = cache.makeSurface(width, LABEL_HEIGHT);
  const ctx = context2d(surface);
  ctx.fillStyle = 'rgba(0,0,0,0.6)';
  ctx.fillRect(0, 0, width, LABEL_HEIGHT);
  ctx.font = LABEL_FONT;
  ctx.textBaseline = 'alphabetic';
  ctx.fillStyle = '#ffffff';
  ctx.fillText(text, 3, 10);
  cache.labels.set(text, surface);
  return surface;
}
