/**
 * What an operator does, over the ordinary supabase-js client: the /ops console calls it with
 * an operator's session, `npm run ops` with the service-role key. The database decides who may
 * (docs/moderation.md); every function throws an Error with the server's message when refused.
 */
import type { SupabaseClient } from '@supabase/supabase-js';
import type { ClaimRow } from '../protocol/claim-changes.js';

/** Where a ban applies: `play` (no sign-in, no writes) or `chat` (no chat or voice). */
export type BanScope = 'play' | 'chat';

/** A row of public.game_bans. */
export interface Ban {
  player_id: string;
  scope: BanScope;
  reason: string;
  until: string | null;
  by: string | null;
  created_at: string;
}

/** What the server put into a report's context. */
export interface ReportContext {
  reported_name: string | null;
  reporter_tile: { x: number; y: number } | null;
  chat: { name: string; message: string; at: string }[];
  edits: { x: number; y: number; before: string | null; before_owner: string | null; after: string | null; at: string }[];
}

/** A row of public.game_reports. */
export interface Report {
  id: number;
  reporter_id: string;
  reported_id: string;
  reason: string;
  note: string;
  context: ReportContext;
  status: 'open' | 'resolved' | 'dismissed';
  created_at: string;
  resolved_by: string | null;
  resolved_at: string | null;
}

/** One edit of a tile, as tile_history lists it. */
export interface TileEdit {
  id: number;
  actor_id: string | null;
  actor_name: string | null;
  before_type: string | null;
  before_owner: string | null;
  after_type: string | null;
  after_owner: string | null;
  created_at: string;
}

/** Which of the wallet's claims a rollback removes: none, those made since its `since`, or all. */
export type RollbackClaims = 'none' | 'window' | 'all';

/** What rollback_edits is asked. */
export interface RollbackRequest {
  wallet: string;
  since: string;
  x: number;
  y: number;
  radius: number;
  /** The wallet's claims to remove too; 'none' unless given. */
  claims?: RollbackClaims;
}

/** What rollback_edits answers: the rollback's id (null for a preview) and its counts. */
export interface RollbackResult {
  id: number | null;
  dry_run: boolean;
  removed: number;
  restored: number;
  skipped: number;
  /** Claims removed (or, in a preview, that would be). */
  claims: number;
}

/** A claim as ops_list_claims lists it: lapsed ones too (`holds` false). */
export interface OpsClaim extends ClaimRow {
  created_at: string;
  /** How many wallets the owner trusts on it. */
  members: number;
  holds: boolean;
}

/** Which claims ops_list_claims lists: of one owner, meeting a square around a tile, after a row of the page before. */
export interface ClaimFilter {
  owner?: string;
  area?: { x: number; y: number; radius: number };
  /** The last row of the page before: the page goes on after it. */
  after?: Pick<OpsClaim, 'id' | 'created_at'>;
  /** Rows a page holds, 1-200; 50 unless given. */
  pageSize?: number;
}

/** One claim as ops_inspect_claim shows it. */
export interface ClaimDetails extends Omit<OpsClaim, 'members'> {
  owner_last_present: string | null;
  owner_ban: { scope: BanScope; reason: string; until: string | null } | null;
  blocks: number;
  owner_blocks: number;
  members: { player_id: string; player_name: string | null; added_at: string }[];
}

/** A claim an operator removed, as ops_remove_claim answers it. */
export type RemovedClaim = Omit<OpsClaim, 'holds'>;

