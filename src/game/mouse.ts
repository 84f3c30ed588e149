/**
 * The mouse on the canvas: the left button places the selected block, the right one removes, a
 * left click on another player opens its name menu, the hovered tile is highlighted; with the
 * claim tool on, a left drag chooses the rectangle instead.
 */
import type { GameWorld } from '../../components/world.js';
import { dragClaimTo, endClaimDrag, startClaimDrag } from './claim-tool.js';
import { listen, type Unlisten } from './listen.js';
import type { TilePicker } from './pick-tile.js';
import type { PlayerTap } from './player-tap.js';

/** Feeds mouse input on `canvas` into `world`; returns the removal. */
export function listenToMouse(canvas: HTMLCanvasElement, world: GameWorld, pick: TilePicker, tapPlayer: PlayerTap): Unlisten {
  const onDown = (ev: MouseEvent) => {
    if (ev.button !== 0 && ev.button !== 2) return;
    ev.preventDefault();
    const tile = pick(ev);
    const tool = world.claims.tool;
    if (tool.active) {
      // The claim tool: a drag from this tile chooses the rectangle; nothing is built.
      if (ev.button === 0) startClaimDrag(tool, tile);
    } else if (ev.button !== 0 || !tapPlayer(tile, ev)) {
      world.input.clicks.push({ action: ev.button === 0 ? 'place' : 'remove', ...tile });
    }
  };
  const onMove = (ev: MouseEvent) => {
    world.input.hover = pick(ev);
    const tool = world.claims.tool;
    if (tool.active && tool.anchor && ev.buttons & 1) dragClaimTo(tool, world.input.hover);
  };
  const onUp = (ev: MouseEvent) => {
    const tool = world.claims.tool;
    if (tool.active && tool.anchor && ev.button === 0) endClaimDrag(tool, pick(ev));
  };
  const stops = [
    listen(canvas, 'mousedown', onDown),
    listen(canvas, 'mousemove', onMove),
    // A drag may end outside the canvas.
    listen(window, 'mouseup', onUp),
    listen(canvas, 'mouseleave', () => {
      world.input.hover = null;
    }),
    listen(canvas, 'contextmenu', (ev: Event) => ev.preventDefault()),
  ];
  return () => stops.forEach((stop) => stop());
}
