import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeClaimChanges, encodeClaimChanges, type ClaimChanges } from '../../../protocol/claim-changes.js';

const claim = { id: 'c1', owner_id: 'WalletA', owner_name: 'Ann', x1: -20, y1: 4, x2: -10, y2: 30 };
const trust = { claim_id: 'c1', player_id: 'WalletB' };
const none: ClaimChanges = { made: [], gone: [], trusted: [], untrusted: [] };

test('each kind of claim change is sent alone, under its name', () => {
  assert.equal(encodeClaimChanges('made', [claim]), { made: [claim] });
  assert.equal(encodeClaimChanges('untrusted', [trust]), { untrusted: [trust] });
});

test('every kind round-trips through JSON', () => {
  const wire = (payload: unknown) => JSON.parse(JSON.stringify(payload));
  assert.equal(decodeClaimChanges(wire(encodeClaimChanges('made', [claim]))), { ...none, made: [claim] });
  assert.equal(decodeClaimChanges(wire(encodeClaimChanges('gone', [claim, { ...claim, id: 'c2' }]))), { ...none, gone: [claim, { ...claim, id: 'c2' }] });
  assert.equal(decodeClaimChanges(wire(encodeClaimChanges('trusted', [trust]))), { ...none, trusted: [trust] });
  assert.equal(decodeClaimChanges(wire(encodeClaimChanges('untrusted', [trust]))), { ...none, untrusted: [trust] });
});

test('malformed entries and unknown fields are dropped', () => {
  assert.equal(decodeClaimChanges({ id: 'm', made: [{ ...claim, x2: 1.5 }, { ...claim, extra: 1 }], trusted: [{ claim_id: 'c1' }] }), { ...none, made: [claim] });
});

test.run();
