/**
 * Losing the server mid-game in the browser: the server process stops and a new one starts on the
 * same PORT and DATA_DIR. Meanwhile the page says so (the RECONNECTING... banner, a cross by the
 * players online), keeps a block placed while the server is away and sends it once it is back;
 * the banner leaves by itself once the player is back in the world (presence, channels, view).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { landTileRightOf, landTileRightOfPlayer, tileInCanvas } from '../support/canvas-points.js';
import { connectAsOperator } from '../support/server.js';
import { CHROMIUM_ARGS, startE2EServer } from '../support/browser.js';
import { closeTwoPlayerWorld, openTwoPlayerWorld, type TwoPlayerWorld } from '../support/enter-world.js';
import { waitFor } from '../support/wait.js';

interface World extends TwoPlayerWorld {
  /** Requests of Alice's page that failed without an answer, as 'METHOD path'. */
  failed: string[];
}

const test = suite<World>('reconnect');

const BANNER = '[data-testid=reconnect-banner]';
const ONLINE = '[data-testid=players-online]';

/** Polls `check(arg)` in the page until it returns a truthy value. */
async function until<T, A = undefined>(page: Page, check: (arg: A) => T, arg?: A, timeout = 10_000): Promise<Exclude<T, false | null | undefined>> {
  const handle = await page.waitForFunction(check as (value: unknown) => T, arg, { timeout, polling: 50 });
  return (await handle.jsonValue()) as Exclude<T, false | null | undefined>;
}

async function clickTile(page: Page, tileX: number, tileY: number): Promise<void> {
  await page.locator('canvas.game-canvas').click({ position: await tileInCanvas(page, tileX, tileY) });
}

test.before(async (world) => {
  await openTwoPlayerWorld(world, CHROMIUM_ARGS);
  world.failed = [];
  world.alice.page.on('requestfailed', (request) => world.failed.push(`${request.method()} ${new URL(request.url()).pathname}`));
});

test.after(closeTwoPlayerWorld);

test('the server goes away: banner and cross, the block placed meanwhile is sent once back, the banner leaves by itself', async (world) => {
  const { alice, bob } = world;
  const page = alice.page;
  await until(page, (selector) => document.querySelector<HTMLElement>(selector)!.innerText.includes('✓ 2 ONLINE'), ONLINE);
  assert.is(await page.locator(BANNER).count(), 0, 'no banner while online');

  await world.server.stop();
  await page.locator(BANNER).waitFor();
  assert.equal(await page.locator(`${BANNER} p`).allInnerTexts(), ['RECONNECTING...', 'Your edits are kept and sent once the world is back.']);
  assert.match(await page.locator(ONLINE).innerText(), /✗/);

  const { tileX, tileY } = await landTileRightOfPlayer(page);
  await clickTile(page, tileX, tileY);
  assert.is(await until(page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone', 'shown at once');
  await waitFor(() => world.failed.includes('POST /rest/v1/game_blocks'), { message: 'the placement tried while the server is away' });
  assert.is(await page.evaluate(([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone', 'kept, not rolled back');

  ({ server: world.server } = await startE2EServer(world.port, world.dataDir));
  const reachable = Date.now();
  await page.locator(BANNER).waitFor({ state: 'detached', timeout: 10_000 });
  const backMs = Date.now() - reachable;
  console.log(`banner gone ${backMs} ms after the server answered again`);
  assert.ok(backMs < 5000, `back within 5 s (${backMs} ms)`);
  assert.match(await page.locator(ONLINE).innerText(), /✓ 2 ONLINE/);
  assert.is(await page.evaluate(([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone');
  assert.equal(await page.locator('.toast').allInnerTexts(), [], 'nothing refused');

  const db = await connectAsOperator(world.server);
  try {
    const read = async () => (await db.query('select block_type, player_id from public.game_blocks where x = $1 and y = $2', [tileX, tileY])).rows;
    // Sent once the player is back: it reaches the database a round trip after the banner leaves.
    assert.equal(await waitFor(async () => (await read()).length > 0 && read()), [{ block_type: 'stone', player_id: alice.wallet.address }], 'in the database');
  } finally {
    await db.end();
  }

  // Presence and channels are back both ways: each still sees the other, and a block and a step of Bob's reach Alice live.
  await bob.page.locator(BANNER).waitFor({ state: 'detached', timeout: 10_000 });
  assert.is(await until(bob.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone', 'Bob sees the kept block');
  const bobTileX = landTileRightOf(tileX, tileY);
  await clickTile(bob.page, bobTileX, tileY);
  assert.is(await until(page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [bobTileX, tileY]), 'stone', 'Bob\'s block heard live');
  // Inside the spawn area (5x5 tiles of land) a walk of 400 ms to the left meets nothing.
  const seenX = () => page.evaluate((id) => window.__tessera!.remotePlayers().find((p) => p.id === id)?.x ?? null, bob.wallet.address);
  const x0 = (await seenX())!;
  await bob.page.keyboard.down('KeyA');
  await bob.page.waitForTimeout(400);
  await bob.page.keyboard.up('KeyA');
  await until(page, ([id, x]) => (window.__tessera!.remotePlayers().find((p) => p.id === id)?.x ?? Infinity) < x! - 30, [bob.wallet.address, x0] as const);
  assert.ok((await seenX())! < x0 - 30, 'Bob\'s steps seen by Alice');
});

test.run();
