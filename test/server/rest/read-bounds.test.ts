import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { removeDataDir, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { playerAtSpawn } from '../../support/rules.js';

let server: TestServer;
let alice: TestPlayer;

test.before(async () => {
  server = await startTestServer();
  // Writing needs a fresh presence row, and the name is the one the wallet holds.
  alice = await playerAtSpawn(server, 'Alice');
  const clip = await alice.client
    .from('game_voice_messages')
    .insert({ player_id: alice.address, player_name: 'Alice', audio_data: 'QUJD'.repeat(1000), x: 1, y: 1 });
  assert.is(clip.error, null);
  // One insert each: created_at is the transaction's time, and the sort test orders by it.
  for (const message of ['hello world', 'goodbye']) {
    const chat = await alice.client.from('game_chat_messages').insert({ player_id: alice.address, player_name: 'Alice', message });
    assert.is(chat.error, null);
  }
  const blocks = await alice.client.from('game_blocks').insert([
    { x: 10, y: 4, block_type: 'stone', player_id: alice.address, player_name: 'Alice' },
    { x: 11, y: 4, block_type: 'wood', player_id: alice.address, player_name: 'Alice' },
  ]);
  assert.is(blocks.error, null);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(server.dataDir);
});

/** A raw REST request as the signed-in wallet `alice`: any stranger can sign in with a new wallet. */
async function rest(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<{ status: number; body: unknown }> {
  const token = (await alice.client.auth.getSession()).data.session!.access_token;
  const response = await fetch(`${server.url}/rest/v1/${path}`, {
    method,
    headers: { apikey: server.anonKey, authorization: `Bearer ${token}`, ...headers },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

async function refused(path: string, code: string, message: string, details: string, hint: string, method = 'GET') {
  const { status, body } = await rest(path, method);
  assert.is(status, 400, path);
  assert.equal(body, { code, message, details, hint }, path);
}

test('like/ilike on a large column is refused; on a bounded column it runs', async () => {
  for (const op of ['like', 'ilike']) {
    await refused(
      `game_voice_messages?select=id&audio_data=${op}.*ABC*`,
      'TS101',
      'Pattern filter on a large column: game_voice_messages.audio_data',
      `${op} is allowed on text columns of at most 1000 characters; audio_data holds up to 1000000`,
      'Filter on another column (eq, in, gt, ...)',
    );
  }
  await refused(
    'game_voice_messages?audio_data=not.like.*A*',
    'TS101',
    'Pattern filter on a large column: game_voice_messages.audio_data',
    'like is allowed on text columns of at most 1000 characters; audio_data holds up to 1000000',
    'Filter on another column (eq, in, gt, ...)',
    'DELETE',
  );
  const control = await rest('game_chat_messages?select=message&message=ilike.*WORLD*');
  assert.equal(control, { status: 200, body: [{ message: 'hello world' }] });
  const byName = await rest('game_voice_messages?select=player_name&player_name=like.Ali*');
  assert.equal(byName, { status: 200, body: [{ player_name: 'Alice' }] });
  const byWallet = await rest(`game_voice_messages?select=player_name&player_id=like.${alice.address.slice(0, 6)}*`);
  assert.equal(byWallet, { status: 200, body: [{ player_name: 'Alice' }] });
});

test('a read that selects a large column returns one row at most: limit=1 or the primary key', async () => {
  const refusal = {
    code: 'TS106',
    message: 'Large column read in bulk: game_voice_messages.audio_data',
    details: 'A read that selects audio_data returns at most 1 row: add limit=1 or eq on id',
    hint: 'Select the other columns (select=id,player_id,player_name,x,y,created_at), then each large value by its key',
  };
  for (const path of ['game_voice_messages', 'game_voice_messages?select=id,audio_data&limit=2', 'game_voice_messages?select=audio_data&x=eq.1']) {
    assert.equal(await rest(path), { status: 400, body: refusal }, path);
  }
  const listed = await rest('game_voice_messages?select=id,player_name,x,y');
  assert.is(listed.status, 200);
  const [clip] = listed.body as { id: string }[];
  assert.equal(await rest(`game_voice_messages?select=audio_data&id=eq.${clip!.id}`), { status: 200, body: [{ audio_data: 'QUJD'.repeat(1000) }] });
  assert.equal(await rest('game_voice_messages?select=audio_data&limit=1'), { status: 200, body: [{ audio_data: 'QUJD'.repeat(1000) }] });
});

test('a pattern over 100 characters is refused; 100 run', async () => {
  await refused(
    `game_chat_messages?message=like.${'*'.repeat(101)}`,
    'TS101',
    'Pattern too long',
    'like patterns have at most 100 characters; this one has 101',
    'Use a shorter pattern',
  );
  const control = await rest(`game_chat_messages?select=message&message=like.${'*'.repeat(99)}e`);
  assert.equal(control, { status: 200, body: [{ message: 'goodbye' }] });
});

test('an in list over 100 values is refused; 100 run', async () => {
  const values = (n: number) => Array.from({ length: n }, (_, i) => i + 5).join(',');
  await refused(
    `game_blocks?x=in.(${values(101)})`,
    'TS102',
    'in list too long',
    'x=in.(...) lists 101 values; at most 100',
    'Split the list over several requests',
  );
  const control = await rest(`game_blocks?select=x&x=in.(${values(100)})&order=x`);
  assert.equal(control, { status: 200, body: [{ x: 10 }, { x: 11 }] });
});

test('an or/and tree deeper than 3 levels or over 50 conditions is refused before it is read', async () => {
  await refused(
    'game_blocks?or=(x.eq.1,and(y.eq.2,or(x.eq.3,and(y.eq.4,x.eq.5))))',
    'TS103',
    'Logic tree too large',
    'or nests 4 levels and 5 conditions; at most 3 levels and 50 conditions',
    'Split the request, or filter with in.(...)',
  );
  const wide = `(${Array.from({ length: 51 }, (_, i) => `x.eq.${i}`).join(',')})`;
  await refused(
    `game_blocks?and=${wide}`,
    'TS103',
    'Logic tree too large',
    'and nests 1 levels and 51 conditions; at most 3 levels and 50 conditions',
    'Split the request, or filter with in.(...)',
  );
  await refused(
    'game_blocks?not.or=(x.in.(1,2),and(y.eq.2,or(x.eq.3,and(y.eq.4,x.eq.5))))',
    'TS103',
    'Logic tree too large',
    'not.or nests 4 levels and 5 conditions; at most 3 levels and 50 conditions',
    'Split the request, or filter with in.(...)',
  );
  // Within the bounds the tree reaches the query parser (which answers it or says what it lacks).
  const shallow = await rest('game_blocks?or=(x.eq.1,and(y.eq.2,or(x.in.(3,4),y.eq.5)))');
  assert.is.not((shallow.body as { code: string }).code, 'TS103');
});

test('an offset over 100,000 is refused; 100,000 runs', async () => {
  await refused(
    'game_blocks?order=x,y&offset=100001',
    'TS104',
    'Offset too large',
    'offset 100001; at most 100000',
    'Page by filtering on the ordered column (for example x=gt.<last x>) instead of an offset',
  );
  assert.equal(await rest('game_blocks?select=x&order=x,y&offset=100000'), { status: 200, body: [] });
});

test('a sort that no index serves is refused; indexed sorts run', async () => {
  await refused(
    'game_blocks?order=player_name',
    'TS105',
    'Sort without an index on game_blocks',
    'order=player_name.asc is not the leading columns of an index; indexed orders: x,y | created_at',
    'Order by indexed columns, all ascending or all descending',
  );
  await refused(
    'game_blocks?order=x.desc,y.asc',
    'TS105',
    'Sort without an index on game_blocks',
    'order=x.desc,y.asc is not the leading columns of an index; indexed orders: x,y | created_at',
    'Order by indexed columns, all ascending or all descending',
  );
  await refused(
    'game_blocks?order=y,x',
    'TS105',
    'Sort without an index on game_blocks',
    'order=y.asc,x.asc is not the leading columns of an index; indexed orders: x,y | created_at',
    'Order by indexed columns, all ascending or all descending',
  );
  assert.equal(await rest('game_blocks?select=x,y&order=x.desc,y.desc'), { status: 200, body: [{ x: 11, y: 4 }, { x: 10, y: 4 }] });
  assert.equal(await rest('game_blocks?select=x&order=x'), { status: 200, body: [{ x: 10 }, { x: 11 }] });
  assert.equal(await rest('game_chat_messages?select=message&order=created_at.desc'), {
    status: 200,
    body: [{ message: 'goodbye' }, { message: 'hello world' }],
  });
});

/** The p95 (ms) of `count` reads by alice, each checked. */
async function readP95(count: number): Promise<number> {
  const latencies: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const { data, error } = await alice.client.from('game_blocks').select('x').order('x');
    latencies.push(performance.now() - started);
    assert.is(error, null);
    assert.equal(data, [{ x: 10 }, { x: 11 }]);
  }
  latencies.sort((a, b) => a - b);
  return latencies[Math.ceil(latencies.length * 0.95) - 1]!;
}

test("another player's reads stay fast while a stranger sends only refused shapes", async () => {
  const shapes = [
    'game_voice_messages?audio_data=ilike.*A*B*C*D*',
    `game_blocks?x=in.(${Array.from({ length: 2000 }, (_, i) => i).join(',')})`,
    `game_blocks?or=(${'or(x.eq.1,'.repeat(40)}x.eq.2${')'.repeat(41)}`,
    'game_blocks?order=x,y&offset=999999999',
    'game_voice_messages?order=audio_data.desc',
    'game_voice_messages?select=audio_data',
  ];
  // The same machine's quiet figure first: the test runs beside other work on shared cores.
  const quiet = await readP95(60);
  let flooding = true;
  const flood = Promise.all(
    // Two requests in flight: a browser's share of connections, and the test shares its CPU with the server.
    Array.from({ length: 2 }, async (_, worker) => {
      let sent = 0;
      while (flooding) {
        const { status } = await rest(shapes[(worker + sent++) % shapes.length]!);
        assert.is(status, 400);
      }
      return sent;
    }),
  );
  const flooded = await readP95(60);
  flooding = false;
  const refusedCount = (await flood).reduce((sum, n) => sum + n, 0);
  assert.ok(refusedCount >= 60, `${refusedCount} refused requests were sent meanwhile`);
  // Refusals cost parsing only: what is left is sharing the event loop with the flood.
  assert.ok(flooded <= Math.max(50, 2 * quiet + 20), `p95 ${flooded.toFixed(1)} ms while flooded, ${quiet.toFixed(1)} ms quiet`);
});

test.run();
