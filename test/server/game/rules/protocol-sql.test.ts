/**
 * One contract on both sides: every number and shape the SQL rules repeat as a literal
 * (supabase/migrations) equals the protocol's (protocol/). The rules are read from the running
 * database (function bodies, constraints, triggers, policies, the generated `game_players.region`
 * column), and the region math and the `blocks` and `claims` payloads are run there and compared
 * with the TypeScript.
 *
 * A new literal is pinned by adding a row to PINS: what it is, the protocol's value, and how to
 * read it from the schema.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { encodeBlockChanges, MAX_BLOCK_CHANGES_PER_MESSAGE, type BlockChange } from '../../../../protocol/block-changes.js';
import { encodeClaimChanges, MAX_CLAIM_CHANGES_PER_MESSAGE } from '../../../../protocol/claim-changes.js';
import { regionIndexOfTile, regionName, regionOf, regionOfTile, TILE_SIZE, WORLD_MAX_TILE, WORLD_MIN_TILE } from '../../../../protocol/geometry.js';
import { MOVE_BUDGET_PX_PER_S, MOVE_SLACK_CAP_PX, MOVE_SLACK_CARRIED_S, MOVE_SLACK_PX, PLAYER_SPEED, STEP_MS, WALK_PX_PER_S } from '../../../../protocol/movement.js';
import {
  ATTACK_DAMAGE,
  BLOCK_TYPES,
  CLAIM_MAX_TILES,
  CLAIM_MIN_TILES,
  CLAIM_SPAWN_CLEARANCE,
  CLAIM_TILES_MAX,
  CLAIM_TILES_PER_HOUR,
  CLAIM_TILES_START,
  CHAT_MAX_LENGTH,
  COMBAT_HEARTBEAT_MS,
  COMBAT_RANGE,
  DAMAGE_COOLDOWN_MS,
  MAX_HEALTH,
  NAME_MAX_LENGTH,
  PRESENCE_STALE_MS,
  RATES,
  REACH_VIEW,
  REPORT_NOTE_MAX,
  REPORT_REASONS,
  SPAWN_RADIUS,
  type Rate,
} from '../../../../protocol/rules.js';
import { BLOCKS_EVENT, blocksTopic, CLAIMS_EVENT } from '../../../../protocol/topics.js';
import { startTestServer, type TestServer } from '../../../support/harness.js';
import { connectAsOperator } from '../../../support/server.js';

/** The rules as the running database holds them, by name. */
interface Schema {
  /** Bodies of the functions of `game_private` and `public`, by name. */
  functions: Map<string, string>;
  /** Constraint definitions, by `table.constraint`. */
  constraints: Map<string, string>;
  /** Trigger definitions, by `table.trigger`. */
  triggers: Map<string, string>;
  /** Policy conditions (USING, else WITH CHECK), by `table.policy`. */
  policies: Map<string, string>;
}

/** One SQL literal pinned to the protocol: what it is, the protocol's value, and how to read it from the schema. */
interface Pin {
  what: string;
  expected: unknown;
  read(schema: Schema): unknown;
}

/** The entry `key` of `map`; fails naming it when the schema has no such thing. */
function named(map: Map<string, string>, key: string): string {
  const text = map.get(key);
  if (text === undefined) throw new Error(`the schema has no ${key}`);
  return text;
}

/** The numbers captured by `pattern` in `text`, for its first match; fails when it does not match. */
function numbers(text: string, pattern: RegExp): number[] {
  const match = pattern.exec(text);
  if (!match) throw new Error(`${pattern} not found in:\n${text}`);
  return match.slice(1).map(Number);
}

/** The numbers captured by `pattern` (with the g flag) at every match in `text`; fails when there is none. */
function everyNumber(text: string, pattern: RegExp): number[] {
  const found = [...text.matchAll(pattern)].flatMap((match) => match.slice(1).map(Number));
  if (found.length === 0) throw new Error(`${pattern} not found in:\n${text}`);
  return found;
}

/** `[burst, perSecond]` of the rate trigger `table.trigger` (`game_private.limit_rate(bucket, burst, per second)`), with its bucket. */
function rateOf(schema: Schema, trigger: string): Rate {
  const match = /limit_rate\('([^']+)', '([\d.]+)', '([\d.]+)'\)/.exec(named(schema.triggers, trigger));
  if (!match) throw new Error(`${trigger} calls no limit_rate`);
  return { bucket: match[1]!, burst: Number(match[2]), perSecond: Number(match[3]) };
}

