/**
 * Spawning, finding and removing players, and the small rules every caller shares (damage with
 * cooldown, healing). Remote players are found by their string id; a stored eid must be kept
 * together with its generation (see `entityRef`) because bitECS hands a freed eid out again at once.
 */
import { addComponent, addEntity, removeEntity } from 'bitecs';
import { DEFAULT_APPEARANCE, type Appearance } from './appearance-types.js';
import { readLook, writeLook } from './appearance.js';
import { pushSwing } from './combat.js';
import { pushEid } from './eid-list.js';
import { DAMAGE_COOLDOWN_MS, DEFAULT_NAME, MAX_HEALTH, START_LEVEL, TILE_SIZE } from './constants.js';
import { markForIndex, unlinkFromGrid } from './grid.js';
import { createRemoteTrack } from './pose.js';
import { BIOME_LABELS, biomeAt, isSpawnTile } from './terrain.js';
import { placeAt, setVelocity, xOf, yOf } from './transform.js';
import { KIND, type GameWorld } from './world.js';

/** What a new player starts with; omitted fields take docs/game-rules.md §3 defaults. */
export interface PlayerInit {
  id: string;
  /** 'Player1' when omitted. */
  name?: string;
  x?: number;
  y?: number;
  appearance?: Appearance;
  health?: number;
  maxHealth?: number;
  level?: number;
}

/** An eid plus the generation it had when stored. */
export interface EntityRef {
  eid: number;
  generation: number;
}

function spawn(world: GameWorld, kind: number, init: PlayerInit): number {
  if (world.byId.has(init.id)) throw new Error(`player ${init.id} already exists`);
  const eid = addEntity(world);
  if (eid > world.capacity) {
    removeEntity(world, eid);
    throw new RangeError(`world is full (${world.capacity} entities)`);
  }
  addComponent(world, eid, world.Player);
  if (kind === KIND.remote) addComponent(world, eid, world.Remote);
  const { transform: t, vitals: v, combat: c, motion: m } = world;
  placeAt(t, eid, init.x ?? 0, init.y ?? 0);
  setVelocity(t, eid, 0, 0);
  m.moving[eid] = 0;
  m.facing[eid] = 1;
  v.maxHealth[eid] = init.maxHealth ?? MAX_HEALTH;
  v.health[eid] = init.health ?? v.maxHealth[eid]!;
  v.level[eid] = init.level ?? START_LEVEL;
  v.defeated[eid] = 0;
  v.respawnAt[eid] = 0;
  c.swinging[eid] = 0;
  c.swingStart[eid] = -Infinity;
  c.lastDamage[eid] = -Infinity;
  c.safe[eid] = isSpawnTile(Math.floor(xOf(t, eid) / TILE_SIZE), Math.floor(yOf(t, eid) / TILE_SIZE)) ? 1 : 0;
  writeLook(world.look, eid, init.appearance ?? DEFAULT_APPEARANCE);
  world.kind[eid] = kind;
  world.ids[eid] = init.id;
  world.names[eid] = init.name ?? DEFAULT_NAME;
  world.byId.set(init.id, eid);
  markForIndex(world.grid, eid);
  noteHealth(world, eid);
  return eid;
}

/** Spawns the local player and remembers it as `world.local`. */
export function spawnLocalPlayer(world: GameWorld, init: PlayerInit): number {
  const eid = spawn(world, KIND.local, init);
  world.local = eid;
  return eid;
}

/** Spawns a remote player (driven by net events, drawn interpolated). */
export function spawnRemotePlayer(world: GameWorld, init: PlayerInit): number {
  const eid = spawn(world, KIND.remote, init);
  world.poses.set(eid, createRemoteTrack(init.x ?? 0, init.y ?? 0));
  return eid;
}

/** Spawns a player the simulation drives itself (benchmarks and tests). */
export function spawnSimulatedPlayer(world: GameWorld, init: PlayerInit): number {
  return spawn(world, KIND.simulated, init);
}

/** The eid of the player with string id `id`, or 0 when unknown. */
export function findPlayer(world: GameWorld, id: string): number {
  return world.byId.get(id) ?? 0;
}

