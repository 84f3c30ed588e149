/**
 * Helpers for the suites that try the server's rules with real supabase-js sessions: a refusal
 * checked for its code, status and an unchanged table, presence heartbeats that walk a player
 * at a legal pace, and players entered at spawn.
 */
import * as assert from 'uvu/assert';
import { signInPlayer, type TestPlayer, type TestServer } from './harness.js';
import { sleep } from './wait.js';

/** What a supabase-js write resolves to. */
export interface WriteResult {
  error: { code?: string; message?: string } | null;
  status: number;
}

const ORDER: Record<string, string> = {
  game_chat_messages: 'id',
  game_blocks: 'x,y',
  game_voice_messages: 'id',
  game_players: 'player_id',
  game_combat_logs: 'id',
  game_player_stats: 'player_id',
  game_claims: 'id',
  game_claim_members: 'claim_id,player_id',
};

/** Each wallet's own name: a name is held by one wallet. */
export const nameOf = (p: TestPlayer) => `P${p.address.slice(0, 8)}`;

/** A game_blocks row as the client inserts it: `blockType` (stone unless given) at tile (x, y), placed by `p` under its {@link nameOf}. */
export const blockRow = (p: TestPlayer, x: number, y: number, blockType = 'stone') => ({ x, y, block_type: blockType, player_id: p.address, player_name: nameOf(p) });

/** The rule helpers for one server, reading tables through `reader` (which never writes). */
export function createRules(reader: TestPlayer) {
  const positions = new Map<string, { x: number; y: number }>();

  /** Every row of `table` in key order. Voice clips come one per request: the server serves their audio no faster (docs/rest-bounds.md, TS106). */
  async function snapshot(table: string): Promise<unknown[]> {
    const pageSize = table === 'game_voice_messages' ? 1 : 10_000;
    const rows: unknown[] = [];
    for (let from = 0; ; from += pageSize) {
      let query = reader.client.from(table).select('*');
      for (const column of ORDER[table]!.split(',')) query = query.order(column);
      const { data, error } = await query.range(from, from + pageSize - 1);
      assert.is(error, null);
      rows.push(...data!);
      if (data!.length < pageSize) return rows;
    }
  }

  /** Runs `write`, expects `code` (and `status`, and `message`), and checks that `table` did not change. */
  async function refused(label: string, table: string, write: () => PromiseLike<WriteResult>, code: string, status?: number, message?: RegExp) {
    const before = await snapshot(table);
    const { error, status: got } = await write();
    assert.is(error?.code, code, `${label}: ${JSON.stringify(error)}`);
    if (status !== undefined) assert.is(got, status, label);
    if (message) assert.match(error!.message!, message, label);
    assert.equal(await snapshot(table), before, `${label}: no row changed`);
  }

  const presenceRow = (p: TestPlayer, x: number, y: number, extra: Record<string, unknown> = {}) => ({
    player_id: p.address, player_name: nameOf(p), x, y, health: 100, max_health: 100, level: 1,
    appearance: { skinColor: '#FFDBAC', hairStyle: 'short' }, is_swinging: false, ...extra,
  });

  /** A presence heartbeat at (x, y), as the client sends it; answers with the stored row. */
  async function beat(p: TestPlayer, x: number, y: number, extra: Record<string, unknown> = {}) {
    const result = await p.client.from('game_players').upsert(presenceRow(p, x, y, extra), { onConflict: 'player_id' }).select().single();
    if (!result.error) positions.set(p.address, { x, y });
    return result;
  }

  /** Enters at spawn and walks to (x, y) at a legal pace: 90 px steps, 450 ms apart (200 px/s). */
  async function walkTo(p: TestPlayer, x: number, y: number) {
    if (!positions.has(p.address)) assert.is((await beat(p, 90, Math.max(-60, Math.min(90, y)))).error, null);
    let at = positions.get(p.address)!;
    for (;;) {
      const dx = x - at.x;
      const dy = y - at.y;
      const step = Math.min(1, 90 / Math.max(Math.hypot(dx, dy), 1));
      const next = { x: Math.round(at.x + dx * step), y: Math.round(at.y + dy * step) };
      const { error } = await beat(p, next.x, next.y);
      assert.is(error, null, JSON.stringify(error));
      at = next;
      if (at.x === x && at.y === y) return;
      await sleep(450); // kept: a legal pace, within the movement budget
    }
  }

  /** A combat log row as the client sends it, carrying the attacker's last position. */
  const hit = (from: TestPlayer, to: TestPlayer, extra: Record<string, unknown> = {}) => ({
    attacker_id: from.address, attacker_name: nameOf(from), victim_id: to.address, victim_name: nameOf(to),
    damage: 25, weapon_type: 'sword', x: 0, y: 0,
    attacker_x: positions.get(from.address)?.x ?? 0, attacker_y: positions.get(from.address)?.y ?? 0, ...extra,
  });

  /** Sends {@link hit} as `from`. */
  const attack = (from: TestPlayer, to: TestPlayer, extra: Record<string, unknown> = {}) =>
    from.client.from('game_combat_logs').insert(hit(from, to, extra));

  return { snapshot, refused, beat, walkTo, hit, attack, positions };
}

/** The helpers {@link createRules} returns. */
export type Rules = ReturnType<typeof createRules>;

/**
 * Writes `p`'s presence at spawn (0, 0), as every session starts: the server lets a player build
 * (tiles x -12..12, y -9..9 outside spawn), speak and fight only with a fresh presence row.
 */
export async function enterAtSpawn(p: TestPlayer, name = nameOf(p)): Promise<void> {
  const { error } = await p.client.from('game_players').upsert({ player_id: p.address, player_name: name, x: 0, y: 0 }, { onConflict: 'player_id' });
  assert.is(error, null, JSON.stringify(error));
}

/**
 * A new wallet signed in on `server` through supabase-js and entered at spawn ({@link enterAtSpawn})
 * as `name`, or as its own {@link nameOf} when no name is given: a player who may build, chat,
 * speak and fight around spawn.
 */
export async function playerAtSpawn(server: Pick<TestServer, 'url' | 'anonKey'>, name?: string): Promise<TestPlayer> {
  const player = await signInPlayer(server);
  await enterAtSpawn(player, name);
  return player;
}

/** Two players at spawn at once ({@link playerAtSpawn}), named `names` (else each its own {@link nameOf}), in that order. */
export async function twoPlayersAtSpawn(server: Pick<TestServer, 'url' | 'anonKey'>, names?: readonly [string, string]): Promise<[TestPlayer, TestPlayer]> {
  return Promise.all([playerAtSpawn(server, names?.[0]), playerAtSpawn(server, names?.[1])]);
}

/**
 * The tiles a player standing at spawn (pixel 0, 0) may build on: inside its 800x600 view, outside
 * the spawn area, in row order. Tests and benchmarks that write many blocks take slices of it.
 */
export function tilesInViewOfSpawn(): Array<{ x: number; y: number }> {
  const tiles: Array<{ x: number; y: number }> = [];
  for (let y = -8; y <= 8; y++) for (let x = -11; x <= 11; x++) if (Math.abs(x) > 2 || Math.abs(y) > 2) tiles.push({ x, y });
  return tiles;
}
