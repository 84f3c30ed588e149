/**
 * The filter operators of a table request (PostgREST's operator table): what each means in SQL and
 * which kinds of value they take. The parser, the bounds and the SQL writer all read them here.
 */

/** The SQL operator of each binary filter operator (PostgREST's operator table). */
const OPERATORS = {
  eq: '=', neq: '<>', gt: '>', gte: '>=', lt: '<', lte: '<=', like: 'like', ilike: 'ilike', match: '~', imatch: '~*',
  cs: '@>', cd: '<@', ov: '&&', sl: '<<', sr: '>>', nxl: '&>', nxr: '&<', adj: '-|-', isdistinct: 'is distinct from',
} as const;

/** Full-text search operators and the function that turns their value into a tsquery. */
const FTS = { fts: 'to_tsquery', plfts: 'plainto_tsquery', phfts: 'phraseto_tsquery', wfts: 'websearch_to_tsquery' } as const;

/** Operators whose value is one literal of the column's own type (arrays, ranges, jsonb), which may list elements. */
export const TYPED_OPERATORS: ReadonlySet<string> = new Set(['cs', 'cd', 'ov', 'sl', 'sr', 'nxl', 'nxr', 'adj']);

/** Operators whose value is a pattern (bounded by `REQUEST_BOUNDS.patternChars` in bounds.ts). */
export const PATTERN_OPERATORS: ReadonlySet<string> = new Set(['like', 'ilike', 'match', 'imatch']);

/** A binary filter operator (`eq`, `like`, `cs`, ...). */
export type BinaryOperator = keyof typeof OPERATORS;

/** A full-text search operator (`fts`, `plfts`, `phfts`, `wfts`). */
export type FtsOperator = keyof typeof FTS;

/** Whether `op` is a binary filter operator. */
export function isBinaryOperator(op: string): op is BinaryOperator {
  return op in OPERATORS;
}

/** The SQL operator of a binary filter operator. */
export function operatorSql(op: BinaryOperator): string {
  return OPERATORS[op];
}

/** The tsquery function of a full-text operator. */
export function ftsFunction(op: FtsOperator): string {
  return FTS[op];
}

/** Whether `op` is a full-text operator. */
export function isFts(op: string): op is FtsOperator {
  return op in FTS;
}
