/**
 * Refusals as the player meets them: the REST server's cache of rate refusals, and the sentence
 * the game shows for each refusal the real server sends (chosen by the code in the error's hint,
 * protocol/refusals.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { UNSUPPORTED_BLOCK } from '../../../components/support.js';
import { SPAWN_PROTECTED } from '../../../components/terrain.js';
import { NAME_TAKEN } from '../../../components/text.js';
import { createBlockEdits } from '../../../net/blocks/edits.js';
import { createChat } from '../../../net/chat.js';
import { createModeration } from '../../../net/moderation.js';
import { createOwnBlocks } from '../../../net/blocks/own-blocks.js';
import { describeRefusal } from '../../../net/refusals.js';
import { REFUSALS } from '../../../protocol/refusals.js';
import { RATES } from '../../../protocol/rules.js';
import { RestError } from '../../../server/rest/errors.js';
import { createRefusalCache } from '../../../server/rest/refusals.js';
import { createTestWallet, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { blockRow, createRules, enterAtSpawn, nameOf, playerAtSpawn, tilesInViewOfSpawn, type Rules } from '../../support/rules.js';

/** The parts of a supabase-js error that say why: its SQLSTATE (or TS code), its code in hint, its message. */
const pick = (error: { code?: string; hint?: string | null; message?: string } | null) =>
  error && { code: error.code, hint: error.hint, message: error.message };

const tooMany = (headers: Record<string, string>) => new RestError(429, 'TS429', 'Too many blocks: slow down', null, null, headers);

test('a 429 with X-Retry-After-Ms is repeated until the next token is due, then forgotten', () => {
  let now = 1000;
  const cache = createRefusalCache(() => now);
  const refusal = tooMany({ 'Retry-After': '1', 'X-Retry-After-Ms': '125' });
  cache.remember('wallet\0game_blocks\0POST', refusal);
  assert.is(cache.find('wallet\0game_blocks\0POST'), refusal);
  assert.is(cache.find('other\0game_blocks\0POST'), undefined);
  now += 124;
  assert.is(cache.find('wallet\0game_blocks\0POST'), refusal);
  now += 1;
  assert.is(cache.find('wallet\0game_blocks\0POST'), undefined);
});

test('refusals without an exact wait, and other errors, are not remembered', () => {
  const cache = createRefusalCache(() => 0);
  cache.remember('a', tooMany({ 'Retry-After': '1' }));
  cache.remember('b', new RestError(400, '23514', 'broken rule', null, null, { 'X-Retry-After-Ms': '100' }));
  cache.remember('c', tooMany({ 'X-Retry-After-Ms': 'soon' }));
  assert.is(cache.find('a'), undefined);
  assert.is(cache.find('b'), undefined);
  assert.is(cache.find('c'), undefined);
});

// The sentence the player is shown for each refusal the game meets, sent through the game's own
// net/ code (block edits, chat, reports) or supabase-js to the real server.

let server: TestServer;
let op: TestPlayer;
let rules: Rules;

/** A player's block edits as the game sends them; each resolves to the sentence shown, or null when accepted. */
function blockEditsOf(p: TestPlayer, name: string) {
  const notices: string[] = [];
  const edits = createBlockEdits(p.client, {
    playerId: p.address,
    playerName: () => name,
    emit: () => {},
    notice: (_title, description) => notices.push(description),
    own: createOwnBlocks(p.address),
  });
  const told = (outcome: string) => (outcome === 'sent' ? null : notices.at(-1) ?? outcome);
  return {
    place: async (x: number, y: number, blockType = 'stone') => told(await edits.place(x, y, blockType, true)),
    remove: async (x: number, y: number) => told(await edits.remove(x, y, 'stone')),
  };
}

/** A player's chat as the game runs it: `send` resolves to the sentence shown, or null when sent. */
const chatOf = (p: TestPlayer, name: string) => createChat(p.client, { playerId: p.address, playerName: () => name, onMessages: () => {} });

const claim = (p: TestPlayer, name: string, rect: { x1: number; y1: number; x2: number; y2: number }) =>
  p.client.from('game_claims').insert({ owner_id: p.address, owner_name: name, ...rect });

test.before(async () => {
  const operatorWallet = createTestWallet();
  server = await startTestServer(undefined, { OPERATOR_WALLETS: operatorWallet.address });
  op = await signInPlayer(server, operatorWallet);
  rules = createRules(await signInPlayer(server));
});

test.after(async () => {
  await server.stop();
});

test('a block in spawn: the spawn sentence, by the CHECK the server names', async () => {
  const ann = await playerAtSpawn(server);
  const raw = await ann.client.from('game_blocks').insert(blockRow(ann, 1, -1));
  assert.equal(pick(raw.error), { code: '23514', hint: null, message: 'new row for relation "game_blocks" violates check constraint "game_blocks_outside_spawn"' });
  assert.is(await blockEditsOf(ann, nameOf(ann)).place(2, 2), SPAWN_PROTECTED);
});

