/** Hit-testing other players: a click or tap on one opens its name menu instead of building. */
import type { TilePosition } from '../../components/camera.js';
import { TILE_SIZE } from '../../components/constants.js';
import type { TesseraInspector } from './inspect.js';
import type { MountOptions } from './types.js';

/** A click or tap landed on `tile`: true when it was handed to a player under it (and nothing should be built). */
export type PlayerTap = (tile: TilePosition, ev: MouseEvent) => boolean;

/** Farthest a remote player's centre may be from the tile's centre to count as tapped: three quarters of a tile. */
const TAP_REACH_PX = TILE_SIZE * 0.75;

/** Hands taps on remote players (read through `players`) to `onPlayerTap`; without one, no tap is a player's. */
export function createPlayerTap(players: Pick<TesseraInspector, 'remotePlayers'>, onPlayerTap: MountOptions['onPlayerTap']): PlayerTap {
  return (tile, ev) => {
    if (!onPlayerTap) return false;
    const centreX = tile.tileX * TILE_SIZE + TILE_SIZE / 2;
    const centreY = tile.tileY * TILE_SIZE + TILE_SIZE / 2;
    const player = players.remotePlayers().find((p) => Math.hypot(p.x - centreX, p.y - centreY) <= TAP_REACH_PX);
    if (!player) return false;
    onPlayerTap({ id: player.id, name: player.name }, ev.clientX, ev.clientY);
    return true;
  };
}
