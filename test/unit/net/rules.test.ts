import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import { regionOf, topicsAround } from '../../../net/regions.js';
import { localPlayerToRow, playerRowToEvent, readAppearance } from '../../../net/rows.js';
import { proximityVolume } from '../../../components/sounds.js';
import { clipVolume } from '../../../net/voice.js';
import { describeRefusal } from '../../../net/refusals.js';

test('regions are 1024 px squares and the 3x3 around a player starts with its own', () => {
  assert.equal(regionOf(0, 0), { rx: 0, ry: 0 });
  assert.equal(regionOf(-1, 1023), { rx: -1, ry: 0 });
  assert.equal(regionOf(1024, -1025), { rx: 1, ry: -2 });
  const topics = topicsAround(100, 100);
  assert.is(topics.length, 9);
  assert.is(topics[0], 'region:0:0');
  assert.ok(topics.includes('region:-1:-1') && topics.includes('region:1:1'));
});

test('voice volume is max(0.1, 1 - distance/500)', () => {
  assert.is(proximityVolume(0), 1);
  assert.is(proximityVolume(250), 0.5);
  assert.is(proximityVolume(480), 0.1);
  assert.is(proximityVolume(500), 0.1);
});

test('a clip plays only from another player in range with audio on and voice online', () => {
  const listener = { id: 'me', x: 0, y: 0, audioEnabled: true, voiceOnline: true };
  assert.is(clipVolume({ player_id: 'other', x: 300, y: 400 }, listener), 0.1);
  assert.is(clipVolume({ player_id: 'other', x: 0, y: 100 }, listener), 0.8);
  assert.is(clipVolume({ player_id: 'other', x: 301, y: 400 }, listener), null, 'out of range');
  assert.is(clipVolume({ player_id: 'me', x: 0, y: 0 }, listener), null, 'own clip');
  assert.is(clipVolume({ player_id: 'other', x: 0, y: 0 }, { ...listener, audioEnabled: false }), null, 'muted');
  assert.is(clipVolume({ player_id: 'other', x: 0, y: 0 }, { ...listener, voiceOnline: false }), null, 'offline');
});

test('presence rows round positions and map back to engine events', () => {
  const row = localPlayerToRow(
    { id: 'w1', name: 'Ann', x: 10.6, y: -3.2, health: 75, maxHealth: 100, level: 1, appearance: { ...DEFAULT_APPEARANCE }, isSwinging: true },
    new Date('2026-01-01T00:00:00Z'),
  );
  assert.is(row.x, 11);
  assert.is(row.y, -3);
  assert.is(row.last_seen, '2026-01-01T00:00:00.000Z');
  assert.equal(playerRowToEvent(row), {
    kind: 'playerUpsert',
    id: 'w1',
    name: 'Ann',
    x: 11,
    y: -3,
    health: 75,
    maxHealth: 100,
    level: 1,
    appearance: { ...DEFAULT_APPEARANCE },
    isSwinging: true,
  });
});

test('an untrusted appearance keeps valid fields and defaults the rest', () => {
  const appearance = readAppearance({ skinColor: '#123456', hairColor: 'red', hairStyle: 'curly', shirtStyle: 'cape', extra: 1 });
  assert.equal(appearance, { ...DEFAULT_APPEARANCE, skinColor: '#123456', hairStyle: 'curly' });
  assert.equal(readAppearance(null), { ...DEFAULT_APPEARANCE });
});

test('refusals are told in words', () => {
  assert.is(describeRefusal({ code: '23505', message: 'duplicate key' }, 'block'), 'Someone already built there.');
  assert.is(describeRefusal({ code: 'TS429', message: 'Too many chat messages: slow down' }, 'chat'), 'You are sending messages too fast. Slow down.');
  assert.is(describeRefusal({ code: '23514', message: 'violates check constraint "game_blocks_outside_spawn"' }, 'block'), 'Cannot build in spawn area - protected zone!');
});

test.run();
