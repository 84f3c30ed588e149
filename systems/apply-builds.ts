import type { BlockEdit } from '../components/edit-history.js';
import { recordEdit } from '../components/edit-history.js';
import type { HistoryMove, TileClick } from '../components/input.js';
import { BLOCK_TYPES } from '../components/blocks.js';
import { giveBlock, hasBlock, selectedItem, takeBlock } from '../components/inventory.js';
import { pushSound } from '../components/sounds.js';
import { canPlaceWithSupport, UNSUPPORTED_BLOCK } from '../components/support.js';
import { isSpawnTile, isWaterTile, SPAWN_PROTECTED } from '../components/terrain.js';
import { blockAt, blockOwnerAt, clearBlock, isInWorld, setBlock } from '../components/tiles.js';
import type { GameWorld } from '../components/world.js';

const KNOWN = new Set<string>(BLOCK_TYPES);

/** Whether an edit of tile (x, y) is allowed at all; inside spawn a 'Spawn Protected' toast is raised. */
function editable(world: GameWorld, tileX: number, tileY: number): boolean {
  if (!isInWorld(tileX, tileY)) return false;
  if (isSpawnTile(tileX, tileY)) {
    world.toasts.push({ title: 'Spawn Protected', description: SPAWN_PROTECTED, variant: 'default' });
    return false;
  }
  return true;
}

/** Whether a block at (x, y) would be supported (components/support.ts), by the world's tiles and terrain. */
function supported(world: GameWorld, x: number, y: number): boolean {
  return canPlaceWithSupport(
    { hasBlock: (tx, ty) => blockAt(world.tiles, tx, ty) !== null, isWater: (tx, ty) => isWaterTile(tx, ty, world.seed) },
    x,
    y,
  );
}

/** Whether a block at (x, y) would be supported; if not, the player is told why. */
function placeable(world: GameWorld, x: number, y: number): boolean {
  if (supported(world, x, y)) return true;
  world.toasts.push({ title: 'Block Not Placed', description: UNSUPPORTED_BLOCK, variant: 'destructive' });
  return false;
}

/** Places `blockType` as the local player's on an empty tile and queues the insert. */
function place(world: GameWorld, x: number, y: number, blockType: string, inventory: boolean): void {
  setBlock(world.tiles, x, y, blockType, world.ids[world.local]!);
  if (inventory) takeBlock(world.inventory, blockType);
  world.queues.outbox.push({ kind: 'placeBlock', x, y, blockType, inventory });
  pushSound(world, 'place', 1, blockType);
}

/** Removes the block at (x, y) (one comes back to the inventory) and queues the delete. */
function remove(world: GameWorld, x: number, y: number, existing: string | null): void {
  if (existing !== null) {
    clearBlock(world.tiles, x, y);
    if (KNOWN.has(existing)) giveBlock(world.inventory, existing);
    pushSound(world, 'break', 1, existing);
  }
  world.queues.outbox.push({ kind: 'removeBlock', x, y, blockType: existing });
}

function build(world: GameWorld, click: TileClick): void {
  const { tileX: x, tileY: y } = click;
  if (!editable(world, x, y)) return;
  const existing = blockAt(world.tiles, x, y);
  const me = world.ids[world.local]!;
  if (click.action === 'place') {
    const item = selectedItem(world.inventory);
    if (existing !== null || !item || item.type !== 'block' || item.quantity <= 0) return;
    if (!placeable(world, x, y)) return;
    place(world, x, y, item.blockType, true);
    recordEdit(world.history, { action: 'place', x, y, blockType: item.blockType, owner: me });
    return;
  }
  const owner = blockOwnerAt(world.tiles, x, y);
  remove(world, x, y, existing);
  if (existing !== null && owner !== null) recordEdit(world.history, { action: 'remove', x, y, blockType: existing, owner });
}

/**
 * Makes `edit` happen (redo) or its opposite (undo), as an ordinary edit. Only the player's own
 * blocks: a placement is undone only while the tile still holds that block of theirs, and a
 * removal only of a block they had placed, into a tile that is empty again. Returns whether it ran.
 */
function replay(world: GameWorld, edit: BlockEdit, forwards: boolean): boolean {
  const { x, y, blockType } = edit;
  if (!editable(world, x, y)) return false;
  const me = world.ids[world.local]!;
  const existing = blockAt(world.tiles, x, y);
  const placing = (edit.action === 'place') === forwards;
  if (placing) {
    if (edit.owner !== me) return refuse(world, 'Only your own blocks can be put back.');
    if (existing !== null) return refuse(world, 'That tile is no longer empty.');
    if (!hasBlock(world.inventory, blockType)) return refuse(world, `You have no ${blockType} left.`);
    if (!placeable(world, x, y)) return false;
    place(world, x, y, blockType, true);
    return true;
  }
  if (existing !== blockType || blockOwnerAt(world.tiles, x, y) !== me) return refuse(world, 'That block is no longer yours to remove.');
  remove(world, x, y, existing);
  return true;
}

function refuse(world: GameWorld, description: string): false {
  world.toasts.push({ title: 'Cannot Undo', description, variant: 'default' });
  return false;
}

/** Undoes the player's last edit, or redoes the last one undone, moving it to the other stack when it replays. */
function moveInHistory(world: GameWorld, request: HistoryMove): void {
  const { history } = world;
  const from = request === 'undo' ? history.undo : history.redo;
  const edit = from.pop();
  if (!edit || !replay(world, edit, request === 'redo')) return;
  (request === 'undo' ? history.redo : history.undo).push(edit);
}

/**
 * Applies the local player's clicks: left places the selected block on an empty tile (one
 * leaves the stack), right removes a block (one comes back). Nothing changes inside the spawn
 * area, where a 'Spawn Protected' toast is raised instead, and no block goes on water without
 * support ('Block Not Placed', components/support.ts). Each edit is queued for the server
 * and remembered for undo; undo and redo requests then replay the player's own edits.
 */
export function applyBuilds(world: GameWorld): void {
  const { clicks, edits } = world.input;
  if (clicks.length === 0 && edits.length === 0) return;
  const pending = clicks.splice(0, clicks.length);
  const requests = edits.splice(0, edits.length);
  if (!world.local || world.vitals.defeated[world.local]) return;
  for (const click of pending) build(world, click);
  for (const request of requests) moveInHistory(world, request);
}

/**
 * Puts the player's blocks that others removed back into the tiles that are still empty, as
 * ordinary placements (the server applies every building rule and the rate limit). They do
 * not come out of the inventory: they were the player's already. One that the support rule
 * refuses is not placed, and the player is told why.
 */
export function restoreBlocks(world: GameWorld): void {
  if (!world.local || world.vitals.defeated[world.local]) return;
  let waiting = world.restorable.splice(0).filter(({ x, y }) => isInWorld(x, y) && !isSpawnTile(x, y) && blockAt(world.tiles, x, y) === null);
  // A block on water may lean on another restored block: the supported ones go first, land
  // outwards, so each insert reaches the server after the block that supports it.
  for (;;) {
    const ready = waiting.filter(({ x, y }) => supported(world, x, y));
    if (ready.length === 0) break;
    for (const { x, y, blockType } of ready) place(world, x, y, blockType, false);
    waiting = waiting.filter((block) => !ready.includes(block));
  }
  for (const { x, y } of waiting) placeable(world, x, y);
}
