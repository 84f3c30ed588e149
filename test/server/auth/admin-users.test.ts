/**
 * The admin API's users and the password grant, through real supabase-js: the service-role key
 * (in DATA_DIR, never served) creates and deletes email users, who sign in with a password and
 * then read and write REST and Realtime as `authenticated`, yet cannot act as a player, having
 * no wallet. Each refusal stands beside the call that succeeds.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { suite, test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt } from 'jose';
import type { SupabaseClient } from '@supabase/supabase-js';
import { startDatabase } from '../../../server/db/index.js';
import { createServiceClient, createTestClient, makeDataDir, removeDataDir, signInPlayer, startTestServer, type TestPlayer, type TestServer } from '../../support/harness.js';
import { readServiceRoleKey } from '../../support/server.js';
import { rawRequest } from '../../support/web3-grant.js';
import { waitFor } from '../../support/wait.js';
import { subscribeChannel } from '../../support/live.js';

let server: TestServer;
let dataDir: string;
let serviceRoleKey: string;
let admin: SupabaseClient;
let alice: TestPlayer;

/** A table an email user may use: its own rows only, stamped with the token's sub and email. */
const NOTES_SQL = `
create table public.staff_notes (
  id bigint generated always as identity primary key,
  owner uuid not null default auth.uid(),
  email text not null default (auth.jwt() ->> 'email'),
  body text not null
);
alter table public.staff_notes enable row level security;
create policy "own notes" on public.staff_notes for all to authenticated
  using (owner = auth.uid()) with check (owner = auth.uid());
grant select, insert on public.staff_notes to authenticated;
alter publication supabase_realtime add table public.staff_notes;
`;

const API_VERSION = { 'x-supabase-api-version': '2024-01-01' };
const INVALID_CREDENTIALS = { code: 'invalid_credentials', message: 'Invalid login credentials' };
const NOT_ADMIN = { code: 'not_admin', message: 'User not allowed' };

test.before(async () => {
  dataDir = await makeDataDir();
  const db = await startDatabase({ dataDir, migrationsDir: join(process.cwd(), 'supabase', 'migrations') });
  try {
    await db.exec(NOTES_SQL);
  } finally {
    await db.close();
  }
  server = await startTestServer(dataDir);
  serviceRoleKey = await readServiceRoleKey(server);
  admin = await createServiceClient(server);
  alice = await signInPlayer(server);
});

test.after(async () => {
  await server.stop();
  await removeDataDir(dataDir);
});

let counter = 0;
/** A fresh address for each test, so that the per-address sign-in limit of one test leaves the others alone. */
const freshEmail = () => `staff-${++counter}-${Date.now()}@example.com`;

async function createConfirmed(email: string, password = 'correct horse'): Promise<string> {
  const { data, error } = await admin.auth.admin.createUser({ email, password, email_confirm: true });
  assert.is(error, null);
  return data.user!.id;
}

async function signedIn(email: string, password = 'correct horse'): Promise<SupabaseClient> {
  const client = createTestClient(server);
  const { error } = await client.auth.signInWithPassword({ email, password });
  assert.is(error, null);
  return client;
}

function passwordGrant(body: Record<string, unknown>) {
  return rawRequest(server, 'POST', '/auth/v1/token?grant_type=password', { apikey: server.anonKey, 'content-type': 'application/json', ...API_VERSION }, JSON.stringify(body));
}

function adminCreate(key: string, body: Record<string, unknown>) {
  const headers = { apikey: key, authorization: `Bearer ${key}`, 'content-type': 'application/json', ...API_VERSION };
  return rawRequest(server, 'POST', '/auth/v1/admin/users', headers, JSON.stringify(body));
}

