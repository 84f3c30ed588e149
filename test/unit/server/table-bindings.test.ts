import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Binding } from '../../../server/realtime/channel.js';
import { matchesFilter, parseFilter } from '../../../server/realtime/filter.js';
import { TableBindings } from '../../../server/realtime/table-bindings.js';

const TABLE = {
  name: 'probe',
  types: new Map([
    ['region', 'text'],
    ['room', 'text'],
    ['x', 'int4'],
    ['seen', 'bool'],
  ]),
  typeNames: new Map(),
  largeText: new Map(),
};

const binding = (id: number, filter: string): Binding => ({ id, filter: filter ? parseFilter(filter, TABLE) : null }) as unknown as Binding;
const ids = (bindings: Iterable<Binding>) => [...bindings].map((b) => b.id).sort((a, b) => a - b);

test('a change meets the scanned bindings and those filed under its own values, each once', () => {
  const table = new TableBindings();
  const all = [
    binding(1, ''),
    binding(2, 'region=in.(0:0,1:0,0:1)'),
    binding(3, 'region=in.(5:5,6:5)'),
    binding(4, 'region=eq.1:0,x=gt.10'),
    binding(5, 'x=eq.3'),
    binding(6, 'region=neq.1:0'),
    binding(7, 'room=eq.lobby,region=in.(1:0)'),
  ];
  for (const b of all) table.add(b);
  assert.equal(ids(table.candidates({ region: '1:0', room: 'hall', x: 3 })), [1, 2, 4, 5, 6]);
  assert.equal(ids(table.candidates({ region: '1:0', room: 'lobby', x: 3 })), [1, 2, 4, 5, 6, 7]);
  assert.equal(ids(table.candidates({ region: '9:9', x: 3 })), [1, 5, 6]);
  assert.equal(ids(table.candidates({ x: 3 })), [1, 5, 6], 'a row without the column meets no binding filed under it');
  assert.equal(ids(table.candidates({ region: null })), [1, 5, 6]);
  assert.equal(ids(table.candidates(null)), [1, 5, 6]);
  table.delete(all[1]!);
  table.delete(all[4]!);
  assert.equal(ids(table.candidates({ region: '0:1', x: 3 })), [1, 6]);
  assert.is(table.size, 5);
  for (const b of all) table.delete(b);
  assert.is(table.size, 0);
  assert.equal(ids(table.candidates({ region: '1:0', room: 'lobby' })), []);
});

test('every binding whose filter a row passes is among its candidates (random filters and rows)', () => {
  const values = ['a', 'b', 'c', '1', 'true'];
  const pickValue = (i: number) => values[(i * 7 + 3) % values.length]!;
  const filters = [
    '', 'region=eq.a', 'region=in.(a,b)', 'region=in.(b,c,1)', 'room=eq.b', 'room=in.(a,true)', 'region=eq.c,room=eq.a',
    'room=eq.1,region=in.(a,c)', 'region=neq.a', 'region=neq.b', 'x=eq.1', 'seen=eq.true', 'region=gt.a', 'region=lte.b',
  ];
  const table = new TableBindings();
  const bindings = filters.map((filter, i) => binding(i, filter));
  for (const b of bindings) table.add(b);
  let checked = 0;
  for (let i = 0; i < 400; i++) {
    const row: Record<string, unknown> = {};
    if (i % 5 !== 0) row.region = i % 11 === 0 ? null : pickValue(i);
    if (i % 3 !== 0) row.room = pickValue(i * 13 + 1);
    row.x = i % 4;
    row.seen = i % 2 === 0;
    const candidates = new Set(table.candidates(row));
    assert.is(candidates.size, [...table.candidates(row)].length, 'no binding comes twice');
    for (const b of bindings) {
      if (b.filter && !matchesFilter(b.filter, row)) continue;
      assert.ok(candidates.has(b), `binding ${filters[b.id]} passes ${JSON.stringify(row)}`);
      checked++;
    }
  }
  assert.ok(checked > 400);
});

test.run();
