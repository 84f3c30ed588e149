/**
 * Render benchmark: the built game in Debian's Chromium (no GPU), one player in the world at
 * spawn with 2,000 blocks built around it (every tile of the 800x600 view and beyond) and 20
 * other players walking on screen, their live poses handed to the engine at 15 Hz through the
 * page's probe hook (`window.__tesseraProbe`, see src/game/frame-probe.ts). Each animation frame
 * records the engine step and the drawing time. Prints JSON lines per case, "plain" and
 * "minimap+chat" (minimap open, chat panel filled with messages): frame time (step + drawing)
 * p50/p99, frames over 16.7 ms per minute, and the share of frame time spent drawing; each as
 * min/median/max over the runs. `--quick` runs shorter and fewer runs.
 */
import { chromium, type Page } from 'playwright-core';
import { TILE_SIZE } from '../components/constants.js';
import { isSpawnTile } from '../components/terrain.js';
import { CHROMIUM_ARGS } from '../test/e2e/setup.js';
import { enterWorld } from '../test/e2e/enter-world.js';
import { removeDataDir, startTestServer } from '../test/server/harness.js';
import { percentile, pick, printHeader, spread } from './stats.js';

const BLOCKS = 2_000;
const WALKERS = 20;
const POSE_HZ = 15;
const SECONDS = pick(20, 4);
const RUNS = pick(3, 2);
const WARMUP_SECONDS = pick(3, 1);
/** A frame longer than this misses a 60 Hz display's refresh. */
const LONG_FRAME_MS = 16.7;
const CHAT_MESSAGES = 5;
const BLOCK_TYPES = ['stone', 'brick', 'wood', 'dirt', 'sand', 'glass'];

/** 2,000 tiles in rows around spawn (spawn itself stays empty), as blockSet events. */
function builtArea(): { kind: 'blockSet'; x: number; y: number; blockType: string; owner: string }[] {
  const events = [];
  for (let y = -20; events.length < BLOCKS; y++) {
    for (let x = -25; x < 26 && events.length < BLOCKS; x++) {
      if (isSpawnTile(x, y)) continue;
      events.push({ kind: 'blockSet' as const, x, y, blockType: BLOCK_TYPES[(x * 7 + y * 3) & 3]!, owner: 'bench' });
    }
  }
  return events;
}

/** Starts the page-side walkers: each circles the local player at its own radius and speed. */
async function startWalkers(page: Page): Promise<void> {
  // Plain page script: helpers the TypeScript loader adds to named functions do not exist in the page.
  await page.evaluate(`(() => {
    const probe = window.__tesseraProbe;
    const walkers = Array.from({ length: ${WALKERS} }, (_, i) => ({ id: 'walker' + i, radius: 60 + i * 11, speed: 0.0006 + i * 0.00004, phase: i }));
    window.__walkers = setInterval(() => {
      const t = performance.now();
      for (const w of walkers) {
        const a = w.phase + t * w.speed;
        probe.injectNetEvent({ kind: 'playerPose', id: w.id, x: Math.cos(a) * w.radius, y: Math.sin(a) * w.radius * 0.7, facing: Math.sin(a) > 0 ? -1 : 1, moving: true, swinging: false, t });
      }
    }, ${Math.round(1000 / POSE_HZ)});
  })()`);
}

/** Records `seconds` of animation frames; returns each frame's step and draw ms and the wall time. */
async function recordFrames(page: Page, seconds: number): Promise<{ step: number[]; draw: number[]; wallMs: number }> {
  return page.evaluate(`(async () => {
    const probe = window.__tesseraProbe;
    probe.startFrames(${Math.ceil(seconds * 120)});
    const started = performance.now();
    await new Promise((resolve) => {
      const next = () => (performance.now() - started >= ${seconds * 1000} ? resolve() : requestAnimationFrame(next));
      requestAnimationFrame(next);
    });
    const wallMs = performance.now() - started;
    return { ...probe.stopFrames(), wallMs };
  })()`);
}