test('land claimed by a player named Spawnling: its owner is named, and no spawn is mistaken', async () => {
  const [owner, builder] = await Promise.all([playerAtSpawn(server, 'Spawnling'), playerAtSpawn(server)]);
  assert.is((await claim(owner, 'Spawnling', { x1: 4, y1: -3, x2: 10, y2: 3 })).error, null);
  const raw = await builder.client.from('game_blocks').insert(blockRow(builder, 5, 0));
  assert.equal(pick(raw.error), { code: '42501', hint: REFUSALS.claimed, message: 'This land is claimed by Spawnling.' });
  assert.is(describeRefusal(raw.error!, 'block'), 'This land is claimed by Spawnling.');
  const edits = blockEditsOf(builder, nameOf(builder));
  assert.is(await edits.place(6, 1), 'This land is claimed by Spawnling.');
  assert.is(await edits.place(-5, 0), null, 'honest: outside the claim');
  // The owner's block inside the claim; a stranger's removal is refused with the same sentence.
  assert.is(await blockEditsOf(owner, 'Spawnling').place(7, 0), null);
  assert.is(await edits.remove(7, 0), 'This land is claimed by Spawnling.');
  // The name is held: a block placed under it by another wallet is refused as a taken name.
  assert.is(await blockEditsOf(builder, 'Spawnling').place(-6, 0), NAME_TAKEN);
  assert.is(await edits.place(-5, 0), 'Someone already built there.');
});

test('chat: a control character, the rate, and a ban whose reason mentions spawn, each with its sentence', async () => {
  const [ann, bob] = await Promise.all([playerAtSpawn(server), playerAtSpawn(server)]);
  const chat = chatOf(bob, nameOf(bob));
  assert.is(await chat.send('bell \u0007'), 'Messages cannot contain control characters.');
  const sent: Array<string | null> = [];
  for (let i = 0; i < 6; i++) sent.push(await chat.send(`hello ${i}`));
  // The refused control character took no token: a burst of 5, then the rate's sentence.
  assert.equal(sent, [null, null, null, null, null, 'You are sending messages too fast. Slow down.']);
  await chat.close();
  await enterAtSpawn(op);
  assert.is((await op.client.from('game_bans').insert({ player_id: ann.address, scope: 'chat', reason: 'spam near spawn' })).error, null);
  const raw = await ann.client.from('game_chat_messages').insert({ player_id: ann.address, player_name: nameOf(ann), message: 'buy now' });
  assert.equal(pick(raw.error), { code: '42501', hint: REFUSALS.banned, message: 'banned from chat and voice: spam near spawn' });
  const banned = chatOf(ann, nameOf(ann));
  assert.is(await banned.send('buy now'), 'You are banned from chat and voice: spam near spawn');
  await banned.close();
});

test('blocks: out of reach, on water without support, and too many at once', async () => {
  const ann = await playerAtSpawn(server);
  const edits = blockEditsOf(ann, nameOf(ann));
  assert.is(await edits.place(30, 0), 'block 30,0 is out of reach: players build only within their 800x600 view');
  const flood = await ann.client.from('game_blocks').insert(tilesInViewOfSpawn().slice(0, RATES.blocks.burst + 1).map((t) => blockRow(ann, t.x, t.y)));
  assert.equal(pick(flood.error), { code: 'TS429', hint: REFUSALS.rate, message: 'Too many blocks: slow down' });
  assert.is(describeRefusal(flood.error!, 'block'), 'Too fast. Slow down a little.');
  // A shore near spawn: land at tile x -31, water from -30 to -27, on row -32.
  await rules.walkTo(ann, -29 * 32, -32 * 32 + 16);
  assert.is(await edits.place(-28, -32), UNSUPPORTED_BLOCK);
  assert.is(await edits.place(-31, -32), null, 'honest: on the land');
  assert.is(await edits.place(-30, -32), null, 'honest: on water, beside the block on land');
});

test('reports: one open report per player, and at most 5 an hour', async () => {
  const ann = await playerAtSpawn(server);
  const moderation = await createModeration(ann.client, { playerId: ann.address, onMutes: () => {} });
  const reported = Array.from({ length: 5 }, () => createTestWallet().address);
  assert.is(await moderation.report(reported[0]!, 'griefing', ''), null);
  assert.is(await moderation.report(reported[0]!, 'griefing', ''), 'You already reported this player; an operator will look at it.');
  for (const wallet of reported.slice(1)) assert.is(await moderation.report(wallet, 'spam', ''), null);
  assert.is(await moderation.report(createTestWallet().address, 'spam', ''), 'You can send at most 5 reports an hour.');
});

test.run();
