import type { Database } from '../db/index.js';
import { DRAIN_LIMIT, drainChanges } from './capture.js';
import { visibilitySql } from './catalog.js';
import type { Access, TableInfo } from './catalog.js';
import type { Binding, Channel, Conn } from './channel.js';
import { matchesFilter } from './filter.js';
import { changeDataJson, parseChange } from './payload.js';
import type { ParsedChange } from './payload.js';
import { textFrame, writeFrames } from './wire.js';

/** One row change that passed a binding's event and filter, waiting for its RLS verdict. */
interface Candidate {
  change: number;
  channel: Channel;
  binding: Binding;
  access: Access;
  /** Index of the visibility check deciding it, or -1 when no check is needed. */
  check: number;
}

interface Check {
  role: string;
  claims: string;
  sql: string;
  keys: Record<string, unknown>[];
  seen: Set<number>;
}

/** Delivers captured changes to the bindings that match them, under each subscriber's RLS. */
export interface Dispatcher {
  /** Starts delivering changes of the channel's bindings. */
  add(channel: Channel): void;
  /** Stops delivering to the channel. */
  remove(channel: Channel): void;
  /** Called on NOTIFY: drains and delivers, coalescing wake-ups that come while a tick runs. */
  wake(): void;
  /** Resolves when no tick is running. */
  idle(): Promise<void>;
}

function eventMatches(binding: Binding, kind: string): boolean {
  return binding.event === '*' || binding.event === kind;
}

/** Evaluation key: subscribers whose verdict cannot differ share one check. */
function evalKey(channel: Channel, access: Access): string {
  return access.mode === 'claims' ? `${channel.claims.role}\0${channel.claimsJson}` : channel.claims.role;
}

function viewKey(access: Access): string {
  return `${access.mode}:${access.columns ? [...access.columns].sort().join(',') : '*'}`;
}

