/**
 * The engine's outbox sent: the player's actions (blocks placed and removed, hits) go to the
 * server one at a time, in the order the player made them.
 */
import type { LocalAction } from '../components/network.js';
import type { BlockSync } from './blocks/blocks.js';
import type { Combat } from './combat.js';

/** Sends actions in order. */
export interface OutboxSender {
  /** Sends `actions` after every action sent before them. */
  send(actions: readonly LocalAction[]): void;
  /** Resolves once every action handed so far has been sent. */
  drained(): Promise<void>;
}

/** Sends block actions through `blocks` and hits through `combat`. */
export function createOutboxSender(blocks: Pick<BlockSync, 'place' | 'remove'>, combat: Pick<Combat, 'attack'>): OutboxSender {
  let flushing = Promise.resolve();
  return {
    send(actions) {
      flushing = flushing.then(async () => {
        for (const action of actions) {
          if (action.kind === 'placeBlock') await blocks.place(action.x, action.y, action.blockType, action.inventory);
          else if (action.kind === 'removeBlock') await blocks.remove(action.x, action.y, action.blockType);
          else await combat.attack(action);
        }
      });
    },
    drained: () => flushing,
  };
}
