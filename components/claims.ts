/**
 * Land claims as the client knows them (the rules are the database's: docs/rules.md, "Land
 * claims"): the claims near the player, which of them the player may build on, and the claim
 * tool's rectangle. The engine draws them, the HUD names the claim the player stands in, and
 * `window.__tessera.claimAt` reads them.
 */
import { CLAIM_MAX_TILES, CLAIM_MIN_TILES, CLAIM_SPAWN_CLEARANCE } from '../protocol/rules.js';

export { CLAIM_MAX_TILES, CLAIM_MIN_TILES, CLAIM_SPAWN_CLEARANCE } from '../protocol/rules.js';

/** A rectangle of tiles with inclusive corners, x1 <= x2 and y1 <= y2. */
export interface TileRect {
  x1: number;
  y1: number;
  x2: number;
  y2: number;
}

/** A claim near the player. */
export interface Claim extends TileRect {
  id: string;
  ownerId: string;
  ownerName: string;
  /** Whether the owner trusts the local player on it. */
  trusted: boolean;
}

/** How a claim stands to the local player: its own, one it is trusted on, or someone else's. */
export type ClaimRelation = 'own' | 'trusted' | 'other';

/** The claim tool: off, or choosing a rectangle from `anchor` (the first corner) to the tile under the pointer. */
export interface ClaimTool {
  active: boolean;
  /** The first corner while a drag is under way or after the first tap; null otherwise. */
  anchor: { x: number; y: number } | null;
  /** The rectangle chosen so far, or null. */
  draft: TileRect | null;
}

/** The client's claims state, kept in the world. */
export interface ClaimsState {
  /** The claims near the player (net/claims/claims.ts keeps the list bounded). */
  list: Claim[];
  /** Increments whenever `list` is replaced. */
  version: number;
  /** Whether the claims are outlined (the LAND panel is open). */
  shown: boolean;
  tool: ClaimTool;
}

/** Outline colours of claims, in the game view and on the minimap: the player's own, those it is trusted on, everyone else's. */
export const CLAIM_COLORS: Readonly<Record<ClaimRelation, string>> = Object.freeze({ own: '#3ec46d', trusted: '#4da6ff', other: '#e4a53b' });

/** An empty claims state. */
export function createClaimsState(): ClaimsState {
  return { list: [], version: 0, shown: false, tool: { active: false, anchor: null, draft: null } };
}

/** The claim covering tile (x, y), or null. */
export function claimAt(list: readonly Claim[], x: number, y: number): Claim | null {
  for (const claim of list) if (x >= claim.x1 && x <= claim.x2 && y >= claim.y1 && y <= claim.y2) return claim;
  return null;
}

/** How `claim` stands to the player `playerId`. */
export function relationOf(claim: Claim, playerId: string): ClaimRelation {
  if (claim.ownerId === playerId) return 'own';
  return claim.trusted ? 'trusted' : 'other';
}

/** The rectangle with corners at tiles `a` and `b`, in either order. */
export function rectBetween(a: { x: number; y: number }, b: { x: number; y: number }): TileRect {
  return { x1: Math.min(a.x, b.x), y1: Math.min(a.y, b.y), x2: Math.max(a.x, b.x), y2: Math.max(a.y, b.y) };
}

/** Width, height and number of tiles of `rect`: the claim tiles it costs. */
export function rectSize(rect: TileRect): { width: number; height: number; tiles: number } {
  const width = rect.x2 - rect.x1 + 1;
  const height = rect.y2 - rect.y1 + 1;
  return { width, height, tiles: width * height };
}

/** What the database would refuse about the shape of `rect` alone, in its words; null when the shape is fine. */
export function claimShapeProblem(rect: TileRect): string | null {
  const { width, height } = rectSize(rect);
  if (width < CLAIM_MIN_TILES || height < CLAIM_MIN_TILES) return `A claim is at least 5x5 tiles; this one is ${width}x${height}.`;
  if (width > CLAIM_MAX_TILES || height > CLAIM_MAX_TILES) return `A claim is at most 100 tiles wide and 100 tall; this one is ${width}x${height}.`;
  const c = CLAIM_SPAWN_CLEARANCE;
  if (!(rect.x2 < -c || rect.x1 > c || rect.y2 < -c || rect.y1 > c)) return 'Nobody claims spawn: keep the claim one tile clear of the spawn area.';
  return null;
}
