/**
 * Two players in two Chromium contexts on one embedded server: presence, live movement,
 * blocks, chat, combat, voice, leaving, and a resync after the server restarts. The steps
 * run in order and share the two players.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Page } from 'playwright-core';
import { isSpawnTile, isWaterTile, WORLD_SEED } from '../../components/terrain.js';
import { landTileRightOfPlayer, tileInCanvas } from '../support/canvas-points.js';
import { CHROMIUM_ARGS, FAKE_MICROPHONE_ARGS, startE2EServer } from '../support/browser.js';
import { closeTwoPlayerWorld, openTwoPlayerWorld, type TwoPlayerWorld } from '../support/enter-world.js';
import { createPageWallet, installTestWallet } from '../support/browser-wallet.js';

/** Fake microphone, always allowed, and clips may play without a click. */
const MEDIA_ARGS = [...FAKE_MICROPHONE_ARGS, '--use-fake-ui-for-media-stream', '--autoplay-policy=no-user-gesture-required'];

const test = suite<TwoPlayerWorld>('multiplayer');

/**
 * Polls `check(arg)` in the page until it returns a truthy value. A function, not a string: the
 * page's Content-Security-Policy forbids evaluating strings as code.
 */
async function until<T, A = undefined>(page: Page, check: (arg: A) => T, arg?: A, timeout = 10_000): Promise<Exclude<T, false | null | undefined>> {
  const handle = await page.waitForFunction(check as (value: unknown) => T, arg, { timeout, polling: 50 });
  return (await handle.jsonValue()) as Exclude<T, false | null | undefined>;
}

const local = (page: Page) => page.evaluate(() => window.__tessera!.localPlayer()!);
const remote = (page: Page, id: string) =>
  page.evaluate((target) => window.__tessera!.remotePlayers().find((p) => p.id === target) ?? null, id);

/** Holds a key for `ms` and waits until the player has stopped. */
async function walk(page: Page, key: string, ms: number): Promise<void> {
  await page.keyboard.down(key);
  await page.waitForTimeout(ms);
  await page.keyboard.up(key);
  await page.waitForTimeout(100);
}

/** Clicks the centre of tile (tileX, tileY) on the canvas, which is centred on the player. */
async function clickTile(page: Page, tileX: number, tileY: number, button: 'left' | 'right'): Promise<void> {
  await page.locator('canvas.game-canvas').click({ position: await tileInCanvas(page, tileX, tileY), button });
}

test.before(async (world) => {
  await openTwoPlayerWorld(world, [...CHROMIUM_ARGS, ...MEDIA_ARGS]);
});

test.after(closeTwoPlayerWorld);

test('each player sees the other, by name, and the online tick', async ({ alice, bob }) => {
  const seenByAlice = await until(alice.page, (id) => window.__tessera!.remotePlayers().find((p) => p.id === id)?.name, bob.wallet.address);
  const seenByBob = await until(bob.page, (id) => window.__tessera!.remotePlayers().find((p) => p.id === id)?.name, alice.wallet.address);
  assert.is(seenByAlice, 'Bob');
  assert.is(seenByBob, 'Alice');
  assert.match(await alice.page.locator('[data-testid=players-online]').innerText(), /✓/);
});

test('two players on one tile: two readable name labels that do not overlap, the local one drawn last', async ({ alice }) => {
  const [me, bob] = await Promise.all([local(alice.page), until(alice.page, () => window.__tessera!.remotePlayers()[0] ?? null)]);
  assert.equal([Math.floor(bob.x / 32), Math.floor(bob.y / 32)], [Math.floor(me.x / 32), Math.floor(me.y / 32)], 'both stand on the spawn tile');
  const labels = await until(alice.page, () => {
    const drawn = window.__tessera!.nameLabels();
    return drawn.length === 2 ? drawn : null;
  });
  assert.equal(labels.map((l) => l.name), ['Bob', 'Alice']);
  const [a, b] = labels as [typeof labels[0], typeof labels[0]];
  const overlap = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
  assert.not.ok(overlap, JSON.stringify(labels));
  for (const l of labels) assert.ok(Number.isInteger(l.x) && Number.isInteger(l.y) && l.height === 12, 'whole pixels, one line');
});

