/**
 * The game world: a bitECS world whose context carries every component store and resource.
 * Stores belong to the world (not the module), so each test or bench run starts fresh.
 */
import { createWorld, type World } from 'bitecs';
import type { GameCommand, HudFields, HudSink, Toast } from './hud.js';
import { createEditHistory, type EditHistory } from './edit-history.js';
import { createEidList, type EidList } from './eid-list.js';
import type { NetQueues } from './network.js';
import { createLook, type Look } from './appearance.js';
import { createClaimsState, type ClaimsState } from './claims.js';
import { createCombat, createSwingQueue, createVitals, type Combat, type SwingQueue, type Vitals } from './combat.js';
import { CLIENT_CAPACITY, MAX_ENTITIES } from './constants.js';
import { createGrid, type SpatialGrid } from './grid.js';
import { createInputState, type InputState } from './input.js';
import { createInventory, type Inventory } from './inventory.js';
import type { RemoteTrack } from './pose.js';
import { createRandom, type Random } from './prng.js';
import type { SoundEvent } from './sound-types.js';
import { createTileStore, type TileStore } from './tiles.js';
import { createMotion, createTransform, type Motion, type Transform } from './transform.js';

/** Who drives an entity: the local player, a remote player (net), or the simulation itself (bench, tests). */
export const KIND = Object.freeze({ simulated: 0, local: 1, remote: 2 });

/** Everything the engine keeps; systems read and write it, nothing else holds game state. */
export interface GameData {
  /** Highest eid this world may hold; stores are sized capacity + 1 (eids start at 1). */
  capacity: number;
  /** World time in ms: STEP_MS per step, starting at 0. All timestamps in stores use it. */
  time: number;
  /** Steps run so far; drives the walking bob, the spawn pulse and the ocean waves. */
  frame: number;
  /** Unconsumed time of the fixed-step loop, in ms. */
  accumulator: number;
  seed: number;
  random: Random;

  /** Tag component of every player. */
  Player: object;
  /** Tag component of remote players. */
  Remote: object;
  transform: Transform;
  motion: Motion;
  vitals: Vitals;
  combat: Combat;
  look: Look;
  kind: Uint8Array;
  /** Incremented when an eid is freed, so a stored (eid, generation) pair can tell a recycled id. */
  generation: Uint32Array;
  /** Side tables by eid: player id and display name. */
  ids: string[];
  names: string[];
  byId: Map<string, number>;
  /** Remote players' authoritative tracks by eid (components/pose.ts). */
  poses: Map<number, RemoteTrack>;
  /** eid of the local player, 0 when none. */
  local: number;

  tiles: TileStore;
  inventory: Inventory;
  grid: SpatialGrid;
  /** eids whose swing started this step; combat resolves them. */
  attackers: EidList;
  /** Players whose health was set to 0 or below since the last health step; it defeats them. */
  hurt: number[];
  /**
   * Defeated players other than remote ones, waiting to respawn, in the order they fell: all wait
   * RESPAWN_MS, so the first ones are the next to respawn.
   */
  downed: number[];
  /** Defeated remote players, waiting for their health to return. */
  downedRemotes: number[];
  /** Swings on show, oldest first; animation ends each SWING_MS after it started. */
  swingers: SwingQueue;

  input: InputState;
  /** The local player's own block edits, for undo and redo. */
  history: EditHistory;
  /** The local player's blocks that others removed lately near the view, as the server recorded them. */
  restorable: RestorableBlock[];
  /** Land claims near the player and the claim tool. */
  claims: ClaimsState;
  /** Sound effects for the page to play; it drains the queue every frame. */
  sounds: SoundEvent[];
  commands: GameCommand[];
  queues: NetQueues;
  toasts: Toast[];
  hud: HudSink;
  /** Last values published to the HUD. */
  published: Partial<HudFields>;
  /** Incoming voice clips played; the voice module increments it. */
  voiceHeard: number;
}

/** A block of the local player's that someone else removed, at tile (x, y). */
export interface RestorableBlock {
  x: number;
  y: number;
  blockType: string;
}

/** A game world. */
export type GameWorld = World<GameData>;

/** Options of `createGameWorld`. */
export interface WorldOptions {
  seed?: number;
  /** Most entities (default CLIENT_CAPACITY, at most MAX_ENTITIES). */
  capacity?: number;
  hud?: HudSink;
}

/** A HUD sink that drops everything (headless runs). */
export const NULL_HUD: HudSink = Object.freeze({ set() {}, toast() {} });

/** A fresh, empty world. */
export function createGameWorld(options: WorldOptions = {}): GameWorld {
  const capacity = options.capacity ?? CLIENT_CAPACITY;
  if (!(capacity >= 1 && capacity <= MAX_ENTITIES)) throw new RangeError(`capacity must be 1..${MAX_ENTITIES}`);
  const size = capacity + 1;
  const seed = options.seed ?? 1;
  return createWorld<GameData>({
    capacity,
    time: 0,
    frame: 0,
    accumulator: 0,
    seed,
    random: createRandom(seed ^ 0x2545f491),
    Player: {},
    Remote: {},
    transform: createTransform(size),
    motion: createMotion(size),
    vitals: createVitals(size),
    combat: createCombat(size),
    look: createLook(size),
    kind: new Uint8Array(size),
    generation: new Uint32Array(size),
    ids: [],
    names: [],
    byId: new Map(),
    poses: new Map(),
    local: 0,
    tiles: createTileStore(),
    inventory: createInventory(),
    grid: createGrid(capacity),
    attackers: createEidList(),
    hurt: [],
    downed: [],
    downedRemotes: [],
    swingers: createSwingQueue(),
    input: createInputState(),
    history: createEditHistory(),
    restorable: [],
    claims: createClaimsState(),
    sounds: [],
    commands: [],
    queues: { inbox: [], outbox: [] },
    toasts: [],
    hud: options.hud ?? NULL_HUD,
    published: {},
    voiceHeard: 0,
  });
}
