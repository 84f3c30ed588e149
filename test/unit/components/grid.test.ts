import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GRID_CELL, GRID_ORIGIN, NO_CELL, bucketOf, cellKey, collectCell, createGrid, isEdgeCell, linkToCell, unlinkFromGrid, type SpatialGrid } from '../../../components/grid.js';
import { spawnSimulatedPlayer } from '../../../components/players.js';
import { countPlayersNear, nearestTarget } from '../../../components/proximity.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';
import { setVelocity, xOf, yOf } from '../../../components/transform.js';

const members = (grid: ReturnType<typeof createGrid>, key: number) => {
  const out: number[] = [];
  collectCell(grid, key, out);
  return out.sort((a, b) => a - b);
};

test('a cell holds seven players inline and more on its overflow list; each can leave', () => {
  const grid = createGrid(16);
  const key = cellKey(3, -4);
  for (let e = 1; e <= 10; e++) linkToCell(grid, e, key);
  assert.equal(members(grid, key), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  unlinkFromGrid(grid, 2);
  unlinkFromGrid(grid, 9);
  assert.equal(members(grid, key), [1, 3, 4, 5, 6, 7, 8, 10]);
  assert.is(grid.cell[2], NO_CELL);
  assert.is(grid.cell[9], NO_CELL);
  linkToCell(grid, 11, key);
  unlinkFromGrid(grid, 8);
  unlinkFromGrid(grid, 10);
  linkToCell(grid, 10, cellKey(4, -4));
  assert.equal(members(grid, key), [1, 3, 4, 5, 6, 7, 11]);
  assert.equal(members(grid, cellKey(4, -4)), [10]);
});

test('cells that share a bucket keep their players apart', () => {
  const grid = createGrid(16);
  const a = cellKey(0, 0);
  let b = 0;
  // A cell in the same position within its 4x4 block as (0, 0), in another block that hashes alike.
  for (let cx = 4; b === 0; cx += 4) if (bucketOf(cellKey(cx, 8), grid.blockShift) === bucketOf(a, grid.blockShift)) b = cellKey(cx, 8);
  linkToCell(grid, 1, a);
  linkToCell(grid, 2, b);
  linkToCell(grid, 3, a);
  linkToCell(grid, 4, b);
  assert.equal(members(grid, a), [1, 3]);
  assert.equal(members(grid, b), [2, 4]);
});

test('lookups reach across cell edges, count overflowing cells, and break ties by the lower eid', () => {
  const w = createGameWorld();
  const x0 = GRID_ORIGIN + 20 * GRID_CELL;
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x: x0 - 1, y: x0 - 1 });
  const right = spawnSimulatedPlayer(w, { id: 'r', name: 'R', x: x0 + 39, y: x0 - 1 });
  const left = spawnSimulatedPlayer(w, { id: 'l', name: 'L', x: x0 - 41, y: x0 - 1 });
  for (let i = 0; i < 5; i++) spawnSimulatedPlayer(w, { id: `c${i}`, name: 'C', x: x0 + 10, y: x0 + 50 });
  step(w);
  // Both are 40 px away; the left one sits in the cell scanned first, the right one has the lower eid.
  assert.ok(right < left);
  assert.is(nearestTarget(w, a), right);
  assert.is(countPlayersNear(w, a), 7);
});

test('a player walking over a cell edge is found in its new cell', () => {
  const w = createGameWorld();
  const edge = GRID_ORIGIN + 30 * GRID_CELL;
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x: edge - 2, y: 100 });
  const b = spawnSimulatedPlayer(w, { id: 'b', name: 'B', x: edge + 60, y: 100 });
  setVelocity(w.transform, a, 3, 0);
  step(w);
  assert.is(w.grid.cell[a], cellKey(30, 1));
  assert.is(nearestTarget(w, b), a);
  assert.is(w.grid.cell[b], cellKey(30, 1));
});

