/**
 * A world larger than any request bound, held by chunk (net/blocks/blocks.ts, net/chunks.ts): a player
 * reads only the chunks around its view by primary-key range, hears only the regions it holds,
 * drops chunks far behind it and reads them again, changes made meanwhile included, when it
 * comes back; a change heard while its chunk is being read is neither lost nor applied before
 * the read.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import { CHUNK_TILES, regionName, regionOfTile } from '../../../../protocol/geometry.js';
import { BLOCK_TYPES } from '../../../../protocol/rules.js';
import { connectAsOperator } from '../../../support/server.js';
import { waitFor } from '../../../support/wait.js';
import { signInPlayer, startTestServer, type TestServer } from '../../../support/harness.js';
import { enterRecorded, type RecordedPlayer } from '../../../support/recorded-player.js';
import { awaitDatabaseMarker, subscribeChannel } from '../../../support/live.js';

/** The seeded square: tiles -260..259 by -130..129, every tile but spawn's, 135,175 blocks. */
const SEED = { x0: -260, x1: 260, y0: -130, y1: 130 };
const SEED_OWNER = 'SeedOwnerWallet';
/** The type the seed puts at tile (x, y). */
const seededType = (x: number, y: number) => BLOCK_TYPES[(((x * 7 + y * 3) % 16) + 16) % 16]!;


/** The tiles of the 800x600 view around pixel (x, y). */
function viewTiles(x: number, y: number): Array<[number, number]> {
  const tiles: Array<[number, number]> = [];
  for (let ty = Math.floor((y - 300) / 32); ty <= Math.floor((y + 299) / 32); ty++) {
    for (let tx = Math.floor((x - 400) / 32); tx <= Math.floor((x + 399) / 32); tx++) tiles.push([tx, ty]);
  }
  return tiles;
}

/** The view around pixel (x, y) as the database has it, 'x,y' -> type. */
async function viewInDatabase(operator: pg.Client, x: number, y: number): Promise<Map<string, string>> {
  const tiles = viewTiles(x, y);
  const { rows } = await operator.query<{ x: number; y: number; block_type: string }>(
    'select x, y, block_type from public.game_blocks where x between $1 and $2 and y between $3 and $4',
    [tiles[0]![0], tiles.at(-1)![0], tiles[0]![1], tiles.at(-1)![1]],
  );
  return new Map(rows.map((row) => [`${row.x},${row.y}`, row.block_type]));
}

/** Whether the player shows exactly the database's view around pixel (x, y). */
async function showsView(player: RecordedPlayer, operator: pg.Client, x: number, y: number): Promise<boolean> {
  const expected = await viewInDatabase(operator, x, y);
  return viewTiles(x, y).every(([tx, ty]) => player.tiles.get(`${tx},${ty}`) === expected.get(`${tx},${ty}`));
}

const test = suite<{ server: TestServer; operator: pg.Client; ann: RecordedPlayer; bob: RecordedPlayer }>('world chunks');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.operator = await connectAsOperator(ctx.server);
  // Seeded as the owner with triggers off, as bench/world.ts seeds (nobody hears a seed).
  await ctx.operator.query(`set session_replication_role = replica`);
  await ctx.operator.query(
    `insert into public.game_blocks (x, y, block_type, player_id, player_name)
     select x, y, (array[${BLOCK_TYPES.map((t) => `'${t}'`).join(',')}])[((((x * 7 + y * 3) % 16) + 16) % 16) + 1], $5, 'Seed'
     from generate_series($1::int, $2::int - 1) x, generate_series($3::int, $4::int - 1) y
     where abs(x) > 2 or abs(y) > 2`,
    [SEED.x0, SEED.x1, SEED.y0, SEED.y1, SEED_OWNER],
  );
  await ctx.operator.query(`set session_replication_role = origin`);
  ctx.bob = await enterRecorded(ctx.server, 'Bob', 16, 16);
});

test.after(async ({ server, operator, ann, bob }) => {
  await Promise.all([ann?.session.close(), bob.session.close()]);
  await operator.end();
  await server.stop();
});

