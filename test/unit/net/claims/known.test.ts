import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { NetEvent } from '../../../../components/network.js';
import { createHeldClaimChanges, MAX_HELD_CLAIM_MESSAGES } from '../../../../net/claims/held.js';
import { CLAIMS_KEPT, createKnownClaims } from '../../../../net/claims/known.js';
import type { ClaimChanges, ClaimRow } from '../../../../protocol/claim-changes.js';

const none: ClaimChanges = { made: [], gone: [], trusted: [], untrusted: [] };
const claim = (id: string, owner: string, x1 = 0): ClaimRow => ({ id, owner_id: owner, owner_name: owner, x1, y1: 0, x2: x1 + 3, y2: 3 });

/** The claims of the last `claims` event, as 'id:trusted'. */
function shown(events: NetEvent[]): string[] {
  const last = events.filter((e) => e.kind === 'claims').at(-1);
  return last && last.kind === 'claims' ? last.claims.map((c) => `${c.id}:${c.trusted}`) : [];
}

test('a live message tells whether the list and the player\'s own claims changed', () => {
  const events: NetEvent[] = [];
  const known = createKnownClaims('me', (e) => events.push(e));
  assert.equal(known.apply({ ...none, made: [claim('a', 'other')] }), { shown: true, own: false });
  assert.equal(known.apply({ ...none, made: [claim('m', 'me')] }), { shown: true, own: true });
  assert.equal(known.apply({ ...none, trusted: [{ claim_id: 'a', player_id: 'me' }] }), { shown: true, own: false });
  assert.equal(known.apply({ ...none, trusted: [{ claim_id: 'm', player_id: 'friend' }] }), { shown: false, own: true });
  assert.equal(known.apply({ ...none, untrusted: [{ claim_id: 'x', player_id: 'me' }] }), { shown: false, own: false });
  known.publish();
  assert.equal(shown(events), ['a:true', 'm:false']);
  assert.equal(known.apply({ ...none, gone: [claim('a', 'other')] }), { shown: true, own: true }, 'a trust of the player\'s went with it');
  assert.equal(known.own().map((r) => r.id), ['m']);
});

test('past CLAIMS_KEPT, others\' new claims wait for a read while the player\'s own are kept', () => {
  const known = createKnownClaims('me', () => {});
  known.replaceAll(Array.from({ length: CLAIMS_KEPT }, (_, i) => claim(`c${i}`, 'other', i * 4)), []);
  assert.equal(known.apply({ ...none, made: [claim('late', 'other')] }), { shown: false, own: false });
  assert.equal(known.apply({ ...none, made: [claim('mine', 'me')] }), { shown: true, own: true });
});

test('a region read replaces the claims overlapping it, unless it was cut at its limit', () => {
  const events: NetEvent[] = [];
  const known = createKnownClaims('me', (e) => events.push(e));
  known.replaceAll([claim('inside', 'other', 0), claim('outside', 'other', 100)], ['inside']);
  known.replaceIn({ x1: 0, y1: 0, x2: 20, y2: 20 }, [claim('new', 'other', 10)], []);
  known.publish();
  assert.equal(shown(events), ['outside:false', 'new:false']);
});

test('messages are held only while a read runs; an overflow is told once the last read ends', async () => {
  let lost = 0;
  const held = createHeldClaimChanges(() => lost++);
  held.hear(none);
  assert.is(held.held().length, 0, 'no read runs');
  let finish = () => {};
  const reading = held.reading(() => new Promise<void>((resolve) => (finish = resolve)));
  for (let i = 0; i <= MAX_HELD_CLAIM_MESSAGES; i++) held.hear(none);
  assert.is(held.held().length, MAX_HELD_CLAIM_MESSAGES);
  finish();
  await reading;
  assert.is(lost, 1);
  assert.is(held.held().length, 0);
});

test.run();
