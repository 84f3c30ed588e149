/**
 * Combat over the shared tables: an attack writes a combat log and the attacker's stats;
 * the victim hears its own logs live and applies the damage.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import type { LocalAction, NetEvent } from '../components/network.js';
import type { CombatLogRow } from './rows.js';

/** What combat needs from its surroundings. */
export interface CombatOptions {
  playerId: string;
  playerName(): string;
  emit(event: NetEvent): void;
  onStatus?(status: string): void;
}

/** A hit the engine decided locally: the engine's `attack` action without its kind. */
export type AttackRequest = Omit<Extract<LocalAction, { kind: 'attack' }>, 'kind'>;

/** The combat side of the network session. */
export interface Combat {
  /** Writes the combat log and the stats; false on a database error. */
  attack(hit: AttackRequest): Promise<boolean>;
  close(): Promise<void>;
}

/** Loads the attacker's damage total and subscribes to the logs that name the local player. */
export function createCombat(db: SupabaseClient, options: CombatOptions): Combat {
  const { playerId } = options;
  // The running total starts from the stored one, so stats keep counting across sessions.
  let damageDealt: Promise<number> = Promise.resolve(
    db
      .from('game_player_stats')
      .select('damage_dealt')
      .eq('player_id', playerId)
      .maybeSingle()
      .then(({ data }) => Number((data as { damage_dealt?: number } | null)?.damage_dealt ?? 0)),
  );

  const channel: RealtimeChannel = db
    .channel('game_combat_logs')
    .on(
      'postgres_changes',
      { event: 'INSERT', schema: 'public', table: 'game_combat_logs', filter: `victim_id=eq.${playerId}` },
      (change) => {
        const log = change.new as CombatLogRow;
        options.emit({ kind: 'damaged', attackerId: log.attacker_id, amount: log.damage });
      },
    )
    .subscribe((status) => options.onStatus?.(status));

  async function attack(hit: AttackRequest): Promise<boolean> {
    const log: CombatLogRow = {
      attacker_id: playerId,
      attacker_name: options.playerName(),
      victim_id: hit.victimId,
      victim_name: hit.victimName,
      damage: hit.damage,
      weapon_type: 'sword',
      x: hit.victimTileX,
      y: hit.victimTileY,
      attacker_x: hit.attackerX,
      attacker_y: hit.attackerY,
    };
    const inserted = await db.from('game_combat_logs').insert(log);
    if (inserted.error) {
      console.error('attack refused:', inserted.error.code, inserted.error.message);
      return false;
    }
    const total = (await damageDealt) + hit.damage;
    damageDealt = Promise.resolve(total);
    const stats = await db
      .from('game_player_stats')
      .upsert({ player_id: playerId, player_name: options.playerName(), damage_dealt: total }, { onConflict: 'player_id' });
    if (stats.error) console.error('stats update failed:', stats.error.code, stats.error.message);
    return true;
  }

  return {
    attack,
    close: async () => {
      await db.removeChannel(channel);
    },
  };
}