test('SQL names the region of a tile as the client does', async ({ operator }) => {
  const tiles = [[0, 0], [15, -16], [16, 15], [-17, 47], [48, -49], [4999, -5000], [-5000, 4999]] as const;
  const { rows } = await operator.query<{ region: string }>(
    `select game_private.tile_region(t.x, t.y) as region from unnest($1::int[], $2::int[]) with ordinality as t(x, y, n) order by n`,
    [tiles.map(([x]) => x), tiles.map(([, y]) => y)],
  );
  assert.equal(rows.map((row) => row.region), tiles.map(([x, y]) => regionName(regionOfTile(x, y))));
});

test('a world of more blocks than any page or offset bound is entered, and the view shows', async (ctx) => {
  const { rows } = await ctx.operator.query<{ n: number }>('select count(*)::int as n from public.game_blocks');
  assert.is(rows[0]!.n, 520 * 260 - 25);
  ctx.ann = await enterRecorded(ctx.server, 'Ann', 16, 16);
  await waitFor(() => showsView(ctx.ann, ctx.operator, 16, 16), { message: 'the view around spawn', timeout: 10_000 });
  assert.is(ctx.ann.tiles.get('10,8'), seededType(10, 8));
  // Every block read was a chunk's primary-key range, 256 rows at most, never an offset.
  const reads = ctx.ann.urls.filter((url) => url.includes('/rest/v1/game_blocks?') && url.includes('x=gte.'));
  assert.ok(reads.length >= 4, `${reads.length} chunk reads`);
  for (const url of reads) {
    const params = new URL(url).searchParams;
    assert.equal(params.getAll('x').length, 2, url);
    assert.is(params.get('limit'), String(CHUNK_TILES * CHUNK_TILES), url);
    assert.is(params.get('offset'), null, url);
    assert.is(params.get('select'), 'x,y,block_type,player_id', url);
  }
  // A bounded part of the world: the chunks the view and its 192 px margin touch (pixels -576..607
  // by -476..507), not the 135,175 blocks.
  const around = ['-2:-1', '-1:-1', '0:-1', '1:-1', '-2:0', '-1:0', '0:0', '1:0'];
  await waitFor(() => ctx.ann.session.heldChunks().length === around.length, { message: 'the margin read' });
  assert.equal(ctx.ann.session.heldChunks().sort(), around.sort());
  assert.is(ctx.ann.tiles.size, 8 * 256 - 25, 'every tile of those chunks but the 25 of spawn');
});

test('a change in a region the player does not hold never reaches its socket; one in view does', async ({ operator, ann }) => {
  const frames = ann.frames.length;
  // Far away (region 63:63), then in view (region 0:0), both as the owner.
  await operator.query(`insert into public.game_blocks (x, y, block_type, player_id, player_name) values (2000, 2000, 'gold', $1, 'Seed')`, [SEED_OWNER]);
  await operator.query(`delete from public.game_blocks where x = 10 and y = 8`);
  await waitFor(() => !ann.tiles.has('10,8'), { message: 'the removal in view' });
  const heard = ann.frames.slice(frames);
  assert.is(heard.filter((frame) => frame.includes('blocks:63:63')).length, 0, 'nothing of the far region');
  assert.is(heard.filter((frame) => frame.includes('realtime:blocks:0:0')).length, 1, 'one frame for the removal in view');
});

test('a player standing where the far change was hears it there', async ({ server, operator }) => {
  const far = await enterRecorded(server, 'Far', 2000 * 32 + 16, 2000 * 32 + 16);
  try {
    await waitFor(() => far.tiles.get('2000,2000') === 'gold', { message: 'the far block read' });
    await operator.query(`update public.game_blocks set block_type = 'iron' where x = 2000 and y = 2000`);
    await waitFor(() => far.tiles.get('2000,2000') === 'iron', { message: 'the far change heard' });
  } finally {
    await far.session.close();
  }
});

test('a client cannot speak on a block topic: only the database does', async ({ server, ann }) => {
  const carol = await signInPlayer(server);
  await carol.client.realtime.setAuth();
  const channel = carol.client.channel('blocks:0:0', { config: { private: true, broadcast: { ack: true } } });
  await subscribeChannel(channel);
  const answer = await channel.send({ type: 'broadcast', event: 'blocks', payload: { c: [], s: [[11, 8, 'diamond', carol.address]] } });
  // Barrier: a real change after the fake one reaches Ann.
  await carol.client.removeChannel(channel);
  ann.queues.outbox.push({ kind: 'removeBlock', x: 12, y: 8, blockType: null });
  await waitFor(() => !ann.tiles.has('12,8'), { message: 'the real removal' });
  assert.is(ann.tiles.get('11,8'), seededType(11, 8), `the fake change was not shown (send answered ${answer})`);
});

