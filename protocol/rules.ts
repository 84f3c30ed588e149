/**
 * The rules both sides apply, each number once: the client checks them first for instant
 * feedback, SQL enforces them (supabase/migrations, read in one place in supabase/schema.sql).
 * The SQL repeats each as a literal; test/server/game/rules/protocol-sql.test.ts pins every one of those
 * literals to the constant here.
 */

/** The spawn area (safe zone, no building) is the tiles with |x| <= SPAWN_RADIUS and |y| <= SPAWN_RADIUS. */
export const SPAWN_RADIUS = 2;

/** Starting and maximum health. */
export const MAX_HEALTH = 100;
/** Reach of a sword swing in pixels, centre to centre. */
export const COMBAT_RANGE = 64;
/** Damage of one sword hit. */
export const ATTACK_DAMAGE = 25;
/** A victim takes at most one hit from an attacker per this many milliseconds. */
export const DAMAGE_COOLDOWN_MS = 1000;
/**
 * Presence heartbeat period while another player is within combat range in the PvP zone: the
 * server judges a hit on the victim's last heartbeat, so it allows COMBAT_RANGE plus this long of
 * walking (WALK_PX_PER_S, protocol/movement.ts) between attacker and victim.
 */
export const COMBAT_HEARTBEAT_MS = 250;

/** Presence heartbeat period. */
export const PRESENCE_HEARTBEAT_MS = 5000;
/** A presence row older than this is a player who left: no hit on it, no building or claiming by it. */
export const PRESENCE_STALE_MS = 30_000;

/**
 * The view a player builds and claims within, in pixels, around its judged position, widened
 * by the movement budget since that position was judged.
 */
export const REACH_VIEW = Object.freeze({ width: 800, height: 600 });

/** The 16 block types (docs/game-rules.md §3), in inventory order. */
export const BLOCK_TYPES = [
  'stone', 'wood', 'brick', 'dirt', 'gold', 'iron', 'diamond', 'emerald',
  'coal', 'obsidian', 'glass', 'sand', 'cobblestone', 'marble', 'copper', 'redstone',
] as const;

/** Longest player name, in characters. */
export const NAME_MAX_LENGTH = 20;
/** Longest chat message, in characters. */
export const CHAT_MAX_LENGTH = 200;
/** The reasons a player may give for a report. */
export const REPORT_REASONS = ['griefing', 'harassment', 'cheating', 'spam', 'other'] as const;
/** One of {@link REPORT_REASONS}. */
export type ReportReason = (typeof REPORT_REASONS)[number];
/** Longest note of a report, in characters. */
export const REPORT_NOTE_MAX = 200;

/** Narrowest and shortest claim in tiles. */
export const CLAIM_MIN_TILES = 5;
/** Widest and tallest claim in tiles. */
export const CLAIM_MAX_TILES = 100;
/** Tiles of clearance between a claim and the spawn area: no claim reaches within SPAWN_RADIUS + 1 of spawn. */
export const CLAIM_SPAWN_CLEARANCE = SPAWN_RADIUS + 1;
/** Claimable tiles of a player who has not played yet. */
export const CLAIM_TILES_START = 400;
/** Claimable tiles earned per hour played. */
export const CLAIM_TILES_PER_HOUR = 100;
/** Most claimable tiles, however long a player has played. */
export const CLAIM_TILES_MAX = 10_000;

/** A token bucket: `burst` writes at once, refilled at `perSecond`. */
export interface Rate {
  /** The bucket's name, as a refusal names it. */
  bucket: string;
  burst: number;
  perSecond: number;
}

/** Each player's write rates, enforced by a trigger per table (`game_private.limit_rate`). */
export const RATES = Object.freeze({
  /** Placing, replacing and removing blocks. */
  blocks: { bucket: 'blocks', burst: 40, perSecond: 8 },
  /** Chat messages. */
  chat: { bucket: 'chat messages', burst: 5, perSecond: 0.5 },
  /** Claims made and trusts given (one bucket). */
  claims: { bucket: 'claim changes', burst: 20, perSecond: 0.5 },
  /** Voice clips. */
  voice: { bucket: 'voice clips', burst: 3, perSecond: 0.2 },
} satisfies Record<string, Rate>);
