/**
 * A bot's blocks as net/blocks/blocks.ts holds them: the private `blocks:rx:ry` channel of every region
 * the view plus its margin touches (left once 512 px beyond), and each chunk there read once by
 * primary-key range after its region's channel joined, nearest first, at most four reads at once.
 * The same helpers from net/ decide which regions and chunks, so the bot reads what the game reads.
 */
import { TILE_SIZE } from '../../../components/constants.js';
import { CHUNK_MARGIN_PX, MAX_CHUNK_READS } from '../../../net/blocks/chunk-reads.js';
import { DEFAULT_VIEW, REGION_KEEP_PX } from '../../../net/blocks/blocks.js';
import { chunkName, chunksAround, regionOfChunk, regionTiles } from '../../../net/chunks.js';
import { CHUNK_TILES, regionName, type ChunkCoords, type Region } from '../../../protocol/geometry.js';
import { blocksTopic } from '../../../protocol/topics.js';
import { chunkRequest, type GameRequest } from './queries.js';
import type { BotChannel } from './socket.js';

/** Wait before a failed chunk read is tried again (net/blocks/chunk-reads.ts). */
const RETRY_MS = 1000;

/** What the block side of a bot needs from the bot. */
export interface BotBlocksHost {
  join(topic: string): BotChannel;
  leave(channel: BotChannel): void;
  /** Sends a read; resolves to its status. */
  request(request: GameRequest): Promise<number>;
  /** A region's channel joined (claims are read again there). */
  regionJoined(region: Region): void;
}

interface HeldRegion {
  region: Region;
  channel: BotChannel;
  /** The region's pixels, [x0, x1) x [y0, y1). */
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

interface ChunkState {
  cx: number;
  cy: number;
  fresh: boolean;
  reading: boolean;
  retryAt: number;
}

/** Whether `held` meets the rectangle of pixels [x0, x1) x [y0, y1) (as net/blocks/blocks.ts decides). */
function regionMeets(held: HeldRegion, x0: number, y0: number, x1: number, y1: number): boolean {
  return held.x0 < x1 && held.x1 > x0 && held.y0 < y1 && held.y1 > y0;
}

/** Pixels of a chunk's edge. */
const CHUNK_PX = CHUNK_TILES * TILE_SIZE;
const HALF_WIDTH = DEFAULT_VIEW.width / 2;
const HALF_HEIGHT = DEFAULT_VIEW.height / 2;
/** How far beyond the view's edges a region is kept (net/blocks/blocks.ts). */
const KEEP_PX = CHUNK_MARGIN_PX + REGION_KEEP_PX;

/** The block regions and chunks of one bot. */
export class BotBlocks {
  /** Regions held, by channel topic. */
  private readonly regions = new Map<string, HeldRegion>();
  private readonly chunks = new Map<string, ChunkState>();
  private around: ChunkCoords[] = [];
  private reads = 0;
  private tileX = NaN;
  /** The chunk bounds of `around`: cx0, cx1, cy0, cy1. */
  private bounds = [NaN, NaN, NaN, NaN];
  /** A region was left since `around` was made: its chunks must be wanted again if still around. */
  private dropped = false;
  /** Every chunk around is read (or being read): nothing to pump until something changes. */
  private settled = false;
  private tileY = NaN;
  /** When a failed read may be tried again (0: none waits). */
  private retryDue = 0;

  constructor(private readonly host: BotBlocksHost) {}

  /**
   * Called each step with the bot's position (pixels): on a new tile, leaves the regions gone out
   * of reach; when the chunks around change, joins their regions; reads what is due.
   */
  follow(x: number, y: number, now: number): void {
    const tx = Math.floor(x / TILE_SIZE);
    const ty = Math.floor(y / TILE_SIZE);
    if (tx === this.tileX && ty === this.tileY) {
      if (this.retryDue !== 0 && now >= this.retryDue) this.pump(now);
      return;
    }
    this.tileX = tx;
    this.tileY = ty;
    for (const [topic, held] of this.regions) {
      if (!regionMeets(held, x - HALF_WIDTH - KEEP_PX, y - HALF_HEIGHT - KEEP_PX, x + HALF_WIDTH + KEEP_PX, y + HALF_HEIGHT + KEEP_PX)) this.drop(topic, held);
    }
    // The chunks around change only when an edge of the view plus its margin crosses a chunk's (chunksAround).
    const cx0 = Math.floor((x - HALF_WIDTH - CHUNK_MARGIN_PX) / CHUNK_PX);
    const cx1 = Math.floor((x + HALF_WIDTH + CHUNK_MARGIN_PX - 1) / CHUNK_PX);
    const cy0 = Math.floor((y - HALF_HEIGHT - CHUNK_MARGIN_PX) / CHUNK_PX);
    const cy1 = Math.floor((y + HALF_HEIGHT + CHUNK_MARGIN_PX - 1) / CHUNK_PX);
    if (cx0 !== this.bounds[0] || cx1 !== this.bounds[1] || cy0 !== this.bounds[2] || cy1 !== this.bounds[3] || this.dropped) {
      this.bounds = [cx0, cx1, cy0, cy1];
      this.dropped = false;
      this.surround(x, y);
    }
    if (!this.settled) this.pump(now);
  }

