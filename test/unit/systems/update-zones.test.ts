import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readLocalPlayer, spawnLocalPlayer } from '../../../components/players.js';
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

test.run();
