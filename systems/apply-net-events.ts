import type { NetEvent } from '../components/network.js';
import { writeLook } from '../components/appearance.js';
import { giveBlock, takeBlock } from '../components/inventory.js';
import { applyDamage, despawnPlayer, findPlayer, noteHealth, spawnRemotePlayer } from '../components/players.js';
import { pushLivePose, pushPoseAt } from '../components/pose.js';
import { clearAllBlocks, clearBlock, setBlock } from '../components/tiles.js';
import type { GameWorld } from '../components/world.js';

/** Presence rows move a remote player only when no live pose arrived for this long. */
const PRESENCE_POSITION_AFTER_MS = 1000;

function remoteFor(world: GameWorld, id: string, name: string, x: number, y: number): number {
  if (id === world.ids[world.local]) return 0;
  const eid = findPlayer(world, id);
  return eid || spawnRemotePlayer(world, { id, name, x, y });
}

function apply(world: GameWorld, ev: NetEvent): void {
  switch (ev.kind) {
    case 'blockSet':
      setBlock(world.tiles, ev.x, ev.y, ev.blockType, ev.owner);
      return;
    case 'blocksReset':
      clearAllBlocks(world.tiles);
      return;
    case 'blockCleared':
      clearBlock(world.tiles, ev.x, ev.y);
      return;
    case 'blockRefused':
      if (ev.action === 'place') giveBlock(world.inventory, ev.blockType);
      else takeBlock(world.inventory, ev.blockType);
      return;
    case 'playerUpsert': {
      const eid = remoteFor(world, ev.id, ev.name, ev.x, ev.y);
      if (!eid) return;
      world.names[eid] = ev.name;
      world.vitals.health[eid] = ev.health;
      noteHealth(world, eid);
      world.vitals.maxHealth[eid] = ev.maxHealth;
      world.vitals.level[eid] = ev.level;
      writeLook(world.look, eid, ev.appearance);
      const buf = world.poses.get(eid)!;
      buf.swinging = ev.isSwinging;
      if (world.time - buf.lastLive > PRESENCE_POSITION_AFTER_MS) pushPoseAt(buf, world.time, ev.x, ev.y);
      return;
    }
    case 'playerPose': {
      const eid = remoteFor(world, ev.id, '', ev.x, ev.y);
      if (!eid) return;
      const buf = world.poses.get(eid)!;
      pushLivePose(buf, world.time, ev.t, ev.x, ev.y);
      buf.swinging = ev.swinging;
      if (ev.facing !== 0) world.motion.facing[eid] = ev.facing < 0 ? -1 : 1;
      return;
    }
    case 'playerLeft': {
      const eid = findPlayer(world, ev.id);
      if (eid && eid !== world.local) despawnPlayer(world, eid);
      return;
    }
    case 'damaged':
      if (world.local && applyDamage(world, world.local, ev.amount)) {
        world.toasts.push({ title: 'Under Attack!', description: `You took ${ev.amount} damage!`, variant: 'destructive' });
      }
      return;
  }
}

/** Drains the net inbox into the world: blocks, remote players, refusals and damage to the local player. */
export function applyNetEvents(world: GameWorld): void {
  const inbox = world.queues.inbox;
  if (inbox.length === 0) return;
  for (const ev of inbox.splice(0, inbox.length)) apply(world, ev);
}