  /** The chunks around (x, y): their regions joined, chunks no longer wanted and never read forgotten. */
  private surround(x: number, y: number): void {
    this.around = chunksAround(x, y, HALF_WIDTH, HALF_HEIGHT, CHUNK_MARGIN_PX);
    this.settled = false;
    const wanted = new Set<string>();
    for (const { cx, cy } of this.around) {
      wanted.add(chunkName(cx, cy));
      const region = regionOfChunk(cx, cy);
      const topic = blocksTopic(region);
      if (this.regions.has(topic)) continue;
      const tiles = regionTiles(region);
      this.regions.set(topic, { region, channel: this.host.join(topic), x0: tiles.x0 * TILE_SIZE, y0: tiles.y0 * TILE_SIZE, x1: tiles.x1 * TILE_SIZE, y1: tiles.y1 * TILE_SIZE });
    }
    for (const [key, state] of this.chunks) if (!state.fresh && !state.reading && !wanted.has(key)) this.chunks.delete(key);
  }

  /** A channel joined: if it is one of the block regions, its chunks may now be read. */
  joined(channel: BotChannel, now: number): boolean {
    const held = this.regions.get(channel.topic);
    if (!held || held.channel !== channel) return false;
    this.host.regionJoined(held.region);
    this.settled = false;
    this.pump(now);
    return true;
  }

  /** Whether every chunk of the view (and its margin) has been read: the bot sees what the database holds. */
  viewRead(): boolean {
    return this.around.length > 0 && this.around.every(({ cx, cy }) => this.chunks.get(chunkName(cx, cy))?.fresh === true);
  }

  /** The topics held. */
  topics(): string[] {
    return [...this.regions.keys()];
  }

  /** Leaves every region. */
  close(): void {
    for (const [topic, held] of this.regions) this.drop(topic, held);
  }

  private drop(topic: string, held: HeldRegion): void {
    this.regions.delete(topic);
    this.dropped = true;
    this.host.leave(held.channel);
    const name = regionName(held.region);
    for (const [key, state] of this.chunks) {
      const region = regionOfChunk(state.cx, state.cy);
      if (regionName(region) === name) this.chunks.delete(key);
    }
  }

  /** Starts the reads due, nearest first, while fewer than MAX_CHUNK_READS run. */
  private pump(now: number): void {
    this.retryDue = 0;
    let settled = true;
    for (const { cx, cy } of this.around) {
      if (this.reads >= MAX_CHUNK_READS) {
        this.settled = false;
        return;
      }
      const held = this.regions.get(blocksTopic(regionOfChunk(cx, cy)));
      if (!held?.channel.joined) {
        settled = false;
        continue;
      }
      const key = chunkName(cx, cy);
      let state = this.chunks.get(key);
      if (!state) this.chunks.set(key, (state = { cx, cy, fresh: false, reading: false, retryAt: 0 }));
      if (state.fresh || state.reading) continue;
      if (state.retryAt > now) {
        if (this.retryDue === 0 || state.retryAt < this.retryDue) this.retryDue = state.retryAt;
        continue;
      }
      void this.read(key, state);
    }
    this.settled = settled;
  }

  private async read(key: string, state: ChunkState): Promise<void> {
    state.reading = true;
    this.reads++;
    const status = await this.host.request(chunkRequest(state.cx, state.cy));
    this.reads--;
    state.reading = false;
    const now = Date.now();
    if (this.chunks.get(key) === state) {
      if (status >= 200 && status < 300) state.fresh = true;
      else {
        state.retryAt = now + RETRY_MS;
        this.settled = false;
      }
    }
    this.pump(now);
  }
}
