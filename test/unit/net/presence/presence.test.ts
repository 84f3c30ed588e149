import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { SupabaseClient } from '@supabase/supabase-js';
import { DEFAULT_APPEARANCE } from '../../../../components/appearance-types.js';
import { createPresence } from '../../../../net/presence/presence.js';

/** A client whose presence upserts (answered as a list) wait until the test answers them, in the order they were sent. */
function heldClient() {
  const sent: Array<{ x: number; answer(): void }> = [];
  const db = {
    from: () => ({
      upsert: (row: { x: number }) => ({
        select: () => new Promise((resolve) => sent.push({ x: row.x, answer: () => resolve({ data: [{ health: 100, level: 1 }], error: null }) })),
      }),
    }),
  } as unknown as SupabaseClient;
  return { db, sent };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test('heartbeats go one at a time, in order: one sent while another is under way waits for it, and further ones join the waiting one', async () => {
  const { db, sent } = heldClient();
  const recorded: unknown[] = [];
  let x = 0;
  const presence = createPresence(db, {
    playerId: 'me',
    readLocal: () => ({ id: 'me', name: 'Me', x, y: 0, health: 100, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: false }),
    emit: (event) => recorded.push(event),
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
  assert.equal(recorded, [{ kind: 'recorded', health: 100, level: 1 }, { kind: 'recorded', health: 100, level: 1 }], 'each answer is recorded');
  await presence.leave().catch(() => undefined);
});

test.run();
