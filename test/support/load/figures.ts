/**
 * What a fleet of load bots records while a measurement runs: pose and block latency, how often
 * each walker was heard, bytes the server sent, refusals and disconnects.
 */

/**
 * Latencies counted per millisecond up to a minute (later ones count as a minute): thousands of
 * bots hear millions of poses, which an array of every sample would hold and sort.
 */
export class LatencyHistogram {
  private readonly counts = new Uint32Array(60_001);
  /** Samples added so far. */
  total = 0;

  /** Adds one latency in ms. */
  add(ms: number): void {
    this.counts[ms <= 0 ? 0 : ms >= 60_000 ? 60_000 : Math.round(ms)]!++;
    this.total++;
  }

  /** The `p`-th percentile (0-100) in ms, nearest rank; NaN when empty. */
  percentile(p: number): number {
    if (this.total === 0) return NaN;
    const rank = Math.min(this.total - 1, Math.floor((p / 100) * this.total));
    let seen = 0;
    for (let ms = 0; ms < this.counts.length; ms++) {
      seen += this.counts[ms]!;
      if (seen > rank) return ms;
    }
    return 60_000;
  }
}

/** The figures of one fleet; nothing is counted while `recording` is false. */
export class LoadFigures {
  recording = false;
  /** Sender's clock (the pose's `t`) to its receipt by another bot of the same fleet, ms. */
  poseLatency = new LatencyHistogram();
  /**
   * The same for poses of wallets no bot of this fleet holds: bots of another fleet, which a
   * cluster benchmark runs on another node (bots of several fleets then share one figures).
   */
  otherFleetPoseLatency = new LatencyHistogram();
  /** A placement's request to its change heard by another bot, ms. */
  blockLatency = new LatencyHistogram();
  /** Tiles ('x,y') whose placement the server accepted while recording. */
  placed = new Set<string>();
  /** Tiles ('x,y') whose placed block some bot heard. */
  heardTiles = new Set<string>();
  /** Per bot index: its poses received by other bots. */
  heard: Uint32Array;
  /** Bytes received from the server: websocket messages and REST answer bodies. */
  bytes = 0;
  /** Refusals by kind (`rest 400 game_blocks 23514 <message>`, `join <reason>`, `system <message>`, `phx_close <topic>`), numbers as N. */
  readonly refusals = new Map<string, number>();
  /** Sockets that closed while recording. */
  disconnects = 0;
  /** Poses sent, placements asked for and chat lines accepted while recording. */
  posesSent = 0;
  placements = 0;
  chats = 0;

  constructor(bots: number) {
    this.heard = new Uint32Array(bots);
  }

  /** Starts the figures afresh (a new step of a ramp): every count and latency is forgotten. */
  reset(): void {
    this.poseLatency = new LatencyHistogram();
    this.blockLatency = new LatencyHistogram();
    this.placed = new Set();
    this.heardTiles = new Set();
    this.heard = new Uint32Array(this.heard.length);
    this.bytes = 0;
    this.refusals.clear();
    this.disconnects = this.posesSent = this.placements = this.chats = 0;
  }

  /** Placements accepted while recording that no bot heard. */
  blocksMissed(): number {
    let missed = 0;
    for (const tile of this.placed) if (!this.heardTiles.has(tile)) missed++;
    return missed;
  }

  /** Counts one refusal of `kind`. */
  refuse(kind: string): void {
    if (this.recording) this.refusals.set(kind, (this.refusals.get(kind) ?? 0) + 1);
  }

  /** Refusals in all. */
  refusalCount(): number {
    let total = 0;
    for (const count of this.refusals.values()) total += count;
    return total;
  }
}
