/**
 * The game's REST requests, as `net/` makes them through postgrest-js, written out as table,
 * query parameters and call: what a load bot sends at the same moments the game would. Column
 * lists, limits and windows come from net/ itself wherever it exports them.
 */
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import type { TileRect } from '../../../components/claims.js';
import { chunkTiles } from '../../../net/chunks.js';
import { CLAIMS_KEPT } from '../../../net/claims/known.js';
import { CLAIM_COLUMNS, CLAIMS_PER_READ, OWN_CLAIMS_READ } from '../../../net/claims/queries.js';
import { CHAT_HISTORY, ONLINE_WINDOW_MS, RESTORE_WINDOW_MS } from '../../../net/constants.js';
import { BLOCK_COLUMNS, localPlayerToRow } from '../../../net/rows.js';
import { CHUNK_TILES } from '../../../protocol/geometry.js';
import { CHAT_MAX_LENGTH, PRESENCE_STALE_MS } from '../../../protocol/rules.js';
import type { Query, RestCall } from './rest.js';

/** One request: the table, its query parameters in order and the call. */
export interface GameRequest {
  table: string;
  query: Query;
  call: RestCall;
}

/** The widest claim less one (net/claims/queries.ts): claims starting this far left of an area may reach it. */
const CLAIM_MAX_SPAN = 99;

const iso = (ms: number) => new Date(ms).toISOString();
const get = (table: string, query: Query, call: RestCall = {}): GameRequest => ({ table, query, call });

/** The presence heartbeat (net/presence/heartbeat.ts): the row upserted, health and level read back. */
export function heartbeatRequest(id: string, name: string, x: number, y: number, now: number): GameRequest {
  const row = localPlayerToRow({ id, name, x, y, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false }, new Date(now));
  return {
    table: 'game_players',
    query: [['on_conflict', 'player_id'], ['select', 'health,level']],
    call: { method: 'POST', body: JSON.stringify(row), prefer: 'resolution=merge-duplicates, return=representation' },
  };
}

/** The players of the followed regions seen lately (net/presence/rows.ts `load`). */
export function playersRequest(id: string, regions: readonly string[], now: number): GameRequest {
  return get('game_players', [['select', '*'], ['region', `in.(${regions.join(',')})`], ['player_id', `neq.${id}`], ['last_seen', `gte.${iso(now - PRESENCE_STALE_MS)}`]]);
}

/** One chunk's blocks (net/blocks/chunk-reads.ts). */
export function chunkRequest(cx: number, cy: number): GameRequest {
  const { x0, y0, x1, y1 } = chunkTiles(cx, cy);
  return get('game_blocks', [['select', BLOCK_COLUMNS], ['x', `gte.${x0}`], ['x', `lt.${x1}`], ['y', `gte.${y0}`], ['y', `lt.${y1}`], ['limit', String(CHUNK_TILES * CHUNK_TILES)]]);
}

/** A refused block's tile read back (net/blocks/edits.ts). */
export function tileRequest(x: number, y: number): GameRequest {
  return get('game_blocks', [['select', BLOCK_COLUMNS], ['x', `eq.${x}`], ['y', `eq.${y}`]]);
}

/** A block placed (net/blocks/edits.ts). */
export function placeRequest(id: string, name: string, x: number, y: number, blockType: string): GameRequest {
  return { table: 'game_blocks', query: [], call: { method: 'POST', body: JSON.stringify({ x, y, block_type: blockType, player_id: id, player_name: name }) } };
}

/** A chat line sent (net/chat.ts). */
export function chatRequest(id: string, name: string, text: string): GameRequest {
  return {
    table: 'game_chat_messages',
    query: [['select', '*']],
    call: {
      method: 'POST',
      body: JSON.stringify({ player_id: id, player_name: name, message: text.trim().slice(0, CHAT_MAX_LENGTH) }),
      prefer: 'return=representation',
      accept: 'application/vnd.pgrst.object+json',
    },
  };
}

/** The chat history read when the chat channel joins (net/chat.ts). */
export function chatHistoryRequest(): GameRequest {
  return get('game_chat_messages', [['select', '*'], ['order', 'created_at.desc'], ['limit', String(CHAT_HISTORY)]]);
}

/** The two reads of the online count (net/online.ts). */
export function onlineRequests(now: number): GameRequest[] {
  const since = iso(now - ONLINE_WINDOW_MS);
  return [
    get('game_chat_messages', [['select', 'player_id,created_at'], ['created_at', `gte.${since}`]]),
    get('game_block_activity', [['select', 'player_id,created_at:placed_at'], ['placed_at', `gte.${since}`]]),
  ];
}

/** The stored damage total read at the start (net/combat.ts). */
export function statsRequest(id: string): GameRequest {
  return get('game_player_stats', [['select', 'damage_dealt'], ['player_id', `eq.${id}`]]);
}

/** The player's blocks others removed lately (net/restorable.ts). */
export function removalsRequest(id: string, now: number): GameRequest {
  return get('game_block_edits', [
    ['select', 'x,y,before_type'], ['before_owner', `eq.${id}`], ['after_type', 'is.null'], ['actor_id', `neq.${id}`],
    ['created_at', `gte.${iso(now - RESTORE_WINDOW_MS)}`], ['order', 'created_at.desc'], ['limit', '600'],
  ]);
}

/** The claims overlapping `area` (net/claims/queries.ts `readClaimsIn`). */
export function claimsInRequest(area: TileRect, limit = CLAIMS_PER_READ): GameRequest {
  return get('game_claims', [
    ['select', CLAIM_COLUMNS], ['x1', `gte.${area.x1 - CLAIM_MAX_SPAN}`], ['x1', `lte.${area.x2}`], ['x2', `gte.${area.x1}`],
    ['y1', `lte.${area.y2}`], ['y2', `gte.${area.y1}`], ['order', 'x1.asc'], ['limit', String(limit)],
  ]);
}

/** The player's own claims (net/claims/queries.ts `readOwnClaims`). */
export function ownClaimsRequest(id: string): GameRequest {
  return get('game_claims', [['select', CLAIM_COLUMNS], ['owner_id', `eq.${id}`], ['limit', String(OWN_CLAIMS_READ)]]);
}

/** The claims the player is trusted on (net/claims/queries.ts `readTrusts`, as net/claims/refresh.ts calls it). */
export function trustsRequest(id: string): GameRequest {
  return get('game_claim_members', [['select', 'claim_id'], ['player_id', `eq.${id}`], ['limit', String(CLAIMS_KEPT)]]);
}

/** The presence row deleted on leaving (net/presence/presence.ts). */
export function leaveRequest(id: string): GameRequest {
  return { table: 'game_players', query: [['player_id', `eq.${id}`]], call: { method: 'DELETE' } };
}
