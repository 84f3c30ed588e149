import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnLocalPlayer } from '../../../components/players.js';
import { blockFamily, FOOTSTEP_STEPS, proximityVolume, volumeAtOffset } from '../../../components/sounds.js';
import { createGameWorld } from '../../../components/world.js';
import { KEY } from '../../../components/input.js';
import { step } from '../../../systems/pipeline.js';

const kinds = (w: ReturnType<typeof createGameWorld>) => w.sounds.splice(0).map((s) => `${s.kind}${s.family ? `:${s.family}` : ''}@${s.volume.toFixed(2)}`);

test('the proximity law is max(0.1, 1 - d/500) in tiles', () => {
  assert.is(proximityVolume(0), 1);
  assert.is(proximityVolume(250), 0.5);
  assert.is(proximityVolume(480), 0.1);
});

test('effects and voice clips are heard by one law: 500 tiles at most, the proximity volume within', () => {
  assert.is(volumeAtOffset(0, 0), 1);
  assert.is(volumeAtOffset(0, -100), 0.8);
  assert.is(volumeAtOffset(300, 400), 0.1);
  assert.is(volumeAtOffset(301, 400), null);
});

test('block families', () => {
  assert.equal(['stone', 'wood', 'sand', 'iron', 'emerald', 'glass', 'lava'].map(blockFamily), ['stone', 'wood', 'earth', 'metal', 'gem', 'glass', 'earth']);
});

test('placing and removing sound by family; remote edits by distance; echoes are silent', () => {
  const w = createGameWorld();
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  w.input.hotbar = 1;
  w.input.clicks.push({ action: 'place', tileX: 4, tileY: 0 });
  step(w);
  w.input.clicks.push({ action: 'remove', tileX: 4, tileY: 0 });
  step(w);
  assert.equal(kinds(w), ['place:wood@1.00', 'break:wood@1.00']);
  w.queues.inbox.push(
    { kind: 'blockSet', x: 250, y: 0, blockType: 'glass', owner: 'alice', live: true },
    { kind: 'blockSet', x: 250, y: 0, blockType: 'glass', owner: 'alice', live: true },
    { kind: 'blockSet', x: 600, y: 0, blockType: 'glass', owner: 'alice', live: true },
    { kind: 'blockSet', x: 9, y: 9, blockType: 'iron', owner: 'alice' },
    { kind: 'blockCleared', x: 250, y: 0, live: true },
  );
  step(w);
  assert.equal(kinds(w), ['place:glass@0.50', 'break:glass@0.50']);
});

test('footsteps while walking, swing, hurt, chat and voice', () => {
  const w = createGameWorld();
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  w.input.held = KEY.right;
  for (let i = 0; i < FOOTSTEP_STEPS * 3; i++) step(w);
  assert.equal(kinds(w), ['step@1.00', 'step@1.00', 'step@1.00']);
  w.input.held = 0;
  w.input.swing = true;
  w.queues.inbox.push({ kind: 'damaged', attackerId: 'x', amount: 25 }, { kind: 'chatArrived' }, { kind: 'voiceStarted', volume: 0.4 });
  step(w);
  assert.equal(kinds(w).sort(), ['chat@1.00', 'hurt@1.00', 'swing@1.00', 'voice@0.40']);
});

test.run();
