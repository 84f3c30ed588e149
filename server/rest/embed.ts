import { qualified, type Catalog, type ForeignKey, type FunctionInfo, type TableInfo } from './catalog.js';
import { RestError } from './errors.js';

/** How an embedded resource joins its parent. */
export type Relationship =
  | { cardinality: 'many-to-one' | 'one-to-one'; key: ForeignKey; parentHoldsKey: true }
  | { cardinality: 'one-to-many' | 'one-to-one'; key: ForeignKey; parentHoldsKey: false }
  | { cardinality: 'many-to-many'; junction: string; toParent: ForeignKey; toChild: ForeignKey }
  /**
   * A computed relationship: `fn` takes the parent's row (cast to `rowType`) and returns rows of
   * the embedded table; to-one when it returns one row or is declared `ROWS 1`.
   */
  | { cardinality: 'computed'; fn: FunctionInfo; toOne: boolean; rowType: string };

/** A foreign-key relationship (every kind but a computed one). */
type KeyRelationship = Exclude<Relationship, { cardinality: 'computed' }>;

/** A relationship with the table it reaches. */
export interface ResolvedEmbed {
  table: TableInfo;
  relationship: Relationship;
}

const sameSet = (a: string[], b: string[]) => a.length === b.length && a.every((x) => b.includes(x));
const isUnique = (table: TableInfo | undefined, columns: string[]) => !!table?.uniques.some((u) => sameSet(u, columns));

function describe(parent: string, child: string, rel: KeyRelationship) {
  if (rel.cardinality === 'many-to-many') {
    return {
      cardinality: rel.cardinality,
      embedding: `${parent} with ${child}`,
      relationship: `${rel.junction} using ${rel.toParent.constraint}(${rel.toParent.columns.join(', ')}) and ${rel.toChild.constraint}(${rel.toChild.columns.join(', ')})`,
    };
  }
  const k = rel.key;
  const [from, to] = rel.parentHoldsKey
    ? [`${k.table}(${k.columns.join(', ')})`, `${k.foreignTable}(${k.foreignColumns.join(', ')})`]
    : [`${k.foreignTable}(${k.foreignColumns.join(', ')})`, `${k.table}(${k.columns.join(', ')})`];
  return { cardinality: rel.cardinality, embedding: `${parent} with ${child}`, relationship: `${k.constraint} using ${from} and ${to}` };
}

/**
 * Finds the relationship `parent` → `target` (a table, or a foreign key column of the parent for
 * many-to-one), narrowed by `hint` (a constraint name, a key column or a junction table), as
 * PostgREST does. PGRST200 when there is none, PGRST201 (300) when several remain.
 */
export function resolveEmbed(catalog: Catalog, parent: TableInfo, target: string, hint: string | undefined): ResolvedEmbed {
  const computed = computedRelationship(catalog, parent, target);
  if (computed) return computed;
  let candidates: { table: string; relationship: KeyRelationship; byColumn?: boolean }[] = [];
  const parentTable = catalog.tables.get(parent.name);
  for (const key of catalog.foreignKeys) {
    const self = key.table === key.foreignTable;
    // Many-to-one: the parent holds the key. Reached by the table's name (not for a key to the
    // same table, whose name means its children) or by the key column's name.
    if (key.table === parent.name) {
      const byName = key.foreignTable === target && !self;
      const byColumn = key.columns.length === 1 && key.columns[0] === target;
      const hinted = hint === undefined || hint === key.constraint || key.columns.includes(hint) || key.foreignColumns.includes(hint);
      if ((byName && hinted) || (byColumn && (hint === undefined || hint === key.foreignTable))) {
        const cardinality = isUnique(parentTable, key.columns) ? 'one-to-one' : 'many-to-one';
        candidates.push({ table: key.foreignTable, relationship: { cardinality, key, parentHoldsKey: true }, byColumn: !byName });
      }
    }
    // One-to-many: the child holds the key to the parent. A self-reference is hinted by column only.
    if (key.foreignTable === parent.name && key.table === target) {
      const hinted = hint === undefined || key.columns.includes(hint) || (!self && (hint === key.constraint || key.foreignColumns.includes(hint)));
      if (hinted) {
        const cardinality = isUnique(catalog.tables.get(key.table), key.columns) ? 'one-to-one' : 'one-to-many';
        candidates.push({ table: key.table, relationship: { cardinality, key, parentHoldsKey: false } });
      }
    }
  }
  // Many-to-many through a junction whose keys to both sides are part of its primary key.
  for (const toParent of catalog.foreignKeys) {
    if (toParent.foreignTable !== parent.name) continue;
    const junction = catalog.tables.get(toParent.table);
    if (!junction || toParent.table === target) continue;
    for (const toChild of catalog.foreignKeys) {
      if (toChild === toParent || toChild.table !== toParent.table || toChild.foreignTable !== target) continue;
      const keyed = [...toParent.columns, ...toChild.columns].every((c) => junction.primaryKey.includes(c));
      if (keyed && (hint === undefined || hint === junction.name)) {
        candidates.push({ table: target, relationship: { cardinality: 'many-to-many', junction: junction.name, toParent, toChild } });
      }
    }
  }
  // A key column names the key's own table before the views that show it.
  if (candidates.length > 1 && candidates.every((c) => c.byColumn)) {
    const tables = candidates.filter((c) => !catalog.tables.get(c.table)?.view);
    if (tables.length) candidates = tables;
  }
  if (candidates.length === 1) return { table: catalog.tables.get(candidates[0]!.table)!, relationship: candidates[0]!.relationship };
  if (!candidates.length) {
    const using = hint === undefined ? '' : ` using the hint '${hint}'`;
    throw new RestError(400, 'PGRST200', `Could not find a relationship between '${parent.name}' and '${target}' in the schema cache`,
      `Searched for a foreign key relationship between '${parent.name}' and '${target}'${using} in the schema '${parent.schema}', but no matches were found.`);
  }
  const names = candidates.map((c) => (c.relationship.cardinality === 'many-to-many' ? c.relationship.junction : c.relationship.key.constraint));
  const error = new RestError(300, 'PGRST201', `Could not embed because more than one relationship was found for '${parent.name}' and '${target}'`, null,
    `Try changing '${target}' to one of the following: ${names.map((n) => `'${target}!${n}'`).join(', ')}. Find the desired relationship in the 'details' key.`);
  error.detailList = candidates.map((c) => describe(parent.name, target, c.relationship));
  throw error;
}

/**
 * The computed relationship `parent` → `name`: a function of the schema named `name` whose one
 * argument is `parent`'s row type and that returns rows of an exposed table or view.
 */
function computedRelationship(catalog: Catalog, parent: TableInfo, name: string): ResolvedEmbed | null {
  const fn = catalog.functions.get(name)?.find((f) => f.rowArg === parent.name && f.returnsTable !== null);
  if (!fn) return null;
  const toOne = !fn.returnsSet || fn.rows === 1;
  return { table: catalog.tables.get(fn.returnsTable!)!, relationship: { cardinality: 'computed', fn, toOne, rowType: qualified(parent) } };
}

/** The computed column `name` of `table`: a function of the schema taking its row and returning no rows of a table. */
export function computedColumn(catalog: Catalog, table: TableInfo, name: string): FunctionInfo | undefined {
  return catalog.functions.get(name)?.find((f) => f.rowArg === table.name && f.returnsTable === null && !f.returnsSet);
}
