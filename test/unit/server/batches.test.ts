import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { BATCH_EVENT, createBroadcastBatches, MAX_BATCH_BYTES, MAX_BATCH_EVENTS } from '../../../server/realtime/batches.js';
import type { Channel } from '../../../server/realtime/channel.js';
import type { Vsn } from '../../../server/realtime/protocol.js';
import { broadcastsShedByKind } from '../../../server/realtime/wire.js';

const TOPIC = 'realtime:region:0:0';

/** A joined channel whose socket records what it is handed: the events of each batch message. */
function member(options: { batch?: boolean; vsn?: Vsn; private?: boolean; broadcast?: boolean; nearness?: 'near' | 'far' } = {}) {
  const batches: Array<Array<{ event: string; payload: unknown }>> = [];
  const keys: string[] = [];
  const channel = {
    topic: TOPIC,
    private: options.private ?? true,
    broadcastBatch: options.batch ?? true,
    reads: { broadcast: options.broadcast ?? true, presence: true },
    conn: {
      vsn: options.vsn ?? '2.0.0',
      outbound: {
        nearness: () => options.nearness ?? 'near',
        ephemeral(key: string, data: Buffer, binary: boolean) {
          assert.ok(binary);
          const [kind, topicLength, eventLength, metaLength, encoding] = data;
          assert.equal([kind, metaLength, encoding], [4, 0, 1]);
          assert.is(data.toString('utf8', 5, 5 + topicLength!), TOPIC);
          assert.is(data.toString('utf8', 5 + topicLength!, 5 + topicLength! + eventLength!), BATCH_EVENT);
          keys.push(key);
          batches.push(JSON.parse(data.toString('utf8', 5 + topicLength! + eventLength!)).events);
        },
      },
    },
  } as unknown as Channel;
  return { channel, batches, keys };
}

const pose = (x: number) => ({ event: 'pose', payload: { x }, binary: false });

test("a window's broadcasts go out as one batch, the newest per sender stream, in order, to batch-taking readers of the same privacy", () => {
  const taker = member();
  const single = member({ batch: false });
  const oldSerializer = member({ vsn: '1.0.0' });
  const publicOne = member({ private: false });
  const unreadable = member({ broadcast: false });
  const topics = new Map([[TOPIC, new Set([taker, single, oldSerializer, publicOne, unreadable].map((m) => m.channel))]]);
  const batches = createBroadcastBatches(topics);
  batches.add(TOPIC, true, 'ann:pose', pose(1), null);
  batches.add(TOPIC, true, 'bob:pose', pose(2), null);
  batches.add(TOPIC, true, 'ann:pose', pose(3), null);
  batches.add(TOPIC, true, 'ann:hit', { event: 'hit', payload: { x: 4 }, binary: false }, null);
  batches.flush();
  assert.equal(taker.batches, [[{ event: 'pose', payload: { x: 2 } }, { event: 'pose', payload: { x: 3 } }, { event: 'hit', payload: { x: 4 } }]]);
  for (const other of [single, oldSerializer, publicOne, unreadable]) assert.equal(other.batches, []);
  batches.flush();
  assert.is(taker.batches.length, 1, 'an empty window sends nothing');
  batches.close();
});

test("a sender without self gets the window without its own messages, and nothing when they were all its own", () => {
  const ann = member();
  const bob = member();
  const topics = new Map([[TOPIC, new Set([ann.channel, bob.channel])]]);
  const batches = createBroadcastBatches(topics);
  batches.add(TOPIC, true, 'ann:pose', pose(1), ann.channel);
  batches.flush();
  assert.equal(ann.batches, []);
  assert.equal(bob.batches, [[{ event: 'pose', payload: { x: 1 } }]]);
  batches.add(TOPIC, true, 'ann:pose', pose(2), ann.channel);
  batches.add(TOPIC, true, 'bob:pose', pose(3), bob.channel);
  batches.add(TOPIC, true, 'api:pose', pose(4), null);
  batches.flush();
  assert.equal(ann.batches, [[{ event: 'pose', payload: { x: 3 } }, { event: 'pose', payload: { x: 4 } }]]);
  assert.equal(bob.batches.slice(1), [[{ event: 'pose', payload: { x: 2 } }, { event: 'pose', payload: { x: 4 } }]]);
  batches.close();
});

test('a window past the bounds is split into several batches, each under MAX_BATCH_EVENTS events and about MAX_BATCH_BYTES', () => {
  const taker = member();
  const batches = createBroadcastBatches(new Map([[TOPIC, new Set([taker.channel])]]));
  for (let i = 0; i < MAX_BATCH_EVENTS + 44; i++) batches.add(TOPIC, true, `p${i}:pose`, pose(i), null);
  batches.flush();
  assert.equal(taker.batches.map((b) => b.length), [MAX_BATCH_EVENTS, 44]);
  assert.equal(taker.batches.flat().map((e) => (e.payload as { x: number }).x), Array.from({ length: MAX_BATCH_EVENTS + 44 }, (_, i) => i));
  assert.equal(taker.keys, [`${TOPIC}\0batch\x000`, `${TOPIC}\0batch\x001`]);
  const big = 'x'.repeat(MAX_BATCH_BYTES / 2);
  for (let i = 0; i < 3; i++) batches.add(TOPIC, true, `p${i}:note`, { event: 'note', payload: { big }, binary: false }, null);
  batches.flush();
  assert.equal(taker.batches.slice(2).map((b) => b.length), [1, 1, 1]);
  batches.close();
});

test('while far topics are thinned, a far member is sent the newest broadcast of each stream one window in four, a near one every window', () => {
  const near = member({ nearness: 'near' });
  const far = member({ nearness: 'far' });
  const topics = new Map([[TOPIC, new Set([near.channel, far.channel])]]);
  let windows = 0;
  const thinning = { windowEnded: () => void windows++, thinned: (kind: 'near' | 'far') => kind === 'far', keptWindow: () => windows % 4 === 0 };
  const batches = createBroadcastBatches(topics, thinning);
  const shedBefore = { ...broadcastsShedByKind() };
  batches.add(TOPIC, true, 'ann:pose', pose(0), null);
  batches.add(TOPIC, true, 'bob:pose', pose(10), null);
  batches.flush();
  for (const x of [1, 2, 3]) {
    batches.add(TOPIC, true, 'ann:pose', pose(x), null);
    batches.flush();
  }
  assert.equal(near.batches, [[{ event: 'pose', payload: { x: 0 } }, { event: 'pose', payload: { x: 10 } }], [{ event: 'pose', payload: { x: 1 } }], [{ event: 'pose', payload: { x: 2 } }], [{ event: 'pose', payload: { x: 3 } }]]);
  assert.equal(far.batches, [[{ event: 'pose', payload: { x: 10 } }, { event: 'pose', payload: { x: 3 } }]]);
  const shed = broadcastsShedByKind();
  assert.equal({ near: shed.near - shedBefore.near, far: shed.far - shedBefore.far }, { near: 0, far: 3 }, 'ann 0, 1 and 2 were shed for the far member');
  batches.close();
});

test.run();
