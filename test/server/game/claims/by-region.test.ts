/**
 * Land claims heard by region (net/claims/claims.ts, 20250706000000_claims_heard_by_region.sql): real
 * sessions hear the claims made, abandoned and trusted on the regions whose block channels they
 * hold, at once and on no extra channel; a claim far away never reaches their sockets; a claim
 * changed while its region was not held is current when the player comes back.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type pg from 'pg';
import type { Claim } from '../../../../components/claims.js';
import { CLAIMS_KEPT } from '../../../../net/claims/known.js';
import { connectAsOperator } from '../../../support/server.js';
import { waitFor } from '../../../support/wait.js';
import { startTestServer, type TestServer } from '../../../support/harness.js';
import { enterRecorded, type RecordedPlayer } from '../../../support/recorded-player.js';


/** The claims the player's engine was last told of. */
function claimsShown(player: RecordedPlayer): Claim[] {
  for (let i = player.events.length - 1; i >= 0; i--) {
    const event = player.events[i]!;
    if (event.kind === 'claims') return event.claims;
  }
  return [];
}
const shown = (player: RecordedPlayer, id: string) => claimsShown(player).find((claim) => claim.id === id);

const test = suite<{ server: TestServer; operator: pg.Client; ann: RecordedPlayer; bob: RecordedPlayer }>('claims heard by region');

test.before(async (ctx) => {
  ctx.server = await startTestServer();
  ctx.operator = await connectAsOperator(ctx.server);
  [ctx.ann, ctx.bob] = await Promise.all([enterRecorded(ctx.server, 'Ann', 16, 16), enterRecorded(ctx.server, 'Bob', 16, 16)]);
  // A chunk is read only once its region's channel is joined.
  await waitFor(() => [ctx.ann, ctx.bob].every((p) => p.session.heldChunks().includes('0:0') && p.events.some((e) => e.kind === 'claims')), { message: 'both in the world' });
});

test.after(async ({ server, operator, ann, bob }) => {
  await Promise.all([ann.session.close(), bob.session.close()]);
  await operator.end();
  await server.stop();
});

/** Makes a claim of Ann's as the operator (the rules of making one are claims.test.ts's); returns its id. */
async function claimAs(operator: pg.Client, owner: RecordedPlayer, rect: { x1: number; y1: number; x2: number; y2: number }): Promise<string> {
  const { rows } = await operator.query<{ id: string }>(
    'insert into public.game_claims (owner_id, owner_name, x1, y1, x2, y2) values ($1, $2, $3, $4, $5, $6) returning id',
    [owner.player.address, 'Ann', rect.x1, rect.y1, rect.x2, rect.y2],
  );
  return rows[0]!.id;
}

test('a claim made far away never reaches the socket; one in view does, at once, on a block channel', async ({ operator, ann }) => {
  const frames = ann.frames.length;
  const far = await claimAs(operator, ann, { x1: 2000, y1: 2000, x2: 2009, y2: 2009 });
  const near = await claimAs(operator, ann, { x1: 4, y1: -3, x2: 10, y2: 3 });
  // A chunk read may show the claim before its frame arrives: both are awaited.
  await waitFor(() => shown(ann, near) && ann.frames.slice(frames).some((frame) => frame.includes(near)), { message: 'the claim in view, and its frame' });
  assert.equal(shown(ann, near), { id: near, ownerId: ann.player.address, ownerName: 'Ann', x1: 4, y1: -3, x2: 10, y2: 3, trusted: false });
  const heard = ann.frames.slice(frames);
  assert.is(heard.filter((frame) => frame.includes(far)).length, 0, 'nothing of the far claim');
  assert.is(heard.filter((frame) => frame.includes('blocks:63:63')).length, 0, 'nothing of the far region');
  const carrying = heard.filter((frame) => frame.includes(near));
  assert.is(carrying.length, 1, 'one frame for the claim in view');
  assert.ok(carrying[0]!.includes('realtime:blocks:0:0') && carrying[0]!.includes('claims'), carrying[0]);
  assert.is(shown(ann, far), undefined);
  await operator.query('delete from public.game_claims where id = $1', [far]);
});