test('movement shows live on the other screen, smoothly', async ({ alice, bob }) => {
  const before = (await remote(alice.page, bob.wallet.address))!.x;
  // Alice samples Bob's drawn position every frame while Bob walks right.
  const samples = alice.page.evaluate(async (id) => {
    const frames: Array<{ t: number; x: number }> = [];
    const end = performance.now() + 1600;
    while (performance.now() < end) {
      const t = await new Promise<number>(requestAnimationFrame);
      frames.push({ t, x: window.__tessera!.remotePlayers().find((p) => p.id === id)!.x });
    }
    return frames;
  }, bob.wallet.address);
  await walk(bob.page, 'KeyD', 1000);
  const frames = await samples;
  const bobNow = (await local(bob.page)).x;
  const last = frames[frames.length - 1]!.x;
  assert.ok(bobNow - before >= 150, `Bob walked right (${before} -> ${bobNow})`);
  assert.ok(Math.abs(last - bobNow) <= 3, `Alice sees Bob where he stopped (${last} vs ${bobNow})`);
  // Walking speed is 3 px per 16 ms step (0.1875 px/ms). Over any 100 ms the remote figure never
  // moves much faster than that (single frames may hold one step more or less than the last).
  let fastest = 0;
  for (let i = 0; i < frames.length; i++) {
    const j = frames.findIndex((f) => f.t - frames[i]!.t >= 100);
    if (j < 0) break;
    fastest = Math.max(fastest, Math.abs(frames[j]!.x - frames[i]!.x) / (frames[j]!.t - frames[i]!.t));
  }
  assert.ok(fastest <= 0.1875 * 1.5, `no jumps: fastest drawn motion over 100 ms ${fastest.toFixed(3)} px/ms`);
});

