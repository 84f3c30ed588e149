/**
 * Mounts the engine on the game screen's canvas: creates the world and the local player,
 * feeds DOM input into the input resource, runs the fixed-step loop on requestAnimationFrame
 * and draws each frame, and installs `window.__tessera`. `dispose()` undoes all of it.
 */
import type { GameCommand } from '../../components/hud.js';
import type { NetQueues } from '../../components/network.js';
import { inventoryView } from '../../components/inventory.js';
import { spawnLocalPlayer } from '../../components/players.js';
import { createGameWorld, type GameWorld } from '../../components/world.js';
import { advance } from '../../systems/loop.js';
import { createRenderView, renderWorld, tileAtCanvas } from '../../systems/render-world.js';
import { createInspector } from './inspect.js';
import { applyKey } from './keys.js';
import type { GameHandle, MountOptions } from './types.js';

/** A running game, with the net queues and the world for `net/`. */
export interface MountedGame extends GameHandle {
  queues: NetQueues;
  world: GameWorld;
}

/** The world seed when the caller gives none; every player of one world must use the same. */
export const DEFAULT_SEED = 20240601;

function canvasPoint(canvas: HTMLCanvasElement, ev: MouseEvent): { x: number; y: number } {
  const rect = canvas.getBoundingClientRect();
  return {
    x: ((ev.clientX - rect.left) * canvas.width) / Math.max(1, rect.width),
    y: ((ev.clientY - rect.top) * canvas.height) / Math.max(1, rect.height),
  };
}

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
}

/** Starts the game on `options.canvas`. */
export function mountGame(options: MountOptions): MountedGame {
  const { canvas } = options;
  const world = createGameWorld({ seed: options.seed ?? DEFAULT_SEED, hud: options.hud });
  spawnLocalPlayer(world, { id: options.playerId, name: options.name, appearance: options.appearance });
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('2D canvas context unavailable');
  const view = createRenderView(ctx, canvas.width, canvas.height, (w, h) => {
    const surface = document.createElement('canvas');
    surface.width = w;
    surface.height = h;
    return surface;
  });

  let alpha = 0;
  let last = performance.now();
  let frame = requestAnimationFrame(function tick(now) {
    alpha = advance(world, now - last);
    last = now;
    renderWorld(world, view, alpha);
    frame = requestAnimationFrame(tick);
  });

  const onKey = (down: boolean) => (ev: KeyboardEvent) => {
    if (isTyping(ev.target)) return;
    if (applyKey(world.input, ev.code, down)) ev.preventDefault();
  };
  const onKeyDown = onKey(true);
  const onKeyUp = onKey(false);
  const onBlur = () => {
    world.input.held = 0;
  };
  const onMouseDown = (ev: MouseEvent) => {
    if (ev.button !== 0 && ev.button !== 2) return;
    const p = canvasPoint(canvas, ev);
    const tile = tileAtCanvas(world, view, p.x, p.y, alpha);
    world.input.clicks.push({ action: ev.button === 0 ? 'place' : 'remove', ...tile });
    ev.preventDefault();
  };
  const onMouseMove = (ev: MouseEvent) => {
    const p = canvasPoint(canvas, ev);
    world.input.hover = tileAtCanvas(world, view, p.x, p.y, alpha);
  };
  const onMouseLeave = () => {
    world.input.hover = null;
  };
  const onContextMenu = (ev: Event) => ev.preventDefault();

  window.addEventListener('keydown', onKeyDown);
  window.addEventListener('keyup', onKeyUp);
  window.addEventListener('blur', onBlur);
  canvas.addEventListener('mousedown', onMouseDown);
  canvas.addEventListener('mousemove', onMouseMove);
  canvas.addEventListener('mouseleave', onMouseLeave);
  canvas.addEventListener('contextmenu', onContextMenu);
  const inspector = createInspector(world);
  window.__tessera = inspector;

  return {
    queues: world.queues,
    world,
    push(command: GameCommand) {
      world.commands.push(command);
    },
    inventory: () => inventoryView(world.inventory),
    dispose() {
      cancelAnimationFrame(frame);
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
      window.removeEventListener('blur', onBlur);
      canvas.removeEventListener('mousedown', onMouseDown);
      canvas.removeEventListener('mousemove', onMouseMove);
      canvas.removeEventListener('mouseleave', onMouseLeave);
      canvas.removeEventListener('contextmenu', onContextMenu);
      if (window.__tessera === inspector) delete window.__tessera;
    },
  };
}
