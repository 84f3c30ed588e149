/**
 * The contract between the engine and the React HUD.
 *
 * The engine's HUD-sync system publishes primitive values through a `HudSink`, only when they
 * change; the HUD turns them into Jotai atoms. Positions at frame rate never go this way.
 * React never mutates the world: it pushes `GameCommand`s that a system drains each step.
 */
import type { Appearance } from './appearance-types.js';

/** Primitive HUD values published by the engine. */
export interface HudFields {
  tileX: number;
  tileY: number;
  /** Display label of the biome under the player, e.g. 'Spawn', 'Grassland', 'Snow Peaks'. */
  biome: string;
  zone: 'safe' | 'pvp';
  health: number;
  maxHealth: number;
  level: number;
  name: string;
  selectedSlot: number;
  /** Increments whenever the inventory changes; the HUD then re-reads the inventory snapshot. */
  inventoryVersion: number;
  /** Other players within combat range (64 px). */
  playersInRange: number;
  /** Number of remote players currently known. */
  remotePlayers: number;
  defeated: boolean;
  /** While defeated, the whole seconds left until the respawn (at least 1); 0 otherwise. */
  respawnIn: number;
  /** How many of the local player's blocks others removed in the last 30 minutes within view. */
  restorable: number;
  /** Edits the player can undo, and redo. */
  undoable: number;
  redoable: number;
  /** Increments whenever the claims near the player change; the HUD then re-reads them. */
  claimsVersion: number;
  /** The owner of the claim the player stands in when it is not the player's own; '' elsewhere. */
  claimedBy: string;
  /** The claim tool's rectangle as 'x1,y1,x2,y2' (tiles), or '' when none is chosen. */
  claimDraft: string;
}

/** A toast to show (docs/game-rules.md §8). */
export interface Toast {
  title: string;
  description: string;
  variant: 'default' | 'destructive';
}

/** Where the engine publishes HUD values and toasts. */
export interface HudSink {
  set<K extends keyof HudFields>(key: K, value: HudFields[K]): void;
  toast(toast: Toast): void;
}

/** Commands the HUD pushes; a system drains them at the start of a step. */
export type GameCommand =
  | { kind: 'selectSlot'; slot: number }
  /** docs/game-rules.md §2 inventory rule: move the item in `slot` to the first empty hotbar slot, else the selected one. */
  | { kind: 'inventoryClick'; slot: number }
  | { kind: 'setAppearance'; appearance: Appearance }
  | { kind: 'setName'; name: string }
  /** Put back, as ordinary placements, the player's blocks that others removed (`HudFields.restorable`). */
  | { kind: 'restoreBlocks' }
  /** The LAND panel opened or closed: claims are outlined while it is open. */
  | { kind: 'showClaims'; shown: boolean }
  /** The claim tool on or off; turning it either way forgets the rectangle. */
  | { kind: 'claimTool'; active: boolean };

/** One inventory slot as the HUD sees it. */
export interface ItemView {
  slot: number;
  id: string;
  name: string;
  type: 'block' | 'tool';
  blockType: string;
  quantity: number;
}

/** A read-only copy of the inventory for the HUD. */
export interface InventoryView {
  items: (ItemView | null)[];
  /** hotbar[i] is the inventory slot shown in hotbar slot i, or null. */
  hotbar: (number | null)[];
  selectedSlot: number;
}
