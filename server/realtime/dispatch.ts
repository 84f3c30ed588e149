import type { Database } from '../db/index.js';
import { DRAIN_LIMIT, drain } from './capture.js';
import type { VisibilityCheck } from './capture.js';
import { visibilitySql } from './catalog.js';
import type { Selection } from './bindings.js';
import type { Access, TableInfo } from './catalog.js';
import type { Binding, Channel, Conn } from './channel.js';
import { matchesFilter } from './filter.js';
import { MESSAGE_KIND } from './messages.js';
import { changeDataJson, parseChange } from './payload.js';
import type { ParsedChange } from './payload.js';
import { TableBindings } from './table-bindings.js';
import { writeFrames } from './delivery.js';
import { textFrame } from './wire.js';

/** Delivers captured changes to the bindings that match them, under each subscriber's RLS. */
export interface Dispatcher {
  /** Starts delivering changes of the channel's bindings. */
  add(channel: Channel): void;
  /** Stops delivering to the channel. */
  remove(channel: Channel): void;
  /** The channel's claims or access changed: its bindings are planned again from the next tick. */
  refresh(channel: Channel): void;
  /** Called on NOTIFY: drains and delivers, coalescing wake-ups that come while a tick runs (drains start at most every DRAIN_GAP_MS). */
  wake(): void;
  /** Resolves when no tick is running. */
  idle(): Promise<void>;
}

/**
 * How one binding receives in a tick, fixed when the tick begins: the check deciding its
 * changes (-1 when its access needs none), the access it had then narrowed to its `select`, and
 * the key of the frame it is sent when it is the only binding of its channel on the change.
 */
interface BindingPlan {
  check: number;
  /** The channel's access to the table when the tick began, which decides the whole tick. */
  granted: Access;
  access: Access;
  view: string;
  soloKey: string;
  /** Whether another binding of the same channel is on the same table. */
  shared: boolean;
}

/** The visibility checks of one tick (one per table and evaluation key) and the plan of every binding present when it began. */
interface Plan {
  checks: VisibilityCheck[];
  of: Map<Binding, BindingPlan>;
}

function eventMatches(binding: Binding, kind: string): boolean {
  return binding.event === '*' || binding.event === kind;
}

function needsCheck(access: Access): boolean {
  return access.mode === 'exists' || access.mode === 'claims';
}

/**
 * Least time between the starts of two drains while changes keep coming: a change that finds
 * the dispatcher idle is drained at once, and under a stream of changes (heartbeats of a
 * thousand players, 200 a second) each drain takes those of this long together, one query and
 * one pass over the subscribers for several changes instead of one each.
 */
export const DRAIN_GAP_MS = 20;

/**
 * Evaluation key: subscribers whose verdict cannot differ share one check. Under `exists`
 * (no policy reads the claims) that is everyone of one role; under `claims`, one role and
 * one set of claims.
 */
function evalKey(channel: Channel, access: Access): string {
  return access.mode === 'claims' ? `${channel.claims.role}\0${channel.claimsJson}` : channel.claims.role;
}

/** `access` narrowed to the columns a binding selected, with the primary key always kept (as on hosted). */
function selected(access: Access, select: Selection | null, table: TableInfo): Access {
  if (!select) return access;
  const chosen = select.columns;
  const pk = new Set(table.pk.map((col) => col.name));
  const columns = new Set(table.columns.map((col) => col.name).filter((name) => (chosen.has(name) || pk.has(name)) && (!access.columns || access.columns.has(name))));
  return { ...access, columns };
}

function viewKey(access: Access): string {
  return `${access.mode}:${access.columns ? [...access.columns].sort().join(',') : '*'}`;
}

/**
 * Creates the dispatcher; `onError` hears failed ticks, which are then retried on the next wake.
 * `onMessages` is handed the records of the realtime.messages inserts of each drain, in commit
 * order, after that drain's postgres_changes.
 */
