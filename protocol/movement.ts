/**
 * How players move, and how far the server and the other players believe they can have moved.
 * Movement is deterministic: PLAYER_SPEED px per STEP_MS step on each held axis, a diagonal at
 * the same speed. The server judges every position it is told against a budget of
 * MOVE_BUDGET_PX_PER_S since the last one it accepted plus a carried slack
 * (`game_private.movement_budget`, `game_private.movement_slack_cap`); receivers judge poses the
 * same way (net/presence/peers.ts).
 */

/** Fixed simulation step in milliseconds. */
export const STEP_MS = 16;
/** Pixels a player moves per step along a single axis. */
export const PLAYER_SPEED = 3;
/** Pixels per step along each axis of a diagonal walk: the diagonal is as fast as a straight walk. */
export const DIAGONAL_SPEED = PLAYER_SPEED * Math.SQRT1_2;
/** Walking speed in pixels per second: 187.5. */
export const WALK_PX_PER_S = (PLAYER_SPEED * 1000) / STEP_MS;
/** The movement budget in pixels per second: walking speed plus a 20 % margin for timers and clocks, 225. */
export const MOVE_BUDGET_PX_PER_S = (WALK_PX_PER_S * 6) / 5;
/** The movement budget in pixels per millisecond. */
export const MOVE_PX_PER_MS = MOVE_BUDGET_PX_PER_S / 1000;
/**
 * Pixels of movement allowed at once beyond the budget: what a player starts with at spawn on the
 * server, and all that receivers of poses allow (poses are sent as the player walks).
 */
export const MOVE_SLACK_PX = 96;
/** Seconds of unspent budget the server carries over, on top of MOVE_SLACK_PX, to absorb heartbeats that arrive late. */
export const MOVE_SLACK_CARRIED_S = 3;
/** The most slack the server carries: 771 px. */
export const MOVE_SLACK_CAP_PX = MOVE_SLACK_PX + MOVE_SLACK_CARRIED_S * MOVE_BUDGET_PX_PER_S;

/** Pixels per step along each axis for a walking direction (dx, dy in -1..1), diagonals included. */
export function walkVelocity(dx: number, dy: number): { vx: number; vy: number } {
  const speed = dx !== 0 && dy !== 0 ? DIAGONAL_SPEED : PLAYER_SPEED;
  return { vx: dx * speed, vy: dy * speed };
}
