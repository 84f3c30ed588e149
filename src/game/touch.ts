/**
 * Touch (and pen) on the canvas: a tap places the selected block, a press held LONG_PRESS_MS
 * removes the block under it, a tap on another player opens its name menu; with the claim tool
 * on, taps set the rectangle's corners instead. One finger is judged at a time.
 */
import type { GameWorld } from '../../components/world.js';
import { tapClaimCorner } from './claim-tool.js';
import { listen, type Unlisten } from './listen.js';
import type { TilePicker } from './pick-tile.js';
import type { PlayerTap } from './player-tap.js';

/** A touch held this long on a tile removes its block; a shorter tap places one. */
export const LONG_PRESS_MS = 450;
/** A touch that moves farther than this (CSS px) is not a tap. */
const TAP_SLOP_PX = 12;

/** The touch being judged: its pointer, where it went down, and the long press's timer. */
interface HeldTouch {
  id: number;
  x: number;
  y: number;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Feeds touches on `canvas` into `world`; returns the removal (which forgets a touch being held). */
export function listenToTouch(canvas: HTMLCanvasElement, world: GameWorld, pick: TilePicker, tapPlayer: PlayerTap): Unlisten {
  let touch: HeldTouch | null = null;
  const endTouch = () => {
    if (touch) clearTimeout(touch.timer);
    touch = null;
    world.input.hover = null;
  };
  const onDown = (ev: PointerEvent) => {
    if (ev.pointerType === 'mouse' || touch) return;
    // Cancelling the pointerdown also stops the mouse events a browser would make from the touch.
    ev.preventDefault();
    const tile = pick(ev);
    world.input.hover = tile;
    const removeOnLongPress = () => {
      world.input.clicks.push({ action: 'remove', ...tile });
      endTouch();
    };
    const timer = world.claims.tool.active ? undefined : setTimeout(removeOnLongPress, LONG_PRESS_MS);
    touch = { id: ev.pointerId, x: ev.clientX, y: ev.clientY, timer };
  };
  const onMove = (ev: PointerEvent) => {
    if (touch?.id === ev.pointerId && Math.hypot(ev.clientX - touch.x, ev.clientY - touch.y) > TAP_SLOP_PX) endTouch();
  };
  const onUp = (ev: PointerEvent) => {
    if (touch?.id !== ev.pointerId) return;
    const tile = pick(ev);
    if (world.claims.tool.active) tapClaimCorner(world.claims.tool, tile);
    else if (!tapPlayer(tile, ev)) world.input.clicks.push({ action: 'place', ...tile });
    endTouch();
  };
  const onCancel = (ev: PointerEvent) => {
    if (touch?.id === ev.pointerId) endTouch();
  };
  const stops = [
    listen(canvas, 'pointerdown', onDown),
    listen(canvas, 'pointermove', onMove),
    listen(canvas, 'pointerup', onUp),
    listen(canvas, 'pointercancel', onCancel),
  ];
  return () => {
    endTouch();
    stops.forEach((stop) => stop());
  };
}
