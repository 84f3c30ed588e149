/**
 * The engine's constants (docs/game-rules.md §9, docs/architecture.md "Units"): frozen values
 * only, no state. The values the server holds players to (tile size, speeds, the world's edges,
 * spawn, combat) are the protocol's (protocol/), passed on here for the engine.
 */
import { TILE_SIZE, WORLD_MAX_TILE, WORLD_MIN_TILE } from '../protocol/geometry.js';

export { TILE_SIZE, WORLD_MAX_TILE, WORLD_MIN_TILE, WORLD_TILES } from '../protocol/geometry.js';
export { PLAYER_SPEED, STEP_MS } from '../protocol/movement.js';
export { ATTACK_DAMAGE, COMBAT_RANGE, DAMAGE_COOLDOWN_MS, MAX_HEALTH, SPAWN_RADIUS } from '../protocol/rules.js';

/** Most entities one world can hold; every component array is sized `capacity + 1` <= this + 1. */
export const MAX_ENTITIES = 1_000_000;
/** Entity capacity of a browser world: a few thousand players is far more than one view shows. */
export const CLIENT_CAPACITY = 4096;

/** Most steps one frame may catch up; longer stalls are dropped rather than replayed. */
export const MAX_CATCHUP_STEPS = 8;
/** Player box in pixels; a position is the centre of this box. */
export const PLAYER_WIDTH = 24;
/** Player box height in pixels. */
export const PLAYER_HEIGHT = 32;

/** Lowest pixel coordinate a player's centre may take on x. */
export const WORLD_MIN_X = WORLD_MIN_TILE * TILE_SIZE + PLAYER_WIDTH / 2;
/** Highest pixel coordinate a player's centre may take on x. */
export const WORLD_MAX_X = (WORLD_MAX_TILE + 1) * TILE_SIZE - PLAYER_WIDTH / 2;
/** Lowest pixel coordinate a player's centre may take on y. */
export const WORLD_MIN_Y = WORLD_MIN_TILE * TILE_SIZE + PLAYER_HEIGHT / 2;
/** Highest pixel coordinate a player's centre may take on y. */
export const WORLD_MAX_Y = (WORLD_MAX_TILE + 1) * TILE_SIZE - PLAYER_HEIGHT / 2;

/** Starting level. */
export const START_LEVEL = 1;
/** How long a sword swing is shown. */
export const SWING_MS = 300;
/** How long a defeated player waits before respawning at spawn with full health. */
export const RESPAWN_MS = 3000;


/** Inventory slots. */
export const INVENTORY_SLOTS = 32;
/** Hotbar slots (keys 1-8). */
export const HOTBAR_SLOTS = 8;
/** Default name of a new player. */
export const DEFAULT_NAME = 'Player1';
