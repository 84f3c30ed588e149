import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SupabaseClient } from '@supabase/supabase-js';
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import { createPresence } from '../../../net/presence.js';

/**
 * A client whose presence writes wait until the test answers them, in the order they were sent.
 * An update finds the row unless `rowMissing`; an upsert always writes one.
 */
function heldClient(rowMissing = false) {
  const sent: Array<{ method: 'update' | 'upsert'; x: number; answer(): void }> = [];
  const held = (method: 'update' | 'upsert', row: { x: number }, data: unknown) =>
    new Promise((resolve) => sent.push({ method, x: row.x, answer: () => resolve({ data, error: null }) }));
  const stored = { health: 100, level: 1 };
  const db = {
    from: () => ({
      update: (row: { x: number }) => ({
        eq: () => ({ select: () => held('update', row, rowMissing ? [] : [stored]) }),
      }),
      upsert: (row: { x: number }) => ({
        select: () => ({ single: () => held('upsert', row, stored) }),
      }),
    }),
  } as unknown as SupabaseClient;
  return { db, sent };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('heartbeats go one at a time, in order: one sent while another is under way waits for it, and further ones join the waiting one', async () => {
  const { db, sent } = heldClient();
  let x = 0;
  const presence = createPresence(db, {
    playerId: 'me',
    readLocal: () => ({ id: 'me', name: 'Me', x, y: 0, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false }),
    emit: () => {},
    now: () => 1000,
    hitsHeard: () => 0,
  });
  const first = presence.heartbeat();
  x = 10;
  const second = presence.heartbeat();
  x = 20;
  const third = presence.heartbeat();
  await settle();
  assert.equal(sent.map((s) => s.x), [0], 'the second waits for the first');
  assert.is(second, third, 'the third joins the waiting one');
  sent[0]!.answer();
  await first;
  await settle();
  assert.equal(sent.map((s) => s.x), [0, 20], 'the waiting one sends the position of when it goes');
  sent[1]!.answer();
  await second;
  assert.is(sent.length, 2);
  await presence.leave().catch(() => undefined);
});

test('a heartbeat updates the row, and upserts it only when no row was there to update', async () => {
  for (const rowMissing of [false, true]) {
    const { db, sent } = heldClient(rowMissing);
    const recorded: unknown[] = [];
    const presence = createPresence(db, {
      playerId: 'me',
      readLocal: () => ({ id: 'me', name: 'Me', x: 5, y: 0, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false }),
      emit: (event) => recorded.push(event),
      now: () => 1000,
      hitsHeard: () => 0,
    });
    const beat = presence.heartbeat();
    await settle();
    sent[0]!.answer();
    await settle();
    if (rowMissing) sent[1]!.answer();
    await beat;
    assert.equal(sent.map((s) => s.method), rowMissing ? ['update', 'upsert'] : ['update']);
    assert.equal(recorded, [{ kind: 'recorded', health: 100, level: 1 }]);
    await presence.leave().catch(() => undefined);
  }
});

test.run();
