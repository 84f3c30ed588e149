import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { xOf, yOf } from '../../../components/transform.js';

test('a player spawned without a name is Player1, with 100 of 100 HP at level 1 at the origin', () => {
  const w = createGameWorld();
  const eid = spawnLocalPlayer(w, { id: 'fresh' });
  assert.is(w.names[eid], 'Player1');
  assert.equal([w.vitals.health[eid], w.vitals.maxHealth[eid], w.vitals.level[eid], xOf(w.transform, eid), yOf(w.transform, eid)], [100, 100, 1, 0, 0]);
});

test.run();