const fn = (schema: Schema, name: string) => named(schema.functions, name);

/** The ages (s) after which the functions judging presence rows (`last_seen < now() - interval ...`) call them stale, each age once. */
function staleness(schema: Schema): number[] {
  const judged = [...schema.functions.values()].filter((body) => /last_seen < now\(\) - interval/.test(body));
  return [...new Set(judged.flatMap((body) => everyNumber(body, /last_seen < now\(\) - interval '(\d+) seconds'/g)))];
}

/** Every pinned literal. */
const PINS: Pin[] = [
  // Movement.
  { what: 'the movement budget per second (movement_budget)', expected: [MOVE_BUDGET_PX_PER_S], read: (s) => numbers(fn(s, 'movement_budget'), /previous\.slack \+ ([\d.]+) \* greatest/) },
  { what: 'the carried slack (movement_slack_cap): slack plus seconds of budget', expected: [MOVE_SLACK_PX, MOVE_SLACK_CARRIED_S, MOVE_BUDGET_PX_PER_S], read: (s) => numbers(fn(s, 'movement_slack_cap'), /return (\d+) \+ (\d+) \* (\d+);/) },
  { what: 'the slack of a player placed at spawn (check_movement)', expected: [MOVE_SLACK_PX], read: (s) => numbers(fn(s, 'check_movement'), /budget := (\d+);/) },
  { what: 'the speed a refused move names (check_movement, check_attack)', expected: [PLAYER_SPEED, STEP_MS, PLAYER_SPEED, STEP_MS], read: (s) => [fn(s, 'check_movement'), fn(s, 'check_attack')].flatMap((body) => numbers(body, /move at most (\d+) px per (\d+) ms/)) },
  // Reach: the view, widened by the movement budget since the judged position.
  { what: 'the reach of a build (check_block_reach): budget per second, half the view', expected: [MOVE_BUDGET_PX_PER_S, REACH_VIEW.width / 2, REACH_VIEW.height / 2], read: (s) => [
    ...numbers(fn(s, 'check_block_reach'), /reach := (\d+) \* greatest/),
    ...numbers(fn(s, 'check_block_reach'), /here\.x - (\d+) - reach/),
    ...numbers(fn(s, 'check_block_reach'), /here\.y - (\d+) - reach/),
  ] },
  { what: 'the reach of a claim (check_claim): budget per second, half the view', expected: [MOVE_BUDGET_PX_PER_S, REACH_VIEW.width / 2, REACH_VIEW.height / 2], read: (s) => [
    ...numbers(fn(s, 'check_claim'), /reach := (\d+) \* greatest/),
    ...numbers(fn(s, 'check_claim'), /here\.x - (\d+) - reach/),
    ...numbers(fn(s, 'check_claim'), /here\.y - (\d+) - reach/),
  ] },
  // Combat.
  { what: 'the judged combat range (check_attack): range plus a combat heartbeat of walking', expected: [COMBAT_RANGE, WALK_PX_PER_S, COMBAT_HEARTBEAT_MS / 1000], read: (s) => numbers(fn(s, 'check_attack'), /distance > (\d+) \+ ([\d.]+) \* ([\d.]+) then/) },
  { what: 'the range and heartbeat a refused hit names (check_attack)', expected: [COMBAT_RANGE, COMBAT_HEARTBEAT_MS], read: (s) => numbers(fn(s, 'check_attack'), /Combat range is (\d+) px, plus (\d+) ms of movement/) },
  { what: 'the damage of a hit (check_attack)', expected: [ATTACK_DAMAGE], read: (s) => numbers(fn(s, 'check_attack'), /new\.damage is distinct from (\d+)/) },
  { what: 'the damage cooldown (check_attack, count_hit)', expected: [DAMAGE_COOLDOWN_MS, DAMAGE_COOLDOWN_MS], read: (s) => [
    ...numbers(fn(s, 'check_attack'), /interval '(\d+) milliseconds'/),
    ...numbers(fn(s, 'count_hit'), /interval '(\d+) milliseconds'/),
  ] },
  { what: 'the most health (game_players_max_health)', expected: [MAX_HEALTH], read: (s) => numbers(named(s.constraints, 'game_players.game_players_max_health'), /max_health = (\d+)/) },
  // Presence.
  { what: 'age of a stale presence row, in every function that judges one', expected: [PRESENCE_STALE_MS / 1000], read: staleness },
  // Spawn and the world's edges.
  { what: 'the spawn area (in_spawn): tile size, radius', expected: [TILE_SIZE, -SPAWN_RADIUS, SPAWN_RADIUS], read: (s) => numbers(fn(s, 'in_spawn'), /floor\(px \/ (\d+)\.0\) between (-\d+) and (\d+)/) },
  { what: 'no block in the spawn area (game_blocks_outside_spawn)', expected: [SPAWN_RADIUS, SPAWN_RADIUS], read: (s) => numbers(named(s.constraints, 'game_blocks.game_blocks_outside_spawn'), /abs\(x\) > (\d+)\) OR \(abs\(y\) > (\d+)/) },
  { what: 'no shared delete in the spawn area (policy)', expected: [SPAWN_RADIUS, SPAWN_RADIUS], read: (s) => numbers(named(s.policies, 'game_blocks.shared delete outside spawn'), /abs\(x\) > (\d+)\) OR \(abs\(y\) > (\d+)/) },
  { what: 'claims clear of spawn (game_claims_clear_of_spawn)', expected: [-CLAIM_SPAWN_CLEARANCE, CLAIM_SPAWN_CLEARANCE, -CLAIM_SPAWN_CLEARANCE, CLAIM_SPAWN_CLEARANCE], read: (s) => numbers(named(s.constraints, 'game_claims.game_claims_clear_of_spawn'), /x2 < '(-\d+)'::integer\) OR \(x1 > (\d+)\) OR \(y2 < '(-\d+)'::integer\) OR \(y1 > (\d+)/) },
  { what: 'claims clear of spawn (check_claim)', expected: [-CLAIM_SPAWN_CLEARANCE, CLAIM_SPAWN_CLEARANCE, -CLAIM_SPAWN_CLEARANCE, CLAIM_SPAWN_CLEARANCE], read: (s) => numbers(fn(s, 'check_claim'), /new\.x2 < (-\d+) or new\.x1 > (\d+) or new\.y2 < (-\d+) or new\.y1 > (\d+)/) },
  { what: 'claims inside the world (game_claims_inside_world)', expected: [WORLD_MIN_TILE, WORLD_MAX_TILE, WORLD_MIN_TILE, WORLD_MAX_TILE], read: (s) => numbers(named(s.constraints, 'game_claims.game_claims_inside_world'), /x1 >= '(-\d+)'::integer\) AND \(x2 <= (\d+)\) AND \(y1 >= '(-\d+)'::integer\) AND \(y2 <= (\d+)/) },
  { what: 'blocks inside the world (game_blocks_inside_world)', expected: [WORLD_MIN_TILE, WORLD_MAX_TILE, WORLD_MIN_TILE, WORLD_MAX_TILE], read: (s) => numbers(named(s.constraints, 'game_blocks.game_blocks_inside_world'), /x >= '(-\d+)'::integer\) AND \(x <= (\d+)\)\) AND \(\(y >= '(-\d+)'::integer\) AND \(y <= (\d+)/) },
  { what: 'voice clips inside the world (game_voice_messages_inside_world)', expected: [WORLD_MIN_TILE, WORLD_MAX_TILE, WORLD_MIN_TILE, WORLD_MAX_TILE], read: (s) => numbers(named(s.constraints, 'game_voice_messages.game_voice_messages_inside_world'), /x >= '(-\d+)'::integer\) AND \(x <= (\d+)\)\) AND \(\(y >= '(-\d+)'::integer\) AND \(y <= (\d+)/) },
  { what: 'players inside the world (game_players_inside_world), in pixels', expected: [WORLD_MIN_TILE * TILE_SIZE, (WORLD_MAX_TILE + 1) * TILE_SIZE - 1], read: (s) => numbers(named(s.constraints, 'game_players.game_players_inside_world'), /x >= '(-\d+)'::integer\) AND \(x <= (\d+)\)/) },
  { what: 'tiles of a position (check_attack): pixels over the tile size', expected: [TILE_SIZE, TILE_SIZE], read: (s) => everyNumber(fn(s, 'check_attack'), /floor\(victim_at\.[xy] \/ (\d+)\.0\)/g) },
  // Blocks.
  { what: 'the block types (game_blocks_block_type_check), in order', expected: [...BLOCK_TYPES], read: (s) => [...named(s.constraints, 'game_blocks.game_blocks_block_type_check').matchAll(/'(\w+)'::text/g)].map((m) => m[1]) },
  // Texts.
  { what: 'the longest player name (is_player_name)', expected: [NAME_MAX_LENGTH], read: (s) => numbers(fn(s, 'is_player_name'), /char_length\(name\) between 1 and (\d+)/) },
  { what: 'the longest chat message (game_chat_messages_message_check)', expected: [CHAT_MAX_LENGTH], read: (s) => numbers(named(s.constraints, 'game_chat_messages.game_chat_messages_message_check'), /char_length\(message\) <= (\d+)/) },
  { what: 'the reasons of a report (game_reports_reason_check), in order', expected: [...REPORT_REASONS], read: (s) => [...named(s.constraints, 'game_reports.game_reports_reason_check').matchAll(/'(\w+)'::text/g)].map((m) => m[1]) },
  { what: 'the longest note of a report (game_reports_note_check)', expected: [REPORT_NOTE_MAX], read: (s) => numbers(named(s.constraints, 'game_reports.game_reports_note_check'), /char_length\(note\) <= (\d+)/) },
  // Claims.
  { what: 'claim sizes (game_claims_size): corners apart', expected: [CLAIM_MIN_TILES - 1, CLAIM_MAX_TILES - 1, CLAIM_MIN_TILES - 1, CLAIM_MAX_TILES - 1], read: (s) => numbers(named(s.constraints, 'game_claims.game_claims_size'), /\(x2 - x1\) >= (\d+)\) AND \(\(x2 - x1\) <= (\d+)\)\) AND \(\(\(y2 - y1\) >= (\d+)\) AND \(\(y2 - y1\) <= (\d+)/) },
  { what: 'claim sizes (check_claim)', expected: [CLAIM_MIN_TILES, CLAIM_MIN_TILES, CLAIM_MAX_TILES, CLAIM_MAX_TILES], read: (s) => [
    ...numbers(fn(s, 'check_claim'), /if width < (\d+) or height < (\d+) then/),
    ...numbers(fn(s, 'check_claim'), /if width > (\d+) or height > (\d+) then/),
  ] },
  { what: 'the claimable tiles (claim_tiles_total): most, at the start, per hour played', expected: [CLAIM_TILES_MAX, CLAIM_TILES_START, CLAIM_TILES_PER_HOUR], read: (s) => numbers(fn(s, 'claim_tiles_total'), /least\((\d+), (\d+) \+ coalesce\(\s*\(select floor\(e\.played_seconds \* (\d+) \/ 3600\)/) },
  // Rates.
  { what: 'the rate of block changes (game_blocks_rate)', expected: RATES.blocks, read: (s) => rateOf(s, 'game_blocks.game_blocks_rate') },
  { what: 'the rate of chat messages (game_chat_messages_rate)', expected: RATES.chat, read: (s) => rateOf(s, 'game_chat_messages.game_chat_messages_rate') },
  { what: 'the rate of claims made (game_claims_rate)', expected: RATES.claims, read: (s) => rateOf(s, 'game_claims.game_claims_rate') },
  { what: 'the rate of trusts given (game_claim_members_rate), the same bucket as claims', expected: RATES.claims, read: (s) => rateOf(s, 'game_claim_members.game_claim_members_rate') },
  { what: 'the rate of voice clips (game_voice_messages_rate)', expected: RATES.voice, read: (s) => rateOf(s, 'game_voice_messages.game_voice_messages_rate') },
  // Messages.
  { what: 'changes per blocks message (send_block_changes)', expected: [MAX_BLOCK_CHANGES_PER_MESSAGE], read: (s) => numbers(fn(s, 'send_block_changes'), /- 1\) \/ (\d+) as part/) },
  { what: 'entries per claims message (send_claim_changes)', expected: [MAX_CLAIM_CHANGES_PER_MESSAGE], read: (s) => numbers(fn(s, 'send_claim_changes'), /- 1\) \/ (\d+) as part/) },
];

