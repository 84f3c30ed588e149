import type { Appearance } from '../../components/appearance-types.js';
import type { Claim } from '../../components/claims.js';
import type { GameCommand, HudSink, InventoryView } from '../../components/hud.js';
import type { SoundEffects } from '../audio/effects.js';
import type { Modifiers } from './keys.js';

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
  /** Touch layout: the canvas takes the size of its box on screen instead of 800x600. */
  fit?: boolean;
  /** Plays the engine's sound effects; the game unlocks it at the first tap or key press. */
  sounds?: SoundEffects;
  /**
   * Called instead of placing a block when a click or tap lands on another player (its id and
   * name, and the viewport point), so the HUD can open that player's name menu.
   */
  onPlayerTap?(player: { id: string; name: string }, clientX: number, clientY: number): void;
}

/** A running game: the HUD talks to it only through this handle. */
export interface GameHandle {
  /** Queue a command for the engine to apply at the start of its next step. */
  push(command: GameCommand): void;
  /** Presses (`down`) or releases a key by `KeyboardEvent.code`, as the on-screen controls do. */
  key(code: string, down: boolean, modifiers?: Modifiers): void;
  /** A fresh read-only copy of the inventory (re-read when `inventoryVersion` changes). */
  inventory(): InventoryView;
  /** The land claims near the player (re-read when `claimsVersion` changes). */
  claims(): readonly Claim[];
  /** Stop the loop and remove every listener the game added. */
  dispose(): void;
}
