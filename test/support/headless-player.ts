/**
 * A headless player: a real network session (net/) in Node whose engine side is a tile set,
 * a pose the caller moves, a step driver that calls the session every 16 ms of real time as the
 * engine's fixed step does, and a record of what arrived. Its connection comes back by itself after
 * a drop, as the page's does (`session.connection()`). Used by the net suites and the multiplayer
 * benchmark.
 */
import { DEFAULT_APPEARANCE } from '../../components/appearance-types.js';
import type { NetEvent, NetQueues } from '../../components/network.js';
import type { ConnectionState } from '../../net/connection.js';
import { startSession, type Session } from '../../net/session.js';
import { STEP_MS } from '../../protocol/movement.js';
import { spendSteps } from '../../systems/loop.js';
import type { TestPlayer, TestServer } from './harness.js';

/** Where the player stands and how it moves (pixels). */
export interface HeadlessPose {
  x: number;
  y: number;
  facing: number;
  moving: boolean;
}

/** A running headless player. */
export interface HeadlessPlayer {
  player: TestPlayer;
  session: Session;
  queues: NetQueues;
  /** Blocks as the engine would show them, by 'x,y'. */
  tiles: Map<string, string>;
  /** Toasts, as 'Title: text'. */
  notices: string[];
  /** Online counts as the session reported them. */
  counts: number[];
  /** Live poses received from other players. */
  posesHeard: number;
  pose: HeadlessPose;
}

/** Options of {@link startHeadlessPlayer}. */
export interface HeadlessOptions {
  name: string;
  pose: HeadlessPose;
  /** Sees every engine event as it arrives. */
  onEvent?(event: NetEvent): void;
  /**
   * Told of each new state of the connection (net/connection.ts): `online` once in the world,
   * `restoring` from a drop until it is back in the world (it resyncs and sends the edits kept
   * meanwhile by itself).
   */
  onConnection?(state: ConnectionState): void;
  /** Called at each fixed step before the session's, where the engine would move the player. */
  onStep?(): void;
  /** Whether another player is within combat range in the PvP zone (never, unless given): the heartbeat then runs every 250 ms. */
  inCombat?(): boolean;
}

/** Starts the network session of `player`, who must already be signed in, on `server` (a node, or a balancer in front of nodes). */
export async function startHeadlessPlayer(server: Pick<TestServer, 'url' | 'anonKey'>, player: TestPlayer, options: HeadlessOptions): Promise<HeadlessPlayer> {
  const queues: NetQueues = { inbox: [], outbox: [] };
  const self: HeadlessPlayer = {
    player,
    session: undefined as unknown as Session,
    queues,
    tiles: new Map(),
    notices: [],
    counts: [],
    posesHeard: 0,
    pose: options.pose,
  };
  // The engine side drains nothing: each event is applied as it is pushed.
  queues.inbox.push = (...events: NetEvent[]) => {
    for (const event of events) {
      options.onEvent?.(event);
      if (event.kind === 'blockSet') self.tiles.set(`${event.x},${event.y}`, event.blockType);
      else if (event.kind === 'blockCleared') self.tiles.delete(`${event.x},${event.y}`);
      else if (event.kind === 'areaLoaded' || event.kind === 'areaDropped') {
        for (const key of self.tiles.keys()) {
          const [x, y] = key.split(',').map(Number) as [number, number];
          if (x >= event.x && x < event.x + event.width && y >= event.y && y < event.y + event.height) self.tiles.delete(key);
        }
        if (event.kind === 'areaLoaded') for (const block of event.blocks) self.tiles.set(`${block.x},${block.y}`, block.blockType);
      }
      else if (event.kind === 'playerPose') self.posesHeard++;
    }
    return 0;
  };
  self.session = await startSession({
    db: player.client,
    url: server.url,
    anonKey: server.anonKey,
    playerId: player.address,
    playerName: () => options.name,
    queues,
    readLocal: () => ({
      id: player.address, name: options.name, ...self.pose, health: 100, maxHealth: 100, level: 1,
      appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false,
    }),
    world: { hasBlock: (x, y) => self.tiles.has(`${x},${y}`) },
    inCombat: options.inCombat ?? (() => false),
    listener: () => ({ id: player.address, x: self.pose.x, y: self.pose.y, audioEnabled: true, voiceOnline: true }),
    playVoice: () => {},
    notice: (title, description) => self.notices.push(`${title}: ${description}`),
    onChat: () => {},
    onOnlineCount: (count) => self.counts.push(count),
    onConnection: (state) => options.onConnection?.(state),
  });
  // The engine's fixed step, without an engine: the session sends poses and flushes from it. As
  // in the engine's loop, real time is spent in STEP_MS steps, so a late timer (a busy process
  // running many players) is made up for, up to the loop's cap.
  let last = performance.now();
  let accumulated = 0;
  /** This player's own step number, counted as the engine counts `world.step`. */
  let steps = 0;
  const runStep = () => {
    options.onStep?.();
    queues.onStep?.(++steps);
  };
  const driver = setInterval(() => {
    const now = performance.now();
    accumulated = spendSteps(accumulated, now - last, runStep);
    last = now;
  }, STEP_MS);
  const close = self.session.close.bind(self.session);
  self.session.close = async () => {
    clearInterval(driver);
    await close();
  };
  return self;
}
