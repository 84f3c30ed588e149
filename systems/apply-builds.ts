import type { TileClick } from '../components/input.js';
import { BLOCK_TYPES } from '../components/blocks.js';
import { giveBlock, selectedItem, takeBlock } from '../components/inventory.js';
import { isSpawnTile } from '../components/terrain.js';
import { blockAt, clearBlock, isInWorld, setBlock } from '../components/tiles.js';
import type { GameWorld } from '../components/world.js';

const KNOWN = new Set<string>(BLOCK_TYPES);

function build(world: GameWorld, click: TileClick): void {
  const { tileX, tileY } = click;
  if (!isInWorld(tileX, tileY)) return;
  if (isSpawnTile(tileX, tileY)) {
    world.toasts.push({ title: 'Spawn Protected', description: 'Cannot build in spawn area - protected zone!', variant: 'default' });
    return;
  }
  const existing = blockAt(world.tiles, tileX, tileY);
  if (click.action === 'place') {
    const item = selectedItem(world.inventory);
    if (existing !== null || !item || item.type !== 'block' || item.quantity <= 0) return;
    const blockType = item.blockType;
    setBlock(world.tiles, tileX, tileY, blockType, world.ids[world.local]!);
    takeBlock(world.inventory, blockType);
    world.queues.outbox.push({ kind: 'placeBlock', x: tileX, y: tileY, blockType });
    return;
  }
  if (existing !== null) {
    clearBlock(world.tiles, tileX, tileY);
    if (KNOWN.has(existing)) giveBlock(world.inventory, existing);
  }
  world.queues.outbox.push({ kind: 'removeBlock', x: tileX, y: tileY, blockType: existing });
}

/**
 * Applies the local player's clicks: left places the selected block on an empty tile (one
 * leaves the stack), right removes a block (one comes back). Nothing changes inside the spawn
 * area, where a 'Spawn Protected' toast is raised instead. Each edit is queued for the server.
 */
export function applyBuilds(world: GameWorld): void {
  const clicks = world.input.clicks;
  if (clicks.length === 0) return;
  const pending = clicks.splice(0, clicks.length);
  if (!world.local || world.vitals.defeated[world.local]) return;
  for (const click of pending) build(world, click);
}
