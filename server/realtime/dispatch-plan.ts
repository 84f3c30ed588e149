import type { Selection } from './bindings.js';
import { checkText, type VisibilityCheck } from './capture.js';
import { oldVisibilitySql, visibilitySql } from './catalog.js';
import type { Access, TableInfo } from './catalog.js';
import type { Binding, Channel } from './channel.js';
import type { TableBindings } from './table-bindings.js';

/**
 * How one binding receives in a tick, fixed when the tick begins: the check deciding its
 * changes (-1 when its access needs none), the access it had then narrowed to its `select`, and
 * the key of the frame it is sent when it is the only binding of its channel on the change.
 */
export interface BindingPlan {
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
export interface Plan {
  checks: VisibilityCheck[];
  of: Map<Binding, BindingPlan>;
}

/** What a binding's plan keeps from tick to tick, with the key of the visibility check it needs (null for none). */
type View = Omit<BindingPlan, 'check'> & { checkKey: string | null; claimsJson: string; checkText?: string };

/** Whether a subscriber with `access` needs a visibility check of each change (its verdict depends on the row). */
export function needsCheck(access: Access): boolean {
  return access.mode === 'exists' || access.mode === 'claims';
}

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

/** Channels receiving the same change with the same key are sent the same frame. */
export function frameKey(channel: Channel, ids: number[], view: string): string {
  return `${channel.conn.vsn}\0${channel.topic}\0${ids.join(',')}\0${view}`;
}

/**
 * Plans the ticks of the bindings in `byTable`: the plan of the bindings present is kept from
 * tick to tick until one comes, goes or changes ({@link invalidate}), and each binding's view
 * while its channel's access and claims stay the same.
 */
export class Planner {
  private planned: Plan | null = null;
  private readonly views = new WeakMap<Binding, View>();
  /** How many bindings each channel has per table oid, counted once per channel (its bindings never change). */
  private readonly perTable = new WeakMap<Channel, Map<number, number>>();

  constructor(private readonly byTable: Map<number, TableBindings>) {}

  /**
   * `channel` came, went or its claims or access changed: the next tick plans again, unless it
   * has no postgres_changes binding (a broadcast or presence channel changes no plan).
   */
  invalidate(channel: Pick<Channel, 'bindings'>): void {
    if (channel.bindings.length > 0) this.planned = null;
  }

  /** The plan of the bindings present now: one visibility check per table and evaluation key. */
  plan(): Plan {
    if (this.planned) return this.planned;
    const checks: VisibilityCheck[] = [];
    const of = new Map<Binding, BindingPlan>();
    const index = new Map<string, number>();
    for (const [oid, subs] of this.byTable) {
      for (const sub of subs.all) {
        const granted = sub.channel.access.get(oid);
        if (!granted) continue;
        const view = this.viewOf(sub, granted);
        let check = -1;
        if (view.checkKey !== null) {
          const known = index.get(view.checkKey);
          if (known === undefined) {
            check = checks.length;
            index.set(view.checkKey, check);
            // The check's text is kept with the binding's view: a crowd's plans change often, its checks seldom.
            view.checkText ??= checkText({
              rel: oid, role: sub.channel.claims.role, claims: sub.channel.claimsJson, sql: visibilitySql(sub.table),
              old_sql: granted.policy === null ? null : oldVisibilitySql(sub.table, granted.policy),
            });
            checks.push({ rel: oid, text: view.checkText, shareKey: granted.mode === 'exists' ? view.checkKey : null });
          } else check = known;
        }
        of.set(sub, { check, ...view });
      }
    }
    this.planned = { checks, of };
    return this.planned;
  }

  private bindingsPerTable(channel: Channel): Map<number, number> {
    let counts = this.perTable.get(channel);
    if (counts) return counts;
    counts = new Map();
    for (const binding of channel.bindings) counts.set(binding.table.oid, (counts.get(binding.table.oid) ?? 0) + 1);
    this.perTable.set(channel, counts);
    return counts;
  }

  private viewOf(sub: Binding, granted: Access): View {
    const known = this.views.get(sub);
    if (known && known.granted === granted && known.claimsJson === sub.channel.claimsJson) return known;
    const access = selected(granted, sub.select, sub.table);
    const view = viewKey(access);
    const shared = (this.bindingsPerTable(sub.channel).get(sub.table.oid) ?? 0) > 1;
    const checkKey = needsCheck(granted) ? `${sub.table.oid}\0${evalKey(sub.channel, granted)}` : null;
    const made = { granted, access, view, soloKey: frameKey(sub.channel, [sub.id], view), shared, checkKey, claimsJson: sub.channel.claimsJson };
    this.views.set(sub, made);
    return made;
  }
}
