import type { FunctionInfo, TableInfo } from './catalog.js';
import type { Relationship } from './embed.js';
import type { BinaryOperator, FtsOperator } from './operators.js';

// What a table request asks for once its query string is parsed (by query.ts), as the bounds
// (bounds.ts) check it and the SQL writer (sql.ts) turns it into a statement.

/** A column, optionally followed by JSON steps (`data->a->>b`). */
export interface FieldRef {
  column: string;
  /** `->` steps (JSON) then at most a last `->>` step (text). Numeric keys index arrays. */
  path: { arrow: '->' | '->>'; key: string }[];
}

/** One `field=op.value` condition. */
export type Condition = { kind: 'condition'; field: FieldRef; negate: boolean } & (
  | { op: BinaryOperator; value: string; quantifier?: 'any' | 'all'; values?: string[] }
  | { op: 'in'; values: string[] }
  | { op: 'is'; value: 'null' | 'not_null' | 'true' | 'false' | 'unknown' }
  | { op: FtsOperator; value: string; config?: string }
);

/** An `and`/`or` group of conditions and groups. */
export interface LogicTree {
  kind: 'logic';
  op: 'and' | 'or';
  negate: boolean;
  children: Filter[];
}

/** A condition or a logic tree. */
export type Filter = Condition | LogicTree;

/** One selected value: a field with an optional cast and output name. */
export interface SelectField {
  /** The column; for a computed column, the function's name with no JSON steps. */
  field: FieldRef;
  /** A computed column: the function of the row that gives the value. */
  computed?: FunctionInfo;
  /**
   * An aggregate of the field (`col.sum()`), or `count()` of the rows when the column is ''. The
   * other fields of the same select are then its GROUP BY.
   */
  aggregate?: Aggregate;
  cast?: string;
  /** The JSON key of the value in the response. */
  name: string;
}

/** The aggregate functions a select may apply (PostgREST's `db-aggregates-enabled`). */
export const AGGREGATES = ['count', 'sum', 'avg', 'min', 'max'] as const;

/** One of {@link AGGREGATES}. */
export type Aggregate = (typeof AGGREGATES)[number];

/** One `order` term. */
export interface OrderTerm {
  field: FieldRef;
  descending: boolean;
  nulls?: 'first' | 'last';
}

/** An embedded resource (`alias:target!hint!inner(select)`) and what is asked of its rows. */
export interface EmbedQuery {
  /** The JSON key of the embedded value. */
  name: string;
  table: TableInfo;
  relationship: Relationship;
  /** `!inner`, or a `<name>=not.is.null` filter: parents without a matching row are left out. */
  inner: boolean;
  /** `<name>=is.null`: only parents without a matching row. */
  absent: boolean;
  /** False for `target()`: used to filter only, left out of the response. */
  shown: boolean;
  /** `...target(...)`: its fields are the parent's (to-one), or arrays of them in the parent (to-many). */
  spread: boolean;
  query: RequestQuery;
}

/** What the query string of a table request asks for. */
export interface RequestQuery {
  select: SelectField[];
  /** The number of items the select lists as written: `*`, each field and each embedded resource count one. */
  selectItems: number;
  embeds: EmbedQuery[];
  filters: Filter[];
  order: OrderTerm[];
  limit?: number;
  offset: number;
  /** `columns` of an insert or upsert, if given. */
  columns?: string[];
  onConflict?: string[];
}
