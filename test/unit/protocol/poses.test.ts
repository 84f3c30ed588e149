import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodePose, encodePose, posesOfBatch, type PoseFields } from '../../../protocol/poses.js';

const pose: PoseFields = { id: 'WalletA', x: 100, y: -37, dx: 1, dy: -1, seq: 812, facing: 1, swinging: true, t: 123456 };

test('a pose is sent with short keys, its position in whole pixels and its facing as a sign', () => {
  assert.equal(encodePose(pose), { id: 'WalletA', x: 100, y: -37, dx: 1, dy: -1, n: 812, f: 1, s: true, t: 123456 });
  assert.equal(encodePose({ ...pose, x: 10.6, y: -2.4, facing: -0.5 }), { id: 'WalletA', x: 11, y: -2, dx: 1, dy: -1, n: 812, f: -1, s: true, t: 123456 });
});

test('a pose round-trips through JSON', () => {
  assert.equal(decodePose(JSON.parse(JSON.stringify(encodePose(pose)))), pose);
  const standing = { ...pose, dx: 0, dy: 0, facing: -1, swinging: false };
  assert.equal(decodePose(encodePose(standing)), standing);
});

test('a malformed pose is none', () => {
  const sent = encodePose(pose);
  for (const bad of [null, 'pose', { ...sent, dx: 2 }, { ...sent, x: Number.NaN }, { ...sent, id: 5 }, { ...sent, s: 1 }, { ...sent, n: undefined }]) {
    assert.is(decodePose(bad), null);
  }
});

test('the poses of a batch are read in order; other events and junk are skipped', () => {
  const a = encodePose(pose);
  const b = encodePose({ ...pose, id: 'WalletB' });
  assert.equal(posesOfBatch({ events: [{ event: 'pose', payload: a }, { event: 'chat', payload: 1 }, 'x', { event: 'pose', payload: b }] }), [a, b]);
  assert.equal(posesOfBatch({ events: 'all' }), []);
  assert.equal(posesOfBatch(null), []);
});

test.run();