/** Reads the rules of the running database. */
async function readSchema(db: pg.Client): Promise<Schema> {
  const rows = async (sql: string) => (await db.query<{ key: string; text: string }>(sql)).rows.map((row) => [row.key, row.text] as [string, string]);
  return {
    functions: new Map(await rows(`select p.proname as key, p.prosrc as text from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('game_private', 'public')`)),
    constraints: new Map(await rows(`select c.conrelid::regclass::text || '.' || c.conname as key, pg_get_constraintdef(c.oid) as text from pg_constraint c where c.connamespace = 'public'::regnamespace and c.conrelid <> 0`).then((list) => list.map(([key, text]) => [key.replace(/^public\./, ''), text] as [string, string]))),
    triggers: new Map(await rows(`select t.tgrelid::regclass::text || '.' || t.tgname as key, pg_get_triggerdef(t.oid) as text from pg_trigger t where not t.tgisinternal`).then((list) => list.map(([key, text]) => [key.replace(/^public\./, ''), text] as [string, string]))),
    policies: new Map(await rows(`select tablename || '.' || policyname as key, coalesce(qual, with_check) as text from pg_policies where schemaname = 'public'`)),
  };
}

/** The messages the database sent in the transaction so far that `seen` does not hold yet, on blocks topics, in the order sent. */
async function newMessages(db: pg.Client, seen: Set<string>): Promise<Array<{ topic: string; event: string; payload: Record<string, unknown> }>> {
  const { rows } = await db.query<{ id: string; topic: string; event: string; payload: Record<string, unknown> }>(
    `select id::text, topic, event, payload from realtime.messages where topic like 'blocks:%' order by ctid`,
  );
  const fresh = rows.filter((row) => !seen.has(row.id));
  for (const row of fresh) seen.add(row.id);
  // The database adds the message's id to a payload that has none.
  return fresh.map(({ id, topic, event, payload }) => {
    const { id: payloadId, ...rest } = payload;
    assert.is(payloadId, id);
    return { topic, event, payload: rest };
  });
}

