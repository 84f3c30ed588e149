/**
 * Render benchmark: the built game in Debian's Chromium (no GPU), one player in the world at
 * spawn with 2,000 blocks built around it (every tile of the 800x600 view and beyond) and 20
 * other players walking on screen, their presence rows and pose events (at each turn and about
 * once a second, as senders send them) handed to the engine through the page's probe hook (`window.__tesseraProbe`, see src/game/frame-probe.ts). Each animation frame
 * records the engine step and the drawing time. Prints JSON lines per case, "plain" and
 * "minimap+chat" (minimap open, chat panel filled with messages): frame time (step + drawing)
 * p50/p99, frames over 16.7 ms per minute, and the share of frame time spent drawing; each as
 * min/median/max over the runs. `--quick` runs shorter and fewer runs.
 */
import { chromium, type Page } from 'playwright-core';
import { DEFAULT_APPEARANCE } from '../components/appearance-types.js';
import { isSpawnTile } from '../components/terrain.js';
import { POSE_KEYFRAME_STEPS } from '../net/poses/poses.js';
import { TILE_SIZE } from '../protocol/geometry.js';
import { PLAYER_SPEED, STEP_MS } from '../protocol/movement.js';
import { CHROMIUM_ARGS } from '../test/support/browser.js';
import { enterWorld } from '../test/support/enter-world.js';
import { removeDataDir, startTestServer } from '../test/support/harness.js';
import { percentile, pick, printHeader, spread } from './stats.js';

const BLOCKS = 2_000;
const WALKERS = 20;
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

/**
 * Starts the page-side walkers as the network would hand them to the engine: a presence row
 * each, then pose events as a sender sends them (net/poses/poses.ts): at each turn and about once a
 * second while walking. Each walks a square around the local player at the game's speed.
 */
async function startWalkers(page: Page): Promise<void> {
  // Plain page script: helpers the TypeScript loader adds to named functions do not exist in the page.
  await page.evaluate(`(() => {
    const probe = window.__tesseraProbe;
    const walkers = Array.from({ length: ${WALKERS} }, (_, i) => ({ id: 'walker' + i, side: 120 + i * 12, phase: i * 37, edge: -1, sentStep: 0 }));
    walkers.forEach((w, i) => probe.injectNetEvent({
      kind: 'playerUpsert', id: w.id, name: 'Walker ' + i, x: -w.side / 2, y: -w.side / 2,
      health: 100, maxHealth: 100, level: 1, appearance: ${JSON.stringify(DEFAULT_APPEARANCE)}, isSwinging: false,
    }));
    const place = (w, step) => {
      const p = (step * ${PLAYER_SPEED} + w.phase) % (4 * w.side);
      const edge = Math.floor(p / w.side);
      const d = p - edge * w.side;
      const h = w.side / 2;
      if (edge === 0) return { edge, x: -h + d, y: -h, dx: 1, dy: 0 };
      if (edge === 1) return { edge, x: h, y: -h + d, dx: 0, dy: 1 };
      if (edge === 2) return { edge, x: h - d, y: h, dx: -1, dy: 0 };
      return { edge, x: -h, y: h - d, dx: 0, dy: -1 };
    };
    window.__walkers = setInterval(() => {
      const t = performance.now();
      const step = Math.floor(t / ${STEP_MS});
      for (const w of walkers) {
        const at = place(w, step);
        if (at.edge === w.edge && step - w.sentStep < ${POSE_KEYFRAME_STEPS}) continue;
        w.edge = at.edge;
        w.sentStep = step;
        probe.injectNetEvent({ kind: 'playerPose', id: w.id, x: at.x, y: at.y, dx: at.dx, dy: at.dy, seq: step, facing: at.dx < 0 ? -1 : 1, moving: true, swinging: false, t });
      }
    }, ${STEP_MS});
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
  await page.waitForFunction(
    ({ area, walkers }) => {
      if (window.__tessera!.tileAt(-25, -20) === null) for (const ev of area) window.__tesseraProbe!.injectNetEvent(ev);
      return window.__tessera!.remotePlayers().length === walkers && window.__tessera!.tileAt(-25, -20) !== null;
    },
    { area: builtArea(), walkers: WALKERS },
    { polling: 500, timeout: 60_000 },
  );
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
