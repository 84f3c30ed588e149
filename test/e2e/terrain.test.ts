/**
 * Soft biome borders drawn by the game's chunk renderer in Chromium, at the shared world's seed:
 * the grassland tile (-1, -3) north-west of spawn borders forest on its west, and shows the
 * forest's fringe texel for texel.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { build } from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { BIOME, biomeCodeAt, WORLD_SEED } from '../../components/terrain.js';
import { fringeMask, fringesOf } from '../../systems/draw/biome-edges.js';
import { BIOME_COLORS, BIOME_RIMS } from '../../systems/draw/terrain-sprites.js';
import { CHROMIUM_ARGS } from '../support/browser.js';

let browser: Browser;
let page: Page;

test.before(async () => {
  const bundle = await build({ entryPoints: ['test/support/terrain-page.ts'], bundle: true, write: false, format: 'iife', platform: 'browser' });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
  page = await browser.newPage();
  await page.setContent('<!doctype html><body style="margin:0;background:#000"></body>');
  await page.addScriptTag({ content: bundle.outputFiles[0]!.text });
});

test.after(async () => {
  await browser.close();
});

const rgb = (css: string) => [parseInt(css.slice(1, 3), 16), parseInt(css.slice(3, 5), 16), parseInt(css.slice(5, 7), 16)];

test('a grassland tile bordering forest draws the forest fringe, exactly where its pattern says', async () => {
  const [tx, ty] = [-1, -3];
  assert.is(biomeCodeAt(tx, ty, WORLD_SEED), BIOME.grassland);
  assert.is(biomeCodeAt(tx - 1, ty, WORLD_SEED), BIOME.forest);
  const fringes = fringesOf(tx, ty, WORLD_SEED, (x, y) => biomeCodeAt(x, y, WORLD_SEED));
  assert.equal(fringes.map((f) => [f.biome, f.dir]), [[BIOME.forest, 3]], 'one fringe: forest, from the west');
  const pixels = await page.evaluate(([x, y, seed]) => window.paintTerrain(x!, y!, 1, 1, seed!), [tx, ty, WORLD_SEED]);
  const at = (px: number, py: number) => pixels.slice((py * 32 + px) * 4, (py * 32 + px) * 4 + 3);
  const mask = fringeMask(3, fringes[0]!.variant);
  const body = rgb(BIOME_COLORS[BIOME.forest]!);
  const rim = rgb(BIOME_RIMS[BIOME.forest]!);
  let drawn = 0;
  for (let t = 0; t < 256; t++) {
    if (mask[t] === 0) continue;
    drawn++;
    const [x, y] = [(t % 16) * 2, Math.floor(t / 16) * 2];
    for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]] as const) assert.equal(at(x + dx, y + dy), mask[t] === 1 ? body : rim, `texel ${t % 16},${Math.floor(t / 16)}`);
  }
  assert.ok(drawn >= 16, `${drawn} fringe texels`);
  // The whole west column is forest: the straight line between the biomes is gone.
  for (let y = 0; y < 32; y++) assert.ok([body, rim].some((c) => String(c) === String(at(0, y))), `pixel 0,${y}: ${at(0, y)}`);
  // Deep inside the tile the grassland shows: the fringe is at most 5 texels deep.
  assert.ok(![body, rim].some((c) => String(c) === String(at(30, 16))), 'the east side stays grassland');
});

test.run();
