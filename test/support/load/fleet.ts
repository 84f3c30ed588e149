/**
 * Many load bots driven by one process: one shared tick every 16 ms runs each bot's engine step
 * (real time spent in 16 ms steps, at most eight made up after a stall, as the engine's loop does),
 * so a thousand bots cost one timer, not a thousand. The fleet holds what bots share: the wallet
 * index for "who was heard", the placements for block latency, the tiles already used, and the
 * figures.
 */
import { STEP_MS, TILE_SIZE } from '../../../components/constants.js';
import { isWaterTile, WORLD_SEED } from '../../../components/terrain.js';
import { spendSteps } from '../../../systems/loop.js';
import { Bot, type BotPlan, type BotWorld } from './bot.js';
import { LoadFigures } from './figures.js';
import type { BotIdentity } from './sign-in.js';

/**
 * A land tile outside spawn (and the ring around it) within 4 tiles of pixel (x, y) that is not
 * in `used`, which it joins; null when 40 draws found none. The tiles a scenario's builders place
 * on, bots and the headless players they are calibrated against alike.
 */
export function freeTileNear(used: Set<string>, x: number, y: number): { x: number; y: number } | null {
  const cx = Math.floor(x / TILE_SIZE);
  const cy = Math.floor(y / TILE_SIZE);
  for (let tries = 0; tries < 40; tries++) {
    const tx = cx + Math.floor(Math.random() * 9) - 4;
    const ty = cy + Math.floor(Math.random() * 9) - 4;
    const key = `${tx},${ty}`;
    if ((Math.abs(tx) <= 3 && Math.abs(ty) <= 3) || used.has(key) || isWaterTile(tx, ty, WORLD_SEED)) continue;
    used.add(key);
    return { x: tx, y: ty };
  }
  return null;
}

/**
 * The loopback source address of bot `index`: 127.1.x.y, one of its own for each of 62,500 bots
 * (Linux routes all of 127/8 to the loopback device). The server's per-address bounds (sign-ins,
 * sockets, one authorisation transaction at a time) then see each bot as the player on a machine
 * of its own that it stands for, not a thousand players behind one address.
 */
export function loopbackAddress(index: number): string {
  return `127.1.${Math.floor(index / 250) % 250}.${1 + (index % 250)}`;
}

/** A fleet of bots on one server; see the module comment. */
export class Fleet implements BotWorld {
  readonly bots: Bot[] = [];
  readonly figures: LoadFigures;
  readonly placedAt = new Map<string, number>();
  private readonly index = new Map<string, number>();
  private readonly used = new Set<string>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private last = 0;
  private accumulated = 0;

  /** Where the bots connect: the server's URL on 127.0.0.1 (the server allows it), so no connection waits on a name lookup. */
  readonly url: string;

  /**
   * A fleet for at most `capacity` bots on the server at `serverUrl`, recording into `figures`
   * (its own unless given: fleets on the nodes of one cluster may share one).
   */
  constructor(serverUrl: string, readonly anonKey: string, capacity: number, figures = new LoadFigures(capacity)) {
    this.url = serverUrl.replace('//localhost:', '//127.0.0.1:');
    this.figures = figures;
  }

  indexOf(address: string): number {
    return this.index.get(address) ?? -1;
  }

  freeTileNear(x: number, y: number): { x: number; y: number } | null {
    return freeTileNear(this.used, x, y);
  }

  /**
   * Adds a signed-in bot following `plan` and enters it into the world from its own source
   * address ({@link loopbackAddress} of its index); resolves once its socket is open.
   */
  async add(identity: BotIdentity, plan: BotPlan): Promise<Bot> {
    const bot = new Bot(this, identity, plan, loopbackAddress(plan.index));
    this.index.set(identity.address, plan.index);
    this.bots.push(bot);
    this.run();
    await bot.start();
    return bot;
  }

  /** Makes every bot walk, each from its own moment within `spreadMs` from now. */
  walk(spreadMs: number): void {
    const now = Date.now();
    for (const bot of this.bots) bot.walkFrom = now + Math.random() * spreadMs;
  }

  /** Makes every bot stand where it is (one stop each, as a player letting go of the keys). */
  stand(): void {
    for (const bot of this.bots) bot.walkFrom = Infinity;
  }

  /** Stops the tick and every bot (each leaves its channels and deletes its presence row). */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all(this.bots.map((bot) => bot.stop().catch(() => undefined)));
  }

  /** Starts the shared tick unless it runs. */
  private run(): void {
    if (this.timer) return;
    this.last = performance.now();
    const step = () => {
      const now = Date.now();
      for (const bot of this.bots) bot.step(now);
    };
    this.timer = setInterval(() => {
      const now = performance.now();
      this.accumulated = spendSteps(this.accumulated, now - this.last, step);
      this.last = now;
    }, STEP_MS);
  }
}
