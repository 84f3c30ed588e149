/**
 * The region channels of the block sync: one private database-broadcast channel per region
 * (`blocks:rx:ry`, protocol/topics.ts) carrying its tile changes (`blocks`) and land-claim changes
 * (`claims`). A channel of a region left is removed before the same topic is joined again: the
 * client would otherwise hand back the channel still leaving.
 */
import type { RealtimeChannel, SupabaseClient } from '@supabase/supabase-js';
import { regionName, type Region } from '../../protocol/geometry.js';
import { BLOCKS_EVENT, blocksTopic, CLAIMS_EVENT } from '../../protocol/topics.js';

/** What the region channels tell and need. */
export interface BlockRegionsOptions {
  /** A `blocks` payload heard. */
  onBlocks(payload: unknown): void;
  /** A `claims` payload heard. */
  onClaims?(payload: unknown): void;
  /** A region's channel joined again after a drop, before it counts as joined: what it carries may have been missed. */
  onRejoin(region: Region): void;
  /** A region's channel joined (first time or again), after its state and the connection are told. */
  onJoined(region: Region): void;
  /** A region was left; called before the connection is told again. */
  onLeft(region: Region): void;
  /** Called when the channels come up (true: one is joined) or all drop (false). */
  onConnected?(connected: boolean): void;
  /** Whether the sync closed: no channel opens after it. */
  closed(): boolean;
}

/** The region channels held. */
export interface BlockRegions {
  /** Joins the channel of `region`. */
  join(region: Region): void;
  /** Leaves every region for which `keep` is false. */
  leaveUnless(keep: (region: Region) => boolean): void;
  /** Whether `region` is held (joined or joining). */
  holds(region: Region): boolean;
  /** Whether the channel of `region` is joined. */
  joined(region: Region): boolean;
  /** The topics of the regions held. */
  topics(): string[];
  /** Leaves every channel. */
  close(): Promise<void>;
}

/** One region's live channel. */
interface RegionChannel {
  region: Region;
  /** Null until a removal of the same topic has finished. */
  channel: RealtimeChannel | null;
  joined: boolean;
  /** Joined once already: a later join is a rejoin after a drop. */
  everJoined: boolean;
}

/** None held yet. */
export function createBlockRegions(db: SupabaseClient, options: BlockRegionsOptions): BlockRegions {
  const regions = new Map<string, RegionChannel>();
  /** Removals of left channels under way, by region name. */
  const leaving = new Map<string, Promise<void>>();
  let connected = false;

  function reportConnection() {
    const up = [...regions.values()].some((r) => r.joined);
    if (up !== connected) options.onConnected?.((connected = up));
  }

  /** Opens the channel of `entry`, unless it was left meanwhile or the sync closed. */
  function open(name: string, entry: RegionChannel) {
    if (regions.get(name) !== entry || options.closed()) return;
    const channel = db.channel(blocksTopic(entry.region), { config: { private: true } })
      .on('broadcast', { event: BLOCKS_EVENT }, ({ payload }) => options.onBlocks(payload))
      .on('broadcast', { event: CLAIMS_EVENT }, ({ payload }) => options.onClaims?.(payload));
    entry.channel = channel;
    channel.subscribe((status) => {
      if (regions.get(name) !== entry) return;
      const joined = status === 'SUBSCRIBED';
      if (joined && entry.everJoined) options.onRejoin(entry.region);
      entry.joined = joined;
      entry.everJoined ||= joined;
      reportConnection();
      if (joined) options.onJoined(entry.region);
    });
  }

  function leave(name: string, entry: RegionChannel): void {
    regions.delete(name);
    if (entry.channel) {
      const removal = db.removeChannel(entry.channel).then(
        () => undefined,
        () => undefined,
      );
      leaving.set(name, removal);
      void removal.then(() => leaving.get(name) === removal && leaving.delete(name));
    }
    options.onLeft(entry.region);
    reportConnection();
  }

  return {
    join(region) {
      const name = regionName(region);
      const entry: RegionChannel = { region, channel: null, joined: false, everJoined: false };
      regions.set(name, entry);
      const pending = leaving.get(name);
      if (pending) void pending.then(() => open(name, entry));
      else open(name, entry);
    },
    leaveUnless(keep) {
      for (const [name, entry] of regions) if (!keep(entry.region)) leave(name, entry);
    },
    holds: (region) => regions.has(regionName(region)),
    joined: (region) => regions.get(regionName(region))?.joined ?? false,
    topics: () => [...regions.values()].map((entry) => blocksTopic(entry.region)),
    close: async () => {
      const all = [...regions.values()];
      regions.clear();
      await Promise.all(all.map((entry) => entry.channel && db.removeChannel(entry.channel)));
    },
  };
}
