/**
 * Game constants (docs/game-rules.md §9, docs/architecture.md "Units"). The single source of truth for sizes,
 * speeds and timings; frozen values only, no state.
 */

/** Most entities one world can hold; every component array is sized `capacity + 1` <= this + 1. */
export const MAX_ENTITIES = 1_000_000;
/** Entity capacity of a browser world: a few thousand players is far more than one view shows. */
export const CLIENT_CAPACITY = 4096;

/** Edge of a tile in pixels. */
export const TILE_SIZE = 32;
/** Fixed simulation step in milliseconds. */
export const STEP_MS = 16;
/** Most steps one frame may catch up; longer stalls are dropped rather than replayed. */
export const MAX_CATCHUP_STEPS = 8;
/** Pixels a player moves per step. */
export const PLAYER_SPEED = 3;
/** Player box in pixels; a position is the centre of this box. */
export const PLAYER_WIDTH = 24;
/** Player box height in pixels. */
export const PLAYER_HEIGHT = 32;

/** World edge in tiles; tiles run from WORLD_MIN_TILE to WORLD_MAX_TILE on both axes. */
export const WORLD_TILES = 10_000;
/** Lowest tile coordinate. */
export const WORLD_MIN_TILE = -WORLD_TILES / 2;
/** Highest tile coordinate. */
export const WORLD_MAX_TILE = WORLD_TILES / 2 - 1;
/** Lowest pixel coordinate a player's centre may take on x. */
export const WORLD_MIN_X = WORLD_MIN_TILE * TILE_SIZE + PLAYER_WIDTH / 2;
/** Highest pixel coordinate a player's centre may take on x. */
export const WORLD_MAX_X = (WORLD_MAX_TILE + 1) * TILE_SIZE - PLAYER_WIDTH / 2;
/** Lowest pixel coordinate a player's centre may take on y. */
export const WORLD_MIN_Y = WORLD_MIN_TILE * TILE_SIZE + PLAYER_HEIGHT / 2;
/** Highest pixel coordinate a player's centre may take on y. */
export const WORLD_MAX_Y = (WORLD_MAX_TILE + 1) * TILE_SIZE - PLAYER_HEIGHT / 2;

/** The spawn area (safe zone, no building) is tiles with |x| <= SPAWN_RADIUS and |y| <= SPAWN_RADIUS. */
export const SPAWN_RADIUS = 2;

/** Starting and maximum health. */
export const MAX_HEALTH = 100;
/** Starting level. */
export const START_LEVEL = 1;
/** Reach of a sword swing in pixels, centre to centre. */
export const COMBAT_RANGE = 64;
/** Damage of one sword hit. */
export const ATTACK_DAMAGE = 25;
/** A victim takes at most one hit per this many milliseconds. */
export const DAMAGE_COOLDOWN_MS = 1000;
/** How long a sword swing is shown. */
export const SWING_MS = 300;
/** How long a defeated player waits before respawning at spawn with full health. */
export const RESPAWN_MS = 3000;


/** Inventory slots. */
export const INVENTORY_SLOTS = 32;
/** Hotbar slots (keys 1-8). */
export const HOTBAR_SLOTS = 8;
/** Longest player name. */
export const NAME_MAX_LENGTH = 20;
/** Default name of a new player. */
export const DEFAULT_NAME = 'Player1';
