import type { GameWorld } from '../components/world.js';

/** Hands the step and its number to the network session, if one runs: it flushes the outbox and sends the local pose. */
export function stepNet(world: GameWorld): void {
  world.queues.onStep?.(world.step);
}
