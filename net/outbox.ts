/**
 * The engine's outbox sent: the player's actions (blocks placed and removed, hits) go to the
 * server one at a time, in the order the player made them. An edit that does not reach the server
 * is kept, the connection told (net/connection.ts), and made again once it is back; the edits after
 * it wait, so they still arrive in order, and until answered each is shown over what a chunk read
 * brings (net/blocks/unsent.ts). At most MAX_UNSENT_EDITS edits wait: one made past that is given
 * up at once. A hit is live only: one made while the connection is not online is dropped.
 */
import type { LocalAction } from '../components/network.js';
import type { BlockSync } from './blocks/blocks.js';
import type { Combat } from './combat.js';

/** Most edits waiting to be sent (about a minute of building while the connection is gone). */
export const MAX_UNSENT_EDITS = 256;

/** Sends actions in order. */
export interface OutboxSender {
  /** Sends `actions` after every action sent before them. */
  send(actions: readonly LocalAction[]): void;
  /** Resolves once every action handed so far has been sent, given up or dropped at close. */
  drained(): Promise<void>;
}

/** What the sender needs to know of the connection. */
export interface OutboxLink {
  /** Whether the connection is online now. */
  online(): boolean;
  /** A request did not reach the server. */
  unreachable(): void;
  /** Resolves to true once the connection is online, or to false once the session closes. */
  whenOnline(): Promise<boolean>;
}

type Edit = Extract<LocalAction, { kind: 'placeBlock' | 'removeBlock' }>;

/** Sends block actions through `blocks` and hits through `combat`, holding edits while `link` is not online. */
export function createOutboxSender(
  blocks: Pick<BlockSync, 'place' | 'remove' | 'giveUp' | 'hold' | 'release'>,
  combat: Pick<Combat, 'attack'>,
  link: OutboxLink,
): OutboxSender {
  let flushing = Promise.resolve();
  let waiting = 0;
  const chain = (run: () => Promise<unknown>) => {
    flushing = flushing.then(run).then(() => undefined);
  };

  /** Makes `edit` until the server answers it (taken or refused), or the session closes. */
  async function sendEdit(edit: Edit): Promise<void> {
    for (let again = false; ; again = true) {
      const outcome = edit.kind === 'placeBlock'
        ? await blocks.place(edit.x, edit.y, edit.blockType, edit.inventory, again)
        : await blocks.remove(edit.x, edit.y, edit.blockType);
      if (outcome !== 'unsent') return;
      link.unreachable();
      if (!(await link.whenOnline())) return;
    }
  }

  return {
    send(actions) {
      for (const action of actions) {
        if (action.kind === 'attack') {
          if (link.online()) chain(() => combat.attack(action));
        } else if (waiting >= MAX_UNSENT_EDITS) {
          const inventory = action.kind === 'placeBlock' ? action.inventory : true;
          if (action.blockType) blocks.giveUp(action.kind === 'placeBlock' ? 'place' : 'remove', action.x, action.y, action.blockType, inventory);
        } else {
          waiting++;
          // Until answered, a read of its chunk shows the edit as the player made it.
          blocks.hold(action.x, action.y, action.kind === 'placeBlock' ? action.blockType : null);
          chain(() => sendEdit(action).finally(() => {
            waiting--;
            blocks.release(action.x, action.y);
          }));
        }
      }
    },
    drained: () => flushing,
  };
}
