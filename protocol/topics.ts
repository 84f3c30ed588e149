/**
 * The Realtime topics and events of the game. Two kinds of topic, both named after a region
 * (protocol/geometry.ts):
 *
 * * `region:rx:ry`: players' poses (event `pose`), sent by clients. Private only; the embedded
 *   server stamps each broadcast with its sender's wallet (server/game/channel-policy.ts) and
 *   hands poses gathered over a server tick as one `batch` event.
 * * `blocks:rx:ry`: sent by the database only (no policy lets a client send there): block
 *   changes (event `blocks`, protocol/block-changes.ts) and land-claim changes (event `claims`,
 *   protocol/claim-changes.ts) of the region.
 */
import { parseRegionName, regionName, type Region } from './geometry.js';

/** What every region topic starts with. */
export const REGION_TOPIC_PREFIX = 'region:';
/** What every blocks topic starts with. */
export const BLOCKS_TOPIC_PREFIX = 'blocks:';

/** The event of a pose on a region topic (protocol/poses.ts). */
export const POSE_EVENT = 'pose';
/** The event of the embedded server's batch of broadcasts on a topic (`{events: [{event, payload}]}`). */
export const BATCH_EVENT = 'batch';
/** The event of block changes on a blocks topic (protocol/block-changes.ts). */
export const BLOCKS_EVENT = 'blocks';
/** The event of land-claim changes on a blocks topic (protocol/claim-changes.ts). */
export const CLAIMS_EVENT = 'claims';

/** The topic on which the players of `region` send their poses. */
export function regionTopic(region: Region): string {
  return REGION_TOPIC_PREFIX + regionName(region);
}

/** The topic on which the database sends the block and claim changes of `region`. */
export function blocksTopic(region: Region): string {
  return BLOCKS_TOPIC_PREFIX + regionName(region);
}

/** Whether `topic` is in the region topics' namespace (well-formed or not): such topics are private only. */
export function isRegionTopic(topic: string): boolean {
  return topic.startsWith(REGION_TOPIC_PREFIX);
}

/** The region of a region topic, or null when `topic` is none. */
export function parseRegionTopic(topic: string): Region | null {
  return isRegionTopic(topic) ? parseRegionName(topic.slice(REGION_TOPIC_PREFIX.length)) : null;
}

/** The region of a blocks topic, or null when `topic` is none. */
export function parseBlocksTopic(topic: string): Region | null {
  return topic.startsWith(BLOCKS_TOPIC_PREFIX) ? parseRegionName(topic.slice(BLOCKS_TOPIC_PREFIX.length)) : null;
}
