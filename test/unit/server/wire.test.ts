import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import WebSocket, { WebSocketServer } from 'ws';
import { broadcastsShedByKind, Outbound } from '../../../server/realtime/wire.js';
import { waitFor } from '../../support/wait.js';

/** A server socket wrapped in an {@link Outbound}, and a `ws` client reading from it. */
async function pair(): Promise<{ outbound: Outbound; server: WebSocket; client: WebSocket; received: Array<string | Buffer>; close(): Promise<void> }> {
  const wss = new WebSocketServer({ port: 0, perMessageDeflate: false });
  await new Promise((resolve) => wss.once('listening', resolve));
  const accepted = new Promise<{ server: WebSocket; outbound: Outbound }>((resolve) =>
    wss.once('connection', (ws, req) => resolve({ server: ws, outbound: new Outbound(ws, req.socket as Duplex, () => {}) })),
  );
  const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const received: Array<string | Buffer> = [];
  client.on('message', (data: Buffer, isBinary) => received.push(isBinary ? data : data.toString()));
  await new Promise((resolve) => client.once('open', resolve));
  const { server, outbound } = await accepted;
  return {
    outbound,
    server,
    client,
    received,
    close: async () => {
      client.terminate();
      await new Promise((resolve) => wss.close(resolve));
    },
  };
}

/** Waits until `done` holds: every message the test expects has arrived. */
async function until(done: () => boolean): Promise<void> {
  await waitFor(done, { interval: 10, message: 'the messages' });
}

test('frames of every length class arrive whole, in order, text and binary as sent', async () => {
  const { outbound, received, close } = await pair();
  try {
    const texts = ['', 'x', 'a'.repeat(125), 'b'.repeat(126), 'c'.repeat(65_535), 'd'.repeat(65_536), 'e'.repeat(200_000)];
    for (const text of texts) outbound.durable(Buffer.from(text), false);
    outbound.durable(Buffer.from([1, 2, 3]), true);
    await until(() => received.length === texts.length + 1);
    assert.equal(received.slice(0, texts.length), texts);
    assert.equal(received[texts.length], Buffer.from([1, 2, 3]));
  } finally {
    await close();
  }
});

test('sockets due the same messages in a turn, and sockets due others, each get exactly their own', async () => {
  const pairs = await Promise.all([pair(), pair(), pair(), pair()]);
  try {
    const [one, two, three] = ['one', 'two', 'three'].map((text) => Buffer.from(text));
    const due = [[one, two, three], [one, two, three], [three, two, one], [one, two, three, Buffer.from([4])]];
    // Sockets become due in this order: the second follows the same messages, the third the same ones reordered.
    for (let i = 0; i < 4; i++) pairs.forEach(({ outbound }, p) => due[p]![i] && outbound.durable(due[p]![i]!, i === 3));
    await until(() => pairs.every(({ received }, p) => received.length === due[p]!.length));
    const sent = due.map((messages) => messages.map((message) => (message.length === 1 ? message : message.toString())));
    assert.equal(pairs.map(({ received }) => received), sent);
  } finally {
    await Promise.all(pairs.map(({ close }) => close()));
  }
});

test('messages held back past the high-water mark in one turn all follow, in order, with nothing else to wake them', async () => {
  const { outbound, received, close } = await pair();
  try {
    // 1,000 durable messages of 1 KiB handed on at once: 1 MiB, four times the high-water mark.
    const sent = Array.from({ length: 1000 }, (_, i) => `${String(i).padStart(4, '0')}${'.'.repeat(1020)}`);
    for (const text of sent) outbound.durable(Buffer.from(text), false);
    assert.ok(outbound.queuedBytes > 0, 'some wait in the queue');
    await until(() => received.length === sent.length);
    assert.equal(received, sent);
    assert.is(outbound.queuedBytes, 0);
  } finally {
    await close();
  }
});

test('nothing is written once the WebSocket is closing: messages due in the turn of the close are dropped', async () => {
  const { outbound, server, client, received, close } = await pair();
  try {
    outbound.durable(Buffer.from('before'), false);
    await until(() => received.length === 1);
    const closed = new Promise<number>((resolve) => client.once('close', resolve));
    outbound.durable(Buffer.from('due in the closing turn'), false);
    // The server side closes in the same turn the message was handed on.
    server.close(1000, 'bye');
    outbound.durable(Buffer.from('after the close'), false);
    assert.is(await closed, 1000);
    assert.equal(received, ['before']);
  } finally {
    await close();
  }
});

test('past the broadcast bound far broadcasts are dropped before near ones, and near ones are handed on first, after every durable message', async () => {
  const { outbound, received, close } = await pair();
  try {
    outbound.nearTopic = 'realtime:region:0:0';
    const before = { ...broadcastsShedByKind() };
    const kib = (label: string, i: number) => Buffer.from(`${label}${String(i).padStart(4, '0')}${'.'.repeat(1015)}`);
    // 300 KiB of replies: past the high-water mark, so what follows waits in the queues.
    for (let i = 0; i < 300; i++) outbound.durable(kib('dur', i), false);
    // 200 KiB far, then 200 KiB near, each under a key of its own: 400 KiB against a bound of 256.
    for (let i = 0; i < 200; i++) outbound.ephemeral(`far${i}`, kib('far', i), false, 'realtime:region:1:0');
    for (let i = 0; i < 200; i++) outbound.ephemeral(`near${i}`, kib('nea', i), false, 'realtime:region:0:0');
    const shed = broadcastsShedByKind();
    assert.equal({ near: shed.near - before.near, far: shed.far - before.far }, { near: 0, far: 144 });
    await until(() => received.length === 300 + 200 + 56);
    const labels = received.map((message) => String(message).slice(0, 7));
    const expected = [
      ...Array.from({ length: 300 }, (_, i) => `dur${String(i).padStart(4, '0')}`),
      ...Array.from({ length: 200 }, (_, i) => `nea${String(i).padStart(4, '0')}`),
      ...Array.from({ length: 56 }, (_, i) => `far${String(144 + i).padStart(4, '0')}`),
    ];
    assert.equal(labels, expected);
  } finally {
    await close();
  }
});

test('a socket that never broadcast takes every topic as near', async () => {
  const { outbound, close } = await pair();
  try {
    assert.is(outbound.nearness('realtime:region:5:5'), 'near');
    outbound.nearTopic = 'realtime:region:0:0';
    assert.is(outbound.nearness('realtime:region:5:5'), 'far');
    assert.is(outbound.nearness('realtime:region:0:0'), 'near');
  } finally {
    await close();
  }
});

test.run();