export function createDispatcher(db: Database, onError: (error: unknown) => void, onMessages: (records: string[]) => void): Dispatcher {
  const byTable = new Map<number, TableBindings>();
  let running: Promise<void> | null = null;
  let again = false;
  /** The plan of the bindings present, kept from tick to tick until one comes, goes or changes. */
  let planned: Plan | null = null;

  /**
   * What a binding's plan keeps from tick to tick while its channel's access to the table and
   * claims stay the same, with the key of the visibility check it needs (null for none).
   */
  const views = new WeakMap<Binding, Omit<BindingPlan, 'check'> & { checkKey: string | null; claimsJson: string }>();
  /** How many bindings each channel has per table oid, counted once per channel (its bindings never change). */
  const perTable = new WeakMap<Channel, Map<number, number>>();

  function bindingsPerTable(channel: Channel): Map<number, number> {
    let counts = perTable.get(channel);
    if (counts) return counts;
    counts = new Map();
    for (const binding of channel.bindings) counts.set(binding.table.oid, (counts.get(binding.table.oid) ?? 0) + 1);
    perTable.set(channel, counts);
    return counts;
  }

  function viewOf(sub: Binding, granted: Access): Omit<BindingPlan, 'check'> & { checkKey: string | null } {
    const known = views.get(sub);
    if (known && known.granted === granted && known.claimsJson === sub.channel.claimsJson) return known;
    const access = selected(granted, sub.select, sub.table);
    const view = viewKey(access);
    const shared = (bindingsPerTable(sub.channel).get(sub.table.oid) ?? 0) > 1;
    const checkKey = needsCheck(granted) ? `${sub.table.oid}\0${evalKey(sub.channel, granted)}` : null;
    const made = { granted, access, view, soloKey: frameKey(sub.channel, [sub.id], view), shared, checkKey, claimsJson: sub.channel.claimsJson };
    views.set(sub, made);
    return made;
  }

  function plan(): Plan {
    if (planned) return planned;
    const checks: VisibilityCheck[] = [];
    const of = new Map<Binding, BindingPlan>();
    const index = new Map<string, number>();
    for (const [oid, subs] of byTable) {
      for (const sub of subs.all) {
        const granted = sub.channel.access.get(oid);
        if (!granted) continue;
        const view = viewOf(sub, granted);
        let check = -1;
        if (view.checkKey !== null) {
          const known = index.get(view.checkKey);
          if (known === undefined) {
            check = checks.length;
            index.set(view.checkKey, check);
            checks.push({ rel: oid, role: sub.channel.claims.role, claims: sub.channel.claimsJson, sql: visibilitySql(sub.table) });
          } else check = known;
        }
        of.set(sub, { check, ...view });
      }
    }
    planned = { checks, of };
    return planned;
  }

  /**
   * Whether `sub` receives change `ci`: event, access and the RLS verdict of its check first,
   * then its filter, on the columns it is delivered and may read only (see {@link filterColumns}):
   * a filter never costs a change the subscriber may not read, nor tells it anything of one.
   */
  function receives(sub: Binding, plan: BindingPlan | undefined, parsed: ParsedChange, ci: number, readable: (check: number, ci: number) => boolean): plan is BindingPlan {
    // Bindings that joined while this tick's changes were being read wait for the next tick.
    if (!plan) return false;
    const kind = parsed.change.kind;
    if (!eventMatches(sub, kind)) return false;
    const access = plan.granted;
    if (access.mode === 'hidden' && kind !== 'DELETE') return false;
    if (kind !== 'DELETE' && needsCheck(access) && parsed.record && !readable(plan.check, ci)) return false;
    if (sub.filter) {
      const row = kind === 'DELETE' ? parsed.old : parsed.record;
      if (!row || !matchesFilter(sub.filter, row, filterColumns(parsed, kind, access))) return false;
    }
    // The channel may have left or rejoined while visibility was being evaluated.
    return sub.channel.conn.channels.get(sub.channel.topic) === sub.channel;
  }

  /**
   * Encodes every change once per distinct (protocol, topic, binding ids, view), one buffer
   * shared by every socket it goes to, collects each socket's messages in commit order, then
   * hands them to the socket's bounded outbound queue. A binding alone on its channel and table
   * (the usual case) uses the frame key fixed by its plan; bindings sharing a channel are grouped
   * into one frame per column selection naming all of them.
   */
  function deliver(changes: ParsedChange[], of: Map<Binding, BindingPlan>, readable: (check: number, ci: number) => boolean): void {
    const touched = new Set<Conn>();
    const data = new Map<string, string>();
    const frames = new Map<string, Buffer>();
    const send = (channel: Channel, parsed: ParsedChange, key: string, view: string, access: Access, ids: number[]) => {
      let frame = frames.get(key);
      if (!frame) {
        let json = data.get(view);
        if (json === undefined) {
          json = changeDataJson(parsed, access);
          data.set(view, json);
        }
        frame = textFrame(frameText(channel, ids, json));
        frames.set(key, frame);
      }
      channel.conn.out.push(frame);
      touched.add(channel.conn);
    };
    changes.forEach((parsed, ci) => {
      const subs = byTable.get(parsed.table.oid);
      if (!subs) return;
      data.clear();
      frames.clear();
      let shared: Map<Channel, Map<string, { ids: number[]; plan: BindingPlan }>> | null = null;
      for (const sub of subs.candidates(parsed.change.kind === 'DELETE' ? parsed.old : parsed.record)) {
        const plan = of.get(sub);
        if (!receives(sub, plan, parsed, ci, readable)) continue;
        if (!plan.shared) {
          send(sub.channel, parsed, plan.soloKey, plan.view, plan.access, [sub.id]);
          continue;
        }
        shared ??= new Map();
        let bySelect = shared.get(sub.channel);
        if (!bySelect) shared.set(sub.channel, (bySelect = new Map()));
        const selectKey = sub.select?.key ?? '';
        const group = bySelect.get(selectKey);
        if (group) group.ids.push(sub.id);
        else bySelect.set(selectKey, { ids: [sub.id], plan });
      }
      if (shared) for (const [channel, bySelect] of shared) for (const { ids, plan } of bySelect.values()) {
        // Candidates come scanned first, then by value: the ids are put back in the order the client gave them.
        ids.sort((a, b) => a - b);
        send(channel, parsed, frameKey(channel, ids, plan.view), plan.view, plan.access, ids);
      }
    });
    for (const conn of touched) {
      writeFrames(conn, conn.out);
      conn.out = [];
    }
  }

  async function tick(): Promise<void> {
    for (let first = true; first || again; first = false) {
      const began = performance.now();
      again = false;
      const { checks, of } = plan();
      const drained = await drain(db, checks);
      if (drained.changes.length === DRAIN_LIMIT) again = true;
      const parsed: ParsedChange[] = [];
      const positions: number[] = [];
      const messages: string[] = [];
      drained.changes.forEach((change, position) => {
        if (change.kind === MESSAGE_KIND) {
          messages.push(change.record!);
          return;
        }
        const table = tableOf(change.rel);
        if (!table) return;
        parsed.push(parseChange(change, table));
        positions.push(position);
      });
      const readable = (check: number, ci: number) => !drained.failed.has(check) && drained.visible[check]!.has(positions[ci]!);
      if (parsed.length > 0) deliver(parsed, of, readable);
      if (messages.length > 0) onMessages(messages);
      const rest = began + DRAIN_GAP_MS - performance.now();
      if (again && rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  }

  function tableOf(oid: number): TableInfo | undefined {
    const subs = byTable.get(oid);
    if (!subs) return undefined;
    for (const sub of subs.all) return sub.table;
    return undefined;
  }

  return {
    add(channel) {
      planned = null;
      for (const binding of channel.bindings) {
        let subs = byTable.get(binding.table.oid);
        if (!subs) byTable.set(binding.table.oid, (subs = new TableBindings()));
        subs.add(binding);
      }
    },
    remove(channel) {
      planned = null;
      for (const binding of channel.bindings) {
        const subs = byTable.get(binding.table.oid);
        if (!subs) continue;
        subs.delete(binding);
        if (subs.size === 0) byTable.delete(binding.table.oid);
      }
    },
    refresh() {
      planned = null;
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

/** No column: what a filter may look at for a reader that is sent no row (no key, or none it may read). */
const NO_COLUMNS: ReadonlySet<string> = new Set();
/** The primary-key columns of each table, made once per table object. */
const keyColumns = new WeakMap<TableInfo, ReadonlySet<string>>();

function primaryKey(table: TableInfo): ReadonlySet<string> {
  let pk = keyColumns.get(table);
  if (!pk) keyColumns.set(table, (pk = new Set(table.pk.map((col) => col.name))));
  return pk;
}

/**
 * The columns a filter may look at for a reader with `access` (null for all): those it may read
 * of the row it is delivered. A DELETE on a table with row-level security is delivered its
 * primary key only (hosted: "delete events are not filterable" beyond the old row's identity),
 * so it is matched on those columns alone; the rest of a full old row would tell a subscriber
 * about a deleted row it may never have read. A reader sent no row at all (`nokey`, `denied`)
 * matches no filter.
 */
function filterColumns(parsed: ParsedChange, kind: string, access: Access): ReadonlySet<string> | null {
  if (access.mode === 'nokey' || access.mode === 'denied') return NO_COLUMNS;
  if (kind !== 'DELETE' || !parsed.table.rls) return access.columns;
  // Every other mode may read the whole primary key.
  return primaryKey(parsed.table);
}

/** Channels receiving the same change with the same key are sent the same frame. */
function frameKey(channel: Channel, ids: number[], view: string): string {
  return `${channel.conn.vsn}\0${channel.topic}\0${ids.join(',')}\0${view}`;
}

function frameText(channel: Channel, ids: number[], data: string): string {
  const topic = JSON.stringify(channel.topic);
  const payload = `{"ids":[${ids.join(',')}],"data":${data}}`;
  if (channel.conn.vsn === '2.0.0') return `[null,null,${topic},"postgres_changes",${payload}]`;
  return `{"join_ref":null,"ref":null,"topic":${topic},"event":"postgres_changes","payload":${payload}}`;
}
