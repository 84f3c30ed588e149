import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createConnectionMachine, RESYNC_RETRY_MS, type ConnectionState } from '../../../net/connection.js';

function machine() {
  const told: ConnectionState[] = [];
  const m = createConnectionMachine((state) => told.push(state));
  return { m, told };
}

test('connecting until the channels first come up; a failure while connecting changes nothing', () => {
  const { m, told } = machine();
  assert.is(m.state(), 'connecting');
  m.unreachable();
  m.channels(false);
  assert.is(m.state(), 'connecting');
  assert.is(m.resyncDue(0), null);
  m.channels(true);
  assert.is(m.state(), 'online');
  assert.equal(told, ['online']);
  m.viewComplete(true);
  assert.equal(told, ['online'], 'the first entry needs no resync');
});

test('a drop restores: resync once the channels are back, then online once the view is complete', () => {
  const { m, told } = machine();
  m.channels(true);
  m.channels(false);
  assert.is(m.state(), 'restoring');
  assert.is(m.resyncDue(0), null, 'no resync while the channels are down');
  m.viewComplete(true);
  assert.is(m.state(), 'restoring');
  m.channels(true);
  assert.is(m.state(), 'restoring', 'channels alone are not the world');
  const id = m.resyncDue(10)!;
  assert.is(id, 1);
  assert.is(m.resyncDue(10), null, 'one resync at a time');
  m.viewComplete(true);
  assert.is(m.state(), 'restoring', 'the resync is not done yet');
  m.resyncEnded(id, true, 20);
  m.viewComplete(false);
  assert.is(m.state(), 'restoring', 'chunks of the view still being read');
  m.viewComplete(true);
  assert.is(m.state(), 'online');
  assert.equal(told, ['online', 'restoring', 'online']);
});

test('a failed resync is tried again RESYNC_RETRY_MS later', () => {
  const { m } = machine();
  m.channels(true);
  m.unreachable();
  assert.is(m.state(), 'restoring', 'a request that could not reach the server restores too');
  const first = m.resyncDue(100)!;
  m.resyncEnded(first, false, 200);
  assert.is(m.resyncDue(200 + RESYNC_RETRY_MS - 1), null);
  const second = m.resyncDue(200 + RESYNC_RETRY_MS)!;
  assert.is(second, 2);
  m.resyncEnded(second, true, 1300);
  m.viewComplete(true);
  assert.is(m.state(), 'online');
});

test('a drop during a resync outdates it: its end is ignored and a new one is due', () => {
  const { m } = machine();
  m.channels(true);
  m.channels(false);
  m.channels(true);
  const first = m.resyncDue(0)!;
  m.channels(false);
  m.resyncEnded(first, true, 5);
  m.channels(true);
  m.viewComplete(true);
  assert.is(m.state(), 'restoring', 'the outdated resync does not count');
  const second = m.resyncDue(6)!;
  assert.is(second, 2);
  m.resyncEnded(second, true, 7);
  m.viewComplete(true);
  assert.is(m.state(), 'online');
});

test.run();
