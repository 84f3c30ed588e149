/**
 * The contract between the engine and `net/`.
 *
 * `net/` never touches components directly: realtime callbacks push `NetEvent`s into the
 * world's inbox, which a system drains at the start of a step; systems push `LocalAction`s
 * into the outbox, which `net/` flushes at its own rate. Units follow DESIGN.md: players in
 * pixels, blocks in tiles.
 */
import type { Appearance } from './appearance-types.js';

/** Something the server told us; applied by the engine at the start of a step. */
export type NetEvent =
  /** A block now exists at tile (x, y) (remote insert, initial load, or a rollback of a removal). */
  | { kind: 'blockSet'; x: number; y: number; blockType: string; owner: string }
  /** Forget every block: a full reload from the server follows (start, or resync after a reconnect). */
  | { kind: 'blocksReset' }
  /** The block at tile (x, y) is gone (remote delete, orphan removal, or a rollback of a placement). */
  | { kind: 'blockCleared'; x: number; y: number }
  /** The server refused a local placement or removal; the engine restores the inventory count. */
  | { kind: 'blockRefused'; action: 'place' | 'remove'; x: number; y: number; blockType: string; reason: string }
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
  /** A live position broadcast; `t` is the sender's clock in ms, used for interpolation. */
  | { kind: 'playerPose'; id: string; x: number; y: number; facing: number; moving: boolean; swinging: boolean; t: number }
  /** A presence row was deleted or went stale. */
  | { kind: 'playerLeft'; id: string }
  /** A combat log names the local player as victim. */
  | { kind: 'damaged'; attackerId: string; amount: number };

/** Something the local player did that the server should hear about. */
export type LocalAction =
  | { kind: 'placeBlock'; x: number; y: number; blockType: string }
  /** `blockType` is null when no local block existed: net asks the server first. */
  | { kind: 'removeBlock'; x: number; y: number; blockType: string | null }
  /** A swing that hit `victimId` locally (the engine checked range, zone and cooldown). */
  | { kind: 'attack'; victimId: string; victimName: string; damage: number; victimTileX: number; victimTileY: number };

/** The two queues between the engine and `net/`. Plain arrays: push, then drain with splice. */
export interface NetQueues {
  inbox: NetEvent[];
  outbox: LocalAction[];
}
