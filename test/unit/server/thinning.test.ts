import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { THIN_EVERY, Thinning } from '../../../server/realtime/thinning.js';
import type { Nearness } from '../../../server/realtime/wire.js';

/** Whether a member to which a topic is `kind` is sent the window just ended (its own or what was kept for it). */
const sends = (thinning: Thinning, kind: Nearness) => !thinning.thinned(kind) || thinning.keptWindow();

/** Which of `windows` windows a member of each nearness is sent, with the timer `lateMs` late each time. */
function sent(lateMs: number, windows: number): { near: number; far: number } {
  const thinning = new Thinning();
  const counts = { near: 0, far: 0 };
  for (let i = 0; i < windows; i++) {
    thinning.windowEnded(lateMs);
    if (sends(thinning, 'near')) counts.near++;
    if (sends(thinning, 'far')) counts.far++;
  }
  return counts;
}

test('on time every member is sent every window', () => {
  assert.equal(sent(0, 100), { near: 100, far: 100 });
  assert.equal(sent(20, 100), { near: 100, far: 100 });
});

test('a server somewhat behind thins far topics only', () => {
  const thinning = new Thinning();
  for (let i = 0; i < 40; i++) thinning.windowEnded(60);
  assert.ok(thinning.late() > 25 && thinning.late() < 100, `average lateness ${thinning.late()}`);
  const counts = { near: 0, far: 0 };
  for (let i = 0; i < 100; i++) {
    thinning.windowEnded(60);
    if (sends(thinning, 'near')) counts.near++;
    if (sends(thinning, 'far')) counts.far++;
  }
  assert.equal(counts, { near: 100, far: 100 / THIN_EVERY });
});

test('a server far behind thins near topics too, never below one window in THIN_EVERY', () => {
  const thinning = new Thinning();
  for (let i = 0; i < 40; i++) thinning.windowEnded(400);
  const counts = { near: 0, far: 0 };
  for (let i = 0; i < 100; i++) {
    thinning.windowEnded(400);
    if (sends(thinning, 'near')) counts.near++;
    if (sends(thinning, 'far')) counts.far++;
  }
  assert.equal(counts, { near: 100 / THIN_EVERY, far: 100 / THIN_EVERY });
});

test('the lateness is an average: one late window does not thin, and catching up ends the thinning', () => {
  const thinning = new Thinning();
  thinning.windowEnded(100);
  assert.ok(sends(thinning, 'far'), 'one window 100 ms late averages to 20 ms');
  for (let i = 0; i < 40; i++) thinning.windowEnded(400);
  for (let i = 0; i < 40; i++) thinning.windowEnded(0);
  assert.ok(sends(thinning, 'near') && sends(thinning, 'far'));
});

test.run();