test('the service-role key is in DATA_DIR with mode 0600, its path printed, and never served over HTTP', async () => {
  const file = join(dataDir, 'service_role.key');
  assert.is((await stat(file)).mode & 0o777, 0o600);
  assert.ok(server.output().includes(`Service-role key (secret, for operators and tools only): ${file}`));
  const claims = decodeJwt(serviceRoleKey);
  assert.equal({ iss: claims.iss, role: claims.role }, { iss: 'supabase', role: 'service_role' });
  assert.equal({ ...decodeJwt(server.anonKey), role: 'service_role' }, claims);

  const config = await (await fetch(`${server.url}/config.json`)).text();
  assert.ok(config.includes(server.anonKey));
  assert.not.ok(config.includes(serviceRoleKey));
  for (const path of ['/service_role.key', '/data/service_role.key', '/jwt-secret', '/auth/v1/service_role.key', '/../service_role.key']) {
    const body = await (await fetch(`${server.url}${path}`)).text();
    assert.not.ok(body.includes(serviceRoleKey), path);
  }
});

test('only the service-role key may use the admin API: anon and user tokens get 403 not_admin', async () => {
  const email = freshEmail();
  const anon = await adminCreate(server.anonKey, { email, password: 'correct horse' });
  assert.is(anon.status, 403);
  assert.equal(anon.body, NOT_ADMIN);
  const viaClient = await createTestClient(server).auth.admin.createUser({ email, password: 'correct horse' });
  assert.equal({ status: viaClient.error?.status, code: viaClient.error?.code, message: viaClient.error?.message }, { status: 403, ...NOT_ADMIN });

  const staffEmail = freshEmail();
  await createConfirmed(staffEmail);
  const staff = await signedIn(staffEmail);
  const userToken = (await staff.auth.getSession()).data.session!.access_token;
  const asUser = await rawRequest(server, 'POST', '/auth/v1/admin/users', { apikey: server.anonKey, authorization: `Bearer ${userToken}`, 'content-type': 'application/json', ...API_VERSION }, JSON.stringify({ email, password: 'correct horse' }));
  assert.is(asUser.status, 403);
  assert.equal(asUser.body, NOT_ADMIN);
  const aliceToken = (await alice.client.auth.getSession()).data.session!.access_token;
  const aliceId = (await alice.client.auth.getUser()).data.user!.id;
  const wallet = await rawRequest(server, 'DELETE', `/auth/v1/admin/users/${aliceId}`, { apikey: server.anonKey, authorization: `Bearer ${aliceToken}`, ...API_VERSION });
  assert.is(wallet.status, 403);
  assert.equal(wallet.body, NOT_ADMIN);

  const created = await adminCreate(serviceRoleKey, { email, password: 'correct horse', email_confirm: true });
  assert.is(created.status, 200);
  assert.is(created.body!.email, email);
});

test('admin create makes an email user with an email identity, as GoTrue shows it', async () => {
  const email = freshEmail();
  const { data, error } = await admin.auth.admin.createUser({ email: email.toUpperCase(), password: 'correct horse', email_confirm: true, user_metadata: { team: 'ops' } });
  assert.is(error, null);
  const user = data.user!;
  assert.is(user.email, email);
  assert.is(user.role, 'authenticated');
  assert.is(user.aud, 'authenticated');
  assert.equal(user.app_metadata, { provider: 'email', providers: ['email'] });
  assert.equal(user.user_metadata, { team: 'ops', email_verified: true });
  assert.ok(user.email_confirmed_at);
  assert.is(user.confirmed_at, user.email_confirmed_at);
  assert.equal(user.identities!.map(({ provider, id, user_id, identity_data }) => ({ provider, id, user_id, identity_data })), [
    { provider: 'email', id: user.id, user_id: user.id, identity_data: { sub: user.id, email, email_verified: true, phone_verified: false } },
  ]);
  const read = await admin.auth.admin.getUserById(user.id);
  assert.equal(read.data.user, user);
});

test('a taken address is 422 email_exists, in any letter case', async () => {
  const email = freshEmail();
  await createConfirmed(email);
  const again = await adminCreate(serviceRoleKey, { email: email.toUpperCase(), password: 'correct horse' });
  assert.is(again.status, 422);
  assert.equal(again.body, { code: 'email_exists', message: 'A user with this email address has already been registered' });
  const other = await adminCreate(serviceRoleKey, { email: freshEmail(), password: 'correct horse' });
  assert.is(other.status, 200);
});

