import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { blocksTopic, isRegionTopic, parseBlocksTopic, parseRegionTopic, regionTopic } from '../../../protocol/topics.js';

test('region and blocks topics are built from a region and read back to it', () => {
  for (const region of [{ rx: 0, ry: 0 }, { rx: -3, ry: 7 }]) {
    assert.equal(parseRegionTopic(regionTopic(region)), region);
    assert.equal(parseBlocksTopic(blocksTopic(region)), region);
  }
  assert.is(regionTopic({ rx: -3, ry: 7 }), 'region:-3:7');
  assert.is(blocksTopic({ rx: 1, ry: -1 }), 'blocks:1:-1');
});

test('a topic of the other kind, or of no region, is read as none', () => {
  assert.is(parseRegionTopic('blocks:0:0'), null);
  assert.is(parseBlocksTopic('region:0:0'), null);
  assert.is(parseRegionTopic('region:lobby'), null);
  assert.is(parseBlocksTopic('blocks:1:2:3'), null);
});

test('every topic in the region namespace is a region topic, well formed or not', () => {
  assert.equal(['region:0:0', 'region:lobby', 'region:', 'regions:0:0', 'blocks:0:0', 'game_players:1'].map(isRegionTopic), [true, true, true, false, false, false]);
});

test.run();