test('chunks far behind a walking player are dropped, and read again with the changes made meanwhile', async ({ operator, ann }) => {
  const spawnChunk = '0:0';
  assert.ok(ann.session.heldChunks().includes(spawnChunk));
  const farX = 120 * 32;
  ann.pose.x = farX; // the engine's position; presence refuses the jump, blocks follow the view
  await waitFor(() => !ann.session.heldChunks().includes(spawnChunk) && !ann.tiles.has('4,4'), { message: 'the spawn chunks dropped' });
  await waitFor(() => showsView(ann, operator, farX, 16), { message: 'the far view', timeout: 10_000 });
  assert.ok(ann.events.some((e) => e.kind === 'areaDropped' && e.x === 0 && e.y === 0));
  assert.ok([...ann.tiles.keys()].every((key) => Number(key.split(',')[0]) > 40), 'nothing near spawn is held');
  await operator.query(`delete from public.game_blocks where x = 4 and y = 4`);
  await operator.query(`update public.game_blocks set block_type = 'obsidian' where x = 5 and y = 4`);
  ann.pose.x = 16;
  await waitFor(() => showsView(ann, operator, 16, 16), { message: 'the view around spawn again', timeout: 10_000 });
  assert.is(ann.tiles.get('4,4'), undefined);
  assert.is(ann.tiles.get('5,4'), 'obsidian');
});

test('a change heard while its chunk is read is applied after the read, neither lost nor early', async ({ server, operator, bob }) => {
  // Dan's read of chunk 0:0 is answered by the server, then held back until Bob has built.
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let answered!: () => void;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  const gated: typeof fetch = async (input, init) => {
    const url = String(input instanceof Request ? input.url : input);
    const response = await fetch(input, init);
    if (url.includes('/rest/v1/game_blocks?') && url.includes('x=gte.0&x=lt.16&y=gte.0&y=lt.16')) {
      answered();
      await released;
    }
    return response;
  };
  await operator.query(`delete from public.game_blocks where x in (6, 7) and y = 3`);
  const dan = await enterRecorded(server, 'Dan', 16, 16, { fetch: gated });
  try {
    await answer;
    bob.queues.outbox.push({ kind: 'placeBlock', x: 6, y: 3, blockType: 'gold', inventory: true });
    bob.queues.outbox.push({ kind: 'removeBlock', x: 8, y: 3, blockType: null });
    await waitFor(() => bob.tiles.get('6,3') === 'gold' && !bob.tiles.has('8,3'), { message: 'Bob\'s changes heard by Bob' });
    // Committed, then heard by Dan's socket (whose read is still held back) before a later marker.
    await waitFor(async () => (await operator.query(`select block_type from public.game_blocks where (x, y) in ((6, 3), (8, 3))`)).rows.map((row) => row.block_type).join() === 'gold', {
      message: 'Bob\'s changes committed',
    });
    await awaitDatabaseMarker(dan.player.client, operator);
    assert.is(dan.tiles.get('8,3'), undefined, 'nothing of the chunk is shown before its read');
    release();
    await waitFor(() => showsView(dan, operator, 16, 16), { message: 'Dan\'s view' });
    assert.is(dan.tiles.get('6,3'), 'gold');
    assert.is(dan.tiles.get('8,3'), undefined);
    assert.is(dan.tiles.get('9,3'), seededType(9, 3));
    const loadedAt = dan.events.findIndex((e) => e.kind === 'areaLoaded' && e.x === 0 && e.y === 0);
    const placedAt = dan.events.findIndex((e) => e.kind === 'blockSet' && e.x === 6 && e.y === 3);
    assert.ok(loadedAt >= 0 && placedAt > loadedAt, `read at ${loadedAt}, change at ${placedAt}`);
    assert.is(dan.events.filter((e) => e.kind === 'blockSet' && e.x === 6 && e.y === 3).length, 1, 'applied once');
  } finally {
    release();
    await dan.session.close();
  }
});

test.run();