test('passwords shorter than 6 or longer than 72 characters are refused, 6 and 72 are taken', async () => {
  const short = await adminCreate(serviceRoleKey, { email: freshEmail(), password: '12345' });
  assert.is(short.status, 422);
  assert.equal(short.body, { code: 'weak_password', message: 'Password should be at least 6 characters.', weak_password: { reasons: ['length'] } });
  const long = await adminCreate(serviceRoleKey, { email: freshEmail(), password: 'x'.repeat(73) });
  assert.is(long.status, 400);
  assert.equal(long.body, { code: 'validation_failed', message: 'Password cannot be longer than 72 characters' });
  for (const password of ['123456', 'x'.repeat(72)]) {
    const email = freshEmail();
    assert.is((await adminCreate(serviceRoleKey, { email, password, email_confirm: true })).status, 200);
    await signedIn(email, password);
  }
});

test('a bad address is 400 validation_failed; phone users are not offered', async () => {
  const bad = await adminCreate(serviceRoleKey, { email: 'not-an-address', password: 'correct horse' });
  assert.is(bad.status, 400);
  assert.equal(bad.body, { code: 'validation_failed', message: 'Unable to validate email address: invalid format' });
  const none = await adminCreate(serviceRoleKey, { password: 'correct horse' });
  assert.equal(none.body, { code: 'validation_failed', message: 'Cannot create a user without either an email or phone' });
  const phone = await adminCreate(serviceRoleKey, { phone: '+15550100', password: 'correct horse' });
  assert.equal(phone.body, { code: 'validation_failed', message: 'phone is not supported by this server' });
});

test('the password grant: right password signs in; wrong password and unknown address get the same 400', async () => {
  const email = freshEmail();
  const id = await createConfirmed(email);
  const wrong = await passwordGrant({ email, password: 'wrong horse' });
  assert.is(wrong.status, 400);
  assert.equal(wrong.body, INVALID_CREDENTIALS);
  const unknown = await passwordGrant({ email: freshEmail(), password: 'correct horse' });
  assert.is(unknown.status, 400);
  assert.equal(unknown.body, INVALID_CREDENTIALS);
  const viaClient = await createTestClient(server).auth.signInWithPassword({ email, password: 'wrong horse' });
  assert.equal({ status: viaClient.error?.status, code: viaClient.error?.code, message: viaClient.error?.message }, { status: 400, ...INVALID_CREDENTIALS });

  const right = await passwordGrant({ email: email.toUpperCase(), password: 'correct horse' });
  assert.is(right.status, 200);
  assert.equal(Object.keys(right.body!).sort(), ['access_token', 'expires_at', 'expires_in', 'refresh_token', 'token_type', 'user']);
  const claims = decodeJwt(right.body!.access_token as string);
  assert.equal(
    { sub: claims.sub, role: claims.role, aud: claims.aud, email: claims.email, aal: claims.aal, amr: (claims.amr as { method: string }[]).map((a) => a.method) },
    { sub: id, role: 'authenticated', aud: 'authenticated', email, aal: 'aal1', amr: ['password'] },
  );
  assert.type(claims.session_id, 'string');
  assert.is((right.body!.user as { last_sign_in_at: string | null }).last_sign_in_at !== null, true);
});

test('an unconfirmed address cannot sign in until confirmed', async () => {
  const email = freshEmail();
  assert.is((await adminCreate(serviceRoleKey, { email, password: 'correct horse' })).status, 200);
  const unconfirmed = await passwordGrant({ email, password: 'correct horse' });
  assert.is(unconfirmed.status, 400);
  assert.equal(unconfirmed.body, { code: 'email_not_confirmed', message: 'Email not confirmed' });
  const wrongToo = await passwordGrant({ email, password: 'wrong horse' });
  assert.equal(wrongToo.body, INVALID_CREDENTIALS);
});

