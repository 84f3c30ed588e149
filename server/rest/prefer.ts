import type { IncomingMessage } from 'node:http';
import { RestError } from './errors.js';

/** The `Prefer` header preferences this server honours (PostgREST's "Prefer Header" list). */
export interface Preferences {
  /** `return=representation`: the changed rows are returned. */
  representation: boolean;
  /** `return=headers-only` or `return=minimal` given explicitly. */
  returnPreference?: 'minimal' | 'headers-only' | 'representation';
  /** `count=exact`, or `planned`/`estimated`, which this server answers with the exact count. */
  countExact: boolean;
  count?: 'exact' | 'planned' | 'estimated';
  resolution?: 'merge-duplicates' | 'ignore-duplicates';
  /** `missing=default`: keys a row leaves out take the column default instead of null. */
  missingDefault: boolean;
  /** `tx=rollback`: the transaction is rolled back after the response is computed. */
  rollback: boolean;
  /** `tx=` given (commit or rollback). */
  tx?: 'commit' | 'rollback';
  /** `handling=strict`: unknown preferences and max-affected are enforced. */
  strict: boolean;
  /** `max-affected=n` (enforced with handling=strict). */
  maxAffected?: number;
  /** `params=single-object`: an RPC takes the body as its one argument. */
  singleObject: boolean;
  /** The preferences applied, for the `Preference-Applied` header. */
  applied: string[];
}

const KNOWN = /^(return=(minimal|headers-only|representation)|count=(exact|planned|estimated)|resolution=(merge-duplicates|ignore-duplicates)|missing=(default|null)|tx=(commit|rollback)|handling=(strict|lenient)|max-affected=\d+|params=single-object|timezone=.+)$/;

/** Reads every `Prefer` header (values are comma-joined by the client). */
export function parsePrefer(req: IncomingMessage): Preferences {
  const raw = req.headers.prefer;
  const items = (Array.isArray(raw) ? raw.join(',') : raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
  const value = (name: string) => items.find((i) => i.startsWith(`${name}=`))?.slice(name.length + 1);
  const strict = value('handling') === 'strict';
  const invalid = items.filter((i) => !KNOWN.test(i));
  if (strict && invalid.length) {
    throw new RestError(400, 'PGRST122', 'Invalid preferences given with handling=strict', `Invalid preferences: ${invalid.join(', ')}`);
  }
  const returnPreference = value('return') as Preferences['returnPreference'];
  const count = value('count') as Preferences['count'];
  const resolution = value('resolution');
  const tx = value('tx') as Preferences['tx'];
  const maxAffected = value('max-affected');
  const preferences: Preferences = {
    representation: returnPreference === 'representation',
    returnPreference: returnPreference && ['minimal', 'headers-only', 'representation'].includes(returnPreference) ? returnPreference : undefined,
    countExact: count === 'exact' || count === 'planned' || count === 'estimated',
    count: count && ['exact', 'planned', 'estimated'].includes(count) ? count : undefined,
    resolution: resolution === 'merge-duplicates' || resolution === 'ignore-duplicates' ? resolution : undefined,
    missingDefault: value('missing') === 'default',
    rollback: tx === 'rollback',
    tx: tx === 'commit' || tx === 'rollback' ? tx : undefined,
    strict,
    maxAffected: maxAffected !== undefined && /^\d+$/.test(maxAffected) ? Number(maxAffected) : undefined,
    singleObject: items.includes('params=single-object'),
    applied: [],
  };
  preferences.applied = items.filter((i) => KNOWN.test(i) && !i.startsWith('max-affected=') && !i.startsWith('timezone='));
  if (preferences.maxAffected !== undefined && strict) preferences.applied.push(`max-affected=${preferences.maxAffected}`);
  return preferences;
}

/** True when the client asked for a single JSON object (`.single()`). */
export function wantsSingleObject(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('application/vnd.pgrst.object+json');
}

/** True when the client asked for CSV (`.csv()`). */
export function wantsCsv(req: IncomingMessage): boolean {
  return (req.headers.accept ?? '').includes('text/csv');
}

/** True when the client asked for null-valued keys to be left out (`Accept: ...;nulls=stripped`, `.stripNulls()`). */
export function wantsNullsStripped(req: IncomingMessage): boolean {
  return /application\/vnd\.pgrst\.(array|object)\+json;\s*nulls=stripped/.test(req.headers.accept ?? '');
}
