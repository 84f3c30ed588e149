/** Atoms for the values the engine publishes through its HudSink (one atom per field). */
import { atom, type PrimitiveAtom } from 'jotai';
import type { HudFields, InventoryView } from '../../components/hud.js';
import type { GameHandle } from '../game/types.js';

/** The values shown before the engine publishes anything (docs/game-rules.md §3 initial values). */
export const HUD_DEFAULTS: Readonly<HudFields> = Object.freeze({
  tileX: 0,
  tileY: 0,
  biome: 'Spawn',
  zone: 'safe',
  health: 100,
  maxHealth: 100,
  level: 1,
  name: 'Player1',
  selectedSlot: 0,
  inventoryVersion: 0,
  playersInRange: 0,
  remotePlayers: 0,
  defeated: false,
  respawnIn: 0,
  restorable: 0,
  undoable: 0,
  redoable: 0,
  claimsVersion: 0,
  claimedBy: '',
  claimDraft: '',
});

type HudAtoms = { [K in keyof HudFields]: PrimitiveAtom<HudFields[K]> };

function makeHudAtoms(): HudAtoms {
  const entries = Object.entries(HUD_DEFAULTS).map(([key, value]) => [key, atom(value)]);
  return Object.fromEntries(entries) as HudAtoms;
}

/** One primitive atom per HUD field, e.g. `hudAtoms.health`. */
export const hudAtoms: HudAtoms = makeHudAtoms();

/** The running game, set by the game screen while the engine is mounted. */
export const gameHandleAtom = atom<GameHandle | null>(null);

/** A fresh inventory snapshot, re-read from the engine whenever `inventoryVersion` changes. */
export const inventoryAtom = atom<InventoryView | null>((get) => {
  get(hudAtoms.inventoryVersion);
  return get(gameHandleAtom)?.inventory() ?? null;
});
