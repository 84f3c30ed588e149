import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { enteringFraction, enteringLabel, type EnteringProgress } from '../../../src/state/entering-atoms.js';

const at = (phase: EnteringProgress['phase'], loaded = 0, total = 0): EnteringProgress => ({ phase, loaded, total });

test('each step says what happens, the world by its parts once they are counted', () => {
  assert.equal(
    [at('connecting'), at('signing-in'), at('joining'), at('loading-world'), at('loading-world', 3, 9), at('loading-world', 12, 9), at('ready'), at('failed')].map(enteringLabel),
    ['CONNECTING...', 'SIGNING IN...', 'JOINING THE WORLD...', 'LOADING WORLD...', 'LOADING WORLD 3 OF 9', 'LOADING WORLD 9 OF 9', 'READY', 'COULD NOT JOIN THE WORLD'],
  );
});

test('the bar only moves forward through the steps and fills as the world loads', () => {
  const steps = [at('connecting'), at('signing-in'), at('joining'), at('loading-world', 0, 9), at('loading-world', 3, 9), at('loading-world', 9, 9), at('ready')].map(enteringFraction);
  assert.equal(steps.map((f) => Math.round(f * 100)), [0, 15, 30, 45, 63, 100, 100]);
});

test.run();