interface RunFigures {
  frames: number;
  p50: number;
  p99: number;
  longPerMin: number;
  drawShare: number;
  stepP99: number;
  drawP99: number;
}

function figures(run: { step: number[]; draw: number[]; wallMs: number }): RunFigures {
  const frame = run.step.map((s, i) => s + run.draw[i]!);
  const drawTotal = run.draw.reduce((a, b) => a + b, 0);
  const total = frame.reduce((a, b) => a + b, 0);
  return {
    frames: frame.length,
    p50: percentile(frame, 50),
    p99: percentile(frame, 99),
    longPerMin: (frame.filter((ms) => ms > LONG_FRAME_MS).length * 60_000) / run.wallMs,
    drawShare: total > 0 ? drawTotal / total : 0,
    stepP99: percentile(run.step, 99),
    drawP99: percentile(run.draw, 99),
  };
}

async function measure(page: Page, name: string): Promise<void> {
  await recordFrames(page, WARMUP_SECONDS);
  const runs: RunFigures[] = [];
  for (let r = 0; r < RUNS; r++) runs.push(figures(await recordFrames(page, SECONDS)));
  const scene = await page.evaluate(() => ({ walkers: window.__tessera!.remotePlayers().length, built: window.__tessera!.tileAt(-25, -20) !== null }));
  if (scene.walkers !== WALKERS || !scene.built) throw new Error(`the scene changed while measuring: ${JSON.stringify(scene)}`);
  const of = (key: keyof RunFigures, digits = 2) => spread(runs.map((run) => run[key]), digits);
  console.log(JSON.stringify({
    bench: 'render',
    case: name,
    walkers: WALKERS,
    blocks: BLOCKS,
    seconds: SECONDS,
    framesPerRun: of('frames', 0),
    frameP50Ms: of('p50'),
    frameP99Ms: of('p99'),
    longFramesPerMin: of('longPerMin', 1),
    drawShare: of('drawShare', 3),
    stepP99Ms: of('stepP99'),
    drawP99Ms: of('drawP99'),
  }));
}

printHeader('render', { warmups: 1, runs: RUNS, seconds: SECONDS, warmupSeconds: WARMUP_SECONDS, gpu: false });
const server = await startTestServer();
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  const { page } = await enterWorld(browser, server.url, 'Bench');
  await startWalkers(page);
  // The world's first load from the server starts with a reset of every block, and may finish
  // after entering: the built area is handed over again until it stands.
  await page.waitForFunction(`(() => {
    if (window.__tessera.tileAt(-25, -20) === null) for (const ev of ${JSON.stringify(builtArea())}) window.__tesseraProbe.injectNetEvent(ev);
    return window.__tessera.remotePlayers().length === ${WALKERS} && window.__tessera.tileAt(-25, -20) !== null;
  })()`, undefined, { polling: 500, timeout: 60_000 });
  const me = await page.evaluate(() => window.__tessera!.localPlayer()!);
  if (Math.abs(me.x) > TILE_SIZE || Math.abs(me.y) > TILE_SIZE) throw new Error(`the player is not at spawn: ${me.x}, ${me.y}`);
  await measure(page, 'plain');

  await page.keyboard.press('m');
  await page.locator('.minimap-canvas').waitFor();
  const input = page.getByPlaceholder('Type your message...');
  for (let i = 0; i < CHAT_MESSAGES; i++) {
    await input.fill(`bench message ${i}`);
    await input.press('Enter');
    await page.getByText(`bench message ${i}`).waitFor();
  }
  // Typing focused the chat input; leave it so keys do not stay with it.
  await page.locator('canvas.game-canvas').hover();
  await measure(page, 'minimap+chat');
} finally {
  await browser.close();
  await server.stop();
  await removeDataDir(server.dataDir);
}
process.exit(0);
