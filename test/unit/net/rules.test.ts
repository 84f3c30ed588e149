import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_APPEARANCE } from '../../../components/appearance-types.js';
import { interestCentre, topicsAround } from '../../../net/interest/centre.js';
import { localPlayerToRow, playerRowToEvent, readAppearance } from '../../../net/rows.js';
import { proximityVolume } from '../../../components/sounds.js';
import { clipVolume } from '../../../net/voice.js';
import { describeRefusal } from '../../../net/refusals.js';
import { REFUSALS } from '../../../protocol/refusals.js';
import { regionOf, type Region } from '../../../protocol/geometry.js';

test('regions are 1024 px squares centred on spawn and the 3x3 around a player starts with its own', () => {
  assert.equal(regionOf(0, 0), { rx: 0, ry: 0 });
  assert.equal(regionOf(-512, 511), { rx: 0, ry: 0 }, 'region (0, 0) spans -512 to 511');
  assert.equal(regionOf(-513, 512), { rx: -1, ry: 1 });
  assert.equal(regionOf(1535, -1537), { rx: 1, ry: -2 });
  const topics = topicsAround(regionOf(100, 100));
  assert.is(topics.length, 9);
  assert.is(topics[0], 'region:0:0');
  assert.ok(topics.includes('region:-1:-1') && topics.includes('region:1:1'));
});

test('the interest centre stays put until the player is 256 px past its region, then moves to the region it is in', () => {
  const start = interestCentre(null, 10, 10);
  assert.equal(start, { rx: 0, ry: 0 });
  assert.is(interestCentre(start, -512 - 256, 10), start, 'at the slack: kept');
  assert.is(interestCentre(start, 512 + 255, 512 + 255), start, 'inside the slack on both axes');
  assert.equal(interestCentre(start, -512 - 257, 10), { rx: -1, ry: 0 });
  assert.equal(interestCentre(start, 512 + 256, 10), { rx: 1, ry: 0 });
  assert.equal(interestCentre(start, 5000, -5000), { rx: 5, ry: -5 }, 'a jump lands on the region it reaches');
  // Walking to and fro over the border at x = 512 ten times moves the centre only at the start.
  const walk: number[] = [];
  for (let round = 0; round < 10; round++) for (let x = -200; x <= 200; x += 10) walk.push(512 + (round % 2 === 0 ? x : -x));
  let centre: Region | null = null;
  let moves = 0;
  for (const x of [...walk, 512 + 300]) {
    const next = interestCentre(centre, x, 0);
    if (next !== centre) moves++;
    centre = next;
  }
  assert.is(moves, 2, 'once at the start, once on going 300 px past the border');
  assert.equal(centre, { rx: 1, ry: 0 });
});

test('a crowd milling about one screen around spawn never moves its interest centres', () => {
  for (let i = 0; i < 2000; i++) {
    const x = Math.round(400 * Math.sin(i * 1.7));
    const y = Math.round(300 * Math.cos(i * 2.3));
    assert.equal(interestCentre(interestCentre(null, 0, 0), x, y), { rx: 0, ry: 0 }, `(${x}, ${y})`);
  }
});

test('everything on an 800x600 screen lies in the 3x3 regions around the interest centre', () => {
  let centre: Region | null = null;
  // A walk that wanders over many borders, checked at every 7 px.
  for (let i = 0; i < 4000; i++) {
    const x = Math.round(3000 * Math.sin(i / 300)) + 7 * (i % 11);
    const y = Math.round(2000 * Math.cos(i / 170));
    centre = interestCentre(centre, x, y);
    const around = new Set(topicsAround(centre));
    for (const [ox, oy] of [[-400, -300], [400, -300], [-400, 300], [399, 299], [0, 0]] as const) {
      const r = regionOf(x + ox, y + oy);
      assert.ok(around.has(`region:${r.rx}:${r.ry}`), `(${x + ox}, ${y + oy}) on the screen of (${x}, ${y})`);
    }
  }
});

test("a player on another's screen sends on a channel the other listens to: its own interest centre's", () => {
  let watcher: Region | null = null;
  const walkers: Array<Region | null> = [null, null, null, null];
  // The watcher wanders over many borders; four walkers wander around it, each at the edges of
  // its screen part of the time (corners and sides, 400x300 px away).
  for (let i = 0; i < 4000; i++) {
    const x = Math.round(3000 * Math.sin(i / 300)) + 7 * (i % 11);
    const y = Math.round(2000 * Math.cos(i / 170));
    watcher = interestCentre(watcher, x, y);
    const heard = new Set(topicsAround(watcher));
    walkers.forEach((centre, k) => {
      const wx = x + Math.round(400 * Math.sin(i / (23 + 7 * k)));
      const wy = y + Math.round(300 * Math.cos(i / (31 + 5 * k)));
      const next = interestCentre(centre, wx, wy);
      walkers[k] = next;
      assert.ok(heard.has(`region:${next.rx}:${next.ry}`), `walker at (${wx}, ${wy}) sends on a channel the watcher at (${x}, ${y}) hears`);
    });
  }
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
  assert.is(describeRefusal({ code: '23514', message: 'new row for relation "game_blocks" violates check constraint "game_blocks_outside_spawn"' }, 'block'), 'Cannot build in spawn area - protected zone!');
});

test('refusals are told by their code, never by the words of the message', () => {
  const claimed = { code: '42501', message: 'This land is claimed by Spawnling.', hint: REFUSALS.claimed };
  assert.is(describeRefusal(claimed, 'block'), 'This land is claimed by Spawnling.');
  assert.is(describeRefusal({ code: '42501', message: 'banned from play: griefing at spawn', hint: REFUSALS.banned }, 'block'), 'You are banned from play: griefing at spawn');
  assert.is(describeRefusal({ code: '23514', message: 'Nobody claims spawn: keep the claim one tile clear of the spawn area.', hint: REFUSALS.spawn }, 'block'), 'Cannot build in spawn area - protected zone!');
  // Without a code, a message about spawn is only a message; a policy refusal stays generic.
  assert.is(describeRefusal({ code: 'P0001', message: 'the spawn chest is full' }, 'block'), 'the spawn chest is full');
  assert.is(describeRefusal({ code: '42501', message: 'banned from play: griefing' }, 'block'), 'The server did not allow that.');
  assert.is(describeRefusal({ code: '', message: 'TypeError: fetch failed' }, 'block'), 'The server could not be reached.');
  assert.is(describeRefusal({ code: '23514', message: 'a hint that is no code', hint: 'Pick another name.' }, 'block'), 'a hint that is no code');
});

test('the server\'s support refusal is told in the words of the engine\'s', () => {
  const server = { code: '23514', message: 'blocks on water need a neighbouring block that leads to land', hint: REFUSALS.water };
  assert.is(describeRefusal(server, 'block'), 'Blocks on water need a neighbouring block that leads to land.');
});

test.run();