test('a wallet user has no password to sign in with', async () => {
  const user = (await alice.client.auth.getUser()).data.user!;
  assert.is(user.email, '');
  const grant = await passwordGrant({ email: `${alice.address}@example.com`, password: 'correct horse' });
  assert.equal(grant.body, INVALID_CREDENTIALS);
});

test('public sign-up is refused as GoTrue refuses it with sign-ups disabled; admin create is the way in', async () => {
  const email = freshEmail();
  const { data, error } = await createTestClient(server).auth.signUp({ email, password: 'correct horse' });
  assert.equal(data, { user: null, session: null });
  assert.equal({ status: error?.status, code: error?.code, message: error?.message }, { status: 422, code: 'signup_disabled', message: 'Signups not allowed for this instance' });
  const raw = await rawRequest(server, 'POST', '/auth/v1/signup', { apikey: server.anonKey, 'content-type': 'application/json', ...API_VERSION }, '{}');
  assert.is(raw.status, 422);
  assert.equal(raw.body, { code: 'signup_disabled', message: 'Signups not allowed for this instance' });
  assert.equal(await passwordGrant({ email, password: 'correct horse' }).then((r) => r.body), INVALID_CREDENTIALS);
  await createConfirmed(email);
  await signedIn(email);
});

test('ten password sign-ins per address in 5 minutes, failed ones included; other addresses unaffected', async () => {
  const email = freshEmail();
  const other = freshEmail();
  await Promise.all([createConfirmed(email), createConfirmed(other)]);
  for (let i = 0; i < 10; i++) assert.equal((await passwordGrant({ email, password: `guess ${i}` })).body, INVALID_CREDENTIALS);
  const limited = await passwordGrant({ email: email.toUpperCase(), password: 'correct horse' });
  assert.is(limited.status, 429);
  assert.equal(limited.body, { code: 'over_request_rate_limit', message: 'Request rate limit reached' });
  assert.ok(Number(limited.headers['retry-after']) > 0);
  assert.is((await passwordGrant({ email: other, password: 'correct horse' })).status, 200);
});

test("a password user reads and writes REST and Realtime as authenticated, with the token's sub and email", async () => {
  const email = freshEmail();
  const id = await createConfirmed(email);
  const staff = await signedIn(email);
  const inserts: unknown[] = [];
  const channel = staff.channel(`staff-notes-${counter}`).on('postgres_changes', { event: 'INSERT', schema: 'public', table: 'staff_notes' }, (change) => inserts.push(change.new));
  await subscribeChannel(channel);

  const written = await staff.from('staff_notes').insert({ body: 'restock the spawn chest' }).select('owner, email, body');
  assert.is(written.error, null);
  assert.equal(written.data, [{ owner: id, email, body: 'restock the spawn chest' }]);
  const read = await staff.from('staff_notes').select('owner, body');
  assert.equal(read.data, [{ owner: id, body: 'restock the spawn chest' }]);
  const forged = await staff.from('staff_notes').insert({ owner: (await alice.client.auth.getUser()).data.user!.id, body: 'not mine' });
  assert.is(forged.error?.code, '42501');

  await waitFor(() => inserts.length > 0, { message: 'the insert heard' });
  assert.equal(inserts.map((row) => (row as { body: string }).body), ['restock the spawn chest']);
  assert.equal((await alice.client.from('staff_notes').select('body')).data, []);
  await staff.removeAllChannels();
});