/** Creates the dispatcher; `onError` hears failed ticks, which are then retried on the next wake. */
export function createDispatcher(db: Database, onError: (error: unknown) => void): Dispatcher {
  const byTable = new Map<number, Set<Binding>>();
  let running: Promise<void> | null = null;
  let again = false;

  function collect(changes: ParsedChange[]): { candidates: Candidate[]; checks: Check[] } {
    const candidates: Candidate[] = [];
    const checks: Check[] = [];
    const checkIndex = new Map<string, number>();
    changes.forEach((parsed, ci) => {
      const subs = byTable.get(parsed.table.oid);
      if (!subs) return;
      const kind = parsed.change.kind;
      const filterRow = kind === 'DELETE' ? parsed.old : parsed.record;
      for (const sub of subs) {
        if (!eventMatches(sub, kind)) continue;
        if (sub.filter && !(filterRow && matchesFilter(sub.filter, filterRow, parsed.table.types.get(sub.filter.column) ?? 'text'))) continue;
        const access = sub.channel.access.get(parsed.table.oid);
        if (!access || (access.mode === 'hidden' && kind !== 'DELETE')) continue;
        let check = -1;
        if (kind !== 'DELETE' && (access.mode === 'exists' || access.mode === 'claims') && parsed.record) {
          check = addCheck(checks, checkIndex, parsed, ci, sub.channel, access);
        }
        candidates.push({ change: ci, channel: sub.channel, binding: sub, access, check });
      }
    });
    return { candidates, checks };
  }

  function addCheck(checks: Check[], index: Map<string, number>, parsed: ParsedChange, ci: number, channel: Channel, access: Access): number {
    const key = `${parsed.table.oid}\0${evalKey(channel, access)}`;
    let n = index.get(key);
    if (n === undefined) {
      n = checks.length;
      index.set(key, n);
      checks.push({ role: channel.claims.role, claims: channel.claimsJson, sql: visibilitySql(parsed.table), keys: [], seen: new Set() });
    }
    const check = checks[n];
    if (!check.seen.has(ci) && parsed.record) {
      check.seen.add(ci);
      const key: Record<string, unknown> = { i: ci };
      for (const col of parsed.table.pk) key[col.name] = parsed.record[col.name];
      check.keys.push(key);
    }
    return n;
  }

  async function visible(checks: Check[]): Promise<Set<string>> {
    const result = new Set<string>();
    if (checks.length === 0) return result;
    const payload = JSON.stringify(checks.map(({ role, claims, sql, keys }) => ({ role, claims, sql, keys })));
    const { rows } = await db.query<{ c: number; i: number; failed: boolean }>('select c, i, failed from realtime.visible($1::jsonb)', [payload]);
    const failed = new Set(rows.filter((row) => row.failed).map((row) => row.c));
    for (const row of rows) if (!failed.has(row.c)) result.add(`${row.c}:${row.i}`);
    return result;
  }

  function deliver(changes: ParsedChange[], candidates: Candidate[], seen: Set<string>): void {
    const dataCache = new Map<string, string>();
    const frameCache = new Map<string, Buffer>();
    const touched = new Set<Conn>();
    let i = 0;
    while (i < candidates.length) {
      const ci = candidates[i].change;
      const groups = new Map<Channel, { ids: number[]; access: Access }>();
      for (; i < candidates.length && candidates[i].change === ci; i++) {
        const cand = candidates[i];
        if (cand.check >= 0 && !seen.has(`${cand.check}:${ci}`)) continue;
        // The channel may have left or rejoined while visibility was being evaluated.
        if (cand.channel.conn.channels.get(cand.channel.topic) !== cand.channel) continue;
        const group = groups.get(cand.channel);
        if (group) group.ids.push(cand.binding.id);
        else groups.set(cand.channel, { ids: [cand.binding.id], access: cand.access });
      }
      for (const [channel, { ids, access }] of groups) {
        const view = viewKey(access);
        const frameKey = `${channel.conn.vsn}\0${channel.topic}\0${ids.join(',')}\0${view}`;
        let frame = frameCache.get(frameKey);
        if (!frame) {
          let data = dataCache.get(view);
          if (data === undefined) {
            data = changeDataJson(changes[ci], access);
            dataCache.set(view, data);
          }
          frame = textFrame(frameText(channel, ids, data));
          frameCache.set(frameKey, frame);
        }
        channel.conn.out.push(frame);
        touched.add(channel.conn);
      }
      dataCache.clear();
      frameCache.clear();
    }
    for (const conn of touched) {
      writeFrames(conn.socket, conn.out);
      conn.out = [];
    }
  }

  async function tick(): Promise<void> {
    do {
      again = false;
      const drained = await drainChanges(db);
      if (drained.length === DRAIN_LIMIT) again = true;
      const parsed: ParsedChange[] = [];
      for (const change of drained) {
        const table = tableOf(change.rel);
        if (table) parsed.push(parseChange(change, table));
      }
      const { candidates, checks } = collect(parsed);
      if (candidates.length > 0) deliver(parsed, candidates, await visible(checks));
    } while (again);
  }

  function tableOf(oid: number): TableInfo | undefined {
    const subs = byTable.get(oid);
    if (!subs) return undefined;
    for (const sub of subs) return sub.table;
    return undefined;
  }

  return {
    add(channel) {
      for (const binding of channel.bindings) {
        let subs = byTable.get(binding.table.oid);
        if (!subs) byTable.set(binding.table.oid, (subs = new Set()));
        subs.add(binding);
      }
    },
    remove(channel) {
      for (const binding of channel.bindings) {
        const subs = byTable.get(binding.table.oid);
        if (!subs) continue;
        for (const sub of subs) if (sub.channel === channel) subs.delete(sub);
        if (subs.size === 0) byTable.delete(binding.table.oid);
      }
    },
    wake() {
      if (running) {
        again = true;
        return;
      }
      running = tick()
        .catch(onError)
        .finally(() => {
          running = null;
        });
    },
    idle: () => running ?? Promise.resolve(),
  };
}

function frameText(channel: Channel, ids: number[], data: string): string {
  const topic = JSON.stringify(channel.topic);
  const payload = `{"ids":[${ids.join(',')}],"data":${data}}`;
  if (channel.conn.vsn === '2.0.0') return `[null,null,${topic},"postgres_changes",${payload}]`;
  return `{"join_ref":null,"ref":null,"topic":${topic},"event":"postgres_changes","payload":${payload}}`;
}
