/**
 * The player's own block edits sent to the server: a placement or a removal the engine already
 * shows. A refused one is rolled back to the tile as the server has it, and the player is told why.
 * One that did not reach the server (net/unreachable.ts) is neither: the tile keeps showing it,
 * and the caller (net/outbox.ts) makes it again once the connection is back.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import type { RefusalLike } from '../../protocol/refusals.js';
import type { OwnBlocks } from './own-blocks.js';
import { describeRefusal } from '../refusals.js';
import { BLOCK_COLUMNS, blockRowToEvent, type BlockRow } from '../rows.js';
import { notReached } from '../unreachable.js';

/** What the edits need. */
export interface BlockEditOptions {
  playerId: string;
  playerName(): string;
  emit(event: NetEvent): void;
  /** Tells the player why a change was refused. */
  notice(title: string, description: string): void;
  own: OwnBlocks;
}

/** How an edit ended: taken by the server, refused (and rolled back), or not sent for want of a network (still shown). */
export type EditOutcome = 'sent' | 'refused' | 'unsent';

/** The player's block edits. */
export interface BlockEdits {
  /**
   * `inventory`: the block came out of the inventory, so a refusal gives it back. `again`: the
   * same placement went unsent before, so it may have been stored without its answer arriving:
   * the player's own block of that type already there counts as sent.
   */
  place(x: number, y: number, blockType: string, inventory: boolean, again?: boolean): Promise<EditOutcome>;
  remove(x: number, y: number, blockType: string | null): Promise<EditOutcome>;
  /**
   * Gives up an edit never sent: the inventory is put right and the player told. The tile itself
   * is put right when its chunk is read again.
   */
  giveUp(action: 'place' | 'remove', x: number, y: number, blockType: string, inventory: boolean): void;
}

/** Edits of player `options.playerId`. */
export function createBlockEdits(db: SupabaseClient, options: BlockEditOptions): BlockEdits {
  const { emit, own } = options;
  const title = (action: 'place' | 'remove') => (action === 'place' ? 'Block Not Placed' : 'Block Not Removed');
  const readTile = (x: number, y: number) => db.from('game_blocks').select(BLOCK_COLUMNS).eq('x', x).eq('y', y).maybeSingle();

  /** After a refusal, shows the tile as the server has it (`current`, read after it) and tells the player why. */
  function refuse(action: 'place' | 'remove', x: number, y: number, blockType: string, inventory: boolean, error: RefusalLike, current: Awaited<ReturnType<typeof readTile>>) {
    const reason = describeRefusal(error, 'block');
    console.error(`block ${action} refused at ${x},${y}:`, error.code, error.message);
    emit({ kind: 'blockRefused', action, x, y, blockType, reason, inventory });
    if (current.data) {
      const row = current.data as unknown as BlockRow;
      own.note(x, y, row.player_id);
      emit(blockRowToEvent(row));
    } else if (!current.error) {
      own.forgetTile(x, y);
      emit({ kind: 'blockCleared', x, y });
    }
    options.notice(title(action), reason);
  }

  return {
    async place(x, y, blockType, inventory, again = false) {
      const answer = await db
        .from('game_blocks')
        .insert({ x, y, block_type: blockType, player_id: options.playerId, player_name: options.playerName() });
      if (!answer.error) return 'sent';
      if (notReached(answer)) return 'unsent';
      const current = await readTile(x, y);
      const row = current.data as unknown as BlockRow | null;
      // A placement stored before its answer was lost is found there on the next try.
      if (again && answer.error.code === '23505' && row?.player_id === options.playerId && row.block_type === blockType) return 'sent';
      refuse('place', x, y, blockType, inventory, answer.error, current);
      return 'refused';
    },
    async remove(x, y, blockType) {
      const answer = await db.from('game_blocks').delete().eq('x', x).eq('y', y).select('x,y');
      if (notReached(answer)) return 'unsent';
      if (answer.error) {
        if (blockType) refuse('remove', x, y, blockType, true, answer.error, await readTile(x, y));
        else options.notice(title('remove'), describeRefusal(answer.error, 'block'));
        return 'refused';
      }
      // Blocks the removal left floating are removed by the server in the same transaction
      // (20250201000400_position_bound.sql); their removals arrive on the live channels.
      for (const row of answer.data as Array<{ x: number; y: number }>) emit({ kind: 'blockCleared', x: row.x, y: row.y });
      return 'sent';
    },
    giveUp(action, x, y, blockType, inventory) {
      const reason = describeRefusal({ code: 'FETCH', message: '' }, 'block');
      emit({ kind: 'blockRefused', action, x, y, blockType, reason, inventory });
      options.notice(title(action), reason);
    },
  };
}