test('a password user cannot act as a player: no wallet, so every player write is refused as for a stranger', async () => {
  const email = freshEmail();
  await createConfirmed(email);
  const staff = await signedIn(email);
  assert.equal((await staff.rpc('wallet_address')).data, null);
  const chat = { player_id: alice.address, player_name: 'Alice', message: 'hello from staff' };
  const asStaff = await staff.from('game_chat_messages').insert(chat);
  assert.is(asStaff.error?.code, '42501');
  const presence = await staff.from('game_players').upsert({ player_id: alice.address, player_name: 'Alice', x: 1, y: 1 }, { onConflict: 'player_id' });
  assert.is(presence.error?.code, '42501');
  const block = await staff.from('game_blocks').insert({ x: 10, y: 10, block_type: 'stone', player_id: alice.address, player_name: 'Alice' });
  // Not in the world (its presence write was refused), so it cannot build either.
  assert.equal({ code: block.error?.code, message: block.error?.message }, { code: '23514', message: 'no fresh presence: a player who is not in the world cannot build' });
  const asAlice = await alice.client.from('game_chat_messages').insert(chat);
  assert.is(asAlice.error, null);
  const seen = await staff.from('game_chat_messages').select('message').eq('player_id', alice.address);
  assert.equal(seen.data, [{ message: 'hello from staff' }]);
});

test('admin delete removes the user, ends its sessions and refuses unknown ids', async () => {
  const email = freshEmail();
  const id = await createConfirmed(email);
  const staff = await signedIn(email);
  const token = (await staff.auth.getSession()).data.session!.access_token;
  const user = () => rawRequest(server, 'GET', '/auth/v1/user', { apikey: server.anonKey, authorization: `Bearer ${token}`, ...API_VERSION });
  assert.is((await user()).status, 200);

  const deleted = await admin.auth.admin.deleteUser(id);
  assert.is(deleted.error, null);
  assert.is(deleted.data.user?.id, id);
  assert.equal((await user()).body, { code: 'session_not_found', message: 'Session from session_id claim in JWT does not exist' });
  assert.equal((await passwordGrant({ email, password: 'correct horse' })).body, INVALID_CREDENTIALS);

  const headers = { apikey: serviceRoleKey, authorization: `Bearer ${serviceRoleKey}`, ...API_VERSION };
  const again = await rawRequest(server, 'DELETE', `/auth/v1/admin/users/${id}`, headers);
  assert.is(again.status, 404);
  assert.equal(again.body, { code: 'user_not_found', message: 'User not found' });
  const notUuid = await rawRequest(server, 'DELETE', '/auth/v1/admin/users/nobody', headers);
  assert.is(notUuid.status, 404);
  assert.equal(notUuid.body, { code: 'validation_failed', message: 'user_id must be an UUID' });
});

test.run();

const perAddress = suite<{ server: TestServer }>('password and Web3 sign-ins share the per-address limit');
const IP_LIMIT = 4;
perAddress.before(async (ctx) => {
  ctx.server = await startTestServer(undefined, { RATE_LIMIT_WEB3: String(IP_LIMIT) });
});
perAddress.after(async ({ server: limited }) => {
  await limited.stop();
});

perAddress('RATE_LIMIT_WEB3 sign-ins of either kind from one address, then 429 for both before the body is read', async ({ server: limited }) => {
  const limitedAdmin = await createServiceClient(limited);
  const email = freshEmail();
  assert.is((await limitedAdmin.auth.admin.createUser({ email, password: 'correct horse', email_confirm: true })).error, null);
  const grant = (body: string) => rawRequest(limited, 'POST', '/auth/v1/token?grant_type=password', { apikey: limited.anonKey, 'content-type': 'application/json', ...API_VERSION }, body);
  const body = JSON.stringify({ email, password: 'correct horse' });
  assert.is((await grant(body)).status, 200);
  await signInPlayer(limited);
  assert.is((await grant(body)).status, 200);
  await signInPlayer(limited);
  for (const refused of [await grant(body), await grant('not json')]) {
    assert.is(refused.status, 429);
    assert.equal(refused.body, { code: 'over_request_rate_limit', message: 'Request rate limit reached' });
  }
  const web3 = await signInPlayer(limited).then(() => null, (error: { status?: number; code?: string }) => error);
  assert.equal({ status: web3?.status, code: web3?.code }, { status: 429, code: 'over_request_rate_limit' });
});

perAddress.run();
