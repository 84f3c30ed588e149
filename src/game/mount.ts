/**
 * Mounts the engine on the game screen's canvas: creates the world and the local player,
 * feeds DOM input (keys, mouse, touch) into the input resource, runs the fixed-step loop on
 * requestAnimationFrame, draws each frame and plays the sound effects the engine queued, and
 * installs `window.__tessera`. `dispose()` undoes all of it.
 */
import { TILE_SIZE } from '../../components/constants.js';
import type { GameCommand } from '../../components/hud.js';
import type { NetQueues } from '../../components/network.js';
import { rectBetween, type ClaimTool } from '../../components/claims.js';
import { inventoryView } from '../../components/inventory.js';
import { spawnLocalPlayer } from '../../components/players.js';
import { WORLD_SEED } from '../../components/terrain.js';
import { createGameWorld, type GameWorld } from '../../components/world.js';
import { advance } from '../../systems/loop.js';
import { createRenderView, renderWorld, tileAtCanvas } from '../../systems/render-world.js';
import { createFrameProbe, createProbeHandle, recordFrame } from './frame-probe.js';
import { createInspector } from './inspect.js';
import { applyKey } from './keys.js';
import type { GameHandle, MountOptions } from './types.js';

/** A running game, with the net queues and the world for `net/`. */
export interface MountedGame extends GameHandle {
  queues: NetQueues;
  world: GameWorld;
  /** The size of the drawn view in pixels (the canvas's). */
  viewSize(): { width: number; height: number };
}

/** A touch held this long on a tile removes its block; a shorter tap places one. */
export const LONG_PRESS_MS = 450;
/** A touch that moves farther than this (CSS px) is not a tap. */
const TAP_SLOP_PX = 12;

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

/** A drag with the claim tool starts at `tile`: a 1x1 rectangle so far. */
function startClaimDrag(tool: ClaimTool, tile: { tileX: number; tileY: number }): void {
  tool.anchor = { x: tile.tileX, y: tile.tileY };
  tool.draft = rectBetween(tool.anchor, tool.anchor);
}

/** The drag reaches `tile`: the rectangle spans from the first corner to it. */
function dragClaimTo(tool: ClaimTool, tile: { tileX: number; tileY: number }): void {
  if (tool.anchor) tool.draft = rectBetween(tool.anchor, { x: tile.tileX, y: tile.tileY });
}

/** A tap with the claim tool: the first sets one corner, the second the opposite one; a third starts again. */
function tapClaimCorner(tool: ClaimTool, tile: { tileX: number; tileY: number }): void {
  if (tool.anchor) {
    dragClaimTo(tool, tile);
    tool.anchor = null;
  } else {
    startClaimDrag(tool, tile);
  }
}