test('blocks placed and removed by one player appear for the other', async ({ alice, bob }) => {
  await walk(alice.page, 'KeyD', 1000);
  const { tileX, tileY } = await landTileRightOfPlayer(alice.page);
  await clickTile(alice.page, tileX, tileY, 'left');
  // The engine applies the click on its next step.
  assert.is(await until(alice.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone');
  assert.is(await until(bob.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone');
  await clickTile(bob.page, tileX, tileY, 'right');
  await until(alice.page, ([x, y]) => window.__tessera!.tileAt(x!, y!) === null, [tileX, tileY]);
  assert.is(await bob.page.evaluate(([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), null);
});

test('building earns a level: the HUD shows LV 2 once the server counts ten placed blocks', async ({ alice }) => {
  assert.is(await alice.page.locator('.status-level').textContent(), 'LV 1');
  const me = await local(alice.page);
  const [px, py] = [Math.floor(me.x / 32), Math.floor(me.y / 32)];
  // Nine more land tiles in view, two to four rows above the player (she placed one already).
  const tiles: Array<[number, number]> = [];
  for (let dy = -4; dy <= -2 && tiles.length < 9; dy++) {
    for (let dx = -1; dx <= 3 && tiles.length < 9; dx++) {
      const [x, y] = [px + dx, py + dy];
      if (!isSpawnTile(x, y) && !isWaterTile(x, y, WORLD_SEED)) tiles.push([x, y]);
    }
  }
  assert.is(tiles.length, 9);
  for (const [x, y] of tiles) {
    await clickTile(alice.page, x, y, 'left');
    await until(alice.page, ([tx, ty]) => window.__tessera!.tileAt(tx, ty) !== null, [x, y] as const);
  }
  // The level is the server's: it arrives with the next heartbeat's answer (every 5 s).
  await until(alice.page, () => document.querySelector('.status-level')?.textContent === 'LV 2', undefined, 12_000);
  assert.is((await local(alice.page)).level, 2);
});

test('RESTORE puts back the block the other player removed; Ctrl+Z and Ctrl+Shift+Z undo and redo, seen by the other', async ({ alice, bob }) => {
  // Bob removed Alice's block two steps ago: it is the first land tile right of her again.
  const { tileX, tileY } = await landTileRightOfPlayer(alice.page);
  const restore = alice.page.getByTestId('restore-button');
  await restore.waitFor({ timeout: 12_000 });
  assert.is(await restore.textContent(), 'RESTORE 1');
  assert.is(await restore.getAttribute('aria-label'), 'Restore 1 block others removed');
  await restore.click();
  assert.is(await until(bob.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone');
  await restore.waitFor({ state: 'detached', timeout: 12_000 });
  // A new block of hers, one land tile further right; undone and redone from the keyboard.
  let next = tileX + 1;
  while (isWaterTile(next, tileY, WORLD_SEED)) next++;
  await clickTile(alice.page, next, tileY, 'left');
  assert.is(await until(bob.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [next, tileY]), 'stone');
  await alice.page.keyboard.press('Control+KeyZ');
  await until(bob.page, ([x, y]) => window.__tessera!.tileAt(x!, y!) === null, [next, tileY]);
  assert.is(await alice.page.evaluate(([x, y]) => window.__tessera!.tileAt(x!, y!), [next, tileY]), null);
  await alice.page.keyboard.press('Control+Shift+KeyZ');
  assert.is(await until(bob.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [next, tileY]), 'stone');
  // Bob cannot undo what Alice built: his history holds only his own removal, and undoing it
  // would put back a block that is not his.
  await bob.page.keyboard.press('Control+KeyZ');
  await bob.page.getByText('Only your own blocks can be put back.').waitFor();
});

test("a name another wallet holds is refused on the landing, look-alikes too, before ENTER WORLD", async ({ browser, port }) => {
  const wallet = createPageWallet();
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: `http://localhost:${port}` });
  await installTestWallet(context, wallet);
  const page = await context.newPage();
  await page.goto('/');
  await page.getByRole('button', { name: 'CONNECT PHANTOM' }).click();
  for (const name of ['ＡＬＩＣＥ', 'alice']) {
    await page.locator('#player-name').fill(name);
    await page.getByRole('button', { name: 'CONFIRM' }).click();
    await page.getByRole('alert').getByText('That name is taken by another player.').waitFor();
    assert.is(await page.getByRole('button', { name: 'ENTER WORLD' }).count(), 0);
  }
  await page.locator('#player-name').fill('Al\u200Bice');
  await page.getByRole('button', { name: 'CONFIRM' }).click();
  await page.getByRole('alert').getByText('Names cannot contain invisible characters.').waitFor();
  await page.locator('#player-name').fill('Carol');
  await page.getByRole('button', { name: 'CONFIRM' }).click();
  await page.getByRole('button', { name: 'ENTER WORLD' }).waitFor();
  assert.is(await page.getByRole('alert').count(), 0, 'honest: a free name goes through');
  await context.close();
});

test('chat goes both ways', async ({ alice, bob }) => {
  await alice.page.locator('.chat-input').fill('hello from alice');
  await alice.page.getByRole('button', { name: 'Send' }).click();
  await bob.page.getByText('hello from alice').waitFor({ timeout: 10_000 });
  await bob.page.locator('.chat-input').fill('hi alice');
  await bob.page.getByRole('button', { name: 'Send' }).click();
  await alice.page.getByText('hi alice').waitFor({ timeout: 10_000 });
});

test('a sword hit outside spawn damages the other player once per second, with a toast', async ({ alice, bob }) => {
  // Bring Alice next to Bob: both are right of spawn on the same row.
  for (let i = 0; i < 20; i++) {
    const gap = (await remote(alice.page, bob.wallet.address))!.x - (await local(alice.page)).x;
    if (Math.abs(gap) <= 32) break;
    await walk(alice.page, gap > 0 ? 'KeyD' : 'KeyA', Math.min(400, Math.abs(gap) * 5));
  }
  assert.is((await local(alice.page)).zone, 'pvp');
  assert.is((await local(bob.page)).zone, 'pvp');
  // Both presence rows must show the players where they stand now.
  await alice.page.waitForTimeout(1200);
  await alice.page.keyboard.press('Space');
  assert.is(await until(bob.page, () => window.__tessera!.localPlayer()!.health === 75 && 75), 75);
  await bob.page.getByText('HP 75/100').waitFor();
  await bob.page.getByText('Under Attack!').waitFor();
  await bob.page.getByText('You took 25 damage!').waitFor();
  await alice.page.waitForTimeout(350);
  await alice.page.keyboard.press('Space');
  await bob.page.waitForTimeout(500);
  assert.is((await local(bob.page)).health, 75, 'a second swing within 1000 ms does no damage');
  await alice.page.waitForTimeout(400);
  await alice.page.keyboard.press('Space');
  assert.is(await until(bob.page, () => window.__tessera!.localPlayer()!.health === 50 && 50), 50);
  assert.is(await until(alice.page, (id) => window.__tessera!.remotePlayers().find((p) => p.id === id)!.health === 50 && 50, bob.wallet.address, 12_000), 50);
});

test('at 0 HP the player is defeated, and everyone sees it respawn at spawn with full health', async ({ alice, bob }) => {
  for (const health of [25, 0]) {
    await alice.page.waitForTimeout(1050);
    await alice.page.keyboard.press('Space');
    await until(bob.page, (expected) => window.__tessera!.localPlayer()!.health === expected, health);
  }
  await bob.page.getByText('DEFEATED', { exact: false }).first().waitFor();
  // The engine brings Bob back 3 s later at spawn; his next heartbeat tells Alice.
  await until(bob.page, () => window.__tessera!.localPlayer()!.health === 100, undefined, 6000);
  const back = await local(bob.page);
  assert.equal([back.x, back.y, back.zone], [0, 0, 'safe']);
  const seen = await until(
    alice.page,
    (id) => {
      const b = window.__tessera!.remotePlayers().find((p) => p.id === id);
      return b && b.health === 100 && Math.abs(b.x) < 1 && b;
    },
    bob.wallet.address,
    12_000,
  );
  assert.is(seen.health, 100);
});

test('a voice clip from the fake microphone is heard by the nearby player', async ({ alice, bob }) => {
  const talk = alice.page.getByRole('button', { name: 'Hold to Talk' });
  const box = (await talk.boundingBox())!;
  await alice.page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await alice.page.mouse.down();
  await alice.page.getByRole('button', { name: 'Recording...' }).waitFor();
  await alice.page.waitForTimeout(800);
  await alice.page.mouse.up();
  assert.is(await until(bob.page, () => window.__tessera!.voiceHeard() === 1 && 1), 1);
  assert.is(await alice.page.evaluate(() => window.__tessera!.voiceHeard()), 0, 'nobody hears their own clip');
});

test('after a server restart both clients resync without a reload', async (world) => {
  const { alice, bob } = world;
  await world.server.stop();
  ({ server: world.server } = await startE2EServer(world.port, world.dataDir));
  await until(alice.page, () => document.querySelector<HTMLElement>('[data-testid=players-online]')!.innerText.includes('✓'), undefined, 20_000);
  await until(bob.page, () => document.querySelector<HTMLElement>('[data-testid=players-online]')!.innerText.includes('✓'), undefined, 20_000);
  const { tileX, tileY } = await landTileRightOfPlayer(bob.page);
  await clickTile(bob.page, tileX, tileY, 'left');
  assert.is(await until(alice.page, ([x, y]) => window.__tessera!.tileAt(x!, y!), [tileX, tileY]), 'stone');
  assert.ok(await remote(alice.page, bob.wallet.address), 'Alice still sees Bob');
});

test('leaving the game removes the player for the other', async ({ alice, bob }) => {
  await bob.page.goto('/nowhere');
  await until(alice.page, (id) => !window.__tessera!.remotePlayers().some((p) => p.id === id), bob.wallet.address);
  await bob.context.close();
});

test.run();
