/**
 * `npm run ops -- <command>`: the operators' tools from the shell, with the service-role key the
 * server writes to DATA_DIR/service_role.key (DATA_DIR defaults to ./data). The server is
 * TESSERA_URL, or http://localhost:PORT (PORT defaults to 5173). Every action is recorded in the
 * operators' log as 'service_role'.
 *
 *   ban WALLET --reason "..." [--until 2026-12-01T00:00:00Z | --hours N] [--scope play|chat]
 *   unban WALLET [--scope play|chat]
 *   bans
 *   reports [--status open|resolved|dismissed]
 *   resolve ID [--dismiss]
 *   history X Y
 *   rollback WALLET --x X --y Y [--radius 32] [--minutes 30 | --since ISO] [--claims none|window|all] [--apply]
 *   undo ID
 *   claims [--owner WALLET] [--x X --y Y --radius R] [--limit 50] [--after CURSOR]
 *   claim ID
 *   remove-claim ID --reason "..."
 *   log [--limit 50]
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import WebSocket from 'ws';
import { SERVICE_ROLE_KEY_FILE } from '../server/auth/keys.js';
import {
  ban,
  inspectClaim,
  listBans,
  listClaims,
  listReports,
  readLog,
  removeClaim,
  resolveReport,
  rollback,
  tileHistory,
  undoRollback,
  unban,
  type BanScope,
  type ClaimDetails,
  type ClaimFilter,
  type OpsClaim,
  type Report,
  type RollbackClaims,
} from '../net/ops.js';

const USAGE = `usage: npm run ops -- <command>
  ban WALLET --reason "..." [--until ISO | --hours N] [--scope play|chat]
  unban WALLET [--scope play|chat]
  bans
  reports [--status open|resolved|dismissed]
  resolve ID [--dismiss]
  history X Y
  rollback WALLET --x X --y Y [--radius 32] [--minutes 30 | --since ISO] [--claims none|window|all] [--apply]   (a preview without --apply)
  undo ID
  claims [--owner WALLET] [--x X --y Y --radius R] [--limit 50] [--after CURSOR]
  claim ID
  remove-claim ID --reason "..."
  log [--limit 50]`;

/** The service-role client for the server this shell runs beside. */
async function serviceClient(env: NodeJS.ProcessEnv): Promise<SupabaseClient> {
  const keyFile = join(env.DATA_DIR || './data', SERVICE_ROLE_KEY_FILE);
  const key = (await readFile(keyFile, 'utf8').catch(() => {
    throw new Error(`cannot read ${keyFile}: start the server once (it writes the key there) or set DATA_DIR`);
  })).trim();
  const url = env.TESSERA_URL || `http://localhost:${env.PORT || 5173}`;
  return createClient(url, key, {
    auth: { persistSession: false, autoRefreshToken: false },
    // Node 20 has no WebSocket of its own; the tool opens no channel, but supabase-js asks for one.
    realtime: { transport: WebSocket as never },
  });
}

function integer(name: string, value: string | undefined): number {
  const number = Number(value);
  if (value === undefined || !Number.isInteger(number)) throw new Error(`${name} must be a whole number`);
  return number;
}

const reportLine = (r: Report) =>
  `#${r.id} ${r.status} ${r.created_at} ${r.reported_id} (${r.context.reported_name ?? '?'}) for ${r.reason} by ${r.reporter_id}` +
  `${r.note ? ` "${r.note}"` : ''}; ${r.context.chat.length} chat lines, ${r.context.edits.length} edits`;

const rect = (c: Pick<OpsClaim, 'x1' | 'y1' | 'x2' | 'y2'>) => `${c.x1},${c.y1}..${c.x2},${c.y2} (${c.x2 - c.x1 + 1}x${c.y2 - c.y1 + 1})`;

/** A page of claims, one a line, and the cursor of the next page when the page is full. */
function claimLines(claims: OpsClaim[], pageSize: number): string {
  if (claims.length === 0) return 'no claims';
  const lines = claims.map((c) => `${c.id} ${c.owner_name} (${c.owner_id}) ${rect(c)} ${c.members} trusted ${c.holds ? 'holds' : 'lapsed'} since ${c.created_at}`);
  const last = claims[claims.length - 1]!;
  if (claims.length === pageSize) lines.push(`next page: --after ${last.created_at},${last.id}`);
  return lines.join('\n');
}

const claimDetails = (c: ClaimDetails) =>
  [
    `${c.id} ${c.owner_name} (${c.owner_id}) ${rect(c)} since ${c.created_at}: ${c.holds ? 'holds' : 'lapsed'}`,
    `owner last present ${c.owner_last_present ?? 'never'}${c.owner_ban ? `, banned from ${c.owner_ban.scope} ${c.owner_ban.until ? `until ${c.owner_ban.until}` : 'with no end'}: ${c.owner_ban.reason}` : ''}`,
    `${c.blocks} blocks, ${c.owner_blocks} of them the owner's`,
    `${c.members.length} trusted${c.members.map((m) => `\n  ${m.player_id} (${m.player_name ?? '?'}) since ${m.added_at}`).join('')}`,
  ].join('\n');