test('trusting a player reaches the trusted player standing in the claim, and so does untrusting', async ({ operator, ann, bob }) => {
  const id = claimsShown(ann).find((claim) => claim.x1 === 4 && claim.y1 === -3)!.id;
  bob.pose.x = 7 * 32 + 16; // in the claim, a short walk from spawn
  await waitFor(() => shown(bob, id), { message: 'Bob shows the claim he stands in' });
  assert.is(shown(bob, id)!.trusted, false);
  await operator.query('insert into public.game_claim_members (claim_id, player_id) values ($1, $2)', [id, bob.player.address]);
  await waitFor(() => shown(bob, id)?.trusted === true, { message: 'the trust heard' });
  assert.is(shown(ann, id)!.trusted, false, 'Ann is not the one trusted');
  await operator.query('delete from public.game_claim_members where claim_id = $1 and player_id = $2', [id, bob.player.address]);
  await waitFor(() => shown(bob, id)?.trusted === false, { message: 'the trust withdrawn heard' });
});

test('abandoning a claim in view reaches the players holding it', async ({ operator, ann, bob }) => {
  const id = claimsShown(ann).find((claim) => claim.x1 === 4 && claim.y1 === -3)!.id;
  await operator.query('delete from public.game_claims where id = $1', [id]);
  await waitFor(() => !shown(ann, id) && !shown(bob, id), { message: 'the claim gone for both' });
});

test('a claim made and one abandoned while the region was not held are current on return', async ({ operator, ann }) => {
  const stays = await claimAs(operator, ann, { x1: -10, y1: 4, x2: -6, y2: 8 });
  await waitFor(() => shown(ann, stays), { message: 'the claim that will be abandoned' });
  ann.pose.x = 300 * 32; // the engine's position: the block sync leaves the regions around spawn
  await waitFor(() => !ann.session.blockTopics().includes('blocks:0:0'), { message: 'spawn\'s region left' });
  const frames = ann.frames.length;
  await operator.query('delete from public.game_claims where id = $1', [stays]);
  const made = await claimAs(operator, ann, { x1: -10, y1: -9, x2: -6, y2: -5 });
  // Barrier: a claim made after these in the region Ann holds now reaches her after anything they sent her.
  const barrier = await claimAs(operator, ann, { x1: 298, y1: -2, x2: 302, y2: 2 });
  await waitFor(() => shown(ann, barrier), { message: 'the claim where Ann is' });
  assert.is(ann.frames.slice(frames).filter((frame) => frame.includes(made) || frame.includes(stays)).length, 0, 'not heard while away');
  const requests = ann.urls.length;
  ann.pose.x = 16;
  await waitFor(() => shown(ann, made) && !shown(ann, stays), { message: 'the claims current on return' });
  // The regions joined again were read again (limit 1,000; the area read's is 300), spawn's among
  // them: tiles -16..15 both ways, so claims starting from 99 tiles left of it.
  const coversSpawnRegion = (url: string) => {
    const params = new URL(url).searchParams;
    if (!url.includes('/rest/v1/game_claims?') || params.get('limit') !== String(CLAIMS_KEPT)) return false;
    const [from, to] = params.getAll('x1').map((v) => Number(v.split('.')[1]));
    return from! <= -16 - 99 && to! >= 15 && Number(params.get('y1')!.split('.')[1]) >= 15 && Number(params.get('y2')!.split('.')[1]) <= -16;
  };
  await waitFor(() => ann.urls.slice(requests).some(coversSpawnRegion), { message: 'spawn\'s region read again on its join' });
  await operator.query('delete from public.game_claims where id = any($1)', [[made, barrier]]);
});

test.run();
