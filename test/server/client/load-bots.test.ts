/**
 * The capacity benchmark's protocol-level bots (test/support/load/) against the built server:
 * signed in through SIWS, they join what a player joins, hear each other's poses and build, and
 * the server refuses nothing they do.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { regionTopic } from '../../../protocol/topics.js';
import { startTestServer, type TestServer } from '../../support/harness.js';
import { Fleet } from '../../support/load/fleet.js';
import { createBotKeys, signInBot } from '../../support/load/sign-in.js';
import { waitFor } from '../../support/wait.js';

const test = suite('load bots');
let server: TestServer;

test.before(async () => {
  server = await startTestServer();
});

test.after(async () => {
  await server.stop();
});

test('five bots sign in, join a player\'s channels, hear each other walk and build, and are never refused', async () => {
  const count = 5;
  const fleet = new Fleet(server.url, server.anonKey, count);
  const keys = createBotKeys(count);
  const identities = await Promise.all(keys.map((key) => signInBot(server, key)));
  assert.equal(identities.map((identity) => identity.address), keys.map((key) => key.address));
  fleet.figures.recording = true;
  try {
    // Everyone enters at spawn (a wallet's first presence must be there), then walks within a screen around it.
    const box = { left: -300, top: -200, right: 300, bottom: 200 };
    const bots = await Promise.all(identities.map((identity, index) => fleet.add(identity, {
      index, name: `Bot${index}`, start: { x: 16 * index - 32, y: 16 }, box, placeEveryMs: index === 0 ? 1000 : 0, chatEveryMs: index === 1 ? 2500 : 0,
    })));
    await waitFor(() => bots.every((bot) => bot.ready()), { timeout: 10_000, message: 'every bot joined its channels' });
    assert.equal(bots[0]!.poseTopics()[0], regionTopic({ rx: 0, ry: 0 }));
    assert.equal(bots[0]!.poseTopics().length, 9);
    assert.ok(bots[0]!.blockTopics().includes('blocks:0:0'));
    fleet.walk(200);
    // Each walker keyframes about once a second: every one heard by all four others at least twice.
    await waitFor(() => [...fleet.figures.heard].every((heard) => heard >= 8), { timeout: 10_000, message: () => `poses heard ${[...fleet.figures.heard].join(', ')}` });
    await waitFor(() => fleet.figures.blockLatency.total >= 4, { timeout: 10_000, message: 'a block heard by the others' });
    await waitFor(() => fleet.figures.chats >= 1, { timeout: 5000, message: 'a chat line sent' });
    assert.ok(fleet.figures.poseLatency.percentile(50) < 1000, `pose p50 ${fleet.figures.poseLatency.percentile(50)} ms`);
    assert.equal(Object.fromEntries(fleet.figures.refusals), {});
    assert.equal(fleet.figures.disconnects, 0);
  } finally {
    fleet.figures.recording = false;
    await fleet.stop();
  }
});

test.run();
