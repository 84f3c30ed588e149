/**
 * Why the server refused a player's write, as a code rather than a sentence. Every refusal the
 * SQL rules raise for a player carries one of these codes in the error's `hint`
 * (`raise exception '...' using errcode = '23514', hint = 'tessera:spawn'`), which PostgREST and
 * the embedded REST server pass on in `{code, details, hint, message}`; the client picks the
 * player's sentence by the code, never by the wording of the message.
 * test/server/game/rules/refusals-sql.test.ts holds every `raise` a player can meet in
 * supabase/schema.sql to a code here, and every code here to a rule that raises it.
 */

/** The refusal codes, by the rule that refuses. */
export const REFUSALS = {
  /** Nothing is built in, and no land claimed over, the spawn area. */
  spawn: 'tessera:spawn',
  /** No combat in the safe zone (the spawn area). */
  safeZone: 'tessera:safe-zone',
  /** The tile lies in someone else's claim (the message names the owner). */
  claimed: 'tessera:claimed',
  /** A block on water needs a neighbour that leads to land. */
  water: 'tessera:water',
  /** The player name is held by another player. */
  nameTaken: 'tessera:name-taken',
  /** The player is banned (the message names the scope and the reason). */
  banned: 'tessera:banned',
  /** A move, or an attacker's position, farther than a player walks. */
  movement: 'tessera:movement',
  /** A hit that is not one sword swing at another player. */
  hit: 'tessera:hit',
  /** The victim is out of combat range. */
  outOfRange: 'tessera:out-of-range',
  /** One hit per attacker and victim per cooldown. */
  cooldown: 'tessera:cooldown',
  /** The player (or the victim) is not in the world: no fresh presence. */
  notInWorld: 'tessera:not-in-world',
  /** The tile or the land is outside the player's view. */
  reach: 'tessera:reach',
  /** Too many writes: the token bucket is empty (the error's `code` is TS429). */
  rate: 'tessera:rate',
  /** A name or chat message that breaks the text rules (the message says which). */
  cleanText: 'tessera:clean-text',
  /** A per-player or per-claim count is full (mutes, trusted players). */
  cap: 'tessera:cap',
  /** A claim's corners or size are out of bounds. */
  claimShape: 'tessera:claim-shape',
  /** The land is outside the world. */
  outsideWorld: 'tessera:outside-world',
  /** The claim would cover another player's recent blocks. */
  othersBlocks: 'tessera:others-blocks',
  /** The claim needs more tiles than the player has left. */
  claimBudget: 'tessera:claim-budget',
  /** The owner of a claim is not trusted in it again. */
  ownClaim: 'tessera:own-claim',
  /** A reporter has one open report per player. */
  openReport: 'tessera:open-report',
  /** A block is never moved, only removed and placed. */
  anchored: 'tessera:anchored',
  /** A stat higher than the combat log supports. */
  earned: 'tessera:earned',
  /** A row that is not the player's own. */
  forbidden: 'tessera:forbidden',
  /** An operators' tool called by a player. */
  operatorOnly: 'tessera:operator-only',
  /** Signed-out callers have no claim budget. */
  signIn: 'tessera:sign-in',
} as const;

/** One refusal code. */
export type RefusalCode = (typeof REFUSALS)[keyof typeof REFUSALS];

/**
 * The CHECK constraint that keeps blocks out of the spawn area. A constraint cannot carry a
 * hint; its refusal names the constraint (`violates check constraint "game_blocks_outside_spawn"`)
 * and stands for {@link REFUSALS}.spawn.
 */
export const SPAWN_BLOCK_CONSTRAINT = 'game_blocks_outside_spawn';

const CODES = new Set<string>(Object.values(REFUSALS));

/** The parts of a PostgREST error that say why a write was refused. */
export interface RefusalLike {
  code?: string;
  message?: string;
  hint?: string | null;
}

/** The refusal code an error carries, or null for an error without one (network, unknown). */
export function refusalCode(error: RefusalLike): RefusalCode | null {
  if (error.hint && CODES.has(error.hint)) return error.hint as RefusalCode;
  if (error.code === '23514' && error.message?.endsWith(`violates check constraint "${SPAWN_BLOCK_CONSTRAINT}"`)) return REFUSALS.spawn;
  return null;
}