/** Starts the game on `options.canvas`. */
export function mountGame(options: MountOptions): MountedGame {
  const { canvas } = options;
  const world = createGameWorld({ seed: options.seed ?? WORLD_SEED, hud: options.hud });
  spawnLocalPlayer(world, { id: options.playerId, name: options.name, appearance: options.appearance });
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('2D canvas context unavailable');
  const view = createRenderView(ctx, canvas.width, canvas.height, (w, h) => {
    const surface = document.createElement('canvas');
    surface.width = w;
    surface.height = h;
    return surface;
  });

  /** In the touch layout the canvas has as many pixels as its box has CSS pixels: 1 tile = 32 px on screen. */
  const fitCanvas = () => {
    const width = Math.max(1, Math.round(canvas.clientWidth));
    const height = Math.max(1, Math.round(canvas.clientHeight));
    if (canvas.width === width && canvas.height === height) return;
    canvas.width = view.width = width;
    canvas.height = view.height = height;
    ctx.imageSmoothingEnabled = false;
  };
  const resizeObserver = options.fit ? new ResizeObserver(fitCanvas) : null;
  resizeObserver?.observe(canvas);

  const sounds = options.sounds;
  let alpha = 0;
  let last = performance.now();
  const probe = createFrameProbe();
  let frame = requestAnimationFrame(function tick(now) {
    const started = performance.now();
    alpha = advance(world, now - last);
    last = now;
    const stepped = performance.now();
    renderWorld(world, view, alpha);
    recordFrame(probe, stepped - started, performance.now() - stepped);
    for (const sound of world.sounds.splice(0)) sounds?.play(sound);
    frame = requestAnimationFrame(tick);
  });

  const unlockSound = () => sounds?.unlock();
  const onKey = (down: boolean) => (ev: KeyboardEvent) => {
    if (down) unlockSound();
    if (isTyping(ev.target)) return;
    if (applyKey(world.input, ev.code, down, { ctrl: ev.ctrlKey || ev.metaKey, shift: ev.shiftKey })) ev.preventDefault();
  };
  const onKeyDown = onKey(true);
  const onKeyUp = onKey(false);
  const onBlur = () => {
    world.input.held = 0;
  };
  /** Hands a click or tap on another player's tile to `onPlayerTap`; true when it did. */
  const tappedPlayer = (tile: { tileX: number; tileY: number }, ev: MouseEvent): boolean => {
    if (!options.onPlayerTap) return false;
    const centreX = tile.tileX * TILE_SIZE + TILE_SIZE / 2;
    const centreY = tile.tileY * TILE_SIZE + TILE_SIZE / 2;
    const player = inspector.remotePlayers().find((p) => Math.hypot(p.x - centreX, p.y - centreY) <= TILE_SIZE * 0.75);
    if (!player) return false;
    options.onPlayerTap({ id: player.id, name: player.name }, ev.clientX, ev.clientY);
    return true;
  };
  const onMouseDown = (ev: MouseEvent) => {
    if (ev.button !== 0 && ev.button !== 2) return;
    const p = canvasPoint(canvas, ev);
    const tile = tileAtCanvas(world, view, p.x, p.y, alpha);
    if (world.claims.tool.active) {
      // The claim tool: a drag from this tile chooses the rectangle; nothing is built.
      if (ev.button === 0) startClaimDrag(world.claims.tool, tile);
      ev.preventDefault();
      return;
    }
    if (ev.button === 0 && tappedPlayer(tile, ev)) {
      ev.preventDefault();
      return;
    }
    world.input.clicks.push({ action: ev.button === 0 ? 'place' : 'remove', ...tile });
    ev.preventDefault();
  };
  const onMouseMove = (ev: MouseEvent) => {
    const p = canvasPoint(canvas, ev);
    world.input.hover = tileAtCanvas(world, view, p.x, p.y, alpha);
    if (world.claims.tool.active && world.claims.tool.anchor && ev.buttons & 1) dragClaimTo(world.claims.tool, world.input.hover);
  };
  const onMouseUp = (ev: MouseEvent) => {
    if (!world.claims.tool.active || !world.claims.tool.anchor || ev.button !== 0) return;
    const p = canvasPoint(canvas, ev);
    dragClaimTo(world.claims.tool, tileAtCanvas(world, view, p.x, p.y, alpha));
    world.claims.tool.anchor = null;
  };
  const onMouseLeave = () => {
    world.input.hover = null;
  };
  const onContextMenu = (ev: Event) => ev.preventDefault();

  /** The touch on the canvas being judged: a tap places, a long press removes (with the claim tool on, a tap sets a corner). */
  let touch: { id: number; x: number; y: number; timer: ReturnType<typeof setTimeout> | undefined } | null = null;
  const tileUnder = (ev: MouseEvent) => {
    const p = canvasPoint(canvas, ev);
    return tileAtCanvas(world, view, p.x, p.y, alpha);
  };
  const endTouch = () => {
    if (touch) clearTimeout(touch.timer);
    touch = null;
    world.input.hover = null;
  };
  const onPointerDown = (ev: PointerEvent) => {
    if (ev.pointerType === 'mouse' || touch) return;
    // Cancelling the pointerdown also stops the mouse events a browser would make from the touch.
    ev.preventDefault();
    const tile = tileUnder(ev);
    world.input.hover = tile;
    if (world.claims.tool.active) {
      touch = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, timer: undefined };
      return;
    }
    touch = {
      id: ev.pointerId,
      x: ev.clientX,
      y: ev.clientY,
      timer: setTimeout(() => {
        world.input.clicks.push({ action: 'remove', ...tile });
        endTouch();
      }, LONG_PRESS_MS),
    };
  };
  const onPointerMove = (ev: PointerEvent) => {
    if (touch?.id === ev.pointerId && Math.hypot(ev.clientX - touch.x, ev.clientY - touch.y) > TAP_SLOP_PX) endTouch();
  };
  const onPointerUp = (ev: PointerEvent) => {
    if (touch?.id !== ev.pointerId) return;
    const tile = tileUnder(ev);
    if (world.claims.tool.active) tapClaimCorner(world.claims.tool, tile);
    else if (!tappedPlayer(tile, ev)) world.input.clicks.push({ action: 'place', ...tile });
    endTouch();
  };
  const onPointerCancel = (ev: PointerEvent) => {
    if (touch?.id === ev.pointerId) endTouch();
  };

  window.addEventListener('keydown', onKeyDown);
  window.addEventListener('keyup', onKeyUp);
  window.addEventListener('blur', onBlur);
  window.addEventListener('pointerdown', unlockSound, true);
  canvas.addEventListener('pointerdown', onPointerDown);
  canvas.addEventListener('pointermove', onPointerMove);
  canvas.addEventListener('pointerup', onPointerUp);
  canvas.addEventListener('pointercancel', onPointerCancel);
  canvas.addEventListener('mousedown', onMouseDown);
  canvas.addEventListener('mousemove', onMouseMove);
  window.addEventListener('mouseup', onMouseUp);
  canvas.addEventListener('mouseleave', onMouseLeave);
  canvas.addEventListener('contextmenu', onContextMenu);
  const inspector = createInspector(world, view.names);
  window.__tessera = inspector;
  const probeHandle = createProbeHandle(world, probe);
  window.__tesseraProbe = probeHandle;

  return {
    queues: world.queues,
    world,
    viewSize: () => ({ width: view.width, height: view.height }),
    push(command: GameCommand) {
      world.commands.push(command);
    },
    key(code, down, modifiers) {
      applyKey(world.input, code, down, modifiers);
    },
    inventory: () => inventoryView(world.inventory),
    claims: () => world.claims.list,
    dispose() {
      cancelAnimationFrame(frame);
      resizeObserver?.disconnect();
      endTouch();
      window.removeEventListener('pointerdown', unlockSound, true);
      canvas.removeEventListener('pointerdown', onPointerDown);
      canvas.removeEventListener('pointermove', onPointerMove);
      canvas.removeEventListener('pointerup', onPointerUp);
      canvas.removeEventListener('pointercancel', onPointerCancel);
      window.removeEventListener('keydown', onKeyDown);
      window.removeEventListener('keyup', onKeyUp);
      window.removeEventListener('blur', onBlur);
      canvas.removeEventListener('mousedown', onMouseDown);
      canvas.removeEventListener('mousemove', onMouseMove);
      window.removeEventListener('mouseup', onMouseUp);
      canvas.removeEventListener('mouseleave', onMouseLeave);
      canvas.removeEventListener('contextmenu', onContextMenu);
      if (window.__tessera === inspector) delete window.__tessera;
      if (window.__tesseraProbe === probeHandle) delete window.__tesseraProbe;
    },
  };
}
