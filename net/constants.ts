/**
 * The client's own networking constants (docs/game-rules.md §9): periods, history lengths and
 * ranges of its reads. What the server holds the client to is the protocol's (protocol/rules.ts).
 */
/** Chat history length. */
export const CHAT_HISTORY = 50;
/** Chat falls back to polling when its channel is not live within this time. */
export const CHAT_SUBSCRIBE_GRACE_MS = 5000;
/** Chat polling period in fallback mode. */
export const CHAT_POLL_MS = 2000;
/** Window of activity that counts a player as online. */
export const ONLINE_WINDOW_MS = 5 * 60 * 1000;
/** Online-count refresh period. */
export const ONLINE_REFRESH_MS = 30000;
/** Tiles across the minimap. */
export const MINIMAP_RANGE_TILES = 100;
/** Minimap refresh period. */
export const MINIMAP_REFRESH_MS = 10000;
/** Blocks loaded per request when loading the world. */
export const BLOCK_PAGE_SIZE = 1000;
/** Tiles around the player loaded before the rest of the world. */
export const NEAR_LOAD_RADIUS_TILES = 64;
/** How far back a player may restore blocks others removed. */
export const RESTORE_WINDOW_MS = 30 * 60 * 1000;
/** How often the restorable blocks in view are worked out again from the removals last read (no request unless a read is due). */
export const RESTORE_CHECK_MS = 1000;
/** Longest time between two reads of the player's removed blocks (removals that age out of the window, anything missed). */
export const RESTORE_REFRESH_MS = 60_000;
/** Tiles from the player's tile to the edge of the 800x600 view: 13 across, 10 up and down. */
export const VIEW_HALF_WIDTH_TILES = 13;
/** See VIEW_HALF_WIDTH_TILES. */
export const VIEW_HALF_HEIGHT_TILES = 10;
