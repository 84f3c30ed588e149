import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RESPAWN_MS, STEP_MS } from '../../../components/constants.js';
import type { HudFields } from '../../../components/hud.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

test('a defeated player is told the whole seconds until its respawn, 3, 2, 1, then 0 once back', () => {
  const published: Array<[keyof HudFields, unknown]> = [];
  const w = createGameWorld({ hud: { set: (key, value) => void published.push([key, value]), toast() {} } });
  const me = spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  step(w);
  w.queues.inbox.push({ kind: 'damaged', attackerId: 'them', amount: 100 });
  for (let i = 0; i < RESPAWN_MS / STEP_MS + 2; i++) step(w);
  const shown = (key: keyof HudFields) => published.filter(([k]) => k === key).map(([, value]) => value);
  assert.equal(shown('defeated'), [false, true, false]);
  assert.equal(shown('respawnIn'), [0, 3, 2, 1, 0]);
  assert.is(w.vitals.defeated[me], 0);
});

test.run();