const test = suite<{ server: TestServer; db: pg.Client; schema: Schema }>('protocol and SQL');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.db = await connectAsOperator(ctx.server);
  ctx.schema = await readSchema(ctx.db);
});

test.after(async ({ server, db }) => {
  await db.end();
  await server.stop();
});

for (const pin of PINS) {
  test(`${pin.what}: SQL writes the protocol's value`, ({ schema }) => {
    assert.equal(pin.read(schema), pin.expected);
  });
}

test('the carried slack the database computes is the protocol\'s', async ({ db }) => {
  const { rows: [row] } = await db.query<{ cap: number }>('select game_private.movement_slack_cap() as cap');
  assert.is(row!.cap, MOVE_SLACK_CAP_PX);
});

test('tile_region_index and tile_region give the protocol region of every tile', async ({ db }) => {
  const tiles = Array.from({ length: 401 }, (_, i) => i - 200).concat([WORLD_MIN_TILE, WORLD_MAX_TILE]);
  const { rows } = await db.query<{ t: number; index: number; name: string }>(
    `select t, game_private.tile_region_index(t) as index, game_private.tile_region(t, -t) as name from unnest($1::int[]) with ordinality as u(t, n) order by n`,
    [tiles],
  );
  assert.equal(rows.map((row) => row.index), tiles.map(regionIndexOfTile));
  assert.equal(rows.map((row) => row.name), tiles.map((t) => regionName(regionOfTile(t, -t))));
});

