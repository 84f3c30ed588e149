import type { Appearance } from '../../components/appearance-types.js';
import type { GameCommand, HudSink, InventoryView } from '../../components/hud.js';

/** What the game screen passes when it mounts the engine on its canvas. */
export interface MountOptions {
  canvas: HTMLCanvasElement;
  /** The wallet address, or a local id when playing without one. */
  playerId: string;
  name: string;
  appearance: Appearance;
  hud: HudSink;
  /** Terrain seed; the same for every player of one world. */
  seed?: number;
}

/** A running game: the HUD talks to it only through this handle. */
export interface GameHandle {
  /** Queue a command for the engine to apply at the start of its next step. */
  push(command: GameCommand): void;
  /** A fresh read-only copy of the inventory (re-read when `inventoryVersion` changes). */
  inventory(): InventoryView;
  /** Stop the loop and remove every listener the game added. */
  dispose(): void;
}
