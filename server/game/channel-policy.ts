import { isRegionTopic } from '../../protocol/topics.js';
import { isJsonObject } from '../http/json.js';
import type { ChannelPolicy } from '../realtime/policy.js';
import type { Broadcast } from '../realtime/protocol.js';

/** The reply to a region broadcast that is not a JSON object (binary, or another JSON value). */
export const REGION_PAYLOAD = 'Region broadcasts must carry a JSON object payload';

/**
 * A region broadcast as the server sends it on: its payload's `id` set to the sender's wallet,
 * so no player can speak for another; refused when the payload is not a JSON object or the
 * sender has no wallet. Broadcasts on other topics pass as sent.
 */
function stampRegion(topic: string, wallet: string | null, item: Broadcast): Broadcast | string {
  if (!isRegionTopic(topic)) return item;
  if (item.binary || wallet === null || !isJsonObject(item.payload)) return REGION_PAYLOAD;
  return { ...item, payload: { ...item.payload, id: wallet } };
}

/**
 * Tessera's rules for its Realtime topics (protocol/topics.ts): `region:` topics, whose
 * broadcasts carry player positions, are private only and their broadcasts are stamped with the
 * sender's wallet (`public.wallet_address()`), which also keeps each wallet's message budget
 * across its sockets and REST requests.
 */
export const TESSERA_CHANNEL_POLICY: ChannelPolicy = {
  allowsPublic: (topic) => !isRegionTopic(topic),
  stamp: stampRegion,
  senderSql: 'public.wallet_address()',
};