test('the generated game_players.region column names the protocol region of every position', async ({ db }) => {
  const { rows: [column] } = await db.query<{ expression: string }>(
    `select pg_get_expr(d.adbin, d.adrelid) as expression from pg_attrdef d
       join pg_attribute a on a.attrelid = d.adrelid and a.attnum = d.adnum
      where d.adrelid = 'public.game_players'::regclass and a.attname = 'region'`,
  );
  const positions = [[0, 0], [-512, 511], [-513, 512], [1535, -1537], [-160000, 159999], [33, -2049]] as const;
  const { rows } = await db.query<{ region: string }>(
    `select ${column!.expression} as region from unnest($1::int[], $2::int[]) with ordinality as t(x, y, n) order by n`,
    [positions.map(([x]) => x), positions.map(([, y]) => y)],
  );
  assert.equal(rows.map((row) => row.region), positions.map(([x, y]) => regionName(regionOf(x, y))));
});

test('the database sends block changes as the protocol encodes them, on the blocks topic of their region, at most 256 a message', async ({ db }) => {
  const owner = 'ProtocolWallet';
  const seen = new Set<string>();
  await db.query('begin');
  try {
    // Two tiles in two regions, placed, one of them changed, then both removed.
    const place = [[15, 40, 'stone'], [16, 40, 'glass']] as const;
    await db.query(
      `insert into public.game_blocks (x, y, block_type, player_id, player_name)
       select t.x, t.y, t.type, $4::text, 'Proto' from unnest($1::int[], $2::int[], $3::text[]) as t(x, y, type)`,
      [place.map(([x]) => x), place.map(([, y]) => y), place.map(([, , type]) => type), owner],
    );
    const placed = (x: number, y: number, blockType: string): BlockChange => ({ x, y, blockType, owner });
    const cleared = (x: number, y: number): BlockChange => ({ x, y, blockType: null, owner: '' });
    const expected = (changes: BlockChange[]) => {
      const byTopic = new Map<string, BlockChange[]>();
      for (const change of changes) {
        const topic = blocksTopic(regionOfTile(change.x, change.y));
        byTopic.set(topic, [...(byTopic.get(topic) ?? []), change]);
      }
      return [...byTopic].sort(([a], [b]) => (a < b ? -1 : 1)).map(([topic, list]) => ({ topic, event: BLOCKS_EVENT, payload: encodeBlockChanges(list) }));
    };
    assert.equal(await newMessages(db, seen), expected([placed(15, 40, 'stone'), placed(16, 40, 'glass')]));
    assert.equal((await newMessages(db, seen)).length, 0);
    await db.query(`update public.game_blocks set block_type = 'gold' where x = 16 and y = 40`);
    assert.equal(await newMessages(db, seen), expected([cleared(16, 40), placed(16, 40, 'gold')]));
    await db.query(`delete from public.game_blocks where player_id = $1`, [owner]);
    assert.equal(await newMessages(db, seen), expected([cleared(15, 40), cleared(16, 40)]));
    // 320 blocks in region (2, 1): two messages, the first full.
    await db.query(
      `insert into public.game_blocks (x, y, block_type, player_id, player_name)
       select x, y, 'dirt', $1::text, 'Proto' from generate_series(48, 79) as gx(x), generate_series(16, 25) as gy(y)`,
      [owner],
    );
    const big = await newMessages(db, seen);
    assert.equal(big.map((m) => [m.topic, (m.payload.s as unknown[]).length]), [['blocks:2:1', MAX_BLOCK_CHANGES_PER_MESSAGE], ['blocks:2:1', 320 - MAX_BLOCK_CHANGES_PER_MESSAGE]]);
  } finally {
    await db.query('rollback');
  }
});

