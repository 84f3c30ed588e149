/**
 * Land claims through one step of the pipeline: the claims event (systems/apply-net-events.ts),
 * the LAND panel commands (systems/apply-commands.ts) and the HUD fields (systems/sync-hud.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Claim } from '../../../components/claims.js';
import type { HudFields } from '../../../components/hud.js';
import { spawnLocalPlayer } from '../../../components/players.js';
import { createGameWorld } from '../../../components/world.js';
import { step } from '../../../systems/pipeline.js';

function setup() {
  const hud: Partial<HudFields> = {};
  const w = createGameWorld({ hud: { set: (key, value) => void (hud[key] = value as never), toast() {} } });
  spawnLocalPlayer(w, { id: 'me', name: 'Me' });
  return { w, hud };
}

const claim = (id: string, ownerId: string, ownerName: string, trusted = false): Claim => ({ id, ownerId, ownerName, x1: -1, y1: -1, x2: 4, y2: 4, trusted });

test('a claims event replaces the list; the HUD names the owner of a claim the player stands in, unless it is its own', () => {
  const { w, hud } = setup();
  w.queues.inbox.push({ kind: 'claims', claims: [claim('a', 'ann', 'Ann', true)] });
  step(w);
  assert.is(w.claims.list.length, 1);
  assert.is(hud.claimedBy, 'Ann', 'trusted or not, it is Ann\'s land');
  assert.is(hud.claimsVersion, 1);
  w.queues.inbox.push({ kind: 'claims', claims: [claim('b', 'me', 'Me')] });
  step(w);
  assert.is(hud.claimedBy, '');
  assert.is(hud.claimsVersion, 2);
  w.queues.inbox.push({ kind: 'claims', claims: [] });
  step(w);
  assert.equal(w.claims.list, []);
});

test('the LAND panel shows claims and turns the tool on and off; either way the rectangle is forgotten', () => {
  const { w, hud } = setup();
  w.commands.push({ kind: 'showClaims', shown: true }, { kind: 'claimTool', active: true });
  step(w);
  assert.equal([w.claims.shown, w.claims.tool.active], [true, true]);
  w.claims.tool.draft = { x1: 4, y1: -3, x2: 10, y2: 3 };
  step(w);
  assert.is(hud.claimDraft, '4,-3,10,3');
  w.commands.push({ kind: 'claimTool', active: false });
  step(w);
  assert.equal(w.claims.tool, { active: false, anchor: null, draft: null });
  assert.is(hud.claimDraft, '');
});

test.run();
