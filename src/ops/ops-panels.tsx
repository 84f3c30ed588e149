import type { SupabaseClient } from '@supabase/supabase-js';
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import {
  ban,
  listBans,
  listReports,
  readLog,
  resolveReport,
  rollback,
  tileHistory,
  undoRollback,
  unban,
  type Ban,
  type BanScope,
  type OpsLogEntry,
  type Report,
  type RollbackClaims,
  type RollbackRequest,
  type RollbackResult,
  type TileEdit,
} from '../../net/ops.js';

/** What a report's actions put into the ban and rollback forms. */
export interface Prefill {
  wallet?: string;
  reason?: string;
  x?: number;
  y?: number;
  /** Bumped on every prefill, so the forms take it again even for the same wallet. */
  at?: number;
}

/** A wallet shortened for lists: its first 6 and last 4 characters. */
export function shortWallet(wallet: string | null): string {
  if (!wallet) return 'server';
  return wallet.length > 12 ? `${wallet.slice(0, 6)}…${wallet.slice(-4)}` : wallet;
}

/** A time as the console shows it: the browser's local date and time, empty for none. */
export const time = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : '');

/** Runs `action`, showing its error in `setError`. */
export async function attempt(setError: (message: string | null) => void, action: () => Promise<void>): Promise<void> {
  setError(null);
  try {
    await action();
  } catch (error) {
    setError((error as Error).message);
  }
}

