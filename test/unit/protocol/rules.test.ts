import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DIAGONAL_SPEED, MOVE_BUDGET_PX_PER_S, MOVE_PX_PER_MS, MOVE_SLACK_CAP_PX, PLAYER_SPEED, walkVelocity, WALK_PX_PER_S } from '../../../protocol/movement.js';
import { CLAIM_SPAWN_CLEARANCE, SPAWN_RADIUS } from '../../../protocol/rules.js';

test('the derived rules have the values the server writes', () => {
  assert.is(WALK_PX_PER_S, 187.5);
  assert.is(MOVE_BUDGET_PX_PER_S, 225);
  assert.is(MOVE_PX_PER_MS, 0.225);
  assert.is(MOVE_SLACK_CAP_PX, 771);
  assert.is(CLAIM_SPAWN_CLEARANCE, SPAWN_RADIUS + 1);
});

test('a diagonal walk is as fast as a straight one', () => {
  assert.equal(walkVelocity(1, 0), { vx: PLAYER_SPEED, vy: 0 });
  assert.equal(walkVelocity(0, -1), { vx: 0, vy: -PLAYER_SPEED });
  assert.equal(walkVelocity(-1, 1), { vx: -DIAGONAL_SPEED, vy: DIAGONAL_SPEED });
  const { vx, vy } = walkVelocity(1, 1);
  assert.ok(Math.abs(Math.hypot(vx, vy) - PLAYER_SPEED) < 1e-12);
  assert.equal(walkVelocity(0, 0), { vx: 0, vy: 0 });
});

test.run();