/** The claims filter the `claims` command's options name. */
function claimFilter(values: Record<string, string | boolean | undefined>): ClaimFilter & { pageSize: number } {
  const filter: ClaimFilter & { pageSize: number } = { pageSize: values.limit ? integer('--limit', values.limit as string) : 50 };
  if (values.owner) filter.owner = values.owner as string;
  if (values.x !== undefined || values.y !== undefined || values.radius !== undefined) {
    filter.area = { x: integer('--x', values.x as string), y: integer('--y', values.y as string), radius: integer('--radius', values.radius as string) };
  }
  if (values.after) {
    const [createdAt, id] = (values.after as string).split(',');
    if (!createdAt || !id) throw new Error('--after is the CURSOR a full page prints');
    filter.after = { created_at: createdAt, id };
  }
  return filter;
}

/** Runs one command and returns what to print. */
export async function runOps(argv: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      reason: { type: 'string' }, until: { type: 'string' }, hours: { type: 'string' }, scope: { type: 'string' },
      status: { type: 'string' }, dismiss: { type: 'boolean' }, x: { type: 'string' }, y: { type: 'string' },
      radius: { type: 'string' }, minutes: { type: 'string' }, since: { type: 'string' }, apply: { type: 'boolean' },
      limit: { type: 'string' }, claims: { type: 'string' }, owner: { type: 'string' }, after: { type: 'string' },
    },
  });
  const [command, first, second] = positionals;
  const scope = values.scope as BanScope | undefined;
  if (scope !== undefined && scope !== 'play' && scope !== 'chat') throw new Error('--scope is play or chat');
  const db = await serviceClient(env);
  switch (command) {
    case 'ban': {
      if (!first || !values.reason) throw new Error('ban needs a WALLET and --reason');
      const until = values.until ?? (values.hours ? new Date(Date.now() + Number(values.hours) * 3600_000).toISOString() : null);
      const row = await ban(db, first, scope ?? 'play', values.reason, until);
      return `banned ${row.player_id} from ${row.scope} ${row.until ? `until ${row.until}` : 'with no end'}: ${row.reason}`;
    }
    case 'unban': {
      if (!first) throw new Error('unban needs a WALLET');
      return `lifted ${await unban(db, first, scope)} ban(s) of ${first}`;
    }
    case 'bans':
      return (await listBans(db)).map((b) => `${b.player_id} ${b.scope} ${b.until ?? 'no end'} by ${b.by}: ${b.reason}`).join('\n') || 'no bans';
    case 'reports':
      return (await listReports(db, (values.status as Report['status']) ?? 'open')).map(reportLine).join('\n') || 'no reports';
    case 'resolve': {
      const id = integer('ID', first);
      await resolveReport(db, id, values.dismiss ? 'dismissed' : 'resolved');
      return `report ${id} ${values.dismiss ? 'dismissed' : 'resolved'}`;
    }
    case 'history': {
      const edits = await tileHistory(db, integer('X', first), integer('Y', second));
      return edits.map((e) => `${e.created_at} ${e.actor_name ?? e.actor_id ?? 'server'}: ${e.before_type ?? 'empty'} -> ${e.after_type ?? 'empty'}`).join('\n') || 'no edits';
    }
    case 'rollback': {
      if (!first) throw new Error('rollback needs a WALLET');
      const since = values.since ?? new Date(Date.now() - Number(values.minutes ?? 30) * 60_000).toISOString();
      const claims = (values.claims ?? 'none') as RollbackClaims;
      if (!['none', 'window', 'all'].includes(claims)) throw new Error('--claims is none, window or all');
      const request = { wallet: first, since, x: integer('--x', values.x), y: integer('--y', values.y), radius: integer('--radius', values.radius ?? '32'), claims };
      const result = await rollback(db, request, !values.apply);
      const counts = `${result.removed} removed, ${result.restored} restored, ${result.skipped} skipped, ${result.claims} claims`;
      return result.dry_run ? `preview: ${counts} (run again with --apply)` : `rollback ${result.id}: ${counts} (undo with: npm run ops -- undo ${result.id})`;
    }
    case 'undo': {
      const result = await undoRollback(db, integer('ID', first));
      return `rollback ${result.id} undone: ${result.reverted} reverted, ${result.skipped} skipped`;
    }
    case 'claims': {
      const filter = claimFilter(values);
      return claimLines(await listClaims(db, filter), filter.pageSize);
    }
    case 'claim': {
      if (!first) throw new Error('claim needs an ID');
      return claimDetails(await inspectClaim(db, first));
    }
    case 'remove-claim': {
      if (!first || !values.reason) throw new Error('remove-claim needs an ID and --reason');
      const gone = await removeClaim(db, first, values.reason);
      return `removed claim ${gone.id} of ${gone.owner_name} (${gone.owner_id}) at ${rect(gone)}, ${gone.members} trusted: ${values.reason}`;
    }
    case 'log':
      return (await readLog(db, values.limit ? integer('--limit', values.limit) : 50))
        .map((e) => `${e.created_at} ${e.operator_id} ${e.action} ${e.target ?? ''} ${JSON.stringify(e.details)}`)
        .join('\n') || 'the log is empty';
    default:
      throw new Error(USAGE);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  runOps(process.argv.slice(2), process.env).then(
    (output) => console.log(output),
    (error: unknown) => {
      console.error((error as Error).message);
      process.exit(1);
    },
  );
}