test('the database sends claim changes as the protocol encodes them, on every blocks topic the claim overlaps', async ({ db }) => {
  const seen = new Set<string>();
  await db.query('begin');
  try {
    const { rows: [claim] } = await db.query<{ id: string; owner_id: string; owner_name: string; x1: number; y1: number; x2: number; y2: number }>(
      `insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2) values ('ProtocolWallet', 'Proto', 10, 10, 40, 20)
       returning id::text, owner_id, owner_name, x1, y1, x2, y2`,
    );
    const topics = ['blocks:0:0', 'blocks:0:1', 'blocks:1:0', 'blocks:1:1'];
    const sent = (kind: 'made' | 'gone') => topics.map((topic) => ({ topic, event: CLAIMS_EVENT, payload: encodeClaimChanges(kind, [claim!]) }));
    const sorted = <T extends { topic: string }>(list: T[]) => [...list].sort((a, b) => (a.topic < b.topic ? -1 : 1));
    assert.equal(sorted(await newMessages(db, seen)), sent('made'));
    await db.query(`insert into public.game_claim_members (claim_id, player_id) values ($1, 'FriendWallet')`, [claim!.id]);
    const trust = { claim_id: claim!.id, player_id: 'FriendWallet' };
    assert.equal(sorted(await newMessages(db, seen)), topics.map((topic) => ({ topic, event: CLAIMS_EVENT, payload: encodeClaimChanges('trusted', [trust]) })));
    await db.query(`delete from public.game_claim_members where claim_id = $1`, [claim!.id]);
    assert.equal(sorted(await newMessages(db, seen)), topics.map((topic) => ({ topic, event: CLAIMS_EVENT, payload: encodeClaimChanges('untrusted', [trust]) })));
    await db.query(`delete from public.game_claims where id = $1`, [claim!.id]);
    assert.equal(sorted(await newMessages(db, seen)), sent('gone'));
  } finally {
    await db.query('rollback');
  }
});

test.run();
