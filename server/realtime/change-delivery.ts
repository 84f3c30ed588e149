import type { Access, TableInfo } from './catalog.js';
import type { Binding, Channel, Conn } from './channel.js';
import { writeFrames } from './delivery.js';
import { frameKey, needsCheck } from './dispatch-plan.js';
import type { BindingPlan } from './dispatch-plan.js';
import { matchesFilter } from './filter.js';
import { changeDataJson } from './payload.js';
import type { ParsedChange } from './payload.js';
import type { TableBindings } from './table-bindings.js';
import { textFrame } from './wire.js';

/**
 * Whether change `ci` passed visibility check `check` in this tick: its row as it stands now, or
 * (`old`) the old row image of an update or delete under the reader's read policies.
 */
export type Readable = (check: number, ci: number, old: boolean) => boolean;

function eventMatches(binding: Binding, kind: string): boolean {
  return binding.event === '*' || binding.event === kind;
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
 * primary key only (as on hosted), so it is matched on those columns alone. A reader sent no
 * row at all (`nokey`) matches no filter.
 */
function filterColumns(parsed: ParsedChange, kind: string, access: Access): ReadonlySet<string> | null {
  if (access.mode === 'nokey') return NO_COLUMNS;
  if (kind !== 'DELETE' || !parsed.table.rls) return access.columns;
  // Every other mode may read the whole primary key.
  return primaryKey(parsed.table);
}

/**
 * Whether `sub` receives change `ci`. An event tells no more than a read: a reader that may
 * read no row of the table (`hidden`, `denied`) hears none of its changes; under `claims`, an
 * insert or update goes to it only when it can read the row now, and a delete only when its read
 * policies let it read the deleted row (the old image, which cannot be re-read). Then its filter,
 * on the columns it is delivered and may read only (see {@link filterColumns}): a filter never
 * costs a change the subscriber may not read, nor tells it anything of one.
 */
function receives(sub: Binding, plan: BindingPlan | undefined, parsed: ParsedChange, ci: number, readable: Readable): plan is BindingPlan {
  // Bindings that joined while this tick's changes were being read wait for the next tick.
  if (!plan) return false;
  const kind = parsed.change.kind;
  if (!eventMatches(sub, kind)) return false;
  const access = plan.granted;
  if (access.mode === 'hidden' || access.mode === 'denied') return false;
  if (kind === 'DELETE' ? !oldReadable(plan, ci, readable) : needsCheck(access) && !readable(plan.check, ci, false)) return false;
  if (sub.filter) {
    const row = kind === 'DELETE' ? parsed.old : parsed.record;
    if (!row || !matchesFilter(sub.filter, row, filterColumns(parsed, kind, access))) return false;
  }
  // The channel may have left or rejoined while visibility was being evaluated.
  return sub.channel.conn.channels.get(sub.channel.topic) === sub.channel;
}

/**
 * Whether the reader could have read the old row of change `ci` (an update or a delete): always
 * when its read does not depend on the row's values, else as its read policies judge the image.
 */
function oldReadable(plan: BindingPlan, ci: number, readable: Readable): boolean {
  return plan.granted.policy === null || readable(plan.check, ci, true);
}

/** Whether a reader that receives update `ci` is sent its old row: only when it could have read the row before the update. */
function seesOld(plan: BindingPlan, parsed: ParsedChange, ci: number, readable: Readable): boolean {
  return parsed.change.kind !== 'UPDATE' || oldReadable(plan, ci, readable);
}

/** The suffix of the view and frame keys of a reader not sent the old row. */
const WITHOUT_OLD = '\0without-old';

function frameText(channel: Channel, ids: number[], data: string): string {
  const topic = JSON.stringify(channel.topic);
  const payload = `{"ids":[${ids.join(',')}],"data":${data}}`;
  if (channel.conn.vsn === '2.0.0') return `[null,null,${topic},"postgres_changes",${payload}]`;
  return `{"join_ref":null,"ref":null,"topic":${topic},"event":"postgres_changes","payload":${payload}}`;
}

/**
 * Encodes every change once per distinct (protocol, topic, binding ids, view), one buffer
 * shared by every socket it goes to, collects each socket's messages in commit order, then
 * hands them to the socket's bounded outbound queue. A binding alone on its channel and table
 * (the usual case) uses the frame key fixed by its plan; bindings sharing a channel are grouped
 * into one frame per column selection naming all of them.
 */
export function deliverChanges(byTable: Map<number, TableBindings>, changes: ParsedChange[], of: Map<Binding, BindingPlan>, readable: Readable): void {
  const touched = new Set<Conn>();
  const data = new Map<string, string>();
  const frames = new Map<string, Buffer>();
  const send = (channel: Channel, parsed: ParsedChange, shown: { key: string; view: string; withOld: boolean }, access: Access, ids: number[]) => {
    const key = shown.withOld ? shown.key : shown.key + WITHOUT_OLD;
    const view = shown.withOld ? shown.view : shown.view + WITHOUT_OLD;
    let frame = frames.get(key);
    if (!frame) {
      let json = data.get(view);
      if (json === undefined) {
        json = changeDataJson(parsed, access, shown.withOld);
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
        send(sub.channel, parsed, { key: plan.soloKey, view: plan.view, withOld: seesOld(plan, parsed, ci, readable) }, plan.access, [sub.id]);
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
      send(channel, parsed, { key: frameKey(channel, ids, plan.view), view: plan.view, withOld: seesOld(plan, parsed, ci, readable) }, plan.access, ids);
    }
  });
  for (const conn of touched) {
    writeFrames(conn, conn.out);
    conn.out = [];
  }
}
