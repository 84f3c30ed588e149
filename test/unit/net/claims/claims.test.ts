import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { overlaps, regionsRect } from '../../../../net/claims/area.js';
import { decodeClaimChanges } from '../../../../protocol/claim-changes.js';
import { regionOfTile } from '../../../../protocol/geometry.js';

const row = { id: 'c1', owner_id: 'w1', owner_name: 'Ann', x1: 4, y1: -3, x2: 10, y2: 3 };

test('a claims message is read as the database sends it; the message id and malformed entries are dropped', () => {
  assert.equal(decodeClaimChanges({ id: 'm1', made: [row, { ...row, x1: 'four' }, null] }), { made: [row], gone: [], trusted: [], untrusted: [] });
  assert.equal(decodeClaimChanges({ gone: [{ ...row, extra: true }] }).gone, [row]);
  assert.equal(
    decodeClaimChanges({ trusted: [{ claim_id: 'c1', player_id: 'w2' }, { claim_id: 'c1' }], untrusted: [{ claim_id: 'c1', player_id: 'w3', x: 1 }] }),
    { made: [], gone: [], trusted: [{ claim_id: 'c1', player_id: 'w2' }], untrusted: [{ claim_id: 'c1', player_id: 'w3' }] },
  );
  for (const junk of [null, 'made', 7, [], { made: 'all' }]) assert.equal(decodeClaimChanges(junk), { made: [], gone: [], trusted: [], untrusted: [] });
});

test('the rectangle of joined regions covers their tiles and nothing outside their span', () => {
  assert.equal(regionsRect([{ rx: 0, ry: 0 }]), { x1: -16, y1: -16, x2: 15, y2: 15 });
  assert.equal(regionsRect([{ rx: 1, ry: -1 }, { rx: -1, ry: 0 }]), { x1: -48, y1: -48, x2: 47, y2: 15 });
  const rect = regionsRect([regionOfTile(40, -20)]);
  assert.ok(overlaps(rect, { x1: 40, y1: -20, x2: 40, y2: -20 }));
  assert.not.ok(overlaps(rect, { x1: 48, y1: -20, x2: 60, y2: -10 }), 'tile 48 is region 2');
});

test.run();
