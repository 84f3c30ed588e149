/**
 * A walker as bench:crowd walks its players: 3 px a step as the engine moves a player (diagonals
 * as fast), a new random direction of eight every 1-3 s, turned back at the edges of its box.
 * Shared by the load bots and the headless players they are calibrated against.
 */
import { walkVelocity } from '../../../protocol/movement.js';

/** A rectangle of pixels a walker stays in. */
export interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Where a walker stands and where it heads; changed in place by {@link stepWalker}. */
export interface Walking {
  x: number;
  y: number;
  facing: number;
  dx: number;
  dy: number;
  /** When it next picks a direction (ms since the epoch). */
  nextTurn: number;
}

/** Pixels a step along an axis, and along each axis of a diagonal (components/pose.ts). */
const STRAIGHT_SPEED = walkVelocity(1, 0).vx;
const DIAGONAL_SPEED = walkVelocity(1, 1).vx;

/** Moves `walker` one engine step at wall time `now` inside `box`. */
export function stepWalker(walker: Walking, box: Box, now: number): void {
  if (now >= walker.nextTurn) {
    const angle = (Math.floor(Math.random() * 8) * Math.PI) / 4;
    walker.dx = Math.round(Math.cos(angle));
    walker.dy = Math.round(Math.sin(angle));
    walker.nextTurn = now + 1000 + Math.random() * 2000;
  }
  const speed = walker.dx !== 0 && walker.dy !== 0 ? DIAGONAL_SPEED : STRAIGHT_SPEED;
  if (walker.x + walker.dx * speed < box.left || walker.x + walker.dx * speed > box.right) walker.dx = -walker.dx;
  if (walker.y + walker.dy * speed < box.top || walker.y + walker.dy * speed > box.bottom) walker.dy = -walker.dy;
  walker.x += walker.dx * speed;
  walker.y += walker.dy * speed;
  walker.facing = walker.dx < 0 ? -1 : 1;
}
