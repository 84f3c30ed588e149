/**
 * The channel policy seam between the Supabase-compatible Realtime transport and the game: the
 * transport's own (plain) policy lets every topic be public and passes broadcasts as sent;
 * Tessera's keeps `region:` topics private and stamps their broadcasts with the sender's wallet.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { REGION_PAYLOAD, TESSERA_CHANNEL_POLICY } from '../../../server/game/channel-policy.js';
import { PLAIN_POLICY, publicRefusal } from '../../../server/realtime/policy.js';
import type { Broadcast } from '../../../server/realtime/protocol.js';

const WALLET = '7Yv3kq2bJZ2hN5s8vXwR4m1dTt9cPq6LrEu3AaBbCcDd';
const pose = (payload: unknown, binary = false): Broadcast => ({ event: 'pose', payload, binary });

test('a plain transport lets a region topic be public; Tessera refuses it with hosted PrivateOnly text', () => {
  assert.is(publicRefusal(PLAIN_POLICY, 'region:0:0'), null);
  assert.is(publicRefusal(TESSERA_CHANNEL_POLICY, 'region:0:0'), 'PrivateOnly: This project only allows private channels');
  assert.is(publicRefusal(TESSERA_CHANNEL_POLICY, 'region:-3:12'), 'PrivateOnly: This project only allows private channels');
});

test("Tessera's policy leaves other topics public, a prefix in the middle included", () => {
  assert.is(publicRefusal(TESSERA_CHANNEL_POLICY, 'lobby'), null);
  assert.is(publicRefusal(TESSERA_CHANNEL_POLICY, 'chat:region:0:0'), null);
  assert.is(publicRefusal(TESSERA_CHANNEL_POLICY, 'Region:0:0'), null);
});

test('a plain transport passes every broadcast as sent, a region one without a sender included', () => {
  for (const item of [pose({ x: 1, id: 'someone else' }), pose(Buffer.from([1, 2]), true), pose([1, 2])]) {
    assert.is(PLAIN_POLICY.stamp('region:0:0', null, item), item);
    assert.is(PLAIN_POLICY.stamp('region:0:0', WALLET, item), item);
  }
  assert.is(PLAIN_POLICY.senderSql, null);
});

test("Tessera stamps a region broadcast's id with the sender's wallet, over a forged one", () => {
  const sent = pose({ x: 3, y: 4, id: 'a forged wallet' });
  assert.equal(TESSERA_CHANNEL_POLICY.stamp('region:1:2', WALLET, sent), pose({ x: 3, y: 4, id: WALLET }));
  assert.equal(sent.payload, { x: 3, y: 4, id: 'a forged wallet' }, 'the received broadcast itself is left as it came');
});

test('Tessera refuses a region broadcast that is binary, not a JSON object, or has no wallet to stamp', () => {
  assert.is(REGION_PAYLOAD, 'Region broadcasts must carry a JSON object payload');
  assert.is(TESSERA_CHANNEL_POLICY.stamp('region:0:0', WALLET, pose(Buffer.from('{"x":1}'), true)), REGION_PAYLOAD);
  assert.is(TESSERA_CHANNEL_POLICY.stamp('region:0:0', WALLET, pose([1, 2])), REGION_PAYLOAD);
  assert.is(TESSERA_CHANNEL_POLICY.stamp('region:0:0', WALLET, pose('text')), REGION_PAYLOAD);
  assert.is(TESSERA_CHANNEL_POLICY.stamp('region:0:0', WALLET, pose(null)), REGION_PAYLOAD);
  assert.is(TESSERA_CHANNEL_POLICY.stamp('region:0:0', null, pose({ x: 1 })), REGION_PAYLOAD);
});

test("Tessera passes other topics' broadcasts as sent, binary ones and senders without a wallet included", () => {
  for (const item of [pose({ x: 1, id: 'anyone' }), pose(Buffer.from([7]), true), pose([1])]) {
    assert.is(TESSERA_CHANNEL_POLICY.stamp('chunks:0:0', null, item), item);
    assert.is(TESSERA_CHANNEL_POLICY.stamp('chunks:0:0', WALLET, item), item);
  }
});

test("Tessera names senders by the database's wallet of the caller", () => {
  assert.is(TESSERA_CHANNEL_POLICY.senderSql, 'public.wallet_address()');
});

test.run();
