/**
 * The player's own block edits sent to the server: a placement or a removal the engine already
 * shows. A refused one is rolled back to the tile as the server has it, and the player is told why.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { NetEvent } from '../../components/network.js';
import type { RefusalLike } from '../../protocol/refusals.js';
import type { OwnBlocks } from './own-blocks.js';
import { describeRefusal } from '../refusals.js';
import { BLOCK_COLUMNS, blockRowToEvent, type BlockRow } from '../rows.js';

/** What the edits need. */
export interface BlockEditOptions {
  playerId: string;
  playerName(): string;
  emit(event: NetEvent): void;
  /** Tells the player why a change was refused. */
  notice(title: string, description: string): void;
  own: OwnBlocks;
}

/** The player's block edits. */
export interface BlockEdits {
  /** `inventory`: the block came out of the inventory, so a refusal gives it back. */
  place(x: number, y: number, blockType: string, inventory: boolean): Promise<boolean>;
  remove(x: number, y: number, blockType: string | null): Promise<boolean>;
}

/** Edits of player `options.playerId`. */
export function createBlockEdits(db: SupabaseClient, options: BlockEditOptions): BlockEdits {
  const { emit, own } = options;

  /** After a refusal, shows the tile as the server has it and tells the player why. */
  async function refuse(action: 'place' | 'remove', x: number, y: number, blockType: string, inventory: boolean, error: RefusalLike) {
    const reason = describeRefusal(error, 'block');
    console.error(`block ${action} refused at ${x},${y}:`, error.code, error.message);
    emit({ kind: 'blockRefused', action, x, y, blockType, reason, inventory });
    const current = await db.from('game_blocks').select(BLOCK_COLUMNS).eq('x', x).eq('y', y).maybeSingle();
    if (current.data) {
      const row = current.data as unknown as BlockRow;
      own.note(x, y, row.player_id);
      emit(blockRowToEvent(row));
    } else if (!current.error) {
      own.forgetTile(x, y);
      emit({ kind: 'blockCleared', x, y });
    }
    options.notice(action === 'place' ? 'Block Not Placed' : 'Block Not Removed', reason);
  }

  return {
    async place(x, y, blockType, inventory) {
      const { error } = await db
        .from('game_blocks')
        .insert({ x, y, block_type: blockType, player_id: options.playerId, player_name: options.playerName() });
      if (error) {
        await refuse('place', x, y, blockType, inventory, error);
        return false;
      }
      return true;
    },
    async remove(x, y, blockType) {
      const { data, error } = await db.from('game_blocks').delete().eq('x', x).eq('y', y).select('x,y');
      if (error) {
        if (blockType) await refuse('remove', x, y, blockType, true, error);
        else options.notice('Block Not Removed', describeRefusal(error, 'block'));
        return false;
      }
      // Blocks the removal left floating are removed by the server in the same transaction
      // (20250201000400_position_bound.sql); their removals arrive on the live channels.
      const removed = data as Array<{ x: number; y: number }>;
      for (const row of removed) emit({ kind: 'blockCleared', x: row.x, y: row.y });
      return removed.length > 0;
    },
  };
}
