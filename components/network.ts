/**
 * The contract between the engine and `net/`.
 *
 * `net/` never touches components directly: realtime callbacks push `NetEvent`s into the
 * world's inbox, which a system drains at the start of a step (at most MAX_EVENTS_PER_STEP);
 * systems push `LocalAction`s into the outbox, which `net/` flushes when the engine calls its
 * `onStep` at the end of each step. Units follow docs/architecture.md "Units": players in pixels,
 * blocks in tiles.
 */
import type { Appearance } from './appearance-types.js';
import type { Claim } from './claims.js';
import type { PoseFields } from '../protocol/poses.js';

/** Something the server told us; applied by the engine at the start of a step. */
export type NetEvent =
  /** A block now exists at tile (x, y) (remote insert, initial load, or a rollback of a removal). */
  | { kind: 'blockSet'; x: number; y: number; blockType: string; owner: string; live?: boolean }
  /**
   * The blocks of the tiles [x, x + width) x [y, y + height) as the server has them (a chunk read):
   * they replace whatever the area held, in one step.
   */
  | { kind: 'areaLoaded'; x: number; y: number; width: number; height: number; blocks: ReadonlyArray<{ x: number; y: number; blockType: string; owner: string }> }
  /** Forget the blocks of the tiles [x, x + width) x [y, y + height) (a chunk dropped far behind the player). */
  | { kind: 'areaDropped'; x: number; y: number; width: number; height: number }
  /** The block at tile (x, y) is gone (remote delete, orphan removal, or a rollback of a placement). */
  | { kind: 'blockCleared'; x: number; y: number; live?: boolean }
  /**
   * The server refused a local placement or removal; the engine restores the inventory count
   * (for a placement only when `inventory`: the block had come out of the inventory).
   */
  | { kind: 'blockRefused'; action: 'place' | 'remove'; x: number; y: number; blockType: string; reason: string; inventory: boolean }
  /** The local player's blocks others removed lately around the view (from the server's edit history). */
  | { kind: 'restorable'; blocks: { x: number; y: number; blockType: string }[] }
  /** The land claims near the player, all of them (net/claims/claims.ts), replacing those known before. */
  | { kind: 'claims'; claims: Claim[] }
  /** Another player's chat message arrived. */
  | { kind: 'chatArrived' }
  /** Another player's voice clip starts playing at `volume`. */
  | { kind: 'voiceStarted'; volume: number }
  /** A presence row was inserted or updated. */
  | {
      kind: 'playerUpsert';
      id: string;
      name: string;
      x: number;
      y: number;
      health: number;
      maxHealth: number;
      level: number;
      appearance: Appearance;
      isSwinging: boolean;
    }
  /**
   * A live pose event: at its pose number `seq` (the sender's step count, net/poses/numbers.ts)
   * the player stood at (x, y) and walks in direction (dx, dy), each -1, 0 or 1; `t` is the
   * sender's clock in ms (protocol/poses.ts); `moving` is whether (dx, dy) is a direction.
   */
  | ({ kind: 'playerPose'; moving: boolean } & PoseFields)
  /** A presence row was deleted or went stale. */
  | { kind: 'playerLeft'; id: string }
  /** A combat log names the local player as victim. */
  | { kind: 'damaged'; attackerId: string; amount: number }
  /**
   * The server's record of the local player, from its heartbeat's answer: the earned level, and
   * the health (null when a hit arrived while the heartbeat was under way, so the answer is older
   * than the damage already applied).
   */
  | { kind: 'recorded'; health: number | null; level: number };

/** Something the local player did that the server should hear about. */
export type LocalAction =
  /** `inventory` says whether the block came out of the inventory (a restore does not take one). */
  | { kind: 'placeBlock'; x: number; y: number; blockType: string; inventory: boolean }
  /** `blockType` is null when no local block existed: net asks the server first. */
  | { kind: 'removeBlock'; x: number; y: number; blockType: string | null }
  /**
   * A swing that hit `victimId` locally (the engine checked range, zone and cooldown), with the
   * attacker's position in pixels when it swung: the server checks range from there.
   */
  | {
      kind: 'attack';
      victimId: string;
      victimName: string;
      damage: number;
      victimTileX: number;
      victimTileY: number;
      attackerX: number;
      attackerY: number;
    };

/**
 * Most inbox events the engine applies in one step; the rest wait for the next steps, in order,
 * so a flood of events costs a frame at most this many.
 */
export const MAX_EVENTS_PER_STEP = 2048;
/**
 * Most remote players the engine keeps: presence rows of further players are ignored until some
 * leave. Well above a crowded screen (250 players), far below the world's capacity.
 */
export const MAX_REMOTE_PLAYERS = 512;

/** The two queues between the engine and `net/`. Plain arrays: push, then drain with splice. */
export interface NetQueues {
  inbox: NetEvent[];
  outbox: LocalAction[];
  /**
   * Set by a running network session; the engine calls it once at the end of every fixed step
   * with its step number (`world.step`), the one count of steps the session numbers its poses by.
   */
  onStep?: (step: number) => void;
}
