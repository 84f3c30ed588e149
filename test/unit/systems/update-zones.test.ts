import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cellKey } from '../../../components/grid.js';
import { readLocalPlayer, spawnLocalPlayer, spawnSimulatedPlayer } from '../../../components/players.js';
import { setVelocity } from '../../../components/transform.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

function zoneAt(x: number, y: number): { safe: number; zone: string | undefined; hud: unknown } {
  const published: Record<string, unknown> = {};
  const w = createGameWorld({ hud: { set: (k, v) => (published[k] = v), toast() {} } });
  const eid = spawnLocalPlayer(w, { id: 'me', name: 'Me', x, y });
  step(w);
  return { safe: w.combat.safe[eid]!, zone: readLocalPlayer(w)?.zone, hud: published.zone };
}

test('tile 2 on either side is safe, tile 3 is PvP (x axis)', () => {
  assert.equal(zoneAt(2 * 32 + 31, 0), { safe: 1, zone: 'safe', hud: 'safe' });
  assert.equal(zoneAt(3 * 32, 0), { safe: 0, zone: 'pvp', hud: 'pvp' });
  assert.equal(zoneAt(-2 * 32, 0), { safe: 1, zone: 'safe', hud: 'safe' });
  assert.equal(zoneAt(-2 * 32 - 0.5, 0), { safe: 0, zone: 'pvp', hud: 'pvp' });
});

test('tile 2 on either side is safe, tile 3 is PvP (y axis)', () => {
  assert.equal(zoneAt(0, 95), { safe: 1, zone: 'safe', hud: 'safe' });
  assert.equal(zoneAt(0, 96), { safe: 0, zone: 'pvp', hud: 'pvp' });
  assert.equal(zoneAt(0, -64), { safe: 1, zone: 'safe', hud: 'safe' });
  assert.equal(zoneAt(0, -65), { safe: 0, zone: 'pvp', hud: 'pvp' });
});

test('both axes must be inside', () => {
  assert.equal(zoneAt(80, 100), { safe: 0, zone: 'pvp', hud: 'pvp' });
});

test('walking over the spawn edge within one grid cell changes the zone in that step', () => {
  const w = createGameWorld();
  // x 100 is tile 3 (PvP), x 94 tile 2 (safe); both lie in grid cell 0.
  const eid = spawnSimulatedPlayer(w, { id: 'walker', x: 100, y: 0 });
  setVelocity(w.transform, eid, -3, 0);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(0, 0)]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [1, cellKey(0, 0)]);
  setVelocity(w.transform, eid, 3, 0);
  step(w);
  step(w);
  assert.is(w.combat.safe[eid], 0);
});

test('walking over the spawn edge on the negative side within one grid cell changes the zone in that step', () => {
  const w = createGameWorld();
  // x -67 is tile -3 (PvP), x -64 tile -2 (safe); both lie in grid cell -1, as does y -60 (tile -2).
  const eid = spawnSimulatedPlayer(w, { id: 'walker', x: -70, y: -60 });
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(-1, -1)]);
  setVelocity(w.transform, eid, 3, 0);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(-1, -1)]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [1, cellKey(-1, -1)]);
  setVelocity(w.transform, eid, -3, 0);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(-1, -1)]);
});

test('walking from the cell east of the spawn cells into them keeps the zone and then changes it at the spawn edge', () => {
  const w = createGameWorld();
  // Cell 1 starts at x 128, east of the spawn cells (-1 and 0); x 125 is tile 3 (PvP) in cell 0, x 95 tile 2 (safe).
  const eid = spawnSimulatedPlayer(w, { id: 'walker', x: 134, y: 0 });
  step(w);
  setVelocity(w.transform, eid, -3, 0);
  step(w);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [0, cellKey(1, 0), 128]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [0, cellKey(0, 0), 125]);
  for (let i = 0; i < 10; i++) step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [1, cellKey(0, 0), 95]);
});

test.run();
