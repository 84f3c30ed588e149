import pg from 'pg';

/** PostgreSQL's own refusal of a NUL character in text (SQLSTATE 22021), raised before anything is sent. */
export class NulCharacterError extends Error {
  readonly code = '22021';
  readonly severity = 'ERROR';
  constructor() {
    super('invalid byte sequence for encoding "UTF8": 0x00');
  }
}

function text(value: string): string {
  // In a query string a NUL would end the text: refused as the server refuses it in a parameter.
  if (value.includes('\0')) throw new NulCharacterError();
  return value;
}

/** One element of an array literal, quoted as PostgreSQL's array input reads it. */
function arrayElement(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (Array.isArray(value)) return arrayText(value);
  return `"${text(scalarText(value)).replace(/[\\"]/g, '\\$&')}"`;
}

function arrayText(values: readonly unknown[]): string {
  return `{${values.map(arrayElement).join(',')}}`;
}

function scalarText(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/**
 * `value` as an SQL literal that PostgreSQL reads as it reads the same value sent as a query
 * parameter (an untyped literal, typed by where it stands): null, text, numbers and booleans as
 * their text, arrays in array syntax, objects as JSON. A NUL character is refused.
 */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return pg.escapeLiteral(arrayText(value));
  return pg.escapeLiteral(text(scalarText(value)));
}

/**
 * `sql` with each placeholder `$n` replaced by the literal of `params[n - 1]`, so that the
 * statement can travel in one script with others. Quoted identifiers and string literals are
 * skipped, so a `$1` inside them stays as written.
 */
export function inlineParams(sql: string, params: readonly unknown[]): string {
  if (params.length === 0) return sql;
  let out = '';
  let at = 0;
  for (let i = 0; i < sql.length; i++) {
    const ch = sql[i];
    if (ch === '"' || ch === "'") {
      // Doubled quotes inside come out as two quoted stretches, which is the same.
      const end = sql.indexOf(ch, i + 1);
      i = end < 0 ? sql.length : end;
      continue;
    }
    if (ch !== '$') continue;
    const digits = /^\d+/.exec(sql.slice(i + 1, i + 12));
    if (!digits || /[\w$]/.test(sql[i - 1] ?? '')) continue;
    const index = Number(digits[0]) - 1;
    if (index >= params.length) throw new Error(`no parameter for $${index + 1}`);
    out += sql.slice(at, i) + sqlLiteral(params[index]);
    i += digits[0].length;
    at = i + 1;
  }
  return out + sql.slice(at);
}
