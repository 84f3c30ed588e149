/**
 * A 2D canvas context for Node that draws nothing and records every call and every state set,
 * in order, as text (`fillStyle=rgb(1,2,3)`, `fillRect(6,24,12,5)`), so tests can compare what
 * two drawings do. Text measures 8 px a character.
 */
import type { Ctx2D, Surface, SurfaceFactory } from '../../systems/draw/surface.js';

/** A recording context and what it recorded. */
export interface Recording {
  ctx: Ctx2D;
  calls: string[];
}

function show(value: unknown): string {
  if (typeof value === 'number') return String(Math.round(value * 1000) / 1000);
  if (typeof value === 'string' || typeof value === 'boolean') return String(value);
  return '[object]';
}

/** A fresh recording context. */
export function recordingContext(): Recording {
  const calls: string[] = [];
  const state: Record<string, unknown> = {};
  const ctx = new Proxy(state, {
    get(target, name) {
      if (typeof name !== 'string') return undefined;
      if (name in target) return target[name];
      if (name === 'measureText') return (text: string) => ({ width: text.length * 8 });
      return (...args: unknown[]) => void calls.push(`${name}(${args.map(show).join(',')})`);
    },
    set(target, name, value) {
      target[name as string] = value;
      calls.push(`${String(name)}=${show(value)}`);
      return true;
    },
  }) as unknown as Ctx2D;
  return { ctx, calls };
}

/** Surfaces whose contexts record (each its own, unread): for the renderer's sprite sheets and caches. */
export const recordingSurfaces: SurfaceFactory = (width, height): Surface => {
  const { ctx } = recordingContext();
  return { width, height, getContext: () => ctx };
};
