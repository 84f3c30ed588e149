/**
 * The zone (safe or PvP, components/combat.ts safeAt) that systems/move-players.ts and
 * systems/index-players.ts keep for every player, at the spawn edge and within one grid cell.
 */
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
  // x 100 is tile 3 (PvP), x 94 tile 2 (safe); both lie in grid cell 1 (x 64 to 192).
  const eid = spawnSimulatedPlayer(w, { id: 'walker', x: 100, y: 0 });
  setVelocity(w.transform, eid, -3, 0);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(1, 0)]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [1, cellKey(1, 0)]);
  setVelocity(w.transform, eid, 3, 0);
  step(w);
  step(w);
  assert.is(w.combat.safe[eid], 0);
});

test('walking over the spawn edge on the negative side, where grid cell 0 starts, changes the zone in that step', () => {
  const w = createGameWorld();
  // x -67 is tile -3 (PvP) in grid cell -1, x -64 tile -2 (safe) in cell 0; y -60 (tile -2) is in row 0.
  const eid = spawnSimulatedPlayer(w, { id: 'walker', x: -70, y: -60 });
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(-1, 0)]);
  setVelocity(w.transform, eid, 3, 0);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(-1, 0)]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [1, cellKey(0, 0)]);
  setVelocity(w.transform, eid, -3, 0);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid]], [0, cellKey(-1, 0)]);
});

test('walking from the cell east of the edge cells into them keeps the zone and then changes it at the spawn edge', () => {
  const w = createGameWorld();
  // Cell 2 starts at x 192, east of edge cell 1; x 189 is tile 5 (PvP) in cell 1, x 96 tile 3 (PvP), x 93 tile 2 (safe).
  const eid = spawnSimulatedPlayer(w, { id: 'walker', x: 198, y: 0 });
  step(w);
  setVelocity(w.transform, eid, -3, 0);
  step(w);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [0, cellKey(2, 0), 192]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [0, cellKey(1, 0), 189]);
  for (let i = 0; i < 31; i++) step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [0, cellKey(1, 0), 96]);
  step(w);
  assert.equal([w.combat.safe[eid], w.grid.cell[eid], w.transform.pos[2 * eid]], [1, cellKey(1, 0), 93]);
});

test.run();