/** A row of the operators' log. */
export interface OpsLogEntry {
  id: number;
  operator_id: string;
  action: string;
  target: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

function must<T>(result: { data: T | null; error: { message: string } | null }): T {
  if (result.error) throw new Error(result.error.message);
  return result.data as T;
}

/** Whether the signed-in wallet is an operator. */
export async function isOperator(db: SupabaseClient): Promise<boolean> {
  return must(await db.rpc('is_operator')) === true;
}

/** Reports with `status`, oldest first (the queue), at most 100. */
export async function listReports(db: SupabaseClient, status: Report['status'] = 'open'): Promise<Report[]> {
  return must(await db.from('game_reports').select('*').eq('status', status).order('created_at').limit(100)) as Report[];
}

/** Closes a report as resolved or dismissed. */
export async function resolveReport(db: SupabaseClient, id: number, outcome: 'resolved' | 'dismissed' = 'resolved'): Promise<void> {
  must(await db.rpc('resolve_report', { report_id: id, outcome }));
}

/** Every ban, newest first. */
export async function listBans(db: SupabaseClient): Promise<Ban[]> {
  return must(await db.from('game_bans').select('*').order('created_at', { ascending: false }).limit(500)) as Ban[];
}

/** Bans `wallet` from `scope` for `reason`, until `until` (ISO time) or for good; replaces a ban of the same scope. */
export async function ban(db: SupabaseClient, wallet: string, scope: BanScope, reason: string, until: string | null): Promise<Ban> {
  return must(
    await db.from('game_bans').upsert({ player_id: wallet, scope, reason, until }, { onConflict: 'player_id,scope' }).select().single(),
  ) as Ban;
}

/** Lifts `wallet`'s bans (of `scope`, or all); resolves to how many were lifted. */
export async function unban(db: SupabaseClient, wallet: string, scope?: BanScope): Promise<number> {
  let query = db.from('game_bans').delete().eq('player_id', wallet);
  if (scope) query = query.eq('scope', scope);
  return (must(await query.select('player_id')) as unknown[]).length;
}

/** The edits of tile (x, y), newest first. */
export async function tileHistory(db: SupabaseClient, x: number, y: number): Promise<TileEdit[]> {
  return must(await db.rpc('tile_history', { x, y })) as TileEdit[];
}

/** Rolls back (or, with `dryRun`, previews rolling back) a wallet's edits, and the claims `request.claims` names. */
export async function rollback(db: SupabaseClient, request: RollbackRequest, dryRun: boolean): Promise<RollbackResult> {
  return must(await db.rpc('rollback_edits', { ...request, claims: request.claims ?? 'none', dry_run: dryRun })) as RollbackResult;
}

/** One page of claims, newest first ({@link ClaimFilter}). */
export async function listClaims(db: SupabaseClient, filter: ClaimFilter = {}): Promise<OpsClaim[]> {
  return must(
    await db.rpc('ops_list_claims', {
      owner: filter.owner ?? null,
      x: filter.area?.x ?? null,
      y: filter.area?.y ?? null,
      radius: filter.area?.radius ?? null,
      before_created: filter.after?.created_at ?? null,
      before_id: filter.after?.id ?? null,
      page_size: filter.pageSize ?? 50,
    }),
  ) as OpsClaim[];
}

/** Claim `id` with its owner's state, its blocks and its trusted wallets. */
export async function inspectClaim(db: SupabaseClient, id: string): Promise<ClaimDetails> {
  return must(await db.rpc('ops_inspect_claim', { claim_id: id })) as ClaimDetails;
}

/** Removes claim `id` for `reason`; resolves to the claim removed. */
export async function removeClaim(db: SupabaseClient, id: string, reason: string): Promise<RemovedClaim> {
  return must(await db.rpc('ops_remove_claim', { claim_id: id, reason })) as RemovedClaim;
}

/** Undoes rollback `id`. */
export async function undoRollback(db: SupabaseClient, id: number): Promise<{ id: number; reverted: number; skipped: number }> {
  return must(await db.rpc('undo_rollback', { id })) as { id: number; reverted: number; skipped: number };
}

/** The latest `limit` entries of the operators' log, newest first. */
export async function readLog(db: SupabaseClient, limit = 100): Promise<OpsLogEntry[]> {
  return must(await db.from('game_ops_log').select('*').order('id', { ascending: false }).limit(limit)) as OpsLogEntry[];
}
