import type { GameWorld } from '../components/world.js';

/**
 * The last system of a step: hands the step number to the network session, if one runs, which
 * then sends the local pose and flushes the outbox (net/session-sync.ts).
 */
export function syncNet(world: GameWorld): void {
  world.queues.onStep?.(world.step);
}