test('walking across cell edges on the negative side, and to the world edge, keeps the cell of floor((x - GRID_ORIGIN) / 128)', () => {
  const w = createGameWorld();
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x: GRID_ORIGIN - 2 * GRID_CELL + 1, y: GRID_ORIGIN - GRID_CELL + 1 });
  setVelocity(w.transform, a, -3, -3);
  step(w);
  assert.is(w.grid.cell[a], cellKey(-3, -2), 'x -322 is in cell -3, y -194 in cell -2');
  const far = spawnSimulatedPlayer(w, { id: 'far', name: 'Far', x: -159_980, y: 159_980 });
  setVelocity(w.transform, far, -3, 3);
  for (let i = 0; i < 20; i++) step(w);
  const cellOf = (v: number) => Math.floor((v - GRID_ORIGIN) / GRID_CELL);
  assert.is(w.grid.cell[far], cellKey(cellOf(xOf(w.transform, far)), cellOf(yOf(w.transform, far))));
  assert.is(w.grid.cell[far], cellKey(-1250, 1250));
});

/** The edge members, sorted, after checking that each one's recorded index points at it. */
const edgeMembers = (grid: SpatialGrid) => {
  const { eids, length } = grid.edgeMembers;
  for (let i = 0; i < length; i++) assert.is(grid.edgeIndex[eids[i]!], i);
  return Array.from(eids.subarray(0, length)).sort((a, b) => a - b);
};

test('cell 0 starts at the low corner of the safe area; the edge cells are the three of the 2x2 cells over it that its far edges cross', () => {
  assert.is(GRID_ORIGIN, -64);
  assert.equal([cellKey(1, 0), cellKey(0, 1), cellKey(1, 1)].map(isEdgeCell), [true, true, true]);
  assert.equal([cellKey(0, 0), cellKey(-1, 0), cellKey(0, -1), cellKey(-1, -1), cellKey(2, 0), cellKey(0, 2), cellKey(2, 2), NO_CELL].map(isEdgeCell), [false, false, false, false, false, false, false, false]);
});

test('players join the edge members when linked into an edge cell and leave when unlinked, the last one taking the place of a leaver', () => {
  const grid = createGrid(16);
  linkToCell(grid, 1, cellKey(1, 0));
  linkToCell(grid, 2, cellKey(0, 0));
  linkToCell(grid, 3, cellKey(1, 1));
  linkToCell(grid, 4, cellKey(0, 1));
  assert.equal(edgeMembers(grid), [1, 3, 4]);
  assert.is(grid.edgeIndex[2], -1);
  unlinkFromGrid(grid, 1);
  assert.equal(edgeMembers(grid), [3, 4]);
  assert.is(grid.edgeIndex[1], -1);
  unlinkFromGrid(grid, 2);
  assert.equal(edgeMembers(grid), [3, 4]);
});

test('a player walking out of the edge cells leaves the edge members and joins them again walking back', () => {
  const w = createGameWorld();
  // Cell 1 spans x 64 to 192: x 190 is in it, x 193 in cell 2. y 10 is in row 0, y 70 in row 1.
  const a = spawnSimulatedPlayer(w, { id: 'a', name: 'A', x: 190, y: 10 });
  const b = spawnSimulatedPlayer(w, { id: 'b', name: 'B', x: 20, y: 70 });
  const inside = spawnSimulatedPlayer(w, { id: 'c', name: 'C', x: 20, y: 10 });
  step(w);
  assert.equal([w.grid.cell[inside], edgeMembers(w.grid)], [cellKey(0, 0), [a, b].sort((p, q) => p - q)]);
  setVelocity(w.transform, a, 3, 0);
  step(w);
  assert.equal([w.grid.cell[a], edgeMembers(w.grid)], [cellKey(2, 0), [b]]);
  setVelocity(w.transform, a, -3, 0);
  step(w);
  assert.equal([w.grid.cell[a], edgeMembers(w.grid)], [cellKey(1, 0), [a, b].sort((p, q) => p - q)]);
});

test.run();
