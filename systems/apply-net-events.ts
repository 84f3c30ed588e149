import { MAX_EVENTS_PER_STEP, MAX_REMOTE_PLAYERS, type NetEvent } from '../components/network.js';
import { TILE_SIZE } from '../components/constants.js';
import { writeLook } from '../components/appearance.js';
import { giveBlock, takeBlock } from '../components/inventory.js';
import { applyDamage, despawnPlayer, findPlayer, noteHealth, spawnRemotePlayer } from '../components/players.js';
import { applyPoseEvent } from '../components/pose.js';
import { setVelocity } from '../components/transform.js';
import { pushSound, volumeAtTile } from '../components/sounds.js';
import { blockAt, clearArea, clearBlock, setBlock } from '../components/tiles.js';
import type { GameWorld } from '../components/world.js';

/**
 * Presence rows move a remote player only when no pose event arrived for this long: a walker
 * keyframes about once a second (net/poses/poses.ts), and its row may be up to a heartbeat old.
 */
const PRESENCE_POSITION_AFTER_MS = 2000;

/** The remote player for a presence row, spawned when new and while fewer than MAX_REMOTE_PLAYERS exist. */
function remoteFor(world: GameWorld, id: string, name: string, x: number, y: number): number {
  if (id === world.ids[world.local]) return 0;
  const eid = findPlayer(world, id);
  if (eid || world.poses.size >= MAX_REMOTE_PLAYERS) return eid;
  return spawnRemotePlayer(world, { id, name, x, y });
}

/** The net event of kind `K`. */
type EventOf<K extends NetEvent['kind']> = Extract<NetEvent, { kind: K }>;

/** A presence row: spawns or updates the remote player; it moves to the row only when no pose came lately. */
function applyPlayerUpsert(world: GameWorld, ev: EventOf<'playerUpsert'>): void {
  const eid = remoteFor(world, ev.id, ev.name, ev.x, ev.y);
  if (!eid) return;
  world.names[eid] = ev.name;
  world.vitals.health[eid] = ev.health;
  noteHealth(world, eid);
  world.vitals.maxHealth[eid] = ev.maxHealth;
  world.vitals.level[eid] = ev.level;
  writeLook(world.look, eid, ev.appearance);
  const track = world.poses.get(eid)!;
  track.swinging = ev.isSwinging;
  if (world.time - track.lastLive > PRESENCE_POSITION_AFTER_MS) {
    track.x = ev.x;
    track.y = ev.y;
    track.vx = track.vy = 0;
    setVelocity(world.transform, eid, 0, 0);
  }
}

/** A live pose of a known remote player: its track, walking velocity, facing and swing. */
function applyPlayerPose(world: GameWorld, ev: EventOf<'playerPose'>): void {
  // Only presence spawns remote players: a pose from anyone else is not drawn.
  const eid = findPlayer(world, ev.id);
  const track = eid && eid !== world.local ? world.poses.get(eid) : undefined;
  if (!track || !applyPoseEvent(track, world.time, ev.seq, ev.x, ev.y, ev.dx, ev.dy)) return;
  setVelocity(world.transform, eid, track.vx, track.vy);
  if (ev.swinging && !track.swinging) pushSound(world, 'swing', volumeAtTile(world, Math.floor(ev.x / TILE_SIZE), Math.floor(ev.y / TILE_SIZE)));
  track.swinging = ev.swinging;
  if (ev.facing !== 0) world.motion.facing[eid] = ev.facing < 0 ? -1 : 1;
}

/** The server recorded the local player: its level, and its health unless it waits for its respawn. */
function applyRecorded(world: GameWorld, ev: EventOf<'recorded'>): void {
  const eid = world.local;
  if (!eid) return;
  world.vitals.level[eid] = ev.level;
  // A defeated player waits for its own respawn; the server agrees once it is back at spawn.
  if (ev.health !== null && !world.vitals.defeated[eid] && ev.health !== world.vitals.health[eid]) {
    world.vitals.health[eid] = ev.health;
    noteHealth(world, eid);
  }
}

/** Applies one net event to the world. */
function apply(world: GameWorld, ev: NetEvent): void {
  switch (ev.kind) {
    case 'blockSet':
      // A live insert that changes the tile is someone building; our own echo changes nothing.
      if (ev.live && blockAt(world.tiles, ev.x, ev.y) !== ev.blockType) pushSound(world, 'place', volumeAtTile(world, ev.x, ev.y), ev.blockType);
      setBlock(world.tiles, ev.x, ev.y, ev.blockType, ev.owner);
      return;
    case 'areaLoaded':
      clearArea(world.tiles, ev.x, ev.y, ev.width, ev.height);
      for (const block of ev.blocks) setBlock(world.tiles, block.x, block.y, block.blockType, block.owner);
      return;
    case 'areaDropped':
      clearArea(world.tiles, ev.x, ev.y, ev.width, ev.height);
      return;
    case 'blockCleared': {
      const cleared = clearBlock(world.tiles, ev.x, ev.y);
      if (ev.live && cleared !== null) pushSound(world, 'break', volumeAtTile(world, ev.x, ev.y), cleared);
      return;
    }
    case 'blockRefused':
      if (ev.action === 'remove') takeBlock(world.inventory, ev.blockType);
      else if (ev.inventory) giveBlock(world.inventory, ev.blockType);
      return;
    case 'restorable':
      world.restorable = ev.blocks;
      return;
    case 'claims':
      world.claims.list = ev.claims;
      world.claims.version++;
      return;
    case 'chatArrived':
      pushSound(world, 'chat');
      return;
    case 'voiceStarted':
      pushSound(world, 'voice', ev.volume);
      return;
    case 'playerUpsert':
      return applyPlayerUpsert(world, ev);
    case 'playerPose':
      return applyPlayerPose(world, ev);
    case 'playerLeft': {
      const eid = findPlayer(world, ev.id);
      if (eid && eid !== world.local) despawnPlayer(world, eid);
      return;
    }
    case 'recorded':
      return applyRecorded(world, ev);
    case 'damaged':
      if (world.local && applyDamage(world, world.local, ev.amount)) {
        pushSound(world, 'hurt');
        world.toasts.push({ title: 'Under Attack!', description: `You took ${ev.amount} damage!`, variant: 'destructive' });
      }
      return;
  }
}

/**
 * Drains the net inbox into the world, oldest first and at most MAX_EVENTS_PER_STEP events a
 * step: blocks, remote players, refusals, damage to the local player and the blocks it may
 * restore. What others do nearby (building, breaking, swinging, talking) is also queued as
 * sound, louder the nearer it is.
 */
export function applyNetEvents(world: GameWorld): void {
  const inbox = world.queues.inbox;
  if (inbox.length === 0) return;
  for (const ev of inbox.splice(0, Math.min(inbox.length, MAX_EVENTS_PER_STEP))) apply(world, ev);
}
