/**
 * The server's water rule is the client's: the SQL port of the elevation noise
 * (supabase/migrations/20250201000000_terrain.sql) gives the same answer as
 * components/terrain.ts on every sampled tile, and the same elevation bits.
 */
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createRandom } from '../../../../components/prng.js';
import { elevationAt, isWaterTile, WORLD_SEED } from '../../../../components/terrain.js';

const MIGRATION = 'supabase/migrations/20250201000000_terrain.sql';

test('is_water and elevation_at agree with terrain.ts on 4,000 tiles across the world', async () => {
  const db = new PGlite();
  await db.exec('create schema game_private;');
  await db.exec(await readFile(MIGRATION, 'utf8'));
  const random = createRandom(7);
  const tiles: Array<[number, number]> = [];
  for (let i = 0; i < 4000; i++) tiles.push([Math.floor(random() * 10000) - 5000, Math.floor(random() * 10000) - 5000]);
  // A dense patch too, so coastlines (tiles on both sides of the threshold) are covered.
  for (let x = 1180; x < 1200; x++) for (let y = -40; y < -20; y++) tiles.push([x, y]);
  const { rows } = await db.query<{ x: number; y: number; water: boolean; e: number }>(
    `select t.x, t.y, game_private.is_water(t.x, t.y) as water, game_private.elevation_at(t.x, t.y) as e
       from unnest($1::int[], $2::int[]) as t(x, y)`,
    [tiles.map((t) => t[0]), tiles.map((t) => t[1])],
  );
  let water = 0;
  for (const row of rows) {
    assert.is(row.e, elevationAt(row.x, row.y, WORLD_SEED), `elevation at ${row.x},${row.y}`);
    assert.is(row.water, isWaterTile(row.x, row.y, WORLD_SEED), `water at ${row.x},${row.y}`);
    if (row.water) water++;
  }
  assert.is(rows.length, 4400);
  assert.ok(water > 200 && water < 4200, `both kinds sampled: ${water} water tiles`);
  await db.close();
});

test.run();