/** Removes a player; its eid's generation moves on so old references stop resolving. */
export function despawnPlayer(world: GameWorld, eid: number): void {
  const id = world.ids[eid];
  if (id === undefined) return;
  world.byId.delete(id);
  world.poses.delete(eid);
  delete world.ids[eid];
  delete world.names[eid];
  if (world.local === eid) world.local = 0;
  const downed = world.kind[eid] === KIND.remote ? world.downedRemotes : world.downed;
  const at = downed.indexOf(eid);
  if (at >= 0) downed.splice(at, 1);
  unlinkFromGrid(world.grid, eid);
  world.generation[eid]!++;
  removeEntity(world, eid);
}

/** A reference to `eid` that `resolveRef` can later check. */
export function entityRef(world: GameWorld, eid: number): EntityRef {
  return { eid, generation: world.generation[eid]! };
}

/** The eid of `ref` if that player still exists, else 0. */
export function resolveRef(world: GameWorld, ref: EntityRef): number {
  return world.generation[ref.eid] === ref.generation && world.ids[ref.eid] !== undefined ? ref.eid : 0;
}

/**
 * Applies `amount` damage to `eid` unless it is defeated or was hit less than
 * DAMAGE_COOLDOWN_MS ago; health floors at 0. Returns whether the hit counted.
 */
export function applyDamage(world: GameWorld, eid: number, amount: number): boolean {
  const { vitals: v, combat: c } = world;
  if (v.defeated[eid] || world.time - c.lastDamage[eid]! < DAMAGE_COOLDOWN_MS) return false;
  v.health[eid] = Math.max(0, v.health[eid]! - amount);
  c.lastDamage[eid] = world.time;
  noteHealth(world, eid);
  return true;
}

/** Restores `amount` health to `eid`, capped at its maximum. */
export function heal(world: GameWorld, eid: number, amount: number): void {
  const v = world.vitals;
  v.health[eid] = Math.min(v.maxHealth[eid]!, v.health[eid]! + amount);
  noteHealth(world, eid);
}

/**
 * Call after writing `eid`'s health: health at 0 or below is queued for the health step, which
 * defeats the player. Every write of health goes through here, so that step need not scan everyone.
 */
export function noteHealth(world: GameWorld, eid: number): void {
  if (world.vitals.health[eid]! <= 0) world.hurt.push(eid);
}

/** Starts a sword swing for `eid` unless it is defeated or already swinging; combat resolves it this step. Returns whether it started. */
export function startSwing(world: GameWorld, eid: number): boolean {
  const c = world.combat;
  if (world.vitals.defeated[eid] || c.swinging[eid]) return false;
  c.swinging[eid] = 1;
  c.swingStart[eid] = world.time;
  pushEid(world.attackers, eid);
  pushSwing(world.swingers, eid, world.time);
  return true;
}

/** A snapshot of a player (positions in pixels, tiles floored). */
export interface PlayerState {
  id: string;
  name: string;
  x: number;
  y: number;
  tileX: number;
  tileY: number;
  health: number;
  maxHealth: number;
  level: number;
  zone: 'safe' | 'pvp';
  /** Overlay label of the biome under the player ('Spawn' inside the spawn area). */
  biome: string;
  appearance: Appearance;
  facing: number;
  moving: boolean;
  isSwinging: boolean;
  defeated: boolean;
}

/** A snapshot of player `eid`, e.g. for presence rows and live-position broadcasts. */
export function readPlayer(world: GameWorld, eid: number): PlayerState {
  const { transform: t, vitals: v, combat: c, motion: m } = world;
  const x = xOf(t, eid);
  const y = yOf(t, eid);
  const tileX = Math.floor(x / TILE_SIZE);
  const tileY = Math.floor(y / TILE_SIZE);
  return {
    id: world.ids[eid] ?? '',
    name: world.names[eid] ?? '',
    x,
    y,
    tileX,
    tileY,
    health: v.health[eid]!,
    maxHealth: v.maxHealth[eid]!,
    level: v.level[eid]!,
    zone: isSpawnTile(tileX, tileY) ? 'safe' : 'pvp',
    biome: BIOME_LABELS[biomeAt(tileX, tileY, world.seed)],
    appearance: readLook(world.look, eid),
    facing: m.facing[eid]!,
    moving: m.moving[eid] === 1,
    isSwinging: c.swinging[eid] === 1,
    defeated: v.defeated[eid] === 1,
  };
}

/** A snapshot of the local player, or null before it spawned. */
export function readLocalPlayer(world: GameWorld): PlayerState | null {
  return world.local ? readPlayer(world, world.local) : null;
}