/** One panel of the console: a title, its content and the error of its last action. */
export function Section({ title, children, error }: { title: string; children: ReactNode; error?: string | null }) {
  return (
    <section className="pixel-panel ops-panel" aria-label={title}>
      <h2 className="side-panel-title">{title}</h2>
      {children}
      {error ? (
        <p className="chat-problem" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function ReportCard({ report, onPrefill, onClose }: { report: Report; onPrefill(prefill: Prefill): void; onClose(outcome: 'resolved' | 'dismissed'): void }) {
  const { context } = report;
  return (
    <li className="ops-report" data-testid="ops-report">
      <p>
        <strong>{context.reported_name ?? shortWallet(report.reported_id)}</strong> ({shortWallet(report.reported_id)}) reported for{' '}
        <strong>{report.reason}</strong> by {shortWallet(report.reporter_id)}, {time(report.created_at)}
      </p>
      {report.note ? <p className="ops-note">“{report.note}”</p> : null}
      <details>
        <summary>
          Context: {context.chat.length} chat lines, {context.edits.length} edits near the reporter
          {context.reporter_tile ? ` at ${context.reporter_tile.x},${context.reporter_tile.y}` : ''}
        </summary>
        <ol className="ops-context">
          {context.chat.map((line, i) => (
            <li key={`c${i}`}>
              [{time(line.at)}] {line.name}: {line.message}
            </li>
          ))}
          {context.edits.map((edit, i) => (
            <li key={`e${i}`}>
              [{time(edit.at)}] {edit.x},{edit.y}: {edit.before ?? 'empty'} → {edit.after ?? 'empty'}
            </li>
          ))}
        </ol>
      </details>
      <div className="ops-actions">
        <button type="button" className="pixel-button pixel-button--small pixel-button--danger" onClick={() => onPrefill({ wallet: report.reported_id, reason: `${report.reason}: ${report.note}`.slice(0, 200), at: Date.now() })}>
          Ban…
        </button>
        <button
          type="button"
          className="pixel-button pixel-button--small"
          onClick={() => onPrefill({ wallet: report.reported_id, x: context.reporter_tile?.x, y: context.reporter_tile?.y, at: Date.now() })}
        >
          Rollback…
        </button>
        <button type="button" className="pixel-button pixel-button--small pixel-button--go" onClick={() => onClose('resolved')}>
          Resolve
        </button>
        <button type="button" className="pixel-button pixel-button--small" onClick={() => onClose('dismissed')}>
          Dismiss
        </button>
      </div>
    </li>
  );
}

/** The open reports, oldest first, each with its context and actions (ban, rollback, resolve, dismiss). */
export function ReportQueue({ db, version, onChange, onPrefill }: { db: SupabaseClient; version: number; onChange(): void; onPrefill(prefill: Prefill): void }) {
  const [reports, setReports] = useState<Report[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void attempt(setError, async () => setReports(await listReports(db)));
  }, [db, version]);
  const close = (id: number, outcome: 'resolved' | 'dismissed') =>
    void attempt(setError, async () => {
      await resolveReport(db, id, outcome);
      onChange();
    });
  return (
    <Section title={`REPORTS (${reports?.length ?? 0} open)`} error={error}>
      {reports && reports.length === 0 ? <p className="chat-empty">No open reports.</p> : null}
      <ol className="ops-list">
        {reports?.map((report) => (
          <ReportCard key={report.id} report={report} onPrefill={onPrefill} onClose={(outcome) => close(report.id, outcome)} />
        ))}
      </ol>
    </Section>
  );
}

/** Bans: the form (wallet, scope, reason, optional end) and the list with Unban. */
export function BanPanel({ db, version, onChange, prefill }: { db: SupabaseClient; version: number; onChange(): void; prefill: Prefill }) {
  const [bans, setBans] = useState<Ban[]>([]);
  const [wallet, setWallet] = useState('');
  const [scope, setScope] = useState<BanScope>('play');
  const [reason, setReason] = useState('');
  const [hours, setHours] = useState('');
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void attempt(setError, async () => setBans(await listBans(db)));
  }, [db, version]);
  useEffect(() => {
    if (prefill.wallet && prefill.reason !== undefined) {
      setWallet(prefill.wallet);
      setReason(prefill.reason);
    }
  }, [prefill]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const until = hours.trim() === '' ? null : new Date(Date.now() + Number(hours) * 3600_000).toISOString();
    void attempt(setError, async () => {
      await ban(db, wallet.trim(), scope, reason.trim(), until);
      setWallet('');
      setReason('');
      setHours('');
      onChange();
    });
  };
  return (
    <Section title="BANS" error={error}>
      <form className="ops-form" onSubmit={submit} aria-label="Ban a wallet">
        <input className="pixel-input" placeholder="Wallet" aria-label="Wallet to ban" value={wallet} onChange={(e) => setWallet(e.target.value)} required />
        <select className="pixel-input" aria-label="Scope" value={scope} onChange={(e) => setScope(e.target.value as BanScope)}>
          <option value="play">play (no sign-in, no writes)</option>
          <option value="chat">chat (no chat or voice)</option>
        </select>
        <input className="pixel-input" placeholder="Reason" aria-label="Reason" maxLength={200} value={reason} onChange={(e) => setReason(e.target.value)} required />
        <input className="pixel-input" placeholder="Hours (empty: no end)" aria-label="Hours" inputMode="decimal" value={hours} onChange={(e) => setHours(e.target.value)} />
        <button type="submit" className="pixel-button pixel-button--small pixel-button--danger">
          Ban
        </button>
      </form>
      <ul className="ops-list">
        {bans.map((row) => (
          <li key={`${row.player_id}:${row.scope}`} className="ops-row" data-testid="ops-ban">
            <span>
              {shortWallet(row.player_id)} · {row.scope} · {row.reason} · {row.until ? `until ${time(row.until)}` : 'no end'} · by {shortWallet(row.by)}
            </span>
            <button
              type="button"
              className="pixel-button pixel-button--small"
              onClick={() =>
                void attempt(setError, async () => {
                  await unban(db, row.player_id, row.scope);
                  onChange();
                })
              }
            >
              Unban
            </button>
          </li>
        ))}
      </ul>
    </Section>
  );
}

/** The tile inspector: a tile's edits, newest first. */
export function TileInspector({ db }: { db: SupabaseClient }) {
  const [x, setX] = useState('0');
  const [y, setY] = useState('0');
  const [edits, setEdits] = useState<TileEdit[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void attempt(setError, async () => setEdits(await tileHistory(db, Number(x), Number(y))));
  };
  return (
    <Section title="TILE INSPECTOR" error={error}>
      <form className="ops-form" onSubmit={submit} aria-label="Inspect a tile">
        <input className="pixel-input" aria-label="Tile x" value={x} onChange={(e) => setX(e.target.value)} inputMode="numeric" />
        <input className="pixel-input" aria-label="Tile y" value={y} onChange={(e) => setY(e.target.value)} inputMode="numeric" />
        <button type="submit" className="pixel-button pixel-button--small">
          Inspect
        </button>
      </form>
      {edits && edits.length === 0 ? <p className="chat-empty">No edits of this tile in the last day.</p> : null}
      <ol className="ops-list">
        {edits?.map((edit) => (
          <li key={edit.id} className="ops-row" data-testid="ops-edit">
            {time(edit.created_at)} · {edit.actor_name ?? shortWallet(edit.actor_id)}{' '}
            {edit.after_type ? `placed ${edit.after_type}` : `removed ${edit.before_type}`}
            {edit.before_type && edit.after_type ? ` (was ${edit.before_type})` : ''}
          </li>
        ))}
      </ol>
    </Section>
  );
}

const counts = (result: RollbackResult) => `${result.removed} removed, ${result.restored} restored, ${result.skipped} skipped, ${result.claims} claims removed`;

/** The rollback's fields, as typed. */
interface RollbackFields {
  wallet: string;
  minutes: string;
  x: string;
  y: string;
  radius: string;
  claims: RollbackClaims;
}

/** The form choosing whose edits to roll back, since when, where and what becomes of its claims. */
function RollbackForm({ fields, onField, onPreview }: { fields: RollbackFields; onField(change: Partial<RollbackFields>): void; onPreview(event: FormEvent): void }) {
  return (
    <form className="ops-form" onSubmit={onPreview} aria-label="Roll back a wallet">
      <input className="pixel-input" placeholder="Wallet" aria-label="Wallet to roll back" value={fields.wallet} onChange={(e) => onField({ wallet: e.target.value })} required />
      <label className="name-menu-label">
        Minutes back
        <input className="pixel-input" aria-label="Minutes back" value={fields.minutes} onChange={(e) => onField({ minutes: e.target.value })} inputMode="numeric" />
      </label>
      <input className="pixel-input" aria-label="Centre x" value={fields.x} onChange={(e) => onField({ x: e.target.value })} inputMode="numeric" />
      <input className="pixel-input" aria-label="Centre y" value={fields.y} onChange={(e) => onField({ y: e.target.value })} inputMode="numeric" />
      <label className="name-menu-label">
        Radius (tiles)
        <input className="pixel-input" aria-label="Radius" value={fields.radius} onChange={(e) => onField({ radius: e.target.value })} inputMode="numeric" />
      </label>
      <select className="pixel-input" aria-label="Claims" value={fields.claims} onChange={(e) => onField({ claims: e.target.value as RollbackClaims })}>
        <option value="none">keep the wallet&apos;s claims</option>
        <option value="window">remove its claims made since then</option>
        <option value="all">remove all its claims</option>
      </select>
      <button type="submit" className="pixel-button pixel-button--small">
        Preview
      </button>
    </form>
  );
}

/** Rollback of a wallet's edits: preview first, then apply, then (if needed) undo. */
export function RollbackPanel({ db, onChange, prefill }: { db: SupabaseClient; onChange(): void; prefill: Prefill }) {
  const [fields, setFields] = useState<RollbackFields>({ wallet: '', minutes: '30', x: '0', y: '0', radius: '32', claims: 'none' });
  const [preview, setPreview] = useState<RollbackResult | null>(null);
  const [done, setDone] = useState<RollbackResult | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const onField = (change: Partial<RollbackFields>) => setFields((current) => ({ ...current, ...change }));
  useEffect(() => {
    if (prefill.wallet && prefill.reason === undefined) {
      const { wallet, x, y } = prefill;
      setFields((current) => ({
        ...current,
        wallet,
        ...(x !== undefined ? { x: String(x) } : {}),
        ...(y !== undefined ? { y: String(y) } : {}),
      }));
      setPreview(null);
    }
  }, [prefill]);
  const request = (): RollbackRequest => ({
    wallet: fields.wallet.trim(),
    since: new Date(Date.now() - Number(fields.minutes) * 60_000).toISOString(),
    x: Number(fields.x),
    y: Number(fields.y),
    radius: Number(fields.radius),
    claims: fields.claims,
  });
  const onPreview = (event: FormEvent) => {
    event.preventDefault();
    setMessage(null);
    void attempt(setError, async () => setPreview(await rollback(db, request(), true)));
  };
  const apply = () =>
    void attempt(setError, async () => {
      const result = await rollback(db, request(), false);
      setDone(result);
      setPreview(null);
      setMessage(`Rollback ${result.id}: ${counts(result)}`);
      onChange();
    });
  const undo = () =>
    void attempt(setError, async () => {
      const result = await undoRollback(db, done!.id!);
      setMessage(`Rollback ${result.id} undone: ${result.reverted} reverted, ${result.skipped} skipped`);
      setDone(null);
      onChange();
    });
  return (
    <Section title="ROLLBACK" error={error}>
      <RollbackForm fields={fields} onField={onField} onPreview={onPreview} />
      {preview ? (
        <p className="ops-row" data-testid="ops-preview">
          Preview: {counts(preview)}
          <button type="button" className="pixel-button pixel-button--small pixel-button--danger" onClick={apply}>
            Apply rollback
          </button>
        </p>
      ) : null}
      {message ? <p data-testid="ops-rollback-result">{message}</p> : null}
      {done?.id ? (
        <button type="button" className="pixel-button pixel-button--small" onClick={undo}>
          Undo rollback {done.id}
        </button>
      ) : null}
    </Section>
  );
}

/** The operators' log, newest first. */
export function OpsLogPanel({ db, version }: { db: SupabaseClient; version: number }) {
  const [entries, setEntries] = useState<OpsLogEntry[]>([]);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    void attempt(setError, async () => setEntries(await readLog(db)));
  }, [db, version]);
  return (
    <Section title="LOG" error={error}>
      <ol className="ops-list">
        {entries.map((entry) => (
          <li key={entry.id} className="ops-row" data-testid="ops-log-entry">
            {time(entry.created_at)} · {shortWallet(entry.operator_id)} · {entry.action} {entry.target ? shortWallet(entry.target) : ''}{' '}
            <code>{JSON.stringify(entry.details)}</code>
          </li>
        ))}
      </ol>
    </Section>
  );
}
